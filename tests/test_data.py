"""chainrule.utils.data against torch.utils.data in the main process: datasets, samplers,
collation, DataLoader arguments, errors and warnings, and the random draws (same indices
and the same default-generator state afterwards for the same seeds). Worker processes are
tested in test_dataloader_workers.py."""
import collections
import importlib
import os
import warnings

import numpy as np
import pytest
import torch
import torch.utils.data as tdata

import chainrule
import chainrule.utils.data as cdata
from helpers import same, same_error, same_warnings, warnings_of


def _same(a, b):
    """Batches equal in structure, types, values and dtypes (chainrule vs torch)."""
    if isinstance(b, torch.Tensor):
        assert isinstance(a, chainrule.Tensor)
        assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape)
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    elif isinstance(b, dict):
        assert type(a) is type(b) and list(a) == list(b)
        for k in b:
            _same(a[k], b[k])
    elif isinstance(b, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    else:
        assert type(a) is type(b) and a == b


def _datasets(n=10):
    x = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
    y = np.arange(n)
    return (cdata.TensorDataset(chainrule.tensor(x), chainrule.tensor(y)),
            tdata.TensorDataset(torch.tensor(x), torch.tensor(y)))


def _tensor_dataset(T, n=10):
    return T.utils.data.TensorDataset(T.arange(n * 3.).reshape(n, 3), T.arange(n))


def test_public_names_and_submodules():
    """Every public name of torch.utils.data except the DataPipes, and the submodule paths
    programs import."""
    datapipes = {"DFIterDataPipe", "DataChunk", "IterDataPipe", "MapDataPipe",
                 "argument_validation", "functional_datapipe", "guaranteed_datapipes_determinism",
                 "non_deterministic", "runtime_validation", "runtime_validation_disabled"}
    assert sorted(cdata.__all__) == sorted(set(tdata.__all__) - datapipes)
    for name in cdata.__all__:
        assert getattr(cdata, name).__name__ == getattr(tdata, name).__name__
    for module, names in [("dataloader", ["DataLoader", "default_collate", "default_convert",
                                          "get_worker_info", "_DatasetKind",
                                          "_InfiniteConstantSampler", "_BaseDataLoaderIter",
                                          "_SingleProcessDataLoaderIter",
                                          "_MultiProcessingDataLoaderIter"]),
                          ("sampler", tdata.sampler.__all__),
                          ("dataset", tdata.dataset.__all__),
                          ("distributed", ["DistributedSampler"]),
                          ("_utils.collate", ["default_collate", "default_convert", "collate",
                                              "default_collate_fn_map", "collate_tensor_fn",
                                              "default_collate_err_msg_format"]),
                          ("_utils.worker", ["get_worker_info", "WorkerInfo"]),
                          ("_utils.fetch", ["_MapDatasetFetcher", "_IterableDatasetFetcher"]),
                          ("_utils", ["ExceptionWrapper", "MP_STATUS_CHECK_INTERVAL"])]:
        ours = importlib.import_module(f"chainrule.utils.data.{module}")
        theirs = importlib.import_module(f"torch.utils.data.{module}")
        for name in names:
            assert type(getattr(ours, name)) is type(getattr(theirs, name)), (module, name)
    assert chainrule.utils.data.dataloader.DataLoader is cdata.DataLoader
    assert cdata.dataloader.default_collate is cdata._utils.collate.default_collate
    assert cdata.sampler.RandomSampler is cdata.RandomSampler
    assert cdata.dataset.Subset is cdata.Subset
    assert cdata.distributed.DistributedSampler is cdata.DistributedSampler
    assert cdata.get_worker_info() is None and tdata.get_worker_info() is None
    # the typing generics programs use in annotations and base classes
    for T in (chainrule, torch):
        D = T.utils.data
        D.Dataset[int], D.Subset[int], D.Sampler[int], D.DataLoader[int], D.IterableDataset[int]
        D.DistributedSampler[int], D.ConcatDataset[int]


@pytest.mark.parametrize("batch_size,drop_last", [(1, False), (3, False), (3, True), (10, True),
                                                  (4, True), (16, False)])
@pytest.mark.parametrize("shuffle", [False, True])
def test_loader_matches_torch_with_generator(batch_size, drop_last, shuffle):
    cds, tds = _datasets()
    for seed in (0, 7):
        c = cdata.DataLoader(cds, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last,
                             generator=chainrule.Generator().manual_seed(seed))
        t = tdata.DataLoader(tds, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last,
                             generator=torch.Generator().manual_seed(seed))
        assert len(c) == len(t)
        for _ in range(3):  # successive epochs keep drawing from the generator
            cb, tb = list(c), list(t)
            assert len(cb) == len(tb) == len(t)
            _same(cb, tb)


def test_shuffle_without_generator_follows_the_default_generator():
    cds, tds = _datasets(13)
    chainrule.manual_seed(123)
    torch.manual_seed(123)
    c = cdata.DataLoader(cds, batch_size=4, shuffle=True)
    t = tdata.DataLoader(tds, batch_size=4, shuffle=True)
    for _ in range(2):
        _same(list(c), list(t))
    # and the default generator was advanced the same way
    np.testing.assert_array_equal(chainrule.rand(5).numpy(), torch.rand(5).numpy())


def test_unshuffled_iteration_draws_like_torch():
    cds, tds = _datasets()
    chainrule.manual_seed(3)
    torch.manual_seed(3)
    list(cdata.DataLoader(cds, batch_size=4))
    list(tdata.DataLoader(tds, batch_size=4))
    np.testing.assert_array_equal(chainrule.rand(5).numpy(), torch.rand(5).numpy())


def test_sampler_drawing_in_iter_draws_before_the_base_seed():
    """The iterator creates the sampler's iterator, then draws the workers' base seed: a
    sampler whose __iter__ draws at once (no generator function) draws first."""
    def prog(T):
        class Eager(T.utils.data.Sampler):
            def __iter__(self):
                return iter(T.randperm(6).tolist())

            def __len__(self):
                return 6
        T.manual_seed(11)
        loader = T.utils.data.DataLoader(_tensor_dataset(T, 6), batch_size=4, sampler=Eager())
        return [b[1] for b in loader] + [b[1] for b in loader] + [T.rand(3)]
    same(prog)


class _Dicts(cdata.Dataset):
    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {"x": np.full(2, i, np.float32), "n": i, "f": i / 2, "s": f"s{i}",
                "b": bytes([i]), "flag": i % 2 == 0,
                "pair": (i, [float(i), np.int16(i)]), "od": collections.OrderedDict(a=i)}


class _TDicts(tdata.Dataset):
    __len__ = _Dicts.__len__
    __getitem__ = _Dicts.__getitem__


def test_default_collate_recurses_like_torch():
    c = list(cdata.DataLoader(_Dicts(), batch_size=2))
    t = list(tdata.DataLoader(_TDicts(), batch_size=2))
    _same(c, t)
    Point = collections.namedtuple("Point", "x y")
    batch = [Point(1, 2.0), Point(3, 4.0)]
    cp, tp = cdata.default_collate(batch), tdata.default_collate(batch)
    assert type(cp) is Point
    _same(list(cp), list(tp))
    for batch in ([True, False], [np.float32(1), np.float32(2)], [np.int16(1), np.float32(2)],
                  [np.float64(1.5), np.int64(2)], [np.bool_(True), np.bool_(False)],
                  [np.arange(3, dtype=np.uint8), np.arange(3, dtype=np.uint8)],
                  [np.zeros((2, 2), np.float16)] * 3, [np.array(1.5), np.array(2.5)],
                  [(1, "a"), (2, "b")], [[1, 2], [3, 4]], [range(2), range(2)],
                  [{"a": [1.0, 2.0]}, {"a": [3.0, 4.0]}], [2**40, -1], [1, 2.5], [True, 2],
                  [1.5, 2], [1.0, True], [(1.0, "a"), (2.0, "b")]):
        _same(cdata.default_collate(batch), tdata.default_collate(batch))


def test_default_collate_tensors():
    def prog(T):
        a = T.ones(2, 3, requires_grad=True)
        stacked = T.utils.data.default_collate([a, a * 2])
        promoted = T.utils.data.default_collate([T.ones(2), T.ones(2, dtype=T.float64),
                                                  T.tensor([1, 2])])
        return stacked, promoted, T.utils.data.default_collate([T.tensor(1), T.tensor(2)])
    same(prog)
    same_error(lambda T: T.utils.data.default_collate([T.ones(2), T.ones(3)]))


def test_default_collate_errors():
    with pytest.raises(RuntimeError, match="^each element in list of batch should be of equal "
                                           "size$"):
        cdata.default_collate([[1, 2], [3]])
    for batch in ([object(), object()], [np.array(["a"]), np.array(["b"])],
                  [np.array([None]), np.array([None])], [None, None]):
        same_error(lambda T: T.utils.data.default_collate(batch))


def test_collate_fn_map_can_be_extended():
    class Box:
        def __init__(self, v):
            self.v = v

    def collate_box(batch, *, collate_fn_map=None):
        return sum(b.v for b in batch)

    def prog(T):
        collate = importlib.import_module(f"{T.__name__}.utils.data._utils.collate")
        mapping = {**collate.default_collate_fn_map, Box: collate_box}
        return collate.collate([{"b": Box(1), "t": T.ones(2)}, {"b": Box(2), "t": T.zeros(2)}],
                               collate_fn_map=mapping)
    same(prog)


def test_default_convert():
    Point = collections.namedtuple("Point", "x y")

    def prog(T):
        convert = T.utils.data.default_convert
        return [convert(np.arange(3)), convert(np.float32(2)), convert(3), convert("s"),
                convert((np.zeros(2), 1)), convert([np.ones(2), 2.0]),
                convert({"a": np.int8(1), "b": [np.ones(1)]}), list(convert(Point(np.ones(1), 2))),
                convert(np.array(["a"])).tolist(), convert(T.ones(2))]
    same(prog)
    assert type(cdata.default_convert(Point(1, 2))) is Point


def test_no_auto_batching():
    """batch_size=None: each sample converted (default_convert), not collated."""
    def prog(T):
        loader = T.utils.data.DataLoader(_tensor_dataset(T, 4), batch_size=None)
        samples = list(loader)
        numpy_loader = T.utils.data.DataLoader([np.arange(2) + i for i in range(3)],
                                               batch_size=None, shuffle=True)
        T.manual_seed(2)
        return samples, list(numpy_loader), len(loader), loader.batch_sampler is None
    same(prog)


def test_tensor_dataset():
    cds, _ = _datasets(4)
    assert len(cds) == 4
    x, y = cds[2]
    assert x.tolist() == [6.0, 7.0, 8.0] and y.item() == 2
    same_error(lambda T: T.utils.data.TensorDataset(T.ones(3), T.ones(2)))


def test_stack_concat_chain_datasets():
    def prog(T):
        D = T.utils.data
        a, b = _tensor_dataset(T, 4), D.TensorDataset(T.arange(4) * 10)
        stacked = D.StackDataset(a, b)
        named = D.StackDataset(x=a, y=range(4))
        concat = D.ConcatDataset([a, b])
        plus = a + b

        class Stream(D.IterableDataset):
            def __init__(self, n):
                self.n = n

            def __iter__(self):
                return iter(range(self.n))

            def __len__(self):
                return self.n
        chain = Stream(2) + Stream(3)
        return [stacked[1], named[2], stacked.__getitems__([0, 3]), named.__getitems__([1, 0]),
                len(stacked), len(concat), concat[5], concat[-1], concat.cumulative_sizes,
                plus[4], type(plus).__name__, list(chain), len(chain), type(chain).__name__,
                list(D.ChainDataset([Stream(1), Stream(2)])),
                list(D.DataLoader(stacked, batch_size=3)), list(D.DataLoader(named, batch_size=3))]
    same(prog)
    for prog in [lambda T: T.utils.data.StackDataset(),
                 lambda T: T.utils.data.StackDataset(range(2), a=range(2)),
                 lambda T: T.utils.data.StackDataset(range(2), range(3)),
                 lambda T: T.utils.data.StackDataset(a=range(2), b=range(3)),
                 lambda T: T.utils.data.ConcatDataset([]),
                 lambda T: T.utils.data.ConcatDataset([range(3)])[-4],
                 lambda T: list(T.utils.data.ChainDataset([range(2)])),
                 lambda T: len(T.utils.data.ChainDataset([range(2)])),
                 lambda T: T.utils.data.Dataset()[0]]:
        same_error(prog)
    same_warnings(lambda T: T.utils.data.ConcatDataset([range(2)]).cummulative_sizes)


def test_stack_dataset_checks_nested_getitems():
    def prog(T):
        class Short(T.utils.data.Dataset):
            def __len__(self):
                return 3

            def __getitems__(self, indices):
                return indices[:-1]
        return T.utils.data.StackDataset(Short(), range(3)).__getitems__([0, 1])
    same_error(prog)


def test_subset_in_loader_and_subclass_check():
    cds, tds = _datasets()
    c = cdata.DataLoader(cdata.Subset(cds, [9, 1, 4]), batch_size=2)
    t = tdata.DataLoader(tdata.Subset(tds, [9, 1, 4]), batch_size=2)
    _same(list(c), list(t))

    def prog(T):
        class Doubled(T.utils.data.Subset):
            def __getitem__(self, i):
                return 2 * super().__getitem__(i)
        return Doubled(range(5), [1, 2])
    same_error(prog)


@pytest.mark.parametrize("lengths", [[3, 7], [0.3, 0.7], [0.5, 0.25, 0.25], [0.34, 0.33, 0.33]])
def test_random_split_matches_torch(lengths):
    cds, tds = _datasets()
    cs = cdata.random_split(cds, lengths, generator=chainrule.Generator().manual_seed(42))
    ts = tdata.random_split(tds, lengths, generator=torch.Generator().manual_seed(42))
    assert [s.indices for s in cs] == [s.indices for s in ts]
    assert all(isinstance(s, cdata.Subset) for s in cs)
    _same([cs[0][i] for i in range(len(cs[0]))], [ts[0][i] for i in range(len(ts[0]))])


def test_random_split_default_generator_and_errors():
    chainrule.manual_seed(9)
    torch.manual_seed(9)
    assert ([s.indices for s in cdata.random_split(range(8), [5, 3])]
            == [s.indices for s in tdata.random_split(range(8), [5, 3])])
    np.testing.assert_array_equal(chainrule.rand(3).numpy(), torch.rand(3).numpy())
    same_error(lambda T: T.utils.data.random_split(range(8), [5, 4]))
    same_error(lambda T: T.utils.data.random_split(range(8), [1.5, -0.5]))
    same_warnings(lambda T: T.utils.data.random_split(range(1), [0.9, 0.1]))


# ---- samplers -----------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [{}, dict(num_samples=23), dict(num_samples=4),
                                    dict(replacement=True), dict(replacement=True, num_samples=70),
                                    dict(replacement=True, num_samples=64)])
def test_random_sampler_matches_torch(kwargs):
    def prog(T):
        D = T.utils.data
        g = T.Generator().manual_seed(4)
        with_generator = D.RandomSampler(range(10), generator=g, **kwargs)
        T.manual_seed(8)
        without = D.RandomSampler(range(10), **kwargs)
        return [list(with_generator), list(with_generator), list(without), list(without),
                len(without), without.num_samples, T.rand(2), T.rand(2, generator=g)]
    same(prog)


def test_samplers_match_torch():
    def prog(T):
        D = T.utils.data
        T.manual_seed(1)
        subset = D.SubsetRandomSampler([10, 20, 30, 40, 50])
        batches = D.BatchSampler(D.SequentialSampler(range(10)), 3, False)
        dropped = D.BatchSampler(range(10), 3, drop_last=True)
        return [list(subset), list(subset), len(subset),
                list(D.SubsetRandomSampler([1, 2, 3], generator=T.Generator().manual_seed(3))),
                list(D.SequentialSampler(range(4))), len(D.SequentialSampler(range(4))),
                list(batches), len(batches), list(dropped), len(dropped), T.rand(2)]
    same(prog)
    for prog in [lambda T: T.utils.data.RandomSampler(range(3), replacement=1),
                 lambda T: T.utils.data.RandomSampler(range(3), num_samples=0),
                 lambda T: T.utils.data.RandomSampler([]),
                 lambda T: list(T.utils.data.RandomSampler([], replacement=True, num_samples=2)),
                 lambda T: T.utils.data.BatchSampler(range(3), 0, False),
                 lambda T: T.utils.data.BatchSampler(range(3), True, False),
                 lambda T: T.utils.data.BatchSampler(range(3), 2, None),
                 lambda T: next(iter(T.utils.data.Sampler())),
                 lambda T: T.utils.data.Sampler(range(3)),
                 lambda T: len(T.utils.data.Sampler())]:
        same_error(prog)


@pytest.mark.parametrize("replacement", [True, False])
def test_weighted_random_sampler_matches_torch(replacement):
    rng = np.random.default_rng(0)
    cases = [(rng.random(7), 5), (rng.random(300) * (rng.random(300) < 0.3), 40),
             (np.round(rng.random(50) * 3), 30), ([0.0, 1.0, 0.0, 2.0], 1), ([1, 2, 3], 3)]

    def prog(T):
        out = []
        for weights, n in cases:
            g = T.Generator().manual_seed(len(out))
            sampler = T.utils.data.WeightedRandomSampler(weights, n, replacement, generator=g)
            out += [list(sampler), list(sampler), len(sampler), sampler.weights]
        T.manual_seed(5)
        return out + [list(T.utils.data.WeightedRandomSampler([1.0, 3.0], 2, replacement)),
                      T.rand(2)]
    same(prog)


def test_weighted_random_sampler_errors():
    W = "utils.data.WeightedRandomSampler"
    cases = [([], 3, True), ([], 1, True), ([], 1, False), ([0.0, 0.0], 3, True),
             ([0.0, 0.0], 2, False), ([1.0, -1.0], 3, True), ([1.0, float("nan")], 3, True),
             ([1.0, float("inf")], 3, True), ([1.0, float("inf")], 2, False),
             ([1.0, -1.0], 1, True), ([1.0, 2.0], 3, False)]
    for weights, n, replacement in cases:
        same_error(lambda T: list(_attr(T, W)(weights, n, replacement)))
    for args in [([[1.0, 2.0]], 3), ([1.0], 3, 1), ([1.0], 0), ([1.0], True), ([1.0], 2.0)]:
        same_error(lambda T: _attr(T, W)(*args))


def _attr(T, path):
    for name in path.split("."):
        T = getattr(T, name)
    return T


@pytest.mark.parametrize("n", [10, 11, 3, 1])
@pytest.mark.parametrize("replicas", [1, 3, 4])
def test_distributed_sampler_matches_torch(n, replicas):
    def prog(T):
        out = []
        for shuffle in (True, False):
            for drop_last in (False, True):
                for rank in range(replicas):
                    s = T.utils.data.DistributedSampler(range(n), num_replicas=replicas, rank=rank,
                                                        shuffle=shuffle, seed=5,
                                                        drop_last=drop_last)
                    first = list(s)
                    s.set_epoch(3)
                    out += [first, list(s), len(s), s.num_samples, s.total_size, s.epoch]
        return out
    same(prog)


def test_distributed_sampler_errors():
    D = "utils.data.DistributedSampler"
    for kwargs in [{}, dict(num_replicas=2), dict(rank=0), dict(num_replicas=2, rank=2),
                   dict(num_replicas=2, rank=-1)]:
        same_error(lambda T: _attr(T, D)(range(4), **kwargs))


# ---- DataLoader arguments -----------------------------------------------------------------

def test_loader_argument_errors():
    def stream(T):
        class S(T.utils.data.IterableDataset):
            def __iter__(self):
                return iter(range(3))
        return S()

    cases = [dict(batch_size=0), dict(drop_last=1), dict(shuffle=True, sampler=[1, 2]),
             dict(batch_sampler=[[0]], batch_size=2), dict(batch_sampler=[[0]], shuffle=True),
             dict(batch_sampler=[[0]], sampler=[0]), dict(batch_sampler=[[0]], drop_last=True),
             dict(batch_size=None, drop_last=True), dict(num_workers=-1), dict(timeout=-1),
             dict(prefetch_factor=2), dict(persistent_workers=True),
             dict(num_workers=1, prefetch_factor=-1), dict(multiprocessing_context="fork"),
             dict(num_workers=1, multiprocessing_context="bogus"),
             dict(num_workers=1, multiprocessing_context=3)]
    for kwargs in cases:
        same_error(lambda T: T.utils.data.DataLoader(_tensor_dataset(T), **kwargs))
    for kwargs in [dict(shuffle=True), dict(sampler=[1]), dict(batch_sampler=[[1]])]:
        same_error(lambda T: T.utils.data.DataLoader(stream(T), **kwargs))
    same_error(lambda T: len(T.utils.data.DataLoader(stream(T))))
    same_error(lambda T: iter(T.utils.data.DataLoader(_tensor_dataset(T), timeout=1)))
    same_error(lambda T: iter(T.utils.data.DataLoader(_tensor_dataset(T))).__getstate__())
    for attr in ("batch_size", "sampler", "dataset", "persistent_workers"):
        same_error(lambda T: setattr(T.utils.data.DataLoader(_tensor_dataset(T)), attr, None))
    assert list(cdata.DataLoader(_tensor_dataset(chainrule), batch_sampler=[[0, 2], [1]],
                                 collate_fn=lambda b: len(b))) == [2, 1]


def test_prefetch_factor_zero_fails_when_iterating():
    # (PyTorch's half-built iterator then fails again in __del__; chainrule's does not)
    loader = cdata.DataLoader(range(4), num_workers=1, prefetch_factor=0)
    with pytest.raises(AssertionError, match="^prefetch_factor must be greater than 0 for "
                                             "MultiProcessingDataLoaderIter$"):
        iter(loader)


def test_loader_attributes():
    def prog(T):
        D = T.utils.data
        ds = _tensor_dataset(T)
        plain = D.DataLoader(ds)
        workers = D.DataLoader(ds, batch_size=4, shuffle=True, num_workers=1,
                               multiprocessing_context="spawn", drop_last=True)
        by_batches = D.DataLoader(ds, batch_sampler=[[0, 1], [2]])
        plain.num_workers = 0  # allowed after initialization, as in PyTorch
        return [plain.batch_size, plain.prefetch_factor, plain.persistent_workers,
                plain.pin_memory, plain.pin_memory_device, plain.timeout, plain.in_order,
                type(plain.sampler).__name__, type(plain.batch_sampler).__name__,
                plain.multiprocessing_context, plain.collate_fn.__name__, len(plain),
                workers.prefetch_factor, type(workers.multiprocessing_context).__name__,
                type(workers.sampler).__name__, len(workers), by_batches.batch_size,
                by_batches.drop_last, len(by_batches), plain.worker_init_fn, plain.generator,
                D.DataLoader(ds, batch_size=None).collate_fn.__name__]
    same(prog)


def test_pin_memory_warnings_on_cpu():
    """pin_memory is accepted; without an accelerator each new iterator warns (and
    pin_memory_device is deprecated), and batches are unchanged."""
    def prog(T):
        D = T.utils.data
        loaders = [D.DataLoader(_tensor_dataset(T), batch_size=4, pin_memory=True),
                   D.DataLoader(_tensor_dataset(T), batch_size=4, pin_memory=True,
                                pin_memory_device="cuda"),
                   D.DataLoader(_tensor_dataset(T), batch_size=4, pin_memory_device="cuda")]
        return [list(loader) for loader in loaders]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(prog)
    caught = same_warnings(lambda T: list(T.utils.data.DataLoader(
        _tensor_dataset(T), pin_memory=True, pin_memory_device="cuda")))
    assert len(caught) == 2
    assert warnings_of(lambda: list(cdata.DataLoader(_tensor_dataset(chainrule),
                                                     pin_memory_device="cuda"))) == []


def test_too_many_workers_warns_like_torch():
    many = len(os.sched_getaffinity(0)) + 1
    same_warnings(lambda T: T.utils.data.DataLoader(_tensor_dataset(T), num_workers=many))


def test_iterable_dataset_in_main_process():
    def prog(T):
        class Stream(T.utils.data.IterableDataset):
            def __iter__(self):
                return iter([{"v": i} for i in range(7)])

            def __len__(self):
                return 5
        D = T.utils.data
        batched = D.DataLoader(Stream(), batch_size=3)
        dropped = D.DataLoader(Stream(), batch_size=3, drop_last=True)
        return [list(batched), len(batched), list(dropped), len(dropped),
                list(D.DataLoader(Stream(), batch_size=None)),
                list(D.DataLoader(Stream(), batch_size=2, shuffle=False))]
    same(prog)


def test_iterable_dataset_longer_than_its_len_warns():
    def prog(T):
        class Stream(T.utils.data.IterableDataset):
            def __iter__(self):
                return iter(range(5))

            def __len__(self):
                return 3

            def __repr__(self):
                return "Stream"
        loader = T.utils.data.DataLoader(Stream(), batch_size=None)
        len(loader)  # only then does the loader know a length to check
        list(loader)
    assert len(same_warnings(prog)) == 2

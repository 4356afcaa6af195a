"""chainrule.utils.data against torch.utils.data: same batches for the same data and seeds."""
import collections

import numpy as np
import pytest
import torch
import torch.utils.data as tdata

import chainrule
import chainrule.utils.data as cdata


def _same(a, b):
    """Batches equal in structure, values and dtypes (chainrule vs torch)."""
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
        assert a == b


def _datasets(n=10):
    x = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
    y = np.arange(n)
    return (cdata.TensorDataset(chainrule.tensor(x), chainrule.tensor(y)),
            tdata.TensorDataset(torch.tensor(x), torch.tensor(y)))


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


class _Dicts(cdata.Dataset):
    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {"x": np.full(2, i, np.float32), "n": i, "f": i / 2, "s": f"s{i}",
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
    _same(cdata.default_collate([True, False]), tdata.default_collate([True, False]))


def test_default_collate_errors():
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal"):
        cdata.default_collate([[1, 2], [3]])
    with pytest.raises(TypeError) as c:
        cdata.default_collate([object(), object()])
    with pytest.raises(TypeError) as t:
        tdata.default_collate([object(), object()])
    assert str(c.value) == str(t.value)


def test_tensor_dataset():
    cds, _ = _datasets(4)
    assert len(cds) == 4
    x, y = cds[2]
    assert x.tolist() == [6.0, 7.0, 8.0] and y.item() == 2
    with pytest.raises(AssertionError, match="^Size mismatch between tensors$"):
        cdata.TensorDataset(chainrule.zeros(3), chainrule.zeros(4))


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
    with pytest.raises(ValueError, match="^Sum of input lengths does not equal"):
        cdata.random_split(range(8), [5, 4])
    with pytest.raises(ValueError, match="^Fraction at index 0 is not between 0 and 1$"):
        cdata.random_split(range(8), [1.5, -0.5])
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        cdata.random_split(range(1), [0.9, 0.1])


def test_subset_in_loader():
    cds, tds = _datasets()
    c = cdata.DataLoader(cdata.Subset(cds, [9, 1, 4]), batch_size=2)
    t = tdata.DataLoader(tdata.Subset(tds, [9, 1, 4]), batch_size=2)
    _same(list(c), list(t))


def test_loader_argument_errors():
    cds, _ = _datasets()
    for kwargs in [dict(batch_size=0), dict(batch_size=None), dict(drop_last=1),
                   dict(sampler=cdata.SequentialSampler(cds), shuffle=True),
                   dict(batch_sampler=[[0]], batch_size=2), dict(num_workers=2)]:
        with pytest.raises(ValueError):
            cdata.DataLoader(cds, **kwargs)
    assert list(cdata.DataLoader(cds, batch_sampler=[[0, 2], [1]],
                                 collate_fn=lambda b: len(b))) == [2, 1]

"""chainrule.utils.benchmark against torch.utils.benchmark: the same measurements give the
same statistics, repr and Compare tables; Timer measures real statements."""
import re

import pytest
import torch.utils.benchmark as tb

import chainrule
import chainrule.utils.benchmark as cb

# replicate times (seconds), chosen to exercise units, spreads and warnings
TIMES = {
    "tight": [1.01e-6, 1.02e-6, 1.0e-6, 0.99e-6, 1.03e-6, 1.0e-6, 1.01e-6, 1.02e-6],
    "noisy": [2.1e-5, 3.5e-5, 2.2e-5, 9.0e-5, 2.0e-5, 2.4e-5, 4.1e-5],
    "medium": [3.3e-3, 3.31e-3, 3.5e-3, 3.2e-3, 3.35e-3],
    "single": [0.25],
    "three": [4e-9, 5e-9, 6e-9],
    "seconds": [1.5, 1.7, 1.6, 1.55],
}


def measurement(lib, times, number=10, **spec):
    spec.setdefault("stmt", "x + y")
    spec.setdefault("setup", "pass")
    return lib.Measurement(number_per_run=number, raw_times=[t * number for t in times],
                           task_spec=lib.TaskSpec(**spec))


def strip_address(text):
    return re.sub(r"<[\w.]+\.Measurement object at 0x[0-9a-f]+>", "<Measurement>", text)


@pytest.mark.parametrize("name", sorted(TIMES))
def test_measurement_statistics_and_repr(name):
    for spec in ({}, dict(label="add", sub_label="float", description="n=10",
                          setup="x = torch.ones(3)\ny = x"), dict(stmt="a\nb", num_threads=4)):
        ours, theirs = measurement(cb, TIMES[name], **spec), measurement(tb, TIMES[name], **spec)
        assert ours.times == theirs.times
        assert ours.median == theirs.median
        assert ours.mean == pytest.approx(theirs.mean, rel=1e-15)
        assert ours.iqr == theirs.iqr
        assert ours.significant_figures == theirs.significant_figures
        assert ours.has_warnings == theirs.has_warnings
        assert ours.meets_confidence() == theirs.meets_confidence()
        assert ours.title == theirs.title and ours.as_row_name == theirs.as_row_name
        assert strip_address(repr(ours)) == strip_address(repr(theirs))


def test_number_helpers():
    for t in (3e-10, 1e-9, 9.99e-7, 1e-6, 2.5e-4, 1e-3, 0.5, 1.0, 12.0):
        assert cb.select_unit(t) == tb.select_unit(t)
    for x, n in ((3.14159, 2), (123.456, 1), (0.000123456, 3), (98765.4, 4), (-2.71828, 3)):
        assert cb.trim_sigfig(x, n) == tb.trim_sigfig(x, n)
    for u in ("ns", "us", "ms", "s"):
        assert cb.unit_to_english(u) == tb.unit_to_english(u)
    assert cb.ordered_unique([3, 1, 3, 2, 1]) == tb.ordered_unique([3, 1, 3, 2, 1])


def test_merge():
    def merged(lib):
        ms = [measurement(lib, TIMES["tight"], label="a"), measurement(lib, TIMES["noisy"],
                                                                       label="a"),
              measurement(lib, TIMES["medium"], label="b")]
        return [(m.number_per_run, m.times, m.label) for m in lib.Measurement.merge(ms)]
    assert merged(cb) == merged(tb)


def compare_table(lib, trim=False, colorize=None, warnings=False):
    results = []
    for i, (name, times) in enumerate(sorted(TIMES.items())):
        for d, scale in (("n=1", 1.0), ("n=100", 37.0)):
            results.append(measurement(lib, [t * scale for t in times], label="ops",
                                       sub_label=name, description=d, num_threads=1 + i % 2))
    results.append(measurement(lib, TIMES["tight"], label="other", sub_label="x",
                               description="d", env="A"))
    results.append(measurement(lib, TIMES["noisy"], label="other", sub_label="x",
                               description="d", env="B"))
    c = lib.Compare(results)
    if trim:
        c.trim_significant_figures()
    if colorize is not None:
        c.colorize(rowwise=colorize)
    if warnings:
        c.highlight_warnings()
    return str(c)


@pytest.mark.parametrize("trim", [False, True])
@pytest.mark.parametrize("colorize", [None, False, True])
@pytest.mark.parametrize("warnings", [False, True])
def test_compare_layout(trim, colorize, warnings):
    assert compare_table(cb, trim, colorize, warnings) == compare_table(tb, trim, colorize,
                                                                        warnings)


def test_compare_print_and_errors(capsys):
    c = cb.Compare([measurement(cb, TIMES["tight"], description="d")])
    c.print()
    assert capsys.readouterr().out == str(c) + "\n"
    # a measurement without a description cannot be laid out, in either library
    for lib in (cb, tb):
        with pytest.raises(TypeError, match="object of type 'NoneType' has no len()"):
            str(lib.Compare([measurement(lib, TIMES["tight"])]))
    with pytest.raises(ValueError, match="Expected an instance of `Measurement`"):
        cb.Compare([1])
    assert [e.value for e in cb.Colorize] == [e.value for e in tb.Colorize]


def test_timer_measures():
    t = cb.Timer("x + y", setup="x = torch.ones(10); y = torch.ones(10)", label="add",
                 sub_label="ones", description="10")
    m = t.timeit(50)
    assert m.number_per_run == 50 and len(m.raw_times) == 1 and m.raw_times[0] > 0
    blocked = t.blocked_autorange(min_run_time=0.02)
    assert sum(blocked.raw_times) >= 0.02 and blocked.median > 0
    adaptive = t.adaptive_autorange(min_run_time=0.01, max_run_time=0.1)
    assert len(adaptive.raw_times) >= 1 and adaptive.median > 0
    seen = []
    t.blocked_autorange(callback=lambda number, time: seen.append((number, time)),
                        min_run_time=0.01)
    assert seen and all(n > 0 and s > 0 for n, s in seen)
    # `torch` in the statement is chainrule, and globals are passed through
    g = cb.Timer("r.append(type(torch.ones(1)).__module__)", globals={"r": []})
    g.timeit(3)
    assert g._globals["r"][0] == "torch" and g._globals["torch"] is chainrule
    assert chainrule.get_num_threads() >= 1   # restored after num_threads=1 runs


def test_timer_errors_as_pytorch():
    for kwargs in (dict(stmt=lambda: 0), dict(global_setup="int x;"), dict(language="java")):
        with pytest.raises(ValueError) as ours:
            cb.Timer(**kwargs)
        with pytest.raises(ValueError) as theirs:
            tb.Timer(**kwargs)
        assert str(ours.value) == str(theirs.value)
    for method in ("repeat", "autorange"):
        with pytest.raises(NotImplementedError, match="See `Timer.blocked_autorange.`"):
            getattr(cb.Timer(), method)()
    assert cb.Language.PYTHON.value == tb.Language.PYTHON.value


# ---- Fuzzer -----------------------------------------------------------------------------

def _fuzz(lib, bench, seed=1234, n=12):
    """Parameters, tensors (values, shapes, strides, dtypes) and properties drawn for `seed`."""
    import numpy as np

    class Pick(bench.FuzzedParameter):
        # an alias half of the time (PyTorch 2.13 refuses every dict distribution, see below)
        def sample(self, state):
            return bench.ParameterAlias("k0") if state.rand() < 0.5 else 1

    fuzzer = bench.Fuzzer(
        parameters=[
            bench.FuzzedParameter("dim", minval=1, maxval=3, distribution="uniform",
                                  strict=True),
            [bench.FuzzedParameter(f"k{i}", minval=2, maxval=64, distribution="loguniform")
             for i in range(3)],
            [bench.FuzzedParameter(f"s{i}", minval=1, maxval=3, distribution="uniform")
             for i in range(3)],
            bench.FuzzedParameter("u", minval=0, maxval=10, distribution="uniform"),
            bench.FuzzedParameter("f", minval=0.5, maxval=1.5, distribution="uniform"),
            Pick("y_len", minval=0, maxval=1, distribution="uniform"),
        ],
        tensors=[
            bench.FuzzedTensor("x", size=("k0", "k1", "k2"), steps=("s0", "s1", "s2"),
                               dim_parameter="dim", probability_contiguous=0.4, min_elements=8,
                               max_elements=4096, max_allocation_bytes=64 * 1024),
            bench.FuzzedTensor("y", size=("y_len",), dtype=lib.int32),
            bench.FuzzedTensor("z", size=(3, "k1"), dtype=lib.float64,
                               tensor_constructor=lambda size, dtype, **params: lib.full(
                                   size, float(params["u"]), dtype=dtype)),
            [bench.FuzzedTensor("c", size=(2, 2), dtype=lib.complex64),
             bench.FuzzedTensor("h", size=(4,), dtype=lib.int8, probability_contiguous=0.0)],
        ],
        constraints=[lambda params: params["u"] != 3],
        seed=seed)
    assert fuzzer.rejection_rate == 0.0
    out = []
    for tensors, properties, params in fuzzer.take(n):
        out.append(sorted(params.items()))
        for name in sorted(tensors):
            t = tensors[name]
            out.append((name, t.tolist(), tuple(t.shape), t.stride(), str(t.dtype),
                        {k: v.tolist() if isinstance(v, np.ndarray) else v
                         for k, v in properties[name].items()}))
    out.append(fuzzer.rejection_rate)
    return out


@pytest.mark.parametrize("seed", [0, 1234])
def test_fuzzer_draws_as_pytorch(seed):
    import torch
    ours = _fuzz(chainrule, cb, seed)
    assert ours == _fuzz(torch, tb, seed)
    assert ours[-1] > 0             # the constraint and the element limits rejected some


def test_fuzzer_checks_as_pytorch():
    import numpy as np
    import torch

    def outcome(f):
        try:
            return "ok", f()
        except (AssertionError, ValueError, RuntimeError) as e:
            return type(e).__name__, str(e)

    cases = [
        lambda lib, b: b.FuzzedParameter("a", 1, 2, distribution="normal"),
        # PyTorch 2.13's normalization test is inverted: a normalized dict is refused...
        lambda lib, b: b.FuzzedParameter("a", distribution={1: 0.5, 2: 0.5}),
        # ... and NumPy refuses the others when sampling
        lambda lib, b: b.FuzzedParameter("a", distribution={1: 0.5, 2: 0.6}).sample(
            np.random.RandomState(0)),
        lambda lib, b: b.FuzzedParameter("a", distribution={1: -0.5, 2: 0.6}),
        lambda lib, b: b.FuzzedParameter("a", 1, distribution={1: 0.6}),
        lambda lib, b: b.FuzzedParameter("a", None, 2, distribution={1: 0.6}),
        lambda lib, b: b.Fuzzer([b.FuzzedParameter("x", 1, 2, distribution="uniform")],
                                [b.FuzzedTensor("x", size=(2,))]),
        lambda lib, b: b.Fuzzer._resolve_aliases({"a": b.ParameterAlias("b"),
                                                  "b": b.ParameterAlias("a"), "c": 1}),
        lambda lib, b: b.Fuzzer._resolve_aliases({"a": b.ParameterAlias("b"),
                                                  "b": b.ParameterAlias("c"), "c": 3}),
        lambda lib, b: next(b.Fuzzer([b.FuzzedParameter("n", 1, 4, distribution="uniform")],
                                     [b.FuzzedTensor("x", size=("n",), min_elements=10)],
                                     seed=0).take(1)),
        lambda lib, b: next(b.Fuzzer([b.FuzzedParameter("n", 1, 4, distribution="uniform")],
                                     [b.FuzzedTensor("x", size=("n",))],
                                     constraints=[lambda p: False], seed=0).take(1)),
        lambda lib, b: next(b.Fuzzer([], [b.FuzzedTensor("x", size=(2,), cuda=True)],
                                     seed=0).take(1)),
        lambda lib, b: next(b.Fuzzer([b.FuzzedParameter("n", 1, 4, distribution="loguniform")],
                                     [b.FuzzedTensor("x", size=("n", 2), dtype=lib.int64)],
                                     seed=5).take(1))[0]["x"].tolist(),
        lambda lib, b: repr(b.ParameterAlias("k")),
        lambda lib, b: [b.FuzzedTensor("t", size=("n", 4), steps=(1, "s"), max_elements=20,
                                       max_allocation_bytes=200).satisfies_constraints(
                            {"n": n, "s": s}) for n in (2, 5, 6) for s in (1, 2)],
        lambda lib, b: b.FuzzedTensor.default_tensor_constructor(
            (2, 3), lib.float64).dtype == lib.float64,
        lambda lib, b: [b.FuzzedParameter("p", 1, 5, distribution="uniform", strict=True).strict,
                        b.FuzzedTensor("t", size=(1,)).name, b.FuzzedParameter("q", 1, 2,
                        distribution="uniform").name],
    ]
    for case in cases:
        assert outcome(lambda: case(chainrule, cb)) == outcome(lambda: case(torch, tb))


def test_fuzzer_sizes():
    import torch
    import torch.utils.benchmark.utils.fuzzer as tf

    from chainrule.utils.benchmark.utils import fuzzer as cf
    for name in ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                 "float32", "float64", "complex64", "complex128"):
        assert cf.dtype_size(getattr(chainrule, name)) == tf.dtype_size(getattr(torch, name))
    assert cf.prod([2 ** 40, 2 ** 40], base=3) == tf.prod([2 ** 40, 2 ** 40], base=3)


def test_fuzzed_sparse_tensor():
    import warnings

    import numpy as np

    def fuzzer(b, density="density"):
        return b.Fuzzer(
            parameters=[b.FuzzedParameter("n", 2, 9, distribution="uniform"),
                        b.FuzzedParameter("density", 0.1, 0.5, distribution="uniform"),
                        b.FuzzedParameter("coalesced", 0, 1, distribution="uniform"),
                        b.FuzzedParameter("sparse_dim", 1, 2, distribution="uniform")],
            tensors=[b.FuzzedSparseTensor("s", size=("n", 3), min_elements=4,
                                          sparse_dim="sparse_dim", density=density,
                                          coalesced="coalesced")],
            seed=7)

    assert issubclass(cb.FuzzedSparseTensor, cb.FuzzedTensor)
    ours, theirs = fuzzer(cb), fuzzer(tb)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # PyTorch's sparse invariant-check notice
        _, properties, torch_params = next(theirs.take(1))
    assert properties["s"]["dtype"] == "torch.float32"
    # the sparse tensor's parameters are drawn as PyTorch draws them (take() first draws
    # the generator's seed)
    state = np.random.RandomState(7)
    state.randint(low=0, high=2 ** 63, dtype=np.int64)
    assert ours._generate(state) == torch_params
    # building the sparse tensor is where chainrule stops: it has no sparse layouts
    with pytest.raises(NotImplementedError, match="chainrule has no sparse tensors"):
        next(ours.take(1))
    # PyTorch's argument checks come first, with its errors
    for b in (cb, tb):
        with pytest.raises(AssertionError, match="nnz cannot exceed total number of elements"):
            b.FuzzedSparseTensor("s", size=(2, 3))._make_tensor(
                {"density": 2.0, "coalesced": True}, None)
        with pytest.raises(AssertionError, match="invalid arguments"):
            b.FuzzedSparseTensor.sparse_tensor_constructor([0, 3], chainrule.float32, 1, 1,
                                                           True)


def test_compare_tables_equal_pytorch_on_random_layouts():
    """Labels, sub-labels, descriptions, envs, thread counts and missing cells drawn at
    random: every rendering option prints PyTorch's table byte for byte."""
    import random
    from torch.utils.benchmark.utils import common as torch_common
    from chainrule.utils.benchmark.utils import common as our_common
    rng = random.Random(0)

    def build(common, specs):
        return [common.Measurement(num, times, common.TaskSpec(
            stmt="x", setup="", label=label, sub_label=sub, description=desc, env=env,
            num_threads=threads)) for label, sub, desc, env, threads, times, num in specs]

    options = [lambda c: None, lambda c: c.trim_significant_figures(), lambda c: c.colorize(),
               lambda c: c.colorize(rowwise=True), lambda c: c.highlight_warnings()]
    for _ in range(60):
        envs = rng.choice([[None], ["a"], ["a", "bbb"]])
        specs = [(label, sub, desc, rng.choice(envs), rng.choice([1, 1, 4]),
                  [10 ** rng.uniform(-7, 0) * (1 + rng.uniform(0, rng.choice([0.01, 0.5])))
                   for _ in range(rng.randint(1, 9))], rng.choice([1, 10, 100]))
                 for label in rng.sample(["L1", "L2"], rng.randint(1, 2))
                 for sub in rng.sample(["s1", "s2", "s3"], rng.randint(1, 3))
                 for desc in rng.sample(["d1", "d2", "d3"], rng.randint(1, 3))
                 if rng.random() > 0.2]
        if not specs:
            continue
        theirs = tb.Compare(build(torch_common, specs))
        ours = cb.Compare(build(our_common, specs))
        for option in options:
            option(theirs)
            option(ours)
            assert str(ours) == str(theirs)

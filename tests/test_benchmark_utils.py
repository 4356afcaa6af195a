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

"""chainrule.profiler and chainrule.autograd.profiler: what is recorded (ops as aten::<op>,
backward nodes, record_function blocks, shapes, memory, stacks, schedules), that nothing is
recorded or paid when off, and that the reports are laid out exactly as PyTorch's for the
same events."""
import importlib
import json
import os

import pytest
import torch
import torch.autograd.profiler_util as tpu

import chainrule
from chainrule.autograd import engine
from chainrule.ops import registry
from chainrule.profiler import _events as cpu_events


def names(events):
    return [e.name for e in events]


def test_records_ops_backward_nodes_and_blocks():
    T = chainrule
    x = T.randn(3, 3, requires_grad=True)
    with T.profiler.profile(activities=[T.profiler.ProfilerActivity.CPU]) as prof:
        with T.profiler.record_function("block"):
            y = (x * 2 + 1).sum()
        y.backward()
    events = prof.events()
    got = names(events)
    for expected in ("block", "aten::mul", "aten::add", "aten::sum",
                     "autograd::engine::evaluate_function: SumBackward0", "SumBackward0",
                     "autograd::engine::evaluate_function: MulBackward0", "MulBackward0",
                     "torch::autograd::AccumulateGrad"):
        assert expected in got, (expected, got)
    block = next(e for e in events if e.name == "block")
    assert {c.name for c in block.cpu_children} == {"aten::mul", "aten::add", "aten::sum"}
    node = next(e for e in events if e.name == "SumBackward0")
    assert node.cpu_parent.name == "autograd::engine::evaluate_function: SumBackward0"
    assert all(e.time_range.end >= e.time_range.start >= 0 for e in events)
    assert all(e.self_cpu_time_total <= e.cpu_time_total + 1e-9 for e in events)
    avg = {e.key: e for e in prof.key_averages()}
    assert avg["aten::mul"].count == 2 and avg["block"].count == 1   # x * 2 and grad * 2
    assert prof.key_averages().self_cpu_time_total == pytest.approx(
        sum(e.self_cpu_time_total for e in events))


def test_off_costs_nothing():
    # no hook is installed outside a profile, and none is left behind after one
    assert engine.evaluate_hook is None
    with chainrule.profiler.profile():
        assert engine.evaluate_hook is not None
        chainrule.ones(2) + 1
    assert engine.evaluate_hook is None
    for ns, key, original in registry._GENERATED:
        assert ns[key] is original
    # record_function outside a profile records nothing and works as decorator
    @chainrule.profiler.record_function("f")
    def f(v):
        return v + 1
    assert f(chainrule.ones(1)).tolist() == [2.0]


def test_record_shapes_memory_and_stack():
    T = chainrule
    x = T.ones(4, 5)
    with T.autograd.profiler.profile(record_shapes=True, profile_memory=True,
                                     with_stack=True) as prof:
        with T.autograd.profiler.record_function("outer"):
            y = T.mm(x, x.t())
            z = y.view(-1)
    events = prof.function_events
    mm = next(e for e in events if e.name == "aten::mm")
    assert mm.input_shapes == [[4, 5], [5, 4]]
    assert mm.cpu_memory_usage == 4 * 4 * 4          # the float32 result
    outer = next(e for e in events if e.name == "outer")
    assert outer.cpu_memory_usage >= mm.cpu_memory_usage    # children's allocations count
    view = next(e for e in events if e.name == "aten::view")
    assert view.cpu_memory_usage == 0                # a view allocates nothing
    assert any(__file__ in entry for entry in mm.stack)
    assert z.shape == (16,)
    table = prof.table(row_limit=10)
    assert "Input Shapes" in table and "CPU Mem" in table and "Source Location" in table
    grouped = prof.key_averages(group_by_input_shape=True)
    assert any(e.input_shapes == [[4, 5], [5, 4]] for e in grouped)


def test_flops():
    T = chainrule
    a = T.ones(2, 3)
    b = T.ones(3, 4)
    with T.profiler.profile(with_flops=True) as prof:
        T.mm(a, b)
    mm = next(e for e in prof.events() if e.name == "aten::mm")
    assert mm.flops == 2 * 2 * 3 * 4
    assert "Total FLOPs" in prof.key_averages().table()


def test_schedule_steps_and_trace_ready(tmp_path):
    T = chainrule
    ready = []
    sched = T.profiler.schedule(wait=1, warmup=1, active=2, repeat=1)
    with T.profiler.profile(schedule=sched, on_trace_ready=lambda p: ready.append(
            names(p.events()))) as prof:
        for step in range(6):
            T.ones(1) * step
            prof.step()
    assert len(ready) == 1
    steps = [n for n in ready[0] if n.startswith("ProfilerStep#")]
    assert steps == ["ProfilerStep#2", "ProfilerStep#3"]
    assert ready[0].count("aten::mul") == 2
    # the schedule function is PyTorch's
    for kwargs in (dict(wait=1, warmup=1, active=2), dict(wait=0, warmup=2, active=1, repeat=2,
                                                         skip_first=3),
                   dict(wait=2, warmup=1, active=1, skip_first_wait=1)):
        ours = T.profiler.schedule(**kwargs)
        theirs = torch.profiler.schedule(**kwargs)
        assert [ours(i).name for i in range(12)] == [theirs(i).name for i in range(12)]
    with pytest.raises(AssertionError, match="Invalid profiler schedule arguments"):
        T.profiler.schedule(wait=0, warmup=0, active=0)
    with pytest.warns(UserWarning, match="Profiler won't be using warmup"):
        T.profiler.schedule(wait=0, warmup=0, active=1)


def test_exports(tmp_path):
    T = chainrule
    with T.profiler.profile(with_stack=True) as prof:
        T.ones(3).exp()
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    assert any(e["name"] == "aten::exp" and e["ph"] == "X" for e in trace["traceEvents"])
    stacks = tmp_path / "stacks.txt"
    prof.export_stacks(str(stacks), "self_cpu_time_total")
    assert stacks.exists()
    handler = T.profiler.tensorboard_trace_handler(str(tmp_path / "tb"), worker_name="w")
    with T.profiler.profile(on_trace_ready=handler):
        T.ones(2) + 1
    files = os.listdir(tmp_path / "tb")
    assert len(files) == 1 and files[0].startswith("w.") and files[0].endswith(".pt.trace.json")
    with T.autograd.profiler.profile() as legacy:
        T.ones(2).sum()
    legacy.export_chrome_trace(str(tmp_path / "legacy.json"))
    assert any(e["name"] == "aten::sum" for e in json.loads(
        (tmp_path / "legacy.json").read_text()))


def test_api_as_pytorch():
    T = chainrule
    assert T.profiler.supported_activities() == {T.profiler.ProfilerActivity.CPU}
    assert [(k, int(v)) for k, v in T.profiler.ProfilerActivity.__members__.items()] == \
        [(k, int(v)) for k, v in torch.profiler.ProfilerActivity.__members__.items()
         if k in T.profiler.ProfilerActivity.__members__]
    assert repr(T.profiler.ProfilerActivity.CPU) == repr(torch.profiler.ProfilerActivity.CPU)
    assert [a.name for a in T.profiler.ProfilerAction] == \
        [a.name for a in torch.profiler.ProfilerAction if a.name != "DEVICE_STOPPED"]
    with pytest.raises(AssertionError, match="No valid profiler activities found"):
        T.profiler.profile(activities=[])
    for lib in (T, torch):
        with pytest.raises(RuntimeError) as e:
            lib.profiler.record_function(3).__enter__()
    assert "Expected a value of type 'str' for argument 'name'" in str(e.value)
    with T.autograd.profiler.profile(enabled=False) as p:
        T.ones(1) + 1
    assert p is None
    unfinished = T.autograd.profiler.profile()
    assert repr(unfinished) == "<unfinished torch.autograd.profile>"
    with pytest.raises(RuntimeError, match="Profiler didn't finish running"):
        unfinished.table()


def same_events(times):
    """The same event tree in both libraries' FunctionEvent classes (times in us)."""
    out = []
    for mod in (cpu_events, tpu):
        events = mod.EventList(
            [mod.FunctionEvent(id=i, name=name, thread=1, start_us=s, end_us=e,
                               input_shapes=shapes, stack=stack, cpu_memory_usage=mem,
                               flops=flops)
             for i, (name, s, e, shapes, stack, mem, flops) in enumerate(times)],
            profile_memory=True, with_flops=True)
        events._build_tree()
        out.append(events)
    return out


EVENTS = [
    ("outer", 0.0, 1500.25, [], ["a.py(1): main"], 1024, 0),
    ("aten::mm", 10.0, 810.5, [[4, 5], [5, 4]], ["a.py(2): f", "a.py(1): main"], 64, 160),
    ("aten::add", 820.0, 830.125, [[4, 4], [], []], ["a.py(3): f"], 64, 16),
    ("aten::add", 840.0, 852.0, [[4, 4], [], []], ["a.py(3): f"], 64, 16),
    ("autograd::engine::evaluate_function: a very long node name that is cut", 900.0, 1400.0,
     [], [], 0, 0),
    ("MmBackward0", 900.0, 1400.0, [], [], 2048 * 1024, 0),
    ("aten::sum", 2000.0, 3500000.0, [[1000]], [], 4, 0),
]


@pytest.mark.parametrize("kwargs", [
    {}, dict(sort_by="cpu_time_total"), dict(sort_by="self_cpu_time_total", row_limit=3),
    dict(sort_by="count"), dict(sort_by="cpu_memory_usage"), dict(top_level_events_only=True),
    dict(header="Header"), dict(max_name_column_width=20), dict(time_unit="ms"),
    dict(time_unit="s"), dict(time_unit="us"), dict(max_shapes_column_width=10),
    dict(max_src_column_width=8)])
@pytest.mark.parametrize("averaged", [False, True])
def test_table_layout_as_pytorch(kwargs, averaged):
    ours, theirs = same_events(EVENTS)
    if averaged:
        ours = ours.key_averages(group_by_input_shapes=True, group_by_stack_n=2)
        theirs = theirs.key_averages(group_by_input_shapes=True, group_by_stack_n=2)
    assert ours.table(**kwargs) == theirs.table(**kwargs)
    assert repr(ours.total_average()) == repr(theirs.total_average())
    assert ours.self_cpu_time_total == theirs.self_cpu_time_total


def test_event_reprs_as_pytorch():
    ours, theirs = same_events(EVENTS)
    assert [repr(e) for e in ours] == [repr(e) for e in theirs]
    assert [repr(e) for e in ours.key_averages()] == [repr(e) for e in theirs.key_averages()]
    assert cpu_events._build_table(cpu_events.EventList()) == ""


# ---- execution trace, step tracking, ITT, record scopes, optimizer step hooks -------------

def _normalized_trace(path):
    """The trace file's text without what differs from run to run (pid, times), what
    chainrule cannot write (ATen operator schemas), and with record-function handles and
    sequence numbers counted from the trace's first (both are process-wide counters, which
    earlier tests have advanced differently in the two libraries)."""
    import re
    text = open(path).read()
    text = re.sub(r'"(pid|start_ts|finish_ts)": \d+', r'"\1": 0', text)
    text = re.sub(r'"time": "[^"]*"', '"time": ""', text)
    text = re.sub(r'("op_schema", "type": "string", "value": )"[^"]*"', r'\1""', text)
    for attr in ("rf_id", "seq_id"):
        pattern = r'("name": "%s", "type": "u?int64", "value": )(\d+)' % attr
        first = next(int(v) for _, v in re.findall(pattern, text)
                     if int(v) > 0 or attr == "seq_id")
        text = re.sub(pattern, lambda m: m.group(1) + str(int(m.group(2)) - first), text)
    return text


def _trace_program(lib, path):
    x = lib.arange(6.).reshape(2, 3).requires_grad_()
    w = lib.ones(2, 3)
    et = lib.profiler.ExecutionTraceObserver()
    assert (et.is_registered, et.is_running(), et.get_output_file_path()) == (False, False, None)
    assert et.register_callback(path) is et
    assert et.is_registered and not et.is_running()
    lib.exp(w)                                   # before start: not recorded
    et.start()
    assert et.is_running()
    a = x.exp()
    with lib.profiler.record_function("block", "why"):
        b = lib.cat([a, w], 0).view(3, 4)
        v, i = lib.topk(b, 2)
        with lib.no_grad():
            e = lib.sin(w)
    c = lib.add(v, v, alpha=2)
    d = lib.mul(w, e)
    et.stop()
    lib.cos(w)                                   # after stop: not recorded
    et.unregister_callback()
    assert not et.is_registered and et.get_output_file_path() == path
    return a, b, v, i, e, c, d


def test_execution_trace_as_pytorch(tmp_path):
    # ops whose ATen kernels call no other op: the whole file is PyTorch's, byte for byte
    # (node ids, tensor and storage ids, shapes, strides, types, values, sequence numbers,
    # record_function blocks and their arguments, layout)
    ours, theirs = str(tmp_path / "ours.json"), str(tmp_path / "theirs.json")
    _trace_program(chainrule, ours)
    _trace_program(torch, theirs)
    assert _normalized_trace(ours) == _normalized_trace(theirs)
    trace = json.load(open(ours))
    assert [n["name"] for n in trace["nodes"]] == [
        "[pytorch|profiler|execution_trace|thread]", "aten::exp", "aten::cat", "aten::view",
        "aten::topk", "aten::sin", "block", "aten::add", "aten::mul",
        "[pytorch|profiler|execution_trace|process]"]


def _kept_nodes(trace):
    """(name, parent's name, inputs, outputs, seq_id, scope, fw_tid, fw_parent's name) of the
    nodes not inside an aten op (PyTorch's kernels run ops of their own)."""
    nodes = {n["id"]: n for n in trace["nodes"]}
    seq0 = next(a["value"] for n in trace["nodes"] for a in n["attrs"]
                if a["name"] == "seq_id" and a["value"] >= 0)     # a process-wide counter
    kept = []
    for n in trace["nodes"]:
        parent = nodes[n["ctrl_deps"]]
        if parent is not n and parent["name"].startswith("aten::"):
            continue
        attrs = {a["name"]: a["value"] for a in n["attrs"]}
        kept.append((n["name"], parent["name"], n["inputs"]["types"], n["inputs"]["shapes"],
                     n["inputs"]["strides"], n["outputs"]["types"], n["outputs"]["shapes"],
                     attrs["seq_id"] if attrs["seq_id"] < 0 else attrs["seq_id"] - seq0,
                     attrs["scope"], attrs["tid"], attrs["fw_tid"],
                     attrs["fw_parent"] and nodes[attrs["fw_parent"]]["name"]))
    return kept


def test_execution_trace_backward_as_pytorch(tmp_path):
    def program(lib, path):
        x = lib.arange(6.).reshape(2, 3).requires_grad_()
        w = lib.full((2, 3), 2.0)
        g = lib.ones(2, 3)
        et = lib.profiler.ExecutionTraceObserver().register_callback(path)
        et.start()
        y = x.exp() * w
        with lib.profiler.record_function("backward"):
            gx, = lib.autograd.grad(y, x, g)
        et.stop()
        et.unregister_callback()
        return json.load(open(path)), gx

    ours, gx = program(chainrule, str(tmp_path / "ours.json"))
    theirs, tgx = program(torch, str(tmp_path / "theirs.json"))
    assert gx.flatten().tolist() == pytest.approx(tgx.flatten().tolist(), rel=1e-6)
    assert _kept_nodes(ours) == _kept_nodes(theirs)
    names = [k[0] for k in _kept_nodes(ours)]
    assert names.index("MulBackward0") < names.index(
        "autograd::engine::evaluate_function: MulBackward0")
    assert set(ours) == set(theirs) == {"schema", "pid", "time", "start_ts", "nodes",
                                        "finish_ts"}
    assert ours["schema"] == theirs["schema"]
    for a, b in zip(ours["nodes"], theirs["nodes"]):
        assert list(a) == list(b)
        assert [(x["name"], x["type"]) for x in a["attrs"]] == \
            [(x["name"], x["type"]) for x in b["attrs"]]


def test_execution_trace_off_costs_nothing(tmp_path):
    et = chainrule.profiler.ExecutionTraceObserver().register_callback(
        str(tmp_path / "t.json"))
    assert engine.evaluate_hook is None
    et.start()
    assert engine.evaluate_hook is not None
    with chainrule.profiler.profile() as prof:
        chainrule.ones(2).exp()
    assert engine.evaluate_hook is not None      # the trace still records
    et.stop()
    assert engine.evaluate_hook is None
    for ns, key, original in registry._GENERATED:
        assert ns[key] is original
    et.unregister_callback()
    assert "aten::exp" in names(prof.events())
    assert [n["name"] for n in json.load(open(tmp_path / "t.json"))["nodes"]][1] == "aten::exp"


def test_execution_trace_observer_lifecycle(tmp_path, capsys, monkeypatch):
    def program(lib, tag):
        P = lib.profiler
        out = []
        x = lib.ones(2)
        et = P.ExecutionTraceObserver()
        et.start()
        out.append(et.is_running())                         # not registered: no-op
        gz = str(tmp_path / f"{tag}_a.json.gz")
        et.register_callback(gz)
        out.append((et.get_output_file_path() == gz,
                    et.output_file_path_observer.endswith(".json")))
        # the process has one trace: a second observer writes into the first one's
        other = str(tmp_path / f"{tag}_b.json")
        et2 = P.ExecutionTraceObserver().register_callback(other)
        out.append((et2.is_registered, os.path.exists(other)))
        et2.start()
        out.append((et.is_running(), et2.is_running()))
        x.exp()
        et.start()
        x.sin()
        et2.stop()
        x.cos()                                              # still recorded: et runs
        et.stop()
        et2.unregister_callback()
        out.append(et.is_registered)
        et.unregister_callback()
        import gzip
        out.append([n["name"] for n in json.load(gzip.open(gz))["nodes"]])
        out.append(os.path.exists(et.output_file_path_observer))
        # resources next to the trace
        r = str(tmp_path / f"{tag}_r.json")
        et4 = P.ExecutionTraceObserver().register_callback(r)
        out.append(et4.get_resources_dir())
        et4.set_extra_resource_collection(True)
        out.append((et4.get_resources_dir() == str(tmp_path / f"{tag}_r_resources"),
                    os.path.isdir(tmp_path / f"{tag}_r_resources"),
                    P.ExecutionTraceObserver.get_resources_dir_for_et_path(
                        str(tmp_path / "none.json"))))
        et4.cleanup()
        out.append(et4.is_registered)
        # from the environment
        monkeypatch.setenv("ENABLE_PYTORCH_EXECUTION_TRACE", "1")
        monkeypatch.setenv("ENABLE_PYTORCH_EXECUTION_TRACE_EXTRAS", "1")
        e = P.ExecutionTraceObserver.build_execution_trace_obs_from_env()
        out.append((type(e).__name__, e.is_registered,
                    e.get_output_file_path().endswith(".et.json"), e.extra_resources_collection))
        e.unregister_callback()
        monkeypatch.setenv("ENABLE_PYTORCH_EXECUTION_TRACE", "0")
        out.append(P.ExecutionTraceObserver.build_execution_trace_obs_from_env())
        # with the profiler: recorded while the profiler records, finished on exit
        p_path = str(tmp_path / f"{tag}_p.json")
        et5 = P.ExecutionTraceObserver().register_callback(p_path)
        with P.profile(schedule=P.schedule(wait=1, warmup=1, active=1),
                       execution_trace_observer=et5) as p:
            for _ in range(4):
                x.exp()
                p.step()
        out.append((et5.is_registered, et5.is_running()))
        nodes = json.load(open(p_path))["nodes"]
        by_id = {n["id"]: n["name"] for n in nodes}
        out.append([(n["name"], by_id[n["ctrl_deps"]]) for n in nodes])
        return out

    chainrule.profiler.profiler._WARNINGS_SHOWN.clear()    # both warn once per process
    torch.profiler.profiler._WARNINGS_SHOWN.clear()
    with pytest.warns(UserWarning, match="Profiler clears events"):
        ours = program(chainrule, "ours")
    printed = capsys.readouterr().out
    with pytest.warns(UserWarning, match="Profiler clears events"):
        theirs = program(torch, "theirs")
    assert ours == theirs
    assert printed == (f"Execution Trace: compressing "
                       f"{printed.split()[3]} to {tmp_path / 'ours_a.json.gz'}\n")
    # PyTorch refuses a file it cannot open (and then, unlike chainrule, records no trace
    # again in the process, so its side is not run here)
    bad = chainrule.profiler.ExecutionTraceObserver().register_callback(
        str(tmp_path / "missing" / "t.json"))
    assert not bad.is_registered
    bad.start()
    assert not bad.is_running()


def test_execution_trace_values():
    # values as PyTorch encodes IValues (checked against PyTorch's traces)
    from chainrule.profiler._execution_trace import _scalar
    T = chainrule
    assert _scalar(None) == ("None", '"<None>"')
    assert _scalar(True) == ("Bool", "true")
    assert _scalar(-3) == ("Int", "-3")
    assert _scalar(0.5) == ("Double", "0.500000")
    assert _scalar(float("-inf")) == ("Double", '"-inf"')
    assert _scalar(float("nan")) == ("Double", '"nan"')
    assert _scalar('a"b\n') == ("String", '"a\\"b\\n"')
    assert _scalar(T.float64) == ("Int", "7")
    assert _scalar(T.bool) == ("Int", "11")
    assert _scalar(T.bfloat16) == ("Int", "15")
    assert _scalar(T.channels_last) == ("Int", "2")
    assert _scalar(T.strided) == ("Int", "0")
    assert _scalar(T.device("cpu")) == ("Device", '"cpu"')


def test_record_scope_as_pytorch():
    ours, theirs = chainrule.profiler.RecordScope, torch.profiler.RecordScope
    assert [(k, int(v)) for k, v in ours.__members__.items()] == \
        [(k, int(v)) for k, v in theirs.__members__.items()]
    for name in ours.__members__:
        a, b = getattr(ours, name), getattr(theirs, name)
        assert (repr(a), str(a), hash(a), a.name, a.value, int(a), list(range(10))[a]) == \
            (repr(b), str(b), hash(b), b.name, b.value, int(b), list(range(10))[b])
        assert (a == int(a)) == (b == int(b)) is False
    assert ours(7) is ours.USER_SCOPE and theirs(7) == theirs.USER_SCOPE


def test_itt():
    ours, theirs = chainrule.profiler.itt, torch.profiler.itt
    assert ours.__all__ == theirs.__all__
    assert ours.is_available() is False          # chainrule has no ITT instrumentation
    for fname, args in (("range_push", ("a",)), ("range_push", (None,)), ("range_push", (b"a",)),
                        ("range_pop", ()), ("mark", ("m",)), ("mark", (None,))):
        assert getattr(ours, fname)(*args) is None
        assert getattr(theirs, fname)(*args) is None
    for fname in ("range_push", "mark"):
        for bad in (3, 1.5, ["a"]):
            with pytest.raises(TypeError) as e_ours:
                getattr(ours, fname)(bad)
            with pytest.raises(TypeError) as e_theirs:
                getattr(theirs, fname)(bad)
            assert str(e_ours.value) == str(e_theirs.value)
    for lib in (ours, theirs):
        assert (lib.range_push("r"), lib.range_pop(), lib.mark("m")) == (None, None, None)
        with pytest.raises(TypeError, match="takes 0 positional arguments"):
            lib.range_pop(1)
        with lib.range("step {} of {n}", 1, n=2):
            pass

        @lib.range("fn")
        def f(v):
            return v + 1
        assert f(1) == 2


def test_emit_itt_and_nvtx():
    T = chainrule
    for lib in (T, torch):
        e = lib.autograd.profiler.emit_itt(record_shapes=True)
        with e:
            assert lib.ones(1).add(1).tolist() == [2.0]
            with pytest.raises(RuntimeError, match="ITT annotation context manager is not "
                                                   "reentrant"):
                e.__enter__()
        with lib.autograd.profiler.emit_itt(enabled=False) as off:
            assert off is None
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            with lib.autograd.profiler.emit_nvtx():
                pass
        with lib.autograd.profiler.emit_nvtx(enabled=False) as off:
            assert off is None


@pytest.fixture
def fresh_step_trackers():
    saved = [(K, K._current_step, K._step_dict) for K in (
        chainrule.profiler.KinetoStepTracker, torch.profiler.KinetoStepTracker)]
    from collections import defaultdict
    for K, _, _ in saved:
        K._current_step, K._step_dict = 0, defaultdict(int)
    yield
    for K, step, d in saved:
        K._current_step, K._step_dict = step, d


def test_kineto_step_tracker(fresh_step_trackers):
    import warnings as w
    assert chainrule.profiler.KinetoStepTracker is \
        chainrule.autograd.profiler.KinetoStepTracker

    def program(K):
        out = [K.current_step()]
        K.init_step_count("a")
        out += [K.increment_step("a"), K.increment_step("b"), K.increment_step("a"),
                K.current_step(), K.erase_step_count("a"), K.erase_step_count("a"),
                dict(K._step_dict)]
        K._step_dict["c"] = K._current_step + 2
        with w.catch_warnings(record=True) as caught:
            w.simplefilter("always")
            out.append(K.increment_step("c"))
        out.append([str(c.message) for c in caught])
        K.init_step_count("d")
        out += [dict(K._step_dict), K.increment_step("d"), K.current_step()]
        return out

    assert program(chainrule.profiler.KinetoStepTracker) == \
        program(torch.profiler.KinetoStepTracker)


def test_profiler_counts_its_steps(fresh_step_trackers, monkeypatch):
    def program(lib):
        K = lib.profiler.KinetoStepTracker
        seen = []
        with lib.profiler.profile(schedule=lib.profiler.schedule(wait=0, warmup=1, active=1)) \
                as p:
            seen.append(dict(K._step_dict))
            monkeypatch.setenv("KINETO_USE_DAEMON", "1")
            p.step()
            p.step()
            monkeypatch.delenv("KINETO_USE_DAEMON")
            p.step()
            seen.append((dict(K._step_dict), K.current_step()))
        seen.append(dict(K._step_dict))
        # the optimizer hook the profiler registers under KINETO_USE_DAEMON
        h = lib.profiler.register_optimizer_step_post_hook(lib.profiler._optimizer_post_hook)
        q = lib.nn.Parameter(lib.ones(1))
        opt = lib.optim.SGD([q], lr=1.0)
        q.grad = lib.ones(1)
        opt.step()
        opt.step()
        h.remove()
        opt.step()
        seen.append((dict(K._step_dict), K.current_step()))
        return seen

    assert program(chainrule) == program(torch)


def test_optimizer_step_hooks():
    import copy

    def program(lib):
        O = importlib.import_module(lib.__name__ + ".optim.optimizer")
        p = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([p], lr=0.1)
        log = []
        hs = [O.register_optimizer_step_pre_hook(
                  lambda o, a, k: log.append(("global pre", type(o).__name__, a[1:],
                                              sorted(k)))),
              O.register_optimizer_step_post_hook(
                  lambda o, a, k: log.append(("global post", a[1:], sorted(k)))),
              opt.register_step_pre_hook(lambda o, a, k: log.append(("pre", a[1:], sorted(k)))),
              opt.register_step_post_hook(
                  lambda o, a, k: log.append(("post", a[1:], sorted(k), p.tolist())))]
        p.grad = lib.ones(2)
        opt.step()
        opt.step(closure=None)
        bad = opt.register_step_pre_hook(lambda o, a, k: 5)
        with pytest.raises(RuntimeError) as e:
            opt.step()
        log.append(str(e.value).split(">", 1)[1])
        bad.remove()
        swap = opt.register_step_pre_hook(lambda o, a, k: ((o,), {"closure": lambda: 3}))
        log.append(opt.step())
        for h in hs + [swap]:
            h.remove()
        opt.step()
        log.append((p.tolist(), opt.step.__name__, type(opt).step.hooked))
        # profile_hook_step wraps any step function the same way
        calls = []
        wrapped = lib.optim.Optimizer.profile_hook_step(
            lambda self, *a, **k: calls.append((a, k)) or "done")
        hook = opt.register_step_post_hook(lambda o, a, k: calls.append("post"))
        log.append((wrapped(opt, 1, x=2), calls))
        hook.remove()
        clone = copy.deepcopy(opt)
        log.append((dict(clone._optimizer_step_pre_hooks),
                    dict(clone._optimizer_step_post_hooks)))
        sched = lib.optim.lr_scheduler.StepLR(opt, 1, gamma=0.5)
        opt.step()
        sched.step()
        log.append(opt.param_groups[0]["lr"])
        with lib.profiler.profile() as prof:
            opt.zero_grad()
            opt.step()
        log.append([e.name for e in prof.events() if e.name.startswith("Optimizer.")])
        return log

    assert program(chainrule) == program(torch)


def test_trace_ids_metadata_and_toggling(tmp_path):
    def program(lib):
        P = lib.profiler
        p = P.profile(record_shapes=True, custom_trace_id_callback=lambda: "first")
        out = [p.get_trace_id()]
        p.preset_metadata_json("pre", "3")
        with p:
            out.append(p.get_trace_id())
            p.add_metadata("k", "v x")
            p.add_metadata_json("j", "[1, 2]")
            lib.ones(1).exp()
            p.toggle_collection_dynamic(False, [P.ProfilerActivity.CPU])
            lib.ones(1).sin()                       # not recorded
            p.toggle_collection_dynamic(True, [P.ProfilerActivity.CPU])
            lib.ones(1).cos()
        out.append([e.name for e in p.events() if e.name in ("aten::exp", "aten::sin",
                                                              "aten::cos")])
        path = tmp_path / f"{lib.__name__}.json"
        p.export_chrome_trace(str(path))
        trace = json.loads(path.read_text())
        out.append({k: v for k, v in trace.items()
                    if k not in ("traceEvents", "host_name", "baseTimeNanoseconds")})
        out.append(p.preset_metadata)
        with P.profile(schedule=P.schedule(wait=0, warmup=1, active=1), acc_events=True,
                       custom_trace_id_callback=lambda: "A") as q:
            ids = []
            for i in range(4):
                ids.append(q.get_trace_id())
                if i == 1:
                    q.set_custom_trace_id_callback(lambda: "B")
                q.step()
        out.append(ids)
        with lib.autograd.profiler.profile(custom_trace_id_callback=lambda: "L") as lp:
            out.append(lp.trace_id)
            lp.toggle_collection_dynamic(False, [P.ProfilerActivity.CPU])
            lib.ones(1).sin()
            lp.toggle_collection_dynamic(True, [P.ProfilerActivity.CPU])
            lib.ones(1).cos()
        out.append([e.name for e in lp.function_events if e.name in ("aten::sin", "aten::cos")])
        tid = lp.default_trace_id()
        out.append((len(tid), tid.upper() == tid, int(tid, 16) >= 0, lp.create_trace_id()))
        return out

    ours, theirs = program(chainrule), program(torch)
    assert ours[3].pop("traceName") == str(tmp_path / "chainrule.json")
    assert theirs[3].pop("traceName") == str(tmp_path / "torch.json")
    assert ours == theirs

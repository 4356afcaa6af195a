"""chainrule.profiler and chainrule.autograd.profiler: what is recorded (ops as aten::<op>,
backward nodes, record_function blocks, shapes, memory, stacks, schedules), that nothing is
recorded or paid when off, and that the reports are laid out exactly as PyTorch's for the
same events."""
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

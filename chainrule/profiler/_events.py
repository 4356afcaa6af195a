"""Profiler events and their reports (torch.autograd.profiler_util's FunctionEvent,
FunctionEventAvg, EventList), over the events chainrule's profiler records.

The text reports are PyTorch's byte for byte: the same columns, widths, units, truncation and
totals, including one quirk of PyTorch's table: with both a flops column and a source column,
the header puts "Source Location" before the flops column while each row puts the flops value
before the source."""
import enum
import itertools
import json
import math
from collections import defaultdict, namedtuple
from operator import attrgetter

__all__ = ["DeviceType", "EventList", "FunctionEvent", "FunctionEventAvg", "Interval",
           "Kernel", "MEMORY_EVENT_NAME", "OUT_OF_MEMORY_EVENT_NAME"]

MEMORY_EVENT_NAME = "[memory]"
OUT_OF_MEMORY_EVENT_NAME = "[OutOfMemory]"


class _Enum(enum.IntEnum):
    """An IntEnum printed as PyTorch's pybind11 enums are."""

    def __repr__(self):
        return f"<{type(self).__name__}.{self.name}: {self.value}>"

    def __str__(self):
        return f"{type(self).__name__}.{self.name}"


_DEVICE_NAMES = ("CPU CUDA MKLDNN OPENGL OPENCL IDEEP HIP FPGA MAIA XLA Vulkan Metal XPU MPS "
                 "Meta HPU VE Lazy IPU MTIA PrivateUse1")
DeviceType = _Enum("DeviceType", [(name, i) for i, name in enumerate(_DEVICE_NAMES.split())])
DeviceType.__module__ = "torch._C._autograd"


# ---- formatting ---------------------------------------------------------------------------

_TIME_UNITS = {"s": 1000000.0, "ms": 1000.0, "us": None}


def _format_time(time_us, unit=None):
    """A time in microseconds as text, in `unit` ("s", "ms", "us") or else the largest unit
    in which it is at least 1."""
    if unit is None:
        unit = "s" if time_us >= 1000000.0 else "ms" if time_us >= 1000.0 else "us"
    divisor = _TIME_UNITS[unit]
    return f"{time_us if divisor is None else time_us / divisor:.3f}{unit}"


def _format_time_share(time_us, total_time_us):
    if total_time_us == 0:
        if time_us != 0:
            raise AssertionError(f"Expected time_us == 0 but got {time_us}")
        return "NaN"
    return f"{time_us * 100.0 / total_time_us:.2f}%"


def _format_memory(nbytes):
    for unit, size in (("GB", 1024 ** 3), ("MB", 1024 ** 2), ("KB", 1024)):
        if abs(nbytes) >= size:
            return f"{nbytes * 1.0 / size:.2f} {unit}"
    return f"{nbytes} B"


def _device_attr(name):
    """The attribute behind a metric name: cuda/xpu/privateuse1 times are device times."""
    for device in ("cuda", "xpu", "privateuse1"):
        name = name.replace(device, "device")
    return name


def _time_text(attr):
    return property(lambda self: _format_time(getattr(self, attr)))


class FormattedTimesMixin:
    """The *_str properties of the times (subclasses define *_time_total and count)."""
    cpu_time_str = _time_text("cpu_time")
    device_time_str = _time_text("device_time")
    cpu_time_total_str = _time_text("cpu_time_total")
    device_time_total_str = _time_text("device_time_total")
    self_cpu_time_total_str = _time_text("self_cpu_time_total")
    self_device_time_total_str = _time_text("self_device_time_total")

    @property
    def cpu_time(self):
        """Mean CPU time per call."""
        return 1.0 * self.cpu_time_total / self.count if self.count else 0.0

    @property
    def device_time(self):
        """Mean device time per call."""
        return 1.0 * self.device_time_total / self.count if self.count else 0.0


class Interval:
    """A [start, end] time range in microseconds."""

    def __init__(self, start, end):
        self.start, self.end = start, end

    def elapsed_us(self):
        return self.end - self.start


Kernel = namedtuple("Kernel", ["name", "device", "duration"])


# ---- events -------------------------------------------------------------------------------

class FunctionEvent(FormattedTimesMixin):
    """One profiled call: an op, a backward node, or a record_function block, with its time
    range in microseconds since the profiler started."""

    def __init__(self, id, name, thread, start_us, end_us, overload_name=None, fwd_thread=None,
                 input_shapes=None, stack=None, scope=0, use_device=None, cpu_memory_usage=0,
                 device_memory_usage=0, is_async=False, is_remote=False, sequence_nr=-1,
                 node_id=-1, device_type=DeviceType.CPU, device_index=0,
                 device_resource_id=None, is_legacy=False, flops=None, trace_name=None,
                 concrete_inputs=None, kwinputs=None, is_user_annotation=False):
        self.id, self.node_id, self.name = id, node_id, name
        self.overload_name, self.trace_name = overload_name, trace_name
        self.time_range = Interval(start_us, end_us)
        self.thread, self.fwd_thread = thread, fwd_thread
        self.kernels = []
        self.count = 1
        self.cpu_children = []  # filled by EventList._build_tree
        self.cpu_parent = None
        self.input_shapes, self.concrete_inputs, self.kwinputs = (input_shapes,
                                                                  concrete_inputs, kwinputs)
        self.stack, self.scope, self.use_device = stack, scope, use_device
        self.cpu_memory_usage, self.device_memory_usage = cpu_memory_usage, device_memory_usage
        self.is_async, self.is_remote = is_async, is_remote
        self.sequence_nr = sequence_nr
        self.device_type, self.device_index = device_type, device_index
        self.device_resource_id = device_resource_id if device_resource_id is not None \
            else thread
        self.is_legacy, self.flops = is_legacy, flops
        self.is_user_annotation = is_user_annotation
        # set when a table is built
        self.self_cpu_percent = self.total_cpu_percent = self.total_device_percent = -1

    def append_kernel(self, name, device, duration):
        self.kernels.append(Kernel(name, device, duration))

    def append_cpu_child(self, child):
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent):
        self.cpu_parent = parent

    @property
    def self_cpu_memory_usage(self):
        """Memory allocated by this event, its children's excluded."""
        if self.is_async:
            return 0
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def self_device_memory_usage(self):
        return 0

    @property
    def cpu_time_total(self):
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        """Time in this event, its children's excluded."""
        if self.is_async:
            return 0
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def device_time_total(self):
        return 0

    @property
    def self_device_time_total(self):
        return 0

    @property
    def key(self):
        return self.name

    def __repr__(self):
        dev = self.use_device
        children = [child.id for child in self.cpu_children]
        return (f"<FunctionEvent id={self.id} name={self.name} "
                f"overload_name={self.overload_name} device_type={self.device_type} "
                f"node_id={self.node_id} cpu_time={self.cpu_time_str} "
                f"start_us={self.time_range.start} end_us={self.time_range.end} "
                f"cpu_children={children} {dev}_time={self.device_time_str} "
                f"name={self.name} thread={self.thread} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage} "
                f"{dev}_memory_usage={self.device_memory_usage} is_async={self.is_async} "
                f"is_remote={self.is_remote} seq_nr={self.sequence_nr} "
                f"is_legacy={self.is_legacy}>")


# what a FunctionEventAvg takes from the first event it adds, and what it sums
_FIRST_EVENT_FIELDS = ("key", "node_id", "is_async", "is_remote", "cpu_parent", "cpu_children",
                       "overload_name", "input_shapes", "stack", "scope", "device_type",
                       "is_legacy", "use_device", "is_user_annotation")
_SUMMED_FIELDS = ("cpu_time_total", "device_time_total", "self_cpu_time_total",
                  "self_device_time_total", "cpu_memory_usage", "device_memory_usage",
                  "self_cpu_memory_usage", "self_device_memory_usage", "count")


class FunctionEventAvg(FormattedTimesMixin):
    """Statistics of the events of one key (an op name), summed over its calls."""

    def __init__(self):
        self.key = None
        self.count = self.node_id = 0
        self.is_async = self.is_remote = False
        self.use_device = None
        for field in _SUMMED_FIELDS[:-1]:
            setattr(self, field, 0)
        self.input_shapes = self.overload_name = self.stack = self.scope = None
        self.cpu_children = self.cpu_parent = None
        self.device_type = DeviceType.CPU
        self.is_legacy = False
        self.flops = 0

    def add(self, other):
        """Accumulate event (or average) `other`, which must have this average's key."""
        if self.key is None:
            for field in _FIRST_EVENT_FIELDS:
                setattr(self, field, getattr(other, field))
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise AssertionError("Expected other to be a FunctionEvent or FunctionEventAvg")
        if other.key != self.key:
            raise AssertionError(f"Expected keys to match, but got {other.key} vs {self.key}")
        for field in _SUMMED_FIELDS:
            setattr(self, field, getattr(self, field) + getattr(other, field))
        if self.flops is None:
            self.flops = other.flops
        elif other.flops is not None:
            self.flops += other.flops
        return self

    def __iadd__(self, other):
        return self.add(other)

    def __repr__(self):
        dev = self.use_device or "cuda"
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str}  self_{dev}_time="
                f"{self.self_device_time_total_str} {dev}_time={self.device_time_str} "
                f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage} "
                f"{dev}_memory_usage={self.device_memory_usage}>")


def _backward_ancestor(evt):
    """The nearest enclosing event (evt itself included) run by a backward node, or None."""
    while evt is not None and evt.scope != 1:  # 1: RecordScope.BACKWARD_FUNCTION
        evt = evt.cpu_parent
    return evt


class EventList(list):
    """A list of profiling events with tables, averages and trace export."""

    def __init__(self, *args, use_device=None, profile_memory=False, with_flops=False,
                 **kwargs):
        super().__init__(*args, **kwargs)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._tree_built = False
        self._with_flops = with_flops

    def __str__(self):
        return self.table()

    def _build_tree(self):
        """Link each event to its enclosing one, fold an op into a same-named parent that
        has no other child, and give backward events their forward op's stack."""
        self._populate_cpu_children()
        self._remove_dup_nodes()
        self._set_backward_stacktraces()
        self._tree_built = True

    def _populate_cpu_children(self):
        """Make each event the child of the innermost event whose interval holds it (per
        thread and node)."""
        synchronous = sorted((evt for evt in self if not evt.is_async),
                             key=attrgetter("thread"))
        for _, group in itertools.groupby(synchronous, key=lambda e: (e.thread, e.node_id)):
            open_events = []  # the chain of events enclosing the current one
            for evt in sorted(group, key=lambda e: [e.time_range.start, -e.time_range.end]):
                while open_events:
                    outer = open_events[-1].time_range
                    if evt.time_range.start >= outer.end or evt.time_range.end > outer.end:
                        open_events.pop()  # evt is not inside it: look further out
                        continue
                    open_events[-1].append_cpu_child(evt)
                    evt.set_cpu_parent(open_events[-1])
                    break
                open_events.append(evt)

    def _remove_dup_nodes(self):
        """Drop an event whose parent has its name and no other child (the parent takes its
        children and kernels), until there is none."""
        while True:
            folded = set()
            for i, evt in enumerate(self):
                parent = evt.cpu_parent
                if parent is None or parent.name != evt.name or len(parent.cpu_children) != 1:
                    continue
                parent.cpu_children, parent.kernels = evt.cpu_children, evt.kernels
                for child in evt.cpu_children:
                    child.cpu_parent = parent
                folded.add(i)
            if not folded:
                return
            self[:] = [evt for i, evt in enumerate(self) if i not in folded]

    def _set_backward_stacktraces(self):
        """Events under a backward node get the stack of the forward op that recorded the
        node (matched by sequence number and thread)."""
        forward_stacks = {}
        for evt in self:
            if evt.stack is not None and _backward_ancestor(evt) is None:
                forward_stacks.setdefault((evt.sequence_nr, evt.thread), evt.stack)
        for evt in self:
            node = _backward_ancestor(evt)
            if node is not None:
                evt.stack = forward_stacks.get((node.sequence_nr, node.fwd_thread), [])

    @property
    def self_cpu_time_total(self):
        return sum(evt.self_cpu_time_total for evt in self)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None):
        """The events as PyTorch's summary table (sort_by: an attribute such as
        'cpu_time_total', 'self_cpu_time_total', 'cpu_memory_usage', 'count')."""
        return _build_table(self, sort_by=sort_by, row_limit=row_limit,
                            max_src_column_width=max_src_column_width,
                            max_name_column_width=max_name_column_width,
                            max_shapes_column_width=max_shapes_column_width, header=header,
                            profile_memory=self._profile_memory, with_flops=self._with_flops,
                            top_level_events_only=top_level_events_only, time_unit=time_unit)

    def export_chrome_trace(self, path):
        """Write the events in Chrome's trace format (open it at chrome://tracing)."""
        trace = [{"name": evt.trace_name, "ph": "X", "ts": evt.time_range.start,
                  "dur": evt.time_range.elapsed_us(), "tid": evt.thread,
                  "pid": "CPU functions", "args": {}}
                 for evt in self if evt.trace_name is not None]
        with open(path, "w") as f:
            json.dump(trace, f)

    def supported_export_stacks_metrics(self):
        return ["self_cpu_time_total", "self_cuda_time_total", "self_xpu_time_total",
                "self_privateuse1_time_total"]

    def export_stacks(self, path, metric):
        """Write each event's stack and metric in the collapsed-stacks (flame graph) format."""
        metrics = self.supported_export_stacks_metrics()
        if metric not in metrics:
            raise ValueError("metric should be one of: " + str(metrics))
        blank_out = str.maketrans(" ;\t\n", "____")  # characters the format reserves
        attr = _device_attr(metric)
        with open(path, "w") as f:
            for evt in self:
                if not evt.stack:
                    continue
                value = int(getattr(evt, attr))
                if value > 0:
                    frames = ";".join(frame.translate(blank_out) for frame in evt.stack[::-1])
                    f.write(f"{frames} {value}\n")

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """The events averaged per key (name; also input shapes / stack when asked)."""
        if not self._tree_built:
            raise AssertionError("Expected tree to be built before calling key_averages")
        groups = defaultdict(FunctionEventAvg)
        for evt in self:
            key = [str(evt.key), str(evt.node_id), str(evt.device_type), str(evt.is_legacy),
                   str(evt.is_user_annotation)]
            if group_by_overload_name:
                key.append(evt.overload_name)
            if group_by_input_shapes:
                key.append(str(evt.input_shapes))
            if group_by_stack_n > 0:
                key.extend(evt.stack[:group_by_stack_n])
            groups[tuple(key)].add(evt)
        averages = EventList(groups.values(), use_device=self._use_device,
                             profile_memory=self._profile_memory, with_flops=self._with_flops)
        for avg in averages:
            avg.stack = avg.stack[:group_by_stack_n]
            # what was not grouped by is not shown
            if not group_by_input_shapes:
                avg.input_shapes = ""
            if not group_by_overload_name:
                avg.overload_name = ""
        return averages

    def total_average(self):
        """All events summed into one FunctionEventAvg with key 'Total'."""
        total = FunctionEventAvg()
        for evt in self:
            total += evt
            total.key = None  # so that the next event's key is accepted
        total.key = "Total"
        return total


# ---- the summary table --------------------------------------------------------------------

_COLUMN_WIDTH = 12
_GAP = "  "
_FLOP_UNITS = ["FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"]


def _clip(text, limit):
    """text cut to limit - 3 characters plus "..." when it has limit - 3 or more."""
    if limit is not None and len(text) >= limit - 3:
        return text[:limit - 3] + "..."
    return text


def _clip_path(path, width):
    """The last `width` characters of path, their first three shown as "..."."""
    if len(path) <= width:
        return path
    path = path[len(path) - width:]
    return "..." + path[3:] if len(path) > 3 else path


def _widest(lengths, limit):
    width = max(lengths) + 4
    return width if limit is None else min(width, limit)


def _build_table(events, sort_by=None, header=None, row_limit=100, max_src_column_width=75,
                 max_name_column_width=55, max_shapes_column_width=80, with_flops=False,
                 profile_memory=False, top_level_events_only=False, time_unit=None):
    """PyTorch's summary table of events (FunctionEvent or FunctionEventAvg)."""
    if not events:
        return ""
    use_device = events[0].use_device
    with_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    with_overloads = any(e.overload_name is not None and len(e.overload_name) > 0
                         for e in events)
    if sort_by is not None:
        attr = _device_attr(sort_by)
        events = EventList(sorted(events, key=lambda e: getattr(e, attr), reverse=True),
                           use_device=use_device, profile_memory=profile_memory,
                           with_flops=with_flops)
    with_node_ids = any(evt.node_id != -1 for evt in events)
    stacks = [evt.stack for evt in events if evt.stack is not None and len(evt.stack) > 0]
    name_width = _widest([len(evt.key) for evt in events], max_name_column_width)
    shapes_width = _widest([len(str(evt.input_shapes)) for evt in events],
                           max_shapes_column_width)
    src_width = (_widest([max(len(frame) for frame in stack) for stack in stacks],
                         max_src_column_width) if stacks else None)

    # the columns, as (title, width, alignment)
    columns = [("Name", name_width, ">")]
    if with_overloads:
        columns.append(("Overload Name", name_width, ">"))
    titles = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if profile_memory:
        titles += ["CPU Mem", "Self CPU Mem"]
    titles.append("# of Calls")
    if with_node_ids:
        titles.append("Node ID")
    columns += [(title, _COLUMN_WIDTH, ">") for title in titles]
    if with_shapes:
        columns.append(("Input Shapes", shapes_width, ">"))
    if stacks:
        columns.append(("Source Location", src_width, "<"))
    if with_flops:
        counted = [evt.flops for evt in events if evt.flops > 0]
        if counted:
            # the unit that suits the smallest count
            level = max(0.0, min(math.log10(min(counted)) / 3, float(len(_FLOP_UNITS) - 1)))
            flops_scale = pow(10, math.floor(level) * -3.0)
            columns.append((f"Total {_FLOP_UNITS[int(level)]}", _COLUMN_WIDTH, ">"))
        else:
            with_flops = False
    specs = [f" {align}{width}" for _, width, align in columns]

    def row(cells):
        return "".join(format(cell, spec) + _GAP for cell, spec in zip(cells, specs))

    rule = "".join("-" * width + _GAP for _, width, _ in columns)
    full_width = sum(width + len(_GAP) for _, width, _ in columns) - len(_GAP)
    lines = []
    if header is not None:
        lines += ["=" * full_width, header]
    if top_level_events_only:
        lines += ["=" * full_width, "This report only display top-level ops statistics"]
    lines += [rule, row([title for title, _, _ in columns]), rule]

    def time_cell(time_us, default):
        return _format_time(time_us, time_unit) if time_unit in ("s", "ms", "us") else default

    self_cpu_sum = sum(evt.self_cpu_time_total for evt in events)
    shown = 0
    for evt in events:
        if shown == row_limit:
            break
        if top_level_events_only and evt.cpu_parent is not None:
            continue
        shown += 1
        evt.self_cpu_percent = _format_time_share(evt.self_cpu_time_total, self_cpu_sum)
        evt.total_cpu_percent = (0 if evt.is_async else
                                 _format_time_share(evt.cpu_time_total, self_cpu_sum))
        cells = [_clip(evt.key, max_name_column_width)]
        if with_overloads:
            cells.append(_clip(evt.overload_name, max_name_column_width))
        cells += [evt.self_cpu_percent,
                  time_cell(evt.self_cpu_time_total, evt.self_cpu_time_total_str),
                  evt.total_cpu_percent,
                  time_cell(evt.cpu_time_total, evt.cpu_time_total_str),
                  time_cell(evt.cpu_time, evt.cpu_time_str)]
        if profile_memory:
            cells += [_format_memory(evt.cpu_memory_usage),
                      _format_memory(evt.self_cpu_memory_usage)]
        cells.append(evt.count)
        if with_node_ids:
            cells.append(evt.node_id)
        if with_shapes:
            cells.append(str(evt.input_shapes)[:shapes_width])
        if with_flops:  # before the source cell (PyTorch's order; see the module docstring)
            cells.append("--" if evt.flops <= 0 else f"{evt.flops * flops_scale:8.3f}")
        if stacks:
            cells.append(_clip_path(evt.stack[0], src_width) if len(evt.stack) > 0 else "")
        lines.append(row(cells))
        if stacks:
            # the rest of the stack, one frame a line in the last column, then a blank line
            blanks = [""] * (len(columns) - 1)
            lines += [row(blanks + [_clip_path(frame, src_width)]) for frame in evt.stack[1:]]
            lines.append(row(blanks + [""]))
    lines.append(rule)
    lines.append("Self CPU time total: " + time_cell(self_cpu_sum, _format_time(self_cpu_sum)))
    return "".join(line + "\n" for line in lines)

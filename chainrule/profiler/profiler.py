"""torch.profiler.profile: a context manager that records chainrule's ops and backward nodes
(see _collector.py), with PyTorch's schedule / step() / on_trace_ready cycle and reports;
ExecutionTraceObserver, which writes PyTorch's JSON execution trace (_execution_trace.py)."""
import enum
import gzip
import json
import os
import socket
import tempfile
import time
import warnings
from functools import partial

from . import _execution_trace
from ._collector import Collector, record_function

__all__ = ["ProfilerAction", "ProfilerActivity", "profile", "schedule", "supported_activities",
           "tensorboard_trace_handler", "kineto_available", "is_fbcode", "RecordScope",
           "ExecutionTraceObserver"]

PROFILER_STEP_NAME = "ProfilerStep"


class _Enum(enum.IntEnum):
    def __repr__(self):
        return f"<{type(self).__name__}.{self.name}: {self.value}>"

    def __str__(self):
        return f"{type(self).__name__}.{self.name}"


ProfilerActivity = _Enum("ProfilerActivity", [("CPU", 0), ("XPU", 1), ("MTIA", 4), ("CUDA", 2),
                                              ("HPU", 3), ("PrivateUse1", 5)])
ProfilerActivity.__module__ = "torch._C._profiler"


class RecordScope(enum.Enum):
    """What kind of code a recorded event comes from (the `scope` of trace nodes). Like
    PyTorch's pybind11 enum it converts to int and hashes as its value, but compares only
    with its own members."""
    FUNCTION = 0
    BACKWARD_FUNCTION = 1
    TORCHSCRIPT_FUNCTION = 2
    KERNEL_FUNCTION_DTYPE = 3
    CUSTOM_CLASS = 4
    BUILD_FEATURE = 5
    LITE_INTERPRETER = 6
    USER_SCOPE = 7
    STATIC_RUNTIME_OP = 8
    STATIC_RUNTIME_MODEL = 9

    def __int__(self):
        return self.value

    __index__ = __int__

    def __hash__(self):
        return self.value


RecordScope.__module__ = "torch._C._profiler"


class ProfilerAction(enum.Enum):
    """What the profiler does at a step of its schedule."""
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


_WARNINGS_SHOWN = set()


def _warn_once(msg):
    if msg not in _WARNINGS_SHOWN:
        _WARNINGS_SHOWN.add(msg)
        warnings.warn(msg, stacklevel=2)


def supported_activities():
    """The activities this build can record: the CPU's."""
    return {ProfilerActivity.CPU}


def is_fbcode():
    return False


def kineto_available():
    """Whether PyTorch's Kineto tracer is there: chainrule records with its own."""
    return False


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """The action at each step: skip `skip_first` steps, then cycles of `wait` idle, `warmup`
    and `active` recorded steps (`repeat` times; 0: forever)."""
    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return (ProfilerAction.RECORD if mod_step < num_steps - 1
                else ProfilerAction.RECORD_AND_SAVE)

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} "
            f"(need >= 0), active={active} (need > 0), repeat={repeat} (need >= 0), "
            f"skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results",
                      stacklevel=2)
    return schedule_fn


def _default_schedule_fn(_):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False,
                              use_python_export=False):
    """An on_trace_ready handler writing each trace to `dir_name` as
    '<worker>.<time>.pt.trace.json' (gzipped with use_gzip), as TensorBoard reads them."""
    def handler_fn(prof):
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker_name}.{time.time_ns()}.pt.trace.json"
        if use_gzip:
            file_name = file_name + ".gz"
        prof.export_chrome_trace(os.path.join(dir_name, file_name))
    return handler_fn


class profile:
    """Profile the ops (`aten::...`), backward nodes and record_function blocks run inside.

    Times are wall-clock (perf_counter_ns) around chainrule's NumPy kernels; record_shapes
    adds input shapes, profile_memory the bytes each op's outputs allocate, with_stack the
    Python stack of each call, with_flops PyTorch's flop counts for matrix products and
    elementwise add/mul. Only CPU activity exists."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False, with_flops=False,
                 with_modules=False, experimental_config=None, execution_trace_observer=None,
                 acc_events=False, use_cuda=None, custom_trace_id_callback=None,
                 post_processing_timeout_s=None):
        if activities is not None:
            activities_set = set()
            for item in activities:
                if isinstance(item, ProfilerActivity):
                    activities_set.add(item)
                elif isinstance(item, dict):
                    activities_set.update(item.keys())
        else:
            activities_set = supported_activities()
        if use_cuda is not None:
            warnings.warn("`use_cuda` is deprecated, use `activities` argument instead",
                          FutureWarning, stacklevel=2)
            if use_cuda:
                activities_set.add(ProfilerActivity.CUDA)
            else:
                activities_set.discard(ProfilerActivity.CUDA)
        if len(activities_set) == 0:
            raise AssertionError("No valid profiler activities found")
        self.activities = activities_set
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.acc_events = acc_events
        self.execution_trace_observer = (
            execution_trace_observer or ExecutionTraceObserver.build_execution_trace_obs_from_env())
        self.custom_trace_id_callback = custom_trace_id_callback
        self.preset_metadata = {}
        self._trace_metadata = {}
        self._trace_id = None
        self.profiler = None
        self.record_steps = schedule is not None
        self.schedule = schedule if schedule is not None else _default_schedule_fn
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.step_rec_fn = None
        self.current_action = self.schedule(self.step_num)
        self._prev_schedule_action = self.current_action
        A = ProfilerAction
        self.action_map = {
            (A.NONE, A.NONE): [],
            (A.NONE, A.WARMUP): [self.prepare_trace],
            (A.NONE, A.RECORD): [self.prepare_trace, self.start_trace],
            (A.NONE, A.RECORD_AND_SAVE): [self.prepare_trace, self.start_trace],
            (A.WARMUP, A.NONE): [partial(warnings.warn, "Incorrect schedule: WARMUP followed "
                                                        "by NONE"),
                                 self.start_trace, self.stop_trace],
            (A.WARMUP, A.WARMUP): [],
            (A.WARMUP, A.RECORD): [self.start_trace],
            (A.WARMUP, A.RECORD_AND_SAVE): [self.start_trace],
            (A.RECORD, A.NONE): [partial(warnings.warn, "Incorrect schedule: RECORD followed "
                                                        "by NONE"), self.stop_trace],
            (A.RECORD, A.WARMUP): [partial(warnings.warn, "Incorrect schedule: RECORD followed "
                                                          "by WARMUP"), self.stop_trace],
            (A.RECORD, A.RECORD): [],
            (A.RECORD, A.RECORD_AND_SAVE): [],
            (A.RECORD_AND_SAVE, A.NONE): [self.stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, A.WARMUP): [self.stop_trace, self._trace_ready,
                                            self.prepare_trace],
            (A.RECORD_AND_SAVE, A.RECORD): [self.stop_trace, self._trace_ready,
                                            self.prepare_trace, self.start_trace],
            (A.RECORD_AND_SAVE, A.RECORD_AND_SAVE): [self.stop_trace, self._trace_ready,
                                                     self.prepare_trace, self.start_trace],
            (A.WARMUP, None): [self.start_trace, self.stop_trace],
            (A.RECORD, None): [self.stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, None): [self.stop_trace, self._trace_ready],
        }
        _step_tracker().init_step_count(PROFILER_STEP_NAME)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()
        _step_tracker().erase_step_count(PROFILER_STEP_NAME)
        if self.execution_trace_observer:
            self.execution_trace_observer.cleanup()

    def start(self):
        self._transit_action(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def stop(self):
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit_action(self.current_action, None)
        self.current_action = self._prev_schedule_action

    def step(self):
        """Mark the start of the next step (advances the schedule)."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        prev_action = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._prev_schedule_action = self.current_action
        self._transit_action(prev_action, self.current_action)
        if os.environ.get("KINETO_USE_DAEMON", ""):
            _step_tracker().increment_step(PROFILER_STEP_NAME)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def _transit_action(self, prev_action, current_action):
        for action in self.action_map.get((prev_action, current_action), []):
            action()

    def _trace_ready(self):
        if self.on_trace_ready:
            self.on_trace_ready(self)

    # ---- recording -------------------------------------------------------------------------

    def prepare_trace(self):
        if self.profiler is None:
            self.profiler = Collector(self.record_shapes, self.profile_memory, self.with_stack,
                                      self.with_flops)
        elif not self.acc_events:
            _warn_once("Warning: Profiler clears events at the end of each cycle. Only events "
                       "from the current cycle will be reported. To keep events across cycles, "
                       "set acc_events=True.")
            self.profiler.clear()
        if self.profiler.t0 is None or not self.acc_events:
            # PyTorch makes a new recorder here, taking the trace id callback of the moment
            self._trace_id_callback = self.custom_trace_id_callback
        self._events = None
        self._trace_id = _new_trace_id(self._trace_id_callback)

    def start_trace(self):
        if self.execution_trace_observer:
            self.execution_trace_observer.start()
        self.profiler.enable()
        for option in ("profile_memory", "with_stack", "record_shapes", "with_modules",
                       "with_flops"):
            if getattr(self, option):
                self.add_metadata_json(option, "1")
        for key, value in self.preset_metadata.items():
            self.add_metadata_json(key, value)

    def stop_trace(self):
        if self.execution_trace_observer:
            self.execution_trace_observer.stop()
        self.profiler.disable()
        self._events = None

    # ---- results ---------------------------------------------------------------------------

    def events(self):
        """The recorded events (an EventList)."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before getting events")
        if getattr(self, "_events", None) is None:
            self._events = self.profiler.events()
        return self._events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """Events averaged per op name (and per input shapes / stack when asked)."""
        return self.events().key_averages(group_by_input_shape, group_by_stack_n,
                                          group_by_overload_name)

    def export_chrome_trace(self, path, use_python_export=False):
        """Write the trace in Chrome's trace-event format (gzipped when path ends in .gz),
        with the trace id and the metadata added (add_metadata, add_metadata_json)."""
        trace = {"schemaVersion": 1, "deviceProperties": [], "trace_id": self._trace_id}
        for key, value in self._trace_metadata.items():
            try:
                trace[key] = json.loads(value)
            except ValueError:
                trace[key] = value
        trace["displayTimeUnit"] = "ms"
        trace["traceEvents"] = [
            {"ph": "X", "cat": "user_annotation" if e.is_user_annotation else "cpu_op",
             "name": e.name, "pid": os.getpid(), "tid": e.thread, "ts": e.time_range.start,
             "dur": e.time_range.elapsed_us(),
             "args": {"Input Dims": e.input_shapes} if e.input_shapes else {}}
            for e in self.events()]
        trace["traceName"] = path
        data = json.dumps(trace).encode()
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "wb") as f:
            f.write(data)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Write stacks and metric (recorded with with_stack=True) for flame graphs."""
        return self.events().export_stacks(path, metric)

    def add_metadata(self, key, value):
        """Keep a string metadata value (as JSON) for the trace."""
        self._trace_metadata[key] = '"' + value.replace('"', '\\"') + '"'

    def add_metadata_json(self, key, value):
        """Keep a metadata value given as JSON text for the trace."""
        self._trace_metadata[key] = value

    def preset_metadata_json(self, key, value):
        """Keep a metadata value (JSON text) given before the profiler starts."""
        self.preset_metadata[key] = value

    def set_custom_trace_id_callback(self, callback):
        """Set the function making the trace id of each following cycle."""
        self.custom_trace_id_callback = callback

    def get_trace_id(self):
        """The id of the current cycle's trace (None before the first)."""
        if self.profiler is None:
            return None
        return self._trace_id

    def toggle_collection_dynamic(self, enable, activities):
        """Stop (enable=False) or resume recording CPU activity while profiling."""
        if self.profiler is None:
            return
        self.profiler.toggle(enable, activities)


def _new_trace_id(callback):
    """A trace id: the callback's, else a random UUID as 32 uppercase hex digits."""
    import uuid
    return callback() if callback else f"{uuid.uuid4().int:032X}"


def _step_tracker():
    from ..autograd.profiler import KinetoStepTracker
    return KinetoStepTracker


class ExecutionTraceObserver:
    """Writes PyTorch's JSON execution trace (schema 1.1.1-chakra.0.0.4) of every op, backward
    node and record_function block run between start() and stop(), to the file given to
    register_callback() (gzipped at the end when it ends in .gz). A process has one trace:
    registering a second observer while one is registered keeps the first one's file.
    Node by node, see chainrule/profiler/_execution_trace.py; chainrule writes no operator
    schemas and collects no generated kernels (it has none)."""

    def __init__(self):
        self._registered = False
        self._execution_trace_running = False
        self.extra_resources_collection = False
        self.resources_dir = ""
        self.output_file_path = ""
        self.output_file_path_observer = ""

    def __del__(self):
        self.unregister_callback()

    @staticmethod
    def build_execution_trace_obs_from_env():
        """An observer writing to a new temporary '.et.json' file when the environment sets
        ENABLE_PYTORCH_EXECUTION_TRACE=1 (extra resources with
        ENABLE_PYTORCH_EXECUTION_TRACE_EXTRAS=1), else None."""
        if os.environ.get("ENABLE_PYTORCH_EXECUTION_TRACE", "0") == "1":
            try:
                with tempfile.NamedTemporaryFile("w+t", suffix=".et.json", delete=False) as fp:
                    filename = fp.name
            except Exception as e:
                warnings.warn("Execution trace will not be recorded. Exception on creating "
                              f"default temporary file: {e}", stacklevel=2)
                return None
            et = ExecutionTraceObserver()
            et.register_callback(filename)
            et.set_extra_resource_collection(
                os.environ.get("ENABLE_PYTORCH_EXECUTION_TRACE_EXTRAS", "0") == "1")
            return et
        return None

    def set_extra_resource_collection(self, val):
        """Also collect the resources a replay needs, in a '<trace>_resources' directory."""
        self.extra_resources_collection = val
        if self.extra_resources_collection:
            self.get_resources_dir(can_create=True)

    def register_callback(self, output_file_path):
        """Start the trace file (recording waits for start()); returns self."""
        if not self._registered:
            self.output_file_path = output_file_path
            if output_file_path.endswith(".gz"):
                with tempfile.NamedTemporaryFile("w+b", suffix=".json", delete=False) as fp:
                    output_file_path = fp.name
            self.output_file_path_observer = output_file_path
            self._registered = _execution_trace.add_observer(output_file_path)
        return self

    def get_resources_dir(self, can_create=False):
        """The resources directory next to the trace (created when can_create), or None
        without extra resource collection or when it does not exist."""
        if not self.extra_resources_collection:
            return None
        if self.resources_dir:
            return self.resources_dir
        generated_path = ExecutionTraceObserver.get_resources_dir_for_et_path(
            self.output_file_path, create_dir=can_create)
        if not generated_path:
            return None
        self.resources_dir = generated_path
        return self.resources_dir

    @staticmethod
    def get_resources_dir_for_et_path(trace_path, create_dir=False):
        """'<dir>/<trace name without extension>_resources' if it exists (or was created),
        else None."""
        work_dir, file_name = os.path.split(trace_path)
        resource_dir = os.path.join(work_dir, os.path.splitext(file_name)[0] + "_resources")
        if not os.path.exists(resource_dir):
            if create_dir:
                try:
                    os.mkdir(resource_dir)
                except Exception:
                    warnings.warn(f"Execution trace exception when creating {resource_dir}",
                                  stacklevel=2)
                    return None
            else:
                return None
        return resource_dir

    def unregister_callback(self):
        """Stop recording and finish the trace file (compressing it for a .gz path)."""
        if self._registered:
            self.stop()
            _execution_trace.remove_observer()
            if self.output_file_path.endswith("gz"):
                print(f"Execution Trace: compressing {self.output_file_path_observer} to "
                      f"{self.output_file_path}")
                with open(self.output_file_path_observer, "rb") as fin:
                    with gzip.open(self.output_file_path, "wb") as fout:
                        fout.writelines(fin)
                os.remove(self.output_file_path_observer)
            self._registered = False

    @property
    def is_registered(self):
        """Whether the observer is registered."""
        return self._registered

    def is_running(self):
        """Whether the observer is recording."""
        return self._execution_trace_running

    def start(self):
        """Start recording (a registered observer only)."""
        if self._registered and not self._execution_trace_running:
            _execution_trace.enable_observer()
            self._execution_trace_running = True

    def stop(self):
        """Stop recording."""
        if self._execution_trace_running:
            _execution_trace.disable_observer()
            self._execution_trace_running = False

    def cleanup(self):
        """Finish the trace file (unregister_callback)."""
        self.unregister_callback()

    def get_output_file_path(self):
        """The trace file's path, or None before register_callback."""
        return self.output_file_path if self.output_file_path else None

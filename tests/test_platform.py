"""The platform surface of a CPU-only build: torch.device, the accelerator namespaces
(cuda, mps, xpu, mtia, accelerator, cpu), torch.backends, torch.amp / autocast,
torch.compile / torch.compiler, torch.version and the torch-level settings and queries.
Every call runs on both libraries; results, exception classes and messages, and warnings
must agree with PyTorch 2.13's CPU build."""
import copy
import pickle
import warnings

import numpy as np
import pytest
import torch

import chainrule
from helpers import compare, same, same_error, warnings_of


def resolve(lib, path):
    obj = lib
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def outcome(fn):
    """('ok', result, warnings) or ('error', class name, message, warnings)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn()
        except Exception as e:      # noqa: BLE001  (compared below)
            out = ("error", type(e).__name__, str(e))
        else:
            out = ("ok", result)
    return out, [(w.category.__name__, str(w.message).split(" (Triggered internally at ")[0])
                 for w in caught]


def same_outcome(prog, values=True):
    """`prog(T)` returns equal values (when `values`) or raises the same exception class
    and message on both libraries, with the same warnings."""
    ours, our_warnings = outcome(lambda: prog(chainrule))
    theirs, their_warnings = outcome(lambda: prog(torch))
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] == "error":
        assert ours[1:] == theirs[1:]
    elif values:
        compare(ours[1], theirs[1])
    assert our_warnings == their_warnings
    return ours, theirs


# ---- torch.device -------------------------------------------------------------------------

DEVICE_ARGS = [
    ("cuda",), ("cuda:0",), ("cuda", 1), ("cpu",), ("cpu:0",), ("cpu", 0), ("mps",), ("meta",),
    ("xla",), ("foo",), ("cuda:-1",), ("cuda:x",), ("cuda", -1), ("cuda:1:2",), (0,), (1,),
    (-1,), ("",), (" cuda",), ("CUDA",), ("cuda:01",), ("cuda:+1",), (None,), (1.5,),
    ("cuda", "1"), ("cuda:0", 1), ("cuda:0", None), ("cuda", None), ("privateuseone",), ("hpu",),
    ("xpu",), ("mtia",), ("ipu",), ("lazy",), ("vulkan",), ("ve",), ("fpga",), ("maia",),
    ("hip",), ("msnpu",), ("opengl",), ("opencl",), ("ideep",), ("xla:0",), ("cuda:1 ",),
    ("cuda1",), ("cu_da",), ("cu-da",), ("1cuda",), ("Cuda",), ("cuda: 1",), ("é",), ("_",),
    ("cuda::1",), (":",), ("cuda", 200), ("cuda:200",), ("cuda", 2 ** 63), (2 ** 40,),
    ("cuda:2147483647",), ("cuda:2147483648",), ("cuda:128",), ("cpu:00",), ("cpu:0x1",),
    (b"cuda",), ("cuda", True), ("cuda", np.int64(1)), ("cuda", 0, 1), ("cpu:",), (":0",), (),
]
DEVICE_KWARGS = [dict(type="cuda"), dict(type="cuda", index=None), dict(type="cuda:1"),
                 dict(device="cuda:1"), dict(type="cuda", index=1.0), dict(type="cuda", index=-1),
                 dict(type="cuda:0", index=-1), dict(foo=1)]


@pytest.mark.parametrize("args", DEVICE_ARGS, ids=repr)
def test_device_construction(args):
    same_outcome(lambda T: repr(T.device(*args)))


@pytest.mark.parametrize("kwargs", DEVICE_KWARGS, ids=repr)
def test_device_construction_keywords(kwargs):
    same_outcome(lambda T: repr(T.device(**kwargs)))


def test_device_attributes():
    def prog(T):
        d = T.device("cuda:1")
        e = T.device("cuda", 1)
        return [d.type, d.index, str(d), repr(d), d == e, hash(d) == hash(e), d == "cuda:1",
                T.device("cpu") == "cpu", T.device("cuda") == T.device("cuda:0"),
                T.device("cpu") != T.device("cpu"), T.device("cpu").index,
                T.device(d) is d, T.device(d) == d, {T.device("cpu"): 1}[T.device("cpu")],
                type(d).__name__, type(d).__module__, repr(pickle.loads(pickle.dumps(d))),
                repr(copy.deepcopy(d))]
    same(prog)
    same_error(lambda T: setattr(T.device("cuda"), "type", "cpu"))
    same_error(lambda T: setattr(T.device("cuda"), "index", 1))
    same_error(lambda T: T.device("cpu") < T.device("cpu"))


def test_default_device():
    def prog(T):
        out = [repr(T.get_default_device())]
        T.set_default_device("cpu")
        out.append(repr(T.get_default_device()))
        out.append(T.zeros(2).tolist())
        T.set_default_device(None)
        with T.device("cpu"):
            out.append(T.ones(1).tolist())
        out.append(repr(T.get_default_device()))
        return out
    same(prog)
    for make in (lambda T: T.zeros(1), lambda T: T.tensor([1.]), lambda T: T.arange(3),
                 lambda T: T.get_default_device(), lambda T: T.randn(2)):
        def inside(T, make=make):
            T.set_default_device("cuda")
            try:
                return make(T)
            finally:
                T.set_default_device(None)
        same_error(inside)

        def in_context(T, make=make):
            with T.device("cuda"):
                return make(T)
        same_error(in_context)
    # *_like, new_* and from_numpy are not affected by the default device
    def unaffected(T):
        T.set_default_device("cuda")
        try:
            x = T.from_numpy(np.ones(2))
            return [T.zeros_like(x), x.new_zeros(2), repr(x.device)]
        finally:
            T.set_default_device(None)
    same(unaffected)
    same_error(lambda T: T.device("cpu").__exit__(None, None, None))


FACTORIES = {
    "zeros": lambda T, d: T.zeros(2, device=d),
    "ones": lambda T, d: T.ones(2, device=d),
    "empty": lambda T, d: T.empty(2, device=d).shape,
    "full": lambda T, d: T.full((2,), 1.5, device=d),
    "tensor": lambda T, d: T.tensor([1.0], device=d),
    "as_tensor": lambda T, d: T.as_tensor([1.0], device=d),
    "arange": lambda T, d: T.arange(3, device=d),
    "linspace": lambda T, d: T.linspace(0, 1, 3, device=d),
    "eye": lambda T, d: T.eye(2, device=d),
    "rand": lambda T, d: T.rand(2, device=d).shape,
    "randn": lambda T, d: T.randn(2, device=d).shape,
    "randint": lambda T, d: T.randint(3, (2,), device=d).shape,
    "randperm": lambda T, d: T.randperm(3, device=d).shape,
    "scalar_tensor": lambda T, d: T.scalar_tensor(1.0, device=d),
    "zeros_like": lambda T, d: T.zeros_like(T.ones(2), device=d),
    "ones_like": lambda T, d: T.ones_like(T.ones(2), device=d),
    "full_like": lambda T, d: T.full_like(T.ones(2), 2.0, device=d),
    "rand_like": lambda T, d: T.rand_like(T.ones(2), device=d).shape,
    "new_zeros": lambda T, d: T.ones(2).new_zeros(2, device=d),
    "new_tensor": lambda T, d: T.ones(2).new_tensor([1.0], device=d),
    "to": lambda T, d: T.ones(2).to(d),
    "to_kw": lambda T, d: T.ones(2).to(device=d),
    "to_dtype": lambda T, d: T.ones(2).to(d, T.float64),
    "Tensor": lambda T, d: T.Tensor(2, device=d).shape,
    "module_to": lambda T, d: T.nn.Linear(2, 2).to(d).weight.shape,
}
USE_DEVICES = ["cpu", "cpu:1", "cuda", "cuda:1", "mps", "xla", "ipu", "lazy", "vulkan", "hip",
               "maia", "xpu", "mtia", "hpu", "privateuseone", "opengl", "ideep", 0, 1, "foo"]


@pytest.mark.parametrize("device", USE_DEVICES, ids=str)
@pytest.mark.parametrize("factory", sorted(FACTORIES))
def test_factories_on_devices(factory, device):
    make = FACTORIES[factory]
    same_outcome(lambda T: make(T, device))
    if isinstance(device, str) and device.isalpha():
        same_outcome(lambda T: make(T, T.device(device)))


def test_to_cpu_and_copies():
    def prog(T):
        x = T.ones(2, requires_grad=True)
        y = T.ones(2)
        return [x.to("cpu") is x, x.to(device="cpu") is x, x.to(T.device("cpu")) is x,
                x.to("cpu:0") is x, x.to("cpu:0").grad_fn, x.to("cpu", copy=True) is x,
                x.cpu() is x, y.cpu(memory_format=T.contiguous_format) is y]
    same(prog)
    same(lambda T: T.nn.Linear(2, 2).cpu().weight.shape)
    same(lambda T: (lambda m: m.to("cpu") is m)(T.nn.Linear(2, 2)))
    same_error(lambda T: T.ones(2).cpu(foo=1))
    same_error(lambda T: T.ones(2).cpu(memory_format=1))
    same_error(lambda T: T.ones(2, 3).cpu(memory_format=T.channels_last))


@pytest.mark.parametrize("method", ["cuda", "xpu", "mtia", "ipu"])
def test_tensor_to_accelerator(method):
    for args in [(), ("cpu",), (1.5,), ("cuda",), ("xpu:1",), ("mps",), (None,), (1,),
                 ("mtia",), ("ipu",)]:
        same_error(lambda T: getattr(T.ones(2), method)(*args))
    same_error(lambda T: getattr(T.ones(2), method)(device=None, non_blocking=True,
                                                     memory_format=T.channels_last))
    same_error(lambda T: getattr(T.ones(2), method)(foo=1))
    same_error(lambda T: getattr(T.nn.Linear(2, 2), method)())


def test_module_cuda_without_parameters():
    same(lambda T: type(T.nn.ReLU().cuda()).__name__)
    same_error(lambda T: T.nn.Linear(2, 2).cuda(1))


def test_pin_memory():
    for prog in (lambda T: T.empty(2, pin_memory=True), lambda T: T.tensor([1.], pin_memory=True),
                 lambda T: T.ones(2).pin_memory(), lambda T: T.ones(2).new_zeros(2, pin_memory=True),
                 lambda T: T.randn(2, pin_memory=True)):
        same_error(prog)
    same(lambda T: [T.ones(2).is_pinned(), T.ones(2).is_pinned("cuda")])


# ---- accelerator namespaces ------------------------------------------------------------------

CUDA_CALLS = [
    ("is_available", ()), ("is_initialized", ()), ("device_count", ()), ("init", ()),
    ("current_device", ()), ("get_device_capability", ()), ("get_device_capability", (0,)),
    ("get_device_name", ()), ("get_device_name", (0,)), ("get_device_properties", (0,)),
    ("get_arch_list", ()), ("get_gencode_flags", ()), ("is_bf16_supported", ()),
    ("is_bf16_supported", (False,)), ("is_tf32_supported", ()), ("can_device_access_peer", (0, 1)),
    ("set_device", (0,)), ("set_device", (-1,)), ("set_device", ("cpu",)),
    ("set_device", ("cuda:1",)), ("set_device", (None,)), ("synchronize", ()),
    ("synchronize", ("cpu",)), ("ipc_collect", ()), ("cudart", ()), ("current_blas_handle", ()),
    ("current_solver_handle", ()), ("get_sync_debug_mode", ()), ("set_sync_debug_mode", (0,)),
    ("check_error", (0,)), ("clock_rate", ()), ("device_memory_used", ()), ("memory_usage", ()),
    ("power_draw", ()), ("temperature", ()), ("utilization", ()), ("list_gpu_processes", ()),
    ("manual_seed", (1,)), ("manual_seed", (1.5,)), ("manual_seed", ("a",)),
    ("manual_seed_all", (1,)), ("seed", ()), ("seed_all", ()), ("initial_seed", ()),
    ("get_rng_state", ()), ("get_rng_state", ("cpu",)), ("get_rng_state_all", ()),
    ("set_rng_state_all", ([],)), ("set_rng_state", (3,)), ("empty_cache", ()),
    ("memory_allocated", ()), ("memory_allocated", (0,)), ("memory_allocated", ("cpu",)),
    ("max_memory_allocated", ()), ("memory_reserved", ()), ("max_memory_reserved", ()),
    ("memory_cached", ()), ("max_memory_cached", ()), ("memory_stats", ()),
    ("memory_stats", ("cpu",)), ("memory_stats_as_nested_dict", ()), ("host_memory_stats", ()),
    ("host_memory_stats_as_nested_dict", ()), ("memory_summary", ()), ("memory_snapshot", ()),
    ("mem_get_info", ()), ("get_per_process_memory_fraction", ()),
    ("set_per_process_memory_fraction", (0.5,)), ("reset_peak_memory_stats", ()),
    ("reset_accumulated_memory_stats", ()), ("reset_max_memory_allocated", ()),
    ("reset_max_memory_cached", ()), ("reset_peak_host_memory_stats", ()),
    ("reset_accumulated_host_memory_stats", ()), ("caching_allocator_alloc", (10,)),
    ("caching_allocator_delete", (0,)), ("caching_allocator_enable", ()),
    ("caching_allocator_enable", (False,)), ("get_allocator_backend", ()),
    ("change_current_allocator", (None,)), ("set_stream", (None,)), ("current_stream", ()),
    ("default_stream", ()), ("get_stream_from_external", (0,)), ("graph_pool_handle", ()),
    ("is_current_stream_capturing", ()), ("Stream", ()), ("Stream", (0,)),
    ("Stream", ()), ("Event", ()), ("ExternalStream", (0,)), ("MemPool", ()), ("CUDAGraph", ()),
    ("graph", (None,)), ("FloatTensor", ([1.0],)), ("LongTensor", ()), ("BFloat16Tensor", ()),
    ("DoubleStorage", (3,)), ("CudaError", (2,)), ("device", ("cpu",)),
    ("memory.memory_allocated", ()), ("memory.empty_cache", ()), ("random.manual_seed", (1,)),
    ("random.get_rng_state_all", ()), ("nvtx.range_push", ("a",)), ("nvtx.range_pop", ()),
    ("nvtx.mark", ("a",)), ("nvtx.range_start", ("a",)), ("nvtx.range_end", (1,)),
    ("streams.Stream", ()), ("streams.Event", ()), ("graphs.graph_pool_handle", ()),
]


@pytest.mark.parametrize("name,args", CUDA_CALLS, ids=lambda v: repr(v)[:30])
def test_cuda(name, args):
    same_outcome(lambda T: resolve(T.cuda, name)(*args))


def test_cuda_values_and_context_managers():
    def prog(T):
        c = T.cuda
        out = [c.has_half, c.has_magma, c.default_generators, c.cudaStatus.SUCCESS,
               c.cudaStatus.ERROR_NOT_READY, issubclass(c.OutOfMemoryError, RuntimeError),
               c.OutOfMemoryError is T.OutOfMemoryError,
               c.AcceleratorError is T.AcceleratorError,
               issubclass(c.DeferredCudaCallError, Exception),
               isinstance(T.ones(1), c.FloatTensor)]
        with c.device(-1):
            out.append("device(-1)")
        with c.device_of(T.ones(1)):
            out.append("device_of")
        with c.stream(None):
            out.append("stream")
        with c.StreamContext(None):
            out.append("StreamContext")
        return out
    same(prog)
    same_error(lambda T: T.cuda.device(0).__enter__())
    same_error(lambda T: T.cuda.device(None).__enter__())
    same_error(lambda T: T.cuda.caching_allocator_disabled().__enter__())
    same_error(lambda T: T.cuda.use_mem_pool(None).__enter__())
    same_error(lambda T: T.cuda.nvtx.range("a").__enter__())


def test_cuda_amp():
    same_outcome(lambda T: T.cuda.amp.autocast().__enter__()._enabled)
    same_outcome(lambda T: T.cuda.amp.GradScaler().is_enabled())
    same_outcome(lambda T: T.cuda.amp.GradScaler().scale(T.ones(2)))
    same_outcome(lambda T: T.cuda.amp.custom_fwd(lambda ctx, x: x)(type("C", (), {})(), 3))

    def autocast_off(T):
        with T.cuda.amp.autocast():
            x = T.ones(2, 2)
            return [(x @ x).dtype, T.is_autocast_enabled(), T.is_autocast_enabled("cuda")]
    same_outcome(autocast_off)


MPS_CALLS = [
    ("is_available", ()), ("device_count", ()), ("synchronize", ()), ("empty_cache", ()),
    ("current_allocated_memory", ()), ("driver_allocated_memory", ()),
    ("recommended_max_memory", ()), ("set_per_process_memory_fraction", (0.5,)),
    ("set_per_process_memory_fraction", (3,)), ("set_per_process_memory_fraction", (3.0,)),
    ("manual_seed", (1,)), ("seed", ()), ("get_rng_state", ()), ("compile_shader", ("x",)),
    ("load_metallib", ("x",)), ("load_metallib", (3,)), ("profiler.start", ()),
    ("profiler.stop", ()), ("profiler.is_capturing_metal", ()),
    ("profiler.is_metal_capture_enabled", ()), ("event.Event", ()), ("Event", ()),
]


# PyTorch's mps.Event.__del__ fails after its constructor raised
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("name,args", MPS_CALLS, ids=lambda v: repr(v)[:30])
def test_mps(name, args):
    same_outcome(lambda T: resolve(T.mps, name)(*args))


def test_mps_context_managers():
    same_error(lambda T: T.mps.set_rng_state(T.zeros(3, dtype=T.uint8)))
    same_error(lambda T: T.mps.profiler.profile().__enter__())

    def capture(T):
        with T.mps.profiler.metal_capture("x"):
            pass
    same_error(capture)


XPU_CALLS = [
    ("is_available", ()), ("is_initialized", ()), ("device_count", ()), ("is_bf16_supported", ()),
    ("is_tf32_supported", ()), ("get_arch_list", ()), ("get_gencode_flags", ()), ("init", ()),
    ("current_device", ()), ("get_device_capability", ()), ("get_device_name", ()),
    ("get_device_properties", ()), ("synchronize", ()), ("can_device_access_peer", (0, 1)),
    ("set_device", (0,)), ("set_device", (-1,)), ("current_stream", ()),
    ("get_stream_from_external", (0,)), ("mem_get_info", ()),
    ("get_per_process_memory_fraction", ()), ("set_per_process_memory_fraction", (0.5,)),
    ("initial_seed", ()), ("get_rng_state", ()), ("get_rng_state_all", ()), ("manual_seed", (1,)),
    ("manual_seed_all", (1,)), ("seed", ()), ("seed_all", ()), ("set_rng_state_all", ([],)),
    ("empty_cache", ()), ("memory_allocated", ()), ("max_memory_allocated", ()),
    ("memory_reserved", ()), ("max_memory_reserved", ()), ("memory_stats", ()),
    ("memory_stats_as_nested_dict", ()), ("memory_snapshot", ()), ("reset_peak_memory_stats", ()),
    ("reset_accumulated_memory_stats", ()), ("change_current_allocator", (None,)),
    ("clock_rate", ()), ("device_memory_used", ()), ("memory_usage", ()), ("power_draw", ()),
    ("temperature", ()), ("utilization", ()), ("Stream", ()), ("Event", ()), ("MemPool", ()),
    ("XPUGraph", ()), ("graph", (None,)), ("graph_pool_handle", ()),
    ("is_current_stream_capturing", ()), ("set_stream", (None,)), ("device", ("cpu",)),
    ("default_generators.__len__", ()),
]


@pytest.mark.parametrize("name,args", XPU_CALLS, ids=lambda v: repr(v)[:30])
def test_xpu(name, args):
    same_outcome(lambda T: resolve(T.xpu, name)(*args))


def test_xpu_context_managers():
    same_error(lambda T: T.xpu.device(0).__enter__())
    same_error(lambda T: T.xpu.device(-1).__enter__())
    same_error(lambda T: T.xpu.device_of(T.ones(1)).__enter__())
    same_error(lambda T: T.xpu.use_mem_pool(None).__enter__())
    same(lambda T: T.xpu.stream(None).__enter__())
    same(lambda T: T.xpu.set_rng_state(T.zeros(3, dtype=T.uint8)))


MTIA_CALLS = [
    ("is_available", ()), ("is_initialized", ()), ("is_fbcode", ()), ("is_prod", ()),
    ("is_bf16_supported", ()), ("device_count", ()), ("init", ()), ("initial_seed", ()),
    ("get_rng_state", ()), ("get_rng_state_all", ()), ("set_rng_state_all", ([],)),
    ("manual_seed", (1,)), ("manual_seed_all", (1,)), ("seed", ()), ("seed_all", ()),
    ("current_device", ()), ("current_stream", ()), ("current_stream", (0,)),
    ("default_stream", ()), ("default_stream", (0,)), ("synchronize", ()), ("synchronize", (0,)),
    ("get_device_capability", ()), ("get_device_capability", (0,)),
    ("get_device_properties", ()), ("get_device_properties", (0,)), ("set_device", (0,)),
    ("set_device", (-1,)), ("set_device", ("cpu",)), ("empty_cache", ()),
    ("memory_allocated", ()), ("max_memory_allocated", ()), ("memory_stats", (0,)),
    ("reset_peak_memory_stats", ()), ("record_memory_history", (None,)), ("snapshot", ()),
    ("attach_out_of_memory_observer", (print,)), ("MTIAGraph", ()), ("graph", (None,)),
    ("graph_pool_handle", ()), ("set_stream", (None,)), ("stream", (None,)),
    ("StreamContext", (None,)), ("device", ("cpu",)), ("device", (None,)),
]


@pytest.mark.parametrize("name,args", MTIA_CALLS, ids=lambda v: repr(v)[:30])
def test_mtia(name, args):
    same_outcome(lambda T: resolve(T.mtia, name)(*args), values=name != "stream")


def test_mtia_devices_and_streams():
    same_error(lambda T: T.mtia.device(0).__enter__())
    same(lambda T: T.mtia.device(-1).__enter__())
    same_error(lambda T: T.mtia.set_rng_state(T.zeros(3, dtype=T.uint8)))
    same_error(lambda T: T.mtia.set_stream(T.Stream()))
    same(lambda T: [repr(T.mtia.Stream()), repr(T.mtia.Event(enable_timing=True))])
    same_error(lambda T: T.mtia.Stream(device="mtia"))


ACCELERATOR_CALLS = [
    ("is_available", ()), ("current_accelerator", ()), ("current_accelerator", (True,)),
    ("device_count", ()), ("current_device_index", ()), ("current_device_idx", ()),
    ("set_device_index", (0,)), ("set_device_index", (-1,)), ("set_device_index", ("cpu",)),
    ("set_device_index", ("cuda",)), ("set_device_index", (None,)), ("set_device_idx", (0,)),
    ("current_stream", ()), ("current_stream", ("cpu",)), ("set_stream", (None,)),
    ("synchronize", ()), ("synchronize", (0,)), ("empty_cache", ()), ("empty_host_cache", ()),
    ("get_device_capability", ()), ("get_memory_info", ()), ("memory_allocated", ()),
    ("memory_allocated", ("cpu",)), ("max_memory_allocated", ()), ("memory_reserved", ()),
    ("max_memory_reserved", ()), ("memory_stats", ()), ("reset_accumulated_memory_stats", ()),
    ("reset_peak_memory_stats", ()), ("Graph", ()),
]


@pytest.mark.parametrize("name,args", ACCELERATOR_CALLS, ids=lambda v: repr(v)[:30])
def test_accelerator(name, args):
    same_outcome(lambda T: resolve(T.accelerator, name)(*args))


def test_accelerator_device_index_and_stream():
    same_error(lambda T: T.accelerator.set_stream(T.Stream()))
    same_error(lambda T: T.accelerator.device_index(0).__enter__())
    same_error(lambda T: T.accelerator.device_index(-1).__enter__())

    def none(T):
        with T.accelerator.device_index(None):
            return "ok"
    same(none)


CPU_CALLS = [("is_available", ()), ("is_initialized", ()), ("synchronize", ()),
             ("current_device", ()), ("device_count", ()), ("set_device", ("cpu",))]


@pytest.mark.parametrize("name,args", CPU_CALLS, ids=lambda v: repr(v)[:30])
def test_cpu_module(name, args):
    same_outcome(lambda T: resolve(T.cpu, name)(*args))


def test_cpu_module_streams_and_capabilities():
    def prog(T):
        s = T.cpu.Stream()
        out = [T.cpu.current_stream() is not s]
        with T.cpu.stream(s):
            out.append(T.cpu.current_stream() is s)
        out.append(T.cpu.current_stream() is not s)
        e = T.cpu.Event()
        out += [e.query(), e.record(), e.synchronize(), e.wait(), s.wait_stream(s),
                s.record_event(), s.wait_event(e)]
        caps = T.cpu.get_capabilities()
        out += [caps["architecture"], caps.get("avx2", False), caps.get("avx512_f", False)]
        return out
    same(prog)
    same_outcome(lambda T: str(T.cpu.amp.autocast().fast_dtype))
    same_outcome(lambda T: T.cpu.amp.GradScaler().get_scale())


def test_streams_and_events():
    def prog(T):
        s = T.Stream()
        e = T.Event()
        t = T.Event(enable_timing=True)
        return [repr(s), s.device_type, s.device_index, s.stream_id, repr(s.device), s.query(),
                s.synchronize(), s.wait_event(e), s.is_capturing(), s == T.Stream(),
                hash(s) == hash(T.Stream()), repr(e), repr(t), repr(e.device), e.event_id,
                e.query(), e.synchronize(), e.wait(), repr(T.Stream("cpu")),
                repr(T.Stream(priority=1)), repr(T.Event(device="cpu", enable_timing=False))]
    same(prog)
    for bad in (lambda T: T.Stream().record_event(), lambda T: T.Event().record(),
                lambda T: T.Stream().native_handle, lambda T: T.Stream("cuda"),
                lambda T: T.Event("cuda"), lambda T: T.Stream(foo=1),
                lambda T: T.Event().elapsed_time(T.Event()),
                lambda T: T.Event(enable_timing=True).elapsed_time(T.Event(enable_timing=True)),
                lambda T: T.Event().ipc_handle()):
        same_error(bad)

    def context(T):
        with T.Stream() as s:
            return repr(s)
    same(context)


def test_get_device_module():
    for arg in (None, "cpu", "cuda", "mps", "xpu", "mtia", "cuda:0"):
        same(lambda T: T.get_device_module(arg).__name__.replace("chainrule", "torch"))
    same(lambda T: T.get_device_module(T.device("cuda:0")).__name__.replace("chainrule", "torch"))
    for arg in ("foo", "hpu", "xla", 1, "meta"):
        same_error(lambda T: T.get_device_module(arg))

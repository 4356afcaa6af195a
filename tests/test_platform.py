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
from helpers import compare, error_of, same, same_error, same_warnings, warnings_of


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
    lambda T: T.cuda.is_available(),
    lambda T: T.cuda.is_initialized(),
    lambda T: T.cuda.device_count(),
    lambda T: T.cuda.init(),
    lambda T: T.cuda.current_device(),
    lambda T: T.cuda.get_device_capability(),
    lambda T: T.cuda.get_device_capability(0),
    lambda T: T.cuda.get_device_name(),
    lambda T: T.cuda.get_device_name(0),
    lambda T: T.cuda.get_device_properties(0),
    lambda T: T.cuda.get_arch_list(),
    lambda T: T.cuda.get_gencode_flags(),
    lambda T: T.cuda.is_bf16_supported(),
    lambda T: T.cuda.is_bf16_supported(False),
    lambda T: T.cuda.is_tf32_supported(),
    lambda T: T.cuda.can_device_access_peer(0, 1),
    lambda T: T.cuda.set_device(0),
    lambda T: T.cuda.set_device(-1),
    lambda T: T.cuda.set_device('cpu'),
    lambda T: T.cuda.set_device('cuda:1'),
    lambda T: T.cuda.set_device(None),
    lambda T: T.cuda.synchronize(),
    lambda T: T.cuda.synchronize('cpu'),
    lambda T: T.cuda.ipc_collect(),
    lambda T: T.cuda.cudart(),
    lambda T: T.cuda.current_blas_handle(),
    lambda T: T.cuda.current_solver_handle(),
    lambda T: T.cuda.get_sync_debug_mode(),
    lambda T: T.cuda.set_sync_debug_mode(0),
    lambda T: T.cuda.check_error(0),
    lambda T: T.cuda.clock_rate(),
    lambda T: T.cuda.device_memory_used(),
    lambda T: T.cuda.memory_usage(),
    lambda T: T.cuda.power_draw(),
    lambda T: T.cuda.temperature(),
    lambda T: T.cuda.utilization(),
    lambda T: T.cuda.list_gpu_processes(),
    lambda T: T.cuda.manual_seed(1),
    lambda T: T.cuda.manual_seed(1.5),
    lambda T: T.cuda.manual_seed('a'),
    lambda T: T.cuda.manual_seed_all(1),
    lambda T: T.cuda.seed(),
    lambda T: T.cuda.seed_all(),
    lambda T: T.cuda.initial_seed(),
    lambda T: T.cuda.get_rng_state(),
    lambda T: T.cuda.get_rng_state('cpu'),
    lambda T: T.cuda.get_rng_state_all(),
    lambda T: T.cuda.set_rng_state_all([]),
    lambda T: T.cuda.set_rng_state(3),
    lambda T: T.cuda.empty_cache(),
    lambda T: T.cuda.memory_allocated(),
    lambda T: T.cuda.memory_allocated(0),
    lambda T: T.cuda.memory_allocated('cpu'),
    lambda T: T.cuda.max_memory_allocated(),
    lambda T: T.cuda.memory_reserved(),
    lambda T: T.cuda.max_memory_reserved(),
    lambda T: T.cuda.memory_cached(),
    lambda T: T.cuda.max_memory_cached(),
    lambda T: T.cuda.memory_stats(),
    lambda T: T.cuda.memory_stats('cpu'),
    lambda T: T.cuda.memory_stats_as_nested_dict(),
    lambda T: T.cuda.host_memory_stats(),
    lambda T: T.cuda.host_memory_stats_as_nested_dict(),
    lambda T: T.cuda.memory_summary(),
    lambda T: T.cuda.memory_snapshot(),
    lambda T: T.cuda.mem_get_info(),
    lambda T: T.cuda.get_per_process_memory_fraction(),
    lambda T: T.cuda.set_per_process_memory_fraction(0.5),
    lambda T: T.cuda.reset_peak_memory_stats(),
    lambda T: T.cuda.reset_accumulated_memory_stats(),
    lambda T: T.cuda.reset_max_memory_allocated(),
    lambda T: T.cuda.reset_max_memory_cached(),
    lambda T: T.cuda.reset_peak_host_memory_stats(),
    lambda T: T.cuda.reset_accumulated_host_memory_stats(),
    lambda T: T.cuda.caching_allocator_alloc(10),
    lambda T: T.cuda.caching_allocator_delete(0),
    lambda T: T.cuda.caching_allocator_enable(),
    lambda T: T.cuda.caching_allocator_enable(False),
    lambda T: T.cuda.get_allocator_backend(),
    lambda T: T.cuda.change_current_allocator(None),
    lambda T: T.cuda.set_stream(None),
    lambda T: T.cuda.current_stream(),
    lambda T: T.cuda.default_stream(),
    lambda T: T.cuda.get_stream_from_external(0),
    lambda T: T.cuda.graph_pool_handle(),
    lambda T: T.cuda.is_current_stream_capturing(),
    lambda T: T.cuda.Stream(),
    lambda T: T.cuda.Stream(0),
    lambda T: T.cuda.Stream(),
    lambda T: T.cuda.Event(),
    lambda T: T.cuda.ExternalStream(0),
    lambda T: T.cuda.MemPool(),
    lambda T: T.cuda.CUDAGraph(),
    lambda T: T.cuda.graph(None),
    lambda T: T.cuda.FloatTensor([1.0]),
    lambda T: T.cuda.LongTensor(),
    lambda T: T.cuda.BFloat16Tensor(),
    lambda T: T.cuda.DoubleStorage(3),
    lambda T: T.cuda.CudaError(2),
    lambda T: T.cuda.device('cpu'),
    lambda T: T.cuda.memory.memory_allocated(),
    lambda T: T.cuda.memory.empty_cache(),
    lambda T: T.cuda.random.manual_seed(1),
    lambda T: T.cuda.random.get_rng_state_all(),
    lambda T: T.cuda.nvtx.range_push('a'),
    lambda T: T.cuda.nvtx.range_pop(),
    lambda T: T.cuda.nvtx.mark('a'),
    lambda T: T.cuda.nvtx.range_start('a'),
    lambda T: T.cuda.nvtx.range_end(1),
    lambda T: T.cuda.streams.Stream(),
    lambda T: T.cuda.streams.Event(),
    lambda T: T.cuda.graphs.graph_pool_handle(),
]


@pytest.mark.parametrize("prog", CUDA_CALLS)
def test_cuda(prog):
    same_outcome(prog)


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
    lambda T: T.mps.is_available(),
    lambda T: T.mps.device_count(),
    lambda T: T.mps.synchronize(),
    lambda T: T.mps.empty_cache(),
    lambda T: T.mps.current_allocated_memory(),
    lambda T: T.mps.driver_allocated_memory(),
    lambda T: T.mps.recommended_max_memory(),
    lambda T: T.mps.set_per_process_memory_fraction(0.5),
    lambda T: T.mps.set_per_process_memory_fraction(3),
    lambda T: T.mps.set_per_process_memory_fraction(3.0),
    lambda T: T.mps.manual_seed(1),
    lambda T: T.mps.seed(),
    lambda T: T.mps.get_rng_state(),
    lambda T: T.mps.compile_shader('x'),
    lambda T: T.mps.load_metallib('x'),
    lambda T: T.mps.load_metallib(3),
    lambda T: T.mps.profiler.start(),
    lambda T: T.mps.profiler.stop(),
    lambda T: T.mps.profiler.is_capturing_metal(),
    lambda T: T.mps.profiler.is_metal_capture_enabled(),
    lambda T: T.mps.event.Event(),
    lambda T: T.mps.Event(),
]


# PyTorch's mps.Event.__del__ fails after its constructor raised
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("prog", MPS_CALLS)
def test_mps(prog):
    same_outcome(prog)


def test_mps_context_managers():
    same_error(lambda T: T.mps.set_rng_state(T.zeros(3, dtype=T.uint8)))
    same_error(lambda T: T.mps.profiler.profile().__enter__())

    def capture(T):
        with T.mps.profiler.metal_capture("x"):
            pass
    same_error(capture)


XPU_CALLS = [
    lambda T: T.xpu.is_available(),
    lambda T: T.xpu.is_initialized(),
    lambda T: T.xpu.device_count(),
    lambda T: T.xpu.is_bf16_supported(),
    lambda T: T.xpu.is_tf32_supported(),
    lambda T: T.xpu.get_arch_list(),
    lambda T: T.xpu.get_gencode_flags(),
    lambda T: T.xpu.init(),
    lambda T: T.xpu.current_device(),
    lambda T: T.xpu.get_device_capability(),
    lambda T: T.xpu.get_device_name(),
    lambda T: T.xpu.get_device_properties(),
    lambda T: T.xpu.synchronize(),
    lambda T: T.xpu.can_device_access_peer(0, 1),
    lambda T: T.xpu.set_device(0),
    lambda T: T.xpu.set_device(-1),
    lambda T: T.xpu.current_stream(),
    lambda T: T.xpu.get_stream_from_external(0),
    lambda T: T.xpu.mem_get_info(),
    lambda T: T.xpu.get_per_process_memory_fraction(),
    lambda T: T.xpu.set_per_process_memory_fraction(0.5),
    lambda T: T.xpu.initial_seed(),
    lambda T: T.xpu.get_rng_state(),
    lambda T: T.xpu.get_rng_state_all(),
    lambda T: T.xpu.manual_seed(1),
    lambda T: T.xpu.manual_seed_all(1),
    lambda T: T.xpu.seed(),
    lambda T: T.xpu.seed_all(),
    lambda T: T.xpu.set_rng_state_all([]),
    lambda T: T.xpu.empty_cache(),
    lambda T: T.xpu.memory_allocated(),
    lambda T: T.xpu.max_memory_allocated(),
    lambda T: T.xpu.memory_reserved(),
    lambda T: T.xpu.max_memory_reserved(),
    lambda T: T.xpu.memory_stats(),
    lambda T: T.xpu.memory_stats_as_nested_dict(),
    lambda T: T.xpu.memory_snapshot(),
    lambda T: T.xpu.reset_peak_memory_stats(),
    lambda T: T.xpu.reset_accumulated_memory_stats(),
    lambda T: T.xpu.change_current_allocator(None),
    lambda T: T.xpu.clock_rate(),
    lambda T: T.xpu.device_memory_used(),
    lambda T: T.xpu.memory_usage(),
    lambda T: T.xpu.power_draw(),
    lambda T: T.xpu.temperature(),
    lambda T: T.xpu.utilization(),
    lambda T: T.xpu.Stream(),
    lambda T: T.xpu.Event(),
    lambda T: T.xpu.MemPool(),
    lambda T: T.xpu.XPUGraph(),
    lambda T: T.xpu.graph(None),
    lambda T: T.xpu.graph_pool_handle(),
    lambda T: T.xpu.is_current_stream_capturing(),
    lambda T: T.xpu.set_stream(None),
    lambda T: T.xpu.device('cpu'),
    lambda T: T.xpu.default_generators.__len__(),
]


@pytest.mark.parametrize("prog", XPU_CALLS)
def test_xpu(prog):
    same_outcome(prog)


def test_xpu_context_managers():
    same_error(lambda T: T.xpu.device(0).__enter__())
    same_error(lambda T: T.xpu.device(-1).__enter__())
    same_error(lambda T: T.xpu.device_of(T.ones(1)).__enter__())
    same_error(lambda T: T.xpu.use_mem_pool(None).__enter__())
    same(lambda T: T.xpu.stream(None).__enter__())
    same(lambda T: T.xpu.set_rng_state(T.zeros(3, dtype=T.uint8)))


MTIA_CALLS = [
    lambda T: T.mtia.is_available(),
    lambda T: T.mtia.is_initialized(),
    lambda T: T.mtia.is_fbcode(),
    lambda T: T.mtia.is_prod(),
    lambda T: T.mtia.is_bf16_supported(),
    lambda T: T.mtia.device_count(),
    lambda T: T.mtia.init(),
    lambda T: T.mtia.initial_seed(),
    lambda T: T.mtia.get_rng_state(),
    lambda T: T.mtia.get_rng_state_all(),
    lambda T: T.mtia.set_rng_state_all([]),
    lambda T: T.mtia.manual_seed(1),
    lambda T: T.mtia.manual_seed_all(1),
    lambda T: T.mtia.seed(),
    lambda T: T.mtia.seed_all(),
    lambda T: T.mtia.current_device(),
    lambda T: T.mtia.current_stream(),
    lambda T: T.mtia.current_stream(0),
    lambda T: T.mtia.default_stream(),
    lambda T: T.mtia.default_stream(0),
    lambda T: T.mtia.synchronize(),
    lambda T: T.mtia.synchronize(0),
    lambda T: T.mtia.get_device_capability(),
    lambda T: T.mtia.get_device_capability(0),
    lambda T: T.mtia.get_device_properties(),
    lambda T: T.mtia.get_device_properties(0),
    lambda T: T.mtia.set_device(0),
    lambda T: T.mtia.set_device(-1),
    lambda T: T.mtia.set_device('cpu'),
    lambda T: T.mtia.empty_cache(),
    lambda T: T.mtia.memory_allocated(),
    lambda T: T.mtia.max_memory_allocated(),
    lambda T: T.mtia.memory_stats(0),
    lambda T: T.mtia.reset_peak_memory_stats(),
    lambda T: T.mtia.record_memory_history(None),
    lambda T: T.mtia.snapshot(),
    lambda T: T.mtia.attach_out_of_memory_observer(print),
    lambda T: T.mtia.MTIAGraph(),
    lambda T: T.mtia.graph(None),
    lambda T: T.mtia.graph_pool_handle(),
    lambda T: T.mtia.set_stream(None),
    lambda T: T.mtia.stream(None),
    lambda T: T.mtia.StreamContext(None),
    lambda T: T.mtia.device('cpu'),
    lambda T: T.mtia.device(None),
]


@pytest.mark.parametrize("prog", MTIA_CALLS)
def test_mtia(prog):
    same_outcome(prog)


def test_mtia_devices_and_streams():
    same_error(lambda T: T.mtia.device(0).__enter__())
    same(lambda T: T.mtia.device(-1).__enter__())
    same_error(lambda T: T.mtia.set_rng_state(T.zeros(3, dtype=T.uint8)))
    same_error(lambda T: T.mtia.set_stream(T.Stream()))
    same(lambda T: [repr(T.mtia.Stream()), repr(T.mtia.Event(enable_timing=True))])
    same_error(lambda T: T.mtia.Stream(device="mtia"))


ACCELERATOR_CALLS = [
    lambda T: T.accelerator.is_available(),
    lambda T: T.accelerator.current_accelerator(),
    lambda T: T.accelerator.current_accelerator(True),
    lambda T: T.accelerator.device_count(),
    lambda T: T.accelerator.current_device_index(),
    lambda T: T.accelerator.current_device_idx(),
    lambda T: T.accelerator.set_device_index(0),
    lambda T: T.accelerator.set_device_index(-1),
    lambda T: T.accelerator.set_device_index('cpu'),
    lambda T: T.accelerator.set_device_index('cuda'),
    lambda T: T.accelerator.set_device_index(None),
    lambda T: T.accelerator.set_device_idx(0),
    lambda T: T.accelerator.current_stream(),
    lambda T: T.accelerator.current_stream('cpu'),
    lambda T: T.accelerator.set_stream(None),
    lambda T: T.accelerator.synchronize(),
    lambda T: T.accelerator.synchronize(0),
    lambda T: T.accelerator.empty_cache(),
    lambda T: T.accelerator.empty_host_cache(),
    lambda T: T.accelerator.get_device_capability(),
    lambda T: T.accelerator.get_memory_info(),
    lambda T: T.accelerator.memory_allocated(),
    lambda T: T.accelerator.memory_allocated('cpu'),
    lambda T: T.accelerator.max_memory_allocated(),
    lambda T: T.accelerator.memory_reserved(),
    lambda T: T.accelerator.max_memory_reserved(),
    lambda T: T.accelerator.memory_stats(),
    lambda T: T.accelerator.reset_accumulated_memory_stats(),
    lambda T: T.accelerator.reset_peak_memory_stats(),
    lambda T: T.accelerator.Graph(),
]


@pytest.mark.parametrize("prog", ACCELERATOR_CALLS)
def test_accelerator(prog):
    same_outcome(prog)


def test_accelerator_device_index_and_stream():
    same_error(lambda T: T.accelerator.set_stream(T.Stream()))
    same_error(lambda T: T.accelerator.device_index(0).__enter__())
    same_error(lambda T: T.accelerator.device_index(-1).__enter__())

    def none(T):
        with T.accelerator.device_index(None):
            return "ok"
    same(none)


CPU_CALLS = [
    lambda T: T.cpu.is_available(),
    lambda T: T.cpu.is_initialized(),
    lambda T: T.cpu.synchronize(),
    lambda T: T.cpu.current_device(),
    lambda T: T.cpu.device_count(),
    lambda T: T.cpu.set_device('cpu'),
]


@pytest.mark.parametrize("prog", CPU_CALLS)
def test_cpu_module(prog):
    same_outcome(prog)


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


# ---- torch.backends ------------------------------------------------------------------------

BACKEND_VALUES = [
    lambda T: T.backends.cudnn.enabled,
    lambda T: T.backends.cudnn.benchmark,
    lambda T: T.backends.cudnn.deterministic,
    lambda T: T.backends.cudnn.allow_tf32,
    lambda T: T.backends.cudnn.benchmark_limit,
    lambda T: T.backends.cudnn.fp32_precision,
    lambda T: T.backends.cudnn.depthwise_kernel,
    lambda T: T.backends.cudnn.conv.fp32_precision,
    lambda T: T.backends.cudnn.rnn.fp32_precision,
    lambda T: T.backends.mkldnn.enabled,
    lambda T: T.backends.mkldnn.deterministic,
    lambda T: T.backends.mkldnn.allow_tf32,
    lambda T: T.backends.mkldnn.fp32_precision,
    lambda T: T.backends.mkldnn.matmul.fp32_precision,
    lambda T: T.backends.mkldnn.conv.fp32_precision,
    lambda T: T.backends.mkldnn.rnn.fp32_precision,
    lambda T: T.backends.mkldnn.VERBOSE_OFF,
    lambda T: T.backends.mkldnn.VERBOSE_ON,
    lambda T: T.backends.mkldnn.VERBOSE_ON_CREATION,
    lambda T: T.backends.mkl.VERBOSE_OFF,
    lambda T: T.backends.mkl.VERBOSE_ON,
    lambda T: T.backends.cuda.matmul.allow_tf32,
    lambda T: T.backends.cuda.matmul.fp32_precision,
    lambda T: T.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
    lambda T: T.backends.cuda.matmul.allow_bf16_reduced_precision_reduction,
    lambda T: T.backends.cuda.matmul.allow_fp16_reduced_precision_reduction_split_k,
    lambda T: T.backends.cuda.matmul.allow_fp16_accumulation,
    lambda T: T.backends.fp32_precision,
    lambda T: T.backends.quantized.engine,
    lambda T: T.backends.quantized.supported_engines,
    lambda T: T.backends.miopen.immediate,
]


@pytest.mark.parametrize("prog", BACKEND_VALUES)
def test_backend_values(prog):
    same_outcome(prog)


def test_backend_enums_and_sets():
    same(lambda T: sorted(map(str, T.backends.cudnn.CUDNN_TENSOR_DTYPES)))
    same(lambda T: [repr(T.backends.cuda.preferred_linalg_library()),
                    repr(T.backends.cuda.preferred_blas_library()),
                    repr(T.backends.cuda.preferred_linalg_library("default")),
                    str(T.backends.cuda.preferred_rocm_fa_library())])


BACKEND_CALLS = [
    lambda T: T.backends.cudnn.is_available(),
    lambda T: T.backends.cudnn.version(),
    lambda T: T.backends.cudnn.is_acceptable(None),
    lambda T: T.backends.mps.is_available(),
    lambda T: T.backends.mps.is_built(),
    lambda T: T.backends.mps.is_macos13_or_newer(),
    lambda T: T.backends.mps.is_macos_or_newer(14, 0),
    lambda T: T.backends.mps.get_name(),
    lambda T: T.backends.mps.get_core_count(),
    lambda T: T.backends.cuda.is_built(),
    lambda T: T.backends.cuda.flash_sdp_enabled(),
    lambda T: T.backends.cuda.mem_efficient_sdp_enabled(),
    lambda T: T.backends.cuda.math_sdp_enabled(),
    lambda T: T.backends.cuda.cudnn_sdp_enabled(),
    lambda T: T.backends.cuda.fp16_bf16_reduction_math_sdp_allowed(),
    lambda T: T.backends.cuda.is_flash_attention_available(),
    lambda T: T.backends.cuda.is_ck_sdpa_available(),
    lambda T: T.backends.cuda.cublas_workspace_size(),
    lambda T: T.backends.cuda.cublaslt_workspace_size(),
    lambda T: T.backends.cuda.enable_flash_sdp(1),
    lambda T: T.backends.cuda.preferred_linalg_library('magma'),
    lambda T: T.backends.cuda.preferred_linalg_library('cusolver'),
    lambda T: T.backends.cuda.preferred_linalg_library('foo'),
    lambda T: T.backends.cuda.preferred_linalg_library(1),
    lambda T: T.backends.cuda.preferred_blas_library('cublaslt'),
    lambda T: T.backends.cuda.preferred_blas_library('foo'),
    lambda T: T.backends.cuda.preferred_rocm_fa_library('foo'),
    lambda T: T.backends.cuda.preferred_rocm_fa_library(1),
    lambda T: T.backends.cusparselt.is_available(),
    lambda T: T.backends.cusparselt.version(),
    lambda T: T.backends.cusparselt.get_max_alg_id(),
    lambda T: T.backends.kleidiai.is_available(),
    lambda T: T.backends.mha.get_fastpath_enabled(),
    lambda T: T.backends.nnpack.set_flags(1),
    lambda T: T.backends.mkldnn.is_acl_available(),
    lambda T: T.backends.flags_frozen(),
]


@pytest.mark.parametrize("prog", BACKEND_CALLS)
def test_backend_calls(prog):
    same_outcome(prog)


def test_backend_setters_and_flags():
    def prog(T):
        b = T.backends
        out = []
        b.cudnn.deterministic = True
        b.cudnn.benchmark = True
        out += [b.cudnn.deterministic, b.cudnn.benchmark]
        with b.cudnn.flags(enabled=False, deterministic=False):
            out += [b.cudnn.enabled, b.cudnn.deterministic]
        out += [b.cudnn.enabled, b.cudnn.deterministic]
        b.cudnn.deterministic = False
        b.cudnn.benchmark = False
        out.append(b.cudnn.set_flags(True, False, None, False, True))
        b.mkldnn.enabled = False
        out.append(b.mkldnn.enabled)
        with b.mkldnn.flags(enabled=True):
            out.append(b.mkldnn.enabled)
        b.mkldnn.enabled = True
        b.cuda.matmul.allow_fp16_reduced_precision_reduction = (False, False)
        out += [b.cuda.matmul.allow_fp16_reduced_precision_reduction,
                b.cuda.matmul.allow_fp16_reduced_precision_reduction_split_k]
        b.cuda.matmul.allow_fp16_reduced_precision_reduction = True
        b.cuda.enable_flash_sdp(False)
        out.append(b.cuda.flash_sdp_enabled())
        b.cuda.enable_flash_sdp(True)
        b.mha.set_fastpath_enabled(False)
        out.append(b.mha.get_fastpath_enabled())
        b.mha.set_fastpath_enabled(True)
        b.quantized.engine = "qnnpack"
        out.append(b.quantized.engine)
        b.quantized.engine = "x86"
        with b.nnpack.flags(enabled=True):
            out.append("nnpack")
        out.append(b.mkldnn.verbose(b.mkldnn.VERBOSE_OFF).__enter__())
        out.append(b.mkl.verbose(b.mkl.VERBOSE_OFF).__enter__())
        return out
    same(prog)
    for bad in (lambda T: setattr(T.backends.cudnn, "enabled", 1),
                lambda T: setattr(T.backends.cudnn, "benchmark", None),
                lambda T: setattr(T.backends.cudnn, "allow_tf32", 1),
                lambda T: setattr(T.backends.cudnn, "depthwise_kernel", "x"),
                lambda T: setattr(T.backends.cudnn, "fp32_precision", "bf16"),
                lambda T: setattr(T.backends.mkldnn, "enabled", 1),
                lambda T: setattr(T.backends.mkldnn, "fp32_precision", "foo"),
                lambda T: setattr(T.backends, "fp32_precision", "foo"),
                lambda T: setattr(T.backends.cuda.matmul, "allow_tf32", 1),
                lambda T: setattr(T.backends.cuda.matmul, "fp32_precision", "bf16"),
                lambda T: setattr(T.backends.cuda.matmul,
                                  "allow_fp16_reduced_precision_reduction", 1),
                lambda T: setattr(T.backends.cuda.matmul,
                                  "allow_bf16_reduced_precision_reduction", (1,)),
                lambda T: setattr(T.backends.cuda.matmul,
                                  "allow_bf16_reduced_precision_reduction", (True, 1)),
                lambda T: setattr(T.backends.cuda.matmul,
                                  "allow_bf16_reduced_precision_reduction", ()),
                lambda T: T.backends.cuda.matmul.foo,
                lambda T: setattr(T.backends.cuda.matmul, "foo", 1),
                lambda T: setattr(T.backends.quantized, "engine", "foo"),
                lambda T: T.backends.cuda.cufft_plan_cache.max_size,
                lambda T: T.backends.cuda.cufft_plan_cache[0],
                lambda T: setattr(T.backends.cudnn.conv, "foo", 1)):
        same_error(bad)
    same_warnings(lambda T: setattr(T.backends.mkldnn, "allow_tf32", True))

    def sdp(T):
        with T.backends.cuda.sdp_kernel(enable_flash=False):
            return [T.backends.cuda.flash_sdp_enabled(), T.backends.cuda.math_sdp_enabled()]
    same_outcome(sdp)
    same(lambda T: T.backends.cuda.flash_sdp_enabled())


def test_cpu_capability_is_honest():
    # chainrule reports the level NumPy detected on this CPU; PyTorch its own build's
    assert chainrule.backends.cpu.get_cpu_capability() in (
        "DEFAULT", "VSX", "Z VECTOR", "NO AVX", "AVX2", "AVX512", "SVE256")
    assert chainrule.backends.openmp.is_available() is False
    assert chainrule.backends.mkldnn.is_available() is False
    assert chainrule.backends.nnpack.is_available() is False
    assert chainrule.backends.mkl.is_available() is chainrule.has_mkl
    assert chainrule.backends.opt_einsum.is_available() is False
    assert chainrule.backends.opt_einsum.enabled is False
    with pytest.raises(ValueError, match="opt_einsum is not available"):
        chainrule.backends.opt_einsum.enabled = True


def test_frozen_flags():
    def prog(T):
        from importlib import reload  # noqa: F401
        T.backends.disable_global_flags()
        try:
            T.backends.cudnn.benchmark = True
        finally:
            # undo: there is no public way back, so reset the module flag
            name = [n for n in vars(T.backends.m) if n.endswith("nonbracketed_mutation_flag")][0]
            setattr(T.backends.m, name, True)
    same_error(prog)


# ---- autocast and GradScaler -------------------------------------------------------------------

AUTOCAST_CALLS = [
    lambda T: T.is_autocast_enabled(),
    lambda T: T.is_autocast_enabled('cpu'),
    lambda T: T.is_autocast_enabled(1),
    lambda T: T.is_autocast_enabled('cuda', 1),
    lambda T: T.get_autocast_dtype('cpu'),
    lambda T: T.get_autocast_dtype('cuda'),
    lambda T: T.get_autocast_dtype('mps'),
    lambda T: T.get_autocast_dtype('foo'),
    lambda T: T.get_autocast_dtype('meta'),
    lambda T: T.get_autocast_dtype('xla'),
    lambda T: T.get_autocast_dtype('hpu'),
    lambda T: T.get_autocast_gpu_dtype(),
    lambda T: T.get_autocast_cpu_dtype(),
    lambda T: T.get_autocast_ipu_dtype(),
    lambda T: T.get_autocast_xla_dtype(),
    lambda T: T.is_autocast_cache_enabled(),
    lambda T: T.is_autocast_cpu_enabled(),
    lambda T: T.is_autocast_ipu_enabled(),
    lambda T: T.is_autocast_xla_enabled(),
    lambda T: T.set_autocast_enabled('cpu'),
    lambda T: T.set_autocast_enabled(1),
    lambda T: T.set_autocast_dtype('cpu', 1),
    lambda T: T.set_autocast_cache_enabled(1),
    lambda T: T.clear_autocast_cache(),
    lambda T: T.amp.is_autocast_available('cpu'),
    lambda T: T.amp.is_autocast_available('cuda'),
]


@pytest.mark.parametrize("prog", AUTOCAST_CALLS)
def test_autocast_state_functions(prog):
    same_outcome(prog)


def test_autocast_state_round_trips():
    def prog(T):
        out = []
        for setter, getter, value, old in (
                (T.set_autocast_cpu_dtype, T.get_autocast_cpu_dtype, T.float16, T.bfloat16),
                (T.set_autocast_gpu_dtype, T.get_autocast_gpu_dtype, T.bfloat16, T.float16),
                (T.set_autocast_cpu_enabled, T.is_autocast_cpu_enabled, True, False),
                (T.set_autocast_xla_enabled, T.is_autocast_xla_enabled, True, False)):
            setter(value)
            out.append(getter())
            setter(old)
        T.set_autocast_enabled("cpu", True)
        out.append(T.is_autocast_enabled("cpu"))
        T.set_autocast_enabled("cpu", False)
        n = T.autocast_increment_nesting()
        out.append(T.autocast_decrement_nesting() == n - 1)
        return out
    same_outcome(prog)


def test_autocast_cpu_casts_matmul_like_ops():
    def prog(T):
        T.manual_seed(0)
        x = T.randn(4, 4, requires_grad=True)
        w = T.randn(4, 4, requires_grad=True)
        with T.autocast("cpu"):
            y = x @ w
            z = T.mm(x, w)
            l = T.nn.functional.linear(x, w)
            a = x + 1
            d = x.double() @ w.double()
            inside = [T.is_autocast_enabled("cpu"), T.get_autocast_dtype("cpu")]
        (y.float().sum() + z.float().sum()).backward()
        return [str(y.dtype), y.float(), str(z.dtype), z.float(), str(l.dtype), l.float(), a, d,
                inside[0], str(inside[1]), x.grad, w.grad, T.is_autocast_enabled("cpu"),
                y.grad_fn, l.grad_fn]
    same(prog, atol=1e-2, rtol=1e-2)

    def dtype16(T):
        x = T.ones(3, 3)
        with T.autocast("cpu", dtype=T.float16):
            return [str((x @ x).dtype), (x @ x)]
    same(dtype16)

    @chainrule.autocast("cpu")
    def decorated(a):
        return a @ a
    assert decorated(chainrule.ones(2, 2)).dtype is chainrule.bfloat16


def test_autocast_disabled_cases():
    for make in (lambda T: T.autocast("cuda"), lambda T: T.autocast("cpu", dtype=T.float32),
                 lambda T: T.autocast("cpu", dtype=T.float64),
                 lambda T: T.autocast("cpu", enabled=False), lambda T: T.amp.autocast("mps"),
                 lambda T: T.autocast("cuda", enabled=False)):
        def prog(T, make=make):
            x = T.ones(2, 2)
            with make(T) as ctx:
                return [str((x @ x).dtype), ctx._enabled, str(ctx.fast_dtype), ctx.device]
        same_outcome(prog)
    for bad in (lambda T: T.autocast(1), lambda T: T.autocast("foo"),
                lambda T: T.autocast("cpu")(3), lambda T: T.autocast("meta")):
        same_error(bad)


def test_custom_fwd_bwd():
    def prog(T):
        class Square(T.autograd.Function):
            @staticmethod
            @T.amp.custom_fwd(device_type="cpu", cast_inputs=T.float32)
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            @T.amp.custom_bwd(device_type="cpu")
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return 2 * x * g
        x = T.ones(3, requires_grad=True)
        with T.autocast("cpu"):
            y = Square.apply(x.bfloat16())
        y.sum().backward()
        return [y, x.grad]
    same(prog)
    same_error(lambda T: T.amp.custom_fwd(device_type=1))
    same_error(lambda T: T.amp.custom_bwd(device_type=1))


def test_grad_scaler():
    def train(T, device, steps=4, inf_at=2, **kwargs):
        T.manual_seed(0)
        model = T.nn.Linear(3, 1)
        opt = T.optim.SGD(model.parameters(), lr=0.1)
        scaler = T.amp.GradScaler(device, growth_interval=2, **kwargs)
        history = []
        for step in range(steps):
            opt.zero_grad()
            loss = model(T.ones(2, 3) * (step + 1)).sum()
            if step == inf_at:
                loss = loss * float("inf")
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            history.append([p.grad.clone() for p in model.parameters()])
            scaler.step(opt)
            scaler.update()
            history.append([scaler.get_scale(), scaler.state_dict()])
        return [history, [p.detach() for p in model.parameters()], scaler.is_enabled(),
                scaler.get_growth_factor(), scaler.get_backoff_factor(),
                scaler.get_growth_interval()]
    same_outcome(lambda T: train(T, "cpu"))
    same_outcome(lambda T: train(T, "cuda"))
    same_outcome(lambda T: train(T, "cpu", enabled=False))
    same_outcome(lambda T: train(T, "cpu", init_scale=4.0))
    for bad in (lambda T: T.amp.GradScaler("cpu", growth_factor=1.0),
                lambda T: T.amp.GradScaler("cpu", backoff_factor=1.0),
                lambda T: T.amp.GradScaler("cpu").update(),
                lambda T: T.amp.GradScaler("cpu").scale([T.ones(1), 3]),
                lambda T: T.amp.GradScaler("cpu").load_state_dict({})):
        same_error(bad)

    def twice(T):
        model = T.nn.Linear(2, 1)
        opt = T.optim.SGD(model.parameters(), lr=0.1)
        scaler = T.amp.GradScaler("cpu")
        scaler.scale(model(T.ones(1, 2)).sum()).backward()
        scaler.unscale_(opt)
        scaler.unscale_(opt)
    same_error(twice)
    same(lambda T: T.GradScaler is T.amp.GradScaler)


# ---- torch.compile and torch.compiler --------------------------------------------------------

def test_compile_runs_eagerly():
    def prog(T):
        def f(x):
            return (x * 2).sin()
        # PyTorch compiles for real with its default backend; backend="eager" is what
        # chainrule always does
        g = T.compile(f, backend="eager")
        h = T.compile(backend="eager")(f)
        k = T.compile(f, backend="eager", mode="max-autotune", fullgraph=True, dynamic=False)
        x = T.ones(3, requires_grad=True)
        y = g(x)
        y.sum().backward()
        return [y, h(x), k(x), x.grad, g.__name__, hasattr(g, "_torchdynamo_orig_callable")]
    same(prog)

    def module(T):
        T.manual_seed(0)
        m = T.nn.Linear(2, 2)
        c = T.compile(m, backend="eager")
        c.eval()
        out = [type(c).__name__, repr(c), list(c.state_dict()), c.weight is m.weight,
               c._orig_mod is m, m.training, c(T.ones(1, 2))]
        m.compile(backend="eager")
        out.append(m(T.ones(1, 2)))
        return out
    same(module)
    for bad in (lambda T: T.compile(lambda x: x, mode="foo"),
                lambda T: T.compile(lambda x: x, mode="default", options={}),
                lambda T: T.compile(1), lambda T: T.compile(lambda x: x, foo=1),
                lambda T: T.compile(lambda x: x, dynamic="x"),
                lambda T: T.compile()(None),
                lambda T: T.nn.Linear(1, 1).compile(mode="foo")):
        same_error(bad)
    ours = error_of(lambda: chainrule.compile(lambda x: x, backend="foo"))
    theirs = error_of(lambda: torch.compile(lambda x: x, backend="foo"))
    assert type(ours).__name__ == type(theirs).__name__ and str(ours) == str(theirs)
    assert isinstance(ours, RuntimeError)


def test_compiler_namespace():
    def prog(T):
        c = T.compiler
        f = c.disable(lambda x: x + 1)

        def in_graph(x):
            return x
        # (not a builtin: PyTorch would keep allowing `len` in graphs for the whole process,
        # and its torch.cond then fails in other tests)
        out = [c.is_compiling(), c.is_dynamo_compiling(), c.is_exporting(), c.reset(),
               c.list_backends(), c.list_backends(None), f(1), c.cudagraph_mark_step_begin(),
               c.allow_in_graph(in_graph) is in_graph, c.get_default_backend()]
        with c.set_stance("force_eager"):
            out.append("stance")
        return out
    same(prog)
    same_error(lambda T: T.compiler.disable().__enter__())
    same_error(lambda T: T.compiler.assume_constant_result(len))


# ---- torch-level settings and queries ----------------------------------------------------------

def test_determinism_settings():
    def prog(T):
        out = [T.are_deterministic_algorithms_enabled(),
               T.is_deterministic_algorithms_warn_only_enabled(),
               T.get_deterministic_debug_mode()]
        for mode in ("warn", "error", "default", 1, 2, 0):
            T.set_deterministic_debug_mode(mode)
            out.append((T.are_deterministic_algorithms_enabled(),
                        T.is_deterministic_algorithms_warn_only_enabled(),
                        T.get_deterministic_debug_mode()))
        T.use_deterministic_algorithms(True, warn_only=True)
        out.append(T.get_deterministic_debug_mode())
        T.use_deterministic_algorithms(False)
        return out
    same(prog)
    for bad in (lambda T: T.use_deterministic_algorithms(1),
                lambda T: T.set_deterministic_debug_mode("foo"),
                lambda T: T.set_deterministic_debug_mode(3),
                lambda T: T.set_deterministic_debug_mode(1.0)):
        same_error(bad)


def test_warn_always_and_matmul_precision():
    def prog(T):
        out = [T.is_warn_always_enabled()]
        T.set_warn_always(True)
        out.append(T.is_warn_always_enabled())
        T.set_warn_always(False)
        out.append(T.get_float32_matmul_precision())
        for p in ("high", "medium", "highest"):
            T.set_float32_matmul_precision(p)
            out.append((T.get_float32_matmul_precision(), T.backends.cuda.matmul.allow_tf32,
                        T.backends.cuda.matmul.fp32_precision,
                        T.backends.mkldnn.matmul.fp32_precision))
        T.backends.cuda.matmul.allow_tf32 = True
        out.append((T.get_float32_matmul_precision(), T.backends.cuda.matmul.fp32_precision))
        T.backends.cuda.matmul.allow_tf32 = False
        out.append(T.get_float32_matmul_precision())
        return out
    same(prog)
    same_error(lambda T: T.set_warn_always(1))
    same_warnings(lambda T: T.set_float32_matmul_precision("foo"))


def test_flush_denormal_and_threads():
    # NumPy cannot switch the CPU's flush-to-zero mode: chainrule answers "not supported"
    assert chainrule.set_flush_denormal(True) is False
    assert chainrule.set_flush_denormal(False) is False
    same_error(lambda T: T.set_flush_denormal(1))
    before = chainrule.get_num_threads()
    chainrule.set_num_threads(1)
    assert chainrule.get_num_threads() == 1
    # the `threads` extra (in the test extra): NumPy's BLAS pool itself is resized
    from threadpoolctl import threadpool_info
    assert all(p["num_threads"] == 1 for p in threadpool_info() if p["user_api"] == "blas")
    chainrule.set_num_threads(before)
    assert chainrule.get_num_threads() == before
    for bad in (lambda T: T.set_num_threads(0), lambda T: T.set_num_threads(-1),
                lambda T: T.set_num_threads(1.5), lambda T: T.set_num_interop_threads(0)):
        same_error(bad)
    assert chainrule.init_num_threads() is None
    assert chainrule.get_num_interop_threads() >= 1
    assert "get_num_threads() : " in chainrule.__config__.parallel_info()
    assert chainrule.__config__.show().startswith("chainrule ")


def test_module_level_names():
    def prog(T):
        x = T.ones(2)
        return [T.pi, T.e, T.inf, T.nan != T.nan, T.newaxis, T.typename(x),
                T.typename(T.ones(2, dtype=T.int64)), T.typename(T.ones(2, dtype=T.bool)),
                T.typename(T.ones(2, dtype=T.complex64)), T.typename(T.nn.Parameter(x)),
                T.typename(1), T.typename(int), T.typename("a"), T.typename(None),
                T.typename(len), T.typename(T.nn.Linear(1, 1)).replace("chainrule", "torch"),
                T.is_storage(x), T.is_storage(x.untyped_storage()),
                T.is_nonzero(T.tensor([1.0])), T.is_nonzero(T.tensor(0)),
                T.is_nonzero(T.tensor(float("nan"))), T.is_same_size(x, x),
                T.is_same_size(x, T.ones(3)), T.is_signed(x),
                T.is_signed(T.ones(1, dtype=T.uint8)), T.is_signed(T.ones(1, dtype=T.bool)),
                T.is_inference(x), T.is_tensor(x), T.is_tensor(1), T.numel(T.ones(2, 3)),
                T.compiled_with_cxx11_abi(), T.version.cuda, T.version.hip, T.version.debug,
                T.has_lapack, T.has_spectral]
    same(prog)
    for bad in (lambda T: T.is_nonzero(T.tensor([1.0, 2.0])), lambda T: T.is_nonzero(
            T.tensor([])), lambda T: T.is_nonzero(1), lambda T: T.is_same_size(T.ones(1), 1),
                lambda T: T.is_inference(1), lambda T: T.is_signed(1)):
        same_error(bad)
    assert chainrule.version.__version__ == chainrule.__version__
    assert chainrule.has_openmp is False and isinstance(chainrule.has_mkl, bool)


def test_set_default_tensor_type():
    def prog(T):
        T.set_default_tensor_type(T.DoubleTensor)
        a = T.ones(1).dtype
        T.set_default_tensor_type("torch.FloatTensor")
        return [a, T.ones(1).dtype]
    ours, theirs = (warnings_of(lambda: prog(chainrule)), warnings_of(lambda: prog(torch)))
    assert len(ours) <= 1 and len(theirs) <= 1     # PyTorch warns once per process
    same(prog)
    for bad in (lambda T: T.set_default_tensor_type("torch.IntTensor"),
                lambda T: T.set_default_tensor_type("torch.cuda.FloatTensor"),
                lambda T: T.set_default_tensor_type("foo"),
                lambda T: T.set_default_tensor_type(T.float64)):
        same_error(bad)


def test_remaining_names():
    # legacy CUDA types: constructing needs CUDA, as in PyTorch's CPU build
    for make in (lambda T: T.cuda.CharTensor(), lambda T: T.cuda.HalfTensor(),
                 lambda T: T.cuda.ShortTensor(), lambda T: T.cuda.BFloat16Storage(),
                 lambda T: T.cuda.BoolStorage(), lambda T: T.cuda.ByteStorage(),
                 lambda T: T.cuda.CharStorage(), lambda T: T.cuda.ComplexDoubleStorage(),
                 lambda T: T.cuda.ComplexFloatStorage(), lambda T: T.cuda.HalfStorage(),
                 lambda T: T.cuda.IntStorage(), lambda T: T.cuda.LongStorage(),
                 lambda T: T.cuda.ShortStorage(), lambda T: T.ones(2).ipu()):
        same_error(make)
    same(lambda T: [str(T.cuda.Device).replace("chainrule", "torch").count("torch.device"),
                    issubclass(T.mtia.DeferredMtiaCallError, Exception), T.version.rocm,
                    isinstance(T.version.git_version, str),
                    T.backends.opt_einsum.strategy if not T.backends.opt_einsum.is_available()
                    else None])
    same_error(lambda T: T.backends.cuda.blas_workspace_size())
    same_error(lambda T: T.backends.cuda.enable_math_sdp(1))
    same_error(lambda T: T.backends.cuda.enable_mem_efficient_sdp(1))
    same_error(lambda T: T.backends.cuda.enable_cudnn_sdp(1))

    def sdp_flags(T):
        b = T.backends.cuda
        b.allow_fp16_bf16_reduction_math_sdp(True)
        out = [b.fp16_bf16_reduction_math_sdp_allowed(), list(b.SDPBackend.__members__)]
        b.allow_fp16_bf16_reduction_math_sdp(False)
        return out
    same(sdp_flags)
    same(lambda T: [type(T.backends.cuda.matmul).__name__,
                    type(T.backends.cuda.cufft_plan_cache).__name__,
                    T.backends.cuda.cuFFTPlanCache.__name__,
                    isinstance(T.backends.cuda.matmul, T.backends.cuda.cuBLASModule),
                    isinstance(T.backends.cuda.cufft_plan_cache,
                               T.backends.cuda.cuFFTPlanCacheManager),
                    isinstance(T.backends.cudnn, T.backends.PropModule),
                    type(vars(type(T.backends.cudnn))["enabled"]) is T.backends.ContextProp])
    assert chainrule.backends.opt_einsum.get_opt_einsum() is None
    # compiler extras
    m = chainrule.nn.Linear(1, 1)
    assert isinstance(chainrule.compile(m), chainrule.compiler.OptimizedModule)
    assert chainrule.compiler.nested_compile_region(len) is len
    chainrule.compiler.set_default_backend("eager")
    assert chainrule.compiler.get_default_backend() == "eager"
    chainrule.compiler.set_default_backend(None)
    assert chainrule.compiler.get_default_backend() == torch.compiler.get_default_backend()
    # profiler and benchmark extras
    assert chainrule.profiler.kineto_available() is False
    assert repr(chainrule.profiler.DeviceType.CPU) == repr(torch.profiler.DeviceType.CPU)
    assert chainrule.autograd.profiler.DeviceType is chainrule.profiler.DeviceType
    assert chainrule.autograd.profiler.kineto_available() is False
    assert (chainrule.autograd.profiler.MEMORY_EVENT_NAME,
            chainrule.autograd.profiler.OUT_OF_MEMORY_EVENT_NAME) == (
        torch.autograd.profiler.MEMORY_EVENT_NAME, torch.autograd.profiler.OUT_OF_MEMORY_EVENT_NAME)
    assert isinstance(chainrule.autograd.profiler.FunctionEventAvg(), object)
    import time
    assert abs(chainrule.utils.benchmark.timer() - time.perf_counter()) < 1
    with chainrule.utils.benchmark.set_torch_threads(1):
        assert chainrule.get_num_threads() == 1
    # storages and autocast setters at the top level
    same(lambda T: [T.UntypedStorage(3).nbytes(), T.TypedStorage([1.0, 2.0],
                                                                 dtype=T.float64).tolist()])

    def legacy_autocast(T):
        out = []
        T.set_autocast_ipu_enabled(True)
        out.append(T.is_autocast_ipu_enabled())
        T.set_autocast_ipu_enabled(False)
        T.set_autocast_ipu_dtype(T.bfloat16)
        out.append(str(T.get_autocast_ipu_dtype()))
        T.set_autocast_ipu_dtype(T.float16)
        T.set_autocast_xla_dtype(T.float16)
        out.append(str(T.get_autocast_xla_dtype()))
        T.set_autocast_xla_dtype(T.bfloat16)
        return out
    same_outcome(legacy_autocast)


def test_classproperty():
    def prog(T):
        class A:
            @T.classproperty
            def name(cls):
                return cls.__name__ + "!"

            @T.classproperty
            @staticmethod
            def answer():
                return 42

        class B(A):
            pass
        return [A.name, B.name, A().name, A.answer, B().answer]
    same(prog)


def test_index_factories_on_devices():
    for make in (lambda T: T.tril_indices(3, 3, device="cuda"),
                 lambda T: T.triu_indices(3, 3, device=T.device("cuda", 1)),
                 lambda T: T.tril_indices(3, 3, pin_memory=True)):
        same_error(make)
    same(lambda T: [T.tril_indices(3, 3, device="cpu"), T.triu_indices(2, 3, 1, device="cpu")])


def test_submodule_namespaces():
    for make in (lambda T: T.xpu.memory.memory_allocated(), lambda T: T.xpu.memory.empty_cache(),
                 lambda T: T.xpu.random.seed(), lambda T: T.xpu.random.get_rng_state_all(),
                 lambda T: T.xpu.streams.Stream(), lambda T: T.xpu.graphs.graph_pool_handle(),
                 lambda T: T.xpu.memory.mem_get_info(), lambda T: T.mtia.memory.memory_stats(),
                 lambda T: T.mtia.memory.memory_allocated(), lambda T: T.accelerator.memory.
                 memory_allocated(), lambda T: T.accelerator.graphs.Graph(),
                 lambda T: T.cuda.amp.common.amp_definitely_not_available(),
                 lambda T: T.profiler.is_fbcode()):
        same_outcome(make)
    same_outcome(lambda T: T.cuda.amp.grad_scaler.GradScaler().is_enabled())
    same_outcome(lambda T: T.cuda.amp.autocast_mode.autocast().__enter__()._enabled)


# ---- queries and removed functions ------------------------------------------------------

def test_tensor_queries_as_methods_and_functions():
    def prog(T):
        x, i = T.tensor([1.0, 2.0]), T.tensor([3], dtype=T.uint8)
        return (x.is_same_size(x[:1]), x.is_same_size(x * 2), x.is_signed(), i.is_signed(),
                i.is_nonzero(), T.tensor([0.0]).is_nonzero(), x.is_distributed(),
                T.is_distributed(x), T.get_device(x), x.to_dense() is x,
                x.to_dense(T.float64), x.to_dense(masked_grad=True) is x)
    same(prog)
    same_error(lambda T: T.tensor([1.0, 2.0]).is_nonzero())
    same_error(lambda T: T.get_device(3))


def test_removed_functions_raise_pytorchs_errors():
    same_error(lambda T: T.solve(T.eye(2), T.eye(2)))
    same_error(lambda T: T.eye(2).solve(T.eye(2)))
    same_error(lambda T: T.ones(2).reinforce(T.ones(2)))


def test_set_anomaly_enabled():
    def prog(T):
        T.set_anomaly_enabled(True, False)
        state = (T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled())
        T.set_anomaly_enabled(False)
        return state + (T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled())
    same(prog)


def test_storage_types_and_version_names():
    def prog(T):
        v = T.torch_version.TorchVersion("2.13.0+cpu")
        return (T.Storage.__name__, T.storage.__all__, sorted(T.types.__all__),
                issubclass(T.FatalError, Exception), isinstance(T.StorageBase, type),
                v >= "2.0", v < (3, 0), v == "2.13", v > (2, 13, 0), str(v),
                T.__version__ < (1000, 0))
    same(prog)

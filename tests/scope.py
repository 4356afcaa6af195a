"""What of PyTorch's public surface chainrule leaves out, and why: the scope file.

tests/test_coverage.py walks `dir()` of each PyTorch namespace below and fails on a public
name that chainrule neither has nor lists here. Two lists:

OUT_OF_SCOPE: groups of names chainrule will not have, each with its reason (fnmatch
    patterns). Everything else of PyTorch's CPU surface is in scope.
PENDING: names in scope that are not built yet, each group under the issue that builds
    it. The coverage test fails when a pending name appears in chainrule (so the list only
    shrinks); an issue is done when its group is empty.
"""

# torch.nn.attention's submodules load on first import: load them so the walk sees the same
# names whatever ran before
import torch.nn.attention.bias  # noqa: E402,F401
import torch.nn.attention.experimental  # noqa: E402,F401
import torch.nn.attention.flex_attention  # noqa: E402,F401
import torch.nn.attention.varlen  # noqa: E402,F401
# likewise torch.distributed's, which other torch modules import on their own
import torch.distributed.algorithms.ddp_comm_hooks  # noqa: E402,F401
import torch.distributed.fsdp  # noqa: E402,F401
import torch.distributed.nn  # noqa: E402,F401
import torch.distributed.tensor  # noqa: E402,F401

# ---- reasons ------------------------------------------------------------------------------

_CUDA = ("CUDA/ROCm/XPU/Vulkan devices and their kernels: chainrule runs on the CPU only (the "
         "CPU-build answers of torch.cuda & co. are present)")
_BACKENDS = ("cuDNN/MIOpen/oneDNN/FBGEMM backend kernels: PyTorch's own accelerated "
             "implementations of ops chainrule has, not API of their own")
_QUANT = "quantization: quantized dtypes, tensors and kernels"
_SPARSE = "sparse and nested layouts: chainrule tensors are dense (strided) NumPy arrays"
_JIT = ("TorchScript, FX, export (ONNX too), torch.package, the dispatcher and DSL kernel "
        "overrides: JIT/compile internals (torch.compile itself runs the original code, as "
        "backend='eager')")
_LEAKED = ("names torch's modules import from elsewhere (typing, torch._utils, docstring "
           "templates); not API")
_SYM = ("symbolic shapes (SymInt, sym_constrain_range...) exist for tracing compilers: "
        "JIT/compile internals")
_DISPATCHER = ("the C++ dispatcher's registration API (Library, define, impl by dispatch key, "
               "__torch_dispatch__ routing): chainrule has no dispatcher; Python custom ops "
               "(torch.library.custom_op) are present")
_DATAPIPES = ("DataPipes: the legacy composable-loader API PyTorch deprecated and no longer "
              "develops (moved to torchdata); Dataset, Sampler and DataLoader are present")
_TRITON = "Triton GPU kernels (triton_op, wrap_triton): chainrule runs on the CPU only"
_DIST_MODEL = ("model-parallel and RPC systems of torch.distributed (FSDP, DTensor/tensor "
               "parallel and device meshes, RPC, distributed autograd, remote modules): "
               "chainrule's distributed is data-parallel collectives on MPI")
_DIST_STORE = ("c10d's rendezvous stores and init_method URLs (TCPStore, FileStore, ...): under "
               "MPI the launcher (mpiexec) does the rendezvous")
_DIST_CPP = ("c10d's C++ backend internals (the Reducer and its built-in comm-hook types, "
             "per-collective *Options structs, ProcessGroupGloo, BackendConfig, its C++ "
             "logger): chainrule's process groups and DDP reducer are its own, on MPI")
_DIST_CUDA_PARALLEL = ("single-process multi-GPU helpers of DataParallel (replicate, scatter, "
                       "gather, parallel_apply, comm): they move tensors between CUDA devices")
_DIST_OPTIM_OVERLAP = ("DDP's optimizer overlap (optimizer_overlap_hooks): no public API (its "
                      "__all__ is empty); it steps torch.distributed.optim's functional "
                      "optimizers inside the hook, and chainrule has no torch.distributed.optim")
_CALLGRIND = ("instruction counting through PyTorch's C++ Callgrind bindings: JIT/compile "
              "internals (it compiles C++ against libtorch)")


OUT_OF_SCOPE = {
    "torch": [
        (_LEAKED, ["TYPE_CHECKING", "USE_GLOBAL_DEPS", "USE_RTLD_GLOBAL_WITH_LIBTORCH"]),
        (_CUDA, ["cudnn_is_acceptable", "is_vulkan_available", "batch_norm_stats",
                 "batch_norm_elemt", "batch_norm_gather_stats",
                 "batch_norm_gather_stats_with_counts", "batch_norm_backward_reduce",
                 "batch_norm_backward_elemt"]),
        (_BACKENDS, ["cudnn_*", "miopen_*", "mkldnn_*", "fbgemm_*"]),
        (_QUANT, ["quantize_per_tensor", "quantize_per_tensor_dynamic", "quantize_per_channel",
                  "dequantize", "q_per_channel_axis", "q_per_channel_scales",
                  "q_per_channel_zero_points", "q_scale", "q_zero_point", "int_repr",
                  "fake_quantize_per_channel_affine", "fake_quantize_per_tensor_affine",
                  "fused_moving_avg_obs_fake_quant", "choose_qparams_optimized",
                  "quantized_*", "empty_quantized", "qscheme", "per_channel_affine",
                  "per_channel_affine_float_qparams", "per_channel_symmetric",
                  "per_tensor_affine", "per_tensor_symmetric", "ao", "quantization",
                  "QInt32Storage", "QInt8Storage", "QUInt2x4Storage", "QUInt4x2Storage",
                  "QUInt8Storage"]),
        (_SPARSE, ["sparse", "sparse_*_tensor", "sparse_compressed_tensor", "smm", "spmm", "hsmm", "dsmm", "saddmm", "sspaddmm",
                   "hspmm", "ccol_indices_copy", "col_indices_copy", "crow_indices_copy",
                   "row_indices_copy", "indices_copy", "values_copy", "resize_as_sparse_",
                   "nested", "native_norm"]),
        (_JIT, ["jit", "fx", "export", "onnx", "package", "cpp", "classes",
                "AliasDb", "AnyType", "Argument", "ArgumentSpec", "AwaitType",
                "Block", "BoolType", "CallStack", "Capsule", "ClassType", "Code",
                "CompilationUnit", "CompleteArgumentSpec", "ComplexType", "ConcreteModuleType",
                "ConcreteModuleTypeBuilder", "DeepCopyMemoTable",
                "DeserializationStorageContext", "DeviceObjType", "DictType", "DispatchKey",
                "DispatchKeySet", "EnumType", "ErrorReport", "ExcludeDispatchKeyGuard",
                "ExecutionPlan", "FileCheck", "FloatType", "FunctionSchema", "FutureType",
                "Gradient", "Graph", "GraphExecutorState", "IODescriptor", "InferredType",
                "IntType", "InterfaceType", "JITException", "ListType", "LiteScriptModule",
                "LockingLogger", "LoggerBase", "Node", "NoneType", "NoopLogger", "NumberType",
                "OperatorInfo", "OptionalType", "PRIVATE_OPS", "PyObjectType",
                "PyTorchFileReader", "PyTorchFileWriter", "RRefType", "Script*",
                "SerializationStorageContext", "StaticModule", "StreamObjType", "StringType",
                "SymBoolType", "SymIntType", "Tag", "TensorType", "ThroughputBenchmark",
                "BenchmarkConfig", "BenchmarkExecutionStats", "TracingState", "TupleType",
                "Type", "UnionType", "Use", "Value", "ModuleDict", "ParameterDict",
                "BufferDict", "import_ir_module", "import_ir_module_from_buffer", "parse_ir",
                "parse_schema", "parse_type_comment", "merge_type_from_type_comment",
                "unify_type_list", "DisableTorchFunction", "DisableTorchFunctionSubclass",
                "overrides", "monitor", "AggregationType", "AVG", "SUM",
                "profiler_allow_cudagraph_cupti_lazy_reinit_cuda12", "get_file_path",
                "prepare_multiprocessing_environment"]),
        (_SYM, ["SymBool", "SymFloat", "SymInt", "sym_constrain_range",
                "sym_constrain_range_for_size"]),
    ],
    "torch.Tensor": [
        (_QUANT, ["dequantize", "int_repr", "q_per_channel_axis", "q_per_channel_scales",
                  "q_per_channel_zero_points", "q_scale", "q_zero_point", "qscheme"]),
        (_SPARSE, ["ccol_indices", "coalesce", "col_indices", "crow_indices", "dense_dim",
                   "indices", "is_coalesced", "row_indices", "smm", "sparse_dim",
                   "sparse_mask", "sparse_resize_", "sparse_resize_and_clear_", "sspaddmm",
                   "to_sparse", "to_sparse_*", "values", "resize_as_sparse_",
                   "to_padded_tensor"]),
        (_BACKENDS, ["to_mkldnn"]),
        ("first-class dimensions: Tensor.index(positions, dims) binds dims to Dim objects, "
         "which only the top-level `functorch.dim` package (shipped beside torch, not under "
         "torch.*) creates, so a program running on chainrule has no Dim to pass",
         ["index"]),
    ],
    "torch.testing": [
        (_JIT, ["FileCheck"]),
    ],
    "torch.utils.benchmark": [
        (_CALLGRIND, ["CallgrindStats", "CopyIfCallgrind", "FunctionCount", "FunctionCounts"]),
    ],
    "torch.profiler": [
        (_LEAKED, ["Optimizer"]),
    ],
    "torch.cuda": [
        (_LEAKED, ["TYPE_CHECKING", "classproperty"]),
        (_CUDA, ["CUDAPluggableAllocator", "DEVICE_REQUIREMENT", "GreenContext",
                 "PYTORCH_RELEASES_CODE_CC", "gds", "green_contexts", "jiterator",
                 "make_graphed_callables", "nccl", "profiler", "sparse", "tunable"]),
    ],
    "torch.backends": [
        (_JIT, ["python_native"]),
    ],
    "torch.accelerator": [],
    "torch.fft": [
        (_LEAKED, ["common_args", "factory_common_args"]),
    ],
    "torch.special": [],
    "torch.autograd.forward_ad": [],
    "torch.autograd.functional": [],
    "torch.func": [],
    "torch.autograd": [
        (_LEAKED, ["handle_torch_function", "has_torch_function"]),
    ],
    "torch.autograd.graph": [
        (_LEAKED, ["Variable", "TorchDispatchMode", "TYPE_CHECKING", "log"]),
    ],
    "torch.utils.checkpoint": [
        (_LEAKED, ["SavedTensor", "TYPE_CHECKING", "annotations", "tree_map"]),
        (_DISPATCHER + "; selective checkpointing's policies decide per aten OpOverload seen "
         "by a dispatch mode, and debug logs come from one",
         ["create_selective_checkpoint_contexts", "SAC_IGNORED_OPS", "LoggingTensorMode",
          "TorchDispatchMode", "capture_logs"]),
        (_JIT, ["fx_traceback"]),
    ],
    "torch.optim": [],
    "torch.optim.lr_scheduler": [
        (_LEAKED, ["TYPE_CHECKING", "annotations", "inf"]),
    ],
    "torch.optim.swa_utils": [
        (_LEAKED, ["PARAM_LIST", "TYPE_CHECKING", "Tensor", "annotations"]),
    ],
    "torch.linalg": [
        (_LEAKED, ["common_notes"]),
    ],
    "torch.distributions": [],
    "torch.distributions.constraints": [],
    "torch.distributions.transforms": [],
    "torch.utils.data": [
        (_DATAPIPES, ["DFIterDataPipe", "DataChunk", "IterDataPipe", "MapDataPipe",
                      "argument_validation", "datapipes", "functional_datapipe", "graph",
                      "graph_settings", "guaranteed_datapipes_determinism", "non_deterministic",
                      "runtime_validation", "runtime_validation_disabled"]),
    ],
    "torch.library": [
        (_DISPATCHER, ["Library", "define", "impl", "fallthrough_kernel", "get_kernel",
                       "register_torch_dispatch", "EffectType", "NAMELESS_SCHEMA"]),
        (_TRITON, ["triton_op", "wrap_triton"]),
        (_SYM, ["get_ctx"]),
        (_LEAKED, ["device_types_t", "deprecated", "TYPE_CHECKING"]),
    ],
    "torch.nn": [
        (_QUANT, ["intrinsic", "qat", "quantizable", "quantized"]),
    ],
    "torch.nn.functional": [
        (_LEAKED, ["BroadcastingList1", "BroadcastingList2", "BroadcastingList3",
                   "TYPE_CHECKING", "Tensor", "boolean_dispatch", "handle_torch_function",
                   "has_torch_function", "has_torch_function_unary",
                   "has_torch_function_variadic", "reproducibility_notes",
                   "sparse_support_notes", "tf32_notes"]),
        (_CUDA, ["scaled_grouped_mm"]),
    ],
    "torch.nn.init": [
        (_LEAKED, ["Tensor"]),
    ],
    "torch.nn.utils": [],
    "torch.nn.utils.rnn": [
        (_LEAKED, ["copy_method_params"]),
    ],
    "torch.nn.utils.parametrize": [
        (_LEAKED, ["Module", "ModuleDict", "ModuleList", "OpaqueBase", "Parameter", "Tensor",
                   "deepcopy", "get_swap_module_params_on_conversion",
                   "is_opaque_reference_type", "is_traceable_wrapper_subclass"]),
    ],
    "torch.nn.utils.parametrizations": [
        (_LEAKED, ["F", "Module", "Tensor", "parametrize"]),
    ],
    "torch.nn.utils.prune": [],
    "torch.nn.utils.stateless": [
        (_LEAKED, ["NamedMemberAccessor", "Tensor"]),
    ],
    "torch.distributed": [
        (_LEAKED, ["timedelta", "log"]),
        (_DIST_MODEL, ["fsdp", "tensor", "DeviceMesh", "device_mesh", "init_device_mesh",
                       "rpc", "autograd", "remote_device", "nn"]),
        (_DIST_STORE, ["Store", "TCPStore", "FileStore", "HashStore", "PrefixStore",
                       "rendezvous", "register_rendezvous_handler"]),
        (_DIST_CPP, ["Reducer", "BuiltinCommHookType", "*Options",
                     "ProcessGroupGloo", "BackendConfig", "get_backend_config", "Logger",
                     "c10d_logger", "logging_handlers"]),
    ],
    "torch.distributed.algorithms": [],
    "torch.distributed.algorithms.join": [],
    "torch.distributed.algorithms.ddp_comm_hooks": [
        (_LEAKED, ["dist"]),
        (_DIST_OPTIM_OVERLAP, ["optimizer_overlap", "optimizer_overlap_hooks"]),
    ],
    "torch.distributed.algorithms.ddp_comm_hooks.powerSGD_hook": [
        (_LEAKED, ["not_none"]),
    ],
    "torch.distributed.algorithms.ddp_comm_hooks.quantization_hooks": [
        (_LEAKED, ["nn"]),
    ],
    "torch.distributed.algorithms.ddp_comm_hooks.default_hooks": [],
    "torch.distributed.algorithms.ddp_comm_hooks.debugging_hooks": [
        (_LEAKED, ["GradBucket"]),
    ],
    "torch.distributed.config": [
        (_LEAKED, ["Config", "install_config_module"]),
    ],
    "torch.distributed.constants": [],
    "torch.distributed.utils": [
        (_LEAKED, ["PackedSequence", "Q", "R", "S", "T", "dist", "nn"]),
    ],
    "torch.nn.parallel": [
        (_DIST_CUDA_PARALLEL, ["comm", "gather", "parallel_apply", "replicate", "scatter",
                               "scatter_gather"]),
    ],
    "torch.nn.attention": [
        (_CUDA, ["varlen"]),
    ],
    "torch.nn.attention.bias": [
        (_LEAKED, ["F", "can_use_efficient_attention", "can_use_flash_attention",
                   "is_flash_attention_available"]),
    ],
    "torch.nn.attention.flex_attention": [
        (_LEAKED, ["GetAttrKey", "TreeSpec", "annotations", "tree_flatten", "tree_map_only",
                   "tree_unflatten"]),
        (_JIT, ["flex_attention_hop", "setup_compilation_env"]),
    ],
    "torch.nn.attention.experimental": [],
}

# ---- not built yet --------------------------------------------------------------------------

# name -> [(the issue that builds them, names)]: nothing is pending now
PENDING = {}

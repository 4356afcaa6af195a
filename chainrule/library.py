"""torch.library's Python custom operators: `custom_op` turns a function into an operator
`torch.ops.<namespace>.<name>` with a schema inferred from its annotations, and
`register_autograd` / `register_kernel` / `register_fake` / `register_vmap` /
`register_autocast` attach behaviour to it, as PyTorch's do.

chainrule has no C++ dispatcher, so an operator here is its CustomOpDef: calling it checks
the kernel's outputs (no aliasing of inputs), bumps the version of mutated arguments, and,
when an input requires grad, records the node PyTorch's generated autograd.Function records
(`GeneratedBackwardFor_<ns>_<name>_defaultBackward`); under vmap its register_vmap rule runs
first, as PyTorch's batching key comes before autograd. Fake kernels are kept and checked by
`opcheck` (on real tensors: there are no fake tensors to trace with). The dispatcher's
low-level registration API (Library, define, impl by dispatch key) is out of scope.
"""
import collections.abc
import contextlib
import inspect
import logging
import typing
from types import GenericAlias

from ._device import device
from ._dtype import dtype
from ._tensor import Tensor
from .autograd import grad_mode
from .autograd.function import Function
from .ops import registry
from .types import Number

__all__ = ["custom_op", "CustomOpDef", "OpOverload", "register_autograd", "register_fake",
           "register_kernel", "register_vmap", "register_autocast", "impl_abstract",
           "infer_schema", "opcheck"]

log = logging.getLogger(__name__)

_OPDEFS = {}            # "ns::name" -> CustomOpDef, as torch._library.custom_ops.OPDEFS


# ---- schema inference ---------------------------------------------------------------------

def _param_types():
    """annotation -> schema type, for every form PyTorch accepts (T, Optional[T], the four
    spellings of a sequence of T, and their optional forms where PyTorch has them)."""
    table = {}
    for base, name, seq, seq_of_opt, opt_seq in [
            (Tensor, "Tensor", True, True, False), (int, "SymInt", True, False, True),
            (float, "float", True, False, True), (bool, "bool", True, False, True),
            (str, "str", False, False, False), (Number, "Scalar", True, False, False),
            (dtype, "ScalarType", False, False, False), (device, "Device", False, False, False)]:
        def seqs(t):
            return (typing.Sequence[t], typing.List[t],  # noqa: UP006
                    GenericAlias(collections.abc.Sequence, (t,)), GenericAlias(list, (t,)))
        table[base] = name
        table[typing.Optional[base]] = f"{name}?"
        if seq:
            table.update((s, f"{name}[]") for s in seqs(base))
        if seq_of_opt:
            table.update((s, f"{name}?[]") for s in seqs(typing.Optional[base]))
        if opt_seq:
            table.update((typing.Optional[s], f"{name}[]?") for s in seqs(base))
    return table


_PARAM_TYPES = _param_types()
_RETURN_TYPES = {Tensor: "Tensor", typing.List[Tensor]: "Tensor[]",  # noqa: UP006
                 list[Tensor]: "Tensor[]", int: "SymInt", float: "float", bool: "bool",
                 Number: "Scalar"}


def infer_schema(prototype_function, /, *, mutates_args, op_name=None, tags=()):
    """The operator schema of a function from its type annotations, as PyTorch infers it:
    `(Tensor x, *, float y=1.0) -> Tensor`; mutated tensors are annotated `Tensor(a<i>!)`."""
    sig = inspect.signature(prototype_function)
    fn_globals = getattr(prototype_function, "__globals__", {})

    def error(what):
        raise ValueError(f"infer_schema(func): {what} Got func with signature {sig})")

    def resolve(ty):
        if isinstance(ty, str):
            try:
                return eval(ty, fn_globals)    # a string annotation, as PyTorch evaluates it
            except Exception as e:
                error(f"Unsupported type annotation {ty}. It is not a type. "
                      f"({type(e).__name__}: {e})")
        return ty

    if not isinstance(mutates_args, str):
        mutates_args = tuple(mutates_args)
    elif mutates_args != "unknown":
        raise ValueError("mutates_args must either be a sequence of the names of the arguments "
                         "that are mutated or the string 'unknown'. ")
    params, seen, kw_only = [], set(), False
    for idx, (name, param) in enumerate(sig.parameters.items()):
        if param.kind not in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
            error("We do not support positional-only args, varargs, or varkwargs.")
        if param.kind == param.KEYWORD_ONLY and not kw_only:
            params.append("*")
            kw_only = True
        if param.annotation is inspect.Parameter.empty:
            error(f"Parameter {name} must have a type annotation.")
        ty = _PARAM_TYPES.get(resolve(param.annotation))
        if ty is None:
            error(f"Parameter {name} has unsupported type {param.annotation}. "
                  f"The valid types are: {_PARAM_TYPES.keys()}.")
        mutated = name in mutates_args if mutates_args != "unknown" else ty.startswith("Tensor")
        if mutated:
            if not ty.startswith("Tensor"):
                error(f"Parameter {name} is in mutable_args but only Tensors or collections of "
                      "Tensors can be mutated")
            ty = f"Tensor(a{idx}!){ty[len('Tensor'):]}"
        seen.add(name)
        if param.default is inspect.Parameter.empty:
            params.append(f"{ty} {name}")
            continue
        default = param.default
        if default is None or isinstance(default, (int, float, bool)):
            text = str(default)
        elif isinstance(default, (str, device)):
            text = f'"{default}"'
        elif isinstance(default, dtype):
            text = str(default)[len("torch."):]
        else:
            error(f"Parameter {name} has an unsupported default value type {type(default)}. "
                  "Please file an issue on GitHub so we can prioritize this.")
        params.append(f"{ty} {name}={text}")
    if mutates_args != "unknown" and set(mutates_args) - seen:
        error(f"{set(mutates_args) - seen} in mutates_args were not found in the custom op's "
              "signature. mutates_args should contain the names of all args that the custom op "
              "mutates, or just the string 'unknown' if you don't know.")
    ret = _return_schema(resolve(sig.return_annotation), error)
    head = "" if op_name is None else op_name
    return f"{head}({', '.join(params)}) -> {ret}"


def _return_schema(annotation, error):
    if annotation is None:
        return "()"
    if annotation is inspect.Parameter.empty:
        error("No return type annotation was provided. Please add one.")
    if typing.get_origin(annotation) is not tuple:
        if annotation not in _RETURN_TYPES:
            error(f"Return has unsupported type {annotation}. "
                  f"The valid types are: {_RETURN_TYPES}.")
        return _RETURN_TYPES[annotation]
    args = typing.get_args(annotation)
    if any(a not in _RETURN_TYPES for a in args):
        error(f"Return has unsupported type {annotation}. The valid types are: {_RETURN_TYPES}.")
    inner = ", ".join(_RETURN_TYPES[a] for a in args)
    return f"(({inner}))" if len(args) == 1 else f"({inner})"


# ---- operators ----------------------------------------------------------------------------

def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    """Wrap `fn` into the custom operator `name` ("namespace::opname"), as a decorator or a
    call; `mutates_args` names the tensor arguments it writes to (or "unknown")."""
    def inner(fn):
        schema_str = infer_schema(fn, mutates_args=mutates_args) if schema is None else schema
        namespace, opname = name.split("::")
        op = CustomOpDef(namespace, opname, schema_str, fn, mutates_args)
        op.register_kernel(device_types)(fn)
        return op
    return inner if fn is None else inner(fn)


class CustomOpDef:
    """A custom operator made by custom_op: callable, with registration methods."""

    def __init__(self, namespace, name, schema, fn, mutates_args=()):
        self._namespace, self._name, self._schema = namespace, name, schema
        self._init_fn = fn
        self._signature = inspect.signature(fn)
        if mutates_args == "unknown":
            mutates_args = [n for n, p in self._signature.parameters.items()
                            if "Tensor" in str(p.annotation)]
        self._mutated = tuple(mutates_args)
        self._backend_fns = {}
        self._abstract_fn = None
        self._setup_context_fn = None
        self._backward_fn = None
        self._vmap_fn = None
        self._autocast_dtype = {}
        self._disabled_kernel = set()
        self._opoverload = OpOverload(self)
        self._autograd_cls = _generated_function(self)
        _OPDEFS[self._qualname] = self
        _namespace(namespace)._ops[name] = OpOverloadPacket(self._opoverload)

    @property
    def _qualname(self):
        return f"{self._namespace}::{self._name}"

    def __repr__(self):
        return f"<CustomOpDef({self._qualname})>"

    def register_kernel(self, device_types, fn=None, /):
        """Use `fn` as the kernel for `device_types` ("cpu", a list, or None for all)."""
        def inner(fn):
            kinds = [device_types] if device_types is None or isinstance(device_types, str) \
                else list(device_types)
            for kind in kinds:
                self._backend_fns[kind] = fn
            return fn
        return inner if fn is None else inner(fn)

    def register_fake(self, fn, /):
        """Keep `fn` as the operator's FakeTensor kernel (checked by opcheck)."""
        self._abstract_fn = fn
        return fn

    def register_autograd(self, backward, /, *, setup_context=None):
        """Make the operator differentiable: `setup_context(ctx, inputs, output)` saves what
        `backward(ctx, *grads)` needs; backward returns one gradient per input."""
        if self._mutated:
            raise RuntimeError(
                f"Cannot register autograd formula for non-functional operator {self} with "
                f"schema {self._name}{self._schema}. Please create a functional operator and "
                "register an autograd formula for that.")
        self._backward_fn = backward
        self._setup_context_fn = setup_context

    def register_vmap(self, func=None, /):
        """Use `func(info, in_dims, *args, **kwargs)` -> (output, out_dims) as the operator's
        batching rule under vmap (func._vmap.custom_op_rule)."""
        def inner(func):
            self._vmap_fn = func
        return inner if func is None else inner(func)

    def register_autocast(self, device_type, cast_inputs):
        """Inside an autocast region of `device_type`, floating-point tensor arguments are
        cast to `cast_inputs` before the kernel runs (with autocast off inside it)."""
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if device_type not in ("cpu", "cuda"):
            raise ValueError(f"Unknown device type: {device_type}")
        self._autocast_dtype[device_type] = cast_inputs

    @contextlib.contextmanager
    def set_kernel_enabled(self, device_type, enabled=True):
        """Within the block, the kernel for `device_type` is (re-)enabled or disabled (the
        operator's original function runs instead)."""
        action = "enable" if enabled else "disable"
        was_disabled = device_type in self._disabled_kernel
        if device_type not in self._backend_fns:
            log.warning("Attempted to %s kernel for %s but no kernel was registered for this "
                        "device type.", action, device_type)
        if not enabled:
            if was_disabled:
                log.warning("Attempted to disable kernel for %s but it was already disabled.",
                            device_type)
            else:
                self._disabled_kernel.add(device_type)
        elif not was_disabled:
            log.warning("Attempted to enable kernel for  %s but it was already enabled.",
                        device_type)
        else:
            self._disabled_kernel.remove(device_type)
        try:
            yield
        finally:
            if was_disabled:
                self._disabled_kernel.add(device_type)
            else:
                self._disabled_kernel.discard(device_type)

    def __call__(self, *args, **kwargs):
        return self._opoverload(*args, **kwargs)

    # -- running --

    def _kernel(self):
        for kind in ("cpu", None):
            if kind in self._backend_fns:
                return (self._init_fn if kind in self._disabled_kernel
                        else self._backend_fns[kind])
        raise NotImplementedError(
            f"{self._namespace}::{self._name}: no kernel registered for the CPU "
            "(register one with register_kernel('cpu'))")

    def _run(self, args, kwargs):
        """The kernel below autograd: grad mode off, outputs checked for aliasing, mutated
        arguments' versions bumped."""
        with grad_mode.no_grad():
            result = self._kernel()(*args, **kwargs)
        if self._mutated:
            bound = self._signature.bind(*args, **kwargs)
            for name in self._mutated:
                _bump(bound.arguments.get(name))
        else:
            _check_aliasing(self, args, kwargs, result)
        return result

    def _split(self, args, kwargs):
        """The arguments given, as (positional, keyword-only)."""
        bound = self._signature.bind(*args, **kwargs)
        params = self._signature.parameters
        positional = tuple(v for n, v in bound.arguments.items()
                           if params[n].kind != inspect.Parameter.KEYWORD_ONLY)
        keyword = {n: v for n, v in bound.arguments.items()
                   if params[n].kind == inspect.Parameter.KEYWORD_ONLY}
        return positional, keyword

    def _apply(self, args, kwargs):
        if registry.VMAP is not None and self._vmap_fn is not None:
            # a batched vmap runs: the operator's batching rule comes first, as PyTorch's
            # dispatcher puts vmap's key above autocast and autograd
            from .func._vmap import custom_op_rule
            positional, keyword = self._split(args, kwargs)
            out = custom_op_rule(self._vmap_fn, positional, keyword)
            if out is not None:
                return out
        if "cpu" in self._autocast_dtype:
            from .amp import autocast_mode
            if autocast_mode.is_autocast_enabled("cpu"):
                dtype = self._autocast_dtype["cpu"]
                args, kwargs = _cast(args, dtype), {k: _cast(v, dtype) for k, v in kwargs.items()}
                with autocast_mode.autocast("cpu", enabled=False):
                    return self._apply(args, kwargs)
        positional, keyword = self._split(args, kwargs)
        if grad_mode.state.grad_enabled and any(t._requires_grad for t in _tensors(positional)):
            return self._autograd_cls.run(positional, keyword)
        return self._run(positional, keyword)


def _cast(value, dtype):
    """Floating-point tensors (also inside lists and tuples) cast to `dtype`, as autocast does."""
    if isinstance(value, Tensor):
        return value.to(dtype) if value.is_floating_point() else value
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, dtype) for v in value)
    return value


def _tensors(values):
    for v in values:
        if isinstance(v, Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from (t for t in v if isinstance(t, Tensor))


def _bump(value):
    for t in _tensors((value,)):
        t._vc[0] += 1


def _check_aliasing(op, args, kwargs, result):
    import numpy as np
    outs = list(_tensors(result if isinstance(result, (tuple, list)) else (result,)))
    ins = list(_tensors(args)) + list(_tensors(kwargs.values()))
    for i, o in enumerate(outs):
        others = ins + outs[:i]
        if any(o is t or np.shares_memory(o._data, t._data) for t in others):
            module = inspect.getmodule(op._kernel())
            raise RuntimeError(
                f"{op._name} (with implementation in {module}): The output of this custom "
                "operator (1) must not also be an input to this custom operator and (2) may not "
                "alias any inputs to this custom operator or other returns. The most common way "
                "to trigger this error is if we have y = custom_op(x) and y and x are the same "
                "Tensor. Please instead return a clone of the offending output tensor(s) (e.g. "
                "return x.clone()) or refactor the custom operator to not return y.")


def _generated_function(op):
    """The autograd.Function PyTorch generates for a custom op, under its name; tensor lists
    are flattened into its inputs and outputs and rebuilt around the user's functions."""
    name = f"GeneratedBackwardFor_{op._namespace}_{op._name}_default"

    def forward(ctx, spec, *flat):
        args, kwargs = _unflatten(flat, spec)
        result = op._run(args, kwargs)
        if op._setup_context_fn is not None:
            bound = op._signature.bind(*args, **kwargs)
            bound.apply_defaults()         # setup_context sees defaults, as PyTorch's
            params = op._signature.parameters
            inputs = tuple(v for n, v in bound.arguments.items()
                           if params[n].kind != inspect.Parameter.KEYWORD_ONLY)
            keyword = {n: v for n, v in bound.arguments.items()
                       if params[n].kind == inspect.Parameter.KEYWORD_ONLY}
            if any(p.kind == inspect.Parameter.KEYWORD_ONLY for p in params.values()):
                op._setup_context_fn(ctx=ctx, inputs=inputs, keyword_only_inputs=keyword,
                                     output=result)
            else:
                op._setup_context_fn(ctx=ctx, inputs=inputs, output=result)
        ctx._out_is_list = isinstance(result, list)
        ctx._spec = spec
        return tuple(result) if isinstance(result, list) else result

    def backward(ctx, *grads):
        if op._backward_fn is None:
            raise RuntimeError(f"Trying to backward through {op._opoverload} but no autograd "
                               "formula was registered. Please use register_autograd to add one.")
        if ctx._out_is_list:
            grads = (list(grads),)
        needs = ctx.needs_input_grad
        ctx.needs_input_grad = _unflatten(needs[1:], ctx._spec)[0]
        try:
            result = op._backward_fn(ctx, *grads)
        finally:
            ctx.needs_input_grad = needs
        result = result if isinstance(result, tuple) else (result,)
        flat = []
        for r, count in zip(result, ctx._spec[0]):
            if count is None:
                flat.append(r)
            else:
                flat.extend([None] * count if r is None else r)
        return (None, *flat)

    cls = type(name, (Function,), {"forward": staticmethod(forward),
                                   "backward": staticmethod(backward)})

    def run(args, kwargs):
        flat, counts = [], []
        for a in args:
            if isinstance(a, (list, tuple)) and any(isinstance(t, Tensor) for t in a):
                flat.extend(a)
                counts.append(len(a))
            else:
                flat.append(a)
                counts.append(None)
        out = cls.apply((tuple(counts), kwargs), *flat)
        return list(out) if isinstance(out, tuple) and _returns_list(op) else out

    cls.run = staticmethod(run)
    return cls


def _returns_list(op):
    return op._schema.rstrip().endswith("-> Tensor[]")


def _unflatten(flat, spec):
    counts, kwargs = spec
    args, i = [], 0
    for count in counts:
        if count is None:
            args.append(flat[i])
            i += 1
        else:
            args.append(list(flat[i:i + count]))
            i += count
    return tuple(args), kwargs


class OpOverload:
    """`torch.ops.<ns>.<name>.default`: the operator's one overload."""

    def __init__(self, opdef):
        self._opdef = opdef
        self._namespace, self._opname, self._overloadname = opdef._namespace, opdef._name, \
            "default"

    def __call__(self, *args, **kwargs):
        return self._opdef._apply(args, kwargs)

    def __str__(self):
        return f"{self._namespace}.{self._opname}.default"

    def __repr__(self):
        return f"<OpOverload(op='{self._namespace}.{self._opname}', overload='default')>"

    @property
    def _schema(self):
        return f"{self._opdef._qualname}{self._opdef._schema}"


class OpOverloadPacket:
    """`torch.ops.<ns>.<name>`: calls the default overload."""

    def __init__(self, overload):
        self.default = overload
        self._qualified_op_name = overload._opdef._qualname

    def overloads(self):
        return ["default"]

    def __call__(self, *args, **kwargs):
        return self.default(*args, **kwargs)

    def __str__(self):
        return str(self.default)[:-len(".default")]

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self}')>"


class _OpNamespace:
    """`torch.ops.<ns>`: the operators defined in that namespace."""

    def __init__(self, name):
        self.name = name
        self._ops = {}

    def __getattr__(self, op_name):
        try:
            return self.__dict__["_ops"][op_name]
        except KeyError:
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute "
                                 f"'{op_name}'") from None

    def __repr__(self):
        return f"<module 'torch.ops.{self.name}' from 'torch.ops'>"


_NAMESPACES = {}


def _namespace(name):
    ns = _NAMESPACES.get(name)
    if ns is None:
        ns = _NAMESPACES[name] = _OpNamespace(name)
    return ns


def _opdef(op):
    """The CustomOpDef for a qualified name, an OpOverload(Packet) or a CustomOpDef."""
    if isinstance(op, CustomOpDef):
        return op
    if isinstance(op, OpOverloadPacket):
        return op.default._opdef
    if isinstance(op, OpOverload):
        return op._opdef
    if isinstance(op, str):
        if op in _OPDEFS:
            return _OPDEFS[op]
        raise ValueError(f"register_* on {op}: chainrule knows only operators made with "
                         "torch.library.custom_op")
    raise ValueError(f"register_*(op): got unexpected type for op: {type(op)}")


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """register_autograd on the operator named by `op`."""
    _opdef(op).register_autograd(backward, setup_context=setup_context)


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1, allow_override=False):
    """register_fake on the operator named by `op` (decorator or call)."""
    opdef = _opdef(op)
    return opdef.register_fake if func is None else opdef.register_fake(func)


impl_abstract = register_fake


def register_kernel(op, device_types, func=None, /, *, lib=None):
    """register_kernel on the operator named by `op` (decorator or call)."""
    return _opdef(op).register_kernel(device_types, func)


def register_vmap(op, func=None, /, *, lib=None):
    """register_vmap on the operator named by `op` (decorator or call)."""
    return _opdef(op).register_vmap(func)


def register_autocast(op, device_type, cast_inputs, /, *, lib=None):
    """register_autocast on the operator named by `op`."""
    _opdef(op).register_autocast(device_type, cast_inputs)


# ---- opcheck ------------------------------------------------------------------------------

DEFAULT_TEST_UTILS = ("test_schema", "test_autograd_registration", "test_faketensor",
                      "test_aot_dispatch_dynamic")


def opcheck(op, args, kwargs=None, *, test_utils=DEFAULT_TEST_UTILS, raise_exception=True,
            atol=None, rtol=None):
    """Check a custom operator's registrations on sample inputs, as PyTorch's opcheck:
    test_schema (only the declared arguments are mutated), test_autograd_registration (an
    input requiring grad needs an autograd formula), test_faketensor (the fake kernel gives
    the real outputs' shapes, dtypes and strides) and test_aot_dispatch_dynamic (run again,
    through backward where registered, same results). Returns {test: "SUCCESS" | error}."""
    from .testing import assert_close
    opdef = _opdef(op)
    kwargs = {} if kwargs is None else kwargs
    if isinstance(test_utils, str):
        test_utils = (test_utils,)
    unknown = set(test_utils) - set(DEFAULT_TEST_UTILS)
    if unknown:
        raise ValueError(f"Got unexpected test_utils {unknown}; expected some of "
                         f"{DEFAULT_TEST_UTILS}")

    def clone(v):
        if isinstance(v, Tensor):
            return v.detach().clone().requires_grad_(v.requires_grad)
        if isinstance(v, (list, tuple)):
            return type(v)(clone(x) for x in v)
        return v

    def test_schema():
        a, k = clone(args), clone(kwargs)
        before = [t.detach().clone() for t in _tensors(list(a) + list(k.values()))]
        with grad_mode.no_grad():
            opdef(*a, **k)
        bound = opdef._signature.bind(*a, **k).arguments
        mutated = {id(t) for n in opdef._mutated for t in _tensors((bound.get(n),))}
        for old, new in zip(before, _tensors(list(a) + list(k.values()))):
            if id(new) not in mutated and not old.equal(new.detach()):
                raise RuntimeError(f"opcheck: {opdef._qualname} mutated an argument that its "
                                   "schema does not mark as mutable (mutates_args)")

    def test_autograd_registration():
        needs = any(t.requires_grad for t in _tensors(list(args) + list(kwargs.values())))
        if needs and opdef._backward_fn is None and not opdef._mutated:
            raise RuntimeError(
                f"{opdef._opoverload}: at least one input requires grad but the operator has "
                "no autograd formula registered. Please use register_autograd to add one.")

    def test_faketensor():
        if opdef._abstract_fn is None:
            raise RuntimeError(
                f"There was no fake impl registered for {opdef}. This is necessary for "
                "torch.compile/export/fx tracing to work. Please use "
                f"`{opdef._init_fn.__name__}.register_fake` to add an fake impl.")
        with grad_mode.no_grad():
            real = opdef(*clone(args), **clone(kwargs))
            fake = opdef._abstract_fn(*clone(args), **clone(kwargs))
        for r, f in zip(_tensors(_as_tuple(real)), _tensors(_as_tuple(fake))):
            if (r.shape, r.dtype, r.stride()) != (f.shape, f.dtype, f.stride()):
                raise RuntimeError(
                    f"opcheck: the fake kernel of {opdef._qualname} gives shape {tuple(f.shape)}"
                    f", dtype {f.dtype}, stride {f.stride()}; the real kernel gives "
                    f"{tuple(r.shape)}, {r.dtype}, {r.stride()}")

    def test_aot_dispatch_dynamic():
        first, second = opdef(*clone(args), **clone(kwargs)), None
        a, k = clone(args), clone(kwargs)
        second = opdef(*a, **k)
        assert_close(first, second, atol=atol, rtol=rtol)
        outs = [o for o in _tensors(_as_tuple(second)) if o.requires_grad]
        if outs and opdef._backward_fn is not None:
            from .autograd import grad
            inputs = [t for t in _tensors(list(a) + list(k.values())) if t.requires_grad]
            grad(outs, inputs, [o.detach().clone().fill_(1) for o in outs], allow_unused=True)

    tests = {"test_schema": test_schema,
             "test_autograd_registration": test_autograd_registration,
             "test_faketensor": test_faketensor,
             "test_aot_dispatch_dynamic": test_aot_dispatch_dynamic}
    results = {}
    for name in test_utils:
        try:
            tests[name]()
            results[name] = "SUCCESS"
        except Exception as e:
            if raise_exception:
                raise OpCheckError(f"opcheck(op, ...): {name} failed with {e} (scroll up for "
                                   "stack trace)") from e
            results[name] = e
    return results


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


class OpCheckError(Exception):
    """Raised by opcheck when one of its tests fails, as torch.testing._internal's."""

"""torch.func.vmap: `func` mapped over a dimension of its inputs.

vmap first runs `func` once on BatchedTensors, each op batched by a rule (Note [Batching
rules] in _batched.py). What cannot run batched (a hand-written function reading an array,
`.item()`, data-dependent control flow, in-place ops, randomness='different') raises there,
and the function runs again element by element:

Note [vmap by elements]: `func` runs once per batch element, on `select`ed slices (views,
so gradients flow to the batched inputs and out of them), and what it returns is stacked at
out_dims. Results are the same as batching's; ops PyTorch refuses on batched tensors
(`.item()`, data-dependent control flow) work here. PyTorch's checks of in_dims, out_dims,
randomness and chunk_size are kept with its messages. Randomness follows from the loop:
'different' draws element after element (PyTorch's values where its sampler draws
serially), 'same' replays the generator's state for every element (a batched run draws
once), and 'error' makes every draw raise while the vmap runs.
"""
import collections
import contextlib
import functools
import itertools

import numpy as np

from .._random import Generator, get_rng_state, set_rng_state
from .._tensor import Tensor
from ..ops import registry
from . import _batched
from ._batched import BatchedTensor, Unbatchable, wrap
from ._pytree import broadcast_to_and_flatten, tree_flatten, tree_unflatten


# ---- randomness ----------------------------------------------------------------------------

def _check_randomness_arg(randomness):
    if randomness not in ["error", "different", "same"]:
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")


_MODES = []                      # randomness of the running vmaps, outermost first
_DRAWS = (Generator._random, Generator._random64)


def _refuse(self, n):
    raise RuntimeError("vmap: called random operation while in randomness error mode. Please "
                       "either use the 'same' or 'different' randomness flags on vmap or "
                       "perform the randomness operation out of vmap")


@contextlib.contextmanager
def _random_ops(randomness):
    """Within: random draws raise PyTorch's error while any running vmap says 'error'
    (the generator's two raw draws are what every sampler calls)."""
    _MODES.append(randomness)
    if "error" in _MODES:
        Generator._random = Generator._random64 = _refuse
    try:
        yield
    finally:
        _MODES.pop()
        if "error" not in _MODES:
            Generator._random, Generator._random64 = _DRAWS


# ---- in_dims / out_dims --------------------------------------------------------------------

def _get_name(func):
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_get_name(func.func)}, ...)"
    return repr(func)


def _process_batched_inputs(in_dims, args, func):
    """(batch size, flat in_dims made non-negative, flat args, args structure)."""
    name = _get_name(func)
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` "
                         "to be int or a (potentially nested) tuple matching the structure of "
                         f"inputs, got: {type(in_dims)}.")
    if len(args) == 0:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add "
                         "inputs, or you are trying to vmap over a function with no inputs. "
                         "The latter is unsupported.")
    flat_args, args_spec = tree_flatten(args)
    flat_in_dims = broadcast_to_and_flatten(in_dims, args_spec)
    if flat_in_dims is None:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                         "compatible with the structure of `inputs`. in_dims has structure "
                         f"{tree_flatten(in_dims)[1]} but inputs has structure {args_spec}.")
    for i, (arg, in_dim) in enumerate(zip(flat_args, flat_in_dims)):
        if in_dim is None or type(in_dim) is int and isinstance(arg, Tensor) and \
                0 <= in_dim < arg.dim():
            continue      # the common case, without building the messages
        where = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={in_dim} for "
        if not isinstance(in_dim, int) and in_dim is not None:
            raise ValueError(where + "an input but in_dim must be either an integer dimension "
                             "or None.")
        if isinstance(in_dim, int) and not isinstance(arg, Tensor):
            raise ValueError(where + f"an input but the input is of type {type(arg)}. We cannot "
                             "vmap over non-Tensor arguments, please use None as the "
                             "respective in_dim")
        if in_dim is not None and not -arg.dim() <= in_dim < arg.dim():
            raise ValueError(where + "some input, but that input is a Tensor of dimensionality "
                             f"{arg.dim()} so expected in_dim to satisfy -{arg.dim()} <= in_dim "
                             f"< {arg.dim()}.")
        if in_dim is not None and in_dim < 0:
            flat_in_dims[i] = in_dim % arg.dim()
    sizes = [a.size(d) for d, a in zip(flat_in_dims, flat_args) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0], flat_in_dims, flat_args, args_spec


def _check_out_dims(out_dims, func):
    if isinstance(out_dims, int):
        return
    for d in tree_flatten(out_dims)[0]:
        if not (d is None or isinstance(d, int)):
            raise ValueError(f"vmap({_get_name(func)}, ..., out_dims={out_dims}): `out_dims` "
                             "must be an int, None or a python collection of ints representing "
                             "where in the outputs the vmapped dimension should appear.")


def _flat_out_dims(out_dims, first, spec, func):
    """out_dims broadcast over the leaves of the output (PyTorch's _unwrap_batched)."""
    flat = None
    if isinstance(first, Tensor):
        if isinstance(out_dims, int) or out_dims is None:
            flat = [out_dims]
        elif isinstance(out_dims, tuple) and len(out_dims) == 1:
            flat = list(out_dims)
    else:
        flat = broadcast_to_and_flatten(out_dims, spec)
    if flat is None:
        raise ValueError(f"vmap({_get_name(func)}, ..., out_dims={out_dims})(<inputs>): "
                         "out_dims is not compatible with the structure of `outputs`. out_dims "
                         f"has structure {tree_flatten(out_dims)[1]} but outputs has structure "
                         f"{spec}.")
    return flat


def _unbatched(values):
    """Whether every element returned the same tensor, or equal ones (what an output that
    does not depend on the batched inputs gives; PyTorch would not batch it)."""
    first = values[0]
    return all(v is first or (isinstance(v, Tensor) and v.shape == first.shape and
                              np.array_equal(v.detach().numpy(), first.detach().numpy()))
               for v in values[1:])


def _stack_outputs(outputs, out_dims, func):
    """The per-element outputs stacked at their out_dims (Note [vmap by elements])."""
    from .. import stack
    name = _get_name(func)
    spec = tree_flatten(outputs[0])[1]
    flat_dims = _flat_out_dims(out_dims, outputs[0], spec, func)
    columns = list(zip(*(tree_flatten(o)[0] for o in outputs)))
    result = []
    for values, out_dim in zip(columns, flat_dims):
        if out_dim is None:
            if isinstance(values[0], Tensor) and not _unbatched(values):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor "
                                 "when out_dim is None")
            result.append(values[0])
            continue
        for v in values:
            if not isinstance(v, Tensor):
                raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got "
                                 f"type {type(v)}. Did you mean to set out_dims= to None for "
                                 "output?")
        result.append(stack(values, out_dim))
    return tree_unflatten(result, spec)


# ---- vmap ----------------------------------------------------------------------------------

def _map(func, batch_size, flat_in_dims, flat_args, args_spec, randomness, kwargs):
    """`func` on each batch element's slices: the list of what it returned ('same' replays
    the default generator's state for each)."""
    state = get_rng_state() if randomness == "same" else None
    outputs = []
    with _random_ops(randomness):
        for b in range(batch_size):
            if state is not None:
                set_rng_state(state)
            args = [a if d is None else a.select(d, b) for a, d in zip(flat_args, flat_in_dims)]
            outputs.append(func(*tree_unflatten(args, args_spec), **kwargs))
    return outputs


def _empty_batch(func, flat_in_dims, flat_args, args_spec, out_dims, randomness, kwargs):
    """vmap over a batch of size 0: `func` runs on one element of zeros to learn the output
    shapes, and each output is empty along its out_dim."""
    args = [a if d is None else a.new_zeros(a.shape[:d] + a.shape[d + 1:])
            for a, d in zip(flat_args, flat_in_dims)]
    with _random_ops(randomness):
        out = func(*tree_unflatten(args, args_spec), **kwargs)
    flat, spec = tree_flatten(_stack_outputs([out], out_dims, func))
    dims = _flat_out_dims(out_dims, out, spec, func)
    return tree_unflatten([t if d is None else t.narrow(d, 0, 0) for t, d in zip(flat, dims)],
                          spec)


_LEVELS = itertools.count(1)    # vmap levels: later (inner) vmaps get larger ones
_RANDOMNESS = {}                # level -> its vmap's randomness, while it runs batched


@contextlib.contextmanager
def batch_level(size, randomness="error"):
    """Within: a new vmap level of `size` elements runs batched; yields the level."""
    level = next(_LEVELS)
    _batched.SIZES[level] = size
    _RANDOMNESS[level] = randomness
    hook, registry.VMAP = registry.VMAP, _batched._dispatch
    try:
        yield level
    finally:
        registry.VMAP = hook
        del _batched.SIZES[level], _RANDOMNESS[level]


def add_level(x, dim, level):
    """`x` batched along `level` at its dim `dim` (the level's dim goes after x's others)."""
    if type(x) is BatchedTensor:
        k = len(x._levels)
        p = x._phys if dim == 0 else x._phys.movedim(k + dim, k)
        return wrap(p, x._levels + (level,))
    return wrap(x if dim == 0 else x.movedim(dim, 0), (level,))


def _remove_level(x, out_dim, level, size):
    """An output of the batched run with `level`'s dim at out_dim (Unbatchable where the
    element-by-element run gives PyTorch's error or result)."""
    batched = type(x) is BatchedTensor and level in x._levels
    if out_dim is None:
        if batched:
            raise Unbatchable("out_dims")
        return x
    if not isinstance(x, Tensor):
        raise Unbatchable("out_dims")
    r = x.dim()
    if not -(r + 1) <= out_dim <= r:
        raise Unbatchable("out_dims")
    rest = tuple(lv for lv in x._levels if lv != level) if type(x) is BatchedTensor else ()
    to = len(rest) + out_dim % (r + 1)
    p = x._phys if type(x) is BatchedTensor else x
    if batched:
        at = x._levels.index(level)
        return wrap(p if at == to else p.movedim(at, to), rest)
    p = p.unsqueeze(to)
    return wrap(p.expand(tuple(p.shape[:to]) + (size,) + tuple(p.shape[to + 1:])), rest)


def _batched_run(func, batch_size, flat_in_dims, flat_args, args_spec, out_dims, randomness,
                 kwargs):
    """`func` run once on BatchedTensors (Note [Batching rules])."""
    with _random_ops(randomness), batch_level(batch_size, randomness) as level:
        args = [a if d is None else add_level(a, d, level)
                for a, d in zip(flat_args, flat_in_dims)]
        out = func(*tree_unflatten(args, args_spec), **kwargs)
        flat, spec = tree_flatten(out)
        dims = _flat_out_dims(out_dims, out, spec, func)
        return tree_unflatten([_remove_level(o, d, level, batch_size)
                               for o, d in zip(flat, dims)], spec)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """torch.func.vmap: `func` mapped over dimension `in_dims` of its inputs, the results
    stacked at `out_dims`: batched where it can (Note [Batching rules]), else element by
    element (Note [vmap by elements])."""
    _check_randomness_arg(randomness)
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        _check_out_dims(out_dims, func)
        batch_size, flat_in_dims, flat_args, args_spec = _process_batched_inputs(
            in_dims, args, func)
        if batch_size == 0:
            return _empty_batch(func, flat_in_dims, flat_args, args_spec, out_dims,
                                randomness, kwargs)
        # chunks change how PyTorch batches, not the results: 'same' replays one state for
        # every chunk as for every element, and chunks are whole elements here
        error = None
        if randomness != "different":    # 'different' draws per element: the loop's job
            # 'error' refuses draws before they change the generator; 'same' may draw
            state = get_rng_state() if randomness == "same" else None
            try:
                return _batched_run(func, batch_size, flat_in_dims, flat_args, args_spec,
                                    out_dims, randomness, kwargs)
            except (Unbatchable, Exception) as e:
                if getattr(e, "vmap_final", False):
                    raise
                if state is not None:
                    set_rng_state(state)
                error = e if isinstance(e, Exception) else None
        try:
            outputs = _map(func, batch_size, flat_in_dims, flat_args, args_spec, randomness,
                           kwargs)
        except Exception as loop_error:
            # a function failing both ways alike raises what the batched run raised: PyTorch's
            # batched ops name the physical sizes, as chainrule's physical ops do
            if type(error) is type(loop_error):
                raise error from None
            raise
        return _stack_outputs(outputs, out_dims, func)
    return wrapped


# ---- custom operators' batching rules (torch.library register_vmap) ----------------------------

VmapInfo = collections.namedtuple("VmapInfo", ["batch_size", "randomness"])


def custom_op_rule(rule, args, kwargs):
    """A custom operator's register_vmap `rule` run for the innermost level its positional
    arguments are batched along, as PyTorch's: the rule sees that level's dim as dim 0 of
    each argument batched along it (`in_dims`, None for the others), runs with the level
    off (outer levels stay batched), and returns (output, out_dims); None when no argument
    is batched."""
    def tensors(a):
        return a if type(a) in (list, tuple) else (a,)
    level = max((lv for a in args for x in tensors(a) if type(x) is BatchedTensor
                 for lv in x._levels), default=None)
    if level is None:
        return None

    def peel(x):
        if type(x) is not BatchedTensor or x._levels[-1] != level:
            return x, None
        return wrap(x._phys, x._levels[:-1]), 0
    peeled, in_dims = [], []
    for a in args:
        if type(a) in (list, tuple):
            pairs = [peel(x) for x in a]
            peeled.append(type(a)(p for p, _ in pairs))
            in_dims.append([d for _, d in pairs])
        else:
            p, d = peel(a)
            peeled.append(p)
            in_dims.append(d)
    size = _batched.SIZES.pop(level)
    hook = registry.VMAP
    if not _batched.SIZES:
        registry.VMAP = None
    try:
        result = rule(VmapInfo(size, _RANDOMNESS[level]), tuple(in_dims), *peeled, **kwargs)
    except Exception as e:
        raise _batched.final(e)     # the rule's own error is PyTorch's too
    finally:
        registry.VMAP = hook
        _batched.SIZES[level] = size
    if type(result) is not tuple or len(result) != 2:
        kind = Tensor if isinstance(result, Tensor) else type(result)
        raise _batched.final(RuntimeError(
            "Expected the vmap staticmethod to have two returns, an output and out_dims with "
            f"pytree structure compatible with the output. Got a {kind} instead"))
    output, out_dims = result
    flat, spec = tree_flatten(output)
    flat_dims = broadcast_to_and_flatten(out_dims, spec)
    if flat_dims is None:
        raise _batched.final(RuntimeError(
            "The autograd.Function's vmap staticmethod returned an incompatible (output, "
            f"out_dims) tuple. Expected out_dims={out_dims} to be compatible with the structure "
            f"of `output`. out_dims has structure {tree_flatten(out_dims)[1]} but output has "
            f"structure {spec}. For more details, please see "
            "https://pytorch.org/docs/main/notes/extending.func.html"))
    return tree_unflatten([o if d is None else add_level(o, d % max(o.dim(), 1), level)
                           for o, d in zip(flat, flat_dims)], spec)

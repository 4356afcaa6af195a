"""Op-database entries for views modified in place: as_strided, copy_, and in-place ops on
views of non-leaf tensors (CopySlices); index_put has its entries in advanced_indexing.py.
And ops/aliasing.py: unfold, view_as_real / view_as_complex, slice_inverse, the in-place view
ops (t_, squeeze_, ...), the *_copy functions and the *_scatter functions."""
from . import OpInfo, Sample, noncontiguous, randn


def _nc(rng, *shape):
    return noncontiguous(randn(rng, *shape))


def _grad_of(lib, fn, wrt, weight):
    """d<fn(wrt), weight>/d wrt with create_graph: the backward's own graph."""
    with lib.enable_grad():
        return lib.autograd.grad(fn(wrt), wrt, weight, create_graph=True)[0]


def _inplace_view(name):
    def fn(lib, a, *args):
        b = a * 1
        r = getattr(b, name)(*args)
        assert r is b
        return b
    return fn


def _complex_round_trip(lib, a, w):
    # view_as_complex, a complex product, view_as_real: real in and out, so gradchecked
    z = lib.view_as_complex(a) * lib.view_as_complex(w)
    return lib.view_as_real(z)


def _inplace_through_dtype_view(lib, a, w):
    b = a * 1
    lib.view_as_complex(b)[1:].mul_(lib.view_as_complex(w))
    return b


def _slice_inverse(lib, a):
    b = a * 1
    return b[:, 1:3].slice_inverse(b, 1, 1, 3)


def _copy_entry(name, samples, ops=None):
    return OpInfo(name, lambda lib, a, *args, **kw: getattr(lib, name)(a, *args, **kw), samples,
                  ops=ops or (name,))


def _scatter(name):
    return lambda lib, a, src, *args: getattr(lib, name)(a, src, *args)


def _inplace_on_view(lib, a, w):
    b = a * 1
    b[1:, ::2].mul_(w)
    b.unsqueeze(0)[0, 0].exp_()
    return b


def _setitem(lib, a, v):
    b = a * 1
    b[0] = v
    b[1:, 1] = 2.
    b[lib.tensor([2, 0])] = v * 3
    return b


OPS_DB = [
    OpInfo("as_strided", lambda lib, a: a.as_strided((2, 2), (1, 2), 1),
           lambda rng: [Sample(randn(rng, 2, 3))]),
    OpInfo("as_strided.overlapping", lambda lib, a: a.as_strided((3, 2), (1, 1)),
           lambda rng: [Sample(randn(rng, 4))], ops=("as_strided",)),
    OpInfo("copy_", lambda lib, a, s: (a * 1).copy_(s),
           lambda rng: [Sample(randn(rng, 2, 3), randn(rng, 3)), Sample(randn(rng, 3), randn(rng))],
           ops=("copy",)),
    OpInfo("inplace_on_view", _inplace_on_view, lambda rng: [Sample(randn(rng, 3, 4), randn(rng))],
           ops=("mul", "as_strided")),
    OpInfo("setitem", _setitem, lambda rng: [Sample(randn(rng, 3, 3), randn(rng, 3))],
           ops=("copy", "index_put")),

    # ---- views: unfold, view_as_real / view_as_complex, slice_inverse ----
    OpInfo("unfold", lambda lib, a, *args: a.unfold(*args),
           lambda rng: [Sample(randn(rng, 3, 5), 1, 2, 1), Sample(randn(rng, 3, 5), 1, 3, 2),
                        Sample(randn(rng, 5, 2), 0, 2, 3), Sample(randn(rng, 3, 4), -1, 0, 1),
                        Sample(randn(rng), 0, 1, 1), Sample(_nc(rng, 4, 3), 0, 2, 1)]),
    OpInfo("unfold_backward", lambda lib, a, w: _grad_of(lib, lambda a: a.unfold(1, 3, 1), a, w),
           lambda rng: [Sample(randn(rng, 2, 5), randn(rng, 2, 3, 3))]),
    OpInfo("unfold.inplace", lambda lib, a, w: (lambda b: (b.unfold(0, 2, 2).mul_(w), b)[1])(a * 1),
           lambda rng: [Sample(randn(rng, 6), randn(rng, 3, 2))], ops=("unfold", "mul")),
    OpInfo("view_as_complex", _complex_round_trip,
           lambda rng: [Sample(randn(rng, 3, 2), randn(rng, 3, 2)),
                        Sample(randn(rng, 2, 4, 2)[:, ::2], randn(rng, 2, 2, 2),
                               name="strided"),
                        Sample(randn(rng, 2), randn(rng, 2), name="0-d result")],
           ops=("view_as_complex", "view_as_real", "mul")),
    OpInfo("view_as_complex.inplace", _inplace_through_dtype_view,
           lambda rng: [Sample(randn(rng, 3, 2), randn(rng, 2, 2))],
           ops=("view_as_complex", "mul")),
    OpInfo("slice_inverse", _slice_inverse, lambda rng: [Sample(randn(rng, 3, 4))]),

    # ---- in-place view ops ----
    OpInfo("t_", _inplace_view("t_"), lambda rng: [Sample(randn(rng, 3, 4)), Sample(randn(rng, 3)),
                                                  Sample(_nc(rng, 3, 4))]),
    OpInfo("transpose_", _inplace_view("transpose_"),
           lambda rng: [Sample(randn(rng, 2, 3, 4), 0, 2), Sample(randn(rng, 3, 4), -1, 0)]),
    OpInfo("swapaxes_", lambda lib, a: _inplace_view("swapdims_")(
        lib, _inplace_view("swapaxes_")(lib, a, 0, 1), 1, 2),
           lambda rng: [Sample(randn(rng, 2, 3, 4))], ops=("transpose_",)),
    OpInfo("unsqueeze_", _inplace_view("unsqueeze_"),
           lambda rng: [Sample(randn(rng, 3, 4), 1), Sample(randn(rng, 3), -1),
                        Sample(randn(rng), 0)]),
    OpInfo("squeeze_", _inplace_view("squeeze_"),
           lambda rng: [Sample(randn(rng, 3, 1, 4, 1)), Sample(randn(rng, 1, 1))]),
    OpInfo("squeeze_.int", _inplace_view("squeeze_"),
           lambda rng: [Sample(randn(rng, 3, 1, 4), 1), Sample(randn(rng, 3, 4), 0)]),
    OpInfo("squeeze_.dims", _inplace_view("squeeze_"),
           lambda rng: [Sample(randn(rng, 3, 1, 4, 1), (1, -1)), Sample(randn(rng, 3, 4), ())]),
    OpInfo("as_strided_", _inplace_view("as_strided_"),
           lambda rng: [Sample(randn(rng, 2, 3), (2, 2), (1, 2), 1),
                        Sample(randn(rng, 4), (3, 2), (1, 1), name="overlapping")]),
    OpInfo("t_.on_view", lambda lib, a, w: (lambda b: (b[1:].t_().mul_(w), b)[1])(a * 1),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 4, 2))],
           ops=("t_", "mul", "as_strided")),

    # ---- *_copy ----
    _copy_entry("alias_copy", lambda rng: [Sample(randn(rng, 3, 4)), Sample(_nc(rng, 3, 4))]),
    _copy_entry("as_strided_copy", lambda rng: [Sample(randn(rng, 2, 3), (2, 2), (1, 2), 1),
                                                Sample(randn(rng, 4), (3, 2), (1, 1))]),
    OpInfo("detach_copy", lambda lib, a: lib.detach_copy(a),
           lambda rng: [Sample(randn(rng, 3), grad=())], gradcheck=False),
    _copy_entry("expand_copy", lambda rng: [Sample(randn(rng, 3, 1), (2, 3, 4)),
                                            Sample(randn(rng, 3), (2, -1), implicit=True)]),
    # (a negative start breaks PyTorch's backward: tests/test_shape_breadth.py)
    _copy_entry("narrow_copy", lambda rng: [Sample(randn(rng, 3, 4), 1, 1, 2),
                                            Sample(randn(rng, 3, 4), 0, 1, 2),
                                            Sample(_nc(rng, 3, 4), 1, 0, 0)]),
    _copy_entry("permute_copy", lambda rng: [Sample(randn(rng, 2, 3, 4), (2, 0, 1)),
                                             Sample(_nc(rng, 3, 4), [1, 0])]),
    _copy_entry("select_copy", lambda rng: [Sample(randn(rng, 3, 4), 1, -1),
                                            Sample(_nc(rng, 3, 4), 0, 2)]),
    _copy_entry("slice_copy", lambda rng: [Sample(randn(rng, 3, 5), 1, 1, 5, 2),
                                           Sample(randn(rng, 3, 4)),
                                           Sample(randn(rng, 3, 4), -1, -2)]),
    OpInfo("split_copy", lambda lib, a, *args: lib.split_copy(a, *args),
           lambda rng: [Sample(randn(rng, 5, 2), 2), Sample(randn(rng, 3, 4), 3, -1)],
           ops=("split_copy.Tensor",)),
    _copy_entry("split_with_sizes_copy", lambda rng: [Sample(randn(rng, 5, 2), [2, 3]),
                                                      Sample(randn(rng, 3, 4), [1, 0, 3], 1)]),
    _copy_entry("squeeze_copy", lambda rng: [Sample(randn(rng, 3, 1, 4, 1)), Sample(randn(rng))]),
    _copy_entry("squeeze_copy", lambda rng: [Sample(randn(rng, 3, 1, 4), 1),
                                             Sample(randn(rng, 3, 1, 4, 1), (1, 3))],
                ops=("squeeze_copy.dim", "squeeze_copy.dims")),
    _copy_entry("t_copy", lambda rng: [Sample(randn(rng, 3, 4)), Sample(randn(rng, 3))]),
    _copy_entry("transpose_copy", lambda rng: [Sample(randn(rng, 2, 3, 4), 0, -1)]),
    OpInfo("unbind_copy", lambda lib, a, *args: lib.unbind_copy(a, *args),
           lambda rng: [Sample(randn(rng, 3, 2)), Sample(randn(rng, 3, 2), -1)],
           ops=("unbind_copy.int",)),
    _copy_entry("unfold_copy", lambda rng: [Sample(randn(rng, 3, 5), 1, 2, 2)]),
    _copy_entry("unsqueeze_copy", lambda rng: [Sample(randn(rng, 3, 4), -1),
                                               Sample(randn(rng), 0)]),
    _copy_entry("view_copy", lambda rng: [Sample(randn(rng, 3, 4), (2, 6)),
                                          Sample(_nc(rng, 3, 4), (-1,), name="non-contiguous")]),
    OpInfo("view_as_real_copy", lambda lib, a, w: lib.view_as_real_copy(
        lib.view_as_complex(a) * lib.view_as_complex(w)),
           lambda rng: [Sample(randn(rng, 3, 2), randn(rng, 3, 2))],
           ops=("view_as_real_copy", "view_as_complex", "mul")),

    OpInfo("set_", lambda lib, a: lib.zeros(1, dtype=a.dtype).set_(a),
           lambda rng: [Sample(randn(rng, 2, 3), grad=())], ops=("set_.source_Tensor",),
           gradcheck=False),

    # ---- *_scatter ----
    OpInfo("slice_scatter", _scatter("slice_scatter"),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 3, 2), 1, 0, 2),
                        Sample(randn(rng, 3, 4), randn(rng, 3, 2), 1, None, None, 2),
                        Sample(randn(rng, 3, 4), randn(rng, 1, 4), 0, -1),
                        Sample(_nc(rng, 4, 3), randn(rng, 4, 2), 1, 1)]),
    OpInfo("select_scatter", _scatter("select_scatter"),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 4), 0, 1),
                        Sample(randn(rng, 3, 4), randn(rng, 3), -1, -1),
                        Sample(randn(rng, 3), randn(rng), 0, 2, name="0-d src")]),
    OpInfo("diagonal_scatter", _scatter("diagonal_scatter"),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 3)),
                        Sample(randn(rng, 3, 4), randn(rng, 3), 1),
                        Sample(randn(rng, 2, 3, 4), randn(rng, 2, 2), -1, 1, 2)]),
    # PyTorch's gradient for self is not the derivative (see aliasing.py): gradchecked for
    # src alone, compared with PyTorch for both
    OpInfo("as_strided_scatter", _scatter("as_strided_scatter"),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 2, 2), (2, 2), (1, 2), grad=(1,)),
                        Sample(randn(rng, 3, 4), randn(rng, 2, 2), (2, 2), (1, 2), 3, grad=(1,))]),
    OpInfo("as_strided_scatter.self", _scatter("as_strided_scatter"),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 2, 2), (2, 2), (1, 2), 1)],
           ops=("as_strided_scatter",), gradcheck=False),
]

"""torch.masked against PyTorch: masked reductions and normalizations on tensors with mask=,
and the MaskedTensor basics (construction, repr, parts, elementwise ops, reductions, grads)."""
import warnings

import pytest
import torch

import chainrule
from helpers import same, same_error, same_warnings

warnings.filterwarnings("ignore", message="The PyTorch API of MaskedTensors")
warnings.filterwarnings("ignore", message="It is not recommended to create a MaskedTensor")


def data_and_mask(T, dtype=None):
    x = T.tensor([[1.5, -2.0, 3.0, 0.5], [4.0, 0.25, -1.0, 2.0], [-3.0, 1.0, 2.5, -0.5]],
                 dtype=dtype or T.float64)
    m = T.tensor([[True, False, True, True], [False, False, False, False],
                  [True, True, False, True]])
    return x, m


def mt_view(mt):
    """A MaskedTensor as comparable parts: its specified values (0 elsewhere), mask, repr."""
    return mt.to_tensor(0), mt.get_mask(), repr(mt)


REDUCTIONS = ("sum", "prod", "amax", "amin", "mean", "logsumexp", "var", "std")


@pytest.mark.parametrize("name", REDUCTIONS)
def test_reductions(name):
    def prog(T):
        x, m = data_and_mask(T)
        x.requires_grad_()
        f = getattr(T.masked, name)
        results = [f(x, mask=m), f(x, 1, mask=m), f(x, (0, 1), keepdim=True, mask=m),
                   f(x, -1, keepdim=True, mask=m[0]), f(x, 0), f(x, mask=None)]
        g, = T.autograd.grad(sum(r.nan_to_num(0, 0, 0).sum() for r in results), x)
        return results, g
    same(prog)


def test_reductions_of_other_dtypes_and_arguments():
    def prog(T):
        x, m = data_and_mask(T)
        i = (x * 2).to(T.int32)
        b = x > 0
        return (T.masked.sum(i, 1, mask=m), T.masked.prod(i, 1, mask=m),
                T.masked.sum(b, mask=m), T.masked.sum(x, 1, dtype=T.float32, mask=m),
                T.masked.amax(i, 1, mask=m), T.masked.amin(i.to(T.uint8), 1, mask=m),
                T.masked.argmax(x, 1, mask=m), T.masked.argmin(x, 1, keepdim=True, mask=m),
                T.masked.argmax(x, mask=m), T.masked.median(x, 1, mask=m),
                T.masked.median(x, 0, keepdim=True, mask=m),
                T.masked.var(x, 1, unbiased=False, mask=m),
                T.masked.std(x, 1, correction=0, mask=m),
                T.masked.var(i, 1, mask=m), T.masked.var(x, 1, keepdim=True, mask=m),
                T.masked.norm(x, 2.0, 1, mask=m), T.masked.norm(x, 1, 1, mask=m),
                T.masked.norm(x, float("inf"), 1, mask=m),
                T.masked.norm(x, float("-inf"), 1, mask=m), T.masked.norm(x, mask=m),
                T.masked.logsumexp(x, 0, mask=m), T.masked.mean(x, (), mask=m))
    same(prog)


def test_normalizations():
    def prog(T):
        x, m = data_and_mask(T)
        x.requires_grad_()
        results = [T.masked.softmax(x, 1, mask=m), T.masked.log_softmax(x, 1, mask=m),
                   T.masked.softmin(x, 0, mask=m), T.masked.normalize(x, 2.0, 1, mask=m),
                   T.masked.normalize(x, 1.0, 0, eps=0.5, mask=m),
                   T.masked.cumsum(x, 1, mask=m), T.masked.cumprod(x, 0, mask=m),
                   T.masked.softmax(x, -1, dtype=T.float32, mask=m),
                   T.masked.logaddexp(x, x.flip(1), input_mask=m, other_mask=m.flip(0))]
        g, = T.autograd.grad(sum(r.nan_to_num(0, 0, 0).sum() for r in results[:-1]), x)
        return results, g
    same(prog)


def test_errors():
    x = lambda T: data_and_mask(T)[0]     # noqa: E731
    m = lambda T: data_and_mask(T)[1]     # noqa: E731
    same_error(lambda T: T.masked.sum(x(T), 2, mask=m(T)))
    same_error(lambda T: T.masked.sum(x(T), (1, 1), mask=m(T)))
    same_error(lambda T: T.masked.sum(x(T), mask=m(T)[None]))
    same_error(lambda T: T.masked.mean(x(T).long(), mask=m(T)))
    same_error(lambda T: T.masked.mean(x(T).long(), dtype=T.int32, mask=m(T)))
    same_error(lambda T: T.masked.median(x(T).long(), 1, mask=m(T)))
    same_error(lambda T: T.masked.var(x(T), 1, True, correction=1, mask=m(T)))
    same_error(lambda T: T.masked.norm(x(T).long(), float("-inf"), mask=m(T)))
    same_error(lambda T: T.masked._input_mask(x(T)))


def test_output_mask_and_names():
    assert set(chainrule.masked.__all__) == set(torch.masked.__all__)
    same(lambda T: (T.masked._output_mask(T.masked.sum, data_and_mask(T)[0], 1,
                                          mask=data_and_mask(T)[1]),
                    T.masked._output_mask(T.masked.softmax, data_and_mask(T)[0], 1,
                                          mask=data_and_mask(T)[1]),
                    T.masked.sum.__module__, T.masked._canonical_dim((-1, 0), 3)))


# ---- MaskedTensor --------------------------------------------------------------------------

def test_construction_repr_and_parts():
    def prog(T):
        x, m = data_and_mask(T, T.float32)
        mt = T.masked.masked_tensor(x, m)
        scalars = [T.masked.masked_tensor(T.tensor(3.), T.tensor(False)),
                   T.masked.masked_tensor(T.tensor(3.), T.tensor(True)),
                   T.masked.masked_tensor(T.tensor([1, 2, 3]), T.tensor([True, False, True])),
                   T.masked.masked_tensor(T.tensor([True, False]), T.tensor([True, False])),
                   T.masked.MaskedTensor(T.ones(2, 1, 2), T.ones(2, 1, 2).bool())]
        return (repr(mt), str(mt), [repr(s) for s in scalars], mt.get_data(), mt.get_mask(),
                mt.to_tensor(-1), type(mt).__name__, type(mt).__module__, mt.shape, mt.dtype,
                mt.dim(), mt.size(1), T.masked.is_masked_tensor(mt),
                T.masked.is_masked_tensor(x), mt.requires_grad, mt.is_sparse)
    same(prog)


def test_construction_warnings_and_errors():
    with warnings.catch_warnings():
        warnings.resetwarnings()
        same_warnings(lambda T: T.masked.masked_tensor(T.ones(2), T.ones(2).bool()))
        same_warnings(lambda T: T.masked.as_masked_tensor(T.ones(2, requires_grad=True),
                                                          T.ones(2).bool()))
    same_error(lambda T: T.masked.masked_tensor([1.], T.tensor([True])))
    same_error(lambda T: T.masked.masked_tensor(T.ones(1), [True]))
    same_error(lambda T: T.masked.masked_tensor(T.ones(2), T.ones(2)))
    same_error(lambda T: T.masked.masked_tensor(T.ones(2, dtype=T.uint8), T.ones(2).bool()))
    same_error(lambda T: T.masked.masked_tensor(T.ones(2), T.ones(3).bool()))
    same_error(lambda T: T.masked.masked_tensor(T.ones(2), T.ones(1, 2).bool()))


def test_elementwise_and_views():
    def prog(T):
        x, m = data_and_mask(T, T.float32)
        mt = T.masked.masked_tensor(x, m)
        other = T.masked.masked_tensor(x * 2, m)
        out = [mt.sin(), mt.exp(), mt.abs(), mt.pow(2), mt.clamp(-1, 1), -mt, mt + 1, mt - 2,
               mt * other, mt / other, mt > 0, mt.maximum(other), mt.add(other),
               mt[0], mt[:, 1:3], mt.t(), mt.transpose(0, 1), mt.view(4, 3), mt.unsqueeze(0),
               mt.reshape(-1), mt.select(1, 2), mt.expand(2, 3, 4)]
        mt2 = T.masked.masked_tensor(x.clone(), m)
        mt2.mul_(3)
        mt2 += other
        mt2.neg_()
        return [mt_view(o) for o in out] + [mt_view(mt2)]
    same(prog)
    mt = lambda T, mask: T.masked.masked_tensor(data_and_mask(T)[0], mask)    # noqa: E731
    same_error(lambda T: mt(T, data_and_mask(T)[1]) + mt(T, ~data_and_mask(T)[1]))
    same(lambda T: mt_view(mt(T, data_and_mask(T)[1]).clamp(min=0)))
    same_error(lambda T: mt(T, data_and_mask(T)[1]).clamp(T.zeros(1)))


def test_reductions_of_masked_tensors():
    def prog(T):
        x, m = data_and_mask(T, T.float32)
        mt = T.masked.masked_tensor(x, m)
        out = [mt.sum(), mt.sum(1), mt.sum(1, keepdim=True), mt.mean(0), mt.amax(1), mt.amin(),
               mt.argmax(), mt.argmin(1), mt.prod(1), mt.var(1), mt.std(),
               (mt > 0).all(), (mt > 0).all(1), mt.softmax(1)]
        return ([mt_view(o) for o in out], T.masked.sum(mt), T.masked.amax(mt, 1),
                T.masked.mean(mt))
    same(prog)


def test_masked_tensor_gradients():
    def prog(T):
        x = T.tensor([-10., -5, 0, 5, 10])
        m = x < 0
        mx = T.masked.masked_tensor(x, m, requires_grad=True)
        y = mx.exp().sum()
        y.backward()
        a = T.masked.masked_tensor(T.tensor([1., 2., 3.]), T.tensor([True, False, True]),
                                   requires_grad=True)
        (a * a).sum().backward()
        return (mt_view(y), mt_view(mx.grad), type(mx.grad).__name__, mt_view(a.grad),
                mx.requires_grad, mx.is_leaf)
    same(prog)

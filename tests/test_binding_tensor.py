"""The tensor functions and methods with int, int-list, bool and Tensor parameters refuse
what PyTorch's argument parser refuses, with its TypeError (Note [Argument parser checks]):
function and method forms, arguments by position (numbered) and by keyword (named), and the
"invalid combination of arguments" list of overloaded bindings. Good calls still agree."""
import numpy as np
import pytest

from helpers import same, same_error


def _run(code):
    def prog(T):
        x = T.arange(12.).reshape(3, 4)
        return eval(code, {"T": T, "x": x, "i": T.tensor([0, 1]), "np": np})
    return prog


REFUSED = [
    # shape.py
    "x.chunk(True)", "T.chunk(x, 2, True)", "T.chunk(x, 2, dim=True)", "x.chunk(2.0)",
    "x.unbind(True)", "T.unbind(x, dim=True)",
    "x.unsqueeze(True)", "x.unsqueeze(1.0)", "T.unsqueeze(x, dim=True)",
    "x.transpose(True, 0)", "T.transpose(x, 0, True)", "x.transpose(0, 1.0)",
    "x.transpose(0, dim1=True)", "x.swapaxes(True, 0)", "T.swapdims(x, 0, True)",
    "x.flatten(True)", "x.flatten(0, True)", "x.flatten(start_dim=True)",
    "x.unflatten(True, (2, 2))", "T.unflatten(x, 1, 2.0)", "x.unflatten(1, (2, 2.0))",
    "x.select(True, 0)", "x.select(0, True)", "T.select(x, 0, 1.0)",
    "x.roll(True)", "x.roll(1, True)", "T.roll(x, 1.0)", "T.roll(x, (1,), True)",
    "x.squeeze(True)", "x.squeeze(dim=True)", "T.squeeze(x, True)", "x.squeeze((True,))",
    "x.squeeze(1.0)", "x.squeeze((0,), 1)",
    "x.narrow(True, 0, 1)", "x.narrow(0, True, 1)", "x.narrow(0, 0, 1.0)",
    "x.narrow(0, 0, length=True)", "T.narrow(x, True, 0, 1)", "x.narrow(0, i[0], 1.0)",
    "x.movedim(True, 0)", "x.movedim((True,), (0,))", "x.movedim(0.0, 1)",
    "x.movedim((0,), 1.0)", "x.movedim([0, 1], 1.0)", "T.movedim(x, True, 0)",
    "x.movedim(0, destination=True)", "x.moveaxis(True, 0)", "T.moveaxis(x, True, 0)",
    "x.split(True)", "x.split(2, True)", "x.split(2.0)", "T.split(x, 2, True)",
    "T.split(x, 2, dim=True)", "x.split(2, dim=True)",
    "x.repeat(2.0)", "x.repeat(True)", "x.repeat(2, 2.0)", "x.repeat((2.0, 2))",
    "x.tile(2.0)", "x.tile(True)", "T.tile(x, (True,))", "T.tile(x, 2)", "x.tile(2, 2.0)",
    "x.flip(True)", "x.flip(0.0)", "T.flip(x, True)", "T.flip(x, 0)", "x.flip(0, 1.0)",
    "x.view(True, 12)", "x.view(12.0)", "x.view(True)", "x.view(2, 6.0)", "x.view(2.0, 6)",
    "x.view((2, 6.0))", "x.view(dtype=True)", "x.reshape(12.0)", "x.reshape((True, 12))",
    "x.reshape(True)", "x.reshape(2, 6.0)", "x.expand((3, 4.0))", "x.expand(3, 4.0)",
    "x.expand(True, 4)", "x.permute(0.0, 1)", "x.permute((True, 0))", "T.permute(x, (0, 1.0))",
    "T.cat([x, x], True)", "T.cat([x, x], dim=True)", "T.stack([x, x], 1.0)",
    "T.stack((x, 1))", "x.split_with_sizes([1, 3], True)", "x.view_as(1)", "x.expand_as(1)",
    "x.reshape_as(1)", "T.narrow_copy(x, True, 0, 1)", "x.narrow_copy(0, 0, 1.0)",
    "x.index_select(True, i)", "x.index_select(0, 1)", "x.index_select(0, 1.0)",
    "x.diff(True)", "T.diff(x, 1, True)", "T.diff(x, prepend=1)", "x.mean(dtype=True)",
    "T.softmax(x, 1, True)",
    # aliasing.py
    "x.unsqueeze_(True)", "x.transpose_(True, 0)", "x.swapaxes_(True, 0)",
    "x.swapdims_(0, True)", "x.squeeze_(True)", "x.squeeze_(dim=True)",
    "x.unfold(0, 2, True)", "x.unfold(True, 2, 1)",
    "T.unfold_copy(x, 0, 2, True)", "T.unsqueeze_copy(x, True)", "T.transpose_copy(x, True, 0)",
    "T.select_copy(x, True, 0)", "T.slice_copy(x, True)", "T.squeeze_copy(x, True)",
    "T.squeeze_copy(x, 1.0)", "T.permute_copy(x, (True, 0))", "T.expand_copy(x, (True, 4))",
    "T.diagonal_copy(x, True)",
    "T.select_scatter(x, x[0], 0, True)", "T.select_scatter(x, 1.0, 0, 0)",
    "T.slice_scatter(x, x, True)", "T.slice_scatter(x, x, 0, True)",
    "T.slice_scatter(x, x, step=True)", "x.slice_scatter(x, True)",
    "T.diagonal_scatter(x, x.diagonal(), True)", "x.diagonal_scatter(x.diagonal(), 0, True)",
    # reduction.py
    "x.sum(True)", "x.sum(0, 1)", "x.sum((True,))", "x.sum(0.0)", "T.sum(x, True)",
    "T.sum(x, 0, 1)", "x.sum(dim=True)", "x.sum(0, keepdim=1)", "x.sum(keepdim=True)",
    "x.mean(True)", "x.mean(0, 1)", "x.mean(0.0)", "T.mean(x, True)", "x.mean(dim=0, keepdim=1)",
    "x.prod(True)", "x.prod(0, 1)", "T.prod(x, True)", "x.prod(0, keepdim=1)",
    "x.max(True)", "x.min(True)", "T.max(x, True)", "x.max(0, 1)", "x.max(2.0)",
    "x.std(0, 1)", "x.var(0, 1)", "T.std(x, 0, 1)", "x.std(0, 1, True)", "x.std(0, True, 1)",
    "x.std(0, keepdim=1)", "x.var(dim=True)", "x.std(True, True)",
    "x.all(True)", "x.any(True)", "T.all(x, True)",
    "x.amax(True)", "T.amin(x, True)", "x.argmax(True)", "T.argmin(x, True)",
    "x.argmax(0, 1)", "x.logsumexp(True)", "T.logsumexp(x, 0, 1)",
    "x.cumsum(True)", "T.cumsum(x, True)", "x.cumprod(True)", "x.cumsum(dim=1.0)",
    "x.cumsum_(True)", "x.cumprod_(1.0)",
    # statistics.py
    "x.logcumsumexp(True)", "T.logcumsumexp(x, dim=True)", "x.cummax(True)", "T.cummin(x, 1.0)",
    "x.renorm(2, True, 1.0)", "T.renorm(x, 2, True, 1.0)", "x.renorm_(2, True, 1.0)",
    "T.norm_except_dim(x, True)", "T.norm_except_dim(x, 2, True)",
    "T.norm_except_dim(x, pow=True)",
    "x.kthvalue(True)", "x.kthvalue(1, True)", "x.kthvalue(1, 0, 1)", "T.kthvalue(x, 1, 1.0)",
    "x.median(1.0)", "T.median(x, 0, 1)", "x.nanmedian(True)", "x.mode(True)",
    "T.mode(x, 1.0)", "x.nansum(True)", "T.nansum(x, 0, 1)", "x.nanmean(0, 1)",
    "T.aminmax(x, dim=1.0)", "x.aminmax(dim=True)", "x.count_nonzero(True)",
    "T.count_nonzero(x, 1.0)", "T.std_mean(x, 0, 1)", "T.var_mean(x, True, True)",
    "x.softmax(True)", "T.softmax(x, True)", "x.log_softmax(True)", "T.log_softmax(x, True)",
    "x.softmax(dim=True)", "T.log_softmax(x, dim=1.0)",
    # sorting.py
    "x.topk(True)", "x.topk(1, True)", "x.topk(1, 0, 1)", "T.topk(x, True)",
    "x.topk(1, dim=True)", "x.sort(True)", "x.sort(0, 1)", "T.sort(x, 0, True, True)",
    "x.sort(stable=1)", "x.sort(0, descending=1)", "x.sort(dim=True)", "T.sort(x, 0, 1)",
    "x.argsort(True)", "x.argsort(0, 1)", "T.argsort(x, 0, 1)", "T.argsort(x, True)",
    # joining.py
    "x.unsafe_chunk(True)", "T.unsafe_chunk(x, 2, True)", "x.unsafe_split(2.0)",
    "T.unsafe_split(x, 2, True)", "x.unsafe_split_with_sizes([2, 1.0])",
    "x.rot90(True)", "x.rot90(1, (True, 0))", "T.rot90(x, 1, 0)", "T.rot90(x, True)",
    "x.tensor_split(True)", "x.tensor_split(2, True)", "x.tensor_split(2.0)",
    "x.tensor_split((1,), True)", "x.tensor_split(i, True)", "T.tensor_split(x, 2, True)",
    "T.tensor_split(x, 2, dim=True)", "T.tensor_split(x, 2.0)",
    "x.repeat_interleave(True)", "x.repeat_interleave(2, True)", "x.repeat_interleave(2.0)",
    "x.repeat_interleave(2, dim=True)", "x.repeat_interleave(x.long(), True)",
    "T.repeat_interleave(x, 2, True)", "T.repeat_interleave(x, 2, dim=True)",
    "x.repeat_interleave()",
    # diagonal.py
    "x.diagonal(True)", "x.diagonal(0, True)", "T.diagonal(x, offset=True)",
    "x.diagonal(dim2=True)", "T.diag_embed(x, True)", "x.diag_embed(0, 1.0)",
    "T.tril(x, True)", "x.triu(True)", "x.tril_(True)", "x.triu_(1.0)", "x.diag(True)",
    "T.diagflat(x, True)", "T.diagonal_copy(x, True)",
    # None where PyTorch takes none
    "x.prod(None)", "x.logsumexp(None)", "x.max(None)", "x.sort(None)", "x.argsort(None)",
    "x.median(None)", "x.kthvalue(1, None)", "x.topk(1, None)", "x.cumsum(None)",
    "x.diagonal(None)", "x.tensor_split(2, None)", "x.rot90(1, None)", "x.squeeze(None)",
    "x.flip(None)", "x.movedim(None, 0)", "x.unbind(None)", "x.chunk(2, None)",
    "x.transpose(None, 0)", "x.softmax(None)", "x.mode(None)", "x.tril(None)",
]
ACCEPTED = [
    "x.chunk(2, 1)", "T.chunk(x, 2, dim=np.int64(1))", "x.unbind(1)",
    "x.transpose(0, 1)", "x.transpose(dim0=0, dim1=1)", "x.unsqueeze(-1)",
    "x.squeeze()", "x.squeeze(0)", "x.squeeze((0, 1))", "T.squeeze(x, dim=0)",
    "x.narrow(1, 0, 2)", "x.narrow(1, T.tensor(1), 2)", "x.select(1, -1)",
    "x.movedim(0, 1)", "x.movedim((0, 1), (1, 0))", "x.split(2, 1)", "x.split([1, 3], 1)",
    "x.repeat(2, True)", "x.repeat((2, 1))", "x.tile(2)", "x.flip(0)", "x.flip(0, 1)",
    "x.roll(1)", "x.roll((1, 2), (0, 1))", "x.flatten(0, -1)", "x.unflatten(1, (2, 2))",
    "T.unfold_copy(x, 0, 2, 1)", "x.unfold(1, 2, 2)", "T.slice_scatter(x, x[:, :2], 1, 0, 2)",
    "T.select_scatter(x, x[0], 0, 1)", "T.squeeze_copy(x, 0)",
    "x.view(4, 3)", "x.view((4, 3))", "x.view(T.Size([4, 3]))", "x.view(T.int32)",
    "x.view(dtype=T.int32)", "x.reshape(-1)", "x.expand(2, 3, 4)", "x.permute(1, 0)",
    "x.view(T.tensor(4), 3)", "x.reshape(2, 2, 3)", "x.permute(1, 0)[None].permute(0, 2, 1, )",
    "x.permute((1, 0))", "T.permute(x, (1, 0))", "T.cat([x, x], 1)", "T.stack([x, x], -1)",
    "x.index_select(1, i)", "x.diff(dim=0)", "x.sum(dtype=T.float64)",
    "x.sum()", "x.sum(0)", "x.sum((0, 1), True)", "x.sum(dim=1, keepdim=True)",
    "x.sum(1, dtype=T.float64)", "T.sum(x, 1)", "x.mean(-1, keepdim=True)", "x.prod(1)",
    "x.max()", "x.max(1)", "x.max(x)", "x.max(1, True)", "x.std()", "x.std(1)", "x.var(False)",
    "x.var(1, unbiased=False)", "x.std(1, correction=0, keepdim=True)", "x.all()",
    "x.any(1)", "x.any((0, 1))", "x.amax(1)", "x.argmax()", "x.logsumexp(1)", "x.cumsum(1)",
    "x.cumsum(dim=0)", "x.logcumsumexp(1)", "x.cummax(1)", "x.renorm(2, 1, 1.0)",
    "x.kthvalue(2, 1)", "x.median(1)", "x.median()", "x.mode(1, True)", "x.nansum(1)",
    "x.aminmax(dim=1)", "x.count_nonzero(1)", "x.count_nonzero((0, 1))", "T.std_mean(x, 1)",
    "T.var_mean(x, False)", "x.softmax(1)", "T.log_softmax(x, 1, T.float64)",
    "x.topk(2)", "x.topk(2, 0, False)", "x.sort()", "T.sort(x, 0, True)", "x.sort(stable=True)",
    "x.sort(dim=0, descending=True)", "x.argsort(1)", "x.argsort(stable=True, dim=0)",
    "x.unsafe_chunk(2, 1)", "x.rot90(1, (1, 0))", "x.tensor_split(2, 1)",
    "x.tensor_split([1, 2])", "x.tensor_split(T.tensor([1, 2]), 1)",
    "x.repeat_interleave(2)", "x.repeat_interleave(T.tensor([1, 2, 1]), 0)",
    "T.repeat_interleave(T.tensor([1, 2]))", "T.repeat_interleave(x, 2, 1)",
    "x.diagonal(1)", "T.diag_embed(x, 1)", "x.tril(-1)", "x.diag()", "T.diagflat(x, 1)",
    # None where a list of ints is optional (or defaults to an empty one)
    "x.sum(None)", "x.mean(None)", "x.std(None)", "x.var(None, True)", "x.nansum(None)",
    "x.amax(None)", "x.all(None)", "x.count_nonzero(None)", "x.argmax(None)",
    "x.roll(1, None)", "x.repeat_interleave(2, None)", "T.std_mean(x, None)",
]


@pytest.mark.parametrize("code", REFUSED)
def test_refused_as_pytorch(code):
    same_error(_run(code))


@pytest.mark.parametrize("code", ACCEPTED)
def test_accepted_as_pytorch(code):
    same(_run(code))


@pytest.mark.parametrize("rows", [
    [[502.7279 + 0j, float("nan"), 488.92627], [float("inf"), 495.33249, 1e38]],
    [[502.7279 + 0j, 1e38, 488.92627], [501.99585, 495.3325, -1e38]],
    [[float("-inf") + 0j, complex(float("-inf"), 1), 1 + 2j, float("inf"),
      complex(float("inf"), -1), 3]]])
def test_complex_logcumsumexp_scans_as_pytorch(rows):
    # strict fuzz entry logcumsumexp: one shift per row (nan, or far larger than the first
    # values) gave inf, nan or -inf where PyTorch's step-by-step scan does not
    same(lambda T: T.tensor(rows, dtype=T.complex128).logcumsumexp(1))


@pytest.mark.parametrize("prog", [
    lambda T: T.ones(3).sum(axis=None, out=None),
    lambda T: T.ones(3).sum(0, axis=1),
], ids=["numpy's sum keywords", "an unknown keyword after a valid call"])
def test_unexpected_keyword_of_the_one_overload_that_fits(prog):
    same_error(prog)

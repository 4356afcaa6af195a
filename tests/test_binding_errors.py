"""PyTorch's argument parser refuses a number where a Tensor is declared and a bool where an
int is, numbering a method's arguments without self (Note [Argument parser checks])."""
import pytest

from helpers import same_error


def _x(T):
    return T.arange(12.).reshape(3, 4)


def _i(T):
    return T.tensor([0, 1])


CASES = {
    "index_add": lambda T: T.index_add(_x(T), 0, 1, _x(T)),
    "index_add method": lambda T: _x(T).index_add(0, 1, _x(T)),
    "index_add_ method": lambda T: _x(T).index_add_(0, 1, _x(T)),
    "index_add dim": lambda T: T.index_add(_x(T), True, _i(T), _x(T)[:2]),
    "index_add dim method": lambda T: _x(T).index_add(True, _i(T), _x(T)[:2]),
    "index_reduce": lambda T: T.index_reduce(_x(T), True, _i(T), _x(T)[:2], "prod"),
    "index_reduce method": lambda T: _x(T).index_reduce(True, _i(T), _x(T)[:2], "prod"),
    "index_reduce index": lambda T: T.index_reduce(_x(T), 1, 1, _x(T), "amax"),
    "index_reduce index method": lambda T: _x(T).index_reduce(1, 1, _x(T), "amax"),
    "index_reduce_ method": lambda T: _x(T).index_reduce_(True, _i(T), _x(T)[:2], "mean"),
    "gather": lambda T: T.gather(_x(T), 0, 0),
    "gather method": lambda T: _x(T).gather(0, 0),
    "gather dim": lambda T: T.gather(_x(T), True, _i(T)),
    "scatter_reduce": lambda T: T.scatter_reduce(_x(T), 0, 1, _x(T), "sum"),
    "scatter_reduce method": lambda T: _x(T).scatter_reduce(0, 1, _x(T), "sum"),
    "scatter_reduce dim": lambda T: T.scatter_reduce(_x(T), True, _i(T), _x(T), "amax"),
    "scatter_reduce dim method": lambda T: _x(T).scatter_reduce(True, _i(T), _x(T), "amax"),
    "scatter_reduce_ method": lambda T: _x(T).scatter_reduce_(0, 1, _x(T), "sum"),
    "masked_select": lambda T: T.masked_select(_x(T), False),
    "masked_select method": lambda T: _x(T).masked_select(False),
    "take": lambda T: T.take(_x(T), 2.0),
    "take method": lambda T: _x(T).take(2.0),
    "take_along_dim": lambda T: T.take_along_dim(_x(T), _i(T), True),
    "take_along_dim method": lambda T: _x(T).take_along_dim(_i(T), True),
    "take_along_dim indices": lambda T: T.take_along_dim(_x(T), 1, 0),
}


@pytest.mark.parametrize("case", CASES)
def test_binding_error(case):
    same_error(CASES[case])


MORE = {
    "topk": lambda T: T.topk(_x(T), True),
    "topk method": lambda T: _x(T).topk(True),
    "topk dim": lambda T: T.topk(_x(T), 1, True),
    "topk dim method": lambda T: _x(T).topk(1, True),
    "logcumsumexp": lambda T: T.logcumsumexp(_x(T), True),
    "logcumsumexp method": lambda T: _x(T).logcumsumexp(True),
    "quantile": lambda T: T.quantile(_x(T), 0.7, True, True),
    "quantile method": lambda T: _x(T).quantile(0.7, True, True),
    "quantile keepdim method": lambda T: _x(T).quantile(0.7, 0, 1),
    "nanquantile method": lambda T: _x(T).nanquantile(0.7, True, True),
    "nanquantile": lambda T: T.nanquantile(_x(T), T.tensor(0.7), True),
    "cumulative_trapezoid": lambda T: T.cumulative_trapezoid(_x(T), 0.0),
    "cumulative_trapezoid int": lambda T: T.cumulative_trapezoid(_x(T), 1),
    "trapezoid": lambda T: T.trapezoid(_x(T), 0.0),
    "trapz": lambda T: T.trapz(_x(T), 2),
    "unsafe_chunk": lambda T: T.unsafe_chunk(_x(T), 3, True),
    "unsafe_chunk method": lambda T: _x(T).unsafe_chunk(3, True),
    "unsafe_chunk chunks": lambda T: T.unsafe_chunk(_x(T), True),
    "unsafe_chunk chunks method": lambda T: _x(T).unsafe_chunk(True),
    "repeat_interleave tensor": lambda T: T.repeat_interleave(_x(T), T.tensor([1, 0, 2]), True),
    "repeat_interleave tensor method": lambda T: _x(T).repeat_interleave(T.tensor([1, 0, 2]),
                                                                         True),
    "repeat_interleave int": lambda T: T.repeat_interleave(_x(T), 2, True),
    "repeat_interleave int method": lambda T: _x(T).repeat_interleave(2, True),
}


@pytest.mark.parametrize("case", MORE)
def test_binding_error_more(case):
    same_error(MORE[case])


OVERLOADED = {
    "index_fill": lambda T: T.index_fill(_x(T), 1, 2, T.tensor(1.)),
    "index_fill dim": lambda T: T.index_fill(_x(T), True, _i(T), 1.0),
    "index_fill method": lambda T: _x(T).index_fill(1, 2, 1.0),
    "index_fill_ method": lambda T: _x(T).index_fill_(True, _i(T), 1.0),
    "masked_fill": lambda T: T.masked_fill(_x(T), 1, 1.5),
    "masked_fill tensor": lambda T: T.masked_fill(_x(T), 1, T.tensor(1.)),
    "masked_fill method": lambda T: _x(T).masked_fill(True, T.tensor(1.)),
    "masked_fill_ method": lambda T: _x(T).masked_fill_(True, 1.),
    "scatter": lambda T: T.scatter(_x(T), True, _i(T), -1),
    "scatter reduce": lambda T: T.scatter(_x(T), 0, 1, _x(T), reduce="add"),
    "scatter method": lambda T: _x(T).scatter(True, _i(T), -1),
    "scatter reduce method": lambda T: _x(T).scatter(True, _i(T), 1, reduce="add"),
    "scatter method index": lambda T: _x(T).scatter(0, 1, _x(T)),
    "scatter_ method": lambda T: _x(T).scatter_(True, _i(T).view(1, 2), _x(T)),
    "scatter_ method index": lambda T: _x(T).scatter_(0, 1, _x(T)),
}


@pytest.mark.parametrize("case", OVERLOADED)
def test_overloaded_binding_error(case):
    same_error(OVERLOADED[case])


STATISTICS = {
    "renorm": lambda T: T.renorm(_x(T), 2, True, 5.0),
    "renorm method": lambda T: _x(T).renorm(2, True, 5.0),
    "renorm_ method": lambda T: _x(T).renorm_(2, True, 5.0),
    "norm_except_dim pow": lambda T: T.norm_except_dim(_x(T), True, 1),
    "norm_except_dim dim": lambda T: T.norm_except_dim(_x(T), 2, True),
}


@pytest.mark.parametrize("case", STATISTICS)
def test_statistics_binding_error(case):
    same_error(STATISTICS[case])

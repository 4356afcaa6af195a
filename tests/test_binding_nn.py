"""The nn function families refuse, before computing, what PyTorch's argument parser refuses
(Note [Argument parser checks] in chainrule/ops/binding.py): each function is called with a
valid set of arguments, then with each argument in turn (by position, or by keyword where the
call names it) replaced by a value of another kind. Wherever PyTorch raises a TypeError,
chainrule raises the same (class and message); wherever PyTorch takes the value, chainrule
raises no TypeError; and the valid call gives PyTorch's result."""
import pytest
import torch

import chainrule
from helpers import error_of, same

# values of each kind the parser distinguishes: bool, int, float, complex, None, a list with a
# bool after an int, and a 0-d / 1-d Tensor (built per library)
BAD = [True, 3, 0.5, 1j, None, (2, True), "tensor(2)", "tensor([2., 3.])"]


def _t(T, *shape, dtype=None, low=0):
    n = 1
    for s in shape:
        n *= s
    x = (T.arange(n, dtype=T.float64) * 0.37 % 1.3 - 0.4 + low).reshape(shape)
    return x if dtype is None else x.to(dtype)


def _long(T, *shape, high=3):
    n = 1
    for s in shape:
        n *= s
    return (T.arange(n) % high).reshape(shape)


def _rnn_params(T, layers=1, gates=1, bias=True):
    params = []
    for layer in range(layers):
        i = 3 if layer == 0 else 4
        params += [_t(T, 4 * gates, i), _t(T, 4 * gates, 4)]
        if bias:
            params += [_t(T, 4 * gates), _t(T, 4 * gates)]
    return params


def _F(T):
    return T.nn.functional


# name -> T -> (function, positional arguments, keyword arguments)
CALLS = {
    # ---- convolution
    "conv1d": lambda T: (T.conv1d, [_t(T, 1, 2, 5), _t(T, 3, 2, 2), _t(T, 3), 1, 0, 1, 1], {}),
    # (no keyword arguments: PyTorch lists those of a refused overloaded call in its hash
    # map's order)
    "conv1d same": lambda T: (T.conv1d, [_t(T, 1, 2, 5), _t(T, 3, 2, 2), None, 1, "same", 1, 1],
                              {}),
    "conv2d": lambda T: (_F(T).conv2d, [_t(T, 1, 2, 4, 4), _t(T, 3, 2, 2, 2), _t(T, 3), (1, 1),
                                        0, 1, 1], {}),
    "conv3d": lambda T: (T.conv3d, [_t(T, 1, 2, 3, 3, 3), _t(T, 2, 2, 2, 2, 2), None, 1, 0, 1,
                                    1], {}),
    "conv_transpose1d": lambda T: (T.conv_transpose1d, [_t(T, 1, 2, 5), _t(T, 2, 3, 2), _t(T, 3),
                                                        1, 0, 0, 1, 1], {}),
    "conv_transpose2d": lambda T: (_F(T).conv_transpose2d, [_t(T, 1, 2, 3, 3),
                                                            _t(T, 2, 3, 2, 2)],
                                   dict(bias=None, stride=2, padding=0, output_padding=1,
                                        groups=1, dilation=1)),
    "conv_transpose3d": lambda T: (T.conv_transpose3d, [_t(T, 1, 2, 2, 2, 2),
                                                        _t(T, 2, 1, 2, 2, 2), None, 1, 0, 0, 1,
                                                        1], {}),
    "convolution": lambda T: (T.convolution, [_t(T, 1, 2, 5), _t(T, 3, 2, 2), _t(T, 3), [1],
                                              [0], [1], False, [0], 1], {}),
    "conv_tbc": lambda T: (T.conv_tbc, [_t(T, 5, 1, 2), _t(T, 2, 2, 3), _t(T, 3), 1], {}),
    # ---- pooling
    "torch.max_pool1d": lambda T: (T.max_pool1d, [_t(T, 1, 2, 6), 2, 2, 0, 1, False], {}),
    "torch.max_pool1d kw": lambda T: (T.max_pool1d, [_t(T, 1, 2, 6), 2],
                                      dict(stride=1, padding=1, dilation=1, ceil_mode=True)),
    "torch.max_pool2d": lambda T: (T.max_pool2d, [_t(T, 1, 2, 4, 4), 2, 1, 0, 1, False], {}),
    "torch.max_pool3d": lambda T: (T.max_pool3d, [_t(T, 1, 1, 4, 4, 4), 2, 2, 0, 1, False], {}),
    "torch.max_pool1d_with_indices": lambda T: (T.max_pool1d_with_indices,
                                                [_t(T, 1, 2, 6), 2, 2, 0, 1, False], {}),
    "F.max_pool1d": lambda T: (_F(T).max_pool1d, [_t(T, 1, 2, 6), 2, 2, 0, 1, False, False], {}),
    "F.max_pool1d kw": lambda T: (_F(T).max_pool1d, [_t(T, 1, 2, 6), 2],
                                  dict(stride=None, padding=0, dilation=1, ceil_mode=False,
                                       return_indices=True)),
    "F.max_pool2d": lambda T: (_F(T).max_pool2d, [_t(T, 1, 2, 4, 4), 2],
                               dict(stride=2, padding=0, dilation=1, ceil_mode=False,
                                    return_indices=False)),
    "F.max_pool2d indices": lambda T: (_F(T).max_pool2d, [_t(T, 1, 2, 4, 4), 2, 1, 0, 1, False,
                                                          True], {}),
    "F.max_pool3d": lambda T: (_F(T).max_pool3d, [_t(T, 1, 1, 4, 4, 4), 2, 2, 0, 1, False,
                                                  False], {}),
    "F.max_pool3d_with_indices": lambda T: (_F(T).max_pool3d_with_indices,
                                            [_t(T, 1, 1, 4, 4, 4), 2, 2, 0, 1, False], {}),
    "avg_pool1d": lambda T: (T.avg_pool1d, [_t(T, 1, 2, 6), 2, 2, 0, False, True], {}),
    "avg_pool1d kw": lambda T: (T.avg_pool1d, [_t(T, 1, 2, 6)],
                                dict(kernel_size=3, stride=1, padding=1, ceil_mode=True,
                                     count_include_pad=False)),
    "F.avg_pool2d": lambda T: (_F(T).avg_pool2d, [_t(T, 1, 2, 4, 4), 2, 2, 0, False, True, None],
                               {}),
    "F.avg_pool2d kw": lambda T: (_F(T).avg_pool2d, [_t(T, 1, 2, 4, 4), 2],
                                  dict(stride=1, padding=1, ceil_mode=False,
                                       count_include_pad=True, divisor_override=2)),
    "F.avg_pool3d": lambda T: (_F(T).avg_pool3d, [_t(T, 1, 1, 4, 4, 4), 2, 2, 0, False, True,
                                                  3], {}),
    "F.lp_pool1d": lambda T: (_F(T).lp_pool1d, [_t(T, 1, 2, 6, low=1), 2.0, 2, 2, False], {}),
    "F.lp_pool2d": lambda T: (_F(T).lp_pool2d, [_t(T, 1, 2, 4, 4, low=1), 2, 2, None, False],
                              {}),
    "F.lp_pool3d": lambda T: (_F(T).lp_pool3d, [_t(T, 1, 1, 4, 4, 4, low=1), 2, 2, 2, False],
                              {}),
    "adaptive_avg_pool1d": lambda T: (T.adaptive_avg_pool1d, [_t(T, 1, 2, 6), 3], {}),
    "F.adaptive_avg_pool2d": lambda T: (_F(T).adaptive_avg_pool2d, [_t(T, 1, 2, 4, 4), (2, 2)],
                                        {}),
    "F.adaptive_avg_pool3d": lambda T: (_F(T).adaptive_avg_pool3d, [_t(T, 1, 1, 4, 4, 4), 2],
                                        {}),
    "adaptive_max_pool1d": lambda T: (T.adaptive_max_pool1d, [_t(T, 1, 2, 6), 3], {}),
    "F.adaptive_max_pool1d": lambda T: (_F(T).adaptive_max_pool1d, [_t(T, 1, 2, 6), 3, True],
                                        {}),
    "F.adaptive_max_pool2d": lambda T: (_F(T).adaptive_max_pool2d, [_t(T, 1, 2, 4, 4), 2,
                                                                    False], {}),
    "F.adaptive_max_pool3d": lambda T: (_F(T).adaptive_max_pool3d, [_t(T, 1, 1, 4, 4, 4), 2],
                                        dict(return_indices=True)),
    "F.fractional_max_pool2d": lambda T: (
        _F(T).fractional_max_pool2d, [_t(T, 1, 2, 5, 5), 2, 3, None, False,
                                      _t(T, 1, 2, 2, low=0.4) % 1], {}),
    "F.fractional_max_pool3d": lambda T: (
        _F(T).fractional_max_pool3d, [_t(T, 1, 1, 5, 5, 5), 2],
        dict(output_size=3, return_indices=True, _random_samples=_t(T, 1, 1, 3, low=0.4) % 1)),
    "F.max_unpool1d": lambda T: (_F(T).max_unpool1d, [_t(T, 1, 2, 3), T.tensor(
        [[[0, 2, 4], [1, 3, 5]]]), 2, 2, 0, None], {}),
    "F.max_unpool2d": lambda T: (_F(T).max_unpool2d, [_t(T, 1, 1, 2, 2), T.tensor(
        [[[[0, 3], [8, 11]]]]), 2], {}),
    "F.max_unpool3d": lambda T: (_F(T).max_unpool3d, [_t(T, 1, 1, 1, 1, 1),
                                                      _long(T, 1, 1, 1, 1, 1, high=1), 2, 2, 0],
                                 {}),
    # ---- normalization
    "torch.batch_norm": lambda T: (T.batch_norm, [_t(T, 4, 3, 2), _t(T, 3), _t(T, 3), _t(T, 3),
                                                  _t(T, 3, low=1), False, 0.1, 1e-5, False], {}),
    "F.batch_norm": lambda T: (_F(T).batch_norm, [_t(T, 4, 3, 2), _t(T, 3), _t(T, 3, low=1),
                                                  _t(T, 3), _t(T, 3), True, 0.1, 1e-5], {}),
    "F.batch_norm kw": lambda T: (_F(T).batch_norm, [_t(T, 4, 3, 2), None, None],
                                  dict(weight=_t(T, 3), bias=None, training=True, momentum=0.1,
                                       eps=1e-5)),
    "torch.layer_norm": lambda T: (T.layer_norm, [_t(T, 2, 3), [3], _t(T, 3), None, 1e-5, True],
                                   {}),
    "F.layer_norm": lambda T: (_F(T).layer_norm, [_t(T, 2, 3), (3,), _t(T, 3), _t(T, 3), 1e-5],
                               {}),
    "torch.group_norm": lambda T: (T.group_norm, [_t(T, 2, 4, 2), 2, _t(T, 4), None, 1e-5, True],
                                   {}),
    "F.group_norm": lambda T: (_F(T).group_norm, [_t(T, 2, 4, 2), 2, _t(T, 4), _t(T, 4), 1e-5],
                               {}),
    "torch.instance_norm": lambda T: (T.instance_norm, [_t(T, 2, 3, 4), _t(T, 3), _t(T, 3),
                                                        _t(T, 3), _t(T, 3, low=1), True, 0.1,
                                                        1e-5, False], {}),
    "F.instance_norm": lambda T: (_F(T).instance_norm, [_t(T, 2, 3, 4), _t(T, 3),
                                                        _t(T, 3, low=1), _t(T, 3), _t(T, 3),
                                                        True, 0.1, 1e-5], {}),
    "torch.rms_norm": lambda T: (T.rms_norm, [_t(T, 2, 3), [3], _t(T, 3), 1e-6], {}),
    "F.rms_norm": lambda T: (_F(T).rms_norm, [_t(T, 2, 3), (3,), _t(T, 3), None], {}),
    "_weight_norm": lambda T: (T._weight_norm, [_t(T, 3, 2), _t(T, 3, 1), 0], {}),
    "norm_except_dim": lambda T: (T.norm_except_dim, [_t(T, 3, 2), 2, 0], {}),
    # ---- recurrent
    "rnn_tanh": lambda T: (T.rnn_tanh, [_t(T, 2, 1, 3), _t(T, 1, 1, 4), _rnn_params(T), True, 1,
                                        0.0, False, False, False], {}),
    "rnn_relu": lambda T: (T.rnn_relu, [_t(T, 1, 2, 3), _t(T, 1, 1, 4), _rnn_params(T), True, 1,
                                        0.0, False, False, True], {}),
    "gru": lambda T: (T.gru, [_t(T, 2, 1, 3), _t(T, 1, 1, 4), _rnn_params(T, gates=3), True, 1,
                              0.0, False, False, False], {}),
    "lstm": lambda T: (T.lstm, [_t(T, 2, 1, 3), [_t(T, 1, 1, 4), _t(T, 1, 1, 4)],
                                _rnn_params(T, gates=4), True, 1, 0.0, False, False, False], {}),
    "gru data": lambda T: (T.gru, [_t(T, 2, 3), T.tensor([1, 1]), _t(T, 1, 1, 4),
                                   _rnn_params(T, gates=3), True, 1, 0.0, False, False], {}),
    "rnn_tanh_cell": lambda T: (T.rnn_tanh_cell, [_t(T, 2, 3), _t(T, 2, 4), _t(T, 4, 3),
                                                  _t(T, 4, 4), _t(T, 4), _t(T, 4)], {}),
    "rnn_relu_cell": lambda T: (T.rnn_relu_cell, [_t(T, 2, 3), _t(T, 2, 4), _t(T, 4, 3),
                                                  _t(T, 4, 4)], dict(b_ih=None, b_hh=_t(T, 4))),
    "gru_cell": lambda T: (T.gru_cell, [_t(T, 2, 3), _t(T, 2, 4), _t(T, 12, 3), _t(T, 12, 4),
                                        _t(T, 12), None], {}),
    "lstm_cell": lambda T: (T.lstm_cell, [_t(T, 2, 3), (_t(T, 2, 4), _t(T, 2, 4)),
                                          _t(T, 16, 3), _t(T, 16, 4), _t(T, 16), _t(T, 16)], {}),
    # ---- dropout
    "torch.dropout": lambda T: (T.dropout, [_t(T, 3, 4), 0.0, True], {}),
    "torch.dropout_": lambda T: (T.dropout_, [_t(T, 3, 4), 0.0, False], {}),
    "torch.alpha_dropout": lambda T: (T.alpha_dropout, [_t(T, 3, 4), 0.5, False], {}),
    "torch.feature_alpha_dropout": lambda T: (T.feature_alpha_dropout, [_t(T, 3, 4), 0.0, True],
                                              {}),
    "torch.feature_dropout": lambda T: (T.feature_dropout, [_t(T, 3, 4), 0.0, True], {}),
    "F.dropout": lambda T: (_F(T).dropout, [_t(T, 3, 4), 0.0, True, False], {}),
    "F.dropout kw": lambda T: (_F(T).dropout, [_t(T, 3, 4)], dict(p=0.0, training=True,
                                                                 inplace=True)),
    "F.alpha_dropout": lambda T: (_F(T).alpha_dropout, [_t(T, 3, 4), 0.0, True, False], {}),
    "F.feature_alpha_dropout": lambda T: (_F(T).feature_alpha_dropout, [_t(T, 3, 4, 2), 0.0,
                                                                        True, False], {}),
    "F.dropout1d": lambda T: (_F(T).dropout1d, [_t(T, 2, 3, 4), 0.0, True, False], {}),
    "F.dropout2d": lambda T: (_F(T).dropout2d, [_t(T, 2, 3, 4, 2), 0.0, True, False], {}),
    "F.dropout3d": lambda T: (_F(T).dropout3d, [_t(T, 2, 3, 2, 2, 2), 0.0, True, False], {}),
    # ---- embedding, linear
    "torch.embedding": lambda T: (T.embedding, [_t(T, 5, 3), _long(T, 2, 2), -1, False, False],
                                  {}),
    "F.embedding": lambda T: (_F(T).embedding, [_long(T, 2, 2), _t(T, 5, 3), 0, None, 2.0,
                                                False, False], {}),
    "F.embedding max_norm": lambda T: (_F(T).embedding, [_long(T, 2, 2), _t(T, 5, 3)],
                                       dict(max_norm=1.0, norm_type=2.0)),
    "F.embedding_bag": lambda T: (_F(T).embedding_bag, [_long(T, 4), _t(T, 5, 3),
                                                        T.tensor([0, 2])],
                                  dict(mode="sum", include_last_offset=False)),
    "F.linear": lambda T: (_F(T).linear, [_t(T, 2, 3), _t(T, 4, 3), _t(T, 4)], {}),
    "F.bilinear": lambda T: (_F(T).bilinear, [_t(T, 2, 3), _t(T, 2, 2), _t(T, 4, 3, 2),
                                              _t(T, 4)], {}),
    # ---- activations
    "F.glu": lambda T: (_F(T).glu, [_t(T, 2, 4), -1], {}),
    "F.glu kw": lambda T: (_F(T).glu, [_t(T, 2, 4)], dict(dim=1)),
    "F.relu": lambda T: (_F(T).relu, [_t(T, 2, 4), False], {}),
    "torch.relu": lambda T: (T.relu, [_t(T, 2, 4)], {}),
    "F.leaky_relu": lambda T: (_F(T).leaky_relu, [_t(T, 2, 4), 0.1, False], {}),
    "F.elu": lambda T: (_F(T).elu, [_t(T, 2, 4), 1.0, False], {}),
    "F.selu": lambda T: (_F(T).selu, [_t(T, 2, 4), False], {}),
    "F.celu": lambda T: (_F(T).celu, [_t(T, 2, 4), 1.0, False], {}),
    "F.threshold": lambda T: (_F(T).threshold, [_t(T, 2, 4), 0.1, 2.0, False], {}),
    "torch.threshold": lambda T: (T.threshold, [_t(T, 2, 4), 0.1, 2.0], {}),
    "F.rrelu": lambda T: (_F(T).rrelu, [_t(T, 2, 4), 0.1, 0.3, False, False], {}),
    "torch.rrelu": lambda T: (T.rrelu, [_t(T, 2, 4), 0.1, 0.3, False], {}),
    "F.hardtanh": lambda T: (_F(T).hardtanh, [_t(T, 2, 4), -0.5, 0.5, False], {}),
    "F.relu6": lambda T: (_F(T).relu6, [_t(T, 2, 4), False], {}),
    "F.softplus": lambda T: (_F(T).softplus, [_t(T, 2, 4), 1.0, 20.0], {}),
    "F.softshrink": lambda T: (_F(T).softshrink, [_t(T, 2, 4), 0.5], {}),
    "F.hardshrink": lambda T: (_F(T).hardshrink, [_t(T, 2, 4), 0.5], {}),
    "F.gelu": lambda T: (_F(T).gelu, [_t(T, 2, 4)], dict(approximate="tanh")),
    "F.silu": lambda T: (_F(T).silu, [_t(T, 2, 4), False], {}),
    "F.mish": lambda T: (_F(T).mish, [_t(T, 2, 4), False], {}),
    "F.hardsigmoid": lambda T: (_F(T).hardsigmoid, [_t(T, 2, 4), False], {}),
    "F.hardswish": lambda T: (_F(T).hardswish, [_t(T, 2, 4), False], {}),
    "F.prelu": lambda T: (_F(T).prelu, [_t(T, 2, 4), _t(T, 1)], {}),
    "torch.prelu": lambda T: (T.prelu, [_t(T, 2, 4), _t(T, 1)], {}),
    "Tensor.prelu": lambda T: (T.Tensor.prelu, [_t(T, 2, 4), _t(T, 1)], {}),
    "F.logsigmoid": lambda T: (_F(T).logsigmoid, [_t(T, 2, 4)], {}),
    "F.softmax": lambda T: (_F(T).softmax, [_t(T, 2, 4), 1], {}),
    "F.log_softmax": lambda T: (_F(T).log_softmax, [_t(T, 2, 4)], dict(dim=0)),
    "F.softmin": lambda T: (_F(T).softmin, [_t(T, 2, 4), 1], {}),
    "torch.softmax": lambda T: (T.softmax, [_t(T, 2, 4), 1], {}),
    "torch.log_softmax": lambda T: (T.log_softmax, [_t(T, 2, 4), 1], {}),
    # ---- losses
    "F.nll_loss": lambda T: (_F(T).nll_loss, [_t(T, 3, 4), _long(T, 3), _t(T, 4)],
                             dict(ignore_index=-100, reduction="mean")),
    "F.cross_entropy": lambda T: (_F(T).cross_entropy, [_t(T, 3, 4), _long(T, 3), None],
                                  dict(ignore_index=-100, reduction="mean",
                                       label_smoothing=0.1)),
    "F.mse_loss": lambda T: (_F(T).mse_loss, [_t(T, 3, 4), _t(T, 3, 4, low=1)], {}),
    "F.l1_loss": lambda T: (_F(T).l1_loss, [_t(T, 3, 4), _t(T, 3, 4, low=1)], {}),
    "F.smooth_l1_loss": lambda T: (_F(T).smooth_l1_loss, [_t(T, 3, 4), _t(T, 3, 4, low=1)],
                                   dict(beta=0.5)),
    "F.huber_loss": lambda T: (_F(T).huber_loss, [_t(T, 3, 4), _t(T, 3, 4, low=1)],
                               dict(delta=0.5)),
    "F.binary_cross_entropy": lambda T: (_F(T).binary_cross_entropy,
                                         [_t(T, 3, 4, low=0.45) % 1, _t(T, 3, 4, low=0.4) % 1,
                                          None],
                                         {}),
    "F.binary_cross_entropy_with_logits": lambda T: (
        _F(T).binary_cross_entropy_with_logits, [_t(T, 3, 4), _t(T, 3, 4, low=0.4), None],
        dict(reduction="sum", pos_weight=_t(T, 4))),
    "torch.binary_cross_entropy_with_logits": lambda T: (
        T.binary_cross_entropy_with_logits, [_t(T, 3, 4), _t(T, 3, 4), None, None, 1], {}),
    "F.kl_div": lambda T: (_F(T).kl_div, [_t(T, 3, 4), _t(T, 3, 4, low=0.4), None, None,
                                          "batchmean", False], {}),
    "torch.kl_div": lambda T: (T.kl_div, [_t(T, 3, 4), _t(T, 3, 4), 1], dict(log_target=True)),
    "F.poisson_nll_loss": lambda T: (_F(T).poisson_nll_loss, [_t(T, 3, 4), _t(T, 3, 4, low=1),
                                                              True, False, None, 1e-8],
                                     dict(reduction="mean")),
    "torch.poisson_nll_loss": lambda T: (T.poisson_nll_loss, [_t(T, 3, 4), _t(T, 3, 4), True,
                                                              True, 1e-8, 1], {}),
    "F.gaussian_nll_loss": lambda T: (_F(T).gaussian_nll_loss, [_t(T, 3, 4), _t(T, 3, 4),
                                                                _t(T, 3, 4, low=1), False, 1e-6,
                                                                "mean"], {}),
    "F.margin_ranking_loss": lambda T: (_F(T).margin_ranking_loss, [_t(T, 4), _t(T, 4),
                                                                    T.tensor([1., -1, 1, 1]),
                                                                    0.5], {}),
    "torch.margin_ranking_loss": lambda T: (T.margin_ranking_loss, [_t(T, 4), _t(T, 4), _t(T, 4),
                                                                    0.5, 1], {}),
    "F.hinge_embedding_loss": lambda T: (_F(T).hinge_embedding_loss, [_t(T, 4), T.tensor(
        [1., -1, 1, 1]), 1.0], dict(reduction="sum")),
    "torch.hinge_embedding_loss": lambda T: (T.hinge_embedding_loss, [_t(T, 4), _t(T, 4), 1.0,
                                                                      1], {}),
    "F.cosine_embedding_loss": lambda T: (_F(T).cosine_embedding_loss, [_t(T, 3, 4), _t(T, 3, 4),
                                                                        T.tensor([1, -1, 1]),
                                                                        0.2], {}),
    "torch.cosine_embedding_loss": lambda T: (T.cosine_embedding_loss, [_t(T, 3, 4), _t(T, 3, 4),
                                                                        T.tensor([1, -1, 1]),
                                                                        0.2, 1], {}),
    "F.triplet_margin_loss": lambda T: (_F(T).triplet_margin_loss, [_t(T, 3, 4), _t(T, 3, 4),
                                                                    _t(T, 3, 4, low=1), 1.0, 2,
                                                                    1e-6, False], {}),
    "F.triplet_margin_loss kw": lambda T: (_F(T).triplet_margin_loss, [_t(T, 3, 4), _t(T, 3, 4),
                                                                       _t(T, 3, 4, low=1)],
                                           dict(margin=1.0, p=3, eps=1e-6, swap=True,
                                                reduction="sum")),
    "torch.triplet_margin_loss": lambda T: (T.triplet_margin_loss, [_t(T, 3, 4), _t(T, 3, 4),
                                                                    _t(T, 3, 4), 1.0, 2.0, 1e-6,
                                                                    False, 1], {}),
    "F.soft_margin_loss": lambda T: (_F(T).soft_margin_loss, [_t(T, 4), T.tensor([1., -1, 1, 1])],
                                     dict(reduction="mean")),
    "F.multi_margin_loss": lambda T: (_F(T).multi_margin_loss, [_t(T, 3, 4), _long(T, 3), 1,
                                                                1.0, _t(T, 4)], {}),
    "F.multilabel_margin_loss": lambda T: (_F(T).multilabel_margin_loss, [_t(T, 3, 4),
                                                                          _long(T, 3, 4)], {}),
    "F.multilabel_soft_margin_loss": lambda T: (_F(T).multilabel_soft_margin_loss,
                                                [_t(T, 3, 4), _long(T, 3, 4, high=2), _t(T, 4)],
                                                {}),
}


# (call, argument) -> why chainrule still differs there
_ROWS = "refused by the registry's dispatch of the op row, not by an nn declaration"
OPEN = {
    **{(n, 0): _ROWS for n in ("F.relu", "torch.relu", "F.silu", "F.mish", "F.hardsigmoid",
                               "F.hardswish", "torch.threshold")},
    ("torch.threshold", 1): _ROWS, ("torch.threshold", 2): _ROWS, ("torch.softmax", 1): _ROWS,
    ("torch.log_softmax", 1): _ROWS, ("F.softmin", 1): _ROWS,
    ("Tensor.prelu", 0): "a method called through the class with another self",
    ("F.elu", 1): "a complex alpha: PyTorch's kernel refuses it with a RuntimeError",
    ("F.celu", 1): "a complex alpha: PyTorch's kernel refuses it with a RuntimeError",
    ("F.gaussian_nll_loss", 4): "Tensor.clamp_'s refusal of a non-number bound",
    # nn.functional's Python arithmetic on the arguments before the binding
    **{(f"F.lp_pool{d}d", 1): "Tensor.pow's refusal of a non-number exponent"
       for d in (1, 2, 3)},
}


def _value(v, T):
    if isinstance(v, str) and v.startswith("tensor("):
        return eval("T." + v, {"T": T})
    return v


def _outcome(T, name, where, value):
    """The TypeError (class name, message) of the call with the argument at `where` (an index
    or a keyword) replaced by `value`, or None when it raises no TypeError."""
    fn, args, kwargs = CALLS[name](T)
    if where is not None:
        if isinstance(where, int):
            args[where] = _value(value, T)
        else:
            kwargs[where] = _value(value, T)
    err = error_of(lambda: fn(*args, **kwargs))
    return (type(err).__name__, str(err)) if isinstance(err, TypeError) else None


def _places(name):
    _, args, kwargs = CALLS[name](torch)
    return list(range(len(args))) + list(kwargs)


def mismatches(name):
    found = []
    for where in _places(name):
        if (name, where) in OPEN:
            continue
        for value in BAD:
            theirs = _outcome(torch, name, where, value)
            ours = _outcome(chainrule, name, where, value)
            if ours != theirs:
                found.append((where, value, ours, theirs))
    return found


@pytest.mark.parametrize("name", list(CALLS))
def test_refuses_what_pytorch_refuses(name):
    assert mismatches(name) == []


def _result(T, name):
    fn, args, kwargs = CALLS[name](T)
    T.manual_seed(0)
    return fn(*args, **kwargs)


@pytest.mark.parametrize("name", [n for n in CALLS if "dropout" not in n and "rrelu" not in n])
def test_valid_call_matches_pytorch(name):
    same(lambda T: _result(T, name))


if __name__ == "__main__":
    import sys
    for name in sys.argv[1:] or CALLS:
        for m in mismatches(name):
            print(name, "|", *m, sep=" ")


def test_rnn_takes_keyword_arguments():
    same(lambda T: T.rnn_tanh(_t(T, 2, 1, 3), _t(T, 1, 1, 4), _rnn_params(T), True, 1,
                              dropout=0.0, train=False, bidirectional=False, batch_first=False))
    same(lambda T: T.lstm(_t(T, 2, 1, 3), hx=[_t(T, 1, 1, 4), _t(T, 1, 1, 4)],
                          params=_rnn_params(T, gates=4), has_biases=True, num_layers=1,
                          dropout=0.0, train=False, bidirectional=False, batch_first=False))

"""torch.nn.grad: the gradients of conv1d/2d/3d with respect to their input and weight, from
convolution_backward, as PyTorch computes them."""
from ..ops.conv import convolution_backward as _convolution_backward
from .modules.utils import _pair, _single, _triple

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input",
           "conv3d_weight"]


def _conv_grad(n_dims, tuple_n, which):
    def grad(input_or_size, weight_or_size, grad_output, stride=1, padding=0, dilation=1,
             groups=1):
        shape = input_or_size if which == 0 else weight_or_size
        # the input (or weight) of the given size only lends its shape
        placeholder = grad_output.new_empty(1).expand(tuple(shape))
        input, weight = ((placeholder, weight_or_size) if which == 0
                         else (input_or_size, placeholder))
        mask = (which == 0, which == 1, False)
        n = grad_output.dim() - 2
        return _convolution_backward(grad_output, input, weight, tuple_n(stride),
                                     tuple_n(padding), tuple_n(dilation), False, (0,) * n,
                                     groups, mask)[which]
    grad.__name__ = grad.__qualname__ = f"conv{n_dims}d_{('input', 'weight')[which]}"
    return grad


conv1d_input, conv1d_weight = _conv_grad(1, _single, 0), _conv_grad(1, _single, 1)
conv2d_input, conv2d_weight = _conv_grad(2, _pair, 0), _conv_grad(2, _pair, 1)
conv3d_input, conv3d_weight = _conv_grad(3, _triple, 0), _conv_grad(3, _triple, 1)

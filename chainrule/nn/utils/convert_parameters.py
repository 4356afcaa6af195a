"""torch.nn.utils.convert_parameters: parameters to one vector and back."""
from ..._tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """Concatenate the flattened parameters into one vector."""
    from ... import cat
    return cat([param.view(-1) for param in parameters])


def vector_to_parameters(vec, parameters):
    """Make consecutive slices of `vec` the data of the parameters."""
    if not isinstance(vec, Tensor):
        from ..._platform import typename
        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    pointer = 0
    for param in parameters:
        num_param = param.numel()
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param

"""FuzzedSparseTensor: a FuzzedTensor describing a sparse COO tensor. chainrule has no sparse
layouts, so its parameters and constraints take part in a Fuzzer's draws as in PyTorch, but
building the tensor raises NotImplementedError (after PyTorch's own argument checks)."""
import math
from numbers import Number

from .... import float32
from .fuzzer import FuzzedTensor

__all__ = ["FuzzedSparseTensor"]


def _no_sparse():
    return NotImplementedError("FuzzedSparseTensor: chainrule has no sparse tensors "
                               "(torch.sparse_coo_tensor), so it cannot build one")


class FuzzedSparseTensor(FuzzedTensor):
    """A sparse tensor of `size` with the sparse_dim, nnz, density and coalesced parameters
    PyTorch takes (their names in the Fuzzer's parameters)."""

    def __init__(self, name, size, min_elements=None, max_elements=None, dim_parameter=None,
                 sparse_dim=None, nnz=None, density=None, coalesced=None, dtype=float32,
                 cuda=False):
        super().__init__(name=name, size=size, min_elements=min_elements,
                         max_elements=max_elements, dim_parameter=dim_parameter, dtype=dtype,
                         cuda=cuda)
        self._density = density
        self._coalesced = coalesced
        self._sparse_dim = sparse_dim

    @staticmethod
    def sparse_tensor_constructor(size, dtype, sparse_dim, nnz, is_coalesced):
        """PyTorch builds a random COO tensor here; chainrule raises NotImplementedError."""
        if isinstance(size, Number):
            size = [size] * sparse_dim
        if all(size[d] <= 0 for d in range(sparse_dim)) and nnz != 0:
            raise AssertionError('invalid arguments')
        raise _no_sparse()

    def _make_tensor(self, params, state):
        size, _, _ = self._get_size_and_steps(params)
        density = params['density']
        nnz = math.ceil(sum(size) * density)
        if nnz > sum(size):
            raise AssertionError('nnz cannot exceed total number of elements')
        sparse_dim = params['sparse_dim'] if self._sparse_dim else len(size)
        self.sparse_tensor_constructor(size, self._dtype, min(sparse_dim, len(size)), nnz,
                                       params['coalesced'])

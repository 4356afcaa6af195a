"""chainrule.testing: PyTorch's torch.testing (assert_close, assert_allclose, make_tensor)
for chainrule tensors, and the op database (testing.opdb: sample inputs for every op in the
table) that the test suite checks against finite differences and PyTorch."""
from ._comparison import assert_allclose, assert_close
from ._creation import make_tensor

__all__ = ["assert_close", "assert_allclose", "make_tensor"]

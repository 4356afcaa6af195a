import numpy as np
import pytest
import torch

import chainrule


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture(autouse=True)
def _restore_global_state():
    """Tests may change the default dtype or print options; put them back."""
    yield
    chainrule.set_default_dtype(chainrule.float32)
    torch.set_default_dtype(torch.float32)

"""torch.backends.mha: the fast-path flag of MultiheadAttention / TransformerEncoder."""

__all__ = ["get_fastpath_enabled", "set_fastpath_enabled"]

_is_fastpath_enabled = True


def get_fastpath_enabled():
    """Whether the fused fast path may be used (a flag; chainrule has one path)."""
    return _is_fastpath_enabled


def set_fastpath_enabled(value):
    global _is_fastpath_enabled
    _is_fastpath_enabled = value

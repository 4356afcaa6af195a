"""torch.backends.kleidiai: Arm KleidiAI kernels (not used by chainrule)."""

__all__ = ["is_available"]


def is_available():
    return False

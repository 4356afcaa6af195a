"""torch.backends.cusparselt: NVIDIA cuSPARSELt, absent without CUDA."""

__all__ = ["version", "is_available", "get_max_alg_id"]


def version():
    return None


def is_available():
    return False


def get_max_alg_id():
    return None

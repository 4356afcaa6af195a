"""torch.backends.cpu: the SIMD level NumPy's kernels were dispatched for on this CPU."""

__all__ = ["get_cpu_capability"]


def get_cpu_capability():
    """'AVX512', 'AVX2', 'VSX', 'Z VECTOR', 'SVE256', 'NO AVX' or 'DEFAULT', from the CPU
    features NumPy detected (PyTorch reports its own kernels' level the same way)."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as f
    except ImportError:     # NumPy 1.x
        from numpy.core._multiarray_umath import __cpu_features__ as f
    if all(f.get(k) for k in ("AVX512F", "AVX512CD", "AVX512VL", "AVX512BW", "AVX512DQ")):
        return "AVX512"
    if f.get("AVX2") and f.get("FMA3"):
        return "AVX2"
    if f.get("VSX"):
        return "VSX"
    if f.get("VX"):
        return "Z VECTOR"
    if f.get("SVE"):
        return "SVE256"
    if "AVX" in f and not f.get("AVX"):
        return "NO AVX"
    return "DEFAULT"

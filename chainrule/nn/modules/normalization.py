"""normalization layers"""
__all__ = []

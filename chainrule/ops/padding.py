"""Padding: constant_pad_nd and nn.functional.pad."""
__all__ = []

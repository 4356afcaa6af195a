"""conv layers"""
__all__ = []

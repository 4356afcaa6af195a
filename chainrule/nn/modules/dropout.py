"""dropout layers"""
__all__ = []

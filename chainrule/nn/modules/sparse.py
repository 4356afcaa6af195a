"""sparse layers"""
__all__ = []

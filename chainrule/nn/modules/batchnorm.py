"""batchnorm layers"""
__all__ = []

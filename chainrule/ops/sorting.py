"""Sorting and searching: sort, argsort, topk, nonzero, unique, searchsorted."""

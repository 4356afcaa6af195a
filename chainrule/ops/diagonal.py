"""Triangles and diagonals: tril, triu, diagonal, diag, trace."""

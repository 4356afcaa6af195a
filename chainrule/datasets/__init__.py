"""Small public data sets shipped with chainrule, so demos run offline."""
from importlib import resources
from typing import NamedTuple

import numpy as np

__all__ = ["KarateClub", "load_karate_club"]


class KarateClub(NamedTuple):
    """Zachary's karate club as NumPy arrays: `edges` (78, 2) member pairs (u < v),
    `weights` (78,) interaction counts, `labels` (34,) faction index into `classes`."""
    edges: np.ndarray
    weights: np.ndarray
    labels: np.ndarray
    classes: tuple


def load_karate_club():
    """Zachary's karate club (1977): 34 members, 78 friendships, two factions."""
    text = resources.files(__package__).joinpath("karate_club.txt").read_text(encoding="utf-8")
    clubs, edges = [], []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        kind, rest = line.split(maxsplit=1)
        if kind == "member":
            clubs.append(rest.split(maxsplit=1)[1])   # members are listed in id order
        else:
            edges.append([int(v) for v in rest.split()])
    classes = tuple(sorted(set(clubs)))
    edges = np.array(edges, dtype=np.int64)
    labels = np.array([classes.index(c) for c in clubs], dtype=np.int64)
    return KarateClub(edges[:, :2].copy(), edges[:, 2].copy(), labels, classes)

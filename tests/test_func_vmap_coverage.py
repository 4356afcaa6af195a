"""Which op-database entries vmap runs batched: each entry's first sample, batched twice
along a new dim 0, must not fall back (to the per-op loop or the element-by-element rerun)
if it is listed in vmap_batched_entries.txt, so a rule that stops applying fails here. The
list grows as rules are added (regenerate it with `python tests/test_func_vmap_coverage.py`);
entries not in it still fall back (the issue's goal is none of the op database)."""
import functools
import os
import warnings

import numpy as np

import chainrule
from chainrule.func import _batched, _vmap
from chainrule.testing.opdb import all_entries

LIST = os.path.join(os.path.dirname(__file__), "vmap_batched_entries.txt")


def _fallbacks():
    """(entries run, the names of those that fell back)."""
    fell, current = set(), [None]
    loop, rerun = _batched._loop, _vmap._map

    def loop_spy(op, inputs, params):
        fell.add(current[0])
        return loop(op, inputs, params)

    def rerun_spy(*args, **kwargs):
        fell.add(current[0])
        return rerun(*args, **kwargs)
    _batched._loop, _vmap._map = loop_spy, rerun_spy
    names = []
    try:
        for entry in all_entries():
            sample = entry.samples(np.random.default_rng(0))[0]
            in_dims = tuple(0 if isinstance(a, np.ndarray) else None for a in sample.args)
            if 0 not in in_dims:
                continue
            current[0] = entry.name
            names.append(entry.name)
            args = [chainrule.tensor(np.stack([a, a])) if d == 0 else a
                    for a, d in zip(sample.args, in_dims)]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    chainrule.vmap(functools.partial(entry.fn, chainrule, **sample.kwargs),
                                   in_dims=in_dims)(*args)
                except Exception:   # noqa: BLE001  (an error is the test of test_vmap.py)
                    fell.add(entry.name)
    finally:
        _batched._loop, _vmap._map = loop, rerun
    return names, fell


def test_listed_entries_run_batched():
    with open(LIST) as f:
        listed = {line.strip() for line in f if line.strip()}
    names, fell = _fallbacks()
    assert len(listed) > 350
    lost = sorted(listed & fell)
    assert not lost, f"no longer batched under vmap: {lost}"
    gone = sorted(listed - set(names))
    assert not gone, f"not in the op database any more, remove from {LIST}: {gone}"


if __name__ == "__main__":
    names, fell = _fallbacks()
    with open(LIST, "w") as f:
        f.write("".join(f"{n}\n" for n in sorted(set(names) - fell)))
    print(f"{len(set(names) - fell)} of {len(set(names))} entries run batched")

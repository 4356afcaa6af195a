"""torch.torch_version: TorchVersion, a version string that compares as a version."""
import re

__all__ = ["TorchVersion"]

_VERSION = re.compile(r"v?(\d+(?:\.\d+)*)(?:[-_.]?(a|b|rc)(\d*))?(?:\.post(\d+))?"
                      r"(?:\.dev(\d+))?(?:\+([a-z0-9.]+))?$", re.I)


def _key(v):
    """A sort key following PEP 440's order, as packaging.version.Version compares (PyTorch
    compares through it): release, then pre-release, post, dev, then the local label."""
    if isinstance(v, (tuple, list)):
        v = ".".join(str(p) for p in v)
    m = _VERSION.match(str(v).strip())
    if m is None:
        raise ValueError(f"Invalid version: '{v}'")
    release, pre, pre_n, post, dev, local = m.groups()
    parts = [int(p) for p in release.split(".")]
    while parts and parts[-1] == 0:
        parts.pop()
    pre_key = (("a", "b", "rc").index(pre.lower()), int(pre_n or 0)) if pre else (3, 0)
    if dev is not None and pre is None and post is None:
        pre_key = (-1, 0)          # 1.0.dev1 comes before 1.0a1
    return (tuple(parts), pre_key, -1 if post is None else int(post),
            float("inf") if dev is None else int(dev),
            () if local is None else tuple(local.lower().split(".")))


class TorchVersion(str):
    """A str that compares with strings, tuples and other versions by version order
    (`torch.__version__ >= "2.0"`, `torch.__version__ < (3, 0)`)."""

    def _cmp(self, other):
        a, b = _key(self), _key(other)
        return (a > b) - (a < b)

    def __lt__(self, other):
        return self._cmp(other) < 0

    def __le__(self, other):
        return self._cmp(other) <= 0

    def __gt__(self, other):
        return self._cmp(other) > 0

    def __ge__(self, other):
        return self._cmp(other) >= 0

    def __eq__(self, other):
        return self._cmp(other) == 0

    __hash__ = str.__hash__

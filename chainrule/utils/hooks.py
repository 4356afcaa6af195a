"""RemovableHandle: what every register_*hook returns."""
import itertools

__all__ = ["RemovableHandle"]

_ids = itertools.count()


class RemovableHandle:
    """Removes the hook it was returned for; usable as a context manager."""
    __slots__ = ("hooks_dict", "id")

    def __init__(self, hooks_dict):
        self.hooks_dict = hooks_dict
        self.id = next(_ids)

    def remove(self):
        self.hooks_dict.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()

"""Devices: chainrule runs on the CPU only; `device('cpu')` exists so code that names it runs."""

__all__ = ["device", "cpu"]


class device:
    """torch.device; only 'cpu' is available."""
    __slots__ = ("type", "index")

    def __new__(cls, type="cpu", index=None):
        if isinstance(type, device):
            return type
        name = str(type)
        kind = name.split(":")[0]
        if kind != "cpu":
            raise RuntimeError(f"chainrule runs on the CPU only; device '{name}' is not available")
        self = object.__new__(cls)
        self.type = "cpu"
        self.index = index
        return self

    def __repr__(self):
        return "device(type='cpu')" if self.index is None else f"device(type='cpu', index={self.index})"

    def __str__(self):
        return "cpu" if self.index is None else f"cpu:{self.index}"

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and other.type == self.type and other.index == self.index

    def __hash__(self):
        return hash((self.type, self.index))


cpu = device("cpu")

"""torch.backends.quantized: the quantized engine setting (chainrule has no quantized ops)."""
import sys
import types

_engine = ["x86"]
_SUPPORTED = ["qnnpack", "onednn", "x86", "fbgemm"]


class QuantizedEngine(types.ModuleType):
    def __init__(self, m, name):
        super().__init__(name)
        self.m = m

    def __getattr__(self, attr):
        return self.m.__getattribute__(attr)

    @property
    def engine(self):
        return _engine[0]

    @engine.setter
    def engine(self, qengine):
        if qengine == "none":
            raise RuntimeError("quantized engine NoQEngine is not supported")
        if qengine not in _SUPPORTED:
            raise RuntimeError(f"{qengine} is not a valid value for quantized engine")
        _engine[0] = qengine

    @property
    def supported_engines(self):
        return list(_SUPPORTED)


sys.modules[__name__] = QuantizedEngine(sys.modules[__name__], __name__)

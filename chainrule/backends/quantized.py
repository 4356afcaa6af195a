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
        if qengine not in _SUPPORTED + ["none"]:
            raise RuntimeError(f"Unrecognized quantized engine: {qengine}")
        _engine[0] = qengine

    @property
    def supported_engines(self):
        return list(_SUPPORTED)


sys.modules[__name__] = QuantizedEngine(sys.modules[__name__], __name__)

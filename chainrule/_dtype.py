"""dtypes as PyTorch names them, and PyTorch's type-promotion rules.

Each dtype wraps a NumPy dtype. Promotion follows PyTorch, not NumPy: categories
bool < integer < floating < complex; a dimensioned tensor outranks a 0-d tensor, which
outranks a Python number, unless the lower-ranked operand is of a higher category
(`int_tensor * 2.5` is the default float dtype, `float32_tensor * 2.0` stays float32).
"""
import numpy as np

# Captured before this module shadows the names with dtypes.
_pybool, _pyint, _pyfloat, _pycomplex = bool, int, float, complex

__all__ = ["dtype", "float16", "half", "float32", "float", "float64", "double", "int8", "int16",
           "short", "int32", "int", "int64", "long", "uint8", "bool", "complex64", "cfloat",
           "complex128", "cdouble", "get_default_dtype", "set_default_dtype", "promote_types",
           "result_type", "can_cast"]

_BOOL, _INT, _FLOAT, _COMPLEX = 0, 1, 2, 3


class dtype:
    """A tensor element type (`chainrule.float32`, ...). Compares by identity."""
    __slots__ = ("name", "np", "category", "itemsize", "legacy", "cpp")

    def __init__(self, name, np_dtype, category, legacy, cpp):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.category = category
        self.itemsize = self.np.itemsize
        self.legacy = legacy          # 'Float' in torch.FloatTensor
        self.cpp = cpp                # 'float': the C++ type some PyTorch messages name

    @property
    def is_floating_point(self):
        return self.category == _FLOAT

    @property
    def is_complex(self):
        return self.category == _COMPLEX

    @property
    def is_signed(self):
        return self.np.kind != "u" and self.category != _BOOL

    def to_real(self):
        return {complex64: float32, complex128: float64}.get(self, self)

    def to_complex(self):
        return {float32: complex64, float64: complex128, float16: complex64}.get(self, self)

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))


float16 = half = dtype("float16", np.float16, _FLOAT, "Half", "c10::Half")
float32 = float = dtype("float32", np.float32, _FLOAT, "Float", "float")
float64 = double = dtype("float64", np.float64, _FLOAT, "Double", "double")
int8 = dtype("int8", np.int8, _INT, "Char", "signed char")
int16 = short = dtype("int16", np.int16, _INT, "Short", "short int")
int32 = int = dtype("int32", np.int32, _INT, "Int", "int")
int64 = long = dtype("int64", np.int64, _INT, "Long", "long int")
uint8 = dtype("uint8", np.uint8, _INT, "Byte", "unsigned char")
bool = dtype("bool", np.bool_, _BOOL, "Bool", "bool")
complex64 = cfloat = dtype("complex64", np.complex64, _COMPLEX, "ComplexFloat",
                           "c10::complex<float>")
complex128 = cdouble = dtype("complex128", np.complex128, _COMPLEX, "ComplexDouble",
                             "c10::complex<double>")

ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, bool, complex64, complex128)
_NAMES = {d.name: d for d in ALL}
# Keyed by NumPy dtype: Tensor.dtype is one dict lookup on the array's dtype.
FROM_NP = {d.np: d for d in ALL}


def _by_name(name):
    return _NAMES[name]


def from_numpy_dtype(np_dtype):
    """The chainrule dtype of a NumPy dtype; TypeError for ones PyTorch lacks."""
    try:
        return FROM_NP[np.dtype(np_dtype)]
    except KeyError:
        np_dtype = np.dtype(np_dtype)
        if np_dtype in (np.uint16, np.uint32, np.uint64):
            raise TypeError(f"chainrule has no {np_dtype.name} dtype") from None
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np_dtype.type.__name__}. The only supported "
            "types are: float64, float32, float16, complex64, complex128, int64, int32, int16, "
            "int8, uint64, uint32, uint16, uint8, and bool.") from None


_default = float32


def get_default_dtype():
    """The dtype of floating tensors made from Python floats (float32 unless changed)."""
    return _default


def set_default_dtype(d):
    """Set the default floating dtype (float32 or float64, as PyTorch allows)."""
    global _default
    if d not in (float32, float64, float16):
        raise TypeError("only floating-point types are supported as the default type")
    _default = d


def default_complex():
    return complex128 if _default is float64 else complex64


def promote_types(a, b):
    """PyTorch's promote_types for two dtypes."""
    if a is b:
        return a
    if a.category != b.category and min(a.category, b.category) < _FLOAT:
        # Across bool/int and a higher category the higher one wins outright (int64 + float16
        # is float16 in PyTorch; NumPy would widen to float64).
        return a if a.category > b.category else b
    return FROM_NP[np.promote_types(a.np, b.np)]


def _scalar_category(x):
    # bool before int: bool is a subclass of int.
    if isinstance(x, (_pybool, np.bool_)):
        return _BOOL
    if isinstance(x, (_pyint, np.integer)):
        return _INT
    if isinstance(x, (_pyfloat, np.floating)):
        return _FLOAT
    if isinstance(x, (_pycomplex, np.complexfloating)):
        return _COMPLEX
    raise TypeError(f"unsupported scalar type {type(x).__name__}")


def result_type(operands):
    """The dtype PyTorch gives an op over `operands` (Tensors and Python numbers).

    Three tiers in PyTorch's order: dimensioned tensors, then 0-d tensors, then Python
    numbers; a lower tier only changes the result when it is of a higher category
    (c10's combine_categories).
    """
    dim = zero = wrapped = None
    for x in operands:
        data = x if type(x) is np.ndarray else getattr(x, "_data", None)
        if data is None:
            cat = _scalar_category(x)
            d = (bool if cat == _BOOL else int64 if cat == _INT else _default if cat == _FLOAT
                 else default_complex())
            wrapped = d if wrapped is None else promote_types(wrapped, d)
            continue
        d = FROM_NP[data.dtype]
        if data.ndim:
            dim = d if dim is None else promote_types(dim, d)
        else:
            zero = d if zero is None else promote_types(zero, d)
    return _combine(dim, _combine(zero, wrapped))


def _combine(higher, lower):
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.category == _COMPLEX:
        return higher
    if lower.category == _COMPLEX:
        # a floating tier keeps its precision: float64 tensor * 1j is complex128
        return higher.to_complex() if higher.category == _FLOAT else lower
    if higher.category == _FLOAT:
        return higher
    if higher.category == _BOOL or lower.category == _FLOAT:
        return promote_types(higher, lower)
    return higher


def can_cast(from_, to):
    """PyTorch's can_cast: no casting to a lower category."""
    return from_.category <= to.category


def tensor_type_name(d):
    """The name PyTorch's error messages give a CPU tensor's type: 'torch.FloatTensor' for
    the dtypes that had legacy tensor classes, 'CPUBoolType'-style for bool and complex."""
    if d.category in (_BOOL, _COMPLEX):
        return f"CPU{d.legacy}Type"
    return f"torch.{d.legacy}Tensor"

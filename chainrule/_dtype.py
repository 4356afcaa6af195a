"""dtypes as PyTorch names them, PyTorch's type-promotion rules, finfo and iinfo.

Every dtype `dir(torch)` lists exists here as a dtype object with PyTorch's attributes.
Tensors are NumPy arrays, so a dtype has tensors only where a NumPy dtype holds its values:
NumPy's own types, and (through the optional `ml_dtypes` package, imported on first use)
bfloat16, the float8 types and complex32. The sub-byte, bits and quantized dtypes are
dtype objects only.

Promotion follows PyTorch, not NumPy: c10's lookup table over the 13 standard dtypes, with
its refusals for uint16/32/64, float8, bits and quantized types. Across operands, a
dimensioned tensor outranks a 0-d tensor, which outranks a Python number, unless the
lower-ranked operand is of a higher category (`int_tensor * 2.5` is the default float
dtype, `float32_tensor * 2.0` stays float32).
"""
import numpy as np

# Captured before this module shadows the names with dtypes.
_pybool, _pyint, _pyfloat, _pycomplex = bool, int, float, complex

__all__ = [
    "dtype", "finfo", "iinfo", "get_default_dtype", "set_default_dtype", "promote_types",
    "can_cast",
    "float16", "half", "bfloat16", "float32", "float", "float64", "double",
    "complex32", "chalf", "complex64", "cfloat", "complex128", "cdouble",
    "int8", "int16", "short", "int32", "int", "int64", "long",
    "uint8", "uint16", "uint32", "uint64", "bool",
    "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
    "float4_e2m1fn_x2",
    "int1", "int2", "int3", "int4", "int5", "int6", "int7",
    "uint1", "bit", "uint2", "uint3", "uint4", "uint5", "uint6", "uint7",
    "bits1x8", "bits2x4", "bits4x2", "bits8", "bits16",
    "qint8", "quint8", "qint32", "quint4x2", "quint2x4",
]

_BOOL, _INT, _FLOAT, _COMPLEX = 0, 1, 2, 3

# Groups: which of c10's special rules apply (promotion, is_signed, what tensors can do).
_STANDARD, _UNSIGNED, _FLOAT8, _FLOAT4, _SUBBYTE_INT, _BITS, _QUANTIZED = range(7)

_ML_DTYPES_MISSING = ('{} tensors need the ml_dtypes package, an optional dependency of '
                      'chainrule: pip install "chainrule[bfloat16]"')


class dtype:
    """A tensor element type (`chainrule.float32`, ...). Compares by identity."""
    __slots__ = ("name", "np", "category", "itemsize", "legacy", "cpp", "abbr",
                 "is_floating_point", "is_complex", "group", "_ml_name")
    __module__ = "torch"

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'torch.dtype' instances")

    def __setattr__(self, name, value):
        raise AttributeError(f"attribute '{name}' of 'torch.dtype' objects is not writable")

    def __getattr__(self, name):
        # Only reached for `np` when it is not set yet: an ml_dtypes type not yet loaded,
        # or a dtype NumPy cannot hold.
        if name != "np":
            raise AttributeError(f"'torch.dtype' object has no attribute '{name}'")
        if self._ml_name is None:
            raise TypeError(f"chainrule has no tensors of dtype {self!r}: NumPy cannot hold "
                            "its values (PyTorch itself supports almost no operation on them)")
        _load_ml_dtypes(self)
        return object.__getattribute__(self, "np")

    @property
    def is_signed(self):
        if self.group == _BITS:
            raise RuntimeError("Bits types are undefined")
        if self.group == _QUANTIZED:
            raise RuntimeError("isSignedType not supported for quantized types")
        return _signed(self)

    def to_real(self):
        """The real dtype of a complex dtype; any other dtype itself."""
        return _TO_REAL.get(self, self)

    def to_complex(self):
        """The complex dtype with this floating dtype's precision."""
        try:
            return _TO_COMPLEX[self]
        except KeyError:
            raise RuntimeError(f"Unknown Complex ScalarType for {self.legacy}") from None

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def _make(name, np_dtype, category, legacy, cpp, abbr, itemsize, group=_STANDARD,
          ml_name=None):
    d = object.__new__(dtype)
    put = object.__setattr__
    put(d, "name", name)
    if np_dtype is not None:
        put(d, "np", np.dtype(np_dtype))
    put(d, "category", category)
    put(d, "itemsize", itemsize)
    put(d, "legacy", legacy)          # 'Float' in torch.FloatTensor and c10's messages
    put(d, "cpp", cpp)                # 'float': the C++ type some PyTorch messages name
    put(d, "abbr", abbr)
    put(d, "is_floating_point", category == _FLOAT)
    put(d, "is_complex", category == _COMPLEX)
    put(d, "group", group)
    put(d, "_ml_name", ml_name)       # the ml_dtypes type holding it, loaded on first use
    return d


def _signed(d):
    return d.group != _UNSIGNED and d.category != _BOOL and d is not uint8 \
        and d is not float8_e8m0fnu


float16 = half = _make("float16", np.float16, _FLOAT, "Half", "c10::Half", "f16", 2)
bfloat16 = _make("bfloat16", None, _FLOAT, "BFloat16", "c10::BFloat16", "bf16", 2,
                 ml_name="bfloat16")
float32 = float = _make("float32", np.float32, _FLOAT, "Float", "float", "f32", 4)
float64 = double = _make("float64", np.float64, _FLOAT, "Double", "double", "f64", 8)
complex32 = chalf = _make("complex32", None, _COMPLEX, "ComplexHalf", "c10::complex<c10::Half>",
                          "c32", 4, ml_name="complex32")
complex64 = cfloat = _make("complex64", np.complex64, _COMPLEX, "ComplexFloat",
                           "c10::complex<float>", "c64", 8)
complex128 = cdouble = _make("complex128", np.complex128, _COMPLEX, "ComplexDouble",
                             "c10::complex<double>", "c128", 16)
int8 = _make("int8", np.int8, _INT, "Char", "signed char", "i8", 1)
int16 = short = _make("int16", np.int16, _INT, "Short", "short int", "i16", 2)
int32 = int = _make("int32", np.int32, _INT, "Int", "int", "i32", 4)
int64 = long = _make("int64", np.int64, _INT, "Long", "long int", "i64", 8)
uint8 = _make("uint8", np.uint8, _INT, "Byte", "unsigned char", "u8", 1)
uint16 = _make("uint16", np.uint16, _INT, "UInt16", "short unsigned int", "u16", 2, _UNSIGNED)
uint32 = _make("uint32", np.uint32, _INT, "UInt32", "unsigned int", "u32", 4, _UNSIGNED)
uint64 = _make("uint64", np.uint64, _INT, "UInt64", "long unsigned int", "u64", 8, _UNSIGNED)
bool = _make("bool", np.bool_, _BOOL, "Bool", "bool", "b8", 1)

float8_e4m3fn = _make("float8_e4m3fn", None, _FLOAT, "Float8_e4m3fn", "c10::Float8_e4m3fn",
                      "f8e4m3fn", 1, _FLOAT8, ml_name="float8_e4m3fn")
float8_e4m3fnuz = _make("float8_e4m3fnuz", None, _FLOAT, "Float8_e4m3fnuz",
                        "c10::Float8_e4m3fnuz", "f8e4m3fnuz", 1, _FLOAT8,
                        ml_name="float8_e4m3fnuz")
float8_e5m2 = _make("float8_e5m2", None, _FLOAT, "Float8_e5m2", "c10::Float8_e5m2", "f8e5m2",
                    1, _FLOAT8, ml_name="float8_e5m2")
float8_e5m2fnuz = _make("float8_e5m2fnuz", None, _FLOAT, "Float8_e5m2fnuz",
                        "c10::Float8_e5m2fnuz", "f8e5m2fnuz", 1, _FLOAT8,
                        ml_name="float8_e5m2fnuz")
float8_e8m0fnu = _make("float8_e8m0fnu", None, _FLOAT, "Float8_e8m0fnu", "c10::Float8_e8m0fnu",
                       "f8e8m0fnu", 1, _FLOAT8, ml_name="float8_e8m0fnu")
# Two 4-bit floats packed in a byte: ml_dtypes' float4_e2m1fn is one per byte, so no storage.
float4_e2m1fn_x2 = _make("float4_e2m1fn_x2", None, _FLOAT, "Float4_e2m1fn_x2",
                         "c10::Float4_e2m1fn_x2", "f4e2m1fnx2", 1, _FLOAT4)


def _sub_byte(prefix, legacy, group, bits):
    return _make(f"{prefix}{bits}", None, _INT, f"{legacy}{bits}", f"c10::{legacy}{bits}",
                 f"{prefix}{bits}", 1, group)


int1, int2, int3, int4, int5, int6, int7 = (_sub_byte("int", "Int", _SUBBYTE_INT, b)
                                            for b in range(1, 8))
uint1, uint2, uint3, uint4, uint5, uint6, uint7 = (_sub_byte("uint", "UInt", _UNSIGNED, b)
                                                   for b in range(1, 8))
bit = uint1
bits1x8, bits2x4, bits4x2, bits8 = (
    _make(f"bits{n}", None, _INT, f"Bits{n}", f"c10::bits{n}", abbr, 1, _BITS)
    for n, abbr in (("1x8", "b1x8"), ("2x4", "b2x4"), ("4x2", "b4x2"), ("8", "b8x1")))
bits16 = _make("bits16", None, _INT, "Bits16", "c10::bits16", "b16x1", 2, _BITS)
qint8 = _make("qint8", None, _INT, "QInt8", "c10::qint8", "qint8", 1, _QUANTIZED)
quint8 = _make("quint8", None, _INT, "QUInt8", "c10::quint8", "quint8", 1, _QUANTIZED)
qint32 = _make("qint32", None, _INT, "QInt32", "c10::qint32", "qint32", 4, _QUANTIZED)
quint4x2 = _make("quint4x2", None, _INT, "QUInt4x2", "c10::quint4x2", "quint4x2", 1, _QUANTIZED)
quint2x4 = _make("quint2x4", None, _INT, "QUInt2x4", "c10::quint2x4", "quint2x4", 1, _QUANTIZED)

# Every dtype, once (aliases such as torch.float are the same objects).
ALL = (float16, bfloat16, float32, float64, complex32, complex64, complex128, int8, int16,
       int32, int64, uint8, uint16, uint32, uint64, bool,
       float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz, float8_e8m0fnu,
       float4_e2m1fn_x2, int1, int2, int3, int4, int5, int6, int7,
       uint1, uint2, uint3, uint4, uint5, uint6, uint7,
       bits1x8, bits2x4, bits4x2, bits8, bits16, qint8, quint8, qint32, quint4x2, quint2x4)
_NAMES = {d.name: d for d in ALL}
_TO_REAL = {complex32: float16, complex64: float32, complex128: float64}
_TO_COMPLEX = {float16: complex32, bfloat16: complex64, float32: complex64,
               float64: complex128, complex32: complex32, complex64: complex64,
               complex128: complex128}

# Keyed by NumPy dtype: Tensor.dtype is one dict lookup on the array's dtype. The ml_dtypes
# types join when they are loaded.
FROM_NP = {}
for _d in ALL:
    if _d._ml_name is None:
        try:
            FROM_NP[object.__getattribute__(_d, "np")] = _d
        except AttributeError:
            pass

# The dtypes that have tensors (the rest are dtype objects only).
TENSOR_DTYPES = tuple(d for d in ALL if d._ml_name is not None or d in FROM_NP.values())

# NumPy dtypes whose ops run through registry's slow path (Note [Reduced and limited dtypes]
# in ops/registry.py): uint16/32/64 now, the ml_dtypes types once loaded.
SPECIAL_NP = {uint16.np, uint32.np, uint64.np}
# Reduced floating types compute in a wider type and round once, as PyTorch's opmath.
OPMATH = {}


def _load_ml_dtypes(d):
    """Import ml_dtypes and give its types to the dtypes they hold; ImportError naming the
    extra to install when it is missing."""
    try:
        import ml_dtypes
    except ImportError:
        raise ImportError(_ML_DTYPES_MISSING.format(repr(d))) from None
    for t in ALL:
        if t._ml_name is not None and hasattr(ml_dtypes, t._ml_name):
            np_dtype = np.dtype(getattr(ml_dtypes, t._ml_name))
            object.__setattr__(t, "np", np_dtype)
            FROM_NP[np_dtype] = t
            SPECIAL_NP.add(np_dtype)
            OPMATH[np_dtype] = np.dtype(np.complex64 if t.is_complex else np.float32)
    if not hasattr(ml_dtypes, d._ml_name):     # complex32 came with ml_dtypes 0.6
        raise ImportError(f"{d!r} tensors need ml_dtypes 0.6 or newer: "
                          'pip install -U "chainrule[bfloat16]"')


def _by_name(name):
    return _NAMES[name]


def float_max(t):
    """The largest finite value of NumPy floating or complex dtype `t`, the ml_dtypes types
    included (np.finfo refuses them)."""
    return _FINFO[FROM_NP[t].to_real()][2]


_F16, _F32, _F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
_warned_complex32 = False


def warn_complex32(stacklevel=3):
    """PyTorch's warning when it first allocates a complex32 tensor (once per process)."""
    global _warned_complex32
    if not _warned_complex32:
        _warned_complex32 = True
        import warnings
        warnings.warn("ComplexHalf support is experimental and many operators don't support it "
                      "yet.", UserWarning, stacklevel=stacklevel)


def cast(a, t):
    """Array `a` converted to NumPy dtype `t` as PyTorch's CPU conversions do: float64
    narrows to float16 and the ml_dtypes types through float32 (rounding twice, as c10's
    converting constructors); float8_e4m3fn saturates at +-448; float8_e5m2's NaN is 0x7f;
    float8_e8m0fnu keeps the exponent of |x|, and 0 is its smallest value."""
    if t.isbuiltin != 2:          # not an ml_dtypes type
        if t == _F16 and a.dtype == _F64:
            a = a.astype(_F32)
        return a.astype(t)
    if a.dtype == t:
        return a.copy()
    if t.kind == "W":
        warn_complex32(4)
    if a.dtype == _F64 or a.dtype.kind in "iub":
        a = a.astype(_F32)
    d = FROM_NP[t]
    if d is float8_e4m3fn:
        a = np.asarray(np.clip(a, -448.0, 448.0))      # NaN stays NaN
    elif d is float8_e8m0fnu:
        zero = a == 0
        a = np.asarray(np.abs(a))
    out = np.asarray(a.astype(t))
    if d is float8_e5m2 or d is float8_e8m0fnu:
        bits = out.view(np.uint8)
        if d is float8_e5m2:
            bits |= np.isnan(a).view(np.uint8)     # 0x7e -> 0x7f, 0xfe -> 0xff
        else:
            bits[zero] = 0
    return out


def from_numpy_dtype(np_dtype):
    """The chainrule dtype of a NumPy dtype; PyTorch's TypeError for ones it lacks (the
    ml_dtypes types included: PyTorch takes no NumPy array of them)."""
    np_dtype = np.dtype(np_dtype)
    d = FROM_NP.get(np_dtype)
    if d is None or np_dtype.isbuiltin == 2:
        t = np_dtype.type
        name = f"{t.__module__}.{t.__name__}" if t.__module__ != "numpy" else f"numpy.{t.__name__}"
        raise TypeError(
            f"can't convert np.ndarray of type {name}. The only supported "
            "types are: float64, float32, float16, complex64, complex128, int64, int32, int16, "
            "int8, uint64, uint32, uint16, uint8, and bool.")
    return d


# ---- the default dtype --------------------------------------------------------------------

_default = float32


def get_default_dtype():
    """The dtype of floating tensors made from Python floats (float32 unless changed)."""
    return _default


def set_default_dtype(d):
    """Set the default floating dtype (float16, bfloat16, float32 or float64)."""
    global _default
    if not isinstance(d, dtype):
        raise TypeError("invalid dtype object: only floating-point types are supported as the "
                        "default type")
    if d.group == _FLOAT8 or d.group == _FLOAT4:
        raise TypeError(f"couldn't find storage object {d.legacy}Storage")
    if d not in (float16, bfloat16, float32, float64):
        raise TypeError("only floating-point types are supported as the default type")
    _default = d


def default_complex():
    """The dtype of tensors made from Python complex numbers; None when the default dtype
    has no complex counterpart (bfloat16)."""
    return _DEFAULT_COMPLEX.get(_default)


_DEFAULT_COMPLEX = {float16: complex32, float32: complex64, float64: complex128}


# ---- promotion ----------------------------------------------------------------------------

# c10's _promoteTypesLookup, over its 13 standard dtypes.
_LOOKUP_ORDER = (uint8, int8, int16, int32, int64, float16, float32, float64, complex32,
                 complex64, complex128, bool, bfloat16)
_LOOKUP_TABLE = """
u8   i16  i16  i32  i64  f16  f32  f64  c32  c64  c128 u8   bf16
i16  i8   i16  i32  i64  f16  f32  f64  c32  c64  c128 i8   bf16
i16  i16  i16  i32  i64  f16  f32  f64  c32  c64  c128 i16  bf16
i32  i32  i32  i32  i64  f16  f32  f64  c32  c64  c128 i32  bf16
i64  i64  i64  i64  i64  f16  f32  f64  c32  c64  c128 i64  bf16
f16  f16  f16  f16  f16  f16  f32  f64  c32  c64  c128 f16  f32
f32  f32  f32  f32  f32  f32  f32  f64  c64  c64  c128 f32  f32
f64  f64  f64  f64  f64  f64  f64  f64  c128 c128 c128 f64  f64
c32  c32  c32  c32  c32  c32  c64  c128 c32  c64  c128 c32  c64
c64  c64  c64  c64  c64  c64  c64  c128 c64  c64  c128 c64  c64
c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128
u8   i8   i16  i32  i64  f16  f32  f64  c32  c64  c128 b8   bf16
bf16 bf16 bf16 bf16 bf16 f32  f32  f64  c64  c64  c128 bf16 bf16
"""
_BY_ABBR = {d.abbr: d for d in _LOOKUP_ORDER}
_PROMOTED = {(a, b): _BY_ABBR[cell]
             for a, row in zip(_LOOKUP_ORDER, _LOOKUP_TABLE.split("\n")[1:-1])
             for b, cell in zip(_LOOKUP_ORDER, row.split())}

# c10/core/ScalarType.cpp, where its internal asserts fail for dtypes outside the table
_ASSERT = ('{} != -1 INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/c10/core/ScalarType.cpp":'
           '{}, please report a bug to PyTorch. ')


def promote_types(type1, type2):
    """The smallest dtype both `type1` and `type2` convert to without losing their kind
    (PyTorch's promote_types), or PyTorch's RuntimeError for pairs it does not promote."""
    if not isinstance(type1, dtype) or not isinstance(type2, dtype):
        pos, bad = (1, type1) if not isinstance(type1, dtype) else (2, type2)
        raise TypeError(f"promote_types(): argument 'type{pos}' (position {pos}) must be "
                        f"torch.dtype, not {type(bad).__name__}")
    r = _PROMOTED.get((type1, type2))
    if r is not None:
        return r
    return _promote_special(type1, type2)


def _promote_special(a, b):
    if a is b:
        return a
    names = f"{a.legacy} and {b.legacy}"
    if a.group == _QUANTIZED or b.group == _QUANTIZED:
        raise RuntimeError("promoteTypes with quantized numbers is not handled yet; figure out "
                           f"what the correct rules should be, offending types: {a.legacy} "
                           f"{b.legacy}")
    if a.group == _BITS or b.group == _BITS:
        raise RuntimeError(f"Promotion from {names} is unsupported.")
    if a.group == _FLOAT8 or b.group == _FLOAT8:
        raise RuntimeError(f"Promotion for Float8 Types is not supported, attempted to promote "
                           f"{names}")
    if a.group == _UNSIGNED or b.group == _UNSIGNED:
        # floating types win, anything else is refused
        if a.is_floating_point:
            return a
        if b.is_floating_point:
            return b
        raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, "
                           f"attempted to promote {names}")
    if a not in _BY_ABBR.values():
        raise RuntimeError(_ASSERT.format("ix_a", 103))
    raise RuntimeError(_ASSERT.format("ix_b", 105))


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


def _wrapped_dtype(x):
    """The dtype PyTorch gives a Python number taking part in an op."""
    cat = _scalar_category(x)
    if cat == _BOOL:
        return bool
    if cat == _INT:
        return int64
    if cat == _FLOAT:
        return _default
    c = default_complex()
    if c is None:
        raise RuntimeError("invalid default scalar type for complex")
    return c


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
            d = _wrapped_dtype(x)
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


def _integral(d):
    # c10's isIntegralType(t, includeBool=false): the sub-byte and bits types are not
    return d.category == _INT and (d.group == _STANDARD or d in (uint16, uint32, uint64))


def can_cast(from_, to):
    """PyTorch's casting rule: no complex to non-complex, no floating to integral, nothing
    but bool to bool."""
    for pos, (name, d) in enumerate((("from_", from_), ("to", to)), 1):
        if not isinstance(d, dtype):
            raise TypeError(f"can_cast(): argument '{name}' (position {pos}) must be "
                            f"torch.dtype, not {type(d).__name__}")
    if from_.is_complex and not to.is_complex:
        return False
    if from_.is_floating_point and _integral(to):
        return False
    return from_ is to or to is not bool


def tensor_type_name(d):
    """The name PyTorch's error messages give a CPU tensor's type: 'torch.FloatTensor' for
    the dtypes that had legacy tensor classes, 'CPUBoolType'-style for bool and complex."""
    if d.category in (_BOOL, _COMPLEX):
        return f"CPU{d.legacy}Type"
    return f"torch.{d.legacy}Tensor"


# ---- finfo and iinfo ----------------------------------------------------------------------

# (bits, eps, max, min, tiny, resolution): PyTorch's values (float8_e5m2fnuz's eps is
# PyTorch's, not ml_dtypes')
_FINFO = {
    float16: (16, 0.0009765625, 65504.0, -65504.0, 6.103515625e-05, 0.001),
    bfloat16: (16, 0.0078125, 3.3895313892515355e+38, -3.3895313892515355e+38,
               1.1754943508222875e-38, 0.01),
    float32: (32, 1.1920928955078125e-07, 3.4028234663852886e+38, -3.4028234663852886e+38,
              1.1754943508222875e-38, 1e-06),
    float64: (64, 2.220446049250313e-16, 1.7976931348623157e+308, -1.7976931348623157e+308,
              2.2250738585072014e-308, 1e-15),
    float8_e4m3fn: (8, 0.125, 448.0, -448.0, 0.015625, 1.0),
    float8_e4m3fnuz: (8, 0.125, 240.0, -240.0, 0.0078125, 1.0),
    float8_e5m2: (8, 0.25, 57344.0, -57344.0, 6.103515625e-05, 1.0),
    float8_e5m2fnuz: (8, 0.125, 57344.0, -57344.0, 3.0517578125e-05, 1.0),
    float8_e8m0fnu: (8, 1.0, 1.7014118346046923e+38, 5.877471754111438e-39,
                     5.877471754111438e-39, 1.0),
}


def _info_type(name, args, kwargs):
    """The dtype argument of finfo/iinfo, with PyTorch's argument errors."""
    if kwargs:
        if set(kwargs) != {"type"} or args:
            raise TypeError(f'{name}() missing 1 required positional arguments: "type"')
        args = (kwargs["type"],)
    if len(args) > 1:
        raise TypeError(f"{name}() takes from 0 to 1 positional arguments but {len(args)} were "
                        "given")
    if not args:
        if name == "iinfo":
            raise TypeError('iinfo() missing 1 required positional arguments: "type"')
        return _default
    d = args[0]
    if not isinstance(d, dtype):
        raise TypeError(f"{name}(): argument 'type' (position 1) must be torch.dtype, not "
                        f"{type(d).__name__}")
    return d


def _g(x):
    return f"{x:g}"


class finfo:
    """Numerical properties of a floating dtype (or a complex one's real part):
    `finfo(torch.float32).eps`; with no argument, of the default dtype."""
    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution",
                 "dtype")
    __module__ = "torch"

    def __init__(self, *args, **kwargs):
        d = _info_type("finfo", args, kwargs)
        if d is float4_e2m1fn_x2:
            # PyTorch makes it, with only bits readable (Note: __getattr__ below)
            object.__setattr__(self, "bits", 8)
            return
        real = d.to_real()
        if real not in _FINFO:
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        put = object.__setattr__
        bits, eps, max_, min_, tiny, resolution = _FINFO[real]
        for k, v in (("bits", bits), ("eps", eps), ("max", max_), ("min", min_), ("tiny", tiny),
                     ("smallest_normal", tiny), ("resolution", resolution),
                     ("dtype", real.name)):
            put(self, k, v)

    def __getattr__(self, name):
        # float4_e2m1fn_x2: the numeric_limits PyTorch reads are not defined for it
        kernel = _FLOAT4_LIMITS.get(name)
        if kernel is None:
            raise AttributeError(f"'torch.finfo' object has no attribute '{name}'")
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Float4_e2m1fn_x2'")

    def __setattr__(self, name, value):
        raise AttributeError(f"attribute '{name}' of 'torch.finfo' objects is not writable")

    def _values(self):
        return tuple(getattr(self, k, None) if k == "bits" or k in _set(self) else None
                     for k in finfo.__slots__)

    def __eq__(self, other):
        return type(other) is finfo and self._values() == other._values()

    __hash__ = None

    def __repr__(self):
        if "dtype" not in _set(self):
            raise TypeError("bad argument type for built-in operation")
        return (f"finfo(resolution={_g(self.resolution)}, min={_g(self.min)}, "
                f"max={_g(self.max)}, eps={_g(self.eps)}, "
                f"smallest_normal={_g(self.smallest_normal)}, tiny={_g(self.tiny)}, "
                f"dtype={self.dtype})")


_FLOAT4_LIMITS = {"eps": "epsilon", "max": "max", "min": "lowest", "tiny": "min",
                  "smallest_normal": "min", "resolution": "digits10", "dtype": "dtype"}


def _set(info):
    """The finfo slots that hold a value."""
    out = set()
    for k in finfo.__slots__:
        try:
            object.__getattribute__(info, k)
            out.add(k)
        except AttributeError:
            pass
    return out


class iinfo:
    """Numerical properties of an integer dtype: `iinfo(torch.int32).max`."""
    __slots__ = ("bits", "max", "min", "dtype", "_quantized")
    __module__ = "torch"

    def __init__(self, *args, **kwargs):
        d = _info_type("iinfo", args, kwargs)
        if d is bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        put = object.__setattr__
        if d.group == _QUANTIZED:
            # the range of the underlying integer; no dtype (PyTorch raises reading it)
            info = np.iinfo(np.int32 if d is qint32 else np.int8 if d is qint8 else np.uint8)
            put(self, "_quantized", d.legacy)
        elif not _integral(d):
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        else:
            info = np.iinfo(d.np)
            put(self, "dtype", d.name)
        for k, v in (("bits", info.bits), ("max", _pyint(info.max)), ("min", _pyint(info.min))):
            put(self, k, v)

    def __getattr__(self, name):
        if name == "dtype":
            raise NotImplementedError(f"\"dtype\" not implemented for '{self._quantized}'")
        raise AttributeError(f"'torch.iinfo' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        raise AttributeError(f"attribute '{name}' of 'torch.iinfo' objects is not writable")

    def __eq__(self, other):
        return type(other) is iinfo and all(getattr(self, k, None) == getattr(other, k, None)
                                            for k in ("bits", "max", "min", "_quantized"))

    __hash__ = None

    def __repr__(self):
        return f"iinfo(min={_g(self.min)}, max={_g(self.max)}, dtype={self.dtype})"


# PyTorch's C types: messages such as "unhashable type: 'torch.finfo'" read the full name
finfo.__name__, iinfo.__name__ = "torch.finfo", "torch.iinfo"

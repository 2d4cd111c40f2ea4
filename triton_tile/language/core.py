"""The `tl` value model and the builtins kernels call.

Types (`dtype`, `pointer_type`, `block_type`, `tuple_type`), values (`tensor`, `constexpr`,
`tuple`) and the thin builtin functions of the language surface. A builtin receives a hidden
`_semantic` argument (injected by the frontend) and delegates type checking and IR emission to
it (language/semantic.py); this file only normalizes arguments, so it reads like the API.
"""

from __future__ import annotations

import builtins
import functools
from enum import Enum
from typing import List, Sequence

TRITON_MAX_TENSOR_NUMEL = 1048576


# --------------------------------------------------------------------------------------------
# builtin mechanism
# --------------------------------------------------------------------------------------------

def builtin(fn):
    """Mark `fn` as a language builtin: the frontend passes `_semantic` (and `_generator` when
    the signature names it) so it can emit IR. Called outside a kernel it raises."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if kwargs.get("_semantic") is None:
            raise ValueError(f"tl.{fn.__name__} can only be called inside a @triton.jit "
                             "function (did you forget @triton.jit?)")
        return fn(*args, **kwargs)

    wrapper.__triton_builtin__ = True
    return wrapper


def is_builtin(fn) -> bool:
    return bool(getattr(fn, "__triton_builtin__", False))


_TENSOR_MEMBERS: List = []


def _tensor_member_fn(fn):
    """Also expose a builtin as a tensor method: `x.sum(0)` is `tl.sum(x, 0)`."""
    _TENSOR_MEMBERS.append(fn)
    return fn


def _unwrap_if_constexpr(o):
    if isinstance(o, builtins.list):
        return [_unwrap_if_constexpr(x) for x in o]
    return o.value if isinstance(o, constexpr) else o


def _unwrap_shape(shape) -> List[int]:
    """A shape given as a tuple/list (or tl.tuple) of ints and constexprs -> list of ints.
    `f(x, 4, 8)` and `f(x, (4, 8))` both arrive here as a sequence; unwrap one level."""
    shape = _unwrap_if_constexpr(shape)
    if isinstance(shape, (builtins.tuple, builtins.list, tuple)) and len(shape) == 1 and \
            isinstance(_unwrap_if_constexpr(shape[0]), (builtins.tuple, builtins.list, tuple)):
        shape = _unwrap_if_constexpr(shape[0])
    if isinstance(shape, int):
        return [shape]
    out = []
    for i, s in enumerate(shape):
        s = _unwrap_if_constexpr(s)
        if isinstance(s, bool) or not isinstance(s, int):
            raise TypeError(f"Shape element {i} must have type `constexpr[int]`, got "
                            f"`constexpr[{type(s).__name__}]`")
        out.append(s)
    return out


def validate_block_shape(shape: Sequence[int]) -> int:
    numel = 1
    for i, d in enumerate(shape):
        if isinstance(d, bool) or not isinstance(d, int):
            raise TypeError(f"Shape element {i} must have type `constexpr[int]`, got "
                            f"`constexpr[{type(d).__name__}]`")
        if d <= 0 or d & (d - 1) != 0:
            raise ValueError(f"Shape element {i} must be a power of 2, got {d}")
        numel *= d
    if numel > TRITON_MAX_TENSOR_NUMEL:
        raise ValueError(f"numel ({numel}) exceeds triton maximum tensor numel "
                         f"({TRITON_MAX_TENSOR_NUMEL})")
    return numel


def _wrap_axis(axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise ValueError(f"invalid axis {axis}. Expected {-ndim} <= axis < {ndim}")
    return axis if axis >= 0 else axis + ndim


# --------------------------------------------------------------------------------------------
# types
# --------------------------------------------------------------------------------------------

class base_type:
    def is_block(self) -> bool:
        return False

    def is_ptr(self) -> bool:
        return False

    def is_tuple(self) -> bool:
        return False


# name -> (kind, bitwidth, ir spelling, public alias)
_DTYPES = {
    "int1": ("u", 1, "i1", "int1"),
    "int8": ("s", 8, "i8", "int8"),
    "int16": ("s", 16, "i16", "int16"),
    "int32": ("s", 32, "i32", "int32"),
    "int64": ("s", 64, "i64", "int64"),
    "uint8": ("u", 8, "i8", "uint8"),
    "uint16": ("u", 16, "i16", "uint16"),
    "uint32": ("u", 32, "i32", "uint32"),
    "uint64": ("u", 64, "i64", "uint64"),
    "fp8e4nv": ("f", 8, "f8E4M3FN", "float8e4nv"),
    "fp8e5": ("f", 8, "f8E5M2", "float8e5"),
    # fp8e4b15 is fp8e4nv's layout with exponent bias 15 instead of 7: every value is the
    # fp8e4nv value of the same bits times 2**-8. Its IR type is f8E4M3FN; the frontend scales
    # where values are read or made (casts, constants, products), see Semantic._E4B15_SCALE.
    "fp8e4b15": ("f", 8, "f8E4M3FN", "float8e4b15"),
    "fp8e4b8": ("f", 8, None, "float8e4b8"),
    "fp8e5b16": ("f", 8, None, "float8e5b16"),
    "fp16": ("f", 16, "f16", "float16"),
    "bf16": ("f", 16, "bf16", "bfloat16"),
    "fp32": ("f", 32, "f32", "float32"),
    "fp64": ("f", 64, "f64", "float64"),
    "void": ("v", 0, None, "void"),
}
# mantissa (fraction) bits and exponent bias of the float formats
_FP_INFO = {
    "fp8e4nv": (3, 7), "fp8e5": (2, 15), "fp8e4b15": (3, 15), "fp8e4b8": (3, 8),
    "fp8e5b16": (2, 16), "fp16": (10, 15), "bf16": (7, 127), "fp32": (23, 127),
    "fp64": (52, 1023),
}


class dtype(base_type):
    """A scalar element type. Integers keep their signedness here; the IR is signless."""

    SINT_TYPES = ["int8", "int16", "int32", "int64"]
    UINT_TYPES = ["int1", "uint8", "uint16", "uint32", "uint64"]
    FP_TYPES = ["fp8e4b15", "fp8e4nv", "fp8e4b8", "fp8e5", "fp8e5b16", "fp16", "bf16", "fp32",
                "fp64"]
    STANDARD_FP_TYPES = ["fp16", "bf16", "fp32", "fp64"]
    OTHER_TYPES = ["void"]

    class SIGNEDNESS(Enum):
        SIGNED = 0
        UNSIGNED = 1

    class KIND(Enum):
        BOOLEAN = 0
        INTEGRAL = 1
        FLOATING = 2

    def __init__(self, name):
        name = getattr(name, "value", name)  # a constexpr name (constexpr is defined below)
        if name not in _DTYPES:
            raise ValueError(f"unknown dtype {name!r}")
        self.name = name
        kind, bits, _, _ = _DTYPES[name]
        self.primitive_bitwidth = bits
        self.itemsize = bits // 8
        if kind in "su":
            self.int_signedness = (dtype.SIGNEDNESS.SIGNED if kind == "s"
                                   else dtype.SIGNEDNESS.UNSIGNED)
            self.int_bitwidth = bits
        elif kind == "f":
            self.fp_mantissa_width, self.exponent_bias = _FP_INFO[name]

    # --- predicates ---
    def is_fp8(self):
        return self.name in ("fp8e4nv", "fp8e5", "fp8e4b15", "fp8e4b8", "fp8e5b16")

    def is_fp8e4nv(self):
        return self.name == "fp8e4nv"

    def is_fp8e4b8(self):
        return self.name == "fp8e4b8"

    def is_fp8e4b15(self):
        return self.name == "fp8e4b15"

    def is_fp8e5(self):
        return self.name == "fp8e5"

    def is_fp8e5b16(self):
        return self.name == "fp8e5b16"

    def is_fp16(self):
        return self.name == "fp16"

    def is_bf16(self):
        return self.name == "bf16"

    def is_fp32(self):
        return self.name == "fp32"

    def is_fp64(self):
        return self.name == "fp64"

    def is_int1(self):
        return self.name == "int1"

    def is_int8(self):
        return self.name == "int8"

    def is_int16(self):
        return self.name == "int16"

    def is_int32(self):
        return self.name == "int32"

    def is_int64(self):
        return self.name == "int64"

    def is_uint8(self):
        return self.name == "uint8"

    def is_uint16(self):
        return self.name == "uint16"

    def is_uint32(self):
        return self.name == "uint32"

    def is_uint64(self):
        return self.name == "uint64"

    def is_floating(self):
        return self.name in dtype.FP_TYPES

    def is_standard_floating(self):
        return self.name in dtype.STANDARD_FP_TYPES

    def is_int_signed(self):
        return self.name in dtype.SINT_TYPES

    def is_int_unsigned(self):
        return self.name in dtype.UINT_TYPES

    def is_int(self):
        return self.name in dtype.SINT_TYPES + dtype.UINT_TYPES

    def is_bool(self):
        return self.is_int1()

    def is_void(self):
        return self.name == "void"

    def is_const(self):
        return False

    def kind(self):
        if self.is_bool():
            return dtype.KIND.BOOLEAN
        if self.is_int():
            return dtype.KIND.INTEGRAL
        assert self.is_floating(), f"{self} has no kind"
        return dtype.KIND.FLOATING

    def get_int_max_value(self):
        if self.is_int_signed():
            return 2**(self.int_bitwidth - 1) - 1
        if self.is_int_unsigned():
            return 2**self.int_bitwidth - 1
        raise TypeError(f"{self} is not an integer type")

    def get_int_min_value(self):
        if self.is_int_signed():
            return -2**(self.int_bitwidth - 1)
        if self.is_int_unsigned():
            return 0
        raise TypeError(f"{self} is not an integer type")

    @property
    def scalar(self):
        return self

    @property
    def shape(self):
        return ()

    @property
    def numel(self):
        return 1

    def get_block_shapes(self):
        return ()

    def with_element_ty(self, element_ty):
        return element_ty

    def to_ir(self, builder=None):
        from .. import _core
        spelling = _DTYPES[self.name][2]
        if self.is_void():
            return None
        if spelling is None:
            raise ValueError(f"dtype {self.name} is not supported by triton_tile")
        if self.is_int():
            return _core.int_type(self.int_bitwidth)
        return _core.float_type(spelling)

    def codegen_name(self):
        if self.is_int():
            return ("i" if self.is_int_signed() else "u") + str(self.int_bitwidth)
        return self.name

    def mangle(self):
        return self.codegen_name()

    def __eq__(self, other):
        other = _unwrap_if_constexpr(other)
        return type(other) is dtype and self.name == other.name

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(("dtype", self.name))

    def __str__(self):
        return self.name

    def __repr__(self):
        # Triton's spelling: kernels and the code generated from them move between triton and
        # triton_tile by the import alone (`import triton_tile as triton`), and there this
        # evaluates back to the dtype (upstream's test_dtype_codegen checks it).
        return f"triton.language.{_DTYPES[self.name][3]}"

    def __reduce__(self):
        return (dtype, (self.name,))


class const:
    """Annotation of a pointer parameter (`p: tl.const`) whose data the kernel only reads: the
    parameter's type is a const pointer; storing through it is a compile error, and it does not
    mix with non-const pointers (as in Triton)."""


class pointer_type(dtype):
    """`*elt`: a global-memory pointer; `const` pointers may not be stored through."""

    def __init__(self, element_ty, address_space: int = 1, const: bool = False):
        element_ty = _unwrap_if_constexpr(element_ty)
        if not isinstance(element_ty, (dtype, block_type)):
            raise TypeError(f"element_ty has type `{type(element_ty).__name__}`; expected `dtype`")
        # A pointer to a block_type is a block pointer (tl.make_block_ptr).
        self.element_ty = element_ty
        self.address_space = _unwrap_if_constexpr(address_space)
        self.const = bool(_unwrap_if_constexpr(const))
        self.name = f"pointer<{element_ty}>" if not self.const else f"const_pointer<{element_ty}>"
        self.primitive_bitwidth = 64
        self.itemsize = 8

    def is_ptr(self):
        return True

    def is_const(self):
        return self.const

    def is_int(self):
        return False

    def is_floating(self):
        return False

    def is_int_signed(self):
        return False

    def is_int_unsigned(self):
        return False

    def is_bool(self):
        return False

    def is_void(self):
        return False

    def is_standard_floating(self):
        return False

    def is_fp8(self):
        return False

    def to_ir(self, builder=None):
        from .. import _core
        return _core.ptr_type(self.element_ty.to_ir(), self.address_space)

    def codegen_name(self):
        return ("*k" if self.const else "*") + self.element_ty.codegen_name()

    def __eq__(self, other):
        other = _unwrap_if_constexpr(other)
        return (isinstance(other, pointer_type) and self.element_ty == other.element_ty
                and self.address_space == other.address_space and self.const == other.const)

    def __hash__(self):
        return hash(("ptr", self.element_ty, self.address_space, self.const))

    def __str__(self):
        return self.name

    def __repr__(self):
        return self.name

    def __reduce__(self):
        return (pointer_type, (self.element_ty, self.address_space, self.const))


class block_type(base_type):
    """A tile of `element_ty` with a static, power-of-two shape."""

    def __init__(self, element_ty: dtype, shape):
        self.element_ty = element_ty
        shape = [int(_unwrap_if_constexpr(s)) for s in shape]
        if not shape:
            raise TypeError("0d block_type is forbidden")
        self.numel = validate_block_shape(shape)
        self.shape = builtins.tuple(shape)
        self.name = f"<{list(self.shape)}, {element_ty}>"

    def is_block(self):
        return True

    def is_ptr(self):
        return False

    @property
    def scalar(self):
        return self.element_ty

    def get_block_shapes(self):
        return self.shape

    def with_element_ty(self, element_ty):
        return block_type(element_ty, self.shape)

    def to_ir(self, builder=None):
        from .. import _core
        return _core.tensor_type(list(self.shape), self.element_ty.to_ir())

    def __eq__(self, other):
        return (isinstance(other, block_type) and self.element_ty == other.element_ty
                and self.shape == other.shape)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(("block", self.element_ty, self.shape))

    def __str__(self):
        return self.name

    __repr__ = __str__

    def mangle(self):
        return self.element_ty.mangle() + "S" + "_".join(str(s) for s in self.shape) + "S"

    codegen_name = mangle  # the pointee of a block pointer (`*fp32S16_16S`)


class tuple_type(base_type):
    def __init__(self, types, fields=None):
        self.types = builtins.list(types)
        self.fields = fields or [""] * len(self.types)
        self.name = "[" + ",".join(str(t) for t in self.types) + "]"

    def is_tuple(self):
        return True

    def __eq__(self, other):
        return isinstance(other, tuple_type) and self.types == other.types

    def __hash__(self):
        return hash(("tuple", builtins.tuple(self.types)))

    def __str__(self):
        return self.name

    __repr__ = __str__

    def mangle(self):
        return "T" + "_".join(t.mangle() for t in self.types) + "T"


class constexpr_type(base_type):
    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, constexpr_type) and self.value == other.value

    def __hash__(self):
        return hash(("constexpr", repr(self.value)))

    def __str__(self):
        return f"constexpr[{self.value!r}]"

    __repr__ = __str__


# dtype singletons
int1 = dtype("int1")
int8 = dtype("int8")
int16 = dtype("int16")
int32 = dtype("int32")
int64 = dtype("int64")
uint8 = dtype("uint8")
uint16 = dtype("uint16")
uint32 = dtype("uint32")
uint64 = dtype("uint64")
float8e5 = dtype("fp8e5")
float8e5b16 = dtype("fp8e5b16")
float8e4nv = dtype("fp8e4nv")
float8e4b8 = dtype("fp8e4b8")
float8e4b15 = dtype("fp8e4b15")
float16 = dtype("fp16")
bfloat16 = dtype("bf16")
float32 = dtype("fp32")
float64 = dtype("fp64")
void = dtype("void")

_BY_CODEGEN_NAME = {
    "u1": int1, "i1": int1, "i8": int8, "i16": int16, "i32": int32, "i64": int64, "u8": uint8,
    "u16": uint16, "u32": uint32, "u64": uint64, "fp16": float16, "bf16": bfloat16,
    "fp32": float32, "fp64": float64, "fp8e4nv": float8e4nv, "fp8e5": float8e5,
    "fp8e4b15": float8e4b15, "fp8e4b8": float8e4b8, "fp8e5b16": float8e5b16,
    "f16": float16, "f32": float32, "f64": float64, "B": int1,
}


_TENSORDESC_RE = None


def parse_tensordesc(name: str):
    """`tensordesc<fp16[64, 64]>` (padding zero) or `tensordesc<fp16[64, 64],nan>` ->
    tensor_descriptor_type; None when `name` is not a tensordesc string."""
    global _TENSORDESC_RE
    if _TENSORDESC_RE is None:
        import re
        _TENSORDESC_RE = re.compile(
            r"^tensordesc<\s*([A-Za-z0-9_]+)\s*\[([0-9,\s]*)\]\s*(?:,\s*(zero|nan)\s*)?>$")
    m = _TENSORDESC_RE.match(name.strip())
    if m is None:
        return None
    elt = str_to_ty(m.group(1))
    shape = [int(d) for d in m.group(2).replace(" ", "").split(",") if d]
    if not 1 <= len(shape) <= 5:
        raise ValueError(f"{name}: a tensor descriptor has 1 to 5 dimensions")
    return tensor_descriptor_type(block_type(elt, shape), m.group(3) or "zero")


def str_to_ty(name: str, c=None):
    """A Triton signature type string (`*fp32`, `*kfp16`, `i32`, `u1`, `fp64`,
    `tensordesc<fp16[64, 64]>`) -> tl type; with Triton's second argument `c`, `constexpr`
    is the type of the constant `c`."""
    name = name.strip()
    if name.startswith("constexpr"):
        return constexpr_type(c)
    if name.startswith("tensordesc<"):
        ty = parse_tensordesc(name)
        if ty is None:
            raise ValueError(f"malformed tensor descriptor type {name!r}; expected e.g. "
                             "'tensordesc<fp16[64, 64]>' or 'tensordesc<fp32[16, 32],nan>'")
        return ty
    if name.startswith("*"):
        rest = name[1:]
        const = False
        if rest.startswith("k"):
            const, rest = True, rest[1:]
        return pointer_type(str_to_ty(rest), 1, const)
    if name.startswith("const "):
        ty = str_to_ty(name[len("const "):])
        return pointer_type(ty.element_ty, 1, True) if isinstance(ty, pointer_type) else ty
    if name in _BY_CODEGEN_NAME:
        return _BY_CODEGEN_NAME[name]
    if name in _DTYPES:
        return dtype(name)
    raise ValueError(f"unknown signature type {name!r}")


# --------------------------------------------------------------------------------------------
# values
# --------------------------------------------------------------------------------------------

class base_value:
    """Anything the frontend passes around as a kernel value (tensor, tuple)."""


class constexpr(base_value):
    """A compile-time constant; arithmetic on constexprs folds in Python (with Python's
    floor semantics for // and %)."""

    def __init__(self, value):
        if isinstance(value, constexpr):
            value = value.value
        self.value = value
        self.type = constexpr_type(value)

    def __repr__(self):
        return f"constexpr[{self.value!r}]"

    def __hash__(self):
        return hash(self.value)

    def __index__(self):
        return self.value.__index__()

    def __int__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)

    def __bool__(self):
        return bool(self.value)

    def __call__(self, *args, **kwargs):
        return self.value(*args, **kwargs)

    def __len__(self):
        return len(self.value)

    def __iter__(self):
        return iter(self.value)

    def __getitem__(self, idx):
        return constexpr(self.value[_unwrap_if_constexpr(idx)])

    def __neg__(self):
        return constexpr(-self.value)

    def __pos__(self):
        return constexpr(+self.value)

    def __invert__(self):
        return constexpr(~self.value)

    def __abs__(self):
        return constexpr(abs(self.value))

    def logical_and(self, other):
        return constexpr(self.value and _unwrap_if_constexpr(other))

    def logical_or(self, other):
        return constexpr(self.value or _unwrap_if_constexpr(other))

    def __not__(self):
        return constexpr(not self.value)


def _constexpr_binop(op, reverse=False):
    def method(self, other):
        a, b = self.value, _unwrap_if_constexpr(other)
        return constexpr(op(b, a) if reverse else op(a, b))
    return method


import operator as _op  # noqa: E402

for _name, _fn in [("add", _op.add), ("sub", _op.sub), ("mul", _op.mul),
                   ("truediv", _op.truediv), ("floordiv", _op.floordiv), ("mod", _op.mod),
                   ("pow", _op.pow), ("lshift", _op.lshift), ("rshift", _op.rshift),
                   ("and", _op.and_), ("or", _op.or_), ("xor", _op.xor)]:
    setattr(constexpr, f"__{_name}__", _constexpr_binop(_fn))
    setattr(constexpr, f"__r{_name}__", _constexpr_binop(_fn, reverse=True))
for _name, _fn in [("eq", _op.eq), ("ne", _op.ne), ("lt", _op.lt), ("le", _op.le),
                   ("gt", _op.gt), ("ge", _op.ge)]:
    setattr(constexpr, f"__{_name}__", _constexpr_binop(_fn))
constexpr.__hash__ = lambda self: hash(self.value)


def is_constexpr(o) -> bool:
    return isinstance(o, constexpr)


def _named_builtin(fn, owner: str, name: str):
    """`fn` as the builtin method `owner.name`: the name is the one its error outside a kernel
    gives (`tl.__gt__ can only be called inside ...`)."""
    fn.__name__, fn.__qualname__ = name, f"{owner}.{name}"
    return builtin(fn)


def _binary_operator(name: str, emit):
    """The tensor builtins `__{name}__` (self op other) and its reflected `__r{name}__` (other
    op self: the frontend calls it when only the right operand is a tensor). `emit` builds
    `lhs op rhs`: a `_semantic` method name, called as `_semantic.<emit>(lhs, rhs)`, or a
    function `emit(_semantic, lhs, rhs)`. A constexpr `other` is unwrapped first; the operands
    keep their order, so promotion and error messages are those of `lhs op rhs`."""
    if isinstance(emit, str):
        method = emit

        def emit(sem, lhs, rhs):
            return getattr(sem, method)(lhs, rhs)

    def forward(self, other, _semantic=None):
        return emit(_semantic, self, _unwrap_if_constexpr(other))

    def reflected(self, other, _semantic=None):
        return emit(_semantic, _unwrap_if_constexpr(other), self)

    return (_named_builtin(forward, "tensor", f"__{name}__"),
            _named_builtin(reflected, "tensor", f"__r{name}__"))


def _comparison(op: str):
    """`__{op}__` and `__r{op}__`: `_semantic.compare(op, lhs, rhs)`."""
    def emit(sem, lhs, rhs):
        return sem.compare(op, lhs, rhs)

    return _binary_operator(op, emit)


def _unary_operator(name: str, method: str):
    """The tensor builtin `__{name}__`: `_semantic.<method>(self)`."""
    def unary(self, _semantic=None):
        return getattr(_semantic, method)(self)

    return _named_builtin(unary, "tensor", f"__{name}__")


class tensor(base_value):
    """A kernel value: a scalar (rank 0) or a block, wrapping a `_core.Value` handle."""

    def __init__(self, handle, type: base_type):
        self.handle = handle
        self.type = type
        self.dtype = type.scalar
        shape = type.get_block_shapes() if type.is_block() else ()
        self.shape = builtins.tuple(constexpr(s) for s in shape)
        n = 1
        for s in shape:
            n *= s
        self.numel = constexpr(n)

    def __str__(self):
        return f"tensor<{self.type}>"

    __repr__ = __str__

    # operators: each line is `__op__` and its reflected `__rop__` (see _binary_operator) ------
    __add__, __radd__ = _binary_operator(
        "add", lambda sem, a, b: add(a, b, sanitize_overflow=True, _semantic=sem))
    __sub__, __rsub__ = _binary_operator(
        "sub", lambda sem, a, b: sub(a, b, sanitize_overflow=True, _semantic=sem))
    __mul__, __rmul__ = _binary_operator(
        "mul", lambda sem, a, b: mul(a, b, sanitize_overflow=True, _semantic=sem))
    __truediv__, __rtruediv__ = _binary_operator("truediv", "truediv")
    __floordiv__, __rfloordiv__ = _binary_operator("floordiv", "floordiv")
    __mod__, __rmod__ = _binary_operator("mod", "mod")

    __neg__ = _unary_operator("neg", "minus")
    __invert__ = _unary_operator("invert", "invert")
    __not__ = _unary_operator("not", "not_")

    @builtin
    def __pos__(self, _semantic=None):
        return self

    # bitwise
    __and__, __rand__ = _binary_operator("and", "and_")
    __or__, __ror__ = _binary_operator("or", "or_")
    __xor__, __rxor__ = _binary_operator("xor", "xor_")
    __lshift__, __rlshift__ = _binary_operator("lshift", "shl")
    __rshift__, __rrshift__ = _binary_operator("rshift", "shr")

    # comparisons: `_semantic.compare(op, lhs, rhs)`
    __gt__, __rgt__ = _comparison("gt")
    __ge__, __rge__ = _comparison("ge")
    __lt__, __rlt__ = _comparison("lt")
    __le__, __rle__ = _comparison("le")
    __eq__, __req__ = _comparison("eq")
    __ne__, __rne__ = _comparison("ne")

    __hash__ = object.__hash__  # defining __eq__ would make tensors unhashable

    @builtin
    def logical_and(self, other, _semantic=None):
        return _semantic.logical_and(self, _semantic.to_tensor(other))

    @builtin
    def logical_or(self, other, _semantic=None):
        return _semantic.logical_or(self, _semantic.to_tensor(other))

    # indexing and shape -----------------------------------------------------------------------
    @builtin
    def __getitem__(self, slices, _semantic=None):
        if isinstance(slices, (builtins.slice, constexpr)) or slices is None:
            slices = [slices]
        if isinstance(slices, tuple):
            slices = slices.values
        elif isinstance(slices, builtins.tuple):
            slices = builtins.list(slices)
        ret = self
        for dim, sl in enumerate(slices):
            if _unwrap_if_constexpr(sl) is None:
                ret = _semantic.expand_dims(ret, dim)
            elif isinstance(sl, builtins.slice) and all(
                    _unwrap_if_constexpr(a) is None for a in (sl.start, sl.stop, sl.step)):
                pass
            else:
                raise ValueError(f"unsupported tensor index: {_unwrap_if_constexpr(sl)!r}; only "
                                 "`None` (a new axis) and `:` are allowed")
        return ret

    @builtin
    def to(self, dtype, fp_downcast_rounding=None, bitcast=False, _semantic=None):
        return cast(self, dtype, fp_downcast_rounding, bitcast, _semantic=_semantic)

    @builtin
    def item(self, _semantic=None):
        if self.numel.value != 1:
            raise ValueError(f"item() needs a tensor with one element, got shape {self.shape}")
        return _semantic.unsplat(self)


class tuple(base_value):
    """A kernel tuple (`tl.tuple`): built from Python tuple/list literals, returned by
    functions, unpacked by assignment; indexable by constexpr ints."""

    def __init__(self, args, type=None, fields=None):
        self.values = [v for v in args]
        self._type = type
        # field names when the tuple stands for a namedtuple (`p.ptr` works like `p[0]`)
        self.fields = builtins.tuple(fields) if fields else None

    def __getattr__(self, name):
        fields = self.__dict__.get("fields")
        if fields and name in fields:
            return self.values[fields.index(name)]
        raise AttributeError(f"tuple has no attribute {name!r}")

    @property
    def type(self):
        return tuple_type([getattr(v, "type", constexpr_type(v)) for v in self.values])

    def __getitem__(self, idx):
        idx = _unwrap_if_constexpr(idx)
        if isinstance(idx, builtins.slice):
            return tuple(self.values[idx])
        if isinstance(idx, tensor):
            raise TypeError("tuples can only be indexed by constexpr ints")
        return self.values[idx]

    def __len__(self):
        return len(self.values)

    def __iter__(self):
        return iter(self.values)

    def __add__(self, other):
        other = _unwrap_if_constexpr(other)
        return tuple(self.values + builtins.list(other))

    def __radd__(self, other):
        other = _unwrap_if_constexpr(other)
        return tuple(builtins.list(other) + self.values)

    def __mul__(self, other):
        return tuple(self.values * _unwrap_if_constexpr(other))

    def __eq__(self, other):
        other = _unwrap_if_constexpr(other)
        if not isinstance(other, (tuple, builtins.tuple, builtins.list)):
            return constexpr(False)
        if len(other) != len(self.values):
            return constexpr(False)
        return constexpr(all(_unwrap_if_constexpr(a) == _unwrap_if_constexpr(b)
                             for a, b in zip(self.values, other)))

    def __ne__(self, other):
        return constexpr(not self.__eq__(other))

    def __hash__(self):
        return hash(builtins.tuple(_unwrap_if_constexpr(v) for v in self.values))

    def __repr__(self):
        return f"({', '.join(repr(v) for v in self.values)})"


class slice:
    """Placeholder kept for API compatibility; the frontend uses Python slices."""


_TENSORDESC_TYPES: dict = {}


def _tensordesc_ir_type(block_ir):
    """`!tt.tensordesc<tensor<...>>` for a block tensor type. Types are interned in the core,
    so a type read from parsed text is the same object the builder would make."""
    from .. import _core

    make = getattr(_core, "tensordesc_type", None)
    if make is not None:
        return make(block_ir)
    key = str(block_ir)
    ty = _TENSORDESC_TYPES.get(key)
    if ty is None:
        text = ("module {\n  tt.func private @d(%arg0: !tt.tensordesc<" + key + ">) {\n"
                "    tt.return\n  }\n}\n")
        module = _core.parse_ttir(text, "<tensordesc>")  # keep it alive while reading
        ty = module.funcs[0].region(0).blocks[0].arg(0).type
        del module
        _TENSORDESC_TYPES[key] = ty
    return ty


class tensor_descriptor_type(base_type):
    """The type of a tensor descriptor: the block it moves (`block_type`) and the padding that
    out-of-bounds lanes read ("zero" or "nan", fixed at compile time). IR:
    `!tt.tensordesc<tensor<BxT>>` (the padding is an attribute of tt.make_tensor_descriptor)."""

    def __init__(self, block_type: block_type, padding: str = "zero"):
        self.block_type = block_type
        self.padding = padding
        shape = ", ".join(str(d) for d in block_type.shape)
        self.name = f"tensordesc<{block_type.element_ty.codegen_name()}[{shape}]" + \
            (",nan>" if padding == "nan" else ">")

    @property
    def scalar(self):
        return self.block_type.element_ty

    def to_ir(self, builder=None):
        return _tensordesc_ir_type(self.block_type.to_ir())

    def __eq__(self, other):
        return (isinstance(other, tensor_descriptor_type) and self.block_type == other.block_type
                and self.padding == other.padding)

    def __hash__(self):
        return hash(("tensordesc", self.block_type, self.padding))

    def __str__(self):
        return self.name

    __repr__ = __str__

    def mangle(self):
        return "D" + self.block_type.mangle() + ("N" if self.padding == "nan" else "") + "D"


def _descriptor_atomic(op: str):
    """The descriptor builtin `atomic_{op}(offsets, value)`."""
    def atomic(self, offsets, value, _semantic=None):
        return _semantic.descriptor_atomic(op, self, value, offsets)

    return _named_builtin(atomic, "tensor_descriptor_base", f"atomic_{op}")


class tensor_descriptor_base(base_value):
    """A TMA tensor descriptor in a kernel: moves `block_type` tiles of a strided global tensor.
    Out-of-bounds lanes read the padding and are not written, for any offset (negative ones
    included). Made by `tl.make_tensor_descriptor` or passed from the host as a
    `triton_tile.tools.tensor_descriptor.TensorDescriptor`; both are this class."""

    def __init__(self, handle, type: tensor_descriptor_type):
        self.handle = handle
        self.type = type

    @property
    def block_type(self):
        return self.type.block_type

    @property
    def block_shape(self):
        return builtins.list(self.type.block_type.shape)

    @property
    def dtype(self):
        return self.type.block_type.element_ty

    @property
    def padding(self):
        return self.type.padding

    def __str__(self):
        return f"tensor_descriptor<{self.type}>"

    __repr__ = __str__

    @builtin
    def load(self, offsets, _semantic=None):
        """The block at `offsets` (one int32 per dimension, any value)."""
        return _semantic.descriptor_load(self, offsets)

    @builtin
    def store(self, offsets, value, _semantic=None):
        """Store `value` (cast to the element type) as the block at `offsets`."""
        return _semantic.descriptor_store(self, value, offsets)

    # `desc.atomic_<op>(offsets, value)`: `_semantic.descriptor_atomic(op, ...)`
    atomic_add = _descriptor_atomic("add")
    atomic_min = _descriptor_atomic("min")
    atomic_max = _descriptor_atomic("max")
    atomic_and = _descriptor_atomic("and")
    atomic_or = _descriptor_atomic("or")
    atomic_xor = _descriptor_atomic("xor")

    @builtin
    def gather(self, *args, _semantic=None):
        """`desc.gather(x_offsets, y_offset)`: rows `x_offsets` (a 1-D int tensor) and the
        block's columns from `y_offset` of a 2-D descriptor whose block has one row."""
        return _semantic.descriptor_gather(self, *args)

    @builtin
    def scatter(self, value, *args, _semantic=None):
        """`desc.scatter(value, x_offsets, y_offset)`: the inverse of gather."""
        return _semantic.descriptor_scatter(self, value, *args)


class tensor_descriptor(tensor_descriptor_base):
    """A descriptor with its global tensor: `base` (pointer), `shape` (a tuple of int32
    scalars) and `strides` (a tuple of int64 scalars, the last one the constant 1)."""

    def __init__(self, handle, type: tensor_descriptor_type, base, shape, strides):
        super().__init__(handle, type)
        self.base = base
        self.shape = tuple(builtins.list(shape))
        self.strides = tuple(builtins.list(strides))


# --------------------------------------------------------------------------------------------
# iterators (the frontend recognizes these in `for` loops)
# --------------------------------------------------------------------------------------------

class range:
    """`for i in tl.range(start, end, step, num_stages=...)`: a dynamic scf.for; the keyword
    arguments are pipelining hints."""

    def __init__(self, arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None,
                 disallow_acc_multi_buffer=False, flatten=False, warp_specialize=False,
                 disable_licm=False):
        if step is None:
            step = constexpr(1)
        if arg2 is None:
            self.start, self.end = constexpr(0), arg1
        else:
            self.start, self.end = arg1, arg2
        self.step = step
        self.num_stages = num_stages
        self.loop_unroll_factor = loop_unroll_factor
        self.disallow_acc_multi_buffer = disallow_acc_multi_buffer
        self.flatten = flatten
        self.warp_specialize = warp_specialize
        self.disable_licm = disable_licm

    def __iter__(self):
        raise RuntimeError("tl.range can only be used in @triton.jit'd functions")


class static_range:
    """`for i in tl.static_range(start, end, step)`: unrolled at compile time; every bound must
    be a constexpr int and `i` is a constexpr in each copy of the body."""

    def __init__(self, arg1, arg2=None, step=None):
        def check(v, what):
            v = _unwrap_if_constexpr(v)
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"static_range's {what} must be a constexpr int, got {v!r}")
            return v

        if step is None:
            step = 1
        if arg2 is None:
            start, end = 0, arg1
        else:
            start, end = arg1, arg2
        self.start = constexpr(check(start, "start"))
        self.end = constexpr(check(end, "end"))
        self.step = constexpr(check(step, "step"))

    def __iter__(self):
        raise RuntimeError("tl.static_range can only be used in @triton.jit'd functions")


class condition:
    """`while tl.condition(c, disable_licm=True):` wraps a while-loop condition with hints."""

    def __init__(self, arg1, disable_licm=False):
        self.condition = arg1
        self.disable_licm = disable_licm


class PropagateNan(Enum):
    NONE = 0x0000
    ALL = 0xFFFF


# --------------------------------------------------------------------------------------------
# builtins: programming model and creation
# --------------------------------------------------------------------------------------------

@builtin
def program_id(axis, _semantic=None):
    return _semantic.program_id(_unwrap_if_constexpr(axis))


@builtin
def num_programs(axis, _semantic=None):
    return _semantic.num_programs(_unwrap_if_constexpr(axis))


@builtin
def arange(start, end, _semantic=None):
    return _semantic.arange(_unwrap_if_constexpr(start), _unwrap_if_constexpr(end))


def _unwrap_dtype(dtype_, what="dtype"):
    dt = _unwrap_if_constexpr(dtype_)
    if not isinstance(dt, dtype):
        raise TypeError(f"{what} must be a tl dtype, got {dt!r}")
    return dt


@builtin
def full(shape, value, dtype, _semantic=None):
    shape = _unwrap_shape(shape)
    return _semantic.full(shape, _unwrap_if_constexpr(value), _unwrap_dtype(dtype))


@builtin
def zeros(shape, dtype, _semantic=None):
    return _semantic.full(_unwrap_shape(shape), 0, _unwrap_dtype(dtype))


@builtin
def zeros_like(input, _semantic=None):
    input = _semantic.to_tensor(input)
    return _semantic.full(builtins.list(input.type.get_block_shapes()), 0, input.dtype)


@builtin
def full_like(input, value, dtype=None, _semantic=None):
    input = _semantic.to_tensor(input)
    dt = _unwrap_if_constexpr(dtype) or input.dtype
    return _semantic.full(builtins.list(input.type.get_block_shapes()),
                          _unwrap_if_constexpr(value), dt)


@builtin
def to_tensor(x, _semantic=None):
    return _semantic.to_tensor(x)


@_tensor_member_fn
@builtin
def cast(input, dtype, fp_downcast_rounding=None, bitcast=False, _semantic=None):
    input = _semantic.to_tensor(input)
    dt = _unwrap_dtype(dtype)
    if _unwrap_if_constexpr(bitcast):
        return _semantic.bitcast(input, dt)
    return _semantic.cast(input, dt, _unwrap_if_constexpr(fp_downcast_rounding))


# --------------------------------------------------------------------------------------------
# arithmetic builtins
# --------------------------------------------------------------------------------------------

@builtin
def add(x, y, sanitize_overflow: constexpr = True, _semantic=None):
    return _semantic.add(_unwrap_if_constexpr(x), _unwrap_if_constexpr(y),
                         bool(_unwrap_if_constexpr(sanitize_overflow)))


@builtin
def sub(x, y, sanitize_overflow: constexpr = True, _semantic=None):
    return _semantic.sub(_unwrap_if_constexpr(x), _unwrap_if_constexpr(y),
                         bool(_unwrap_if_constexpr(sanitize_overflow)))


@builtin
def mul(x, y, sanitize_overflow: constexpr = True, _semantic=None):
    return _semantic.mul(_unwrap_if_constexpr(x), _unwrap_if_constexpr(y),
                         bool(_unwrap_if_constexpr(sanitize_overflow)))


@builtin
def minimum(x, y, propagate_nan: constexpr = PropagateNan.NONE, _semantic=None):
    x = _semantic.promote_bf16_to_fp32(_semantic.to_tensor(x))
    y = _semantic.promote_bf16_to_fp32(_semantic.to_tensor(y))
    return _semantic.minimum(x, y, _unwrap_if_constexpr(propagate_nan))


@builtin
def maximum(x, y, propagate_nan: constexpr = PropagateNan.NONE, _semantic=None):
    x = _semantic.promote_bf16_to_fp32(_semantic.to_tensor(x))
    y = _semantic.promote_bf16_to_fp32(_semantic.to_tensor(y))
    return _semantic.maximum(x, y, _unwrap_if_constexpr(propagate_nan))


@builtin
def clamp(x, min, max, propagate_nan: constexpr = PropagateNan.NONE, _semantic=None):
    x = _semantic.promote_bf16_to_fp32(_semantic.to_tensor(x))
    lo = _semantic.promote_bf16_to_fp32(_semantic.to_tensor(min))
    hi = _semantic.promote_bf16_to_fp32(_semantic.to_tensor(max))
    return _semantic.clamp(x, lo, hi, _unwrap_if_constexpr(propagate_nan))


@builtin
def where(condition, x, y, _semantic=None):
    condition = _semantic.to_tensor(condition)
    return _semantic.where(condition, _unwrap_if_constexpr(x), _unwrap_if_constexpr(y))


@builtin
def fdiv(x, y, ieee_rounding=False, _semantic=None):
    return _semantic.fdiv(_semantic.to_tensor(x), _semantic.to_tensor(y),
                          bool(_unwrap_if_constexpr(ieee_rounding)))


@builtin
def cdiv(x, div, _semantic=None):
    x, div = _unwrap_if_constexpr(x), _unwrap_if_constexpr(div)
    if not isinstance(x, tensor) and not isinstance(div, tensor):
        return constexpr((x + div - 1) // div)
    num = _semantic.sub(_semantic.add(x, div, True), 1, True)
    return _semantic.floordiv(num, div)


# --------------------------------------------------------------------------------------------
# memory
# --------------------------------------------------------------------------------------------

@builtin
def load(pointer, mask=None, other=None, boundary_check=(), padding_option="",
         cache_modifier="", eviction_policy="", volatile=False, _semantic=None):
    mask = _unwrap_if_constexpr(mask)
    other = _unwrap_if_constexpr(other)
    if mask is not None:
        mask = _semantic.to_tensor(mask)
    if other is not None:
        other = _semantic.to_tensor(other)
    return _semantic.load(_semantic.to_tensor(pointer), mask, other,
                          _unwrap_if_constexpr(boundary_check),
                          _unwrap_if_constexpr(padding_option),
                          _unwrap_if_constexpr(cache_modifier),
                          _unwrap_if_constexpr(eviction_policy),
                          bool(_unwrap_if_constexpr(volatile)))


@builtin
def store(pointer, value, mask=None, boundary_check=(), cache_modifier="", eviction_policy="",
          _semantic=None):
    value = _semantic.to_tensor(value)
    mask = _unwrap_if_constexpr(mask)
    if mask is not None:
        mask = _semantic.to_tensor(mask)
    return _semantic.store(_semantic.to_tensor(pointer), value, mask,
                           _unwrap_if_constexpr(boundary_check),
                           _unwrap_if_constexpr(cache_modifier),
                           _unwrap_if_constexpr(eviction_policy))


def _atomic(op_name):
    def fn(pointer, val, mask=None, sem=None, scope=None, _semantic=None):
        val = _semantic.to_tensor(val)
        mask = _unwrap_if_constexpr(mask)
        if mask is not None:
            mask = _semantic.to_tensor(mask)
        return _semantic.atomic_rmw(op_name, _semantic.to_tensor(pointer), val, mask,
                                    _unwrap_if_constexpr(sem), _unwrap_if_constexpr(scope))
    fn.__name__ = f"atomic_{op_name}"
    fn.__qualname__ = fn.__name__
    fn.__doc__ = (f"Atomically {op_name} `val` into `*pointer` where `mask` holds; returns the "
                  "old values. `sem` in acquire/release/acq_rel/relaxed, `scope` in "
                  "gpu/cta/sys.")
    return _tensor_member_fn(builtin(fn))


atomic_add = _atomic("add")
atomic_max = _atomic("max")
atomic_min = _atomic("min")
atomic_and = _atomic("and")
atomic_or = _atomic("or")
atomic_xor = _atomic("xor")
atomic_xchg = _atomic("xchg")


@_tensor_member_fn
@builtin
def atomic_cas(pointer, cmp, val, sem=None, scope=None, _semantic=None):
    return _semantic.atomic_cas(_semantic.to_tensor(pointer), _semantic.to_tensor(cmp),
                                _semantic.to_tensor(val), _unwrap_if_constexpr(sem),
                                _unwrap_if_constexpr(scope))


# --------------------------------------------------------------------------------------------
# shapes
# --------------------------------------------------------------------------------------------

@_tensor_member_fn
@builtin
def broadcast(input, other, _semantic=None):
    return tuple(_semantic.broadcast_impl_value(_semantic.to_tensor(input),
                                                _semantic.to_tensor(other)))


@_tensor_member_fn
@builtin
def broadcast_to(input, *shape, _semantic=None):
    return _semantic.broadcast_impl_shape(_semantic.to_tensor(input), _unwrap_shape(shape))


@_tensor_member_fn
@builtin
def reshape(input, *shape, can_reorder=False, _semantic=None):
    return _semantic.reshape(_semantic.to_tensor(input), _unwrap_shape(shape),
                             bool(_unwrap_if_constexpr(can_reorder)))


@_tensor_member_fn
@builtin
def view(input, *shape, _semantic=None):
    return _semantic.reshape(_semantic.to_tensor(input), _unwrap_shape(shape), True)


@_tensor_member_fn
@builtin
def ravel(x, can_reorder=False, _semantic=None):
    x = _semantic.to_tensor(x)
    return _semantic.reshape(x, [x.numel.value], bool(_unwrap_if_constexpr(can_reorder)))


@_tensor_member_fn
@builtin
def permute(input, *dims, _semantic=None):
    return _semantic.permute(_semantic.to_tensor(input), _unwrap_shape(dims))


@_tensor_member_fn
@builtin
def trans(input, *dims, _semantic=None):
    input = _semantic.to_tensor(input)
    dims = _unwrap_shape(dims) if dims else []
    if not dims:
        dims = builtins.list(builtins.range(len(input.shape)))[::-1]
    return _semantic.permute(input, dims)


@_tensor_member_fn
@builtin
def expand_dims(input, axis, _semantic=None):
    input = _semantic.to_tensor(input)
    axis = _unwrap_if_constexpr(axis)
    axes = builtins.list(axis) if isinstance(axis, (builtins.list, builtins.tuple, tuple)) \
        else [axis]
    new_ndim = len(input.shape) + len(axes)
    axes = [_wrap_axis(_unwrap_if_constexpr(d), new_ndim) for d in axes]
    if len(set(axes)) != len(axes):
        raise ValueError(f"expand_dims received duplicate axes, normalized axes = {axes}")
    ret = input
    for a in sorted(axes):
        ret = _semantic.expand_dims(ret, a)
    return ret


@_tensor_member_fn
@builtin
def unsqueeze(x, dim, _semantic=None):
    return expand_dims(x, dim, _semantic=_semantic)


@_tensor_member_fn
@builtin
def squeeze(x, dim, _semantic=None):
    x = _semantic.to_tensor(x)
    shape = builtins.list(x.type.get_block_shapes())
    d = _wrap_axis(_unwrap_if_constexpr(dim), len(shape))
    if shape[d] != 1:
        raise ValueError(f"squeeze: dimension {d} has size {shape[d]}, not 1")
    del shape[d]
    if not shape:
        return _semantic.unsplat(x)
    return _semantic.reshape(x, shape, False)


@builtin
def cat(input, other, can_reorder=False, _semantic=None):
    return _semantic.cat(_semantic.to_tensor(input), _semantic.to_tensor(other))


@builtin
def join(a, b, _semantic=None):
    return _semantic.join(_semantic.to_tensor(a), _semantic.to_tensor(b))


@_tensor_member_fn
@builtin
def split(a, _semantic=None):
    a = _semantic.to_tensor(a)
    was_rank_1 = len(a.shape) == 1
    if was_rank_1:
        a = _semantic.expand_dims(a, 0)
    lhs, rhs = _semantic.split(a)
    if was_rank_1:
        lhs, rhs = _semantic.unsplat(lhs), _semantic.unsplat(rhs)
    return tuple([lhs, rhs])


@builtin
def interleave(a, b, _semantic=None):
    c = _semantic.join(_semantic.to_tensor(a), _semantic.to_tensor(b))
    shape = builtins.list(c.type.get_block_shapes())
    if len(shape) == 1:
        return c
    return _semantic.reshape(c, shape[:-2] + [2 * shape[-2]], False)


@_tensor_member_fn
@builtin
def flip(x, dim=None, _semantic=None):
    x = _semantic.to_tensor(x)
    ndim = len(x.shape)
    dim = _unwrap_if_constexpr(dim)
    d = ndim - 1 if dim is None else _wrap_axis(dim, ndim)
    return _semantic.flip(x, d)


@builtin
def histogram(input, num_bins, mask=None, _semantic=None):
    mask = _unwrap_if_constexpr(mask)
    if mask is not None:
        mask = _semantic.to_tensor(mask)
    return _semantic.histogram(_semantic.to_tensor(input), _unwrap_if_constexpr(num_bins), mask)


@_tensor_member_fn
@builtin
def gather(src, index, axis, _semantic=None):
    return _semantic.gather(_semantic.to_tensor(src), _semantic.to_tensor(index),
                            _unwrap_if_constexpr(axis))


# --------------------------------------------------------------------------------------------
# linear algebra
# --------------------------------------------------------------------------------------------

@builtin
def dot(input, other, acc=None, input_precision=None, allow_tf32=None,
        max_num_imprecise_acc=None, out_dtype=float32, _semantic=None):
    input_precision = _unwrap_if_constexpr(input_precision)
    allow_tf32 = _unwrap_if_constexpr(allow_tf32)
    if input_precision is not None and allow_tf32 is not None:
        raise ValueError("Only one of input_precision and allow_tf32 can be specified")
    if input_precision is None and allow_tf32 is False:
        input_precision = "ieee"
    acc = _unwrap_if_constexpr(acc)
    return _semantic.dot(_semantic.to_tensor(input), _semantic.to_tensor(other),
                         None if acc is None else _semantic.to_tensor(acc), input_precision,
                         _unwrap_if_constexpr(max_num_imprecise_acc),
                         _unwrap_dtype(out_dtype, "out_dtype"))


# --------------------------------------------------------------------------------------------
# reductions and scans
# --------------------------------------------------------------------------------------------

def _as_tensors(input, _semantic):
    if isinstance(input, (tuple, builtins.tuple, builtins.list)):
        return [_semantic.to_tensor(t) for t in input], True
    return [_semantic.to_tensor(input)], False


@builtin
def reduce(input, axis, combine_fn, keep_dims=False, _semantic=None):
    """Reduce `input` (a tensor or a tuple of tensors) along `axis` (None: all axes) with the
    @jit function `combine_fn(a0.., b0..) -> (r0..)`."""
    inputs, was_tuple = _as_tensors(input, _semantic)
    fn = _unwrap_if_constexpr(combine_fn)
    res = _semantic.reduce(inputs, _unwrap_if_constexpr(axis), _semantic.jit_combine(fn),
                           bool(_unwrap_if_constexpr(keep_dims)))
    return tuple(res) if was_tuple else res[0]


@builtin
def map_elementwise(scalar_fn, *args, pack=1, _semantic=None):
    """Apply the @jit function `scalar_fn` to the elements of the (broadcast) tensors `args`,
    `pack` consecutive elements at a time; the function may branch on its scalar arguments.
    Returns one tensor per value it returns (a tuple when there are several)."""
    fn = _unwrap_if_constexpr(scalar_fn)
    res = _semantic.map_elementwise([_unwrap_if_constexpr(a) for a in args], fn,
                                    int(_unwrap_if_constexpr(pack)))
    return res[0] if len(res) == 1 else tuple(res)


@builtin
def associative_scan(input, axis, combine_fn, reverse=False, _semantic=None):
    """Inclusive scan of `input` (a tensor or a tuple) along `axis` with an associative @jit
    `combine_fn`; `reverse` scans from the end."""
    inputs, was_tuple = _as_tensors(input, _semantic)
    fn = _unwrap_if_constexpr(combine_fn)
    res = _semantic.scan(inputs, _unwrap_if_constexpr(axis), _semantic.jit_combine(fn),
                         bool(_unwrap_if_constexpr(reverse)))
    return tuple(res) if was_tuple else res[0]


@_tensor_member_fn
@builtin
def sum(input, axis=None, keep_dims=False, dtype=None, _semantic=None):
    return _semantic.sum(_semantic.to_tensor(input), _unwrap_if_constexpr(axis),
                         bool(_unwrap_if_constexpr(keep_dims)), _unwrap_if_constexpr(dtype))


@_tensor_member_fn
@builtin
def max(input, axis=None, return_indices=False, return_indices_tie_break_left=True,
        keep_dims=False, _semantic=None):
    res = _semantic.minmax_reduce(
        "max", _semantic.to_tensor(input), _unwrap_if_constexpr(axis),
        bool(_unwrap_if_constexpr(return_indices)),
        bool(_unwrap_if_constexpr(return_indices_tie_break_left)),
        bool(_unwrap_if_constexpr(keep_dims)))
    return tuple(res) if isinstance(res, builtins.tuple) else res


@_tensor_member_fn
@builtin
def min(input, axis=None, return_indices=False, return_indices_tie_break_left=True,
        keep_dims=False, _semantic=None):
    res = _semantic.minmax_reduce(
        "min", _semantic.to_tensor(input), _unwrap_if_constexpr(axis),
        bool(_unwrap_if_constexpr(return_indices)),
        bool(_unwrap_if_constexpr(return_indices_tie_break_left)),
        bool(_unwrap_if_constexpr(keep_dims)))
    return tuple(res) if isinstance(res, builtins.tuple) else res


@_tensor_member_fn
@builtin
def argmax(input, axis, tie_break_left=True, keep_dims=False, _semantic=None):
    _, idx = _semantic.minmax_reduce("max", _semantic.to_tensor(input),
                                     _unwrap_if_constexpr(axis), True,
                                     bool(_unwrap_if_constexpr(tie_break_left)),
                                     bool(_unwrap_if_constexpr(keep_dims)))
    return idx


@_tensor_member_fn
@builtin
def argmin(input, axis, tie_break_left=True, keep_dims=False, _semantic=None):
    _, idx = _semantic.minmax_reduce("min", _semantic.to_tensor(input),
                                     _unwrap_if_constexpr(axis), True,
                                     bool(_unwrap_if_constexpr(tie_break_left)),
                                     bool(_unwrap_if_constexpr(keep_dims)))
    return idx


@_tensor_member_fn
@builtin
def xor_sum(input, axis=None, keep_dims=False, _semantic=None):
    return _semantic.bitwise_reduce("xor", _semantic.to_tensor(input),
                                    _unwrap_if_constexpr(axis),
                                    bool(_unwrap_if_constexpr(keep_dims)))


@_tensor_member_fn
@builtin
def reduce_or(input, axis, keep_dims=False, _semantic=None):
    return _semantic.bitwise_reduce("or", _semantic.to_tensor(input), _unwrap_if_constexpr(axis),
                                    bool(_unwrap_if_constexpr(keep_dims)))


@_tensor_member_fn
@builtin
def cumsum(input, axis=0, reverse=False, dtype=None, _semantic=None):
    return _semantic.cumulative("sum", _semantic.to_tensor(input), _unwrap_if_constexpr(axis),
                                bool(_unwrap_if_constexpr(reverse)), _unwrap_if_constexpr(dtype))


@_tensor_member_fn
@builtin
def cumprod(input, axis=0, reverse=False, _semantic=None):
    return _semantic.cumulative("prod", _semantic.to_tensor(input), _unwrap_if_constexpr(axis),
                                bool(_unwrap_if_constexpr(reverse)), None)


# --------------------------------------------------------------------------------------------
# hints and debugging
# --------------------------------------------------------------------------------------------

def _hint_values(values):
    values = _unwrap_if_constexpr(values)
    if isinstance(values, int):
        values = [values]
    out = []
    for i, d in enumerate(values):
        d = _unwrap_if_constexpr(d)
        if isinstance(d, bool) or not isinstance(d, int):
            raise TypeError(f"values element {i} must have type `constexpr[int]`, got "
                            f"`constexpr[{type(d).__name__}]`")
        out.append(d)
    return out


@builtin
def multiple_of(input, values, _semantic=None):
    return _semantic.hint(input, "tt.divisibility", _hint_values(values))


@builtin
def max_contiguous(input, values, _semantic=None):
    return _semantic.hint(input, "tt.contiguity", _hint_values(values))


@builtin
def max_constancy(input, values, _semantic=None):
    return _semantic.hint(input, "tt.constancy", _hint_values(values))


@builtin
def assume(cond, _semantic=None):
    return _semantic.assume(_unwrap_if_constexpr(cond))


@builtin
def debug_barrier(_semantic=None):
    return _semantic.debug_barrier()


@builtin
def static_print(*values, sep=" ", end="\n", file=None, flush=False, _semantic=None):
    # The frontend evaluates static_print itself (so it runs once per compile).
    builtins.print(*[_unwrap_if_constexpr(v) for v in values], sep=sep, end=end, file=file,
                   flush=flush)


@builtin
def static_assert(cond, msg="", _semantic=None):
    # The frontend intercepts static_assert to raise CompileTimeAssertionFailure at the
    # call site; this body only runs when called indirectly.
    if not _unwrap_if_constexpr(cond):
        raise AssertionError(f"static_assert failed: {_unwrap_if_constexpr(msg)}")


@builtin
def device_print(prefix, *args, hex=False, _semantic=None):
    import string
    prefix = _unwrap_if_constexpr(prefix)
    if not isinstance(prefix, str):
        # `print(x)` without a prefix string: print the values with an empty prefix.
        args = (prefix,) + args
        prefix = ""
    if any(ch not in string.printable for ch in prefix):
        raise ValueError(f"{prefix!r} is not an ascii string")
    return _semantic.device_print(prefix, [_semantic.to_tensor(a) for a in args],
                                  bool(_unwrap_if_constexpr(hex)))


@builtin
def device_assert(cond, msg="", mask=None, _semantic=None):
    msg = _unwrap_if_constexpr(msg)
    mask = _unwrap_if_constexpr(mask)
    if mask is not None:
        mask = _semantic.to_tensor(mask)
    return _semantic.device_assert(_semantic.to_tensor(cond), str(msg), mask)


@builtin
def inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack, _semantic=None):
    raise NotImplementedError("inline_asm_elementwise (PTX inline assembly) is not supported by "
                              "triton_tile; write the operation with tl ops instead")


@builtin
def dot_scaled(lhs, lhs_scale, lhs_format, rhs, rhs_scale, rhs_format, acc=None, fast_math=False,
               lhs_k_pack=True, rhs_k_pack=True, out_dtype=float32, _semantic=None):
    """lhs @ rhs for microscaled operands: formats e2m1 (two values a byte), e4m3, e5m2 (bytes,
    with uint8 e8m0 scales, one per 32 elements of K, or None), bf16, fp16; fp32 result."""
    def scale(s):
        s = _unwrap_if_constexpr(s)
        return None if s is None else _semantic.to_tensor(s)

    acc = _unwrap_if_constexpr(acc)
    return _semantic.dot_scaled(
        _semantic.to_tensor(lhs), scale(lhs_scale), str(_unwrap_if_constexpr(lhs_format)),
        _semantic.to_tensor(rhs), scale(rhs_scale), str(_unwrap_if_constexpr(rhs_format)),
        None if acc is None else _semantic.to_tensor(acc), bool(_unwrap_if_constexpr(fast_math)),
        bool(_unwrap_if_constexpr(lhs_k_pack)), bool(_unwrap_if_constexpr(rhs_k_pack)),
        _unwrap_dtype(out_dtype))


def _shape_list(values, what):
    """shape/strides/offsets given as a tuple or list (of ints, constexprs, scalar tensors)."""
    values = _unwrap_if_constexpr(values)
    if isinstance(values, (tuple, builtins.tuple, builtins.list)):
        return [_unwrap_if_constexpr(v) for v in values]
    return [values]


@builtin
def make_block_ptr(base, shape, strides, offsets, block_shape, order, _semantic=None):
    """A block pointer: the `block_shape` tile at `offsets` of the tensor (`shape`, `strides`,
    in elements) at `base`. `tl.load`/`tl.store` through it check the dimensions listed in
    `boundary_check`; `order` is the memory order of the dimensions (fastest first)."""
    return _semantic.make_block_ptr(_semantic.to_tensor(base), _shape_list(shape, "shape"),
                                    _shape_list(strides, "strides"),
                                    _shape_list(offsets, "offsets"),
                                    _shape_list(block_shape, "block_shape"),
                                    _shape_list(order, "order"))


@_tensor_member_fn
@builtin
def advance(base, offsets, _semantic=None):
    """The block pointer `base` moved by `offsets` (one per dimension). It returns a new block
    pointer and changes nothing: assign the result."""
    return _semantic.advance(_semantic.to_tensor(base), _shape_list(offsets, "offsets"))


advance._must_use_result = ("Note that tl.advance does not have any side effects. To move the "
                            "block pointer, you need to assign the result of tl.advance to a "
                            "variable.")


@builtin
def make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero",
                           _semantic=None):
    """A tensor descriptor of the tensor at `base` (`shape` int32, `strides` int64, the last
    stride the constant 1) moving `block_shape` tiles; out-of-bounds lanes read zero or NaN
    (`padding_option`)."""
    return _semantic.make_tensor_descriptor(_semantic.to_tensor(base),
                                            _shape_list(shape, "shape"),
                                            _shape_list(strides, "strides"),
                                            _shape_list(block_shape, "block_shape"),
                                            _unwrap_if_constexpr(padding_option))


@builtin
def load_tensor_descriptor(desc, offsets, _semantic=None):
    """`desc.load(offsets)`."""
    return _semantic.descriptor_load(desc, offsets)


@builtin
def store_tensor_descriptor(desc, offsets, value, _semantic=None):
    """`desc.store(offsets, value)`."""
    return _semantic.descriptor_store(desc, value, offsets)


# --------------------------------------------------------------------------------------------
# tensor methods
# --------------------------------------------------------------------------------------------

def _install_tensor_members():
    for fn in _TENSOR_MEMBERS:
        name = fn.__name__
        if name in tensor.__dict__:
            continue

        def make(f):
            @functools.wraps(f)
            def method(self, *args, **kwargs):
                return f(self, *args, **kwargs)
            method.__triton_builtin__ = True
            return method

        setattr(tensor, name, make(fn))


def _math_tensor_members(module):
    """Called by language/__init__ once math.py is loaded: `x.exp()` etc."""
    for name in ("exp", "exp2", "log", "log2", "sqrt", "sqrt_rn", "rsqrt", "sin", "cos", "abs",
                 "floor", "ceil", "erf", "fma", "sigmoid", "softmax", "cdiv", "umulhi"):
        fn = getattr(module, name, None)
        if fn is not None and not hasattr(tensor, name):
            _TENSOR_MEMBERS.append(fn)
    _install_tensor_members()


_install_tensor_members()

# Python's float32 normal range, for literal typing.
_FP32_MIN_NORMAL = 2.0**-126
_FP32_MAX = (2 - 2.0**-23) * 2.0**127


def float_literal_dtype(x: float) -> dtype:
    """Python floats are fp32 unless outside fp32's normal range (then fp64)."""
    if x == 0 or x != x or x in (float("inf"), float("-inf")) or \
            _FP32_MIN_NORMAL <= abs(x) <= _FP32_MAX:
        return float32
    return float64


def int_literal_dtype(x: int) -> dtype:
    if -2**31 <= x < 2**31:
        return int32
    if 2**31 <= x < 2**32:
        return uint32
    if -2**63 <= x < 2**63:
        return int64
    if 2**63 <= x < 2**64:
        return uint64
    raise ValueError(f"Nonrepresentable integer {x}.")

pi32_t = pointer_type(int32)

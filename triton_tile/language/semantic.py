"""Typing, promotion and IR emission for the `tl` builtins.

One `Semantic` object per compilation holds the `_core.Builder`; every builtin in core.py,
math.py and standard.py ends up here. The rules are Triton's (its language/semantic.py and
docs/python-api/triton-semantics.rst): literal typing, tensor/scalar promotion, C-style
integer `//` and `%`, fp16/bf16 `/` and `%` in fp32, NumPy broadcasting, NaN-ignoring
min/max. Integers are signless in the IR, so the signedness kept in the tl dtype picks the op
(`divsi`/`divui`, `extsi`/`extui`, ...).
"""

from __future__ import annotations

import math
import numbers
from typing import Callable, List, NamedTuple, Optional, Sequence

from .. import _core
from . import core as tl

# The TTIR enums' numbers, from the one table the printer and parser read (csrc/ttir/enums.h).
_ENUMS = _core.ttir_enums()
_CMPI = _ENUMS["cmpi"]
# tl's float comparisons are ordered, except != (unordered: NaN != x holds), as in Triton.
_CMPF = {op: _ENUMS["cmpf"][pred] for op, pred in (("eq", "oeq"), ("gt", "ogt"), ("ge", "oge"),
                                                     ("lt", "olt"), ("le", "ole"), ("ne", "une"))}
_RMW = {**{k: v for k, v in _ENUMS["atomic_rmw"].items() if k != "exch"},
        "xchg": _ENUMS["atomic_rmw"]["exch"]}  # tl.atomic_xchg prints as `exch`
_SEM = _ENUMS["mem_semantic"]
_SCOPE = _ENUMS["mem_sync_scope"]
# Triton's CacheModifier / EvictionPolicy enum values (1 is the default, "none"/"normal")
_LOAD_CACHE = {"": 1, ".ca": 2, ".cg": 3, ".cv": 7}
_STORE_CACHE = {"": 1, ".wb": 4, ".cg": 3, ".cs": 5, ".wt": 6}
_EVICT = {"": 1, "evict_normal": 1, "evict_first": 2, "evict_last": 3}
_DOT_PRECISION = {k: _ENUMS["input_precision"][k] for k in ("tf32", "tf32x3", "ieee")}


class IncompatibleTypeErrorImpl(TypeError):
    def __init__(self, type_a, type_b):
        super().__init__(f"invalid operands of type {type_a!r} and {type_b!r}")


def _i32_attr(v: int):
    return _core.int_attr(int(v), _core.int_type(32))


def _handle(x):
    return x.handle if isinstance(x, tl.tensor) else x


def _is_scalar_number(x) -> bool:
    return isinstance(x, numbers.Number) and not isinstance(x, tl.tensor)


class BlockPointerParts(NamedTuple):
    """The operands of the tt.make_tensor_ptr a block pointer value equals."""

    base: "tl.tensor"
    shape: list  # i64 scalars
    strides: list  # i64 scalars
    offsets: list  # i32 scalars
    order: tuple  # ints


def _is_block_ptr(x) -> bool:
    """A block pointer (tl.make_block_ptr): a scalar pointer to a block_type."""
    t = getattr(x, "type", None)
    return isinstance(t, tl.pointer_type) and isinstance(t.element_ty, tl.block_type)


def _literal_dtype(x):
    """The type a Python number gets as a kernel value (reference §1.7 literal typing)."""
    if isinstance(x, bool):
        return tl.int1
    if isinstance(x, numbers.Integral):
        return tl.int_literal_dtype(int(x))
    return tl.float_literal_dtype(float(x))


class Semantic:
    """Emits IR for the builtins through `builder`; `ctx` (the frontend's compile context)
    provides `call_jit(fn, args)` for user combine functions."""

    def __init__(self, builder, options, ctx=None):
        self.builder = builder
        self.options = options
        self.ctx = ctx

    # ----------------------------------------------------------------------------------------
    # IR helpers
    # ----------------------------------------------------------------------------------------

    def _op(self, name, operands, result_types, attrs=None, regions=0):
        return self.builder.create(name, [_handle(o) for o in operands], list(result_types),
                                   attrs or {}, regions)

    def _emit(self, name, operands, ty, attrs=None) -> tl.tensor:
        op = self._op(name, operands, [ty.to_ir()], attrs)
        return tl.tensor(op.result(0), ty)

    @staticmethod
    def _retag(x: tl.tensor, ty) -> tl.tensor:
        """Same bits, new tl type (signedness changes are no-ops in the signless IR)."""
        return tl.tensor(x.handle, ty)

    @staticmethod
    def _norm_int(value, dt) -> int:
        """A Python int as the two's-complement value the IR attribute stores."""
        bits = dt.int_bitwidth
        v = int(value) & ((1 << bits) - 1)
        if bits > 1 and v >= 1 << (bits - 1):
            v -= 1 << bits
        return v

    def _const_value(self, value, dt):
        value = tl._unwrap_if_constexpr(value)
        if dt.is_floating():
            return float(value)
        if isinstance(value, float):
            if value != value or value in (float("inf"), float("-inf")):
                raise ValueError(f"cannot represent {value} as {dt}")
            value = int(value)
        if dt.is_bool():
            return int(bool(value))
        return self._norm_int(value, dt)

    def scalar_constant(self, value, dt) -> tl.tensor:
        if dt is None:
            raise ValueError("dtype must be specified when value is not a tensor")
        if isinstance(value, tl.tensor):
            if value.numel.value != 1:
                raise ValueError("only a size-1 tensor can be used as a scalar")
            return self.cast(self.unsplat(value) if value.type.is_block() else value, dt)
        ir = dt.to_ir()
        v = self._const_value(value, dt)
        if dt.is_fp8e4b15():
            v = v / self._E4B15_SCALE  # the f8E4M3FN value whose bits are this fp8e4b15 value
        attr = _core.float_attr(v, ir) if dt.is_floating() else _core.int_attr(v, ir)
        return self._emit("arith.constant", [], dt, {"value": attr})

    def block_constant(self, value, ty: tl.block_type) -> tl.tensor:
        v = self._const_value(value, ty.scalar)
        if ty.scalar.is_fp8e4b15():
            v = v / self._E4B15_SCALE
        return self._emit("arith.constant", [], ty, {"value": _core.dense_attr(v, ty.to_ir())})

    def _constant_like(self, value, dt, like: Optional[tl.tensor] = None) -> tl.tensor:
        """`value` as `dt`, shaped like `like` when that is a block (one dense constant)."""
        if like is not None and like.type.is_block():
            return self.block_constant(value, like.type.with_element_ty(dt))
        return self.scalar_constant(value, dt)

    def to_tensor(self, x) -> tl.tensor:
        x = tl._unwrap_if_constexpr(x)
        if isinstance(x, tl.tensor):
            return x
        if isinstance(x, bool):
            return self.scalar_constant(int(x), tl.int1)
        if isinstance(x, numbers.Integral):
            return self.scalar_constant(int(x), tl.int_literal_dtype(int(x)))
        if isinstance(x, numbers.Real):
            return self.scalar_constant(float(x), tl.float_literal_dtype(float(x)))
        raise TypeError(f"cannot convert {x!r} of type {type(x).__name__} to tensor")

    # ----------------------------------------------------------------------------------------
    # promotion and broadcasting
    # ----------------------------------------------------------------------------------------

    @staticmethod
    def integer_promote_impl(a_ty, b_ty):
        a_rank, b_rank = a_ty.int_bitwidth, b_ty.int_bitwidth
        a_sn, b_sn = a_ty.int_signedness, b_ty.int_signedness
        # C's usual arithmetic conversions: the wider type wins; at equal width, unsigned wins.
        if a_sn == b_sn:
            return a_ty if a_rank > b_rank else b_ty
        if a_sn == tl.dtype.SIGNEDNESS.UNSIGNED:
            return a_ty if a_rank >= b_rank else b_ty
        return b_ty if b_rank >= a_rank else a_ty

    def computation_type_impl(self, a_ty, a_is_scalar, b_ty, b_is_scalar, div_or_mod):
        # A Python scalar of the same or a lower kind than the tensor does not take part.
        if a_is_scalar != b_is_scalar:
            scalar_ty, tensor_ty = (a_ty, b_ty) if a_is_scalar else (b_ty, a_ty)
            if scalar_ty.kind().value <= tensor_ty.kind().value:
                if div_or_mod and tensor_ty in (tl.float16, tl.bfloat16):
                    return tl.float32
                return tensor_ty
        if a_ty.is_fp64() or b_ty.is_fp64():
            return tl.float64
        if a_ty.is_fp32() or b_ty.is_fp32():
            return tl.float32
        # fp16 wins over lower types, but / and % compute in fp32.
        if a_ty.is_fp16() or b_ty.is_fp16():
            return tl.float32 if div_or_mod else tl.float16
        if a_ty.is_bf16() and b_ty.is_bf16():
            return tl.float32 if div_or_mod else tl.bfloat16
        if a_ty.is_bf16() or b_ty.is_bf16():
            return tl.float32
        if a_ty.is_fp8() and b_ty.is_fp8():
            return a_ty if a_ty == b_ty else tl.float16
        if not a_ty.is_int() or not b_ty.is_int():
            raise TypeError(f"unexpected type {a_ty} and {b_ty}")
        if div_or_mod and a_ty.int_signedness != b_ty.int_signedness:
            raise TypeError(f"Cannot use /, //, or % with {a_ty!r} and {b_ty!r} because they "
                            "have different signedness; this is unlikely to result in a useful "
                            "answer. Cast them to the same signedness.")
        return self.integer_promote_impl(a_ty, b_ty)

    @staticmethod
    def check_ptr_type_impl(type_a, type_b, allow_ptr_a):
        if type_a.is_ptr():
            if not allow_ptr_a:
                raise IncompatibleTypeErrorImpl(type_a, type_b)
            if type_b.is_ptr() and type_a != type_b:
                raise IncompatibleTypeErrorImpl(type_a, type_b)
            if type_b.is_floating():
                raise IncompatibleTypeErrorImpl(type_a, type_b)

    def binary_op_type_checking_impl(self, lhs, rhs, allow_lhs_ptr=False, allow_rhs_ptr=False,
                                     arithmetic_check=True, div_or_mod=False):
        lhs = tl._unwrap_if_constexpr(lhs)
        rhs = tl._unwrap_if_constexpr(rhs)
        lhs_is_scalar = _is_scalar_number(lhs)
        rhs_is_scalar = _is_scalar_number(rhs)
        for x, is_sc in ((lhs, lhs_is_scalar), (rhs, rhs_is_scalar)):
            if not is_sc and not isinstance(x, tl.tensor):
                raise TypeError(f"unsupported operand {x!r} of type {type(x).__name__}")
        lhs_sca = _literal_dtype(lhs) if lhs_is_scalar else lhs.type.scalar
        rhs_sca = _literal_dtype(rhs) if rhs_is_scalar else rhs.type.scalar
        self.check_ptr_type_impl(lhs_sca, rhs_sca, allow_lhs_ptr)
        self.check_ptr_type_impl(rhs_sca, lhs_sca, allow_rhs_ptr)
        if arithmetic_check and not lhs_sca.is_ptr() and not rhs_sca.is_ptr():
            ret = self.computation_type_impl(lhs_sca, lhs_is_scalar, rhs_sca, rhs_is_scalar,
                                             div_or_mod)
            if ret.is_int_unsigned() and ((lhs_is_scalar and lhs < 0) or
                                          (rhs_is_scalar and rhs < 0)):
                raise ValueError("Cannot perform a binary operation between an unsigned tensor "
                                 "and a negative scalar. Perform a explicit cast on one of "
                                 "them.")
            if ret.is_int():
                for is_sc, sc in ((lhs_is_scalar, lhs), (rhs_is_scalar, rhs)):
                    if is_sc and not isinstance(sc, float) and \
                            not ret.get_int_min_value() <= sc <= ret.get_int_max_value():
                        raise ValueError(f"Scalar {sc} is out of range for type {ret}")
            # A Python scalar becomes a constant of the result type directly (shaped like the
            # other side when that is a block), everything else is cast.
            if lhs_is_scalar and rhs_is_scalar:
                lhs_t = self.scalar_constant(lhs, ret)
                rhs_t = self.scalar_constant(rhs, ret)
            elif lhs_is_scalar:
                rhs_t = self.cast(rhs, ret)
                lhs_t = self._constant_like(lhs, ret, rhs_t)
            elif rhs_is_scalar:
                lhs_t = self.cast(lhs, ret)
                rhs_t = self._constant_like(rhs, ret, lhs_t)
            else:
                lhs_t, rhs_t = self.cast(lhs, ret), self.cast(rhs, ret)
        else:
            lhs_t = self.to_tensor(lhs) if lhs_is_scalar else lhs
            rhs_t = self.to_tensor(rhs) if rhs_is_scalar else rhs
        return self.broadcast_impl_value(lhs_t, rhs_t)

    def broadcast_shapes(self, a: Sequence[int], b: Sequence[int]) -> List[int]:
        a, b = list(a), list(b)
        if len(a) < len(b):
            a = [1] * (len(b) - len(a)) + a
        elif len(b) < len(a):
            b = [1] * (len(a) - len(b)) + b
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            if x == 1:
                out.append(y)
            elif y == 1 or x == y:
                out.append(x)
            else:
                raise ValueError(f"Cannot make_shape_compatible: incompatible dimensions at "
                                 f"index {i}: {x} and {y}")
        return out

    def broadcast_impl_value(self, lhs: tl.tensor, rhs: tl.tensor):
        lt, rt = lhs.type, rhs.type
        if lt.is_block() and not rt.is_block():
            rhs = self.splat(rhs, lt.shape)
        elif rt.is_block() and not lt.is_block():
            lhs = self.splat(lhs, rt.shape)
        elif lt.is_block() and rt.is_block():
            shape = self.broadcast_shapes(lt.shape, rt.shape)
            lhs = self.broadcast_impl_shape(self._left_pad(lhs, len(shape)), shape)
            rhs = self.broadcast_impl_shape(self._left_pad(rhs, len(shape)), shape)
        return lhs, rhs

    def _left_pad(self, x: tl.tensor, rank: int) -> tl.tensor:
        while len(x.type.shape) < rank:
            x = self.expand_dims(x, 0)
        return x

    def broadcast_impl_shape(self, input: tl.tensor, shape: Sequence[int]) -> tl.tensor:
        shape = [int(s) for s in shape]
        if not input.type.is_block():
            return self.splat(input, shape) if shape else input
        src = list(input.type.shape)
        if len(src) != len(shape):
            raise ValueError(f"Cannot broadcast, rank mismatch: {src}, {shape}")
        if src == shape:
            return input
        for i, item in enumerate(src):
            if shape[i] != item and item != 1:
                raise ValueError(f"Cannot broadcast, the expanded size of the tensor ({shape[i]})"
                                 f" must match the existing size ({item}) at non-singleton "
                                 f"dimension {i}: {src}, {shape}")
        return self._emit("tt.broadcast", [input], tl.block_type(input.type.scalar, shape))

    def _broadcast_all(self, *xs: tl.tensor):
        shape: Optional[List[int]] = None
        for x in xs:
            if x.type.is_block():
                shape = list(x.type.shape) if shape is None else \
                    self.broadcast_shapes(shape, x.type.shape)
        if shape is None:
            return xs
        return tuple(self.broadcast_impl_shape(self._left_pad(x, len(shape))
                                               if x.type.is_block() else x, shape) for x in xs)

    def promote_bf16_to_fp32(self, x: tl.tensor) -> tl.tensor:
        return self.cast(x, tl.float32) if x.dtype.is_bf16() else x

    # ----------------------------------------------------------------------------------------
    # arithmetic
    # ----------------------------------------------------------------------------------------

    def _sanitize_overflow(self, lhs, rhs, binop, name):
        """Under debug, check `lhs op rhs` fits the (< 64-bit) integer type (Triton's
        sanitize_overflow); compiled out otherwise, so arithmetic wraps."""
        dt = lhs.type.scalar
        if not (getattr(self.options, "debug", False)
                and getattr(self.options, "sanitize_overflow", True)):
            return
        if not dt.is_int() or dt.int_bitwidth >= 64 or dt.is_bool():
            return
        wide = binop(self.cast(lhs, tl.int64), self.cast(rhs, tl.int64), False)
        hi = self._constant_like(dt.get_int_max_value(), tl.int64, wide)
        lo = self._constant_like(dt.get_int_min_value(), tl.int64, wide)
        ok = self.and_(self.compare("le", wide, hi), self.compare("ge", wide, lo))
        self.device_assert(ok, f"int{dt.int_bitwidth} overflow detected for operation {name}",
                           None)

    def add(self, input, other, sanitize_overflow: bool = True) -> tl.tensor:
        input, other = self.binary_op_type_checking_impl(input, other, True, True)
        a, b = input.type.scalar, other.type.scalar
        if a.is_ptr() and b.is_ptr():
            raise TypeError("cannot add pointers together")
        if b.is_ptr():
            input, other = other, input
            a, b = b, a
        if a.is_ptr():
            if b.is_int_unsigned() and b.int_bitwidth < 64:
                # tt.addptr sign-extends offsets; keep unsigned offsets non-negative.
                other = self.cast(other, tl.int64)
            return self._emit("tt.addptr", [input, other], input.type)
        if a.is_floating():
            return self._emit("arith.addf", [input, other], input.type)
        if a.is_int():
            if sanitize_overflow:
                self._sanitize_overflow(input, other, self.add, "add")
            return self._emit("arith.addi", [input, other], input.type)
        raise TypeError(f"unexpected type {a}")

    def sub(self, input, other, sanitize_overflow: bool = True) -> tl.tensor:
        input, other = self.binary_op_type_checking_impl(input, other, True, False)
        a = input.type.scalar
        if a.is_ptr():
            return self.add(input, self.minus(other), False)
        if a.is_floating():
            return self._emit("arith.subf", [input, other], input.type)
        if a.is_int():
            if sanitize_overflow:
                self._sanitize_overflow(input, other, self.sub, "sub")
            return self._emit("arith.subi", [input, other], input.type)
        raise TypeError(f"unexpected type {a}")

    def mul(self, input, other, sanitize_overflow: bool = True) -> tl.tensor:
        input, other = self.binary_op_type_checking_impl(input, other)
        a = input.type.scalar
        if a.is_fp8e4b15():
            return self._e4b15_via_f32(self.mul, input, other)
        if a.is_floating():
            return self._emit("arith.mulf", [input, other], input.type)
        if a.is_int():
            if sanitize_overflow:
                self._sanitize_overflow(input, other, self.mul, "mul")
            return self._emit("arith.muli", [input, other], input.type)
        raise TypeError(f"unexpected type {a}")

    def truediv(self, input, other) -> tl.tensor:
        input, other = self.binary_op_type_checking_impl(input, other, False, False, True, True)
        a, b = input.type.scalar, other.type.scalar
        if a.is_floating() and b.is_int():
            other = self.cast(other, a)
        elif a.is_int() and b.is_floating():
            input = self.cast(input, b)
        elif a.is_int() and b.is_int():
            input = self.cast(input, tl.float32)
            other = self.cast(other, tl.float32)
        elif a.is_floating() and b.is_floating():
            if a.fp_mantissa_width > b.fp_mantissa_width:
                other = self.cast(other, a)
            else:
                input = self.cast(input, b)
        else:
            raise TypeError(f"unexpected type {a}")
        if input.type.scalar.is_fp8e4b15():
            return self._e4b15_via_f32(self.truediv, input, other)
        return self._emit("arith.divf", [input, other], input.type)

    def floordiv(self, input, other) -> tl.tensor:
        input, other = self.binary_op_type_checking_impl(input, other, False, False, True, True)
        a, b = input.type.scalar, other.type.scalar
        if a.is_int() and b.is_int():
            ret = self.integer_promote_impl(a, b)
            input, other = self.cast(input, ret), self.cast(other, ret)
            # C semantics: the quotient truncates toward zero.
            name = "arith.divsi" if ret.is_int_signed() else "arith.divui"
            return self._emit(name, [input, other], input.type)
        raise TypeError(f"unexpected type {a}: // is only defined for integer tensors")

    def fdiv(self, input, other, ieee_rounding: bool) -> tl.tensor:
        if not input.type.scalar.is_floating() or not other.type.scalar.is_floating():
            raise TypeError("both operands of fdiv must have floating scalar type")
        input, other = self.binary_op_type_checking_impl(input, other, False, False, True, False)
        if input.type.scalar.is_fp8e4b15():
            return self._e4b15_via_f32(lambda a, b: self.fdiv(a, b, ieee_rounding), input, other)
        name = "tt.precise_divf" if ieee_rounding else "arith.divf"
        return self._emit(name, [input, other], input.type)

    def mod(self, input, other) -> tl.tensor:
        input, other = self.binary_op_type_checking_impl(input, other, False, False, True, True)
        a, b = input.type.scalar, other.type.scalar
        if a.is_floating():
            return self._emit("arith.remf", [input, other], input.type)  # fmod
        if a.is_int():
            if a.int_signedness != b.int_signedness:
                raise TypeError(f"Cannot mod {a!r} by {b!r} because they have different "
                                "signedness; this is unlikely to result in a useful answer. "
                                "Cast them to the same signedness.")
            name = "arith.remsi" if a.is_int_signed() else "arith.remui"
            return self._emit(name, [input, other], input.type)
        raise TypeError(f"unexpected type {a}")

    def minus(self, input) -> tl.tensor:
        input = self.to_tensor(input)
        t = input.type.scalar
        if t.is_ptr():
            raise ValueError(f"wrong type argument to unary negation ({t})")
        if t.is_floating():
            return self._emit("arith.negf", [input], input.type)
        return self.sub(self._constant_like(0, t, input), input, False)

    def invert(self, input) -> tl.tensor:
        input = self.to_tensor(input)
        t = input.type.scalar
        if t.is_ptr() or t.is_floating():
            raise ValueError(f"wrong type argument to unary invert ({t})")
        ones = self._constant_like(1 if t.is_bool() else -1, t, input)
        return self.xor_(input, ones)

    def not_(self, input) -> tl.tensor:
        input = self.to_tensor(input)
        if input.type.scalar.is_bool():
            return self.invert(input)
        return self.compare("eq", input, 0)

    def _bitwise_operands(self, input, other):
        input, other = self.binary_op_type_checking_impl(input, other)
        a, b = input.type.scalar, other.type.scalar
        if not a.is_int() or not b.is_int():
            raise IncompatibleTypeErrorImpl(a, b)
        ret = self.integer_promote_impl(a, b)
        return self.cast(input, ret), self.cast(other, ret)

    def and_(self, input, other) -> tl.tensor:
        input, other = self._bitwise_operands(input, other)
        return self._emit("arith.andi", [input, other], input.type)

    def or_(self, input, other) -> tl.tensor:
        input, other = self._bitwise_operands(input, other)
        return self._emit("arith.ori", [input, other], input.type)

    def xor_(self, input, other) -> tl.tensor:
        input, other = self._bitwise_operands(input, other)
        return self._emit("arith.xori", [input, other], input.type)

    def logical_and(self, input, other) -> tl.tensor:
        input = self.cast(self.to_tensor(input), tl.int1)
        other = self.cast(self.to_tensor(other), tl.int1)
        return self.and_(input, other)

    def logical_or(self, input, other) -> tl.tensor:
        input = self.cast(self.to_tensor(input), tl.int1)
        other = self.cast(self.to_tensor(other), tl.int1)
        return self.or_(input, other)

    def shl(self, input, other) -> tl.tensor:
        input, other = self._bitwise_operands(input, other)
        return self._emit("arith.shli", [input, other], input.type)

    def shr(self, input, other) -> tl.tensor:
        # As Triton: the shift is arithmetic when the tensor operand (the left one, or the right
        # one when the left is a Python scalar) is signed, decided before promotion, so a
        # signed `x >> y` stays arithmetic even when an unsigned `y` makes the result unsigned.
        sign_src = tl._unwrap_if_constexpr(input)
        if not isinstance(sign_src, tl.tensor):
            sign_src = tl._unwrap_if_constexpr(other)
        signed = isinstance(sign_src, tl.tensor) and sign_src.type.scalar.is_int_signed()
        input, other = self._bitwise_operands(input, other)
        if not isinstance(sign_src, tl.tensor):
            signed = input.type.scalar.is_int_signed()
        name = "arith.shrsi" if signed else "arith.shrui"
        return self._emit(name, [input, other], input.type)

    def compare(self, kind: str, input, other) -> tl.tensor:
        """kind in eq ne lt le gt ge; result i1 with the broadcast shape."""
        lhs = tl._unwrap_if_constexpr(input)
        rhs = tl._unwrap_if_constexpr(other)
        lp = isinstance(lhs, tl.tensor) and lhs.type.scalar.is_ptr()
        rp = isinstance(rhs, tl.tensor) and rhs.type.scalar.is_ptr()
        if lp or rp:
            if not (lp and rp) or lhs.type.scalar != rhs.type.scalar:
                raise IncompatibleTypeErrorImpl(getattr(lhs, "type", lhs),
                                                getattr(rhs, "type", rhs))
            lhs, rhs = self.broadcast_impl_value(lhs, rhs)
            pred = {"eq": "eq", "ne": "ne"}.get(kind, "u" + kind)
            return self._emit("arith.cmpi", [lhs, rhs], lhs.type.with_element_ty(tl.int1),
                              {"predicate": _core.int_attr(_CMPI[pred], _core.int_type(64))})
        lhs, rhs = self.binary_op_type_checking_impl(lhs, rhs)
        t = lhs.type.scalar
        ret_ty = lhs.type.with_element_ty(tl.int1)
        i64 = _core.int_type(64)
        if t.is_floating():
            return self._emit("arith.cmpf", [lhs, rhs], ret_ty,
                              {"predicate": _core.int_attr(_CMPF[kind], i64)})
        if t.is_int():
            pred = kind if kind in ("eq", "ne") else ("s" if t.is_int_signed() else "u") + kind
            return self._emit("arith.cmpi", [lhs, rhs], ret_ty,
                              {"predicate": _core.int_attr(_CMPI[pred], i64)})
        raise TypeError(f"unexpected type {t}")

    def minimum(self, x, y, propagate_nan) -> tl.tensor:
        return self._minmax("min", x, y, propagate_nan)

    def maximum(self, x, y, propagate_nan) -> tl.tensor:
        return self._minmax("max", x, y, propagate_nan)

    def _minmax(self, kind, x, y, propagate_nan) -> tl.tensor:
        x, y = self.binary_op_type_checking_impl(x, y)
        t = x.dtype
        if t.is_floating():
            if propagate_nan == tl.PropagateNan.ALL:
                name = f"arith.{kind}imumf"
            elif propagate_nan in (tl.PropagateNan.NONE, None):
                name = f"arith.{kind}numf"
            else:
                raise ValueError(f"Unexpected propagate_nan {propagate_nan}")
        elif t.is_int_signed():
            name = f"arith.{kind}si"
        elif t.is_int_unsigned():
            name = f"arith.{kind}ui"
        else:
            raise TypeError(f"Unexpected dtype {t}")
        return self._emit(name, [x, y], x.type)

    def clamp(self, x, lo, hi, propagate_nan) -> tl.tensor:
        lo, hi = self.binary_op_type_checking_impl(lo, hi)
        x, lo = self.binary_op_type_checking_impl(x, lo)
        x, hi = self.binary_op_type_checking_impl(x, hi)
        x, lo, hi = self._broadcast_all(x, lo, hi)
        if not x.dtype.is_floating():
            raise TypeError(f"Unexpected dtype {x.dtype}. Only floating point clamp is supported")
        pn = 0xFFFF if propagate_nan == tl.PropagateNan.ALL else 0
        return self._emit("tt.clampf", [x, lo, hi], x.type, {"propagateNan": _i32_attr(pn)})

    def where(self, condition, x, y) -> tl.tensor:
        condition = self.to_tensor(condition)
        if condition.dtype != tl.int1:
            condition = self.cast(condition, tl.int1)
        x, y = self.binary_op_type_checking_impl(x, y, True, True)
        condition, x, y = self._broadcast_all(condition, x, y)
        return self._emit("arith.select", [condition, x, y], x.type)

    # ----------------------------------------------------------------------------------------
    # math
    # ----------------------------------------------------------------------------------------

    @staticmethod
    def check_dtype(x: tl.tensor, allowed: Sequence[str], fn_name: str):
        if x.type.scalar.name not in allowed:
            raise ValueError(f"Expected dtype {list(allowed)} but got {x.type.scalar.name}"
                             f" (in {fn_name}; use .to(tl.float32) first)")

    def unary_math(self, name: str, x, allowed=("fp32", "fp64")) -> tl.tensor:
        x = self.to_tensor(x)
        if allowed:
            self.check_dtype(x, allowed, name)
        return self._emit(name, [x], x.type)

    def abs(self, x) -> tl.tensor:
        x = self.to_tensor(x)
        t = x.dtype
        if t.is_fp8():
            # clear the sign bit
            bits = self.bitcast(x, tl.uint8)
            return self.bitcast(self.and_(bits, 0x7F), t)
        if t.is_floating():
            return self._emit("math.absf", [x], x.type)
        if t.is_int_signed():
            return self._emit("math.absi", [x], x.type)
        if t.is_int_unsigned():
            return x
        raise TypeError(f"Unexpected dtype {t}")

    def fma(self, x, y, z) -> tl.tensor:
        x, y = self.binary_op_type_checking_impl(x, y)
        z, x = self.binary_op_type_checking_impl(z, x)
        z, y = self.binary_op_type_checking_impl(z, y)
        x, y, z = self._broadcast_all(x, y, z)
        if not x.dtype.is_floating():
            raise TypeError(f"fma expects floating-point operands, got {x.dtype}")
        if x.dtype.is_fp8e4b15():
            return self._e4b15_via_f32(self.fma, x, y, z)
        return self._emit("math.fma", [x, y, z], z.type)

    def umulhi(self, x, y) -> tl.tensor:
        x, y = self.binary_op_type_checking_impl(x, y)
        self.check_dtype(x, ("int32", "int64", "uint32", "uint64"), "umulhi")
        return self._emit("tt.mulhiui", [x, y], x.type)

    def precise_sqrt(self, x) -> tl.tensor:
        x = self.to_tensor(x)
        self.check_dtype(x, ("fp32", "fp64"), "sqrt_rn")
        return self._emit("tt.precise_sqrt", [x], x.type)

    def precise_div(self, x, y) -> tl.tensor:
        x, y = self.binary_op_type_checking_impl(x, y)
        self.check_dtype(x, ("fp32", "fp64"), "div_rn")
        return self._emit("tt.precise_divf", [x, y], x.type)

    # ----------------------------------------------------------------------------------------
    # casts
    # ----------------------------------------------------------------------------------------

    def cast(self, input: tl.tensor, dst_ty, fp_downcast_rounding: Optional[str] = None):
        input = self.to_tensor(input)
        src_ty = input.type
        src = src_ty.scalar
        dst = dst_ty.scalar if isinstance(dst_ty, tl.block_type) else dst_ty
        if src == dst:
            return input
        dst_ty = src_ty.with_element_ty(dst) if src_ty.is_block() else dst
        if fp_downcast_rounding is None:
            rounding = "rtne"
        elif fp_downcast_rounding in ("rtne", "rtz"):
            rounding = fp_downcast_rounding
        else:
            raise ValueError(f"fp_downcast_rounding should be 'rtne' or 'rtz', got "
                             f"{fp_downcast_rounding!r}")
        both_float = src.is_floating() and dst.is_floating()
        downcast = both_float and src.primitive_bitwidth > dst.primitive_bitwidth
        if fp_downcast_rounding is not None and not downcast:
            raise ValueError("fp_downcast_rounding is only valid for floating-point downcasts")

        if src.is_fp8e4b15() or dst.is_fp8e4b15():
            return self._cast_e4b15(input, src, dst, rounding, fp_downcast_rounding)
        # fp8 conversions and explicit rounding go through tt.fp_to_fp
        if (both_float and (src.is_fp8() or dst.is_fp8())) or (downcast and rounding == "rtz"):
            attrs = {"rounding": _i32_attr(0 if rounding == "rtz" else 1)} if downcast else {}
            return self._emit("tt.fp_to_fp", [input], dst_ty, attrs)
        if src.is_fp8() or dst.is_fp8():
            # fp8 <-> int: through fp32
            return self.cast(self.cast(input, tl.float32), dst)
        # fp16/bf16 to anything but fp32 goes through fp32
        if (src.is_fp16() or src.is_bf16()) and not dst.is_fp32():
            return self.cast(self.cast(input, tl.float32), dst)
        if both_float:
            name = "arith.truncf" if downcast else "arith.extf"
            return self._emit(name, [input], dst_ty)

        if src.is_int() and dst.is_int():
            if dst.is_bool():
                return self.compare("ne", input, 0)
            if src.int_bitwidth == dst.int_bitwidth:
                return self._retag(input, dst_ty)
            if src.int_bitwidth > dst.int_bitwidth:
                return self._emit("arith.trunci", [input], dst_ty)
            name = "arith.extsi" if src.is_int_signed() else "arith.extui"
            return self._emit(name, [input], dst_ty)

        if src.is_standard_floating() and dst.is_int():
            if dst.is_bool():
                return self.compare("ne", input, 0.0)
            name = "arith.fptosi" if dst.is_int_signed() else "arith.fptoui"
            return self._emit(name, [input], dst_ty)

        if src.is_int() and dst.is_standard_floating():
            name = "arith.sitofp" if src.is_int_signed() else "arith.uitofp"
            return self._emit(name, [input], dst_ty)

        if src.is_ptr() and dst.is_int():
            as_i64 = self._emit("tt.ptr_to_int", [input], src_ty.with_element_ty(tl.int64)
                                if src_ty.is_block() else tl.int64)
            return self.cast(as_i64, dst)
        if src.is_int() and dst.is_ptr():
            if src.int_bitwidth != 64:
                input = self.cast(input, tl.int64)
            return self._emit("tt.int_to_ptr", [input], dst_ty)
        if src.is_ptr() and dst.is_ptr():
            if src.to_ir() == dst.to_ir():
                return self._retag(input, dst_ty)
            return self._emit("tt.bitcast", [input], dst_ty)
        raise TypeError(f"cannot cast {input} to {dst_ty}")

    # fp8e4b15 values are the f8E4M3FN values of the same bits times this (see core._DTYPES)
    _E4B15_SCALE = 2.0**-8

    def _cast_e4b15(self, input, src, dst, rounding, fp_downcast_rounding):
        """Casts from and to fp8e4b15 through fp32, where the bias difference is an exact
        multiplication by a power of two; the fp8 rounding is fp8e4nv's, scaled, so it is
        fp8e4b15's own."""
        f32 = tl.float32
        if src.is_fp8e4b15():
            as_e4nv = self._retag(input, input.type.with_element_ty(tl.float8e4nv)
                                  if input.type.is_block() else tl.float8e4nv)
            v = self._emit("arith.mulf", [self.cast(as_e4nv, f32),
                                          self._constant_like(self._E4B15_SCALE, f32, input)],
                           input.type.with_element_ty(f32) if input.type.is_block() else f32)
            if dst.is_fp8e4b15():
                return input
            return self.cast(v, dst, fp_downcast_rounding if dst.primitive_bitwidth < 32
                             else None)
        v = self.cast(input, f32) if src != f32 else input
        v = self._emit("arith.mulf", [v, self._constant_like(1 / self._E4B15_SCALE, f32, v)],
                       v.type)
        e4nv = self.cast(v, tl.float8e4nv, rounding if fp_downcast_rounding else None)
        return self._retag(e4nv, e4nv.type.with_element_ty(dst) if e4nv.type.is_block()
                           else dst)

    def _e4b15_via_f32(self, fn, *args):
        """An operation that does not commute with the fp8e4b15 scale (a product, a quotient),
        computed on fp32 values and rounded back."""
        vals = [self.cast(a, tl.float32) for a in args]
        return self.cast(fn(*vals), tl.float8e4b15)

    def bitcast(self, input: tl.tensor, dst_ty) -> tl.tensor:
        input = self.to_tensor(input)
        src_ty = input.type
        dst = dst_ty.scalar if isinstance(dst_ty, tl.block_type) else dst_ty
        dst_ty = src_ty.with_element_ty(dst) if src_ty.is_block() else dst
        if src_ty == dst_ty:
            return input
        src = src_ty.scalar
        if src.is_ptr() or dst.is_ptr():
            return self.cast(input, dst_ty)
        if src.primitive_bitwidth != dst.primitive_bitwidth:
            raise ValueError(f"Cannot bitcast data-type of size {src.primitive_bitwidth} to "
                             f"data-type of size {dst.primitive_bitwidth}")
        if src.to_ir() == dst.to_ir():
            return self._retag(input, dst_ty)
        return self._emit("tt.bitcast", [input], dst_ty)

    # ----------------------------------------------------------------------------------------
    # creation and shapes
    # ----------------------------------------------------------------------------------------

    def program_id(self, axis) -> tl.tensor:
        if axis not in (0, 1, 2):
            raise ValueError(f"program_id axis must be 0, 1, or 2 but got {axis}")
        return self._emit("tt.get_program_id", [], tl.int32, {"axis": _i32_attr(axis)})

    def num_programs(self, axis) -> tl.tensor:
        if axis not in (0, 1, 2):
            raise ValueError(f"num_programs axis must be 0, 1, or 2 but got {axis}")
        return self._emit("tt.get_num_programs", [], tl.int32, {"axis": _i32_attr(axis)})

    def arange(self, start, end) -> tl.tensor:
        if isinstance(start, bool) or isinstance(end, bool) or \
                not isinstance(start, int) or not isinstance(end, int):
            raise ValueError("arange's arguments must be of type tl.constexpr")
        if start >> 31 or end >> 31 or start < 0:
            raise ValueError("arange must fit in int32")
        if end <= start:
            raise ValueError("arange's end argument must be greater than the start argument")
        n = end - start
        if n & (n - 1) != 0:
            raise ValueError(f"arange's range must be a power of 2, got {n}")
        ty = tl.block_type(tl.int32, [n])
        return self._emit("tt.make_range", [], ty, {"start": _i32_attr(start),
                                                     "end": _i32_attr(end)})

    def splat(self, value: tl.tensor, shape) -> tl.tensor:
        if value.type.is_block():
            raise ValueError("Cannot splat a block tensor")
        if len(shape) == 0:
            return value
        return self._emit("tt.splat", [value], tl.block_type(value.dtype, shape))

    def full(self, shape, value, dtype) -> tl.tensor:
        if isinstance(value, tl.tensor):
            if value.numel.value != 1:
                raise ValueError("full() only accepts a size-1 tensor as its value")
            v = self.cast(self.unsplat(value) if value.type.is_block() else value, dtype)
            return self.splat(v, shape) if shape else v
        if not shape:
            return self.scalar_constant(value, dtype)
        return self.block_constant(value, tl.block_type(dtype, shape))

    def unsplat(self, x: tl.tensor) -> tl.tensor:
        """A one-element block -> scalar (a reduce over one element: no combine runs)."""
        if not x.type.is_block():
            return x
        if x.numel.value != 1:
            raise ValueError(f"cannot unsplat a tensor of shape {list(x.type.shape)}")
        if len(x.type.shape) != 1:
            x = self.reshape(x, [1], False)
        return self.reduce([x], 0, lambda lhs, rhs: [lhs[0]], False)[0]

    def reshape(self, input: tl.tensor, dst_shape, can_reorder: bool) -> tl.tensor:
        dst_shape = [int(s) for s in dst_shape]
        if not input.type.is_block():
            if all(s == 1 for s in dst_shape):
                return self.splat(input, dst_shape)
            raise ValueError("reshape() cannot change total number of elements in tensor")
        numel = 1
        for s in dst_shape:
            numel *= s
        if input.type.numel != numel:
            raise ValueError(f"reshape() cannot change total number of elements in tensor "
                             f"({list(input.type.shape)} -> {dst_shape})")
        if not dst_shape:
            return self.unsplat(input)
        ret_ty = tl.block_type(input.type.scalar, dst_shape)
        if list(input.type.shape) == dst_shape:
            return input
        attrs = {"allow_reorder": _core.unit_attr()} if can_reorder else {}
        return self._emit("tt.reshape", [input], ret_ty, attrs)

    def expand_dims(self, input: tl.tensor, axis: int) -> tl.tensor:
        if not input.type.is_block():
            return self.splat(input, [1])
        shape = list(input.type.shape)
        shape.insert(axis, 1)
        return self._emit("tt.expand_dims", [input], tl.block_type(input.type.scalar, shape),
                          {"axis": _i32_attr(axis)})

    def permute(self, input: tl.tensor, dims) -> tl.tensor:
        dims = [int(d) for d in dims]
        shape = list(input.type.shape) if input.type.is_block() else []
        if len(shape) != len(dims):
            raise ValueError(f"permute dims must have the same length as input shape "
                             f"({shape} vs {dims})")
        if sorted(dims) != list(range(len(dims))):
            raise ValueError(f"permute dims must be a permutation of 0, 1, ..., n-1, but were "
                             f"{dims}")
        if dims == sorted(dims):
            return input
        ret_ty = tl.block_type(input.type.scalar, [shape[d] for d in dims])
        return self._emit("tt.trans", [input], ret_ty,
                          {"order": _core.i32_array_attr(dims)})

    def cat(self, lhs: tl.tensor, rhs: tl.tensor) -> tl.tensor:
        if not lhs.type.is_block() or not rhs.type.is_block():
            raise ValueError("cat needs block tensors")
        if lhs.type.scalar != rhs.type.scalar:
            raise TypeError(f"cat: element types differ ({lhs.dtype} vs {rhs.dtype})")
        ls, rs = list(lhs.type.shape), list(rhs.type.shape)
        if len(ls) != len(rs) or ls[1:] != rs[1:]:
            raise ValueError(f"cat: shapes {ls} and {rs} differ beyond dimension 0")
        ret_ty = tl.block_type(lhs.type.scalar, [ls[0] + rs[0]] + ls[1:])
        return self._emit("tt.cat", [lhs, rhs], ret_ty)

    def join(self, a: tl.tensor, b: tl.tensor) -> tl.tensor:
        a, b = self.broadcast_impl_value(a, b)
        if a.type.scalar != b.type.scalar:
            raise TypeError(f"join: element types differ ({a.dtype} vs {b.dtype})")
        was_scalar = not a.type.is_block()
        if was_scalar:
            a, b = self.expand_dims(a, 0), self.expand_dims(b, 0)
        shape = list(a.type.shape) + [2]
        ret = self._emit("tt.join", [a, b], tl.block_type(a.type.scalar, shape))
        if was_scalar:
            ret = self.reshape(ret, [2], False)
        return ret

    def split(self, a: tl.tensor):
        shape = list(a.type.shape) if a.type.is_block() else []
        if not shape or shape[-1] != 2:
            raise ValueError(f"split() requires a tensor with a last dimension of size 2, got "
                             f"shape {shape}")
        ret_ty = tl.block_type(a.type.scalar, shape[:-1])
        op = self._op("tt.split", [a], [ret_ty.to_ir(), ret_ty.to_ir()])
        return tl.tensor(op.result(0), ret_ty), tl.tensor(op.result(1), ret_ty)

    def flip(self, x: tl.tensor, dim: int) -> tl.tensor:
        """Reverse `x` along `dim` exactly (no arithmetic, so inf/NaN and ints are safe): view
        the dimension as log2(n) axes of size 2 and swap the halves of each one."""
        shape = list(x.type.shape)
        n = shape[dim]
        if n == 1:
            return x
        k = int(math.log2(n))
        y = self.reshape(x, shape[:dim] + [2] * k + shape[dim + 1:], False)
        rank = len(y.type.shape)
        for j in range(k):
            axis = dim + j
            perm = [i for i in range(rank) if i != axis] + [axis]
            inv = [perm.index(i) for i in range(rank)]
            lo, hi = self.split(self.permute(y, perm))
            y = self.permute(self.join(hi, lo), inv)
        return self.reshape(y, shape, False)

    def histogram(self, x: tl.tensor, num_bins: int, mask: Optional[tl.tensor]) -> tl.tensor:
        if len(x.shape) != 1:
            raise ValueError("histogram only supports 1D input")
        if not x.dtype.is_int():
            raise ValueError("histogram only supports integer input")
        operands = [x]
        if mask is not None:
            x, mask = self.broadcast_impl_value(x, self.cast(mask, tl.int1))
            operands = [x, mask]
        return self._emit("tt.histogram", operands, tl.block_type(tl.int32, [num_bins]))

    def gather(self, src: tl.tensor, index: tl.tensor, axis: int) -> tl.tensor:
        rank = len(src.shape)
        if len(index.shape) != rank:
            raise ValueError("gather: source and index tensors must have the same rank")
        axis = tl._wrap_axis(axis, rank)
        if not index.dtype.is_int():
            raise ValueError("gather: the index must be an integer tensor")
        for d in range(rank):
            if d != axis and index.type.shape[d] != src.type.shape[d]:
                raise ValueError(f"gather: index dimension {d} must match the source's")
        return self._emit("tt.gather", [src, index],
                          tl.block_type(src.type.scalar, index.type.shape),
                          {"axis": _i32_attr(axis)})

    # ----------------------------------------------------------------------------------------
    # memory
    # ----------------------------------------------------------------------------------------

    @staticmethod
    def _modifier(table, value, what):
        value = value or ""
        if value not in table:
            raise ValueError(f"{what} {value} not supported")
        return table[value]

    def _as_bool_pointer(self, ptr: tl.tensor) -> tl.tensor:
        """Bool memory is one byte per element: access it through an i8 pointer."""
        elt = ptr.type.scalar
        p8 = tl.pointer_type(tl.int8, elt.address_space, elt.const)
        return self.bitcast(ptr, p8)

    def load(self, ptr, mask, other, boundary_check, padding_option, cache_modifier,
             eviction_policy, is_volatile) -> tl.tensor:
        if _is_block_ptr(ptr):
            return self._load_block_pointer(ptr, mask, other, boundary_check, padding_option,
                                            cache_modifier, eviction_policy, is_volatile)
        if not ptr.type.scalar.is_ptr():
            raise ValueError(f"Unsupported ptr type {ptr.type!r} in `tl.load`")
        if mask is None and other is not None:
            raise ValueError("`other` cannot be provided without `mask`")
        if padding_option or boundary_check:
            raise ValueError("`padding_option` or `boundary_check` argument is not supported "
                             "for loading a tensor of pointers or loading a scalar. Because the "
                             "compiler does not know the boundary; please use block pointers "
                             "(defined by `make_block_ptr`) instead")
        if not ptr.type.is_block():
            if mask is not None and mask.type.is_block():
                raise ValueError("Mask argument cannot be block type if pointer argument is "
                                 "not a block")
            if other is not None and other.type.is_block():
                raise ValueError("Other argument cannot be block type if pointer argument is "
                                 "not a block")
        # Stock Triton's tt.load takes only an i1 mask (its verifier rejects others), as store
        # does; a cast here would run an int or float mask as `!= 0` where Triton refuses it.
        if mask is not None and not mask.type.scalar.is_bool():
            raise ValueError("Mask must have boolean scalar type")
        if ptr.type.is_block():
            if mask is not None:
                ptr, mask = self.broadcast_impl_value(ptr, mask)
            if other is not None:
                ptr, other = self.broadcast_impl_value(ptr, other)
                if mask is not None:
                    ptr, mask = self.broadcast_impl_value(ptr, mask)
        elt = ptr.type.scalar.element_ty
        is_bool = elt == tl.int1
        if is_bool:
            elt = tl.int8
            ptr = self._as_bool_pointer(ptr)
        if other is not None:
            other = self.cast(other, elt)
        dst_ty = ptr.type.with_element_ty(elt) if ptr.type.is_block() else elt
        attrs = {}
        cache = self._modifier(_LOAD_CACHE, cache_modifier, "Cache modifier")
        evict = self._modifier(_EVICT, eviction_policy, "Eviction policy")
        # Defaults are left out so the TTIR reads like stock Triton's.
        if cache != 1:
            attrs["cache"] = _i32_attr(cache)
        if evict != 1:
            attrs["evict"] = _i32_attr(evict)
        if is_volatile:
            attrs["isVolatile"] = _core.bool_attr(True)
        operands = [ptr] + ([mask] if mask is not None else []) + \
            ([other] if other is not None else [])
        ret = self._emit("tt.load", operands, dst_ty, attrs)
        if is_bool:
            ret = self.cast(ret, tl.int1)
        return ret

    def store(self, ptr, val, mask, boundary_check, cache_modifier, eviction_policy):
        if _is_block_ptr(ptr):
            return self._store_block_pointer(ptr, val, mask, boundary_check, cache_modifier,
                                             eviction_policy)
        if not ptr.type.scalar.is_ptr():
            raise ValueError(f"Unsupported ptr type {ptr.type!r} in `tl.store`")
        if boundary_check:
            raise ValueError("`boundary_check` argument is not supported for storing a tensor of"
                             " pointers or storing a scalar. Because the compiler does not know "
                             "the boundary; please use block pointers (defined by "
                             "`make_block_ptr`) instead")
        if ptr.type.scalar.is_const():
            raise ValueError("Cannot store to a constant pointer")
        if not ptr.type.is_block():
            if val.type.is_block():
                raise ValueError("Value argument cannot be block type if pointer argument is "
                                 "not a block")
            if mask is not None and mask.type.is_block():
                raise ValueError("Mask argument cannot be block type if pointer argument is "
                                 "not a block")
        if ptr.type.is_block():
            shape = ptr.type.shape
            val = self.broadcast_impl_shape(val, shape)
            if mask is not None:
                mask = self.broadcast_impl_shape(mask, shape)
        elt = ptr.type.scalar.element_ty
        if elt == tl.int1:
            elt = tl.int8
            ptr = self._as_bool_pointer(ptr)
        val = self.cast(val, elt)
        if mask is not None and not mask.type.scalar.is_bool():
            raise ValueError("Mask must have boolean scalar type")
        attrs = {}
        cache = self._modifier(_STORE_CACHE, cache_modifier, "Cache modifier")
        evict = self._modifier(_EVICT, eviction_policy, "Eviction policy")
        if cache != 1:
            attrs["cache"] = _i32_attr(cache)
        if evict != 1:
            attrs["evict"] = _i32_attr(evict)
        operands = [ptr, val] + ([mask] if mask is not None else [])
        self._op("tt.store", operands, [], attrs)
        return None

    # ----------------------------------------------------------------------------------------
    # block pointers (tl.make_block_ptr / tl.advance) and tensor descriptors
    # ----------------------------------------------------------------------------------------

    def _index_value(self, v, what: str, i64: bool) -> tl.tensor:
        """One shape/stride/offset entry as an IR scalar: i64 for block-pointer shapes and
        strides and descriptor strides, i32 for offsets and descriptor shapes (Triton's rule:
        a 64-bit value where 32 bits are expected is an error, not a silent truncation)."""
        v = tl._unwrap_if_constexpr(v)
        if isinstance(v, bool) or v is None:
            raise TypeError(f"{what} must hold integers, got {v!r}")
        if isinstance(v, numbers.Integral):
            v = int(v)
            if not i64 and not -2**31 <= v < 2**31:
                raise ValueError(f"{what}: {v} does not fit in 32 bits; block pointers and tensor"
                                 " descriptors only support 32 bit offsets and descriptor shapes "
                                 "(use regular pointer indexing for 64 bit support)")
            return self.scalar_constant(v, tl.int64 if i64 else tl.int32)
        if not isinstance(v, tl.tensor):
            raise TypeError(f"{what} must hold integers or integer scalars, got {v!r}")
        if v.type.is_block():
            if v.numel.value != 1:
                raise ValueError(f"{what} must hold scalars, got a block of shape "
                                 f"{list(v.type.shape)}")
            v = self.unsplat(v)
        if not v.dtype.is_int() or v.dtype.is_bool():
            raise TypeError(f"{what} must hold integer scalars, got {v.dtype}")
        if i64:
            return self.cast(v, tl.int64) if v.dtype.int_bitwidth < 64 else \
                self._retag(v, tl.int64)
        if v.dtype.int_bitwidth == 64:
            raise ValueError(f"{what}: a 64-bit value where 32 bits are expected; block pointers"
                             " and tensor descriptors only support 32 bit offsets and descriptor "
                             "shapes: add a `.to(tl.int32)`")
        if v.dtype.int_bitwidth < 32:
            return self.cast(v, tl.int32 if v.dtype.is_int_signed() else tl.uint32)
        return v

    @staticmethod
    def _static_ints(values, what: str) -> List[int]:
        out = []
        for v in values:
            v = tl._unwrap_if_constexpr(v)
            if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                raise TypeError(f"{what} must be a list of constexpr ints, got {v!r}")
            out.append(int(v))
        return out

    def make_block_ptr(self, base, shape, strides, offsets, block_shape, order) -> tl.tensor:
        if not base.type.is_ptr() or _is_block_ptr(base):
            raise ValueError("Expected `base` to be a pointer type (but not a block pointer type "
                             f"or others), got {base.type}")
        block_shape = self._static_ints(block_shape, "block_shape")
        order = self._static_ints(order, "order")
        rank = len(block_shape)
        if not (len(shape) == len(strides) == len(offsets) == rank == len(order)):
            raise ValueError("Expected shape/strides/offsets/block_shape/order to have the same "
                             f"length, got {len(shape)}, {len(strides)}, {len(offsets)}, "
                             f"{rank} and {len(order)}")
        if rank == 0:
            raise ValueError("a block pointer needs at least one dimension")
        if sorted(order) != list(range(rank)):
            raise ValueError(f"Expected a permutation of (0, 1, ..., {rank - 1}) in order, got "
                             f"{order}")
        elt = base.type.element_ty
        if elt == tl.int1:
            # bool memory is one byte per element: the block pointer moves int8
            elt = tl.int8
            base = self._as_bool_pointer(base)
        block = tl.block_type(elt, block_shape)
        shape_t = [self._index_value(v, f"shape[{i}]", True) for i, v in enumerate(shape)]
        strides_t = [self._index_value(v, f"strides[{i}]", True) for i, v in enumerate(strides)]
        offs_t = [self._index_value(v, f"offsets[{i}]", False) for i, v in enumerate(offsets)]
        ty = tl.pointer_type(block, base.type.address_space, base.type.is_const())
        return self.block_pointer(base, shape_t, strides_t, offs_t, order, ty)

    def block_pointer(self, base, shape, strides, offsets, order, ty) -> tl.tensor:
        """Emit tt.make_tensor_ptr for checked operands (shape/strides i64, offsets i32). The
        result remembers its operands (`bp_parts`), so the frontend can carry a block pointer
        through branches, loops and calls as those values and rebuild it where it arrives."""
        bp = self._emit("tt.make_tensor_ptr", [base] + list(shape) + list(strides) +
                        list(offsets), ty, {"order": _core.i32_array_attr(list(order))})
        bp.bp_parts = BlockPointerParts(base, list(shape), list(strides), list(offsets),
                                        tuple(order))
        return bp

    def advance(self, base, offsets) -> tl.tensor:
        if not _is_block_ptr(base):
            raise ValueError(f"tl.advance expects a block pointer (made by tl.make_block_ptr), "
                             f"got {base.type}")
        rank = len(base.type.element_ty.shape)
        if len(offsets) != rank:
            raise ValueError(f"tl.advance: expected {rank} offsets (one per dimension of the "
                             f"block pointer), got {len(offsets)}")
        deltas = [self._index_value(v, f"offsets[{i}]", False) for i, v in enumerate(offsets)]
        ret = self._emit("tt.advance", [base] + deltas, base.type)
        parts = getattr(base, "bp_parts", None)
        if parts is not None:
            # the advanced pointer's own operands (dead unless the frontend carries it)
            offs = [self.add(o, self.cast(d, o.dtype), False)
                    for o, d in zip(parts.offsets, deltas)]
            ret.bp_parts = parts._replace(offsets=offs)
        return ret

    @staticmethod
    def _boundary_check(boundary_check, rank: int) -> List[int]:
        bc = tl._unwrap_if_constexpr(boundary_check)
        if bc is None:
            return []
        if isinstance(bc, (tl.tuple, tuple, list)):
            bc = [tl._unwrap_if_constexpr(d) for d in bc]
        else:
            bc = [bc]
        out = []
        for d in bc:
            if isinstance(d, bool) or not isinstance(d, numbers.Integral):
                raise TypeError(f"`boundary_check` must hold constexpr ints, got {d!r}")
            if not 0 <= d < rank:
                raise ValueError(f"`boundary_check` argument must be 0 <= dim < {rank} (the "
                                 f"block pointer's rank), got {d}")
            out.append(int(d))
        return sorted(set(out))

    @staticmethod
    def _padding(padding_option, elt, what: str) -> Optional[int]:
        if padding_option in ("", None):
            return None
        if padding_option not in ("zero", "nan"):
            raise ValueError(f"Padding option {padding_option!r} not supported; use 'zero' or "
                             "'nan'")
        if padding_option == "nan" and not elt.is_floating():
            raise ValueError(f"Padding option `nan` is not supported for integer {what}")
        return 1 if padding_option == "zero" else 2

    def _load_block_pointer(self, ptr, mask, other, boundary_check, padding_option,
                            cache_modifier, eviction_policy, is_volatile) -> tl.tensor:
        if mask is not None or other is not None:
            raise ValueError("`mask` and `other` arguments cannot be specified for loading block "
                             "pointers (use `boundary_check` and `padding_option`)")
        block = ptr.type.element_ty
        attrs = self._access_attrs(_LOAD_CACHE, cache_modifier, eviction_policy)
        if is_volatile:
            attrs["isVolatile"] = _core.bool_attr(True)
        bc = self._boundary_check(boundary_check, len(block.shape))
        if bc:
            attrs["boundaryCheck"] = _core.i32_array_attr(bc)
        pad = self._padding(padding_option, block.element_ty, "block pointers")
        if pad is not None:
            attrs["padding"] = _i32_attr(pad)
        return self._emit("tt.load", [ptr], block, attrs)

    def _store_block_pointer(self, ptr, val, mask, boundary_check, cache_modifier,
                             eviction_policy):
        if mask is not None:
            raise ValueError("`mask` argument cannot be specified for storing block pointers "
                             "(use `boundary_check`)")
        block = ptr.type.element_ty
        if ptr.type.is_const():
            raise ValueError("Cannot store to a constant pointer")
        val = self._as_block(val, block, "block pointer")
        attrs = self._access_attrs(_STORE_CACHE, cache_modifier, eviction_policy)
        bc = self._boundary_check(boundary_check, len(block.shape))
        if bc:
            attrs["boundaryCheck"] = _core.i32_array_attr(bc)
        self._op("tt.store", [ptr, val], [], attrs)
        return None

    def _access_attrs(self, cache_table, cache_modifier, eviction_policy):
        attrs = {}
        cache = self._modifier(cache_table, cache_modifier, "Cache modifier")
        evict = self._modifier(_EVICT, eviction_policy, "Eviction policy")
        if cache != 1:
            attrs["cache"] = _i32_attr(cache)
        if evict != 1:
            attrs["evict"] = _i32_attr(evict)
        return attrs

    def _as_block(self, val, block: tl.block_type, what: str) -> tl.tensor:
        """`val` broadcast to `block`'s shape (it must already have it, or broadcast to it) and
        cast to its element type."""
        val = self.to_tensor(val)
        shape = list(block.shape)
        if val.type.is_block() and list(val.type.shape) != shape:
            src = list(val.type.shape)
            ok = len(src) <= len(shape) and all(
                a == b or a == 1 for a, b in zip(src[::-1], shape[::-1]))
            if not ok:
                raise ValueError(f"Block shape ({shape}) and value shape ({src}) mismatch: the "
                                 f"value stored through a {what} must have the block's shape")
            val = self.broadcast_impl_shape(self._left_pad(val, len(shape)), shape)
        elif not val.type.is_block():
            val = self.splat(val, shape)
        return self.cast(val, block.element_ty)

    def make_tensor_descriptor(self, base, shape, strides, block_shape, padding_option):
        ndim = len(shape)
        if not 1 <= ndim <= 5:
            raise ValueError(f"Expected 1 <= ndim <= 5 but got {ndim} dimensions")
        if len(strides) != ndim:
            raise ValueError(f"Expected {ndim} strides but got {len(strides)}")
        if len(block_shape) != ndim:
            raise ValueError(f"Expected block_shape to have {ndim} dimensions but got "
                             f"{len(block_shape)}")
        if not base.type.is_ptr() or _is_block_ptr(base) or base.type.is_block():
            raise ValueError(f"Expected `base` to be a pointer (a scalar pointer argument), got "
                             f"{base.type}")
        elt = base.type.element_ty
        if elt.is_bool():
            raise ValueError("tensor descriptors do not support bool (int1) elements; view the "
                             "data as int8")
        block_shape = self._static_ints(block_shape, "block_shape")
        block = tl.block_type(elt, block_shape)  # power-of-2 dimensions, numel <= 2^20
        elem_size = elt.primitive_bitwidth // 8
        if block_shape[-1] * elem_size < 16:
            raise ValueError("Descriptor block shape must have at least 16 bytes in the last "
                             f"dimension, but got {block_shape[-1]} * {elem_size} = "
                             f"{block_shape[-1] * elem_size} bytes")
        last = tl._unwrap_if_constexpr(strides[-1])
        if isinstance(last, tl.tensor):
            raise ValueError("Tensor descriptor last dim must be 1 but got a runtime value; the "
                             "last stride must be the constant 1 (contiguous rows)")
        if last != 1:
            raise ValueError(f"Tensor descriptor last dim must be 1 but got {last}")
        pad = self._padding(padding_option or "zero", elt, "blocks")
        shape_t = [self._index_value(v, f"shape[{i}]", False) for i, v in enumerate(shape)]
        strides_t = [self._index_value(v, f"strides[{i}]", True)
                     for i, v in enumerate(strides[:-1])]
        return self.tensor_descriptor(base, shape_t, strides_t,
                                      tl.tensor_descriptor_type(block, "nan" if pad == 2
                                                                else "zero"))

    def tensor_descriptor(self, base, shape, leading_strides, ty) -> tl.tensor_descriptor:
        """Emit tt.make_tensor_descriptor for checked operands: `shape` int32 scalars,
        `leading_strides` the int64 strides of every dimension but the last (which is 1)."""
        one = self.scalar_constant(1, tl.int64)
        strides = list(leading_strides) + [one]
        pad = 2 if ty.padding == "nan" else 1
        op = self._op("tt.make_tensor_descriptor", [base] + list(shape) + strides, [ty.to_ir()],
                      {"padding": _i32_attr(pad)})
        return tl.tensor_descriptor(op.result(0), ty, base, shape, strides)

    @staticmethod
    def _check_descriptor(desc, what):
        if not isinstance(desc, tl.tensor_descriptor_base):
            raise TypeError(f"{what} expects a tensor descriptor (tl.make_tensor_descriptor or a "
                            f"host TensorDescriptor argument), got {desc!r}")

    def _descriptor_offsets(self, desc, offsets) -> List[tl.tensor]:
        offsets = tl._unwrap_if_constexpr(offsets)
        if isinstance(offsets, (tl.tuple, tuple, list)):
            offsets = list(offsets)
        else:
            offsets = [offsets]
        ndim = len(desc.block_shape)
        if len(offsets) != ndim:
            raise ValueError(f"expected {ndim} offsets, but got {len(offsets)}")
        return [self._index_value(v, f"offsets[{i}]", False) for i, v in enumerate(offsets)]

    def descriptor_load(self, desc, offsets) -> tl.tensor:
        self._check_descriptor(desc, "descriptor load")
        offs = self._descriptor_offsets(desc, offsets)
        return self._emit("tt.descriptor_load", [desc.handle] + offs, desc.block_type)

    @staticmethod
    def _check_writable(desc, what):
        base = getattr(desc, "base", None)
        if base is not None and base.type.is_const():
            raise ValueError(f"Cannot {what} through a descriptor of a constant pointer")

    def descriptor_store(self, desc, value, offsets):
        self._check_descriptor(desc, "descriptor store")
        self._check_writable(desc, "store")
        offs = self._descriptor_offsets(desc, offsets)
        value = self._as_block(value, desc.block_type, "tensor descriptor")
        self._op("tt.descriptor_store", [desc.handle, value] + offs, [])
        return None

    # Descriptor atomics, gather and scatter have no TTIR op of their own here: they are
    # pointer tiles with a bounds mask (TMA semantics: out-of-bounds lanes are skipped / read
    # the padding), which both executors and the Tile conversion already handle.

    def _descriptor_lanes(self, desc, index_per_dim, shape):
        """(pointer tile, in-bounds mask) for lanes whose coordinate along dimension d is
        `index_per_dim[d]` (int64 tensors broadcastable to `shape`)."""
        if not isinstance(desc, tl.tensor_descriptor):
            raise TypeError("this descriptor access needs the descriptor's shape and strides")
        offs, mask = None, None
        for d, idx in enumerate(index_per_dim):
            idx = self.broadcast_impl_shape(idx, shape) if idx.type.is_block() else \
                self.splat(idx, shape)
            term = self.mul(idx, desc.strides[d], False)
            offs = term if offs is None else self.add(offs, term, False)
            lo = self.compare("ge", idx, 0)
            hi = self.compare("lt", idx, self.cast(desc.shape[d], tl.int64))
            inb = self.and_(lo, hi)
            mask = inb if mask is None else self.and_(mask, inb)
        ptr = self.add(self.splat(desc.base, shape), offs, False)
        return ptr, mask

    def _block_indices(self, offsets, shape):
        """Per-dimension int64 coordinates offset_d + arange(block_d), shaped for broadcast."""
        rank = len(shape)
        out = []
        for d, (o, n) in enumerate(zip(offsets, shape)):
            r = self.cast(self.arange(0, n), tl.int64)
            for _ in range(d):
                r = self.expand_dims(r, 0)
            for k in range(d + 1, rank):
                r = self.expand_dims(r, k)
            out.append(self.add(r, self.cast(o, tl.int64), False))
        return out

    def descriptor_atomic(self, op, desc, value, offsets):
        self._check_descriptor(desc, f"descriptor atomic_{op}")
        self._check_writable(desc, f"atomic_{op}")
        offs = self._descriptor_offsets(desc, offsets)
        shape = list(desc.block_shape)
        value = self._as_block(value, desc.block_type, "tensor descriptor")
        ptr, mask = self._descriptor_lanes(desc, self._block_indices(offs, shape), shape)
        self.atomic_rmw(op, ptr, value, mask, "relaxed", "gpu")
        return None

    def _gather_operands(self, desc, x_offsets, y_offset, what):
        self._check_descriptor(desc, f"descriptor {what}")
        if len(desc.block_shape) != 2 or desc.block_shape[0] != 1:
            raise ValueError(f"descriptor {what} needs a 2-D descriptor whose block has one row "
                             f"(block_shape [1, N]), got block_shape {desc.block_shape}")
        x = self.to_tensor(x_offsets)
        if not x.type.is_block() or len(x.type.shape) != 1 or not x.dtype.is_int():
            raise ValueError(f"descriptor {what}: x_offsets must be a 1-D integer tensor, got "
                             f"{x.type}")
        y = self._index_value(y_offset, "y_offset", False)
        n = desc.block_shape[1]
        m = x.type.shape[0]
        shape = [m, n]
        rows = self.cast(self.expand_dims(x, 1), tl.int64)
        cols = self.add(self.expand_dims(self.cast(self.arange(0, n), tl.int64), 0),
                        self.cast(y, tl.int64), False)
        ptr, mask = self._descriptor_lanes(desc, [rows, cols], shape)
        return ptr, mask, tl.block_type(desc.dtype, shape)

    def descriptor_gather(self, desc, x_offsets, y_offset) -> tl.tensor:
        ptr, mask, block = self._gather_operands(desc, x_offsets, y_offset, "gather")
        pad = float("nan") if desc.padding == "nan" else 0
        other = self.full(list(block.shape), pad, block.element_ty)
        return self.load(ptr, mask, other, (), "", "", "", False)

    def descriptor_scatter(self, desc, value, x_offsets, y_offset):
        self._check_writable(desc, "scatter")
        ptr, mask, block = self._gather_operands(desc, x_offsets, y_offset, "scatter")
        value = self._as_block(value, block, "tensor descriptor scatter")
        self.store(ptr, value, mask, (), "", "")
        return None

    def _sem_scope(self, sem, scope):
        sem = sem or "acq_rel"
        scope = scope or "gpu"
        if sem not in _SEM:
            raise ValueError(f"Memory semantic {sem} not supported")
        if scope not in _SCOPE:
            raise ValueError(f"Memory scope {scope} not supported")
        return {"sem": _i32_attr(_SEM[sem]), "scope": _i32_attr(_SCOPE[scope])}

    def _atomic_operands(self, ptr, val, mask, op):
        if not ptr.type.scalar.is_ptr():
            raise ValueError(f"Pointer argument of atomic_{op} is {ptr.type!r}")
        if ptr.type.scalar.is_const():
            raise ValueError("Cannot store to a constant pointer")
        elt = ptr.type.scalar.element_ty
        if elt in (tl.float16, tl.bfloat16) and op not in ("add", "xchg"):
            raise ValueError(f"atomic_{op} does not support {elt}")
        # as Triton: nothing narrower than 16 bits (fp8 included), nor 16-bit integers
        if elt in (tl.int16, tl.uint16) or elt.primitive_bitwidth < 16:
            raise ValueError(f"atomic_{op} does not support {elt}")
        if ptr.type.is_block():
            shape = ptr.type.shape
            val = self.broadcast_impl_shape(val, shape)
            if mask is not None:
                mask = self.broadcast_impl_shape(mask, shape)
        elif val.type.is_block():
            raise ValueError("Value argument cannot be block type if pointer argument is not a "
                             "block")
        val = self.cast(val, elt)
        if mask is None:
            mask = self._constant_like(1, tl.int1, ptr)
        elif mask.dtype != tl.int1:
            mask = self.cast(mask, tl.int1)
        return ptr, val, mask

    def _rmw(self, kind, ptr, val, mask, attrs, ret_ty):
        a = dict(attrs)
        a["atomic_rmw_op"] = _i32_attr(_RMW[kind])
        return self._emit("tt.atomic_rmw", [ptr, val, mask], ret_ty, a)

    def atomic_rmw(self, op, ptr, val, mask, sem, scope) -> tl.tensor:
        ptr, val, mask = self._atomic_operands(ptr, val, mask, op)
        attrs = self._sem_scope(sem, scope)
        t = val.type.scalar
        if op == "add":
            return self._rmw("fadd" if t.is_floating() else "add", ptr, val, mask, attrs,
                             val.type)
        if op == "xchg":
            return self._rmw("xchg", ptr, val, mask, attrs, val.type)
        if op in ("and", "or", "xor"):
            if not t.is_int():
                raise ValueError(f"atomic_{op} does not support {t}")
            return self._rmw(op, ptr, val, mask, attrs, val.type)
        if op in ("max", "min"):
            if t.is_int():
                kind = op if t.is_int_signed() else "u" + op
                return self._rmw(kind, ptr, val, mask, attrs, val.type)
            if t not in (tl.float32, tl.float64):
                raise TypeError(f"atomic_{op} not supported for dtype {t}")
            # Floats through integer atomics: for values with the sign bit clear the signed-int
            # order of the bits is the float order; with the sign bit set (-0.0 included) the
            # unsigned order of the bits is the reverse of the float order.
            i_t = tl.int32 if t == tl.float32 else tl.int64
            u_t = tl.uint32 if t == tl.float32 else tl.uint64
            i_val, u_val = self.bitcast(val, i_t), self.bitcast(val, u_t)
            i_ptr = self.bitcast(ptr, tl.pointer_type(i_t, 1))
            u_ptr = self.bitcast(ptr, tl.pointer_type(u_t, 1))
            zero = self._constant_like(0, i_t, i_val)
            pos = self.compare("ge", i_val, zero)
            neg = self.compare("lt", i_val, zero)
            pos_kind, neg_kind = ("max", "umin") if op == "max" else ("min", "umax")
            pos_ret = self._rmw(pos_kind, i_ptr, i_val, self.and_(mask, pos), attrs, i_val.type)
            neg_ret = self._rmw(neg_kind, u_ptr, u_val, self.and_(mask, neg), attrs, u_val.type)
            ret = self.where(pos, pos_ret, self.bitcast(neg_ret, i_t))
            return self.bitcast(ret, t)
        raise ValueError(f"unknown atomic op {op}")

    def atomic_cas(self, ptr, cmp, val, sem, scope) -> tl.tensor:
        if not ptr.type.scalar.is_ptr():
            raise ValueError(f"Pointer argument of atomic_cas is {ptr.type!r}")
        if ptr.type.scalar.is_const():
            raise ValueError("Cannot store to a constant pointer")
        elt = ptr.type.scalar.element_ty
        if elt.primitive_bitwidth not in (16, 32, 64):
            raise ValueError("atomic_cas only supports elements with width {16, 32, 64}")
        if ptr.type.is_block():
            cmp = self.broadcast_impl_shape(cmp, ptr.type.shape)
            val = self.broadcast_impl_shape(val, ptr.type.shape)
        cmp, val = self.cast(cmp, elt), self.cast(val, elt)
        return self._emit("tt.atomic_cas", [ptr, cmp, val], val.type, self._sem_scope(sem, scope))

    # ----------------------------------------------------------------------------------------
    # dot
    # ----------------------------------------------------------------------------------------

    def dot(self, lhs, rhs, acc, input_precision, max_num_imprecise_acc, out_dtype):
        if not lhs.type.is_block() or not rhs.type.is_block():
            raise ValueError("dot operands must be blocks")
        lr, rr = len(lhs.shape), len(rhs.shape)
        if lr != rr or lr < 2:
            raise ValueError(f"Both inputs must be either 2D or 3D; (lhs: {list(lhs.type.shape)}"
                             f" vs rhs: {list(rhs.type.shape)})")
        if lr > 3:
            # rank > 3: fold the batch dimensions, multiply, unfold
            batch = list(lhs.type.shape[:-2])
            b = 1
            for s in batch:
                b *= s
            l3 = self.reshape(lhs, [b] + list(lhs.type.shape[-2:]), False)
            r3 = self.reshape(rhs, [b] + list(rhs.type.shape[-2:]), False)
            a3 = None if acc is None else self.reshape(acc, [b] + list(acc.type.shape[-2:]),
                                                       False)
            out = self.dot(l3, r3, a3, input_precision, max_num_imprecise_acc, out_dtype)
            return self.reshape(out, batch + list(out.type.shape[-2:]), False)
        if lhs.dtype.is_fp8e4b15() or rhs.dtype.is_fp8e4b15():
            # fp8e4b15 values are exact in fp16 (as Triton's NVIDIA backend upcasts them)
            if not (lhs.dtype.is_fp8() and rhs.dtype.is_fp8()):
                raise ValueError(f"Both operands must be fp8 here. Got {lhs.dtype} and "
                                 f"{rhs.dtype}")
            if max_num_imprecise_acc is not None and max_num_imprecise_acc > lhs.shape[-1]:
                raise ValueError(f"max_num_imprecise_acc ({max_num_imprecise_acc}) must be <= K "
                                 f"({lhs.shape[-1]})")
            return self.dot(self.cast(lhs, tl.float16), self.cast(rhs, tl.float16), acc,
                            input_precision, None, out_dtype)
        a, b = lhs.dtype, rhs.dtype
        if not (a.is_fp8() and b.is_fp8()):
            ok = (tl.int8, tl.uint8, tl.float16, tl.bfloat16, tl.float32, tl.float64)
            if a not in ok:
                raise ValueError(f"Unsupported lhs dtype {a}")
            if b not in ok:
                raise ValueError(f"Unsupported rhs dtype {b}")
            if a != b:
                raise ValueError(f"Both operands must be same dtype. Got {a} and {b}")
        ls, rs = list(lhs.type.shape), list(rhs.type.shape)
        if ls[-1] != rs[-2]:
            raise ValueError(f"First input shape ({ls}) and second input shape {rs} are not "
                             f"compatible for matmul (second index of first shape ({ls[-1]}) "
                             f"must be equal to first index of second shape ({rs[-2]})")
        if lr == 3 and ls[0] != rs[0]:
            raise ValueError(f"batch dimensions differ: {ls[0]} and {rs[0]}")
        # NVIDIA's minimum MMA shape, as stock Triton enforces it.
        min_k = 32 if a.primitive_bitwidth == 8 else 16
        if ls[-1] < min_k:
            raise ValueError(f"Input shapes should have M >= 1, N >= 1 and K >= {min_k}")
        if a.is_int():
            if a != tl.int8:
                raise ValueError("only int8 supported!")
            ret_sca = tl.int32
        elif out_dtype.is_bf16():
            raise ValueError("out_dtype=bfloat16 is unsupported. Please use "
                             "out_dtype=float32/float16 and cast with `.to(tl.bfloat16)`")
        elif a.is_fp32() or a.is_bf16():
            ret_sca = tl.float32
        elif a.is_fp64():
            ret_sca = tl.float64
        else:
            ret_sca = out_dtype
        if input_precision is None:
            input_precision = getattr(self.options, "default_dot_input_precision", "tf32")
        input_precision = str(input_precision).lower()
        allowed = getattr(self.options, "allowed_dot_input_precisions", tuple(_DOT_PRECISION))
        if input_precision not in _DOT_PRECISION or input_precision not in allowed:
            raise ValueError(f"input_precision must be one of {list(allowed)}. Got "
                             f"{input_precision}")
        if a.is_fp64():
            input_precision = "ieee"
        ret_shape = ([ls[0]] if lr == 3 else []) + [ls[-2], rs[-1]]
        ret_ty = tl.block_type(ret_sca, ret_shape)
        if acc is None:
            acc = self.block_constant(0, ret_ty)
        else:
            if list(acc.type.shape) != ret_shape:
                raise ValueError(f"acc shape {list(acc.type.shape)} does not match the dot "
                                 f"result shape {ret_shape}")
            if acc.dtype != ret_sca:
                raise ValueError(f"acc dtype {acc.dtype} does not match the dot result dtype "
                                 f"{ret_sca}")
        if max_num_imprecise_acc is None:
            # Stock Triton's default on Hopper (its NVIDIA options' max_num_imprecise_acc_default,
            # 2^30 on sm_90): an fp8 dot accumulates in the MMA's own accumulator, without
            # promotion. The Tile path passes it on as mmaf's fast_acc (which only Hopper's fp8
            # MMA reads); the CPU executors accumulate in full f32 whatever it says.
            max_num_imprecise_acc = 2 ** 30 if a.is_fp8() and b.is_fp8() else 0
        elif a.is_fp8() and max_num_imprecise_acc > ls[-1]:
            raise ValueError(f"max_num_imprecise_acc ({max_num_imprecise_acc}) must be <= K "
                             f"({ls[-1]})")
        return self._emit("tt.dot", [lhs, rhs, acc], ret_ty, {
            "inputPrecision": _i32_attr(_DOT_PRECISION[input_precision]),
            "maxNumImpreciseAcc": _i32_attr(max_num_imprecise_acc)})

    # ----------------------------------------------------------------------------------------
    # reductions and scans
    # ----------------------------------------------------------------------------------------

    Combine = Callable[[List[tl.tensor], List[tl.tensor]], List[tl.tensor]]

    def jit_combine(self, fn) -> "Semantic.Combine":
        """A user @jit combine function as a region body builder (a tt.call, inlined later)."""
        if self.ctx is None or not self.ctx.is_jit_function(fn):
            raise TypeError(f"combine_fn must be a @triton.jit function, got {fn!r}")

        def combine(lhs, rhs):
            res = self.ctx.call_jit(fn, list(lhs) + list(rhs))
            if isinstance(res, tl.tuple):
                res = list(res.values)
            elif isinstance(res, tl.tensor):
                res = [res]
            elif res is None:
                raise TypeError(f"combine_fn {fn.__name__} returned nothing")
            return [self.to_tensor(r) for r in res]

        return combine

    def _build_combine(self, op, elem_types, combine):
        n = len(elem_types)
        irs = [t.to_ir() for t in elem_types]
        blk = op.region(0).add_block(irs + irs)
        ip = self.builder.save_ip()
        self.builder.set_insertion_point_to_end(blk)
        try:
            args = [tl.tensor(blk.arg(i), elem_types[i % n]) for i in range(2 * n)]
            res = combine(args[:n], args[n:])
            if len(res) != n:
                raise TypeError(f"the combine function returned {len(res)} values, expected {n}")
            for i, (r, t) in enumerate(zip(res, elem_types)):
                if r.type != t:
                    raise TypeError(f"the combine function's result {i} has type {r.type}, "
                                    f"expected {t}")
            ret_name = "tt.reduce.return" if op.name == "tt.reduce" else "tt.scan.return"
            self._op(ret_name, res, [])
        finally:
            self.builder.restore_ip(ip)

    def map_elementwise(self, inputs: List[tl.tensor], fn, pack: int) -> List[tl.tensor]:
        """tl.map_elementwise: the @jit function `fn` applied to scalars, `pack` consecutive
        elements of every (broadcast) input at a time (fn takes pack arguments per input, in
        input order, and returns pack values per result). Its body may branch on the values:
        it is a region the executors run per element."""
        if self.ctx is None or not self.ctx.is_jit_function(fn):
            raise TypeError(f"map_elementwise needs a @triton.jit function, got {fn!r}")
        if pack < 1:
            raise ValueError(f"pack must be at least 1, got {pack}")
        inputs = [self.to_tensor(x) for x in inputs]
        base = next((t for t in inputs if t.type.is_block()), None)
        if base is None:
            raise ValueError("map_elementwise needs at least one tensor argument")
        for t in inputs:
            base, _ = self.broadcast_impl_value(base, t)
        inputs = [self.broadcast_impl_value(t, base)[0] for t in inputs]
        shape = list(base.type.shape)
        if base.type.numel % pack:
            raise ValueError(f"pack={pack} does not divide the {base.type.numel} elements")
        arg_types = [t.type.scalar for t in inputs for _ in range(pack)]

        def call(blk):
            args = [tl.tensor(blk.arg(i), arg_types[i]) for i in range(len(arg_types))]
            res = self.ctx.call_jit(fn, args)
            res = list(res.values) if isinstance(res, tl.tuple) else [res]
            if any(r is None for r in res):
                raise TypeError(f"map_elementwise: {fn.__name__} returned nothing")
            return [self.to_tensor(r) for r in res]

        # the result types are what fn returns: probe it in a throwaway function first
        probe = self.builder.create("tt.func", [], [], {
            "sym_name": _core.str_attr("__map_probe"),
            "function_type": _core.type_attr(_core.func_type([], [])),
            "sym_visibility": _core.str_attr("private"),
        }, 1)
        ip = self.builder.save_ip()
        self.ctx.probing += 1
        try:
            blk = probe.region(0).add_block([t.to_ir() for t in arg_types])
            self.builder.set_insertion_point_to_end(blk)
            res_types = [r.type for r in call(blk)]
        finally:
            self.ctx.probing -= 1
            self.builder.restore_ip(ip)
            probe.erase()
        if len(res_types) % pack:
            raise TypeError(f"map_elementwise: {fn.__name__} returned {len(res_types)} values, "
                            f"not a multiple of pack={pack}")
        outs = [res_types[j] for j in range(0, len(res_types), pack)]
        for j, t in enumerate(res_types):
            if t != outs[j // pack] or t.is_block():
                raise TypeError(f"map_elementwise: {fn.__name__} must return scalars, the "
                                f"{pack} of each result of one type; got {t}")
        rtys = [tl.block_type(t, shape) for t in outs]
        op = self._op("tt.map_elementwise", inputs, [t.to_ir() for t in rtys],
                      {"pack": _i32_attr(pack)}, 1)
        blk = op.region(0).add_block([t.to_ir() for t in arg_types])
        ip = self.builder.save_ip()
        self.builder.set_insertion_point_to_end(blk)
        try:
            self._op("tt.map_elementwise.return", call(blk), [])
        finally:
            self.builder.restore_ip(ip)
        return [tl.tensor(op.result(j), rtys[j]) for j in range(len(rtys))]

    def reduce(self, inputs: List[tl.tensor], axis, combine, keep_dims: bool):
        orig_rank = len(inputs[0].shape)
        if orig_rank == 0:
            raise ValueError("cannot reduce a scalar")
        if axis is None:
            inputs = [self.reshape(t, [t.numel.value], True) for t in inputs]
            axis = 0
        shape = list(inputs[0].type.shape)
        axis = tl._wrap_axis(axis, len(shape))
        for t in inputs:
            if list(t.type.shape) != shape:
                raise ValueError("all reduction inputs must have the same shape")
        ret_shape = [s for i, s in enumerate(shape) if i != axis]
        elems = [t.type.scalar for t in inputs]
        rtys = [tl.block_type(e, ret_shape) if ret_shape else e for e in elems]
        op = self._op("tt.reduce", inputs, [t.to_ir() for t in rtys], {"axis": _i32_attr(axis)},
                      1)
        self._build_combine(op, elems, combine)
        res = [tl.tensor(op.result(i), rtys[i]) for i in range(len(inputs))]
        if keep_dims:
            if orig_rank != len(shape):  # axis=None: all dims kept as size 1
                res = [self._expand_to_rank(r, orig_rank) for r in res]
            else:
                res = [self.expand_dims(r, axis) for r in res]
        return res

    def _expand_to_rank(self, x, rank):
        while len(x.shape) < rank:
            x = self.expand_dims(x, 0)
        return x

    def scan(self, inputs: List[tl.tensor], axis, combine, reverse: bool):
        shape = list(inputs[0].type.shape) if inputs[0].type.is_block() else []
        if not shape:
            raise ValueError("cannot scan a scalar")
        if axis is None:
            raise ValueError("associative_scan needs an axis")
        axis = tl._wrap_axis(axis, len(shape))
        for t in inputs:
            if list(t.type.shape) != shape:
                raise ValueError("all scan inputs must have the same shape")
        elems = [t.type.scalar for t in inputs]
        op = self._op("tt.scan", inputs, [t.type.to_ir() for t in inputs],
                      {"axis": _i32_attr(axis), "reverse": _core.bool_attr(reverse)}, 1)
        self._build_combine(op, elems, combine)
        return [tl.tensor(op.result(i), inputs[i].type) for i in range(len(inputs))]

    @staticmethod
    def pick_sum_dtype(in_dtype, dtype):
        if dtype is not None:
            return dtype
        # integers narrower than 32 bits accumulate in 32 bits of the same signedness (bool
        # counts as signed: a sum of booleans is an int32 count)
        if in_dtype.is_bool() or (in_dtype.is_int_signed() and in_dtype.int_bitwidth < 32):
            return tl.int32
        if in_dtype.is_int_unsigned() and in_dtype.int_bitwidth < 32:
            return tl.uint32
        return None

    def sum(self, x, axis, keep_dims, dtype):
        out = self.pick_sum_dtype(x.dtype, dtype)
        if out is not None:
            x = self.cast(x, out)
        return self.reduce([x], axis, lambda a, b: [self.add(a[0], b[0], False)], keep_dims)[0]

    def minmax_reduce(self, kind, x, axis, return_indices, tie_break_left, keep_dims):
        x = self.promote_bf16_to_fp32(x)
        if return_indices:
            return self._reduce_with_indices(kind, x, axis, tie_break_left, keep_dims)
        if x.dtype.primitive_bitwidth < 32:
            x = self.cast(x, tl.float32 if x.dtype.is_floating() else tl.int32)
        fn = self.maximum if kind == "max" else self.minimum
        return self.reduce([x], axis, lambda a, b: [fn(a[0], b[0], tl.PropagateNan.NONE)],
                           keep_dims)[0]

    def _reduce_with_indices(self, kind, x, axis, tie_break_left, keep_dims):
        orig_rank = len(x.shape)
        if axis is None:
            x = self.reshape(x, [x.numel.value], False)
            axis = 0
        shape = list(x.type.shape)
        axis = tl._wrap_axis(axis, len(shape))
        idx = self.arange(0, shape[axis])
        if len(shape) > 1:
            for d in range(len(shape)):
                if d != axis:
                    idx = self.expand_dims(idx, d)
            idx = self.broadcast_impl_shape(idx, shape)

        def combine(a, b):
            v1, i1 = a
            v2, i2 = b
            better = self.compare("gt" if kind == "max" else "lt", v1, v2)
            if tie_break_left:
                tie = self.and_(self.compare("eq", v1, v2), self.compare("lt", i1, i2))
                better = self.or_(better, tie)
            return [self.where(better, v1, v2), self.where(better, i1, i2)]

        vals, idxs = self.reduce([x, idx], axis, combine, False)
        if keep_dims:
            if orig_rank != len(shape):
                vals, idxs = (self._expand_to_rank(vals, orig_rank),
                              self._expand_to_rank(idxs, orig_rank))
            else:
                vals, idxs = self.expand_dims(vals, axis), self.expand_dims(idxs, axis)
        return vals, idxs

    def bitwise_reduce(self, kind, x, axis, keep_dims):
        if not x.dtype.is_int():
            name = "xor_sum" if kind == "xor" else "reduce_or"
            raise ValueError(f"{name} only supported for integers")
        fn = self.xor_ if kind == "xor" else self.or_
        return self.reduce([x], axis, lambda a, b: [fn(a[0], b[0])], keep_dims)[0]

    def cumulative(self, kind, x, axis, reverse, dtype):
        x = self.promote_bf16_to_fp32(x)
        if kind == "sum":
            out = self.pick_sum_dtype(x.dtype, dtype)
            if out is not None:
                x = self.cast(x, out)

            def combine(a, b):
                return [self.add(a[0], b[0], False)]
        else:
            def combine(a, b):
                return [self.mul(a[0], b[0], False)]
        return self.scan([x], axis, combine, reverse)[0]

    # ----------------------------------------------------------------------------------------
    # hints and debugging
    # ----------------------------------------------------------------------------------------

    def hint(self, x, attr_name: str, values: List[int]) -> tl.tensor:
        if not isinstance(x, tl.tensor):
            raise TypeError(f"{attr_name} hints need a tensor, got {x!r}")
        if max(1, len(x.shape)) != len(values):
            raise ValueError(f"Shape of input to the hint does not match the length of values "
                             f"({len(x.shape)} vs {len(values)})")
        owner = x.handle.owner
        if owner is not None:
            if all(v == values[0] for v in values):
                attr = _core.dense_attr(values[0],
                                        _core.tensor_type([len(values)], _core.int_type(32)))
            else:
                attr = _core.i32_array_attr(values)
            owner.set_attr(attr_name, attr)
        return x

    def assume(self, cond):
        cond = tl._unwrap_if_constexpr(cond)
        if not isinstance(cond, tl.tensor):
            return None
        if cond.type.is_block():
            return None  # a hint only: block conditions are dropped
        self._op("llvm.intr.assume", [self.cast(cond, tl.int1)], [])
        return None

    def debug_barrier(self):
        self._op("gpu.barrier", [], [])
        return None

    def device_print(self, prefix: str, args: List[tl.tensor], hex: bool):
        # Triton's normalization, so a line reads as on the GPU: a prefix before values ends
        # in ": ", and a non-empty one starts with " " (after the program and index).
        if not prefix.endswith(" ") and args:
            prefix += " "
        if not prefix.endswith(": ") and args:
            prefix = prefix[:-1] + ": "
        if len(prefix) > 2 and not prefix.startswith(" "):
            prefix = " " + prefix
        signed = [1 if a.dtype.is_int_signed() else 0 for a in args]
        self._op("tt.print", args, [], {"prefix": _core.str_attr(prefix),
                                        "hex": _core.bool_attr(hex),
                                        "isSigned": _core.i32_array_attr(signed)})
        return None

    def device_assert(self, cond, msg: str, mask):
        if not getattr(self.options, "debug", False):
            return None
        cond = self.to_tensor(cond)
        if cond.dtype != tl.int1:
            cond = self.cast(cond, tl.int1)
        if mask is not None:
            cond = self.or_(cond, self.not_(self.cast(mask, tl.int1)))
        self._op("tt.assert", [cond], [], {"message": _core.str_attr(msg)})
        return None

    # ----------------------------------------------------------------------------------------
    # sort
    # ----------------------------------------------------------------------------------------

    # ----------------------------------------------------------------------------------------
    # dot_scaled: microscaled (MX) operands, decomposed the way Triton's NVIDIA backend does for
    # GPUs without native scaled MMA: each operand is upcast to bf16 (fp16 when either format
    # is fp16), multiplied by its e8m0 block scales (one per 32 elements of K; 0xFF is NaN),
    # and the product is an ordinary tl.dot accumulating in fp32. Both CPU paths and the
    # conversion see only ordinary ops.

    _MX_FORMATS = ("e2m1", "e4m3", "e5m2", "bf16", "fp16")

    def _mx_upcast(self, x: tl.tensor, fmt: str, comp, k_axis: int, k_pack: bool) -> tl.tensor:
        """x (uint8 bytes for the fp8/fp4 formats, bf16/fp16 values otherwise) as `comp`
        values; e2m1 holds two values a byte along `k_axis` (low nibble first) or, without
        k_pack, along the other axis."""
        if fmt in ("bf16", "fp16"):
            want = tl.bfloat16 if fmt == "bf16" else tl.float16
            if x.dtype != want:
                raise ValueError(f"dot_scaled: a {fmt} operand must hold {want}, not {x.dtype}")
            return self.cast(x, comp)
        if x.dtype.primitive_bitwidth != 8 or not (x.dtype.is_int() or x.dtype.is_fp8()):
            raise ValueError(f"dot_scaled: a {fmt} operand must hold bytes (uint8), "
                             f"not {x.dtype}")
        if fmt in ("e4m3", "e5m2"):
            f8 = tl.float8e4nv if fmt == "e4m3" else tl.float8e5
            return self.cast(self.bitcast(x, f8) if x.dtype != f8 else x, comp)
        # e2m1: sign, 2 exponent bits (bias 1), 1 mantissa bit; every value is exact in fp32
        u = self.bitcast(x, tl.uint8) if x.dtype != tl.uint8 else x
        u = self.cast(u, tl.int32)

        def nibble(v):
            e = self.and_(self.shr(v, 1), 3)
            m = self.cast(self.and_(v, 1), tl.float32)
            half_m = self.mul(m, 0.5)
            scale = self.where(self.compare("eq", e, 1), 1.0,
                               self.where(self.compare("eq", e, 2), 2.0, 4.0))
            mag = self.where(self.compare("eq", e, 0), half_m,
                             self.mul(self.add(half_m, 1.0, True), scale))
            neg = self.compare("ne", self.and_(v, 8), 0)
            return self.cast(self.where(neg, self.minus(mag), mag), comp)

        lo = nibble(self.and_(u, 15))
        hi = nibble(self.and_(self.shr(u, 4), 15))
        pair = self.join(lo, hi)  # [..., 2]: low nibble first
        shape = list(x.type.shape)
        axis = k_axis if k_pack else 1 - k_axis
        rank = len(shape)
        perm = list(range(axis + 1)) + [rank] + list(range(axis + 1, rank))
        pair = self.permute(pair, perm)
        shape[axis] *= 2
        return self.reshape(pair, shape, False)

    def _mx_scale(self, v: tl.tensor, scale: tl.tensor, comp, k_axis: int) -> tl.tensor:
        """v * 2**(scale - 127), the e8m0 scale of each 32 values along K (scale is [rows of
        v, K / 32] for either operand); scale 0xFF makes NaN."""
        shape = list(v.type.shape)
        k = shape[k_axis]
        other = shape[1 - k_axis]
        sshape = list(scale.type.shape)
        if sshape != [other, k // 32] or k % 32:
            raise ValueError(f"dot_scaled: a scale must be [{other}, {k // 32}] for an operand "
                             f"of shape {shape} (one per 32 elements of K); got {sshape}")
        if scale.dtype != tl.uint8:
            if scale.dtype.primitive_bitwidth != 8 or not scale.dtype.is_int():
                raise ValueError(f"dot_scaled: scales are uint8 (e8m0), not {scale.dtype}")
            scale = self.bitcast(scale, tl.uint8)
        # the e8m0 byte as an fp32 exponent (byte 0 gives 0.0, as Triton's upcast does)
        f = self.bitcast(self.shl(self.cast(scale, tl.uint32), 23), tl.float32)
        f = self.cast(f, comp)
        nan = self.compare("eq", scale, 255)
        f = self.reshape(self.broadcast_impl_shape(self.expand_dims(f, 2), [other, k // 32, 32]),
                         [other, k], False)
        nan = self.reshape(
            self.broadcast_impl_shape(self.expand_dims(nan, 2), [other, k // 32, 32]),
            [other, k], False)
        if k_axis == 0:  # rhs: [K, N] against a [N, K] scale
            f = self.permute(f, [1, 0])
            nan = self.permute(nan, [1, 0])
        prod = self.mul(v, f)
        return self.where(nan, self._constant_like(float("nan"), comp, prod), prod)

    def dot_scaled(self, lhs, lhs_scale, lhs_format, rhs, rhs_scale, rhs_format, acc,
                   fast_math, lhs_k_pack, rhs_k_pack, out_dtype) -> tl.tensor:
        for fmt in (lhs_format, rhs_format):
            if fmt not in self._MX_FORMATS:
                raise ValueError(f"dot_scaled: format {fmt!r} is not one of "
                                 f"{', '.join(self._MX_FORMATS)}")
        if not lhs.type.is_block() or not rhs.type.is_block():
            raise ValueError("dot_scaled operands must be blocks")
        if len(lhs.shape) != 2 or len(rhs.shape) != 2:
            raise ValueError("dot_scaled: only 2-D operands are supported by triton_tile; "
                             f"got {list(lhs.type.shape)} and {list(rhs.type.shape)}")
        for fmt, pack in ((lhs_format, lhs_k_pack), (rhs_format, rhs_k_pack)):
            if not pack and fmt != "e2m1":
                raise ValueError("only mxfp4 inputs can be packed along a dimension different "
                                 "than K")
        if out_dtype != tl.float32:
            raise ValueError(f"dot_scaled: out_dtype must be float32, not {out_dtype}")
        comp = tl.float16 if "fp16" in (lhs_format, rhs_format) else tl.bfloat16
        a = self._mx_upcast(lhs, lhs_format, comp, 1, lhs_k_pack)
        b = self._mx_upcast(rhs, rhs_format, comp, 0, rhs_k_pack)
        if a.type.shape[1] != b.type.shape[0]:
            raise ValueError(f"Reduction dimension should pack the same number of elements; "
                             f"(lhs: {list(lhs.type.shape)} vs rhs: {list(rhs.type.shape)})")
        if lhs_scale is not None:
            a = self._mx_scale(a, lhs_scale, comp, 1)
        if rhs_scale is not None:
            b = self._mx_scale(b, rhs_scale, comp, 0)
        return self.dot(a, b, acc, "ieee", None, tl.float32)

    def topk(self, x: tl.tensor, k: int) -> tl.tensor:
        """The k largest values of the last dimension, largest first (torch.topk's values):
        sort descending, then keep the first k. The slice is taken without arithmetic (the
        dimension viewed as m axes of size 2 before the k kept ones, each split and its first
        half kept), so the dtype and every bit of the values are kept."""
        shape = list(x.type.shape)
        n = shape[-1]
        if k <= 0 or k & (k - 1) or k > n:
            raise ValueError(f"topk: k must be a power of two no larger than the sorted "
                             f"dimension ({n}), got {k}")
        y = self.sort(x, True)
        if k == n:
            return y
        pre = shape[:-1]
        p = len(pre)
        m = int(math.log2(n // k))
        y = self.reshape(y, pre + [2] * m + [k], False)
        for _ in range(m):
            rank = len(y.type.shape)
            perm = [i for i in range(rank) if i != p] + [p]
            # moving axis p last keeps the others in order, so the first half is in place
            y, _ = self.split(self.permute(y, perm))
        return y

    def sort(self, x: tl.tensor, descending: bool) -> tl.tensor:
        """Bitonic sort of the last dimension. The dimension (n = 2**k) is viewed as k axes of
        size 2 (axis P+k-1-b holds index bit b); each compare-exchange splits one such axis,
        swaps where the pair is out of order for its block's direction, and joins it back."""
        shape = list(x.type.shape)
        n = shape[-1]
        if n == 1:
            return x
        k = int(math.log2(n))
        pre = shape[:-1]
        p = len(pre)
        y = self.reshape(x, pre + [2] * k, False)
        rank = p + k
        for s in range(1, k + 1):
            for j in range(s - 1, -1, -1):
                a = p + k - 1 - j
                perm = [i for i in range(rank) if i != a] + [a]
                inv = [perm.index(i) for i in range(rank)]
                lo, hi = self.split(self.permute(y, perm))
                swap = self.compare("gt", lo, hi)
                flip = descending
                if s < k:
                    # blocks whose bit s is set run the other way
                    d = p + k - 1 - s
                    d = d if d < a else d - 1
                    dshape = [1] * (rank - 1)
                    dshape[d] = 2
                    bit = self.reshape(self.arange(0, 2), dshape, False)
                    dirmask = self.compare("eq", bit, 1)
                    if flip:
                        dirmask = self.not_(dirmask)
                    swap = self.xor_(swap, dirmask)
                elif flip:
                    swap = self.not_(swap)
                new_lo = self.where(swap, hi, lo)
                new_hi = self.where(swap, lo, hi)
                y = self.permute(self.join(new_lo, new_hi), inv)
        return self.reshape(y, shape, False)

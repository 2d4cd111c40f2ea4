"""Binary and unary operators: values, Triton's promotion table, C integer semantics.

The result dtype of every operator is checked at compile time with
``tl.static_assert(z.dtype == EXPECTED)``, EXPECTED coming from tt_utils.promote (Triton's
rules: language/semantic.py upstream); the values against float64 / exact-integer numpy
references.
"""

import warnings

import numpy as np
import pytest
from tt_utils import (
    assert_close,
    assert_equal,
    c_div,
    c_mod,
    cdiv,
    is_float,
    is_int,
    is_signed,
    np_dtype,
    numpy_random,
    param_dtypes,
    poisoned,
    promote,
    promote_with_scalar,
    tl_dtype,
    to_f64,
)

import triton_tile as triton
import triton_tile.language as tl

BLOCK = 128
N = 300  # three programs, the last one partly masked

ARITH_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint32", "uint64",
                "float16", "bfloat16", "float32", "float64"]

_RTOL = {"float16": 1e-3, "bfloat16": 1e-2, "float32": 1e-6, "float64": 1e-12}


def _rtol(dtype):
    return _RTOL.get(dtype, 0.0)


def _grid(n=N):
    return (cdiv(n, BLOCK),)


def _inputs(dx, dy, rng, n=N, div=False):
    """x, y of the two dtypes. Integers use their full range when both sides are integers
    (to exercise wrap-around), small values when mixed with floats (so int->fp16 stays
    finite). For division the divisor is small so quotients are not all 0."""
    both_int = is_int(dx) and is_int(dy)

    def gen(d, small):
        if is_int(d) and small:
            return numpy_random(n, d, rng, low=-100 if is_signed(d) else 1, high=100)
        return numpy_random(n, d, rng)

    x = gen(dx, not both_int)
    y = gen(dy, not both_int or div)
    if div and is_signed(dx):
        # INT_MIN / -1 is undefined behaviour (and traps on x86).
        x[x == np.iinfo(x.dtype).min] += 1
    return x, y


def _ref(x, y, op, expected):
    """Reference for `x op y` once both sides are converted to the `expected` dtype."""
    e = np_dtype(expected)
    xc = np.asarray(x).astype(e)
    yc = np.asarray(y).astype(e)
    if is_float(expected):
        xf, yf = to_f64(xc), to_f64(yc)
        r = {"+": lambda: xf + yf, "-": lambda: xf - yf, "*": lambda: xf * yf,
             "/": lambda: xf / yf, "%": lambda: np.fmod(xf, yf)}[op]()
        return r.astype(e)
    with np.errstate(over="ignore"):
        return {"+": lambda: xc + yc, "-": lambda: xc - yc, "*": lambda: xc * yc,
                "//": lambda: c_div(xc, yc), "%": lambda: c_mod(xc, yc)}[op]()


def _check(out, ref, dtype, what):
    if is_float(dtype):
        assert_close(out, ref, rtol=_rtol(dtype), atol=0.0, err_msg=what)
    else:
        assert_equal(out, ref, err_msg=what)


# ---------------------------------------------------------------------------------------------
# + - *


@triton.jit
def _arith_kernel(X, Y, Z_ADD, Z_SUB, Z_MUL, n, MODE: tl.constexpr, C: tl.constexpr,
                  EXPECTED: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    if MODE == "tensor":
        y = tl.load(Y + offs, mask=mask)
        z_add = x + y
        z_sub = x - y
        z_mul = x * y
    elif MODE == "bcast":
        y = tl.load(Y)
        z_add = x + y
        z_sub = x - y
        z_mul = x * y
    elif MODE == "const_rhs":
        z_add = x + C
        z_sub = x - C
        z_mul = x * C
    else:
        z_add = C + x
        z_sub = C - x
        z_mul = C * x
    tl.static_assert(z_add.dtype == EXPECTED, "unexpected result dtype for +")
    tl.static_assert(z_sub.dtype == EXPECTED, "unexpected result dtype for -")
    tl.static_assert(z_mul.dtype == EXPECTED, "unexpected result dtype for *")
    tl.store(Z_ADD + offs, z_add, mask=mask)
    tl.store(Z_SUB + offs, z_sub, mask=mask)
    tl.store(Z_MUL + offs, z_mul, mask=mask)


def _run_arith(x, y, mode, c, expected):
    outs = [poisoned(N, expected) for _ in range(3)]
    _arith_kernel[_grid()](x, y, *outs, N, MODE=mode, C=c, EXPECTED=tl_dtype(expected),
                           BLOCK=BLOCK)
    return outs


@pytest.mark.parametrize(
    "dx, dy", param_dtypes(*[(a, b) for a in ARITH_DTYPES for b in ARITH_DTYPES]))
def test_arith_tensor_tensor(dx, dy, rng):
    x, y = _inputs(dx, dy, rng)
    expected = promote(dx, dy)
    outs = _run_arith(x, y, "tensor", 0, expected)
    for op, out in zip("+-*", outs):
        _check(out, _ref(x, y, op, expected), expected, f"{dx} {op} {dy}")


BCAST_PAIRS = [("int8", "int8"), ("int8", "uint8"), ("uint8", "int32"), ("int32", "int64"),
               ("uint32", "int64"), ("int16", "float16"), ("float16", "float32"),
               ("bfloat16", "bfloat16"), ("bfloat16", "int32"), ("float32", "float64"),
               ("int64", "float32"), ("uint64", "int8")]


@pytest.mark.parametrize("dx, dy", param_dtypes(*BCAST_PAIRS))
def test_arith_tensor_scalar_tensor(dx, dy, rng):
    """y is a 0-d tensor loaded from memory: it takes part in promotion like a block."""
    x, y = _inputs(dx, dy, rng)
    y = y[:1].copy()
    expected = promote(dx, dy)
    outs = _run_arith(x, y, "bcast", 0, expected)
    for op, out in zip("+-*", outs):
        _check(out, _ref(x, y[0], op, expected), expected, f"{dx} {op} {dy}[0]")


CONST_CASES = [("int8", -3, "const_rhs"), ("int8", 5, "const_lhs"), ("uint8", 3, "const_rhs"),
               ("uint8", 200, "const_lhs"), ("int16", 2.5, "const_rhs"),
               ("int32", -7, "const_rhs"), ("uint32", 7, "const_lhs"),
               ("int64", 2**40 + 3, "const_rhs"), ("uint64", 3, "const_rhs"),
               ("float16", 0.3, "const_rhs"), ("float16", 3, "const_lhs"),
               ("bfloat16", 0.3, "const_rhs"), ("float32", 0.3, "const_lhs"),
               ("float64", 0.3, "const_rhs")]


@pytest.mark.parametrize("dx, c, mode", param_dtypes(*CONST_CASES))
def test_arith_python_scalar(dx, c, mode, rng):
    """A Python/constexpr scalar of the same or a lower kind does not change the dtype."""
    x = numpy_random(N, dx, rng) if not (is_int(dx) and isinstance(c, float)) else \
        numpy_random(N, dx, rng, low=-100, high=100)
    expected = promote_with_scalar(dx, c)
    outs = _run_arith(x, x, mode, c, expected)
    for op, out in zip("+-*", outs):
        cy = np.full(N, c)
        ref = _ref(x, cy, op, expected) if mode == "const_rhs" else _ref(cy, x, op, expected)
        _check(out, ref, expected, f"{dx} {op} {c!r} ({mode})")


# ---------------------------------------------------------------------------------------------
# /  %  //


@triton.jit
def _divmod_kernel(X, Y, Z_DIV, Z_MOD, Z_FLOORDIV, n, MODE: tl.constexpr, C: tl.constexpr,
                   INT_DIV: tl.constexpr, DIV_TY: tl.constexpr, MOD_TY: tl.constexpr,
                   BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    if MODE == "tensor":
        y = tl.load(Y + offs, mask=mask)
        z_div = x / y
        z_mod = x % y
        if INT_DIV:
            z_floordiv = x // y
            tl.static_assert(z_floordiv.dtype == MOD_TY, "unexpected result dtype for //")
            tl.store(Z_FLOORDIV + offs, z_floordiv, mask=mask)
    else:
        z_div = x / C
        z_mod = x % C
        if INT_DIV:
            z_floordiv = x // C
            tl.static_assert(z_floordiv.dtype == MOD_TY, "unexpected result dtype for //")
            tl.store(Z_FLOORDIV + offs, z_floordiv, mask=mask)
    tl.static_assert(z_div.dtype == DIV_TY, "unexpected result dtype for /")
    tl.static_assert(z_mod.dtype == MOD_TY, "unexpected result dtype for %")
    tl.store(Z_DIV + offs, z_div, mask=mask)
    tl.store(Z_MOD + offs, z_mod, mask=mask)


def _div_dtype(dx, dy):
    return "float32" if is_int(dx) and is_int(dy) else promote(dx, dy, div_or_mod=True)


_SIGNED_DIV = ["int8", "int32", "int64"]
_UNSIGNED_DIV = ["uint8", "uint32", "uint64"]
_FLOAT_DIV = ["float16", "bfloat16", "float32", "float64"]
DIV_PAIRS = ([(a, b) for a in _SIGNED_DIV for b in _SIGNED_DIV]
             + [(a, b) for a in _UNSIGNED_DIV for b in _UNSIGNED_DIV]
             + [(a, b) for a in _FLOAT_DIV for b in _FLOAT_DIV]
             + [("int8", "float16"), ("int32", "float32"), ("uint8", "bfloat16"),
                ("int64", "float64"), ("float16", "int32"), ("float32", "uint64"),
                ("int16", "int16"), ("uint16", "uint16")])


@pytest.mark.parametrize("dx, dy", param_dtypes(*DIV_PAIRS))
def test_div_mod_tensor_tensor(dx, dy, rng):
    """`/` is float (int/int -> fp32, fp16/bf16 -> fp32); `%` is fmod on floats and C's
    remainder on ints; `//` truncates toward zero on ints."""
    x, y = _inputs(dx, dy, rng, div=True)
    int_div = is_int(dx) and is_int(dy)
    div_ty, mod_ty = _div_dtype(dx, dy), promote(dx, dy, div_or_mod=True)
    z_div, z_mod = poisoned(N, div_ty), poisoned(N, mod_ty)
    z_fdiv = poisoned(N, mod_ty)
    _divmod_kernel[_grid()](x, y, z_div, z_mod, z_fdiv, N, MODE="tensor", C=0, INT_DIV=int_div,
                            DIV_TY=tl_dtype(div_ty), MOD_TY=tl_dtype(mod_ty), BLOCK=BLOCK)
    _check(z_div, _ref(x, y, "/", div_ty), div_ty, f"{dx} / {dy}")
    _check(z_mod, _ref(x, y, "%", mod_ty), mod_ty, f"{dx} % {dy}")
    if int_div:
        ref = _ref(x, y, "//", mod_ty)
        _check(z_fdiv, ref, mod_ty, f"{dx} // {dy}")
        if is_signed(dx):
            # The inputs must tell C truncation from Python's floor, or the test is moot.
            xc, yc = x.astype(mod_ty), y.astype(mod_ty)
            assert (ref != xc // yc).any()
            assert (_ref(x, y, "%", mod_ty) != xc % yc).any()


@triton.jit
def _div_by_zero_kernel(X, Y, Q, R, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    tl.store(Q + offs, x // y)
    tl.store(R + offs, x % y)


@pytest.mark.cpu_only("undefined in Triton: the GPU's own result is what the CPU paths copy")
@pytest.mark.parametrize("dtype", ["int32", "int64", "uint32", "uint8"])
def test_integer_division_by_zero_agrees_on_both_paths(dtype, path, rng):
    """A lane that divides by 0 gets all ones (-1, UINT_MAX) as its quotient and its dividend
    as its remainder on both paths, as NVIDIA's integer division gives; the Tile path gave the
    dividend and 0 (its divisor guard divided by 1). The other lanes divide as C does."""
    block = 64
    x = numpy_random(block, dtype, rng)
    y = numpy_random(block, dtype, rng)
    y[y == 0] = 3
    y[::3] = 0
    q, r = poisoned(block, dtype), poisoned(block, dtype)
    _div_by_zero_kernel[(1,)](x, y, q, r, BLOCK=block)
    zero = y == 0
    assert_equal(q[zero], np.full(zero.sum(), -1).astype(dtype))
    assert_equal(r[zero], x[zero])
    assert_equal(q[~zero], c_div(x[~zero], y[~zero]).astype(dtype))
    assert_equal(r[~zero], c_mod(x[~zero], y[~zero]).astype(dtype))


DIV_CONST_CASES = [("int8", -3), ("int32", 7), ("int32", -7), ("int64", -5), ("uint8", 3),
                   ("uint32", 10), ("float16", 0.3), ("bfloat16", 3), ("float32", -0.7),
                   ("float64", 0.3), ("int32", 2.5)]


@pytest.mark.parametrize("dx, c", param_dtypes(*DIV_CONST_CASES))
def test_div_mod_python_scalar(dx, c, rng):
    x = numpy_random(N, dx, rng)
    if is_signed(dx):
        x[x == np.iinfo(x.dtype).min] += 1
    int_div = is_int(dx) and isinstance(c, int)
    div_ty = "float32" if int_div else promote_with_scalar(dx, c, div_or_mod=True)
    mod_ty = promote_with_scalar(dx, c, div_or_mod=True)
    z_div, z_mod, z_fdiv = poisoned(N, div_ty), poisoned(N, mod_ty), poisoned(N, mod_ty)
    _divmod_kernel[_grid()](x, x, z_div, z_mod, z_fdiv, N, MODE="const", C=c, INT_DIV=int_div,
                            DIV_TY=tl_dtype(div_ty), MOD_TY=tl_dtype(mod_ty), BLOCK=BLOCK)
    cy = np.full(N, c)
    _check(z_div, _ref(x, cy, "/", div_ty), div_ty, f"{dx} / {c}")
    _check(z_mod, _ref(x, cy, "%", mod_ty), mod_ty, f"{dx} % {c}")
    if int_div:
        _check(z_fdiv, _ref(x, cy, "//", mod_ty), mod_ty, f"{dx} // {c}")


@triton.jit
def _one_op_kernel(X, Y, Z, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    if OP == "/":
        z = x / y
    elif OP == "//":
        z = x // y
    else:
        z = x % y
    tl.store(Z + offs, z)


@pytest.mark.parametrize("dx, dy", [("int8", "uint8"), ("uint32", "int32"), ("int64", "uint16")])
@pytest.mark.parametrize("op", ["/", "//", "%"])
def test_div_mod_mixed_signedness_is_an_error(dx, dy, op, rng):
    x = numpy_random(16, dx, rng)
    y = numpy_random(16, dy, rng)
    z = poisoned(16, "float64")
    with pytest.raises(triton.CompilationError, match="signedness"):
        _one_op_kernel[(1,)](x, y, z, OP=op, BLOCK=16)


# ---------------------------------------------------------------------------------------------
# comparisons


@triton.jit
def _compare_kernel(X, Y, Z, n, MODE: tl.constexpr, C: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    if MODE == "tensor":
        y = tl.load(Y + offs, mask=mask)
        r0 = x == y
        r1 = x != y
        r2 = x < y
        r3 = x <= y
        r4 = x > y
        r5 = x >= y
    else:
        r0 = x == C
        r1 = x != C
        r2 = x < C
        r3 = x <= C
        r4 = x > C
        r5 = x >= C
    tl.static_assert(r0.dtype == tl.int1, "comparisons give int1")
    tl.store(Z + 0 * n + offs, r0, mask=mask)
    tl.store(Z + 1 * n + offs, r1, mask=mask)
    tl.store(Z + 2 * n + offs, r2, mask=mask)
    tl.store(Z + 3 * n + offs, r3, mask=mask)
    tl.store(Z + 4 * n + offs, r4, mask=mask)
    tl.store(Z + 5 * n + offs, r5, mask=mask)


def _ref_compare(x, y, common):
    e = np_dtype(common)
    xc, yc = np.asarray(x).astype(e), np.asarray(y).astype(e)
    if is_float(common):
        xc, yc = to_f64(xc), to_f64(yc)
    return np.stack([xc == yc, xc != yc, xc < yc, xc <= yc, xc > yc, xc >= yc])


COMPARE_PAIRS = [("int8", "int8"), ("int32", "int32"), ("int64", "int64"), ("uint8", "uint8"),
                 ("uint32", "uint32"), ("uint64", "uint64"), ("float16", "float16"),
                 ("bfloat16", "bfloat16"), ("float32", "float32"), ("float64", "float64"),
                 ("int8", "uint8"), ("int32", "uint32"), ("int32", "float32"),
                 ("float16", "float32"), ("uint32", "int64")]


@pytest.mark.parametrize("dx, dy", param_dtypes(*COMPARE_PAIRS))
def test_compare(dx, dy, rng):
    x, y = _inputs(dx, dy, rng)
    # Plenty of equal pairs, and NaN / inf on either side for floats.
    y[::5] = np.asarray(x[::5]).astype(y.dtype)
    if is_float(dx):
        x[3::11] = np.asarray(np.nan).astype(x.dtype)
        x[7::13] = np.asarray(-np.inf).astype(x.dtype)
    if is_float(dy):
        y[4::11] = np.asarray(np.nan).astype(y.dtype)
        y[5::17] = np.asarray(np.inf).astype(y.dtype)
    if is_float(dx) and is_float(dy):
        x[6::19] = np.asarray(np.nan).astype(x.dtype)
        y[6::19] = np.asarray(np.nan).astype(y.dtype)
    z = poisoned((6, N), "bool")
    _compare_kernel[_grid()](x, y, z, N, MODE="tensor", C=0, BLOCK=BLOCK)
    assert_equal(z, _ref_compare(x, y, promote(dx, dy)), err_msg=f"{dx} vs {dy}")


@pytest.mark.parametrize("dx, c", [("int8", -3), ("uint8", 200), ("int32", 7), ("uint32", 5),
                                   ("int64", -(2**40)), ("float16", 0.3), ("float32", 0.3),
                                   ("float64", -0.3), ("int32", 0.5)])
def test_compare_python_scalar(dx, c, rng):
    x = numpy_random(N, dx, rng, -300, 300) if is_int(dx) else numpy_random(N, dx, rng)
    x[::7] = np.asarray(c).astype(x.dtype)
    z = poisoned((6, N), "bool")
    _compare_kernel[_grid()](x, x, z, N, MODE="const", C=c, BLOCK=BLOCK)
    assert_equal(z, _ref_compare(x, np.full(N, c), promote_with_scalar(dx, c)))


# Every arith.cmpf predicate (MLIR's numbering). The language writes six of them; the others
# (false, ord, uno, true and the unordered ones but une) reach the compiler from TTIR, so the
# kernel below is written with `==` and its TTIR gets the predicate under test.
CMPF_PREDICATES = {
    "false": lambda x, y, uno: np.zeros_like(uno), "oeq": lambda x, y, uno: x == y,
    "ogt": lambda x, y, uno: x > y, "oge": lambda x, y, uno: x >= y,
    "olt": lambda x, y, uno: x < y, "ole": lambda x, y, uno: x <= y,
    "one": lambda x, y, uno: (x != y) & ~uno, "ord": lambda x, y, uno: ~uno,
    "ueq": lambda x, y, uno: (x == y) | uno, "ugt": lambda x, y, uno: (x > y) | uno,
    "uge": lambda x, y, uno: (x >= y) | uno, "ult": lambda x, y, uno: (x < y) | uno,
    "ule": lambda x, y, uno: (x <= y) | uno, "une": lambda x, y, uno: x != y,
    "uno": lambda x, y, uno: uno, "true": lambda x, y, uno: np.ones_like(uno),
}


@triton.jit
def _cmpf_kernel(X, Y, Z, W, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    y = tl.load(Y + offs, mask=mask)
    tl.store(Z + offs, x == y, mask=mask)  # the tile compare the test swaps
    tl.store(W + pid, tl.load(X + pid) == tl.load(Y + pid))  # and the scalar one


@pytest.mark.cpu_only("the kernel is TTIR text run by the CPU executors")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("pred", list(CMPF_PREDICATES))
def test_cmpf_every_predicate(pred, dtype, path, rng, tmp_path):
    """Tiles and scalars, NaN and infinities on either side and on both, equal pairs and
    0 == -0; on the Tile path without a fallback (false/true are constants, ord/uno
    self-compares)."""
    n = 333
    x, y = numpy_random(n, dtype, rng), numpy_random(n, dtype, rng)
    y[::5] = x[::5]
    x[1::7], y[2::9] = np.nan, np.nan
    x[3::11], y[3::11] = np.nan, np.nan
    x[4::13], y[5::17], x[6::19], y[6::19] = np.inf, -np.inf, -np.inf, -np.inf
    x[8::23], y[8::23] = 0.0, -0.0
    grid = (cdiv(n, BLOCK),)
    z, w = poisoned(n, "bool"), poisoned(grid[0], "bool")
    ttir = _cmpf_kernel[grid](x, y, z, w, n, BLOCK=BLOCK).asm["ttir"]
    assert ttir.count("arith.cmpf oeq") == 2
    (tmp_path / "cmpf.ttir").write_text(ttir.replace("arith.cmpf oeq", f"arith.cmpf {pred}"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", triton.TileFallbackWarning)
        k = triton.compile(str(tmp_path / "cmpf.ttir"))
    assert k.metadata.path == path, k.metadata.fallback_reason
    z, w = poisoned(n, "bool"), poisoned(grid[0], "bool")
    k[grid](x, y, z, w, n)
    ref = CMPF_PREDICATES[pred](x, y, np.isnan(x) | np.isnan(y))
    assert_equal(z, ref, err_msg=pred)
    assert_equal(w, ref[: grid[0]], err_msg=f"{pred} (scalars)")


@triton.jit
def _ptr_compare_kernel(X, Y, A, B, Z, W, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = X + tl.load(A + offs, mask=mask, other=0)
    q = X + tl.load(B + offs, mask=mask, other=0)
    bits = ((p == q).to(tl.int32) | ((p != q).to(tl.int32) << 1) | ((p < q).to(tl.int32) << 2)
            | ((p <= q).to(tl.int32) << 3) | ((p > q).to(tl.int32) << 4)
            | ((p >= q).to(tl.int32) << 5))
    tl.store(Z + offs, bits, mask=mask)
    tl.store(W + 0, (X < Y).to(tl.int32) | ((X == Y).to(tl.int32) << 1)
             | ((X >= Y).to(tl.int32) << 2))


@pytest.mark.stock_refuses("comparing pointers offset by loaded values")
def test_pointer_compare(path, rng):
    """Pointers compare as unsigned 64-bit addresses: offsets that push an address past 2^63
    (never dereferenced) order above the others, where a signed compare would put them below;
    tiles with a mask, and scalar pointer arguments."""
    n = 333
    # X and Y are two views of one array (in either order), so that their order holds for any
    # copy of it too (--device cuda moves each array as one allocation).
    xy = np.zeros(8, np.float32)
    x, y = (xy[:4], xy[4:]) if rng.integers(2) else (xy[4:], xy[:4])
    a = rng.integers(-1000, 1000, n, dtype=np.int64)
    b = rng.integers(-1000, 1000, n, dtype=np.int64)
    b[::4] = a[::4]
    a[1::6] += 1 << 61  # 4 * 2^61 bytes = 2^63: the address's top bit flips
    b[2::5] += 1 << 61
    z, w = poisoned(n, "int32"), poisoned(1, "int32")
    with warnings.catch_warnings():
        warnings.simplefilter("error", triton.TileFallbackWarning)
        k = _ptr_compare_kernel[(cdiv(n, BLOCK),)](x, y, a, b, z, w, n, BLOCK=BLOCK)
    assert k.metadata.path == path, k.metadata.fallback_reason
    base = np.uint64(x.ctypes.data)
    p = base + a.astype(np.uint64) * np.uint64(4)  # wraps modulo 2^64 as addresses do
    q = base + b.astype(np.uint64) * np.uint64(4)
    assert ((p >= 1 << 63) != (q >= 1 << 63)).any()  # the sign bit matters somewhere
    ref = sum(r.astype(np.int32) << i
              for i, r in enumerate([p == q, p != q, p < q, p <= q, p > q, p >= q]))
    assert_equal(z, ref)
    xa, ya = x.ctypes.data, y.ctypes.data
    assert_equal(w, [int(xa < ya) | int(xa == ya) << 1 | int(xa >= ya) << 2])


# ---------------------------------------------------------------------------------------------
# bitwise and shifts


@triton.jit
def _bitwise_kernel(X, Y, Z_AND, Z_OR, Z_XOR, n, EXPECTED: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    y = tl.load(Y + offs, mask=mask)
    z_and = x & y
    z_or = x | y
    z_xor = x ^ y
    tl.static_assert(z_and.dtype == EXPECTED, "unexpected result dtype for &")
    tl.static_assert(z_xor.dtype == EXPECTED, "unexpected result dtype for ^")
    tl.store(Z_AND + offs, z_and, mask=mask)
    tl.store(Z_OR + offs, z_or, mask=mask)
    tl.store(Z_XOR + offs, z_xor, mask=mask)


BITWISE_PAIRS = [(d, d) for d in ["int8", "int16", "int32", "int64", "uint8", "uint32", "uint64"]]
BITWISE_PAIRS += [("int8", "uint8"), ("int8", "int32"), ("uint16", "int32"), ("uint32", "int64"),
                  ("bool", "bool"), ("bool", "int16")]


@pytest.mark.parametrize("dx, dy", BITWISE_PAIRS)
def test_bitwise(dx, dy, rng):
    x, y = numpy_random(N, dx, rng), numpy_random(N, dy, rng)
    expected = "bool" if dx == dy == "bool" else promote(dx, dy)
    outs = [poisoned(N, expected) for _ in range(3)]
    _bitwise_kernel[_grid()](x, y, *outs, N, EXPECTED=tl_dtype(expected), BLOCK=BLOCK)
    e = np_dtype(expected)
    xc, yc = x.astype(e), y.astype(e)
    assert_equal(outs[0], xc & yc)
    assert_equal(outs[1], xc | yc)
    assert_equal(outs[2], xc ^ yc)


@triton.jit
def _shift_kernel(X, Y, Z_SHL, Z_SHR, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    y = tl.load(Y + offs, mask=mask)
    tl.store(Z_SHL + offs, x << y, mask=mask)
    tl.store(Z_SHR + offs, x >> y, mask=mask)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                   "uint64"])
def test_shift(dtype, rng):
    """`>>` is arithmetic for signed types, logical for unsigned ones."""
    bits = np.dtype(dtype).itemsize * 8
    x = numpy_random(N, dtype, rng)
    y = rng.integers(0, bits, size=N).astype(dtype)
    z_shl, z_shr = poisoned(N, dtype), poisoned(N, dtype)
    _shift_kernel[_grid()](x, y, z_shl, z_shr, N, BLOCK=BLOCK)
    assert_equal(z_shl, np.left_shift(x, y))
    assert_equal(z_shr, np.right_shift(x, y))
    if is_signed(dtype):
        assert (np.right_shift(x, y) < 0).any()  # arithmetic shifts are exercised


@pytest.mark.parametrize("x_dtype, y_dtype", [("int8", "uint8"), ("int16", "uint16"),
                                               ("int32", "uint32"), ("int64", "uint64"),
                                               ("int8", "uint32"), ("uint8", "int8"),
                                               ("uint16", "int32"), ("int32", "int8")])
def test_shift_mixed_signedness(x_dtype, y_dtype, rng):
    """`x >> y` is arithmetic when `x` is signed, whatever `y` is and whatever type the operands
    are promoted to (Triton picks ashr/lshr from x's type; int8 >> uint8 promotes to uint8 yet
    shifts in the sign bit: -8 >> 1 is 0xFC). `<<` is the same either way."""
    res = promote(x_dtype, y_dtype)
    bits = np.dtype(res).itemsize * 8
    x = numpy_random(N, x_dtype, rng)
    y = rng.integers(0, min(bits, np.iinfo(np.dtype(y_dtype)).max), size=N).astype(y_dtype)
    z_shl, z_shr = poisoned(N, res), poisoned(N, res)
    _shift_kernel[_grid()](x, y, z_shl, z_shr, N, BLOCK=BLOCK)
    # reference in Python ints: promote x (sign- or zero-extending from its own type), shift,
    # wrap to the result's width
    mask = (1 << bits) - 1
    xs = [int(v) for v in x]
    ys = [int(v) for v in y]
    shl = [(a << b) & mask for a, b in zip(xs, ys)]
    if is_signed(x_dtype):
        shr = [(a >> b) & mask for a, b in zip(xs, ys)]  # Python's >> is arithmetic
    else:
        shr = [((a & mask) >> b) for a, b in zip(xs, ys)]
    as_res = np.array(shl, dtype=np.uint64).astype(np.dtype(f"uint{bits}")).view(res)
    assert_equal(z_shl, as_res)
    as_res = np.array(shr, dtype=np.uint64).astype(np.dtype(f"uint{bits}")).view(res)
    assert_equal(z_shr, as_res)
    if is_signed(x_dtype):
        assert (x < 0).any()  # sign bits are shifted in


# ---------------------------------------------------------------------------------------------
# unary


@triton.jit
def _unary_kernel(X, Z_NEG, Z_INV, n, INVERT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    tl.store(Z_NEG + offs, -x, mask=mask)
    if INVERT:
        tl.store(Z_INV + offs, ~x, mask=mask)


@pytest.mark.parametrize("dtype", param_dtypes(*ARITH_DTYPES, "int16", "uint16"))
def test_unary(dtype, rng):
    x = numpy_random(N, dtype, rng)
    if is_int(dtype):
        x[0] = np.iinfo(x.dtype).min
        x[1] = np.iinfo(x.dtype).max
    z_neg, z_inv = poisoned(N, dtype), poisoned(N, dtype)
    _unary_kernel[_grid()](x, z_neg, z_inv, N, INVERT=is_int(dtype), BLOCK=BLOCK)
    if is_float(dtype):
        assert_close(z_neg, (-to_f64(x)).astype(x.dtype), rtol=0)
    else:
        with np.errstate(over="ignore"):
            assert_equal(z_neg, (np.zeros_like(x) - x))
        assert_equal(z_inv, ~x)


# ---------------------------------------------------------------------------------------------
# constexpr arithmetic follows Python, not C


@triton.jit
def _constexpr_ops_kernel(Z, A: tl.constexpr, B: tl.constexpr):
    tl.store(Z + 0, A + B)
    tl.store(Z + 1, A - B)
    tl.store(Z + 2, A * B)
    tl.store(Z + 3, A / B)
    tl.store(Z + 4, A // B)
    tl.store(Z + 5, A % B)


@pytest.mark.parametrize("a, b", [(-7, 2), (7, -3), (-7.5, 2.0)])
def test_constexpr_ops_use_python_semantics(a, b):
    z = poisoned(6, "float64")
    _constexpr_ops_kernel[(1,)](z, A=a, B=b)
    assert_close(z, np.array([a + b, a - b, a * b, a / b, a // b, a % b], dtype=np.float64),
                 rtol=1e-7)


@triton.jit
def _tensor_const_floordiv_kernel(X, Z, B: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    tl.store(Z + offs, x // B)
    tl.store(Z + BLOCK + offs, x % B)


def test_tensor_by_constexpr_uses_c_semantics(rng):
    """The same `//` and `%` on a tensor truncate toward zero."""
    x = numpy_random(64, "int32", rng, low=-1000, high=1000)
    z = poisoned(128, "int32")
    _tensor_const_floordiv_kernel[(1,)](x, z, B=7, BLOCK=64)
    assert_equal(z[:64], c_div(x, np.int32(7)))
    assert_equal(z[64:], c_mod(x, np.int32(7)))


# ---------------------------------------------------------------------------------------------
# Python scalars out of range for the promoted type


@triton.jit
def _add_const_kernel(X, Z, C: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(Z + offs, tl.load(X + offs) + C)


@pytest.mark.parametrize("dtype, c", [("int32", 2**40), ("int32", 2**31), ("int8", 300),
                                      ("int16", -(2**15) - 1)])
def test_scalar_overflow_is_an_error(dtype, c, rng):
    x = numpy_random(16, dtype, rng)
    with pytest.raises(triton.CompilationError, match="out of range"):
        _add_const_kernel[(1,)](x, poisoned(16, dtype), C=c, BLOCK=16)


@pytest.mark.parametrize("dtype", ["uint8", "uint32"])
def test_negative_scalar_with_unsigned_is_an_error(dtype, rng):
    x = numpy_random(16, dtype, rng)
    with pytest.raises(triton.CompilationError):
        _add_const_kernel[(1,)](x, poisoned(16, dtype), C=-1, BLOCK=16)


@pytest.mark.parametrize("dtype, c", [("int32", 2**31 - 1), ("int8", -128), ("int64", 2**40),
                                      ("uint32", 2**32 - 1), ("uint8", 255)])
def test_scalar_in_range_wraps(dtype, c, rng):
    x = numpy_random(16, dtype, rng)
    z = poisoned(16, dtype)
    _add_const_kernel[(1,)](x, z, C=c, BLOCK=16)
    with np.errstate(over="ignore"):
        assert_equal(z, x + np.asarray(c).astype(dtype))

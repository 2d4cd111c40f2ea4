"""Helpers shared by the kernel tests (tests/language, tests/examples, tests/gpu).

Imported as ``from tt_utils import ...``: tests/conftest.py puts this directory on sys.path.
A module with a unique name, rather than helpers inside conftest.py, because several
directories may have their own conftest.py and ``import conftest`` would be ambiguous.

House rules these helpers serve:
- float64 references on fresh random inputs from a per-test seeded generator (see the ``rng``
  fixture in conftest.py);
- outputs poisoned first (NaN for floats, 0x5A bytes for ints and bools), so an element the
  kernel never wrote fails the comparison;
- bf16 and fp8 through ml_dtypes when it is installed (tests skip with a reason otherwise).
"""

import numpy as np
import pytest

import triton_tile as triton
import triton_tile.language as tl

try:
    import ml_dtypes
except ImportError:  # pragma: no cover - exercised only where ml_dtypes is absent
    ml_dtypes = None

requires_ml_dtypes = pytest.mark.skipif(
    ml_dtypes is None, reason="bf16/fp8 tests need ml_dtypes (pip install ml_dtypes)"
)

INT_DTYPES = ["int8", "int16", "int32", "int64"]
UINT_DTYPES = ["uint8", "uint16", "uint32", "uint64"]
FLOAT_DTYPES = ["float16", "float32", "float64"]
# Dtypes that need ml_dtypes to exist as numpy arrays.
ML_DTYPES = ["bfloat16", "float8e4nv", "float8e5"]

_ML_NAMES = {"bfloat16": "bfloat16", "float8e4nv": "float8_e4m3fn", "float8e5": "float8_e5m2"}

POISON_BYTE = 0x5A


def needs_ml_dtypes(*names):
    """True when any of the dtype names needs ml_dtypes."""
    return any(n in ML_DTYPES for n in names)


def param_dtypes(*names_or_tuples):
    """pytest.param wrappers that attach the ml_dtypes skip marker where needed.

    Each argument is a dtype name or a tuple of parameters whose string items may be dtype
    names (other items are passed through).
    """
    out = []
    for item in names_or_tuples:
        values = item if isinstance(item, tuple) else (item,)
        names = [v for v in values if isinstance(v, str)]
        marks = [requires_ml_dtypes] if needs_ml_dtypes(*names) else []
        out.append(pytest.param(*values, marks=marks, id="-".join(str(v) for v in values)))
    return out


def np_dtype(name):
    """numpy dtype for a dtype name ('int8', 'bfloat16', 'float8e4nv', 'bool', ...)."""
    if name in _ML_NAMES:
        if ml_dtypes is None:
            pytest.skip("needs ml_dtypes")
        return np.dtype(getattr(ml_dtypes, _ML_NAMES[name]))
    return np.dtype(name)


def tl_dtype(name):
    """The triton_tile.language dtype object for a dtype name."""
    import triton_tile.language as tl

    return getattr(tl, {"bool": "int1"}.get(name, name))


def is_float(name):
    return name in FLOAT_DTYPES or name in ML_DTYPES


def is_int(name):
    return name in INT_DTYPES or name in UINT_DTYPES


def is_signed(name):
    return name in INT_DTYPES


def bitwidth(name):
    if name == "bool":
        return 1
    return np_dtype(name).itemsize * 8


def numpy_random(shape, dtype, rng, low=None, high=None):
    """Fresh random values of `dtype` (a name).

    Integers are uniform over [low, high] (default: the whole range of the type) and never 0,
    so they are safe as divisors. Floats are normal(0, 1), or uniform in [low, high) when the
    bounds are given; float values are never exactly 0 either. bf16/fp8 are drawn as float32
    and rounded to the type (fp8 drawn in [-8, 8) by default). Bools are fair coin flips.
    """
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if is_int(dtype):
        info = np.iinfo(np.dtype(dtype))
        lo = info.min if low is None else max(int(low), int(info.min))
        hi = info.max if high is None else min(int(high), int(info.max))
        x = rng.integers(lo, hi, size=shape, dtype=np.dtype(dtype), endpoint=True)
        x[x == 0] = 1
        return x
    if low is None and high is None:
        if dtype in ("float8e4nv", "float8e5"):
            x = rng.uniform(-8.0, 8.0, size=shape)
        else:
            x = rng.standard_normal(size=shape)
    else:
        x = rng.uniform(low, high, size=shape)
    x = x.astype(np_dtype(dtype))
    zeros = x.astype(np.float64) == 0
    if zeros.any():
        x[zeros] = np.asarray(0.5).astype(x.dtype)
    return x


def poisoned(shape, dtype, poison=None):
    """An output array whose every element is 'never written by a correct kernel'.

    Floats get NaN (or `poison` when given, for tests whose reference contains NaN); ints
    and bools get 0x5A in every byte (0x5A5A5A5A for int32; 0x5A is not a valid bool).
    """
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    dt = np_dtype(dtype) if isinstance(dtype, str) else np.dtype(dtype)
    out = np.empty(shape, dtype=dt)
    if poison is not None:
        out[...] = np.asarray(poison).astype(dt)
    elif dt.kind == "f" or (ml_dtypes is not None and dt.name in _ML_NAMES.values()):
        out[...] = np.asarray(np.nan).astype(dt)
    else:
        out.view(np.uint8)[...] = POISON_BYTE
    return out


def to_f64(x):
    return np.asarray(x).astype(np.float64)


def assert_close(actual, expected, rtol=1e-6, atol=0.0, err_msg=""):
    """Compare as float64; NaN only matches NaN; poison left in `actual` fails."""
    a = to_f64(actual)
    e = to_f64(expected)
    assert a.shape == e.shape, f"shape {a.shape} != {e.shape} {err_msg}"
    np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, equal_nan=True, err_msg=err_msg)


def assert_equal(actual, expected, err_msg=""):
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, f"shape {actual.shape} != {expected.shape} {err_msg}"
    if actual.dtype == np.bool_:
        # A bool output that still holds poison bytes must fail even though numpy would read
        # 0x5A as True.
        raw = actual.view(np.uint8)
        assert np.all(raw <= 1), f"bool output holds non-0/1 bytes (unwritten?) {err_msg}"
    np.testing.assert_array_equal(actual, expected, err_msg=err_msg)


def assert_bits_equal(actual, expected, err_msg=""):
    """Bit-exact comparison (distinguishes -0.0/+0.0 and NaN payloads)."""
    actual = np.ascontiguousarray(actual)
    expected = np.ascontiguousarray(expected)
    assert actual.dtype.itemsize == expected.dtype.itemsize
    uint = np.dtype(f"uint{actual.dtype.itemsize * 8}")
    np.testing.assert_array_equal(actual.view(uint), expected.view(uint), err_msg=err_msg)


def tf32_round(x):
    """Round float32 values to TF32 (10 explicit mantissa bits), ties to nearest even."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    bias = ((bits >> 13) & 1) + 0xFFF
    rounded = ((bits + bias) & ~np.uint64(0x1FFF)).astype(np.uint32)
    out = rounded.view(np.float32).copy()
    special = ~np.isfinite(x)
    out[special] = x[special]
    return out


def no_tf32_ties(x):
    """Make float32 values whose TF32 rounding has no exact tie (sets the lowest bit).

    On an exact tie, round-to-nearest-even and round-to-nearest-away (what NVIDIA's cvt.rna
    does) differ; without ties every round-to-nearest flavour agrees, so a TF32 test can be
    tight without guessing the tie rule.
    """
    x = np.ascontiguousarray(x, dtype=np.float32).copy()
    x.view(np.uint32)[...] |= np.uint32(1)
    return x


def bf16_round(x):
    """float64/float32 values rounded to bf16 (RNE), returned as an ml_dtypes bf16 array."""
    return np.asarray(x, dtype=np.float32).astype(np_dtype("bfloat16"))


def c_div(a, b):
    """C integer division (truncates toward zero) on numpy integer arrays of one dtype."""
    r = np.fmod(a, b)
    return (a - r) // b


def c_mod(a, b):
    """C remainder (sign of the dividend)."""
    return np.fmod(a, b)


def cdiv(a, b):
    return (a + b - 1) // b


# ---------------------------------------------------------------------------------------------
# Triton's typing rules (its language/semantic.py and docs/python-api/triton-semantics.rst), as
# an oracle for expected dtypes.

_FP_ORDER = {"float8e4nv": 8, "float8e5": 8, "float16": 16, "bfloat16": 16, "float32": 32,
             "float64": 64}


def _kind(name):
    if name == "bool":
        return 0
    if is_int(name):
        return 1
    return 2


def integer_promote(a, b):
    """C's usual arithmetic conversions as Triton applies them (no promotion to int32)."""
    if a == "bool":
        a = "int8" if b == "bool" else b
    if b == "bool":
        b = a
    wa, wb = bitwidth(a), bitwidth(b)
    sa, sb = is_signed(a), is_signed(b)
    if sa == sb:
        return a if wa > wb else b
    if not sa:  # a unsigned
        return a if wa >= wb else b
    return b if wb >= wa else a


def promote(a, b, div_or_mod=False):
    """Result dtype of a binary op between two tensors (neither a Python scalar)."""
    if "float64" in (a, b):
        return "float64"
    if "float32" in (a, b):
        return "float32"
    if "float16" in (a, b):
        return "float32" if div_or_mod else "float16"
    if a == "bfloat16" and b == "bfloat16":
        return "float32" if div_or_mod else "bfloat16"
    if "bfloat16" in (a, b):
        return "float32"
    if is_float(a) and is_float(b):  # two fp8 types
        return a if a == b else "float16"
    if is_float(a) or is_float(b):
        return a if is_float(a) else b
    if div_or_mod and is_signed(a) != is_signed(b):
        raise TypeError("different signedness")
    return integer_promote(a, b)


def literal_dtype(value):
    """The dtype Triton gives a Python literal."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        if -(2**31) <= value < 2**31:
            return "int32"
        if 2**31 <= value < 2**32:
            return "uint32"
        if -(2**63) <= value < 2**63:
            return "int64"
        return "uint64"
    return "float32"


def promote_with_scalar(tensor_dtype, value, div_or_mod=False):
    """Result dtype of `tensor op python_scalar`: a scalar of the same or a lower kind does
    not take part in the promotion (NEP 50 'weak' scalars)."""
    if _kind(literal_dtype(value)) <= _kind(tensor_dtype):
        if div_or_mod and tensor_dtype in ("float16", "bfloat16"):
            return "float32"
        return tensor_dtype
    return promote(tensor_dtype, literal_dtype(value), div_or_mod)


# --- kernels the CPU and GPU suites both run -------------------------------------------------


@triton.jit
def welford_combine(mean_a, m2_a, w_a, mean_b, m2_b, w_b):
    """Welford's merge of (mean, m2, weight) pairs: a combiner with no identity Tile IR's
    reduce could take (the Tile path halves the axis instead)."""
    w = w_a + w_b
    delta = mean_b - mean_a
    frac = tl.where(w == 0.0, 0.0, w_b / w)
    return mean_a + delta * frac, m2_a + m2_b + delta * delta * w_a * frac, w


@triton.jit
def cas_counter_kernel(Z, ITERS: tl.constexpr, COUNTERS: tl.constexpr):
    # lock-free increment of counter pid % COUNTERS: retry until our CAS wins, each retry with
    # the value the failed CAS saw. The expected value comes from atomics only: stock Triton
    # runs a scalar tl.load in every thread, and a volatile load of a word other programs keep
    # changing can give each warp its own value; the warps then disagree on `done`, some leave
    # the loop, and the rest wait at the next atomic's barrier forever (seen on an H100 and an
    # H200: the GPU hung). An atomic's result is one thread's, broadcast to all.
    p = Z + tl.program_id(0) % COUNTERS
    for _ in range(ITERS):
        zero = (tl.program_id(0) * 0).to(p.dtype.element_ty)
        cur = tl.atomic_cas(p, zero, zero)  # an atomic read (writes 0 over 0 only)
        done = 0
        while done == 0:
            prev = tl.atomic_cas(p, cur, cur + 1)
            done = (prev == cur).to(tl.int32)
            cur = prev


class DLPackOnly:
    """An object that exports `arr` through DLPack alone (no __array_interface__)."""

    def __init__(self, arr):
        self._arr = arr

    def __dlpack__(self, **kw):
        return self._arr.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self._arr.__dlpack_device__()


def capture_plan_notes(request, monkeypatch, kernels):
    """The CPU executors' plan notes (`program.notes`) of every program prepared from here to the
    end of the test, as a list the test reads after its launches; `kernels` (jitted functions)
    drop their caches so that they prepare again. Skips on a GPU run (--device)."""
    if request.config.getoption("--device", "cpu") != "cpu":
        pytest.skip("the plan notes are the CPU executors'")
    from triton_tile.backends import cpu as cpu_backend

    seen = []
    prepare, prepare_tile = cpu_backend.prepare, cpu_backend.prepare_tile
    for kernel in kernels:
        kernel.cache.clear()

    def ttir(module, name):
        program = prepare(module, name)
        seen.append(program.notes)
        return program

    def tile(module, name):
        program, why = prepare_tile(module, name)
        if program is not None:
            seen.append(program.notes)
        return program, why

    monkeypatch.setattr(cpu_backend, "prepare", ttir)
    monkeypatch.setattr(cpu_backend, "prepare_tile", tile)
    return seen

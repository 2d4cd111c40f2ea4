"""Atomics: add/max/min/and/or/xor/xchg over dtypes, masks, sem/scope, returned old values,
duplicate addresses within one block, compare-and-swap (incl. a spin lock across programs),
8/16-bit atomics (compare-and-swap loops on the Tile path), float min/max with -0.0, and
element types the language refuses."""

import contextlib
import warnings

import numpy as np
import pytest
from tt_utils import (
    assert_bits_equal,
    assert_close,
    assert_equal,
    cas_counter_kernel,
    is_float,
    numpy_random,
    param_dtypes,
    poisoned,
    tl_dtype,
    to_f64,
)

import triton_tile as triton
import triton_tile.language as tl

BLOCK = 64
NPROG = 6


@triton.jit
def _rmw_kernel(X, Z, OLD, MASK, OP: tl.constexpr, SEM: tl.constexpr, SCOPE: tl.constexpr,
                USE_MASK: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + pid * BLOCK + offs)
    if USE_MASK:
        mask = tl.load(MASK + pid * BLOCK + offs) != 0
    else:
        mask = offs < BLOCK
    ptrs = Z + offs  # every program updates the same BLOCK locations
    if OP == "add":
        old = tl.atomic_add(ptrs, x, mask=mask, sem=SEM, scope=SCOPE)
    elif OP == "max":
        old = tl.atomic_max(ptrs, x, mask=mask, sem=SEM, scope=SCOPE)
    elif OP == "min":
        old = tl.atomic_min(ptrs, x, mask=mask, sem=SEM, scope=SCOPE)
    elif OP == "and":
        old = tl.atomic_and(ptrs, x, mask=mask, sem=SEM, scope=SCOPE)
    elif OP == "or":
        old = tl.atomic_or(ptrs, x, mask=mask, sem=SEM, scope=SCOPE)
    elif OP == "xor":
        old = tl.atomic_xor(ptrs, x, mask=mask, sem=SEM, scope=SCOPE)
    else:
        old = tl.atomic_xchg(ptrs, x, mask=mask, sem=SEM, scope=SCOPE)
    tl.store(OLD + pid * BLOCK + offs, old, mask=mask)


_NP_REDUCE = {"add": np.add, "max": np.maximum, "min": np.minimum, "and": np.bitwise_and,
              "or": np.bitwise_or, "xor": np.bitwise_xor}


def _inputs(op, dtype, rng):
    shape = (NPROG, BLOCK)
    if dtype.startswith("float"):
        x = numpy_random(shape, dtype, rng)
        z0 = numpy_random(BLOCK, dtype, rng)
    elif op == "add":
        x = numpy_random(shape, dtype, rng, low=-1000, high=1000)
        z0 = numpy_random(BLOCK, dtype, rng, low=-1000, high=1000)
    else:
        x = numpy_random(shape, dtype, rng)
        z0 = numpy_random(BLOCK, dtype, rng)
    return x, z0


def _launch(op, dtype, x, z, mask=None, sem=None, scope=None):
    old = poisoned((NPROG, BLOCK), dtype)
    m = mask.astype(np.int8) if mask is not None else np.ones((NPROG, BLOCK), np.int8)
    _rmw_kernel[(NPROG,)](x, z, old, m, OP=op, SEM=sem, SCOPE=scope,
                          USE_MASK=mask is not None, BLOCK=BLOCK)
    return old


_AFTER = {"add": np.add, "max": np.maximum, "min": np.minimum, "and": np.bitwise_and,
          "or": np.bitwise_or, "xor": np.bitwise_xor, "xchg": lambda old, x: x}


def _check_old_values(op, z0, x, old, final, mask):
    """Whatever order the programs ran in, each location went through a chain
    z0 -> v1 -> ... -> final, every active lane returning the value just before its own
    update; so {z0} + {op(old_k, x_k)} == {old_k} + {final} as multisets."""
    for j in range(BLOCK):
        act = np.nonzero(mask[:, j])[0]
        olds = old[act, j]
        with np.errstate(over="ignore"):
            after = _AFTER[op](olds, x[act, j]).astype(x.dtype)
        lhs = sorted(np.concatenate([z0[j:j + 1], after]).tolist())
        rhs = sorted(np.concatenate([olds, final[j:j + 1]]).tolist())
        assert lhs == rhs, f"{op}: location {j}: old values {olds} do not chain to {final[j]}"
        if len(act):
            assert np.any(olds == z0[j]), f"{op}: nobody saw the initial value at {j}"


ATOMIC_CASES = [("add", "int32"), ("add", "uint32"), ("add", "int64"), ("add", "float32"),
                ("add", "float64"), ("add", "float16"),
                ("max", "int32"), ("max", "uint32"), ("max", "int64"), ("max", "float32"),
                ("max", "float64"),
                ("min", "int32"), ("min", "uint64"), ("min", "float32"), ("min", "float64"),
                ("and", "int32"), ("and", "uint64"), ("or", "int32"), ("or", "uint32"),
                ("xor", "int64"), ("xor", "uint32"),
                ("xchg", "int32"), ("xchg", "float32"), ("xchg", "int64")]


@pytest.mark.parametrize("op, dtype, masked",
                         [(op, dt, i % 2 == 1) for i, (op, dt) in enumerate(ATOMIC_CASES)])
def test_atomic_rmw(op, dtype, masked, rng):
    x, z0 = _inputs(op, dtype, rng)
    mask = numpy_random((NPROG, BLOCK), "bool", rng) if masked else np.ones_like(x, bool)
    z = z0.copy()
    old = _launch(op, dtype, x, z, mask if masked else None)
    if op == "xchg":
        # the final value is the original or one of the exchanged-in values
        for j in range(BLOCK):
            cands = to_f64(np.concatenate([[z0[j]], x[mask[:, j], j]]))
            assert to_f64(z[j]) in cands
    else:
        operands = np.where(mask, x, _identity(op, x.dtype))
        if dtype.startswith("float") and op == "add":
            ref = z0.astype(np.float64) + operands.astype(np.float64).sum(0)
            tol = {"float16": 2e-2, "float32": 1e-5, "float64": 1e-12}[dtype]
            assert_close(z, ref.astype(dtype), rtol=tol, atol=tol)
        else:
            with np.errstate(over="ignore"):
                ref = _NP_REDUCE[op].reduce(np.concatenate([z0[None], operands]), axis=0)
            assert_equal(z, ref.astype(dtype))
    _check_old_values(op, z0, x, old, z, mask)


def _identity(op, dtype):
    if op in ("add", "or", "xor"):
        return np.zeros((), dtype)
    if op == "and":
        return np.array(-1).astype(dtype) if dtype.kind == "i" else np.array(
            np.iinfo(dtype).max, dtype)
    if dtype.kind == "f":
        return np.array(-np.inf if op == "max" else np.inf, dtype)
    info = np.iinfo(dtype)
    return np.array(info.min if op == "max" else info.max, dtype)


@pytest.mark.parametrize("sem, scope", [("relaxed", "gpu"), ("acquire", "cta"),
                                        ("release", "sys"), ("acq_rel", "gpu")])
def test_atomic_sem_and_scope(sem, scope, rng):
    x, z0 = _inputs("add", "int32", rng)
    z = z0.copy()
    _launch("add", "int32", x, z, sem=sem, scope=scope)
    assert_equal(z, z0 + x.sum(0, dtype=np.int32))


def test_atomic_old_values_single_program(rng):
    """With one program there is no interleaving: old values are exactly the prior contents."""
    x = numpy_random((NPROG, BLOCK), "int32", rng, low=-1000, high=1000)
    z0 = numpy_random(BLOCK, "int32", rng, low=-1000, high=1000)
    z = z0.copy()
    old = poisoned((NPROG, BLOCK), "int32")
    _rmw_kernel[(1,)](x, z, old, np.ones((NPROG, BLOCK), np.int8), OP="add", SEM=None,
                      SCOPE=None, USE_MASK=False, BLOCK=BLOCK)
    assert_equal(old[0], z0)
    assert_equal(z, z0 + x[0])


# ---------------------------------------------------------------------------------------------
# duplicate addresses inside one block


@triton.jit
def _histogram_kernel(IDX, W, Z, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    idx = tl.load(IDX + offs, mask=mask)
    tl.atomic_add(Z + idx, 1, mask=mask)
    tl.atomic_add(Z + 16 + idx, tl.load(W + offs, mask=mask), mask=mask)


def test_atomic_add_duplicate_addresses(rng):
    n = 1000
    idx = rng.integers(0, 16, size=n).astype(np.int32)
    w = numpy_random(n, "int32", rng, low=-100, high=100)
    z = np.zeros(32, np.int32)
    _histogram_kernel[(8,)](idx, w, z, n, BLOCK=128)
    assert_equal(z[:16], np.bincount(idx, minlength=16))
    assert_equal(z[16:], np.bincount(idx, weights=w, minlength=16).astype(np.int32))


@triton.jit
def _row_sum_atomic_kernel(X, Z, M: tl.constexpr, N: tl.constexpr, SHIFT: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(X + rm[:, None] * N + rn[None, :])
    # [M, N] pointers, N of them equal per row, plus a shifted overlapping pattern
    tl.atomic_add(Z + rm[:, None] + rn[None, :] * 0, x)
    tl.atomic_add(Z + M + (rm[:, None] * N + rn[None, :]) // SHIFT, x)


def test_atomic_add_block_to_rows(rng):
    m, n, shift = 8, 16, 2
    x = numpy_random((m, n), "float32", rng)
    z = np.zeros(m + m * n // shift, np.float32)
    _row_sum_atomic_kernel[(1,)](x, z, M=m, N=n, SHIFT=shift)
    flat = to_f64(x).reshape(-1)
    assert_close(z[:m], to_f64(x).sum(1), rtol=1e-5, atol=1e-5)
    assert_close(z[m:], flat.reshape(-1, shift).sum(1), rtol=1e-5, atol=1e-6)


@triton.jit
def _tile_reduction_kernel(X, Z, n_rows, OP: tl.constexpr, BLOCK_M: tl.constexpr,
                           BLOCK_N: tl.constexpr):
    """Each program adds (or maxes, ...) its [BLOCK_M, BLOCK_N] tile into rows of Z that
    overlap other programs' (a shift of 8 rows a program, 3 shifts), rows below n_rows only,
    relaxed and with the old values unread: a reduction through a view on the Tile path."""
    pid = tl.program_id(0)
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    x = tl.load(X + pid * BLOCK_M * BLOCK_N + rm[:, None] * BLOCK_N + rn[None, :])
    rows = (pid % 3) * 8 + rm
    ptrs = Z + rows[:, None] * BLOCK_N + rn[None, :]
    mask = rows[:, None] < n_rows
    if OP == "add":
        tl.atomic_add(ptrs, x, mask=mask, sem="relaxed")
    elif OP == "max":
        tl.atomic_max(ptrs, x, mask=mask, sem="relaxed")
    elif OP == "min":
        tl.atomic_min(ptrs, x, mask=mask, sem="relaxed")
    elif OP == "and":
        tl.atomic_and(ptrs, x, mask=mask, sem="relaxed")
    elif OP == "or":
        tl.atomic_or(ptrs, x, mask=mask, sem="relaxed")
    else:
        tl.atomic_xor(ptrs, x, mask=mask, sem="relaxed")


@pytest.mark.parametrize("op, dtype", [("add", "float32"), ("add", "float16"), ("add", "int32"),
                                       ("max", "int32"), ("min", "int64"), ("and", "int32"),
                                       ("or", "int64"), ("xor", "int32")])
def test_relaxed_tile_reductions(op, dtype, path, rng):
    """Relaxed tile atomics whose old values are unread, from 7 programs into overlapping rows
    (masked at a row count that cuts a tile), against numpy; on the Tile path they are
    atomic_red_view_tko. Rows past the count keep their poison."""
    bm, bn, nprog, n_rows = 16, 32, 7, 21
    x = numpy_random((nprog, bm, bn), dtype, rng, low=-50, high=50)
    start = numpy_random((40, bn), dtype, rng, low=-50, high=50)
    z = start.copy()
    k = _tile_reduction_kernel[(nprog,)](x, z, n_rows, OP=op, BLOCK_M=bm, BLOCK_N=bn)
    want = to_f64(start) if is_float(dtype) else start.copy()
    reduce = _NP_REDUCE[op]
    for p in range(nprog):
        r0 = (p % 3) * 8
        r1 = min(r0 + bm, n_rows)
        src = to_f64(x[p]) if is_float(dtype) else x[p]
        want[r0:r1] = reduce(want[r0:r1], src[: r1 - r0])
    if is_float(dtype):
        # fp16: each of up to 3 adds rounds once, at most 0.0625 below 256 (half an ulp)
        atol = 0.1875 if dtype == "float16" else 1e-4
        assert_close(z, want, rtol=1e-5, atol=atol)
    else:
        assert_equal(z, want)
    if path == "tile":
        assert "atomic_red_view_tko" in k.asm["tileir"]


@triton.jit
def _scalar_atomic_kernel(Z, OLD):
    pid = tl.program_id(0)
    old = tl.atomic_add(Z, 1, mask=pid % 2 == 0)
    tl.store(OLD + pid, old, mask=pid % 2 == 0)
    tl.atomic_max(Z + 1, pid)
    tl.atomic_min(Z + 2, -pid)


def test_scalar_atomics_with_predicate():
    grid = 13
    z = np.array([100, -5, 5], np.int32)
    old = poisoned(grid, "int32")
    _scalar_atomic_kernel[(grid,)](z, old)
    assert_equal(z, [100 + (grid + 1) // 2, grid - 1, -(grid - 1)])
    assert_equal(np.sort(old[::2]), 100 + np.arange((grid + 1) // 2))
    assert (np.ascontiguousarray(old[1::2]).view(np.uint8) == 0x5A).all()


# ---------------------------------------------------------------------------------------------
# compare-and-swap


@triton.jit
def _cas_kernel(Z, CMP, VAL, OLD, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    old = tl.atomic_cas(Z + offs, tl.load(CMP + offs), tl.load(VAL + offs))
    tl.store(OLD + offs, old)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32"])
def test_atomic_cas_block(dtype, rng):
    z0 = numpy_random(BLOCK, dtype, rng)
    cmp = numpy_random(BLOCK, dtype, rng)
    hit = rng.random(BLOCK) < 0.5
    cmp[hit] = z0[hit]
    val = numpy_random(BLOCK, dtype, rng)
    z = z0.copy()
    old = poisoned(BLOCK, dtype)
    _cas_kernel[(1,)](z, cmp, val, old, BLOCK=BLOCK)
    assert_bits_equal(old, z0)
    assert_bits_equal(z, np.where(hit, val, z0))


@triton.jit
def _spin_lock_kernel(LOCK, COUNT, TOTAL, X):
    pid = tl.program_id(0)
    while tl.atomic_cas(LOCK, 0, 1) == 1:
        pass
    # critical section: plain (non-atomic) read-modify-write of two locations
    c = tl.load(COUNT)
    tl.store(COUNT, c + 1)
    t = tl.load(TOTAL)
    tl.store(TOTAL, t + tl.load(X + pid))
    tl.debug_barrier()
    tl.atomic_xchg(LOCK, 0)


def test_spin_lock_across_programs(rng):
    grid = 64
    x = numpy_random(grid, "int64", rng, low=-(10**9), high=10**9)
    lock = np.zeros(1, np.int32)
    count, total = np.zeros(1, np.int32), np.zeros(1, np.int64)
    _spin_lock_kernel[(grid,)](lock, count, total, x)
    assert lock[0] == 0
    assert count[0] == grid
    assert total[0] == x.sum()


def test_cas_retry_loop():
    z = np.zeros(1, np.int32)
    cas_counter_kernel[(32,)](z, ITERS=20, COUNTERS=1)
    assert z[0] == 32 * 20


# ---------------------------------------------------------------------------------------------
# 8/16-bit atomics: the Tile path runs scalar ones as compare-and-swap loops on the 32-bit words
# that hold the elements; tile-shaped ones fall back, loudly (the loop over a tile hung on an
# H200: convert_memory.cpp). Neighbouring elements share a word: every test below has them.


def _no_fallback(k, path):
    assert k.metadata.path == path, k.metadata.fallback_reason


@contextlib.contextmanager
def _tile_shaped(path):
    """Runs a launch of tile-shaped 8/16-bit atomics: on the Tile path it must fall back with
    the reason, on the PTX path nothing may warn. Yields a list to put the kernel in."""
    out = []
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", triton.TileFallbackWarning)
        yield out
    if path == "tile":
        assert out[0].metadata.path == "ptx"
        assert "8/16-bit atomics on a tile" in out[0].metadata.fallback_reason
    else:
        assert not [w for w in seen if issubclass(w.category, triton.TileFallbackWarning)]


@pytest.mark.parametrize("dtype", param_dtypes("int16", "uint16", "float16", "bfloat16"))
def test_atomic_cas_16_bit_block(dtype, path, rng):
    """64 lanes, two per word; the compare is bitwise (a NaN matches its own bits)."""
    z0 = numpy_random(BLOCK, dtype, rng)
    cmp = numpy_random(BLOCK, dtype, rng)
    if is_float(dtype):
        z0[::7] = np.asarray(np.nan).astype(z0.dtype)
    hit = rng.random(BLOCK) < 0.5
    cmp[hit] = z0[hit]
    val = numpy_random(BLOCK, dtype, rng)
    buf = poisoned(BLOCK + 2, dtype)  # the words around the elements hold poison to keep
    z = buf[1:-1]
    z[...] = z0
    old = poisoned(BLOCK, dtype)
    with _tile_shaped(path) as k:
        k.append(_cas_kernel[(1,)](z, cmp, val, old, BLOCK=BLOCK))
    assert_bits_equal(old, z0)
    assert_bits_equal(z, np.where(hit, val, z0))
    assert_bits_equal(buf[[0, -1]], poisoned(2, dtype))


def test_atomic_cas_16_bit_counters_share_words(path):
    """32 programs, four 16-bit counters in two words, CAS retry loops in a loop."""
    buf = np.full(6, 0x5A5A, np.uint16)
    z = buf[1:5]
    z[...] = [0, 1000, 65000, 7]
    with warnings.catch_warnings():
        warnings.simplefilter("error", triton.TileFallbackWarning)
        _no_fallback(cas_counter_kernel[(32,)](z, ITERS=20, COUNTERS=4), path)
    assert_equal(z, np.array([160, 1160, (65000 + 160) % 65536, 167], np.uint16))
    assert_equal(buf[[0, 5]], [0x5A5A, 0x5A5A])


@pytest.mark.cpu_only("on a GPU the tile form falls back (it hung on an H200) and stock "
                     "Triton refuses 16-bit float atomic_xchg; tests/gpu runs the scalar form")
@pytest.mark.parametrize("dtype", param_dtypes("float16", "bfloat16"))
def test_atomic_xchg_16_bit_float(dtype, path, rng):
    """Six programs exchange into the same 64 elements (two per word), masked."""
    x, z0 = _inputs("xchg", dtype, rng)
    mask = numpy_random((NPROG, BLOCK), "bool", rng)
    z = z0.copy()
    old = poisoned((NPROG, BLOCK), dtype)
    with _tile_shaped(path) as k:
        k.append(_rmw_kernel[(NPROG,)](x, z, old, mask.astype(np.int8), OP="xchg", SEM=None,
                                       SCOPE=None, USE_MASK=True, BLOCK=BLOCK))
    for j in range(BLOCK):
        assert to_f64(z[j]) in to_f64(np.concatenate([[z0[j]], x[mask[:, j], j]]))
    _check_old_values("xchg", to_f64(z0), to_f64(x), to_f64(old), to_f64(z), mask)


# tt.atomic_rmw on i8/i16 (the language allows none, as Triton; TTIR may have them): every
# program updates the same 64 elements under a mask and adds 1 to a scalar counter after them.
_NARROW_RMW_TTIR = """
module {
  tt.func public @narrow_rmw(%x: !tt.ptr<T>, %z: !tt.ptr<T>, %old: !tt.ptr<T>, %mk: !tt.ptr<i8>) {
    %pid = tt.get_program_id x : i32
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %c64 = arith.constant 64 : i32
    %base = arith.muli %pid, %c64 : i32
    %xb = tt.addptr %x, %base : !tt.ptr<T>, i32
    %xs = tt.splat %xb : !tt.ptr<T> -> tensor<64x!tt.ptr<T>>
    %xp = tt.addptr %xs, %r : tensor<64x!tt.ptr<T>>, tensor<64xi32>
    %v = tt.load %xp : tensor<64x!tt.ptr<T>>
    %mb = tt.addptr %mk, %base : !tt.ptr<i8>, i32
    %ms = tt.splat %mb : !tt.ptr<i8> -> tensor<64x!tt.ptr<i8>>
    %mp = tt.addptr %ms, %r : tensor<64x!tt.ptr<i8>>, tensor<64xi32>
    %m8 = tt.load %mp : tensor<64x!tt.ptr<i8>>
    %c0 = arith.constant dense<0> : tensor<64xi8>
    %m = arith.cmpi ne, %m8, %c0 : tensor<64xi8>
    %zs = tt.splat %z : !tt.ptr<T> -> tensor<64x!tt.ptr<T>>
    %zp = tt.addptr %zs, %r : tensor<64x!tt.ptr<T>>, tensor<64xi32>
    %o = tt.atomic_rmw OP, acq_rel, gpu, %zp, %v, %m : (tensor<64x!tt.ptr<T>>, tensor<64xT>, tensor<64xi1>) -> tensor<64xT>
    %ob = tt.addptr %old, %base : !tt.ptr<T>, i32
    %os = tt.splat %ob : !tt.ptr<T> -> tensor<64x!tt.ptr<T>>
    %op = tt.addptr %os, %r : tensor<64x!tt.ptr<T>>, tensor<64xi32>
    tt.store %op, %o, %m : tensor<64x!tt.ptr<T>>
    %zc = tt.addptr %z, %c64 : !tt.ptr<T>, i32
    %one = arith.constant 1 : T
    %true = arith.constant true
    %s = tt.atomic_rmw add, relaxed, gpu, %zc, %one, %true : (!tt.ptr<T>, T, i1) -> T
    tt.return
  }
}
"""  # noqa: E501

# TTIR op -> (the _AFTER/_NP_REDUCE name, whether the numbers are unsigned)
_NARROW_OPS = {"add": ("add", False), "and": ("and", True), "or": ("or", False),
               "xor": ("xor", True), "exch": ("xchg", False), "max": ("max", False),
               "min": ("min", False), "umax": ("max", True), "umin": ("min", True)}


@pytest.mark.parametrize("bits", [8, 16])
@pytest.mark.parametrize("op", list(_NARROW_OPS))
def test_atomic_rmw_8_and_16_bit(op, bits, path, rng, tmp_path):
    name, unsigned = _NARROW_OPS[op]
    dtype = f"{'u' if unsigned else ''}int{bits}"
    x, z0 = _inputs(name, dtype, rng)
    z0 = np.concatenate([z0, numpy_random(1, dtype, rng)])  # [64]: the scalar counter
    mask = numpy_random((NPROG, BLOCK), "bool", rng)
    buf = poisoned(BLOCK + 3, dtype)  # one element before: z starts off its word's start
    z = buf[1:-1]
    z[...] = z0
    old = poisoned((NPROG, BLOCK), dtype)
    src = tmp_path / "narrow_rmw.ttir"
    src.write_text(_NARROW_RMW_TTIR.replace("OP", op).replace("T", f"i{bits}"))
    with _tile_shaped(path) as ks:
        ks.append(triton.compile(str(src)))
    k = ks[0]
    k[(NPROG,)](x, z, old, mask.astype(np.int8))
    with np.errstate(over="ignore"):
        assert_equal(z[BLOCK], (z0[BLOCK] + NPROG).astype(dtype))
    if name == "xchg":
        for j in range(BLOCK):
            assert z[j] in np.concatenate([[z0[j]], x[mask[:, j], j]])
    else:
        operands = np.where(mask, x, _identity(name, x.dtype))
        with np.errstate(over="ignore"):
            ref = _NP_REDUCE[name].reduce(np.concatenate([z0[None, :BLOCK], operands]), axis=0)
        assert_equal(z[:BLOCK], ref.astype(dtype))
    _check_old_values(name, z0[:BLOCK], x, old, z[:BLOCK], mask)
    assert_bits_equal(buf[[0, -1]], poisoned(2, dtype))


# ---------------------------------------------------------------------------------------------


@triton.jit
def _neg_zero_kernel(X, ZMAX, ZMIN):
    pid = tl.program_id(0)
    x = tl.load(X + pid)
    tl.atomic_max(ZMAX + pid, x)
    tl.atomic_min(ZMIN + pid, x)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_atomic_min_max_negative_zero(dtype, path):
    n = 4
    x = np.full(n, -0.0, dtype)
    zmax = np.full(n, np.finfo(dtype).min, dtype)
    zmin = np.full(n, np.finfo(dtype).max, dtype)
    k = _neg_zero_kernel[(n,)](x, zmax, zmin)
    assert k.metadata.path == path  # Tile IR: integer atomics on the bits, no fallback
    assert_bits_equal(zmax, x)
    assert_bits_equal(zmin, x)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_atomic_float_max_min_mixed_signs(dtype, rng):
    """Float atomic max/min over positive and negative values from many programs."""
    x = numpy_random((NPROG, BLOCK), dtype, rng)
    zmax = np.full(BLOCK, np.finfo(dtype).min, dtype)
    zmin = np.full(BLOCK, np.finfo(dtype).max, dtype)
    for op, z in (("max", zmax), ("min", zmin)):
        _launch(op, dtype, x, z)
    assert_equal(zmax, x.max(0))
    assert_equal(zmin, x.min(0))


@triton.jit
def _atomic_add_kernel(Z, X, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_add(Z + offs, tl.load(X + offs))


@pytest.mark.parametrize("dtype", ["int8", "int16", "uint8", "float8e4nv", "float8e5"])
def test_atomic_unsupported_type(dtype, rng):
    """As Triton: atomics on elements narrower than 16 bits (fp8 too) or on 16-bit integers
    are a compile error (a TritonError), not an executor failure at launch."""
    if dtype.startswith("float8"):
        x = triton.reinterpret(np.full(16, 0x38, np.uint8), tl_dtype(dtype))
        z = triton.reinterpret(np.zeros(16, np.uint8), tl_dtype(dtype))
    else:
        x, z = numpy_random(16, dtype, rng), np.zeros(16, dtype)
    with pytest.raises(triton.CompilationError, match="does not support"):
        _atomic_add_kernel[(1,)](z, x, BLOCK=16)

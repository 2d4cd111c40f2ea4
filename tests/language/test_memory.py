"""Loads and stores: masks with and without `other`, scalar pointers, constants, strided and
non-contiguous arrays, gather/scatter, aliasing, pointer arithmetic, cache hints."""

import numpy as np
import pytest
from tt_utils import (
    assert_close,
    assert_equal,
    cdiv,
    is_float,
    np_dtype,
    numpy_random,
    param_dtypes,
    poisoned,
)

import triton_tile as triton
import triton_tile.language as tl


def _check(out, ref):
    if out.dtype.kind == "f" or out.dtype.name in ("bfloat16",):
        assert_close(out, ref, rtol=0)
    else:
        assert_equal(out, ref)


# ---------------------------------------------------------------------------------------------
# vector add: the smallest end-to-end kernel


@triton.jit
def _add_kernel(X, Y, Z, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    y = tl.load(Y + offs, mask=mask)
    tl.store(Z + offs, x + y, mask=mask)


@pytest.mark.parametrize("n", [1, 1000, 4096])
def test_vector_add(n, rng):
    x, y = numpy_random(n, "float32", rng), numpy_random(n, "float32", rng)
    z = poisoned(n, "float32")
    _add_kernel[(cdiv(n, 256),)](x, y, z, n, BLOCK=256)
    assert_close(z, (x.astype(np.float64) + y).astype(np.float32), rtol=0)


def test_vector_add_grid_callable(rng):
    n = 1000
    x, y = numpy_random(n, "float32", rng), numpy_random(n, "float32", rng)
    z = poisoned(n, "float32")
    _add_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, z, n, BLOCK=128)
    assert_close(z, x + y, rtol=0)


# ---------------------------------------------------------------------------------------------
# masked loads


@triton.jit
def _masked_load_kernel(X, Z_OTHER, Z_MASKED, n, OTHER: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(Z_OTHER + offs, tl.load(X + offs, mask=mask, other=OTHER))  # every lane
    tl.store(Z_MASKED + offs, tl.load(X + offs, mask=mask), mask=mask)


@pytest.mark.parametrize("n", [1, 37, 1000])
@pytest.mark.parametrize("dtype, other", param_dtypes(("int8", -7), ("int32", 12345),
                                                      ("int64", -(2**40)), ("float16", 1.5),
                                                      ("bfloat16", -2.0), ("float32", -0.25),
                                                      ("float64", 3.5), ("bool", True)))
def test_masked_load(dtype, other, n, rng):
    block = 128
    grid = cdiv(n, block)
    x = numpy_random(n, dtype, rng)  # exactly n elements: lanes past n must not be read
    z_other = poisoned(grid * block, dtype)
    z_masked = poisoned(grid * block, dtype)
    _masked_load_kernel[(grid,)](x, z_other, z_masked, n, OTHER=other, BLOCK=block)
    ref = np.full(grid * block, other).astype(np_dtype(dtype))
    ref[:n] = x
    _check(z_other, ref)
    _check(z_masked[:n], x)
    # lanes past n were never stored
    if is_float(dtype):
        assert np.isnan(z_masked[n:].astype(np.float64)).all()
    else:
        assert (z_masked[n:].view(np.uint8) == 0x5A).all()


@triton.jit
def _masked_scalar_load_kernel(X, Z, n, OTHER: tl.constexpr):
    pid = tl.program_id(0)
    x = tl.load(X + pid, mask=pid < n, other=OTHER)
    tl.store(Z + pid, x)


def test_masked_scalar_load(rng):
    n, grid = 5, 9
    x = numpy_random(n, "float32", rng)
    z = poisoned(grid, "float32")
    _masked_scalar_load_kernel[(grid,)](x, z, n, OTHER=-1.25)
    assert_close(z, np.concatenate([x, np.full(grid - n, -1.25)]), rtol=0)


@triton.jit
def _load_scalar_with_mask_kernel(X, Z, flag, k):
    v = tl.load(X + k, mask=flag != 0, other=0.5)
    tl.store(Z, v)
    tl.store(Z + 1, tl.load(X))
    tl.store(Z + 2 + k, v * 2)


@pytest.mark.parametrize("flag", [0, 3])
def test_scalar_pointer_load_store(flag, rng):
    x = numpy_random(10, "float32", rng)
    z = poisoned(12, "float32")
    k = 7
    _load_scalar_with_mask_kernel[(1,)](x, z, flag, k)
    v = x[k] if flag else np.float32(0.5)
    assert_close(z[:2], [v, x[0]], rtol=0)
    assert_close(z[2 + k], v * 2, rtol=0)
    others = np.delete(np.arange(2, 12), k)
    assert np.isnan(z[others]).all()


# ---------------------------------------------------------------------------------------------
# constants


@triton.jit
def _store_constant_kernel(ZF, ZI, ZB, n, VALUE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(ZF + offs, VALUE, mask=mask)
    tl.store(ZI + offs, 7, mask=mask)
    tl.store(ZB + offs, True, mask=mask)
    tl.store(ZF + n + offs, tl.full((BLOCK,), -3.5, tl.float32), mask=mask)


def test_store_constant():
    n = 300
    zf, zi, zb = poisoned(2 * n, "float16"), poisoned(n, "int64"), poisoned(n, "bool")
    _store_constant_kernel[(cdiv(n, 128),)](zf, zi, zb, n, VALUE=0.75, BLOCK=128)
    assert_close(zf, np.concatenate([np.full(n, 0.75), np.full(n, -3.5)]), rtol=0)
    assert_equal(zi, np.full(n, 7, dtype=np.int64))
    assert_equal(zb, np.ones(n, dtype=bool))


# ---------------------------------------------------------------------------------------------
# strides and non-contiguous arrays


@triton.jit
def _strided_kernel(X, Z, n, SX: tl.constexpr, SZ: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs * SX, mask=mask)
    tl.store(Z + offs * SZ, x, mask=mask)


@pytest.mark.parametrize("sx, sz", [(3, 1), (1, 2), (4, 3)])
def test_strided_load_store(sx, sz, rng):
    n = 50
    x = numpy_random(n * sx, "int32", rng)
    z = poisoned(n * sz, "int32")
    _strided_kernel[(1,)](x, z, n, SX=sx, SZ=sz, BLOCK=64)
    assert_equal(z[::sz], x[::sx][:n])
    if sz > 1:
        assert (z.reshape(-1, sz)[:, 1:].view(np.uint8) == 0x5A).all()


@triton.jit
def _copy2d_kernel(X, Z, M, N, sxm, sxn, szm, szn, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(X + rm[:, None] * sxm + rn[None, :] * sxn, mask=mask)
    tl.store(Z + rm[:, None] * szm + rn[None, :] * szn, x, mask=mask)


def _strides(a):
    return [s // a.itemsize for s in a.strides]


@pytest.mark.parametrize("view", ["slice", "transpose", "reversed", "broadcast"])
def test_non_contiguous_arrays(view, rng):
    """Kernels receive the address of the first element of a numpy view and walk it with the
    view's strides (which may be > the row length, transposed, negative or zero)."""
    base = numpy_random((40, 90), "float32", rng)
    if view == "slice":
        x = base[1::2, 3::4]
    elif view == "transpose":
        x = base[:37, :45].T
    elif view == "reversed":
        x = base[::-1, ::-2]
    else:
        x = np.broadcast_to(base[5, :45], (37, 45))
    m, n = x.shape
    z = poisoned((n, m), "float32")  # written transposed: a non-contiguous store
    zt = z.T
    _copy2d_kernel[(cdiv(m, 16), cdiv(n, 32))](x, zt, m, n, *_strides(x), *_strides(zt),
                                               BM=16, BN=32)
    assert_close(z, x.T, rtol=0)


# ---------------------------------------------------------------------------------------------
# gather / scatter through loaded indices


@triton.jit
def _indirect_kernel(X, IDX, Z_GATHER, Z_SCATTER, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    idx = tl.load(IDX + offs, mask=mask)
    tl.store(Z_GATHER + offs, tl.load(X + idx, mask=mask), mask=mask)
    tl.store(Z_SCATTER + idx, tl.load(X + offs, mask=mask), mask=mask)


@pytest.mark.parametrize("idx_dtype", ["int32", "int64", "uint16"])
def test_indirect_load_store(idx_dtype, rng):
    n = 300
    x = numpy_random(n, "float64", rng)
    perm = rng.permutation(n).astype(idx_dtype)
    zg, zs = poisoned(n, "float64"), poisoned(n, "float64")
    _indirect_kernel[(cdiv(n, 128),)](x, perm, zg, zs, n, BLOCK=128)
    assert_close(zg, x[perm], rtol=0)
    ref = np.empty_like(x)
    ref[perm] = x
    assert_close(zs, ref, rtol=0)


def test_gather_with_repeated_indices(rng):
    n = 300
    x = numpy_random(n, "int16", rng)
    idx = rng.integers(0, 10, size=n).astype(np.int32)  # many repeats
    zg, zs = poisoned(n, "int16"), poisoned(n, "int16")
    _indirect_kernel[(cdiv(n, 128),)](x, idx, zg, zs, n, BLOCK=128)
    assert_equal(zg, x[idx])


# ---------------------------------------------------------------------------------------------
# aliasing and program order


@triton.jit
def _alias_kernel(X, Y, Z, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    tl.store(Y + offs, x * 2 + 1, mask=mask)
    # when X and Y are the same array, this load must see the store above
    tl.store(Z + offs, tl.load(X + offs, mask=mask), mask=mask)


def test_aliasing_same_array_twice(rng):
    n = 300
    x = numpy_random(n, "int32", rng, low=-1000, high=1000)
    a = x.copy()
    z = poisoned(n, "int32")
    _alias_kernel[(cdiv(n, 128),)](a, a, z, n, BLOCK=128)
    assert_equal(a, x * 2 + 1)
    assert_equal(z, x * 2 + 1)


def test_aliased_arguments_are_one_buffer_for_the_tile_tokens(rng, path, monkeypatch):
    """The same array passed twice is specialized as one alias class: on the Tile path its
    accesses are ordered by tokens (the race checker would report them otherwise)."""
    monkeypatch.setenv("TRITON_TILE_CHECK", "1")
    n = 300
    x = numpy_random(n, "int32", rng, low=-1000, high=1000)
    a, z = x.copy(), poisoned(n, "int32")
    k = _alias_kernel[(cdiv(n, 128),)](a, a, z, n, BLOCK=128)
    assert_equal(z, x * 2 + 1)
    if path == "tile":
        assert k.metadata.path == "tile"
        # the conversion saw X and Y as one buffer: the second load waits on the store
        assert "token=" in k.asm["tileir"].split("store_view_tko")[1]


@triton.jit
def _stencil_kernel(X, Y, n_rows, n_cols, SHIFT_R: tl.constexpr, SHIFT_C: tl.constexpr,
                    ROWS: tl.constexpr, COLS: tl.constexpr):
    # y[r, c] = x[r + SHIFT_R, c + SHIFT_C] inside x, 0 outside: each dimension of the load
    # is tested on both sides, as a stencil or a convolution's padding tests it
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    c = tl.program_id(1) * COLS + tl.arange(0, COLS)
    sr, sc = r + SHIFT_R, c + SHIFT_C
    # the tests as users spell them: `>=`, `>`, the index on either side, `<` and `<=`
    keep = (sr[:, None] >= 0) & (sr[:, None] < n_rows) & (-1 < sc[None, :]) & (
        sc[None, :] <= n_cols - 1)
    x = tl.load(X + sr[:, None] * n_cols + sc[None, :], mask=keep, other=0.0)
    inside = (r[:, None] < n_rows) & (c[None, :] < n_cols)
    tl.store(Y + r[:, None] * n_cols + c[None, :], x, mask=inside)


@triton.jit
def _shifted_store_kernel(X, Y, n, SHIFT: tl.constexpr, BLOCK: tl.constexpr):
    # y[i + SHIFT] = x[i] (7 past x) where i + SHIFT lies in y: the store's lanes tested on
    # both sides
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + i, mask=i < n, other=7.0)
    j = i + SHIFT
    tl.store(Y + j, x, mask=(j > -1) & (n > j))


@pytest.mark.parametrize("shift_r, shift_c", [(-1, -1), (2, -3), (0, 1), (-5, 0)])
@pytest.mark.parametrize("n_rows, n_cols", [(37, 45), (64, 64), (3, 130)])
def test_accesses_tested_on_both_sides(shift_r, shift_c, n_rows, n_cols, rng, path):
    """Masks that test an access's lanes from below (`idx >= 0`, `idx > -1`) as well as from
    above, spelled every way: correct on every path. On the Tile path such a load or store
    stays a gather (faster on the GPU than a view behind a branch, raise_views.cpp), and the
    accesses tested from above only are views."""
    rows, cols = 16, 32
    x = numpy_random((n_rows, n_cols), "float32", rng)
    y = poisoned((n_rows, n_cols), "float32")
    k = _stencil_kernel[(cdiv(n_rows, rows), cdiv(n_cols, cols))](
        x, y, n_rows, n_cols, SHIFT_R=shift_r, SHIFT_C=shift_c, ROWS=rows, COLS=cols)
    ref = np.zeros((n_rows, n_cols), np.float32)
    r0, r1 = max(0, -shift_r), min(n_rows, n_rows - shift_r)
    c0, c1 = max(0, -shift_c), min(n_cols, n_cols - shift_c)
    ref[r0:r1, c0:c1] = x[r0 + shift_r:r1 + shift_r, c0 + shift_c:c1 + shift_c]
    assert_equal(y, ref)
    if path == "tile":
        assert [(a[2], "lower bound" in a[3]) for a in k.metadata.tile_accesses] == [
            (False, True), (True, False)], k.metadata.tile_accesses
    n, block = n_rows * n_cols, 128
    xs, ys = x.reshape(-1), poisoned(n, "float32")
    k = _shifted_store_kernel[(cdiv(n, block),)](xs, ys, n, SHIFT=shift_c, BLOCK=block)
    ref = np.full(n, np.nan, np.float32)  # never stored: still poisoned
    for i in range(cdiv(n, block) * block):
        if 0 <= i + shift_c < n:
            ref[i + shift_c] = xs[i] if i < n else 7.0
    assert_equal(ys, ref)
    if path == "tile":
        assert [(a[2], "lower bound" in a[3]) for a in k.metadata.tile_accesses] == [
            (True, False), (False, True)], k.metadata.tile_accesses


def test_no_aliasing_reads_original(rng):
    n = 300
    x = numpy_random(n, "int32", rng, low=-1000, high=1000)
    y, z = poisoned(n, "int32"), poisoned(n, "int32")
    _alias_kernel[(cdiv(n, 128),)](x, y, z, n, BLOCK=128)
    assert_equal(y, x * 2 + 1)
    assert_equal(z, x)


@triton.jit
def _double_in_place_kernel(P):
    pid = tl.program_id(0)
    tl.store(P + pid, tl.load(P + pid) * 2)


def test_load_store_same_pointer(rng):
    x = numpy_random(100, "float32", rng)
    a = x.copy()
    for _ in range(10):
        _double_in_place_kernel[(100,)](a)
    assert_close(a, x * 1024, rtol=0)


@triton.jit
def _shift_in_place_kernel(P, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n - 1
    v = tl.load(P + offs + 1, mask=mask)  # read everything first ...
    tl.store(P + offs, v, mask=mask)      # ... then overwrite: a block is one operation


def test_overlapping_read_then_write_in_one_block(rng):
    n = 100
    x = numpy_random(n, "int64", rng)
    a = x.copy()
    _shift_in_place_kernel[(1,)](a, n, BLOCK=128)
    assert_equal(a, np.concatenate([x[1:], x[-1:]]))


# ---------------------------------------------------------------------------------------------
# pointer arithmetic


@triton.jit
def _addptr_kernel(X, OFFS, Z, n, BASE: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    mask = i < n
    o = tl.load(OFFS + i, mask=mask)
    p = X + BASE
    a = tl.load(p + o, mask=mask)
    b = tl.load(o + p, mask=mask)  # int + pointer
    q = p + o
    c = tl.load(q - 0, mask=mask)
    tl.store(Z + i, a, mask=mask)
    tl.store(Z + n + i, b, mask=mask)
    tl.store(Z + 2 * n + i, c, mask=mask)


@pytest.mark.parametrize("offs_dtype", ["int8", "int16", "int32", "int64", "uint8"])
def test_addptr(offs_dtype, rng):
    n, base = 100, 128
    x = numpy_random(256, "float32", rng)
    lo = -base if np.dtype(offs_dtype).kind == "i" else 0
    offs = rng.integers(lo, 127, size=n).astype(offs_dtype)
    z = poisoned(3 * n, "float32")
    _addptr_kernel[(1,)](x, offs, z, n, BASE=base, BLOCK=128)
    ref = x[base + offs.astype(np.int64)]
    assert_close(z, np.concatenate([ref, ref, ref]), rtol=0)


# ---------------------------------------------------------------------------------------------
# cache / eviction modifiers and hints: accepted, results unchanged


@triton.jit
def _modifiers_kernel(X, Z, n, LOAD_CM: tl.constexpr, STORE_CM: tl.constexpr,
                      EVICT: tl.constexpr, VOLATILE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask, cache_modifier=LOAD_CM, eviction_policy=EVICT,
                volatile=VOLATILE)
    tl.store(Z + offs, x + 1, mask=mask, cache_modifier=STORE_CM, eviction_policy=EVICT)


@pytest.mark.parametrize("load_cm, store_cm, evict, volatile", [
    (".ca", ".wb", "", False), (".cg", ".cg", "evict_first", False),
    (".cv", ".cs", "evict_last", True), ("", ".wt", "", False)])
@pytest.mark.stock_refuses("ptxas: .evict_first cannot be combined with .cg")
def test_cache_and_eviction_modifiers(load_cm, store_cm, evict, volatile, rng):
    n = 300
    x = numpy_random(n, "float32", rng)
    z = poisoned(n, "float32")
    _modifiers_kernel[(cdiv(n, 128),)](x, z, n, LOAD_CM=load_cm, STORE_CM=store_cm,
                                       EVICT=evict, VOLATILE=volatile, BLOCK=128)
    assert_close(z, x + np.float32(1), rtol=0)


@triton.jit
def _volatile_block_kernel(X, Z, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # A volatile load through a block pointer (the Tile path: a relaxed gather, not a view).
    pid = tl.program_id(0)
    bp = tl.make_block_ptr(X, (M, N), (N, 1), (pid * BM, 0), (BM, BN), (1, 0))
    x = tl.load(bp, boundary_check=(0, 1), padding_option="zero", volatile=True)
    zp = tl.make_block_ptr(Z, (M, N), (N, 1), (pid * BM, 0), (BM, BN), (1, 0))
    tl.store(zp, x * 2.0, boundary_check=(0, 1))


def test_volatile_block_pointer_load(rng):
    m, n = 37, 29  # edges in both dimensions
    x = numpy_random((m, n), "float32", rng)
    z = poisoned((m, n), "float32")
    _volatile_block_kernel[(cdiv(m, 16),)](x, z, m, n, BM=16, BN=32)
    assert_close(z, 2.0 * x, rtol=0)


@triton.jit
def _hints_kernel(X, Z, n, BLOCK: tl.constexpr):
    tl.assume(n > 0)
    pid = tl.program_id(0)
    tl.assume(pid >= 0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    offs = tl.max_contiguous(tl.multiple_of(offs, BLOCK), BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    tl.debug_barrier()
    tl.store(Z + offs, x * 3, mask=mask)


def test_hints_are_accepted(rng):
    n = 1000
    x = numpy_random(n, "int32", rng, low=-1000, high=1000)
    z = poisoned(n, "int32")
    _hints_kernel[(cdiv(n, 256),)](x, z, n, BLOCK=256)
    assert_equal(z, x * 3)


@pytest.mark.cpu_only("the CPU executors check the promise; a GPU compile relies on it unchecked")
def test_a_tl_assume_that_does_not_hold_stops_the_kernel(rng):
    """tl.assume is a promise a GPU compile builds on (the Tile path's view planner proves tile
    indices in range with it): n = 0 breaks `n > 0`, and both CPU paths stop with an
    AssertionError naming the line, before the store."""
    x = numpy_random(256, "int32", rng, low=-1000, high=1000)
    z = poisoned(256, "int32")
    with pytest.raises(AssertionError, match=r"test_memory\.py:\d+:\d+: .*tl\.assume's condition "
                                             r"does not hold"):
        _hints_kernel[(1,)](x, z, 0, BLOCK=256)
    assert_equal(z, poisoned(256, "int32"))


@triton.jit
def _multiple_of_kernel(SIZES, X, Z, BLOCK: tl.constexpr):
    n = tl.multiple_of(tl.load(SIZES + tl.program_id(0)), 16)
    offs = tl.arange(0, BLOCK)
    tl.store(Z + offs, tl.load(X + offs, mask=offs < n, other=0), mask=offs < n)


@pytest.mark.cpu_only("the CPU executors check the promise; a GPU compile relies on it unchecked")
def test_a_multiple_of_that_does_not_hold_stops_the_kernel(rng):
    """tl.multiple_of on a scalar is a promise a GPU compile builds vector and TMA accesses on:
    a value that breaks it stops the kernel with an AssertionError naming the line and the
    value (before, both CPU paths ran it correctly, and a GPU could not); one that keeps it
    runs."""
    x = numpy_random(64, "int32", rng, low=-1000, high=1000)
    z = poisoned(64, "int32")
    _multiple_of_kernel[(1,)](np.array([32], np.int32), x, z, BLOCK=64)
    assert_equal(z[:32], x[:32])
    with pytest.raises(AssertionError, match=r"test_memory\.py:\d+:\d+: the kernel assumes this "
                                             r"integer is a multiple of 16, but it is 33 "):
        _multiple_of_kernel[(1,)](np.array([33], np.int32), x, z, BLOCK=64)


# ---------------------------------------------------------------------------------------------
# pointers loaded from memory (tutorial 08 style), torch tensors


@triton.jit
def _pointer_table_kernel(TABLE, SIZES, Z, BLOCK: tl.constexpr):
    g = tl.program_id(0)
    src = tl.load(TABLE + g).to(tl.pointer_type(tl.float32))
    n = tl.load(SIZES + g)
    offs = tl.arange(0, BLOCK)
    x = tl.load(src + offs, mask=offs < n, other=0.0)
    tl.store(Z + g * BLOCK + offs, x * 2)


@pytest.mark.cpu_only("the pointer table holds host addresses")
def test_pointers_loaded_from_memory(rng):
    """A table of addresses (as int64) turned back into pointers: the arrays themselves are
    not kernel arguments, as in grouped GEMM."""
    block = 64
    arrays = [numpy_random(s, "float32", rng) for s in (64, 17, 40)]
    table = np.array([a.ctypes.data for a in arrays], dtype=np.int64)
    sizes = np.array([a.size for a in arrays], dtype=np.int32)
    z = poisoned((3, block), "float32")
    _pointer_table_kernel[(3,)](table, sizes, z, BLOCK=block)
    for g, a in enumerate(arrays):
        ref = np.zeros(block, np.float32)
        ref[:a.size] = a * 2
        assert_close(z[g], ref, rtol=0)


@pytest.mark.cpu_only("the CPU executors' bounds check")
def test_wild_pointer_loaded_from_memory_raises(rng):
    """A table entry that is no address the process may access: IndexError naming the kernel
    and the line, not a crash (nothing is written before it: the output stays poisoned)."""
    block = 64
    good = numpy_random(64, "float32", rng)
    unmapped = 0x10  # the first page is never mapped
    for entries in ([good.ctypes.data, unmapped], [unmapped, good.ctypes.data]):
        table = np.array(entries, dtype=np.int64)
        sizes = np.array([64, 64], dtype=np.int32)
        z = poisoned((2, block), "float32")
        with pytest.raises(IndexError, match=r"_pointer_table_kernel.*test_memory.py:\d+.*"
                                             r"not memory the process may access"):
            _pointer_table_kernel[(2,)](table, sizes, z, BLOCK=block)
        bad = entries.index(unmapped)
        assert np.isnan(z[bad]).all()


@triton.jit
def _pointer_store_kernel(TABLE, BLOCK: tl.constexpr):
    dst = tl.load(TABLE + tl.program_id(0)).to(tl.pointer_type(tl.float32))
    offs = tl.arange(0, BLOCK)
    tl.store(dst + offs, offs.to(tl.float32))


@pytest.mark.cpu_only("the CPU executors' read-only check")
def test_store_through_a_pointer_to_read_only_memory_raises():
    """Stores need writable memory: a read-only mapping (a bytes object's buffer may not be
    one; an mmap'd read-only page is) raises instead of crashing."""
    import mmap

    page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ)
    addr = np.frombuffer(page, dtype=np.uint8).ctypes.data
    table = np.array([addr], dtype=np.int64)
    with pytest.raises(IndexError, match="out-of-bounds store.*not memory the process may"):
        _pointer_store_kernel[(1,)](table, BLOCK=64)
    writable = np.zeros(64, np.float32)
    _pointer_store_kernel[(1,)](np.array([writable.ctypes.data], dtype=np.int64), BLOCK=64)
    assert_close(writable, np.arange(64, dtype=np.float32), rtol=0)


def test_torch_cpu_tensors(rng):
    torch = pytest.importorskip("torch")
    n = 1000
    x = torch.from_numpy(numpy_random(n, "float32", rng))
    y = torch.from_numpy(numpy_random(n, "float32", rng))
    z = torch.full((n,), float("nan"))
    _add_kernel[(cdiv(n, 256),)](x, y, z, n, BLOCK=256)
    assert_close(z.numpy(), (x + y).numpy(), rtol=0)
    xb = torch.randn(n, generator=torch.Generator().manual_seed(0)).to(torch.bfloat16)
    zb = torch.full((n,), float("nan"), dtype=torch.bfloat16)
    _add_kernel[(cdiv(n, 256),)](xb, xb, zb, n, BLOCK=256)
    assert torch.equal(zb, xb + xb)


# ---------------------------------------------------------------------------------------------
# tl.const: read-only pointer parameters


@triton.jit
def _const_copy_kernel(X: tl.const, Z, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.static_assert(X.dtype.is_const())
    tl.static_assert(not Z.dtype.is_const())
    tl.store(Z + offs, tl.load(X + offs, mask=offs < n, other=0) * 2, mask=offs < n)


@triton.jit
def _const_store_kernel(X: tl.const, n):
    tl.store(X + tl.arange(0, 16), 1.0)


@triton.jit
def _const_mix_kernel(X: tl.const, Z, c):
    p = X if c > 0 else Z  # a const and a non-const pointer do not mix
    tl.store(Z, tl.load(p))


def test_const_pointer_parameter(rng):
    """`p: tl.const` makes the parameter a const pointer: loads work, stores through it and
    mixing it with a non-const pointer are compile errors (upstream's test_const)."""
    x = numpy_random(16, "float32", rng)
    z = poisoned(16, "float32")
    _const_copy_kernel[(1,)](x, z, 13, BLOCK=16)
    assert_close(z[:13], x[:13] * 2, rtol=0)
    with pytest.raises(triton.CompilationError, match="Cannot store to a constant pointer"):
        _const_store_kernel[(1,)](x, 16)
    with pytest.raises(triton.CompilationError, match="inconsistent type"):
        _const_mix_kernel[(1,)](x, z, 5)  # 5: a run-time i32, so the ternary is dynamic


@triton.jit
def _rows_from_a_table_kernel(PTRS, ROWS, LD, OUT, n, K_STEPS, BM: tl.constexpr,
                              BK: tl.constexpr):
    """Problem g: rows ROWS[g] * BM .. + BM of the matrix at PTRS[g] (LD elements apart; the
    row may be negative: the pointer is into the middle of the array) doubled into block g of
    OUT, BK columns at a time, and row ROWS[g] alone (a one-dimensional tile) into row g of the
    matrix after OUT's blocks."""
    for g in range(n):
        p = tl.load(PTRS + g).to(tl.pointer_type(tl.float32))
        row = tl.load(ROWS + g)
        rm = row * BM + tl.arange(0, BM)
        om = g * BM + tl.arange(0, BM)
        for kb in range(0, K_STEPS):
            rk = kb * BK + tl.arange(0, BK)
            x = tl.load(p + rm[:, None] * LD + rk[None, :])
            tl.store(OUT + om[:, None] * (K_STEPS * BK) + rk[None, :], x * 2)
            v = tl.load(p + row * LD + rk)
            tl.store(OUT + (n * BM + g) * (K_STEPS * BK) + rk, v)


@pytest.mark.cpu_only("the pointer table holds host addresses")
@pytest.mark.parametrize("raise_views", ["auto", "all"])
def test_rows_read_from_a_table_any_sign(raise_views, rng, monkeypatch):
    """Unmasked loads and stores at rows read from memory, some negative (before the pointer,
    inside the array), in a loop: on the Tile path the views made per problem start at the row
    (index_views.h folds it into the base; with raise_views=all the one-dimensional tiles too,
    their row dimension dropped). Against numpy, outputs poisoned."""
    monkeypatch.setenv("TRITON_TILE_RAISE_VIEWS", raise_views)
    bm, bk, k_steps = 8, 16, 3
    a = numpy_random((12 * bm, k_steps * bk), "float32", rng)
    mid = a[6 * bm:]  # rows -6 * bm .. 6 * bm - 1 around the pointer
    rows = np.array([-6, 0, 3, -1, 5], np.int32)
    ptrs = np.full(len(rows), mid.ctypes.data, np.int64)
    n = len(rows)
    out = poisoned((2 * n * bm, k_steps * bk), "float32")
    out = out[: n * bm + n]
    _rows_from_a_table_kernel[(1,)](ptrs, rows, a.shape[1], out, n, k_steps, BM=bm, BK=bk)
    ref = np.concatenate([2 * a[6 * bm + r * bm: 6 * bm + (r + 1) * bm] for r in rows]
                         + [a[6 * bm + rows]])
    assert_equal(out, ref)

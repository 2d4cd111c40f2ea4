"""A deferred dot's last GEMM run by the store of its accumulator (csrc/exec/compiler/forward.cpp,
"fused stores"; csrc/exec/kernels/dot_store.h): on the CPU the last K steps of a matmul's loop
wait for `tl.store(C, acc)`, whose GEMM writes C's rows itself.

Results are numpy's in float64 on both CPU paths for whole and partial tiles, for K loops of one
step, of exactly one chain of steps, of a chain and one more, of a masked last step and of none;
and the plans (the notes) say which kernels fuse. Kernels that read the accumulator again, store
it twice or write memory between the loop and the store keep the flush after the loop, and a
program whose store is skipped leaves no steps for the next program on its thread. A store over
the rows the steps read (C = C @ W in place) waits for them, and a reader the TTIR executor runs
inside a loop's kernel (a yield) keeps the flush there.
"""

import re

import numpy as np
import pytest
from tt_utils import assert_close, capture_plan_notes, numpy_random, poisoned, to_f64

import triton_tile as triton
import triton_tile.language as tl


@triton.jit
def _matmul(A, B, C, M, N, K, KIND: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
            BK: tl.constexpr, HOLE: tl.constexpr = -1):
    # C = A @ B; "twice" also stores it to C's second half; "scaled" stores 2 * acc;
    # "zero_a" zeroes this program's rows of A after the loop, before the store; "short" stores
    # all but C's last 3 rows (whole tiles to load, a partial one to store); "yield": programs
    # off C's first column of tiles hand the accumulator through a loop first; "hole" reads
    # A's column HOLE as zeros (the step that holds it copies A into its register).
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        kk = k0 + rk
        a_mask = (rm[:, None] < M) & (kk[None, :] < K)
        if KIND == "hole":
            a_mask = a_mask & (kk[None, :] != HOLE)
        a = tl.load(A + rm[:, None] * K + kk[None, :], mask=a_mask, other=0.0)
        b = tl.load(B + kk[:, None] * N + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N),
                    other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    mask = (rm[:, None] < M - 3 * (KIND == "short")) & (rn[None, :] < N)
    if KIND == "zero_a":
        for k0 in range(0, K, BK):
            kk = k0 + rk
            tl.store(A + rm[:, None] * K + kk[None, :], tl.zeros((BM, BK), dtype=tl.float32),
                     mask=(rm[:, None] < M) & (kk[None, :] < K))
    if KIND == "scaled":
        tl.store(C + rm[:, None] * N + rn[None, :], acc * 2.0, mask=mask)
    elif KIND == "yield" and pid_n > 0:  # handed through a loop's yield first (a terminator)
        x = tl.zeros((BM, BN), dtype=tl.float32)
        for _ in range(0, K, BK):
            x = acc
        tl.store(C + rm[:, None] * N + rn[None, :], x, mask=mask)
    else:
        tl.store(C + rm[:, None] * N + rn[None, :], acc, mask=mask)
    if KIND == "twice":
        tl.store(C + (rm[:, None] + M) * N + rn[None, :], acc, mask=mask)


@triton.jit
def _block_ptrs(A, B, C, M, N, K, MC, SHIFT, BM: tl.constexpr, BN: tl.constexpr,
                BK: tl.constexpr):
    # C[:MC] = (A @ B)[SHIFT:SHIFT + MC] through block pointers: C's is MC rows tall and SHIFT
    # rows up (its first program's tile starts above C).
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    a_bp = tl.make_block_ptr(A, (M, K), (K, 1), (pid_m * BM, 0), (BM, BK), (1, 0))
    b_bp = tl.make_block_ptr(B, (K, N), (N, 1), (0, pid_n * BN), (BK, BN), (1, 0))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_bp, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_bp, boundary_check=(0, 1), padding_option="zero")
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_bp = tl.advance(a_bp, (0, BK))
        b_bp = tl.advance(b_bp, (BK, 0))
    c_bp = tl.make_block_ptr(C, (MC, N), (N, 1), (pid_m * BM - SHIFT, pid_n * BN), (BM, BN),
                             (1, 0))
    tl.store(c_bp, acc, boundary_check=(0, 1))


@triton.jit
def _loop_in_some_programs(A, B, C, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # C's row tiles: program 0 runs the K loop (its last steps wait for the store) and skips
    # the store; program 1 skips the loop and stores zeros; program 2 does both. Run by one
    # thread in turn, program 1 must not take program 0's waiting steps (forward.cpp: the Tile
    # path drops them before the `if` around the loop).
    pid = tl.program_id(0)
    rm = pid * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    if pid != 1:
        for k0 in range(0, K, BK):
            a = tl.load(A + rm[:, None] * K + (k0 + rk)[None, :])
            b = tl.load(B + (k0 + rk)[:, None] * N + rn[None, :])
            acc = tl.dot(a, b, acc, input_precision="ieee")
    if pid > 0:
        tl.store(C + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def _in_place(X, W, N: tl.constexpr, BM: tl.constexpr, BK: tl.constexpr, A_IS_X: tl.constexpr):
    # A_IS_X: X[rows] = X[rows] @ W, each program its own rows of X (A's rows are C's);
    # else X = W @ X by one program (B's whole rows, read in place, are C's). On a GPU every
    # load comes before the store.
    pid = tl.program_id(0)
    rm = pid * BM + tl.arange(0, BM)
    rn = tl.arange(0, N)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, N), dtype=tl.float32)
    for k0 in range(0, N, BK):
        if A_IS_X:
            a = tl.load(X + rm[:, None] * N + (k0 + rk)[None, :])
            b = tl.load(W + (k0 + rk)[:, None] * N + rn[None, :])
        else:
            a = tl.load(W + rm[:, None] * N + (k0 + rk)[None, :])
            b = tl.load(X + (k0 + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(X + rm[:, None] * N + rn[None, :], acc)


@pytest.fixture
def notes(monkeypatch, request):
    """The executor programs' plan notes of the kernels prepared during the test (CPU only)."""
    kernels = (_matmul, _block_ptrs, _loop_in_some_programs, _in_place)
    return capture_plan_notes(request, monkeypatch, kernels)


def _fused(seen):
    """How many deferred dots each prepared program has its store run (forward.cpp's note)."""
    counts = []
    for text in seen:
        found = re.search(r"\((\d+) run by the store of their accumulator\)", text)
        counts.append(int(found.group(1)) if found else 0)
    return counts


def _run(m, n, k, kind="plain", *, bm=32, bn=32, bk=16, hole=-1, enable_tile, rng):
    a = numpy_random((m, k), "float32", rng)
    b = numpy_random((k, n), "float32", rng)
    a_read = to_f64(a)
    if hole >= 0:
        a_read[:, hole] = 0.0
    ref = a_read @ to_f64(b)
    c = poisoned((2 * m if kind == "twice" else m, n), "float32")
    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))
    _matmul[grid](a, b, c, m, n, k, KIND=kind, BM=bm, BN=bn, BK=bk, HOLE=hole,
                  enable_tile=enable_tile)
    return ref, c


# K steps of BLOCK_K 16 (a chain of 8, gemm.h): 1; exactly a chain (all 8 wait for the store); a
# chain and one more; a masked last step (copied: it waits in the dot's own room); none. Whole
# tiles and partial ones (the Tile path's partial store reads the accumulator in slices, after a
# flush).
@pytest.mark.parametrize("k", [16, 128, 144, 45, 0])
@pytest.mark.parametrize("m, n", [(64, 64), (70, 50)])
@pytest.mark.parametrize("enable_tile", [False, True])
def test_the_store_runs_the_last_steps(m, n, k, enable_tile, notes, rng):
    ref, c = _run(m, n, k, enable_tile=enable_tile, rng=rng)
    assert_close(c, ref, rtol=1e-5, atol=1e-4)
    assert _fused(notes) and min(_fused(notes)) >= 1, notes


# A step whose A was copied into its register (a masked lane) waits in the dot's own room
# (dot.cpp, dotDeferK), one at a time, of BLOCK_K 16 in chains of 8: the hole in the first of
# three steps, whose last (partial) one is copied too and so runs them all; in the middle of a
# chain that runs before the store; in the last step, which the store runs. Partial tiles copy
# every step: their programs hold none after the first.
@pytest.mark.parametrize("k, hole", [(45, 3), (45, 20), (144, 70), (160, 150)])
@pytest.mark.parametrize("m, n", [(64, 64), (70, 50)])
@pytest.mark.parametrize("enable_tile", [False, True])
def test_copied_steps_wait_in_the_dots_room(m, n, k, hole, enable_tile, notes, rng):
    ref, c = _run(m, n, k, "hole", hole=hole, enable_tile=enable_tile, rng=rng)
    assert_close(c, ref, rtol=1e-5, atol=1e-4)
    assert _fused(notes) and min(_fused(notes)) >= 1, notes


@pytest.mark.parametrize("enable_tile", [False, True])
def test_a_partial_store_of_whole_tiles(enable_tile, notes, rng):
    # The K loop runs on whole tiles, so its last steps wait; the last row tile's store is
    # partial, and runs them into the accumulator first (the Tile path reads it in slices).
    ref, c = _run(64, 64, 128, "short", enable_tile=enable_tile, rng=rng)
    assert_close(c[:61], ref[:61], rtol=1e-5, atol=1e-4)
    assert np.isnan(c[61:]).all()
    assert _fused(notes) and min(_fused(notes)) >= 1, notes


@pytest.mark.parametrize("mc, shift", [(64, 0), (61, 0), (56, 8)])
@pytest.mark.parametrize("enable_tile", [False, True])
def test_block_pointers(mc, shift, enable_tile, notes, rng):
    # With C shorter than A (61 rows) the last row tile's store is partial while its loads are
    # whole; with C's tiles 8 rows up the first one starts above C, and the Tile path stores it
    # in slices of the accumulator, which the waiting steps must reach first.
    m, n, k = 64, 64, 128
    a = numpy_random((m, k), "float32", rng)
    b = numpy_random((k, n), "float32", rng)
    c = poisoned((m, n), "float32")
    _block_ptrs[(m // 32, n // 32)](a, b, c, m, n, k, mc, shift, BM=32, BN=32, BK=16,
                                    enable_tile=enable_tile)
    assert_close(c[:mc], (to_f64(a) @ to_f64(b))[shift:shift + mc], rtol=1e-5, atol=1e-4)
    assert np.isnan(c[mc:]).all()
    assert _fused(notes) and min(_fused(notes)) >= 1, notes


@pytest.mark.parametrize("enable_tile", [False, True])
def test_wide_tiles_of_f32(enable_tile, notes, rng):
    # 64-wide rows of BLOCK_K 64 (a chain of 4), the benchmark's shape, at a size of several
    # chains per tile.
    ref, c = _run(128, 192, 320, bm=64, bn=64, bk=64, enable_tile=enable_tile, rng=rng)
    assert_close(c, ref, rtol=1e-5, atol=1e-4)
    assert _fused(notes) and min(_fused(notes)) >= 1, notes


@pytest.mark.parametrize("kind", ["scaled", "twice", "zero_a"])
@pytest.mark.parametrize("enable_tile", [False, True])
def test_other_readers_and_writes_keep_the_flush(kind, enable_tile, notes, rng):
    m, n, k = 64, 64, 128
    a = numpy_random((m, k), "float32", rng)
    b = numpy_random((k, n), "float32", rng)
    ref = to_f64(a) @ to_f64(b)
    c = poisoned((2 * m if kind == "twice" else m, n), "float32")
    # One column of programs: a program's rows of A are its own to zero.
    _matmul[(m // 32, 1)](a, b, c, m, n, k, KIND=kind, BM=32, BN=n, BK=16,
                          enable_tile=enable_tile)
    assert_close(c[:m], 2.0 * ref if kind == "scaled" else ref, rtol=1e-5, atol=1e-4)
    if kind == "twice":
        assert_close(c[m:], ref, rtol=1e-5, atol=1e-4)
    if kind == "zero_a":
        assert not a.any()
    assert _fused(notes) and max(_fused(notes)) == 0, notes


@pytest.mark.parametrize("enable_tile", [False, True])
def test_a_skipped_store_leaves_no_steps_behind(enable_tile, monkeypatch, notes, rng):
    monkeypatch.setenv("TRITON_TILE_NUM_THREADS", "1")  # programs 0, 1, 2 in turn
    m, n, k = 3 * 32, 32, 128
    a = numpy_random((m, k), "float32", rng)
    b = numpy_random((k, n), "float32", rng)
    c = poisoned((m, n), "float32")
    _loop_in_some_programs[(3,)](a, b, c, n, k, BM=32, BN=n, BK=16, enable_tile=enable_tile)
    assert np.isnan(c[:32]).all()
    assert not c[32:64].any()
    assert_close(c[64:], to_f64(a[64:]) @ to_f64(b), rtol=1e-5, atol=1e-4)
    # (the TTIR executor copies the accumulator out of the `if`: nothing for its store to run)
    assert _fused(notes) == [1 if enable_tile else 0], notes


@pytest.mark.parametrize("a_is_x", [True, False])
@pytest.mark.parametrize("enable_tile", [False, True])
def test_a_store_over_the_operands_waits_for_them(a_is_x, enable_tile, notes, rng):
    # The rows the store writes are the rows the waiting steps read: they run into the
    # accumulator first, and the store writes it after (dot_store.h).
    n, bm = 64, 32 if a_is_x else 64
    x = numpy_random((n, n), "float32", rng)
    w = numpy_random((n, n), "float32", rng)
    ref = to_f64(x) @ to_f64(w) if a_is_x else to_f64(w) @ to_f64(x)
    _in_place[(n // bm,)](x, w, N=n, BM=bm, BK=16, A_IS_X=a_is_x, enable_tile=enable_tile)
    assert_close(x, ref, rtol=1e-5, atol=1e-4)
    assert _fused(notes) and min(_fused(notes)) >= 1, notes


@pytest.mark.parametrize("enable_tile", [False, True])
def test_a_reader_in_a_loop_yield(enable_tile, notes, rng):
    ref, c = _run(64, 64, 128, "yield", enable_tile=enable_tile, rng=rng)
    assert_close(c, ref, rtol=1e-5, atol=1e-4)
    # (the TTIR executor's loop kernel copies the yield, where no flush can go before it; the
    # Tile path emits the yield as an instruction, after one)
    assert _fused(notes) == [1 if enable_tile else 0], notes

"""tl.dot reading its B operand through the tile memo (csrc/exec/compiler/forward.cpp, "memo";
csrc/exec/runtime/tile_memo.h): on the CPU a load read only as a float dot's B keeps its tile in
a per-thread memo for the launch, and later programs that load the same rows read that copy.
Tiles of B here are narrower than B (BN < N): a tile of whole rows is one block of memory, which
the GEMM reads in place instead.

Results are numpy's in float64 for many programs sharing B's tiles, for masked edge tiles, for
more tiles than the memo holds, for B's rows reversed or repeated, at each input precision and
for fp16; a second launch sees B's new values; and a kernel in which a write, an atomic or a
volatile load can precede the load keeps the plain copy (the memo could miss that write).
"""

import re

import numpy as np
import pytest
from tt_utils import (
    assert_close,
    capture_plan_notes,
    no_tf32_ties,
    numpy_random,
    poisoned,
    tf32_round,
    to_f64,
)

import triton_tile as triton
import triton_tile.language as tl


@triton.jit
def _matmul(A, B, C, M, N, K, ldb, B_ROW_STEP: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
            BK: tl.constexpr, PRECISION: tl.constexpr):
    # C[M, N] = A[M, K] @ B'[K, N], B' row k at B + (k * B_ROW_STEP) * ldb (-1: B's rows bottom
    # up from row K - 1; 0: row 0 for every k).
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        kk = k * BK + rk
        if B_ROW_STEP == -1:
            brow = (K - 1 - kk) * ldb
        else:
            brow = kk * B_ROW_STEP * ldb
        a = tl.load(A + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K),
                    other=0.0)
        b = tl.load(B + brow[:, None] + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N),
                    other=0.0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
    tl.store(C + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def _block_ptr_matmul(A, B, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
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
    c_bp = tl.make_block_ptr(C, (M, N), (N, 1), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    tl.store(c_bp, acc, boundary_check=(0, 1))


@triton.jit
def _alternating_pitch(A, B, C, N, K, ldb, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # Programs with an odd pid_m read every second row of B: their tiles start where the even
    # programs' do (the first one at least), with twice the row pitch.
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    pitch = ldb * (1 + pid_m % 2)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(A + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(B + (k0 + rk)[:, None] * pitch + rn[None, :])
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(C + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def _two_dots(A, B1, B2, C, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # C = A @ B1 + A @ B2: two memo loads in one kernel.
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(A + rm[:, None] * K + (k0 + rk)[None, :])
        b1 = tl.load(B1 + (k0 + rk)[:, None] * N + rn[None, :])
        b2 = tl.load(B2 + (k0 + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b1, acc, input_precision="ieee")
        acc = tl.dot(a, b2, acc, input_precision="ieee")
    tl.store(C + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def _guarded(A, B, C, W, F, K, KIND: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
             BK: tl.constexpr):
    # C = A @ B, with something before or beside B's loads that could write what they read:
    # "store" first writes this program's rows of W; "loop_store" writes W in the K loop after
    # the dot; "atomic" counts programs in F first; "volatile" reads F with a volatile load
    # first; "volatile_b" loads B itself volatile; "reader" also reads B's tile elementwise
    # (into W). B's tiles are whole rows here: these check the plan (the notes) and the values.
    pid_m = tl.program_id(0)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    if KIND == "store":
        tl.store(W + rm[:, None] * BN + rn[None, :], tl.full((BM, BN), 1.0, tl.float32))
    if KIND == "atomic":
        tl.atomic_add(F, 1)
    scale = 1.0
    if KIND == "volatile":
        scale = tl.load(F + 1, volatile=True).to(tl.float32) * 0.0 + 1.0
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(A + rm[:, None] * K + (k0 + rk)[None, :])
        if KIND == "volatile_b":
            b = tl.load(B + (k0 + rk)[:, None] * BN + rn[None, :], volatile=True)
        else:
            b = tl.load(B + (k0 + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc, input_precision="ieee")
        if KIND == "loop_store":
            tl.store(W + rm[:, None] * BN + rn[None, :], acc)
        if KIND == "reader":
            tl.store(W + (k0 + rk)[:, None] * BN + rn[None, :], b * 2.0)
    tl.store(C + rm[:, None] * BN + rn[None, :], acc * scale)


@triton.jit
def _writes_b_first(A, B0, W, C, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # Every program first writes (pid_m + 1) * B0's columns of its tile into W, which all the
    # programs of a column of C share, then multiplies by them: each must see its own writes,
    # so W's tiles must not come from an earlier program's memo slot.
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    for k0 in range(0, K, BK):
        w = tl.load(B0 + (k0 + rk)[:, None] * N + rn[None, :]) * (pid_m + 1.0)
        tl.store(W + (k0 + rk)[:, None] * N + rn[None, :], w)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(A + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(W + (k0 + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(C + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def _reads_acc_in_loop(A, B, C, T, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # The accumulator is also summed at every K step: the dot's GEMM cannot wait for the next
    # step (forward.cpp, "deferred").
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    tot = 0.0
    for k0 in range(0, K, BK):
        a = tl.load(A + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(B + (k0 + rk)[:, None] * N + rn[None, :])
        tot += tl.sum(acc)  # the sum of the steps before this one
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(C + rm[:, None] * N + rn[None, :], acc)
    tl.store(T + pid_m * tl.num_programs(1) + pid_n, tot)


@triton.jit
def _revisits_the_oldest(A, B, C, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                         CHAIN: tl.constexpr, HIT: tl.constexpr):
    # Program 0 loads B's tiles 0..7, which fill the memo's 8 slots of 64 KiB; program 1 loads
    # tile HIT (a hit, on a slot its deferred dot keeps for the next GEMM) and then tiles 8..,
    # one chain's worth in all (dot.cpp), whose copies go to slots 0, 1, ... and must skip
    # HIT's however many fetches ago it was.
    pid = tl.program_id(0)
    rm = pid * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for s in range(0, 8 - (8 - CHAIN) * pid):
        t = tl.where(pid == 0, s, tl.where(s == 0, HIT, s + 7))
        a = tl.load(A + rm[:, None] * K + (t * BK + rk)[None, :])
        b = tl.load(B + (t * BK + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(C + rm[:, None] * BN + rn[None, :], acc)


@pytest.fixture
def notes(monkeypatch, request):
    """The executor programs' plan notes of the kernels prepared during the test (CPU only)."""
    return capture_plan_notes(request, monkeypatch,
                              (_matmul, _block_ptr_matmul, _alternating_pitch, _two_dots, _guarded,
                               _writes_b_first, _reads_acc_in_loop, _revisits_the_oldest))


def _note_counts(seen, pattern):
    """The number `pattern` captures in each prepared program's notes (forward.cpp's), 0 where
    the note is absent."""
    counts = []
    for text in seen:
        found = re.search(pattern, text)
        counts.append(int(found.group(1)) if found else 0)
    return counts


def _deferred_dots(seen):
    """How many dots each prepared program defers."""
    return _note_counts(seen, r"deferred dots: (\d+)")


def _memo_loads(seen):
    """How many loads each prepared program reads through the tile memo."""
    return _note_counts(seen, r"(\d+) as a dot's B through the tile memo")


def _run(m, n, k, *, ldb=None, b_row_step=1, dtype="float32", precision="ieee", bm=32, bn=32,
         bk=16, rng):
    ldb = n if ldb is None else ldb
    a = numpy_random((m, k), dtype, rng)
    base = numpy_random((k if b_row_step else 1, ldb), dtype, rng)
    if precision == "tf32":  # no rounding ties: the reference's tie rule does not matter
        a, base = no_tf32_ties(a), no_tf32_ties(base)
    c = poisoned((m, n), "float32")
    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))
    _matmul[grid](a, base, c, m, n, k, ldb, B_ROW_STEP=b_row_step, BM=bm, BN=bn, BK=bk,
                  PRECISION=precision)
    b = base[:, :n]
    if b_row_step == -1:
        b = b[::-1]
    elif b_row_step == 0:
        b = np.repeat(b, k, axis=0)
    return a, b, c


# (m, n, k, ldb, bk): eight programs per column of C sharing B's tiles; masked edge tiles in
# every dimension; a pitch wider than N; 80 tiles of B per column, more than the memo's 64
# slots, so every program copies again.
SHAPES = [(256, 64, 128, 64, 16), (200, 70, 90, 70, 16), (96, 40, 64, 57, 32),
          (64, 64, 1280, 64, 16)]


@pytest.mark.parametrize("m, n, k, ldb, bk", SHAPES)
def test_programs_sharing_b_get_numpys_result(m, n, k, ldb, bk, rng):
    a, b, c = _run(m, n, k, ldb=ldb, bk=bk, rng=rng)
    assert_close(c, to_f64(a) @ to_f64(b), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("b_row_step", [-1, 0])
def test_reversed_and_repeated_rows_of_b(b_row_step, rng):
    a, b, c = _run(128, 64, 48, ldb=72, b_row_step=b_row_step, rng=rng)
    assert_close(c, to_f64(a) @ to_f64(b), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("precision", ["tf32", "tf32x3"])
def test_tf32_forms_through_the_memo(precision, rng):
    a, b, c = _run(96, 64, 48, precision=precision, rng=rng)
    if precision == "tf32":
        assert_close(c, to_f64(tf32_round(a)) @ to_f64(tf32_round(b)), rtol=1e-5, atol=1e-4)
    else:
        assert_close(c, to_f64(a) @ to_f64(b), rtol=1e-5, atol=1e-4)


# Tiles of B of one block of the GEMM's 16 lanes and wider (64), and narrower ones (8, 4, 2), in
# f32 and fp16: each width goes through the memo.
@pytest.mark.parametrize("bn, dtype", [(64, "float32"), (8, "float32"), (4, "float32"),
                                       (2, "float32"), (8, "float16")])
def test_narrow_and_wide_tiles_of_b(bn, dtype, notes, rng):
    a, b, c = _run(96, 3 * bn, 48, ldb=3 * bn + 5, bn=bn, dtype=dtype, rng=rng)
    assert_close(c, to_f64(a) @ to_f64(b), rtol=1e-5, atol=1e-3)
    counts = _memo_loads(notes)
    assert counts and min(counts) == 1, notes


def test_fp16_b_through_the_memo(rng):
    a, b, c = _run(96, 64, 48, dtype="float16", rng=rng)
    assert_close(c, to_f64(a) @ to_f64(b), rtol=1e-5, atol=1e-3)


def test_the_next_launch_sees_new_values_of_b(monkeypatch, rng):
    monkeypatch.setenv("TRITON_TILE_NUM_THREADS", "1")  # one thread runs both launches
    m, n, k = 128, 64, 64
    a = numpy_random((m, k), "float32", rng)
    b = numpy_random((k, n), "float32", rng)
    for _ in range(2):  # the same arrays, B rewritten in place between the launches
        c = poisoned((m, n), "float32")
        _matmul[(m // 32, n // 32)](a, b, c, m, n, k, n, B_ROW_STEP=1, BM=32, BN=32, BK=16,
                                    PRECISION="ieee")
        assert_close(c, to_f64(a) @ to_f64(b), rtol=1e-5, atol=1e-4)
        b[...] = numpy_random((k, n), "float32", rng)


def test_same_first_row_other_pitch_is_another_tile(monkeypatch, rng):
    monkeypatch.setenv("TRITON_TILE_NUM_THREADS", "1")  # one thread runs every program
    m, n, k = 128, 64, 32
    a = numpy_random((m, k), "float32", rng)
    b = numpy_random((2 * k, n), "float32", rng)
    c = poisoned((m, n), "float32")
    _alternating_pitch[(m // 32, n // 32)](a, b, c, n, k, n, BM=32, BN=32, BK=16)
    ref = np.empty((m, n))
    for pm in range(m // 32):
        rows = slice(32 * pm, 32 * pm + 32)
        ref[rows] = to_f64(a[rows]) @ to_f64(b[: 2 * k : 1 + pm % 2][:k])
    assert_close(c, ref, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("k", [48, 45, 16])
def test_a_deferred_dot_with_odd_steps_and_edges(k, notes, rng):
    # 3 K steps (all left for the flush: a chain of 8 at BLOCK_K 16), 3 with a masked last one
    # (copied: run at once, with the steps waiting), 1 step (only the flush runs it).
    a, b, c = _run(96, 64, k, rng=rng)
    assert_close(c, to_f64(a) @ to_f64(b), rtol=1e-5, atol=1e-4)
    counts = _deferred_dots(notes)
    assert counts and min(counts) == 1, notes


def test_an_accumulator_read_in_the_loop_is_not_deferred(notes, rng):
    m, n, k = 64, 64, 64
    a = numpy_random((m, k), "float32", rng)
    b = numpy_random((k, n), "float32", rng)
    c = poisoned((m, n), "float32")
    t = poisoned((m // 32) * (n // 32), "float32")
    _reads_acc_in_loop[(m // 32, n // 32)](a, b, c, t, n, k, BM=32, BN=32, BK=16)
    assert_close(c, to_f64(a) @ to_f64(b), rtol=1e-5, atol=1e-4)
    ref = np.zeros((m // 32, n // 32))
    for step in range(1, k // 16):
        part = to_f64(a[:, :16 * step]) @ to_f64(b[:16 * step])
        ref += part.reshape(m // 32, 32, n // 32, 32).sum(axis=(1, 3))
    assert_close(t.reshape(m // 32, n // 32), ref, rtol=1e-4, atol=1e-2)
    assert all(count == 0 for count in _deferred_dots(notes)), notes


# A deferred dot runs 4 steps of BLOCK_K 64 and up as one GEMM, 8 of smaller ones (gemm.h). The
# hit is on the slot the FIFO reaches at the chain's last copy: a hold one short evicts it.
@pytest.mark.parametrize("bk, bn, chain, hit", [(128, 128, 4, 2), (32, 512, 8, 6)])
def test_a_waiting_steps_slot_is_not_evicted(monkeypatch, notes, bk, bn, chain, hit, rng):
    monkeypatch.setenv("TRITON_TILE_NUM_THREADS", "1")  # program 0, then program 1
    bm, n = 16, 2 * bn  # B's tiles of 64 KiB, narrower than B
    k = (7 + chain) * bk
    a = numpy_random((2 * bm, k), "float32", rng)
    b = numpy_random((k, n), "float32", rng)
    c = poisoned((2 * bm, bn), "float32")
    _revisits_the_oldest[(2,)](a, b, c, n, k, BM=bm, BN=bn, BK=bk, CHAIN=chain,
                               HIT=hit)
    ref = np.zeros((2 * bm, bn))
    assert _deferred_dots(notes) == [1], notes
    for pid, tiles in ((0, range(8)), (1, (hit, *range(8, 7 + chain)))):
        for t in tiles:
            cols = slice(t * bk, (t + 1) * bk)
            ref[pid * bm:(pid + 1) * bm] += to_f64(a[pid * bm:(pid + 1) * bm, cols]) @ to_f64(
                b[cols, :bn])
    assert_close(c, ref, rtol=1e-5, atol=1e-3)


def test_block_pointers_and_the_tutorial_use_the_memo(notes, rng):
    m, n, k = 160, 48, 80
    a = numpy_random((m, k), "float32", rng)
    b = numpy_random((k, n), "float32", rng)
    c = poisoned((m, n), "float32")
    _block_ptr_matmul[(triton.cdiv(m, 32), triton.cdiv(n, 32))](a, b, c, m, n, k, BM=32, BN=32,
                                                                BK=16)
    assert_close(c, to_f64(a) @ to_f64(b), rtol=1e-5, atol=1e-4)
    _run(64, 64, 64, rng=rng)
    counts = _memo_loads(notes)  # the Tile path may version the loop: a B load in each
    assert len(counts) == 2 and min(counts) >= 1, notes


def test_two_dots_two_memo_loads(notes, rng):
    m, n, k = 128, 64, 48
    a = numpy_random((m, k), "float32", rng)
    b1 = numpy_random((k, n), "float32", rng)
    b2 = numpy_random((k, n), "float32", rng)
    c = poisoned((m, n), "float32")
    _two_dots[(m // 32, n // 32)](a, b1, b2, c, n, k, BM=32, BN=32, BK=16)
    assert_close(c, to_f64(a) @ to_f64(b1) + to_f64(a) @ to_f64(b2), rtol=1e-5, atol=1e-4)
    assert _memo_loads(notes) == [2], notes


def test_programs_that_write_b_first_read_their_own_writes(monkeypatch, notes, rng):
    monkeypatch.setenv("TRITON_TILE_NUM_THREADS", "1")  # one thread runs every program in turn
    m, n, k = 128, 64, 48
    a = numpy_random((m, k), "float32", rng)
    b0 = numpy_random((k, n), "float32", rng)
    w = poisoned((k, n), "float32")
    c = poisoned((m, n), "float32")
    _writes_b_first[(m // 32, n // 32)](a, b0, w, c, n, k, BM=32, BN=32, BK=16)
    ref = np.empty((m, n))
    for pm in range(m // 32):
        rows = slice(32 * pm, 32 * pm + 32)
        ref[rows] = to_f64(a[rows]) @ (to_f64(b0) * (pm + 1))
    assert_close(c, ref, rtol=1e-5, atol=1e-4)
    assert all(count == 0 for count in _memo_loads(notes)), notes


@pytest.mark.parametrize("kind", ["store", "loop_store", "atomic", "volatile", "volatile_b",
                                  "reader"])
def test_a_possible_write_first_keeps_the_copy(kind, notes, rng):
    m, n, k = 96, 32, 48
    a = numpy_random((m, k), "float32", rng)
    b = numpy_random((k, n), "float32", rng)
    b0 = b.copy()
    c = poisoned((m, n), "float32")
    w = poisoned((max(m, k), n), "float32")
    f = np.zeros(2, np.int32)
    _guarded[(m // 32,)](a, b, c, w, f, k, KIND=kind, BM=32, BN=n, BK=16)
    assert_close(c, to_f64(a) @ to_f64(b0), rtol=1e-5, atol=1e-4)
    if kind == "atomic":
        assert f[0] == m // 32
    if kind == "reader":
        assert_close(w[:k], 2.0 * to_f64(b0), rtol=0, atol=0)
    assert all(count == 0 for count in _memo_loads(notes)), notes

"""tl.dot reading its A operand in place (csrc/exec/compiler/forward.cpp, "rows"): the CPU
executors let a float dot read A's rows where the load found them, rows a matrix row apart,
instead of copying the tile first. Results are numpy's in float64 whatever A's row pitch
(wider than K, reversed, all rows one row), on full and masked tiles, for f32 at each input
precision and for narrow floats; a store between the load and the dot, or another reader of
the tile, keeps the copy.
"""

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
def _matmul(A, B, C, M, N, K, lda, ROW_STEP: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
            BK: tl.constexpr, PRECISION: tl.constexpr):
    # C[M, N] = A[M, K] @ B[K, N]; A's row r starts at A + (r * ROW_STEP) * lda (ROW_STEP -1
    # reads the rows bottom up from A's last row, 0 reads row 0 for every row).
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    if ROW_STEP == -1:
        arow = (M - 1 - rm) * lda
    else:
        arow = rm * ROW_STEP * lda
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        kk = k * BK + rk
        a = tl.load(A + arow[:, None] + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K),
                    other=0.0)
        b = tl.load(B + kk[:, None] * N + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N),
                    other=0.0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
    tl.store(C + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def _block_ptr_matmul(A, B, C, M, N, K, lda, BM: tl.constexpr, BN: tl.constexpr,
                      BK: tl.constexpr):
    # Block pointers made afresh at each K step (the tutorial advances them instead).
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(tl.make_block_ptr(A, (M, K), (lda, 1), (pid_m * BM, k0), (BM, BK), (1, 0)),
                    boundary_check=(0, 1), padding_option="zero")
        b = tl.load(tl.make_block_ptr(B, (K, N), (N, 1), (k0, pid_n * BN), (BK, BN), (1, 0)),
                    boundary_check=(0, 1), padding_option="zero")
        acc = tl.dot(a, b, acc, input_precision="ieee")
    c_bp = tl.make_block_ptr(C, (M, N), (N, 1), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    tl.store(c_bp, acc, boundary_check=(0, 1))


@triton.jit
def _store_between(A, B, C, lda, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # Loads A's tile, then overwrites those rows of A, then multiplies: the dot must see the
    # values loaded, not the ones stored.
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = A + rm[:, None] * lda + rk[None, :]
    a = tl.load(a_ptrs)
    tl.store(a_ptrs, tl.full((BM, BK), -7.0, tl.float32))
    b = tl.load(B + rk[:, None] * BN + rn[None, :])
    tl.store(C + rm[:, None] * BN + rn[None, :], tl.dot(a, b, input_precision="ieee"))


@triton.jit
def _other_reader(A, B, C, S, lda, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                  SQUARE: tl.constexpr):
    # A's tile also read elementwise (S = 2 * A's tile), or as both dot operands (SQUARE).
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(A + rm[:, None] * lda + rk[None, :])
    if SQUARE:
        c = tl.dot(a, a, input_precision="ieee")
    else:
        b = tl.load(B + rk[:, None] * BN + rn[None, :])
        c = tl.dot(a, b, input_precision="ieee")
        tl.store(S + rm[:, None] * BK + rk[None, :], a * 2.0)
    tl.store(C + rm[:, None] * BN + rn[None, :], c)


@pytest.fixture
def notes(monkeypatch, request):
    """The executor programs' plan notes of the kernels prepared during the test (CPU only)."""
    return capture_plan_notes(request, monkeypatch,
                              (_matmul, _block_ptr_matmul, _store_between, _other_reader))


def _forwarded_as_a(seen):
    """How many loads the prepared programs forward to a dot's A (forward.cpp's note)."""
    counts = []
    for text in seen:
        for line in text.splitlines():
            if line.startswith("forwarded loads:"):
                counts.append(int(line.split("(")[1].split()[0]))
    return counts


def _run(kernel, m, n, k, *, lda, row_step=1, dtype="float32", precision="ieee", bm=32, bn=32,
         bk=16, rng):
    rows = m if row_step else 1
    base = numpy_random((rows, lda), dtype, rng)
    b = numpy_random((k, n), dtype, rng)
    if precision == "tf32":  # no rounding ties: the reference's tie rule does not matter
        base, b = no_tf32_ties(base), no_tf32_ties(b)
    c = poisoned((m, n), "float32")
    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))
    if kernel is _matmul:
        kernel[grid](base, b, c, m, n, k, lda, ROW_STEP=row_step, BM=bm, BN=bn, BK=bk,
                     PRECISION=precision)
    else:
        kernel[grid](base, b, c, m, n, k, lda, BM=bm, BN=bn, BK=bk)
    a = base[:, :k]
    if row_step == -1:
        a = a[::-1]
    elif row_step == 0:
        a = np.repeat(a, m, axis=0)
    return a, b, c


# (m, n, k, lda): full tiles, a pitch wider than K, odd sizes whose last tiles are masked.
SHAPES = [(64, 64, 64, 64), (64, 64, 48, 80), (37, 29, 45, 53), (96, 32, 33, 33)]


@pytest.mark.parametrize("m, n, k, lda", SHAPES)
def test_matmul_reads_a_in_place(m, n, k, lda, rng):
    a, b, c = _run(_matmul, m, n, k, lda=lda, rng=rng)
    assert_close(c, to_f64(a) @ to_f64(b), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("row_step", [-1, 0])
def test_reversed_and_repeated_rows(row_step, rng):
    a, b, c = _run(_matmul, 64, 32, 40, lda=41, row_step=row_step, rng=rng)
    assert_close(c, to_f64(a) @ to_f64(b), rtol=1e-5, atol=1e-4)


def test_block_pointers_read_a_in_place(notes, rng):
    a, b, c = _run(_block_ptr_matmul, 70, 40, 50, lda=64, rng=rng)
    assert_close(c, to_f64(a) @ to_f64(b), rtol=1e-5, atol=1e-4)
    counts = _forwarded_as_a(notes)  # the Tile path may version the loop: an A load in each
    assert counts and min(counts) >= 1, notes


@pytest.mark.parametrize("precision", ["tf32", "tf32x3"])
def test_tf32_forms_of_a_strided_a(precision, rng):
    a, b, c = _run(_matmul, 48, 32, 40, lda=56, precision=precision, rng=rng)
    if precision == "tf32":
        ref = to_f64(tf32_round(a)) @ to_f64(tf32_round(b))
        assert_close(c, ref, rtol=1e-5, atol=1e-4)
    else:
        assert_close(c, to_f64(a) @ to_f64(b), rtol=1e-5, atol=1e-4)


def test_fp16_a_strided(rng):
    a, b, c = _run(_matmul, 48, 32, 40, lda=72, dtype="float16", rng=rng)
    assert_close(c, to_f64(a) @ to_f64(b), rtol=1e-5, atol=1e-3)


def test_a_store_between_load_and_dot_keeps_the_loaded_values(notes, rng):
    a = numpy_random((16, 24), "float32", rng)
    a0 = a.copy()
    b = numpy_random((16, 16), "float32", rng)
    c = poisoned((16, 16), "float32")
    _store_between[(1,)](a, b, c, 24, BM=16, BN=16, BK=16)
    assert_close(c, to_f64(a0[:, :16]) @ to_f64(b), rtol=1e-5, atol=1e-4)
    assert np.all(a[:, :16] == -7.0) and np.array_equal(a[:, 16:], a0[:, 16:])
    assert _forwarded_as_a(notes) in ([], [0]), notes


@pytest.mark.parametrize("square", [False, True])
def test_a_with_another_reader_is_copied(square, notes, rng):
    a = numpy_random((16, 24), "float32", rng)
    b = numpy_random((16, 16), "float32", rng)
    c, s = poisoned((16, 16), "float32"), poisoned((16, 16), "float32")
    _other_reader[(1,)](a, b, c, s, 24, BM=16, BN=16, BK=16, SQUARE=square)
    a16 = to_f64(a[:, :16])
    assert_close(c, a16 @ (a16 if square else to_f64(b)), rtol=1e-5, atol=1e-4)
    if not square:
        assert_close(s, 2.0 * a16, rtol=0, atol=0)
    assert all(n == 0 for n in _forwarded_as_a(notes)), notes


def test_the_tutorial_matmul_forwards_a(notes, rng):
    _run(_matmul, 64, 64, 64, lda=64, rng=rng)
    assert _forwarded_as_a(notes) == [1], notes

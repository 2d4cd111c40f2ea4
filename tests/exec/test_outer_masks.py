"""Outer-product broadcasts on the TTIR executor (csrc/exec/compiler/affine.h): the pointer,
offset and mask tiles of a masked 2-D access written `rows[:, None] ... cols[None, :]` are never
materialized. The broadcasts read their (R, 1) or (1, L) source and the mask is a box (row bytes
and lane bytes). Results are those of numpy. Masked-off lanes are never read, an active lane out
of bounds raises, and a broadcast with another use stays a full tile.

These tests depend on the C++ core only.
"""
# ruff: noqa: E501  (IR lines in the kernels below are long)

import numpy as np
import pytest
from exec_harness import ptr, run

_core = pytest.importorskip("triton_tile._core")

# One (16, 32) block of x (m x n, leading dimension ld) per program along x, columns c0 + j,
# copied to y where rows < m and cols < n (and cols >= lo, as MASK says), with -1 elsewhere in
# the loaded tile, which also goes to t (16 x 32 per program, unmasked). OFF is i32 or i64.
BLOCK = r"""
module {
  tt.func public @k(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>, %t: !tt.ptr<f32>, %m: i32, %n: i32, %ld: i32, %lo: i32, %c0: i32) {
    %pid = tt.get_program_id x : i32
    %c16 = arith.constant 16 : i32
    %r0 = arith.muli %pid, %c16 : i32
    %ar = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %r0s = tt.splat %r0 : i32 -> tensor<16xi32>
    %rows1 = arith.addi %r0s, %ar : tensor<16xi32>
    %rows = tt.expand_dims %rows1 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
    %lanes1 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %c0s = tt.splat %c0 : i32 -> tensor<32xi32>
    %cols1 = arith.addi %lanes1, %c0s : tensor<32xi32>
    %cols = tt.expand_dims %cols1 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %lanes = tt.expand_dims %lanes1 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %lds = tt.splat %ld : i32 -> tensor<16x1xi32>
    %roff32 = arith.muli %rows, %lds : tensor<16x1xi32>
    %roff = CAST_ROWS
    %coff = CAST_COLS
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<16x1x!tt.ptr<f32>>
    %xr = tt.addptr %xs, %roff : tensor<16x1x!tt.ptr<f32>>, tensor<16x1xOFF>
    %xb = tt.broadcast %xr : tensor<16x1x!tt.ptr<f32>> -> tensor<16x32x!tt.ptr<f32>>
    %cb = tt.broadcast %coff : tensor<1x32xOFF> -> tensor<16x32xOFF>
    %xp = tt.addptr %xb, %cb : tensor<16x32x!tt.ptr<f32>>, tensor<16x32xOFF>
    %ms = tt.splat %m : i32 -> tensor<16x1xi32>
    %rm = arith.cmpi slt, %rows, %ms : tensor<16x1xi32>
    %ns = tt.splat %n : i32 -> tensor<1x32xi32>
    %cm = arith.cmpi slt, %cols, %ns : tensor<1x32xi32>
    %los = tt.splat %lo : i32 -> tensor<1x32xi32>
    %cm2 = arith.cmpi sge, %cols, %los : tensor<1x32xi32>
    %rmb = tt.broadcast %rm : tensor<16x1xi1> -> tensor<16x32xi1>
    %cmb = tt.broadcast %cm : tensor<1x32xi1> -> tensor<16x32xi1>
    %cm2b = tt.broadcast %cm2 : tensor<1x32xi1> -> tensor<16x32xi1>
    %box = arith.andi %rmb, %cmb : tensor<16x32xi1>
    %mask = MASK
    %other = arith.constant dense<-1.0> : tensor<16x32xf32>
    %v = tt.load %xp, %mask, %other : tensor<16x32x!tt.ptr<f32>>
    %ys = tt.splat %y : !tt.ptr<f32> -> tensor<16x1x!tt.ptr<f32>>
    %yr = tt.addptr %ys, %roff : tensor<16x1x!tt.ptr<f32>>, tensor<16x1xOFF>
    %yb = tt.broadcast %yr : tensor<16x1x!tt.ptr<f32>> -> tensor<16x32x!tt.ptr<f32>>
    %yp = tt.addptr %yb, %cb : tensor<16x32x!tt.ptr<f32>>, tensor<16x32xOFF>
    tt.store %yp, %v, %mask : tensor<16x32x!tt.ptr<f32>>
    %c512 = arith.constant 512 : i32
    %tbase = arith.muli %pid, %c512 : i32
    %tp0 = tt.addptr %t, %tbase : !tt.ptr<f32>, i32
    %c32 = arith.constant dense<32> : tensor<16x1xi32>
    %ar16 = tt.expand_dims %ar {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
    %trow = arith.muli %ar16, %c32 : tensor<16x1xi32>
    %ts = tt.splat %tp0 : !tt.ptr<f32> -> tensor<16x1x!tt.ptr<f32>>
    %tr = tt.addptr %ts, %trow : tensor<16x1x!tt.ptr<f32>>, tensor<16x1xi32>
    %tb = tt.broadcast %tr : tensor<16x1x!tt.ptr<f32>> -> tensor<16x32x!tt.ptr<f32>>
    %tcb = tt.broadcast %lanes : tensor<1x32xi32> -> tensor<16x32xi32>
    %tp = tt.addptr %tb, %tcb : tensor<16x32x!tt.ptr<f32>>, tensor<16x32xi32>
    tt.store %tp, %v : tensor<16x32x!tt.ptr<f32>>
    tt.return
  }
}
"""

MASKS = {
    "box": "arith.andi %box, %cm2b : tensor<16x32xi1>",  # a box of a box and a lane broadcast
    "rows": "arith.andi %rmb, %rmb : tensor<16x32xi1>",  # rows only (lanes all active)
    "lanes": "arith.andi %cm2b, %cmb : tensor<16x32xi1>",  # lanes only
}


def block(mask="box", off="i32"):
    src = BLOCK.replace("MASK", MASKS[mask]).replace("OFF", off)
    if off == "i32":  # the offsets as they are (adding zeros keeps their strides)
        rows = "arith.addi %roff32, %zr : tensor<16x1xi32>"
        cols = "arith.addi %cols, %zc : tensor<1x32xi32>"
    else:
        rows = "arith.extsi %roff32 : tensor<16x1xi32> to tensor<16x1xi64>"
        cols = "arith.extsi %cols : tensor<1x32xi32> to tensor<1x32xi64>"
    zeros = ("    %zr = arith.constant dense<0> : tensor<16x1xi32>\n"
             "    %zc = arith.constant dense<0> : tensor<1x32xi32>\n")
    src = src.replace("CAST_ROWS", rows).replace("CAST_COLS", cols)
    return src.replace("    %lds = tt.splat", zeros + "    %lds = tt.splat", 1)


def prog(src):
    return _core.TTIRProgram(_core.parse_ttir(src), "k")


def expected(x, m, n, lo, mask, programs, c0=0):
    """(y, t) as numpy computes them: y the masked copy (NaN elsewhere), t each program's
    loaded tile (-1 where masked off)."""
    ld = x.shape[1]
    y = np.full(x.shape, np.nan, np.float32)
    t = np.full((programs, 16, 32), -1.0, np.float32)
    for p in range(programs):
        for i in range(16):
            r = p * 16 + i
            for j in range(32):
                c = c0 + j
                on = {"box": r < m and c < n and c >= lo, "rows": r < m,
                      "lanes": c >= lo and c < n}[mask]
                if on:
                    t[p, i, j] = x.reshape(-1)[r * ld + c]
                    y.reshape(-1)[r * ld + c] = t[p, i, j]
    return y, t


@pytest.mark.parametrize("mask", sorted(MASKS))
@pytest.mark.parametrize("off", ["i32", "i64"])
@pytest.mark.parametrize("m,n,lo,c0", [(48, 32, 0, 0), (48, 40, 0, 8), (37, 29, 0, 0),
                                        (40, 32, 5, 0), (40, 39, 10, 7), (20, 3, 2, 0),
                                        (7, 32, 40, 0)])
def test_masked_block_copy(mask, off, m, n, lo, c0, rng):
    """Full, partial and empty rows and lanes (lo 40: no lane active; m 7: the later programs'
    rows all inactive), 3 programs of 16 rows; c0 shifts the columns (a lane offset that does
    not start at 0)."""
    programs, ld = 3, 40
    x = rng.standard_normal((programs * 16, ld)).astype(np.float32)
    y = np.full(x.shape, np.nan, np.float32)
    t = np.full((programs, 16, 32), np.nan, np.float32)
    p = prog(block(mask, off))
    run(p, (programs, 1, 1), ptr(x), ptr(y), ptr(t), m, n, ld, lo, c0)
    want_y, want_t = expected(x, m, n, lo, mask, programs, c0)
    np.testing.assert_array_equal(t, want_t)
    np.testing.assert_array_equal(y, want_y)


def test_the_broadcasts_are_folded_and_the_mask_is_a_box():
    notes = prog(block("box")).notes
    assert notes.count("folded (rows)") == 4, notes  # x, y, t row pointers and the row mask
    assert notes.count("folded (lanes)") == 4, notes  # 2 offsets, 2 lane masks
    assert notes.count("box mask") == 2, notes
    assert "tt.addptr" in notes and "compact (16 rows, stride 4 B)" in notes, notes


def test_masked_off_lanes_past_the_array_are_never_read(rng):
    """x holds exactly m rows of n lanes (ld = n): every lane the box masks off lies past the
    array or in the next row, and none is read or written."""
    m, n = 21, 29
    x = rng.standard_normal((m, n)).astype(np.float32)
    y = np.full((m, n), np.nan, np.float32)
    t = np.full((2, 16, 32), np.nan, np.float32)
    run(prog(block("box")), (2, 1, 1), ptr(x), ptr(y), ptr(t), m, n, n, 0, 0)
    np.testing.assert_array_equal(y, x)
    want = np.full((2, 16, 32), -1.0, np.float32)
    want.reshape(32, 32)[:m, :n] = x
    np.testing.assert_array_equal(t, want)


def test_an_active_lane_out_of_bounds_raises_and_writes_nothing(rng):
    """n = 32 lanes over rows of 29 (ld 29): the last row's lanes 29.. are past the array."""
    m, ld = 16, 29
    x = rng.standard_normal((m, ld)).astype(np.float32)
    y = np.full((m, ld), np.nan, np.float32)
    t = np.full((1, 16, 32), np.nan, np.float32)
    with pytest.raises(IndexError, match="out-of-bounds load"):
        run(prog(block("box")), (1, 1, 1), ptr(x), ptr(y), ptr(t), m, 32, ld, 0, 0)
    assert np.isnan(y).all()


def test_a_mask_with_another_use_stays_a_full_tile(rng):
    """The mask also feeds a select: it is materialized, and so are the masks and broadcasts it
    is made of (a box's operands must be folded or boxes); the results stay right."""
    src = block("box").replace(
        "    tt.store %tp, %v : tensor<16x32x!tt.ptr<f32>>",
        "    %sel = arith.select %mask, %v, %other : tensor<16x32xi1>, tensor<16x32xf32>\n"
        "    tt.store %tp, %sel : tensor<16x32x!tt.ptr<f32>>")
    p = prog(src)
    assert "box mask" not in p.notes and p.notes.count("folded (lanes)") == 2, p.notes
    m, n, lo, ld = 37, 29, 3, 40
    x = rng.standard_normal((48, ld)).astype(np.float32)
    y = np.full(x.shape, np.nan, np.float32)
    t = np.full((3, 16, 32), np.nan, np.float32)
    run(p, (3, 1, 1), ptr(x), ptr(y), ptr(t), m, n, ld, lo, 0)
    want_y, want_t = expected(x, m, n, lo, "box", 3)
    np.testing.assert_array_equal(t, want_t)
    np.testing.assert_array_equal(y, want_y)

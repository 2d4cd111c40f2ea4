"""Compact pointer tiles on the Tile path: the pointer gathers the conversion leaves inside loops
(`offset(broadcast(reshape(base)), start + iota)` then load_ptr_tko/store_ptr_tko) run through
the stride analysis (csrc/exec/compiler/affine.h) like their tt.load/tt.store originals. Same results as
the TTIR executor and the view form, masked-off lanes never read, out-of-bounds lanes raise
naming the op and line, and the checker (which sees every lane) still runs them.

These tests depend on the C++ core only.
"""
# ruff: noqa: E501  (IR lines in the kernels below are long)

import numpy as np
import pytest
from exec_harness import line_of, ptr, run

_core = pytest.importorskip("triton_tile._core")

# One row per program, walked in 64-lane blocks: y = x * w (+ the running sum of x in Mean),
# masked by cols < n. STRIDE scales the column offsets (2: every other element, not contiguous);
# SELECT also feeds the mask to a select, so it is materialized instead of an interval.
ROWLOOP = r"""
module {
  tt.func public @k(%x: !tt.ptr<f32>, %w: !tt.ptr<f32>, %y: !tt.ptr<f32>, %mean: !tt.ptr<f32>, %n: i32, %ld: i32) {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %pid = tt.get_program_id x : i32
    %ro = arith.muli %pid, %ld : i32
    %xr = tt.addptr %x, %ro : !tt.ptr<f32>, i32
    %yr = tt.addptr %y, %ro : !tt.ptr<f32>, i32
    %ar = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %ns = tt.splat %n : i32 -> tensor<64xi32>
    %zero = arith.constant dense<0.0> : tensor<64xf32>
    %st = arith.constant dense<STRIDE> : tensor<64xi32>
    %acc = scf.for %s = %c0 to %n step %c64 iter_args(%a = %zero) -> (tensor<64xf32>) : i32 {
      %ss = tt.splat %s : i32 -> tensor<64xi32>
      %cols = arith.addi %ss, %ar : tensor<64xi32>
      %m = arith.cmpi slt, %cols, %ns : tensor<64xi32>
      %off = arith.muli %cols, %st : tensor<64xi32>
      %xs = tt.splat %xr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
      %xp = tt.addptr %xs, %off : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
      %v = tt.load %xp, %m, %zero : tensor<64x!tt.ptr<f32>>  // load-x
      %ws = tt.splat %w : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
      %wp = tt.addptr %ws, %cols : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
      %wv = tt.load %wp, %m : tensor<64x!tt.ptr<f32>>
      %p = arith.mulf %v, %wv : tensor<64xf32>
      %ys = tt.splat %yr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
      %yp = tt.addptr %ys, %off : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
      tt.store %yp, %p, %m : tensor<64x!tt.ptr<f32>>  // store-y
      %sel = SELECT
      %a2 = arith.addf %a, %sel : tensor<64xf32>
      scf.yield %a2 : tensor<64xf32>
    }
    %sum = "tt.reduce"(%acc) <{axis = 0 : i32}> ({
    ^bb0(%l: f32, %r: f32):
      %t = arith.addf %l, %r : f32
      tt.reduce.return %t : f32
    }) : (tensor<64xf32>) -> f32
    %mp = tt.addptr %mean, %pid : !tt.ptr<f32>, i32
    tt.store %mp, %sum : !tt.ptr<f32>
    tt.return
  }
}
"""

PLAIN = "arith.addf %v, %zero : tensor<64xf32>"
SELECTED = "arith.select %m, %v, %zero : tensor<64xi1>, tensor<64xf32>"


def kernel(stride=1, select=False):
    return ROWLOOP.replace("STRIDE", str(stride)).replace("SELECT", SELECTED if select else PLAIN)


def tile_module(src, loop_views=False):
    o = _core.TileOptions()
    o.loop_vector_views = loop_views  # True: the view form (TRITON_TILE_RAISE_VIEWS=all)
    r = _core.convert_to_tile(_core.parse_ttir(src, "case.ttir"), "k", o)
    assert not r.unsupported, r.unsupported
    return r.take_module()


def inputs(rng, m, n, stride):
    ld = n * stride
    # Exactly m*ld elements: a masked-off lane of the last row would be out of bounds.
    x = rng.standard_normal(m * ld, dtype=np.float32)
    w = rng.standard_normal(n, dtype=np.float32)
    return x, w, ld


def launch(p, x, w, m, n, ld):
    y = np.full(x.shape, 7.0, np.float32)
    mean = np.zeros(m, np.float32)
    run(p, (m, 1, 1), ptr(x), ptr(w), ptr(y), ptr(mean), n, ld)
    return y, mean


@pytest.mark.parametrize("stride", [1, 2])
@pytest.mark.parametrize("select", [False, True])
@pytest.mark.parametrize("n", [64, 100, 1, 200])
def test_loop_gathers_match_ttir_and_views(stride, select, n, rng):
    src = kernel(stride, select)
    mod = tile_module(src)
    assert "load_ptr_tko" in _core.print_tile(mod)  # the gather form this file is about
    assert "load_ptr_tko" not in _core.print_tile(tile_module(src, loop_views=True))
    p = _core.TileProgram(mod, "k")
    for marker in ("load-x", "store-y"):  # the pointer tiles' offsets, a line above each access
        assert f"cuda_tile.offset at case.ttir:{line_of(src, marker) - 1}:7: compact (1 rows, stride {4 * stride} B)" in p.notes, p.notes
    assert ("interval mask" in p.notes) == (not select), p.notes
    m = 5
    x, w, ld = inputs(rng, m, n, stride)
    got = launch(p, x, w, m, n, ld)
    ttir = launch(_core.TTIRProgram(_core.parse_ttir(src, "case.ttir"), "k"), x, w, m, n, ld)
    views = launch(_core.TileProgram(tile_module(src, loop_views=True), "k"), x, w, m, n, ld)
    checked = launch(_core.TileProgram(mod, "k", check=True), x, w, m, n, ld)
    want_y = np.full(x.shape, 7.0, np.float32)
    xs = x.reshape(m, ld)[:, ::stride][:, :n]
    want_y.reshape(m, ld)[:, ::stride][:, :n] = xs * w
    for y, mean in (got, ttir, views, checked):
        np.testing.assert_array_equal(y, want_y)
        np.testing.assert_allclose(mean, xs.sum(axis=1), rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(mean, got[1])


@pytest.mark.parametrize("stride", [1, 2])
def test_loop_gather_out_of_bounds_names_op_and_line(stride, rng):
    src = kernel(stride)
    p = _core.TileProgram(tile_module(src), "k")
    m, n = 3, 100
    x, w, ld = inputs(rng, m, n, stride)
    # Arguments are the first halves of larger buffers: lanes past them hit no argument.
    big = np.zeros(2 * x.size, np.float32)
    big[: x.size] = x
    xa = (big.ctypes.data, x.nbytes)
    y = np.zeros(2 * x.size, np.float32)
    mean = np.zeros(m, np.float32)
    # The row pitch is a lie: the last rows' live lanes leave x.
    with pytest.raises(IndexError, match=rf"out-of-bounds load in kernel k at case.ttir:{line_of(src, 'load-x')}:\d+: address 0x[0-9a-f]+ \(lane \d+\)"):
        run(p, (m, 1, 1), xa, ptr(w), ptr(y), ptr(mean), n, ld + 64)
    # y shorter than x: the last row's stores leave it, and that row writes nothing.
    y[:] = 0
    with pytest.raises(IndexError, match=rf"out-of-bounds store in kernel k at case.ttir:{line_of(src, 'store-y')}:\d+"):
        run(p, (m, 1, 1), xa, ptr(w), (y.ctypes.data, (m - 1) * ld * 4 + 4), ptr(mean), n, ld)
    assert not y[(m - 1) * ld:].any()

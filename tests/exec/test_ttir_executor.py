"""The TTIR executor (`_core.TTIRProgram`) on hand-written TTIR: memory safety, numerics and
control flow that the language tests reach only indirectly.

Kernels are TTIR text read by `_core.parse_ttir`, so these tests depend on the C++ core only.
"""
# ruff: noqa: E501  (TTIR lines in the kernels below are long)

import re
import threading

import numpy as np
import pytest
from exec_harness import VADD, check_vector_add_masked, ptr, run

_core = pytest.importorskip("triton_tile._core")


def prog(src, name="k"):
    return _core.TTIRProgram(_core.parse_ttir(src), name)


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_vector_add_masked(threads, rng):
    check_vector_add_masked(prog(VADD), rng, threads)


def test_out_of_bounds_load_raises_index_error(rng):
    n = 1000
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    out = np.zeros(n, np.float32)
    with pytest.raises(IndexError) as e:
        # n is a lie: lanes 1000..1023 are unmasked and outside every array.
        run(prog(VADD), (4, 1, 1), ptr(x), ptr(y), ptr(out), 1024)
    msg = str(e.value)
    assert re.search(r"out-of-bounds load in kernel k at <text>:\d+:\d+: address 0x[0-9a-f]+ "
                     r"\(lane \d+\) is not inside any array argument", msg), msg


def test_out_of_bounds_store_writes_nothing():
    n = 1000
    x = np.ones(1024, np.float32)
    y = np.ones(1024, np.float32)
    out = np.zeros(n, np.float32)
    with pytest.raises(IndexError, match="out-of-bounds store"):
        run(prog(VADD), (4, 1, 1), ptr(x), ptr(y), ptr(out), 1024, threads=1)
    # The program that failed wrote nothing; the others (in order on one thread) did.
    assert (out[768:] == 0).all() and (out[:768] == 2).all()


def test_masked_lanes_never_touch_memory():
    # The arrays hold 10 elements; 246 masked-off lanes of one program point past them.
    x = np.arange(10, dtype=np.float32)
    y = np.ones(10, np.float32)
    out = np.zeros(10, np.float32)
    run(prog(VADD), (1, 1, 1), ptr(x), ptr(y), ptr(out), 10)
    np.testing.assert_array_equal(out, x + 1)


def test_pointer_inside_array_is_checked_against_the_whole_array():
    x = np.arange(20, dtype=np.float32)
    y = np.ones(20, np.float32)
    out = np.zeros(20, np.float32)
    # The x argument points at x[4] but the array extent is all of x: in bounds.
    args = [(x.ctypes.data + 16, x.ctypes.data, x.nbytes), ptr(y), ptr(out), 16]
    prog(VADD).run(grid=(1, 1, 1), args=args, num_threads=1)
    np.testing.assert_array_equal(out[:16], x[4:] + 1)


GATHER = r"""
module {
  tt.func public @k(%x: !tt.ptr<f32>, %idx: !tt.ptr<i32>, %o: !tt.ptr<f32>) {
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %is = tt.splat %idx : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>>
    %ip = tt.addptr %is, %r : tensor<64x!tt.ptr<i32>>, tensor<64xi32>
    %i = tt.load %ip : tensor<64x!tt.ptr<i32>>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %xp = tt.addptr %xs, %i : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %v = tt.load %xp : tensor<64x!tt.ptr<f32>>
    %os = tt.splat %o : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %op = tt.addptr %os, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    tt.store %op, %v : tensor<64x!tt.ptr<f32>>
    tt.return
  }
}
"""


def test_gather_and_out_of_bounds_index(rng):
    x = rng.standard_normal(100, dtype=np.float32)
    idx = rng.integers(0, 100, 64).astype(np.int32)
    out = np.zeros(64, np.float32)
    p = prog(GATHER)
    run(p, (1, 1, 1), ptr(x), ptr(idx), ptr(out))
    np.testing.assert_array_equal(out, x[idx])
    idx[17] = -3
    with pytest.raises(IndexError, match=r"\(lane 17\)"):
        run(p, (1, 1, 1), ptr(x), ptr(idx), ptr(out))


# A 2-D tile: rows are contiguous, the tile is not (row stride is an argument).
TILE2D = r"""
module {
  tt.func public @k(%x: !tt.ptr<f32>, %o: !tt.ptr<f32>, %stride: i32) {
    %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %c = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %st = tt.splat %stride : i32 -> tensor<32x1xi32>
    %ro = arith.muli %r2, %st : tensor<32x1xi32>
    %c2 = tt.expand_dims %c {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
    %rb = tt.broadcast %ro : tensor<32x1xi32> -> tensor<32x16xi32>
    %cb = tt.broadcast %c2 : tensor<1x16xi32> -> tensor<32x16xi32>
    %off = arith.addi %rb, %cb : tensor<32x16xi32>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<32x16x!tt.ptr<f32>>
    %xp = tt.addptr %xs, %off : tensor<32x16x!tt.ptr<f32>>, tensor<32x16xi32>
    %v = tt.load %xp : tensor<32x16x!tt.ptr<f32>>
    %t = tt.trans %v {order = array<i32: 1, 0>} : tensor<32x16xf32> -> tensor<16x32xf32>
    %r3 = tt.expand_dims %c {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
    %c32 = arith.constant dense<32> : tensor<16x1xi32>
    %ro3 = arith.muli %r3, %c32 : tensor<16x1xi32>
    %c3 = tt.expand_dims %r {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %rb3 = tt.broadcast %ro3 : tensor<16x1xi32> -> tensor<16x32xi32>
    %cb3 = tt.broadcast %c3 : tensor<1x32xi32> -> tensor<16x32xi32>
    %off3 = arith.addi %rb3, %cb3 : tensor<16x32xi32>
    %os = tt.splat %o : !tt.ptr<f32> -> tensor<16x32x!tt.ptr<f32>>
    %op = tt.addptr %os, %off3 : tensor<16x32x!tt.ptr<f32>>, tensor<16x32xi32>
    tt.store %op, %t : tensor<16x32x!tt.ptr<f32>>
    tt.return
  }
}
"""


def test_strided_rows_and_transpose(rng):
    x = rng.standard_normal((32, 20), dtype=np.float32)
    out = np.zeros((16, 32), np.float32)
    run(prog(TILE2D), (1, 1, 1), ptr(x), ptr(out), 20)
    np.testing.assert_array_equal(out, x[:, :16].T)
    notes = prog(TILE2D).notes
    assert "compact (32 rows, stride 4 B)" in notes, notes


# Offsets near INT32_MAX: lanes whose i32 offset wraps form wild addresses on a GPU.
WRAP = r"""
module {
  tt.func public @k(%x: !tt.ptr<f32>, %o: !tt.ptr<f32>, %start: i32, %n: i32) {
    %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %s = tt.splat %start : i32 -> tensor<16xi32>
    %off = arith.addi %s, %r : tensor<16xi32>
    %nn = tt.splat %n : i32 -> tensor<16xi32>
    %m = arith.cmpi slt, %r, %nn : tensor<16xi32>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %xp = tt.addptr %xs, %off : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    %v = tt.load %xp, %m : tensor<16x!tt.ptr<f32>>
    %os = tt.splat %o : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %op = tt.addptr %os, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    tt.store %op, %v : tensor<16x!tt.ptr<f32>>
    tt.return
  }
}
"""


def test_wrapped_i32_offsets_fault_only_when_live():
    """The pointer argument sits 2^31 - 8 elements before x, so lane j reads x[j] through the
    offset 2^31 - 8 + j; for j >= 8 that i32 offset wraps to a negative one and the lane's
    address is ~16 GiB away (x[j] would be in bounds without the wrap)."""
    x = np.arange(16, dtype=np.float32)
    out = np.full(16, 7.0, np.float32)
    shifted = (x.ctypes.data - (2**31 - 8) * 4, x.ctypes.data, x.nbytes)
    p = prog(WRAP)
    p.run(grid=(1, 1, 1), args=[shifted, ptr(out), 2**31 - 8, 8], num_threads=1)
    np.testing.assert_array_equal(out, np.r_[x[:8], np.zeros(8, np.float32)])
    with pytest.raises(IndexError, match=r"\(lane 8\)"):
        p.run(grid=(1, 1, 1), args=[shifted, ptr(out), 2**31 - 8, 16], num_threads=1)


# Tutorial 03's column offsets `(c0 + arange) % n`: affine until a row crosses n. The pointer
# tile stays compact; lanes past the wrap are exceptions with their own addresses, carried
# through the loop's uniform pointer increments.
MODTILE = r"""
module {
  tt.func public @k(%x: !tt.ptr<f32>, %o: !tt.ptr<f32>, %c0: i32, %n: i32) {
    %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %c = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %cs = tt.splat %c0 : i32 -> tensor<16xi32>
    %cc = arith.addi %cs, %c : tensor<16xi32>
    %nn = tt.splat %n : i32 -> tensor<16xi32>
    %cm = arith.remsi %cc, %nn : tensor<16xi32>
    %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
    %nr = tt.splat %n : i32 -> tensor<8x1xi32>
    %ro = arith.muli %r2, %nr : tensor<8x1xi32>
    %cm2 = tt.expand_dims %cm {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
    %rb = tt.broadcast %ro : tensor<8x1xi32> -> tensor<8x16xi32>
    %cb = tt.broadcast %cm2 : tensor<1x16xi32> -> tensor<8x16xi32>
    %off = arith.addi %rb, %cb : tensor<8x16xi32>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<8x16x!tt.ptr<f32>>
    %xp = tt.addptr %xs, %off : tensor<8x16x!tt.ptr<f32>>, tensor<8x16xi32>
    %zero = arith.constant dense<0.0> : tensor<8x16xf32>
    %k0 = arith.constant 0 : i32
    %k1 = arith.constant 1 : i32
    %k2 = arith.constant 2 : i32
    %k8 = arith.constant 8 : i32
    %step = arith.muli %n, %k8 : i32
    %steps = tt.splat %step : i32 -> tensor<8x16xi32>
    %res:2 = scf.for %i = %k0 to %k2 step %k1 iter_args(%acc = %zero, %p = %xp) -> (tensor<8x16xf32>, tensor<8x16x!tt.ptr<f32>>) : i32 {
      %v = tt.load %p : tensor<8x16x!tt.ptr<f32>>
      %a2 = arith.addf %acc, %v : tensor<8x16xf32>
      %p2 = tt.addptr %p, %steps : tensor<8x16x!tt.ptr<f32>>, tensor<8x16xi32>
      scf.yield %a2, %p2 : tensor<8x16xf32>, tensor<8x16x!tt.ptr<f32>>
    }
    %k16 = arith.constant dense<16> : tensor<8x1xi32>
    %ro16 = arith.muli %r2, %k16 : tensor<8x1xi32>
    %c16 = tt.expand_dims %c {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
    %rb16 = tt.broadcast %ro16 : tensor<8x1xi32> -> tensor<8x16xi32>
    %cb16 = tt.broadcast %c16 : tensor<1x16xi32> -> tensor<8x16xi32>
    %off16 = arith.addi %rb16, %cb16 : tensor<8x16xi32>
    %os = tt.splat %o : !tt.ptr<f32> -> tensor<8x16x!tt.ptr<f32>>
    %op = tt.addptr %os, %off16 : tensor<8x16x!tt.ptr<f32>>, tensor<8x16xi32>
    tt.store %op, %res#0 : tensor<8x16x!tt.ptr<f32>>
    tt.return
  }
}
"""


@pytest.mark.parametrize("n,c0", [(32, 16), (32, 27), (20, 0), (20, 12)])
def test_remainder_offsets_that_wrap_inside_a_row(n, c0, rng):
    x = rng.standard_normal((16, n), dtype=np.float32)
    out = np.zeros((8, 16), np.float32)
    p = prog(MODTILE)
    assert "tt.addptr at <text>:18:5: compact (8 rows, stride 4 B)" in p.notes, p.notes
    run(p, (1, 1, 1), ptr(x), ptr(out), c0, n)
    cols = (c0 + np.arange(16)) % n
    np.testing.assert_array_equal(out, x[:8, cols] + x[8:, cols])


# ---- integer and float semantics ----

def elementwise(n, in_types, out_type, result):
    """TTIR of one program over `n` lanes: loads %x (and %y) through the pointer arguments %a
    (and %b) of element types `in_types`, computes `%z = <result>` and stores %z through %o
    (element type `out_type`)."""
    lanes = f"tensor<{n}xi32>"
    params, body = [], [f"%r = tt.make_range {{end = {n} : i32, start = 0 : i32}} : {lanes}"]
    for (arg, val), t in zip([("a", "x"), ("b", "y")], in_types):
        ptrs = f"tensor<{n}x!tt.ptr<{t}>>"
        params.append(f"%{arg}: !tt.ptr<{t}>")
        body += [f"%{arg}s = tt.splat %{arg} : !tt.ptr<{t}> -> {ptrs}",
                 f"%{arg}p = tt.addptr %{arg}s, %r : {ptrs}, {lanes}",
                 f"%{val} = tt.load %{arg}p : {ptrs}"]
    optrs = f"tensor<{n}x!tt.ptr<{out_type}>>"
    params.append(f"%o: !tt.ptr<{out_type}>")
    body += [f"%z = {result}",
             f"%os = tt.splat %o : !tt.ptr<{out_type}> -> {optrs}",
             f"%op = tt.addptr %os, %r : {optrs}, {lanes}",
             f"tt.store %op, %z : {optrs}",
             "tt.return"]
    return ("\nmodule {\n  tt.func public @k(" + ", ".join(params) + ") {\n"
            + "".join(f"    {line}\n" for line in body) + "  }\n}\n")


def binop(op, a, b, t="i32", r=None, out_dtype=None):
    n = len(a)
    r = r or t
    out = np.zeros(n, out_dtype or a.dtype)
    run(prog(elementwise(n, [t, t], r, op.format(t=t, r=r, n=n))), (1, 1, 1), ptr(a), ptr(b),
        ptr(out), threads=1)
    return out


def test_integer_division_is_total():
    i32 = np.int32
    a = np.array([7, -7, 7, -7, 5, -2**31, -2**31, 0], i32)
    b = np.array([2, 2, -2, -2, 0, -1, 0, 0], i32)
    div = binop("arith.divsi %x, %y : tensor<{n}x{t}>", a, b)
    rem = binop("arith.remsi %x, %y : tensor<{n}x{t}>", a, b)
    np.testing.assert_array_equal(div, [3, -3, -3, 3, -1, -2**31, -1, -1])
    np.testing.assert_array_equal(rem, [1, -1, 1, -1, 5, 0, -2**31, 0])
    ua = np.array([7, 5, 2**32 - 1, 0], np.uint32).view(i32)
    ub = np.array([2, 0, 16, 0], np.uint32).view(i32)
    divu = binop("arith.divui %x, %y : tensor<{n}x{t}>", ua, ub).view(np.uint32)
    remu = binop("arith.remui %x, %y : tensor<{n}x{t}>", ua, ub).view(np.uint32)
    np.testing.assert_array_equal(divu, [3, 2**32 - 1, 2**28 - 1, 2**32 - 1])
    np.testing.assert_array_equal(remu, [1, 5, 15, 0])


def test_shifts_past_the_width_and_wrapping():
    a = np.array([1, -8, -8, 3, 2**30, 2**31 - 1, -1, 5], np.int32)
    b = np.array([31, 1, 40, 32, 2, 1, -1, 33], np.int32)
    shl = binop("arith.shli %x, %y : tensor<{n}x{t}>", a, b)
    shrs = binop("arith.shrsi %x, %y : tensor<{n}x{t}>", a, b)
    shru = binop("arith.shrui %x, %y : tensor<{n}x{t}>", a, b)
    np.testing.assert_array_equal(shl, [-2**31, -16, 0, 0, 0, -2, 0, 0])
    np.testing.assert_array_equal(shrs, [0, -4, -1, 0, 2**28, 2**30 - 1, -1, 0])
    np.testing.assert_array_equal(shru.view(np.uint32),
                                  [0, (2**32 - 8) >> 1, 0, 0, 2**28, 2**30 - 1, 0, 0])
    mul = binop("arith.muli %x, %y : tensor<{n}x{t}>", a, b)
    np.testing.assert_array_equal(mul, (a.astype(np.int64) * b).astype(np.int32))


def test_mulhiui():
    a = np.array([2**32 - 1, 123456789, 0, 2**31], np.uint32).view(np.int32)
    b = np.array([2**32 - 1, 987654321, 5, 4], np.uint32).view(np.int32)
    hi = binop("tt.mulhiui %x, %y : tensor<{n}x{t}>", a, b).view(np.uint32)
    ref = (a.view(np.uint32).astype(np.uint64) * b.view(np.uint32)) >> 32
    np.testing.assert_array_equal(hi, ref.astype(np.uint32))


def test_nan_aware_min_max():
    nan = np.nan
    a = np.array([1.0, nan, nan, -0.0, 0.0, 2.0, -np.inf, 3.0], np.float32)
    b = np.array([nan, 1.0, nan, 0.0, -0.0, -2.0, 5.0, 3.0], np.float32)
    mx = binop("arith.maxnumf %x, %y : tensor<{n}x{t}>", a, b, "f32")
    mn = binop("arith.minnumf %x, %y : tensor<{n}x{t}>", a, b, "f32")
    mxp = binop("arith.maximumf %x, %y : tensor<{n}x{t}>", a, b, "f32")
    np.testing.assert_array_equal(mx, [1, 1, nan, 0, 0, 2, 5, 3])
    np.testing.assert_array_equal(mn, [1, 1, nan, -0.0, -0.0, -2, -np.inf, 3])
    assert not np.signbit(mx[3]) and not np.signbit(mx[4])
    assert np.signbit(mn[3]) and np.signbit(mn[4])
    np.testing.assert_array_equal(np.isnan(mxp), [1, 1, 1, 0, 0, 0, 0, 0])


def test_unordered_compare_predicates():
    a = np.array([1, np.nan, 2, 3], np.float32)
    b = np.array([1, 1, np.nan, 4], np.float32)
    cmp = "arith.cmpf {p}, %x, %y : tensor<{{n}}x{{t}}>"
    for pred, ref in [("ueq", [1, 1, 1, 0]), ("une", [0, 1, 1, 1]), ("olt", [0, 0, 0, 1]),
                      ("ult", [0, 1, 1, 1]), ("uno", [0, 1, 1, 0]), ("ord", [1, 0, 0, 1]),
                      ("one", [0, 0, 0, 1]), ("oeq", [1, 0, 0, 0])]:
        got = binop(cmp.format(p=pred), a, b, "f32", "i1", np.bool_)
        np.testing.assert_array_equal(got, np.array(ref, bool), err_msg=pred)


def cast(op, a, s, d, out_dtype, attr=""):
    n = len(a)
    out = np.zeros(n, out_dtype)
    run(prog(elementwise(n, [s], d, f"{op} %x {attr}: tensor<{n}x{s}> to tensor<{n}x{d}>")),
        (1, 1, 1), ptr(a), ptr(out), threads=1)
    return out


def test_float_to_int_saturates_and_nan_is_zero():
    a = np.array([np.nan, 1e10, -1e10, 2.9, -2.9, np.inf, -np.inf, 2**31], np.float32)
    got = cast("arith.fptosi", a, "f32", "i32", np.int32)
    np.testing.assert_array_equal(got, [0, 2**31 - 1, -2**31, 2, -2, 2**31 - 1, -2**31,
                                        2**31 - 1])
    gotu = cast("arith.fptoui", a, "f32", "i8", np.uint8)
    np.testing.assert_array_equal(gotu, [0, 255, 0, 2, 0, 255, 0, 255])


def test_f16_and_bf16_round_to_nearest_even(rng):
    a = rng.standard_normal(256).astype(np.float32) * 1000
    a[:4] = [65520.0, 65519.0, 1e-8, -np.inf]
    np.testing.assert_array_equal(cast("arith.truncf", a, "f32", "f16", np.float16),
                                  a.astype(np.float16))  # noqa
    ml_dtypes = pytest.importorskip("ml_dtypes")
    got = cast("arith.truncf", a, "f32", "bf16", np.uint16)
    np.testing.assert_array_equal(got, a.astype(ml_dtypes.bfloat16).view(np.uint16))


def test_fp8_conversions_saturate(rng):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    a = rng.standard_normal(256).astype(np.float32) * 100
    a[:6] = [1000.0, -1000.0, 0.0, -0.0, np.nan, 448.0]
    for name, mdt, fmax in [("f8E4M3FN", ml_dtypes.float8_e4m3fn, 448.0),
                            ("f8E5M2", ml_dtypes.float8_e5m2, 57344.0)]:
        got = cast("tt.fp_to_fp", a, "f32", name, np.uint8, "{rounding = 1 : i32} ")
        ref = np.clip(a, -fmax, fmax).astype(mdt)
        np.testing.assert_array_equal(got[np.isfinite(a)], ref.view(np.uint8)[np.isfinite(a)],
                                      err_msg=name)
        back = cast("tt.fp_to_fp", got, name, "f32", np.float32)
        np.testing.assert_array_equal(back[np.isfinite(a)],
                                      ref.astype(np.float32)[np.isfinite(a)])
        assert np.isnan(back[4])


@pytest.mark.parametrize("op,ref", [("math.exp", np.exp), ("math.exp2", np.exp2)])
def test_exp_is_accurate(op, ref, rng):
    a = rng.uniform(-110, 95, 4096).astype(np.float32)
    a[:8] = [0, -0.0, np.nan, np.inf, -np.inf, 88.7, -87.3, -103.5]
    out = np.zeros_like(a)
    run(prog(elementwise(4096, ["f32"], "f32", f"{op} %x : tensor<4096xf32>")), (1, 1, 1),
        ptr(a), ptr(out))
    exact = ref(a.astype(np.float64))
    finite = np.isfinite(exact) & (np.abs(exact) < 3e38)
    ulp = np.spacing(exact[finite].astype(np.float32)).astype(np.float64)
    err = np.abs(out[finite] - exact[finite]) / ulp
    assert err.max() <= 2.0, err.max()
    assert np.isnan(out[2]) and out[3] == np.inf and out[4] == 0


# ---- reductions, scans, dot ----

REDUCE2D = r"""
module {
  tt.func public @k(%a: !tt.ptr<f32>, %o0: !tt.ptr<f32>, %o1: !tt.ptr<f32>) {
    %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %c = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
    %k = arith.constant dense<128> : tensor<8x1xi32>
    %ro = arith.muli %r2, %k : tensor<8x1xi32>
    %c2 = tt.expand_dims %c {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
    %rb = tt.broadcast %ro : tensor<8x1xi32> -> tensor<8x128xi32>
    %cb = tt.broadcast %c2 : tensor<1x128xi32> -> tensor<8x128xi32>
    %off = arith.addi %rb, %cb : tensor<8x128xi32>
    %as = tt.splat %a : !tt.ptr<f32> -> tensor<8x128x!tt.ptr<f32>>
    %ap = tt.addptr %as, %off : tensor<8x128x!tt.ptr<f32>>, tensor<8x128xi32>
    %x = tt.load %ap : tensor<8x128x!tt.ptr<f32>>
    %s0 = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%p: f32, %q: f32):
      %t = arith.addf %p, %q : f32
      tt.reduce.return %t : f32
    }) : (tensor<8x128xf32>) -> tensor<128xf32>
    %s1 = "tt.reduce"(%x) <{axis = 1 : i32}> ({
    ^bb0(%p: f32, %q: f32):
      %t = arith.maxnumf %p, %q : f32
      tt.reduce.return %t : f32
    }) : (tensor<8x128xf32>) -> tensor<8xf32>
    %o0s = tt.splat %o0 : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %o0p = tt.addptr %o0s, %c : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    tt.store %o0p, %s0 : tensor<128x!tt.ptr<f32>>
    %o1s = tt.splat %o1 : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
    %o1p = tt.addptr %o1s, %r : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
    tt.store %o1p, %s1 : tensor<8x!tt.ptr<f32>>
    tt.return
  }
}
"""


def test_reduce_along_both_axes_ignores_nan_in_max(rng):
    a = rng.standard_normal((8, 128), dtype=np.float32)
    a[3, 5] = np.nan
    a[3, 6] = 100.0
    o0 = np.zeros(128, np.float32)
    o1 = np.zeros(8, np.float32)
    run(prog(REDUCE2D), (1, 1, 1), ptr(a), ptr(o0), ptr(o1))
    np.testing.assert_allclose(o0[:5], a.sum(0)[:5], rtol=1e-5)
    np.testing.assert_allclose(o0[6:], a.sum(0)[6:], rtol=1e-5)
    assert np.isnan(o0[5])
    np.testing.assert_array_equal(o1, np.nanmax(a, 1))


# argmax as Triton writes it: a two-operand reduction with an explicit tie-break.
ARGMAX = r"""
module {
  tt.func public @k(%a: !tt.ptr<f32>, %o: !tt.ptr<i32>, %v: !tt.ptr<f32>) {
    %pid = tt.get_program_id x : i32
    %c = tt.make_range {end = N : i32, start = 0 : i32} : tensor<Nxi32>
    %n = arith.constant N : i32
    %rowoff = arith.muli %pid, %n : i32
    %arow = tt.addptr %a, %rowoff : !tt.ptr<f32>, i32
    %as = tt.splat %arow : !tt.ptr<f32> -> tensor<Nx!tt.ptr<f32>>
    %ap = tt.addptr %as, %c : tensor<Nx!tt.ptr<f32>>, tensor<Nxi32>
    %x = tt.load %ap : tensor<Nx!tt.ptr<f32>>
    %m:2 = "tt.reduce"(%x, %c) <{axis = 0 : i32}> ({
    ^bb0(%v1: f32, %i1: i32, %v2: f32, %i2: i32):
      %gt = arith.cmpf ogt, %v1, %v2 : f32
      %eq = arith.cmpf oeq, %v1, %v2 : f32
      %lt = arith.cmpi slt, %i1, %i2 : i32
      %tie = arith.andi %eq, %lt : i1
      %pick = arith.ori %gt, %tie : i1
      %vv = arith.select %pick, %v1, %v2 : f32
      %ii = arith.select %pick, %i1, %i2 : i32
      tt.reduce.return %vv, %ii : f32, i32
    }) : (tensor<Nxf32>, tensor<Nxi32>) -> (f32, i32)
    %op = tt.addptr %o, %pid : !tt.ptr<i32>, i32
    tt.store %op, %m#1 : !tt.ptr<i32>
    %vp = tt.addptr %v, %pid : !tt.ptr<f32>, i32
    tt.store %vp, %m#0 : !tt.ptr<f32>
    tt.return
  }
}
"""


@pytest.mark.parametrize("n", [256, 96])  # 96: not a power of two (sequential combine)
def test_argmax_tuple_reduction(n, rng):
    a = rng.integers(-20, 20, (7, n)).astype(np.float32)  # many ties
    idx = np.zeros(7, np.int32)
    val = np.zeros(7, np.float32)
    src = ARGMAX.replace("Nx", f"{n}x").replace("end = N", f"end = {n}").replace(
        "constant N", f"constant {n}")
    run(prog(src), (7, 1, 1), ptr(a), ptr(idx), ptr(val))
    np.testing.assert_array_equal(idx, a.argmax(1))
    np.testing.assert_array_equal(val, a.max(1))


SCAN = r"""
module {
  tt.func public @k(%a: !tt.ptr<i32>, %o: !tt.ptr<i32>, %o2: !tt.ptr<i32>) {
    %c = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %as = tt.splat %a : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>>
    %ap = tt.addptr %as, %c : tensor<64x!tt.ptr<i32>>, tensor<64xi32>
    %x = tt.load %ap : tensor<64x!tt.ptr<i32>>
    %s = "tt.scan"(%x) <{axis = 0 : i32, reverse = true}> ({
    ^bb0(%p: i32, %q: i32):
      %t = arith.addi %p, %q : i32
      tt.scan.return %t : i32
    }) : (tensor<64xi32>) -> tensor<64xi32>
    %s2 = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%p: i32, %q: i32):
      %two = arith.constant 2 : i32
      %pp = arith.muli %p, %two : i32
      %t = arith.subi %pp, %q : i32
      tt.scan.return %t : i32
    }) : (tensor<64xi32>) -> tensor<64xi32>
    %os = tt.splat %o : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>>
    %op = tt.addptr %os, %c : tensor<64x!tt.ptr<i32>>, tensor<64xi32>
    tt.store %op, %s : tensor<64x!tt.ptr<i32>>
    %o2s = tt.splat %o2 : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>>
    %o2p = tt.addptr %o2s, %c : tensor<64x!tt.ptr<i32>>, tensor<64xi32>
    tt.store %o2p, %s2 : tensor<64x!tt.ptr<i32>>
    tt.return
  }
}
"""


def test_scans(rng):
    a = rng.integers(-100, 100, 64).astype(np.int32)
    o = np.zeros(64, np.int32)
    o2 = np.zeros(64, np.int32)
    run(prog(SCAN), (1, 1, 1), ptr(a), ptr(o), ptr(o2))
    np.testing.assert_array_equal(o, np.cumsum(a[::-1])[::-1])
    ref = np.zeros(64, np.int32)
    acc = int(a[0])
    ref[0] = acc
    for i in range(1, 64):  # combine(acc, x) = 2*acc - x, wrapping in i32
        acc = (2 * acc - int(a[i]) + 2**31) % 2**32 - 2**31
        ref[i] = acc
    np.testing.assert_array_equal(o2, ref)


DOT = r"""
module {
  tt.func public @k(%a: !tt.ptr<f32>, %b: !tt.ptr<f32>, %o: !tt.ptr<f32>) {
    %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %k = arith.constant dense<32> : tensor<32x1xi32>
    %ro = arith.muli %r2, %k : tensor<32x1xi32>
    %c2 = tt.expand_dims %r {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %rb = tt.broadcast %ro : tensor<32x1xi32> -> tensor<32x32xi32>
    %cb = tt.broadcast %c2 : tensor<1x32xi32> -> tensor<32x32xi32>
    %off = arith.addi %rb, %cb : tensor<32x32xi32>
    %as = tt.splat %a : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>>
    %ap = tt.addptr %as, %off : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
    %x = tt.load %ap : tensor<32x32x!tt.ptr<f32>>
    %bs = tt.splat %b : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>>
    %bp = tt.addptr %bs, %off : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
    %y = tt.load %bp : tensor<32x32x!tt.ptr<f32>>
    %z = arith.constant dense<0.5> : tensor<32x32xf32>
    %d = tt.dot %x, %y, %z, inputPrecision = PREC : tensor<32x32xf32> * tensor<32x32xf32> -> tensor<32x32xf32>
    %os = tt.splat %o : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>>
    %op = tt.addptr %os, %off : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
    tt.store %op, %d : tensor<32x32x!tt.ptr<f32>>
    tt.return
  }
}
"""


def tf32(x):
    """cvt.rna.tf32.f32: nearest, ties away from zero, 10 mantissa bits."""
    u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x1000) & 0xFFFFE000).astype(np.uint32)
    return np.where(np.isfinite(x), r.view(np.float32), x)


def test_dot_input_precisions(rng):
    a = rng.standard_normal((32, 32), dtype=np.float32)
    b = rng.standard_normal((32, 32), dtype=np.float32)
    a[0, 0] = np.float32(1 + 2**-11)  # a tie: rna rounds it up (rne would round down)
    exact = a.astype(np.float64) @ b + 0.5
    outs = {}
    for prec in ["tf32", "tf32x3", "ieee"]:
        o = np.zeros((32, 32), np.float32)
        run(prog(DOT.replace("PREC", prec)), (1, 1, 1), ptr(a), ptr(b), ptr(o))
        outs[prec] = o
    ref_tf32 = tf32(a).astype(np.float64) @ tf32(b) + 0.5
    np.testing.assert_allclose(outs["tf32"], ref_tf32, rtol=1e-5, atol=1e-5)
    assert np.abs(outs["tf32"] - exact).max() > 1e-4  # tf32 really rounds
    np.testing.assert_allclose(outs["ieee"], exact, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(outs["tf32x3"], exact, rtol=1e-5, atol=1e-5)


# ---- control flow ----

LOOPS = r"""
module {
  tt.func public @k(%o: !tt.ptr<i32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %f:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c1, %b = %c2) -> (i32, i32) : i32 {
      %s = arith.addi %a, %i : i32
      scf.yield %b, %s : i32, i32
    }
    %w:2 = scf.while (%x = %c0, %y = %c1) : (i32, i32) -> (i32, i32) {
      %lt = arith.cmpi slt, %x, %n : i32
      scf.condition(%lt) %x, %y : i32, i32
    } do {
    ^bb0(%x2: i32, %y2: i32):
      %x3 = arith.addi %x2, %c1 : i32
      %y3 = arith.muli %y2, %c2 : i32
      scf.yield %x3, %y3 : i32, i32
    }
    %big = arith.cmpi sgt, %n, %c2 : i32
    %sel = scf.if %big -> (i32) {
      scf.yield %f#0 : i32
    } else {
      scf.yield %w#1 : i32
    }
    %p1 = tt.addptr %o, %c1 : !tt.ptr<i32>, i32
    %p2 = tt.addptr %o, %c2 : !tt.ptr<i32>, i32
    %c3 = arith.constant 3 : i32
    %p3 = tt.addptr %o, %c3 : !tt.ptr<i32>, i32
    tt.store %o, %f#0 : !tt.ptr<i32>
    tt.store %p1, %f#1 : !tt.ptr<i32>
    tt.store %p2, %w#1 : !tt.ptr<i32>
    tt.store %p3, %sel : !tt.ptr<i32>
    tt.return
  }
}
"""


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_loops_swap_and_while(n):
    o = np.zeros(4, np.int32)
    run(prog(LOOPS), (1, 1, 1), ptr(o), n, threads=1)
    a, b = 1, 2
    for i in range(n):
        a, b = b, a + i
    assert list(o) == [a, b, 2**n, a if n > 2 else 2**n]


# ---- debugging ops ----

ASSERT = r"""
module {
  tt.func public @k(%a: !tt.ptr<i32>) {
    %c = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %as = tt.splat %a : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
    %ap = tt.addptr %as, %c : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
    %x = tt.load %ap : tensor<16x!tt.ptr<i32>>
    %z = arith.constant dense<0> : tensor<16xi32>
    %ok = arith.cmpi sge, %x, %z : tensor<16xi32>
    tt.assert %ok, "x >= 0" : tensor<16xi1>
    tt.print " x: " {hex = false, isSigned = array<i32: 1>} : %x : tensor<16xi32>
    tt.return
  }
}
"""


def test_assert_and_print(capfd):
    a = np.arange(16, dtype=np.int32)
    p = prog(ASSERT)
    run(p, (2, 1, 1), ptr(a), threads=1)
    out = capfd.readouterr().out.splitlines()
    assert len(out) == 32
    assert "pid (1, 0, 0) idx ( 3) x: 3" in out, out[:4]
    a[5] = -1
    with pytest.raises(AssertionError,
                       match=r"<text>:\d+:\d+: device assertion failed: x >= 0 \(lane 5"):
        run(p, (2, 1, 1), ptr(a))


# ---- atomics and concurrency ----

SPIN = r"""
module {
  tt.func public @k(%lock: !tt.ptr<i32>, %count: !tt.ptr<i32>, %log: !tt.ptr<i32>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %w = scf.while (%d = %c0) : (i32) -> (i32) {
      %old = tt.atomic_cas acq_rel, gpu, %lock, %c0, %c1 : (!tt.ptr<i32>, i32, i32) -> i32
      %busy = arith.cmpi eq, %old, %c1 : i32
      scf.condition(%busy) %d : i32
    } do {
    ^bb0(%d2: i32):
      scf.yield %d2 : i32
    }
    %v = tt.load %count : !tt.ptr<i32>
    %v1 = arith.addi %v, %c1 : i32
    tt.store %count, %v1 : !tt.ptr<i32>
    %pid = tt.get_program_id x : i32
    %lp = tt.addptr %log, %v : !tt.ptr<i32>, i32
    tt.store %lp, %pid : !tt.ptr<i32>
    %r = tt.atomic_rmw exch, release, gpu, %lock, %c0 : (!tt.ptr<i32>, i32) -> i32
    tt.return
  }
}
"""


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_spin_lock_between_programs(threads):
    n = 500
    lock = np.zeros(1, np.int32)
    count = np.zeros(1, np.int32)
    log = np.full(n, -1, np.int32)
    run(prog(SPIN), (n, 1, 1), ptr(lock), ptr(count), ptr(log), threads=threads)
    assert count[0] == n and lock[0] == 0
    assert sorted(log) == list(range(n))  # every program ran its critical section once


COUNT_PROGRAMS = r"""
module {
  tt.func public @k(%counts: !tt.ptr<i32>) {
    %x = tt.get_program_id x : i32
    %y = tt.get_program_id y : i32
    %z = tt.get_program_id z : i32
    %gx = tt.get_num_programs x : i32
    %gy = tt.get_num_programs y : i32
    %zy = arith.muli %z, %gy : i32
    %plane = arith.addi %zy, %y : i32
    %row = arith.muli %plane, %gx : i32
    %id = arith.addi %row, %x : i32
    %p = tt.addptr %counts, %id : !tt.ptr<i32>, i32
    %one = arith.constant 1 : i32
    %o = tt.atomic_rmw add, relaxed, gpu, %p, %one : (!tt.ptr<i32>, i32) -> i32
    tt.return
  }
}
"""


# The pool hands out chunks that shrink in the tail (thread_pool.cpp): grids around the chunk
# sizes, odd thread counts, 2-D and 3-D grids.
@pytest.mark.parametrize("grid", [(1, 1, 1), (3, 1, 1), (255, 1, 1), (256, 1, 1), (1000, 1, 1),
                                  (4097, 1, 1), (17, 5, 3), (64, 64, 1)])
@pytest.mark.parametrize("threads", [2, 3, 7])
def test_every_program_runs_once(grid, threads):
    n = grid[0] * grid[1] * grid[2]
    counts = np.zeros(n + 1, np.int32)  # (one more: a program past the grid would show)
    run(prog(COUNT_PROGRAMS), grid, ptr(counts), threads=threads)
    assert (counts[:n] == 1).all() and counts[n] == 0, np.flatnonzero(counts[:n] != 1)[:10]


ATOMIC_ADD = r"""
module {
  tt.func public @k(%z: !tt.ptr<f32>, %old: !tt.ptr<f32>) {
    %c = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %k = arith.constant dense<7> : tensor<64xi32>
    %slot = arith.remsi %c, %k : tensor<64xi32>
    %zs = tt.splat %z : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %zp = tt.addptr %zs, %slot : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %one = arith.constant dense<1.0> : tensor<64xf32>
    %m = arith.constant dense<true> : tensor<64xi1>
    %o = tt.atomic_rmw fadd, relaxed, gpu, %zp, %one, %m : (tensor<64x!tt.ptr<f32>>, tensor<64xf32>, tensor<64xi1>) -> tensor<64xf32>
    %pid = tt.get_program_id x : i32
    %n = arith.constant 64 : i32
    %base = arith.muli %pid, %n : i32
    %ob = tt.addptr %old, %base : !tt.ptr<f32>, i32
    %os = tt.splat %ob : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %op = tt.addptr %os, %c : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    tt.store %op, %o : tensor<64x!tt.ptr<f32>>
    tt.return
  }
}
"""


def test_atomic_fadd_with_duplicate_addresses():
    g = 50
    z = np.zeros(7, np.float32)
    old = np.zeros((g, 64), np.float32)
    run(prog(ATOMIC_ADD), (g, 1, 1), ptr(z), ptr(old), threads=2)
    counts = np.bincount(np.arange(64) % 7)
    np.testing.assert_array_equal(z, counts * g)
    for s in range(7):  # every old value of a slot is distinct: all adds were applied
        vals = np.sort(old[:, np.arange(64) % 7 == s].ravel())
        np.testing.assert_array_equal(vals, np.arange(counts[s] * g))


def test_error_stops_the_launch_and_the_pool_stays_usable():
    x = np.ones(1000, np.float32)
    out = np.zeros(1000, np.float32)
    p = prog(VADD)
    for _ in range(3):
        with pytest.raises(IndexError):
            run(p, (400, 1, 1), ptr(x), ptr(x), ptr(out), 400 * 256, threads=4)
    run(p, (4, 1, 1), ptr(x), ptr(x), ptr(out), 1000, threads=4)
    assert (out == 2).all()


def test_concurrent_launches_from_python_threads(rng):
    p = prog(VADD)
    n = 100_000
    xs = [rng.standard_normal(n, dtype=np.float32) for _ in range(4)]
    outs = [np.zeros(n, np.float32) for _ in range(4)]

    def work(i):
        for _ in range(5):
            run(p, ((n + 255) // 256, 1, 1), ptr(xs[i]), ptr(xs[i]), ptr(outs[i]), n)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for x, o in zip(xs, outs):
        np.testing.assert_array_equal(o, x + x)


def test_argument_errors():
    p = prog(VADD)
    x = np.zeros(4, np.float32)
    with pytest.raises(RuntimeError, match="takes 4 arguments, got 3"):
        run(p, (1, 1, 1), ptr(x), ptr(x), ptr(x))
    with pytest.raises(RuntimeError, match="argument 3 expects an integer"):
        run(p, (1, 1, 1), ptr(x), ptr(x), ptr(x), 1.5)
    with pytest.raises(RuntimeError, match=r"no function named nope"):
        prog(VADD, "nope")


NEG_STEP = r"""
module {
  tt.func public @k(%o: !tt.ptr<i32>, %lo: i32, %hi: i32, %step: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r:2 = scf.for %i = %hi to %lo step %step iter_args(%s = %c0, %n = %c0) -> (i32, i32) : i32 {
      %s2 = arith.addi %s, %i : i32
      %n2 = arith.addi %n, %c1 : i32
      scf.yield %s2, %n2 : i32, i32
    }
    tt.store %o, %r#0 : !tt.ptr<i32>
    %o1 = tt.addptr %o, %c1 : !tt.ptr<i32>, i32
    tt.store %o1, %r#1 : !tt.ptr<i32>
    tt.return
  }
}
"""


def test_negative_i32_loop_step_and_bounds():
    """i32 registers read back sign-extended: a negative dynamic step counts down (a bug once
    read i32 values through `cond ? uint32_t : int32_t`, which loses the sign)."""
    o = np.zeros(2, np.int32)
    run(prog(NEG_STEP), (1, 1, 1), ptr(o), -7, 10, -3)
    assert o.tolist() == [sum(range(10, -7, -3)), len(range(10, -7, -3))]

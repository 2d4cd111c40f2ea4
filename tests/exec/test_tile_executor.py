"""The CPU tile executor (`_core.TileProgram`): CUDA Tile IR run as such, from TTIR text through
`parse_ttir` + `convert_to_tile` or built op by op: views with padding and edges, gathers,
out-of-bounds accesses, masked lanes, atomics, control flow with early exits, reductions,
scans, mma, prints, and the checker for accesses the Tile IR memory model leaves unordered.

These tests depend on the C++ core only.
"""
# ruff: noqa: E501  (IR lines in the kernels below are long)

import re

import numpy as np
import pytest
from exec_harness import VADD, check_vector_add_masked, line_of, ptr, run

_core = pytest.importorskip("triton_tile._core")

I1, I8, I32, I64 = (_core.int_type(b) for b in (1, 8, 32, 64))
F16, F32 = _core.float_type("f16"), _core.float_type("f32")
TOKEN = _core.token_type()


def convert(src, name="k", **opts):
    """Tile IR module of TTIR text (the conversion the runtime runs)."""
    o = _core.TileOptions()
    for k, v in opts.items():
        setattr(o, k, v)
    r = _core.convert_to_tile(_core.parse_ttir(src, "case.ttir"), name, o)
    assert not r.unsupported, r.unsupported
    return r.take_module()


def prog(src, name="k", check=False, **opts):
    return _core.TileProgram(convert(src, name, **opts), name, check=check)


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_vector_add_through_views(threads, rng):
    m = convert(VADD)
    assert _core.print_tile(m).count("load_view_tko") == 2
    p = _core.TileProgram(m, "k")
    assert p.name == "k" and p.arena_bytes > 0 and p.num_instructions > 0 and not p.check
    check_vector_add_masked(p, rng, threads)


@pytest.mark.parametrize("raise_views", [True, False])
def test_out_of_bounds_names_op_and_line(raise_views, rng):
    n = 1000
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    out = np.zeros(n, np.float32)
    p = prog(VADD, raise_views=raise_views)
    with pytest.raises(IndexError) as e:
        # n is a lie: lanes 1000..1023 are inside the "view" and outside every array.
        run(p, (4, 1, 1), ptr(x), ptr(y), ptr(out), 1024)
    msg = str(e.value)
    assert re.search(rf"out-of-bounds load in kernel k at case.ttir:{line_of(VADD, 'load-x')}:\d+: "
                     r"address 0x[0-9a-f]+ \(lane \d+\) is not inside any array argument", msg), msg


def test_out_of_bounds_store_writes_nothing(rng):
    n = 1000
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    big = np.zeros(2 * n, np.float32)
    out = big[:n]  # the launch only knows `out`: its extent is the array argument
    with pytest.raises(IndexError, match=f"out-of-bounds store in kernel k at case.ttir:{line_of(VADD, 'store-o')}"):
        run(prog(VADD), (1, 1, 1), ptr(x), ptr(y), (out.ctypes.data, 100 * 4), 256, threads=1)
    assert not big.any()


# A 2-D masked block: rows < M and cols < N, `other` a constant (a view with padding).
BLOCK2D = r"""
module {
  tt.func public @k(%x: !tt.ptr<f32>, %o: !tt.ptr<f32>, %M: i32, %N: i32, %ld: i32) {
    %c16 = arith.constant 16 : i32
    %p0 = tt.get_program_id x : i32
    %p1 = tt.get_program_id y : i32
    %r0 = arith.muli %p0, %c16 : i32
    %r1 = arith.muli %p1, %c16 : i32
    %ar = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %rs = tt.splat %r0 : i32 -> tensor<16xi32>
    %rows = arith.addi %rs, %ar : tensor<16xi32>
    %cs = tt.splat %r1 : i32 -> tensor<16xi32>
    %cols = arith.addi %cs, %ar : tensor<16xi32>
    %re = tt.expand_dims %rows {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
    %ce = tt.expand_dims %cols {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
    %lds = tt.splat %ld : i32 -> tensor<16x1xi32>
    %ro = arith.muli %re, %lds : tensor<16x1xi32>
    %rob = tt.broadcast %ro : tensor<16x1xi32> -> tensor<16x16xi32>
    %cob = tt.broadcast %ce : tensor<1x16xi32> -> tensor<16x16xi32>
    %off = arith.addi %rob, %cob : tensor<16x16xi32>
    %Ms = tt.splat %M : i32 -> tensor<16x1xi32>
    %mr = arith.cmpi slt, %re, %Ms : tensor<16x1xi32>
    %Ns = tt.splat %N : i32 -> tensor<1x16xi32>
    %mc = arith.cmpi slt, %ce, %Ns : tensor<1x16xi32>
    %mrb = tt.broadcast %mr : tensor<16x1xi1> -> tensor<16x16xi1>
    %mcb = tt.broadcast %mc : tensor<1x16xi1> -> tensor<16x16xi1>
    %m = arith.andi %mrb, %mcb : tensor<16x16xi1>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<16x16x!tt.ptr<f32>>
    %xp = tt.addptr %xs, %off : tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>
    %other = arith.constant dense<PAD> : tensor<16x16xf32>
    %v = tt.load %xp, %m, %other : tensor<16x16x!tt.ptr<f32>>
    %t = tt.trans %v {order = array<i32: 1, 0>} : tensor<16x16xf32> -> tensor<16x16xf32>
    %os = tt.splat %o : !tt.ptr<f32> -> tensor<16x16x!tt.ptr<f32>>
    %out16 = arith.constant dense<16> : tensor<16x1xi32>
    %p0s = arith.muli %p0, %c16 : i32
    %p1s = arith.muli %p1, %c16 : i32
    %gp = tt.get_num_programs x : i32
    %wide = arith.muli %gp, %c16 : i32
    %wides = tt.splat %wide : i32 -> tensor<16x1xi32>
    %orow0 = tt.splat %p1s : i32 -> tensor<16xi32>
    %orow = arith.addi %orow0, %ar : tensor<16xi32>
    %orowe = tt.expand_dims %orow {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
    %ocol0 = tt.splat %p0s : i32 -> tensor<16xi32>
    %ocol = arith.addi %ocol0, %ar : tensor<16xi32>
    %ocole = tt.expand_dims %ocol {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
    %oro = arith.muli %orowe, %wides : tensor<16x1xi32>
    %orob = tt.broadcast %oro : tensor<16x1xi32> -> tensor<16x16xi32>
    %ocob = tt.broadcast %ocole : tensor<1x16xi32> -> tensor<16x16xi32>
    %ooff = arith.addi %orob, %ocob : tensor<16x16xi32>
    %opp = tt.addptr %os, %ooff : tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>
    tt.store %opp, %t : tensor<16x16x!tt.ptr<f32>>
    tt.return
  }
}
"""


@pytest.mark.parametrize("pad", ["0.000000e+00", "-0.000000e+00", "0x7FC00000", "0x7F800000",
                                 "0xFF800000", "2.500000e+00"])
def test_view_padding_at_edges(pad, rng):
    """A 37x45 matrix (row pitch 50) read in 16x16 blocks and written transposed: lanes past the
    edges read the padding; every padding kind (and a non-padding `other`) works."""
    src = BLOCK2D.replace("PAD", pad)
    text = _core.print_tile(convert(src))
    assert "load_view_tko" in text  # raised to a view even at the edges
    M, N, ld = 37, 45, 50
    x = rng.standard_normal((M, ld), dtype=np.float32)
    gm, gn = 3, 3
    out = np.full((gn * 16, gm * 16), 7.0, np.float32)
    run(prog(src), (gm, gn, 1), ptr(x), ptr(out), M, N, ld)
    value = {"0x7FC00000": np.nan, "0x7F800000": np.inf, "0xFF800000": -np.inf}.get(
        pad, None)
    value = float(pad) if value is None else value
    want = np.full((gm * 16, gn * 16), value, np.float32)
    want[:M, :N] = x[:, :N]
    np.testing.assert_array_equal(out, want.T)
    if pad == "-0.000000e+00":
        assert np.signbit(out[N:, :]).all()


GATHER = r"""
module {
  tt.func public @k(%x: !tt.ptr<f32>, %idx: !tt.ptr<i32>, %o: !tt.ptr<f32>, %n: i32) {
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %nn = tt.splat %n : i32 -> tensor<64xi32>
    %m = arith.cmpi slt, %r, %nn : tensor<64xi32>
    %is = tt.splat %idx : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>>
    %ip = tt.addptr %is, %r : tensor<64x!tt.ptr<i32>>, tensor<64xi32>
    %i = tt.load %ip, %m : tensor<64x!tt.ptr<i32>>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %xp = tt.addptr %xs, %i : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %neg = arith.constant dense<-1.0> : tensor<64xf32>
    %v = tt.load %xp, %m, %neg : tensor<64x!tt.ptr<f32>>
    %os = tt.splat %o : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %op = tt.addptr %os, %i : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %two = arith.constant dense<2.0> : tensor<64xf32>
    %w = arith.mulf %v, %two : tensor<64xf32>
    tt.store %op, %w, %m : tensor<64x!tt.ptr<f32>>
    tt.return
  }
}
"""


def test_gather_scatter_and_masked_lanes_never_read(rng):
    n = 40
    x = rng.standard_normal(100, dtype=np.float32)
    perm = rng.permutation(100)[:n].astype(np.int32)
    # Lanes n..63 are masked off: their indices (garbage) would be far outside x.
    idx = np.concatenate([perm, np.full(64 - n, 10**8, np.int32)])
    out = np.zeros(100, np.float32)
    p = prog(GATHER)
    assert "load_ptr_tko" in _core.print_tile(convert(GATHER))
    run(p, (1, 1, 1), ptr(x), ptr(idx), ptr(out), n)
    want = np.zeros(100, np.float32)
    want[perm] = 2 * x[perm]
    np.testing.assert_array_equal(out, want)
    idx[3] = 10**8  # now a live lane is out of bounds
    with pytest.raises(IndexError, match="out-of-bounds load"):
        run(p, (1, 1, 1), ptr(x), ptr(idx), ptr(out), n)


ATOMICS = r"""
module {
  tt.func public @k(%c: !tt.ptr<i32>, %mx: !tt.ptr<f32>, %v: !tt.ptr<f32>, %old: !tt.ptr<i32>) {
    %pid = tt.get_program_id x : i32
    %one = arith.constant 1 : i32
    %prev = tt.atomic_rmw add, acq_rel, gpu, %c, %one : (!tt.ptr<i32>, i32) -> i32
    %op = tt.addptr %old, %pid : !tt.ptr<i32>, i32
    tt.store %op, %prev : !tt.ptr<i32>
    %vp = tt.addptr %v, %pid : !tt.ptr<f32>, i32
    %x = tt.load %vp : !tt.ptr<f32>
    %m = tt.atomic_rmw fadd, relaxed, gpu, %mx, %x : (!tt.ptr<f32>, f32) -> f32
    tt.return
  }
}
"""


def test_atomics_are_real(rng):
    g = 200
    c = np.zeros(1, np.int32)
    acc = np.zeros(1, np.float32)
    v = np.ones(g, np.float32)
    old = np.full(g, -1, np.int32)
    run(prog(ATOMICS), (g, 1, 1), ptr(c), ptr(acc), ptr(v), ptr(old), threads=4)
    assert c[0] == g and acc[0] == g
    assert sorted(old.tolist()) == list(range(g))  # each program saw a distinct old value


CAS = r"""
module {
  tt.func public @k(%z: !tt.ptr<i32>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c20 = arith.constant 20 : i32
    scf.for %i = %c0 to %c20 step %c1  : i32 {
      %r = scf.while (%done = %c0) : (i32) -> i32 {
        %again = arith.cmpi eq, %done, %c0 : i32
        scf.condition(%again) %done : i32
      } do {
      ^bb0(%d: i32):
        %cur = tt.load %z : !tt.ptr<i32>
        %nxt = arith.addi %cur, %c1 : i32
        %prev = tt.atomic_cas acq_rel, gpu, %z, %cur, %nxt : (!tt.ptr<i32>, i32, i32) -> i32
        %ok = arith.cmpi eq, %prev, %cur : i32
        %d2 = arith.extui %ok : i1 to i32
        scf.yield %d2 : i32
      }
      scf.yield
    }
    tt.return
  }
}
"""


def test_cas_retry_loops_in_a_while_loop():
    z = np.zeros(1, np.int32)
    text = _core.print_tile(convert(CAS))
    assert "loop iter_values" in text and "break" in text and "continue" in text
    run(prog(CAS), (32, 1, 1), ptr(z), threads=4)
    assert z[0] == 32 * 20


CONTROL = r"""
module {
  tt.func public @k(%o: !tt.ptr<i32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c3 = arith.constant 3 : i32
    %c100 = arith.constant 100 : i32
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
      %r = arith.remsi %i, %c3 : i32
      %z = arith.cmpi eq, %r, %c0 : i32
      %a2 = scf.if %z -> (i32) {
        %t = arith.addi %acc, %i : i32
        scf.yield %t : i32
      } else {
        %t = arith.subi %acc, %c1 : i32
        scf.yield %t : i32
      }
      scf.yield %a2 : i32
    }
    tt.store %o, %s : !tt.ptr<i32>
    %w = scf.while (%k = %c1) : (i32) -> i32 {
      %go = arith.cmpi slt, %k, %c100 : i32
      scf.condition(%go) %k : i32
    } do {
    ^bb0(%k2: i32):
      %d = arith.muli %k2, %c3 : i32
      scf.yield %d : i32
    }
    %o1 = tt.addptr %o, %c1 : !tt.ptr<i32>, i32
    tt.store %o1, %w : !tt.ptr<i32>
    tt.return
  }
}
"""


@pytest.mark.parametrize("n", [0, 1, 10, 31])
def test_for_if_and_while(n):
    o = np.zeros(2, np.int32)
    run(prog(CONTROL), (1, 1, 1), ptr(o), n)
    want = 0
    for i in range(n):
        want = want + i if i % 3 == 0 else want - 1
    assert o.tolist() == [want, 243]


def entry(name, arg_types):
    """A module with one cuda_tile.entry; returns (module, builder, entry block)."""
    m = _core.Module()
    b = _core.Builder(m)
    b.set_loc("hand.tile", 1, 1)
    e = b.create("cuda_tile.entry", [], [], {
        "sym_name": _core.str_attr(name),
        "function_type": _core.type_attr(_core.func_type(arg_types, []))}, 1)
    blk = e.region(0).add_block(arg_types)
    b.set_insertion_point_to_end(blk)
    return m, b, blk


def i32c(b, v, t=I32):
    return b.create("cuda_tile.constant", [], [t], {"value": _core.int_attr(v, t)}).result(0)


def mem_attrs(segments, ordering=0):
    return {"memory_ordering_semantics": _core.int_attr(ordering, I32),
            "operandSegmentSizes": _core.i32_array_attr(segments)}


def cmpi(b, lhs, rhs, predicate):
    """Signed cuda_tile.cmpi; `predicate` is the comparison_predicate value."""
    return b.create("cuda_tile.cmpi", [lhs, rhs], [I1], {
        "comparison_predicate": _core.int_attr(predicate, I32), "signedness": _core.int_attr(1, I32)}).result(0)


def if_exits(b, cond, op, operands, after):
    """`if cond { op operands } else { yield }` (op a break, continue or return); building goes
    on at the end of block `after`."""
    br = b.create("cuda_tile.if", [cond], [], {}, 2)
    b.set_insertion_point_to_end(br.region(0).add_block())
    b.create(op, operands, [], {})
    b.set_insertion_point_to_end(br.region(1).add_block())
    b.create("cuda_tile.yield", [], [], {})
    b.set_insertion_point_to_end(after)


def test_return_and_break_inside_ifs():
    """Hand-built Tile IR: a `loop` left by `break` from inside an `if`, a `for` whose
    `continue` sits in an `if`, and a `return` inside an `if` that ends the program."""
    P = _core.ptr_type(I32)
    m, b, blk = entry("k", [P, I32])
    out, limit = blk.arg(0), blk.arg(1)
    zero, one, ten = i32c(b, 0), i32c(b, 1), i32c(b, 10)
    # loop iter_values(k = 0): if k >= limit { break k } ; continue k + 1
    loop = b.create("cuda_tile.loop", [zero], [I32], {}, 1)
    body = loop.region(0).add_block([I32])
    b.set_insertion_point_to_end(body)
    k = body.arg(0)
    if_exits(b, cmpi(b, k, limit, 5), "cuda_tile.break", [k], body)
    k1 = b.create("cuda_tile.addi", [k, one], [I32], {}).result(0)
    b.create("cuda_tile.continue", [k1], [], {})
    b.set_insertion_point_to_end(blk)
    # for i in [0, 10) iter(s = 0): if i odd { continue s } ; continue s + i
    f = b.create("cuda_tile.for", [zero, ten, one, zero], [I32], {}, 1)
    fb = f.region(0).add_block([I32, I32])
    b.set_insertion_point_to_end(fb)
    i, s = fb.arg(0), fb.arg(1)
    odd = b.create("cuda_tile.andi", [i, one], [I32], {}).result(0)
    if_exits(b, cmpi(b, odd, one, 0), "cuda_tile.continue", [s], fb)
    s1 = b.create("cuda_tile.addi", [s, i], [I32], {}).result(0)
    b.create("cuda_tile.continue", [s1], [], {})
    b.set_insertion_point_to_end(blk)
    tok = b.create("cuda_tile.store_ptr_tko", [out, loop.result(0)], [TOKEN], mem_attrs([1, 1, 0, 0])).result(0)
    out1 = b.create("cuda_tile.offset", [out, one], [P], {}).result(0)
    tok2 = b.create("cuda_tile.store_ptr_tko", [out1, f.result(0), tok], [TOKEN], mem_attrs([1, 1, 0, 1])).result(0)
    # if limit > 5 { return } ; out[2] = 99
    five = i32c(b, 5)
    if_exits(b, cmpi(b, limit, five, 4), "cuda_tile.return", [], blk)
    two = i32c(b, 2)
    out2 = b.create("cuda_tile.offset", [out, two], [P], {}).result(0)
    v99 = i32c(b, 99)
    b.create("cuda_tile.store_ptr_tko", [out2, v99, tok2], [TOKEN], mem_attrs([1, 1, 0, 1]))
    b.create("cuda_tile.return", [], [], {})
    m.verify()
    p = _core.TileProgram(m, "k")
    for lim, last in ((3, 99), (7, -1)):
        o = np.full(3, -1, np.int32)
        run(p, (2, 1, 1), ptr(o), lim)
        assert o.tolist() == [lim, 0 + 2 + 4 + 6 + 8, last]


REDUCE = r"""
module {
  tt.func public @k(%x: !tt.ptr<f32>, %o: !tt.ptr<f32>, %oi: !tt.ptr<i32>, %cs: !tt.ptr<f32>) {
    %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %re = tt.expand_dims %r {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
    %c16 = arith.constant dense<16> : tensor<8x1xi32>
    %ro = arith.muli %re, %c16 : tensor<8x1xi32>
    %c = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %ce = tt.expand_dims %c {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
    %rb = tt.broadcast %ro : tensor<8x1xi32> -> tensor<8x16xi32>
    %cb = tt.broadcast %ce : tensor<1x16xi32> -> tensor<8x16xi32>
    %off = arith.addi %rb, %cb : tensor<8x16xi32>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<8x16x!tt.ptr<f32>>
    %xp = tt.addptr %xs, %off : tensor<8x16x!tt.ptr<f32>>, tensor<8x16xi32>
    %v = tt.load %xp : tensor<8x16x!tt.ptr<f32>>
    %s = "tt.reduce"(%v) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      tt.reduce.return %t : f32
    }) : (tensor<8x16xf32>) -> tensor<16xf32>
    %os = tt.splat %o : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %op = tt.addptr %os, %c : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    tt.store %op, %s : tensor<16x!tt.ptr<f32>>
    %ib = tt.broadcast %ce : tensor<1x16xi32> -> tensor<8x16xi32>
    %mx:2 = "tt.reduce"(%v, %ib) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
      %vv = arith.maxnumf %a, %b : f32
      %ii = arith.addi %ai, %bi : i32
      tt.reduce.return %vv, %ii : f32, i32
    }) : (tensor<8x16xf32>, tensor<8x16xi32>) -> (tensor<8xf32>, tensor<8xi32>)
    %ois = tt.splat %oi : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %oip = tt.addptr %ois, %r : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    tt.store %oip, %mx#1 : tensor<8x!tt.ptr<i32>>
    %mxs = tt.splat %o : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
    %r16 = arith.constant dense<16> : tensor<8xi32>
    %r2 = arith.addi %r, %r16 : tensor<8xi32>
    %mxp = tt.addptr %mxs, %r2 : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
    tt.store %mxp, %mx#0 : tensor<8x!tt.ptr<f32>>
    %sc = "tt.scan"(%v) <{axis = 1 : i32, reverse = true}> ({
    ^bb0(%a: f32, %b: f32):
      %half = arith.constant 0.5 : f32
      %t = arith.addf %a, %b : f32
      %t2 = arith.mulf %half, %half : f32
      %t3 = arith.addf %t2, %half : f32
      %t4 = arith.subf %t3, %t3 : f32
      %t5 = arith.addf %t, %t4 : f32
      tt.scan.return %t5 : f32
    }) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %css = tt.splat %cs : !tt.ptr<f32> -> tensor<8x16x!tt.ptr<f32>>
    %csp = tt.addptr %css, %off : tensor<8x16x!tt.ptr<f32>>, tensor<8x16xi32>
    tt.store %csp, %sc : tensor<8x16x!tt.ptr<f32>>
    tt.return
  }
}
"""


def test_reductions_and_scans(rng):
    """A single-op reduction (the fast loops), a tuple reduction and a scan whose regions hold
    several ops (run on whole slices), with the identities the conversion attaches."""
    x = rng.standard_normal((8, 16)).astype(np.float32)
    o, oi, cs = np.zeros(24, np.float32), np.zeros(8, np.int32), np.zeros((8, 16), np.float32)
    text = _core.print_tile(convert(REDUCE, "k"))
    assert text.count("reduce ") == 2 and "scan " in text and "reverse=true" in text
    assert "identities=[0xFF800000 : f32, 0 : i32]" in text
    run(prog(REDUCE), (1, 1, 1), ptr(x), ptr(o), ptr(oi), ptr(cs))
    np.testing.assert_allclose(o[:16], x.sum(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(o[16:], x.max(1))
    np.testing.assert_array_equal(oi, np.full(8, sum(range(16))))
    want = np.flip(np.cumsum(np.flip(x.astype(np.float64), 1), 1), 1)
    np.testing.assert_allclose(cs, want, rtol=1e-5, atol=1e-5)


def dot_kernel(a_t, acc_t, prec=""):
    attrs = f", inputPrecision = {prec}" if prec else ""
    return rf"""
module {{
  tt.func public @k(%a: !tt.ptr<{a_t}>, %b: !tt.ptr<{a_t}>, %c: !tt.ptr<{acc_t}>) {{
    %r = tt.make_range {{end = 32 : i32, start = 0 : i32}} : tensor<32xi32>
    %re = tt.expand_dims %r {{axis = 1 : i32}} : tensor<32xi32> -> tensor<32x1xi32>
    %c32 = arith.constant dense<32> : tensor<32x1xi32>
    %ro = arith.muli %re, %c32 : tensor<32x1xi32>
    %ce = tt.expand_dims %r {{axis = 0 : i32}} : tensor<32xi32> -> tensor<1x32xi32>
    %rb = tt.broadcast %ro : tensor<32x1xi32> -> tensor<32x32xi32>
    %cb = tt.broadcast %ce : tensor<1x32xi32> -> tensor<32x32xi32>
    %off = arith.addi %rb, %cb : tensor<32x32xi32>
    %as = tt.splat %a : !tt.ptr<{a_t}> -> tensor<32x32x!tt.ptr<{a_t}>>
    %ap = tt.addptr %as, %off : tensor<32x32x!tt.ptr<{a_t}>>, tensor<32x32xi32>
    %av = tt.load %ap : tensor<32x32x!tt.ptr<{a_t}>>
    %bs = tt.splat %b : !tt.ptr<{a_t}> -> tensor<32x32x!tt.ptr<{a_t}>>
    %bp = tt.addptr %bs, %off : tensor<32x32x!tt.ptr<{a_t}>>, tensor<32x32xi32>
    %bv = tt.load %bp : tensor<32x32x!tt.ptr<{a_t}>>
    %cs = tt.splat %c : !tt.ptr<{acc_t}> -> tensor<32x32x!tt.ptr<{acc_t}>>
    %cp = tt.addptr %cs, %off : tensor<32x32x!tt.ptr<{acc_t}>>, tensor<32x32xi32>
    %cv = tt.load %cp : tensor<32x32x!tt.ptr<{acc_t}>>
    %d = tt.dot %av, %bv, %cv{attrs} : tensor<32x32x{a_t}> * tensor<32x32x{a_t}> -> tensor<32x32x{acc_t}>
    tt.store %cp, %d : tensor<32x32x!tt.ptr<{acc_t}>>
    tt.return
  }}
}}
"""


def tf32(x):
    u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x1000) & 0xFFFFE000).astype(np.uint32).view(np.float32)


@pytest.mark.parametrize("case", ["f16->f32", "f16->f16", "f32-tf32", "f32-ieee", "i8"])
def test_mma(case, rng):
    a_t, acc_t, prec = {"f16->f32": ("f16", "f32", ""), "f16->f16": ("f16", "f16", ""),
                        "f32-tf32": ("f32", "f32", "tf32"), "f32-ieee": ("f32", "f32", "ieee"),
                        "i8": ("i8", "i32", "")}[case]
    np_t = {"f16": np.float16, "f32": np.float32, "i8": np.int8, "i32": np.int32}
    if a_t == "i8":
        a = rng.integers(-128, 128, (32, 32)).astype(np.int8)
        b = rng.integers(-128, 128, (32, 32)).astype(np.int8)
        c = rng.integers(-1000, 1000, (32, 32)).astype(np.int32)
    else:
        a = rng.standard_normal((32, 32)).astype(np_t[a_t])
        b = rng.standard_normal((32, 32)).astype(np_t[a_t])
        c = rng.standard_normal((32, 32)).astype(np_t[acc_t])
    src = dot_kernel(a_t, acc_t, prec)
    text = _core.print_tile(convert(src))
    assert ("mmai" if a_t == "i8" else "mmaf") in text
    assert ("ftof" in text) == (case == "f32-tf32")
    want = c.astype(np.float64) + (tf32(a) if case == "f32-tf32" else a).astype(np.float64) @ (
        tf32(b) if case == "f32-tf32" else b).astype(np.float64)
    out = c.copy()
    run(prog(src), (1, 1, 1), ptr(a), ptr(b), ptr(out))
    if a_t == "i8":
        np.testing.assert_array_equal(out, want.astype(np.int64).astype(np.int32))
    else:
        tol = 1e-2 if acc_t == "f16" else 1e-4
        np.testing.assert_allclose(out.astype(np.float64), want, rtol=tol, atol=tol)
    # Tile IR's result equals the TTIR executor's bit for bit
    ref = c.copy()
    _core.TTIRProgram(_core.parse_ttir(src), "k").run(grid=(1, 1, 1), args=[ptr(a), ptr(b), ptr(ref)])
    np.testing.assert_array_equal(out, ref)


def test_mmai_unsigned_operands(rng):
    """Built by hand (the conversion only makes signed i8 dots): mmai with u8 x s8."""
    P8, P32 = _core.ptr_type(I8), _core.ptr_type(I32)
    t8, t32 = _core.tensor_type([16, 16], I8), _core.tensor_type([16, 16], I32)
    m, b, blk = entry("k", [P8, P8, P32])
    iota = b.create("cuda_tile.iota", [], [_core.tensor_type([16], I32)], {}).result(0)
    rows = b.create("cuda_tile.reshape", [iota], [_core.tensor_type([16, 1], I32)], {}).result(0)
    cols = b.create("cuda_tile.reshape", [iota], [_core.tensor_type([1, 16], I32)], {}).result(0)
    c16 = b.create("cuda_tile.constant", [], [_core.tensor_type([16, 1], I32)],
                   {"value": _core.dense_attr(16, _core.tensor_type([16, 1], I32))}).result(0)
    ro = b.create("cuda_tile.muli", [rows, c16], [_core.tensor_type([16, 1], I32)], {}).result(0)
    rb = b.create("cuda_tile.broadcast", [ro], [t32], {}).result(0)
    cb = b.create("cuda_tile.broadcast", [cols], [t32], {}).result(0)
    off = b.create("cuda_tile.addi", [rb, cb], [t32], {}).result(0)

    def ptrs(p, elem):
        one = b.create("cuda_tile.reshape", [p], [_core.tensor_type([1, 1], _core.ptr_type(elem))], {}).result(0)
        full = b.create("cuda_tile.broadcast", [one], [_core.tensor_type([16, 16], _core.ptr_type(elem))], {}).result(0)
        return b.create("cuda_tile.offset", [full, off], [full.type], {}).result(0)

    a = b.create("cuda_tile.load_ptr_tko", [ptrs(blk.arg(0), I8)], [t8, TOKEN], mem_attrs([1, 0, 0, 0])).result(0)
    bb = b.create("cuda_tile.load_ptr_tko", [ptrs(blk.arg(1), I8)], [t8, TOKEN], mem_attrs([1, 0, 0, 0])).result(0)
    z = b.create("cuda_tile.constant", [], [t32], {"value": _core.dense_attr(0, t32)}).result(0)
    d = b.create("cuda_tile.mmai", [a, bb, z], [t32], {
        "signedness_lhs": _core.int_attr(0, I32), "signedness_rhs": _core.int_attr(1, I32)}).result(0)
    b.create("cuda_tile.store_ptr_tko", [ptrs(blk.arg(2), I32), d], [TOKEN], mem_attrs([1, 1, 0, 0]))
    b.create("cuda_tile.return", [], [], {})
    m.verify()
    x = rng.integers(0, 256, (16, 16)).astype(np.uint8)
    y = rng.integers(-128, 128, (16, 16)).astype(np.int8)
    out = np.zeros((16, 16), np.int32)
    run(_core.TileProgram(m, "k"), (1, 1, 1), ptr(x), ptr(y), ptr(out))
    np.testing.assert_array_equal(out, x.astype(np.int64) @ y.astype(np.int64))


ARITH = r"""
module {
  tt.func public @k(%x: !tt.ptr<i32>, %f: !tt.ptr<f32>, %o: !tt.ptr<i32>, %of: !tt.ptr<f32>) {
    %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %xs = tt.splat %x : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %xp = tt.addptr %xs, %r : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    %a = tt.load %xp : tensor<8x!tt.ptr<i32>>
    %c7 = arith.constant dense<7> : tensor<8xi32>
    %c2 = arith.constant dense<2> : tensor<8xi32>
    %d1 = arith.divsi %a, %c7 : tensor<8xi32>
    %d2 = arith.divui %a, %c7 : tensor<8xi32>
    %d3 = arith.remsi %a, %c7 : tensor<8xi32>
    %d4 = arith.shrsi %a, %c2 : tensor<8xi32>
    %d5 = arith.shrui %a, %c2 : tensor<8xi32>
    %d6 = arith.maxui %a, %c7 : tensor<8xi32>
    %m1 = arith.cmpi ult, %a, %c7 : tensor<8xi32>
    %d7 = arith.extui %m1 : tensor<8xi1> to tensor<8xi32>
    %fs = tt.splat %f : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
    %fp = tt.addptr %fs, %r : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
    %g = tt.load %fp : tensor<8x!tt.ptr<f32>>
    %one = arith.constant dense<1.0> : tensor<8xf32>
    %mx = arith.maximumf %g, %one : tensor<8xf32>
    %mn = arith.minnumf %g, %one : tensor<8xf32>
    %u = arith.cmpf ult, %g, %one : tensor<8xf32>
    %o2 = arith.cmpf olt, %g, %one : tensor<8xf32>
    %uu = arith.extui %u : tensor<8xi1> to tensor<8xi32>
    %oo = arith.extui %o2 : tensor<8xi1> to tensor<8xi32>
    %ten = arith.constant dense<10> : tensor<8xi32>
    %uo = arith.muli %uu, %ten : tensor<8xi32>
    %d8 = arith.addi %uo, %oo : tensor<8xi32>
    %j1 = tt.join %d1, %d2 : tensor<8xi32> -> tensor<8x2xi32>
    %j2 = tt.join %d3, %d4 : tensor<8xi32> -> tensor<8x2xi32>
    %j3 = tt.join %d5, %d6 : tensor<8xi32> -> tensor<8x2xi32>
    %j4 = tt.join %d7, %d8 : tensor<8xi32> -> tensor<8x2xi32>
    %k1 = tt.join %j1, %j2 : tensor<8x2xi32> -> tensor<8x2x2xi32>
    %k2 = tt.join %j3, %j4 : tensor<8x2xi32> -> tensor<8x2x2xi32>
    %l = tt.join %k1, %k2 : tensor<8x2x2xi32> -> tensor<8x2x2x2xi32>
    %flat = tt.reshape %l : tensor<8x2x2x2xi32> -> tensor<64xi32>
    %r64 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %os = tt.splat %o : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>>
    %op = tt.addptr %os, %r64 : tensor<64x!tt.ptr<i32>>, tensor<64xi32>
    tt.store %op, %flat : tensor<64x!tt.ptr<i32>>
    %jf = tt.join %mx, %mn : tensor<8xf32> -> tensor<8x2xf32>
    %s:2 = tt.split %jf : tensor<8x2xf32> -> tensor<8xf32>
    %ofs = tt.splat %of : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
    %ofp = tt.addptr %ofs, %r : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
    tt.store %ofp, %s#0 : tensor<8x!tt.ptr<f32>>
    %c8 = arith.constant dense<8> : tensor<8xi32>
    %r8 = arith.addi %r, %c8 : tensor<8xi32>
    %ofp2 = tt.addptr %ofs, %r8 : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
    tt.store %ofp2, %s#1 : tensor<8x!tt.ptr<f32>>
    tt.return
  }
}
"""


def test_signedness_nan_rules_join_and_split(rng):
    """Attributes carry what TTIR op names do: signed/unsigned division, shifts, max and
    comparisons; cmpf ordered vs unordered; maxf with propagate_nan vs minf without; join and
    split become cat and extract."""
    text = _core.print_tile(convert(ARITH))
    for piece in ("divi", "signed", "unsigned", "cmpf less_than unordered",
                  "cmpf less_than ordered", "maxf", "propagate_nan", "cat", "extract"):
        assert piece in text, piece
    x = np.array([-15, -1, 0, 6, 7, 100, -(2**31), 2**31 - 1], np.int32)
    f = np.array([np.nan, -2, 0.5, 1, 3, np.inf, -np.inf, np.nan], np.float32)
    o = np.zeros(64, np.int32)
    of = np.zeros(16, np.float32)
    run(prog(ARITH), (1, 1, 1), ptr(x), ptr(f), ptr(o), ptr(of))
    u = x.view(np.uint32).astype(np.int64)
    d1 = np.trunc(x / 7).astype(np.int64)
    d = [d1, u // 7, x - d1 * 7, x >> 2, (u >> 2), np.maximum(u, 7), (u < 7),
         10 * (np.isnan(f) | (f < 1)) + (f < 1)]
    # join(join(join(d1, d2), join(d3, d4)), join(join(d5, d6), join(d7, d8))) flattened: the
    # last join is the minor dimension.
    cols = [d[k] for k in (0, 4, 2, 6, 1, 5, 3, 7)]
    want = np.stack([np.asarray(c, np.int64) for c in cols], axis=1).astype(np.uint32).view(np.int32)
    np.testing.assert_array_equal(o.reshape(8, 8), want)
    ref = np.zeros(64, np.int32)
    _core.TTIRProgram(_core.parse_ttir(ARITH), "k").run(
        grid=(1, 1, 1), args=[ptr(x), ptr(f), ptr(ref), ptr(np.zeros(16, np.float32))])
    np.testing.assert_array_equal(o, ref)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(of[:8], np.where(np.isnan(f), np.nan, np.maximum(f, 1)))
        np.testing.assert_array_equal(of[8:], np.where(np.isnan(f), 1, np.minimum(f, 1)))


FTZ = r"""
module {
  tt.func public @k(%x: !tt.ptr<f32>, %o: !tt.ptr<f32>) {
    %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
    %xp = tt.addptr %xs, %r : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
    %a = tt.load %xp : tensor<4x!tt.ptr<f32>>
    %c = arith.constant dense<0.5> : tensor<4xf32>
    %m = arith.mulf %a, %c : tensor<4xf32>
    %os = tt.splat %o : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
    %op = tt.addptr %os, %r : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
    tt.store %op, %m : tensor<4x!tt.ptr<f32>>
    tt.return
  }
}
"""


@pytest.mark.parametrize("ftz", [False, True])
def test_flush_to_zero(ftz):
    tiny = np.float32(1.5e-38)  # normal; half of it is denormal
    x = np.array([tiny, -tiny, 4e-45 * 2, 3.0], np.float32)  # 4e-45: a denormal input
    o = np.zeros(4, np.float32)
    src_prog = prog(FTZ, ftz=ftz)
    assert ("flush_to_zero" in _core.print_tile(convert(FTZ, ftz=ftz))) == ftz
    run(src_prog, (1, 1, 1), ptr(x), ptr(o))
    want = x * np.float32(0.5)
    if ftz:
        want[:3] = 0
        assert np.signbit(o[1])
    np.testing.assert_array_equal(o, want)


PRINT = r"""
module {
  tt.func public @k(%x: !tt.ptr<i32>) {
    %pid = tt.get_program_id x : i32
    %r = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32>
    %xs = tt.splat %x : !tt.ptr<i32> -> tensor<2x!tt.ptr<i32>>
    %xp = tt.addptr %xs, %r : tensor<2x!tt.ptr<i32>>, tensor<2xi32>
    %v = tt.load %xp : tensor<2x!tt.ptr<i32>>
    tt.print " pid/value: " {hex = false, isSigned = array<i32: 1, 1>} : %pid, %v : i32, tensor<2xi32>
    tt.return
  }
}
"""


def test_print_formats_each_element(capfd):
    x = np.array([12345, -678], np.int32)
    run(prog(PRINT), (1, 1, 1), ptr(x), threads=1)
    out = capfd.readouterr().out
    assert " pid/value:  0 12345\n" in out and " pid/value:  0 -678\n" in out


ASSERT = r"""
module {
  tt.func public @k(%x: !tt.ptr<i32>) {
    %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %xs = tt.splat %x : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>
    %xp = tt.addptr %xs, %r : tensor<4x!tt.ptr<i32>>, tensor<4xi32>
    %v = tt.load %xp : tensor<4x!tt.ptr<i32>>
    %z = arith.constant dense<0> : tensor<4xi32>
    %ok = arith.cmpi sgt, %v, %z : tensor<4xi32>
    tt.assert %ok, "x must be positive" : tensor<4xi1>
    tt.return
  }
}
"""


def test_assert():
    x = np.array([1, 2, 3, 4], np.int32)
    run(prog(ASSERT), (1, 1, 1), ptr(x))
    x[2] = -1
    with pytest.raises(AssertionError, match="x must be positive"):
        run(prog(ASSERT), (1, 1, 1), ptr(x))


def test_unsupported_rounding_is_refused_at_prepare():
    m, b, blk = entry("k", [F32])
    b.create("cuda_tile.addf", [blk.arg(0), blk.arg(0)], [F32], {"rounding": _core.int_attr(2, I32)})
    b.create("cuda_tile.return", [], [], {})
    with pytest.raises(RuntimeError, match="rounding mode negative_inf is not supported"):
        _core.TileProgram(m, "k")


# ---- the checker ----------------------------------------------------------------------------


def store_then_load(with_token):
    """out[0] = x[0] + 1 via a store to x and a load of x: ordered only if the load takes the
    store's token."""
    P = _core.ptr_type(F32)
    m, b, blk = entry("k", [P, P])
    x, out = blk.arg(0), blk.arg(1)
    b.set_loc("race.tile", 10, 3)
    one = b.create("cuda_tile.constant", [], [F32], {"value": _core.float_attr(1.0, F32)}).result(0)
    st = b.create("cuda_tile.store_ptr_tko", [x, one], [TOKEN], mem_attrs([1, 1, 0, 0])).result(0)
    b.set_loc("race.tile", 11, 3)
    ops = [x, st] if with_token else [x]
    ld = b.create("cuda_tile.load_ptr_tko", ops, [F32, TOKEN],
                  mem_attrs([1, 0, 0, 1 if with_token else 0]))
    b.set_loc("race.tile", 12, 3)
    b.create("cuda_tile.store_ptr_tko", [out, ld.result(0)], [TOKEN], mem_attrs([1, 1, 0, 0]))
    b.create("cuda_tile.return", [], [], {})
    m.verify()
    return m


def test_checker_catches_a_missing_token_edge():
    x, out = np.zeros(1, np.float32), np.zeros(1, np.float32)
    p = _core.TileProgram(store_then_load(False), "k", check=True)
    assert p.check
    with pytest.raises(RuntimeError) as e:
        run(p, (3, 1, 1), ptr(x), ptr(out))
    msg = str(e.value)
    assert msg.startswith("unordered accesses in kernel k, program (")
    assert re.search(r"'cuda_tile.store_ptr_tko' at race.tile:10:3 \(a write\) and "
                     r"'cuda_tile.load_ptr_tko' at race.tile:11:3 \(a read\) both access "
                     r"address 0x[0-9a-f]+, and no chain of tokens orders them", msg), msg
    # without the checker the program runs (on the CPU program order happens to hold)
    run(_core.TileProgram(store_then_load(False), "k"), (3, 1, 1), ptr(x), ptr(out))
    # with the token edge there is nothing to report
    out[:] = 0
    run(_core.TileProgram(store_then_load(True), "k", check=True), (3, 1, 1), ptr(x), ptr(out))
    assert out[0] == 1


SHIFT = r"""
module {
  tt.func public @k(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %n step %c1  : i32 {
      %xp = tt.addptr %x, %i : !tt.ptr<f32>, i32
      %v = tt.load %xp : !tt.ptr<f32>
      %i1 = arith.addi %i, %c1 : i32
      %yp = tt.addptr %y, %i1 : !tt.ptr<f32>, i32
      %w = arith.addf %v, %v : f32
      tt.store %yp, %w : !tt.ptr<f32>
      scf.yield
    }
    tt.return
  }
}
"""


def test_checker_quiet_on_loop_carried_ordering():
    """y[i + 1] = 2 * x[i] with y == x and the alias class: the loop-carried tokens must
    order the load of iteration i + 1 after the store of iteration i."""
    buf = np.zeros(9, np.float32)
    buf[0] = 1
    good = _core.TileProgram(convert(SHIFT, alias_classes=[[0, 1]]), "k", check=True)
    run(good, (1, 1, 1), ptr(buf), ptr(buf), 8)
    np.testing.assert_array_equal(buf, 2.0 ** np.arange(9))


def test_checker_catches_aliasing_the_conversion_was_not_told_about():
    """y[i + 1] = 2 * x[i] in a loop. Called with y == x it is a recurrence: the load of
    iteration i + 1 must follow the store of iteration i. Converted as if x and y were
    distinct (no alias class), the two are unordered, a real race on a GPU; converted with
    the alias class the runtime derives from equal addresses, the loop-carried tokens order
    them (test_checker_quiet_on_loop_carried_ordering)."""
    buf = np.zeros(9, np.float32)
    buf[0] = 1
    bad = _core.TileProgram(convert(SHIFT), "k", check=True)
    with pytest.raises(RuntimeError, match=r"unordered accesses in kernel k, program \(0, 0, 0\): "
                       r"'cuda_tile.store_ptr_tko' at case.ttir:\d+:\d+ \(a write\) and "
                       r"'cuda_tile.load_ptr_tko' at case.ttir:\d+:\d+ \(a read\)"):
        run(bad, (1, 1, 1), ptr(buf), ptr(buf), 8)
    # distinct arrays: no address is shared, nothing to report even without the alias class
    x, y = np.arange(9, dtype=np.float32), np.zeros(9, np.float32)
    run(bad, (1, 1, 1), ptr(x), ptr(y), 8)
    np.testing.assert_array_equal(y[1:], 2 * x[:8])


IN_PLACE = r"""
module {
  tt.func public @k(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>) {
    %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %xp = tt.addptr %xs, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    %v = tt.load %xp : tensor<16x!tt.ptr<f32>>
    STORES
    tt.return
  }
}
"""

# x[i] = 2 * x[i]: the store consumes the loaded tile
DOUBLES = """%w = arith.addf %v, %v : tensor<16xf32>
    tt.store %xp, %w : tensor<16x!tt.ptr<f32>>"""
# x[i] = 0, then y[i] = (the old) x[i]: the first store consumes nothing of the load
ZEROES = """%z = arith.constant dense<0.000000e+00> : tensor<16xf32>
    tt.store %xp, %z : tensor<16x!tt.ptr<f32>>
    %ys = tt.splat %y : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %yp = tt.addptr %ys, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    tt.store %yp, %v : tensor<16x!tt.ptr<f32>>"""


def test_checker_follows_data_dependences():
    """Tile IR orders an op after the ops whose values it consumes: converted without tokens
    (passes cse, dce), a store of the loaded tile doubled is ordered after the load, and the
    checker says nothing; a store of zeros over the loaded addresses is not, and it reports."""
    x = np.arange(16, dtype=np.float32)
    p = _core.TileProgram(convert(IN_PLACE.replace("STORES", DOUBLES), passes=["cse", "dce"]),
                          "k", check=True)
    run(p, (1, 1, 1), ptr(x), ptr(x))
    np.testing.assert_array_equal(x, 2 * np.arange(16))
    y = np.zeros(16, np.float32)
    racy = _core.TileProgram(convert(IN_PLACE.replace("STORES", ZEROES), passes=["cse", "dce"]),
                             "k", check=True)
    with pytest.raises(RuntimeError, match=r"'cuda_tile.load_view_tko' at case.ttir:\d+:\d+ \(a "
                       r"read\) and 'cuda_tile.store_view_tko' at case.ttir:\d+:\d+ \(a write\)|"
                       r"'cuda_tile.store_view_tko' at case.ttir:\d+:\d+ \(a write\) and "
                       r"'cuda_tile.load_view_tko' at case.ttir:\d+:\d+ \(a read\)"):
        run(racy, (1, 1, 1), ptr(x), ptr(y))
    # with the token pass the zeros wait for the load
    x[:] = np.arange(16)
    run(_core.TileProgram(convert(IN_PLACE.replace("STORES", ZEROES)), "k", check=True),
        (1, 1, 1), ptr(x), ptr(y))
    np.testing.assert_array_equal(y, np.arange(16))


SHIFTED = r"""
module {
  tt.func public @k(%x: !tt.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant 0.000000e+00 : f32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%prev = %zero) -> (f32) : i32 {
      %xp = tt.addptr %x, %i : !tt.ptr<f32>, i32
      %v = tt.load %xp : !tt.ptr<f32>
      tt.store %xp, STORED : !tt.ptr<f32>
      scf.yield %v : f32
    }
    tt.return
  }
}
"""


def test_checker_follows_data_dependences_per_iteration():
    """x[i] = x[i - 1] (the value loaded one iteration before) without tokens: the store of
    iteration i consumes iteration i - 1's load, not the load of x[i] it overwrites, so the
    checker reports them; x[i] = x[i] + x[i - 1] consumes both and is ordered."""
    x = np.arange(8, dtype=np.float32)
    racy = _core.TileProgram(convert(SHIFTED.replace("STORED", "%prev"), passes=["cse", "dce"]),
                             "k", check=True)
    with pytest.raises(RuntimeError, match="unordered accesses in kernel k"):
        run(racy, (1, 1, 1), ptr(x), 8)
    src = SHIFTED.replace("tt.store %xp, STORED", "%s = arith.addf %v, %prev : f32\n"
                          "      tt.store %xp, %s")
    x[:] = np.arange(8)
    run(_core.TileProgram(convert(src, passes=["cse", "dce"]), "k", check=True), (1, 1, 1),
        ptr(x), 8)
    np.testing.assert_array_equal(x, np.arange(8) + np.concatenate([[0], np.arange(7)]))


SUM_FROM_TABLE = r"""
module {
  tt.func public @k(%t: !tt.ptr<i64>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c16 = arith.constant 16 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<16xf32>
    %rng = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %pa = tt.load %t : !tt.ptr<i64>
    %t1 = tt.addptr %t, %c1 : !tt.ptr<i64>, i32
    %pc = tt.load %t1 : !tt.ptr<i64>
    %a = tt.int_to_ptr %pa : i64 -> !tt.ptr<f32>
    %c = tt.int_to_ptr %pc : i64 -> !tt.ptr<f32>
    %as = tt.splat %a : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<16xf32>) : i32 {
      %o = arith.muli %i, %c16 : i32
      %os = tt.splat %o : i32 -> tensor<16xi32>
      %off = arith.addi %os, %rng : tensor<16xi32>
      %ap = tt.addptr %as, %off : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
      %v = tt.load %ap : tensor<16x!tt.ptr<f32>>
      %acc2 = arith.addf %acc, %v : tensor<16xf32>
      scf.yield %acc2 : tensor<16xf32>
    }
    %cs = tt.splat %c : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %cp = tt.addptr %cs, %rng : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    tt.store %cp, %s : tensor<16x!tt.ptr<f32>>
    tt.return
  }
}
"""


def test_checker_quiet_on_a_store_of_a_loops_covered_reads():
    """c = sum over i of a[16 i : 16 i + 16], the pointers read from a table, with c == a: the
    store overwrites a[0:16], which the first iteration read. The token pass gives the store no
    token of the loop's reads (covered_reads.h: it consumes their values); the checker, which
    follows data dependences too, finds the store ordered after every load."""
    a = np.arange(64, dtype=np.float32)
    want = a.reshape(4, 16).sum(0)
    table = np.array([a.ctypes.data, a.ctypes.data], np.int64)
    m = convert(SUM_FROM_TABLE)
    text = _core.print_tile(m)
    # the loop result that carries the load's token: the position, among `continue`'s operands,
    # of the join of that token
    loop = re.search(r"(%\d+):\d+ = for", text).group(1)
    load = re.search(r"(%\d+):2 = load_ptr_tko weak %\d+ token=", text).group(1)
    carried = re.search(rf"(%\d+) = join_tokens [^\n]*{load}#1\b", text).group(1)
    operands = re.search(r"continue ([^:]*):", text).group(1).split(", ")
    slot = f"{loop}#{operands.index(carried)}"
    lines = text.splitlines()
    store = next(i for i, line in enumerate(lines) if "store_view_tko" in line)
    joined = lines[store - 1]  # the store's token
    assert "join_tokens" in joined and slot not in re.findall(r"%\d+#\d+", joined), joined
    run(_core.TileProgram(m, "k", check=True), (1, 1, 1), ptr(table), 4)
    np.testing.assert_array_equal(a[:16], want)


@pytest.mark.parametrize("name", ["VADD", "BLOCK2D", "GATHER", "ATOMICS", "CONTROL", "REDUCE"])
def test_checker_is_quiet_on_converted_kernels(name, rng):
    src = globals()[name].replace("PAD", "0.000000e+00")
    p = _core.TileProgram(convert(src), "k", check=True)
    f = np.zeros(8192, np.float32)
    i = np.zeros(4096, np.int32)
    if name == "VADD":
        run(p, (4, 1, 1), ptr(f), ptr(f[1000:]), ptr(f[2000:]), 1000)
    elif name == "BLOCK2D":
        run(p, (3, 3, 1), ptr(f), ptr(f[4000:]), 37, 45, 50)
    elif name == "GATHER":
        i[:64] = rng.permutation(64)
        run(p, (1, 1, 1), ptr(f), ptr(i), ptr(f[100:]), 50)
    elif name == "ATOMICS":
        run(p, (8, 1, 1), ptr(i), ptr(f), ptr(f[10:]), ptr(i[10:]))
    elif name == "CONTROL":
        run(p, (1, 1, 1), ptr(i), 17)
    else:
        run(p, (1, 1, 1), ptr(f), ptr(f[200:]), ptr(i), ptr(f[300:]))


# x[0:16] + x[16:32] + ... over `trips` blocks of a descriptor of `n` elements: blocks past n
# read the padding (zeros).
DESC_SUM = r"""
module {
  tt.func public @k(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32, %trips: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c16 = arith.constant 16 : i32
    %c1_i64 = arith.constant 1 : i64
    %d = tt.make_tensor_descriptor %x, [%n], [%c1_i64] : <f32>, <tensor<16xf32>>
    %z = arith.constant dense<0.000000e+00> : tensor<16xf32>
    %acc = scf.for %i = %c0 to %trips step %c1 iter_args(%a = %z) -> (tensor<16xf32>) : i32 {
      %o = arith.muli %i, %c16 : i32
      %v = tt.descriptor_load %d[%o] : !tt.tensordesc<tensor<16xf32>> -> tensor<16xf32>  // marker: load
      %s = arith.addf %a, %v : tensor<16xf32>
      scf.yield %s : tensor<16xf32>
    }
    %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %os = tt.splat %out : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %op = tt.addptr %os, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    tt.store %op, %acc : tensor<16x!tt.ptr<f32>>
    tt.return
  }
}
"""


def test_a_tile_index_outside_the_view_is_an_error_not_padding(rng):
    """Tile IR leaves a view access at a tile index outside the view's index space undefined:
    the executor stops there (naming the op's line and the index), so a conversion that plans
    such an access fails on the CPU as it would on a GPU. Converted as planned, the loop's
    blocks past the descriptor's end take the loop's other version and read zeros; with the
    conditions assumed (version_loops off, a measurement switch) they reach the view."""
    x = rng.standard_normal(32).astype(np.float32)
    out = np.full(16, np.nan, np.float32)
    run(prog(DESC_SUM), (1, 1, 1), ptr(x), ptr(out), 32, 4)
    np.testing.assert_allclose(out, x[:16] + x[16:], rtol=1e-6)
    out[:] = np.nan
    unsafe = prog(DESC_SUM, version_loops=False)
    run(unsafe, (1, 1, 1), ptr(x), ptr(out), 32, 2)  # in range: fine
    np.testing.assert_allclose(out, x[:16] + x[16:], rtol=1e-6)
    with pytest.raises(RuntimeError, match=rf"view access in kernel k at case\.ttir:"
                       rf"{line_of(DESC_SUM, 'marker: load')}:\d+: a tile index outside the "
                       r"view's index space \(index of shape/tile per dimension: 2 of 32/16\)"):
        run(unsafe, (1, 1, 1), ptr(x), ptr(out), 32, 4)

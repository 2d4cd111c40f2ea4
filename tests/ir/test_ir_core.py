"""The C++ IR core through its bindings: types, printing, verification and the TTIR passes.

Each test builds a small module by hand so it pins one behaviour of the core, independent of
the frontend.
"""

import pytest

from triton_tile import _core as C

i1, i32, i64 = C.int_type(1), C.int_type(32), C.int_type(64)
f32 = C.float_type("f32")
pf32 = C.ptr_type(f32)


def make_func(m, b, name, inputs, results=(), visibility="public"):
    ft = C.func_type(list(inputs), list(results))
    fn = b.create(
        "tt.func",
        [],
        [],
        {
            "sym_name": C.str_attr(name),
            "function_type": C.type_attr(ft),
            "sym_visibility": C.str_attr(visibility),
        },
        1,
    )
    blk = fn.region(0).add_block(list(inputs))
    return fn, blk


def const(b, v, t=i32):
    return b.create("arith.constant", [], [t], {"value": C.int_attr(v, t)}).result(0)


def test_types_are_interned_and_spelled_like_mlir():
    assert C.int_type(32) == i32 and hash(C.int_type(32)) == hash(i32)
    assert str(C.tensor_type([4, 8], pf32)) == "tensor<4x8x!tt.ptr<f32>>"
    assert str(C.func_type([i32, pf32], [])) == "(i32, !tt.ptr<f32>) -> ()"
    assert C.tensor_type([4], f32).shape == [4]
    assert C.tensor_type([4], f32).element_type == f32
    # A rank-0 tensor is the scalar itself.
    assert C.tensor_type([], f32) == f32
    with pytest.raises(ValueError):
        C.int_type(7)


def test_unknown_op_is_rejected_at_creation():
    m = C.Module()
    b = C.Builder(m)
    with pytest.raises(ValueError, match="unknown operation"):
        b.create("tt.not_an_op", [], [])


def test_verifier_reports_location_and_rule():
    m = C.Module()
    b = C.Builder(m)
    _, blk = make_func(m, b, "k", [i32])
    b.set_insertion_point_to_end(blk)
    b.set_loc("kernel.py", 7, 11)
    b.create("arith.addi", [blk.arg(0), const(b, 1, i64)], [i32])
    b.create("tt.return", [], [])
    with pytest.raises(C.IRError, match=r"kernel.py:7:11: 'arith.addi' op operands must have"):
        m.verify()


def test_missing_terminator_is_an_error():
    m = C.Module()
    b = C.Builder(m)
    make_func(m, b, "k", [])
    with pytest.raises(C.IRError, match="does not end with a terminator"):
        m.verify()


def test_cse_dce_and_constant_folding():
    m = C.Module()
    b = C.Builder(m)
    _, blk = make_func(m, b, "k", [pf32, i32])
    b.set_insertion_point_to_end(blk)
    x = b.create("arith.muli", [const(b, 6), const(b, 7)], [i32]).result(0)
    y1 = b.create("arith.addi", [blk.arg(1), x], [i32]).result(0)
    y2 = b.create("arith.addi", [blk.arg(1), x], [i32]).result(0)
    b.create("arith.subi", [y1, y2], [i32])  # dead
    p = b.create("tt.addptr", [blk.arg(0), y2], [pf32]).result(0)
    b.create("tt.store", [p, b.create("arith.constant", [], [f32],
                                      {"value": C.float_attr(1.5, f32)}).result(0)], [])
    b.create("tt.return", [], [])
    m.verify()
    C.run_passes(m, ["canonicalize", "cse", "dce"])
    text = str(m)
    assert "%c42_i32 = arith.constant 42 : i32" in text
    assert text.count("arith.addi") == 1
    assert "arith.subi" not in text and "arith.muli" not in text
    assert "tt.store" in text


def test_inline_keeps_call_chain_in_locations():
    m = C.Module()
    b = C.Builder(m)
    _, cblk = make_func(m, b, "helper", [i32], [i32], visibility="private")
    b.set_insertion_point_to_end(cblk)
    b.set_loc("lib.py", 3, 4)
    r = b.create("arith.muli", [cblk.arg(0), cblk.arg(0)], [i32]).result(0)
    b.create("tt.return", [r], [])
    b.set_insertion_point_to_end(m.body)
    _, kblk = make_func(m, b, "kernel", [pf32, i32])
    b.set_insertion_point_to_end(kblk)
    b.set_loc("kernel.py", 10, 8)
    call = b.create("tt.call", [kblk.arg(1)], [i32], {"callee": C.str_attr("helper")})
    p = b.create("tt.addptr", [kblk.arg(0), call.result(0)], [pf32]).result(0)
    b.create("tt.store", [p, b.create("arith.sitofp", [call.result(0)], [f32]).result(0)], [])
    b.create("tt.return", [], [])
    m.verify()
    C.run_passes(m, ["inline"])
    assert [f.attr("sym_name") for f in m.funcs] == ["kernel"]
    muls = [op for op in m.func("kernel").region(0).blocks[0].ops if op.name == "arith.muli"]
    assert len(muls) == 1
    assert muls[0].location == "lib.py:3:4 (inlined at kernel.py:10:8)"
    assert "tt.call" not in str(m)


def test_constant_if_keeps_the_taken_branch():
    m = C.Module()
    b = C.Builder(m)
    _, blk = make_func(m, b, "k", [i32], [i32])
    b.set_insertion_point_to_end(blk)
    cond = b.create("arith.constant", [], [i1], {"value": C.int_attr(1, i1)}).result(0)
    if_op = b.create("scf.if", [cond], [i32], {}, 2)
    ip = b.save_ip()
    b.set_insertion_point_to_end(if_op.region(0).add_block([]))
    b.create("scf.yield", [b.create("arith.addi", [blk.arg(0), blk.arg(0)], [i32]).result(0)], [])
    b.set_insertion_point_to_end(if_op.region(1).add_block([]))
    b.create("scf.yield", [blk.arg(0)], [])
    b.restore_ip(ip)
    b.create("tt.return", [if_op.result(0)], [])
    m.verify()
    C.run_passes(m, ["canonicalize", "dce"])
    text = str(m)
    assert "scf.if" not in text and "arith.addi %arg0, %arg0" in text


def test_scf_for_prints_like_triton():
    m = C.Module()
    b = C.Builder(m)
    _, blk = make_func(m, b, "k", [i32], [f32])
    b.set_insertion_point_to_end(blk)
    zero = b.create("arith.constant", [], [f32], {"value": C.float_attr(0.0, f32)}).result(0)
    loop = b.create("scf.for", [const(b, 0), blk.arg(0), const(b, 1), zero], [f32], {}, 1)
    body = loop.region(0).add_block([i32, f32])
    b.set_insertion_point_to_end(body)
    v = b.create("arith.sitofp", [body.arg(0)], [f32]).result(0)
    b.create("scf.yield", [b.create("arith.addf", [body.arg(1), v], [f32]).result(0)], [])
    b.set_insertion_point_to_end(blk)
    b.create("tt.return", [loop.result(0)], [])
    m.verify()
    text = str(m)
    assert "scf.for %arg1 = %c0_i32 to %arg0 step %c1_i32 iter_args(%arg2 = %cst) -> (f32)" in text
    assert "scf.yield" in text and "arith.sitofp %arg1 : i32 to f32" in text

"""Block pointers and tensor descriptors in the frontend (compile only): the TTIR of
docs/internals.md "Tensor descriptors and block pointers", host descriptor parameters, and the
errors Triton gives (its language/core.py tensor descriptors and block pointers, and
tools/tensor_descriptor.py)."""

import re

import pytest
from fe_helpers import compile_module, count, ttir

import triton_tile as triton
import triton_tile.language as tl
from triton_tile import _core
from triton_tile.compiler.errors import CompilationError

PIPELINE = ["inline", "canonicalize", "cse", "dce", "expand-block-pointer-loops",
            "lower-block-pointers", "canonicalize", "cse", "dce"]


def compile_error(fn, signature, constants=None) -> str:
    with pytest.raises(CompilationError) as info:
        ttir(fn, signature, constants)
    return str(info.value)


# ---------------------------------------------------------------------------------------------
# block pointers


@triton.jit
def block_ptr_kernel(X, Z, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    src = tl.make_block_ptr(X, (M, N), (N, 1), (pid * BM, 0), (BM, BN), (1, 0))
    dst = tl.make_block_ptr(Z, shape=(M, N), strides=(N, 1), offsets=(pid * BM, 0),
                            block_shape=(BM, BN), order=(1, 0))
    for _ in range(0, N, BN):
        x = tl.load(src, boundary_check=(1, 0), padding_option="nan")
        tl.store(dst, x, boundary_check=(0, ))
        src = tl.advance(src, (0, BN))
        dst = dst.advance([0, BN])


def test_block_pointer_ttir():
    text = ttir(block_ptr_kernel, {"X": "*fp32", "Z": "*fp32", "M": "i32", "N": "i32"},
                {"BM": 16, "BN": 32})
    # shape and strides i64, offsets i32, order as an i32 array
    assert "arith.extsi %arg2 : i32 to i64" in text
    assert "tt.make_tensor_ptr %arg0, [" in text and "{order = array<i32: 1, 0>} : " \
        "<tensor<16x32xf32>>" in text
    # block pointers that only move in a loop carry their offsets (what
    # expand-block-pointer-loops would make of loop-carried pointers): every access sees a
    # tt.make_tensor_ptr
    assert "-> (i32, i32, i32, i32)" in text and "!tt.ptr<tensor<16x32xf32>>)" not in text
    assert re.search(r"tt.make_tensor_ptr %arg0, \[%\d+, %\d+\], \[%\d+, %c1_i64\], "
                     r"\[%arg5, %arg6\]", text)
    # boundary_check is sorted and deduplicated; padding nan is 2
    assert re.search(r"tt.load %\d+ {boundaryCheck = array<i32: 0, 1>, padding = 2 : i32} : "
                     r"!tt.ptr<tensor<16x32xf32>>", text)
    assert "{boundaryCheck = array<i32: 0>} : !tt.ptr<tensor<16x32xf32>>" in text
    assert count(text, "tt.advance") == 2


def test_block_pointer_lowering_pipeline():
    m = compile_module(block_ptr_kernel, {"X": "*fp32", "Z": "*fp32", "M": "i32", "N": "i32"},
                       {"BM": 16, "BN": 32})
    _core.run_passes(m, PIPELINE)
    m.verify()
    text = str(m)
    for op in ("tt.make_tensor_ptr", "tt.advance"):
        assert op not in text
    assert "tensor<16x32x!tt.ptr<f32>>" in text


@triton.jit
def block_ptr_branches(X, Z, N, BN: tl.constexpr):
    bp = tl.make_block_ptr(X, (N, ), (1, ), (0, ), (BN, ), (0, ))
    if tl.program_id(0) > 0:  # a block pointer chosen at run time
        bp = tl.advance(bp, (BN, ))
    zp = tl.make_block_ptr(Z, (N, ), (1, ), (0, ), (BN, ), (0, ))
    for i in range(2):  # re-made in the loop, not just advanced
        tl.store(zp, tl.load(bp, boundary_check=(0, )), boundary_check=(0, ))
        bp = tl.make_block_ptr(X + i, (N, ), (1, ), (i * BN, ), (BN, ), (0, ))
        zp = tl.advance(zp, (BN, ))
    while N > 3:
        bp = tl.advance(bp, (1, ))
        N -= 1
    tl.store(zp, tl.load(bp, boundary_check=(0, )), boundary_check=(0, ))


def test_block_pointers_through_branches_and_loops():
    m = compile_module(block_ptr_branches, {"X": "*fp32", "Z": "*fp32", "N": "i32"},
                       {"BN": 16})
    text = str(m)
    # the if yields the pointer's operands; the loop carries all of bp's (its base changes)
    # and only zp's offsets; the while loop carries all of bp's
    assert "scf.if" in text and "-> (!tt.ptr<f32>, i64, i64, i32)" in text
    assert "-> (!tt.ptr<f32>, i64, i64, i32, i32) : i32" in text
    assert "scf.while" in text
    _core.run_passes(m, PIPELINE)
    m.verify()
    for op in ("tt.make_tensor_ptr", "tt.advance"):
        assert op not in str(m)


@triton.jit
def block_ptr_scalar_offsets(X, i, j: tl.int64, BM: tl.constexpr):
    bp = tl.make_block_ptr(X, (100, 200), (200, 1), (i, 3), (BM, BM), (1, 0))
    tl.store(bp, tl.load(bp) + 1.0)


def test_block_pointer_constants_and_widths():
    text = ttir(block_ptr_scalar_offsets, {"X": "*fp16", "i": "i32", "j": "i64"}, {"BM": 8})
    # Python ints: shape/strides as i64 constants, offsets as i32 constants
    assert "arith.constant 100 : i64" in text and "arith.constant 200 : i64" in text
    assert "arith.constant 3 : i32" in text
    assert count(text, "tt.load") == 1 and "boundaryCheck" not in text


@triton.jit
def bool_block_ptr(X):
    bp = tl.make_block_ptr(X, (10, ), (1, ), (0, ), (16, ), (0, ))
    tl.store(bp, tl.load(bp, boundary_check=(0, )), boundary_check=(0, ))


def test_bool_block_pointers_move_bytes():
    text = ttir(bool_block_ptr, {"X": "*u1"})
    assert "tt.bitcast %arg0 : !tt.ptr<i1> -> !tt.ptr<i8>" in text
    assert "<tensor<16xi8>>" in text


# ---------------------------------------------------------------------------------------------
# device tensor descriptors


@triton.jit
def desc_kernel(X, Z, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    src = tl.make_tensor_descriptor(X, [M, N], [N, 1], [BM, BN], padding_option="nan")
    dst = tl.make_tensor_descriptor(Z, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    v = src.load([pid * BM, 3])
    dst.store([pid * BM, 3], v)
    tl.store_tensor_descriptor(dst, [0, 0], tl.load_tensor_descriptor(src, [1, 2]))


def test_descriptor_ttir():
    text = ttir(desc_kernel, {"X": "*fp16", "Z": "*fp16", "M": "i32", "N": "i32"},
                {"BM": 16, "BN": 64})
    # shape i32 as given, strides i64, the last stride the constant 1; padding attr 2 / 1
    assert re.search(r"tt.make_tensor_descriptor %arg0, \[%arg2, %arg3\], \[%\d+, %c1_i64\] "
                     r"{padding = 2 : i32} : <f16>, <tensor<16x64xf16>>", text)
    assert "{padding = 1 : i32} : <f16>, <tensor<16x64xf16>>" in text
    assert count(text, "tt.descriptor_load") == 2 and count(text, "tt.descriptor_store") == 2
    assert "-> tensor<16x64xf16>" in text
    assert "!tt.tensordesc<tensor<16x64xf16>>" in text


@triton.jit
def desc_helper_load(desc, i):
    return desc.load([i, 0])


@triton.jit
def desc_helper_make(X, M):
    return tl.make_tensor_descriptor(X, [M, M], [M, 1], [8, 8])


@triton.jit
def desc_call_kernel(X, Y, M):
    d = desc_helper_make(X, M)
    for i in range(4):
        d = tl.make_tensor_descriptor(Y + i, [M, M], [M, 1], [8, 8])
        v = desc_helper_load(d, i)
        d.store([i, i], v)
    if M > 4:
        d = desc_helper_make(Y, M)
    d.store([0, 0], desc_helper_load(d, 1))


def test_descriptors_through_calls_loops_and_branches():
    m = compile_module(desc_call_kernel, {"X": "*fp32", "Y": "*fp32", "M": "i32"})
    text = str(m)
    # a descriptor travels as base, shape (i32) and leading strides (i64)
    assert "(!tt.ptr<f32>, i32) -> (!tt.ptr<f32>, i32, i32, i64)" in text
    assert "iter_args(" in text and "-> (!tt.ptr<f32>, i32, i32, i64)" in text
    assert "scf.if" in text
    _core.run_passes(m, PIPELINE)
    m.verify()
    text = str(m)
    # every access found its tt.make_tensor_descriptor and became a masked pointer tile
    for op in ("tt.descriptor_load", "tt.descriptor_store", "tt.make_tensor_descriptor",
               "tt.call"):
        assert op not in text


@triton.jit
def desc_ternary(X, Y, M):
    a = tl.make_tensor_descriptor(X, [M], [1], [16])
    b = tl.make_tensor_descriptor(Y, [M], [1], [16])
    d = a if M > 5 else b
    d.store([0], d.load([1]))


def test_descriptor_ternary():
    m = compile_module(desc_ternary, {"X": "*fp32", "Y": "*fp32", "M": "i32"})
    assert "scf.if" in str(m)
    _core.run_passes(m, PIPELINE)
    m.verify()
    assert "tt.descriptor" not in str(m) and "tt.make_tensor_descriptor" not in str(m)


@triton.jit
def desc_members(X, OUT, M, N):
    d = tl.make_tensor_descriptor(X, [M, N], [N, 1], [4, 8])
    tl.static_assert(isinstance(d, tl.tensor_descriptor))
    tl.static_assert(d.block_shape == [4, 8])
    tl.static_assert(d.dtype == tl.float32)
    tl.store(OUT, d.shape[0] + d.shape[1])
    tl.store(OUT + 1, d.strides[0].to(tl.int32))


def test_descriptor_members():
    text = ttir(desc_members, {"X": "*fp32", "OUT": "*i32", "M": "i32", "N": "i32"})
    assert "arith.addi %arg2, %arg3 : i32" in text


# ---------------------------------------------------------------------------------------------
# host descriptor parameters: `tensordesc<...>` signatures


@triton.jit
def host_desc_kernel(a, K, b, BM: tl.constexpr):
    x = a.load([0, K])
    b.store([tl.program_id(0) * BM, 0], x)


def test_host_descriptor_parameters():
    text = ttir(host_desc_kernel, {"a": "tensordesc<fp16[64, 32]>", "K": "i32",
                                   "b": "tensordesc<fp16[64, 32],nan>"}, {"BM": 64})
    # each descriptor: base (16-byte aligned), shape x r (i32), strides x r (i64)
    assert ("tt.func public @host_desc_kernel(%arg0: !tt.ptr<f16> {tt.divisibility = 16 : i32},"
            " %arg1: i32, %arg2: i32, %arg3: i64, %arg4: i64, %arg5: i32, "
            "%arg6: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg7: i32, %arg8: i32, "
            "%arg9: i64, %arg10: i64)") in text
    # one tt.make_tensor_descriptor per descriptor at entry; the last stride is the constant 1
    assert ("tt.make_tensor_descriptor %arg0, [%arg1, %arg2], [%arg3, %c1_i64] {padding = 1 : "
            "i32} : <f16>, <tensor<64x32xf16>>") in text
    assert ("tt.make_tensor_descriptor %arg6, [%arg7, %arg8], [%arg9, %c1_i64_0] {padding = 2 :"
            " i32}") in text
    assert count(text, "tt.make_tensor_descriptor") == 2


@triton.jit
def host_desc_5d(d):
    d.store([0, 0, 0, 0, 0], d.load([1, 2, 3, 4, 5]))


def test_host_descriptor_ranks_and_spellings():
    text = ttir(host_desc_5d, {"d": "tensordesc<bf16[1, 2, 2, 4, 16]>"})
    assert text.count(": i32,") + text.count(": i32)") >= 5
    assert "tensor<1x2x2x4x16xbf16>" in text
    for bad in ("tensordesc<fp16[]>", "tensordesc<fp16[1, 1, 1, 1, 1, 16]>",
                "tensordesc<fp16[3, 16]>", "tensordesc<fp16[16],inf>", "tensordesc<xx[16]>"):
        with pytest.raises(CompilationError):
            ttir(host_desc_5d, {"d": bad})


def test_tensordesc_type_strings():
    ty = tl.str_to_ty("tensordesc<fp32[16, 32]>")
    assert isinstance(ty, tl.tensor_descriptor_type)
    assert ty.block_type == tl.block_type(tl.float32, [16, 32]) and ty.padding == "zero"
    assert str(ty) == "tensordesc<fp32[16, 32]>"
    nan = tl.str_to_ty("tensordesc<fp16[8], nan>")
    assert nan.padding == "nan" and str(nan) == "tensordesc<fp16[8],nan>"
    assert str(ty.to_ir()) == "!tt.tensordesc<tensor<16x32xf32>>"


# ---------------------------------------------------------------------------------------------
# errors (Triton's)


@triton.jit
def bp_with_mask(X):
    bp = tl.make_block_ptr(X, (16, ), (1, ), (0, ), (16, ), (0, ))
    tl.load(bp, mask=tl.arange(0, 16) < 3)


@triton.jit
def bp_store_with_mask(X):
    bp = tl.make_block_ptr(X, (16, ), (1, ), (0, ), (16, ), (0, ))
    tl.store(bp, 1.0, mask=tl.arange(0, 16) < 3)


@triton.jit
def ptr_with_boundary_check(X):
    tl.load(X + tl.arange(0, 16), boundary_check=(0, ))


@triton.jit
def ptr_with_padding(X):
    tl.load(X + tl.arange(0, 16), padding_option="zero")


@triton.jit
def ptr_store_with_boundary_check(X):
    tl.store(X + tl.arange(0, 16), 1.0, boundary_check=(0, ))


@triton.jit
def bp_non_pow2(X):
    bp = tl.make_block_ptr(X, (16, 16), (16, 1), (0, 0), (16, 12), (1, 0))
    tl.load(bp)


@triton.jit
def bp_rank_mismatch(X):
    bp = tl.make_block_ptr(X, (16, 16), (16, 1), (0, ), (16, 16), (1, 0))
    tl.load(bp)


@triton.jit
def bp_bad_order(X):
    bp = tl.make_block_ptr(X, (16, 16), (16, 1), (0, 0), (16, 16), (1, 1))
    tl.load(bp)


@triton.jit
def bp_advance_rank(X):
    bp = tl.make_block_ptr(X, (16, 16), (16, 1), (0, 0), (16, 16), (1, 0))
    bp = tl.advance(bp, (1, ))
    tl.load(bp)


@triton.jit
def bp_advance_unused(X):
    bp = tl.make_block_ptr(X, (16, 16), (16, 1), (0, 0), (16, 16), (1, 0))
    tl.advance(bp, (0, 16))
    tl.load(bp)


@triton.jit
def bp_bad_boundary_dim(X):
    bp = tl.make_block_ptr(X, (16, 16), (16, 1), (0, 0), (16, 16), (1, 0))
    tl.load(bp, boundary_check=(2, ))


@triton.jit
def bp_nan_int(X):
    bp = tl.make_block_ptr(X, (16, ), (1, ), (0, ), (16, ), (0, ))
    tl.load(bp, boundary_check=(0, ), padding_option="nan")


@triton.jit
def bp_bad_padding(X):
    bp = tl.make_block_ptr(X, (16, ), (1, ), (0, ), (16, ), (0, ))
    tl.load(bp, boundary_check=(0, ), padding_option="inf")


@triton.jit
def bp_i64_offset(X, o):
    bp = tl.make_block_ptr(X, (16, ), (1, ), (o, ), (16, ), (0, ))
    tl.load(bp)


@triton.jit
def bp_store_shape(X):
    bp = tl.make_block_ptr(X, (16, 16), (16, 1), (0, 0), (16, 16), (1, 0))
    tl.store(bp, tl.zeros((8, 16), tl.float32))


@triton.jit
def bp_of_pointer_block(X):
    tl.make_block_ptr(X + tl.arange(0, 16), (16, ), (1, ), (0, ), (16, ), (0, ))


@triton.jit
def advance_non_block_ptr(X):
    x = tl.advance(X, (1, ))
    tl.store(X, x)


@triton.jit
def bp_const_store(X):
    bp = tl.make_block_ptr(X, (16, ), (1, ), (0, ), (16, ), (0, ))
    tl.store(bp, tl.load(bp) + 1)


@pytest.mark.parametrize("fn, sig, message", [
    (bp_const_store, {"X": "*kfp32"}, "Cannot store to a constant pointer"),
    (bp_with_mask, {"X": "*fp32"}, "`mask` and `other` arguments cannot be specified for "
                                   "loading block pointers"),
    (bp_store_with_mask, {"X": "*fp32"}, "`mask` argument cannot be specified for storing "
                                         "block pointers"),
    (ptr_with_boundary_check, {"X": "*fp32"}, "`padding_option` or `boundary_check` argument "
                                              "is not supported"),
    (ptr_with_padding, {"X": "*fp32"}, "`padding_option` or `boundary_check` argument is not "
                                       "supported"),
    (ptr_store_with_boundary_check, {"X": "*fp32"}, "`boundary_check` argument is not "
                                                    "supported"),
    (bp_non_pow2, {"X": "*fp32"}, "must be a power of 2"),
    (bp_rank_mismatch, {"X": "*fp32"}, "to have the same length"),
    (bp_bad_order, {"X": "*fp32"}, "Expected a permutation"),
    (bp_advance_rank, {"X": "*fp32"}, "expected 2 offsets"),
    (bp_advance_unused, {"X": "*fp32"}, "The result of tl.advance is not being used"),
    (bp_bad_boundary_dim, {"X": "*fp32"}, "0 <= dim < 2"),
    (bp_nan_int, {"X": "*i32"}, "Padding option `nan` is not supported for integer"),
    (bp_bad_padding, {"X": "*fp32"}, "Padding option 'inf' not supported"),
    (bp_i64_offset, {"X": "*fp32", "o": "i64"}, "only support 32 bit offsets"),
    (bp_store_shape, {"X": "*fp32"}, "mismatch"),
    (bp_of_pointer_block, {"X": "*fp32"}, "Expected `base` to be a pointer type"),
    (advance_non_block_ptr, {"X": "*fp32"}, "tl.advance expects a block pointer"),
])
def test_block_pointer_errors(fn, sig, message):
    assert message in compile_error(fn, sig)


def test_unused_advance_points_at_the_call():
    text = compile_error(bp_advance_unused, {"X": "*fp32"})
    assert "tl.advance(bp, (0, 16))" in text
    assert "assign the result of tl.advance to a variable" in text


@triton.jit
def desc_rank(X, R: tl.constexpr):
    if R == 0:
        tl.make_tensor_descriptor(X, [], [], [])
    else:
        tl.make_tensor_descriptor(X, [2] * 6, [1] * 6, [2, 2, 2, 2, 2, 4])


@triton.jit
def desc_strides_len(X, M):
    tl.make_tensor_descriptor(X, [M, M], [1], [8, 8])


@triton.jit
def desc_last_stride(X, M):
    tl.make_tensor_descriptor(X, [M, M], [M, 2], [8, 8])


@triton.jit
def desc_runtime_last_stride(X, M, S):
    tl.make_tensor_descriptor(X, [M, M], [M, S], [8, 8])


@triton.jit
def desc_narrow_block(X, M):
    tl.make_tensor_descriptor(X, [M, M], [M, 1], [8, 2])


@triton.jit
def desc_non_pow2(X, M):
    tl.make_tensor_descriptor(X, [M, M], [M, 1], [8, 24])


@triton.jit
def desc_offsets(X, M):
    d = tl.make_tensor_descriptor(X, [M, M], [M, 1], [8, 8])
    d.load([0])


@triton.jit
def desc_store_shape(X, M):
    d = tl.make_tensor_descriptor(X, [M, M], [M, 1], [8, 8])
    d.store([0, 0], tl.zeros((4, 8), tl.float32))


@triton.jit
def desc_nan_int(X, M):
    tl.make_tensor_descriptor(X, [M, M], [M, 1], [8, 8], padding_option="nan")


@triton.jit
def desc_i64_shape(X, M):
    tl.make_tensor_descriptor(X, [M, M], [M, 1], [8, 8])


@triton.jit
def desc_gather_block(X, M):
    d = tl.make_tensor_descriptor(X, [M, M], [M, 1], [8, 8])
    d.gather(tl.arange(0, 8), 0)


@triton.jit
def desc_const_store(X, M):
    d = tl.make_tensor_descriptor(X, [M], [1], [16])
    d.store([0], d.load([1]))


@pytest.mark.parametrize("fn, sig, constants, message", [
    (desc_const_store, {"X": "*kfp32", "M": "i32"}, {}, "Cannot store through a descriptor of "
                                                         "a constant pointer"),
    (desc_rank, {"X": "*fp32"}, {"R": 0}, "Expected 1 <= ndim <= 5 but got 0 dimensions"),
    (desc_rank, {"X": "*fp32"}, {"R": 6}, "Expected 1 <= ndim <= 5 but got 6 dimensions"),
    (desc_strides_len, {"X": "*fp32", "M": "i32"}, {}, "Expected 2 strides but got 1"),
    (desc_last_stride, {"X": "*fp32", "M": "i32"}, {}, "last dim must be 1 but got 2"),
    (desc_runtime_last_stride, {"X": "*fp32", "M": "i32", "S": "i32"}, {},
     "last dim must be 1 but got a runtime value"),
    (desc_narrow_block, {"X": "*fp32", "M": "i32"}, {}, "at least 16 bytes in the last "
                                                         "dimension, but got 2 * 4 = 8 bytes"),
    (desc_non_pow2, {"X": "*fp32", "M": "i32"}, {}, "must be a power of 2"),
    (desc_offsets, {"X": "*fp32", "M": "i32"}, {}, "expected 2 offsets, but got 1"),
    (desc_store_shape, {"X": "*fp32", "M": "i32"}, {}, "mismatch"),
    (desc_nan_int, {"X": "*i32", "M": "i32"}, {}, "Padding option `nan` is not supported"),
    (desc_i64_shape, {"X": "*fp32", "M": "i64"}, {}, "32 bit"),
    (desc_gather_block, {"X": "*fp32", "M": "i32"}, {}, "block has one row"),
])
def test_descriptor_errors(fn, sig, constants, message):
    assert message in compile_error(fn, sig, constants)


def test_builtins_outside_kernels():
    with pytest.raises(ValueError, match="can only be called inside a @triton.jit"):
        tl.make_tensor_descriptor(None, [1], [1], [16])
    with pytest.raises(ValueError, match="can only be called inside a @triton.jit"):
        tl.make_block_ptr(None, (1, ), (1, ), (0, ), (16, ), (0, ))

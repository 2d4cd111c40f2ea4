"""Argument specialization, row by row of Triton's table (python/src/specialize.cc and
python/triton/runtime/jit.py upstream): type string, cache key and runtime value per argument."""

import collections

import numpy as np
import pytest

import triton_tile as triton
import triton_tile.language as tl
from triton_tile.runtime import specialize as sp


@triton.jit
def _k(a, b, c, d, e, f, BLOCK: tl.constexpr):
    pass


def _spec(fn, *args, warmup=False):
    keys = fn._specialize(fn._binder(*args), warmup)[0]
    return list(keys)


def _one(value, specialize=True, align=True, annotation=""):
    t, k, _ = sp.specialize_arg(value, specialize, align, annotation, False)
    return t, k


@pytest.mark.parametrize("value, expected", [
    (None, ("constexpr", None)),
    (True, ("u1", None)),
    (False, ("u1", None)),
    (1, ("constexpr", 1)),
    (0, ("i32", "D")),
    (16, ("i32", "D")),
    (-32, ("i32", "D")),
    (17, ("i32", None)),
    (2**31 - 1, ("i32", None)),
    (-(2**31), ("i32", "D")),
    (2**31, ("i64", "D")),
    (-(2**31) - 1, ("i64", None)),
    (2**63 - 1, ("i64", None)),
    (2**63, ("u64", "D")),
    (2**64 - 1, ("u64", None)),
    (1.0, ("fp32", None)),
    (1.5, ("fp32", None)),
    (np.int64(48), ("i32", "D")),
    (np.float64(2.0), ("fp32", None)),
    (np.float32(2.0), ("fp32", None)),
    (np.bool_(True), ("u1", None)),
])
def test_scalar_table(value, expected):
    assert _one(value) == expected


def test_int_too_large():
    with pytest.raises(sp.ArgError):
        _one(2**64)


def test_do_not_specialize_keeps_type_drops_value():
    assert _one(1, specialize=False) == ("i32", None)
    assert _one(32, specialize=False) == ("i32", None)
    assert _one(2**40, specialize=False) == ("i64", None)
    assert _one(32, align=False) == ("i32", None)
    assert _one(1, align=False) == ("constexpr", 1)


def test_bool_checked_before_int():
    # True == 1 in Python; it must still be a u1 runtime value, not the constant 1.
    assert _one(True) == ("u1", None)


@pytest.mark.parametrize("dtype, name", [
    ("bool", "u1"), ("int8", "i8"), ("int16", "i16"), ("int32", "i32"), ("int64", "i64"),
    ("uint8", "u8"), ("uint16", "u16"), ("uint32", "u32"), ("uint64", "u64"),
    ("float16", "fp16"), ("float32", "fp32"), ("float64", "fp64"),
])
def test_numpy_pointer_types(dtype, name):
    a = np.zeros(64, dtype)
    t, k = _one(a)
    assert t == "*" + name
    assert k == ("D" if a.__array_interface__["data"][0] % 16 == 0 else None)


def test_ml_dtypes_pointer_types():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    assert _one(np.zeros(4, ml_dtypes.bfloat16))[0] == "*bf16"
    assert _one(np.zeros(4, ml_dtypes.float8_e4m3fn))[0] == "*fp8e4nv"
    assert _one(np.zeros(4, ml_dtypes.float8_e5m2))[0] == "*fp8e5"


def test_pointer_divisibility_follows_address():
    a = np.zeros(64, np.float32)
    base = a.__array_interface__["data"][0]
    assert base % 16 == 0  # numpy aligns allocations this large
    assert _one(a)[1] == "D"
    assert _one(a[1:])[1] is None  # 4 bytes in
    assert _one(a[4:])[1] == "D"  # 16 bytes in
    assert _one(a[4:], align=False)[1] is None


@pytest.mark.parametrize("dtype, name", [("complex64", None), ("object", None)])
def test_unsupported_array_dtypes(dtype, name):
    with pytest.raises(sp.ArgError):
        _one(np.zeros(4, dtype))


def test_canonical_names():
    assert sp.canonical_dtype(np.dtype("float32")) == "fp32"
    assert sp.canonical_dtype("torch.bfloat16") == "bf16"
    assert sp.canonical_dtype("torch.float8_e4m3fnuz") == "fp8e4b8"
    assert sp.canonical_dtype("torch.float8_e5m2fnuz") == "fp8e5b16"
    assert sp.canonical_dtype("torch.half") == "fp16"
    assert sp.canonical_dtype(tl.float32) == "fp32"
    assert sp.canonical_dtype("complex64") is None


def test_kernel_level_specialization():
    x = np.zeros(32, np.float32)
    keys = _spec(_k, x, 1, 7, 2.0, None, True, 64)
    assert keys[0] == ("*fp32", "D")
    assert keys[1][0] == "constexpr"
    assert keys[2] == ("i32", None)
    assert keys[3] == ("fp32", None)
    assert keys[4][0] == "constexpr"
    assert keys[5] == ("u1", None)
    assert keys[6] == ("constexpr", ("int", 64))


def test_constexpr_values_of_different_types_are_different_keys():
    x = np.zeros(32, np.float32)
    assert _spec(_k, x, 2, 2, 2, 2, 2, 1) != _spec(_k, x, 2, 2, 2, 2, 2, True)
    assert _spec(_k, x, 2, 2, 2, 2, 2, 1) != _spec(_k, x, 2, 2, 2, 2, 2, 1.0)


def test_tl_constexpr_argument_is_constant():
    x = np.zeros(32, np.float32)
    keys = _spec(_k, x, tl.constexpr(5), 2, 2, 2, 2, tl.constexpr(8))
    assert keys[1] == ("constexpr", ("int", 5))
    assert keys[6] == ("constexpr", ("int", 8))


def test_tuples_specialize_elementwise():
    x = np.zeros(32, np.float32)
    t, k, rt = sp.specialize_arg((x, 1, 17), True, True, "", False)
    assert t == ("*fp32", "constexpr", "i32")
    assert k[1] == ("int", 1) and k[2] is None
    assert sp.tuple_constants((x, 1, 17), t) == (None, 1, None)
    Pair = collections.namedtuple("Pair", "a b")
    t, k, _ = sp.specialize_arg(Pair(3, 2.0), True, True, "", False)
    assert t == ("i32", "fp32") and t._fields == ("a", "b")  # the frontend needs the names
    assert k[0] == "namedtuple" and k[1].endswith("Pair")
    assert sp.specialize_arg((3, 2.0), True, True, "", False)[1] != k


@triton.jit(do_not_specialize=["n"], do_not_specialize_on_alignment=[2])
def _dns(p, n, m):
    pass


def test_do_not_specialize_by_name_and_index():
    assert [p.do_not_specialize for p in _dns.params] == [False, True, False]
    assert [p.do_not_specialize_on_alignment for p in _dns.params] == [False, False, True]
    keys = _spec(_dns, np.zeros(8, np.float32), 1, 32)
    assert keys[1] == ("i32", None)
    assert keys[2] == ("i32", None)


def test_constexpr_and_do_not_specialize_conflict():
    with pytest.raises(TypeError, match="constexpr"):
        def f(BLOCK: tl.constexpr):
            pass

        triton.jit(f, do_not_specialize=["BLOCK"])


@triton.jit
def _annotated(v: tl.uint8, x: tl.float64, p: "*fp32", q: "const *fp16",  # noqa: F722,F821
               flag: tl.int1, z):
    pass


def test_annotations_force_types():
    assert [p.annotation_type for p in _annotated.params] == ["u8", "fp64", "*fp32", "*kfp16",
                                                              "u1", ""]
    keys = _spec(_annotated, 1, 1, np.zeros(4, np.float32), np.zeros(4, np.float16), 1, 1)
    assert keys[0][0] == "u8"  # annotated ints are not turned into constants
    assert keys[1] == ("fp64", None)  # annotated floats are never value-specialized
    assert keys[2][0] == "*fp32"
    assert keys[3][0] == "*kfp16"
    assert keys[4] == ("u1", None)
    assert keys[5] == ("constexpr", ("int", 1))


def test_annotation_range_and_size_checks():
    with pytest.raises(OverflowError, match="'v'"):
        _spec(_annotated, 300, 1.0, np.zeros(4, np.float32), np.zeros(4, np.float16), 1, 1)
    with pytest.raises(ValueError, match="'p'"):
        _spec(_annotated, 3, 1.0, np.zeros(4, np.float64), np.zeros(4, np.float16), 1, 1)


def test_warmup_accepts_dtypes_for_pointers():
    keys = _spec(_k, triton.MockTensor(np.float16), 3, 3, 3.0, None, False, 8, warmup=True)
    assert keys[0] == ("*fp16", "D")  # a MockTensor's address 0 counts as aligned


def test_mock_tensor_rejected_outside_warmup():
    with pytest.raises(TypeError, match="MockTensor"):
        _spec(_k, triton.MockTensor(np.float16), 3, 3, 3.0, None, False, 8)


def test_reinterpret_changes_pointer_type():
    a = np.zeros(8, np.uint8)
    assert _one(triton.reinterpret(a, tl.float8e5))[0] == "*fp8e5"
    w = triton.reinterpret(a, tl.float8e5)
    assert triton.reinterpret(w, np.dtype("uint8")) is a


def test_torch_tensors_when_available():
    torch = pytest.importorskip("torch")
    t = torch.zeros(16, dtype=torch.bfloat16)
    ty, key = _one(t)
    assert ty == "*bf16"
    assert key == ("D" if t.data_ptr() % 16 == 0 else None)
    assert _one(torch.zeros(4, dtype=torch.int64))[0] == "*i64"


def test_host_tensor_descriptor_arguments():
    from triton_tile.tools.tensor_descriptor import TensorDescriptor

    a = np.zeros((64, 32), np.float16)
    desc = TensorDescriptor.from_tensor(a, block_shape=[16, 8])
    t, k, rt = sp.specialize_arg(desc, True, True, "", False)
    assert t == "tensordesc<fp16[16, 8]>" and k is None
    base = a.__array_interface__["data"][0]
    assert rt[0] == sp.HostBuffer(base, base, base + a.nbytes)
    assert rt[1:] == (64, 32, 32, 1)  # shape, then strides in elements
    assert sp.flatten_runtime([rt])[1:] == [64, 32, 32, 1]
    desc.block_shape = [8, 8]  # what an autotune pre_hook does: a new specialization
    assert sp.specialize_arg(desc, True, True, "", False)[0] == "tensordesc<fp16[8, 8]>"


def _named(spec):
    ty = spec.signature["value1"]
    ones = "_".join(k for k, v in spec.constants.items() if isinstance(k, str) and v == 1)
    return f"kernel_{ty}_{ones}"


@triton.jit(repr=_named)
def _repr_kernel(value1, is_one, X):
    tl.store(X, value1 + is_one)


@pytest.mark.parametrize("value, ty", [(-1, "i32"), (2**31, "i64"), (2**63, "u64")])
def test_repr_names_the_compiled_kernel(value, ty):
    """`@jit(repr=f)`: the compiled kernel's name (and metadata.name) is f(specialization),
    which sees the signature and the ints specialized to 1, as in Triton; launching it still
    runs the kernel."""
    x = np.zeros(1, dtype=np.int64)
    h = _repr_kernel.warmup(value, 1, x, grid=(1,))
    assert h.name == f"kernel_{ty}_is_one" and h.metadata.name == h.name
    if ty == "i32":
        _repr_kernel[(1,)](value, 1, x)
        assert x[0] == value + 1

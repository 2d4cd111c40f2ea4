"""Wrong arguments fail before compiling, naming the kernel and the argument; array
arguments reach the executor as the bounds of the memory they live in."""

import numpy as np
import pytest
from tt_utils import DLPackOnly

import triton_tile as triton
import triton_tile.language as tl
from triton_tile.runtime import specialize as sp


@triton.jit
def copy_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=mask), mask=mask)


@triton.jit
def strided_copy_kernel(src, dst, n, stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst + offs, tl.load(src + offs * stride, mask=mask), mask=mask)


def _launch(*args, **kw):
    return copy_kernel[(1,)](*args, **kw)


def test_too_few_arguments():
    x = np.zeros(8, np.float32)
    with pytest.raises(TypeError, match=r"copy_kernel\(\) missing .*'n'"):
        _launch(x, x)


def test_too_many_arguments():
    x = np.zeros(8, np.float32)
    with pytest.raises(TypeError, match=r"copy_kernel\(\) takes 4 positional"):
        _launch(x, x, 8, 16, 3)


def test_unknown_keyword_is_keyerror():
    x = np.zeros(8, np.float32)
    with pytest.raises(KeyError, match="not_an_option"):
        _launch(x, x, 8, BLOCK=16, not_an_option=1)


def test_deprecated_device_keyword():
    x = np.zeros(8, np.float32)
    with pytest.raises(KeyError, match="device"):
        _launch(x, x, 8, BLOCK=16, device="cpu")


def test_amd_options_are_accepted_and_ignored():
    x = np.arange(8, dtype=np.float32)
    y = np.zeros(8, np.float32)
    _launch(x, y, 8, BLOCK=16, waves_per_eu=2, matrix_instr_nonkdim=16, kpack=2)
    np.testing.assert_array_equal(x, y)


def test_wrong_type_names_kernel_and_argument():
    x = np.zeros(8, np.float32)
    with pytest.raises(TypeError, match=r"copy_kernel: argument 'dst' has type str"):
        _launch(x, "y", 8, BLOCK=16)
    with pytest.raises(TypeError, match=r"copy_kernel: argument 'n' has type list"):
        _launch(x, x, [8], BLOCK=16)


def test_unsupported_dtype_names_kernel_and_argument():
    x = np.zeros(8, np.float32)
    with pytest.raises(TypeError, match=r"copy_kernel: argument 'src' has dtype complex64"):
        _launch(x.astype(np.complex64), x, 8, BLOCK=16)


class _FakeCudaArray:
    __cuda_array_interface__ = {"shape": (8,), "typestr": "<f4", "data": (1 << 40, False),
                                "version": 3}


def test_mixing_host_and_cuda_arrays_is_a_clear_error():
    # The executor follows the data: one launch cannot take host and CUDA arrays.
    x = np.zeros(8, np.float32)
    with pytest.raises(TypeError, match=r"copy_kernel: argument 'src' is in host memory but "
                                        r"argument 'dst' is on CUDA device 0"):
        _launch(x, _FakeCudaArray(), 8, BLOCK=16)


def test_mixing_host_and_cuda_torch_tensors_is_a_clear_error():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    x = np.zeros(8, np.float32)
    with pytest.raises(TypeError, match="argument 'src' is in host memory but argument 'dst' "
                                        "is on CUDA device"):
        _launch(x, torch.zeros(8, device="cuda"), 8, BLOCK=16)


@pytest.mark.parametrize("opt, value", [("num_warps", 3), ("occupancy", 0), ("occupancy", 33),
                                        ("num_ctas", 0), ("num_stages", -1)])
def test_launch_option_validation(opt, value):
    x = np.zeros(8, np.float32)
    with pytest.raises(ValueError, match=opt):
        _launch(x, x, 8, BLOCK=16, **{opt: value})
    # also an AssertionError, what Triton raises for these (upstream's test_num_warps_pow2)
    with pytest.raises(AssertionError, match=opt):
        _launch(x, x, 8, BLOCK=16, **{opt: value})


def test_bad_grid():
    x = np.zeros(8, np.float32)
    with pytest.raises(ValueError, match="1 to 3"):
        copy_kernel[(1, 1, 1, 1)](x, x, 8, BLOCK=16)
    with pytest.raises(ValueError, match="non-negative"):
        copy_kernel[(-1,)](x, x, 8, BLOCK=16)


def test_zero_grid_launches_nothing():
    x = np.arange(8, dtype=np.float32)
    y = np.zeros(8, np.float32)
    copy_kernel[(0,)](x, y, 8, BLOCK=16)
    assert not y.any()


# --- memory bounds handed to the executor ---------------------------------------------------


def _buf(a):
    return sp.specialize_arg(a, True, True, "", False)[2]


def _addr(a):
    return a.__array_interface__["data"][0]


def test_contiguous_array_bounds():
    a = np.zeros(100, np.float32)
    b = _buf(a)
    assert (b.ptr, b.lo, b.hi) == (_addr(a), _addr(a), _addr(a) + 400)


def test_view_bounds_are_the_owning_allocation():
    a = np.zeros((10, 10), np.float32)
    row = a[3]
    b = _buf(row)
    assert b.ptr == _addr(a) + 3 * 40
    assert (b.lo, b.hi) == (_addr(a), _addr(a) + 400)


def test_negative_stride_view_bounds():
    a = np.zeros(10, np.float64)
    r = a[::-1]
    b = _buf(r)
    assert b.ptr == _addr(a) + 9 * 8
    assert (b.lo, b.hi) == (_addr(a), _addr(a) + 80)


def test_foreign_memory_bounds():
    raw = bytearray(64)
    a = np.frombuffer(raw, dtype=np.int32)[4:]
    b = _buf(a)
    start = _addr(np.frombuffer(raw, dtype=np.int32))
    assert (b.ptr, b.lo, b.hi) == (start + 16, start, start + 64)


class _ArrayInterfaceOnly:
    def __init__(self, arr):
        self._arr = arr
        self.__array_interface__ = arr.__array_interface__


def test_array_interface_objects_run():
    x = np.arange(16, dtype=np.float32)
    y = np.zeros(16, np.float32)
    copy_kernel[(1,)](_ArrayInterfaceOnly(x), _ArrayInterfaceOnly(y), 16, BLOCK=16)
    np.testing.assert_array_equal(x, y)


def test_dlpack_objects_run():
    x = np.arange(16, dtype=np.int32)
    y = np.zeros(16, np.int32)
    copy_kernel[(1,)](DLPackOnly(x), DLPackOnly(y), 16, BLOCK=16)
    np.testing.assert_array_equal(x, y)


def test_views_and_negative_strides_run():
    # A reversed view's data pointer is its last element in memory; the kernel walks down
    # from it, which must stay inside the bounds the runtime passes.
    x = np.arange(32, dtype=np.float32)
    y = np.zeros(32, np.float32)
    r = x[::-1]
    strided_copy_kernel[(1,)](r, y[8:], 16, r.strides[0] // r.itemsize, BLOCK=16)
    np.testing.assert_array_equal(y[8:24], np.arange(31, 15, -1, dtype=np.float32))
    assert not y[:8].any() and not y[24:].any()


def test_torch_cpu_tensors_run():
    torch = pytest.importorskip("torch")
    x = torch.arange(16, dtype=torch.float32)
    y = torch.zeros(16, dtype=torch.float32)
    copy_kernel[(1,)](x, y, 16, BLOCK=16)
    assert torch.equal(x, y)


def test_bf16_arrays_run():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = np.arange(16).astype(ml_dtypes.bfloat16)
    y = np.zeros(16, ml_dtypes.bfloat16)
    copy_kernel[(1,)](x, y, 16, BLOCK=16)
    np.testing.assert_array_equal(x.astype(np.float32), y.astype(np.float32))

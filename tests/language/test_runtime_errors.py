"""Errors and debugging while a kernel runs: out-of-bounds accesses raise IndexError naming the
op and its source line (never a crash), masked-off lanes are never read, device_assert fires
only with debug=True, device_print prints. (Compile-time errors are tested with the frontend.)
"""

import inspect

import numpy as np
import pytest
from tt_utils import assert_close, numpy_random, poisoned

import triton_tile as triton
import triton_tile.language as tl

# On a GPU an out-of-bounds access is an illegal address for the whole process, device_assert
# and device_print are the GPU compiler's: what is checked here is the CPU executors'.
pytestmark = pytest.mark.cpu_only("bounds checks, device_assert and device_print's text")

FAR = tl.constexpr(10**7)  # elements: far outside every small array of these tests


def _line_of(fn, marker):
    src, start = inspect.getsourcelines(fn.fn if hasattr(fn, "fn") else fn)
    for i, line in enumerate(src):
        if marker in line:
            return start + i
    raise AssertionError(marker)


@triton.jit
def _oob_kernel(X, Z, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    if OP == "load":
        x = tl.load(X + FAR + offs)  # marker: oob-load
        tl.store(Z + offs, x)
    else:
        tl.store(Z + FAR + offs, tl.load(X + offs))  # marker: oob-store


@pytest.mark.parametrize("op", ["load", "store"])
def test_out_of_bounds_raises_index_error(op, rng):
    x = numpy_random(64, "float32", rng)
    z = poisoned(64, "float32")
    with pytest.raises(IndexError) as info:
        _oob_kernel[(1,)](x, z, OP=op, BLOCK=64)
    msg = str(info.value)
    assert op in msg
    assert f":{_line_of(_oob_kernel, 'marker: oob-' + op)}" in msg, msg


@triton.jit
def _row_pitch_kernel(X, Z, S):
    r = tl.arange(0, 4)
    c = tl.arange(0, 8)
    x = tl.load(X + r[:, None] * S + c[None, :])  # marker: pitch-load
    tl.store(Z + r[:, None] * 8 + c[None, :], x)


# A row pitch whose threefold wraps to one row of 8 int64: the first and last rows are 64
# bytes apart, the middle ones far outside the array.
WRAPPING_PITCH = 0x0AAAAAAAAAAAAAAB


@pytest.mark.parametrize("pitch", [WRAPPING_PITCH, WRAPPING_PITCH - 1])
def test_rows_a_wrapping_pitch_apart_raise(pitch):
    x = np.arange(32, dtype=np.int64)
    z = poisoned((4, 8), "int64")
    with pytest.raises(IndexError) as info:
        _row_pitch_kernel[(1,)](x, z, pitch)
    assert f":{_line_of(_row_pitch_kernel, 'marker: pitch-load')}" in str(info.value)


@triton.jit
def _just_past_end_kernel(X, Z, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(Z + offs, tl.load(X + offs), mask=offs < n)  # the load is not masked


def test_read_just_past_the_end_raises(rng):
    x = numpy_random(100, "float64", rng)
    z = poisoned(128, "float64")
    with pytest.raises(IndexError):
        _just_past_end_kernel[(1,)](x, z, 100, BLOCK=128)


@triton.jit
def _masked_far_kernel(X, Z, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask, other=-1.0)
    far = tl.load(X + FAR + offs, mask=offs < 0, other=2.0)  # every lane off
    tl.store(Z + offs, x + far)
    tl.store(Z + FAR + offs, x, mask=offs < 0)  # never stored


def test_masked_off_lanes_are_never_accessed(rng):
    n = 5
    x = numpy_random(n, "float32", rng)
    z = poisoned(128, "float32")
    _masked_far_kernel[(1,)](x, z, n, BLOCK=128)
    assert_close(z, np.concatenate([x + 2, np.full(123, 1.0)]), rtol=0)


@triton.jit(debug=True)
def _assert_debug_kernel(X, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    tl.device_assert(x > 0, "x must be positive")


@triton.jit
def _assert_nodebug_kernel(X, Z, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    tl.device_assert(x > 0, "x must be positive")
    tl.store(Z + tl.arange(0, BLOCK), x)


@triton.jit(debug=True)
def _python_assert_kernel(X, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    assert x < 100, "x too large"


def test_device_assert(rng):
    x = numpy_random(32, "int32", rng, low=1, high=50)
    _assert_debug_kernel[(1,)](x, BLOCK=32)  # holds: no error
    _python_assert_kernel[(1,)](x, BLOCK=32)
    x[7] = -3
    with pytest.raises(AssertionError, match="x must be positive"):
        _assert_debug_kernel[(1,)](x, BLOCK=32)
    x[7] = 500
    with pytest.raises(AssertionError, match="x too large"):
        _python_assert_kernel[(1,)](x, BLOCK=32)
    # without debug, device_assert is compiled out
    x[7] = -3
    z = poisoned(32, "int32")
    _assert_nodebug_kernel[(1,)](x, z, BLOCK=32)
    assert (z == x).all()


@triton.jit
def _print_kernel(X):
    pid = tl.program_id(0)
    x = tl.load(X + pid)
    tl.device_print("value of x ", x)
    tl.static_print("static print at compile time")


@triton.jit
def _print_vector_kernel(X):
    x = tl.load(X + tl.arange(0, 4))
    tl.device_print("x=", x)
    tl.device_print("pid", tl.program_id(0))


_TRITON_LINES = ["pid (1, 0, 0) idx (2) x=: 2", "pid (1, 0, 0) idx () pid: 1"]


def test_device_print_reads_as_triton_on_the_ptx_path(capfd):
    # Issue 12: Triton makes a prefix end in ": " and start with " "; lines carry the program
    # and the element's index.
    _print_vector_kernel[(2,)](np.arange(4, dtype=np.int32), enable_tile=False)
    text = capfd.readouterr().out
    for line in _TRITON_LINES:
        assert line in text, text


@pytest.mark.xfail(strict=True, reason="the TTIR -> Tile IR conversion (csrc/conversion, "
                   "Converter::print) builds a printf format of prefix + ' %d' per operand, "
                   "without the program or index; reported in issue 12")
def test_device_print_reads_the_same_on_the_tile_path(capfd):
    _print_vector_kernel[(2,)](np.arange(4, dtype=np.int32), enable_tile=True)
    text = capfd.readouterr().out
    for line in _TRITON_LINES:
        assert line in text, text


def test_device_print(capfd):
    x = np.array([12345, 67890], dtype=np.int32)
    _print_kernel[(2,)](x)
    out = capfd.readouterr()
    text = out.out + out.err
    assert "value of x" in text
    assert "12345" in text and "67890" in text

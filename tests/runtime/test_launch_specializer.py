"""The C++ LaunchSpecializer (every launch) against JITFunction._specialize_py (the Python
reference): the same key, runtime values, device and aliasing verdict, or the same error, for
arguments of every kind the specialization table knows."""

import numpy as np
import pytest

import triton_tile as triton
import triton_tile.language as tl
from triton_tile.runtime import specialize as sp


@triton.jit(do_not_specialize=["n2"], do_not_specialize_on_alignment=["n3"])
def many_kernel(x, y, n, n2, n3, f, m: tl.int64, C: tl.constexpr):
    pass


class FakeCudaTensor:
    """A torch CUDA tensor as far as the launch path can tell (no memory behind it)."""

    is_cuda = True

    def __init__(self, ptr, device=0, dtype=np.float32, offset=0):
        self.ptr, self.device, self.dtype, self.offset = ptr, device, np.dtype(dtype), offset

    def data_ptr(self):
        return self.ptr

    def get_device(self):
        return self.device

    def storage_offset(self):  # in elements, as torch counts it
        return self.offset


class NotCuda(FakeCudaTensor):
    is_cuda = False


A = np.arange(64, dtype=np.float32)
B = np.ones(40, dtype=np.float16)
READ_ONLY = np.zeros(8, dtype=np.int8)
READ_ONLY.flags.writeable = False


class Sub(np.ndarray):
    pass


# Arrays that own their memory in every form the C++ path must decide as Python does: empty,
# Fortran order, 0-d, bool, read-only, a dtype Triton has no name for (the same error), a
# subclass (Python's rules), and views of them.
OWNERS = [np.zeros(0, np.float32), np.zeros((3, 5), np.float64, order="F"), np.array(2.5),
          np.ones(7, bool), READ_ONLY, np.zeros(4, np.complex64), np.zeros(4).view(Sub),
          np.zeros((4, 6), np.int32)[:, 1:], np.zeros((4, 6), np.uint16).T]
INTS = [0, 1, 16, -16, -1, 17, 2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**40, 2**63, True,
        np.int32(16), np.int64(1)]
CONSTS = [1, 16, 0, -5, 2**40, 2.5, True, None, "s", tl.constexpr(8), (1, 2), tl.float16]


def cases():
    cuda = [FakeCudaTensor(1 << 20), FakeCudaTensor((1 << 20) + 4, dtype=np.float16),
            FakeCudaTensor((1 << 20) + 64, offset=16), FakeCudaTensor((1 << 20) + 8, offset=4),
            FakeCudaTensor(2 << 20, device=1), NotCuda(3 << 20)]
    pointers = [A, A[1:], B, A[::2]] + cuda
    out = []
    for i, n in enumerate(INTS):
        out.append((A, B, n, INTS[-i], INTS[(i * 7) % len(INTS)], 1.5, 3, CONSTS[i % len(CONSTS)]))
    for x in pointers:
        for y in pointers:
            out.append((x, y, 32, 1, 16, 0.25, -7, 4))
    out += [(A, None, 8, 8, 8, 2.0, 1, 1), (A, A, 8, 8, 8, np.float32(2), 5, 1),
            (A, B, 8, 8, 8, 7, 2**62, 1)]
    out += [(x, A, 8, 8, 8, 2.0, 1, 1) for x in OWNERS]
    return out


def outcome(fn, bound):
    try:
        key, runtime, dev, shared, addresses = fn(bound, False)
    except Exception as e:  # the same error, word for word
        return ("error", type(e).__name__, str(e))
    rt = [("CONSTEXPR",) if v is sp.CONSTEXPR else (type(v).__name__, v) for v in runtime]
    return key, rt, dev, shared, addresses


@pytest.mark.parametrize("bound", cases(), ids=lambda b: "")
def test_cpp_specializer_matches_python(bound, monkeypatch):
    monkeypatch.setattr(sp, "_TORCH_CUDA_TYPES", {FakeCudaTensor, NotCuda})
    # Name the fake dtypes once (the first sighting goes through Python, which fills the cache).
    for d in (np.float32, np.float16, np.float64, np.int8, np.int32, np.uint16, bool,
              np.complex64):
        sp.canonical_dtype(np.dtype(d))
    fast = outcome(many_kernel._specialize, bound)
    ref = outcome(many_kernel._specialize_py, bound)
    assert fast == ref
    if not isinstance(bound[0], np.ndarray) and fast[0] != "error":
        assert type(fast[1][0][1]) is sp.DeviceBuffer  # the C++ path built it


def test_launch_addresses_are_the_bound_arguments_with_tensors_as_addresses(monkeypatch):
    """What the PTX path hands stock's launcher: data_ptr() for each tensor, the normalized
    runtime value of each scalar, the bound value of each constexpr; none with host memory,
    another owner's buffer or two devices."""
    monkeypatch.setattr(sp, "_TORCH_CUDA_TYPES", {FakeCudaTensor})
    sp.canonical_dtype(np.dtype(np.float32))
    x, y = FakeCudaTensor(1 << 20), FakeCudaTensor((2 << 20) + 4)
    for spec in (many_kernel._specialize, many_kernel._specialize_py):
        got = spec((x, y, 32, 7, 16, 0.5, np.int64(3), 8), False)[4]
        assert got == [1 << 20, (2 << 20) + 4, 32, 7, 16, 0.5, 3, 8]
        assert type(got[6]) is int  # the annotated i64, normalized
        assert spec((A, B, 32, 7, 16, 0.5, 3, 8), False)[4] is None
        other = sp.DeviceBuffer(3 << 20, 0, "cupy", 3 << 20)
        monkeypatch.setattr(sp, "specialize_arg", _as_cupy(sp.specialize_arg, other))
        assert spec((x, "cupy", 32, 7, 16, 0.5, 3, 8), False)[4] is None
        monkeypatch.undo()
        monkeypatch.setattr(sp, "_TORCH_CUDA_TYPES", {FakeCudaTensor})
        with pytest.raises(TypeError, match="CUDA device 1"):
            spec((x, FakeCudaTensor(2 << 20, device=1), 32, 7, 16, 0.5, 3, 8), False)


def _as_cupy(real, buf):
    """specialize_arg that takes the string "cupy" for a cupy array at `buf`."""
    def fake(v, *args):
        if isinstance(v, str) and v == "cupy":
            return "*fp32", None, buf
        return real(v, *args)
    return fake


def test_cpp_specializer_decides_common_arguments_itself(monkeypatch):
    """Ints, floats, CUDA tensors, numpy arrays that own their memory and constexprs of the
    simple types never reach the Python callback; numpy views do (their bounds are the
    owner's)."""
    monkeypatch.setattr(sp, "_TORCH_CUDA_TYPES", {FakeCudaTensor})
    for d in (np.float32, np.float16):  # (named by Python once: the cache C++ reads)
        sp.canonical_dtype(np.dtype(d))
    asked = []
    real = many_kernel._spec_one
    monkeypatch.setattr(many_kernel, "_spec_one", lambda i, v, w: asked.append(i) or real(i, v, w))
    x, y = FakeCudaTensor(1 << 20), FakeCudaTensor(2 << 20)
    many_kernel._specialize((x, y, 32, 7, 16, 0.5, 3, 8), False)
    assert asked == [6]  # only the annotated `m: tl.int64`
    many_kernel._specialize((A, B, 32, 7, 16, 0.5, 3, 8), False)
    assert asked == [6, 6]
    many_kernel._specialize((A[1:], B, 32, 7, 16, 0.5, 3, 8), False)
    assert asked == [6, 6, 0, 6]
    for const in ("relu", True, 0.5, None):  # constexpr str, bool, float, None: C++ too
        many_kernel._specialize((A, B, 32, 7, 16, 0.5, 3, const), False)
    assert asked == [6, 6, 0, 6, 6, 6, 6, 6]


def test_a_dtype_seen_first_goes_through_python_then_not(monkeypatch):
    monkeypatch.setattr(sp, "_TORCH_CUDA_TYPES", {FakeCudaTensor})
    monkeypatch.setattr(sp, "_DTYPE_NAMES", {})  # nothing named yet
    asked = []
    real = many_kernel._spec_one
    monkeypatch.setattr(many_kernel, "_spec_one", lambda i, v, w: asked.append(i) or real(i, v, w))
    x = FakeCudaTensor(1 << 20, dtype=np.int16)
    bound = (x, x, 32, 7, 16, 0.5, 3, 8)
    first = many_kernel._specialize(bound, False)
    # x named by Python at argument 0 (the cache fills), then decided in C++ at argument 1
    assert asked == [0, 6]
    assert first[0][0] == ("*i16", "D") and first[3] is True  # the same allocation twice
    assert many_kernel._specialize(bound, False)[0] == first[0] and asked == [0, 6, 6]


class RaisesOnce(FakeCudaTensor):
    calls = 0

    @property
    def is_cuda(self):
        RaisesOnce.calls += 1
        if RaisesOnce.calls == 1:
            raise KeyboardInterrupt("from is_cuda")
        return True


def test_errors_of_tensor_attributes_propagate(monkeypatch):
    """An exception raised by the tensor itself is the caller's, as in Python's rules: not
    swallowed and retried."""
    monkeypatch.setattr(sp, "_TORCH_CUDA_TYPES", {RaisesOnce})
    sp.canonical_dtype(np.dtype(np.float32))
    x = RaisesOnce(1 << 20)
    with pytest.raises(KeyboardInterrupt, match="from is_cuda"):
        many_kernel._specialize((x, x, 32, 7, 16, 0.5, 3, 8), False)
    assert RaisesOnce.calls == 1


def test_views_of_one_cuda_storage_share_an_alias_class(monkeypatch):
    """x and a view 16 elements into its storage: one allocation, so the Tile path orders their
    accesses as one buffer's; a tensor of another storage stays apart."""
    monkeypatch.setattr(sp, "_TORCH_CUDA_TYPES", {FakeCudaTensor})
    sp.canonical_dtype(np.dtype(np.float32))
    x, view = FakeCudaTensor(1 << 20), FakeCudaTensor((1 << 20) + 64, offset=16)
    other = FakeCudaTensor(2 << 20)
    for spec in (many_kernel._specialize, many_kernel._specialize_py):
        _, runtime, _, shared, _ = spec((x, view, 32, 7, 16, 0.5, 3, 8), False)
        assert shared and [b.lo for b in runtime[:2]] == [1 << 20, 1 << 20]
        assert sp.alias_classes(runtime) == ((0, 1),)
        assert not spec((x, other, 32, 7, 16, 0.5, 3, 8), False)[3]


def _torch_cases(torch):
    base = torch.arange(24, dtype=torch.float32)
    meta = torch.empty(4, device="meta")
    return [base, base[1:], base.view(4, 6).t(), torch.ones(5, dtype=torch.float16),
            torch.zeros(0), torch.tensor(2.5), torch.ones(3, dtype=torch.bool),
            torch.zeros(2, dtype=torch.complex64), torch.nn.Parameter(torch.ones(4)), meta]


def test_cpu_tensors_match_python_and_skip_the_callback(monkeypatch):
    """torch CPU tensors: decided in C++ once their type has been seen holding host memory, with
    the key, buffer (the storage's bounds) and errors of Python's rules."""
    torch = pytest.importorskip("torch")
    cases = _torch_cases(torch)
    for x in cases:  # types and dtypes named once, by Python
        outcome(many_kernel._specialize_py, (x, A, 8, 8, 8, 2.0, 1, 1))
    for x in cases:
        for y in (A, cases[1]):
            bound = (x, y, 32, 1, 16, 0.25, -7, 4)
            assert outcome(many_kernel._specialize, bound) == \
                outcome(many_kernel._specialize_py, bound)
    asked = []
    real = many_kernel._spec_one
    monkeypatch.setattr(many_kernel, "_spec_one", lambda i, v, w: asked.append(i) or real(i, v, w))
    _, runtime, _, shared, _ = many_kernel._specialize((cases[0], cases[1], 32, 7, 16, 0.5, 3,
                                                        8), False)
    assert asked == [6]  # only the annotated `m: tl.int64`
    assert shared and runtime[1].lo == runtime[0].lo == runtime[0].ptr  # one storage
    assert runtime[1].ptr == runtime[0].ptr + 4 and runtime[0].hi == runtime[0].lo + 96

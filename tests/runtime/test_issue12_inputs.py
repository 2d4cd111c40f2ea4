"""What a user passes never crashes Python or corrupts memory (issue 12): read-only outputs,
grids and launch options, ahead-of-time compiles without ENABLE_TILE, debug-mode bounds."""

import mmap
import warnings

import numpy as np
import pytest

import triton_tile as triton
import triton_tile.language as tl
from triton_tile.runtime import specialize as sp


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2 + 1, mask=mask)


@triton.jit
def count_kernel(idx_ptr, hist_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.atomic_add(hist_ptr + tl.load(idx_ptr + offs, mask=mask), 1, mask=mask)


@triton.jit
def loop_store_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # The stored-to pointer is carried through a loop: still found to be written.
    p = out_ptr + tl.arange(0, BLOCK)
    for i in range(0, n, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        tl.store(p, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
        p += BLOCK


def _grid(n, block=128):
    return (triton.cdiv(n, block),)


def _check_scale(x, out):
    np.testing.assert_allclose(out, x.astype(np.float64) * 2 + 1, rtol=1e-6, atol=1e-6)


# --- 1. read-only outputs -------------------------------------------------------------------


def _read_only_arrays(tmp_path, n):
    f = tmp_path / "ro.bin"
    f.write_bytes(bytes(4 * n))
    flagged = np.zeros(n, np.float32)
    flagged.setflags(write=False)
    return {
        "memmap": np.memmap(f, np.float32, mode="r", shape=(n,)),
        "bytes": np.frombuffer(bytes(4 * n), np.float32),
        "setflags": flagged,
    }


@pytest.mark.parametrize("path", ["ptx", "tile"])
@pytest.mark.parametrize("kind", ["memmap", "bytes", "setflags"])
def test_read_only_output_is_a_value_error_before_running(tmp_path, path, kind):
    n = 1000
    out = _read_only_arrays(tmp_path, n)[kind]
    before = np.array(out, copy=True)
    x = np.random.default_rng().standard_normal(n).astype(np.float32)
    with pytest.raises(ValueError, match=r"scale_kernel: argument 'out_ptr' is .*read-only"):
        scale_kernel[_grid(n)](x, out, n, BLOCK=128, enable_tile=path == "tile")
    np.testing.assert_array_equal(out, before)  # nothing ran


def test_read_only_inputs_are_fine_and_atomics_count_as_writes(tmp_path):
    n = 777
    x = np.random.default_rng().standard_normal(n).astype(np.float32)
    x.setflags(write=False)
    out = np.full(n, np.nan, np.float32)
    scale_kernel[_grid(n)](x, out, n, BLOCK=128)
    _check_scale(x, out)
    idx = np.random.default_rng().integers(0, 10, n).astype(np.int32)
    idx.setflags(write=False)
    hist = np.zeros(10, np.int32)
    count_kernel[_grid(n)](idx, hist, n, BLOCK=128)
    np.testing.assert_array_equal(hist, np.bincount(idx, minlength=10))
    hist.setflags(write=False)
    with pytest.raises(ValueError, match="count_kernel: argument 'hist_ptr'"):
        count_kernel[_grid(n)](idx, hist, n, BLOCK=128)


def test_loop_carried_store_pointer_is_checked():
    n = 300
    x = np.random.default_rng().standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    out.setflags(write=False)
    with pytest.raises(ValueError, match="loop_store_kernel: argument 'out_ptr'"):
        loop_store_kernel[(1,)](x, out, n, BLOCK=64)
    out = np.full(n, np.nan, np.float32)
    loop_store_kernel[(1,)](x, out, n, BLOCK=64)
    np.testing.assert_array_equal(out, x)


@triton.jit
def tuple_kernel(pair, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x_ptr, out_ptr = pair
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def test_read_only_array_inside_a_tuple_argument():
    n = 50
    x = np.random.default_rng().standard_normal(n).astype(np.float32)
    x.setflags(write=False)  # read only: fine
    out = np.full(n, np.nan, np.float32)
    tuple_kernel[(1,)]((x, out), n, BLOCK=64)
    np.testing.assert_array_equal(out, x)
    out.setflags(write=False)
    with pytest.raises(ValueError, match=r"tuple_kernel: argument 'pair\[1\]' is .*read-only"):
        tuple_kernel[(1,)]((x, out), n, BLOCK=64)


def test_read_only_descriptor_base_is_refused():
    from triton_tile.tools.tensor_descriptor import TensorDescriptor

    @triton.jit
    def desc_copy(src, dst, BM: tl.constexpr, BN: tl.constexpr):
        dst.store([0, 0], src.load([0, 0]))

    a = np.random.default_rng().standard_normal((16, 16)).astype(np.float32)
    b = np.full((16, 16), np.nan, np.float32)
    desc_copy[(1,)](TensorDescriptor.from_tensor(a, [16, 16]),
                    TensorDescriptor.from_tensor(b, [16, 16]), BM=16, BN=16)
    np.testing.assert_array_equal(a, b)
    b.setflags(write=False)
    with pytest.raises(ValueError, match="desc_copy: argument 'dst' is .*read-only"):
        desc_copy[(1,)](TensorDescriptor.from_tensor(a, [16, 16]),
                        TensorDescriptor.from_tensor(b, [16, 16]), BM=16, BN=16)


class _ArrayInterface:
    def __init__(self, arr, readonly):
        self._arr = arr  # keeps the memory alive
        ai = dict(arr.__array_interface__)
        ai["data"] = (ai["data"][0], readonly)
        self.__array_interface__ = ai


class _DLPackOnly:
    def __init__(self, arr):
        self._arr = arr

    def __dlpack__(self, **kw):
        return self._arr.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self._arr.__dlpack_device__()


def test_read_only_array_interface_and_dlpack_producers():
    n = 257
    x = np.random.default_rng().standard_normal(n).astype(np.float32)
    base = np.zeros(n, np.float32)
    with pytest.raises(ValueError, match="argument 'out_ptr' is read-only .*__array_interface__"):
        scale_kernel[_grid(n)](x, _ArrayInterface(base, True), n, BLOCK=128)
    ro = np.zeros(n, np.float32)
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="argument 'out_ptr' is read-only .*DLPack"):
        scale_kernel[_grid(n)](x, _DLPackOnly(ro), n, BLOCK=128)
    assert not base.any() and not ro.any()
    scale_kernel[_grid(n)](x, _ArrayInterface(base, False), n, BLOCK=128)
    _check_scale(x, base)


def test_read_only_torch_tensor_over_a_read_only_mapping(tmp_path):
    torch = pytest.importorskip("torch")
    n = 1024
    f = tmp_path / "ro.bin"
    f.write_bytes(bytes(4 * n))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns that the array is not writable
        out = torch.from_numpy(np.memmap(f, np.float32, mode="r", shape=(n,)))
    x = torch.randn(n)
    with pytest.raises(ValueError, match="argument 'out_ptr' is a torch tensor over memory"):
        scale_kernel[_grid(n)](x, out, n, BLOCK=128)


def test_os_writable_sees_read_only_mappings():
    m = mmap.mmap(-1, 4096, prot=mmap.PROT_READ)
    ro = np.frombuffer(m, np.uint8)
    lo = ro.__array_interface__["data"][0]
    assert not sp._os_writable(lo, lo + 4096)
    rw = np.zeros(4096, np.uint8)
    lo = rw.__array_interface__["data"][0]
    assert sp._os_writable(lo, lo + 4096)
    del ro
    m.close()


def test_direct_compiled_launch_checks_writability():
    n = 100
    x = np.ones(n, np.float32)
    out = np.zeros(n, np.float32)
    k = scale_kernel[(1,)](x, out, n, BLOCK=128)
    out.setflags(write=False)
    with pytest.raises(ValueError, match=r"scale_kernel: argument '#1'"):
        k[(1,)](x, out, n, 128)


# --- 4. grids and launch options --------------------------------------------------------------


@pytest.mark.parametrize("grid, exc, match", [
    ((2.7,), TypeError, "grid dimension 0 must be an int"),
    (("3",), TypeError, "grid dimension 0 must be an int"),
    ((True,), TypeError, "grid dimension 0 must be an int"),
    ((1, 70000), ValueError, "grid dimension 1 is 70000, over CUDA's limit of 65535"),
    ((1, 1, 65536), ValueError, "grid dimension 2 is 65536"),
    ((2**31,), ValueError, "grid dimension 0 is 2147483648"),
    ((-1,), ValueError, "non-negative"),
    ("abc", TypeError, "grid must be a tuple"),
    ((1, 1, 1, 1), ValueError, "1 to 3"),
])
def test_bad_grids_name_the_kernel(grid, exc, match):
    x = np.zeros(8, np.float32)
    out = np.zeros(8, np.float32)
    with pytest.raises(exc, match=f"scale_kernel: .*{match}"):
        scale_kernel[grid](x, out, 8, BLOCK=128)
    with pytest.raises(exc, match=f"scale_kernel: .*{match}"):
        scale_kernel[lambda meta: grid](x, out, 8, BLOCK=128)
    assert not out.any()


def test_numpy_int_grids_and_the_limits_themselves_run():
    x = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    scale_kernel[(np.int64(1), np.int32(1))](x, out, 8, BLOCK=128)
    _check_scale(x, out)
    scale_kernel[(1, 1, 1)](x, out, 8, BLOCK=128)
    out[:] = np.nan
    scale_kernel[np.array([1, 1])](x, out, 8, BLOCK=128)
    _check_scale(x, out)


@pytest.mark.parametrize("opt, value, exc", [
    ("enable_tile", "maybe", ValueError),
    ("debug", "yes", ValueError),
    ("num_ctas", 3, ValueError),
    ("num_ctas", 32, ValueError),
    ("occupancy", 0, ValueError),
    ("num_warps", 4.5, ValueError),
    ("num_warps", "4", ValueError),
    ("num_stages", True, ValueError),
    ("occupancy", True, ValueError),
    ("maxnreg", 0, ValueError),
])
def test_bad_launch_options_name_kernel_and_option(opt, value, exc):
    x = np.zeros(8, np.float32)
    out = np.zeros(8, np.float32)
    with pytest.raises(exc, match=f"scale_kernel: {opt}"):
        scale_kernel[(1,)](x, out, 8, BLOCK=128, **{opt: value})
    assert not out.any()


def test_decorator_enable_tile_is_validated_at_launch():
    @triton.jit(enable_tile="maybe")
    def k(x_ptr):
        tl.store(x_ptr, 1.0)

    with pytest.raises(ValueError, match="k: enable_tile must be True or False"):
        k[(1,)](np.zeros(1, np.float32))


def test_unknown_keyword_is_a_type_error_naming_the_kernel():
    x = np.zeros(8, np.float32)
    with pytest.raises(TypeError, match="scale_kernel: keyword argument 'BLOCKK'"):
        scale_kernel[(1,)](x, x, 8, BLOCKK=128)
    with pytest.raises(KeyError):  # stock Triton's exception type still catches it
        scale_kernel[(1,)](x, x, 8, BLOCK=128, stream=0)


def test_good_options_still_run():
    x = np.arange(50, dtype=np.float32)
    out = np.zeros(50, np.float32)
    scale_kernel[(1,)](x, out, 50, BLOCK=128, num_ctas=2, num_warps=np.int64(8), occupancy=1,
                       enable_tile=np.bool_(False), debug=False)
    _check_scale(x, out)


# --- 3. ahead-of-time compiles ----------------------------------------------------------------


def test_aot_target_implies_the_tile_path_or_says_why(monkeypatch):
    monkeypatch.setenv("TRITON_TILE_TARGET", "sm_90")
    monkeypatch.delenv("ENABLE_TILE", raising=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", triton.TileFallbackWarning)  # no tileiras here
        k = scale_kernel.warmup(np.float32, np.float32, 1000, BLOCK=128, grid=(8,))
    assert k.asm and "ttir" in k.asm
    assert k.hash
    assert k.metadata.path == "tile" or k.metadata.fallback_reason
    if k.metadata.path == "tile":
        assert "cubin" in k.asm
    with pytest.raises(ValueError, match="scale_kernel: TRITON_TILE_TARGET=sm_90 .*Tile path"):
        scale_kernel.warmup(np.float32, np.float32, 1000, BLOCK=128, grid=(8,),
                            enable_tile=False)


# --- 5. debug mode checks each array's own extent ---------------------------------------------


@pytest.mark.parametrize("path", ["ptx", "tile"])
def test_debug_checks_accesses_against_the_array_not_the_allocation(path):
    buf = np.random.default_rng().standard_normal(4096).astype(np.float32)
    x = buf[:1000]
    out = np.full(1024, np.nan, np.float32)
    tile = path == "tile"
    # Default: as in Triton, the whole allocation is addressable.
    scale_kernel[(8,)](x, out, 1024, BLOCK=128, enable_tile=tile)
    _check_scale(buf[:1024], out)
    with pytest.raises(IndexError, match="scale_kernel"):
        scale_kernel[(8,)](x, out, 1024, BLOCK=128, enable_tile=tile, debug=True)
    out[:] = np.nan  # in bounds, debug runs as usual
    scale_kernel[(8,)](x, out, 1000, BLOCK=128, enable_tile=tile, debug=True)
    _check_scale(x, out[:1000])


@triton.jit
def two_views_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr),
             mask=mask)


@pytest.mark.parametrize("path", ["ptx", "tile"])
def test_debug_checks_the_array_an_access_derives_from(path):
    # x and y are views of one buffer, y right after x: reading past x's end lands in y, so
    # checking against every argument's extent would pass; each access is checked against the
    # argument its pointer derives from.
    buf = np.random.default_rng().standard_normal(2048).astype(np.float32)
    x, y = buf[:1000], buf[1000:]
    out = np.full(1024, np.nan, np.float32)
    tile = path == "tile"
    two_views_kernel[(8,)](x, y, out, 1024, BLOCK=128, enable_tile=tile)  # legal by default
    np.testing.assert_allclose(out, buf[:1024].astype(np.float64) + buf[1000], rtol=1e-6)
    with pytest.raises(IndexError, match="two_views_kernel.*outside the array of argument #0"):
        two_views_kernel[(8,)](x, y, out, 1024, BLOCK=128, enable_tile=tile, debug=True)
    out[:] = np.nan
    two_views_kernel[(8,)](x, y, out, 1000, BLOCK=128, enable_tile=tile, debug=True)
    np.testing.assert_allclose(out[:1000], x.astype(np.float64) + y[0], rtol=1e-6)


def test_debug_extents_of_strided_and_reversed_views():
    buf = np.arange(100, dtype=np.float32)
    for view, (first, last) in [(buf[10:20], (10, 19)), (buf[::-1][5:15], (85, 94)),
                                (buf[3:50:4], (3, 47))]:
        lo, hi = sp._extent(view)
        base = buf.__array_interface__["data"][0]
        assert (lo - base) // 4 == first and (hi - base) // 4 == last + 1


def test_triton_debug_env_checks_extents(monkeypatch):
    monkeypatch.setenv("TRITON_DEBUG", "1")
    buf = np.zeros(2048, np.float32)
    with pytest.raises(IndexError):
        scale_kernel[(8,)](buf[:1000], np.zeros(1024, np.float32), 1024, BLOCK=128)


# --- 6. the fallback error has its own class --------------------------------------------------


@triton.jit
def histogram_kernel(x_ptr, out_ptr, N: tl.constexpr, BINS: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, BINS), tl.histogram(tl.load(x_ptr + tl.arange(0, N)), BINS))


def test_fallback_error_is_its_own_class(monkeypatch):
    monkeypatch.setenv("TRITON_TILE_FALLBACK", "error")
    x = np.random.default_rng().integers(0, 2048, 1 << 20).astype(np.int32)
    with pytest.raises(triton.TileFallbackError) as info:
        histogram_kernel[(1,)](x, np.zeros(2048, np.int32), N=1 << 20, BINS=2048,
                               enable_tile=True)
    assert isinstance(info.value, triton.TritonError) and isinstance(info.value, RuntimeError)
    msg = str(info.value)
    assert "histogram_kernel" in msg and "TRITON_TILE_FALLBACK=error" in msg
    assert "running on" not in msg

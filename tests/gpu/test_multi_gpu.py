"""Several GPUs in one process: each launch runs on its arrays' device, in that device's
primary context, on the current stream of that device, with a module loaded once per device.

Every launch's (device, stream) is recorded where the GPU backend picks the stream
(`tile_gpu.stream_of`; the PTX path hands the launch to stock Triton, which picks them itself)
and checked against torch's current stream of the arrays' device; results are checked against
float64 numpy and, on the PTX path's device, against stock Triton's own launch. The tests skip
below two GPUs, saying how many there are.
"""

import threading

import numpy as np
import pytest
from tt_utils import numpy_random, poisoned

import triton_tile as triton
import triton_tile.language as tl
from triton_tile.backends import tile_gpu


def _gpus() -> int:
    try:
        import torch
    except ImportError:
        return 0
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


@pytest.fixture
def devices(path):
    n = _gpus()
    if n < 2:
        pytest.skip(f"needs two or more CUDA GPUs; this machine has {n}")
    if path == "ptx":
        pytest.importorskip("triton", reason="the GPU PTX path runs through stock Triton")
    return list(range(n))


@pytest.fixture
def streams_used(monkeypatch):
    """(device, stream) of every Tile-path launch, in order."""
    seen = []
    real = tile_gpu.stream_of

    def record(buf):
        s = real(buf)
        seen.append((buf.device, s))
        return s

    monkeypatch.setattr(tile_gpu, "stream_of", record)
    return seen


@triton.jit
def _axpy_kernel(X, Y, Z, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(Z + offs, a * tl.load(X + offs, mask=m) + tl.load(Y + offs, mask=m), mask=m)


def _launch(x, y, z, a, n):
    return _axpy_kernel[(triton.cdiv(n, 256),)](x, y, z, a, n, BLOCK=256)


def _on(device, *arrays):
    import torch

    return [torch.from_numpy(np.ascontiguousarray(a)).to(f"cuda:{device}") for a in arrays]


def _reference(x, y, a):
    return (a * x.astype(np.float64) + y).astype(np.float32)


def test_the_same_kernel_on_every_device_interleaved(devices, path, streams_used, rng):
    import torch

    n = 5_000
    kernels = {}
    for rnd in range(3):
        for d in devices:
            x, y = numpy_random(n, "float32", rng), numpy_random(n, "float32", rng)
            dx, dy, dz = _on(d, x, y, poisoned(n, "float32"))
            a = 0.5 + rnd + d
            k = _launch(dx, dy, dz, a, n)
            torch.cuda.synchronize(d)
            np.testing.assert_allclose(dz.cpu().numpy(), _reference(x, y, a), rtol=1e-6)
            assert dz.device.index == d
            kernels.setdefault(d, k)
    if path == "tile":
        want = [(d, torch.cuda.current_stream(d).cuda_stream) for _ in range(3) for d in devices]
        assert streams_used == want
        for d in devices:  # one module per device, each loaded once
            assert d in kernels[d]._cuda


def test_one_thread_per_device_on_its_own_stream(devices, path, streams_used, rng):
    import torch

    n, rounds = 20_000, 5
    inputs = {d: (numpy_random(n, "float32", rng), numpy_random(n, "float32", rng))
              for d in devices}
    results, errors, used = {}, [], {}

    def work(d):
        try:
            stream = torch.cuda.Stream(device=d)
            used[d] = stream.cuda_stream
            x, y = inputs[d]
            with torch.cuda.device(d), torch.cuda.stream(stream):
                dx, dy = _on(d, x, y)
                out = []
                for r in range(rounds):
                    dz = torch.full((n,), float("nan"), device=f"cuda:{d}")
                    _launch(dx, dy, dz, float(r), n)
                    out.append(dz)
                stream.synchronize()
                results[d] = [z.cpu().numpy() for z in out]
        except Exception as e:  # reported below, with the device
            errors.append((d, repr(e)))

    threads = [threading.Thread(target=work, args=(d,)) for d in devices]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for d in devices:
        x, y = inputs[d]
        for r, z in enumerate(results[d]):
            np.testing.assert_allclose(z, _reference(x, y, float(r)), rtol=1e-6)
    if path == "tile":
        for d in devices:
            mine = [s for dev, s in streams_used if dev == d]
            assert mine == [used[d]] * rounds, (d, mine, used[d])


def test_a_stream_made_under_torch_cuda_device(devices, path, streams_used, rng):
    """`with torch.cuda.device(N)` and a stream created there: the launch on device N's
    arrays runs on that stream, as with stock Triton."""
    import torch

    d = devices[-1]
    n = 3_000
    x, y = numpy_random(n, "float32", rng), numpy_random(n, "float32", rng)
    with torch.cuda.device(d):
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            dx, dy, dz = _on(d, x, y, poisoned(n, "float32"))
            _launch(dx, dy, dz, 2.0, n)
        stream.synchronize()
    np.testing.assert_allclose(dz.cpu().numpy(), _reference(x, y, 2.0), rtol=1e-6)
    if path == "tile":
        assert streams_used == [(d, stream.cuda_stream)]


def test_matches_stock_triton_on_each_device(devices, path, rng):
    """The Tile path's results equal stock Triton's own launch of the same kernel source on
    each device (bitwise: the same fp32 arithmetic)."""
    import torch
    triton_stock = pytest.importorskip("triton")
    import triton.language as stl

    @triton_stock.jit
    def stock_axpy(X, Y, Z, a, n, BLOCK: stl.constexpr):
        offs = stl.program_id(0) * BLOCK + stl.arange(0, BLOCK)
        m = offs < n
        stl.store(Z + offs, a * stl.load(X + offs, mask=m) + stl.load(Y + offs, mask=m), mask=m)

    n = 4_097
    for d in devices:
        x, y = numpy_random(n, "float32", rng), numpy_random(n, "float32", rng)
        dx, dy, ours, theirs = _on(d, x, y, poisoned(n, "float32"), poisoned(n, "float32"))
        _launch(dx, dy, ours, 1.5, n)
        with torch.cuda.device(d):
            stock_axpy[(triton.cdiv(n, 256),)](dx, dy, theirs, 1.5, n, BLOCK=256)
        torch.cuda.synchronize(d)
        np.testing.assert_array_equal(ours.cpu().numpy(), theirs.cpu().numpy())


def test_arrays_on_two_devices_are_refused_before_anything_runs(devices, path):
    import torch

    x = torch.zeros(16, device="cuda:0")
    y = torch.zeros(16, device="cuda:1")
    with pytest.raises(ValueError, match=r"_axpy_kernel: argument 'Y' is on CUDA device 1 but "
                                         r"argument 'X' is on CUDA device 0"):
        _launch(x, y, x, 1.0, 16)

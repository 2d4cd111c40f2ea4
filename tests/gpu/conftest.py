"""tests/gpu: kernel tests on CUDA arrays, once per GPU path (tile, ptx: tests/conftest.py).

Every test here is marked `gpu` and takes the `dev` fixture, which decides how it runs:

- a CUDA GPU (torch.cuda.is_available()): arrays become torch CUDA tensors, kernels launch on
  the GPU, results are checked against numpy references;
- no GPU but TRITON_TILE_TARGET set, on the tile path: ahead of time. Arrays become dtype
  stand-ins, the first launch is a `kernel.warmup` for that target (filling the cache that a
  GPU machine then runs: benchmarks/build_gpu_cache.sh), and the test stops there (skipped);
- otherwise: skipped, with the reason.

Tests that take `cuda_dev` instead launch outside `dev.launch` (streams, cupy, allocators,
warmup itself), so nothing builds them ahead of time: they are marked `gpu_only` and skip
without a GPU, and so are the multi-GPU tests. The GPU run's check of a cache built ahead of
time (benchmarks/gpu_run.sh, aot) runs `-m "not gpu_only"`.
"""

import os

import numpy as np
import pytest

import triton_tile as triton


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu_only: launches that no ahead-of-time build covers")


def pytest_collection_modifyitems(config, items):
    here = os.path.dirname(os.path.abspath(__file__))
    for item in items:
        if str(item.path).startswith(here):
            item.add_marker(pytest.mark.gpu)
            if "cuda_dev" in item.fixturenames or item.path.name == "test_multi_gpu.py":
                item.add_marker(pytest.mark.gpu_only)


def _cuda_ok():
    try:
        import torch
    except ImportError:
        return False, "torch is not installed"
    if not torch.cuda.is_available():
        return False, "no CUDA GPU (torch.cuda.is_available() is False)"
    return True, ""


class Device:
    """Moves numpy arrays to the device under test and launches kernels there."""

    def __init__(self, mode: str, path: str):
        self.mode = mode  # "cuda" or "aot"
        self.path = path

    def to(self, a):
        a = np.ascontiguousarray(a)
        if self.mode == "aot":
            return triton.MockTensor(a.dtype, a.shape)
        import torch

        if a.dtype.name == "bfloat16":  # ml_dtypes: torch reads the bits
            return torch.from_numpy(a.view(np.uint16)).cuda().view(torch.bfloat16)
        return torch.from_numpy(a).cuda()

    def host(self, t, like=None):
        import torch

        torch.cuda.synchronize()
        if t.dtype == torch.bfloat16:
            import ml_dtypes

            return t.view(torch.uint16).cpu().numpy().view(ml_dtypes.bfloat16)
        return t.cpu().numpy()

    def launch(self, kernel, grid, *args, **meta):
        """kernel[grid](*args, **meta) on the GPU; ahead of time: compile, then stop the test."""
        if self.mode == "aot":
            kernel.warmup(*args, grid=grid, **meta)
            pytest.skip(f"compiled ahead of time for {os.environ['TRITON_TILE_TARGET']}; "
                        "nothing runs without a GPU")
        k = kernel[grid](*args, **meta)
        import torch

        torch.cuda.synchronize()
        return k


@pytest.fixture
def dev(path):
    ok, why = _cuda_ok()
    if ok:
        if path == "ptx":
            pytest.importorskip("triton", reason="the GPU PTX path runs through stock Triton")
        return Device("cuda", path)
    if os.environ.get("TRITON_TILE_TARGET") and path == "tile":
        return Device("aot", path)
    pytest.skip(why)


@pytest.fixture
def cuda_dev(dev):
    """`dev` on a GPU only: the test launches outside dev.launch (marked gpu_only)."""
    if dev.mode != "cuda":
        pytest.skip("needs a GPU: it launches outside dev.launch, so nothing builds it ahead "
                    "of time")
    return dev

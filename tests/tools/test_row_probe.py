"""benchmarks/row_probe.py's kernels, launched as the probe launches them, against float64
numpy on both CPU paths at odd sizes (rows that are not a multiple of the block, a row
shorter than BLOCK_SIZE), so that what the probe times on a GPU computes what it says."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
import row_probe as rp  # noqa: E402

import triton_tile as triton  # noqa: E402

M, N = 37, 1000  # (BLOCK_SIZE 1024: 24 masked lanes a row; 37 rows: a partial block of 8)


def _x():
    return (np.random.default_rng(3).standard_normal((M, N)) * 2 + 0.5).astype(np.float16)


def _softmax(x):
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def _case(name):
    """(launch(x, y, tile), reference(x in float64), the output's shape) for a kernel."""
    block = triton.next_power_of_2(N)
    w = np.random.default_rng(4).standard_normal(N).astype(np.float16)
    b = np.random.default_rng(5).standard_normal(N).astype(np.float16)
    stats = np.full(M, np.nan, np.float32), np.full(M, np.nan, np.float32)

    def layer_norm(x):
        d = x - x.mean(1, keepdims=True)
        return d / np.sqrt((d * d).mean(1, keepdims=True) + 1e-5) * w + b

    cases = {
        "layer norm, one pass": (
            lambda x, y, t: rp.layer_norm_one_pass[(M,)](x, y, w, b, *stats, N, N, 1e-5,
                                                         BLOCK_SIZE=block, enable_tile=t),
            layer_norm, (M, N)),
        "softmax, one pass": (
            lambda x, y, t: rp.softmax_one_pass[(M,)](y, x, N, N, BLOCK_SIZE=block,
                                                      enable_tile=t), _softmax, (M, N)),
        "softmax, 4 rows a program": (
            lambda x, y, t: rp.softmax_rows[(triton.cdiv(M, 4),)](y, x, N, M, N, ROWS=4,
                                                                  BLOCK_SIZE=block,
                                                                  enable_tile=t),
            _softmax, (M, N)),
        "rows centred, 8x256 blocks in loops": (
            lambda x, y, t: rp.center_rows[(triton.cdiv(M, 8),)](y, x, M, N, BM=8, BN=256,
                                                                 enable_tile=t),
            lambda x: x - x.mean(1, keepdims=True), (M, N)),
        "rms norm, one pass, block pointers": (
            lambda x, y, t: rp.rms_norm_block_ptr[(M,)](y, x, M, N, 1e-5, BLOCK_SIZE=block,
                                                        enable_tile=t),
            lambda x: x / np.sqrt((x * x).mean(1, keepdims=True) + 1e-5), (M, N)),
        "transpose, 64x64 tiles": (
            lambda x, y, t: rp.transpose[(triton.cdiv(M, 64), triton.cdiv(N, 64))](
                y, x, M, N, BM=64, BN=64, enable_tile=t),
            lambda x: x.T, (N, M)),
    }
    return cases[name]


@pytest.mark.parametrize("name", ["layer norm, one pass", "softmax, one pass",
                                  "softmax, 4 rows a program",
                                  "rows centred, 8x256 blocks in loops",
                                  "rms norm, one pass, block pointers",
                                  "transpose, 64x64 tiles"])
@pytest.mark.parametrize("tile", [True, False], ids=["tile", "ptx"])
def test_each_kernel_matches_float64(name, tile):
    launch, reference, shape = _case(name)
    x = _x()
    y = np.full(shape, np.nan, np.float16)  # poisoned: every element must be written
    launch(x, y, tile)
    ref = reference(x.astype(np.float64))
    assert np.abs(y.astype(np.float64) - ref).max() <= 2e-3 * np.abs(ref).max()


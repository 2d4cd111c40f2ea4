"""A 5-point stencil (the discrete Laplacian with zero padding), in Triton's style.

Each program computes one BLOCK_M x BLOCK_N block of out[r, c] = x[r-1, c] + x[r+1, c] +
x[r, c-1] + x[r, c+1] - 4 x[r, c], where x reads as 0 outside the array. Each neighbour is a
shifted load whose mask tests its rows and columns on both sides, as a convolution's padding
does. Only the import differs from a Triton kernel: the arguments are numpy arrays.

    python examples/stencil.py
"""

import numpy as np

import triton_tile as triton
import triton_tile.language as tl


@triton.jit
def _tap(x_ptr, rows, cols, n_rows, n_cols):
    """x[rows, cols] where inside x, else 0."""
    inside = (rows[:, None] >= 0) & (rows[:, None] < n_rows) & (cols[None, :] >= 0) & (
        cols[None, :] < n_cols)
    return tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=inside, other=0.0)


@triton.jit
def laplacian_kernel(x_ptr, out_ptr, n_rows, n_cols, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = _tap(x_ptr, rows - 1, cols, n_rows, n_cols) + _tap(x_ptr, rows + 1, cols, n_rows,
                                                             n_cols)
    acc += _tap(x_ptr, rows, cols - 1, n_rows, n_cols) + _tap(x_ptr, rows, cols + 1, n_rows,
                                                              n_cols)
    acc -= 4.0 * _tap(x_ptr, rows, cols, n_rows, n_cols)
    inside = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    tl.store(out_ptr + rows[:, None] * n_cols + cols[None, :], acc, mask=inside)


def laplacian(x, out=None, block_m=32, block_n=128):
    """The 5-point Laplacian of a 2-D float32 array (numpy, or CUDA tensors on a GPU)."""
    assert x.ndim == 2
    if out is None:
        out = np.empty_like(x)
    m, n = x.shape
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    return out, laplacian_kernel[grid](x, out, m, n, BLOCK_M=block_m, BLOCK_N=block_n)


def reference(x):
    """The Laplacian in float64 numpy."""
    p = np.pad(x.astype(np.float64), 1)
    return p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * p[1:-1, 1:-1]


def check(m=300, n=517, seed=0):
    """Run once against numpy; returns (correct, max_abs_err, compiled_kernel)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((m, n)).astype(np.float32)
    out = np.full((m, n), np.nan, np.float32)
    _, compiled = laplacian(x, out)
    ref = reference(x)
    err = float(np.max(np.abs(out - ref)))
    return bool(np.allclose(out, ref, rtol=1e-6, atol=1e-5)), err, compiled


def demo(quick=False):
    m, n = (300, 517) if quick else (4096, 4096)
    correct, err, compiled = check(m, n)
    x = np.random.default_rng(1).standard_normal((m, n)).astype(np.float32)
    out = np.empty_like(x)
    ms = triton.testing.do_bench(lambda: laplacian(x, out), warmup=10 if quick else 25,
                                 rep=50 if quick else 200)
    gbps = 2 * x.nbytes / (ms * 1e-3) / 1e9  # x read once and out written, at best
    return {"kernel": "stencil", "size": f"{m}x{n}", "correct": correct, "ms": ms,
            "metric": gbps, "unit": "GB/s", "path": compiled.metadata.path, "max_err": err}


if __name__ == "__main__":
    r = demo()
    print(f"stencil {r['size']}: correct={r['correct']} (max err {r['max_err']:.2e}), "
          f"{r['ms']:.3f} ms, {r['metric']:.1f} {r['unit']}, path {r['path']}")

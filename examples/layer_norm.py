"""Layer normalization, forward pass, in the style of Triton's fifth tutorial.

One program per row: a first loop over the row in BLOCK_SIZE chunks accumulates the mean, a
second the variance, and a third writes y = (x - mean) * rstd * w + b. Mean and 1/std are
stored per row (the backward pass would need them). Statistics are computed in fp32 whatever
the input dtype.

    python examples/layer_norm.py
"""

import numpy as np

import triton_tile as triton
import triton_tile.language as tl


@triton.jit
def layer_norm_fwd_kernel(X, Y, W, B, Mean, Rstd, row_stride, N, eps,
                          BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    X += row * row_stride
    Y += row * row_stride

    sums = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        sums += tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
    mean = tl.sum(sums, axis=0) / N

    squares = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        d = tl.where(cols < N, x - mean, 0.0)
        squares += d * d
    var = tl.sum(squares, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)

    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(Y + cols, y, mask=mask)


def layer_norm(x, weight, bias, eps=1e-5, out=None, block_size=None):
    """Normalizes each row of a 2-D array; returns (y, mean, rstd, compiled_kernel)."""
    M, N = x.shape
    if out is None:
        out = np.empty_like(x)
    mean = np.full(M, np.nan, dtype=np.float32)  # poisoned: every row must be written
    rstd = np.full(M, np.nan, dtype=np.float32)
    if block_size is None:
        block_size = min(triton.next_power_of_2(N), 1024)
    compiled = layer_norm_fwd_kernel[(M,)](x, out, weight, bias, mean, rstd,
                                           x.strides[0] // x.itemsize, N, eps,
                                           BLOCK_SIZE=block_size)
    return out, mean, rstd, compiled


def reference(x, weight, bias, eps=1e-5):
    xf = x.astype(np.float64)
    mean = xf.mean(axis=1)
    var = xf.var(axis=1)
    rstd = 1 / np.sqrt(var + eps)
    y = (xf - mean[:, None]) * rstd[:, None] * weight.astype(np.float64) + bias
    return y, mean, rstd


def _path_of(compiled):
    md = getattr(compiled, "metadata", None)
    if isinstance(md, dict):
        return md.get("path")
    return getattr(md, "path", None)


def check(M=37, N=1151, dtype=np.float16, block_size=256, seed=0):
    """Returns (correct, max_abs_err, compiled_kernel). N > block_size exercises the loops."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((M, N)) * 2 + 0.5).astype(dtype)
    w = rng.random(N).astype(dtype)
    b = rng.random(N).astype(dtype)
    y = np.full((M, N), np.nan, dtype=dtype)
    _, mean, rstd, compiled = layer_norm(x, w, b, out=y, block_size=block_size)
    y_ref, mean_ref, rstd_ref = reference(x, w, b)
    err = float(np.max(np.abs(y.astype(np.float64) - y_ref)))
    tol = 4e-3 if dtype == np.float16 else 1e-5
    ok = (np.allclose(y.astype(np.float64), y_ref, rtol=tol, atol=tol)
          and np.allclose(mean, mean_ref, rtol=1e-5, atol=1e-6)
          and np.allclose(rstd, rstd_ref, rtol=1e-5))
    return bool(ok), err, compiled


def demo(quick=False):
    M, N = (256, 1024) if quick else (4096, 4096)
    correct, err, compiled = check(M, N)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((M, N)).astype(np.float16)
    w = rng.random(N).astype(np.float16)
    b = rng.random(N).astype(np.float16)
    y = np.empty_like(x)
    ms = triton.testing.do_bench(lambda: layer_norm(x, w, b, out=y),
                                 warmup=10 if quick else 25, rep=50 if quick else 200)
    gbps = (2 * x.nbytes + w.nbytes + b.nbytes) / (ms * 1e-3) / 1e9
    return {"kernel": "layer_norm", "size": f"{M}x{N} fp16", "correct": correct, "ms": ms,
            "metric": gbps, "unit": "GB/s", "path": _path_of(compiled), "max_err": err}


if __name__ == "__main__":
    r = demo()
    print(f"layer_norm {r['size']}: correct={r['correct']} (max err {r['max_err']:.2e}), "
          f"{r['ms']:.3f} ms, {r['metric']:.1f} {r['unit']}")

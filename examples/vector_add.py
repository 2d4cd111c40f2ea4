"""Vector addition, in the style of Triton's first tutorial.

Each program instance adds one BLOCK_SIZE-long slice of two vectors; the last slice is
masked. Only the import differs from a Triton kernel: the arguments are numpy arrays.

    python examples/vector_add.py
"""

import numpy as np

import triton_tile as triton
import triton_tile.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    in_bounds = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=in_bounds)
    y = tl.load(y_ptr + offsets, mask=in_bounds)
    tl.store(out_ptr + offsets, x + y, mask=in_bounds)


def add(x, y, out=None, block_size=1024):
    """out = x + y for two 1-D arrays of the same shape and dtype."""
    assert x.shape == y.shape and x.ndim == 1
    if out is None:
        out = np.empty_like(x)
    n = x.shape[0]

    def grid(meta):
        return (triton.cdiv(n, meta["BLOCK_SIZE"]),)

    return out, add_kernel[grid](x, y, out, n, BLOCK_SIZE=block_size)


def _path_of(compiled):
    md = getattr(compiled, "metadata", None)
    if isinstance(md, dict):
        return md.get("path")
    return getattr(md, "path", None)


def check(n=98_432, dtype=np.float32, seed=0):
    """Run once against numpy; returns (correct, max_abs_err, compiled_kernel)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n).astype(dtype)
    y = rng.standard_normal(n).astype(dtype)
    out = np.full(n, np.nan, dtype=dtype)
    _, compiled = add(x, y, out)
    ref = (x.astype(np.float64) + y.astype(np.float64)).astype(dtype)
    err = float(np.max(np.abs(out.astype(np.float64) - ref))) if n else 0.0
    return bool(np.array_equal(out, ref)), err, compiled


def demo(quick=False):
    n = 1 << 16 if quick else 1 << 24
    correct, err, compiled = check(n)
    rng = np.random.default_rng(1)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = np.empty_like(x)
    ms = triton.testing.do_bench(lambda: add(x, y, out), warmup=10 if quick else 25,
                                 rep=50 if quick else 200)
    gbps = 3 * x.nbytes / (ms * 1e-3) / 1e9
    return {"kernel": "vector_add", "size": f"n={n}", "correct": correct, "ms": ms,
            "metric": gbps, "unit": "GB/s", "path": _path_of(compiled), "max_err": err}


if __name__ == "__main__":
    r = demo()
    print(f"vector_add {r['size']}: correct={r['correct']} (max err {r['max_err']:.2e}), "
          f"{r['ms']:.3f} ms, {r['metric']:.1f} {r['unit']}")

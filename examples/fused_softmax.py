"""Row-wise softmax fused into one kernel, in the style of Triton's second tutorial.

A fixed number of programs walks the rows in a persistent loop (row = pid, pid + P, ...);
each row is loaded once, padded with -inf up to the power-of-two block, and normalized.

    python examples/fused_softmax.py
"""

import numpy as np

import triton_tile as triton
import triton_tile.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    first_row = tl.program_id(0)
    row_step = tl.num_programs(0)
    cols = tl.arange(0, BLOCK_SIZE)
    valid = cols < n_cols
    for row in tl.range(first_row, n_rows, row_step, num_stages=num_stages):
        x = tl.load(in_ptr + row * in_row_stride + cols, mask=valid, other=-float("inf"))
        shifted = x - tl.max(x, axis=0)
        e = tl.exp(shifted)
        y = e / tl.sum(e, axis=0)
        tl.store(out_ptr + row * out_row_stride + cols, y, mask=valid)


def softmax(x, out=None, max_programs=64):
    """Softmax over the last axis of a 2-D float32 array (rows may be strided)."""
    n_rows, n_cols = x.shape
    if out is None:
        out = np.empty((n_rows, n_cols), dtype=x.dtype)
    block = triton.next_power_of_2(n_cols)
    programs = max(1, min(n_rows, max_programs))
    compiled = softmax_kernel[(programs,)](
        out, x, x.strides[0] // x.itemsize, out.strides[0] // out.itemsize, n_rows, n_cols,
        BLOCK_SIZE=block, num_stages=2)
    return out, compiled


def reference(x):
    xf = x.astype(np.float64)
    e = np.exp(xf - xf.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _path_of(compiled):
    md = getattr(compiled, "metadata", None)
    if isinstance(md, dict):
        return md.get("path")
    return getattr(md, "path", None)


def check(n_rows=123, n_cols=781, seed=0):
    """Returns (correct, max_abs_err, compiled_kernel)."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((n_rows, n_cols)) * 3).astype(np.float32)
    out = np.full((n_rows, n_cols), np.nan, dtype=np.float32)
    _, compiled = softmax(x, out)
    ref = reference(x)
    err = float(np.max(np.abs(out - ref)))
    return bool(np.allclose(out, ref, rtol=1e-5, atol=1e-6)), err, compiled


def demo(quick=False):
    n_rows, n_cols = (256, 1024) if quick else (4096, 4096)
    correct, err, compiled = check(n_rows, n_cols)
    x = np.random.default_rng(1).standard_normal((n_rows, n_cols)).astype(np.float32)
    out = np.empty_like(x)
    ms = triton.testing.do_bench(lambda: softmax(x, out), warmup=10 if quick else 25,
                                 rep=50 if quick else 200)
    gbps = 2 * x.nbytes / (ms * 1e-3) / 1e9
    return {"kernel": "fused_softmax", "size": f"{n_rows}x{n_cols}", "correct": correct,
            "ms": ms, "metric": gbps, "unit": "GB/s", "path": _path_of(compiled),
            "max_err": err}


if __name__ == "__main__":
    r = demo()
    print(f"fused_softmax {r['size']}: correct={r['correct']} (max err {r['max_err']:.2e}), "
          f"{r['ms']:.3f} ms, {r['metric']:.1f} {r['unit']}")

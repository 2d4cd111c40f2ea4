"""Fused softmax (tutorial 02): fp32, 4096 x 1024, one row per program; GB/s = 8 M N / t."""

import sys

import common
from common import dev, np, tl, triton

NAME = "softmax fp32"
FULL = {"m": 4096, "n": 1024}
SMALL = {"m": 32, "n": 1024}


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
    z = x - tl.max(x, axis=0)
    num = tl.exp(z)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, num / den, mask=mask)


def setup(size):
    m, n = size["m"], size["n"]
    x = np.random.default_rng(0).standard_normal((m, n), dtype=np.float32)
    return {"m": m, "n": n, "x": x, "ref": np.empty_like(x), "tmp": np.empty_like(x),
            "dx": dev(x), "dout": dev(np.empty_like(x))}


def ours(s):
    m, n = s["m"], s["n"]
    block = triton.next_power_of_2(n)
    return lambda: softmax_kernel[(m,)](s["dout"], s["dx"], n, n, n, BLOCK_SIZE=block)


def numpy_ref(s):
    x, tmp, out = s["x"], s["tmp"], s["ref"]

    def run():
        np.subtract(x, x.max(axis=1, keepdims=True), out=tmp)
        np.exp(tmp, out=tmp)
        np.divide(tmp, tmp.sum(axis=1, keepdims=True), out=out)

    return run


def check(s):
    return common.run_and_compare(ours, numpy_ref, s, "dout", rtol=1e-5, atol=1e-7)


work, metric, label = common.mn_work, common.mn_fp32_bandwidth, common.mn_label

if __name__ == "__main__":
    common.script_main(sys.modules[__name__])

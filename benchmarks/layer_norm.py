"""Layer norm forward (tutorial 05 kernel, fp32): 4096 x 1024; GB/s = 8 M N / t."""

import sys

import common
from common import dev, np, tl, triton

NAME = "layer norm fwd fp32"
FULL = {"m": 4096, "n": 1024}
SMALL = {"m": 32, "n": 1024}
EPS = 1e-5


@triton.jit
def layer_norm_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    mean = 0
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


def setup(size):
    m, n = size["m"], size["n"]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((m, n), dtype=np.float32)
    w = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    s = {"m": m, "n": n, "x": x, "w": w, "b": b, "ref": np.empty_like(x)}
    for k in ("x", "w", "b"):
        s["d" + k] = dev(s[k])
    s["dy"] = dev(np.empty_like(x))
    s["dmean"] = dev(np.empty(m, np.float32))
    s["drstd"] = dev(np.empty(m, np.float32))
    return s


def ours(s):
    m, n = s["m"], s["n"]
    block = min(triton.next_power_of_2(n), 8192)
    return lambda: layer_norm_fwd[(m,)](s["dx"], s["dy"], s["dw"], s["db"], s["dmean"],
                                        s["drstd"], n, n, EPS, BLOCK_SIZE=block)


def numpy_ref(s):
    x, w, b, out = s["x"], s["w"], s["b"], s["ref"]

    def run():
        mean = x.mean(axis=1, keepdims=True)
        xc = x - mean
        var = np.mean(xc * xc, axis=1, keepdims=True)
        np.multiply(xc / np.sqrt(var + EPS), w, out=out)
        np.add(out, b, out=out)

    return run


def check(s):
    return common.run_and_compare(ours, numpy_ref, s, "dy", rtol=1e-4, atol=1e-4)


work, metric, label = common.mn_work, common.mn_fp32_bandwidth, common.mn_label

if __name__ == "__main__":
    common.script_main(sys.modules[__name__])

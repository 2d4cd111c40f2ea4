"""Vector add (tutorial 01): fp32, N = 2^24; GB/s = 12 N / t."""

import sys

from common import dev, host, interp_main, np, time_ms, tl, triton

NAME = "vector add fp32"
FULL = {"n": 1 << 24}
SMALL = {"n": 1 << 16}  # for the interpreter
BLOCK = 8192


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def setup(size):
    n = size["n"]
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    return {"n": n, "x": x, "y": y, "out": np.empty_like(x), "ref": np.empty_like(x),
            "dx": dev(x), "dy": dev(y), "dout": dev(np.empty_like(x))}


def ours(s):
    n, grid = s["n"], (triton.cdiv(s["n"], BLOCK),)
    return lambda: add_kernel[grid](s["dx"], s["dy"], s["dout"], n, BLOCK_SIZE=BLOCK)


def numpy_ref(s):
    return lambda: np.add(s["x"], s["y"], out=s["ref"])


def check(s):
    ours(s)()
    return np.array_equal(host(s["dout"]), s["x"] + s["y"])


def work(size):
    return size["n"]


def metric(size, ms):
    return 12 * size["n"] / (ms * 1e-3) / 1e9, "GB/s"


def label(size):
    return f"N=2^{size['n'].bit_length() - 1}"


if __name__ == "__main__":
    if "--interp" in sys.argv:
        interp_main(sys.modules[__name__])
    else:
        s = setup(FULL)
        print(NAME, label(FULL), "correct" if check(s) else "WRONG",
              f"{time_ms(ours(s)):.3f} ms", f"numpy {time_ms(numpy_ref(s)):.3f} ms")

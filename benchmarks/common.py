"""Shared plumbing for the benchmark scripts.

Every script runs its kernel with triton_tile by default. run_all.py also runs the same
script under Triton's interpreter (TT_BENCH_IMPL=triton, TRITON_INTERPRET=1, in a subprocess:
Triton reads that variable when kernels are decorated), where arrays become torch tensors.
"""

import importlib.util
import json
import os
import sys
import time

import numpy as np

if importlib.util.find_spec("triton_tile") is None:  # a source checkout, not installed
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

IMPL = os.environ.get("TT_BENCH_IMPL", "triton_tile")
if IMPL == "triton":
    import torch  # noqa: F401  (Triton's interpreter takes torch tensors)
    import triton
    import triton.language as tl
else:
    import triton_tile as triton
    import triton_tile.language as tl

__all__ = ["IMPL", "triton", "tl", "dev", "host", "time_ms", "interp_main", "script_main",
           "run_and_compare", "mn_work", "mn_fp32_bandwidth", "mn_label", "np"]


def dev(a: np.ndarray):
    """An argument for the implementation under test."""
    if IMPL == "triton":
        import torch

        return torch.from_numpy(a)
    return a


def host(a) -> np.ndarray:
    return a.numpy() if hasattr(a, "numpy") else a


def time_ms(fn, rep_ms: float = 200.0) -> float:
    """Median milliseconds per call."""
    if IMPL == "triton":  # the interpreter is slow: one warm call, then a few timed ones
        fn()
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e3)
        return float(np.median(times))
    from triton_tile.testing import do_bench

    return do_bench(fn, warmup=max(10.0, rep_ms / 4), rep=rep_ms, quantiles=[0.5])


def interp_main(module) -> None:
    """`python script.py --interp SIZE_JSON`: time the kernel at SIZE and print JSON."""
    size = json.loads(sys.argv[sys.argv.index("--interp") + 1])
    state = module.setup(size)
    ok = module.check(state)
    ms = time_ms(module.ours(state))
    print(json.dumps({"ms": ms, "correct": bool(ok)}))


def script_main(module) -> None:
    """A benchmark script run as such: `--interp SIZE_JSON` (run_all's interpreter subprocess,
    interp_main), else time the kernel and numpy at FULL and print one line."""
    if "--interp" in sys.argv:
        interp_main(module)
        return
    s = module.setup(module.FULL)
    print(module.NAME, module.label(module.FULL), "correct" if module.check(s) else "WRONG",
          f"{time_ms(module.ours(s)):.3f} ms", f"numpy {time_ms(module.numpy_ref(s)):.3f} ms")


def run_and_compare(ours, numpy_ref, s, out: str, rtol: float, atol: float) -> bool:
    """A script's `check`: run the kernel and numpy's version once each; whether the kernel's
    output s[out] is close to numpy's s["ref"]."""
    ours(s)()
    numpy_ref(s)()
    return np.allclose(host(s[out]), s["ref"], rtol=rtol, atol=atol)


# `work`, `metric` and `label` of a kernel over an M x N fp32 matrix (size {"m", "n"}) that
# reads and writes each element once: 8 bytes an element.
def mn_work(size) -> int:
    return size["m"] * size["n"]


def mn_fp32_bandwidth(size, ms: float):
    return 8 * size["m"] * size["n"] / (ms * 1e-3) / 1e9, "GB/s"


def mn_label(size) -> str:
    return f"{size['m']}x{size['n']}"

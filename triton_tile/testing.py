"""`triton.testing` for the CPU: do_bench, assert_close, perf_report/Benchmark.

Timing uses the wall clock: CPU launches are synchronous, so the time around a call is the
kernel's time. Unlike Triton on a GPU, caches are not flushed before each timed call (writing
256 MB per call would dominate every CPU measurement); numbers are warm-cache numbers.
"""

from __future__ import annotations

import math
import os
import statistics
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np


def _sync() -> None:
    # When torch with CUDA is in use, GPU work must be finished before reading the clock.
    torch = sys.modules.get("torch")
    if torch is not None and getattr(torch, "cuda", None) is not None:
        try:
            if torch.cuda.is_available() and torch.cuda.is_initialized():
                torch.cuda.synchronize()
        except Exception:
            pass


def _summarize(times: List[float], quantiles, return_mode: str):
    if quantiles is not None:
        qs = [float(q) for q in np.quantile(np.asarray(times), list(quantiles))]
        return qs[0] if len(qs) == 1 else qs
    if return_mode == "all":
        return times
    if return_mode == "min":
        return min(times)
    if return_mode == "max":
        return max(times)
    if return_mode == "median":
        return statistics.median(times)
    if return_mode == "mean":
        return statistics.fmean(times)
    raise ValueError(f"return_mode must be min, max, mean, median or all, not {return_mode!r}")


def do_bench(fn: Callable, warmup: float = 25, rep: float = 100, grad_to_none=None,
             quantiles: Optional[Sequence[float]] = None, return_mode: str = "mean"):
    """Time `fn` in milliseconds. `warmup` and `rep` are target durations in ms (as Triton),
    turned into call counts from a 5-call estimate; every timed call is measured alone."""
    assert return_mode in ("min", "max", "mean", "median", "all")
    clock = time.perf_counter
    fn()
    _sync()
    start = clock()
    for _ in range(5):
        fn()
    _sync()
    estimate_ms = max((clock() - start) * 1000 / 5, 1e-6)
    n_warmup = max(1, int(warmup / estimate_ms))
    n_repeat = max(1, int(rep / estimate_ms))
    for _ in range(n_warmup):
        fn()
    _sync()
    times = []
    for _ in range(n_repeat):
        if grad_to_none is not None:
            for x in grad_to_none:
                x.grad = None
        t0 = clock()
        fn()
        _sync()
        times.append((clock() - t0) * 1000)
    return _summarize(times, quantiles, return_mode)


def do_bench_cudagraph(fn, rep=20, grad_to_none=None, quantiles=None, return_mode="mean"):
    """No CUDA graphs on the CPU: plain do_bench with the same return conventions."""
    return do_bench(fn, warmup=max(1, rep // 4), rep=rep, grad_to_none=grad_to_none,
                    quantiles=quantiles, return_mode=return_mode)


def _to_numpy(x):
    if isinstance(x, np.ndarray):
        arr = x
    elif type(x).__module__.startswith("torch") and hasattr(x, "detach"):
        t = x.detach().cpu()
        if str(t.dtype) in ("torch.bfloat16",) or "float8" in str(t.dtype):
            t = t.float()
        arr = t.numpy()
    elif hasattr(x, "base") and hasattr(x, "dtype") and type(x).__name__ == "TensorWrapper":
        arr = np.asarray(x.base)
    else:
        arr = np.asarray(x)
    # bf16 / fp8 (ml_dtypes) compare through float32, as Triton compares bf16 via float.
    if arr.dtype.kind == "V" or arr.dtype.name in ("bfloat16",) or "float8" in arr.dtype.name:
        arr = arr.astype(np.float32)
    return arr


def assert_close(x, y, atol=None, rtol=None, err_msg: str = "") -> None:
    """Assert x and y are close (numpy based; NaNs equal). Defaults: atol 1e-2, rtol 0.
    `atol`/`rtol` may be callables of the dtype."""
    xn, yn = _to_numpy(x), _to_numpy(y)
    dtype = getattr(x, "dtype", xn.dtype)
    atol = 1e-2 if atol is None else atol
    rtol = 0.0 if rtol is None else rtol
    atol = atol(dtype) if callable(atol) else atol
    rtol = rtol(dtype) if callable(rtol) else rtol
    if xn.dtype == np.bool_ or yn.dtype == np.bool_:
        np.testing.assert_array_equal(xn, yn, err_msg=err_msg)
        return
    np.testing.assert_allclose(xn, yn, atol=atol, rtol=rtol, equal_nan=True, err_msg=err_msg)


# --- perf_report / Benchmark ---------------------------------------------------------------


class Benchmark:
    """One benchmark table: rows from x_vals, one column per line_vals entry."""

    def __init__(self, x_names: List[str], x_vals: List[Any], line_arg: str,
                 line_vals: List[Any], line_names: List[str], plot_name: str,
                 args: Dict[str, Any], xlabel: str = "", ylabel: str = "",
                 x_log: bool = False, y_log: bool = False, styles=None, color=None):
        self.x_names = list(x_names)
        self.x_vals = list(x_vals)
        self.line_arg = line_arg
        self.line_vals = list(line_vals)
        self.line_names = list(line_names)
        self.plot_name = plot_name
        self.args = dict(args)
        self.xlabel = xlabel
        self.ylabel = ylabel
        self.x_log = x_log
        self.y_log = y_log
        self.styles = styles


class _Table:
    """What `run(return_df=True)` returns when pandas is missing: rows plus a text form."""

    def __init__(self, columns: List[str], rows: List[List[Any]]):
        self.columns = columns
        self.rows = rows

    def to_string(self) -> str:
        cells = [[str(c) for c in self.columns]] + [[_fmt(v) for v in r] for r in self.rows]
        widths = [max(len(r[i]) for r in cells) for i in range(len(self.columns))]
        return "\n".join("  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in cells)

    def to_csv(self, path: str) -> None:
        with open(path, "w") as f:
            f.write(",".join(map(str, self.columns)) + "\n")
            for r in self.rows:
                f.write(",".join(map(str, r)) + "\n")

    def __str__(self):
        return self.to_string()


def _fmt(v) -> str:
    if isinstance(v, float):
        return "nan" if math.isnan(v) else f"{v:.6g}"
    return str(v)


class Mark:
    def __init__(self, fn: Callable, benchmarks):
        self.fn = fn
        self.benchmarks = benchmarks

    def _run(self, bench: Benchmark, save_path: str, print_data: bool, diff_col=False,
             **kwargs):
        columns = list(bench.x_names)
        y_cols = []
        for name in bench.line_names:
            y_cols += [name, f"{name}-min", f"{name}-max"]
        rows = []
        for x in bench.x_vals:
            xs = x if isinstance(x, (list, tuple)) and len(bench.x_names) > 1 \
                else [x] * len(bench.x_names)
            x_args = dict(zip(bench.x_names, xs))
            row_y = []
            for line in bench.line_vals:
                ret = self.fn(**x_args, **{bench.line_arg: line}, **bench.args, **kwargs)
                if isinstance(ret, (list, tuple)):
                    mean, lo, hi = (list(ret) + [None, None])[:3]
                else:
                    mean, lo, hi = ret, None, None
                row_y += [mean, lo, hi]
            rows.append(list(xs) + row_y)
        table = _Table(columns + y_cols, rows)
        shown = [i for i, c in enumerate(table.columns)
                 if not (c.endswith("-min") or c.endswith("-max"))]
        view = _Table([table.columns[i] for i in shown], [[r[i] for i in shown] for r in rows])
        if print_data:
            print(bench.plot_name + ":")
            print(view.to_string())
        if save_path:
            os.makedirs(save_path, exist_ok=True)
            view.to_csv(os.path.join(save_path, f"{bench.plot_name}.csv"))
        try:
            import pandas as pd
        except ImportError:
            return view
        return pd.DataFrame([[r[i] for i in shown] for r in rows], columns=view.columns)

    def run(self, show_plots: bool = False, print_data: bool = False, save_path: str = "",
            return_df: bool = False, **kwargs):
        benchmarks = self.benchmarks if isinstance(self.benchmarks, list) else [self.benchmarks]
        results = [self._run(b, save_path, print_data, **kwargs) for b in benchmarks]
        if return_df:
            return results if isinstance(self.benchmarks, list) else results[0]
        return None


def perf_report(benchmarks):
    """Decorator: `@perf_report(Benchmark(...))` then `fn.run(print_data=True)`."""

    def decorator(fn):
        return Mark(fn, benchmarks)

    return decorator


def compare_backends(kernel, grid, *args, warmup: float = 25, rep: float = 100,
                     show: bool = True, **meta) -> dict:
    """Times one launch of `kernel[grid](*args, **meta)` on the PTX-style path and on the
    Tile IR path, in one run, and prints the table users of the Tile IR tuning workflow expect.

    Returns {"ptx": ms, "tile": ms, "speedup": ptx / tile, "tile_path": the path the Tile
    launch really took ("ptx" when it fell back; the reason is in "fallback_reason")}.
    Kernels that update their inputs in place run several times: pass fresh buffers.
    """
    times, compiled = {}, {}
    for path in ("ptx", "tile"):
        def launch(path=path):
            return kernel[grid](*args, enable_tile=path == "tile", **meta)

        compiled[path] = launch()
        times[path] = do_bench(launch, warmup=warmup, rep=rep, return_mode="median")
    md = compiled["tile"].metadata
    result = {"ptx": times["ptx"], "tile": times["tile"], "speedup": times["ptx"] / times["tile"],
              "tile_path": md.path, "fallback_reason": md.fallback_reason}
    if show:
        name = getattr(kernel, "__name__", str(kernel))
        print(f"| {name} | Time (ms) | Speedup |\n|---|---|---|")
        print(f"| PTX-style (ENABLE_TILE=0) | {times['ptx']:.4f} | 1.00x |")
        note = "" if md.path == "tile" else f" (fell back: {md.fallback_reason})"
        print(f"| Tile IR (ENABLE_TILE=1){note} | {times['tile']:.4f} | "
              f"{result['speedup']:.2f}x |")
    return result


def get_dram_gbps(device=None) -> float:
    return float("nan")


def get_max_tensorcore_tflops(dtype=None, clock_rate=None, device=None) -> float:
    return float("nan")

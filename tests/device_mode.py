"""`pytest --device cuda`: the kernel suite's test bodies, unchanged, on a GPU.

The kernel tests (tests/language, tests/examples) build numpy inputs, launch, and compare the
numpy outputs with float64 references. Under `--device cuda` every launch moves its host
arrays to the GPU first and copies them back after it finished, so the same assertions check
what the GPU computed, on both GPU paths (Tile IR through tileiras, PTX through stock Triton).

What is moved is each array's whole allocation, once per launch however many arguments view
it: kernels may address past a view's extent within its allocation (Triton passes the base
pointer, strides ignored), and two views of one allocation must alias on the device too.
Read-only arrays go up and never come back.

`--device copy` does the same round trip into separate host buffers (numpy): it runs anywhere
and keeps this module honest in CI (a launch that wrote the original instead of the copy has
its results overwritten by the copy-back, and the test fails).

Run it under pytest-xdist (`-n 8`): a kernel that makes an illegal access leaves its process's
CUDA context unusable, so the process ends there and xdist starts another for the rest.

Tests that check what only a CPU executor does (its bounds checks, device_print's text, the
CPU's asm) carry `@pytest.mark.cpu_only("why")` and skip under a device; tests stock Triton
3.6 cannot compile on sm_90 (a language feature it lacks, a bug of its own) carry
`@pytest.mark.stock_refuses("why")` and skip on the PTX path under `--device cuda`; what
Triton 3.6 was seen to do otherwise on an H100 (crashes, missing features, other semantics)
is listed once in `STOCK_36`, with what was seen, and skips the same way.
"""

from __future__ import annotations

import numpy as np
import pytest

DEVICES = ("cpu", "cuda", "copy")


def _owner(a: np.ndarray) -> np.ndarray:
    """The outermost ndarray whose memory `a` views (numpy's `.base` chain)."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


class _Allocation:
    """The bytes one host array spans (its lowest to its highest address) and their device
    copy: a flat uint8 torch CUDA tensor, or a numpy copy for `--device copy`."""

    def __init__(self, owner: np.ndarray, device: str):
        import ctypes

        self.owner = owner
        self.device = device
        lo, hi = np.lib.array_utils.byte_bounds(owner) if hasattr(np.lib, "array_utils") \
            else np.byte_bounds(owner)
        self.start = lo
        self.host = np.ctypeslib.as_array((ctypes.c_uint8 * (hi - lo)).from_address(lo))
        if device == "cuda":
            import torch

            self.dev = torch.from_numpy(self.host.copy()).cuda()
        else:
            self.dev = self.host.copy()

    def view(self, a: np.ndarray):
        """`a` over the device copy: same dtype, shape, offset and strides."""
        item = a.dtype.itemsize
        offset = a.__array_interface__["data"][0] - self.start
        if offset % item or any(s % item for s in a.strides):
            raise ValueError(f"--device: cannot place an array with strides {a.strides} at "
                             f"byte offset {offset} on the device")
        if self.device != "cuda":
            return np.ndarray(a.shape, a.dtype, buffer=self.dev, offset=offset,
                              strides=a.strides)
        import torch

        n = (self.dev.numel() - offset) // item
        typed = self.dev[offset:offset + n * item].view(_torch_dtype(a.dtype))
        if any(s < 0 for s in a.strides):
            # torch has no negative strides; a kernel reads only the data pointer, so one
            # element there stands for the view.
            return typed[:1]
        return torch.as_strided(typed, a.shape, [s // item for s in a.strides])

    def copy_back(self) -> None:
        if self.owner.flags.writeable:
            self.host[...] = self.dev.cpu().numpy() if self.device == "cuda" else self.dev


def _torch_dtype(dt: np.dtype):
    import torch

    special = {"bfloat16": torch.bfloat16, "float8_e4m3fn": torch.float8_e4m3fn,
               "float8_e5m2": torch.float8_e5m2, "bool": torch.bool}
    t = special.get(dt.name) or getattr(torch, dt.name, None)
    if t is None or t.itemsize != dt.itemsize:
        raise ValueError(f"--device: no torch dtype for numpy's {dt}")
    return t


class Mover:
    """Maps one launch's arguments to device tensors and copies results back."""

    def __init__(self, device: str):
        self.device = device
        self.allocations = {}

    def arg(self, v):
        if isinstance(v, np.ndarray):
            owner = _owner(v)
            alloc = self.allocations.get(id(owner))
            if alloc is None:
                alloc = self.allocations[id(owner)] = _Allocation(owner, self.device)
            return alloc.view(v)
        if isinstance(v, tuple):  # namedtuples keep their type
            items = [self.arg(x) for x in v]
            return type(v)(*items) if hasattr(v, "_fields") else tuple(items)
        if type(v).__module__.startswith("triton_tile") and hasattr(v, "base"):
            # TensorDescriptor / TensorWrapper over a host array: the same over its device copy.
            import copy

            moved = copy.copy(v)
            moved.base = self.arg(v.base)
            return moved
        return v

    def finish(self) -> None:
        if self.device == "cuda":
            import torch

            torch.cuda.synchronize()
        for alloc in self.allocations.values():
            alloc.copy_back()


# CUDA errors after which the process's context is unusable: every later test in it would fail.
_STICKY = ("illegal memory access", "illegal instruction", "misaligned address",
           "unspecified launch failure", "an illegal", "hardware exception")


def _exit_if_sticky(e: Exception) -> None:
    """A sticky CUDA error ends the process, so that under pytest-xdist (how `--device cuda` is
    meant to run: `-n 8`) the worker restarts and only this test fails."""
    if any(s in str(e) for s in _STICKY):
        import os
        import sys

        print(f"\n--device: sticky CUDA error, ending this worker: {e}", file=sys.stderr,
              flush=True)
        os._exit(70)


def _default_allocator(device: str) -> None:
    """Stock Triton needs an allocator for descriptors made on the device (its own tests set
    one in a fixture): torch's, unless the test set one."""
    if device != "cuda":
        return
    import triton_tile

    if triton_tile._allocator is None:
        import torch

        triton_tile.set_allocator(
            lambda size, alignment, stream: torch.empty(size, dtype=torch.int8, device="cuda"))


def install(monkeypatch, device: str) -> None:
    """Routes every `JITFunction.run` launch through a Mover for `device`."""
    from triton_tile.runtime import jit

    original = jit.JITFunction.run

    def run(self, *args, grid, warmup, **kwargs):
        if warmup:
            return original(self, *args, grid=grid, warmup=warmup, **kwargs)
        _default_allocator(device)
        mover = Mover(device)
        try:
            args = [mover.arg(a) for a in args]
            kwargs = {k: mover.arg(v) for k, v in kwargs.items()}
            result = original(self, *args, grid=grid, warmup=warmup, **kwargs)
            mover.finish()
        except Exception as e:
            _exit_if_sticky(e)
            raise
        return result

    monkeypatch.setattr(jit.JITFunction, "run", run)


def pytest_addoption(parser):
    parser.addoption("--device", default="cpu", choices=DEVICES,
                     help="where kernel tests launch: cpu (default), cuda (host arrays moved to "
                          "the GPU per launch), copy (the same round trip on the CPU)")


def pytest_configure(config):
    config.addinivalue_line("markers", "cpu_only(reason): checks what only the CPU executors do")
    config.addinivalue_line("markers", "stock_refuses(reason): stock Triton (the GPU's PTX path) "
                                       "cannot compile or run it")


# What stock Triton 3.6 (the GPU machine's; the PTX path runs it) does differently from the
# Triton 3.9 frontend these tests follow, or cannot do, as measured on an H100 on 2026-11-25
# (benchmarks/RESULTS.md). Keys: a test function's name (every case) or its node name (one
# case). On the PTX path under --device cuda these skip with the reason.
STOCK_36 = {
    "test_topk": "no tl.topk / tensor.topk in Triton 3.6",
    "test_map_elementwise": "Triton 3.6's tl.map_elementwise fails on a constexpr pack "
                            "('constexpr_type' object has no attribute 'scalar')",
    "test_float8e4b15": "Triton 3.6's builder has no get_fp8e4b15",
    "test_tuple_returns_and_unpacking": "Triton 3.6's dependency finder fails on a nested "
                                        "tuple target (unhashable type: 'list')",
    "test_atomic_cas_16_bit_counters_share_words": "the process died under Triton 3.6 (its "
                                                   "16-bit atomic_cas)",
    "test_dot_int8[ptx-True]": "Triton 3.6 raises AssertionError compiling an int8 dot of a "
                               "transposed load",
    "test_dot_tf32": "Triton 3.6's tf32 dot misses a round-to-nearest tf32 reference (98% of "
                     "the elements, ~5e-4 relative)",
    "test_tf32_forms_of_a_strided_a[ptx-tf32]": "Triton 3.6's tf32 dot misses a round-to-nearest "
                                                "tf32 reference (99% of the elements, ~1e-3 "
                                                "relative; H100, 2026-11-26)",
    "test_tf32_forms_through_the_memo[ptx-tf32]": "Triton 3.6's tf32 dot misses a round-to-nearest "
                                                  "tf32 reference (98% of the elements; H100, "
                                                  "2026-11-26)",
    "test_sqrt_rn_is_correctly_rounded[ptx-float64]": "Triton 3.6's sqrt_rn takes fp32 only",
    "test_compare_python_scalar[ptx-float16-0.3]": "Triton 3.6 promotes the float scalar "
                                                   "otherwise (results differ)",
    "test_compare_python_scalar[ptx-float64--0.3]": "Triton 3.6 promotes the float scalar "
                                                    "otherwise (results differ)",
    "test_div_mod_python_scalar[ptx-int32-2.5]": "Triton 3.6's int32 % 2.5 differs",
    "test_reduce_keeps_the_order_of_a_non_commutative_combiner": "Triton 3.6 combines in "
                                                                 "another order",
    "test_cumsum_dtype": "the test's static_assert fails under Triton 3.6 (int1 cumsum types)",
}
# Host TensorDescriptors over blocks at negative or past-the-end coordinates: Triton 3.6 stops
# with "illegal instruction" (stock alone, same kernel, same machine), and the process's CUDA
# context is gone.
for _name in ("test_load_2d", "test_store_2d_window", "test_host_descriptor_load",
              "test_host_descriptor_store", "test_host_descriptor_3d", "test_descriptor_atomics",
              "test_functional_forms", "test_store_casts_to_element_type",
              "test_descriptors_as_call_args_and_returns"):
    STOCK_36[_name] = ("Triton 3.6 stops with 'illegal instruction' on host descriptors at "
                       "negative or past-the-end coordinates")

# Cases the Tile path cannot express, so it falls back (loudly) to stock Triton 3.6, which
# cannot run them either (STOCK_36).
TILE_FALLS_BACK = {
    "test_topk[tile-1-512-8-": "a tile of 512 is viewed as rank 9 (> 7) for the sort network",
    "test_map_elementwise[tile]": "no Tile IR lowering of tt.map_elementwise",
}


# Tile-path kernels that tileiras itself miscompiles into code that never finishes, by its
# version (major.minor), as seen on an H100 (driver 580.159.04) on 2026-11-25: each hangs with
# the one version and runs with the other (docs/gpu_chain.md §5). Under --device cuda these skip
# when that tileiras is the one found; the CPU paths and the other version still run them.
TILEIRAS_HANGS = {
    "13.4": {
        "test_calls_defaults_noinline[tile]": "a masked TMA load, its max stored as a scalar and "
                                              "a TMA store of the tile never finish (13.5 runs "
                                              "it)",
    },
    "13.5": {
        "test_atomic_float_max_min_mixed_signs[tile-": "float atomic max/min never finish (13.4 "
                                                       "runs them)",
        "test_atomic_rmw[tile-max-float64-False]": "float64 atomic max never finishes (13.4 runs "
                                                   "it)",
        "test_atomic_rmw[tile-min-float64-False]": "float64 atomic min never finishes (13.4 runs "
                                                   "it)",
    },
}
_tileiras_minor = []


def _by_prefix(table, name: str):
    """The reason of the first key of `table` that `name` (a test's node name) starts with."""
    return next((why for key, why in table.items() if name.startswith(key)), None)


def _tileiras_hang_reason(item):
    if not _tileiras_minor:
        try:
            from triton_tile.backends import tileiras

            _tileiras_minor.append(".".join(tileiras.info().short_version.split(".")[:2]))
        except Exception:  # noqa: BLE001 - no tileiras: the Tile path falls back, nothing hangs
            _tileiras_minor.append(None)
    why = _by_prefix(TILEIRAS_HANGS.get(_tileiras_minor[0], {}), item.name)
    return why and f"tileiras {_tileiras_minor[0]} hangs on it: {why}"


def _stock_36_reason(item, path: str):
    if path == "ptx":
        why = STOCK_36.get(item.name) or STOCK_36.get(item.originalname)
        return why and f"stock Triton 3.6: {why}"
    if path == "tile":
        why = _by_prefix(TILE_FALLS_BACK, item.name)
        if why:
            return f"falls back to stock Triton 3.6, which cannot run it either: {why}"
        return _tileiras_hang_reason(item)
    return None


def skip_if_cpu_only(item) -> None:
    device = item.config.getoption("--device")
    marker = item.get_closest_marker("cpu_only")
    if marker is not None and device != "cpu":
        pytest.skip(f"CPU only: {marker.args[0] if marker.args else 'see the test'}")
    marker = item.get_closest_marker("stock_refuses")
    callspec = getattr(item, "callspec", None)
    path = callspec.params.get("path") if callspec is not None else None
    if marker is not None and device == "cuda" and path == "ptx":
        pytest.skip(f"stock Triton refuses it: {marker.args[0] if marker.args else ''}")
    why = _stock_36_reason(item, path) if device == "cuda" else None
    if why:
        pytest.skip(why)

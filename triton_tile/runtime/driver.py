"""`triton.runtime.driver.active`, for code that asks the driver about the device.

Tutorials query it at import time (target backend, device properties, the torch device), so
it must answer on a machine without a GPU: there it describes the CPU the executors run on.
Where the CUDA driver loads and sees a GPU, it describes that GPU (the CUDA driver below), as
stock Triton's does, so tutorials put their tensors on it.
"""

from __future__ import annotations

import os

import numpy as np

from ..backends import cpu


class _Utils:
    @staticmethod
    def get_device_properties(device=None) -> dict:
        # GPU-shaped numbers: kernels size grids from these (tutorial 02), so they must be
        # plausible; multiprocessor_count is the CPU count, the executor's parallelism.
        return {
            "multiprocessor_count": os.cpu_count() or 1,
            "max_num_regs": 65536,
            "max_shared_mem": 232448,
            "warpSize": 32,
            "max_threads_per_sm": 2048,
            "sm_clock_rate": 0,
            "mem_clock_rate": 0,
            "mem_bus_width": 0,
        }

    @staticmethod
    def set_printf_fifo_size(size: int) -> None:
        """Device printf goes straight to stdout on the CPU; nothing to size."""

    @staticmethod
    def load_binary(*args, **kwargs):
        raise NotImplementedError("the CPU driver loads no binaries")


class _CPUDeviceInterface:
    """Stands in for torch.cuda where code only synchronizes or asks for the device."""

    @staticmethod
    def synchronize(device=None) -> None:
        """CPU launches are synchronous."""

    @staticmethod
    def current_device() -> int:
        return 0

    @staticmethod
    def device_count() -> int:
        return 1

    @staticmethod
    def is_available() -> bool:
        return True


class CPUDriver:
    backend = "cpu"

    def __init__(self):
        self.utils = _Utils()

    @staticmethod
    def is_active() -> bool:
        return True

    @staticmethod
    def get_current_target():
        return cpu.TARGET

    @staticmethod
    def get_active_torch_device():
        try:
            import torch
        except ImportError:
            return "cpu"
        return torch.device("cpu")

    @staticmethod
    def get_current_device() -> int:
        return 0

    @staticmethod
    def set_current_device(device) -> None:
        pass

    @staticmethod
    def get_current_stream(device=None) -> int:
        return 0

    @staticmethod
    def get_device_interface():
        return _CPUDeviceInterface()

    @staticmethod
    def get_benchmarker():
        from ..testing import do_bench

        return do_bench

    @staticmethod
    def get_empty_cache_for_benchmark():
        # Larger than the last-level caches of common CPUs (what clear_cache overwrites).
        return np.empty(64 * 1024 * 1024 // 4, dtype=np.int32)

    @staticmethod
    def clear_cache(cache) -> None:
        cache.fill(0)


class _CUDAUtils(_Utils):
    @staticmethod
    def get_device_properties(device=None) -> dict:
        return cpu.core().cuda_device_properties(_torch_device_index(device))


def _torch_device_index(device=None) -> int:
    if device is None:
        torch = _torch()
        return torch.cuda.current_device() if torch is not None else 0
    return int(getattr(device, "index", device) or 0)


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


class CUDADriver(CPUDriver):
    """The active driver where a GPU is present: Triton's CUDA driver surface, answered from
    the CUDA driver (_core) and torch (devices, streams, tensors)."""

    backend = "cuda"

    def __init__(self):
        self.utils = _CUDAUtils()

    @staticmethod
    def get_current_target():
        from ..backends import GPUTarget

        device = _torch_device_index()
        major, minor = cpu.core().cuda_compute_capability(device)
        return GPUTarget("cuda", major * 10 + minor, 32)

    @staticmethod
    def get_active_torch_device():
        torch = _torch()
        if torch is None:
            raise RuntimeError("get_active_torch_device: torch is not installed")
        return torch.device("cuda", torch.cuda.current_device())

    @staticmethod
    def get_current_device() -> int:
        return _torch_device_index()

    @staticmethod
    def set_current_device(device) -> None:
        torch = _torch()
        if torch is not None:
            torch.cuda.set_device(device)

    @staticmethod
    def get_current_stream(device=None) -> int:
        torch = _torch()
        if torch is None:
            return 0
        return torch.cuda.current_stream(_torch_device_index(device)).cuda_stream

    @staticmethod
    def get_device_interface():
        torch = _torch()
        return torch.cuda if torch is not None else _CPUDeviceInterface()

    @staticmethod
    def get_empty_cache_for_benchmark():
        torch = _torch()
        return torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")

    @staticmethod
    def clear_cache(cache) -> None:
        cache.zero_()


def _gpu_present() -> bool:
    try:
        core = cpu.core()
        return bool(core.cuda_available() and core.cuda_device_count() > 0)
    except Exception:  # no core, no driver, no device: the CPU describes itself
        return False


class DriverConfig:
    """`driver.active` is the CUDA driver where a GPU is present, else the CPU driver, unless
    `set_active` installed another. Decided at first use, not at import."""

    def __init__(self):
        self._default = None
        self._active = None

    @property
    def default(self):
        if self._default is None:
            self._default = CUDADriver() if _gpu_present() else CPUDriver()
        return self._default

    @property
    def active(self):
        return self._active or self.default

    def set_active(self, driver) -> None:
        self._active = driver

    def reset_active(self) -> None:
        self._active = None


driver = DriverConfig()

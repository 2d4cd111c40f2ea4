"""`triton.runtime.driver.active`, for code that asks the driver about the device.

Tutorials query it at import time (target backend, device properties, the torch device), so
it must answer on a machine without a GPU. This one describes the CPU the executors run on.
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


class DriverConfig:
    """`driver.active` is the CPU driver unless `set_active` installed another."""

    def __init__(self):
        self._default = CPUDriver()
        self._active = None

    @property
    def default(self):
        return self._default

    @property
    def active(self):
        return self._active or self._default

    def set_active(self, driver) -> None:
        self._active = driver

    def reset_active(self) -> None:
        self._active = None


driver = DriverConfig()

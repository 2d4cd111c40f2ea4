"""Backends: where a compiled kernel runs. `cpu` is the embedded default."""

from typing import NamedTuple, Union


class GPUTarget(NamedTuple):
    """What `driver.active.get_current_target()` returns: backend name, arch, warp size."""

    backend: str
    arch: Union[int, str]
    warp_size: int

"""`tl.extra`: vendor-flavoured helpers. `libdevice` maps CUDA libdevice names onto TTIR."""

from . import cuda, libdevice

__all__ = ["cuda", "libdevice"]

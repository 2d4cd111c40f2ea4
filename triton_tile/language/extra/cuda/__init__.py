"""`tl.extra.cuda`: the libdevice names under the CUDA path kernels import them from, and the
NVIDIA-only helpers that have a portable meaning."""

from ...core import builtin
from .. import libdevice


@builtin
def gdc_wait(_semantic=None):
    """Programmatic dependent launch: wait for the previous kernel's results. Kernels run in
    stream order here (and on the Tile path), so there is nothing to wait for."""
    return None


@builtin
def gdc_launch_dependents(_semantic=None):
    """Programmatic dependent launch: allow the next kernel to start early. A no-op here."""
    return None


__all__ = ["libdevice", "gdc_wait", "gdc_launch_dependents"]

"""`triton.language.extra.cuda.libdevice` spelling of `tl.extra.libdevice`."""

from ..libdevice import *  # noqa: F401,F403

"""How the C++ core is built and linked (CMakeLists.txt)."""

import shutil
import subprocess
import sys

import pytest

import triton_tile


@pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("readelf") is None,
                    reason="reads the ELF dynamic section with readelf (Linux)")
def test_core_carries_its_own_libstdcxx():
    # A process may have loaded another libstdc++.so.6 than the one the compiler's headers
    # describe (torch imported first, a newer g++ in CXX): the core must not bind to it.
    if "sanitize" in triton_tile._core.__file__:
        pytest.skip("sanitized builds use the shared libstdc++")
    out = subprocess.run(["readelf", "-d", triton_tile._core.__file__], capture_output=True,
                         text=True, check=True).stdout
    needed = [line for line in out.splitlines() if "(NEEDED)" in line]
    assert needed and not any("libstdc++" in line for line in needed), needed

"""Tile IR bytecode writer/reader tests.

Builds tests/bytecode/test_bytecode.cpp (with csrc/bytecode/) using the system C++ compiler and
runs it: primitives, the NVIDIA golden file negi-op-13.1 byte for byte, version deltas, the
vector-add kernels, error cases, and a "zoo" of modules with regions and hints. When NVIDIA's
tileiras is available (knobs.tileiras, PATH, or the nvidia-cuda-tileiras wheel), every zoo
module must also decode with tileirdisasm and compile with tileiras for sm_90 and sm_100.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ["tests/bytecode/test_bytecode.cpp"] + [
    f"csrc/bytecode/{n}.cpp" for n in ("writer", "reader", "op_specs", "debug_info")]


def _compiler():
    for cxx in ("g++", "c++", "clang++"):
        path = shutil.which(cxx)
        if path:
            return path
    return None


def _tileiras():
    try:
        from triton_tile import knobs

        configured = knobs.tileiras
    except Exception:  # noqa: BLE001 - the package may not import in a bare checkout
        configured = None
    if configured and os.access(configured, os.X_OK):
        return Path(configured)
    found = shutil.which("tileiras")
    if found:
        return Path(found)
    try:
        import nvidia

        for base in nvidia.__path__:
            cand = Path(base) / "cu13" / "bin" / "tileiras"
            if cand.exists():
                return cand
    except ImportError:
        pass
    return None


@pytest.fixture(scope="module")
def zoo_dir(tmp_path_factory):
    cxx = _compiler()
    if cxx is None:
        pytest.skip("no C++ compiler")
    work = tmp_path_factory.mktemp("bytecode")
    exe = work / "test_bytecode"
    cmd = [cxx, "-std=c++17", "-O1", "-Wall", "-Wextra", "-Wno-unused-parameter", "-Werror",
           f"-I{ROOT / 'csrc'}", f"-I{ROOT / 'tools' / 'gpu_chain'}",
           *[str(ROOT / s) for s in SOURCES], "-o", str(exe)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    zoo = work / "zoo"
    zoo.mkdir()
    run = subprocess.run([str(exe), str(zoo)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    return zoo


def test_cpp_unit_tests(zoo_dir):
    names = sorted(p.name for p in zoo_dir.glob("*.tilebc"))
    assert "zoo_control_13_3.tilebc" in names and "vadd_ptr_13_4.tilebc" in names


@pytest.mark.parametrize("arch", ["sm_90", "sm_100"])
def test_tileiras_accepts_zoo(zoo_dir, arch, tmp_path):
    tileiras = _tileiras()
    if tileiras is None:
        pytest.skip("tileiras not installed (pip install nvidia-cuda-tileiras==13.4.*)")
    disasm = tileiras.with_name("tileirdisasm")
    for src in sorted(zoo_dir.glob("*.tilebc")):
        if disasm.exists():
            d = subprocess.run([str(disasm), str(src)], capture_output=True, text=True)
            assert d.returncode == 0, f"tileirdisasm {src.name}: {d.stderr}"
            assert d.stdout.startswith("entry @")
        out = tmp_path / f"{src.stem}_{arch}.cubin"
        r = subprocess.run([str(tileiras), "--gpu-name", arch, "-O3", str(src), "-o", str(out)],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, f"tileiras {src.name} {arch}: {r.stderr}"
        assert out.read_bytes()[:4] == b"\x7fELF"


@pytest.mark.parametrize("arch", ["sm_90", "sm_100"])
def test_tileiras_reads_our_line_info(zoo_dir, arch, tmp_path):
    """The zoo's line-info module (test_bytecode.cpp, zooLines): tileirdisasm shows each op's
    position, the inlined helper's in its own file, and tileiras --lineinfo makes a line table."""
    tileiras = _tileiras()
    if tileiras is None:
        pytest.skip("tileiras not installed (pip install nvidia-cuda-tileiras==13.4.*)")
    src = zoo_dir / "zoo_lines_13_3.tilebc"
    disasm = tileiras.with_name("tileirdisasm")
    if disasm.exists():
        d = subprocess.run([str(disasm), "-g", str(src)], capture_output=True, text=True)
        assert d.returncode == 0, d.stderr
        for where in ('"/src/kernels/k.py":10:1', '"/src/kernels/k.py":12:5',
                      '"/src/lib/helpers.py":3:16', '"/src/kernels/k.py":13:9'):
            assert where in d.stdout, (where, d.stdout)
    for lines in (True, False):
        out = tmp_path / f"lines_{arch}_{lines}.cubin"
        r = subprocess.run([str(tileiras), "--gpu-name", arch, "-O3",
                            *(["--lineinfo"] if lines else []), str(src), "-o", str(out)],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        assert (b".debug_line" in out.read_bytes()) == lines

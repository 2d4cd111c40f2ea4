"""`python -m triton_tile.tools.check`: can this machine run the Tile IR path?

Prints one JSON object: tileiras (found, path, version, bytecode versions it compiles), the
GPUs (name, compute capability, arch), whether the Tile path is active (ENABLE_TILE), stock
Triton (the GPU's PTX path), and a recommendation. Exit status 0 always: it reports, it does
not judge. `--no-probe` skips tileiras' probe compile (version only).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Dict, List, Optional

TILE_MIN_ARCH = 80  # Tile IR runs on sm_80 and newer
HOPPER_MIN_TILEIRAS = (13, 3)  # tileiras compiles sm_90 since CUDA 13.3


def tileiras_report(probe: bool = True) -> Dict[str, Any]:
    from ..backends import tileiras

    out: Dict[str, Any] = {"found": False, "path": None, "version": None}
    try:
        path = tileiras.find_tileiras()
    except tileiras.TileirasError as e:  # TRITON_TILE_TILEIRAS names no executable
        return dict(out, error=str(e))
    if path is None:
        return dict(out, error=f"not found; install it: {tileiras.INSTALL_HINT}")
    out.update(found=True, path=path)
    try:
        if probe:
            info = tileiras.info()
            out.update(version=info.short_version, bytecode_versions=list(info.bytecode_versions))
        else:
            out["version"] = tileiras._version(path)[1]
    except tileiras.TileirasError as e:
        out["error"] = str(e).splitlines()[0]
    return out


def gpu_report() -> Dict[str, Any]:
    from ..backends import cpu

    try:
        core = cpu.core()
    except ImportError as e:
        return {"available": False, "devices": [], "error": str(e)}
    if not core.cuda_available():
        try:
            core.cuda_device_count()
            error = "the CUDA driver did not initialize"
        except core.CudaError as e:
            error = str(e.args[0])
        return {"available": False, "devices": [], "error": error}
    devices: List[Dict[str, Any]] = []
    for i in range(core.cuda_device_count()):
        major, minor = core.cuda_compute_capability(i)
        props = core.cuda_device_properties(i)
        devices.append({"index": i, "name": props["name"],
                        "compute_capability": f"{major}.{minor}", "arch": f"sm_{major}{minor}",
                        "multiprocessors": props["multiprocessor_count"]})
    return {"available": bool(devices), "driver_version": core.cuda_driver_version(),
            "devices": devices}


def stock_triton_version() -> Optional[str]:
    try:
        import triton
    except ImportError:
        return None
    return getattr(triton, "__version__", "unknown")


def _version_tuple(text: Optional[str]):
    try:
        return tuple(int(p) for p in (text or "").split(".")[:2])
    except ValueError:
        return ()


def recommend(tool: Dict[str, Any], gpu: Dict[str, Any], enable_tile: bool,
              target: Optional[str], stock: Optional[str]) -> str:
    """One or two sentences: what to do next on this machine."""
    from ..backends import tileiras

    if not gpu.get("available"):
        if tool.get("found"):
            return ("No GPU here: kernels run on the CPU executors. tileiras is installed, so "
                    "TRITON_TILE_TARGET=sm_90 (or sm_100) with kernel.warmup(...) builds GPU "
                    "cubins ahead of time into the cache for a GPU machine to run.")
        return ("No GPU here: kernels run on the CPU executors (ENABLE_TILE=1 selects the Tile "
                "IR path there too).")
    archs = [int(d["arch"][3:]) for d in gpu["devices"]]
    if max(archs) < TILE_MIN_ARCH:
        return (f"The GPU ({gpu['devices'][0]['arch']}) is older than sm_80, which Tile IR "
                "needs: use the PTX path (leave ENABLE_TILE unset)"
                + ("." if stock else "; it runs through stock Triton: pip install triton."))
    if not tool.get("found"):
        return ("Install tileiras for the Tile IR path: " + tileiras.INSTALL_HINT + " (or run "
                "a cache built ahead of time with TRITON_TILE_TARGET set, then "
                "TRITON_TILE_CACHE_DIR pointing at it).")
    if 90 in archs and _version_tuple(tool.get("version")) < HOPPER_MIN_TILEIRAS:
        return ("tileiras " + str(tool.get("version")) + " cannot compile for sm_90; install "
                "13.3 or newer: " + tileiras.INSTALL_HINT)
    if tool.get("error"):
        return "tileiras is installed but failed its probe: " + tool["error"]
    if not enable_tile:
        return ("Ready for the Tile IR path: set ENABLE_TILE=1 (or enable_tile=True on @jit or "
                "at launch)" + ("." if stock else "; without it kernels need stock Triton "
                                "(pip install triton) for the PTX path."))
    return (f"The Tile IR path is active on {gpu['devices'][0]['arch']}; kernels Tile IR "
            "cannot express fall back to the PTX path with a TileFallbackWarning.")


def report(probe: bool = True) -> Dict[str, Any]:
    from .. import __version__, knobs

    tool = tileiras_report(probe)
    gpu = gpu_report()
    stock = stock_triton_version()
    enable_tile = bool(knobs.enable_tile)
    return {
        "triton_tile": __version__,
        "tileiras": tool,
        "gpu": gpu,
        "tile_path": {"enable_tile": enable_tile, "target": knobs.target,
                      "fallback": knobs.fallback, "cache_dir": knobs.cache_dir},
        "stock_triton": stock,
        "recommendation": recommend(tool, gpu, enable_tile, knobs.target, stock),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m triton_tile.tools.check",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-probe", action="store_true", help="skip tileiras' probe compile")
    args = ap.parse_args(argv)
    json.dump(report(probe=not args.no_probe), sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What a GPU machine's Python process does to C++ code loaded into it, before ours runs.

    python benchmarks/env_probe.py

A C++ extension shares its process with torch, stock Triton and the CUDA libraries they load.
If one of them exports libstdc++ symbols of its own (a statically linked copy), a module loaded
later may bind some std:: calls to that copy and others to the system's libstdc++: the mixed
stream machinery then crashes in code as plain as `std::ostringstream() << 1L`. This builds a
tiny library that does exactly that, loads it the way Python loads an extension (RTLD_LOCAL),
after importing what a user's process imports, and reports which file provides each
stream symbol in the process's global scope, and whether the probe survives.
"""

import ctypes
import os
import subprocess
import sys
import tempfile

PROBE = r"""
#include <sstream>
#include <string>
extern "C" long tt_probe_stream(long v) {
  std::ostringstream s;
  s << v << ":" << 2.5;
  return static_cast<long>(s.str().size());
}
"""
SYMBOLS = {
    "std::ostream::operator<<(long)": "_ZNSolsEl",
    "std::ostream::_M_insert<long>": "_ZNSo9_M_insertIlEERSoT_",
    "ostringstream()": "_ZNSt7__cxx1119basic_ostringstreamIcSt11char_traitsIcESaIcEEC1Ev",
    "std::locale::classic()": "_ZNSt6locale7classicEv",
    "std::num_put<char>::id": "_ZNSt7num_putIcSt19ostreambuf_iteratorIcSt11char_traitsIcEEE2idE",
}


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


def where(symbol: str) -> str:
    libc = ctypes.CDLL(None)
    libc.dlsym.restype = ctypes.c_void_p
    libc.dlsym.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    addr = libc.dlsym(None, symbol.encode())  # RTLD_DEFAULT: the global scope
    if not addr:
        return "(not in the global scope)"
    info = _DlInfo()
    libc.dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]
    libc.dladdr(ctypes.c_void_p(addr), ctypes.byref(info))
    return (info.dli_fname or b"?").decode()


def _run_probe(lib: str, imports, debug: bool = False) -> str:
    """Loads the probe in a child process that imports `imports` first (a crash is reported,
    not suffered); the libstdc++ files mapped there, and the probe's answer or exit code."""
    code = ("import ctypes, importlib\n"
            f"for name in {tuple(imports)!r}:\n"
            "    try:\n"
            "        importlib.import_module(name)\n"
            "    except ImportError:\n"
            "        pass\n"
            "import sys\n"
            f"if 'torch' in sys.modules and {'nocuda' not in imports} and "
            "sys.modules['torch'].cuda.is_available():\n"
            "    sys.modules['torch'].zeros(1, device='cuda')\n"
            "maps = sorted({l.split()[-1] for l in open('/proc/self/maps') if 'libstdc++' in l})\n"
            f"p = ctypes.CDLL({lib!r}); p.tt_probe_stream.restype = ctypes.c_long\n"
            "print(maps, 'ok' if p.tt_probe_stream(ctypes.c_long(12345)) == 9 else 'WRONG')")
    env = dict(os.environ, LD_DEBUG="bindings,libs") if debug else None
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if debug:
        keep = [line.strip() for line in run.stderr.splitlines()
                if "probe" in line and ("binding" in line or "calling init" in line)
                or "libstdc++" in line and "find library" in line]
        return "\n".join(f"    {line}" for line in keep[:60])
    if run.returncode != 0:
        return f"CRASHED (exit {run.returncode}) {run.stdout.strip()} {run.stderr.strip()[-300:]}"
    return run.stdout.strip()


def main() -> int:
    imported = []
    for name in ("torch", "triton", "triton_tile"):
        try:
            mod = __import__(name)
            imported.append(f"{name} {getattr(mod, '__version__', '')}")
        except ImportError as e:
            imported.append(f"{name}: not importable ({e})")
    try:
        import torch

        if torch.cuda.is_available():
            torch.zeros(1, device="cuda")  # CUDA libraries loaded, a context made
            imported.append("a CUDA context")
    except Exception as e:  # noqa: BLE001 - report and go on
        imported.append(f"cuda: {e}")
    print("process has:", ", ".join(imported))
    print("CXX/CXXFLAGS/LDFLAGS:", {k: os.environ.get(k) for k in ("CXX", "CXXFLAGS", "LDFLAGS")})
    for what, sym in SYMBOLS.items():
        print(f"  {what:34s} from {where(sym)}")
    cxx = os.environ.get("CXX", "g++")
    version = subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout
    lib_of_cxx = subprocess.run([cxx, "-print-file-name=libstdc++.so.6"], capture_output=True,
                                text=True).stdout.strip()
    print(f"compiler {cxx}: {version.splitlines()[0] if version else '?'}; its libstdc++: "
          f"{os.path.realpath(lib_of_cxx)}")
    print("LD_LIBRARY_PATH:", os.environ.get("LD_LIBRARY_PATH"))
    work = tempfile.mkdtemp(prefix="tt_env_probe_")
    src = os.path.join(work, "probe.cpp")
    with open(src, "w") as f:
        f.write(PROBE)
    for how, flags in (("shared libstdc++", []),
                       ("static libstdc++ (how the core links)",
                        ["-static-libstdc++", "-Wl,--exclude-libs,ALL"])):
        lib = os.path.join(work, f"probe{len(flags)}.so")
        subprocess.run([cxx, "-O1", "-shared", "-fPIC", src, "-o", lib, *flags], check=True)
        sets = [("torch", "triton", "triton_tile"), ()]
        if not flags:  # which import breaks it
            sets += [("torch",), ("triton",), ("triton_tile",), ("torch", "nocuda"),
                     ("numpy",)]
        for imports in sets:
            print(f"  probe built with {how}, process importing {imports or 'nothing'}:",
                  _run_probe(lib, imports))
        if not flags:  # where the probe's stream calls bind, with numpy imported
            print("  bindings of the shared-libstdc++ probe (LD_DEBUG), numpy imported:")
            print(_run_probe(lib, ("numpy",), debug=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""NVIDIA's tileiras: Tile IR bytecode -> cubin, with an on-disk cubin cache.

Where tileiras comes from, in order: TRITON_TILE_TILEIRAS (``knobs.tileiras``), the pip wheel
nvidia-cuda-tileiras (``<site-packages>/nvidia/cu13/bin/tileiras``), then PATH. The wheel needs
nvidia-cuda-nvcc and nvidia-nvvm of the same major.minor (tileiras runs their ptxas and
libnvvm); see ``INSTALL_HINT``.

``info()`` probes the compiler once per process: ``--version`` (part of every cache key, so a
new tileiras never reuses an old cubin) and a real small kernel (a loop and a view load: an
empty module proves little, as cutile-rs found), which also tells which bytecode versions work.
``compile()`` turns bytecode into a cubin for one exact arch (cubins are arch-exact SASS).

tileiras runs with its own toolchain, whatever the user's environment holds. It looks for
libnvvm and ptxas under ``$CUDA_HOME`` (also ``CUDA_PATH``, ``CUDA_ROOT``) before the folder it
lives in, and fails without saying why when they are missing or of another version (CUDA
13.0's ptxas rejects the PTX 9.4 that tileiras 13.4 writes). So every run sets those three to
the toolkit root that holds tileiras (``<root>/bin/tileiras``, ``<root>/bin/ptxas``,
``<root>/lib/libnvvm.so.4`` or ``<root>/nvvm/lib64/libnvvm.so``): the wheel's
``nvidia/cu13``, a CUDA toolkit, or the three files unpacked anywhere in that layout.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Dict, Optional, Tuple, Union

from .. import knobs

INSTALL_HINT = ('pip install "nvidia-cuda-tileiras==13.4.*" "nvidia-cuda-nvcc==13.4.*" '
                '"nvidia-nvvm==13.4.*"')
DEFAULT_TIMEOUT_S = 600.0
# Bytecode versions we can write, newest first (csrc/bytecode/format.h).
OUR_VERSIONS = ("13.4", "13.3")
_CACHE_MAGIC = b"TTCUBIN1\n"

# The probe kernel: a loop around a load that the conversion raises to a view.
_PROBE_TTIR = """
module {
  tt.func public @probe(%arg0: !tt.ptr<f32>, %arg1: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<16xf32>
    %0 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %1 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %2 = tt.addptr %1, %0 : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    %3 = scf.for %i = %c0 to %arg1 step %c1 iter_args(%acc = %zero) -> (tensor<16xf32>) : i32 {
      %4 = tt.load %2 : tensor<16x!tt.ptr<f32>>
      %5 = arith.addf %acc, %4 : tensor<16xf32>
      scf.yield %5 : tensor<16xf32>
    }
    tt.store %2, %3 : tensor<16x!tt.ptr<f32>>
    tt.return
  }
}
"""


class TileirasError(RuntimeError):
    """tileiras failed: the message has its stderr, the kept input and a repro command."""

    def __init__(self, message: str, *, stderr: str = "", kept_file: Optional[str] = None,
                 command: Optional[str] = None, returncode: Optional[int] = None):
        super().__init__(message)
        self.stderr = stderr
        self.kept_file = kept_file
        self.command = command
        self.returncode = returncode


class TileirasNotFoundError(TileirasError):
    """No tileiras binary was found."""


@dataclasses.dataclass(frozen=True)
class TileirasInfo:
    path: str
    version: str  # the full `--version` text: part of every cubin cache key
    short_version: str  # "13.4.92"
    bytecode_versions: Tuple[str, ...]  # versions of ours it compiles, newest first


def find_tileiras() -> Optional[str]:
    """The tileiras to use, or None. A TRITON_TILE_TILEIRAS that is not executable is an error,
    not a reason to pick another one silently."""
    configured = knobs.tileiras
    if configured:
        if not (os.path.isfile(configured) and os.access(configured, os.X_OK)):
            raise TileirasNotFoundError(
                f"TRITON_TILE_TILEIRAS={configured!r} is not an executable file")
        return configured
    wheel = _wheel_tileiras()
    if wheel:
        return wheel
    return shutil.which("tileiras")


def _wheel_tileiras() -> Optional[str]:
    try:
        import nvidia  # namespace package of NVIDIA's CUDA wheels
    except ImportError:
        return None
    for base in getattr(nvidia, "__path__", []):
        cand = os.path.join(base, "cu13", "bin", "tileiras")
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


# Where tileiras looks for ptxas and libnvvm before its own folder.
CUDA_ROOTS = ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT")


@dataclasses.dataclass(frozen=True)
class Toolchain:
    """The files one tileiras runs: its root, ptxas and libnvvm (None where missing)."""

    tileiras: str
    root: str
    ptxas: Optional[str]
    libnvvm: Optional[str]

    def env(self) -> Dict[str, str]:
        """The environment tileiras runs in: the caller's, with the CUDA roots set to ours."""
        return knobs.child_environment(**{name: self.root for name in CUDA_ROOTS})

    def describe(self) -> str:
        return (f"tileiras {self.tileiras}, ptxas {self.ptxas or '(missing)'}, "
                f"libnvvm {self.libnvvm or '(missing)'}")

    def missing(self) -> Tuple[str, ...]:
        return tuple(name for name, f in (("ptxas", self.ptxas), ("libnvvm", self.libnvvm))
                     if f is None)


def toolchain(path: str) -> Toolchain:
    """Where the tileiras at `path` finds ptxas and libnvvm once CUDA_HOME is its root."""
    real = os.path.realpath(path)
    root = os.path.dirname(os.path.dirname(real))

    def first(*cands):
        return next((c for c in cands if os.path.isfile(c)), None)

    ptxas = first(os.path.join(root, "bin", "ptxas"))
    libnvvm = first(os.path.join(root, "nvvm", "lib64", "libnvvm.so"),
                    os.path.join(root, "lib", "libnvvm.so.4"),
                    os.path.join(root, "nvvm", "lib64", "libnvvm.so.4"),
                    os.path.join(root, "lib64", "libnvvm.so.4"))
    return Toolchain(real, root, ptxas, libnvvm)


def _require_tileiras() -> str:
    path = find_tileiras()
    if path is None:
        raise TileirasNotFoundError(
            "tileiras not found (set TRITON_TILE_TILEIRAS, or install it: " + INSTALL_HINT + ")")
    return path


_info_lock = threading.Lock()
_info: Dict[str, TileirasInfo] = {}
_versions: Dict[str, Tuple[str, str]] = {}


def info() -> TileirasInfo:
    """Version and working bytecode versions of the tileiras in use; probed once per process."""
    path = _require_tileiras()
    with _info_lock:
        if path not in _info:
            _info[path] = _probe(path)
        return _info[path]


def version() -> str:
    """The full `--version` text of the tileiras in use (cached per process): what cache keys
    of compiled kernels must include, so a new tileiras never reuses an old cubin."""
    return _version(_require_tileiras())[0]


def _version(path: str) -> Tuple[str, str]:
    """(the full `--version` text, "13.4.92"): cheap, so cache hits need no probe compile."""
    if path not in _versions:
        try:
            run = subprocess.run([path, "--version"], capture_output=True, text=True,
                                 timeout=60, env=toolchain(path).env())
        except (OSError, subprocess.TimeoutExpired) as e:
            raise TileirasError(f"cannot run {path} --version: {e}") from None
        version = run.stdout.strip()
        if run.returncode != 0 or not version:
            raise TileirasError(f"{path} --version failed:\n{run.stderr.strip()}",
                                stderr=run.stderr, returncode=run.returncode)
        _versions[path] = (version, short_version(version))
    return _versions[path]


def _probe(path: str) -> TileirasInfo:
    version, short = _version(path)
    tools = toolchain(path)
    if tools.missing():
        raise TileirasError(f"tileiras {short} at {path} has no {' or '.join(tools.missing())} "
                            f"beside it ({tools.describe()}); it needs the ones of its own "
                            f"version: {INSTALL_HINT}")
    # Which of our versions it reads: --list-versions (13.4+) says, one probe compile proves the
    # toolchain works; without the flag, the probe kernel decides version by version.
    try:
        listed = subprocess.run([path, "--list-versions"], capture_output=True, text=True,
                                timeout=60, env=toolchain(path).env())
        listed_ok = listed.returncode == 0 and bool(listed.stdout.split())
    except (OSError, subprocess.TimeoutExpired):
        listed_ok = False
    if listed_ok:
        candidates = [v for v in OUR_VERSIONS if v in listed.stdout.split()]
        to_probe = [v for v in ("13.3",) + OUR_VERSIONS if v in candidates][:1]
    else:
        candidates = list(OUR_VERSIONS)
        to_probe = candidates
    working, failure = [], None
    for v in to_probe:
        try:
            _run_tileiras(path, _probe_bytecode(v), "sm_90", 3, 120.0, what=f"probe kernel {v}")
            working.append(v)
        except TileirasError as e:
            failure = e
    if not working:
        raise TileirasError(f"tileiras {short} cannot compile a minimal kernel at bytecode "
                            f"{'/'.join(to_probe) or 'none of ' + '/'.join(OUR_VERSIONS)} "
                            f"({tools.describe()}); ptxas and libnvvm must be of tileiras's "
                            f"version ({INSTALL_HINT})\n{failure}",
                            stderr=failure.stderr if failure else "")
    if listed_ok:
        working = candidates
    return TileirasInfo(path, version, short, tuple(working))


def _probe_bytecode(version: str) -> bytes:
    from .. import _core

    module = _core.parse_ttir(_PROBE_TTIR, "<tileiras probe>")
    result = _core.convert_to_tile(module, "probe", _core.TileOptions())
    return _core.tile_to_bytecode(result.module, version, line_info=False)


def bytecode_version(bytecode: bytes) -> Optional[str]:
    """"13.3" from a Tile IR bytecode header (magic, then major and minor bytes), else None."""
    if len(bytecode) >= 10 and bytecode.startswith(b"\x7fTileIR\x00"):
        return f"{bytecode[8]}.{bytecode[9]}"
    return None


def has_line_info(bytecode: bytes) -> bool:
    """Whether Tile IR bytecode carries a Debug section (line info, csrc/bytecode/debug_info.h),
    read from its section headers: after the 12-byte header, each section is an id byte (0x80:
    aligned), a varint length, for an aligned one a varint alignment and padding to it in the
    file, then the payload; a 0 byte ends them."""
    def varint(at):
        value = shift = 0
        while at < len(bytecode):
            byte = bytecode[at]
            value, at, shift = value | (byte & 0x7F) << shift, at + 1, shift + 7
            if not byte & 0x80:
                return value, at
        return None, at

    at = 12
    while 0 < at < len(bytecode) and bytecode[at] != 0:
        section, aligned = bytecode[at] & 0x7F, bytecode[at] & 0x80
        if section == 3:
            return True
        length, at = varint(at + 1)
        if aligned and length is not None:
            alignment, at = varint(at)
            if not alignment:
                return False
            at += -at % alignment
        if length is None:
            return False
        at += length
    return False


def short_version(version_text: Optional[str]) -> Optional[str]:
    """"13.4.92" from `tileiras --version` text (the text itself when it has no V-number)."""
    if not version_text:
        return None
    m = re.search(r"V(\d+\.\d+\.\d+)", version_text)
    return m.group(1) if m else version_text.splitlines()[0]


def normalize_arch(arch: Union[str, int]) -> str:
    """`sm_90`, `90` or 90 -> "sm_90". tileiras takes no `a` suffix (sm_90a is refused)."""
    text = f"sm_{arch}" if isinstance(arch, int) else str(arch)
    if re.fullmatch(r"\d+", text):
        text = "sm_" + text
    if not re.fullmatch(r"sm_\d+", text):
        raise ValueError(f"arch {arch!r}: expected sm_XX (e.g. sm_90; no 'a' suffix)")
    return text


def compile(bytecode: bytes, arch: Union[str, int], opt_level: int = 3,
            timeout: float = DEFAULT_TIMEOUT_S, cache: bool = True) -> bytes:
    """Compiles Tile IR bytecode to a cubin for `arch` (sm_XX); raises TileirasError."""
    arch = normalize_arch(arch)
    if opt_level not in (0, 1, 2, 3):
        raise ValueError(f"opt_level {opt_level!r}: expected 0..3")
    tool_path = _require_tileiras()
    key = _cache_key(bytecode, arch, opt_level, _version(tool_path)[0])
    path = _cache_file(key["key"]) if cache else None
    if path is not None and not knobs.always_compile:
        hit = _cache_read(path, key)
        if hit is not None:
            return hit
    tool = info()  # the probe compile: once per process, before the first real compile
    have = bytecode_version(bytecode)
    if have is not None and have not in tool.bytecode_versions:
        raise TileirasError(f"the kernel is Tile IR bytecode {have} and tileiras "
                            f"{tool.short_version} reads {', '.join(tool.bytecode_versions)}; "
                            f"install a newer one: {INSTALL_HINT}")
    cubin = _run_tileiras(tool.path, bytecode, arch, opt_level, timeout)
    if path is not None:
        _cache_write(path, key, cubin)
    return cubin


def _run_tileiras(tool: str, bytecode: bytes, arch: str, opt_level: int, timeout: float,
                  what: str = "kernel") -> bytes:
    work = tempfile.mkdtemp(prefix="triton_tile_tileiras_")
    src = os.path.join(work, "kernel.tilebc")
    out = os.path.join(work, f"kernel.{arch}.cubin")
    with open(src, "wb") as f:
        f.write(bytecode)
    # --lineinfo where the bytecode has line info (the Debug section becomes the cubin's line
    # table; it changes no instruction: the SASS of stencil, matmul and attention kernels was the
    # same without it). The bytecode decides, not the environment of the moment (the general
    # cubin compiles on a background thread), so the cache key's bytecode hash covers it.
    lines = ["--lineinfo"] if has_line_info(bytecode) else []
    cmd = [tool, "--gpu-name", arch, f"-O{opt_level}", *lines, src, "-o", out]
    tools = toolchain(tool)
    repro = shlex.join(["env", *(f"{name}={tools.root}" for name in CUDA_ROOTS), *cmd])
    try:
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                             env=tools.env())
    except subprocess.TimeoutExpired as e:
        stderr = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else ""
        raise TileirasError(f"tileiras timed out after {timeout:g} s compiling the {what} for "
                            f"{arch}\n  input kept: {src}\n  reproduce: {repro}",
                            stderr=stderr, kept_file=src, command=repro) from None
    cubin = b""
    if run.returncode == 0 and os.path.isfile(out):
        with open(out, "rb") as f:
            cubin = f.read()
    if run.returncode != 0 or not cubin.startswith(b"\x7fELF"):
        # Keep the input so the failure can be reproduced and reported.
        stderr = run.stderr.strip() or run.stdout.strip() or "(no output)"
        raise TileirasError(f"tileiras failed (exit {run.returncode}) compiling the {what} for "
                            f"{arch}:\n{stderr}\n  toolchain: {tools.describe()}\n"
                            f"  input kept: {src}\n  reproduce: {repro}",
                            stderr=run.stderr, kept_file=src, command=repro,
                            returncode=run.returncode)
    shutil.rmtree(work, ignore_errors=True)
    return cubin


# --------------------------------------------------------------------------------- cubin cache


def _cache_key(bytecode: bytes, arch: str, opt_level: int, version: str) -> dict:
    fields = {"bytecode_sha256": hashlib.sha256(bytecode).hexdigest(), "arch": arch,
              "opt_level": opt_level, "tileiras_version": version}
    fields["key"] = hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()
    return fields


def _cache_file(key: str) -> Path:
    return Path(knobs.cache_dir) / "tileiras" / key[:2] / f"{key}.cubin"


def _cache_read(path: Path, key: dict) -> Optional[bytes]:
    """The cached cubin, only if its header names this exact key and its bytes are intact."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if not data.startswith(_CACHE_MAGIC):
        return None
    end = data.find(b"\n", len(_CACHE_MAGIC))
    try:
        header = json.loads(data[len(_CACHE_MAGIC):end])
    except ValueError:
        return None
    cubin = data[end + 1:]
    if not isinstance(header, dict) or any(header.get(k) != v for k, v in key.items()):
        return None
    if header.get("cubin_sha256") != hashlib.sha256(cubin).hexdigest():
        return None
    return cubin


def _cache_write(path: Path, key: dict, cubin: bytes) -> None:
    """Temp name + rename: readers see a whole entry or none. A cache that cannot be written
    costs a recompile next time, nothing else."""
    header = dict(key, cubin_sha256=hashlib.sha256(cubin).hexdigest())
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(_CACHE_MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n" + cubin)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass

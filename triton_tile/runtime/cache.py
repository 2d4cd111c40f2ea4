"""The on-disk kernel cache (docs/internals.md, "Cache keys that travel").

`TRITON_TILE_CACHE_DIR/<key>/` holds one file per stage (`<name>.ttir`, later `.tileir`,
`.tilebc`, `.cubin`) and `<name>.json` with the metadata, the key, the key's inputs and a
sha256 of every stage file. An entry is written under a temporary name and renamed into place,
so readers never see half an entry; on load the stored key and every checksum are re-checked,
so a stale, truncated or edited entry is never used.

The key covers: the package version and a fingerprint of the compiler itself (its Python files
and the `_core` library), the kernel's `cache_key` (source, every jit function and constexpr
global it reaches, starting line), the specialization (signature, constants, attrs), every
option, the path (tile/ptx), the target, and the environment knobs that change code.

On the CPU path a hit skips the frontend by parsing TTIR back into a module
(`_core.parse_ttir`). It parses `<name>.ttir_locs`, the TTIR with every op's source location,
so a kernel loaded from disk still reports errors at the user's file:line:col; when the parser
cannot read it, the hit counts as a miss and the kernel is recompiled (never run without its
locations, never run stale).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import threading
import uuid
import warnings
from typing import Optional, Tuple

from .. import knobs
from .._version import __version__
from . import dependencies as deps

_FINGERPRINT: list = []
_FINGERPRINT_LOCK = threading.Lock()
_WARNED_UNWRITABLE: set = set()
_MAX_NAME = 150
LOCATED_TTIR = "ttir_locs"  # not a stage: the reload source, kept beside the stages


def compiler_fingerprint() -> str:
    """sha256 of the compiler's own code: a rebuilt compiler never reuses old entries.

    It hashes the Python sources and the C++ core's `source_hash` (a hash of the C++ sources
    compiled into it), not the library's bytes: those differ between machines building the
    same sources (another compiler or Python), and a cache built ahead of time on one machine
    must be valid on the GPU machine."""
    with _FINGERPRINT_LOCK:
        if _FINGERPRINT:
            return _FINGERPRINT[0]
        pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        h = hashlib.sha256()
        for sub in ("compiler", "language", "backends", "runtime"):
            root = os.path.join(pkg, sub)
            for dirpath, dirnames, files in os.walk(root):
                dirnames.sort()
                for f in sorted(files):
                    if f.endswith(".py"):
                        path = os.path.join(dirpath, f)
                        h.update(os.path.relpath(path, pkg).encode())
                        with open(path, "rb") as fh:
                            h.update(fh.read())
        core = sys.modules.get("triton_tile._core")
        if core is None:
            try:
                from .. import _core as core
            except ImportError:
                core = None
        core_file = getattr(core, "__file__", None)
        if getattr(core, "source_hash", None):
            h.update(f"core-sources:{core.source_hash}".encode())
        elif core_file and os.path.exists(core_file):
            with open(core_file, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    h.update(block)
        _FINGERPRINT.append(h.hexdigest())
        return _FINGERPRINT[0]


# Knobs that enter the key through what they decide rather than as raw text: the target (and,
# for cubins, the tileiras version) and the path (options.enable_tile). Where tileiras lives,
# whether TRITON_TILE_TARGET was set to build ahead of time, or whether the Tile path was asked
# for by ENABLE_TILE or by `enable_tile=True` must not tell a cache built on one machine from
# the GPU machine that runs it.
_KEY_EXCLUDED_KNOBS = ("target", "tileiras", "enable_tile")
# For GPU compiles also the fallback policy (TRITON_TILE_FALLBACK): a GPU entry is used only
# where it holds a cubin, that is where the Tile path compiled, which the policy does not
# change. Else a cache built ahead of time misses on a machine that runs it with
# TRITON_TILE_FALLBACK=error, the very setting that proves the cache is used.
_GPU_KEY_EXCLUDED_KNOBS = _KEY_EXCLUDED_KNOBS + ("fallback",)


def cache_key(jit_fn, spec, options, target: Optional[str] = None) -> Tuple[str, dict]:
    """(hex key, the inputs it was hashed from). `target` is the GPU arch ("sm_90") for GPU
    compiles; CPU compiles leave it None (TRITON_TILE_TARGET or "cpu")."""
    material = {
        "triton_tile": __version__,
        "compiler": compiler_fingerprint(),
        "fn": jit_fn.cache_key,
        "name": jit_fn.__name__,
        "signature": {k: str(v) for k, v in spec.signature.items()},
        "constants": {k: deps.stable_repr(v) for k, v in spec.constants.items()},
        "attrs": {k: repr(v) for k, v in spec.attrs.items()},
        "options": options.as_dict(),
        "path": "tile" if options.enable_tile else "ptx",
        "target": target or knobs.target or "cpu",
        "env": {k: v for k, v in knobs.code_env()
                if k not in (_GPU_KEY_EXCLUDED_KNOBS if target else _KEY_EXCLUDED_KNOBS)},
    }
    text = json.dumps(material, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest(), material


def _sha(text) -> str:
    data = text.encode() if isinstance(text, str) else bytes(text)
    return hashlib.sha256(data).hexdigest()


class DiskCache:
    def __init__(self, root: str):
        self.root = root

    def _files(self, key: str, name: str):
        d = os.path.join(self.root, key)
        return d, name[:_MAX_NAME]

    def load(self, key: str, name: str) -> Optional[dict]:
        """{'asm': {stage: text}, 'metadata': {...}} if a complete, matching entry exists."""
        d, base = self._files(key, name)
        try:
            with open(os.path.join(d, base + ".json")) as f:
                meta = json.load(f)
            if meta.get("key") != key:
                return None
            asm = {}
            for stage, digest in meta["sha256"].items():
                mode = "rb" if stage.startswith(("cubin", "tilebc")) else "r"
                with open(os.path.join(d, f"{base}.{stage}"), mode) as f:
                    asm[stage] = f.read()
                if _sha(asm[stage]) != digest:
                    return None
            return {"asm": asm, "metadata": meta["metadata"]}
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def nearest_difference(self, name: str, material: dict, limit: int = 512) -> str:
        """Why a lookup missed: among the entries of kernel `name` (up to `limit` directories
        read), the key inputs in which the nearest one differs from `material`, e.g.
        "compiler, env.allow_tma" ("" if there is none). A cache built ahead of time on another
        machine misses as a whole when, say, the package's sources differ; this names it."""
        want = json.loads(json.dumps(material, sort_keys=True, default=str))
        best = None
        try:
            dirs = sorted(e.path for e in os.scandir(self.root) if e.is_dir())[:limit]
        except OSError:
            return ""
        for d in dirs:
            try:
                with open(os.path.join(d, name[:_MAX_NAME] + ".json")) as f:
                    have = json.load(f).get("key_inputs")
            except (OSError, ValueError, AttributeError):
                continue
            if not isinstance(have, dict):
                continue
            diff = []
            for k in sorted(set(want) | set(have)):
                a, b = want.get(k), have.get(k)
                if k == "tileiras" or a == b:
                    continue
                if isinstance(a, dict) and isinstance(b, dict):
                    diff += [f"{k}.{sub}" for sub in sorted(set(a) | set(b))
                             if a.get(sub) != b.get(sub)]
                else:
                    diff.append(k)
            if best is None or len(diff) < len(best):
                best = diff
        return ", ".join(best) if best else ""

    def store(self, key: str, name: str, asm: dict, metadata: dict, material: dict) -> bool:
        d, base = self._files(key, name)
        tmp = os.path.join(self.root, f".tmp-{key[:16]}-{os.getpid()}-{uuid.uuid4().hex[:8]}")
        try:
            os.makedirs(tmp)
            sums = {}
            for stage, text in asm.items():
                mode = "wb" if isinstance(text, (bytes, bytearray)) else "w"
                with open(os.path.join(tmp, f"{base}.{stage}"), mode) as f:
                    f.write(text)
                sums[stage] = _sha(text)
            with open(os.path.join(tmp, base + ".json"), "w") as f:
                json.dump({"key": key, "name": name, "sha256": sums, "metadata": metadata,
                           "key_inputs": material}, f, indent=1, sort_keys=True, default=str)
            if os.path.isdir(d) and not os.path.islink(d):  # a stale or foreign entry
                shutil.rmtree(d, ignore_errors=True)
            elif os.path.lexists(d):  # a file or link where the entry belongs: else never
                os.remove(d)  # repaired, every later run would recompile
            try:
                os.rename(tmp, d)
            except OSError:  # another process won the race; its entry is as good as ours
                shutil.rmtree(tmp, ignore_errors=True)
            return True
        except OSError as e:
            shutil.rmtree(tmp, ignore_errors=True)
            if self.root not in _WARNED_UNWRITABLE:
                _WARNED_UNWRITABLE.add(self.root)
                warnings.warn(f"triton_tile: kernel cache {self.root} is not writable ({e}); "
                              "continuing without it (set TRITON_TILE_CACHE_DIR)", stacklevel=2)
            return False

"""Every environment variable triton_tile reads, typed, in one place.

Values are read when asked for (at launch), never at import, so setting a variable after
`import triton_tile` still takes effect. Tests and users may also assign an attribute
(`knobs.cache_dir = "/tmp/x"`) to override the environment; `del knobs.cache_dir` (or
`knobs.reset()`) returns to it. Nothing else in the package touches `os.environ`.
"""

from __future__ import annotations

import os
import sys
import types
from typing import Any, Callable, Dict, Optional

_TRUE = {"1", "true", "yes", "on", "y", "t"}
_FALSE = {"0", "false", "no", "off", "n", "f", ""}


def _parse_bool(name: str, text: str) -> bool:
    low = text.strip().lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    raise ValueError(f"{name}={text!r}: expected a boolean (1/0, true/false, on/off)")


def _parse_int(name: str, text: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise ValueError(f"{name}={text!r}: expected an integer") from None


def _parse_views(name: str, text: str) -> str:
    low = text.strip().lower()
    if low in _FALSE:
        return "off"
    if low in _TRUE or low == "auto":
        return "auto"
    if low == "all":
        return low
    raise ValueError(f"{name}={text!r}: expected auto, all or 0/off")


def _parse_auto_bool(name: str, text: str) -> str:
    low = text.strip().lower()
    if low in _FALSE:
        return "off"
    if low in _TRUE:
        return "on"
    if low == "auto":
        return low
    raise ValueError(f"{name}={text!r}: expected auto, 1/on or 0/off")


def _parse_str(name: str, text: str) -> str:
    return text


def _choice(*allowed: str) -> Callable[[str, str], str]:
    def parse(name: str, text: str) -> str:
        low = text.strip().lower()
        if low not in allowed:
            raise ValueError(f"{name}={text!r}: expected one of {', '.join(allowed)}")
        return low

    return parse


# Knobs are read on every launch, so each read must be cheap: look the variable up in the
# environment's own byte dict (what os.environ.get does, minus its encode/decode) and parse
# only when the raw value changed since the last read. Elsewhere, os.environ as usual.
_ENV_BYTES = getattr(os.environ, "_data", None) if os.name == "posix" else None


def _raw(env: str, env_b: bytes) -> Optional[str]:
    if _ENV_BYTES is not None:
        raw = _ENV_BYTES.get(env_b)
        return None if raw is None else raw.decode(errors="surrogateescape")
    return os.environ.get(env)


class _Env:
    """A descriptor: one environment variable with its parser and default."""

    def __init__(self, env: str, parse, default, doc: str, changes_code: bool = False):
        self.env = env
        self.env_b = env.encode()
        self.parse = parse
        self.default = default
        self.doc = doc
        self.changes_code = changes_code
        self.attr = ""
        self._last = (object(), None)  # (raw text, parsed value) of the previous read
        self._default_cache = []

    def __set_name__(self, owner, attr):
        self.attr = attr

    def default_value(self):
        if not callable(self.default):
            return self.default
        if not self._default_cache:  # computed defaults (home dir, cpu count) are fixed
            self._default_cache.append(self.default())
        return self._default_cache[0]

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        if obj._overrides and self.attr in obj._overrides:
            return obj._overrides[self.attr]
        text = _raw(self.env, self.env_b)
        last = self._last
        if text == last[0]:
            return last[1]
        if text is None or (text == "" and self.parse is not _parse_str):
            value = self.default_value()
        else:
            value = self.parse(self.env, text)
        self._last = (text, value)
        return value

    def __set__(self, obj, value):
        obj._overrides[self.attr] = value

    def __delete__(self, obj):
        obj._overrides.pop(self.attr, None)


def _default_cache_dir() -> str:
    return os.path.join(os.path.expanduser("~"), ".triton_tile", "cache")


def _default_threads() -> int:
    return os.cpu_count() or 1


class Knobs(types.ModuleType):
    """The type of this module: attribute access on `triton_tile.knobs` reads the environment."""

    # Runtime and cache
    cache_dir = _Env("TRITON_TILE_CACHE_DIR", _parse_str, _default_cache_dir,
                     "on-disk kernel cache directory")
    num_threads = _Env("TRITON_TILE_NUM_THREADS", _parse_int, _default_threads,
                       "threads of the CPU executors' pool")
    dump = _Env("TRITON_TILE_DUMP", _parse_str, "",
                "1: print every stage's IR to stderr; a directory: write the stages there")
    always_compile = _Env("TRITON_ALWAYS_COMPILE", _parse_bool, False,
                          "ignore on-disk cache hits")
    debug = _Env("TRITON_DEBUG", _parse_bool, False,
                 "compile with debug=True (device_assert active)", changes_code=True)
    print_autotuning = _Env("TRITON_PRINT_AUTOTUNING", _parse_bool, False,
                            "print every autotuning trial and the winner")
    cache_autotuning = _Env("TRITON_CACHE_AUTOTUNING", _parse_bool, False,
                            "persist autotuning results in the cache directory")
    f32_default = _Env("TRITON_F32_DEFAULT", _choice("ieee", "tf32", "tf32x3"), None,
                       "default input_precision of fp32 tl.dot", changes_code=True)
    disable_line_info = _Env("TRITON_DISABLE_LINE_INFO", _parse_bool, False,
                             "Tile path: no source lines in the bytecode's Debug section and the "
                             "cubin's line table (tileiras --lineinfo; ncu's source view), as "
                             "stock Triton's variable drops them from its PTX", changes_code=True)
    default_fp_fusion = _Env("TRITON_DEFAULT_FP_FUSION", _parse_bool, True,
                             "enable_fp_fusion's default: GPU targets contract a * b + c into "
                             "one fma, as stock Triton does", changes_code=True)
    # Backend selection (read at launch)
    enable_tile = _Env("ENABLE_TILE", _parse_bool, False,
                       "make the Tile IR path the default", changes_code=True)
    fallback = _Env("TRITON_TILE_FALLBACK", _choice("warn", "error"), "warn",
                    "what to do when Tile IR cannot express a kernel", changes_code=True)
    enable_approx = _Env("TILEIR_ENABLE_APPROX", _parse_bool, False,
                         "approximate math on the Tile path for every f32 op that has it (off: "
                         "f32 math as stock Triton's PTX: tl.sqrt, tl.exp, tl.exp2 and `/` fast)",
                         changes_code=True)
    enable_ftz = _Env("TILEIR_ENABLE_FTZ", _parse_bool, False,
                      "flush f32 denormals to zero on the Tile path for every op that can (off: "
                      "as stock Triton's PTX: tl.sqrt, tl.exp2, rsqrt flush)", changes_code=True)
    raise_views = _Env("TRITON_TILE_RAISE_VIEWS", _parse_views, "auto",
                       "raise pointer loads/stores to Tile IR views: auto = all but "
                       "one-dimensional tiles inside loops and the loads and stores of "
                       "kernels without a dot (gathers there, measured faster), all, or 0/off: "
                       "gathers everywhere, as NVIDIA's backend emits them",
                       changes_code=True)
    index_views = _Env("TRITON_TILE_INDEX_VIEWS", _parse_bool, True,
                       "accesses in loops index one view made once per tensor (0: a view per "
                       "access; for comparisons)", changes_code=True)
    anchored_views = _Env("TRITON_TILE_ANCHORED_VIEWS", _choice("desc", "all", "off"), "all",
                          "accesses in loops over a tensor made inside the kernel's control "
                          "flow index one view made where it is made, not a view per access: "
                          "all = descriptors and pointers (a grouped GEMM's, per problem or "
                          "tile), desc = descriptors only, off = never", changes_code=True)
    allow_tma = _Env("TRITON_TILE_ALLOW_TMA", _parse_bool, True,
                     "0: view accesses carry allow_tma=false (tileiras uses no TMA; for "
                     "comparisons)", changes_code=True)
    tma_kernel_maps = _Env("TRITON_TILE_TMA_KERNEL_MAPS", _parse_bool, False,
                           "1: TMA also for stores through views made inside loops, whose "
                           "tensor maps tileiras builds mid-kernel; off by default: such a "
                           "kernel hung on driver 580.159 (H100) with tileiras 13.4 "
                           "(docs/gpu_chain.md)", changes_code=True)
    view_reductions = _Env("TRITON_TILE_VIEW_REDUCTIONS", _parse_bool, True,
                           "0: relaxed atomics whose old values are unused stay read-modify-"
                           "writes of pointer tiles instead of reductions through views "
                           "(atomic_red_view_tko; for comparisons)", changes_code=True)
    worker_warps = _Env("TRITON_TILE_WORKER_WARPS", _choice("auto", "on", "off"), "auto",
                        "num_warps (4 or 8) as Tile IR's num_worker_warps_per_cta hint: auto = "
                        "for kernels with reductions, a dot in nested loops, a loop of "
                        "several dots or (at 8) a dot accumulating over 128x128, on = "
                        "always, off = never", changes_code=True)
    grid_stride = _Env("TRITON_TILE_GRID_STRIDE", _parse_auto_bool, "auto",
                       "a persistent kernel's loop over work items (range(tl.program_id(0), n, "
                       "step)) run as a grid of items, each (program, iteration) a program of "
                       "its own (csrc/passes/grid_stride_loops.cpp): auto = where the loop "
                       "holds another loop (tileiras 13.4 compiles those badly), on = wherever "
                       "the items may run in any order, off = the loop as written",
                       changes_code=True)
    version_loops = _Env("TRITON_TILE_VERSION_LOOPS", _parse_bool, True,
                         "0 (measurements only, unsafe): loops are not versioned, the "
                         "conditions of their tile-index accesses are assumed",
                         changes_code=True)
    launch_guards = _Env("TRITON_TILE_LAUNCH_GUARDS", _parse_bool, True,
                         "0: loops versioned on run-time conditions keep both versions in the "
                         "GPU kernel instead of the host deciding the conditions before each "
                         "launch (for comparisons)", changes_code=True)
    view_guards = _Env("TRITON_TILE_VIEW_GUARDS", _parse_bool, True,
                       "0 (measurements only, unsafe): no branch around view accesses that "
                       "may be empty, out of range or wrap", changes_code=True)
    check = _Env("TRITON_TILE_CHECK", _parse_bool, False,
                 "report accesses Tile IR's memory model would leave unordered",
                 changes_code=True)
    target = _Env("TRITON_TILE_TARGET", _parse_str, None,
                  "compile for this GPU (e.g. sm_90) without one present", changes_code=True)
    tileiras = _Env("TRITON_TILE_TILEIRAS", _parse_str, None,
                    "path of the tileiras compiler", changes_code=True)
    # Development
    core = _Env("TRITON_TILE_CORE", _parse_str, None,
                "path of a C++ core module to load instead of the installed one (read once, "
                "at import: the sanitized build of tools/sanitize.sh)")

    @classmethod
    def all(cls) -> Dict[str, _Env]:
        return {k: v for k, v in vars(cls).items() if isinstance(v, _Env)}

    def code_env(self) -> tuple:
        """The knobs that change generated code, as a hashable, sortable tuple for cache keys."""
        return tuple((k, getattr(self, k)) for k in _CODE_KNOBS)

    def code_env_fingerprint(self) -> tuple:
        """Cheap stand-in for code_env() in in-memory cache keys: the raw variable texts and
        any overrides (equal fingerprints mean equal code_env())."""
        if _ENV_BYTES is not None:  # every launch reads this: the raw bytes, one C call
            raw = tuple(map(_ENV_BYTES.get, _CODE_ENV_KEYS))
        else:
            raw = tuple(_raw(e.env, e.env_b) for e in _CODE_ENVS)
        if self._overrides:
            return raw, tuple(sorted((k, repr(v)) for k, v in self._overrides.items()))
        return raw

    def code_env_token(self):
        """code_env_fingerprint() for in-memory cache keys at launch: a small int that names it
        in this process (the core's EnvWatch; equal tokens mean equal fingerprints), where the
        tuple would be rebuilt, hashed and compared at every launch. With overrides set, or
        without the core, the fingerprint itself (a tuple never equals a token)."""
        if self._overrides:
            return self.code_env_fingerprint()
        watch = _ENV_WATCH[0] if _ENV_WATCH else _make_env_watch()
        return watch()

    def reset(self) -> None:
        self._overrides.clear()

    def describe(self) -> Dict[str, Optional[str]]:
        """Variable name -> one-line doc; used by the README and tools."""
        return {v.env: v.doc for v in self.all().values()}

    def child_environment(self, **overrides: str) -> Dict[str, str]:
        """The environment a child process (tileiras) runs in: ours, with `overrides` set."""
        env = dict(os.environ)
        env.update(overrides)
        return env


_ENV_WATCH: list = []  # the token function of code_env_token, made at its first call


def _make_env_watch() -> Callable[[], Any]:
    """The core's EnvWatch over the code-changing variables; without the core (or the byte
    dict), the fingerprint stands for the token. Imported here, at the first launch: the core
    is loaded after the knobs (TRITON_TILE_CORE is one)."""
    watch: Callable[[], Any] = lambda: knobs.code_env_fingerprint()  # noqa: E731
    if _ENV_BYTES is not None:
        try:
            from . import _core

            watch = _core.EnvWatch(_ENV_BYTES, _CODE_ENV_KEYS)
        except (ImportError, AttributeError):
            pass
    _ENV_WATCH[:] = [watch]
    return watch


# Make this module an instance of Knobs, so `triton_tile.knobs.cache_dir` reads (and
# `triton_tile.knobs.cache_dir = ...` overrides) the variable, as `triton.knobs` does.
_CODE_KNOBS = tuple(k for k, v in sorted(Knobs.all().items()) if v.changes_code)
_CODE_ENVS = tuple(Knobs.all()[k] for k in _CODE_KNOBS)
_CODE_ENV_KEYS = tuple(e.env_b for e in _CODE_ENVS)
sys.modules[__name__].__class__ = Knobs
_overrides: Dict[str, Any] = {}
knobs = sys.modules[__name__]


# ---------------------------------------------------------------------------------------------
# Upstream Triton's knob-set API: `knobs.cache`, `knobs.runtime`, `knobs.language`,
# `knobs.compilation`, each an instance of a `base_knobs` subclass whose class attributes are
# environment knobs (`knob_descriptors`, each with its `.key`); sets can be copied, reset and
# scoped, which is what code and tests written for Triton do with them (upstream's
# `fresh_knobs` fixture swaps every set for a reset copy). The variables are Triton's own names.
# triton_tile reads its own module-level knobs above, not these sets (the CPU executors have no
# use for an architecture override or fp fusion); the sets keep Triton's code working.

class _SetEnv:
    """One knob of a knob set: an environment variable, parsed, with a default; assigning an
    attribute overrides it on that set only."""

    def __init__(self, key: str, parse, default):
        self.key = key
        self.parse = parse
        self.default = default
        self.name = ""

    def __set_name__(self, owner, name):
        self.name = name

    def get(self, owner) -> Any:
        if self.name in owner._overrides:
            return owner._overrides[self.name]
        text = os.environ.get(self.key)
        if text is None or (text == "" and self.parse is not _parse_str):
            return self.default
        return self.parse(self.key, text)

    def __get__(self, obj, objtype=None):
        return self if obj is None else self.get(obj)

    def __set__(self, obj, value):
        obj._overrides[self.name] = value
        if obj._propagate() and value is not None:
            os.environ[self.key] = str(int(value) if isinstance(value, bool) else value)

    def __delete__(self, obj):
        obj._overrides.pop(self.name, None)


class base_knobs:  # noqa: N801 (upstream's name)
    """A set of knobs (upstream's `triton.knobs.base_knobs`)."""

    def __init__(self):
        self._overrides: Dict[str, Any] = {}

    @property
    def knob_descriptors(self) -> Dict[str, _SetEnv]:
        out = {}
        for klass in reversed(type(self).__mro__):
            out.update({k: v for k, v in vars(klass).items() if isinstance(v, _SetEnv)})
        return out

    @property
    def knobs(self) -> Dict[str, Any]:
        return {k: getattr(self, k) for k in self.knob_descriptors}

    def _propagate(self) -> bool:
        return bool(getattr(sys.modules[__name__], "propagate_env", False))

    def copy(self):
        res = type(self).__new__(type(self))
        res._overrides = dict(self._overrides)
        return res

    def reset(self):
        self._overrides.clear()
        return self

    def scope(self):
        """`with knobs.cache.scope(): ...` restores the set's overrides (and the environment
        variables assignments propagated) afterwards."""
        import contextlib

        @contextlib.contextmanager
        def _scope():
            saved = dict(self._overrides)
            env = {d.key: os.environ.get(d.key) for d in self.knob_descriptors.values()}
            try:
                yield self
            finally:
                self._overrides = saved
                for key, text in env.items():  # undo what assignments propagated
                    if text is None:
                        os.environ.pop(key, None)
                    else:
                        os.environ[key] = text

        return _scope()


class cache_knobs(base_knobs):  # noqa: N801
    dir = _SetEnv("TRITON_CACHE_DIR", _parse_str, None)
    home_dir = _SetEnv("TRITON_HOME", _parse_str, None)


class runtime_knobs(base_knobs):  # noqa: N801
    interpret = _SetEnv("TRITON_INTERPRET", _parse_bool, False)
    debug = _SetEnv("TRITON_DEBUG", _parse_bool, False)
    override_arch = _SetEnv("TRITON_OVERRIDE_ARCH", _parse_str, None)


class language_knobs(base_knobs):  # noqa: N801
    default_fp_fusion = _SetEnv("TRITON_DEFAULT_FP_FUSION", _parse_bool, True)
    fp32_default = _SetEnv("TRITON_F32_DEFAULT", _parse_str, None)


class compilation_knobs(base_knobs):  # noqa: N801
    always_compile = _SetEnv("TRITON_ALWAYS_COMPILE", _parse_bool, False)


propagate_env = True
cache = cache_knobs()
runtime = runtime_knobs()
language = language_knobs()
compilation = compilation_knobs()

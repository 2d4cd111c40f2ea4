"""`@jit`, JITFunction and the launch path `kernel[grid](*args, **kwargs)`.

A launch binds the arguments, specializes them (runtime/specialize.py), looks the kernel up
in memory by (function key, specialization, options, code-changing knobs), compiles on a miss
(through the on-disk cache), checks the globals it read are unchanged, and runs it.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import inspect
import re
import textwrap
import threading
import weakref
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from .. import knobs
from ..backends import cpu
from ..compiler import compiler as cc
from . import cache as disk
from . import dependencies as deps
from . import specialize as sp
from .errors import LaunchKeywordError
from .tensors import MockTensor

# Compiles are serialized: the frontend and the IR core are not promised to be re-entrant.
# Launches do not take this lock, so kernels already compiled run concurrently.
_COMPILE_LOCK = threading.RLock()
# Bumped whenever any jit function's source changes, so memoized cache keys of callers that
# reach it are recomputed.
_SRC_EPOCH = [0]


class KernelParam:
    """One parameter of a kernel, with what specialization needs to know about it."""

    def __init__(self, num: int, param: inspect.Parameter, do_not_specialize: bool,
                 do_not_specialize_on_alignment: bool):
        self.num = num
        self._param = param
        self.name = param.name
        self.annotation = param.annotation
        self.is_constexpr = sp.is_constexpr_annotation(param.annotation)
        self.annotation_type = "" if self.is_constexpr else sp.annotation_type(param.annotation)
        self.is_const = self.annotation_type.startswith("*k")
        self.do_not_specialize = do_not_specialize
        self.do_not_specialize_on_alignment = do_not_specialize_on_alignment

    @property
    def default(self):
        return self._param.default

    @property
    def has_default(self) -> bool:
        return self._param.default is not inspect.Parameter.empty

    def __repr__(self):
        return f"KernelParam({self.num}, {self.name!r}, constexpr={self.is_constexpr})"


_CUDA_KEYS: Dict[int, tuple] = {}  # device index -> ("cuda", index): a cache key's device part
_PTX_GPU: list = []  # backends.ptx_gpu once imported (it imports the compiler, which imports us)


def _import_ptx_gpu():
    from ..backends import ptx_gpu

    _PTX_GPU[:] = [ptx_gpu]
    return ptx_gpu


class KernelInterface:
    """`kernel[grid](...)` and `kernel.warmup(...)` for anything with a `run`."""

    def run(self, *args, grid, warmup, **kwargs):
        raise NotImplementedError

    def __getitem__(self, grid) -> Callable:
        def launcher(*args, **kwargs):
            return self.run(*args, grid=grid, warmup=False, **kwargs)

        return launcher

    def warmup(self, *args, grid, **kwargs):
        args = [MockTensor.wrap_dtype(a) for a in args]
        kwargs = {k: MockTensor.wrap_dtype(v) for k, v in kwargs.items()}
        return self.run(*args, grid=grid, warmup=True, **kwargs)


def _names_to_indices(items, arg_names, what) -> set:
    out = set()
    for it in items or ():
        if isinstance(it, str):
            if it not in arg_names:
                raise ValueError(f"{what}: {it!r} is not a parameter")
            out.add(arg_names.index(it))
        else:
            out.add(int(it))
    return out


def _make_binder(name: str, params: List[KernelParam]) -> Callable:
    """A function with the kernel's own parameter list that returns its arguments as a tuple.

    Binding through a real Python signature is the fastest way to apply defaults and keyword
    arguments, and Python's own errors then name the kernel and the missing argument.
    """
    names = ", ".join(p.name for p in params)
    body = f"def {name}({names}):\n    return ({names}{',' if len(params) == 1 else ''})\n"
    ns: Dict[str, Any] = {}
    exec(compile(body, f"<binder of {name}>", "exec"), ns)
    binder = ns[name]
    defaults = [p.default for p in params if p.has_default]
    binder.__defaults__ = tuple(defaults) if defaults else None
    return binder


class JITFunction(KernelInterface):
    """A Python function compiled to a kernel when launched."""

    def __init__(self, fn, version=None, do_not_specialize=None,
                 do_not_specialize_on_alignment=None, debug=None, noinline=None, repr=None,
                 launch_metadata=None, enable_tile=None):
        self.fn = fn
        self.module = fn.__module__
        self.version = version
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__module__ = fn.__module__
        self.__doc__ = fn.__doc__
        self.__globals__ = fn.__globals__
        self.signature = inspect.signature(fn)
        self.arg_names = [p.name for p in self.signature.parameters.values()]
        for p in self.signature.parameters.values():
            if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.POSITIONAL_ONLY):
                raise TypeError(f"@jit function {fn.__name__}: parameter {p.name!r} must be a "
                                "plain positional parameter (no *args, **kwargs, keyword-only)")
        self.do_not_specialize = list(do_not_specialize or [])
        self.do_not_specialize_on_alignment = list(do_not_specialize_on_alignment or [])
        dns = _names_to_indices(do_not_specialize, self.arg_names, "do_not_specialize")
        dnsa = _names_to_indices(do_not_specialize_on_alignment, self.arg_names,
                                 "do_not_specialize_on_alignment")
        self.params = [KernelParam(i, p, i in dns, i in dnsa)
                       for i, p in enumerate(self.signature.parameters.values())]
        for p in self.params:
            if p.is_constexpr and p.do_not_specialize:
                raise TypeError(f"@jit function {fn.__name__}: parameter {p.name!r} is "
                                "tl.constexpr and in do_not_specialize; it cannot be both")
        self.constexprs = [p.num for p in self.params if p.is_constexpr]
        self._runtime_params = tuple(p.num for p in self.params if not p.is_constexpr)
        # What _specialize reads per parameter at every launch, gathered once.
        self._spec_plan = tuple((p.is_constexpr, not p.do_not_specialize,
                                 not p.do_not_specialize_on_alignment, p.annotation_type, p.name)
                                for p in self.params)
        self.debug = debug
        self.noinline = bool(noinline)
        self.repr = repr if repr is not None else (lambda _: fn.__name__)
        self.launch_metadata = launch_metadata
        self.enable_tile = enable_tile
        self.pre_run_hooks: List[Callable] = []
        self.file_name = inspect.getsourcefile(fn) or fn.__code__.co_filename
        try:
            lines, first_line = inspect.getsourcelines(fn)
        except (OSError, TypeError):
            raise ValueError(f"@jit function {fn.__name__}: its source is not available; "
                             "@jit functions should be defined in a Python file") from None
        src = textwrap.dedent("".join(lines))
        match = re.search(r"^def\s+\w+\s*\(", src, re.MULTILINE)
        if match is None:
            raise ValueError(f"@jit function {fn.__name__}: cannot find its `def` line")
        # src starts at `def` (decorators stripped) and starting_line_number is the file line
        # of that `def`, so a node's file line is starting_line_number + node.lineno - 1.
        self.starting_line_number = first_line + src[:match.start()].count("\n")
        self.src = src[match.start():]
        self._binder = _make_binder(fn.__name__, self.params)
        self._fast_spec = None  # _core.LaunchSpecializer, made at the first launch
        self._param_names = frozenset(self.arg_names)
        self.cache: Dict[Any, Any] = {}  # in-memory: key -> (CompiledKernel, global checks)
        self._options_cache: Dict[Any, cpu.CPUOptions] = {}
        self._options_by_call: Dict[Any, cpu.CPUOptions] = {}  # _options' front cache
        # GPU PTX path: (id(stock Triton's kernel), id(options)) -> (it, our kernel that
        # stands for it)
        self._by_stock: Dict[tuple, tuple] = {}
        self._chains = None
        self._hash = None  # (key, the _SRC_EPOCH it was made in), replaced as one object
        self._hash_lock = threading.RLock()
        self._visiting = False

    # --- identity and dependencies ---------------------------------------------------------

    def get_capture_scope(self) -> Dict[str, Any]:
        """Globals overlaid with closure variables: every name the body may read."""
        return deps.capture_scope(self.fn)

    def _references(self):
        if self._chains is None:
            self._chains = deps.external_chains(self.src)
        return deps.resolve(self.fn, self._chains)

    @property
    def cache_key(self) -> str:
        """sha256 of the source, the starting line, the keys of the jit functions it reaches
        (recursively) and the values of the constexpr globals it reads."""
        known = self._hash  # every launch reads this: no lock while the key stands
        if known is not None and known[1] == _SRC_EPOCH[0]:
            return known[0]
        with self._hash_lock:
            known = self._hash
            if known is not None and known[1] == _SRC_EPOCH[0]:
                return known[0]
            if self._visiting:  # recursion: a function reaching itself contributes its name
                return f"recursive:{self.__qualname__}"
            self._visiting = True
            try:
                epoch = _SRC_EPOCH[0]
                h = hashlib.sha256(self.src.encode())
                # (the file too: a Tile cubin's line table names it)
                h.update(f"\nline:{self.starting_line_number}\nfile:{self.file_name}\n".encode())
                for name, value, _ in self._references():
                    if deps.is_jit_function(value):
                        h.update(f"{name}:{value.cache_key}:{value.noinline}\n".encode())
                    else:
                        h.update(f"{name}={deps.stable_repr(value)}\n".encode())
                known = (h.hexdigest(), epoch)
                self._hash = known
                return known[0]
            finally:
                self._visiting = False

    def used_globals(self, _seen=None) -> List[deps.GlobalUse]:
        """Every global this function and its callees read, with a way to read it again."""
        seen = set() if _seen is None else _seen
        if id(self) in seen:
            return []
        seen.add(id(self))
        out = []
        for name, value, getter in self._references():
            out.append(deps.GlobalUse(name, value, getter))
            if deps.is_jit_function(value):
                out.extend(value.used_globals(seen))
        return out

    def _unsafe_update_src(self, new_src: str) -> None:
        """Replace the source (tests template kernels this way); drops compiled kernels."""
        self.src = new_src
        self._chains = None
        self._hash = None
        self.cache.clear()
        _SRC_EPOCH[0] += 1

    def parse(self) -> ast.Module:
        tree = ast.parse(self.src)
        assert isinstance(tree, ast.Module) and len(tree.body) == 1 and \
            isinstance(tree.body[0], ast.FunctionDef)
        return tree

    def add_pre_run_hook(self, hook: Callable) -> None:
        self.pre_run_hooks.append(hook)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Cannot call @triton.jit'd outside of the scope of a kernel")

    def __repr__(self):
        return f"JITFunction({self.module}:{self.fn.__qualname__})"

    # --- launch ----------------------------------------------------------------------------

    def _options(self, opt_kw: dict, env: tuple) -> cpu.CPUOptions:
        """The launch's options; `env` is knobs.code_env_token(), which covers every knob
        _parse_options reads, so a repeated launch costs one dict lookup here."""
        try:
            key = (tuple(opt_kw.items()) if opt_kw else (), env, self.debug, self.enable_tile)
            opts = self._options_by_call.get(key)
        except TypeError:  # an unhashable option value: parse it every time
            key = opts = None
        if opts is None:
            opts = self._parse_options(opt_kw)
            # Kept only if the environment did not change while the knobs were parsed (another
            # thread may set variables): else these options would answer for the old one.
            if key is not None and knobs.code_env_token() == env:
                self._options_by_call[key] = opts
        return opts

    def _parse_options(self, opt_kw: dict) -> cpu.CPUOptions:
        """Options from the launch keywords, the decorator's flags and the knobs; one object per
        distinct set (keyword order aside): JITFunction.run keys caches by it."""
        debug = opt_kw.get("debug")
        if debug is None:
            debug = bool(self.debug)
        debug = debug or knobs.debug  # a non-bool `debug` stays, for CPUOptions to reject
        tile = opt_kw.get("enable_tile")
        if tile is None:
            tile = self.enable_tile if self.enable_tile is not None else knobs.enable_tile
        f32, fusion = knobs.f32_default, knobs.default_fp_fusion
        try:
            key = (tuple(sorted(opt_kw.items())), debug, tile, f32, fusion)
            hash(key)
        except TypeError:
            key = None
        opts = self._options_cache.get(key) if key is not None else None
        if opts is None:
            try:
                opts = cpu.parse_options(opt_kw, debug=debug, enable_tile=tile,
                                         f32_default=f32, fp_fusion=fusion)
            except (TypeError, ValueError) as e:
                raise type(e)(f"{self.__name__}: {e}") from None
            if key is not None:
                self._options_cache[key] = opts
        return opts

    def _specialize(self, bound: tuple, warmup: bool):
        """(specialization key, runtime values, the CUDA buffer the launch runs on or None,
        whether two pointer arguments may share an allocation, the launch addresses or None:
        launch_specializer.h)."""
        fast = self._fast_spec
        if fast is None:
            # The callback holds the function weakly: the C++ object is invisible to the
            # garbage collector, so a strong reference back would keep every kernel alive.
            me = weakref.ref(self)
            fast = self._fast_spec = cpu.core().LaunchSpecializer(
                tuple(plan[:4] for plan in self._spec_plan),
                lambda i, v, warmup: me()._spec_one(i, v, warmup), sp)
        spec_key, runtime, dev, shared, check, addresses = fast(bound, warmup)
        if check:
            dev = sp.launch_device(self.arg_names, runtime, self.__name__)  # raises on mixed
        return spec_key, runtime, dev, shared, addresses

    def _spec_one(self, i: int, v, warmup: bool) -> tuple:
        """(key, runtime value) of argument `i` by the specialization table: what the C++
        LaunchSpecializer asks for every argument it does not decide itself."""
        constexpr, specialize, align, annotation, pname = self._spec_plan[i]
        name = self.__name__
        if constexpr:
            if sp._is_constexpr_obj(v):
                v = v.value
            try:
                return ("constexpr", sp.hashable(v)), sp.CONSTEXPR
            except sp.ArgError as e:
                raise TypeError(f"{name}: argument {pname!r} {e}") from None
        try:
            t, k, rt = sp.specialize_arg(v, specialize, align, annotation, warmup)
            if t == "constexpr":
                k = sp.hashable(k)
        except sp.ArgError as e:
            raise e.exc_type(f"{name}: argument {pname!r} {e}") from None
        return (t, k), rt

    def _specialize_py(self, bound: tuple, warmup: bool):
        """_specialize in Python only: the reference the C++ specializer is tested against."""
        spec_key, runtime = [], []
        dev = None  # the first CUDA buffer
        host = check = False  # check: tuples or two devices seen, launch_device sorts it out
        seen = set()  # buffers by allocation: a repeat may alias (sp.alias_classes decides)
        shared = False
        for i, v in enumerate(bound):
            key, rt = self._spec_one(i, v, warmup)
            spec_key.append(key)
            runtime.append(rt)
            cls = type(rt)
            if cls is sp.HostBuffer:
                host = True
                shared = shared or rt.lo in seen
                seen.add(rt.lo)
            elif cls is sp.DeviceBuffer:
                check = check or (dev is not None and rt.device != dev.device)
                dev = dev or rt
                shared = shared or rt.lo in seen
                seen.add(rt.lo)
            elif cls is tuple:
                check = shared = True
        addresses = None
        if check or (host and dev is not None):
            dev = sp.launch_device(self.arg_names, runtime, self.__name__)  # raises on mixed
        elif dev is not None and all(rt.owner == "torch" for rt in runtime
                                     if type(rt) is sp.DeviceBuffer):
            addresses = [b if rt is sp.CONSTEXPR else rt.ptr if type(rt) is sp.DeviceBuffer
                         else rt for b, rt in zip(bound, runtime)]
        return tuple(spec_key), runtime, dev, shared, addresses

    def _frontend_spec(self, bound: tuple, spec_key: tuple) -> cc.Specialization:
        signature, constants, attrs, types = {}, {}, {}, []
        for p, v, (t, k) in zip(self.params, bound, spec_key):
            types.append(t)
            if t == "constexpr":
                constants[p.name] = v.value if sp._is_constexpr_obj(v) else (
                    int(v) if isinstance(v, np.integer) else v)
                continue
            signature[p.name] = t
            if isinstance(t, tuple):
                constants[p.name] = sp.tuple_constants(v, t)
            elif k == "D":
                attrs[p.name] = [("tt.divisibility", 16)]
        return cc.Specialization(signature, constants, attrs, tuple(types))

    def run(self, *args, grid, warmup, **kwargs):
        for hook in self.pre_run_hooks:
            hook(*args, **kwargs)
        opt_kw = {}
        if kwargs:
            param_kw = {}
            for k, v in kwargs.items():
                if k in self._param_names:
                    param_kw[k] = v
                elif k in cpu.OPTION_NAMES:
                    opt_kw[k] = v
                elif k in cpu.DEPRECATED_OPTIONS:
                    raise LaunchKeywordError(f"{self.__name__}: keyword argument {k!r} is "
                                             "deprecated and not supported: the device "
                                             "follows the arguments")
                elif k not in cpu.IGNORED_OPTIONS:
                    raise LaunchKeywordError(f"{self.__name__}: keyword argument {k!r} was "
                                             "specified but unrecognised: it is neither a "
                                             "parameter nor a launch option")
            bound = self._binder(*args, **param_kw)
        else:
            bound = self._binder(*args)
        env = knobs.code_env_token()
        options = self._options(opt_kw, env)
        stock = None
        ptx_gpu = _PTX_GPU[0] if _PTX_GPU else _import_ptx_gpu()
        # (Where stock's launcher is called directly, our own path is the faster one:
        # PTXGPUKernel.launch_device.)
        twin = None if warmup or options.enable_tile or ptx_gpu.direct_launch_known() else \
            ptx_gpu.current_twin(self)
        on = None if twin is None else self._cuda_device(bound)
        if on is not None:
            # The GPU's PTX path hands the launch to stock Triton, which specializes and
            # caches on its own: ours would only repeat that work (launch overhead 3x stock's)
            # to find the kernel object to return. Launch first, then look it up by the stock
            # kernel that ran; a stock kernel not seen yet takes the path below, not launching.
            if callable(grid):
                grid = grid(dict(zip(self.arg_names, bound)))
            with ptx_gpu.on_device(on):
                stock = ptx_gpu.launch_twin(twin, cc.normalize_grid(grid, self.__name__),
                                            self._stock_args(bound), opt_kw)
            hit = self._by_stock.get((id(stock), id(options)))
            if hit is not None and hit[0] is stock:
                hit[1].ran(stock)
                return hit[1]
            warmup = True
        # The executor follows the data: CUDA arrays run on their GPU, host arrays on the CPU;
        # a warmup with TRITON_TILE_TARGET set compiles for that GPU with none present.
        fast = self._fast_spec  # (self._specialize, inlined: every launch comes here)
        if fast is not None:
            spec_key, runtime, buf, shared, check, addresses = fast(bound, warmup)
            if check:
                buf = sp.launch_device(self.arg_names, runtime, self.__name__)
        else:
            spec_key, runtime, buf, shared, addresses = self._specialize(bound, warmup)
        if buf is not None:
            device = _CUDA_KEYS.get(buf.device) or _CUDA_KEYS.setdefault(buf.device,
                                                                         ("cuda", buf.device))
        else:
            device = ("aot", knobs.target) if warmup and knobs.target else None
            if device is not None and not options.enable_tile:
                options = self._aot_options(options, opt_kw, device[1])
        if options.enable_tile and shared:
            aliased = sp.alias_classes(runtime)
            if aliased:  # part of the specialization: the key and the Tile IR's tokens
                options = dataclasses.replace(options, alias_classes=aliased)
        key = (self.cache_key, spec_key, options, env, device)
        entry = self.cache.get(key)
        if entry is None:
            entry = self._compile(key, bound, spec_key, options, device)
        kernel, checks = entry
        if checks:
            self._check_globals(checks)
        if not warmup:
            written = getattr(kernel, "written", ())  # GPU kernels: CUDA memory has no flag
            if written:
                sp.check_writable(self.__name__, self.arg_names, bound, written)
            if callable(grid):
                grid = grid(dict(zip(self.arg_names, bound)))
            if buf is None:
                if options.debug:  # each array argument checked against its own extent
                    runtime = sp.debug_extents(bound, runtime)
                kernel.launch(cc.normalize_grid(grid, self.__name__),
                              cc.executor_args(sp.flatten_runtime(runtime)))
            else:
                kernel.launch_device(cc.normalize_grid(grid, self.__name__), runtime, buf,
                                     bound, opt_kw, addresses)
        elif buf is not None and hasattr(kernel, "warmup_device"):
            kernel.warmup_device(grid, buf, bound, opt_kw)
        if stock is not None and getattr(kernel, "path_of_stock", False):
            kernel.ran(stock)
            self._by_stock[(id(stock), id(options))] = (stock, kernel)
        return kernel

    def _aot_options(self, options, opt_kw: dict, target: str):
        """Options of an ahead-of-time warmup for `target`: only the Tile path compiles ahead
        of time (stock Triton compiles the PTX path on the GPU machine itself), so the target
        implies it, unless the launch or the decorator turned it off."""
        off = opt_kw.get("enable_tile") is False or (opt_kw.get("enable_tile") is None
                                                     and self.enable_tile is False)
        if off:
            raise ValueError(f"{self.__name__}: TRITON_TILE_TARGET={target} compiles ahead of "
                             "time for the Tile path only, but enable_tile=False asks for the "
                             "PTX path, which stock Triton compiles on the GPU machine; drop "
                             "enable_tile=False or unset TRITON_TILE_TARGET")
        return dataclasses.replace(options, enable_tile=True)

    def _stock_args(self, bound: tuple) -> list:
        """Arguments that passed _cuda_device, as stock Triton takes them: only constexprs (a
        dtype of ours, a constexpr object) need translating; tensors and scalars pass as is."""
        args = list(bound)
        for i in self.constexprs:
            args[i] = _PTX_GPU[0].arg_to_stock(args[i])
        return args

    @staticmethod
    def _check_globals(checks) -> None:
        for use in checks:
            cur = use.getter()
            if not deps.same_value(cur, use.value):
                raise RuntimeError(f"Global variable {use.name} has changed since we compiled "
                                   f"this kernel, from {use.value!r} to {cur!r}")

    def _cuda_device(self, bound: tuple) -> Optional[int]:
        """The device index when every array argument is a torch CUDA tensor on that one
        device and the rest are Python scalars (what stock Triton takes as they are): the PTX
        path's fast launch. None otherwise."""
        device = None
        for i in self._runtime_params:
            v = bound[i]
            if v is None:
                continue
            t = type(v)
            if t in sp._TORCH_CUDA_TYPES:
                if not v.is_cuda:
                    return None
                d = v.get_device()
                if device is not None and d != device:
                    return None  # two devices: our path raises the error first
                device = d
            elif t is not int and t is not float and t is not bool:
                return None
        return device

    def _compile(self, key, bound, spec_key, options, device=None):
        with _COMPILE_LOCK:
            entry = self.cache.get(key)
            if entry is not None:
                return entry
            spec = self._frontend_spec(bound, spec_key)
            checks = tuple(self.used_globals())
            if device is not None:  # a GPU's arrays, or an ahead-of-time target
                from ..backends.tile_gpu import arch_of
                from ..compiler import driver

                kernel = driver.compile(self, spec, options, device, arch_of(device),
                                        cc.frontend)
            else:
                dkey, material = disk.cache_key(self, spec, options)
                kernel = self._sibling(spec_key, options, dkey)
                if kernel is None:
                    kernel = cc.compile_cached(self, spec, options, dkey, material)
            self.cache[key] = (kernel, checks)
            return kernel, checks

    def _sibling(self, spec_key, options, dkey):
        """A kernel compiled from the same code under options that only change metadata
        (num_warps, num_stages, ... on the CPU path): share its program, skip a compile."""
        if options.enable_tile:
            return None
        for (ck, sk, opts, env, dev), (kernel, _) in list(self.cache.items()):
            if dev is None and ck == self.cache_key and sk == spec_key and \
                    env == knobs.code_env_token() and cpu.same_code(opts, options):
                return kernel.with_options(options, dkey)
        return None


def jit(fn=None, *, version=None, repr=None, launch_metadata=None, do_not_specialize=None,
        do_not_specialize_on_alignment=None, debug=None, noinline=None, enable_tile=None):
    """Decorate a kernel: `@jit` or `@jit(do_not_specialize=["n"], ...)`."""

    def decorator(f):
        return JITFunction(f, version=version, do_not_specialize=do_not_specialize,
                           do_not_specialize_on_alignment=do_not_specialize_on_alignment,
                           debug=debug, noinline=noinline, repr=repr,
                           launch_metadata=launch_metadata, enable_tile=enable_tile)

    return decorator(fn) if fn is not None else decorator


class ConstexprFunction:
    """A plain Python function a kernel may call on constexpr values at compile time (the
    frontend calls `.fn` and wraps the result as a constexpr); on the host it is the function.
    """

    __triton_tile_constexpr_function__ = True

    def __init__(self, fn):
        self.fn = fn
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__

    def __call__(self, *args, **kwargs):
        def unwrap(v):
            return v.value if sp._is_constexpr_obj(v) else v

        return self.fn(*map(unwrap, args), **{k: unwrap(v) for k, v in kwargs.items()})

    def __repr__(self):
        return f"ConstexprFunction({self.__qualname__})"


def constexpr_function(fn) -> ConstexprFunction:
    return ConstexprFunction(fn)


def _cdiv(x, y):
    return (x + y - 1) // y


def _next_power_of_2(n):
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


cdiv = constexpr_function(_cdiv)
cdiv.__doc__ = "Ceiling division: the number of blocks of size y covering x."
# On tensors inside a kernel, triton.cdiv(n, BLOCK) means tl.cdiv (the frontend reads this).
cdiv.tensor_form = "cdiv"
next_power_of_2 = constexpr_function(_next_power_of_2)
next_power_of_2.__doc__ = "The smallest power of two >= n (1 for n <= 1)."


def must_use_result(x, s=True):
    """Mark a language function's result as one that must be used (kept for compatibility)."""
    if isinstance(x, str):
        return lambda fn: must_use_result(fn, x)
    x._must_use_result = s
    return x


__all__ = ["jit", "JITFunction", "KernelInterface", "KernelParam", "ConstexprFunction",
           "constexpr_function", "cdiv", "next_power_of_2", "must_use_result"]

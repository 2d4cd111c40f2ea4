"""`@autotune`, `Config` and `@heuristics`, with Triton's behaviour (reference §3.1-3.2)."""

from __future__ import annotations

import builtins
import hashlib
import json
import os
import threading
import time
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from .. import knobs
from .errors import AutotunerError, OutOfResources
from .jit import JITFunction, KernelInterface


class Config:
    """One point of the search space: meta-parameters plus launch options."""

    def __init__(self, kwargs: Dict[str, Any], num_warps: int = 4, num_stages: int = 3,
                 num_ctas: int = 1, maxnreg: Optional[int] = None,
                 pre_hook: Optional[Callable] = None, occupancy: Optional[int] = None,
                 ir_override: Optional[str] = None, grid_stride: Optional[bool] = None):
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.occupancy = occupancy
        self.grid_stride = grid_stride  # Tile path: a persistent loop as a grid of items
        self.ir_override = ir_override
        self.pre_hook = pre_hook

    def _options(self):
        return (("num_warps", self.num_warps), ("num_ctas", self.num_ctas),
                ("num_stages", self.num_stages), ("maxnreg", self.maxnreg),
                ("occupancy", self.occupancy), ("grid_stride", self.grid_stride),
                ("ir_override", self.ir_override))

    def all_kwargs(self) -> Dict[str, Any]:
        """Meta-parameters merged with the options that are set: what reaches `fn.run`."""
        return {**self.kwargs, **{k: v for k, v in self._options() if v is not None}}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__dict__.setdefault("grid_stride", None)  # (pickled before it existed)

    def __str__(self):
        parts = [f"{k}: {v}" for k, v in self.kwargs.items()]
        parts += [f"num_warps: {self.num_warps}", f"num_ctas: {self.num_ctas}",
                  f"num_stages: {self.num_stages}", f"maxnreg: {self.maxnreg}"]
        if self.occupancy is not None:
            parts.append(f"occupancy: {self.occupancy}")
        if self.grid_stride is not None:
            parts.append(f"grid_stride: {self.grid_stride}")
        return ", ".join(parts)

    def __repr__(self):
        return f"Config({self})"

    def _key(self):
        items = []
        for k, v in sorted(self.all_kwargs().items()):
            try:
                hash(v)
            except TypeError:
                v = repr(v)
            items.append((k, v))
        return tuple(items), self.pre_hook

    def __hash__(self):
        return hash(self._key())

    def __eq__(self, other):
        return isinstance(other, Config) and self._key() == other._key()


# --- buffers touched by reset_to_zero / restore_value (numpy or torch, no torch import) ----

def _zero(x) -> None:
    if hasattr(x, "zero_"):
        x.zero_()
    else:
        np.asarray(x)[...] = 0


def _clone(x):
    return x.clone() if hasattr(x, "clone") else np.array(x, copy=True)


def _copy_into(dst, src) -> None:
    if hasattr(dst, "copy_"):
        dst.copy_(src)
    else:
        np.asarray(dst)[...] = src


def _base_fn(fn):
    while not isinstance(fn, JITFunction) and hasattr(fn, "fn"):
        fn = fn.fn
    return fn


def _compile_failures() -> tuple:
    """Errors that mean 'this config cannot run here': scored as infinitely slow."""
    errs = [OutOfResources]
    try:
        from ..compiler import errors as ce

        cta = getattr(ce, "CompileTimeAssertionFailure", None)
        if cta is not None:
            errs.append(cta)
    except ImportError:
        pass
    return tuple(errs)


class Autotuner(KernelInterface):
    def __init__(self, fn, arg_names, configs, key, reset_to_zero=None, restore_value=None,
                 pre_hook=None, post_hook=None, prune_configs_by: Optional[Dict] = None,
                 warmup=None, rep=None, use_cuda_graph=False, do_bench=None,
                 cache_results=False):
        self.fn = fn
        self.base_fn = _base_fn(fn)
        self.arg_names = list(arg_names)
        self.configs = list(configs) if configs else [Config({})]
        self.keys = list(key)
        self.cache: Dict[tuple, Config] = {}
        self.configs_timings: Optional[Dict[Config, Any]] = None
        self.bench_time = 0.0
        self.best_config: Optional[Config] = None
        # The arguments of the launch in progress, and the values restore_value saved, are
        # per thread: threads launching one kernel at once each see their own (stock Triton
        # shares them and fails, its issue 11494).
        self._local = threading.local()
        # Held while benchmarking: threads that need the same key wait and reuse the winner,
        # so each key is tuned once.
        self._tuning = threading.RLock()
        self.cache_results = cache_results
        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        for name in self.reset_to_zero + self.restore_value:
            if name not in self.arg_names:
                raise ValueError(f"autotune: {name!r} is not a parameter of "
                                 f"{self.base_fn.__name__}")
        self.pre_hook = pre_hook if pre_hook is not None else self._default_pre_hook
        self.post_hook = post_hook if post_hook is not None else self._default_post_hook
        prune = prune_configs_by or {}
        self.perf_model = prune.get("perf_model")
        self.configs_top_k = prune.get("top_k", 1.0)
        self.early_config_prune = prune.get("early_config_prune")
        if do_bench is None:
            from .. import testing

            if warmup is not None or rep is not None:  # deprecated, still honoured
                def do_bench(fn, quantiles=None, _w=warmup or 25, _r=rep or 100):
                    return testing.do_bench(fn, warmup=_w, rep=_r, quantiles=quantiles)
            else:
                do_bench = testing.do_bench
        self.do_bench = do_bench

    @property
    def nargs(self) -> Optional[Dict[str, Any]]:
        return getattr(self._local, "nargs", None)

    @nargs.setter
    def nargs(self, value) -> None:
        self._local.nargs = value

    @property
    def restore_copies(self) -> Dict[str, Any]:
        return getattr(self._local, "restore_copies", {})

    @restore_copies.setter
    def restore_copies(self, value) -> None:
        self._local.restore_copies = value

    # reset_to_zero / restore_value, Triton's default hooks
    def _default_pre_hook(self, kwargs, reset_only=False):
        for name in self.reset_to_zero:
            _zero(kwargs[name])
        if not reset_only:
            self.restore_copies = {name: _clone(kwargs[name]) for name in self.restore_value}

    def _default_post_hook(self, kwargs, exception):
        for name in self.restore_value:
            if name in self.restore_copies:
                _copy_into(kwargs[name], self.restore_copies[name])
        self.restore_copies = {}

    def _bench(self, *args, config: Config, **meta):
        verbose = knobs.print_autotuning
        if verbose:
            print(f"Autotuning kernel {self.base_fn.__name__} with config {config}")
        user = {k: v for k, v in meta.items() if k not in ("grid", "warmup")}
        conflicts = user.keys() & config.kwargs.keys()
        if conflicts:
            raise ValueError(f"Conflicting meta-parameters: {', '.join(sorted(conflicts))}. "
                             "Make sure that you don't re-define auto-tuned symbols.")
        current = dict(meta, **config.all_kwargs())
        full_nargs = {**self.nargs, **current}

        def kernel_call():
            if config.pre_hook is not None:
                config.pre_hook(full_nargs)
            self.pre_hook(full_nargs)
            try:
                hooked_args, hooked_kwargs = self._after_hook(args, current, full_nargs)
                self.fn.run(*hooked_args, **hooked_kwargs)
            except Exception as e:
                try:
                    self.post_hook(full_nargs, exception=e)
                finally:
                    raise
            self.post_hook(full_nargs, exception=None)

        try:
            return self.do_bench(kernel_call, quantiles=(0.5, 0.2, 0.8))
        except _compile_failures() as e:
            if verbose:
                print(f"Autotuning failed with {e}")
            return [float("inf")] * 3

    def _tuning_key(self, args, kwargs) -> tuple:
        all_args = {**self.nargs, **kwargs}
        named = {k: v for k, v in all_args.items() if k in self.arg_names}
        key = [named[k] for k in self.keys if k in named]
        for v in named.values():
            if hasattr(v, "dtype"):
                key.append(str(v.dtype))
        return tuple(key)

    def run(self, *args, **kwargs):
        self.nargs = dict(zip(self.arg_names, args))
        benchmarked = False
        if len(self.configs) > 1:
            key = self._tuning_key(args, kwargs)
            config = self.cache.get(key)
            if config is None:
                with self._tuning:
                    benchmarked = self._tune(key, args, kwargs)
                config = self.cache[key]
        else:
            key = None
            config = self.configs[0]
        self.best_config = config
        if benchmarked and knobs.print_autotuning:
            print(f"Triton autotuning for function {self.base_fn.__name__},\n"
                  f"with key as {key},\n"
                  f"finished after {self.bench_time:.2f}s,\n"
                  f"best config selected: {config};")
        current = {**kwargs, **config.all_kwargs()}
        full_nargs = {**self.nargs, **current}
        if config.pre_hook is not None:
            config.pre_hook(full_nargs)
        try:
            hooked_args, hooked_kwargs = self._after_hook(args, current, full_nargs)
            return self.fn.run(*hooked_args, **hooked_kwargs)
        finally:
            self.nargs = None

    def _tune(self, key, args, kwargs) -> bool:
        """Benchmark the configs for `key` unless another thread already did (or a stored
        result has it); whether this call benchmarked. Called holding self._tuning."""
        if key in self.cache or self._load_results(key):
            return False
        pruned = self.prune_configs(kwargs)
        start = time.time()
        timings = {c: self._bench(*args, config=c, **kwargs) for c in pruned}
        self.bench_time = time.time() - start
        self.configs_timings = timings
        best = builtins.min(timings, key=lambda c: _median(timings[c]))
        self.pre_hook({**self.nargs, **kwargs, **best.all_kwargs()}, reset_only=True)
        self.cache[key] = best
        self._store_results(key, timings)
        return True

    def _after_hook(self, args, kwargs, full_nargs):
        """The launch arguments after the pre-hooks: a hook that rebinds an argument in the
        dict it gets (`nargs["NUM_SMS"] //= nargs["num_ctas"]`, NVIDIA's advice for 2-CTA
        persistent kernels) changes what the kernel receives, as it reads."""
        hooked = tuple(full_nargs.get(name, a) for name, a in zip(self.arg_names, args))
        return hooked, {k: full_nargs.get(k, v) for k, v in kwargs.items()}

    def prune_configs(self, kwargs) -> List[Config]:
        pruned = self.configs
        if self.early_config_prune:
            pruned = self.early_config_prune(self.configs, self.nargs, **kwargs)
            if not pruned:
                raise AutotunerError("No valid autotuner configs after pruning. "
                                     "`early_config_prune` should return at least one config.")
        if self.perf_model:
            top_k = self.configs_top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = max(1, int(len(self.configs) * top_k))
            elif not isinstance(top_k, int):
                raise TypeError("top_k must be an int, or a float <= 1.0 (a fraction)")
            if len(pruned) > top_k:
                est = {c: self.perf_model(**self.nargs, **kwargs, **c.all_kwargs())
                       for c in pruned}
                pruned = sorted(est, key=est.get)[:top_k]
        return list(pruned)

    def warmup(self, *args, **kwargs):
        self.nargs = dict(zip(self.arg_names, args))
        try:
            return [self.fn.warmup(*args, **kwargs, **c.all_kwargs())
                    for c in self.prune_configs(kwargs)]
        finally:
            self.nargs = None

    # --- cache_results / TRITON_CACHE_AUTOTUNING ------------------------------------------

    def _results_path(self, key) -> Optional[str]:
        if not (self.cache_results or knobs.cache_autotuning):
            return None
        if any(c.pre_hook is not None for c in self.configs):
            return None  # a hook's effect cannot be captured in a file
        from . import cache as disk

        text = json.dumps({"fn": self.base_fn.cache_key, "compiler": disk.compiler_fingerprint(),
                           "env": list(knobs.code_env()), "key": [repr(k) for k in key],
                           "configs": [str(c) for c in self.configs]}, default=str)
        digest = hashlib.sha256(text.encode()).hexdigest()
        return os.path.join(knobs.cache_dir, "autotune",
                            f"{self.base_fn.__name__[:100]}-{digest}.autotune.json")

    def _load_results(self, key) -> bool:
        path = self._results_path(key)
        if path is None or knobs.always_compile:
            return False
        try:
            with open(path) as f:
                data = json.load(f)
            self.cache[key] = self.configs[int(data["best"])]
            return True
        except (OSError, ValueError, KeyError, IndexError):
            return False

    def _store_results(self, key, timings) -> None:
        path = self._results_path(key)
        if path is None:
            return
        best = self.configs.index(self.cache[key])
        data = {"best": best, "best_config": str(self.cache[key]),
                "timings": {str(c): timings[c] for c in timings}}
        tmp = f"{path}.tmp.{os.getpid()}"
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(tmp, "w") as f:
                json.dump(data, f, default=str)
            os.replace(tmp, path)
        except OSError:
            pass


def _median(t) -> float:
    return t[0] if isinstance(t, (list, tuple)) else t


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None,
             pre_hook=None, post_hook=None, warmup=None, rep=None, use_cuda_graph=False,
             do_bench=None, cache_results=False):
    """Benchmark `configs` for every new value of the `key` arguments; launch the fastest."""

    def decorator(fn):
        return Autotuner(fn, fn.arg_names, configs, key, reset_to_zero, restore_value,
                         pre_hook=pre_hook, post_hook=post_hook,
                         prune_configs_by=prune_configs_by, warmup=warmup, rep=rep,
                         use_cuda_graph=use_cuda_graph, do_bench=do_bench,
                         cache_results=cache_results)

    return decorator


class Heuristics(KernelInterface):
    """Computes meta-parameters from the other arguments at each launch."""

    def __init__(self, fn, arg_names, values: Dict[str, Callable[[dict], Any]]):
        self.fn = fn
        self.values = values
        self.arg_names = list(arg_names)

    def run(self, *args, **kwargs):
        for name, heur in self.values.items():
            kwargs[name] = heur({**dict(zip(self.arg_names, args)), **kwargs})
        return self.fn.run(*args, **kwargs)


def heuristics(values: Dict[str, Callable[[dict], Any]]):
    """`@heuristics({"BLOCK": lambda args: next_power_of_2(args["N"])})` over `@jit`."""

    def decorator(fn):
        return Heuristics(fn, fn.arg_names, values)

    return decorator

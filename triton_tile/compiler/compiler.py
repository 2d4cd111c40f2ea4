"""The compile drivers' front: the frontend every backend starts with, and the CPU entries.

    compile_kernel:  Python function --frontend--> TTIR --TTIR_PASSES--> backend_stages
    backend_stages:  the compile driver (driver.py) runs the CPU backend's stages
                     (backends/cpu_backends.py): cpu-tile, falling back loudly to cpu-ttir

`compile_kernel` is what the JIT calls once per specialization for host arrays (through
`compile_cached`, the CPU backends' cache policy, which reruns `backend_stages` alone on a
disk hit); `compile` is
the AOT entry. GPU launches go through driver.compile (gpu-tile, gpu-ptx) with the same
frontend. The compiled-kernel object and what the stages share live in kernel.py.
"""

from __future__ import annotations

import hashlib
import os
from typing import Dict, Optional

from .. import knobs
from ..backends import cpu
from ..runtime import cache as disk
from .ir_graph import written_arg_indices
from .kernel import (  # noqa: F401 - re-exported: compiler.CompiledKernel and friends
    GRID_LIMITS,
    PTX_PASSES,
    TTIR_PASSES,
    CompiledKernel,
    KernelMetadata,
    Specialization,
    _dump,
    executor_args,
    make_metadata,
    normalize_grid,
    ttir_asm,
)


def frontend(jit_fn, spec: Specialization, options, key: Optional[str] = None):
    """The stages every backend starts with: the Python function to TTIR (dumped as `source`),
    then TTIR_PASSES. (module, key): `key` names the dumps, by default the TTIR's hash."""
    from .frontend import ast_to_ttir

    module = ast_to_ttir(jit_fn, spec.signature, spec.constants, spec.attrs, options)
    key = key or hashlib.sha256(str(module).encode()).hexdigest()
    _dump(jit_fn.__name__, key, "source", str(module))
    cpu.core().run_passes(module, TTIR_PASSES)
    return module, key


def compile_kernel(jit_fn, spec: Specialization, options, key: Optional[str] = None
                   ) -> CompiledKernel:
    module, key = frontend(jit_fn, spec, options, key)
    return named_by_repr(backend_stages(module, jit_fn.__name__, key, options, spec.param_types),
                         jit_fn, spec)


def compile_cached(jit_fn, spec, options, key: str, material: dict):
    """The CPU backends' cache policy: the compiled kernel for `key` (runtime/cache.py
    cache_key), from a disk entry when that can skip work (its located TTIR is reparsed and the
    backend's stages rerun: the frontend is skipped), else compiled and stored."""
    store = disk.DiskCache(knobs.cache_dir)
    name = jit_fn.__name__
    if not knobs.always_compile:
        entry = store.load(key, name)
        if entry is not None and disk.LOCATED_TTIR in entry["asm"]:
            try:
                # The frontend is skipped; the backend stages rerun from the stored TTIR.
                module = cpu.core().parse_ttir(entry["asm"][disk.LOCATED_TTIR], f"{name}.ttir")
                return named_by_repr(
                    backend_stages(module, name, key, options, spec.param_types), jit_fn, spec)
            except Exception:  # an entry we cannot load is a miss, never an error
                pass
    kernel = compile_kernel(jit_fn, spec, options, key=key)
    files = dict(kernel.asm)
    if kernel.located_ttir:
        files[disk.LOCATED_TTIR] = kernel.located_ttir
    existing = store.load(key, name)
    if existing is None or existing["asm"] != files:
        store.store(key, name, files, kernel.metadata._asdict(), material)
    return kernel


def named_by_repr(kernel: CompiledKernel, jit_fn, spec: Specialization) -> CompiledKernel:
    """`@jit(repr=f)`: the compiled kernel is called `f(specialization)` (which sees
    `.signature` and `.constants`, ints specialized to 1 included), as in Triton, where the
    name tells specializations apart in profiles and tests. The function in the IR keeps its
    own name."""
    rep = getattr(jit_fn, "repr", None)
    if rep is None:
        return kernel
    display = rep(spec)
    if isinstance(display, str) and display and display != kernel.name:
        kernel.name = display
        kernel.metadata = kernel.metadata._replace(name=display)
    return kernel


def backend_stages(module, name: str, key: str, options, param_types) -> CompiledKernel:
    """From inlined TTIR to a runnable CPU kernel: the compile driver runs the backend's stages
    (backends/cpu_backends.py: the Tile path when asked for and possible, else, loudly, the
    PTX-style path)."""
    from ..backends import cpu_backends
    from . import driver

    state = cpu_backends.start(module, name, key, options, param_types,
                               written_arg_indices(module, name))
    return driver.run(driver.select(options), state)


class ASTSource:
    """A function plus an explicit signature, for ahead-of-time `triton_tile.compile`."""

    def __init__(self, fn, signature: Dict[str, str], constexprs: Optional[dict] = None,
                 attrs: Optional[dict] = None):
        self.fn = fn
        self.signature = dict(signature)
        self.constexprs = {(k[0] if isinstance(k, tuple) else k): v
                           for k, v in (constexprs or {}).items()}
        self.attrs = attrs or {}

    def specialization(self) -> Specialization:
        names = self.fn.arg_names
        consts = {}
        for k, v in self.constexprs.items():
            consts[names[k] if isinstance(k, int) else k] = v
        sig, types = {}, []
        for n in names:
            t = self.signature.get(n, "constexpr")
            if n in consts or t == "constexpr":
                types.append("constexpr")
            else:
                sig[n] = t
                types.append(t)
        attrs = {}
        for k, v in self.attrs.items():
            attrs[names[k[0]] if isinstance(k, tuple) else k] = list(v)
        return Specialization(sig, consts, attrs, tuple(types))


def compile(src, target=None, options=None) -> CompiledKernel:  # noqa: A001 - Triton's name
    """Compile ahead of time: `src` is an ASTSource or the path of a .ttir file."""
    if target is not None and getattr(target, "backend", "cpu") != "cpu":
        raise NotImplementedError(f"target {target}: only the CPU target is built so far")
    opts = cpu.parse_options(dict(options or {}), debug=knobs.debug, enable_tile=knobs.enable_tile,
                             f32_default=knobs.f32_default, fp_fusion=knobs.default_fp_fusion)
    if isinstance(src, (str, os.PathLike)):
        return _compile_ttir_file(os.fspath(src), opts)
    spec = src.specialization()
    return compile_kernel(src.fn, spec, opts)


def _ir_type_string(t) -> str:
    """Triton's type string for an IR argument type (enough for launching)."""
    if t.is_ptr:
        return "*" + _ir_type_string(t.pointee)
    name = t.name
    if t.is_int:
        return "u1" if name == "i1" else name
    return {"f16": "fp16", "bf16": "bf16", "f32": "fp32", "f64": "fp64"}.get(name, name)


def _compile_ttir_file(path: str, options) -> CompiledKernel:
    """`compile("kernel.ttir")`: a TTIR file (e.g. a cache entry or a dump, hand-edited) to a
    kernel launched as `k[grid](*args)` with one argument per `tt.func` parameter."""
    if not path.endswith(".ttir"):
        raise ValueError(f"compile({path!r}): only .ttir files can be compiled so far")
    _core = cpu.core()
    with open(path) as f:
        text = f.read()
    module = _core.parse_ttir(text, path)
    funcs = module.funcs
    public = [f for f in funcs if f.attr("sym_visibility") != "private"] or funcs
    name = public[0].attr("sym_name")
    types = [_ir_type_string(t) for t in public[0].attr("function_type").inputs]
    _core.run_passes(module, TTIR_PASSES)
    key = hashlib.sha256(text.encode()).hexdigest()
    return backend_stages(module, name, key, options, types)

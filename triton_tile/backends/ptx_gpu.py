"""The PTX-style path on NVIDIA GPUs: the same Python function, compiled by stock Triton.

With ENABLE_TILE unset (or when the Tile path falls back) a kernel launched on CUDA arrays is
re-created from its own code object with `triton` and `tl` bound to stock Triton's modules:
its globals (the names the code reads) and closure cells are translated, so jit functions it
calls become stock twins too, `tl.constexpr` globals become stock constexprs, and our
`triton_tile.X` modules become `triton.X`. The twin is launched with the same arguments, grid
and options; stock Triton then does its own specialization, caching and launch, on torch's
current stream.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import sys
import textwrap
import threading
import types
from typing import Any, Callable, Dict, NamedTuple, Optional

from ..compiler import driver, errors
from ..compiler import kernel as cc
from . import cpu

INSTALL_HINT = ("the PTX path on a GPU runs kernels through stock Triton: pip install triton "
                "(with a CUDA build of torch), or use the Tile path (ENABLE_TILE=1)")
_OURS_ONLY = cpu.TILE_ONLY_OPTIONS  # (stock Triton would reject them)

# id(our JITFunction) -> (ours, its source, stock twin, (global name, value) pairs copied,
# closure cell values, the jit functions among those): what _current checks on every launch.
_TWINS: Dict[int, tuple] = {}
_LOCK = threading.RLock()


def stock_triton():
    """Stock Triton's package, or an ImportError saying how to get it."""
    try:
        import triton
        import triton.language  # noqa: F401
    except ImportError as e:
        raise ImportError(f"stock Triton is not installed ({e}); {INSTALL_HINT}") from None
    return triton


def to_stock(v: Any) -> Any:
    """A compile-time value (global, closure cell or constexpr argument) in stock terms."""
    triton = stock_triton()
    if isinstance(v, type) and v.__module__.startswith("triton_tile."):
        # A class of ours, e.g. the `tl.constexpr` of a parameter annotation.
        return getattr(triton.language, v.__name__, v)
    if isinstance(v, types.ModuleType):
        name = v.__name__
        if name == "triton_tile" or name.startswith("triton_tile."):
            try:
                return importlib.import_module("triton" + name[len("triton_tile"):])
            except ImportError:
                return v
        return v
    mod = type(v).__module__
    if not mod.startswith("triton_tile"):
        if isinstance(v, (tuple, list)) and not hasattr(v, "_fields"):
            return type(v)(to_stock(x) for x in v)
        return v
    tl = triton.language
    name = type(v).__name__
    if name == "JITFunction":
        return twin_of(v)
    if name == "ConstexprFunction":
        return triton.constexpr_function(v.fn)
    if name == "constexpr":
        return tl.constexpr(to_stock(v.value))
    if name == "pointer_type":
        return tl.pointer_type(to_stock(v.element_ty), v.address_space, v.const)
    if name == "dtype":
        return tl.dtype(v.name)
    return v


def _current(hit, jit_fn, seen=None) -> bool:
    """Whether a twin still stands for `jit_fn`: same source, every global and closure cell it
    copied still the same object (the twin reads copies: a value rebound since would be stale),
    and the same of every jit function it calls."""
    if hit is None or hit[0] is not jit_fn or hit[1] != jit_fn.src:
        return False
    fn = jit_fn.fn
    g = fn.__globals__
    for name, value in hit[3]:  # (loops, not all(...): this runs at every PTX launch)
        if g.get(name, _MISSING) is not value:
            return False
    if hit[4]:
        for a, b in zip(_cell_values(fn), hit[4]):
            if a is not b:
                return False
    for callee in hit[5]:
        if seen is None:
            seen = {id(jit_fn)}
        if id(callee) not in seen:
            seen.add(id(callee))
            if not _current(_TWINS.get(id(callee)), callee, seen):
                return False
    return True


_MISSING = object()


def _cell_values(fn) -> tuple:
    out = []
    for cell in fn.__closure__ or ():
        try:
            out.append(cell.cell_contents)
        except ValueError:  # an empty cell
            out.append(_MISSING)
    return tuple(out)


def current_twin(jit_fn):
    """The twin twin_of(jit_fn) would return unchanged, or None where it is not made yet or
    stale (then only twin_of, which checks the globals, may make it)."""
    hit = _TWINS.get(id(jit_fn))
    return hit[2] if _current(hit, jit_fn) else None


def twin_of(jit_fn):
    """Stock Triton's JITFunction for our `jit_fn` (made again when its source changes or a
    global it reads is rebound)."""
    triton = stock_triton()
    with _LOCK:
        hit = _TWINS.get(id(jit_fn))
        if _current(hit, jit_fn):
            return hit[2]
        fn = jit_fn.fn
        code = fn.__code__
        # Only the names the code reads, plus the module's dunders; filled after the twin
        # exists, so recursion (a kernel reaching itself) finds it.
        scope: Dict[str, Any] = {k: v for k, v in fn.__globals__.items() if k.startswith("__")}
        cells = None
        if fn.__closure__:
            cells = tuple(types.CellType() for _ in fn.__closure__)
        f = types.FunctionType(code, scope, fn.__name__, fn.__defaults__, cells)
        f.__kwdefaults__ = fn.__kwdefaults__
        # `p: tl.constexpr` annotations were evaluated to our classes: stock ones mark them.
        f.__annotations__ = {k: to_stock(a) for k, a in fn.__annotations__.items()}
        f.__qualname__, f.__module__, f.__doc__ = fn.__qualname__, fn.__module__, fn.__doc__
        twin = triton.jit(f, do_not_specialize=jit_fn.do_not_specialize or None,
                          do_not_specialize_on_alignment=jit_fn.do_not_specialize_on_alignment
                          or None, debug=jit_fn.debug, noinline=jit_fn.noinline or None)
        if twin.src != jit_fn.src:  # a test templated our source: the twin follows it
            twin._unsafe_update_src(jit_fn.src)
        copied = tuple((name, fn.__globals__[name]) for name in sorted(read_names(jit_fn))
                       if name in fn.__globals__)
        cell_values = _cell_values(fn)
        callees = tuple(v for v in (*(v for _, v in copied), *cell_values)
                        if type(v).__name__ == "JITFunction"
                        and type(v).__module__.startswith("triton_tile"))
        _TWINS[id(jit_fn)] = (jit_fn, jit_fn.src, twin, copied, cell_values, callees)
        for name, value in copied:
            scope[name] = to_stock(value)
        if cells:
            for new, old in zip(cells, fn.__closure__):
                try:
                    new.cell_contents = to_stock(old.cell_contents)
                except ValueError:  # an empty cell stays empty
                    pass
        return twin


def read_names(jit_fn) -> set:
    """Global names stock Triton may look up for `jit_fn`: those its code reads, and those its
    source names outside the code. Stock Triton compiles the source, and resolves a parameter's
    annotation (`HEAD_DIM: tl.constexpr`) from the globals too: a kernel whose body leaves `tl`
    to its helpers reads no `tl` in its code."""
    out = _names(jit_fn.fn.__code__)
    try:
        tree = ast.parse(textwrap.dedent(jit_fn.src))
    except SyntaxError:  # the code's names are all there is to go on
        return out
    return out | {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


def _names(code) -> set:
    """Global names a code object (and the code objects nested in it) may read."""
    out = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out |= _names(c)
    return out


def arg_to_stock(v: Any) -> Any:
    """A launch argument as stock Triton takes it: torch tensors and Python scalars as they
    are; other CUDA arrays as zero-copy torch tensors; our wrappers as stock ones."""
    if v is None or isinstance(v, (int, float, bool)):
        return v
    mod = type(v).__module__
    if mod.startswith("torch"):
        return v
    if mod.startswith("triton_tile"):
        name = type(v).__name__
        if name == "TensorWrapper":
            return stock_triton().reinterpret(arg_to_stock(v.base), to_stock(v.dtype))
        if name == "TensorDescriptor":
            from triton.tools.tensor_descriptor import TensorDescriptor

            return TensorDescriptor(arg_to_stock(v.base), v.shape, v.strides, v.block_shape,
                                    padding=v.padding)
        return to_stock(v)
    if isinstance(v, tuple):
        return type(v)(*map(arg_to_stock, v)) if hasattr(v, "_fields") else \
            tuple(map(arg_to_stock, v))
    if hasattr(v, "__cuda_array_interface__") or hasattr(v, "__dlpack__"):
        import torch

        return torch.as_tensor(v, device="cuda") if hasattr(v, "__cuda_array_interface__") \
            else torch.from_dlpack(v)
    return v


_HERE = contextlib.nullcontext()


def on_device(index: int):
    """Stock Triton compiles for, and launches on, the *current* CUDA device and its current
    stream; ours follow the arrays. Around a stock launch on device `index` this makes that
    device current (torch's `with torch.cuda.device(index)`), so the launch runs in its
    context, on its current stream, with stock's per-device kernel. A no-op (no torch call)
    when it is current already or torch's CUDA is not initialized (no CUDA tensor exists)."""
    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_initialized() or torch._C._cuda_getDevice() == index:
        return _HERE
    return torch.cuda.device(index)


def launch_stock(jit_fn, grid, bound, opt_kw):
    """Launches stock Triton's twin of `jit_fn` on our bound arguments; its CompiledKernel."""
    twin = twin_of(jit_fn)  # first: without stock Triton, the error says how to get it
    return launch_twin(twin, grid, [arg_to_stock(a) for a in bound], opt_kw)


# Stock Triton versions whose launch call (CompiledKernel.run's arguments, as its
# JITFunction.run passes them) was read and run here: a kernel of theirs that has run once is
# launched again directly (PTXGPUKernel.launch_device). Other versions launch through stock's
# JITFunction.run every time.
DIRECT_VERSIONS = ("3.6.",)


_DIRECT_KNOWN: list = []  # the answer, once stock Triton is imported


def direct_launch_known() -> bool:
    """Whether stock Triton's version is one whose launcher is called directly."""
    if _DIRECT_KNOWN:
        return _DIRECT_KNOWN[0]
    triton = sys.modules.get("triton")
    if triton is None:
        return False
    _DIRECT_KNOWN.append(getattr(triton, "__version__", "").startswith(DIRECT_VERSIONS))
    return _DIRECT_KNOWN[0]


_NO_CALLS: list = []  # a hook chain with nothing in it has these calls (compared, never changed)


class _Direct(NamedTuple):
    """What a direct launch of `stock` needs (_direct_entry)."""
    twin: Any
    stock: Any
    c_launch: Any  # stock's C launch, or None: its launcher is called instead
    coop: bool  # the launcher's cooperative-grid and PDL flags
    pdl: bool
    launcher: Any
    function: Any
    packed: Any  # packed metadata
    hooks: Any  # stock's runtime knobs (the launch hooks)
    stream_of: Callable[[int], int]  # torch's current raw stream of a device
    current_device: Callable[[], int]  # torch's current device
    watch: Optional[tuple]  # _watch(ours): what says the twin is still current


def _watch(jit_fn) -> Optional[tuple]:
    """current_twin(jit_fn)'s reads, flattened for launch_device: (dict, key, value) triples
    that all hold (`d.get(key) is value`) while the twin made now stands for `jit_fn`: the
    twin registered for `jit_fn` and for every jit function it reaches, their sources, and
    each global their twins copied. None when a closure is among them: launch_device then
    asks current_twin."""
    out, todo, seen = [], [jit_fn], set()
    while todo:
        fn = todo.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        hit = _TWINS.get(id(fn))
        if hit is None or hit[4] or fn.fn.__closure__:
            return None
        out.append((_TWINS, id(fn), hit))  # the twin twin_of made last, and its source
        out.append((vars(fn), "src", hit[1]))
        g = fn.fn.__globals__
        out.extend((g, name, value) for name, value in hit[3])
        todo.extend(hit[5])
    return tuple(out)


def _direct_entry(twin, stock, jit_fn) -> _Direct:
    """What a direct launch of `stock` needs. With no scratch memory to allocate (its sizes 0),
    stock 3.6's launcher's Python __call__ only adds its cooperative-grid and PDL flags and two
    None scratch pointers before calling its C `launch`: that call is made here directly (C
    launch not None); otherwise the launcher is called. The modules' functions are looked up
    once here, not at every launch."""
    launcher = stock.run
    scratchless = (getattr(launcher, "global_scratch_size", 1) == 0
                   and getattr(launcher, "profile_scratch_size", 1) == 0
                   and hasattr(launcher, "launch"))
    c_launch, coop, pdl = ((launcher.launch, launcher.launch_cooperative_grid,
                            launcher.launch_pdl) if scratchless else (None, False, False))
    torch_c = sys.modules["torch"]._C
    return _Direct(twin, stock, c_launch, coop, pdl, launcher, stock.function,
                   stock.packed_metadata, sys.modules["triton"].knobs.runtime,
                   torch_c._cuda_getCurrentRawStream, torch_c._cuda_getDevice, _watch(jit_fn))


def _direct_applies(param_types) -> bool:
    """Whether a kernel of these parameter types launches directly: not with tuple or
    descriptor parameters (those take stock's run).

    The direct launch's arguments are the specializer's launch addresses
    (launch_specializer.h): a torch tensor passes as its device address, which stock's
    launcher takes as it is; given the tensor it would call `data_ptr()` and ask the driver
    (cuPointerGetAttribute) whether the address is device memory, which the specializer has
    already established (and that every buffer is on the launch's device: it raises on two).
    Scalars pass as the specializer normalized them, constexprs as bound (the launcher skips
    them). Other owners' arrays launch on their own stream: there are no addresses then, and
    stock's run launches."""
    return all(isinstance(t, str) and not t.startswith("tensordesc") for t in param_types)


def launch_twin(twin, grid, args, opt_kw):
    """Launches a stock twin on arguments already in stock terms; its CompiledKernel."""
    try:
        if opt_kw:
            return twin[grid](*args, **{k: v for k, v in opt_kw.items() if k not in _OURS_ONLY})
        return twin[grid](*args)
    except Exception as e:
        raise _ours(e) from e


def warmup_twin(twin, grid, args, opt_kw):
    """Compiles a stock twin for these arguments without launching; its CompiledKernel."""
    try:
        return twin.warmup(*args, grid=grid,
                           **{k: v for k, v in opt_kw.items() if k not in _OURS_ONLY})
    except Exception as e:
        raise _ours(e) from e


def _ours(e: Exception) -> Exception:
    """Stock Triton's compile error as ours: file:line:col of the user's source and the chain
    of @jit calls, where stock prints only `at 2:34:` relative to the function. Other
    exceptions pass unchanged."""
    stock = sys.modules.get("triton.compiler.errors")
    if stock is None or not isinstance(e, stock.CompilationError):
        return e
    chain = []  # outermost first: each wraps the error of the callee it called
    cause: Optional[BaseException] = e
    while isinstance(cause, stock.CompilationError):
        chain.append(cause)
        cause = cause.__cause__
    inner = chain[-1]
    message = inner.error_message or (f"{type(cause).__name__}: {cause}" if cause else "")
    sites = [_location(c) for c in reversed(chain[:-1])]
    cls = {"CompileTimeAssertionFailure": errors.CompileTimeAssertionFailure,
           "UnsupportedLanguageConstruct": errors.UnsupportedLanguageConstruct}.get(
        type(inner).__name__, errors.CompilationError)
    return cls(message, _location(inner), [s for s in sites if s is not None])


def _location(err) -> Optional["errors.SourceLocation"]:
    """Where a stock CompilationError points, in the file of our function with that source."""
    node = getattr(err, "node", None)
    lineno = getattr(node, "lineno", None)
    if lineno is None:
        return None
    with _LOCK:
        fns = [hit[0] for hit in _TWINS.values() if hit[1] == err.src]
    if not fns:
        return None
    fn = fns[0]
    line = fn.starting_line_number + lineno - 1
    lines = (fn.src or "").splitlines()
    text = lines[lineno - 1] if lineno <= len(lines) else ""
    return errors.SourceLocation(fn.fn.__code__.co_filename, line, node.col_offset + 1, text,
                                 fn.__name__)


class PTXGPUKernel(cc.CompiledKernel):
    """A kernel on the GPU's PTX path: launches go to stock Triton's twin of the function.

    `asm` holds what we compiled (on a Tile fallback: ttir, tileir) merged with the stages of
    the stock kernel that last ran (ttir, ttgir, llir, ptx, cubin)."""

    def __init__(self, jit_fn, spec, options, arch: str, asm=None, metadata=None):
        md = dict(metadata) if metadata else cc.make_metadata(jit_fn.__name__, "", "ptx", None,
                                                              options)
        md.update(path="ptx", target=arch)
        self._stock = None  # stock Triton's CompiledKernel of the last launch
        self._direct: Dict[int, _Direct] = {}  # device -> _direct_entry(...)
        self._direct_applies = _direct_applies(spec.param_types)
        super().__init__(jit_fn.__name__, dict(asm or {}), md, None, spec.param_types)
        self._jit_fn = jit_fn

    # JITFunction.run's fast launch may stand this kernel for the stock kernels it saw run.
    path_of_stock = True

    def ran(self, stock) -> None:
        self._stock = stock

    def launch_device(self, grid, runtime, buf, bound, opt_kw, addresses=None) -> None:
        """Launches stock Triton's kernel. The first launch on a device goes through stock's
        JITFunction.run (which compiles); later ones call the launcher of the stock kernel
        that ran, as stock's run would, skipping stock's second specialization: this kernel
        stands for one specialization of ours, which decides stock's (the same rules:
        dtypes, 16-byte alignment, divisibility by 16, ints equal to 1). The launch hooks and
        their metadata are passed as stock's run passes them. Only while the twin is current
        and the arguments are torch CUDA tensors and scalars on this device; otherwise stock's
        run."""
        jit_fn = self._jit_fn
        device = buf.device
        direct = self._direct.get(device)
        if addresses is not None and direct is not None:
            # Every launch comes here: current_twin's checks and _direct_launch's common case
            # are written out, without their calls.
            (twin, _, c_launch, coop, pdl, _, function, packed, hooks, stream_of, current_device,
             watch) = direct
            if watch is None:
                current = twin is current_twin(jit_fn)
            else:
                current = True
                for d, key, value in watch:
                    if d.get(key, _MISSING) is not value:
                        current = False
                        break
            if current:
                if current_device() != device:
                    with on_device(device):
                        self._direct_launch(direct, grid, device, bound, addresses)
                    return
                enter, leave = hooks.launch_enter_hook, hooks.launch_exit_hook
                if c_launch is not None and (
                        enter is None or getattr(enter, "calls", None) == _NO_CALLS) and (
                        leave is None or getattr(leave, "calls", None) == _NO_CALLS):
                    c_launch(grid[0], grid[1], grid[2], stream_of(device), function, coop, pdl,
                             None, None, packed, None, None, None, *addresses)
                else:
                    self._direct_launch(direct, grid, device, bound, addresses)
                return
        with on_device(device):
            self._stock = stock = launch_stock(jit_fn, grid, bound, opt_kw)
        if direct_launch_known() and self._direct_applies:
            try:
                self._direct[device] = _direct_entry(current_twin(jit_fn), stock, jit_fn)
            except AttributeError:  # not a CompiledKernel we know: stock's run every time
                pass

    def _direct_launch(self, direct, grid, device, bound, args) -> None:
        """The launch stock's run would make of `direct`'s kernel, on the current device."""
        _, stock, c_launch, coop, pdl, launcher, function, packed, hooks, stream_of = direct[:10]
        enter, leave = hooks.launch_enter_hook, hooks.launch_exit_hook
        if enter is not None and getattr(enter, "calls", None) == _NO_CALLS:
            enter = None
        if leave is not None and getattr(leave, "calls", None) == _NO_CALLS:
            leave = None
        stream = stream_of(device)
        meta = None if enter is None and leave is None else \
            stock.launch_metadata(grid, stream, *self._jit_fn._stock_args(bound))
        if c_launch is not None:
            c_launch(grid[0], grid[1], grid[2], stream, function, coop, pdl, None, None, packed,
                     meta, enter, leave, *args)
        else:
            launcher(grid[0], grid[1], grid[2], stream, function, packed, meta, enter, leave,
                     *args)

    def warmup_device(self, grid, buf, bound, opt_kw) -> None:
        """`kernel.warmup(...)` on CUDA arrays: stock Triton compiles (ttgir, llir, ptx,
        cubin: `asm` shows them) and nothing runs. Without stock Triton there is nothing to
        compile with; the first launch raises the ImportError that says how to get it."""
        try:
            twin = twin_of(self._jit_fn)
        except ImportError:
            return
        with on_device(buf.device):
            self._stock = warmup_twin(twin, grid, [arg_to_stock(a) for a in bound], opt_kw)

    def launch(self, grid, args) -> None:
        raise TypeError(f"kernel {self.name} runs on the GPU's PTX path; launch it with CUDA "
                        "arrays")

    @property
    def stock_kernel(self):
        return self._stock

    @property
    def asm(self):
        stock = self._stock
        return {**self._asm, **stock.asm} if stock is not None else self._asm

    @asm.setter
    def asm(self, value):
        self._asm = value

    @property
    def n_regs(self):
        stock = self._stock
        return getattr(stock, "n_regs", 0) if stock is not None else 0


class GPUPTX(driver.Backend):
    """The GPU's PTX path: stock Triton compiles and launches (it caches for itself); our
    frontend runs only where a Tile compile fell back here (its asm and metadata are kept)."""

    name = "gpu-ptx"
    runs_on = "GPU: stock Triton"

    def compile(self, jit_fn, spec, options, device, arch, frontend):
        return PTXGPUKernel(jit_fn, spec, options, arch)

    def make_kernel(self, state):
        md = cc.make_metadata(state.name, state.key, "ptx", state.reason, state.options,
                              state.data.get("accesses", ()))
        md["target"] = state.target
        return PTXGPUKernel(state.jit_fn, state.spec, state.options, state.target,
                            asm=state.asm, metadata=md)


BACKENDS = {"gpu-ptx": GPUPTX()}

__all__ = ["PTXGPUKernel", "on_device", "direct_launch_known", "launch_stock", "launch_twin",
           "warmup_twin", "current_twin", "arg_to_stock", "twin_of", "to_stock", "stock_triton",
           "INSTALL_HINT"]

"""`python -m triton_tile.tools.verify`: does a kernel compute what a numpy expression says, on
both paths?

    python -m triton_tile.tools.verify --kernel examples/vector_add.py:add_kernel \\
        --shapes '{"x_ptr": [98432], "y_ptr": [98432], "out_ptr": [98432]}' \\
        --args '{"n_elements": "x_ptr.size"}' --constexprs '{"BLOCK_SIZE": 1024}' \\
        --grid '[cdiv(n_elements, BLOCK_SIZE)]' --reference 'x + y'

The kernel runs on fresh random inputs (standard normal floats, integers 1..15: never zeros)
with its outputs poisoned with NaN (integers: their minimum), once on the PTX-style path
(`ENABLE_TILE=0`: the TTIR executor on the CPU, stock Triton on a GPU) and once on the Tile IR
path (`ENABLE_TILE=1`; a fallback to the PTX path is marked `tile*` with its reason),
on the same inputs; each output is compared with the reference, evaluated in float64. It
prints the max abs/rel error per path and output and PASS/FAIL; exit status 0 when everything
passes, 1 when anything fails (a wrong value, a NaN left unwritten, a launch error, a fallback
with `--no-fallback`), 2 on bad command-line input (the message names the option). With CUDA
tensors available (torch with a GPU, and `--device auto` or `cuda`) the arrays live on the GPU.

Options (JSON is parsed strictly; names are the kernel's parameter names):

- `--kernel FILE[:NAME]`: the file is imported as a module; NAME picks the `@jit` kernel
  (needed when the file has several). `@autotune` kernels are verified once per config, with
  its meta-parameters and options and its `pre_hook` run first (e.g. the TMA block-shape hook).
- `--shapes '{"x_ptr": [1024], "w": [64, 64]}'`: one entry per array parameter: pointers and
  host tensor descriptors (the descriptor is built over the array; its block shape is what the
  config's `pre_hook` sets, else `--blocks '{"a_desc": [64, 32]}'`, else 64 per dimension).
- `--dtypes '{"x_ptr": "float16"}'` or `--dtypes '"bfloat16"'` (one for all); numpy or Triton
  names (float16/fp16, bfloat16/bf16, float32/fp32, float64, int8..int64, uint8, bool).
  Default float32.
- `--args '{"n": "x_ptr.size", "row_stride": "stride(x_ptr, 0)", "eps": 1e-5}'`: every
  scalar parameter: a number, or a Python expression over the arrays (numpy arrays named after
  their parameters) and the scalars before it, with `stride(array, dim)` (in elements), `cdiv`
  and `np`: sizes and strides derive from the shapes. Parameters with a default may be left
  out.
- `--constexprs '{"BLOCK_SIZE": 1024}'`: `tl.constexpr` values (defaults: the autotune config's,
  then the parameter's own default).
- `--grid`: a JSON list (`[97]`, `[4, 2]`) or a Python expression evaluated per launch over the
  scalars, arrays and constexprs, with `cdiv` and `triton` in scope:
  `'[cdiv(n_elements, BLOCK_SIZE)]'`, `'(cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N),)'`.
- `--outputs out_ptr,Mean`: the parameters the kernel writes. Default: those its TTIR stores
  to or updates atomically (every store address followed back to its parameter).
- `--reference EXPR`: numpy in float64, with `np` (and `math`, `cdiv`) in scope; every array is
  named by its parameter and, when that is free, without a `_ptr`/`_desc` suffix (`x_ptr` is
  also `x`); scalars and constexprs too, and the kernel file's own globals (so a file's
  `reference(...)` function can be called). It gives the outputs in `--outputs` order: one
  array, a tuple, or a dict output name -> array (each broadcast to its output's shape).
- `--atol/--rtol`: |out - ref| <= atol + rtol * |ref|, as `triton_tile.testing.assert_close`
  (which decides). Defaults by the output's dtype: float64 1e-9/1e-7, float32 1e-5/1e-5,
  float16 and bfloat16 1e-2/1e-2 (pass e.g. --atol 1e-2 for fp32 `tl.dot`s in tf32), integers
  exact.
- `--paths ptx,tile` (default both), `--seed N`, `--device auto|cpu|cuda`, `--json`.
"""

from __future__ import annotations

import argparse
import builtins
import json
import math
import sys
import warnings
from typing import Any, Dict, List, Optional

import numpy as np

from . import classify

PATHS = ("ptx", "tile")
_TOLERANCE = {"float64": (1e-9, 1e-7), "float32": (1e-5, 1e-5), "float16": (1e-2, 1e-2),
              "bfloat16": (1e-2, 1e-2)}


class UsageError(ValueError):
    """Bad command-line input; the message names the option."""


def cdiv(a, b):
    return -(-a // b)


def stride(array, dim: int) -> int:
    """The stride of `array` along `dim`, in elements (as kernels take strides)."""
    return array.strides[dim] // array.itemsize


def _json(option: str, text: Optional[str], kinds=(dict,), default=None):
    try:
        return classify.json_option(option, text, kinds, default)
    except ValueError as e:
        raise UsageError(str(e)) from None


def parse_dtype(option: str, text: str) -> np.dtype:
    try:
        return classify.parse_dtype(option, text)
    except ValueError as e:
        raise UsageError(str(e)) from None


def _eval(option: str, text: str, names: Dict[str, Any]):
    try:
        return eval(compile(text, option, "eval"), dict(names, __builtins__=builtins))
    except SyntaxError as e:
        raise UsageError(f"{option}: not a Python expression: {text!r} ({e.msg})") from None
    except Exception as e:
        raise UsageError(f"{option}: {text!r} failed: {type(e).__name__}: {e}") from None


def _random(rng, shape, dtype: np.dtype) -> np.ndarray:
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        return rng.integers(1, 16, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _poisoned(shape, dtype: np.dtype) -> np.ndarray:
    if np.issubdtype(dtype, np.integer):
        return np.full(shape, np.iinfo(dtype).min, dtype=dtype)
    if dtype == np.bool_:
        return np.zeros(shape, dtype)
    return np.full(shape, np.nan, dtype=dtype)


def _tolerance(dtype: np.dtype, atol, rtol):
    default = _TOLERANCE.get(dtype.name, (0.0, 0.0))
    return (default[0] if atol is None else atol), (default[1] if rtol is None else rtol)


class Setup:
    """What the command line says, checked against the kernel's parameters."""

    def __init__(self, args):
        self.args = args
        path, _, name = args.kernel.partition(":")
        try:
            self.module = classify.load_file(path)
            kernels = classify.find_kernels(self.module, name or None)
        except (FileNotFoundError, LookupError) as e:
            raise UsageError(f"--kernel: {e}") from None
        if not kernels:
            raise UsageError(f"--kernel: {path}: no @jit kernels found")
        if len(kernels) != 1:
            raise UsageError(f"--kernel: {path} has several kernels "
                             f"({', '.join(k.name for k in kernels)}): name one as "
                             f"{path}:NAME")
        self.kernel = kernels[0]
        jit = self.kernel.jit
        self.params = {p.name: p for p in jit.params}
        self.kinds = classify.param_kinds(jit)
        shapes = _json("--shapes", args.shapes, default={})
        dtypes = _json("--dtypes", args.dtypes, (dict, str), default={})
        self.scalars_in = _json("--args", args.args, default={})
        self.constexprs_in = _json("--constexprs", args.constexprs, default={})
        self.blocks = _json("--blocks", args.blocks, default={})
        for option, given in (("--shapes", shapes), ("--args", self.scalars_in),
                              ("--blocks", self.blocks),
                              ("--dtypes", dtypes if isinstance(dtypes, dict) else {})):
            unknown = sorted(set(given) - set(self.params))
            if unknown:
                raise UsageError(f"{option}: {', '.join(unknown)}: not a parameter of "
                                 f"{jit.__name__} (parameters: {', '.join(self.params)})")
        self.shapes: Dict[str, tuple] = {}
        for n, shape in shapes.items():
            if isinstance(shape, int):
                shape = [shape]
            if not isinstance(shape, list) or not all(isinstance(d, int) and d >= 0
                                                      for d in shape):
                raise UsageError(f"--shapes: {n}: expected a list of non-negative ints, got "
                                 f"{shape!r}")
            if self.kinds[n].kind == "constexpr":
                raise UsageError(f"--shapes: {n} is a tl.constexpr parameter, not an array")
            self.shapes[n] = tuple(shape)
        missing = [n for n, k in self.kinds.items() if k.kind in ("pointer", "descriptor")
                   and n not in self.shapes]
        if missing:
            raise UsageError(f"--shapes: {', '.join(missing)} of {jit.__name__} "
                             f"{'is a pointer' if len(missing) == 1 else 'are pointers'} and "
                             "needs a shape")
        if isinstance(dtypes, str):
            dtypes = {n: dtypes for n in self.shapes}
        self.dtypes = {n: parse_dtype(f"--dtypes: {n}", dtypes.get(n, "float32"))
                       for n in self.shapes}
        self.descriptors = [n for n in self.shapes if self.kinds[n].kind == "descriptor"]
        rng = np.random.default_rng(args.seed)
        self.inputs = {n: _random(rng, self.shapes[n], self.dtypes[n]) for n in self.shapes}
        self.scalars = self._scalars()
        self.grid = self._grid_source()
        self.paths = [p.strip() for p in args.paths.split(",") if p.strip()]
        bad = [p for p in self.paths if p not in PATHS]
        if bad or not self.paths:
            raise UsageError(f"--paths: {args.paths!r}: expected ptx, tile or ptx,tile")
        if args.outputs:
            self.outputs = [o.strip() for o in args.outputs.split(",") if o.strip()]
            bad = [o for o in self.outputs if o not in self.shapes]
            if bad:
                raise UsageError(f"--outputs: {', '.join(bad)}: not an array parameter "
                                 f"(arrays: {', '.join(self.shapes)})")
        else:
            self.outputs = None  # found from the TTIR at the first launch
        self.device = self._device(args.device)

    def _scalars(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {}
        names = dict(self.inputs)
        for n, k in self.kinds.items():
            if k.kind != "scalar" or n in self.shapes:
                continue
            if n in self.scalars_in:
                v = self.scalars_in[n]
                if isinstance(v, str):
                    v = _eval(f"--args: {n}", v, dict(names, np=np, cdiv=cdiv, stride=stride))
                if isinstance(v, np.generic):
                    v = v.item()
                if not isinstance(v, (int, float, bool)):
                    raise UsageError(f"--args: {n}: expected a number, got {v!r}")
            elif self.params[n].has_default:
                v = self.params[n].default
            else:
                raise UsageError(f"--args: the scalar parameter {n!r} of {self.kernel.name} "
                                 "needs a value: a number or an expression over the arrays, "
                                 f"e.g. {{\"{n}\": \"{next(iter(self.shapes), 'x')}.shape[0]\"}}")
            out[n] = names[n] = v
        return out

    def _grid_source(self):
        text = self.args.grid
        if text is None:
            raise UsageError("--grid: required: a JSON list such as [97] or an expression "
                             "such as '[cdiv(n_elements, BLOCK_SIZE)]'")
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            try:
                compile(text, "--grid", "eval")
            except SyntaxError as e:
                raise UsageError(f"--grid: neither JSON nor a Python expression: {text!r} "
                                 f"({e.msg})") from None
            return text
        if isinstance(value, int):
            value = [value]
        if not (isinstance(value, list) and 1 <= len(value) <= 3
                and all(isinstance(d, int) and d >= 0 for d in value)):
            raise UsageError(f"--grid: expected 1 to 3 non-negative ints, got {text!r}")
        return tuple(value)

    def grid_fn(self):
        if isinstance(self.grid, tuple):
            return self.grid
        import triton_tile

        def grid(meta):
            names = dict(self.inputs, **self.scalars, cdiv=cdiv, triton=triton_tile, np=np)
            names.update(meta)
            value = _eval("--grid", self.grid, names)
            return (value,) if isinstance(value, int) else tuple(value)

        return grid

    def _device(self, device: str) -> str:
        if device not in ("auto", "cpu", "cuda"):
            raise UsageError(f"--device: {device!r}: expected auto, cpu or cuda")
        if device == "cpu":
            return "cpu"
        torch = None
        try:
            import torch
            ok = torch.cuda.is_available()
        except ImportError:
            ok = False
        if device == "cuda" and not ok:
            raise UsageError("--device: cuda: no CUDA tensors here (needs torch with a GPU)")
        return "cuda" if ok and torch is not None else "cpu"


# --- running ---------------------------------------------------------------------------------


def _to_device(arr: np.ndarray, device: str):
    if device == "cpu":
        return arr
    import torch

    if arr.dtype.name == "bfloat16":
        return torch.from_numpy(arr.view(np.uint16).copy()).view(torch.bfloat16).cuda()
    return torch.from_numpy(arr.copy()).cuda()


def _to_host(x) -> np.ndarray:
    from ..testing import _to_numpy

    return np.asarray(_to_numpy(x), dtype=np.float64) if not isinstance(x, np.ndarray) or \
        x.dtype.kind == "f" or x.dtype.name == "bfloat16" else x


def _launch_args(setup: Setup, config, arrays: Dict[str, Any]):
    """(arguments by name, constexprs included; launch options) for one config, its pre_hook
    run."""
    from .tensor_descriptor import TensorDescriptor

    nargs: Dict[str, Any] = dict(arrays, **setup.scalars)
    for n in setup.descriptors:
        rank = len(setup.shapes[n])
        nargs[n] = TensorDescriptor.from_tensor(arrays[n], setup.blocks.get(n, [64] * rank))
    constexprs = classify.default_constexprs(setup.kernel, setup.constexprs_in, config,
                                             fallback=LookupError)
    options = dict(config.all_kwargs()) if config is not None else {}
    for k in constexprs:
        options.pop(k, None)
    nargs.update(constexprs)
    if config is not None and config.pre_hook is not None:
        config.pre_hook(_HookArgs(nargs, options))
    return nargs, options


def _scalar_type(v) -> str:
    if isinstance(v, bool):
        return "u1"
    if isinstance(v, int):
        return "i32" if -2**31 <= v < 2**31 else "i64"
    return "fp32"


def find_outputs(setup: Setup, config, constexprs: Dict[str, Any]) -> List[str]:
    """The array parameters the kernel's TTIR writes through (compiled here, for the
    arguments' types: the GPU's PTX path compiles with stock Triton, whose IR is not ours)."""
    from ..runtime import specialize as sp
    from . import tensor_descriptor as td

    nargs, _ = _launch_args(setup, config, dict(setup.inputs))
    sig = {}
    for n, k in setup.kinds.items():
        if k.kind == "constexpr":
            continue
        v = nargs[n]
        if td.is_tensor_descriptor(v):
            sig[n] = td.signature_string(v)
        elif isinstance(v, np.ndarray):
            sig[n] = "*" + sp.canonical_dtype(v.dtype)
        else:
            sig[n] = _scalar_type(v)
    module = classify.kernel_ttir(setup.kernel, sig, constexprs)
    names = setup.kernel.jit.arg_names
    return classify.written_params(module, setup.kernel.name, names,
                                   [sig.get(n, "constexpr") for n in names])


def launch(setup: Setup, config, path: str, outputs: List[str]) -> Dict[str, Any]:
    """One launch on fresh buffers: the outputs as host arrays, the path taken, and any
    fallback warning."""
    arrays = {n: _to_device(_poisoned(a.shape, a.dtype) if n in outputs else a.copy(),
                            setup.device) for n, a in setup.inputs.items()}
    nargs, options = _launch_args(setup, config, arrays)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled = setup.kernel.jit[setup.grid_fn()](**nargs, **options,
                                                     enable_tile=path == "tile")
    notes = [str(w.message).splitlines()[0] for w in caught]
    return {"arrays": arrays, "compiled": compiled, "notes": notes}


class _HookArgs(dict):
    """What a config's pre_hook sees (arguments, meta-parameters and options); a hook's writes
    to arguments (e.g. nargs['NUM_SMS'] //= num_ctas) reach the launch."""

    def __init__(self, nargs: Dict[str, Any], options: Dict[str, Any]):
        super().__init__(nargs, **options)
        self._nargs = nargs

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        if key in self._nargs:
            self._nargs[key] = value


def reference(setup: Setup, constexprs: Dict[str, Any], outputs: List[str]) -> Dict[str, Any]:
    names: Dict[str, Any] = {}
    for n, a in setup.inputs.items():
        value = _poisoned(a.shape, a.dtype) if n in outputs else a
        value = value.astype(np.float64) if value.dtype.kind == "f" or \
            value.dtype.name == "bfloat16" else value
        names[n] = value
    for n in list(names):
        for suffix in ("_ptr", "_desc"):
            short = n[:-len(suffix)]
            if n.endswith(suffix) and short and short not in setup.params:
                names.setdefault(short, names[n])
    names.update(setup.scalars, **constexprs)
    names.update(np=np, numpy=np, math=math, cdiv=cdiv)
    for k, v in vars(setup.module).items():  # the kernel file's helpers, e.g. reference()
        if not k.startswith("__"):
            names.setdefault(k, v)
    value = _eval("--reference", setup.args.reference, names)
    if isinstance(value, dict):
        missing = [o for o in outputs if o not in value]
        if missing:
            raise UsageError(f"--reference: the dict has no entry for {', '.join(missing)}")
        values = [value[o] for o in outputs]
    elif isinstance(value, (tuple, list)) and len(outputs) != 1:
        values = list(value)
    else:
        values = [value]
    if len(values) != len(outputs):
        raise UsageError(f"--reference: gives {len(values)} value(s) for {len(outputs)} "
                         f"output(s) ({', '.join(outputs)})")
    out = {}
    for o, v in zip(outputs, values):
        try:
            out[o] = np.broadcast_to(np.asarray(v, dtype=np.float64), setup.shapes[o])
        except (ValueError, TypeError) as e:
            raise UsageError(f"--reference: the value for {o} (shape "
                             f"{np.shape(v)}) does not fit its shape {setup.shapes[o]}: "
                             f"{e}") from None
    return out


def compare(out, ref: np.ndarray, dtype: np.dtype, atol, rtol) -> Dict[str, Any]:
    from ..testing import assert_close

    got = _to_host(out).astype(np.float64)
    atol, rtol = _tolerance(dtype, atol, rtol)
    both_nan = np.isnan(got) & np.isnan(ref)
    diff = np.where(both_nan, 0.0, np.abs(got - ref))
    unwritten = int(np.count_nonzero(np.isnan(got) & ~np.isnan(ref)))
    finite = diff[np.isfinite(diff)]
    # Relative errors only where the reference is not 0: there any difference is an infinite
    # relative error (the absolute error and atol say how far off it is).
    nonzero = np.abs(ref) > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = diff[nonzero] / np.abs(ref[nonzero])
    rel_finite = rel[np.isfinite(rel)]
    try:
        assert_close(got, ref, atol=atol, rtol=rtol)
        passed = True
    except AssertionError:
        passed = False
    return {"max_abs": float(finite.max()) if finite.size else 0.0,
            "max_rel": float(rel_finite.max()) if rel_finite.size else 0.0,
            "nan": unwritten, "atol": atol, "rtol": rtol, "passed": passed}


def run(setup: Setup) -> Dict[str, Any]:
    configs = setup.kernel.configs or [None]
    results: List[Dict[str, Any]] = []
    outputs = setup.outputs
    for ci, config in enumerate(configs):
        label = "" if config is None else f"config {ci} ({config})"
        constexprs = classify.default_constexprs(setup.kernel, setup.constexprs_in, config,
                                                 fallback=LookupError)
        if outputs is None:
            outputs = find_outputs(setup, config, constexprs)
            if not outputs:
                raise UsageError("--outputs: the kernel stores to no array parameter; name "
                                 "the outputs with --outputs")
        ref = reference(setup, constexprs, outputs)
        for path in setup.paths:
            entry: Dict[str, Any] = {"config": label, "path": path, "outputs": {}}
            try:
                r = launch(setup, config, path, outputs)
            except Exception as e:
                first = str(e).strip().splitlines()[0] if str(e).strip() else ""
                entry.update(error=f"{type(e).__name__}: {first}", passed=False)
                results.append(entry)
                continue
            md = getattr(r["compiled"], "metadata", None)  # stock Triton's on the GPU's PTX
            taken = getattr(md, "path", "ptx")
            entry.update(taken=taken, fallback_reason=getattr(md, "fallback_reason", None),
                         notes=r["notes"])
            for o in outputs:
                entry["outputs"][o] = compare(r["arrays"][o], ref[o], setup.dtypes[o],
                                              setup.args.atol, setup.args.rtol)
            entry["passed"] = all(c["passed"] for c in entry["outputs"].values()) and not (
                setup.args.no_fallback and path == "tile" and taken != "tile")
            results.append(entry)
    return {"kernel": setup.kernel.name, "file": setup.kernel.jit.file_name,
            "device": setup.device, "outputs": outputs, "results": results,
            "passed": all(r["passed"] for r in results)}


def format_text(report: Dict[str, Any]) -> str:
    lines = [f"verify {report['kernel']} ({report['file']}) on {report['device']}; outputs: "
             f"{', '.join(report['outputs'] or [])}"]
    lines.append(f"  {'path':<5} {'output':<12} {'max abs err':>12} {'max rel err':>12}  "
                 "result")
    config = None
    for r in report["results"]:
        if r["config"] and r["config"] != config:
            config = r["config"]
            lines.append(f"  {config}")
        if "error" in r:
            lines.append(f"  {r['path']:<5} {'-':<12} {'-':>12} {'-':>12}  FAIL: {r['error']}")
            continue
        path = r["path"]
        if path == "tile" and r["taken"] != "tile":
            path = "tile*"
        for o, c in r["outputs"].items():
            verdict = "PASS" if c["passed"] else "FAIL"
            if not c["passed"]:
                verdict += f" (atol {c['atol']:g}, rtol {c['rtol']:g})"
            elif not r["passed"]:  # the values match, but the row fails: --no-fallback
                verdict = "FAIL (values match, but it fell back and --no-fallback is set)"
            if c["nan"]:
                verdict += f", {c['nan']} element(s) NaN (never written?)"
            lines.append(f"  {path:<5} {o:<12} {c['max_abs']:>12.3e} {c['max_rel']:>12.3e}  "
                         f"{verdict}")
        if path == "tile*":
            lines.append(f"        * fell back to the PTX path: {r['fallback_reason']}")
    lines.append("PASS" if report["passed"] else "FAIL")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m triton_tile.tools.verify",
                                 description=__doc__.split("\n\n")[0],
                                 epilog="See the module docstring (pydoc "
                                        "triton_tile.tools.verify) for each option's format.")
    ap.add_argument("--kernel", required=True, help="FILE[:NAME] of the @jit kernel")
    ap.add_argument("--reference", required=True,
                    help="numpy expression over the parameters (float64)")
    ap.add_argument("--shapes", required=True, help="JSON: array parameter -> shape")
    ap.add_argument("--dtypes", help='JSON: array parameter -> dtype, or one "dtype"')
    ap.add_argument("--args", help="JSON: scalar parameter -> number or expression")
    ap.add_argument("--constexprs", help="JSON: tl.constexpr parameter -> value")
    ap.add_argument("--grid", help="JSON list of ints, or an expression such as "
                                   "'[cdiv(n, BLOCK_SIZE)]'")
    ap.add_argument("--outputs", help="comma-separated output parameters (default: the "
                                      "arrays the kernel stores to)")
    ap.add_argument("--blocks", help="JSON: descriptor parameter -> block shape")
    ap.add_argument("--atol", type=float, help="absolute tolerance (default by dtype)")
    ap.add_argument("--rtol", type=float, help="relative tolerance (default by dtype)")
    ap.add_argument("--paths", default="ptx,tile", help="ptx, tile or ptx,tile (default)")
    ap.add_argument("--seed", type=int, default=0, help="random seed of the inputs")
    ap.add_argument("--device", default="auto", help="auto (default), cpu or cuda")
    ap.add_argument("--no-fallback", action="store_true",
                    help="fail when the Tile path falls back to the PTX path")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    return ap


def main(argv=None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    try:
        setup = Setup(args)
        report = run(setup)
    except UsageError as e:
        ap.error(str(e))
    except LookupError as e:  # a constexpr without a value
        ap.error(str(e).strip("'\""))
    try:
        if args.json:
            json.dump(report, sys.stdout, indent=2, default=str)
            sys.stdout.write("\n")
        else:
            print(format_text(report))
        sys.stdout.flush()
    except BrokenPipeError:
        classify.quiet_broken_pipe()
    return 0 if report["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())

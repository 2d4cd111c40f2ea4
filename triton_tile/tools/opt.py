"""`python -m triton_tile.tools.opt`: run named passes over a TTIR file and print the result,
as MLIR's `mlir-opt` does; optionally convert to Tile IR.

    python -m triton_tile.tools.opt kernel.ttir --passes canonicalize,cse
    python -m triton_tile.tools.opt kernel.ttir --passes ttir --convert-to-tile
    python -m triton_tile.tools.opt kernel.ttir --convert-to-tile --tile-option occupancy=4

- `FILE`: TTIR text as Triton prints it (`kernel.asm["ttir"]`, `TRITON_TILE_DUMP`), `-` for
  standard input.
- `--passes a,b,...`: TTIR passes in order (csrc/passes/, registered in pipeline.cpp), or a
  pipeline's name: `ttir` (what every compile runs after the frontend), `tile` (before a GPU
  target's conversion), `cpu-tile` (before the CPU Tile executor's: `tile` after
  assert-contracts), `ptx` (before the TTIR executor). The module is verified after each
  pass.
- `--convert-to-tile[=KERNEL]`: convert the public function KERNEL (default: the only public
  one) to Tile IR and print that instead. Ops without a Tile IR form are listed on standard
  error with their source locations, exit status 1, as the JIT's fallback reports them.
- `--tile-option NAME=VALUE` (repeatable): a field of the conversion's options
  (`_core.TileOptions`: occupancy, num_ctas, num_stages, arch, raise_views, index_views,
  allow_tma, kernel_tma_maps, worker_warps, guard_views, version_loops, ...); ints and
  `true`/`false` are parsed, anything else stays a string; `passes=a,b` (or `none`) names the
  Tile IR passes run after the conversion (default cse,dce,insert-memory-tokens). Defaults are
  the struct's, not the environment's: what a golden test pins does not depend on the shell
  it runs in.
- `--bytecode`: with `--convert-to-tile`, print the bytecode's dump (`_core.bytecode_dump`)
  instead of the Tile IR text.
- `--grid-stride[=KERNEL]`: after the passes, make KERNEL's persistent loop a grid of items
  (csrc/passes/grid_stride_loops.cpp, as the Tile path's compile does first with
  TRITON_TILE_GRID_STRIDE=on: with or without an inner loop) and print the module, then the
  host's grid function with its argument indices, or that the loop stays.

Exit status: 0, 1 for an unsupported conversion, 2 for bad input (unparsable text, an unknown
pass or option: the message names it). Golden tests (tests/golden/) run it through `run()`.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any, Dict, List, Optional, TextIO, Tuple

from .. import _core
from ..compiler.compiler import PTX_PASSES, TTIR_PASSES
from ..compiler.tile_stage import CPU_TILE_PASSES, TILE_PASSES, encode

# Named pipelines: the lists the compiler runs.
PIPELINES = {"ttir": TTIR_PASSES, "tile": TILE_PASSES, "cpu-tile": CPU_TILE_PASSES,
             "ptx": PTX_PASSES}


class OptError(Exception):
    """Bad input: the message says what and where; exit status 2."""


def expand_passes(spec: Optional[str]) -> List[str]:
    out: List[str] = []
    for name in filter(None, (spec or "").split(",")):
        out.extend(PIPELINES.get(name.strip(), [name.strip()]))
    return out


def option_value(text: str):
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(text, 0)
    except ValueError:
        return text


def tile_option_value(options, name: str, text: str):
    """The value `text` gives TileOptions field `name`: a list of names for list fields
    (`a,b`, or `none` for no names), else option_value(text)."""
    if isinstance(getattr(options, name, None), list):
        return [] if text == "none" else [p for p in text.split(",") if p]
    return option_value(text)


def tile_option_values(pairs: List[str]) -> Dict[str, Any]:
    """{field: value} from `--tile-option NAME=VALUE` pairs, each NAME a TileOptions field."""
    o = _core.TileOptions()
    values: Dict[str, Any] = {}
    for pair in pairs:
        name, eq, value = pair.partition("=")
        if not eq or not hasattr(o, name):
            raise OptError(f"--tile-option {pair!r}: expected NAME=VALUE with NAME a field of "
                           f"TileOptions ({', '.join(n for n in dir(o) if not n[0] == '_')})")
        values[name] = tile_option_value(o, name, value)
    return values


def tile_options(pairs: List[str]):
    o = _core.TileOptions()
    for name, value in tile_option_values(pairs).items():
        try:
            setattr(o, name, value)
        except TypeError:
            want = type(getattr(o, name)).__name__
            raise OptError(f"--tile-option {name}={value!r}: {name} takes a {want}") from None
    return o


def kernel_name(module, wanted: Optional[str], flag: str = "--convert-to-tile") -> str:
    names = [f.attr("sym_name") for f in module.funcs]
    if wanted:
        if wanted not in names:
            raise OptError(f"{flag}={wanted}: no function of that name "
                           f"(the module has {', '.join(names) or 'none'})")
        return wanted
    public = [f.attr("sym_name") for f in module.funcs if f.attr("sym_visibility") != "private"]
    if len(public) != 1:
        raise OptError(f"{flag}: name the kernel, the module has {len(public)} "
                       f"public functions ({', '.join(public)})")
    return public[0]


def run(text: str, path: str = "<stdin>", passes: Optional[str] = None,
        convert: Optional[str] = None, options: Optional[List[str]] = None,
        bytecode: bool = False, err: Optional[TextIO] = None,
        grid_stride: Optional[str] = None) -> tuple:
    """(exit status, printed text) for one invocation; raises OptError on bad input.
    Unsupported ops are listed on `err` (default: the standard error of the moment)."""
    err = err or sys.stderr
    try:
        module = _core.parse_ttir(text, path)
    except Exception as e:  # the parser's error names file:line:col
        raise OptError(str(e)) from None
    try:
        _core.run_passes(module, expand_passes(passes))
    except Exception as e:
        raise OptError(str(e)) from None
    if grid_stride is not None:
        name = kernel_name(module, grid_stride or None, "--grid-stride")
        grid, args, linear = _core.flatten_grid_stride_loop(module, name, [])
        tail = (f"// grid function: arguments {list(args)}, linear {linear}\n{grid}"
                if grid is not None else "// the loop stays\n")
        return 0, module.str() + tail
    if convert is None:
        return 0, module.str()
    name = kernel_name(module, convert or None)
    try:
        result = _core.convert_to_tile(module, name, tile_options(options or []))
    except ValueError as e:  # an unknown name in --tile-option passes=...
        raise OptError(str(e)) from None
    if result.unsupported:
        for op, loc, why in result.unsupported:
            print(f"{loc}: '{op}': {why}", file=err)
        return 1, ""
    tile = result.take_module()
    if bytecode:
        return 0, _core.bytecode_dump(encode(tile))
    return 0, _core.print_tile(tile)


def parse_run_line(text: str, path: str) -> Tuple[List[str], bool]:
    """A golden file's one `// RUN: [not] opt ARGS` line: (ARGS with %s as `path`, whether
    exit status 1 is expected). Raises OptError unless there is exactly one RUN line of opt."""
    runs = [ln.split("RUN:", 1)[1].strip() for ln in text.splitlines() if "// RUN:" in ln]
    if len(runs) != 1:
        raise OptError(f"{path}: one RUN line per file (found {len(runs)})")
    words = shlex.split(runs[0].replace("%s", path))
    expect_failure = bool(words) and words[0] == "not"
    words = words[1:] if expect_failure else words
    if not words or words[0] != "opt":
        raise OptError(f"{path}: RUN must call opt")
    return words[1:], expect_failure


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m triton_tile.tools.opt",
                                 description="Run TTIR passes; optionally convert to Tile IR.")
    ap.add_argument("file", help="a .ttir file, or - for standard input")
    ap.add_argument("--passes", help="comma-separated pass or pipeline names")
    ap.add_argument("--convert-to-tile", nargs="?", const="", default=None, metavar="KERNEL")
    ap.add_argument("--tile-option", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--bytecode", action="store_true")
    ap.add_argument("--grid-stride", nargs="?", const="", default=None, metavar="KERNEL")
    return ap


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        if args.file == "-":
            text, path = sys.stdin.read(), "<stdin>"
        else:
            try:
                with open(args.file) as f:
                    text, path = f.read(), args.file
            except OSError as e:
                raise OptError(f"{args.file}: {e.strerror}") from None
        if args.bytecode and args.convert_to_tile is None:
            raise OptError("--bytecode needs --convert-to-tile")
        if args.grid_stride is not None and args.convert_to_tile is not None:
            raise OptError("--grid-stride prints TTIR: leave out --convert-to-tile")
        status, out = run(text, path, args.passes, args.convert_to_tile, args.tile_option,
                          args.bytecode, grid_stride=args.grid_stride)
    except OptError as e:
        print(f"opt: error: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(out)
    return status


if __name__ == "__main__":
    sys.exit(main())

"""The CPU targets of the compile driver (compiler/driver.py).

    cpu-tile:  tileir (tile_stage.convert: TTIR -> Tile IR, asm['tileir'], asm['tilebc'])
               program (the Tile IR executor's program)        falls back to cpu-ttir
    cpu-ttir:  ptx (PTX_PASSES: block pointers and descriptors to pointer tiles)
               program (the TTIR executor's program)

Both start from what `start` records of the TTIR (asm['ttir'], the located TTIR the cache
keeps, the arguments the kernel writes) and make a compiler.CompiledKernel.
"""

from __future__ import annotations

from ..compiler import driver, tile_stage
from ..compiler import kernel as cc
from ..runtime import specialize as sp
from . import cpu, grid_stride


def start(module, name: str, key: str, options, param_types, written) -> driver.State:
    """A CPU compile's state from inlined TTIR: asm['ttir'] (dumped), the located TTIR (what
    the cache keeps and reloads) and `written`, the argument indices the kernel stores
    through (compiler.ir_graph.written_arg_indices)."""
    state = driver.State(None, None, options, name, key)
    state.module = module
    state.asm = cc.ttir_asm(module, name, key)
    state.data.update(param_types=tuple(param_types), located=module.str(True),
                      written=sp.locate_arguments(param_types, written))
    return state


def _kernel(state: driver.State, path: str) -> cc.CompiledKernel:
    d = state.data
    program = d["program"]
    md = cc.make_metadata(state.name, state.key, path, state.reason, state.options,
                          d.get("accesses", ()), getattr(program, "arena_bytes", 0))
    return cc.CompiledKernel(state.name, state.asm, md, program, d["param_types"],
                             located_ttir=d["located"], written=d["written"])


def _convert(state: driver.State) -> None:
    tile = tile_stage.convert(state.module, state.name, state.options)
    state.data["accesses"] = tile.accesses
    cc._dump(state.name, state.key, "accesses", tile_stage.describe_accesses(tile.accesses))
    if tile.module is None:
        raise driver.Fallback(tile.reason)
    state.asm["tileir"] = tile.asm
    state.asm["tilebc"] = tile.bytecode
    if tile.grid is not None:
        state.asm["grid"] = grid_stride.asm_entry(tile)
    cc._dump(state.name, state.key, "tileir", tile.asm)
    state.data["tile"] = tile


def _prepare_tile(state: driver.State) -> None:
    program, reason = cpu.prepare_tile(state.data["tile"].module, state.name)
    if program is None:
        raise driver.Fallback(reason)
    state.data["program"] = program


def _lower(state: driver.State) -> None:
    cpu.core().run_passes(state.module, cc.PTX_PASSES)


def _prepare(state: driver.State) -> None:
    state.data["program"] = cpu.prepare(state.module, state.name)


class CPUTile(driver.Backend):
    name = "cpu-tile"
    stages = (("tileir", _convert), ("program", _prepare_tile))
    fallback = "cpu-ttir"

    def make_kernel(self, state):
        return _kernel(state, "tile")


class CPUTTIR(driver.Backend):
    name = "cpu-ttir"
    stages = (("ptx", _lower), ("program", _prepare))
    runs_on = "CPU: the TTIR executor"

    def make_kernel(self, state):
        return _kernel(state, "ptx")


BACKENDS = {b.name: b for b in (CPUTile(), CPUTTIR())}

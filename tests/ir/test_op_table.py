"""The op sets are declared once: the Tile IR op table (csrc/tile/op_table.h) is the list the
registry, the bytecode's opcodes and layouts are built from, and every op name the sources
spell as a string is an op the registry knows, so a misspelt name cannot hide in a branch that
never matches."""

import pathlib
import re

from triton_tile import _core

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Strings that look like op names but name something else, each with what it is.
NOT_OPS = {
    "cuda_tile.X": "a comment's placeholder (exec/kernels/shared_emit.h)",
    "cuda_tile.divi.ceil": "a shared kernel: divi with its rounding",
    "cuda_tile.divi.ceil.unsigned": "a shared kernel",
    "cuda_tile.divi.floor": "a shared kernel",
    "cuda_tile.mulhii.signed": "a shared kernel: mulhii with its signedness",
    "tt.constancy": "an attribute",
    "tt.contiguity": "an attribute",
    "tt.disallow_acc_multi_buffer": "an attribute",
    "tt.divisibility": "an attribute",
    "tt.flatten": "an attribute",
    "tt.loop_unroll_factor": "an attribute",
    "tt.num_stages": "an attribute",
    "tt.warp_specialize": "an attribute",
    "tt.ptr": "a type",
    "tt.dot_scaled": "stock Triton's op the frontend does not build (classify names it)",
}
OP_NAME = re.compile(r'"((?:tt|arith|math|scf|cf|cuda_tile)\.[A-Za-z_0-9.]+)"')


def test_every_tile_op_registered_is_in_the_table_with_its_bytecode_layout():
    table = {name: (code, since) for name, code, since in _core.tile_ops()}
    assert len(table) == len(_core.tile_ops()), "an op name appears twice in the table"
    assert len({code for code, _ in table.values()}) == len(table), "an opcode appears twice"
    layouts = set(_core.bytecode_layouts())
    registered = [n[len("cuda_tile."):] for n in _core.registered_ops()
                  if n.startswith("cuda_tile.")]
    assert len(registered) > 80
    for name in registered:
        bytecode_name = "print_tko" if name == "print" else name  # our IR's one alias
        assert bytecode_name in table, name
        if name not in ("entry", "module"):  # written as the function table and the header
            assert bytecode_name in layouts, f"{name} is registered but has no bytecode layout"
    assert layouts <= set(table)


def test_op_names_spelt_in_the_sources_are_registered_ops():
    files = [p for d in ("csrc", "triton_tile") for p in (ROOT / d).rglob("*")
             if p.suffix in (".cpp", ".h", ".py")]
    unknown = {}
    count = 0
    for path in files:
        for lineno, line in enumerate(path.read_text().splitlines(), 1):
            for name in OP_NAME.findall(line):
                count += 1
                if name not in NOT_OPS and not _core.registered(name):
                    unknown.setdefault(name, f"{path.relative_to(ROOT)}:{lineno}")
    assert count > 1000, count  # the scan sees the sources
    assert not unknown, f"op names no op set registers: {unknown}"


def test_tile_enums_spell_what_the_printer_prints():
    enums = _core.tile_enums()
    assert enums["rounding"]["nearest_even"] == 0 and enums["rounding"]["nearest_away"] == 7
    assert enums["comparison_predicate"]["less_than"] == 2
    assert enums["memory_scope"] == {"tl_blk": 0, "device": 1, "sys": 2}
    for table in enums.values():
        assert len(set(table.values())) == len(table)  # one spelling per number

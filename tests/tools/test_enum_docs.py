"""docs/internals.md spells the TTIR enums' numbers for readers; they must be the numbers of
the one table the printer, the parser and the frontend use (csrc/ttir/enums.h)."""

import os
import re

from triton_tile import _core

DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "internals.md")


def documented(row_start: str, attr: str) -> dict:
    with open(DOC) as f:
        row = next(line for line in f if line.startswith(row_start))
    part = row.split(f"`{attr}`", 1)[1].split(";", 1)[0].split("|", 1)[0]
    return {name: int(num) for name, num in re.findall(r"(\w+) (\d+)", part)}


def test_internals_md_numbers_are_the_tables():
    enums = _core.ttir_enums()
    assert documented("| `arith.cmpi`", "predicate") == enums["cmpi"]
    assert documented("| `arith.cmpf`", "predicate") == enums["cmpf"]
    rmw = documented("| `tt.atomic_rmw`", "atomic_rmw_op")
    assert rmw.pop("xchg") == enums["atomic_rmw"].pop("exch")  # tl's name, TTIR's spelling
    assert rmw == enums["atomic_rmw"]
    assert documented("| `tt.atomic_rmw`", "sem") == enums["mem_semantic"]
    assert documented("| `tt.atomic_rmw`", "scope") == enums["mem_sync_scope"]

"""Compile-only helpers for the frontend tests: TTIR text from a @jit function."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Tuple

from triton_tile import _core
from triton_tile.compiler.frontend import ast_to_ttir


@dataclass
class Options:
    debug: bool = False
    sanitize_overflow: bool = True
    default_dot_input_precision: str = "tf32"
    allowed_dot_input_precisions: Tuple[str, ...] = ("tf32", "tf32x3", "ieee")


def compile_module(fn, signature, constants=None, attrs=None, debug=False, passes=False):
    module = ast_to_ttir(fn, signature, constants or {}, attrs or {}, Options(debug=debug))
    if passes:
        _core.run_passes(module, ["inline", "canonicalize", "cse", "dce"])
        module.verify()
    return module


def ttir(fn, signature, constants=None, attrs=None, debug=False, passes=False) -> str:
    return str(compile_module(fn, signature, constants, attrs, debug, passes))


def ops(text: str):
    """The op names in TTIR text, in order (`%x = arith.addi ...` -> "arith.addi")."""
    names = []
    for line in text.splitlines():
        m = re.match(r"\s*(?:%[\w#:]+(?:, %[\w#:]+)* = )?\"?([a-z_]+\.[a-z_.]+)", line)
        if m:
            names.append(m.group(1))
    return names


def count(text: str, op: str) -> int:
    return ops(text).count(op)

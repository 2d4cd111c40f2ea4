"""A small FileCheck: the directives golden tests use, with LLVM FileCheck's meaning.

    // CHECK: text        the next match at or after the previous one (CHECK-LABEL: the same)
    // CHECK-NEXT: text   on the line right after the previous match's
    // CHECK-SAME: text   on the previous match's line, after it
    // CHECK-NOT: text    nowhere between the previous match and the next positive one (or the
                          end)
    // CHECK-COUNT-N: t   N consecutive matches, as N CHECKs

Patterns match literally within one line, except `{{regex}}` (a Python regex), `[[NAME:regex]]`
(captures what the regex matched as NAME) and `[[NAME]]` (what NAME captured, literally), which
let a test follow SSA names without pinning their numbers. Whitespace runs match any run of
spaces or tabs, as FileCheck's default.
"""

from __future__ import annotations

import re
from typing import Dict, List, NamedTuple, Optional

_DIRECTIVE = re.compile(r"//\s*CHECK(-NEXT|-SAME|-NOT|-LABEL|-COUNT-(\d+))?:\s?(.*)$")
_ANY = re.compile(r"//\s*CHECK[-\w]*")


class Check(NamedTuple):
    kind: str  # "", "-NEXT", "-SAME", "-NOT"
    pattern: str
    line: int  # in the test file, for messages


class CheckFailure(AssertionError):
    pass


def parse_checks(text: str) -> List[Check]:
    checks = []
    for number, line in enumerate(text.splitlines(), 1):
        m = _DIRECTIVE.search(line)
        if not m:
            if _ANY.search(line):  # a misspelt directive would silently check nothing
                raise CheckFailure(f"line {number}: unknown directive: {line.strip()!r}")
            continue
        kind, count, pattern = m.group(1) or "", m.group(2), m.group(3).rstrip()
        kind = "" if kind == "-LABEL" else kind
        if count:
            checks.extend(Check("", pattern, number) for _ in range(int(count)))
        else:
            checks.append(Check(kind, pattern, number))
    return checks


def _regex(pattern: str, names: Dict[str, str]) -> "re.Pattern":
    out, i = [], 0
    token = re.compile(r"\{\{(.*?)\}\}|\[\[(\w+):(.*?)\]\]|\[\[(\w+)\]\]|[ \t]+")
    for m in token.finditer(pattern):
        out.append(re.escape(pattern[i:m.start()]))
        if m.group(1) is not None:
            out.append(f"(?:{m.group(1)})")
        elif m.group(2) is not None:
            out.append(f"(?P<{m.group(2)}>{m.group(3)})")
        elif m.group(4) is not None:
            if m.group(4) not in names:
                raise CheckFailure(f"[[{m.group(4)}]] used before it was captured")
            out.append(re.escape(names[m.group(4)]))
        else:
            out.append(r"[ \t]+")
        i = m.end()
    out.append(re.escape(pattern[i:]))
    return re.compile("".join(out))


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos)


def filecheck(output: str, checks: List[Check], where: str = "") -> None:
    """Raises CheckFailure naming the directive's line and what the output held there."""
    if not checks:
        raise CheckFailure(f"{where}: no CHECK lines: a test that cannot fail")
    names: Dict[str, str] = {}
    lines = output.splitlines(keepends=True)
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln))
    pos, last_line = 0, -1
    pending_not: List[Check] = []

    def search(check: Check, lo: int, hi: int) -> Optional["re.Match"]:
        rx = _regex(check.pattern, names)
        return rx.search(output, lo, hi)

    def fail(check: Check, why: str) -> None:
        ctx_line = max(last_line, 0)
        context = "".join(lines[ctx_line:ctx_line + 3]) if lines else "(empty output)\n"
        raise CheckFailure(f"{where}:{check.line}: CHECK{check.kind}: {check.pattern!r} {why}"
                           f"\n  output from line {ctx_line + 1}:\n{context}")

    def settle_nots(until: int) -> None:
        for n in pending_not:
            m = search(n, pos, until)
            if m:
                fail(n, f"matched at output line {_line_of(output, m.start()) + 1}: "
                        f"{lines[_line_of(output, m.start())].strip()!r}")
        pending_not.clear()

    for check in checks:
        if check.kind == "-NOT":
            pending_not.append(check)
            continue
        if check.kind == "-NEXT":
            target = last_line + 1
            if target >= len(lines):
                fail(check, "has no next line")
            m = search(check, starts[target], starts[target + 1])
            if not m:
                fail(check, f"is not on the next line ({lines[target].strip()!r})")
        elif check.kind == "-SAME":
            if last_line < 0:
                fail(check, "has no previous match")
            m = search(check, pos, starts[last_line + 1])
            if not m:
                fail(check, "is not on the previous match's line")
        else:
            m = search(check, pos, len(output))
            if not m:
                fail(check, "not found")
        settle_nots(m.start())
        names.update({k: v for k, v in m.groupdict().items() if v is not None})
        pos, last_line = m.end(), _line_of(output, m.start())
    settle_nots(len(output))

"""Compile-time errors a kernel author sees.

A `CompilationError` points at the offending source: `file:line:col`, the message, the source
line with a caret under the column, then the chain of @jit calls that led there (innermost
first), one call site per entry. Errors are picklable (autotuning may run in subprocesses).
"""

from __future__ import annotations

from typing import NamedTuple, Optional, Sequence

from ..runtime.errors import InterpreterError


class SourceLocation(NamedTuple):
    """One point in a kernel's source: where an error happened or a call was made."""

    file: str
    line: int  # 1-based line in `file`
    col: int  # 1-based column
    source_line: str  # the text of that line ("" when unknown)
    function: str  # the @jit function the line belongs to

    def header(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def excerpt(self) -> str:
        if not self.source_line:
            return ""
        text = self.source_line.rstrip()
        stripped = text.lstrip()
        indent = len(text) - len(stripped)
        caret = " " * max(0, self.col - 1 - indent) + "^"
        return f"    {stripped}\n    {caret}"


class CompilationError(InterpreterError):
    """A kernel could not be compiled; `str(err)` shows where and why. It is a TritonError and,
    for code written for Triton's CPU interpreter (which raises InterpreterError for the same
    kernel errors), an InterpreterError."""

    def __init__(self, message: str, location: Optional[SourceLocation] = None,
                 call_chain: Sequence[SourceLocation] = ()):
        self.error_message = message
        self.location = location
        self.call_chain = tuple(call_chain)
        super().__init__(self._format())

    # Triton's CompilationError exposes the bare message and the source
    @property
    def src(self) -> str:
        return self.location.source_line if self.location else ""

    @property
    def lineno(self) -> Optional[int]:
        return self.location.line if self.location else None

    @property
    def filename(self) -> Optional[str]:
        return self.location.file if self.location else None

    def _format(self) -> str:
        parts = []
        if self.location is not None:
            parts.append(f"{self.location.header()}: {self.error_message}")
            ex = self.location.excerpt()
            if ex:
                parts.append(ex)
        else:
            parts.append(str(self.error_message))
        callee = self.location.function if self.location else None
        for site in self.call_chain:
            what = f"{callee}()" if callee else "the callee"
            parts.append(f"  in {what}, called from {site.function}() at {site.header()}:")
            ex = site.excerpt()
            if ex:
                parts.append(ex)
            callee = site.function
        return "\n".join(parts)

    def with_call_site(self, site: SourceLocation) -> "CompilationError":
        """The same error seen from a caller: `site` appended to the call chain."""
        err = type(self).__new__(type(self))
        CompilationError.__init__(err, self.error_message, self.location,
                                  self.call_chain + (site,))
        return err

    def __reduce__(self):
        return (_rebuild, (type(self), self.error_message, self.location, self.call_chain))


def _rebuild(cls, message, location, call_chain):
    err = cls.__new__(cls)
    CompilationError.__init__(err, message, location, call_chain)
    return err


class CompileTimeAssertionFailure(CompilationError):
    """`tl.static_assert` failed. The autotuner treats it as an invalid config."""


class UnsupportedLanguageConstruct(CompilationError):
    """A Python construct the kernel language does not support (the message says what to
    write instead)."""


__all__ = ["CompilationError", "CompileTimeAssertionFailure", "UnsupportedLanguageConstruct",
           "SourceLocation"]

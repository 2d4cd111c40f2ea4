"""The compiler: frontend (AST -> TTIR), the stage list, compiled kernels, errors."""

from .compiler import ASTSource, CompiledKernel, Specialization, compile, compile_kernel
from .errors import CompilationError

__all__ = ["ASTSource", "CompiledKernel", "Specialization", "compile", "compile_kernel",
           "CompilationError"]

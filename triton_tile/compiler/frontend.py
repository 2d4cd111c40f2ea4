"""The frontend: a @jit function's Python AST -> TTIR, through the `_core` IR builder.

`ast_to_ttir(jit_fn, signature, constants, attrs, options)` (docs/internals.md) walks the
kernel's AST with a `CodeGenerator`, which keeps a scope of kernel values (tensors, tuples,
constexprs) and turns Python constructs into TTIR:

* expressions call the `tl` builtins (language/semantic.py does typing and emits the ops);
* `if` on a constexpr compiles only the taken branch; `if` on a scalar tensor becomes `scf.if`
  yielding the variables both branches define (or that either redefines);
* `for` over `range`/`tl.range` becomes `scf.for`, `while` becomes `scf.while`; variables
  assigned in the body that are tensors before the loop are loop-carried and must keep their
  type; `tl.static_range` is unrolled here;
* a dynamic `if` containing `return` takes the rest of the enclosing block into the branches
  that fall through, so every path ends in a return and the return values are yielded by
  `scf.if` (structured control flow only, no `cf` ops);
* calls to other @jit functions emit one private `tt.func` per (callee, argument types,
  constexpr values) and a `tt.call`; the `inline` pass inlines them, keeping call-site
  locations, so errors show the chain.

Result types of `scf.if` must be known when the op is created, so the branches are first
visited once into a scratch region ("probe") to learn them, then visited for real.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import inspect
import re
import types
from typing import Any, Dict, List, Optional, Tuple

from .. import _core
from ..language import core as tl
from ..language import standard as tl_standard
from ..language.semantic import Semantic
from ..runtime import dependencies as deps
from .errors import (
    CompilationError,
    CompileTimeAssertionFailure,
    SourceLocation,
    UnsupportedLanguageConstruct,
)

# --------------------------------------------------------------------------------------------
# helpers on kernel values
# --------------------------------------------------------------------------------------------


def _unwrap(v):
    return v.value if isinstance(v, tl.constexpr) else v


def _is_tensor(v) -> bool:
    return isinstance(v, tl.tensor)


def is_jit_function(v) -> bool:
    """A @triton_tile.jit function (the runtime's JITFunction), told by its type's name and
    cache key (runtime/dependencies.py) rather than by importing the runtime, which imports
    this compiler."""
    return deps.is_jit_function(v)


# A value's "spec" describes its structure: tensors become IR values (handles), tuples nest,
# anything else is a compile-time constant carried in the spec itself.
#   ("t", tl type) | ("tuple", [spec, ...]) | ("c", python value)
#   | ("desc", tensor_descriptor_type, base pointer type)
#   | ("hostdesc", tensor_descriptor_type)          (kernel parameters only)
#   | ("bp", block pointer type, order, base type)
#   | ("bpoffs", block pointer type, order, (base, shape, strides))   (scf.for only)
# A tensor descriptor travels (through calls, loops, branches, returns) as its operands: the
# base pointer, the shape (i32 x r) and the leading strides (i64 x r-1; the last is the
# constant 1); where it arrives, a new tt.make_tensor_descriptor is built from them. So every
# descriptor access sees its tt.make_tensor_descriptor, which the lowering passes rely on. A
# host descriptor parameter is `base, shape x r (i32), strides x r (i64)` (docs/internals.md);
# its last stride is known to be 1 and the constant is used instead.
# Block pointers travel the same way, as the operands of their tt.make_tensor_ptr (base, shape
# and strides i64, offsets i32), so a block pointer reassigned in a branch, a while loop or a
# loop body (not just advanced) still reaches every access as a tt.make_tensor_ptr. A for loop
# whose block pointer only moves (tl.advance) carries just the offsets ("bpoffs"), which is
# what the expand-block-pointer-loops pass would make of it.

def _flatten(v, out: list):
    if isinstance(v, tl.tensor):
        parts = getattr(v, "bp_parts", None)
        if parts is not None:
            out.append(parts.base.handle)
            out.extend(x.handle for x in parts.shape + parts.strides + parts.offsets)
            return ("bp", v.type, parts.order, parts.base.type)
        out.append(v.handle)
        return ("t", v.type)
    if isinstance(v, tl.tuple):
        return ("tuple", [_flatten(x, out) for x in v.values], v.fields)
    if isinstance(v, tl.tensor_descriptor):
        out.append(v.base.handle)
        out.extend(x.handle for x in v.shape)
        out.extend(x.handle for x in v.strides[:-1])
        return ("desc", v.type, v.base.type)
    return ("c", v)


def _unflatten(handles, spec, sem=None):
    kind = spec[0]
    if kind == "t":
        return tl.tensor(next(handles), spec[1])
    if kind == "tuple":
        return tl.tuple([_unflatten(handles, s, sem) for s in spec[1]], fields=spec[2])
    if kind in ("desc", "hostdesc"):
        ty = spec[1]
        rank = len(ty.block_type.shape)
        elt = ty.block_type.element_ty
        base = tl.tensor(next(handles), spec[2] if kind == "desc" else tl.pointer_type(elt))
        shape = [tl.tensor(next(handles), tl.int32) for _ in range(rank)]
        strides = [tl.tensor(next(handles), tl.int64) for _ in range(rank - 1)]
        if kind == "hostdesc":
            next(handles)  # the last stride: 1, checked on the host
        return sem.tensor_descriptor(base, shape, strides, ty)
    if kind in ("bp", "bpoffs"):
        ty, order = spec[1], spec[2]
        rank = len(ty.element_ty.shape)
        if kind == "bp":
            base = tl.tensor(next(handles), spec[3])
            shape = [tl.tensor(next(handles), tl.int64) for _ in range(rank)]
            strides = [tl.tensor(next(handles), tl.int64) for _ in range(rank)]
        else:
            base, shape, strides = spec[3]
        offsets = [tl.tensor(next(handles), tl.int32) for _ in range(rank)]
        return sem.block_pointer(base, shape, strides, offsets, order, ty)
    return spec[1]


def _flatten_like(v, spec, out: list):
    """Flatten `v` the way `spec` says (for scf.yield and loop inits): checks that `v` has
    that structure, and for "bpoffs" that its base, shape and strides are those of the spec."""
    if spec[0] == "bpoffs":
        parts = getattr(v, "bp_parts", None) if isinstance(v, tl.tensor) else None
        fixed = spec[3]
        if parts is None or v.type != spec[1] or parts.order != spec[2] or \
                parts.base.handle.id != fixed[0].handle.id or \
                any(a.handle.id != b.handle.id for a, b in
                    zip(parts.shape + parts.strides, fixed[1] + fixed[2])):
            return None
        out.extend(x.handle for x in parts.offsets)
        return spec
    if spec[0] == "tuple" and isinstance(v, tl.tuple) and len(v.values) == len(spec[1]):
        subs = [_flatten_like(x, s, out) for x, s in zip(v.values, spec[1])]
        if any(s is None for s in subs):
            return None
        return ("tuple", subs, v.fields)
    got = _flatten(v, out)
    return got if _spec_equal(spec, got) else None


def _spec_ir_types(spec, out: list):
    if spec[0] == "t":
        out.append(spec[1].to_ir())
    elif spec[0] == "tuple":
        for s in spec[1]:
            _spec_ir_types(s, out)
    elif spec[0] in ("bp", "bpoffs"):
        rank = len(spec[1].element_ty.shape)
        if spec[0] == "bp":
            out.append(spec[3].to_ir())
            out.extend(_core.int_type(64) for _ in range(2 * rank))
        out.extend(_core.int_type(32) for _ in range(rank))
    elif spec[0] in ("desc", "hostdesc"):
        ty = spec[1]
        rank = len(ty.block_type.shape)
        base = spec[2] if spec[0] == "desc" else tl.pointer_type(ty.block_type.element_ty)
        out.append(base.to_ir())
        out.extend(_core.int_type(32) for _ in range(rank))
        out.extend(_core.int_type(64) for _ in range(rank if spec[0] == "hostdesc"
                                                     else rank - 1))
    return out


def _const_equal(a, b) -> bool:
    a, b = _unwrap(a), _unwrap(b)
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    try:
        return bool(a == b)
    except Exception:
        return False


def _spec_equal(a, b) -> bool:
    if a[0] != b[0]:
        return False
    if a[0] == "t":
        return a[1] == b[1]
    if a[0] == "tuple":
        return len(a[1]) == len(b[1]) and all(_spec_equal(x, y) for x, y in zip(a[1], b[1]))
    if a[0] in ("desc", "hostdesc", "bp"):
        return a[1:] == b[1:]
    if a[0] == "bpoffs":
        return a[1:3] == b[1:3] and all(
            x.handle.id == y.handle.id for x, y in
            zip([a[3][0]] + a[3][1] + a[3][2], [b[3][0]] + b[3][1] + b[3][2]))
    return _const_equal(a[1], b[1])


def _spec_str(spec) -> str:
    if spec[0] == "t":
        return str(spec[1])
    if spec[0] == "tuple":
        return "(" + ", ".join(_spec_str(s) for s in spec[1]) + ")"
    if spec[0] in ("desc", "hostdesc"):
        return str(spec[1])
    if spec[0] in ("bp", "bpoffs"):
        return f"{spec[1]} (order {list(spec[2])})"
    v = _unwrap(spec[1])
    return "None" if v is None else f"constexpr[{v!r}]"


def _same_value(a, b) -> bool:
    """Is `b` the very value `a` (not a recomputation)? Used to spot reassigned variables."""
    if a is b:
        return True
    if isinstance(a, tl.tensor) and isinstance(b, tl.tensor):
        return a.handle.id == b.handle.id and a.type == b.type
    if isinstance(a, tl.tuple) and isinstance(b, tl.tuple):
        return len(a.values) == len(b.values) and all(
            _same_value(x, y) for x, y in zip(a.values, b.values))
    if isinstance(a, tl.tensor_descriptor) and isinstance(b, tl.tensor_descriptor):
        return a.handle.id == b.handle.id and a.type == b.type
    return False


def _holds_tensors(v) -> bool:
    if isinstance(v, (tl.tensor, tl.tensor_descriptor)):
        return True
    if isinstance(v, tl.tuple):
        return any(_holds_tensors(x) for x in v.values)
    return False


def _mangle_part(spec) -> str:
    if spec[0] == "t":
        t = spec[1]
        if isinstance(t, tl.block_type):
            return t.element_ty.codegen_name() + "S" + "_".join(map(str, t.shape)) + "S"
        return t.codegen_name()
    if spec[0] == "tuple":
        return "T" + "_".join(_mangle_part(s) for s in spec[1]) + "T"
    if spec[0] in ("desc", "hostdesc"):
        return spec[1].mangle()
    if spec[0] == "bp":
        return "B" + spec[1].element_ty.mangle() + "O" + "_".join(map(str, spec[2])) + "B"
    v = _unwrap(spec[1])
    if is_jit_function(v):
        text = v.__name__
    elif isinstance(v, tl.dtype):
        text = v.codegen_name()
    else:
        text = repr(v)
    return "c" + text


def _hashable(spec):
    if spec[0] == "t":
        return ("t", spec[1])
    if spec[0] == "tuple":
        return ("tuple", tuple(_hashable(s) for s in spec[1]), spec[2])
    if spec[0] in ("desc", "hostdesc", "bp"):
        return spec
    v = _unwrap(spec[1])
    try:
        hash(v)
        return ("c", type(v).__name__, v)
    except TypeError:
        return ("c", type(v).__name__, repr(v))


def _assigned_names(stmts) -> List[str]:
    """Names a statement list assigns (anywhere inside it), in first-assignment order."""
    seen: Dict[str, None] = {}
    for st in stmts:
        for node in ast.walk(st):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                seen.setdefault(node.id, None)
    return list(seen)


def _is_plain_ref(node) -> bool:
    """`name` or `name.attr.attr`: evaluating it has no effect."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _contains_return(node) -> bool:
    return any(isinstance(n, ast.Return) for n in ast.walk(node))


class _Returned:
    """The result of a statement list that returned (`value` may be None)."""

    def __init__(self, value):
        self.value = value


class _BoundJIT:
    """`x.sigmoid()`: a @jit library function bound to a tensor as a method."""

    def __init__(self, fn, obj):
        self.fn = fn
        self.obj = obj


_UNSUPPORTED_HINTS = {
    ast.Break: "`break` is not supported in kernels; fold the exit condition into a `while` "
               "loop's condition, or guard the rest of the body with a mask",
    ast.Continue: "`continue` is not supported in kernels; put the rest of the loop body under "
                  "an `if`",
    ast.Try: "try/except is not supported in kernels",
    ast.Raise: "`raise` is not supported in kernels; use tl.static_assert (compile time) or "
               "tl.device_assert (run time)",
    ast.Lambda: "lambda is not supported in kernels; define a separate @triton.jit function",
    ast.FunctionDef: "nested function definitions are not supported; define the function at "
                     "module level with @triton.jit",
    ast.AsyncFunctionDef: "async functions are not supported in kernels",
    ast.ClassDef: "class definitions are not supported in kernels",
    ast.Global: "`global` is not supported in kernels; read module-level tl.constexpr values "
                "or pass arguments",
    ast.Nonlocal: "`nonlocal` is not supported in kernels; pass values as arguments",
    ast.Dict: "dict literals are not supported in kernels; use a tuple",
    ast.Set: "set literals are not supported in kernels; use a tuple",
    ast.DictComp: "dict comprehensions are not supported in kernels",
    ast.SetComp: "set comprehensions are not supported in kernels",
    ast.GeneratorExp: "generator expressions are not supported in kernels; use "
                      "tl.static_range or a tuple comprehension",
    ast.Delete: "`del` is not supported in kernels",
    ast.With: "`with` is not supported in kernels",
    ast.Import: "imports are not supported inside kernels; import at module level",
    ast.ImportFrom: "imports are not supported inside kernels; import at module level",
    ast.Yield: "`yield` is not supported in kernels",
    ast.YieldFrom: "`yield` is not supported in kernels",
    ast.Await: "`await` is not supported in kernels",
    ast.NamedExpr: "the walrus operator is not supported in kernels; assign on its own line",
}

_BINOP_METHODS = {
    ast.Add: "__add__", ast.Sub: "__sub__", ast.Mult: "__mul__", ast.Div: "__truediv__",
    ast.FloorDiv: "__floordiv__", ast.Mod: "__mod__", ast.Pow: "__pow__",
    ast.LShift: "__lshift__", ast.RShift: "__rshift__", ast.BitAnd: "__and__",
    ast.BitOr: "__or__", ast.BitXor: "__xor__",
}
_CMP_METHODS = {
    ast.Eq: "__eq__", ast.NotEq: "__ne__", ast.Lt: "__lt__", ast.LtE: "__le__",
    ast.Gt: "__gt__", ast.GtE: "__ge__",
}
_UNARY_METHODS = {ast.USub: "__neg__", ast.UAdd: "__pos__", ast.Not: "__not__",
                  ast.Invert: "__invert__"}


def _reverse_method(name: str) -> str:
    return re.sub(r"__(.*)__", r"__r\1__", name)


_CONDITION_TYPES = (bool, int, type(None))


# --------------------------------------------------------------------------------------------
# compile context: what every function generated into one module shares
# --------------------------------------------------------------------------------------------

class _DefaultOptions:
    debug = False
    sanitize_overflow = True
    default_dot_input_precision = "tf32"
    allowed_dot_input_precisions = ("tf32", "tf32x3", "ieee")


class CompileContext:
    def __init__(self, options):
        self.options = options if options is not None else _DefaultOptions()
        self.module = _core.Module()
        self.builder = _core.Builder(self.module)
        self.semantic = Semantic(self.builder, self.options, self)
        self.kernel_op = None
        self.callees: Dict[Any, Tuple[str, Any]] = {}  # key -> (symbol, return spec)
        self.pending: Dict[Any, str] = {}  # keys being generated (recursion guard)
        self.symbols: set = set()
        self.generators: List["CodeGenerator"] = []
        self.probing = 0

    # used by Semantic for user combine functions
    def is_jit_function(self, fn) -> bool:
        return is_jit_function(fn)

    def call_jit(self, fn, args):
        return self.generators[-1].call_jit_function(fn, list(args), {})

    def unique_symbol(self, base: str) -> str:
        base = re.sub(r"[^A-Za-z0-9_]", "_", base)
        if len(base) > 120:
            base = base[:120]
        name, n = base, 1
        while name in self.symbols:
            name = f"{base}_{n}"
            n += 1
        self.symbols.add(name)
        return name


def ast_to_ttir(jit_fn, signature: dict, constants: dict, attrs: dict, options):
    """Compile `jit_fn` for one specialization into a `_core.Module` holding the public kernel
    `tt.func @<name>` (its non-constexpr parameters in order) and private callees."""
    ctx = CompileContext(options)
    gen = CodeGenerator(ctx, jit_fn, jit_fn.__name__, is_kernel=True)
    gen.generate_kernel(dict(signature or {}), dict(constants or {}), dict(attrs or {}))
    try:
        ctx.module.verify()
    except _core.IRError as e:
        raise CompilationError(f"internal error: the generated TTIR does not verify ({e}); "
                               "please report this with the kernel") from e
    return ctx.module


# --------------------------------------------------------------------------------------------
# the code generator: one per generated function
# --------------------------------------------------------------------------------------------

_PY_BUILTIN_NAMES = ("len", "list", "range", "float", "int", "bool", "isinstance", "getattr",
                     "hasattr", "print", "min", "max", "abs", "tuple", "str", "repr", "enumerate",
                     "zip", "type", "sum", "any", "all", "round")


def _is_const_annotation(annotation) -> bool:
    """`p: tl.const` (or the string form `from __future__ import annotations` leaves)."""
    if isinstance(annotation, str):
        return annotation.strip().split(".")[-1] == "const"
    return annotation is tl.const


def _const_pointer_spec(spec, name, fn_name):
    """A `tl.const` parameter: the argument's pointer type, made const (stores through it are
    compile errors; it does not mix with non-const pointers)."""
    kind, ty = spec[0], spec[1] if len(spec) > 1 else None
    if kind != "t" or not isinstance(ty, tl.pointer_type):
        raise CompilationError(f"{fn_name}: parameter {name!r} is annotated tl.const but its "
                               "argument is not a pointer")
    return ("t", tl.pointer_type(ty.element_ty, ty.address_space, True))


class CodeGenerator(ast.NodeVisitor):
    def __init__(self, ctx: CompileContext, jit_fn, fn_name: str, is_kernel: bool):
        self.ctx = ctx
        self.jit_fn = jit_fn
        self.fn_name = fn_name
        self.is_kernel = is_kernel
        self.builder = ctx.builder
        self.sem = ctx.semantic
        self.src = jit_fn.src
        self.src_lines = self.src.splitlines()
        self.file_name = getattr(jit_fn, "file_name", None) or \
            jit_fn.fn.__code__.co_filename
        self.begin_line = getattr(jit_fn, "starting_line_number", None) or \
            jit_fn.fn.__code__.co_firstlineno
        self.gscope = self._capture_scope()
        self.freevars = set(jit_fn.fn.__code__.co_freevars)
        self.lscope: Dict[str, Any] = {}
        self.local_defs: Dict[str, Any] = {}
        self.loop_depth = 0
        self.cur_node: Optional[ast.AST] = None
        self.cur_loc: Optional[Tuple[str, int, int]] = None
        self.func_op = None
        self.py_builtins = {
            "len": len, "list": self._py_list, "range": builtins.range, "float": float,
            "int": int, "bool": bool, "isinstance": isinstance, "getattr": getattr,
            "hasattr": hasattr, "print": tl.device_print, "min": builtins.min,
            "max": builtins.max, "abs": builtins.abs, "tuple": tl.tuple, "str": str,
            "repr": repr, "enumerate": enumerate, "zip": zip, "type": type, "any": any,
            "all": all, "sum": builtins.sum, "round": builtins.round,
        }

    def _capture_scope(self) -> Dict[str, Any]:
        get = getattr(self.jit_fn, "get_capture_scope", None)
        if get is not None:
            return get()
        fn = self.jit_fn.fn
        scope = dict(fn.__globals__)
        if fn.__closure__:
            for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                try:
                    scope[name] = cell.cell_contents
                except ValueError:
                    pass
        return scope

    # ----------------------------------------------------------------------------------------
    # locations and errors
    # ----------------------------------------------------------------------------------------

    def _abs_line(self, node) -> int:
        return self.begin_line + node.lineno - 1

    def _source_location(self, node) -> SourceLocation:
        lineno = getattr(node, "lineno", None)
        if lineno is None:
            return SourceLocation(self.file_name, self.begin_line, 1, "", self.fn_name)
        text = self.src_lines[lineno - 1] if 0 < lineno <= len(self.src_lines) else ""
        return SourceLocation(self.file_name, self._abs_line(node), node.col_offset + 1, text,
                              self.fn_name)

    def _set_loc(self, node):
        self.cur_loc = (self.file_name, self._abs_line(node), node.col_offset + 1)
        self.builder.set_loc(*self.cur_loc)

    def _restore_loc(self, loc):
        self.cur_loc = loc
        if loc is not None:
            self.builder.set_loc(*loc)

    def _error(self, node, message, cls=CompilationError) -> CompilationError:
        return cls(message, self._source_location(node if node is not None else self.cur_node))

    def _unsupported(self, node, message) -> CompilationError:
        return self._error(node, message, UnsupportedLanguageConstruct)

    @contextlib.contextmanager
    def _at(self, node):
        """Ops created inside carry `node`'s location; exceptions become CompilationErrors
        pointing at it."""
        prev_node, prev_loc = self.cur_node, self.cur_loc
        if hasattr(node, "lineno"):
            self.cur_node = node
            self._set_loc(node)
        try:
            yield
        except CompilationError:
            raise
        except Exception as e:
            raise self._wrap_exception(e) from e
        finally:
            self.cur_node = prev_node
            self._restore_loc(prev_loc)

    def _wrap_exception(self, e: Exception) -> CompilationError:
        msg = str(e)
        if isinstance(e, KeyError) and e.args:
            msg = str(e.args[0])
        if not isinstance(e, (ValueError, TypeError, AssertionError, NameError,
                              NotImplementedError)):
            msg = f"{type(e).__name__}: {msg}"
        elif not msg:
            msg = type(e).__name__
        return self._error(self.cur_node, msg)

    def visit(self, node):
        if node is None:
            return None
        with self._at(node):
            return super().visit(node)

    def generic_visit(self, node):
        hint = _UNSUPPORTED_HINTS.get(type(node))
        if hint is None:
            hint = f"unsupported AST node type: {type(node).__name__}"
        raise self._unsupported(node, hint)

    # ----------------------------------------------------------------------------------------
    # functions
    # ----------------------------------------------------------------------------------------

    def _parse(self) -> ast.FunctionDef:
        tree = self.jit_fn.parse() if hasattr(self.jit_fn, "parse") else ast.parse(self.src)
        fdef = tree.body[0]
        if not isinstance(fdef, ast.FunctionDef):
            raise CompilationError(f"{self.fn_name}: expected a function definition")
        self._void_function = all(n.value is None for n in ast.walk(fdef)
                                  if isinstance(n, ast.Return))
        return fdef

    def _create_func(self, name, input_types, visibility):
        ft = _core.func_type(list(input_types), [])
        op = self.builder.create("tt.func", [], [], {
            "sym_name": _core.str_attr(name),
            "function_type": _core.type_attr(ft),
            "sym_visibility": _core.str_attr(visibility),
        }, 1)
        blk = op.region(0).add_block(list(input_types))
        return op, blk

    def set_value(self, name, value):
        self.lscope[name] = value
        self.local_defs[name] = value

    def generate_kernel(self, signature, constants, attrs):
        fdef = self._parse()
        arg_types: List[Any] = []
        bindings: List[Tuple[str, Any]] = []  # (name, spec) with ("t", ty) leaves as params
        py_sig = inspect.signature(self.jit_fn.fn)
        for name in self.jit_fn.arg_names:
            ty = signature.get(name, "constexpr")
            if isinstance(ty, (builtins.tuple, list)):
                # a tuple parameter: its constexpr elements (and namedtuple field names) come
                # from constants[name], the argument itself, when the runtime provides it
                bindings.append((name, self._signature_spec(name, ty, constants.get(name))))
                continue
            if name in constants or (name in signature and ty == "constexpr"):
                bindings.append((name, ("c", self._as_constexpr(constants.get(name)))))
                continue
            if name in signature:
                spec = self._signature_spec(name, ty, None)
                if _is_const_annotation(py_sig.parameters[name].annotation):
                    spec = _const_pointer_spec(spec, name, self.fn_name)
                bindings.append((name, spec))
                continue
            param = py_sig.parameters[name]
            if param.default is inspect.Parameter.empty:
                raise CompilationError(f"{self.fn_name}: parameter {name!r} is neither in the "
                                       "signature nor in the constants")
            bindings.append((name, ("c", self._as_constexpr(param.default))))
        for _, spec in bindings:
            _spec_ir_types(spec, arg_types)

        with self._at(fdef):
            self.func_op, entry = self._create_func(self.fn_name, arg_types, "public")
        self.ctx.kernel_op = self.func_op
        # argument attributes (divisibility hints)
        i = 0
        for name, spec in bindings:
            n = len(_spec_ir_types(spec, []))
            if spec[0] == "t":
                for attr_name, value in attrs.get(name, ()):
                    self.func_op.set_arg_attr(i, attr_name,
                                              _core.int_attr(int(value), _core.int_type(32)))
            self._host_descriptor_hints(spec, i)
            i += n
        self.builder.set_insertion_point_to_end(entry)
        handles = iter(entry.args)
        with self._at(fdef):
            for name, spec in bindings:
                self.lscope[name] = _unflatten(handles, spec, self.sem)
        self.ctx.generators.append(self)
        try:
            ret = self._visit_block(fdef.body)
            value = ret.value if ret is not None else None
            if value is not None:
                raise self._error(self._last_return or fdef,
                                  "a kernel cannot return a value (store results through "
                                  "pointer arguments instead)")
            with self._at(fdef):
                self.builder.create("tt.return", [], [])
        finally:
            self.ctx.generators.pop()

    _last_return = None
    _void_function = False

    def _host_descriptor_hints(self, spec, first: int) -> int:
        """A host TensorDescriptor's base is 16-byte aligned (checked on the host): say so on
        its parameter. Returns the number of parameters `spec` covers."""
        if spec[0] == "tuple":
            n = 0
            for s in spec[1]:
                n += self._host_descriptor_hints(s, first + n)
            return n
        if spec[0] == "hostdesc":
            self.func_op.set_arg_attr(first, "tt.divisibility",
                                      _core.int_attr(16, _core.int_type(32)))
        return len(_spec_ir_types(spec, []))

    def _as_constexpr(self, value):
        if isinstance(value, (tl.constexpr, tl.tensor, tl.tuple)):
            return value
        if isinstance(value, (list, builtins.tuple)):
            return tl.tuple([self._as_constexpr(v) for v in value],
                            fields=getattr(value, "_fields", None))
        return tl.constexpr(value)

    def _signature_spec(self, name, ty, const_value):
        if isinstance(ty, (builtins.tuple, list)):
            fields = getattr(ty, "_fields", None)
            specs = []
            for j, t in enumerate(ty):
                if t == "constexpr":
                    v = None
                    if isinstance(const_value, (builtins.tuple, list)) and j < len(const_value):
                        v = const_value[j]
                    specs.append(("c", self._as_constexpr(v)))
                else:
                    sub = const_value[j] if isinstance(const_value, (builtins.tuple, list)) \
                        and j < len(const_value) else None
                    specs.append(self._signature_spec(name, t, sub))
            if fields is None and hasattr(const_value, "_fields"):
                fields = const_value._fields
            return ("tuple", specs, fields)
        if isinstance(ty, str) and ty.startswith("("):
            raise CompilationError(f"{self.fn_name}: tuple parameter {name!r} must be given as a "
                                   "Python tuple of type strings")
        if isinstance(ty, str) and ty.strip().startswith("tensordesc"):
            # a host TensorDescriptor: `tensordesc<fp16[64, 64]>` (padding zero) or
            # `tensordesc<fp16[64, 64],nan>`
            try:
                return ("hostdesc", tl.str_to_ty(ty))
            except ValueError as e:
                raise CompilationError(f"{self.fn_name}: parameter {name!r}: {e}") from None
        try:
            return ("t", tl.str_to_ty(ty))
        except ValueError:
            raise CompilationError(f"{self.fn_name}: parameter {name!r} has type {ty!r}, which "
                                   "this frontend does not support") from None

    def generate_callee(self, name: str, arg_specs: Dict[str, Any]):
        """Emit `tt.func private @name` for the given argument specs; returns the return
        value's spec."""
        fdef = self._parse()
        input_types: List[Any] = []
        for pname in self.jit_fn.arg_names:
            _spec_ir_types(arg_specs[pname], input_types)
        ip = self.builder.save_ip()
        self.builder.set_insertion_point_before(self.ctx.kernel_op)
        try:
            with self._at(fdef):
                self.func_op, entry = self._create_func(name, input_types, "private")
            handles = iter(entry.args)
            self.builder.set_insertion_point_to_end(entry)
            with self._at(fdef):
                for pname in self.jit_fn.arg_names:
                    self.lscope[pname] = _unflatten(handles, arg_specs[pname], self.sem)
            ret = self._visit_block(fdef.body)
            value = ret.value if ret is not None else None
            out: list = []
            spec = _flatten(value, out) if value is not None else None
            with self._at(fdef):
                self.builder.create("tt.return", out, [])
            ft = _core.func_type(input_types, [h.type for h in out])
            self.func_op.set_attr("function_type", _core.type_attr(ft))
            return spec
        finally:
            self.builder.restore_ip(ip)

    def call_jit_function(self, fn, args, kwargs):
        """Call another @jit function: bind arguments (defaults applied), make non-tensor
        arguments constexprs, generate the specialized callee once, emit `tt.call`."""
        try:
            bound = inspect.signature(fn.fn).bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{fn.__name__}(): {e}") from None
        bound.apply_defaults()
        arg_specs: Dict[str, Any] = {}
        handles: list = []
        for pname in fn.arg_names:
            value = self._callee_arg(bound.arguments[pname])
            arg_specs[pname] = _flatten(value, handles)
        key = (id(fn), fn.src, builtins.tuple(_hashable(arg_specs[p]) for p in fn.arg_names))
        if key in self.ctx.callees:
            symbol, ret_spec = self.ctx.callees[key]
        else:
            if key in self.ctx.pending:
                raise RecursionError(f"{fn.__name__} calls itself with the same argument types "
                                     "and constexpr values; recursion must end on constexprs")
            symbol = self.ctx.unique_symbol(
                fn.__name__ + "__" + "_".join(_mangle_part(arg_specs[p]) for p in fn.arg_names))
            self.ctx.pending[key] = symbol
            callee = CodeGenerator(self.ctx, fn, symbol, is_kernel=False)
            callee.fn_name = fn.__name__
            self.ctx.generators.append(callee)
            saved_loc = self.cur_loc
            try:
                ret_spec = callee.generate_callee(symbol, arg_specs)
            except CompilationError as e:
                raise e.with_call_site(self._source_location(self.cur_node)) from e
            except Exception as e:
                inner = callee._wrap_exception(e)
                raise inner.with_call_site(self._source_location(self.cur_node)) from e
            finally:
                self.ctx.generators.pop()
                del self.ctx.pending[key]
                self._restore_loc(saved_loc)
            self.ctx.callees[key] = (symbol, ret_spec)
        result_types = _spec_ir_types(ret_spec, []) if ret_spec is not None else []
        op = self.builder.create("tt.call", handles, result_types,
                                 {"callee": _core.str_attr(symbol)})
        if ret_spec is None:
            return None
        return _unflatten(iter(op.results), ret_spec, self.sem)

    def _callee_arg(self, v):
        if isinstance(v, (tl.tensor, tl.constexpr, tl.tensor_descriptor)):
            return v
        if isinstance(v, tl.tuple):
            return tl.tuple([self._callee_arg(x) for x in v.values], fields=v.fields)
        if isinstance(v, builtins.tuple):
            return tl.tuple([self._callee_arg(x) for x in v], fields=getattr(v, "_fields", None))
        return tl.constexpr(v)

    # ----------------------------------------------------------------------------------------
    # statement lists, returns and `if`
    # ----------------------------------------------------------------------------------------

    def _visit_block(self, stmts) -> Optional[_Returned]:
        """Visit statements in order. Returns `_Returned` when the list ends in a return
        (directly or through an `if` whose every path returns), else None."""
        stmts = list(stmts)
        i = 0
        while i < len(stmts):
            st = stmts[i]
            if isinstance(st, ast.Return):
                self._last_return = st
                if self.loop_depth:
                    raise self._unsupported(st, "`return` inside a loop is not supported; "
                                                "compute the result in a loop-carried variable "
                                                "and return after the loop")
                with self._at(st):
                    value = self._decay_return(self.visit(st.value)) \
                        if st.value is not None else None
                return _Returned(value)
            if isinstance(st, ast.If):
                with self._at(st):
                    cond = self.visit(st.test)
                    if not _is_tensor(cond):
                        taken = st.body if self._static_condition(cond, st) else st.orelse
                        # only the taken branch exists; Python's `if` has no scope of its own
                        stmts = stmts[:i] + list(taken) + stmts[i + 1:]
                        continue
                    cond = self._scalar_condition(cond)
                    if _contains_return(st):
                        if self.loop_depth:
                            raise self._unsupported(
                                st, "`return` inside a loop is not supported; compute the "
                                    "result in a loop-carried variable and return after the "
                                    "loop")
                        return self._visit_returning_if(st, cond, stmts[i + 1:])
                    self._visit_if_scf(st, cond)
                i += 1
                continue
            self.visit(st)
            i += 1
        return None

    def _static_condition(self, cond, node) -> bool:
        cond = _unwrap(cond)
        if type(cond) not in _CONDITION_TYPES:
            raise self._unsupported(node, "`if` conditionals can only accept values of type "
                                          "{bool, int, NoneType}, not objects of type "
                                          f"{type(cond).__name__}")
        return bool(cond)

    def _scalar_condition(self, cond: tl.tensor) -> tl.tensor:
        if cond.type.is_block():
            if cond.numel.value != 1:
                raise ValueError("Boolean value of Tensor with more than one value is ambiguous;"
                                 " reduce it first (e.g. tl.max(x, 0)) or use tl.where")
            cond = self.sem.unsplat(cond)
        return self.sem.cast(cond, tl.int1)

    def _decay_return(self, value):
        """Returned Python numbers become tensors (as Triton does); tuples recursively."""
        if _unwrap(value) is None:
            return None
        value = value.value if isinstance(value, tl.constexpr) and isinstance(
            value.value, (bool, int, float)) else value
        if isinstance(value, (bool, int, float)):
            return self.sem.to_tensor(value)
        if isinstance(value, tl.tuple):
            return tl.tuple([self._decay_return(v) for v in value.values])
        if isinstance(value, builtins.tuple):
            return tl.tuple([self._decay_return(v) for v in value])
        return value

    @contextlib.contextmanager
    def _scratch(self):
        """A throwaway region at the insertion point: the probe of a branch emits into it and
        it is erased afterwards; Python-side state is restored too."""
        op = self.builder.create("tt.func", [], [], {
            "sym_name": _core.str_attr("__probe"),
            "function_type": _core.type_attr(_core.func_type([], [])),
            "sym_visibility": _core.str_attr("private"),
        }, 1)
        blk = op.region(0).add_block([])
        ip = self.builder.save_ip()
        saved = (dict(self.lscope), dict(self.local_defs), self.cur_loc)
        self.builder.set_insertion_point_to_end(blk)
        self.ctx.probing += 1
        try:
            yield
        finally:
            self.ctx.probing -= 1
            self.builder.restore_ip(ip)
            op.erase()
            self.lscope, self.local_defs = saved[0], saved[1]
            self._restore_loc(saved[2])

    def _run_branch(self, stmts, liveins):
        """Visit a branch with a fresh copy of the live-in scope; returns (returned value or
        None, scope after, names defined in the branch) and restores the caller's scope."""
        outer_scope, outer_defs = self.lscope, self.local_defs
        self.lscope, self.local_defs = dict(liveins), {}
        try:
            ret = self._visit_block(stmts)
            return ret, self.lscope, self.local_defs
        finally:
            self.lscope, self.local_defs = outer_scope, outer_defs

    def _yield(self, values, specs=None):
        out: list = []
        for i, v in enumerate(values):
            if specs is None:
                _flatten(v, out)
            elif _flatten_like(v, specs[i], out) is None:
                raise TypeError(f"cannot yield {_spec_str(_flatten(v, []))} as "
                                f"{_spec_str(specs[i])}")
        self.builder.create("scf.yield", out, [])

    def _merge_names(self, liveins, then_scope, then_defs, else_scope, else_defs):
        """Variables visible after a dynamic `if`: live-ins either branch changed (same type
        required) and names both branches define (same type required)."""
        names = []
        for name, live in liveins.items():
            if not _holds_tensors(live):
                continue
            t_val, e_val = then_scope.get(name, live), else_scope.get(name, live)
            if _same_value(live, t_val) and _same_value(live, e_val):
                continue
            live_spec = _flatten(live, [])
            for val, which in ((t_val, "then"), (e_val, "else")):
                spec = _flatten(val, [])
                if not _spec_equal(live_spec, spec):
                    raise TypeError(f"initial value for `{name}` is of type "
                                    f"{_spec_str(live_spec)}, but the {which} block redefines "
                                    f"it as {_spec_str(spec)}")
            names.append(name)
        for name in then_defs:
            if name in names or name not in else_defs:
                continue
            t_spec = _flatten(then_scope[name], [])
            e_spec = _flatten(else_scope[name], [])
            if not _spec_equal(t_spec, e_spec):
                raise TypeError(f"Mismatched type for {name} between then block "
                                f"({_spec_str(t_spec)}) and else block ({_spec_str(e_spec)})")
            names.append(name)
        return names

    def _visit_if_scf(self, node: ast.If, cond: tl.tensor):
        liveins = dict(self.lscope)
        with self._scratch():
            _, t_scope, t_defs = self._run_branch(node.body, liveins)
            _, e_scope, e_defs = self._run_branch(node.orelse, liveins)
            names = self._merge_names(liveins, t_scope, t_defs, e_scope, e_defs)
            specs = [_flatten(t_scope[n], []) for n in names]
        result_types: list = []
        for s in specs:
            _spec_ir_types(s, result_types)
        if_op = self.builder.create("scf.if", [cond.handle], result_types, {}, 2)
        ip = self.builder.save_ip()
        try:
            for region, stmts in ((0, node.body), (1, node.orelse)):
                if region == 1 and not result_types and not stmts:
                    continue
                blk = if_op.region(region).add_block([])
                self.builder.set_insertion_point_to_end(blk)
                _, scope, _ = self._run_branch(stmts, liveins)
                with self._at(node):
                    self._yield([scope[n] for n in names])
        finally:
            self.builder.restore_ip(ip)
        results = iter(if_op.results)
        for name, spec in zip(names, specs):
            self.set_value(name, _unflatten(results, spec, self.sem))

    def _visit_returning_if(self, node: ast.If, cond: tl.tensor, rest) -> _Returned:
        """`if c: ...return...` followed by `rest`: each branch continues with `rest` (when it
        falls through), so both end in a return; scf.if yields the return value."""
        liveins = dict(self.lscope)
        branches = (list(node.body) + list(rest), list(node.orelse) + list(rest))
        if self._void_function:
            # every `return` is bare: nothing to yield, no need to learn types first
            t_spec = e_spec = None
        else:
            with self._scratch():
                specs = []
                for stmts in branches:
                    ret, _, _ = self._run_branch(stmts, liveins)
                    value = ret.value if ret is not None else None
                    specs.append(_flatten(value, []) if value is not None else None)
            t_spec, e_spec = specs
        undefined = None  # the branch that returns no value while the other returns one
        if not self._void_function and (t_spec is None) != (e_spec is None):
            # as Triton (ub.poison): that path's result is undefined; it is 0 here
            undefined = 0 if t_spec is None else 1
            t_spec = e_spec = t_spec if t_spec is not None else e_spec
        if (t_spec is None) != (e_spec is None) or (
                t_spec is not None and not _spec_equal(t_spec, e_spec)):
            t_str = "None" if t_spec is None else _spec_str(t_spec)
            e_str = "None" if e_spec is None else _spec_str(e_spec)
            raise TypeError(f"Inconsistent return types: {t_str} and {e_str} (every return of a"
                            " function must produce the same types)")
        result_types = _spec_ir_types(t_spec, []) if t_spec is not None else []
        if_op = self.builder.create("scf.if", [cond.handle], result_types, {}, 2)
        ip = self.builder.save_ip()
        try:
            for region, stmts in enumerate(branches):
                blk = if_op.region(region).add_block([])
                self.builder.set_insertion_point_to_end(blk)
                ret, _, _ = self._run_branch(stmts, liveins)
                value = ret.value if ret is not None else None
                with self._at(node):
                    if region == undefined:
                        value = self._undefined_like(t_spec)
                    self._yield([value] if value is not None else [])
        finally:
            self.builder.restore_ip(ip)
        if t_spec is None:
            return _Returned(None)
        return _Returned(_unflatten(iter(if_op.results), t_spec, self.sem))

    def _undefined_like(self, spec):
        """A value of `spec`'s types for a path whose result is undefined (zeros)."""
        kind = spec[0]
        if kind == "c":
            return spec[1]
        if kind == "tuple":
            return tl.tuple([self._undefined_like(s) for s in spec[1]], fields=spec[2])
        if kind != "t":
            raise TypeError("Inconsistent return types: a path returns no value where another "
                            "returns a descriptor or block pointer")
        ty = spec[1]
        elt = ty.scalar
        if elt.is_ptr():
            v = self.sem.cast(self.sem.scalar_constant(0, tl.int64), elt)
            return self.sem.splat(v, list(ty.shape)) if ty.is_block() else v
        return self.sem.block_constant(0, ty) if ty.is_block() else \
            self.sem.scalar_constant(0, ty)

    def visit_If(self, node):  # reached only through _visit_block
        raise AssertionError("if statements are handled by _visit_block")

    def visit_IfExp(self, node):
        cond = self.visit(node.test)
        if not _is_tensor(cond):
            return self.visit(node.body) if self._static_condition(cond, node) \
                else self.visit(node.orelse)
        cond = self._scalar_condition(cond)
        with self._scratch():
            t_val, e_val = self.visit(node.body), self.visit(node.orelse)
            void = [tl._unwrap_if_constexpr(v) is None for v in (t_val, e_val)]
            if not any(void):
                t_spec = _flatten(self._as_ifexp_value(t_val), [])
                e_spec = _flatten(self._as_ifexp_value(e_val), [])
        if all(void):
            # `f(a) if c else g(b)` of calls that return nothing (tl.store, say): an scf.if
            # run for its effects, as Triton compiles it
            if_op = self.builder.create("scf.if", [cond.handle], [], {}, 2)
            ip = self.builder.save_ip()
            try:
                for region, expr in ((0, node.body), (1, node.orelse)):
                    blk = if_op.region(region).add_block([])
                    self.builder.set_insertion_point_to_end(blk)
                    self.visit(expr)
                    self._yield([])
            finally:
                self.builder.restore_ip(ip)
            return None
        if any(void):
            raise TypeError("Ternary expression with dynamic condition has inconsistent types: "
                            "one branch has no value")
        if not _spec_equal(t_spec, e_spec):
            raise TypeError(f"Ternary expression with dynamic condition has inconsistent types "
                            f"{_spec_str(t_spec)} and {_spec_str(e_spec)}")
        if_op = self.builder.create("scf.if", [cond.handle], _spec_ir_types(t_spec, []), {}, 2)
        ip = self.builder.save_ip()
        try:
            for region, expr in ((0, node.body), (1, node.orelse)):
                blk = if_op.region(region).add_block([])
                self.builder.set_insertion_point_to_end(blk)
                self._yield([self._ifexp_value(expr)])
        finally:
            self.builder.restore_ip(ip)
        return _unflatten(iter(if_op.results), t_spec, self.sem)

    def _ifexp_value(self, expr):
        return self._as_ifexp_value(self.visit(expr))

    def _as_ifexp_value(self, v):
        return v if isinstance(v, tl.tensor_descriptor) else self.sem.to_tensor(v)

    # ----------------------------------------------------------------------------------------
    # loops
    # ----------------------------------------------------------------------------------------

    def _loop_carried(self, body, exclude=()) -> List[str]:
        """Variables assigned in the body that hold tensors before the loop."""
        names = []
        for name in _assigned_names(body):
            if name in exclude or name not in self.lscope:
                continue
            if _holds_tensors(self.lscope[name]):
                names.append(name)
        return names

    def _check_carried(self, carried, init_specs, before, exclude=()):
        """After the body: carried variables kept their types; other live-ins unchanged."""
        for name, spec in zip(carried, init_specs):
            if _flatten_like(self.lscope[name], spec, []) is None:
                new = _flatten(self.lscope[name], [])
                raise TypeError(f"Loop-carried variable {name} has initial type "
                                f"{_spec_str(spec)} but is re-assigned to {_spec_str(new)} in "
                                "loop! Please make sure that the type stays consistent.")
        for name, val in before.items():
            if name in carried or name in exclude:
                continue
            if not _same_value(val, self.lscope.get(name, val)):
                raise TypeError(f"cannot reassign constexpr {name} in the loop: "
                                f"`{name}` is {_spec_str(_flatten(val, []))} before the loop; "
                                "a loop-carried variable must be a tensor before the loop and "
                                "keep its type (e.g. initialize it with tl.zeros(...))")

    def visit_For(self, node: ast.For):
        if node.orelse:
            raise self._unsupported(node, "for ... else is not supported in kernels")
        if not isinstance(node.target, ast.Name):
            raise self._unsupported(node, "for-loop targets must be a single name")
        it = node.iter
        if not isinstance(it, ast.Call):
            raise self._unsupported(node, "only `range`, `tl.range` and `tl.static_range` can be"
                                          " iterated over in kernels")
        iter_cls = _unwrap(self.visit(it.func))
        args = [self.visit(a) for a in it.args]
        kwargs = dict(self.visit(k) for k in it.keywords)
        target = node.target.id
        if iter_cls is tl.static_range:
            sr = tl.static_range(*args, **kwargs)
            self.loop_depth += 1
            try:
                for i in builtins.range(sr.start.value, sr.end.value, sr.step.value):
                    self.set_value(target, tl.constexpr(i))
                    self._visit_block(node.body)
            finally:
                self.loop_depth -= 1
            return
        if iter_cls is tl.range:
            r = tl.range(*args, **kwargs)
        elif iter_cls is builtins.range:
            if kwargs:
                raise TypeError("range() takes no keyword arguments")
            if not 1 <= len(args) <= 3:
                raise TypeError(f"range expected 1 to 3 arguments, got {len(args)}")
            r = tl.range(*args)
        else:
            raise self._unsupported(node, "only `range`, `tl.range` and `tl.static_range` can be"
                                          " iterated over in kernels")
        self._emit_for(node, target, r)

    def _emit_for(self, node, target, r):
        lb, ub, step = r.start, r.end, r.step
        negative = False
        if not _is_tensor(step):
            sv = _unwrap(step)
            if isinstance(sv, int) and sv == 0:
                raise ValueError("range() step must not be zero")
            if isinstance(sv, int) and sv < 0:
                # scf.for needs a positive step: walk lb' = ub .. ub' = lb upward and remap
                step, negative = tl.constexpr(-sv), True
                lb, ub = ub, lb
        lb_t, ub_t, step_t = (self.sem.to_tensor(x) for x in (lb, ub, step))
        for x in (lb_t, ub_t, step_t):
            if x.type.is_block() or not x.dtype.is_int():
                raise TypeError(f"For loop bounds and step must all be integer scalars, are "
                                f"({lb_t.type}, {ub_t.type}, {step_t.type})")
        iv_ty = self.sem.integer_promote_impl(lb_t.dtype, ub_t.dtype)
        iv_ty = self.sem.integer_promote_impl(iv_ty, step_t.dtype)
        if iv_ty.is_bool():
            iv_ty = tl.int32
        lb_t, ub_t, step_t = (self.sem.cast(x, iv_ty) for x in (lb_t, ub_t, step_t))

        carried = self._loop_carried(node.body, exclude=(target,))
        before = dict(self.lscope)
        init_specs = self._for_carried_specs(node, target, iv_ty, carried)
        init_handles: list = []
        for n, spec in zip(carried, init_specs):
            _flatten_like(self.lscope[n], spec, init_handles)
        types = [h.type for h in init_handles]
        attrs = {}
        for key, attr_name in (("num_stages", "tt.num_stages"),
                               ("loop_unroll_factor", "tt.loop_unroll_factor")):
            v = _unwrap(getattr(r, key))
            if v is not None:
                attrs[attr_name] = _core.int_attr(int(v), _core.int_type(32))
        for key, attr_name in (("disallow_acc_multi_buffer", "tt.disallow_acc_multi_buffer"),
                               ("flatten", "tt.flatten"),
                               ("warp_specialize", "tt.warp_specialize")):
            if _unwrap(getattr(r, key)):
                attrs[attr_name] = _core.unit_attr()
        for_op = self.builder.create("scf.for", [lb_t.handle, ub_t.handle, step_t.handle] +
                                     init_handles, types, attrs, 1)
        body = for_op.region(0).add_block([iv_ty.to_ir()] + types)
        ip = self.builder.save_ip()
        self.builder.set_insertion_point_to_end(body)
        try:
            iv = tl.tensor(body.arg(0), iv_ty)
            if negative:
                iv = self.sem.add(self.sem.sub(ub_t, iv, False), lb_t, False)
            args = iter(body.args[1:])
            for name, spec in zip(carried, init_specs):
                self.set_value(name, _unflatten(args, spec, self.sem))
            self.set_value(target, iv)
            outer_defs, self.local_defs = self.local_defs, {}
            self.loop_depth += 1
            try:
                self._visit_block(node.body)
            finally:
                self.loop_depth -= 1
                self.local_defs = outer_defs
            self._check_carried(carried, init_specs, before, exclude=(target,))
            self._yield([self.lscope[n] for n in carried], init_specs)
        finally:
            self.builder.restore_ip(ip)
        self.lscope = before
        results = iter(for_op.results)
        for name, spec in zip(carried, init_specs):
            self.set_value(name, _unflatten(results, spec, self.sem))

    def _for_carried_specs(self, node, target, iv_ty, carried):
        """Specs of the loop-carried variables. A block pointer that the body only moves (its
        base, shape and strides at the end of the body are those it entered with) carries just
        its offsets; finding out takes a probe visit of the body."""
        specs = [_flatten(self.lscope[n], []) for n in carried]
        if not any(s[0] == "bp" for s in specs):
            return specs
        entering = {n: self.lscope[n].bp_parts for n, s in zip(carried, specs) if s[0] == "bp"}
        out = []
        with self._scratch():
            self.set_value(target, self.sem.scalar_constant(0, iv_ty))
            self.loop_depth += 1
            try:
                self._visit_block(node.body)
            finally:
                self.loop_depth -= 1
            # Compared here, while the probe's values exist: the scratch region (and every
            # value made in it) is freed when the block ends.
            for n, spec in zip(carried, specs):
                if spec[0] == "bp":
                    parts = entering[n]
                    fixed = ("bpoffs", spec[1], spec[2], (parts.base, parts.shape, parts.strides))
                    if _flatten_like(self.lscope.get(n), fixed, []) is not None:
                        spec = fixed
                out.append(spec)
        return out

    def visit_While(self, node: ast.While):
        if node.orelse:
            raise self._unsupported(node, "while ... else is not supported in kernels")
        carried = self._loop_carried(node.body)
        before = dict(self.lscope)
        init_handles: list = []
        init_specs = [_flatten(self.lscope[n], init_handles) for n in carried]
        types = [h.type for h in init_handles]
        while_op = self.builder.create("scf.while", init_handles, types, {}, 2)
        before_blk = while_op.region(0).add_block(types)
        after_blk = while_op.region(1).add_block(types)
        ip = self.builder.save_ip()
        try:
            # "before": the condition, over the current values of the carried variables
            self.builder.set_insertion_point_to_end(before_blk)
            args = iter(before_blk.args)
            for name, spec in zip(carried, init_specs):
                self.lscope[name] = _unflatten(args, spec, self.sem)
            cond = self.visit(node.test)
            with self._at(node.test):
                if isinstance(cond, tl.condition):
                    cond = cond.condition
                cond = _unwrap(cond)
                if not _is_tensor(cond):
                    cond = self.sem.to_tensor(bool(self._static_condition(cond, node)))
                cond = self._scalar_condition(cond)
                self.builder.create("scf.condition", [cond.handle] + list(before_blk.args), [])
            # "after": the body
            self.lscope = dict(before)
            self.builder.set_insertion_point_to_end(after_blk)
            args = iter(after_blk.args)
            for name, spec in zip(carried, init_specs):
                self.lscope[name] = _unflatten(args, spec, self.sem)
            outer_defs, self.local_defs = self.local_defs, {}
            self.loop_depth += 1
            try:
                self._visit_block(node.body)
            finally:
                self.loop_depth -= 1
                self.local_defs = outer_defs
            self._check_carried(carried, init_specs, before)
            with self._at(node):
                self._yield([self.lscope[n] for n in carried])
        finally:
            self.builder.restore_ip(ip)
        self.lscope = before
        results = iter(while_op.results)
        for name, spec in zip(carried, init_specs):
            self.set_value(name, _unflatten(results, spec, self.sem))

    # ----------------------------------------------------------------------------------------
    # statements
    # ----------------------------------------------------------------------------------------

    def visit_Pass(self, node):
        return None

    def visit_Expr(self, node):
        # a call whose result must be used (tl.advance, @must_use_result functions) must not be
        # a statement of its own; look the callee up first (a plain name or attribute chain,
        # so looking it up twice emits nothing)
        if isinstance(node.value, ast.Call) and _is_plain_ref(node.value.func):
            fn = _unwrap(self.visit(node.value.func))
            must_use = getattr(fn, "_must_use_result", False)
            if must_use:
                msg = f"The result of {ast.unparse(node.value.func)} is not being used."
                if isinstance(must_use, str):
                    msg += " " + must_use
                raise self._error(node, msg)
        self.visit(node.value)

    def visit_Return(self, node):
        raise AssertionError("return is handled by _visit_block")

    def _is_constexpr_annotation(self, annotation) -> bool:
        if annotation is None:
            return False
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            return annotation.value.split(".")[-1] == "constexpr"
        try:
            ann = self.visit(annotation)
        except CompilationError:
            return False
        return ann is tl.constexpr

    def _sanitize_assigned(self, value):
        """Assigned Python numbers become scalar tensors (Triton's rule: only `x: tl.constexpr
        = ...` keeps a constant); tuples are sanitized element-wise; other values are kept."""
        if isinstance(value, tl.tuple):
            return tl.tuple([self._sanitize_assigned(v) for v in value.values],
                            fields=value.fields)
        raw = _unwrap(value)
        if isinstance(raw, (bool, int, float)):
            return self.sem.to_tensor(raw)
        if isinstance(raw, builtins.tuple):
            return tl.tuple([self._sanitize_assigned(v) for v in raw],
                            fields=getattr(raw, "_fields", None))
        return value

    def _assign_target(self, target, value):
        if isinstance(target, ast.Name):
            self.set_value(target.id, value)
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            raw = _unwrap(value)
            if isinstance(raw, tl.tensor):
                raise TypeError("cannot unpack a tensor; use tl.split or indexing on tuples")
            try:
                items = list(raw)
            except TypeError:
                raise TypeError(f"cannot unpack {raw!r}") from None
            if len(items) != len(target.elts):
                raise ValueError(f"cannot unpack {len(items)} values into {len(target.elts)} "
                                 "names")
            for t, v in zip(target.elts, items):
                self._assign_target(t, self._sanitize_assigned(v))
            return
        if isinstance(target, ast.Subscript):
            raise self._unsupported(target, "item assignment (x[...] = v) is not supported; "
                                            "build a new value (tl.where, tl.join, ...) or "
                                            "tl.store to memory")
        if isinstance(target, ast.Attribute):
            raise self._unsupported(target, "attribute assignment (x.a = v) is not supported "
                                            "in kernels")
        raise self._unsupported(target, f"cannot assign to {type(target).__name__}")

    def visit_Assign(self, node: ast.Assign):
        value = self._sanitize_assigned(self.visit(node.value))
        for target in node.targets:
            self._assign_target(target, value)

    def visit_AnnAssign(self, node: ast.AnnAssign):
        if node.value is None:
            raise self._unsupported(node, "a bare annotation without a value is not supported")
        if isinstance(node.target, ast.Name) and self._is_constexpr_annotation(node.annotation):
            value = self.visit(node.value)
            if _is_tensor(value):
                raise TypeError(f"{node.target.id} is annotated tl.constexpr but its value is a "
                                "tensor (not known at compile time)")
            self.set_value(node.target.id, tl.constexpr(_unwrap(value)))
            return
        self._assign_target(node.target, self._sanitize_assigned(self.visit(node.value)))

    def visit_AugAssign(self, node: ast.AugAssign):
        if not isinstance(node.target, ast.Name):
            raise self._unsupported(node, "augmented assignment is only supported on names "
                                          "(x[...] += v is not supported)")
        lhs = self.visit(ast.Name(id=node.target.id, ctx=ast.Load(), lineno=node.lineno,
                                  col_offset=node.col_offset))
        rhs = self.visit(node.value)
        method = _BINOP_METHODS.get(type(node.op))
        if method is None:
            raise self._unsupported(node, f"unsupported operator {type(node.op).__name__}")
        value = self._apply_binary_method(method, lhs, rhs)
        self.set_value(node.target.id, self._sanitize_assigned(value))

    def visit_Assert(self, node: ast.Assert):
        if not getattr(self.ctx.options, "debug", False):
            return
        test = self.visit(node.test)
        msg = _unwrap(self.visit(node.msg)) if node.msg is not None else ""
        tl.device_assert(test, str(msg), _semantic=self.sem)

    # ----------------------------------------------------------------------------------------
    # expressions
    # ----------------------------------------------------------------------------------------

    def visit_Constant(self, node):
        return tl.constexpr(node.value)

    def visit_Name(self, node: ast.Name):
        name = node.id
        if isinstance(node.ctx, ast.Store):
            return name
        if name in self.lscope:
            return self.lscope[name]
        if name in self.gscope:
            return self._global(name, self.gscope[name])
        if name in self.py_builtins:
            return self.py_builtins[name]
        raise NameError(f"{name} is not defined")

    def _global(self, name, val):
        if name in self.freevars and (val is None or isinstance(val, (bool, int, float, str))):
            return tl.constexpr(val)  # closure constants: fixed at definition
        ok = (
            isinstance(val, (tl.constexpr, tl.dtype, types.ModuleType))
            or is_jit_function(val)
            or tl.is_builtin(val)
            or getattr(val, "__triton_tile_constexpr_function__", False)
            or getattr(val, "__module__", "").startswith("triton_tile")
            or (isinstance(val, type) and issubclass(val, builtins.tuple)
                and hasattr(val, "_fields"))
            or any(val is b for b in (len, list, range, float, int, isinstance, getattr,
                                      hasattr, print, min, max))
        )
        if not ok:
            try:
                from .. import knobs
                ok = bool(getattr(knobs, "allow_non_constexpr_globals", False))
            except Exception:
                ok = False
        if ok:
            return val
        raise NameError(f"Cannot access global variable {name} from within @jit'ed function. "
                        "Triton kernels can only access global variables that are instantiated "
                        f"as constexpr (`{name} = triton.language.constexpr(...)`); annotating "
                        f"`{name}: triton.language.constexpr = ...` is not the same. Pass the "
                        "value as an argument or make it a tl.constexpr global.")

    def visit_Attribute(self, node: ast.Attribute):
        lhs = self.visit(node.value)
        if _is_tensor(lhs):
            if node.attr == "T":
                rank = len(lhs.shape)
                return self.sem.permute(lhs, list(builtins.range(rank))[::-1])
            if node.attr in tl_standard.JIT_MEMBERS and not hasattr(lhs, node.attr):
                return _BoundJIT(tl_standard.JIT_MEMBERS[node.attr], lhs)
        if isinstance(lhs, tl.constexpr) and node.attr in ("type", "value"):
            # a constexpr's own attributes, as in Triton: `C.type` is constexpr_type(C.value)
            return getattr(lhs, node.attr)
        return getattr(_unwrap(lhs), node.attr)

    def visit_Tuple(self, node):
        return tl.tuple(self._visit_elts(node.elts))

    def visit_List(self, node):
        return tl.tuple(self._visit_elts(node.elts))

    def _visit_elts(self, elts):
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                out.extend(list(_unwrap(self.visit(e.value))))
            else:
                out.append(self.visit(e))
        return out

    def visit_ListComp(self, node: ast.ListComp):
        if len(node.generators) != 1 or node.generators[0].ifs or \
                node.generators[0].is_async:
            raise self._unsupported(node, "only simple comprehensions `[f(x) for x in t]` over "
                                          "a tuple are supported")
        gen = node.generators[0]
        seq = _unwrap(self.visit(gen.iter))
        if _is_tensor(seq):
            raise self._unsupported(node, "cannot iterate over a tensor")
        out = []
        saved = dict(self.lscope)
        try:
            for item in seq:
                self._assign_target(gen.target, item)
                out.append(self.visit(node.elt))
        finally:
            self.lscope = saved
        return tl.tuple(out)

    def visit_Subscript(self, node: ast.Subscript):
        if not isinstance(node.ctx, ast.Load):
            raise self._unsupported(node, "item assignment (x[...] = v) is not supported")
        lhs = self.visit(node.value)
        sl = self.visit(node.slice)
        if _is_tensor(lhs):
            return lhs.__getitem__(sl, _semantic=self.sem)
        obj = _unwrap(lhs)
        key = _unwrap(sl)
        if _is_tensor(key):
            raise TypeError("tuples and constants can only be indexed by constexpr ints")
        if isinstance(key, tl.tuple):
            key = builtins.tuple(_unwrap(k) for k in key.values)
        return obj[key]

    def visit_Slice(self, node: ast.Slice):
        def get(x):
            return None if x is None else _unwrap(self.visit(x))
        return builtins.slice(get(node.lower), get(node.upper), get(node.step))

    def visit_Index(self, node):  # Python < 3.9
        return self.visit(node.value)

    def visit_keyword(self, node: ast.keyword):
        if node.arg is None:
            raise self._unsupported(node, "**kwargs in calls is not supported in kernels")
        return node.arg, self.visit(node.value)

    def visit_JoinedStr(self, node: ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
                continue
            val = _unwrap(self.visit(v.value))
            if _is_tensor(val):
                raise self._unsupported(v, "f-strings can only format constexpr values; use "
                                           "tl.device_print for tensors")
            if v.conversion == ord("r"):
                val = repr(val)
            elif v.conversion == ord("s"):
                val = str(val)
            elif v.conversion == ord("a"):
                val = ascii(val)
            spec = _unwrap(self.visit(v.format_spec)) if v.format_spec is not None else ""
            parts.append(format(val, spec))
        return tl.constexpr("".join(parts))

    def _apply_binary_method(self, method, lhs, rhs):
        if _is_tensor(lhs):
            fn = getattr(lhs, method, None)
            if fn is None:
                raise TypeError(self._no_operator(method, lhs))
            return fn(rhs, _semantic=self.sem)
        if _is_tensor(rhs):
            fn = getattr(rhs, _reverse_method(method), None)
            if fn is None:
                raise TypeError(self._no_operator(method, rhs))
            return fn(lhs, _semantic=self.sem)
        a, b = _unwrap(lhs), _unwrap(rhs)
        if isinstance(a, tl.tuple) or isinstance(b, tl.tuple):
            def as_tuple(x):
                return tl.tuple(list(x)) if isinstance(x, (builtins.tuple, list)) else x
            ta, tb = as_tuple(a), as_tuple(b)
            if method == "__add__" and isinstance(ta, tl.tuple) and isinstance(tb, tl.tuple):
                return ta + tb
            if method == "__mul__" and isinstance(ta, tl.tuple):
                return ta * tb
            if method == "__eq__":
                return tl.constexpr(bool(ta == tb) if isinstance(ta, tl.tuple) else bool(tb == ta))
            if method == "__ne__":
                return tl.constexpr(not (ta == tb if isinstance(ta, tl.tuple) else tb == ta))
            raise TypeError(f"unsupported operation {method} on tuples")
        return getattr(tl.constexpr(a), method)(b)

    @staticmethod
    def _no_operator(method, x):
        if method == "__pow__":
            return ("`**` is not supported on tensors; use tl.extra.libdevice.pow(x, y) (or "
                    "x * x for small integer powers)")
        return f"unsupported operator {method} for {x}"

    def visit_BinOp(self, node: ast.BinOp):
        lhs = self.visit(node.left)
        rhs = self.visit(node.right)
        method = _BINOP_METHODS.get(type(node.op))
        if method is None:
            raise self._unsupported(node, f"unsupported binary operator "
                                          f"{type(node.op).__name__} (`@`: use tl.dot)")
        return self._apply_binary_method(method, lhs, rhs)

    def visit_UnaryOp(self, node: ast.UnaryOp):
        operand = self.visit(node.operand)
        method = _UNARY_METHODS[type(node.op)]
        if _is_tensor(operand):
            return getattr(operand, method)(_semantic=self.sem)
        v = _unwrap(operand)
        if isinstance(node.op, ast.Not):
            return tl.constexpr(not v)
        if isinstance(node.op, ast.USub):
            return tl.constexpr(-v)
        if isinstance(node.op, ast.UAdd):
            return tl.constexpr(+v)
        return tl.constexpr(~v)

    def visit_Compare(self, node: ast.Compare):
        if len(node.ops) != 1:
            raise self._unsupported(node, "chained comparisons (a < b < c) are not supported; "
                                          "write (a < b) & (b < c)")
        lhs = self.visit(node.left)
        rhs = self.visit(node.comparators[0])
        op = node.ops[0]
        if isinstance(op, (ast.Is, ast.IsNot)):
            same = _unwrap(lhs) is _unwrap(rhs)
            return tl.constexpr(same if isinstance(op, ast.Is) else not same)
        if isinstance(op, (ast.In, ast.NotIn)):
            container = _unwrap(rhs)
            if _is_tensor(container) or _is_tensor(lhs):
                raise self._unsupported(node, "`in` is only supported on constexpr values")
            found = any(_const_equal(lhs, x) for x in container) \
                if isinstance(container, (tl.tuple, builtins.tuple, list)) \
                else _unwrap(lhs) in container
            return tl.constexpr(found if isinstance(op, ast.In) else not found)
        return self._apply_binary_method(_CMP_METHODS[type(op)], lhs, rhs)

    def visit_BoolOp(self, node: ast.BoolOp):
        is_and = isinstance(node.op, ast.And)
        tensors = []
        value = None
        for sub in node.values:
            value = self.visit(sub)
            if not _is_tensor(value):
                bv = bool(_unwrap(value))
                # short-circuit on constants, as Python does
                if is_and and not bv:
                    return value
                if not is_and and bv:
                    return value
            else:
                tensors.append(value)
        if not tensors:
            return value
        result = tensors[0]
        for t in tensors[1:]:
            result = self.sem.logical_and(result, t) if is_and else self.sem.logical_or(result, t)
        return result

    # ----------------------------------------------------------------------------------------
    # calls
    # ----------------------------------------------------------------------------------------

    def visit_Call(self, node: ast.Call):
        fn = _unwrap(self.visit(node.func))
        if fn is tl.static_assert:
            return self._static_assert(node)
        if fn is tl.static_print:
            return self._static_print(node)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                seq = _unwrap(self.visit(a.value))
                if _is_tensor(seq):
                    raise self._unsupported(a, "cannot unpack a tensor with *")
                args.extend(list(seq))
            else:
                args.append(self.visit(a))
        kwargs = dict(self.visit(k) for k in node.keywords)
        if is_jit_function(fn):
            return self.call_jit_function(fn, args, kwargs)
        if isinstance(fn, _BoundJIT):
            return self.call_jit_function(fn.fn, [fn.obj] + args, kwargs)
        if tl.is_builtin(fn):
            return fn(*args, _semantic=self.sem, **kwargs)
        if getattr(fn, "__triton_tile_constexpr_function__", False):
            if any(_holds_tensors(a) for a in list(args) + list(kwargs.values())):
                if getattr(fn, "tensor_form", None) == "cdiv":  # triton.cdiv(n, B)
                    return tl.cdiv(*args, _semantic=self.sem, **kwargs)
                raise TypeError(f"{fn.__name__} is a compile-time (constexpr) function; its "
                                "arguments must be constexprs, not tensors")
            res = fn.fn(*[_unwrap(a) for a in args], **{k: _unwrap(v) for k, v in kwargs.items()})
            return self._wrap_python_result(res)
        if fn in (builtins.min, builtins.max):
            return self._py_minmax(fn, args, kwargs)
        if fn is builtins.abs and args and _is_tensor(args[0]):
            return self.sem.abs(args[0])
        if fn is isinstance:
            return self._py_isinstance(*args)
        if fn is tl.tuple:
            seq = _unwrap(args[0]) if args else ()
            return tl.tuple(list(seq))
        if isinstance(fn, type) and issubclass(fn, builtins.tuple) and hasattr(fn, "_fields"):
            # a namedtuple built in the kernel: a tl.tuple with field names
            bound = inspect.signature(fn).bind(*args, **kwargs)
            bound.apply_defaults()
            return tl.tuple([bound.arguments[f] for f in fn._fields], fields=fn._fields)
        if fn in (int, float, bool) and args and _is_tensor(args[0]):
            raise TypeError(f"{fn.__name__}() of a tensor is not known at compile time; use "
                            f"x.to(tl.{'int32' if fn is int else 'float32'}) for a conversion")
        # any other Python callable runs now, on the unwrapped (compile-time) values; Python's
        # own builtins (len, getattr, ...) may look at kernel values
        for a in list(args) + list(kwargs.values()):
            if _holds_tensors(a) and not isinstance(fn, types.BuiltinFunctionType):
                raise TypeError(f"{getattr(fn, '__name__', fn)!s} is not a @triton.jit function "
                                "or a tl builtin, so it cannot take tensor arguments")
        res = fn(*[_unwrap(a) for a in args], **{k: _unwrap(v) for k, v in kwargs.items()})
        return self._wrap_python_result(res)

    @staticmethod
    def _wrap_python_result(res):
        if isinstance(res, (tl.tensor, tl.tuple, tl.constexpr)) or res is None:
            return res
        if isinstance(res, (builtins.tuple, list)):
            return tl.tuple([CodeGenerator._wrap_python_result(r) for r in res],
                            fields=getattr(res, "_fields", None))
        return tl.constexpr(res)

    def _py_list(self, x=()):
        x = _unwrap(x)
        return tl.tuple(list(x))

    def _py_isinstance(self, obj, cls):
        cls = _unwrap(cls)
        if isinstance(obj, tl.constexpr) and (
                cls is tl.constexpr or (isinstance(cls, builtins.tuple) and tl.constexpr in cls)):
            return tl.constexpr(True)
        if isinstance(cls, tl.tuple):
            cls = builtins.tuple(_unwrap(c) for c in cls.values)
        return tl.constexpr(isinstance(_unwrap(obj), cls))

    def _py_minmax(self, fn, args, kwargs):
        if kwargs:
            raise TypeError(f"{fn.__name__}() with keyword arguments is not supported in kernels")
        if len(args) == 1:
            args = list(_unwrap(args[0]))
        if not args:
            raise TypeError(f"{fn.__name__} expected at least 1 argument")
        if not any(_holds_tensors(a) for a in args):
            return tl.constexpr(fn(*[_unwrap(a) for a in args]))
        combine = tl.minimum if fn is builtins.min else tl.maximum
        result = args[0]
        for a in args[1:]:
            result = combine(result, a, _semantic=self.sem)
        return result

    def _static_assert(self, node: ast.Call):
        if not 0 < len(node.args) <= 2 or node.keywords:
            raise TypeError("`static_assert` requires one or two positional arguments only")
        passed = _unwrap(self.visit(node.args[0]))
        if _is_tensor(passed) or not isinstance(passed, bool):
            raise NotImplementedError("Assertion condition could not be determined at "
                                      "compile-time. Make sure that it depends only on "
                                      "`constexpr` values")
        if not passed:
            message = ""
            if len(node.args) == 2:
                try:
                    message = _unwrap(self.visit(node.args[1]))
                except Exception as e:  # the message itself failed: say so
                    message = f"<failed to evaluate assertion message: {e!r}>"
            text = f"static_assert failed: {message}" if message != "" \
                else "static_assert failed"
            raise self._error(node, text, CompileTimeAssertionFailure)
        return None

    def _static_print(self, node: ast.Call):
        values = [_unwrap(self.visit(a)) for a in node.args]
        kws = {k: _unwrap(v) for k, v in (self.visit(k) for k in node.keywords)}
        if not self.ctx.probing:
            builtins.print(*values, **kws)
        return None

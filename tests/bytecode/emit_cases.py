"""TTIR inputs for the bytecode walker tests (test_emit.py).

Three sources: every golden file under tests/golden/conversion/ whose RUN line converts (its
passes run first, its --tile-option values become the options), every convert() call the
remaining Python conversion tests make (captured by running them with a recording convert()),
so a new golden case is covered here without copying it, and the kernels below, which reach
ops and attributes the golden cases do not: 2-D dots (tf32, f16, i8) in a loop, reductions
and scans, for/while/if, atomics, prints, asserts, hints, casts.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Dict, NamedTuple

from triton_tile import _core as C

GOLDEN = Path(__file__).resolve().parents[1] / "conversion" / "test_ttir_to_tile.py"
GOLDEN_FILES = Path(__file__).resolve().parents[1] / "golden" / "conversion"


class Case(NamedTuple):
    ttir: str
    kernel: str
    options: dict


def kernel(body: str, args: str = "%arg0: !tt.ptr<f32>, %arg1: !tt.ptr<f32>, %arg2: i32",
           name: str = "k") -> str:
    return f"module {{\n  tt.func public @{name}({args}) {{\n{body}\n    tt.return\n  }}\n}}\n"


def golden_cases() -> Dict[str, Case]:
    """The golden tests' convert() calls whose conversion succeeds."""
    spec = importlib.util.spec_from_file_location("_golden_conversion_cases", GOLDEN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    original, calls = mod.convert, []

    def recording(text, kernel_name, **opts):
        calls.append(Case(text, kernel_name, opts))
        return original(text, kernel_name, **opts)

    mod.convert = recording
    cases: Dict[str, Case] = {}
    for name, fn in sorted(vars(mod).items()):
        if not name.startswith("test_") or not callable(fn):
            continue
        for suffix, kwargs in _parametrizations(fn):
            calls.clear()
            try:
                fn(**kwargs)
            except Exception:  # noqa: BLE001 - the golden test reports its own failure
                pass
            for i, case in enumerate(calls):
                cases[f"golden/{name[5:]}{suffix}/{i}"] = case
    return {k: c for k, c in cases.items() if convert(c)[0] is not None}


def golden_file_cases() -> Dict[str, Case]:
    """tests/golden/conversion/**/*.ttir whose RUN line converts to Tile IR and succeeds."""
    from triton_tile.tools import opt

    cases: Dict[str, Case] = {}
    for path in sorted(GOLDEN_FILES.rglob("*.ttir")):
        text = path.read_text()
        argv, expect_failure = opt.parse_run_line(text, str(path))
        args = opt.parser().parse_args(argv)
        if expect_failure or args.convert_to_tile is None:
            continue
        module = C.parse_ttir(text, str(path))
        C.run_passes(module, opt.expand_passes(args.passes))
        name = str(path.relative_to(GOLDEN_FILES).with_suffix(""))
        case = Case(module.str(), opt.kernel_name(module, args.convert_to_tile or None),
                    opt.tile_option_values(args.tile_option))
        if convert(case)[0] is not None:
            cases[f"golden/{name}"] = case
    return cases


def _parametrizations(fn):
    marks = [m for m in getattr(fn, "pytestmark", []) if m.name == "parametrize"]
    if not marks:
        yield "", {}
        return
    names = [n.strip() for n in marks[0].args[0].split(",")]
    for values in marks[0].args[1]:
        values = values if len(names) > 1 else (values,)
        yield f"[{values[0]}]", dict(zip(names, values))


def convert(case: Case):
    """(Tile IR module or None, the conversion result that owns it)."""
    m = C.parse_ttir(case.ttir, "case.ttir")
    o = C.TileOptions()
    for k, v in case.options.items():
        setattr(o, k, v)
    r = C.convert_to_tile(m, case.kernel, o)
    return r.module, r


def _dot(dtype: str, acc: str, precision: str = "") -> str:
    """C[32x32] = sum over K of A[32xK] @ B[Kx32], loads through pointer tiles in a for loop."""
    prec = f", inputPrecision = {precision}" if precision else ""
    zero = "0" if acc.startswith("i") else "0.000000e+00"
    vals, accs = f"tensor<32x32x{dtype}>", f"tensor<32x32x{acc}>"
    return kernel(f"""
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %zero = arith.constant dense<{zero}> : tensor<32x32x{acc}>
    %r = tt.make_range {{end = 32 : i32, start = 0 : i32}} : tensor<32xi32>
    %rows = tt.expand_dims %r {{axis = 1 : i32}} : tensor<32xi32> -> tensor<32x1xi32>
    %cols = tt.expand_dims %r {{axis = 0 : i32}} : tensor<32xi32> -> tensor<1x32xi32>
    %ld = tt.splat %arg3 : i32 -> tensor<32x1xi32>
    %ra = arith.muli %rows, %ld : tensor<32x1xi32>
    %c32_t = tt.splat %c32 : i32 -> tensor<32x1xi32>
    %rb = arith.muli %rows, %c32_t : tensor<32x1xi32>
    %rab = tt.broadcast %ra : tensor<32x1xi32> -> tensor<32x32xi32>
    %rbb = tt.broadcast %rb : tensor<32x1xi32> -> tensor<32x32xi32>
    %cb = tt.broadcast %cols : tensor<1x32xi32> -> tensor<32x32xi32>
    %aoff = arith.addi %rab, %cb : tensor<32x32xi32>
    %boff = arith.addi %rbb, %cb : tensor<32x32xi32>
    %pa = tt.splat %arg0 : !tt.ptr<{dtype}> -> tensor<32x32x!tt.ptr<{dtype}>>
    %pb = tt.splat %arg1 : !tt.ptr<{dtype}> -> tensor<32x32x!tt.ptr<{dtype}>>
    %res = scf.for %k = %c0 to %arg3 step %c32 iter_args(%acc = %zero) -> ({accs}) : i32 {{
      %ks = tt.splat %k : i32 -> tensor<32x32xi32>
      %ao = arith.addi %aoff, %ks : tensor<32x32xi32>
      %kb = arith.muli %k, %c32 : i32
      %kbs = tt.splat %kb : i32 -> tensor<32x32xi32>
      %bo = arith.addi %boff, %kbs : tensor<32x32xi32>
      %ap = tt.addptr %pa, %ao : tensor<32x32x!tt.ptr<{dtype}>>, tensor<32x32xi32>
      %bp = tt.addptr %pb, %bo : tensor<32x32x!tt.ptr<{dtype}>>, tensor<32x32xi32>
      %a = tt.load %ap : tensor<32x32x!tt.ptr<{dtype}>>
      %b = tt.load %bp : tensor<32x32x!tt.ptr<{dtype}>>
      %d = tt.dot %a, %b, %acc{prec} : {vals} * {vals} -> {accs}
      scf.yield %d : tensor<32x32x{acc}>
    }}
    %pc = tt.splat %arg2 : !tt.ptr<{acc}> -> tensor<32x32x!tt.ptr<{acc}>>
    %cp = tt.addptr %pc, %boff : tensor<32x32x!tt.ptr<{acc}>>, tensor<32x32xi32>
    tt.store %cp, %res : tensor<32x32x!tt.ptr<{acc}>>""",
        args=f"%arg0: !tt.ptr<{dtype}>, %arg1: !tt.ptr<{dtype}>, %arg2: !tt.ptr<{acc}>, "
             "%arg3: i32")


_RANGE16 = """
    %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %p = tt.splat %arg0 : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %pr = tt.addptr %p, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    %x = tt.load %pr : tensor<16x!tt.ptr<f32>>
    %q = tt.splat %arg1 : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %qr = tt.addptr %q, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>"""

_REDUCE_SCAN = _RANGE16 + """
    %m = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %t = arith.maxnumf %a, %b : f32
      tt.reduce.return %t : f32
    }) : (tensor<16xf32>) -> f32
    %2d = tt.reshape %r : tensor<16xi32> -> tensor<4x4xi32>
    %rows = "tt.reduce"(%2d) <{axis = 1 : i32}> ({
    ^bb0(%a: i32, %b: i32):
      %t = arith.xori %a, %b : i32
      tt.reduce.return %t : i32
    }) : (tensor<4x4xi32>) -> tensor<4xi32>
    %mn = "tt.reduce"(%rows) <{axis = 0 : i32}> ({
    ^bb0(%a: i32, %b: i32):
      %t = arith.minsi %a, %b : i32
      tt.reduce.return %t : i32
    }) : (tensor<4xi32>) -> i32
    %cs = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      tt.scan.return %t : f32
    }) : (tensor<16xf32>) -> tensor<16xf32>
    %cp = "tt.scan"(%r) <{axis = 0 : i32, reverse = true}> ({
    ^bb0(%a: i32, %b: i32):
      %t = arith.muli %a, %b : i32
      tt.scan.return %t : i32
    }) : (tensor<16xi32>) -> tensor<16xi32>
    %cpf = arith.sitofp %cp : tensor<16xi32> to tensor<16xf32>
    %mnf = arith.sitofp %mn : i32 to f32
    %s1 = arith.addf %m, %mnf : f32
    %s1t = tt.splat %s1 : f32 -> tensor<16xf32>
    %o1 = arith.addf %cs, %cpf : tensor<16xf32>
    %o2 = arith.addf %o1, %s1t : tensor<16xf32>
    tt.store %qr, %o2 : tensor<16x!tt.ptr<f32>>"""

_CONTROL_FLOW = _RANGE16 + """
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %f0 = arith.constant 0.000000e+00 : f32
    %pos = arith.cmpi sgt, %arg2, %c0 : i32
    %y = scf.if %pos -> (tensor<16xf32>) {
      %e = math.exp %x : tensor<16xf32>
      scf.yield %e : tensor<16xf32>
    } else {
      %n = arith.negf %x : tensor<16xf32>
      scf.yield %n : tensor<16xf32>
    }
    %acc = scf.for %i = %c0 to %arg2 step %c1 iter_args(%a = %y) -> (tensor<16xf32>) : i32 {
      %odd = arith.andi %i, %c1 : i32
      %isodd = arith.cmpi ne, %odd, %c0 : i32
      %z = scf.if %isodd -> (tensor<16xf32>) {
        %l = tt.load %qr : tensor<16x!tt.ptr<f32>>
        %s = arith.addf %a, %l : tensor<16xf32>
        scf.yield %s : tensor<16xf32>
      } else {
        scf.yield %a : tensor<16xf32>
      }
      tt.store %qr, %z : tensor<16x!tt.ptr<f32>>
      scf.yield %z : tensor<16xf32>
    }
    %w = scf.while (%v = %arg2) : (i32) -> (i32) {
      %go = arith.cmpi sgt, %v, %c1 : i32
      scf.condition(%go) %v : i32
    } do {
    ^bb0(%u: i32):
      %h = arith.shrsi %u, %c1 : i32
      scf.yield %h : i32
    }
    %wf = arith.sitofp %w : i32 to f32
    %ws = tt.splat %wf : f32 -> tensor<16xf32>
    %out = arith.addf %acc, %ws : tensor<16xf32>
    tt.store %qr, %out : tensor<16x!tt.ptr<f32>>"""

_PI, _I, _M, _F = ("tensor<16x!tt.ptr<i32>>", "tensor<16xi32>", "tensor<16xi1>",
                   "tensor<16xf32>")
_ATOMICS = f"""
    %r = tt.make_range {{end = 16 : i32, start = 0 : i32}} : tensor<16xi32>
    %p = tt.splat %arg0 : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
    %pr = tt.addptr %p, %r : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
    %c8 = arith.constant dense<8> : tensor<16xi32>
    %m = arith.cmpi slt, %r, %c8 : tensor<16xi32>
    %a = tt.atomic_rmw add, acq_rel, gpu, %pr, %r, %m : ({_PI}, {_I}, {_M}) -> {_I}
    %b = tt.atomic_rmw max, relaxed, cta, %pr, %a : ({_PI}, {_I}) -> {_I}
    %c = tt.atomic_rmw exch, release, sys, %pr, %b : ({_PI}, {_I}) -> {_I}
    %q = tt.splat %arg1 : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %qr = tt.addptr %q, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    %cf = arith.sitofp %c : tensor<16xi32> to tensor<16xf32>
    %d = tt.atomic_rmw fadd, relaxed, gpu, %qr, %cf : (tensor<16x!tt.ptr<f32>>, {_F}) -> {_F}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %old = tt.atomic_cas acq_rel, gpu, %arg0, %c0, %c1 : (!tt.ptr<i32>, i32, i32) -> i32
    %e = tt.atomic_rmw umin, acquire, gpu, %arg0, %old : (!tt.ptr<i32>, i32) -> i32
    gpu.barrier
    %f = tt.load %arg0 : !tt.ptr<i32>
    %g = arith.addi %e, %f : i32
    %gf = arith.sitofp %g : i32 to f32
    tt.store %arg1, %gf : !tt.ptr<f32>"""

_DEBUG = _RANGE16 + """
    %c0 = arith.constant dense<0.000000e+00> : tensor<16xf32>
    %ok = arith.cmpf oge, %x, %c0 : tensor<16xf32>
    tt.assert %ok, "x must be non-negative" : tensor<16xi1>
    tt.print " x: " {hex = false, isSigned = array<i32: 0>} : %x : tensor<16xf32>
    tt.print " n: " {hex = false, isSigned = array<i32: 1>} : %arg2 : i32
    tt.print "hello" {hex = false, isSigned = array<i32>}
    tt.store %qr, %x : tensor<16x!tt.ptr<f32>>"""

_MATH = _RANGE16 + """
    %a = math.sqrt %x : tensor<16xf32>
    %b = math.rsqrt %a : tensor<16xf32>
    %c = math.exp2 %b : tensor<16xf32>
    %d = math.log %c : tensor<16xf32>
    %e = math.tanh %d : tensor<16xf32>
    %f = arith.divf %e, %x : tensor<16xf32>
    %g = math.fma %f, %x, %e : tensor<16xf32>
    %h = arith.maximumf %g, %x : tensor<16xf32>
    %i = arith.minnumf %h, %a : tensor<16xf32>
    %j = tt.precise_sqrt %i : tensor<16xf32>
    %k = tt.precise_divf %j, %x : tensor<16xf32>
    %l = math.floor %k : tensor<16xf32>
    %m = math.sin %l : tensor<16xf32>
    %n = arith.remf %m, %x : tensor<16xf32>
    tt.store %qr, %n : tensor<16x!tt.ptr<f32>>"""

_CASTS = _RANGE16 + """
    %h = arith.truncf %x : tensor<16xf32> to tensor<16xf16>
    %bf = arith.truncf %x : tensor<16xf32> to tensor<16xbf16>
    %f8 = tt.fp_to_fp %h {rounding = 1 : i32} : tensor<16xf16> -> tensor<16xf8E4M3FN>
    %f8b = tt.fp_to_fp %f8 : tensor<16xf8E4M3FN> -> tensor<16xf32>
    %hb = arith.extf %h : tensor<16xf16> to tensor<16xf32>
    %bb = arith.extf %bf : tensor<16xbf16> to tensor<16xf32>
    %ch = arith.constant dense<1.500000e+00> : tensor<16xf16>
    %cb = arith.constant dense<-2.000000e+00> : tensor<16xbf16>
    %h2 = arith.addf %h, %ch : tensor<16xf16>
    %b2 = arith.mulf %bf, %cb : tensor<16xbf16>
    %h3 = arith.extf %h2 : tensor<16xf16> to tensor<16xf32>
    %b3 = arith.extf %b2 : tensor<16xbf16> to tensor<16xf32>
    %i = arith.fptosi %x : tensor<16xf32> to tensor<16xi32>
    %i8 = arith.trunci %i : tensor<16xi32> to tensor<16xi8>
    %i64 = arith.extsi %i8 : tensor<16xi8> to tensor<16xi64>
    %u64 = arith.extui %i8 : tensor<16xi8> to tensor<16xi64>
    %s = arith.addi %i64, %u64 : tensor<16xi64>
    %sh = arith.constant dense<3> : tensor<16xi64>
    %s2 = arith.shli %s, %sh : tensor<16xi64>
    %s3 = arith.shrui %s2, %sh : tensor<16xi64>
    %s4 = arith.divui %s3, %sh : tensor<16xi64>
    %s5 = arith.remsi %s4, %sh : tensor<16xi64>
    %hi = tt.mulhiui %i, %i : tensor<16xi32>
    %bits = tt.bitcast %x : tensor<16xf32> -> tensor<16xi32>
    %mix = arith.xori %bits, %hi : tensor<16xi32>
    %back = arith.uitofp %mix : tensor<16xi32> to tensor<16xf32>
    %sf = arith.sitofp %s5 : tensor<16xi64> to tensor<16xf32>
    %t = arith.constant dense<true> : tensor<16xi1>
    %sel = arith.select %t, %back, %sf : tensor<16xi1>, tensor<16xf32>
    %pi = tt.ptr_to_int %arg0 : !tt.ptr<f32> -> i64
    %ip = tt.int_to_ptr %pi : i64 -> !tt.ptr<f32>
    %v = tt.load %ip : !tt.ptr<f32>
    %vs = tt.splat %v : f32 -> tensor<16xf32>
    %o1 = arith.addf %hb, %bb : tensor<16xf32>
    %o2 = arith.addf %o1, %h3 : tensor<16xf32>
    %o3 = arith.addf %o2, %b3 : tensor<16xf32>
    %o4 = arith.addf %o3, %sel : tensor<16xf32>
    %o5 = arith.addf %o4, %vs : tensor<16xf32>
    %o6 = arith.addf %o5, %f8b : tensor<16xf32>
    tt.store %qr, %o6 : tensor<16x!tt.ptr<f32>>"""

_SHAPES = _RANGE16 + """
    %a = tt.reshape %x : tensor<16xf32> -> tensor<4x4xf32>
    %b = tt.trans %a {order = array<i32: 1, 0>} : tensor<4x4xf32> -> tensor<4x4xf32>
    %c = tt.join %a, %b : tensor<4x4xf32> -> tensor<4x4x2xf32>
    %de:2 = tt.split %c : tensor<4x4x2xf32> -> tensor<4x4xf32>
    %f = arith.subf %de#0, %de#1 : tensor<4x4xf32>
    %g = tt.reshape %f : tensor<4x4xf32> -> tensor<16xf32>
    %h = tt.cat %g, %x : tensor<16xf32> -> tensor<32xf32>
    %i = tt.reshape %h : tensor<32xf32> -> tensor<2x16xf32>
    %j = "tt.reduce"(%i) <{axis = 0 : i32}> ({
    ^bb0(%u: f32, %v: f32):
      %w = arith.addf %u, %v : f32
      tt.reduce.return %w : f32
    }) : (tensor<2x16xf32>) -> tensor<16xf32>
    tt.store %qr, %j : tensor<16x!tt.ptr<f32>>"""

def extra_cases() -> Dict[str, Case]:
    golden = _golden_module()
    hints = dict(occupancy=4, num_ctas=2, num_stages=3)
    return {
        "dot/tf32": Case(_dot("f32", "f32", "tf32"), "k", {}),
        "dot/tf32x3": Case(_dot("f32", "f32", "tf32x3"), "k", {}),
        "dot/ieee": Case(_dot("f32", "f32", "ieee"), "k", {}),
        "dot/f16": Case(_dot("f16", "f32"), "k", {}),
        "dot/bf16": Case(_dot("bf16", "f32"), "k", {}),
        "dot/i8": Case(_dot("i8", "i32"), "k", {}),
        "reduce_scan": Case(kernel(_REDUCE_SCAN), "k", {}),
        "control_flow": Case(kernel(_CONTROL_FLOW), "k", {}),
        "atomics": Case(kernel(_ATOMICS, args="%arg0: !tt.ptr<i32>, %arg1: !tt.ptr<f32>"), "k",
                        {}),
        "debug": Case(kernel(_DEBUG), "k", {}),
        "math": Case(kernel(_MATH), "k", {}),
        "math/approx_ftz": Case(kernel(_MATH), "k", dict(approx=True, ftz=True)),
        "casts": Case(kernel(_CASTS), "k", {}),
        "shapes": Case(kernel(_SHAPES), "k", {}),
        "hints/sm_90": Case(golden.VADD, "vadd", dict(hints, arch="sm_90")),
        "hints/sm_100": Case(golden.VADD, "vadd", dict(hints, arch="sm_100")),
        "gather/no_views": Case(golden.VADD, "vadd", dict(raise_views=False)),
    }


def _golden_module():
    spec = importlib.util.spec_from_file_location("_golden_vadd", GOLDEN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def vadd_bytecode() -> bytes:
    module, _keep = convert(Case(_golden_module().VADD, "vadd", {}))
    return C.tile_to_bytecode(module)


def all_cases() -> Dict[str, Case]:
    cases = golden_file_cases()
    cases.update(golden_cases())
    cases.update(extra_cases())
    return cases

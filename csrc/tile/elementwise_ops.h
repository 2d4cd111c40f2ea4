// The TTIR element-wise ops that are one Tile IR op each, declared once. The conversion reads
// the table forwards (a TTIR op becomes its Tile IR op with the attributes `mods` says); the
// Tile IR executor reads it backwards (a cuda_tile op, with its signedness, runs the shared
// kernel of the TTIR op). Ops the conversion builds otherwise (comparisons, casts, divi's
// rounding, selects) and kernels with no TTIR op (negi, pow, atan2, ...) are not here.
#pragma once

namespace tt::tile {

// Where "options ask" below: TILEIR_ENABLE_APPROX / TILEIR_ENABLE_FTZ, which make every f32 op
// that can be approximate or flush denormals do so. Without them an f32 op is what stock
// Triton's PTX lowering makes of the same TTIR op (3.6, read from its PTX): divf is
// div.full.f32, sqrt sqrt.approx.ftz.f32, rsqrt rsqrt.approx.ftz.f32, exp2 ex2.approx.ftz.f32,
// exp ex2.approx.f32 of x*log2(e); the precise forms are tt.precise_divf / tt.precise_sqrt
// (div_rn, sqrt_rn). The precise forms of the fast ops are long code in tileiras (sm_90
// SASS: 144 instructions and a slow-path call for a divf, 56 for a sqrt, 3 more per exp2).
enum class Mods {
  None,          // no attributes
  Signed,        // signedness = signed (the Tile IR op also has an unsigned TTIR twin)
  Unsigned,      // signedness = unsigned
  Rounding,      // rounding = nearest_even, plus flush_to_zero where asked
  DivF,          // as Rounding; f32: full (div.full), approx where options ask
  FastFtz,       // f32: flush_to_zero (exp2, rsqrt: approximate ops of Tile IR)
  FastSqrt,      // as Rounding; f32: approx and flush_to_zero (sqrt.approx.ftz)
  FastExp,       // f32: rounding = approx (ex2.approx of x*log2(e)); nothing otherwise
  DivRem,        // signedness, and a divisor guard (Converter::intDivRem): signed
  DivRemUnsigned // as DivRem, unsigned
};

struct ElementwiseOp {
  const char *ttir; // the TTIR op, its shared kernel's name too
  const char *tile; // the cuda_tile op (without the prefix)
  Mods mods;
};

inline constexpr ElementwiseOp kElementwiseOps[] = {
    {"arith.addi", "addi", Mods::None},
    {"arith.subi", "subi", Mods::None},
    {"arith.muli", "muli", Mods::None},
    {"arith.andi", "andi", Mods::None},
    {"arith.ori", "ori", Mods::None},
    {"arith.xori", "xori", Mods::None},
    {"arith.shli", "shli", Mods::None},
    {"tt.mulhiui", "mulhii", Mods::None}, // (the executor reads mulhii's signedness itself)
    {"math.absi", "absi", Mods::None},
    {"math.floor", "floor", Mods::None},
    {"math.ceil", "ceil", Mods::None},
    {"math.sin", "sin", Mods::None},
    {"math.cos", "cos", Mods::None},
    {"math.tan", "tan", Mods::None},
    {"math.tanh", "tanh", Mods::None},
    {"math.log", "log", Mods::None},
    {"math.log2", "log2", Mods::None},
    {"math.absf", "absf", Mods::None},
    {"arith.negf", "negf", Mods::None},
    {"arith.remf", "remf", Mods::None},
    {"arith.divsi", "divi", Mods::DivRem},
    {"arith.divui", "divi", Mods::DivRemUnsigned},
    {"arith.remsi", "remi", Mods::DivRem},
    {"arith.remui", "remi", Mods::DivRemUnsigned},
    {"arith.maxsi", "maxi", Mods::Signed},
    {"arith.maxui", "maxi", Mods::Unsigned},
    {"arith.minsi", "mini", Mods::Signed},
    {"arith.minui", "mini", Mods::Unsigned},
    {"arith.shrsi", "shri", Mods::Signed},
    {"arith.shrui", "shri", Mods::Unsigned},
    {"arith.addf", "addf", Mods::Rounding},
    {"arith.subf", "subf", Mods::Rounding},
    {"arith.mulf", "mulf", Mods::Rounding},
    {"arith.divf", "divf", Mods::DivF},
    {"math.sqrt", "sqrt", Mods::FastSqrt},
    {"math.fma", "fma", Mods::Rounding},
    {"math.exp2", "exp2", Mods::FastFtz},
    {"math.rsqrt", "rsqrt", Mods::FastFtz},
    {"math.exp", "exp", Mods::FastExp},
};

} // namespace tt::tile

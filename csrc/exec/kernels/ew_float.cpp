// Float elementwise kernel instantiations (see elementwise.h for the rules).
#include <string>
#include <unordered_map>

#include "exec/kernels/elementwise.h"

namespace tt::exec::ew {
namespace {

template <class Op> KernelFn binaryForFloat(DType dt, bool ba, bool bb) {
  switch (dt) {
  case DType::F16:
    return pickBinary<F16Fmt, Op>(ba, bb);
  case DType::BF16:
    return pickBinary<BF16Fmt, Op>(ba, bb);
  case DType::F32:
    return pickBinary<Direct<float>, Op>(ba, bb);
  case DType::F64:
    return pickBinary<Direct<double>, Op>(ba, bb);
  case DType::F8E4M3:
    return pickBinary<F8E4Fmt, Op>(ba, bb);
  case DType::F8E5M2:
    return pickBinary<F8E5Fmt, Op>(ba, bb);
  default:
    return nullptr;
  }
}

template <class Op> KernelFn unaryForFloat(DType dt, bool ba) {
  switch (dt) {
  case DType::F16:
    return pickUnary<F16Fmt, Op>(ba);
  case DType::BF16:
    return pickUnary<BF16Fmt, Op>(ba);
  case DType::F32:
    return pickUnary<Direct<float>, Op>(ba);
  case DType::F64:
    return pickUnary<Direct<double>, Op>(ba);
  case DType::F8E4M3:
    return pickUnary<F8E4Fmt, Op>(ba);
  case DType::F8E5M2:
    return pickUnary<F8E5Fmt, Op>(ba);
  default:
    return nullptr;
  }
}

template <class Op> KernelFn ternaryForFloat(DType dt, bool ba, bool bb, bool bc) {
  switch (dt) {
  case DType::F16:
    return pickTernary<F16Fmt, Op>(ba, bb, bc);
  case DType::BF16:
    return pickTernary<BF16Fmt, Op>(ba, bb, bc);
  case DType::F32:
    return pickTernary<Direct<float>, Op>(ba, bb, bc);
  case DType::F64:
    return pickTernary<Direct<double>, Op>(ba, bb, bc);
  default:
    return nullptr;
  }
}

} // namespace

KernelFn pickFloatBinary(const std::string &name, DType dt, bool ba, bool bb) {
  using P = KernelFn (*)(DType, bool, bool);
  static const std::unordered_map<std::string, P> table = {
      {"arith.addf", binaryForFloat<AddF>},         {"arith.subf", binaryForFloat<SubF>},
      {"arith.mulf", binaryForFloat<MulF>},         {"arith.divf", binaryForFloat<DivF>},
      {"tt.precise_divf", binaryForFloat<DivF>},    {"arith.remf", binaryForFloat<RemF>},
      {"arith.maxnumf", binaryForFloat<MaxNumF>},   {"arith.minnumf", binaryForFloat<MinNumF>},
      {"arith.maximumf", binaryForFloat<MaximumF>}, {"arith.minimumf", binaryForFloat<MinimumF>},
      {"cuda_tile.pow", binaryForFloat<PowF>},      {"cuda_tile.atan2", binaryForFloat<Atan2F>},
  };
  auto it = table.find(name);
  return it == table.end() ? nullptr : it->second(dt, ba, bb);
}

KernelFn pickFloatUnary(const std::string &name, DType dt, bool ba) {
  using P = KernelFn (*)(DType, bool);
  static const std::unordered_map<std::string, P> table = {
      {"arith.negf", unaryForFloat<NegF>},      {"math.absf", unaryForFloat<AbsF>},
      {"math.sqrt", unaryForFloat<SqrtF>},      {"tt.precise_sqrt", unaryForFloat<SqrtF>},
      {"math.rsqrt", unaryForFloat<RsqrtF>},    {"math.exp", unaryForFloat<ExpF>},
      {"math.exp2", unaryForFloat<Exp2F>},      {"math.log", unaryForFloat<LogF>},
      {"math.log2", unaryForFloat<Log2F>},      {"math.sin", unaryForFloat<SinF>},
      {"math.cos", unaryForFloat<CosF>},        {"math.tan", unaryForFloat<TanF>},
      {"math.tanh", unaryForFloat<TanhF>},      {"math.floor", unaryForFloat<FloorF>},
      {"math.ceil", unaryForFloat<CeilF>},      {"math.erf", unaryForFloat<ErfF>},
      {"cuda_tile.cosh", unaryForFloat<CoshF>}, {"cuda_tile.sinh", unaryForFloat<SinhF>},
  };
  auto it = table.find(name);
  return it == table.end() ? nullptr : it->second(dt, ba);
}

KernelFn pickFloatTernary(const std::string &name, DType dt, bool ba, bool bb, bool bc) {
  if (name == "math.fma")
    return ternaryForFloat<FmaF>(dt, ba, bb, bc);
  if (name == "tt.clampf")
    return ternaryForFloat<ClampF>(dt, ba, bb, bc);
  return nullptr;
}

} // namespace tt::exec::ew

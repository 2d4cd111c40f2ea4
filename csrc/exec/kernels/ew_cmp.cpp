// Comparison kernel instantiations (arith.cmpi / arith.cmpf predicates; results are i1).
#include "exec/kernels/elementwise.h"

namespace tt::exec::ew {
namespace {

template <template <int> class Op> KernelFn cmpForInt(DType dt, bool ba, bool bb) {
  switch (dt) {
  case DType::I1:
    return pickBinary<IntFmt<uint8_t, 1>, Op<1>>(ba, bb);
  case DType::I8:
    return pickBinary<IntFmt<uint8_t, 8>, Op<8>>(ba, bb);
  case DType::I16:
    return pickBinary<IntFmt<uint16_t, 16>, Op<16>>(ba, bb);
  case DType::I32:
    return pickBinary<IntFmt<uint32_t, 32>, Op<32>>(ba, bb);
  case DType::I64:
  case DType::Ptr:
    return pickBinary<IntFmt<uint64_t, 64>, Op<64>>(ba, bb);
  default:
    return nullptr;
  }
}

template <class Op> KernelFn cmpForFloat(DType dt, bool ba, bool bb) {
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

} // namespace

KernelFn pickCmpI(int64_t p, DType dt, bool ba, bool bb) {
  using P = KernelFn (*)(DType, bool, bool);
  static const P table[] = {cmpForInt<CmpEq>,  cmpForInt<CmpNe>,  cmpForInt<CmpSlt>,
                            cmpForInt<CmpSle>, cmpForInt<CmpSgt>, cmpForInt<CmpSge>,
                            cmpForInt<CmpUlt>, cmpForInt<CmpUle>, cmpForInt<CmpUgt>,
                            cmpForInt<CmpUge>};
  if (p < 0 || p >= 10)
    return nullptr;
  return table[p](dt, ba, bb);
}

KernelFn pickCmpF(int64_t p, DType dt, bool ba, bool bb) {
  using P = KernelFn (*)(DType, bool, bool);
  static const P table[] = {
      cmpForFloat<FFalse>, cmpForFloat<FOeq>, cmpForFloat<FOgt>, cmpForFloat<FOge>,
      cmpForFloat<FOlt>,   cmpForFloat<FOle>, cmpForFloat<FOne>, cmpForFloat<FOrd>,
      cmpForFloat<FUeq>,   cmpForFloat<FUgt>, cmpForFloat<FUge>, cmpForFloat<FUlt>,
      cmpForFloat<FUle>,   cmpForFloat<FUne>, cmpForFloat<FUno>, cmpForFloat<FTrue>};
  if (p < 0 || p >= 16)
    return nullptr;
  return table[p](dt, ba, bb);
}

} // namespace tt::exec::ew

// Integer elementwise kernel instantiations (see elementwise.h for the rules).
#include <string>
#include <unordered_map>

#include "exec/kernels/elementwise.h"

namespace tt::exec::ew {
namespace {

template <template <int> class Op> KernelFn binaryForInt(DType dt, bool ba, bool bb) {
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
    return pickBinary<IntFmt<uint64_t, 64>, Op<64>>(ba, bb);
  default:
    return nullptr;
  }
}

using BinaryPicker = KernelFn (*)(DType, bool, bool);

} // namespace

KernelFn pickIntBinary(const std::string &name, DType dt, bool ba, bool bb) {
  static const std::unordered_map<std::string, BinaryPicker> table = {
      {"arith.addi", binaryForInt<AddI>},
      {"arith.subi", binaryForInt<SubI>},
      {"arith.muli", binaryForInt<MulI>},
      {"arith.divsi", binaryForInt<DivSI>},
      {"arith.divui", binaryForInt<DivUI>},
      {"arith.remsi", binaryForInt<RemSI>},
      {"arith.remui", binaryForInt<RemUI>},
      {"arith.andi", binaryForInt<AndI>},
      {"arith.ori", binaryForInt<OrI>},
      {"arith.xori", binaryForInt<XorI>},
      {"arith.shli", binaryForInt<ShlI>},
      {"arith.shrsi", binaryForInt<ShrSI>},
      {"arith.shrui", binaryForInt<ShrUI>},
      {"arith.maxsi", binaryForInt<MaxSI>},
      {"arith.minsi", binaryForInt<MinSI>},
      {"arith.maxui", binaryForInt<MaxUI>},
      {"arith.minui", binaryForInt<MinUI>},
      {"tt.mulhiui", binaryForInt<MulHiUI>},
      // Tile IR functions TTIR has no op for (tile_ops.cpp names them).
      {"cuda_tile.mulhii.signed", binaryForInt<MulHiSI>},
      {"cuda_tile.divi.floor", binaryForInt<DivFloorSI>},
      {"cuda_tile.divi.ceil", binaryForInt<DivCeilSI>},
      {"cuda_tile.divi.ceil.unsigned", binaryForInt<DivCeilUI>},
  };
  auto it = table.find(name);
  return it == table.end() ? nullptr : it->second(dt, ba, bb);
}

namespace {

template <template <int> class Op> KernelFn unaryForInt(DType dt, bool ba) {
  switch (dt) {
  case DType::I1:
    return pickUnary<IntFmt<uint8_t, 1>, Op<1>>(ba);
  case DType::I8:
    return pickUnary<IntFmt<uint8_t, 8>, Op<8>>(ba);
  case DType::I16:
    return pickUnary<IntFmt<uint16_t, 16>, Op<16>>(ba);
  case DType::I32:
    return pickUnary<IntFmt<uint32_t, 32>, Op<32>>(ba);
  case DType::I64:
    return pickUnary<IntFmt<uint64_t, 64>, Op<64>>(ba);
  default:
    return nullptr;
  }
}

} // namespace

KernelFn pickIntUnary(const std::string &name, DType dt, bool ba) {
  if (name == "math.absi")
    return unaryForInt<AbsI>(dt, ba);
  if (name == "cuda_tile.negi")
    return unaryForInt<NegI>(dt, ba);
  return nullptr;
}

} // namespace tt::exec::ew

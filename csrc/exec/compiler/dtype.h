// Element types of executor registers. Every TTIR element type maps to one DType with a fixed
// storage size: i1 takes one byte (0 or 1), pointers are 8-byte host addresses, f16/bf16/fp8
// are kept as their raw bits (uint16_t / uint8_t) and converted at each op.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "ir/type.h"

namespace tt::exec {

enum class DType : uint8_t { I1, I8, I16, I32, I64, F16, BF16, F32, F64, F8E4M3, F8E5M2, Ptr };

inline int dtypeSize(DType d) {
  switch (d) {
  case DType::I1:
  case DType::I8:
  case DType::F8E4M3:
  case DType::F8E5M2:
    return 1;
  case DType::I16:
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I32:
  case DType::F32:
    return 4;
  default:
    return 8;
  }
}

inline bool isIntDType(DType d) { return d <= DType::I64; }
inline bool isFloatDType(DType d) { return d >= DType::F16 && d <= DType::F8E5M2; }
inline int intBits(DType d) {
  switch (d) {
  case DType::I1:
    return 1;
  case DType::I8:
    return 8;
  case DType::I16:
    return 16;
  case DType::I32:
    return 32;
  default:
    return 64;
  }
}

const char *dtypeName(DType d);
// Throws std::invalid_argument for types the executor cannot hold (tf32, views, tokens).
DType dtypeOf(Type elem);

// Storage types, used as template parameters.
struct F16Bits {
  uint16_t v;
};
struct BF16Bits {
  uint16_t v;
};

template <class T> inline T loadAs(const void *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <class T> inline void storeAs(void *p, T v) { std::memcpy(p, &v, sizeof(T)); }

// Reads an integer register element sign-extended (or zero-extended when `isUnsigned`). Each
// branch converts to int64_t itself: in `c ? uint32_t : int32_t` the signed operand would be
// converted to unsigned first, losing the sign extension.
inline int64_t readIntSext(const void *p, DType d, bool isUnsigned = false) {
  switch (d) {
  case DType::I1: {
    int64_t bit = *static_cast<const uint8_t *>(p) & 1;
    return isUnsigned ? bit : -bit;
  }
  case DType::I8:
    return isUnsigned ? int64_t(loadAs<uint8_t>(p)) : int64_t(loadAs<int8_t>(p));
  case DType::I16:
    return isUnsigned ? int64_t(loadAs<uint16_t>(p)) : int64_t(loadAs<int16_t>(p));
  case DType::I32:
    return isUnsigned ? int64_t(loadAs<uint32_t>(p)) : int64_t(loadAs<int32_t>(p));
  default:
    return loadAs<int64_t>(p);
  }
}

// Writes the low bits of `v` into an integer (or pointer) register element.
inline void writeIntTrunc(void *p, DType d, int64_t v) {
  switch (d) {
  case DType::I1:
    storeAs<uint8_t>(p, static_cast<uint8_t>(v & 1));
    break;
  case DType::I8:
    storeAs<uint8_t>(p, static_cast<uint8_t>(v));
    break;
  case DType::I16:
    storeAs<uint16_t>(p, static_cast<uint16_t>(v));
    break;
  case DType::I32:
    storeAs<uint32_t>(p, static_cast<uint32_t>(v));
    break;
  default:
    storeAs<int64_t>(p, v);
    break;
  }
}

} // namespace tt::exec

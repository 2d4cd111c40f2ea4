// The element operations of atomics (GCC __atomic builtins), shared by the pointer-tile kernels
// (memory.cpp) and the Tile executor's reductions through views (tile_view.cpp). T is the
// element's unsigned storage type; `dt` says how float operations read it. Float add, max and
// min and every operation on 8/16-bit elements run as compare-and-swap loops.
#pragma once

#include <cstdint>
#include <type_traits>

#include "exec/compiler/dtype.h"
#include "exec/kernels/casts.h"

namespace tt::exec::mem {

enum RmwOp { kAnd = 1, kOr, kXor, kAdd, kFAdd, kMax, kMin, kUMax, kUMin, kXchg };

inline int memOrder(int64_t sem) {
  switch (sem) {
  case 1:
    return __ATOMIC_RELAXED;
  case 2:
    return __ATOMIC_ACQUIRE;
  case 3:
    return __ATOMIC_RELEASE;
  default:
    return __ATOMIC_ACQ_REL;
  }
}
inline int failOrder(int order) {
  return order == __ATOMIC_RELEASE   ? __ATOMIC_RELAXED
         : order == __ATOMIC_ACQ_REL ? __ATOMIC_ACQUIRE
                                     : order;
}

template <class T> double toDouble(T bits, DType dt) {
  if constexpr (sizeof(T) == 2)
    return dt == DType::F16 ? f16ToF32(bits) : bf16ToF32(bits);
  else if constexpr (sizeof(T) == 4)
    return bitsF32(bits);
  else if constexpr (sizeof(T) == 8)
    return bitsF64(bits);
  else
    return 0;
}
template <class T> T fromDouble(double v, DType dt) {
  if constexpr (sizeof(T) == 2)
    return dt == DType::F16 ? f32ToF16(static_cast<float>(v)) : f32ToBf16(static_cast<float>(v));
  else if constexpr (sizeof(T) == 4)
    return f32Bits(static_cast<float>(v));
  else if constexpr (sizeof(T) == 8)
    return f64Bits(v);
  else
    return 0;
}

// The new value an RMW stores, given the old one (T: unsigned storage).
template <class T> T combine(int op, T old, T val, DType dt) {
  using S = std::make_signed_t<T>;
  bool isFloat = isFloatDType(dt);
  switch (op) {
  case kAnd:
    return old & val;
  case kOr:
    return old | val;
  case kXor:
    return old ^ val;
  case kAdd:
    return static_cast<T>(old + val);
  case kFAdd:
    return fromDouble<T>(toDouble<T>(old, dt) + toDouble<T>(val, dt), dt);
  case kMax:
    if (isFloat && !(toDouble<T>(val, dt) >= 0)) // Triton: negative floats use unsigned min
      return old < val ? old : val;
    return static_cast<S>(old) > static_cast<S>(val) ? old : val;
  case kMin:
    if (isFloat && !(toDouble<T>(val, dt) >= 0))
      return old > val ? old : val;
    return static_cast<S>(old) < static_cast<S>(val) ? old : val;
  case kUMax:
    return old > val ? old : val;
  case kUMin:
    return old < val ? old : val;
  default: // xchg
    return val;
  }
}

template <class T> T atomicRmw(T *addr, int op, T val, DType dt, int order) {
  if constexpr (sizeof(T) >= 4) {
    switch (op) {
    case kAnd:
      return __atomic_fetch_and(addr, val, order);
    case kOr:
      return __atomic_fetch_or(addr, val, order);
    case kXor:
      return __atomic_fetch_xor(addr, val, order);
    case kAdd:
      return __atomic_fetch_add(addr, val, order);
    case kXchg:
      return __atomic_exchange_n(addr, val, order);
    default:
      break;
    }
  }
  T old = __atomic_load_n(addr, __ATOMIC_RELAXED);
  for (;;) {
    T nv = combine<T>(op, old, val, dt);
    if (__atomic_compare_exchange_n(addr, &old, nv, false, order, failOrder(order)))
      return old;
  }
}

} // namespace tt::exec::mem

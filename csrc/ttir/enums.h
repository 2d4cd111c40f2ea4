// The TTIR enums, declared once: the spelling of each value at its number, as stock Triton
// prints them (arith.cmpi/cmpf predicates, tt.atomic_rmw kinds, memory semantics and scopes,
// program-id axes, tt.dot input precisions). The printer (ops.cpp), the parser (parser.cpp)
// and the Python frontend (through _core.ttir_enums(), language/semantic.py) all read these
// tables; an entry "?" is a number Triton does not use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tt {
namespace ttir_enum {

inline constexpr const char *kCmpi[] = {"eq",  "ne",  "slt", "sle", "sgt",
                                        "sge", "ult", "ule", "ugt", "uge"};
inline constexpr const char *kCmpf[] = {"false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
                                        "ueq",   "ugt", "uge", "ult", "ule", "une", "uno", "true"};
inline constexpr const char *kAtomicRmw[] = {"?",   "and", "or",   "xor",  "add", "fadd",
                                             "max", "min", "umax", "umin", "exch"};
inline constexpr const char *kMemSemantic[] = {"?", "relaxed", "acquire", "release", "acq_rel"};
inline constexpr const char *kMemSyncScope[] = {"?", "gpu", "cta", "sys"};
inline constexpr const char *kProgramAxis[] = {"x", "y", "z"};
inline constexpr const char *kInputPrecision[] = {"tf32", "tf32x3", "ieee",
                                                  "hf32", "bf16x3", "bf16x6"};

// The spelling of `v`, or "?" out of range.
template <size_t N> const char *name(const char *const (&names)[N], int64_t v) {
  return v >= 0 && static_cast<size_t>(v) < N ? names[v] : "?";
}

// The number spelt `w`, or -1.
template <size_t N> int64_t value(const char *const (&names)[N], const std::string &w) {
  for (size_t i = 0; i < N; ++i)
    if (w == names[i])
      return static_cast<int64_t>(i);
  return -1;
}

} // namespace ttir_enum
} // namespace tt

// Bit patterns of float constants in Tile IR's element formats (f16, bf16, tf32, f32, f64, fp8).
// The IR core stores float attributes as doubles; bytecode wants the element's own bits,
// rounded once (to nearest even) from the double, as MLIR's APFloat conversion does.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace tt {
namespace bytecode {

/// A binary float format: sign, `exp_bits` exponent, `man_bits` mantissa. `nan_only` formats
/// (f8E4M3FN) have no infinities: their top exponent still holds finite values and only the
/// all-ones pattern is NaN.
struct FloatFormat {
  int exp_bits;
  int man_bits;
  bool nan_only = false;
  int width() const { return 1 + exp_bits + man_bits; }
};

constexpr FloatFormat kF16{5, 10};
constexpr FloatFormat kBF16{8, 7};
constexpr FloatFormat kTF32{8, 10};
constexpr FloatFormat kF8E4M3FN{4, 3, true};
constexpr FloatFormat kF8E5M2{5, 2};

/// Rounds `v` to `f` (nearest even); overflow gives infinity, or NaN in nan-only formats.
inline uint64_t encodeFloat(double v, FloatFormat f) {
  const uint64_t sign = std::signbit(v) ? uint64_t(1) << (f.exp_bits + f.man_bits) : 0;
  const uint64_t exp_all = (uint64_t(1) << f.exp_bits) - 1;
  const uint64_t man_all = (uint64_t(1) << f.man_bits) - 1;
  const uint64_t nan =
      sign | (exp_all << f.man_bits) | (f.nan_only ? man_all : uint64_t(1) << (f.man_bits - 1));
  if (std::isnan(v))
    return nan;
  const uint64_t inf = f.nan_only ? nan : sign | (exp_all << f.man_bits);
  if (std::isinf(v))
    return inf;
  const double a = std::fabs(v);
  if (a == 0)
    return sign;
  const int bias = (1 << (f.exp_bits - 1)) - 1;
  int e2;
  std::frexp(a, &e2); // a = m * 2^e2, m in [0.5, 1): unbiased exponent e2 - 1
  int64_t biased = e2 - 1 + bias;
  uint64_t man;
  if (biased >= 1) {
    // Scaling by a power of two is exact; nearbyint rounds to nearest even (default mode).
    double r = std::nearbyint(std::ldexp(a, f.man_bits - (e2 - 1)));
    if (r >= std::ldexp(1.0, f.man_bits + 1)) {
      ++biased;
      r = std::ldexp(1.0, f.man_bits);
    }
    man = static_cast<uint64_t>(r) & man_all;
  } else {
    double r = std::nearbyint(std::ldexp(a, f.man_bits - (1 - bias)));
    biased = r >= std::ldexp(1.0, f.man_bits) ? 1 : 0; // rounded up to the smallest normal
    man = static_cast<uint64_t>(r) & man_all;
  }
  const int64_t max_biased = f.nan_only ? int64_t(exp_all) : int64_t(exp_all) - 1;
  if (biased > max_biased || (f.nan_only && biased == max_biased && man == man_all))
    return inf;
  return sign | (uint64_t(biased) << f.man_bits) | man;
}

inline uint64_t f32Bits(double v) {
  float f = static_cast<float>(v);
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

inline uint64_t f64Bits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, 8);
  return b;
}

} // namespace bytecode
} // namespace tt

// Binary float formats and rounding from double, declared once: the bytecode writer encodes Tile
// IR constants with them, the executors cast with them.
//
// Rules:
//  - a format is sign, `expBits` exponent (bias `bias`), `manBits` mantissa, at most 31 bits;
//    `hasInf`: the all-ones exponent holds infinities and NaNs (IEEE); otherwise (E4M3FN) it
//    holds finite values and only S.1111.111 is NaN;
//  - decoding is exact for every format;
//  - encoding rounds once from the double: to nearest, ties to even (RTNE), or toward zero;
//  - out of range (and infinities): saturating formats and RTZ give the largest finite value,
//    the others infinity, or NaN where there is none (as MLIR's APFloat converts constants);
//  - NaN stays NaN, with its sign.
// Two fp8 flavours: kF8E4M3FN/kF8E5M2 as APFloat has them (Tile IR constants), and the
// saturating ones PTX's `cvt.rn.satfinite` gives (the executors' casts).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace tt {

inline uint32_t f32Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bitsF32(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint64_t f64Bits(double f) {
  uint64_t u;
  std::memcpy(&u, &f, 8);
  return u;
}
inline double bitsF64(uint64_t u) {
  double f;
  std::memcpy(&f, &u, 8);
  return f;
}

enum class Rounding { RTZ = 0, RTNE = 1 };

struct FloatFormat {
  int expBits, manBits, bias;
  bool hasInf;
  bool saturating; // out-of-range finite values clamp to the largest finite
  int width() const { return 1 + expBits + manBits; }
};
constexpr FloatFormat kF16{5, 10, 15, true, false};
constexpr FloatFormat kBF16{8, 7, 127, true, false};
constexpr FloatFormat kTF32{8, 10, 127, true, false};
constexpr FloatFormat kF8E4M3FN{4, 3, 7, false, false};
constexpr FloatFormat kF8E5M2{5, 2, 15, true, false};
constexpr FloatFormat kF8E4M3FNSat{4, 3, 7, false, true};
constexpr FloatFormat kF8E5M2Sat{5, 2, 15, true, true};

inline double floatMax(const FloatFormat &f) {
  int maxExp = (1 << f.expBits) - 1 - (f.hasInf ? 1 : 0);
  int maxMan = f.hasInf ? (1 << f.manBits) - 1 : (1 << f.manBits) - 2;
  return std::ldexp(1.0 + maxMan / double(1 << f.manBits), maxExp - f.bias);
}

// Exact decoding of `bits` (the low width() bits) in format `f`.
inline float decodeFloat(uint32_t bits, const FloatFormat &f) {
  uint32_t width = f.width();
  bool neg = (bits >> (width - 1)) & 1;
  uint32_t e = (bits >> f.manBits) & ((1u << f.expBits) - 1);
  uint32_t m = bits & ((1u << f.manBits) - 1);
  uint32_t eMax = (1u << f.expBits) - 1;
  double v;
  if (e == eMax && f.hasInf)
    v = m == 0 ? INFINITY : NAN;
  else if (e == eMax && m == (1u << f.manBits) - 1 && !f.hasInf)
    v = NAN;
  else if (e == 0)
    v = std::ldexp(double(m), 1 - f.bias - f.manBits);
  else
    v = std::ldexp(1.0 + m / double(1u << f.manBits), int(e) - f.bias);
  return static_cast<float>(neg ? -v : v);
}

// Rounds `x` to format `f` once.
inline uint32_t encodeFloat(double x, const FloatFormat &f, Rounding r = Rounding::RTNE) {
  uint32_t width = f.width();
  uint32_t sign = std::signbit(x) ? (1u << (width - 1)) : 0;
  uint32_t eMax = (1u << f.expBits) - 1;
  uint32_t nanBits = f.hasInf ? ((eMax << f.manBits) | (1u << (f.manBits - 1)))
                              : ((eMax << f.manBits) | ((1u << f.manBits) - 1));
  uint32_t infBits = eMax << f.manBits;
  if (std::isnan(x))
    return sign | nanBits;
  auto overflow = [&](bool infinite) -> uint32_t {
    if (f.saturating || (r == Rounding::RTZ && !infinite)) {
      int maxExp = (1 << f.expBits) - 1 - (f.hasInf ? 1 : 0);
      uint32_t maxMan = f.hasInf ? (1u << f.manBits) - 1 : (1u << f.manBits) - 2;
      return sign | (uint32_t(maxExp) << f.manBits) | maxMan;
    }
    return sign | (f.hasInf ? infBits : nanBits);
  };
  double a = std::fabs(x);
  if (std::isinf(a))
    return overflow(true);
  if (a == 0)
    return sign;
  int e2;
  std::frexp(a, &e2); // a = frac * 2^e2, frac in [0.5, 1)
  int unbiased = e2 - 1;
  int minNormal = 1 - f.bias;
  int quantumExp = (unbiased < minNormal ? minNormal : unbiased) - f.manBits;
  double q = std::ldexp(a, -quantumExp); // exact
  double qi;
  if (r == Rounding::RTZ) {
    qi = std::trunc(q);
  } else {
    qi = std::floor(q);
    double frac = q - qi;
    if (frac > 0.5 || (frac == 0.5 && std::fmod(qi, 2.0) != 0))
      qi += 1;
  }
  double v = std::ldexp(qi, quantumExp);
  if (v > floatMax(f))
    return overflow(false);
  if (v == 0)
    return sign;
  if (v < std::ldexp(1.0, minNormal))
    return sign | static_cast<uint32_t>(qi); // subnormal: mantissa = qi
  int ev;
  std::frexp(v, &ev);
  int ue = ev - 1;
  uint32_t man = static_cast<uint32_t>(std::ldexp(v, f.manBits - ue)) - (1u << f.manBits);
  return sign | (uint32_t(ue + f.bias) << f.manBits) | man;
}

} // namespace tt

// Float formats the executor computes with but the CPU does not: f16, bf16, fp8 (E4M3FN and
// E5M2). Rules:
//  - decoding to f32 is exact for every format;
//  - encoding rounds once from f32 (or f64): rtne (round to nearest, ties to even) or rtz;
//  - f16/bf16 overflow to inf under rtne and to the largest finite under rtz (IEEE);
//  - fp8 encodings saturate to the largest finite value (like PTX `cvt.rn.satfinite`), NaN
//    stays NaN (E4M3FN has no infinity; its NaN is S.1111.111);
//  - tf32 rounding follows `cvt.rna.tf32.f32`: nearest, ties away from zero, 10 mantissa bits.
// f16 arrays convert 8 lanes at a time with F16C when the build targets it (x86-64-v3).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace tt::exec {

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

// A binary float format of at most 16 bits.
struct SmallFloatFormat {
  int expBits, manBits, bias;
  bool hasInf;     // IEEE-like all-ones exponent = inf/NaN; otherwise (E4M3FN) only S.1..1 is NaN
  bool saturating; // out-of-range finite values clamp to the largest finite
};
constexpr SmallFloatFormat kF16Format{5, 10, 15, true, false};
constexpr SmallFloatFormat kBF16Format{8, 7, 127, true, false};
constexpr SmallFloatFormat kE4M3Format{4, 3, 7, false, true};
constexpr SmallFloatFormat kE5M2Format{5, 2, 15, true, true};

inline double smallFloatMax(const SmallFloatFormat &f) {
  int maxExp = (1 << f.expBits) - 1 - (f.hasInf ? 1 : 0);
  int maxMan = f.hasInf ? (1 << f.manBits) - 1 : (1 << f.manBits) - 2;
  return std::ldexp(1.0 + maxMan / double(1 << f.manBits), maxExp - f.bias);
}

// Exact decoding of any small format.
inline float decodeSmallFloat(uint32_t bits, const SmallFloatFormat &f) {
  uint32_t width = 1 + f.expBits + f.manBits;
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

// Rounds a double to a small format once. Works for every format above (f16 and bf16 too).
inline uint32_t encodeSmallFloat(double x, const SmallFloatFormat &f, Rounding r) {
  uint32_t width = 1 + f.expBits + f.manBits;
  uint32_t sign = std::signbit(x) ? (1u << (width - 1)) : 0;
  uint32_t eMax = (1u << f.expBits) - 1;
  uint32_t nanBits = f.hasInf ? ((eMax << f.manBits) | (1u << (f.manBits - 1)))
                              : ((eMax << f.manBits) | ((1u << f.manBits) - 1));
  uint32_t infBits = eMax << f.manBits;
  double maxFinite = smallFloatMax(f);
  if (std::isnan(x))
    return sign | nanBits;
  double a = std::fabs(x);
  auto overflow = [&]() -> uint32_t {
    if (f.saturating || r == Rounding::RTZ || !f.hasInf) {
      // Largest finite: encode it directly.
      int maxExp = (1 << f.expBits) - 1 - (f.hasInf ? 1 : 0);
      uint32_t maxMan = f.hasInf ? (1u << f.manBits) - 1 : (1u << f.manBits) - 2;
      return sign | (uint32_t(maxExp) << f.manBits) | maxMan;
    }
    return sign | infBits;
  };
  if (std::isinf(a))
    return (f.hasInf && !f.saturating) ? (sign | infBits) : overflow();
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
  if (v > maxFinite)
    return overflow();
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

// ---- f16 ----
inline float f16ToF32(uint16_t h) {
#if defined(__F16C__)
  return _cvtsh_ss(h);
#else
  return decodeSmallFloat(h, kF16Format);
#endif
}
inline uint16_t f32ToF16(float f) {
#if defined(__F16C__)
  return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#else
  return static_cast<uint16_t>(encodeSmallFloat(f, kF16Format, Rounding::RTNE));
#endif
}
inline uint16_t f32ToF16Rtz(float f) {
#if defined(__F16C__)
  return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
#else
  return static_cast<uint16_t>(encodeSmallFloat(f, kF16Format, Rounding::RTZ));
#endif
}

// ---- bf16 ----
inline float bf16ToF32(uint16_t b) { return bitsF32(uint32_t(b) << 16); }
inline uint16_t f32ToBf16(float f) {
  uint32_t u = f32Bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((u >> 16) | 0x40); // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}
inline uint16_t f32ToBf16Rtz(float f) {
  uint32_t u = f32Bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((u >> 16) | 0x40);
  return static_cast<uint16_t>(u >> 16);
}

// ---- fp8 ----
float fp8e4m3ToF32(uint8_t b); // table lookups (casts.cpp)
float fp8e5m2ToF32(uint8_t b);
inline uint8_t f64ToFp8e4m3(double x, Rounding r) {
  return static_cast<uint8_t>(encodeSmallFloat(x, kE4M3Format, r));
}
inline uint8_t f64ToFp8e5m2(double x, Rounding r) {
  return static_cast<uint8_t>(encodeSmallFloat(x, kE5M2Format, r));
}

// ---- tf32: cvt.rna.tf32.f32 ----
inline float roundTf32(float f) {
  uint32_t u = f32Bits(f);
  if ((u & 0x7f800000u) == 0x7f800000u)
    return f; // inf and NaN unchanged
  u += 0x1000u;
  u &= 0xffffe000u;
  return bitsF32(u);
}

// ---- array conversions (hot paths of f16/bf16 elementwise ops) ----
inline void f16ToF32Array(const uint16_t *__restrict in, float *__restrict out, int64_t n) {
  int64_t i = 0;
#if defined(__F16C__)
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(out + i,
                     _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(in + i))));
#endif
  for (; i < n; ++i)
    out[i] = f16ToF32(in[i]);
}
inline void f32ToF16Array(const float *__restrict in, uint16_t *__restrict out, int64_t n) {
  int64_t i = 0;
#if defined(__F16C__)
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(
        reinterpret_cast<__m128i *>(out + i),
        _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#endif
  for (; i < n; ++i)
    out[i] = f32ToF16(in[i]);
}
inline void bf16ToF32Array(const uint16_t *__restrict in, float *__restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = bitsF32(uint32_t(in[i]) << 16);
}
inline void f32ToBf16Array(const float *__restrict in, uint16_t *__restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    uint32_t u = f32Bits(in[i]);
    uint32_t r = (u + 0x7fffu + ((u >> 16) & 1)) >> 16;
    uint32_t q = (u >> 16) | 0x40;
    out[i] = static_cast<uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? q : r);
  }
}

} // namespace tt::exec

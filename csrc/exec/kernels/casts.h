// Float formats the executor computes with but the CPU does not: f16, bf16, fp8 (E4M3FN and
// E5M2), tf32. The formats and the one rounding routine are support/float_format.h's; here are
// the executor's fast paths over them. Rules:
//  - decoding to f32 is exact for every format;
//  - encoding rounds once from f32 (or f64): rtne (round to nearest, ties to even) or rtz;
//  - f16/bf16 overflow to inf under rtne and to the largest finite under rtz (IEEE);
//  - fp8 encodings saturate to the largest finite value (like PTX `cvt.rn.satfinite`: the
//    kF8*Sat formats), NaN stays NaN (E4M3FN has no infinity; its NaN is S.1111.111);
//  - tf32 rounding follows `cvt.rna.tf32.f32`: nearest, ties away from zero, 10 mantissa bits.
// f16 arrays convert 8 lanes at a time with F16C when the build targets it (x86-64-v3).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "support/float_format.h"

#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace tt::exec {

// ---- f16 ----
inline float f16ToF32(uint16_t h) {
#if defined(__F16C__)
  return _cvtsh_ss(h);
#else
  return decodeFloat(h, kF16);
#endif
}
inline uint16_t f32ToF16(float f) {
#if defined(__F16C__)
  return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#else
  return static_cast<uint16_t>(encodeFloat(f, kF16, Rounding::RTNE));
#endif
}
inline uint16_t f32ToF16Rtz(float f) {
#if defined(__F16C__)
  return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
#else
  return static_cast<uint16_t>(encodeFloat(f, kF16, Rounding::RTZ));
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
  return static_cast<uint8_t>(encodeFloat(x, kF8E4M3FNSat, r));
}
inline uint8_t f64ToFp8e5m2(double x, Rounding r) {
  return static_cast<uint8_t>(encodeFloat(x, kF8E5M2Sat, r));
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

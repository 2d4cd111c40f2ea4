// Vectorized f32 exp and exp2 (AVX2 + FMA when the build targets them), the math behind
// softmax-like kernels. Same algorithm as ew::fastExpF / fastExp2F in elementwise.h (about
// 1 ulp; overflow to inf, underflow through subnormals to 0, NaN kept), 8 lanes at a time;
// the tail and non-AVX2 builds use the scalar versions.
#pragma once

#include <cstdint>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

namespace tt::exec::vm {

#if defined(__AVX2__) && defined(__FMA__)
// p * 2^n for an integral n in [-150, 129], in two exact-or-once-rounded steps.
inline __m256 scaleByPow2(__m256 p, __m256 n) {
  __m256i ni = _mm256_cvttps_epi32(n);
  __m256i n1 = _mm256_srai_epi32(ni, 1);
  __m256i n2 = _mm256_sub_epi32(ni, n1);
  const __m256i bias = _mm256_set1_epi32(127);
  __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, bias), 23));
  __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, bias), 23));
  return _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
}

inline __m256 expF8(__m256 x) {
  __m256 xc = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-104.0f)), _mm256_set1_ps(89.0f));
  __m256 n = _mm256_floor_ps(
      _mm256_fmadd_ps(xc, _mm256_set1_ps(1.44269504088896341f), _mm256_set1_ps(0.5f)));
  __m256 s = _mm256_fmadd_ps(n, _mm256_set1_ps(-0.693145751953125f), xc);
  s = _mm256_fmadd_ps(n, _mm256_set1_ps(-1.428606765330187045e-06f), s);
  __m256 u = _mm256_set1_ps(0.000198527617612853646278381f);
  u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.00139304355252534151077271f));
  u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.00833336077630519866943359f));
  u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.0416664853692054748535156f));
  u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.166666671633720397949219f));
  u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.5f));
  u = _mm256_add_ps(_mm256_set1_ps(1.0f), _mm256_fmadd_ps(_mm256_mul_ps(s, s), u, s));
  __m256 r = scaleByPow2(u, n);
  return _mm256_blendv_ps(r, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

inline __m256 exp2F8(__m256 x) {
  __m256 xc = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-150.0f)), _mm256_set1_ps(129.0f));
  __m256 n = _mm256_floor_ps(_mm256_add_ps(xc, _mm256_set1_ps(0.5f)));
  __m256 s = _mm256_sub_ps(xc, n);
  __m256 u = _mm256_set1_ps(0.1535920892e-3f);
  u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.1339262701e-2f));
  u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.9618384764e-2f));
  u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.5550347269e-1f));
  u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.2402264476e+0f));
  u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.6931471825e+0f));
  u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(1.0f));
  __m256 r = scaleByPow2(u, n);
  return _mm256_blendv_ps(r, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}
#endif

// out[i] = exp(in[i]) (or exp2) for i < n; `scalar` handles the tail.
template <bool Base2, class Scalar>
inline void expArray(const float *__restrict in, float *__restrict out, int64_t n, Scalar scalar) {
  int64_t i = 0;
#if defined(__AVX2__) && defined(__FMA__)
  for (; i + 8 <= n; i += 8) {
    __m256 x = _mm256_loadu_ps(in + i);
    _mm256_storeu_ps(out + i, Base2 ? exp2F8(x) : expF8(x));
  }
#endif
  for (; i < n; ++i)
    out[i] = scalar(in[i]);
}

} // namespace tt::exec::vm

// Byte copies for registers and contiguous memory rows. glibc's memcpy switches to `rep movsb`
// from about 2 KiB, which is several times slower than vector moves on some AMD parts for the
// tile-sized copies the executor does all the time; this is a plain vector loop instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace tt::exec {

inline void copyBytes(void *__restrict dst, const void *__restrict src, size_t n) {
#if defined(__AVX2__)
  char *d = static_cast<char *>(dst);
  const char *s = static_cast<const char *>(src);
  if (n < 64) {
    std::memcpy(d, s, n);
    return;
  }
  size_t i = 0;
  for (; i + 128 <= n; i += 128) {
    __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i));
    __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i + 32));
    __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i + 64));
    __m256i e = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i + 96));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(d + i), a);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(d + i + 32), b);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(d + i + 64), c);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(d + i + 96), e);
  }
  for (; i + 32 <= n; i += 32)
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(d + i),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i)));
  if (i < n) // the last 32 bytes, overlapping what was copied
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(d + n - 32),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + n - 32)));
#else
  std::memcpy(dst, src, n);
#endif
}

// Copies with non-temporal stores (no read-for-ownership of the destination, which is not
// kept in cache): for large streaming outputs. The caller issues fenceStreams() before anything
// that must observe the bytes in order (the end of the op).
inline void streamBytes(void *__restrict dst, const void *__restrict src, size_t n) {
#if defined(__AVX2__)
  char *d = static_cast<char *>(dst);
  const char *s = static_cast<const char *>(src);
  size_t head = (32 - (reinterpret_cast<uintptr_t>(d) & 31)) & 31;
  if (head > n)
    head = n;
  std::memcpy(d, s, head);
  size_t i = head;
  for (; i + 32 <= n; i += 32)
    _mm256_stream_si256(reinterpret_cast<__m256i *>(d + i),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i)));
  std::memcpy(d + i, s + i, n - i);
#else
  std::memcpy(dst, src, n);
#endif
}

inline void fenceStreams() {
#if defined(__AVX2__)
  _mm_sfence();
#endif
}

} // namespace tt::exec

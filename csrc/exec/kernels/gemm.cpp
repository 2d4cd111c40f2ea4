// GEMM for one dot's tiles: D[M,N] += A[M,K] * B[K,N] (layouts: gemm.h).
//
// f32 on AVX2/FMA runs our own register-blocked kernel: each 6x16 block of D lives in 12 ymm
// registers for the whole K loop, each step broadcasting one element of A's six rows against
// one 16-wide row of B. A dot's tiles are small (64x64x32 is typical) and B is a dense tile (a
// register, a slot of the thread's tile memo (runtime/tile_memo.h), or whole rows of a matrix
// read in place). A memo slot holds B in 16-wide panels (where the tile's width is a multiple
// of 16; gemmPanelBytes), the packed panel a BLAS would build, made once per launch and thread.
// Read row-major, a 64-wide tile's rows are 256 bytes apart and fall in a quarter of L1's sets: B's
// loads stalled the kernel (perf), and with panels the 1024^3 matmul forms at BLOCK_K 64 ran 2-6%
// faster, those at 32 within 1% (matmul_forms.py's kernels, one thread, paired runs, Zen 3; the
// GEMM alone on L2-resident tiles: 70 -> 93 GFLOP/s). A is read one element at a time, so its rows
// may be anywhere (lda): a load forwarded to the dot leaves them in the matrix. Eigen's GEMM packs
// both operands on every call; with it the CPU matmul ran 4-13% slower on the Tile path
// (benchmarks/RESULTS.md, "2026-11-26, evening: CPU matmul with our own GEMM kernel"). Each element
// of D accumulates its K products in order with FMA.
//
// Elsewhere (f64, or a build without AVX2) Eigen when the build has it, else a blocked loop.
#include "exec/kernels/gemm.h"

#include <algorithm>
#include <cmath>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define TT_GEMM_AVX2 1
#endif

#ifdef TT_HAVE_EIGEN
#include <Eigen/Core>
#endif

namespace tt::exec {
namespace {

template <class T>
void gemmGeneric(const T *A, int64_t lda, const T *B, T *D, int64_t M, int64_t N, int64_t K) {
#ifdef TT_HAVE_EIGEN
  using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<const Mat, 0, Eigen::OuterStride<>> a(A, M, K, Eigen::OuterStride<>(lda));
  Eigen::Map<const Mat> b(B, K, N);
  Eigen::Map<Mat> d(D, M, N);
  d.noalias() += a * b;
#else
  constexpr int64_t KB = 64;
  for (int64_t k0 = 0; k0 < K; k0 += KB) {
    int64_t k1 = std::min(K, k0 + KB);
    for (int64_t i = 0; i < M; ++i) {
      T *__restrict drow = D + i * N;
      for (int64_t k = k0; k < k1; ++k) {
        const T aik = A[i * lda + k];
        const T *__restrict brow = B + k * N;
        for (int64_t j = 0; j < N; ++j)
          drow[j] += aik * brow[j];
      }
    }
  }
#endif
}

#ifdef TT_GEMM_AVX2
// Column j of B (a multiple of 8) in a step's layout, and the distance from one of its rows to
// the next; a 16-wide block of a panel layout lies in one panel.
inline const float *bColumn(const GemmStep &s, int64_t j, int64_t N, int64_t K, int64_t &ldb) {
  ldb = s.bPanels ? kGemmPanel : N;
  return s.bPanels ? s.B + j * K : s.B + j;
}

// O[MR, 8*NV] = D + A[MR, K] * B[K, 8*NV] for each step in turn (D's rows N apart, O's ldo; O
// may be D): MR*NV accumulators, NV loads of B
// and MR broadcasts of A per k (6x2: 12 accumulators, 15 of the 16 ymm registers). The
// accumulators stay in registers across the steps (a chain of K steps is one long K).
template <int MR, int NV>
inline void block(const GemmStep *steps, int nsteps, int64_t i, int64_t j, int64_t N,
                  const float *D, float *O, int64_t ldo, int64_t K) {
  __m256 acc[MR][NV];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v)
      acc[r][v] = _mm256_loadu_ps(D + r * N + 8 * v);
  for (int s = 0; s < nsteps; ++s) {
    const int64_t lda = steps[s].lda;
    int64_t ldb;
    const float *A = steps[s].A + i * lda, *B = bColumn(steps[s], j, N, K, ldb);
    // Four k's per trip: the loop's counter, compare and branch once per 48 FMAs, not 12. The
    // 1024^3 forms ran 0-7% faster (matmul_forms.py's, two threads, the median of 16 paired
    // runs, Zen 3); a one-thread model of the K loop ran 6-9% faster.
#pragma GCC unroll 4
    for (int64_t k = 0; k < K; ++k) {
      __m256 b[NV];
#pragma GCC unroll 2
      for (int v = 0; v < NV; ++v)
        b[v] = _mm256_loadu_ps(B + k * ldb + 8 * v);
#pragma GCC unroll 8
      for (int r = 0; r < MR; ++r) {
        const __m256 a = _mm256_broadcast_ss(A + r * lda + k);
#pragma GCC unroll 2
        for (int v = 0; v < NV; ++v)
          acc[r][v] = _mm256_fmadd_ps(a, b[v], acc[r][v]);
      }
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v)
      _mm256_storeu_ps(O + r * ldo + 8 * v, acc[r][v]);
}

// Six rows of D (MR at the end) across every column panel, 16 wide then 8. Rows outside, panels
// inside: A's rows are read in place (lda is a matrix row, so all of a tile's rows share a few
// L1 sets) and stay in L1 only while the panels of one row block run. Panels outside made every
// block read its A rows from L2: 3-5% slower on every matmul form (benchmarks/matmul_forms.py,
// best of four interleaved runs each, 2-core Zen 4).
template <int MR>
void rowBlock(const GemmStep *steps, int nsteps, int64_t i, const float *D, float *O, int64_t ldo,
              int64_t N, int64_t K) {
  int64_t j = 0;
  for (; j + 16 <= N; j += 16)
    block<MR, 2>(steps, nsteps, i, j, N, D + j, O + j, ldo, K);
  for (; j + 8 <= N; j += 8)
    block<MR, 1>(steps, nsteps, i, j, N, D + j, O + j, ldo, K);
}

void gemmF32(const GemmStep *steps, int nsteps, const float *D, float *O, int64_t ldo, int64_t M,
             int64_t N, int64_t K) {
  int64_t i = 0;
  for (; i + 6 <= M; i += 6)
    rowBlock<6>(steps, nsteps, i, D + i * N, O + i * ldo, ldo, N, K);
  const float *d = D + i * N;
  float *o = O + i * ldo;
  switch (M - i) {
  case 5:
    rowBlock<5>(steps, nsteps, i, d, o, ldo, N, K);
    break;
  case 4:
    rowBlock<4>(steps, nsteps, i, d, o, ldo, N, K);
    break;
  case 3:
    rowBlock<3>(steps, nsteps, i, d, o, ldo, N, K);
    break;
  case 2:
    rowBlock<2>(steps, nsteps, i, d, o, ldo, N, K);
    break;
  case 1:
    rowBlock<1>(steps, nsteps, i, d, o, ldo, N, K);
    break;
  default:
    break;
  }
  const int64_t j = N - N % 8;
  // The last N % 8 columns (a tile narrower than 8, or an odd width), in order over K too.
  for (int64_t r = 0; r < M; ++r)
    for (int64_t jj = j; jj < N; ++jj) {
      float acc = D[r * N + jj];
      for (int s = 0; s < nsteps; ++s) // (row-major: panels need N % 16 == 0)
        for (int64_t k = 0; k < K; ++k)
          acc = std::fma(steps[s].A[r * steps[s].lda + k], steps[s].B[k * N + jj], acc);
      O[r * ldo + jj] = acc;
    }
}
#endif

} // namespace

void gemmAcc(const float *A, int64_t lda, const float *B, bool bPanels, float *D, int64_t M,
             int64_t N, int64_t K) {
  const GemmStep step{A, lda, B, bPanels};
  gemmAccSteps(&step, 1, D, M, N, K);
}

void gemmAccSteps(const GemmStep *steps, int nsteps, float *D, int64_t M, int64_t N, int64_t K) {
  gemmAccStepsTo(steps, nsteps, D, D, N, M, N, K);
}

void gemmAccStepsTo(const GemmStep *steps, int nsteps, const float *D, float *O, int64_t ldo,
                    int64_t M, int64_t N, int64_t K) {
#ifdef TT_GEMM_AVX2
  gemmF32(steps, nsteps, D, O, ldo, M, N, K);
#else
  // (B is never in panels here: gemmPanelBytes asks for none without the AVX2 kernel)
  float *acc = const_cast<float *>(D);
  for (int s = 0; s < nsteps; ++s)
    gemmGeneric(steps[s].A, steps[s].lda, steps[s].B, acc, M, N, K);
  if (O != D)
    for (int64_t r = 0; r < M; ++r)
      std::copy(D + r * N, D + r * N + N, O + r * ldo);
#endif
}

void gemmAcc(const double *A, const double *B, double *D, int64_t M, int64_t N, int64_t K) {
  gemmGeneric(A, K, B, D, M, N, K);
}

} // namespace tt::exec

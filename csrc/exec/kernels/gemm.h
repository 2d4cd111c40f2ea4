// The GEMM kernels under tt.dot and Tile IR's mmaf: D[M,N] += A[M,K] * B[K,N], the sizes one
// dot's tiles have. D is row-major and dense (leading dimension N); A's rows are lda elements
// apart (K when dense; more when A is read in place from a matrix, dot.cpp). B is dense, either
// row-major or in panels:
//  - row-major: row k at B + k * N;
//  - panels (bPanels): N / kGemmPanel column panels one after another, each K rows of
//    kGemmPanel contiguous elements: column j of row k at B + (j / 16) * 16 * K + k * 16 + j % 16.
//    A 16-wide panel is what the f32 kernel reads per k; laid out so, it is one contiguous
//    4 KiB block per 64 rows that stays in L1 where B's rows 256 bytes apart (a 64-wide tile)
//    share a quarter of its sets. The tile memo builds B so (tile_memo.h).
#pragma once

#include <cstdint>

namespace tt::exec {

constexpr int64_t kGemmPanel = 16;
// Whether the f32 kernel reads B in panels (gemm.cpp's AVX2 kernel; the generic one reads rows
// only, so without it no B is copied into panels).
#if defined(__AVX2__) && defined(__FMA__)
constexpr bool kGemmPrefersPanels = true;
#else
constexpr bool kGemmPrefersPanels = false;
#endif
// The width in bytes of the panels to copy a B tile of `lanes` columns of `es`-byte elements
// into (the tile memo's, tile_memo.h), or 0: rows.
constexpr int64_t gemmPanelBytes(int64_t lanes, int es) {
  return kGemmPrefersPanels && lanes % kGemmPanel == 0 ? kGemmPanel * es : 0;
}

void gemmAcc(const float *A, int64_t lda, const float *B, bool bPanels, float *D, int64_t M,
             int64_t N, int64_t K);
// D += A_s * B_s for each step s in order, as one GEMM over their K's: each element of D takes
// its products in the order of the steps, as gemmAcc called once per step would, with the
// accumulators in registers across the steps (a deferred dot's chain, dot.cpp). A step's B is
// in panels when bPanels is set (N a multiple of kGemmPanel), else row-major.
struct GemmStep {
  const float *A;
  int64_t lda;
  const float *B;
  bool bPanels;
};
void gemmAccSteps(const GemmStep *steps, int nsteps, float *D, int64_t M, int64_t N, int64_t K);
// The same GEMM with its result written to O (rows ldo elements apart) instead of D, which is
// only read: a store of a deferred dot's accumulator runs its last steps so (dot.cpp), and the
// result's lines are written while the next blocks' FMAs run rather than in a copy after.
// Without the AVX2 kernel D is updated too (the generic GEMM accumulates in place).
void gemmAccStepsTo(const GemmStep *steps, int nsteps, const float *D, float *O, int64_t ldo,
                    int64_t M, int64_t N, int64_t K);
// How many K steps of `K` each a deferred dot (dot.cpp) would gather into one gemmAccSteps:
// kBaseChain, and kMaxChain below K 64 (forward.cpp takes kBaseChain where B's memo table has too
// few slots to hold that many). A GEMM loads and stores its accumulators once: at BLOCK_K 32, 8
// steps ran 1-3% faster than 4 (benchmarks/matmul_forms.py's forms, paired runs, 2-core Zen 3); at
// 64, 4 and 8 ran alike, and 4 ran 1-4% faster than 2.
constexpr int kBaseChain = 4, kMaxChain = 8;
constexpr int gemmChain(int64_t K) { return K >= 64 ? kBaseChain : kMaxChain; }
void gemmAcc(const double *A, const double *B, double *D, int64_t M, int64_t N, int64_t K);

} // namespace tt::exec

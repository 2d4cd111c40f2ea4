// The row-major GEMM kernels under tt.dot and Tile IR's mmaf: D[M,N] += A[M,K] * B[K,N], B and
// D dense (leading dimension N), A's rows lda elements apart (K when dense; more when A is read
// in place from a matrix, dot.cpp), the sizes one dot's tiles have.
#pragma once

#include <cstdint>

namespace tt::exec {

void gemmAcc(const float *A, int64_t lda, const float *B, float *D, int64_t M, int64_t N,
             int64_t K);
// D += A_s * B_s for each step s in order, as one GEMM over their K's: each element of D takes
// its products in the order of the steps, as gemmAcc called once per step would, with the
// accumulators in registers across the steps (a deferred dot's chain, dot.cpp).
struct GemmStep {
  const float *A;
  int64_t lda;
  const float *B;
};
void gemmAccSteps(const GemmStep *steps, int nsteps, float *D, int64_t M, int64_t N, int64_t K);
void gemmAcc(const double *A, const double *B, double *D, int64_t M, int64_t N, int64_t K);

} // namespace tt::exec

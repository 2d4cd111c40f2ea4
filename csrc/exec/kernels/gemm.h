// The row-major GEMM kernels under tt.dot and Tile IR's mmaf: D[M,N] += A[M,K] * B[K,N], each
// operand dense (leading dimensions K, N and N), the sizes one dot's tiles have.
#pragma once

#include <cstdint>

namespace tt::exec {

void gemmAcc(const float *A, const float *B, float *D, int64_t M, int64_t N, int64_t K);
void gemmAcc(const double *A, const double *B, double *D, int64_t M, int64_t N, int64_t K);

} // namespace tt::exec

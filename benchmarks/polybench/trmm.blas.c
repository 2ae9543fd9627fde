// trmm through OpenBLAS: B = alpha * (I + strictly lower part of A)^T * B, i.e. strmm with
// A lower triangular, transposed, unit diagonal (PolyBench's loop skips A's diagonal).
#include <cblas.h>

void kernel_trmm(float alpha, float A[1000][1000], float B[1000][1200]) {
  cblas_strmm(CblasRowMajor, CblasLeft, CblasLower, CblasTrans, CblasUnit, 1000, 1200, alpha,
              &A[0][0], 1000, &B[0][0], 1200);
}

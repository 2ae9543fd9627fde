// batched-matmul through OpenBLAS: one sgemm per batch, C[b] = A[b]*B[b].
#include <cblas.h>

void kernel_batched_matmul(float C[16][256][256], float A[16][256][256], float B[16][256][256]) {
  for (int b = 0; b < 16; b++)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 256, 256, 256, 1.0f, &A[b][0][0], 256,
                &B[b][0][0], 256, 0.0f, &C[b][0][0], 256);
}

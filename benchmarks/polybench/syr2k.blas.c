// syr2k through OpenBLAS: the lower triangle of C = alpha*(A*B^T + B*A^T) + beta*C.
#include <cblas.h>

void kernel_syr2k(float alpha, float beta, float C[1200][1200], float A[1200][1000],
                  float B[1200][1000]) {
  cblas_ssyr2k(CblasRowMajor, CblasLower, CblasNoTrans, 1200, 1000, alpha, &A[0][0], 1000,
               &B[0][0], 1000, beta, &C[0][0], 1200);
}

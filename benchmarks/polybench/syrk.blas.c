// syrk through OpenBLAS: the lower triangle (j <= i) of C = alpha*A*A^T + beta*C.
#include <cblas.h>

void kernel_syrk(float alpha, float beta, float C[1200][1200], float A[1200][1000]) {
  cblas_ssyrk(CblasRowMajor, CblasLower, CblasNoTrans, 1200, 1000, alpha, &A[0][0], 1000, beta,
              &C[0][0], 1200);
}

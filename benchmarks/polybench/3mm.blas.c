// 3mm through OpenBLAS: E = A*B; F = C*D; G = E*F.
#include <cblas.h>

void kernel_3mm(float E[800][900], float A[800][1000], float B[1000][900], float F[900][1100],
                float C[900][1200], float D[1200][1100], float G[800][1100]) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 800, 900, 1000, 1.0f, &A[0][0], 1000,
              &B[0][0], 900, 0.0f, &E[0][0], 900);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 900, 1100, 1200, 1.0f, &C[0][0], 1200,
              &D[0][0], 1100, 0.0f, &F[0][0], 1100);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 800, 1100, 900, 1.0f, &E[0][0], 900,
              &F[0][0], 1100, 0.0f, &G[0][0], 1100);
}

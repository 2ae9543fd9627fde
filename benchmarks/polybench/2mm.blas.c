// 2mm through OpenBLAS: tmp = alpha*A*B; D = tmp*C + beta*D.
#include <cblas.h>

void kernel_2mm(float alpha, float beta, float tmp[800][900], float A[800][1100],
                float B[1100][900], float C[900][1200], float D[800][1200]) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 800, 900, 1100, alpha, &A[0][0], 1100,
              &B[0][0], 900, 0.0f, &tmp[0][0], 900);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 800, 1200, 900, 1.0f, &tmp[0][0], 900,
              &C[0][0], 1200, beta, &D[0][0], 1200);
}

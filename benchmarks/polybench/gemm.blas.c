// gemm through OpenBLAS (the BLAS column of benchmarks/run.py): C = alpha*A*B + beta*C.
#include <cblas.h>

void kernel_gemm(float alpha, float beta, float C[1000][1100], float A[1000][1200],
                 float B[1200][1100]) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1000, 1100, 1200, alpha, &A[0][0], 1200,
              &B[0][0], 1100, beta, &C[0][0], 1100);
}

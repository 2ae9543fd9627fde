// doitgen through OpenBLAS: A (as a 21000x160 matrix) = A * C4, one sgemm into a scratch
// buffer copied back (BLAS does not multiply in place); sum holds the last row, as the
// loop nest leaves it.
#include <cblas.h>
#include <stdlib.h>
#include <string.h>

void kernel_doitgen(float A[150][140][160], float C4[160][160], float sum[160]) {
  float *out = malloc(sizeof(float) * 150 * 140 * 160);
  if (!out)
    abort();
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 150 * 140, 160, 160, 1.0f, &A[0][0][0],
              160, &C4[0][0], 160, 0.0f, out, 160);
  memcpy(&A[0][0][0], out, sizeof(float) * 150 * 140 * 160);
  memcpy(sum, &A[149][139][0], sizeof(float) * 160);
  free(out);
}

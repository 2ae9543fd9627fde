// attention-scores through OpenBLAS: per head, S = 0.125 * Q * K^T.
#include <cblas.h>

void kernel_attention_scores(float S[8][256][256], float Q[8][256][64], float K[8][256][64]) {
  for (int h = 0; h < 8; h++)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, 256, 256, 64, 0.125f, &Q[h][0][0], 64,
                &K[h][0][0], 64, 0.0f, &S[h][0][0], 256);
}

void kernel_batched_matmul(float C[16][256][256], float A[16][256][256], float B[16][256][256])
{
  int b, i, j, k;

  for (b = 0; b < 16; b++)
    for (i = 0; i < 256; i++)
      for (j = 0; j < 256; j++)
        C[b][i][j] = 0.0f;

  for (b = 0; b < 16; b++)
    for (i = 0; i < 256; i++)
      for (j = 0; j < 256; j++)
        for (k = 0; k < 256; k++)
          C[b][i][j] += A[b][i][k] * B[b][k][j];
}

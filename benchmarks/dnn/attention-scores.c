void kernel_attention_scores(float S[8][256][256], float Q[8][256][64], float K[8][256][64])
{
  int h, i, j, d;

  for (h = 0; h < 8; h++)
    for (i = 0; i < 256; i++)
      for (j = 0; j < 256; j++) {
        S[h][i][j] = 0.0f;
        for (d = 0; d < 64; d++)
          S[h][i][j] += Q[h][i][d] * K[h][j][d];
      }

  for (h = 0; h < 8; h++)
    for (i = 0; i < 256; i++)
      for (j = 0; j < 256; j++)
        S[h][i][j] = S[h][i][j] * 0.125f;
}

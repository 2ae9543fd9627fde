void kernel_dilated_conv(float out[64][32][32], float in[64][36][36], float W[64][64][3][3])
{
  int k, h, w, c, r, s;

  for (k = 0; k < 64; k++)
    for (h = 0; h < 32; h++)
      for (w = 0; w < 32; w++)
        out[k][h][w] = 0.0f;

  for (k = 0; k < 64; k++)
    for (h = 0; h < 32; h++)
      for (w = 0; w < 32; w++)
        for (c = 0; c < 64; c++)
          for (r = 0; r < 3; r++)
            for (s = 0; s < 3; s++)
              out[k][h][w] += in[c][h + 2 * r][w + 2 * s] * W[k][c][r][s];
}

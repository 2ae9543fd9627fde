void kernel_grouped_conv(float out[128][28][28], float in[128][30][30], float W[128][32][3][3])
{
  int g, k, h, w, c, r, s;

  for (k = 0; k < 128; k++)
    for (h = 0; h < 28; h++)
      for (w = 0; w < 28; w++)
        out[k][h][w] = 0.0f;

  for (g = 0; g < 4; g++)
    for (k = 0; k < 32; k++)
      for (h = 0; h < 28; h++)
        for (w = 0; w < 28; w++)
          for (c = 0; c < 32; c++)
            for (r = 0; r < 3; r++)
              for (s = 0; s < 3; s++)
                out[32 * g + k][h][w] += in[32 * g + c][h + r][w + s] * W[32 * g + k][c][r][s];
}

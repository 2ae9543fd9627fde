void kernel_strided_conv(float out[128][28][28], float in[128][57][57], float W[128][128][3][3])
{
  int k, h, w, c, r, s;

  for (k = 0; k < 128; k++)
    for (h = 0; h < 28; h++)
      for (w = 0; w < 28; w++)
        out[k][h][w] = 0.0f;

  for (k = 0; k < 128; k++)
    for (h = 0; h < 28; h++)
      for (w = 0; w < 28; w++)
        for (c = 0; c < 128; c++)
          for (r = 0; r < 3; r++)
            for (s = 0; s < 3; s++)
              out[k][h][w] += in[c][2 * h + r][2 * w + s] * W[k][c][r][s];
}

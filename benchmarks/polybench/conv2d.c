void kernel_conv2d(float out[4][64][56][56], float in[4][64][58][58], float W[64][64][3][3])
{
  int n, k, h, w, c, r, s;

  for (n = 0; n < 4; n++)
    for (k = 0; k < 64; k++)
      for (h = 0; h < 56; h++)
        for (w = 0; w < 56; w++)
          out[n][k][h][w] = 0.0f;

  for (n = 0; n < 4; n++)
    for (k = 0; k < 64; k++)
      for (h = 0; h < 56; h++)
        for (w = 0; w < 56; w++)
          for (c = 0; c < 64; c++)
            for (r = 0; r < 3; r++)
              for (s = 0; s < 3; s++)
                out[n][k][h][w] += in[n][c][h + r][w + s] * W[k][c][r][s];
}

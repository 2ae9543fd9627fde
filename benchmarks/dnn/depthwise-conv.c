void kernel_depthwise_conv(float out[32][112][112], float in[32][114][114], float W[32][3][3])
{
  int c, h, w, r, s;

  for (c = 0; c < 32; c++)
    for (h = 0; h < 112; h++)
      for (w = 0; w < 112; w++)
        out[c][h][w] = 0.0f;

  for (c = 0; c < 32; c++)
    for (h = 0; h < 112; h++)
      for (w = 0; w < 112; w++)
        for (r = 0; r < 3; r++)
          for (s = 0; s < 3; s++)
            out[c][h][w] += in[c][h + r][w + s] * W[c][r][s];
}

void kernel_pointwise_conv(float out[256][56][56], float in[64][56][56], float W[256][64])
{
  int k, h, w, c;

  for (k = 0; k < 256; k++)
    for (h = 0; h < 56; h++)
      for (w = 0; w < 56; w++)
        out[k][h][w] = 0.0f;

  for (k = 0; k < 256; k++)
    for (h = 0; h < 56; h++)
      for (w = 0; w < 56; w++)
        for (c = 0; c < 64; c++)
          out[k][h][w] += in[c][h][w] * W[k][c];
}

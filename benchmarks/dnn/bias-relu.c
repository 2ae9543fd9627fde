#include <math.h>

void kernel_bias_relu(float y[256][56][56], float t[256][56][56], float x[256][56][56], float bias[256])
{
  int c, h, w;

  for (c = 0; c < 256; c++)
    for (h = 0; h < 56; h++)
      for (w = 0; w < 56; w++)
        t[c][h][w] = x[c][h][w] + bias[c];
  for (c = 0; c < 256; c++)
    for (h = 0; h < 56; h++)
      for (w = 0; w < 56; w++)
        y[c][h][w] = fmaxf(t[c][h][w], 0.0f) * 0.5f;
}

#include <math.h>

void kernel_layernorm(float y[512][768], float x[512][768], float mean[512], float var[512])
{
  int t, f;
  const float inv = 0.00130208333f, eps = 1.0e-5f;

  for (t = 0; t < 512; t++) {
    mean[t] = 0.0f;
    var[t] = 0.0f;
  }
  for (t = 0; t < 512; t++)
    for (f = 0; f < 768; f++)
      mean[t] += x[t][f];
  for (t = 0; t < 512; t++)
    for (f = 0; f < 768; f++) {
      float d = x[t][f] - mean[t] * inv;
      var[t] += d * d;
    }
  for (t = 0; t < 512; t++)
    for (f = 0; f < 768; f++)
      y[t][f] = (x[t][f] - mean[t] * inv) / sqrtf(var[t] * inv + eps);
}

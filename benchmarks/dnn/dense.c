void kernel_dense(float out[64][1000], float x[64][2048], float W[1000][2048], float bias[1000])
{
  int b, o, i;

  for (b = 0; b < 64; b++)
    for (o = 0; o < 1000; o++) {
      out[b][o] = bias[o];
      for (i = 0; i < 2048; i++)
        out[b][o] += x[b][i] * W[o][i];
    }
}

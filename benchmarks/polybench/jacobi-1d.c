void kernel_jacobi_1d(float A[2000], float B[2000])
{
  int t, i;

  for (t = 0; t < 500; t++) {
    for (i = 1; i < 2000 - 1; i++)
      B[i] = 0.33333f * (A[i - 1] + A[i] + A[i + 1]);
    for (i = 1; i < 2000 - 1; i++)
      A[i] = 0.33333f * (B[i - 1] + B[i] + B[i + 1]);
  }
}

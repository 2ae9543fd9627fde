void kernel_trmm(float alpha, float A[1000][1000], float B[1000][1200]) {
  for (int i = 0; i < 1000; i++)
    for (int j = 0; j < 1200; j++) {
      for (int k = i + 1; k < 1000; k++)
        B[i][j] += A[k][i] * B[k][j];
      B[i][j] = alpha * B[i][j];
    }
}

void kernel_syrk(float alpha, float beta, float C[1200][1200], float A[1200][1000]) {
  for (int i = 0; i < 1200; i++) {
    for (int j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (int k = 0; k < 1000; k++)
      for (int j = 0; j <= i; j++)
        C[i][j] += alpha * A[i][k] * A[j][k];
  }
}

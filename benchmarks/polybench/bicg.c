void kernel_bicg(float A[2100][1900], float s[1900], float q[2100], float p[1900],
                 float r[2100]) {
  for (int i = 0; i < 1900; i++)
    s[i] = 0.0f;
  for (int i = 0; i < 2100; i++) {
    q[i] = 0.0f;
    for (int j = 0; j < 1900; j++) {
      s[j] = s[j] + r[i] * A[i][j];
      q[i] = q[i] + A[i][j] * p[j];
    }
  }
}

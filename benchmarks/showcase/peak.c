// Measured fp32 peak of this machine: every thread runs independent chains of 16-lane
// FMAs (AVX-512) that stay in registers, so the loop is bound by FMA throughput only.
// Build: clang-22 -O2 -march=native -fopenmp peak.c -o peak; run: OMP_NUM_THREADS=2 ./peak
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <time.h>

#define CHAINS 12
#define ITERS 200000000L

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(void) {
  int threads = omp_get_max_threads();
  float sink = 0;
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    double t0 = now();
#pragma omp parallel reduction(+ : sink)
    {
      __m512 acc[CHAINS];
      __m512 a = _mm512_set1_ps(1.0000001f), b = _mm512_set1_ps(0.9999999f);
      for (int c = 0; c < CHAINS; ++c)
        acc[c] = _mm512_set1_ps((float)c);
      for (long i = 0; i < ITERS / 16; ++i)
        for (int c = 0; c < CHAINS; ++c)
          acc[c] = _mm512_fmadd_ps(acc[c], a, b);
      for (int c = 0; c < CHAINS; ++c)
        sink += _mm512_reduce_add_ps(acc[c]);
    }
    double t = now() - t0;
    double gflops = threads * (double)(ITERS / 16) * CHAINS * 16 * 2 / t / 1e9;
    if (gflops > best)
      best = gflops;
  }
  printf("%.1f\n", best);
  fprintf(stderr, "threads=%d (checksum %g)\n", threads, sink);
  return 0;
}

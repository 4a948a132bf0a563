/*
 * limit.c - the exact-discretisation limit of a benchmark case: the time for STEPS products
 * of a dense N x N matrix with a vector (the zero-order-hold update y <- E y + c is one such
 * product per step, whatever the integrator). Plain loops, as the exponential path's own.
 *
 *   limit N STEPS   prints the wall time in seconds
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: limit N STEPS\n");
    return 2;
  }
  size_t n = strtoul(argv[1], NULL, 10);
  long steps = strtol(argv[2], NULL, 10);
  double *m = malloc(n * n * sizeof *m), *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  if (!m || !x || !y || n == 0)
    return 1;
  for (size_t i = 0; i < n * n; i++)
    m[i] = (i % (n + 1) == 0 ? 0.9 : 0.1 / (double)n);
  for (size_t i = 0; i < n; i++)
    x[i] = 1.0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (long s = 0; s < steps; s++) {
    for (size_t i = 0; i < n; i++) {
      double acc = 0.01;
      for (size_t j = 0; j < n; j++)
        acc += m[i * n + j] * x[j];
      y[i] = acc;
    }
    double *t = x;
    x = y;
    y = t;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("%.4f\n", (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
  fprintf(stderr, "%g\n", x[0]); /* keeps the loop */
  free(m), free(x), free(y);
  return 0;
}

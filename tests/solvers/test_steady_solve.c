/* test_steady_solve.c - the direct steady-state solve (dense LU and KLU) against A x = b. */
#include "test_util.h"

#include <gsl/gsl_rng.h>
#include <gsl/gsl_spblas.h>

#include "sits_steady.h"

/* A random grounded chain-plus-extras conductance matrix of size n, as CSC. */
static gsl_spmatrix *random_g(size_t n, gsl_rng *rng) {
  gsl_spmatrix *t = gsl_spmatrix_alloc(n, n);
  for (size_t i = 0; i < n; i++)
    gsl_spmatrix_set(t, i, i, 0.01 + 0.1 * gsl_rng_uniform(rng)); /* to ambient */
  for (size_t k = 0; k < 3 * n; k++) {
    size_t a = gsl_rng_uniform_int(rng, n), b = gsl_rng_uniform_int(rng, n);
    if (a == b)
      continue;
    double g = 0.1 + 5 * gsl_rng_uniform(rng);
    gsl_spmatrix_set(t, a, a, gsl_spmatrix_get(t, a, a) + g);
    gsl_spmatrix_set(t, b, b, gsl_spmatrix_get(t, b, b) + g);
    gsl_spmatrix_set(t, a, b, gsl_spmatrix_get(t, a, b) - g);
    gsl_spmatrix_set(t, b, a, gsl_spmatrix_get(t, b, a) - g);
  }
  gsl_spmatrix *c = gsl_spmatrix_compress(t, GSL_SPMATRIX_CSC);
  gsl_spmatrix_free(t);
  return c;
}

static void check_size(size_t n) {
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 42 + n);
  gsl_spmatrix *g = random_g(n, rng);
  double *b = malloc(n * sizeof *b), *x = malloc(n * sizeof *x), *r = malloc(n * sizeof *r);
  for (size_t i = 0; i < n; i++)
    b[i] = 10 * gsl_rng_uniform(rng);
  sits_err err = {0};
  cr_assert_eq(sits_steady_solve(g, b, x, &err), SITS_OK, "%s", err.msg);
  /* residual G x - b, relative to |b| */
  gsl_vector_view xv = gsl_vector_view_array(x, n), rv = gsl_vector_view_array(r, n);
  gsl_spblas_dgemv(CblasNoTrans, 1.0, g, &xv.vector, 0.0, &rv.vector);
  for (size_t i = 0; i < n; i++)
    cr_assert_float_eq(r[i], b[i], 1e-9 * (1 + fabs(b[i])), "row %zu of %zu", i, n);
  free(b), free(x), free(r);
  gsl_spmatrix_free(g);
  gsl_rng_free(rng);
}

Test(steady_solve, dense_small) {
  check_size(12);
}
Test(steady_solve, klu_large) {
  check_size(SITS_STEADY_SPARSE_THRESHOLD + 300);
}

Test(steady_solve, singular_is_an_error) {
  gsl_spmatrix *t = gsl_spmatrix_alloc(2, 2);
  gsl_spmatrix_set(t, 0, 0, 1.0), gsl_spmatrix_set(t, 0, 1, -1.0);
  gsl_spmatrix_set(t, 1, 0, -1.0), gsl_spmatrix_set(t, 1, 1, 1.0);
  gsl_spmatrix *g = gsl_spmatrix_compress(t, GSL_SPMATRIX_CSC);
  double b[2] = {1, -1}, x[2];
  sits_err err = {0};
  gsl_set_error_handler_off();
  cr_assert_eq(sits_steady_solve(g, b, x, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "singular"), "%s", err.msg);
  gsl_spmatrix_free(t), gsl_spmatrix_free(g);
}

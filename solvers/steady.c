/* steady.c - direct linear solves for steady states (see sits_steady.h). */
#include "sits_steady.h"
#include "status_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_permutation.h>
#include <klu.h>

static int solve_dense(const gsl_spmatrix *a, const double *b, double *x, sits_err *err) {
  size_t n = a->size1;
  gsl_matrix *m = gsl_matrix_alloc(n, n);
  gsl_permutation *perm = gsl_permutation_alloc(n);
  int rc = SITS_OK, sign = 0;
  if (!m || !perm) {
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
    goto done;
  }
  gsl_spmatrix_sp2d(m, a);
  gsl_vector_const_view bv = gsl_vector_const_view_array(b, n);
  gsl_vector_view xv = gsl_vector_view_array(x, n);
  if (gsl_linalg_LU_decomp(m, perm, &sign) || gsl_linalg_LU_solve(m, perm, &bv.vector, &xv.vector))
    rc = sits__fail(err, SITS_EINPUT, "the steady-state matrix is singular");
done:
  gsl_matrix_free(m);
  gsl_permutation_free(perm);
  return rc;
}

static int solve_klu(const gsl_spmatrix *a, const double *b, double *x, sits_err *err) {
  int n = (int)a->size1;
  klu_common common;
  klu_defaults(&common);
  int *ap = malloc(((size_t)n + 1) * sizeof *ap);
  int *ai = malloc((a->nz ? a->nz : 1) * sizeof *ai);
  int rc = SITS_OK;
  klu_symbolic *sym = NULL;
  klu_numeric *num = NULL;
  if (!ap || !ai) {
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
    goto done;
  }
  for (int j = 0; j <= n; j++)
    ap[j] = a->p[j];
  for (size_t k = 0; k < a->nz; k++)
    ai[k] = a->i[k];
  memcpy(x, b, (size_t)n * sizeof *x);
  sym = klu_analyze(n, ap, ai, &common);
  num = sym ? klu_factor(ap, ai, a->data, sym, &common) : NULL;
  if (!num || !klu_solve(sym, num, n, 1, x, &common) || common.status != KLU_OK)
    rc = sits__fail(err, SITS_EINPUT, "the steady-state matrix is singular (klu status %d)",
                    common.status);
done:
  if (num)
    klu_free_numeric(&num, &common);
  if (sym)
    klu_free_symbolic(&sym, &common);
  free(ap);
  free(ai);
  return rc;
}

int sits_steady_solve(const gsl_spmatrix *a, const double *b, double *x, sits_err *err) {
  if (!GSL_SPMATRIX_ISCSC(a) || a->size1 != a->size2)
    return sits__fail(err, SITS_EINTERNAL, "sits_steady_solve: need a square CSC matrix");
  int rc =
      a->size1 < SITS_STEADY_SPARSE_THRESHOLD ? solve_dense(a, b, x, err) : solve_klu(a, b, x, err);
  for (size_t i = 0; rc == SITS_OK && i < a->size1; i++)
    if (!isfinite(x[i]))
      rc = sits__fail(err, SITS_EINPUT, "the steady state is not finite (singular matrix)");
  return rc;
}

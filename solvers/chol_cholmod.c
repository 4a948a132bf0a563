/*
 * chol_cholmod.c - CHOLMOD behind sits_chol (see sits_chol.h), built as the module
 * libsits_cholmod that chol.c loads on first use: CHOLMOD brings OpenBLAS, LAPACK, METIS,
 * gfortran and OpenMP, ~10 ms of start-up to every process that links them.
 */
#include "sits_chol.h"
#include "chol_impl.h"

#include <stdlib.h>
#include <string.h>

#include <cholmod.h>

typedef struct sits__cholmod cm;

struct sits__cholmod {
  cholmod_common cc;
  cholmod_sparse *s; /* the upper triangle of S */
  cholmod_factor *l;
  cholmod_dense *b;
  size_t n;
};

/* S's upper triangle into c->s (allocated on the first call, same pattern afterwards). */
static int fill(cm *c, const gsl_spmatrix *a, const double *scale) {
  size_t n = a->size2, nz = 0;
  if (!c->s) {
    for (size_t j = 0; j < n; j++)
      for (int p = a->p[j]; p < a->p[j + 1]; p++)
        nz += (size_t)a->i[p] <= j;
    c->s = cholmod_allocate_sparse(n, n, nz, 1, 1, 1, CHOLMOD_REAL, &c->cc);
    if (!c->s)
      return -1;
  }
  int *sp = c->s->p, *si = c->s->i;
  double *sx = c->s->x;
  size_t k = 0;
  for (size_t j = 0; j < n; j++) {
    sp[j] = (int)k;
    for (int p = a->p[j]; p < a->p[j + 1]; p++) {
      size_t r = (size_t)a->i[p];
      if (r > j)
        continue;
      if (k >= c->s->nzmax)
        return -1; /* not the analysed pattern */
      si[k] = (int)r;
      sx[k++] = scale ? scale[r] * a->data[p] : a->data[p];
    }
  }
  sp[n] = (int)k;
  return 0;
}

static int factor(cm *c, sits_err *err) {
  if (!cholmod_factorize(c->s, c->l, &c->cc) || c->cc.status == CHOLMOD_NOT_POSDEF)
    return sits__fail(err, c->cc.status == CHOLMOD_NOT_POSDEF ? SITS_EINPUT : SITS_ESOLVER,
                      "the matrix is not positive definite (CHOLMOD status %d at column %zu)",
                      c->cc.status, (size_t)c->l->minor);
  return SITS_OK;
}

static void cholmod_release(cm *c);

static cm *cholmod_create(const gsl_spmatrix *a, const double *row_scale, sits_err *err) {
  if (!a || a->size1 != a->size2 || !GSL_SPMATRIX_ISCSC(a)) {
    sits__fail(err, SITS_EINTERNAL, "sits_chol_new: a square compressed-column matrix is needed");
    return NULL;
  }
  cm *c = calloc(1, sizeof *c);
  if (!c) {
    sits__fail(err, SITS_ENOMEM, "out of memory");
    return NULL;
  }
  cholmod_start(&c->cc);
  c->cc.print = 0;
  c->cc.error_handler = NULL;
  c->cc.nmethods = 1; /* AMD alone: METIS orders these grids no better and analyses 6x slower */
  c->cc.method[0].ordering = CHOLMOD_AMD;
  c->cc.postorder = 1;
  c->n = a->size1;
  int rc = SITS_OK;
  if (fill(c, a, row_scale) || !(c->l = cholmod_analyze(c->s, &c->cc)) ||
      !(c->b = cholmod_allocate_dense(c->n, 1, c->n, CHOLMOD_REAL, &c->cc)))
    rc = sits__fail(err, SITS_ENOMEM, "CHOLMOD: cannot analyse the matrix (status %d)",
                    c->cc.status);
  if (rc == SITS_OK)
    rc = factor(c, err);
  if (rc) {
    cholmod_release(c);
    return NULL;
  }
  return c;
}

static int cholmod_refactor(cm *c, const gsl_spmatrix *a, const double *row_scale, sits_err *err) {
  if (a->size1 != c->n || fill(c, a, row_scale))
    return sits__fail(err, SITS_EINTERNAL, "sits_chol_factor: not the analysed pattern");
  return factor(c, err);
}

static int cholmod_solve_b(cm *c, const double *b, const double *b_scale, double *x,
                           sits_err *err) {
  double *bx = c->b->x;
  for (size_t i = 0; i < c->n; i++)
    bx[i] = b_scale ? b_scale[i] * b[i] : b[i];
  cholmod_dense *sol = cholmod_solve(CHOLMOD_A, c->l, c->b, &c->cc);
  if (!sol)
    return sits__fail(err, SITS_ESOLVER, "CHOLMOD: the solve failed (status %d)", c->cc.status);
  memcpy(x, sol->x, c->n * sizeof *x);
  cholmod_free_dense(&sol, &c->cc);
  return SITS_OK;
}

static void cholmod_release(cm *c) {
  if (!c)
    return;
  cholmod_free_sparse(&c->s, &c->cc);
  cholmod_free_factor(&c->l, &c->cc);
  cholmod_free_dense(&c->b, &c->cc);
  cholmod_finish(&c->cc);
  free(c);
}

SITS_API const sits__cholmod_ops sits_cholmod_module_ops = {cholmod_create, cholmod_refactor,
                                                            cholmod_solve_b, cholmod_release};

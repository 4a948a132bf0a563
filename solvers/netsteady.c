/* netsteady.c - direct solves of a steady state: a factorisation of a conductance matrix
 * chosen by size and structure (dense LU, KLU, CHOLMOD, the layered-grid solver), reused by
 * every solve; the network-level entry (sits_netsteady.h) and the matrix-level one
 * (sits_steady_solve, sits_steady.h) are both over it. */
#include "sits_netsteady.h"
#include "status_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_permutation.h>
#include <gsl/gsl_spmatrix.h>
#include <klu.h>

#include "sits_chol.h"
#include "sits_layergrid.h"
#include "sits_steady.h"

typedef enum { DENSE, KLU, CHOLMOD, LAYERGRID } method;

/* A factorised matrix A (n x n, borrowed while it lives: KLU keeps no copy of its pattern). */
typedef struct fact {
  size_t n;
  method m;
  gsl_matrix *lu; /* DENSE */
  gsl_permutation *perm;
  klu_common common; /* KLU */
  klu_symbolic *sym;
  klu_numeric *num;
  int *ap, *ai;
  sits_chol *chol;    /* CHOLMOD */
  sits_layergrid *lg; /* LAYERGRID */
} fact;

struct sits_net_steady {
  const sits_thermal *th;
  size_t n, nu;
  int *map;        /* node -> unknown, -1 when pinned */
  gsl_spmatrix *g; /* the whole conductance matrix (CSC) */
  gsl_spmatrix *a; /* the unknowns' block (CSC; g itself when nothing is pinned) */
  double *b, *x;   /* nu each */
  fact f;
};

/* The unknowns' block of g in compressed columns. */
static gsl_spmatrix *reduced(const sits_net_steady *s) {
  gsl_spmatrix *t =
      gsl_spmatrix_alloc_nzmax(s->nu, s->nu, s->g->nz ? s->g->nz : 1, GSL_SPMATRIX_TRIPLET);
  if (!t)
    return NULL;
  for (size_t col = 0; col < s->n; col++)
    for (int p = s->g->p[col]; p < s->g->p[col + 1]; p++) {
      int r = s->map[s->g->i[p]], c = s->map[col];
      if (r >= 0 && c >= 0 && gsl_spmatrix_set(t, (size_t)r, (size_t)c, s->g->data[p])) {
        gsl_spmatrix_free(t);
        return NULL;
      }
    }
  gsl_spmatrix *a = gsl_spmatrix_compress(t, GSL_SPMATRIX_CSC);
  gsl_spmatrix_free(t);
  return a;
}

static int factor_dense(fact *s, const gsl_spmatrix *a, sits_err *err) {
  int sign;
  s->lu = gsl_matrix_alloc(s->n, s->n);
  s->perm = gsl_permutation_alloc(s->n);
  if (!s->lu || !s->perm)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  gsl_spmatrix_sp2d(s->lu, a);
  bool singular = gsl_linalg_LU_decomp(s->lu, s->perm, &sign) != 0;
  for (size_t i = 0; !singular && i < s->n; i++) /* a zero pivot: a part without a path out */
    singular = gsl_matrix_get(s->lu, i, i) == 0.0;
  return singular ? sits__fail(err, SITS_EINPUT, "the steady-state matrix is singular") : SITS_OK;
}

static int factor_klu(fact *s, const gsl_spmatrix *a, sits_err *err) {
  klu_defaults(&s->common);
  s->ap = malloc((s->n + 1) * sizeof *s->ap);
  s->ai = malloc((a->nz ? a->nz : 1) * sizeof *s->ai);
  if (!s->ap || !s->ai)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t j = 0; j <= s->n; j++)
    s->ap[j] = a->p[j];
  for (size_t k = 0; k < a->nz; k++)
    s->ai[k] = a->i[k];
  s->sym = klu_analyze((int)s->n, s->ap, s->ai, &s->common);
  s->num = s->sym ? klu_factor(s->ap, s->ai, a->data, s->sym, &s->common) : NULL;
  if (!s->num)
    return sits__fail(err, SITS_EINPUT, "the steady-state matrix is singular (klu status %d)",
                      s->common.status);
  return SITS_OK;
}

/* Factorises @p a (n x n) into @p s, the method by size and structure: dense below the
 * threshold; a grid (@p grid: the network is HotSpot's layered grid) by the layered-grid
 * solver unless o->no_layergrid; CHOLMOD when asked or for a grid it does not take; else KLU. */
static int factor(fact *s, const gsl_spmatrix *a, const sits_net_steady_opts *o, bool grid,
                  sits_err *err) {
  s->n = a->size1;
  if (s->n < SITS_STEADY_SPARSE_THRESHOLD) {
    s->m = DENSE;
    return factor_dense(s, a, err);
  }
  if (grid && !o->no_layergrid) {
    sits_err quiet = {0}; /* not of the layered structure: a sparse factorisation below */
    s->lg = sits_layergrid_new(a, NULL, o->grid_rows, o->grid_cols, o->grid_layers, &quiet);
    if (s->lg) {
      s->m = LAYERGRID;
      int rc = sits_layergrid_setup(s->lg, 0.0, 1.0, &quiet);
      if (rc != SITS_EUNSUPPORTED) /* its cells grounded only through the edges: below */
        return rc ? sits__fail(err, rc, "%s", quiet.msg) : SITS_OK;
      sits_layergrid_free(s->lg);
      s->lg = NULL;
    }
  }
  if (o->cholmod || grid) {
    s->m = CHOLMOD;
    return (s->chol = sits_chol_new(a, NULL, err)) ? SITS_OK : SITS_ESOLVER;
  }
  s->m = KLU;
  return factor_klu(s, a, err);
}

/* x = A^-1 b through the factorisation. */
static int fact_solve(fact *s, const double *b, double *x, sits_err *err) {
  switch (s->m) {
  case DENSE: {
    gsl_vector_const_view bv = gsl_vector_const_view_array(b, s->n);
    gsl_vector_view xv = gsl_vector_view_array(x, s->n);
    return gsl_linalg_LU_solve(s->lu, s->perm, &bv.vector, &xv.vector)
               ? sits__fail(err, SITS_EINPUT, "the steady-state matrix is singular")
               : SITS_OK;
  }
  case KLU:
    memcpy(x, b, s->n * sizeof *x);
    return klu_solve(s->sym, s->num, (int)s->n, 1, x, &s->common) && s->common.status == KLU_OK
               ? SITS_OK
               : sits__fail(err, SITS_EINPUT, "the steady-state matrix is singular (klu status %d)",
                            s->common.status);
  case CHOLMOD: return sits_chol_solve(s->chol, b, NULL, x, err);
  case LAYERGRID: return sits_layergrid_solve(s->lg, b, x, err);
  }
  return SITS_EINTERNAL;
}

static void fact_release(fact *s) {
  if (s->num)
    klu_free_numeric(&s->num, &s->common);
  if (s->sym)
    klu_free_symbolic(&s->sym, &s->common);
  free(s->ap), free(s->ai);
  gsl_matrix_free(s->lu);
  gsl_permutation_free(s->perm);
  sits_chol_free(s->chol);
  sits_layergrid_free(s->lg);
}

int sits_steady_solve(const gsl_spmatrix *a, const double *b, double *x, sits_err *err) {
  if (!GSL_SPMATRIX_ISCSC(a) || a->size1 != a->size2)
    return sits__fail(err, SITS_EINTERNAL, "sits_steady_solve: need a square CSC matrix");
  static const sits_net_steady_opts any = {0};
  fact f = {0};
  int rc = factor(&f, a, &any, false, err);
  if (rc == SITS_OK)
    rc = fact_solve(&f, b, x, err);
  for (size_t i = 0; rc == SITS_OK && i < a->size1; i++)
    if (!isfinite(x[i]))
      rc = sits__fail(err, SITS_EINPUT, "the steady state is not finite (singular matrix)");
  fact_release(&f);
  return rc;
}

sits_net_steady *sits_net_steady_new(const sits_thermal *th, const sits_net_steady_opts *o,
                                     sits_err *err) {
  static const sits_net_steady_opts none = {0};
  o = o ? o : &none;
  sits_net_steady *s = calloc(1, sizeof *s);
  if (!s) {
    sits__fail(err, SITS_ENOMEM, "out of memory");
    return NULL;
  }
  s->th = th;
  s->n = sits_thermal_node_count(th);
  s->map = malloc((s->n + 1) * sizeof *s->map);
  s->g = sits_thermal_conductance(th);
  int rc = s->map && s->g ? SITS_OK : sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t i = 0; rc == SITS_OK && i < s->n; i++)
    s->map[i] = o->pinned && o->pinned[i] ? -1 : (int)s->nu++;
  if (rc == SITS_OK) {
    s->a = s->nu == s->n ? s->g : reduced(s);
    s->b = malloc((s->nu + 1) * sizeof *s->b);
    s->x = malloc((s->nu + 1) * sizeof *s->x);
    if (!s->a || !s->b || !s->x)
      rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  }
  bool grid = o->grid_rows && o->grid_cols && o->grid_layers && s->nu == s->n;
  if (rc == SITS_OK && s->nu > 0)
    rc = factor(&s->f, s->a, o, grid, err);
  if (rc) {
    sits_net_steady_free(s);
    return NULL;
  }
  return s;
}

int sits_net_steady_solve(sits_net_steady *s, const double *power_w, double ambient_c, double *t,
                          sits_err *err) {
  if (s->nu == 0)
    return SITS_OK;
  for (size_t i = 0; i < s->n; i++)
    if (s->map[i] >= 0)
      s->b[s->map[i]] =
          power_w[i] + sits_thermal_ambient_conductance_w_per_k(s->th, (int)i) * ambient_c;
  if (s->nu < s->n) /* the pinned nodes' heat into their neighbours */
    for (size_t col = 0; col < s->n; col++)
      for (int p = s->g->p[col]; s->map[col] < 0 && p < s->g->p[col + 1]; p++)
        if (s->map[s->g->i[p]] >= 0)
          s->b[s->map[s->g->i[p]]] -= s->g->data[p] * t[col];
  int rc = fact_solve(&s->f, s->b, s->x, err);
  for (size_t i = 0; rc == SITS_OK && i < s->n; i++)
    if (s->map[i] >= 0 && !isfinite(t[i] = s->x[s->map[i]]))
      rc = sits__fail(err, SITS_EINPUT, "the steady state is not finite (singular matrix)");
  return rc;
}

const char *sits_net_steady_method(const sits_net_steady *s) {
  static const char *const names[] = {"dense-lu", "klu", "cholmod", "layered-grid"};
  return names[s->f.m];
}

void sits_net_steady_free(sits_net_steady *s) {
  if (!s)
    return;
  fact_release(&s->f);
  if (s->a && s->a != s->g)
    gsl_spmatrix_free(s->a);
  if (s->g)
    gsl_spmatrix_free(s->g);
  free(s->map), free(s->b), free(s->x);
  free(s);
}

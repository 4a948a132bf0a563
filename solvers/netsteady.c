/* netsteady.c - the linear steady state of a thermal network (sits_netsteady.h). */
#include "sits_netsteady.h"
#include "status_impl.h"

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

struct sits_net_steady {
  const sits_thermal *th;
  size_t n, nu;
  int *map;        /* node -> unknown, -1 when pinned */
  gsl_spmatrix *g; /* the whole conductance matrix (CSC) */
  gsl_spmatrix *a; /* the unknowns' block (CSC; g itself when nothing is pinned) */
  double *b, *x;   /* nu each */
  method m;
  gsl_matrix *lu; /* DENSE */
  gsl_permutation *perm;
  klu_common common; /* KLU */
  klu_symbolic *sym;
  klu_numeric *num;
  int *ap, *ai;
  sits_chol *chol;    /* CHOLMOD */
  sits_layergrid *lg; /* LAYERGRID */
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

static int factor_dense(sits_net_steady *s, sits_err *err) {
  int sign;
  s->lu = gsl_matrix_alloc(s->nu, s->nu);
  s->perm = gsl_permutation_alloc(s->nu);
  if (!s->lu || !s->perm)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  gsl_spmatrix_sp2d(s->lu, s->a);
  bool singular = gsl_linalg_LU_decomp(s->lu, s->perm, &sign) != 0;
  for (size_t i = 0; !singular && i < s->nu; i++) /* a zero pivot: a part without a path out */
    singular = gsl_matrix_get(s->lu, i, i) == 0.0;
  return singular ? sits__fail(err, SITS_EINPUT, "the steady-state matrix is singular") : SITS_OK;
}

static int factor_klu(sits_net_steady *s, sits_err *err) {
  const gsl_spmatrix *a = s->a;
  klu_defaults(&s->common);
  s->ap = malloc((s->nu + 1) * sizeof *s->ap);
  s->ai = malloc((a->nz ? a->nz : 1) * sizeof *s->ai);
  if (!s->ap || !s->ai)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t j = 0; j <= s->nu; j++)
    s->ap[j] = a->p[j];
  for (size_t k = 0; k < a->nz; k++)
    s->ai[k] = a->i[k];
  s->sym = klu_analyze((int)s->nu, s->ap, s->ai, &s->common);
  s->num = s->sym ? klu_factor(s->ap, s->ai, a->data, s->sym, &s->common) : NULL;
  if (!s->num)
    return sits__fail(err, SITS_EINPUT, "the steady-state matrix is singular (klu status %d)",
                      s->common.status);
  return SITS_OK;
}

static int factor(sits_net_steady *s, const sits_net_steady_opts *o, sits_err *err) {
  bool grid = o->grid_rows && o->grid_cols && o->grid_layers && s->nu == s->n;
  if (s->nu < SITS_STEADY_SPARSE_THRESHOLD) {
    s->m = DENSE;
    return factor_dense(s, err);
  }
  if (grid && !o->no_layergrid) {
    sits_err quiet = {0}; /* not of the layered structure: a sparse factorisation below */
    s->lg = sits_layergrid_new(s->a, NULL, o->grid_rows, o->grid_cols, o->grid_layers, &quiet);
    if (s->lg) {
      s->m = LAYERGRID;
      return sits_layergrid_setup(s->lg, 0.0, 1.0, err);
    }
  }
  if (o->cholmod || grid) {
    s->m = CHOLMOD;
    return (s->chol = sits_chol_new(s->a, NULL, err)) ? SITS_OK : SITS_ESOLVER;
  }
  s->m = KLU;
  return factor_klu(s, err);
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
  if (rc == SITS_OK && s->nu > 0)
    rc = factor(s, o, err);
  if (rc) {
    sits_net_steady_free(s);
    return NULL;
  }
  return s;
}

static int solve_unknowns(sits_net_steady *s, sits_err *err) {
  switch (s->m) {
  case DENSE: {
    gsl_vector_view bv = gsl_vector_view_array(s->b, s->nu),
                    xv = gsl_vector_view_array(s->x, s->nu);
    return gsl_linalg_LU_solve(s->lu, s->perm, &bv.vector, &xv.vector)
               ? sits__fail(err, SITS_EINPUT, "the steady-state matrix is singular")
               : SITS_OK;
  }
  case KLU:
    memcpy(s->x, s->b, s->nu * sizeof *s->x);
    return klu_solve(s->sym, s->num, (int)s->nu, 1, s->x, &s->common) && s->common.status == KLU_OK
               ? SITS_OK
               : sits__fail(err, SITS_EINPUT, "the steady-state matrix is singular (klu status %d)",
                            s->common.status);
  case CHOLMOD: return sits_chol_solve(s->chol, s->b, NULL, s->x, err);
  case LAYERGRID: return sits_layergrid_solve(s->lg, s->b, s->x, err);
  }
  return SITS_EINTERNAL;
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
  int rc = solve_unknowns(s, err);
  for (size_t i = 0; rc == SITS_OK && i < s->n; i++)
    if (s->map[i] >= 0 && !isfinite(t[i] = s->x[s->map[i]]))
      rc = sits__fail(err, SITS_EINPUT, "the steady state is not finite (singular matrix)");
  return rc;
}

const char *sits_net_steady_method(const sits_net_steady *s) {
  static const char *const names[] = {"dense-lu", "klu", "cholmod", "layered-grid"};
  return names[s->m];
}

void sits_net_steady_free(sits_net_steady *s) {
  if (!s)
    return;
  if (s->num)
    klu_free_numeric(&s->num, &s->common);
  if (s->sym)
    klu_free_symbolic(&s->sym, &s->common);
  free(s->ap), free(s->ai);
  gsl_matrix_free(s->lu);
  gsl_permutation_free(s->perm);
  sits_chol_free(s->chol);
  sits_layergrid_free(s->lg);
  if (s->a && s->a != s->g)
    gsl_spmatrix_free(s->a);
  if (s->g)
    gsl_spmatrix_free(s->g);
  free(s->map), free(s->b), free(s->x);
  free(s);
}

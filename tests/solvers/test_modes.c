/* test_modes.c - the modes of a symmetric network (solvers/modes.c, the exponential path's
 * modal form): the parity blocks of a layered grid's two reflections, and every mode a
 * solution of G x = lambda C x. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_spmatrix.h>

#include "modes_impl.h"

/* A two-layer R x C grid (lateral conductances 2 and 3 W/K per layer, 0.5 between the
 * layers, the bottom layer's cells 0.1 to the ambient) with four extra nodes, one per edge of
 * the bottom layer (each linked to its edge's cells by 0.7, to the ambient by 1), and
 * capacities 1e-3 and 2e-2 per layer, 0.5 per extra node: the mirror images of node a under
 * rows i -> R-1-i (m0) and columns j -> C-1-j (m1). */
typedef struct net {
  size_t R, C, m;
  gsl_spmatrix *g;
  double *c;
  size_t *m0, *m1;
} net;

static size_t cell(const net *t, size_t l, size_t i, size_t j) {
  return l * t->R * t->C + i * t->C + j;
}

static void link(gsl_spmatrix *tr, size_t a, size_t b, double g) {
  gsl_spmatrix_set(tr, a, a, gsl_spmatrix_get(tr, a, a) + g);
  gsl_spmatrix_set(tr, b, b, gsl_spmatrix_get(tr, b, b) + g);
  gsl_spmatrix_set(tr, a, b, gsl_spmatrix_get(tr, a, b) - g);
  gsl_spmatrix_set(tr, b, a, gsl_spmatrix_get(tr, b, a) - g);
}

static net make_net(size_t R, size_t C) {
  net t = {.R = R, .C = C, .m = 2 * R * C + 4};
  gsl_spmatrix *tr = gsl_spmatrix_alloc(t.m, t.m);
  t.c = malloc(t.m * sizeof(double));
  t.m0 = malloc(t.m * sizeof(size_t));
  t.m1 = malloc(t.m * sizeof(size_t));
  size_t ext = 2 * R * C; /* N, S, W, E */
  for (size_t l = 0; l < 2; l++)
    for (size_t i = 0; i < R; i++)
      for (size_t j = 0; j < C; j++) {
        size_t a = cell(&t, l, i, j);
        t.c[a] = l ? 2e-2 : 1e-3;
        t.m0[a] = cell(&t, l, R - 1 - i, j);
        t.m1[a] = cell(&t, l, i, C - 1 - j);
        if (i + 1 < R)
          link(tr, a, cell(&t, l, i + 1, j), l ? 3.0 : 2.0);
        if (j + 1 < C)
          link(tr, a, cell(&t, l, i, j + 1), l ? 3.0 : 2.0);
        if (l == 0)
          link(tr, a, cell(&t, 1, i, j), 0.5);
        else {
          gsl_spmatrix_set(tr, a, a, gsl_spmatrix_get(tr, a, a) + 0.1);
          if (i == 0)
            link(tr, a, ext + 0, 0.7);
          if (i + 1 == R)
            link(tr, a, ext + 1, 0.7);
          if (j == 0)
            link(tr, a, ext + 2, 0.7);
          if (j + 1 == C)
            link(tr, a, ext + 3, 0.7);
        }
      }
  for (size_t e = 0; e < 4; e++) {
    t.c[ext + e] = 0.5;
    gsl_spmatrix_set(tr, ext + e, ext + e, gsl_spmatrix_get(tr, ext + e, ext + e) + 1.0);
  }
  size_t flip0[4] = {1, 0, 2, 3}, flip1[4] = {0, 1, 3, 2};
  for (size_t e = 0; e < 4; e++)
    t.m0[ext + e] = ext + flip0[e], t.m1[ext + e] = ext + flip1[e];
  t.g = gsl_spmatrix_ccs(tr);
  gsl_spmatrix_free(tr);
  return t;
}

static void free_net(net *t) {
  gsl_spmatrix_free(t->g);
  free(t->c), free(t->m0), free(t->m1);
}

/* The worst of |G x - lambda C x| / (|G| |x|) over the modes, x = C^-1/2 Q V e_k. */
static double worst_residual(const net *t, const sits__modes *md) {
  size_t m = t->m;
  double *u = calloc(m, sizeof(double)), *x = calloc(m, sizeof(double)),
         *gx = calloc(m, sizeof(double)), worst = 0, gmax = 0;
  for (size_t k = 0; k < t->g->nz; k++)
    gmax = fmax(gmax, fabs(t->g->data[k]));
  for (size_t b = 0; b < md->ncls; b++)
    for (size_t p = 0; p < md->len[b]; p++) {
      size_t len = md->len[b], off = md->off[b];
      memset(x, 0, m * sizeof(double));
      for (size_t j = 0; j < len; j++) { /* column p of V_b, through Q */
        double v = md->v[md->voff[b] + j * len + p];
        const sits__pvec *q = &md->basis[off + j];
        for (int s = 0; s < q->k; s++)
          x[q->idx[s]] += q->coef[s] * v;
      }
      double xn = 0;
      for (size_t i = 0; i < m; i++)
        x[i] *= md->isc[i], xn = fmax(xn, fabs(x[i]));
      memset(gx, 0, m * sizeof(double));
      for (size_t j = 0; j < m; j++)
        for (int q = t->g->p[j]; q < t->g->p[j + 1]; q++)
          gx[t->g->i[q]] += t->g->data[q] * x[j];
      double lam = -md->mu[off + p];
      for (size_t i = 0; i < m; i++)
        worst = fmax(worst, fabs(gx[i] - lam * t->c[i] * x[i]) / (gmax * xn));
    }
  free(u), free(x), free(gx);
  return worst;
}

static void check_shape(size_t R, size_t C, size_t blocks) {
  net t = make_net(R, C);
  sits_expint_modal o = {.m = t.m, .c = t.c, .g = t.g, .mirror = {t.m0, t.m1}};
  sits__modes *md = NULL;
  sits_err err = {0};
  cr_assert_eq(sits__modes_new(&o, t.m + 2, &md, &err), SITS_OK, "%s", err.msg);
  size_t total = 0, big = 0;
  for (size_t b = 0; b < md->ncls; b++)
    total += md->len[b], big = md->len[b] > big ? md->len[b] : big;
  double res = worst_residual(&t, md);
  cr_log_info("%zu x %zu (%zu nodes): %zu blocks, the largest %zu; residual %.3g", R, C, t.m,
              md->ncls, big, res);
  cr_assert_eq(md->ncls, blocks, "%zu x %zu: %zu blocks", R, C, md->ncls);
  cr_assert_eq(total, t.m);
  cr_assert_leq(big, t.m / 4 + R + C + 2, "a block of %zu of %zu", big, t.m);
  cr_assert_lt(res, 1e-12, "%zu x %zu: residual %.3g", R, C, res);
  for (size_t k = 0; k < t.m; k++)
    cr_assert(md->mu[k] < 0, "mode %zu: %g (every part reaches the ambient)", k, md->mu[k]);
  sits__modes_free(md);
  /* a mirror that does not leave G as it is (one cell's capacity changed): one block, exact */
  t.c[0] *= 1.5;
  cr_assert_eq(sits__modes_new(&o, t.m + 2, &md, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(md->ncls, 1, "an asymmetric network: %zu blocks", md->ncls);
  cr_assert_lt(worst_residual(&t, md), 1e-12);
  sits__modes_free(md);
  free_net(&t);
}

Test(modes, even_grid) {
  check_shape(6, 8, 4);
}

/* blocks of ~200: LAPACK's dsyevd from OpenBLAS where it is installed (GSL's below) */
Test(modes, large_grid) {
  check_shape(20, 20, 4);
}

Test(modes, odd_grid) { /* cells on the axes: orbits of two and one */
  check_shape(5, 7, 4);
}

/* a single row: the row reflection maps every cell onto itself, and only the north and south
 * nodes' difference is odd under it (its class odd under both reflections holds nothing) */
Test(modes, one_row) {
  check_shape(1, 6, 3);
}

Test(modes, not_symmetric_refused) {
  net t = make_net(3, 3);
  t.g->data[1] *= 1.01; /* one off-diagonal entry of column 0 */
  sits_expint_modal o = {.m = t.m, .c = t.c, .g = t.g};
  sits__modes *md = NULL;
  sits_err err = {0};
  cr_assert_eq(sits__modes_new(&o, t.m, &md, &err), SITS_EUNSUPPORTED, "%s", err.msg);
  cr_assert_null(md);
  free_net(&t);
}

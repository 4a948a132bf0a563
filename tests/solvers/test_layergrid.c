/*
 * test_layergrid.c - the layered-grid solver (cosine transforms + the edge system) against
 * independent solves of the same matrices: a dense LU of a small hand-built network with
 * extra nodes on two edges, and CHOLMOD on HotSpot's ev6 grids (square, non-square with the
 * transposed lateral resistances, non-square geometric). Matrices without the structure are
 * refused with SITS_EUNSUPPORTED, and a network with no path to the ambient is singular.
 *
 * Tolerances: the solves are direct, so they agree to rounding amplified by the condition
 * number (up to ~1e6 for these grids): 1e-9 relative is three orders above what is seen
 * (1e-13..1e-12) and ten below any modelling difference.
 */
#include "test_util.h"

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_spblas.h>
#include <sys/stat.h>

#include "sits_chol.h"
#include "sits_hotspot.h"
#include "sits_layergrid.h"
#include "sits_thermal.h"

enum { PARTIAL_EDGE = 1, ODD_LINK = 2, NO_GROUND = 4 };

/* 2 layers of 3 x 4 cells and 3 extra nodes: X0 on layer 1's north row, X1 on its west
 * column, X2 linked to both and to the ambient. */
static sits_thermal *small_network(int variant) {
  const size_t L = 2, R = 3, C = 4;
  const double gr[2] = {2.0, 3.0}, gc[2] = {1.5, 0.5}, cap[2] = {1.0, 2.0};
  sits_thermal *th = sits_thermal_new();
  sits_err err = {0};
  char name[32];
  for (size_t l = 0; l < L; l++)
    for (size_t k = 0; k < R * C; k++) {
      snprintf(name, sizeof name, "c%zu_%zu", l, k);
      cr_assert_geq(sits_thermal_add_node(th, name, cap[l], &err), 0, "%s", err.msg);
    }
  for (int e = 0; e < 3; e++) {
    snprintf(name, sizeof name, "x%d", e);
    cr_assert_geq(sits_thermal_add_node(th, name, 5.0 + e, &err), 0, "%s", err.msg);
  }
#define CELL(l, i, j) ((int)((l)*R * C + (i)*C + (j)))
  for (size_t l = 0; l < L; l++)
    for (size_t i = 0; i < R; i++)
      for (size_t j = 0; j < C; j++) {
        double odd = (variant & ODD_LINK) && l == 0 && i == 1 && j == 1 ? 1.5 : 1.0;
        if (i + 1 < R)
          cr_assert_eq(
              sits_thermal_add_link(th, CELL(l, i, j), CELL(l, i + 1, j), 1.0 / gr[l], &err),
              SITS_OK);
        if (j + 1 < C)
          cr_assert_eq(
              sits_thermal_add_link(th, CELL(l, i, j), CELL(l, i, j + 1), odd / gc[l], &err),
              SITS_OK);
        if (l + 1 < L)
          cr_assert_eq(sits_thermal_add_link(th, CELL(l, i, j), CELL(l + 1, i, j), 0.25, &err),
                       SITS_OK);
        if (l == 1 && !(variant & NO_GROUND))
          cr_assert_eq(sits_thermal_add_link(th, CELL(l, i, j), SITS_AMBIENT, 1.0 / 0.7, &err),
                       SITS_OK);
      }
  int x0 = (int)(L * R * C), x1 = x0 + 1, x2 = x0 + 2;
  for (size_t j = 0; j < C - ((variant & PARTIAL_EDGE) ? 1 : 0); j++)
    cr_assert_eq(sits_thermal_add_link(th, CELL(1, 0, j), x0, 1.0 / 0.9, &err), SITS_OK);
  for (size_t i = 0; i < R; i++)
    cr_assert_eq(sits_thermal_add_link(th, CELL(1, i, 0), x1, 1.0 / 0.6, &err), SITS_OK);
#undef CELL
  cr_assert_eq(sits_thermal_add_link(th, x0, x2, 1.0 / 1.1, &err), SITS_OK);
  cr_assert_eq(sits_thermal_add_link(th, x1, x2, 1.0 / 0.3, &err), SITS_OK);
  if (!(variant & NO_GROUND)) {
    cr_assert_eq(sits_thermal_add_link(th, x2, SITS_AMBIENT, 0.5, &err), SITS_OK);
    cr_assert_eq(sits_thermal_add_link(th, x0, SITS_AMBIENT, 5.0, &err), SITS_OK);
  }
  return th;
}

static double *capacities(const sits_thermal *th) {
  size_t n = sits_thermal_node_count(th);
  double *c = malloc(n * sizeof *c);
  for (size_t i = 0; i < n; i++)
    c[i] = sits_thermal_capacity_j_per_k(th, (int)i);
  return c;
}

/* max |(alpha C + tau G) x - b| / max |b| */
static double residual(const gsl_spmatrix *g, const double *c, double alpha, double tau,
                       const double *x, const double *b) {
  double worst = 0, bmax = 0;
  for (size_t i = 0; i < g->size1; i++) {
    double s = alpha * c[i] * x[i]; /* G symmetric: column i is row i */
    for (int p = g->p[i]; p < g->p[i + 1]; p++)
      s += tau * g->data[p] * x[g->i[p]];
    worst = fmax(worst, fabs(s - b[i]));
    bmax = fmax(bmax, fabs(b[i]));
  }
  return worst / bmax;
}

/* max |G x - y| / max |G x| */
static double apply_error(const gsl_spmatrix *g, const double *x, const double *y) {
  double worst = 0, big = 0;
  for (size_t i = 0; i < g->size1; i++) {
    double s = 0;
    for (int p = g->p[i]; p < g->p[i + 1]; p++)
      s += g->data[p] * x[g->i[p]];
    worst = fmax(worst, fabs(s - y[i]));
    big = fmax(big, fabs(s));
  }
  return worst / big;
}

static void fill_rhs(double *b, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++) { /* a fixed pseudo-random pattern in [-1, 1] */
    seed = seed * 1103515245u + 12345u;
    b[i] = (double)(seed >> 8) / (double)(1u << 24) * 2.0 - 1.0;
  }
}

/* (alpha C + tau G) x = b by a dense LU of the whole matrix; the largest |x_ref - x| over
 * the range of x_ref */
static double dense_error(const gsl_spmatrix *g, const double *c, double alpha, double tau,
                          const double *b, const double *x) {
  size_t n = g->size1;
  gsl_matrix *a = gsl_matrix_alloc(n, n);
  gsl_permutation *perm = gsl_permutation_alloc(n);
  gsl_vector *ref = gsl_vector_alloc(n);
  gsl_spmatrix_sp2d(a, g);
  gsl_matrix_scale(a, tau);
  for (size_t i = 0; i < n; i++)
    *gsl_matrix_ptr(a, i, i) += alpha * c[i];
  int sign;
  gsl_linalg_LU_decomp(a, perm, &sign);
  gsl_vector_const_view bv = gsl_vector_const_view_array(b, n);
  gsl_linalg_LU_solve(a, perm, &bv.vector, ref);
  double worst = 0, scale = gsl_vector_max(ref) - gsl_vector_min(ref);
  for (size_t i = 0; i < n; i++)
    worst = fmax(worst, fabs(x[i] - gsl_vector_get(ref, i)));
  gsl_matrix_free(a), gsl_permutation_free(perm), gsl_vector_free(ref);
  return worst / scale;
}

/* A network, its matrices and a layered-grid solver of it (owned: net_case_close frees all) */
typedef struct net_case {
  sits_thermal *th;
  gsl_spmatrix *g;
  double *c;
  size_t n;
  sits_layergrid *s;
} net_case;

static net_case net_case_open(sits_thermal *th, size_t rows, size_t cols, size_t layers) {
  net_case k = {.th = th, .g = sits_thermal_conductance(th), .c = capacities(th)};
  sits_err err = {0};
  k.n = k.g->size1;
  k.s = sits_layergrid_new(k.g, k.c, rows, cols, layers, &err);
  cr_assert_not_null(k.s, "%s", err.msg);
  return k;
}

static void net_case_close(net_case *k) {
  sits_layergrid_free(k->s);
  free(k->c);
  gsl_spmatrix_free(k->g);
  sits_thermal_free(k->th);
}

Test(layergrid, small_network_equals_dense_lu) {
  net_case fx = net_case_open(small_network(0), 3, 4, 2);
  gsl_spmatrix *g = fx.g;
  double *c = fx.c;
  size_t n = fx.n;
  sits_layergrid *s = fx.s;
  sits_err err = {0};
  /* the edge system: 4 + 3 segment cells and the 3 extra nodes */
  cr_assert_eq(sits_layergrid_edge_unknowns(s), 10);
  const double cases[3][2] = {{0.0, 1.0}, {1.0, 0.01}, {2.0, 7.0}};
  double *b = malloc(n * sizeof *b), *x = malloc(n * sizeof *x);
  for (int k = 0; k < 3; k++) {
    double alpha = cases[k][0], tau = cases[k][1];
    cr_assert_eq(sits_layergrid_setup(s, alpha, tau, &err), SITS_OK, "%s", err.msg);
    fill_rhs(b, n, 7u + (unsigned)k);
    cr_assert_eq(sits_layergrid_solve(s, b, x, &err), SITS_OK, "%s", err.msg);
    double worst = dense_error(g, c, alpha, tau, b, x);
    cr_assert_leq(worst, 1e-9, "alpha %g tau %g: %g", alpha, tau, worst);
    /* in place */
    memcpy(x, b, n * sizeof *x);
    cr_assert_eq(sits_layergrid_solve(s, x, x, &err), SITS_OK);
    cr_assert_leq(residual(g, c, alpha, tau, x, b), 1e-12);
  }
  /* G x from the layer constants equals the sparse product */
  fill_rhs(x, n, 3u);
  sits_layergrid_apply(s, x, b);
  cr_assert_leq(apply_error(g, x, b), 1e-14);
  free(b), free(x);
  net_case_close(&fx);
}

/* 2 layers of rows x cols cells, extras on layer 1's north and south rows, each to the ambient:
 * mirror symmetric in its edges, and in its extras only when the south one's capacity and
 * ambient link are the north one's (the parity blocks assume all of it) */
static sits_thermal *mirror_network(size_t rows, size_t cols, double s_c_j_per_k,
                                    double s_amb_k_per_w, bool cells_grounded) {
  tu_grid_spec spec = {.rows = rows,
                       .cols = cols,
                       .c_j_per_k = {1.0, 2.0},
                       .r_row_k_per_w = 0.5,
                       .r_col_k_per_w = 0.8,
                       .r_z_k_per_w = 0.3,
                       .r_edge_k_per_w = 1.2,
                       .c_n_j_per_k = 1.0,
                       .c_s_j_per_k = s_c_j_per_k,
                       .r_n_amb_k_per_w = 1.0,
                       .r_s_amb_k_per_w = s_amb_k_per_w,
                       .r_cell_amb_k_per_w = cells_grounded ? 10.0 : 0.0};
  return tu_two_layer_grid(&spec);
}

Test(layergrid, extras_that_break_the_mirror_symmetry_are_solved_whole) {
  const double variants[3][2] = {{1.0, 1.0}, {3.0, 1.0}, {1.0, 0.2}}; /* symmetric first */
  for (int v = 0; v < 3; v++) {
    net_case fx =
        net_case_open(mirror_network(6, 5, variants[v][0], variants[v][1], true), 6, 5, 2);
    gsl_spmatrix *g = fx.g;
    double *c = fx.c;
    size_t n = fx.n;
    sits_layergrid *s = fx.s;
    sits_err err = {0};
    double *b = malloc(n * sizeof *b), *x = malloc(n * sizeof *x);
    for (int k = 0; k < 2; k++) {
      double alpha = k ? 1.0 : 0.0, tau = k ? 0.05 : 1.0;
      cr_assert_eq(sits_layergrid_setup(s, alpha, tau, &err), SITS_OK, "%s", err.msg);
      fill_rhs(b, n, 21u + (unsigned)k);
      for (int rep = 0; rep < 6; rep++) /* past INVERSE_AFTER too */
        cr_assert_eq(sits_layergrid_solve(s, b, x, &err), SITS_OK, "%s", err.msg);
      double worst = dense_error(g, c, alpha, tau, b, x);
      cr_assert_leq(worst, 1e-9, "variant %d alpha %g: %g", v, alpha, worst);
    }
    free(b), free(x);
    net_case_close(&fx);
  }
}

/* Cells that reach the ambient only through the edge nodes: their own operator (the edge
 * links taken out) is singular, so a steady state is refused as unsupported (the callers'
 * sparse solver takes it); with a heat capacity term it is regular. */
Test(layergrid, cells_grounded_only_through_the_edges) {
  net_case fx = net_case_open(mirror_network(6, 5, 1.0, 1.0, false), 6, 5, 2);
  gsl_spmatrix *g = fx.g;
  double *c = fx.c;
  size_t n = fx.n;
  sits_layergrid *s = fx.s;
  sits_err err = {0};
  cr_assert_eq(sits_layergrid_setup(s, 0.0, 1.0, &err), SITS_EUNSUPPORTED);
  cr_assert(strstr(err.msg, "only through the edge nodes"), "%s", err.msg);
  cr_assert_eq(sits_layergrid_setup(s, 1.0, 0.05, &err), SITS_OK, "%s", err.msg);
  double *b = malloc(n * sizeof *b), *x = malloc(n * sizeof *x);
  fill_rhs(b, n, 5u);
  cr_assert_eq(sits_layergrid_solve(s, b, x, &err), SITS_OK, "%s", err.msg);
  cr_assert_leq(dense_error(g, c, 1.0, 0.05, b, x), 1e-9);
  free(b), free(x);
  net_case_close(&fx);
}

static void refused(int variant, size_t rows, size_t cols, size_t layers) {
  sits_thermal *th = small_network(variant);
  gsl_spmatrix *g = sits_thermal_conductance(th);
  sits_err err = {0};
  cr_assert_null(sits_layergrid_new(g, NULL, rows, cols, layers, &err));
  cr_assert_eq(err.code, SITS_EUNSUPPORTED);
  cr_assert(strstr(err.msg, "not a layered uniform grid"), "%s", err.msg);
  gsl_spmatrix_free(g);
  sits_thermal_free(th);
}

Test(layergrid, other_structures_are_refused) {
  refused(PARTIAL_EDGE, 3, 4, 2); /* an extra node on 3 of the 4 cells of an edge */
  refused(ODD_LINK, 3, 4, 2);     /* one lateral link unlike its layer's */
  refused(0, 4, 3, 2);            /* the cells read as 4 x 3: links off the pattern */
  refused(0, 3, 4, 3);            /* more cells than nodes */
  refused(0, 1, 12, 2);           /* a single row */
}

Test(layergrid, no_path_to_ambient_is_singular) {
  net_case fx = net_case_open(small_network(NO_GROUND), 3, 4, 2);
  double *c = fx.c;
  sits_layergrid *s = fx.s;
  sits_err err = {0};
  /* with extra nodes the layered solver cannot tell a floating network from cells grounded
   * through them: it refuses, and the callers' sparse solver finds it singular */
  cr_assert_eq(sits_layergrid_setup(s, 0.0, 1.0, &err), SITS_EUNSUPPORTED);
  cr_assert(strstr(err.msg, "only through the edge nodes"), "%s", err.msg);
  cr_assert_eq(sits_layergrid_solve(s, c, c, &err), SITS_EINTERNAL); /* no solve after that */
  cr_assert_eq(sits_layergrid_setup(s, 1.0, 1.0, &err), SITS_OK, "%s", err.msg); /* C + G is */
  net_case_close(&fx);
}

static double max_diff(const double *a, const double *b, size_t n) {
  double worst = 0;
  for (size_t i = 0; i < n; i++)
    worst = fmax(worst, fabs(a[i] - b[i]));
  return worst;
}

/* HotSpot's ev6 grid network (example2 materials) of rows x cols */
typedef struct hs_grid {
  sits_hs_options *o;
  sits_floorplan *flp;
  sits_hs_network *net;
} hs_grid;

static sits_hs_network *hs_grid_new(hs_grid *h, size_t rows, size_t cols, bool transpose) {
  h->o = sits_hs_options_new();
  sits_err err = {0};
  const char *in = SITS_TEST_DATA "/hotspot_ev6/inputs";
  char path[512], num[16];
  snprintf(path, sizeof path, "%s/example2.config", in);
  cr_assert_eq(sits_hs_options_read_config(h->o, path, &err), SITS_OK, "%s", err.msg);
  snprintf(path, sizeof path, "%s/example.materials", in);
  cr_assert_eq(sits_hs_options_set(h->o, "materials_file", path, "test", &err), SITS_OK);
  snprintf(num, sizeof num, "%zu", rows);
  cr_assert_eq(sits_hs_options_set(h->o, "grid_rows", num, "test", &err), SITS_OK);
  snprintf(num, sizeof num, "%zu", cols);
  cr_assert_eq(sits_hs_options_set(h->o, "grid_cols", num, "test", &err), SITS_OK);
  sits_hs_params p;
  sits_hs_model model;
  cr_assert_eq(sits_hs_options_params(h->o, &p, &model, &err), SITS_OK, "%s", err.msg);
  p.transpose_lateral = transpose;
  snprintf(path, sizeof path, "%s/ev6.flp", in);
  cr_assert_eq(sits_hs_read_flp(path, &h->flp, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(
      ((h->net = sits_hs_network_new(h->flp, &p, SITS_HS_GRID, &err)) ? SITS_OK : err.code),
      SITS_OK, "%s", err.msg);
  return h->net;
}

static void hs_grid_free(hs_grid *h) {
  sits_hs_network_free(h->net);
  sits_floorplan_free(h->flp);
  sits_hs_options_free(h->o);
}

static void hotspot_grid(size_t rows, size_t cols, bool transpose) {
  hs_grid h;
  sits_hs_network *net = hs_grid_new(&h, rows, cols, transpose);
  sits_err err = {0};
  const sits_thermal *th = sits_hs_thermal(net);
  gsl_spmatrix *g = sits_thermal_conductance(th);
  double *c = capacities(th);
  size_t n = g->size1;
  sits_layergrid *s = sits_layergrid_new(g, c, rows, cols, 4, &err);
  cr_assert_not_null(s, "%zu x %zu: %s", rows, cols, err.msg);
  /* 4 edges on the spreader and the sink layers, and the 12 package nodes */
  cr_assert_eq(sits_layergrid_edge_unknowns(s), 2 * (2 * rows + 2 * cols) + 12);
  const double cases[2][2] = {{0.0, 1.0}, {1.0, 1e-3}}; /* steady; an ESDIRK step of ~2 ms */
  double *b = malloc(n * sizeof *b), *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  gsl_spmatrix *m = gsl_spmatrix_alloc_nzmax(n, n, g->nz, GSL_SPMATRIX_CSC);
  for (int k = 0; k < 2; k++) {
    double alpha = cases[k][0], tau = cases[k][1];
    cr_assert_eq(sits_layergrid_setup(s, alpha, tau, &err), SITS_OK, "%s", err.msg);
    fill_rhs(b, n, 11u + (unsigned)k);
    cr_assert_eq(sits_layergrid_solve(s, b, x, &err), SITS_OK, "%s", err.msg);
    gsl_spmatrix_memcpy(m, g);
    gsl_spmatrix_scale(m, tau);
    for (size_t i = 0; i < n; i++)
      *gsl_spmatrix_ptr(m, i, i) += alpha * c[i];
    sits_chol *ch = sits_chol_new(m, NULL, &err);
    cr_assert_not_null(ch, "%s", err.msg);
    cr_assert_eq(sits_chol_solve(ch, b, NULL, y, &err), SITS_OK);
    double worst = 0, scale = 0;
    for (size_t i = 0; i < n; i++)
      worst = fmax(worst, fabs(x[i] - y[i])), scale = fmax(scale, fabs(y[i]));
    cr_assert_leq(worst, 1e-9 * scale, "%zu x %zu alpha %g: %g of %g", rows, cols, alpha, worst,
                  scale);
    cr_assert_leq(residual(g, c, alpha, tau, x, b), 1e-9);
    sits_chol_free(ch);
    /* from the INVERSE_AFTER-th solve of one setup the parity blocks' inverses serve: the
     * same solution to rounding */
    for (int rep = 0; rep < 6; rep++)
      cr_assert_eq(sits_layergrid_solve(s, b, y, &err), SITS_OK, "%s", err.msg);
    cr_assert_leq(max_diff(x, y, n), 1e-12 * scale, "%zu x %zu alpha %g: repeated solve", rows,
                  cols, alpha);
    /* the same solve in mode coordinates: Q^T b in, Q^T x out (in place) */
    sits_layergrid_to_modes(s, b, y);
    cr_assert_eq(sits_layergrid_solve_modes(s, y, y, &err), SITS_OK, "%s", err.msg);
    sits_layergrid_from_modes(s, y, y);
    cr_assert_leq(max_diff(x, y, n), 1e-12 * scale, "%zu x %zu alpha %g", rows, cols, alpha);
  }
  fill_rhs(x, n, 5u);
  sits_layergrid_apply(s, x, y);
  cr_assert_leq(apply_error(g, x, y), 1e-13, "%zu x %zu", rows, cols);
  /* Q is orthogonal (the 2-norm kept), Q^T Q = I, and Q^T G Q (Q^T x) = Q^T (G x) */
  sits_layergrid_to_modes(s, x, b);
  double nx = 0, nv = 0;
  for (size_t i = 0; i < n; i++)
    nx += x[i] * x[i], nv += b[i] * b[i];
  cr_assert_leq(fabs(nv - nx), 1e-13 * nx, "%zu x %zu: |Q^T x|^2 %.17g, |x|^2 %.17g", rows, cols,
                nv, nx);
  double *v = malloc(n * sizeof *v);
  sits_layergrid_apply_modes(s, b, v);
  sits_layergrid_from_modes(s, v, v);
  double gscale = 0;
  for (size_t i = 0; i < n; i++)
    gscale = fmax(gscale, fabs(y[i]));
  cr_assert_leq(max_diff(v, y, n), 1e-12 * gscale, "%zu x %zu: G in modes", rows, cols);
  sits_layergrid_from_modes(s, b, b);
  cr_assert_leq(max_diff(b, x, n), 1e-14, "%zu x %zu: round trip", rows, cols);
  free(v);
  gsl_spmatrix_free(m);
  free(b), free(x), free(y), free(c);
  sits_layergrid_free(s);
  gsl_spmatrix_free(g);
  hs_grid_free(&h);
}

Test(layergrid, hotspot_grids_equal_cholmod, .timeout = 60) {
  hotspot_grid(64, 64, true);
  hotspot_grid(13, 7, true);  /* non-square cells, HotSpot's transposed lateral links */
  hotspot_grid(9, 14, false); /* the geometric ones */
}

Test(layergrid, block_model_is_not_a_grid) {
  sits_hs_options *o = sits_hs_options_new();
  sits_err err = {0};
  sits_hs_params p;
  sits_hs_params_default(&p);
  sits_floorplan *flp;
  cr_assert_eq(sits_hs_read_flp(SITS_TEST_DATA "/hotspot_ev6/inputs/ev6.flp", &flp, &err), SITS_OK,
               "%s", err.msg);
  sits_hs_network *net;
  cr_assert_eq(((net = sits_hs_network_new(flp, &p, SITS_HS_BLOCK, &err)) ? SITS_OK : err.code),
               SITS_OK, "%s", err.msg);
  gsl_spmatrix *g = sits_thermal_conductance(sits_hs_thermal(net));
  /* 30 blocks x 4 layers read as a 5 x 6 grid of 4 layers: their links are not a grid's */
  cr_assert_null(sits_layergrid_new(g, NULL, 5, 6, 4, &err));
  cr_assert_eq(err.code, SITS_EUNSUPPORTED);
  gsl_spmatrix_free(g);
  sits_hs_network_free(net);
  sits_floorplan_free(flp);
  sits_hs_options_free(o);
}

/* a solve of b with (C + 1e-3 G) on a new solver of the grid */
static void wisdom_solve(const gsl_spmatrix *g, const double *c, size_t rows, size_t cols,
                         const double *b, double *x) {
  sits_err err = {0};
  sits_layergrid *s = sits_layergrid_new(g, c, rows, cols, 4, &err);
  cr_assert_not_null(s, "%s", err.msg);
  cr_assert_eq(sits_layergrid_setup(s, 1.0, 1e-3, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(sits_layergrid_solve(s, b, x, &err), SITS_OK, "%s", err.msg);
  sits_layergrid_free(s);
}

static bool starts_with_wisdom(const char *path) {
  char head[32] = {0};
  FILE *f = fopen(path, "r");
  if (!f)
    return false;
  size_t n = fread(head, 1, sizeof head - 1, f);
  fclose(f);
  return n > 10 && strncmp(head, "(fftw-3.", 8) == 0;
}

/* one grid's solve with the plans estimated, then with FFTW wisdom in @p where (SITS_FFTW_WISDOM
 * when not NULL, else the cache under XDG_CACHE_HOME = @p xdg) */
static void wisdom_case(size_t rows, size_t cols, const char *where, const char *xdg) {
  hs_grid h;
  sits_hs_network *net = hs_grid_new(&h, rows, cols, true);
  gsl_spmatrix *g = sits_thermal_conductance(sits_hs_thermal(net));
  double *c = capacities(sits_hs_thermal(net));
  size_t n = g->size1;
  double *b = malloc(n * sizeof *b), *ref = malloc(n * sizeof *ref), *x = malloc(n * sizeof *x);
  fill_rhs(b, n, 3u);
  setenv("SITS_FFTW_WISDOM", "off", 1);
  wisdom_solve(g, c, rows, cols, b, ref);
  if (where)
    setenv("SITS_FFTW_WISDOM", where, 1);
  else
    unsetenv("SITS_FFTW_WISDOM"), setenv("XDG_CACHE_HOME", xdg, 1);
  wisdom_solve(g, c, rows, cols, b, x); /* measured plans: the same solution to rounding */
  double scale = 0;
  for (size_t i = 0; i < n; i++)
    scale = fmax(scale, fabs(ref[i]));
  cr_assert_leq(max_diff(x, ref, n), 1e-12 * scale, "%zu x %zu", rows, cols);
  free(b), free(ref), free(x), free(c);
  gsl_spmatrix_free(g);
  hs_grid_free(&h);
}

/* FFT plans measured once and kept (in one process; FFTW's wisdom is process-wide, so reading
 * the file is tested across processes below): the file is written when a plan was measured,
 * not rewritten when none was, never written through a link, replaced when it held something
 * else, made in the cache folder by default, and not at all with SITS_FFTW_WISDOM=off. */
Test(layergrid, fftw_wisdom_is_kept, .timeout = 60) {
  char dir[] = "/tmp/sits-wisdom-XXXXXX", path[256], link_path[256], target[256], cache[256];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/w", dir);
  wisdom_case(13, 7, path, NULL);
  struct stat st, again;
  cr_assert_eq(stat(path, &st), 0, "no wisdom file written");
  cr_assert(S_ISREG(st.st_mode) && starts_with_wisdom(path));
  wisdom_case(13, 7, path, NULL); /* the plans are known now: nothing written */
  cr_assert_eq(stat(path, &again), 0);
  cr_assert_eq(st.st_ino, again.st_ino, "the wisdom was rewritten without a new plan");
  /* a link at the path: left as it is, its target untouched */
  snprintf(target, sizeof target, "%s/target", dir);
  snprintf(link_path, sizeof link_path, "%s/link", dir);
  FILE *f = fopen(target, "w");
  fputs("keep\n", f);
  fclose(f);
  cr_assert_eq(symlink(target, link_path), 0);
  wisdom_case(9, 14, link_path, NULL);
  cr_assert_eq(lstat(link_path, &st), 0);
  cr_assert(S_ISLNK(st.st_mode), "the link was replaced");
  char text[16] = {0};
  f = fopen(target, "r");
  cr_assert_not_null(fgets(text, sizeof text, f));
  fclose(f);
  cr_assert_str_eq(text, "keep\n");
  /* unreadable wisdom: the plans measured, the file replaced by FFTW's */
  f = fopen(path, "w");
  fputs("(not wisdom", f);
  fclose(f);
  wisdom_case(10, 5, path, NULL);
  cr_assert(starts_with_wisdom(path));
  /* the default place, its folders made; none with "off" */
  snprintf(cache, sizeof cache, "%s/cache", dir);
  wisdom_case(6, 11, NULL, cache);
  snprintf(path, sizeof path, "%s/cache/sitsenergy/fftw-wisdom", dir);
  cr_assert(starts_with_wisdom(path));
  snprintf(cache, sizeof cache, "%s/cache2", dir);
  setenv("XDG_CACHE_HOME", cache, 1);
  wisdom_case(7, 8, "off", NULL);
  cr_assert_neq(stat(cache, &st), 0, "wisdom kept with SITS_FFTW_WISDOM=off");
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_assert_eq(system(cmd), 0);
}

/* a 16 x 16 grid steady state by the CLI (a fresh process: FFTW's wisdom only from the file)
 * into @p out, with SITS_FFTW_WISDOM = @p wisdom */
static void cli_grid_steady(const char *wisdom, const char *out) {
  const char *in = SITS_TEST_DATA "/hotspot_ev6/inputs";
  char args[2048];
  snprintf(args, sizeof args,
           "hotspot -c %s/example2.config -f %s/ev6.flp -p %s/gcc.ptrace -materials_file "
           "%s/example.materials -model_type grid -grid_rows 16 -grid_cols 16 -steady_file '%s' "
           "--precision 9",
           in, in, in, in, out);
  setenv("SITS_FFTW_WISDOM", wisdom, 1);
  char *err = NULL;
  cr_assert_eq(tu_cli(args, NULL, &err), 0, "%s", err);
  free(err);
}

/* Across processes: the second run reads the plans the first measured (a run that could not
 * would measure again and replace the file), with the same answer; an unreadable file is
 * measured over and replaced by FFTW's text. */
Test(layergrid, fftw_wisdom_is_read_by_the_next_run, .timeout = 60) {
  char path[512], s1[512], s2[512], s3[512];
  snprintf(path, sizeof path, "%s/wisdom", tu_dir());
  snprintf(s1, sizeof s1, "%s/one.steady", tu_dir());
  snprintf(s2, sizeof s2, "%s/two.steady", tu_dir());
  snprintf(s3, sizeof s3, "%s/three.steady", tu_dir());
  cli_grid_steady(path, s1);
  struct stat st, again;
  cr_assert_eq(stat(path, &st), 0, "the first run kept no wisdom");
  cr_assert(starts_with_wisdom(path));
  cli_grid_steady(path, s2);
  cr_assert_eq(stat(path, &again), 0);
  cr_assert_eq(st.st_ino, again.st_ino, "the second run measured again: the wisdom was not read");
  char *a = tu_slurp(s1), *b = tu_slurp(s2);
  cr_assert_str_eq(a, b);
  FILE *f = fopen(path, "w");
  fputs("(fftw-3.3 not wisdom", f);
  fclose(f);
  cli_grid_steady(path, s3);
  cr_assert(starts_with_wisdom(path), "unreadable wisdom was not replaced");
  cr_assert_eq(stat(path, &again), 0);
  cr_assert_gt(again.st_size, 100);
  char *c = tu_slurp(s3); /* plans measured afresh may differ: equal to rounding */
  size_t rows = 0;
  for (char *p = a, *q = c; *p && *q; rows++) {
    char na[64], nc[64];
    double va, vc;
    int la = 0, lc = 0;
    cr_assert_eq(sscanf(p, "%63s %lf%n", na, &va, &la), 2);
    cr_assert_eq(sscanf(q, "%63s %lf%n", nc, &vc, &lc), 2);
    cr_assert_str_eq(na, nc);
    cr_assert_leq(fabs(va - vc), 1e-8, "%s: %.9f against %.9f", na, va, vc);
    p += la, q += lc;
    while (*p == '\n')
      p++;
    while (*q == '\n')
      q++;
  }
  cr_assert_gt(rows, 100);
  free(a), free(b), free(c);
}

/* An edge system past LAPACK_MIN_FLOPS (1e8): a 280 x 280 two-layer grid whose two edge
 * nodes differ (no parity blocks: one LU of 562 unknowns, 1.2e8 flops) goes to OpenBLAS's
 * LAPACK when it is installed (Debian's libopenblas0, which the build's CHOLMOD pulls in);
 * its solution equals GSL's (SITS_BLAS=gsl) and solves the system. */
Test(layergrid, large_edge_systems_on_openblas, .timeout = 120) {
  sits_thermal *th = mirror_network(280, 280, 3.0, 0.5, true);
  gsl_spmatrix *g = sits_thermal_conductance(th);
  double *c = capacities(th);
  size_t n = g->size1;
  double *b = malloc(n * sizeof *b),
         *x[2] = {malloc(n * sizeof(double)), malloc(n * sizeof(double))};
  fill_rhs(b, n, 9u);
  for (int k = 0; k < 2; k++) { /* OpenBLAS (where installed), then GSL's */
    if (k)
      setenv("SITS_BLAS", "gsl", 1);
    sits_err err = {0};
    sits_layergrid *s = sits_layergrid_new(g, c, 280, 280, 2, &err);
    cr_assert_not_null(s, "%s", err.msg);
    cr_assert_eq(sits_layergrid_edge_unknowns(s), 2 * 280 + 2);
    cr_assert_eq(sits_layergrid_setup(s, 1.0, 0.05, &err), SITS_OK, "%s", err.msg);
    cr_assert_eq(sits_layergrid_solve(s, b, x[k], &err), SITS_OK, "%s", err.msg);
    cr_assert_leq(residual(g, c, 1.0, 0.05, x[k], b), 1e-10);
    sits_layergrid_free(s);
  }
  unsetenv("SITS_BLAS");
  double scale = 0;
  for (size_t i = 0; i < n; i++)
    scale = fmax(scale, fabs(x[1][i]));
  cr_assert_leq(max_diff(x[0], x[1], n), 1e-10 * scale);
  free(b), free(x[0]), free(x[1]), free(c);
  gsl_spmatrix_free(g);
  sits_thermal_free(th);
}

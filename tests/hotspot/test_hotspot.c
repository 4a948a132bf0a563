/*
 * test_hotspot.c - the HotSpot-compatible networks against HotSpot's own outputs for its
 * ev6/gcc example (tests/data/hotspot_ev6, printed by HotSpot with 2 decimals), against an
 * exact solution computed here independently (a dense matrix exponential), on a non-square
 * non-power-of-two grid against a refined one, and the input error classes.
 *
 * Tolerances: HotSpot prints %.2f, so a printed value is within 0.005 K of its own; its
 * steady solves (dense LU, SuperLU) are exact for the network, so ours must be within
 * 0.005 K of its unrounded value, 0.010 K of the printed one. Its transients carry its RK4
 * error, up to ~0.05 K (docs/hotspot-model.md B10): 0.06 K.
 */
#include "test_util.h"

#include <gsl/gsl_linalg.h>

#include "sits_hotspot.h"

#define EV6 SITS_TEST_DATA "/hotspot_ev6"

typedef struct fixture {
  sits_hs_options *o;
  sits_hs_params p;
  sits_hs_model model;
  sits_floorplan *flp;
  sits_hs_trace *tr;
  sits_hs_network *net;
} fixture;

/* HotSpot's example: example.config (block) or example2.config + materials (grid). */
static void load(fixture *f, bool grid, const char *ptrace) {
  memset(f, 0, sizeof *f);
  sits_err err = {0};
  f->o = sits_hs_options_new();
  cr_assert_not_null(f->o);
  if (grid) {
    cr_assert_eq(
        sits_hs_options_set(f->o, "materials_file", EV6 "/inputs/example.materials", "test", &err),
        SITS_OK);
    cr_assert_eq(sits_hs_options_set(f->o, "model_type", "grid", "test", &err), SITS_OK);
  }
  cr_assert_eq(sits_hs_options_read_config(
                   f->o, grid ? EV6 "/inputs/example2.config" : EV6 "/inputs/example.config", &err),
               SITS_OK, "%s", err.msg);
  cr_assert_eq(sits_hs_options_params(f->o, &f->p, &f->model, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(f->model, grid ? SITS_HS_GRID : SITS_HS_BLOCK);
  cr_assert_eq(sits_hs_read_flp(EV6 "/inputs/ev6.flp", &f->flp, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(
      sits_hs_read_ptrace(ptrace ? ptrace : EV6 "/inputs/gcc.ptrace", f->flp, &f->tr, &err),
      SITS_OK, "%s", err.msg);
  cr_assert_eq(((f->net = sits_hs_network_new(f->flp, &f->p, f->model, &err)) ? SITS_OK : err.code),
               SITS_OK, "%s", err.msg);
}

static void unload(fixture *f) {
  sits_hs_network_free(f->net);
  sits_hs_trace_free(f->tr);
  sits_floorplan_free(f->flp);
  sits_hs_options_free(f->o);
}

static void mean_power(const fixture *f, double *w) {
  for (size_t b = 0; b < f->flp->n; b++) {
    w[b] = 0;
    for (size_t k = 0; k < f->tr->n_rows; k++)
      w[b] += f->tr->power_w[k * f->flp->n + b] / (double)f->tr->n_rows;
  }
}

/* `name value` lines (a .steady) into vals in our order; returns the count read. */
static size_t read_values(const char *path, const fixture *f, double *vals) {
  sits_err err = {0};
  cr_assert_eq(sits_hs_read_init(path, f->net, vals, &err), SITS_OK, "%s", err.msg);
  return 4 * f->flp->n + 12;
}

/* A .ttrace: rows x blocks in floorplan order (the header maps the columns). */
static double *read_ttrace(const char *path, const fixture *f, size_t *rows) {
  FILE *fp = fopen(path, "r");
  cr_assert_not_null(fp, "%s", path);
  char line[65536];
  cr_assert_not_null(fgets(line, sizeof line, fp));
  size_t n = f->flp->n, col[256], c = 0;
  for (char *save = NULL, *t = strtok_r(line, " \t\n", &save); t;
       t = strtok_r(NULL, " \t\n", &save))
    col[c++] = (size_t)sits_floorplan_find(f->flp, t);
  cr_assert_eq(c, n);
  double *v = malloc(200 * n * sizeof *v);
  *rows = 0;
  while (fgets(line, sizeof line, fp) && *rows < 200) {
    char *p = line;
    for (size_t k = 0; k < n; k++)
      v[*rows * n + col[k]] = strtod(p, &p);
    (*rows)++;
  }
  fclose(fp);
  return v;
}

Test(hotspot, block_steady_matches_hotspot) {
  fixture f;
  load(&f, false, NULL);
  size_t n = sits_hs_node_count(f.net), m = 4 * f.flp->n + 12;
  cr_assert_eq(n, 132);
  double w[64], *t = malloc(n * sizeof *t), *ref = malloc(m * sizeof *ref),
                *ours = malloc(m * sizeof *ours);
  mean_power(&f, w);
  sits_err err = {0};
  cr_assert_eq(sits_hs_steady(f.net, w, false, t, &err), SITS_OK, "%s", err.msg);
  sits_hs_block_values(f.net, t, ours);
  read_values(EV6 "/outputs_block/gcc.steady", &f, ref);
  double worst = 0;
  for (size_t k = 0; k < m; k++)
    worst = fmax(worst, fabs(ours[k] - ref[k]));
  cr_log_info("block steady: worst %.4f K over %zu nodes", worst, m);
  cr_assert_leq(worst, 0.010, "worst %g K", worst);
  free(t), free(ref), free(ours);
  unload(&f);
}

/* The transient from gcc.steady and from a uniform 318.15 K against HotSpot's RK4, and
 * against an exact solution built here: e^{A dt} by GSL's dense matrix exponential. */
Test(hotspot, block_transient_matches_hotspot_and_the_exact_solution) {
  fixture f;
  load(&f, false, NULL);
  size_t n = sits_hs_node_count(f.net), nb = f.flp->n, m = 4 * nb + 12;
  double dt = f.p.sampling_intvl_s;
  cr_assert_float_eq(dt, 0.01, 1e-15);
  /* the independent reference: dense A = -C^-1 G, e^{A dt} by gsl_linalg_exponential_ss,
   * T_inf by LU on dense G */
  const sits_thermal *th = sits_hs_thermal(f.net);
  gsl_spmatrix *gs = sits_thermal_conductance(th);
  gsl_matrix *g = gsl_matrix_calloc(n, n), *a = gsl_matrix_alloc(n, n),
             *ea = gsl_matrix_alloc(n, n);
  gsl_spmatrix_sp2d(g, gs);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      gsl_matrix_set(a, i, j,
                     -gsl_matrix_get(g, i, j) * dt / sits_thermal_capacity_j_per_k(th, (int)i));
  cr_assert_eq(gsl_linalg_exponential_ss(a, ea, GSL_PREC_DOUBLE), GSL_SUCCESS);
  gsl_permutation *perm = gsl_permutation_alloc(n);
  int sgn;
  gsl_linalg_LU_decomp(g, perm, &sgn);
  const char *inits[2] = {EV6 "/outputs_block/gcc.steady", NULL};
  const char *refs[2] = {EV6 "/outputs_block/gcc_from_init.ttrace",
                         EV6 "/outputs_block/gcc_from_inittemp318.15.ttrace"};
  for (int c = 0; c < 2; c++) {
    double *v0 = malloc(m * sizeof *v0), *t = malloc(n * sizeof *t);
    if (inits[c])
      read_values(inits[c], &f, v0);
    else
      for (size_t k = 0; k < m; k++)
        v0[k] = 318.15;
    sits_hs_init_map(f.net, v0, t);
    gsl_vector *x = gsl_vector_alloc(n), *tinf = gsl_vector_alloc(n), *b = gsl_vector_alloc(n),
               *d = gsl_vector_alloc(n);
    for (size_t i = 0; i < n; i++)
      gsl_vector_set(x, i, t[i]);
    sits_hs_transient *tr;
    sits_err err = {0};
    cr_assert_eq(((tr = sits_hs_transient_new(f.net, dt, t, NULL, &err)) ? SITS_OK : err.code),
                 SITS_OK, "%s", err.msg);
    size_t rows;
    double *ref = read_ttrace(refs[c], &f, &rows);
    cr_assert_eq(rows, f.tr->n_rows);
    double worst_hs = 0, worst_exact = 0;
    double *node_w = malloc(n * sizeof *node_w);
    for (size_t k = 0; k < rows; k++) {
      cr_assert_eq(sits_hs_transient_step(tr, f.tr->power_w + k * nb, t, &err), SITS_OK, "%s",
                   err.msg);
      sits_hs_power_map(f.net, f.tr->power_w + k * nb, node_w);
      for (size_t i = 0; i < n; i++)
        gsl_vector_set(
            b, i, node_w[i] + sits_thermal_ambient_conductance_w_per_k(th, (int)i) * f.p.ambient_k);
      gsl_linalg_LU_solve(g, perm, b, tinf);
      gsl_vector_memcpy(d, x);
      gsl_vector_sub(d, tinf);
      gsl_blas_dgemv(CblasNoTrans, 1.0, ea, d, 0.0, x);
      gsl_vector_add(x, tinf);
      for (size_t i = 0; i < n; i++)
        worst_exact = fmax(worst_exact, fabs(t[i] - gsl_vector_get(x, i)));
      for (size_t bk = 0; bk < nb; bk++)
        worst_hs = fmax(worst_hs, fabs(t[bk] - ref[k * nb + bk]));
    }
    cr_log_info("block transient %s: worst %.4f K vs HotSpot, %.2e K vs exact",
                inits[c] ? "from gcc.steady" : "from 318.15 K", worst_hs, worst_exact);
    cr_assert_leq(worst_hs, 0.06, "vs HotSpot %g K", worst_hs);
    cr_assert_leq(worst_exact, 0.001, "vs exact %g K", worst_exact);
    sits_hs_stats st;
    sits_hs_transient_stats(tr, &st);
    cr_assert_str_eq(st.method, "exact-zoh");
    sits_hs_transient_free(tr);
    free(v0), free(t), free(ref), free(node_w);
    gsl_vector_free(x), gsl_vector_free(tinf), gsl_vector_free(b), gsl_vector_free(d);
  }
  gsl_permutation_free(perm);
  gsl_matrix_free(g), gsl_matrix_free(a), gsl_matrix_free(ea);
  gsl_spmatrix_free(gs);
  unload(&f);
}

Test(hotspot, grid_64x64_steady_matches_hotspot_superlu) {
  fixture f;
  load(&f, true, NULL);
  cr_assert_eq(f.p.grid_rows, 64);
  cr_assert_float_eq(f.p.k_spreader_w_per_mk, 237.0, 1e-12); /* -material_spreader aluminum */
  cr_assert_float_eq(f.p.k_chip_w_per_mk, 130.0, 1e-12);
  size_t n = sits_hs_node_count(f.net), m = 4 * f.flp->n + 12;
  cr_assert_eq(n, 4 * 64 * 64 + 12);
  double w[64], *t = malloc(n * sizeof *t), *ref = malloc(m * sizeof *ref),
                *ours = malloc(m * sizeof *ours);
  mean_power(&f, w);
  sits_err err = {0};
  cr_assert_eq(sits_hs_steady(f.net, w, false, t, &err), SITS_OK, "%s", err.msg);
  sits_hs_block_values(f.net, t, ours);
  read_values(EV6 "/outputs_grid64/gcc.steady.superlu", &f, ref);
  double worst = 0;
  for (size_t k = 0; k < m; k++)
    worst = fmax(worst, fabs(ours[k] - ref[k]));
  /* every cell of the 4 layers */
  FILE *fp = fopen(EV6 "/outputs_grid64/gcc.grid.steady.superlu", "r");
  cr_assert_not_null(fp);
  char line[256];
  size_t layer = 0, cells = 0;
  double worst_cell = 0;
  while (fgets(line, sizeof line, fp)) {
    size_t idx;
    double v;
    if (sscanf(line, "Layer %zu:", &layer) == 1)
      continue;
    if (sscanf(line, "%zu %lf", &idx, &v) == 2) {
      worst_cell = fmax(worst_cell, fabs(t[layer * 4096 + idx] - v));
      cells++;
    }
  }
  fclose(fp);
  cr_log_info("grid steady: worst %.4f K (blocks), %.4f K (%zu cells)", worst, worst_cell, cells);
  cr_assert_eq(cells, 4 * 4096);
  cr_assert_leq(worst, 0.010);
  cr_assert_leq(worst_cell, 0.010);
  free(t), free(ref), free(ours);
  unload(&f);
}

/* The grid transient from gcc.init (HotSpot's example2) against HotSpot's RK4 output: the
 * default fixed-step ESDIRK over the first 20 intervals, CVODE over the first 5 (CVODE on
 * 16,396 states takes ~1 s per interval here: whole runs belong to the benchmark). */
static double grid_transient(const sits_hs_transient_opts *o, size_t n_rows, const char **method) {
  fixture f;
  load(&f, true, NULL);
  size_t n = sits_hs_node_count(f.net), nb = f.flp->n, m = 4 * nb + 12;
  double *v0 = malloc(m * sizeof *v0), *t = malloc(n * sizeof *t), vals[4 * 64 + 12];
  read_values(EV6 "/outputs_grid64/gcc.init", &f, v0);
  sits_hs_init_map(f.net, v0, t);
  sits_hs_transient *tr;
  sits_err err = {0};
  cr_assert_eq(
      ((tr = sits_hs_transient_new(f.net, f.p.sampling_intvl_s, t, o, &err)) ? SITS_OK : err.code),
      SITS_OK, "%s", err.msg);
  size_t rows;
  double *ref = read_ttrace(EV6 "/outputs_grid64/gcc_from_init.ttrace.rk4", &f, &rows);
  double worst = 0;
  for (size_t k = 0; k < n_rows; k++) {
    cr_assert_eq(sits_hs_transient_step(tr, f.tr->power_w + k * nb, t, &err), SITS_OK, "%s",
                 err.msg);
    sits_hs_block_values(f.net, t, vals);
    for (size_t b = 0; b < nb; b++)
      worst = fmax(worst, fabs(vals[b] - ref[k * nb + b]));
  }
  sits_hs_stats st;
  sits_hs_transient_stats(tr, &st);
  *method = st.method;
  cr_log_info("grid transient, %zu intervals, %s: worst %.4f K vs HotSpot's RK4 (%ld steps, %ld "
              "setups)",
              n_rows, st.method, worst, st.steps, st.lin_setups);
  sits_hs_transient_free(tr);
  free(v0), free(t), free(ref);
  unload(&f);
  return worst;
}

Test(hotspot, grid_transient_matches_hotspot_rk4, .timeout = 120) {
  const char *method;
  double fast = grid_transient(NULL, 20, &method);
  cr_assert_leq(fast, 0.06);
  cr_assert_str_eq(method, "arkode-esdirk-layergrid");
  sits_hs_transient_opts general = {.general = true}; /* the same steps through CHOLMOD */
  double sparse = grid_transient(&general, 20, &method);
  cr_assert_str_eq(method, "arkode-esdirk-cholmod");
  cr_assert_float_eq(fast, sparse, 1e-7, "the two Newton solvers give the same steps");
  sits_hs_transient_opts cv = {.cvode = true};
  cr_assert_leq(grid_transient(&cv, 5, &method), 0.06);
  cr_assert_str_eq(method, "cvode-bdf-klu");
}

/* One 16 x 12 mm block at a uniform 40 W: a 6 x 10 grid (non-square, non-power-of-two cells)
 * against a 3x refined 18 x 30 grid; with the geometric lateral orientation the block value
 * converges, with HotSpot's transposed one the coarse grid differs. */
static double uniform_die(size_t rows, size_t cols, bool transpose) {
  sits_flp_block b = {.name = "die", .w_m = 0.016, .h_m = 0.012, .x_m = 0, .y_m = 0, .line = 1};
  sits_floorplan *flp;
  sits_err err = {0};
  cr_assert_eq(((flp = sits_floorplan_new(&b, 1, "die.flp", &err)) ? SITS_OK : err.code), SITS_OK,
               "%s", err.msg);
  sits_hs_params p;
  sits_hs_params_default(&p);
  p.grid_rows = rows, p.grid_cols = cols, p.map_mode = SITS_HS_MAP_AVG;
  p.transpose_lateral = transpose;
  sits_hs_network *net;
  cr_assert_eq(((net = sits_hs_network_new(flp, &p, SITS_HS_GRID, &err)) ? SITS_OK : err.code),
               SITS_OK, "%s", err.msg);
  size_t n = sits_hs_node_count(net);
  double w = 40.0, *t = malloc(n * sizeof *t), vals[16];
  cr_assert_eq(sits_hs_steady(net, &w, false, t, &err), SITS_OK, "%s", err.msg);
  sits_hs_block_values(net, t, vals);
  free(t);
  sits_hs_network_free(net);
  sits_floorplan_free(flp);
  return vals[0];
}

Test(hotspot, non_square_grid_agrees_with_a_refined_grid) {
  double coarse = uniform_die(6, 10, false), fine = uniform_die(18, 30, false);
  double coarse_hs = uniform_die(6, 10, true);
  cr_log_info("uniform die: 6x10 %.4f K, 18x30 %.4f K, 6x10 transposed %.4f K", coarse, fine,
              coarse_hs);
  cr_assert_lt(fabs(coarse - fine), 0.05, "%g vs %g", coarse, fine);
  cr_assert_gt(coarse, 318.15 + 1.0); /* it did heat up */
}

/* ---- errors ------------------------------------------------------------------------- */

static void expect(int rc, int want, const sits_err *err, const char *text) {
  cr_assert_eq(rc, want, "rc %d: %s", rc, err->msg);
  cr_assert(strstr(err->msg, text), "'%s' lacks '%s'", err->msg, text);
}

Test(hotspot, unknown_options_name_the_nearest) {
  sits_hs_options *o = sits_hs_options_new();
  sits_err err = {0};
  expect(sits_hs_options_set(o, "k_chp", "100", "command line", &err), SITS_EINPUT, &err,
         "command line: unknown option '-k_chp' (did you mean '-k_chip'?)");
  char *cfg = tu_write("bad.config", "# ok\n\t-k_chip 130\n\t-t_spredaer 0.001\n");
  expect(sits_hs_options_read_config(o, cfg, &err), SITS_EINPUT, &err,
         "bad.config:3: unknown option '-t_spredaer' (did you mean '-t_spreader'?)");
  free(cfg);
  cfg = tu_write("bad2.config", "-k_chip abc\n");
  sits_hs_options_free(o);
  o = sits_hs_options_new();
  cr_assert_eq(sits_hs_options_read_config(o, cfg, &err), SITS_OK);
  sits_hs_params p;
  sits_hs_model m;
  expect(sits_hs_options_params(o, &p, &m, &err), SITS_EINPUT, &err,
         "bad2.config:1: -k_chip 'abc' is not a number");
  free(cfg);
  /* the command line wins over the config file */
  sits_hs_options_free(o);
  o = sits_hs_options_new();
  cr_assert_eq(sits_hs_options_set(o, "k_chip", "150", "command line", &err), SITS_OK);
  cfg = tu_write("cfg3.config", "-k_chip 130\n-model_secondary 1\n");
  cr_assert_eq(sits_hs_options_read_config(o, cfg, &err), SITS_OK);
  cr_assert_str_eq(sits_hs_options_get(o, "k_chip"), "150");
  expect(sits_hs_options_params(o, &p, &m, &err), SITS_EUNSUPPORTED, &err,
         "cfg3.config:2: -model_secondary 1 is not supported");
  free(cfg);
  sits_hs_options_free(o);
}

Test(hotspot, floorplan_and_trace_errors) {
  sits_floorplan *flp = NULL;
  sits_err err = {0};
  char *p = tu_write("overlap.flp", "# two blocks\na 0.002 0.002 0 0\nb 0.002 0.002 0.001 0.001\n");
  expect(sits_hs_read_flp(p, &flp, &err), SITS_EINPUT, &err,
         "overlap.flp:3: block 'b' overlaps block 'a' (line 2)");
  free(p);
  p = tu_write("bad.flp", "a 0.002 0.002 0 zero\n");
  expect(sits_hs_read_flp(p, &flp, &err), SITS_EINPUT, &err, "bad.flp:1: 'zero' is not a number");
  free(p);
  p = tu_write("dup.flp", "a 0.002 0.002 0 0\na 0.002 0.002 0.002 0\n");
  expect(sits_hs_read_flp(p, &flp, &err), SITS_EINPUT, &err, "dup.flp:2: block 'a' is already");
  free(p);
  /* connectivity lines are skipped, as HotSpot does */
  p = tu_write("ok.flp", "a 0.002 0.002 0 0\nb 0.002 0.002 0.002 0\n\na b 0.5\n");
  cr_assert_eq(sits_hs_read_flp(p, &flp, &err), SITS_OK, "%s", err.msg);
  free(p);
  cr_assert_eq(flp->n, 2);
  cr_assert_float_eq(flp->width_m, 0.004, 1e-15);
  sits_hs_trace *tr = NULL;
  p = tu_write("cols.ptrace", "a c\n1 2\n");
  expect(sits_hs_read_ptrace(p, flp, &tr, &err), SITS_EINPUT, &err,
         "cols.ptrace:1: column 'c' is not a block of the floorplan");
  free(p);
  p = tu_write("n.ptrace", "a\n1\n");
  expect(sits_hs_read_ptrace(p, flp, &tr, &err), SITS_EINPUT, &err,
         "n.ptrace:1: the power trace has 1 columns but the floorplan 2 blocks");
  free(p);
  p = tu_write("row.ptrace", "b a\n1 2\n3\n");
  expect(sits_hs_read_ptrace(p, flp, &tr, &err), SITS_EINPUT, &err,
         "row.ptrace:3: 1 values for the 2 columns");
  free(p);
  p = tu_write("good.ptrace", "b a\n1 2\n");
  cr_assert_eq(sits_hs_read_ptrace(p, flp, &tr, &err), SITS_OK, "%s", err.msg);
  cr_assert_float_eq(tr->power_w[0], 2.0, 0); /* floorplan order: a first */
  cr_assert_float_eq(tr->power_w[1], 1.0, 0);
  sits_hs_trace_free(tr);
  free(p);
  /* a die larger than the spreader, a spreader larger than the sink */
  sits_hs_params prm;
  sits_hs_params_default(&prm);
  prm.s_spreader_m = 0.003;
  sits_hs_network *net = NULL;
  expect(((net = sits_hs_network_new(flp, &prm, SITS_HS_BLOCK, &err)) ? SITS_OK : err.code),
         SITS_EINPUT, &err, "must be smaller than the spreader");
  sits_hs_params_default(&prm);
  prm.s_sink_m = 0.02;
  expect(((net = sits_hs_network_new(flp, &prm, SITS_HS_BLOCK, &err)) ? SITS_OK : err.code),
         SITS_EINPUT, &err, "must be smaller than the sink");
  sits_floorplan_free(flp);
}

/* HotSpot's steady leakage loop: the result is a fixed point of T = G^-1 (P + leak(T) + g Ta)
 * to the loop's 0.01 K, and hotter than without leakage. */
Test(hotspot, steady_leakage_loop) {
  fixture f;
  load(&f, false, NULL);
  size_t n = sits_hs_node_count(f.net), nb = f.flp->n;
  double w[64], w2[64], *t0 = malloc(n * sizeof *t0), *t = malloc(n * sizeof *t),
                        *t2 = malloc(n * sizeof *t2);
  mean_power(&f, w);
  sits_err err = {0};
  cr_assert_eq(sits_hs_steady(f.net, w, false, t0, &err), SITS_OK);
  cr_assert_eq(sits_hs_steady(f.net, w, true, t, &err), SITS_OK, "%s", err.msg);
  double leak = 0;
  for (size_t b = 0; b < nb; b++) {
    w2[b] = w[b] + sits_hs_leakage_w(f.net, b, t[b]);
    leak += w2[b] - w[b];
    cr_assert_gt(t[b], t0[b]);
  }
  /* alpha 1.5e4 W/m^2 over the 16 x 16 mm die at ~330 K: ~0.5 W in all */
  cr_log_info("leakage %.3f W", leak);
  cr_assert(leak > 0.1 && leak < 5, "%g W", leak);
  cr_assert_eq(sits_hs_steady(f.net, w2, false, t2, &err), SITS_OK);
  for (size_t i = 0; i < n; i++)
    cr_assert_lt(fabs(t2[i] - t[i]), 0.01);
  free(t0), free(t), free(t2);
  unload(&f);
}

/* ---- a floorplan inside a platform --------------------------------------------------- */

/* The gcc trace as a workload trace (power_w.<block> columns, 10 ms rows) and a scenario on
 * a platform whose thermal network is ev6.flp with example.config, at HotSpot's 45 C. */
static sits_scenario *ev6_scenario(const fixture *f, const char *extra) {
  char path[600];
  snprintf(path, sizeof path, "%s/gcc_trace.csv", tu_dir());
  FILE *fp = fopen(path, "w");
  cr_assert_not_null(fp);
  fputs("time_s", fp);
  for (size_t b = 0; b < f->flp->n; b++)
    fprintf(fp, ",power_w.%s", f->flp->b[b].name);
  for (size_t k = 0; k < f->tr->n_rows; k++) {
    fprintf(fp, "\n%.2f", 0.01 * (double)k);
    for (size_t b = 0; b < f->flp->n; b++)
      fprintf(fp, ",%.17g", f->tr->power_w[k * f->flp->n + b]);
  }
  fputc('\n', fp);
  fclose(fp);
  char text[4096];
  snprintf(text, sizeof text,
           "platform = { thermal = { hotspot = { flp = \"%s/inputs/ev6.flp\"; config = "
           "\"%s/inputs/example.config\"; model = \"block\"; }; }; };\n"
           "workload = { trace = \"%s\"; };\nambient_c = 45.0;\nduration_s = 1.0;\n"
           "sample_period_s = 0.01;\n%s",
           EV6, EV6, path, extra);
  return tu_load("ev6_platform.cfg", text);
}

Test(hotspot, floorplan_platform_steady_and_run_match_hotspot) {
  fixture f;
  load(&f, false, NULL);
  sits_scenario *sc = ev6_scenario(&f, "");
  const sits_thermal *th = sits_scenario_thermal(sc);
  cr_assert_eq(sits_thermal_node_count(th), 132);
  cr_assert_eq(sits_thermal_find(th, "IntExec"), 25);
  cr_assert(sits_thermal_is_junction(th, 25));
  cr_assert_eq(sits_thermal_find(th, "hsink_L2"), 91);
  cr_assert_eq(sits_thermal_find(th, "inode_11"), 131);
  /* the steady state of the trace's mean power: HotSpot's gcc.steady */
  sits_steady_state st;
  sits_err err = {0};
  cr_assert_eq(sits_steady(sc, &st, &err), SITS_OK, "%s", err.msg);
  double ref[132];
  read_values(EV6 "/outputs_block/gcc.steady", &f, ref);
  double worst = 0;
  for (size_t i = 0; i < 132; i++)
    worst = fmax(worst, fabs(st.temp_c[i] + SITS_KELVIN - ref[i]));
  sits_steady_release(&st);
  cr_assert_leq(worst, 0.010, "steady %g K", worst);
  /* the run (CVODE on the same network) from 45 C everywhere: HotSpot's transient from a
   * uniform 318.15 K */
  sits_result *r = tu_run(sc);
  size_t rows;
  double *tt = read_ttrace(EV6 "/outputs_block/gcc_from_inittemp318.15.ttrace", &f, &rows);
  const double *ts = sits_result_time_s(r);
  double worst_t = 0;
  size_t matched = 0;
  for (size_t k = 0; k < sits_result_sample_count(r); k++) {
    long row = lround(ts[k] / 0.01) - 1;
    if (row < 0 || row >= (long)rows || fabs(ts[k] - 0.01 * (double)(row + 1)) > 1e-9)
      continue;
    for (size_t b = 0; b < f.flp->n; b++)
      worst_t = fmax(worst_t, fabs(sits_result_temp_c(r, k, b) + SITS_KELVIN -
                                   tt[(size_t)row * f.flp->n + b]));
    matched++;
  }
  cr_log_info("ev6 platform: steady %.4f K, run %.4f K from HotSpot (%zu rows)", worst, worst_t,
              matched);
  cr_assert_geq(matched, 99);
  cr_assert_leq(worst_t, 0.06);
  free(tt);
  sits_result_free(r);
  sits_scenario_free(sc);
  unload(&f);
}

/* A grid floorplan platform (ev6, example2's materials, 16 x 12 cells, the geometric form):
 * three domains of constant power over blocks, run by the engine (CVODE) and steady, against
 * the same network driven by the same block powers through sits_hs (its own power map and
 * a fine fixed-step ESDIRK / a direct steady solve). */
static sits_scenario *grid_scenario(size_t rows, size_t cols, bool compat, const char *extra) {
  char text[4096];
  snprintf(text, sizeof text,
           "platform = { thermal = { hotspot = { flp = \"%s/inputs/ev6.flp\"; config = "
           "\"%s/inputs/example2.config\"; materials = \"%s/inputs/example.materials\"; "
           "model = \"grid\"; rows = %zu; cols = %zu; compat = %s; }; };\n"
           "  static_w = 3.0; static_node = \"Icache\";\n"
           "  domains = ( { name = \"int\"; node = \"IntReg_0\"; idle_w = 5.0; ceff_f = 1e-12;\n"
           "                opp = ( { freq_mhz = 1000.0; volt_v = 0.9; } ); %s },\n"
           "              { name = \"fp\"; nodes = [\"FPMul_0\", \"FPMul_1\"]; fractions = [0.5, "
           "0.5]; idle_w = 4.0; ceff_f = 1e-12;\n"
           "                opp = ( { freq_mhz = 1000.0; volt_v = 0.9; } ); },\n"
           "              { name = \"mem\"; node = \"L2\"; idle_w = 10.0; ceff_f = 1e-12;\n"
           "                opp = ( { freq_mhz = 1000.0; volt_v = 0.9; } ); } ); };\n"
           "workload = { phases = ( { duration_s = 0.05; demand = { int = 0.0; fp = 0.0; mem = "
           "0.0; }; } ); };\nambient_c = 45.0;\nsample_period_s = 0.01;\n",
           EV6, EV6, EV6, rows, cols, compat ? "true" : "false", extra);
  return tu_load("ev6_grid_platform.cfg", text);
}

Test(hotspot, grid_floorplan_platform_matches_the_grid_network, .timeout = 60) {
  const size_t R = 16, C = 12, n = 4 * R * C + 12;
  sits_scenario *sc = grid_scenario(R, C, false, "");
  const sits_thermal *th = sits_scenario_thermal(sc);
  cr_assert_eq(sits_thermal_node_count(th), n);
  int reg = sits_thermal_find(th, "IntReg_0"), sink = sits_thermal_find(th, "hsink_IntReg_0");
  cr_assert(reg >= 0 && (size_t)reg < R * C, "a silicon cell: %d", reg);
  cr_assert_eq(sink, reg + (int)(3 * R * C), "the same cell in the sink layer");
  cr_assert(sits_thermal_is_junction(th, reg));
  cr_assert_str_eq(sits_thermal_name(th, 0), "L0_0_0");
  size_t nd;
  const sits_domain *dom = sits_scenario_domains(sc, &nd);
  cr_assert_eq(nd, 3);
  cr_assert_gt(dom[1].n_nodes, 2, "the FP blocks spread over their cells");
  /* the reference: the same network and block powers through sits_hs */
  fixture f;
  load(&f, true, NULL);
  sits_hs_network_free(f.net);
  f.p.grid_rows = R, f.p.grid_cols = C;
  f.p.transpose_lateral = false, f.p.hotspot_init_map = false;
  sits_err err = {0};
  cr_assert_eq(
      ((f.net = sits_hs_network_new(f.flp, &f.p, SITS_HS_GRID, &err)) ? SITS_OK : err.code),
      SITS_OK, "%s", err.msg);
  double *bw = calloc(f.flp->n, sizeof *bw), *t = malloc(n * sizeof *t);
  bw[sits_floorplan_find(f.flp, "IntReg_0")] = 5.0;
  bw[sits_floorplan_find(f.flp, "FPMul_0")] = 2.0;
  bw[sits_floorplan_find(f.flp, "FPMul_1")] = 2.0;
  bw[sits_floorplan_find(f.flp, "L2")] = 10.0;
  bw[sits_floorplan_find(f.flp, "Icache")] = 3.0; /* static_w on a block: over its cells too */
  f.p.ambient_k = 45.0 + SITS_KELVIN;
  /* steady: both direct solves of the same equations */
  sits_hs_network_free(f.net);
  cr_assert_eq(
      ((f.net = sits_hs_network_new(f.flp, &f.p, SITS_HS_GRID, &err)) ? SITS_OK : err.code),
      SITS_OK);
  cr_assert_eq(sits_hs_steady(f.net, bw, false, t, &err), SITS_OK, "%s", err.msg);
  sits_steady_state st;
  cr_assert_eq(sits_steady(sc, &st, &err), SITS_OK, "%s", err.msg);
  double worst = 0;
  for (size_t i = 0; i < n; i++)
    worst = fmax(worst, fabs(st.temp_c[i] + SITS_KELVIN - t[i]));
  cr_assert_leq(worst, 1e-6, "steady %g K", worst);
  sits_steady_release(&st);
  /* compat = true: HotSpot's transposed lateral resistances (these cells are 1 x 1.33 mm) */
  double *tq = malloc(n * sizeof *tq);
  sits_hs_network *quirk;
  f.p.transpose_lateral = true;
  cr_assert_eq(
      ((quirk = sits_hs_network_new(f.flp, &f.p, SITS_HS_GRID, &err)) ? SITS_OK : err.code),
      SITS_OK);
  cr_assert_eq(sits_hs_steady(quirk, bw, false, tq, &err), SITS_OK, "%s", err.msg);
  sits_scenario *sq = grid_scenario(R, C, true, "");
  cr_assert_eq(sits_steady(sq, &st, &err), SITS_OK, "%s", err.msg);
  double worst_q = 0, moved = 0;
  for (size_t i = 0; i < n; i++) {
    worst_q = fmax(worst_q, fabs(st.temp_c[i] + SITS_KELVIN - tq[i]));
    moved = fmax(moved, fabs(tq[i] - t[i]));
  }
  cr_assert_leq(worst_q, 1e-6, "compat steady %g K", worst_q);
  cr_assert_gt(moved, 0.01, "the quirk changes this grid's answer (%g K)", moved);
  sits_steady_release(&st);
  sits_scenario_free(sq);
  sits_hs_network_free(quirk);
  free(tq);
  f.p.transpose_lateral = false;
  /* transient from 45 C everywhere */
  for (size_t i = 0; i < n; i++)
    t[i] = 45.0 + SITS_KELVIN;
  sits_hs_transient *tr;
  sits_hs_transient_opts o = {.substeps = 64}; /* fine steps: the reference's error << CVODE's */
  cr_assert_eq(((tr = sits_hs_transient_new(f.net, 0.01, t, &o, &err)) ? SITS_OK : err.code),
               SITS_OK, "%s", err.msg);
  sits_result *r = tu_run(sc);
  const double *ts = sits_result_time_s(r);
  double worst_t = 0;
  size_t matched = 0;
  for (size_t k = 0, row = 1; k < sits_result_sample_count(r) && row <= 5; k++) {
    if (fabs(ts[k] - 0.01 * (double)row) > 1e-9)
      continue;
    cr_assert_eq(sits_hs_transient_step(tr, bw, t, &err), SITS_OK, "%s", err.msg);
    for (size_t i = 0; i < n; i++)
      worst_t = fmax(worst_t, fabs(sits_result_temp_c(r, k, i) + SITS_KELVIN - t[i]));
    matched++, row++;
  }
  cr_log_info("grid platform %zu x %zu: steady %.2e K, run %.4f K from sits_hs (%zu samples)", R, C,
              worst, worst_t, matched);
  cr_assert_eq(matched, 5);
  cr_assert_leq(worst_t, 0.01);
  sits_hs_transient_free(tr);
  sits_result_free(r);
  free(bw), free(t);
  unload(&f);
  sits_scenario_free(sc);
}

/* The steady state with temperature-dependent leakage by KINSOL + KLU (sparse Newton):
 * (1) on the shipped ev6 block platform it equals the dense Newton (solver.linear_solver picks
 * the algebra) to 1e-7 K; (2) on a 4,108-node grid platform, where the dense Newton would hold
 * 135 MB, it balances: the power in, leakage at the solved temperatures included, equals the
 * heat to the ambient, and leakage makes it hotter than the leakage-free state. */
Test(hotspot, steady_leakage_by_sparse_newton, .timeout = 60) {
  sits_steady_state dense, sparse;
  sits_err err = {0};
  char text[2048];
  for (int k = 0; k < 2; k++) {
    snprintf(text, sizeof text,
             "platform = \"%s/platforms/ev6_floorplan.cfg\";\n"
             "workload = { phases = ( { duration_s = 10.0; demand = { int = 1.0; fp = 0.6; mem "
             "= 0.8; }; } ); };\nambient_c = 55.0;\nsolver = { linear_solver = \"%s\"; };\n",
             SITS_CONFIGS, k ? "klu" : "dense");
    sits_scenario *sc = tu_load("ev6_leak.cfg", text);
    cr_assert_eq(sits_steady(sc, k ? &sparse : &dense, &err), SITS_OK, "%s", err.msg);
    sits_scenario_free(sc);
  }
  cr_assert(!dense.runaway && !sparse.runaway);
  double worst = 0;
  for (size_t i = 0; i < dense.n; i++)
    worst = fmax(worst, fabs(dense.temp_c[i] - sparse.temp_c[i]));
  cr_log_info("ev6 block platform with leakage: sparse vs dense Newton %.2e K (max %.2f C)", worst,
              dense.max_junction_temp_c);
  cr_assert_leq(worst, 1e-7);
  sits_steady_release(&dense), sits_steady_release(&sparse);
  /* a 32 x 32 grid platform */
  sits_scenario *sc = grid_scenario(32, 32, false, "leak_ref_w = 0.5; leak_per_k = 0.02;");
  sits_steady_state st, cold;
  cr_assert_eq(sits_steady(sc, &st, &err), SITS_OK, "%s", err.msg);
  cr_assert(!st.runaway);
  const sits_thermal *th = sits_scenario_thermal(sc);
  double out = 0;
  for (size_t i = 0; i < st.n; i++)
    out += sits_thermal_ambient_conductance_w_per_k(th, (int)i) * (st.temp_c[i] - st.ambient_c);
  cr_log_info("grid platform with leakage: %.6f W in, %.6f W out", st.total_power_w, out);
  cr_assert_float_eq(out, st.total_power_w, 1e-7 * st.total_power_w);
  sits_scenario_free(sc);
  sc = grid_scenario(32, 32, false, "");
  cr_assert_eq(sits_steady(sc, &cold, &err), SITS_OK, "%s", err.msg);
  cr_assert_gt(st.total_power_w, cold.total_power_w + 0.5, "leakage adds at least its 0.5 W");
  cr_assert_gt(st.max_junction_temp_c, cold.max_junction_temp_c);
  sits_steady_release(&st), sits_steady_release(&cold);
  sits_scenario_free(sc);
  /* a power input naming a block would heat one cell: refused, pointing to domains */
  char msg[SITS_ERRMSG_MAX];
  snprintf(text, sizeof text,
           "platform = { thermal = { hotspot = { flp = \"%s/inputs/ev6.flp\"; model = \"grid\"; "
           "rows = 8; cols = 8; }; }; };\n"
           "workload = { phases = ( { duration_s = 1.0; power_w = { IntReg_0 = 2.0; }; } ); };\n",
           EV6);
  cr_assert_eq(tu_load_fail("ev6_grid_power.cfg", text, msg, sizeof msg), SITS_EUNSUPPORTED, "%s",
               msg);
  cr_assert(strstr(msg, "ev6_grid_power.cfg:2: power_w.IntReg_0: a block of a grid floorplan"),
            "%s", msg);
}

Test(hotspot, floorplan_platform_errors) {
  char msg[SITS_ERRMSG_MAX];
  char text[2048];
  snprintf(text, sizeof text,
           "platform = { thermal = { hotspot = { flp = \"%s/inputs/ev6.flp\"; model = \"mesh\"; }; "
           "}; };\nworkload = { phases = ( { duration_s = 1.0; } ); };\n",
           EV6);
  cr_assert_eq(tu_load_fail("ev6_mesh.cfg", text, msg, sizeof msg), SITS_EINPUT, "%s", msg);
  cr_assert(strstr(msg, "ev6_mesh.cfg:1: model 'mesh': expected \"block\" or \"grid\""), "%s", msg);
  snprintf(text, sizeof text,
           "platform = { thermal = { hotspot = { flp = \"%s/inputs/ev6.flp\"; model = \"grid\"; "
           "rows = 1.5; }; }; };\nworkload = { phases = ( { duration_s = 1.0; } ); };\n",
           EV6);
  cr_assert_eq(tu_load_fail("ev6_rows.cfg", text, msg, sizeof msg), SITS_EINPUT, "%s", msg);
  cr_assert(strstr(msg, "ev6_rows.cfg:1: 'rows' and 'cols' must be whole numbers"), "%s", msg);
  /* a block named like a grid cell cannot stand for its cells: its floorplan line is named */
  char *flp = tu_write("cellname.flp", "# two blocks\nL0_0_0\t0.01\t0.01\t0\t0\n"
                                       "b\t0.01\t0.01\t0.01\t0\n");
  snprintf(text, sizeof text,
           "platform = { thermal = { hotspot = { flp = \"%s\"; model = \"grid\"; rows = 4; "
           "cols = 8; }; }; };\nworkload = { phases = ( { duration_s = 1.0; } ); };\n",
           flp);
  cr_assert_eq(tu_load_fail("ev6_cellname.cfg", text, msg, sizeof msg), SITS_EINPUT, "%s", msg);
  cr_assert(strstr(msg, "ev6_cellname.cfg:1: ") && strstr(msg, "cellname.flp:2: block 'L0_0_0'") &&
                strstr(msg, "already a node name"),
            "%s", msg);
  free(flp);
  /* the group's model wins over a model_type among the HotSpot options */
  snprintf(text, sizeof text,
           "platform = { thermal = { hotspot = { flp = \"%s/inputs/ev6.flp\"; model = \"block\"; "
           "options = { model_type = \"grid\"; }; }; }; };\n"
           "workload = { phases = ( { duration_s = 1.0; } ); };\n",
           EV6);
  sits_scenario *blk = tu_load("ev6_block_wins.cfg", text);
  cr_assert_eq(sits_thermal_node_count(sits_scenario_thermal(blk)), 132);
  sits_scenario_free(blk);
  snprintf(text, sizeof text,
           "platform = { thermal = { hotspot = { flp = \"%s/inputs/ev6.flp\";\n options = { "
           "s_spreader = "
           "0.01; }; }; }; };\nworkload = { phases = ( { duration_s = 1.0; } ); };\n",
           EV6);
  cr_assert_eq(tu_load_fail("ev6_small.cfg", text, msg, sizeof msg), SITS_EINPUT, "%s", msg);
  cr_assert(strstr(msg, "ev6_small.cfg:1: ") && strstr(msg, "smaller than the spreader"), "%s",
            msg);
  snprintf(
      text, sizeof text,
      "platform = { thermal = { hotspot = { flp = \"%s/inputs/ev6.flp\";\n options = { k_chp = "
      "100.0; }; }; }; };\nworkload = { phases = ( { duration_s = 1.0; } ); };\n",
      EV6);
  cr_assert_eq(tu_load_fail("ev6_opt.cfg", text, msg, sizeof msg), SITS_EINPUT, "%s", msg);
  cr_assert(strstr(msg, "ev6_opt.cfg:2: unknown option '-k_chp' (did you mean '-k_chip'?)"), "%s",
            msg);
  snprintf(text, sizeof text,
           "platform = { thermal = { hotspot = { flp = \"missing.flp\"; }; }; };\n"
           "workload = { phases = ( { duration_s = 1.0; } ); };\n");
  cr_assert_eq(tu_load_fail("ev6_missing.cfg", text, msg, sizeof msg), SITS_EINPUT, "%s", msg);
  cr_assert(strstr(msg, "missing.flp: cannot open"), "%s", msg);
}

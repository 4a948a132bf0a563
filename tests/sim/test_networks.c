/*
 * test_networks.c - multi-node networks against the exact eigen-decomposition solution
 * (test_util.h, computed here with GSL), the steady state against a direct solve, and
 * the energy account.
 *
 * Tolerance 2e-4 K as in test_run_closed_form.c (measured worst errors 4e-5 to 6e-5 K). The stiff
 * case spans time constants from 1e-3 s to 1e2 s (5 decades).
 */
#include "test_util.h"

#include <gsl/gsl_rng.h>

#define TOL_K 2e-4

typedef struct net {
  size_t n;
  double c[128];
  double g_amb[128];
  gsl_matrix *g; /* full G including g_amb on the diagonal */
  char text[65536];
  size_t len;
} net;

static void net_init(net *nw, size_t n, const double *c) {
  nw->n = n;
  nw->g = gsl_matrix_calloc(n, n);
  nw->len = (size_t)snprintf(nw->text, sizeof nw->text, "platform = { thermal = {\n nodes = (");
  for (size_t i = 0; i < n; i++) {
    nw->c[i] = c[i];
    nw->g_amb[i] = 0;
    nw->len += (size_t)snprintf(nw->text + nw->len, sizeof nw->text - nw->len,
                                "%s{ name = \"n%zu\"; c_j_per_k = %.17g; junction = true; }",
                                i ? ", " : "", i, c[i]);
  }
  nw->len += (size_t)snprintf(nw->text + nw->len, sizeof nw->text - nw->len, " );\n links = (");
}

/* b = SIZE_MAX: to the ambient */
static void net_link(net *nw, size_t a, size_t b, double r, int first) {
  double g = 1.0 / r;
  char bname[32];
  if (b == (size_t)-1) {
    snprintf(bname, sizeof bname, "ambient");
    nw->g_amb[a] += g;
    gsl_matrix_set(nw->g, a, a, gsl_matrix_get(nw->g, a, a) + g);
  } else {
    snprintf(bname, sizeof bname, "n%zu", b);
    gsl_matrix_set(nw->g, a, a, gsl_matrix_get(nw->g, a, a) + g);
    gsl_matrix_set(nw->g, b, b, gsl_matrix_get(nw->g, b, b) + g);
    gsl_matrix_set(nw->g, a, b, gsl_matrix_get(nw->g, a, b) - g);
    gsl_matrix_set(nw->g, b, a, gsl_matrix_get(nw->g, b, a) - g);
  }
  nw->len += (size_t)snprintf(nw->text + nw->len, sizeof nw->text - nw->len,
                              "%s{ a = \"n%zu\"; b = \"%s\"; r_k_per_w = %.17g; }",
                              first ? "" : ", ", a, bname, r);
}

static void net_finish(net *nw, const char *rest) {
  nw->len +=
      (size_t)snprintf(nw->text + nw->len, sizeof nw->text - nw->len, " );\n}; };\n%s", rest);
}

/* Compares every sample of @p r with the exact solution for one constant-power segment
 * from t_from on, starting at temperatures t_start; returns the worst error [K]. */
static double compare(const net *nw, const sits_result *r, const double *p, double amb,
                      double t_from, double t_to, const double *t_start) {
  double b[128], out[128], worst = 0;
  for (size_t i = 0; i < nw->n; i++)
    b[i] = p[i] + nw->g_amb[i] * amb;
  for (size_t k = 0; k < sits_result_sample_count(r); k++) {
    double t = sits_result_time_s(r)[k];
    if (t < t_from || t > t_to)
      continue;
    tu_exact(nw->n, nw->c, nw->g, b, t_start, t - t_from, out);
    for (size_t i = 0; i < nw->n; i++)
      worst = fmax(worst, fabs(sits_result_temp_c(r, k, i) - out[i]));
  }
  return worst;
}

Test(networks, two_nodes_exact) {
  net nw;
  double c[2] = {0.5, 40.0}, t0[2] = {30, 30}, p[2] = {6.0, 0.0};
  net_init(&nw, 2, c);
  net_link(&nw, 0, 1, 0.8, 1);
  net_link(&nw, 1, (size_t)-1, 2.5, 0);
  net_finish(&nw, "workload = { phases = ( { duration_s = 300.0; power_w = { n0 = 6.0; }; } ); };\n"
                  "ambient_c = 30.0; sample_period_s = 0.25;\n");
  sits_scenario *sc = tu_load("two.cfg", nw.text);
  sits_result *r = tu_run(sc);
  double worst = compare(&nw, r, p, 30.0, 0, 300, t0);
  cr_log_info("worst error %g K", worst);
  cr_assert_lt(worst, TOL_K, "worst error %g K", worst);
  sits_result_free(r);
  sits_scenario_free(sc);
  gsl_matrix_free(nw.g);
}

/* A random connected 10-node network, two power segments, dense or KLU. */
/* linsol "dense" or "klu": the CVODE path with that linear solver; "exponential": the
 * exponential path, exact for a linear network (its worst error is asserted far tighter). */
static void ten_nodes(const char *linsol) {
  bool ex = strcmp(linsol, "exponential") == 0;
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 7);
  net nw;
  double c[10], t0[10], p1[10] = {0}, p2[10] = {0};
  for (int i = 0; i < 10; i++)
    c[i] = pow(10.0, -1 + 3 * gsl_rng_uniform(rng));
  net_init(&nw, 10, c);
  for (size_t i = 1; i < 10; i++) /* a random tree keeps it connected */
    net_link(&nw, i, gsl_rng_uniform_int(rng, i), 0.2 + 2 * gsl_rng_uniform(rng), i == 1);
  for (int k = 0; k < 6; k++) {
    size_t a = gsl_rng_uniform_int(rng, 10), b = gsl_rng_uniform_int(rng, 10);
    if (a != b)
      net_link(&nw, a, b, 0.5 + 5 * gsl_rng_uniform(rng), 0);
  }
  net_link(&nw, 9, (size_t)-1, 1.5, 0);
  net_link(&nw, 4, (size_t)-1, 3.0, 0);
  p1[0] = 4, p1[3] = 2.5, p2[0] = 1, p2[7] = 6;
  char rest[1024];
  snprintf(rest, sizeof rest,
           "workload = { phases = (\n"
           " { duration_s = 40.0; power_w = { n0 = 4.0; n3 = 2.5; }; },\n"
           " { duration_s = 60.0; power_w = { n0 = 1.0; n7 = 6.0; }; } ); };\n"
           "ambient_c = 25.0; sample_period_s = 0.5; solver = { %s%s%s };\n",
           ex ? "method = \"exponential\"; " : "method = \"cvode\"; linear_solver = \"",
           ex ? "" : linsol, ex ? "" : "\";");
  net_finish(&nw, rest);
  sits_scenario *sc = tu_load("ten.cfg", nw.text);
  sits_result *r = tu_run(sc);
  for (int i = 0; i < 10; i++)
    t0[i] = 25.0;
  double worst = compare(&nw, r, p1, 25.0, 0, 40, t0);
  /* second segment: start from the exact state at 40 s */
  double b[10], mid[10];
  for (int i = 0; i < 10; i++)
    b[i] = p1[i] + nw.g_amb[i] * 25.0;
  tu_exact(10, c, nw.g, b, t0, 40.0, mid);
  worst = fmax(worst, compare(&nw, r, p2, 25.0, 40, 100, mid));
  cr_log_info("worst error %g K (%s)", worst, linsol);
  /* exponential: the zero-order-hold update is exact up to rounding and the phi series
   * (~1e-14 relative per step, 200 steps) */
  cr_assert_lt(worst, ex ? 1e-9 : TOL_K, "worst error %g K (%s)", worst, linsol);
  sits_ode_stats st;
  sits_result_solver_stats(r, &st);
  cr_assert_eq(st.sparse, strcmp(linsol, "klu") == 0);
  cr_assert_str_eq(st.method, ex ? "exponential" : "cvode");
  cr_assert_eq(st.reinits, 1); /* one breakpoint at 40 s */
  sits_result_free(r);
  sits_scenario_free(sc);
  gsl_matrix_free(nw.g);
  gsl_rng_free(rng);
}

Test(networks, ten_nodes_dense) {
  ten_nodes("dense");
}
Test(networks, ten_nodes_klu) {
  ten_nodes("klu");
}
Test(networks, ten_nodes_exponential) {
  ten_nodes("exponential");
}

/* A chain whose node time constants go from 1e-3 s to 1e2 s. */
Test(networks, stiff_five_decades) {
  net nw;
  double c[6], t0[6], p[6] = {0};
  for (int i = 0; i < 6; i++)
    c[i] = pow(10.0, -3 + i); /* with ~1 K/W links: tau 1e-3 .. 1e2 s */
  net_init(&nw, 6, c);
  for (size_t i = 0; i + 1 < 6; i++)
    net_link(&nw, i, i + 1, 1.0, i == 0);
  net_link(&nw, 5, (size_t)-1, 1.0, 0);
  p[0] = 3.0;
  net_finish(&nw, "workload = { phases = ( { duration_s = 400.0; power_w = { n0 = 3.0; }; } ); };\n"
                  "ambient_c = 25.0; sample_period_s = 0.001; duration_s = 0.05;\n");
  sits_scenario *sc = tu_load("stiff_fast.cfg", nw.text);
  sits_result *r = tu_run(sc);
  for (int i = 0; i < 6; i++)
    t0[i] = 25.0;
  double worst = compare(&nw, r, p, 25.0, 0, 1e9, t0); /* the fast transient, 1 ms samples */
  sits_result_free(r);
  sits_scenario_free(sc);
  char text[70000];
  snprintf(text, sizeof text, "%s", nw.text);
  char *cut = strstr(text, "sample_period_s");
  snprintf(cut, sizeof text - (size_t)(cut - text), "sample_period_s = 2.0; duration_s = 400.0;\n");
  sc = tu_load("stiff_slow.cfg", text);
  r = tu_run(sc);
  worst = fmax(worst, compare(&nw, r, p, 25.0, 0, 1e9, t0)); /* the slow tail */
  cr_log_info("worst error %g K", worst);
  cr_assert_lt(worst, TOL_K, "worst error %g K", worst);
  sits_result_free(r);
  sits_scenario_free(sc);
  gsl_matrix_free(nw.g);
}

/* 150 nodes in a chain with side links: AUTO picks KLU, and the result is still exact. */
Test(networks, large_network_auto_klu) {
  net nw;
  double c[128], t0[128], p[128] = {0};
  size_t n = 120;
  for (size_t i = 0; i < n; i++)
    c[i] = 0.5 + (double)(i % 7);
  net_init(&nw, n, c);
  for (size_t i = 0; i + 1 < n; i++)
    net_link(&nw, i, i + 1, 0.3 + 0.01 * (double)(i % 5), i == 0);
  for (size_t i = 0; i + 10 < n; i += 10)
    net_link(&nw, i, i + 10, 2.0, 0);
  net_link(&nw, n - 1, (size_t)-1, 0.5, 0);
  net_link(&nw, 60, (size_t)-1, 4.0, 0);
  p[0] = 2.0, p[50] = 3.0;
  net_finish(
      &nw,
      "workload = { phases = ( { duration_s = 50.0; power_w = { n0 = 2.0; n50 = 3.0; }; } ); };\n"
      "ambient_c = 25.0; sample_period_s = 1.0; solver = { method = \"cvode\"; };\n");
  sits_scenario *sc = tu_load("large.cfg", nw.text);
  sits_result *r = tu_run(sc);
  sits_ode_stats st;
  sits_result_solver_stats(r, &st);
  cr_assert(st.sparse, "120 nodes should use KLU");
  for (size_t i = 0; i < n; i++)
    t0[i] = 25.0;
  double worst = compare(&nw, r, p, 25.0, 0, 1e9, t0);
  cr_log_info("worst error %g K", worst);
  cr_assert_lt(worst, TOL_K, "worst error %g K", worst);
  sits_result_free(r);
  sits_scenario_free(sc);
  gsl_matrix_free(nw.g);
}

/* The shipped demo: steady state of the averaged measured trace on the Orin NX network. */
Test(networks, steady_of_shipped_demo_matches_direct_solve) {
  char path[512];
  snprintf(path, sizeof path, "%s/scenarios/orin_nx_vlm_burst.cfg", SITS_CONFIGS);
  sits_scenario *sc = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_scenario_load(path, NULL, 0, &sc, &err), SITS_OK, "%s", err.msg);
  sits_steady_state st;
  cr_assert_eq(sits_steady(sc, &st, &err), SITS_OK, "%s", err.msg);
  /* rows are evenly spaced and the last holds one interval: the average is the row mean */
  snprintf(path, sizeof path, "%s/traces/orin_nano_vlm_burst_power.csv", SITS_CONFIGS);
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f);
  char line[256];
  double t, die, mod, sum_die = 0, sum_mod = 0;
  int rows = 0;
  cr_assert_not_null(fgets(line, sizeof line, f));
  while (fscanf(f, "%lf,%lf,%lf", &t, &die, &mod) == 3)
    sum_die += die, sum_mod += mod, rows++;
  fclose(f);
  /* G of configs/platforms/jetson_orin_nx_thermal.inc: R 0.257 die-module, 1.315
   * module-heatsink, 35.2 module-ambient, heatsink-ambient the fan's: the die settles above
   * the cool profile's last step (67.5 C), so at full speed, 2.183 K/W; ambient 30 C */
  cr_assert_eq(st.n_fans, 1);
  cr_assert_float_eq(st.fan_duty[0], 1.0, 0, "duty %g", st.fan_duty[0]);
  const double r_dm = 0.257, r_mh = 1.315, r_ma = 35.2, r_ha = 2.183;
  double b[3] = {sum_die / rows, sum_mod / rows + 30.0 / r_ma, 30.0 / r_ha}, x[3];
  double g[9] = {1 / r_dm,  -1 / r_dm, 0, -1 / r_dm, 1 / r_dm + 1 / r_mh + 1 / r_ma, -1 / r_mh,
                 0,         -1 / r_mh, 1 / r_mh + 1 / r_ha};
  gsl_matrix_view gv = gsl_matrix_view_array(g, 3, 3);
  gsl_permutation *perm = gsl_permutation_alloc(3);
  int sign;
  gsl_vector_view bv = gsl_vector_view_array(b, 3), xv = gsl_vector_view_array(x, 3);
  gsl_linalg_LU_decomp(&gv.matrix, perm, &sign);
  gsl_linalg_LU_solve(&gv.matrix, perm, &bv.vector, &xv.vector);
  for (int i = 0; i < 3; i++)
    cr_assert_float_eq(st.temp_c[i], x[i], 1e-6, "node %d: %g vs %g", i, st.temp_c[i], x[i]);
  cr_assert_float_eq(st.total_power_w, (sum_die + sum_mod) / rows, 1e-9);
  cr_assert_float_eq(st.max_junction_temp_c, x[0], 1e-6);
  cr_assert_not(st.runaway);
  gsl_permutation_free(perm);
  sits_steady_release(&st);
  sits_scenario_free(sc);
}

Test(networks, steady_equals_transient_limit) {
  net nw;
  double c[3] = {1.0, 10.0, 50.0};
  net_init(&nw, 3, c);
  net_link(&nw, 0, 1, 0.5, 1);
  net_link(&nw, 1, 2, 0.2, 0);
  net_link(&nw, 2, (size_t)-1, 0.8, 0);
  net_link(&nw, 1, (size_t)-1, 10.0, 0);
  net_finish(
      &nw,
      "workload = { phases = ( { duration_s = 5000.0; power_w = { n0 = 7.0; n1 = 1.0; }; } ); };\n"
      "ambient_c = 22.0; sample_period_s = 100.0;\n");
  sits_scenario *sc = tu_load("lim.cfg", nw.text);
  sits_steady_state st;
  sits_err err = {0};
  cr_assert_eq(sits_steady(sc, &st, &err), SITS_OK, "%s", err.msg);
  /* direct dense solve of G T = P + g_amb T_amb computed here */
  double b[3] = {7.0, 1.0 + 22.0 / 10.0, 22.0 / 0.8}, x[3];
  gsl_matrix *lu = gsl_matrix_alloc(3, 3);
  gsl_matrix_memcpy(lu, nw.g);
  gsl_permutation *perm = gsl_permutation_alloc(3);
  int sign;
  gsl_vector_view bv = gsl_vector_view_array(b, 3), xv = gsl_vector_view_array(x, 3);
  gsl_linalg_LU_decomp(lu, perm, &sign);
  gsl_linalg_LU_solve(lu, perm, &bv.vector, &xv.vector);
  for (int i = 0; i < 3; i++)
    cr_assert_float_eq(st.temp_c[i], x[i], 1e-9);
  cr_assert_float_eq(st.total_power_w, 8.0, 1e-12);
  /* the slowest time constant is ~60 s: after 5000 s the transient has settled */
  sits_result *r = tu_run(sc);
  size_t last = sits_result_sample_count(r) - 1;
  for (int i = 0; i < 3; i++)
    cr_assert_float_eq(sits_result_temp_c(r, last, (size_t)i), x[i], TOL_K);
  sits_result_free(r);
  gsl_matrix_free(lu);
  gsl_permutation_free(perm);
  sits_steady_release(&st);
  sits_scenario_free(sc);
  gsl_matrix_free(nw.g);
}

Test(networks, energy_balance) {
  char path[512];
  snprintf(path, sizeof path, "%s/scenarios/hotspot_3node_step.cfg", SITS_CONFIGS);
  sits_scenario *sc = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_scenario_load(path, NULL, 0, &sc, &err), SITS_OK, "%s", err.msg);
  sits_result *r = tu_run(sc);
  const sits_summary *s = sits_result_summary(r);
  /* 40 W for 5 s + 10 W for 25 s */
  cr_assert_float_eq(s->energy_j, 450.0, 1e-8);
  cr_assert_lt(s->energy_balance_rel, 1e-6);
  cr_assert_float_eq(s->energy_j, s->energy_stored_j + s->energy_to_ambient_j, 450.0 * 1e-6);
  sits_result_free(r);
  sits_scenario_free(sc);
}

/* A domain spread evenly over 20 nodes (more than the 16 a domain once held): each node
 * carries 1/20 of the domain's idle power, so each settles idle_w / 20 x R above ambient. */
Test(networks, domain_over_twenty_nodes) {
  char cfg[8192], *p = cfg;
  p += sprintf(p, "platform = { thermal = { nodes = (");
  for (int i = 0; i < 20; i++)
    p += sprintf(p, "%s{ name = \"n%d\"; c_j_per_k = 1.0; }", i ? ", " : "", i);
  p += sprintf(p, "); links = (");
  for (int i = 0; i < 20; i++)
    p += sprintf(p, "%s{ a = \"n%d\"; b = \"ambient\"; r_k_per_w = 2.0; }", i ? ", " : "", i);
  p += sprintf(p, "); };\n  domains = ( { name = \"soc\"; idle_w = 4.0; ceff_f = 1e-9; nodes = [");
  for (int i = 0; i < 20; i++)
    p += sprintf(p, "%s\"n%d\"", i ? ", " : "", i);
  sprintf(p, "];\n  opp = ( { freq_mhz = 1000.0; volt_v = 0.8; } ); } ); };\n"
             "ambient_c = 25.0;\n"
             "workload = { phases = ( { duration_s = 1; demand = { soc = 0.0; }; } ); };\n");
  sits_scenario *sc = tu_load("twenty.cfg", cfg);
  sits_steady_state st = {0};
  sits_err err = {0};
  cr_assert_eq(sits_steady(sc, &st, &err), SITS_OK, "%s", err.msg);
  for (int i = 0; i < 20; i++) /* 0.2 W through 2 K/W */
    cr_assert_float_eq(st.temp_c[i], 25.0 + 0.4, 1e-9, "node %d: %g", i, st.temp_c[i]);
  sits_steady_release(&st);
  sits_scenario_free(sc);
}

/*
 * test_netsteady.c - the one linear steady-state entry (sits_netsteady.h) against hand
 * values: a two-node chain, pinned nodes, a 300-node chain through KLU and CHOLMOD (the
 * closed form: each node is the ambient plus the power times the resistance to the ambient),
 * a HotSpot-like layered grid through the layered-grid solver equal to CHOLMOD, and a
 * floating part refused.
 */
#include "test_util.h"

#include "sits_hotspot.h"
#include "sits_netsteady.h"

/* A chain of n nodes, node i linked to i+1 by r_k_per_w, the last to the ambient by r_amb. */
static sits_thermal *chain(size_t n, double r, double r_amb) {
  sits_thermal *th = sits_thermal_new();
  sits_err err = {0};
  char name[32];
  for (size_t i = 0; i < n; i++) {
    snprintf(name, sizeof name, "n%zu", i);
    cr_assert_eq(sits_thermal_add_node(th, name, 1.0, &err), (int)i, "%s", err.msg);
  }
  for (size_t i = 0; i + 1 < n; i++)
    cr_assert_eq(sits_thermal_add_link(th, (int)i, (int)i + 1, r, &err), SITS_OK);
  cr_assert_eq(sits_thermal_add_link(th, (int)n - 1, SITS_AMBIENT, r_amb, &err), SITS_OK);
  return th;
}

Test(netsteady, two_nodes_by_hand) {
  sits_thermal *th = chain(2, 0.5, 2.0);
  sits_err err = {0};
  sits_net_steady *s = sits_net_steady_new(th, NULL, &err);
  cr_assert(s, "%s", err.msg);
  cr_assert_str_eq(sits_net_steady_method(s), "dense-lu");
  double p[2] = {4.0, 0.0}, t[2];
  cr_assert_eq(sits_net_steady_solve(s, p, 25.0, t, &err), SITS_OK);
  cr_assert_float_eq(t[1], 25.0 + 4.0 * 2.0, 1e-12); /* 33 */
  cr_assert_float_eq(t[0], 33.0 + 4.0 * 0.5, 1e-12); /* 35 */
  /* the same factorisation, other powers: 1 W into node 1 only */
  p[0] = 0, p[1] = 1.0;
  cr_assert_eq(sits_net_steady_solve(s, p, 20.0, t, &err), SITS_OK);
  cr_assert_float_eq(t[0], 22.0, 1e-12);
  cr_assert_float_eq(t[1], 22.0, 1e-12);
  sits_net_steady_free(s);
  /* node 0 pinned at 50 C: node 1 = (50/0.5 + 20/2 + 1) / (1/0.5 + 1/2) = 44.4 */
  bool pinned[2] = {true, false};
  sits_net_steady_opts o = {.pinned = pinned};
  s = sits_net_steady_new(th, &o, &err);
  cr_assert(s, "%s", err.msg);
  t[0] = 50.0, t[1] = NAN;
  cr_assert_eq(sits_net_steady_solve(s, p, 20.0, t, &err), SITS_OK);
  cr_assert_float_eq(t[1], 111.0 / 2.5, 1e-12);
  cr_assert_eq(t[0], 50.0);
  sits_net_steady_free(s);
  sits_thermal_free(th);
}

static void check_chain(const char *method, bool cholmod) {
  const size_t n = 300;
  sits_thermal *th = chain(n, 0.01, 1.5);
  sits_err err = {0};
  sits_net_steady_opts o = {.cholmod = cholmod};
  sits_net_steady *s = sits_net_steady_new(th, &o, &err);
  cr_assert(s, "%s", err.msg);
  cr_assert_str_eq(sits_net_steady_method(s), method);
  double *p = calloc(n, sizeof *p), *t = calloc(n, sizeof *t);
  p[0] = 3.0; /* all of it flows down the chain: T_i = T_amb + 3 (1.5 + 0.01 (n - 1 - i)) */
  cr_assert_eq(sits_net_steady_solve(s, p, 25.0, t, &err), SITS_OK, "%s", err.msg);
  for (size_t i = 0; i < n; i++)
    cr_assert_float_eq(t[i], 25.0 + 3.0 * (1.5 + 0.01 * (double)(n - 1 - i)), 1e-9, "%s node %zu",
                       method, i);
  free(p), free(t);
  sits_net_steady_free(s);
  sits_thermal_free(th);
}

Test(netsteady, long_chain_klu) {
  check_chain("klu", false);
}

Test(netsteady, long_chain_cholmod) {
  check_chain("cholmod", true);
}

Test(netsteady, grid_layered_equals_cholmod) {
  char flp[512], cfg[512];
  snprintf(flp, sizeof flp, "%s/hotspot_ev6/inputs/ev6.flp", SITS_TEST_DATA);
  snprintf(cfg, sizeof cfg, "%s/hotspot_ev6/inputs/example.config", SITS_TEST_DATA);
  sits_err err = {0};
  sits_floorplan *f = NULL;
  cr_assert_eq(sits_hs_read_flp(flp, &f, &err), SITS_OK, "%s", err.msg);
  sits_hs_options *opt = sits_hs_options_new();
  cr_assert_eq(sits_hs_options_read_config(opt, cfg, &err), SITS_OK, "%s", err.msg);
  sits_hs_params prm;
  sits_hs_model model;
  cr_assert_eq(sits_hs_options_params(opt, &prm, &model, &err), SITS_OK, "%s", err.msg);
  prm.grid_rows = 16, prm.grid_cols = 24;
  sits_hs_network *net = NULL;
  cr_assert_eq(((net = sits_hs_network_new(f, &prm, SITS_HS_GRID, &err)) ? SITS_OK : err.code),
               SITS_OK, "%s", err.msg);
  const sits_thermal *th = sits_hs_thermal(net);
  size_t n = sits_thermal_node_count(th);
  sits_net_steady_opts lo = {.grid_rows = 16, .grid_cols = 24, .grid_layers = 4};
  sits_net_steady_opts co = lo;
  co.cholmod = true, co.no_layergrid = true;
  sits_net_steady *a = sits_net_steady_new(th, &lo, &err), *b = sits_net_steady_new(th, &co, &err);
  cr_assert(a && b, "%s", err.msg);
  cr_assert_str_eq(sits_net_steady_method(a), "layered-grid");
  cr_assert_str_eq(sits_net_steady_method(b), "cholmod");
  double *p = calloc(n, sizeof *p), *ta = calloc(n, sizeof *ta), *tb = calloc(n, sizeof *tb);
  for (size_t i = 0; i < 16 * 24; i++) /* silicon cells: 0.01 .. 0.39 W */
    p[i] = 0.01 * (double)(1 + i % 39);
  cr_assert_eq(sits_net_steady_solve(a, p, 45.0, ta, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(sits_net_steady_solve(b, p, 45.0, tb, &err), SITS_OK, "%s", err.msg);
  double worst = 0, rise = 0;
  for (size_t i = 0; i < n; i++) {
    worst = fmax(worst, fabs(ta[i] - tb[i]));
    rise = fmax(rise, ta[i] - 45.0);
  }
  cr_assert_gt(rise, 1.0, "the power heats the grid (%g K)", rise);
  cr_assert_lt(worst, 1e-8, "layered grid vs CHOLMOD: %g K", worst);
  free(p), free(ta), free(tb);
  sits_net_steady_free(a), sits_net_steady_free(b);
  sits_hs_network_free(net);
  sits_hs_options_free(opt);
  sits_floorplan_free(f);
}

/* 2 layers of 16 x 16 cells whose only path to the ambient is through two edge nodes (north
 * and south rows of layer 1): the layered-grid solver cannot take its steady state (the cells'
 * own operator is singular) and the sparse factorisation does, with the same answer as asked
 * for directly. */
Test(netsteady, grid_grounded_through_its_edges_falls_back) {
  const size_t R = 16, C = 16;
  tu_grid_spec spec = {.rows = R,
                       .cols = C,
                       .c_j_per_k = {1.0, 1.0},
                       .r_row_k_per_w = 0.5,
                       .r_col_k_per_w = 0.5,
                       .r_z_k_per_w = 0.2,
                       .r_edge_k_per_w = 2.0,
                       .c_n_j_per_k = 1.0,
                       .c_s_j_per_k = 1.0,
                       .r_n_amb_k_per_w = 0.1,
                       .r_s_amb_k_per_w = 0.3};
  sits_thermal *th = tu_two_layer_grid(&spec);
  sits_err err = {0};
  size_t n = sits_thermal_node_count(th);
  sits_net_steady_opts lo = {.grid_rows = R, .grid_cols = C, .grid_layers = 2};
  sits_net_steady_opts co = {0}; /* not read as a grid: KLU */
  sits_net_steady *a = sits_net_steady_new(th, &lo, &err), *b = sits_net_steady_new(th, &co, &err);
  cr_assert(a && b, "%s", err.msg);
  cr_assert_str_eq(sits_net_steady_method(a), "cholmod");
  cr_assert_str_eq(sits_net_steady_method(b), "klu");
  double *p = calloc(n, sizeof *p), *ta = calloc(n, sizeof *ta), *tb = calloc(n, sizeof *tb);
  for (size_t i = 0; i < R * C; i++)
    p[i] = 0.01 * (double)(1 + i % 7);
  cr_assert_eq(sits_net_steady_solve(a, p, 25.0, ta, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(sits_net_steady_solve(b, p, 25.0, tb, &err), SITS_OK, "%s", err.msg);
  double worst = 0, rise = 0;
  for (size_t i = 0; i < n; i++)
    worst = fmax(worst, fabs(ta[i] - tb[i])), rise = fmax(rise, ta[i] - 25.0);
  cr_assert_gt(rise, 1.0, "the power heats the grid (%g K)", rise);
  cr_assert_lt(worst, 1e-9 * rise, "%g K", worst);
  free(p), free(ta), free(tb);
  sits_net_steady_free(a), sits_net_steady_free(b);
  sits_thermal_free(th);
}

Test(netsteady, floating_part_refused) {
  sits_thermal *th = chain(2, 0.5, 2.0);
  sits_err err = {0};
  cr_assert_eq(sits_thermal_add_node(th, "loose", 1.0, &err), 2);
  sits_net_steady *s = sits_net_steady_new(th, NULL, &err);
  cr_assert_null(s);
  cr_assert_eq(err.code, SITS_EINPUT);
  cr_assert(strstr(err.msg, "singular"), "%s", err.msg);
  sits_thermal_free(th);
}

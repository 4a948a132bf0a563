/* test_thermal.c - the RC network: derivative, conductance matrix, checks. */
#include "test_util.h"

#include "sits_thermal.h"

/* a --2 K/W-- b --4 K/W-- ambient, and a --8 K/W-- ambient */
static sits_thermal *two_nodes(void) {
  sits_thermal *th = sits_thermal_new();
  sits_err err = {0};
  cr_assert_eq(sits_thermal_add_node(th, "a", 3.0, &err), 0);
  cr_assert_eq(sits_thermal_add_node(th, "b", 5.0, &err), 1);
  cr_assert_eq(sits_thermal_add_link(th, 0, 1, 2.0, &err), SITS_OK);
  cr_assert_eq(sits_thermal_add_link(th, 1, SITS_AMBIENT, 4.0, &err), SITS_OK);
  cr_assert_eq(sits_thermal_add_link(th, 0, SITS_AMBIENT, 8.0, &err), SITS_OK);
  return th;
}

Test(thermal, derivative_by_hand) {
  sits_thermal *th = two_nodes();
  double t[2] = {60.0, 40.0}, p[2] = {10.0, 1.0}, d[2], q;
  sits_thermal_derivative(th, t, p, 25.0, d, &q);
  /* a: 10 - (60-40)/2 - (60-25)/8 = 10 - 10 - 4.375 = -4.375 W -> / 3 J/K */
  cr_assert_float_eq(d[0], -4.375 / 3.0, 1e-12);
  /* b: 1 + 10 - (40-25)/4 = 7.25 W -> / 5 J/K */
  cr_assert_float_eq(d[1], 7.25 / 5.0, 1e-12);
  cr_assert_float_eq(q, 35.0 / 8.0 + 15.0 / 4.0, 1e-12);
  sits_thermal_free(th);
}

Test(thermal, conductance_matrix) {
  sits_thermal *th = two_nodes();
  gsl_spmatrix *g = sits_thermal_conductance(th);
  cr_assert_not_null(g);
  cr_assert_float_eq(gsl_spmatrix_get(g, 0, 0), 0.5 + 0.125, 1e-15);
  cr_assert_float_eq(gsl_spmatrix_get(g, 1, 1), 0.5 + 0.25, 1e-15);
  cr_assert_float_eq(gsl_spmatrix_get(g, 0, 1), -0.5, 1e-15);
  cr_assert_float_eq(gsl_spmatrix_get(g, 1, 0), -0.5, 1e-15);
  gsl_spmatrix_free(g);
  sits_thermal_free(th);
}

Test(thermal, parallel_links_add) {
  sits_thermal *th = two_nodes();
  sits_err err = {0};
  cr_assert_eq(sits_thermal_add_link(th, 0, 1, 2.0, &err), SITS_OK);
  gsl_spmatrix *g = sits_thermal_conductance(th);
  cr_assert_float_eq(gsl_spmatrix_get(g, 0, 1), -1.0, 1e-15);
  gsl_spmatrix_free(g);
  sits_thermal_free(th);
}

Test(thermal, rejects_bad_values) {
  sits_thermal *th = two_nodes();
  sits_err err = {0};
  cr_assert_eq(sits_thermal_add_node(th, "c", 0.0, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "c_j_per_k must be > 0"), "%s", err.msg);
  cr_assert_eq(sits_thermal_add_node(th, "d", NAN, &err), SITS_EINPUT);
  cr_assert_eq(sits_thermal_add_node(th, "a", 1.0, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "duplicate node 'a'"), "%s", err.msg);
  cr_assert_eq(sits_thermal_add_node(th, "ambient", 1.0, &err), SITS_EINPUT);
  cr_assert_eq(sits_thermal_add_node(th, "x/y", 1.0, &err), SITS_EINPUT);
  cr_assert_eq(sits_thermal_add_link(th, 0, 0, 1.0, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "to itself"), "%s", err.msg);
  cr_assert_eq(sits_thermal_add_link(th, 0, 1, -1.0, &err), SITS_EINPUT);
  cr_assert_eq(sits_thermal_add_link(th, 0, 1, 0.0, &err), SITS_EINPUT);
  cr_assert_eq(sits_thermal_add_link(th, 0, 7, 1.0, &err), SITS_EINPUT);
  sits_thermal_free(th);
}

Test(thermal, grounded_check) {
  sits_thermal *th = two_nodes();
  sits_err err = {0};
  cr_assert_eq(sits_thermal_check_grounded(th, &err), SITS_OK);
  int c = sits_thermal_add_node(th, "floating", 1.0, &err);
  int d = sits_thermal_add_node(th, "floating2", 1.0, &err);
  sits_thermal_add_link(th, c, d, 1.0, &err);
  cr_assert_eq(sits_thermal_check_grounded(th, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "'floating' has no path to the ambient"), "%s", err.msg);
  /* a pinned (sensed) node grounds its part: pinning floating2 grounds floating too; a third
   * node on its own is then the one named */
  bool pinned[5] = {false, false, false, true, false};
  cr_assert_eq(sits_thermal_check_reachable(th, pinned, &err), SITS_OK, "%s", err.msg);
  sits_thermal_add_node(th, "alone", 1.0, &err);
  cr_assert_eq(sits_thermal_check_reachable(th, pinned, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "'alone' has no path to the ambient or to a sensed node"), "%s",
            err.msg);
  sits_thermal_free(th);
}

Test(thermal, free_null_is_noop) {
  sits_thermal_free(NULL);
}

Test(thermal, finds_every_node_among_many) {
  sits_thermal *th = sits_thermal_new();
  sits_err err = {0};
  char name[32];
  for (int i = 0; i < 5000; i++) {
    snprintf(name, sizeof name, "cell_%d", i);
    cr_assert_eq(sits_thermal_add_node(th, name, 1.0, &err), i);
  }
  for (int i = 0; i < 5000; i += 7) {
    snprintf(name, sizeof name, "cell_%d", i);
    cr_assert_eq(sits_thermal_find(th, name), i);
  }
  cr_assert_eq(sits_thermal_find(th, "cell_5000"), -1);
  cr_assert_eq(sits_thermal_add_node(th, "cell_42", 1.0, &err), SITS_EINPUT);
  sits_thermal_free(th);
}

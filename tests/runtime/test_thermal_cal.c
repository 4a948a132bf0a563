/*
 * test_thermal_cal.c - thermal calibration on synthetic traces with known answers: a one-node
 * network's R and C recovered from the exact response to power steps, and a node that no
 * sensor can see reported as unidentifiable (its parameters never NaN).
 */
#include "test_util.h"

#include "sits_thermal_cal.h"

/* C 10 J/K, R 2 K/W, 25 C: power 0, 6, 2, 8 W for 30 s each; the exact response sampled
 * every 0.5 s (tau 20 s). */
static char *trace(void) {
  char *text = malloc(1 << 16);
  size_t n = (size_t)snprintf(text, 1 << 16, "time_s,power_w.in,temp_c.die\n");
  const double p[] = {0, 6, 2, 8};
  double t_now = 25.0;
  for (int k = 0; k < 240; k++) {
    double t = 0.5 * k, pw = p[(int)(t / 30.0)];
    n += (size_t)snprintf(text + n, (1 << 16) - n, "%.1f,%.1f,%.9f\n", t, pw, t_now);
    /* exact over the next 0.5 s at constant pw */
    double ss = 25.0 + 2.0 * pw;
    t_now = ss + (t_now - ss) * exp(-0.5 / 20.0);
  }
  char *path = tu_write("cal.csv", text);
  free(text);
  return path;
}

static char *scenario(const char *extra_nodes, const char *extra_links) {
  char text[2048];
  snprintf(text, sizeof text,
           "platform = { thermal = { nodes = ( { name = \"die\"; c_j_per_k = 5.0; }%s );\n"
           "  links = ( { a = \"die\"; b = \"ambient\"; r_k_per_w = 3.0; }%s ); }; };\n"
           "replay = { power = ( { column = \"power_w.in\"; node = \"die\"; } );\n"
           "  sensors = ( { column = \"temp_c.die\"; node = \"die\"; } ); };\nambient_c = 25.0;\n",
           extra_nodes, extra_links);
  return tu_write("cal.cfg", text);
}

Test(thermal_cal, recovers_r_and_c_from_an_exact_response) {
  char *tr = trace(), *sc = scenario("", "");
  sits_thermal_cal_opts o = {.scenario_path = sc, .trace_path = tr, .train_fraction = 0.75};
  sits_thermal_cal c;
  sits_err err = {0};
  cr_assert_eq(sits_calibrate_thermal(&o, &c, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(c.n_params, 2);
  cr_assert_str_eq(c.params[0].path, "platform.thermal.links.[0].r_k_per_w");
  cr_assert_str_eq(c.params[1].path, "platform.thermal.nodes.[0].c_j_per_k");
  cr_log_info("R %.6f K/W, C %.6f J/K, held-out RMSE %.2e K, rcond %.2e", c.params[0].value,
              c.params[1].value, c.holdout[0].rmse, c.rcond);
  cr_assert_float_eq(c.params[0].value, 2.0, 2e-3, "R %g", c.params[0].value);
  cr_assert_float_eq(c.params[1].value, 10.0, 1e-2, "C %g", c.params[1].value);
  cr_assert_lt(c.holdout[0].rmse, 1e-3);
  cr_assert_eq(c.holdout[0].n, 60);
  cr_assert_not(c.unidentifiable);
  cr_assert(strstr(c.config_text, "r_k_per_w = 2.0") || strstr(c.config_text, "r_k_per_w = 1.99"),
            "%s", c.config_text);
  sits_thermal_cal_release(&c);
  free(tr), free(sc);
}

/* A node tied only to the ambient, with no power and no sensor: nothing in the trace depends
 * on its R or C. */
Test(thermal_cal, an_invisible_node_is_unidentifiable) {
  char *tr = trace(), *sc = scenario(", { name = \"shelf\"; c_j_per_k = 50.0; }",
                                     ", { a = \"shelf\"; b = \"ambient\"; r_k_per_w = 4.0; }");
  sits_thermal_cal_opts o = {.scenario_path = sc, .trace_path = tr};
  sits_thermal_cal c;
  sits_err err = {0};
  cr_assert_eq(sits_calibrate_thermal(&o, &c, &err), SITS_OK, "%s", err.msg);
  cr_log_info("rcond %.2e; shares %.2f %.2f %.2f %.2f", c.rcond, c.params[0].weak_share,
              c.params[1].weak_share, c.params[2].weak_share, c.params[3].weak_share);
  cr_assert(c.unidentifiable, "rcond %g", c.rcond);
  /* the die's own parameters are still found; none is NaN */
  for (size_t k = 0; k < c.n_params; k++)
    cr_assert(isfinite(c.params[k].value), "%s", c.params[k].path);
  cr_assert_float_eq(c.params[0].value, 2.0, 2e-3);
  /* the shelf's R (link 1) and C (node 1) carry the weak direction */
  cr_assert_gt(c.params[1].weak_share + c.params[3].weak_share, 0.9);
  sits_thermal_cal_release(&c);
  free(tr), free(sc);
}

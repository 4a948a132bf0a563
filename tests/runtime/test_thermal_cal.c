/*
 * test_thermal_cal.c - thermal calibration on synthetic traces with known answers: a one-node
 * network's R and C recovered from the exact response to power steps, and a node that no
 * sensor can see reported as unidentifiable (its parameters never NaN).
 */
#include "test_util.h"

#include "sits_thermal_cal.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

/* C 10 J/K, R 2 K/W, 25 C: power 0, 6, 2, 8 W for 30 s each; the exact response sampled
 * every 0.5 s (tau 20 s). */
static char *noisy_trace(double sigma, unsigned long seed);

static char *trace(void) {
  return noisy_trace(0, 0);
}

/* The same response with Gaussian noise of @p sigma K on every reading (GSL's generator). */
static char *noisy_trace(double sigma, unsigned long seed) {
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, seed);
  char *text = malloc(1 << 16);
  size_t n = (size_t)snprintf(text, 1 << 16, "time_s,power_w.in,temp_c.die\n");
  const double p[] = {0, 6, 2, 8};
  double t_now = 25.0;
  for (int k = 0; k < 240; k++) {
    double t = 0.5 * k, pw = p[(int)(t / 30.0)];
    double noise = sigma > 0 ? gsl_ran_gaussian(rng, sigma) : 0.0;
    n += (size_t)snprintf(text + n, (1 << 16) - n, "%.1f,%.1f,%.9f\n", t, pw, t_now + noise);
    /* exact over the next 0.5 s at constant pw */
    double ss = 25.0 + 2.0 * pw;
    t_now = ss + (t_now - ss) * exp(-0.5 / 20.0);
  }
  char *path = tu_write("cal.csv", text);
  free(text);
  gsl_rng_free(rng);
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

/* Standard errors: with white noise on the readings the truth lies within a few standard
 * errors, and the errors double when the noise does (least squares: sigma_theta ~ sigma). The
 * healthy fit raises no flag; the correlation matrix is symmetric with a unit diagonal. */
Test(thermal_cal, standard_errors_scale_with_noise) {
  double se[2][2];
  for (int k = 0; k < 2; k++) {
    char *tr = noisy_trace(k ? 0.10 : 0.05, 7), *sc = scenario("", "");
    sits_thermal_cal_opts o = {.scenario_path = sc, .trace_path = tr, .train_fraction = 0.75};
    sits_thermal_cal c;
    sits_err err = {0};
    cr_assert_eq(sits_calibrate_thermal(&o, &c, &err), SITS_OK, "%s", err.msg);
    const double truth[2] = {2.0, 10.0};
    for (int j = 0; j < 2; j++) {
      se[k][j] = c.params[j].std_err;
      cr_assert(se[k][j] > 0, "%s: std_err %g", c.params[j].path, se[k][j]);
      cr_assert_lt(fabs(c.params[j].value - truth[j]), 4 * se[k][j], "%s = %g +- %g",
                   c.params[j].path, c.params[j].value, se[k][j]);
    }
    cr_assert_float_eq(c.corr[0], 1.0, 1e-9);
    cr_assert_float_eq(c.corr[1], c.corr[2], 1e-12);
    cr_assert_eq(c.n_flags, 0, "%s", c.flags[0]);
    sits_thermal_cal_release(&c);
    free(tr), free(sc);
  }
  for (int j = 0; j < 2; j++)
    cr_assert(se[1][j] / se[0][j] > 1.6 && se[1][j] / se[0][j] < 2.4, "ratio %g",
              se[1][j] / se[0][j]);
}

/* The shipped AGX Orin case: what #18 found unphysical is flagged (a die heavier than its
 * heatsink, an ambient of 55 C, parameters at the ends of their ranges). */
Test(thermal_cal, unphysical_fits_are_flagged) {
  char sc[600], tr[600];
  snprintf(sc, sizeof sc, "%s/../cases/agx_orin_jtop.cfg", SITS_VALIDATION_DATA);
  snprintf(tr, sizeof tr, "%s/agx_orin_jtop.csv", SITS_VALIDATION_DATA);
  sits_thermal_cal_opts o = {.scenario_path = sc, .trace_path = tr, .fit_ambient = true};
  sits_thermal_cal c;
  sits_err err = {0};
  cr_assert_eq(sits_calibrate_thermal(&o, &c, &err), SITS_OK, "%s", err.msg);
  bool heavier = false, ambient = false, bound = false;
  for (size_t k = 0; k < c.n_flags; k++) {
    heavier |= strstr(c.flags[k], "is heavier than its neighbour 'heatsink'") != NULL;
    ambient |= strstr(c.flags[k], "ambient_c = ") != NULL;
    bound |= strstr(c.flags[k], "end of its range") != NULL;
  }
  cr_assert(heavier && ambient && bound, "%zu flags, first: %s", c.n_flags, c.flags[0]);
  sits_thermal_cal_release(&c);
}

/* replay.sensors weights: a second, offset sensor on the same node with weight 0 changes
 * nothing; with weight 1 it pulls the fit (both are fitted jointly). */
Test(thermal_cal, sensor_weights) {
  char *tr = trace();
  char *text = tu_slurp(tr), *out = malloc(strlen(text) * 2 + 64);
  size_t n = 0; /* append temp_c.offset = temp_c.die + 3 K to every row */
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    double t, p, d;
    if (sscanf(line, "%lf,%lf,%lf", &t, &p, &d) == 3)
      n += (size_t)sprintf(out + n, "%s,%.9f\n", line, d + 3.0);
    else
      n += (size_t)sprintf(out + n, "%s,temp_c.offset\n", line);
  }
  char *tr2 = tu_write("cal2.csv", out);
  double r_fit[2];
  for (int k = 0; k < 2; k++) {
    char cfg[2048];
    snprintf(cfg, sizeof cfg,
             "platform = { thermal = { nodes = ( { name = \"die\"; c_j_per_k = 5.0; } );\n"
             "  links = ( { a = \"die\"; b = \"ambient\"; r_k_per_w = 3.0; } ); }; };\n"
             "replay = { power = ( { column = \"power_w.in\"; node = \"die\"; } );\n"
             "  sensors = ( { column = \"temp_c.die\"; node = \"die\"; },\n"
             "              { column = \"temp_c.offset\"; node = \"die\"; weight = %s; } ); };\n"
             "ambient_c = 25.0;\n",
             k ? "1.0" : "0.0");
    char *sc = tu_write("cal2.cfg", cfg);
    sits_thermal_cal_opts o = {.scenario_path = sc, .trace_path = tr2, .train_fraction = 0.75};
    sits_thermal_cal c;
    sits_err err = {0};
    cr_assert_eq(sits_calibrate_thermal(&o, &c, &err), SITS_OK, "%s", err.msg);
    cr_assert_eq(c.n_sensors, 2);
    r_fit[k] = c.params[0].value;
    sits_thermal_cal_release(&c);
    free(sc);
  }
  cr_assert_float_eq(r_fit[0], 2.0, 2e-3, "weight 0: R %g", r_fit[0]);
  cr_assert_gt(r_fit[1], 2.1, "weight 1: the +3 K sensor pulls R up (%g)", r_fit[1]);
  free(text), free(out), free(tr), free(tr2);
}

/* Network order from the data: a trace made by a two-node chain (die 2 J/K, 1 K/W to a
 * 60 J/K board, 2 K/W to 25 C; power steps) is fitted worse by one node than by two, and
 * three do not gain enough to be kept; the one-node exact response keeps one node. */
Test(thermal_cal, order_from_the_data) {
  sits_scenario *gen = tu_load(
      "gen.cfg",
      "platform = { thermal = { nodes = ( { name = \"die\"; c_j_per_k = 2.0; junction = true; },\n"
      "  { name = \"board\"; c_j_per_k = 60.0; } );\n"
      "  links = ( { a = \"die\"; b = \"board\"; r_k_per_w = 1.0; },\n"
      "            { a = \"board\"; b = \"ambient\"; r_k_per_w = 2.0; } ); }; };\n"
      "workload = { phases = ( { duration_s = 60.0; power_w = { die = 0.0; }; },\n"
      "  { duration_s = 90.0; power_w = { die = 6.0; }; }, { duration_s = 60.0; power_w = { die = 1.0; }; },\n"
      "  { duration_s = 120.0; power_w = { die = 8.0; }; }, { duration_s = 90.0; power_w = { die = 2.0; }; } ); };\n"
      "ambient_c = 25.0;\nsample_period_s = 1.0;\n");
  sits_result *r = tu_run(gen);
  size_t n = sits_result_sample_count(r);
  char *text = malloc(64 * (n + 2)), *p = text;
  p += sprintf(p, "time_s,power_w.in,temp_c.die\n");
  for (size_t k = 0; k < n; k++)
    p += sprintf(p, "%.3f,%.6f,%.9f\n", sits_result_time_s(r)[k], sits_result_total_power_w(r, k),
                 sits_result_temp_c(r, k, 0));
  char *tr2 = tu_write("two.csv", text), *sc = scenario("", "");
  free(text);
  sits_result_free(r);
  sits_scenario_free(gen);
  const int orders[] = {1, 2, 3};
  sits_thermal_cal_opts o = {.scenario_path = sc, .trace_path = tr2, .train_fraction = 0.7};
  sits_thermal_cal c;
  sits_err err = {0};
  cr_assert_eq(sits_calibrate_thermal_orders(&o, orders, 3, &c, &err), SITS_OK, "%s", err.msg);
  cr_log_info("orders: %.3f %.3f %.3f K held out", c.orders[0].holdout_rmse_c,
              c.orders[1].holdout_rmse_c, c.orders[2].holdout_rmse_c);
  cr_assert_eq(c.order, 2, "chose %d", c.order);
  cr_assert_gt(c.orders[0].holdout_rmse_c, 5 * c.orders[1].holdout_rmse_c);
  cr_assert_eq(c.n_params, 4);
  sits_thermal_cal_release(&c);
  char *tr1 = trace();
  o.trace_path = tr1;
  cr_assert_eq(sits_calibrate_thermal_orders(&o, orders, 3, &c, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(c.order, 1, "chose %d", c.order);
  cr_assert_float_eq(c.params[0].value, 2.0, 2e-3);
  sits_thermal_cal_release(&c);
  free(tr1), free(tr2), free(sc);
}

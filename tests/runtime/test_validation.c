/*
 * test_validation.c - the board validation cases (validation/cases/cases.txt): each real trace
 * is calibrated on its first 70 % and the held-out RMSE of every sensor asserted against the
 * case's bound. The bounds are the figures measured when the cases were added (in
 * validation/README.md) plus about 50 %: the fits are deterministic here, but another GSL,
 * SUNDIALS or compiler may take other iterates to a nearby optimum.
 */
#include "test_util.h"

#include "sits_thermal_cal.h"

/* The trace and fit cases.txt gives case @p name. */
static void case_line(const char *name, char *trace, char *fit) {
  FILE *f = fopen(SITS_VALIDATION_DATA "/../cases/cases.txt", "r");
  cr_assert_not_null(f);
  char line[512], n[128];
  bool found = false;
  while (!found && fgets(line, sizeof line, f))
    found = line[0] != '#' && sscanf(line, "%127s %255s %63s", n, trace, fit) == 3 &&
            !strcmp(n, name);
  fclose(f);
  cr_assert(found, "case %s is not in cases.txt", name);
}

/* Case @p name of cases.txt calibrated on its trace with its fit, as the validation runs it. */
static void calibrate_case(const char *name, const char *trace, const char *fit,
                           sits_thermal_cal *c) {
  char cfg[600], tr[600];
  snprintf(cfg, sizeof cfg, "%s/../cases/%s.cfg", SITS_VALIDATION_DATA, name);
  snprintf(tr, sizeof tr, "%s/%s", SITS_VALIDATION_DATA, trace);
  sits_thermal_cal_opts o = {.scenario_path = cfg,
                             .trace_path = tr,
                             .fit_ambient = strstr(fit, "ambient") != NULL,
                             .fit_initial = strstr(fit, "initial") != NULL};
  sits_err err = {0};
  cr_assert_eq(sits_calibrate_thermal(&o, c, &err), SITS_OK, "%s: %s", name, err.msg);
}

Test(validation, boards_calibrate_then_hold_out, .timeout = 900) {
  FILE *f = fopen(SITS_VALIDATION_DATA "/../cases/cases.txt", "r");
  cr_assert_not_null(f);
  char line[512];
  size_t cases = 0;
  while (fgets(line, sizeof line, f)) {
    char name[128], trace[256], fit[64];
    double bound;
    if (line[0] == '#' || sscanf(line, "%127s %255s %63s %lf", name, trace, fit, &bound) != 4)
      continue;
    sits_thermal_cal c;
    calibrate_case(name, trace, fit, &c);
    for (size_t k = 0; k < c.n_sensors; k++) {
      cr_log_info("%s %s: train %.3f K, held-out %.3f K (bound %.2f), n %zu", name, c.sensor[k],
                  c.train[k].rmse, c.holdout[k].rmse, bound, c.holdout[k].n);
      cr_assert_lt(c.holdout[k].rmse, bound, "%s %s held-out %g K", name, c.sensor[k],
                   c.holdout[k].rmse);
      cr_assert_gt(c.holdout[k].n, 100);
    }
    for (size_t k = 0; k < c.n_params; k++)
      cr_assert(isfinite(c.params[k].value), "%s %s", name, c.params[k].path);
    sits_thermal_cal_release(&c);
    cases++;
  }
  fclose(f);
  cr_assert_eq(cases, 10); /* a case dropped from cases.txt must not pass unnoticed */
}

/* validation/cases/transfer.txt: a network calibrated on one case's trace, kept, and checked
 * on another recording of the board with only the ambient and the initial temperatures
 * fitted (the held-out figures say how it holds on a trace it was not fitted to). */
Test(validation, network_transfers_to_other_recordings, .timeout = 600) {
  FILE *f = fopen(SITS_VALIDATION_DATA "/../cases/transfer.txt", "r");
  cr_assert_not_null(f);
  char line[512];
  size_t cases = 0;
  while (fgets(line, sizeof line, f)) {
    char name[128], from[128], trace[256], fit[64], range[64] = "";
    double bound;
    if (line[0] == '#' ||
        sscanf(line, "%127s %127s %255s %63s %lf %63s", name, from, trace, fit, &bound, range) < 5)
      continue;
    char from_trace[256], from_fit[64], cfg[600], tr[600];
    case_line(from, from_trace, from_fit);
    sits_thermal_cal net, c;
    calibrate_case(from, from_trace, from_fit, &net);
    snprintf(cfg, sizeof cfg, "%s/../cases/%s.cfg", SITS_VALIDATION_DATA, from);
    snprintf(tr, sizeof tr, "%s/%s", SITS_VALIDATION_DATA, trace);
    sits_err err = {0};
    sits_thermal_cal_opts o = {.scenario_path = cfg,
                               .scenario_text = net.config_text,
                               .trace_path = tr,
                               .keep_network = true,
                               .fit_ambient = strstr(fit, "ambient") != NULL,
                               .fit_initial = strstr(fit, "initial") != NULL};
    if (range[0])
      cr_assert_eq(sscanf(range, "%lf:%lf", &o.ambient_lo_c, &o.ambient_hi_c), 2, "%s", name);
    cr_assert_eq(sits_calibrate_thermal(&o, &c, &err), SITS_OK, "%s: %s", name, err.msg);
    for (size_t k = 0; k < c.n_params; k++) /* the network is not among them */
      cr_assert(!strstr(c.params[k].path, "r_k_per_w") && !strstr(c.params[k].path, "c_j_per_k"),
                "%s fitted %s", name, c.params[k].path);
    for (size_t k = 0; k < c.n_sensors; k++) {
      cr_log_info("%s %s: train %.3f K, held-out %.3f K (bound %.2f)", name, c.sensor[k],
                  c.train[k].rmse, c.holdout[k].rmse, bound);
      cr_assert_lt(c.holdout[k].rmse, bound, "%s %s held-out %g K", name, c.sensor[k],
                   c.holdout[k].rmse);
      cr_assert_gt(c.holdout[k].n, 100);
    }
    sits_thermal_cal_release(&c);
    sits_thermal_cal_release(&net);
    cases++;
  }
  fclose(f);
  cr_assert_eq(cases, 6);
}

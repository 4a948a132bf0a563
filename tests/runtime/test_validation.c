/*
 * test_validation.c - the board validation cases (validation/cases/cases.txt): each real trace
 * is calibrated on its first 70 % and the held-out RMSE of every sensor asserted against the
 * case's bound. The bounds are the figures measured when the cases were added (in
 * validation/README.md) plus about 50 %: the fits are deterministic here, but another GSL,
 * SUNDIALS or compiler may take other iterates to a nearby optimum.
 */
#include "test_util.h"

#include "sits_thermal_cal.h"

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
    char cfg[600], tr[600];
    snprintf(cfg, sizeof cfg, "%s/../cases/%s.cfg", SITS_VALIDATION_DATA, name);
    snprintf(tr, sizeof tr, "%s/%s", SITS_VALIDATION_DATA, trace);
    sits_thermal_cal_opts o = {.scenario_path = cfg,
                               .trace_path = tr,
                               .fit_ambient = strstr(fit, "ambient") != NULL,
                               .fit_initial = strstr(fit, "initial") != NULL};
    sits_thermal_cal c;
    sits_err err = {0};
    cr_assert_eq(sits_calibrate_thermal(&o, &c, &err), SITS_OK, "%s: %s", name, err.msg);
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
  cr_assert_eq(cases, 6); /* a case dropped from cases.txt must not pass unnoticed */
}

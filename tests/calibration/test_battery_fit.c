/*
 * test_battery_fit.c - ECM identification: parameters recovered from synthetic data made
 * with known values, and a fit on a real A123 dynamic test (validation/data) whose
 * held-out voltage error is asserted against the figure measured when this was written.
 */
#include "test_util.h"

#include "sits_battery_fit.h"
#include "sits_table.h"

static sits_battery_cfg a123_cell(void) {
  sits_battery_cfg c;
  memset(&c, 0, sizeof c);
  c.series = c.parallel = 1;
  c.capacity_ah = 2.0726; /* Q25 of the derivation of the OCV table */
  c.capacity_wh = NAN;
  c.r0_ohm = 0.01;
  c.cutoff_v = 1.5;
  c.coulombic_eff = 0.9962;
  char path[512], line[256];
  snprintf(path, sizeof path, "%s/battery_a123_ocv_25degC.csv", SITS_TEST_DATA);
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f);
  while (fgets(line, sizeof line, f) && c.n_ocv < SITS_BATTERY_MAX_OCV) {
    double s, v;
    if (sscanf(line, "%lf,%lf", &s, &v) == 2)
      c.ocv_soc[c.n_ocv] = s, c.ocv_v[c.n_ocv++] = v;
  }
  fclose(f);
  return c;
}

/* A battery from @p c (the test fails if it is refused). */
static sits_battery *cell_new(const sits_battery_cfg *c) {
  sits_err err = {0};
  sits_battery *b = sits_battery_new(c, &err);
  cr_assert_not_null(b, "%s", err.msg);
  return b;
}

/* n samples of one series (t, i or v). */
static double *column(size_t n) {
  double *x = malloc(n * sizeof *x);
  cr_assert_not_null(x);
  return x;
}

/* A synthetic cell test (1-s samples, from SOC 0.9): pulses of 2 A and 4 A for 120 s each
 * with 120-s rests between, the pattern shifted by @p shift phases; a charge of the same
 * currents between samples charge_from and charge_to; R0 and one RC pair scaled by the cell's
 * Arrhenius factor at the chamber temperature (t_lo_c and t_hi_c alternating every
 * t_period samples; NULL tc: 25 C); + m_v h with Plett's hysteresis from h0, and + m0 s
 * with s the last current's sign (-1 discharging; h0's sign before any current). */
typedef struct synth {
  size_t n, shift, charge_from, charge_to, t_period;
  double r0, r1, c1, m_v, gamma, h0, t_lo_c, t_hi_c, m0;
} synth;

static void synthesize(const sits_battery *b, const synth *s, double *t, double *i, double *v,
                       double *tc) {
  double soc = 0.9, v1 = 0, h = s->h0, q = sits_battery_capacity_ah(b);
  double ceff = sits_battery_config(b)->coulombic_eff, s_last = s->h0 > 0 ? 1 : s->h0 < 0 ? -1 : 0;
  for (size_t k = 0; k < s->n; k++) {
    t[k] = (double)k;
    double temp = s->t_period ? ((k / s->t_period) % 2 ? s->t_hi_c : s->t_lo_c) : 25.0;
    if (tc)
      tc[k] = temp;
    size_t phase = (k / 120 + s->shift) % 4;
    double sign = k >= s->charge_from && k < s->charge_to ? -1.0 : 1.0;
    i[k] = sign * (phase == 0 ? 2.0 : phase == 2 ? 4.0 : 0.0);
    double rs = sits_battery_r_scale(b, temp);
    if (i[k] != 0)
      s_last = i[k] > 0 ? -1.0 : 1.0;
    v[k] = sits_battery_ocv_v(b, soc) + s->m_v * h + s->m0 * s_last - v1 - s->r0 * rs * i[k];
    soc -= (i[k] >= 0 ? i[k] : ceff * i[k]) / (3600 * q);
    double e = exp(-1.0 / (rs * s->r1 * s->c1)); /* R_k scales with T, C_k does not */
    v1 = v1 * e + rs * s->r1 * i[k] * (1 - e);
    if (s->m_v > 0 && i[k] != 0) {
      double sg = i[k] > 0 ? 1.0 : -1.0, eh = exp(-fabs(i[k]) * s->gamma / (3600 * q));
      h = -sg + (h + sg) * eh;
    }
  }
}

Test(battery_fit, recovers_known_parameters_from_synthetic_data) {
  sits_battery_cfg c = a123_cell();
  sits_err err = {0};
  sits_battery *b = cell_new(&c);
  /* 2 h of 1-s samples: pulses of 2 A and 4 A with rests, from SOC 0.9 */
  size_t n = 7200;
  double *t = column(n), *i = column(n), *v = column(n);
  double r0 = 0.015, r1 = 0.012, c1 = 2500;
  synthesize(b, &(synth){.n = n, .r0 = r0, .r1 = r1, .c1 = c1}, t, i, v, NULL);
  sits_battery_fit fit;
  cr_assert_eq(sits_battery_fit_cell(&c, t, i, v, n, 1, 0.7, false, &fit, &err), SITS_OK, "%s",
               err.msg);
  cr_log_info("synthetic: R0 %g R1 %g C1 %g SOC0 %g rmse %g conv %d", fit.r0_ohm, fit.rc_r_ohm[0],
              fit.rc_c_f[0], fit.initial_soc, fit.train.rmse, fit.converged);
  cr_assert_float_eq(fit.r0_ohm, r0, 0.01 * r0, "R0 %g", fit.r0_ohm);
  cr_assert_float_eq(fit.rc_r_ohm[0], r1, 0.01 * r1, "R1 %g", fit.rc_r_ohm[0]);
  cr_assert_float_eq(fit.rc_c_f[0], c1, 0.01 * c1, "C1 %g", fit.rc_c_f[0]);
  cr_assert_float_eq(fit.initial_soc, 0.9, 1e-3);
  cr_assert_lt(fit.holdout.rmse, 1e-4);
  free(fit.model_v), free(t), free(i), free(v);
  sits_battery_free(b);
}

/* Hysteresis recovered: the same cell with + m_v h (m 25 mV, gamma 8, h from +1), discharge
 * pulses then a charge half way, so h swings both ways; the fit starts from m 10 mV, gamma 1,
 * h 0. Twice: without the instantaneous term (the fit's m0_v stays at 0) and with + m0 s
 * (12 mV, s the last current's sign, held through the rests; from a start of 5 mV). */
Test(battery_fit, recovers_hysteresis_from_synthetic_data) {
  const double m0s[] = {0.0, 0.012};
  for (size_t q = 0; q < 2; q++) {
    sits_battery_cfg c = a123_cell();
    sits_err err = {0};
    sits_battery *b = cell_new(&c);
    size_t n = 10800;
    double *t = column(n), *i = column(n), *v = column(n);
    double r0 = 0.015, m = 0.025, gamma = 8.0, m0 = m0s[q];
    synthesize(b,
               &(synth){.n = n,
                        .r0 = r0,
                        .r1 = 0.012,
                        .c1 = 2500,
                        .m_v = m,
                        .gamma = gamma,
                        .h0 = 1.0,
                        .charge_from = 4000,
                        .charge_to = 6000,
                        .m0 = m0},
               t, i, v, NULL);
    c.hyst_m_v = 0.010, c.hyst_gamma = 1.0, c.hyst_initial = 0.0, c.hyst_m0_v = 0.005;
    sits_battery_fit fit;
    cr_assert_eq(sits_battery_fit_cell(&c, t, i, v, n, 1, 0.7, false, &fit, &err), SITS_OK, "%s",
                 err.msg);
    cr_log_info("hysteresis: m %g gamma %g h0 %g m0 %g (true %g) R0 %g rmse %g", fit.hyst_m_v,
                fit.hyst_gamma, fit.hyst_initial, fit.hyst_m0_v, m0, fit.r0_ohm, fit.holdout.rmse);
    cr_assert_float_eq(fit.hyst_m_v, m, 0.01 * m, "m %g", fit.hyst_m_v);
    cr_assert_float_eq(fit.hyst_gamma, gamma, 0.02 * gamma, "gamma %g", fit.hyst_gamma);
    cr_assert_float_eq(fit.hyst_initial, 1.0, 0.01, "h0 %g", fit.hyst_initial);
    cr_assert_float_eq(fit.r0_ohm, r0, 0.01 * r0);
    cr_assert_float_eq(fit.hyst_m0_v, m0, 1e-4 + 0.02 * m0, "m0 %g", fit.hyst_m0_v);
    cr_assert_lt(fit.holdout.rmse, 1e-4);
    free(fit.model_v), free(t), free(i), free(v);
    sits_battery_free(b);
  }
}

Test(battery_fit, a123_dynamic_test_holds_out, .disabled = TU_MAIN_BUILD_ONLY) {
  char path[512];
  snprintf(path, sizeof path, "%s/a123_dyn_25degC_s1.csv", SITS_VALIDATION_DATA);
  sits_table *tb = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_table_read_csv(path, &tb, &err), SITS_OK, "%s", err.msg);
  /* the file stops before the end-of-discharge knee (validation/data/PROVENANCE.txt) */
  size_t n = tb->n_rows;
  double *t = column(n), *i = column(n), *v = column(n);
  for (size_t k = 0; k < n; k++) {
    t[k] = sits_table_at(tb, k, 0);
    i[k] = sits_table_at(tb, k, 1); /* in these dynamic tests discharge is positive */
    v[k] = sits_table_at(tb, k, 2);
  }
  sits_battery_cfg c = a123_cell();
  for (size_t rc = 1; rc <= 2; rc++) {
    sits_battery_fit fit;
    cr_assert_eq(sits_battery_fit_cell(&c, t, i, v, n, rc, 0.7, false, &fit, &err), SITS_OK, "%s",
                 err.msg);
    cr_log_info("%zuRC: R0 %.5f R1 %.5f C1 %.1f SOC0 %.4f train rmse %.4f V holdout rmse %.4f V "
                "max %.4f V",
                rc, fit.r0_ohm, fit.rc_r_ohm[0], fit.rc_c_f[0], fit.initial_soc, fit.train.rmse,
                fit.holdout.rmse, fit.holdout.max_abs_err);
    /* measured when written: held-out RMSE 22.5 mV (1RC) and 15.0 mV (2RC), inside the
     * 10-30 mV the literature reports for 1RC/2RC models on dynamic profiles; the bounds
     * leave a third of margin for other platforms' floating point and GSL versions */
    cr_assert_lt(fit.holdout.rmse, rc == 1 ? 0.030 : 0.020, "%zuRC holdout %g V", rc,
                 fit.holdout.rmse);
    cr_assert_lt(fit.train.rmse, fit.holdout.rmse);
    cr_assert(fit.r0_ohm > 0.008 && fit.r0_ohm < 0.015, "R0 %g (26650 LFP: ~10 mOhm)", fit.r0_ohm);
    cr_assert_gt(fit.holdout.n, 5000);
    free(fit.model_v);
  }
  free(t), free(i), free(v);
  sits_table_free(tb);
}

/* A cycler that logs two rows per time stamp (10 Hz data to 0.01 s): the rows of one stamp
 * are merged, current and voltage averaged, and counted; the fit equals the fit of the
 * averaged file. Time that goes back is an error at its line. */
/* What a fit cannot take from its data is said, not written as a cell's: a trace of rests
 * only (no current: the resistances keep their starts, and a constant voltage has no R^2), and
 * a voltage drift under an on/off current, which a pair of 1e11-ohm-scale R and a time
 * constant far past the test absorbs (before: written with no flag, converged). */
Test(battery_fit, what_the_data_cannot_fit_is_flagged) {
  const char *cfg = SITS_CONFIGS "/scenarios/a123_cell_calibrate.cfg";
  char *text = malloc(65536), args[2048], *out, *err;
  size_t n = (size_t)snprintf(text, 65536, "time_s,current_a,voltage_v\n");
  for (int k = 0; k < 50; k++)
    n += (size_t)snprintf(text + n, 65536 - n, "%d,0,3.30\n", k);
  char *rest = tu_write("rest_only.csv", text);
  snprintf(args, sizeof args, "calibrate %s --trace %s --fit battery -o %s/rest_cal.cfg", cfg, rest,
           tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  cr_assert(strstr(out, "the trace carries no current"), "%s", out);
  cr_assert(strstr(out, "\"r2\":null"), "%s", out);
  cr_assert(strstr(err, "warning: the trace carries no current"), "%s", err);
  cr_assert_null(strstr(out, "below the 1 micro-ohm"), "%s", out);
  free(out), free(err);
  /* with a cell of no RC pair the flags hold two strings more: a JSON array still (the first
   * of them was written without its comma) */
  snprintf(args, sizeof args,
           "calibrate %s --trace %s --fit battery --set 'platform.battery.rc=()' -o "
           "%s/rest_cal2.cfg",
           cfg, rest, tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  cr_assert(strstr(out, "current steps\",\"the cell has no RC pair"), "%s", out);
  free(out), free(err), free(rest);
  /* 1-s steps, 2 A on and off every 20 s, 10 mOhm, and a drift of -0.5 mV/s the cell has not */
  n = (size_t)snprintf(text, 65536, "time_s,current_a,voltage_v\n");
  for (int k = 0; k < 400; k++) {
    double i = (k / 20) % 2 ? 2.0 : 0.0;
    n += (size_t)snprintf(text + n, 65536 - n, "%d,%g,%.6f\n", k, i, 3.30 - 0.01 * i - 0.0005 * k);
  }
  char *drift = tu_write("drift.csv", text);
  free(text);
  snprintf(args, sizeof args, "calibrate %s --trace %s --fit battery -o %s/drift_cal.cfg", cfg,
           drift, tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  cr_log_info("%s", out);
  cr_assert(strstr(out, "no relaxation in the data supports it"), "%s", out);
  free(out), free(err), free(drift);
}

Test(battery_fit, equal_time_stamps_are_merged) {
  const char *src = SITS_VALIDATION_DATA "/a123_dyn_25degC_s1.csv";
  char *orig = tu_slurp(src);
  char *dup_path = malloc(600), *cut_path = malloc(600);
  snprintf(dup_path, 600, "%s/dup.csv", tu_dir());
  snprintf(cut_path, 600, "%s/cut.csv", tu_dir());
  FILE *dup = fopen(dup_path, "w"), *cut = fopen(cut_path, "w");
  fputs("time_s,current_a,voltage_v\n", dup);
  fputs("time_s,current_a,voltage_v\n", cut);
  size_t rows = 0;
  char *save = NULL;
  strtok_r(orig, "\n", &save); /* the header */
  for (char *line = strtok_r(NULL, "\n", &save); line && rows < 6000;
       line = strtok_r(NULL, "\n", &save), rows++) {
    double t, i, v;
    cr_assert_eq(sscanf(line, "%lf,%lf,%lf", &t, &i, &v), 3);
    fprintf(cut, "%.4f,%.4f,%.4f\n", t, i, v);
    /* two readings per stamp, 0.05 A and 2 mV either side of the mean */
    fprintf(dup, "%.4f,%.4f,%.4f\n%.4f,%.4f,%.4f\n", t, i - 0.05, v - 0.002, t, i + 0.05,
            v + 0.002);
  }
  fclose(dup), fclose(cut), free(orig);
  char cmd[2048], *a, *b, *err;
  const char *cfg = SITS_CONFIGS "/scenarios/a123_cell_calibrate.cfg";
  snprintf(cmd, sizeof cmd, "calibrate %s --trace %s --fit battery -o %s/a.cfg", cfg, cut_path,
           tu_dir());
  cr_assert_eq(tu_cli(cmd, &a, &err), 0, "%s", err);
  free(err);
  snprintf(cmd, sizeof cmd, "calibrate %s --trace %s --fit battery -o %s/b.cfg", cfg, dup_path,
           tu_dir());
  cr_assert_eq(tu_cli(cmd, &b, &err), 0, "%s", err);
  free(err);
  cr_assert(strstr(a, "\"merged_rows\":0"), "%s", a);
  cr_assert(strstr(b, "\"merged_rows\":6000"), "%s", b);
  /* the same fit: the averages differ from the file's by rounding only (1e-16 relative), so
   * the fitted values agree to 1e-6 relative (the solver stops at 1e-8) */
  const char *keys[] = {"\"platform.battery.r0_ohm\":", "\"platform.battery.rc.[0].r_ohm\":",
                        "\"platform.battery.rc.[0].c_f\":", "\"initial_soc_of_the_test\":"};
  for (size_t k = 0; k < 4; k++) {
    const char *ka = strstr(a, keys[k]), *kb = strstr(b, keys[k]);
    cr_assert(ka && kb, "%s", keys[k]);
    double va = strtod(ka + strlen(keys[k]), NULL), vb = strtod(kb + strlen(keys[k]), NULL);
    cr_assert_float_eq(va, vb, 1e-6 * fabs(va), "%s %.10g vs %.10g", keys[k], va, vb);
  }
  free(a), free(b);
  /* time going back: the line is named */
  char *back = tu_write("back.csv", "time_s,current_a,voltage_v\n0,1,3.3\n1,1,3.3\n1,1,3.3\n"
                                    "0.5,1,3.3\n2,1,3.3\n");
  snprintf(cmd, sizeof cmd, "calibrate %s --trace %s --fit battery -o %s/c.cfg", cfg, back,
           tu_dir());
  cr_assert_eq(tu_cli(cmd, NULL, &err), 1);
  cr_assert(strstr(err, "back.csv:5: time goes back (0.5 s after 1 s)"), "%s", err);
  free(err), free(back), free(dup_path), free(cut_path);
}

/* Cycler data as it comes: the segments recognised in a synthetic test of known shape —
 * 3 rests of 100 s between 4 discharge pulses of 2 A for 60 s, then a 1 A charge for 120 s,
 * 1-s samples, a cell of R0 = 20 mOhm and no RC pair (the step resistance is R0 up to the
 * OCV's change within one sample) — and the A123 and Leaf tests' step resistance against
 * their fitted R0. */
#include "sits_calibrate.h"

Test(battery_fit, cycler_segments) {
  char text[1 << 16];
  size_t n = (size_t)snprintf(text, sizeof text, "time_s,current_a,voltage_v\n");
  double soc = 0.8, t = 0;
  for (int pulse = 0; pulse < 4; pulse++) {
    for (int k = 0; k < 60; k++, t++) {
      n += (size_t)snprintf(text + n, sizeof text - n, "%g,2.0,%.9f\n", t,
                            3.0 + 1.2 * soc - 0.02 * 2.0);
      soc -= 2.0 / (3600 * 2.0);
    }
    for (int k = 0; k < (pulse < 3 ? 100 : 1); k++, t++)
      n += (size_t)snprintf(text + n, sizeof text - n, "%g,0.0,%.9f\n", t, 3.0 + 1.2 * soc);
  }
  for (int k = 0; k < 120; k++, t++) {
    n += (size_t)snprintf(text + n, sizeof text - n, "%g,-1.0,%.9f\n", t,
                          3.0 + 1.2 * soc + 0.02 * 1.0);
    soc += 1.0 / (3600 * 2.0);
  }
  char *trace = tu_write("cycler.csv", text);
  sits_scenario *sc = tu_load(
      "cycler.cfg",
      "platform = { thermal = { nodes = ( { name = \"cell\"; c_j_per_k = 40.0; } );\n"
      "  links = ( { a = \"cell\"; b = \"ambient\"; r_k_per_w = 5.0; } ); };\n"
      "  battery = { series = 1; parallel = 1; capacity_ah = 2.0; ocv_soc = [0.0, 0.5, 1.0];\n"
      "    ocv_v = [3.0, 3.6, 4.2]; r0_ohm = 0.01; cutoff_v = 2.5; }; };\n"
      "replay = { battery = { discharge_positive = true; }; };\n"
      "workload = { phases = ( { duration_s = 10.0; } ); };\n");
  sits_calibrate_opts o = {.trace_path = trace, .discharge_positive = -1, .train_fraction = 0.7};
  sits_calibration c;
  sits_err err = {0};
  cr_assert_eq(sits_calibrate_battery(sc, &o, &c, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(c.n_rests, 3, "rests %zu", c.n_rests);
  cr_assert_float_eq(c.rest_s, 3 * 100.0, 3.0, "rest %g s", c.rest_s); /* to the sample */
  /* steps: 3 pulse starts (the first pulse starts with the file), 4 pulse ends (the last
   * into a 1-s rest), the charge's start (0 -> -1 A: 50 % of the largest |I|) */
  cr_assert_eq(c.n_steps, 8, "steps %zu", c.n_steps);
  cr_assert_float_eq(c.discharge_ah, 4 * 60 * 2.0 / 3600, 1e-9);
  cr_assert_float_eq(c.charge_ah, 119 * 1.0 / 3600, 1e-9); /* the last sample ends the file */
  cr_assert_float_eq(c.r_step_median_ohm, 0.02, 0.002, "R step %g", c.r_step_median_ohm);
  sits_calibration_release(&c);
  sits_scenario_free(sc);
  /* resistance tables at SOC 0.1 / 0.5 / 0.78 on a training part (the first 462 of 661
   * samples: three 2-A, 60-s pulses) that covers SOC 0.8 down to 0.8 - 3 * 120 As / 7200 As
   * = 0.75: the JSON flags the first two points, not the third */
  sc = tu_load("cycler_tables.cfg",
               "platform = { thermal = { nodes = ( { name = \"cell\"; c_j_per_k = 40.0; } );\n"
               "  links = ( { a = \"cell\"; b = \"ambient\"; r_k_per_w = 5.0; } ); };\n"
               "  battery = { series = 1; parallel = 1; capacity_ah = 2.0; ocv_soc = [0.0, 0.5, "
               "1.0];\n    ocv_v = [3.0, 3.6, 4.2]; r0_ohm = 0.01; cutoff_v = 2.5;\n"
               "    r_soc = [0.1, 0.5, 0.78]; }; };\n"
               "replay = { battery = { discharge_positive = true; }; };\n"
               "workload = { phases = ( { duration_s = 10.0; } ); };\n");
  cr_assert_eq(sits_calibrate_battery(sc, &o, &c, &err), SITS_OK, "%s", err.msg);
  cr_assert_float_eq(c.fit.train_soc_hi, 0.8, 0.005, "%g", c.fit.train_soc_hi);
  cr_assert_float_eq(c.fit.train_soc_lo, 0.8 - 3 * 60 * 2.0 / 3600 / 2.0, 0.005, "%g",
                     c.fit.train_soc_lo);
  char *json = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&json, &len);
  cr_assert_eq(sits_write_calibration_json(&c, mem), SITS_OK);
  fclose(mem);
  cr_assert(strstr(json, "r_soc point 0 (SOC 0.1) lies outside"), "%s", json);
  cr_assert(strstr(json, "r_soc point 1 (SOC 0.5) lies outside"), "%s", json);
  cr_assert_null(strstr(json, "r_soc point 2"), "%s", json);
  free(json);
  sits_calibration_release(&c);
  sits_scenario_free(sc);
  free(trace);
}

/* Temperatures from the file: the same pulses on a cell whose R0 and R1 follow Arrhenius
 * (30 kJ/mol; 15 and 12 mOhm at 25 C) while the chamber alternates 10 and 40 C every 10 min. With
 * the temperature column the fit is exact (R0 at 25 C recovered); without it one R0 must
 * serve both temperatures (x1.8 and x0.56 of it) and the error shows. */
Test(battery_fit, temperatures_from_the_file) {
  sits_battery_cfg c = a123_cell();
  c.r_ea_j_per_mol = 30000.0, c.r_ref_c = 25.0;
  sits_err err = {0};
  sits_battery *b = cell_new(&c);
  size_t n = 3600; /* from a rest, SOC 0.9 to 0.18 */
  double *t = malloc(n * sizeof *t), *i = malloc(n * sizeof *i), *v = malloc(n * sizeof *v),
         *tc = malloc(n * sizeof *tc);
  double r0 = 0.015;
  synthesize(b,
             &(synth){.n = n,
                      .shift = 1,
                      .r0 = r0,
                      .r1 = 0.012,
                      .c1 = 2500,
                      .t_period = 600,
                      .t_lo_c = 10.0,
                      .t_hi_c = 40.0},
             t, i, v, tc);
  sits_battery_fit with, without;
  cr_assert_eq(sits_battery_fit_cell_t(&c, t, i, v, tc, n, 1, 0.7, false, &with, &err), SITS_OK,
               "%s", err.msg);
  cr_assert_eq(sits_battery_fit_cell(&c, t, i, v, n, 1, 0.7, false, &without, &err), SITS_OK);
  cr_log_info("R0 %g (with T), %g (without); held-out %g V vs %g V", with.r0_ohm, without.r0_ohm,
              with.holdout.rmse, without.holdout.rmse);
  cr_assert_float_eq(with.r0_ohm, r0, 0.01 * r0, "R0 %g", with.r0_ohm);
  cr_assert_lt(with.holdout.rmse, 1e-4);
  cr_assert_gt(without.holdout.rmse, 10 * with.holdout.rmse + 1e-3);
  free(with.model_v), free(without.model_v), free(t), free(i), free(v), free(tc);
  sits_battery_free(b);
}

/* The activation energy fitted (SITS_BATTERY_FIT_ARRHENIUS): data made with E_a 30 kJ/mol,
 * the chamber alternating between 10 and 40 C every 600 s (R at 10 C is 1.83 times R at 25 C,
 * at 40 C 0.56 times). Fitted with R0 and the pair from a cell that says 20 kJ/mol (the start),
 * E_a comes back within 1 %; kept (--fit soc,arrhenius: R0 and the pair as made, E_a from 0)
 * too. Refused: no temperatures, a temperature that stays within 1 K over the training
 * part, a cell with rows over temperature; and a constant one is not fitted. */
Test(battery_fit, recovers_the_activation_energy) {
  sits_battery_cfg c = a123_cell();
  c.r_ea_j_per_mol = 30000.0, c.r_ref_c = 25.0;
  sits_err err = {0};
  sits_battery *b = cell_new(&c);
  size_t n = 3600;
  double *t = column(n), *i = column(n), *v = column(n), *tc = column(n);
  const double r0 = 0.015, r1 = 0.012, c1 = 2500;
  synthesize(b,
             &(synth){.n = n,
                      .shift = 1,
                      .r0 = r0,
                      .r1 = r1,
                      .c1 = c1,
                      .t_period = 600,
                      .t_lo_c = 10.0,
                      .t_hi_c = 40.0},
             t, i, v, tc);
  sits_battery_cfg start = c;
  start.r_ea_j_per_mol = 20000.0;
  sits_battery_fit fit;
  cr_assert_eq(sits_battery_fit_cell_x(&start, t, i, v, tc, NULL, n, 1, 0.7,
                                       SITS_BATTERY_FIT_ARRHENIUS, &fit, &err),
               SITS_OK, "%s", err.msg);
  cr_log_info("E_a %g J/mol, R0 %g, R1 %g, C1 %g, held out %g V", fit.r_ea_j_per_mol, fit.r0_ohm,
              fit.rc_r_ohm[0], fit.rc_c_f[0], fit.holdout.rmse);
  cr_assert_float_eq(fit.r_ea_j_per_mol, 30000.0, 300.0, "%g", fit.r_ea_j_per_mol);
  cr_assert_float_eq(fit.r0_ohm, r0, 0.01 * r0, "R0 %g", fit.r0_ohm);
  cr_assert_float_eq(fit.rc_r_ohm[0], r1, 0.01 * r1, "R1 %g", fit.rc_r_ohm[0]);
  cr_assert_float_eq(fit.train_temp_lo_c, 10.0, 1e-12);
  cr_assert_float_eq(fit.train_temp_hi_c, 40.0, 1e-12);
  cr_assert_lt(fit.holdout.rmse, 1e-4);
  free(fit.model_v);
  /* kept: the cell as made but with no activation energy, only SOC0 and E_a fitted */
  sits_battery_cfg kept_cell = c;
  kept_cell.r0_ohm = r0, kept_cell.n_rc = 1, kept_cell.rc_r_ohm[0] = r1, kept_cell.rc_c_f[0] = c1;
  kept_cell.r_ea_j_per_mol = 0;
  cr_assert_eq(sits_battery_fit_cell_x(&kept_cell, t, i, v, tc, NULL, n, 1, 0.7,
                                       SITS_BATTERY_FIT_KEEP | SITS_BATTERY_FIT_ARRHENIUS, &fit,
                                       &err),
               SITS_OK, "%s", err.msg);
  cr_log_info("kept: E_a %g J/mol, held out %g V", fit.r_ea_j_per_mol, fit.holdout.rmse);
  cr_assert_float_eq(fit.r_ea_j_per_mol, 30000.0, 300.0, "%g", fit.r_ea_j_per_mol);
  cr_assert_lt(fit.holdout.rmse, 1e-4);
  free(fit.model_v);
  /* without the flag the cell's own value is the model's (and reported) */
  cr_assert_eq(sits_battery_fit_cell_x(&c, t, i, v, tc, NULL, n, 1, 0.7, 0u, &fit, &err), SITS_OK);
  cr_assert_eq(fit.r_ea_j_per_mol, 30000.0);
  free(fit.model_v);
  /* refused */
  cr_assert_eq(sits_battery_fit_cell_x(&c, t, i, v, NULL, NULL, n, 1, 0.7,
                                       SITS_BATTERY_FIT_ARRHENIUS, &fit, &err),
               SITS_EINPUT);
  cr_assert(strstr(err.msg, "the test has none"), "%s", err.msg);
  for (size_t k = 0; k < n; k++) /* within 0.5 K */
    tc[k] = 25.0 + 0.5 * sin((double)k / 100.0);
  cr_assert_eq(sits_battery_fit_cell_x(&c, t, i, v, tc, NULL, n, 1, 0.7, SITS_BATTERY_FIT_ARRHENIUS,
                                       &fit, &err),
               SITS_EINPUT);
  cr_assert(strstr(err.msg, "at least 1 K"), "%s", err.msg);
  sits_battery_cfg rows = c;
  rows.n_r_t = 2, rows.r_t_c[0] = 0, rows.r_t_c[1] = 40;
  rows.r0_scale[0][0] = 2, rows.r0_scale[1][0] = 1;
  cr_assert_eq(sits_battery_fit_cell_x(&rows, t, i, v, tc, NULL, n, 1, 0.7,
                                       SITS_BATTERY_FIT_KEEP | SITS_BATTERY_FIT_ARRHENIUS, &fit,
                                       &err),
               SITS_EINPUT);
  cr_assert(strstr(err.msg, "replace the Arrhenius factor"), "%s", err.msg);
  free(t), free(i), free(v), free(tc);
  sits_battery_free(b);
}

/* A test that starts under load: 2-A and 4-A pulses from the first sample, R0 28.5 mOhm and
 * R1 22.8 mOhm. The start SOC is read at the first rest (the OCV there) and counted back by
 * the charge moved before it. From the first voltage (57 mV under the OCV at 2 A), every
 * start converged to R = 0 (measured before this change). */
Test(battery_fit, a_test_that_starts_under_load) {
  sits_battery_cfg c = a123_cell();
  sits_err err = {0};
  sits_battery *b = cell_new(&c);
  size_t n = 7200;
  double *t = column(n), *i = column(n), *v = column(n);
  double r0 = 0.0285, r1 = 0.0228;
  synthesize(b, &(synth){.n = n, .r0 = r0, .r1 = r1, .c1 = 2500}, t, i, v, NULL);
  sits_battery_fit fit;
  cr_assert_eq(sits_battery_fit_cell(&c, t, i, v, n, 1, 0.7, false, &fit, &err), SITS_OK, "%s",
               err.msg);
  cr_log_info("under load: R0 %g R1 %g SOC0 %g held-out %g V", fit.r0_ohm, fit.rc_r_ohm[0],
              fit.initial_soc, fit.holdout.rmse);
  cr_assert_float_eq(fit.r0_ohm, r0, 0.01 * r0, "R0 %g", fit.r0_ohm);
  cr_assert_float_eq(fit.rc_r_ohm[0], r1, 0.01 * r1, "R1 %g", fit.rc_r_ohm[0]);
  cr_assert_float_eq(fit.initial_soc, 0.9, 1e-3);
  free(fit.model_v), free(t), free(i), free(v);
  sits_battery_free(b);
}

/* Resistance tables over SOC recovered: a cell whose R0 is 1.6 / 1.0 / 0.9 times 15 mOhm and
 * whose R1 is 2.0 / 1.0 / 0.8 times 12 mOhm at SOC 0.2 / 0.5 / 0.8 (the model's Steffen
 * tables generate the data), pulses of 2 A and 4 A from SOC 0.9 for an hour (to SOC ~0.17),
 * fitted whole at the same knots from flat starts: the factors, the reference values at the
 * knot nearest 0.5 and C1 come back within 1 %, the voltage within 0.1 mV. */
Test(battery_fit, recovers_resistance_tables_over_soc) {
  sits_battery_cfg c = a123_cell();
  const double f0[3] = {1.6, 1.0, 0.9}, f1[3] = {2.0, 1.0, 0.8};
  c.r0_ohm = 0.015, c.n_rc = 1, c.rc_r_ohm[0] = 0.012, c.rc_c_f[0] = 2500;
  c.n_r_soc = 3, c.rc_has_scale[0] = true;
  for (size_t q = 0; q < 3; q++)
    c.r_soc[q] = 0.2 + 0.3 * (double)q, c.r0_scale[0][q] = f0[q], c.rc_r_scale[0][0][q] = f1[q];
  sits_err err = {0};
  sits_battery *b = cell_new(&c);
  size_t n = 3600;
  double *t = column(n), *i = column(n), *v = column(n);
  double soc = 0.9, v1 = 0, q_ah = sits_battery_capacity_ah(b);
  for (size_t k = 0; k < n; k++) {
    size_t phase = (k / 120) % 4;
    t[k] = (double)k, i[k] = phase == 0 ? 2.0 : phase == 2 ? 4.0 : 0.0;
    v[k] = sits_battery_ocv_v(b, soc) - v1 - sits_battery_r0_ohm(b, soc, 25.0) * i[k];
    double r1 = sits_battery_rc_r_ohm(b, 0, soc, 25.0), e = exp(-1.0 / (r1 * 2500));
    v1 = v1 * e + r1 * i[k] * (1 - e);
    soc -= i[k] / (3600 * q_ah);
  }
  cr_assert_lt(soc, 0.2);
  sits_battery_free(b);
  for (size_t q = 0; q < 3; q++) /* flat starts */
    c.r0_scale[0][q] = c.rc_r_scale[0][0][q] = 1.0;
  sits_battery_fit fit;
  cr_assert_eq(sits_battery_fit_cell(&c, t, i, v, n, 1, 1.0, false, &fit, &err), SITS_OK, "%s",
               err.msg);
  cr_log_info("tables: R0 %g x [%g %g %g], R1 %g x [%g %g %g], C1 %g, rmse %g", fit.r0_ohm,
              fit.r0_scale[0], fit.r0_scale[1], fit.r0_scale[2], fit.rc_r_ohm[0],
              fit.rc_r_scale[0][0], fit.rc_r_scale[0][1], fit.rc_r_scale[0][2], fit.rc_c_f[0],
              fit.train.rmse);
  cr_assert_eq(fit.n_r_soc, 3);
  cr_assert_float_eq(fit.r0_ohm, 0.015, 0.01 * 0.015);
  cr_assert_float_eq(fit.rc_r_ohm[0], 0.012, 0.01 * 0.012);
  cr_assert_float_eq(fit.rc_c_f[0], 2500, 0.01 * 2500);
  for (size_t q = 0; q < 3; q++) {
    cr_assert_float_eq(fit.r0_scale[q], f0[q], 0.01 * f0[q], "R0 knot %zu", q);
    cr_assert_float_eq(fit.rc_r_scale[0][q], f1[q], 0.01 * f1[q], "R1 knot %zu", q);
  }
  cr_assert_lt(fit.train.rmse, 1e-4);
  free(fit.model_v);
  /* rows over temperature are fitted only when asked (SITS_BATTERY_FIT_ROWS), from tests at
   * their temperatures */
  c.n_r_t = 2, c.r_t_c[0] = 0, c.r_t_c[1] = 40;
  cr_assert_neq(sits_battery_fit_cell(&c, t, i, v, n, 1, 1.0, false, &fit, &err), SITS_OK);
  cr_assert(strstr(err.msg, "fit them with rows"), "%s", err.msg);
  /* asked, from a test without temperatures: refused */
  cr_assert_neq(sits_battery_fit_cell_x(&c, t, i, v, NULL, NULL, n, 1, 1.0, SITS_BATTERY_FIT_ROWS,
                                        &fit, &err),
                SITS_OK);
  cr_assert(strstr(err.msg, "test 1 has none"), "%s", err.msg);
  free(t), free(i), free(v);
}

/* ---- a joint fit over tests at several temperatures (sits_battery_fit_tests) ---- */

/* One test of @p n 1-s samples made by the model's own functions from @p b: pulses of 2 A and 4
 * A for 120 s each with rests between (shifted by @p shift phases), from @p soc0, the cell
 * temperature rising linearly from @p t0_c to @p t1_c. */
static void synth_ramp(const sits_battery *b, size_t n, double soc0, double t0_c, double t1_c,
                       size_t shift, double *t, double *i, double *v, double *tc) {
  double soc = soc0, v1 = 0, q_ah = sits_battery_capacity_ah(b);
  for (size_t k = 0; k < n; k++) {
    size_t phase = (k / 120 + shift) % 4;
    t[k] = (double)k, i[k] = phase == 0 ? 2.0 : phase == 2 ? 4.0 : 0.0;
    tc[k] = t0_c + (t1_c - t0_c) * (double)k / (double)(n - 1);
    v[k] = sits_battery_ocv_v(b, soc) - v1 - sits_battery_r0_ohm(b, soc, tc[k]) * i[k];
    double r1 = sits_battery_rc_r_ohm(b, 0, soc, tc[k]);
    double e = exp(-1.0 / (r1 * sits_battery_rc_c_f(b, 0, soc, tc[k])));
    v1 = v1 * e + r1 * i[k] * (1 - e);
    soc -= i[k] / (3600 * q_ah);
  }
}

/* Rows over temperature recovered from three tests: a cell whose R0 and R1 have factors over
 * SOC (0.2 / 0.5 / 0.8) in rows at 0, 25 and 40 C and whose C1 is 0.5 / 1 / 1.3 times 2500 F
 * there (the model's tables make the data), run for an hour each while the cell warms from 0
 * to 6 C, 22 to 28 C and 37 to 40 C, each from its own SOC. Fitted together at the cell's
 * rows from flat starts (every factor 1): each row's factors, the reference values (25 C, SOC
 * 0.5), C1's factors and the three start SOCs come back within 1 %, the voltage within 0.1
 * mV, although no test stays at one row (the cold test weighs 0 - 24 % on the 25 C row).
 * Without rows in the cell they go to the tests' median temperatures (2.1, 24.1, 38.0 C). */
Test(battery_fit, recovers_rows_over_temperature_from_tests_at_three_temperatures,
     .disabled = TU_MAIN_BUILD_ONLY) {
  sits_battery_cfg c = a123_cell();
  const double rows[3] = {0.0, 25.0, 40.0}, soc0[3] = {0.9, 0.8, 0.95};
  const double f0[3][3] = {{3.0, 2.4, 2.6}, {1.6, 1.0, 0.9}, {1.2, 0.8, 0.7}};
  const double f1[3][3] = {{4.0, 2.8, 2.5}, {2.0, 1.0, 0.8}, {1.5, 0.7, 0.6}};
  const double cf[3] = {0.5, 1.0, 1.3}, ramp[3][2] = {{0, 6}, {22, 28}, {37, 40}};
  c.r0_ohm = 0.015, c.n_rc = 1, c.rc_r_ohm[0] = 0.012, c.rc_c_f[0] = 2500;
  c.r_ref_c = 25.0; /* the reference row: the one nearest it */
  c.n_r_soc = 3, c.n_r_t = 3, c.rc_has_scale[0] = c.rc_has_c_scale[0] = true;
  for (size_t r = 0; r < 3; r++) {
    c.r_t_c[r] = rows[r];
    for (size_t q = 0; q < 3; q++)
      c.r_soc[q] = 0.2 + 0.3 * (double)q, c.r0_scale[r][q] = f0[r][q],
      c.rc_r_scale[0][r][q] = f1[r][q], c.rc_c_scale[0][r][q] = cf[r];
  }
  sits_err err = {0};
  sits_battery *b = cell_new(&c);
  size_t n = 3600;
  double *t[3], *i[3], *v[3], *tc[3];
  sits_battery_test tests[3];
  for (size_t s = 0; s < 3; s++) {
    t[s] = column(n), i[s] = column(n), v[s] = column(n), tc[s] = column(n);
    synth_ramp(b, n, soc0[s], ramp[s][0], ramp[s][1], s, t[s], i[s], v[s], tc[s]);
    tests[s] = (sits_battery_test){t[s], i[s], v[s], tc[s], NULL, n, false, NAN};
  }
  sits_battery_free(b);
  sits_battery_cfg start = c; /* flat starts: every factor 1 */
  for (size_t r = 0; r < 3; r++)
    for (size_t q = 0; q < 3; q++)
      start.r0_scale[r][q] = start.rc_r_scale[0][r][q] = start.rc_c_scale[0][r][q] = 1.0;
  sits_battery_fit fit;
  cr_assert_eq(sits_battery_fit_tests(&start, tests, 3, 1, 0.7, SITS_BATTERY_FIT_ROWS, &fit, &err),
               SITS_OK, "%s", err.msg);
  cr_log_info("rows: R0 %g R1 %g C1 %g, train %g V, held out %g V", fit.r0_ohm, fit.rc_r_ohm[0],
              fit.rc_c_f[0], fit.train.rmse, fit.holdout.rmse);
  cr_assert_eq(fit.n_r_t, 3);
  cr_assert_eq(fit.n_tests, 3);
  cr_assert_float_eq(fit.r0_ohm, 0.015, 0.01 * 0.015);
  cr_assert_float_eq(fit.rc_r_ohm[0], 0.012, 0.01 * 0.012);
  cr_assert_float_eq(fit.rc_c_f[0], 2500, 0.01 * 2500);
  for (size_t r = 0; r < 3; r++) {
    cr_assert_eq(fit.r_t_c[r], rows[r]);
    cr_assert_float_eq(fit.rc_c_scale_t[0][r], cf[r], 0.01 * cf[r], "C1 row %zu", r);
    for (size_t q = 0; q < 3; q++) {
      cr_assert_float_eq(fit.r0_scale_t[r][q], f0[r][q], 0.01 * f0[r][q], "R0 %zu %zu", r, q);
      cr_assert_float_eq(fit.rc_r_scale_t[0][r][q], f1[r][q], 0.01 * f1[r][q], "R1 %zu %zu", r, q);
    }
    cr_assert_float_eq(fit.tests[r].initial_soc, soc0[r], 1e-3);
    cr_assert_eq(fit.tests[r].offset, r * n);
    cr_assert_lt(fit.tests[r].holdout.rmse, 1e-4);
  }
  cr_assert_lt(fit.train.rmse, 1e-4);
  cr_assert_lt(fit.holdout.rmse, 1e-4);
  free(fit.model_v);
  /* no rows in the cell: at the tests' training-part medians, each to 0.1 K (the ramps' value
   * at sample 1259.5 of 3599: 2.0997, 24.0997 and 38.0499 C) */
  sits_battery_cfg none = start;
  none.n_r_t = 0, none.rc_has_c_scale[0] = false;
  cr_assert_eq(sits_battery_fit_tests(&none, tests, 3, 1, 0.7, SITS_BATTERY_FIT_ROWS, &fit, &err),
               SITS_OK, "%s", err.msg);
  cr_log_info("rows at the medians: %g %g %g C, held out %g V", fit.r_t_c[0], fit.r_t_c[1],
              fit.r_t_c[2], fit.holdout.rmse);
  cr_assert_eq(fit.n_r_t, 3);
  cr_assert_float_eq(fit.r_t_c[0], 2.1, 1e-9);
  cr_assert_float_eq(fit.r_t_c[1], 24.1, 1e-9);
  cr_assert_float_eq(fit.r_t_c[2], 38.0, 1e-9);
  cr_assert_float_eq(fit.tests[1].temp_median_c, 24.1, 0.01);
  free(fit.model_v);
  /* refused: a row no test comes near, tests at one temperature, rows with a kept cell or an
   * activation energy, a test without temperatures */
  sits_battery_cfg far = start;
  far.n_r_t = 4, far.r_t_c[3] = 60.0;
  for (size_t q = 0; q < 3; q++)
    far.r0_scale[3][q] = far.rc_r_scale[0][3][q] = far.rc_c_scale[0][3][q] = 1.0;
  cr_assert_eq(sits_battery_fit_tests(&far, tests, 3, 1, 0.7, SITS_BATTERY_FIT_ROWS, &fit, &err),
               SITS_EINPUT);
  cr_assert(strstr(err.msg, "row at 60 C") && strstr(err.msg, "not be measured"), "%s", err.msg);
  sits_battery_test same[2] = {tests[1], tests[1]};
  cr_assert_eq(sits_battery_fit_tests(&none, same, 2, 1, 0.7, SITS_BATTERY_FIT_ROWS, &fit, &err),
               SITS_EINPUT);
  cr_assert(strstr(err.msg, "two or more temperatures"), "%s", err.msg);
  cr_assert_eq(sits_battery_fit_tests(&start, tests, 3, 1, 0.7,
                                      SITS_BATTERY_FIT_ROWS | SITS_BATTERY_FIT_KEEP, &fit, &err),
               SITS_EINPUT);
  cr_assert_eq(sits_battery_fit_tests(&none, tests, 3, 1, 0.7,
                                      SITS_BATTERY_FIT_ROWS | SITS_BATTERY_FIT_ARRHENIUS, &fit,
                                      &err),
               SITS_EINPUT);
  cr_assert(strstr(err.msg, "replace the Arrhenius factor"), "%s", err.msg);
  tests[2].temp_c = NULL;
  cr_assert_eq(sits_battery_fit_tests(&start, tests, 3, 1, 0.7, SITS_BATTERY_FIT_ROWS, &fit, &err),
               SITS_EINPUT);
  cr_assert(strstr(err.msg, "test 3 has none"), "%s", err.msg);
  cr_assert_eq(sits_battery_fit_tests(&start, tests, 0, 1, 0.7, 0u, &fit, &err), SITS_EINPUT);
  for (size_t s = 0; s < 3; s++)
    free(t[s]), free(i[s]), free(v[s]), free(tc[s]);
}

/* Two tests of one cell at one temperature fitted together without rows: R0, the pair and
 * each test's own start SOC (0.9 and 0.6) come back within 1 %; one test alone gives the same
 * values (the joint fit reuses the residuals of the test a start SOC does not reach). */
Test(battery_fit, two_tests_at_one_temperature_share_the_cell) {
  sits_battery_cfg c = a123_cell();
  c.r0_ohm = 0.015, c.n_rc = 1, c.rc_r_ohm[0] = 0.012, c.rc_c_f[0] = 2500;
  sits_err err = {0};
  sits_battery *b = cell_new(&c);
  size_t n = 2400;
  double *t[2], *i[2], *v[2], *tc[2], soc0[2] = {0.9, 0.6};
  sits_battery_test tests[2];
  for (size_t s = 0; s < 2; s++) {
    t[s] = column(n), i[s] = column(n), v[s] = column(n), tc[s] = column(n);
    synth_ramp(b, n, soc0[s], 25.0, 25.0, 2 * s, t[s], i[s], v[s], tc[s]);
    tests[s] = (sits_battery_test){t[s], i[s], v[s], NULL, NULL, n, false, NAN};
  }
  sits_battery_free(b);
  sits_battery_fit fit, one;
  cr_assert_eq(sits_battery_fit_tests(&c, tests, 2, 1, 0.7, 0u, &fit, &err), SITS_OK, "%s",
               err.msg);
  cr_assert_eq(sits_battery_fit_tests(&c, tests + 1, 1, 1, 0.7, 0u, &one, &err), SITS_OK, "%s",
               err.msg);
  cr_log_info("two tests: R0 %g R1 %g SOC0 %g %g; the second alone: R0 %g", fit.r0_ohm,
              fit.rc_r_ohm[0], fit.tests[0].initial_soc, fit.tests[1].initial_soc, one.r0_ohm);
  cr_assert_float_eq(fit.r0_ohm, 0.015, 0.01 * 0.015);
  cr_assert_float_eq(fit.rc_r_ohm[0], 0.012, 0.01 * 0.012);
  cr_assert_float_eq(fit.rc_c_f[0], 2500, 0.01 * 2500);
  cr_assert_float_eq(fit.tests[0].initial_soc, 0.9, 1e-3);
  cr_assert_float_eq(fit.tests[1].initial_soc, 0.6, 1e-3);
  cr_assert_float_eq(fit.initial_soc, 0.9, 1e-3);
  cr_assert_float_eq(one.r0_ohm, 0.015, 0.01 * 0.015);
  cr_assert_float_eq(one.initial_soc, 0.6, 1e-3);
  cr_assert_eq(fit.n_train, 2 * (size_t)(0.7 * n));
  cr_assert_eq(fit.n_r_t, 0);
  free(fit.model_v), free(one.model_v);
  for (size_t s = 0; s < 2; s++)
    free(t[s]), free(i[s]), free(v[s]), free(tc[s]);
}

/* ---- capacity and coulombic efficiency from a closed cycle (sits_capacity_from_cycle) ---- */

/* One recording at 1-s samples: @p n_seg constant currents @p amps for @p secs each (the
 * last sample, which ends the recording, holds the last current and counts for nothing). */
static size_t cycle_part(const double *amps, const double *secs, size_t n_seg, double **t,
                         double **i) {
  size_t n = 1;
  for (size_t s = 0; s < n_seg; s++)
    n += (size_t)secs[s];
  *t = column(n), *i = column(n);
  size_t k = 0;
  for (size_t s = 0; s < n_seg; s++)
    for (size_t j = 0; j < (size_t)secs[s]; j++, k++)
      (*t)[k] = (double)k, (*i)[k] = amps[s];
  (*t)[k] = (double)k, (*i)[k] = amps[n_seg - 1];
  return n;
}

/* A cell of 2 Ah charged at 95 %: part 1 takes out 1.5 Ah (1.5 A, 1 h) and puts in 0.4 Ah
 * (0.4 A, 1 h; 0.38 stored), part 2 the remaining 2 - 1.12 = 0.88 Ah (0.88 A, 1 h) to empty,
 * part 3 charges 2 / 0.95 Ah back (1 A for 7578.947 s, as whole seconds plus one part second
 * in its own segment). By hand: 2.38 Ah out, 2.505263 Ah in, eta 0.95, capacity 2 Ah at the
 * end of part 2. */
Test(battery_fit, capacity_and_efficiency_of_a_closed_cycle) {
  double *t[3], *i[3];
  size_t n[3];
  const double a1[] = {1.5, -0.4}, s1[] = {3600, 3600}, a2[] = {0.88}, s2[] = {3600};
  n[0] = cycle_part(a1, s1, 2, &t[0], &i[0]);
  n[1] = cycle_part(a2, s2, 1, &t[1], &i[1]);
  const double c3 = 2.0 / 0.95 * 3600; /* A s at 1 A */
  const double a3[] = {-1.0, -(c3 - floor(c3))}, s3[] = {floor(c3), 1};
  n[2] = cycle_part(a3, s3, 2, &t[2], &i[2]);
  sits_cycle_capacity y;
  sits_err err = {0};
  /* tolerance 1e-9: sums of ~10^4 one-second terms, each rounded near 1e-16 */
  cr_assert_eq(sits_capacity_from_cycle(3, n, (const double *const *)t, (const double *const *)i, 1,
                                        NAN, &y, &err),
               SITS_OK, "%s", err.msg);
  cr_assert_float_eq(y.discharge_ah, 2.38, 1e-9);
  cr_assert_float_eq(y.charge_ah, 0.4 + 2.0 / 0.95, 1e-9);
  cr_assert_float_eq(y.coulombic_eff, 0.95, 1e-9, "eta %.12f", y.coulombic_eff);
  cr_assert_float_eq(y.capacity_ah, 2.0, 1e-9, "Q %.12f", y.capacity_ah);
  cr_assert_eq(y.empty_part, 1);
  cr_assert_float_eq(y.empty_t_s, 3600.0, 1e-9);
  cr_assert(isnan(y.eta_ref));
  /* Plett's two efficiencies: part 1's charge at 0.9 (0.36 of 0.4 Ah stored), parts 2-3 at a
   * reference 0.99 measured elsewhere: part 2 takes 2 - 1.14 = 0.86 Ah, part 3 charges
   * 2 / 0.99 Ah; eta of part 1 = (2.36 - 0.99 x 2.020202) / 0.4 = 0.9 */
  free(t[1]), free(i[1]), free(t[2]), free(i[2]);
  const double a2r[] = {0.86}, c3r = 2.0 / 0.99 * 3600;
  n[1] = cycle_part(a2r, s2, 1, &t[1], &i[1]);
  const double a3r[] = {-1.0, -(c3r - floor(c3r))}, s3r[] = {floor(c3r), 1};
  n[2] = cycle_part(a3r, s3r, 2, &t[2], &i[2]);
  cr_assert_eq(sits_capacity_from_cycle(3, n, (const double *const *)t, (const double *const *)i, 1,
                                        0.99, &y, &err),
               SITS_OK, "%s", err.msg);
  cr_assert_float_eq(y.coulombic_eff, 0.9, 1e-9, "eta %.12f", y.coulombic_eff);
  cr_assert_float_eq(y.capacity_ah, 2.0, 1e-9, "Q %.12f", y.capacity_ah);
  cr_assert_float_eq(y.first_charge_ah, 0.4, 1e-9);
  /* the same recordings with one efficiency for all: D / C, and a different capacity */
  cr_assert_eq(sits_capacity_from_cycle(3, n, (const double *const *)t, (const double *const *)i, 1,
                                        NAN, &y, &err),
               SITS_OK, "%s", err.msg);
  cr_assert_float_eq(y.coulombic_eff, 2.36 / (0.4 + 2.0 / 0.99), 1e-9);
  /* not a cycle: the charge back left out (more out than in) */
  cr_assert_eq(sits_capacity_from_cycle(2, n, (const double *const *)t, (const double *const *)i, 1,
                                        NAN, &y, &err),
               SITS_EINPUT);
  cr_assert(strstr(err.msg, "do not take the cell from full back to full"), "%s", err.msg);
  cr_assert_gt(y.discharge_ah, 0); /* counted, then refused: the caller can tell the two apart */
  /* no charge at all; a reference efficiency with one recording; a one-sample recording; a
   * time that stands still */
  cr_assert_eq(sits_capacity_from_cycle(1, n + 1, (const double *const *)t + 1,
                                        (const double *const *)i + 1, 1, NAN, &y, &err),
               SITS_EINPUT);
  cr_assert(strstr(err.msg, "no charge to weigh"), "%s", err.msg);
  /* charge first, then the same discharge (an empty cell filled and emptied): never below
   * where it started, so not a cycle from full */
  {
    const double ac[] = {-1.0, 0.95}, sc[] = {3600, 3600};
    double *tc, *ic;
    size_t nc = cycle_part(ac, sc, 2, &tc, &ic);
    cr_assert_eq(sits_capacity_from_cycle(1, &nc, (const double *const *)&tc,
                                          (const double *const *)&ic, 1, NAN, &y, &err),
                 SITS_EINPUT);
    cr_assert(strstr(err.msg, "it must start full"), "%s", err.msg);
    free(tc), free(ic);
  }
  cr_assert_eq(sits_capacity_from_cycle(1, n, (const double *const *)t, (const double *const *)i, 1,
                                        0.99, &y, &err),
               SITS_EINPUT);
  size_t one[3] = {n[0], 1, n[2]};
  cr_assert_eq(sits_capacity_from_cycle(3, one, (const double *const *)t, (const double *const *)i,
                                        1, NAN, &y, &err),
               SITS_EINPUT);
  cr_assert(strstr(err.msg, "recording 2 of the cycle has 1 samples"), "%s", err.msg);
  t[0][5] = t[0][4];
  cr_assert_eq(sits_capacity_from_cycle(3, n, (const double *const *)t, (const double *const *)i, 1,
                                        NAN, &y, &err),
               SITS_EINPUT);
  cr_assert(strstr(err.msg, "recording 1 of the cycle, sample 6: time does not increase"), "%s",
            err.msg);
  cr_assert_eq(y.discharge_ah, 0); /* nothing counted before every sample passed */
  for (int p = 0; p < 3; p++)
    free(t[p]), free(i[p]);
}

/* A recording whose voltage lags its current by d seconds (the voltage at stamp k taken with
 * I_k - (d / dt_k) (I_k - I_k-1), that current held to the next stamp): pulses of 2 and 4 A
 * every 120 s from SOC 0.9, R0 and one RC pair; samples every dt1 s for the first half, then
 * every dt2 s. */
static void synthesize_lagged(const sits_battery *b, size_t n, double d, double dt1, double dt2,
                              double r0, double r1, double c1, double *t, double *i, double *v) {
  double soc = 0.9, v1 = 0, q = sits_battery_capacity_ah(b);
  for (size_t k = 0; k < n; k++) {
    t[k] = k ? t[k - 1] + (k <= n / 2 ? dt1 : dt2) : 0.0;
    size_t phase = (size_t)(t[k] / 120) % 4;
    i[k] = phase == 0 ? 2.0 : phase == 2 ? 4.0 : 0.0;
    double ik = k ? i[k] - fmin(d / (t[k] - t[k - 1]), 1.0) * (i[k] - i[k - 1]) : i[k];
    v[k] = sits_battery_ocv_v(b, soc) - v1 - r0 * ik;
    if (k + 1 < n) {
      double dt = k + 1 <= n / 2 ? dt1 : dt2, e = exp(-dt / (r1 * c1));
      soc -= ik * dt / (3600 * q); /* discharging only: no coulombic loss */
      v1 = v1 * e + r1 * ik * (1 - e);
    }
  }
}

/* The A123 cell, its battery and 2 h of 1-s sample columns, for the synthetic tests below
 * (R0 15 mOhm, one pair of 12 mOhm and 2.5 kF). */
typedef struct bench {
  sits_battery_cfg c;
  sits_battery *b;
  size_t n;
  double *t, *i, *v;
} bench;

static bench bench_new(void) {
  bench k = {.c = a123_cell(), .n = 7200};
  k.b = cell_new(&k.c);
  k.t = column(k.n), k.i = column(k.n), k.v = column(k.n);
  return k;
}

static void bench_free(bench *k) {
  free(k->t), free(k->i), free(k->v);
  sits_battery_free(k->b);
}

Test(battery_fit, recovers_a_recordings_sample_lag) {
  bench k = bench_new();
  sits_err err = {0};
  const double r0 = 0.015, r1 = 0.012, c1 = 2500;
  /* 1-s samples without and with a 0.6-s lag; then 0.5-s samples, 2-s ones after the middle
   * (the median interval 0.5 s, the lag's bound), lagged 0.3 s */
  for (int lagged = 0; lagged < 3; lagged++) {
    double f = lagged ? 0.6 : 0.0, dt1 = lagged == 2 ? 0.5 : 1.0, dt2 = lagged == 2 ? 2.0 : 1.0;
    synthesize_lagged(k.b, k.n, f * dt1, dt1, dt2, r0, r1, c1, k.t, k.i, k.v);
    sits_battery_fit fit, plain;
    cr_assert_eq(sits_battery_fit_cell_x(&k.c, k.t, k.i, k.v, NULL, NULL, k.n, 1, 0.7,
                                         SITS_BATTERY_FIT_LAG, &fit, &err),
                 SITS_OK, "%s", err.msg);
    cr_assert_eq(
        sits_battery_fit_cell_x(&k.c, k.t, k.i, k.v, NULL, NULL, k.n, 1, 0.7, 0u, &plain, &err),
        SITS_OK, "%s", err.msg);
    cr_log_info("lag %g: fitted %g (%g s), R0 %g, train %g V; without the lag R0 %g, train %g V", f,
                fit.lag_frac, fit.lag_s, fit.r0_ohm, fit.train.rmse, plain.r0_ohm,
                plain.train.rmse);
    /* the data are the model's own: every value back (the lag to 0.01 of a sample) */
    cr_assert_float_eq(fit.lag_frac, f, 0.01, "lag %g", fit.lag_frac);
    cr_assert_float_eq(fit.lag_s, f * dt1, 0.01 * dt1, "lag %g s", fit.lag_s);
    cr_assert_float_eq(fit.r0_ohm, r0, 0.01 * r0, "R0 %g", fit.r0_ohm);
    cr_assert_float_eq(fit.rc_r_ohm[0], r1, 0.01 * r1, "R1 %g", fit.rc_r_ohm[0]);
    cr_assert_lt(fit.train.rmse, 1e-4);
    cr_assert_lt(fit.holdout.rmse, 1e-4);
    /* without the lag term the steps leave a residual: f R0 dI (0.6 x 15 mOhm x 2-4 A = 18-36
     * mV) at one sample in 120, ~3 mV RMS; no lag, no difference */
    cr_assert_eq(plain.lag_frac, 0.0);
    if (lagged)
      cr_assert_gt(plain.train.rmse, 1e-3, "%g V", plain.train.rmse);
    else
      cr_assert_lt(plain.train.rmse, 1e-4);
    free(fit.model_v), free(plain.model_v);
  }
  cr_assert_neq(sits_battery_fit_cell_x(&k.c, k.t, k.i, k.v, NULL, NULL, k.n, 1, 0.7, 32u,
                                        &(sits_battery_fit){0}, &err),
                SITS_OK);
  cr_assert(strstr(err.msg, "flags"), "%s", err.msg);
  bench_free(&k);
}

/* A cell kept as it is (SITS_BATTERY_FIT_KEEP): fitted on one synthetic test, it holds on
 * another test of the same cell (the pulse phases shifted) to the model's own precision with
 * only SOC0 fitted on the first 5 %; a cell with other values does not. */
Test(battery_fit, a_kept_cell_on_another_test) {
  bench k = bench_new();
  sits_err err = {0};
  const double r0 = 0.015, r1 = 0.012, c1 = 2500;
  synthesize(k.b, &(synth){.n = k.n, .r0 = r0, .r1 = r1, .c1 = c1}, k.t, k.i, k.v, NULL);
  sits_battery_fit fit;
  cr_assert_eq(
      sits_battery_fit_cell_x(&k.c, k.t, k.i, k.v, NULL, NULL, k.n, 1, 0.7, 0u, &fit, &err),
      SITS_OK, "%s", err.msg);
  sits_battery_cfg cell = k.c; /* the calibrated cell */
  cell.r0_ohm = fit.r0_ohm, cell.n_rc = 1;
  cell.rc_r_ohm[0] = fit.rc_r_ohm[0], cell.rc_c_f[0] = fit.rc_c_f[0];
  free(fit.model_v);
  /* the other test: the pulse pattern shifted by one phase */
  synthesize(k.b, &(synth){.n = k.n, .shift = 1, .r0 = r0, .r1 = r1, .c1 = c1}, k.t, k.i, k.v,
             NULL);
  sits_battery_fit kept;
  cr_assert_eq(sits_battery_fit_cell_x(&cell, k.t, k.i, k.v, NULL, NULL, k.n, 3, 0.05,
                                       SITS_BATTERY_FIT_KEEP, &kept, &err),
               SITS_OK, "%s", err.msg);
  cr_log_info("kept: SOC0 %g, train %g V, held out %g V", kept.initial_soc, kept.train.rmse,
              kept.holdout.rmse);
  cr_assert_eq(kept.n_rc, 1, "the cell's pairs, not the 3 asked");
  cr_assert_eq(kept.r0_ohm, cell.r0_ohm);
  cr_assert_eq(kept.rc_c_f[0], cell.rc_c_f[0]);
  cr_assert_eq(kept.n_r_soc, 0);
  cr_assert_float_eq(kept.initial_soc, 0.9, 1e-4);
  cr_assert_lt(kept.holdout.rmse, 1e-4);
  cr_assert_gt(kept.holdout.n, 6800);
  free(kept.model_v);
  /* R0 half the true one: the held-out error is about the missing I R0/2 (up to 30 mV) */
  cell.r0_ohm = 0.5 * r0;
  cr_assert_eq(sits_battery_fit_cell_x(&cell, k.t, k.i, k.v, NULL, NULL, k.n, 1, 0.05,
                                       SITS_BATTERY_FIT_KEEP, &kept, &err),
               SITS_OK, "%s", err.msg);
  cr_assert_gt(kept.holdout.rmse, 5e-3, "%g V", kept.holdout.rmse);
  free(kept.model_v);
  bench_free(&k);
}

/* A capacity fitted far from where it started is flagged: the shipped A123 cell (LFP, its OCV
 * flat over most of the test) fitted with its capacity on the dynamic test's first 70 % ends
 * at 1.718 Ah against the 2.073 Ah it starts from (-17 %, measured 2026-12-03; held out at
 * 454 mV). The same cell kept (--fit soc,capacity: R0 and R1 as shipped) ends at 1.930 Ah
 * (-7 %) and is not flagged. */
Test(battery_fit, a_far_fitted_capacity_is_flagged) {
  sits_scenario *sc = tu_shipped("scenarios/a123_cell_calibrate.cfg", NULL, 0);
  char trace[600];
  snprintf(trace, sizeof trace, "%s/a123_dyn_25degC_s1.csv", SITS_VALIDATION_DATA);
  sits_calibrate_opts o = {
      .trace_path = trace, .discharge_positive = -1, .train_fraction = 0.7, .fit_capacity = true};
  sits_calibration c;
  sits_err err = {0};
  for (int kept = 0; kept < 2; kept++) {
    o.keep_cell = kept;
    cr_assert_eq(sits_calibrate_battery(sc, &o, &c, &err), SITS_OK, "%s", err.msg);
    char *json = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&json, &len);
    cr_assert_eq(sits_write_calibration_json(&c, mem), SITS_OK);
    fclose(mem);
    cr_log_info("%s: capacity %.4f Ah from %.4f Ah", kept ? "kept" : "fitted", c.fit.capacity_ah,
                c.start_capacity_ah);
    cr_assert_float_eq(c.start_capacity_ah, 2.0726, 1e-9);
    if (!kept) {
      cr_assert_lt(c.fit.capacity_ah / c.start_capacity_ah, 0.9);
      cr_assert(strstr(json, "platform.battery.capacity_ah was fitted at"), "%s", json);
      /* every flag at once: one array, its items separated by commas (a hysteresis flag after
       * the capacity's had none before) */
      c.fit.hyst_m_v = SITS_BATTERY_FIT_HYST_M_MAX_V;
      c.fit_arrhenius = true;
      c.fit.r_ea_j_per_mol = 0.995 * SITS_BATTERY_FIT_EA_MAX_J_PER_MOL;
      c.fit.train_temp_lo_c = 24.0, c.fit.train_temp_hi_c = 26.0;
      free(json);
      mem = open_memstream(&json, &len);
      cr_assert_eq(sits_write_calibration_json(&c, mem), SITS_OK);
      fclose(mem);
      cr_assert(strstr(json, "\"flags\":[\"platform.battery.capacity_ah was fitted at"), "%s",
                json);
      cr_assert(strstr(json, "\",\"platform.battery.hysteresis.m_v is at the upper end"), "%s",
                json);
      cr_assert(strstr(json, "\",\"platform.battery.r_ea_j_per_mol is at an end"), "%s", json);
      cr_assert(strstr(json, "\",\"platform.battery.r_ea_j_per_mol comes from a cell temperature "
                             "that spans 2 K"),
                "%s", json);
      cr_assert(strstr(json, "\"fit\":[\"battery\",\"capacity\",\"arrhenius\"]"), "%s", json);
    } else {
      cr_assert(strstr(json, "\"fit\":[\"soc\",\"capacity\"]"), "%s", json);
      cr_assert_gt(c.fit.capacity_ah / c.start_capacity_ah, 0.9);
      cr_assert_null(strstr(json, "was fitted at"), "%s", json);
    }
    free(json);
    sits_calibration_release(&c);
  }
  sits_scenario_free(sc);
}

/* A log that leaves out part of the test, as Kollmeyer's HPPC files keep the pulses but not
 * the discharges between them: 1320 s of pulses removed from a synthetic test (from a rest
 * to the end of a rest, so that the RC pair has settled on both sides), the cycler's charge
 * counter kept. With the counter SOC follows it and the fit is exact; counting the current
 * misses the removed charge (0.53 Ah, a quarter of the capacity) and the error shows. */
Test(battery_fit, a_log_with_gaps_counts_by_the_charge_counter) {
  bench k = bench_new();
  sits_err err = {0};
  const double r0 = 0.015, r1 = 0.012, c1 = 1000; /* tau 12 s: settled after a 120-s rest */
  synthesize(k.b, &(synth){.n = k.n, .r0 = r0, .r1 = r1, .c1 = c1}, k.t, k.i, k.v, NULL);
  double *q = malloc(k.n * sizeof *q); /* the counter, discharge positive [Ah] */
  cr_assert_not_null(q);
  q[0] = 0;
  for (size_t j = 1; j < k.n; j++)
    q[j] = q[j - 1] + k.i[j - 1] * (k.t[j] - k.t[j - 1]) / 3600.0;
  const size_t from = 2041, to = 3360; /* removed: [from, to) */
  cr_assert_eq(k.i[from - 1], 0.0, "the gap starts after a rest sample");
  size_t m = 0;
  for (size_t j = 0; j < k.n; j++)
    if (j < from || j >= to)
      k.t[m] = k.t[j], k.i[m] = k.i[j], k.v[m] = k.v[j], q[m] = q[j], m++;
  sits_battery_fit with, without;
  cr_assert_eq(sits_battery_fit_cell_x(&k.c, k.t, k.i, k.v, NULL, q, m, 1, 0.7, 0u, &with, &err),
               SITS_OK, "%s", err.msg);
  cr_assert_eq(
      sits_battery_fit_cell_x(&k.c, k.t, k.i, k.v, NULL, NULL, m, 1, 0.7, 0u, &without, &err),
      SITS_OK, "%s", err.msg);
  cr_log_info("gap of %g Ah: with the counter R0 %g, train %g V, held out %g V; counted: train "
              "%g V, held out %g V",
              q[from] - q[from - 1], with.r0_ohm, with.train.rmse, with.holdout.rmse,
              without.train.rmse, without.holdout.rmse);
  cr_assert_float_eq(with.r0_ohm, r0, 0.01 * r0, "R0 %g", with.r0_ohm);
  cr_assert_float_eq(with.rc_r_ohm[0], r1, 0.01 * r1, "R1 %g", with.rc_r_ohm[0]);
  cr_assert_float_eq(with.initial_soc, 0.9, 1e-3);
  cr_assert_lt(with.holdout.rmse, 1e-4);
  cr_assert_gt(without.holdout.rmse, 10 * with.holdout.rmse + 1e-3);
  free(with.model_v), free(without.model_v), free(q);
  bench_free(&k);
}

/* --average-s: a 0.1-s log of a known cell (linear OCV 3.0-4.2 V over SOC, 2 Ah; R0 15 mOhm,
 * one pair 10 mOhm / 3000 F: tau 30 s), 2 and 4 A pulses of 120 s with rests, and a stretch
 * of 240 s (a pulse and a rest) logged every 10 s, fitted on 1-s block averages. The blocks keep
 * the time of their first sample and the charge (the currents held to the next sample, summed), the
 * voltage is the plain mean; the segments are the recorded samples'. The fit recovers the cell: a
 * block's mean voltage carries R0 times its mean current exactly; the pair's part moves within the
 * block (R1 I S / (2 tau) = 0.7 mV at a pulse's start), which R0 takes up. */
Test(battery_fit, a_fit_on_block_averages) {
  const double r0 = 0.015, r1 = 0.010, c1 = 3000.0, q = 2.0;
  size_t cap = 40000, n = 0, len = 0;
  char *text = malloc(cap * 48);
  cr_assert_not_null(text);
  len += (size_t)sprintf(text, "time_s,current_a,voltage_v,temp_c,ah\n");
  double soc = 0.9, v1 = 0, t = 0, raw_charge = 0;
  while (t < 3600.0 - 1e-9) {
    size_t phase = (size_t)(t / 120.0) % 4;
    double i = phase == 0 ? 2.0 : phase == 2 ? 4.0 : 0.0;
    double dt = t >= 1920.0 && t < 2160.0 ? 10.0 : 0.1; /* 240 s logged every 10 s */
    double v = 3.0 + 1.2 * soc - v1 - r0 * i;
    /* a cell temperature rising 1 K an hour (no Arrhenius factor: it changes nothing) and
     * the cycler's counter of the charge out before the sample */
    len += (size_t)sprintf(text + len, "%.1f,%.1f,%.9f,%.6f,%.9f\n", t, i, v, 25.0 + t / 3600.0,
                           raw_charge / 3600.0);
    n++;
    soc -= i * dt / (3600.0 * q);
    raw_charge += t + dt < 3600.0 - 1e-9 ? i * dt : 0.0; /* the last sample holds nothing */
    double e = exp(-dt / (r1 * c1));
    v1 = v1 * e + r1 * i * (1 - e);
    t = round((t + dt) * 10.0) / 10.0;
  }
  char *trace = tu_write("averaged.csv", text);
  free(text);
  sits_scenario *sc = tu_load(
      "averaged.cfg",
      "platform = { thermal = { nodes = ( { name = \"cell\"; c_j_per_k = 40.0; } );\n"
      "  links = ( { a = \"cell\"; b = \"ambient\"; r_k_per_w = 5.0; } ); };\n"
      "  battery = { series = 1; parallel = 1; capacity_ah = 2.0; ocv_soc = [0.0, 0.5, 1.0];\n"
      "    ocv_v = [3.0, 3.6, 4.2]; r0_ohm = 0.01; rc = ( { r_ohm = 0.02; c_f = 1000.0; } );\n"
      "    cutoff_v = 2.5; }; };\n"
      "replay = { battery = { discharge_positive = true; }; };\n"
      "workload = { phases = ( { duration_s = 10.0; } ); };\n");
  sits_calibrate_opts o = {
      .trace_path = trace, .discharge_positive = -1, .train_fraction = 0.7, .average_s = 1.0};
  sits_calibration c, raw;
  sits_err err = {0};
  cr_assert_eq(sits_calibrate_battery(sc, &o, &c, &err), SITS_OK, "%s", err.msg);
  /* 3360 s at 0.1 s in 1-s blocks, 240 s at 10 s one sample each */
  cr_assert_eq(c.n_recorded, n);
  cr_assert_eq(c.n, 3360 + 24, "%zu blocks", c.n);
  cr_assert_float_eq(c.t_s[1], 1.0, 1e-9);
  cr_assert_float_eq(c.t_s[1920], 1920.0, 1e-9); /* the first 10-s sample starts a block */
  cr_assert_float_eq(c.t_s[1921], 1930.0, 1e-9);
  double charge = 0;
  for (size_t k = 0; k + 1 < c.n; k++)
    charge += c.i_a[k] * (c.t_s[k + 1] - c.t_s[k]);
  cr_assert_float_eq(charge, raw_charge, 1e-9 * raw_charge, "%.12g vs %.12g As", charge,
                     raw_charge);
  /* the block [0, 1 s): ten samples at 2 A, v = 3.0 + 1.2 soc - v1 - 0.03 with soc and v1
   * moving within it: the mean of the ten */
  double vm = 0, s = 0.9, w = 0;
  for (int k = 0; k < 10; k++) {
    vm += (3.0 + 1.2 * s - w - r0 * 2.0) / 10.0;
    s -= 2.0 * 0.1 / (3600.0 * q);
    double e = exp(-0.1 / (r1 * c1));
    w = w * e + r1 * 2.0 * (1 - e);
  }
  cr_assert_float_eq(c.v_v[0], vm, 1e-8, "%.9f vs %.9f", c.v_v[0], vm);
  cr_assert_float_eq(c.i_a[0], 2.0, 1e-12);
  cr_log_info("averaged: R0 %g R1 %g C1 %g rmse %g mV", c.fit.r0_ohm, c.fit.rc_r_ohm[0],
              c.fit.rc_c_f[0], 1e3 * c.fit.train.rmse);
  /* R0 takes up what the pair does in half a block (the model's sample holds the pair's
   * state at the block's start, the block's voltage its mean): R1 (S / 2) / tau = 0.17 mOhm */
  double r0_seen = r0 + r1 * 0.5 / (r1 * c1);
  cr_assert_float_eq(c.fit.r0_ohm, r0_seen, 0.005 * r0, "R0 %g vs %g", c.fit.r0_ohm, r0_seen);
  cr_assert_float_eq(c.fit.rc_r_ohm[0], r1, 0.03 * r1, "R1 %g", c.fit.rc_r_ohm[0]);
  cr_assert_float_eq(c.fit.rc_c_f[0], c1, 0.05 * c1, "C1 %g", c.fit.rc_c_f[0]);
  cr_assert_lt(c.fit.holdout.rmse, 1e-3, "held out %g", c.fit.holdout.rmse);
  char *json = NULL;
  size_t jl = 0;
  FILE *mem = open_memstream(&json, &jl);
  cr_assert_eq(sits_write_calibration_json(&c, mem), SITS_OK);
  fclose(mem);
  char want[96];
  snprintf(want, sizeof want, "\"average_s\":1,\"recorded_samples\":%zu", n);
  cr_assert(strstr(json, want), "%s", json);
  cr_assert(c.fit.converged);
  cr_assert_null(strstr(json, "tolerances were met"), "%s", json);
  free(json);
  /* a fit that ends before its tolerances are met is flagged (the report, with the flag forced) */
  c.fit.converged = false;
  mem = open_memstream(&json, &jl);
  cr_assert_eq(sits_write_calibration_json(&c, mem), SITS_OK);
  fclose(mem);
  cr_assert(strstr(json, "\"converged\":false") &&
                strstr(json, "\"flags\":[\"the fit stopped before its tolerances were met"),
            "%s", json);
  free(json);
  c.fit.converged = true;
  /* the segments as recorded: the same as without averaging */
  o.average_s = 0;
  cr_assert_eq(sits_calibrate_battery(sc, &o, &raw, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(c.n_rests, raw.n_rests);
  cr_assert_eq(c.n_steps, raw.n_steps);
  cr_assert_float_eq(c.r_step_median_ohm, raw.r_step_median_ohm, 1e-12);
  cr_assert_eq(raw.n, n);
  sits_calibration_release(&raw);
  /* with the temperature and the counter: a block's temperature is the mean (of the first
   * ten: 25 C + 0.45 s / 3600 s), its counter the first sample's, and the fit is the same */
  sits_calibration ct;
  o.average_s = 1.0, o.temperature_column = "temp_c", o.charge_column = "ah";
  cr_assert_eq(sits_calibrate_battery(sc, &o, &ct, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(ct.n, c.n);
  cr_assert_float_eq(ct.temp_c[0], 25.0 + 0.45 / 3600.0, 1e-6, "%.9f", ct.temp_c[0]);
  /* 1920-1930 s: a 2-A pulse logged every 10 s, one sample a block */
  cr_assert_float_eq(ct.q_ah[1921] - ct.q_ah[1920], 2.0 * 10.0 / 3600.0, 1e-9);
  cr_assert_float_eq(ct.q_ah[1], 2.0 * 1.0 / 3600.0, 1e-9, "%.12f", ct.q_ah[1]);
  cr_assert_float_eq(ct.fit.r0_ohm, c.fit.r0_ohm, 1e-4 * r0, "%g vs %g", ct.fit.r0_ohm,
                     c.fit.r0_ohm);
  sits_calibration_release(&ct);
  o.temperature_column = o.charge_column = NULL;
  /* refused: not a positive finite number of seconds */
  o.average_s = -1;
  cr_assert_eq(sits_calibrate_battery(sc, &o, &raw, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "average_s"), "%s", err.msg);
  sits_calibration_release(&raw);
  sits_calibration_release(&c);
  sits_scenario_free(sc);
  free(trace);
}

/* The pulses of cycler_segments written with their units: plain (s, A, V), in the names
 * ("Time (min)", "Current (mA)", "Voltage[mV]", "Temp (K)"; EC-Lab's "I/mA") or in a units
 * row under plain names ("h", "[mA]", "(mV)", "degC"; in capitals too). Each fits to the same cell
 * as the plain file; a unit of the wrong quantity is an error naming the column; bracketed text
 * that is no unit is not. */
static char *pulses_in(const char *name, const char *header, const char *units, double t_scale,
                       double i_scale, double v_scale, double temp_offset) {
  char *text = malloc(1 << 16);
  size_t cap = 1 << 16, n = (size_t)snprintf(text, cap, "%s\n%s", header, units);
  double soc = 0.8, t = 0;
  for (int pulse = 0; pulse < 4; pulse++)
    for (int k = 0; k < 160; k++, t++) {
      double i = k < 60 ? 2.0 : 0.0;
      n += (size_t)snprintf(text + n, cap - n, "%.10g,%.10g,%.10g,%.10g\n", t / t_scale,
                            i / i_scale, (3.0 + 1.2 * soc - 0.02 * i) / v_scale, 25 + temp_offset);
      soc -= i / (3600 * 2.0);
    }
  char *path = tu_write(name, text);
  free(text);
  return path;
}

Test(battery_fit, units_in_the_names_or_a_units_row) {
  sits_scenario *sc = tu_load(
      "units.cfg",
      "platform = { thermal = { nodes = ( { name = \"cell\"; c_j_per_k = 40.0; } );\n"
      "  links = ( { a = \"cell\"; b = \"ambient\"; r_k_per_w = 5.0; } ); };\n"
      "  battery = { series = 1; parallel = 1; capacity_ah = 2.0; ocv_soc = [0.0, 0.5, 1.0];\n"
      "    ocv_v = [3.0, 3.6, 4.2]; r0_ohm = 0.01; cutoff_v = 2.5; }; };\n"
      "replay = { battery = { discharge_positive = true; }; };\n"
      "workload = { phases = ( { duration_s = 10.0; } ); };\n");
  struct {
    const char *file, *header, *units, *cols[4];
    double t, i, v, temp_off;
  } cases[] = {
      {"plain.csv", "t,i,v,c", "", {"t", "i", "v", "c"}, 1, 1, 1, 0},
      {"names.csv",
       "Time (min),Current (mA),Voltage[mV],Temp (K)",
       "",
       {"Time (min)", "Current (mA)", "Voltage[mV]", "Temp (K)"},
       60,
       1e-3,
       1e-3,
       273.15},
      {"row.csv", "t,i,v,c", "h,[mA],(mV),degC\n", {"t", "i", "v", "c"}, 3600, 1e-3, 1e-3, 0},
      {"row_upper.csv", "t,i,v,c", "H,[MA],(MV),DEGC\n", {"t", "i", "v", "c"}, 3600, 1e-3, 1e-3, 0},
      {"slash.csv",
       "time/min,I/mA,Ewe/mV,T/K",
       "",
       {"time/min", "I/mA", "Ewe/mV", "T/K"},
       60,
       1e-3,
       1e-3,
       273.15},
      {"not_units.csv",
       "Time (s),Current (cell 1),Voltage (V),Temp",
       "",
       {"Time (s)", "Current (cell 1)", "Voltage (V)", "Temp"},
       1,
       1,
       1,
       0},
  };
  double r0[6] = {0}, soc0[6] = {0};
  for (size_t k = 0; k < 6; k++) {
    char *path = pulses_in(cases[k].file, cases[k].header, cases[k].units, cases[k].t, cases[k].i,
                           cases[k].v, cases[k].temp_off);
    sits_calibrate_opts o = {.trace_path = path,
                             .discharge_positive = -1,
                             .train_fraction = 0.7,
                             .time_column = cases[k].cols[0],
                             .current_column = cases[k].cols[1],
                             .voltage_column = cases[k].cols[2],
                             .temperature_column = cases[k].cols[3]};
    sits_calibration c;
    sits_err err = {0};
    cr_assert_eq(sits_calibrate_battery(sc, &o, &c, &err), SITS_OK, "%s: %s", cases[k].file,
                 err.msg);
    r0[k] = c.fit.r0_ohm, soc0[k] = c.fit.initial_soc;
    cr_assert_eq(c.n_rests, 4, "%s: rests %zu", cases[k].file, c.n_rests);
    cr_assert_float_eq(c.discharge_ah, 4 * 60 * 2.0 / 3600, 1e-9, "%s", cases[k].file);
    cr_assert_float_eq(c.temp_c[0], 25.0, 1e-9, "%s: %g C", cases[k].file, c.temp_c[0]);
    sits_calibration_release(&c);
    free(path);
  }
  cr_assert_float_eq(r0[0], 0.02, 1e-4, "R0 %g (the pulses' 20 mOhm)", r0[0]);
  for (size_t k = 1; k < 6; k++) {
    cr_assert_float_eq(r0[k], r0[0], 1e-6 * r0[0], "%s: R0 %g vs %g", cases[k].file, r0[k], r0[0]);
    cr_assert_float_eq(soc0[k], soc0[0], 1e-6, "%s", cases[k].file);
  }
  /* a unit of another quantity, in a units row or in a name */
  struct {
    const char *file, *header, *units, *cols[3], *msg;
  } bad[] = {
      {"watts.csv",
       "t,i,v,c",
       "s,W,V,C\n",
       {"t", "i", "v"},
       "watts.csv:2: column 'i' is in 'W', not a current"},
      {"volts.csv",
       "t,Current (V),v,c",
       "",
       {"t", "Current (V)", "v"},
       "volts.csv:1: column 'Current (V)' is in 'V', not a current"},
      {"amps.csv",
       "t (A),i,v,c",
       "",
       {"t (A)", "i", "v"},
       "amps.csv:1: column 't (A)' is in 'A', not a time"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    char *path = pulses_in(bad[k].file, bad[k].header, bad[k].units, 1, 1, 1, 0);
    sits_calibrate_opts o = {.trace_path = path,
                             .discharge_positive = -1,
                             .train_fraction = 0.7,
                             .time_column = bad[k].cols[0],
                             .current_column = bad[k].cols[1],
                             .voltage_column = bad[k].cols[2]};
    sits_calibration c;
    sits_err err = {0};
    cr_assert_eq(sits_calibrate_battery(sc, &o, &c, &err), SITS_EINPUT, "%s", bad[k].file);
    cr_assert(strstr(err.msg, bad[k].msg), "%s: %s", bad[k].file, err.msg);
    free(path);
  }
  sits_scenario_free(sc);
}

/* A given start SOC: the synthetic test starts at SOC 0.9. Given 0.9 the fit recovers R0, R1
 * and C1 as when it fits the SOC too and reports 0.9 exactly; given 0.8 (a wrong start: the
 * OCV 10 % lower) the cell cannot make up the offset and the training RMSE shows it; a value
 * outside [0, 1] is refused; a kept cell with every start SOC given and nothing else to fit
 * is refused. */
Test(battery_fit, a_given_initial_soc) {
  sits_battery_cfg c = a123_cell();
  sits_err err = {0};
  sits_battery *b = cell_new(&c);
  size_t n = 7200;
  double *t = column(n), *i = column(n), *v = column(n);
  double r0 = 0.015, r1 = 0.012, c1 = 2500;
  synthesize(b, &(synth){.n = n, .r0 = r0, .r1 = r1, .c1 = c1}, t, i, v, NULL);
  sits_battery_test te = {t, i, v, NULL, NULL, n, true, 0.9};
  sits_battery_fit fit;
  cr_assert_eq(sits_battery_fit_tests(&c, &te, 1, 1, 0.7, 0, &fit, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(fit.initial_soc, 0.9);
  cr_assert_eq(fit.tests[0].initial_soc, 0.9);
  cr_assert_float_eq(fit.r0_ohm, r0, 0.01 * r0, "R0 %g", fit.r0_ohm);
  cr_assert_float_eq(fit.rc_r_ohm[0], r1, 0.01 * r1, "R1 %g", fit.rc_r_ohm[0]);
  cr_assert_float_eq(fit.rc_c_f[0], c1, 0.01 * c1, "C1 %g", fit.rc_c_f[0]);
  cr_assert_lt(fit.holdout.rmse, 1e-4);
  free(fit.model_v);
  te.initial_soc = 0.8;
  cr_assert_eq(sits_battery_fit_tests(&c, &te, 1, 1, 0.7, 0, &fit, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(fit.initial_soc, 0.8);
  cr_assert_gt(fit.train.rmse, 0.005, "a 10 %% SOC offset fitted away to %g V", fit.train.rmse);
  free(fit.model_v);
  te.initial_soc = 1.2;
  cr_assert_eq(sits_battery_fit_tests(&c, &te, 1, 1, 0.7, 0, &fit, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "the given initial SOC 1.2 is not in [0, 1]"), "%s", err.msg);
  te.initial_soc = 0.9;
  cr_assert_eq(sits_battery_fit_tests(&c, &te, 1, 1, 0.7, SITS_BATTERY_FIT_KEEP, &fit, &err),
               SITS_EINPUT);
  cr_assert(strstr(err.msg, "nothing to fit"), "%s", err.msg);
  /* kept, with the lag to fit: the SOC stays as given */
  cr_assert_eq(sits_battery_fit_tests(&c, &te, 1, 1, 0.7,
                                      SITS_BATTERY_FIT_KEEP | SITS_BATTERY_FIT_LAG, &fit, &err),
               SITS_OK, "%s", err.msg);
  cr_assert_eq(fit.initial_soc, 0.9);
  free(fit.model_v), free(t), free(i), free(v);
  sits_battery_free(b);
}

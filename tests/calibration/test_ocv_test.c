/*
 * test_ocv_test.c - the OCV table built from a slow discharge: exact recovery on a
 * synthetic test (closed form), the error classes, and the real A123 C/30 discharge against
 * the independently derived IR-corrected discharge branch of the same test.
 */
#include "test_util.h"

#include "sits_battery_fit.h"
#include "sits_table.h"

/* A 2 Ah cell, OCV 3.0 + 1.2 SOC, a 0.05-ohm drop, discharged at I from full after a rest of
 * 10 samples: V = OCV(SOC) - I R with SOC = 1 - I t / 7200. @p sign: the file's sign of a
 * discharge current. Returns the sample count. */
static size_t synthetic(double i_a, int sign, double *t, double *i, double *v) {
  size_t n = 0;
  for (int k = 0; k < 10; k++, n++)
    t[n] = k * 60.0, i[n] = 0, v[n] = 4.2;
  double t0 = t[n - 1] + 60, dur = 2.0 * 3600 / i_a;
  for (double s = 0; s <= dur + 1e-9; s += dur / 500, n++) {
    double soc = 1 - i_a * s / 7200;
    t[n] = t0 + s, i[n] = sign * i_a, v[n] = 3.0 + 1.2 * soc - i_a * 0.05;
  }
  return n;
}

Test(ocv_test, exact_on_a_synthetic_discharge_of_either_sign) {
  double t[600], i[600], v[600];
  for (int sign = -1; sign <= 1; sign += 2) {
    size_t n = synthetic(0.08, sign, t, i, v); /* C/25 */
    sits_ocv_test o;
    sits_err err = {0};
    cr_assert_eq(sits_ocv_from_discharge(t, i, v, n, NAN, 0.0, 11, 0, &o, &err), SITS_OK, "%s",
                 err.msg);
    cr_assert_eq(o.discharge_sign, sign);
    cr_assert_str_eq(o.r_source, "step");
    cr_assert_float_eq(o.r_dc_ohm, 0.05, 1e-9);   /* the 4 mV step over 0.08 A */
    cr_assert_float_eq(o.capacity_ah, 2.0, 1e-9); /* trapezoids are exact at constant I */
    cr_assert_float_eq(o.c_rate_per_h, 0.04, 1e-9);
    cr_assert_eq(o.n, 11);
    for (size_t k = 0; k < o.n; k++) {
      cr_assert_float_eq(o.soc[k], 0.1 * (double)k, 1e-12);
      cr_assert_float_eq(o.ocv_v[k], 3.0 + 1.2 * o.soc[k], 1e-9, "SOC %g: %g V", o.soc[k],
                         o.ocv_v[k]);
    }
    /* a given resistance is used as given: 0 leaves the loaded curve 4 mV low */
    cr_assert_eq(sits_ocv_from_discharge(t, i, v, n, 0.0, 0.0, 11, 0, &o, &err), SITS_OK);
    cr_assert_float_eq(o.ocv_v[5], 3.6 - 0.004, 1e-9);
  }
}

Test(ocv_test, fast_discharges_charges_and_bad_input_are_refused) {
  double t[600], i[600], v[600];
  sits_ocv_test o;
  sits_err err = {0};
  size_t n = synthetic(0.2, -1, t, i, v); /* C/10 */
  cr_assert_eq(sits_ocv_from_discharge(t, i, v, n, NAN, 0.0, 101, 0, &o, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "discharges at C/10.0") && strstr(err.msg, "C/20 or slower"), "%s",
            err.msg);
  /* allowed with a higher limit */
  cr_assert_eq(sits_ocv_from_discharge(t, i, v, n, NAN, 0.0, 101, 0.1, &o, &err), SITS_OK, "%s",
               err.msg);
  /* a charge only (the voltage rises): no discharge */
  for (size_t k = 0; k < n; k++)
    v[k] = 7.2 - v[k];
  cr_assert_eq(sits_ocv_from_discharge(t, i, v, n, NAN, 0.0, 101, 0.1, &o, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "no sustained discharge"), "%s", err.msg);
  n = synthetic(0.08, 1, t, i, v);
  t[20] = t[19];
  cr_assert_eq(sits_ocv_from_discharge(t, i, v, n, NAN, 0.0, 101, 0, &o, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "time does not increase"), "%s", err.msg);
  n = synthetic(0.08, 1, t, i, v);
  cr_assert_eq(sits_ocv_from_discharge(t, i, v, n, NAN, 0.0, 2, 0, &o, &err), SITS_EINPUT);
  /* noise beyond the OCV tolerance: a +-20 mV sawtooth against the 12 mV rise per point */
  for (size_t k = 10; k < n; k++)
    v[k] += (k % 2) ? 0.02 : -0.02;
  cr_assert_eq(sits_ocv_from_discharge(t, i, v, n, NAN, 0.0, 101, 0, &o, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "falls by"), "%s", err.msg);
}

static void read_test(const char *name, double **t, double **i, double **v, size_t *n) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", SITS_VALIDATION_DATA, name);
  const char *cols[] = {"Test_Time(s)", "Current(A)", "Voltage(V)"};
  sits_table *tb = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_table_read_csv_columns(path, cols, 3, &tb, &err), SITS_OK, "%s", err.msg);
  *n = tb->n_rows;
  *t = malloc(*n * sizeof **t), *i = malloc(*n * sizeof **i), *v = malloc(*n * sizeof **v);
  for (size_t k = 0; k < *n; k++)
    (*t)[k] = sits_table_at(tb, k, 0), (*i)[k] = sits_table_at(tb, k, 1),
    (*v)[k] = sits_table_at(tb, k, 2);
  sits_table_free(tb);
}

/* Plett's A123 C/30 discharge at 25 C (validation/data/a123_ocv_25degC_s1.csv, an Arbin
 * export with a date column and negative discharge current) against the IR-corrected
 * discharge branch his procedure derives from the same test (a123_ocv_25degC_derived.csv,
 * column V_dis_IRcorr, computed with Q25 = 2.0726 Ah and his own resistance estimate). */
Test(ocv_test, a123_c30_discharge_matches_the_derived_branch) {
  char path[512];
  double *t, *i, *v;
  size_t n;
  read_test("a123_ocv_25degC_s1.csv", &t, &i, &v, &n);
  sits_table *tb = NULL;
  sits_err err = {0};
  sits_ocv_test o;
  cr_assert_eq(sits_ocv_from_discharge(t, i, v, n, NAN, 0.13, 101, 0, &o, &err), SITS_OK, "%s",
               err.msg);
  free(t), free(i), free(v);
  cr_assert_eq(o.discharge_sign, -1);
  /* the discharge alone delivers 2.060 Ah; Q25 = 2.0726 Ah adds the top-off of test S2 */
  cr_assert_float_eq(o.capacity_ah, 2.0726, 0.01 * 2.0726, "%g Ah", o.capacity_ah);
  cr_assert(o.c_rate_per_h < 1.0 / 25, "C/%g", 1 / o.c_rate_per_h);
  const char *dcols[] = {"SOC", "V_dis_IRcorr"};
  snprintf(path, sizeof path, "%s/a123_ocv_25degC_derived.csv", SITS_VALIDATION_DATA);
  cr_assert_eq(sits_table_read_csv_columns(path, dcols, 2, &tb, &err), SITS_OK, "%s", err.msg);
  double worst = 0, sum = 0;
  size_t m = 0;
  for (size_t k = 0; k < o.n; k++) {
    if (o.soc[k] < 0.1 - 1e-9 || o.soc[k] > 0.9 + 1e-9)
      continue;
    /* the derived table's SOC step is 0.005: row 200 SOC */
    size_t row = (size_t)lround(o.soc[k] / 0.005);
    cr_assert_float_eq(sits_table_at(tb, row, 0), o.soc[k], 1e-9);
    double d = o.ocv_v[k] - sits_table_at(tb, row, 1);
    worst = fmax(worst, fabs(d)), sum += d, m++;
  }
  sits_table_free(tb);
  cr_log_info("A123 C/30: %.4f Ah, R %.4f ohm (%s), SOC 10-90 %%: mean %+.1f mV, max |%.1f| mV",
              o.capacity_ah, o.r_dc_ohm, o.r_source, 1e3 * sum / (double)m, 1e3 * worst);
  /* measured when written: mean -2.8 mV, max 6.2 mV (R 0.057 ohm from the step). The
   * bounds (15 mV max, 5 mV mean) are about the LFP hysteresis half-width between the
   * branches; the difference left is the two resistance estimates and Q25 vs 2.060 Ah */
  cr_assert_lt(worst, 0.015);
  cr_assert_lt(fabs(sum / (double)m), 0.005);
}

/* Both of Plett's A123 C/30 branches (S1 discharge, S3 charge): their midpoint against the OCV
 * his procedure derives from the same two tests (a123_ocv_25degC_derived.csv, OCV_V) over SOC
 * 10-90 %, where that procedure is the branches' midpoint too; the discharge branch alone is
 * off by the hysteresis half gap. */
Test(ocv_test, a123_two_branches_match_the_derived_ocv) {
  double *td, *id, *vd, *tc, *ic, *vc;
  size_t nd, nc;
  read_test("a123_ocv_25degC_s1.csv", &td, &id, &vd, &nd);
  read_test("a123_ocv_25degC_s3.csv", &tc, &ic, &vc, &nc);
  sits_ocv_test both, dis;
  sits_err err = {0};
  cr_assert_eq(sits_ocv_from_branches(td, id, vd, nd, tc, ic, vc, nc, NAN, 0.13, 201, 0, &both,
                                      &err),
               SITS_OK, "%s", err.msg);
  cr_assert_eq(sits_ocv_from_discharge(td, id, vd, nd, NAN, 0.13, 201, 0, &dis, &err), SITS_OK);
  cr_assert(both.both_branches);
  cr_assert_float_eq(both.charge_capacity_ah, 2.0726, 0.02 * 2.0726, "%g Ah",
                     both.charge_capacity_ah);
  cr_assert(both.half_gap_v > 0.001 && both.half_gap_v < 0.02, "half gap %g V", both.half_gap_v);
  char path[512];
  const char *dcols[] = {"SOC", "OCV_V"};
  snprintf(path, sizeof path, "%s/a123_ocv_25degC_derived.csv", SITS_VALIDATION_DATA);
  sits_table *tb = NULL;
  cr_assert_eq(sits_table_read_csv_columns(path, dcols, 2, &tb, &err), SITS_OK, "%s", err.msg);
  double worst[2] = {0, 0}, mean[2] = {0, 0};
  size_t m = 0;
  for (size_t k = 0; k < both.n; k++) {
    if (both.soc[k] < 0.1 - 1e-9 || both.soc[k] > 0.9 + 1e-9)
      continue;
    size_t row = (size_t)lround(both.soc[k] / 0.005);
    cr_assert_float_eq(sits_table_at(tb, row, 0), both.soc[k], 1e-9);
    double ref = sits_table_at(tb, row, 1), d[2] = {both.ocv_v[k] - ref, dis.ocv_v[k] - ref};
    for (int j = 0; j < 2; j++)
      worst[j] = fmax(worst[j], fabs(d[j])), mean[j] += d[j];
    m++;
  }
  sits_table_free(tb);
  cr_log_info("A123 OCV vs derived, SOC 10-90 %%: both branches mean %+.1f mV max %.1f mV; "
              "discharge only mean %+.1f mV max %.1f mV; half gap %.1f mV",
              1e3 * mean[0] / (double)m, 1e3 * worst[0], 1e3 * mean[1] / (double)m,
              1e3 * worst[1], 1e3 * both.half_gap_v);
  /* measured when written: both mean +3.3 mV, max 10.5 mV; discharge alone mean -11.9 mV,
   * max 32.6 mV; half gap 15.2 mV. The bounds leave ~25 % for the rest of the reference's
   * recipe (its coulombic-efficiency scaling of the charge and its blending) */
  cr_assert_lt(worst[0], 0.013, "both: max %g V", worst[0]);
  cr_assert_lt(fabs(mean[0]) / (double)m, 0.005);
  cr_assert_lt(worst[0], worst[1], "the midpoint is closer than the discharge branch alone");
  free(td), free(id), free(vd), free(tc), free(ic), free(vc);
}

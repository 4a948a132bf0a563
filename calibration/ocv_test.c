/* ocv_test.c - an OCV-SOC table from a slow discharge (see sits_battery_fit.h). */
#include "sits_battery_fit.h"
#include "status_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_interp.h>

#define MIN_RUN 10

/* The first run [*a, *b) of one current sign above half the largest |I| where V falls (a
 * discharge) or, with @p charge, rises. */
static bool find_run(const double *i_a, const double *v_v, size_t n, bool charge, size_t *a,
                     size_t *b, int *sign) {
  double imax = 0;
  for (size_t k = 0; k < n; k++)
    imax = fmax(imax, fabs(i_a[k]));
  if (!(imax > 0))
    return false;
  for (size_t k = 0; k < n;) {
    if (!(fabs(i_a[k]) > 0.5 * imax)) {
      k++;
      continue;
    }
    int s = i_a[k] > 0 ? 1 : -1;
    size_t e = k;
    while (e < n && fabs(i_a[e]) > 0.5 * imax && (i_a[e] > 0 ? 1 : -1) == s)
      e++;
    if (e - k >= MIN_RUN && (charge ? v_v[e - 1] > v_v[k] : v_v[e - 1] < v_v[k])) {
      *a = k, *b = e, *sign = s;
      return true;
    }
    k = e;
  }
  return false;
}

/* The IR-correction resistance when none is given: the voltage step where the run starts after
 * a rest sample (|I| under 2 % of the run's), else @p fallback (the battery's R0 + sum R_k). */
static double step_resistance(const double *i_a, const double *v_v, size_t a, int sign,
                              bool charge, double fallback, const char **source) {
  double i0 = sign * i_a[a], dv = charge ? v_v[a] - v_v[a - (a > 0)] : v_v[a - (a > 0)] - v_v[a];
  if (a > 0 && fabs(i_a[a - 1]) < 0.02 * fabs(i0) && dv > 0) {
    *source = "step";
    return dv / i0;
  }
  *source = "battery";
  return fallback;
}

/* The table at @p n_points even SOC values from the (soc, ocv) samples, by linear
 * interpolation; refused where the OCV falls by more than the noise. */
static int resample(const double *soc, const double *ocv, size_t m, size_t n_points,
                    sits_ocv_test *out, sits_err *err) {
  gsl_interp *lin = gsl_interp_alloc(gsl_interp_linear, m);
  gsl_interp_accel *acc = lin ? gsl_interp_accel_alloc() : NULL;
  int rc = SITS_OK;
  if (!lin || !acc || gsl_interp_init(lin, soc, ocv, m))
    rc = sits__fail(err, SITS_EINPUT, "cannot interpolate the discharge (repeated SOC values)");
  out->n = n_points;
  for (size_t j = 0; rc == SITS_OK && j < n_points; j++) {
    double s = fmin(fmax((double)j / (double)(n_points - 1), soc[0]), soc[m - 1]);
    out->soc[j] = (double)j / (double)(n_points - 1);
    out->ocv_v[j] = gsl_interp_eval(lin, soc, ocv, s, acc);
    if (j && out->ocv_v[j] < out->ocv_v[j - 1] - SITS_BATTERY_OCV_NOISE_V)
      rc = sits__fail(err, SITS_EINPUT,
                      "the OCV built from the discharge falls by %.1f mV near SOC %.3f: is the "
                      "current steady?",
                      1e3 * (out->ocv_v[j - 1] - out->ocv_v[j]), out->soc[j]);
  }
  gsl_interp_accel_free(acc);
  gsl_interp_free(lin);
  return rc;
}

/* One branch of an OCV test: the first sustained discharge (or, with @p charge, charge) as
 * the table at n_points SOC values into @p out (its other fields describe the run). */
static int branch(const double *t_s, const double *i_a, const double *v_v, size_t n, bool charge,
                  double r_dc_ohm, double r_fallback_ohm, size_t n_points,
                  double max_c_rate_per_h, sits_ocv_test *out, sits_err *err) {
  memset(out, 0, sizeof *out);
  if (max_c_rate_per_h <= 0)
    max_c_rate_per_h = 0.05;
  if (n_points < 3 || n_points > SITS_BATTERY_MAX_OCV)
    return sits__fail(err, SITS_EINPUT, "the OCV table needs 3 to %d points", SITS_BATTERY_MAX_OCV);
  if (!(r_dc_ohm >= 0) && !isnan(r_dc_ohm))
    return sits__fail(err, SITS_EINPUT, "the IR-correction resistance must be >= 0");
  for (size_t k = 1; k < n; k++)
    if (!(t_s[k] > t_s[k - 1]))
      return sits__fail(err, SITS_EINPUT, "sample %zu: time does not increase", k);
  size_t a, b;
  int sign;
  const char *what = charge ? "charge" : "discharge";
  if (!find_run(i_a, v_v, n, charge, &a, &b, &sign))
    return sits__fail(err, SITS_EINPUT,
                      "no sustained %s (%d or more samples at a steady current with the "
                      "voltage %s) in the OCV test",
                      what, MIN_RUN, charge ? "rising" : "falling");
  out->r_source = "given";
  if (isnan(r_dc_ohm))
    r_dc_ohm = step_resistance(i_a, v_v, a, sign, charge, r_fallback_ohm, &out->r_source);
  size_t m = b - a;
  double *soc = malloc(m * sizeof *soc), *ocv = malloc(m * sizeof *ocv);
  if (!soc || !ocv) {
    free(soc), free(ocv);
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  }
  /* charge moved since the run's start [Ah], by trapezoids */
  double q = 0, isum = 0;
  double *ah = soc;
  ah[0] = 0;
  for (size_t k = 1; k < m; k++) {
    double i0 = sign * i_a[a + k - 1], i1 = sign * i_a[a + k];
    q += 0.5 * (i0 + i1) * (t_s[a + k] - t_s[a + k - 1]) / 3600.0;
    ah[k] = q;
  }
  for (size_t k = 0; k < m; k++)
    isum += sign * i_a[a + k];
  double i_mean = isum / (double)m;
  out->capacity_ah = q;
  out->c_rate_per_h = i_mean / q;
  out->r_dc_ohm = r_dc_ohm;
  out->t_start_s = t_s[a], out->t_end_s = t_s[b - 1];
  out->first_sample = a, out->n_samples = m;
  out->discharge_sign = charge ? -sign : sign;
  int rc = SITS_OK;
  if (out->c_rate_per_h > max_c_rate_per_h * 1.02) /* 2 %: a cycler's current setting */
    rc = sits__fail(err, SITS_EINPUT,
                    "the OCV test %ss at C/%.1f (%.4g A for %.4g Ah); an OCV table needs "
                    "C/%.0f or slower",
                    what, 1.0 / out->c_rate_per_h, i_mean, q, 1.0 / max_c_rate_per_h);
  if (charge) { /* SOC rises from 0 with the charge; OCV = V - |I| r_dc */
    for (size_t k = 0; rc == SITS_OK && k < m; k++) {
      soc[k] = ah[k] / q;
      ocv[k] = v_v[a + k] - sign * i_a[a + k] * r_dc_ohm;
    }
  } else { /* increasing SOC: sample m-1-k; OCV = V + I r_dc */
    for (size_t k = 0; rc == SITS_OK && k < m / 2; k++) {
      double t = ah[k];
      ah[k] = ah[m - 1 - k];
      ah[m - 1 - k] = t;
    }
    for (size_t k = 0; rc == SITS_OK && k < m; k++) {
      soc[k] = 1.0 - ah[k] / q;
      size_t s2 = a + (m - 1 - k);
      ocv[k] = v_v[s2] + sign * i_a[s2] * r_dc_ohm;
    }
  }
  if (rc == SITS_OK)
    rc = resample(soc, ocv, m, n_points, out, err);
  free(soc), free(ocv);
  return rc;
}

int sits_ocv_from_discharge(const double *t_s, const double *i_a, const double *v_v, size_t n,
                            double r_dc_ohm, double r_fallback_ohm, size_t n_points,
                            double max_c_rate_per_h, sits_ocv_test *out, sits_err *err) {
  return branch(t_s, i_a, v_v, n, false, r_dc_ohm, r_fallback_ohm, n_points, max_c_rate_per_h,
                out, err);
}

int sits_ocv_from_branches(const double *t_d, const double *i_d, const double *v_d, size_t n_d,
                           const double *t_c, const double *i_c, const double *v_c, size_t n_c,
                           double r_dc_ohm, double r_fallback_ohm, size_t n_points,
                           double max_c_rate_per_h, sits_ocv_test *out, sits_err *err) {
  sits_ocv_test *chg = malloc(sizeof *chg);
  if (!chg)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  int rc = branch(t_d, i_d, v_d, n_d, false, r_dc_ohm, r_fallback_ohm, n_points,
                  max_c_rate_per_h, out, err);
  /* the charge takes the discharge's resistance: its own first step, from empty, is the
   * steep OCV rise of an empty cell as much as an IR drop */
  if (rc == SITS_OK)
    rc = branch(t_c, i_c, v_c, n_c, true, out->r_dc_ohm, r_fallback_ohm, n_points,
                max_c_rate_per_h, chg, err);
  if (rc == SITS_OK) { /* the midpoint of the branches; their half gap is the hysteresis */
    double gap = 0;
    size_t mid = 0;
    for (size_t j = 0; j < out->n; j++) {
      double d = out->ocv_v[j], c = chg->ocv_v[j];
      out->ocv_v[j] = 0.5 * (d + c);
      if (out->soc[j] >= 0.1 - 1e-12 && out->soc[j] <= 0.9 + 1e-12)
        gap += 0.5 * (c - d), mid++;
    }
    out->both_branches = true;
    out->charge_capacity_ah = chg->capacity_ah;
    out->half_gap_v = mid ? gap / (double)mid : NAN;
    for (size_t j = 1; rc == SITS_OK && j < out->n; j++)
      if (out->ocv_v[j] < out->ocv_v[j - 1] - SITS_BATTERY_OCV_NOISE_V)
        rc = sits__fail(err, SITS_EINPUT,
                        "the mean of the OCV branches falls by %.1f mV near SOC %.3f",
                        1e3 * (out->ocv_v[j - 1] - out->ocv_v[j]), out->soc[j]);
  }
  free(chg);
  return rc;
}

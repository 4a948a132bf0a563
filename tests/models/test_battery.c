/* test_battery.c - the Thevenin battery model against hand-checked values and closed forms. */
#include "test_util.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>

#include "sits_battery.h"

/* A linear OCV 3.0 -> 4.2 V over SOC 0..1 (mean 3.6 V), R0 20 mOhm, one RC pair. */
static sits_battery_cfg linear_cell(void) {
  sits_battery_cfg c;
  memset(&c, 0, sizeof c);
  c.series = c.parallel = 1;
  c.capacity_ah = 5.0;
  c.capacity_wh = NAN;
  c.n_ocv = 3;
  c.ocv_soc[0] = 0, c.ocv_soc[1] = 0.5, c.ocv_soc[2] = 1;
  c.ocv_v[0] = 3.0, c.ocv_v[1] = 3.6, c.ocv_v[2] = 4.2;
  c.r0_ohm = 0.02;
  c.n_rc = 1;
  c.rc_r_ohm[0] = 0.015;
  c.rc_c_f[0] = 2000;
  c.r_ref_c = 25;
  c.cutoff_v = 3.0;
  c.coulombic_eff = 0.99;
  return c;
}

/* The linear cell with OCV rows 2.9 + 1.2 SOC at 0 C and 3.1 + 1.2 SOC at 40 C. */
static sits_battery_cfg two_row_cell(void) {
  sits_battery_cfg c = linear_cell();
  c.n_ocv_t = 2;
  c.ocv_t_c[0] = 0, c.ocv_t_c[1] = 40;
  for (size_t k = 0; k < 3; k++) {
    c.ocv_v_t[0][k] = 2.9 + 1.2 * c.ocv_soc[k];
    c.ocv_v_t[1][k] = 3.1 + 1.2 * c.ocv_soc[k];
  }
  c.cutoff_v = 2.8;
  return c;
}

static sits_battery *make(const sits_battery_cfg *c) {
  sits_err err = {0};
  sits_battery *b = sits_battery_new(c, &err);
  cr_assert_not_null(b, "%s", err.msg);
  return b;
}

Test(battery, ocv_interpolation_and_mean) {
  sits_battery_cfg c = linear_cell();
  sits_battery *b = make(&c);
  cr_assert_float_eq(sits_battery_ocv_v(b, 0.5), 3.6, 1e-12);
  cr_assert_float_eq(sits_battery_ocv_v(b, 0.25), 3.3, 1e-12); /* Steffen is exact on a line */
  cr_assert_float_eq(sits_battery_ocv_v(b, 1.5), 4.2, 1e-12);  /* clamped */
  cr_assert_float_eq(sits_battery_mean_ocv_v(b), 3.6, 1e-12);
  sits_battery_free(b);
}

Test(battery, watt_hours_to_amp_hours) {
  sits_battery_cfg c = linear_cell();
  c.capacity_ah = NAN;
  c.capacity_wh = 56.0;
  c.series = 3;
  sits_battery *b = make(&c);
  /* 56 Wh / (3 cells * 3.6 V mean OCV) = 5.1852 Ah per cell */
  cr_assert_float_eq(sits_battery_capacity_ah(b), 56.0 / (3 * 3.6), 1e-12);
  sits_battery_free(b);
}

Test(battery, constant_power_root_and_pack_scaling) {
  sits_battery_cfg c = linear_cell();
  sits_battery *one = make(&c);
  double v_rc[1] = {0.05}, i1, v1;
  cr_assert(sits_battery_current_a(one, 0.5, v_rc, 25, 10.0, 0.0, &i1, &v1, NULL));
  /* b = 3.6 - 0.05 = 3.55: 0.02 I^2 - 3.55 I + 10 = 0, smaller root */
  double want = (3.55 - sqrt(3.55 * 3.55 - 4 * 0.02 * 10)) / (2 * 0.02);
  cr_assert_float_eq(i1, want, 1e-12);
  cr_assert_float_eq(v1 * i1, 10.0, 1e-9); /* the cell delivers the power */
  c.parallel = 2;
  sits_battery *two_p = make(&c);
  double i2, v2;
  sits_battery_current_a(two_p, 0.5, v_rc, 25, 20.0, 0.0, &i2, &v2, NULL);
  cr_assert_float_eq(i2, i1, 1e-12); /* 2P at twice the power: the same cell current */
  sits_battery_current_a(two_p, 0.5, v_rc, 25, 10.0, 0.0, &i2, &v2, NULL);
  cr_assert_float_eq(i2, (3.55 - sqrt(3.55 * 3.55 - 4 * 0.02 * 5)) / 0.04, 1e-12);
  cr_assert_float_eq(i2 / i1, 0.5, 0.01); /* about half: 2P halves the cell current */
  c.parallel = 1;
  c.series = 3;
  sits_battery *three_s = make(&c);
  double i3, v3;
  sits_battery_current_a(three_s, 0.5, v_rc, 25, 30.0, 0.0, &i3, &v3, NULL);
  cr_assert_float_eq(i3, i1, 1e-12); /* 3S: the same current at three times the voltage */
  cr_assert_float_eq(3 * v3 * i3, 30.0, 1e-9);
  sits_battery_free(one), sits_battery_free(two_p), sits_battery_free(three_s);
}

/* The instantaneous hysteresis term: - m0 discharging, + m0 charging, s_rest at rest (the
 * linear cell at SOC 0.5: OCV 3.6 V, RC voltage 0.05 V, R0 0.02 ohm, m0 15 mV). */
Test(battery, instantaneous_hysteresis_follows_the_current) {
  sits_battery_cfg c = linear_cell();
  c.hyst_m0_v = 0.015;
  sits_battery *b = make(&c);
  double v_rc[1] = {0.05}, i, v;
  cr_assert(sits_battery_current_a(b, 0.5, v_rc, 25, 10.0, 1.0, &i, &v, NULL));
  double bq = 3.55 - 0.015; /* discharging: s = -1 whatever s_rest says */
  cr_assert_float_eq(i, (bq - sqrt(bq * bq - 4 * 0.02 * 10)) / (2 * 0.02), 1e-12);
  cr_assert_float_eq(v, bq - 0.02 * i, 1e-12);
  cr_assert(sits_battery_current_a(b, 0.5, v_rc, 25, -10.0, -1.0, &i, &v, NULL));
  bq = 3.55 + 0.015; /* charging: s = +1 */
  cr_assert_float_eq(i, (bq - sqrt(bq * bq + 4 * 0.02 * 10)) / (2 * 0.02), 1e-12);
  cr_assert_float_eq(v, bq - 0.02 * i, 1e-12);
  for (double s = -1; s <= 1; s += 1) { /* at rest: the sign given */
    cr_assert(sits_battery_current_a(b, 0.5, v_rc, 25, 0.0, s, &i, &v, NULL));
    cr_assert_eq(i, 0.0);
    cr_assert_float_eq(v, 3.55 + 0.015 * s, 1e-12);
  }
  sits_battery_free(b);
  c.hyst_m0_v = -0.01; /* refused */
  sits_err err = {0};
  cr_assert_null(sits_battery_new(&c, &err));
  cr_assert(strstr(err.msg, "m0_v"), "%s", err.msg);
}

Test(battery, brownout_above_the_maximum_power) {
  sits_battery_cfg c = linear_cell();
  sits_battery *b = make(&c);
  double v_rc[1] = {0}, i, v;
  double p_max = 3.6 * 3.6 / (4 * 0.02); /* b^2 / 4a = 162 W */
  double disc;
  cr_assert(sits_battery_current_a(b, 0.5, v_rc, 25, 0.999 * p_max, 0.0, &i, &v, &disc));
  cr_assert_float_eq(disc, 3.6 * 3.6 * 0.001, 1e-12); /* b^2 - 4 a p = b^2 (1 - 0.999) */
  cr_assert_not(sits_battery_current_a(b, 0.5, v_rc, 25, 1.001 * p_max, 0.0, &i, &v, NULL));
  sits_battery_free(b);
}

Test(battery, arrhenius_resistance_and_heat) {
  sits_battery_cfg c = linear_cell();
  c.r_ea_j_per_mol = 20000;
  sits_battery *b = make(&c);
  cr_assert_float_eq(sits_battery_r_scale(b, 25.0), 1.0, 1e-15);
  double s45 = exp(20000 / 8.314462618 * (1 / 318.15 - 1 / 298.15));
  cr_assert_float_eq(sits_battery_r_scale(b, 45.0), s45, 1e-12);
  cr_assert_lt(s45, 1.0); /* a hot cell has a lower resistance */
  double v_rc[1] = {0.03};
  /* I^2 R0 s + V1^2 / (R1 s) */
  cr_assert_float_eq(sits_battery_heat_w(b, 0.5, v_rc, 45.0, 2.0),
                     4 * 0.02 * s45 + 0.03 * 0.03 / (0.015 * s45), 1e-12);
  sits_battery_free(b);
}

typedef struct cc {
  const sits_battery *b;
  double i_a;
} cc;

static int cc_rhs(double t, const double y[], double dy[], void *p) {
  (void)t;
  const cc *c = p;
  sits_battery_derivative(c->b, y[0], y + 1, 25.0, c->i_a, &dy[0], dy + 1);
  return GSL_SUCCESS;
}

/* Constant current, 1 RC: SOC falls linearly and V_1 = I R1 (1 - e^{-t / (R1 C1)}). */
Test(battery, constant_current_closed_form) {
  sits_battery_cfg c = linear_cell();
  sits_battery *b = make(&c);
  cc prm = {b, 2.5};
  gsl_odeiv2_system sys = {cc_rhs, NULL, 2, &prm};
  gsl_odeiv2_driver *d =
      gsl_odeiv2_driver_alloc_y_new(&sys, gsl_odeiv2_step_rk8pd, 1, 1e-12, 1e-12);
  double t = 0, y[2] = {1.0, 0.0};
  for (int k = 1; k <= 40; k++) {
    double ts = 30.0 * k;
    cr_assert_eq(gsl_odeiv2_driver_apply(d, &t, ts, y), GSL_SUCCESS);
    cr_assert_float_eq(y[0], 1.0 - 2.5 * ts / (3600 * 5.0), 1e-10);
    cr_assert_float_eq(y[1], 2.5 * 0.015 * (1 - exp(-ts / 30.0)), 1e-10);
  }
  /* charging: the coulombic efficiency scales the charge that goes in */
  double dsoc, dv;
  double v_rc[1] = {0};
  sits_battery_derivative(b, 0.5, v_rc, 25, -1.0, &dsoc, &dv);
  cr_assert_float_eq(dsoc, 0.99 / (3600 * 5.0), 1e-15);
  gsl_odeiv2_driver_free(d);
  sits_battery_free(b);
}

Test(battery, malformed_tables_are_rejected) {
  sits_err err = {0};
  sits_battery_cfg c = linear_cell();
  c.ocv_v[1] = 4.3; /* not monotone: 4.3 V then 4.2 V, a 100 mV dip */
  cr_assert_null(sits_battery_new(&c, &err));
  cr_assert(strstr(err.msg, "not monotone"), "%s", err.msg);
  c = linear_cell();
  c.ocv_soc[2] = 1.2;
  cr_assert_null(sits_battery_new(&c, &err));
  cr_assert(strstr(err.msg, "not in [0, 1]"), "%s", err.msg);
  c = linear_cell();
  c.cutoff_v = 4.3;
  cr_assert_null(sits_battery_new(&c, &err));
  cr_assert(strstr(err.msg, "not below the OCV at full charge"), "%s", err.msg);
  c = linear_cell();
  c.capacity_ah = 0;
  cr_assert_null(sits_battery_new(&c, &err));
  cr_assert(strstr(err.msg, "capacity must be > 0"), "%s", err.msg);
}

Test(battery, measured_a123_ocv_is_monotone_and_reproduced) {
  /* the A123 LFP OCV at 25 C derived from Plett's ESC toolbox tests (shared/data) */
  char path[512];
  snprintf(path, sizeof path, "%s/battery_a123_ocv_25degC.csv", SITS_TEST_DATA);
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f, "%s", path);
  sits_battery_cfg c = linear_cell();
  char line[256];
  c.n_ocv = 0;
  while (fgets(line, sizeof line, f) && c.n_ocv < SITS_BATTERY_MAX_OCV) {
    double s, v;
    if (sscanf(line, "%lf,%lf", &s, &v) == 2)
      c.ocv_soc[c.n_ocv] = s, c.ocv_v[c.n_ocv++] = v;
  }
  fclose(f);
  cr_assert_gt(c.n_ocv, 10);
  c.cutoff_v = 2.0;
  sits_battery *b = make(&c);
  for (size_t k = 0; k < c.n_ocv; k++)
    cr_assert_float_eq(sits_battery_ocv_v(b, c.ocv_soc[k]), c.ocv_v[k], 1e-12);
  /* Steffen's interpolant never overshoots the data: between two points it stays within
   * them, so it dips only where the measured table dips (at most 0.1 mV here) */
  for (size_t k = 0; k + 1 < c.n_ocv; k++) {
    double lo = fmin(c.ocv_v[k], c.ocv_v[k + 1]), hi = fmax(c.ocv_v[k], c.ocv_v[k + 1]);
    for (int j = 1; j < 10; j++) {
      double v = sits_battery_ocv_v(b, c.ocv_soc[k] + j * (c.ocv_soc[k + 1] - c.ocv_soc[k]) / 10);
      cr_assert(v >= lo - 1e-12 && v <= hi + 1e-12, "overshoot between points %zu and %zu", k,
                k + 1);
    }
  }
  /* the LFP plateau: about 3.30 V at half charge */
  cr_assert_float_eq(sits_battery_ocv_v(b, 0.5), 3.30, 0.01);
  sits_battery_free(b);
}

/* A 2-D table: OCV 2.9 + 1.2 SOC at 0 C and 3.1 + 1.2 SOC at 40 C; linear in T between the
 * rows and held outside them. */
Test(battery, ocv_over_soc_and_temperature) {
  sits_battery_cfg c = two_row_cell();
  sits_battery *b = make(&c);
  cr_assert_float_eq(sits_battery_ocv_at_v(b, 0.5, 20), 3.6, 1e-12);
  cr_assert_float_eq(sits_battery_ocv_at_v(b, 0.25, 10), 2.9 + 0.05 + 0.3, 1e-12);
  cr_assert_float_eq(sits_battery_ocv_at_v(b, 0.5, -10), 3.5, 1e-12); /* held at 0 C */
  cr_assert_float_eq(sits_battery_ocv_at_v(b, 0.5, 60), 3.7, 1e-12);  /* held at 40 C */
  /* the SOC-only functions are at r_ref_c = 25 C: offset 2.9 + 0.2 * 25/40 = 3.025 V */
  cr_assert_float_eq(sits_battery_ocv_v(b, 0.0), 3.025, 1e-12);
  cr_assert_float_eq(sits_battery_mean_ocv_v(b), 3.625, 1e-12);
  cr_assert_float_eq(sits_battery_pack_energy_j(b, 0, 1), 5.0 * 3600 * 3.625, 1e-9);
  /* the current solve uses the cell temperature: at 0 C and p = 3 W, b = 2.9 + 0.6 V */
  double i, v, disc;
  double zero[1] = {0};
  cr_assert(sits_battery_current_a(b, 0.5, zero, 0.0, 3.0, 0.0, &i, &v, &disc));
  cr_assert_float_eq(i, (3.5 - sqrt(3.5 * 3.5 - 4 * 0.02 * 3.0)) / (2 * 0.02), 1e-12);
  sits_battery_free(b);

  /* rows must be monotone and the temperatures increasing */
  sits_err err = {0};
  c.ocv_v_t[1][1] = 4.5;
  cr_assert_null(sits_battery_new(&c, &err));
  cr_assert(strstr(err.msg, "the OCV table at 40 C is not monotone"), "%s", err.msg);
  c.ocv_v_t[1][1] = 3.7;
  c.ocv_t_c[1] = 0;
  cr_assert_null(sits_battery_new(&c, &err));
  cr_assert(strstr(err.msg, "the OCV temperatures must increase"), "%s", err.msg);
}

/* Entropic heat from the OCV rows: rows 0.2 V apart over 40 K give dOCV/dT = 5 mV/K between
 * them; at 25 C, 2 A per cell discharging, 3 cells: -2 * 298.15 * 0.005 * 3 = -8.9445 W (the
 * reaction absorbs heat on discharge when the OCV rises with temperature), +8.9445 W charging,
 * 0 outside the rows (the OCV is held there), 0 unless asked for, refused without rows. */
Test(battery, entropic_heat_from_the_ocv_rows) {
  sits_battery_cfg c = two_row_cell();
  c.series = 3;
  sits_battery *off = make(&c);
  cr_assert_float_eq(sits_battery_docv_dt_v_per_k(off, 0.3, 25), 0.005, 1e-15);
  cr_assert_eq(sits_battery_entropic_w(off, 0.3, 25, 2.0), 0);
  sits_battery_free(off);
  c.entropic_heat = true;
  sits_battery *b = make(&c);
  cr_assert_float_eq(sits_battery_entropic_w(b, 0.3, 25, 2.0), -2 * 298.15 * 0.005 * 3, 1e-12);
  cr_assert_float_eq(sits_battery_entropic_w(b, 0.3, 25, -2.0), 2 * 298.15 * 0.005 * 3, 1e-12);
  cr_assert_eq(sits_battery_entropic_w(b, 0.3, 45, 2.0), 0);
  cr_assert_eq(sits_battery_entropic_w(b, 0.3, -5, 2.0), 0);
  sits_battery_free(b);
  sits_err err = {0};
  c.n_ocv_t = 0;
  cr_assert_null(sits_battery_new(&c, &err));
  cr_assert(strstr(err.msg, "entropic_heat needs OCV rows over temperature"), "%s", err.msg);
}

/* Resistance tables over SOC and temperature: factors 2 -> 1 over SOC at 0 C and 1 -> 0.5 at
 * 40 C. At 20 C, SOC 0.5 (Steffen is exact on these lines): (1.5 + 0.75) / 2 = 1.125; held at
 * the end rows outside [0, 40] C and at the end knots outside the SOC range; with rows the
 * Arrhenius factor is not applied, without rows it multiplies the SOC factor. The current
 * solve, the RC decay and the Joule heat use them. */
/* R0 factor tables at SOC 0.1, 0.5, 0.9 and 0, 40 C: 2 -> 1 over SOC at 0 C, half that at
 * 40 C. */
static void r0_tables(sits_battery_cfg *c) {
  c->n_r_soc = 3, c->n_r_t = 2;
  c->r_soc[0] = 0.1, c->r_soc[1] = 0.5, c->r_soc[2] = 0.9;
  c->r_t_c[0] = 0, c->r_t_c[1] = 40;
  for (size_t k = 0; k < 3; k++) {
    c->r0_scale[0][k] = 2.0 - (c->r_soc[k] - 0.1) / 0.8;
    c->r0_scale[1][k] = 0.5 * c->r0_scale[0][k];
  }
}

Test(battery, resistance_tables_over_soc_and_temperature) {
  sits_battery_cfg c = linear_cell();
  c.r_ea_j_per_mol = 30000;
  r0_tables(&c);
  for (size_t k = 0; k < 3; k++) {
    c.rc_r_scale[0][0][k] = c.r0_scale[0][k];
    c.rc_r_scale[0][1][k] = c.r0_scale[1][k];
  }
  c.rc_has_scale[0] = true;
  sits_battery *b = make(&c);
  cr_assert_float_eq(sits_battery_r0_ohm(b, 0.5, 20.0), 0.02 * 1.125, 1e-15);
  cr_assert_float_eq(sits_battery_r0_ohm(b, 0.3, 40.0), 0.02 * 0.5 * 1.75, 1e-15);
  cr_assert_float_eq(sits_battery_r0_ohm(b, 0.0, -10.0), 0.02 * 2.0, 1e-15); /* held */
  cr_assert_float_eq(sits_battery_r0_ohm(b, 1.0, 60.0), 0.02 * 0.5, 1e-15);  /* held */
  cr_assert_float_eq(sits_battery_rc_r_ohm(b, 0, 0.5, 20.0), 0.015 * 1.125, 1e-15);
  cr_assert_float_eq(sits_battery_rc_c_f(b, 0, 0.5, 20.0), 2000, 1e-12); /* no C table: c_f */
  double v_rc[1] = {0.03}, dsoc, dv, i, v;
  sits_battery_derivative(b, 0.5, v_rc, 20.0, 2.0, &dsoc, &dv);
  cr_assert_float_eq(dv, 2.0 / 2000 - 0.03 / (0.015 * 1.125 * 2000), 1e-15);
  sits_battery_free(b);
  /* the pair's capacitance over the same points: C 3x at SOC 0.1 / 0 C, 1x at 0.9 / 40 C */
  for (size_t k = 0; k < 3; k++) {
    c.rc_c_scale[0][0][k] = 3.0 - 2.0 * (c.r_soc[k] - 0.1) / 0.8;
    c.rc_c_scale[0][1][k] = 1.0;
  }
  c.rc_has_c_scale[0] = true;
  b = make(&c);
  /* at SOC 0.5: 2 in the 0 C row, 1 in the 40 C row; at 20 C half way: 1.5; no Arrhenius */
  cr_assert_float_eq(sits_battery_rc_c_f(b, 0, 0.5, 20.0), 2000 * 1.5, 1e-9);
  cr_assert_float_eq(sits_battery_rc_c_f(b, 0, 0.1, -10.0), 2000 * 3.0, 1e-9); /* held */
  sits_battery_derivative(b, 0.5, v_rc, 20.0, 2.0, &dsoc, &dv);
  cr_assert_float_eq(dv, 2.0 / 3000 - 0.03 / (0.015 * 1.125 * 3000), 1e-15);
  c.rc_c_scale[0][1][2] = 0; /* factors must be positive */
  sits_err cerr = {0};
  cr_assert_null(sits_battery_new(&c, &cerr));
  cr_assert(strstr(cerr.msg, "RC pair 0 capacitance factor 0"), "%s", cerr.msg);
  c.rc_c_scale[0][1][2] = 1.0;
  c.rc_has_c_scale[0] = false;
  cr_assert_float_eq(sits_battery_heat_w(b, 0.5, v_rc, 20.0, 2.0),
                     4.0 * 0.02 * 1.125 + 0.03 * 0.03 / (0.015 * 1.125), 1e-12);
  cr_assert(sits_battery_current_a(b, 0.5, v_rc, 20.0, 10.0, 0.0, &i, &v, NULL));
  double bq = 3.6 - 0.03, a = 0.02 * 1.125;
  cr_assert_float_eq(i, (bq - sqrt(bq * bq - 4 * a * 10.0)) / (2 * a), 1e-12);
  sits_battery_free(b);
  /* one row: the SOC factor times Arrhenius */
  c.n_r_t = 0;
  b = make(&c);
  cr_assert_float_eq(sits_battery_r0_ohm(b, 0.5, 10.0), 0.02 * 1.5 * sits_battery_r_scale(b, 10.0),
                     1e-15);
  cr_assert_gt(sits_battery_r_scale(b, 10.0), 1.5); /* the Arrhenius factor is there */
  sits_battery_free(b);
  /* knots must increase, factors be positive */
  sits_err err = {0};
  c.r_soc[2] = 0.4;
  cr_assert_null(sits_battery_new(&c, &err));
  cr_assert(strstr(err.msg, "r_soc must increase"), "%s", err.msg);
  c.r_soc[2] = 0.9;
  c.rc_r_scale[0][0][1] = -1;
  cr_assert_null(sits_battery_new(&c, &err));
  cr_assert(strstr(err.msg, "the RC pair 0 factor -1 (row 0, point 1) must be > 0"), "%s", err.msg);
}

/* Capacity over temperature: the factor is linear between the points and held outside them;
 * SOC falls at I / (3600 Q(T)); the hysteresis state's rate per Ah uses Q(T) too. Hand
 * numbers: rows 0.9 at -10 C, 1.0 at 25 C, 1.02 at 45 C on 5 Ah: at 7.5 C the factor is
 * 0.95 (halfway), 4.75 Ah; at 35 C 1.01, 5.05 Ah; -30 C and 60 C hold 4.5 and 5.1 Ah. */
Test(battery, capacity_over_temperature) {
  sits_battery_cfg c = linear_cell();
  c.n_q_t = 3;
  c.q_t_c[0] = -10, c.q_t_c[1] = 25, c.q_t_c[2] = 45;
  c.q_scale[0] = 0.9, c.q_scale[1] = 1.0, c.q_scale[2] = 1.02;
  sits_battery *b = make(&c);
  const double t[] = {-30, -10, 7.5, 25, 35, 45, 60};
  const double q[] = {4.5, 4.5, 4.75, 5.0, 5.05, 5.1, 5.1};
  for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
    cr_assert_float_eq(sits_battery_capacity_at_ah(b, t[k]), q[k], 1e-12, "at %g C", t[k]);
    double dsoc, dv, v_rc[1] = {0};
    sits_battery_derivative(b, 0.5, v_rc, t[k], 2.0, &dsoc, &dv);
    cr_assert_float_eq(dsoc, -2.0 / (3600 * q[k]), 1e-15, "at %g C", t[k]);
  }
  cr_assert_float_eq(sits_battery_capacity_ah(b), 5.0, 1e-15); /* the reference capacity */
  sits_battery_free(b);
  /* malformed rows: one point, not increasing, a factor <= 0 */
  sits_err err = {0};
  sits_battery_cfg bad = c;
  bad.n_q_t = 1;
  cr_assert_null(sits_battery_new(&bad, &err));
  cr_assert(strstr(err.msg, "2 to 8 points"), "%s", err.msg);
  bad = c, bad.q_t_c[2] = 20;
  cr_assert_null(sits_battery_new(&bad, &err));
  cr_assert(strstr(err.msg, "capacity_t_c must increase strictly"), "%s", err.msg);
  bad = c, bad.q_scale[0] = 0;
  cr_assert_null(sits_battery_new(&bad, &err));
  cr_assert(strstr(err.msg, "capacity_scale must be factors in (0, 10)"), "%s", err.msg);
}

/* sits_battery_eval gives what the separate calls give, bit for bit (the simulation's samples
 * and the equivalence tests rest on it): a cell with resistance tables over SOC and
 * temperature, OCV rows, entropic heat, two RC pairs and hysteresis, over temperatures
 * inside and outside the rows, charging, discharging, at rest and in a brown-out; and a hand
 * number: the linear cell at SOC 0.5, 25 C, V1 = 0.05 V, 10 W gives
 * i = 2 p / (b + sqrt(b^2 - 4 R0 p)) with b = 3.55 V. */
Test(battery, one_evaluation_equals_the_separate_calls) {
  sits_battery_cfg lin = linear_cell();
  sits_battery *b = make(&lin);
  double v1[1] = {0.05}, bq = 3.55;
  sits_battery_point pt;
  cr_assert(sits_battery_eval(b, 0.5, v1, 25.0, 10.0, 0.0, &pt));
  double i = 20.0 / (bq + sqrt(bq * bq - 0.8));
  cr_assert_float_eq(pt.i_cell_a, i, 1e-14);
  cr_assert_float_eq(pt.v_cell_v, bq - 0.02 * i, 1e-14);
  cr_assert_float_eq(pt.heat_w, i * i * 0.02 + 0.05 * 0.05 / 0.015, 1e-14);
  cr_assert_float_eq(pt.dsoc_dt, -i / (3600.0 * 5.0), 1e-18);
  cr_assert_float_eq(pt.dv_rc_dt[0], i / 2000 - 0.05 / (0.015 * 2000), 1e-16);
  sits_battery_free(b);

  sits_battery_cfg c = two_row_cell();
  c.series = 3, c.parallel = 2;
  c.entropic_heat = true;
  c.r_ea_j_per_mol = 25000;
  c.n_rc = 2;
  c.rc_r_ohm[1] = 0.01, c.rc_c_f[1] = 30000;
  r0_tables(&c);
  for (size_t k = 0; k < 3; k++) {
    c.rc_r_scale[0][0][k] = 1.5 * c.r0_scale[0][k];
    c.rc_r_scale[0][1][k] = c.r0_scale[1][k];
    c.rc_c_scale[0][0][k] = 3.0 - 2.0 * (c.r_soc[k] - 0.1) / 0.8;
    c.rc_c_scale[0][1][k] = 1.0;
  }
  c.rc_has_scale[0] = c.rc_has_c_scale[0] = true; /* pair 1: no tables, Arrhenius */
  c.hyst_m_v = 0.02, c.hyst_gamma = 50, c.hyst_m0_v = 0.005;
  b = make(&c);
  const double temps[] = {-10, 0, 17.5, 25, 40, 55}, socs[] = {0.05, 0.3, 0.77, 0.95};
  const double powers[] = {-40, 0, 12, 60, 5000}; /* 5 kW: a brown-out */
  double v_rc[3] = {0.04, -0.01, 0.3};
  size_t brownouts = 0;
  for (size_t a = 0; a < 6; a++)
    for (size_t s = 0; s < 4; s++)
      for (size_t p = 0; p < 5; p++) {
        double ti = temps[a], soc = socs[s], pw = powers[p], ii, vv, dd, dsoc, dv[3];
        bool ok = sits_battery_current_a(b, soc, v_rc, ti, pw, -1.0, &ii, &vv, &dd);
        double heat =
            sits_battery_heat_w(b, soc, v_rc, ti, ii) + sits_battery_entropic_w(b, soc, ti, ii);
        sits_battery_derivative(b, soc, v_rc, ti, ii, &dsoc, dv);
        cr_assert_eq(sits_battery_eval(b, soc, v_rc, ti, pw, -1.0, &pt), ok);
        cr_assert_eq(pt.ok, ok);
        cr_assert(pt.i_cell_a == ii && pt.v_cell_v == vv && pt.disc_v2 == dd,
                  "T %g SOC %g P %g: i %.17g / %.17g", ti, soc, pw, pt.i_cell_a, ii);
        cr_assert(pt.heat_w == heat && pt.dsoc_dt == dsoc, "T %g SOC %g P %g: heat %.17g / %.17g",
                  ti, soc, pw, pt.heat_w, heat);
        for (size_t k = 0; k < 3; k++)
          cr_assert(pt.dv_rc_dt[k] == dv[k], "state %zu: %.17g / %.17g", k, pt.dv_rc_dt[k], dv[k]);
        brownouts += !ok;
      }
  cr_assert_eq(brownouts, 24); /* 5 kW at every temperature and SOC, nothing else */
  sits_battery_free(b);
}

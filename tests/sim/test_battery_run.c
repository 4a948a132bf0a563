/*
 * test_battery_run.c - runs with a battery pack: runtime under constant power against an
 * independent integration of the same equations with GSL's rk8pd at tight tolerance
 * (within 0.1 %), brown-out and cutoff at their exact times, temperature, the energy
 * account with battery heat, and the Wh override.
 */
#include "test_util.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>

/* One node carrying static_w = the system power; a 1S1P cell with a linear OCV
 * 3.0 -> 4.2 V, 2 Ah, R0 and optionally one RC pair. */
static char *scenario(double p_sys_w, double r0, const char *rc, double cutoff, const char *extra,
                      const char *scen_extra) {
  char *t = malloc(4096);
  snprintf(t, 4096,
           "platform = { static_w = %g; static_node = \"board\"; thermal = {\n"
           "  nodes = ( { name = \"board\"; c_j_per_k = 20.0; }, { name = \"batt\"; c_j_per_k = "
           "40.0; } );\n"
           "  links = ( { a = \"board\"; b = \"ambient\"; r_k_per_w = 2.0; },\n"
           "            { a = \"batt\"; b = \"ambient\"; r_k_per_w = 3.0; } ); };\n"
           "  battery = { series = 1; parallel = 1; capacity_ah = 2.0; ocv_soc = [0.0, 0.5, 1.0];\n"
           "              ocv_v = [3.0, 3.6, 4.2]; r0_ohm = %g; %s cutoff_v = %g; efficiency = "
           "0.9; %s }; };\n"
           "workload = { phases = ( { duration_s = 20000.0; } ); };\n"
           "sample_period_s = 10.0;\n%s",
           p_sys_w, r0, rc, cutoff, extra, scen_extra);
  return t;
}

typedef struct ref {
  double p_cell, r0, r1, c1, q_ah;
  int n_rc;
  double m_v, gamma; /* hysteresis (m_v 0: none): its state is y[2] */
  /* resistance factors linear in SOC from f0 at SOC 0 to f1 at SOC 1 (both 0: none) */
  double r0_f0, r0_f1, r1_f0, r1_f1;
  double m0; /* instantaneous hysteresis: - m0 while discharging (these runs only discharge) */
  double c1_f0, c1_f1; /* C1's factor linear in SOC, as the resistances' (both 0: none) */
} ref;

static double factor(double f0, double f1, double soc) {
  return f0 == 0 && f1 == 0 ? 1.0 : f0 + (f1 - f0) * fmin(fmax(soc, 0), 1);
}

static double ocv(double soc) {
  return 3.0 + 1.2 * fmin(fmax(soc, 0), 1);
}

static bool ref_current(const ref *r, const double *y, double *i, double *v, double *disc) {
  double b = ocv(y[0]) - (r->n_rc ? y[1] : 0) + r->m_v * y[2] - r->m0;
  double r0 = r->r0 * factor(r->r0_f0, r->r0_f1, y[0]);
  *disc = b * b - 4 * r0 * r->p_cell;
  if (*disc < 0)
    return false;
  *i = (b - sqrt(*disc)) / (2 * r0);
  *v = b - r0 * *i;
  return true;
}

static int ref_rhs(double t, const double y[], double dy[], void *p) {
  (void)t;
  const ref *r = p;
  double i, v, disc;
  if (!ref_current(r, y, &i, &v, &disc))
    i = (ocv(y[0]) - (r->n_rc ? y[1] : 0) + r->m_v * y[2] - r->m0) /
        (2 * r->r0 * factor(r->r0_f0, r->r0_f1, y[0]));
  dy[0] = -i / (3600 * r->q_ah);
  double r1 = r->r1 * factor(r->r1_f0, r->r1_f1, y[0]);
  double c1 = r->c1 * factor(r->c1_f0, r->c1_f1, y[0]);
  dy[1] = r->n_rc ? i / c1 - y[1] / (r1 * c1) : 0;
  /* discharging (i > 0): h -> -1 at gamma per capacity moved */
  dy[2] = -fabs(i) * r->gamma / (3600 * r->q_ah) * (y[2] + (i > 0 ? 1 : i < 0 ? -1 : 0));
  return GSL_SUCCESS;
}

static double ref_end_time_h(ref *r, double cutoff, bool brownout, double h0);

/* Time at which g(y) = v - cutoff (or disc) first reaches 0: 1-s steps, then bisection. */
static double ref_end_time(ref *r, double cutoff, bool brownout) {
  return ref_end_time_h(r, cutoff, brownout, 0.0);
}

static double ref_end_time_h(ref *r, double cutoff, bool brownout, double h0) {
  gsl_odeiv2_system sys = {ref_rhs, NULL, 3, r};
  double y[3] = {1.0, 0.0, h0}, t = 0;
  for (;;) {
    double ys[3] = {y[0], y[1], y[2]}, ts = t, i, v, disc;
    gsl_odeiv2_driver *d =
        gsl_odeiv2_driver_alloc_y_new(&sys, gsl_odeiv2_step_rk8pd, 1e-3, 1e-13, 1e-13);
    gsl_odeiv2_driver_apply(d, &t, t + 1.0, y);
    gsl_odeiv2_driver_free(d);
    bool ok = ref_current(r, y, &i, &v, &disc);
    if (brownout ? !ok : (ok && v <= cutoff)) {
      double lo = ts, hi = t;
      for (int it = 0; it < 60; it++) {
        double mid = 0.5 * (lo + hi), yy[3] = {ys[0], ys[1], ys[2]}, tt = ts;
        d = gsl_odeiv2_driver_alloc_y_new(&sys, gsl_odeiv2_step_rk8pd, 1e-4, 1e-13, 1e-13);
        if (mid > ts)
          gsl_odeiv2_driver_apply(d, &tt, mid, yy);
        gsl_odeiv2_driver_free(d);
        bool ok2 = ref_current(r, yy, &i, &v, &disc);
        if (brownout ? !ok2 : (ok2 && v <= cutoff))
          hi = mid;
        else
          lo = mid;
      }
      return 0.5 * (lo + hi);
    }
  }
}

/* A short run of the scenario @p text (freed) ends on its duration and estimates the battery's
 * life within 2e-3 of @p want; with @p ok 0 or 1, its min_battery_life_s verdict is that. */
static void estimate_is(char *text, double want, int ok) {
  sits_scenario *sc = tu_load("short.cfg", text);
  free(text);
  sits_result *r = tu_run(sc);
  const sits_summary *s = sits_result_summary(r);
  cr_assert_eq(s->end_reason, SITS_END_DURATION);
  cr_assert(s->runtime_estimated);
  cr_assert_float_eq(s->runtime_s, want, 2e-3 * want, "estimate %g s vs %g s", s->runtime_s, want);
  if (ok >= 0)
    cr_assert_eq(s->battery_life.ok, ok == 1, "limit %g s, estimate %g s", s->battery_life.limit,
                 s->runtime_s);
  sits_result_free(r);
  sits_scenario_free(sc);
}

Test(battery_run, constant_power_runtime_matches_independent_integration) {
  char *text = scenario(8.0, 0.05, "rc = ( { r_ohm = 0.03; c_f = 1000.0; } );", 3.2, "", "");
  sits_scenario *sc = tu_load("cp.cfg", text);
  free(text);
  sits_result *r = tu_run(sc);
  const sits_summary *s = sits_result_summary(r);
  ref rf = {8.0 / 0.9, 0.05, 0.03, 1000.0, 2.0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  double want = ref_end_time(&rf, 3.2, false);
  cr_assert_eq(s->end_reason, SITS_END_BATTERY_CUTOFF);
  cr_assert_float_eq(s->runtime_s, want, 1e-3 * want, "runtime %g s vs %g s", s->runtime_s, want);
  cr_log_info("runtime %.3f s, reference %.3f s", s->runtime_s, want);
  cr_assert_not(s->runtime_estimated);
  /* the last sample is the cutoff: terminal voltage at cutoff_v */
  size_t last = sits_result_sample_count(r) - 1;
  cr_assert_float_eq(sits_result_battery_voltage_v(r, last), 3.2, 1e-5);
  cr_assert_float_eq(s->min_voltage_v, 3.2, 1e-5);
  /* energy bounds: what was drawn is less than the open-circuit energy used */
  double used_j = 2.0 * 3600 * (3.0 * (1 - s->final_soc) + 0.6 * (1 - s->final_soc * s->final_soc));
  cr_assert_float_eq(s->energy_drawn_wh * 3600, 8.0 / 0.9 * s->runtime_s,
                     1e-6 * 8.0 * s->runtime_s);
  cr_assert_lt(s->energy_drawn_wh * 3600, used_j);
  sits_result_free(r);
  sits_scenario_free(sc);
  /* A 600-s run of the same load estimates the life: to the SOC where the loaded cell reaches
   * its cutoff (RC pair settled), not to SOC 0 (the open-circuit energy left read ~10 % long:
   * the cutoff at 3.2 V comes at SOC ~0.13 here). Within 2e-3 of the reference (the pair is
   * not settled over the first seconds, and the estimate takes it settled); and the
   * constraint judges the estimate as it judges the full run: a limit 1 % above the life
   * fails, 1 % below passes. */
  for (int k = 0; k < 2; k++) {
    char lim[96];
    snprintf(lim, sizeof lim, "duration_s = 600.0;\nmin_battery_life_s = %.6f;\n",
             want * (k ? 0.99 : 1.01));
    estimate_is(scenario(8.0, 0.05, "rc = ( { r_ohm = 0.03; c_f = 1000.0; } );", 3.2, "", lim),
                want, k == 1);
  }
}

/* With hysteresis (Plett's one-state ESC term: + m_v h, h from +1 after a charge towards -1
 * as charge leaves): the same reference with h as a third state. +30 mV at the start, -30 mV
 * once a fifth of the capacity has left: the cutoff comes earlier than without (measured
 * 1832.9 s against 1898.6 s; the run matches the reference to 1e-3). Then with the
 * instantaneous term too (m0_v 20 mV: - m0 while discharging, so the reference's OCV is
 * lowered by it throughout; measured 1779.6 s). */
Test(battery_run, hysteresis_against_independent_integration) {
  const double m0s[] = {0.0, 0.02};
  ref plain = {8.0 / 0.9, 0.05, 0.03, 1000.0, 2.0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  double without = ref_end_time(&plain, 3.2, false);
  for (size_t q = 0; q < 2; q++) {
    char hy[128];
    snprintf(hy, sizeof hy, "hysteresis = { m_v = 0.03; gamma = 5.0; initial = 1.0; m0_v = %g; };",
             m0s[q]);
    char *text = scenario(8.0, 0.05, "rc = ( { r_ohm = 0.03; c_f = 1000.0; } );", 3.2, hy, "");
    sits_scenario *sc = tu_load("hy.cfg", text);
    free(text);
    sits_result *r = tu_run(sc);
    const sits_summary *s = sits_result_summary(r);
    ref rf = {8.0 / 0.9, 0.05, 0.03, 1000.0, 2.0, 1, 0.03, 5.0, 0, 0, 0, 0, m0s[q], 0, 0};
    double want = ref_end_time_h(&rf, 3.2, false, 1.0);
    cr_log_info("runtime with hysteresis (m0 %g) %.3f s (reference %.3f s; without %.3f s)", m0s[q],
                s->runtime_s, want, without);
    cr_assert_eq(s->end_reason, SITS_END_BATTERY_CUTOFF);
    cr_assert_float_eq(s->runtime_s, want, 1e-3 * want, "runtime %g s vs %g s", s->runtime_s, want);
    cr_assert_gt(fabs(want - without), 10 * 1e-3 * want, "the term matters here: %g vs %g", want,
                 without);
    /* the first sample: the terminal voltage carries + m_v h0 (- m0) over the plain cell's */
    double i0, v0, d0, y0[3] = {1.0, 0.0, 1.0};
    cr_assert(ref_current(&rf, y0, &i0, &v0, &d0));
    cr_assert_float_eq(sits_result_battery_voltage_v(r, 0), v0, 1e-9);
    sits_result_free(r);
    sits_scenario_free(sc);
  }
}

/* At rest the term keeps the last current's sign: a cell with M0 only (no RC pair, m_v 0)
 * rests at OCV(SOC) + 0 before any current (h starts at 0), gives OCV - m0 - R0 i under a
 * discharge and rests at OCV(SOC) - m0 after it (Plett's s held), to the solver's accuracy. */
Test(battery_run, instantaneous_hysteresis_holds_its_sign_at_rest) {
  sits_scenario *sc = tu_load(
      "rest.cfg",
      "platform = { thermal = { nodes = ( { name = \"board\"; c_j_per_k = 20.0; } );\n"
      "  links = ( { a = \"board\"; b = \"ambient\"; r_k_per_w = 2.0; } ); };\n"
      "  battery = { series = 1; parallel = 1; capacity_ah = 2.0; ocv_soc = [0.0, 0.5, 1.0];\n"
      "    ocv_v = [3.0, 3.6, 4.2]; r0_ohm = 0.05; cutoff_v = 3.0;\n"
      "    hysteresis = { m_v = 0.0; gamma = 1.0; m0_v = 0.02; }; }; };\n"
      "workload = { phases = ( { duration_s = 100.0; power_w = { board = 0.0; }; },\n"
      "  { duration_s = 600.0; power_w = { board = 8.0; }; },\n"
      "  { duration_s = 300.0; power_w = { board = 0.0; }; } ); };\n"
      "sample_period_s = 10.0;\n");
  sits_result *r = tu_run(sc);
  size_t n = sits_result_sample_count(r);
  bool rest1 = false, load = false, rest2 = false;
  for (size_t k = 0; k < n; k++) {
    double t = sits_result_time_s(r)[k], soc = sits_result_battery_soc(r, k);
    double v = sits_result_battery_voltage_v(r, k), ocv_v = 3.0 + 1.2 * soc;
    if (t > 5 && t < 95) /* before any current: s = sgn(h0) = 0 */
    {
      cr_assert_float_eq(v, ocv_v, 1e-9, "t %g: %g vs %g", t, v, ocv_v);
      rest1 = true;
    }
    if (t > 105 && t < 695) { /* discharging 8 W: v = OCV - m0 - R0 i, v i = 8 */
      double b = ocv_v - 0.02, i = (b - sqrt(b * b - 4 * 0.05 * 8.0)) / (2 * 0.05);
      cr_assert_float_eq(v, b - 0.05 * i, 1e-6, "t %g: %g vs %g", t, v, b - 0.05 * i);
      load = true;
    }
    if (t > 705) /* after it: s = -1 held */
    {
      cr_assert_float_eq(v, ocv_v - 0.02, 1e-9, "t %g: %g vs %g", t, v, ocv_v - 0.02);
      rest2 = true;
    }
  }
  cr_assert(rest1 && load && rest2);
  sits_result_free(r);
  sits_scenario_free(sc);
}

/* A run of the cell with tables (rc and extra into the scenario) against the reference @p rf:
 * the cutoff at its time (1e-3), away from @p flat's (the same cell without the tables). The
 * scenario, for the caller's checks (free it). */
static sits_scenario *tables_run(const char *name, const char *rc, const char *extra, ref rf,
                                 ref flat) {
  char *text = scenario(8.0, 0.05, rc, 3.2, extra, "");
  sits_scenario *sc = tu_load(name, text);
  free(text);
  sits_result *r = tu_run(sc);
  const sits_summary *s = sits_result_summary(r);
  double want = ref_end_time(&rf, 3.2, false), without = ref_end_time(&flat, 3.2, false);
  cr_log_info("%s: runtime %.3f s (reference %.3f s; without the tables %.3f s)", name,
              s->runtime_s, want, without);
  cr_assert_eq(s->end_reason, SITS_END_BATTERY_CUTOFF);
  cr_assert_float_eq(s->runtime_s, want, 1e-3 * want, "runtime %g s vs %g s", s->runtime_s, want);
  cr_assert_gt(fabs(want - without), 5 * 1e-3 * without, "the tables matter here: %g vs %g", want,
               without);
  sits_result_free(r);
  return sc;
}

/* Capacitance tables: C1 five times smaller at SOC 0 than at SOC 1 (50 kF, a 1500-s pair), so
 * the pair charges faster as the cell empties (measured 1958.3 s against 1981.3 s). */
Test(battery_run, capacitance_tables_over_soc) {
  sits_scenario *sc =
      tables_run("ctab.cfg", "rc = ( { r_ohm = 0.03; c_f = 50000.0; c_scale = [0.2, 1.0]; } );",
                 "r_soc = [0.0, 1.0];",
                 (ref){8.0 / 0.9, 0.05, 0.03, 50000.0, 2.0, 1, 0, 0, 0, 0, 0, 0, 0, 0.2, 1.0},
                 (ref){8.0 / 0.9, 0.05, 0.03, 50000.0, 2.0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  cr_assert_float_eq(sits_battery_rc_c_f(sits_scenario_battery(sc), 0, 0.25, 25.0), 50000.0 * 0.4,
                     1e-9);
  sits_scenario_free(sc);
}

/* Resistances over SOC (two knots: linear, as the reference takes them): R0 three times and
 * R1 twice as high at SOC 0 as at SOC 1. The cutoff comes earlier than with the SOC-1 values
 * throughout, at the reference's time (1e-3). */
Test(battery_run, resistance_tables_over_soc) {
  sits_scenario *sc =
      tables_run("rtab.cfg", "rc = ( { r_ohm = 0.03; c_f = 1000.0; r_scale = [2.0, 1.0]; } );",
                 "r_soc = [0.0, 1.0]; r0_scale = [3.0, 1.0];",
                 (ref){8.0 / 0.9, 0.05, 0.03, 1000.0, 2.0, 1, 0, 0, 3.0, 1.0, 2.0, 1.0, 0, 0, 0},
                 (ref){8.0 / 0.9, 0.05, 0.03, 1000.0, 2.0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  const sits_battery *b = sits_scenario_battery(sc);
  cr_assert_float_eq(sits_battery_r0_ohm(b, 0.25, 25.0), 0.05 * 2.5, 1e-15);
  cr_assert_float_eq(sits_battery_rc_r_ohm(b, 0, 0.25, 25.0), 0.03 * 1.75, 1e-15);
  sits_scenario_free(sc);
}

Test(battery_run, brownout_at_its_exact_time) {
  /* no RC pair: b = OCV(SOC); 30 W / 0.9 at R0 0.1 Ohm browns out when OCV^2 = 0.4 P */
  char *text = scenario(30.0, 0.1, "", 1.0, "", "");
  sits_scenario *sc = tu_load("bo.cfg", text);
  free(text);
  sits_result *r = tu_run(sc);
  const sits_summary *s = sits_result_summary(r);
  ref rf = {30.0 / 0.9, 0.1, 0, 0, 2.0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  double want = ref_end_time(&rf, 1.0, true);
  cr_assert_eq(s->end_reason, SITS_END_BROWNOUT);
  cr_assert_float_eq(s->runtime_s, want, 1e-3 * want, "%g vs %g", s->runtime_s, want);
  /* at that point OCV = sqrt(4 R0 p) */
  double soc_star = (sqrt(4 * 0.1 * 30.0 / 0.9) - 3.0) / 1.2;
  cr_assert_float_eq(s->final_soc, soc_star, 1e-5);
  bool ev = false;
  for (size_t k = 0; k < sits_result_event_count(r); k++)
    ev = ev || strcmp(sits_result_event(r, k)->kind, "brownout") == 0;
  cr_assert(ev);
  sits_result_free(r);
  sits_scenario_free(sc);
  /* a 100-s run estimates the same end: at the brown-out, where the loaded terminal voltage
   * (OCV / 2 there: 1.83 V) is still above the 1.0-V cutoff (an estimate that continued past
   * the brown-out to the cutoff read 28 % long in review) */
  estimate_is(scenario(30.0, 0.1, "", 1.0, "", "duration_s = 100.0;\n"), want, -1);
}

Test(battery_run, warm_pack_lasts_longer_and_the_account_closes) {
  /* R0 falls with temperature (Ea 30 kJ/mol): the same pack at 45 C outlasts it at 5 C */
  const char *rc =
      "rc = ( { r_ohm = 0.03; c_f = 1000.0; } ); r_ea_j_per_mol = 30000.0; r_ref_c = 25.0;";
  char *cold = scenario(12.0, 0.08, rc, 3.3, "node = \"batt\";", "ambient_c = 5.0;\n");
  char *warm = scenario(12.0, 0.08, rc, 3.3, "node = \"batt\";", "ambient_c = 45.0;\n");
  sits_scenario *sc_c = tu_load("cold.cfg", cold), *sc_w = tu_load("warm.cfg", warm);
  free(cold), free(warm);
  sits_result *rc_ = tu_run(sc_c), *rw = tu_run(sc_w);
  const sits_summary *sc = sits_result_summary(rc_), *sw = sits_result_summary(rw);
  cr_assert_eq(sc->end_reason, SITS_END_BATTERY_CUTOFF);
  cr_assert_gt(sw->runtime_s, sc->runtime_s * 1.01, "warm %g s, cold %g s", sw->runtime_s,
               sc->runtime_s);
  /* its Joule heat warmed the pack above the ambient */
  cr_assert_gt(sits_result_peak_temp_c(rc_)[1], 5.0 + 0.05);
  /* the energy account includes the battery heat */
  cr_assert_lt(sc->energy_balance_rel, 1e-6);
  cr_assert_lt(sw->energy_balance_rel, 1e-6);
  sits_result_free(rc_), sits_result_free(rw);
  sits_scenario_free(sc_c), sits_scenario_free(sc_w);
}

Test(battery_run, estimate_and_watt_hour_override) {
  /* a short run: the runtime is an estimate from the energy left */
  char *text = scenario(4.0, 0.05, "", 3.0, "",
                        "duration_s = 600.0;\nbattery_capacity_wh = 14.4;\n"
                        "min_battery_life_s = 7200.0;\n");
  sits_scenario *sc = tu_load("est.cfg", text);
  free(text);
  /* 14.4 Wh over a 3.6 V mean OCV: 4 Ah */
  cr_assert_float_eq(sits_battery_capacity_ah(sits_scenario_battery(sc)), 4.0, 1e-12);
  sits_result *r = tu_run(sc);
  const sits_summary *s = sits_result_summary(r);
  cr_assert_eq(s->end_reason, SITS_END_DURATION);
  cr_assert(s->runtime_estimated);
  /* roughly 14.4 Wh at 4.44 W: about 3.2 h; the estimate uses the energy left */
  cr_assert_gt(s->runtime_s, 10000.0);
  cr_assert_lt(s->runtime_s, 14.4 * 3600 / (4.0 / 0.9) * 1.01);
  cr_assert(s->battery_life.set && s->battery_life.ok);
  sits_result_free(r);
  sits_scenario_free(sc);
}

Test(battery_run, ocv_table_over_temperature_follows_the_cell_temperature) {
  /* rows 2.9 + 1.2 SOC at 0 C and 3.1 + 1.2 SOC at 40 C: an isothermal pack at 20 C sees the
   * linear 3.0 -> 4.2 V curve of the reference, so the runtime is the reference's */
  const char *t2 = "ocv_t_c = [0.0, 40.0]; ocv_v = ( [2.9, 3.5, 4.1], [3.1, 3.7, 4.3] );";
  char *text = scenario(8.0, 0.05, "rc = ( { r_ohm = 0.03; c_f = 1000.0; } );", 3.2, "",
                        "ambient_c = 20.0;\n");
  /* swap the 1-D ocv_v for the 2-D rows */
  char *at = strstr(text, "ocv_v = [3.0, 3.6, 4.2];");
  cr_assert_not_null(at);
  char *two = malloc(strlen(text) + strlen(t2) + 1);
  snprintf(two, strlen(text) + strlen(t2) + 1, "%.*s%s%s", (int)(at - text), text, t2,
           at + strlen("ocv_v = [3.0, 3.6, 4.2];"));
  free(text);
  sits_scenario *sc = tu_load("cp2d.cfg", two);
  free(two);
  sits_result *r = tu_run(sc);
  ref rf = {8.0 / 0.9, 0.05, 0.03, 1000.0, 2.0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  double want = ref_end_time(&rf, 3.2, false);
  const sits_summary *s = sits_result_summary(r);
  cr_assert_eq(s->end_reason, SITS_END_BATTERY_CUTOFF);
  cr_assert_float_eq(s->runtime_s, want, 1e-3 * want, "runtime %g s vs %g s", s->runtime_s, want);
  sits_result_free(r);
  sits_scenario_free(sc);
}

/* A cell whose OCV stays above the cutoff down to SOC 0 (3.6 -> 3.7 V, cutoff 3.0 V) under a
 * constant 3.65 W: the run ends at SOC 0 (battery_empty), found as a root at its exact time.
 * With R0 -> 0 the terminal voltage is the OCV, so the charge lasts
 * t = 3600 Q * (integral of OCV over SOC) / P = 3600 * 1 Ah * 3.65 V / 3.65 W = 3600 s
 * (R0 = 1 micro-ohm shortens it by ~ I R0 / V = 3e-7 of that). */
Test(battery_run, ends_when_empty_before_the_cutoff) {
  const char *text =
      "platform = { static_w = 3.65; static_node = \"board\"; thermal = {\n"
      "  nodes = ( { name = \"board\"; c_j_per_k = 20.0; } );\n"
      "  links = ( { a = \"board\"; b = \"ambient\"; r_k_per_w = 2.0; } ); };\n"
      "  battery = { series = 1; parallel = 1; capacity_ah = 1.0; ocv_soc = [0.0, 0.5, 1.0];\n"
      "              ocv_v = [3.6, 3.65, 3.7]; r0_ohm = 1e-6; cutoff_v = 3.0; }; };\n"
      "workload = { phases = ( { duration_s = 20000.0; } ); };\n"
      "sample_period_s = 10.0;\n";
  sits_scenario *sc = tu_load("empty.cfg", text);
  sits_result *r = tu_run(sc);
  const sits_summary *s = sits_result_summary(r);
  cr_assert_eq(s->end_reason, SITS_END_BATTERY_EMPTY, "%s", sits_end_reason_name(s->end_reason));
  cr_assert_str_eq(sits_end_reason_name(s->end_reason), "battery_empty");
  cr_assert_float_eq(s->simulated_s, 3600.0, 0.5, "%.6f", s->simulated_s);
  cr_assert(fabs(s->final_soc) < 1e-6, "final SOC %g", s->final_soc);
  cr_assert(!s->runtime_estimated);
  cr_assert_float_eq(s->runtime_s, s->simulated_s, 1e-9);
  cr_assert_float_eq(s->energy_drawn_wh, 3.65, 1e-3, "%g Wh", s->energy_drawn_wh);
  bool event = false;
  for (size_t k = 0; k < sits_result_event_count(r); k++)
    event = event || strcmp(sits_result_event(r, k)->kind, "battery_empty") == 0;
  cr_assert(event);
  sits_result_free(r);
  sits_scenario_free(sc);
}

/* The shipped Orin NX pack (its nmc OCV table bottoms out at 3.27 V per cell, above the 3.0 V
 * cutoff) shrunk to 5 Wh: the run stops at SOC 0 instead of drawing past empty, and the
 * battery-life constraint is judged on that real life. */
Test(battery_run, shipped_pack_stops_at_empty) {
  char path[512];
  snprintf(path, sizeof path, "%s/scenarios/orin_nx_video_enc.cfg", SITS_CONFIGS);
  const char *sets[] = {"platform.battery.capacity_wh=5", "duration_s=20000", "sample_period_s=10",
                        "min_battery_life_s=3600"};
  sits_err err = {0};
  sits_scenario *sc = NULL;
  cr_assert_eq(sits_scenario_load(path, sets, 4, &sc, &err), SITS_OK, "%s", err.msg);
  sits_result *r = tu_run(sc);
  const sits_summary *s = sits_result_summary(r);
  cr_assert_eq(s->end_reason, SITS_END_BATTERY_EMPTY, "%s", sits_end_reason_name(s->end_reason));
  cr_assert(s->final_soc > -1e-9 && s->final_soc < 1e-6, "final SOC %g", s->final_soc);
  cr_assert(s->energy_drawn_wh <= 5.0 + 1e-6 && s->energy_drawn_wh > 4.0, "%g Wh",
            s->energy_drawn_wh);
  cr_assert(s->simulated_s < 20000 && s->runtime_s == s->simulated_s);
  cr_assert(s->battery_life.set && !s->battery_life.ok, "life %g s", s->runtime_s);
  cr_assert(!s->ok);
  sits_result_free(r);
  sits_scenario_free(sc);
}

/* A pack empty at the start ends the run at t = 0, and the series still hold the state it
 * ended in: one sample at 0 s (the ambient, SOC 0), not an empty table beside a summary. */
Test(battery_run, empty_at_the_start_keeps_its_one_sample) {
  const char *sets[] = {"platform.battery.initial_soc=0", "ambient_c=25"};
  sits_scenario *sc = tu_shipped("scenarios/orin_nx_video_enc.cfg", sets, 2);
  sits_result *r = tu_run(sc);
  const sits_summary *s = sits_result_summary(r);
  cr_assert_eq(s->end_reason, SITS_END_BATTERY_EMPTY, "%s", sits_end_reason_name(s->end_reason));
  cr_assert_eq(s->simulated_s, 0.0);
  cr_assert_eq(sits_result_sample_count(r), 1);
  cr_assert_eq(sits_result_time_s(r)[0], 0.0);
  cr_assert_float_eq(sits_result_temp_c(r, 0, 0), 25.0, 1e-12);
  cr_assert_float_eq(sits_result_battery_soc(r, 0), 0.0, 1e-12);
  cr_assert_float_eq(sits_result_total_power_w(r, 0), s->avg_power_w, 1e-9);
  sits_result_free(r);
  sits_scenario_free(sc);
}

/* Every shipped pack either reaches its cutoff at SOC 0 or the loader says why not: the
 * NMC packs (OCV 3.268 V at SOC 0 against a 3.0 V cutoff) carry a note naming both values;
 * the A123 4S2P pack (2.295 V at SOC 0, cutoff 2.5 V) reaches its cutoff and has none. */
Test(battery_run, ocv_above_cutoff_at_soc0_is_noted) {
  const char *packs[] = {
      "nmc_3s1p_56wh", "nmc_18650_3s1p", "lipo_1s_wearable",     "nissan_leaf_cell",
      "a123_lfp_4s2p", "a123_lfp_cell",  "panasonic_ncr18650pf", "panasonic_ncr18650pf_temps"};
  /* the NCR18650PF (both): its IR-corrected C/20 branch ends 13 mV above the 2.5 V it was
   * run to */
  const bool noted[] = {true, true, true, true, false, true, true, true};
  for (size_t k = 0; k < 8; k++) {
    char text[1024], name[64];
    snprintf(text, sizeof text,
             "platform = { thermal = { nodes = ( { name = \"die\"; c_j_per_k = 2.0; } );\n"
             "  links = ( { a = \"die\"; b = \"ambient\"; r_k_per_w = 1.0; } ); };\n"
             "  battery = \"%s\"; };\n"
             "workload = { phases = ( { duration_s = 10.0; power_w = { die = 1.0; }; } ); };\n",
             packs[k]);
    snprintf(name, sizeof name, "pack_%zu.cfg", k);
    sits_scenario *sc = tu_load(name, text);
    const sits_battery *b = sits_scenario_battery(sc);
    double ocv0 = sits_battery_ocv_v(b, 0.0), cutoff = sits_battery_config(b)->cutoff_v;
    cr_assert_eq(ocv0 > cutoff, noted[k], "%s: OCV(0) %g, cutoff %g", packs[k], ocv0, cutoff);
    cr_assert_eq(sits_scenario_note_count(sc), noted[k] ? 1u : 0u, "%s", packs[k]);
    if (noted[k]) {
      const char *n = sits_scenario_note(sc, 0);
      char want[128];
      snprintf(want, sizeof want, "(%.3f V per cell) is above cutoff_v (%.3f V)", ocv0, cutoff);
      cr_assert(strstr(n, packs[k]) && strstr(n, want), "%s", n);
    }
    sits_scenario_free(sc);
  }
}

/* Entropic heat in a run: the 2-D OCV cell above (dOCV/dT = 0.2 V / 40 K = 5 mV/K between its
 * rows) on node "batt", no RC pair, 8 W for 600 s. At every sample the node's power is the
 * Joule heat i^2 R0 plus -i (T + 273.15) dOCV/dT at the sample's own current and node
 * temperature (the node cools below the run without the term: discharge absorbs heat here),
 * and the energy account still closes. */
Test(battery_run, entropic_heat_at_every_sample) {
  const char *t2 = "ocv_t_c = [0.0, 40.0]; ocv_v = ( [2.9, 3.5, 4.1], [3.1, 3.7, 4.3] ); "
                   "node = \"batt\";";
  double last[2];
  for (int with = 0; with < 2; with++) {
    char *text = scenario(8.0, 0.05, "", 3.2, with ? "entropic_heat = true;" : "",
                          "ambient_c = 20.0;\nduration_s = 600.0;\n");
    char *at = strstr(text, "ocv_v = [3.0, 3.6, 4.2];");
    cr_assert_not_null(at);
    size_t size = strlen(text) + strlen(t2) + 1;
    char *two = malloc(size);
    snprintf(two, size, "%.*s%s%s", (int)(at - text), text, t2,
             at + strlen("ocv_v = [3.0, 3.6, 4.2];"));
    free(text);
    sits_scenario *sc = tu_load("entropic.cfg", two);
    free(two);
    sits_result *r = tu_run(sc);
    size_t ns = sits_result_sample_count(r);
    cr_assert_eq(ns, 61);
    for (size_t k = 1; k < ns; k++) {
      double i = sits_result_battery_current_a(r, k), t = sits_result_temp_c(r, k, 1);
      double want = i * i * 0.05 - (with ? i * (t + 273.15) * 0.005 : 0);
      cr_assert_float_eq(sits_result_node_power_w(r, k, 1), want, 1e-9 * fabs(want) + 1e-12,
                         "sample %zu: %.12g W vs %.12g W", k, sits_result_node_power_w(r, k, 1),
                         want);
    }
    cr_assert_lt(sits_result_summary(r)->energy_balance_rel, 1e-6);
    last[with] = sits_result_temp_c(r, ns - 1, 1);
    sits_result_free(r);
    sits_scenario_free(sc);
  }
  cr_log_info("battery node after 600 s: %.4f C with entropic heat, %.4f C without", last[1],
              last[0]);
  cr_assert_lt(last[1], last[0] - 0.5);
}

/* The shipped default pack feels the temperature (issue #37): the same board power (a
 * thermal-only platform, 20 W on the die, no leakage) empties nmc_3s1p_56wh sooner in the
 * cold, for reasons of the pack alone (its cells held at the ambient: battery.node "ambient"). Its
 * Arrhenius factor at -20 C, exp(Ea/R (1/T - 1/T_ref)) with Ea 21 kJ/mol, is 4.51: the run at -20 C
 * equals the run at 25 C with every resistance multiplied by it (the cells at the ambient), and the
 * run at 25 C equals the one without the factor. 1e-3 relative: the battery-empty/cutoff root of
 * two different runs. */
static double pack_runtime_s(double ambient_c, const char *const *sets, size_t n_sets) {
  char text[1024];
  snprintf(text, sizeof text,
           "platform = \"jetson_orin_nx_thermal\";\nbattery_capacity_wh = 56.0;\n"
           "ambient_c = %.17g;\nduration_s = 40000.0;\nsample_period_s = 10.0;\n"
           "workload = { phases = ( { duration_s = 40000.0; power_w = { die = 20.0; }; } ); };\n",
           ambient_c);
  char *path = tu_write("pack_cold.cfg", text);
  sits_scenario *sc = NULL;
  sits_err err = {0};
  /* the cells at the ambient (the pack file's own node would warm them by their Joule heat) */
  const char *all[8] = {"platform.battery.node=\"ambient\""};
  for (size_t k = 0; k < n_sets && k < 7; k++)
    all[k + 1] = sets[k];
  cr_assert_eq(sits_scenario_load(path, all, n_sets + 1, &sc, &err), SITS_OK, "%s", err.msg);
  free(path);
  sits_result *r = tu_run(sc);
  const sits_summary *s = sits_result_summary(r);
  cr_assert(s->has_battery);
  cr_assert_neq(s->end_reason, SITS_END_DURATION, "the pack outlasts the run");
  double t = s->simulated_s;
  sits_result_free(r);
  sits_scenario_free(sc);
  return t;
}

Test(battery_run, the_default_pack_feels_the_cold, .timeout = 120) {
  double f = exp(21000.0 / 8.314462618 * (1 / 253.15 - 1 / 298.15));
  cr_assert_float_eq(f, 4.51, 0.01, "%g", f);
  const char *off[] = {"platform.battery.r_ea_j_per_mol=0.0"};
  double warm = pack_runtime_s(25.0, NULL, 0), cold = pack_runtime_s(-20.0, NULL, 0);
  double none = pack_runtime_s(25.0, off, 1);
  char r0[96], rc[128];
  snprintf(r0, sizeof r0, "platform.battery.r0_ohm=%.17g", 0.01127 * f);
  snprintf(rc, sizeof rc, "platform.battery.rc=({r_ohm=%.17g;c_f=4067.0;})", 0.01519 * f);
  const char *scaled[] = {off[0], r0, rc};
  double cold_by_hand = pack_runtime_s(25.0, scaled, 3);
  cr_log_info("pack runtime at 20 W: 25 C %.1f s, -20 C %.1f s (by hand %.1f s)", warm, cold,
              cold_by_hand);
  cr_assert_float_eq(warm, none, 1e-3 * none, "%.1f vs %.1f s", warm, none);
  cr_assert_float_eq(cold, cold_by_hand, 1e-3 * cold_by_hand, "%.1f vs %.1f s", cold, cold_by_hand);
  cr_assert_lt(cold, 0.99 * warm, "%.1f s in the cold vs %.1f s", cold, warm);
}

/* The shipped A123 cell's capacity over temperature (its C/30 tests: capacity_scale 0.98858 at
 * -15 C, 1 at 25 C, 1.00306 at 45 C): at a C/10-class load (0.6 W) to empty, the run with the
 * rows lasts the factor times the run with them set to 1, at each temperature (SOC falls at
 * I / (3600 Q(T)) with the same current at each SOC; 2e-4 relative: the RC pair's transient,
 * a few hundred seconds of a ten-hour run, is not scaled). The cold run is shorter for the
 * pack's own reasons: capacity, OCV and resistance. */
/* The A123 cell (its own capacity rows, or with @p flat all set to 1) on a one-node board at
 * @p ambient_c under 0.6 W for @p duration_s: its summary's end reason, the simulated time
 * and the runtime (estimated when the run ends on its duration). */
static sits_end_reason a123_run(double ambient_c, double duration_s, bool flat, double *end_s,
                                double *runtime_s) {
  char text[1024];
  snprintf(text, sizeof text,
           "platform = { name = \"p\"; estimated = [];\n"
           "  thermal = { nodes = ({ name = \"die\"; c_j_per_k = 1.0; junction = true; });\n"
           "              links = ({ a = \"die\"; b = \"ambient\"; r_k_per_w = 2.0; }); };\n"
           "  battery = \"a123_lfp_cell_temps\"; };\n"
           "ambient_c = %.17g; duration_s = %.17g; sample_period_s = 10.0;\n"
           "workload = { phases = ({ duration_s = %.17g; power_w = { die = 0.6; }; }); };\n",
           ambient_c, duration_s, duration_s);
  char *path = tu_write("a123_capacity.cfg", text);
  const char *sets[] = {"platform.battery.capacity_scale=[1.0,1.0,1.0,1.0,1.0,1.0,1.0]"};
  sits_scenario *sc = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_scenario_load(path, sets, flat ? 1 : 0, &sc, &err), SITS_OK, "%s", err.msg);
  free(path);
  sits_result *r = tu_run(sc);
  const sits_summary *s = sits_result_summary(r);
  sits_end_reason why = s->end_reason;
  *end_s = s->simulated_s, *runtime_s = s->runtime_s;
  sits_result_free(r);
  sits_scenario_free(sc);
  return why;
}

/* To empty (50,000 s is longer than the pack lasts): the simulated time. */
static double a123_runtime_s(double ambient_c, bool flat) {
  double end_s, runtime_s;
  cr_assert_eq(a123_run(ambient_c, 50000.0, flat, &end_s, &runtime_s), SITS_END_BATTERY_EMPTY);
  return end_s;
}

Test(battery_run, a123_capacity_over_temperature) {
  const double temp[] = {-15.0, 25.0, 45.0}, factor[] = {0.98858, 1.0, 1.00306};
  double runtime[3];
  for (int k = 0; k < 3; k++) {
    runtime[k] = a123_runtime_s(temp[k], false);
    double flat = a123_runtime_s(temp[k], true);
    cr_log_info("A123 cell at %g C, 0.6 W: %.1f s with its capacity rows, %.1f s without", temp[k],
                runtime[k], flat);
    cr_assert_float_eq(runtime[k] / flat, factor[k], 2e-4, "at %g C: %.6f", temp[k],
                       runtime[k] / flat);
  }
  cr_assert_lt(runtime[0], 0.975 * runtime[1], "-15 C %.1f s vs 25 C %.1f s", runtime[0],
               runtime[1]);
}

/* A run that ends on its duration estimates the runtime from the energy left at the capacity
 * the cells have at their temperature: at -15 C, 10,000 s of the same 0.6 W, the estimate with
 * the rows over the one without is the -15 C factor, 0.98858, within 1e-3 (measured 39583.9 vs
 * 40043.7 s; with the nominal capacity the ratio was ~0.996). */
Test(battery_run, a123_estimated_runtime_uses_the_cold_capacity) {
  double est[2], end_s;
  for (int flat = 0; flat < 2; flat++)
    cr_assert_eq(a123_run(-15.0, 10000.0, flat, &end_s, &est[flat]), SITS_END_DURATION);
  cr_log_info("estimated runtime at -15 C: %.1f s with the rows, %.1f s without", est[0], est[1]);
  cr_assert_float_eq(est[0] / est[1], 0.98858, 1e-3, "%.6f", est[0] / est[1]);
}

/* The shipped pack's own node (nmc_3s1p_56wh: 250 J/K, 7 K/W to the ambient, not coupled to
 * the board): its Joule heat warms it as one RC node, 250 dT/dt = heat - (T - T_amb) / 7. Over
 * the run, by the trapezoid rule on the 10-s samples (the heat changes over ~1000 s: the
 * rule's error is ~1e-4 of the heat's integral), the heat in equals the node's stored heat
 * plus what went to the ambient within 1e-3. In the cold the self-heating lowers the pack's
 * resistance: the run outlasts the one with the cells held at the ambient. */
Test(battery_run, the_default_pack_has_its_own_node, .timeout = 120) {
  char *path = tu_write("pack_node.cfg",
                        "platform = \"jetson_orin_nx_thermal\";\nbattery_capacity_wh = 56.0;\n"
                        "ambient_c = -20.0;\nduration_s = 40000.0;\nsample_period_s = 10.0;\n"
                        "workload = { phases = ( { duration_s = 40000.0; power_w = { die = 20.0; "
                        "}; } ); };\n");
  sits_scenario *sc = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_scenario_load(path, NULL, 0, &sc, &err), SITS_OK, "%s", err.msg);
  int pack = sits_thermal_find(sits_scenario_thermal(sc), "battery");
  cr_assert_geq(pack, 0, "no node 'battery'");
  cr_assert_float_eq(sits_thermal_capacity_j_per_k(sits_scenario_thermal(sc), pack), 250.0, 0);
  sits_result *r = tu_run(sc);
  size_t ns = sits_result_sample_count(r), p = (size_t)pack;
  const double *t = sits_result_time_s(r);
  cr_assert_gt(ns, 400);
  double in = 0, out = 0;
  for (size_t k = 1; k < ns; k++) {
    double dt = t[k] - t[k - 1];
    in += 0.5 * dt * (sits_result_node_power_w(r, k, p) + sits_result_node_power_w(r, k - 1, p));
    out += 0.5 * dt * (sits_result_temp_c(r, k, p) + sits_result_temp_c(r, k - 1, p) + 40.0) / 7.0;
  }
  double stored = 250.0 * (sits_result_temp_c(r, ns - 1, p) - sits_result_temp_c(r, 0, p));
  cr_log_info("pack node: %.1f J of Joule heat = %.1f J stored + %.1f J to the ambient; %.3f K "
              "above it at the end",
              in, stored, out, sits_result_temp_c(r, ns - 1, p) + 20.0);
  cr_assert_gt(in, 1000.0);
  cr_assert_float_eq(in, stored + out, 1e-3 * in, "%.2f J vs %.2f J", in, stored + out);
  double own = sits_result_summary(r)->simulated_s;
  sits_result_free(r);
  sits_scenario_free(sc);
  double at_ambient = pack_runtime_s(-20.0, NULL, 0);
  cr_log_info("-20 C: %.1f s with its own node, %.1f s with the cells at the ambient", own,
              at_ambient);
  cr_assert_gt(own, at_ambient);
  free(path);
}

/* platform.pack_coupling links the pack's own node to a board node: on the example (600 s)
 * the pack, 15 K/W from the module, runs warmer than the uncoupled pack and the die cooler
 * (the pack takes some of the board's heat), and the energy account closes with the pack's
 * heat besides the board's (battery_heat_j > 0, balance 1e-9). A name that is not a node is
 * refused with its line. */
Test(battery_run, pack_coupling_to_the_board) {
  char ex[512];
  snprintf(ex, sizeof ex, "%s/examples/video_enc.cfg", SITS_CONFIGS);
  const char *sets[] = {"duration_s=600",
                        "platform.pack_coupling={node=\"module\";r_k_per_w=15.0;}"};
  double pack_c[2], tj[2];
  for (int k = 0; k < 2; k++) {
    sits_scenario *sc = NULL;
    sits_err err = {0};
    cr_assert_eq(sits_scenario_load(ex, sets, k ? 2 : 1, &sc, &err), SITS_OK, "%s", err.msg);
    int pack = sits_thermal_find(sits_scenario_thermal(sc), "battery");
    cr_assert_geq(pack, 0);
    sits_result *r = tu_run(sc);
    const sits_summary *s = sits_result_summary(r);
    pack_c[k] = sits_result_peak_temp_c(r)[pack];
    tj[k] = s->max_junction_temp_c;
    cr_assert_gt(s->battery_heat_j, 0);
    cr_assert_lt(s->energy_balance_rel, 1e-9, "%g", s->energy_balance_rel);
    sits_result_free(r);
    sits_scenario_free(sc);
  }
  cr_log_info("pack %.3f C uncoupled, %.3f C coupled; Tj %.3f / %.3f C", pack_c[0], pack_c[1],
              tj[0], tj[1]);
  cr_assert_gt(pack_c[1], pack_c[0] + 1.0);
  cr_assert_lt(tj[1], tj[0]);
  const char *bad[] = {"platform.pack_coupling={node=\"modul\";r_k_per_w=15.0;}"};
  sits_scenario *sc = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_scenario_load(ex, bad, 1, &sc, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "pack_coupling names unknown node 'modul' (did you mean 'module'?)"),
            "%s", err.msg);
}

/* battery_capacity_wh resizes the pack, and its own node with it: 10 Wh of the 56-Wh default
 * pack (f = 10/56) has C = 250 f = 44.64 J/K and R = 7 f^(-2/3) = 22.07 K/W to the ambient,
 * and the assumption says so. A board node given as battery.node wins over the pack's own. */
Test(battery_run, the_pack_node_follows_the_pack_size) {
  char ex[512];
  snprintf(ex, sizeof ex, "%s/examples/video_enc.cfg", SITS_CONFIGS);
  const char *sets[] = {"battery_capacity_wh=10.0"};
  sits_scenario *sc = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_scenario_load(ex, sets, 1, &sc, &err), SITS_OK, "%s", err.msg);
  const sits_thermal *th = sits_scenario_thermal(sc);
  int pack = sits_thermal_find(th, "battery");
  cr_assert_geq(pack, 0);
  double f = 10.0 / 56.0;
  cr_assert_float_eq(sits_thermal_capacity_j_per_k(th, pack), 250.0 * f, 1e-9);
  int a, b;
  double r = NAN;
  for (size_t k = 0; sits_thermal_link_ends(th, k, &a, &b) == SITS_OK; k++)
    if (a == pack && b == SITS_AMBIENT)
      r = sits_thermal_link_r_k_per_w(th, k);
  cr_assert_float_eq(r, 7.0 * pow(f, -2.0 / 3.0), 1e-9, "%.6g K/W", r);
  bool said = false;
  for (size_t k = 0; k < sits_scenario_assumption_count(sc); k++)
    said = said || strstr(sits_scenario_assumption(sc, k),
                          "for its energy, scaled by battery_capacity_wh: C x 0.1786, R x 3.153");
  cr_assert(said);
  sits_scenario_free(sc);
  const char *board[] = {"platform.battery.node=\"module\""};
  cr_assert_eq(sits_scenario_load(ex, board, 1, &sc, &err), SITS_OK, "%s", err.msg);
  cr_assert_lt(sits_thermal_find(sits_scenario_thermal(sc), "battery"), 0, "no node of its own");
  sits_scenario_free(sc);
}

/* A pack_coupling that no pack node uses is said (an assumption line), and still checked (a
 * misspelt node is refused even where a1 23 cell without a node of its own is chosen); a
 * platform node already named "battery" is refused with the pack file's line and a way out,
 * not "duplicate node". */
Test(battery_run, pack_coupling_unused_or_colliding) {
  char ex[512];
  snprintf(ex, sizeof ex, "%s/examples/video_enc.cfg", SITS_CONFIGS);
  const char *amb[] = {"platform.battery.node=\"ambient\"",
                       "platform.pack_coupling={node=\"module\";r_k_per_w=15.0;}"};
  sits_scenario *sc = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_scenario_load(ex, amb, 2, &sc, &err), SITS_OK, "%s", err.msg);
  bool said = false;
  for (size_t k = 0; k < sits_scenario_assumption_count(sc); k++)
    said = said || strstr(sits_scenario_assumption(sc, k),
                          "platform.pack_coupling not used: it couples the pack's own thermal "
                          "node, and this pack has none");
  cr_assert(said);
  sits_scenario_free(sc);
  const char *cell[] = {"platform.battery=a123_lfp_cell",
                        "platform.pack_coupling={node=\"modle\";r_k_per_w=15.0;}"};
  cr_assert_eq(sits_scenario_load(ex, cell, 2, &sc, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "unknown node 'modle'"), "%s", err.msg);
  char msg[SITS_ERRMSG_MAX];
  cr_assert_eq(
      tu_load_fail("pack_node_clash.cfg",
                   "platform = { name = \"t\"; thermal = {\n"
                   "  nodes = ( { name = \"die\"; c_j_per_k = 5.0; },\n"
                   "            { name = \"battery\"; c_j_per_k = 100.0; } );\n"
                   "  links = ( { a = \"die\"; b = \"battery\"; r_k_per_w = 1.0; },\n"
                   "            { a = \"battery\"; b = \"ambient\"; r_k_per_w = 2.0; } ); };\n"
                   "  battery = \"nmc_3s1p_56wh\"; };\n"
                   "duration_s = 10.0;\n",
                   msg, sizeof msg),
      SITS_EINPUT);
  cr_assert(strstr(msg, "nmc_3s1p_56wh.cfg:") &&
                strstr(msg, "already has a node of that name: rename that node, or place the pack "
                            "on a node with platform.battery.node"),
            "%s", msg);
}

/* steady puts the pack's heat in its node, as a run does: one cell (OCV 4.2 V at SOC 1, R0
 * 0.05 ohm, one pair of 0.03 ohm settled) under the board's 2 W: I = (4.2 - sqrt(4.2^2 - 4 x
 * 0.08 x 2)) / (2 x 0.08) = 0.480590 A, heat I^2 x 0.08 = 0.0184777 W, the pack's node 10 K/W
 * above the 25 C ambient: 25.184777 C (it read 25.000). The board's total stays 2 W. */
Test(battery_run, steady_puts_the_pack_heat_in_its_node) {
  sits_scenario *sc = tu_load(
      "bh.cfg",
      "platform = { thermal = { nodes = ( { name = \"soc\"; c_j_per_k = 20.0; junction = true; } "
      ");\n"
      "  links = ( { a = \"soc\"; b = \"ambient\"; r_k_per_w = 2.0; } ); };\n"
      "  static_w = 2.0; static_node = \"soc\";\n"
      "  battery = { series = 1; parallel = 1; capacity_ah = 2.5; ocv_soc = [0.0, 0.5, 1.0];\n"
      "    ocv_v = [3.0, 3.6, 4.2]; r0_ohm = 0.05; rc = ( { r_ohm = 0.03; c_f = 1000.0; } );\n"
      "    initial_soc = 1.0; cutoff_v = 3.0; efficiency = 1.0;\n"
      "    thermal = { c_j_per_k = 100.0; r_ambient_k_per_w = 10.0; }; }; };\n"
      "workload = { phases = ( { duration_s = 600.0; } ); };\nambient_c = 25.0;\n");
  sits_steady_state st;
  sits_err err = {0};
  cr_assert_eq(sits_steady(sc, &st, &err), SITS_OK, "%s", err.msg);
  double i = (4.2 - sqrt(4.2 * 4.2 - 4 * 0.08 * 2.0)) / (2 * 0.08), heat = i * i * 0.08;
  cr_assert_float_eq(st.battery_heat_w, heat, 1e-9, "%.9g vs %.9g W", st.battery_heat_w, heat);
  int node = sits_thermal_find(sits_scenario_thermal(sc), "battery");
  cr_assert_geq(node, 0);
  cr_assert_float_eq(st.temp_c[node], 25.0 + 10.0 * heat, 1e-9, "%.12g vs %.12g C", st.temp_c[node],
                     25.0 + 10.0 * heat);
  cr_assert_float_eq(st.total_power_w, 2.0, 1e-12);
  cr_assert_float_eq(st.temp_c[0], 29.0, 1e-9);
  sits_steady_release(&st);
  sits_scenario_free(sc);
}

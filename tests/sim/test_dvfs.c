/*
 * test_dvfs.c - runs and steady states with DVFS domains against closed forms and an
 * independent integration.
 *
 * One node (C = 2 J/K, R = 3 K/W to a 25 C ambient) carries one domain unless said
 * otherwise, so P(T) and T(t) have closed forms or a 1-D reference.
 */
#include "test_util.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <gsl/gsl_sf_lambert.h>

#define TOL_K 2e-4 /* as in test_run_closed_form.c */

/* One-node platform with a domain; @p extra goes into the domain group, @p gov is the
 * governor group text. */
static char *scenario(const char *domain_extra, const char *gov, const char *rest) {
  char *text = malloc(8192);
  snprintf(text, 8192,
           "platform = { thermal = {\n"
           "  nodes = ( { name = \"die\"; c_j_per_k = 2.0; junction = true; } );\n"
           "  links = ( { a = \"die\"; b = \"ambient\"; r_k_per_w = 3.0; } ); };\n"
           "  domains = ( { name = \"gpu\"; node = \"die\"; ceff_f = 2e-9; idle_w = 0.3;\n"
           "    max_rate = 100.0; item = \"frame\"; %s\n"
           "    opp = ( { freq_mhz = 200.0; volt_v = 0.6; }, { freq_mhz = 400.0; volt_v = 0.7; },\n"
           "            { freq_mhz = 600.0; volt_v = 0.8; }, { freq_mhz = 800.0; volt_v = 0.9; },\n"
           "            { freq_mhz = 1000.0; volt_v = 1.0; } ); } );\n"
           "  %s };\n"
           "ambient_c = 25.0;\n%s",
           domain_extra, gov, rest);
  return text;
}

static sits_scenario *load(const char *name, char *text) {
  sits_scenario *sc = tu_load(name, text);
  free(text);
  return sc;
}

Test(dvfs, fixed_opp_dynamic_power_closed_form) {
  /* OPP 3 (800 MHz, 0.9 V) at demand 0.4: cap = 0.8, u = 0.5;
   * P = 0.3 + 2e-9 * 0.81 * 800e6 * 0.5 = 0.3 + 0.648 = 0.948 W */
  sits_scenario *sc = load(
      "fixed.cfg",
      scenario("", "governor = { kind = \"fixed\"; fixed_opp = { gpu = 3; }; };",
               "workload = { phases = ( { duration_s = 30.0; demand = { gpu = 0.4; }; } ); };\n"
               "sample_period_s = 0.5;\n"));
  sits_result *r = tu_run(sc);
  double p = 0.948, worst = 0;
  for (size_t k = 0; k < sits_result_sample_count(r); k++) {
    double t = sits_result_time_s(r)[k];
    worst = fmax(worst, fabs(sits_result_temp_c(r, k, 0) - (25 + p * 3 * (1 - exp(-t / 6)))));
    cr_assert_float_eq(sits_result_domain_power_w(r, k, 0), p, 1e-12);
    cr_assert_float_eq(sits_result_freq_mhz(r, k, 0), 800.0, 0);
  }
  cr_assert_lt(worst, TOL_K, "worst %g K", worst);
  const sits_summary *s = sits_result_summary(r);
  cr_assert_float_eq(s->items_done, 0.4 * 100 * 30, 1e-6); /* demand is met */
  cr_assert_float_eq(s->deficit_fraction, 0.0, 1e-12);
  cr_assert_float_eq(s->energy_per_item_mj, 1000 * p * 30 / 1200, 1e-6);
  cr_assert_float_eq(s->latency_ms, 1000.0 / (0.8 * 100), 1e-9); /* 12.5 ms at 800 MHz */
  sits_result_free(r);
  sits_scenario_free(sc);
}

Test(dvfs, deficit_when_demand_exceeds_capacity) {
  sits_scenario *sc = load(
      "deficit.cfg",
      scenario("", "governor = { kind = \"fixed\"; fixed_opp = { gpu = 1; }; };",
               "workload = { phases = ( { duration_s = 10.0; demand = { gpu = 0.8; }; } ); };\n"));
  sits_result *r = tu_run(sc);
  const sits_summary *s = sits_result_summary(r);
  /* 400 MHz: cap 0.4 of demand 0.8 -> half served */
  cr_assert_float_eq(s->items_done, 0.4 * 100 * 10, 1e-6);
  cr_assert_float_eq(s->deficit_fraction, 0.5, 1e-12);
  sits_result_free(r);
  sits_scenario_free(sc);
}

/* Single node with leakage L(T) = l0 e^{k (T - 25)} on top of P0:
 *   T = T_amb + R (P0 + L(T))  =>  u = T - T_amb - R P0 = a e^{k u},
 *   a = R l0 e^{k (T_amb + R P0 - 25)},  u = -W0(-k a) / k. */
static double lambert_steady(double p0, double l0, double k) {
  double a = 3.0 * l0 * exp(k * (25.0 + 3.0 * p0 - 25.0));
  return 25.0 + 3.0 * p0 - gsl_sf_lambert_W0(-k * a) / k;
}

Test(dvfs, leakage_steady_state_lambert_w) {
  /* top OPP, full load: P0 = 0.3 + 2e-9 * 1 * 1e9 = 2.3 W; leakage 0.4 W at 25 C, 0.03/K */
  sits_scenario *sc = load(
      "leak.cfg",
      scenario("leak_ref_w = 0.4; leak_ref_v = 1.0; leak_ref_c = 25.0; leak_per_k = 0.03;",
               "governor = { kind = \"performance\"; };",
               "workload = { phases = ( { duration_s = 10.0; demand = { gpu = 1.0; }; } ); };\n"));
  sits_steady_state st;
  sits_err err = {0};
  cr_assert_eq(sits_steady(sc, &st, &err), SITS_OK, "%s", err.msg);
  double want = lambert_steady(2.3, 0.4, 0.03);
  cr_assert_not(st.runaway);
  cr_assert_float_eq(st.temp_c[0], want, 1e-7, "%.9f vs %.9f", st.temp_c[0], want);
  /* the power at that temperature closes the balance: (T - 25)/R = P */
  cr_assert_float_eq(st.total_power_w, (want - 25.0) / 3.0, 1e-7);
  sits_steady_release(&st);
  sits_scenario_free(sc);
}

/* Two nodes all but merged (a 1e-9 K/W link between the die and a spreader that carries the
 * 3 K/W to the ambient) are the one-node case: the Lambert-W steady state within 1 mK, not a
 * runaway. G holds 1e9 W/K there, so a residual test in watts alone cannot pass (the rounding
 * of G T is ~1e-5 W); the Newton correction then decides (before: "runaway", every figure
 * null). */
Test(dvfs, a_near_zero_link_is_no_runaway) {
  char *text =
      scenario("leak_ref_w = 0.4; leak_ref_v = 1.0; leak_ref_c = 25.0; leak_per_k = 0.03;",
               "governor = { kind = \"performance\"; };",
               "workload = { phases = ( { duration_s = 10.0; demand = { gpu = 1.0; }; } ); };\n");
  char *path = tu_write("merged.cfg", text);
  free(text);
  const char *sets[] = {"solver.linear_solver=\"auto\"",
                        "platform.thermal.nodes=({name=\"die\";c_j_per_k=2.0;junction=true;},"
                        "{name=\"spreader\";c_j_per_k=1.0;})",
                        "platform.thermal.links=({a=\"die\";b=\"spreader\";r_k_per_w=1e-9;},"
                        "{a=\"spreader\";b=\"ambient\";r_k_per_w=3.0;})"};
  for (int klu = 0; klu < 2; klu++) { /* the dense hybrid Newton; KINSOL with KLU */
    if (klu)
      sets[0] = "solver.linear_solver=\"klu\"";
    sits_scenario *sc = NULL;
    sits_err err = {0};
    cr_assert_eq(sits_scenario_load(path, sets, 3, &sc, &err), SITS_OK, "%s", err.msg);
    sits_steady_state st;
    cr_assert_eq(sits_steady(sc, &st, &err), SITS_OK, "%s", err.msg);
    double want = lambert_steady(2.3, 0.4, 0.03);
    cr_assert_not(st.runaway);
    cr_assert_float_eq(st.temp_c[0], want, 1e-3, "%.9f vs %.9f", st.temp_c[0], want);
    cr_assert_float_eq(st.temp_c[1], want, 1e-3, "%.9f vs %.9f", st.temp_c[1], want);
    cr_assert_float_eq(st.total_power_w, (want - 25.0) / 3.0, 1e-3 / 3.0);
    sits_steady_release(&st);
    sits_scenario_free(sc);
  }
  free(path);
}

Test(dvfs, leakage_runaway_is_reported) {
  /* k a > 1/e: the leakage slope outgrows what 3 K/W can shed (no fixed point) */
  sits_scenario *sc = load(
      "runaway.cfg",
      scenario("leak_ref_w = 2.0; leak_ref_v = 1.0; leak_ref_c = 25.0; leak_per_k = 0.08;",
               "governor = { kind = \"performance\"; };",
               "workload = { phases = ( { duration_s = 10.0; demand = { gpu = 1.0; }; } ); };\n"));
  double k = 0.08, a = 3.0 * 2.0 * exp(k * 3.0 * 2.3);
  cr_assert_gt(k * a, exp(-1.0), "the case must have no fixed point");
  sits_steady_state st;
  sits_err err = {0};
  cr_assert_eq(sits_steady(sc, &st, &err), SITS_OK, "%s", err.msg);
  cr_assert(st.runaway);
  cr_assert(isnan(st.max_junction_temp_c));
  sits_steady_release(&st);
  sits_scenario_free(sc);
}

/* The leakage transient against GSL's own integrator at tight tolerance. */
typedef struct ref_params {
  double p0, l0, k;
} ref_params;

static int ref_rhs(double t, const double y[], double dydt[], void *params) {
  (void)t;
  const ref_params *p = params;
  dydt[0] = (p->p0 + p->l0 * exp(p->k * (y[0] - 25.0)) - (y[0] - 25.0) / 3.0) / 2.0;
  return GSL_SUCCESS;
}

Test(dvfs, leakage_transient_against_gsl_ode) {
  sits_scenario *sc = load(
      "leak_tr.cfg",
      scenario("leak_ref_w = 0.4; leak_ref_v = 1.0; leak_ref_c = 25.0; leak_per_k = 0.03;",
               "governor = { kind = \"performance\"; };",
               "workload = { phases = ( { duration_s = 40.0; demand = { gpu = 1.0; }; } ); };\n"
               "sample_period_s = 0.5;\n"));
  sits_result *r = tu_run(sc);
  ref_params prm = {2.3, 0.4, 0.03};
  gsl_odeiv2_system sys = {ref_rhs, NULL, 1, &prm};
  gsl_odeiv2_driver *drv =
      gsl_odeiv2_driver_alloc_y_new(&sys, gsl_odeiv2_step_rk8pd, 1e-6, 1e-12, 1e-12);
  double t = 0, y[1] = {25.0}, worst = 0;
  for (size_t k = 1; k < sits_result_sample_count(r); k++) {
    cr_assert_eq(gsl_odeiv2_driver_apply(drv, &t, sits_result_time_s(r)[k], y), GSL_SUCCESS);
    worst = fmax(worst, fabs(sits_result_temp_c(r, k, 0) - y[0]));
  }
  gsl_odeiv2_driver_free(drv);
  cr_log_info("worst error against GSL rk8pd %g K", worst);
  cr_assert_lt(worst, TOL_K, "worst %g K", worst);
  /* energy account with temperature-dependent power */
  cr_assert_lt(sits_result_summary(r)->energy_balance_rel, 1e-6);
  sits_result_free(r);
  sits_scenario_free(sc);
}

Test(dvfs, ondemand_picks_expected_opps_for_stepped_demand) {
  sits_scenario *sc =
      load("od.cfg",
           scenario("", "governor = { kind = \"ondemand\"; period_s = 0.1; up_threshold = 0.8; };",
                    "workload = { phases = (\n"
                    "  { duration_s = 1.0; demand = { gpu = 0.1; }; },\n"
                    "  { duration_s = 1.0; demand = { gpu = 0.3; }; },\n"
                    "  { duration_s = 1.0; demand = { gpu = 0.5; }; },\n"
                    "  { duration_s = 1.0; demand = { gpu = 0.9; }; } ); };\n"
                    "sample_period_s = 0.5;\n"));
  sits_result *r = tu_run(sc);
  /* samples at 0.5, 1.5, 2.5, 3.5 s: 200, 400, 800, 1000 MHz (cap = f/1000) */
  const double want[] = {200, 400, 800, 1000};
  for (int i = 0; i < 4; i++)
    cr_assert_float_eq(sits_result_freq_mhz(r, (size_t)(2 * i + 1), 0), want[i], 0, "phase %d", i);
  sits_result_free(r);
  sits_scenario_free(sc);
}

Test(dvfs, step_wise_throttles_within_a_period_and_releases) {
  /* top OPP full load: 2.3 W -> T_inf = 31.9 C, tau 6 s. Trip 30 C, hysteresis 1 C. */
  sits_scenario *sc = load(
      "sw.cfg",
      scenario("",
               "governor = { kind = \"performance\"; period_s = 0.1;\n"
               "  thermal = { kind = \"step_wise\"; sensor = \"die\"; trip_c = 30.0; hysteresis_c "
               "= 1.0; }; };",
               "workload = { phases = ( { duration_s = 30.0; demand = { gpu = 1.0; }; },\n"
               "                        { duration_s = 30.0; demand = { gpu = 0.05; }; } ); };\n"
               "sample_period_s = 0.1;\n"));
  sits_result *r = tu_run(sc);
  const sits_summary *s = sits_result_summary(r);
  /* crossing of 30 C at full power: 25 + 6.9 (1 - e^{-t/6}) = 30 */
  double t_cross = -6.0 * log(1.0 - 5.0 / 6.9);
  cr_assert(!isnan(s->time_to_throttle_s));
  cr_assert_geq(s->time_to_throttle_s, t_cross - 1e-9);
  cr_assert_leq(s->time_to_throttle_s, t_cross + 0.1 + 1e-9, "%g vs crossing %g",
                s->time_to_throttle_s, t_cross);
  /* it holds the die near the trip: never far above it */
  cr_assert_lt(s->max_junction_temp_c, 30.2);
  /* after the load drops the die cools below 29 C and every step is released */
  bool ended = false;
  for (size_t k = 0; k < sits_result_event_count(r); k++)
    ended = ended || (strcmp(sits_result_event(r, k)->kind, "throttle_end") == 0 &&
                      sits_result_event(r, k)->time_s > 30.0);
  cr_assert(ended, "no throttle_end after the load dropped");
  size_t last = sits_result_sample_count(r) - 1;
  cr_assert_float_eq(sits_result_freq_mhz(r, last, 0), 1000.0, 0);
  cr_assert_gt(s->throttled_fraction, 0.0);
  sits_result_free(r);
  sits_scenario_free(sc);
}

/* steady with a step_wise governor settles where the governor does, not at the base
 * governor's OPP (it reported the unthrottled 31.9 C, which the run never reaches). Full load:
 * P = 2e-9 V^2 f + 0.3 W, T = 25 + 3 P: 1000 MHz 2.3 W, 31.9 C; 800 MHz (0.9 V) 1.596 W,
 * 29.788 C; 600 MHz (0.8 V) 1.068 W, 28.204 C. Trip 30 C, hysteresis 1 C: one step down to
 * 800 MHz, where it holds (29.788 is within [29, 30]), as a 120-s run ends; trip 29.5 C: two
 * steps, to 600 MHz, where it cycles (28.204 < 28.5: it steps back to 800 MHz, 29.788 C). */
Test(dvfs, steady_holds_below_the_thermal_governors_trip) {
  const double trip[] = {30.0, 29.5}, want_c[] = {25 + 3 * 1.596, 25 + 3 * 1.068};
  const double want_mhz[] = {800, 600}, warmer_c[] = {31.9, 25 + 3 * 1.596};
  for (int k = 0; k < 2; k++) {
    char gov[400];
    snprintf(gov, sizeof gov,
             "governor = { kind = \"performance\"; period_s = 0.1;\n"
             "  thermal = { kind = \"step_wise\"; sensor = \"die\"; trip_c = %g; hysteresis_c "
             "= 1.0; }; };",
             trip[k]);
    sits_scenario *sc = load(
        "sws.cfg",
        scenario("", gov,
                 "workload = { phases = ( { duration_s = 120.0; demand = { gpu = 1.0; }; } ); };\n"
                 "sample_period_s = 0.5;\n"));
    sits_steady_state st;
    sits_err err = {0};
    cr_assert_eq(sits_steady(sc, &st, &err), SITS_OK, "%s", err.msg);
    const sits_domain *d = sits_scenario_domains(sc, NULL);
    cr_assert_float_eq(d[0].opp[st.opp[0]].freq_mhz, want_mhz[k], 0);
    cr_assert_float_eq(st.temp_c[0], want_c[k], 1e-9, "%g vs %g C", st.temp_c[0], want_c[k]);
    cr_assert_eq(st.thermal_state, (size_t)(k + 1));
    cr_assert_eq(st.thermal_cycles, k == 1);
    cr_assert_float_eq(st.unthrottled_sensor_c, 31.9, 1e-9);
    cr_assert_float_eq(st.warmer_sensor_c, warmer_c[k], 1e-9);
    sits_steady_release(&st);
    if (k == 0) { /* the run holds there: 800 MHz at its end, the die within 0.05 K */
      sits_result *r = tu_run(sc);
      size_t last = sits_result_sample_count(r) - 1;
      cr_assert_float_eq(sits_result_freq_mhz(r, last, 0), 800.0, 0);
      cr_assert_float_eq(sits_result_temp_c(r, last, 0), want_c[0], 0.05);
      sits_result_free(r);
    }
    sits_scenario_free(sc);
  }
}

Test(dvfs, power_cap_holds_the_window_average) {
  /* uncapped 2.3 W; budget 1.5 W over 1 s windows */
  sits_scenario *sc = load(
      "cap.cfg",
      scenario("",
               "governor = { kind = \"performance\"; period_s = 0.05; power_cap = { window_s = "
               "1.0; }; };",
               "workload = { phases = ( { duration_s = 20.0; demand = { gpu = 1.0; }; } ); };\n"
               "tdp_budget_w = 1.5; tdp_window_s = 1.0; sample_period_s = 0.05;\n"));
  sits_result *r = tu_run(sc);
  const sits_summary *s = sits_result_summary(r);
  /* allowed overshoot: one period at the largest power step (2.3 W top, 0.144+0.3 floor) */
  double overshoot = 0.05 * 2.3 / 1.0;
  cr_assert_leq(s->tdp_w, 1.5 + overshoot, "window average %g W", s->tdp_w);
  cr_assert_gt(s->tdp_w, 1.2, "the cap should use most of the budget: %g W", s->tdp_w);
  bool active = false;
  for (size_t k = 0; k < sits_result_event_count(r); k++)
    active = active || strcmp(sits_result_event(r, k)->kind, "cap_active") == 0;
  cr_assert(active);
  sits_result_free(r);
  sits_scenario_free(sc);
}

Test(dvfs, power_allocator_settles_near_control_temperature) {
  /* control 30 C, switch-on 27 C, sustainable 1.5 W: top OPP would reach 31.9 C */
  sits_scenario *sc = load(
      "ipa.cfg",
      scenario("",
               "governor = { kind = \"performance\"; period_s = 0.1;\n"
               "  thermal = { kind = \"power_allocator\"; sensor = \"die\"; switch_on_c = 27.0;\n"
               "              control_c = 30.0; sustainable_power_w = 1.5; }; };",
               "workload = { phases = ( { duration_s = 120.0; demand = { gpu = 1.0; }; } ); };\n"
               "sample_period_s = 0.5;\n"));
  sits_result *r = tu_run(sc);
  /* over the last minute the die stays within 1 C of the control temperature */
  for (size_t k = 0; k < sits_result_sample_count(r); k++)
    if (sits_result_time_s(r)[k] >= 60.0)
      cr_assert_float_eq(sits_result_temp_c(r, k, 0), 30.0, 1.0, "t = %g s: %g C",
                         sits_result_time_s(r)[k], sits_result_temp_c(r, k, 0));
  sits_result_free(r);
  sits_scenario_free(sc);
}

/* Thermal runaway in a run (leakage doubling every 3.5 K, no governor to stop it) is said as
 * such, with the node, time and temperature, instead of the integrator's raw message; the exit
 * stays a solver failure. */
Test(dvfs, runaway_in_a_run_is_named) {
  char path[512];
  snprintf(path, sizeof path, "%s/scenarios/mlu370_resnet50.cfg", SITS_CONFIGS);
  const char *sets[] = {"platform.domains.[0].leak_per_k=0.2",
                        "platform.governor.thermal.trip_c=9000"};
  sits_err err = {0};
  sits_scenario *sc = NULL;
  cr_assert_eq(sits_scenario_load(path, sets, 2, &sc, &err), SITS_OK, "%s", err.msg);
  sits_result *r = NULL;
  cr_assert_eq(sits_run(sc, NULL, &r, &err), SITS_ESOLVER);
  cr_assert(strstr(err.msg, "thermal runaway at t = "), "%s", err.msg);
  cr_assert(strstr(err.msg, "node 'die' at "), "%s", err.msg);
  cr_assert_null(strstr(err.msg, "h = "), "%s", err.msg);
  cr_assert_null(r);
  sits_scenario_free(sc);
}

/* A leakage blow-up with a critical trip: the exponential path's steps fall under its floor
 * (1e-12 of t) at ~70 C, short of the 105-C trip; CVODE goes on from there and the trip ends
 * the run, as CVODE alone ends it (27.18195 s). "auto" failed with a runaway error (exit 4)
 * before. Leakage doubling every 1.4 K (0.5/K) on 10 J/K, 2 K/W. */
Test(dvfs, a_blow_up_reaches_its_critical_trip_on_every_path) {
  const char *text =
      "platform = { thermal = { nodes = ( { name = \"die\"; c_j_per_k = 10.0; junction = true; "
      "critical_c = 105.0; } );\n"
      "  links = ( { a = \"die\"; b = \"ambient\"; r_k_per_w = 2.0; } ); };\n"
      "  domains = ( { name = \"gpu\"; node = \"die\"; leak_ref_w = 1.0; leak_per_k = 0.5;\n"
      "    opp = ( { freq_mhz = 1000.0; volt_v = 1.0; } ); } ); };\n"
      "workload = { phases = ( { duration_s = 400.0; demand = { gpu = 0.0; }; } ); };\n";
  double end[2];
  for (int k = 0; k < 2; k++) {
    const char *set[] = {k ? "solver.method=\"cvode\"" : "solver.method=\"auto\""};
    char *path = tu_write("blowup.cfg", text);
    sits_scenario *sc = NULL;
    sits_err err = {0};
    cr_assert_eq(sits_scenario_load(path, set, 1, &sc, &err), SITS_OK, "%s", err.msg);
    sits_result *r = NULL;
    cr_assert_eq(sits_run(sc, NULL, &r, &err), SITS_OK, "%s", err.msg);
    const sits_summary *s = sits_result_summary(r);
    cr_assert_eq(s->end_reason, SITS_END_CRITICAL_TEMP);
    cr_assert_geq(s->max_junction_temp_c, 105.0);
    end[k] = s->simulated_s;
    sits_result_free(r);
    sits_scenario_free(sc);
    free(path);
  }
  cr_assert_float_eq(end[0], end[1], 1e-4, "auto %.9g s, cvode %.9g s", end[0], end[1]);
  cr_assert_float_eq(end[1], 27.18195, 1e-4);
}

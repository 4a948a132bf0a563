/*
 * test_fans.c - fans as cooling devices (platform.fans, sim/fans.c) against closed forms: a
 * one-node die (C 10 J/K, 10 W, ambient 25 C) whose only link to the ambient is the fan's,
 * R = 4 K/W at duty 0 and 1 K/W at duty 1 (conductance 0.25 + 0.75 duty W/K between).
 * Between fan ticks the die follows T(t) = T_inf + (T0 - T_inf) exp(-t / (R C)) exactly.
 */
#include "test_util.h"
#include "sits_writers.h"

#include "sits_output.h"
#include "sits_replay.h"
#include "sits_thermal_cal.h"

#define DIE                                                                                        \
  "platform = { thermal = { nodes = ( { name = \"die\"; c_j_per_k = 10.0; junction = true; } );\n" \
  "  links = ( { a = \"die\"; b = \"ambient\"; r_k_per_w = 4.0; } ); };\n"

/* The die's power and temperature columns of a trace, for replay. */
#define REPLAY_DIE                                                                                 \
  "replay = { power = ( { column = \"power_w.die\"; node = \"die\"; } );\n"                       \
  "  sensors = ( { column = \"temp_c.die\"; node = \"die\"; } ); };\n"

/* The fan's table: duty 0 -> 4 K/W, 1 -> 1 K/W; linear in conductance for two points. */
static double g_of(double duty) {
  return 0.25 + 0.75 * duty;
}

/* The trips' cycle ticked every second (trip 50 C, off below 40 C, duty 1 when on), as the
 * closed form gives it: the times the duty changes and the die's temperature then. */
static size_t cycle(double end_s, double *times, double *temps, size_t max) {
  double t_c = 25.0, duty = 0;
  size_t n = 0;
  for (int k = 1; k <= (int)end_s && n < max; k++) {
    double g = g_of(duty), inf = 25.0 + 10.0 / g;
    t_c = inf + (t_c - inf) * exp(-1.0 * g / 10.0);
    double want = duty;
    if (duty == 0 && t_c > 50.0)
      want = 1;
    else if (duty == 1 && t_c < 40.0)
      want = 0;
    if (want != duty)
      times[n] = k, temps[n++] = t_c, duty = want;
  }
  return n;
}

static void trips_run(const char *method) {
  char text[2048];
  snprintf(text, sizeof text,
           DIE "  fans = ( { name = \"fan1\"; a = \"die\"; b = \"ambient\"; duty = [0.0, 1.0];\n"
               "    r_k_per_w = [4.0, 1.0]; sensor = \"die\";\n"
               "    trips = ( { temp_c = 50.0; hysteresis_c = 10.0; duty = 1.0; } ); } ); };\n"
               "workload = { phases = ( { duration_s = 200.0; power_w = { die = 10.0; }; } ); };\n"
               "ambient_c = 25.0; duration_s = 200.0; sample_period_s = 1.0;\n"
               "solver = { method = \"%s\"; };\n",
           method);
  sits_scenario *sc = tu_load("fan_trips.cfg", text);
  sits_result *r = tu_run(sc);
  double times[32], temps[32];
  size_t n = cycle(200.0, times, temps, 32);
  cr_assert_geq(n, 8, "the cycle repeats: %zu changes", n);
  cr_assert_eq(sits_result_event_count(r), n, "%s: %zu events, %zu changes", method,
               sits_result_event_count(r), n);
  for (size_t k = 0; k < n; k++) {
    const sits_event *e = sits_result_event(r, k);
    cr_assert_str_eq(e->kind, "fan_change");
    cr_assert_str_eq(e->subject, "fan1");
    cr_assert_str_eq(e->unit, "duty");
    cr_assert_float_eq(e->time_s, times[k], 1e-9, "%s: change %zu at %g s, closed form %g s",
                       method, k, e->time_s, times[k]);
    cr_assert_float_eq(e->value, k % 2 ? 0.0 : 1.0, 0);
    /* the sample at that tick: the closed form's temperature (integration error: rtol 1e-7
     * on ~50 C accumulated over the run) */
    size_t s = (size_t)times[k];
    cr_assert_float_eq(sits_result_time_s(r)[s], times[k], 1e-9);
    cr_assert_float_eq(sits_result_temp_c(r, s, 0), temps[k], 1e-4, "%s: %.6f vs %.6f C", method,
                       sits_result_temp_c(r, s, 0), temps[k]);
  }
  const sits_summary *sum = sits_result_summary(r);
  cr_assert_lt(sum->energy_balance_rel, 1e-9, "energy account %g", sum->energy_balance_rel);
  /* the duty in the samples: the CSV's last column, 1 from the first change to the second */
  char *csv = tu_write("fan_out.csv", "");
  sits_err err = {0};
  cr_assert_eq(sits_write_csv(sc, r, csv, &err), SITS_OK, "%s", err.msg);
  char *out = tu_slurp(csv);
  cr_assert(strstr(out, "time_s,temp_c.die,node_power_w.die,power_w.total,fan_duty.fan1\n"),
            "%.200s", out);
  size_t on = (size_t)times[0], off = (size_t)times[1];
  for (size_t s = 0; s < sits_result_sample_count(r); s++) {
    double want = s >= on && s < off ? 1.0 : s < on ? 0.0 : NAN;
    const double *duty = sits_result_series(r, "fan_duty", &(size_t){0});
    if (!isnan(want))
      cr_assert_eq(duty[s], want, "%s: sample %zu duty %g", method, s, duty[s]);
  }
  free(out);
  free(csv);
  sits_result_free(r);
  sits_scenario_free(sc);
}

Test(fans, trips_cycle_as_the_closed_form_cvode) {
  trips_run("cvode");
}

Test(fans, trips_cycle_as_the_closed_form_exponential) {
  trips_run("exponential");
}

/* Replays @p trace through @p sc: the fan's duties from lo to hi, and the die within 1e-4 K of
 * @p want (120 samples, the closed form) at every sample; the replay is freed. */
static void replay_matches(sits_scenario *sc, const char *trace, double lo, double hi,
                           const double *want, const char *what) {
  sits_replay *rep = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_replay_run(sc, trace, NULL, &rep, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(rep->n_sensors, 1);
  cr_assert(rep->fan_traced[0]);
  cr_assert_float_eq(rep->fan_duty_min[0], lo, 1e-12);
  cr_assert_float_eq(rep->fan_duty_max[0], hi, 1e-12);
  double worst = 0;
  for (int k = 0; k < 120; k++)
    worst = fmax(worst, fabs(rep->sim_c[k] - want[k]));
  cr_log_info("replay with %s: worst %.2e K", what, worst);
  cr_assert_lt(worst, 1e-4, "worst %g K", worst);
  sits_replay_free(rep);
}

/* A trace drives the fan: duty 0.2 for 60 s, then 0.8 (jtop's CURR_PWM as util_frac.fan1);
 * the replayed die against the closed form at every sample. */
Test(fans, a_trace_column_drives_the_duty) {
  char text[1 << 14];
  size_t n = (size_t)snprintf(text, sizeof text, "time_s,power_w.die,util_frac.fan1,temp_c.die\n");
  double t_c = 25.0, want[200];
  for (int k = 0; k < 120; k++) {
    double duty = k < 60 ? 0.2 : 0.8;
    want[k] = t_c;
    n += (size_t)snprintf(text + n, sizeof text - n, "%d,10,%.1f,%.9f\n", k, duty * 100 / 100,
                          t_c);
    double g = g_of(duty), inf = 25.0 + 10.0 / g;
    t_c = inf + (t_c - inf) * exp(-g / 10.0);
  }
  char *trace = tu_write("fan_trace.csv", text);
  sits_scenario *sc = tu_load(
      "fan_replay.cfg",
      DIE "  fans = ( { name = \"fan1\"; a = \"die\"; b = \"ambient\"; duty = [0.0, 1.0];\n"
          "    r_k_per_w = [4.0, 1.0]; } ); };\nambient_c = 25.0;\n"
          REPLAY_DIE);
  replay_matches(sc, trace, 0.2, 0.8, want, "a traced fan");
  sits_scenario_free(sc);
  free(trace);
}

/* The die of DIE with the fan at duties 0.3 and 0.9 and power steps of 10, 4, 12, 6 W for 60 s
 * each, sampled every 0.5 s: the exact response (the file's path, malloc'ed). */
static char *cal_trace(const char *name) {
  char text[1 << 15];
  size_t n = (size_t)snprintf(text, sizeof text, "time_s,power_w.die,util_frac.fan1,temp_c.die\n");
  double t_c = 25.0;
  const double p[] = {10, 4, 12, 6}, duty[] = {0.3, 0.9, 0.9, 0.3};
  for (int k = 0; k < 480; k++) {
    int seg = k / 120;
    n += (size_t)snprintf(text + n, sizeof text - n, "%.1f,%.1f,%.2f,%.9f\n", 0.5 * k, p[seg],
                          duty[seg], t_c);
    double g = g_of(duty[seg]), inf = 25.0 + p[seg] / g;
    t_c = inf + (t_c - inf) * exp(-0.5 * g / 10.0);
  }
  return tu_write(name, text);
}

/* Calibration fits the fan's resistances at the duties the trace visits: the same die with
 * the fan at duties 0.3 and 0.9 (true R 1/(0.25 + 0.75 d) = 2.105 and 1.081 K/W with the
 * table's end points 4 and 1 K/W), started from 3 and 2 K/W; the table is given at those two
 * duties, so both points are fitted and the link's own r_k_per_w is not a parameter. */
Test(fans, calibration_fits_the_fan_table) {
  char *trace = cal_trace("fan_cal.csv");
  char *cfg = tu_write(
      "fan_cal.cfg",
      DIE "  fans = ( { name = \"fan1\"; a = \"die\"; b = \"ambient\"; duty = [0.3, 0.9];\n"
          "    r_k_per_w = [3.0, 2.0]; } ); };\nambient_c = 25.0;\n"
          REPLAY_DIE);
  sits_thermal_cal_opts o = {.scenario_path = cfg, .trace_path = trace, .train_fraction = 0.8};
  sits_thermal_cal c;
  sits_err err = {0};
  cr_assert_eq(sits_calibrate_thermal(&o, &c, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(c.n_params, 3, "%zu parameters", c.n_params);
  cr_assert_str_eq(c.params[0].path, "platform.thermal.nodes.[0].c_j_per_k");
  cr_assert_str_eq(c.params[1].path, "platform.fans.[0].r_k_per_w.[0]");
  cr_assert_str_eq(c.params[2].path, "platform.fans.[0].r_k_per_w.[1]");
  cr_log_info("fan R %.6f, %.6f K/W; C %.6f J/K", c.params[1].value, c.params[2].value,
              c.params[0].value);
  cr_assert_float_eq(c.params[1].value, 1.0 / g_of(0.3), 1e-3 / g_of(0.3));
  cr_assert_float_eq(c.params[2].value, 1.0 / g_of(0.9), 1e-3 / g_of(0.9));
  cr_assert_float_eq(c.params[0].value, 10.0, 1e-2);
  /* the written scenario carries the fitted table: as many values as duties, in place */
  const char *fans = strstr(c.config_text, "fans");
  const char *table = fans ? strstr(fans, "r_k_per_w = [") : NULL;
  cr_assert_not_null(table, "%s", c.config_text);
  double r0 = NAN, r1 = NAN;
  int used = 0;
  cr_assert_eq(sscanf(table, "r_k_per_w = [ %lf , %lf ]%n", &r0, &r1, &used), 2, "%s", table);
  cr_assert_gt(used, 0, "more than two values: %.80s", table);
  cr_assert_float_eq(r0, c.params[1].value, 1e-9);
  cr_assert_float_eq(r1, c.params[2].value, 1e-9);
  sits_thermal_cal_release(&c);
  free(trace), free(cfg);
}

/* Order selection keeps the fan: a die + sink network with the fan on sink - ambient, fitted
 * as chains of 1 and 2 nodes on the one-node trace above; each chain's link to the ambient
 * carries the fan (its table's points are parameters), and one node wins. */
Test(fans, orders_move_the_fan_to_the_chain) {
  char *trace = cal_trace("fan_orders.csv");
  char *cfg = tu_write(
      "fan_orders.cfg",
      "platform = { thermal = { nodes = ( { name = \"die\"; c_j_per_k = 10.0; junction = true; },\n"
      "  { name = \"sink\"; c_j_per_k = 50.0; } );\n"
      "  links = ( { a = \"die\"; b = \"sink\"; r_k_per_w = 0.5; },\n"
      "            { a = \"sink\"; b = \"ambient\"; r_k_per_w = 2.0; } ); };\n"
      "  fans = ( { name = \"fan1\"; a = \"sink\"; b = \"ambient\"; duty = [0.3, 0.9];\n"
      "    r_k_per_w = [3.0, 2.0]; } ); };\nambient_c = 25.0;\n"
      REPLAY_DIE);
  sits_thermal_cal_opts o = {.scenario_path = cfg, .trace_path = trace, .train_fraction = 0.8};
  sits_thermal_cal c;
  sits_err err = {0};
  const int orders[] = {1, 2};
  cr_assert_eq(sits_calibrate_thermal_orders(&o, orders, 2, &c, &err), SITS_OK, "%s", err.msg);
  cr_log_info("orders: 1 node %.2e K, 2 nodes %.2e K; chose %d", c.orders[0].holdout_rmse_c,
              c.orders[1].holdout_rmse_c, c.order);
  cr_assert_eq(c.order, 1);
  bool fan = false;
  for (size_t k = 0; k < c.n_params; k++)
    fan |= strcmp(c.params[k].path, "platform.fans.[0].r_k_per_w.[1]") == 0;
  cr_assert(fan, "the chosen chain fits the fan");
  cr_assert_lt(c.orders[0].holdout_rmse_c, 1e-3);
  sits_thermal_cal_release(&c);
  free(trace), free(cfg);
}

/* The fan's table in a loaded scenario: a point changes the link; the link itself is the
 * fan's. */
Test(fans, set_number_on_the_table) {
  sits_scenario *sc = tu_load(
      "fan_set.cfg",
      DIE "  fans = ( { name = \"fan1\"; a = \"ambient\"; b = \"die\"; duty = [0.0, 0.5, 1.0];\n"
          "    r_k_per_w = [4, 2, 1]; initial_duty = 0.5; } ); };\n"
          "workload = { phases = ( { duration_s = 10.0; power_w = { die = 1.0; }; } ); };\n");
  const sits_thermal *th = sits_scenario_thermal(sc);
  cr_assert_float_eq(sits_thermal_link_r_k_per_w(th, 0), 2.0, 1e-12); /* the fan's at 0.5 */
  cr_assert_eq(sits_scenario_note_count(sc), 1);
  cr_assert(strstr(sits_scenario_note(sc, 0), "replaced by its table's 2 K/W"), "%s",
            sits_scenario_note(sc, 0));
  sits_err err = {0};
  cr_assert_eq(sits_scenario_set_number(sc, "platform.fans.[0].r_k_per_w.[1]", 2.5, &err), SITS_OK,
               "%s", err.msg);
  cr_assert_float_eq(sits_thermal_link_r_k_per_w(th, 0), 2.5, 1e-12);
  cr_assert(strstr(sits_scenario_config_text(sc), "r_k_per_w = [ 4.0, 2.5, 1.0 ]"), "%s",
            sits_scenario_config_text(sc));
  cr_assert_neq(sits_scenario_set_number(sc, "platform.thermal.links.[0].r_k_per_w", 3, &err),
                SITS_OK);
  cr_assert(strstr(err.msg, "fan 'fan1' sets this link's resistance"), "%s", err.msg);
  cr_assert_neq(sits_scenario_set_number(sc, "platform.fans.[0].r_k_per_w.[3]", 3, &err), SITS_OK);
  cr_assert_neq(sits_scenario_set_number(sc, "platform.fans.[0].r_k_per_w.[1]", -1, &err),
                SITS_OK);
  sits_scenario_free(sc);
}

/* Malformed fans: file:line and what is wrong. */
Test(fans, bad_tables_are_refused) {
  const struct {
    const char *fan, *says;
  } cases[] = {
      {"{ name = \"f\"; a = \"die\"; b = \"heatsink\"; duty = [0.0]; r_k_per_w = [1.0]; }",
       "no node 'heatsink'"},
      {"{ name = \"f\"; a = \"die\"; b = \"die\"; duty = [0.0]; r_k_per_w = [1.0]; }",
       "no link joins 'die' and 'die'"},
      {"{ name = \"f\"; a = \"die\"; b = \"ambient\"; duty = [0.5, 0.2]; r_k_per_w = [1.0, 2.0]; }",
       "duty must rise strictly within 0-1"},
      {"{ name = \"f\"; a = \"die\"; b = \"ambient\"; duty = [0.0, 1.5]; r_k_per_w = [1.0, 2.0]; }",
       "duty must rise strictly within 0-1"},
      {"{ name = \"f\"; a = \"die\"; b = \"ambient\"; duty = [0.0, 1.0]; r_k_per_w = [1.0]; }",
       "one r_k_per_w per duty"},
      {"{ name = \"f\"; a = \"die\"; b = \"ambient\"; duty = [0.0]; r_k_per_w = [0.0]; }",
       "r_k_per_w must be > 0"},
      {"{ name = \"f\"; a = \"die\"; b = \"ambient\"; duty = [0.0]; r_k_per_w = [1.0];\n"
       "  trips = ( { temp_c = 50.0; duty = 1.0; } ); }",
       "trips need a 'sensor' node"},
      {"{ name = \"f\"; a = \"die\"; b = \"ambient\"; duty = [0.0]; r_k_per_w = [1.0]; sensor = "
       "\"x\";\n  trips = ( { temp_c = 50.0; duty = 1.0; } ); }",
       "'x'"},
      {"{ name = \"f\"; a = \"die\"; b = \"ambient\"; duty = [0.0]; r_k_per_w = [1.0]; sensor = "
       "\"die\";\n  trips = ( { temp_c = 50.0; duty = 1.0; }, { temp_c = 40.0; duty = 1.0; } ); }",
       "trips must rise in temp_c"},
      {"{ name = \"f\"; a = \"die\"; b = \"ambient\"; duty = [0.0]; r_k_per_w = [1.0]; },\n"
       "{ name = \"g\"; a = \"die\"; b = \"ambient\"; duty = [0.0]; r_k_per_w = [1.0]; }",
       "its link has a fan already"},
      {"{ name = \"f\"; a = \"die\"; b = \"ambient\"; duty = \"fast\"; r_k_per_w = [1.0]; }",
       "'duty' must be an array of numbers"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char text[1024], msg[SITS_ERRMSG_MAX];
    snprintf(text, sizeof text, DIE "  fans = ( %s ); };\n", cases[k].fan);
    cr_assert_eq(tu_load_fail("fan_bad.cfg", text, msg, sizeof msg), SITS_EINPUT, "case %zu", k);
    cr_assert(strstr(msg, cases[k].says), "case %zu: %s", k, msg);
    cr_assert(strstr(msg, "fan_bad.cfg:"), "case %zu without file:line: %s", k, msg);
  }
}

/* steady: the fan at the duty its trips settle to. 10 W through 4 K/W (duty 0) is 65 C; with
 * the fan at duty 1 (1 K/W) 35 C. A 30-C trip holds it on (35 > 30: consistent); a 50-C trip
 * with 10 K hysteresis toggles it (65 > 50 turns it on, 35 < 40 off): a cycle, reported at the
 * higher duty; no trips: the initial duty's 65 C. */
static void steady_case(const char *trips, double want_duty, bool want_cycle, double want_c) {
  char text[2048];
  snprintf(text, sizeof text,
           DIE "  fans = ( { name = \"fan1\"; a = \"die\"; b = \"ambient\"; duty = [0.0, 1.0];\n"
               "    r_k_per_w = [4.0, 1.0]; sensor = \"die\"; %s } ); };\n"
               "workload = { phases = ( { duration_s = 10.0; power_w = { die = 10.0; }; } ); };\n"
               "ambient_c = 25.0;\n",
           trips);
  sits_scenario *sc = tu_load("fan_steady.cfg", text);
  sits_steady_state st;
  sits_err err = {0};
  cr_assert_eq(sits_steady(sc, &st, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(st.n_fans, 1);
  cr_assert_float_eq(st.fan_duty[0], want_duty, 0, "%s: duty %g", trips, st.fan_duty[0]);
  cr_assert_eq(st.fan_cycles[0], want_cycle, "%s", trips);
  cr_assert_float_eq(st.temp_c[0], want_c, 1e-9, "%s: %g C", trips, st.temp_c[0]);
  sits_steady_release(&st);
  sits_scenario_free(sc);
}

Test(fans, steady_state_at_the_trips_duty) {
  steady_case("trips = ( { temp_c = 30.0; duty = 1.0; } );", 1.0, false, 35.0);
  steady_case("trips = ( { temp_c = 50.0; hysteresis_c = 10.0; duty = 1.0; } );", 1.0, true, 35.0);
  steady_case("", 0.0, false, 65.0);
  /* two trips: 40 C -> duty 0.5 (0.25 + 0.375 = 0.625 W/K: 41 C, the first holds), 45 C ->
   * duty 1 not reached */
  steady_case("trips = ( { temp_c = 40.0; duty = 0.5; }, { temp_c = 45.0; duty = 1.0; } );", 0.5,
              false, 41.0);
}

/* The same with a second node between the die and the fan's link (the steady solve builds a
 * copy of the network at each duty; with more than one node that copy failed silently and the
 * fan's duty rose through every trip on the fan-off temperatures, 2026-12-03): die -1 K/W-
 * sink -fan- ambient, 10 W. Fan off (4 K/W): 75 C at the die; at duty 0.5 (1.6 K/W) 51 C,
 * under the 60-C second trip; at duty 1 (1 K/W) 45 C. */
Test(fans, steady_state_of_a_two_node_network) {
  const char *trips[] = {"trips = ( { temp_c = 40.0; duty = 0.5; }, { temp_c = 60.0; duty = 1.0; } );",
                         "trips = ( { temp_c = 40.0; duty = 0.5; }, { temp_c = 50.0; duty = 1.0; } );",
                         ""};
  const double duty[] = {0.5, 1.0, 0.0}, die_c[] = {51.0, 45.0, 75.0};
  for (int k = 0; k < 3; k++) {
    char text[2048];
    snprintf(text, sizeof text,
             "platform = { thermal = { nodes = ( { name = \"die\"; c_j_per_k = 10.0; },\n"
             "  { name = \"sink\"; c_j_per_k = 50.0; } );\n"
             "  links = ( { a = \"die\"; b = \"sink\"; r_k_per_w = 1.0; },\n"
             "    { a = \"sink\"; b = \"ambient\"; r_k_per_w = 4.0; } ); };\n"
             "  fans = ( { name = \"fan1\"; a = \"sink\"; b = \"ambient\"; duty = [0.0, 0.5, 1.0];\n"
             "    r_k_per_w = [4.0, 1.6, 1.0]; sensor = \"die\"; %s } ); };\n"
             "workload = { phases = ( { duration_s = 10.0; power_w = { die = 10.0; }; } ); };\n"
             "ambient_c = 25.0;\n",
             trips[k]);
    sits_scenario *sc = tu_load("fan_steady2.cfg", text);
    sits_steady_state st;
    sits_err err = {0};
    cr_assert_eq(sits_steady(sc, &st, &err), SITS_OK, "%s", err.msg);
    cr_assert_float_eq(st.fan_duty[0], duty[k], 0, "%s: duty %g", trips[k], st.fan_duty[0]);
    cr_assert_float_eq(st.temp_c[0], die_c[k], 1e-9, "%s: %g C", trips[k], st.temp_c[0]);
    cr_assert_float_eq(st.temp_c[1], die_c[k] - 10.0, 1e-9, "%s: sink %g C", trips[k], st.temp_c[1]);
    sits_steady_release(&st);
    sits_scenario_free(sc);
  }
}

/* A cooling-device state column drives the fan through its levels (the kernel's pwm-fan:
 * cur_state k runs cooling-levels[k]): states 0, 2, 1 for 40 s each with levels 0 / 0.5 /
 * 1 give duties 0, 1, 0.5, against the closed form at every sample; a state the levels do
 * not have, or not a whole number, is an error at its sample; scale with levels is refused. */
Test(fans, a_cooling_state_column_drives_the_duty_by_levels) {
  char text[1 << 14];
  size_t n = (size_t)snprintf(text, sizeof text, "time_s,power_w.die,cooling_state.fan,temp_c.die\n");
  double t_c = 25.0, want[120];
  const int state[] = {0, 2, 1};
  const double duty_of[] = {0.0, 1.0, 0.5};
  for (int k = 0; k < 120; k++) {
    int s = state[k / 40];
    want[k] = t_c;
    n += (size_t)snprintf(text + n, sizeof text - n, "%d,10,%d,%.9f\n", k, s, t_c);
    double g = g_of(duty_of[k / 40]), inf = 25.0 + 10.0 / g;
    t_c = inf + (t_c - inf) * exp(-g / 10.0);
  }
  char *trace = tu_write("fan_state.csv", text);
  const char *fan = DIE "  fans = ( { name = \"fan1\"; a = \"die\"; b = \"ambient\"; duty = [0.0, 1.0];\n"
                        "    r_k_per_w = [4.0, 1.0]; } ); };\nambient_c = 25.0;\n"
                        "replay = { power = ( { column = \"power_w.die\"; node = \"die\"; } );\n"
                        "  sensors = ( { column = \"temp_c.die\"; node = \"die\"; } );\n"
                        "  fans = ( { column = \"cooling_state.fan\"; fan = \"fan1\"; %s } ); };\n";
  char cfg[2048];
  snprintf(cfg, sizeof cfg, fan, "levels = [0.0, 0.5, 1.0];");
  sits_scenario *sc = tu_load("fan_levels.cfg", cfg);
  replay_matches(sc, trace, 0.0, 1.0, want, "a cooling-state column");
  sits_scenario_free(sc);
  sits_replay *rep = NULL;
  sits_err err = {0};
  /* two levels for states up to 2: state 2 is refused at its first sample (t = 40 s) */
  snprintf(cfg, sizeof cfg, fan, "levels = [0.0, 0.5];");
  sc = tu_load("fan_levels2.cfg", cfg);
  cr_assert_eq(sits_replay_run(sc, trace, NULL, &rep, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "sample 41 (t = 40 s): fan fan1's cooling state 2 is not one of 0-1"),
            "%s", err.msg);
  sits_scenario_free(sc);
  snprintf(cfg, sizeof cfg, fan, "levels = [0.0, 0.5, 1.0]; scale = 0.5;");
  sc = tu_load("fan_levels3.cfg", cfg);
  cr_assert_eq(sits_replay_run(sc, trace, NULL, &rep, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "scale does not apply"), "%s", err.msg);
  cr_assert(strstr(err.msg, "fan_levels3.cfg:"), "%s", err.msg);
  sits_scenario_free(sc);
  snprintf(cfg, sizeof cfg, fan, "levels = [0.0, 1.5];");
  sc = tu_load("fan_levels4.cfg", cfg);
  cr_assert_eq(sits_replay_run(sc, trace, NULL, &rep, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "levels are duties"), "%s", err.msg);
  sits_scenario_free(sc);
  free(trace);
}

/* The steady state of shipped platform @p platform (a full path under configs/platforms) with
 * @p phases at @p ambient_c (asserts success; governor powersave where it has domains). */
static void board_steady(const char *platform, const char *phases, double ambient_c,
                         sits_steady_state *st) {
  char text[1024];
  snprintf(text, sizeof text,
           "platform = \"%s/platforms/%s.cfg\";\nambient_c = %.17g;\n"
           "workload = { phases = ( %s ); };\n",
           SITS_CONFIGS, platform, ambient_c, phases);
  char *path = tu_write("board_fan.cfg", text);
  sits_scenario *sc = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_scenario_load(path, NULL, 0, &sc, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(sits_steady(sc, st, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(st->n_fans, 1);
  sits_scenario_free(sc);
  free(path);
}

/* Jetson Orin NX (jetson_orin_nx_thermal.inc): L4T's default 'cool' fan profile, PWM 0 at
 * Tj 35 C to 255 at 70 C, in seven steps switched at 37.5 ... 67.5 C. Each steady point is
 * the network's closed form with the fan's resistance at the step the curve gives there:
 * die - 0.257 - module, module to the air by (1.315 + R_fan) in parallel with 35.2 K/W. The
 * log's idle point keeps the fitted 3.208 K/W (duty 3/7); 25 W at 35 C runs it at full speed
 * (2.183 K/W). 1e-6 K: the steady solver's tolerance. */
Test(fans, orin_nx_board_curve_in_force) {
  const struct { double p_w, amb_c, duty, r_fan; } pts[] = {
      {0.5, 25.0, 0.0, 6.221},     /* 28 C: below the first step, fan off */
      {6.29, 22.64, 0.4286, 3.208}, /* the Nano log's idle point, 49.5 C */
      {9.0, 25.0, 0.7143, 2.578},   /* ~59 C */
      {25.0, 35.0, 1.0, 2.183},     /* the 25 W at 35 C: full speed, ~121 C */
  };
  for (size_t k = 0; k < sizeof pts / sizeof pts[0]; k++) {
    char phases[160];
    snprintf(phases, sizeof phases, "{ duration_s = 60.0; power_w = { die = %.17g; }; }",
             pts[k].p_w);
    sits_steady_state st;
    board_steady("jetson_orin_nx_thermal", phases, pts[k].amb_c, &st);
    double up = 1.315 + pts[k].r_fan, path = up * 35.2 / (up + 35.2);
    double want = pts[k].amb_c + pts[k].p_w * (0.257 + path);
    cr_assert_float_eq(st.fan_duty[0], pts[k].duty, 1e-12, "%g W: duty %g", pts[k].p_w,
                       st.fan_duty[0]);
    cr_assert_float_eq(st.max_junction_temp_c, want, 1e-6, "%g W: %.6f C, closed form %.6f",
                       pts[k].p_w, st.max_junction_temp_c, want);
    sits_steady_release(&st);
  }
}

/* RK3588 (ROCK 5B): the upstream device tree's fan, off below the package's 55 C trip, level
 * 1 (120/255) above it, the top level (255) above 65 C. Closed form of the two-node network
 * with the static power on the heatsink: T_die = T_amb + P_total R_fan + P_die 1.2. */
Test(fans, rk3588_board_curve_in_force) {
  const struct { const char *demand; double duty, r_fan; } pts[] = {
      {"cpu_big = 0.0;", 0.0, 8.550},          /* idle: ~39 C, fan off */
      {"cpu_big = 0.6; gpu = 0.5;", 0.4706, 4.249}, /* past 55 C: level 1 */
      {"cpu_big = 1.0; gpu = 1.0; npu = 1.0;", 1.0, 3.000}, /* past 65 C: full speed */
  };
  for (size_t k = 0; k < sizeof pts / sizeof pts[0]; k++) {
    char phases[200];
    snprintf(phases, sizeof phases, "{ duration_s = 60.0; demand = { %s }; }", pts[k].demand);
    sits_steady_state st;
    board_steady("rk3588", phases, 25.0, &st);
    double p_die = st.total_power_w - 0.788;
    double want = 25.0 + st.total_power_w * pts[k].r_fan + p_die * 1.2;
    cr_log_info("rk3588 %s: %.3f W, %.3f C, duty %g", pts[k].demand, st.total_power_w,
                st.max_junction_temp_c, st.fan_duty[0]);
    cr_assert_float_eq(st.fan_duty[0], pts[k].duty, 1e-12, "%s: duty %g", pts[k].demand,
                       st.fan_duty[0]);
    cr_assert_float_eq(st.max_junction_temp_c, want, 1e-6, "%s: %.6f C, closed form %.6f",
                       pts[k].demand, st.max_junction_temp_c, want);
    sits_steady_release(&st);
  }
}

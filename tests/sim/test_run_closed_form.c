/*
 * test_run_closed_form.c - runs of one-node networks against closed-form solutions.
 *
 * One node, C dT/dt = P - (T - T_amb)/R, piecewise-constant P and T_amb:
 *   T(t) = T_inf + (T(t_k) - T_inf) e^{-(t - t_k)/(RC)},  T_inf = T_amb + P R.
 * Tolerance 2e-4 K: at the default solver tolerances (rtol 1e-7, atol 1e-5 K) the worst
 * errors measured over these tests are 1e-5 to 6e-5 K; 2e-4 K leaves a factor of 3 for
 * platform differences and is still 50 times below the 0.01 K the product promises.
 */
#include "test_util.h"

#define TOL_K 2e-4

static const char one_node_platform[] =
    "platform = { thermal = {\n"
    "  nodes = ( { name = \"die\"; c_j_per_k = 2.0; junction = true; } );\n"
    "  links = ( { a = \"die\"; b = \"ambient\"; r_k_per_w = 3.0; } );\n"
    "}; };\n";

/* Exact temperature of the one-node network (R = 3, C = 2) under segments. */
static double exact_one_node(double t, const double *start, const double *p, const double *amb,
                             size_t nseg, double t0_c) {
  const double r = 3.0, tau = 6.0;
  double temp = t0_c;
  for (size_t k = 0; k < nseg && start[k] < t; k++) {
    double stop = k + 1 < nseg && start[k + 1] < t ? start[k + 1] : t;
    double t_inf = amb[k] + p[k] * r;
    temp = t_inf + (temp - t_inf) * exp(-(stop - start[k]) / tau);
  }
  return temp;
}

static double max_error(const sits_result *r, const double *start, const double *p,
                        const double *amb, size_t nseg, double t0_c) {
  double worst = 0;
  for (size_t k = 0; k < sits_result_sample_count(r); k++) {
    double t = sits_result_time_s(r)[k];
    double e = fabs(sits_result_temp_c(r, k, 0) - exact_one_node(t, start, p, amb, nseg, t0_c));
    worst = fmax(worst, e);
  }
  cr_log_info("worst error %g K over %zu samples", worst, sits_result_sample_count(r));
  return worst;
}

Test(closed_form, single_node_power_step) {
  char text[2048];
  snprintf(text, sizeof text,
           "%sworkload = { phases = ( { duration_s = 30.0; power_w = { die = 5.0; }; } ); };\n"
           "ambient_c = 25.0; sample_period_s = 0.1;\n",
           one_node_platform);
  sits_scenario *sc = tu_load("step.cfg", text);
  sits_result *r = tu_run(sc);
  cr_assert_eq(sits_result_sample_count(r), 301);
  double start[1] = {0}, p[1] = {5}, amb[1] = {25};
  cr_assert_lt(max_error(r, start, p, amb, 1, 25.0), TOL_K);
  /* T(t) = 25 + 15 (1 - e^{-t/6}) at t = 6 s, by hand: 25 + 15 * 0.6321206 = 34.481809 */
  cr_assert_float_eq(sits_result_temp_c(r, 60, 0), 34.4818090, TOL_K);
  const sits_summary *s = sits_result_summary(r);
  cr_assert_eq(s->end_reason, SITS_END_DURATION);
  cr_assert_float_eq(s->energy_j, 150.0, 1e-9);
  cr_assert_float_eq(s->avg_power_w, 5.0, 1e-12);
  cr_assert_float_eq(s->max_junction_temp_c, 25 + 15 * (1 - exp(-5.0)), TOL_K);
  sits_result_free(r);
  sits_scenario_free(sc);
}

Test(closed_form, breakpoints_between_samples) {
  char text[2048];
  snprintf(text, sizeof text,
           "%sworkload = { phases = (\n"
           "  { duration_s = 0.37; power_w = { die = 5.0; }; },\n"
           "  { duration_s = 0.86; power_w = { die = 0.0; }; },\n"
           "  { duration_s = 3.77; power_w = { die = 12.0; }; } ); };\n"
           "ambient_c = 20.0; sample_period_s = 0.5;\n",
           one_node_platform);
  sits_scenario *sc = tu_load("bp.cfg", text);
  sits_result *r = tu_run(sc);
  cr_assert_eq(sits_result_sample_count(r), 11); /* 0, 0.5, ..., 5.0 */
  double start[3] = {0, 0.37, 1.23}, p[3] = {5, 0, 12}, amb[3] = {20, 20, 20};
  cr_assert_lt(max_error(r, start, p, amb, 3, 20.0), TOL_K);
  /* the recorded power is the input that holds at each sample */
  cr_assert_float_eq(sits_result_total_power_w(r, 1), 0.0, 0);  /* t = 0.5 */
  cr_assert_float_eq(sits_result_total_power_w(r, 3), 12.0, 0); /* t = 1.5 */
  sits_result_free(r);
  sits_scenario_free(sc);
}

Test(closed_form, repeating_phases) {
  char text[2048];
  snprintf(text, sizeof text,
           "%sworkload = { repeat = true; phases = (\n"
           "  { duration_s = 0.25; power_w = { die = 8.0; }; },\n"
           "  { duration_s = 0.75; power_w = { die = 1.0; }; } ); };\n"
           "ambient_c = 25.0; duration_s = 20.0; sample_period_s = 0.125;\n",
           one_node_platform);
  sits_scenario *sc = tu_load("rep.cfg", text);
  sits_result *r = tu_run(sc);
  double start[40], p[40], amb[40];
  for (int k = 0; k < 40; k++) {
    start[k] = k / 2 + (k % 2 ? 0.25 : 0.0);
    p[k] = k % 2 ? 1.0 : 8.0;
    amb[k] = 25.0;
  }
  cr_assert_lt(max_error(r, start, p, amb, 40, 25.0), TOL_K);
  cr_assert_float_eq(sits_result_summary(r)->energy_j, 20 * (8 * 0.25 + 0.75), 1e-8);
  sits_result_free(r);
  sits_scenario_free(sc);
}

Test(closed_form, ambient_follows_trace) {
  tu_write("amb.csv", "time_s,power_w.die,ambient_c\n"
                      "0,2.0,25\n"
                      "1.3,2.0,35\n"
                      "2.9,4.0,15\n"
                      "4.0,4.0,15\n");
  char text[2048];
  snprintf(text, sizeof text,
           "%sworkload = { trace = \"amb.csv\"; };\nduration_s = 8.0; sample_period_s = 0.2;\n",
           one_node_platform);
  sits_scenario *sc = tu_load("amb.cfg", text);
  sits_result *r = tu_run(sc);
  double start[3] = {0, 1.3, 2.9}, p[3] = {2, 2, 4}, amb[3] = {25, 35, 15};
  cr_assert_lt(max_error(r, start, p, amb, 3, 25.0), TOL_K);
  sits_result_free(r);
  sits_scenario_free(sc);
}

Test(closed_form, trace_length_sets_default_duration) {
  tu_write("len.csv", "time_s,power_w.die\n0,1\n0.5,2\n1.0,3\n");
  char text[2048];
  snprintf(text, sizeof text, "%sworkload = { trace = \"len.csv\"; };\n", one_node_platform);
  sits_scenario *sc = tu_load("len.cfg", text);
  /* the last row holds one sampling interval: 1.0 + 0.5 */
  cr_assert_float_eq(sits_scenario_duration_s(sc), 1.5, 1e-12);
  sits_result *r = tu_run(sc);
  cr_assert_float_eq(sits_result_summary(r)->energy_j, 0.5 + 1.0 + 1.5, 1e-9);
  sits_result_free(r);
  sits_scenario_free(sc);
}

Test(closed_form, critical_temperature_root) {
  char text[2048];
  snprintf(text, sizeof text,
           "platform = { thermal = {\n"
           "  nodes = ( { name = \"die\"; c_j_per_k = 2.0; critical_c = 35.0; } );\n"
           "  links = ( { a = \"die\"; b = \"ambient\"; r_k_per_w = 3.0; } ); }; };\n"
           "workload = { phases = ( { duration_s = 60.0; power_w = { die = 5.0; }; } ); };\n"
           "ambient_c = 25.0; sample_period_s = 1.0;\n");
  sits_scenario *sc = tu_load("crit.cfg", text);
  sits_result *r = tu_run(sc);
  const sits_summary *s = sits_result_summary(r);
  /* 25 + 15 (1 - e^{-t/6}) = 35  =>  t = -6 ln(1/3) = 6 ln 3 */
  double t_exact = 6.0 * log(3.0);
  cr_assert_eq(s->end_reason, SITS_END_CRITICAL_TEMP);
  cr_assert_float_eq(s->simulated_s, t_exact, 1e-5);
  size_t last = sits_result_sample_count(r) - 1;
  cr_assert_float_eq(sits_result_time_s(r)[last], t_exact, 1e-5);
  cr_assert_float_eq(sits_result_temp_c(r, last, 0), 35.0, TOL_K);
  cr_assert_eq(sits_result_event_count(r), 1);
  cr_assert_str_eq(sits_result_event(r, 0)->kind, "critical_temp");
  sits_result_free(r);
  sits_scenario_free(sc);
}

Test(closed_form, tdp_moving_average_and_constraints) {
  char text[2048];
  /* 2 W for 10 s, 20 W for 3 s, 2 W after: the 10-s average peaks at (3*20 + 7*2)/10 */
  snprintf(text, sizeof text,
           "%sworkload = { phases = (\n"
           "  { duration_s = 10.0; power_w = { die = 2.0; }; },\n"
           "  { duration_s = 3.0; power_w = { die = 20.0; }; },\n"
           "  { duration_s = 17.0; power_w = { die = 2.0; }; } ); };\n"
           "tdp_budget_w = 7.0; max_junction_temp_c = 200.0; ambient_c = 25.0;\n",
           one_node_platform);
  sits_scenario *sc = tu_load("tdp.cfg", text);
  sits_result *r = tu_run(sc);
  const sits_summary *s = sits_result_summary(r);
  cr_assert_float_eq(s->tdp_w, 7.4, 1e-9);
  cr_assert_float_eq(s->peak_power_w, 20.0, 0);
  cr_assert(s->tdp.set && !s->tdp.ok);
  cr_assert(s->junction.set && s->junction.ok);
  cr_assert_not(s->ok);
  sits_result_free(r);
  sits_scenario_free(sc);
}

/* The run's stop hook: polled as the run goes; the first nonzero answer ends the run with
 * SITS_ECANCELED, no result and the time it stopped at (an interpreter's Ctrl-C). */
static int stop_after(void *user) {
  int *calls = user;
  return ++*calls >= 10;
}

static void count_progress(double t_s, double end_s, void *user) {
  (void)end_s;
  *(double *)user = t_s;
}

Test(closed_form, stop_hook_ends_the_run) {
  char text[2048];
  snprintf(text, sizeof text,
           "%sworkload = { phases = ( { duration_s = 30.0; power_w = { die = 5.0; }; } ); };\n"
           "ambient_c = 25.0; sample_period_s = 0.1;\n",
           one_node_platform);
  sits_scenario *sc = tu_load("stop.cfg", text);
  int calls = 0;
  double last_t = -1;
  sits_run_opts o = {.stop = stop_after, .stop_user = &calls, .progress = count_progress,
                     .progress_user = &last_t};
  sits_result *r = (sits_result *)1;
  sits_err err = {0};
  cr_assert_eq(sits_run(sc, &o, &r, &err), SITS_ECANCELED, "%s", err.msg);
  cr_assert_null(r);
  cr_assert_eq(calls, 10);
  /* polled at each step that advanced 1/1000 of the 30 s: the tenth poll within the first
   * ten 0.1-s samples */
  cr_assert(last_t > 0 && last_t <= 1.0 + 1e-9, "stopped at %g s", last_t);
  cr_assert(strstr(err.msg, "the run was stopped at t = "), "%s", err.msg);
  cr_assert_str_eq(sits_strerror(SITS_ECANCELED), "stopped by the caller");
  /* a hook that never stops changes nothing */
  calls = -1000000;
  cr_assert_eq(sits_run(sc, &o, &r, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(sits_result_sample_count(r), 301);
  cr_assert_float_eq(sits_result_temp_c(r, 60, 0), 34.4818090, TOL_K);
  sits_result_free(r);
  sits_scenario_free(sc);
}

/*
 * test_replay.c - replay against closed forms: a measured power step through a one-node
 * network whose sensor is the exact response, the initial state of an unsensed node (the
 * pinned steady state, by hand), and the mapping errors.
 */
#include "test_util.h"

#include "sits_replay.h"
#include "sits_trace.h"

/* one node, C 10 J/K, R 2 K/W to a 25 C ambient: tau 20 s; 5 W from t = 10 s. The trace
 * carries the exact temperature as the sensor, sampled every 0.5 s, and a second column
 * with a 0.2 K offset (a biased sensor). */
static char *step_trace(void) {
  char *text = malloc(65536);
  size_t n = (size_t)snprintf(text, 65536, "time_s,power_w.in,temp_c.exact,temp_c.biased\n");
  for (int k = 0; k <= 120; k++) {
    double t = 0.5 * k, p = t >= 10 ? 5.0 : 0.0;
    double temp = 25.0 + (t > 10 ? 10.0 * (1 - exp(-(t - 10) / 20.0)) : 0.0);
    n += (size_t)snprintf(text + n, 65536 - n, "%.1f,%.1f,%.9f,%.9f\n", t, p, temp, temp + 0.2);
  }
  char *path = tu_write("step.csv", text);
  free(text);
  return path;
}

static sits_scenario *one_node(const char *extra) {
  char text[2048];
  snprintf(text, sizeof text,
           "platform = { thermal = { nodes = ( { name = \"die\"; c_j_per_k = 10.0; } );\n"
           "  links = ( { a = \"die\"; b = \"ambient\"; r_k_per_w = 2.0; } ); };\n"
           "  static_w = 3.0; static_node = \"die\"; };\n"
           "replay = { power = ( { column = \"power_w.in\"; node = \"die\"; } );\n"
           "  sensors = ( { column = \"temp_c.exact\"; node = \"die\"; },\n"
           "              { column = \"temp_c.biased\"; node = \"die\"; } ); };\n"
           "ambient_c = 25.0;\n%s",
           extra);
  return tu_load("replay1.cfg", text);
}

Test(replay, power_step_matches_the_closed_form) {
  char *trace = step_trace();
  sits_scenario *sc = one_node("");
  sits_replay *r = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_replay_run(sc, trace, NULL, &r, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(r->n_sensors, 2);
  const sits_fit_metrics *m = &r->sensors[0].m, *b = &r->sensors[1].m;
  cr_log_info("exact sensor: rmse %.2e K max %.2e K; biased: bias %.4f K", m->rmse, m->max_abs_err,
              b->bias);
  cr_assert_eq(m->n, 121);
  /* the static 3 W of the platform is left out (the measured power holds it): else the
   * node would settle 6 K higher */
  cr_assert_lt(m->max_abs_err, 1e-3, "max %g K", m->max_abs_err);
  cr_assert_float_eq(b->bias, -0.2, 1e-3);
  cr_assert_float_eq(b->rmse, 0.2, 1e-3);
  cr_assert(r->sensed[0]);
  cr_assert_float_eq(r->initial_c[0], 25.0, 1e-9);
  cr_assert_float_eq(r->duration_s, 60.5, 1e-9);
  sits_replay_free(r);
  sits_scenario_free(sc);
  free(trace);
}

/* A sensor column whose name holds a comma and a quote (RFC 4180 quoted in the trace) keeps
 * its columns in the CSV that replay and calibrate write: the header quotes it (before, it
 * was written bare and the CSV gained a column). */
Test(replay, csv_header_quotes_a_column_name) {
  char *text = malloc(65536);
  size_t n = (size_t)snprintf(text, 65536, "time_s,power_w.in,\"temp_c.a\"\"b,c\"\n");
  for (int k = 0; k <= 20; k++)
    n += (size_t)snprintf(text + n, 65536 - n, "%d,1.0,%g\n", k, 25.0 + 0.1 * k);
  char *trace = tu_write("quoted.csv", text);
  free(text);
  sits_scenario *sc = tu_load(
      "quoted.cfg", "platform = { thermal = { nodes = ( { name = \"die\"; c_j_per_k = "
                    "10.0; } );\n"
                    "  links = ( { a = \"die\"; b = \"ambient\"; r_k_per_w = 2.0; } ); "
                    "}; };\n"
                    "replay = { power = ( { column = \"power_w.in\"; node = \"die\"; } );\n"
                    "  sensors = ( { column = \"temp_c.a\\\"b,c\"; node = \"die\"; } ); };\n"
                    "ambient_c = 25.0;\n");
  sits_replay *r = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_replay_run(sc, trace, NULL, &r, &err), SITS_OK, "%s", err.msg);
  char out[600];
  snprintf(out, sizeof out, "%s/quoted_out.csv", tu_dir());
  cr_assert_eq(sits_replay_write_csv(r, out, &err), SITS_OK, "%s", err.msg);
  char *csv = tu_slurp(out);
  cr_assert(strncmp(csv,
                    "time_s,\"measured temp_c.a\"\"b,c\",\"simulated temp_c.a\"\"b,c\","
                    "power_w\n",
                    strlen("time_s,\"measured temp_c.a\"\"b,c\",\"simulated temp_c.a\"\"b,c\","
                           "power_w\n")) == 0,
            "%.200s", csv);
  /* and it reads back as a trace with the name whole */
  sits_trace *t = NULL;
  cr_assert_eq(sits_trace_read(out, NULL, &t, &err), SITS_OK, "%s", err.msg);
  cr_assert_geq(sits_trace_column(t, "measured temp_c.a\"b,c"), 0);
  sits_trace_free(t);
  free(csv);
  sits_replay_free(r);
  sits_scenario_free(sc);
  free(trace);
}

/* die - sink - ambient with only the die sensed: the sink starts where the first sample's
 * power (4 W on the die) leaves it with the die held at 60 C: a divider between 60 C and the
 * ambient, T_s = (T_d R2 + T_a R1) / (R1 + R2) = (60 x 3 + 25 x 1) / 4 = 51.25 C. */
Test(replay, unsensed_nodes_start_at_the_pinned_steady_state) {
  char *trace = tu_write("two.csv", "time_s,power_w.in,temp_c.die\n0,4,60\n1,4,\n2,4,60.1\n");
  sits_scenario *sc = tu_load(
      "replay2.cfg",
      "platform = { thermal = { nodes = ( { name = \"die\"; c_j_per_k = 1.0; },\n"
      "  { name = \"sink\"; c_j_per_k = 50.0; } );\n"
      "  links = ( { a = \"die\"; b = \"sink\"; r_k_per_w = 1.0; },\n"
      "            { a = \"sink\"; b = \"ambient\"; r_k_per_w = 3.0; } ); }; };\n"
      "replay = { power = ( { column = \"power_w.in\"; node = \"die\"; } );\n"
      "  sensors = ( { column = \"temp_c.die\"; node = \"die\"; } ); };\nambient_c = 25.0;\n");
  sits_replay *r = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_replay_run(sc, trace, NULL, &r, &err), SITS_OK, "%s", err.msg);
  cr_assert(r->sensed[0] && !r->sensed[1]);
  cr_assert_float_eq(r->initial_c[0], 60.0, 1e-12);
  cr_assert_float_eq(r->initial_c[1], 51.25, 1e-9);
  cr_assert_eq(r->sensors[0].m.n, 2); /* the empty cell is no sample */
  sits_replay_free(r);
  sits_scenario_free(sc);
  free(trace);
}

Test(replay, mapping_errors_name_where) {
  char *trace = step_trace();
  const char *cases[][2] = {
      {"replay = { power = ( { column = \"power_w.inn\"; node = \"die\"; } ); sensors = ( { "
       "column = \"temp_c.exact\"; node = \"die\"; } ); };\n",
       "has no column 'power_w.inn' (did you mean 'power_w.in'?)"},
      {"replay = { power = ( { column = \"power_w.in\"; node = \"dye\"; } ); sensors = ( { "
       "column = \"temp_c.exact\"; node = \"die\"; } ); };\n",
       "dye"},
      {"replay = { power = ( { column = \"power_w.in\"; node = \"die\"; } ); };\n",
       "replay.sensors must be a list"},
      {"replay = { power = ( { column = \"power_w.in\"; node = \"die\"; } ); sensors = ( ); };\n",
       "replay.sensors is empty: name at least one temperature column"},
      {"replay = { power = ( ); sensors = ( { column = \"temp_c.exact\"; node = \"die\"; } ); "
       "};\n",
       "replay.power is empty"},
      /* a temperature mapped as a power, a power as a sensor: refused, the right columns named */
      {"replay = { power = ( { column = \"temp_c.exact\"; node = \"die\"; } ); sensors = ( { "
       "column = \"temp_c.exact\"; node = \"die\"; } ); };\n",
       "column 'temp_c.exact' holds a temperature (C), not a power; its columns that do: "
       "power_w.in"},
      {"replay = { power = ( { column = \"power_w.in\"; node = \"die\"; } ); sensors = ( { "
       "column = \"power_w.in\"; node = \"die\"; } ); };\n",
       "column 'power_w.in' holds a power (W), not a temperature; its columns that do: "
       "temp_c.exact, temp_c.biased"},
      /* no such column, none near: the columns of that quantity listed */
      {"replay = { power = ( { column = \"power_w.gpu_instant\"; node = \"die\"; } ); "
       "sensors = ( { column = \"temp_c.exact\"; node = \"die\"; } ); };\n",
       "has no column 'power_w.gpu_instant'; its power columns: power_w.in"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char text[2048];
    snprintf(text, sizeof text,
             "platform = { thermal = { nodes = ( { name = \"die\"; c_j_per_k = 10.0; } );\n"
             "  links = ( { a = \"die\"; b = \"ambient\"; r_k_per_w = 2.0; } ); }; };\n%s",
             cases[k][0]);
    sits_scenario *sc = tu_load("replay_bad.cfg", text);
    sits_replay *r = NULL;
    sits_err err = {0};
    cr_assert_eq(sits_replay_run(sc, trace, NULL, &r, &err), SITS_EINPUT, "case %zu", k);
    cr_assert(strstr(err.msg, "replay_bad.cfg:3") && strstr(err.msg, cases[k][1]), "case %zu: %s",
              k, err.msg);
    cr_assert_null(r);
    sits_scenario_free(sc);
  }
  free(trace);
}

/* Phases: the step trace with phase.idle (before the step), phase.load (after it) and
 * phase.burst (two runs inside load, 20-22 s and 30-32 s). Each row stands for its interval to
 * the next (the last: to the end, 60.5 s); energies are the measured power held over them. */
Test(replay, figures_per_phase) {
  char *text = malloc(65536);
  size_t n = (size_t)snprintf(text, 65536,
                              "time_s,power_w.in,temp_c.exact,temp_c.biased,phase.idle,"
                              "phase.load,phase.burst\n");
  for (int k = 0; k <= 120; k++) {
    double t = 0.5 * k, p = t >= 10 ? 5.0 : 0.0;
    double temp = 25.0 + (t > 10 ? 10.0 * (1 - exp(-(t - 10) / 20.0)) : 0.0);
    int burst = (t >= 20 && t < 22) || (t >= 30 && t < 32);
    n += (size_t)snprintf(text + n, 65536 - n, "%.1f,%.1f,%.9f,%.9f,%d,%d,%d\n", t, p, temp,
                          temp + 0.2, t < 10, t >= 10, burst);
  }
  char *trace = tu_write("phases.csv", text);
  free(text);
  sits_scenario *sc = one_node("");
  sits_replay *r = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_replay_run(sc, trace, NULL, &r, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(r->n_phases, 3);
  const sits_replay_phase *idle = &r->phases[0], *load = &r->phases[1], *burst = &r->phases[2];
  cr_assert_str_eq(idle->label, "idle");
  cr_assert_str_eq(burst->label, "burst");
  cr_assert_eq(idle->instances, 1);
  cr_assert_eq(load->instances, 1);
  cr_assert_eq(burst->instances, 2);
  cr_assert_float_eq(idle->duration_s, 10.0, 1e-9);
  cr_assert_float_eq(load->duration_s, 50.5, 1e-9);
  cr_assert_float_eq(burst->duration_s, 4.0, 1e-9);
  cr_assert_float_eq(idle->energy_j, 0.0, 1e-12);
  cr_assert_float_eq(load->energy_j, 5.0 * 50.5, 1e-9);
  cr_assert_float_eq(burst->energy_j, 20.0, 1e-9);
  /* the biased sensor: -0.2 K in every phase; the peaks of the load are at its last row */
  cr_assert_eq(idle->m[1].n, 20);
  cr_assert_eq(load->m[1].n, 101);
  cr_assert_float_eq(idle->m[1].bias, -0.2, 1e-3);
  cr_assert_float_eq(load->m[1].bias, -0.2, 1e-3);
  double peak = 25.0 + 10.0 * (1 - exp(-50.0 / 20.0));
  cr_assert_float_eq(load->peak_measured_c[0], peak, 1e-8);
  cr_assert_float_eq(load->peak_simulated_c[0], peak, 1e-3);
  cr_assert_float_eq(idle->peak_measured_c[1], 25.2, 1e-8);
  /* in the JSON */
  char *path = malloc(512);
  snprintf(path, 512, "%s/phases.json", tu_dir());
  FILE *f = fopen(path, "w");
  cr_assert_eq(sits_replay_write_json(r, sc, f), SITS_OK);
  fclose(f);
  char *json = tu_slurp(path);
  cr_assert(strstr(json, "\"phases\":{\"idle\":{\"instances\":1,\"duration_s\":10,"), "%s",
            strstr(json, "\"phases\""));
  cr_assert(strstr(json, "\"burst\":{\"instances\":2,\"duration_s\":4,\"energy_j\":20,"), "%s",
            strstr(json, "\"phases\""));
  /* what the replay rests on, as in the run summary (#37): the one-node network has no fan */
  cr_assert(strstr(json, "},\"assumptions\":[\"no fan curve: every path to the ambient keeps "
                         "one resistance"),
            "%s", json);
  cr_assert_eq(json[strlen(json) - 3], ']', "%s", json + strlen(json) - 8);
  free(json), free(path), free(trace);
  sits_replay_free(r);
  sits_scenario_free(sc);
}

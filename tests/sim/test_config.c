/*
 * test_config.c - loading and validation: every malformed-input class is rejected with
 * `file:line: message`, and --set overrides reach the merged configuration.
 */
#include "test_util.h"

#include <sys/stat.h>

static const char nodes_ok[] =
    "  nodes = ( { name = \"gpu\"; c_j_per_k = 1.5; },\n"     /* line 2 */
    "            { name = \"board\"; c_j_per_k = 20; } );\n"; /* line 3 */

static const char workload_ok[] =
    "workload = { phases = ( { duration_s = 1.0; power_w = { gpu = 2.0; }; } ); };\n";

/* A scenario whose links group is @p links; asserts the error code and message. */
static void expect_links_error(const char *name, const char *links, const char *want) {
  char text[4096], msg[SITS_ERRMSG_MAX];
  snprintf(text, sizeof text, "platform = { thermal = {\n%s  links = (\n%s  );\n}; };\n%s",
           nodes_ok, links, workload_ok);
  cr_assert_eq(tu_load_fail(name, text, msg, sizeof msg), SITS_EINPUT);
  cr_assert(strstr(msg, want), "message '%s' lacks '%s'", msg, want);
}

Test(config, unknown_node_with_suggestion) {
  char want[512];
  snprintf(want, sizeof want,
           "%s/unknown_node.cfg:6: link names unknown node 'gpux' (did you mean 'gpu'?)", tu_dir());
  expect_links_error("unknown_node.cfg",
                     "    { a = \"board\"; b = \"ambient\"; r_k_per_w = 1.0; },\n"
                     "    { a = \"gpux\"; b = \"board\"; r_k_per_w = 1.0; }\n",
                     want);
}

Test(config, link_to_itself) {
  expect_links_error("self.cfg", "    { a = \"gpu\"; b = \"gpu\"; r_k_per_w = 1.0; }\n",
                     "self.cfg:5: link from 'gpu' to itself");
}

Test(config, resistance_not_positive) {
  expect_links_error("r0.cfg", "    { a = \"gpu\"; b = \"board\"; r_k_per_w = 0; }\n",
                     "r0.cfg:5: r_k_per_w must be > 0 (got 0)");
  expect_links_error("rneg.cfg", "    { a = \"gpu\"; b = \"board\"; r_k_per_w = -2.5; }\n",
                     "rneg.cfg:5: r_k_per_w must be > 0 (got -2.5)");
}

Test(config, capacity_not_positive) {
  char msg[SITS_ERRMSG_MAX];
  int rc = tu_load_fail("c0.cfg",
                        "platform = { thermal = {\n"
                        "  nodes = ( { name = \"gpu\"; c_j_per_k = 0.0; } );\n"
                        "  links = ( { a = \"gpu\"; b = \"ambient\"; r_k_per_w = 1; } ); }; };\n",
                        msg, sizeof msg);
  cr_assert_eq(rc, SITS_EINPUT);
  cr_assert(strstr(msg, "c0.cfg:2: node 'gpu': c_j_per_k must be > 0 (got 0)"), "%s", msg);
}

Test(config, unknown_key_with_suggestion) {
  char msg[SITS_ERRMSG_MAX], text[4096];
  snprintf(text, sizeof text,
           "platform = { thermal = {\n%s  links = ( { a = \"gpu\"; b = \"ambient\"; r_k_per_W = 1; "
           "} );\n"
           "}; };\n%s",
           nodes_ok, workload_ok);
  cr_assert_eq(tu_load_fail("key.cfg", text, msg, sizeof msg), SITS_EINPUT);
  cr_assert(strstr(msg, "key.cfg:4: unknown key 'r_k_per_W' in platform.thermal.links.[] (did you "
                        "mean 'r_k_per_w'?)"),
            "%s", msg);
  snprintf(text, sizeof text, "platform = \"jetson_orin_nx\";\n%sambeint_c = 30;\n", workload_ok);
  cr_assert_eq(tu_load_fail("key2.cfg", text, msg, sizeof msg), SITS_EINPUT);
  cr_assert(
      strstr(msg,
             "key2.cfg:3: unknown key 'ambeint_c' in the scenario (did you mean 'ambient_c'?)"),
      "%s", msg);
}

Test(config, missing_platform_file) {
  char msg[SITS_ERRMSG_MAX];
  cr_assert_eq(
      tu_load_fail("noplat.cfg", "# a comment\nplatform = \"no_such_board\";\n", msg, sizeof msg),
      SITS_EINPUT);
  cr_assert(strstr(msg, "noplat.cfg:2: platform 'no_such_board' not found"), "%s", msg);
}

Test(config, syntax_error_names_line) {
  char msg[SITS_ERRMSG_MAX];
  cr_assert_eq(
      tu_load_fail("syntax.cfg", "ambient_c = 25;\nplatform = {\n  thermal = ;\n", msg, sizeof msg),
      SITS_EINPUT);
  cr_assert(strstr(msg, "syntax.cfg:3: syntax error"), "%s", msg);
}

Test(config, battery_groups_are_checked) {
  char msg[SITS_ERRMSG_MAX], text[4096];
  snprintf(text, sizeof text,
           "platform = { thermal = {\n%s  links = ( { a = \"gpu\"; b = \"ambient\"; r_k_per_w = 1; "
           "} ); };\n"
           "  battery = { series = 3; }; };\n%s",
           nodes_ok, workload_ok);
  cr_assert_eq(tu_load_fail("batt.cfg", text, msg, sizeof msg), SITS_EINPUT);
  cr_assert(strstr(msg, "batt.cfg:5: the battery needs 'ocv_soc'"), "%s", msg);
  /* a battery life limit on a platform without a pack: nothing to judge */
  snprintf(text, sizeof text,
           "platform = \"jetson_orin_nx_thermal\";\n%smin_battery_life_s = 3600.0;\n",
           workload_ok);
  cr_assert_eq(tu_load_fail("batt2.cfg", text, msg, sizeof msg), SITS_EINPUT);
  cr_assert(strstr(msg, "batt2.cfg:3: 'min_battery_life_s' needs a battery in the platform"), "%s",
            msg);
  /* battery_capacity_wh on a platform without a pack builds battery_default's, sized to it
   * (nmc_3s1p_56wh: 3S1P; 20 Wh through its mean OCV of 3.8975 V per cell), and says so */
  snprintf(text, sizeof text,
           "platform = \"jetson_orin_nx_thermal\";\nbattery_capacity_wh = 20.0;\n"
           "workload = { phases = ( { duration_s = 1.0; power_w = { die = 2.0; }; } ); };\n");
  char *path = tu_write("batt3.cfg", text);
  sits_scenario *sc = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_scenario_load(path, NULL, 0, &sc, &err), SITS_OK, "%s", err.msg);
  const sits_battery *b = sits_scenario_battery(sc);
  cr_assert_not_null(b);
  cr_assert_eq(sits_battery_config(b)->series, 3);
  cr_assert_float_eq(sits_battery_capacity_ah(b), 20.0 / (3 * 3.8975), 2e-3);
  cr_assert(strstr(sits_scenario_note(sc, 0), "sizes a 'nmc_3s1p_56wh' pack (battery_default)"),
            "%s", sits_scenario_note(sc, 0));
  sits_scenario_free(sc);
  free(path);
}

Test(config, missing_workload) {
  char msg[SITS_ERRMSG_MAX];
  cr_assert_eq(tu_load_fail("nowork.cfg", "platform = \"jetson_orin_nx\";\n", msg, sizeof msg),
               SITS_EINPUT);
  cr_assert(strstr(msg, "needs a workload"), "%s", msg);
}

static void expect_trace_error(const char *csv_name, const char *csv, const char *want) {
  char text[4096], msg[SITS_ERRMSG_MAX];
  tu_write(csv_name, csv);
  snprintf(text, sizeof text, "platform = \"jetson_orin_nx\";\nworkload = { trace = \"%s\"; };\n",
           csv_name);
  cr_assert_eq(tu_load_fail("trace.cfg", text, msg, sizeof msg), SITS_EINPUT);
  cr_assert(strstr(msg, want), "message '%s' lacks '%s'", msg, want);
}

Test(config, trace_not_sorted) {
  expect_trace_error("unsorted.csv", "time_s,power_w.die\n0,1\n2,1\n1,3\n",
                     "unsorted.csv:4: time_s 1 is not after 2: the trace must be sorted in time");
  expect_trace_error("dup.csv", "time_s,power_w.die\n0,1\n1,1\n1,3\n",
                     "dup.csv:4: time_s 1 is not after 1");
}

Test(config, trace_nan) {
  expect_trace_error("nan.csv", "time_s,power_w.die\n0,1\n1,nan\n",
                     "nan.csv:3: column 'power_w.die': value is NaN");
}

Test(config, trace_missing_columns) {
  expect_trace_error("short.csv", "time_s,power_w.die,power_w.module\n0,1,2\n1,3\n",
                     "short.csv:3: missing columns: 2 values for the 3 columns of the header");
  expect_trace_error("long.csv", "time_s,power_w.die\n0,1,2\n",
                     "long.csv:2: more than the 2 columns");
  expect_trace_error("notime.csv", "t,power_w.die\n0,1\n", "notime.csv:1: unknown column 't'");
  expect_trace_error("badnode.csv", "time_s,power_w.gpu\n0,1\n",
                     "badnode.csv:1: column 'power_w.gpu' names unknown node 'gpu'");
  expect_trace_error("garbage.csv", "time_s,power_w.die\n0,1\n1,3x\n",
                     "garbage.csv:3: column 'power_w.die': '3x' is not a number");
  expect_trace_error("empty.csv", "", "empty.csv: empty file");
  expect_trace_error("header_only.csv", "time_s,power_w.die\n", "header_only.csv:1: no data rows");
  expect_trace_error("negative.csv", "time_s,power_w.die\n0,-1\n",
                     "negative.csv:2: column 'power_w.die': -1 is negative");
}

Test(config, trace_binary_data) {
  char path[512];
  snprintf(path, sizeof path, "%s/binary.csv", tu_dir());
  FILE *f = fopen(path, "wb");
  fwrite("time_s,power_w.die\n0,1\n\x01\x00\xff\xfe,2\n", 1, 29, f);
  fclose(f);
  char text[1024], msg[SITS_ERRMSG_MAX];
  snprintf(text, sizeof text,
           "platform = \"jetson_orin_nx\";\nworkload = { trace = \"binary.csv\"; };\n");
  cr_assert_eq(tu_load_fail("bin.cfg", text, msg, sizeof msg), SITS_EINPUT);
  cr_assert(strstr(msg, "binary.csv:3:"), "%s", msg);
}

static double steady_die(const char *const *sets, size_t n) {
  char path[512];
  snprintf(path, sizeof path, "%s/scenarios/hotspot_3node_step.cfg", SITS_CONFIGS);
  sits_scenario *sc = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_scenario_load(path, sets, n, &sc, &err), SITS_OK, "%s", err.msg);
  sits_steady_state st;
  cr_assert_eq(sits_steady(sc, &st, &err), SITS_OK, "%s", err.msg);
  double t = st.temp_c[0];
  sits_steady_release(&st);
  sits_scenario_free(sc);
  return t;
}

Test(config, set_overrides_merged_config) {
  double base = steady_die(NULL, 0);
  const char *amb[] = {"ambient_c=55"};                      /* the scenario has 45 */
  cr_assert_float_eq(steady_die(amb, 1) - base, 10.0, 1e-9); /* linear: +10 K everywhere */
  /* the sink-to-ambient link carries all the heat: +0.1 K/W at 15 W average = +1.5 K */
  const char *link[] = {"platform.thermal.links.[2].r_k_per_w=0.204792"};
  cr_assert_float_eq(steady_die(link, 1) - base, 1.5, 1e-9);
  /* a new group along the path is created */
  const char *solver[] = {"solver.rtol=1e-9"};
  cr_assert_float_eq(steady_die(solver, 1), base, 1e-12);
}

static void expect_set_error(const char *set, const char *want) {
  char path[512];
  snprintf(path, sizeof path, "%s/scenarios/hotspot_3node_step.cfg", SITS_CONFIGS);
  sits_scenario *sc = NULL;
  sits_err err = {0};
  const char *sets[] = {set};
  cr_assert_eq(sits_scenario_load(path, sets, 1, &sc, &err), SITS_EINPUT, "--set %s", set);
  cr_assert(strstr(err.msg, want), "message '%s' lacks '%s'", err.msg, want);
}

Test(config, set_malformed) {
  expect_set_error("ambient_c", "expected KEY=VALUE");
  expect_set_error("=3", "expected KEY=VALUE");
  expect_set_error("ambient_c=", "the value is empty");
  expect_set_error("a..b=1", "is not a config path");
  expect_set_error("platform.thermal.links.[x].r_k_per_w=1", "is not a config path");
  expect_set_error("platform.thermal.links.[1.r_k_per_w=1", "is not a config path");
  expect_set_error("1abc=1", "is not a config path");
  expect_set_error("ambient_c=hot", "--set ambient_c=hot: 'ambient_c' must be a number");
  expect_set_error("ambeint_c=3",
                   "unknown key 'ambeint_c' in the scenario (did you mean 'ambient_c'?)");
  expect_set_error("platform.thermal.links.[9].r_k_per_w=1", "does not exist");
  expect_set_error("platform.thermal.links.[0].r_k_per_w=-1", "r_k_per_w must be > 0");
}

Test(config, platform_by_name_from_anywhere_and_merged_text) {
  char text[1024];
  snprintf(text, sizeof text, "platform = \"hotspot_3node\";\n%s",
           "workload = { phases = ( { duration_s = 1.0; power_w = { chip = 2.0; }; } ); };\n");
  sits_scenario *sc = tu_load("byname.cfg", text);
  const char *merged = sits_scenario_config_text(sc);
  cr_assert(strstr(merged, "spreader"), "merged config lacks the platform: %s", merged);
  cr_assert_eq(sits_thermal_node_count(sits_scenario_thermal(sc)), 3);
  sits_scenario_free(sc);
}

Test(config, static_power) {
  char text[1024];
  snprintf(text, sizeof text,
           "platform = { static_w = 2.0; static_node = \"die\"; thermal = {\n"
           "  nodes = ( { name = \"die\"; c_j_per_k = 2.0; } );\n"
           "  links = ( { a = \"die\"; b = \"ambient\"; r_k_per_w = 3.0; } ); }; };\n"
           "workload = { phases = ( { duration_s = 10.0; power_w = { die = 1.0; }; } ); };\n");
  sits_scenario *sc = tu_load("static.cfg", text);
  sits_steady_state st;
  sits_err err = {0};
  cr_assert_eq(sits_steady(sc, &st, &err), SITS_OK, "%s", err.msg);
  cr_assert_float_eq(st.temp_c[0], 25.0 + 3.0 * 3.0, 1e-9);
  sits_steady_release(&st);
  sits_scenario_free(sc);
  char msg[SITS_ERRMSG_MAX];
  snprintf(text, sizeof text,
           "platform = { static_w = 2.0; thermal = {\n"
           "  nodes = ( { name = \"die\"; c_j_per_k = 2.0; } );\n"
           "  links = ( { a = \"die\"; b = \"ambient\"; r_k_per_w = 3.0; } ); }; };\n"
           "workload = { phases = ( { duration_s = 10.0; } ); };\n");
  cr_assert_eq(tu_load_fail("static2.cfg", text, msg, sizeof msg), SITS_EINPUT);
  cr_assert(strstr(msg, "static2.cfg:1: 'static_w' needs 'static_node'"), "%s", msg);
}

Test(config, integers_are_accepted_where_numbers_are_expected) {
  /* libconfig auto-convert: r_k_per_w = 5; (an int) reads as 5.0 */
  sits_scenario *sc = tu_load(
      "ints.cfg", "platform = { thermal = {\n"
                  "  nodes = ( { name = \"die\"; c_j_per_k = 2; } );\n"
                  "  links = ( { a = \"die\"; b = \"ambient\"; r_k_per_w = 5; } ); }; };\n"
                  "workload = { phases = ( { duration_s = 10; power_w = { die = 3; }; } ); };\n"
                  "ambient_c = 20;\n");
  sits_steady_state st;
  sits_err err = {0};
  cr_assert_eq(sits_steady(sc, &st, &err), SITS_OK, "%s", err.msg);
  cr_assert_float_eq(st.temp_c[0], 20.0 + 3.0 * 5.0, 1e-12);
  cr_assert_float_eq(sits_thermal_capacity_j_per_k(sits_scenario_thermal(sc), 0), 2.0, 0);
  sits_steady_release(&st);
  sits_scenario_free(sc);
}

Test(config, workload_profile_and_workload_conflict) {
  char msg[SITS_ERRMSG_MAX];
  cr_assert_eq(tu_load_fail("both.cfg",
                            "platform = \"jetson_orin_nx\";\nworkload_profile = \"x\";\n"
                            "workload = { phases = ( { duration_s = 1; } ); };\n",
                            msg, sizeof msg),
               SITS_EINPUT);
  cr_assert(strstr(msg, "both.cfg:2: give either 'workload_profile' or 'workload', not both"), "%s",
            msg);
}

Test(config, workload_profile_by_name) {
  char dir[600];
  snprintf(dir, sizeof dir, "%s/workloads", tu_dir());
  mkdir(dir, 0755);
  tu_write(
      "workloads/pulse.cfg",
      "workload = { repeat = true; phases = ( { duration_s = 1.0; power_w = { die = 4.0; }; },\n"
      "                                       { duration_s = 3.0; } ); };\n");
  sits_scenario *sc = tu_load("profile.cfg", "platform = \"jetson_orin_nx_thermal\";\n"
                                             "workload_profile = \"pulse\";\nduration_s = 40;\n");
  sits_steady_state st;
  sits_err err = {0};
  cr_assert_eq(sits_steady(sc, &st, &err), SITS_OK, "%s", err.msg);
  cr_assert_float_eq(st.total_power_w, 1.0, 1e-12); /* 4 W a quarter of the time */
  sits_steady_release(&st);
  sits_scenario_free(sc);
  /* --set workload_profile picks another file before it is merged */
  tu_write("workloads/steady2.cfg",
           "workload = { phases = ( { duration_s = 10.0; power_w = { die = 2.0; }; } ); };\n");
  char path[600];
  snprintf(path, sizeof path, "%s/profile.cfg", tu_dir());
  const char *sets[] = {"workload_profile=steady2"};
  cr_assert_eq(sits_scenario_load(path, sets, 1, &sc, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(sits_steady(sc, &st, &err), SITS_OK, "%s", err.msg);
  cr_assert_float_eq(st.total_power_w, 2.0, 1e-12);
  sits_steady_release(&st);
  sits_scenario_free(sc);
}

/* Malformed battery tables: exit 1 with the file and line of the battery group. */
Test(config, battery_malformed_tables) {
  const char *cases[][2] = {
      {"ocv_soc = [0.0, 0.5, 1.0]; ocv_v = [3.0, 4.3, 4.2]; capacity_ah = 2.0; cutoff_v = 3.0;",
       "the OCV table is not monotone"},
      {"ocv_soc = [0.0, 0.5, 1.2]; ocv_v = [3.0, 3.6, 4.2]; capacity_ah = 2.0; cutoff_v = 3.0;",
       "ocv_soc[2] = 1.2 is not in [0, 1]"},
      {"ocv_soc = [0.0, 0.5, 1.0]; ocv_v = [3.0, 3.6, 4.2]; capacity_ah = 2.0; cutoff_v = 4.3;",
       "cutoff_v 4.3 V is not below the OCV at full charge"},
      {"ocv_soc = [0.0, 0.5, 1.0]; ocv_v = [3.0, 3.6, 4.2]; capacity_ah = 0.0; cutoff_v = 3.0;",
       "'capacity_ah' must be in [1e-06, 1e+06] (got 0)"},
      {"ocv_soc = [0.0, 1.0]; ocv_v = [3.0, 3.6, 4.2]; capacity_ah = 2.0; cutoff_v = 3.0;",
       "ocv_soc has 2 values but ocv_v 3"},
      {"ocv_soc = [0.0, 1.0]; ocv_t_c = [0.0, 40.0]; ocv_v = ( [3.0, 4.1] ); capacity_ah = 2.0; "
       "cutoff_v = 3.0;",
       "with ocv_t_c, 'ocv_v' must be a list of 2 arrays"},
      {"ocv_soc = [0.0, 1.0]; ocv_t_c = [0.0, 40.0]; ocv_v = ( [3.0, 4.1], [3.1] ); capacity_ah "
       "= 2.0; cutoff_v = 3.0;",
       "ocv_v row 1 (40 C) must be an array of 2 numbers"},
      {"ocv_soc = [0.0, 0.5, 1.0]; ocv_t_c = [40.0, 0.0]; ocv_v = ( [3.0, 3.5, 4.1], [3.1, 3.6, "
       "4.2] ); "
       "capacity_ah = 2.0; cutoff_v = 3.0;",
       "the OCV temperatures must increase"},
      {"ocv_soc = [0.0, 0.5, 1.0]; ocv_v = [3.0, 3.6, 4.2]; capacity_ah = 2.0; cutoff_v = 3.0; "
       "entropic_heat = true;",
       "entropic_heat needs OCV rows over temperature (ocv_t_c)"},
      {"ocv_soc = [0.0, 0.5, 1.0]; ocv_v = [3.0, 3.6, 4.2]; capacity_ah = 2.0; cutoff_v = 3.0; "
       "entropic_heat = 1;",
       "entropic_heat"},
      {"ocv_soc = [0.0, 0.5, 1.0]; ocv_v = [3.0, 3.6, 4.2]; capacity_ah = 2.0; cutoff_v = 3.0; "
       "r0_scale = [1.0, 2.0];",
       "'r0_scale' needs 'r_soc'"},
      {"ocv_soc = [0.0, 0.5, 1.0]; ocv_v = [3.0, 3.6, 4.2]; capacity_ah = 2.0; cutoff_v = 3.0; "
       "r_soc = [0.0, 1.0]; r0_scale = [1.0, 2.0, 3.0];",
       "r_soc has 2 values but r0_scale 3"},
      {"ocv_soc = [0.0, 0.5, 1.0]; ocv_v = [3.0, 3.6, 4.2]; capacity_ah = 2.0; cutoff_v = 3.0; "
       "r_soc = [0.0, 1.0]; r_t_c = [0.0, 40.0]; r0_scale = ( [1.0, 2.0] );",
       "with r_t_c, 'r0_scale' must be a list of 2 arrays"},
      {"ocv_soc = [0.0, 0.5, 1.0]; ocv_v = [3.0, 3.6, 4.2]; capacity_ah = 2.0; cutoff_v = 3.0; "
       "r_soc = [0.0, 1.0]; r0_scale = [1.0, 0.0];",
       "the R0 factor 0 (row 0, point 1) must be > 0"},
      {"ocv_soc = [0.0, 0.5, 1.0]; ocv_v = [3.0, 3.6, 4.2]; capacity_ah = 2.0; cutoff_v = 3.0; "
       "capacity_t_c = [0.0, 40.0];",
       "'capacity_t_c' needs 'capacity_scale'"},
      {"ocv_soc = [0.0, 0.5, 1.0]; ocv_v = [3.0, 3.6, 4.2]; capacity_ah = 2.0; cutoff_v = 3.0; "
       "capacity_t_c = [0.0]; capacity_scale = [1.0];",
       "capacity_t_c needs 2 to 8 temperatures"},
      {"ocv_soc = [0.0, 0.5, 1.0]; ocv_v = [3.0, 3.6, 4.2]; capacity_ah = 2.0; cutoff_v = 3.0; "
       "capacity_t_c = [0.0, 40.0]; capacity_scale = [1.0];",
       "capacity_t_c has 2 values but capacity_scale 1"},
      {"ocv_soc = [0.0, 0.5, 1.0]; ocv_v = [3.0, 3.6, 4.2]; capacity_ah = 2.0; cutoff_v = 3.0; "
       "capacity_t_c = [40.0, 0.0]; capacity_scale = [1.0, 1.0];",
       "capacity_t_c must increase strictly"},
      {"ocv_soc = [0.0, 0.5, 1.0]; ocv_v = [3.0, 3.6, 4.2]; capacity_ah = 2.0; cutoff_v = 3.0; "
       "capacity_t_c = [0.0, 40.0]; capacity_scale = [1.0, -1.0];",
       "capacity_scale"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[2048], msg[SITS_ERRMSG_MAX];
    snprintf(text, sizeof text,
             "platform = { thermal = {\n%s  links = ( { a = \"gpu\"; b = \"ambient\"; r_k_per_w = "
             "1; } ); };\n"
             "  battery = { r0_ohm = 0.02; %s }; };\n%s",
             nodes_ok, cases[i][0], workload_ok);
    cr_assert_eq(tu_load_fail("bmal.cfg", text, msg, sizeof msg), SITS_EINPUT, "case %zu", i);
    cr_assert(strstr(msg, "bmal.cfg:5: "), "case %zu: %s", i, msg);
    cr_assert(strstr(msg, cases[i][1]), "case %zu: '%s' lacks '%s'", i, msg, cases[i][1]);
  }
}

/* A battery named in the platform file, swapped by --set platform.battery=NAME: the set
 * applies after the platform merge and before the battery file is read. */
Test(config, battery_by_name_and_swapped_by_set) {
  const char *cell = "battery = { series = 1; parallel = 1; capacity_ah = %s; ocv_soc = [0.0, "
                     "0.5, 1.0]; ocv_v = [3.0, 3.6, 4.2]; r0_ohm = 0.02; cutoff_v = 3.0; };\n";
  char text[600];
  const char *subdirs[] = {"batteries", "platforms"};
  for (size_t k = 0; k < 2; k++) {
    snprintf(text, sizeof text, "%s/%s", tu_dir(), subdirs[k]);
    mkdir(text, 0755);
  }
  snprintf(text, sizeof text, cell, "2.0");
  free(tu_write("batteries/cell_a.cfg", text));
  snprintf(text, sizeof text, cell, "3.5");
  free(tu_write("batteries/cell_b.cfg", text));
  free(tu_write("platforms/with_cell.cfg",
                "platform = { thermal = { nodes = ( { name = \"gpu\"; c_j_per_k = 1.0; } );\n"
                "  links = ( { a = \"gpu\"; b = \"ambient\"; r_k_per_w = 1.0; } ); };\n"
                "  battery = \"cell_a\"; };\n"));
  char *path = tu_write("named_batt.cfg", "platform = \"with_cell\";\n"
                                          "workload = { phases = ( { duration_s = 1.0; } ); };\n");
  sits_scenario *sc = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_scenario_load(path, NULL, 0, &sc, &err), SITS_OK, "%s", err.msg);
  cr_assert_float_eq(sits_battery_capacity_ah(sits_scenario_battery(sc)), 2.0, 1e-12);
  sits_scenario_free(sc);
  const char *sets[] = {"platform.battery=cell_b"};
  cr_assert_eq(sits_scenario_load(path, sets, 1, &sc, &err), SITS_OK, "%s", err.msg);
  cr_assert_float_eq(sits_battery_capacity_ah(sits_scenario_battery(sc)), 3.5, 1e-12);
  sits_scenario_free(sc);
  const char *bad[] = {"platform.battery=cell_c"};
  cr_assert_neq(sits_scenario_load(path, bad, 1, &sc, &err), SITS_OK);
  cr_assert(strstr(err.msg, "cell_c"), "%s", err.msg);
  free(path);
}

/* A --set value that holds more than one setting is refused, not cut at the first one. */
Test(config, set_value_with_a_tail_refused) {
  char msg[SITS_ERRMSG_MAX];
  char *path =
      tu_write("tail.cfg", "platform = { thermal = {\n"
                           "  nodes = ( { name = \"a\"; c_j_per_k = 1.0; } );\n"
                           "  links = ( { a = \"a\"; b = \"ambient\"; r_k_per_w = 1.0; } );\n"
                           "}; };\n"
                           "workload = { phases = ( { duration_s = 1.0; } ); };\n");
  const char *sets[] = {"ambient_c=45 ; platform=\"x\""};
  sits_err err = {0};
  sits_scenario *sc = NULL;
  cr_assert_eq(sits_scenario_load(path, sets, 1, &sc, &err), SITS_EINPUT);
  snprintf(msg, sizeof msg, "%s", err.msg);
  cr_assert(strstr(msg, "holds more than one setting"), "%s", msg);
  cr_assert_null(sc);
}

/* Physical ranges refused with the --set named: below absolute zero, a megawatt-scale phase
 * power (1e305 W made a run hang), a picosecond governor period (it made a 1-s run hang), a
 * duration under the solver's resolution. */
Test(config, physical_ranges) {
  char path[512];
  snprintf(path, sizeof path, "%s/scenarios/hotspot_3node_step.cfg", SITS_CONFIGS);
  const struct {
    const char *set, *want;
  } cases[] = {
      {"ambient_c=-300", "--set ambient_c=-300: 'ambient_c' must be in (-273.15, 10000]"},
      {"workload.phases.[0].power_w.chip=1e305", "power_w 1e+305 W is over 1 MW"},
      {"platform.governor.period_s=1e-12", "'period_s' must be in [0.0001, 3600]"},
      {"duration_s=1e-9", "'duration_s' must be in [1e-06, 1e+09]"},
      {"platform.thermal.nodes.[0].initial_c=-500", "'initial_c' must be in (-273.15, 10000]"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    const char *sets[] = {cases[k].set};
    sits_err err = {0};
    sits_scenario *sc = NULL;
    cr_assert_eq(sits_scenario_load(path, sets, 1, &sc, &err), SITS_EINPUT, "%s", cases[k].set);
    cr_assert(strstr(err.msg, cases[k].want), "%s: %s", cases[k].set, err.msg);
  }
}

/*
 * test_cli.c - the sitsenergy program end to end: shipped configs, exit codes, messages,
 * --set, --check, --help, and that a killed run leaves no file under the output name.
 */
#include "test_util.h"

#include <unistd.h>

#include <signal.h>
#include <sys/stat.h>
#include <time.h>

static char *shipped(const char *rel) {
  char *p = malloc(512);
  snprintf(p, 512, "%s/%s", SITS_CONFIGS, rel);
  return p;
}

Test(cli, demo_runs_and_writes_outputs) {
  char args[2048], *out, *err;
  char *sc = shipped("scenarios/orin_nx_vlm_burst.cfg");
  snprintf(args, sizeof args,
           "run %s -o %s/demo.h5 --csv %s/demo.csv --plot %s/demo.png --summary json", sc, tu_dir(),
           tu_dir(), tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 0, "stderr: %s", err);
  cr_assert(strstr(out, "\"verdict\":\"violated\""), "%s", out);
  cr_assert(strstr(err, "wrote"), "%s", err);
  char path[512];
  struct stat st;
  snprintf(path, sizeof path, "%s/demo.h5", tu_dir());
  cr_assert_eq(stat(path, &st), 0);
  snprintf(path, sizeof path, "%s/demo.csv", tu_dir());
  cr_assert_eq(stat(path, &st), 0);
  snprintf(path, sizeof path, "%s/demo.png", tu_dir());
  char *png = tu_slurp(path);
  cr_assert(strncmp(png, "\x89PNG", 4) == 0, "not a PNG");
  free(png);
  free(out), free(err), free(sc);
}

/* The plot script reaches gnuplot through a pipe with quoted paths: a quote and a space in
 * the PNG's name are kept, and the temporary CSV and PNG are gone afterwards. */
Test(cli, plot_path_with_quote_and_space) {
  char args[4096], *out, *err, path[1024];
  snprintf(args, sizeof args,
           "replay %s/scenarios/orin_nano_replay.cfg --trace %s/tegrastats/orin_nano_jp6_real.raw "
           "--plot \"%s/it's a replay.png\"",
           SITS_CONFIGS, SITS_TEST_DATA, tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  snprintf(path, sizeof path, "%s/it's a replay.png", tu_dir());
  char *png = tu_slurp(path);
  cr_assert(png && strncmp(png, "\x89PNG", 4) == 0, "not a PNG: %s", err);
  struct stat st;
  snprintf(path, sizeof path, "%s/it's a replay.png.data.csv", tu_dir());
  cr_assert_neq(stat(path, &st), 0, "temporary CSV left behind");
  snprintf(path, sizeof path, "%s/it's a replay.png.tmp.png", tu_dir());
  cr_assert_neq(stat(path, &st), 0, "temporary PNG left behind");
  free(png), free(out), free(err);
}

/* run --plot on a calibrated scenario (an uncertainty group): gnuplot takes the script with
 * the peak's band strip and the junction limit (a script error would fail the plot). */
Test(cli, run_plot_with_band_and_limit) {
  char *sc = tu_write("banded_run.cfg",
                      "platform = { thermal = {\n"
                      "  nodes = ( { name = \"die\"; c_j_per_k = 2.0; junction = true; } );\n"
                      "  links = ( { a = \"die\"; b = \"ambient\"; r_k_per_w = 3.0; } ); }; };\n"
                      "workload = { phases = ( { duration_s = 30.0; power_w = { die = 5.0; }; } ); "
                      "};\nambient_c = 25.0; max_junction_temp_c = 41.0;\n"
                      "uncertainty = { parameters = [ \"ambient_c\" ]; values = [ 25.0 ];\n"
                      "  std_err = [ 0.5 ]; correlation = [ 1.0 ];\n"
                      "  sensors = [ \"temp_c.die\" ]; residual_q95_c = [ 0.4 ]; };\n");
  char args[2048], *out, *err, path[1024];
  snprintf(args, sizeof args, "run %s --plot %s/banded_run.png", sc, tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  cr_assert(strstr(out, "95 % band"), "%s", out);
  snprintf(path, sizeof path, "%s/banded_run.png", tu_dir());
  char *png = tu_slurp(path);
  cr_assert(png && strncmp(png, "\x89PNG", 4) == 0, "not a PNG: %s", err);
  free(png), free(out), free(err);
}

/* A floorplan run's plot draws the ten hottest of its 132 nodes (the key named every node and
 * squeezed the data): gnuplot takes the script with its titled subset. What is drawn was
 * looked at (docs/commands.md); here the script's acceptance. */
Test(cli, run_plot_of_a_floorplan_draws_the_hottest) {
  char args[2048], *out, *err, path[1024];
  char *sc = shipped("scenarios/ev6_floorplan_throttle.cfg");
  snprintf(args, sizeof args, "run %s --set duration_s=0.2 --quiet --plot %s/floorplan_run.png", sc,
           tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  snprintf(path, sizeof path, "%s/floorplan_run.png", tu_dir());
  char *png = tu_slurp(path);
  cr_assert(png && strncmp(png, "\x89PNG", 4) == 0, "not a PNG: %s", err);
  free(png), free(out), free(err), free(sc);
}

/* A run with domains and a battery (the demo) gets the clocks-and-battery panel below: a
 * 1000-pixel-high PNG (the IHDR's height) against 700 for a run with neither. */
Test(cli, run_plot_adds_clocks_and_battery) {
  char args[2048], *out, *err, path[1024];
  char *sc = shipped("examples/video_enc.cfg");
  snprintf(args, sizeof args, "run %s --set duration_s=60 --quiet --plot %s/two_panels.png", sc,
           tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  snprintf(path, sizeof path, "%s/two_panels.png", tu_dir());
  FILE *f = fopen(path, "rb");
  unsigned char h[24] = {0};
  cr_assert(f && fread(h, 1, sizeof h, f) == sizeof h, "no PNG: %s", err);
  fclose(f);
  cr_assert(memcmp(h, "\x89PNG", 4) == 0);
  unsigned height = (unsigned)h[20] << 24 | (unsigned)h[21] << 16 | (unsigned)h[22] << 8 | h[23];
  cr_assert_eq(height, 1000u);
  free(out), free(err), free(sc);
}

/* The pixels of the three colours @p rgb ("RRGGBB") in the PNG at @p path, into @p n
 * (tests/cli/png_colour_count.py decodes it); false when it cannot. */
static bool png_colour_counts(const char *path, const char *const rgb[3], long n[3]) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "python3 %s/../cli/png_colour_count.py '%s' %s %s %s", SITS_TEST_DATA,
           path, rgb[0], rgb[1], rgb[2]);
  FILE *p = popen(cmd, "r");
  bool ok = p && fscanf(p, "%ld %ld %ld", &n[0], &n[1], &n[2]) == 3;
  return p && pclose(p) == 0 && ok;
}

/* run --plot marks what the governor did, behind both panels: thermal throttling shaded red
 * (#f6c9c4), the power cap in force amber (#f3e2b3); and a line and label at an event that
 * ends the run (a node past its critical temperature, #7b1fa2). A die at 7 K/W under a 9 W cap
 * with a 70 C trip: the cap bites each second from 0.6 s, the trip at 17.55 s; with its
 * critical temperature at 45 C the run ends there at 5.3 s before any thermal throttling.
 * Checked by counting the colours' pixels (each span is >= 1/1000 of the plot's width, so
 * hundreds of pixels); absent where the run has none. */
Test(cli, run_plot_marks_throttling_and_events) {
  char *sc = tu_write(
      "marks.cfg",
      "platform = { thermal = {\n"
      "  nodes = ( { name = \"die\"; c_j_per_k = 2.0; junction = true; critical_c = 95.0; } );\n"
      "  links = ( { a = \"die\"; b = \"ambient\"; r_k_per_w = 7.0; } ); };\n"
      "  domains = ( { name = \"gpu\"; node = \"die\"; ceff_f = 1.0e-8; idle_w = 0.5; max_rate = "
      "100.0;\n"
      "    opp = ( { freq_mhz = 300.0; volt_v = 0.6; power_w = 2.0; },\n"
      "            { freq_mhz = 600.0; volt_v = 0.75; power_w = 6.0; },\n"
      "            { freq_mhz = 900.0; volt_v = 0.9; power_w = 12.0; } ); } );\n"
      "  governor = { kind = \"performance\"; period_s = 0.05;\n"
      "    thermal = { kind = \"step_wise\"; sensor = \"die\"; trip_c = 70.0; hysteresis_c = 2.0; "
      "};\n"
      "    power_cap = { window_s = 1.0; }; }; };\n"
      "workload = { phases = ( { duration_s = 20.0; demand = { gpu = 1.0; }; },\n"
      "                        { duration_s = 20.0; demand = { gpu = 0.1; }; } ); };\n"
      "ambient_c = 25.0; duration_s = 40.0; tdp_budget_w = 9.0;\n");
  static const char *const runs[][2] = {
      {"", "marks.png"},
      {"--set 'platform.thermal.nodes.[0].critical_c=45'", "marks_critical.png"},
      {"--set tdp_budget_w=100 --set duration_s=10", "calm.png"}};
  /* per run: thermal, cap and event pixels expected (1) or not (0) */
  static const int want[][3] = {{1, 1, 0}, {0, 1, 1}, {0, 0, 0}};
  for (int k = 0; k < 3; k++) {
    char args[2048], png[1024], *out, *err;
    snprintf(png, sizeof png, "%s/%s", tu_dir(), runs[k][1]);
    snprintf(args, sizeof args, "run %s %s --quiet --plot %s", sc, runs[k][0], png);
    cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
    static const char *const colours[3] = {"f6c9c4", "f3e2b3", "7b1fa2"};
    long n[3];
    cr_assert(png_colour_counts(png, colours, n), "%s: cannot count its pixels", png);
    long thermal = n[0], cap = n[1], event = n[2];
    cr_assert_eq(thermal > 300, want[k][0], "%s: %ld thermal-throttling pixels", png, thermal);
    cr_assert_eq(cap > 300, want[k][1], "%s: %ld power-cap pixels", png, cap);
    cr_assert_eq(event > 50, want[k][2], "%s: %ld event pixels", png, event);
    if (!want[k][0])
      cr_assert_eq(thermal, 0, "%s", png);
    if (!want[k][2])
      cr_assert_eq(event, 0, "%s", png);
    free(out), free(err);
  }
  free(sc);
}

/* A long node name widens the run plot's key: the plot areas narrow so the key's text starts
 * right of the power axis's tics and label. Its 48-character title (temp_c. and 41) at the
 * PNG's 7.1 px a character, right-aligned at x = 1130, starts at x = 789; the tics and label
 * take about 60 px right of the plot area, so its right edge (where the throttling shading of
 * the lower panel ends) must be left of x = 729. It was at 888 with any key. */
Test(cli, run_plot_makes_room_for_a_long_key) {
  char *sc = tu_write(
      "longkey.cfg",
      "platform = { thermal = {\n"
      "  nodes = ( { name = \"die_of_the_application_processor_cluster0\"; c_j_per_k = 2.0;\n"
      "              junction = true; } );\n"
      "  links = ( { a = \"die_of_the_application_processor_cluster0\"; b = \"ambient\";\n"
      "              r_k_per_w = 7.0; } ); };\n"
      "  domains = ( { name = \"gpu\"; node = \"die_of_the_application_processor_cluster0\";\n"
      "    ceff_f = 1.0e-8; idle_w = 0.5; max_rate = 100.0;\n"
      "    opp = ( { freq_mhz = 300.0; volt_v = 0.6; power_w = 2.0; },\n"
      "            { freq_mhz = 900.0; volt_v = 0.9; power_w = 12.0; } ); } );\n"
      "  governor = { kind = \"performance\"; period_s = 0.05;\n"
      "    thermal = { kind = \"step_wise\"; sensor = "
      "\"die_of_the_application_processor_cluster0\";\n"
      "                trip_c = 50.0; hysteresis_c = 2.0; }; }; };\n"
      "workload = { phases = ( { duration_s = 40.0; demand = { gpu = 1.0; }; } ); };\n"
      "ambient_c = 25.0; duration_s = 40.0;\n");
  char args[2048], png[1024], cmd[2048], *out, *err;
  snprintf(png, sizeof png, "%s/longkey.png", tu_dir());
  snprintf(args, sizeof args, "run %s --quiet --plot %s", sc, png);
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  snprintf(cmd, sizeof cmd, "python3 %s/../cli/png_colour_count.py --x-extent '%s' 550 940 f6c9c4",
           SITS_TEST_DATA, png);
  FILE *p = popen(cmd, "r");
  int x0 = -1, x1 = -1;
  cr_assert(p && fscanf(p, "%d %d", &x0, &x1) == 2, "%s: cannot read its pixels", png);
  pclose(p);
  cr_assert(x0 > 0 && x1 > x0, "%s: no throttling shading in the lower panel (%d..%d)", png, x0,
            x1);
  cr_assert_lt(x1, 729, "%s: the plot area reaches x = %d, under the key's text", png, x1);
  cr_assert_gt(x1, 600, "%s: the plot area narrowed more than the key needs (x = %d)", png, x1);
  free(out), free(err), free(sc);
}

Test(cli, check_gives_exit_3_on_violation) {
  char args[2048], *out, *err;
  char *sc = shipped("scenarios/orin_nx_vlm_burst.cfg");
  snprintf(args, sizeof args, "run %s --check --quiet", sc);
  cr_assert_eq(tu_cli(args, &out, &err), 3, "stderr: %s", err);
  cr_assert(strstr(out, "verdict               violated"), "%s", out);
  free(out), free(err);
  /* a budget the demo meets: exit 0 */
  snprintf(args, sizeof args, "run %s --check --quiet --set tdp_budget_w=30", sc);
  cr_assert_eq(tu_cli(args, &out, &err), 0, "stderr: %s", err);
  free(out), free(err), free(sc);
}

Test(cli, set_changes_the_result) {
  char args[2048], *a, *b, *err;
  char *sc = shipped("scenarios/hotspot_3node_step.cfg");
  snprintf(args, sizeof args, "steady %s", sc);
  cr_assert_eq(tu_cli(args, &a, &err), 0, "%s", err);
  free(err);
  snprintf(args, sizeof args, "steady %s --set ambient_c=55", sc);
  cr_assert_eq(tu_cli(args, &b, &err), 0, "%s", err);
  double ta, tb;
  cr_assert_eq(sscanf(strstr(a, "\"chip\":") + 7, "%lf", &ta), 1);
  cr_assert_eq(sscanf(strstr(b, "\"chip\":") + 7, "%lf", &tb), 1);
  cr_assert_float_eq(tb - ta, 10.0, 1e-6);
  cr_assert(strstr(b, "\"runaway\":false"), "%s", b);
  free(a), free(b), free(err), free(sc);
}

/* Each malformed-input class: exit 1, one line "sitsenergy: file:line: ...". */
Test(cli, malformed_inputs_exit_1) {
  struct {
    const char *cfg, *want;
  } cases[] = {
      {"platform = { thermal = { nodes = ( { name = \"a\"; c_j_per_k = 1; } );\n"
       "links = ( { a = \"a\"; b = \"nowhere\"; r_k_per_w = 1; } ); }; };\n"
       "workload = { phases = ( { duration_s = 1; } ); };\n",
       "bad.cfg:2: link names unknown node 'nowhere'"},
      {"platform = { thermal = { nodes = ( { name = \"a\"; c_j_per_k = 1; } );\n"
       "links = ( { a = \"a\"; b = \"a\"; r_k_per_w = 1; } ); }; };\n"
       "workload = { phases = ( { duration_s = 1; } ); };\n",
       "bad.cfg:2: link from 'a' to itself"},
      {"platform = { thermal = { nodes = ( { name = \"a\"; c_j_per_k = 1; } );\n"
       "links = ( { a = \"a\"; b = \"ambient\"; r_k_per_w = 0; } ); }; };\n"
       "workload = { phases = ( { duration_s = 1; } ); };\n",
       "bad.cfg:2: r_k_per_w must be > 0"},
      {"platform = { thermal = {\nnodes = ( { name = \"a\"; c_j_per_k = -1; } );\n"
       "links = ( { a = \"a\"; b = \"ambient\"; r_k_per_w = 1; } ); }; };\n"
       "workload = { phases = ( { duration_s = 1; } ); };\n",
       "bad.cfg:2: node 'a': c_j_per_k must be > 0"},
      {"platform = \"jetson_orin_nx\";\nworkload = { trace = \"bad.csv\"; };\n",
       "bad.csv:4: time_s 0.5 is not after 1"},
      {"platform = \"jetson_orin_nx\";\nworkload = { phases = ( { duration_s = 1; } ); };\n"
       "max_junction_temp = 85;\n",
       "bad.cfg:3: unknown key 'max_junction_temp' in the scenario (did you mean "
       "'max_junction_temp_c'?)"},
      {"platform = \"orin_typo\";\n", "bad.cfg:1: platform 'orin_typo' not found"},
  };
  tu_write("bad.csv", "time_s,power_w.die\n0,1\n1,2\n0.5,3\n");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *path = tu_write("bad.cfg", cases[i].cfg), args[1024], *out, *err;
    snprintf(args, sizeof args, "run %s -o %s/never.h5", path, tu_dir());
    cr_assert_eq(tu_cli(args, &out, &err), 1, "case %zu: %s", i, err);
    cr_assert(strncmp(err, "sitsenergy: ", 12) == 0, "case %zu: %s", i, err);
    cr_assert(strstr(err, cases[i].want), "case %zu: '%s' lacks '%s'", i, err, cases[i].want);
    cr_assert_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: %s", err);
    cr_assert_str_eq(out, "", "nothing on stdout: %s", out);
    char never[512];
    struct stat st;
    snprintf(never, sizeof never, "%s/never.h5", tu_dir());
    cr_assert_neq(stat(never, &st), 0, "no output file on error");
    free(out), free(err), free(path);
  }
}

Test(cli, usage_errors_exit_2_and_help_exits_0) {
  char *out, *err;
  cr_assert_eq(tu_cli("", &out, &err), 2);
  free(out), free(err);
  cr_assert_eq(tu_cli("frobnicate", &out, &err), 2);
  cr_assert(strstr(err, "unknown command 'frobnicate'"), "%s", err);
  free(out), free(err);
  cr_assert_eq(tu_cli("run", &out, &err), 2);
  cr_assert(strstr(err, "run needs a scenario file"), "%s", err);
  free(out), free(err);
  cr_assert_eq(tu_cli("run x.cfg --bogus", &out, &err), 2);
  cr_assert(strstr(err, "unknown option '--bogus'"), "%s", err);
  free(out), free(err);
  cr_assert_eq(tu_cli("run x.cfg --summary xml", &out, &err), 1);
  free(out), free(err);
  const char *helps[] = {"--help",       "run --help",      "steady --help", "dvfs-table --help",
                         "sweep --help", "calibrate --help"};
  for (int i = 0; i < 6; i++) {
    cr_assert_eq(tu_cli(helps[i], &out, &err), 0);
    cr_assert(strstr(out, "usage: sitsenergy"), "%s", out);
    free(out), free(err);
  }
  cr_assert_eq(tu_cli("--version", &out, &err), 0);
  cr_assert(strncmp(out, "sitsenergy ", 11) == 0, "%s", out);
  /* the commit it was built from; "unknown" from a tree without .git (a release tarball) */
  char hash[64] = "", dotgit[600];
  snprintf(dotgit, sizeof dotgit, "%s/../.git", SITS_CONFIGS);
  if (access(dotgit, F_OK) != 0) {
    cr_assert(strstr(out, " (git unknown)"), "%s", out);
  } else {
    cr_assert_eq(sscanf(out, "sitsenergy %*[0-9.] (git %63[0-9a-f-dirty])", hash), 1, "%s", out);
    cr_assert_geq(strlen(hash), 12, "%s", out);
  }
  free(out), free(err);
}

Test(cli, bad_set_exit_1) {
  char args[1024], *out, *err;
  char *sc = shipped("scenarios/hotspot_3node_step.cfg");
  snprintf(args, sizeof args, "run %s --set ambient_c", sc);
  cr_assert_eq(tu_cli(args, &out, &err), 1);
  cr_assert(strstr(err, "expected KEY=VALUE"), "%s", err);
  free(out), free(err), free(sc);
}

/* A long run killed mid-way leaves no file under the requested name. */
Test(cli, killed_run_leaves_no_output) {
  char *path = tu_write("long.cfg", "platform = \"hotspot_3node\";\n"
                                    "workload = { repeat = true; phases = (\n"
                                    "  { duration_s = 0.001; power_w = { chip = 40.0; }; },\n"
                                    "  { duration_s = 0.001; power_w = { chip = 5.0; }; } ); };\n"
                                    "duration_s = 4000.0;\n");
  char out_path[512];
  snprintf(out_path, sizeof out_path, "%s/killed.h5", tu_dir());
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    freopen("/dev/null", "w", stdout);
    freopen("/dev/null", "w", stderr);
    execl(SITS_CLI, SITS_CLI, "run", path, "-o", out_path, "--quiet", (char *)NULL);
    _exit(127);
  }
  struct timespec ts = {0, 800 * 1000 * 1000};
  nanosleep(&ts, NULL);
  kill(pid, SIGKILL);
  int status;
  waitpid(pid, &status, 0);
  cr_assert(WIFSIGNALED(status), "the run ended before it was killed: make it longer");
  struct stat st;
  cr_assert_neq(stat(out_path, &st), 0, "a killed run left %s", out_path);
  free(path);
}

/* Every shipped scenario runs; the product's example waits for the battery model. */
Test(cli, shipped_scenarios_and_platforms_run) {
  const char *scenarios[] = {"hotspot_3node_step", "orin_nx_vlm_burst", "orin_nx_video_enc",
                             "mlu370_resnet50"};
  for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
    char args[1024], *out, *err;
    char *sc = malloc(512);
    snprintf(sc, 512, "%s/scenarios/%s.cfg", SITS_CONFIGS, scenarios[i]);
    snprintf(args, sizeof args, "run %s --summary json --quiet", sc);
    cr_assert_eq(tu_cli(args, &out, &err), 0, "%s: %s", scenarios[i], err);
    cr_assert(strstr(out, "\"verdict\":"), "%s", out);
    free(out), free(err), free(sc);
  }
  const char *platforms[][2] = {{"raspberry_pi5", "cpu"},
                                {"rk3588", "cpu_big"},
                                {"jetson_orin_nx", "gpu"},
                                {"mlu370", "mlu"}};
  for (size_t i = 0; i < 4; i++) {
    char text[512], args[1024], *out, *err;
    snprintf(text, sizeof text,
             "platform = \"%s\";\nworkload = { phases = ( { duration_s = 60; demand = { %s = 0.7; "
             "}; } ); };\n",
             platforms[i][0], platforms[i][1]);
    char *path = tu_write("plat.cfg", text);
    snprintf(args, sizeof args, "steady %s", path);
    cr_assert_eq(tu_cli(args, &out, &err), 0, "%s: %s", platforms[i][0], err);
    cr_assert(strstr(out, "\"runaway\":false"), "%s: %s", platforms[i][0], out);
    free(out), free(err), free(path);
  }
  /* the product's example runs end to end: DVFS, thermal and battery in one solve */
  char args[1024], *out, *err;
  snprintf(args, sizeof args, "run %s/examples/video_enc.cfg --summary json", SITS_CONFIGS);
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  cr_assert(strstr(out, "\"battery\":{\"final_soc\":"), "%s", out);
  cr_assert(strstr(out, "\"verdict\":\"ok\""), "%s", out);
  cr_assert(strstr(out, "\"items_done\":108000,"), "%s", out); /* 30 fps for an hour, no deficit */
  free(out), free(err);
}

Test(cli, dvfs_table_formats_and_errors) {
  char args[1024], *out, *err;
  char *sc = shipped("scenarios/mlu370_resnet50.cfg");
  snprintf(args, sizeof args, "dvfs-table %s", sc);
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  cr_assert(strstr(out, "freq_mhz,volt_v,power_w,total_power_w,steady_temp_c,") == out, "%s", out);
  cr_assert(strstr(out, "\n800,0.75,"), "%s", out);
  free(out), free(err);
  snprintf(args, sizeof args, "dvfs-table %s --format dts -o %s/t.dts", sc, tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  free(out), free(err);
  snprintf(args, sizeof args, "dtc -q -I dts -O dtb -o /dev/null %s/t.dts", tu_dir());
  cr_assert_eq(system(args), 0);
  snprintf(args, sizeof args, "dvfs-table %s --format xml", sc);
  cr_assert_eq(tu_cli(args, &out, &err), 1);
  cr_assert(strstr(err, "--format must be"), "%s", err);
  free(out), free(err);
  snprintf(args, sizeof args, "dvfs-table %s --domain gpu", sc);
  cr_assert_eq(tu_cli(args, &out, &err), 1);
  cr_assert(strstr(err, "no domain 'gpu'"), "%s", err);
  free(out), free(err);
  cr_assert_eq(tu_cli("dvfs-table --help", &out, &err), 0);
  cr_assert(strstr(out, "usage: sitsenergy dvfs-table"), "%s", out);
  free(out), free(err), free(sc);
}

Test(cli, sweep_grid_jobs_shards_and_errors) {
  char args[2048], *out, *err;
  char *sc = shipped("scenarios/hotspot_3node_step.cfg");
  snprintf(
      args, sizeof args,
      "sweep %s --vary ambient_c=25,35 --vary 'platform.thermal.links.[2].r_k_per_w=0.1:0.3:3' "
      "-o %s/seq.csv",
      sc, tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  free(out), free(err);
  snprintf(
      args, sizeof args,
      "sweep %s --vary ambient_c=25,35 --vary 'platform.thermal.links.[2].r_k_per_w=0.1:0.3:3' "
      "-j 3 -o %s/par.csv",
      sc, tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  free(out), free(err);
  char p1[512], p2[512];
  snprintf(p1, sizeof p1, "%s/seq.csv", tu_dir());
  snprintf(p2, sizeof p2, "%s/par.csv", tu_dir());
  char *seq = tu_slurp(p1), *par = tu_slurp(p2);
  cr_assert_str_eq(seq, par, "-j changes the result");
  /* 2 x 3 combinations, the last varying fastest; +10 C ambient is +10 C everywhere */
  cr_assert(strstr(seq, ",25,0.1,duration,30,"), "%s", seq);
  cr_assert(strstr(seq, ",35,0.3,duration,30,"), "%s", seq);
  size_t lines = 0;
  for (char *p = seq; *p; p++)
    lines += *p == '\n';
  cr_assert_eq(lines, 7);
  /* index and config_hash first: 0..5 in order; the hash is the merged config's, so two
   * combinations never share one */
  char hashes[6][17];
  const char *row = strchr(seq, '\n') + 1;
  for (int k = 0; k < 6; k++, row = strchr(row, '\n') + 1) {
    int index = -1;
    cr_assert_eq(sscanf(row, "%d,%16[0-9a-f],", &index, hashes[k]), 2, "%.60s", row);
    cr_assert_eq(index, k);
    for (int j = 0; j < k; j++)
      cr_assert_str_neq(hashes[j], hashes[k]);
  }
  double t25, t35;
  cr_assert_eq(sscanf(strstr(seq, ",25,0.2,duration,30,") + 20, "%lf", &t25), 1);
  cr_assert_eq(sscanf(strstr(seq, ",35,0.2,duration,30,") + 20, "%lf", &t35), 1);
  cr_assert_float_eq(t35 - t25, 10.0, 1e-6);
  free(seq), free(par);
  /* shard 2/2 keeps combinations 2, 4, 6 */
  snprintf(
      args, sizeof args,
      "sweep %s --vary ambient_c=25,35 --vary 'platform.thermal.links.[2].r_k_per_w=0.1:0.3:3' "
      "--shard 2/2 -o %s/shard.csv",
      sc, tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  free(out), free(err);
  snprintf(p1, sizeof p1, "%s/shard.csv", tu_dir());
  char *sh = tu_slurp(p1);
  cr_assert(strstr(sh, ",25,0.2,") && strstr(sh, ",35,0.1,") && strstr(sh, ",35,0.3,") &&
                !strstr(sh, ",25,0.1,"),
            "%s", sh);
  free(sh);
  /* a bad value: the row carries the message, the exit code is 1 */
  snprintf(args, sizeof args, "sweep %s --vary ambient_c=25,hot -o %s/bad.csv", sc, tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 1);
  free(out), free(err);
  snprintf(p1, sizeof p1, "%s/bad.csv", tu_dir());
  char *bad = tu_slurp(p1);
  cr_assert(strstr(bad, "'ambient_c' must be a number"), "%s", bad);
  free(bad);
  /* --check: a junction limit the hot case breaks */
  snprintf(args, sizeof args,
           "sweep %s --vary ambient_c=25,80 --set max_junction_temp_c=60 --check -o %s/chk.csv", sc,
           tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 3, "%s", err);
  free(out), free(err);
  /* a malformed --vary is a usage error (exit 2, the hardening issue; it was 1): no '=', an
   * empty value, a range that is not START:STOP:COUNT, a key varied twice */
  const char *bad_vary[] = {"--vary ambient_c", "--vary ambient_c=1,,2", "--vary ambient_c=1:2",
                            "--vary ambient_c=1,2 --vary ambient_c=3"};
  for (size_t k = 0; k < 4; k++) {
    snprintf(args, sizeof args, "sweep %s %s -o %s/x.csv", sc, bad_vary[k], tu_dir());
    cr_assert_eq(tu_cli(args, &out, &err), 2, "%s: %s", bad_vary[k], err);
    cr_assert(strstr(err, "--vary 'ambient_c"), "%s", err);
    free(out), free(err);
  }
  snprintf(args, sizeof args, "sweep %s --vary ambient_c=1,2", sc);
  cr_assert_eq(tu_cli(args, &out, &err), 2);
  free(out), free(err), free(sc);
}

/* The --csv of a calibration (tu_dir()/name, starting with @p header) against the JSON on
 * @p out: the RMSE of the model's column against the measured one over the rows trained on
 * and over those held out (the first floor(0.7 n) rows are the training part: the default
 * --train-fraction) equals the JSON's train and holdout figures (after @p key), to the CSV's
 * printed digits. Columns 2 and 3 are measured and model, held_out is the last (5th). */
static void csv_matches_the_json(const char *out, const char *name, const char *header,
                                 const char *key) {
  char path[600];
  snprintf(path, sizeof path, "%s/%s", tu_dir(), name);
  char *csv = tu_slurp(path);
  cr_assert(csv && strncmp(csv, header, strlen(header)) == 0, "%.200s", csv ? csv : "(none)");
  size_t n = 0;
  for (const char *c = strchr(csv, '\n') + 1; *c; c = strchr(c, '\n') + 1)
    n++;
  size_t n_train = (size_t)floor(0.7 * (double)n), k = 0, n_held = 0;
  double sse[2] = {0, 0};
  for (const char *c = strchr(csv, '\n') + 1; *c; c = strchr(c, '\n') + 1, k++) {
    double t, meas, model, fifth[2] = {0, 0};
    cr_assert_geq(sscanf(c, "%lf,%lf,%lf,%lf,%lf", &t, &meas, &model, &fifth[0], &fifth[1]), 4);
    int held = k >= n_train;
    cr_assert_eq((int)fifth[1], held, "row %zu: held_out %g", k, fifth[1]);
    sse[held] += (model - meas) * (model - meas);
    n_held += (size_t)held;
  }
  double json[2] = {0, 0};
  const char *part[2] = {"\"train\":{\"", "\"holdout\":{\""};
  for (int h = 0; h < 2; h++) {
    const char *p = strstr(out, part[h]);
    cr_assert_not_null(p, "%s", out);
    p = strstr(p, key);
    cr_assert_not_null(p, "%s", out);
    sscanf(p + strlen(key), "%lf", &json[h]);
    double from_csv = sqrt(sse[h] / (double)(h ? n_held : n_train));
    cr_assert_float_eq(from_csv, json[h], 1e-5 * json[h], "%s: %g from the CSV, %g in the JSON",
                       part[h], from_csv, json[h]);
  }
  free(csv);
}

/* calibrate --fit battery on the A123 dynamic test: metrics, the written config, errors. */
Test(cli, calibrate_battery_end_to_end) {
  char args[2048], *out, *err, cfg[512];
  snprintf(cfg, sizeof cfg, "%s/a123_cal.cfg", tu_dir());
  snprintf(args, sizeof args,
           "calibrate %s/scenarios/a123_cell_calibrate.cfg --trace %s/a123_dyn_25degC_s1.csv "
           "--fit battery -o %s --plot %s/cal.png --bpx %s/cell.json --csv %s/cal.csv",
           SITS_CONFIGS, SITS_VALIDATION_DATA, cfg, tu_dir(), tu_dir(), tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  csv_matches_the_json(out, "cal.csv", "time_s,voltage_v,model_voltage_v,current_a,held_out\n",
                       "voltage_v\":{\"rmse_v\":");
  /* the BPX file carries the fitted R0 (as the Calibrate JSON prints it) */
  char bpx[600];
  snprintf(bpx, sizeof bpx, "%s/cell.json", tu_dir());
  char *cell = tu_slurp(bpx);
  double r0_bpx = 0, r0_json = 0;
  cr_assert(strstr(cell, "\"Model\": \"Partial\""), "%s", cell);
  sscanf(strstr(cell, "\"R0 [Ohm]\": ") + strlen("\"R0 [Ohm]\": "), "%lf", &r0_bpx);
  sscanf(strstr(out, "\"platform.battery.r0_ohm\":") + strlen("\"platform.battery.r0_ohm\":"),
         "%lf", &r0_json);
  cr_assert_float_eq(r0_bpx, r0_json, 1e-9 * r0_json, "%g vs %g", r0_bpx, r0_json);
  free(cell);
  double rmse = 0, r0 = 0;
  char *h = strstr(out, "\"holdout\":{\"voltage_v\":{\"rmse_v\":");
  cr_assert_not_null(h, "%s", out);
  sscanf(h + strlen("\"holdout\":{\"voltage_v\":{\"rmse_v\":"), "%lf", &rmse);
  sscanf(strstr(out, "\"platform.battery.r0_ohm\":") + strlen("\"platform.battery.r0_ohm\":"),
         "%lf", &r0);
  cr_assert_lt(rmse, 0.030, "held-out RMSE %g V (22.5 mV when written)", rmse);
  cr_assert(r0 > 0.008 && r0 < 0.015, "R0 %g", r0);
  cr_assert(strstr(out, "\"train_fraction\":0.7"), "%s", out);
  free(out), free(err);
  /* the calibrated scenario runs */
  snprintf(args, sizeof args, "run %s --summary json", cfg);
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  cr_assert(strstr(out, "\"battery\":{"), "%s", out);
  free(out), free(err);
  /* the sign convention matters: the wrong one is a far worse fit */
  snprintf(args, sizeof args,
           "calibrate %s/scenarios/a123_cell_calibrate.cfg --trace %s/a123_dyn_25degC_s1.csv "
           "--fit battery --discharge-negative -o %s/wrong.cfg",
           SITS_CONFIGS, SITS_VALIDATION_DATA, tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  h = strstr(out, "\"train\":{\"voltage_v\":{\"rmse_v\":");
  double wrong = 0;
  sscanf(h + strlen("\"train\":{\"voltage_v\":{\"rmse_v\":"), "%lf", &wrong);
  cr_assert_gt(wrong, 0.05, "wrong sign still fits to %g V", wrong);
  free(out), free(err);
  snprintf(args, sizeof args,
           "calibrate %s/scenarios/a123_cell_calibrate.cfg --trace %s/a123_dyn_25degC_s1.csv "
           "--fit battery --current-col amps -o %s/x.cfg",
           SITS_CONFIGS, SITS_VALIDATION_DATA, tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 1);
  cr_assert(strstr(err, "a123_dyn_25degC_s1.csv:1: no column 'amps'"), "%s", err);
  free(out), free(err);
  snprintf(args, sizeof args, "calibrate %s/scenarios/a123_cell_calibrate.cfg --fit battery -o x",
           SITS_CONFIGS);
  cr_assert_eq(tu_cli(args, &out, &err), 2);
  free(out), free(err);
}

/* calibrate --fit thermal --csv: the calibrated scenario's replay, whose held-out rows give
 * the JSON's held-out RMSE; --plot beside it draws the same (a PNG, the split marked). */
Test(cli, calibrate_thermal_csv) {
  char args[2048], *out, *err;
  snprintf(args, sizeof args,
           "calibrate %s/../cases/orin_nano_jp6.cfg --trace %s/orin_nano_jp6_tegrastats.raw "
           "--fit thermal,ambient --csv %s/th.csv --plot %s/th.png -o %s/th.cfg",
           SITS_VALIDATION_DATA, SITS_VALIDATION_DATA, tu_dir(), tu_dir(), tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  csv_matches_the_json(out, "th.csv",
                       "time_s,measured temp_c.tj,simulated temp_c.tj,power_w,held_out,"
                       "band_half_width_c temp_c.tj\n",
                       "temp_c.tj\":{\"rmse_c\":");
  free(out), free(err);
  char png[1024], magic[8] = {0};
  snprintf(png, sizeof png, "%s/th.png", tu_dir());
  FILE *f = fopen(png, "rb");
  cr_assert_not_null(f, "%s", png);
  cr_assert_eq(fread(magic, 1, 8, f), 8);
  fclose(f);
  cr_assert(memcmp(magic, "\x89PNG\r\n\x1a\n", 8) == 0, "not a PNG");
  /* the standard output carries the JSON: --csv - is refused */
  snprintf(args, sizeof args,
           "calibrate %s/../cases/orin_nano_jp6.cfg --trace %s/orin_nano_jp6_tegrastats.raw "
           "--fit thermal,ambient --csv - -o %s/th.cfg",
           SITS_VALIDATION_DATA, SITS_VALIDATION_DATA, tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 1, "%s", err);
  cr_assert(strstr(err, "--csv"), "%s", err);
  free(out), free(err);
}

/* calibrate --ocv-test on the Nissan Leaf C/15 discharge regenerates the shipped NMC table,
 * and the HPPC fit with it gives the figures of validation/README.md. */
Test(cli, calibrate_leaf_ocv_test_and_hppc_fit) {
  char args[2048], *out, *err, cfg[512];
  snprintf(cfg, sizeof cfg, "%s/leaf_ocv.cfg", tu_dir());
  snprintf(
      args, sizeof args,
      "calibrate %s/scenarios/leaf_cell_calibrate.cfg --ocv-test %s/leaf_c15_discharge_cycle2.csv "
      "--ocv-max-c-rate 0.075 --ocv-r-ohm 0.1233 --ocv-points 51 -o %s",
      SITS_CONFIGS, SITS_VALIDATION_DATA, cfg);
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  cr_assert(strstr(out, "\"fit\":[\"ocv\"]"), "%s", out);
  cr_assert(strstr(out, "\"discharge_sign\":-1"), "%s", out);
  free(out), free(err);
  /* the written table equals the shipped one (printed there with 4 decimals) */
  sits_scenario *mine = NULL, *shipped = NULL;
  sits_err e = {0};
  cr_assert_eq(sits_scenario_load(cfg, NULL, 0, &mine, &e), SITS_OK, "%s", e.msg);
  snprintf(args, sizeof args, "%s/scenarios/leaf_cell_calibrate.cfg", SITS_CONFIGS);
  cr_assert_eq(sits_scenario_load(args, NULL, 0, &shipped, &e), SITS_OK, "%s", e.msg);
  const sits_battery *bm = sits_scenario_battery(mine), *bs = sits_scenario_battery(shipped);
  cr_assert_float_eq(sits_battery_capacity_ah(bm), 30.097, 1e-3);
  for (double s = 0; s <= 1.0 + 1e-9; s += 0.02)
    cr_assert_float_eq(sits_battery_ocv_v(bm, s), sits_battery_ocv_v(bs, s), 6e-5, "SOC %g", s);
  sits_scenario_free(mine), sits_scenario_free(shipped);
  /* the HPPC fit */
  snprintf(args, sizeof args,
           "calibrate %s/scenarios/leaf_cell_calibrate.cfg --trace %s/leaf_hppc_25degC.csv "
           "--fit battery -o %s/leaf_fit.cfg",
           SITS_CONFIGS, SITS_VALIDATION_DATA, tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  double train = 0, hold = 0, r0 = 0;
  const char *keys[] = {"\"train\":{\"voltage_v\":{\"rmse_v\":",
                        "\"holdout\":{\"voltage_v\":{\"rmse_v\":", "\"platform.battery.r0_ohm\":"};
  double *vals[] = {&train, &hold, &r0};
  for (size_t k = 0; k < 3; k++) {
    const char *at = strstr(out, keys[k]);
    cr_assert_not_null(at, "%s", out);
    cr_assert_eq(sscanf(at + strlen(keys[k]), "%lf", vals[k]), 1);
  }
  cr_log_info("Leaf HPPC: train %.4f V, holdout %.4f V, R0 %.6f ohm", train, hold, r0);
  /* measured when written: train 9.7 mV, held out 89 mV (the held-out 30 % ends in the last
   * pulse at SOC ~0.02, where the table from the C/15 run is 0.2 V low), R0 1.79 mOhm; with
   * the shipped cell's resistance tables over SOC (2026-12-03): train 6.8 mV, held out
   * 80.3 mV, R0 1.66 mOhm at SOC 0.6 */
  cr_assert_lt(train, 0.015, "train %g V", train);
  cr_assert_lt(hold, 0.12, "holdout %g V", hold);
  cr_assert(r0 > 0.0015 && r0 < 0.0021, "R0 %g", r0);
  free(out), free(err);
}

/* calibrate --cycle: the 25 C dynamic test's three scripts (script 1 in two files) give the
 * capacity and coulombic efficiency to -o and the JSON; the option's misuses are refused with
 * their reason (a cycle on a thermal fit, with a fitted capacity, a reference efficiency
 * without later recordings or out of range, a file that is not one, a column it lacks). */
Test(cli, calibrate_cycle) {
  char args[4096], *out, *err, cfg[512], cyc[2048];
  const char *d = SITS_VALIDATION_DATA;
  snprintf(cfg, sizeof cfg, "%s/cycle.cfg", tu_dir());
  snprintf(cyc, sizeof cyc,
           "--cycle %s/a123_dyn_25degC_s1.csv --cycle %s/a123_dyn_25degC_s1_rest.csv "
           "--cycle %s/a123_dyn_25degC_s2.csv --cycle %s/a123_dyn_25degC_s3.csv",
           d, d, d, d);
  snprintf(args, sizeof args, "calibrate %s/scenarios/a123_cell_calibrate.cfg %s -o %s",
           SITS_CONFIGS, cyc, cfg);
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  cr_assert(strstr(out, "\"fit\":[\"cycle\"]"), "%s", out);
  cr_assert(strstr(out, "\"empty_recording\":3"), "%s", out);
  free(out), free(err);
  sits_scenario *sc = NULL;
  sits_err e = {0};
  cr_assert_eq(sits_scenario_load(cfg, NULL, 0, &sc, &e), SITS_OK, "%s", e.msg);
  const sits_battery *b = sits_scenario_battery(sc);
  /* the values test_validation checks against the upstream counters */
  cr_assert_float_eq(sits_battery_capacity_ah(b), 2.045621, 1e-6);
  cr_assert_float_eq(sits_battery_config(b)->coulombic_eff, 0.989312, 1e-6);
  sits_scenario_free(sc);
  struct {
    const char *extra;
    int code;
    const char *says;
  } bad[] = {
      {"--trace %s/a123_dyn_25degC_s1.csv --fit battery,capacity", 2,
       "the cycle gives the capacity"},
      {"--trace %s/a123_dyn_25degC_s1.csv --fit thermal", 2, "--cycle gives a battery's capacity"},
      {"--cycle-ref-eta 1.2", 1, "--cycle-ref-eta '1.2'"},
      {"--cycle-ref-eta 0.5", 1, "--cycle-ref-eta '0.5'"},
      {"--cycle-columns time_s", 1, "--cycle-columns 'time_s': expected TIME,CURRENT"},
      {"--cycle-columns time_s,amps", 1, "no column 'amps'"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    char extra[1024];
    snprintf(extra, sizeof extra, bad[k].extra, d);
    snprintf(args, sizeof args, "calibrate %s/scenarios/a123_cell_calibrate.cfg %s %s -o %s",
             SITS_CONFIGS, cyc, extra, cfg);
    cr_assert_eq(tu_cli(args, &out, &err), bad[k].code, "%s: %s", extra, err);
    cr_assert(strstr(err, bad[k].says), "%s: %s", extra, err);
    free(out), free(err);
  }
  /* one recording, a reference efficiency: refused; script 1 alone (no charge back): no cycle */
  snprintf(args, sizeof args,
           "calibrate %s/scenarios/a123_cell_calibrate.cfg --cycle %s/a123_dyn_25degC_s1.csv "
           "--cycle-ref-eta 0.99 -o %s",
           SITS_CONFIGS, d, cfg);
  cr_assert_eq(tu_cli(args, &out, &err), 2, "%s", err);
  cr_assert(strstr(err, "give two or more"), "%s", err);
  free(out), free(err);
  snprintf(args, sizeof args,
           "calibrate %s/scenarios/a123_cell_calibrate.cfg --cycle %s/a123_dyn_25degC_s1.csv -o %s",
           SITS_CONFIGS, d, cfg);
  cr_assert_eq(tu_cli(args, &out, &err), 1, "%s", err);
  cr_assert(strstr(err, "do not take the cell from full back to full"), "%s", err);
  free(out), free(err);
  /* the whole cycle read with the other sign: charge and discharge swap, and the message says
   * which sign it read with */
  snprintf(args, sizeof args,
           "calibrate %s/scenarios/a123_cell_calibrate.cfg %s "
           "--discharge-negative -o %s",
           SITS_CONFIGS, cyc, cfg);
  cr_assert_eq(tu_cli(args, &out, &err), 1, "%s", err);
  cr_assert(strstr(err, "read with negative current discharging"), "%s", err);
  free(out), free(err);
}

/* HotSpot's example1 commands with the program name swapped: the same files, the same
 * numbers (HotSpot prints 2 decimals: within 0.01 K of its own output). */
static double max_file_diff(const char *a, const char *b) {
  FILE *fa = fopen(a, "r"), *fb = fopen(b, "r");
  cr_assert(fa && fb, "%s %s", a, b);
  char la[65536], lb[65536];
  double worst = 0;
  size_t lines = 0;
  while (fgets(la, sizeof la, fa)) {
    cr_assert_not_null(fgets(lb, sizeof lb, fb), "%s is longer than %s", a, b);
    char *pa = la, *pb = lb;
    for (;;) { /* numbers compared; other tokens must be equal */
      while (*pa == ' ' || *pa == '\t')
        pa++;
      while (*pb == ' ' || *pb == '\t')
        pb++;
      if (!*pa || *pa == '\n')
        break;
      char *ea, *eb;
      double va = strtod(pa, &ea), vb = strtod(pb, &eb);
      if (ea != pa && eb != pb) {
        worst = fmax(worst, fabs(va - vb));
        pa = ea, pb = eb;
      } else {
        size_t n = strcspn(pa, " \t\n");
        cr_assert(strncmp(pa, pb, n) == 0, "line %zu: '%.20s' vs '%.20s'", lines + 1, pa, pb);
        pa += n, pb += n;
      }
    }
    lines++;
  }
  cr_assert_null(fgets(lb, sizeof lb, fb), "%s is shorter than %s", a, b);
  fclose(fa), fclose(fb);
  return worst;
}

Test(cli, hotspot_runs_hotspots_example_commands) {
  char args[4096], *out, *err, p[3][600];
  const char *in = SITS_TEST_DATA "/hotspot_ev6/inputs", *ref = SITS_TEST_DATA "/hotspot_ev6";
  snprintf(p[0], sizeof p[0], "%s/gcc.steady", tu_dir());
  snprintf(p[1], sizeof p[1], "%s/gcc.ttrace", tu_dir());
  snprintf(p[2], sizeof p[2], "%s/gcc.h5", tu_dir());
  snprintf(args, sizeof args,
           "hotspot -c %s/example.config -f %s/ev6.flp -p %s/gcc.ptrace -steady_file %s "
           "-model_type block",
           in, in, in, p[0]);
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  free(out), free(err);
  cr_assert_leq(max_file_diff(p[0], SITS_TEST_DATA "/hotspot_ev6/outputs_block/gcc.steady"),
                0.0101);
  snprintf(args, sizeof args,
           "hotspot -c %s/example.config -init_file %s -f %s/ev6.flp -p %s/gcc.ptrace -o %s "
           "-model_type block",
           in, p[0], in, in, p[1]);
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  free(out), free(err);
  char want[600];
  snprintf(want, sizeof want, "%s/outputs_block/gcc_from_init.ttrace", ref);
  double d = max_file_diff(p[1], want);
  cr_log_info("hotspot -o: %.3f K from HotSpot's gcc_from_init.ttrace", d);
  cr_assert_leq(d, 0.06);
  /* -o x.h5: our HDF5 layout */
  snprintf(args, sizeof args, "hotspot -c %s/example.config -f %s/ev6.flp -p %s/gcc.ptrace -o %s",
           in, in, in, p[2]);
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  free(out), free(err);
  snprintf(args, sizeof args, "h5dump -d /temp_c/IntReg_0 -A 0 %s > /dev/null", p[2]);
  cr_assert_eq(system(args), 0, "h5dump cannot read %s", p[2]);
  /* --precision 4 */
  snprintf(args, sizeof args,
           "hotspot -c %s/example.config -f %s/ev6.flp -p %s/gcc.ptrace -steady_file %s "
           "--precision 4",
           in, in, in, p[0]);
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  free(out), free(err);
  FILE *f = fopen(p[0], "r");
  char line[256];
  cr_assert(f && fgets(line, sizeof line, f));
  fclose(f);
  cr_assert(strstr(line, "L2_left\t324.3"), "%s", line);
  cr_assert_eq(strlen(strchr(line, '.') + 1), 5, "4 decimals and a newline: %s", line);
  /* -d dumps the effective options; the dump read back as -c gives the same steady state */
  char dump[600], again[600];
  snprintf(dump, sizeof dump, "%s/dump.config", tu_dir());
  snprintf(again, sizeof again, "%s/again.steady", tu_dir());
  snprintf(args, sizeof args,
           "hotspot -c %s/example.config -f %s/ev6.flp -p %s/gcc.ptrace -d %s -k_chip 150", in, in,
           in, dump);
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  free(out), free(err);
  snprintf(args, sizeof args, "hotspot -c %s -f %s/ev6.flp -p %s/gcc.ptrace -steady_file %s", dump,
           in, in, again);
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  free(out), free(err);
  snprintf(args, sizeof args,
           "hotspot -c %s/example.config -f %s/ev6.flp -p %s/gcc.ptrace -steady_file %s -k_chip "
           "150",
           in, in, in, p[0]);
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  free(out), free(err);
  cr_assert_leq(max_file_diff(p[0], again), 1e-9);
}

/* The grid steady state by the layered-grid solver (default) and by CHOLMOD (--cholmod): the
 * same to 1e-6 K at 6 decimals, and HotSpot's SuperLU answer within its 2-decimal print */
Test(cli, hotspot_grid_solvers_agree) {
  char args[2048], a[600], b[600], *out, *err;
  const char *in = SITS_TEST_DATA "/hotspot_ev6/inputs";
  snprintf(a, sizeof a, "%s/lg.steady", tu_dir());
  snprintf(b, sizeof b, "%s/chol.steady", tu_dir());
  for (int k = 0; k < 2; k++) {
    snprintf(args, sizeof args,
             "hotspot -c %s/example2.config -f %s/ev6.flp -p %s/gcc.ptrace -materials_file "
             "%s/example.materials -model_type grid -steady_file %s --precision 6%s",
             in, in, in, in, k ? b : a, k ? " --cholmod" : "");
    cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
    free(out), free(err);
  }
  cr_assert_leq(max_file_diff(a, b), 1.5e-6);
  cr_assert_leq(max_file_diff(a, SITS_TEST_DATA "/hotspot_ev6/outputs_grid64/gcc.steady.superlu"),
                0.005 + 0.005);
}

Test(cli, hotspot_errors) {
  char args[4096], *out, *err;
  const char *in = SITS_TEST_DATA "/hotspot_ev6/inputs";
  /* an unknown option on the command line: HotSpot ignores it, we stop (usage, exit 2) */
  snprintf(args, sizeof args, "hotspot -f %s/ev6.flp -p %s/gcc.ptrace -k_chp 100", in, in);
  cr_assert_eq(tu_cli(args, &out, &err), 2, "%s", err);
  cr_assert(strstr(err, "unknown option '-k_chp' (did you mean '-k_chip'?)"), "%s", err);
  free(out), free(err);
  /* no floorplan */
  snprintf(args, sizeof args, "hotspot -p %s/gcc.ptrace", in);
  cr_assert_eq(tu_cli(args, &out, &err), 2, "%s", err);
  free(out), free(err);
  /* a die larger than the spreader: exit 1 */
  snprintf(args, sizeof args,
           "hotspot -c %s/example.config -f %s/ev6.flp -p %s/gcc.ptrace -s_spreader 0.01 "
           "-steady_file %s/x.steady",
           in, in, in, tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 1, "%s", err);
  cr_assert(strstr(err, "must be smaller than the spreader"), "%s", err);
  cr_assert(strstr(err, "ev6.flp: the die ("), "the floorplan is named: %s", err);
  free(out), free(err);
  /* nothing half-written: the failed run left no x.steady */
  snprintf(args, sizeof args, "%s/x.steady", tu_dir());
  cr_assert_neq(access(args, F_OK), 0);
  snprintf(args, sizeof args, "hotspot --help");
  cr_assert_eq(tu_cli(args, &out, &err), 0);
  cr_assert(strstr(out, "--geometric-lateral"), "%s", out);
  free(out), free(err);
}

/* replay of the real Orin Nano JetPack 6 log on the shipped (estimated) Orin Nano network:
 * the contract's JSON, the HDF5 that h5dump reads, the plot. */
Test(cli, replay_orin_nano_log) {
  char args[4096], *out, *err;
  snprintf(args, sizeof args,
           "replay %s/scenarios/orin_nano_replay.cfg --trace %s/tegrastats/orin_nano_jp6_real.raw "
           "-o %s/replay.h5 --plot %s/replay.png",
           SITS_CONFIGS, SITS_TEST_DATA, tu_dir(), tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  const char *keys[] = {"\"sensors\":{\"temp_c.tj\":{\"node\":\"die\",\"rmse_c\":", "\"n\":661",
                        "\"duration_s\":", "\"interval_source\":\"timestamps\"",
                        "\"measured\":{\"die\":49.593"};
  for (size_t k = 0; k < 5; k++)
    cr_assert(strstr(out, keys[k]), "'%s' not in %s", keys[k], out);
  double rmse = 0;
  sscanf(strstr(out, keys[0]) + strlen(keys[0]), "%lf", &rmse);
  /* the network is an estimate, not a fit: the replay says how far it is (2.5 K measured) */
  cr_assert(rmse > 0.5 && rmse < 5.0, "tj rmse %g C", rmse);
  free(out), free(err);
  snprintf(args, sizeof args, "h5dump -d /simulated_c/temp_c.tj -A 0 %s/replay.h5 > /dev/null",
           tu_dir());
  cr_assert_eq(system(args), 0);
  snprintf(args, sizeof args, "%s/replay.png", tu_dir());
  cr_assert_eq(access(args, F_OK), 0);
  /* a malformed line under --strict, a column the trace lacks */
  snprintf(args, sizeof args,
           "replay %s/scenarios/orin_nano_replay.cfg --trace %s/tegrastats/malformed.log --strict",
           SITS_CONFIGS, SITS_TEST_DATA);
  cr_assert_eq(tu_cli(args, &out, &err), 1, "%s", err);
  cr_assert(strstr(err, "malformed.log:2:"), "%s", err);
  free(out), free(err);
}

/* sweep -o x.h5: one dataset per column, numbers as doubles, text as strings, rows in order. */
/* Rows after the first run in memory (the first row's scenario with the next row's values
 * applied); each row equals a full load with its values as --set: the same config_hash as
 * `run --summary json` with those --set, the same peak temperature. Then a sweep whose rows
 * all load (a string key varied too) gives the same figures. */
Test(cli, sweep_rows_in_memory_equal_loaded_ones, .timeout = 120) {
  char args[2048], *out, *err, path[512];
  char *sc = shipped("scenarios/orin_nx_video_enc.cfg");
  snprintf(args, sizeof args,
           "sweep %s --set duration_s=30 --vary ambient_c=20,31.5 "
           "--vary 'platform.thermal.links.[2].r_k_per_w=3,3.4' -o %s/mem.csv",
           sc, tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  free(out), free(err);
  snprintf(path, sizeof path, "%s/mem.csv", tu_dir());
  char *table = tu_slurp(path);
  /* every summary field as a column, the per-domain energies among them */
  cr_assert(
      strstr(table, ",energy_j.cpu,energy_j.gpu,energy_j.dla,energy_j.enc,verdict_ok,error\n"),
      "%.400s", table);
  const double amb[] = {20, 20, 31.5, 31.5}, r[] = {3, 3.4, 3, 3.4};
  const char *row = strchr(table, '\n') + 1;
  for (int k = 0; k < 4; k++, row = strchr(row, '\n') + 1) {
    char hash[17], cell[64];
    int index;
    double tj;
    cr_assert_eq(
        sscanf(row, "%d,%16[0-9a-f],%*[^,],%*[^,],%63[^,],%*[^,],%lf", &index, hash, cell, &tj), 4,
        "%.80s", row);
    snprintf(args, sizeof args,
             "run %s --set duration_s=30 --set ambient_c=%g "
             "--set 'platform.thermal.links.[2].r_k_per_w=%g' --summary json --quiet",
             sc, amb[k], r[k]);
    cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
    char want[64];
    snprintf(want, sizeof want, "\"config_hash\":\"%s\"", hash);
    cr_assert(strstr(out, want), "row %d: %s not in %.300s", k, want, strstr(out, "config_hash"));
    char tj_text[64];
    snprintf(tj_text, sizeof tj_text, "\"max_junction_temp_c\":%.10g", tj);
    cr_assert(strstr(out, tj_text), "row %d: %s", k, tj_text);
    free(out), free(err);
  }
  /* every row loading (the battery name varied as a string) */
  snprintf(args, sizeof args,
           "sweep %s --set duration_s=30 --vary ambient_c=20,31.5 "
           "--vary 'platform.thermal.links.[2].r_k_per_w=3,3.4' "
           "--vary 'platform.battery=nmc_3s1p_56wh' -o %s/load.csv",
           sc, tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  free(out), free(err);
  snprintf(path, sizeof path, "%s/load.csv", tu_dir());
  char *loaded = tu_slurp(path);
  /* the figures after the varied columns are the same */
  const char *a = strchr(table, '\n') + 1, *b = strchr(loaded, '\n') + 1;
  for (int k = 0; k < 4; k++) {
    const char *fa = a, *fb = b;
    for (int c = 0; c < 4; c++)
      fa = strchr(fa, ',') + 1;
    for (int c = 0; c < 5; c++)
      fb = strchr(fb, ',') + 1;
    size_t la = (size_t)(strchr(fa, '\n') - fa), lb = (size_t)(strchr(fb, '\n') - fb);
    cr_assert(la == lb && memcmp(fa, fb, la) == 0, "row %d: %.*s vs %.*s", k, (int)la, fa, (int)lb,
              fb);
    a = strchr(a, '\n') + 1, b = strchr(b, '\n') + 1;
  }
  free(table), free(loaded), free(sc);
}

Test(cli, sweep_writes_hdf5) {
  char args[2048], *out, *err, h5[600];
  snprintf(h5, sizeof h5, "%s/sweep.h5", tu_dir());
  snprintf(args, sizeof args,
           "sweep %s/scenarios/hotspot_3node_step.cfg --vary ambient_c=25,40 --vary "
           "duration_s=5,10 -j 2 -o %s",
           SITS_CONFIGS, h5);
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  free(out), free(err);
  snprintf(args, sizeof args, "h5dump -d /ambient_c %s | grep -q '25, 25, 40, 40'", h5);
  cr_assert_eq(system(args), 0, "ambient_c rows out of order");
  snprintf(args, sizeof args, "h5dump -d /end_reason %s | grep -q '\"duration\"'", h5);
  cr_assert_eq(system(args), 0, "end_reason not a string dataset");
  snprintf(args, sizeof args, "h5dump -d /max_junction_temp_c %s | grep -q H5T_IEEE_F64LE", h5);
  cr_assert_eq(system(args), 0);
  /* the index an integer; units on the numbers (a varied key's from the key table, the
   * outputs' from their names); which program wrote it */
  snprintf(args, sizeof args, "h5dump -d /index %s | grep -q H5T_STD_I64LE", h5);
  cr_assert_eq(system(args), 0, "index is not a 64-bit integer");
  const char *units[][2] = {
      {"ambient_c", "degC"}, {"duration_s", "s"}, {"max_junction_temp_c", "degC"},
      {"avg_power_w", "W"},  {"energy_j", "J"},   {"throttled_fraction", "1"},
      {"verdict_ok", "0/1"}, {"simulated_s", "s"}};
  for (int k = 0; k < 8; k++) {
    snprintf(args, sizeof args, "h5dump -a '/%s/units' %s | grep -q '\"%s\"'", units[k][0], h5,
             units[k][1]);
    cr_assert_eq(system(args), 0, "%s: units not %s", units[k][0], units[k][1]);
  }
  snprintf(args, sizeof args, "h5dump -a /sitsenergy_version %s | grep -q '\"%s\"'", h5,
           sits_version());
  cr_assert_eq(system(args), 0, "no sitsenergy_version attribute");
  /* a column's type is the column's, not its values': this platform has no battery, so its
   * battery figures are all empty, and they are doubles (NAN) with units as on a platform
   * with one (they were 1-byte strings); the hash and the error stay text */
  const char *typed[][3] = {{"battery.runtime_s", "H5T_IEEE_F64LE", "s"},
                            {"battery.final_soc", "H5T_IEEE_F64LE", "1"},
                            {"time_to_throttle_s", "H5T_IEEE_F64LE", "s"},
                            {"config_hash", "H5T_STRING", NULL},
                            {"error", "H5T_STRING", NULL}};
  for (int k = 0; k < 5; k++) {
    snprintf(args, sizeof args, "h5dump -H -d '/%s' %s | grep -q %s", typed[k][0], h5,
             typed[k][1]);
    cr_assert_eq(system(args), 0, "%s: not %s", typed[k][0], typed[k][1]);
    if (typed[k][2]) {
      snprintf(args, sizeof args, "h5dump -a '/%s/units' %s | grep -q '\"%s\"'", typed[k][0], h5,
               typed[k][2]);
      cr_assert_eq(system(args), 0, "%s: units not %s", typed[k][0], typed[k][2]);
    }
  }
}

/* --shard slurm: three tasks of a job array (--array=1-3: MIN 1) split a sweep; their rows,
 * joined by index, are the rows of the whole sweep byte for byte; outside an array it says
 * what is missing. */
Test(cli, sweep_shard_slurm) {
  char cmd[4096], path[600];
  const char *sc = SITS_CONFIGS "/scenarios/hotspot_3node_step.cfg";
  snprintf(cmd, sizeof cmd, "%s sweep %s --vary ambient_c=20:45:6 -o %s/all.csv 2>/dev/null",
           SITS_CLI, sc, tu_dir());
  cr_assert_eq(system(cmd), 0);
  for (int task = 1; task <= 3; task++) {
    snprintf(cmd, sizeof cmd,
             "SLURM_ARRAY_TASK_ID=%d SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=3 %s sweep %s "
             "--vary ambient_c=20:45:6 --shard slurm -o %s/part%d.csv 2>/dev/null",
             task, SITS_CLI, sc, tu_dir(), task);
    cr_assert_eq(system(cmd), 0, "task %d", task);
  }
  snprintf(cmd, sizeof cmd,
           "cd %s && (head -1 part1.csv; tail -q -n +2 part1.csv part2.csv part3.csv | sort -t, "
           "-k1,1n) > joined.csv && cmp -s joined.csv all.csv",
           tu_dir());
  cr_assert_eq(system(cmd), 0, "the shards' rows are not the sweep's");
  snprintf(path, sizeof path, "%s/part2.csv", tu_dir());
  char *part = tu_slurp(path);
  cr_assert(strstr(part, "\n1,") && strstr(part, "\n4,") && !strstr(part, "\n0,"), "%s", part);
  free(part);
  char args[2048], *out, *err;
  snprintf(args, sizeof args, "sweep %s --vary ambient_c=20,30 --shard slurm -o %s/x.csv", sc,
           tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 1);
  cr_assert(strstr(err, "SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT are not set"), "%s", err);
  free(out), free(err);
}

/* The values of column @p col (0-based) of the CSV text @p t, rows after the header. */
static size_t column(const char *t, int col, double *out, size_t max) {
  size_t n = 0;
  for (const char *row = strchr(t, '\n'); row && row[1] && n < max; row = strchr(row + 1, '\n')) {
    const char *c = row + 1;
    for (int k = 0; k < col && c; k++)
      c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL;
    if (c)
      out[n++] = strtod(c, NULL);
  }
  return n;
}

static char *sampled(const char *opts, const char *name) {
  char cmd[4096], path[600];
  snprintf(path, sizeof path, "%s/%s", tu_dir(), name);
  snprintf(cmd, sizeof cmd,
           "%s sweep %s/scenarios/hotspot_3node_step.cfg --set duration_s=1 %s -o %s", SITS_CLI,
           SITS_CONFIGS, opts, path);
  cr_assert_eq(system(cmd), 0, "%s", cmd);
  return tu_slurp(path);
}

/* Sampled sweeps: a Latin hypercube puts one sample in each of the N strata of every key; a
 * Sobol draw of normal(30, 2) has the distribution's mean and deviation (quasi-random error
 * ~ log N / N: 0.05 at N = 256), a triangular one its mean (a + c + b)/3, a choice its
 * values in equal shares; the same seed gives the same rows, another seed others; --vary axes
 * cross the samples (the sample fastest); malformed specs are usage errors. */
Test(cli, sweep_sampling) {
  double v[1024];
  char *t =
      sampled("--dist 'ambient_c=uniform(20,45)' --dist 'platform.thermal.links.[2].r_k_per_w="
              "uniform(0.1,0.5)' --sample 50 --method lhs --seed 7",
              "lhs.csv");
  for (int col = 2; col <= 3; col++) {
    double lo = col == 2 ? 20 : 0.1, w = col == 2 ? 25 : 0.4;
    cr_assert_eq(column(t, col, v, 1024), 50);
    int seen[50] = {0};
    for (int k = 0; k < 50; k++) {
      int s = (int)floor((v[k] - lo) / w * 50);
      cr_assert(s >= 0 && s < 50, "%g outside", v[k]);
      seen[s]++;
    }
    for (int s = 0; s < 50; s++)
      cr_assert_eq(seen[s], 1, "column %d stratum %d holds %d samples", col, s, seen[s]);
  }
  char *again = sampled("--dist 'ambient_c=uniform(20,45)' --dist 'platform.thermal.links.[2]."
                        "r_k_per_w=uniform(0.1,0.5)' --sample 50 --method lhs --seed 7",
                        "lhs2.csv");
  char *other = sampled("--dist 'ambient_c=uniform(20,45)' --dist 'platform.thermal.links.[2]."
                        "r_k_per_w=uniform(0.1,0.5)' --sample 50 --method lhs --seed 8",
                        "lhs3.csv");
  cr_assert_str_eq(t, again, "the same seed gave other rows");
  cr_assert_str_neq(t, other);
  free(t), free(again), free(other);
  t = sampled("--dist 'ambient_c=normal(30,2)' --sample 256 --method sobol", "sobol.csv");
  cr_assert_eq(column(t, 2, v, 1024), 256);
  double m = 0, q = 0;
  for (int k = 0; k < 256; k++)
    m += v[k] / 256;
  for (int k = 0; k < 256; k++)
    q += (v[k] - m) * (v[k] - m) / 255;
  cr_assert_float_eq(m, 30.0, 0.05, "mean %g", m);
  cr_assert_float_eq(sqrt(q), 2.0, 0.05, "std %g", sqrt(q));
  free(t);
  t = sampled("--dist 'ambient_c=triangular(20,25,40)' --sample 512 --method halton", "tri.csv");
  cr_assert_eq(column(t, 2, v, 1024), 512);
  m = 0;
  for (int k = 0; k < 512; k++) {
    m += v[k] / 512;
    cr_assert(v[k] >= 20 && v[k] <= 40);
  }
  cr_assert_float_eq(m, (20 + 25 + 40) / 3.0, 0.05, "mean %g", m);
  free(t);
  t = sampled("--dist 'ambient_c=choice(25,35)' --sample 100 --method lhs --vary duration_s=1,2",
              "choice.csv");
  cr_assert_eq(column(t, 3, v, 1024), 200); /* the --vary axis comes first, then the --dist keys */
  int low = 0;
  for (int k = 0; k < 200; k++)
    low += v[k] == 25;
  cr_assert_eq(low, 100);
  cr_assert(strstr(t, "\n0,") && strstr(t, "\n199,"));
  cr_assert_eq(column(t, 2, v, 1024), 200); /* the grid axis: duration 1 then 2 */
  cr_assert_float_eq(v[0], 1, 0);
  cr_assert_float_eq(v[99], 1, 0);
  cr_assert_float_eq(v[100], 2, 0);
  free(t);
  const char *bad[] = {"--dist 'ambient_c=gamma(1,2)' --sample 3",
                       "--dist 'ambient_c=uniform(5,1)' --sample 3",
                       "--dist 'ambient_c=normal(1,0)' --sample 3",
                       "--dist 'ambient_c=uniform(1,2)'",
                       "--sample 3",
                       "--dist 'ambient_c=uniform(1,2)' --sample 3 --method grid",
                       "--dist 'ambient_c=uniform(1,2)' --dist 'ambient_c=uniform(3,4)' --sample 3",
                       "--vary ambient_c=1,2 --dist 'ambient_c=uniform(1,2)' --sample 3"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    char args[2048], *out, *err;
    snprintf(args, sizeof args, "sweep %s/scenarios/hotspot_3node_step.cfg %s -o %s/b.csv",
             SITS_CONFIGS, bad[k], tu_dir());
    cr_assert_eq(tu_cli(args, &out, &err), 2, "%s: %s", bad[k], err);
    cr_assert(strstr(err, "--dist") || strstr(err, "--sample") || strstr(err, "--method"), "%s",
              err);
    free(out), free(err);
  }
}

/* The probabilistic summary, by hand: six ambients 20..45 C on the 3-node stack put the
 * junction at ambient + 3.003 C; mean 32.5, sample std 9.3541 (sqrt(437.5/5)), p5 with GSL's
 * (n-1)p interpolation 20 + 0.25 x 5 = 21.25; a 40 C limit is broken by 2 of 6 rows:
 * p = 1/3, Wilson 95 % [0.0967, 0.6999] (z = 1.96: centre (p + z^2/2n)/(1 + z^2/n) = 0.3983,
 * half-width 0.3016); with -o - the summary goes to stderr. */
Test(cli, sweep_probabilistic_summary) {
  char args[2048], *out, *err;
  snprintf(args, sizeof args,
           "sweep %s/scenarios/hotspot_3node_step.cfg --vary ambient_c=20:45:6 --set "
           "max_junction_temp_c=40 -o %s/p.csv --summary json",
           SITS_CONFIGS, tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  double mean, sd, p5, p, lo, hi;
  const char *a = strstr(out, "\"ambient_c\":{");
  cr_assert_not_null(a, "%s", out);
  cr_assert_eq(sscanf(a, "\"ambient_c\":{\"mean\":%lf,\"std\":%lf,\"p5\":%lf", &mean, &sd, &p5), 3);
  cr_assert_float_eq(mean, 32.5, 1e-9);
  cr_assert_float_eq(sd, sqrt(437.5 / 5), 1e-6);
  cr_assert_float_eq(p5, 21.25, 1e-9);
  const char *t = strstr(out, "\"max_junction_temp_c\":{\"mean\":");
  cr_assert_not_null(t);
  cr_assert_eq(sscanf(t, "\"max_junction_temp_c\":{\"mean\":%lf", &mean), 1);
  cr_assert_float_eq(mean, 32.5 + 3.003, 0.001);
  const char *v = strstr(out, "\"violations\":{\"max_junction_temp_c\":{");
  cr_assert_not_null(v, "%s", out);
  cr_assert_eq(sscanf(v, "\"violations\":{\"max_junction_temp_c\":{\"p\":%lf,\"ci95\":[%lf,%lf]",
                      &p, &lo, &hi),
               3);
  cr_assert_float_eq(p, 1.0 / 3, 1e-9);
  cr_assert_float_eq(lo, 0.0967, 1e-3);
  cr_assert_float_eq(hi, 0.6999, 1e-3);
  cr_assert(strstr(out, "\"violated\":2,\"n\":6"), "%s", out);
  free(out), free(err);
  snprintf(args, sizeof args,
           "sweep %s/scenarios/hotspot_3node_step.cfg --vary ambient_c=20,30 -o - --summary text",
           SITS_CONFIGS);
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  cr_assert(!strncmp(out, "index,config_hash", 17), "%s", out);
  cr_assert(strstr(err, "sweep of 2 rows (0 failed)"), "%s", err);
  free(out), free(err);
}

/* sweep-merge: three --shard K/N tables, given in any order and one twice, join into the whole
 * sweep's table byte for byte (and into HDF5); a row that differs between inputs, a table of
 * another sweep and an output that is an input are refused. */
Test(cli, sweep_merge_joins_shards) {
  char cmd[8192];
  const char *sc = SITS_CONFIGS "/scenarios/hotspot_3node_step.cfg";
  const char *d = tu_dir();
  snprintf(cmd, sizeof cmd,
           "cd %s && %s sweep %s --vary ambient_c=20:45:6 -o all.csv 2>/dev/null && "
           "for k in 1 2 3; do %s sweep %s --vary ambient_c=20:45:6 --shard $k/3 -o s$k.csv "
           "2>/dev/null || exit 1; done && %s sweep-merge joined.csv s3.csv s1.csv s2.csv s1.csv "
           "&& cmp -s joined.csv all.csv && %s sweep-merge joined.h5 s1.csv s2.csv s3.csv && "
           "h5dump -d /ambient_c joined.h5 | grep -q '20, 25, 30, 35, 40, 45'",
           d, SITS_CLI, sc, SITS_CLI, sc, SITS_CLI, SITS_CLI);
  cr_assert_eq(system(cmd), 0, "%s", cmd);
  char args[2048], *out, *err;
  snprintf(cmd, sizeof cmd,
           "cd %s && sed '2s/,20,/,21,/' s1.csv > bad.csv && "
           "%s sweep %s --vary duration_s=1,2 -o other.csv 2>/dev/null",
           d, SITS_CLI, sc);
  cr_assert_eq(system(cmd), 0);
  snprintf(args, sizeof args, "sweep-merge %s/m.csv %s/all.csv %s/bad.csv", d, d, d);
  cr_assert_eq(tu_cli(args, &out, &err), 1);
  cr_assert(strstr(err, "bad.csv:2: row 0 differs from") ||
                strstr(err, "all.csv:2: row 0 differs from"),
            "%s", err);
  free(out), free(err);
  snprintf(args, sizeof args, "sweep-merge %s/m.csv %s/all.csv %s/other.csv", d, d, d);
  cr_assert_eq(tu_cli(args, &out, &err), 1);
  cr_assert(strstr(err, "other.csv:1: its header differs"), "%s", err);
  free(out), free(err);
  snprintf(args, sizeof args, "sweep-merge %s/m.csv %s/s1.csv %s/s3.csv", d, d, d);
  cr_assert_eq(tu_cli(args, &out, &err), 1);
  cr_assert(strstr(err, "row 1 is in no input"), "%s", err);
  free(out), free(err);
  snprintf(args, sizeof args, "sweep-merge %s/all.csv %s/all.csv", d, d);
  cr_assert_eq(tu_cli(args, &out, &err), 1);
  cr_assert(strstr(err, "an output would replace the input"), "%s", err);
  free(out), free(err);
}

/* run --summary json carries its --set overrides and the merged configuration's hash, so the
 * JSON lines of a GNU parallel (or shell) loop say which run they are; the hash is the one a
 * sweep row of the same values carries. */
Test(cli, summary_json_carries_overrides_and_hash) {
  char args[2048], *out, *err;
  const char *sc = SITS_CONFIGS "/scenarios/hotspot_3node_step.cfg";
  /* the overrides in the sweep's order (its --set, then the varied key): --set moves a key
   * to the end of its group, so the merged text, and its hash, follow the order */
  snprintf(args, sizeof args, "run %s --set 'name=\"a b\"' --set ambient_c=35 --summary json", sc);
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  cr_assert(strstr(out, "\"overrides\":{\"name\":\"\\\"a b\\\"\",\"ambient_c\":\"35\"}"), "%s",
            out);
  const char *h = strstr(out, "\"config_hash\":\"");
  cr_assert_not_null(h);
  char hash[17];
  cr_assert_eq(sscanf(h, "\"config_hash\":\"%16[0-9a-f]\"", hash), 1);
  free(out), free(err);
  snprintf(args, sizeof args, "sweep %s --set 'name=\"a b\"' --vary ambient_c=35 -o -", sc);
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  char row[64];
  snprintf(row, sizeof row, "\n0,%s,35,", hash);
  cr_assert(strstr(out, row), "no row with hash %s: %s", hash, out);
  free(out), free(err);
}

/* sweep --plot: one varied key, two (a heat map) and a sampled sweep each give a PNG (gnuplot
 * drew it: the file starts with the PNG signature and the table is written as without
 * --plot); an unknown --plot-y column and --plot - are refused before any run. */
Test(cli, sweep_plots) {
  const char *sc = SITS_CONFIGS "/scenarios/hotspot_3node_step.cfg";
  const char *cases[] = {"--vary ambient_c=20:45:4 --plot-y max_junction_temp_c,avg_power_w",
                         "--vary ambient_c=20:45:3 --vary 'platform.thermal.links.[2].r_k_per_w="
                         "0.1:0.3:3'",
                         "--dist 'ambient_c=normal(30,3)' --sample 30",
                         /* a column without values (no battery): a panel that says so (gnuplot
                          * failed on it: "x range is invalid") */
                         "--vary ambient_c=20,30 --plot-y max_junction_temp_c,battery.runtime_s",
                         "--dist 'ambient_c=normal(30,3)' --sample 8 --plot-y battery.runtime_s"};
  for (int k = 0; k < 5; k++) {
    char args[2048], png[600], *out, *err;
    snprintf(png, sizeof png, "%s/plot%d.png", tu_dir(), k);
    snprintf(args, sizeof args,
             "sweep %s --set max_junction_temp_c=45 %s -o %s/plot%d.csv "
             "--plot %s",
             sc, cases[k], tu_dir(), k, png);
    cr_assert_eq(tu_cli(args, &out, &err), 0, "%s: %s", cases[k], err);
    char *img = tu_slurp(png);
    cr_assert(!strncmp(img, "\x89PNG", 4), "%s: no PNG", cases[k]);
    free(img), free(out), free(err);
  }
  char args[2048], *out, *err;
  snprintf(args, sizeof args,
           "sweep %s --vary ambient_c=20,30 -o %s/n.csv --plot %s/n.png "
           "--plot-y nope",
           sc, tu_dir(), tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 2);
  cr_assert(strstr(err, "--plot-y 'nope': the table has no such column"), "%s", err);
  free(out), free(err);
  snprintf(args, sizeof args, "sweep %s --vary ambient_c=20,30 -o %s/n.csv --plot -", sc, tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 1);
  cr_assert(strstr(err, "--plot -: this output cannot stream"), "%s", err);
  free(out), free(err);
}

/* Runs `sitsenergy ARGS -o DIR/tty.EXT` under script(1) (stderr a pseudo-terminal) and
 * `sitsenergy ARGS -o DIR/file.EXT` with stderr to a file; both must succeed. Returns what the
 * terminal showed and what the file got (free both). */
static void run_on_terminal_and_file(const char *args, const char *ext, char **tty, char **file) {
  char cmd[4096];
#if defined(__SANITIZE_ADDRESS__)
  /* what a terminal shows is checked in the regular build; under the sanitizers these slow
   * runs (each twice, 2 s at least before a line shows) only repeat what other tests run */
  cr_skip_test("a terminal's progress line: checked in the regular build");
#endif
  /* a machine without script(1) or a pseudo-terminal (a minimal chroot without /dev/pts)
   * cannot show a terminal: skipped, with the reason */
  if (system("command -v script > /dev/null 2>&1") != 0)
    cr_skip_test("no script(1) (util-linux/bsdutils): no terminal to run on");
  if (system("script -qec true /dev/null > /dev/null 2>&1") != 0)
    cr_skip_test("script(1) found no pseudo-terminal (is /dev/pts mounted?)");
  snprintf(cmd, sizeof cmd, "script -qec '%s %s -o %s/tty.%s' /dev/null > %s/tty.out", SITS_CLI,
           args, tu_dir(), ext, tu_dir());
  cr_assert_eq(system(cmd), 0, "%s", cmd);
  snprintf(cmd, sizeof cmd, "%s/tty.out", tu_dir());
  *tty = tu_slurp(cmd);
  snprintf(cmd, sizeof cmd, "%s %s -o %s/file.%s > /dev/null 2> %s/file.err", SITS_CLI, args,
           tu_dir(), ext, tu_dir());
  cr_assert_eq(system(cmd), 0, "%s", cmd);
  snprintf(cmd, sizeof cmd, "%s/file.err", tu_dir());
  *file = tu_slurp(cmd);
}

/* A sweep that runs for more than 2 s shows "N of M combinations" on a terminal, and nothing
 * when stderr is a file. */
Test(cli, sweep_progress_on_a_terminal, .timeout = 120) {
  char *tty, *file;
  /* ~4 s on the exponential path evaluating every tick (the progress line waits 2 s; the
   * quiet spans would take it under 1 s) */
  run_on_terminal_and_file("sweep " SITS_CONFIGS "/scenarios/orin_nx_video_enc.cfg --set "
                           "duration_s=1800 --set solver.skip_quiet_ticks=false "
                           "--vary ambient_c=20:45:200",
                           "csv", &tty, &file);
  cr_assert(strstr(tty, "of 200 combinations"), "no progress line: %.200s", tty);
  cr_assert(!strstr(file, "combinations"), "%s", file);
  free(tty), free(file);
}

/* A battery fit that runs for more than 2 s shows its start, evaluations and residual on a
 * terminal, and nothing when stderr is a file. */
Test(cli, calibrate_battery_progress_on_a_terminal, .timeout = 300) {
  char *tty, *file;
  /* rows over temperature from two NN cycles: ~5 s in RelWithDebInfo */
  run_on_terminal_and_file("calibrate " SITS_VALIDATION_DATA
                           "/../cases/pan18650pf_us06.cfg --trace " SITS_VALIDATION_DATA
                           "/pan18650pf_nn_m10degC.csv --trace " SITS_VALIDATION_DATA
                           "/pan18650pf_nn_m20degC.csv --temp-col temp_c --fit battery,rows "
                           "--train-fraction 0.1",
                           "cfg", &tty, &file);
  /* which start is running at 2 s depends on the machine: any of the four */
  cr_assert(strstr(tty, "sitsenergy: battery fit, start ") && strstr(tty, " of 4, "),
            "no progress line: %.300s", tty);
  cr_assert(!strstr(file, "battery fit, start"), "%s", file);
  free(tty), free(file);
}

/* An order search that runs for more than 2 s (three orders, three folds: 12 fits, ~7 s in
 * RelWithDebInfo) shows its fits done, the time so far and the time left on a terminal, and
 * nothing when stderr is a file. */
Test(cli, calibrate_orders_progress_on_a_terminal, .timeout = 300) {
  char *tty, *file;
  run_on_terminal_and_file("calibrate " SITS_VALIDATION_DATA
                           "/../cases/agx_orin_jtop.cfg --trace " SITS_VALIDATION_DATA
                           "/agx_orin_jtop.csv --fit thermal --orders 1,2,3 --kfold 3",
                           "cfg", &tty, &file);
  cr_assert(strstr(tty, "sitsenergy: fit ") && strstr(tty, " of 12 (orders and folds), "),
            "no progress line: %.300s", tty);
  cr_assert(strstr(tty, " s left"), "no time left: %.300s", tty);
  cr_assert(!strstr(file, "orders and folds"), "%s", file);
  free(tty), free(file);
}

/* sweep --series DIR: each combination's time series in DIR/<index>.h5, the same series as a
 * run of that combination writes; a missing folder is refused before any run. */
Test(cli, sweep_series_per_combination) {
  char cmd[4096];
  const char *sc = SITS_CONFIGS "/scenarios/hotspot_3node_step.cfg", *d = tu_dir();
  snprintf(
      cmd, sizeof cmd,
      "cd %s && mkdir -p ser && %s sweep %s --vary ambient_c=20,30,40 -j 2 -o ser.csv "
      "--series ser 2>/dev/null && ls ser | tr '\\n' ' ' | grep -qx '0.h5 1.h5 2.h5 ' && "
      "%s run %s --set ambient_c=30 -o one.h5 --quiet >/dev/null && "
      "h5dump -d /temp_c/chip ser/1.h5 | grep -v -e DATASPACE -e HDF5 > a.txt && "
      "h5dump -d /temp_c/chip one.h5 | grep -v -e DATASPACE -e HDF5 > b.txt && cmp -s a.txt b.txt",
      d, SITS_CLI, sc, SITS_CLI, sc);
  cr_assert_eq(system(cmd), 0, "%s", cmd);
  char args[2048], *out, *err;
  snprintf(args, sizeof args, "sweep %s --vary ambient_c=20 -o %s/x.csv --series %s/nodir", sc, d,
           d);
  cr_assert_eq(tu_cli(args, &out, &err), 1);
  cr_assert(strstr(err, "nodir: not a folder"), "%s", err);
  free(out), free(err);
}

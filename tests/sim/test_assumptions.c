/*
 * test_assumptions.c - what an answer rests on (issue #37): every summary (text, JSON, HDF5)
 * lists the scenario's assumptions: the platform's estimated values, the cooling (a fan curve
 * in force, or one resistance per path), a pack without temperature dependence or thermal
 * node, roofline workload rates, the loader's notes. And the fans' duties over a run.
 */
#include "test_util.h"

#include <dirent.h>
#include <hdf5.h>

/* Whether some assumption of @p sc contains @p text. */
static bool assumes(const sits_scenario *sc, const char *text) {
  for (size_t k = 0; k < sits_scenario_assumption_count(sc); k++)
    if (strstr(sits_scenario_assumption(sc, k), text))
      return true;
  return false;
}

static void dump(const sits_scenario *sc) {
  for (size_t k = 0; k < sits_scenario_assumption_count(sc); k++)
    cr_log_info("assumption %zu: %s", k, sits_scenario_assumption(sc, k));
}

/* The product's example on the Orin NX: estimated platform values, L4T's fan curve, a pack
 * (with an estimated Arrhenius factor) at the ambient, roofline rates, and the pack's note;
 * with the measured Leaf cell, which has no temperature dependence, that is said. */
Test(assumptions, the_example_on_the_orin_nx) {
  sits_scenario *sc = tu_shipped("examples/video_enc.cfg", NULL, 0);
  dump(sc);
  cr_assert(assumes(sc, "platform 'jetson_orin_nx': estimated, not sourced"));
  cr_assert(assumes(sc, "OPP voltages (BPMP firmware's tables are not public)"));
  cr_assert(assumes(sc, "fan 'fan' in force: by its trips on 'die' (37.5 C -> duty 0.1429, "));
  cr_assert(assumes(sc, "67.5 C -> duty 1; hysteresis 2.5 C), duty 0 below them"));
  cr_assert_not(assumes(sc, "no fan curve"));
  cr_assert_not(assumes(sc, "no temperature dependence"));
  /* its resistances feel the temperature (an Arrhenius estimate), its capacity does not */
  cr_assert(assumes(sc, "pack 'nmc_3s1p_56wh': one capacity at every temperature"));
  cr_assert(assumes(sc, "pack 'nmc_3s1p_56wh': its own thermal node (250 J/K, 7 K/W to the "
                        "ambient: the pack file's estimates), not coupled to the board"));
  cr_assert(assumes(sc, "workload 'video_enc': rates from the roofline"));
  cr_assert(assumes(sc, "enc at its stated 497.7 Mpixel/s"));
  /* the notes are among them, last */
  size_t n = sits_scenario_assumption_count(sc), nn = sits_scenario_note_count(sc);
  cr_assert_geq(nn, 1);
  for (size_t k = 0; k < nn; k++)
    cr_assert_str_eq(sits_scenario_assumption(sc, n - nn + k), sits_scenario_note(sc, k));
  cr_assert_null(sits_scenario_assumption(sc, n));
  sits_scenario_free(sc);
  const char *leaf[] = {"platform.battery=\"nissan_leaf_cell\""};
  sc = tu_shipped("examples/video_enc.cfg", leaf, 1);
  cr_assert(assumes(sc, "pack 'nissan_leaf_cell': no temperature dependence"));
  sits_scenario_free(sc);
}

/* The Orin NX's governor has a power cap whose target is the scenario's tdp_budget_w: the
 * example sets one (the cap in force, nothing said); without it the cap holds nothing, and the
 * summary says so instead of leaving a reader of the platform file to assume a cap. */
Test(assumptions, a_power_cap_without_its_target_is_said) {
  sits_scenario *sc = tu_shipped("examples/video_enc.cfg", NULL, 0);
  cr_assert_not(assumes(sc, "power_cap"));
  sits_scenario_free(sc);
  char text[1024];
  snprintf(text, sizeof text,
           "platform = \"%s/platforms/jetson_orin_nx.cfg\";\n"
           "workload_profile = \"video_enc\";\nduration_s = 10.0;\n",
           SITS_CONFIGS);
  sc = tu_load("uncapped.cfg", text);
  dump(sc);
  cr_assert(assumes(sc, "platform.governor.power_cap not in force: the scenario sets no "
                        "tdp_budget_w"));
  sits_scenario_free(sc);
  /* a platform without a cap says nothing of one, with or without a budget */
  snprintf(text, sizeof text,
           "platform = \"%s/platforms/raspberry_pi5.cfg\";\n"
           "workload_profile = \"video_enc\";\nduration_s = 10.0;\n",
           SITS_CONFIGS);
  sc = tu_load("no_cap.cfg", text);
  cr_assert_not(assumes(sc, "power_cap"));
  sits_scenario_free(sc);
}

/* A fan whose trips differ in hysteresis: each trip states its own. */
Test(assumptions, each_trip_its_own_hysteresis) {
  const char *sets[] = {"platform.fans.[0].trips.[1].hysteresis_c=4.0"};
  sits_scenario *sc = tu_shipped("examples/video_enc.cfg", sets, 1);
  dump(sc);
  cr_assert(assumes(sc, "(37.5 C (hysteresis 2.5 C) -> duty 0.1429, 42.5 C (hysteresis 4 C) -> "
                        "duty 0.2857, 47.5 C (hysteresis 2.5 C) -> duty 0.4286"));
  cr_assert(assumes(sc, "67.5 C (hysteresis 2.5 C) -> duty 1), duty 0 below them"));
  cr_assert_not(assumes(sc, "; hysteresis"));
  sits_scenario_free(sc);
}

/* What the user states is not said to be assumed: a measured rate, a pack with an activation
 * energy on a node of its own, a platform that estimates nothing. */
Test(assumptions, only_what_holds) {
  char *path =
      tu_write("measured.cfg",
               "duration_s = 10.0;\n"
               "platform = { name = \"p\"; estimated = [];\n"
               "  thermal = { nodes = ({ name = \"die\"; c_j_per_k = 1.0; },\n"
               "                       { name = \"pack\"; c_j_per_k = 100.0; });\n"
               "              links = ({ a = \"die\"; b = \"ambient\"; r_k_per_w = 2.0; },\n"
               "                       { a = \"pack\"; b = \"ambient\"; r_k_per_w = 5.0; }); };\n"
               "  battery = \"a123_lfp_cell_temps\"; };\n"
               "workload = { phases = ({ duration_s = 10.0; power_w = { die = 1.0; }; }); };\n");
  const char *sets[] = {"platform.battery.node=\"pack\""};
  sits_scenario *sc = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_scenario_load(path, sets, 1, &sc, &err), SITS_OK, "%s", err.msg);
  free(path);
  dump(sc);
  cr_assert_not(assumes(sc, "estimated"));
  cr_assert_not(assumes(sc, "temperature dependence"));
  cr_assert_not(assumes(sc, "one capacity")); /* its C/30 tests' capacity rows */
  cr_assert_not(assumes(sc, "thermal node"));
  cr_assert_not(assumes(sc, "roofline"));
  cr_assert(assumes(sc, "no fan curve"));
  sits_scenario_free(sc);
}

/* Every shipped platform says what it estimates (platform.estimated, [] for none), and the
 * example's summary on it lists each word of it. */
Test(assumptions, every_shipped_platform_states_its_estimates, .timeout = 120) {
  char dir[512];
  snprintf(dir, sizeof dir, "%s/platforms", SITS_CONFIGS);
  DIR *d = opendir(dir);
  cr_assert_not_null(d);
  struct dirent *e;
  size_t seen = 0;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 4, ".cfg") != 0)
      continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    char *text = tu_slurp(path);
    cr_assert(strstr(text, "estimated = ["), "%s states no platform.estimated", e->d_name);
    free(text);
    sits_scenario *sc = NULL;
    sits_err err = {0};
    snprintf(path, sizeof path, "%s/platforms/%s", SITS_CONFIGS, e->d_name);
    /* the platform alone (a thermal-only one has no domains for the example's workload) */
    char scen[2048];
    snprintf(scen, sizeof scen,
             "platform = \"%s\";\nduration_s = 1.0;\nworkload = { phases = ({ duration_s = 1.0; "
             "}); };\n",
             path);
    char *file = tu_write("platform_only.cfg", scen);
    int rc = sits_scenario_load(file, NULL, 0, &sc, &err);
    free(file);
    cr_assert_eq(rc, SITS_OK, "%s: %s", e->d_name, err.msg);
    const char *est = NULL;
    for (size_t k = 0; k < sits_scenario_assumption_count(sc); k++)
      if (strstr(sits_scenario_assumption(sc, k), "estimated, not sourced"))
        est = sits_scenario_assumption(sc, k);
    bool none = strcmp(e->d_name, "hotspot_3node.cfg") == 0;
    cr_assert(none ? !est : est != NULL, "%s: %s", e->d_name, est ? est : "(none)");
    sits_scenario_free(sc);
    seen++;
  }
  closedir(d);
  cr_assert_geq(seen, 12);
}

Test(assumptions, a_malformed_estimated_list_is_refused_at_its_line) {
  char msg[8192];
  tu_load_fail("bad_estimated.cfg",
               "platform = { name = \"p\";\n"
               "  estimated = [1.0, 2.0];\n"
               "  thermal = { nodes = ({ name = \"die\"; c_j_per_k = 1.0; });\n"
               "              links = ({ a = \"die\"; b = \"ambient\"; r_k_per_w = 2.0; }); }; };\n"
               "workload = { phases = ({ duration_s = 1.0; }); };\n",
               msg, sizeof msg);
  cr_assert(strstr(msg, "bad_estimated.cfg:2:"), "%s", msg);
  cr_assert(strstr(msg, "estimated"), "%s", msg);
}

/* The Raspberry Pi 5 at 45 C: the fan curve is in force and said; its duties over the run
 * are those of its trips (the die passes 75 C: the top level, 0.98), the mean between the
 * first trip's and the top; the text, JSON and HDF5 summaries carry the assumptions. */
Test(assumptions, the_fan_curve_in_force_in_every_summary, .timeout = 120) {
  char args[1024], *out, *err;
  char h5[512];
  snprintf(h5, sizeof h5, "%s/pi5.h5", tu_dir());
  snprintf(args, sizeof args,
           "run %s/examples/video_enc.cfg --set platform=raspberry_pi5 --set ambient_c=45 "
           "--summary json --quiet -o %s",
           SITS_CONFIGS, h5);
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  cr_assert(strstr(out, "\"fan 'fan' in force: by its trips on 'die' (50 C -> duty 0.294, 60 C "
                        "-> duty 0.49, 67.5 C -> duty 0.686, 75 C -> duty 0.98; hysteresis 5 C)"),
            "%s", out);
  const char *fans = strstr(out, "\"fans\":{\"fan\":{\"max_duty\":0.98,\"mean_duty\":");
  cr_assert(fans, "%s", out);
  double mean = strtod(fans + strlen("\"fans\":{\"fan\":{\"max_duty\":0.98,\"mean_duty\":"), NULL);
  cr_assert(mean > 0.294 && mean < 0.98, "mean duty %g", mean);
  cr_assert(strstr(out, "\"assumptions\":[\"platform 'raspberry_pi5': estimated, not sourced"),
            "%s", out);
  free(out), free(err);
  /* HDF5: a root attribute 'assumptions', an array of variable-length UTF-8 strings */
  hid_t f = H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT);
  cr_assert_geq(f, 0);
  hid_t a = H5Aopen(f, "assumptions", H5P_DEFAULT), t = H5Aget_type(a), s = H5Aget_space(a);
  cr_assert_gt(H5Tis_variable_str(t), 0);
  cr_assert_eq(H5Tget_cset(t), H5T_CSET_UTF8);
  hssize_t n = H5Sget_simple_extent_npoints(s);
  cr_assert_geq(n, 3);
  char **v = calloc((size_t)n, sizeof *v);
  cr_assert_geq(H5Aread(a, t, v), 0);
  cr_assert(strstr(v[0], "platform 'raspberry_pi5': estimated"), "%s", v[0]);
  bool fan = false;
  for (hssize_t k = 0; k < n; k++)
    fan = fan || strstr(v[k], "fan 'fan' in force");
  cr_assert(fan);
  H5Dvlen_reclaim(t, s, H5P_DEFAULT, v);
  free(v);
  H5Sclose(s), H5Tclose(t), H5Aclose(a), H5Fclose(f);
  /* text */
  snprintf(args, sizeof args,
           "run %s/examples/video_enc.cfg --set platform=raspberry_pi5 --set ambient_c=45 "
           "--summary text --quiet",
           SITS_CONFIGS);
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  cr_assert(strstr(out, "\nfan fan               duty max 0.980, mean "), "%s", out);
  cr_assert(strstr(out, "\nassumptions:\n  - platform 'raspberry_pi5': estimated"), "%s", out);
  free(out), free(err);
  /* steady's JSON too */
  snprintf(args, sizeof args,
           "steady %s/examples/video_enc.cfg --set platform=raspberry_pi5 --set ambient_c=45",
           SITS_CONFIGS);
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  cr_assert(strstr(out, "\"assumptions\":[\"platform 'raspberry_pi5'"), "%s", out);
  free(out), free(err);
}

/* A replay's summaries name what the replayed scenario rests on too: the text's list and the
 * HDF5 file's root attribute, as a run's (the JSON had them). The shipped Orin Nano replay:
 * its platform's thermal network is an estimate, and it has no fan curve. */
Test(assumptions, a_replay_lists_them_in_text_and_hdf5, .timeout = 60) {
  char args[1024], h5[512], *out, *err;
  snprintf(h5, sizeof h5, "%s/replay.h5", tu_dir());
  snprintf(args, sizeof args,
           "replay %s/scenarios/orin_nano_replay.cfg --trace %s/tegrastats/orin_nano_jp6_real.raw "
           "--summary text -o %s",
           SITS_CONFIGS, SITS_TEST_DATA, h5);
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  cr_assert(strstr(out, "\nassumptions:\n  - platform 'orin_nano_thermal': estimated, not "
                        "sourced (the file's comments give the reasoning): the whole thermal "
                        "network (calibrate it from a log)\n  - no fan curve: "),
            "%s", out);
  free(out), free(err);
  hid_t f = H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT);
  cr_assert_geq(f, 0);
  cr_assert_gt(H5Aexists(f, "trace_format"), 0);
  hid_t a = H5Aopen(f, "assumptions", H5P_DEFAULT), t = H5Aget_type(a), s = H5Aget_space(a);
  cr_assert_gt(H5Tis_variable_str(t), 0);
  hssize_t n = H5Sget_simple_extent_npoints(s);
  cr_assert_eq(n, 2);
  char *v[2] = {0};
  cr_assert_geq(H5Aread(a, t, v), 0);
  cr_assert(strstr(v[0], "platform 'orin_nano_thermal': estimated"), "%s", v[0]);
  cr_assert(strstr(v[1], "no fan curve"), "%s", v[1]);
  H5Dvlen_reclaim(t, s, H5P_DEFAULT, v);
  H5Sclose(s), H5Tclose(t), H5Aclose(a), H5Fclose(f);
}

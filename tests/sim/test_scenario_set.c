/*
 * test_scenario_set.c - sits_scenario_set_number: a value changed in a loaded scenario gives
 * the same results, to the last bit, as the scenario loaded with that value by --set; the
 * ambient reaches the input segments that have no ambient of their own; other paths and
 * refused values are errors; the merged configuration records the value.
 */
#include "test_util.h"

static const char scen[] =
    "platform = { thermal = {\n"
    "  nodes = ( { name = \"die\"; c_j_per_k = 2; junction = true; },\n"
    "            { name = \"sink\"; c_j_per_k = 40.0; } );\n"
    "  links = ( { a = \"die\"; b = \"sink\"; r_k_per_w = 0.5; },\n"
    "            { a = \"sink\"; b = \"ambient\"; r_k_per_w = 2; },\n"
    "            { a = \"sink\"; b = \"ambient\"; r_k_per_w = 3.0; } );\n"
    "}; };\n"
    "workload = { phases = ( { duration_s = 30.0; power_w = { die = 6.0; }; },\n"
    "                        { duration_s = 30.0; power_w = { die = 2.0; }; ambient_c = 10.0; },\n"
    "                        { duration_s = 30.0; power_w = { die = 4.0; }; } ); };\n"
    "ambient_c = 25;\n";

static sits_scenario *load_sets(const char *path, const char *const *sets, size_t n) {
  sits_err err = {0};
  sits_scenario *sc = NULL;
  cr_assert_eq(sits_scenario_load(path, sets, n, &sc, &err), SITS_OK, "%s", err.msg);
  return sc;
}

/* Every sample of every node of two runs, bit for bit. */
static void assert_same_runs(const sits_scenario *a, const sits_scenario *b) {
  sits_result *ra = tu_run(a), *rb = tu_run(b);
  size_t n = sits_result_sample_count(ra);
  cr_assert_eq(n, sits_result_sample_count(rb));
  for (size_t k = 0; k < n; k++)
    for (size_t i = 0; i < 2; i++)
      cr_assert_eq(sits_result_temp_c(ra, k, i), sits_result_temp_c(rb, k, i),
                   "sample %zu node %zu: %.17g vs %.17g", k, i, sits_result_temp_c(ra, k, i),
                   sits_result_temp_c(rb, k, i));
  sits_result_free(ra), sits_result_free(rb);
}

Test(scenario_set, equals_loading_with_set) {
  char *path = tu_write("set_number.cfg", scen);
  const char *sets[] = {"platform.thermal.links.[2].r_k_per_w=1.7",
                        "platform.thermal.links.[0].r_k_per_w=0.35",
                        "platform.thermal.nodes.[1].c_j_per_k=55.5", "ambient_c=31.25"};
  sits_scenario *loaded = load_sets(path, sets, 4), *changed = load_sets(path, NULL, 0);
  sits_err err = {0};
  cr_assert_eq(sits_scenario_set_number(changed, "platform.thermal.links.[2].r_k_per_w", 1.7, &err),
               SITS_OK, "%s", err.msg);
  cr_assert_eq(
      sits_scenario_set_number(changed, "platform.thermal.links.[0].r_k_per_w", 0.35, &err),
      SITS_OK, "%s", err.msg);
  cr_assert_eq(
      sits_scenario_set_number(changed, "platform.thermal.nodes.[1].c_j_per_k", 55.5, &err),
      SITS_OK, "%s", err.msg);
  cr_assert_eq(sits_scenario_set_number(changed, "ambient_c", 31.25, &err), SITS_OK, "%s", err.msg);
  assert_same_runs(loaded, changed);
  /* the second ambient link (sink, 3 K/W -> 1.7) summed in order with the first (2 K/W) */
  const sits_thermal *th = sits_scenario_thermal(changed);
  cr_assert_eq(sits_thermal_ambient_conductance_w_per_k(th, 1), 1.0 / 2 + 1.0 / 1.7);
  cr_assert_eq(sits_thermal_link_r_k_per_w(th, 2), 1.7);
  /* the phase with its own ambient keeps it; the others follow */
  const sits_schedule *s = sits_scenario_schedule(changed);
  cr_assert_eq(sits_schedule_segment_count(s), 3);
  cr_assert_eq(sits_schedule_ambient_c(s, 0), 31.25);
  cr_assert_eq(sits_schedule_ambient_c(s, 1), 10.0);
  cr_assert_eq(sits_schedule_ambient_c(s, 2), 31.25);
  /* the merged configuration records the values */
  const char *text = sits_scenario_config_text(changed);
  cr_assert(strstr(text, "r_k_per_w = 1.7"), "%s", text);
  cr_assert(strstr(text, "c_j_per_k = 55.5"), "%s", text);
  cr_assert(strstr(text, "ambient_c = 31.25"), "%s", text);
  sits_scenario_free(loaded), sits_scenario_free(changed);
}

Test(scenario_set, refusals) {
  char *path = tu_write("set_refuse.cfg", scen);
  sits_scenario *sc = load_sets(path, NULL, 0);
  sits_err err = {0};
  cr_assert_eq(sits_scenario_set_number(sc, "platform.thermal.links.[0].r_k_per_w", 0, &err),
               SITS_EINPUT);
  cr_assert(strstr(err.msg, "platform.thermal.links.[0].r_k_per_w: r_k_per_w must be > 0 (got 0)"),
            "%s", err.msg);
  cr_assert_eq(sits_scenario_set_number(sc, "platform.thermal.links.[9].r_k_per_w", 1, &err),
               SITS_EINPUT);
  cr_assert(strstr(err.msg, "no link 9 (the network has 3)"), "%s", err.msg);
  cr_assert_eq(sits_scenario_set_number(sc, "platform.thermal.nodes.[0].c_j_per_k", -2, &err),
               SITS_EINPUT);
  cr_assert(strstr(err.msg, "c_j_per_k must be > 0 (got -2)"), "%s", err.msg);
  cr_assert_eq(sits_scenario_set_number(sc, "duration_s", 10, &err), SITS_EUNSUPPORTED);
  cr_assert(strstr(err.msg, "duration_s cannot be changed in a loaded scenario"), "%s", err.msg);
  cr_assert_eq(sits_scenario_set_number(sc, "ambient_c", NAN, &err), SITS_EINPUT);
  /* refused changes leave the network as it was */
  cr_assert_eq(sits_thermal_link_r_k_per_w(sits_scenario_thermal(sc), 0), 0.5);
  sits_scenario_free(sc);
  /* a floorplan network's links are not the config's */
  char fp[512];
  snprintf(fp, sizeof fp, "%s/scenarios/ev6_floorplan_throttle.cfg", SITS_CONFIGS);
  sc = load_sets(fp, NULL, 0);
  cr_assert_eq(sits_scenario_set_number(sc, "platform.thermal.links.[0].r_k_per_w", 1, &err),
               SITS_EUNSUPPORTED);
  sits_scenario_free(sc);
}

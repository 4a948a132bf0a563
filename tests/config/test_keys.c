/*
 * test_keys.c - the key table (config/key_table.c) against itself and against the loader:
 * names carry their units, every member's parent is a group or list, lookups take indices,
 * every finite range is enforced on load (just outside fails naming the key, the default or a
 * value inside loads), and absent keys take the table's defaults.
 */
#include "test_util.h"

#include <math.h>

#include "sits_config.h"

/* Unit suffixes of key names and the unit the table must state for them. */
static const struct {
  const char *suffix, *unit;
} units[] = {{"_k_per_w", "K/W"},
             {"_j_per_k", "J/K"},
             {"_j_per_mol", "J/mol"},
             {"_per_k", "1/K"},
             {"_gb_per_s", "GB/s"},
             {"_mpix_per_s", "Mpixel/s"},
             {"mpix_per_s", "Mpixel/s"},
             {"_per_s", "items/s"},
             {"gop_per_item", "Gop"},
             {"mb_per_item", "MB"},
             {"mpix_per_item", "Mpixel"},
             {"_w", "W"},
             {"_c", "degC"},
             {"_s", "s"},
             {"_v", "V"},
             {"_ohm", "ohm"},
             {"_f", "F"},
             {"_ah", "Ah"},
             {"_wh", "Wh"},
             {"_mhz", "MHz"},
             {"_ms", "ms"},
             {"_mj", "mJ"},
             {"_k", "K"}};

static bool ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

Test(keys, names_state_their_units) {
  size_t n;
  const sits_key *k = sits_config_keys(&n);
  cr_assert_gt(n, 100);
  size_t checked = 0;
  for (size_t i = 0; i < n; i++) {
    if (k[i].type != SITS_KEY_NUMBER)
      continue;
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++)
      if (ends_with(k[i].path, units[u].suffix)) {
        /* a temperature difference named _c (hysteresis_c) is in kelvin */
        bool difference = strcmp(units[u].unit, "degC") == 0 && strcmp(k[i].unit, "K") == 0 &&
                          strstr(k[i].help, "below");
        cr_assert(difference || strcmp(k[i].unit, units[u].unit) == 0, "%s: unit %s, not %s",
                  k[i].path, k[i].unit, units[u].unit);
        checked++;
        break;
      }
  }
  cr_assert_geq(checked, 40, "only %zu keys with unit suffixes", checked);
}

Test(keys, paths_unique_and_parents_exist) {
  size_t n;
  const sits_key *k = sits_config_keys(&n);
  for (size_t i = 0; i < n; i++) {
    cr_assert(k[i].help && *k[i].help && k[i].lands && *k[i].lands, "%s", k[i].path);
    for (size_t j = 0; j < i; j++)
      cr_assert_str_neq(k[i].path, k[j].path);
    char parent[256];
    const char *dot = strrchr(k[i].path, '.');
    if (!dot)
      continue;
    snprintf(parent, sizeof parent, "%.*s", (int)(dot - k[i].path), k[i].path);
    bool list = ends_with(parent, ".[]");
    if (list)
      parent[strlen(parent) - 3] = '\0';
    const sits_key *p = sits_config_key(parent);
    cr_assert(p, "%s has no parent %s", k[i].path, parent);
    if (list)
      cr_assert_eq(p->type, SITS_KEY_LIST, "%s", parent);
    else
      cr_assert(p->type == SITS_KEY_GROUP || p->type == SITS_KEY_NAME_OR_GROUP, "%s", parent);
  }
}

Test(keys, lookup_with_indices) {
  const sits_key *k = sits_config_key("platform.domains.[3].opp.[12].volt_v");
  cr_assert(k);
  cr_assert_str_eq(k->path, "platform.domains.[].opp.[].volt_v");
  cr_assert_str_eq(k->unit, "V");
  cr_assert_null(sits_config_key("platform.domains.[3].opp.[12].volts"));
  cr_assert_null(sits_config_key("platform.domains"
                                 ".[99999999999999999999999999999999999999999999999999999999999999"
                                 "9999999999999999999999999999999999999999999999999999999].name"
                                 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                                 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                                 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                                 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                                 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                                 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"));
}

/* The shipped scenario that holds a key's group (so that --set replaces a real value). */
static const char *base_for(const char *path) {
  if (strncmp(path, "platform.thermal.hotspot.", 25) == 0)
    return "ev6_floorplan_throttle.cfg";
  if (strncmp(path, "platform.governor.thermal.", 26) == 0)
    return "rk3588"; /* its power_allocator: below, a scenario around the platform */
  if (strncmp(path, "replay.", 7) == 0)
    return "orin_nano_replay.cfg";
  return "orin_nx_video_enc.cfg";
}

/* Loads the base of @p path with "@p path=@p v" (indices [0]); the status, message in msg. */
static int load_with(const char *path, double v, char *msg, size_t size) {
  char set[600], scen[512], gen[512];
  size_t o = 0;
  for (const char *p = path; *p && o + 2 < sizeof gen; p++) {
    gen[o++] = *p;
    if (*p == '[')
      gen[o++] = '0';
  }
  gen[o] = '\0';
  snprintf(set, sizeof set, "%s=%.17g", gen, v);
  const char *base = base_for(path);
  if (strcmp(base, "rk3588") == 0) {
    snprintf(scen, sizeof scen, "%s/rk_keys.cfg", tu_dir());
    FILE *f = fopen(scen, "w");
    cr_assert(f);
    fprintf(f,
            "platform = \"%s/platforms/rk3588.cfg\";\n"
            "workload = { phases = ( { duration_s = 1.0; } ); };\n",
            SITS_CONFIGS);
    fclose(f);
  } else {
    snprintf(scen, sizeof scen, "%s/scenarios/%s", SITS_CONFIGS, base);
  }
  const char *sets[] = {set};
  sits_err err = {0};
  sits_scenario *sc = NULL;
  int rc = sits_scenario_load(scen, sets, 1, &sc, &err);
  snprintf(msg, size, "%s", err.msg);
  sits_scenario_free(sc);
  return rc;
}

/* Keys whose group the base scenarios do not hold, so a --set would create a new group that
 * fails for another reason first. */
static bool skipped(const char *path) {
  return strstr(path, "solver.klu_threshold") || strstr(path, "battery.ocv_") ||
         strstr(path, "domains.[].fractions") || strstr(path, "governor.thermal.trip_c");
}

Test(keys, ranges_are_enforced) {
  size_t n, tried = 0;
  const sits_key *k = sits_config_keys(&n);
  char msg[SITS_ERRMSG_MAX];
  for (size_t i = 0; i < n; i++) {
    if (k[i].type != SITS_KEY_NUMBER || skipped(k[i].path))
      continue;
    const char *name = strrchr(k[i].path, '.') ? strrchr(k[i].path, '.') + 1 : k[i].path;
    double outside[3];
    size_t no = 0;
    if (isfinite(k[i].lo))
      outside[no++] = k[i].flags & SITS_KEY_LO_OPEN ? k[i].lo : k[i].lo - 1;
    if (isfinite(k[i].hi))
      outside[no++] = k[i].flags & SITS_KEY_HI_OPEN ? k[i].hi : k[i].hi + 1;
    if (k[i].flags & SITS_KEY_WHOLE)
      outside[no++] = (isfinite(k[i].lo) ? k[i].lo : 0) + 2.5;
    for (size_t j = 0; j < no; j++) {
      cr_assert_eq(load_with(k[i].path, outside[j], msg, sizeof msg), SITS_EINPUT, "%s = %g loaded",
                   k[i].path, outside[j]);
      char spaced[128]; /* a model's message may write the name in words */
      snprintf(spaced, sizeof spaced, "%s", name);
      for (char *c = spaced; *c; c++)
        *c = *c == '_' ? ' ' : *c;
      cr_assert(strstr(msg, name) || strstr(msg, spaced), "%s = %g: '%s' does not name it",
                k[i].path, outside[j], msg);
      tried++;
    }
  }
  cr_assert_geq(tried, 25, "only %zu out-of-range values tried", tried);
}

Test(keys, generic_range_message) {
  char msg[SITS_ERRMSG_MAX];
  cr_assert_eq(load_with("platform.battery.initial_soc", 1.5, msg, sizeof msg), SITS_EINPUT);
  cr_assert(strstr(msg, "--set platform.battery.initial_soc=1.5: 'initial_soc' must be in [0, 1] "
                        "(got 1.5)"),
            "%s", msg);
  cr_assert_eq(load_with("platform.battery.series", 2.5, msg, sizeof msg), SITS_EINPUT);
  cr_assert(strstr(msg, "'series' must be a whole number >= 1 (got 2.5)"), "%s", msg);
  cr_assert_eq(load_with("platform.battery.efficiency", 0, msg, sizeof msg), SITS_EINPUT);
  cr_assert(strstr(msg, "'efficiency' must be in (0, 1] (got 0)"), "%s", msg);
  /* inside the range: loads */
  cr_assert_eq(load_with("platform.battery.initial_soc", 0.5, msg, sizeof msg), SITS_OK, "%s", msg);
}

Test(keys, defaults_from_the_table) {
  char path[512];
  snprintf(path, sizeof path, "%s/scenarios/hotspot_3node_step.cfg", SITS_CONFIGS);
  sits_err err = {0};
  sits_scenario *sc = NULL;
  cr_assert_eq(sits_scenario_load(path, NULL, 0, &sc, &err), SITS_OK, "%s", err.msg);
  const sits_limits *l = sits_scenario_limits(sc);
  const sits_solver_settings *s = sits_scenario_solver(sc);
  cr_assert_eq(l->tdp_window_s, sits_config_key("tdp_window_s")->dflt);
  cr_assert_eq(l->tdp_window_s, 10.0);
  cr_assert_eq(s->rtol, 1e-7);
  cr_assert_eq(s->atol_k, 1e-5);
  cr_assert_eq(s->klu_threshold, 12);
  cr_assert_eq(sits_scenario_governor(sc)->period_s, 0.1);
  cr_assert_eq(sits_scenario_governor(sc)->up_threshold, 0.8);
  sits_scenario_free(sc);
}

Test(keys, reference_formats) {
  char path[512];
  snprintf(path, sizeof path, "%s/keys.md", tu_dir());
  FILE *f = fopen(path, "w+");
  sits_err err = {0};
  cr_assert_eq(sits_config_write_keys(f, "markdown", "battery.rc", &err), SITS_OK);
  rewind(f);
  char text[4096] = "";
  size_t got = fread(text, 1, sizeof text - 1, f);
  text[got] = '\0';
  fclose(f);
  cr_assert(strstr(text, "#### `platform`"), "%s", text);
  cr_assert(strstr(text, "| `platform.battery.rc.[].r_ohm` | number, required | ohm | - | > 0 |"),
            "%s", text);
  cr_assert_null(strstr(text, "ambient_c"));
  cr_assert_eq(sits_config_write_keys(stdout, "yaml", NULL, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "yaml"));
}

/*
 * assumptions.c - what a scenario's answers rest on besides measurements of this board (issue
 * #37), listed in every summary (text, JSON, HDF5) so that a reader knows what a number means:
 *
 *  - the platform's values its file marks as estimated (platform.estimated: a list of words
 *    naming them, the reasoning in the file's comments);
 *  - the cooling: the fans in force with their trips, or none (every link to the ambient at
 *    one resistance: a fan held at one speed, or passive cooling);
 *  - the pack: without temperature dependence (no activation energy, one OCV row, no tables
 *    over temperature), with one capacity at every temperature, or at the ambient (no thermal
 *    node of its own);
 *  - the governor's power cap when the scenario gives it no target (no tdp_budget_w): not in
 *    force, which a reader of the platform file would otherwise take it to be;
 *  - the workload: platform-neutral work whose rates are the roofline's (peak throughput x
 *    efficiency), not a measurement on this platform;
 *  - the loader's notes (work on a host, software encoding, ...), last.
 */
#define _POSIX_C_SOURCE 200809L
#include "json_internal.h"
#include "scenario_internal.h"
#include "status_internal.h"

#include <libconfig.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int assume(sits_scenario *sc, sits_err *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = sits__strlist_addv(&sc->assumptions, &sc->n_assumptions, err, fmt, ap);
  va_end(ap);
  return rc;
}

/* Appends "sep text" to buf (size cap) as far as it fits. */
static void append(char *buf, size_t cap, const char *sep, const char *text) {
  size_t n = strlen(buf);
  if (n + 1 < cap)
    snprintf(buf + n, cap - n, "%s%s", n ? sep : "", text);
}

/* platform.estimated = ["OPP voltages", ...]: strings only. */
static int estimated(sits_scenario *sc, const config_setting_t *p, const char *platform,
                     sits_err *err) {
  const config_setting_t *e = config_setting_get_member(p, "estimated");
  if (!e)
    return SITS_OK;
  if (!config_setting_is_array(e) && !config_setting_is_list(e))
    return sits__fail_at(err, SITS_EINPUT, e,
                         "platform.estimated must be a list of strings naming estimated values");
  char what[768] = "";
  for (int k = 0; k < config_setting_length(e); k++) {
    const char *s = config_setting_get_string(config_setting_get_elem(e, (unsigned)k));
    if (!s || !*s)
      return sits__fail_at(err, SITS_EINPUT, config_setting_get_elem(e, (unsigned)k),
                           "platform.estimated must be a list of non-empty strings");
    append(what, sizeof what, "; ", s);
  }
  return *what ? assume(sc, err,
                        "platform '%s': estimated, not sourced (the file's comments give the "
                        "reasoning): %s",
                        platform, what)
               : SITS_OK;
}

static int cooling(sits_scenario *sc, sits_err *err) {
  int rc = SITS_OK;
  if (sc->n_fans == 0)
    return assume(sc, err,
                  "no fan curve: every path to the ambient keeps one resistance (a fan held "
                  "at one speed, or passive cooling), however hot the board gets");
  for (size_t f = 0; f < sc->n_fans && rc == SITS_OK; f++) {
    const sits__fan *fan = &sc->fans[f];
    char trips[512] = "", hyst[48] = "";
    bool one_hyst = true; /* one hysteresis for every trip: said once */
    for (size_t k = 1; k < fan->n_trips; k++)
      one_hyst = one_hyst && fan->hysteresis_c[k] == fan->hysteresis_c[0];
    for (size_t k = 0; k < fan->n_trips; k++) {
      char one[80];
      if (one_hyst)
        snprintf(one, sizeof one, "%g C -> duty %g", fan->trip_c[k], fan->trip_duty[k]);
      else
        snprintf(one, sizeof one, "%g C (hysteresis %g C) -> duty %g", fan->trip_c[k],
                 fan->hysteresis_c[k], fan->trip_duty[k]);
      append(trips, sizeof trips, ", ", one);
    }
    if (fan->n_trips && one_hyst)
      snprintf(hyst, sizeof hyst, "; hysteresis %g C", fan->hysteresis_c[0]);
    rc = fan->n_trips
             ? assume(sc, err,
                      "fan '%s' in force: by its trips on '%s' (%s%s), duty %g below them, "
                      "unless a replayed trace drives it",
                      fan->name, sits_thermal_name(sc->thermal, fan->sensor), trips, hyst,
                      fan->initial_duty)
             : assume(sc, err, "fan '%s' held at duty %g (no trips), unless a trace drives it",
                      fan->name, fan->initial_duty);
  }
  return rc;
}

/* The pack's own node: its capacitance and path to the ambient (the pack file's estimates)
 * and whether the platform couples it to the board. */
static int pack_node(sits_scenario *sc, const char *name, sits_err *err) {
  /* its links, as add_pack_node made them: batt_link to the ambient, then the board's */
  int n = sc->batt_node, board = -1, a, b;
  double r_amb = sits_thermal_link_r_k_per_w(sc->thermal, sc->batt_link), r_board = NAN;
  if (sits_thermal_link_ends(sc->thermal, sc->batt_link + 1, &a, &b) == SITS_OK && a == n)
    board = b, r_board = sits_thermal_link_r_k_per_w(sc->thermal, sc->batt_link + 1);
  char how[96] = ""; /* resized by battery_capacity_wh: C with the energy, R with the surface */
  if (sc->batt_node_scale > 0)
    snprintf(how, sizeof how, " for its energy, scaled by battery_capacity_wh: C x %.4g, R x %.4g",
             sc->batt_node_scale, pow(sc->batt_node_scale, -2.0 / 3.0));
  if (board >= 0)
    return assume(sc, err,
                  "pack '%s': its own thermal node (%.4g J/K, %.4g K/W to the ambient: the pack "
                  "file's estimates%s), coupled to '%s' by %g K/W (platform.pack_coupling)",
                  name, sits_thermal_capacity_j_per_k(sc->thermal, n), r_amb, how,
                  sits_thermal_name(sc->thermal, board), r_board);
  return assume(sc, err,
                "pack '%s': its own thermal node (%.4g J/K, %.4g K/W to the ambient: the pack "
                "file's estimates%s), not coupled to the board (the platform states no "
                "pack_coupling)",
                name, sits_thermal_capacity_j_per_k(sc->thermal, n), r_amb, how);
}

static int pack(sits_scenario *sc, const config_setting_t *p, sits_err *err) {
  if (!sc->battery)
    return SITS_OK;
  const sits_battery_cfg *c = sits_battery_config(sc->battery);
  const char *name = NULL;
  const config_setting_t *g = config_setting_get_member(p, "battery");
  if (g && config_setting_is_group(g))
    config_setting_lookup_string(g, "name", &name);
  int rc = SITS_OK;
  if (c->r_ea_j_per_mol == 0 && c->n_ocv_t < 2 && c->n_r_t < 2 && c->n_q_t < 2)
    rc = assume(sc, err,
                "pack '%s': no temperature dependence (no activation energy, no OCV, "
                "resistance or capacity rows over temperature): its resistance, voltage and "
                "capacity are those of its tests at any temperature",
                name ? name : "");
  else if (c->n_q_t < 2) {
    bool r = c->r_ea_j_per_mol != 0 || c->n_r_t >= 2, v = c->n_ocv_t >= 2;
    rc = assume(sc, err,
                "pack '%s': one capacity at every temperature (no capacity_t_c rows; its %s "
                "on temperature)",
                name ? name : "",
                r && v ? "resistance and voltage depend"
                : r    ? "resistance depends"
                       : "voltage depends");
  }
  const config_setting_t *th = g ? config_setting_get_member(g, "thermal") : NULL;
  if (rc == SITS_OK && sc->batt_node < 0 && th && sc->hotspot)
    rc = assume(sc, err,
                "pack '%s': its thermal node is not added to a floorplan's network: its cells sit "
                "at the ambient temperature",
                name ? name : "");
  else if (rc == SITS_OK && sc->batt_node < 0)
    rc = assume(sc, err,
                "pack '%s': no thermal node (no 'thermal' in the pack, or platform.battery.node "
                "= \"ambient\"): its cells sit at the ambient temperature",
                name ? name : "");
  else if (rc == SITS_OK && sc->batt_own_node)
    rc = pack_node(sc, name ? name : "", err);
  if (rc == SITS_OK && !sc->batt_own_node && config_setting_get_member(p, "pack_coupling"))
    rc = assume(sc, err,
                "platform.pack_coupling not used: it couples the pack's own thermal node, and "
                "this pack has none (%s)",
                sc->batt_node >= 0  ? "platform.battery.node places it on a board node"
                : th && sc->hotspot ? "a floorplan's network"
                                    : "no 'thermal' group, or platform.battery.node = \"ambient\"");
  return rc;
}

/* A platform's power cap takes its target from the scenario's tdp_budget_w: without one the
 * cap holds nothing, and the summary says so rather than leave it to be assumed. */
static int power_cap(sits_scenario *sc, const config_setting_t *p, sits_err *err) {
  const config_setting_t *g = config_setting_get_member(p, "governor");
  if (sc->n_domains == 0 || sc->gov.power_cap || !g || !config_setting_is_group(g) ||
      !config_setting_get_member(g, "power_cap"))
    return SITS_OK;
  return assume(sc, err,
                "platform.governor.power_cap not in force: the scenario sets no tdp_budget_w, "
                "the cap's target (the governor runs uncapped)");
}

static int workload(sits_scenario *sc, const config_setting_t *root, sits_err *err) {
  if (!sc->work)
    return SITS_OK;
  char units[512] = "";
  for (size_t d = 0; d < sc->n_domains; d++) {
    if (!(sc->work_rate[d] > 0))
      continue;
    char one[96];
    if (sc->caps[d].unit == SITS__UNIT_VENC || sc->caps[d].unit == SITS__UNIT_VDEC)
      snprintf(one, sizeof one, "%s at its stated %g Mpixel/s", sc->domains[d].name,
               sc->caps[d].mpix_per_s);
    else
      snprintf(one, sizeof one, "%s at %g of its peak TOPS", sc->domains[d].name,
               sc->caps[d].tops_efficiency);
    append(units, sizeof units, ", ", one);
  }
  const char *name = NULL;
  config_lookup_string(&sc->config.cfg, "workload.name", &name);
  (void)root;
  return assume(sc, err,
                "workload '%s': rates from the roofline, not measured on this platform (%s; "
                "memory at %g of its bandwidth)",
                name ? name : "", units, sc->mem_efficiency);
}

int sits__scenario_assumptions(sits_scenario *sc, const config_setting_t *root, sits_err *err) {
  const config_setting_t *p = config_setting_get_member(root, "platform");
  const char *platform = NULL;
  if (p)
    config_setting_lookup_string(p, "name", &platform);
  int rc = p ? estimated(sc, p, platform ? platform : "", err) : SITS_OK;
  if (rc == SITS_OK)
    rc = cooling(sc, err);
  if (rc == SITS_OK && p)
    rc = pack(sc, p, err);
  if (rc == SITS_OK && p)
    rc = power_cap(sc, p, err);
  if (rc == SITS_OK)
    rc = workload(sc, root, err);
  for (size_t k = 0; k < sc->n_notes && rc == SITS_OK; k++)
    rc = assume(sc, err, "%s", sc->notes[k]);
  return rc;
}

size_t sits_scenario_assumption_count(const sits_scenario *sc) {
  return sc->n_assumptions;
}

const char *sits_scenario_assumption(const sits_scenario *sc, size_t k) {
  return k < sc->n_assumptions ? sc->assumptions[k] : NULL;
}

void sits__json_assumptions(FILE *f, const sits_scenario *sc) {
  fputs(",\"assumptions\":[", f);
  for (size_t k = 0; k < sc->n_assumptions; k++) {
    fputs(k ? "," : "", f);
    sits__json_str(f, sc->assumptions[k]);
  }
  fputc(']', f);
}

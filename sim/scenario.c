/*
 * scenario.c - builds the thermal network and the input schedule from the merged config.
 *
 * Every value is checked here: type, range, references between nodes and links, and
 * the workload (inline phases or a trace). Errors name the file and line the offending
 * setting came from.
 */
#define _POSIX_C_SOURCE 200809L
#include "scenario_internal.h"
#include "status_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sits_table.h"

#define NODE_KEY "platform.thermal.nodes.[]."
#define LINK_KEY "platform.thermal.links.[]."

static int add_nodes(sits_scenario *sc, const config_setting_t *th, sits_err *err) {
  const config_setting_t *nodes = config_setting_get_member(th, "nodes");
  if (!nodes || !config_setting_is_list(nodes) || config_setting_length(nodes) == 0)
    return sits__fail_at(err, SITS_EINPUT, nodes ? nodes : th,
                         "'nodes' must be a non-empty list of groups");
  for (int i = 0; i < config_setting_length(nodes); i++) {
    const config_setting_t *g = config_setting_get_elem(nodes, (unsigned)i);
    const char *name;
    double c, init, crit, area, thick;
    bool junction;
    int rc;
    if (!config_setting_is_group(g))
      return sits__fail_at(err, SITS_EINPUT, g, "a node must be a group { name; c_j_per_k; }");
    if ((rc = sits__key_str(g, NODE_KEY "name", &name, err)) ||
        (rc = sits__key_num(g, NODE_KEY "c_j_per_k", &c, err)) ||
        (rc = sits__key_num(g, NODE_KEY "initial_c", &init, err)) ||
        (rc = sits__key_num(g, NODE_KEY "critical_c", &crit, err)) ||
        (rc = sits__key_bool(g, NODE_KEY "junction", &junction, err)) ||
        (rc = sits__key_num(g, NODE_KEY "die_area_mm2", &area, err)) ||
        (rc = sits__key_num(g, NODE_KEY "die_thickness_mm", &thick, err)))
      return rc;
    if (isnan(area) != isnan(thick)) /* the silicon's volume needs both */
      return sits__fail_at(err, SITS_EINPUT, g,
                           "node '%s': die_area_mm2 and die_thickness_mm go together", name);
    int idx = sits_thermal_add_node(sc->thermal, name, c, err);
    if (idx < 0)
      return sits__at(g, idx, err);
    sits_thermal_set_initial_c(sc->thermal, idx, init);
    sits_thermal_set_critical_c(sc->thermal, idx, crit);
    sits_thermal_set_junction(sc->thermal, idx, junction);
  }
  return SITS_OK;
}

/* The pack's own thermal node (platform.battery.thermal = { c_j_per_k; r_ambient_k_per_w; }):
 * a node named "battery" linked to the ambient and, where the platform states how a pack
 * couples to its board (platform.pack_coupling = { node; r_k_per_w; }), to that node. A
 * battery.node given (a board node, or "ambient") wins: no node of its own then. */
/* platform.pack_coupling, read (and checked: both keys required, r > 0, a board node) whether
 * or not a pack node uses it; absent: *to -1 */
static int read_pack_coupling(sits_scenario *sc, const config_setting_t *cpl, int *to,
                              double *r_k_per_w, sits_err *err) {
  *to = -1;
  if (!cpl)
    return SITS_OK;
  if (!config_setting_is_group(cpl))
    return sits__fail_at(err, SITS_EINPUT, cpl,
                         "'pack_coupling' must be a group { node; r_k_per_w; }");
  const char *board = NULL;
  int rc;
  if ((rc = sits__key_str(cpl, "platform.pack_coupling.node", &board, err)) ||
      (rc = sits__key_num(cpl, "platform.pack_coupling.r_k_per_w", r_k_per_w, err)))
    return rc;
  if ((*to = sits_thermal_find(sc->thermal, board)) < 0)
    return sits__unknown_node(sc->thermal, config_setting_get_member(cpl, "node"), "pack_coupling",
                              board, err);
  return SITS_OK;
}

/* The pack's own thermal node (platform.battery.thermal = { c_j_per_k; r_ambient_k_per_w; }):
 * a node named "battery" linked to the ambient and, where the platform states how a pack
 * couples to its board (platform.pack_coupling = { node; r_k_per_w; }), to that node. A
 * battery.node given (a board node, or "ambient") wins: no node of its own then. */
static int add_pack_node(sits_scenario *sc, const config_setting_t *p, sits_err *err) {
  const config_setting_t *b = config_setting_get_member(p, "battery");
  const config_setting_t *t =
      b && config_setting_is_group(b) ? config_setting_get_member(b, "thermal") : NULL;
  int to;
  double c, r_amb, r_board = NAN;
  int rc =
      read_pack_coupling(sc, config_setting_get_member(p, "pack_coupling"), &to, &r_board, err);
  if (rc || !t)
    return rc;
  if (!config_setting_is_group(t))
    return sits__fail_at(
        err, SITS_EINPUT, t,
        "the battery's 'thermal' must be a group { c_j_per_k; r_ambient_k_per_w; }");
  if (config_setting_get_member(b, "node")) /* the user's choice wins over the pack file's */
    return SITS_OK;
  if ((rc = sits__key_num(t, "platform.battery.thermal.c_j_per_k", &c, err)) ||
      (rc = sits__key_num(t, "platform.battery.thermal.r_ambient_k_per_w", &r_amb, err)))
    return rc;
  if (sits_thermal_find(sc->thermal, SITS_PACK_NODE) >= 0)
    return sits__fail_at(err, SITS_EINPUT, t,
                         "the pack's own thermal node is named '" SITS_PACK_NODE
                         "', and the platform's network already has a node of that name: rename "
                         "that node, or place the pack on a node with platform.battery.node");
  /* a network without junction marks counts all its nodes as junctions: the board's, not
   * the pack's, so they are marked before the pack's node joins */
  if (!sits_thermal_has_junctions(sc->thermal))
    for (size_t j = 0; j < sits_thermal_node_count(sc->thermal); j++)
      sits_thermal_set_junction(sc->thermal, (int)j, true);
  int idx = sits_thermal_add_node(sc->thermal, SITS_PACK_NODE, c, err);
  if (idx < 0)
    return sits__at(t, idx, err);
  int e0, e1; /* its link's index: the links added so far */
  for (sc->batt_link = 0; sits_thermal_link_ends(sc->thermal, sc->batt_link, &e0, &e1) == SITS_OK;)
    sc->batt_link++;
  if ((rc = sits_thermal_add_link(sc->thermal, idx, SITS_AMBIENT, r_amb, err)))
    return sits__at(t, rc, err);
  if (to < 0)
    return SITS_OK;
  rc = sits_thermal_add_link(sc->thermal, idx, to, r_board, err);
  return rc ? sits__at(config_setting_get_member(p, "pack_coupling"), rc, err) : SITS_OK;
}

static int link_end(const sits_thermal *th, const config_setting_t *g, const char *key, int *out,
                    sits_err *err) {
  const char *name;
  int rc = sits__key_str(g, key, &name, err);
  if (rc)
    return rc;
  if (strcmp(name, "ambient") == 0) {
    *out = SITS_AMBIENT;
    return SITS_OK;
  }
  *out = sits_thermal_find(th, name);
  if (*out < 0)
    return sits__unknown_node(th, config_setting_get_member(g, strrchr(key, '.') + 1), "link", name,
                              err);
  return SITS_OK;
}

static int add_links(sits_scenario *sc, const config_setting_t *links, sits_err *err) {
  if (!links || !config_setting_is_list(links))
    return sits__fail_at(err, SITS_EINPUT, links, "'links' must be a list of groups");
  for (int i = 0; i < config_setting_length(links); i++) {
    const config_setting_t *g = config_setting_get_elem(links, (unsigned)i);
    int a, b, rc;
    double r;
    if (!config_setting_is_group(g))
      return sits__fail_at(err, SITS_EINPUT, g, "a link must be a group { a; b; r_k_per_w; }");
    if ((rc = link_end(sc->thermal, g, LINK_KEY "a", &a, err)) ||
        (rc = link_end(sc->thermal, g, LINK_KEY "b", &b, err)) ||
        (rc = sits__key_num(g, LINK_KEY "r_k_per_w", &r, err)))
      return rc;
    if (a == SITS_AMBIENT && b == SITS_AMBIENT)
      return sits__fail_at(err, SITS_EINPUT, g, "link from 'ambient' to itself");
    if (a == SITS_AMBIENT)
      a = b, b = SITS_AMBIENT;
    if ((rc = sits_thermal_add_link(sc->thermal, a, b, r, err)))
      return sits__at(g, rc, err);
  }
  return SITS_OK;
}

static int load_platform(sits_scenario *sc, const config_setting_t *root, sits_err *err) {
  const config_setting_t *p = config_setting_get_member(root, "platform");
  if (!p)
    return sits__fail(err, SITS_EINPUT, "%s: missing key 'platform'", sc->config.scenario_path);
  if (!config_setting_is_group(p))
    return sits__fail_at(err, SITS_EINPUT, p, "'platform' must be a name or a group");
  int rc;
  const config_setting_t *th = config_setting_get_member(p, "thermal");
  if (!th || !config_setting_is_group(th))
    return sits__fail_at(err, SITS_EINPUT, th ? th : p, "the platform needs a 'thermal' group");
  const config_setting_t *hs = config_setting_get_member(th, "hotspot");
  if (hs) {
    if (config_setting_get_member(th, "nodes") || config_setting_get_member(th, "links"))
      return sits__fail_at(err, SITS_EINPUT, hs,
                           "give a floorplan ('hotspot') or nodes and links, not both");
    sc->hotspot = true;
    sits__hs_platform fp = {0};
    rc = sits__hs_platform_load(hs, &fp, err);
    sc->thermal = fp.thermal, sc->groups = fp.groups, sc->n_groups = fp.n_groups;
    sc->grid_rows = fp.grid_rows, sc->grid_cols = fp.grid_cols, sc->n_blocks = fp.n_blocks;
    sc->grid_width_m = fp.width_m, sc->grid_height_m = fp.height_m;
    if (rc || (rc = sits__load_fans(sc, p, err)))
      return rc;
    return (rc = sits__load_domains(sc, p, err)) ? rc : sits__load_static_power(sc, p, err);
  }
  if (!(sc->thermal = sits_thermal_new()))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  if ((rc = add_nodes(sc, th, err)))
    return rc;
  const config_setting_t *links = config_setting_get_member(th, "links");
  if (!links)
    return sits__fail_at(err, SITS_EINPUT, th, "the thermal group needs 'links'");
  /* the pack's node and links after the platform's: the config's link k is the network's */
  if ((rc = add_links(sc, links, err)) || (rc = add_pack_node(sc, p, err)) ||
      (rc = sits__load_fans(sc, p, err)) || (rc = sits__load_domains(sc, p, err)))
    return rc;
  return sits__load_static_power(sc, p, err);
}

int sits__load_static_power(sits_scenario *sc, const config_setting_t *p, sits_err *err) {
  size_t n = sits_thermal_node_count(sc->thermal);
  const char *node_name;
  double static_w;
  int rc;
  if (!(sc->static_power_w = calloc(n, sizeof(double))))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  if ((rc = sits__key_num(p, "platform.static_w", &static_w, err)) ||
      (rc = sits__key_str(p, "platform.static_node", &node_name, err)))
    return rc;
  if (static_w == 0)
    return SITS_OK;
  if (!node_name)
    return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(p, "static_w"),
                         "'static_w' needs 'static_node' (the node it heats)");
  const sits__group *grp = sits__scenario_group(sc, node_name);
  for (size_t k = 0; grp && k < grp->n; k++) /* a grid block: over its cells */
    sc->static_power_w[grp->nodes[k]] += static_w * grp->w[k];
  if (grp)
    return sits__scenario_block_share(sc, SITS_MAX_DOMAINS, grp, static_w, err);
  int idx = sits_thermal_find(sc->thermal, node_name);
  if (idx < 0)
    return sits__unknown_node(sc->thermal, config_setting_get_member(p, "static_node"),
                              "static_node", node_name, err);
  sc->static_power_w[idx] = static_w;
  return SITS_OK;
}

/* The scenario's top-level values: the ambient and every limit, before the platform, whose
 * loaders use them (the power cap's target is tdp_budget_w). */
static int load_values(sits_scenario *sc, const config_setting_t *root, sits_err *err) {
  int rc;
  sits_limits *l = &sc->limits;
  if ((rc = sits__key_num(root, "ambient_c", &sc->ambient_c, err)) ||
      (rc = sits__key_num(root, "tdp_window_s", &l->tdp_window_s, err)) ||
      (rc = sits__key_num(root, "tdp_budget_w", &l->tdp_budget_w, err)) ||
      (rc = sits__key_num(root, "max_junction_temp_c", &l->max_junction_temp_c, err)) ||
      (rc = sits__key_num(root, "max_latency_ms", &l->max_latency_ms, err)) ||
      (rc = sits__key_num(root, "max_energy_per_item_mj", &l->max_energy_per_item_mj, err)) ||
      (rc = sits__key_num(root, "min_battery_life_s", &l->min_battery_life_s, err)))
    return rc;
  return SITS_OK;
}

/* Per-item limits need a domain that processes items: the platform's max_rate, a workload's
 * rate group or its platform-neutral work (items_per_s, the roofline's rates), so it is
 * checked once the workload is loaded. */
static int check_item_limits(const sits_scenario *sc, const config_setting_t *root, sits_err *err) {
  bool items = false;
  for (size_t d = 0; d < sc->n_domains; d++)
    items = items || sc->domains[d].max_rate > 0;
  const char *per_item[] = {"max_latency_ms", "max_energy_per_item_mj"};
  for (int i = 0; i < 2; i++)
    if (!items && config_setting_get_member(root, per_item[i]))
      return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(root, per_item[i]),
                           "'%s' needs a domain that processes items (max_rate or items_per_s)",
                           per_item[i]);
  return SITS_OK;
}

static int load_solver(sits_scenario *sc, const config_setting_t *root, sits_err *err) {
  const config_setting_t *g = config_setting_get_member(root, "solver");
  sits_solver_settings *s = &sc->solver;
  const char *linsol = NULL, *method = NULL;
  double thr;
  int rc;
  if ((rc = sits__key_num(g, "solver.rtol", &s->rtol, err)) ||
      (rc = sits__key_num(g, "solver.atol_k", &s->atol_k, err)) ||
      (rc = sits__key_num(g, "solver.klu_threshold", &thr, err)) ||
      (rc = sits__key_str(g, "solver.linear_solver", &linsol, err)) ||
      (rc = sits__key_str(g, "solver.method", &method, err)) ||
      (rc = sits__key_bool(g, "solver.skip_quiet_ticks", &s->skip_quiet_ticks, err)))
    return rc;
  if (!g || !config_setting_get_member(g, "skip_quiet_ticks")) /* on unless said otherwise */
    s->skip_quiet_ticks = true;
  s->method = SITS_METHOD_AUTO;
  if (method && strcmp(method, "cvode") == 0)
    s->method = SITS_METHOD_CVODE;
  else if (method && strcmp(method, "exponential") == 0)
    s->method = SITS_METHOD_EXPONENTIAL;
  else if (method && strcmp(method, "auto") != 0)
    return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(g, "method"),
                         "'method' must be \"auto\", \"cvode\" or \"exponential\"");
  s->klu_threshold = (size_t)thr;
  s->linsol = SITS_LINSOL_AUTO;
  if (linsol && strcmp(linsol, "dense") == 0)
    s->linsol = SITS_LINSOL_DENSE;
  else if (linsol && strcmp(linsol, "klu") == 0)
    s->linsol = SITS_LINSOL_KLU;
  else if (linsol && strcmp(linsol, "auto") != 0)
    return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(g, "linear_solver"),
                         "'linear_solver' must be \"auto\", \"dense\" or \"klu\"");
  return SITS_OK;
}

/* The most governor ticks a run may take: each is at least one solver step (~5 us), so 1e8
 * is minutes of work; a 1e-6 s period over an hour would be days. */
#define MAX_GOVERNOR_TICKS 1e8

/* The run's work bounded up front: the governor ticks over the run. */
static int check_work(const sits_scenario *sc, sits_err *err) {
  if (sc->n_domains == 0)
    return SITS_OK;
  double ticks = sc->duration_s / sc->gov.period_s;
  if (ticks > MAX_GOVERNOR_TICKS)
    return sits__fail(err, SITS_EINPUT,
                      "duration_s = %g s with platform.governor.period_s = %g s is %.3g governor "
                      "ticks, more than the %.0e a run takes: raise the period or shorten the run",
                      sc->duration_s, sc->gov.period_s, ticks, MAX_GOVERNOR_TICKS);
  return SITS_OK;
}

static int load(const char *path, const char *text, const char *const *sets, size_t n_sets,
                sits_scenario **out, sits_err *err) {
  *out = NULL;
  sits_scenario *sc = calloc(1, sizeof *sc);
  if (!sc)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  int rc = text ? sits__config_load_text(&sc->config, path, text, sets, n_sets, err)
                : sits__config_load(&sc->config, path, sets, n_sets, err);
  const config_setting_t *root = config_root_setting(&sc->config.cfg);
  if (rc == SITS_OK && (rc = load_values(sc, root, err)) == SITS_OK &&
      (rc = load_solver(sc, root, err)) == SITS_OK &&
      (rc = load_platform(sc, root, err)) == SITS_OK &&
      (rc = sits__load_governor(sc, config_setting_get_member(root, "platform"), err)) == SITS_OK &&
      (rc = sits__load_board(sc, config_setting_get_member(root, "platform"), err)) == SITS_OK &&
      (rc = sits__load_battery(sc, root, err)) == SITS_OK &&
      (rc = sits__load_workload(sc, root, err)) == SITS_OK &&
      (rc = check_item_limits(sc, root, err)) == SITS_OK) /* the workload sets the rates */
    rc = check_work(sc, err);
  if (rc == SITS_OK)
    rc = sits__scenario_assumptions(sc, root, err);
  if (rc == SITS_OK && !sits_scenario_config_text(sc))
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  if (rc) {
    sits_scenario_free(sc);
    return rc;
  }
  *out = sc;
  return SITS_OK;
}

int sits_scenario_load(const char *path, const char *const *sets, size_t n_sets,
                       sits_scenario **out, sits_err *err) {
  return load(path, NULL, sets, n_sets, out, err);
}

int sits_scenario_load_text(const char *text, const char *name, const char *const *sets,
                            size_t n_sets, sits_scenario **out, sits_err *err) {
  if (!text) {
    *out = NULL;
    return sits__fail(err, SITS_EINPUT, "no scenario text");
  }
  return load(name ? name : "<text>", text, sets, n_sets, out, err);
}

int sits_scenario_set_origin(sits_scenario *sc, const char *text) {
  char *copy = text ? strdup(text) : NULL;
  if (text && !copy)
    return SITS_ENOMEM;
  free(sc->origin);
  sc->origin = copy;
  return SITS_OK;
}

const char *sits_scenario_origin(const sits_scenario *sc) {
  return sc->origin;
}

void sits_scenario_free(sits_scenario *sc) {
  if (!sc)
    return;
  free(sc->origin);
  sits__config_release(&sc->config);
  for (size_t k = 0; k < sc->n_notes; k++)
    free(sc->notes[k]);
  free(sc->notes);
  for (size_t k = 0; k < sc->n_assumptions; k++)
    free(sc->assumptions[k]);
  free(sc->assumptions);
  for (size_t d = 0; d < SITS_MAX_DOMAINS; d++)
    free(sc->domains[d].nodes), free(sc->domains[d].fractions);
  for (size_t g = 0; g < sc->n_groups; g++)
    free(sc->groups[g].name), free(sc->groups[g].nodes), free(sc->groups[g].w);
  free(sc->block_share);
  free(sc->groups);
  sits_thermal_free(sc->thermal);
  sits_schedule_free(sc->schedule);
  sits_battery_free(sc->battery);
  free(sc->static_power_w);
  free(sc->config_text);
  free(sc->amb_rows);
  free(sc);
}

int sits_scenario_make_replay(sits_scenario *sc, sits_schedule *schedule, double duration_s,
                              double sample_period_s, const double *initial_c, sits_err *err) {
  if (!schedule || !(duration_s > 0) || !(sample_period_s > 0)) {
    sits_schedule_free(schedule);
    return sits__fail(err, SITS_EINTERNAL, "sits_scenario_make_replay: bad arguments");
  }
  sits_schedule_free(sc->schedule);
  sc->schedule = schedule;
  sc->duration_s = duration_s;
  sc->sample_period_s = sample_period_s;
  if (!sc->traced_domains)
    sc->n_domains = 0; /* the measured power replaces the model's */
  sc->n_amb_rows = 0;  /* the trace's schedule has its ambient built in */
  sc->gov.thermal = SITS_THERMAL_NONE;
  size_t n = sits_thermal_node_count(sc->thermal);
  for (size_t i = 0; i < n; i++) {
    sc->static_power_w[i] = 0;
    if (initial_c)
      sits_thermal_set_initial_c(sc->thermal, (int)i, initial_c[i]);
  }
  sits_battery_free(sc->battery);
  sc->battery = NULL;
  return SITS_OK;
}

void sits__scenario_keep_domains(sits_scenario *sc, const bool *keep) {
  size_t m = 0;
  for (size_t d = 0; d < sc->n_domains; d++) {
    if (!keep[d])
      continue;
    if (d != m) { /* swap: every array stays owned by one slot */
      sits_domain dm = sc->domains[m];
      sc->domains[m] = sc->domains[d], sc->domains[d] = dm;
      sits__dom_caps cm = sc->caps[m];
      sc->caps[m] = sc->caps[d], sc->caps[d] = cm;
      double wm = sc->work_rate[m];
      sc->work_rate[m] = sc->work_rate[d], sc->work_rate[d] = wm;
      sits__dt_domain bm = sc->board.dom[m];
      sc->board.dom[m] = sc->board.dom[d], sc->board.dom[d] = bm;
    }
    m++;
  }
  sc->n_domains = m;
}

const sits_thermal *sits_scenario_thermal(const sits_scenario *sc) {
  return sc->thermal;
}
const sits_schedule *sits_scenario_schedule(const sits_scenario *sc) {
  return sc->schedule;
}
const double *sits_scenario_static_power_w(const sits_scenario *sc) {
  return sc->static_power_w;
}
double sits_scenario_duration_s(const sits_scenario *sc) {
  return sc->duration_s;
}
double sits_scenario_sample_period_s(const sits_scenario *sc) {
  return sc->sample_period_s;
}
size_t sits_scenario_note_count(const sits_scenario *sc) {
  return sc->n_notes;
}

const char *sits_scenario_note(const sits_scenario *sc, size_t k) {
  return k < sc->n_notes ? sc->notes[k] : NULL;
}

size_t sits_scenario_override_count(const sits_scenario *sc) {
  return sc->config.n_sets;
}

const char *sits_scenario_override(const sits_scenario *sc, size_t k) {
  return k < sc->config.n_sets ? sc->config.sets[k] : NULL;
}

unsigned long long sits_scenario_config_hash(const sits_scenario *sc) {
  unsigned long long h = 1469598103934665603ull; /* FNV-1a, 64 bits */
  const char *text = sits_scenario_config_text(sc);
  for (const unsigned char *p = (const unsigned char *)text; p && *p; p++)
    h = (h ^ *p) * 1099511628211ull;
  return h;
}

size_t sits_scenario_input_count(const sits_scenario *sc) {
  return sc->config.n_inputs;
}

const char *sits_scenario_input(const sits_scenario *sc, size_t k) {
  return k < sc->config.n_inputs ? sc->config.inputs[k] : NULL;
}

const char *sits_scenario_config_text(const sits_scenario *sc) {
  /* made again after sits_scenario_set_number: the cache is not part of the scenario's
   * value, and a scenario is always heap-allocated, never a const object */
  sits_scenario *cache = (sits_scenario *)sc;
  if (!cache->config_text)
    cache->config_text = sits__config_text(&cache->config);
  return cache->config_text;
}

/* "<prefix>[K].<suffix>" -> K; false when @p path is not of that shape. */
static bool indexed(const char *path, const char *prefix, const char *suffix, size_t *k) {
  size_t lp = strlen(prefix);
  if (strncmp(path, prefix, lp) != 0 || path[lp] != '[')
    return false;
  char *end;
  unsigned long v = strtoul(path + lp + 1, &end, 10);
  if (end == path + lp + 1 || strncmp(end, "].", 2) != 0 || strcmp(end + 2, suffix) != 0)
    return false;
  *k = (size_t)v;
  return true;
}

/* The message in @p err, prefixed with @p path. */
static int prefixed(const char *path, int rc, sits_err *err) {
  char msg[SITS_ERRMSG_MAX];
  snprintf(msg, sizeof msg, "%s", err->msg);
  return sits__fail(err, rc, "%s: %s", path, msg);
}

/* "platform.fans.[F].r_k_per_w.[J]" -> F, J. */
static bool fan_point(const sits_scenario *sc, const char *path, size_t *f, size_t *j) {
  unsigned long a, b;
  int used = 0;
  if (sscanf(path, "platform.fans.[%lu].r_k_per_w.[%lu]%n", &a, &b, &used) != 2 ||
      path[used] != '\0' || a >= sc->n_fans || b >= sc->fans[a].n_points)
    return false;
  *f = a, *j = b;
  return true;
}

/* The fan on link @p k, or -1. */
static int fan_on_link(const sits_scenario *sc, size_t k) {
  for (size_t f = 0; f < sc->n_fans; f++)
    if (sc->fans[f].link == k)
      return (int)f;
  return -1;
}

/* "platform.domains.[K].<what>" (leak_ref_w, leak_per_k) -> the loaded domain of that
 * config entry's name (a replay keeps only some), or NULL. */
static sits_domain *domain_at(sits_scenario *sc, const char *path, const char *what) {
  size_t k;
  if (!indexed(path, "platform.domains.", what, &k))
    return NULL;
  const config_setting_t *l = config_lookup(&sc->config.cfg, "platform.domains");
  const char *nm = NULL;
  if (!l || k >= (size_t)config_setting_length(l) ||
      !config_setting_lookup_string(config_setting_get_elem(l, (unsigned)k), "name", &nm))
    return NULL;
  for (size_t d = 0; d < sc->n_domains; d++)
    if (!strcmp(sc->domains[d].name, nm))
      return &sc->domains[d];
  return NULL;
}

/* "replay.sensors.[K].lag_s" of a sensor the scenario lists -> K. */
static bool sensor_lag(const sits_scenario *sc, const char *path, size_t *k) {
  const config_setting_t *s = config_lookup(&sc->config.cfg, "replay.sensors");
  return indexed(path, "replay.sensors.", "lag_s", k) && s && config_setting_is_list(s) &&
         *k < (size_t)config_setting_length(s);
}

/* Whether the model part of sits_scenario_set_number takes @p path in this scenario. */
static bool settable(const sits_scenario *sc, const char *path) {
  size_t k, j;
  if (fan_point(sc, path, &k, &j) || sensor_lag(sc, path, &k))
    return true;
  if (domain_at((sits_scenario *)sc, path, "leak_ref_w") ||
      domain_at((sits_scenario *)sc, path, "leak_per_k"))
    return true;
  bool net = indexed(path, "platform.thermal.links.", "r_k_per_w", &k) ||
             indexed(path, "platform.thermal.nodes.", "c_j_per_k", &k) ||
             indexed(path, "platform.thermal.nodes.", "initial_c", &k);
  return strcmp(path, "ambient_c") == 0 || (net && !sc->hotspot);
}

/* The model part of a changed number (the configuration is the caller's). */
static int model_set(sits_scenario *sc, const char *path, double value, sits_err *err) {
  size_t k, j;
  int rc;
  if (!isfinite(value))
    return sits__fail(err, SITS_EINPUT, "%s: the value must be finite", path);
  if (!settable(sc, path)) {
    if (sc->hotspot && strncmp(path, "platform.thermal.", 17) == 0)
      return sits__fail(err, SITS_EUNSUPPORTED, "%s: a floorplan network has no such value", path);
    return sits__fail(err, SITS_EUNSUPPORTED,
                      "%s cannot be changed in a loaded scenario (give it with --set when loading)",
                      path);
  }
  if (strcmp(path, "ambient_c") == 0) {
    sc->ambient_c = value;
    for (size_t j = 0; j < sc->n_amb_rows; j++)
      sits_schedule_set_ambient_c(sc->schedule, sc->amb_rows[j], value);
  } else if (indexed(path, "platform.thermal.links.", "r_k_per_w", &k)) {
    if (fan_on_link(sc, k) >= 0)
      return sits__fail(err, SITS_EINPUT,
                        "%s: fan '%s' sets this link's resistance (set its r_k_per_w)", path,
                        sc->fans[fan_on_link(sc, k)].name);
    if ((rc = sits_thermal_set_link_r(sc->thermal, k, value, err)))
      return prefixed(path, rc, err);
  } else if (domain_at(sc, path, "leak_ref_w")) {
    if (!(value >= 0))
      return sits__fail(err, SITS_EINPUT, "%s: must be >= 0 (got %g)", path, value);
    domain_at(sc, path, "leak_ref_w")->leak_ref_w = value;
  } else if (domain_at(sc, path, "leak_per_k")) {
    if (!(value >= 0 && value < 1))
      return sits__fail(err, SITS_EINPUT, "%s: must be in [0, 1) (got %g)", path, value);
    domain_at(sc, path, "leak_per_k")->leak_per_k = value;
  } else if (fan_point(sc, path, &k, &j)) {
    if (!(value > 0))
      return sits__fail(err, SITS_EINPUT, "%s: must be > 0 (got %g)", path, value);
    double old = sc->fans[k].r_k_per_w[j];
    sc->fans[k].r_k_per_w[j] = value;
    if ((rc = sits__fan_apply(sc, k, err))) {
      sc->fans[k].r_k_per_w[j] = old;
      return prefixed(path, rc, err);
    }
  } else if (indexed(path, "platform.thermal.nodes.", "c_j_per_k", &k)) {
    if ((rc = sits_thermal_set_capacity(sc->thermal, (int)k, value, err)))
      return prefixed(path, rc, err);
  } else if (indexed(path, "platform.thermal.nodes.", "initial_c", &k)) {
    if (k >= sits_thermal_node_count(sc->thermal))
      return sits__fail(err, SITS_EINPUT, "%s: no such node", path);
    sits_thermal_set_initial_c(sc->thermal, (int)k, value);
  } else if (sensor_lag(sc, path, &k) && !(value >= 0)) { /* the replay reads the value */
    return sits__fail(err, SITS_EINPUT, "%s: must be >= 0 (got %g)", path, value);
  }
  return SITS_OK;
}

int sits_scenario_set_number(sits_scenario *sc, const char *path, double value, sits_err *err) {
  int rc = model_set(sc, path, value, err);
  if (rc)
    return rc;
  if (sits__config_set_number(&sc->config, path, value))
    return sits__fail(err, SITS_ENOMEM, "%s: cannot record the value in the configuration", path);
  free(sc->config_text);
  sc->config_text = NULL;
  return SITS_OK;
}

int sits__scenario_apply_sets(sits_scenario *sc, const char *const *sets, size_t n, sits_err *err) {
  double x[64];
  char path[256];
  if (n > 64)
    return SITS_EUNSUPPORTED;
  for (size_t i = 0; i < n; i++) { /* all checked before anything changes */
    const char *eq = strchr(sets[i], '=');
    char *end;
    if (!eq || (size_t)(eq - sets[i]) >= sizeof path)
      return SITS_EUNSUPPORTED;
    snprintf(path, sizeof path, "%.*s", (int)(eq - sets[i]), sets[i]);
    x[i] = strtod(eq + 1, &end);
    const sits_key *k = sits_config_key(path);
    if (end == eq + 1 || *end || !isfinite(x[i]) || !k || k->type != SITS_KEY_NUMBER ||
        !settable(sc, path))
      return SITS_EUNSUPPORTED;
    if (!sits__key_in_range(k, x[i]))
      return SITS_EUNSUPPORTED; /* out of range: the loader's message */
  }
  for (size_t i = 0; i < n; i++) {
    const char *eq = strchr(sets[i], '=');
    snprintf(path, sizeof path, "%.*s", (int)(eq - sets[i]), sets[i]);
    int rc = model_set(sc, path, x[i], err);
    if (rc == SITS_OK) /* the text as a --set load records it: the same config_hash */
      rc = sits__config_apply_set(&sc->config, sets[i], err);
    if (rc)
      return rc;
  }
  free(sc->config_text);
  sc->config_text = NULL;
  return SITS_OK;
}

const sits_limits *sits_scenario_limits(const sits_scenario *sc) {
  return &sc->limits;
}
const sits_solver_settings *sits_scenario_solver(const sits_scenario *sc) {
  return &sc->solver;
}
const sits_domain *sits_scenario_domains(const sits_scenario *sc, size_t *n) {
  if (n)
    *n = sc->n_domains;
  return sc->domains;
}
double sits_scenario_ambient_c(const sits_scenario *sc) {
  return sc->ambient_c;
}
const config_t *sits__scenario_cfg(const sits_scenario *sc) {
  return &sc->config.cfg;
}
const char *sits__scenario_path(const sits_scenario *sc) {
  return sc->config.scenario_path;
}
sits_thermal *sits__scenario_thermal_mut(sits_scenario *sc) {
  return sc->thermal;
}
const sits__fan *sits__scenario_fan(const sits_scenario *sc, size_t k) {
  return k < sc->n_fans ? &sc->fans[k] : NULL;
}
bool sits__scenario_traced_domains(const sits_scenario *sc) {
  return sc->traced_domains;
}
void sits__scenario_set_traced_domains(sits_scenario *sc) {
  sc->traced_domains = true;
}
const sits_governor_cfg *sits_scenario_governor(const sits_scenario *sc) {
  return &sc->gov;
}
const sits_battery *sits_scenario_battery(const sits_scenario *sc) {
  return sc->battery;
}

size_t sits_scenario_fan_count(const sits_scenario *sc) {
  return sc->n_fans;
}

const char *sits_scenario_fan_name(const sits_scenario *sc, size_t k) {
  return k < sc->n_fans ? sc->fans[k].name : NULL;
}

size_t sits_scenario_domain_count(const sits_scenario *sc) {
  size_t n;
  sits_scenario_domains(sc, &n);
  return n;
}

const char *sits_scenario_domain_name(const sits_scenario *sc, size_t d) {
  size_t n;
  const sits_domain *dom = sits_scenario_domains(sc, &n);
  return d < n ? dom[d].name : NULL;
}

size_t sits_scenario_node_count(const sits_scenario *sc) {
  return sits_thermal_node_count(sits_scenario_thermal(sc));
}

const char *sits_scenario_node_name(const sits_scenario *sc, size_t i) {
  const sits_thermal *th = sits_scenario_thermal(sc);
  return i < sits_thermal_node_count(th) ? sits_thermal_name(th, (int)i) : NULL;
}

/*
 * board_cfg.c - the board's names for the outputs runtimes take as they are: the platform's
 * `device_tree` group and the domains' dt_* keys (dvfs-table --format dts), and its
 * `nvpmodel` group (--format nvpmodel). Only names and the trips' settings are read here;
 * the numbers the outputs carry come from the model (board_out.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "scenario_internal.h"
#include "status_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define DT_KEY "platform.device_tree."
#define ZONE_KEY "platform.device_tree.zones.[]."
#define NVP_KEY "platform.nvpmodel."
#define CLOCK_KEY "platform.nvpmodel.clocks.[]."

/* A device-tree label: a letter or '_', then [A-Za-z0-9_], under 32 characters. */
static bool label_ok(const char *s) {
  if (!s || !(isalpha((unsigned char)s[0]) || s[0] == '_') || strlen(s) >= sizeof(sits__label))
    return false;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_')
      return false;
  return true;
}

/* The strings of array member @p key of @p g into out[max][size]; *n their count. */
static int strings(const config_setting_t *g, const char *key, char *out, size_t size, size_t max,
                   bool labels, size_t *n, sits_err *err) {
  const config_setting_t *a = config_setting_get_member(g, key);
  *n = 0;
  if (!a)
    return SITS_OK;
  if (!config_setting_is_array(a) || (size_t)config_setting_length(a) > max)
    return sits__fail_at(err, SITS_EINPUT, a, "'%s' must be an array of at most %zu names", key,
                         max);
  for (int i = 0; i < config_setting_length(a); i++) {
    const char *s = config_setting_get_string_elem(a, i);
    if (!s || (labels && !label_ok(s)) || strlen(s) >= size || !*s)
      return sits__fail_at(err, SITS_EINPUT, a,
                           labels ? "'%s' must hold device-tree labels ([A-Za-z_][A-Za-z0-9_]*, "
                                    "under %zu characters)"
                                  : "'%s' must hold names of 1 to %zu characters",
                           key, size - 1);
    snprintf(out + (size_t)i * size, size, "%s", s);
  }
  *n = (size_t)config_setting_length(a);
  return SITS_OK;
}

static int read_domain_dt(sits_scenario *sc, size_t d, const config_setting_t *g, sits_err *err) {
  sits__dt_domain *x = &sc->board.dom[d];
  const char *node = NULL;
  double cluster = NAN;
  bool table = false;
  int rc;
  const config_setting_t *t = config_setting_get_member(g, "dt_opp_table");
  if ((rc = strings(g, "dt_cpus", x->cpus[0], sizeof x->cpus[0], SITS__DT_LABELS, true, &x->n_cpus,
                    err)) ||
      (rc = sits__key_str(g, "platform.domains.[].dt_node", &node, err)) ||
      (rc = sits__key_num(g, "platform.domains.[].dt_cluster_size", &cluster, err)) ||
      (rc = sits__key_bool(g, "platform.domains.[].dt_opp_table", &table, err)) ||
      (rc = sits__key_num(g, "platform.domains.[].dt_volt_max_v", &x->volt_max_v, err)) ||
      (rc = sits__key_num(g, "platform.domains.[].dt_clock_latency_ns", &x->clock_latency_ns,
                          err)) ||
      (rc = sits__key_num(g, "platform.domains.[].dt_suspend_mhz", &x->suspend_mhz, err)))
    return rc;
  const sits_domain *dom = &sc->domains[d];
  if (!isnan(x->volt_max_v) && x->volt_max_v < dom->opp[dom->n_opp - 1].volt_v)
    return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(g, "dt_volt_max_v"),
                         "dt_volt_max_v %g V is below the top OPP's %g V", x->volt_max_v,
                         dom->opp[dom->n_opp - 1].volt_v);
  bool found = isnan(x->suspend_mhz);
  for (size_t k = 0; k < dom->n_opp; k++)
    found = found || dom->opp[k].freq_mhz == x->suspend_mhz;
  if (!found)
    return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(g, "dt_suspend_mhz"),
                         "dt_suspend_mhz %g is not one of the domain's OPPs", x->suspend_mhz);
  x->opp_table = t ? table : true; /* the key's default is true */
  if (node && !label_ok(node))
    return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(g, "dt_node"),
                         "dt_node '%s' is not a device-tree label ([A-Za-z_][A-Za-z0-9_]*)", node);
  if (node && x->n_cpus)
    return sits__fail_at(err, SITS_EINPUT, g, "give 'dt_cpus' or 'dt_node', not both");
  snprintf(x->node, sizeof x->node, "%s", node ? node : "");
  x->cluster_size = isnan(cluster) ? x->n_cpus : (size_t)cluster;
  if (x->n_cpus && x->n_cpus % x->cluster_size)
    return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(g, "dt_cluster_size"),
                         "dt_cluster_size %zu does not divide the %zu dt_cpus", x->cluster_size,
                         x->n_cpus);
  return SITS_OK;
}

/* The domain whose dt_cpus or dt_node holds @p label, or -1. */
static int label_domain(const sits_scenario *sc, const char *label) {
  for (size_t d = 0; d < sc->n_domains; d++) {
    const sits__dt_domain *x = &sc->board.dom[d];
    if (strcmp(x->node, label) == 0)
      return (int)d;
    for (size_t c = 0; c < x->n_cpus; c++)
      if (strcmp(x->cpus[c], label) == 0)
        return (int)d;
  }
  return -1;
}

/* The thermal-zones binding's name rule: <name>-thermal matches
 * ^[a-zA-Z][a-zA-Z0-9\-]{1,12}-thermal$. */
static bool zone_name_ok(const char *s) {
  size_t n = strlen(s);
  if (n < 2 || n > 13 || !isalpha((unsigned char)s[0]))
    return false;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '-')
      return false;
  return true;
}

static int read_zone(sits_scenario *sc, sits__dt_zone *z, const config_setting_t *g,
                     sits_err *err) {
  const char *name;
  int rc;
  if (!config_setting_is_group(g))
    return sits__fail_at(err, SITS_EINPUT, g, "a zone must be a group { name; sensor_id; }");
  if ((rc = sits__key_str(g, ZONE_KEY "name", &name, err)) ||
      (rc = sits__key_num(g, ZONE_KEY "sensor_id", &z->sensor_id, err)) ||
      (rc = strings(g, "cooling", z->cooling[0], sizeof z->cooling[0], SITS__DT_LABELS, true,
                    &z->n_cooling, err)))
    return rc;
  if (!zone_name_ok(name))
    return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(g, "name"),
                         "zone name '%s': the thermal-zones binding wants a letter, then 1 to 12 "
                         "of [a-zA-Z0-9-] (the node is <name>-thermal)",
                         name);
  snprintf(z->name, sizeof z->name, "%s", name);
  for (size_t k = 0; k < z->n_cooling; k++)
    if (label_domain(sc, z->cooling[k]) < 0)
      return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(g, "cooling"),
                           "cooling device '%s' is in no domain's dt_cpus or dt_node",
                           z->cooling[k]);
  return SITS_OK;
}

static int read_device_tree(sits_scenario *sc, const config_setting_t *t, sits_err *err) {
  sits__board *b = &sc->board;
  const char *sensor;
  int rc;
  if (!config_setting_is_group(t))
    return sits__fail_at(err, SITS_EINPUT, t, "'device_tree' must be a group");
  if ((rc = sits__key_str(t, DT_KEY "thermal_sensor", &sensor, err)) ||
      (rc = sits__key_num(t, DT_KEY "critical_c", &b->critical_c, err)) ||
      (rc = sits__key_num(t, DT_KEY "hysteresis_c", &b->hysteresis_c, err)) ||
      (rc = sits__key_num(t, DT_KEY "polling_delay_ms", &b->polling_ms, err)) ||
      (rc = sits__key_num(t, DT_KEY "polling_delay_passive_ms", &b->polling_passive_ms, err)))
    return rc;
  if (!label_ok(sensor))
    return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(t, "thermal_sensor"),
                         "thermal_sensor '%s' is not a device-tree label ([A-Za-z_][A-Za-z0-9_]*)",
                         sensor);
  snprintf(b->sensor, sizeof b->sensor, "%s", sensor);
  b->dt = true;
  const config_setting_t *zones = config_setting_get_member(t, "zones");
  if (zones && (!config_setting_is_list(zones) || config_setting_length(zones) > SITS__DT_ZONES))
    return sits__fail_at(err, SITS_EINPUT, zones, "'zones' must be a list of at most %d groups",
                         SITS__DT_ZONES);
  for (int i = 0; zones && i < config_setting_length(zones); i++) {
    sits__dt_zone *z = &b->zones[b->n_zones];
    if ((rc = read_zone(sc, z, config_setting_get_elem(zones, (unsigned)i), err)))
      return rc;
    for (size_t j = 0; j < b->n_zones; j++)
      if (strcmp(b->zones[j].name, z->name) == 0)
        return sits__fail_at(err, SITS_EINPUT, config_setting_get_elem(zones, (unsigned)i),
                             "zone '%s' is given twice", z->name);
    b->n_zones++;
  }
  return SITS_OK;
}

static int read_clock(sits_scenario *sc, sits__nvp_clock *c, const config_setting_t *g,
                      sits_err *err) {
  const char *dom;
  int rc;
  if (!config_setting_is_group(g))
    return sits__fail_at(err, SITS_EINPUT, g, "a clock must be a group { domain; params; }");
  if ((rc = sits__key_str(g, CLOCK_KEY "domain", &dom, err)) ||
      (rc = strings(g, "params", c->params[0], sizeof c->params[0], 4, false, &c->n_params, err)) ||
      (rc = sits__key_num(g, CLOCK_KEY "unit_hz", &c->unit_hz, err)) ||
      (rc = sits__key_bool(g, CLOCK_KEY "min_freq", &c->min_freq, err)) ||
      (rc = sits__key_bool(g, CLOCK_KEY "power_control", &c->power_control, err)))
    return rc;
  if ((c->domain = sits__find_domain(sc, dom)) < 0)
    return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(g, "domain"),
                         "nvpmodel clock names unknown domain '%s'", dom);
  if (c->n_params == 0)
    return sits__fail_at(err, SITS_EINPUT, g, "'params' needs at least one PARAM name");
  for (size_t k = 0; k < c->n_params; k++)
    for (const char *p = c->params[k]; *p; p++)
      if (!isalnum((unsigned char)*p) && *p != '_')
        return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(g, "params"),
                             "PARAM name '%s' may hold only [A-Za-z0-9_]", c->params[k]);
  return SITS_OK;
}

static int read_nvpmodel(sits_scenario *sc, const config_setting_t *t, sits_err *err) {
  sits__board *b = &sc->board;
  int rc;
  if (!config_setting_is_group(t))
    return sits__fail_at(err, SITS_EINPUT, t, "'nvpmodel' must be a group");
  if ((rc = strings(t, "stock_modes", b->stock[0], sizeof b->stock[0], 16, false, &b->n_stock,
                    err)) ||
      (rc = sits__key_num(t, NVP_KEY "cpu_cores", &b->cpu_cores, err)) ||
      (rc = sits__key_bool(t, NVP_KEY "emc", &b->emc, err)))
    return rc;
  const config_setting_t *list = config_setting_get_member(t, "clocks");
  if (!list || !config_setting_is_list(list) || config_setting_length(list) == 0 ||
      (size_t)config_setting_length(list) > SITS_MAX_DOMAINS)
    return sits__fail_at(err, SITS_EINPUT, list ? list : t,
                         "'nvpmodel' needs a 'clocks' list of 1 to %d groups", SITS_MAX_DOMAINS);
  for (int i = 0; i < config_setting_length(list); i++) {
    sits__nvp_clock *c = &b->clocks[b->n_clocks];
    if ((rc = read_clock(sc, c, config_setting_get_elem(list, (unsigned)i), err)))
      return rc;
    for (size_t j = 0; j < b->n_clocks; j++)
      if (b->clocks[j].domain == c->domain)
        return sits__fail_at(err, SITS_EINPUT, config_setting_get_elem(list, (unsigned)i),
                             "domain '%s' has two nvpmodel clocks", sc->domains[c->domain].name);
    b->n_clocks++;
  }
  b->nvp = true;
  return SITS_OK;
}

int sits__load_board(sits_scenario *sc, const config_setting_t *p, sits_err *err) {
  sits__board *b = &sc->board;
  memset(b, 0, sizeof *b);
  b->critical_c = b->hysteresis_c = b->polling_ms = b->polling_passive_ms = NAN;
  const config_setting_t *list = p ? config_setting_get_member(p, "domains") : NULL;
  int rc;
  for (size_t d = 0; d < sc->n_domains; d++) {
    b->dom[d].opp_table = true;
    b->dom[d].volt_max_v = b->dom[d].clock_latency_ns = b->dom[d].suspend_mhz = NAN;
    if (list && (rc = read_domain_dt(sc, d, config_setting_get_elem(list, (unsigned)d), err)))
      return rc;
  }
  const config_setting_t *dt = p ? config_setting_get_member(p, "device_tree") : NULL;
  const config_setting_t *nvp = p ? config_setting_get_member(p, "nvpmodel") : NULL;
  if (dt && (rc = read_device_tree(sc, dt, err)))
    return rc;
  return nvp ? read_nvpmodel(sc, nvp, err) : SITS_OK;
}

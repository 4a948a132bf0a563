/*
 * domains.c - the platform's `domains` and `governor` groups, read into sits_domain and
 * sits_governor_cfg values and checked (errors name file:line).
 */
#define _POSIX_C_SOURCE 200809L
#include "scenario_internal.h"
#include "status_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define DOMAIN_KEY "platform.domains.[]."
#define OPP_KEY "platform.domains.[].opp.[]."
#define THERMAL_KEY "platform.governor.thermal."

static int read_opps(sits_domain *d, const config_setting_t *g, sits_err *err) {
  const config_setting_t *list = config_setting_get_member(g, "opp");
  if (!list || !config_setting_is_list(list) || config_setting_length(list) == 0)
    return sits__fail_at(err, SITS_EINPUT, list ? list : g,
                         "domain '%s' needs a non-empty 'opp' list", d->name);
  if ((size_t)config_setting_length(list) > sizeof d->opp / sizeof d->opp[0])
    return sits__fail_at(err, SITS_EINPUT, list, "more than %zu OPPs",
                         sizeof d->opp / sizeof d->opp[0]);
  d->n_opp = (size_t)config_setting_length(list);
  for (size_t k = 0; k < d->n_opp; k++) {
    const config_setting_t *o = config_setting_get_elem(list, (unsigned)k);
    sits_opp *p = &d->opp[k];
    int rc;
    if (!config_setting_is_group(o))
      return sits__fail_at(err, SITS_EINPUT, o, "an OPP must be a group { freq_mhz; volt_v; }");
    if ((rc = sits__key_num(o, OPP_KEY "freq_mhz", &p->freq_mhz, err)) ||
        (rc = sits__key_num(o, OPP_KEY "volt_v", &p->volt_v, err)) ||
        (rc = sits__key_num(o, OPP_KEY "power_w", &p->power_w, err)) ||
        (rc = sits__key_num(o, OPP_KEY "items_per_s", &p->items_per_s, err)))
      return rc;
  }
  return SITS_OK;
}

/* Domain heat goes to nodes by name; a grid floorplan block's name spreads its share over
 * the block's cells (sits__group). */
static int read_nodes(sits_scenario *sc, sits_domain *d, const config_setting_t *g, sits_err *err) {
  const char *node;
  int rc = sits__key_str(g, DOMAIN_KEY "node", &node, err);
  const config_setting_t *nodes = config_setting_get_member(g, "nodes");
  const config_setting_t *fr = config_setting_get_member(g, "fractions");
  if (rc)
    return rc;
  if (node && nodes)
    return sits__fail_at(err, SITS_EINPUT, g, "give 'node' or 'nodes', not both");
  size_t names = node                                      ? 1
                 : nodes && config_setting_is_array(nodes) ? (size_t)config_setting_length(nodes)
                                                           : 0;
  if (!names)
    return sits__fail_at(err, SITS_EINPUT, nodes ? nodes : g,
                         "domain '%s' needs 'node' or 'nodes' (node names)", d->name);
  if (fr && (!config_setting_is_array(fr) || (size_t)config_setting_length(fr) != names))
    return sits__fail_at(err, SITS_EINPUT, fr, "'fractions' needs one number per node");
  size_t total = 0;
  for (size_t k = 0; k < names; k++) {
    const char *name = node ? node : config_setting_get_string_elem(nodes, (int)k);
    if (!name)
      return sits__fail_at(err, SITS_EINPUT, nodes, "'nodes' must hold node names");
    const sits__group *grp = sits__scenario_group(sc, name);
    total += grp ? grp->n : 1;
  }
  if (!(d->nodes = calloc(total, sizeof *d->nodes)) ||
      !(d->fractions = calloc(total, sizeof *d->fractions)))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t k = 0; k < names; k++) {
    const char *name = node ? node : config_setting_get_string_elem(nodes, (int)k);
    double share = node ? 1.0
                   : fr ? config_setting_get_float_elem(fr, (int)k)
                        : 1.0 / (double)names;
    const sits__group *grp = sits__scenario_group(sc, name);
    for (size_t c = 0; grp && c < grp->n; c++) {
      d->nodes[d->n_nodes] = grp->nodes[c];
      d->fractions[d->n_nodes++] = share * grp->w[c];
    }
    int rc2 = grp ? sits__scenario_block_share(sc, (size_t)(d - sc->domains), grp, share, err) : 0;
    if (rc2)
      return rc2;
    if (grp)
      continue;
    if ((d->nodes[d->n_nodes] = sits_thermal_find(sc->thermal, name)) < 0)
      return sits__unknown_node(sc->thermal, node ? config_setting_get_member(g, "node") : nodes,
                                "domain", name, err);
    d->fractions[d->n_nodes++] = share;
  }
  return SITS_OK;
}

static int read_domain(sits_scenario *sc, sits_domain *d, const config_setting_t *g,
                       sits_err *err) {
  const char *name, *item;
  int rc;
  if (!config_setting_is_group(g))
    return sits__fail_at(err, SITS_EINPUT, g, "a domain must be a group");
  memset(d, 0, sizeof *d);
  if ((rc = sits__key_str(g, DOMAIN_KEY "name", &name, err)) ||
      (rc = sits__key_str(g, DOMAIN_KEY "item", &item, err)))
    return rc;
  if (strlen(name) >= sizeof d->name || strpbrk(name, "/,\" \t") || strcmp(name, "total") == 0)
    return sits__fail_at(err, SITS_EINPUT, g,
                         "domain name '%s' is too long, has / , \" or spaces, or is 'total'", name);
  snprintf(d->name, sizeof d->name, "%s", name);
  snprintf(d->item, sizeof d->item, "%s", item ? item : "item");
  if ((rc = read_nodes(sc, d, g, err)) || (rc = read_opps(d, g, err)))
    return rc;
  double top_v = d->opp[d->n_opp - 1].volt_v, top_rate = d->opp[d->n_opp - 1].items_per_s;
  if ((rc = sits__key_num(g, DOMAIN_KEY "ceff_f", &d->ceff_f, err)) ||
      (rc = sits__key_num(g, DOMAIN_KEY "idle_w", &d->idle_w, err)) ||
      (rc = sits__key_num(g, DOMAIN_KEY "leak_ref_w", &d->leak_ref_w, err)) ||
      (rc = sits__key_num(g, DOMAIN_KEY "leak_ref_v", &d->leak_ref_v, err)) ||
      (rc = sits__key_num(g, DOMAIN_KEY "leak_ref_c", &d->leak_ref_c, err)) ||
      (rc = sits__key_num(g, DOMAIN_KEY "leak_per_k", &d->leak_per_k, err)) ||
      (rc = sits__key_num(g, DOMAIN_KEY "max_rate", &d->max_rate, err)) ||
      (rc = sits__key_num(g, DOMAIN_KEY "mem_bound", &d->mem_bound, err)))
    return rc;
  if (isnan(d->leak_ref_v)) /* the key table's computed defaults */
    d->leak_ref_v = top_v;
  if (isnan(d->max_rate))
    d->max_rate = isnan(top_rate) ? 0 : top_rate;
  if ((rc = sits_domain_check(d, err)))
    return sits__at(g, rc, err);
  for (size_t k = 0; k < d->n_opp; k++)
    if (sits_domain_dynamic_w(d, k) < 0)
      return sits__fail_at(err, SITS_EINPUT, g,
                           "domain '%s': OPP %zu's power_w %g W is below its reference leakage",
                           d->name, k, d->opp[k].power_w);
  return SITS_OK;
}

/* The domain's class and peak throughput (platform.domains.[].class, tops, mpix_per_s). */
static int read_caps(sits__dom_caps *c, const config_setting_t *g, sits_err *err) {
  static const char *const classes[] = {"other", "cpu", "gpu", "npu", "venc", "vdec"};
  static const char *const prec[SITS__N_PREC] = {"fp32", "fp16", "int8", "int4"};
  const char *cls = NULL;
  int rc;
  if ((rc = sits__key_str(g, DOMAIN_KEY "class", &cls, err)) ||
      (rc = sits__key_num(g, DOMAIN_KEY "tops_efficiency", &c->tops_efficiency, err)) ||
      (rc = sits__key_num(g, DOMAIN_KEY "mpix_per_s", &c->mpix_per_s, err)))
    return rc;
  c->unit = SITS__UNIT_OTHER;
  for (size_t k = 0; cls && k < sizeof classes / sizeof classes[0]; k++)
    if (strcmp(cls, classes[k]) == 0)
      c->unit = (sits__unit)k;
  if (cls && c->unit == SITS__UNIT_OTHER && strcmp(cls, "other") != 0)
    return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(g, "class"),
                         "class '%s' is not one of cpu, gpu, npu, venc, vdec, other", cls);
  const config_setting_t *t = config_setting_get_member(g, "tops");
  if (t && !config_setting_is_group(t))
    return sits__fail_at(err, SITS_EINPUT, t, "'tops' must be a group { fp16 = TOPS; ... }");
  for (int p = 0; p < SITS__N_PREC; p++) {
    char key[64];
    snprintf(key, sizeof key, DOMAIN_KEY "tops.%s", prec[p]);
    if ((rc = sits__key_num(t, key, &c->tops[p], err)))
      return rc;
  }
  return SITS_OK;
}

int sits__find_domain(const sits_scenario *sc, const char *name) {
  for (size_t d = 0; d < sc->n_domains; d++)
    if (strcmp(sc->domains[d].name, name) == 0)
      return (int)d;
  return -1;
}

int sits__load_domains(sits_scenario *sc, const config_setting_t *p, sits_err *err) {
  const config_setting_t *list = config_setting_get_member(p, "domains");
  int rc0;
  if ((rc0 = sits__key_num(p, "platform.mem_gb_per_s", &sc->mem_gb_per_s, err)) ||
      (rc0 = sits__key_num(p, "platform.mem_efficiency", &sc->mem_efficiency, err)))
    return rc0;
  if (!list)
    return SITS_OK;
  if (!config_setting_is_list(list) || (size_t)config_setting_length(list) > SITS_MAX_DOMAINS)
    return sits__fail_at(err, SITS_EINPUT, list, "'domains' must be a list of at most %d groups",
                         SITS_MAX_DOMAINS);
  for (int i = 0; i < config_setting_length(list); i++) {
    const config_setting_t *g = config_setting_get_elem(list, (unsigned)i);
    int rc = read_domain(sc, &sc->domains[i], g, err);
    if (rc || (rc = read_caps(&sc->caps[i], g, err)))
      return rc;
    if (sits__find_domain(sc, sc->domains[i].name) >= 0)
      return sits__fail_at(err, SITS_EINPUT, g, "duplicate domain '%s'", sc->domains[i].name);
    sc->n_domains++;
  }
  return SITS_OK;
}

/* --- governor ----------------------------------------------------------------------- */

/* A group of per-domain numbers (fixed_opp, weights); each name must be a domain. With
 * @p positive each value must be in (0, 1e6] (a weight: a relative share). */
static int per_domain(const sits_scenario *sc, const config_setting_t *g, const char *key,
                      bool positive, double *out, sits_err *err) {
  const config_setting_t *grp = g ? config_setting_get_member(g, key) : NULL;
  if (!grp)
    return SITS_OK;
  if (!config_setting_is_group(grp))
    return sits__fail_at(err, SITS_EINPUT, grp, "'%s' must be a group { <domain> = value; }", key);
  for (int i = 0; i < config_setting_length(grp); i++) {
    const config_setting_t *e = config_setting_get_elem(grp, (unsigned)i);
    int d = sits__find_domain(sc, config_setting_name(e));
    if (d < 0)
      return sits__fail_at(err, SITS_EINPUT, e, "'%s' names unknown domain '%s'", key,
                           config_setting_name(e));
    if (!config_setting_is_number(e))
      return sits__fail_at(err, SITS_EINPUT, e, "'%s.%s' must be a number", key,
                           config_setting_name(e));
    out[d] = config_setting_get_float(e);
    if (positive && !(out[d] > 0 && out[d] <= 1e6)) /* a product with watts stays finite */
      return sits__fail_at(err, SITS_EINPUT, e,
                           "'%s.%s' must be above 0 and at most 1e6 (a domain's relative "
                           "share), not %g",
                           key, config_setting_name(e), out[d]);
  }
  return SITS_OK;
}

static int read_thermal_gov(sits_scenario *sc, const config_setting_t *t, sits_err *err) {
  sits_governor_cfg *c = &sc->gov;
  const char *kind, *sensor;
  int rc;
  if (!config_setting_is_group(t))
    return sits__fail_at(err, SITS_EINPUT, t, "'thermal' must be a group");
  if ((rc = sits__key_str(t, THERMAL_KEY "kind", &kind, err)) ||
      (rc = sits__key_str(t, THERMAL_KEY "sensor", &sensor, err)))
    return rc;
  if ((c->sensor_node = sits_thermal_find(sc->thermal, sensor)) < 0)
    return sits__unknown_node(sc->thermal, config_setting_get_member(t, "sensor"), "sensor", sensor,
                              err);
  if (strcmp(kind, "step_wise") == 0) {
    c->thermal = SITS_THERMAL_STEP_WISE;
    return (rc = sits__key_num_required(t, THERMAL_KEY "trip_c", &c->trip_c, err))
               ? rc
               : sits__key_num(t, THERMAL_KEY "hysteresis_c", &c->hysteresis_c, err);
  }
  if (strcmp(kind, "power_allocator") == 0) {
    double w[SITS_MAX_DOMAINS];
    c->thermal = SITS_THERMAL_POWER_ALLOCATOR;
    for (size_t d = 0; d < SITS_MAX_DOMAINS; d++)
      w[d] = 1.0;
    if ((rc = sits__key_num_required(t, THERMAL_KEY "control_c", &c->control_c, err)) ||
        (rc = sits__key_num_required(t, THERMAL_KEY "switch_on_c", &c->switch_on_c, err)) ||
        (rc = sits__key_num_required(t, THERMAL_KEY "sustainable_power_w", &c->sustainable_power_w,
                                     err)) ||
        (rc = per_domain(sc, t, "weights", true, w, err)))
      return rc;
    memcpy(c->weight, w, sizeof w);
    if (!(c->control_c > c->switch_on_c))
      return sits__fail_at(err, SITS_EINPUT, t, "control_c must be above switch_on_c");
    return SITS_OK;
  }
  return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(t, "kind"),
                       "thermal governor kind '%s' is not one of step_wise, power_allocator", kind);
}

int sits__load_governor(sits_scenario *sc, const config_setting_t *p, sits_err *err) {
  const config_setting_t *g = config_setting_get_member(p, "governor");
  sits_governor_cfg *c = &sc->gov;
  const char *kind = NULL;
  double fixed[SITS_MAX_DOMAINS] = {0};
  int rc;
  memset(c, 0, sizeof *c);
  c->base = SITS_GOV_PERFORMANCE; /* no governor group: every domain at its top OPP */
  if (g && !config_setting_is_group(g))
    return sits__fail_at(err, SITS_EINPUT, g, "'governor' must be a group");
  if (g && (rc = sits__key_str(g, "platform.governor.kind", &kind, err)))
    return rc;
  int base = kind ? sits_base_kind_from_name(kind) : (int)SITS_GOV_PERFORMANCE;
  c->base = base < 0 ? SITS_GOV_PERFORMANCE : (sits_base_kind)base;
  if (base < 0)
    return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(g, "kind"),
                         "governor kind '%s' is not one of fixed, performance, powersave, "
                         "ondemand, schedutil",
                         kind);
  if ((rc = sits__key_num(g, "platform.governor.period_s", &c->period_s, err)) ||
      (rc = sits__key_num(g, "platform.governor.up_threshold", &c->up_threshold, err)) ||
      (rc = per_domain(sc, g, "fixed_opp", false, fixed, err)))
    return rc;
  for (size_t d = 0; d < sc->n_domains; d++) {
    if (fixed[d] < 0 || fixed[d] != floor(fixed[d]) || fixed[d] >= (double)sc->domains[d].n_opp)
      return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(g, "fixed_opp"),
                           "fixed_opp of '%s' must be an OPP index 0..%zu", sc->domains[d].name,
                           sc->domains[d].n_opp - 1);
    c->fixed_opp[d] = (size_t)fixed[d];
  }
  const config_setting_t *t = g ? config_setting_get_member(g, "thermal") : NULL;
  if (t && (rc = read_thermal_gov(sc, t, err)))
    return rc;
  const config_setting_t *cap = g ? config_setting_get_member(g, "power_cap") : NULL;
  if (cap) {
    if (!config_setting_is_group(cap))
      return sits__fail_at(err, SITS_EINPUT, cap, "'power_cap' must be a group { window_s; }");
    if ((rc = sits__key_num(cap, "platform.governor.power_cap.window_s", &c->cap_window_s, err)))
      return rc;
    c->power_cap = !isnan(sc->limits.tdp_budget_w); /* its target; without one, no cap */
    if (c->cap_window_s < c->period_s)
      return sits__fail_at(err, SITS_EINPUT, cap,
                           "window_s must be at least the governor's period_s");
    /* the cap keeps the windows that end on its ticks within budget; a window that is not a
     * whole number of periods also ends between them, where it can go over (0.15 s at 0.1-s
     * ticks: 1.06 W against 1 W) */
    double periods = c->cap_window_s / c->period_s;
    if (fabs(periods - round(periods)) > 1e-9 * periods)
      return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(cap, "window_s"),
                           "window_s %g s must be a whole number of the governor's period_s "
                           "(%g s): the cap holds the windows that end on its ticks",
                           c->cap_window_s, c->period_s);
    c->tdp_budget_w = sc->limits.tdp_budget_w;
  }
  return SITS_OK;
}

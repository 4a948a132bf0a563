/*
 * board_out.c - outputs a board takes as they are (sits_board.h): a device-tree overlay with
 * OPP tables, the Energy Model's coefficients and thermal zones, and an L4T nvpmodel power
 * mode that holds the scenario's budget and junction limit (chosen by sim/nvp_mode.c).
 *
 * The overlay's trips and cooling maps are new nodes named sits-* next to whatever the board's
 * zone already has: overwriting a board node that other nodes reference by phandle would
 * leave those references dangling with dtc 1.6's fdtoverlay.
 */
#define _POSIX_C_SOURCE 200809L
#include "nvp_conf_impl.h"
#include "scenario_internal.h"
#include "sits_board.h"
#include "sits_dvfs.h"
#include "status_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NO_LIMIT "0xffffffff" /* THERMAL_NO_LIMIT */

static const char *platform_name(const sits_scenario *sc) {
  const char *name = NULL;
  return config_lookup_string(&sc->config.cfg, "platform.name", &name) == CONFIG_TRUE && name
             ? name
             : "the platform";
}

/* The mode's lines, "PARAM ARG VALUE" each, in nvpmodel.conf's order (CPU_ONLINE, the GPU's
 * power control around its clocks, the clocks, EMC); cores from the board's conf (every core
 * its CPU_ONLINE defines) or the platform's cpu_cores. n: their count; false when too many. */
#define NVP_LINES 96
typedef char nvp_line[160];

static bool nvp_lines(const sits_scenario *sc, const sits_nvp_mode *m, const sits__nvp_conf *conf,
                      nvp_line *out, size_t *n) {
  const sits__board *b = &sc->board;
  const sits_domain *dom = sits_scenario_domains(sc, &(size_t){0});
  *n = 0;
#define ADD(...)                                                                                   \
  (*n < NVP_LINES ? (void)snprintf(out[(*n)++], sizeof(nvp_line), __VA_ARGS__) : (void)0)
  const sits__nvp_param *online = conf ? sits__nvp_conf_param(conf, "CPU_ONLINE") : NULL;
  if (online)
    for (size_t k = 0; k < online->n_args; k++)
      ADD("CPU_ONLINE %s 1", online->args[k]);
  else
    for (long k = 0; k < (long)b->cpu_cores; k++)
      ADD("CPU_ONLINE CORE_%ld 1", k);
  for (size_t c = 0; c < b->n_clocks; c++) {
    const sits__nvp_clock *k = &b->clocks[c];
    const sits_domain *d = &dom[k->domain];
    long long lo = llround(d->opp[0].freq_mhz * 1e6 / k->unit_hz);
    long long hi = llround(d->opp[m->cap[k->domain]].freq_mhz * 1e6 / k->unit_hz);
    if (k->power_control)
      ADD("GPU_POWER_CONTROL_ENABLE GPU_PWR_CNTL_EN on");
    for (size_t p = 0; p < k->n_params; p++) {
      if (k->min_freq)
        ADD("%s MIN_FREQ %lld", k->params[p], lo);
      ADD("%s MAX_FREQ %lld", k->params[p], hi);
    }
    if (k->power_control)
      ADD("GPU_POWER_CONTROL_DISABLE GPU_PWR_CNTL_DIS auto");
  }
  if (b->emc)
    ADD("EMC MAX_FREQ 0");
#undef ADD
  return *n < NVP_LINES;
}

/* The mode's ID: --mode-id, or the first after the stock modes (the conf's: the lowest ID no
 * POWER_MODEL takes); a stock mode's ID or name is refused. */
static int nvp_id(const sits_scenario *sc, const sits_board_opts *o, const sits__nvp_conf *conf,
                  const char *name, long *id, sits_err *err) {
  const sits__board *b = &sc->board;
  if (conf) {
    *id = o->mode_id;
    for (long want = 0; *id < 0 && want <= 255; want++) {
      bool used = false;
      for (size_t k = 0; k < conf->n_modes; k++)
        used = used || conf->modes[k].id == want;
      if (!used)
        *id = want;
    }
    for (size_t k = 0; k < conf->n_modes; k++) {
      if (conf->modes[k].id == *id)
        return sits__fail(err, SITS_EINPUT, "--mode-id %ld is mode %s of %s: take a free ID", *id,
                          conf->modes[k].name, o->nvpmodel_conf);
      if (strcmp(conf->modes[k].name, name) == 0)
        return sits__fail(err, SITS_EINPUT,
                          "mode name %s is taken by ID %ld in %s: give --mode-name", name,
                          conf->modes[k].id, o->nvpmodel_conf);
    }
    return *id < 0 ? sits__fail(err, SITS_EINPUT, "%s: no free mode ID", o->nvpmodel_conf)
                   : SITS_OK;
  }
  *id = o->mode_id < 0 ? (long)b->n_stock : o->mode_id;
  if (*id < (long)b->n_stock)
    return sits__fail(err, SITS_EINPUT,
                      "--mode-id %ld is the stock mode %s of %s: take %zu or above", *id,
                      b->stock[*id], platform_name(sc), b->n_stock);
  if (*id > 255)
    return sits__fail(err, SITS_EINPUT, "--mode-id %ld: nvpmodel takes IDs 0 to 255", *id);
  return SITS_OK;
}

/* The header: where the mode goes, the stock modes, how it was chosen and what binds. */
static void nvp_header(const sits_scenario *sc, const sits_board_opts *o,
                       const sits__nvp_conf *conf, const sits_nvp_mode *m, long id, FILE *f) {
  const sits__board *b = &sc->board;
  size_t nd;
  const sits_domain *dom = sits_scenario_domains(sc, &nd);
  fprintf(f,
          "# nvpmodel power mode for %s, written by sitsenergy dvfs-table.\n"
          "# Append to the board's /etc/nvpmodel.conf (it has the PARAM definitions), then\n"
          "# sudo nvpmodel -m %ld.",
          platform_name(sc), id);
  if (conf) {
    fprintf(f, "\n# %s has the modes", o->nvpmodel_conf);
    for (size_t k = 0; k < conf->n_modes; k++)
      fprintf(f, "%s %ld %s", k ? "," : "", conf->modes[k].id, conf->modes[k].name);
    fputs(";\n# every line below names a PARAM and argument it defines.", f);
  } else if (b->n_stock) {
    fprintf(f, " IDs 0-%zu are the stock modes", b->n_stock - 1);
    for (size_t k = 0; k < b->n_stock; k++)
      fprintf(f, "%s%s", k ? ", " : " (", b->stock[k]);
    fputs(").", f);
  } else
    fputs(" The platform names no stock modes: check the ID is free.", f);
  fputc('\n', f);
  fprintf(f,
          "# Chosen so that every domain at full load at its cap (the worst case) keeps steady\n"
          "# total power <= the budget and the junction < the limit at the ambient; among those\n"
          "# caps, the ones that serve the largest share of the workload's peak demand, then\n"
          "# keep the most capacity (combinations tried: %zu).\n",
          m->evaluated);
  char budget[32] = "none", limit[32] = "none";
  if (!isnan(m->tdp_budget_w))
    snprintf(budget, sizeof budget, "%.6g W", m->tdp_budget_w);
  if (!isnan(m->limit_c))
    snprintf(limit, sizeof limit, "%.6g C", m->limit_c);
  fprintf(f,
          "# Budget %s, junction limit %s, ambient %.4g C: at full load %.4g W, %.4g C;\n"
          "# %.1f %% of the workload's peak demand served.\n",
          budget, limit, m->ambient_c, m->total_power_w, m->junction_c, 100.0 * m->throughput);
  /* what holds each cap below its top: one OPP more on that domain alone, evaluated */
  bool by_budget = false, by_limit = false;
  for (size_t d = 0; d < nd; d++) {
    if (!m->capped[d] || m->cap[d] + 1 >= dom[d].n_opp)
      continue;
    size_t cap[SITS_MAX_DOMAINS];
    memcpy(cap, m->cap, sizeof cap);
    cap[d]++;
    sits_nvp_mode up;
    sits_err e = {0};
    if (sits_nvp_mode_eval(sc, cap, &up, &e) != SITS_OK)
      continue;
    /* the boundaries of sits_nvp_mode_eval's feasibility: over the budget, at or over the limit */
    bool over_b = up.total_power_w > m->tdp_budget_w, over_l = up.junction_c >= m->limit_c;
    by_budget |= over_b, by_limit |= over_l;
    fprintf(f, "# One OPP more on %s (%.6g MHz): %.4g W, %.4g C: %s.\n", dom[d].name,
            dom[d].opp[cap[d]].freq_mhz, up.total_power_w, up.junction_c,
            over_b && over_l ? "over the budget and the junction limit"
            : over_b         ? "over the budget"
            : over_l         ? "over the junction limit"
                             : "within both");
  }
  if (by_limit && !by_budget && !(m->total_power_w > 0.95 * m->tdp_budget_w))
    fprintf(f,
            "# The junction limit binds, not the budget: at %.4g C ambient the caps that keep\n"
            "# %.6g C draw %.4g W; a larger budget gives the same mode here.\n",
            m->ambient_c, m->limit_c, m->total_power_w);
  for (size_t d = 0; d < nd; d++)
    fprintf(f, "#   %s: %s %.6g MHz (of %.6g), peak demand %.3g\n", dom[d].name,
            m->capped[d] ? "cap" : "not an nvpmodel clock, at", dom[d].opp[m->cap[d]].freq_mhz,
            dom[d].opp[dom[d].n_opp - 1].freq_mhz, m->demand[d]);
}

static int write_nvpmodel(const sits_scenario *sc, const sits_board_opts *o, FILE *f,
                          sits_err *err) {
  const sits__board *b = &sc->board;
  if (!b->nvp)
    return sits__fail(err, SITS_EINPUT,
                      "platform '%s' names no nvpmodel parameters (platform.nvpmodel.clocks): "
                      "nvpmodel is the Jetson (L4T) tool; see the README's key reference",
                      platform_name(sc));
  sits__nvp_conf *conf = o->nvpmodel_conf ? malloc(sizeof *conf) : NULL;
  nvp_line *lines = malloc(NVP_LINES * sizeof *lines);
  int rc = !lines || (o->nvpmodel_conf && !conf) ? sits__fail(err, SITS_ENOMEM, "out of memory")
           : conf                                ? sits__nvp_conf_read(o->nvpmodel_conf, conf, err)
                                                 : SITS_OK;
  sits_nvp_mode m;
  if (rc == SITS_OK)
    rc = sits_nvp_mode_choose(sc, &m, err);
  if (rc == SITS_OK && !m.feasible)
    rc = sits__fail(err, SITS_EINPUT,
                    "no power mode holds %s%.6g W and %.6g C at %.6g C ambient: the lowest OPPs "
                    "still take %.4g W and reach %.4g C",
                    isnan(m.tdp_budget_w) ? "(no budget) " : "", m.tdp_budget_w, m.limit_c,
                    m.ambient_c, m.total_power_w, m.junction_c);
  char name[32] = "";
  if (rc == SITS_OK) {
    if (o->mode_name)
      snprintf(name, sizeof name, "%s", o->mode_name);
    else if (isnan(m.tdp_budget_w))
      snprintf(name, sizeof name, "SITS_SUSTAINABLE");
    else { /* SITS_15W; 12.5 W: SITS_12_5W (one name per budget, to the milliwatt) */
      long long mw = llround(m.tdp_budget_w * 1e3);
      if (mw % 1000 == 0)
        snprintf(name, sizeof name, "SITS_%lldW", mw / 1000);
      else {
        char frac[8];
        snprintf(frac, sizeof frac, "%03lld", mw % 1000);
        for (size_t e = strlen(frac); e > 1 && frac[e - 1] == '0'; e--)
          frac[e - 1] = '\0';
        snprintf(name, sizeof name, "SITS_%lld_%sW", mw / 1000, frac);
      }
    }
    for (const char *p = name; *p && rc == SITS_OK; p++)
      if (!isalnum((unsigned char)*p) && *p != '_')
        rc = sits__fail(err, SITS_EINPUT, "--mode-name '%s' may hold only [A-Za-z0-9_]", name);
  }
  long id = -1;
  size_t n = 0;
  if (rc == SITS_OK)
    rc = nvp_id(sc, o, conf, name, &id, err);
  if (rc == SITS_OK && !nvp_lines(sc, &m, conf, lines, &n))
    rc = sits__fail(err, SITS_EINPUT, "the mode would take more than %d lines", NVP_LINES);
  for (size_t k = 0; rc == SITS_OK && conf && k < n; k++) {
    char param[64], arg[64];
    if (sscanf(lines[k], "%63s %63s", param, arg) == 2 && !sits__nvp_conf_has(conf, param, arg))
      rc = sits__fail(err, SITS_EINPUT,
                      "%s defines no PARAM %s with %s, which the mode sets (platform '%s'): is "
                      "it this board's nvpmodel.conf?",
                      o->nvpmodel_conf, param, arg, platform_name(sc));
  }
  if (rc == SITS_OK) {
    nvp_header(sc, o, conf, &m, id, f);
    fprintf(f, "< POWER_MODEL ID=%ld NAME=%s >\n", id, name);
    for (size_t k = 0; k < n; k++)
      fprintf(f, "%s\n", lines[k]);
  }
  free(conf);
  free(lines);
  return rc;
}

/* ---- the device-tree overlay ---- */

/* A label from a name ([a-z0-9_]) and a node name ([a-z0-9-]). */
static void to_label(const char *s, char *out, size_t size, char sep) {
  size_t k = 0;
  for (; *s && k + 1 < size; s++)
    out[k++] = isalnum((unsigned char)*s) ? (char)tolower((unsigned char)*s) : sep;
  out[k] = '\0';
}

typedef struct zone {
  char name[14];
  double sensor_id;
  const sits__dt_zone *cfg; /* NULL: made up for a platform without device_tree */
  double share[SITS_MAX_DOMAINS];
  bool any;
} zone;

/* The zones to write: the platform's, or one per domain. */
static size_t make_zones(const sits_scenario *sc, int only, zone *z) {
  const sits__board *b = &sc->board;
  size_t nd, n = 0;
  const sits_domain *dom = sits_scenario_domains(sc, &nd);
  if (!b->dt) {
    for (size_t d = 0; d < nd; d++) {
      if (only >= 0 && (int)d != only)
        continue;
      memset(&z[n], 0, sizeof z[n]);
      char base[13];
      to_label(dom[d].name, base, sizeof base, '-');
      snprintf(z[n].name, sizeof z[n].name, "%s%s", isalpha((unsigned char)base[0]) ? "" : "d",
               base);
      if (strlen(z[n].name) < 2)
        snprintf(z[n].name, sizeof z[n].name, "domain%u", (unsigned)(d % 100));
      for (size_t j = 0; j < n; j++) /* unique names */
        if (strcmp(z[j].name, z[n].name) == 0)
          snprintf(z[n].name, sizeof z[n].name, "domain%u", (unsigned)(d % 100));
      z[n].sensor_id = (double)d;
      z[n].share[d] = 1, z[n].any = true;
      n++;
    }
    return n;
  }
  for (size_t k = 0; k < b->n_zones; k++) {
    const sits__dt_zone *c = &b->zones[k];
    zone *o = &z[n];
    memset(o, 0, sizeof *o);
    snprintf(o->name, sizeof o->name, "%s", c->name);
    o->sensor_id = c->sensor_id, o->cfg = c;
    for (size_t d = 0; d < nd; d++) { /* share: clusters (or the device) it cools */
      const sits__dt_domain *x = &b->dom[d];
      size_t clusters = x->n_cpus ? x->n_cpus / x->cluster_size : 1, hit = 0;
      bool seen[SITS__DT_LABELS] = {false};
      for (size_t l = 0; l < c->n_cooling; l++) {
        if (x->node[0] && strcmp(x->node, c->cooling[l]) == 0 && !seen[0])
          seen[0] = true, hit++;
        for (size_t cpu = 0; cpu < x->n_cpus; cpu++)
          if (strcmp(x->cpus[cpu], c->cooling[l]) == 0 && !seen[cpu / x->cluster_size])
            seen[cpu / x->cluster_size] = true, hit++;
      }
      o->share[d] = (double)hit / (double)clusters;
      o->any |= hit > 0;
    }
    if (only < 0 || o->share[only] > 0)
      n++;
  }
  return n;
}

static void trip(FILE *f, const char *zl, const char *suffix, double c, double hyst,
                 const char *type) {
  fprintf(f,
          "\t\t\t\tsits_%s_%s: sits-%s {\n\t\t\t\t\ttemperature = <%lld>;\n"
          "\t\t\t\t\thysteresis = <%lld>;\n\t\t\t\t\ttype = \"%s\";\n\t\t\t\t};\n",
          zl, suffix, suffix, llround(c * 1000), llround(hyst * 1000), type);
}

/* The critical temperature: device_tree.critical_c, else a junction node's critical_c. */
static double critical_of(const sits_scenario *sc) {
  if (!isnan(sc->board.critical_c))
    return sc->board.critical_c;
  const sits_thermal *th = sits_scenario_thermal(sc);
  bool any = sits_thermal_has_junctions(th);
  double c = NAN;
  for (size_t i = 0; i < sits_thermal_node_count(th); i++)
    if (!any || sits_thermal_is_junction(th, (int)i)) {
      double k = sits_thermal_critical_c(th, (int)i);
      if (!isnan(k))
        c = isnan(c) ? k : fmin(c, k);
    }
  return c;
}

static void cooling_device(FILE *f, const char *label, const sits__dt_domain *x,
                           const sits_dvfs_table *t, bool *first) {
  size_t n = t->n, top = n; /* cooling state s caps at OPP n-1-s */
  for (size_t k = 0; k < n; k++)
    if (t->rows[k].sustainable)
      top = k;
  fprintf(f, "%s\n\t\t\t\t\t\t<&%s ", *first ? "" : ",", label);
  if (x->opp_table)
    fprintf(f, "%zu %zu>", top == n ? n - 1 : n - 1 - top, n - 1);
  else
    fputs(NO_LIMIT " " NO_LIMIT ">", f);
  *first = false;
}

static int write_zone(const sits_scenario *sc, const zone *z, const sits_dvfs_table *tables,
                      FILE *f, sits_err *err) {
  const sits__board *b = &sc->board;
  const sits_governor_cfg *g = sits_scenario_governor(sc);
  size_t nd;
  sits_scenario_domains(sc, &nd);
  char zl[16];
  to_label(z->name, zl, sizeof zl, '_');
  double passive_ms =
      isnan(b->polling_passive_ms) ? round(g->period_s * 1000) : b->polling_passive_ms;
  double poll_ms = isnan(b->polling_ms) ? 1000 : b->polling_ms;
  /* status "okay": a SoC dtsi may leave the zone disabled */
  fprintf(f,
          "\t\t%s-thermal {\n\t\t\tpolling-delay-passive = <%.0f>;\n"
          "\t\t\tpolling-delay = <%.0f>;\n\t\t\tstatus = \"okay\";\n",
          z->name, passive_ms, poll_ms);
  if (b->dt)
    fprintf(f,
            isnan(z->sensor_id) ? "\t\t\tthermal-sensors = <&%s>;\n"
                                : "\t\t\tthermal-sensors = <&%s %.0f>;\n",
            b->sensor, z->sensor_id);
  else
    fprintf(f, "\t\t\tthermal-sensors = <&sits_sensor %.0f>; /* stands for the board's */\n",
            z->sensor_id);
  double control = sits__control_c(sc);
  bool cools = z->any && !isnan(control);
  if (cools) {
    double p_w, p_max_w;
    int rc =
        sits__zone_sustainable_w(sc, z->share, tables[0].ambient_c, control, &p_w, &p_max_w, err);
    if (rc)
      return rc;
    if (isfinite(p_w) && llround(p_w * 1000) <= 0) /* 0 is "not given" to the IPA */
      fprintf(f,
              "\t\t\t/* no sustainable-power: at %.4g C ambient static power and the other "
              "actors at their\n\t\t\t * lowest OPPs hold the junction at or above %.4g C "
              "already, with this zone's\n\t\t\t * actors at 0 W (the IPA estimates its "
              "own) */\n",
              tables[0].ambient_c, control);
    else if (isfinite(p_w)) {
      fprintf(f, "\t\t\tsustainable-power = <%lld>; /* mW at %.4g C", llround(p_w * 1000), control);
      if (p_w > p_max_w)
        fprintf(f, "; the zone draws at most %lld mW, so it cannot reach %.4g C on its own",
                llround(p_max_w * 1000), control);
      fputs(" */\n", f);
    }
  }
  fputs("\n\t\t\ttrips {\n", f);
  const char *map_trip = NULL;
  double hyst = !isnan(b->hysteresis_c)                ? b->hysteresis_c
                : g->thermal == SITS_THERMAL_STEP_WISE ? g->hysteresis_c
                                                       : 0;
  if (cools && g->thermal == SITS_THERMAL_POWER_ALLOCATOR) {
    trip(f, zl, "alert0", g->switch_on_c, hyst, "passive");
    trip(f, zl, "alert1", control, hyst, "passive");
    map_trip = "alert1";
  } else if (cools) {
    trip(f, zl, "alert", control, hyst, "passive");
    map_trip = "alert";
  }
  double crit = critical_of(sc);
  if (!isnan(crit))
    trip(f, zl, "crit", crit, 0, "critical");
  fputs("\t\t\t};\n", f);
  bool any_label = z->cfg && z->cfg->n_cooling > 0;
  if (map_trip && any_label) {
    fprintf(f,
            "\n\t\t\tcooling-maps {\n\t\t\t\tmap-sits0 {\n\t\t\t\t\ttrip = <&sits_%s_%s>;\n"
            "\t\t\t\t\tcooling-device =",
            zl, map_trip);
    bool first = true;
    for (size_t l = 0; l < z->cfg->n_cooling; l++)
      for (size_t d = 0; d < nd; d++) {
        const sits__dt_domain *x = &b->dom[d];
        bool mine = strcmp(x->node, z->cfg->cooling[l]) == 0;
        for (size_t c = 0; c < x->n_cpus; c++)
          mine |= strcmp(x->cpus[c], z->cfg->cooling[l]) == 0;
        if (mine)
          cooling_device(f, z->cfg->cooling[l], x, &tables[d], &first);
      }
    fputs(";\n\t\t\t\t};\n\t\t\t};\n", f);
  }
  fputs("\t\t};\n", f);
  return SITS_OK;
}

static void opp_table(FILE *f, const sits_domain *d, const sits__dt_domain *x,
                      const sits_dvfs_table *t, size_t cluster, size_t per) {
  char lab[64], node[64];
  to_label(d->name, lab, sizeof lab, '_');
  to_label(d->name, node, sizeof node, '-');
  fprintf(f,
          "\tsits_%s_opp_table%zu: opp-table-%s-%zu {\n\t\tcompatible = \"operating-points-v2\";\n"
          "\t\topp-shared;\n",
          lab, cluster, node, cluster);
  /* the kernel's Energy Model takes opp-microwatt on every OPP or on none (it fails on a
   * table with some: no EM, no IPA power actor): none where an OPP has no steady power */
  bool all_power = true;
  for (size_t k = 0; k < t->n; k++)
    all_power = all_power && isfinite(t->rows[k].power_w);
  if (!all_power)
    fputs("\t\t/* no opp-microwatt in this table: an OPP runs away at full load at this "
          "ambient, and the\n\t\t * Energy Model needs it on every OPP or none (it takes "
          "dynamic-power-coefficient then) */\n",
          f);
  for (size_t k = 0; k < t->n; k++) {
    const sits_dvfs_row *r = &t->rows[k];
    unsigned long long hz = (unsigned long long)llround(r->freq_mhz * 1e6);
    long long uv = llround(r->volt_v * 1e6);
    fprintf(f, "\n\t\topp-%llu {\n\t\t\topp-hz = /bits/ 64 <%llu>;\n", hz, hz);
    if (isnan(x->volt_max_v))
      fprintf(f, "\t\t\topp-microvolt = <%lld>;\n", uv);
    else /* <target min max>, as the upstream table */
      fprintf(f, "\t\t\topp-microvolt = <%lld %lld %lld>;\n", uv, uv, llround(x->volt_max_v * 1e6));
    if (!isnan(x->clock_latency_ns))
      fprintf(f, "\t\t\tclock-latency-ns = <%lld>;\n", llround(x->clock_latency_ns));
    if (r->freq_mhz == x->suspend_mhz)
      fputs("\t\t\topp-suspend;\n", f);
    if (all_power)
      fprintf(f, "\t\t\topp-microwatt = <%lld>;\n", llround(r->power_w * 1e6 / (double)per));
    else if (!isfinite(r->power_w))
      fputs("\t\t\t/* thermal runaway at full load */\n", f);
    if (r->inefficient)
      fputs("\t\t\t/* inefficient (the Energy Model's rule): a faster OPP costs no more per "
            "cycle */\n",
            f);
    fputs("\t\t};\n", f);
  }
  fputs("\t};\n\n", f);
}

static void device_fragment(FILE *f, const char *label, const sits_domain *d,
                            const sits__dt_domain *x, const sits_dvfs_table *t, size_t cluster,
                            size_t per) {
  char lab[64];
  to_label(d->name, lab, sizeof lab, '_');
  fprintf(f, "\n&%s {\n", label);
  if (x->opp_table)
    fprintf(f, "\toperating-points-v2 = <&sits_%s_opp_table%zu>;\n", lab, cluster);
  fprintf(f, "\tdynamic-power-coefficient = <%lld>;\n\t#cooling-cells = <2>;\n};\n",
          llround(t->dynamic_power_coefficient_uw_per_mhz_v2 / (double)per));
}

/* The trips a kernel would take: the critical trip above the ambient (else the board shuts
 * down at boot) and above every passive trip (else throttling never precedes the shutdown). */
static int check_trips(const sits_scenario *sc, double ambient_c, sits_err *err) {
  double crit = critical_of(sc), control = sits__control_c(sc);
  const sits_governor_cfg *g = sits_scenario_governor(sc);
  if (isnan(crit))
    return SITS_OK;
  if (!(crit > ambient_c))
    return sits__fail(err, SITS_EINPUT,
                      "the critical trip %.6g C is not above the ambient %.6g C: the board would "
                      "shut down as it starts (platform.device_tree.critical_c, or the junction "
                      "node's critical_c)",
                      crit, ambient_c);
  double passive =
      g->thermal == SITS_THERMAL_POWER_ALLOCATOR ? fmax(control, g->switch_on_c) : control;
  if (!isnan(passive) && !(crit > passive))
    return sits__fail(err, SITS_EINPUT,
                      "the critical trip %.6g C is not above the passive trip %.6g C: the board "
                      "would shut down before it throttles",
                      crit, passive);
  return SITS_OK;
}

static int write_dts(const sits_scenario *sc, const sits_board_opts *o, FILE *f, sits_err *err) {
  const sits__board *b = &sc->board;
  size_t nd;
  const sits_domain *dom = sits_scenario_domains(sc, &nd);
  if (nd == 0)
    return sits__fail(err, SITS_EINPUT, "the platform has no DVFS domain");
  int only = o->domain ? sits__find_domain(sc, o->domain) : -1;
  if (o->domain && only < 0)
    return sits__fail(err, SITS_EINPUT, "no domain '%s' in the platform", o->domain);
  sits_dvfs_table *tables = calloc(nd, sizeof *tables);
  zone *zones = calloc(SITS__DT_ZONES > nd ? SITS__DT_ZONES : nd, sizeof *zones);
  int rc = tables && zones ? SITS_OK : sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t d = 0; rc == SITS_OK && d < nd; d++)
    rc = sits_dvfs_table_compute(sc, dom[d].name, &tables[d], err);
  if (rc == SITS_OK)
    rc = check_trips(sc, tables[0].ambient_c, err);
  size_t nz = rc ? 0 : make_zones(sc, only, zones);
  if (rc == SITS_OK) {
    fprintf(f,
            "// SPDX-License-Identifier: (GPL-2.0+ OR MIT)\n"
            "// Device-tree overlay for %s at %.4g C ambient, written by sitsenergy dvfs-table.\n"
            "// Build: dtc -@ -I dts -O dtb -o sits.dtbo THIS; apply: fdtoverlay -i BOARD.dtb\n"
            "// -o OUT.dtb sits.dtbo (or the bootloader's overlay support).\n"
            "// opp-microwatt: one CPU's (or the device's) full-load power at its steady\n"
            "//   temperature, the other domains idle at their lowest OPP.\n"
            "// dynamic-power-coefficient: per CPU (uW/MHz/V^2), the least-squares fit of the\n"
            "//   OPPs' dynamic power divided by the CPUs of the domain.\n"
            "// sustainable-power (the IPA's): the zone's actors' steady power with the hottest\n"
            "//   junction at the control trip, static power on and every other actor at its\n"
            "//   lowest OPP at full load (its least IPA power), leakage included.\n"
            "// Cooling maps: from the state of the highest sustainable OPP to the lowest OPP.\n"
            "// Trips and maps are new nodes (sits-*, map-sits*) beside the board's own.\n",
            platform_name(sc), tables[0].ambient_c);
    if (!b->dt)
      fprintf(f,
              "// %s names no device_tree (README, key reference): &sits_sensor stands for the\n"
              "// board's thermal sensor, and the zones have no cooling devices.\n",
              platform_name(sc));
    fputs("/dts-v1/;\n/plugin/;\n\n&{/} {\n", f);
    for (size_t d = 0; d < nd; d++) {
      const sits__dt_domain *x = &b->dom[d];
      if ((only >= 0 && (int)d != only) || !x->opp_table ||
          (b->dt && !x->n_cpus && !x->node[0])) /* no device of the board takes it */
        continue;
      size_t clusters = x->n_cpus ? x->n_cpus / x->cluster_size : 1;
      for (size_t c = 0; c < clusters; c++)
        opp_table(f, &dom[d], x, &tables[d], c, x->n_cpus ? x->n_cpus : 1);
      if (!x->n_cpus && !x->node[0])
        fprintf(f,
                "\t/* %s: dynamic-power-coefficient = <%lld> for the whole domain (the platform\n"
                "\t * names no device: dt_cpus or dt_node put it on the board's nodes) */\n\n",
                dom[d].name, llround(tables[d].dynamic_power_coefficient_uw_per_mhz_v2));
    }
    fputs("\tthermal-zones {\n", f);
    for (size_t k = 0; rc == SITS_OK && k < nz; k++) {
      if (k)
        fputc('\n', f);
      rc = write_zone(sc, &zones[k], tables, f, err);
    }
    fputs("\t};\n};\n", f);
    for (size_t d = 0; rc == SITS_OK && d < nd; d++) {
      const sits__dt_domain *x = &b->dom[d];
      if (only >= 0 && (int)d != only)
        continue;
      for (size_t c = 0; c < x->n_cpus; c++)
        device_fragment(f, x->cpus[c], &dom[d], x, &tables[d], c / x->cluster_size, x->n_cpus);
      if (x->node[0])
        device_fragment(f, x->node, &dom[d], x, &tables[d], 0, 1);
    }
  }
  free(tables);
  free(zones);
  return rc;
}

int sits_board_write(const sits_scenario *sc, const char *format, const sits_board_opts *o, FILE *f,
                     sits_err *err) {
  sits_board_opts none = {NULL, -1, NULL, NULL};
  if (!o)
    o = &none;
  if (strcmp(format, "dts") == 0)
    return write_dts(sc, o, f, err);
  if (strcmp(format, "nvpmodel") == 0)
    return write_nvpmodel(sc, o, f, err);
  return sits__fail(err, SITS_EINPUT, "board format '%s' is not dts or nvpmodel", format);
}

/* replay.c - a board trace through the model, compared with its sensors (sits_replay.h). */
#define _POSIX_C_SOURCE 200809L
#include "sits_output.h"
#include "sits_replay.h"
#include "status_internal.h"
#include "text_internal.h"
#include "sits_netsteady.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_linalg.h>

#include "scenario_internal.h"
#include "h5_internal.h"
#include "json_internal.h"

#define MAX_MAP 256

typedef struct power_map {
  int column, node;
  double fraction;
  bool interval_mean; /* the value is the mean over the interval ending at its row */
} power_map;

/* replay.power.[].timing "auto": the columns sitsenergy capture derives from an energy
 * counter's difference (the NVML energy counter, RAPL) are means over the interval before
 * their row. */
static bool auto_interval_mean(const char *column) {
  size_t n = strlen(column);
  return (n > 7 && !strcmp(column + n - 7, "_energy") && !strncmp(column, "power_w.", 8)) ||
         !strncmp(column, "power_w.rapl_", 13);
}

/* The trace's columns holding @p quantity (NULL: all) as "a, b, c" (the first 12, then how
 * many more); "" when it has none. */
static void list_columns(const sits_trace *t, const char *quantity, char *out, size_t size) {
  size_t n = 0, used = 0;
  out[0] = '\0';
  for (size_t j = 1; j < t->n_cols; j++) {
    if (quantity && strcmp(sits_trace_column_quantity(t->names[j]), quantity) != 0)
      continue;
    if (n++ < 12 && used < size)
      used += (size_t)snprintf(out + used, size - used, "%s%s", n > 1 ? ", " : "", t->names[j]);
  }
  if (n > 12 && used < size)
    snprintf(out + used, size - used, " and %zu more", n - 12);
}

/* The trace column @p name, which must hold @p quantity ("power", "temperature", ...; NULL:
 * any; a column of a kind outside the normalised names passes, its quantity unknown): else an
 * error naming the trace, the nearest column and the columns that would do. */
static int trace_col(const sits_trace *t, const char *name, const char *quantity, const char *path,
                     const config_setting_t *s, sits_err *err) {
  char list[1024];
  int c = sits_trace_column(t, name);
  const char *holds = sits_trace_column_quantity(name);
  if (c >= 0 && quantity && strcmp(holds, "other") != 0 && strcmp(holds, quantity) != 0) {
    list_columns(t, quantity, list, sizeof list);
    sits__fail_at(err, SITS_EINPUT, s, "%s: column '%s' holds a %s (%s), not a %s%s%s", path, name,
                  holds, sits_trace_column_unit(name), quantity,
                  *list ? "; its columns that do: " : "; it has no such column", list);
    return -1;
  }
  if (c >= 0)
    return c;
  const char *best = NULL;
  size_t bd = (size_t)-1;
  for (size_t j = 1; j < t->n_cols; j++) {
    size_t d = sits__edit_distance(name, t->names[j]);
    if (d < bd)
      bd = d, best = t->names[j];
  }
  list_columns(t, quantity, list, sizeof list);
  bool some = *list;
  if (!some)
    list_columns(t, NULL, list, sizeof list);
  char hint[160] = "";
  if (best && bd <= 4)
    snprintf(hint, sizeof hint, " (did you mean '%s'?)", best);
  sits__fail_at(err, SITS_EINPUT, s, "%s has no column '%s'%s; its %s%scolumns: %s", path, name,
                hint, some && quantity ? quantity : "", some && quantity ? " " : "",
                *list ? list : "none");
  return -1;
}

static int node_of(const sits_scenario *sc, const config_setting_t *g, bool power, int *node,
                   sits_err *err) {
  const char *name;
  int rc = sits__key_str(g, power ? "replay.power.[].node" : "replay.sensors.[].node", &name, err);
  if (rc)
    return rc;
  if (power && sits__scenario_group(sc, name))
    return sits__fail_at(err, SITS_EUNSUPPORTED, config_setting_get_member(g, "node"),
                         "node '%s': %s", name, SITS__GRID_BLOCK_POWER);
  if ((*node = sits_thermal_find(sits_scenario_thermal(sc), name)) < 0)
    return sits__unknown_node(sits_scenario_thermal(sc), config_setting_get_member(g, "node"),
                              "replay", name, err);
  return SITS_OK;
}

/* Without a replay group: every power_w.<X> column into node X and every temp_c.<X> column
 * against node X, where X is a node of the network (a HotSpot .ttrace/.ptrace pair on its
 * floorplan platform, block by block). SITS_EINPUT when that finds no power or no sensor. */
static int auto_mapping(const sits_scenario *sc, const sits_trace *t, power_map *pm, size_t *n_pm,
                        sits_replay_sensor *sens, size_t *n_sens) {
  *n_pm = *n_sens = 0;
  for (size_t c = 1; c < t->n_cols; c++) {
    const char *name = t->names[c];
    bool power = strncmp(name, "power_w.", 8) == 0, temp = strncmp(name, "temp_c.", 7) == 0;
    const char *node = name + (power ? 8 : 7);
    int idx = power || temp ? sits_thermal_find(sits_scenario_thermal(sc), node) : -1;
    if (idx < 0 || (power && sits__scenario_group(sc, node)))
      continue;
    if (power && *n_pm < MAX_MAP)
      pm[*n_pm].column = (int)c, pm[*n_pm].node = idx, pm[*n_pm].fraction = 1.0,
      pm[*n_pm].interval_mean = auto_interval_mean(name), (*n_pm)++;
    if (temp && *n_sens < MAX_MAP) {
      sens[*n_sens].node = idx;
      sens[*n_sens].weight = 1.0, sens[*n_sens].lag_s = 0.0;
      snprintf(sens[*n_sens].column, sizeof sens[*n_sens].column, "%s", name);
      (*n_sens)++;
    }
  }
  return *n_pm && *n_sens ? SITS_OK : SITS_EINPUT;
}

/* Why replay.@p name (@p g, NULL when missing; in group @p rp) is not a usable list: empty (a
 * user forgot it: @p need says what to give), too long, or not a list of @p shape. */
static int list_error(const config_setting_t *g, const config_setting_t *rp, const char *name,
                      const char *need, const char *shape, sits_err *err) {
  if (g && config_setting_is_list(g) && config_setting_length(g) == 0)
    return sits__fail_at(err, SITS_EINPUT, g, "replay.%s is empty: %s (%s)", name, need, shape);
  if (g && config_setting_is_list(g))
    return sits__fail_at(err, SITS_EINPUT, g,
                         "replay.%s has more entries than this version takes (%d)", name, MAX_MAP);
  return sits__fail_at(err, SITS_EINPUT, g ? g : rp, "replay.%s must be a list of %s", name, shape);
}

/* replay.power and replay.sensors */
static int read_mapping(const sits_scenario *sc, const sits_trace *t, const char *path,
                        power_map *pm, size_t *n_pm, sits_replay_sensor *sens, size_t *n_sens,
                        int *amb_col, sits_err *err) {
  const config_setting_t *root = config_root_setting(sits__scenario_cfg(sc));
  const config_setting_t *rp = config_setting_get_member(root, "replay");
  if (!rp && auto_mapping(sc, t, pm, n_pm, sens, n_sens) == SITS_OK) {
    *amb_col = -1;
    return SITS_OK;
  }
  if (!rp || !config_setting_is_group(rp))
    return sits__fail(err, SITS_EINPUT,
                      "%s: replay needs a 'replay' group with power and sensors (or a trace "
                      "whose power_w.<node> and temp_c.<node> columns name the network's nodes)",
                      sits__scenario_path(sc));
  const config_setting_t *pw = config_setting_get_member(rp, "power");
  const config_setting_t *se = config_setting_get_member(rp, "sensors");
  /* with modelled domains the measured power may be none */
  bool modelled = config_setting_get_member(rp, "domains") != NULL;
  if (modelled && (!pw || (config_setting_is_list(pw) && config_setting_length(pw) == 0))) {
    *n_pm = 0; /* the modelled domains give the power */
    pw = NULL;
  } else if (!pw || !config_setting_is_list(pw) || config_setting_length(pw) == 0 ||
             config_setting_length(pw) > MAX_MAP)
    return list_error(pw, rp, "power", "map at least one power column onto a node",
                      "{ column; node; fraction; }", err);
  if (!se || !config_setting_is_list(se) || config_setting_length(se) == 0 ||
      config_setting_length(se) > MAX_MAP)
    return list_error(se, rp, "sensors", "name at least one temperature column and its node",
                      "{ column; node; }", err);
  int rc;
  *n_pm = pw ? (size_t)config_setting_length(pw) : 0;
  for (size_t k = 0; k < *n_pm; k++) {
    const config_setting_t *g = config_setting_get_elem(pw, (unsigned)k);
    const char *col;
    if (!config_setting_is_group(g))
      return sits__fail_at(err, SITS_EINPUT, g, "a power mapping is a group { column; node; }");
    if ((rc = sits__key_str(g, "replay.power.[].column", &col, err)) ||
        (rc = sits__key_num(g, "replay.power.[].fraction", &pm[k].fraction, err)) ||
        (rc = node_of(sc, g, true, &pm[k].node, err)))
      return rc;
    if ((pm[k].column =
             trace_col(t, col, "power", path, config_setting_get_member(g, "column"), err)) < 0)
      return SITS_EINPUT;
    const char *timing = "auto";
    if ((rc = sits__key_str(g, "replay.power.[].timing", &timing, err)))
      return rc;
    if (!timing)
      timing = "auto";
    if (strcmp(timing, "auto") && strcmp(timing, "hold") && strcmp(timing, "interval_mean"))
      return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(g, "timing"),
                           "replay.power.[].timing '%s': expected hold, interval_mean or auto",
                           timing);
    pm[k].interval_mean =
        !strcmp(timing, "interval_mean") || (!strcmp(timing, "auto") && auto_interval_mean(col));
  }
  *n_sens = (size_t)config_setting_length(se);
  for (size_t k = 0; k < *n_sens; k++) {
    const config_setting_t *g = config_setting_get_elem(se, (unsigned)k);
    const char *col;
    if (!config_setting_is_group(g))
      return sits__fail_at(err, SITS_EINPUT, g, "a sensor is a group { column; node; }");
    if ((rc = sits__key_str(g, "replay.sensors.[].column", &col, err)) ||
        (rc = sits__key_num(g, "replay.sensors.[].weight", &sens[k].weight, err)) ||
        (rc = sits__key_num(g, "replay.sensors.[].lag_s", &sens[k].lag_s, err)) ||
        (rc = node_of(sc, g, false, &sens[k].node, err)))
      return rc;
    if (trace_col(t, col, "temperature", path, config_setting_get_member(g, "column"), err) < 0)
      return SITS_EINPUT;
    snprintf(sens[k].column, sizeof sens[k].column, "%s", col);
  }
  const char *amb = NULL;
  *amb_col = -1;
  if ((rc = sits__key_str(rp, "replay.ambient_column", &amb, err)))
    return rc;
  if (amb && (*amb_col = trace_col(t, amb, "temperature", path,
                                   config_setting_get_member(rp, "ambient_column"), err)) < 0)
    return SITS_EINPUT;
  return SITS_OK;
}

/* The most cooling-device states a level table maps (the kernel's pwm-fan cooling-levels). */
#define FAN_LEVELS 32

/* What drives a fan: its trace column (-1: none, its trips do), the duty per value (scale),
 * or with levels a cooling-device state per value: duty = levels[state]. */
typedef struct fan_drive {
  int col;
  double scale;
  size_t n_levels;
  double levels[FAN_LEVELS];
} fan_drive;

/* The trace columns that drive the platform's fans: replay.fans, else each fan's
 * util_frac.<name> column where the trace has one. */
static int fan_mapping(const sits_scenario *sc, const sits_trace *t, const char *path,
                       fan_drive *fd, sits_err *err) {
  for (size_t f = 0; f < sits_scenario_fan_count(sc); f++) {
    char name[64];
    snprintf(name, sizeof name, "util_frac.%s", sits_scenario_fan_name(sc, f));
    fd[f] = (fan_drive){.col = sits_trace_column(t, name), .scale = 1.0};
  }
  const config_setting_t *fl = config_lookup(sits__scenario_cfg(sc), "replay.fans");
  if (!fl)
    return SITS_OK;
  if (!config_setting_is_list(fl) || (size_t)config_setting_length(fl) > SITS__MAX_FANS)
    return sits__fail_at(err, SITS_EINPUT, fl,
                         "replay.fans must be a list of { column; fan; scale or levels; } "
                         "(at most %d)",
                         SITS__MAX_FANS);
  for (size_t f = 0; f < sits_scenario_fan_count(sc); f++)
    fd[f].col = -1; /* the list says which */
  for (int k = 0; k < config_setting_length(fl); k++) {
    const config_setting_t *g = config_setting_get_elem(fl, (unsigned)k);
    const char *col, *fan;
    double scale;
    int rc;
    if (!config_setting_is_group(g))
      return sits__fail_at(err, SITS_EINPUT, g, "a fan mapping is a group { column; fan; }");
    if ((rc = sits__key_str(g, "replay.fans.[].column", &col, err)) ||
        (rc = sits__key_str(g, "replay.fans.[].fan", &fan, err)) ||
        (rc = sits__key_num(g, "replay.fans.[].scale", &scale, err)))
      return rc;
    size_t f = 0;
    while (f < sits_scenario_fan_count(sc) && strcmp(sits_scenario_fan_name(sc, f), fan))
      f++;
    if (f == sits_scenario_fan_count(sc))
      return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(g, "fan"),
                           "the platform has no fan '%s'", fan);
    if ((fd[f].col = trace_col(t, col, NULL, path, config_setting_get_member(g, "column"), err)) <
        0)
      return SITS_EINPUT;
    fd[f].scale = scale;
    const config_setting_t *lv = config_setting_get_member(g, "levels");
    if (lv && (rc = sits__key_numbers(g, "levels", "a fan mapping", fd[f].levels, FAN_LEVELS,
                                      &fd[f].n_levels, err)))
      return rc;
    for (size_t k = 0; k < fd[f].n_levels; k++)
      if (!(fd[f].levels[k] >= 0 && fd[f].levels[k] <= 1))
        return sits__fail_at(err, SITS_EINPUT, lv,
                             "fan '%s': levels are duties (fractions 0-1), one per cooling state",
                             fan);
    if (lv && !fd[f].n_levels)
      return sits__fail_at(err, SITS_EINPUT, lv, "fan '%s': levels is empty", fan);
    if (lv && config_setting_get_member(g, "scale"))
      return sits__fail_at(err, SITS_EINPUT, lv,
                           "fan '%s': levels map a cooling state to its duty; scale does not "
                           "apply",
                           fan);
  }
  return SITS_OK;
}

/* replay.domains: the domains whose power the model computes from the trace's clock and
 * load; the others are dropped (as a replay drops every domain without it). dom_col[d]:
 * freq and util columns (util -1: full load) of domain d after the dropping. */
static int domain_mapping(sits_scenario *sc, const sits_trace *t, const char *path,
                          int (*dom_col)[2], size_t *n_dom, sits_err *err) {
  *n_dom = 0;
  const config_setting_t *dl = config_lookup(sits__scenario_cfg(sc), "replay.domains");
  if (!dl)
    return SITS_OK;
  if (!config_setting_is_list(dl) || config_setting_length(dl) > SITS_MAX_DOMAINS)
    return sits__fail_at(err, SITS_EINPUT, dl,
                         "replay.domains must be a list of { domain; freq_column; util_column; }");
  bool keep[SITS_MAX_DOMAINS] = {false};
  int cols[SITS_MAX_DOMAINS][2];
  for (int k = 0; k < config_setting_length(dl); k++) {
    const config_setting_t *g = config_setting_get_elem(dl, (unsigned)k);
    const char *name, *fc, *uc = NULL;
    int rc;
    if (!config_setting_is_group(g))
      return sits__fail_at(err, SITS_EINPUT, g,
                           "a modelled domain is a group { domain; "
                           "freq_column; }");
    if ((rc = sits__key_str(g, "replay.domains.[].domain", &name, err)) ||
        (rc = sits__key_str(g, "replay.domains.[].freq_column", &fc, err)) ||
        (rc = sits__key_str(g, "replay.domains.[].util_column", &uc, err)))
      return rc;
    size_t d = 0;
    while (d < sits_scenario_domain_count(sc) &&
           strcmp(sits_scenario_domains(sc, NULL)[d].name, name))
      d++;
    if (d == sits_scenario_domain_count(sc))
      return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(g, "domain"),
                           "the platform has no domain '%s'", name);
    if (keep[d])
      return sits__fail_at(err, SITS_EINPUT, g, "domain '%s' is mapped twice", name);
    keep[d] = true;
    if ((cols[d][0] = trace_col(t, fc, "frequency", path,
                                config_setting_get_member(g, "freq_column"), err)) < 0)
      return SITS_EINPUT;
    cols[d][1] = -1;
    if (uc && (cols[d][1] = trace_col(t, uc, "utilisation", path,
                                      config_setting_get_member(g, "util_column"), err)) < 0)
      return SITS_EINPUT;
  }
  size_t m = 0;
  for (size_t d = 0; d < sits_scenario_domain_count(sc); d++)
    if (keep[d])
      dom_col[m][0] = cols[d][0], dom_col[m][1] = cols[d][1], m++;
  sits__scenario_keep_domains(sc, keep);
  sits__scenario_set_traced_domains(sc);
  *n_dom = m;
  return SITS_OK;
}

/* The first non-NAN value of column c from row 0, or NAN. */
static double first_value(const sits_trace *t, int c) {
  for (size_t r = 0; r < t->n_rows; r++)
    if (!isnan(sits_trace_at(t, r, (size_t)c)))
      return sits_trace_at(t, r, (size_t)c);
  return NAN;
}

/* Unsensed nodes: the steady state of @p p0 (node powers) with the sensed nodes pinned:
 * G_uu T_u = P_u + g_amb,u T_amb - G_us T_s, through sits_netsteady.h (a dense LU for board
 * models, a sparse factorisation for large networks). */
static int initial_state(const sits_thermal *th, const bool *sensed, const double *p0,
                         double ambient_c, double *t_c, sits_err *err) {
  size_t n = sits_thermal_node_count(th), nu = 0;
  for (size_t i = 0; i < n; i++)
    nu += !sensed[i];
  if (nu == 0)
    return SITS_OK;
  sits_net_steady_opts o = {.pinned = sensed};
  sits_net_steady *lin = sits_net_steady_new(th, &o, err);
  int rc = lin ? sits_net_steady_solve(lin, p0, ambient_c, t_c, err) : err->code;
  sits_net_steady_free(lin);
  if (rc == SITS_EINPUT && sits_thermal_check_reachable(th, sensed, err) != SITS_OK)
    return SITS_EINPUT; /* a part with no path to the ambient or a sensed node: named */
  if (rc == SITS_EINPUT)
    return sits__fail(err, SITS_ESOLVER, "the initial steady state is singular");
  return rc;
}

int sits_replay_run(sits_scenario *sc, const char *path, const sits_trace_opts *topts,
                    sits_replay **out, sits_err *err) {
  sits_trace *t = NULL;
  *out = NULL;
  sits_trace_opts bounded = {0};
  if (topts)
    bounded = *topts;
  if (!bounded.max_rows) /* the rows (+ 1: the run's samples) bounded before they are read */
    bounded.max_rows = sc->max_samples >= 2 ? (size_t)sc->max_samples - 1 : 1;
  int rc = sits_trace_read(path, &bounded, &t, err);
  if (rc == SITS_OK && (rc = sits_replay_run_trace(sc, t, path, NULL, out, err)) == SITS_OK)
    (*out)->owns_trace = true;
  else
    sits_trace_free(t);
  return rc;
}

/* The schedule's columns: one power column per mapped node (col_of_node[k] for mapping k;
 * *n_power of them), then a duty per traced fan, then a clock and a load per domain; the
 * fans' and domains' values until their columns' first ones into fan_last and dom_last. */
static size_t schedule_columns(const sits_scenario *sc, const power_map *pm, size_t n_pm,
                               const fan_drive *fd, size_t n_dom, sits_column *cols,
                               int *col_of_node, size_t *n_power, double *fan_last,
                               double (*dom_last)[2]) {
  size_t n_cols = 0;
  for (size_t k = 0; k < n_pm; k++) {
    size_t j = 0;
    while (j < n_cols && cols[j].target != pm[k].node)
      j++;
    if (j == n_cols)
      cols[n_cols++] = (sits_column){SITS_COLUMN_POWER_W, pm[k].node};
    col_of_node[k] = (int)j;
  }
  *n_power = n_cols;
  for (size_t f = 0; f < sits_scenario_fan_count(sc); f++)
    if (fd[f].col >= 0) {
      fan_last[f] = sits__scenario_fan(sc, f)->initial_duty; /* until the column's first value */
      cols[n_cols++] = (sits_column){SITS_COLUMN_FAN_DUTY, (int)f};
    }
  for (size_t d = 0; d < n_dom; d++) { /* until the first values: the top OPP, full load */
    const sits_domain *dm = &sits_scenario_domains(sc, NULL)[d];
    dom_last[d][0] = dm->opp[dm->n_opp - 1].freq_mhz, dom_last[d][1] = 1.0;
    cols[n_cols++] = (sits_column){SITS_COLUMN_FREQ_MHZ, (int)d};
    cols[n_cols++] = (sits_column){SITS_COLUMN_UTIL, (int)d};
  }
  return n_cols;
}

/* One row's fan duties into vals (a traced fan's each, in order), the last ones held where
 * the row has none; a duty outside 0-1 or a cooling state without its level is an error. */
static int fan_row(const sits_scenario *sc, sits_replay *r, const fan_drive *fd, size_t row,
                   const char *path, double *fan_last, double *vals, sits_err *err) {
  const sits_trace *t = r->trace;
  int rc = SITS_OK;
  for (size_t f = 0, j = 0; f < sits_scenario_fan_count(sc) && rc == SITS_OK; f++) {
    if (fd[f].col < 0)
      continue;
    double raw = sits_trace_at(t, row, (size_t)fd[f].col), v = raw * fd[f].scale;
    if (fd[f].n_levels && !isnan(raw)) { /* a cooling-device state: its level's duty */
      double k = nearbyint(raw);
      if (!(fabs(raw - k) < 1e-6 && k >= 0 && k < (double)fd[f].n_levels))
        rc = sits__fail(err, SITS_EINPUT,
                        "%s: sample %zu (t = %g s): fan %s's cooling state %g is not one of "
                        "0-%zu (column %s; replay.fans.[].levels gives a duty per state)",
                        path, row + 1, sits_trace_at(t, row, 0), sits_scenario_fan_name(sc, f), raw,
                        fd[f].n_levels - 1, t->names[fd[f].col]);
      else
        v = fd[f].levels[(size_t)k];
    } else if (v < 0 || v > 1 + 1e-9)
      rc = sits__fail(err, SITS_EINPUT,
                      "%s: sample %zu (t = %g s): fan %s's duty %g is outside 0-1 (column %s; "
                      "replay.fans.[].scale scales it)",
                      path, row + 1, sits_trace_at(t, row, 0), sits_scenario_fan_name(sc, f), v,
                      t->names[fd[f].col]);
    if (!isnan(v))
      fan_last[f] = fmin(v, 1.0);
    vals[j++] = fan_last[f];
    r->fan_traced[f] = true;
    r->fan_duty_min[f] = row == 0 ? fan_last[f] : fmin(r->fan_duty_min[f], fan_last[f]);
    r->fan_duty_max[f] = row == 0 ? fan_last[f] : fmax(r->fan_duty_max[f], fan_last[f]);
  }
  return rc;
}

/* One row's domain clocks and loads into vals (clock, load per domain), the last ones held
 * where the row has none; a clock that is not MHz or a load outside 0-1 is an error. */
static int domain_row(const sits_scenario *sc, const sits_trace *t, const int (*dom_col)[2],
                      size_t n_dom, size_t row, const char *path, double (*dom_last)[2],
                      double *vals, sits_err *err) {
  int rc = SITS_OK;
  for (size_t d = 0; d < n_dom && rc == SITS_OK; d++) {
    double fq = sits_trace_at(t, row, (size_t)dom_col[d][0]);
    double ut = dom_col[d][1] >= 0 ? sits_trace_at(t, row, (size_t)dom_col[d][1]) : 1.0;
    if (!isnan(fq) && !(fq > 0 && fq < 1e6)) /* MHz: a clock, not a count of Hz */
      rc = sits__fail(err, SITS_EINPUT,
                      "%s: sample %zu (t = %g s): domain %s's clock %g MHz is not one (column %s)",
                      path, row + 1, sits_trace_at(t, row, 0),
                      sits_scenario_domains(sc, NULL)[d].name, fq, t->names[dom_col[d][0]]);
    else if (!isnan(ut) && (ut < 0 || ut > 1 + 1e-9))
      rc = sits__fail(err, SITS_EINPUT,
                      "%s: sample %zu (t = %g s): domain %s's load %g is outside 0-1 (column %s)",
                      path, row + 1, sits_trace_at(t, row, 0),
                      sits_scenario_domains(sc, NULL)[d].name, ut, t->names[dom_col[d][1]]);
    if (!isnan(fq))
      dom_last[d][0] = fq;
    if (!isnan(ut))
      dom_last[d][1] = fmin(ut, 1.0);
    vals[2 * d] = dom_last[d][0], vals[2 * d + 1] = dom_last[d][1];
  }
  return rc;
}

/* The mapped power of the trace as a schedule: one power column per mapped node, a row per
 * sample (zero-order hold; a missing value holds the last one, 0 before the first); the total
 * per row into r->power_w and the first row's node powers into @p p0. */
static int power_schedule(const sits_scenario *sc, sits_replay *r, const power_map *pm, size_t n_pm,
                          int amb_col, const fan_drive *fd, const int (*dom_col)[2], size_t n_dom,
                          const char *path, double *p0, sits_schedule **out, sits_err *err) {
  const sits_trace *t = r->trace;
  size_t rows = t->n_rows, n_power;
  sits_column cols[MAX_MAP + SITS__MAX_FANS + 2 * SITS_MAX_DOMAINS];
  int col_of_node[MAX_MAP];
  double fan_last[SITS__MAX_FANS], dom_last[SITS_MAX_DOMAINS][2];
  size_t n_cols =
      schedule_columns(sc, pm, n_pm, fd, n_dom, cols, col_of_node, &n_power, fan_last, dom_last);
  size_t j0 = n_power; /* the domains' first column */
  for (size_t f = 0; f < sits_scenario_fan_count(sc); f++)
    j0 += fd[f].col >= 0;
  sits_schedule *sched = sits_schedule_new(n_cols, cols);
  r->power_w = calloc(rows, sizeof *r->power_w);
  if (!sched || !r->power_w) {
    sits_schedule_free(sched);
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  }
  double last[MAX_MAP] = {0}, vals[MAX_MAP + SITS__MAX_FANS + 2 * SITS_MAX_DOMAINS];
  double amb_last = sits_scenario_ambient_c(sc);
  int rc = SITS_OK;
  for (size_t row = 0; rc == SITS_OK && row < rows; row++) {
    memset(vals, 0, n_cols * sizeof *vals);
    for (size_t k = 0; k < n_pm; k++) {
      /* an interval mean is the next row's value over this row's interval (the last row holds
       * its own); a missing value holds the last one */
      size_t src = pm[k].interval_mean && row + 1 < rows ? row + 1 : row;
      double v = sits_trace_at(t, src, (size_t)pm[k].column);
      if (!isnan(v))
        last[k] = v;
      vals[col_of_node[k]] += pm[k].fraction * last[k];
    }
    if ((rc = fan_row(sc, r, fd, row, path, fan_last, vals + n_power, err)) ||
        (rc = domain_row(sc, t, dom_col, n_dom, row, path, dom_last, vals + j0, err)))
      break;
    for (size_t j = 0; j < n_power; j++) {
      r->power_w[row] += vals[j];
      if (row == 0)
        p0[cols[j].target] += vals[j];
    }
    if (amb_col >= 0 && !isnan(sits_trace_at(t, row, (size_t)amb_col)))
      amb_last = sits_trace_at(t, row, (size_t)amb_col);
    rc = sits_schedule_append(sched, sits_trace_at(t, row, 0), vals, amb_last, err);
  }
  if (rc)
    sits_schedule_free(sched);
  else
    *out = sched;
  return rc;
}

/* The initial state: sensed nodes at their first readings; the others the caller's given
 * temperatures (calibrate), else the scenario's initial_c, else estimated (initial_state). */
static int initial_temperatures(const sits_scenario *sc, sits_replay *r, const double *p0,
                                int amb_col, const double *initial_c, sits_err *err) {
  const sits_trace *t = r->trace;
  size_t n_nodes = sits_thermal_node_count(sits_scenario_thermal(sc));
  r->initial_c = calloc(n_nodes, sizeof *r->initial_c);
  r->sensed = calloc(n_nodes, sizeof *r->sensed);
  if (!r->initial_c || !r->sensed)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t k = 0; k < r->n_sensors; k++) {
    double v = first_value(t, sits_trace_column(t, r->sensors[k].column));
    if (!isnan(v) && !r->sensed[r->sensors[k].node]) { /* the first sensor of a node wins */
      r->initial_c[r->sensors[k].node] = v;
      r->sensed[r->sensors[k].node] = true;
    }
  }
  double amb0 = amb_col >= 0 && !isnan(first_value(t, amb_col)) ? first_value(t, amb_col)
                                                                : sits_scenario_ambient_c(sc);
  int rc = initial_state(sits_scenario_thermal(sc), r->sensed, p0, amb0, r->initial_c, err);
  for (size_t i = 0; rc == SITS_OK && i < n_nodes; i++) {
    double given = initial_c ? initial_c[i] : NAN;
    if (isnan(given))
      given = sits_thermal_initial_c(sits_scenario_thermal(sc), (int)i);
    if (!r->sensed[i] && !isnan(given))
      r->initial_c[i] = given;
  }
  return rc;
}

/* A sensor's reading at the result's samples: its node's temperature (@p lag_s 0) or that
 * seen through the sensor's first-order lag, lag_s y' = x - y from y = x at the first sample,
 * solved exactly for x linear between samples: over a step h with a = exp(-h / lag_s),
 * y1 = x1 + a (y0 - x0) - (x1 - x0) (lag_s / h) (1 - a). */
static void sensor_reading(const sits_result *res, size_t node, double lag_s, double *y) {
  const double *ts = sits_result_time_s(res);
  size_t ns = sits_result_sample_count(res);
  for (size_t j = 0; j < ns; j++) {
    double x1 = sits_result_temp_c(res, j, node);
    if (j == 0 || !(lag_s > 0)) {
      y[j] = x1;
      continue;
    }
    double x0 = sits_result_temp_c(res, j - 1, node), h = ts[j] - ts[j - 1];
    double a = exp(-h / lag_s), follow = h > 0 ? -expm1(-h / lag_s) * lag_s / h : 1.0;
    y[j] = x1 + a * (y[j - 1] - x0) - (x1 - x0) * follow;
  }
}

/* The simulated temperature at each row's time (linear between samples) and the metrics. */
static int compare(sits_replay *r, sits_err *err) {
  const sits_trace *t = r->trace;
  size_t rows = t->n_rows;
  const double *ts = sits_result_time_s(r->result);
  size_t ns = sits_result_sample_count(r->result);
  r->sim_c = malloc((r->n_sensors ? r->n_sensors : 1) * rows * sizeof *r->sim_c);
  double *meas = malloc(rows * sizeof *meas), *y = malloc((ns + 1) * sizeof *y);
  if (!r->sim_c || !meas || !y) {
    free(meas), free(y);
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  }
  for (size_t k = 0; k < r->n_sensors; k++) {
    size_t j = 0;
    int c = sits_trace_column(t, r->sensors[k].column);
    sensor_reading(r->result, (size_t)r->sensors[k].node, r->sensors[k].lag_s, y);
    for (size_t row = 0; row < rows; row++) {
      double tr = sits_trace_at(t, row, 0);
      while (j + 2 < ns && ts[j + 1] <= tr)
        j++;
      double a = y[j], b = y[j + 1 < ns ? j + 1 : j];
      double w = j + 1 < ns && ts[j + 1] > ts[j] ? (tr - ts[j]) / (ts[j + 1] - ts[j]) : 0;
      r->sim_c[k * rows + row] = a + fmin(fmax(w, 0), 1) * (b - a);
      meas[row] = sits_trace_at(t, row, (size_t)c);
    }
    sits_fit_metrics_compute(r->sim_c + k * rows, meas, 0, rows, &r->sensors[k].m);
  }
  free(meas), free(y);
  return SITS_OK;
}

/* The row intervals: each row to the next, the last one the trace's spacing. */
static double row_dt(const sits_replay *r, size_t row) {
  const sits_trace *t = r->trace;
  if (row + 1 < t->n_rows)
    return sits_trace_at(t, row + 1, 0) - sits_trace_at(t, row, 0);
  return r->duration_s - sits_trace_at(t, row, 0);
}

/* Per phase.<label> column: its rows' instances, time, energy, metrics and peaks. */
static int phase_figures(sits_replay *r, sits_err *err) {
  const sits_trace *t = r->trace;
  size_t rows = t->n_rows, np = 0;
  for (size_t c = 0; c < t->n_cols; c++)
    np += strncmp(t->names[c], "phase.", 6) == 0 && t->names[c][6];
  if (!np)
    return SITS_OK;
  size_t ns = r->n_sensors ? r->n_sensors : 1;
  r->phases = calloc(np, sizeof *r->phases);
  double *model = malloc(rows * sizeof *model), *meas = malloc(rows * sizeof *meas);
  int rc = r->phases && model && meas ? SITS_OK : sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t c = 0; rc == SITS_OK && c < t->n_cols; c++) {
    if (strncmp(t->names[c], "phase.", 6) != 0 || !t->names[c][6])
      continue;
    sits_replay_phase *ph = &r->phases[r->n_phases++];
    snprintf(ph->label, sizeof ph->label, "%s", t->names[c] + 6);
    ph->m = calloc(ns, sizeof *ph->m);
    ph->peak_measured_c = malloc(ns * sizeof(double));
    ph->peak_simulated_c = malloc(ns * sizeof(double));
    if (!ph->m || !ph->peak_measured_c || !ph->peak_simulated_c) {
      rc = sits__fail(err, SITS_ENOMEM, "out of memory");
      break;
    }
    bool was = false;
    for (size_t row = 0; row < rows; row++) {
      bool in = sits_trace_at(t, row, c) >= 0.5;
      if (in && !was)
        ph->instances++;
      if (in) {
        ph->duration_s += row_dt(r, row);
        ph->energy_j += r->power_w[row] * row_dt(r, row);
      }
      was = in;
    }
    for (size_t k = 0; k < r->n_sensors; k++) {
      int col = sits_trace_column(t, r->sensors[k].column);
      ph->peak_measured_c[k] = ph->peak_simulated_c[k] = NAN;
      for (size_t row = 0; row < rows; row++) {
        bool in = sits_trace_at(t, row, c) >= 0.5;
        double s = r->sim_c[k * rows + row], m = sits_trace_at(t, row, (size_t)col);
        model[row] = in ? s : NAN;
        meas[row] = in ? m : NAN;
        if (in && !(m <= ph->peak_measured_c[k]))
          ph->peak_measured_c[k] = isnan(m) ? ph->peak_measured_c[k] : m;
        if (in && !(s <= ph->peak_simulated_c[k]))
          ph->peak_simulated_c[k] = s;
      }
      sits_fit_metrics_compute(model, meas, 0, rows, &ph->m[k]);
    }
  }
  free(model), free(meas);
  return rc;
}

/* The trace's line of row @p row (0 when the trace was not read from a file). */
static size_t line_of(const sits_trace *t, size_t row) {
  return t->lines ? t->lines[row] : 0;
}

/* One column's values against a physical range [lo, hi] (lo excluded when @p lo_open); an
 * input column (@p input) without a single value is refused too (the model's input would be
 * a guess; a sensor without one is left out of the comparison, with a note). */
static int check_column(const sits_trace *t, int c, const char *path, double lo, bool lo_open,
                        double hi, const char *unit, bool input, sits_err *err) {
  size_t values = 0;
  for (size_t r = 0; r < t->n_rows; r++) {
    double v = sits_trace_at(t, r, (size_t)c);
    if (isnan(v))
      continue;
    values++;
    if (!(lo_open ? v > lo : v >= lo) || !(v <= hi))
      return sits__fail(err, SITS_EINPUT, "%s:%zu: column '%s': %g %s is outside %s%g, %g] %s",
                        path, line_of(t, r), t->names[c], v, unit, lo_open ? "(" : "[", lo, hi,
                        unit);
  }
  if (values == 0 && input)
    return sits__fail(err, SITS_EINPUT, "%s: column '%s' has no value in any row", path,
                      t->names[c]);
  return SITS_OK;
}

/* The replayed columns are physical: stamps within 1e9 s (32 years), powers from a meter's
 * -0.1 W noise floor to 1 MW, temperatures above absolute zero and below 10,000 C. */
static int check_values(const sits_trace *t, const power_map *pm, size_t n_pm,
                        const sits_replay_sensor *sens, size_t n_sens, int amb_col,
                        const char *path, sits_err *err) {
  int rc = SITS_OK;
  for (size_t r = 0; r < t->n_rows; r++)
    if (!(fabs(sits_trace_at(t, r, 0)) <= 1e9))
      return sits__fail(err, SITS_EINPUT, "%s:%zu: time %g s is outside [-1e9, 1e9] s", path,
                        line_of(t, r), sits_trace_at(t, r, 0));
  for (size_t k = 0; rc == SITS_OK && k < n_pm; k++)
    rc = check_column(t, pm[k].column, path, -0.1, false, 1e6, "W", true, err);
  for (size_t k = 0; rc == SITS_OK && k < n_sens; k++) {
    int c = sits_trace_column(t, sens[k].column);
    rc = c < 0 ? sits__fail(err, SITS_EINPUT, "%s: sensor column '%s' is not in the trace", path,
                            sens[k].column)
               : check_column(t, c, path, -273.15, true, 1e4, "C", false, err);
  }
  if (rc == SITS_OK && amb_col >= 0)
    rc = check_column(t, amb_col, path, -273.15, true, 1e4, "C", true, err);
  return rc;
}

int sits_replay_run_trace(sits_scenario *sc, const sits_trace *trace, const char *path,
                          const double *initial_c, sits_replay **out, sits_err *err) {
  *out = NULL;
  sits_replay *r = calloc(1, sizeof *r);
  power_map *pm = malloc(MAX_MAP * sizeof *pm);
  size_t n_pm = 0, n_nodes = sits_thermal_node_count(sits_scenario_thermal(sc));
  double *p0 = calloc(n_nodes ? n_nodes : 1, sizeof *p0);
  if (!r || !pm || !p0 || !(r->sensors = calloc(MAX_MAP, sizeof *r->sensors))) {
    free(r), free(pm), free(p0);
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  }
  int amb_col = -1;
  r->trace = (sits_trace *)trace;
  sits_schedule *sched = NULL;
  int rc = read_mapping(sc, r->trace, path, pm, &n_pm, r->sensors, &r->n_sensors, &amb_col, err);
  for (size_t k = 0; rc == SITS_OK && k < r->n_sensors; k++) {
    size_t nth = 0; /* a column mapped again keeps its own name in the outputs: column#2 */
    for (size_t q = 0; q < k; q++)
      nth += strcmp(r->sensors[q].column, r->sensors[k].column) == 0;
    char *name = r->sensors[k].name;
    if (nth)
      snprintf(name, sizeof r->sensors[k].name, "%s#%zu", r->sensors[k].column, nth + 1);
    else
      snprintf(name, sizeof r->sensors[k].name, "%s", r->sensors[k].column);
  }
  size_t rows = trace ? trace->n_rows : 0;
  if (rc == SITS_OK && rows < 2)
    rc = trace && trace->skipped
             ? sits__fail(err, SITS_EINPUT,
                          "%s: a replay needs at least 2 samples (%zu malformed lines skipped; "
                          "the first, %s:%zu: %s)",
                          path, trace->skipped, path, trace->first_skipped_line,
                          trace->first_skipped_why)
             : sits__fail(err, SITS_EINPUT, "%s: a replay needs at least 2 samples", path);
  if (rc == SITS_OK && (double)rows + 1 > sc->max_samples)
    rc = sits__fail(err, SITS_EINPUT,
                    "%s: %zu rows, more than max_samples = %.0f allows (a replay holds every row "
                    "and its simulated sample in memory): raise max_samples, or cut the trace",
                    path, rows, sc->max_samples);
  if (rc == SITS_OK)
    rc = check_values(trace, pm, n_pm, r->sensors, r->n_sensors, amb_col, path, err);
  int dom_col[SITS_MAX_DOMAINS][2];
  fan_drive fd[SITS__MAX_FANS];
  size_t n_dom = 0;
  for (size_t k = 0; rc == SITS_OK && k < n_pm && k < SITS_REPLAY_MAX_POWER_COLUMNS; k++) {
    snprintf(r->power_column[k], sizeof r->power_column[k], "%s", trace->names[pm[k].column]);
    r->power_interval_mean[k] = pm[k].interval_mean;
    r->n_power = k + 1;
  }
  if (rc == SITS_OK)
    rc = fan_mapping(sc, r->trace, path, fd, err);
  if (rc == SITS_OK)
    rc = domain_mapping(sc, r->trace, path, dom_col, &n_dom, err);
  if (rc == SITS_OK)
    rc = power_schedule(sc, r, pm, n_pm, amb_col, fd, (const int(*)[2])dom_col, n_dom, path, p0,
                        &sched, err);
  if (rc == SITS_OK)
    rc = initial_temperatures(sc, r, p0, amb_col, initial_c, err);
  /* the run: to the last sample plus one interval, sampled on the trace's spacing */
  if (rc == SITS_OK) {
    double t_end = sits_trace_at(trace, rows - 1, 0);
    double dt = isnan(trace->interval_s) ? t_end / (double)(rows - 1) : trace->interval_s;
    r->duration_s = t_end + dt;
    rc = sits_scenario_make_replay(sc, sched, r->duration_s, dt, r->initial_c, err);
    sched = NULL;
  }
  sits_schedule_free(sched);
  if (rc == SITS_OK && (rc = sits_run(sc, NULL, &r->result, err)) == SITS_OK)
    rc = compare(r, err);
  if (rc == SITS_OK)
    rc = phase_figures(r, err);
  free(pm), free(p0);
  if (rc) {
    sits_replay_free(r);
    return rc;
  }
  *out = r;
  return SITS_OK;
}

void sits_replay_free(sits_replay *r) {
  if (!r)
    return;
  if (r->owns_trace)
    sits_trace_free(r->trace);
  sits_result_free(r->result);
  free(r->sensors), free(r->sim_c), free(r->power_w), free(r->initial_c), free(r->sensed);
  free(r->band_c);
  for (size_t p = 0; r->phases && p < r->n_phases; p++)
    free(r->phases[p].m), free(r->phases[p].peak_measured_c), free(r->phases[p].peak_simulated_c);
  free(r->phases);
  free(r);
}

/* "sensors":{...}: per sensor its node, lag, metrics and band. */
static void json_sensors(const sits_replay *r, const sits_scenario *sc, FILE *f) {
  fputs("\"sensors\":{", f);
  for (size_t k = 0; k < r->n_sensors; k++) {
    fprintf(f, "%s", k ? "," : "");
    sits__json_str(f, r->sensors[k].name);
    fputs(":{\"node\":", f);
    sits__json_str(f, sits_thermal_name(sits_scenario_thermal(sc), r->sensors[k].node));
    if (r->sensors[k].lag_s > 0) {
      fputs(",\"lag_s\":", f);
      sits__json_num(f, r->sensors[k].lag_s);
    }
    fputc(',', f);
    sits__json_metrics(f, &r->sensors[k].m, "c");
    if (r->band_c && k < SITS_REPLAY_MAX_BAND_SENSORS) {
      fputs(",\"band\":{\"level\":0.95,\"coverage\":", f);
      sits__json_num(f, r->band_coverage[k]);
      fputs(",\"mean_half_width_c\":", f);
      sits__json_num(f, r->band_mean_half_width_c[k]);
      fprintf(f, ",\"from_row\":%zu,\"parameters\":%zu,\"method\":\"linearised\"}", r->band_from,
              r->band_params);
    }
    fputc('}', f);
  }
  fputc('}', f);
}

/* "name":{node: initial temperature} of the nodes whose sensed flag is @p sensed. */
static void json_initial(const sits_replay *r, const sits_thermal *th, const char *name,
                         bool sensed, FILE *f) {
  fprintf(f, "\"%s\":{", name);
  int first = 1;
  for (size_t i = 0; i < sits_thermal_node_count(th); i++)
    if (r->sensed[i] == sensed) {
      fputs(first ? "" : ",", f), first = 0;
      sits__json_str(f, sits_thermal_name(th, (int)i));
      fputc(':', f);
      sits__json_num(f, r->initial_c[i]);
    }
  fputc('}', f);
}

int sits_replay_write_json(const sits_replay *r, const sits_scenario *sc, FILE *f) {
  fputs("{\"schema_version\":1,", f);
  json_sensors(r, sc, f);
  fputs(",\"duration_s\":", f);
  sits__json_num(f, r->duration_s);
  const sits_trace *t = r->trace;
  fprintf(f, ",\"trace\":{\"format\":\"%s\",\"rows\":%zu,\"skipped_lines\":%zu,\"interval_s\":",
          t->format, t->n_rows, t->skipped);
  sits__json_num(f, t->interval_s);
  fputs(",\"interval_source\":", f);
  sits__json_str(f, t->interval_source ? t->interval_source : "time_s column");
  fputs("},\"initial_state\":{", f);
  json_initial(r, sits_scenario_thermal(sc), "measured", true, f);
  fputc(',', f);
  json_initial(r, sits_scenario_thermal(sc), "estimated", false, f);
  fputs(",\"estimate\":\"the steady state of the first sample's power with the measured nodes "
        "held at their readings\"},\"phases\":{",
        f);
  for (size_t p = 0; p < r->n_phases; p++) {
    const sits_replay_phase *ph = &r->phases[p];
    fputs(p ? "," : "", f);
    sits__json_str(f, ph->label);
    fprintf(f, ":{\"instances\":%zu,\"duration_s\":", ph->instances);
    sits__json_num(f, ph->duration_s);
    fputs(",\"energy_j\":", f);
    sits__json_num(f, ph->energy_j);
    fputs(",\"sensors\":{", f);
    for (size_t k = 0; k < r->n_sensors; k++) {
      fputs(k ? "," : "", f);
      sits__json_str(f, r->sensors[k].name);
      fputc(':', f);
      fputc('{', f);
      sits__json_metrics(f, &ph->m[k], "c");
      fputs(",\"peak_measured_c\":", f);
      sits__json_num(f, ph->peak_measured_c[k]);
      fputs(",\"peak_simulated_c\":", f);
      sits__json_num(f, ph->peak_simulated_c[k]);
      fputc('}', f);
    }
    fputs("}}", f);
  }
  fputc('}', f);
  sits__json_assumptions(f, sc);
  fputs("}\n", f);
  return ferror(f) ? SITS_EIO : SITS_OK;
}

/* rows x sensors blocks of measured and simulated values (row-major, sensors as columns). */
static int blocks(const sits_replay *r, double **meas, double **sim, const char ***names) {
  size_t rows = r->trace->n_rows, ns = r->n_sensors;
  *meas = malloc(rows * ns * sizeof **meas);
  *sim = malloc(rows * ns * sizeof **sim);
  *names = malloc(ns * sizeof **names);
  if (!*meas || !*sim || !*names)
    return -1;
  for (size_t k = 0; k < ns; k++) {
    int c = sits_trace_column(r->trace, r->sensors[k].column);
    (*names)[k] = r->sensors[k].name;
    for (size_t row = 0; row < rows; row++) {
      (*meas)[row * ns + k] = sits_trace_at(r->trace, row, (size_t)c);
      (*sim)[row * ns + k] = r->sim_c[k * rows + row];
    }
  }
  return 0;
}

int sits_replay_write_h5(const sits_replay *r, const sits_scenario *sc, const char *path,
                         sits_err *err) {
  size_t rows = r->trace->n_rows;
  double *meas = NULL, *sim = NULL, *t = malloc(rows * sizeof *t);
  const char **names = NULL;
  int rc = !t || blocks(r, &meas, &sim, &names) ? sits__fail(err, SITS_ENOMEM, "out of memory")
                                                : SITS_OK;
  if (rc == SITS_OK) {
    for (size_t k = 0; k < rows; k++)
      t[k] = sits_trace_at(r->trace, k, 0);
    sits__h5_columns c = {.n_rows = rows,
                          .n_cols = r->n_sensors,
                          .n_groups = 2,
                          .n_attrs = 1,
                          .time_s = t,
                          .names = names,
                          .group = {"/measured_c", "/simulated_c"},
                          .units = {"degC", "degC"},
                          .values = {meas, sim},
                          .attr_name = {"trace_format"},
                          .attr_value = {r->trace->format},
                          .sc = sc};
    rc = sits__h5_write_columns_file(path, &c, err);
  }
  free(meas), free(sim), free(names), free(t);
  return rc;
}

int sits_replay_write_csv(const sits_replay *r, const char *path, sits_err *err) {
  return sits_replay_write_csv_split(r, path, SIZE_MAX, SIZE_MAX, err);
}

int sits_replay_write_csv_split(const sits_replay *r, const char *path, size_t hold_lo,
                                size_t hold_hi, sits_err *err) {
  bool split = hold_lo != SIZE_MAX;
  sits_output *o = sits_output_open(path, err);
  if (!o)
    return SITS_EIO;
  FILE *f = sits_output_file(o);
  size_t rows = r->trace->n_rows;
  fputs("time_s", f);
  for (size_t k = 0; k < r->n_sensors; k++) { /* a column's name may hold a comma or a quote */
    fputc(',', f), sits__csv_put_name(f, "measured ", r->sensors[k].name);
    fputc(',', f), sits__csv_put_name(f, "simulated ", r->sensors[k].name);
  }
  fputs(split ? ",power_w,held_out" : ",power_w", f);
  size_t n_band = r->band_c ? r->n_sensors : 0; /* the 95 % band's half-widths, when computed */
  if (n_band > SITS_REPLAY_MAX_BAND_SENSORS)
    n_band = SITS_REPLAY_MAX_BAND_SENSORS;
  for (size_t k = 0; k < n_band; k++)
    fputc(',', f), sits__csv_put_name(f, "band_half_width_c ", r->sensors[k].name);
  fputc('\n', f);
  for (size_t row = 0; row < rows; row++) {
    fprintf(f, "%.6f", sits_trace_at(r->trace, row, 0));
    for (size_t k = 0; k < r->n_sensors; k++) {
      double m =
          sits_trace_at(r->trace, row, (size_t)sits_trace_column(r->trace, r->sensors[k].column));
      if (isnan(m))
        fprintf(f, ",,%.6f", r->sim_c[k * rows + row]);
      else
        fprintf(f, ",%.6f,%.6f", m, r->sim_c[k * rows + row]);
    }
    fprintf(f, ",%.6f", r->power_w[row]);
    if (split)
      fprintf(f, ",%d", row >= hold_lo && row < hold_hi);
    for (size_t k = 0; k < n_band; k++)
      fprintf(f, ",%.6f", r->band_c[k * rows + row]);
    fputc('\n', f);
  }
  return sits_output_close(o, true, err);
}

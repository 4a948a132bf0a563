/*
 * workload.c - the workload group: inline phases or a trace, into a schedule.
 *
 * A phase's `power_w = { node = W; }` or a trace's `power_w.<node>` columns inject heat
 * straight into thermal nodes; `demand = { domain = D; }` or `demand.<domain>` columns
 * set a DVFS domain's demand (a fraction of its capacity at f_max); a trace may also
 * carry `ambient_c`. Values are a zero-order hold: a row (or phase) holds until the
 * next one starts. Before the first trace row the first row's values apply.
 */
#define _POSIX_C_SOURCE 200809L
#include "scenario_internal.h"
#include "status_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sits_table.h"

/* the phases a run takes, repeats included: each is a breakpoint of the solver (a restart,
 * ~10-50 us), so more would run for hours; a repeating workload stores one cycle, a trace
 * its rows */
#define MAX_SEGMENTS 20000000u

typedef struct cols {
  size_t n;
  sits_column col[1024];
} cols;

static int col_index(cols *c, sits_column_kind kind, int target) {
  for (size_t j = 0; j < c->n; j++)
    if (c->col[j].kind == kind && c->col[j].target == target)
      return (int)j;
  if (c->n == sizeof c->col / sizeof c->col[0])
    return -1;
  c->col[c->n] = (sits_column){kind, target};
  return (int)c->n++;
}

/* --- traces ------------------------------------------------------------------------ */

static int map_trace_columns(sits_scenario *sc, const sits_table *t, const char *path, cols *c,
                             int *col_of, int *amb_col, sits_err *err) {
  *amb_col = -1;
  for (size_t j = 0; j < t->n_cols; j++) {
    const char *name = t->names[j];
    col_of[j] = -1;
    if (strcmp(name, "time_s") == 0)
      continue;
    if (strcmp(name, "ambient_c") == 0) {
      *amb_col = (int)j;
    } else if (strncmp(name, "power_w.", 8) == 0) {
      if (sits__scenario_group(sc, name + 8))
        return sits__fail(err, SITS_EUNSUPPORTED, "%s:1: column '%s': %s", path, name,
                          SITS__GRID_BLOCK_POWER);
      int node = sits_thermal_find(sc->thermal, name + 8);
      if (node < 0)
        return sits__fail(err, SITS_EINPUT, "%s:1: column '%s' names unknown node '%s'", path, name,
                          name + 8);
      if ((col_of[j] = col_index(c, SITS_COLUMN_POWER_W, node)) < 0)
        return sits__fail(err, SITS_EINPUT, "%s:1: too many power columns", path);
    } else if (strncmp(name, "demand.", 7) == 0) {
      int d = sits__find_domain(sc, name + 7);
      if (d < 0)
        return sits__fail(err, SITS_EINPUT, "%s:1: column '%s' names unknown domain '%s'", path,
                          name, name + 7);
      if ((col_of[j] = col_index(c, SITS_COLUMN_DEMAND, d)) < 0)
        return sits__fail(err, SITS_EINPUT, "%s:1: too many columns", path);
    } else {
      return sits__fail(err, SITS_EINPUT,
                        "%s:1: unknown column '%s' (expected time_s, power_w.<node>, "
                        "demand.<domain>, ambient_c)",
                        path, name);
    }
  }
  if (sits_table_column(t, "time_s") < 0)
    return sits__fail(err, SITS_EINPUT, "%s:1: no 'time_s' column", path);
  bool drives = *amb_col >= 0;
  for (size_t j = 0; j < t->n_cols; j++)
    drives = drives || col_of[j] >= 0;
  if (!drives) /* the board would idle through it, at its domains' idle power */
    return sits__fail(err, SITS_EINPUT,
                      "%s:1: the trace has only 'time_s': it drives nothing (give "
                      "demand.<domain>, power_w.<node> or ambient_c columns)",
                      path);
  return SITS_OK;
}

static int check_times(const sits_table *t, int tcol, const char *path, sits_err *err) {
  for (size_t r = 0; r < t->n_rows; r++) {
    double ts = sits_table_at(t, r, (size_t)tcol);
    if (r == 0 && ts < 0)
      return sits__fail(err, SITS_EINPUT, "%s:%zu: time_s %g is negative", path, t->lines[r], ts);
    if (r > 0 && !(ts > sits_table_at(t, r - 1, (size_t)tcol)))
      return sits__fail(err, SITS_EINPUT,
                        "%s:%zu: time_s %g is not after %g: the trace must be sorted in time", path,
                        t->lines[r], ts, sits_table_at(t, r - 1, (size_t)tcol));
  }
  return SITS_OK;
}

static int trace_to_schedule(sits_scenario *sc, const sits_table *t, const char *path,
                             const cols *c, const int *col_of, int amb_col, sits_err *err) {
  int tcol = sits_table_column(t, "time_s");
  double *p = calloc(c->n ? c->n : 1, sizeof *p);
  if (!p || !(sc->schedule = sits_schedule_new(c->n, c->col))) {
    free(p);
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  }
  int rc = SITS_OK;
  for (size_t r = 0; r < t->n_rows && rc == SITS_OK; r++) {
    double ts = r == 0 ? 0.0 : sits_table_at(t, r, (size_t)tcol);
    if (ts >= sc->duration_s)
      break;
    for (size_t j = 0; j < t->n_cols; j++) {
      double v = sits_table_at(t, r, j);
      if (col_of[j] >= 0 && v < 0)
        rc = sits__fail(err, SITS_EINPUT, "%s:%zu: column '%s': %g is negative", path, t->lines[r],
                        t->names[j], v);
      else if (col_of[j] >= 0 && c->col[col_of[j]].kind == SITS_COLUMN_POWER_W && !(v <= 1e6))
        rc = sits__fail(err, SITS_EINPUT, "%s:%zu: column '%s': %g W is over 1 MW", path,
                        t->lines[r], t->names[j], v);
      else if (col_of[j] >= 0 && !isfinite(v))
        rc = sits__fail(err, SITS_EINPUT, "%s:%zu: column '%s': %g is not a finite number", path,
                        t->lines[r], t->names[j], v);
      if (col_of[j] >= 0)
        p[col_of[j]] = v;
    }
    double amb = amb_col >= 0 ? sits_table_at(t, r, (size_t)amb_col) : sc->ambient_c;
    if (rc == SITS_OK && !(amb > -273.15 && amb <= 1e4)) /* the range of ambient_c */
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: ambient %g C is not a temperature", path,
                      t->lines[r], amb);
    if (rc == SITS_OK && (rc = sits__scenario_append(sc, ts, p, amb, amb_col < 0, err)))
      rc = sits__fail(err, rc, "%s:%zu: %s", path, t->lines[r], "invalid row");
  }
  free(p);
  return rc;
}

static int load_trace(sits_scenario *sc, const config_setting_t *root, const config_setting_t *s,
                      sits_err *err) {
  char dir[4096], path[4096];
  if (config_setting_type(s) != CONFIG_TYPE_STRING)
    return sits__fail_at(err, SITS_EINPUT, s, "'trace' must be a file name");
  const char *name = config_setting_get_string(s);
  if (name[0] == '/')
    snprintf(path, sizeof path, "%s", name);
  else
    snprintf(path, sizeof path, "%s/%s", sits__setting_dir(s, dir, sizeof dir), name);
  sits_table *t = NULL;
  int rc = sits_table_read_csv(path, &t, err);
  if (rc)
    return rc;
  cols c = {0};
  int *col_of = malloc(t->n_cols * sizeof *col_of), amb_col = -1;
  if (!col_of)
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  if (rc == SITS_OK &&
      (rc = map_trace_columns(sc, t, path, &c, col_of, &amb_col, err)) == SITS_OK &&
      (rc = check_times(t, sits_table_column(t, "time_s"), path, err)) == SITS_OK) {
    int tcol = sits_table_column(t, "time_s");
    double last = sits_table_at(t, t->n_rows - 1, (size_t)tcol);
    double step = t->n_rows > 1 ? last - sits_table_at(t, t->n_rows - 2, (size_t)tcol) : 0;
    if ((rc = sits__load_times(sc, root, t->n_rows > 1 ? last + step : 0, err)) == SITS_OK)
      rc = trace_to_schedule(sc, t, path, &c, col_of, amb_col, err);
  }
  free(col_of);
  sits_table_free(t);
  return rc;
}

/* --- inline phases ------------------------------------------------------------------ */

/* One group of a phase: power_w = { <node> = W; } or demand = { <domain> = D; }. */
static int phase_group(sits_scenario *sc, const config_setting_t *ph, sits_column_kind kind,
                       cols *c, double *p, sits_err *err) {
  const char *key = kind == SITS_COLUMN_POWER_W ? "power_w" : "demand";
  const config_setting_t *grp = config_setting_get_member(ph, key);
  if (!grp)
    return SITS_OK;
  if (!config_setting_is_group(grp))
    return sits__fail_at(err, SITS_EINPUT, grp, "'%s' must be a group { <%s> = value; }", key,
                         kind == SITS_COLUMN_POWER_W ? "node" : "domain");
  for (int i = 0; i < config_setting_length(grp); i++) {
    const config_setting_t *e = config_setting_get_elem(grp, (unsigned)i);
    const char *name = config_setting_name(e);
    if (kind == SITS_COLUMN_POWER_W && sits__scenario_group(sc, name))
      return sits__fail_at(err, SITS_EUNSUPPORTED, e, "power_w.%s: %s", name,
                           SITS__GRID_BLOCK_POWER);
    int target = kind == SITS_COLUMN_POWER_W ? sits_thermal_find(sc->thermal, name)
                                             : sits__find_domain(sc, name);
    if (target < 0 && kind == SITS_COLUMN_POWER_W)
      return sits__unknown_node(sc->thermal, e, "power_w", name, err);
    if (target < 0)
      return sits__fail_at(err, SITS_EINPUT, e, "demand names unknown domain '%s'", name);
    double v;
    int rc = sits__get_num(grp, name, 0, true, &v, err);
    if (rc)
      return rc;
    if (v < 0)
      return sits__fail_at(err, SITS_EINPUT, e, "%s %g is negative", key, v);
    if (kind == SITS_COLUMN_POWER_W && v > 1e6) /* a board draws watts, not megawatts */
      return sits__fail_at(err, SITS_EINPUT, e, "%s %g W is over 1 MW", key, v);
    int j = col_index(c, kind, target);
    if (j < 0)
      return sits__fail_at(err, SITS_EINPUT, e, "too many columns");
    p[j] = v;
  }
  return SITS_OK;
}

/* A phase's `items_per_s = R;` or `busy = true;` (the slowest unit's items/s): each domain of
 * the workload's work gets the demand R / its items/s at f_max. */
static int phase_items(sits_scenario *sc, const config_setting_t *ph, cols *c, double *p,
                       sits_err *err) {
  double rate;
  bool busy = false;
  int rc;
  if ((rc = sits__key_num(ph, "workload.phases.[].items_per_s", &rate, err)) ||
      (rc = sits__key_bool(ph, "workload.phases.[].busy", &busy, err)))
    return rc;
  if (isnan(rate) && !busy)
    return SITS_OK;
  if (!isnan(rate) && busy)
    return sits__fail_at(err, SITS_EINPUT, ph, "give either 'items_per_s' or 'busy', not both");
  if (!sc->work)
    return sits__fail_at(err, SITS_EINPUT, ph,
                         "'%s' needs the workload's 'work' (what one item costs)",
                         busy ? "busy" : "items_per_s");
  if (busy) {
    rate = INFINITY;
    for (size_t d = 0; d < sc->n_domains; d++)
      if (sc->work_rate[d] > 0)
        rate = fmin(rate, sc->work_rate[d]);
    if (isinf(rate))
      rate = 0;
  }
  for (size_t d = 0; d < sc->n_domains; d++) {
    if (!(sc->work_rate[d] > 0))
      continue;
    int j = col_index(c, SITS_COLUMN_DEMAND, (int)d);
    if (j < 0)
      return sits__fail_at(err, SITS_EINPUT, ph, "too many columns");
    p[j] += rate / sc->work_rate[d];
  }
  return SITS_OK;
}

static int phase_power(sits_scenario *sc, const config_setting_t *ph, cols *c, double *p,
                       sits_err *err) {
  for (size_t j = 0; j < c->n; j++) /* columns added below are set where they are added */
    p[j] = 0;
  int rc = phase_group(sc, ph, SITS_COLUMN_POWER_W, c, p, err);
  if (rc == SITS_OK)
    rc = phase_group(sc, ph, SITS_COLUMN_DEMAND, c, p, err);
  return rc ? rc : phase_items(sc, ph, c, p, err);
}

static int phases_length(const config_setting_t *phases, bool repeat, double *len_s,
                         sits_err *err) {
  *len_s = 0;
  if (!config_setting_is_list(phases) || config_setting_length(phases) == 0)
    return sits__fail_at(err, SITS_EINPUT, phases, "'phases' must be a non-empty list of groups");
  for (int i = 0; i < config_setting_length(phases); i++) {
    const config_setting_t *ph = config_setting_get_elem(phases, (unsigned)i);
    double d;
    if (!config_setting_is_group(ph))
      return sits__fail_at(err, SITS_EINPUT, ph, "a phase must be a group { duration_s; ... }");
    int rc = sits__key_num(ph, "workload.phases.[].duration_s", &d, err);
    if (rc)
      return rc;
    *len_s += d;
  }
  if (repeat)
    *len_s = 0; /* no natural end */
  return SITS_OK;
}

/* The phases read once: durations, ambients and column powers (n x cols). */
typedef struct phase_table {
  int n;
  double *duration_s, *ambient_c, *power_w;
  bool *ambient_default; /* no ambient_c of its own: the scenario's */
} phase_table;

static void phase_table_release(phase_table *pt) {
  free(pt->duration_s);
  free(pt->ambient_c);
  free(pt->ambient_default);
  free(pt->power_w);
}

static int read_phases(sits_scenario *sc, const config_setting_t *phases, cols *c, phase_table *pt,
                       sits_err *err) {
  int rc;
  double scratch[1024] = {0};
  pt->n = config_setting_length(phases);
  for (int i = 0; i < pt->n; i++) /* first pass: the columns */
    if ((rc = phase_power(sc, config_setting_get_elem(phases, (unsigned)i), c, scratch, err)))
      return rc;
  size_t ncols = c->n ? c->n : 1, n = pt->n > 0 ? (size_t)pt->n : 1;
  pt->duration_s = malloc(n * sizeof(double));
  pt->ambient_c = malloc(n * sizeof(double));
  pt->ambient_default = calloc(n, sizeof(bool));
  pt->power_w = calloc(n * ncols, sizeof(double));
  if (!pt->duration_s || !pt->ambient_c || !pt->ambient_default || !pt->power_w)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  for (int i = 0; i < pt->n; i++) {
    const config_setting_t *ph = config_setting_get_elem(phases, (unsigned)i);
    if ((rc = sits__key_num(ph, "workload.phases.[].duration_s", &pt->duration_s[i], err)) ||
        (rc = sits__key_num(ph, "workload.phases.[].ambient_c", &pt->ambient_c[i], err)) ||
        (rc = phase_power(sc, ph, c, pt->power_w + (size_t)i * ncols, err)))
      return rc;
    pt->ambient_default[i] = isnan(pt->ambient_c[i]);
    if (pt->ambient_default[i]) /* the key table's computed default: the scenario's */
      pt->ambient_c[i] = sc->ambient_c;
  }
  return SITS_OK;
}

static int phases_to_schedule(sits_scenario *sc, const config_setting_t *phases, bool repeat,
                              double cycle_s, sits_err *err) {
  cols c = {0};
  phase_table pt = {0};
  int rc = read_phases(sc, phases, &c, &pt, err);
  /* the phases the run takes, refused before any is stored */
  double cycles = repeat && cycle_s > 0 ? ceil(sc->duration_s / cycle_s) : 1.0;
  if (rc == SITS_OK && cycles * (double)pt.n > (double)MAX_SEGMENTS)
    rc = sits__fail(err, SITS_EINPUT,
                    "%s: the workload has %.3g phases in the run (%.3g repeats of %d), more than "
                    "%u; shorten duration_s or lengthen the phases",
                    sc->config.scenario_path, cycles * (double)pt.n, cycles, pt.n, MAX_SEGMENTS);
  if (rc == SITS_OK && !(sc->schedule = sits_schedule_new(c.n, c.col)))
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  size_t ncols = c.n ? c.n : 1;
  double t = 0;
  /* one cycle is stored, and repeats (sits_schedule_repeat: cycle k starts at k cycle_s, no
   * drift over long runs; the memory is one cycle's for any duration) */
  for (int i = 0; rc == SITS_OK && i < pt.n && t < sc->duration_s; i++) {
    rc = sits__scenario_append(sc, t, pt.power_w + (size_t)i * ncols, pt.ambient_c[i],
                               pt.ambient_default[i], err);
    t += pt.duration_s[i];
  }
  if (rc == SITS_OK && repeat && cycle_s > 0)
    rc = sits_schedule_repeat(sc->schedule, cycle_s, sc->duration_s, err);
  phase_table_release(&pt);
  return rc;
}

/* `rate = { <domain> = items/s at f_max; }` and `item`: this workload's items replace the
 * platform's (domains it does not list process none). */
static int load_rates(sits_scenario *sc, const config_setting_t *w, sits_err *err) {
  const config_setting_t *rate = config_setting_get_member(w, "rate");
  const char *item = NULL;
  int rc = sits__key_str(w, "workload.item", &item, err);
  if (rc || !rate)
    return rc;
  if (!config_setting_is_group(rate))
    return sits__fail_at(err, SITS_EINPUT, rate, "'rate' must be a group { <domain> = items/s; }");
  for (size_t d = 0; d < sc->n_domains; d++)
    sc->domains[d].max_rate = 0;
  for (int i = 0; i < config_setting_length(rate); i++) {
    const config_setting_t *e = config_setting_get_elem(rate, (unsigned)i);
    int d = sits__find_domain(sc, config_setting_name(e));
    if (d < 0)
      return sits__fail_at(err, SITS_EINPUT, e, "rate names unknown domain '%s'",
                           config_setting_name(e));
    if ((rc = sits__get_num(rate, config_setting_name(e), 0, true, &sc->domains[d].max_rate, err)))
      return rc;
    if (sc->domains[d].max_rate < 0)
      return sits__fail_at(err, SITS_EINPUT, e, "a rate must be >= 0");
    if (item)
      snprintf(sc->domains[d].item, sizeof sc->domains[d].item, "%s", item);
  }
  return SITS_OK;
}

/* --- platform-neutral work ---------------------------------------------------------- */

static const char *const unit_names[] = {"other", "cpu", "gpu", "npu", "venc", "vdec"};

/* Seconds one item of DNN work at precision @p prec (gop, mb per item) takes on domain @p d at
 * f_max: the roofline's larger of compute (peak x efficiency) and DRAM (bandwidth x
 * efficiency) time; a unit without the precision runs the next wider one it has. INFINITY
 * when the domain states no throughput; *mem_missing when only the bandwidth is missing. */
static double dnn_seconds(const sits_scenario *sc, size_t d, int prec, double gop, double mb,
                          bool *mem_missing) {
  const sits__dom_caps *c = &sc->caps[d];
  double tops = NAN;
  for (int p = prec; p >= 0 && isnan(tops); p--)
    tops = c->tops[p];
  if (!(tops > 0))
    return INFINITY;
  double compute_s = gop * 1e9 / (tops * 1e12 * c->tops_efficiency), mem_s = 0;
  if (mb > 0 && !(sc->mem_gb_per_s > 0))
    *mem_missing = true;
  else if (mb > 0)
    mem_s = mb * 1e6 / (sc->mem_gb_per_s * 1e9 * sc->mem_efficiency);
  return fmax(compute_s, mem_s);
}

/* The domain of class @p unit (or, for SITS__UNIT_OTHER, of npu, gpu or cpu) that does an item
 * fastest, and its seconds per item; -1 when there is none. */
static int fastest(const sits_scenario *sc, int unit, int prec, double gop, double mb,
                   double *best_s, bool *mem_missing) {
  int best = -1;
  *best_s = INFINITY;
  for (size_t d = 0; d < sc->n_domains; d++) {
    sits__unit u = sc->caps[d].unit;
    bool ok = unit == SITS__UNIT_OTHER
                  ? u == SITS__UNIT_NPU || u == SITS__UNIT_GPU || u == SITS__UNIT_CPU
                  : (int)u == unit;
    if (!ok)
      continue;
    double s = dnn_seconds(sc, d, prec, gop, mb, mem_missing);
    if (s < *best_s)
      *best_s = s, best = (int)d;
  }
  return best;
}

static int no_unit(const sits_scenario *sc, const config_setting_t *s, const char *what,
                   sits_err *err) {
  const config_setting_t *name =
      config_setting_lookup(config_root_setting(&sc->config.cfg), "platform.name");
  return sits__fail_at(err, SITS_EINPUT, s, "platform '%s' has no %s for this work",
                       name ? config_setting_get_string(name) : "?", what);
}

/* One kind of work (dnn, cpu, venc, vdec) onto its domain: adds its seconds per item. */
static int assign_work(sits_scenario *sc, const config_setting_t *g, const char *kind, double *spi,
                       sits_err *err) {
  char key[96];
  double gop = NAN, mb = 0, mpix = NAN, cpu_gop = NAN, s = INFINITY;
  const char *prec_name = NULL, *unit_name = NULL;
  int rc, d = -1;
  bool mem_missing = false;
  if (strcmp(kind, "dnn") == 0 || strcmp(kind, "cpu") == 0) {
    snprintf(key, sizeof key, "workload.work.%s.gop_per_item", kind);
    if ((rc = sits__key_num_required(g, key, &gop, err)))
      return rc;
    snprintf(key, sizeof key, "workload.work.%s.mb_per_item", kind);
    if ((rc = sits__key_num(g, key, &mb, err)))
      return rc;
  } else {
    snprintf(key, sizeof key, "workload.work.%s.mpix_per_item", kind);
    if ((rc = sits__key_num_required(g, key, &mpix, err)))
      return rc;
    snprintf(key, sizeof key, "workload.work.%s.cpu_gop_per_item", kind);
    if ((rc = sits__key_num(g, key, &cpu_gop, err)))
      return rc;
  }
  if (strcmp(kind, "dnn") == 0) {
    static const char *const prec[SITS__N_PREC] = {"fp32", "fp16", "int8", "int4"};
    int p = SITS__FP16, unit = SITS__UNIT_OTHER;
    if ((rc = sits__key_str(g, "workload.work.dnn.precision", &prec_name, err)) ||
        (rc = sits__key_str(g, "workload.work.dnn.unit", &unit_name, err)))
      return rc;
    for (int k = 0; prec_name && k < SITS__N_PREC; k++)
      p = strcmp(prec_name, prec[k]) == 0 ? k : p;
    if (prec_name && strcmp(prec_name, prec[p]) != 0)
      return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(g, "precision"),
                           "precision '%s' is not one of fp32, fp16, int8, int4", prec_name);
    for (int k = SITS__UNIT_CPU; unit_name && k <= SITS__UNIT_NPU; k++)
      unit = strcmp(unit_name, unit_names[k]) == 0 ? k : unit;
    if (unit_name && unit == SITS__UNIT_OTHER)
      return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(g, "unit"),
                           "unit '%s' is not one of npu, gpu, cpu", unit_name);
    d = fastest(sc, unit, p, gop, mb, &s, &mem_missing);
    if (d < 0 || isinf(s))
      return no_unit(sc, g, unit_name ? unit_name : "npu, gpu or cpu stating its 'tops'", err);
  } else if (strcmp(kind, "cpu") == 0) {
    bool any_cpu = false;
    for (size_t k = 0; k < sc->n_domains; k++)
      any_cpu = any_cpu || sc->caps[k].unit == SITS__UNIT_CPU;
    if (!any_cpu) /* an accelerator card: the host does it, outside the model */
      return sits__scenario_note(sc, err,
                                 "the platform has no cpu: the workload's cpu work runs on a host "
                                 "that is not modelled");
    d = fastest(sc, SITS__UNIT_CPU, SITS__FP32, gop, mb, &s, &mem_missing);
    if (d < 0 || isinf(s))
      return no_unit(sc, g, "cpu stating its 'tops.fp32'", err);
  } else {
    int unit = strcmp(kind, "venc") == 0 ? SITS__UNIT_VENC : SITS__UNIT_VDEC;
    for (size_t k = 0; k < sc->n_domains; k++)
      if ((int)sc->caps[k].unit == unit && sc->caps[k].mpix_per_s > 0 &&
          mpix / sc->caps[k].mpix_per_s < s)
        s = mpix / sc->caps[k].mpix_per_s, d = (int)k;
    if (d < 0 && !isnan(cpu_gop)) { /* software on the cpu, said in a note */
      d = fastest(sc, SITS__UNIT_CPU, SITS__FP32, cpu_gop, 0, &s, &mem_missing);
      if (d >= 0 && !isinf(s) &&
          (rc = sits__scenario_note(
               sc, err,
               "the platform file models no %s unit (the chip may have one): the "
               "workload's %s work runs in "
               "software on '%s' (cpu_gop_per_item %g Gop)",
               kind, kind, sc->domains[d].name, cpu_gop)))
        return rc;
    }
    if (d < 0 || isinf(s))
      return no_unit(sc, g,
                     unit == SITS__UNIT_VENC ? "video encoder (a domain of class venc)"
                                             : "video decoder (a domain of class vdec)",
                     err);
  }
  if (mem_missing)
    return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(g, "mb_per_item"),
                         "the platform states no mem_gb_per_s for this work's memory traffic");
  spi[d] += s;
  return SITS_OK;
}

/* `work = { dnn = {...}; cpu = {...}; venc = {...}; vdec = {...}; }`: each kind onto the
 * platform's domain that does it (dnn: the fastest npu, gpu or cpu), giving every domain its
 * items/s at f_max (1 / the seconds of all the work it does per item). */
static int load_work(sits_scenario *sc, const config_setting_t *w, sits_err *err) {
  const config_setting_t *wk = config_setting_get_member(w, "work");
  if (!wk)
    return SITS_OK;
  if (!config_setting_is_group(wk))
    return sits__fail_at(err, SITS_EINPUT, wk, "'work' must be a group { dnn = {...}; ... }");
  if (config_setting_get_member(w, "rate"))
    return sits__fail_at(err, SITS_EINPUT, wk, "give either 'work' or 'rate', not both");
  static const char *const kinds[] = {"dnn", "cpu", "venc", "vdec"};
  double spi[SITS_MAX_DOMAINS] = {0};
  const char *item = NULL;
  int rc = sits__key_str(w, "workload.item", &item, err);
  for (size_t k = 0; rc == SITS_OK && k < sizeof kinds / sizeof kinds[0]; k++) {
    const config_setting_t *g = config_setting_get_member(wk, kinds[k]);
    if (g && !config_setting_is_group(g))
      return sits__fail_at(err, SITS_EINPUT, g, "'%s' must be a group", kinds[k]);
    if (g)
      rc = assign_work(sc, g, kinds[k], spi, err);
  }
  if (rc)
    return rc;
  sc->work = true;
  for (size_t d = 0; d < sc->n_domains; d++) {
    sits_domain *dom = &sc->domains[d];
    double top = dom->opp[dom->n_opp - 1].items_per_s;
    sc->work_rate[d] = spi[d] > 0 ? 1.0 / spi[d] : 0;
    for (size_t k = 0; spi[d] > 0 && !isnan(top) && top > 0 && k < dom->n_opp; k++)
      dom->opp[k].items_per_s *= sc->work_rate[d] / top; /* measured items: their shape over f */
    dom->max_rate = sc->work_rate[d];
    if (spi[d] > 0 && item)
      snprintf(sc->domains[d].item, sizeof sc->domains[d].item, "%s", item);
  }
  return SITS_OK;
}

int sits__load_workload(sits_scenario *sc, const config_setting_t *root, sits_err *err) {
  const config_setting_t *w = config_setting_get_member(root, "workload");
  if (!w && config_setting_get_member(root, "replay")) {
    /* a calibration or replay scenario: the trace is the drive; an idle schedule */
    double none = 0;
    int rc = sits__load_times(sc, root, 0, err);
    if (rc == SITS_OK && !(sc->schedule = sits_schedule_new(0, NULL)))
      rc = sits__fail(err, SITS_ENOMEM, "out of memory");
    return rc ? rc : sits__scenario_append(sc, 0.0, &none, sc->ambient_c, true, err);
  }
  if (!w)
    return sits__fail(err, SITS_EINPUT, "%s: needs a workload ('workload_profile' or 'workload')",
                      sc->config.scenario_path);
  if (!config_setting_is_group(w))
    return sits__fail_at(err, SITS_EINPUT, w, "'workload' must be a group");
  const config_setting_t *trace = config_setting_get_member(w, "trace");
  const config_setting_t *phases = config_setting_get_member(w, "phases");
  const config_setting_t *rep = config_setting_get_member(w, "repeat");
  if (trace && phases)
    return sits__fail_at(err, SITS_EINPUT, w, "give either 'trace' or 'phases', not both");
  int rc0 = load_rates(sc, w, err);
  if (rc0 || (rc0 = load_work(sc, w, err)))
    return rc0;
  if (trace)
    return load_trace(sc, root, trace, err);
  if (!phases)
    return sits__fail_at(err, SITS_EINPUT, w, "the workload needs 'phases' or 'trace'");
  if (rep && config_setting_type(rep) != CONFIG_TYPE_BOOL)
    return sits__fail_at(err, SITS_EINPUT, rep, "'repeat' must be true or false");
  bool repeat = rep && config_setting_get_bool(rep);
  double len_s, cycle_s;
  int rc;
  if ((rc = phases_length(phases, false, &cycle_s, err)) ||
      (rc = phases_length(phases, repeat, &len_s, err)) ||
      (rc = sits__load_times(sc, root, len_s, err)))
    return rc;
  return phases_to_schedule(sc, phases, repeat, cycle_s, err);
}

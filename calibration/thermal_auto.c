/* thermal_auto.c - `calibrate --fit auto`: the power timing the data call for, then the
 * structure (an unlogged cooling device or not) or the network's order (sits_thermal_cal.h). */
#define _POSIX_C_SOURCE 200809L
#include "sits_replay.h"
#include "sits_thermal_cal.h"
#include "status_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <libconfig.h>
#include <omp.h>

#include "config_internal.h"
#include "scenario_internal.h"
#include "thermal_internal.h"

static const char *const suffixes[] = {"", "_instant", "_average", "_energy"};
#define N_SUFFIXES (sizeof suffixes / sizeof suffixes[0])

/* The rail of a power column: power_w.gpu_instant -> power_w.gpu. */
static void rail_of(const char *column, char *out, size_t size) {
  size_t n = strnlen(column, size - 1);
  memcpy(out, column, n);
  out[n] = '\0';
  for (size_t s = 1; s < N_SUFFIXES; s++) {
    size_t ls = strlen(suffixes[s]);
    if (n > ls && !strcmp(out + n - ls, suffixes[s])) {
      out[n - ls] = '\0';
      return;
    }
  }
}

/* The mapped power columns of the scenario on the trace (a replay of it). */
static int mapped_columns(const sits_thermal_cal_opts *o, sits_trace **trace, size_t *n,
                          char cols[][160], sits_err *err) {
  sits_scenario *sc = NULL;
  int rc = sits__cal_scenario(o, o->sets, o->n_sets, &sc, err);
  if (rc == SITS_OK)
    rc = sits_trace_read(o->trace_path, &o->trace, trace, err);
  sits_replay *r = NULL;
  if (rc == SITS_OK)
    rc = sits_replay_run_trace(sc, *trace, o->trace_path, NULL, &r, err);
  if (rc == SITS_OK) {
    *n = r->n_power;
    for (size_t k = 0; k < *n; k++)
      memcpy(cols[k], r->power_column[k], 160);
  }
  sits_replay_free(r);
  sits_scenario_free(sc);
  return rc;
}

static double worst(const sits_fit_metrics *m, size_t n) {
  double w = NAN;
  for (size_t k = 0; k < n; k++)
    if (m[k].n && !(m[k].rmse <= w))
      w = m[k].rmse;
  return w;
}

/* The --set strings of one candidate: the caller's, then column and timing per mapping. */
typedef struct candidate {
  const char **sets;
  char (*own)[400];
  size_t n;
  char *kept[SITS_REPLAY_MAX_BAND_SENSORS]; /* the chosen structure's own sets, or none */
  size_t n_kept;
} candidate;

static int candidate_sets(const sits_thermal_cal_opts *o, size_t n_power, char rails[][160],
                          const char *suffix, bool interval_mean, candidate *c) {
  c->n = o->n_sets + 2 * n_power;
  c->n_kept = 0;
  c->sets = calloc(c->n, sizeof *c->sets);
  c->own = calloc(2 * n_power, sizeof *c->own);
  if (!c->sets || !c->own)
    return SITS_ENOMEM;
  for (size_t k = 0; k < o->n_sets; k++)
    c->sets[k] = o->sets[k];
  for (size_t k = 0; k < n_power; k++) {
    snprintf(c->own[2 * k], sizeof c->own[0], "replay.power.[%zu].column=\"%.159s%.15s\"", k,
             rails[k], suffix);
    snprintf(c->own[2 * k + 1], sizeof c->own[0], "replay.power.[%zu].timing=\"%s\"", k,
             interval_mean ? "interval_mean" : "hold");
    c->sets[o->n_sets + 2 * k] = c->own[2 * k];
    c->sets[o->n_sets + 2 * k + 1] = c->own[2 * k + 1];
  }
  return SITS_OK;
}

static void candidate_free(candidate *c) {
  free(c->sets);
  free(c->own);
  for (size_t k = 0; k < c->n_kept; k++)
    free(c->kept[k]);
}

/* The threads for @p n independent candidate fits: o->threads, else OpenMP's default
 * (OMP_NUM_THREADS, else the cores), never more than the candidates. */
static int auto_threads(const sits_thermal_cal_opts *o, size_t n) {
  size_t want = o->threads ? o->threads : (size_t)omp_get_max_threads();
  return (int)(want < n ? (want ? want : 1) : n);
}

/* ---- progress: every fit auto makes, counted (the caller's callback, offset NAN) ---- */

typedef struct tally {
  const sits_thermal_cal_opts *o; /* its progress callback */
  size_t done, total;
  size_t structures; /* the structure fits counted in total before their number is known */
} tally;

static void tally_fit(tally *t) {
  if (!t || !t->o->progress)
    return;
  t->done++;
  t->o->progress(t->done, t->total > t->done ? t->total : t->done, NAN, t->o->progress_user);
}

/* ---- the unlogged cooling device ---- */

#define FAN_LEVELS 4       /* the candidate fan's steps */
#define FAN_MIN_SPAN_K 2.0 /* a training part warmer by less leaves nothing to switch within */
/* the switched fan's hysteresis: not fitted (the scan moves the trip only); the widest of the
 * shipped fan profiles' trips (configs/platforms: RK3588 2 K, Orin NX 2.5 K, Raspberry Pi 5
 * 5 K), as one switch stands for a profile's several */
#define SWITCH_HYSTERESIS_K 5.0
#define STRUCTURE_GAIN 0.95   /* a structure must beat the choice so far by 5 % on validation */
#define STRUCTURE_GAIN_K 0.02 /* and by 0.02 K: finer than any board sensor's resolution */

/* The sensed temperatures of the first sensor over the training rows: median and maximum. */
static int sensed_range(const sits_thermal_cal_opts *o, const char *column, double *lo, double *hi,
                        sits_err *err) {
  sits_trace *t = NULL;
  int rc = sits_trace_read(o->trace_path, &o->trace, &t, err);
  int col = rc == SITS_OK ? sits_trace_column(t, column) : -1;
  double tf = o->train_fraction > 0 ? o->train_fraction : 0.7;
  size_t n_train = rc == SITS_OK ? (size_t)floor(tf * (double)t->n_rows) : 0;
  double *v = malloc((n_train + 1) * sizeof *v);
  size_t n = 0;
  for (size_t row = 0; v && col >= 0 && row < n_train; row++) {
    double x = sits_trace_at(t, row, (size_t)col);
    if (isfinite(x))
      v[n++] = x;
  }
  *lo = *hi = NAN;
  if (n > 1) {
    gsl_sort(v, 1, n);
    *lo = gsl_stats_median_from_sorted_data(v, 1, n);
    *hi = v[n - 1];
  }
  free(v);
  sits_trace_free(t);
  return rc;
}

/* The --set that adds a candidate fan, into @p set (empty: no candidate: the platform models
 * fans already, no link reaches the ambient, or the training part spans too little): on the
 * first link to the ambient, read by the first sensor's node, its resistance at duty 0 the
 * link's and at full duty half of it to start (both fitted). @p switched false: FAN_LEVELS
 * trips evenly between the median and the warmest training reading (1 K hysteresis), where
 * they stay; true: one trip halfway between them with SWITCH_HYSTERESIS_K, which the trip
 * scan moves (a fan that switches once at a temperature the trace places: a devkit's). */
static int fan_candidate(const sits_thermal_cal_opts *o, const char **sets, size_t n_sets,
                         bool switched, char *set, size_t size, char *what, size_t what_size,
                         sits_err *err) {
  set[0] = what[0] = '\0';
  sits_scenario *sc = NULL;
  int rc = sits__cal_scenario(o, sets, n_sets, &sc, err);
  if (rc)
    return rc;
  const config_t *cfg = sits__scenario_cfg(sc);
  const config_setting_t *links = config_lookup(cfg, "platform.thermal.links");
  const char *sensor_node = NULL, *column = NULL, *sink = NULL;
  double r = NAN;
  config_lookup_string(cfg, "replay.sensors.[0].node", &sensor_node);
  config_lookup_string(cfg, "replay.sensors.[0].column", &column);
  for (int k = 0; links && !sink && k < config_setting_length(links); k++) {
    const config_setting_t *l = config_setting_get_elem(links, (unsigned)k);
    const char *a = NULL, *b = NULL;
    config_setting_lookup_string(l, "a", &a);
    config_setting_lookup_string(l, "b", &b);
    if (a && b && (!strcmp(a, "ambient") || !strcmp(b, "ambient")) &&
        config_setting_lookup_float(l, "r_k_per_w", &r))
      sink = !strcmp(a, "ambient") ? b : a;
  }
  double lo = NAN, hi = NAN;
  if (sits_scenario_fan_count(sc) == 0 && sink && sensor_node && column && r > 0)
    rc = sensed_range(o, column, &lo, &hi, err);
  if (rc == SITS_OK && hi - lo >= FAN_MIN_SPAN_K && switched) {
    double trip = 0.5 * (lo + hi);
    int n = snprintf(set, size,
                     "platform.fans=({ name = \"unlogged\"; a = \"%s\"; b = \"ambient\"; "
                     "duty = [0.0, 1.0]; r_k_per_w = [%.9e, %.9e]; sensor = \"%s\"; "
                     "period_s = 1.0; trips = ({ temp_c = %.3f; hysteresis_c = %.1f; "
                     "duty = 1.0; }); })",
                     sink, r, r / 2, sensor_node, trip, SWITCH_HYSTERESIS_K);
    if (n < 0 || (size_t)n >= size)
      set[0] = '\0';
    snprintf(what, what_size,
             "an unlogged fan on %s-ambient switched at %s: one trip from %.1f C, scanned "
             "(%.0f K hysteresis)",
             sink, sensor_node, trip, SWITCH_HYSTERESIS_K);
  } else if (rc == SITS_OK && hi - lo >= FAN_MIN_SPAN_K) {
    size_t n =
        (size_t)snprintf(set, size,
                         "platform.fans=({ name = \"unlogged\"; a = \"%s\"; b = \"ambient\"; "
                         "duty = [0.0, 1.0]; r_k_per_w = [%.9e, %.9e]; sensor = \"%s\"; "
                         "period_s = 1.0; trips = (",
                         sink, r, r / 2, sensor_node);
    for (int k = 0; k < FAN_LEVELS && n < size; k++)
      n += (size_t)snprintf(set + n, size - n,
                            "%s{ temp_c = %.3f; hysteresis_c = 1.0; duty = %.3f; }", k ? ", " : "",
                            lo + (k + 0.5) / FAN_LEVELS * (hi - lo), (k + 1.0) / FAN_LEVELS);
    if (n + 4 < size)
      snprintf(set + n, size - n, "); })");
    else
      set[0] = '\0';
    snprintf(what, what_size, "an unlogged fan on %s-ambient read at %s: %d steps %.1f-%.1f C",
             sink, sensor_node, FAN_LEVELS, lo + 0.5 / FAN_LEVELS * (hi - lo),
             lo + (FAN_LEVELS - 0.5) / FAN_LEVELS * (hi - lo));
  }
  sits_scenario_free(sc);
  return rc;
}

/* The validation figures of one structure: fitted on the first three quarters of the training
 * rows, scored on the last quarter; the held-out tail takes no part. */
static void validate(const sits_thermal_cal_opts *o, const char **sets, size_t n_sets,
                     bool scan_trips, sits_thermal_structure_fig *f, tally *t) {
  sits_thermal_cal_opts ov = *o;
  ov.progress = NULL, ov.fit_trips = scan_trips;
  double tf = o->train_fraction > 0 ? o->train_fraction : 0.7;
  ov.sets = sets, ov.n_sets = n_sets, ov.physics_bounds = true;
  ov.hold_from = 0.75 * tf, ov.hold_to = tf, ov.use_to = tf;
  sits_thermal_cal cal;
  sits_err e = {0};
  f->train_rmse_c = f->validation_rmse_c = NAN;
  if (sits_calibrate_thermal(&ov, &cal, &e) == SITS_OK) {
    f->train_rmse_c = worst(cal.train, cal.n_sensors);
    f->validation_rmse_c = worst(cal.holdout, cal.n_sensors);
    sits_thermal_cal_release(&cal);
  }
#pragma omp critical /* unnamed: a named one is an exported symbol */
  tally_fit(t);
}

/* The sets that give each fitted sensor (weight above 0) of the scenario's replay.sensors list
 * a lag of @p lag_s (the sensor-lag structure), into sets[] (malloc'ed, *n of them; none when
 * a sensor has a lag already or there is no such list). */
static int lag_candidate(const sits_thermal_cal_opts *o, const char **given, size_t n_given,
                         double lag_s, char **sets, size_t *n, sits_err *err) {
  *n = 0;
  sits_scenario *sc = NULL;
  int rc = sits__cal_scenario(o, given, n_given, &sc, err);
  if (rc)
    return rc;
  const config_setting_t *s = config_lookup(sits__scenario_cfg(sc), "replay.sensors");
  size_t ns = s && config_setting_is_list(s) ? (size_t)config_setting_length(s) : 0;
  double weight[SITS_REPLAY_MAX_BAND_SENSORS];
  bool has = false; /* a sensor with its lag already: no candidate */
  for (size_t k = 0; rc == SITS_OK && k < ns; k++) {
    const config_setting_t *g = config_setting_get_elem(s, (unsigned)k);
    double lag = 0, w = 1;
    rc = sits__key_num(g, "replay.sensors.[].lag_s", &lag, err);
    if (rc == SITS_OK)
      rc = sits__key_num(g, "replay.sensors.[].weight", &w, err);
    has |= lag > 0;
    if (k < SITS_REPLAY_MAX_BAND_SENSORS)
      weight[k] = w;
  }
  for (size_t k = 0; !has && rc == SITS_OK && k < ns && k < SITS_REPLAY_MAX_BAND_SENSORS; k++) {
    if (!(weight[k] > 0)) /* reported, not fitted: a lag there would be a parameter without data */
      continue;
    if (!(sets[*n] = malloc(64))) {
      rc = sits__fail(err, SITS_ENOMEM, "out of memory");
      break;
    }
    snprintf(sets[*n], 64, "replay.sensors.[%zu].lag_s=%.6g", k, lag_s);
    (*n)++;
  }
  sits_scenario_free(sc);
  return rc;
}

/* The mean interval of the training rows (the sensor-lag candidate's start). */
static double training_interval(const sits_thermal_cal_opts *o) {
  sits_trace *t = NULL;
  sits_err e = {0};
  double dt = NAN;
  if (sits_trace_read(o->trace_path, &o->trace, &t, &e) == SITS_OK) {
    double tf = o->train_fraction > 0 ? o->train_fraction : 0.7;
    size_t n = (size_t)floor(tf * (double)t->n_rows);
    if (n > 1)
      dt = (sits_trace_at(t, n - 1, 0) - sits_trace_at(t, 0, 0)) / (double)(n - 1);
  }
  sits_trace_free(t);
  return dt;
}

/* The sets of the candidate that won appended to *c's (owned by c: c->kept). */
static int keep_sets(candidate *c, char **sets, size_t n, sits_err *err) {
  if (c->n_kept + n > SITS_REPLAY_MAX_BAND_SENSORS)
    return sits__fail(err, SITS_EINPUT, "more than %d structure settings",
                      SITS_REPLAY_MAX_BAND_SENSORS);
  const char **with = calloc(c->n + n + 1, sizeof *with);
  if (!with)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  memcpy(with, c->sets, c->n * sizeof *with);
  for (size_t k = 0; k < n; k++)
    with[c->n + k] = c->kept[c->n_kept + k] = sets[k], sets[k] = NULL;
  free(c->sets);
  c->sets = with, c->n += n, c->n_kept += n;
  return SITS_OK;
}

/* Chooses between the network as given and the structure candidates: with the candidate fan
 * (fan_candidate), and with a first-order lag on every sensor (lag_candidate, starting at one
 * training interval; the lag fitted), each on the validation block: the candidate of least
 * validation RMSE is kept when it beats the network as given by 5 % and 0.02 K (its sets then
 * appended to *c). */
static int choose_structure(const sits_thermal_cal_opts *o, candidate *c,
                            sits_thermal_structure_fig *figs, size_t *n_figs, size_t *chosen,
                            bool try_switched, bool *scan_trips, tally *t, sits_err *err) {
  enum { N_CAND = SITS_THERMAL_CAL_MAX_STRUCTURES - 1 };
  char fan[1024], what[200], *sets[N_CAND][SITS_REPLAY_MAX_BAND_SENSORS] = {{0}};
  size_t n_sets[N_CAND] = {0}, n_cand = 0;
  *n_figs = 0, *chosen = 0;
  bool scan[N_CAND] = {false};
  int rc = SITS_OK;
  for (int switched = 0; rc == SITS_OK && switched < (try_switched ? 2 : 1); switched++) {
    rc = fan_candidate(o, c->sets, c->n, switched, fan, sizeof fan, what, sizeof what, err);
    if (rc == SITS_OK && fan[0]) {
      if (!(sets[n_cand][0] = malloc(strlen(fan) + 1)))
        rc = sits__fail(err, SITS_ENOMEM, "out of memory");
      else
        strcpy(sets[n_cand][0], fan), n_sets[n_cand] = 1;
      snprintf(figs[1 + n_cand].what, sizeof figs[0].what, "%s", what);
      scan[n_cand++] = switched;
    }
  }
  double dt = training_interval(o);
  if (rc == SITS_OK && dt > 0) {
    rc = lag_candidate(o, c->sets, c->n, dt, sets[n_cand], &n_sets[n_cand], err);
    if (rc == SITS_OK && n_sets[n_cand]) {
      snprintf(figs[1 + n_cand].what, sizeof figs[0].what,
               "a first-order lag on every sensor (%zu, from %.3g s)", n_sets[n_cand], dt);
      n_cand++;
    }
  }
  /* each candidate's sets: the chosen timing's, then its own (the network as given: none) */
  size_t width = c->n + SITS_REPLAY_MAX_BAND_SENSORS + 1;
  const char **with = rc == SITS_OK && n_cand ? calloc((n_cand + 1) * width, sizeof *with) : NULL;
  if (rc == SITS_OK && n_cand && !with)
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  t->total = t->total - t->structures + (n_cand ? n_cand + 1 : 0); /* the assumed count, mended */
  if (rc == SITS_OK && n_cand) {
    snprintf(figs[0].what, sizeof figs[0].what, "the network as given");
    for (size_t k = 0; k <= n_cand; k++) {
      memcpy(with + k * width, c->sets, c->n * sizeof *with);
      if (k)
        memcpy(with + k * width + c->n, sets[k - 1], n_sets[k - 1] * sizeof *with);
    }
    /* independent fits: in parallel, each into its own figure (choose_timing) */
#pragma omp parallel for schedule(dynamic) num_threads(auto_threads(o, n_cand + 1))
    for (size_t k = 0; k <= n_cand; k++)
      validate(o, with + k * width, c->n + (k ? n_sets[k - 1] : 0), k && scan[k - 1], &figs[k], t);
    size_t best = 0;
    for (size_t k = 0; k < n_cand; k++) {
      double v0 = figs[0].validation_rmse_c, v = figs[1 + k].validation_rmse_c;
      bool beats =
          (v < STRUCTURE_GAIN * v0 && v < v0 - STRUCTURE_GAIN_K) || (isnan(v0) && isfinite(v));
      if (beats && (best == 0 || v < figs[best].validation_rmse_c))
        best = 1 + k;
    }
    *n_figs = 1 + n_cand, *chosen = best;
    if (best)
      rc = keep_sets(c, sets[best - 1], n_sets[best - 1], err);
    *scan_trips = best && scan[best - 1];
  }
  free(with);
  for (size_t k = 0; k < N_CAND; k++)
    for (size_t j = 0; j < SITS_REPLAY_MAX_BAND_SENSORS; j++)
      free(sets[k][j]);
  return rc;
}

/* The power-timing candidates: each suffix under which every rail is in the trace (@p have),
 * as a reading and as an interval mean, fitted on the training rows (their figures) and again
 * on the training rows' first three quarters, warm-started where the first fit ended (one
 * start), scored on the last quarter: the least validation RMSE is chosen (the least training
 * RMSE when no validation fit ended), its index into *best and its figure into *best_cost
 * (INFINITY when no candidate could be fitted; then *first holds the first candidate's error,
 * which says why: a trace too short, a sensor without readings). */
static int choose_timing(const sits_thermal_cal_opts *o, size_t n_power, char rails[][160],
                         const bool *have, sits_thermal_timing_fig *figs, size_t *n_figs,
                         size_t *best, double *best_cost, sits_err *first, tally *t,
                         sits_err *err) {
  double tf = o->train_fraction > 0 ? o->train_fraction : 0.7;
  size_t suffix_of[SITS_THERMAL_CAL_MAX_TIMINGS];
  int mean_of[SITS_THERMAL_CAL_MAX_TIMINGS];
  size_t n = 0;
  for (size_t s = 0; s < N_SUFFIXES; s++)
    for (int im = 0; have[s] && im < 2 && n < SITS_THERMAL_CAL_MAX_TIMINGS; im++)
      suffix_of[n] = s, mean_of[n++] = im;
  sits_err why[SITS_THERMAL_CAL_MAX_TIMINGS] = {{0}}; /* each candidate's failure */
  int out_of_memory = 0;
  /* the candidates are independent fits: in parallel (OpenMP threads; o->threads or
   * OMP_NUM_THREADS), each into its own figure, so the choice below is the same on any
   * number of threads */
#pragma omp parallel for schedule(dynamic) num_threads(auto_threads(o, n)) if (n > 1)
  for (size_t j = 0; j < n; j++) {
    candidate c;
    sits_thermal_cal cal, val;
    sits_thermal_timing_fig *f = &figs[j];
    snprintf(f->suffix, sizeof f->suffix, "%s", suffixes[suffix_of[j]]);
    f->interval_mean = mean_of[j];
    f->train_rmse_c = f->holdout_rmse_c = f->validation_rmse_c = NAN;
    if (candidate_sets(o, n_power, rails, suffixes[suffix_of[j]], mean_of[j], &c) != SITS_OK) {
      candidate_free(&c);
#pragma omp atomic write
      out_of_memory = 1;
      continue;
    }
    sits_thermal_cal_opts oc = *o;
    oc.sets = c.sets, oc.n_sets = c.n, oc.physics_bounds = true, oc.progress = NULL;
    if (sits_calibrate_thermal(&oc, &cal, &why[j]) == SITS_OK) {
      f->train_rmse_c = worst(cal.train, cal.n_sensors);
      f->holdout_rmse_c = worst(cal.holdout, cal.n_sensors);
      sits_thermal_cal_opts ov = oc; /* the validation block, from where this fit ended */
      ov.scenario_text = cal.config_text, ov.sets = NULL, ov.n_sets = 0;
      ov.hold_from = 0.75 * tf, ov.hold_to = tf, ov.use_to = tf;
      sits_err e = {0};
      if (sits__calibrate_thermal_warm(&ov, &val, &e) == SITS_OK) {
        f->validation_rmse_c = worst(val.holdout, val.n_sensors);
        sits_thermal_cal_release(&val);
      }
      sits_thermal_cal_release(&cal);
      why[j].code = SITS_OK;
    }
#pragma omp critical /* unnamed: a named one is an exported symbol */
    tally_fit(t), tally_fit(t); /* its fit and its validation block's */
    candidate_free(&c);
  }
  if (out_of_memory)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  *n_figs = n;
  for (size_t j = 0; j < n; j++) {
    if (why[j].code && !first->code)
      *first = why[j];
    if (figs[j].validation_rmse_c < *best_cost)
      *best_cost = figs[j].validation_rmse_c, *best = j;
  }
  for (size_t k = 0; !isfinite(*best_cost) && k < *n_figs; k++) /* no validation fit ended */
    if (figs[k].train_rmse_c < INFINITY &&
        (k == 0 || !(figs[k].train_rmse_c >= figs[*best].train_rmse_c)))
      *best = k;
  if (!isfinite(*best_cost) && *n_figs && isfinite(figs[*best].train_rmse_c))
    *best_cost = figs[*best].train_rmse_c;
  return SITS_OK;
}

int sits_calibrate_thermal_auto(const sits_thermal_cal_opts *given, const int *orders,
                                size_t n_orders, sits_thermal_cal *out, sits_err *err) {
  memset(out, 0, sizeof *out);
  /* fit_trips asks for the switched fan among the structures; no other fit scans trips */
  bool try_switched = given->fit_trips && !n_orders;
  sits_thermal_cal_opts base = *given;
  base.fit_trips = false;
  const sits_thermal_cal_opts *o = &base;
  sits_trace *trace = NULL;
  size_t n_power = 0;
  char cols[SITS_REPLAY_MAX_POWER_COLUMNS][160], rails[SITS_REPLAY_MAX_POWER_COLUMNS][160];
  int rc = mapped_columns(o, &trace, &n_power, cols, err);
  if (rc == SITS_OK && n_power == 0)
    rc = sits__fail(err, SITS_EINPUT,
                    "%s: --fit auto tries the power columns of the scenario's replay.power list: "
                    "the scenario has none",
                    o->scenario_path);
  /* the suffixes under which every mapped rail is in the trace */
  bool have[N_SUFFIXES];
  for (size_t s = 0; s < N_SUFFIXES; s++) {
    have[s] = rc == SITS_OK;
    for (size_t k = 0; have[s] && k < n_power; k++) {
      char name[200];
      rail_of(cols[k], rails[k], sizeof rails[k]);
      snprintf(name, sizeof name, "%.159s%.15s", rails[k], suffixes[s]);
      have[s] = sits_trace_column(trace, name) >= 0;
    }
  }
  sits_trace_free(trace);
  sits_thermal_timing_fig figs[SITS_THERMAL_CAL_MAX_TIMINGS];
  size_t n_figs = 0, best = 0;
  double best_cost = INFINITY;
  sits_err first = {0};
  /* the fits to come: two per timing candidate (its fit, its validation block), one per
   * structure (the network as given, the two fans, the lag: mended once known; the switched
   * fan's trip scan counts as one) and the last; with --orders the order search counts its
   * own fits after these */
  size_t structures = try_switched ? 4 : 3;
  tally t = {o, 0, n_orders ? 0 : structures + 1, n_orders ? 0 : structures};
  for (size_t s = 0; s < N_SUFFIXES; s++)
    t.total += have[s] ? 4 : 0;
  if (rc == SITS_OK)
    rc = choose_timing(o, n_power, rails, have, figs, &n_figs, &best, &best_cost, &first, &t, err);
  if (rc == SITS_OK && !isfinite(best_cost) && first.code) { /* why the first one failed */
    *err = first;
    rc = first.code;
  } else if (rc == SITS_OK && !isfinite(best_cost))
    rc = sits__fail(err, SITS_ESOLVER, "--fit auto: no power-timing candidate could be fitted");
  if (rc)
    return rc;
  candidate c;
  if (candidate_sets(o, n_power, rails, figs[best].suffix, figs[best].interval_mean, &c)) {
    candidate_free(&c);
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  }
  sits_thermal_structure_fig figs_s[SITS_THERMAL_CAL_MAX_STRUCTURES];
  size_t n_structures = 0, structure = 0;
  bool scan_trips = false; /* the switched fan kept: its trip scanned in the final fit too */
  if (!n_orders)           /* an order search builds its own networks */
    rc = choose_structure(o, &c, figs_s, &n_structures, &structure, try_switched, &scan_trips, &t,
                          err);
  sits_thermal_cal_opts oc = *o;
  oc.sets = c.sets, oc.n_sets = c.n, oc.physics_bounds = true, oc.fit_trips = scan_trips;
  if (!n_orders) /* an order search counts its own fits */
    oc.progress = NULL;
  if (rc == SITS_OK)
    rc = n_orders ? sits_calibrate_thermal_orders(&oc, orders, n_orders, out, err)
                  : sits_calibrate_thermal(&oc, out, err);
  if (rc == SITS_OK && !n_orders)
    tally_fit(&t);
  candidate_free(&c);
  if (rc)
    return rc;
  out->n_structures = n_structures, out->structure_chosen = structure;
  memcpy(out->structures, figs_s, n_structures * sizeof *figs_s);
  out->fit_auto = true;
  out->n_timings = n_figs, out->timing_chosen = best;
  memcpy(out->timings, figs, n_figs * sizeof *figs);
  size_t used = 0;
  for (size_t k = 0; k < n_power && used < sizeof out->power_columns; k++)
    used += (size_t)snprintf(out->power_columns + used, sizeof out->power_columns - used, "%s%s%s",
                             k ? "," : "", rails[k], figs[best].suffix);
  return SITS_OK;
}

/* thermal_auto.c - `calibrate --fit auto`: the power timing the data call for, then the
 * network's order (sits_thermal_cal.h). */
#define _POSIX_C_SOURCE 200809L
#include "sits_replay.h"
#include "sits_thermal_cal.h"
#include "status_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  int rc = o->scenario_text ? sits_scenario_load_text(o->scenario_text, o->scenario_path, o->sets,
                                                      o->n_sets, &sc, err)
                            : sits_scenario_load(o->scenario_path, o->sets, o->n_sets, &sc, err);
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
} candidate;

static int candidate_sets(const sits_thermal_cal_opts *o, size_t n_power, char rails[][160],
                          const char *suffix, bool interval_mean, candidate *c) {
  c->n = o->n_sets + 2 * n_power;
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
}

int sits_calibrate_thermal_auto(const sits_thermal_cal_opts *o, const int *orders, size_t n_orders,
                                sits_thermal_cal *out, sits_err *err) {
  memset(out, 0, sizeof *out);
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
  for (size_t s = 0; rc == SITS_OK && s < N_SUFFIXES; s++)
    for (int im = 0; rc == SITS_OK && have[s] && im < 2; im++) {
      candidate c;
      sits_thermal_cal cal;
      if (candidate_sets(o, n_power, rails, suffixes[s], im, &c) != SITS_OK) {
        candidate_free(&c);
        rc = sits__fail(err, SITS_ENOMEM, "out of memory");
        break;
      }
      sits_thermal_cal_opts oc = *o;
      oc.sets = c.sets, oc.n_sets = c.n, oc.physics_bounds = true;
      sits_err e = {0};
      sits_thermal_timing_fig *f = &figs[n_figs++];
      snprintf(f->suffix, sizeof f->suffix, "%s", suffixes[s]);
      f->interval_mean = im;
      f->train_rmse_c = f->holdout_rmse_c = NAN;
      if (sits_calibrate_thermal(&oc, &cal, &e) == SITS_OK) {
        f->train_rmse_c = worst(cal.train, cal.n_sensors);
        f->holdout_rmse_c = worst(cal.holdout, cal.n_sensors);
        sits_thermal_cal_release(&cal);
      }
      if (f->train_rmse_c < best_cost)
        best_cost = f->train_rmse_c, best = n_figs - 1;
      candidate_free(&c);
    }
  if (rc == SITS_OK && !isfinite(best_cost))
    rc = sits__fail(err, SITS_ESOLVER, "--fit auto: no power-timing candidate could be fitted");
  if (rc)
    return rc;
  candidate c;
  if (candidate_sets(o, n_power, rails, figs[best].suffix, figs[best].interval_mean, &c)) {
    candidate_free(&c);
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  }
  sits_thermal_cal_opts oc = *o;
  oc.sets = c.sets, oc.n_sets = c.n, oc.physics_bounds = true;
  rc = n_orders ? sits_calibrate_thermal_orders(&oc, orders, n_orders, out, err)
                : sits_calibrate_thermal(&oc, out, err);
  candidate_free(&c);
  if (rc)
    return rc;
  out->fit_auto = true;
  out->n_timings = n_figs, out->timing_chosen = best;
  memcpy(out->timings, figs, n_figs * sizeof *figs);
  size_t used = 0;
  for (size_t k = 0; k < n_power && used < sizeof out->power_columns; k++)
    used += (size_t)snprintf(out->power_columns + used, sizeof out->power_columns - used, "%s%s%s",
                             k ? "," : "", rails[k], figs[best].suffix);
  return SITS_OK;
}

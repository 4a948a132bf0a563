/*
 * scenario_parts.c - what the scenario's loaders (domains.c, workload.c, battery_cfg.c,
 * hotspot/platform.c) share, below them and below scenario.c, which calls the loaders:
 * unknown-node errors with a suggestion, grid block groups, the run's times and appending
 * input segments that follow the scenario's ambient.
 */
#define _POSIX_C_SOURCE 200809L
#include "scenario_internal.h"
#include "status_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "did you mean" among the node names */
static const char *nearest_node(const sits_thermal *th, const char *name) {
  const char *best = NULL;
  size_t best_d = (size_t)-1;
  for (size_t i = 0; i < sits_thermal_node_count(th); i++) {
    size_t d = sits__edit_distance(name, sits_thermal_name(th, (int)i));
    if (d < best_d)
      best_d = d, best = sits_thermal_name(th, (int)i);
  }
  return best && best_d <= 1 + strlen(name) / 3 ? best : NULL;
}

int sits__unknown_node(const sits_thermal *th, const config_setting_t *s, const char *what,
                       const char *name, sits_err *err) {
  char hint[300] = "";
  const char *near = nearest_node(th, name);
  if (near)
    snprintf(hint, sizeof hint, " (did you mean '%s'?)", near);
  return sits__fail_at(err, SITS_EINPUT, s, "%s names unknown node '%s'%s", what, name, hint);
}

const sits__group *sits__scenario_group(const sits_scenario *sc, const char *name) {
  for (size_t g = 0; g < sc->n_groups; g++)
    if (strcmp(sc->groups[g].name, name) == 0)
      return &sc->groups[g];
  return NULL;
}

int sits__load_times(sits_scenario *sc, const config_setting_t *root, double workload_s,
                     sits_err *err) {
  int rc = sits__key_num(root, "duration_s", &sc->duration_s, err);
  if (rc)
    return rc;
  if (isnan(sc->duration_s)) /* the key table's computed default */
    sc->duration_s = workload_s > 0 ? workload_s : 3600.0;
  if ((rc = sits__key_num(root, "sample_period_s", &sc->sample_period_s, err)))
    return rc;
  if (isnan(sc->sample_period_s))
    sc->sample_period_s = sc->duration_s >= 1000.0 ? 1.0 : sc->duration_s / 1000.0;
  /* bounded up front: every sample is held until the outputs are written; a replay-only
   * scenario (no workload) takes its times from the trace, whose rows are bounded when it is
   * replayed, and sits_run checks again what it is asked to run */
  if ((rc = sits__key_num(root, "max_samples", &sc->max_samples, err)))
    return rc;
  bool replay_only = config_setting_get_member(root, "replay") &&
                     !config_setting_get_member(root, "workload") &&
                     !config_setting_get_member(root, "workload_profile");
  return replay_only ? SITS_OK : sits__check_samples(sc, err);
}

int sits__check_samples(const sits_scenario *sc, sits_err *err) {
  double samples = floor(sc->duration_s / sc->sample_period_s) + 1.0;
  if (samples > sc->max_samples)
    return sits__fail(err, SITS_EINPUT,
                      "duration_s = %g s at sample_period_s = %g s is %.0f samples, more than "
                      "max_samples = %.0f (a bound on the run's output and, unless it streams "
                      "to its files, its memory): raise sample_period_s, shorten duration_s, or "
                      "raise max_samples",
                      sc->duration_s, sc->sample_period_s, samples, sc->max_samples);
  return SITS_OK;
}

int sits__scenario_append(sits_scenario *sc, double start_s, const double *values, double ambient_c,
                          bool scenario_ambient, sits_err *err) {
  size_t before = sits_schedule_segment_count(sc->schedule);
  int rc = sits_schedule_append(sc->schedule, start_s, values, ambient_c, err);
  if (rc || !scenario_ambient || sits_schedule_segment_count(sc->schedule) == before)
    return rc;
  if (sc->n_amb_rows == sc->cap_amb_rows) {
    size_t cap = sc->cap_amb_rows ? 2 * sc->cap_amb_rows : 16;
    size_t *p = realloc(sc->amb_rows, cap * sizeof *p);
    if (!p)
      return sits__fail(err, SITS_ENOMEM, "out of memory");
    sc->amb_rows = p, sc->cap_amb_rows = cap;
  }
  sc->amb_rows[sc->n_amb_rows++] = before;
  return SITS_OK;
}

int sits__strlist_addv(char ***list, size_t *n, sits_err *err, const char *fmt, va_list ap) {
  char text[1024];
  vsnprintf(text, sizeof text, fmt, ap);
  char **p = realloc(*list, (*n + 1) * sizeof *p);
  if (p)
    *list = p;
  if (!p || !((*list)[*n] = strdup(text)))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  (*n)++;
  return SITS_OK;
}

int sits__scenario_note(sits_scenario *sc, sits_err *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = sits__strlist_addv(&sc->notes, &sc->n_notes, err, fmt, ap);
  va_end(ap);
  return rc;
}

int sits__scenario_block_share(sits_scenario *sc, size_t d, const sits__group *grp, double share,
                               sits_err *err) {
  if (!sc->block_share &&
      !(sc->block_share = calloc((SITS_MAX_DOMAINS + 1) * sc->n_groups, sizeof(double))))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  sc->block_share[d * sc->n_groups + (size_t)(grp - sc->groups)] += share;
  return SITS_OK;
}

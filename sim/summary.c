/*
 * summary.c - the run summary: energy account, peaks, the TDP moving average and the
 * constraint verdicts, and its JSON and text forms.
 *
 * Inputs are piecewise constant in this version, so the power figures are exact: the
 * TDP value is max over t of (1/W) * integral of P over [t - W, t], whose maximum lies
 * where t or t - W is a breakpoint (the average is piecewise linear in t).
 */
#include "result_impl.h"
#include "scenario_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *sits_end_reason_name(sits_end_reason r) {
  return r == SITS_END_CRITICAL_TEMP ? "critical_temp" : "duration";
}

const char *sits_version(void) {
  return SITS_VERSION;
}

typedef struct power_history {
  const sits_scenario *sc;
  size_t nseg;
  double static_w, end_s;
  double *e_start_j; /* energy put in before segment k starts */
} power_history;

static double seg_power(const power_history *h, size_t k) {
  return h->static_w + sits_schedule_total_power_w(sits_scenario_schedule(h->sc), k);
}

static double energy_until(const power_history *h, double t) {
  const sits_schedule *s = sits_scenario_schedule(h->sc);
  size_t k = sits_schedule_find(s, t);
  return h->e_start_j[k] + seg_power(h, k) * (t - sits_schedule_start_s(s, k));
}

static void consider(const power_history *h, double t, double w, double *best) {
  if (t < w || t > h->end_s)
    return;
  double avg = (energy_until(h, t) - energy_until(h, t - w)) / w;
  if (avg > *best)
    *best = avg;
}

/* Peak moving average of total power over the window; the run's average when shorter. */
static double tdp_moving_average(const power_history *h, double w) {
  if (h->end_s <= 0)
    return seg_power(h, 0);
  if (h->end_s <= w)
    return energy_until(h, h->end_s) / h->end_s;
  const sits_schedule *s = sits_scenario_schedule(h->sc);
  double best = -INFINITY;
  consider(h, w, w, &best);
  consider(h, h->end_s, w, &best);
  for (size_t k = 0; k < h->nseg; k++) {
    consider(h, sits_schedule_start_s(s, k), w, &best);
    consider(h, sits_schedule_start_s(s, k) + w, w, &best);
  }
  return best;
}

static void power_figures(const sits_scenario *sc, sits_summary *sum, double end_s) {
  const sits_schedule *s = sits_scenario_schedule(sc);
  power_history h = {sc, sits_schedule_segment_count(s), 0, end_s, NULL};
  const double *st = sits_scenario_static_power_w(sc);
  for (size_t i = 0; i < sits_thermal_node_count(sits_scenario_thermal(sc)); i++)
    h.static_w += st[i];
  sum->peak_power_w = 0;
  h.e_start_j = malloc((h.nseg + 1) * sizeof(double));
  if (!h.e_start_j) {
    sum->tdp_w = NAN;
    return;
  }
  h.e_start_j[0] = 0;
  for (size_t k = 0; k < h.nseg; k++) {
    double t0 = sits_schedule_start_s(s, k);
    double t1 = k + 1 < h.nseg ? sits_schedule_start_s(s, k + 1) : INFINITY;
    h.e_start_j[k + 1] = h.e_start_j[k] + seg_power(&h, k) * (t1 - t0);
    if (t0 <= end_s && (t0 < end_s || end_s == 0) && seg_power(&h, k) > sum->peak_power_w)
      sum->peak_power_w = seg_power(&h, k);
  }
  sum->tdp_w = tdp_moving_average(&h, sits_scenario_limits(sc)->tdp_window_s);
  free(h.e_start_j);
}

static void constrain(sits_constraint *c, double limit, double value) {
  c->set = !isnan(limit);
  c->limit = limit;
  c->value = value;
  c->ok = !c->set || value <= limit;
}

void sits__summarise(const sits_scenario *sc, sits_result *r, sits_end_reason why, double end_s,
                     const double *y_end, const double *y_start) {
  sits_summary *sum = &r->summary;
  const sits_thermal *th = sits_scenario_thermal(sc);
  size_t n = r->n_nodes;
  bool any_junction = sits_thermal_has_junctions(th);
  sum->end_reason = why;
  sum->simulated_s = end_s;
  sum->max_junction_temp_c = -INFINITY;
  for (size_t i = 0; i < n; i++)
    if (!any_junction || sits_thermal_is_junction(th, (int)i))
      sum->max_junction_temp_c = fmax(sum->max_junction_temp_c, r->peak_temp_c[i]);
  sum->energy_j = y_end[n];
  sum->energy_to_ambient_j = y_end[n + 1];
  sum->energy_stored_j = 0;
  for (size_t i = 0; i < n; i++)
    sum->energy_stored_j += sits_thermal_capacity_j_per_k(th, (int)i) * (y_end[i] - y_start[i]);
  double residual = sum->energy_j - sum->energy_stored_j - sum->energy_to_ambient_j;
  sum->energy_balance_rel = sum->energy_j > 0 ? fabs(residual) / sum->energy_j : fabs(residual);
  sum->avg_power_w = end_s > 0 ? sum->energy_j / end_s : 0;
  power_figures(sc, sum, end_s);
  const sits_limits *lim = sits_scenario_limits(sc);
  constrain(&sum->tdp, lim->tdp_budget_w, sum->tdp_w);
  constrain(&sum->junction, lim->max_junction_temp_c, sum->max_junction_temp_c);
  sum->ok = sum->tdp.ok && sum->junction.ok;
}

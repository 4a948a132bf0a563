/*
 * summary.c - the run summary: energy account, peaks, the TDP moving average, throttling,
 * items, and the constraint verdicts.
 *
 * The TDP value is max over t of (E(t) - E(t - W)) / W, with E the energy put in, known
 * at every breakpoint and linear in between (exact when the power is piecewise constant;
 * with leakage the power drifts slowly inside an interval). The maximum of such a
 * piecewise-linear function lies where t or t - W is a breakpoint.
 */
#include "result_internal.h"
#include "scenario_internal.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_roots.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define FIELD(name)                                                                                \
  { #name, offsetof(sits_summary, name) }
const sits__summary_field sits__summary_fields[SITS__SUMMARY_FIELDS] = {
    FIELD(simulated_s),        FIELD(max_junction_temp_c),
    FIELD(avg_power_w),        FIELD(peak_power_w),
    FIELD(energy_j),           FIELD(tdp_w),
    FIELD(time_to_throttle_s), FIELD(throttled_fraction),
    FIELD(items_done),         FIELD(energy_per_item_mj),
    FIELD(latency_ms),         FIELD(deficit_fraction),
    FIELD(energy_stored_j),    FIELD(energy_to_ambient_j),
    FIELD(energy_balance_rel), FIELD(battery_heat_j),
    FIELD(final_junction_temp_c)}; /* last: sweep CSVs' earlier columns keep their places */
#undef FIELD

const char *sits_end_reason_name(sits_end_reason r) {
  switch (r) {
  case SITS_END_CRITICAL_TEMP: return "critical_temp";
  case SITS_END_BATTERY_CUTOFF: return "battery_cutoff";
  case SITS_END_BROWNOUT: return "brownout";
  case SITS_END_BATTERY_EMPTY: return "battery_empty";
  default: return "duration";
  }
}

double sits__history_at_hint(const double *ts, const double *vs, size_t n, double at,
                             size_t *hint) {
  if (n == 0)
    return 0;
  if (at <= ts[0])
    return vs[0];
  size_t lo = 0, hi = n;
  /* a caller reading nearby times: a few steps from the last place, either way */
  if (hint && *hint < n) {
    size_t k = *hint;
    for (int s = 0; s < 64 && k > 0 && ts[k] > at; s++)
      k--;
    for (int s = 0; s < 64 && k + 1 < n && ts[k + 1] <= at; s++)
      k++;
    if (ts[k] <= at && (k + 1 >= n || ts[k + 1] > at)) {
      lo = k;
      hi = k + 1;
    }
  }
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (ts[mid] <= at)
      lo = mid;
    else
      hi = mid;
  }
  if (hint)
    *hint = lo;
  if (lo + 1 >= n)
    return vs[lo];
  double w = (at - ts[lo]) / (ts[lo + 1] - ts[lo]);
  return vs[lo] + w * (vs[lo + 1] - vs[lo]);
}

double sits__history_at(const double *ts, const double *vs, size_t n, double at) {
  return sits__history_at_hint(ts, vs, n, at, NULL);
}

void sits__elog_init(sits__elog *l, double tdp_window_s, double keep_s) {
  *l = (sits__elog){.w = tdp_window_s, .keep_s = fmax(keep_s, tdp_window_s), .best = -INFINITY};
}

void sits__elog_free(sits__elog *l) {
  free(l->t);
  free(l->e);
  l->t = l->e = NULL;
}

double sits__elog_at(const sits__elog *l, double at, size_t *hint) {
  return sits__history_at_hint(l->t, l->e, l->n, at, hint);
}

/* The windows the points up to the last one decide (the energy is piecewise linear between
 * breakpoints, so a windowed average is extremal where a window edge sits on a breakpoint):
 * the one ending at the last point, those starting at points whose end the last point has
 * passed, and [0, w]. */
static void elog_windows(sits__elog *l) {
  size_t last = l->n - 1;
  double tl = l->t[last], w = l->w;
  if (!(w > 0))
    return;
  if (tl >= w) {
    double avg = (l->e[last] - sits__elog_at(l, tl - w, &l->hint_back)) / w;
    l->best = fmax(l->best, avg);
    if (!l->first_done) {
      l->best = fmax(l->best, (sits__elog_at(l, w, NULL) - l->e[0]) / w);
      l->first_done = true;
    }
  }
  while (l->pend < l->n && l->t[l->pend] + w <= tl) {
    double avg = (sits__elog_at(l, l->t[l->pend] + w, &l->hint_ahead) - l->e[l->pend]) / w;
    l->best = fmax(l->best, avg);
    l->pend++;
  }
}

int sits__elog_push(sits__elog *l, double t, double e) {
  if (l->n == l->cap) {
    /* drop what nothing reads any more: points before the pending window starts and before
     * the look-back (one kept before it, for the interpolation there); point 0 stays until
     * the window [0, w] is taken */
    size_t drop = 0;
    double horizon = l->n ? l->t[l->n - 1] - l->keep_s : 0;
    while (l->first_done && drop + 1 < l->pend && l->t[drop + 1] < horizon)
      drop++;
    if (drop > 0 && drop >= l->n / 2) {
      memmove(l->t, l->t + drop, (l->n - drop) * sizeof(double));
      memmove(l->e, l->e + drop, (l->n - drop) * sizeof(double));
      l->n -= drop;
      l->pend -= drop;
      l->hint_back = l->hint_back > drop ? l->hint_back - drop : 0;
      l->hint_ahead = l->hint_ahead > drop ? l->hint_ahead - drop : 0;
      l->dropped += drop;
    } else {
      size_t cap = l->cap ? 2 * l->cap : 1024;
      double *pt = realloc(l->t, cap * sizeof(double));
      if (!pt)
        return -1;
      l->t = pt;
      double *pe = realloc(l->e, cap * sizeof(double));
      if (!pe)
        return -1;
      l->e = pe;
      l->cap = cap;
    }
  }
  l->t[l->n] = t;
  l->e[l->n++] = e;
  elog_windows(l);
  return 0;
}

double sits__elog_tdp_w(const sits__elog *l, double end_s, double avg_power_w) {
  if (!l || end_s <= l->w || l->n < 2)
    return avg_power_w;
  double last = (sits__elog_at(l, end_s, NULL) - sits__elog_at(l, end_s - l->w, NULL)) / l->w;
  return fmax(l->best, last);
}

static void constrain(sits_constraint *c, double limit, double value) {
  c->set = !isnan(limit);
  c->limit = limit;
  c->value = value;
  c->ok = !c->set || value <= limit;
}

static void item_figures(const sits_scenario *sc, sits_summary *sum, const sits__tally *t) {
  size_t nd;
  const sits_domain *dom = sits_scenario_domains(sc, &nd);
  double done = INFINITY, demanded = 0, served = 0, latency = 0;
  bool any = false;
  for (size_t d = 0; d < nd; d++) {
    if (dom[d].max_rate <= 0)
      continue;
    any = true;
    done = fmin(done, t->items[d]);
    demanded += t->demanded[d];
    served += t->items[d];
    latency += t->items[d] > 0 ? t->latency_ms_sum[d] / t->items[d] : NAN;
  }
  sum->items_done = any ? done : NAN;
  sum->energy_per_item_mj = any && done > 0 ? 1000.0 * sum->energy_j / done : NAN;
  sum->latency_ms = any ? latency : NAN;
  sum->deficit_fraction = any && demanded > 0 ? fmax(0, 1.0 - served / demanded) : (any ? 0 : NAN);
}

double sits__battery_settled_r_ohm(const sits_battery *b, double soc, double temp_c) {
  double r = sits_battery_r0_ohm(b, soc, temp_c);
  for (size_t k = 0; k < sits_battery_config(b)->n_rc; k++)
    r += sits_battery_rc_r_ohm(b, k, soc, temp_c);
  return r;
}

double sits__battery_discharge_hyst_v(const sits_battery_cfg *cfg) {
  return cfg->hyst_m0_v + cfg->hyst_m_v; /* s = -1, h settled at -1 */
}

/* The cell under a constant power p [W] with the RC pairs settled (their voltage I R_k): the
 * terminal voltage is (v + sqrt(d)) / 2 with v the OCV less the hysteresis a discharge takes
 * and d = v^2 - 4 R p, R = R0 + sum R_k; a negative d is a brown-out. */
typedef struct life_ctx {
  const sits_battery *b;
  double temp_c, p_cell_w, cutoff_v, hyst_v;
} life_ctx;

static double life_v(const life_ctx *c, double soc, double *d) {
  double v = sits_battery_ocv_at_v(c->b, soc, c->temp_c) - c->hyst_v;
  *d = v * v - 4.0 * sits__battery_settled_r_ohm(c->b, soc, c->temp_c) * c->p_cell_w;
  return v;
}

/* Where the cell can go on: positive while its loaded terminal voltage is above the cutoff
 * and it does not brown out (d > 0), reaching 0 at whichever comes first (continuous, and
 * negative past both). */
static double life_margin(double soc, void *p) {
  const life_ctx *c = p;
  double d, v = life_v(c, soc, &d);
  return fmin(0.5 * (v + sqrt(fmax(d, 0.0))) - c->cutoff_v, d / fabs(v));
}

#define LIFE_SCAN 512 /* steps of the scan down from the SOC for the first crossing */

/* 1 / I [1/A] at @p soc: I = 2 p / (v + sqrt(d)) (no cancellation at small R). */
static double life_inv_current(double soc, void *p) {
  const life_ctx *c = p;
  double d, v = life_v(c, soc, &d);
  return (v + sqrt(fmax(d, 0.0))) / (2.0 * c->p_cell_w);
}

/* Seconds a cell at @p soc lasts under the pack's average draw @p p_pack_w at @p temp_c: to
 * the SOC where its loaded terminal voltage reaches the cutoff (or browns out), else to SOC 0:
 * 3600 Q(T) times the integral of dSOC / I over that range (GSL's root finder and QAGS). NAN
 * when either fails. */
static double life_left_s(const sits_battery *b, double soc, double temp_c, double p_pack_w) {
  const sits_battery_cfg *cfg = sits_battery_config(b);
  life_ctx c = {b, temp_c, p_pack_w / (double)(cfg->series * cfg->parallel), cfg->cutoff_v,
                sits__battery_discharge_hyst_v(cfg)};
  if (!(soc > 0))
    return 0.0;
  double end = 0.0;
  if (life_margin(soc, &c) <= 0)
    return 0.0; /* at the cutoff already under the average draw */
  /* the first crossing below the SOC (a margin that is not monotone, a resistance table's
   * bump, may cross again lower down): scanned down, then Brent inside that step */
  double hi = soc, lo = soc;
  for (int k = 1; k <= LIFE_SCAN && lo > 0; k++) {
    lo = soc * (1.0 - (double)k / LIFE_SCAN);
    if (life_margin(lo, &c) < 0)
      break;
    hi = lo;
  }
  if (lo > 0 || life_margin(0.0, &c) < 0) { /* the cutoff or a brown-out before SOC 0: where */
    gsl_function f = {life_margin, &c};
    gsl_root_fsolver *rs = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (!rs || gsl_root_fsolver_set(rs, &f, lo, hi)) {
      gsl_root_fsolver_free(rs);
      return NAN;
    }
    int status = GSL_CONTINUE;
    for (int it = 0; it < 100 && status == GSL_CONTINUE; it++) {
      if (gsl_root_fsolver_iterate(rs))
        break;
      status = gsl_root_test_interval(gsl_root_fsolver_x_lower(rs), gsl_root_fsolver_x_upper(rs),
                                      1e-10, 0.0);
    }
    end = gsl_root_fsolver_root(rs);
    gsl_root_fsolver_free(rs);
    if (status != GSL_SUCCESS)
      return NAN;
  }
  gsl_integration_workspace *w = gsl_integration_workspace_alloc(200);
  gsl_function g = {life_inv_current, &c};
  double integral = NAN, abserr;
  /* the OCV table's knots are kinks in 1/I: QAGS may stop on round-off (GSL_EROUND) short of
   * 1e-8 with an error estimate far inside what a life estimate needs; kept when within 1e-6 */
  int st = w ? gsl_integration_qags(&g, end, soc, 0.0, 1e-8, 200, w, &integral, &abserr) : -1;
  if (st && !(isfinite(integral) && abserr <= 1e-6 * fabs(integral)))
    integral = NAN;
  gsl_integration_workspace_free(w);
  return 3600.0 * sits_battery_capacity_at_ah(b, temp_c) * integral;
}

/* Battery figures: the run's end when the battery ended it, else an estimate: the run's end
 * plus how long the cells last from their final SOC under the run's average draw (at the
 * cells' end temperature, the RC pairs settled), to the SOC where the loaded cell reaches
 * its cutoff or browns out, else to SOC 0. */
static void battery_figures(const sits_scenario *sc, sits_summary *sum, const sits__tally *t) {
  const sits_battery *b = sits_scenario_battery(sc);
  sum->has_battery = b != NULL;
  sum->battery_life.set = false;
  sum->battery_life.ok = true;
  if (!b)
    return;
  double soc = t->y_end[t->lay.i_soc], drawn_j = t->y_end[t->lay.i_drawn];
  sum->final_soc = soc;
  sum->min_voltage_v = t->min_pack_v;
  sum->energy_drawn_wh = drawn_j / 3600.0;
  sum->runtime_estimated = !(t->why == SITS_END_BATTERY_CUTOFF || t->why == SITS_END_BROWNOUT ||
                             t->why == SITS_END_BATTERY_EMPTY);
  if (!sum->runtime_estimated)
    sum->runtime_s = t->end_s;
  else if (!(drawn_j > 0 && t->end_s > 0))
    sum->runtime_s = INFINITY; /* no net draw: it does not empty */
  else {
    double temp_c = sc->batt_node >= 0 ? t->y_end[sc->batt_node] : sits_scenario_ambient_c(sc);
    double left_s = life_left_s(b, soc, temp_c, drawn_j / t->end_s);
    if (!isfinite(left_s)) /* GSL gave no answer: the open-circuit energy left, at that draw */
      left_s = sits_battery_pack_energy_j(b, 0, soc) * sits_battery_capacity_at_ah(b, temp_c) /
               sits_battery_capacity_ah(b) / (drawn_j / t->end_s);
    sum->runtime_s = t->end_s + left_s;
  }
  double limit = sits_scenario_limits(sc)->min_battery_life_s;
  sum->battery_life.set = !isnan(limit);
  sum->battery_life.limit = limit;
  sum->battery_life.value = sum->runtime_s;
  sum->battery_life.ok = !sum->battery_life.set || sum->runtime_s >= limit;
}

void sits__summarise(const sits_scenario *sc, sits_result *r, const sits__tally *t) {
  sits_summary *sum = &r->summary;
  const sits_thermal *th = sits_scenario_thermal(sc);
  size_t n = r->n_nodes;
  bool any_junction = sits_thermal_has_junctions(th);
  sum->end_reason = t->why;
  sum->simulated_s = t->end_s;
  sum->max_junction_temp_c = sum->final_junction_temp_c = -INFINITY;
  for (size_t i = 0; i < n; i++)
    if (!any_junction || sits_thermal_is_junction(th, (int)i)) {
      sum->max_junction_temp_c = fmax(sum->max_junction_temp_c, r->peak_temp_c[i]);
      sum->final_junction_temp_c = fmax(sum->final_junction_temp_c, t->y_end[i]);
    }
  sum->energy_j = t->y_end[t->lay.i_e_in];
  size_t n_dom;
  sits_scenario_domains(sc, &n_dom);
  for (size_t d = 0; d < SITS_MAX_DOMAINS; d++)
    sum->domain_energy_j[d] = d < n_dom && t->domain_energy_j ? t->domain_energy_j[d] : NAN;
  sum->energy_to_ambient_j = t->y_end[t->lay.i_e_out];
  sum->energy_stored_j = 0;
  for (size_t i = 0; i < n; i++)
    sum->energy_stored_j +=
        sits_thermal_capacity_j_per_k(th, (int)i) * (t->y_end[i] - t->y_start[i]);
  sum->battery_heat_j = t->lay.i_e_pack ? t->y_end[t->lay.i_e_pack] : 0;
  double residual =
      sum->energy_j + sum->battery_heat_j - sum->energy_stored_j - sum->energy_to_ambient_j;
  sum->energy_balance_rel = sum->energy_j > 0 ? fabs(residual) / sum->energy_j : fabs(residual);
  sum->avg_power_w = t->end_s > 0 ? sum->energy_j / t->end_s : r->total_power_w[0];
  sum->peak_power_w = t->peak_power_w;
  const sits_limits *lim = sits_scenario_limits(sc);
  sum->tdp_w = sits__elog_tdp_w(t->elog, t->end_s, sum->avg_power_w);
  sum->time_to_throttle_s = t->time_to_throttle_s;
  sum->throttled_fraction = t->end_s > 0 ? t->throttled_s / t->end_s : 0;
  item_figures(sc, sum, t);
  constrain(&sum->tdp, lim->tdp_budget_w, sum->tdp_w);
  constrain(&sum->junction, lim->max_junction_temp_c, sum->max_junction_temp_c);
  constrain(&sum->latency, lim->max_latency_ms, sum->latency_ms);
  constrain(&sum->energy_per_item, lim->max_energy_per_item_mj, sum->energy_per_item_mj);
  /* a per-item limit with no item done is not met */
  sum->latency.ok = !sum->latency.set || (!isnan(sum->latency_ms) && sum->latency.ok);
  sum->energy_per_item.ok =
      !sum->energy_per_item.set || (!isnan(sum->energy_per_item_mj) && sum->energy_per_item.ok);
  battery_figures(sc, sum, t);
  sum->n_fans = sits_scenario_fan_count(sc);
  for (size_t f = 0; f < sum->n_fans && f < SITS_MAX_FANS; f++) {
    sum->fan_max_duty[f] = t->fan_max_duty[f];
    sum->fan_mean_duty[f] = t->end_s > 0 ? t->fan_duty_s[f] / t->end_s : t->fan_max_duty[f];
  }
  /* a run the board itself ended (shutdown at the critical trip, the pack's voltage below the
   * brown-out limit) fails whatever the limits say */
  sum->ok = sum->tdp.ok && sum->junction.ok && sum->latency.ok && sum->energy_per_item.ok &&
            sum->battery_life.ok && t->why != SITS_END_CRITICAL_TEMP && t->why != SITS_END_BROWNOUT;
}

sits__layout sits__layout_of(size_t n, bool battery, size_t nrc, bool pack_heat) {
  sits__layout l = {.n = n, .i_e_in = n, .i_e_out = n + 1, .ny = n + 2};
  if (battery) {
    l.nrc = nrc;
    l.i_soc = n + 2;
    l.i_drawn = l.i_soc + 1 + nrc;
    l.i_e_pack = pack_heat ? l.i_drawn + 1 : 0; /* 0: none (the cells at the ambient) */
    l.ny = l.i_drawn + (pack_heat ? 2 : 1);
  }
  return l;
}

/*
 * nvp_mode.c - the power mode an nvpmodel block writes (sits_dvfs.h: sits_nvp_mode): the
 * highest OPP caps per domain that keep the scenario's budget and junction limit in steady
 * state at full load, chosen by throughput, then capacity kept, then power.
 */
#define _POSIX_C_SOURCE 200809L
#include "scenario_internal.h"
#include "sits_dvfs.h"
#include "status_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COMBOS 200000 /* exhaustive search up to this many OPP combinations */

/* The control temperature of the zones: the thermal governor's trip (step_wise) or control
 * temperature (power_allocator), else max_junction_temp_c (as the DVFS table's trip). */
double sits__control_c(const sits_scenario *sc) {
  const sits_governor_cfg *g = sits_scenario_governor(sc);
  return g->thermal == SITS_THERMAL_STEP_WISE ? g->trip_c
         : g->thermal == SITS_THERMAL_POWER_ALLOCATOR
             ? g->control_c
             : sits_scenario_limits(sc)->max_junction_temp_c;
}

/* The junction limit a mode keeps below: the control temperature and max_junction_temp_c. */
static double limit_of(const sits_scenario *sc) {
  double gov = sits__control_c(sc), lim = sits_scenario_limits(sc)->max_junction_temp_c;
  return isnan(gov) ? lim : isnan(lim) ? gov : fmin(gov, lim);
}

/* The workload's peak demand per domain; all zero -> full load everywhere. */
static void peak_demand(const sits_scenario *sc, double *demand) {
  const sits_schedule *s = sits_scenario_schedule(sc);
  size_t nd, nseg = s ? sits_schedule_segment_count(s) : 0;
  sits_scenario_domains(sc, &nd);
  double seg[SITS_MAX_DOMAINS];
  bool any = false;
  memset(demand, 0, SITS_MAX_DOMAINS * sizeof *demand);
  for (size_t k = 0; k < nseg; k++) {
    if (sits_schedule_start_s(s, k) >= sc->duration_s)
      break;
    memset(seg, 0, sizeof seg);
    sits_schedule_set_demand(s, k, seg);
    for (size_t d = 0; d < nd; d++)
      if (seg[d] > demand[d])
        demand[d] = seg[d], any = true;
  }
  for (size_t d = 0; !any && d < nd; d++)
    demand[d] = 1.0;
}

/* Caps @p cap: every domain at full load at its cap (the worst case a mode must hold), the
 * workload's share served x, and the capacity kept (sum of capacity(cap) / capacity(top)). */
static int eval(const sits_scenario *sc, const size_t *cap, const double *demand, sits_nvp_mode *m,
                double *t, sits_err *err) {
  size_t nd;
  const sits_domain *dom = sits_scenario_domains(sc, &nd);
  double x = 1.0, util[SITS_MAX_DOMAINS] = {0};
  m->capacity = 0;
  for (size_t d = 0; d < nd; d++) {
    double c = sits_domain_capacity(&dom[d], cap[d]);
    if (demand[d] > 0)
      x = fmin(x, c / demand[d]);
    util[d] = 1.0;
    m->capacity += c;
  }
  bool runaway = false;
  double ambient_c = sits_schedule_ambient_c(sits_scenario_schedule(sc), 0);
  /* the fans at the duties their trips settle to at this load */
  int rc = sits__steady_with_fans(sc, cap, util, sits_scenario_static_power_w(sc), ambient_c, t,
                                  &m->total_power_w, &runaway, NULL, NULL, err);
  if (rc)
    return rc;
  memcpy(m->cap, cap, nd * sizeof *cap);
  m->throughput = x;
  m->junction_c = runaway ? INFINITY : sits__junction_max(sits_scenario_thermal(sc), t);
  if (runaway)
    m->total_power_w = INFINITY;
  m->feasible = !runaway && !(m->total_power_w > m->tdp_budget_w) && !(m->junction_c >= m->limit_c);
  return SITS_OK;
}

static void mode_init(const sits_scenario *sc, sits_nvp_mode *m) {
  size_t nd;
  sits_scenario_domains(sc, &nd);
  memset(m, 0, sizeof *m);
  m->tdp_budget_w = sits_scenario_limits(sc)->tdp_budget_w;
  m->limit_c = limit_of(sc);
  m->ambient_c = sits_schedule_ambient_c(sits_scenario_schedule(sc), 0);
  peak_demand(sc, m->demand);
  for (size_t d = 0; d < nd; d++)
    m->capped[d] = !sc->board.nvp;
  for (size_t c = 0; c < sc->board.n_clocks; c++)
    m->capped[sc->board.clocks[c].domain] = true;
}

int sits_nvp_mode_eval(const sits_scenario *sc, const size_t *cap, sits_nvp_mode *m,
                       sits_err *err) {
  size_t nd;
  const sits_domain *dom = sits_scenario_domains(sc, &nd);
  mode_init(sc, m);
  for (size_t d = 0; d < nd; d++)
    if (cap[d] >= dom[d].n_opp)
      return sits__fail(err, SITS_EINPUT, "OPP %zu of '%s' does not exist", cap[d], dom[d].name);
  double *t = malloc(sits_thermal_node_count(sits_scenario_thermal(sc)) * sizeof *t);
  if (!t)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  int rc = eval(sc, cap, m->demand, m, t, err);
  m->evaluated = 1;
  free(t);
  return rc;
}

/* Whether @p a beats @p b: feasible first, then the share served, then the capacity kept,
 * then less power. */
static bool better(const sits_nvp_mode *a, const sits_nvp_mode *b) {
  if (a->feasible != b->feasible)
    return a->feasible;
  if (!a->feasible) /* neither: the less power */
    return a->total_power_w < b->total_power_w;
  if (fabs(a->throughput - b->throughput) > 1e-12)
    return a->throughput > b->throughput;
  if (fabs(a->capacity - b->capacity) > 1e-12)
    return a->capacity > b->capacity;
  return a->total_power_w < b->total_power_w;
}

int sits_nvp_mode_choose(const sits_scenario *sc, sits_nvp_mode *m, sits_err *err) {
  size_t nd;
  const sits_domain *dom = sits_scenario_domains(sc, &nd);
  if (nd == 0)
    return sits__fail(err, SITS_EINPUT, "the platform has no DVFS domain");
  mode_init(sc, m);
  sits_nvp_mode best = *m, cur = *m;
  size_t cap[SITS_MAX_DOMAINS] = {0};
  double combos = 1;
  for (size_t d = 0; d < nd; d++) {
    cap[d] = m->capped[d] ? 0 : dom[d].n_opp - 1;
    combos *= m->capped[d] ? (double)dom[d].n_opp : 1.0;
  }
  double *t = malloc(sits_thermal_node_count(sits_scenario_thermal(sc)) * sizeof *t);
  if (!t)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  int rc = eval(sc, cap, m->demand, &best, t, err);
  size_t evaluated = 1;
  if (combos <= MAX_COMBOS) { /* every combination, odometer order */
    for (;;) {
      size_t d = 0;
      while (d < nd && (!m->capped[d] || ++cap[d] == dom[d].n_opp)) {
        if (m->capped[d])
          cap[d] = 0;
        d++;
      }
      if (d == nd || rc)
        break;
      rc = eval(sc, cap, m->demand, &cur, t, err);
      evaluated++;
      if (rc == SITS_OK && better(&cur, &best))
        best = cur;
    }
  } else { /* greedy: raise the cap that serves most, while the mode holds */
    for (bool moved = true; moved && rc == SITS_OK && best.feasible;) {
      moved = false;
      sits_nvp_mode step = best;
      for (size_t d = 0; rc == SITS_OK && d < nd; d++) {
        if (!m->capped[d] || best.cap[d] + 1 >= dom[d].n_opp)
          continue;
        memcpy(cap, best.cap, sizeof cap);
        cap[d]++;
        rc = eval(sc, cap, m->demand, &cur, t, err);
        evaluated++;
        if (rc == SITS_OK && cur.feasible && better(&cur, &step))
          step = cur, moved = true;
      }
      best = step;
    }
  }
  free(t);
  if (rc)
    return rc;
  memcpy(best.demand, m->demand, sizeof best.demand);
  memcpy(best.capped, m->capped, sizeof best.capped);
  best.evaluated = evaluated;
  *m = best;
  return SITS_OK;
}

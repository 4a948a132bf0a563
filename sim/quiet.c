/*
 * quiet.c - spans in which the governor's and the fans' ticks provably change nothing, so a
 * run may take them without stopping at each tick (sim.c).
 *
 * With the inputs held (one schedule segment, the OPPs and fan duties as they are), the
 * network is C T' = -K (T - T_amb) + P(T), K = L + D the conductance Laplacian plus the
 * ambient links: an M-matrix, so A = -C^-1 K is Metzler with row sums <= 0, e^{At} >= 0 and
 * e^{At} 1 <= 1. With the node powers between P_lo and P_hi (constant vectors), comparison
 * gives, per connected part of the network and any C,
 *   T_amb + s_lo + min(0, min_j (theta0 - s_lo)_j) <= T(t) <= T_amb + s_hi + max(0, max_j
 *   (theta0 - s_hi)_j),   s = K^-1 P, theta0 = T(0) - T_amb,
 * for all t >= 0. The powers depend on the temperature only through leakage, increasing in
 * it: P_hi is taken with every domain node at a level M and holds while they stay at or
 * below M, which the bound then proves when its domain nodes' maximum is <= M (the level is
 * raised until it is, or the proof given up); P_lo likewise from below. A tick changes
 * nothing when the governor's sensor and the power stay where sits_governor_quiet() says, and
 * each fan's sensor stays inside its current trip band.
 */
#include "run_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>

#define QUIET_MAX_NODES 64 /* a dense Cholesky per attempt; larger networks tick as before */
#define LEVEL_TRIES 40
#define LEVEL_STEP_C 0.01

typedef struct quiet_ws {
  size_t n;
  gsl_matrix *k;     /* K, then its Cholesky factor */
  gsl_vector *p, *s; /* node powers, steady rise */
  int *part;         /* connected part of each node */
  double lo[QUIET_MAX_NODES], hi[QUIET_MAX_NODES];
} quiet_ws;

static int find(int *parent, int i) {
  while (parent[i] != i)
    i = parent[i] = parent[parent[i]];
  return i;
}

/* K with the fans' conductances at their current duties, and the network's parts; false
 * where a part has no path to the ambient (K singular) or a value is not usable. */
static bool build_k(const run *rn, quiet_ws *w) {
  size_t n = rn->n;
  int a, b;
  gsl_matrix_set_zero(w->k);
  for (size_t i = 0; i < n; i++)
    w->part[i] = (int)i;
  for (size_t l = 0; sits_thermal_link_ends(rn->th, l, &a, &b) == SITS_OK; l++) {
    double g = 1.0 / sits_thermal_link_r_k_per_w(rn->th, l);
    for (size_t f = 0; f < rn->sc->n_fans; f++)
      if (rn->sc->fans[f].link == l)
        g += rn->fan_dg[f];
    if (!(g >= 0) || !isfinite(g))
      return false;
    if (a >= 0)
      *gsl_matrix_ptr(w->k, (size_t)a, (size_t)a) += g;
    if (b >= 0)
      *gsl_matrix_ptr(w->k, (size_t)b, (size_t)b) += g;
    if (a >= 0 && b >= 0) {
      *gsl_matrix_ptr(w->k, (size_t)a, (size_t)b) -= g;
      *gsl_matrix_ptr(w->k, (size_t)b, (size_t)a) -= g;
      w->part[find(w->part, a)] = find(w->part, b);
    }
  }
  for (size_t i = 0; i < n; i++)
    w->part[i] = find(w->part, (int)i);
  gsl_error_handler_t *old = gsl_set_error_handler_off();
  int rc = gsl_linalg_cholesky_decomp1(w->k);
  gsl_set_error_handler(old);
  return rc == GSL_SUCCESS;
}

/* Node powers with every domain's leakage at temperature level_c (the battery's heat left
 * out: the caller keeps the pack's node out of the parts it reads); their sum. */
static double powers_at(const run *rn, double level_c, gsl_vector *p) {
  double total = rn->base_total_w;
  for (size_t i = 0; i < rn->n; i++)
    gsl_vector_set(p, i, rn->base_power_w[i]);
  for (size_t d = 0; d < rn->nd; d++) {
    const sits_domain *dom = &rn->dom[d];
    double pd =
        sits_domain_power_w_f(dom, rn->opp[d], rn->util[d], sits_domain_leak_factor(dom, level_c));
    for (size_t k = 0; k < dom->n_nodes; k++)
      *gsl_vector_ptr(p, (size_t)dom->nodes[k]) += dom->fractions[k] * pd;
    total += pd;
  }
  return total;
}

/* The bound on every node from powers at level_c: upper (sign +1) or lower (-1) into out. */
static void bound(const run *rn, quiet_ws *w, const double *y, double level_c, int sign,
                  double *out, double *total_w) {
  *total_w = powers_at(rn, level_c, w->p);
  gsl_linalg_cholesky_solve(w->k, w->p, w->s);
  double worst[QUIET_MAX_NODES];
  for (size_t i = 0; i < rn->n; i++)
    worst[i] = 0;
  for (size_t i = 0; i < rn->n; i++) {
    double off = (y[i] - rn->ambient_c) - gsl_vector_get(w->s, i);
    int q = w->part[i];
    worst[q] = sign > 0 ? fmax(worst[q], off) : fmin(worst[q], off);
  }
  for (size_t i = 0; i < rn->n; i++)
    out[i] = rn->ambient_c + gsl_vector_get(w->s, i) + worst[w->part[i]];
}

/* The domain nodes' extreme under a bound (max for sign +1, min for -1). */
static double domain_extreme(const run *rn, const double *b, int sign) {
  double x = sign > 0 ? -INFINITY : INFINITY;
  for (size_t d = 0; d < rn->nd; d++)
    for (size_t k = 0; k < rn->dom[d].n_nodes; k++) {
      double v = b[rn->dom[d].nodes[k]];
      x = sign > 0 ? fmax(x, v) : fmin(x, v);
    }
  return x;
}

/* The most each node may reach for the ticks to stay quiet (INFINITY: no limit): the
 * governor's sensor below its trip or switch-on, each fan's sensor below its next trip. The
 * upper bound grows with the leakage level, so one over these ends the search. */
static void upper_limits(const run *rn, const sits_governor_cfg *cfg, double *lim) {
  for (size_t i = 0; i < rn->n; i++)
    lim[i] = INFINITY;
  if (rn->gov && cfg->thermal == SITS_THERMAL_STEP_WISE)
    lim[cfg->sensor_node] = cfg->trip_c;
  else if (rn->gov && cfg->thermal == SITS_THERMAL_POWER_ALLOCATOR)
    lim[cfg->sensor_node] = cfg->switch_on_c;
  for (size_t f = 0; f < rn->sc->n_fans; f++) {
    const sits__fan *fan = &rn->sc->fans[f];
    if (!rn->fan_traced[f] && rn->fan_on[f] < fan->n_trips)
      lim[fan->sensor] = fmin(lim[fan->sensor], fan->trip_c[rn->fan_on[f]]);
  }
}

static bool within(size_t n, const double *b, const double *lim) {
  for (size_t i = 0; i < n; i++)
    if (b[i] > lim[i])
      return false;
  return true;
}

/* A self-consistent bound (upper for sign +1): the leakage level raised (lowered) until the
 * domain nodes' bound stays within it. False when none is found, or (upper, @p lim given) when
 * a node's bound passes its limit on the way. */
static bool consistent_bound(const run *rn, quiet_ws *w, const double *y, int sign,
                             const double *lim, double *out, double *total_w) {
  double level = domain_extreme(rn, y, sign);
  if (rn->nd == 0) {
    bound(rn, w, y, rn->ambient_c, sign, out, total_w);
    return !lim || within(rn->n, out, lim);
  }
  for (int k = 0; k < LEVEL_TRIES; k++) {
    bound(rn, w, y, level, sign, out, total_w);
    double x = domain_extreme(rn, out, sign);
    if (!isfinite(x) || (lim && !within(rn->n, out, lim)))
      return false;
    if (sign > 0 ? x <= level : x >= level)
      return true;
    level = x + sign * LEVEL_STEP_C * (1 << (k < 10 ? k : 10));
  }
  return false;
}

/* Whether the pack's node (its heat unbounded here) shares a part with a node read. */
static bool pack_reaches(const run *rn, const quiet_ws *w, const sits_governor_cfg *cfg) {
  if (rn->batt_node < 0)
    return false;
  int q = w->part[rn->batt_node];
  if (rn->gov && cfg->thermal != SITS_THERMAL_NONE && w->part[cfg->sensor_node] == q)
    return true;
  for (size_t f = 0; f < rn->sc->n_fans; f++)
    if (!rn->fan_traced[f] && rn->sc->fans[f].n_trips && w->part[rn->sc->fans[f].sensor] == q)
      return true;
  for (size_t d = 0; d < rn->nd; d++)
    for (size_t k = 0; k < rn->dom[d].n_nodes; k++)
      if (w->part[rn->dom[d].nodes[k]] == q)
        return true;
  return false;
}

/* Each traced-free fan with trips stays in its band: above its current trip's release, below
 * the next trip. */
static bool fans_stay(const run *rn, const double *lo, const double *hi) {
  for (size_t f = 0; f < rn->sc->n_fans; f++) {
    const sits__fan *fan = &rn->sc->fans[f];
    if (rn->fan_traced[f] || !fan->n_trips)
      continue;
    size_t on = rn->fan_on[f];
    if (on < fan->n_trips && !(hi[fan->sensor] <= fan->trip_c[on]))
      return false;
    if (on > 0 && !(lo[fan->sensor] >= fan->trip_c[on - 1] - fan->hysteresis_c[on - 1]))
      return false;
  }
  return true;
}

bool sits__run_quiet(const run *rn, const double *y, bool window_at_most_budget) {
  const sits_governor_cfg *cfg = sits_scenario_governor(rn->sc);
  if (rn->n > QUIET_MAX_NODES || rn->grid)
    return false;
  for (size_t d = 0; d < rn->nd; d++) /* leakage must grow with the temperature */
    if (!(rn->dom[d].leak_per_k >= 0) || !(rn->dom[d].leak_ref_w >= 0))
      return false;
  quiet_ws w = {.n = rn->n};
  w.k = gsl_matrix_alloc(rn->n, rn->n);
  w.p = gsl_vector_alloc(rn->n);
  w.s = gsl_vector_alloc(rn->n);
  w.part = malloc(rn->n * sizeof(int));
  double p_hi = 0, p_lo = 0, lim[QUIET_MAX_NODES];
  upper_limits(rn, cfg, lim);
  bool ok = w.k && w.p && w.s && w.part && build_k(rn, &w) && !pack_reaches(rn, &w, cfg) &&
            consistent_bound(rn, &w, y, +1, lim, w.hi, &p_hi) &&
            consistent_bound(rn, &w, y, -1, NULL, w.lo, &p_lo) && fans_stay(rn, w.lo, w.hi);
  if (ok && rn->gov) {
    bool sensed = cfg->thermal != SITS_THERMAL_NONE;
    ok = sits_governor_quiet(rn->gov, rn->demand, sensed ? w.lo[cfg->sensor_node] : NAN,
                             sensed ? w.hi[cfg->sensor_node] : NAN, p_hi, window_at_most_budget);
  }
  gsl_matrix_free(w.k);
  gsl_vector_free(w.p);
  gsl_vector_free(w.s);
  free(w.part);
  return ok;
}

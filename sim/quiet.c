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

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>

#define QUIET_MAX_NODES 64 /* a dense Cholesky per attempt; larger networks tick as before */
#define LEVEL_TRIES 40
#define LEVEL_STEP_C 0.01
/* every bound widened by this: the run being proved is the integrator's, within its
 * tolerance (atol 1e-5 K by default) of the exact response the bounds are for */
#define QUIET_MARGIN_C 1e-3

typedef struct quiet_ws {
  size_t n;
  gsl_matrix *k;     /* K, then its Cholesky factor */
  gsl_matrix *kraw;  /* K */
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
  gsl_matrix_memcpy(w->kraw, w->k);
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

/* The total power with every domain at its lowest OPP and its leakage at level_c: the power
 * cap's p_min, which its argument needs at or below the budget too. */
static double lowest_total_w(const run *rn, double level_c) {
  double total = rn->base_total_w;
  for (size_t d = 0; d < rn->nd; d++) {
    const sits_domain *dom = &rn->dom[d];
    total += sits_domain_power_w_f(dom, 0, sits_domain_utilisation(dom, 0, rn->demand[d]),
                                   sits_domain_leak_factor(dom, level_c));
  }
  return total;
}

/* The bound on every node from powers at level_c: upper (sign +1) or lower (-1) into out. */
static void bound(const run *rn, quiet_ws *w, const double *y, double level_c, int sign,
                  double *out, double *total_w) {
  *total_w = fmax(powers_at(rn, level_c, w->p), lowest_total_w(rn, level_c));
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
    out[i] = rn->ambient_c + gsl_vector_get(w->s, i) + worst[w->part[i]] + sign * QUIET_MARGIN_C;
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
  if (!rn->batt || rn->batt_node < 0) /* no pack, or its heat goes nowhere */
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

/* ---- horizons: how long the bounds keep every tick quiet, from the exact response ------ */

/* The comparison system's trajectory C theta' = -K theta + P (P constant) from the state:
 * T_i(t) = s_i + sum_k a_ik e^{lam_k t} (s the steady temperatures), with B = -C^-1/2 K C^-1/2 = V
 * diag(lam) V^T (symmetric, lam < 0), a_ik = V_ik z_k / sqrt(C_i), z = V^T C^1/2 (T(0) - s). */
typedef struct traj {
  double s[QUIET_MAX_NODES], a[QUIET_MAX_NODES * QUIET_MAX_NODES];
} traj;

typedef struct modes {
  size_t n;
  double sq[QUIET_MAX_NODES], lam[QUIET_MAX_NODES], r[QUIET_MAX_NODES]; /* r = e^{lam h} */
  gsl_matrix *v;
} modes;

static bool make_modes(const run *rn, const quiet_ws *w, double h, modes *m) {
  size_t n = rn->n;
  m->n = n;
  for (size_t i = 0; i < n; i++) {
    double c = sits_thermal_capacity_j_per_k(rn->th, (int)i);
    if (!(c > 0) || !isfinite(c))
      return false;
    m->sq[i] = sqrt(c);
  }
  gsl_matrix *b = gsl_matrix_alloc(n, n);
  gsl_vector *lam = gsl_vector_alloc(n);
  gsl_eigen_symmv_workspace *ew = gsl_eigen_symmv_alloc(n);
  m->v = gsl_matrix_alloc(n, n);
  bool ok = b && lam && ew && m->v;
  if (ok) {
    for (size_t i = 0; i < n; i++)
      for (size_t j = 0; j < n; j++)
        gsl_matrix_set(b, i, j, -gsl_matrix_get(w->kraw, i, j) / (m->sq[i] * m->sq[j]));
    ok = gsl_eigen_symmv(b, lam, m->v, ew) == GSL_SUCCESS;
  }
  for (size_t k = 0; ok && k < n; k++) {
    m->lam[k] = gsl_vector_get(lam, k);
    m->r[k] = exp(m->lam[k] * h);
    ok = m->lam[k] < 0 && isfinite(m->lam[k]);
  }
  gsl_matrix_free(b);
  gsl_vector_free(lam);
  gsl_eigen_symmv_free(ew);
  return ok;
}

static void make_traj(const run *rn, quiet_ws *w, const modes *m, const double *y, double level_c,
                      traj *tr, double *total_w) {
  size_t n = rn->n;
  *total_w = fmax(powers_at(rn, level_c, w->p), lowest_total_w(rn, level_c));
  gsl_linalg_cholesky_solve(w->k, w->p, w->s);
  double z[QUIET_MAX_NODES];
  for (size_t i = 0; i < n; i++) /* the steady temperature (the ambient plus its rise) */
    tr->s[i] = rn->ambient_c + gsl_vector_get(w->s, i);
  for (size_t k = 0; k < n; k++) {
    z[k] = 0;
    for (size_t i = 0; i < n; i++)
      z[k] += gsl_matrix_get(m->v, i, k) * m->sq[i] * (y[i] - tr->s[i]);
  }
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < n; k++)
      tr->a[i * n + k] = gsl_matrix_get(m->v, i, k) * z[k] / m->sq[i];
}

/* One interval of length hs of a trajectory (rr: e^{lam hs}): the values at its ends (e:
 * e^{lam t} at its start, advanced to its end) and a bound on it inside: the larger (sign +1)
 * or smaller end moved by half the interval times the slope's bound sum_k |a_ik lam_k|
 * e^{lam_k t_j}, and the margin. Returns the largest such slope term. */
static double interval(const modes *m, const traj *tr, int sign, double hs, const double *rr,
                       double *e, double *end, double *ext) {
  size_t n = m->n;
  double next[QUIET_MAX_NODES], widest = 0;
  for (size_t k = 0; k < n; k++)
    next[k] = e[k] * rr[k];
  for (size_t i = 0; i < n; i++) {
    double v = tr->s[i], slope = 0;
    for (size_t k = 0; k < n; k++) {
      v += tr->a[i * n + k] * next[k];
      slope += fabs(tr->a[i * n + k] * m->lam[k]) * e[k];
    }
    double x = sign > 0 ? fmax(end[i], v) : fmin(end[i], v);
    ext[i] = x + sign * (0.5 * hs * slope + QUIET_MARGIN_C);
    end[i] = v;
    widest = fmax(widest, 0.5 * hs * slope);
  }
  memcpy(e, next, n * sizeof(double));
  return widest;
}

#define STRIDE_MARGIN_C 0.01 /* a stride doubles while its slope term stays under this */
#define STRIDE_MAX 1024      /* ticks */

/* How many ticks from the state keep every check: the domain nodes inside the levels the
 * powers were taken at, the fans in their bands, the governor quiet. The intervals start at
 * one tick and double while the trajectories' slopes make little of them, so a trajectory
 * that settles is walked in a few dozen intervals. */
static size_t scan(const run *rn, const modes *m, const traj *hi, const traj *lo, double level_hi,
                   double level_lo, double p_hi, double h, size_t j_max, bool window) {
  const sits_governor_cfg *cfg = sits_scenario_governor(rn->sc);
  size_t n = rn->n, stride = 1, j = 0;
  double e_hi[QUIET_MAX_NODES], e_lo[QUIET_MAX_NODES], end_hi[QUIET_MAX_NODES],
      end_lo[QUIET_MAX_NODES], top[QUIET_MAX_NODES], bot[QUIET_MAX_NODES], run_hi[QUIET_MAX_NODES],
      run_lo[QUIET_MAX_NODES], rr[QUIET_MAX_NODES];
  for (size_t k = 0; k < n; k++)
    e_hi[k] = e_lo[k] = 1, rr[k] = m->r[k];
  for (size_t i = 0; i < n; i++) { /* both start at the state */
    double v = hi->s[i], u = lo->s[i];
    for (size_t k = 0; k < n; k++)
      v += hi->a[i * n + k], u += lo->a[i * n + k];
    end_hi[i] = run_hi[i] = v;
    end_lo[i] = run_lo[i] = u;
  }
  bool sensed = rn->gov && cfg->thermal != SITS_THERMAL_NONE;
  while (j + stride <= j_max) {
    double hs = (double)stride * h;
    double wide = fmax(interval(m, hi, +1, hs, rr, e_hi, end_hi, top),
                       interval(m, lo, -1, hs, rr, e_lo, end_lo, bot));
    for (size_t i = 0; i < n; i++)
      run_hi[i] = fmax(run_hi[i], top[i]), run_lo[i] = fmin(run_lo[i], bot[i]);
    bool ok = domain_extreme(rn, run_hi, +1) <= level_hi &&
              domain_extreme(rn, run_lo, -1) >= level_lo && fans_stay(rn, run_lo, run_hi);
    if (ok && rn->gov)
      ok =
          sits_governor_quiet(rn->gov, rn->demand, rn->opp, sensed ? run_lo[cfg->sensor_node] : NAN,
                              sensed ? run_hi[cfg->sensor_node] : NAN, p_hi, window);
    if (!ok)
      return j;
    j += stride;
    if (wide < STRIDE_MARGIN_C && stride < STRIDE_MAX && j + 2 * stride <= j_max) {
      stride *= 2;
      for (size_t k = 0; k < n; k++)
        rr[k] = exp(m->lam[k] * (double)stride * h);
    }
  }
  return j;
}

#define HORIZON_MAX_STEPS 1000000
#define LOWER_LEVEL_MARGIN_C 5.0

/* Where the whole span cannot be proved: the number of tick intervals from the state that
 * can, with the upper powers' level tried at 1, 4 and 16 K over the hottest domain node. */
static size_t horizon(const run *rn, quiet_ws *w, const double *y, double h, size_t j_max,
                      bool window) {
  modes m = {0};
  size_t best = 0;
  if (make_modes(rn, w, h, &m)) {
    traj *hi = malloc(sizeof *hi), *lo = malloc(sizeof *lo);
    double p_hi, p_lo,
        level_lo = fmin(domain_extreme(rn, y, -1), rn->ambient_c) - LOWER_LEVEL_MARGIN_C;
    if (rn->nd == 0)
      level_lo = -INFINITY;
    if (hi && lo) {
      make_traj(rn, w, &m, y, rn->nd ? level_lo : rn->ambient_c, lo, &p_lo);
      const double above[] = {1.0, 4.0, 16.0};
      for (size_t c = 0; c < 3 && best < j_max; c++) {
        double level = rn->nd ? domain_extreme(rn, y, +1) + above[c] : INFINITY;
        make_traj(rn, w, &m, y, rn->nd ? level : rn->ambient_c, hi, &p_hi);
        size_t j = scan(rn, &m, hi, lo, level, level_lo, p_hi, h, j_max, window);
        best = j > best ? j : best;
      }
    }
    free(hi);
    free(lo);
  }
  gsl_matrix_free(m.v);
  return best;
}

double sits__run_quiet_until(const run *rn, const double *y, double t, double t_stop, double h,
                             bool window_at_most_budget) {
  const sits_governor_cfg *cfg = sits_scenario_governor(rn->sc);
  if (rn->n > QUIET_MAX_NODES || rn->grid || !(h > 0) || !(t_stop > t))
    return t;
  for (size_t d = 0; d < rn->nd; d++) /* leakage must grow with the temperature */
    if (!(rn->dom[d].leak_per_k >= 0) || !(rn->dom[d].leak_ref_w >= 0))
      return t;
  quiet_ws w = {.n = rn->n};
  w.k = gsl_matrix_alloc(rn->n, rn->n);
  w.kraw = gsl_matrix_alloc(rn->n, rn->n);
  w.p = gsl_vector_alloc(rn->n);
  w.s = gsl_vector_alloc(rn->n);
  w.part = malloc(rn->n * sizeof(int));
  double p_hi = 0, p_lo = 0, lim[QUIET_MAX_NODES], until = t;
  upper_limits(rn, cfg, lim);
  if (w.k && w.kraw && w.p && w.s && w.part && build_k(rn, &w) && !pack_reaches(rn, &w, cfg)) {
    /* the whole span at once, with bounds that hold for all time */
    bool all = consistent_bound(rn, &w, y, +1, lim, w.hi, &p_hi) &&
               consistent_bound(rn, &w, y, -1, NULL, w.lo, &p_lo) && fans_stay(rn, w.lo, w.hi);
    if (all && rn->gov) {
      bool sensed = cfg->thermal != SITS_THERMAL_NONE;
      all = sits_governor_quiet(rn->gov, rn->demand, rn->opp, sensed ? w.lo[cfg->sensor_node] : NAN,
                                sensed ? w.hi[cfg->sensor_node] : NAN, p_hi, window_at_most_budget);
    }
    if (all)
      until = t_stop;
    else { /* else as far as the trajectories from this state keep inside */
      double steps = floor((t_stop - t) / h);
      size_t j_max = steps < HORIZON_MAX_STEPS ? (size_t)steps : HORIZON_MAX_STEPS;
      until = t + (double)horizon(rn, &w, y, h, j_max, window_at_most_budget) * h;
    }
  }
  gsl_matrix_free(w.k);
  gsl_matrix_free(w.kraw);
  gsl_vector_free(w.p);
  gsl_vector_free(w.s);
  free(w.part);
  return until;
}

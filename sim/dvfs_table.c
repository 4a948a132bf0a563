/* dvfs_table.c - the DVFS table of a domain (see sits_dvfs.h for the definitions). */
#include "run_impl.h"
#include "status_internal.h"
#include "sits_netsteady.h"
#include "sits_dvfs.h"
#include "sits_steady.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_fit.h>

#define TRIP_HORIZON_S 1e6 /* a trip not reached in this time counts as never */

double sits__junction_max(const sits_thermal *th, const double *t) {
  bool any = sits_thermal_has_junctions(th);
  double m = -INFINITY;
  for (size_t i = 0; i < sits_thermal_node_count(th); i++)
    if (!any || sits_thermal_is_junction(th, (int)i))
      m = fmax(m, t[i]);
  return m;
}

typedef struct trip_run {
  run rn;
  double trip_c;
} trip_run;

static int trip_root(double t, const double *y, double *g, void *user) {
  (void)t;
  trip_run *tr = user;
  g[0] = sits__junction_max(tr->rn.th, y) - tr->trip_c;
  return 0;
}

static int rhs(double t, const double *y, double *ydot, void *user) {
  return sits__run_rhs(t, y, ydot, &((trip_run *)user)->rn);
}
static int jac(double t, const double *y, double *v, void *user) {
  return sits__run_jac(t, y, v, &((trip_run *)user)->rn);
}

/* Time for the junction to reach trip_c from every node at the ambient. */
static int time_to_trip(const sits_scenario *sc, const size_t *opp, const double *util,
                        const double *base_w, double ambient_c, double trip_c, double *t_trip,
                        sits_err *err) {
  trip_run tr = {.trip_c = trip_c};
  run *rn = &tr.rn;
  rn->sc = sc;
  rn->th = sits_scenario_thermal(sc);
  rn->dom = sits_scenario_domains(sc, &rn->nd);
  rn->n = sits_thermal_node_count(rn->th);
  rn->lay = sits__layout_of(rn->n, false, 0, false);
  rn->ambient_c = ambient_c;
  memcpy(rn->opp, opp, rn->nd * sizeof *opp);
  memcpy(rn->util, util, rn->nd * sizeof *util);
  rn->base_power_w = (double *)base_w;
  for (size_t i = 0; i < rn->n; i++)
    rn->base_total_w += base_w[i];
  rn->node_power_w = malloc(rn->n * sizeof(double));
  rn->memo.y = malloc(rn->lay.ny * sizeof(double));
  rn->memo.ydot = malloc(rn->lay.ny * sizeof(double));
  double *y0 = calloc(rn->lay.ny, sizeof(double)), *atol = malloc(rn->lay.ny * sizeof(double));
  int rc = !rn->node_power_w || !rn->memo.y || !rn->memo.ydot || !y0 || !atol
               ? sits__fail(err, SITS_ENOMEM, "out of memory")
               : sits__run_build_jacobian(rn, err);
  *t_trip = INFINITY;
  if (rc == SITS_OK) {
    for (size_t i = 0; i < rn->lay.ny; i++) {
      y0[i] = i < rn->n ? ambient_c : 0;
      atol[i] = i < rn->n ? 1e-5 : 1e-6;
    }
    sits_ode_opts o = {.n = rn->lay.ny,
                       .pattern = rn->jac,
                       .rhs = rhs,
                       .jac = jac,
                       .user = &tr,
                       .rtol = 1e-7,
                       .atol = atol,
                       .n_roots = 1,
                       .roots = trip_root};
    sits_ode *ode = sits_ode_new(&o, 0.0, y0, err);
    rc = ode ? SITS_OK : err->code;
    double t = 0;
    sits_ode_event ev = SITS_ODE_STEPPED;
    while (rc == SITS_OK && ev == SITS_ODE_STEPPED)
      rc = sits_ode_step(ode, TRIP_HORIZON_S, &t, &ev, err);
    if (rc == SITS_OK && ev == SITS_ODE_ROOT)
      *t_trip = t;
    sits_ode_free(ode);
  }
  free(rn->node_power_w);
  free(rn->memo.y);
  free(rn->memo.ydot);
  gsl_spmatrix_free(rn->jac);
  free(rn->jac_const);
  free(rn->leak_diag);
  free(rn->leak_ein);
  free(rn->boff);
  free(y0);
  free(atol);
  return rc;
}

static double trip_of(const sits_scenario *sc) {
  const sits_governor_cfg *g = sits_scenario_governor(sc);
  if (g->thermal == SITS_THERMAL_STEP_WISE)
    return g->trip_c;
  if (g->thermal == SITS_THERMAL_POWER_ALLOCATOR)
    return g->control_c;
  return sits_scenario_limits(sc)->max_junction_temp_c;
}

static int row(const sits_scenario *sc, size_t dsel, size_t k, const double *base_w,
               double ambient_c, sits_dvfs_row *r, sits_err *err) {
  size_t nd;
  const sits_domain *dom = sits_scenario_domains(sc, &nd);
  const sits_thermal *th = sits_scenario_thermal(sc);
  size_t opp[SITS_MAX_DOMAINS] = {0};
  double util[SITS_MAX_DOMAINS] = {0};
  opp[dsel] = k;
  util[dsel] = 1.0;
  double *t = malloc(sits_thermal_node_count(th) * sizeof *t);
  if (!t)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  const sits_domain *d = &dom[dsel];
  r->freq_mhz = d->opp[k].freq_mhz;
  r->volt_v = d->opp[k].volt_v;
  r->steady_temp_half_width_c = NAN; /* sits_dvfs_table_bands sets it */
  /* the fans at the duties their trips settle to at this OPP's temperatures */
  bool cycles[SITS__MAX_FANS] = {false};
  int rc = sits__steady_with_fans(sc, opp, util, base_w, ambient_c, t, &r->total_power_w,
                                  &r->runaway, NULL, cycles, err);
  r->fan_cycles = false;
  for (size_t f = 0; f < sc->n_fans && f < SITS__MAX_FANS; f++)
    r->fan_cycles = r->fan_cycles || cycles[f];
  if (rc == SITS_OK) {
    r->steady_temp_c = r->runaway ? NAN : sits__junction_max(th, t);
    r->power_w = 0;
    for (size_t j = 0; j < d->n_nodes; j++)
      r->power_w += d->fractions[j] * sits_domain_power_w(d, k, 1.0, t[d->nodes[j]], NULL);
    if (r->runaway)
      r->power_w = r->total_power_w = NAN;
    r->items_per_s = sits_domain_capacity(d, k) * d->max_rate;
    r->items_per_j = r->items_per_s / r->total_power_w;
    r->energy_per_item_mj = r->items_per_s > 0 ? 1000.0 * r->total_power_w / r->items_per_s : NAN;
    double trip = trip_of(sc);
    r->time_to_trip_s = INFINITY;
    if (!isnan(trip) && ambient_c >= trip)
      r->time_to_trip_s = 0; /* every node starts at the ambient, already at the trip */
    else if (!isnan(trip) && (r->runaway || r->steady_temp_c >= trip)) {
      rc = time_to_trip(sc, opp, util, base_w, ambient_c, trip, &r->time_to_trip_s, err);
      if (rc == SITS_ESOLVER && r->runaway) { /* diverged before the crossing was found: the */
        r->time_to_trip_s = NAN;              /* row is marked runaway, the table goes on */
        rc = SITS_OK;
        err->code = 0, err->msg[0] = '\0';
      }
    }
    double limit = sits_scenario_limits(sc)->max_junction_temp_c;
    r->sustainable = !r->runaway && (isnan(trip) || r->steady_temp_c < trip) &&
                     (isnan(limit) || r->steady_temp_c < limit);
  }
  free(t);
  return rc;
}

/* Zone power into the zone's nodes per watt (the zone's domains in proportion to their
 * full-load power at the top OPP): e (per node, summing to 1). */
static void zone_injection(const sits_scenario *sc, const double *share, double temp_c, double *e,
                           size_t n) {
  size_t nd;
  const sits_domain *dom = sits_scenario_domains(sc, &nd);
  double w[SITS_MAX_DOMAINS] = {0}, sum = 0;
  for (size_t d = 0; d < nd; d++)
    sum += w[d] = share[d] * sits_domain_power_w(&dom[d], dom[d].n_opp - 1, 1.0, temp_c, NULL);
  memset(e, 0, n * sizeof *e);
  for (size_t d = 0; d < nd; d++)
    for (size_t j = 0; sum > 0 && j < dom[d].n_nodes; j++)
      e[dom[d].nodes[j]] += w[d] / sum * dom[d].fractions[j];
}

int sits__zone_sustainable_w(const sits_scenario *sc, const double *share, double ambient_c,
                             double control_c, double *p_w, double *p_max_w, sits_err *err) {
  /* the fans at the duty their trips give at the control temperature: the IPA acts on a hot
   * board, whose fans have spun up */
  sits_thermal *fanned = sc->n_fans ? sits__net_with_fans_at_c(sc, control_c, err) : NULL;
  if (sc->n_fans && !fanned)
    return err->code;
  const sits_thermal *th = fanned ? fanned : sits_scenario_thermal(sc);
  const double *base_w = sits_scenario_static_power_w(sc);
  size_t n = sits_thermal_node_count(th), nd;
  const sits_domain *dom = sits_scenario_domains(sc, &nd);
  bool any = sits_thermal_has_junctions(th);
  sits_net_steady *lin = sits_net_steady_new(th, NULL, err);
  double *e = calloc(n, sizeof *e), *z = calloc(n, sizeof *z), *b = calloc(n, sizeof *b),
         *t0 = calloc(n, sizeof *t0), *t = calloc(n, sizeof *t);
  int rc = !lin                          ? err->code
           : !e || !z || !b || !t0 || !t ? sits__fail(err, SITS_ENOMEM, "out of memory")
                                         : SITS_OK;
  *p_w = *p_max_w = NAN;
  if (rc == SITS_OK) {
    zone_injection(sc, share, control_c, e, n);
    rc = sits_net_steady_solve(lin, e, 0.0, z, err); /* K per zone watt (linear network) */
  }
  for (size_t i = 0; i < n; i++)
    t[i] = control_c;
  double p = NAN;
  for (int it = 0; rc == SITS_OK && it < 200; it++) {
    memcpy(b, base_w, n * sizeof *b); /* static power, the rest at its minimum at t */
    for (size_t d = 0; d < nd; d++)
      for (size_t j = 0; share[d] < 1 && j < dom[d].n_nodes; j++) {
        int i = dom[d].nodes[j];
        b[i] +=
            (1 - share[d]) * dom[d].fractions[j] * sits_domain_power_w(&dom[d], 0, 1.0, t[i], NULL);
      }
    bool finite = true; /* leakage past any number at t: no steady point (runaway) */
    for (size_t i = 0; i < n; i++)
      t0[i] = ambient_c, finite = finite && isfinite(b[i]);
    if (!finite) {
      p = NAN;
      break;
    }
    if ((rc = sits_net_steady_solve(lin, b, ambient_c, t0, err)))
      break;
    p = INFINITY; /* the first junction to reach control_c sets the zone's power */
    for (size_t i = 0; i < n; i++)
      if ((!any || sits_thermal_is_junction(th, (int)i)) && z[i] > 0)
        p = fmin(p, (control_c - t0[i]) / z[i]);
    p = fmax(p, 0);
    double moved = 0;
    for (size_t i = 0; isfinite(p) && i < n; i++) {
      double ti = t0[i] + p * z[i];
      moved = fmax(moved, fabs(ti - t[i]));
      t[i] = ti;
    }
    if (!isfinite(p) || moved < 1e-9)
      break;
    if (it == 199 || moved > 1e6)
      p = NAN; /* the others' leakage alone runs away */
  }
  if (rc == SITS_OK && isfinite(p)) {
    *p_w = p;
    double pmax = 0;
    for (size_t d = 0; d < nd; d++)
      for (size_t j = 0; share[d] > 0 && j < dom[d].n_nodes; j++)
        pmax += share[d] * dom[d].fractions[j] *
                sits_domain_power_w(&dom[d], dom[d].n_opp - 1, 1.0, t[dom[d].nodes[j]], NULL);
    *p_max_w = pmax;
  }
  sits_net_steady_free(lin);
  sits_thermal_free(fanned);
  free(e), free(z), free(b), free(t0), free(t);
  return rc;
}

static void marks(sits_dvfs_table *tb) {
  double best = -INFINITY;
  tb->knee_freq_mhz = tb->max_sustainable_freq_mhz = NAN;
  for (size_t k = 0; k < tb->n; k++) {
    sits_dvfs_row *r = &tb->rows[k];
    if (r->items_per_s > 0 && r->items_per_j > best)
      best = r->items_per_j, tb->knee_freq_mhz = r->freq_mhz;
    if (r->sustainable)
      tb->max_sustainable_freq_mhz = r->freq_mhz;
  }
  /* the kernel's em_compute_costs() on the domain's own power, fastest first, in its integer
   * units: cost = f_max[kHz] * (10 P[uW]) / f[kHz], and a state whose cost is at or above
   * a faster one's is inefficient (EM_PERF_STATE_INEFFICIENT) */
  unsigned long long fmax_khz = (unsigned long long)llround(tb->rows[tb->n - 1].freq_mhz * 1e3);
  unsigned long long prev = ULLONG_MAX;
  for (size_t k = tb->n; k-- > 0;) {
    sits_dvfs_row *r = &tb->rows[k];
    r->inefficient = false;
    if (r->runaway || !(r->power_w >= 0)) /* no steady power: no cost (not sustainable) */
      continue;
    unsigned long long khz = (unsigned long long)llround(r->freq_mhz * 1e3);
    unsigned long long cost =
        fmax_khz * (10ULL * (unsigned long long)llround(r->power_w * 1e6)) / (khz ? khz : 1);
    r->inefficient = cost >= prev;
    if (cost < prev)
      prev = cost;
  }
}

static void fit_coefficient(const sits_domain *d, sits_dvfs_table *tb) {
  double x[64], y[64], c, cov, sumsq;
  for (size_t k = 0; k < d->n_opp; k++) {
    x[k] = d->opp[k].volt_v * d->opp[k].volt_v * d->opp[k].freq_mhz;
    y[k] = sits_domain_dynamic_w(d, k) * 1e6; /* uW */
  }
  gsl_fit_mul(x, 1, y, 1, d->n_opp, &c, &cov, &sumsq);
  tb->dynamic_power_coefficient_uw_per_mhz_v2 = c;
}

int sits_dvfs_table_compute(const sits_scenario *sc, const char *domain, sits_dvfs_table *tb,
                            sits_err *err) {
  size_t nd;
  const sits_domain *dom = sits_scenario_domains(sc, &nd);
  memset(tb, 0, sizeof *tb);
  if (nd == 0)
    return sits__fail(err, SITS_EINPUT, "the platform has no DVFS domain");
  int dsel = domain ? sits__find_domain(sc, domain) : 0;
  if (dsel < 0)
    return sits__fail(err, SITS_EINPUT, "no domain '%s' in the platform", domain);
  const sits_domain *d = &dom[dsel];
  double ambient_c = sits_schedule_ambient_c(sits_scenario_schedule(sc), 0);
  const double *base_w = sits_scenario_static_power_w(sc);
  snprintf(tb->domain, sizeof tb->domain, "%s", d->name);
  snprintf(tb->item, sizeof tb->item, "%s", d->item);
  tb->ambient_c = ambient_c;
  tb->trip_c = trip_of(sc);
  tb->n = d->n_opp;
  int rc = SITS_OK;
  for (size_t k = 0; rc == SITS_OK && k < d->n_opp; k++)
    rc = row(sc, (size_t)dsel, k, base_w, ambient_c, &tb->rows[k], err);
  if (rc)
    return rc;
  marks(tb);
  fit_coefficient(d, tb);
  tb->sustainable_power_mw = NAN;
  if (!isnan(tb->trip_c)) {
    double share[SITS_MAX_DOMAINS] = {0}, p_w, p_max_w;
    share[dsel] = 1;
    rc = sits__zone_sustainable_w(sc, share, ambient_c, tb->trip_c, &p_w, &p_max_w, err);
    tb->sustainable_power_mw = 1000.0 * p_w;
  }
  return rc;
}

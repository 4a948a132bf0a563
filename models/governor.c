/* governor.c - DVFS governors (see sits_governor.h for each policy). */
#include "sits_governor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct sits_governor {
  sits_governor_cfg cfg;
  const sits_domain *domains;
  size_t n;
  size_t cooling_state; /* step_wise */
  double err_integral;  /* power_allocator, K * periods */
  /* the power cap, every tick: each domain's capacity per OPP (cap_of[d][k]), and how many
   * periods its window holds */
  double *cap_of[SITS_MAX_DOMAINS];
  size_t window_periods;
};

/* sits_domain_utilisation() from the capacity table */
static double util_of(const sits_governor *g, size_t d, size_t k, double demand) {
  double cap = g->cap_of[d][k];
  return cap > 0 ? fmin(1.0, demand / cap) : 1.0;
}

/* --- base governors: one ops-table entry per kind ----------------------------------- */

typedef size_t (*base_fn)(const sits_governor_cfg *cfg, const sits_domain *d, size_t index,
                          double demand);

static size_t pick_fixed(const sits_governor_cfg *cfg, const sits_domain *d, size_t index,
                         double demand) {
  (void)demand;
  return cfg->fixed_opp[index] < d->n_opp ? cfg->fixed_opp[index] : d->n_opp - 1;
}

static size_t pick_performance(const sits_governor_cfg *cfg, const sits_domain *d, size_t index,
                               double demand) {
  (void)cfg, (void)index, (void)demand;
  return d->n_opp - 1;
}

static size_t pick_powersave(const sits_governor_cfg *cfg, const sits_domain *d, size_t index,
                             double demand) {
  (void)cfg, (void)d, (void)index, (void)demand;
  return 0;
}

static size_t pick_ondemand(const sits_governor_cfg *cfg, const sits_domain *d, size_t index,
                            double demand) {
  (void)index;
  double need = demand / cfg->up_threshold;
  for (size_t k = 0; k < d->n_opp; k++)
    if (sits_domain_capacity(d, k) >= need - 1e-12)
      return k;
  return d->n_opp - 1;
}

static size_t pick_schedutil(const sits_governor_cfg *cfg, const sits_domain *d, size_t index,
                             double demand) {
  (void)cfg, (void)index;
  double f_target = 1.25 * d->opp[d->n_opp - 1].freq_mhz * demand;
  for (size_t k = 0; k < d->n_opp; k++)
    if (d->opp[k].freq_mhz >= f_target - 1e-9)
      return k;
  return d->n_opp - 1;
}

static const struct {
  const char *name;
  base_fn pick;
} base_ops[SITS_GOV_BASE_COUNT] = {
    [SITS_GOV_FIXED] = {"fixed", pick_fixed},
    [SITS_GOV_PERFORMANCE] = {"performance", pick_performance},
    [SITS_GOV_POWERSAVE] = {"powersave", pick_powersave},
    [SITS_GOV_ONDEMAND] = {"ondemand", pick_ondemand},
    [SITS_GOV_SCHEDUTIL] = {"schedutil", pick_schedutil},
};

const char *sits_base_kind_name(sits_base_kind k) {
  return k < SITS_GOV_BASE_COUNT ? base_ops[k].name : "unknown";
}

int sits_base_kind_from_name(const char *name) {
  for (int k = 0; k < SITS_GOV_BASE_COUNT; k++)
    if (strcmp(base_ops[k].name, name) == 0)
      return k;
  return -1;
}

size_t sits_governor_base_opp(const sits_governor_cfg *cfg, const sits_domain *d, size_t index,
                              double demand) {
  return base_ops[cfg->base].pick(cfg, d, index, demand);
}

sits_governor *sits_governor_new(const sits_governor_cfg *cfg, const sits_domain *domains,
                                 size_t n_domains) {
  sits_governor *g = calloc(1, sizeof *g);
  if (!g)
    return NULL;
  g->cfg = *cfg;
  g->domains = domains;
  g->n = n_domains;
  for (size_t d = 0; d < n_domains; d++) {
    if (!(g->cap_of[d] = malloc(domains[d].n_opp * sizeof(double)))) {
      sits_governor_free(g);
      return NULL;
    }
    for (size_t k = 0; k < domains[d].n_opp; k++)
      g->cap_of[d][k] = sits_domain_capacity(&domains[d], k);
  }
  if (cfg->power_cap && cfg->period_s > 0 && isfinite(cfg->cap_window_s))
    while ((double)(g->window_periods + 1) * cfg->period_s <= cfg->cap_window_s * (1 + 1e-9))
      g->window_periods++;
  return g;
}

void sits_governor_free(sits_governor *g) {
  if (!g)
    return;
  for (size_t d = 0; d < g->n; d++)
    free(g->cap_of[d]);
  free(g);
}

/* --- thermal: step_wise ------------------------------------------------------------ */

static void step_wise(sits_governor *g, double temp_c, size_t *limit) {
  size_t max_state = 0;
  for (size_t d = 0; d < g->n; d++)
    if (g->domains[d].n_opp - 1 > max_state)
      max_state = g->domains[d].n_opp - 1;
  if (temp_c > g->cfg.trip_c && g->cooling_state < max_state)
    g->cooling_state++;
  else if (temp_c < g->cfg.trip_c - g->cfg.hysteresis_c && g->cooling_state > 0)
    g->cooling_state--;
  for (size_t d = 0; d < g->n; d++) {
    size_t top = g->domains[d].n_opp - 1;
    limit[d] = g->cooling_state >= top ? 0 : top - g->cooling_state;
  }
}

/* --- thermal: power_allocator (IPA) ------------------------------------------------- */

static double full_power_w(const sits_domain *d, size_t k, double temp_c) {
  return sits_domain_power_w(d, k, 1.0, temp_c, NULL);
}

/* Splits @p budget by weighted request, capping at each domain's maximum and handing the
 * surplus to the domains below their maximum (water filling). */
static void divvy(size_t n, const double *req, const double *max, double budget, double *grant) {
  bool capped[SITS_MAX_DOMAINS] = {false};
  for (int round = 0; round < (int)n + 1; round++) {
    double total = 0, left = budget;
    for (size_t d = 0; d < n; d++)
      if (capped[d])
        left -= max[d];
      else
        total += req[d];
    bool changed = false;
    for (size_t d = 0; d < n; d++) {
      if (capped[d]) {
        grant[d] = max[d];
        continue;
      }
      grant[d] = total > 0 ? fmax(0, left) * req[d] / total : 0;
      if (grant[d] > max[d]) {
        capped[d] = changed = true;
        grant[d] = max[d];
      }
    }
    if (!changed)
      return;
  }
}

static double power_allocator(sits_governor *g, const sits_governor_obs *obs, const size_t *base,
                              size_t *limit) {
  const sits_governor_cfg *c = &g->cfg;
  double req[SITS_MAX_DOMAINS], max[SITS_MAX_DOMAINS], grant[SITS_MAX_DOMAINS], max_total = 0;
  for (size_t d = 0; d < g->n; d++) {
    const sits_domain *dom = &g->domains[d];
    double u = util_of(g, d, base[d], obs->demand[d]);
    double w = c->weight[d] > 0 ? c->weight[d] : 1.0;
    req[d] = w * sits_domain_power_w(dom, base[d], u, obs->domain_temp_c[d], NULL);
    max[d] = full_power_w(dom, dom->n_opp - 1, obs->domain_temp_c[d]);
    max_total += max[d];
    limit[d] = dom->n_opp - 1;
  }
  if (obs->sensor_c < c->switch_on_c) {
    g->err_integral = 0;
    return NAN;
  }
  double span = c->control_c - c->switch_on_c;
  double k_po = c->sustainable_power_w / span, k_pu = 2 * c->sustainable_power_w / span;
  double err = c->control_c - obs->sensor_c;
  if (err < 0) /* the kernel integrates only below integral_cutoff (default 0) */
    g->err_integral += err;
  double budget = c->sustainable_power_w + err * (err < 0 ? k_po : k_pu) + 0.01 * g->err_integral;
  budget = fmin(fmax(budget, 0), max_total);
  divvy(g->n, req, max, budget, grant);
  for (size_t d = 0; d < g->n; d++) {
    const sits_domain *dom = &g->domains[d];
    limit[d] = 0;
    for (size_t k = dom->n_opp; k-- > 0;)
      if (full_power_w(dom, k, obs->domain_temp_c[d]) <= grant[d] + 1e-12) {
        limit[d] = k;
        break;
      }
  }
  return budget;
}

/* --- power cap ---------------------------------------------------------------------- */

/* The total power at OPPs @p opp; @p leak: each domain's leakage temperature factor at the
 * observed temperatures (the same for every prediction of one tick). */
static double predicted_w(const sits_governor *g, const sits_governor_obs *obs, const size_t *opp,
                          const double *leak, double *per_domain) {
  double total = obs->other_power_w;
  for (size_t d = 0; d < g->n; d++) {
    const sits_domain *dom = &g->domains[d];
    double u = util_of(g, d, opp[d], obs->demand[d]);
    per_domain[d] = sits_domain_power_w_f(dom, opp[d], u, leak[d]);
    total += per_domain[d];
  }
  return total;
}

static bool power_cap(const sits_governor *g, const sits_governor_obs *obs, size_t *opp) {
  const sits_governor_cfg *c = &g->cfg;
  double per[SITS_MAX_DOMAINS], allowed = INFINITY, p = c->period_s, w = c->cap_window_s;
  size_t lowest[SITS_MAX_DOMAINS] = {0};
  double leak[SITS_MAX_DOMAINS];
  for (size_t d = 0; d < g->n; d++)
    leak[d] = sits_domain_leak_factor(&g->domains[d], obs->domain_temp_c[d]);
  double p_min = predicted_w(g, obs, lowest, leak, per);
  /* Far below the cap, one look at the window decides: the energy since t0 shrinks as t0
   * moves on (powers are >= 0) and (j - 1) p p_min grows with j, so every term below is at
   * least the one built from the longest look-back and the last j; when the predicted power
   * fits under that, it fits under them all and nothing is lowered (the same answer as the
   * loop, without its w / p look-ups of the energy history every tick). */
  size_t last = g->window_periods;
  if (last == 0)
    return false;
  double t1 = obs->t_s + p - w;
  double past1 = t1 < obs->t_s ? obs->energy_since(t1, obs->energy_user) : 0;
  double floor_w = (c->tdp_budget_w * w - past1 - (double)(last - 1) * p * p_min) / p;
  if (predicted_w(g, obs, opp, leak, per) <= floor_w)
    return false;
  for (size_t j = 1; (double)j * p <= w * (1 + 1e-9); j++) {
    double t0 = obs->t_s + (double)j * p - w;
    double past = t0 < obs->t_s ? obs->energy_since(t0, obs->energy_user) : 0;
    allowed = fmin(allowed, (c->tdp_budget_w * w - past - (double)(j - 1) * p * p_min) / p);
  }
  bool lowered = false;
  while (predicted_w(g, obs, opp, leak, per) > allowed) {
    size_t worst = g->n;
    for (size_t d = 0; d < g->n; d++)
      if (opp[d] > 0 && (worst == g->n || per[d] > per[worst]))
        worst = d;
    if (worst == g->n)
      break; /* everything at its lowest OPP */
    opp[worst]--;
    lowered = true;
  }
  return lowered;
}

void sits_governor_tick(sits_governor *g, const sits_governor_obs *obs, sits_governor_out *out) {
  size_t limit[SITS_MAX_DOMAINS];
  memset(out, 0, sizeof *out);
  out->ipa_budget_w = NAN;
  for (size_t d = 0; d < g->n; d++) {
    out->base_opp[d] = sits_governor_base_opp(&g->cfg, &g->domains[d], d, obs->demand[d]);
    limit[d] = g->domains[d].n_opp - 1;
  }
  if (g->cfg.thermal == SITS_THERMAL_STEP_WISE)
    step_wise(g, obs->sensor_c, limit);
  else if (g->cfg.thermal == SITS_THERMAL_POWER_ALLOCATOR)
    out->ipa_budget_w = power_allocator(g, obs, out->base_opp, limit);
  for (size_t d = 0; d < g->n; d++) {
    out->opp[d] = out->base_opp[d] < limit[d] ? out->base_opp[d] : limit[d];
    if (out->opp[d] < out->base_opp[d])
      out->thermal_limited = true;
  }
  if (g->cfg.power_cap)
    out->cap_limited = power_cap(g, obs, out->opp);
}

bool sits_governor_quiet(const sits_governor *g, const double *demand, const size_t *opp,
                         double sensor_lo_c, double sensor_hi_c, double power_hi_w,
                         bool window_at_most_budget) {
  const sits_governor_cfg *c = &g->cfg;
  bool ok = true;
  if (c->thermal == SITS_THERMAL_STEP_WISE) /* neither raised (T > trip) nor lowered */
    ok = sensor_hi_c <= c->trip_c &&
         (g->cooling_state == 0 || sensor_lo_c >= c->trip_c - c->hysteresis_c);
  else if (c->thermal == SITS_THERMAL_POWER_ALLOCATOR) /* switched off, integral reset */
    ok = sensor_hi_c < c->switch_on_c && g->err_integral == 0;
  else if (c->thermal != SITS_THERMAL_NONE)
    ok = false;
  /* such a tick gives min(base, the cooling state's limit) with nothing lowered by the cap:
   * the OPPs held must be those already */
  bool all_lowest = true;
  for (size_t d = 0; d < g->n && ok; d++) {
    size_t base = sits_governor_base_opp(c, &g->domains[d], d, demand[d]),
           top = g->domains[d].n_opp - 1, limit = top;
    if (c->thermal == SITS_THERMAL_STEP_WISE)
      limit = g->cooling_state >= top ? 0 : top - g->cooling_state;
    ok = opp[d] == (base < limit ? base : limit);
    all_lowest = all_lowest && opp[d] == 0;
  }
  /* the cap lowers nothing when every term of its window is at most the budget: predicted p
   * plus past energy plus (j - 1) p p_min is then at most B w for every look-back j (the
   * caller's power bound covers the lowest OPPs' power too); nor when every domain is at its
   * lowest OPP already */
  if (ok && c->power_cap && g->window_periods > 0 && !all_lowest)
    ok = power_hi_w <= c->tdp_budget_w && window_at_most_budget;
  return ok;
}

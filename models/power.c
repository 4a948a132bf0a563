/* power.c - DVFS power and performance of a domain (see sits_power.h for the equations). */
#include "sits_power.h"
#include "status_internal.h"

#include <math.h>

int sits_domain_check(const sits_domain *d, sits_err *err) {
  if (d->n_opp == 0)
    return sits__fail(err, SITS_EINPUT, "domain '%s' has no OPP", d->name);
  for (size_t k = 0; k < d->n_opp; k++) {
    const sits_opp *o = &d->opp[k];
    if (!(o->freq_mhz > 0) || !(o->volt_v > 0) || !isfinite(o->freq_mhz) || !isfinite(o->volt_v))
      return sits__fail(err, SITS_EINPUT, "domain '%s': OPP %zu needs freq_mhz > 0 and volt_v > 0",
                        d->name, k);
    if (k > 0 && !(o->freq_mhz > d->opp[k - 1].freq_mhz))
      return sits__fail(err, SITS_EINPUT,
                        "domain '%s': OPPs must be listed by increasing freq_mhz (%g after %g)",
                        d->name, o->freq_mhz, d->opp[k - 1].freq_mhz);
    if (o->power_w < 0 || o->items_per_s < 0)
      return sits__fail(err, SITS_EINPUT, "domain '%s': OPP %zu has a negative power or rate",
                        d->name, k);
  }
  double sum = 0;
  for (size_t k = 0; k < d->n_nodes; k++) {
    if (!(d->fractions[k] >= 0))
      return sits__fail(err, SITS_EINPUT, "domain '%s': fractions must be >= 0", d->name);
    sum += d->fractions[k];
  }
  if (d->n_nodes == 0 || fabs(sum - 1.0) > 1e-9)
    return sits__fail(err, SITS_EINPUT, "domain '%s': node fractions sum to %g, not 1", d->name,
                      sum);
  if (!(d->mem_bound >= 0 && d->mem_bound <= 1))
    return sits__fail(err, SITS_EINPUT, "domain '%s': mem_bound must be in [0, 1]", d->name);
  if (d->ceff_f < 0 || d->idle_w < 0 || d->leak_ref_w < 0 || !(d->leak_ref_v > 0) ||
      !(d->max_rate >= 0))
    return sits__fail(err, SITS_EINPUT,
                      "domain '%s': ceff_f, idle_w, leak_ref_w, max_rate must be >= 0 and "
                      "leak_ref_v > 0",
                      d->name);
  return SITS_OK;
}

double sits_domain_leak_factor(const sits_domain *d, double temp_c) {
  return exp(d->leak_per_k * (temp_c - d->leak_ref_c));
}

double sits_domain_leakage_w(const sits_domain *d, double volt_v, double temp_c,
                             double *dleak_dt_w_per_k) {
  double l = d->leak_ref_w * (volt_v / d->leak_ref_v) * sits_domain_leak_factor(d, temp_c);
  if (dleak_dt_w_per_k)
    *dleak_dt_w_per_k = d->leak_per_k * l;
  return l;
}

double sits_domain_dynamic_w(const sits_domain *d, size_t k) {
  const sits_opp *o = &d->opp[k];
  if (!isnan(o->power_w))
    return o->power_w - sits_domain_leakage_w(d, o->volt_v, d->leak_ref_c, NULL);
  return d->ceff_f * o->volt_v * o->volt_v * o->freq_mhz * 1e6;
}

double sits_domain_power_w_f(const sits_domain *d, size_t k, double u, double leak_factor) {
  double leak = d->leak_ref_w * (d->opp[k].volt_v / d->leak_ref_v) * leak_factor;
  return d->idle_w + sits_domain_dynamic_w(d, k) * u + leak;
}

double sits_domain_power_w(const sits_domain *d, size_t k, double u, double temp_c,
                           double *dp_dt_w_per_k) {
  double leak = sits_domain_leakage_w(d, d->opp[k].volt_v, temp_c, dp_dt_w_per_k);
  return d->idle_w + sits_domain_dynamic_w(d, k) * u + leak;
}

double sits_domain_capacity(const sits_domain *d, size_t k) {
  const sits_opp *o = &d->opp[k];
  if (!isnan(o->items_per_s) && d->max_rate > 0)
    return o->items_per_s / d->max_rate;
  double f_ratio = d->opp[d->n_opp - 1].freq_mhz / o->freq_mhz;
  return 1.0 / ((1.0 - d->mem_bound) * f_ratio + d->mem_bound);
}

double sits_domain_utilisation(const sits_domain *d, size_t k, double demand) {
  double cap = sits_domain_capacity(d, k);
  return cap > 0 ? fmin(1.0, demand / cap) : 1.0;
}

double sits_domain_rate(const sits_domain *d, size_t k, double demand) {
  return fmin(demand, sits_domain_capacity(d, k)) * d->max_rate;
}

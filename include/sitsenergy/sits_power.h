/*
 * sits_power.h - DVFS power domains: OPP tables, power with temperature-dependent
 * leakage, and the performance model.
 *
 * Power of a domain at OPP (f, V), utilisation u and temperature T [degC]:
 *   P = idle_w + ceff_f V^2 f_hz u + L(V, T),
 *   L(V, T) = leak_ref_w (V / leak_ref_v) exp(leak_per_k (T - leak_ref_c)).
 * An OPP may carry a measured power_w (full load, at leak_ref_c); it then replaces the
 * dynamic + reference-leakage part: P = idle_w + (power_w - L(V, leak_ref_c)) u + L(V, T).
 *
 * Capacity at f as a fraction of the capacity at f_max (a memory-bound share does not
 * scale with frequency): cap(f) = 1 / ((1 - mem_bound) f_max / f + mem_bound).
 * An OPP may instead carry a measured items_per_s, then cap = items_per_s / max_rate.
 * Demand D is a fraction of the capacity at f_max: u = min(1, D / cap), and the domain
 * completes min(D, cap) * max_rate items per second.
 */
#ifndef SITS_POWER_H
#define SITS_POWER_H

#include <stddef.h>

#include "sits_status.h"

SITS_BEGIN_DECLS

/** One operating point. power_w and items_per_s are NAN when not measured. */
typedef struct sits_opp {
  double freq_mhz, volt_v, power_w, items_per_s;
} sits_opp;

/** A power domain. Heat goes to nodes[k] in the share fractions[k] (summing to 1). The two
 *  arrays belong to whoever filled the domain in (a scenario frees its own). */
typedef struct sits_domain {
  char name[64];
  char item[32];
  size_t n_nodes;
  int *nodes;
  double *fractions;
  size_t n_opp;
  sits_opp opp[64]; /**< ascending frequency */
  double ceff_f;    /**< effective switched capacitance [F] */
  double idle_w;
  double leak_ref_w, leak_ref_v, leak_ref_c, leak_per_k;
  double max_rate;  /**< items per second at f_max and full load */
  double mem_bound; /**< in [0, 1] */
} sits_domain;

/**
 * Checks a filled-in domain: OPPs sorted by strictly increasing frequency, positive
 * frequencies and voltages, fractions summing to 1, non-negative powers, mem_bound in
 * [0, 1]. SITS_EINPUT with what is wrong (the caller adds file:line).
 */
SITS_API int sits_domain_check(const sits_domain *d, sits_err *err);

/** Leakage [W] at voltage @p volt_v and temperature @p temp_c, and its slope [W/K]. */
SITS_API double sits_domain_leakage_w(const sits_domain *d, double volt_v, double temp_c,
                                      double *dleak_dt_w_per_k);

/** Power [W] at OPP @p k, utilisation @p u, temperature @p temp_c; slope dP/dT in *dp_dt. */
SITS_API double sits_domain_power_w(const sits_domain *d, size_t k, double u, double temp_c,
                                    double *dp_dt_w_per_k);

/** The temperature factor of the leakage, exp(leak_per_k (temp_c - leak_ref_c)): domains on
 *  one node with the same slope and reference share it (one exp for all of them). */
SITS_API double sits_domain_leak_factor(const sits_domain *d, double temp_c);
/** sits_domain_power_w with the leakage's temperature factor given (bit for bit the same
 *  value as sits_domain_power_w at the temperature that gave @p leak_factor). */
SITS_API double sits_domain_power_w_f(const sits_domain *d, size_t k, double u, double leak_factor);

/** Dynamic power at full load [W] of OPP @p k (measured part minus reference leakage). */
SITS_API double sits_domain_dynamic_w(const sits_domain *d, size_t k);

/** Capacity of OPP @p k as a fraction of the capacity at f_max (1 at the top OPP). */
SITS_API double sits_domain_capacity(const sits_domain *d, size_t k);

/** Utilisation at OPP @p k for demand @p demand: min(1, demand / capacity). */
SITS_API double sits_domain_utilisation(const sits_domain *d, size_t k, double demand);

/** Items per second done at OPP @p k under @p demand: min(demand, cap) * max_rate. */
SITS_API double sits_domain_rate(const sits_domain *d, size_t k, double demand);

SITS_END_DECLS

#endif

/*
 * sits_governor.h - DVFS governors: which OPP each domain runs at, once per period.
 *
 * The final OPP of a domain is the minimum of three choices:
 *  - the base governor's, from the demand (fixed, performance, powersave, ondemand,
 *    schedutil), one ops-table entry per kind;
 *  - the thermal governor's limit, from a sensor node's temperature (step_wise, or the
 *    Linux power allocator, IPA);
 *  - the power cap's limit: the total power averaged over window_s stays within budget.
 *
 * ondemand: the lowest OPP whose capacity covers demand / up_threshold.
 * schedutil: the lowest OPP with f >= 1.25 f_max u, where u = demand (fraction of the
 *   capacity at f_max), as Linux's schedutil maps utilisation to frequency.
 * step_wise: once per period, above trip_c the cooling state rises one step (every
 *   domain's highest allowed OPP drops by one); below trip_c - hysteresis_c it falls one
 *   step; in between it holds (Linux step_wise with a hysteresis).
 * power_allocator: Linux IPA. Off below switch_on_c. A PID on e = control_c - T with the
 *   kernel's default gains k_po = P_sus / (control_c - switch_on_c),
 *   k_pu = 2 P_sus / (control_c - switch_on_c), k_i = 10/1000 per period, k_d = 0, gives
 *   the budget P_sus + p + i; the budget is split over the domains in proportion to their
 *   weighted requested power (their power at the base governor's OPP), each share capped
 *   at the domain's maximum and the surplus given to the others; each domain gets the
 *   highest OPP whose full-load power at the sensor temperature fits its share.
 * power cap: at each tick, the power P allowed for the next period p keeps every window
 *   that ends at t + j p (j = 1..window_s/p) within budget B, assuming the periods after
 *   the next run at the lowest OPPs (power P_min), so that a later window stays feasible:
 *     P <= (B W - E[t + j p - W, t] - (j - 1) p P_min) / p   for every j.
 *   The highest OPPs whose predicted total fits are kept, lowering the domain with the
 *   highest power first.
 */
#ifndef SITS_GOVERNOR_H
#define SITS_GOVERNOR_H

#include <stdbool.h>
#include <stddef.h>

#include "sits_power.h"
#include "sits_status.h"

SITS_BEGIN_DECLS

#define SITS_MAX_DOMAINS 16

typedef enum sits_base_kind {
  SITS_GOV_FIXED,
  SITS_GOV_PERFORMANCE,
  SITS_GOV_POWERSAVE,
  SITS_GOV_ONDEMAND,
  SITS_GOV_SCHEDUTIL,
  SITS_GOV_BASE_COUNT
} sits_base_kind;

typedef enum sits_thermal_kind {
  SITS_THERMAL_NONE,
  SITS_THERMAL_STEP_WISE,
  SITS_THERMAL_POWER_ALLOCATOR
} sits_thermal_kind;

typedef struct sits_governor_cfg {
  sits_base_kind base;
  double period_s;
  double up_threshold;                /**< ondemand */
  size_t fixed_opp[SITS_MAX_DOMAINS]; /**< fixed: OPP index per domain */
  sits_thermal_kind thermal;
  int sensor_node;
  double trip_c, hysteresis_c;   /**< step_wise */
  double switch_on_c, control_c; /**< power_allocator */
  double sustainable_power_w;
  double weight[SITS_MAX_DOMAINS]; /**< power_allocator weights (default 1) */
  bool power_cap;
  double cap_window_s, tdp_budget_w;
} sits_governor_cfg;

/** Name of a base kind ("ondemand"...), and the kind of a name (-1 if unknown). */
SITS_API const char *sits_base_kind_name(sits_base_kind k);
SITS_API int sits_base_kind_from_name(const char *name);

/** What the governor sees at a tick. */
typedef struct sits_governor_obs {
  double t_s;
  double sensor_c;             /**< temperature of the sensor node */
  const double *demand;        /**< per domain */
  const double *domain_temp_c; /**< per domain: temperature of its first node */
  double other_power_w;        /**< static + traced power (not domains) */
  /** Energy put in over [t0_s, t_s] [J] (power cap); t0_s may be before the start. */
  double (*energy_since)(double t0_s, void *user);
  void *energy_user;
} sits_governor_obs;

/** What it decided. */
typedef struct sits_governor_out {
  size_t opp[SITS_MAX_DOMAINS];      /**< final OPP per domain */
  size_t base_opp[SITS_MAX_DOMAINS]; /**< the base governor's choice */
  bool thermal_limited;              /**< the thermal limit lowered some domain */
  bool cap_limited;                  /**< the power cap lowered some domain */
  double ipa_budget_w;               /**< IPA's granted total (NAN when off) */
} sits_governor_out;

typedef struct sits_governor sits_governor;

/** A governor for @p n_domains domains (borrowed; must outlive it). NULL when out of memory. */
SITS_API sits_governor *sits_governor_new(const sits_governor_cfg *cfg, const sits_domain *domains,
                                          size_t n_domains);
SITS_API void sits_governor_free(sits_governor *g);

/** One tick: decides the OPPs for the next period. */
SITS_API void sits_governor_tick(sits_governor *g, const sits_governor_obs *obs,
                                 sits_governor_out *out);

/**
 * Whether ticks would leave everything as it is (the OPPs @p opp held now, the flags and the
 * governor's own state) while the demand stays @p demand (per domain, as at the last tick),
 * the thermal sensor stays within [@p sensor_lo_c, @p sensor_hi_c] and the total power, at
 * the OPPs held and at the lowest ones, stays at or below @p power_hi_w;
 * @p window_at_most_budget: every energy the cap's window looks back on averaged at most
 * tdp_budget_w. A caller that has proved those bounds over a span may skip the span's ticks.
 * False whenever it cannot tell.
 */
SITS_API bool sits_governor_quiet(const sits_governor *g, const double *demand, const size_t *opp,
                                  double sensor_lo_c, double sensor_hi_c, double power_hi_w,
                                  bool window_at_most_budget);

/** The base governor's OPP for domain @p d at @p demand (exposed for tests and tables). */
SITS_API size_t sits_governor_base_opp(const sits_governor_cfg *cfg, const sits_domain *d,
                                       size_t index, double demand);

SITS_END_DECLS

#endif

/*
 * sits_dvfs.h - the DVFS table of a domain: for every OPP, at the scenario's ambient, the
 * domain at full load (u = 1), every other domain idle at its lowest OPP, static power on:
 * its power and the platform's at the steady temperature (leakage feedback included),
 * the steady junction temperature or runaway, throughput and energy per item, the time
 * to reach the trip from ambient, and whether the OPP is sustainable.
 *
 * trip: the thermal governor's trip_c (control_c for IPA), else max_junction_temp_c.
 * sustainable: the steady junction temperature is below the trip and below
 *   max_junction_temp_c.
 * inefficient: the Linux Energy Model's rule (em_compute_costs) on the domain's own power:
 *   cost = f_max * 10 P / f in the kernel's integer units (uW, kHz), fastest first; an OPP
 *   whose cost is at or above a faster one's is inefficient. (The platform's energy per item,
 *   static and other domains' power included, is items_per_j and the knee.)
 * dynamic_power_coefficient: C in P_dyn[uW] = C V^2 f[MHz], a least-squares fit (GSL,
 *   through the origin) of the OPPs' full-load dynamic power.
 * sustainable_power: the kernel IPA's thermal-zone property for a zone whose actors are the
 *   domain: the power the domain dissipates in steady state with the hottest junction at the
 *   trip (control temperature), static power on and every other domain at its minimum (its
 *   lowest OPP at full load), leakage at those temperatures. It can exceed what the domain
 *   draws at its top OPP: then the domain alone cannot reach the trip at this ambient.
 */
#ifndef SITS_DVFS_H
#define SITS_DVFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sits_scenario.h"
#include "sits_export.h"

SITS_BEGIN_DECLS

typedef struct sits_dvfs_row {
  double freq_mhz, volt_v;
  double power_w, total_power_w; /**< NAN on runaway */
  double steady_temp_c;          /**< NAN on runaway */
  bool runaway;
  double items_per_s, items_per_j, energy_per_item_mj;
  double time_to_trip_s; /**< INFINITY: never */
  bool sustainable, inefficient;
  /** The 95 % band's half-width on steady_temp_c (sits_dvfs_table_bands, on a scenario with
   *  an uncertainty group); NAN without one or on runaway. */
  double steady_temp_half_width_c;
  /** A fan's trips cycle at this OPP's steady state (no steady duty: the figures are at the
   *  cycle's highest duty, as steady's fans.cycles), so steady_temp_c need not rise with the
   *  OPP. */
  bool fan_cycles;
} sits_dvfs_row;

typedef struct sits_dvfs_table {
  char domain[64];
  char item[32];
  double ambient_c, trip_c;
  size_t n;
  sits_dvfs_row rows[64];
  double knee_freq_mhz;            /**< max items per joule (NAN without items) */
  double max_sustainable_freq_mhz; /**< NAN when no OPP is sustainable */
  double dynamic_power_coefficient_uw_per_mhz_v2;
  double sustainable_power_mw;
} sits_dvfs_table;

/** Computes the table of domain @p domain (NULL: the first) of @p sc into @p out. */
SITS_API int sits_dvfs_table_compute(const sits_scenario *sc, const char *domain,
                                     sits_dvfs_table *out, sits_err *err);

/**
 * A power mode (nvpmodel): a maximum OPP per domain such that every domain at full load at
 * its cap (the worst case a mode must hold) keeps the steady total power within the
 * scenario's tdp_budget_w and the hottest junction below its limit (the thermal governor's
 * trip or control temperature and max_junction_temp_c) at the scenario's ambient. Among
 * such caps (every combination of the capped domains' OPPs: the domains of the platform's
 * nvpmodel clocks, else all; a greedy search above 200,000 combinations):
 *  1. the largest throughput: the share x of the workload's peak demand served,
 *     min(1, capacity_d(cap_d) / demand_d) over the domains it loads (demand_d: its peak
 *     demand on d over its segments; a workload without demand columns loads every domain
 *     fully);
 *  2. then the most capacity kept, sum of capacity_d(cap_d) (headroom for other loads);
 *  3. then the least power.
 */
typedef struct sits_nvp_mode {
  size_t cap[SITS_MAX_DOMAINS]; /**< OPP index per domain (the top for domains not capped) */
  bool capped[SITS_MAX_DOMAINS];
  double demand[SITS_MAX_DOMAINS];
  double throughput, total_power_w, junction_c; /**< at the chosen caps, full load */
  double capacity;                         /**< sum over domains of capacity(cap) / capacity(top) */
  double tdp_budget_w, limit_c, ambient_c; /**< NAN: no such constraint */
  bool feasible;    /**< false: even the lowest caps break the budget or the limit */
  size_t evaluated; /**< combinations tried */
} sits_nvp_mode;

/** Chooses the mode of @p sc into @p m (see sits_nvp_mode). */
SITS_API int sits_nvp_mode_choose(const sits_scenario *sc, sits_nvp_mode *m, sits_err *err);

/** Evaluates caps @p cap (an OPP index per domain) into @p m: throughput, power, junction. */
SITS_API int sits_nvp_mode_eval(const sits_scenario *sc, const size_t *cap, sits_nvp_mode *m,
                                sits_err *err);

SITS_END_DECLS

#endif

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
 * inefficient (Linux Energy Model): a faster OPP costs no more per unit of work, where
 *   the cost is total power / capacity.
 * dynamic_power_coefficient: C in P_dyn[uW] = C V^2 f[MHz], a least-squares fit (GSL,
 *   through the origin) of the OPPs' full-load dynamic power.
 * sustainable_power: the power into the domain's nodes that holds the junction at the
 *   trip in steady state with static power on (the kernel's thermal-zone property).
 */
#ifndef SITS_DVFS_H
#define SITS_DVFS_H

#include <stdbool.h>
#include <stddef.h>

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

SITS_END_DECLS

#endif

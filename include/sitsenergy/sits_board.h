/*
 * sits_board.h - outputs a board takes as they are: a device-tree overlay (OPP tables, the
 * Energy Model's coefficients, thermal zones) and an L4T nvpmodel power mode (the mode of
 * sits_dvfs.h's sits_nvp_mode_choose).
 */
#ifndef SITS_BOARD_H
#define SITS_BOARD_H

#include <stdio.h>

#include "sits_dvfs.h"
#include "sits_export.h"

SITS_BEGIN_DECLS

/** What the board outputs take besides the scenario. */
typedef struct sits_board_opts {
  const char *domain;    /**< dts: only this domain's devices and zones (NULL: all) */
  long mode_id;          /**< nvpmodel: the mode's ID; < 0: the first after the stock modes */
  const char *mode_name; /**< nvpmodel: its NAME ([A-Za-z0-9_]); NULL: SITS_<budget>W */
  /** nvpmodel: the board's nvpmodel.conf (NULL: none): its POWER_MODELs are the stock modes
   *  (the new mode takes the first free ID), every line written must name a PARAM and an
   *  argument it defines, and its CPU_ONLINE cores are all put online. */
  const char *nvpmodel_conf;
} sits_board_opts;

/**
 * Writes the board output @p format of @p sc to @p f:
 *  - "dts": a device-tree overlay (dtc -@) for the board the platform's device_tree names:
 *    an opp-table per clock domain (opp-shared, opp-microwatt per CPU), per-CPU
 *    dynamic-power-coefficient and #cooling-cells, and thermal-zones with polling delays,
 *    thermal-sensors, passive trips from the thermal governor, a critical trip, cooling maps
 *    to the sustainable OPPs' cooling states and the IPA sustainable-power;
 *  - "nvpmodel": a POWER_MODEL block for L4T's nvpmodel.conf (sits_nvp_mode_choose) with the
 *    platform's nvpmodel parameter names.
 * SITS_EINPUT for a bad option (a mode ID of a stock mode, a bad name, no nvpmodel names).
 */
SITS_API int sits_board_write(const sits_scenario *sc, const char *format, const sits_board_opts *o,
                              FILE *f, sits_err *err);

SITS_END_DECLS

#endif

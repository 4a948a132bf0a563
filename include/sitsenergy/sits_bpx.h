/*
 * sits_bpx.h - Battery Parameter eXchange (BPX) JSON for the product's equivalent-circuit
 * cell. BPX's own sections describe physics-based models (SPM, SPMe, DFN); an ECM goes under
 * Header.Model = "Partial" and Parameterisation."User-defined" with PyBaMM's ECM names:
 * "Nominal cell capacity [A.h]", "Open-circuit voltage [V]" (an interpolated table of SOC),
 * "Open-circuit voltage by temperature [V]" (per temperature in K, when the cell has rows),
 * "R0 [Ohm]", "R<k> [Ohm]" and "C<k> [F]" per RC pair, "Resistance activation energy
 * [J.mol-1]" with "Reference temperature [K]" (resistances scale by exp(Ea/R (1/T - 1/Tref))),
 * "Lower/Upper voltage cut-off [V]", "Coulombic efficiency". Reading it back (and refusing
 * a physics-based set) is the Python package's sitsenergy.bpx.
 */
#ifndef SITS_BPX_H
#define SITS_BPX_H

#include <stdio.h>

#include "sits_battery.h"
#include "sits_scenario.h"
#include "sits_export.h"
#include "sits_status.h"

SITS_BEGIN_DECLS

/** Writes cell @p c (checked as sits_battery_new does) as BPX JSON onto @p f. */
SITS_API int sits_battery_write_bpx(const sits_battery_cfg *c, const char *title,
                                    const char *description, FILE *f, sits_err *err);
/** The same into @p path (temporary name, renamed when complete). */
SITS_API int sits_battery_write_bpx_file(const sits_battery_cfg *c, const char *title,
                                         const char *description, const char *path,
                                         sits_err *err);

/** The scenario's battery cell as BPX JSON, malloc'ed (free with sits_free); NULL with
 *  @p err (no battery, or a cell the checks refuse). */
SITS_API char *sits_scenario_bpx_text(const sits_scenario *sc, const char *title, sits_err *err);

SITS_END_DECLS

#endif

/*
 * sits_calibrate.h - `calibrate --fit battery`: fit the scenario's battery cell (R0, its
 * RC pairs, optionally the capacity) to a measured cell-level current/voltage test, and
 * write the calibrated scenario.
 *
 * Column mapping: the scenario's replay.battery { time_column; current_column;
 * voltage_column; discharge_positive; } (defaults time_s, current_a, voltage_v, false:
 * negative current discharges), each overridable by the caller.
 */
#ifndef SITS_CALIBRATE_H
#define SITS_CALIBRATE_H

#include <stdio.h>

#include "sits_battery_fit.h"
#include "sits_scenario.h"

typedef struct sits_calibrate_opts {
  const char *trace_path;
  const char *time_column, *current_column, *voltage_column; /**< NULL: the scenario's */
  int discharge_positive;                                    /**< -1: the scenario's */
  double train_fraction;
  bool fit_capacity;
} sits_calibrate_opts;

typedef struct sits_calibration {
  sits_battery_fit fit;
  size_t n;
  double *t_s, *i_a, *v_v; /**< the trace as fitted (discharge positive) */
  double train_fraction;
  bool fit_capacity;
} sits_calibration;

int sits_calibrate_battery(const sits_scenario *sc, const sits_calibrate_opts *opts,
                           sits_calibration *out, sits_err *err);
void sits_calibration_release(sits_calibration *c);

/** The Calibrate JSON of the contract onto @p f. */
int sits_write_calibration_json(const sits_calibration *c, FILE *f);
/** The merged scenario with the fitted battery values (temporary file, then renamed). */
int sits_write_calibrated_config(const sits_scenario *sc, const sits_calibration *c,
                                 const char *path, sits_err *err);
/** CSV of time_s, voltage_v (measured), model_voltage_v, current_a, for plots. */
int sits_write_calibration_csv(const sits_calibration *c, const char *path, sits_err *err);

#endif

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
#include "sits_export.h"

SITS_BEGIN_DECLS

typedef struct sits_calibrate_opts {
  const char *trace_path;
  const char *time_column, *current_column, *voltage_column; /**< NULL: the scenario's */
  /** a cell temperature column [C] (NULL: the scenario's replay.battery.temperature_column,
   *  else none: the fit at r_ref_c) */
  const char *temperature_column;
  int discharge_positive; /**< -1: the scenario's */
  double train_fraction;
  bool fit_capacity;
  /* An OCV test (a slow discharge) to build the OCV table from: NULL for none. Columns as
   * for the trace unless given; the current's sign is read from the data. */
  const char *ocv_test_path;
  /* A slow charge from empty to full (the same columns): with it the table is the midpoint
   * of the two branches (sits_ocv_from_branches). NULL: the discharge alone. */
  const char *ocv_charge_path;
  const char *ocv_columns[3];  /**< time, current, voltage; NULL: the trace's */
  size_t ocv_points;           /**< 0: 101 */
  double ocv_max_c_rate_per_h; /**< 0: C/20 */
  bool ocv_r_given;            /**< use ocv_r_ohm for the IR correction, else measure it */
  double ocv_r_ohm;
  /* A closed cycle, full to empty to full, in recordings in time order (Plett's dynamic
   * test's three scripts; sits_capacity_from_cycle): its capacity and coulombic efficiency
   * replace the cell's (and the OCV test's capacity) for the fit and the output. The trace's
   * time and current columns and sign. NULL / 0: none. */
  const char *const *cycle_paths;
  size_t n_cycle;
  const char *cycle_columns[2]; /**< time, current; NULL: the trace's */
  /* The efficiency of the charge in the cycle's recordings after the first (taken at a
   * reference temperature); 0: one efficiency for the whole cycle. */
  double cycle_ref_eta;
  /** also fit the recording's voltage lag behind its current (SITS_BATTERY_FIT_LAG) */
  bool fit_lag;
  /** keep the cell's R0, RC pairs, tables and hysteresis: fit only the test's initial SOC
   *  (SITS_BATTERY_FIT_KEEP), to see how a cell calibrated elsewhere holds on this test */
  bool keep_cell;
  /** the cycler's charge counter [Ah] (NULL: the scenario's replay.battery.charge_column, else
   *  none): SOC then follows its change instead of the integrated current, for logs that keep
   *  only part of a test (HPPC files that hold the pulses but not the discharges between) */
  const char *charge_column;
  /** also fit the resistances' Arrhenius activation energy from the cell temperature column
   *  (SITS_BATTERY_FIT_ARRHENIUS) */
  bool fit_arrhenius;
  /** more tests of the same cell, fitted together with trace_path (sits_battery_fit_tests;
   *  the same columns and sign; up to SITS_BATTERY_FIT_MAX_TESTS in all): one cell, a start
   *  SOC per test */
  const char *const *more_trace_paths;
  size_t n_more_traces;
  /** fit R0 and the RC pairs as rows over temperature (SITS_BATTERY_FIT_ROWS), from tests at
   *  their temperatures (the temperature column needed) */
  bool fit_rows;
  /** called as the battery fit goes (NULL: not) */
  sits_battery_fit_progress_fn progress;
  void *progress_user;
  /** > 0: each test is fitted on averages over blocks of this many seconds (for long logs
   *  sampled fast): a block's time is its first sample's, its current the time-weighted mean
   *  of the currents held to the next sample (the charge moved is kept), its voltage,
   *  temperature the plain means, its charge counter the first sample's. 0: as recorded. */
  double average_s;
  /** true: every test starts at SOC initial_soc (0 to 1; 1 for tests that start from a full
   *  charge), not fitted; false: each test's start SOC is fitted */
  bool initial_soc_given;
  double initial_soc;
} sits_calibrate_opts;

typedef struct sits_calibration {
  sits_battery_fit fit;
  size_t n;
  double *t_s, *i_a, *v_v; /**< the trace as fitted (discharge positive) */
  double *temp_c;          /**< the cell temperature at each sample, or NULL */
  double train_fraction;
  bool fit_capacity;
  bool has_fit;   /**< a trace was fitted (else only the OCV test) */
  bool has_ocv;   /**< the OCV table was built from an OCV test */
  bool has_cycle; /**< capacity and coulombic efficiency from a cycle */
  sits_cycle_capacity cycle;
  size_t merged_rows; /**< trace rows merged into the row before for an equal time stamp */
  sits_ocv_test ocv;
  /** What the trace holds, recognised from its current (sits_cycler_segments): rests (|I|
   *  below 2 % of the largest |I| for at least 10 s), current steps (a change of at least 20 %
   *  of the largest |I| between two samples at most 2 s apart) and, from the steps, the
   *  cell's resistance seen within one sample, -dV/dI (a model-free check on R0: it also
   *  holds whatever of the RC pairs acts within the sample period) */
  size_t n_rests, n_steps;
  double rest_s, discharge_ah, charge_ah;
  double r_step_median_ohm, r_step_q1_ohm, r_step_q3_ohm; /**< NAN without steps */
  bool fit_lag; /**< the fit took the recording's sample lag (fit.lag_frac, fit.lag_s) */
  bool kept;    /**< the cell was kept (opts.keep_cell): only the test's initial SOC fitted */
  /** the capacity the fit started from (the cell's, an OCV test's or a cycle's) [Ah] */
  double start_capacity_ah;
  double *q_ah;       /**< the charge counter at each sample (discharge positive) [Ah], or NULL */
  bool fit_arrhenius; /**< the fit took the activation energy (fit.r_ea_j_per_mol) */
  /** the tests fitted (1 + opts.n_more_traces; t_s, i_a, v_v, temp_c and q_ah hold them one
   *  after another, test s from test_start[s] to test_start[s + 1]) and their paths (the
   *  caller's strings) */
  size_t n_tests;
  size_t test_start[SITS_BATTERY_FIT_MAX_TESTS + 1];
  const char *trace_paths[SITS_BATTERY_FIT_MAX_TESTS];
  bool fit_rows; /**< the fit took rows over temperature (fit.n_r_t of them) */
  /** opts.average_s, and the samples the tests had before it (n is after; the segments are
   *  recognised in the samples as recorded) */
  double average_s;
  size_t n_recorded;
  /** opts.initial_soc when given (the JSON's initial_soc_given), else NAN */
  double initial_soc_given;
  /** the cell had no RC pair: the fit added one (R0 alone cannot follow the voltage's
   *  relaxation after a current step); flagged in the JSON */
  bool rc_added;
} sits_calibration;

/** Without a trace_path only the OCV test and the cycle are processed (opts->ocv_test_path
 *  or opts->cycle_paths needed). */
SITS_API int sits_calibrate_battery(const sits_scenario *sc, const sits_calibrate_opts *opts,
                                    sits_calibration *out, sits_err *err);
SITS_API void sits_calibration_release(sits_calibration *c);

/** The Calibrate JSON of the contract onto @p f. */
SITS_API int sits_write_calibration_json(const sits_calibration *c, FILE *f);
/** Whether @p c holds a battery fit whose r0_ohm is below 1 micro-ohm (no cell or pack has
 *  one so small: the data are not a battery's, or a column's unit or sign is off); not for a
 *  kept cell, nor for a trace without current (sits_calibration_no_current says that). */
SITS_API bool sits_calibration_r0_implausible(const sits_calibration *c);
/** The first RC pair of a battery fit (its index) that no relaxation in the data supports:
 *  its time constant over 10 x the training part's span, or its resistance over 1,000 x R0
 *  (the pair then stands for a drift: an OCV table or capacity off, a recording's offset);
 *  -1 when none, or without a fit. */
SITS_API int sits_calibration_rc_implausible(const sits_calibration *c);
/** Whether a battery fit's trace carries no current (every |I| below 1 uA, training and
 *  held-out rows): R0 and the RC pairs are then not determined by it (they keep their
 *  starting values). */
SITS_API bool sits_calibration_no_current(const sits_calibration *c);
/** The merged scenario with the fitted battery values (temporary file, then renamed). */
SITS_API int sits_write_calibrated_config(const sits_scenario *sc, const sits_calibration *c,
                                          const char *path, sits_err *err);
/** The scenario's battery cell with the calibration's values (the OCV test's table and
 *  capacity, the fitted R0, RC pairs and capacity) into @p out. */
SITS_API int sits_calibrated_cell(const sits_scenario *sc, const sits_calibration *c,
                                  sits_battery_cfg *out, sits_err *err);
/** CSV of time_s, voltage_v (measured), model_voltage_v, current_a (discharge positive) and
 *  held_out (0 for the samples the fit was trained on, 1 for those held out); with several
 *  tests they follow one another (each test's time from the previous one's end) and a
 *  column test (1, 2, ...) says whose row it is. */
SITS_API int sits_write_calibration_csv(const sits_calibration *c, const char *path, sits_err *err);

SITS_END_DECLS

#endif

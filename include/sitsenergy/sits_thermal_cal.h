/*
 * sits_thermal_cal.h - `calibrate --fit thermal[,ambient,initial]`: the link resistances and
 * node capacitances of a scenario's thermal network (and optionally the ambient temperature
 * and the initial temperatures of unsensed nodes) fitted to a board trace by replaying it
 * (sits_replay.h): GSL multifit_nlinear on the first train_fraction of the rows, the rest held
 * out. Parameters are fitted in log space (R, C) or linearly (temperatures) inside bounds
 * (R and C within 30x of the scenario's values; the ambient in a prior range, by default
 * [15, 40] C, its ends flagged; initial
 * temperatures from 5 K below the coolest ambient allowed to 10 K above the warmest sensed
 * reading at the start, or 10 K around the replay's estimate), through a smooth map, from several
 * starts (the scenario's values, all R and C x0.3, x3); the best finite one wins. The Jacobian's
 * reciprocal condition number at the solution says how well the parameters are determined;
 * below 1e-6 (or undefined: a rank-deficient Jacobian) the parameters that carry its weakest
 * directions are reported as unidentifiable. Each parameter gets a standard error and the set
 * a correlation matrix (GSL's covariance of the least squares, through the bounded map), and
 * flags name values a user should not believe: a parameter at the end of its range, a fitted
 * ambient outside 15-40 C (an indoor board's plausible range), a junction node heavier than
 * a neighbour on its way to the ambient (a die is lighter than its heatsink), a pair of
 * parameters correlated beyond 0.99 (the data fixes their combination, not each).
 */
#ifndef SITS_THERMAL_CAL_H
#define SITS_THERMAL_CAL_H

#include <stdbool.h>
#include <stdio.h>

#include "sits_battery_fit.h"
#include "sits_dvfs.h"
#include "sits_replay.h"
#include "sits_sim.h"
#include "sits_trace.h"
#include "sits_export.h"

SITS_BEGIN_DECLS

typedef struct sits_thermal_cal_opts {
  const char *scenario_path;
  /** Not NULL: the scenario's text instead of the file (scenario_path then only names it in
   *  messages; file names in the text resolve as sits_scenario_load_text says). */
  const char *scenario_text;
  const char *const *sets;
  size_t n_sets;
  const char *trace_path;
  sits_trace_opts trace;
  bool fit_ambient, fit_initial;
  bool fit_leakage;      /**< the modelled domains' (replay.domains) leak_ref_w and leak_per_k */
  double train_fraction; /**< 0: 0.7 */
  /** A held-out block inside the trace instead of its tail: rows [hold_from, hold_to) of
   *  the fraction of rows (both 0: the tail after train_fraction). For k-fold selection. */
  double hold_from, hold_to;
  /** The fraction of rows in use (0: all): the rows after it take no part, neither in the
   *  training nor held out. With hold_from/hold_to inside it, a validation block that leaves
   *  the tail unseen (sits_calibrate_thermal_auto's structure choice). */
  double use_to;
  /** sits_calibrate_thermal_orders: k-fold over time blocks of the training rows (0 or 1:
   *  the training rows' last quarter as one validation block). Each order is fitted k times,
   *  each time with one of k equal blocks of the training rows held out, and the order with
   *  the least mean RMSE on them wins; the result is then that order's fit with the tail
   *  split. The held-out tail takes no part in the choice. */
  size_t kfold;
  /** The ambient's range when fitted (both 0: the prior 15 to 40 C, where a board indoors
   *  sits; an ambient at either end is flagged). */
  double ambient_lo_c, ambient_hi_c;
  /** The network as the scenario gives it: its links' resistances, nodes' capacitances and
   *  fans' resistances are not fitted, only what fit_ambient, fit_initial and fit_leakage
   *  ask for (at least one). A network calibrated on one trace, checked on another: the
   *  held-out figures then say how it holds on a trace it was not fitted to. */
  bool keep_network;
  /** With keep_network: the nodes' capacitances are fitted too, the resistances (links' and
   *  fans') kept, say from steady points or a datasheet: the trace then sets the transients
   *  only. */
  bool fit_capacitance;
  /** The trip temperatures of the fans the trace does not drive (a fan with trips, and no
   *  replay.fans or util_frac.<fan> column: its governor switches it), all shifted by one
   *  offset: scanned from -15 to +15 K in 1-K steps, each offset a fit from the scenario's
   *  values; the five of least training cost fitted again from every start, and the least
   *  of those wins (a switching point is no smooth parameter for the least squares). For a
   *  board whose fan state is not logged and whose fan table is not known. With
   *  sits_calibrate_thermal_auto: try the switched fan among its structures (below). */
  bool fit_trips;
  /** Ranges of the links' and fans' resistances and the nodes' capacitances from the device's
   *  physics instead of 30 x around the scenario's values (sits_calibrate_thermal_auto sets
   *  it): from the power class P_max, P_mean of the training rows, R in [0.05 K / P_max,
   *  200 K / max(P_mean, P_max / 20)] and C in [1e-4, 100] J/(K W) x P_max (see
   *  docs/traces-and-calibration.md); the scenario's values only start the fit. */
  bool physics_bounds;
  /** Called after each offset of a trip scan (done of total, the offset), and after each
   *  candidate fit of sits_calibrate_thermal_orders, of sits_calibrate_thermal_auto and of
   *  sits_thermal_cal_add_uncertainty's forecast blocks (done of total fits, offset NAN), if
   *  not NULL. sits_calibrate_thermal_auto may call it from its worker threads, one call at
   *  a time. */
  void (*progress)(size_t done, size_t total, double offset_c, void *user);
  void *progress_user;
  /** sits_calibrate_thermal_auto's independent candidate fits (the power timings, the
   *  structures) run on up to this many threads; 0: OpenMP's default (OMP_NUM_THREADS, else
   *  the cores). The result does not depend on it. */
  size_t threads;
} sits_thermal_cal_opts;

typedef struct sits_thermal_param {
  char path[160]; /**< the config path ("platform.thermal.links.[0].r_k_per_w", "ambient_c") */
  int node;       /**< an initial temperature: its node; else -1 */
  double start, value, lo, hi;
  bool log_scale;
  double weak_share; /**< share of the Jacobian's weakest direction */
  /** Standard error at the solution (the fit's covariance through the map to the value;
   *  independent residuals assumed, so optimistic for a time series); NAN when undetermined
   *  or at a bound. */
  double std_err;
  bool at_bound; /**< within 1 % of the ends of its range (in the fit's coordinate) */
} sits_thermal_param;

#define SITS_THERMAL_CAL_MAX_PARAMS 64
#define SITS_THERMAL_CAL_MAX_ORDERS 3
/** Candidates of sits_calibrate_thermal_orders: each order, and with sensors on several
 *  nodes each order again with a shared board node. */
#define SITS_THERMAL_CAL_MAX_CANDIDATES (2 * SITS_THERMAL_CAL_MAX_ORDERS)

/** One candidate's figures (sits_calibrate_thermal_orders). */
typedef struct sits_thermal_order_fig {
  int order;
  double train_rmse_c, holdout_rmse_c; /**< the worst sensor's */
  size_t flags;
  double kfold_rmse_c; /**< with kfold: the mean over the folds of the worst held-out RMSE */
  bool board;          /**< the chains joined at a shared board node (sensors on several nodes) */
  /** without kfold: the worst sensor's RMSE on the training rows' last quarter, fitted on
   *  the first three quarters (what the choice is made on); NAN with kfold */
  double validation_rmse_c;
} sits_thermal_order_fig;
#define SITS_THERMAL_CAL_MAX_SENSORS 32
/** The offsets a trip scan tries (fit_trips). */
#define SITS_THERMAL_CAL_MAX_TRIP_SCAN 40

/** One trial of a trip scan: the offset, the worst sensor's RMSE (NAN where the fit
 *  failed), and from how many starts it was fitted (1 in the coarse scan, 3 for the
 *  finalists). */
typedef struct sits_thermal_trip_fig {
  double offset_c, train_rmse_c, holdout_rmse_c;
  size_t starts;
} sits_thermal_trip_fig;

/** One power-timing candidate of sits_calibrate_thermal_auto: the suffix given to every mapped
 *  power column's rail ("" power_w.<rail>, "_instant", "_average", "_energy"), whether its
 *  values were taken as interval means, and the fit's figures (worst sensor). */
typedef struct sits_thermal_timing_fig {
  char suffix[16];
  bool interval_mean;
  double train_rmse_c, holdout_rmse_c;
  double validation_rmse_c; /**< fitted again on the training rows' first 3/4, scored on the
                                 last 1/4 (the choice's criterion; the held-out tail unseen) */
} sits_thermal_timing_fig;
#define SITS_THERMAL_CAL_MAX_TIMINGS 8

/** One structure candidate of sits_calibrate_thermal_auto: the network as given, with an
 *  unlogged cooling device (a fan whose state the trace does not record, on the link to the
 *  ambient, stepping up with the sensed temperature; with fit_trips also one that switches
 *  once, at a trip the trip scan places), or with a lag on each sensor
 *  (replay.sensors.[].lag_s); its figures on the validation block (the last quarter of the
 *  training rows, fitted on the rest: the held-out tail unseen). */
typedef struct sits_thermal_structure_fig {
  char what[200];
  double train_rmse_c, validation_rmse_c;
} sits_thermal_structure_fig;
#define SITS_THERMAL_CAL_MAX_STRUCTURES 4

typedef struct sits_thermal_cal {
  size_t n_params;
  sits_thermal_param params[SITS_THERMAL_CAL_MAX_PARAMS];
  size_t n_sensors;
  char sensor[SITS_THERMAL_CAL_MAX_SENSORS][160];
  sits_fit_metrics train[SITS_THERMAL_CAL_MAX_SENSORS], holdout[SITS_THERMAL_CAL_MAX_SENSORS];
  size_t n_rows, n_train, evaluations, starts;
  double train_fraction, rcond;
  bool converged, unidentifiable;
  bool fit_ambient, fit_initial;
  bool fit_leakage;  /**< the modelled domains' (replay.domains) leak_ref_w and leak_per_k */
  char *config_text; /**< the merged scenario with the fitted values (free()) */
  /** Correlations of the parameters at the solution (n_params^2, row-major; NAN where
   *  undetermined). */
  double corr[SITS_THERMAL_CAL_MAX_PARAMS * SITS_THERMAL_CAL_MAX_PARAMS];
  size_t n_flags;
  char flags[16][256]; /**< parameters a user should not believe, and why */
  int order;           /**< with sits_calibrate_thermal_orders: the chosen order; else 0 */
  size_t n_orders;     /**< the candidates tried, with their figures */
  sits_thermal_order_fig orders[SITS_THERMAL_CAL_MAX_CANDIDATES];
  bool keep_network; /**< the network was kept as given (sits_thermal_cal_opts) */
  bool board; /**< with sits_calibrate_thermal_orders: the chosen candidate has a board node */
  bool fit_capacitance; /**< the kept network's capacitances were fitted (sits_thermal_cal_opts) */
  bool fit_trips;       /**< the fans' trips were shifted by the scan (sits_thermal_cal_opts) */
  double trip_offset_c; /**< the offset chosen (fit_trips) */
  size_t n_trip_scan;   /**< the offsets tried, with their figures */
  sits_thermal_trip_fig trip_scan[SITS_THERMAL_CAL_MAX_TRIP_SCAN];
  /** sits_calibrate_thermal_auto: the power-timing candidates tried and the one kept. */
  bool fit_auto;
  size_t n_timings, timing_chosen;
  sits_thermal_timing_fig timings[SITS_THERMAL_CAL_MAX_TIMINGS];
  char power_columns[256]; /**< the chosen candidate's power columns, comma-separated */
  /** sits_calibrate_thermal_auto: the structure candidates tried and the one kept. */
  size_t n_structures, structure_chosen;
  sits_thermal_structure_fig structures[SITS_THERMAL_CAL_MAX_STRUCTURES];
  /** physics_bounds (sits_thermal_cal_opts): the training rows' power class the ranges of
   *  R and C came from. */
  bool physics_bounds;
  double power_max_w, power_mean_w;
  /** sits_thermal_cal_add_uncertainty: per sensor the training residuals' 95th percentile,
   *  and the 95 % band's coverage and mean half-width over the held-out rows. */
  bool has_band;
  double residual_q95_c[SITS_THERMAL_CAL_MAX_SENSORS];
  double training_q95_c[SITS_THERMAL_CAL_MAX_SENSORS]; /**< of the training residuals */
  double forecast_q95_c[SITS_THERMAL_CAL_MAX_SENSORS]; /**< of the forecast residuals (NAN:
                                                            none); residual_q95_c the wider */
  double band_coverage[SITS_THERMAL_CAL_MAX_SENSORS];
  double band_mean_half_width_c[SITS_THERMAL_CAL_MAX_SENSORS];
  /** The trace's malformed lines the fit passed over, and the first one's line number. */
  size_t trace_skipped, trace_first_skipped_line;
} sits_thermal_cal;

SITS_API int sits_calibrate_thermal(const sits_thermal_cal_opts *o, sits_thermal_cal *out,
                                    sits_err *err);
SITS_API void sits_thermal_cal_release(sits_thermal_cal *c);
/**
 * The network's order from the data: for each of @p orders (1 to 3 nodes), a chain of that
 * many nodes from each sensed node (the distinct nodes of replay.sensors, at most 8) to the
 * ambient is calibrated as sits_calibrate_thermal does, and with sensors on two or more nodes
 * each order again with the chains joined at one shared board node that alone reaches the
 * ambient; the candidate with the least held-out RMSE (worst sensor) is returned (its order
 * in out->order, out->board, every candidate's figures in out->orders). A chain keeps its
 * sensed node's name, names its second node after the sensed node's one neighbour when it
 * has exactly one (not sensed, not another chain's), and starts from the scenario's own
 * steady resistance (split evenly) and capacitances; power columns mapped to nodes the
 * candidate lacks go to the board node, or to the end of the chain from the sensed node
 * nearest to them.
 */
SITS_API int sits_calibrate_thermal_orders(const sits_thermal_cal_opts *o, const int *orders,
                                           size_t n_orders, sits_thermal_cal *out, sits_err *err);
/**
 * `calibrate --fit auto`: thermal, ambient and initial (as @p o asks) with the structure the
 * data call for. Power timing: each mapped power column's rail is tried under every name the
 * trace holds for it (power_w.<rail>, <rail>_instant, _average, _energy: a reading, the
 * driver's average, an energy counter's interval mean) and each taken as a reading (held
 * from its row) and as an interval mean (applied over the interval before its row); all
 * candidates have the same parameters, so the least training RMSE (worst sensor) chooses,
 * the held-out tail untouched. Then, with @p n_orders, the network's order as
 * sits_calibrate_thermal_orders chooses it on the chosen timing. Every candidate's figures
 * in out->timings; the scenario must map its power with a replay.power list.
 */
SITS_API int sits_calibrate_thermal_auto(const sits_thermal_cal_opts *o, const int *orders,
                                         size_t n_orders, sits_thermal_cal *out, sits_err *err);
/**
 * Writes the fit's uncertainty into the calibrated scenario (c->config_text, an
 * `uncertainty` group replacing any it had): the parameters, values, standard errors (0 where
 * undetermined or at a bound) and correlations, and per sensor the 95th percentile of the
 * absolute residuals over the training rows (the calibrated scenario replayed on the trace of
 * @p o). sits_replay_bands reads it; c->band_* get the held-out part's coverage.
 */
SITS_API int sits_thermal_cal_add_uncertainty(sits_thermal_cal *c, const sits_thermal_cal_opts *o,
                                              sits_err *err);
/** The Calibrate JSON of the contract (metrics per sensor in degC). */
SITS_API int sits_thermal_cal_write_json(const sits_thermal_cal *c, FILE *f);
/** The calibrated scenario (runs with run and replay), written atomically. */
SITS_API int sits_thermal_cal_write_config(const sits_thermal_cal *c, const char *path,
                                           sits_err *err);

/**
 * 95 % bands around the replay @p r of @p sc, when the scenario carries an uncertainty group
 * (written by calibrate: the fitted parameters, their standard errors and correlations, and
 * per sensor the 95th percentile of the training residuals): the parameters' covariance is
 * propagated linearly (each parameter moved by one standard error and the trace replayed
 * again: a secant sensitivity) and combined with the residual quantile, half-width =
 * sqrt(q95^2 + (1.96 sigma_model)^2) at every row. Coverage and mean half-width count the
 * rows from @p from_row on (a calibration's held-out part; 0: all). Without the group
 * nothing is done (band_c stays NULL). At most 32 sensors.
 */
SITS_API int sits_replay_bands(const sits_scenario *sc, sits_replay *r, size_t from_row,
                               sits_err *err);

/**
 * The 95 % band of the run @p r of @p sc (made with @p opts; NULL: none) when the scenario
 * carries an uncertainty group (sits_band): each parameter with a standard error moved by it
 * and the scenario run again (without sinks or progress), so it costs one run per parameter.
 * Into sits_result_band(r); without the group nothing is done.
 */
SITS_API int sits_run_bands(const sits_scenario *sc, const sits_run_opts *opts, sits_result *r,
                            sits_err *err);
/** The same for a steady state @p st of @p sc: its max_junction_temp_c's band into st->band. */
SITS_API int sits_steady_bands(const sits_scenario *sc, sits_steady_state *st, sits_err *err);
/** The same for each OPP row of the DVFS table @p t of @p sc (computed by
 *  sits_dvfs_table_compute): each row's steady_temp_half_width_c, the table recomputed once
 *  per parameter with a standard error. */
SITS_API int sits_dvfs_table_bands(const sits_scenario *sc, sits_dvfs_table *t, sits_err *err);

SITS_END_DECLS

#endif

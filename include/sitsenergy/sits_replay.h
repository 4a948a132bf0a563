/*
 * sits_replay.h - replay of a board trace through a scenario's thermal model: measured power
 * columns drive nodes (the scenario's `replay.power` list), simulated temperatures are compared
 * with measured sensors (`replay.sensors`), the ambient comes from `replay.ambient_column` or
 * the scenario's ambient_c.
 *
 * Initial state: each sensed node starts at its sensor's first reading; every other node at its
 * `initial_c` when the scenario gives one, else at the steady state of the first row's power
 * with the sensed nodes held at their readings (a linear solve of the unsensed part of the
 * network), recorded in the result so that outputs can say which is which.
 */
#ifndef SITS_REPLAY_H
#define SITS_REPLAY_H

#include <stdbool.h>
#include <stdio.h>

#include "sits_battery_fit.h"
#include "sits_thermal.h"
#include "sits_scenario.h"
#include "sits_sim.h"
#include "sits_trace.h"
#include "sits_export.h"

SITS_BEGIN_DECLS

typedef struct sits_replay_sensor {
  char column[160];
  int node;
  double weight;      /**< in a thermal fit (replay.sensors.[].weight, default 1) */
  sits_fit_metrics m; /**< in kelvin (sim - measured) */
  /** The sensor's first-order time constant (replay.sensors.[].lag_s, default 0): it reads
   *  its node through lag_s d(reading)/dt = node - reading, starting level with it. */
  double lag_s;
  /** The sensor's name in outputs (JSON keys, HDF5 datasets, CSV headers): its column, or
   *  column#2, column#3... for a column mapped again (to another node, as a weight-0 copy). */
  char name[172];
} sits_replay_sensor;

/** A phase of the trace (a column phase.<label>, 1 in the rows sampled while it was open:
 *  sits_rt_phase_begin/end) and the replay's figures over its rows. */
typedef struct sits_replay_phase {
  char label[64];
  size_t instances;    /**< runs of consecutive phase rows */
  double duration_s;   /**< the rows' intervals (each row to the next) */
  double energy_j;     /**< the mapped measured power over those intervals (as replayed) */
  sits_fit_metrics *m; /**< per sensor, over the phase rows */
  double *peak_measured_c, *peak_simulated_c; /**< per sensor */
} sits_replay_phase;

#define SITS_REPLAY_MAX_POWER_COLUMNS 16
#define SITS_REPLAY_MAX_BAND_SENSORS 32

typedef struct sits_replay {
  sits_trace *trace;
  /** The mapped power columns (replay.power, in order; the first 16) and whether each was
   *  taken as an interval mean (replay.power.[].timing). */
  size_t n_power;
  char power_column[SITS_REPLAY_MAX_POWER_COLUMNS][160];
  bool power_interval_mean[SITS_REPLAY_MAX_POWER_COLUMNS];
  bool owns_trace;
  sits_result *result;
  size_t n_sensors;
  sits_replay_sensor *sensors;
  double duration_s;
  double *sim_c;     /**< n_sensors x trace rows: simulated temperature at each row's time */
  double *power_w;   /**< trace rows: the total mapped power */
  double *initial_c; /**< per node */
  bool *sensed;      /**< per node: started at a reading */
  size_t n_phases;
  sits_replay_phase *phases; /**< per phase.<label> column of the trace */
  /** per platform fan: whether a trace column drove it, and the range of duties
   *  it took */
  bool fan_traced[SITS_MAX_FANS];
  /** 95 % bands (sits_replay_bands, on a scenario with an uncertainty group): per sensor the
   *  half-width at each row (n_sensors x rows; NULL without), the fraction of measured
   *  samples inside (from row band_from on) and the mean half-width there. */
  double *band_c;
  double band_coverage[SITS_REPLAY_MAX_BAND_SENSORS];
  double band_mean_half_width_c[SITS_REPLAY_MAX_BAND_SENSORS];
  size_t band_from, band_params;
  double fan_duty_min[SITS_MAX_FANS], fan_duty_max[SITS_MAX_FANS];
} sits_replay;

/**
 * Replays @p trace_path (read with @p topts; NULL: sniffed) through @p sc, which becomes a replay
 * scenario (sits_scenario_make_replay()). The metrics cover every row.
 */
SITS_API int sits_replay_run(sits_scenario *sc, const char *trace_path,
                             const sits_trace_opts *topts, sits_replay **out, sits_err *err);
/** The same on a trace already read (borrowed; @p path only names it in messages), with the
 *  initial temperatures of unsensed nodes given by @p initial_c where not NAN (NULL: all
 *  estimated). */
SITS_API int sits_replay_run_trace(sits_scenario *sc, const sits_trace *trace, const char *path,
                                   const double *initial_c, sits_replay **out, sits_err *err);
SITS_API void sits_replay_free(sits_replay *r);
/** The Replay summary JSON of the contract (sensors, duration_s) plus the initial state and
 *  `phases` (by label: instances, duration_s, energy_j, sensors with the metrics and the
 *  measured and simulated peaks over the phase's rows). */
SITS_API int sits_replay_write_json(const sits_replay *r, const sits_scenario *sc, FILE *f);
/** HDF5: /time_s (the trace rows), /measured_c/<column>, /simulated_c/<column>, /power_w/total. */
SITS_API int sits_replay_write_h5(const sits_replay *r, const sits_scenario *sc, const char *path,
                                  sits_err *err);
/** CSV of time_s, then per sensor measured and simulated, then the mapped power (plots); with
 *  a band (sits_replay_bands), last a `band_half_width_c <column>` per sensor. */
SITS_API int sits_replay_write_csv(const sits_replay *r, const char *path, sits_err *err);
/** The same with a column held_out after the power: 1 on the rows from @p hold_lo to before @p
 * hold_hi (a calibration's held-out part), 0 on the others. */
SITS_API int sits_replay_write_csv_split(const sits_replay *r, const char *path, size_t hold_lo,
                                         size_t hold_hi, sits_err *err);

SITS_END_DECLS

#endif

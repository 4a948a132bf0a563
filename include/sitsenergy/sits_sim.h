/*
 * sits_sim.h - running a scenario: the coupled solve, its recording and summary.
 *
 * sits_run() integrates the scenario's network over [0, duration_s] with CVODE,
 * stopping exactly at every input breakpoint, and records temperatures and powers every
 * sample_period_s (plus the final time). The state is [T_1..T_N, E_in, E_amb]: the node
 * temperatures [degC] and two energy integrators [J] (heat put in, heat given to the
 * ambient), so the energy account closes: E_in = sum C_i dT_i + E_amb.
 *
 * Domains add power that depends on their OPP, utilisation and node temperature
 * (leakage); the governor picks OPPs once per period, and each tick is a breakpoint.
 *
 * sits_steady() solves G T = P(T) + g_amb T_amb for the time-averaged inputs.
 */
#ifndef SITS_SIM_H
#define SITS_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sits_ode.h"
#include "sits_scenario.h"
#include "sits_thermal.h"
#include "sits_version.h"
#include "sits_export.h"

SITS_BEGIN_DECLS

/** Why a run ended. */
typedef enum sits_end_reason {
  SITS_END_DURATION,
  SITS_END_CRITICAL_TEMP,
  SITS_END_BATTERY_CUTOFF,
  SITS_END_BROWNOUT,
  SITS_END_BATTERY_EMPTY /**< SOC reached 0 before the cell voltage reached cutoff_v */
} sits_end_reason;

/** Text of an end reason as the summary prints it ("duration", "critical_temp",
 *  "battery_cutoff", "brownout", "battery_empty"). */
SITS_API const char *sits_end_reason_name(sits_end_reason r);

/** One constraint of the summary. `set` is false when the scenario gives no limit. */
typedef struct sits_constraint {
  bool set;
  double limit, value;
  bool ok;
} sits_constraint;

typedef struct sits_summary {
  sits_end_reason end_reason;
  double simulated_s;
  double max_junction_temp_c; /**< peak over the junction nodes (all nodes if none marked) */
  double avg_power_w, peak_power_w, energy_j; /**< the board's (not the pack's own heat) */
  double tdp_w; /**< peak moving average of total power over tdp_window_s */
  double energy_stored_j, energy_to_ambient_j;
  /** |E_in + battery_heat_j - stored - to ambient| / E_in (0 when E_in = 0) */
  double energy_balance_rel;
  double time_to_throttle_s; /**< first tick limited by the thermal governor; NAN if never */
  double throttled_fraction; /**< share of time some domain ran below its base OPP */
  /* item-based workloads (domains with max_rate); NAN without them. A pipeline: every
   * item passes through each item domain, so items_done is the smallest count and the
   * latency is the sum of the stages' item-weighted service times 1000/(cap * max_rate). */
  double items_done, energy_per_item_mj, latency_ms, deficit_fraction;
  sits_constraint tdp, junction, latency, energy_per_item;
  /** min_battery_life_s: a lower bound, ok when value >= limit */
  sits_constraint battery_life;
  /** battery (has_battery false for a wall-powered platform) */
  bool has_battery, runtime_estimated;
  double final_soc, runtime_s, min_voltage_v, energy_drawn_wh;
  /** Energy of each DVFS domain [J] (idle, dynamic and leakage; the scenario's domain order),
   *  integrated by the trapezoid rule over the integrator's steps inside each interval of
   *  constant inputs; the rest of energy_j is static and traced power (the pack's heat is
   *  battery_heat_j, apart). */
  double domain_energy_j[SITS_MAX_DOMAINS];
  bool ok; /**< every constraint that is set holds */
  /** The fans in force (platform.fans, at most SITS_MAX_FANS, the scenario's order): each
   *  one's highest duty over the run and its duty averaged over the run's time. */
  size_t n_fans;
  double fan_max_duty[SITS_MAX_FANS], fan_mean_duty[SITS_MAX_FANS];
  /** The pack's Joule heat into the thermal network [J] (its own node or battery.node; 0 with
   *  the cells at the ambient or no battery). Not part of energy_j, avg_power_w or tdp_w,
   *  which are the board's. */
  double battery_heat_j;
  /** The junction temperature when the run ended (the hottest junction node then; all nodes
   *  if none is marked): where a long run settles, beside its peak. */
  double final_junction_temp_c;
} sits_summary;

/** One /events row. */
typedef struct sits_event {
  double time_s;
  char kind[32];
  char detail[128]; /**< the event in words */
  /** The same as fields (NAN / "" where they do not apply): what it is about (a domain for
   *  opp_change, a node for critical_temp, "pack" for the battery's, "thermal" or "power_cap"
   *  for throttling), the unit of value/from/limit, the new value (MHz, degC, V or W), the
   *  value before (opp_change), the limit reached (critical_c, cutoff_v) and the pack's SOC. */
  char subject[48];
  char unit[8];
  double value, from, limit, soc;
} sits_event;

/**
 * A 95 % band on a prediction (sits_run_bands, sits_steady_bands in sits_thermal_cal.h), on a
 * scenario that carries the uncertainty group a thermal calibration writes: the fitted
 * parameters' covariance propagated linearly (each parameter moved by its standard error, the
 * prediction made again: a secant sensitivity), combined with the calibration's own miss
 * (the widest sensor's 95th percentile of the training residuals):
 * half-width = sqrt(q95^2 + (1.96 sigma)^2) for temperatures, 1.96 sigma for times.
 */
typedef struct sits_band {
  bool set;        /**< false: no uncertainty group, no band */
  double level;    /**< 0.95 */
  size_t n_params; /**< parameters propagated (those with a standard error) */
  double residual_q95_c;
  double max_junction_temp_half_width_c;
  double time_to_throttle_half_width_s; /**< NAN when the run never throttles */
  double runtime_half_width_s;          /**< the battery's; NAN without one */
  /** The probability that the junction stays below max_junction_temp_c (the verdict's
   *  thermal part), from the band taken as Gaussian; NAN without that limit. */
  double p_junction_ok;
  /** The final junction temperature's half-width (sits_summary.final_junction_temp_c; NAN for
   *  a steady state, which has no end). */
  double final_junction_temp_half_width_c;
} sits_band;

typedef struct sits_result sits_result;

/** Called now and then during a run with the simulated time reached. */
typedef void (*sits_progress_fn)(double t_s, double end_s, void *user);

/** Receives recorded samples as the run goes: rows [first, first + count) of @p r, read with
 *  the sits_result_* accessors. Returns SITS_OK, or a status (with @p err filled) that stops
 *  the run. */
typedef int (*sits_sample_sink)(const sits_result *r, size_t first, size_t count, void *user,
                                sits_err *err);

/** A sink that drops every block: for a run whose summary, peaks and events are all that is
 *  wanted (a sweep row, a what-if without outputs), so that its memory does not grow with
 *  its length. Always SITS_OK. */
SITS_API int sits_sink_discard(const sits_result *r, size_t first, size_t count, void *user,
                               sits_err *err);

typedef struct sits_run_opts {
  sits_progress_fn progress; /**< NULL: none */
  void *progress_user;
  /** Streaming: every sample goes to @c sink in blocks of up to 4096, and the result keeps
   *  none (sits_result_sample_count() is 0 after the run) unless @c keep_samples, so that a
   *  long run's memory does not grow with its length. NULL: samples are kept. */
  sits_sample_sink sink;
  void *sink_user;
  bool keep_samples;
  /** Polled as the run goes (with the progress: after each step that advanced 1/1000 of the
   *  simulated time, and at least every 4096 steps): nonzero stops the run, which returns
   * SITS_ECANCELED and no result (an interpreter's Ctrl-C, a GUI's stop button). NULL: never. */
  int (*stop)(void *user);
  void *stop_user;
} sits_run_opts;

/**
 * Runs @p sc (opts may be NULL). On success *out is a new result to free with
 * sits_result_free(); @p sc must outlive it. SITS_ESOLVER when CVODE fails.
 */
SITS_API int sits_run(const sits_scenario *sc, const sits_run_opts *opts, sits_result **out,
                      sits_err *err);

/** Frees @p r; NULL is a no-op. */
SITS_API void sits_result_free(sits_result *r);

SITS_API size_t sits_result_sample_count(const sits_result *r);
/** Sample times [s] (borrowed, sample_count values). */
SITS_API const double *sits_result_time_s(const sits_result *r);
/** Temperature of node @p node at sample @p k [degC]. */
SITS_API double sits_result_temp_c(const sits_result *r, size_t k, size_t node);
/** Total power at sample @p k [W] (the input that holds at that time). */
SITS_API double sits_result_total_power_w(const sits_result *r, size_t k);
/** Power injected into node @p node at sample @p k [W] (static + workload). */
SITS_API double sits_result_node_power_w(const sits_result *r, size_t k, size_t node);
/** Power of domain @p d at sample @p k [W]. */
SITS_API double sits_result_domain_power_w(const sits_result *r, size_t k, size_t d);
/** Frequency of domain @p d at sample @p k [MHz]. */
SITS_API double sits_result_freq_mhz(const sits_result *r, size_t k, size_t d);
/** Battery state at sample @p k: SOC, pack terminal voltage [V], pack current [A]
 *  (discharge positive). Only with a battery. */
SITS_API double sits_result_battery_soc(const sits_result *r, size_t k);
SITS_API double sits_result_battery_voltage_v(const sits_result *r, size_t k);
SITS_API double sits_result_battery_current_a(const sits_result *r, size_t k);
/** Peak temperature of each node over the run [degC] (borrowed, n nodes). */
SITS_API const double *sits_result_peak_temp_c(const sits_result *r);
SITS_API const sits_summary *sits_result_summary(const sits_result *r);
/** The run's 95 % band (set by sits_run_bands; band->set false without). */
SITS_API const sits_band *sits_result_band(const sits_result *r);
SITS_API void sits_result_solver_stats(const sits_result *r, sits_ode_stats *stats);
/** The governor ticks the run evaluated, and those it skipped over spans where a bound from
 *  the network's exact response proved they change nothing (solver.skip_quiet_ticks). */
SITS_API void sits_result_ticks(const sits_result *r, size_t *evaluated, size_t *skipped);
SITS_API size_t sits_result_event_count(const sits_result *r);
SITS_API const sits_event *sits_result_event(const sits_result *r, size_t k);

/** Steady state of the time-averaged inputs. */
typedef struct sits_steady_state {
  size_t n;
  double *temp_c; /**< n node temperatures [degC] */
  double total_power_w;
  double ambient_c;             /**< the averaged ambient */
  double max_junction_temp_c;   /**< NAN on runaway */
  bool runaway;                 /**< no stable fixed point: leakage outgrows the package */
  size_t opp[SITS_MAX_DOMAINS]; /**< each domain's OPP (base governor, average demand;
                                    the thermal governor's limit: thermal_state) */
  double domain_power_w[SITS_MAX_DOMAINS]; /**< at the steady temperatures (NAN on runaway) */
  /** per platform fan (platform.fans, at most SITS_MAX_FANS): the duty at the steady state, from
   * its trips as the board warms up from the ambient (initial_duty without trips), and whether its
   *  trips cycle there (no steady state with the fan at one duty: the figures are at the
   *  highest duty of the cycle) */
  size_t n_fans;
  double fan_duty[SITS_MAX_FANS];
  bool fan_cycles[SITS_MAX_FANS];
  sits_band band; /**< sits_steady_bands: the steady junction's 95 % band */
  /** The thermal governor (step_wise at trip_c, power_allocator at control_c) where the base
   *  governor's OPPs would settle its sensor above that temperature (or run away): the
   *  cooling state it settles on, the lowest that keeps the sensor's steady temperature at or
   *  below it (every domain's highest allowed OPP thermal_state steps down; opp[] and the
   *  figures above are there); whether it cycles there (step_wise: below trip_c -
   *  hysteresis_c, so it steps back up, and the figures are the cycle's cooler end; the
   *  sensor then spends time at both ends, around trip_c), the sensor's steady temperature
   *  one state up (the cycle's warmer end; NAN: runaway there) and at the base OPPs (NAN:
   *  runaway). thermal_state 0: not limited (or no thermal governor). */
  size_t thermal_state;
  bool thermal_cycles;
  double warmer_sensor_c, unthrottled_sensor_c;
  /** The pack's Joule (and entropic) heat into its node [W]: the cells at the scenario's
   *  initial SOC under the average draw (total_power_w over the converter's efficiency), the
   *  RC pairs settled, at the node's steady temperature; 0 without a pack node (the cells at
   *  the ambient) or on a brown-out at that draw. Not in total_power_w, as in a run. */
  double battery_heat_w;
} sits_steady_state;

/** Solves the steady state of @p sc into @p st (release with sits_steady_release()). */
SITS_API int sits_steady(const sits_scenario *sc, sits_steady_state *st, sits_err *err);
SITS_API void sits_steady_release(sits_steady_state *st);

/**
 * The samples x *cols row-major block of the series @p what (borrowed, valid until the
 * result is freed): "temp_c" and "node_power_w" (a column per node), "domain_power_w" and
 * "freq_mhz" (per domain), "time_s", "total_power_w", "battery_soc", "battery_voltage_v",
 * "battery_current_a" (one column), "fan_duty" (per fan). NULL (and *cols 0) for an unknown
 * name or no battery.
 */
SITS_API const double *sits_result_series(const sits_result *r, const char *what, size_t *cols);
SITS_END_DECLS

#endif

/*
 * sits_sweep.h - a scenario over the Cartesian product of --vary values, one summary row per
 * combination (the `sweep` command's engine; the command adds processes and files).
 *
 * Rows are CSV: the varied values, then end_reason, simulated_s, max_junction_temp_c,
 * avg_power_w, peak_power_w, energy_j, tdp_w, time_to_throttle_s, throttled_fraction,
 * items_done, energy_per_item_mj, latency_ms, deficit_fraction, verdict_ok (1/0) and error
 * (the message when the combination failed; its other fields are then empty).
 */
#ifndef SITS_SWEEP_H
#define SITS_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sits_status.h"

SITS_BEGIN_DECLS

typedef struct sits_sweep sits_sweep;

/** A sweep of the scenario at @p scenario_path with the overrides @p sets (borrowed: they
 *  must outlive the sweep). NULL when out of memory. */
SITS_API sits_sweep *sits_sweep_new(const char *scenario_path, const char *const *sets,
                                    size_t n_sets, sits_err *err);
SITS_API void sits_sweep_free(sits_sweep *s);

/** Adds an axis: "KEY=V1,V2,..." or "KEY=START:STOP:COUNT" (COUNT values evenly spaced, ends
 *  included). SITS_EINPUT with the reason for a malformed axis or more than 8 axes. */
SITS_API int sits_sweep_vary(sits_sweep *s, const char *spec, sits_err *err);

/** The number of combinations (the product of the axes' lengths; 1 with no axis). */
/** A sampled key: "KEY=uniform(a,b)", "normal(mu,sigma)", "lognormal(mu,sigma)" (of the
 *  log), "triangular(a,c,b)" or "choice(v1,v2,...)"; SITS_EINPUT with the reason. */
SITS_API int sits_sweep_dist(sits_sweep *s, const char *spec, sits_err *err);
/** Draws @p n samples of the --dist keys with design @p method ("lhs", "sobol", "halton",
 *  "random") and @p seed; each grid point of the --vary axes runs every sample (the sample
 *  varies fastest). */
SITS_API int sits_sweep_sample(sits_sweep *s, size_t n, const char *method, unsigned long seed,
                               sits_err *err);
/** Each combination's time series (the run's HDF5 result file) to @p dir/<index>.h5,
 *  streamed as it runs (@p dir must exist and outlive the sweep; NULL: none). */
SITS_API void sits_sweep_series(sits_sweep *s, const char *dir);
SITS_API size_t sits_sweep_count(const sits_sweep *s);
/** The table's header line ("index,config_hash,...\n"), malloc'ed; NULL when out of memory. */
SITS_API char *sits_sweep_header(const sits_sweep *s);
/** Row @p idx's varied values as they appear in its row (CSV fields, comma-separated) into
 *  @p out; 0, or -1 when they do not fit. */
SITS_API int sits_sweep_row_values(const sits_sweep *s, size_t idx, char *out, size_t size);
/** The probabilistic summary of @p n rows (as sits_sweep_run_row wrote them; NULL rows are
 *  skipped) onto @p f, @p format "text" or "json": per numeric column mean, std and the
 *  5/50/95/99 % quantiles; per constraint (and the verdict) the share of rows violating it
 *  with a 95 % Wilson interval; failed rows counted apart. */
SITS_API int sits_sweep_write_stats(const sits_sweep *s, const char *const *rows, size_t n,
                                    const char *format, FILE *f, sits_err *err);

/** The CSV header line: the varied keys, then the summary columns. */
SITS_API int sits_sweep_write_header(const sits_sweep *s, FILE *f);

/** Runs combination @p idx (the last axis varies fastest) and writes its row. When every
 *  varied value is a number that sits_scenario_set_number() takes (ambient_c, a thermal
 *  link's resistance, a node's capacity or initial temperature), the scenario is loaded once
 *  (kept in @p s) and each row sets its values in memory; otherwise each row loads it with
 *  its values as --set. The rows are the same either way.
 *  SITS_OK with *violated set when a constraint failed; the failure's status when the
 *  combination could not run (the row then carries the message); SITS_EIO when writing fails. */
SITS_API int sits_sweep_run_row(sits_sweep *s, size_t idx, FILE *f, bool *violated);

SITS_END_DECLS

#endif

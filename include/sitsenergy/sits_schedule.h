/*
 * sits_schedule.h - piecewise-constant inputs (zero-order hold).
 *
 * A schedule is a list of segments. Segment k starts at start_s[k] and holds until the
 * next segment starts (the last one holds to the end of the run). Each segment carries
 * the value of every column and the ambient temperature [degC]. A column is either a
 * power [W] injected into one thermal node, or the demand of one DVFS domain (a fraction
 * of its capacity at f_max). Segment starts are the solver's breakpoints.
 */
#ifndef SITS_SCHEDULE_H
#define SITS_SCHEDULE_H

#include <stddef.h>

#include "sits_status.h"

SITS_BEGIN_DECLS

typedef struct sits_schedule sits_schedule;

/** What a column drives. */
typedef enum sits_column_kind {
  SITS_COLUMN_POWER_W = 0, /**< heat into thermal node `target` [W] */
  SITS_COLUMN_DEMAND = 1,  /**< demand of domain `target` [fraction of capacity at f_max] */
  SITS_COLUMN_FAN_DUTY = 2, /**< PWM duty of the platform's fan `target` [fraction 0-1] */
  SITS_COLUMN_FREQ_MHZ = 3, /**< a replay: domain `target` runs at the OPP nearest this [MHz] */
  SITS_COLUMN_UTIL = 4      /**< a replay: domain `target`'s utilisation [fraction 0-1] */
} sits_column_kind;

typedef struct sits_column {
  sits_column_kind kind;
  int target;
} sits_column;

/** A new empty schedule with @p n_cols columns (copied). NULL when out of memory. */
SITS_API sits_schedule *sits_schedule_new(size_t n_cols, const sits_column *cols);

/** Frees @p s; NULL is a no-op. */
SITS_API void sits_schedule_free(sits_schedule *s);

/**
 * Appends a segment starting at @p start_s (> the previous start, and 0 for the first)
 * with column values @p values (n_cols values, copied) and @p ambient_c. A segment whose
 * values equal the previous one's is merged into it, so it adds no breakpoint.
 * Returns SITS_OK, SITS_EINPUT (time not increasing, non-finite value) or SITS_ENOMEM.
 */
SITS_API int sits_schedule_append(sits_schedule *s, double start_s, const double *power_w,
                                  double ambient_c, sits_err *err);

/**
 * Makes the segments appended so far one cycle of @p period_s (after the last start) that
 * repeats until @p end_s: segment k of cycle c starts at c * period_s + its start in the
 * first cycle, with its values and ambient. The count becomes the segments that start before
 * @p end_s; the storage stays one cycle's, whatever the count (a cycle whose last segment
 * equals its first runs on until the next cycle's second starts, as appending would merge them).
 * Appending afterwards is refused, and sits_schedule_set_ambient_c() changes a segment in
 * every cycle. Nothing changes when no second cycle starts before @p end_s or the cycle is
 * one segment. Returns SITS_OK or SITS_EINPUT (repeating already, empty, a period not
 * after the last start, or more segments than a size_t counts).
 */
SITS_API int sits_schedule_repeat(sits_schedule *s, double period_s, double end_s, sits_err *err);

SITS_API size_t sits_schedule_segment_count(const sits_schedule *s);
SITS_API size_t sits_schedule_column_count(const sits_schedule *s);
/** Column @p j. */
SITS_API sits_column sits_schedule_column(const sits_schedule *s, size_t j);
SITS_API double sits_schedule_start_s(const sits_schedule *s, size_t k);
SITS_API double sits_schedule_ambient_c(const sits_schedule *s, size_t k);
/** Changes the ambient of segment @p k (no-op past the last segment); on a repeating
 * schedule, of that segment in every cycle. */
SITS_API void sits_schedule_set_ambient_c(sits_schedule *s, size_t k, double ambient_c);
/** Column values of segment @p k (borrowed, n_cols values). */
SITS_API const double *sits_schedule_values(const sits_schedule *s, size_t k);

/**
 * Adds the power columns of segment @p k into @p node_power_w (indexed by node).
 * The caller sets the base values (zero or static power) first.
 */
SITS_API void sits_schedule_add_node_power(const sits_schedule *s, size_t k, double *node_power_w);

/** Sets the demand columns of segment @p k into @p demand (indexed by domain). */
SITS_API void sits_schedule_set_demand(const sits_schedule *s, size_t k, double *demand);

/** Sum of the power columns of segment @p k [W]. */
SITS_API double sits_schedule_total_power_w(const sits_schedule *s, size_t k);

/** Index of the segment that holds at time @p t_s (the first one for t_s < 0). */
SITS_API size_t sits_schedule_find(const sits_schedule *s, double t_s);

/**
 * Time averages over [0, @p end_s] (end_s > 0): per column into @p avg (n_cols values)
 * and the ambient into *avg_ambient_c.
 */
SITS_API void sits_schedule_average(const sits_schedule *s, double end_s, double *avg,
                                    double *avg_ambient_c);

SITS_END_DECLS

#endif

/* thermal_internal.h - what thermal_auto.c takes from thermal_cal.c (not installed). */
#ifndef SITS_THERMAL_INTERNAL_H
#define SITS_THERMAL_INTERNAL_H
#include "sits_thermal_cal.h"

/* sits_calibrate_thermal from the scenario's own values alone (one start, no trip scan): a
 * fit warm-started where an earlier one ended. */
/* The scenario of @p o (its text when given, else its file) loaded with @p sets. */
int sits__cal_scenario(const sits_thermal_cal_opts *o, const char *const *sets, size_t n_sets,
                       sits_scenario **out, sits_err *err);
/** The forecast residuals' 95th percentile from @p n forecast blocks' percentiles @p q: their
 *  mean, a block over 3 times their median left out (a block fit that stopped in a far
 *  minimum); NAN for none. */
double sits__forecast_q95_of(const double *q, size_t n);
int sits__calibrate_thermal_warm(const sits_thermal_cal_opts *o, sits_thermal_cal *c,
                                 sits_err *err);

#endif

/*
 * sits_metrics.h - goodness of fit of a model series against a measured one (RMSE, MAE,
 * max |error|, bias, R^2), as battery fits, thermal fits and replays report it.
 */
#ifndef SITS_METRICS_H
#define SITS_METRICS_H

#include <stddef.h>

#include "sits_export.h"

SITS_BEGIN_DECLS

/** Goodness of fit, in the unit of the compared quantity (volts for a battery fit, kelvin for
 *  a thermal replay or fit): outputs name the unit (rmse_v, rmse_c). r2 is dimensionless. */
typedef struct sits_fit_metrics {
  double rmse, mae, max_abs_err, bias, r2;
  size_t n;
} sits_fit_metrics;

/** Metrics of @p model against @p meas over [from, to), pairs with a NAN skipped: RMSE, MAE,
 *  max |error|, bias (model - measured), R^2 and n. */
SITS_API void sits_fit_metrics_compute(const double *model, const double *meas, size_t from,
                                       size_t to, sits_fit_metrics *m);

SITS_END_DECLS

#endif

/* metrics.c - goodness of fit of a model series against a measured one (sits_metrics.h): the
 * figures every fit and replay reports. */
#include "sits_metrics.h"

#include <math.h>
#include <string.h>

void sits_fit_metrics_compute(const double *model, const double *meas, size_t from, size_t to,
                              sits_fit_metrics *m) {
  double sum = 0, sum2 = 0, abs_sum = 0, max_abs = 0, mean = 0;
  size_t n = 0;
  memset(m, 0, sizeof *m);
  for (size_t k = from; k < to; k++)
    if (!isnan(meas[k]) && !isnan(model[k]))
      mean += meas[k], n++;
  m->n = n;
  if (n == 0) {
    m->rmse = m->mae = m->max_abs_err = m->bias = m->r2 = NAN;
    return;
  }
  mean /= (double)n;
  double ss_tot = 0;
  for (size_t k = from; k < to; k++) {
    if (isnan(meas[k]) || isnan(model[k]))
      continue;
    double e = model[k] - meas[k];
    sum += e, sum2 += e * e, abs_sum += fabs(e);
    max_abs = fmax(max_abs, fabs(e));
    ss_tot += (meas[k] - mean) * (meas[k] - mean);
  }
  m->rmse = sqrt(sum2 / (double)n);
  m->mae = abs_sum / (double)n;
  m->max_abs_err = max_abs;
  m->bias = sum / (double)n;
  /* no spread to explain (a constant reading; rounding of the mean leaves ~1e-30): no R^2 */
  m->r2 = ss_tot > (double)n * 1e-24 * mean * mean ? 1.0 - sum2 / ss_tot : NAN;
}

/*
 * sits_battery_fit.h - identification of a cell's R0 and RC pairs (and optionally its
 * capacity) from a measured current/voltage test, with the cell's OCV table known.
 *
 * The model is driven by the measured current (zero-order hold between samples, discharge
 * positive): SOC falls by I dt / (3600 Q); each RC pair follows its exact update
 * V_k <- V_k e^{-dt/tau_k} + R_k I (1 - e^{-dt/tau_k}); V = OCV(SOC) - sum V_k - R0 I.
 * Parameters are fitted in log space (R0, R_k, tau_k = R_k C_k, Q) plus the initial SOC
 * (logit), by GSL multifit_nlinear from several starts, on the first train_fraction of the
 * samples; the rest is held out. Metrics: RMSE, MAE, max |error|, bias (model - measured),
 * R^2 and n, on both parts.
 */
#ifndef SITS_BATTERY_FIT_H
#define SITS_BATTERY_FIT_H

#include <stdbool.h>
#include <stddef.h>

#include "sits_battery.h"

typedef struct sits_fit_metrics {
  double rmse_v, mae_v, max_abs_err_v, bias_v, r2;
  size_t n;
} sits_fit_metrics;

typedef struct sits_battery_fit {
  size_t n_rc;
  double r0_ohm, rc_r_ohm[SITS_BATTERY_MAX_RC], rc_c_f[SITS_BATTERY_MAX_RC];
  double capacity_ah, initial_soc;
  sits_fit_metrics train, holdout;
  bool converged;
  size_t n_train;
  double *model_v; /**< the fitted model's voltage at every sample (n values, malloc'ed) */
} sits_battery_fit;

/**
 * Fits @p n_rc RC pairs to the samples (t_s, i_a, v_v; n of them, time increasing) of one
 * cell whose OCV table and capacity come from @p cell. @p fit_capacity also fits Q.
 * Release out->model_v with free().
 */
int sits_battery_fit_cell(const sits_battery_cfg *cell, const double *t_s, const double *i_a,
                          const double *v_v, size_t n, size_t n_rc, double train_fraction,
                          bool fit_capacity, sits_battery_fit *out, sits_err *err);

#endif

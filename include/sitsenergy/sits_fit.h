/*
 * sits_fit.h - nonlinear least squares: GSL's multifit_nlinear trust-region solver
 * (Levenberg-Marquardt, Jacobian by GSL's finite differences) behind a small interface.
 */
#ifndef SITS_FIT_H
#define SITS_FIT_H

#include <stdbool.h>
#include <stddef.h>

#include "sits_status.h"

SITS_BEGIN_DECLS

/** Residuals r (n_residuals) at parameters x (n_params). Return 0, or non-zero to fail. */
typedef int (*sits_fit_residual_fn)(const double *x, double *r, void *user);

typedef struct sits_fit_opts {
  size_t n_params, n_residuals;
  sits_fit_residual_fn residual;
  void *user;
  size_t max_iter; /**< 0: 200 */
  /** Not NULL: the reciprocal condition number of the Jacobian at the end (GSL's rcond; near
   *  0 when some parameter combination does not change the residuals: unidentifiable). */
  double *rcond_out;
  /** Not NULL: n_params values, each parameter's share of the Jacobian's weakest directions:
   *  the squared components of the right singular vectors whose singular values are at or
   *  below 1e-6 of the largest (or of the smallest one's, when none is), summed. */
  double *weak_out;
  /** Not NULL: n_params x n_params (row-major), the parameters' covariance at the end,
   *  s^2 (J^T J)^-1 with s^2 = sum r^2 / (n_residuals - n_params) (GSL's
   *  multifit_nlinear_covar). It treats the residuals as independent: for autocorrelated
   *  residuals (a time series) it is optimistic. A parameter GSL's pivoted QR drops as
   *  linearly dependent gets NAN in its row and column. */
  double *covar_out;
  /** Solve each step from the normal equations J^T J (GSL's modified Cholesky solver, which
   *  also takes a rank-deficient J^T J) instead of a pivoted QR of J: the QR's Householder
   *  sweeps over J cost O(n_residuals n_params^2) in level-2 passes each iteration, and for
   *  J of hundreds of thousands of rows and tens of columns they take most of the fit's time.
   *  J^T J squares the condition number: for well-scaled problems with many residuals. */
  bool normal_equations;
} sits_fit_opts;

/**
 * Minimises the sum of squared residuals from the start @p x (overwritten with the best
 * parameters). *cost_out: 0.5 * sum r^2 at the end; *converged: the solver met its
 * tolerances. SITS_ESOLVER when GSL fails outright, SITS_ENOMEM.
 */
SITS_API int sits_fit_nlinear(const sits_fit_opts *opts, double *x, double *cost_out,
                              bool *converged, sits_err *err);

SITS_END_DECLS

#endif

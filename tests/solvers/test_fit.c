/*
 * test_fit.c - sits_fit_nlinear (GSL multifit_nlinear behind solvers/sits_fit.h): an
 * exponential decay y = a exp(-t / tau) + c with a known deterministic disturbance is fitted
 * to the least-squares optimum, and the normal-equations solver (modified Cholesky of J^T J)
 * lands where the pivoted QR does.
 */
#include "test_util.h"

#include "sits_fit.h"

#define N 400

typedef struct decay {
  double t[N], y[N];
} decay;

static int residual(const double *x, double *r, void *user) {
  const decay *d = user;
  for (size_t k = 0; k < N; k++)
    r[k] = x[0] * exp(-d->t[k] / exp(x[1])) + x[2] - d->y[k];
  return 0;
}

/* a = 2, tau = 30, c = 0.5 plus +-1 mV alternating from sample to sample (nearly orthogonal
 * to the model's smooth directions): the fit lands within 1e-3 of the generating values with
 * the disturbance left as the residual; the two solvers agree to 1e-9. */
Test(fit, both_solvers_find_the_least_squares_point) {
  decay d;
  for (size_t k = 0; k < N; k++)
    d.t[k] = 0.5 * (double)k, d.y[k] = 2.0 * exp(-d.t[k] / 30.0) + 0.5 + (k % 2 ? 1e-3 : -1e-3);
  double x_qr[3] = {1.0, log(10.0), 0.0}, x_ne[3] = {1.0, log(10.0), 0.0}, cost_qr, cost_ne;
  bool conv_qr, conv_ne;
  sits_err err = {0};
  sits_fit_opts o = {3, N, residual, &d, 100, NULL, NULL, NULL, false};
  cr_assert_eq(sits_fit_nlinear(&o, x_qr, &cost_qr, &conv_qr, &err), SITS_OK, "%s", err.msg);
  o.normal_equations = true;
  cr_assert_eq(sits_fit_nlinear(&o, x_ne, &cost_ne, &conv_ne, &err), SITS_OK, "%s", err.msg);
  cr_log_info("QR: a %.9g tau %.9g c %.9g cost %.6g; Cholesky: a %.9g tau %.9g c %.9g cost %.6g",
              x_qr[0], exp(x_qr[1]), x_qr[2], cost_qr, x_ne[0], exp(x_ne[1]), x_ne[2], cost_ne);
  cr_assert(conv_qr && conv_ne);
  cr_assert_float_eq(x_qr[0], 2.0, 1e-3);
  cr_assert_float_eq(exp(x_qr[1]), 30.0, 30e-3);
  cr_assert_float_eq(x_qr[2], 0.5, 1e-3);
  /* the residual is the square wave at the optimum: 0.5 N (1 mV)^2 at most */
  cr_assert_leq(cost_qr, 0.5 * N * 1e-6 * 1.0001);
  for (size_t k = 0; k < 3; k++)
    cr_assert_float_eq(x_ne[k], x_qr[k], 1e-9 * fmax(1.0, fabs(x_qr[k])), "parameter %zu", k);
  cr_assert_float_eq(cost_ne, cost_qr, 1e-9 * cost_qr);
}

/*
 * sits_newton.h - F(x) = 0 for large systems with a sparse Jacobian of fixed pattern: SUNDIALS
 * KINSOL (Newton with a line search) and KLU. For the steady state of networks too large for
 * a dense Newton (grid floorplans: thousands of nodes, leakage on the silicon).
 */
#ifndef SITS_NEWTON_H
#define SITS_NEWTON_H

#include <stddef.h>

#include <gsl/gsl_spmatrix.h>

#include "sits_status.h"

SITS_BEGIN_DECLS

/** F at x into f; nonzero: F cannot be evaluated there (the step is shortened). */
typedef int (*sits_newton_fn)(const double *x, double *f, void *user);
/** The Jacobian at x: its values in the order of the pattern's compressed columns. */
typedef int (*sits_newton_jac_fn)(const double *x, double *values, void *user);

/**
 * Solves F(x) = 0 from the guess in @p x (n = pattern size), until max |F_i| <= @p ftol, in
 * at most @p max_iter Newton steps. SITS_OK converged; SITS_ESOLVER with KINSOL's reason
 * when it does not (x then holds the last iterate).
 */
SITS_API int sits_newton_solve(const gsl_spmatrix *pattern, sits_newton_fn f,
                               sits_newton_jac_fn jac, void *user, double ftol, long max_iter,
                               double *x, sits_err *err);

SITS_END_DECLS

#endif

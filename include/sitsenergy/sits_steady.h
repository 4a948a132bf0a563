/*
 * sits_steady.h - direct solution of the linear steady state A x = b.
 *
 * For the thermal network A is the conductance matrix G [W/K] and b = P + g_amb T_amb
 * [W], so x is the steady temperature [degC]. Small systems use GSL's dense LU, larger
 * ones KLU's sparse LU; both are direct (exact up to rounding).
 */
#ifndef SITS_STEADY_H
#define SITS_STEADY_H

#include <stddef.h>

#include <gsl/gsl_spmatrix.h>

#include "sits_status.h"

SITS_BEGIN_DECLS

/** Size from which sits_steady_solve() uses KLU instead of dense LU. */
#define SITS_STEADY_SPARSE_THRESHOLD 200

/**
 * Solves @p a (square, compressed column) x = @p b into @p x (n values each).
 * Returns SITS_OK, SITS_EINPUT when @p a is singular, or SITS_ENOMEM.
 */
SITS_API int sits_steady_solve(const gsl_spmatrix *a, const double *b, double *x, sits_err *err);

SITS_END_DECLS

#endif

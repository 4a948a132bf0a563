/*
 * sits_chol.h - sparse Cholesky factorisation of a symmetric positive definite matrix
 * (SuiteSparse CHOLMOD, supernodal, AMD ordering), for the large conduction networks of
 * floorplan grids: their conductance matrix G is SPD, and so is C + gamma G.
 *
 * Measured on the HotSpot ev6 grids (bench/hotspot.sh, one core): 64 x 64 x 4 layers
 * (16,396 unknowns) factorises in 0.14 s and solves in 1.5 ms, against KLU's 0.23 s and
 * 4.2 ms; 256 x 256 (262,156) in 3.2 s against ~25 s, growing about as n^1.1 where KLU's
 * AMD LU grows as n^1.6. Supernodal CHOLMOD is only fast with an optimised BLAS (the set-up
 * installs OpenBLAS): with the reference BLAS the 64 x 64 case takes 0.26 s.
 */
#ifndef SITS_CHOL_H
#define SITS_CHOL_H

#include <stddef.h>

#include <gsl/gsl_spmatrix.h>

#include "sits_status.h"

SITS_BEGIN_DECLS

typedef struct sits_chol sits_chol;

/**
 * Analyses and factorises S = diag(@p row_scale) A (row_scale NULL: S = A) for the
 * compressed-column @p a, whose product S must be symmetric positive definite (its upper
 * triangle is used). SITS_EINPUT when it is not positive definite.
 */
SITS_API sits_chol *sits_chol_new(const gsl_spmatrix *a, const double *row_scale, sits_err *err);
/** Refactorises with new values of the same pattern (the analysis is kept). */
SITS_API int sits_chol_factor(sits_chol *c, const gsl_spmatrix *a, const double *row_scale,
                              sits_err *err);
/** Solves S x = diag(@p b_scale) b (b_scale NULL: S x = b); x and b may be the same. */
SITS_API int sits_chol_solve(sits_chol *c, const double *b, const double *b_scale, double *x,
                             sits_err *err);
SITS_API void sits_chol_free(sits_chol *c);

SITS_END_DECLS

#endif

/* chol_impl.h - the entry points of the CHOLMOD module (chol_cholmod.c), one ops struct that
 * the module exports and chol.c loads (internal). */
#ifndef SITS_CHOL_IMPL_H
#define SITS_CHOL_IMPL_H

#include <gsl/gsl_spmatrix.h>

#include "status_internal.h"

#define SITS__CHOLMOD_MODULE "libsits_cholmod.so"
#define SITS__CHOLMOD_OPS "sits_cholmod_module_ops"

typedef struct sits__cholmod sits__cholmod;

typedef struct sits__cholmod_ops {
  /** Analyses and factors @p a (row-scaled by @p row_scale when not NULL). */
  sits__cholmod *(*create)(const gsl_spmatrix *a, const double *row_scale, sits_err *err);
  /** Refactors with new values on the same pattern. */
  int (*factor)(sits__cholmod *c, const gsl_spmatrix *a, const double *row_scale, sits_err *err);
  int (*solve)(sits__cholmod *c, const double *b, const double *b_scale, double *x, sits_err *err);
  void (*release)(sits__cholmod *c);
} sits__cholmod_ops;

#endif

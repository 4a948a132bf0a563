/*
 * sits_lti.h - fixed-step integration of a linear system with a constant Jacobian,
 * y' = f(t, y) with df/dy = J fixed, by SUNDIALS ARKODE (ARKStep, an L-stable stiffly
 * accurate ESDIRK table whose implicit stages share one diagonal coefficient gamma, marked
 * linear and time-independent) with KLU: the Newton matrix I - gamma h J is the same for
 * every stage of every step, so it is factorised once for the whole run and each implicit
 * stage costs one sparse solve.
 *
 * This is for networks whose sparse factorisation dominates (the 16,000-state HotSpot grid:
 * a KLU refactorisation costs ~30 solves, and CVODE's variable step needs hundreds of them
 * per second simulated). The step h is fixed; accuracy comes from the order of the table and
 * from placing steps on the input's breakpoints (the caller advances to them).
 */
#ifndef SITS_LTI_H
#define SITS_LTI_H

#include <stdbool.h>
#include <stddef.h>

#include "sits_ode.h"
#include "sits_export.h"

SITS_BEGIN_DECLS

typedef struct sits_lti sits_lti;

typedef struct sits_lti_opts {
  size_t n;
  const gsl_spmatrix *pattern; /**< CSC pattern of J */
  sits_ode_rhs_fn rhs;
  sits_ode_jac_fn jac; /**< called once */
  void *user;
  double h_s; /**< the fixed step */
  int order;  /**< 3 (ESDIRK3(2)4L[2]SA, 3 solves a step) or 4 (ESDIRK4(3)6L[2]SA, 5) */
  /** NULL: KLU on I - gamma h J. n positive values c with diag(c) (I - gamma h J) symmetric
   *  positive definite (a conduction network, c its heat capacities): CHOLMOD on that
   *  (sits_chol.h), ~3 x faster solves on large grids. Borrowed: kept alive by the caller. */
  const double *spd_scale;
  /** Optional: the caller's own solver of the Newton systems (I - gamma J) x = b, for a
   *  structure a general sparse factorisation cannot exploit (sits_layergrid.h). When set,
   *  pattern, jac and spd_scale are not used; lsetup is called with ARKODE's gamma (= h times
   *  the table's diagonal coefficient) before the first solve, and again if gamma changes. */
  int (*lsetup)(void *luser, double gamma, sits_err *err);
  int (*lsolve)(void *luser, const double *b, double *x, sits_err *err);
  void *luser;
  /** rhs does not depend on t, and its inputs change only between sits_lti_advance() calls
   *  (a zero-order hold): ARKODE's trivial predictor asks for f at a step's start once per
   *  stage (4 times a step at order 3), and the repeats of the last state are answered from
   *  a copy instead of calling rhs (the counters still count ARKODE's calls). */
  bool autonomous;
} sits_lti_opts;

SITS_API sits_lti *sits_lti_new(const sits_lti_opts *o, double t0, const double *y0, sits_err *err);
SITS_API void sits_lti_free(sits_lti *l);
/** Integrates to @p tout (a whole number of steps from the current time) into @p y. */
SITS_API int sits_lti_advance(sits_lti *l, double tout, double *y, sits_err *err);
/** Changes the fixed step (the next sits_lti_advance() counts whole steps of it). */
SITS_API int sits_lti_set_step(sits_lti *l, double h_s, sits_err *err);
/** Counters: steps, RHS evaluations, Jacobian evaluations and linear setups (as sits_ode). */
SITS_API void sits_lti_get_stats(const sits_lti *l, sits_ode_stats *st);

SITS_END_DECLS

#endif

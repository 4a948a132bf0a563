/* own_ls_impl.h - a caller's own Newton solver (a setup for gamma, then solves of
 * (I - gamma J) x = b) as a matrix-embedded SUNDIALS linear solver, for ARKODE (sits_lti.h)
 * and CVODE (sits_ode.h) alike (own_ls.c; internal). */
#ifndef SITS_OWN_LS_IMPL_H
#define SITS_OWN_LS_IMPL_H

#include <sundials/sundials_linearsolver.h>

#include "sits_status.h"

typedef struct sits__own_ls {
  /* the integrator's current gamma: ARKStepGetCurrentGamma or CVodeGetCurrentGamma */
  int (*gamma_of)(void *mem, realtype *gamma);
  void *mem;
  int (*lsetup)(void *luser, double gamma, sits_err *err);
  int (*lsolve)(void *luser, const double *b, double *x, sits_err *err);
  void *luser;
  /* 0: a setup whenever gamma moves (beyond 1e-9 relative: a step that lands on a stop time
   * differs from h by rounding). > 0: as CVODE does for its own matrices under BDF, a setup
   * when gamma has moved by more than dgmax from the last one, otherwise the last setup's
   * matrix with its solution scaled by 2 / (1 + gamma / gamma_setup); a setup is made at
   * gamma rounded to a power of sqrt(2) (at most 19 % away), so that as the step goes up and
   * down the same few values come back and a caller that keeps its setups reuses them. */
  double dgmax;
  /* kept by the solver */
  double gamma_setup; /* of the last setup (0: none) */
  long setups;        /* the caller's setups (the integrators count only those they ask for) */
  long last_flag;
  sits_err err; /* the caller's last failure */
} sits__own_ls;

/** A linear solver over a copy of @p init (its kept fields zeroed); NULL when out of memory.
 *  SUNLinSolFree frees the copy. */
SUNLinearSolver sits__own_ls_new(SUNContext ctx, const sits__own_ls *init);
/** The solver's state (setups, last failure). */
const sits__own_ls *sits__own_ls_of(SUNLinearSolver s);

#endif

/*
 * sits_ode.h - a stiff ODE integrator: CVODE (BDF, Newton) behind an opaque handle.
 *
 * The caller supplies the right-hand side y' = f(t, y), an analytic Jacobian through a
 * fixed sparsity pattern (compressed column), optional root functions, and tolerances.
 * The linear solver is dense LU for small systems and KLU sparse LU above a threshold, or the
 * caller's own (sits_ode_opts.lsolve).
 * The integrator advances one internal step at a time up to a stop time, so the caller
 * can stop exactly at input breakpoints and interpolate output samples in between.
 */
#ifndef SITS_ODE_H
#define SITS_ODE_H

#include <stdbool.h>
#include <stddef.h>

#include <gsl/gsl_spmatrix.h>

#include "sits_status.h"

SITS_BEGIN_DECLS

typedef struct sits_ode sits_ode;

/** y' = f(t, y): write n values into @p ydot. Return 0 ok, > 0 recoverable, < 0 fatal. */
typedef int (*sits_ode_rhs_fn)(double t, const double *y, double *ydot, void *user);
/** Jacobian df/dy: write the nnz values in the pattern's compressed-column order. */
typedef int (*sits_ode_jac_fn)(double t, const double *y, double *values, void *user);
/** Root functions: write n_roots values into @p g; a sign change is an event. */
typedef int (*sits_ode_root_fn)(double t, const double *y, double *g, void *user);

/** Linear solver choice. AUTO picks KLU when n >= klu_threshold. */
typedef enum sits_linsol { SITS_LINSOL_AUTO, SITS_LINSOL_DENSE, SITS_LINSOL_KLU } sits_linsol;

/** Default state count from which AUTO uses KLU. Measured with `bench/run.sh threshold`
 *  (one run, 2026-12-02; grids carry 2 package nodes and every system 2 energy states):
 *  8 states: dense 0.08 s, KLU 0.10 s; 12 (10-node chain, 360k breakpoints): dense 1.70 s,
 *  KLU 1.24 s; 13: 0.12 s vs 0.13 s; 20: 0.16 s vs 0.12 s; 104: 2.94 s vs 0.56 s. */
#define SITS_KLU_THRESHOLD_DEFAULT 12

typedef struct sits_ode_opts {
  size_t n;                    /**< number of states */
  const gsl_spmatrix *pattern; /**< CSC, n x n: where the Jacobian may be non-zero */
  sits_ode_rhs_fn rhs;
  sits_ode_jac_fn jac;
  void *user;         /**< passed to the callbacks (borrowed) */
  double rtol;        /**< relative tolerance */
  const double *atol; /**< n absolute tolerances (copied) */
  sits_linsol linsol;
  size_t klu_threshold; /**< 0: SITS_KLU_THRESHOLD_DEFAULT */
  int n_roots;          /**< 0: no root finding */
  sits_ode_root_fn roots;
  /* For linear systems with a constant Jacobian, whose matrix refactorisations dominate:
   * allow the Newton matrix to age (CVODE's defaults when 0). */
  double dgmax_lsetup;   /**< relative change of gamma that triggers a setup (CVODE: 0.3) */
  long lsetup_frequency; /**< steps between setups (CVODE: 20) */
  /** Optional: the caller's own solver of the Newton systems (I - gamma J) x = b, for a
   *  structure a general factorisation cannot exploit (sits_layergrid.h). lsetup is called
   *  with CVODE's gamma before the first solve and whenever gamma has moved by more than
   *  dgmax_lsetup since the last setup; lsolve solves with the last setup's matrix, and the
   *  solution is scaled by 2 / (1 + gamma / gamma_setup) as CVODE does for its own matrices
   *  under BDF. With it, jac, pattern, linsol and lsetup_frequency are not used. */
  int (*lsetup)(void *luser, double gamma, sits_err *err);
  int (*lsolve)(void *luser, const double *b, double *x, sits_err *err);
  void *luser;
} sits_ode_opts;

/** What sits_ode_step() reached. */
typedef enum sits_ode_event {
  SITS_ODE_STEPPED = 0, /**< an internal step before the stop time */
  SITS_ODE_STOP = 1,    /**< exactly the stop time */
  SITS_ODE_ROOT = 2     /**< a root; see sits_ode_roots_found() */
} sits_ode_event;

/** Solver counters, summed over re-initialisations. */
typedef struct sits_ode_stats {
  long steps, rhs_evals, jac_evals, lin_setups, err_test_fails, nonlin_iters, nonlin_conv_fails,
      reinits;
  bool sparse;        /**< true when KLU is in use */
  const char *method; /**< "cvode" or "exponential" (a static string; NULL: not set) */
} sits_ode_stats;

/**
 * A new integrator at (@p t0, @p y0). NULL on failure, with the reason in @p err.
 */
SITS_API sits_ode *sits_ode_new(const sits_ode_opts *opts, double t0, const double *y0,
                                sits_err *err);

/** Frees @p ode; NULL is a no-op. */
SITS_API void sits_ode_free(sits_ode *ode);

/** Restarts the integration at (@p t0, @p y0), e.g. after an input jump. */
SITS_API int sits_ode_reinit(sits_ode *ode, double t0, const double *y0, sits_err *err);

/**
 * Takes one internal step towards @p tstop (never past it). Stores the time reached in
 * *t_out (also when the step fails: where the solver stopped), what was reached in *event,
 * and the state in sits_ode_state().
 * Returns SITS_OK or SITS_ESOLVER with CVODE's message in @p err.
 */
SITS_API int sits_ode_step(sits_ode *ode, double tstop, double *t_out, sits_ode_event *event,
                           sits_err *err);

/** The state at the time last returned by sits_ode_step() (borrowed, n values). */
SITS_API const double *sits_ode_state(const sits_ode *ode);
/** That time. */
SITS_API double sits_ode_time(const sits_ode *ode);

/** Interpolates the state at @p t within the last step into @p y (n values). */
SITS_API int sits_ode_interpolate(sits_ode *ode, double t, double *y, sits_err *err);

/** After SITS_ODE_ROOT: which roots crossed (n_roots ints, non-zero where crossed). */
SITS_API int sits_ode_roots_found(sits_ode *ode, int *found);

/** The counters so far. */
SITS_API void sits_ode_get_stats(const sits_ode *ode, sits_ode_stats *stats);

SITS_END_DECLS

#endif

/*
 * sits_expint.h - an exponential integrator for small stiff systems whose stiffness is in a
 * (nearly) linear part: y' = f(y) = A y + F(y), A a frozen Jacobian of f, F the remainder
 * (the constant inputs and what A does not capture: leakage curvature, the battery).
 *
 * Scheme: the second-order exponential Runge-Kutta method ETD2RK (Cox and Matthews 2002),
 *   a       = y_n + h phi1(hA) f(y_n)                          (exponential Euler)
 *   y_n+1   = a + h phi2(hA) (F(a) - F(y_n))
 * with phi1(z) = (e^z - 1)/z and phi2(z) = (e^z - 1 - z)/z^2. When f is linear with constant
 * input and A is its Jacobian, F is constant and the step is the exact zero-order-hold update
 * for any h (no stability or accuracy limit from the stiff part). Otherwise the method is of
 * order 2 (local error O(h^3)). The error estimate of a step (weighted RMS with rtol and
 * atol as CVODE's, the step accepted when <= 1) is that of the second-order solution carried
 * on: ETD2RK takes F as linear in time over the step, and misses h^3 (phi3 - phi2 / 2) F'' of
 * the solution, at most h^3 / 12 |F''| for a dissipative A, F'' from the change of the
 * secant slope (F(a) - F(y_n)) / h between consecutive steps (taken twice, and never below a
 * tenth of the first-order solution's error). The first step after an input change, a new A
 * or a root has no such neighbour: its estimate is the correction h phi2 (F(a) - F(y_n)), the
 * difference between the first- and second-order solutions, which bounds the first's local
 * error and so the second's. (Until 2026-12-07 every step took that one: on the ev6 block
 * network throttling at 55 C, whose remainder is the leakage's e^{0.036 K^-1 T}, 41,230 steps
 * against 26,645 now, the peak 1.4e-6 K and 1.6e-6 K from a CVODE run at rtol 1e-11, atol
 * 1e-9; CVODE at the default tolerances 5.8e-6 K.)
 *
 * Step control keeps the step lengths few so that phi1 and phi2 can be cached: an interval
 * of length L (from the current time to the stop time) is crossed in steps of lengths
 * L / 2^k; a rejected step first refreshes A at the current state (when A is older than that
 * state), then halves; an accepted step whose estimate is below 2^-order (1/4 for the
 * first-order solution's estimate, 1/8 for the curvature's) doubles the step as soon
 * as what is left of the interval is a whole number of doubled steps (a transient after an
 * input change is crossed in short steps, the rest of the interval in long ones); after an
 * input change (sits_expint_reinit()) the first step is at most twice the first step taken
 * after the previous change, when that one was shorter than its interval. The matrices h phi1(hA)
 * and h phi2(hA) are cached per (A, h) in a small least-recently-used table; they are computed by
 * scaling and squaring of their Taylor series (Skaflestad and Wright 2009: phi1(2X) = (e^X + I)
 * phi1(X) / 2, phi2(2X) = (phi1(X)^2 + 2 phi2(X)) / 4) with GSL's BLAS (OpenBLAS's dgemm from 32
 * states when the system has it; SITS_EXPINT_BLAS=gsl keeps GSL's). Cost: O(n^3) per new (A, h),
 * three O(n^2) products and two right-hand sides per step. From 32 states the dense products
 * run on AVX2 with FMA where the processor has both, the remainder's take only its nonzero
 * columns, A's run along its rows, the Taylor part's products with hA run on A's sparse rows,
 * and an interval no cached length divides into powers of two runs on a cached length that
 * divides it until its extra steps would have paid for its own phi pairs
 * (SITS_EXPINT_PLAIN=1: the plain loops at any size; =simd: without AVX2). Meant for up to a
 * few hundred states (SITS_EXPINT_MAX_STATES).
 *
 * Roots: after every step the root functions are compared with those at its start; on a
 * sign change the crossing is located by GSL's Brent solver on an ETD2RK step of the partial
 * length from the step's start to 1e-7 s, and the step ends just past the crossing.
 */
#ifndef SITS_EXPINT_H
#define SITS_EXPINT_H

#include <stddef.h>

#include "sits_ode.h"

SITS_BEGIN_DECLS

/** The largest system the exponential path takes (dense n x n phi matrices). */
#define SITS_EXPINT_MAX_STATES 400
/** The largest system solver.method = "auto" gives the exponential path; CVODE (with KLU)
 *  above. Its O(n^2) steps and O(n^3) phi computations lose to CVODE's sparse algebra on
 *  large sparse networks: see `bench/run.sh threshold` and the README's benchmark table. */
#define SITS_EXPINT_AUTO_MAX_STATES 64

/** The largest system the modal form takes (its eigen-decomposition is O(m^3)). */
#define SITS_EXPINT_MODAL_MAX_STATES 4096

typedef struct sits_expint sits_expint;

/** The modal form: the first m states are a thermal network C T' = -G T + (the rest), C
 *  diagonal and positive, G symmetric, and the states after them read T linearly (their rows
 *  of A: W) and are read by nobody (energy integrals). A is then taken as that linear part,
 *  A = [-C^-1 G, 0; W, 0], once: the remainder F = f - A y holds the inputs and what depends
 *  on T otherwise (leakage), and the Jacobian callback is not called. Every phi function of
 *  A is diagonal in the network's modes (S = C^-1/2 G C^-1/2 = Q V Lambda V^T Q^T, computed
 *  once): a phi pair costs O(m) for any length, and a product with one two transforms of
 *  O(m^2 / blocks), where the dense form computes n x n matrices by O(n^3) squarings. With
 *  the network's mirror symmetries (two reflections of a HotSpot grid, given as
 *  permutations and checked) S splits into up to four blocks. For networks of a few hundred
 *  states and more (a 12 x 12 HotSpot grid: 588), up to SITS_EXPINT_MODAL_MAX_STATES. */
typedef struct sits_expint_modal {
  size_t m;                /**< the thermal states: the system's first m */
  const double *c;         /**< m heat capacities [J/K] */
  const gsl_spmatrix *g;   /**< m x m conductances [W/K], symmetric, CSC */
  const double *w;         /**< (n - m) x m row-major: W (NULL: zero) */
  const size_t *mirror[2]; /**< optional involutions of 0..m-1 that leave c and g as they are */
} sits_expint_modal;

typedef struct sits_expint_opts {
  size_t n;
  const gsl_spmatrix *pattern; /**< CSC pattern of the Jacobian */
  sits_ode_rhs_fn rhs;
  sits_ode_jac_fn jac; /**< values on the pattern: A is taken from it */
  void *user;
  double rtol;
  const double *atol; /**< n values (copied) */
  int n_roots;
  sits_ode_root_fn roots;
  const sits_expint_modal *modal; /**< the modal form (NULL: A from the Jacobian, dense) */
} sits_expint_opts;

SITS_API sits_expint *sits_expint_new(const sits_expint_opts *o, double t0, const double *y0,
                                      sits_err *err);
SITS_API void sits_expint_free(sits_expint *e);
/** The inputs changed at (@p t0, @p y0): f is evaluated afresh; A and the cache are kept. */
SITS_API int sits_expint_reinit(sits_expint *e, double t0, const double *y0, sits_err *err);
/** The linear part changed (not only the inputs): A is taken again at the current state (its
 *  phi matrices are computed again as they are needed). */
SITS_API int sits_expint_refresh(sits_expint *e, sits_err *err);
/** As sits_ode_step(): one step towards @p tstop, never past it. */
SITS_API int sits_expint_step(sits_expint *e, double tstop, double *t_out, sits_ode_event *event,
                              sits_err *err);
SITS_API const double *sits_expint_state(const sits_expint *e);
/** Per component, the largest value inside the last step (n values, borrowed): the ends, or
 *  an interior maximum of the cubic Hermite interpolant when the slope turns from rising to
 *  falling. For peak temperatures between step ends. */
SITS_API const double *sits_expint_step_max(const sits_expint *e);
/** The state at @p t inside the last step: its dense output (sits_expint_dense()). */
SITS_API int sits_expint_interpolate(sits_expint *e, double t, double *y, sits_err *err);
/** Dense output: the state at @p t inside the last step [t_prev, t] into @p y. An ETD2RK step
 *  of length h is the exact solution of u' = A u + F(y_prev) + (s/h) (F(a) - F(y_prev)),
 *  s in [0, h] (the remainder taken linear in time), so the state inside is that system's
 *  exact solution: second order like the step, and equal to the step's end at s = h. It is
 *  marched from a cursor (the last point asked for): requests at increasing times cost two
 *  n x n products each, with the phi matrices of the distance cached (equal distances, as
 *  governor ticks, share them). With @p ymax (may be NULL), per component the largest value
 *  between the previous request and @p t (ends, and the Hermite interpolant's interior
 *  maximum with the system's slopes). */
SITS_API int sits_expint_dense(sits_expint *e, double t, double *y, double *ymax, sits_err *err);
/** The integrator's time (the end of its last step). */
SITS_API double sits_expint_time(const sits_expint *e);
/** The step length the error control would try next (INFINITY before it has a preference). */
SITS_API double sits_expint_step_hint(const sits_expint *e);
/** steps, rhs_evals, jac_evals (refreshes of A), lin_setups (phi computations),
 *  err_test_fails, reinits. */
SITS_API void sits_expint_get_stats(const sits_expint *e, sits_ode_stats *st);

/** h phi1(hA) and h phi2(hA) for a dense n x n row-major A (either output may be NULL).
 *  For tests and for callers with their own stepping. */
SITS_API int sits_expint_phi(size_t n, const double *a, double h, double *hphi1, double *hphi2,
                             sits_err *err);

SITS_END_DECLS

#endif

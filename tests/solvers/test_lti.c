/*
 * test_lti.c - the fixed-step ESDIRK integrator for linear constant-Jacobian systems against
 * the closed form of a two-node RC chain driven by a piecewise-constant input: the error
 * falls with the step at the table's order, and the Newton matrix is set up once. And CVODE
 * (sits_ode.h) with the same caller's own Newton solver, stepping freely.
 */
#include "test_util.h"

#include "sits_lti.h"

/* C1 T1' = P - g12 (T1 - T2), C2 T2' = g12 (T1 - T2) - g2 T2: C = (1, 10), g12 = 2, g2 = 0.5 */
typedef struct chain {
  double p;
} chain;

static int rhs(double t, const double *y, double *ydot, void *user) {
  (void)t;
  const chain *c = user;
  ydot[0] = c->p - 2.0 * (y[0] - y[1]);
  ydot[1] = (2.0 * (y[0] - y[1]) - 0.5 * y[1]) / 10.0;
  return 0;
}

static int jac(double t, const double *y, double *v, void *user) {
  (void)t, (void)y, (void)user;
  /* CSC of [[-2, 2], [0.2, -0.25]]: column 0 rows 0, 1; column 1 rows 0, 1 */
  v[0] = -2.0, v[1] = 0.2, v[2] = 2.0, v[3] = -0.25;
  return 0;
}

/* The exact state after holding p for time s from y (2x2 matrix exponential by GSL). */
static void exact(double p, double s, double *y) {
  gsl_matrix *a = gsl_matrix_alloc(2, 2), *e = gsl_matrix_alloc(2, 2);
  double av[4] = {-2.0 * s, 2.0 * s, 0.2 * s, -0.25 * s};
  for (int k = 0; k < 4; k++)
    gsl_matrix_set(a, (size_t)k / 2, (size_t)k % 2, av[k]);
  gsl_linalg_exponential_ss(a, e, GSL_PREC_DOUBLE);
  /* steady state for p: T2 = p / 0.5, T1 = T2 + p / 2 */
  double ss[2] = {p / 0.5 + p / 2.0, p / 0.5}, d[2] = {y[0] - ss[0], y[1] - ss[1]};
  for (int i = 0; i < 2; i++)
    y[i] = ss[i] + gsl_matrix_get(e, (size_t)i, 0) * d[0] + gsl_matrix_get(e, (size_t)i, 1) * d[1];
  gsl_matrix_free(a), gsl_matrix_free(e);
}

/* The caller's own Newton solver: (I - gamma J)^-1 of the 2 x 2 J in closed form */
typedef struct own {
  double inv[4];
  long setups;
  bool ladder; /* every gamma so far a power of sqrt(2) */
} own;

static int own_setup(void *user, double gamma, sits_err *err) {
  (void)err;
  own *o = user;
  double a = 1.0 + 2.0 * gamma, b = -2.0 * gamma, c = -0.2 * gamma, d = 1.0 + 0.25 * gamma;
  double det = a * d - b * c;
  o->inv[0] = d / det, o->inv[1] = -b / det, o->inv[2] = -c / det, o->inv[3] = a / det;
  double k = 2.0 * log2(gamma);
  o->ladder = (o->setups == 0 || o->ladder) && fabs(k - round(k)) <= 1e-9;
  o->setups++;
  return SITS_OK;
}

static int own_solve(void *user, const double *b, double *x, sits_err *err) {
  (void)err;
  const own *o = user;
  double x0 = o->inv[0] * b[0] + o->inv[1] * b[1], x1 = o->inv[2] * b[0] + o->inv[3] * b[1];
  x[0] = x0, x[1] = x1;
  return SITS_OK;
}

enum { KLU, CHOLMOD, OWN };

static double run(int order, int substeps, int solver, long *setups) {
  bool spd = solver == CHOLMOD;
  own ow = {0};
  gsl_spmatrix *pat = gsl_spmatrix_alloc(2, 2);
  for (size_t i = 0; i < 2; i++)
    for (size_t j = 0; j < 2; j++)
      gsl_spmatrix_set(pat, i, j, 1.0);
  gsl_spmatrix *csc = gsl_spmatrix_compress(pat, GSL_SPMATRIX_CSC);
  chain c = {0};
  double y[2] = {0, 0}, ref[2] = {0, 0};
  static const double cap[2] = {1.0, 10.0}; /* diag(C) J is symmetric: CHOLMOD applies */
  sits_lti_opts o = {.n = 2,
                     .pattern = csc,
                     .rhs = rhs,
                     .jac = jac,
                     .user = &c,
                     .h_s = 1.0 / substeps,
                     .order = order,
                     .spd_scale = spd ? cap : NULL};
  if (solver == OWN)
    o.lsetup = own_setup, o.lsolve = own_solve, o.luser = &ow, o.pattern = NULL, o.jac = NULL;
  sits_err err = {0};
  sits_lti *l = sits_lti_new(&o, 0.0, y, &err);
  cr_assert_not_null(l, "%s", err.msg);
  const double p[] = {3.0, 0.0, 5.0, 1.0, 4.0, 0.5};
  double worst = 0;
  for (size_t k = 0; k < 6; k++) {
    c.p = p[k];
    cr_assert_eq(sits_lti_advance(l, (double)(k + 1), y, &err), SITS_OK, "%s", err.msg);
    exact(p[k], 1.0, ref);
    worst = fmax(worst, fmax(fabs(y[0] - ref[0]), fabs(y[1] - ref[1])));
  }
  sits_ode_stats st;
  sits_lti_get_stats(l, &st);
  *setups = st.lin_setups;
  if (solver == OWN)
    cr_assert_eq(st.lin_setups, ow.setups, "the counters report the caller's setups");
  cr_assert_eq(st.steps, 6 * substeps);
  sits_lti_free(l);
  gsl_spmatrix_free(pat), gsl_spmatrix_free(csc);
  return worst;
}

Test(lti, converges_at_its_order_with_one_setup) {
  long setups;
  static const char *names[] = {"KLU", "CHOLMOD", "own"};
  double by_solver[3];
  for (int k = 0; k < 6; k++) {
    int order = 3 + k % 2, solver = k / 2;
    double e1 = run(order, 4, solver, &setups);
    cr_assert_eq(setups, 1);
    double e2 = run(order, 8, solver, &setups);
    double rate = log2(e1 / e2);
    if (order == 3)
      by_solver[solver] = e1;
    cr_log_info("order %d, %s: error %.3e (h = 1/4), %.3e (h = 1/8), observed order %.2f", order,
                names[solver], e1, e2, rate);
    /* the observed order within half an order of the table's */
    cr_assert_gt(rate, order - 0.5, "order %d observed %g", order, rate);
    cr_assert_lt(e2, 1e-3);
  }
  /* the same steps whatever solves the Newton systems: the errors agree to rounding */
  cr_assert_float_eq(by_solver[OWN], by_solver[KLU], 1e-12 * by_solver[KLU]);
  cr_assert_float_eq(by_solver[CHOLMOD], by_solver[KLU], 1e-12 * by_solver[KLU]);
  /* a step that does not divide the interval is refused */
  gsl_spmatrix *pat = gsl_spmatrix_alloc(2, 2);
  for (size_t i = 0; i < 2; i++)
    for (size_t j = 0; j < 2; j++)
      gsl_spmatrix_set(pat, i, j, 1.0);
  gsl_spmatrix *csc = gsl_spmatrix_compress(pat, GSL_SPMATRIX_CSC);
  chain c = {1.0};
  double y[2] = {0, 0};
  sits_lti_opts o = {
      .n = 2, .pattern = csc, .rhs = rhs, .jac = jac, .user = &c, .h_s = 0.3, .order = 3};
  sits_err err = {0};
  sits_lti *l = sits_lti_new(&o, 0.0, y, &err);
  cr_assert_not_null(l);
  cr_assert_neq(sits_lti_advance(l, 1.0, y, &err), SITS_OK);
  cr_assert(strstr(err.msg, "not a whole number"), "%s", err.msg);
  sits_lti_free(l);
  gsl_spmatrix_free(pat), gsl_spmatrix_free(csc);
}

/* CVODE (sits_ode.h) with the caller's own Newton solver, stepping freely: the same chain
 * over the six 1-s segments (a restart at each), against the closed form at every segment's
 * end and, on the dense output, at its middle. At rtol 1e-9 and atol 1e-9 the worst error
 * measured is ~1e-8 (states of a few units); the bound is 1e-6. The setups come at powers
 * of sqrt(2) (sits_ode rounds gamma so a caller can keep its setups), far fewer than steps. */
Test(ode, own_newton_solver) {
  own ow = {0};
  chain c = {0};
  double y[2] = {0, 0}, ref[2], mid[2], at[2];
  static const double atol[2] = {1e-9, 1e-9};
  sits_ode_opts o = {.n = 2,
                     .rhs = rhs,
                     .user = &c,
                     .rtol = 1e-9,
                     .atol = atol,
                     .lsetup = own_setup,
                     .lsolve = own_solve,
                     .luser = &ow};
  sits_err err = {0};
  sits_ode *ode = sits_ode_new(&o, 0.0, y, &err);
  cr_assert_not_null(ode, "%s", err.msg);
  const double p[] = {3.0, 0.0, 5.0, 1.0, 4.0, 0.5};
  double worst = 0;
  for (size_t k = 0; k < 6; k++) {
    c.p = p[k];
    if (k)
      cr_assert_eq(sits_ode_reinit(ode, (double)k, y, &err), SITS_OK, "%s", err.msg);
    double t = (double)k, t_mid = t + 0.5;
    memcpy(mid, y, sizeof y);
    exact(p[k], 0.5, mid);
    bool mid_seen = false;
    sits_ode_event ev = SITS_ODE_STEPPED;
    while (ev != SITS_ODE_STOP) {
      cr_assert_eq(sits_ode_step(ode, (double)(k + 1), &t, &ev, &err), SITS_OK, "%s", err.msg);
      if (!mid_seen && t >= t_mid) {
        cr_assert_eq(sits_ode_interpolate(ode, t_mid, at, &err), SITS_OK, "%s", err.msg);
        worst = fmax(worst, fmax(fabs(at[0] - mid[0]), fabs(at[1] - mid[1])));
        mid_seen = true;
      }
    }
    cr_assert_float_eq(sits_ode_time(ode), (double)(k + 1), 1e-12);
    memcpy(ref, y, sizeof y);
    exact(p[k], 1.0, ref);
    memcpy(y, sits_ode_state(ode), sizeof y);
    worst = fmax(worst, fmax(fabs(y[0] - ref[0]), fabs(y[1] - ref[1])));
  }
  sits_ode_stats st;
  sits_ode_get_stats(ode, &st);
  cr_log_info("own solver: worst %.3g, %ld steps, %ld setups", worst, st.steps, st.lin_setups);
  cr_assert_leq(worst, 1e-6);
  cr_assert(ow.ladder, "a setup off the sqrt(2) ladder");
  cr_assert_eq(st.lin_setups, ow.setups);
  cr_assert_lt(4 * st.lin_setups, st.steps, "%ld setups for %ld steps", st.lin_setups, st.steps);
  sits_ode_free(ode);
}

/* the chain's right-hand side, counting its calls */
typedef struct counted {
  chain c;
  long calls;
} counted;

static int counted_rhs(double t, const double *y, double *ydot, void *user) {
  counted *k = user;
  k->calls++;
  return rhs(t, y, ydot, &k->c);
}

/* Starts at the steady state of p = 3 (f = 0 exactly, so the state repeats bit for bit across
 * the first interval), then holds 5, 0, 4 for an interval each; the states after each one. */
static long held_inputs(bool autonomous, double y_out[4][2]) {
  gsl_spmatrix *pat = gsl_spmatrix_alloc(2, 2);
  for (size_t i = 0; i < 2; i++)
    for (size_t j = 0; j < 2; j++)
      gsl_spmatrix_set(pat, i, j, 1.0);
  gsl_spmatrix *csc = gsl_spmatrix_compress(pat, GSL_SPMATRIX_CSC);
  counted k = {{3.0}, 0};
  double y[2] = {3.0 / 0.5 + 3.0 / 2.0, 3.0 / 0.5};
  sits_lti_opts o = {.n = 2,
                     .pattern = csc,
                     .rhs = counted_rhs,
                     .jac = jac,
                     .user = &k,
                     .h_s = 0.25,
                     .order = 3,
                     .autonomous = autonomous};
  sits_err err = {0};
  sits_lti *l = sits_lti_new(&o, 0.0, y, &err);
  cr_assert_not_null(l, "%s", err.msg);
  const double p[4] = {3.0, 5.0, 0.0, 4.0};
  for (int i = 0; i < 4; i++) {
    k.c.p = p[i];
    cr_assert_eq(sits_lti_advance(l, (double)(i + 1), y_out[i], &err), SITS_OK, "%s", err.msg);
  }
  sits_lti_free(l);
  gsl_spmatrix_free(pat), gsl_spmatrix_free(csc);
  return k.calls;
}

/* With a right-hand side that does not depend on t, the repeats of the last state (the
 * trivial predictor's, one per stage) are answered from a copy: the same states to the bit,
 * a quarter of the calls, and an input changed between advances is seen even when the state
 * has not moved (the copy is dropped at each advance). */
Test(lti, autonomous_rhs_repeats_are_answered_from_a_copy) {
  double plain[4][2], kept[4][2];
  long calls_plain = held_inputs(false, plain), calls_kept = held_inputs(true, kept);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 2; j++)
      cr_assert_eq(kept[i][j], plain[i][j], "interval %d node %d: %.17g vs %.17g", i, j, kept[i][j],
                   plain[i][j]);
  cr_assert_eq(kept[0][0], 7.5, "the steady state held (%.17g)", kept[0][0]);
  double ref[2] = {7.5, 6.0}; /* p = 5 held for 1 s after the steady state of 3 */
  exact(5.0, 1.0, ref);
  cr_assert_gt(ref[0], 7.5 + 0.5);
  cr_assert_leq(fabs(kept[1][0] - ref[0]), 1e-3, "%.6f against the closed form's %.6f", kept[1][0],
                ref[0]);
  /* 16 steps of 4 calls each (and a start-up call); with the copy one computed a step, none
   * while the state stands still (the first interval) */
  cr_log_info("rhs calls: %ld without the copy, %ld with it", calls_plain, calls_kept);
  cr_assert_geq(calls_plain, 64);
  cr_assert_leq(calls_kept, calls_plain / 3, "%ld calls, %ld without the copy", calls_kept,
                calls_plain);
  cr_assert_geq(calls_kept, 12);
}

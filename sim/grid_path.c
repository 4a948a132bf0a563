/*
 * grid_path.c - the fast path of a run on a layered-grid network (a HotSpot grid floorplan):
 * ARKODE's additive Runge-Kutta pair ARK4(3)6L[2]SA at a fixed step, the conduction network
 * implicit and solved by the layered-grid solver (sits_layergrid.h: (C + gamma G) x = C b by
 * cosine transforms, no sparse factorisation), everything else explicit: domain powers with
 * their temperature-dependent leakage, traced and static powers. Leakage is far slower than
 * the cells' conduction modes (its slope per cell is ~1e-3 of the cell's conductance on
 * HotSpot's ev6), so the explicit part is not stiff; the implicit part is linear, one solve a
 * stage. Steps are equal within an interval between breakpoints, at most SUBSTEP_S long;
 * the interval's step is kept while the interval lengths repeat (governor ticks), so the
 * grid solver is set up once. There is no error estimate: the step is fixed, so "auto" takes
 * this path only when a governor ticks at least every 0.1 s (short intervals anyway); long
 * constant intervals are CVODE's (it lengthens its steps there).
 *
 * Splitting of y' = f(y), y = [T, E_in, E_amb]:
 *   implicit  T' = C^-1 (g_amb T_amb - G T),  E_amb' = g_amb . (T - T_amb),  E_in' = 0
 *   explicit  the rest, f(y) - implicit(y): node powers / C, and E_in' = total power
 * Newton systems of the implicit part: (C + gamma G) x_T = C b_T, x_in = b_in,
 * x_amb = b_amb + gamma g_amb . x_T (exact: that part is linear).
 *
 * No roots: scenarios with a battery or a node with critical_c take CVODE or the exponential
 * path (SITS_EUNSUPPORTED here; HotSpot platforms have no critical_c key today).
 */
#include "run_impl.h"
#include "status_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sits_layergrid.h"
#include "sits_lti.h"

/* The longest step. Measured on ev6_floorplan_throttle as a 32 x 32 grid (20 s, 10-ms
 * governor), worst sample against CVODE at rtol 1e-9: the third-order pair at 2.5 / 5 / 10 ms
 * 5e-5 / 2.6e-4 / 1.6e-3 K (4.97 / 2.67 / 1.61 s), the fourth-order pair at 5 / 10 ms
 * 6.5e-6 / 1.7e-5 K (3.38 / 1.93 s); CVODE at the default tolerances 2.5e-5 K in 3.4 s. On a
 * 16 x 12 grid switched on from 45 C (tests/hotspot), 1.9 mK at the 10-ms samples (3.7 mK
 * for the third order at 5 ms). The L-stable, stiffly accurate pair damps the cells' ~1-ms
 * modes; the error is in the steps right after a power step, hence the ramp. */
#define SUBSTEP_S 1e-2

/* After an input change the steps start at SUBSTEP_S / 2^RAMP and double up to SUBSTEP_S:
 * a power step re-excites the cells' ~1-ms modes, which a 10-ms step would smear (2 K on
 * the first 10-ms sample of a 16 x 12 grid switched on, tests/hotspot). */
#define RAMP 5
/* Grid solvers set up for the ramp's step lengths, kept (one per gamma). */
#define LG_SLOTS (RAMP + 3)

struct sits__grid {
  run *rn;
  size_t n, ny;
  sits_layergrid *lg; /* the current one: lgs[k] */
  sits_layergrid *lgs[LG_SLOTS];
  double lg_gamma[LG_SLOTS];
  unsigned long lg_used[LG_SLOTS], clock;
  size_t rows, cols;
  double level; /* the ramp's current step */
  sits_lti *lt;
  gsl_spmatrix *g;
  double *c, *g_amb, *lbuf, *y, *y_prev;
  double t, t_prev, h, gamma;
};

/* The silicon layer's rows and columns from its last cell's name, L0_<rows-1>_<cols-1>. */
static bool grid_dims(const sits_thermal *th, size_t n, size_t *rows, size_t *cols) {
  if (n < 12 + 4 * 4 || (n - 12) % 4)
    return false;
  size_t cells = (n - 12) / 4;
  unsigned r, c;
  char tail;
  const char *name = sits_thermal_name(th, (int)(cells - 1));
  if (!name || sscanf(name, "L0_%u_%u%c", &r, &c, &tail) != 2)
    return false;
  *rows = (size_t)r + 1, *cols = (size_t)c + 1;
  return *rows * *cols == cells;
}

/* The implicit part at y (see the header). */
static void implicit_part(const sits__grid *gp, const double *y, double *out) {
  const run *rn = gp->rn;
  size_t n = gp->n;
  sits_layergrid_apply(gp->lg, y, out);
  double to_amb = 0;
  for (size_t i = 0; i < n; i++) {
    double q = gp->g_amb[i] * (y[i] - rn->ambient_c);
    to_amb += q;
    out[i] = (gp->g_amb[i] * rn->ambient_c - out[i]) / gp->c[i];
  }
  out[rn->lay.i_e_in] = 0;
  out[rn->lay.i_e_out] = to_amb;
}

static int fi(double t, const double *y, double *ydot, void *user) {
  (void)t;
  implicit_part(user, y, ydot);
  return 0;
}

/* The explicit part: the node powers (no battery on this path) and their sum. */
static int fe(double t, const double *y, double *ydot, void *user) {
  (void)t;
  sits__grid *gp = user;
  run *rn = gp->rn;
  double total = sits__run_node_power(rn, y);
  for (size_t i = 0; i < gp->n; i++)
    ydot[i] = rn->node_power_w[i] / gp->c[i];
  ydot[rn->lay.i_e_in] = total;
  ydot[rn->lay.i_e_out] = 0;
  return 0;
}

/* The grid solver for C + gamma G: one of the kept ones, or the least recently used one
 * set up again. */
static int lsetup(void *user, double gamma, sits_err *err) {
  sits__grid *gp = user;
  gp->gamma = gamma;
  int lru = 0;
  for (int k = 0; k < LG_SLOTS; k++) {
    if (gp->lgs[k] && fabs(gp->lg_gamma[k] - gamma) <= 1e-9 * gamma) {
      gp->lg = gp->lgs[k];
      gp->lg_used[k] = ++gp->clock;
      return SITS_OK;
    }
    if (gp->lg_used[k] < gp->lg_used[lru])
      lru = k;
  }
  if (!gp->lgs[lru] &&
      !(gp->lgs[lru] = sits_layergrid_new(gp->g, gp->c, gp->rows, gp->cols, 4, err)))
    return err->code;
  int rc = sits_layergrid_setup(gp->lgs[lru], 1.0, gamma, err);
  gp->lg_gamma[lru] = rc == SITS_OK ? gamma : NAN;
  gp->lg_used[lru] = ++gp->clock;
  gp->lg = gp->lgs[lru];
  return rc;
}

static int lsolve(void *user, const double *b, double *x, sits_err *err) {
  sits__grid *gp = user;
  const run *rn = gp->rn;
  size_t n = gp->n;
  double b_in = b[rn->lay.i_e_in], b_amb = b[rn->lay.i_e_out];
  for (size_t i = 0; i < n; i++)
    gp->lbuf[i] = gp->c[i] * b[i];
  int rc = sits_layergrid_solve(gp->lg, gp->lbuf, x, err);
  if (rc)
    return rc;
  double gamma = gp->gamma, s = 0; /* the last setup's: sits_lti keeps them in step */
  for (size_t i = 0; i < n; i++)
    s += gp->g_amb[i] * x[i];
  x[rn->lay.i_e_in] = b_in;
  x[rn->lay.i_e_out] = b_amb + gamma * s;
  return SITS_OK;
}

void sits__grid_free(sits__grid *gp) {
  if (!gp)
    return;
  sits_lti_free(gp->lt);
  for (int k = 0; k < LG_SLOTS; k++)
    sits_layergrid_free(gp->lgs[k]);
  gsl_spmatrix_free(gp->g);
  free(gp->c), free(gp->g_amb), free(gp->lbuf), free(gp->y), free(gp->y_prev);
  free(gp);
}

int sits__grid_new(run *rn, const double *y0, sits__grid **out, sits_err *err) {
  *out = NULL;
  size_t rows, cols, n = rn->n;
  if (rn->batt || rn->n_crit || !grid_dims(rn->th, n, &rows, &cols))
    return sits__fail(err, SITS_EUNSUPPORTED,
                      "not a layered grid without a battery or critical temperatures");
  sits__grid *gp = calloc(1, sizeof *gp);
  if (!gp)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  gp->rn = rn;
  gp->n = n;
  gp->ny = rn->lay.ny;
  gp->c = malloc(n * sizeof(double));
  gp->g_amb = malloc(n * sizeof(double));
  gp->lbuf = malloc(n * sizeof(double));
  gp->y = malloc(gp->ny * sizeof(double));
  gp->y_prev = malloc(gp->ny * sizeof(double));
  gp->g = sits_thermal_conductance(rn->th);
  if (!gp->c || !gp->g_amb || !gp->lbuf || !gp->y || !gp->y_prev || !gp->g) {
    sits__grid_free(gp);
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  }
  for (size_t i = 0; i < n; i++) {
    gp->c[i] = sits_thermal_capacity_j_per_k(rn->th, (int)i);
    gp->g_amb[i] = sits_thermal_ambient_conductance_w_per_k(rn->th, (int)i);
  }
  sits_err quiet = {0};
  if (!(gp->lg = gp->lgs[0] = sits_layergrid_new(gp->g, gp->c, rows, cols, 4, &quiet))) {
    sits__grid_free(gp);
    return sits__fail(err, SITS_EUNSUPPORTED, "not a layered grid: %s", quiet.msg);
  }
  gp->lg_gamma[0] = NAN;
  gp->rows = rows, gp->cols = cols;
  memcpy(gp->y, y0, gp->ny * sizeof(double));
  gp->h = gp->level = ldexp(SUBSTEP_S, -RAMP);
  sits_lti_opts lo = {.n = gp->ny,
                      .rhs = fi,
                      .rhs_explicit = fe,
                      .user = gp,
                      .h_s = gp->h,
                      .order = 4,
                      .lsetup = lsetup,
                      .lsolve = lsolve,
                      .luser = gp};
  if (!(gp->lt = sits_lti_new(&lo, 0.0, y0, err))) {
    sits__grid_free(gp);
    return err->code;
  }
  *out = gp;
  return SITS_OK;
}

void sits__grid_reinit(sits__grid *gp) {
  gp->level = ldexp(SUBSTEP_S, -RAMP);
}

/* One step towards tstop: the ramp's step, or what is left of the interval. */
int sits__grid_step(sits__grid *gp, double tstop, double *t_out, sits_ode_event *ev,
                    sits_err *err) {
  *t_out = gp->t;
  *ev = SITS_ODE_STOP;
  double len = tstop - gp->t;
  if (!(len > 0))
    return SITS_OK;
  double h = gp->level;
  double m = len <= h * (1 + 1e-9) ? 1 : 2;
  if (m < 2)
    h = len;
  else if (len < 2 * h) /* two equal steps rather than a sliver */
    h = len / 2;
  if (fabs(h - gp->h) > 1e-9 * h) {
    int rc = sits_lti_set_step(gp->lt, h, err);
    if (rc)
      return rc;
    gp->h = h;
  }
  gp->level = fmin(SUBSTEP_S, 2 * gp->level);
  double tout = m <= 1 ? tstop : gp->t + gp->h;
  memcpy(gp->y_prev, gp->y, gp->ny * sizeof(double));
  gp->t_prev = gp->t;
  int rc = sits_lti_advance(gp->lt, tout, gp->y, err);
  if (rc)
    return rc;
  gp->t = tout;
  *ev = tout == tstop ? SITS_ODE_STOP : SITS_ODE_STEPPED;
  *t_out = gp->t;
  return SITS_OK;
}

const double *sits__grid_state(const sits__grid *gp) {
  return gp->y;
}

/* Linear between the last step's ends (the path stops at sample times: rarely used). */
int sits__grid_interpolate(sits__grid *gp, double t, double *y, sits_err *err) {
  if (!(t >= gp->t_prev && t <= gp->t))
    return sits__fail(err, SITS_ESOLVER, "grid path: cannot interpolate at t = %.9g s", t);
  double th = gp->t > gp->t_prev ? (t - gp->t_prev) / (gp->t - gp->t_prev) : 1;
  for (size_t j = 0; j < gp->ny; j++)
    y[j] = gp->y_prev[j] + th * (gp->y[j] - gp->y_prev[j]);
  return SITS_OK;
}

void sits__grid_stats(const sits__grid *gp, sits_ode_stats *st) {
  sits_lti_get_stats(gp->lt, st);
}

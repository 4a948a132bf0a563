/*
 * transient.c - transients of a floorplan network, one sampling interval at a time with the
 * power held (docs/hotspot-model.md 4.9, B10): the block model by the exact zero-order hold
 * (eigen-decomposition), the grid model by ARKODE's ESDIRK over the layered-grid solver or
 * CHOLMOD, or by CVODE with KLU.
 */
#define _POSIX_C_SOURCE 200809L
#include "hs_impl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>

#include "sits_chol.h"
#include "sits_layergrid.h"
#include "sits_lti.h"
#include "sits_ode.h"
#include "sits_steady.h"

/* ---- transients ----------------------------------------------------------------------- */

struct sits_hs_transient {
  const sits_hs_network *net;
  size_t n;
  double dt, t;
  double *state, *g_amb, *c, *inv_c, *tmp;
  double *src_w; /* this interval's node powers plus g_amb T_amb [W]: the RHS's constant part */
  /* block model: e^{A dt} and G^-1 (dense) */
  gsl_matrix *expm, *ginv;
  /* grid model: CVODE */
  gsl_spmatrix *g;
  double *jac_values;
  sits_ode *ode;
  sits_lti *lti;      /* grid, fixed step */
  sits_layergrid *lg; /* its Newton systems C + gamma G, when the grid has that structure:
                         then the fixed-step state is in its mode coordinates */
  long steps;
};

/* e^{A dt} = C^-1/2 V e^{-L dt} V^T C^1/2 and G^-1 = C^-1/2 V L^-1 V^T C^-1/2 from the
 * eigen-decomposition S = C^-1/2 G C^-1/2 = V L V^T (symmetric positive definite). */
static int exact_setup(sits_hs_transient *tr, sits_err *err) {
  size_t n = tr->n;
  gsl_matrix *s = gsl_matrix_calloc(n, n), *v = gsl_matrix_alloc(n, n);
  gsl_matrix *w = gsl_matrix_alloc(n, n);
  gsl_vector *lam = gsl_vector_alloc(n);
  gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(n);
  tr->expm = gsl_matrix_alloc(n, n);
  tr->ginv = gsl_matrix_alloc(n, n);
  int rc = SITS_OK;
  if (!s || !v || !w || !lam || !ws || !tr->expm || !tr->ginv)
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  if (rc == SITS_OK) {
    for (size_t col = 0; col < n; col++)
      for (int p = tr->g->p[col]; p < tr->g->p[col + 1]; p++) {
        size_t row = (size_t)tr->g->i[p];
        gsl_matrix_set(s, row, col, tr->g->data[p] / sqrt(tr->c[row] * tr->c[col]));
      }
    if (gsl_eigen_symmv(s, lam, v, ws))
      rc = sits__fail(err, SITS_ESOLVER, "the eigen-decomposition of the network failed");
  }
  for (size_t k = 0; rc == SITS_OK && k < n; k++)
    if (!(gsl_vector_get(lam, k) > 0))
      rc = sits__fail(err, SITS_ESOLVER, "the network is not grounded (eigenvalue %g)",
                      gsl_vector_get(lam, k));
  if (rc == SITS_OK) {
    /* W = V e^{-L dt}: then expm = C^-1/2 W V^T C^1/2 */
    for (size_t i = 0; i < n; i++)
      for (size_t k = 0; k < n; k++)
        gsl_matrix_set(w, i, k, gsl_matrix_get(v, i, k) * exp(-gsl_vector_get(lam, k) * tr->dt));
    gsl_blas_dgemm(CblasNoTrans, CblasTrans, 1.0, w, v, 0.0, tr->expm);
    for (size_t i = 0; i < n; i++)
      for (size_t k = 0; k < n; k++)
        gsl_matrix_set(w, i, k, gsl_matrix_get(v, i, k) / gsl_vector_get(lam, k));
    gsl_blas_dgemm(CblasNoTrans, CblasTrans, 1.0, w, v, 0.0, tr->ginv);
    for (size_t i = 0; i < n; i++)
      for (size_t j = 0; j < n; j++) {
        double ci = sqrt(tr->c[i]), cj = sqrt(tr->c[j]);
        gsl_matrix_set(tr->expm, i, j, gsl_matrix_get(tr->expm, i, j) * cj / ci);
        gsl_matrix_set(tr->ginv, i, j, gsl_matrix_get(tr->ginv, i, j) / (ci * cj));
      }
  }
  gsl_matrix_free(s), gsl_matrix_free(v), gsl_matrix_free(w);
  gsl_vector_free(lam);
  if (ws)
    gsl_eigen_symmv_free(ws);
  return rc;
}

/* y' = C^-1 (P + g_amb T_amb - G y), the bracket's constant part set once an interval */
static int grid_rhs(double t, const double *y, double *ydot, void *user) {
  (void)t;
  sits_hs_transient *tr = user;
  const gsl_spmatrix *g = tr->g;
  if (tr->lg) { /* G y in mode coordinates; C is uniform per layer, src_w in modes */
    sits_layergrid_apply_modes(tr->lg, y, ydot);
    for (size_t i = 0; i < tr->n; i++)
      ydot[i] = (tr->src_w[i] - ydot[i]) * tr->inv_c[i];
  } else { /* G is symmetric: its column i is its row i, and a gather beats a scatter */
    for (size_t i = 0; i < tr->n; i++) {
      double s = tr->src_w[i];
      for (int p = g->p[i]; p < g->p[i + 1]; p++)
        s -= g->data[p] * y[g->i[p]];
      ydot[i] = s * tr->inv_c[i];
    }
  }
  return 0;
}

static int grid_jac(double t, const double *y, double *values, void *user) {
  (void)t, (void)y;
  const sits_hs_transient *tr = user;
  memcpy(values, tr->jac_values, tr->g->nz * sizeof *values);
  return 0;
}

/* the constant Jacobian -C^-1 G in G's pattern, for CVODE and the CHOLMOD ESDIRK */
static int jac_setup(sits_hs_transient *tr, sits_err *err) {
  if (!(tr->jac_values = malloc(tr->g->nz * sizeof *tr->jac_values)))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t col = 0; col < tr->n; col++)
    for (int p = tr->g->p[col]; p < tr->g->p[col + 1]; p++)
      tr->jac_values[p] = -tr->g->data[p] * tr->inv_c[tr->g->i[p]];
  return SITS_OK;
}

static int ode_setup(sits_hs_transient *tr, double rtol, sits_err *err) {
  double *atol = malloc(tr->n * sizeof *atol);
  int rc = atol ? jac_setup(tr, err) : sits__fail(err, SITS_ENOMEM, "out of memory");
  if (rc) {
    free(atol);
    return rc;
  }
  for (size_t i = 0; i < tr->n; i++)
    atol[i] = rtol * 100.0; /* kelvin: rtol 1e-5 holds 1e-3 K, a tenth of HotSpot's print */
  sits_ode_opts o = {.n = tr->n,
                     .pattern = tr->g,
                     .rhs = grid_rhs,
                     .jac = grid_jac,
                     .user = tr,
                     .rtol = rtol,
                     .atol = atol,
                     .linsol = SITS_LINSOL_KLU,
                     /* the Jacobian is constant and a KLU refactorisation of the 64 x 64 grid
                      * costs ~30 solves: let the Newton matrix age until gamma doubles
                      * (measured on 5 ev6 intervals: 27 setups instead of 50, 5.5 s instead
                      * of 10.2 s, the same 0.01 K from HotSpot's output) */
                     .dgmax_lsetup = 1.0};
  tr->ode = sits_ode_new(&o, 0.0, tr->state, err);
  free(atol);
  return tr->ode ? SITS_OK : SITS_ESOLVER;
}

/* (I - gamma J) x = b with J = -C^-1 G is (C + gamma G) x = C b */
static int lg_setup(void *user, double gamma, sits_err *err) {
  sits_hs_transient *tr = user;
  return sits_layergrid_setup(tr->lg, 1.0, gamma, err);
}

static int lg_solve(void *user, const double *b, double *x, sits_err *err) {
  sits_hs_transient *tr = user;
  for (size_t i = 0; i < tr->n; i++)
    x[i] = tr->c[i] * b[i];
  return sits_layergrid_solve_modes(tr->lg, x, x, err);
}

static int lti_setup(sits_hs_transient *tr, const sits_hs_transient_opts *o, sits_err *err) {
  const sits_hs_params *prm = sits_hs_params_of(tr->net);
  sits_err quiet = {0}; /* not a layered grid: CHOLMOD */
  if (!o->general &&
      (tr->lg = sits_layergrid_new(tr->g, tr->c, prm->grid_rows, prm->grid_cols, 4, &quiet))) {
    /* ARKODE's state lives in mode coordinates (the transforms once an interval, not twice
     * a stage). Fixed steps on a problem marked linear (one Newton iteration a stage): the
     * steps do not depend on the weighted norms, which differ in these coordinates (the
     * ev6 64 x 64 run: 400 steps either way, outputs equal to 6 decimals). */
    double *y0 = malloc(tr->n * sizeof *y0);
    if (!y0)
      return sits__fail(err, SITS_ENOMEM, "out of memory");
    sits_layergrid_to_modes(tr->lg, tr->state, y0);
    sits_lti_opts lo = {.n = tr->n,
                        .rhs = grid_rhs,
                        .user = tr,
                        .h_s = tr->dt / (o->substeps > 0 ? o->substeps : 4),
                        .order = o->order ? o->order : 3,
                        .lsetup = lg_setup,
                        .lsolve = lg_solve,
                        .luser = tr,
                        .autonomous = true};
    tr->lti = sits_lti_new(&lo, 0.0, y0, err);
    free(y0);
    return tr->lti ? SITS_OK : SITS_ESOLVER;
  }
  int rc = jac_setup(tr, err);
  if (rc)
    return rc;
  sits_lti_opts lo = {.n = tr->n,
                      .pattern = tr->g,
                      .rhs = grid_rhs,
                      .jac = grid_jac,
                      .user = tr,
                      .h_s = tr->dt / (o->substeps > 0 ? o->substeps : 4),
                      .order = o->order ? o->order : 3,
                      /* C (I - gamma h J) = C + gamma h G is SPD: CHOLMOD */
                      .spd_scale = tr->c,
                      .autonomous = true};
  tr->lti = sits_lti_new(&lo, 0.0, tr->state, err);
  return tr->lti ? SITS_OK : SITS_ESOLVER;
}

static int transient_make(const sits_hs_network *net, double dt_s, const double *node_k0,
                          const sits_hs_transient_opts *o, sits_hs_transient **out, sits_err *err) {
  static const sits_hs_transient_opts none = {0};
  if (!o)
    o = &none;
  double rtol = o->rtol;
  *out = NULL;
  if (!(dt_s > 0))
    return sits__fail(err, SITS_EINPUT, "the sampling interval must be > 0");
  sits_hs_transient *tr = calloc(1, sizeof *tr);
  if (!tr)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  const sits_thermal *th = sits_hs_thermal(net);
  tr->net = net;
  tr->n = sits_hs_node_count(net);
  tr->dt = dt_s;
  size_t n = tr->n;
  tr->state = malloc(n * sizeof(double));
  tr->src_w = calloc(n, sizeof(double));
  tr->g_amb = malloc(n * sizeof(double));
  tr->c = malloc(n * sizeof(double));
  tr->inv_c = malloc(n * sizeof(double));
  tr->tmp = malloc(n * sizeof(double));
  tr->g = sits_thermal_conductance(th);
  int rc = tr->state && tr->src_w && tr->g_amb && tr->c && tr->inv_c && tr->tmp && tr->g
               ? SITS_OK
               : sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t i = 0; rc == SITS_OK && i < n; i++) {
    tr->state[i] = node_k0[i];
    tr->g_amb[i] = sits_thermal_ambient_conductance_w_per_k(th, (int)i);
    tr->c[i] = sits_thermal_capacity_j_per_k(th, (int)i);
    tr->inv_c[i] = 1.0 / tr->c[i];
  }
  if (rc == SITS_OK)
    rc = sits_hs_model_of(net) == SITS_HS_BLOCK ? exact_setup(tr, err)
         : !o->cvode                            ? lti_setup(tr, o, err)
                                                : ode_setup(tr, rtol > 0 ? rtol : 1e-5, err);
  if (rc) {
    sits_hs_transient_free(tr);
    return rc;
  }
  *out = tr;
  return SITS_OK;
}

sits_hs_transient *sits_hs_transient_new(const sits_hs_network *net, double dt_s,
                                         const double *node_k0, const sits_hs_transient_opts *o,
                                         sits_err *err) {
  sits_hs_transient *tr = NULL;
  return transient_make(net, dt_s, node_k0, o, &tr, err) ? NULL : tr;
}

void sits_hs_transient_free(sits_hs_transient *tr) {
  if (!tr)
    return;
  free(tr->state), free(tr->src_w), free(tr->g_amb), free(tr->c), free(tr->inv_c), free(tr->tmp);
  free(tr->jac_values);
  sits_layergrid_free(tr->lg);
  if (tr->expm)
    gsl_matrix_free(tr->expm);
  if (tr->ginv)
    gsl_matrix_free(tr->ginv);
  if (tr->g)
    gsl_spmatrix_free(tr->g);
  sits_ode_free(tr->ode);
  sits_lti_free(tr->lti);
  free(tr);
}

int sits_hs_transient_step(sits_hs_transient *tr, const double *block_w, double *node_k,
                           sits_err *err) {
  size_t n = tr->n;
  sits_hs_power_map(tr->net, block_w, tr->src_w);
  double amb = sits_hs_params_of(tr->net)->ambient_k;
  for (size_t i = 0; i < n; i++)
    tr->src_w[i] += tr->g_amb[i] * amb;
  if (tr->expm) {
    /* T_inf = G^-1 (P + g_amb T_amb); T <- T_inf + e^{A dt} (T - T_inf) */
    gsl_vector_view src = gsl_vector_view_array(tr->src_w, n);
    gsl_vector_view tinf = gsl_vector_view_array(node_k, n);
    gsl_blas_dgemv(CblasNoTrans, 1.0, tr->ginv, &src.vector, 0.0, &tinf.vector);
    for (size_t i = 0; i < n; i++)
      tr->tmp[i] = tr->state[i] - node_k[i];
    gsl_vector_view b = gsl_vector_view_array(tr->tmp, n);
    gsl_vector_view s = gsl_vector_view_array(tr->state, n);
    gsl_vector_memcpy(&s.vector, &tinf.vector);
    gsl_blas_dgemv(CblasNoTrans, 1.0, tr->expm, &b.vector, 1.0, &s.vector);
    memcpy(node_k, tr->state, n * sizeof *node_k);
    tr->t += tr->dt;
    tr->steps++;
    return SITS_OK;
  }
  if (tr->lti) { /* fixed steps land on the interval's end */
    if (tr->lg)
      sits_layergrid_to_modes(tr->lg, tr->src_w, tr->src_w);
    int rc = sits_lti_advance(tr->lti, tr->t + tr->dt, tr->state, err);
    if (rc)
      return rc;
    if (tr->lg)
      sits_layergrid_from_modes(tr->lg, tr->state, tr->state);
    memcpy(node_k, tr->state, n * sizeof *node_k);
    tr->t += tr->dt;
    return SITS_OK;
  }
  int rc = tr->t > 0 ? sits_ode_reinit(tr->ode, tr->t, tr->state, err) : SITS_OK;
  double t_end = tr->t + tr->dt, t = tr->t;
  sits_ode_event ev = SITS_ODE_STEPPED;
  while (rc == SITS_OK && ev != SITS_ODE_STOP)
    rc = sits_ode_step(tr->ode, t_end, &t, &ev, err);
  if (rc)
    return rc;
  memcpy(tr->state, sits_ode_state(tr->ode), n * sizeof *tr->state);
  memcpy(node_k, tr->state, n * sizeof *node_k);
  tr->t = t_end;
  return SITS_OK;
}

void sits_hs_transient_stats(const sits_hs_transient *tr, sits_hs_stats *st) {
  memset(st, 0, sizeof *st);
  if (tr->expm) {
    st->method = "exact-zoh";
    st->steps = tr->steps;
    return;
  }
  sits_ode_stats s;
  if (tr->lti)
    sits_lti_get_stats(tr->lti, &s);
  else
    sits_ode_get_stats(tr->ode, &s);
  st->method = tr->lg    ? "arkode-esdirk-layergrid"
               : tr->lti ? "arkode-esdirk-cholmod"
                         : "cvode-bdf-klu";
  st->steps = s.steps, st->rhs_evals = s.rhs_evals, st->jac_evals = s.jac_evals;
  st->lin_setups = s.lin_setups;
}

/*
 * ode.c - CVODE (BDF with Newton iteration) behind sits_ode (see sits_ode.h).
 *
 * The Jacobian comes from the caller as values on a fixed compressed-column pattern;
 * this file scatters them into CVODE's dense or sparse matrix. CVODE's counters restart
 * at every CVodeReInit, so they are accumulated here before each restart.
 */
#include "sits_ode.h"
#include "status_internal.h"
#include "nvec_impl.h"
#include "own_ls_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>

struct sits_ode {
  SUNContext ctx;
  void *cvode;
  N_Vector y;
  N_Vector atol;
  N_Vector dky; /* the dense output (sits_ode_interpolate) */
  SUNMatrix jac_mat;
  SUNLinearSolver ls;
  sits_ode_opts opts;
  bool sparse;
  size_t nnz;
  sunindextype *colptr, *rowind; /* the pattern, in SUNDIALS' index type */
  double *jac_values;
  sits_ode_stats base; /* counters of the integrations before the last reinit */
  double t;            /* where the last step ended */
  long own_setups_before; /* the caller's solver: its setups before the last reinit */
  char cvode_msg[512];
};

/* CVODE prints its errors to stderr by default; keep them for our own message instead. */
static void on_cvode_error(int code, const char *module, const char *function, char *msg,
                           void *data) {
  sits_ode *ode = data;
  snprintf(ode->cvode_msg, sizeof ode->cvode_msg, "%s %s (%d): %s", module, function, code, msg);
}

static int rhs_adapter(realtype t, N_Vector y, N_Vector ydot, void *data) {
  sits_ode *ode = data;
  return ode->opts.rhs(t, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot), ode->opts.user);
}

static int root_adapter(realtype t, N_Vector y, realtype *g, void *data) {
  sits_ode *ode = data;
  return ode->opts.roots(t, N_VGetArrayPointer(y), g, ode->opts.user);
}

static int jac_adapter(realtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *data, N_Vector t1,
                       N_Vector t2, N_Vector t3) {
  (void)fy, (void)t1, (void)t2, (void)t3;
  sits_ode *ode = data;
  int rc = ode->opts.jac(t, N_VGetArrayPointer(y), ode->jac_values, ode->opts.user);
  if (rc)
    return rc;
  size_t n = ode->opts.n;
  if (ode->sparse) {
    memcpy(SUNSparseMatrix_IndexPointers(J), ode->colptr, (n + 1) * sizeof(sunindextype));
    memcpy(SUNSparseMatrix_IndexValues(J), ode->rowind, ode->nnz * sizeof(sunindextype));
    memcpy(SUNSparseMatrix_Data(J), ode->jac_values, ode->nnz * sizeof(double));
    return 0;
  }
  SUNMatZero(J);
  for (size_t j = 0; j < n; j++) {
    realtype *col = SUNDenseMatrix_Column(J, (sunindextype)j);
    for (sunindextype p = ode->colptr[j]; p < ode->colptr[j + 1]; p++)
      col[ode->rowind[p]] = ode->jac_values[p];
  }
  return 0;
}

static int copy_pattern(sits_ode *ode, const gsl_spmatrix *pat) {
  size_t n = ode->opts.n;
  ode->nnz = pat->nz;
  ode->colptr = malloc((n + 1) * sizeof *ode->colptr);
  ode->rowind = malloc((ode->nnz ? ode->nnz : 1) * sizeof *ode->rowind);
  ode->jac_values = calloc(ode->nnz ? ode->nnz : 1, sizeof(double));
  if (!ode->colptr || !ode->rowind || !ode->jac_values)
    return -1;
  for (size_t j = 0; j <= n; j++)
    ode->colptr[j] = pat->p[j];
  for (size_t k = 0; k < ode->nnz; k++)
    ode->rowind[k] = pat->i[k];
  return 0;
}

/* The caller's solver (sits_ode_opts.lsetup/lsolve): own_ls_impl.h with CVODE's policy for
 * its own matrices (dgmax_lsetup, default 0.3). */
static int setup_own_solver(sits_ode *ode, sits_err *err) {
  sits__own_ls init = {.gamma_of = CVodeGetCurrentGamma,
                       .mem = ode->cvode,
                       .lsetup = ode->opts.lsetup,
                       .lsolve = ode->opts.lsolve,
                       .luser = ode->opts.luser,
                       .dgmax = ode->opts.dgmax_lsetup > 0 ? ode->opts.dgmax_lsetup : 0.3};
  if (!(ode->ls = sits__own_ls_new(ode->ctx, &init)))
    return sits__fail(err, SITS_ENOMEM, "cannot create the linear solver");
  if (CVodeSetLinearSolver(ode->cvode, ode->ls, NULL) != CV_SUCCESS)
    return sits__fail(err, SITS_ESOLVER, "cvode: %s", ode->cvode_msg);
  return SITS_OK;
}

static int setup_linear_solver(sits_ode *ode, sits_err *err) {
  if (ode->opts.lsolve)
    return setup_own_solver(ode, err);
  size_t n = ode->opts.n;
  size_t thr = ode->opts.klu_threshold ? ode->opts.klu_threshold : SITS_KLU_THRESHOLD_DEFAULT;
  ode->sparse =
      ode->opts.linsol == SITS_LINSOL_KLU || (ode->opts.linsol == SITS_LINSOL_AUTO && n >= thr);
  if (ode->sparse) {
    ode->jac_mat = SUNSparseMatrix((sunindextype)n, (sunindextype)n,
                                   (sunindextype)(ode->nnz ? ode->nnz : 1), CSC_MAT, ode->ctx);
    ode->ls = ode->jac_mat ? SUNLinSol_KLU(ode->y, ode->jac_mat, ode->ctx) : NULL;
    /* AMD suits the symmetric pattern of a conduction network better than COLAMD */
    /* (measured on a 64 x 64 grid: half the run time of the default COLAMD) */
    if (ode->ls)
      SUNLinSol_KLUSetOrdering(ode->ls, 0);
  } else {
    ode->jac_mat = SUNDenseMatrix((sunindextype)n, (sunindextype)n, ode->ctx);
    ode->ls = ode->jac_mat ? SUNLinSol_Dense(ode->y, ode->jac_mat, ode->ctx) : NULL;
  }
  if (!ode->ls)
    return sits__fail(err, SITS_ENOMEM, "cannot create the linear solver");
  if (CVodeSetLinearSolver(ode->cvode, ode->ls, ode->jac_mat) != CV_SUCCESS ||
      CVodeSetJacFn(ode->cvode, jac_adapter) != CV_SUCCESS)
    return sits__fail(err, SITS_ESOLVER, "cvode: %s", ode->cvode_msg);
  return SITS_OK;
}

static int setup(sits_ode *ode, double t0, const double *y0, sits_err *err) {
  const sits_ode_opts *o = &ode->opts;
  if (SUNContext_Create(NULL, &ode->ctx))
    return sits__fail(err, SITS_ENOMEM, "cannot create the SUNDIALS context");
  ode->y = N_VNew_Serial((sunindextype)o->n, ode->ctx);
  ode->atol = N_VNew_Serial((sunindextype)o->n, ode->ctx);
  ode->cvode = CVodeCreate(CV_BDF, ode->ctx);
  if (!ode->y || !ode->atol || !ode->cvode || (!o->lsolve && copy_pattern(ode, o->pattern)))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  sits__nvec_fast(ode->y), sits__nvec_fast(ode->atol); /* before CVODE clones them */
  memcpy(N_VGetArrayPointer(ode->y), y0, o->n * sizeof(double));
  memcpy(N_VGetArrayPointer(ode->atol), o->atol, o->n * sizeof(double));
  CVodeSetErrHandlerFn(ode->cvode, on_cvode_error, ode);
  if (CVodeInit(ode->cvode, rhs_adapter, t0, ode->y) != CV_SUCCESS ||
      CVodeSVtolerances(ode->cvode, o->rtol, ode->atol) != CV_SUCCESS ||
      CVodeSetUserData(ode->cvode, ode) != CV_SUCCESS ||
      CVodeSetMaxNumSteps(ode->cvode, 100000) != CV_SUCCESS)
    return sits__fail(err, SITS_ESOLVER, "cvode: %s", ode->cvode_msg);
  if (o->n_roots > 0 && CVodeRootInit(ode->cvode, o->n_roots, root_adapter) != CV_SUCCESS)
    return sits__fail(err, SITS_ESOLVER, "cvode: %s", ode->cvode_msg);
  if ((o->dgmax_lsetup > 0 &&
       CVodeSetDeltaGammaMaxLSetup(ode->cvode, o->dgmax_lsetup) != CV_SUCCESS) ||
      (o->lsetup_frequency > 0 &&
       CVodeSetLSetupFrequency(ode->cvode, o->lsetup_frequency) != CV_SUCCESS))
    return sits__fail(err, SITS_ESOLVER, "cvode: %s", ode->cvode_msg);
  return setup_linear_solver(ode, err);
}

sits_ode *sits_ode_new(const sits_ode_opts *opts, double t0, const double *y0, sits_err *err) {
  bool own = opts && opts->lsolve && opts->lsetup;
  if (!opts || opts->n == 0 || !opts->rhs || !opts->atol || (opts->n_roots > 0 && !opts->roots) ||
      (!opts->lsolve != !opts->lsetup) ||
      (!own && (!opts->jac || !opts->pattern || opts->pattern->size1 != opts->n ||
                opts->pattern->size2 != opts->n || !GSL_SPMATRIX_ISCSC(opts->pattern)))) {
    sits__fail(err, SITS_EINTERNAL, "sits_ode_new: incomplete options");
    return NULL;
  }
  sits_ode *ode = calloc(1, sizeof *ode);
  if (!ode) {
    sits__fail(err, SITS_ENOMEM, "out of memory");
    return NULL;
  }
  ode->opts = *opts;
  ode->t = t0;
  int rc = setup(ode, t0, y0, err);
  ode->opts.atol = NULL;    /* copied into ode->atol */
  ode->opts.pattern = NULL; /* copied into colptr/rowind */
  if (rc != SITS_OK) {
    sits_ode_free(ode);
    return NULL;
  }
  return ode;
}

void sits_ode_free(sits_ode *ode) {
  if (!ode)
    return;
  if (ode->cvode)
    CVodeFree(&ode->cvode);
  if (ode->ls)
    SUNLinSolFree(ode->ls);
  if (ode->jac_mat)
    SUNMatDestroy(ode->jac_mat);
  if (ode->y)
    N_VDestroy(ode->y);
  if (ode->atol)
    N_VDestroy(ode->atol);
  if (ode->dky)
    N_VDestroy(ode->dky);
  if (ode->ctx)
    SUNContext_Free(&ode->ctx);
  free(ode->colptr);
  free(ode->rowind);
  free(ode->jac_values);
  free(ode);
}

static void current_stats(const sits_ode *ode, sits_ode_stats *s) {
  long v = 0;
  memset(s, 0, sizeof *s);
  CVodeGetNumSteps(ode->cvode, &v), s->steps = v;
  CVodeGetNumRhsEvals(ode->cvode, &v), s->rhs_evals = v;
  CVodeGetNumJacEvals(ode->cvode, &v), s->jac_evals = v;
  CVodeGetNumLinSolvSetups(ode->cvode, &v), s->lin_setups = v;
  if (ode->opts.lsolve) /* the caller's setups: CVODE asks for none */
    s->lin_setups = sits__own_ls_of(ode->ls)->setups - ode->own_setups_before;
  CVodeGetNumErrTestFails(ode->cvode, &v), s->err_test_fails = v;
  CVodeGetNumNonlinSolvIters(ode->cvode, &v), s->nonlin_iters = v;
  CVodeGetNumNonlinSolvConvFails(ode->cvode, &v), s->nonlin_conv_fails = v;
}

void sits_ode_get_stats(const sits_ode *ode, sits_ode_stats *stats) {
  sits_ode_stats cur;
  current_stats(ode, &cur);
  stats->steps = ode->base.steps + cur.steps;
  stats->rhs_evals = ode->base.rhs_evals + cur.rhs_evals;
  stats->jac_evals = ode->base.jac_evals + cur.jac_evals;
  stats->lin_setups = ode->base.lin_setups + cur.lin_setups;
  stats->err_test_fails = ode->base.err_test_fails + cur.err_test_fails;
  stats->nonlin_iters = ode->base.nonlin_iters + cur.nonlin_iters;
  stats->nonlin_conv_fails = ode->base.nonlin_conv_fails + cur.nonlin_conv_fails;
  stats->reinits = ode->base.reinits;
  stats->sparse = ode->sparse;
}

int sits_ode_reinit(sits_ode *ode, double t0, const double *y0, sits_err *err) {
  sits_ode_stats total;
  sits_ode_get_stats(ode, &total);
  ode->base = total;
  ode->base.reinits++;
  if (ode->opts.lsolve) /* counted in base now */
    ode->own_setups_before = sits__own_ls_of(ode->ls)->setups;
  memcpy(N_VGetArrayPointer(ode->y), y0, ode->opts.n * sizeof(double));
  if (CVodeReInit(ode->cvode, t0, ode->y) != CV_SUCCESS)
    return sits__fail(err, SITS_ESOLVER, "cvode: %s", ode->cvode_msg);
  ode->t = t0;
  return SITS_OK;
}

int sits_ode_step(sits_ode *ode, double tstop, double *t_out, sits_ode_event *event,
                  sits_err *err) {
  realtype t = 0;
  if (CVodeSetStopTime(ode->cvode, tstop) != CV_SUCCESS)
    return sits__fail(err, SITS_ESOLVER, "cvode: %s", ode->cvode_msg);
  int flag = CVode(ode->cvode, tstop, ode->y, &t, CV_ONE_STEP);
  *t_out = t; /* on failure too: where the solver stopped */
  const char *ls_msg = ode->opts.lsolve ? sits__own_ls_of(ode->ls)->err.msg : "";
  if (flag < 0)
    return sits__fail(err, SITS_ESOLVER, "cvode failed at t = %.9g s: %s%s%s", (double)t,
                      ode->cvode_msg[0] ? ode->cvode_msg : CVodeGetReturnFlagName(flag),
                      ls_msg[0] ? ": " : "", ls_msg);
  ode->t = t;
  *event = flag == CV_ROOT_RETURN    ? SITS_ODE_ROOT
           : flag == CV_TSTOP_RETURN ? SITS_ODE_STOP
                                     : SITS_ODE_STEPPED;
  return SITS_OK;
}

const double *sits_ode_state(const sits_ode *ode) {
  return N_VGetArrayPointer(ode->y);
}

double sits_ode_time(const sits_ode *ode) {
  return ode->t;
}

int sits_ode_interpolate(sits_ode *ode, double t, double *y, sits_err *err) {
  /* into a clone of y (its fused vector operations: sits__nvec_fast), kept for the next */
  if (!ode->dky && !(ode->dky = N_VClone(ode->y)))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  int flag = CVodeGetDky(ode->cvode, t, 0, ode->dky);
  if (flag != CV_SUCCESS)
    return sits__fail(err, SITS_ESOLVER, "cvode: cannot interpolate at t = %.9g s: %s", t,
                      ode->cvode_msg);
  memcpy(y, N_VGetArrayPointer(ode->dky), ode->opts.n * sizeof(double));
  return SITS_OK;
}

int sits_ode_roots_found(sits_ode *ode, int *found) {
  return CVodeGetRootInfo(ode->cvode, found) == CV_SUCCESS ? SITS_OK : SITS_ESOLVER;
}

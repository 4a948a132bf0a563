/* lti.c - fixed-step ESDIRK (ARKODE) for linear constant-Jacobian systems (sits_lti.h). */
#include "sits_lti.h"
#include "status_internal.h"
#include "sits_chol.h"
#include "nvec_impl.h"
#include "own_ls_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arkode/arkode_arkstep.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_sparse.h>

/* A SUNDIALS linear solver for A = I - gamma J whose row-scaled diag(c) A is SPD (a conduction
 * network: C + gamma G): CHOLMOD on diag(c) A, solving diag(c) A x = diag(c) b. */
typedef struct chol_ls {
  const double *c; /* borrowed row scale */
  gsl_spmatrix *a; /* A in GSL's CSC form (int indices) */
  sits_chol *f;
  long last_flag;
  sits_err err;
} chol_ls;

static SUNLinearSolver_Type chol_type(SUNLinearSolver s) {
  (void)s;
  return SUNLINEARSOLVER_DIRECT;
}

static int chol_setup(SUNLinearSolver s, SUNMatrix A) {
  chol_ls *c = s->content;
  size_t n = (size_t)SUNSparseMatrix_Columns(A), nnz = (size_t)SUNSparseMatrix_NNZ(A);
  const sunindextype *ap = SUNSparseMatrix_IndexPointers(A), *ai = SUNSparseMatrix_IndexValues(A);
  if (!c->a && !(c->a = gsl_spmatrix_alloc_nzmax(n, n, nnz, GSL_SPMATRIX_CSC)))
    return SUNLS_MEM_FAIL;
  if (c->a->nzmax < nnz)
    return SUNLS_PACKAGE_FAIL_UNREC; /* the pattern grew: not this solver's case */
  for (size_t j = 0; j <= n; j++)
    c->a->p[j] = (int)ap[j];
  for (size_t k = 0; k < (size_t)ap[n]; k++)
    c->a->i[k] = (int)ai[k];
  memcpy(c->a->data, SUNSparseMatrix_Data(A), (size_t)ap[n] * sizeof(double));
  c->a->nz = (size_t)ap[n];
  int rc = c->f ? sits_chol_factor(c->f, c->a, c->c, &c->err)
                : ((c->f = sits_chol_new(c->a, c->c, &c->err)) ? SITS_OK : SITS_ESOLVER);
  c->last_flag = rc;
  return rc == SITS_OK ? SUNLS_SUCCESS : SUNLS_PACKAGE_FAIL_UNREC;
}

static int chol_solve(SUNLinearSolver s, SUNMatrix A, N_Vector x, N_Vector b, realtype tol) {
  (void)A, (void)tol;
  chol_ls *c = s->content;
  int rc = sits_chol_solve(c->f, N_VGetArrayPointer(b), c->c, N_VGetArrayPointer(x), &c->err);
  c->last_flag = rc;
  return rc == SITS_OK ? SUNLS_SUCCESS : SUNLS_PACKAGE_FAIL_UNREC;
}

static sunindextype chol_last_flag(SUNLinearSolver s) {
  return ((chol_ls *)s->content)->last_flag;
}

static int chol_free(SUNLinearSolver s) {
  if (!s)
    return SUNLS_SUCCESS;
  chol_ls *c = s->content;
  if (c) {
    sits_chol_free(c->f);
    if (c->a)
      gsl_spmatrix_free(c->a);
    free(c);
  }
  SUNLinSolFreeEmpty(s);
  return SUNLS_SUCCESS;
}

static SUNLinearSolver chol_new(const double *c, SUNContext ctx) {
  chol_ls *content = calloc(1, sizeof *content);
  SUNLinearSolver s = content ? SUNLinSolNewEmpty(ctx) : NULL;
  if (!s) {
    free(content);
    return NULL;
  }
  content->c = c;
  s->content = content;
  s->ops->gettype = chol_type;
  s->ops->setup = chol_setup;
  s->ops->solve = chol_solve;
  s->ops->lastflag = chol_last_flag;
  s->ops->free = chol_free;
  return s;
}

struct sits_lti {
  SUNContext ctx;
  void *ark;
  N_Vector y;
  SUNMatrix jac;
  SUNLinearSolver ls;
  sits_lti_opts o;
  double t;
  sunindextype *colptr, *rowind;
  double *values;
  size_t nnz;
  double *rhs_y, *rhs_f; /* o.autonomous: the last state rhs was called at, and its value */
  bool rhs_valid;        /* until the next advance (the caller's inputs may change) */
  char msg[512];
};

static void on_error(int code, const char *module, const char *function, char *msg, void *data) {
  sits_lti *l = data;
  snprintf(l->msg, sizeof l->msg, "%s %s (%d): %s", module, function, code, msg);
}

static int rhs(realtype t, N_Vector y, N_Vector ydot, void *data) {
  sits_lti *l = data;
  const double *yd = N_VGetArrayPointer(y);
  double *fd = N_VGetArrayPointer(ydot);
  size_t bytes = l->o.n * sizeof *yd;
  if (l->rhs_valid && memcmp(yd, l->rhs_y, bytes) == 0) { /* a repeat of the last state */
    memcpy(fd, l->rhs_f, bytes);
    return 0;
  }
  int rc = l->o.rhs(t, yd, fd, l->o.user);
  if (rc == 0 && l->rhs_y) {
    memcpy(l->rhs_y, yd, bytes);
    memcpy(l->rhs_f, fd, bytes);
    l->rhs_valid = true;
  }
  return rc;
}

static int jac(realtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *data, N_Vector t1,
               N_Vector t2, N_Vector t3) {
  (void)fy, (void)t1, (void)t2, (void)t3;
  sits_lti *l = data;
  int rc = l->o.jac(t, N_VGetArrayPointer(y), l->values, l->o.user);
  if (rc)
    return rc;
  SUNMatZero(J);
  memcpy(SUNSparseMatrix_IndexPointers(J), l->colptr, (l->o.n + 1) * sizeof(sunindextype));
  memcpy(SUNSparseMatrix_IndexValues(J), l->rowind, l->nnz * sizeof(sunindextype));
  memcpy(SUNSparseMatrix_Data(J), l->values, l->nnz * sizeof(double));
  return 0;
}

sits_lti *sits_lti_new(const sits_lti_opts *o, double t0, const double *y0, sits_err *err) {
  bool own = o && o->lsolve;
  if (!o || !o->n || (!own && (!o->pattern || !o->jac)) || (own && !o->lsetup) || !o->rhs ||
      !(o->h_s > 0) || (o->order != 3 && o->order != 4)) {
    sits__fail(err, SITS_EINTERNAL, "sits_lti_new: incomplete options");
    return NULL;
  }
  sits_lti *l = calloc(1, sizeof *l);
  if (!l) {
    sits__fail(err, SITS_ENOMEM, "out of memory");
    return NULL;
  }
  l->o = *o;
  l->o.pattern = NULL;
  l->t = t0;
  size_t n = o->n;
  int ok = !SUNContext_Create(NULL, &l->ctx);
  if (o->autonomous) /* measured on the hotspot grid transient: 3 in 4 calls repeat */
    ok = ok && (l->rhs_y = malloc(n * sizeof(double))) && (l->rhs_f = malloc(n * sizeof(double)));
  if (!own) {
    l->nnz = o->pattern->nz;
    l->colptr = malloc((n + 1) * sizeof *l->colptr);
    l->rowind = malloc(l->nnz * sizeof *l->rowind);
    l->values = malloc(l->nnz * sizeof *l->values);
    ok = ok && l->colptr && l->rowind && l->values;
    for (size_t j = 0; ok && j <= n; j++)
      l->colptr[j] = o->pattern->p[j];
    for (size_t k = 0; ok && k < l->nnz; k++)
      l->rowind[k] = o->pattern->i[k];
  }
  if (ok) {
    l->y = N_VNew_Serial((sunindextype)n, l->ctx);
    ok = l->y != NULL;
    if (ok)
      sits__nvec_fast(l->y); /* before ARKODE clones it */
  }
  if (ok) {
    memcpy(N_VGetArrayPointer(l->y), y0, n * sizeof(double));
    l->ark = ARKStepCreate(NULL, rhs, t0, l->y, l->ctx);
    l->jac = own ? NULL
                 : SUNSparseMatrix((sunindextype)n, (sunindextype)n, (sunindextype)l->nnz, CSC_MAT,
                                   l->ctx);
    sits__own_ls init = {.gamma_of = ARKStepGetCurrentGamma,
                         .mem = l->ark,
                         .lsetup = o->lsetup,
                         .lsolve = o->lsolve,
                         .luser = o->luser};
    l->ls = own            ? (l->ark ? sits__own_ls_new(l->ctx, &init) : NULL)
            : !l->jac      ? NULL
            : o->spd_scale ? chol_new(o->spd_scale, l->ctx)
                           : SUNLinSol_KLU(l->y, l->jac, l->ctx);
    ok = l->ark && l->ls;
  }
  if (ok) {
    ARKStepSetErrHandlerFn(l->ark, on_error, l);
    if (!o->spd_scale && !own)
      SUNLinSol_KLUSetOrdering(l->ls, 0); /* AMD, as for CVODE */
    ok = ARKStepSetUserData(l->ark, l) == ARK_SUCCESS &&
         ARKStepSetLinearSolver(l->ark, l->ls, l->jac) == ARK_SUCCESS &&
         (own || ARKStepSetJacFn(l->ark, jac) == ARK_SUCCESS) &&
         ARKStepSetTableNum(l->ark,
                            o->order == 3 ? ARKODE_ESDIRK324L2SA_4_2_3 : ARKODE_ESDIRK436L2SA_6_3_4,
                            ARKODE_ERK_NONE) == ARK_SUCCESS &&
         ARKStepSetLinear(l->ark, 0) == ARK_SUCCESS && /* one Newton iteration per stage */
         /* a stage's f from its solve, (z - a) / (h gamma), not a new evaluation: exact to
          * the direct solve's rounding for a linear f (4 evaluations a step instead of 7) */
         ARKStepSetDeduceImplicitRhs(l->ark, SUNTRUE) == ARK_SUCCESS &&
         ARKStepSetFixedStep(l->ark, o->h_s) == ARK_SUCCESS &&
         /* gamma h never changes: no setup after the first */
         ARKStepSetLSetupFrequency(l->ark, 1 << 30) == ARK_SUCCESS &&
         ARKStepSetMaxNumSteps(l->ark, -1) == ARK_SUCCESS;
  }
  if (!ok) {
    sits__fail(err, SITS_ESOLVER, "arkode: cannot set up the fixed-step integrator %s", l->msg);
    sits_lti_free(l);
    return NULL;
  }
  return l;
}

void sits_lti_free(sits_lti *l) {
  if (!l)
    return;
  if (l->ark)
    ARKStepFree(&l->ark);
  if (l->ls)
    SUNLinSolFree(l->ls);
  if (l->jac)
    SUNMatDestroy(l->jac);
  if (l->y)
    N_VDestroy(l->y);
  if (l->ctx)
    SUNContext_Free(&l->ctx);
  free(l->colptr), free(l->rowind), free(l->values);
  free(l->rhs_y), free(l->rhs_f);
  free(l);
}

int sits_lti_advance(sits_lti *l, double tout, double *y, sits_err *err) {
  double steps = (tout - l->t) / l->o.h_s;
  if (!(steps > 0.5) || fabs(steps - round(steps)) > 1e-6)
    return sits__fail(err, SITS_EINTERNAL,
                      "sits_lti_advance: %g s is not a whole number of %g-s steps", tout - l->t,
                      l->o.h_s);
  realtype t = l->t;
  l->rhs_valid = false; /* the caller's inputs may have changed since the last advance */
  if (ARKStepSetStopTime(l->ark, tout) != ARK_SUCCESS ||
      ARKStepEvolve(l->ark, tout, l->y, &t, ARK_NORMAL) < 0) {
    const sits_err *e = l->o.lsolve      ? &sits__own_ls_of(l->ls)->err
                        : l->o.spd_scale ? &((const chol_ls *)l->ls->content)->err
                                         : NULL;
    return sits__fail(err, SITS_ESOLVER, "arkode: %s%s%s", l->msg, e && e->msg[0] ? ": " : "",
                      e ? e->msg : "");
  }
  l->t = tout;
  memcpy(y, N_VGetArrayPointer(l->y), l->o.n * sizeof(double));
  return SITS_OK;
}

int sits_lti_set_step(sits_lti *l, double h_s, sits_err *err) {
  if (!(h_s > 0) || ARKStepSetFixedStep(l->ark, h_s) != ARK_SUCCESS)
    return sits__fail(err, SITS_EINTERNAL, "arkode: cannot set the step to %g s", h_s);
  l->o.h_s = h_s;
  return SITS_OK;
}

void sits_lti_get_stats(const sits_lti *l, sits_ode_stats *st) {
  long v = 0, fe = 0, fi = 0;
  memset(st, 0, sizeof *st);
  ARKStepGetNumSteps(l->ark, &v), st->steps = v;
  ARKStepGetNumRhsEvals(l->ark, &fe, &fi), st->rhs_evals = fe + fi;
  ARKStepGetNumJacEvals(l->ark, &v), st->jac_evals = v;
  ARKStepGetNumLinSolvSetups(l->ark, &v), st->lin_setups = v;
  if (l->o.lsolve)
    st->lin_setups = sits__own_ls_of(l->ls)->setups;
  ARKStepGetNumNonlinSolvIters(l->ark, &v), st->nonlin_iters = v;
  st->sparse = true;
}

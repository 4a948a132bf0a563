/* newton.c - KINSOL + KLU behind sits_newton_solve (sits_newton.h). */
#include "sits_newton.h"
#include "status_internal.h"
#include "nvec_impl.h"

#include <stdio.h>
#include <string.h>

#include <kinsol/kinsol.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_sparse.h>

typedef struct ctx {
  const gsl_spmatrix *pattern;
  sits_newton_fn f;
  sits_newton_jac_fn jac;
  void *user;
  char msg[512];
} ctx;

static int kin_f(N_Vector u, N_Vector fu, void *data) {
  ctx *c = data;
  return c->f(N_VGetArrayPointer(u), N_VGetArrayPointer(fu), c->user) ? 1 : 0;
}

static int kin_jac(N_Vector u, N_Vector fu, SUNMatrix J, void *data, N_Vector t1, N_Vector t2) {
  (void)fu, (void)t1, (void)t2;
  ctx *c = data;
  const gsl_spmatrix *p = c->pattern;
  size_t n = p->size2;
  sunindextype *cp = SUNSparseMatrix_IndexPointers(J), *ri = SUNSparseMatrix_IndexValues(J);
  for (size_t j = 0; j <= n; j++)
    cp[j] = p->p[j];
  for (size_t k = 0; k < (size_t)p->p[n]; k++)
    ri[k] = p->i[k];
  return c->jac(N_VGetArrayPointer(u), SUNSparseMatrix_Data(J), c->user) ? 1 : 0;
}

static void on_error(int code, const char *module, const char *function, char *msg, void *data) {
  ctx *c = data;
  snprintf(c->msg, sizeof c->msg, "%s %s (%d): %s", module, function, code, msg);
}

int sits_newton_solve(const gsl_spmatrix *pattern, sits_newton_fn f, sits_newton_jac_fn jac,
                      void *user, double ftol, long max_iter, double *x, sits_err *err) {
  size_t n = pattern->size2, nnz = (size_t)pattern->p[n];
  ctx c = {.pattern = pattern, .f = f, .jac = jac, .user = user};
  SUNContext sctx = NULL;
  if (SUNContext_Create(NULL, &sctx))
    return sits__fail(err, SITS_ENOMEM, "cannot create the SUNDIALS context");
  N_Vector u = N_VNew_Serial((sunindextype)n, sctx);
  if (u)
    sits__nvec_fast(u);
  N_Vector scale = u ? N_VClone(u) : NULL;
  SUNMatrix J = SUNSparseMatrix((sunindextype)n, (sunindextype)n, (sunindextype)nnz, CSC_MAT, sctx);
  SUNLinearSolver ls = u && J ? SUNLinSol_KLU(u, J, sctx) : NULL;
  void *kin = KINCreate(sctx);
  int rc = u && scale && J && ls && kin ? SITS_OK : sits__fail(err, SITS_ENOMEM, "out of memory");
  if (rc == SITS_OK) {
    memcpy(N_VGetArrayPointer(u), x, n * sizeof(double));
    N_VConst(1.0, scale);
    KINSetErrHandlerFn(kin, on_error, &c);
    if (KINInit(kin, kin_f, u) != KIN_SUCCESS || KINSetUserData(kin, &c) != KIN_SUCCESS ||
        KINSetLinearSolver(kin, ls, J) != KIN_SUCCESS || KINSetJacFn(kin, kin_jac) != KIN_SUCCESS ||
        KINSetFuncNormTol(kin, ftol) != KIN_SUCCESS ||
        KINSetScaledStepTol(kin, 1e-14) != KIN_SUCCESS ||
        KINSetNumMaxIters(kin, max_iter) != KIN_SUCCESS ||
        KINSetMaxSetupCalls(kin, 1) != KIN_SUCCESS) /* exact Newton: a new Jacobian each step */
      rc = sits__fail(err, SITS_ESOLVER, "kinsol: cannot set up: %s", c.msg);
  }
  if (rc == SITS_OK) {
    int flag = KINSol(kin, u, KIN_LINESEARCH, scale, scale);
    memcpy(x, N_VGetArrayPointer(u), n * sizeof(double));
    if (flag < 0)
      rc = sits__fail(err, SITS_ESOLVER, "kinsol: no root (%d): %s", flag, c.msg);
  }
  KINFree(&kin);
  if (ls)
    SUNLinSolFree(ls);
  if (J)
    SUNMatDestroy(J);
  if (scale)
    N_VDestroy(scale);
  if (u)
    N_VDestroy(u);
  SUNContext_Free(&sctx);
  return rc;
}

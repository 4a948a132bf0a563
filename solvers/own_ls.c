/* own_ls.c - the caller's own Newton solver as a SUNDIALS linear solver (own_ls_impl.h). */
#include "own_ls_impl.h"
#include "status_internal.h"

#include <math.h>
#include <stdlib.h>

#include <nvector/nvector_serial.h>

static SUNLinearSolver_Type own_type(SUNLinearSolver s) {
  (void)s;
  return SUNLINEARSOLVER_MATRIX_EMBEDDED;
}

/* Set up for the integrator's gamma as the policy asks (see dgmax); its gamma into *gamma. */
static int ready(sits__own_ls *c, realtype *gamma) {
  *gamma = 0;
  if (c->gamma_of(c->mem, gamma) != 0 || !(*gamma > 0))
    return sits__fail(&c->err, SITS_EINTERNAL, "no gamma for the linear solve");
  double moved = c->gamma_setup > 0 ? fabs(*gamma / c->gamma_setup - 1.0) : INFINITY;
  if (moved <= (c->dgmax > 0 ? c->dgmax : 1e-9))
    return SITS_OK;
  double g = c->dgmax > 0 ? exp2(0.5 * round(2.0 * log2(*gamma))) : *gamma;
  c->gamma_setup = 0;
  int rc = c->lsetup(c->luser, g, &c->err);
  c->setups++;
  if (rc == SITS_OK)
    c->gamma_setup = g;
  return rc;
}

/* ARKODE calls it at times, CVODE never for a matrix-embedded solver: the solve makes sure. */
static int own_setup(SUNLinearSolver s, SUNMatrix A) {
  (void)A;
  sits__own_ls *c = s->content;
  realtype gamma;
  int rc = ready(c, &gamma);
  c->last_flag = rc;
  return rc == SITS_OK ? SUNLS_SUCCESS : SUNLS_PACKAGE_FAIL_UNREC;
}

static int own_solve(SUNLinearSolver s, SUNMatrix A, N_Vector x, N_Vector b, realtype tol) {
  (void)A, (void)tol;
  sits__own_ls *c = s->content;
  realtype gamma;
  int rc = ready(c, &gamma);
  if (rc == SITS_OK)
    rc = c->lsolve(c->luser, N_VGetArrayPointer(b), N_VGetArrayPointer(x), &c->err);
  if (rc == SITS_OK && gamma != c->gamma_setup && c->dgmax > 0)
    N_VScale(2.0 / (1.0 + gamma / c->gamma_setup), x, x);
  c->last_flag = rc;
  return rc == SITS_OK ? SUNLS_SUCCESS : SUNLS_PACKAGE_FAIL_UNREC;
}

static sunindextype own_last_flag(SUNLinearSolver s) {
  return ((sits__own_ls *)s->content)->last_flag;
}

static int own_free(SUNLinearSolver s) {
  if (!s)
    return SUNLS_SUCCESS;
  free(s->content);
  s->content = NULL;
  SUNLinSolFreeEmpty(s);
  return SUNLS_SUCCESS;
}

SUNLinearSolver sits__own_ls_new(SUNContext ctx, const sits__own_ls *init) {
  sits__own_ls *c = malloc(sizeof *c);
  SUNLinearSolver s = c ? SUNLinSolNewEmpty(ctx) : NULL;
  if (!s) {
    free(c);
    return NULL;
  }
  *c = *init;
  c->gamma_setup = 0, c->setups = 0, c->last_flag = 0;
  c->err = (sits_err){0};
  s->content = c;
  s->ops->gettype = own_type;
  s->ops->setup = own_setup;
  s->ops->solve = own_solve;
  s->ops->lastflag = own_last_flag;
  s->ops->free = own_free;
  return s;
}

const sits__own_ls *sits__own_ls_of(SUNLinearSolver s) {
  return s->content;
}

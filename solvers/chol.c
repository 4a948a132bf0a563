/* chol.c - sits_chol through the CHOLMOD module libsits_cholmod (chol_cholmod.c), loaded on
 * first use (core/module_internal.h). */
#include "sits_chol.h"
#include "status_internal.h"

#include <stdlib.h>

#include "chol_impl.h"
#include "module_internal.h"

struct sits_chol {
  void *module;
  const sits__cholmod_ops *ops;
  sits__cholmod *impl;
};

sits_chol *sits_chol_new(const gsl_spmatrix *a, const double *row_scale, sits_err *err) {
  sits_chol *c = calloc(1, sizeof *c);
  if (!c) {
    sits__fail(err, SITS_ENOMEM, "out of memory");
    return NULL;
  }
  c->ops = sits__module_ops(SITS__CHOLMOD_MODULE, SITS__CHOLMOD_OPS, &c->module, err);
  if (!c->ops || !(c->impl = c->ops->create(a, row_scale, err))) {
    sits_chol_free(c);
    return NULL;
  }
  return c;
}

int sits_chol_factor(sits_chol *c, const gsl_spmatrix *a, const double *row_scale, sits_err *err) {
  return c->ops->factor(c->impl, a, row_scale, err);
}

int sits_chol_solve(sits_chol *c, const double *b, const double *b_scale, double *x,
                    sits_err *err) {
  return c->ops->solve(c->impl, b, b_scale, x, err);
}

void sits_chol_free(sits_chol *c) {
  if (!c)
    return;
  if (c->impl)
    c->ops->release(c->impl);
  sits__module_close(c->module);
  free(c);
}

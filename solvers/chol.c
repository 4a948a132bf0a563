/* chol.c - sits_chol through the CHOLMOD module libsits_cholmod (chol_cholmod.c), loaded on
 * first use (sits_module.h). */
#include "sits_chol.h"

#include <stdlib.h>

#include "sits_module.h"

typedef void *(*new_fn)(const gsl_spmatrix *, const double *, sits_err *);
typedef int (*factor_fn)(void *, const gsl_spmatrix *, const double *, sits_err *);
typedef int (*solve_fn)(void *, const double *, const double *, double *, sits_err *);
typedef void (*free_fn)(void *);

struct sits_chol {
  void *module, *impl;
  factor_fn factor;
  solve_fn solve;
  free_fn release;
};

sits_chol *sits_chol_new(const gsl_spmatrix *a, const double *row_scale, sits_err *err) {
  sits_chol *c = calloc(1, sizeof *c);
  if (!c) {
    sits__fail(err, SITS_ENOMEM, "out of memory");
    return NULL;
  }
  static const char *const names[] = {"sits__cholmod_new", "sits__cholmod_factor",
                                      "sits__cholmod_solve", "sits__cholmod_free"};
  void (*fn[4])(void) = {0};
  c->module = sits__module_load("libsits_cholmod.so", names, 4, fn, err);
  new_fn create = (new_fn)fn[0];
  c->factor = (factor_fn)fn[1], c->solve = (solve_fn)fn[2], c->release = (free_fn)fn[3];
  if (!c->module || !(c->impl = create(a, row_scale, err))) {
    sits_chol_free(c);
    return NULL;
  }
  return c;
}

int sits_chol_factor(sits_chol *c, const gsl_spmatrix *a, const double *row_scale, sits_err *err) {
  return c->factor(c->impl, a, row_scale, err);
}

int sits_chol_solve(sits_chol *c, const double *b, const double *b_scale, double *x,
                    sits_err *err) {
  return c->solve(c->impl, b, b_scale, x, err);
}

void sits_chol_free(sits_chol *c) {
  if (!c)
    return;
  if (c->impl && c->release)
    c->release(c->impl);
  sits__module_close(c->module);
  free(c);
}

/* layergrid_load.c - sits_layergrid through the module libsits_layergrid (layergrid.c, which
 * links FFTW), loaded on first use (core/module_internal.h). */
#include "sits_layergrid.h"
#include "status_internal.h"

#include <stdlib.h>

#include "layergrid_impl.h"
#include "module_internal.h"

struct sits_layergrid {
  void *module;
  const sits__layergrid_ops *ops;
  sits__lg *impl;
};

sits_layergrid *sits_layergrid_new(const gsl_spmatrix *g, const double *c, size_t rows, size_t cols,
                                   size_t layers, sits_err *err) {
  sits_layergrid *s = calloc(1, sizeof *s);
  if (!s) {
    sits__fail(err, SITS_ENOMEM, "out of memory");
    return NULL;
  }
  s->ops = sits__module_ops(SITS__LAYERGRID_MODULE, SITS__LAYERGRID_OPS, &s->module, err);
  if (!s->ops || !(s->impl = s->ops->create(g, c, rows, cols, layers, err))) {
    sits_layergrid_free(s);
    return NULL;
  }
  return s;
}

int sits_layergrid_setup(sits_layergrid *s, double alpha, double tau, sits_err *err) {
  return s->ops->setup(s->impl, alpha, tau, err);
}

int sits_layergrid_solve(sits_layergrid *s, const double *b, double *x, sits_err *err) {
  return s->ops->solve(s->impl, b, x, err);
}

void sits_layergrid_apply(const sits_layergrid *s, const double *x, double *y) {
  s->ops->apply(s->impl, x, y);
}

void sits_layergrid_to_modes(sits_layergrid *s, const double *x, double *v) {
  s->ops->to_modes(s->impl, x, v);
}

void sits_layergrid_from_modes(sits_layergrid *s, const double *v, double *x) {
  s->ops->from_modes(s->impl, v, x);
}

int sits_layergrid_solve_modes(sits_layergrid *s, const double *b, double *x, sits_err *err) {
  return s->ops->solve_modes(s->impl, b, x, err);
}

void sits_layergrid_apply_modes(sits_layergrid *s, const double *x, double *y) {
  s->ops->apply_modes(s->impl, x, y);
}

size_t sits_layergrid_edge_unknowns(const sits_layergrid *s) {
  return s->ops->edge_unknowns(s->impl);
}

void sits_layergrid_free(sits_layergrid *s) {
  if (!s)
    return;
  if (s->impl)
    s->ops->release(s->impl);
  sits__module_close(s->module);
  free(s);
}

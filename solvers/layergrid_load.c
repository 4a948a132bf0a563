/* layergrid_load.c - sits_layergrid through the module libsits_layergrid (layergrid.c, which
 * links FFTW), loaded on first use (sits_module.h). */
#include "sits_layergrid.h"

#include <stdlib.h>

#include "sits_module.h"

typedef void *(*new_fn)(const gsl_spmatrix *, const double *, size_t, size_t, size_t, sits_err *);
typedef int (*setup_fn)(void *, double, double, sits_err *);
typedef int (*solve_fn)(void *, const double *, double *, sits_err *);
typedef void (*apply_fn)(const void *, const double *, double *);
typedef size_t (*count_fn)(const void *);
typedef void (*free_fn)(void *);

struct sits_layergrid {
  void *module, *impl;
  setup_fn setup;
  solve_fn solve;
  apply_fn apply;
  count_fn count;
  free_fn release;
};

sits_layergrid *sits_layergrid_new(const gsl_spmatrix *g, const double *c, size_t rows, size_t cols,
                                   size_t layers, sits_err *err) {
  sits_layergrid *s = calloc(1, sizeof *s);
  if (!s) {
    sits__fail(err, SITS_ENOMEM, "out of memory");
    return NULL;
  }
  static const char *const names[] = {"sits__lg_new",   "sits__lg_setup",         "sits__lg_solve",
                                      "sits__lg_apply", "sits__lg_edge_unknowns", "sits__lg_free"};
  void (*fn[6])(void) = {0};
  s->module = sits__module_load("libsits_layergrid.so", names, 6, fn, err);
  new_fn create = (new_fn)fn[0];
  s->setup = (setup_fn)fn[1], s->solve = (solve_fn)fn[2], s->apply = (apply_fn)fn[3];
  s->count = (count_fn)fn[4], s->release = (free_fn)fn[5];
  if (!s->module || !(s->impl = create(g, c, rows, cols, layers, err))) {
    sits_layergrid_free(s);
    return NULL;
  }
  return s;
}

int sits_layergrid_setup(sits_layergrid *s, double alpha, double tau, sits_err *err) {
  return s->setup(s->impl, alpha, tau, err);
}

int sits_layergrid_solve(sits_layergrid *s, const double *b, double *x, sits_err *err) {
  return s->solve(s->impl, b, x, err);
}

void sits_layergrid_apply(const sits_layergrid *s, const double *x, double *y) {
  s->apply(s->impl, x, y);
}

size_t sits_layergrid_edge_unknowns(const sits_layergrid *s) {
  return s->count(s->impl);
}

void sits_layergrid_free(sits_layergrid *s) {
  if (!s)
    return;
  if (s->impl && s->release)
    s->release(s->impl);
  sits__module_close(s->module);
  free(s);
}

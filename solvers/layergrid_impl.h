/* layergrid_impl.h - the entry points of the layered-grid module (layergrid.c), one ops
 * struct that the module exports and layergrid_load.c loads (internal). The operations are
 * those of sits_layergrid.h, on the module's own handle. */
#ifndef SITS_LAYERGRID_IMPL_H
#define SITS_LAYERGRID_IMPL_H

#include <gsl/gsl_spmatrix.h>

#include "status_internal.h"

#define SITS__LAYERGRID_MODULE "libsits_layergrid.so"
#define SITS__LAYERGRID_OPS "sits_layergrid_module_ops"

typedef struct sits__lg sits__lg;


/* the ops' layout: a module from another build (its library folder updated partly) is
 * refused, not called with the wrong arguments */
#define SITS__LAYERGRID_ABI 2

typedef struct sits__layergrid_ops {
  int abi; /* SITS__LAYERGRID_ABI */
  /* wisdom: NULL estimates the FFT plans; else they are measured or taken from it (FFTW's
   * text, may be empty) */
  sits__lg *(*create)(const gsl_spmatrix *g, const double *c, size_t rows, size_t cols,
                      size_t layers, const char *wisdom, sits_err *err);
  int (*setup)(sits__lg *s, double alpha, double tau, sits_err *err);
  int (*solve)(sits__lg *s, const double *b, double *x, sits_err *err);
  void (*apply)(const sits__lg *s, const double *x, double *y);
  size_t (*edge_unknowns)(const sits__lg *s);
  void (*release)(sits__lg *s);
  void (*to_modes)(sits__lg *s, const double *x, double *v);
  void (*from_modes)(sits__lg *s, const double *v, double *x);
  int (*solve_modes)(sits__lg *s, const double *b, double *x, sits_err *err);
  void (*apply_modes)(sits__lg *s, const double *x, double *y);
  /* the wisdom to keep (malloc'ed text) when create measured a plan, else NULL */
  char *(*wisdom_export)(sits__lg *s);
} sits__layergrid_ops;

#endif

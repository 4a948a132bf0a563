/* fit.c - nonlinear least squares with GSL multifit_nlinear (see sits_fit.h). */
#include "sits_fit.h"
#include "status_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multifit_nlinear.h>

typedef struct ctx {
  sits_fit_opts o;
  double *x, *r; /* contiguous scratch: GSL's finite differences pass strided views */
} ctx;

static int adapter(const gsl_vector *x, void *params, gsl_vector *f) {
  ctx *c = params;
  for (size_t j = 0; j < c->o.n_params; j++)
    c->x[j] = gsl_vector_get(x, j);
  int rc = c->o.residual(c->x, c->r, c->o.user);
  for (size_t i = 0; !rc && i < c->o.n_residuals; i++) {
    if (!isfinite(c->r[i]))
      rc = 1;
    gsl_vector_set(f, i, c->r[i]);
  }
  return rc ? GSL_EBADFUNC : GSL_SUCCESS;
}

/* The squared components of the right singular vector of J's smallest singular value. */
static int weakest(const gsl_matrix *j, double *share, sits_err *err) {
  size_t m = j->size1, p = j->size2;
  gsl_matrix *a = gsl_matrix_alloc(m, p), *v = gsl_matrix_alloc(p, p);
  gsl_vector *s = gsl_vector_alloc(p), *work = gsl_vector_alloc(p);
  int rc = SITS_OK;
  if (!a || !v || !s || !work || m < p)
    rc = m < p ? SITS_OK : sits__fail(err, SITS_ENOMEM, "out of memory");
  else {
    gsl_matrix_memcpy(a, j);
    if (gsl_linalg_SV_decomp(a, v, s, work) == GSL_SUCCESS) {
      /* singular values are sorted: the directions at or below 1e-6 of the largest (all of
       * a rank-deficient Jacobian's null space), else the last one */
      double top = gsl_vector_get(s, 0);
      size_t first = p - 1;
      while (first > 0 && gsl_vector_get(s, first - 1) <= 1e-6 * top)
        first--;
      for (size_t j = 0; j < p; j++) {
        share[j] = 0;
        for (size_t k = first; k < p; k++)
          share[j] += gsl_matrix_get(v, j, k) * gsl_matrix_get(v, j, k);
      }
    }
  }
  if (a)
    gsl_matrix_free(a);
  if (v)
    gsl_matrix_free(v);
  if (s)
    gsl_vector_free(s);
  if (work)
    gsl_vector_free(work);
  return rc;
}

/* s^2 (J^T J)^-1 into out (p x p); NAN rows/columns for parameters GSL drops. */
static int covariance(const gsl_matrix *j, double chisq, size_t n, double *out, sits_err *err) {
  size_t p = j->size2;
  gsl_matrix *c = gsl_matrix_alloc(p, p);
  if (!c)
    return sits__fail(err, SITS_ENOMEM, "out of memory for the covariance");
  double s2 = n > p ? chisq / (double)(n - p) : NAN;
  gsl_error_handler_t *old = gsl_set_error_handler_off();
  int st = gsl_multifit_nlinear_covar(j, 1e-12, c);
  gsl_set_error_handler(old);
  for (size_t a = 0; a < p; a++)
    for (size_t b = 0; b < p; b++) {
      double v = st == GSL_SUCCESS ? gsl_matrix_get(c, a, b) * s2 : NAN;
      out[a * p + b] = v;
    }
  for (size_t a = 0; a < p; a++) /* a dropped parameter: its diagonal is 0 */
    if (!(out[a * p + a] > 0))
      for (size_t b = 0; b < p; b++)
        out[a * p + b] = out[b * p + a] = NAN;
  gsl_matrix_free(c);
  return SITS_OK;
}

int sits_fit_nlinear(const sits_fit_opts *opts, double *x, double *cost_out, bool *converged,
                     sits_err *err) {
  ctx c = {*opts, malloc(opts->n_params * sizeof(double)),
           malloc(opts->n_residuals * sizeof(double))};
  const sits_fit_opts o = c.o;
  gsl_multifit_nlinear_fdf fdf = {
      .f = adapter, .df = NULL, .fvv = NULL, .n = o.n_residuals, .p = o.n_params, .params = &c};
  gsl_multifit_nlinear_parameters prm = gsl_multifit_nlinear_default_parameters();
  prm.scale =
      gsl_multifit_nlinear_scale_levenberg; /* robust when a parameter is barely identifiable */
  if (o.normal_equations)
    prm.solver = gsl_multifit_nlinear_solver_mcholesky;
  gsl_multifit_nlinear_workspace *w =
      gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &prm, o.n_residuals, o.n_params);
  if (!w || !c.x || !c.r) {
    gsl_multifit_nlinear_free(w);
    free(c.x), free(c.r);
    return sits__fail(err, SITS_ENOMEM, "out of memory for the fit");
  }
  gsl_vector_view x0 = gsl_vector_view_array(x, o.n_params);
  int info = 0;
  int status = gsl_multifit_nlinear_init(&x0.vector, &fdf, w);
  if (status == GSL_SUCCESS)
    status = gsl_multifit_nlinear_driver(o.max_iter ? o.max_iter : 200, 1e-10, 1e-10, 0.0, NULL,
                                         NULL, &info, w);
  int rc = SITS_OK;
  if (status != GSL_SUCCESS && status != GSL_EMAXITER && status != GSL_ENOPROG) {
    rc = sits__fail(err, SITS_ESOLVER, "the fit failed: %s", gsl_strerror(status));
  } else {
    memcpy(x, gsl_multifit_nlinear_position(w)->data, o.n_params * sizeof(double));
    double chisq;
    gsl_blas_ddot(gsl_multifit_nlinear_residual(w), gsl_multifit_nlinear_residual(w), &chisq);
    *cost_out = 0.5 * chisq;
    *converged = status == GSL_SUCCESS;
    /* a Jacobian without a singular value above 0 (a trace that no parameter moves) has
     * 0/0 for GSL: reported as 0, the worst conditioning, not as NaN */
    if (o.rcond_out &&
        (gsl_multifit_nlinear_rcond(o.rcond_out, w) != GSL_SUCCESS || !isfinite(*o.rcond_out)))
      *o.rcond_out = 0.0;
    if (o.weak_out)
      rc = weakest(gsl_multifit_nlinear_jac(w), o.weak_out, err);
    if (rc == SITS_OK && o.covar_out)
      rc = covariance(gsl_multifit_nlinear_jac(w), chisq, o.n_residuals, o.covar_out, err);
  }
  gsl_multifit_nlinear_free(w);
  free(c.x), free(c.r);
  return rc;
}

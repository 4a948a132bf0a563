/*
 * bands.c - 95 % bands on replayed temperatures: what calibrate knows of its fit (the
 * parameters' covariance, the training residuals) written into the calibrated scenario as its
 * `uncertainty` group, and propagated through a replay of any trace (sits_replay.h,
 * sits_thermal_cal.h).
 *
 * The band at each row is sqrt(q95^2 + (1.96 sigma_model)^2): q95 the 95th percentile of the
 * sensor's absolute residuals (what the model structure misses, taken from the data rather
 * than assumed Gaussian: the residuals of a board's integer sensor are heavy-tailed), the
 * wider of the training residuals' and the forecast residuals' (the fit repeated on the
 * training rows before a half, five eighths and three quarters of them and each replayed over
 * the rest of the training rows, which it did not see, the mean of the three blocks'
 * percentiles: a prediction's errors at the horizons a held-out part has, which training residuals
 * understate),
 * sigma_model the parameters' covariance propagated linearly through the replay (each
 * parameter's sensitivity by a forward difference of 1e-4 of its value, the trace replayed
 * again). The covariance is the one the same sensitivities give on the training rows with
 * each parameter's range as a uniform prior, (J^T J / sigma^2 + P)^-1 (sigma^2 the mean
 * squared training residual; parameters at a bound held), so that at the rows it was fitted
 * on the parameters add no more than the residuals do, and a direction the trace does not
 * determine keeps its range's spread.
 */
#define _POSIX_C_SOURCE 200809L
#include "sits_replay.h"
#include "sits_thermal_cal.h"
#include "status_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <libconfig.h>
#include <omp.h>

#include "result_internal.h"
#include "scenario_internal.h"
#include "thermal_internal.h"

#define MAX_P SITS_THERMAL_CAL_MAX_PARAMS
#define Z95 1.959963984540054

/* The uncertainty group of a scenario, read. */
typedef struct uncertainty {
  size_t n_p, n_s;
  const char *path[MAX_P];
  double value[MAX_P], se[MAX_P], corr[MAX_P * MAX_P];
  const char *sensor[SITS_REPLAY_MAX_BAND_SENSORS];
  double q95[SITS_REPLAY_MAX_BAND_SENSORS];
} uncertainty;

static int array_of(const config_setting_t *g, const char *name, size_t want, double *out,
                    sits_err *err) {
  const config_setting_t *a = config_setting_get_member(g, name);
  if (!a || !config_setting_is_array(a) || (size_t)config_setting_length(a) != want)
    return sits__fail_at(err, SITS_EINPUT, a ? a : g,
                         "uncertainty.%s: expected an array of %zu numbers", name, want);
  for (size_t k = 0; k < want; k++) {
    out[k] = config_setting_get_float_elem(a, (int)k);
    if (!isfinite(out[k]))
      return sits__fail_at(err, SITS_EINPUT, a, "uncertainty.%s: a value is not finite", name);
  }
  return SITS_OK;
}

static int strings_of(const config_setting_t *g, const char *name, size_t max, const char **out,
                      size_t *n, sits_err *err) {
  const config_setting_t *a = config_setting_get_member(g, name);
  int len = a && config_setting_is_array(a) ? config_setting_length(a) : -1;
  if (len < 0 || (size_t)len > max)
    return sits__fail_at(err, SITS_EINPUT, a ? a : g,
                         "uncertainty.%s: expected an array of at most %zu names", name, max);
  for (int k = 0; k < len; k++)
    if (!(out[k] = config_setting_get_string_elem(a, k)))
      return sits__fail_at(err, SITS_EINPUT, a, "uncertainty.%s: a name is not a string", name);
  *n = (size_t)len;
  return SITS_OK;
}

/* 1: the group read; 0: the scenario has none; else an error. */
static int read_uncertainty(const sits_scenario *sc, uncertainty *u, sits_err *err) {
  const config_setting_t *g = config_lookup(sits__scenario_cfg(sc), "uncertainty");
  if (!g)
    return 0;
  int rc = strings_of(g, "parameters", MAX_P, u->path, &u->n_p, err);
  if (rc == SITS_OK)
    rc = strings_of(g, "sensors", SITS_REPLAY_MAX_BAND_SENSORS, u->sensor, &u->n_s, err);
  if (rc == SITS_OK)
    rc = array_of(g, "values", u->n_p, u->value, err);
  if (rc == SITS_OK)
    rc = array_of(g, "std_err", u->n_p, u->se, err);
  if (rc == SITS_OK)
    rc = array_of(g, "correlation", u->n_p * u->n_p, u->corr, err);
  if (rc == SITS_OK)
    rc = array_of(g, "residual_q95_c", u->n_s, u->q95, err);
  /* a hand-edited group is checked as calibrate writes it */
  const config_setting_t *at = config_setting_get_member(g, "std_err");
  for (size_t p = 0; rc == SITS_OK && p < u->n_p; p++)
    if (u->se[p] < 0)
      rc = sits__fail_at(err, SITS_EINPUT, at, "uncertainty.std_err: %s's is negative (%g)",
                         u->path[p], u->se[p]);
  at = config_setting_get_member(g, "residual_q95_c");
  for (size_t k = 0; rc == SITS_OK && k < u->n_s; k++)
    if (u->q95[k] < 0)
      rc = sits__fail_at(err, SITS_EINPUT, at, "uncertainty.residual_q95_c: %s's is negative (%g)",
                         u->sensor[k], u->q95[k]);
  at = config_setting_get_member(g, "correlation");
  for (size_t i = 0; rc == SITS_OK && i < u->n_p; i++)
    for (size_t j = 0; rc == SITS_OK && j < u->n_p; j++) {
      double c = u->corr[i * u->n_p + j], t = u->corr[j * u->n_p + i];
      if (i == j ? fabs(c - 1) > 1e-9 : !(fabs(c) <= 1 + 1e-9) || fabs(c - t) > 1e-9)
        rc = sits__fail_at(err, SITS_EINPUT, at,
                           "uncertainty.correlation: not a correlation matrix (row %zu, column "
                           "%zu: %g; the diagonal is 1, the rest within [-1, 1] and symmetric)",
                           i + 1, j + 1, c);
    }
  /* each parameter as the scenario has it now: one the user set (--set ambient_c=35, a what-if)
   * is no longer the fitted value and carries none of its uncertainty: held (std_err 0); the
   * others move from the value in force */
  at = config_setting_get_member(g, "parameters");
  for (size_t p = 0; rc == SITS_OK && p < u->n_p; p++) {
    const config_setting_t *v = config_lookup(sits__scenario_cfg(sc), u->path[p]);
    int type = v ? config_setting_type(v) : CONFIG_TYPE_NONE;
    if (type != CONFIG_TYPE_FLOAT && type != CONFIG_TYPE_INT && type != CONFIG_TYPE_INT64) {
      rc = sits__fail_at(err, SITS_EINPUT, at,
                         "uncertainty.parameters: '%s' is not a number this scenario sets",
                         u->path[p]);
      break;
    }
    double now = config_setting_get_float(v);
    if (type != CONFIG_TYPE_FLOAT)
      now = (double)config_setting_get_int64(v);
    if (fabs(now - u->value[p]) > 1e-9 * fmax(fabs(now), fabs(u->value[p])))
      u->se[p] = 0;
    u->value[p] = now;
  }
  return rc == SITS_OK ? 1 : -1;
}

/* The replay of @p sc with parameter @p path at @p value (the scenario reloaded with it set). */
static int replay_moved(const sits_scenario *sc, const sits_replay *r, const char *path,
                        double value, sits_replay **out, sits_err *err) {
  char set[256];
  snprintf(set, sizeof set, "%s=%.17g", path, value);
  const char *sets[] = {set};
  sits_scenario *moved = NULL;
  int rc = sits_scenario_load_text(sits_scenario_config_text(sc), sits__scenario_path(sc), sets, 1,
                                   &moved, err);
  if (rc == SITS_OK)
    rc = sits_replay_run_trace(moved, r->trace, sits__scenario_path(sc), NULL, out, err);
  sits_scenario_free(moved);
  return rc;
}

int sits_replay_bands(const sits_scenario *sc, sits_replay *r, size_t from_row, sits_err *err) {
  uncertainty u;
  memset(&u, 0, sizeof u);
  int got = read_uncertainty(sc, &u, err);
  if (got <= 0)
    return got == 0 ? SITS_OK : SITS_EINPUT;
  size_t rows = r->trace->n_rows, ns = r->n_sensors;
  if (ns > SITS_REPLAY_MAX_BAND_SENSORS)
    ns = SITS_REPLAY_MAX_BAND_SENSORS;
  double *g = calloc(u.n_p * ns * rows + 1, sizeof *g); /* sensitivity x se per parameter */
  double *band = calloc(ns * rows + 1, sizeof *band);
  if (!g || !band) {
    free(g), free(band);
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  }
  int rc = SITS_OK;
  size_t used = 0;
  for (size_t p = 0; rc == SITS_OK && p < u.n_p; p++) {
    if (!(u.se[p] > 0))
      continue; /* undetermined or at a bound: held */
    sits_replay *m = NULL;
    double h = 1e-4 * (fabs(u.value[p]) > 0 ? fabs(u.value[p]) : 1.0);
    rc = replay_moved(sc, r, u.path[p], u.value[p] + h, &m, err);
    for (size_t k = 0; rc == SITS_OK && k < ns; k++)
      for (size_t t = 0; t < rows; t++) /* d sim / d p x its standard error */
        g[(p * ns + k) * rows + t] =
            (m->sim_c[k * rows + t] - r->sim_c[k * rows + t]) / h * u.se[p];
    sits_replay_free(m);
    used++;
  }
  for (size_t k = 0; rc == SITS_OK && k < ns; k++) {
    double q = NAN; /* the group's sensor of this column, the same one of several */
    size_t nth = 0, seen = 0;
    for (size_t j = 0; j < k; j++)
      nth += !strcmp(r->sensors[j].column, r->sensors[k].column);
    for (size_t s = 0; s < u.n_s && isnan(q); s++)
      if (!strcmp(u.sensor[s], r->sensors[k].column) && seen++ == nth)
        q = u.q95[s];
    if (isnan(q)) /* a sensor the fit did not see: the widest residual it knew */
      for (size_t s = 0; s < u.n_s; s++)
        q = isnan(q) ? u.q95[s] : fmax(q, u.q95[s]);
    int col = sits_trace_column(r->trace, r->sensors[k].column);
    size_t n = 0, in = 0;
    double sum_hw = 0;
    for (size_t t = 0; t < rows; t++) {
      double var = 0;
      for (size_t i = 0; i < u.n_p; i++)
        for (size_t j = 0; j < u.n_p; j++)
          if (u.se[i] > 0 && u.se[j] > 0)
            var += g[(i * ns + k) * rows + t] * g[(j * ns + k) * rows + t] * u.corr[i * u.n_p + j];
      double hw = sqrt((isnan(q) ? 0 : q * q) + Z95 * Z95 * fmax(var, 0));
      band[k * rows + t] = hw;
      double meas = col >= 0 ? sits_trace_at(r->trace, t, (size_t)col) : NAN;
      if (t < from_row || !isfinite(meas))
        continue;
      n++, sum_hw += hw;
      in += fabs(r->sim_c[k * rows + t] - meas) <= hw;
    }
    r->band_coverage[k] = n ? (double)in / (double)n : NAN;
    r->band_mean_half_width_c[k] = n ? sum_hw / (double)n : NAN;
  }
  free(g);
  if (rc) {
    free(band);
    return rc;
  }
  free(r->band_c);
  r->band_c = band, r->band_from = from_row, r->band_params = used;
  return SITS_OK;
}

/* The training rows' absolute residuals' 95th percentile per sensor (GSL's quantile), and
 * the mean squared residual over all sensors' training samples into *msr. */
static int residual_q95(sits_replay *r, size_t n_train, double *q95, double *msr, sits_err *err) {
  size_t rows = r->trace->n_rows, all = 0;
  double *d = malloc((rows + 1) * sizeof *d), ss = 0;
  if (!d)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t k = 0; k < r->n_sensors && k < SITS_THERMAL_CAL_MAX_SENSORS; k++) {
    int col = sits_trace_column(r->trace, r->sensors[k].column);
    size_t n = 0;
    for (size_t t = 0; col >= 0 && t < n_train && t < rows; t++) {
      double m = sits_trace_at(r->trace, t, (size_t)col);
      if (isfinite(m))
        d[n++] = fabs(r->sim_c[k * rows + t] - m);
    }
    for (size_t i = 0; i < n; i++)
      ss += d[i] * d[i];
    all += n;
    gsl_sort(d, 1, n);
    q95[k] = n ? gsl_stats_quantile_from_sorted_data(d, 1, n, 0.95) : NAN;
  }
  *msr = all ? ss / (double)all : NAN;
  free(d);
  return SITS_OK;
}

/* The covariance of the free parameters (not at a bound) from the replay's sensitivities on
 * the training rows and their ranges: (J^T J / sigma^2 + P)^-1 in coordinates relative to the
 * values, sigma^2 the mean squared training residual and P the precision of each parameter's
 * range taken as a uniform prior ((hi - lo)^2 / 12 its variance; log coordinates for the
 * log-scaled ones: resistances, capacitances, a sensor's lag). The range is what the fit
 * allowed, so a direction the trace does not determine keeps the range's spread instead of
 * an unbounded or a dropped one (a 62-s trace gave an ambient of 22 +- 528 C, a 25-K band,
 * before). Computed by GSL's SVD of the stacked system [J / sigma; sqrt(P)], which cannot
 * fail on a near-perfect fit where J^T J / sigma^2 swamps P; a direction with no range and no
 * data (a singular value below 1e-12 of the largest) is dropped, and a sensitivity that is
 * not finite counts as none. Into se[] (0 for a held parameter) and corr[] (row-major). */
static int covariance(const sits_scenario *sc, const sits_replay *r, const sits_thermal_cal *c,
                      double msr, double *se, double *corr, sits_err *err) {
  size_t rows = r->trace->n_rows, ns = r->n_sensors, nt = c->n_train < rows ? c->n_train : rows;
  size_t free_p[MAX_P], nf = 0;
  for (size_t p = 0; p < c->n_params; p++) {
    se[p] = 0;
    for (size_t q = 0; q < c->n_params; q++)
      corr[p * c->n_params + q] = p == q;
    if (!c->params[p].at_bound && isfinite(c->params[p].value))
      free_p[nf++] = p;
  }
  if (nf == 0 || !(msr > 0))
    return SITS_OK;
  double sigma = sqrt(msr);
  gsl_matrix *J = gsl_matrix_calloc(ns * nt + nf, nf), *V = gsl_matrix_alloc(nf, nf);
  gsl_vector *S = gsl_vector_alloc(nf), *w = gsl_vector_alloc(nf);
  if (!J || !V || !S || !w) {
    gsl_matrix_free(J), gsl_matrix_free(V), gsl_vector_free(S), gsl_vector_free(w);
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  }
  int rc = SITS_OK;
  double scale[MAX_P];
  for (size_t j = 0; rc == SITS_OK && j < nf; j++) {
    const sits_thermal_param *p = &c->params[free_p[j]];
    scale[j] = fabs(p->value) > 0 ? fabs(p->value) : 1.0;
    double h = 1e-4 * scale[j];
    sits_replay *m = NULL;
    rc = replay_moved(sc, r, p->path, p->value + h, &m, err);
    for (size_t k = 0; rc == SITS_OK && k < ns; k++) {
      int col = sits_trace_column(r->trace, r->sensors[k].column);
      for (size_t t = 0; t < nt; t++) { /* rows without a reading carry no information */
        double g = (m->sim_c[k * rows + t] - r->sim_c[k * rows + t]) / h * scale[j] / sigma;
        if (col >= 0 && isfinite(sits_trace_at(r->trace, t, (size_t)col)) && isfinite(g))
          gsl_matrix_set(J, k * nt + t, j, g);
      }
    }
    sits_replay_free(m);
    /* the range's row: sqrt(12) / its width in this coordinate */
    double width = p->log_scale && p->lo > 0 ? log(p->hi / p->lo) : (p->hi - p->lo) / scale[j];
    if (isfinite(width) && width > 0)
      gsl_matrix_set(J, ns * nt + j, j, sqrt(12.0) / width);
  }
  if (rc == SITS_OK && gsl_linalg_SV_decomp(J, V, S, w) != GSL_SUCCESS)
    rc = sits__fail(err, SITS_ESOLVER, "the sensitivities' SVD failed");
  if (rc == SITS_OK) {
    double smax = gsl_vector_get(S, 0), cov[MAX_P * MAX_P] = {0};
    for (size_t a = 0; a < nf; a++)
      for (size_t b = 0; b < nf; b++) {
        double v = 0;
        for (size_t i = 0; i < nf; i++) {
          double si = gsl_vector_get(S, i);
          if (si > 1e-12 * smax)
            v += gsl_matrix_get(V, a, i) * gsl_matrix_get(V, b, i) / (si * si);
        }
        cov[a * nf + b] = v;
      }
    for (size_t a = 0; a < nf; a++)
      se[free_p[a]] = sqrt(fmax(cov[a * nf + a], 0)) * scale[a];
    for (size_t a = 0; a < nf; a++)
      for (size_t b = 0; b < nf; b++) {
        double d = sqrt(fmax(cov[a * nf + a], 0) * fmax(cov[b * nf + b], 0));
        corr[free_p[a] * c->n_params + free_p[b]] = d > 0 ? cov[a * nf + b] / d : (a == b);
      }
  }
  gsl_matrix_free(J), gsl_matrix_free(V), gsl_vector_free(S), gsl_vector_free(w);
  return rc;
}

static void add_array(config_setting_t *g, const char *name, const double *v, size_t n) {
  config_setting_t *a = config_setting_add(g, name, CONFIG_TYPE_ARRAY);
  for (size_t k = 0; a && k < n; k++)
    config_setting_set_float_elem(a, -1, isfinite(v[k]) ? v[k] : 0.0);
}

static void add_strings(config_setting_t *g, const char *name, const char *const *v, size_t n) {
  config_setting_t *a = config_setting_add(g, name, CONFIG_TYPE_ARRAY);
  for (size_t k = 0; a && k < n; k++)
    config_setting_set_string_elem(a, -1, v[k]);
}

/* c->config_text with its uncertainty group replaced by one from @p c and @p q95. */
static int write_group(sits_thermal_cal *c, const double *q95, const double *se_in,
                       const double *corr, sits_err *err) {
  config_t cfg;
  config_init(&cfg);
  if (config_read_string(&cfg, c->config_text) != CONFIG_TRUE) {
    sits__fail(err, SITS_EINPUT, "the calibrated scenario does not read back: %s",
               config_error_text(&cfg));
    config_destroy(&cfg);
    return SITS_EINPUT;
  }
  config_setting_t *root = config_root_setting(&cfg);
  const char *paths[MAX_P], *sensors[SITS_THERMAL_CAL_MAX_SENSORS];
  double values[MAX_P], se[MAX_P], *cm = calloc(MAX_P * MAX_P, sizeof *cm);
  if (!cm) {
    config_destroy(&cfg);
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  }
  size_t np = c->n_params;
  for (size_t k = 0; k < np; k++)
    paths[k] = c->params[k].path, values[k] = c->params[k].value, se[k] = se_in[k];
  for (size_t i = 0; i < np; i++)
    for (size_t j = 0; j < np; j++)
      cm[i * MAX_P + j] = corr[i * np + j];
  /* the scenario's own group, when it has one (a network calibrated before, kept here: --fit
   * ambient,initial on another recording): its parameters this fit did not move, still at
   * their values, keep their standard errors and correlations among themselves (none with
   * the new ones, which this trace fitted alone) */
  const config_setting_t *old = config_setting_get_member(root, "uncertainty");
  const config_setting_t *op = old ? config_setting_get_member(old, "parameters") : NULL,
                         *ov = old ? config_setting_get_member(old, "values") : NULL,
                         *os = old ? config_setting_get_member(old, "std_err") : NULL,
                         *oc = old ? config_setting_get_member(old, "correlation") : NULL;
  int on = op ? config_setting_length(op) : 0;
  size_t from[MAX_P], kept = 0;                      /* the old indices kept, at np + kept */
  char(*names)[160] = malloc(MAX_P * sizeof *names); /* theirs: the old group goes below */
  if (!(ov && os && oc && config_setting_length(ov) == on && config_setting_length(os) == on &&
        config_setting_length(oc) == on * on))
    on = 0;
  for (int k = 0; names && k < on && np + kept < MAX_P; k++) {
    const char *path = config_setting_get_string_elem(op, k);
    double v = config_setting_get_float_elem(ov, k), e = config_setting_get_float_elem(os, k);
    const config_setting_t *now = path ? config_lookup(&cfg, path) : NULL;
    bool fitted = false;
    for (size_t j = 0; path && j < np; j++)
      fitted |= strcmp(path, paths[j]) == 0;
    int type = now ? config_setting_type(now) : CONFIG_TYPE_NONE;
    double in_force = type == CONFIG_TYPE_FLOAT ? config_setting_get_float(now)
                      : type == CONFIG_TYPE_INT || type == CONFIG_TYPE_INT64
                          ? (double)config_setting_get_int64(now)
                          : NAN;
    if (!path || fitted || !(e >= 0) || !(fabs(in_force - v) <= 1e-9 * fmax(fabs(v), 1e-300)))
      continue;
    snprintf(names[kept], sizeof names[0], "%s", path);
    from[kept] = (size_t)k, paths[np + kept] = names[kept], values[np + kept] = v;
    se[np + kept] = e, kept++;
  }
  for (size_t i = 0; i < kept; i++)
    for (size_t j = 0; j < kept; j++)
      cm[(np + i) * MAX_P + np + j] =
          config_setting_get_float_elem(oc, (int)(from[i] * (size_t)on + from[j]));
  size_t nt = np + kept;
  double *flat = malloc((nt * nt + 1) * sizeof *flat);
  config_setting_remove(root, "uncertainty");
  config_setting_t *g =
      flat && names ? config_setting_add(root, "uncertainty", CONFIG_TYPE_GROUP) : NULL;
  if (!g) {
    free(cm), free(flat), free(names);
    config_destroy(&cfg);
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  }
  for (size_t i = 0; i < nt; i++)
    for (size_t j = 0; j < nt; j++)
      flat[i * nt + j] = cm[i * MAX_P + j];
  for (size_t k = 0; k < c->n_sensors; k++)
    sensors[k] = c->sensor[k];
  add_strings(g, "parameters", paths, nt);
  add_array(g, "values", values, nt);
  add_array(g, "std_err", se, nt);
  add_array(g, "correlation", flat, nt * nt);
  add_strings(g, "sensors", sensors, c->n_sensors);
  add_array(g, "residual_q95_c", q95, c->n_sensors);
  free(cm), free(flat), free(names);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  int rc = SITS_OK;
  if (!f)
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  else {
    config_write(&cfg, f);
    if (fclose(f) != 0)
      rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  }
  config_destroy(&cfg);
  if (rc) {
    free(text);
    return rc;
  }
  free(c->config_text);
  c->config_text = text;
  return SITS_OK;
}

/* The absolute residuals of one forecast block: the scenario fitted again on the rows before
 * @p from (a fraction of the trace; from where the fit ended, one start) and replayed; sensor
 * k's over [from, tf) appended to d[k] (n[k] of them so far). A block whose fit does not end
 * adds nothing. */
static int forecast_block(const sits_thermal_cal *c, const sits_thermal_cal_opts *o, double from,
                          double tf, double **d, size_t *n, sits_err *err) {
  sits_thermal_cal_opts ov = *o;
  ov.scenario_text = c->config_text, ov.sets = NULL, ov.n_sets = 0, ov.progress = NULL;
  ov.hold_from = from, ov.hold_to = tf, ov.use_to = tf, ov.fit_trips = false;
  sits_thermal_cal val;
  sits_err quiet = {0};
  if (sits__calibrate_thermal_warm(&ov, &val, &quiet) != SITS_OK)
    return SITS_OK;
  sits_scenario *sc = NULL;
  sits_replay *r = NULL;
  int rc = sits_scenario_load_text(val.config_text, o->scenario_path, NULL, 0, &sc, err);
  if (rc == SITS_OK)
    rc = sits_replay_run(sc, o->trace_path, &o->trace, &r, err);
  size_t rows = rc == SITS_OK ? r->trace->n_rows : 0, lo = (size_t)floor(from * (double)rows);
  for (size_t k = 0; rc == SITS_OK && k < r->n_sensors && k < c->n_sensors; k++) {
    int col = sits_trace_column(r->trace, r->sensors[k].column);
    for (size_t t = lo; col >= 0 && t < c->n_train && t < rows; t++) {
      double m = sits_trace_at(r->trace, t, (size_t)col);
      if (isfinite(m) && isfinite(r->sim_c[k * rows + t]))
        d[k][n[k]++] = fabs(r->sim_c[k * rows + t] - m);
    }
  }
  sits_replay_free(r);
  sits_scenario_free(sc);
  sits_thermal_cal_release(&val);
  return rc;
}

/* A block whose percentile is over FORECAST_OUTLIER times the blocks' median is a fit that
 * stopped in a far minimum, not the data's forecast error (the H200 card B: 17.2 K against
 * 2.3 and 2.6 K). */
#define FORECAST_OUTLIER 3.0

double sits__forecast_q95_of(const double *q, size_t n) {
  if (n == 0)
    return NAN;
  double sorted[16];
  size_t m = n < 16 ? n : 16;
  memcpy(sorted, q, m * sizeof *q);
  gsl_sort(sorted, 1, m);
  double median = gsl_stats_median_from_sorted_data(sorted, 1, m), sum = 0;
  size_t kept = 0;
  for (size_t k = 0; k < m; k++)
    if (!(q[k] > FORECAST_OUTLIER * median))
      sum += q[k], kept++;
  return kept ? sum / (double)kept : NAN;
}

/* The forecast residuals' 95th percentile per sensor: the mean of the percentiles of forecast
 * blocks that all end where the training rows end and start at a half, five eighths and three
 * quarters of them, each the calibrated scenario fitted again on the rows before its start and
 * replayed over the block, which that fit did not see, as a prediction makes them. The longer
 * blocks reach the horizons a held-out part has (the drift a single short block cannot show);
 * each block's percentile is an estimate of the same quantile, and their mean weighs the three
 * alike, where pooling the residuals weighed the longest block, fitted on the fewest rows,
 * most (on 18 traces 9 bands met both of the outside check's criteria this way, 7 pooled;
 * validation/README.md); a block far above the others' median is left out
 * (sits__forecast_q95_of). NAN per sensor where there is no such block (training rows that are
 * not a prefix of the trace, too few rows) or no block's fit ends. */
static int forecast_q95(const sits_thermal_cal *c, const sits_thermal_cal_opts *o, double *q95,
                        sits_err *err) {
  for (size_t k = 0; k < c->n_sensors; k++)
    q95[k] = NAN;
  double tf = o->train_fraction > 0 ? o->train_fraction : 0.7;
  if (o->hold_to > o->hold_from || c->n_train < 40)
    return SITS_OK;
  static const double starts[] = {0.5, 0.625, 0.75};
  enum { N_BLOCKS = sizeof starts / sizeof starts[0] };
  size_t ns = c->n_sensors;
  /* each block's residuals in its own buffers: the blocks are fitted in parallel (OpenMP
   * threads, opts.threads as sits_calibrate_thermal_auto), the figure the same on any number */
  double *buf = malloc(N_BLOCKS * ns * (c->n_train + 1) * sizeof *buf + 1);
  size_t n[N_BLOCKS][SITS_THERMAL_CAL_MAX_SENSORS] = {{0}};
  int rcs[N_BLOCKS] = {SITS_OK};
  sits_err errs[N_BLOCKS] = {{0}};
  size_t done = 0;
  if (!buf)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  size_t want = o->threads ? o->threads : (size_t)omp_get_max_threads();
#pragma omp parallel for schedule(dynamic) num_threads(want < N_BLOCKS ? (int)want : N_BLOCKS)
  for (size_t b = 0; b < N_BLOCKS; b++) {
    double *d[SITS_THERMAL_CAL_MAX_SENSORS];
    for (size_t k = 0; k < ns; k++)
      d[k] = buf + (b * ns + k) * (c->n_train + 1);
    rcs[b] = forecast_block(c, o, starts[b] * tf, tf, d, n[b], &errs[b]);
#pragma omp critical /* unnamed: a named one is an exported symbol */
    if (o->progress) /* each block is a fit: counted as such (offset NAN) */
      o->progress(++done, N_BLOCKS, NAN, o->progress_user);
  }
  int rc = SITS_OK;
  double each[SITS_THERMAL_CAL_MAX_SENSORS][N_BLOCKS];
  size_t blocks[SITS_THERMAL_CAL_MAX_SENSORS] = {0};
  for (size_t b = 0; rc == SITS_OK && b < N_BLOCKS; b++) {
    if ((rc = rcs[b]))
      *err = errs[b];
    for (size_t k = 0; rc == SITS_OK && k < ns; k++) {
      double *d = buf + (b * ns + k) * (c->n_train + 1);
      if (n[b][k] >= 10) {
        gsl_sort(d, 1, n[b][k]);
        each[k][blocks[k]++] = gsl_stats_quantile_from_sorted_data(d, 1, n[b][k], 0.95);
      }
    }
  }
  for (size_t k = 0; rc == SITS_OK && k < ns; k++)
    q95[k] = sits__forecast_q95_of(each[k], blocks[k]);
  free(buf);
  return rc;
}

int sits_thermal_cal_add_uncertainty(sits_thermal_cal *c, const sits_thermal_cal_opts *o,
                                     sits_err *err) {
  sits_scenario *sc = NULL;
  sits_replay *r = NULL;
  double q95[SITS_THERMAL_CAL_MAX_SENSORS], msr = NAN;
  double *se = calloc(MAX_P, sizeof *se), *corr = calloc(MAX_P * MAX_P, sizeof *corr);
  int rc = se && corr ? SITS_OK : sits__fail(err, SITS_ENOMEM, "out of memory");
  if (rc == SITS_OK)
    rc = sits_scenario_load_text(c->config_text, o->scenario_path, NULL, 0, &sc, err);
  if (rc == SITS_OK)
    rc = sits_replay_run(sc, o->trace_path, &o->trace, &r, err);
  if (rc == SITS_OK)
    rc = residual_q95(r, c->n_train, q95, &msr, err);
  if (rc == SITS_OK)
    rc = covariance(sc, r, c, msr, se, corr, err);
  double fq95[SITS_THERMAL_CAL_MAX_SENSORS];
  if (rc == SITS_OK)
    rc = forecast_q95(c, o, fq95, err);
  for (size_t k = 0; rc == SITS_OK && k < c->n_sensors; k++) { /* the wider of the two */
    c->training_q95_c[k] = q95[k], c->forecast_q95_c[k] = fq95[k];
    if (fq95[k] > q95[k])
      q95[k] = fq95[k];
  }
  sits_replay_free(r), r = NULL;
  sits_scenario_free(sc), sc = NULL;
  if (rc == SITS_OK)
    rc = write_group(c, q95, se, corr, err);
  free(se), free(corr);
  /* the band over the held-out rows, from the scenario as written */
  if (rc == SITS_OK)
    rc = sits_scenario_load_text(c->config_text, o->scenario_path, NULL, 0, &sc, err);
  if (rc == SITS_OK)
    rc = sits_replay_run(sc, o->trace_path, &o->trace, &r, err);
  if (rc == SITS_OK)
    rc = sits_replay_bands(sc, r, c->n_train, err);
  for (size_t k = 0; rc == SITS_OK && k < c->n_sensors && k < r->n_sensors; k++) {
    c->residual_q95_c[k] = q95[k];
    c->band_coverage[k] = r->band_coverage[k];
    c->band_mean_half_width_c[k] = r->band_mean_half_width_c[k];
  }
  c->has_band = rc == SITS_OK;
  sits_replay_free(r);
  sits_scenario_free(sc);
  return rc;
}

/* ---- bands on predictions: run and steady ---- */

/* The scenario @p sc with parameter @p path at @p value (reloaded from its merged text). */
static int scenario_moved(const sits_scenario *sc, const char *path, double value,
                          sits_scenario **out, sits_err *err) {
  char set[256];
  snprintf(set, sizeof set, "%s=%.17g", path, value);
  const char *sets[] = {set};
  return sits_scenario_load_text(sits_scenario_config_text(sc), sits__scenario_path(sc), sets, 1,
                                 out, err);
}

/* The figures a band covers, as one prediction gives them; F_END the run's end reason (NAN for
 * a steady state), which decides whether its final temperature is comparable. */
enum { F_PEAK, F_THROTTLE, F_RUNTIME, F_FINAL, F_END, N_FIGS };

typedef int (*predict_fn)(const sits_scenario *sc, const void *ctx, double *fig, sits_err *err);

/* The secant sensitivities of the figures to each parameter moved by its standard error,
 * combined through the correlations: sigma per figure, and how many parameters moved. A figure
 * that a moved prediction does not have (a throttle that no longer happens) or that is not
 * comparable (the final temperature of a run that ends another way: a trip instead of the
 * duration's end) gets no sigma (NAN): a secant across that jump is no sensitivity. */
static int propagate(const sits_scenario *sc, const uncertainty *u, predict_fn predict,
                     const void *ctx, const double *base, double *sigma, size_t *used,
                     sits_err *err) {
  double d[MAX_P][N_FIGS] = {{0}};
  int rc = SITS_OK;
  *used = 0;
  for (size_t p = 0; rc == SITS_OK && p < u->n_p; p++) {
    if (!(u->se[p] > 0))
      continue; /* undetermined or at a bound: held */
    sits_scenario *moved = NULL;
    double fig[N_FIGS];
    rc = scenario_moved(sc, u->path[p], u->value[p] + u->se[p], &moved, err);
    if (rc == SITS_OK)
      rc = predict(moved, ctx, fig, err);
    sits_scenario_free(moved);
    for (int k = 0; rc == SITS_OK && k < N_FIGS; k++)
      d[p][k] = fig[k] - base[k];
    if (rc == SITS_OK && isfinite(base[F_END]) && fig[F_END] != base[F_END])
      d[p][F_FINAL] = NAN;
    (*used)++;
  }
  for (int k = 0; rc == SITS_OK && k < N_FIGS; k++) {
    double var = 0;
    for (size_t i = 0; i < u->n_p; i++)
      for (size_t j = 0; j < u->n_p; j++)
        if (u->se[i] > 0 && u->se[j] > 0)
          var += d[i][k] * d[j][k] * u->corr[i * u->n_p + j];
    sigma[k] = isfinite(base[k]) && isfinite(var) ? sqrt(fmax(var, 0)) : NAN;
  }
  return rc;
}

/* The band from the figures' sigmas: temperatures with the widest sensor's residual quantile,
 * times with the parameters' part alone; the junction limit's probability as Gaussian. */
static void band_of(const sits_scenario *sc, const uncertainty *u, const double *base,
                    const double *sigma, size_t used, sits_band *b) {
  double q = 0;
  for (size_t s = 0; s < u->n_s; s++)
    q = fmax(q, u->q95[s]);
  double hw = sqrt(q * q + Z95 * Z95 * sigma[F_PEAK] * sigma[F_PEAK]);
  double hw_final = sqrt(q * q + Z95 * Z95 * sigma[F_FINAL] * sigma[F_FINAL]);
  double limit = sits_scenario_limits(sc)->max_junction_temp_c;
  *b = (sits_band){.set = true,
                   .level = 0.95,
                   .n_params = used,
                   .residual_q95_c = q,
                   .max_junction_temp_half_width_c = hw,
                   .time_to_throttle_half_width_s = Z95 * sigma[F_THROTTLE],
                   .runtime_half_width_s = Z95 * sigma[F_RUNTIME],
                   .final_junction_temp_half_width_c = hw_final,
                   .p_junction_ok = NAN};
  if (isfinite(limit) && isfinite(base[F_PEAK]))
    b->p_junction_ok =
        hw > 0 ? gsl_cdf_ugaussian_P((limit - base[F_PEAK]) / (hw / Z95)) : base[F_PEAK] < limit;
}

static void run_figures(const sits_summary *s, double *fig) {
  fig[F_PEAK] = s->max_junction_temp_c;
  fig[F_THROTTLE] = s->time_to_throttle_s;
  fig[F_RUNTIME] = s->has_battery ? s->runtime_s : NAN;
  fig[F_FINAL] = s->final_junction_temp_c;
  fig[F_END] = (double)s->end_reason;
}

static int predict_run(const sits_scenario *sc, const void *ctx, double *fig, sits_err *err) {
  const sits_run_opts *given = ctx; /* only its stop hook: no sinks, no progress */
  sits_run_opts o = {.sink = sits_sink_discard,
                     .stop = given ? given->stop : NULL,
                     .stop_user = given ? given->stop_user : NULL};
  sits_result *r = NULL;
  int rc = sits_run(sc, &o, &r, err);
  if (rc == SITS_OK)
    run_figures(sits_result_summary(r), fig);
  sits_result_free(r);
  return rc;
}

int sits_run_bands(const sits_scenario *sc, const sits_run_opts *opts, sits_result *r,
                   sits_err *err) {
  /* the moved runs need neither sinks nor progress, but stop when the caller's run would */
  uncertainty u;
  memset(&u, 0, sizeof u);
  int got = read_uncertainty(sc, &u, err);
  if (got <= 0)
    return got == 0 ? SITS_OK : SITS_EINPUT;
  double base[N_FIGS], sigma[N_FIGS];
  size_t used;
  run_figures(sits_result_summary(r), base);
  int rc = propagate(sc, &u, predict_run, opts, base, sigma, &used, err);
  if (rc == SITS_OK)
    band_of(sc, &u, base, sigma, used, &r->band);
  return rc;
}

static int predict_steady(const sits_scenario *sc, const void *ctx, double *fig, sits_err *err) {
  (void)ctx;
  sits_steady_state st;
  memset(&st, 0, sizeof st);
  int rc = sits_steady(sc, &st, err);
  fig[F_PEAK] = rc == SITS_OK ? st.max_junction_temp_c : NAN;
  fig[F_THROTTLE] = fig[F_RUNTIME] = fig[F_FINAL] = fig[F_END] = NAN;
  sits_steady_release(&st);
  return rc;
}

int sits_steady_bands(const sits_scenario *sc, sits_steady_state *st, sits_err *err) {
  uncertainty u;
  memset(&u, 0, sizeof u);
  int got = read_uncertainty(sc, &u, err);
  if (got <= 0)
    return got == 0 ? SITS_OK : SITS_EINPUT;
  double base[N_FIGS] = {st->max_junction_temp_c, NAN, NAN, NAN, NAN}, sigma[N_FIGS];
  size_t used;
  int rc = propagate(sc, &u, predict_steady, NULL, base, sigma, &used, err);
  if (rc == SITS_OK)
    band_of(sc, &u, base, sigma, used, &st->band);
  return rc;
}

int sits_dvfs_table_bands(const sits_scenario *sc, sits_dvfs_table *t, sits_err *err) {
  uncertainty u;
  memset(&u, 0, sizeof u);
  int got = read_uncertainty(sc, &u, err);
  if (got <= 0)
    return got == 0 ? SITS_OK : SITS_EINPUT;
  size_t n = t->n;
  double(*d)[64] = calloc(MAX_P, sizeof *d);
  sits_dvfs_table *moved_t = malloc(sizeof *moved_t);
  int rc = d && moved_t ? SITS_OK : sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t p = 0; rc == SITS_OK && p < u.n_p; p++) {
    if (!(u.se[p] > 0))
      continue; /* undetermined or at a bound: held */
    sits_scenario *moved = NULL;
    rc = scenario_moved(sc, u.path[p], u.value[p] + u.se[p], &moved, err);
    if (rc == SITS_OK)
      rc = sits_dvfs_table_compute(moved, t->domain, moved_t, err);
    sits_scenario_free(moved);
    for (size_t k = 0; rc == SITS_OK && k < n && k < moved_t->n; k++)
      d[p][k] = moved_t->rows[k].steady_temp_c - t->rows[k].steady_temp_c;
  }
  double q = 0;
  for (size_t s = 0; s < u.n_s; s++)
    q = fmax(q, u.q95[s]);
  for (size_t k = 0; rc == SITS_OK && k < n; k++) {
    double var = 0;
    for (size_t i = 0; i < u.n_p; i++)
      for (size_t j = 0; j < u.n_p; j++)
        if (u.se[i] > 0 && u.se[j] > 0)
          var += d[i][k] * d[j][k] * u.corr[i * u.n_p + j];
    /* a row that runs away here or when moved has no band */
    t->rows[k].steady_temp_half_width_c = isfinite(var) && isfinite(t->rows[k].steady_temp_c)
                                              ? sqrt(q * q + Z95 * Z95 * fmax(var, 0))
                                              : NAN;
  }
  free(d), free(moved_t);
  return rc;
}

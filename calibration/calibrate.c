/* calibrate.c - battery calibration against a measured test (see sits_calibrate.h). */
#define _POSIX_C_SOURCE 200809L
#include "sits_output.h"
#include "scenario_internal.h"
#include "status_internal.h"
#include "sits_calibrate.h"
#include "sits_table.h"
#include "json_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *mapping(const sits_scenario *sc, const char *key, const char *given,
                           const char *dflt) {
  if (given)
    return given;
  const char *v = NULL;
  config_setting_t *g = config_lookup(sits__scenario_cfg(sc), "replay.battery");
  if (g && config_setting_lookup_string(g, key, &v) == CONFIG_TRUE)
    return v;
  return dflt;
}

/* The units a cycler's column may be in, per quantity (UNIT_TIME ... UNIT_CHARGE): value x
 * scale + offset is in s, A, V, C or Ah. */
enum { UNIT_TIME, UNIT_CURRENT, UNIT_VOLTAGE, UNIT_TEMP, UNIT_CHARGE };
static const struct {
  const char *text;
  int kind;
  double scale, offset;
} known_units[] = {{"s", UNIT_TIME, 1, 0},
                   {"sec", UNIT_TIME, 1, 0},
                   {"ms", UNIT_TIME, 1e-3, 0},
                   {"min", UNIT_TIME, 60, 0},
                   {"h", UNIT_TIME, 3600, 0},
                   {"A", UNIT_CURRENT, 1, 0},
                   {"mA", UNIT_CURRENT, 1e-3, 0},
                   {"uA", UNIT_CURRENT, 1e-6, 0},
                   {"\u00b5A", UNIT_CURRENT, 1e-6, 0},
                   {"V", UNIT_VOLTAGE, 1, 0},
                   {"mV", UNIT_VOLTAGE, 1e-3, 0},
                   {"C", UNIT_TEMP, 1, 0},
                   {"degC", UNIT_TEMP, 1, 0},
                   {"\u00b0C", UNIT_TEMP, 1, 0},
                   {"\u2103", UNIT_TEMP, 1, 0},
                   {"K", UNIT_TEMP, 1, -273.15},
                   {"Ah", UNIT_CHARGE, 1, 0},
                   {"mAh", UNIT_CHARGE, 1e-3, 0},
                   {"As", UNIT_CHARGE, 1.0 / 3600, 0},
                   {"A.h", UNIT_CHARGE, 1, 0},
                   {"mA.h", UNIT_CHARGE, 1e-3, 0}};
static const char *const unit_kinds[] = {"a time (s, ms, min, h)", "a current (A, mA, uA)",
                                         "a voltage (V, mV)", "a temperature (C, degC, K)",
                                         "a charge (Ah, mAh, As)"};

/* The unit of column @p c (named @p name) of @p t, as @p kind: from the units row under the
 * header when the file has one (it must be a unit of that quantity, or empty), else from a
 * bracketed unit at the end of the name ("Current (mA)", "Voltage[V]"; text there that is no
 * unit is passed over, a unit of another quantity is an error). *scale and *offset take a value
 * to s, A, V, C or Ah. */
static int column_unit(const sits_table *t, size_t c, const char *name, int kind, const char *path,
                       double *scale, double *offset, sits_err *err) {
  *scale = 1, *offset = 0;
  const char *src = t->units ? t->units[c] : name, *a = src, *b = src + strlen(src);
  bool from_row = t->units != NULL;
  if (!from_row) { /* the last bracket group, when the name ends with one; else after a '/' */
    const char *slash = strrchr(a, '/');
    if (b > a && (b[-1] == ')' || b[-1] == ']')) {
      const char *o = strrchr(a, b[-1] == ')' ? '(' : '[');
      if (!o)
        return SITS_OK;
      a = o + 1, b--;
    } else if (slash) /* "I/mA", "time/s", "Ewe/V", "(Q-Qo)/mA.h" (EC-Lab's names) */
      a = slash + 1;
    else
      return SITS_OK;
  }
  while (a < b && (isspace((unsigned char)*a) || *a == '[' || *a == '('))
    a++;
  while (b > a && (isspace((unsigned char)b[-1]) || b[-1] == ']' || b[-1] == ')'))
    b--;
  size_t len = (size_t)(b - a);
  if (len == 0)
    return SITS_OK; /* no unit: the base one */
  int other = -1;
  for (int pass = 0; pass < 2 && other < 0; pass++) /* as written, then in any case ("AH") */
    for (size_t k = 0; k < sizeof known_units / sizeof *known_units; k++)
      if (strlen(known_units[k].text) == len &&
          (pass ? strncasecmp(known_units[k].text, a, len)
                : strncmp(known_units[k].text, a, len)) == 0) {
        if (known_units[k].kind == kind) {
          *scale = known_units[k].scale, *offset = known_units[k].offset;
          return SITS_OK;
        }
        other = known_units[k].kind;
      }
  if (!from_row && other < 0)
    return SITS_OK; /* "(cell 1)": not a unit */
  return sits__fail(err, SITS_EINPUT, "%s:%zu: column '%s' is in '%.*s', not %s", path,
                    from_row ? t->units_line : t->header_line, name, (int)len, a, unit_kinds[kind]);
}

/* One sample in physical ranges: its stamp within 1e9 s (32 years) of the first, its current within
 * 10 kA, its voltage (NAN: none) positive and at most 1500 V, a cell's or a pack's (the largest
 * packs are 1000-1500 V). */
static int check_sample(const char *path, size_t line, double since_first_s, double t_s, double i_a,
                        double v_v, sits_err *err) {
  if (!(fabs(since_first_s) <= 1e9)) /* Unix-time stamps (1.7e9 s) are fine: the span counts */
    return sits__fail(err, SITS_EINPUT, "%s:%zu: time %g s is more than 1e9 s from the first row's",
                      path, line, t_s);
  if (!(fabs(i_a) <= 1e4))
    return sits__fail(err, SITS_EINPUT, "%s:%zu: current %g A is outside [-1e4, 1e4] A", path, line,
                      i_a);
  if (!isnan(v_v) && !(v_v > 0 && v_v <= 1500))
    return sits__fail(err, SITS_EINPUT, "%s:%zu: voltage %g V is outside (0, 1500] V", path, line,
                      v_v);
  return SITS_OK;
}

/* Reads the time, current and voltage columns of @p path (other columns may hold text);
 * current multiplied by @p sign. Rows with the time of the row before (a cycler logging 10 Hz
 * data to 0.01 s, or two channels per stamp) are merged into one, current and voltage
 * averaged; *merged counts the rows merged away. Time that goes back is an error. Without a
 * voltage column (names[2] NULL: a charge count) the voltages are NAN. names[4], when given, is
 * the cycler's charge counter [Ah], read into *q_ah with the current's sign (discharge
 * positive). */
static int read_series_t(const char *path, const char *const names[5], double sign, size_t *n,
                         double **t_s, double **i_a, double **v_v, double **temp_c, double **q_ah,
                         size_t *merged, sits_err *err) {
  sits_table *t = NULL;
  bool with_t = names[3] != NULL, with_v = names[2] != NULL, with_q = names[4] != NULL;
  const char *cols[5] = {names[0], names[1], names[2], names[3], names[4]};
  size_t nc = 2, col_v = 0, col_t = 0, col_q = 0;
  if (with_v)
    cols[col_v = nc++] = names[2];
  if (with_t)
    cols[col_t = nc++] = names[3];
  if (with_q)
    cols[col_q = nc++] = names[4];
  int rc = sits_table_read_csv_columns(path, cols, nc, &t, err);
  if (rc) {
    if (strstr(err->msg, ": no column '"))
      snprintf(err->msg + strlen(err->msg), sizeof err->msg - strlen(err->msg),
               " (map it with replay.battery or the options)");
    return rc;
  }
  /* each column in its unit (a units row's or the name's), to s, A, V, C, Ah */
  double sc[5] = {1, 1, 1, 1, 1}, off[5] = {0, 0, 0, 0, 0};
  const int kinds[5] = {UNIT_TIME, UNIT_CURRENT, UNIT_VOLTAGE, UNIT_TEMP, UNIT_CHARGE};
  size_t at[5] = {0, 1, col_v, col_t, col_q};
  for (size_t k = 0; rc == SITS_OK && k < 5; k++)
    if (k < 2 || (k == 2 && with_v) || (k == 3 && with_t) || (k == 4 && with_q))
      rc = column_unit(t, at[k], names[k], kinds[k], path, &sc[k], &off[k], err);
  if (rc) {
    sits_table_free(t);
    return rc;
  }
  *n = t->n_rows;
  *t_s = malloc(*n * sizeof(double));
  *i_a = malloc(*n * sizeof(double));
  *v_v = malloc(*n * sizeof(double));
  if (with_t)
    *temp_c = malloc(*n * sizeof(double));
  if (with_q)
    *q_ah = malloc(*n * sizeof(double));
  if (!*t_s || !*i_a || !*v_v || (with_t && !*temp_c) || (with_q && !*q_ah))
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  size_t m = 0, group = 0; /* rows kept; rows in the current stamp's group */
  *merged = 0;
  for (size_t k = 0; rc == SITS_OK && k < t->n_rows; k++) {
    double tk = sc[0] * sits_table_at(t, k, 0), ik = sign * sc[1] * sits_table_at(t, k, 1),
           vk = with_v ? sc[2] * sits_table_at(t, k, col_v) : NAN,
           ck = with_t ? sc[3] * sits_table_at(t, k, col_t) + off[3] : NAN,
           qk = with_q ? sign * sc[4] * sits_table_at(t, k, col_q) : NAN;
    if ((rc = check_sample(path, t->lines[k], tk - sc[0] * sits_table_at(t, 0, 0), tk, ik,
                           with_v ? vk : NAN, err)))
      break;
    if (with_t && !(ck > -100 && ck < 200)) {
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: cell temperature %g C is not one", path,
                      t->lines[k], ck);
      break;
    }
    if (m && tk == (*t_s)[m - 1]) { /* the running mean of the group */
      group++, (*merged)++;
      (*i_a)[m - 1] += (ik - (*i_a)[m - 1]) / (double)group;
      (*v_v)[m - 1] += (vk - (*v_v)[m - 1]) / (double)group;
      if (with_t)
        (*temp_c)[m - 1] += (ck - (*temp_c)[m - 1]) / (double)group;
      if (with_q)
        (*q_ah)[m - 1] += (qk - (*q_ah)[m - 1]) / (double)group;
      continue;
    }
    if (m && !(tk > (*t_s)[m - 1]))
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: time goes back (%.9g s after %.9g s)", path,
                      t->lines[k], tk, (*t_s)[m - 1]);
    (*t_s)[m] = tk, (*i_a)[m] = ik, (*v_v)[m] = vk;
    if (with_t)
      (*temp_c)[m] = ck;
    if (with_q)
      (*q_ah)[m] = qk;
    m++, group = 1;
  }
  *n = m;
  sits_table_free(t);
  return rc;
}

static int read_series(const char *path, const char *const names[3], double sign, size_t *n,
                       double **t_s, double **i_a, double **v_v, size_t *merged, sits_err *err) {
  const char *five[5] = {names[0], names[1], names[2], NULL, NULL};
  return read_series_t(path, five, sign, n, t_s, i_a, v_v, NULL, NULL, merged, err);
}

/* The OCV test: a table from its discharge, corrected by the cell's R0 + sum R_k. */
static int ocv_test(const sits_battery_cfg *cell, const sits_calibrate_opts *o,
                    const char *const names[3], sits_ocv_test *out, sits_err *err) {
  size_t n = 0, nc = 0;
  double *t = NULL, *i = NULL, *v = NULL, *tc = NULL, *ic = NULL, *vc = NULL;
  size_t merged;
  int rc = read_series(o->ocv_test_path, names, 1.0, &n, &t, &i, &v, &merged, err);
  if (rc == SITS_OK && o->ocv_charge_path) /* the charge branch: the same columns */
    rc = read_series(o->ocv_charge_path, names, 1.0, &nc, &tc, &ic, &vc, &merged, err);
  double r_dc = cell->r0_ohm;
  for (size_t k = 0; k < cell->n_rc; k++)
    r_dc += cell->rc_r_ohm[k];
  if (rc == SITS_OK) {
    double r = o->ocv_r_given ? o->ocv_r_ohm : NAN;
    size_t pts = o->ocv_points ? o->ocv_points : 101;
    rc = o->ocv_charge_path
             ? sits_ocv_from_branches(t, i, v, n, tc, ic, vc, nc, r, r_dc, pts,
                                      o->ocv_max_c_rate_per_h, out, err)
             : sits_ocv_from_discharge(t, i, v, n, r, r_dc, pts, o->ocv_max_c_rate_per_h, out, err);
    if (rc) {
      char msg[SITS_ERRMSG_MAX];
      snprintf(msg, sizeof msg, "%s", err->msg);
      sits__fail(err, rc, "%s%s%s: %s", o->ocv_test_path, o->ocv_charge_path ? " + " : "",
                 o->ocv_charge_path ? o->ocv_charge_path : "", msg);
    }
  }
  free(t), free(i), free(v), free(tc), free(ic), free(vc);
  return rc;
}

/* The cycle's recordings (the trace's time and current columns and sign) into out->cycle. */
static int cycle_test(const sits_calibrate_opts *o, const char *const names[3], double sign,
                      sits_calibration *out, sits_err *err) {
  size_t m = o->n_cycle, *n = calloc(m, sizeof *n);
  double **t = calloc(m, sizeof *t), **i = calloc(m, sizeof *i);
  int rc = n && t && i ? SITS_OK : sits__fail(err, SITS_ENOMEM, "out of memory");
  const char *two[5] = {o->cycle_columns[0] ? o->cycle_columns[0] : names[0],
                        o->cycle_columns[1] ? o->cycle_columns[1] : names[1], NULL, NULL, NULL};
  for (size_t p = 0; rc == SITS_OK && p < m; p++) {
    double *v = NULL;
    size_t merged;
    rc = read_series_t(o->cycle_paths[p], two, sign, &n[p], &t[p], &i[p], &v, NULL, NULL, &merged,
                       err);
    free(v);
  }
  if (rc == SITS_OK) {
    double ref = o->cycle_ref_eta > 0 ? o->cycle_ref_eta : NAN;
    rc = sits_capacity_from_cycle(m, n, (const double *const *)t, (const double *const *)i, 1, ref,
                                  &out->cycle, err);
    if (rc) { /* a cycle read with the wrong sign looks like no cycle: say which sign */
      char msg[SITS_ERRMSG_MAX];
      snprintf(msg, sizeof msg, "%s", err->msg);
      /* counted, then refused: not a cycle from full to full */
      bool shape = out->cycle.discharge_ah > 0 || out->cycle.charge_ah > 0;
      sits__fail(err, rc, "--cycle %s%s: %s%s%s%s", o->cycle_paths[0], m > 1 ? " ..." : "", msg,
                 shape ? " (read with " : "", shape ? (sign > 0 ? "positive" : "negative") : "",
                 shape ? " current discharging: replay.battery.discharge_positive, "
                         "--discharge-positive/-negative)"
                       : "");
    }
  }
  for (size_t p = 0; p < m && t && i; p++)
    free(t[p]), free(i[p]);
  free(n), free(t), free(i);
  out->has_cycle = rc == SITS_OK;
  return rc;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Rests, current steps and the step resistance of the trace (see sits_calibration), over each
 * test (the largest current of them all the scale). */
static void segments(sits_calibration *c) {
  size_t n = c->n;
  double i_max = 0;
  c->r_step_median_ohm = c->r_step_q1_ohm = c->r_step_q3_ohm = NAN;
  for (size_t k = 0; k < n; k++)
    i_max = fmax(i_max, fabs(c->i_a[k]));
  if (!(i_max > 0) || n < 2)
    return;
  double *r = malloc(n * sizeof *r), rest_start = NAN;
  size_t nr = 0, test = 0;
  for (size_t k = 0; k < n; k++) {
    bool last = k + 1 == c->test_start[test + 1]; /* the test's last sample */
    bool rest = fabs(c->i_a[k]) < 0.02 * i_max;
    if (rest && isnan(rest_start))
      rest_start = c->t_s[k];
    if ((!rest || last) && !isnan(rest_start)) {
      double len = c->t_s[k] - rest_start;
      if (len >= 10.0)
        c->n_rests++, c->rest_s += len;
      rest_start = NAN;
    }
    if (last) {
      test++;
      continue;
    }
    {
      double dt = c->t_s[k + 1] - c->t_s[k], q = c->i_a[k] * dt / 3600.0;
      if (q > 0)
        c->discharge_ah += q;
      else
        c->charge_ah -= q;
      double di = c->i_a[k + 1] - c->i_a[k];
      if (fabs(di) >= 0.2 * i_max && dt <= 2.0) {
        c->n_steps++;
        double rk = -(c->v_v[k + 1] - c->v_v[k]) / di;
        if (r && rk > 0 && isfinite(rk))
          r[nr++] = rk;
      }
    }
  }
  if (r && nr) {
    qsort(r, nr, sizeof *r, cmp_double);
    c->r_step_median_ohm = r[nr / 2];
    c->r_step_q1_ohm = r[nr / 4];
    c->r_step_q3_ohm = r[(3 * nr) / 4];
  }
  free(r);
}

/* Appends @p n values of @p src to *dst (holding @p have), or drops *dst when @p src is NULL. */
static int append(double **dst, size_t have, const double *src, size_t n) {
  if (!src) {
    free(*dst), *dst = NULL;
    return 0;
  }
  double *d = realloc(*dst, (have + n) * sizeof(double));
  if (!d)
    return -1;
  memcpy(d + have, src, n * sizeof(double));
  *dst = d;
  return 0;
}

/* Every test's trace (the same columns and sign) into out's series, one after another. */
static int read_tests(const sits_calibrate_opts *o, const char *const names[5], double sign,
                      sits_calibration *out, sits_err *err) {
  size_t nt = 1 + o->n_more_traces;
  if (nt > SITS_BATTERY_FIT_MAX_TESTS || (o->n_more_traces && !o->more_trace_paths))
    return sits__fail(err, SITS_EINPUT, "a battery fit takes 1 to %d traces (given %zu)",
                      SITS_BATTERY_FIT_MAX_TESTS, nt);
  out->n_tests = nt;
  int rc = SITS_OK;
  for (size_t s = 0; rc == SITS_OK && s < nt; s++) {
    const char *path = s ? o->more_trace_paths[s - 1] : o->trace_path;
    out->trace_paths[s] = path;
    out->test_start[s] = out->n;
    if (s == 0) {
      rc = read_series_t(path, names, sign, &out->n, &out->t_s, &out->i_a, &out->v_v, &out->temp_c,
                         &out->q_ah, &out->merged_rows, err);
      continue;
    }
    size_t n = 0, merged = 0;
    double *t = NULL, *i = NULL, *v = NULL, *tc = NULL, *q = NULL;
    rc = read_series_t(path, names, sign, &n, &t, &i, &v, &tc, &q, &merged, err);
    if (rc == SITS_OK &&
        (append(&out->t_s, out->n, t, n) || append(&out->i_a, out->n, i, n) ||
         append(&out->v_v, out->n, v, n) || (out->temp_c && append(&out->temp_c, out->n, tc, n)) ||
         (out->q_ah && append(&out->q_ah, out->n, q, n))))
      rc = sits__fail(err, SITS_ENOMEM, "out of memory");
    out->n += rc == SITS_OK ? n : 0;
    out->merged_rows += merged;
    free(t), free(i), free(v), free(tc), free(q);
  }
  out->test_start[out->n_tests] = out->n;
  return rc;
}

/* Every test in out averaged over blocks of @p block_s seconds, in place (see
 * sits_calibrate_opts.average_s): a block starts at a sample and holds the samples less than
 * block_s after it. */
static void average_blocks(sits_calibration *out, double block_s) {
  size_t w = 0;
  for (size_t s = 0; s < out->n_tests; s++) {
    size_t a = out->test_start[s], b = out->test_start[s + 1];
    out->test_start[s] = w;
    for (size_t k0 = a; k0 < b;) {
      size_t k1 = k0 + 1;
      while (k1 < b && out->t_s[k1] - out->t_s[k0] < block_s)
        k1++;
      double it = 0, dt = 0, v = 0, tc = 0;
      for (size_t k = k0; k < k1; k++) {
        if (k + 1 < b) /* the current held until the next sample */
          it += out->i_a[k] * (out->t_s[k + 1] - out->t_s[k]), dt += out->t_s[k + 1] - out->t_s[k];
        v += out->v_v[k];
        tc += out->temp_c ? out->temp_c[k] : 0.0;
      }
      double m = (double)(k1 - k0);
      out->t_s[w] = out->t_s[k0];
      out->i_a[w] = dt > 0 ? it / dt : out->i_a[k0];
      out->v_v[w] = v / m;
      if (out->temp_c)
        out->temp_c[w] = tc / m;
      if (out->q_ah)
        out->q_ah[w] = out->q_ah[k0];
      w++, k0 = k1;
    }
  }
  out->test_start[out->n_tests] = out->n = w;
}

/* The tests averaged over blocks of o->average_s seconds when asked (average_blocks), each
 * left with 10 samples or more. */
static int average_tests(const sits_calibrate_opts *o, sits_calibration *out, sits_err *err) {
  if (o->average_s == 0)
    return SITS_OK;
  if (!(o->average_s > 0 && o->average_s < INFINITY))
    return sits__fail(err, SITS_EINPUT, "average_s must be a positive number of seconds");
  out->average_s = o->average_s;
  average_blocks(out, o->average_s);
  for (size_t s = 0; s < out->n_tests; s++)
    if (out->test_start[s + 1] - out->test_start[s] < 10)
      return sits__fail(err, SITS_EINPUT,
                        "%s: averaged over blocks of %g s it keeps %zu samples (10 or more "
                        "needed)",
                        out->trace_paths[s], o->average_s,
                        out->test_start[s + 1] - out->test_start[s]);
  return SITS_OK;
}

/* The cell @p c fitted on the tests read into out (sits_battery_fit_tests_p); an error about
 * a test names its file when there are several. */
static int fit_tests(const sits_battery_cfg *c, size_t n_rc, const sits_calibrate_opts *o,
                     sits_calibration *out, sits_err *err) {
  sits_battery_test tests[SITS_BATTERY_FIT_MAX_TESTS];
  for (size_t s = 0; s < out->n_tests; s++) {
    size_t a = out->test_start[s];
    tests[s] = (sits_battery_test){out->t_s + a,
                                   out->i_a + a,
                                   out->v_v + a,
                                   out->temp_c ? out->temp_c + a : NULL,
                                   out->q_ah ? out->q_ah + a : NULL,
                                   out->test_start[s + 1] - a,
                                   o->initial_soc_given,
                                   o->initial_soc};
  }
  int rc = sits_battery_fit_tests_p(c, tests, out->n_tests, n_rc, o->train_fraction,
                                    (o->fit_capacity ? SITS_BATTERY_FIT_CAPACITY : 0u) |
                                        (o->fit_lag ? SITS_BATTERY_FIT_LAG : 0u) |
                                        (o->keep_cell ? SITS_BATTERY_FIT_KEEP : 0u) |
                                        (o->fit_arrhenius ? SITS_BATTERY_FIT_ARRHENIUS : 0u) |
                                        (o->fit_rows ? SITS_BATTERY_FIT_ROWS : 0u),
                                    o->progress, o->progress_user, &out->fit, err);
  if (rc && out->n_tests > 1 && strncmp(err->msg, "test ", 5) == 0) { /* name the file */
    char msg[SITS_ERRMSG_MAX];
    size_t s = (size_t)strtoul(err->msg + 5, NULL, 10);
    snprintf(msg, sizeof msg, "%s", err->msg);
    if (s >= 1 && s <= out->n_tests)
      sits__fail(err, rc, "%s: %s", out->trace_paths[s - 1], msg);
  }
  return rc;
}

int sits_calibrate_battery(const sits_scenario *sc, const sits_calibrate_opts *o,
                           sits_calibration *out, sits_err *err) {
  memset(out, 0, sizeof *out);
  const sits_battery *b = sits_scenario_battery(sc);
  if (!b)
    return sits__fail(err, SITS_EINPUT, "--fit battery needs a battery in the platform");
  int sign = o->discharge_positive;
  if (sign < 0) {
    int v = 0;
    config_setting_t *g = config_lookup(sits__scenario_cfg(sc), "replay.battery");
    sign = g && config_setting_lookup_bool(g, "discharge_positive", &v) == CONFIG_TRUE ? v : 0;
  }
  const char *names[3] = {mapping(sc, "time_column", o->time_column, "time_s"),
                          mapping(sc, "current_column", o->current_column, "current_a"),
                          mapping(sc, "voltage_column", o->voltage_column, "voltage_v")};
  const sits_battery_cfg *cell = sits_battery_config(b);
  sits_battery_cfg c = *cell;
  c.capacity_ah = sits_battery_capacity_ah(b);
  c.capacity_wh = NAN;
  int rc = SITS_OK;
  if (o->ocv_test_path) {
    const char *ocv_names[3] = {o->ocv_columns[0] ? o->ocv_columns[0] : names[0],
                                o->ocv_columns[1] ? o->ocv_columns[1] : names[1],
                                o->ocv_columns[2] ? o->ocv_columns[2] : names[2]};
    if ((rc = ocv_test(cell, o, ocv_names, &out->ocv, err)))
      return rc;
    out->has_ocv = true;
    /* the fit (if any) uses the measured table and capacity */
    c.n_ocv = out->ocv.n;
    c.n_ocv_t = 0;
    memcpy(c.ocv_soc, out->ocv.soc, out->ocv.n * sizeof(double));
    memcpy(c.ocv_v, out->ocv.ocv_v, out->ocv.n * sizeof(double));
    c.capacity_ah = out->ocv.capacity_ah;
  }
  if (o->n_cycle && (o->fit_capacity || !o->cycle_paths))
    return sits__fail(err, SITS_EINPUT,
                      o->fit_capacity ? "a cycle gives the capacity: it is not fitted with one"
                                      : "a cycle without its recordings");
  if (o->n_cycle) { /* its capacity and efficiency win over the OCV test's and the cell's */
    if ((rc = cycle_test(o, names, sign ? 1.0 : -1.0, out, err)))
      return rc;
    c.capacity_ah = out->cycle.capacity_ah;
    c.coulombic_eff = out->cycle.coulombic_eff;
  }
  out->train_fraction = o->train_fraction;
  out->initial_soc_given = o->initial_soc_given ? o->initial_soc : NAN;
  out->fit_capacity = o->fit_capacity;
  out->fit_lag = o->fit_lag;
  out->kept = o->keep_cell;
  out->fit_arrhenius = o->fit_arrhenius;
  out->start_capacity_ah = c.capacity_ah;
  if (!o->trace_path)
    return SITS_OK;
  out->has_fit = true;
  out->fit_rows = o->fit_rows;
  const char *with_t[5] = {names[0], names[1], names[2],
                           mapping(sc, "temperature_column", o->temperature_column, NULL),
                           mapping(sc, "charge_column", o->charge_column, NULL)};
  if ((rc = read_tests(o, with_t, sign ? 1.0 : -1.0, out, err)))
    return rc;
  size_t n_rc = cell->n_rc ? cell->n_rc : 1;
  out->rc_added = !o->keep_cell && cell->n_rc == 0;
  segments(out);
  out->n_recorded = out->n;
  if ((rc = average_tests(o, out, err)))
    return rc;
  return fit_tests(&c, n_rc, o, out, err);
}

void sits_calibration_release(sits_calibration *c) {
  free(c->t_s), free(c->i_a), free(c->v_v), free(c->temp_c), free(c->q_ah), free(c->fit.model_v);
  memset(c, 0, sizeof *c);
}

static void metrics_json(FILE *f, const char *key, const sits_fit_metrics *m) {
  fprintf(f, "\"%s\":{\"voltage_v\":{", key);
  sits__json_metrics(f, m, "v");
  fputs("}}", f);
}

static void ocv_json(FILE *f, const sits_ocv_test *o) {
  fprintf(f,
          "\"ocv_test\":{\"capacity_ah\":%.10g,\"c_rate_per_h\":%.6g,\"r_dc_ohm\":%.6g,"
          "\"r_dc_source\":\"%s\","
          "\"t_start_s\":%.10g,\"t_end_s\":%.10g,\"n_samples\":%zu,\"discharge_sign\":%d,"
          "\"n_points\":%zu,\"ocv_v_at_soc_0\":%.6g,\"ocv_v_at_soc_0_5\":%.6g,"
          "\"ocv_v_at_soc_1\":%.6g",
          o->capacity_ah, o->c_rate_per_h, o->r_dc_ohm, o->r_source, o->t_start_s, o->t_end_s,
          o->n_samples, o->discharge_sign, o->n, o->ocv_v[0], o->ocv_v[(o->n - 1) / 2],
          o->ocv_v[o->n - 1]);
  if (o->both_branches) /* the midpoint of discharge and charge */
    fprintf(f,
            ",\"branches\":\"discharge+charge\",\"charge_capacity_ah\":%.10g,"
            "\"half_gap_v\":%.6g",
            o->charge_capacity_ah, o->half_gap_v);
  fputc('}', f);
}

static void cycle_json(FILE *f, const sits_cycle_capacity *y) {
  fprintf(f,
          "\"cycle\":{\"capacity_ah\":%.10g,\"coulombic_efficiency\":%.10g,"
          "\"discharge_ah\":%.10g,\"charge_ah\":%.10g,\"first_charge_ah\":%.10g,"
          "\"reference_efficiency\":",
          y->capacity_ah, y->coulombic_eff, y->discharge_ah, y->charge_ah, y->first_charge_ah);
  sits__json_num(f, y->eta_ref); /* null without one */
  fprintf(f, ",\"empty_recording\":%zu,\"empty_time_s\":%.10g}", y->empty_part + 1, y->empty_t_s);
}

/* The rows over temperature as parameters: r_t_c, r_soc, and the factors of R0, each R_k and
 * each C_k at each row and knot (the config's r0_scale, rc.[k].r_scale and c_scale rows). */
static void rows_json(FILE *f, const sits_battery_fit *b) {
  for (size_t t = 0; t < b->n_r_t; t++)
    fprintf(f, ",\"platform.battery.r_t_c.[%zu]\":%.10g", t, b->r_t_c[t]);
  for (size_t q = 0; q < b->n_r_soc; q++)
    fprintf(f, ",\"platform.battery.r_soc.[%zu]\":%.10g", q, b->r_soc[q]);
  for (size_t t = 0; t < b->n_r_t; t++)
    for (size_t q = 0; q < b->n_r_soc; q++) {
      fprintf(f, ",\"platform.battery.r0_scale.[%zu].[%zu]\":%.10g", t, q, b->r0_scale_t[t][q]);
      for (size_t k = 0; k < b->n_rc; k++)
        fprintf(f,
                ",\"platform.battery.rc.[%zu].r_scale.[%zu].[%zu]\":%.10g,"
                "\"platform.battery.rc.[%zu].c_scale.[%zu].[%zu]\":%.10g",
                k, t, q, b->rc_r_scale_t[k][t][q], k, t, q, b->rc_c_scale_t[k][t]);
    }
}

/* Each test of a joint fit: its trace, samples, start SOC, median temperature and figures. */
static void tests_json(FILE *f, const sits_calibration *c) {
  fputs(",\"tests\":[", f);
  for (size_t s = 0; s < c->n_tests; s++) {
    const struct sits_battery_fit_test *t = &c->fit.tests[s];
    fputs(s ? ",{\"trace\":" : "{\"trace\":", f);
    sits__json_str(f, c->trace_paths[s]);
    fprintf(f,
            ",\"samples\":%zu,\"train_samples\":%zu,\"initial_soc\":%.10g,\"temp_median_c\":", t->n,
            t->n_train, t->initial_soc);
    sits__json_num(f, t->temp_median_c);
    fputc(',', f);
    metrics_json(f, "train", &t->train);
    fputc(',', f);
    metrics_json(f, "holdout", &t->holdout);
    fputc('}', f);
  }
  fputc(']', f);
}

/* The JSON of an OCV test or a cycle alone (no fit). */
static int only_tests_json(const sits_calibration *c, FILE *f) {
  fprintf(f, "{\"schema_version\":1,\"fit\":[%s%s%s],\"parameters\":{", c->has_ocv ? "\"ocv\"" : "",
          c->has_ocv && c->has_cycle ? "," : "", c->has_cycle ? "\"cycle\"" : "");
  if (c->has_cycle)
    fprintf(f,
            "\"platform.battery.capacity_ah\":%.10g,"
            "\"platform.battery.coulombic_efficiency\":%.10g},",
            c->cycle.capacity_ah, c->cycle.coulombic_eff);
  else
    fprintf(f, "\"platform.battery.capacity_ah\":%.10g},", c->ocv.capacity_ah);
  if (c->has_ocv)
    ocv_json(f, &c->ocv);
  if (c->has_cycle) {
    if (c->has_ocv)
      fputc(',', f);
    cycle_json(f, &c->cycle);
  }
  fputs("}\n", f);
  return ferror(f) ? SITS_EIO : SITS_OK;
}

/* The "fit" list and the "parameters" object of a fit, up to its closing brace. */
static void parameters_json(const sits_calibration *c, FILE *f) {
  const sits_battery_fit *b = &c->fit;
  bool soc_fitted = isnan(c->initial_soc_given);
  fprintf(f, "{\"schema_version\":1,\"fit\":[\"%s\"%s%s%s%s%s%s],\"parameters\":{",
          c->kept ? "soc" : "battery", c->fit_capacity ? ",\"capacity\"" : "",
          c->has_ocv ? ",\"ocv\"" : "", c->has_cycle ? ",\"cycle\"" : "",
          c->fit_lag ? ",\"lag\"" : "", c->fit_arrhenius ? ",\"arrhenius\"" : "",
          c->fit_rows ? ",\"rows\"" : "");
  const char *sep = "";      /* before the first parameter */
  if (c->kept && soc_fitted) /* the kept cell's values are the scenario's, not the fit's */
    fprintf(f, "\"initial_soc_of_the_test\":%.10g", b->initial_soc), sep = ",";
  else if (!c->kept)
    fprintf(f, "\"platform.battery.r0_ohm\":%.10g", b->r0_ohm), sep = ",";
  for (size_t k = 0; !c->kept && k < b->n_rc; k++)
    fprintf(f, ",\"platform.battery.rc.[%zu].r_ohm\":%.10g,\"platform.battery.rc.[%zu].c_f\":%.10g",
            k, b->rc_r_ohm[k], k, b->rc_c_f[k]);
  if (b->n_r_t > 0 && !c->kept) /* rows over temperature: r_soc too when the cell had none */
    rows_json(f, b);
  for (size_t q = 0; b->n_r_t == 0 && q < b->n_r_soc; q++) { /* the factors at the cell's r_soc */
    fprintf(f, ",\"platform.battery.r0_scale.[%zu]\":%.10g", q, b->r0_scale[q]);
    for (size_t k = 0; k < b->n_rc; k++)
      fprintf(f, ",\"platform.battery.rc.[%zu].r_scale.[%zu]\":%.10g", k, q, b->rc_r_scale[k][q]);
  }
  if (c->fit_capacity || c->has_ocv || c->has_cycle)
    fprintf(f, "%s\"platform.battery.capacity_ah\":%.10g", sep, b->capacity_ah), sep = ",";
  if (c->has_cycle)
    fprintf(f, ",\"platform.battery.coulombic_efficiency\":%.10g", c->cycle.coulombic_eff);
  if (b->hyst_m_v > 0 && !c->kept)
    fprintf(
        f,
        ",\"platform.battery.hysteresis.m_v\":%.10g,\"platform.battery.hysteresis.gamma\":%.10g,"
        "\"platform.battery.hysteresis.m0_v\":%.10g,\"hysteresis_initial_of_the_test\":%.10g",
        b->hyst_m_v, b->hyst_gamma, b->hyst_m0_v, b->hyst_initial);
  if (c->fit_lag)
    fprintf(f, "%s\"voltage_lag_fraction_of_the_test\":%.10g,\"voltage_lag_s_of_the_test\":%.10g",
            sep, b->lag_frac, b->lag_s),
        sep = ",";
  if (c->fit_arrhenius)
    fprintf(f, "%s\"platform.battery.r_ea_j_per_mol\":%.10g", sep, b->r_ea_j_per_mol);
  if (!c->kept && soc_fitted)
    fprintf(f, ",\"initial_soc_of_the_test\":%.10g", b->initial_soc);
}

/* ,"flags":[...]: what a reader of the fitted values should know. */
/* The first test's training span [s] (the rows the fit saw of it). */
static double train_span_s(const sits_calibration *c) {
  size_t n_train = c->n_tests > 1 ? c->fit.tests[0].n_train : c->fit.n_train;
  size_t end = c->n_tests > 1 ? c->test_start[1] : c->n;
  if (n_train > end)
    n_train = end;
  return n_train >= 2 ? c->t_s[n_train - 1] - c->t_s[0] : 0.0;
}

/* One flag of the Calibrate JSON: the array opened by the first (*open), a comma before the
 * others; the caller closes it when open. */
static void flag(FILE *f, bool *open, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs(*open ? ",\"" : ",\"flags\":[\"", f);
  vfprintf(f, fmt, ap);
  fputc('"', f);
  va_end(ap);
  *open = true;
}

/* The flags on the resistances: what the trace's current leaves them (none, an RC pair that
 * stands for a drift, an R0 no battery has) and an RC pair the fit added. */
static void resistance_flags(const sits_calibration *c, FILE *f, bool *open) {
  const sits_battery_fit *b = &c->fit;
  bool no_current = sits_calibration_no_current(c);
  int odd = sits_calibration_rc_implausible(c);
  if (no_current)
    flag(f, open,
         "the trace carries no current (every |I| below 1 uA): the voltage says nothing of the "
         "cell's resistances, which keep the values they started from; give a test with current "
         "steps");
  if (odd >= 0)
    flag(f, open,
         "platform.battery.rc.[%d] was fitted at %.4g ohm and %.4g F (a time constant of %.3g s "
         "against a training part of %.3g s, R0 %.3g ohm): no relaxation in the data supports "
         "it, and the pair stands for a drift instead (an OCV table or capacity off, or an "
         "offset in the recording); its values are not the cell's",
         odd, b->rc_r_ohm[odd], b->rc_c_f[odd], b->rc_r_ohm[odd] * b->rc_c_f[odd], train_span_s(c),
         b->r0_ohm);
  if (c->rc_added)
    flag(f, open,
         "the cell has no RC pair: the fit added one (platform.battery.rc.[0]), as R0 alone "
         "cannot follow the voltage's relaxation after a current step");
  if (sits_calibration_r0_implausible(c))
    flag(f, open,
         "platform.battery.r0_ohm was fitted at %.3g ohm, below the 1 micro-ohm no cell or pack "
         "has: the voltage does not follow the current as a battery's does (a current or "
         "voltage column in the wrong unit, sign or channel?)",
         b->r0_ohm);
}

/* The Calibrate JSON's flags: fitted values a user should not believe, and why (none: no
 * "flags" key). */
static void flags_json(const sits_calibration *c, FILE *f) {
  const sits_battery_fit *b = &c->fit;
  bool open = false;
  resistance_flags(c, f, &open);
  /* a fitted capacity far from where it started: what the training part fixes is the charge
   * it moves against the OCV's slope, little on a flat OCV (LFP) or a short part */
  double cap_off = c->fit_capacity ? b->capacity_ah / c->start_capacity_ah - 1.0 : 0.0;
  if (fabs(cap_off) > 0.1)
    flag(f, &open,
         "platform.battery.capacity_ah was fitted at %.4g Ah, %+.0f %% from the %.4g Ah it "
         "started from: the training part spans %.3g Ah, which fixes the capacity only as far "
         "as the OCV changes over it (not on a flat OCV such as LFP's); see the held-out "
         "figures, or take the capacity from an OCV test or a cycle",
         b->capacity_ah, 100.0 * cap_off, c->start_capacity_ah,
         (b->train_soc_hi - b->train_soc_lo) * b->capacity_ah);
  if (!b->converged) /* the best start ended at the iteration limit or without progress */
    flag(f, &open,
         "the fit stopped before its tolerances were met (at its iteration limit, %d per start, "
         "or where no step lowered the cost): the parameters may not be at the least-squares "
         "optimum (fewer rows or r_soc points, or --average-s for a long fast log, make the "
         "problem smaller)",
         SITS_BATTERY_FIT_MAX_ITER);
  /* a kept cell's values are not the fit's: nothing to flag about them; at the bound, the
   * hysteresis term stands in for something else */
  if (!c->kept && b->hyst_m_v > 0.99 * SITS_BATTERY_FIT_HYST_M_MAX_V)
    flag(f, &open,
         "platform.battery.hysteresis.m_v is at the upper end of its range (0.1 V): the data "
         "ask for a drift with the charge moved that hysteresis does not explain (an OCV table "
         "or capacity off at this end of the SOC range?)");
  /* an activation energy at an end of its range, or from a few kelvin */
  double ea_frac = b->r_ea_j_per_mol / SITS_BATTERY_FIT_EA_MAX_J_PER_MOL;
  if (c->fit_arrhenius && (ea_frac < 0.01 || ea_frac > 0.99))
    flag(f, &open,
         "platform.battery.r_ea_j_per_mol is at an end of its range (0 to %g J/mol): the "
         "resistances' change with temperature over this test is not an Arrhenius factor's (or "
         "is hidden by what else changes with it)",
         SITS_BATTERY_FIT_EA_MAX_J_PER_MOL);
  if (c->fit_arrhenius && b->train_temp_hi_c - b->train_temp_lo_c < 5.0)
    flag(f, &open,
         "platform.battery.r_ea_j_per_mol comes from a cell temperature that spans %.3g K over "
         "the training part (%.4g to %.4g C): it fixes the factor's slope there, little beyond",
         b->train_temp_hi_c - b->train_temp_lo_c, b->train_temp_lo_c, b->train_temp_hi_c);
  for (size_t q = 0; !b->r_soc_flat && q < b->n_r_soc; q++) /* the data say little there */
    if (b->r_soc[q] < b->train_soc_lo - 0.05 || b->r_soc[q] > b->train_soc_hi + 0.05)
      flag(f, &open,
           "r_soc point %zu (SOC %.3g) lies outside the SOC the training part covers (%.3f to "
           "%.3f): its factors are not measured",
           q, b->r_soc[q], b->train_soc_lo, b->train_soc_hi);
  if (open)
    fputc(']', f);
}

int sits_write_calibration_json(const sits_calibration *c, FILE *f) {
  const sits_battery_fit *b = &c->fit;
  if (!c->has_fit) /* an OCV test or a cycle alone */
    return only_tests_json(c, f);
  parameters_json(c, f);
  bool soc_fitted = isnan(c->initial_soc_given);
  fputs("},", f);
  if (!soc_fitted)
    fprintf(f, "\"initial_soc_given\":%.10g,", c->initial_soc_given);
  metrics_json(f, "train", &b->train);
  fputc(',', f);
  metrics_json(f, "holdout", &b->holdout);
  fprintf(f, ",\"train_fraction\":%.10g,\"converged\":%s,\"merged_rows\":%zu", c->train_fraction,
          b->converged ? "true" : "false", c->merged_rows);
  if (c->average_s > 0)
    fprintf(f, ",\"average_s\":%.10g,\"recorded_samples\":%zu", c->average_s, c->n_recorded);
  if (c->n_tests > 1) /* each test's part of a joint fit */
    tests_json(f, c);
  fprintf(f,
          ",\"segments\":{\"rests\":%zu,\"rest_s\":%.10g,\"steps\":%zu,\"discharge_ah\":%.10g,"
          "\"charge_ah\":%.10g,\"r_step_ohm\":",
          c->n_rests, c->rest_s, c->n_steps, c->discharge_ah, c->charge_ah);
  if (isnan(c->r_step_median_ohm))
    fputs("null", f);
  else
    fprintf(f, "{\"median\":%.6g,\"q1\":%.6g,\"q3\":%.6g}", c->r_step_median_ohm, c->r_step_q1_ohm,
            c->r_step_q3_ohm);
  fputc('}', f);
  flags_json(c, f);
  if (c->has_ocv) {
    fputc(',', f);
    ocv_json(f, &c->ocv);
  }
  if (c->has_cycle) {
    fputc(',', f);
    cycle_json(f, &c->cycle);
  }
  fputs("}\n", f);
  return ferror(f) ? SITS_EIO : SITS_OK;
}

bool sits_calibration_r0_implausible(const sits_calibration *c) {
  /* a kept cell's R0 is not the fit's; without current R0 keeps its start (said otherwise) */
  return c->has_fit && !c->kept && !sits_calibration_no_current(c) && !(c->fit.r0_ohm >= 1e-6);
}

int sits_calibration_rc_implausible(const sits_calibration *c) {
  if (!c->has_fit || c->kept || sits_calibration_no_current(c))
    return -1;
  double span = train_span_s(c), r0 = c->fit.r0_ohm;
  for (size_t k = 0; k < c->fit.n_rc; k++) {
    double r = c->fit.rc_r_ohm[k], tau = r * c->fit.rc_c_f[k];
    if ((span > 0 && tau > 10.0 * span) || (r0 >= 1e-6 && r > 1000.0 * r0))
      return (int)k;
  }
  return -1;
}

bool sits_calibration_no_current(const sits_calibration *c) {
  if (!c->has_fit || !c->i_a)
    return false;
  for (size_t k = 0; k < c->n; k++)
    if (fabs(c->i_a[k]) >= 1e-6)
      return false;
  return true;
}

static int set_float(config_setting_t *g, const char *key, double v) {
  config_setting_t *s = config_setting_get_member(g, key);
  if (s)
    config_setting_remove(g, key);
  s = config_setting_add(g, key, CONFIG_TYPE_FLOAT);
  return s && config_setting_set_float(s, v) == CONFIG_TRUE ? 0 : -1;
}

static int set_floats(config_setting_t *g, const char *key, const double *v, size_t n) {
  if (config_setting_get_member(g, key))
    config_setting_remove(g, key);
  config_setting_t *s = config_setting_add(g, key, CONFIG_TYPE_ARRAY);
  for (size_t k = 0; s && k < n; k++)
    if (!config_setting_set_float_elem(s, -1, v[k]))
      return -1;
  return s ? 0 : -1;
}

/* A list of @p n_rows arrays of @p n floats each (a table's rows over temperature). */
static int set_rows(config_setting_t *g, const char *key, const double (*v)[SITS_BATTERY_MAX_R_SOC],
                    size_t n_rows, size_t n) {
  if (config_setting_get_member(g, key))
    config_setting_remove(g, key);
  config_setting_t *l = config_setting_add(g, key, CONFIG_TYPE_LIST);
  for (size_t t = 0; l && t < n_rows; t++) {
    config_setting_t *a = config_setting_add(l, NULL, CONFIG_TYPE_ARRAY);
    for (size_t k = 0; a && k < n; k++)
      if (!config_setting_set_float_elem(a, -1, v[t][k]))
        return -1;
    if (!a)
      return -1;
  }
  return l ? 0 : -1;
}

int sits_calibrated_cell(const sits_scenario *sc, const sits_calibration *c, sits_battery_cfg *out,
                         sits_err *err) {
  const sits_battery *b = sits_scenario_battery(sc);
  if (!b)
    return sits__fail(err, SITS_EINPUT, "the scenario's platform has no battery");
  *out = *sits_battery_config(b);
  if (c->has_ocv) { /* the measured table replaces the platform's (1-D), with its Ah */
    out->n_ocv = c->ocv.n;
    memcpy(out->ocv_soc, c->ocv.soc, c->ocv.n * sizeof *out->ocv_soc);
    memcpy(out->ocv_v, c->ocv.ocv_v, c->ocv.n * sizeof *out->ocv_v);
    out->n_ocv_t = 0;
    out->capacity_ah = c->ocv.capacity_ah, out->capacity_wh = NAN;
  }
  if (c->has_cycle)
    out->capacity_ah = c->cycle.capacity_ah, out->capacity_wh = NAN,
    out->coulombic_eff = c->cycle.coulombic_eff;
  if (c->has_fit && c->fit_arrhenius)
    out->r_ea_j_per_mol = c->fit.r_ea_j_per_mol;
  if (c->has_fit && c->kept) {
    if (c->fit_capacity)
      out->capacity_ah = c->fit.capacity_ah, out->capacity_wh = NAN;
  } else if (c->has_fit) {
    out->r0_ohm = c->fit.r0_ohm;
    out->n_rc = c->fit.n_rc;
    memcpy(out->rc_r_ohm, c->fit.rc_r_ohm, c->fit.n_rc * sizeof *out->rc_r_ohm);
    memcpy(out->rc_c_f, c->fit.rc_c_f, c->fit.n_rc * sizeof *out->rc_c_f);
    if (c->fit_capacity)
      out->capacity_ah = c->fit.capacity_ah, out->capacity_wh = NAN;
    if (c->fit.hyst_m_v > 0)
      out->hyst_m_v = c->fit.hyst_m_v, out->hyst_gamma = c->fit.hyst_gamma,
      out->hyst_m0_v = c->fit.hyst_m0_v;
    for (size_t q = 0; c->fit.n_r_t == 0 && q < c->fit.n_r_soc; q++) { /* over the r_soc */
      out->r0_scale[0][q] = c->fit.r0_scale[q];
      for (size_t k = 0; k < c->fit.n_rc; k++)
        out->rc_r_scale[k][0][q] = c->fit.rc_r_scale[k][q], out->rc_has_scale[k] = true;
    }
    if (c->fit.n_r_t > 0) { /* rows over temperature: R and C tables at every row */
      out->n_r_t = c->fit.n_r_t, out->n_r_soc = c->fit.n_r_soc, out->r_ea_j_per_mol = 0;
      memcpy(out->r_t_c, c->fit.r_t_c, c->fit.n_r_t * sizeof(double));
      memcpy(out->r_soc, c->fit.r_soc, c->fit.n_r_soc * sizeof(double));
      for (size_t t = 0; t < c->fit.n_r_t; t++)
        for (size_t q = 0; q < c->fit.n_r_soc; q++) {
          out->r0_scale[t][q] = c->fit.r0_scale_t[t][q];
          for (size_t k = 0; k < c->fit.n_rc; k++)
            out->rc_r_scale[k][t][q] = c->fit.rc_r_scale_t[k][t][q],
            out->rc_c_scale[k][t][q] = c->fit.rc_c_scale_t[k][t],
            out->rc_has_scale[k] = out->rc_has_c_scale[k] = true;
        }
    }
  }
  return SITS_OK;
}

/* The measured OCV table in place of the platform's (1-D), with its capacity. */
static bool put_ocv(config_setting_t *b, const sits_calibration *c) {
  const char *drop[] = {"ocv_soc", "ocv_v", "ocv_t_c", "capacity_wh", "capacity_ah"};
  for (size_t k = 0; k < sizeof drop / sizeof drop[0]; k++)
    if (config_setting_get_member(b, drop[k]))
      config_setting_remove(b, drop[k]);
  config_setting_t *soc = config_setting_add(b, "ocv_soc", CONFIG_TYPE_ARRAY);
  config_setting_t *v = config_setting_add(b, "ocv_v", CONFIG_TYPE_ARRAY);
  bool ok = soc && v;
  for (size_t k = 0; ok && k < c->ocv.n; k++)
    ok = config_setting_set_float_elem(soc, -1, c->ocv.soc[k]) &&
         config_setting_set_float_elem(v, -1, c->ocv.ocv_v[k]);
  ok = ok && set_float(b, "capacity_ah", c->ocv.capacity_ah) == 0;
  return ok;
}

/* The fitted cell (a kept cell stays as the scenario has it): R0, the RC pairs with their
 * SOC factors or rows over temperature (which replace the Arrhenius factor), hysteresis. */
static bool put_fitted_cell(config_setting_t *b, const sits_calibration *c) {
  bool ok = set_float(b, "r0_ohm", c->fit.r0_ohm) == 0;
  if (ok && config_setting_get_member(b, "rc"))
    config_setting_remove(b, "rc");
  config_setting_t *rc = ok ? config_setting_add(b, "rc", CONFIG_TYPE_LIST) : NULL;
  const sits_battery_fit *fr = &c->fit;
  bool rows = fr->n_r_t > 0;
  for (size_t k = 0; rc && k < fr->n_rc; k++) {
    config_setting_t *g = config_setting_add(rc, NULL, CONFIG_TYPE_GROUP);
    ok =
        ok && g && set_float(g, "r_ohm", fr->rc_r_ohm[k]) == 0 &&
        set_float(g, "c_f", fr->rc_c_f[k]) == 0 &&
        (fr->n_r_soc == 0 || rows || set_floats(g, "r_scale", fr->rc_r_scale[k], fr->n_r_soc) == 0);
    if (ok && rows) { /* a row of R factors and one of C factors per temperature */
      double cs[SITS_BATTERY_MAX_R_T][SITS_BATTERY_MAX_R_SOC];
      for (size_t t = 0; t < fr->n_r_t; t++)
        for (size_t q = 0; q < fr->n_r_soc; q++)
          cs[t][q] = fr->rc_c_scale_t[k][t];
      ok = set_rows(g, "r_scale", fr->rc_r_scale_t[k], fr->n_r_t, fr->n_r_soc) == 0 &&
           set_rows(g, "c_scale", (const double(*)[SITS_BATTERY_MAX_R_SOC])cs, fr->n_r_t,
                    fr->n_r_soc) == 0;
    }
  }
  if (ok && fr->n_r_soc > 0 && !rows)
    ok = set_floats(b, "r0_scale", fr->r0_scale, fr->n_r_soc) == 0;
  if (ok && rows) { /* the rows replace the Arrhenius factor */
    ok = set_floats(b, "r_t_c", fr->r_t_c, fr->n_r_t) == 0 &&
         set_floats(b, "r_soc", fr->r_soc, fr->n_r_soc) == 0 &&
         set_rows(b, "r0_scale", fr->r0_scale_t, fr->n_r_t, fr->n_r_soc) == 0;
    if (ok && config_setting_get_member(b, "r_ea_j_per_mol"))
      config_setting_remove(b, "r_ea_j_per_mol");
  }
  config_setting_t *hy = ok ? config_setting_get_member(b, "hysteresis") : NULL;
  if (hy && c->fit.hyst_m_v > 0) /* its initial state stays the scenario's (the test's is in
                                  * the JSON) */
    ok = set_float(hy, "m_v", c->fit.hyst_m_v) == 0 &&
         set_float(hy, "gamma", c->fit.hyst_gamma) == 0 &&
         set_float(hy, "m0_v", c->fit.hyst_m0_v) == 0;
  return ok;
}

int sits_write_calibrated_config(const sits_scenario *sc, const sits_calibration *c,
                                 const char *path, sits_err *err) {
  config_t cfg;
  config_init(&cfg);
  int ok = config_read_string(&cfg, sits_scenario_config_text(sc)) == CONFIG_TRUE;
  config_setting_t *b = ok ? config_lookup(&cfg, "platform.battery") : NULL;
  ok = b != NULL;
  if (ok && c->has_ocv) /* the measured table replaces the platform's (1-D), with its Ah */
    ok = put_ocv(b, c);
  if (ok && c->has_cycle) {
    if (config_setting_get_member(b, "capacity_wh"))
      config_setting_remove(b, "capacity_wh");
    ok = set_float(b, "capacity_ah", c->cycle.capacity_ah) == 0 &&
         set_float(b, "coulombic_efficiency", c->cycle.coulombic_eff) == 0;
  }
  /* a kept cell stays as the scenario has it: only a fitted E_a or capacity changes */
  if (ok && c->has_fit && !c->kept)
    ok = put_fitted_cell(b, c);
  if (ok && c->has_fit && c->fit_arrhenius)
    ok = set_float(b, "r_ea_j_per_mol", c->fit.r_ea_j_per_mol) == 0;
  if (ok && c->has_fit && c->fit_capacity) {
    ok = set_float(b, "capacity_ah", c->fit.capacity_ah) == 0;
    if (config_setting_get_member(b, "capacity_wh"))
      config_setting_remove(b, "capacity_wh");
  }
  sits_output *o = NULL;
  int status = ok ? ((o = sits_output_open(path, err)) ? SITS_OK : SITS_EIO)
                  : sits__fail(err, SITS_EINTERNAL, "cannot build the calibrated config");
  if (o) {
    config_write(&cfg, sits_output_file(o));
    status = sits_output_close(o, true, err);
  }
  config_destroy(&cfg);
  return status;
}

int sits_write_calibration_csv(const sits_calibration *c, const char *path, sits_err *err) {
  sits_output *o = sits_output_open(path, err);
  if (!o)
    return SITS_EIO;
  FILE *f = sits_output_file(o);
  bool many = c->n_tests > 1;
  fputs(many ? "time_s,voltage_v,model_voltage_v,current_a,held_out,test\n"
             : "time_s,voltage_v,model_voltage_v,current_a,held_out\n",
        f);
  double t0 = 0; /* each test from the previous one's end */
  for (size_t s = 0; s < (many ? c->n_tests : 1); s++) {
    size_t a = many ? c->test_start[s] : 0, e = many ? c->test_start[s + 1] : c->n;
    size_t n_train = c->fit.tests[s].n_train; /* the fit's own split of this test */
    for (size_t k = a; k < e; k++) {
      fprintf(f, "%.9g,%.9g,%.9g,%.9g,%d", t0 + c->t_s[k] - c->t_s[a], c->v_v[k], c->fit.model_v[k],
              c->i_a[k], k - a >= n_train);
      if (many)
        fprintf(f, ",%zu", s + 1);
      fputc('\n', f);
    }
    if (e > a)
      t0 += c->t_s[e - 1] - c->t_s[a];
  }
  return sits_output_close(o, true, err);
}

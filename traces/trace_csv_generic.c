/*
 * trace_csv_generic.c - a generic CSV trace whose header uses the normalised names (`time_s`,
 * `temp_c.<sensor>`, `power_w.<rail>`, ...; a `sitsenergy capture` file is one) or gives other
 * units in the same place, converted on reading: time_ms, temp_mc (m°C), power_mw, power_uw,
 * voltage_mv, voltage_uv, current_ma, current_ua, freq_khz, freq_hz, util_pct.
 * With sits_trace_opts.fields (`--fields`, with `--format csv`) the column names come from
 * that list instead, in the same normalised or unit forms, and a first line of the file whose
 * time cell holds no time (the file's own header, e.g. `Time,CPU temp,Power`) is passed over:
 * a CSV from any logger is read by naming its columns; a column named `-` there is passed
 * over (its cells are not read: a logger's text columns, "11283/62841MB", "59%").
 * The time column (anywhere in the list) holds seconds (milliseconds as time_ms), or a
 * logger's stamps: a date and time ("2025-05-01 17:06:56", "2025-05-01T17:06:56+08:00", the
 * forms sits__parse_datetime reads) or a clock time ("17:06:56.250"; past midnight it runs on
 * into the next day).
 * Empty cells and `nan` are missing values; a row with a wrong field count or a value that is
 * not a number is malformed (skipped and counted, or an error under strict). Time is shifted
 * to start at 0 and must increase.
 */
#define _POSIX_C_SOURCE 200809L
#include "trace_impl.h"
#include "status_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 1024
#define SKIP "-" /* a column name that passes the column over */

/* A header name with a unit other than the normalised one: the normalised name and the factor. */
static double unit(const char *h, char *norm, size_t size) {
  static const struct {
    const char *from, *to;
    double scale;
  } u[] = {{"temp_mc.", "temp_c.", 1e-3},       {"power_mw.", "power_w.", 1e-3},
           {"power_uw.", "power_w.", 1e-6},     {"voltage_mv.", "voltage_v.", 1e-3},
           {"voltage_uv.", "voltage_v.", 1e-6}, {"current_ma.", "current_a.", 1e-3},
           {"current_ua.", "current_a.", 1e-6}, {"freq_khz.", "freq_mhz.", 1e-3},
           {"freq_hz.", "freq_mhz.", 1e-6},     {"util_pct.", "util_frac.", 1e-2}};
  for (size_t k = 0; k < sizeof u / sizeof u[0]; k++)
    if (strncmp(h, u[k].from, strlen(u[k].from)) == 0) {
      snprintf(norm, size, "%s%s", u[k].to, h + strlen(u[k].from));
      return u[k].scale;
    }
  if (strcmp(h, "time_ms") == 0) {
    snprintf(norm, size, "time_s");
    return 1e-3;
  }
  snprintf(norm, size, "%s", h);
  return 1.0;
}

/* A header that starts with the time column, quoted or not (R's write.csv, pandas' QUOTE_ALL). */
int sits__csv_trace_sniff(const char *line) {
  size_t q = line[0] == '"';
  const char *l = line + q;
  bool s = strncmp(l, "time_s", 6) == 0 && (!q || l[6] == '"');
  bool ms = strncmp(l, "time_ms", 7) == 0 && (!q || l[7] == '"');
  char end = s ? l[6 + q] : ms ? l[7 + q] : 'x';
  return (s || ms) && (end == ',' || end == '\n' || end == '\r' || !end) ? 20 : 0;
}

/* The column names, from the file's header line or from --fields (@p line 0); the time
 * column's index into *@p ti (anywhere in the list; one, and one other column at least). */
static int header(char **f, size_t n, char ***names, size_t *n_names, double *scale, size_t *ti,
                  const char *where, size_t line, sits_err *err) {
  char at[32] = "";
  if (line)
    snprintf(at, sizeof at, ":%zu", line);
  if (!(*names = calloc(n ? n : 1, sizeof **names)))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  *n_names = n;
  *ti = n;
  char norm[256];
  for (size_t k = 0; k < n; k++) {
    scale[k] = unit(f[k], norm, sizeof norm);
    if (!*f[k] || !((*names)[k] = strdup(norm)))
      return sits__fail(err, SITS_EINPUT, "%s%s: empty or unreadable column name", where, at);
    /* a name twice would overwrite the first (a second time_s, too) */
    for (size_t j = 0; j < k && strcmp(norm, SKIP) != 0; j++)
      if (strcmp((*names)[j], norm) == 0)
        return sits__fail(err, SITS_EINPUT, "%s%s: column '%s' given twice", where, at, norm);
    if (strcmp(norm, "time_s") == 0)
      *ti = k;
  }
  if (*ti == n || n < 2)
    return sits__fail(err, SITS_EINPUT,
                      "%s%s: the header needs a time_s (or time_ms) column and another column",
                      where, at);
  return SITS_OK;
}

/* What a time cell holds: a number (in the column's unit), a clock time or a date and time
 * (both in seconds already), or no time. */
enum { NO_TIME, NUMBER, CLOCK, DATE_TIME };

static int time_cell(const char *s, double *v) {
  char *end;
  *v = strtod(s, &end);
  if (end != s && !*end)
    return isfinite(*v) ? NUMBER : NO_TIME;
  if (sits__parse_hms(s, v))
    return CLOCK;
  return sits__parse_datetime(s, v) ? DATE_TIME : NO_TIME;
}

/* A data row's cells into v (scaled to the header's units; the time in seconds, a clock
 * stamp past midnight moved to the next day, *next_day then set): why the row is malformed,
 * NULL when it is not. */
static const char *row_values(char **f, size_t n, const char *const *names, const double *scale,
                              size_t ti, double prev, double day, double *v, bool *next_day) {
  int kind = NO_TIME; /* of the time cell */
  for (size_t k = 0; k < n; k++) {
    char *end;
    if (k == ti) {
      if ((kind = time_cell(f[k], &v[k])) == NO_TIME)
        v[k] = NAN; /* missing or not a time: the row is malformed below */
      if (kind == CLOCK) {
        *next_day = v[k] + day < prev - 43200.0; /* past midnight (kept if the row is) */
        v[k] += day + (*next_day ? 86400.0 : 0.0);
      }
      continue;
    }
    if (strcmp(names[k], SKIP) == 0 || !*f[k] || strcmp(f[k], "nan") == 0 ||
        strcmp(f[k], "NaN") == 0) {
      v[k] = NAN;
      continue;
    }
    v[k] = strtod(f[k], &end);
    if (*end || !isfinite(v[k]))
      return "a value is not a number";
  }
  for (size_t k = 0; k < n; k++)
    v[k] *= k == ti && kind != NUMBER ? 1.0 : scale[k]; /* stamps are in seconds */
  if (!isfinite(v[ti]))
    return "time_s missing"; /* one not after the rows before it: sits__trace_keep_increasing */
  return NULL;
}

int sits__csv_trace_read(const char *path, const sits_trace_opts *o, sits_trace *t, sits_err *err) {
  sits__lines L;
  if (sits__lines_open(&L, path, err))
    return SITS_EINPUT;
  char **f = malloc(MAX_FIELDS * sizeof *f), **names = NULL;
  double *scale = malloc(MAX_FIELDS * sizeof *scale);
  size_t n_names = 0, ti = 0; /* the time column's index */
  int rc = f && scale ? SITS_OK : sits__fail(err, SITS_ENOMEM, "out of memory");
  double prev = -INFINITY, day = 0;
  bool given = o && o->fields && *o->fields, first_data = true;
  if (rc == SITS_OK && given) {
    char *list = strdup(o->fields);
    size_t n = list ? sits__trace_split(list, f, MAX_FIELDS) : 0;
    rc = list ? header(f, n, &names, &n_names, scale, &ti, "--fields", 0, err)
              : sits__fail(err, SITS_ENOMEM, "out of memory");
    free(list);
  }
  for (char *line; (line = sits__trace_lines_next(&L, t, o, &rc, err));) {
    char *s = sits__trim(line);
    if (!*s || *s == '#')
      continue;
    size_t n = sits__trace_split(s, f, MAX_FIELDS);
    if (!names) { /* the header */
      rc = header(f, n, &names, &n_names, scale, &ti, path, L.lineno, err);
      continue;
    }
    bool next_day = false;
    double v[MAX_FIELDS];
    if (given && first_data) { /* the file's own header, replaced by --fields */
      first_data = false;
      if (ti < n && time_cell(f[ti], &v[ti]) == NO_TIME)
        continue;
    }
    char count[96];
    snprintf(count, sizeof count, "%zu fields where %s names %zu", n,
             given ? "--fields" : "the header", n_names);
    const char *why = n != n_names ? count
                                   : row_values(f, n, (const char *const *)names, scale, ti, prev,
                                                day, v, &next_day);
    if (why) {
      rc = sits__trace_bad_line(t, o, path, L.lineno, why, err);
      continue;
    }
    prev = v[ti];
    day += next_day ? 86400.0 : 0.0;
    if (sits__trace_add_row(t, L.lineno) < 0) {
      rc = sits__fail(err, SITS_ENOMEM, "out of memory");
      break;
    }
    rc = sits__trace_set(t, "time_s", v[ti]); /* as stamped: from the first row's, below */
    for (size_t k = 0; rc == SITS_OK && k < n; k++)
      if (k != ti && strcmp(names[k], SKIP) != 0)
        rc = sits__trace_set(t, names[k], v[k]);
  }
  if (rc == SITS_OK && !names)
    rc = sits__fail(err, SITS_EINPUT, "%s: empty file (no header)", path);
  /* rows out of time order: the longest increasing sequence of stamps kept, within 1e9 s (31
   * years: replay refuses more) of the first */
  if (rc == SITS_OK)
    rc = sits__trace_keep_increasing(t, o, path, 1e9, "time_s out of order with the rows around it",
                                     err);
  double t0 = t->n_rows ? t->values[0] : 0.0; /* time_s is column 0 */
  for (size_t r = 0; rc == SITS_OK && r < t->n_rows; r++)
    t->values[r * t->n_cols] -= t0;
  for (size_t k = 0; names && k < n_names; k++)
    free(names[k]);
  free(names), free(f), free(scale);
  sits__lines_close(&L);
  return rc;
}

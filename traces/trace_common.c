/*
 * trace_common.c - what every trace reader shares (trace_impl.h): growing the normalised
 * table row by row and column by column, malformed-line policy, the line source, field
 * splitting and trimming, and the time of each row. The readers sit above it and
 * trace_read.c (the ops table and sits_trace_read) above them.
 */
#define _POSIX_C_SOURCE 200809L
#include "trace_impl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A trace is the library's table: the same release and lookup. */
void sits_trace_free(sits_trace *t) {
  sits_table_free(t);
}

int sits_trace_column(const sits_trace *t, const char *name) {
  return sits_table_column(t, name);
}

/* The kinds of the normalised names (sits_trace.h, DESIGN.md's traces) and what they hold. */
static const struct {
  const char *kind, *quantity, *unit;
} kinds[] = {{"time_s", "time", "s"},
             {"temp_c", "temperature", "C"},
             {"power_w", "power", "W"},
             {"voltage_v", "voltage", "V"},
             {"current_a", "current", "A"},
             {"freq_mhz", "frequency", "MHz"},
             {"util_frac", "utilisation", "fraction"},
             {"fan_rpm", "fan speed", "rpm"},
             {"cooling_state", "cooling-device state", "state"},
             {"pstate", "performance state", "P-state number"},
             {"throttle", "throttle reason", "0/1"},
             {"memory_mib", "memory", "MiB"},
             {"energy_j", "energy", "J"},
             {"ambient_c", "temperature", "C"},
             {"nvsmi", "nvidia-smi field", "as logged"},
             {"mark", "mark", "0/1"},
             {"phase", "phase", "0/1"}};

static size_t kind_of(const char *name) {
  size_t n = strcspn(name, ".");
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
    if (strlen(kinds[k].kind) == n && !strncmp(kinds[k].kind, name, n))
      return k;
  return (size_t)-1;
}

const char *sits_trace_column_quantity(const char *name) {
  size_t k = kind_of(name);
  return k == (size_t)-1 ? "other" : kinds[k].quantity;
}

const char *sits_trace_column_unit(const char *name) {
  size_t k = kind_of(name);
  return k == (size_t)-1 ? "as logged" : kinds[k].unit;
}

/* Row capacity is tracked in the skipped field's neighbour: keep it simple, grow by doubling
 * with the capacity derived from n_rows (powers of two). */
static size_t capacity(size_t n) {
  size_t c = 64;
  while (c < n)
    c *= 2;
  return c;
}

long sits__trace_add_row(sits_trace *t, size_t line) {
  size_t n = t->n_rows;
  if (n == 0 || (n >= 64 && (n & (n - 1)) == 0)) { /* grow at 0, 64, 128, ... */
    size_t cap = capacity(n + 1);
    double *v = realloc(t->values, cap * (t->n_cols ? t->n_cols : 1) * sizeof *v);
    if (!v)
      return -1;
    t->values = v;
    size_t *l = realloc(t->lines, cap * sizeof *l);
    if (!l)
      return -1;
    t->lines = l;
  }
  for (size_t j = 0; j < t->n_cols; j++)
    t->values[n * t->n_cols + j] = NAN;
  t->lines[n] = line;
  t->n_rows++;
  return (long)n;
}

/* For each k, the length of the longest strictly increasing sequence of x[] ending at k
 * (step +1), or, with step -1, starting at k (x negated, read from the end); tails is scratch. */
static void lis_lengths(const double *x, size_t n, int step, size_t *len, double *tails) {
  size_t m = 0;
  for (size_t k = 0; k < n; k++) {
    size_t i = step > 0 ? k : n - 1 - k;
    double v = step > 0 ? x[i] : -x[i];
    size_t lo = 0, hi = m; /* the first tail >= v */
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (tails[mid] < v)
        lo = mid + 1;
      else
        hi = mid;
    }
    tails[lo] = v;
    m += lo == m;
    len[i] = lo + 1;
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The span of @p max_span_s that holds the most of the n stamps t[] (of equal ones, the
 * earliest), as [*lo, *hi]; sorted is scratch (n). */
static void densest_span(const double *t, size_t n, double max_span_s, double *sorted, double *lo,
                         double *hi) {
  memcpy(sorted, t, n * sizeof *t);
  qsort(sorted, n, sizeof *sorted, cmp_double);
  size_t best = 0, a = 0;
  *lo = sorted[0], *hi = sorted[0];
  for (size_t b = 0; b < n; b++) {
    while (sorted[b] - sorted[a] > max_span_s)
      a++;
    if (b - a + 1 > best)
      best = b - a + 1, *lo = sorted[a], *hi = sorted[b];
  }
}

int sits__trace_keep_increasing(sits_trace *t, const sits_trace_opts *o, const char *path,
                                double max_span_s, const char *why, sits_err *err) {
  size_t n = t->n_rows, nc = t->n_cols;
  if (n < 2)
    return SITS_OK;
  size_t *lend = malloc(n * sizeof *lend), *lstart = malloc(n * sizeof *lstart);
  size_t *idx = malloc(n * sizeof *idx);
  double *x = malloc(n * sizeof *x), *tails = malloc(n * sizeof *tails);
  bool *keep = calloc(n, sizeof *keep), *far = calloc(n, sizeof *far);
  int rc = lend && lstart && idx && x && tails && keep && far
               ? SITS_OK
               : sits__fail(err, SITS_ENOMEM, "out of memory");
  if (rc == SITS_OK) {
    /* first the stamps of one recording: the span of max_span_s that holds the most rows (a
     * board's clock at 1970 before NTP set it: those rows, not the rest, are out), then the
     * longest increasing sequence among them, of equal ones the earliest rows */
    for (size_t i = 0; i < n; i++)
      x[i] = t->values[i * nc];
    double lo, hi;
    densest_span(x, n, max_span_s, tails, &lo, &hi);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
      if (x[i] >= lo && x[i] <= hi)
        idx[m] = i, x[m++] = t->values[i * nc];
      else
        far[i] = true;
    lis_lengths(x, m, 1, lend, tails);
    lis_lengths(x, m, -1, lstart, tails);
    size_t best = 0, kept = 0;
    for (size_t k = 0; k < m; k++)
      best = lend[k] > best ? lend[k] : best;
    double last = -INFINITY;
    for (size_t k = 0; k < m && kept < best; k++)
      if (x[k] > last && lstart[k] == best - kept)
        keep[idx[k]] = true, kept++, last = x[k];
  }
  size_t bad_line = 0, dropped = 0, w = 0;
  bool bad_far = false;
  for (size_t i = 0; rc == SITS_OK && i < n; i++) {
    if (!keep[i]) {
      if (!dropped++)
        bad_line = t->lines[i], bad_far = far[i];
      continue;
    }
    if (w != i) {
      memmove(&t->values[w * nc], &t->values[i * nc], nc * sizeof *t->values);
      t->lines[w] = t->lines[i];
    }
    w++;
  }
  if (rc == SITS_OK && dropped) {
    t->n_rows = w;
    char far_why[112];
    snprintf(far_why, sizeof far_why, "time_s more than %g s away from most of the rows' stamps",
             max_span_s);
    if (o && o->strict)
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: %s", path, bad_line, bad_far ? far_why : why);
    else {
      if (!t->skipped || bad_line < t->first_skipped_line) {
        t->first_skipped_line = bad_line;
        snprintf(t->first_skipped_why, sizeof t->first_skipped_why, "%s", bad_far ? far_why : why);
      }
      t->skipped += dropped;
    }
  }
  free(lend), free(lstart), free(idx), free(x), free(tails), free(keep), free(far);
  return rc;
}

/* A new column: every row so far gets NAN (the table is re-laid out). */
int sits__trace_add_column(sits_trace *t, const char *name) {
  size_t nc = t->n_cols + 1, rows = t->n_rows, cap = capacity(rows ? rows : 1);
  char **names = realloc(t->names, nc * sizeof *names);
  if (!names)
    return -1;
  t->names = names;
  if (!(t->names[t->n_cols] = strdup(name)))
    return -1;
  double *v = malloc(cap * nc * sizeof *v);
  if (!v) {
    free(t->names[t->n_cols]);
    return -1;
  }
  for (size_t r = 0; r < rows; r++) {
    for (size_t j = 0; j < t->n_cols; j++)
      v[r * nc + j] = t->values[r * t->n_cols + j];
    v[r * nc + t->n_cols] = NAN;
  }
  free(t->values);
  t->values = v;
  t->n_cols = nc;
  return (int)(nc - 1);
}

int sits__trace_set(sits_trace *t, const char *name, double v) {
  int c = sits_trace_column(t, name);
  if (c < 0 && (c = sits__trace_add_column(t, name)) < 0)
    return SITS_ENOMEM;
  if (t->n_rows)
    t->values[(t->n_rows - 1) * t->n_cols + (size_t)c] = v;
  return SITS_OK;
}

int sits__trace_bad_line(sits_trace *t, const sits_trace_opts *o, const char *path, size_t line,
                         const char *why, sits_err *err) {
  if (o && o->strict)
    return sits__fail(err, SITS_EINPUT, "%s:%zu: %s", path, line, why);
  if (!t->skipped++) {
    t->first_skipped_line = line;
    snprintf(t->first_skipped_why, sizeof t->first_skipped_why, "%s", why);
  }
  return SITS_OK;
}

char *sits__trace_lines_next(sits__lines *L, sits_trace *t, const sits_trace_opts *o, int *rc,
                             sits_err *err) {
  char *line;
  bool binary;
  while (*rc == SITS_OK && (line = sits__lines_next(L, &binary)) != NULL) {
    /* past the bound: a line with text (a blank line after the last row is not a row) */
    if (o && o->max_rows && t->n_rows >= o->max_rows && line[strspn(line, " \t\r\n")]) {
      *rc = sits__fail(err, SITS_EINPUT,
                       "%s:%zu: the trace has more than %zu rows, the bound its reader was "
                       "given (a replay's max_samples: raise it, or cut the trace)",
                       L->path, L->lineno, o->max_rows);
      return NULL;
    }
    if (!binary)
      return line;
    if (L->lineno == 1) /* not text from its first line: the file is refused, not skipped */
      *rc = sits__fail(err, SITS_EINPUT, "%s:1: %s", L->path, L->reason);
    else
      *rc = sits__trace_bad_line(t, o, L->path, L->lineno, L->reason, err);
  }
  return NULL;
}

size_t sits__trace_split(char *line, char **f, size_t max) {
  bool bad; /* a malformed quote: its field runs to the end of the line */
  size_t n = sits__csv_split(line, f, max, &bad);
  return n < max ? n : max;
}

void sits__trace_row_times(sits_trace *t, const sits_trace_opts *o, double first_s, double last_s,
                           size_t stamped) {
  if (o && o->interval_ms > 0) {
    t->interval_s = o->interval_ms / 1000.0;
    t->interval_source = "option";
  } else if (stamped >= 2 && last_s >= first_s) { /* one second: (0 + 1 s) / rows */
    t->interval_s = (last_s - first_s + 1.0) / (double)stamped;
    t->interval_source = "timestamps";
  } else {
    t->interval_s = 1.0;
    t->interval_source = "default";
  }
  for (size_t r = 0; r < t->n_rows; r++)
    t->values[r * t->n_cols] = (double)r * t->interval_s;
}

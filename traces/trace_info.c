/* trace_info.c - what a trace reader made of a file (sits_trace.h): every column with its
 * quantity, unit, count and range; rows, span, sample interval, lines skipped. */
#define _POSIX_C_SOURCE 200809L
#include "sits_trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json_internal.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median, smallest and largest step between rows' times (NAN with fewer than 2 rows). */
static void steps(const sits_trace *t, double out[3]) {
  out[0] = out[1] = out[2] = NAN;
  if (t->n_rows < 2)
    return;
  double *d = malloc((t->n_rows - 1) * sizeof *d);
  if (!d)
    return;
  for (size_t r = 1; r < t->n_rows; r++)
    d[r - 1] = sits_trace_at(t, r, 0) - sits_trace_at(t, r - 1, 0);
  qsort(d, t->n_rows - 1, sizeof *d, cmp_double);
  out[0] = d[(t->n_rows - 1) / 2], out[1] = d[0], out[2] = d[t->n_rows - 2];
  free(d);
}

typedef struct col_stats {
  size_t n;
  double min, max, mean;
} col_stats;

static col_stats stats(const sits_trace *t, size_t c) {
  col_stats s = {0, NAN, NAN, NAN};
  double sum = 0;
  for (size_t r = 0; r < t->n_rows; r++) {
    double v = sits_trace_at(t, r, c);
    if (!isfinite(v))
      continue;
    if (s.n++ == 0)
      s.min = s.max = v;
    s.min = fmin(s.min, v), s.max = fmax(s.max, v);
    sum += v;
  }
  if (s.n)
    s.mean = sum / (double)s.n;
  return s;
}

static void write_json(const sits_trace *t, const char *path, const double st[3], FILE *f) {
  fputs("{\"schema_version\":1,\"file\":", f);
  sits__json_str(f, path);
  fputs(",\"format\":", f);
  sits__json_str(f, t->format ? t->format : "");
  fprintf(f, ",\"rows\":%zu,\"skipped_lines\":%zu,\"duration_s\":", t->n_rows, t->skipped);
  sits__json_num(f, t->n_rows ? sits_trace_at(t, t->n_rows - 1, 0) : NAN);
  fputs(",\"interval_s\":{\"median\":", f);
  sits__json_num(f, st[0]);
  fputs(",\"min\":", f);
  sits__json_num(f, st[1]);
  fputs(",\"max\":", f);
  sits__json_num(f, st[2]);
  fputs(",\"source\":", f);
  sits__json_str(f, t->interval_source ? t->interval_source : "timestamps");
  fputs("},\"columns\":[", f);
  for (size_t c = 0; c < t->n_cols; c++) {
    col_stats s = stats(t, c);
    fputs(c ? ",{\"name\":" : "{\"name\":", f);
    sits__json_str(f, t->names[c]);
    fputs(",\"quantity\":", f);
    sits__json_str(f, sits_trace_column_quantity(t->names[c]));
    fputs(",\"unit\":", f);
    sits__json_str(f, sits_trace_column_unit(t->names[c]));
    fprintf(f, ",\"n\":%zu,\"min\":", s.n);
    sits__json_num(f, s.min);
    fputs(",\"max\":", f);
    sits__json_num(f, s.max);
    fputs(",\"mean\":", f);
    sits__json_num(f, s.mean);
    fputc('}', f);
  }
  fputs("]}\n", f);
}

static void write_text(const sits_trace *t, const char *path, const double st[3], FILE *f) {
  fprintf(f, "%s: %s, %zu rows over %.3f s", path, t->format ? t->format : "?", t->n_rows,
          t->n_rows ? sits_trace_at(t, t->n_rows - 1, 0) : 0.0);
  if (isfinite(st[0]))
    fprintf(f, ", interval %.4g s (%.4g to %.4g, %s)", st[0], st[1], st[2],
            t->interval_source ? t->interval_source : "timestamps");
  fprintf(f, ", %zu malformed lines skipped\n", t->skipped);
  fprintf(f, "%-34s %-22s %-15s %7s %12s %12s %12s\n", "column", "quantity", "unit", "n", "min",
          "max", "mean");
  for (size_t c = 0; c < t->n_cols; c++) {
    col_stats s = stats(t, c);
    fprintf(f, "%-34s %-22s %-15s %7zu %12.6g %12.6g %12.6g\n", t->names[c],
            sits_trace_column_quantity(t->names[c]), sits_trace_column_unit(t->names[c]), s.n,
            s.min, s.max, s.mean);
  }
}

int sits_trace_write_info(const sits_trace *t, const char *path, int json, FILE *f) {
  double st[3];
  steps(t, st);
  if (json)
    write_json(t, path, st, f);
  else
    write_text(t, path, st, f);
  return ferror(f) ? SITS_EIO : SITS_OK;
}

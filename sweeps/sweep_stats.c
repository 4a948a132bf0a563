/*
 * sweep_stats.c - the probabilistic summary of a sweep's rows (sits_sweep_write_stats): per
 * numeric column its mean, standard deviation and 5/50/95/99 % quantiles (GSL's statistics
 * over the rows that have a value), and per constraint the probability that it is violated
 * with a 95 % Wilson score interval, which stays inside [0, 1] and is honest for rare
 * violations (a normal interval collapses to zero width at 0 of N).
 */
#define _POSIX_C_SOURCE 200809L
#include "sits_sweep.h"
#include "status_internal.h"
#include "text_internal.h"
#include "json_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#define MAX_COLS 1024

/* 95 % Wilson score interval of k successes in n trials. */
static void wilson(size_t k, size_t n, double *lo, double *hi) {
  const double z = 1.959963984540054;
  double p = (double)k / (double)n, z2n = z * z / (double)n;
  double centre = (p + z2n / 2) / (1 + z2n);
  double half = z * sqrt(p * (1 - p) / (double)n + z2n / (4 * (double)n)) / (1 + z2n);
  *lo = k == 0 ? 0.0 : fmax(0.0, centre - half), *hi = k == n ? 1.0 : fmin(1.0, centre + half);
}

static bool text_column(const char *name) {
  return !strcmp(name, "index") || !strcmp(name, "config_hash") || !strcmp(name, "end_reason") ||
         !strcmp(name, "error");
}

static bool ok_column(const char *name) {
  size_t n = strlen(name);
  return (n > 3 && !strcmp(name + n - 3, ".ok")) || !strcmp(name, "verdict_ok");
}

static void jnum(FILE *f, double v) {
  if (isfinite(v))
    fprintf(f, "%.10g", v);
  else
    fputs("null", f);
}

/* The rows whose run ran (an empty error column), parsed into @p v (row-major, @p nc columns;
 * an empty or non-numeric field NAN): their count into *used, the others' into *failed. */
static void parse_rows(const char *const *rows, size_t n, size_t nc, double *v, size_t *used,
                       size_t *failed) {
  bool bad = false;
  *used = *failed = 0;
  for (size_t r = 0; r < n; r++) {
    if (!rows[r])
      continue;
    char *copy = strdup(rows[r]), *fld[MAX_COLS];
    if (!copy)
      continue;
    copy[strcspn(copy, "\n")] = '\0';
    size_t got = sits__csv_split(copy, fld, MAX_COLS, &bad);
    bool ok = got == nc && *fld[nc - 1] == '\0'; /* an empty error column: the run ran */
    *failed += !ok;
    for (size_t c = 0; ok && c < nc; c++) {
      char *end;
      double x = strtod(fld[c], &end);
      v[*used * nc + c] = *fld[c] && !*end ? x : NAN;
    }
    *used += ok;
    free(copy);
  }
}

/* Each numeric output column's mean, spread and quantiles over the @p used rows. */
static void write_columns(FILE *f, bool json, char **names, size_t nc, const double *v, size_t used,
                          double *col) {
  bool first = true;
  for (size_t c = 0; c < nc; c++) {
    if (text_column(names[c]) || ok_column(names[c]))
      continue;
    size_t k = 0;
    for (size_t r = 0; r < used; r++)
      if (!isnan(v[r * nc + c]))
        col[k++] = v[r * nc + c];
    if (k == 0)
      continue;
    gsl_sort(col, 1, k);
    double st[6] = {gsl_stats_mean(col, 1, k),
                    k > 1 ? gsl_stats_sd(col, 1, k) : 0,
                    gsl_stats_quantile_from_sorted_data(col, 1, k, 0.05),
                    gsl_stats_quantile_from_sorted_data(col, 1, k, 0.50),
                    gsl_stats_quantile_from_sorted_data(col, 1, k, 0.95),
                    gsl_stats_quantile_from_sorted_data(col, 1, k, 0.99)};
    static const char *const key[6] = {"mean", "std", "p5", "p50", "p95", "p99"};
    if (json) {
      fprintf(f, "%s", first ? "" : ",");
      sits__json_str(f, names[c]);
      fputs(":{", f);
      for (int i = 0; i < 6; i++) {
        fprintf(f, "%s\"%s\":", i ? "," : "", key[i]);
        jnum(f, st[i]);
      }
      fprintf(f, ",\"n\":%zu}", k);
    } else
      fprintf(f, "%-32s %12.6g %12.6g %12.6g %12.6g %12.6g %12.6g\n", names[c], st[0], st[1], st[2],
              st[3], st[4], st[5]);
    first = false;
  }
}

/* Each constraint's probability of violation with its 95 % Wilson interval. */
static void write_violations(FILE *f, bool json, char **names, size_t nc, const double *v,
                             size_t used) {
  bool first = true;
  for (size_t c = 0; c < nc; c++) {
    if (!ok_column(names[c]))
      continue;
    size_t k = 0, bad_rows = 0;
    for (size_t r = 0; r < used; r++)
      if (!isnan(v[r * nc + c]))
        k++, bad_rows += v[r * nc + c] == 0;
    if (k == 0)
      continue;
    double lo, hi;
    wilson(bad_rows, k, &lo, &hi);
    char name[256];
    snprintf(name, sizeof name, "%.*s",
             (int)(strcmp(names[c], "verdict_ok") ? strlen(names[c]) - 3 : 7),
             strcmp(names[c], "verdict_ok") ? names[c] : "verdict");
    if (json) {
      fprintf(f, "%s", first ? "" : ",");
      sits__json_str(f, name);
      fprintf(f, ":{\"p\":%.10g,\"ci95\":[%.10g,%.10g],\"violated\":%zu,\"n\":%zu}",
              (double)bad_rows / (double)k, lo, hi, bad_rows, k);
    } else
      fprintf(f, "  %-30s %.4f  [%.4f, %.4f]  (%zu of %zu)\n", name, (double)bad_rows / (double)k,
              lo, hi, bad_rows, k);
    first = false;
  }
}

int sits_sweep_write_stats(const sits_sweep *s, const char *const *rows, size_t n,
                           const char *format, FILE *f, sits_err *err) {
  bool json = strcmp(format, "json") == 0;
  if (!json && strcmp(format, "text") != 0)
    return sits__fail(err, SITS_EINPUT, "--summary '%s': expected text or json", format);
  char *head = sits_sweep_header(s), *names[MAX_COLS];
  if (!head)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  head[strcspn(head, "\n")] = '\0';
  bool bad = false;
  size_t nc = sits__csv_split(head, names, MAX_COLS, &bad);
  double *v = malloc((n ? n : 1) * nc * sizeof *v), *col = malloc((n ? n : 1) * sizeof *col);
  if (!v || !col || nc > MAX_COLS) {
    free(v), free(col), free(head);
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  }
  size_t used = 0, failed = 0;
  parse_rows(rows, n, nc, v, &used, &failed);
  if (json)
    fprintf(f, "{\"schema_version\":1,\"rows\":%zu,\"failed\":%zu,\"columns\":{", used, failed);
  else if (failed) /* the figures are over the rows that ran: say so */
    fprintf(f,
            "sweep of %zu rows: %zu ran, %zu failed (their error column says why); the "
            "figures below are over the %zu that ran\n",
            used + failed, used, failed, used);
  else
    fprintf(f, "sweep of %zu rows (0 failed)\n", used);
  if (!json)
    fprintf(f, "%-32s %12s %12s %12s %12s %12s %12s\n", "column", "mean", "std", "p5", "p50", "p95",
            "p99");
  write_columns(f, json, names, nc, v, used, col);
  fputs(json ? "},\"violations\":{" : "probability of violation (95 % Wilson interval):\n", f);
  write_violations(f, json, names, nc, v, used);
  fputs(json ? "}}\n" : "", f);
  free(v), free(col), free(head);
  return ferror(f) ? SITS_EIO : SITS_OK;
}

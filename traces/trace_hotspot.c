/*
 * trace_hotspot.c - HotSpot's transient output (.ttrace) as a trace: a header of block names
 * (white space between them), then one row per sampling interval of block temperatures in
 * kelvin at the END of that interval (docs: HOTSPOT-MODEL.md, file formats). It has no time
 * column: sits_trace_opts.interval_ms gives HotSpot's sampling_intvl (required).
 *
 * When the power trace that made it sits beside it (the same name with .ptrace, or a name
 * ending in .ttrace replaced by .ptrace), its block powers become power_w.<block> columns:
 * trace row k is at k x interval with temperature T_k (end of interval k) and the power of
 * interval k + 1, which holds from that row on (the replay's zero-order hold); the first
 * interval's power, before any temperature, is dropped. Columns: temp_c.<block> (K - 273.15)
 * and power_w.<block>.
 */
#define _POSIX_C_SOURCE 200809L
#include "trace_impl.h"
#include "status_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BLOCKS 8192

static bool identifier(const char *s, size_t n) {
  if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
    return false;
  for (size_t k = 0; k < n; k++)
    if (!isalnum((unsigned char)s[k]) && s[k] != '_' && s[k] != '.' && s[k] != '-')
      return false;
  return true;
}

/* A header of names separated by tabs or spaces, no commas: a HotSpot trace (a weak score:
 * formats with a signature of their own win). */
int sits__ttrace_sniff(const char *line) {
  if (strchr(line, ',') || strstr(line, "RAM "))
    return 0;
  size_t names = 0;
  for (const char *p = line; *p;) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
      p++;
    size_t n = strcspn(p, " \t\r\n");
    if (!n)
      break;
    if (!identifier(p, n))
      return 0;
    names++, p += n;
  }
  return names ? 1 : 0;
}

/* Splits @p line on white space into at most @p max fields; their count. */
static size_t words(char *line, char **f, size_t max) {
  size_t n = 0;
  for (char *tok = strtok(line, " \t\r\n"); tok && n < max; tok = strtok(NULL, " \t\r\n"))
    f[n++] = tok;
  return n;
}

/* The header and rows of a HotSpot trace file: names into @p names (strdup'ed), values into
 * *vals (rows x n, row-major). */
static int read_table(const char *path, char ***names, size_t *n, double **vals, size_t *rows,
                      sits_err *err) {
  sits__lines L;
  int rc = sits__lines_open(&L, path, err);
  if (rc)
    return rc;
  char **f = malloc(MAX_BLOCKS * sizeof *f), *line;
  size_t cap = 0;
  bool binary;
  *names = NULL, *n = 0, *vals = NULL, *rows = 0;
  if (!f)
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  while (rc == SITS_OK && (line = sits__lines_next(&L, &binary)) != NULL) {
    if (binary) {
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: %s", path, L.lineno, L.reason);
      break;
    }
    if (sits__blank_or_comment(line))
      continue;
    size_t k = words(line, f, MAX_BLOCKS);
    if (!*names) { /* the header */
      if (!(*names = calloc(k, sizeof **names)))
        rc = sits__fail(err, SITS_ENOMEM, "out of memory");
      for (size_t j = 0; rc == SITS_OK && j < k; j++) {
        if (!identifier(f[j], strlen(f[j])))
          rc = sits__fail(err, SITS_EINPUT, "%s:%zu: '%s' is not a block name", path, L.lineno,
                          f[j]);
        else if (!((*names)[j] = strdup(f[j])))
          rc = sits__fail(err, SITS_ENOMEM, "out of memory");
        *n = j + 1;
      }
      continue;
    }
    if (k != *n) {
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: %zu values for %zu blocks", path, L.lineno, k, *n);
      break;
    }
    if (*rows == cap) {
      cap = cap ? 2 * cap : 256;
      double *v = realloc(*vals, cap * *n * sizeof *v);
      if (!v) {
        rc = sits__fail(err, SITS_ENOMEM, "out of memory");
        break;
      }
      *vals = v;
    }
    for (size_t j = 0; j < k && rc == SITS_OK; j++) {
      char *end;
      double v = strtod(f[j], &end);
      if (end == f[j] || *end || !isfinite(v))
        rc = sits__fail(err, SITS_EINPUT, "%s:%zu: '%s' is not a number", path, L.lineno, f[j]);
      (*vals)[*rows * *n + j] = v;
    }
    (*rows)++;
  }
  sits__lines_close(&L);
  free(f);
  if (rc == SITS_OK && !*names)
    rc = sits__fail(err, SITS_EINPUT, "%s: no header of block names", path);
  return rc;
}

static void free_names(char **names, size_t n) {
  for (size_t k = 0; names && k < n; k++)
    free(names[k]);
  free(names);
}

int sits__ttrace_read(const char *path, const sits_trace_opts *o, sits_trace *t, sits_err *err) {
  if (!(o->interval_ms > 0))
    return sits__fail(err, SITS_EINPUT,
                      "%s: a HotSpot trace has no time column: give its sampling interval "
                      "(--interval-ms, HotSpot's -sampling_intvl in ms)",
                      path);
  char **names = NULL, **pnames = NULL;
  double *temp = NULL, *power = NULL;
  size_t n = 0, rows = 0, pn = 0, prows = 0;
  int rc = read_table(path, &names, &n, &temp, &rows, err);
  /* the power trace beside it */
  char ppath[4200];
  size_t len = strlen(path);
  bool has_ext = len > 7 && strcmp(path + len - 7, ".ttrace") == 0;
  snprintf(ppath, sizeof ppath, "%.*s.ptrace", (int)(has_ext ? len - 7 : len), path);
  FILE *probe = rc == SITS_OK ? fopen(ppath, "r") : NULL;
  if (probe) {
    fclose(probe);
    rc = read_table(ppath, &pnames, &pn, &power, &prows, err);
  }
  int *pcol = NULL;
  if (rc == SITS_OK && power && !(pcol = malloc(n * sizeof *pcol)))
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t j = 0; rc == SITS_OK && power && j < n; j++) { /* any column order */
    pcol[j] = -1;
    for (size_t i = 0; i < pn; i++)
      if (strcmp(pnames[i], names[j]) == 0)
        pcol[j] = (int)i;
    if (pcol[j] < 0)
      rc = sits__fail(err, SITS_EINPUT, "%s: block '%s' of %s is not in it", ppath, names[j], path);
  }
  if (rc == SITS_OK && power && prows < rows)
    rc = sits__fail(err, SITS_EINPUT, "%s: %zu rows, fewer than the %zu of %s", ppath, prows, rows,
                    path);
  char col[200];
  for (size_t j = 0; rc == SITS_OK && j < n; j++) {
    snprintf(col, sizeof col, "temp_c.%s", names[j]);
    if (sits__trace_add_column(t, col) < 0)
      rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  }
  for (size_t r = 0; rc == SITS_OK && r < rows; r++) {
    if (sits__trace_add_row(t, r + 2) < 0) {
      rc = sits__fail(err, SITS_ENOMEM, "out of memory");
      break;
    }
    for (size_t j = 0; rc == SITS_OK && j < n; j++) {
      snprintf(col, sizeof col, "temp_c.%s", names[j]);
      rc = sits__trace_set(t, col, temp[r * n + j] - 273.15);
      if (rc == SITS_OK && power) {
        size_t pr = r + 1 < prows ? r + 1 : prows - 1; /* the next interval's power */
        snprintf(col, sizeof col, "power_w.%s", names[j]);
        rc = sits__trace_set(t, col, power[pr * pn + (size_t)pcol[j]]);
      }
    }
  }
  if (rc == SITS_OK) {
    sits__trace_row_times(t, o, 0, 0, 0); /* k x interval */
    if (rows == 0)
      rc = sits__fail(err, SITS_EINPUT, "%s: no rows", path);
  }
  free_names(names, n), free_names(pnames, pn);
  free(temp), free(power), free(pcol);
  return rc;
}

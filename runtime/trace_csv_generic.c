/*
 * trace_csv_generic.c - a generic CSV trace whose header already uses the normalised names
 * (`time_s`, `temp_c.<sensor>`, `power_w.<rail>`, ...; a `sitsenergy capture` file is one).
 * Empty cells and `nan` are missing values; a row with a wrong field count or a value that is
 * not a number is malformed (skipped and counted, or an error under strict). Time is shifted
 * to start at 0 and must increase.
 */
#define _POSIX_C_SOURCE 200809L
#include "sits_trace.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 1024

static char *trim(char *s) {
  while (isspace((unsigned char)*s))
    s++;
  char *e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1]))
    *--e = '\0';
  return s;
}

static size_t split(char *line, char **f) {
  size_t n = 0;
  for (char *p = line; n < MAX_FIELDS;) {
    char *c = strchr(p, ',');
    if (c)
      *c = '\0';
    f[n++] = trim(p);
    if (!c)
      break;
    p = c + 1;
  }
  return n;
}

int sits__csv_trace_sniff(const char *line) {
  return strncmp(line, "time_s", 6) == 0 && (line[6] == ',' || line[6] == '\n' || !line[6]) ? 20
                                                                                            : 0;
}

int sits__csv_trace_read(const char *path, const sits_trace_opts *o, sits_trace *t, sits_err *err) {
  FILE *fp = fopen(path, "r");
  if (!fp)
    return sits__fail(err, SITS_EINPUT, "%s: cannot open: %s", path, strerror(errno));
  char *line = NULL, **f = malloc(MAX_FIELDS * sizeof *f), **names = NULL;
  size_t cap = 0, lineno = 0, n_names = 0;
  ssize_t got;
  int rc = f ? SITS_OK : sits__fail(err, SITS_ENOMEM, "out of memory");
  double t0 = NAN, prev = -INFINITY;
  while (rc == SITS_OK && (got = getline(&line, &cap, fp)) >= 0) {
    lineno++;
    if (memchr(line, '\0', (size_t)got)) {
      rc = sits__trace_bad_line(t, o, path, lineno, "binary data", err);
      continue;
    }
    char *s = trim(line);
    if (!*s || *s == '#')
      continue;
    size_t n = split(s, f);
    if (!names) { /* the header */
      if (n < 2 || strcmp(f[0], "time_s") != 0) {
        rc =
            sits__fail(err, SITS_EINPUT, "%s:%zu: the header must start with time_s", path, lineno);
        break;
      }
      names = calloc(n, sizeof *names);
      n_names = n;
      for (size_t k = 0; names && k < n; k++)
        if (!(names[k] = strdup(f[k])) || !*f[k])
          rc =
              sits__fail(err, SITS_EINPUT, "%s:%zu: empty or unreadable column name", path, lineno);
      if (!names)
        rc = sits__fail(err, SITS_ENOMEM, "out of memory");
      continue;
    }
    double v[MAX_FIELDS];
    const char *why = n != n_names ? "wrong number of fields" : NULL;
    for (size_t k = 0; !why && k < n; k++) {
      char *end;
      if (!*f[k] || strcmp(f[k], "nan") == 0 || strcmp(f[k], "NaN") == 0) {
        v[k] = NAN;
        continue;
      }
      v[k] = strtod(f[k], &end);
      if (*end || !isfinite(v[k]))
        why = "a value is not a number";
    }
    if (!why && !(isfinite(v[0]) && v[0] > prev))
      why = "time_s missing or not increasing";
    if (why) {
      rc = sits__trace_bad_line(t, o, path, lineno, why, err);
      continue;
    }
    prev = v[0];
    if (isnan(t0))
      t0 = v[0];
    if (sits__trace_add_row(t, lineno) < 0) {
      rc = sits__fail(err, SITS_ENOMEM, "out of memory");
      break;
    }
    rc = sits__trace_set(t, "time_s", v[0] - t0);
    for (size_t k = 1; rc == SITS_OK && k < n; k++)
      rc = sits__trace_set(t, names[k], v[k]);
  }
  if (rc == SITS_OK && !names)
    rc = sits__fail(err, SITS_EINPUT, "%s: empty file (no header)", path);
  for (size_t k = 0; names && k < n_names; k++)
    free(names[k]);
  free(names), free(f), free(line);
  fclose(fp);
  return rc;
}

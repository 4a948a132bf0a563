/* trace_csv.c - numeric CSV tables for workload traces (see sits_table.h). */
#define _POSIX_C_SOURCE 200809L
#include "sits_table.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sits_table_free(sits_table *t) {
  if (!t)
    return;
  for (size_t j = 0; j < t->n_cols; j++)
    free(t->names[j]);
  free(t->names);
  free(t->values);
  free(t->lines);
  free(t);
}

int sits_table_column(const sits_table *t, const char *name) {
  for (size_t j = 0; j < t->n_cols; j++)
    if (strcmp(t->names[j], name) == 0)
      return (int)j;
  return -1;
}

static char *trim(char *s) {
  while (isspace((unsigned char)*s))
    s++;
  char *e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1]))
    *--e = '\0';
  if (e - s >= 2 && s[0] == '"' && e[-1] == '"') { /* a quoted header name */
    e[-1] = '\0';
    s++;
  }
  return s;
}

static int skip_line(const char *line) {
  while (isspace((unsigned char)*line))
    line++;
  return *line == '\0' || *line == '#';
}

static int parse_header(sits_table *t, char *line, const char *path, size_t lineno, sits_err *err) {
  char *save = NULL;
  for (char *tok = strtok_r(line, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *name = trim(tok);
    if (!*name)
      return sits__fail(err, SITS_EINPUT, "%s:%zu: empty column name", path, lineno);
    if (sits_table_column(t, name) >= 0)
      return sits__fail(err, SITS_EINPUT, "%s:%zu: duplicate column '%s'", path, lineno, name);
    char **names = realloc(t->names, (t->n_cols + 1) * sizeof *names);
    if (!names)
      return sits__fail(err, SITS_ENOMEM, "out of memory");
    t->names = names;
    if (!(t->names[t->n_cols] = strdup(name)))
      return sits__fail(err, SITS_ENOMEM, "out of memory");
    t->n_cols++;
  }
  if (t->n_cols == 0)
    return sits__fail(err, SITS_EINPUT, "%s:%zu: no column names in the header", path, lineno);
  return SITS_OK;
}

static int parse_row(sits_table *t, char *line, double *row, const char *path, size_t lineno,
                     sits_err *err) {
  size_t j = 0;
  char *p = line;
  for (;;) {
    char *comma = strchr(p, ',');
    if (comma)
      *comma = '\0';
    if (j >= t->n_cols)
      return sits__fail(err, SITS_EINPUT, "%s:%zu: more than the %zu columns of the header", path,
                        lineno, t->n_cols);
    char *field = trim(p), *end = NULL;
    errno = 0;
    double v = strtod(field, &end);
    if (!*field || *end)
      return sits__fail(err, SITS_EINPUT, "%s:%zu: column '%s': '%.40s' is not a number", path,
                        lineno, t->names[j], field);
    if (!isfinite(v))
      return sits__fail(err, SITS_EINPUT, "%s:%zu: column '%s': value is %s", path, lineno,
                        t->names[j], isnan(v) ? "NaN" : "infinite");
    row[j++] = v;
    if (!comma)
      break;
    p = comma + 1;
  }
  if (j < t->n_cols)
    return sits__fail(err, SITS_EINPUT,
                      "%s:%zu: missing columns: %zu values for the %zu columns of the header", path,
                      lineno, j, t->n_cols);
  return SITS_OK;
}

static int add_row(sits_table *t, size_t *cap, size_t lineno) {
  if (t->n_rows == *cap) {
    size_t ncap = *cap ? 2 * *cap : 256;
    double *v = realloc(t->values, ncap * t->n_cols * sizeof *v);
    if (!v)
      return -1;
    t->values = v;
    size_t *l = realloc(t->lines, ncap * sizeof *l);
    if (!l)
      return -1;
    t->lines = l;
    *cap = ncap;
  }
  t->lines[t->n_rows] = lineno;
  return 0;
}

static int read_lines(sits_table *t, FILE *f, const char *path, sits_err *err) {
  char *line = NULL;
  size_t len = 0, lineno = 0, cap = 0;
  ssize_t got;
  int rc = SITS_OK;
  while (rc == SITS_OK && (got = getline(&line, &len, f)) >= 0) {
    lineno++;
    if (memchr(line, '\0', (size_t)got))
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: binary data in a text file", path, lineno);
    else if (skip_line(line))
      continue;
    else if (t->n_cols == 0)
      rc = parse_header(t, line, path, lineno, err);
    else if (add_row(t, &cap, lineno))
      rc = sits__fail(err, SITS_ENOMEM, "out of memory");
    else if ((rc = parse_row(t, line, t->values + t->n_rows * t->n_cols, path, lineno, err)) ==
             SITS_OK)
      t->n_rows++;
  }
  free(line);
  if (rc == SITS_OK && t->n_cols == 0)
    rc = sits__fail(err, SITS_EINPUT, "%s: empty file (no header)", path);
  else if (rc == SITS_OK && t->n_rows == 0)
    rc = sits__fail(err, SITS_EINPUT, "%s:%zu: no data rows after the header", path, lineno);
  return rc;
}

int sits_table_read_csv(const char *path, sits_table **out, sits_err *err) {
  *out = NULL;
  FILE *f = fopen(path, "r");
  if (!f)
    return sits__fail(err, SITS_EINPUT, "%s: cannot open: %s", path, strerror(errno));
  sits_table *t = calloc(1, sizeof *t);
  int rc = t ? read_lines(t, f, path, err) : sits__fail(err, SITS_ENOMEM, "out of memory");
  fclose(f);
  if (rc) {
    sits_table_free(t);
    return rc;
  }
  *out = t;
  return SITS_OK;
}

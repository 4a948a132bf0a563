/* table.c - the table type and numeric CSV tables (see sits_table.h). */
#define _POSIX_C_SOURCE 200809L
#include "sits_table.h"
#include "status_internal.h"
#include "text_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sits_table_free(sits_table *t) {
  if (!t)
    return;
  for (size_t j = 0; j < t->n_cols; j++) {
    free(t->names[j]);
    if (t->units)
      free(t->units[j]);
  }
  free(t->units);
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

/* Reading state: the file's columns and where each goes in the table (-1: not kept). */
typedef struct reader {
  sits_table *t;
  const char *const *want; /* NULL: keep every column */
  size_t n_want;
  size_t n_file; /* columns in the file's header */
  int *dest;     /* n_file entries */
  /* choosing columns: lines before the one that names them all (a cycler's metadata),
   * skipped up to PREAMBLE_MAX; the first one's error is the file's if none does */
  size_t n_preamble;
  sits_err first_err;
  bool units_checked; /* the row after the header may be a units row ("[V]", "A") */
  char sep;           /* between fields: ',', or the '\t' or ';' the chosen names were found by */
} reader;

#define PREAMBLE_MAX 200

/* Splits @p line into fields (RFC 4180 quoting); the field count, or (size_t)-1 when out of
 * memory and (size_t)-2 for malformed quoting. */
static size_t split(char *line, char sep, char ***fields, size_t *cap) {
  bool bad = false;
  size_t n = 0;
  char *cursor = line, *field;
  while ((field = sits__csv_field_sep(&cursor, sep, &bad)) != NULL) {
    if (n == *cap) {
      size_t ncap = *cap ? 2 * *cap : 32;
      char **f = realloc(*fields, ncap * sizeof *f);
      if (!f)
        return (size_t)-1;
      *fields = f, *cap = ncap;
    }
    (*fields)[n++] = field;
  }
  return bad ? (size_t)-2 : n;
}

static int add_name(sits_table *t, const char *name, sits_err *err) {
  char **names = realloc(t->names, (t->n_cols + 1) * sizeof *names);
  if (!names)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  t->names = names;
  if (!(t->names[t->n_cols] = strdup(name)))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  t->n_cols++;
  return SITS_OK;
}

static int parse_header(reader *r, char **f, size_t n, const char *path, size_t lineno,
                        sits_err *err) {
  sits_table *t = r->t;
  t->header_line = lineno;
  r->n_file = n;
  if (!(r->dest = malloc(n * sizeof *r->dest)))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t j = 0; j < n; j++)
    r->dest[j] = -1;
  if (!r->want) { /* every column: names must be present and unique */
    if (n == 1 && !*f[0])
      return sits__fail(err, SITS_EINPUT, "%s:%zu: no column names in the header", path, lineno);
    for (size_t j = 0; j < n; j++) {
      if (!*f[j])
        return sits__fail(err, SITS_EINPUT, "%s:%zu: empty column name", path, lineno);
      if (sits_table_column(t, f[j]) >= 0)
        return sits__fail(err, SITS_EINPUT, "%s:%zu: duplicate column '%s'", path, lineno, f[j]);
      r->dest[j] = (int)j;
      int rc = add_name(t, f[j], err);
      if (rc)
        return rc;
    }
    return SITS_OK;
  }
  for (size_t w = 0; w < r->n_want; w++) { /* the chosen columns, each once in the file */
    int at = -1;
    for (size_t j = 0; j < n; j++)
      if (strcmp(f[j], r->want[w]) == 0) {
        if (at >= 0)
          return sits__fail(err, SITS_EINPUT, "%s:%zu: column '%s' appears twice", path, lineno,
                            r->want[w]);
        at = (int)j;
      }
    if (at < 0)
      return sits__fail(err, SITS_EINPUT, "%s:%zu: no column '%s'", path, lineno, r->want[w]);
    if (r->dest[at] >= 0)
      return sits__fail(err, SITS_EINPUT, "%s:%zu: column '%s' chosen twice", path, lineno,
                        r->want[w]);
    r->dest[at] = (int)w;
    int rc = add_name(t, r->want[w], err);
    if (rc)
      return rc;
  }
  return SITS_OK;
}

/* A units row under the header: the chosen columns hold short texts without digits ("[V]",
 * "(A)", "degC", "s") or nothing (a time column without a unit), at least one a text. */
static bool units_row(const reader *r, char **f, size_t n) {
  if (n != r->n_file)
    return false;
  size_t texts = 0;
  for (size_t j = 0; j < n; j++) {
    if (r->dest[j] < 0 || !*f[j])
      continue;
    char *end;
    strtod(f[j], &end);
    if (strlen(f[j]) > 12 || !*end) /* too long, or a number ("nan", "inf" too) */
      return false;
    for (const char *c = f[j]; *c; c++)
      if (isdigit((unsigned char)*c))
        return false;
    texts++;
  }
  return texts > 0;
}

static int parse_row(reader *r, char **f, size_t n, double *row, const char *path, size_t lineno,
                     sits_err *err) {
  sits_table *t = r->t;
  if (n > r->n_file)
    return sits__fail(err, SITS_EINPUT, "%s:%zu: more than the %zu columns of the header", path,
                      lineno, r->n_file);
  if (n < r->n_file)
    return sits__fail(err, SITS_EINPUT,
                      "%s:%zu: missing columns: %zu values for the %zu columns of the header", path,
                      lineno, n, r->n_file);
  for (size_t j = 0; j < n; j++) {
    int d = r->dest[j];
    if (d < 0)
      continue;
    char *comma = r->sep != ',' ? strchr(f[j], ',') : NULL;
    if (comma && !strchr(f[j], '.') && !strchr(comma + 1, ','))
      *comma = '.'; /* a decimal comma, as ';'- and tab-separated exports write them */
    char *end = NULL;
    errno = 0;
    double v = strtod(f[j], &end);
    if (*f[j] && *end == ':' && r->want && sits__parse_hms(f[j], &v))
      end += strlen(end); /* a chosen column's h:m:s time */
    else if (*f[j] && (*end == '-' || *end == '/' || *end == '.') && r->want &&
             sits__parse_datetime(f[j], &v))
      end += strlen(end); /* a chosen column's date and time */
    if (!*f[j] || *end)
      return sits__fail(err, SITS_EINPUT, "%s:%zu: column '%s': '%.40s' is not a number", path,
                        lineno, t->names[d], f[j]);
    if (!isfinite(v))
      return sits__fail(err, SITS_EINPUT, "%s:%zu: column '%s': value is %s", path, lineno,
                        t->names[d], isnan(v) ? "NaN" : "infinite");
    row[d] = v;
  }
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

/* Forgets a header that did not name the chosen columns. */
static void reset_header(reader *r) {
  for (size_t j = 0; j < r->t->n_cols; j++)
    free(r->t->names[j]);
  r->t->n_cols = 0;
  free(r->dest);
  r->dest = NULL;
}

/* A line read before the header is known: the header when it names the columns (with a
 * comma, else with the tab or semicolon that @p copy, the line as read, holds); a metadata
 * line above the header is passed over, up to PREAMBLE_MAX of them (*stop then set, the first
 * line's error in *err). */
static int header_line(reader *r, const char *copy, char ***fields, size_t *fcap, size_t n,
                       const char *path, size_t lineno, bool *stop, sits_err *err) {
  int rc = parse_header(r, *fields, n, path, lineno, err);
  static const char other_sep[] = {'\t', ';'};
  for (size_t a = 0; copy && a < 2 && rc == SITS_EINPUT && strstr(err->msg, ": no column '"); a++) {
    if (!strchr(copy, other_sep[a]))
      continue;
    sits_err comma_err = *err; /* the message stays the comma's when none names them */
    reset_header(r);
    char *again = strdup(copy);
    n = again ? split(again, other_sep[a], fields, fcap) : (size_t)-1;
    if (n == (size_t)-1)
      rc = sits__fail(err, SITS_ENOMEM, "out of memory");
    else if (n != (size_t)-2 && (rc = parse_header(r, *fields, n, path, lineno, err)) == SITS_OK)
      r->sep = other_sep[a];
    else
      *err = comma_err, rc = SITS_EINPUT;
    free(again);
  }
  if (rc == SITS_EINPUT && r->want && strstr(err->msg, ": no column '")) {
    if (r->n_preamble++ == 0) /* a metadata line, perhaps: the header may follow */
      r->first_err = *err;
    if (r->n_preamble > PREAMBLE_MAX) { /* none named them: the first line's error */
      *err = r->first_err;
      *stop = true;
      return rc;
    }
    reset_header(r);
    rc = SITS_OK;
  }
  return rc;
}

/* A line under the header: the units row (the first, when it is one), else a data row. */
static int data_line(reader *r, char **fields, size_t n, size_t *cap, const char *path,
                     size_t lineno, sits_err *err) {
  sits_table *t = r->t;
  int rc = SITS_OK;
  if (!r->units_checked) { /* the row under the header: a units row is skipped */
    r->units_checked = true;
    if (r->want && units_row(r, fields, n)) {
      t->units_line = lineno;
      if (!(t->units = calloc(t->n_cols, sizeof *t->units)))
        rc = sits__fail(err, SITS_ENOMEM, "out of memory");
      for (size_t j = 0; rc == SITS_OK && j < n; j++)
        if (r->dest[j] >= 0 && !(t->units[r->dest[j]] = strdup(fields[j])))
          rc = sits__fail(err, SITS_ENOMEM, "out of memory");
      return rc;
    }
  }
  if (add_row(t, cap, lineno))
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  else if ((rc = parse_row(r, fields, n, t->values + t->n_rows * t->n_cols, path, lineno, err)) ==
           SITS_OK)
    t->n_rows++;
  return rc;
}

static int read_lines(reader *r, sits__lines *L, sits_err *err) {
  sits_table *t = r->t;
  char *line, **fields = NULL;
  size_t cap = 0, fcap = 0;
  const char *path = L->path;
  bool binary, stop = false;
  int rc = SITS_OK;
  while (rc == SITS_OK && !stop && (line = sits__lines_next(L, &binary)) != NULL) {
    size_t lineno = L->lineno;
    if (binary) {
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: %s", path, lineno, L->reason);
      break;
    }
    if (sits__blank_or_comment(line))
      continue;
    /* looking for the chosen names: a copy of the line for the other separators */
    char *copy =
        !r->dest && r->want && (strchr(line, '\t') || strchr(line, ';')) ? strdup(line) : NULL;
    if (!r->dest)
      r->sep = ',';
    size_t n = split(line, r->sep, &fields, &fcap);
    if (n == (size_t)-1)
      rc = sits__fail(err, SITS_ENOMEM, "out of memory");
    else if (n == (size_t)-2)
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: a quoted field is not closed on its line", path,
                      lineno);
    else if (!r->dest)
      rc = header_line(r, copy, &fields, &fcap, n, path, lineno, &stop, err);
    else
      rc = data_line(r, fields, n, &cap, path, lineno, err);
    free(copy);
  }
  free(fields);
  if (rc == SITS_OK && !r->dest && r->n_preamble) { /* no line names the columns */
    *err = r->first_err;
    rc = SITS_EINPUT;
  } else if (rc == SITS_OK && !r->dest)
    rc = sits__fail(err, SITS_EINPUT, "%s: empty file (no header)", path);
  else if (rc == SITS_OK && t->n_rows == 0)
    rc = sits__fail(err, SITS_EINPUT, "%s:%zu: no data rows after the header", path, L->lineno);
  return rc;
}

static int read_csv(const char *path, const char *const *want, size_t n_want, sits_table **out,
                    sits_err *err) {
  *out = NULL;
  sits__lines L;
  int rc = sits__lines_open(&L, path, err);
  if (rc)
    return rc;
  sits_table *t = calloc(1, sizeof *t);
  reader r = {.t = t, .want = want, .n_want = n_want};
  rc = t ? read_lines(&r, &L, err) : sits__fail(err, SITS_ENOMEM, "out of memory");
  sits__lines_close(&L);
  free(r.dest);
  if (rc) {
    sits_table_free(t);
    return rc;
  }
  *out = t;
  return SITS_OK;
}

int sits_table_read_csv_columns(const char *path, const char *const *names, size_t n_names,
                                sits_table **out, sits_err *err) {
  if (n_names == 0) {
    *out = NULL;
    return sits__fail(err, SITS_EINPUT, "no columns chosen");
  }
  return read_csv(path, names, n_names, out, err);
}

int sits_table_read_csv(const char *path, sits_table **out, sits_err *err) {
  return read_csv(path, NULL, 0, out, err);
}

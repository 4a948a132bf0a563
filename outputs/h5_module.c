/* h5_module.c - the public HDF5 writers of sits_sim.h, over core/h5_call.c (which loads the
 * module libsits_h5 beside libsits on first use and writes through a temporary file). */
#define _POSIX_C_SOURCE 200809L
#include "sits_sim.h"
#include "sits_writers.h"
#include "status_internal.h"
#include "text_internal.h"
#include "writer_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sits_write_h5(const sits_scenario *sc, const sits_result *r, const char *path, sits_err *err) {
  return sits__h5_write_result_file(path, sc, r, err);
}

int sits_write_table_h5(const char *path, size_t rows, size_t cols, const char *const *names,
                        const char *const *cells, sits_err *err) {
  sits__h5_table args = {rows, cols, names, cells};
  return sits__h5_write_table_file(path, &args, err);
}

/* Appends a copy of @p line to the growing array *lines (n of cap); -1 when out of memory. */
static int keep_line(char ***lines, size_t *n, size_t *cap, const char *line) {
  if (*n == *cap) {
    size_t c = *cap ? 2 * *cap : 64;
    char **p = realloc(*lines, c * sizeof *p);
    if (!p)
      return -1;
    *lines = p, *cap = c;
  }
  return ((*lines)[(*n)++] = strdup(line)) ? 0 : -1;
}

int sits_write_csv_as_h5(const char *csv, const char *h5, sits_err *err) {
  enum { MAX_COLS = 1024 };
  sits__lines L;
  int rc = sits__lines_open(&L, csv, err);
  if (rc)
    return rc;
  char **lines = NULL, *line, *names[MAX_COLS], *tmp[MAX_COLS];
  size_t n = 0, cap = 0;
  bool binary;
  while (rc == SITS_OK && (line = sits__lines_next(&L, &binary)) != NULL)
    if (binary)
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: %s", csv, L.lineno, L.reason);
    else if (keep_line(&lines, &n, &cap, line))
      rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  sits__lines_close(&L);
  bool bad = false;
  size_t cols = rc == SITS_OK && n ? sits__csv_split(lines[0], names, MAX_COLS, &bad) : 0;
  if (rc == SITS_OK && (bad || cols == 0 || cols > MAX_COLS))
    rc = sits__fail(err, SITS_EINPUT, "%s:1: no header of 1 to %d columns", csv, MAX_COLS);
  size_t rows = n ? n - 1 : 0;
  const char **cells = rc == SITS_OK ? calloc(rows * cols + 1, sizeof *cells) : NULL;
  if (rc == SITS_OK && !cells)
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t r = 0; rc == SITS_OK && r < rows; r++) {
    size_t got = sits__csv_split(lines[r + 1], tmp, MAX_COLS, &bad);
    if (bad)
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: a quoted field is not closed", csv, r + 2);
    for (size_t c = 0; c < cols; c++)
      cells[r * cols + c] = c < got ? tmp[c] : "";
  }
  if (rc == SITS_OK)
    rc = sits_write_table_h5(h5, rows, cols, (const char *const *)names, cells, err);
  for (size_t k = 0; k < n; k++)
    free(lines[k]);
  free(lines);
  free((void *)cells);
  return rc;
}

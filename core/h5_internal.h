/* h5_internal.h - HDF5 files through the lazily loaded module libsits_h5 (h5_call.c loads it;
 * outputs/output_h5.c is the module). Internal to the libraries. */
#ifndef SITS_H5_INTERNAL_H
#define SITS_H5_INTERNAL_H

#include <stddef.h>

#include "status_internal.h"

typedef struct sits_scenario sits_scenario;
typedef struct sits_result sits_result;

/** Time series in groups: /time_s, then /<group[g]>/<names[j]> from values[g] (n_rows x
 *  n_cols, row-major) with units[g]; string attributes on the root. */
typedef struct sits__h5_columns {
  size_t n_rows, n_cols, n_groups, n_attrs;
  const double *time_s;
  const char *const *names;
  const char *group[4], *units[4];
  const double *values[4];
  const char *attr_name[4], *attr_value[4];
  const sits_scenario *sc; /* its assumptions on the root (as a result file's); NULL: none */
} sits__h5_columns;

/** A simulation result with its scenario (the contract's result file). */
typedef struct sits__h5_result {
  const sits_scenario *sc;
  const sits_result *r;
} sits__h5_result;

/** A text table (rows x cols cells, row-major): one dataset per column, doubles when every
 *  non-empty cell is a number, else fixed-length strings. */
typedef struct sits__h5_table {
  size_t rows, cols;
  const char *const *names, *const *cells;
} sits__h5_table;

#define SITS__H5_MODULE "libsits_h5.so"
#define SITS__H5_OPS "sits_h5_module_ops"

/** The module's entry points (output_h5.c exports one of these as SITS__H5_OPS): each writes
 *  its arguments into @p tmp_path and returns 0 on success. */
typedef struct sits__h5_ops {
  int (*write_result)(const char *tmp_path, const sits__h5_result *a);
  int (*write_columns)(const char *tmp_path, const sits__h5_columns *a);
  int (*write_table)(const char *tmp_path, const sits__h5_table *a);
  /* The result file written as the run goes: datasets that grow by blocks of rows. open:
   * NULL on failure; rows: 0 or -1; close with the finished result writes the events and
   * attributes (0 or -1), with NULL it only closes. */
  void *(*stream_open)(const char *tmp_path, const sits_scenario *sc);
  int (*stream_rows)(void *h, const sits_result *r, size_t first, size_t count);
  int (*stream_close)(void *h, const sits_scenario *sc, const sits_result *r);
} sits__h5_ops;

/** Loads libsits_h5 (beside libsits) and writes the columns @p c to @p path through a
 *  temporary file that replaces @p path only on success. */
int sits__h5_write_columns_file(const char *path, const sits__h5_columns *c, sits_err *err);

/** Writes the result @p r of scenario @p sc (the contract's result file) to @p path. */
int sits__h5_write_result_file(const char *path, const sits_scenario *sc, const sits_result *r,
                               sits_err *err);
/** A result file written as the run goes (h5_call.c): through a temporary file, put in place
 *  by sits__h5_stream_close with the finished result (NULL: removed). */
typedef struct sits__h5_stream sits__h5_stream;
sits__h5_stream *sits__h5_stream_open(const char *path, const sits_scenario *sc, sits_err *err);
int sits__h5_stream_rows(sits__h5_stream *s, const sits_result *r, size_t first, size_t count,
                         sits_err *err);
int sits__h5_stream_close(sits__h5_stream *s, const sits_result *r, sits_err *err);

/** Writes the text table @p t (one dataset per column) to @p path. */
int sits__h5_write_table_file(const char *path, const sits__h5_table *t, sits_err *err);

#endif

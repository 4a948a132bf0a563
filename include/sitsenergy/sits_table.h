/*
 * sits_table.h - a table of named numeric columns: the one table type of the library. Workload
 * traces and cell tests are read into it from CSV (below); board traces (sits_trace.h) are the
 * same type with the fields a trace reader fills.
 *
 * The CSV format: a header line of column names (`time_s`, `power_w.<node>`, `ambient_c`,
 * ...), then one row of numbers per line, fields separated by commas and quoted as RFC 4180
 * has it (a field in double quotes may hold commas; "" is a quote). Blank lines and lines
 * starting with '#' are skipped. Every error names `file:line`.
 */
#ifndef SITS_TABLE_H
#define SITS_TABLE_H

#include <stddef.h>

#include "sits_status.h"

SITS_BEGIN_DECLS

typedef struct sits_table {
  size_t n_rows, n_cols;
  char **names;   /**< n_cols column names */
  double *values; /**< n_rows x n_cols, row-major (board traces: NAN where a sample has none) */
  size_t *lines;  /**< source line of each row, for messages */
  /* board traces (sits_trace.h): */
  size_t skipped; /**< malformed lines skipped (not under strict) */
  size_t first_skipped_line;
  double interval_s;           /**< the sample interval used (tegrastats), or NAN */
  const char *interval_source; /**< "option", "timestamps", "default", or "timestamps,
                                *    between the lines where they go back or jump" (static) */
  const char *format;          /**< the reader's name (static text) */
  /** per column: the text of a units row under the header ("[V]", "mA"; "" where it is
   *  empty), or NULL when the file has none (sits_table_read_csv_columns) */
  char **units;
  /** the source lines of the header and of the units row (0 without one) */
  size_t header_line, units_line;
  /** board traces: why the first skipped line was malformed ("" when none was) */
  char first_skipped_why[160];
} sits_table;

/**
 * Reads the CSV file @p path into a new table (*out, freed with sits_table_free()).
 * Rejects: no header, duplicate or empty column names, rows with missing or extra
 * fields, non-numeric or NaN/infinite values, and files with no data row.
 */
SITS_API int sits_table_read_csv(const char *path, sits_table **out, sits_err *err);

/**
 * Reads only the columns @p names (in that order) of the CSV file @p path: the other
 * columns may hold text, be unnamed or share a name (instrument exports such as cycler
 * files do all three). Each chosen name must appear exactly once in the header; their
 * values must be numbers on every row. As cyclers write them: up to 200 lines before the
 * header that do not name the chosen columns (metadata) are skipped, and so is a units row
 * right under it (the chosen columns hold short texts without digits, or nothing; kept in
 * units); a value written [[h:]m:]s with an optional fraction is a duration in seconds
 * (minutes and seconds under 60), and one written as a date and time ("2019-05-03
 * 10:00:00.5", "03.05.2019 10:00:00", "11/27/2018 8:41:18 PM") is seconds since 1970, the
 * zone not read. Without such a header the error is the first line's.
 */
SITS_API int sits_table_read_csv_columns(const char *path, const char *const *names, size_t n_names,
                                         sits_table **out, sits_err *err);

/** Frees @p t; NULL is a no-op. */
SITS_API void sits_table_free(sits_table *t);

/** Index of column @p name, or -1. */
SITS_API int sits_table_column(const sits_table *t, const char *name);

/** Value at row @p r, column @p c. */
static inline double sits_table_at(const sits_table *t, size_t r, size_t c) {
  return t->values[r * t->n_cols + c];
}

SITS_END_DECLS

#endif

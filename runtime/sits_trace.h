/*
 * sits_trace.h - board traces read into the normalised table of the interface contract:
 * `time_s` (seconds from the first sample), then SI-unit columns `temp_c.<sensor>`,
 * `power_w.<rail>`, `voltage_v.<rail>`, `current_a.<rail>`, `freq_mhz.<clock>`,
 * `util_frac.<engine>`, `mark.<label>`. A value a sample does not carry (a sensor that is
 * off, a core that is offline, a column a line lacks) is NAN.
 *
 * One reader per format behind one ops table (sits_trace_readers()): tegrastats text logs
 * (every JetPack variant), jtop CSV, nvidia-smi CSV and generic CSV in the normalised names.
 */
#ifndef SITS_TRACE_H
#define SITS_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sits_status.h"

typedef struct sits_trace {
  size_t n_rows, n_cols;
  char **names;   /**< n_cols names; names[0] is "time_s" */
  double *values; /**< n_rows x n_cols, row-major; NAN where a sample has no value */
  size_t *lines;  /**< the source line of each row */
  size_t skipped; /**< malformed lines skipped (not under strict) */
  size_t first_skipped_line;
  double interval_s;           /**< the sample interval used (tegrastats), or NAN */
  const char *interval_source; /**< "option", "timestamps" or "default" (static text) */
  const char *format;          /**< the reader's name (static text) */
} sits_trace;

typedef struct sits_trace_opts {
  const char *format; /**< "auto" (NULL), "tegrastats", "jtop", "nvsmi", "csv" */
  double interval_ms; /**< tegrastats: the sample interval; 0: from the timestamps, else 1000 */
  bool strict;        /**< a malformed line is an error (file:line) instead of skipped */
  /** Comma-separated column list: nvsmi without a header, the --query-gpu list; the generic
   *  CSV, its column names (normalised or with units: time_ms, temp_mc.cpu, power_mw.in). */
  const char *fields;
} sits_trace_opts;

/** A trace reader: sniff() scores how well the first non-blank line fits (0: not at all). */
typedef struct sits_trace_reader {
  const char *name;
  int (*sniff)(const char *line);
  int (*read)(const char *path, const sits_trace_opts *o, sits_trace *t, sits_err *err);
} sits_trace_reader;

/** The readers, terminated by an entry with a NULL name. */
const sits_trace_reader *sits_trace_readers(void);

/** Reads @p path (format from opts->format or sniffed) into a new trace. A trace with no
 *  usable sample is an error. */
int sits_trace_read(const char *path, const sits_trace_opts *o, sits_trace **out, sits_err *err);
void sits_trace_free(sits_trace *t);
/** Index of column @p name, or -1. */
int sits_trace_column(const sits_trace *t, const char *name);
static inline double sits_trace_at(const sits_trace *t, size_t r, size_t c) {
  return t->values[r * t->n_cols + c];
}

/* ---- for the readers ---- */
/** Appends a row of NANs (line @p line); returns its index or -1 when out of memory. */
long sits__trace_add_row(sits_trace *t, size_t line);
/** Sets column @p name of the last row (the column is created on first use). */
int sits__trace_set(sits_trace *t, const char *name, double v);
/** Counts a malformed line, or fails under strict. */
int sits__trace_bad_line(sits_trace *t, const sits_trace_opts *o, const char *path, size_t line,
                         const char *why, sits_err *err);

/** The lines of a trace file, with their numbers for messages. */
typedef struct sits__trace_lines {
  FILE *fp;
  const char *path;
  char *line;
  size_t cap, lineno;
} sits__trace_lines;
/** Opens @p path ("cannot open" on failure). */
int sits__trace_lines_open(sits__trace_lines *L, const char *path, sits_err *err);
/** The next line (lineno counts it), NULL at the end or when *rc is set: a line with a NUL
 *  byte is counted as malformed binary data (an error under strict) and passed over. */
char *sits__trace_lines_next(sits__trace_lines *L, sits_trace *t, const sits_trace_opts *o, int *rc,
                             sits_err *err);
void sits__trace_lines_close(sits__trace_lines *L);

/** @p s without leading and trailing white space (in place). */
char *sits__trace_trim(char *s);
/** Splits a CSV line at commas in place (empty fields kept, each trimmed); at most @p max
 *  fields; returns the count. */
size_t sits__trace_split(char *line, char **fields, size_t max);
/** Days since 0000-03-01 of a proleptic Gregorian date (for differences between stamps). */
long sits__civil_day(int year, int month, int day);
/** Sets time_s of every row to k x interval: --interval-ms if given, else what @p stamped
 *  rows with 1-s stamps from @p first_s to @p last_s imply ((span + 1 s) / rows: each end
 *  second is partly covered), else 1 s; records the interval and its source. */
void sits__trace_row_times(sits_trace *t, const sits_trace_opts *o, double first_s, double last_s,
                           size_t stamped);

int sits__tegrastats_sniff(const char *line);
int sits__tegrastats_read(const char *path, const sits_trace_opts *o, sits_trace *t, sits_err *err);
int sits__jtop_sniff(const char *line);
int sits__jtop_read(const char *path, const sits_trace_opts *o, sits_trace *t, sits_err *err);
int sits__nvsmi_sniff(const char *line);
int sits__nvsmi_read(const char *path, const sits_trace_opts *o, sits_trace *t, sits_err *err);
int sits__csv_trace_sniff(const char *line);
int sits__csv_trace_read(const char *path, const sits_trace_opts *o, sits_trace *t, sits_err *err);

#endif

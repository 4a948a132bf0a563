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

SITS_BEGIN_DECLS

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
SITS_API const sits_trace_reader *sits_trace_readers(void);

/** Reads @p path (format from opts->format or sniffed) into a new trace. A trace with no
 *  usable sample is an error. */
SITS_API int sits_trace_read(const char *path, const sits_trace_opts *o, sits_trace **out,
                             sits_err *err);
SITS_API void sits_trace_free(sits_trace *t);
/** Index of column @p name, or -1. */
SITS_API int sits_trace_column(const sits_trace *t, const char *name);
static inline double sits_trace_at(const sits_trace *t, size_t r, size_t c) {
  return t->values[r * t->n_cols + c];
}

SITS_END_DECLS

#endif

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
#include "sits_table.h"

SITS_BEGIN_DECLS

/** A board trace is the library's table (sits_table.h) with the trace fields filled:
 *  names[0] is "time_s"; NAN where a sample has no value; skipped/first_skipped_line,
 *  interval_s/interval_source and format say how it was read. */
typedef sits_table sits_trace;

typedef struct sits_trace_opts {
  const char *format; /**< "auto" (NULL), "tegrastats", "jtop", "nvsmi", "csv" */
  double interval_ms; /**< tegrastats: the sample interval; 0: from the timestamps, else 1000 */
  bool strict;        /**< a malformed line is an error (file:line) instead of skipped */
  /** Comma-separated column list: nvsmi without a header, the --query-gpu list; the generic
   *  CSV, its column names (normalised or with units: time_ms, temp_mc.cpu, power_mw.in). */
  const char *fields;
  /** The most rows read (0: no bound): a longer file is an error at the line past it (a
   *  replay sets its scenario's max_samples: it holds every row in memory). */
  size_t max_rows;
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
/** What a normalised column holds, from its kind (the part before the first '.'): the
 *  quantity ("power", "temperature", ...) and its unit ("W", "C", "MHz", "fraction", "0/1",
 *  ...). A kind outside the contract's list is "other" with unit "as logged". */
SITS_API const char *sits_trace_column_quantity(const char *name);
SITS_API const char *sits_trace_column_unit(const char *name);

/** What the reader made of @p path: format, rows, span, the sample interval (median, least,
 *  largest step), lines skipped, and every column with its quantity, unit, count of values
 *  and range; a table (text) or the Trace-info JSON (@p json nonzero). */
SITS_API int sits_trace_write_info(const sits_trace *t, const char *path, int json, FILE *f);

/** Index of column @p name, or -1. */
SITS_API int sits_trace_column(const sits_trace *t, const char *name);
static inline double sits_trace_at(const sits_trace *t, size_t r, size_t c) {
  return sits_table_at(t, r, c);
}

SITS_END_DECLS

#endif

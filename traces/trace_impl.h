/* trace_impl.h - what the trace readers share (internal to traces/; see sits_trace.h). */
#ifndef SITS_TRACE_IMPL_H
#define SITS_TRACE_IMPL_H

#include "sits_trace.h"
#include "status_internal.h"
#include "text_internal.h"

/** Adds column @p name (all NAN so far); its index, or -1 when out of memory. */
int sits__trace_add_column(sits_trace *t, const char *name);
/** Appends a row of NANs (line @p line); returns its index or -1 when out of memory. */
long sits__trace_add_row(sits_trace *t, size_t line);
/** Keeps, of the rows whose time_s (column 0) lie in the span of @p max_span_s that holds the
 *  most of them, those that form the longest increasing sequence (of equal ones, the earliest
 *  rows), and counts the others malformed (@p why, or for a row out of that span the span;
 *  under strict the first of them, by line, is the error). A stamp out of line (another
 *  clock's, a typo) then costs its own row, not every row after it. */
int sits__trace_keep_increasing(sits_trace *t, const sits_trace_opts *o, const char *path,
                                double max_span_s, const char *why, sits_err *err);
/** Sets column @p name of the last row (the column is created on first use). */
int sits__trace_set(sits_trace *t, const char *name, double v);
/** Counts a malformed line, or fails under strict. */
int sits__trace_bad_line(sits_trace *t, const sits_trace_opts *o, const char *path, size_t line,
                         const char *why, sits_err *err);

/** The next line (lineno counts it), NULL at the end or when *rc is set: a line with a NUL
 *  byte is counted as malformed binary data (an error under strict) and passed over. */
char *sits__trace_lines_next(sits__lines *L, sits_trace *t, const sits_trace_opts *o, int *rc,
                             sits_err *err);
void sits__trace_lines_close(sits__lines *L);

/** Splits a CSV line in place (sits__csv_split: RFC 4180 quoting, fields trimmed); at most
 *  @p max fields; returns how many were stored (a malformed quote ends its field at the end of
 *  the line). */
size_t sits__trace_split(char *line, char **fields, size_t max);
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
int sits__ttrace_sniff(const char *line);
int sits__ttrace_read(const char *path, const sits_trace_opts *o, sits_trace *t, sits_err *err);
int sits__csv_trace_sniff(const char *line);
int sits__csv_trace_read(const char *path, const sits_trace_opts *o, sits_trace *t, sits_err *err);

#endif

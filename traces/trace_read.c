/* trace_read.c - the trace table, the readers' ops table and format detection (sits_trace.h). */
#define _POSIX_C_SOURCE 200809L
#include "trace_impl.h"
#include "status_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const sits_trace_reader readers[] = {
    {"tegrastats", sits__tegrastats_sniff, sits__tegrastats_read},
    {"jtop", sits__jtop_sniff, sits__jtop_read},
    {"nvsmi", sits__nvsmi_sniff, sits__nvsmi_read},
    {"csv", sits__csv_trace_sniff, sits__csv_trace_read},
    {"ttrace", sits__ttrace_sniff, sits__ttrace_read},
    {NULL, NULL, NULL},
};

const sits_trace_reader *sits_trace_readers(void) {
  return readers;
}

/* How many lines past the first a tegrastats log may be preceded by (a shell prompt, sudo's
 * password prompt, a note pasted above the samples): the reader skips them as malformed. */
#define PREAMBLE_LINES 50

/* The format of @p path by its content: the first line that is neither blank nor a comment
 * (the first 10,000 lines looked at) sniffed by every reader, or failing that a tegrastats
 * sample (readers[0]) within the PREAMBLE_LINES lines after it. The first line into @p first
 * and its number into *@p first_no; NULL in *r when nothing matches. A file that is not text
 * is refused here. */
static int detect(const char *path, char *first, size_t size, size_t *first_no,
                  const sits_trace_reader **r, sits_err *err) {
  sits__lines L;
  int rc = sits__lines_open(&L, path, err);
  if (rc)
    return rc;
  first[0] = '\0';
  *first_no = 1;
  *r = NULL;
  char *line;
  bool binary, seen = false;
  size_t after = 0;
  while (rc == SITS_OK && !*r && L.lineno < 10000 && after <= PREAMBLE_LINES &&
         (line = sits__lines_next(&L, &binary)) != NULL) {
    if (binary) {
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: %s", path, L.lineno, L.reason);
      break;
    }
    if (sits__blank_or_comment(line))
      continue;
    if (!seen) { /* the first line: every reader's sniff, the best score wins */
      snprintf(first, size, "%s", line);
      *first_no = L.lineno;
      seen = true;
      int best = 0;
      for (const sits_trace_reader *k = readers; k->name; k++) {
        int s = k->sniff(line);
        if (s > best)
          best = s, *r = k;
      }
    } else {
      after++;
      if (readers[0].sniff(line) > 0)
        *r = &readers[0];
    }
  }
  if (rc == SITS_OK && !seen)
    rc = L.lineno == 0 ? sits__fail(err, SITS_EINPUT, "%s: empty file (no lines to read)", path)
         : L.lineno >= 10000
             ? sits__fail(err, SITS_EINPUT,
                          "%s:%zu: no sample in the first %zu lines (all blank or comments): "
                          "give --format",
                          path, L.lineno, L.lineno)
             : sits__fail(err, SITS_EINPUT,
                          "%s:%zu: no samples: the file's lines are all blank or comments", path,
                          L.lineno);
  sits__lines_close(&L);
  return rc;
}

int sits_trace_read(const char *path, const sits_trace_opts *o, sits_trace **out, sits_err *err) {
  static const sits_trace_opts none = {0};
  if (!o)
    o = &none;
  *out = NULL;
  const sits_trace_reader *r = NULL;
  if (o->format && strcmp(o->format, "auto") != 0) {
    for (const sits_trace_reader *k = readers; k->name && !r; k++)
      if (strcmp(k->name, o->format) == 0)
        r = k;
    if (!r)
      return sits__fail(err, SITS_EINPUT,
                        "unknown trace format '%s' (tegrastats, jtop, nvsmi, csv, ttrace)",
                        o->format);
  } else {
    char line[8192];
    size_t line_no;
    int rc = detect(path, line, sizeof line, &line_no, &r, err);
    if (rc)
      return rc;
    if (!r) /* a comma-separated line: a CSV from another logger, read by naming its columns */
      return sits__fail(err, SITS_EINPUT,
                        "%s:%zu: not a trace format this version reads (tegrastats, jtop, nvsmi, "
                        "csv, ttrace)%s",
                        path, line_no,
                        strchr(line, ',') ? "; a CSV from another logger is read by naming its "
                                            "columns: --format csv --fields time_s,temp_c.<sensor>,"
                                            "power_w.<rail>,... ('-' for a column to pass over)"
                                          : "");
  }
  sits_trace *t = calloc(1, sizeof *t);
  if (!t)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  t->interval_s = NAN;
  t->format = r->name;
  int rc = sits__trace_add_column(t, "time_s") < 0 ? sits__fail(err, SITS_ENOMEM, "out of memory")
                                                   : r->read(path, o, t, err);
  if (rc == SITS_OK && t->n_rows == 0)
    rc = t->skipped
             ? sits__fail(err, SITS_EINPUT,
                          "%s: no usable sample in the trace (%zu malformed lines; the "
                          "first, %s:%zu: %s)",
                          path, t->skipped, path, t->first_skipped_line, t->first_skipped_why)
             : sits__fail(err, SITS_EINPUT, "%s: no usable sample in the trace", path);
  if (rc) {
    sits_trace_free(t);
    return rc;
  }
  *out = t;
  return SITS_OK;
}

/* fuzz_trace.c - libFuzzer target: the CSV trace reader (all columns, and chosen columns
 * as calibrate reads instrument exports) on arbitrary bytes. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sits_table.h"
#include "sits_trace.h"

#include "fuzz_tmp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char path[512];
  if (!path[0])
    snprintf(path, sizeof path, "%s/trace.csv", fuzz_tmp("sits_fuzz_"));
  FILE *f = fopen(path, "wb");
  if (!f)
    abort();
  fwrite(data, 1, size, f);
  fclose(f);
  sits_table *t = NULL;
  sits_err err = {0};
  if (sits_table_read_csv(path, &t, &err) == SITS_OK) {
    if (!t || t->n_rows == 0 || t->n_cols == 0)
      abort(); /* success promises at least one row and column */
  } else if (t || err.msg[0] == '\0') {
    abort(); /* failure promises no table and a message */
  }
  sits_table_free(t);
  /* the chosen-columns reader: the other columns may be text */
  static const char *const want[] = {"time_s", "current_a", "voltage_v"};
  t = NULL;
  err.msg[0] = '\0';
  if (sits_table_read_csv_columns(path, want, 3, &t, &err) == SITS_OK) {
    if (!t || t->n_rows == 0 || t->n_cols != 3)
      abort();
  } else if (t || err.msg[0] == '\0') {
    abort();
  }
  sits_table_free(t);
  /* the board-trace readers, sniffed and forced, lenient and strict */
  const char *formats[] = {NULL, "tegrastats", "jtop", "nvsmi", "csv", "ttrace"};
  for (int k = 0; k < 14; k++) { /* 12, 13: a logger's CSV by named columns (time first or
                                  * last), one passed over */
    sits_trace_opts o = {.format = k < 12 ? formats[k % 6] : "csv",
                         .strict = k >= 6 && k != 12,
                         .interval_ms = 10,
                         .fields = k < 12    ? NULL
                                   : k == 12 ? "time_s,-,temp_c.cpu,power_mw.sys"
                                             : "temp_c.cpu,-,power_mw.sys,time_ms"};
    sits_trace *tr = NULL;
    err.msg[0] = '\0';
    if (sits_trace_read(path, &o, &tr, &err) == SITS_OK) {
      if (!tr || tr->n_rows == 0 || tr->n_cols == 0 || strcmp(tr->names[0], "time_s") != 0)
        abort();
      for (size_t r = 1; r < tr->n_rows; r++)
        if (!(sits_trace_at(tr, r, 0) > sits_trace_at(tr, r - 1, 0)))
          abort(); /* time must increase */
    } else if (tr || err.msg[0] == '\0') {
      abort();
    }
    sits_trace_free(tr);
  }
  return 0;
}

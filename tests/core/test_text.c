/*
 * test_text.c - the one CSV tokenizer (RFC 4180 quoting) and line source, through the CSV
 * table reader and a board-trace reader: a quoted header name holding a comma, "" escapes,
 * white space around fields, an unclosed quote refused with file:line, binary data refused.
 */
#include "test_util.h"

#include "sits_table.h"
#include "sits_hotspot.h"
#include "sits_trace.h"

Test(text, quoted_fields_as_pandas_writes_them) {
  /* what pandas' to_csv writes for a column name with a comma and one with a quote */
  char *path = tu_write("quoted.csv", "time_s,\"power_w.a,b\",\"x \"\"q\"\"\"\n"
                                      "0,1.5,2\n"
                                      " 1 , \"2.5\" ,3\n");
  sits_table *t = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_table_read_csv(path, &t, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(t->n_cols, 3);
  cr_assert_str_eq(t->names[1], "power_w.a,b");
  cr_assert_str_eq(t->names[2], "x \"q\"");
  cr_assert_eq(t->n_rows, 2);
  cr_assert_eq(sits_table_at(t, 1, 0), 1.0);
  cr_assert_eq(sits_table_at(t, 1, 1), 2.5);
  cr_assert_eq(sits_table_at(t, 1, 2), 3.0);
  cr_assert_eq(sits_table_column(t, "power_w.a,b"), 1);
  sits_table_free(t);
}

Test(text, unclosed_quote_refused) {
  char *path = tu_write("unclosed.csv", "time_s,power_w.a\n0,1\n1,\"2\n");
  sits_table *t = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_table_read_csv(path, &t, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "unclosed.csv:3: a quoted field is not closed on its line"), "%s",
            err.msg);
  cr_assert_null(t);
  path = tu_write("after.csv", "time_s,\"a\"b\n0,1\n");
  cr_assert_eq(sits_table_read_csv(path, &t, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "after.csv:1: a quoted field is not closed"), "%s", err.msg);
}

Test(text, binary_refused_with_line) {
  char path[512];
  snprintf(path, sizeof path, "%s/binary.csv", tu_dir());
  FILE *f = fopen(path, "wb");
  fwrite("time_s,a\n0,1\n1,\0\n", 1, 18, f);
  fclose(f);
  sits_table *t = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_table_read_csv(path, &t, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "binary.csv:3: binary data in a text file"), "%s", err.msg);
}

Test(text, trace_reader_takes_quoted_fields) {
  char *path = tu_write("trace_quoted.csv", "\"time_s\",\"temp_c.cpu\",\"power_w.in\"\n"
                                            "0,\"40.5\",3\n"
                                            "1,41,\"3.5\"\n");
  sits_trace_opts o = {.format = "csv"};
  sits_trace *t = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_trace_read(path, &o, &t, &err), SITS_OK, "%s", err.msg);
  int temp = sits_trace_column(t, "temp_c.cpu"), pw = sits_trace_column(t, "power_w.in");
  cr_assert(temp > 0 && pw > 0);
  cr_assert_eq(t->n_rows, 2);
  cr_assert_eq(sits_trace_at(t, 0, (size_t)temp), 40.5);
  cr_assert_eq(sits_trace_at(t, 1, (size_t)pw), 3.5);
  sits_trace_free(t);
}

/* Files that are not text never make a reader hang or grow: /dev/zero (NUL bytes, no line
 * end) is refused at its first line by the CSV table, the trace readers and HotSpot's
 * readers; a line over 1 MiB is refused with its reason. */
Test(text, endless_or_binary_input_refused) {
  sits_table *t = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_table_read_csv("/dev/zero", &t, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "/dev/zero:1: binary data"), "%s", err.msg);
  sits_trace *tr = NULL;
  cr_assert_eq(sits_trace_read("/dev/zero", NULL, &tr, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "/dev/zero:1: binary data"), "%s", err.msg);
  sits_trace_opts o = {.format = "tegrastats"};
  cr_assert_eq(sits_trace_read("/dev/zero", &o, &tr, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "/dev/zero:1:"), "%s", err.msg);
  sits_floorplan *f = NULL;
  cr_assert_eq(sits_hs_read_flp("/dev/zero", &f, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "/dev/zero:1: binary data"), "%s", err.msg);
  char path[512];
  snprintf(path, sizeof path, "%s/long.csv", tu_dir());
  FILE *w = fopen(path, "w");
  fputs("time_s,a\n0,", w);
  for (int k = 0; k < (1 << 21); k++)
    fputc('1', w);
  fputc('\n', w);
  fclose(w);
  cr_assert_eq(sits_table_read_csv(path, &t, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "long.csv:2: a line over 1 MiB"), "%s", err.msg);
}

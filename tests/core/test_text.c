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

/* A cycler export as Digatron writes it (Kollmeyer's LG HG2 files): metadata lines, the header
 * with a trailing comma, a units row, h:m:s times. Choosing columns skips the metadata and the
 * units row and reads the times as seconds; the all-columns reader does neither. */
Test(text, cycler_export_with_metadata_and_units) {
  const char *text = "Measurement ID,585\n"
                     "Battery Name,LG HG2 18650_SN62A4\n"
                     "Start Time,11/27/2018 8:41:18 PM\n"
                     "\n"
                     "Time Stamp,Step,Status,Prog Time,Step Time,Voltage,Current,Temperature,\n"
                     ",,,,,[V],[A],[C],\n"
                     "11/27/2018 8:41:18 PM,22,DCH,25:19:08.386,00:01:00.004,4.16273,-0.15325,"
                     "24.5,\n"
                     "11/27/2018 8:41:19 PM,22,DCH,25:19:09.386,00:01:01.004,4.16271,-0.15325,"
                     "24.5,\n"
                     "11/27/2018 8:41:20 PM,22,DCH,25:19:10,00:01:02.004,4.16269,-0.15325,24.5,\n";
  char *path = tu_write("digatron.csv", text);
  const char *cols[3] = {"Prog Time", "Current", "Voltage"};
  sits_table *t = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_table_read_csv_columns(path, cols, 3, &t, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(t->n_rows, 3);
  cr_assert_eq(t->lines[0], 7, "the first row is line 7 (after the units row)");
  cr_assert_float_eq(sits_table_at(t, 0, 0), 25 * 3600 + 19 * 60 + 8.386, 1e-9);
  cr_assert_float_eq(sits_table_at(t, 2, 0), 25 * 3600 + 19 * 60 + 10.0, 1e-9);
  cr_assert_eq(sits_table_at(t, 0, 1), -0.15325);
  cr_assert_eq(sits_table_at(t, 2, 2), 4.16269);
  sits_table_free(t);
  /* m:s and m:s.f */
  path = tu_write("ms.csv", "t,v\n01:30,3.5\n12:05.5,3.6\n");
  const char *tv[2] = {"t", "v"};
  cr_assert_eq(sits_table_read_csv_columns(path, tv, 2, &t, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(t->n_rows, 2);
  cr_assert_eq(sits_table_at(t, 0, 0), 90.0);
  cr_assert_eq(sits_table_at(t, 1, 0), 725.5);
  sits_table_free(t);
  /* not times: minutes or seconds of 60, a fraction before a ':', a sign, one part, empty */
  const char *bad[] = {"1:60:00", "1:00:60", "1.5:30", "-1:00", "1:", ":30", "1:2:3:4", "1::2"};
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    char body[64];
    snprintf(body, sizeof body, "t,v\n0,1\n%s,2\n", bad[k]);
    path = tu_write("badtime.csv", body);
    cr_assert_eq(sits_table_read_csv_columns(path, tv, 2, &t, &err), SITS_EINPUT, "%s", bad[k]);
    cr_assert(strstr(err.msg, "badtime.csv:3: column 't'") && strstr(err.msg, "is not a number"),
              "%s: %s", bad[k], err.msg);
  }
  /* a first row of "nan" is a value (refused), not a units row */
  path = tu_write("nanrow.csv", "t,v\nnan,NaN\n1,2\n");
  cr_assert_eq(sits_table_read_csv_columns(path, tv, 2, &t, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "nanrow.csv:2: column 't': value is NaN"), "%s", err.msg);
  /* a column that no line names: the error of the first line, as before */
  const char *missing[3] = {"Prog Time", "Current", "Volts"};
  cr_assert_eq(sits_table_read_csv_columns(tu_write("digatron2.csv", text), missing, 3, &t, &err),
               SITS_EINPUT);
  cr_assert(strstr(err.msg, "digatron2.csv:1: no column 'Prog Time'"), "%s", err.msg);
  /* the all-columns reader takes no metadata lines and no h:m:s */
  cr_assert_eq(sits_table_read_csv(tu_write("digatron3.csv", text), &t, &err), SITS_EINPUT);
  cr_assert_eq(sits_table_read_csv(tu_write("hms.csv", "t,v\n01:30,3\n"), &t, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "hms.csv:2: column 't': '01:30' is not a number"), "%s", err.msg);
  /* 200 metadata lines at most: the header after them is not looked for */
  size_t len = 0, cap = 300 * 12 + 64;
  char *big = malloc(cap);
  cr_assert_not_null(big);
  for (int k = 0; k < 201; k++)
    len += (size_t)snprintf(big + len, cap - len, "meta,%d\n", k);
  snprintf(big + len, cap - len, "t,v\n0,1\n");
  cr_assert_eq(sits_table_read_csv_columns(tu_write("long_meta.csv", big), tv, 2, &t, &err),
               SITS_EINPUT);
  cr_assert(strstr(err.msg, "long_meta.csv:1: no column 't'"), "%s", err.msg);
  big[0] = '\0', len = 0;
  for (int k = 0; k < 200; k++)
    len += (size_t)snprintf(big + len, cap - len, "meta,%d\n", k);
  snprintf(big + len, cap - len, "t,v\n0,1\n");
  cr_assert_eq(sits_table_read_csv_columns(tu_write("meta200.csv", big), tv, 2, &t, &err), SITS_OK,
               "%s", err.msg);
  cr_assert_eq(t->n_rows, 1);
  sits_table_free(t);
  free(big);
}

/* Dates and times in a chosen column (cyclers' Date_Time, Time Stamp): ISO with '-' or '/',
 * ' ' or 'T', a fraction, a 'Z'; day first with dots; month first with slashes, on a 24- or
 * 12-hour clock. Each row's value is seconds since 1970: the differences are checked by hand
 * (a day boundary, a month's end, a leap day, noon and midnight on the 12-hour clock). */
Test(text, cycler_dates_and_times) {
  const char *tv[2] = {"t", "v"};
  struct {
    const char *a, *b;
    double diff_s;
  } pairs[] = {
      {"2019-05-03 10:00:00", "2019-05-03 10:00:01.25", 1.25},
      {"2019-05-03T23:59:59.5Z", "2019-05-04T00:00:00.5Z", 1.0},
      {"2019/04/30 12:00:00", "2019/05/01 12:00:00", 86400.0},
      {"2020-02-28 00:00:00", "2020-03-01 00:00:00", 2 * 86400.0}, /* 2020 is a leap year */
      {"2019-02-28 00:00:00", "2019-03-01 00:00:00", 86400.0},
      {"31.12.2018 23:00:00", "01.01.2019 01:00:00", 7200.0},
      {"5/3/2019 10:00:00", "5/4/2019 10:00:00", 86400.0}, /* month first: 3 to 4 May */
      {"11/27/2018 11:59:59 AM", "11/27/2018 12:00:01 PM", 2.0},
      {"11/27/2018 12:00:00 AM", "11/27/2018 1:00:00 AM", 3600.0},
      {"11/27/2018 11:00:00 PM", "11/28/2018 12:00:00 AM", 3600.0},
      /* UTC offsets applied: across the EU's spring change (01:59:59 CET is 00:59:59 UTC,
       * 03:00:01 CEST is 01:00:01 UTC), and the other forms of an offset */
      {"2024-03-31T01:59:59+01:00", "2024-03-31T03:00:01+02:00", 2.0},
      {"2024-03-31 12:00:00-0500", "2024-03-31 12:00:00+05", 10 * -3600.0},
      {"2024-03-31 12:00:00Z", "2024-03-31 12:00:00.5+00:00", 0.5},
  };
  sits_table *t = NULL;
  sits_err err = {0};
  for (size_t k = 0; k < sizeof pairs / sizeof *pairs; k++) {
    char body[160];
    snprintf(body, sizeof body, "t,v\n%s,1\n%s,2\n", pairs[k].a, pairs[k].b);
    char *path = tu_write("dates.csv", body);
    cr_assert_eq(sits_table_read_csv_columns(path, tv, 2, &t, &err), SITS_OK, "%s: %s", pairs[k].a,
                 err.msg);
    double d = sits_table_at(t, 1, 0) - sits_table_at(t, 0, 0);
    cr_assert_float_eq(d, pairs[k].diff_s, 1e-6, "%s to %s: %.6f s", pairs[k].a, pairs[k].b, d);
    sits_table_free(t);
  }
  /* 1970-01-02 00:00:00 is one day after the epoch */
  cr_assert_eq(sits_table_read_csv_columns(tu_write("epoch.csv", "t,v\n1970-01-02 00:00:00,1\n"),
                                           tv, 2, &t, &err),
               SITS_OK, "%s", err.msg);
  cr_assert_eq(sits_table_at(t, 0, 0), 86400.0);
  sits_table_free(t);
  /* not dates: month 13, hour 24, minute 60, a 12-hour clock past 12, offsets that are not
   * (one digit, past 14 h, a dangling ':', on a day-first date), no seconds, a two-digit year,
   * text after it */
  const char *bad[] = {
      "2019-13-01 00:00:00",     "2019-05-03 24:00:00",       "2019-05-03 10:60:00",
      "11/27/2018 13:00:00 PM",  "2019-05-03 10:00:00+1:00",  "2019-05-03 10:00:00+15:00",
      "2019-05-03 10:00:00+01:", "03.05.2019 10:00:00+01:00", "2019-05-03 10:00",
      "03.05.19 10:00:00",       "2019-05-03 10:00:00 x"};
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    char body[96];
    snprintf(body, sizeof body, "t,v\n%s,2\n", bad[k]);
    cr_assert_eq(sits_table_read_csv_columns(tu_write("baddate.csv", body), tv, 2, &t, &err),
                 SITS_EINPUT, "%s", bad[k]);
    cr_assert(strstr(err.msg, "baddate.csv:2: column 't'") && strstr(err.msg, "is not a number"),
              "%s: %s", bad[k], err.msg);
  }
  /* the all-columns reader reads numbers only */
  cr_assert_eq(
      sits_table_read_csv(tu_write("alldate.csv", "t,v\n2019-05-03 10:00:00,1\n"), &t, &err),
      SITS_EINPUT);
}

/* A spreadsheet's UTF-8 byte-order mark before the header is not part of the first name; a
 * UTF-16 file is named as such. */
Test(text, byte_order_marks) {
  const char *tv[2] = {"t", "v"};
  sits_table *t = NULL;
  sits_err err = {0};
  char *path = tu_write("bom.csv", "\xEF\xBB\xBFt,v\r\n0,1\r\n1,2\r\n");
  cr_assert_eq(sits_table_read_csv_columns(path, tv, 2, &t, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(t->n_rows, 2);
  cr_assert_eq(sits_table_at(t, 1, 1), 2.0);
  sits_table_free(t);
  cr_assert_eq(sits_table_read_csv(path, &t, &err), SITS_OK, "%s", err.msg);
  cr_assert_str_eq(t->names[0], "t");
  sits_table_free(t);
  const char utf16[] = "\xFF\xFEt\0,\0v\0\n\0";
  char p16[512];
  snprintf(p16, sizeof p16, "%s/u16.csv", tu_dir());
  FILE *w = fopen(p16, "wb");
  cr_assert_not_null(w);
  fwrite(utf16, 1, sizeof utf16 - 1, w);
  fclose(w);
  cr_assert_eq(sits_table_read_csv_columns(p16, tv, 2, &t, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "u16.csv:1: UTF-16 text (save the file as UTF-8)"), "%s", err.msg);
}

/* Exports that separate fields with tabs (EC-Lab's .mpt, after its preamble) or semicolons,
 * with decimal commas: the chosen names decide the separator, and the values read as the
 * comma-separated file's. A comma-separated file keeps commas as separators. */
Test(text, tab_and_semicolon_separated_exports) {
  const char *tv[2] = {"time/s", "Ewe/V"};
  sits_table *t = NULL;
  sits_err err = {0};
  const char *files[][2] = {
      {"tab.mpt", "EC-Lab ASCII FILE\nNb header lines : 3\n\nmode\ttime/s\tEwe/V\tI/mA\n"
                  "1\t0,5\t3,7125\t-1000,0\n1\t1,5\t3,7001\t-1000,0\n"},
      {"semi.csv", "mode;time/s;Ewe/V;I/mA\n1;0,5;3,7125;-1000,0\n1;1,5;3,7001;-1000,0\n"},
      {"semi_point.csv", "mode;time/s;Ewe/V;I/mA\n1;0.5;3.7125;-1000.0\n1;1.5;3.7001;-1000\n"},
      {"tab_empty.tsv", "mode\ttime/s\t\tEwe/V\n1\t0.5\t\t3.7125\n1\t1.5\t\t3.7001\n"},
      {"comma.csv", "mode,time/s,Ewe/V\n1,0.5,3.7125\n1,1.5,3.7001\n"},
  };
  for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
    cr_assert_eq(sits_table_read_csv_columns(tu_write(files[k][0], files[k][1]), tv, 2, &t, &err),
                 SITS_OK, "%s: %s", files[k][0], err.msg);
    cr_assert_eq(t->n_rows, 2, "%s", files[k][0]);
    cr_assert_eq(sits_table_at(t, 0, 0), 0.5, "%s", files[k][0]);
    cr_assert_eq(sits_table_at(t, 1, 0), 1.5, "%s", files[k][0]);
    cr_assert_eq(sits_table_at(t, 0, 1), 3.7125, "%s", files[k][0]);
    cr_assert_eq(sits_table_at(t, 1, 1), 3.7001, "%s", files[k][0]);
    sits_table_free(t);
  }
  /* a decimal comma is not read in a comma-separated file, nor two commas in one value */
  cr_assert_eq(sits_table_read_csv_columns(
                   tu_write("two.csv", "mode;time/s;Ewe/V\n1;1,000,5;3,7\n"), tv, 2, &t, &err),
               SITS_EINPUT);
  cr_assert(strstr(err.msg, "two.csv:2: column 'time/s': '1,000,5' is not a number"), "%s",
            err.msg);
  /* a name found by no separator: the error stays the first line's, as before */
  cr_assert_eq(sits_table_read_csv_columns(tu_write("none.csv", "a;b\n1;2\n"), tv, 2, &t, &err),
               SITS_EINPUT);
  cr_assert(strstr(err.msg, "none.csv:1: no column 'time/s'"), "%s", err.msg);
}

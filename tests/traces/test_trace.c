/*
 * test_trace.c - board-trace readers: one conformance suite for every reader, a fixture per
 * tegrastats variant with hand-checked values, the real Orin Nano JetPack 6 log against its
 * author's own independent parse, and malformed input.
 */
#include "test_util.h"

#include "sits_table.h"
#include "sits_trace.h"

#define TG SITS_TEST_DATA "/tegrastats/"

static sits_trace *read_ok(const char *path, const sits_trace_opts *o) {
  sits_trace *t = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_trace_read(path, o, &t, &err), SITS_OK, "%s: %s", path, err.msg);
  return t;
}

static double at(const sits_trace *t, size_t row, const char *col) {
  int c = sits_trace_column(t, col);
  cr_assert_geq(c, 0, "no column %s", col);
  return sits_trace_at(t, row, (size_t)c);
}

/* Every reader: time_s from 0 and increasing, SI units in plausible ranges, names of the
 * contract's kinds only. */
static void conformance(const sits_trace *t) {
  cr_assert_str_eq(t->names[0], "time_s");
  cr_assert_float_eq(sits_trace_at(t, 0, 0), 0.0, 1e-12);
  for (size_t r = 1; r < t->n_rows; r++)
    cr_assert_gt(sits_trace_at(t, r, 0), sits_trace_at(t, r - 1, 0));
  const char *kinds[] = {"temp_c.",   "power_w.",   "voltage_v.", "current_a.",
                         "freq_mhz.", "util_frac.", "mark."};
  for (size_t j = 1; j < t->n_cols; j++) {
    size_t k = 0;
    while (k < 7 && strncmp(t->names[j], kinds[k], strlen(kinds[k])) != 0)
      k++;
    /* the other kinds of sits_trace_column_quantity() (pstate, throttle, memory_mib, nvsmi) */
    cr_assert(k < 7 || strcmp(sits_trace_column_quantity(t->names[j]), "other") != 0,
              "column %s is not a normalised name", t->names[j]);
    for (size_t r = 0; r < t->n_rows; r++) {
      double v = sits_trace_at(t, r, j);
      if (isnan(v))
        continue;
      if (k == 0)
        cr_assert(v > -40 && v < 150, "%s = %g C", t->names[j], v);
      if (k == 1)
        cr_assert(v >= 0 && v < 1000, "%s = %g W", t->names[j], v);
      if (k == 4)
        cr_assert(v >= 0 && v < 10000, "%s = %g MHz", t->names[j], v);
      if (k == 5)
        cr_assert(v >= 0 && v <= 1, "%s = %g", t->names[j], v);
    }
  }
}

Test(trace, every_reader_conforms) {
  const char *files[] = {"v01_tx1_l4t28.log",
                         "v02_tx2_l4t28.log",
                         "v03_tx2_l4t32.log",
                         "v04_nano_jp4.log",
                         "v05_agx_xavier_jp4.log",
                         "v06_xavier_nx_jp5.log",
                         "v07_agx_orin_jp5.log",
                         "v08_agx_orin_64gb_jp6.log",
                         "v09_orin_nano_jp6.log",
                         "v10_agx_orin_jp7.log",
                         "v11_thor.log",
                         "orin_nano_jp6_real.raw",
                         "generic.csv"};
  for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
    char path[512];
    snprintf(path, sizeof path, "%s%s", TG, files[k]);
    sits_trace *t = read_ok(path, NULL);
    cr_assert_str_eq(t->format, k + 1 < sizeof files / sizeof files[0] ? "tegrastats" : "csv", "%s",
                     files[k]);
    conformance(t);
    sits_trace_free(t);
  }
  const sits_trace_reader *r = sits_trace_readers();
  cr_assert_str_eq(r[0].name, "tegrastats");
  cr_assert_str_eq(r[1].name, "jtop");
  cr_assert_str_eq(r[2].name, "nvsmi");
  cr_assert_str_eq(r[3].name, "csv");
  cr_assert_str_eq(r[4].name, "ttrace");
  cr_assert_null(r[5].name);
}

/* Hand-checked values from each variant's second line (row 1). */
typedef struct expect {
  const char *file, *column;
  double value; /* NAN: the value must be missing */
} expect;

Test(trace, tegrastats_variants_parse) {
  const expect e[] = {
      {"v01_tx1_l4t28.log", "temp_c.Tdiode", 35.25},
      {"v01_tx1_l4t28.log", "freq_mhz.GR3D", 76},
      {"v02_tx2_l4t28.log", "power_w.VDD_IN", 3.720}, /* bare mW: the first of 3720/3660 */
      {"v02_tx2_l4t28.log", "util_frac.cpu1", NAN},   /* an offline core */
      {"v02_tx2_l4t28.log", "freq_mhz.GR3D", 114},    /* GR3D_FREQ @114: no load shown */
      {"v03_tx2_l4t32.log", "power_w.VDD_WIFI", 0.0},
      {"v03_tx2_l4t32.log", "util_frac.GR3D", 0.22},
      {"v04_nano_jp4.log", "power_w.POM_5V_GPU", 2.950},
      {"v04_nano_jp4.log", "temp_c.GPU", 28.5},
      {"v05_agx_xavier_jp4.log", "power_w.SOC", 2.520}, /* bare rail names */
      {"v05_agx_xavier_jp4.log", "power_w.CPU", 0.395},
      {"v05_agx_xavier_jp4.log", "util_frac.cpu0", 0.06},
      {"v06_xavier_nx_jp5.log", "power_w.VDD_CPU_GPU_CV", 7.350},
      {"v06_xavier_nx_jp5.log", "util_frac.cpu5", NAN},
      {"v07_agx_orin_jp5.log", "temp_c.CV0", NAN}, /* -256C: the sensor is off */
      {"v07_agx_orin_jp5.log", "temp_c.SOC2", 40.1},
      {"v07_agx_orin_jp5.log", "power_w.VDD_GPU_SOC", 4.800},
      {"v08_agx_orin_64gb_jp6.log", "freq_mhz.GR3D", 306},
      {"v08_agx_orin_64gb_jp6.log", "freq_mhz.GR3D_gpc1", 306},
      {"v08_agx_orin_64gb_jp6.log", "freq_mhz.NVDEC", 1190},
      {"v08_agx_orin_64gb_jp6.log", "freq_mhz.NVENC", NAN},
      {"v08_agx_orin_64gb_jp6.log", "temp_c.tj", 48.0},
      {"v09_orin_nano_jp6.log", "power_w.VDD_IN", 6.011},
      {"v09_orin_nano_jp6.log", "temp_c.tj", 49.156},
      {"v10_agx_orin_jp7.log", "power_w.VDD_CPU_CV", 3.300}, /* the first of three */
      {"v10_agx_orin_jp7.log", "temp_c.cpu", 53.1},          /* the first of a/bC */
      {"v11_thor.log", "freq_mhz.GR3D", 1005},               /* @[f,f,f]: no load */
      {"v11_thor.log", "freq_mhz.GR3D_gpc2", 995},
      {"v11_thor.log", "power_w.VDD_CPU_SOC_MSS", 12.100},
  };
  for (size_t k = 0; k < sizeof e / sizeof e[0]; k++) {
    char path[512];
    snprintf(path, sizeof path, "%s%s", TG, e[k].file);
    sits_trace *t = read_ok(path, NULL);
    cr_assert_eq(t->n_rows, 2, "%s", e[k].file);
    double v = at(t, 1, e[k].column);
    if (isnan(e[k].value))
      cr_assert(isnan(v), "%s %s = %g, expected missing", e[k].file, e[k].column, v);
    else
      cr_assert_float_eq(v, e[k].value, 1e-9, "%s %s = %g", e[k].file, e[k].column, v);
    sits_trace_free(t);
  }
  /* the dummies and unconnected channels are not columns */
  sits_trace *t = read_ok(TG "v04_nano_jp4.log", NULL);
  cr_assert_eq(sits_trace_column(t, "temp_c.PMIC"), -1);
  sits_trace_free(t);
  t = read_ok(TG "v07_agx_orin_jp5.log", NULL);
  cr_assert_eq(sits_trace_column(t, "power_w.NC"), -1);
  /* JetPack 5+ stamps one second apart on two rows: 1 s; without stamps, the 1-s default */
  cr_assert_str_eq(t->interval_source, "timestamps");
  cr_assert_float_eq(at(t, 1, "time_s"), 1.0, 1e-12);
  sits_trace_free(t);
  t = read_ok(TG "v03_tx2_l4t32.log", NULL);
  cr_assert_str_eq(t->interval_source, "default");
  sits_trace_free(t);
  /* two rows stamped in one second (JetPack 6's 01:31:10 twice): (0 + 1 s) / 2 rows, the
   * documented rule for under three seconds stamped (before: the 1-s default) */
  t = read_ok(TG "v09_orin_nano_jp6.log", NULL);
  cr_assert_eq(t->n_rows, 2);
  cr_assert_str_eq(t->interval_source, "timestamps");
  cr_assert_float_eq(t->interval_s, 0.5, 1e-12);
  sits_trace_free(t);
}

/* The real Orin Nano JetPack 6 log (100 ms requested) against its author's parse, row by row. */
Test(trace, real_orin_nano_log_matches_an_independent_parse) {
  sits_trace *t = read_ok(TG "orin_nano_jp6_real.raw", NULL);
  cr_assert_eq(t->n_rows, 661);
  cr_assert_eq(t->skipped, 0);
  /* 661 rows stamped 01:31:10 .. 01:32:22 (3 in the first second, 10 in the last): from the
   * first row of 01:31:11 (row 3) to the first of 01:32:22 (row 651), 71 s over 648 rows =
   * 109.6 ms (until 2026-12-07 (72 + 1) s / 661 = 110.4 ms, which counts the end seconds as
   * whole) */
  cr_assert_str_eq(t->interval_source, "timestamps");
  cr_assert_float_eq(t->interval_s, 71.0 / 648.0, 1e-12);
  sits_table *ref = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_table_read_csv(TG "orin_nano_jp6_reference.csv", &ref, &err), SITS_OK, "%s",
               err.msg);
  cr_assert_eq(ref->n_rows, t->n_rows);
  const struct {
    const char *ours, *theirs;
    double scale;
  } map[] = {{"power_w.VDD_IN", "VDD_IN_mW", 1e-3},
             {"power_w.VDD_SOC", "VDD_SOC_mW", 1e-3},
             {"temp_c.tj", "T_tj_C", 1.0},
             {"temp_c.cpu", "T_cpu_C", 1.0},
             {"util_frac.GR3D", "gpu_load_pct", 0.01},
             {"freq_mhz.GR3D", "gpu_MHz", 1.0},
             {"util_frac.cpu3", "cpu3_load_pct", 0.01}};
  double peak = 0;
  for (size_t m = 0; m < sizeof map / sizeof map[0]; m++) {
    int c = sits_table_column(ref, map[m].theirs);
    cr_assert_geq(c, 0);
    for (size_t r = 0; r < t->n_rows; r++) {
      double ours = at(t, r, map[m].ours), theirs = sits_table_at(ref, r, (size_t)c) * map[m].scale;
      cr_assert_float_eq(ours, theirs, 1e-9, "row %zu %s: %g vs %g", r, map[m].ours, ours, theirs);
      if (m == 0)
        peak = fmax(peak, ours);
    }
  }
  cr_assert_float_eq(peak, 21.7, 0.05, "peak VDD_IN %g W (the provenance says 21.7 W)", peak);
  sits_table_free(ref);
  sits_trace_free(t);
  /* --interval-ms wins over the stamps */
  sits_trace_opts o = {.interval_ms = 100};
  t = read_ok(TG "orin_nano_jp6_real.raw", &o);
  cr_assert_str_eq(t->interval_source, "option");
  cr_assert_float_eq(at(t, 660, "time_s"), 66.0, 1e-9);
  sits_trace_free(t);
}

Test(trace, malformed_lines_are_counted_or_errors) {
  sits_trace *t = read_ok(TG "malformed.log", NULL);
  cr_assert_eq(t->n_rows, 2);
  cr_assert_eq(t->skipped, 3);
  cr_assert_eq(t->first_skipped_line, 2);
  cr_assert_float_eq(at(t, 1, "power_w.VDD_IN"), 3.6, 1e-12);
  sits_trace_free(t);
  sits_trace_opts strict = {.strict = true};
  sits_err err = {0};
  cr_assert_eq(sits_trace_read(TG "malformed.log", &strict, &t, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "malformed.log:2: not a tegrastats line"), "%s", err.msg);
  /* generic CSV: an empty cell is missing; a non-number and a time going back are skipped */
  t = read_ok(TG "generic.csv", NULL);
  cr_assert_eq(t->n_rows, 3);
  cr_assert_eq(t->skipped, 2);
  cr_assert(isnan(at(t, 1, "power_w.VDD_IN")));
  cr_assert_float_eq(at(t, 2, "time_s"), 1.5, 1e-12);
  sits_trace_free(t);
  strict.format = "csv";
  cr_assert_eq(sits_trace_read(TG "generic.csv", &strict, &t, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "generic.csv:5: a value is not a number"), "%s", err.msg);
  /* nothing usable, binary, unknown format */
  char *p = tu_write("junk.log", "RAM 1/2MB nothing else here\nhello\n");
  sits_trace_opts tg = {.format = "tegrastats"};
  cr_assert_eq(sits_trace_read(p, &tg, &t, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "no usable sample"), "%s", err.msg);
  free(p);
  p = tu_write("bin.log", "RAM 1/2MB CPU [1%@2] x\n\x01\x02\n");
  FILE *f = fopen(p, "ab");
  fputc('\0', f);
  fputs("zzz\n", f);
  fclose(f);
  cr_assert_eq(sits_trace_read(p, &strict, &t, &err), SITS_EINPUT);
  free(p);
  sits_trace_opts bad = {.format = "mlu"};
  cr_assert_eq(sits_trace_read(TG "generic.csv", &bad, &t, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "unknown trace format 'mlu'"), "%s", err.msg);
}

/* jtop CSV (AGX Orin, real): units to SI, absent sensors missing, the running averages and
 * limits dropped; values of the first row checked against the file by hand. */
Test(trace, jtop_csv) {
  sits_trace *t = read_ok(SITS_TEST_DATA "/traces_other/agx_orin_jtop_2min.csv", NULL);
  cr_assert_str_eq(t->format, "jtop");
  cr_assert_eq(t->n_rows, 120);
  /* 01:22:35 .. 01:24:34: 120 stamps, one a second */
  cr_assert_str_eq(t->interval_source, "timestamps");
  cr_assert_float_eq(t->interval_s, 1.0, 1e-12);
  cr_assert_float_eq(at(t, 0, "temp_c.tj"), 65.6, 1e-12);
  cr_assert(isnan(at(t, 0, "temp_c.cv0"))); /* -256000: absent */
  cr_assert_float_eq(at(t, 0, "power_w.VDD_GPU_SOC"), 22.680, 1e-12);
  cr_assert_float_eq(at(t, 0, "current_a.VDD_CPU_CV"), 0.160, 1e-12);
  cr_assert_float_eq(at(t, 0, "voltage_v.VDD_GPU_SOC") * at(t, 0, "current_a.VDD_GPU_SOC"),
                     at(t, 0, "power_w.VDD_GPU_SOC"), 0.01); /* V I = P to the meters' rounding */
  cr_assert_float_eq(at(t, 0, "util_frac.fan1"), 0.71, 1e-12);
  cr_assert_float_eq(at(t, 0, "util_frac.IGPU0"), 0.98, 1e-12);
  cr_assert_eq(sits_trace_column(t, "power_w.VDD_GPU_SOC-AVG_POWER"), -1);
  cr_assert_eq(sits_trace_column(t, "util_frac.EMC"), -1);
  for (size_t j = 0; j < t->n_cols; j++)
    cr_assert(!strstr(t->names[j], "THROTTLING") && !strstr(t->names[j], "WARN"), "%s",
              t->names[j]);
  sits_trace_free(t);
}

/* nvidia-smi: a noheader log needs the query list; with a header, units in cells, [N/A]. */
Test(trace, nvidia_smi_csv) {
  sits_trace *t = NULL;
  sits_err err = {0};
  const char *noheader = SITS_TEST_DATA "/traces_other/gh200_nvsmi_noheader.log";
  cr_assert_eq(sits_trace_read(noheader, NULL, &t, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "gh200_nvsmi_noheader.log:1: no header"), "%s", err.msg);
  sits_trace_opts o = {.fields =
                           "timestamp,power.draw,memory.used,temperature.gpu,utilization.gpu"};
  t = read_ok(noheader, &o);
  cr_assert_str_eq(t->format, "nvsmi");
  cr_assert_eq(t->n_rows, 50);
  conformance(t);
  /* 01:52:12.832 then 01:52:13.035: the millisecond stamps are the sample times */
  cr_assert_float_eq(at(t, 1, "time_s"), 0.203, 1e-9);
  cr_assert_float_eq(at(t, 0, "power_w.gpu"), 170.72, 1e-9);
  cr_assert_float_eq(at(t, 0, "temp_c.gpu"), 25, 1e-9);
  cr_assert_float_eq(at(t, 0, "util_frac.gpu"), 0.17, 1e-12);
  sits_trace_free(t);
  t = read_ok(SITS_TEST_DATA "/traces_other/nvsmi_header.csv", NULL);
  cr_assert(isnan(at(t, 1, "power_w.gpu0"))); /* [N/A] */
  cr_assert_float_eq(at(t, 2, "power_w.gpu0"), 157.52, 1e-9);
  cr_assert_float_eq(at(t, 2, "freq_mhz.gpu0_sm"), 1755, 1e-9);
  cr_assert_float_eq(at(t, 1, "util_frac.gpu0"), 0.12, 1e-12);
  sits_trace_free(t);
}

/* A generic CSV with its units in the header: converted to the normalised names on reading. */
/* A stamp out of line costs its own row: the longest increasing sequence of times is kept
 * (ties: the earliest rows). Before, the rule "after the last kept row" alone passed over
 * every row after a stamp far ahead (one typo in row 3 of 7 kept 2 rows); a stamp more than
 * 1e9 s from the first row's is refused as replay refuses it. Under --strict the out-of-line
 * row is the error. */
Test(trace, generic_csv_a_stamp_out_of_line) {
  char *p = tu_write("outlier.csv", "time_s,temp_c.die,power_w.in\n"
                                    "0.0,40,1\n0.5,41,1\n1000000,42,1\n1.5,43,1\n"
                                    "2.0,44,1\n1.8,45,1\n2.5,46,1\n3.0,47,1e300\n1e300,48,1\n");
  sits_trace *t = read_ok(p, NULL);
  cr_assert_eq(t->n_rows, 6);
  cr_assert_eq(t->skipped, 3);
  cr_assert_eq(t->first_skipped_line, 4);
  double want_t[] = {0, 0.5, 1.5, 2.0, 2.5, 3.0}, want_c[] = {40, 41, 43, 44, 46, 47};
  for (size_t k = 0; k < 6; k++) {
    cr_assert_float_eq(at(t, k, "time_s"), want_t[k], 1e-12, "row %zu", k);
    cr_assert_float_eq(at(t, k, "temp_c.die"), want_c[k], 1e-12, "row %zu", k);
  }
  sits_trace_free(t);
  sits_trace_opts strict = {.strict = true};
  sits_err err = {0};
  cr_assert_eq(sits_trace_read(p, &strict, &t, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "outlier.csv:4: time_s out of order with the rows around it"), "%s",
            err.msg);
  free(p);
  /* the first row out of line: the rest start the trace */
  p = tu_write("first_out.csv", "time_s,temp_c.die\n500,40\n1,41\n2,42\n3,43\n");
  t = read_ok(p, NULL);
  cr_assert_eq(t->n_rows, 3);
  cr_assert_float_eq(at(t, 0, "temp_c.die"), 41, 1e-12);
  cr_assert_float_eq(at(t, 2, "time_s"), 2.0, 1e-12);
  sits_trace_free(t);
  free(p);
  /* a board's clock at 1970 for its first rows, then set by NTP: the many rows of the set
   * clock are the recording (anchored on the first row, they were all dropped as too far) */
  char text[2048];
  size_t n = (size_t)snprintf(text, sizeof text, "time_s,temp_c.die\n0,40\n1,40\n");
  for (int k = 0; k < 6; k++)
    n += (size_t)snprintf(text + n, sizeof text - n, "%d,%d\n", 1700000000 + k, 41 + k);
  p = tu_write("ntp.csv", text);
  t = read_ok(p, NULL);
  cr_assert_eq(t->n_rows, 6);
  cr_assert_eq(t->skipped, 2);
  cr_assert_float_eq(at(t, 0, "temp_c.die"), 41, 1e-12);
  cr_assert_float_eq(at(t, 5, "time_s"), 5.0, 1e-12);
  sits_trace_free(t);
  free(p);
  /* a far stamp before the last row costs its own row only (0..8, 2e9, 9: 10 rows) */
  n = (size_t)snprintf(text, sizeof text, "time_s,temp_c.die\n");
  for (int k = 0; k < 9; k++)
    n += (size_t)snprintf(text + n, sizeof text - n, "%d,40\n", k);
  snprintf(text + n, sizeof text - n, "2e9,40\n9,40\n");
  p = tu_write("far_then_last.csv", text);
  t = read_ok(p, NULL);
  cr_assert_eq(t->n_rows, 10);
  cr_assert_eq(t->skipped, 1);
  cr_assert_float_eq(at(t, 9, "time_s"), 9.0, 1e-12);
  sits_trace_free(t);
  free(p);
}

/* A line over 1 MiB inside a trace (a log cut by a power loss) is one malformed line,
 * whatever its length: before, each 1-MiB piece of it counted as a line, and the line numbers
 * after it were off by as many. */
Test(trace, a_long_line_is_one_line) {
  size_t big = (size_t)5 << 19; /* 2.5 MiB */
  char *text = malloc(big + 256);
  strcpy(text, "time_s,temp_c.die\n0,40\n");
  size_t n = strlen(text);
  memset(text + n, '9', big);
  strcpy(text + n + big, "\n1,41\n2,x\n3,43\n");
  char *p = tu_write("long_line.csv", text);
  free(text);
  sits_trace *t = read_ok(p, NULL);
  cr_assert_eq(t->n_rows, 3);
  cr_assert_eq(t->skipped, 2);
  cr_assert_eq(t->first_skipped_line, 3);
  cr_assert_eq(t->lines[2], 6); /* "3,43" is the file's sixth line */
  sits_trace_free(t);
  sits_trace_opts strict = {.strict = true};
  sits_err err = {0};
  cr_assert_eq(sits_trace_read(p, &strict, &t, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "long_line.csv:3: a line over 1 MiB"), "%s", err.msg);
  free(p);
}

Test(trace, generic_csv_units_in_the_header) {
  sits_trace *t = read_ok(TG "generic_units.csv", NULL);
  cr_assert_str_eq(t->format, "csv");
  conformance(t);
  cr_assert_float_eq(at(t, 1, "time_s"), 0.2, 1e-12);         /* ms */
  cr_assert_float_eq(at(t, 0, "power_w.VDD_IN"), 6.0, 1e-12); /* mW */
  cr_assert_float_eq(at(t, 1, "temp_c.tj"), 45.6, 1e-12);     /* m°C */
  cr_assert_float_eq(at(t, 1, "util_frac.gpu"), 0.6, 1e-12);  /* % */
  cr_assert_float_eq(at(t, 0, "freq_mhz.cpu0"), 1728, 1e-9);  /* kHz */
  sits_trace_free(t);
}

/* A logger's CSV read by naming its columns (--fields with --format csv): the file's own
 * header is passed over, a headerless file reads the same, values are converted by the units
 * in the names (hand-checked); the time column may stand anywhere (a logger that writes it
 * last: `gpu load, pwr main, ..., time`), and a list without one is an error naming
 * --fields. */
Test(trace, generic_csv_columns_named_by_option) {
  char *with = tu_write("logger.csv", "Time (ms),CPU temp,Board power\n"
                                      "1000,45000,1500\n"
                                      "1250,46500,2500\n");
  char *without = tu_write("logger_noheader.csv", "1000,45000,1500\n1250,46500,2500\n");
  sits_trace_opts o = {.format = "csv", .fields = "time_ms,temp_mc.cpu,power_mw.board"};
  const char *paths[] = {with, without};
  for (int k = 0; k < 2; k++) {
    sits_trace *t = read_ok(paths[k], &o);
    cr_assert_eq(t->n_rows, 2, "%s", paths[k]);
    cr_assert_eq(t->skipped, 0, "%s", paths[k]);
    cr_assert_float_eq(at(t, 1, "time_s"), 0.25, 1e-12);
    cr_assert_float_eq(at(t, 0, "temp_c.cpu"), 45.0, 1e-12);
    cr_assert_float_eq(at(t, 1, "temp_c.cpu"), 46.5, 1e-12);
    cr_assert_float_eq(at(t, 1, "power_w.board"), 2.5, 1e-12);
    conformance(t);
    sits_trace_free(t);
  }
  char *last = tu_write("time_last.csv", "cpu temp, board power, time\n45000, 1500, 17:59:59.5\n"
                                         "46500, 2500, 18:00:00.25\n");
  sits_trace_opts tl = {.format = "csv", .fields = "temp_mc.cpu,power_mw.board,time_s"};
  sits_trace *t = read_ok(last, &tl);
  cr_assert_eq(t->n_rows, 2);
  cr_assert_float_eq(at(t, 1, "time_s"), 0.75, 1e-9);
  cr_assert_float_eq(at(t, 1, "temp_c.cpu"), 46.5, 1e-12);
  cr_assert_float_eq(at(t, 0, "power_w.board"), 1.5, 1e-12);
  conformance(t);
  sits_trace_free(t);
  sits_err err = {0};
  sits_trace_opts bad = {.format = "csv", .fields = "temp_mc.cpu,power_mw.board"};
  cr_assert_eq(sits_trace_read(with, &bad, &t, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "--fields: the header needs a time_s (or time_ms) column"), "%s",
            err.msg);
  free(with), free(without), free(last);
}

/* jetson-stats' own log (its jtop_logger example: the jetson.stats dictionary per row):
 * datetime stamps to seconds (hand-checked: 1.001459 s), the quoted uptime with its comma
 * passed over, OFF cores and the -256 zone missing, mW to W, % to fractions; jetson-stats 3's
 * `power cur` and `fan`; a stamp going back and a first row with a value that is no number
 * are malformed lines (the times start at the first row kept). */
Test(trace, jtop_stats_logger_csv) {
  char *p = tu_write(
      "jtop_logger.csv",
      "time,uptime,CPU1,CPU2,RAM,SWAP,EMC,GPU,APE,Fan pwmfan0,Temp CPU,Temp CV0,Temp tj,"
      "Power VDD_CPU_GPU_CV,Power TOT,jetson_clocks,nvp model\n"
      "2024-03-21 16:00:52.000000,\"1 day, 2:33:43\",12,OFF,0.41,0.0,7,0.0,OFF,34.5,"
      "48.5,-256,x,1204,5608,OFF,15W\n"
      "2024-03-21 16:00:53.431553,\"1 day, 2:33:44.123456\",12,OFF,0.41,0.0,7,0.0,OFF,34.5,"
      "48.5,-256,48.5,1204,5608,OFF,15W\n"
      "2024-03-21 16:00:54.433012,\"1 day, 2:33:45.125002\",100,OFF,0.44,0.0,31,99.0,OFF,40.0,"
      "50.25,-256,51.0,6012,12004,OFF,15W\n"
      "2024-03-21 16:00:54.000000,\"1 day, 2:33:45.5\",100,OFF,0.44,0.0,31,99.0,OFF,40.0,"
      "50.25,-256,51.0,6012,12004,OFF,15W\n");
  sits_trace *t = read_ok(p, NULL);
  cr_assert_str_eq(t->format, "jtop");
  conformance(t);
  cr_assert_eq(t->n_rows, 2);
  cr_assert_eq(t->skipped, 2); /* a first row with a bad value (its stamp not the start) */
  /* seconds since 1970 in a double resolve 2.4e-7 s: the difference to 1e-6 */
  cr_assert_float_eq(at(t, 1, "time_s"), 1.001459, 1e-6);
  cr_assert_float_eq(at(t, 1, "power_w.TOT"), 12.004, 1e-12);
  cr_assert_float_eq(at(t, 0, "power_w.VDD_CPU_GPU_CV"), 1.204, 1e-12);
  cr_assert_float_eq(at(t, 1, "temp_c.tj"), 51.0, 1e-12);
  cr_assert(isnan(at(t, 0, "temp_c.CV0")));
  cr_assert_float_eq(at(t, 1, "util_frac.cpu1"), 1.0, 1e-12);
  cr_assert(isnan(at(t, 0, "util_frac.cpu2")));
  cr_assert_float_eq(at(t, 1, "util_frac.gpu"), 0.99, 1e-12);
  cr_assert_float_eq(at(t, 0, "util_frac.pwmfan0"), 0.345, 1e-12);
  cr_assert_lt(sits_trace_column(t, "util_frac.EMC"), 0);
  sits_trace_free(t);
  char *q = tu_write("jtop3_logger.csv",
                     "time,uptime,jetson_clocks,nvp model,CPU1,GPU,RAM,fan,Temp AO,Temp GPU,"
                     "power cur,power avg\n"
                     "2021-06-01 10:00:00.000000,2:00:00,OFF,MAXN,5,0,0.2,0.0,30.5,29.0,1500,1450\n"
                     "2021-06-01 10:00:00.500000,2:00:00.5,OFF,MAXN,90,80,0.2,20.0,30.5,29.5,4500,"
                     "2000\n");
  t = read_ok(q, NULL);
  cr_assert_eq(t->n_rows, 2);
  cr_assert_float_eq(at(t, 1, "time_s"), 0.5, 1e-6);
  cr_assert_float_eq(at(t, 1, "power_w.TOT"), 4.5, 1e-12);
  cr_assert_float_eq(at(t, 1, "util_frac.fan"), 0.2, 1e-12);
  cr_assert_float_eq(at(t, 1, "temp_c.GPU"), 29.5, 1e-12);
  conformance(t);
  sits_trace_free(t);
  free(p), free(q);
}

/* A logger's CSV as it comes (the layout of a jtop-based script's log): stamps for time, text
 * columns passed over by naming them '-', spaces after the commas, a last column left empty.
 * Times are the stamps' differences (hand-checked: 17:06:56 -> :58 -> 17:07:01); clock times
 * run on past midnight; with no --fields the error says how to name the columns. */
Test(trace, generic_csv_logger_stamps_and_skipped_columns) {
  char *p = tu_write("stamps.csv",
                     "Timestamp, RAM_Usage, GPU_Utilization, CPU_Temperature, System_Power_Inst, "
                     "Extra Power\n"
                     "2025-05-01 17:06:56, 11283/62841MB, 0%, 50.125, 4327, \n"
                     "2025-05-01 17:06:58, 11283/62841MB, 59%, 51.062, 6048, \n"
                     "2025-05-01 17:07:01.5, 10936/62841MB, 0%, 50.843, 5040, \n");
  sits_trace_opts o = {.format = "csv", .fields = "time_s,-,-,temp_c.cpu,power_mw.sys,-"};
  sits_trace *t = read_ok(p, &o);
  cr_assert_eq(t->n_rows, 3);
  cr_assert_eq(t->skipped, 0);
  cr_assert_eq(t->n_cols, 3, "time, temperature and power only: the '-' columns are not kept");
  cr_assert_float_eq(at(t, 1, "time_s"), 2.0, 1e-9);
  cr_assert_float_eq(at(t, 2, "time_s"), 5.5, 1e-9);
  cr_assert_float_eq(at(t, 1, "temp_c.cpu"), 51.062, 1e-12);
  cr_assert_float_eq(at(t, 1, "power_w.sys"), 6.048, 1e-12); /* mW */
  conformance(t);
  sits_trace_free(t);
  /* without its header line the first row is data all the same (its stamp is a time) */
  char *bare = tu_write("stamps_bare.csv", "2025-05-01 17:06:56, x, 0%, 50.125, 4327, \n"
                                           "2025-05-01 17:06:58, x, 59%, 51.062, 6048, \n");
  t = read_ok(bare, &o);
  cr_assert_eq(t->n_rows, 2);
  cr_assert_eq(t->skipped, 0);
  cr_assert_float_eq(at(t, 0, "temp_c.cpu"), 50.125, 1e-12);
  sits_trace_free(t);
  free(bare);
  /* the same log with clock times across midnight, in milliseconds' name: stamps are seconds */
  char *q = tu_write("clock.csv", "time_ms,temp_c.cpu\n23:59:59,50\n00:00:01.25,51\n");
  sits_trace_opts none = {0};
  t = read_ok(q, &none);
  cr_assert_float_eq(at(t, 1, "time_s"), 2.25, 1e-9);
  sits_trace_free(t);
  /* a stamp that is not one is a malformed line; a '-' column's cell is never read */
  char *r = tu_write("badstamp.csv", "time_s,-,temp_c.cpu\n2025-13-01 10:00:00,x,50\n"
                                     "2025-05-01 10:00:00,??,50\n2025-05-01 10:00:01,,51\n");
  t = read_ok(r, &none);
  cr_assert_eq(t->n_rows, 2);
  cr_assert_eq(t->skipped, 1);
  cr_assert_eq(t->first_skipped_line, 2);
  sits_trace_free(t);
  /* unnamed, the logger's CSV is refused with the way to name its columns */
  sits_err err = {0};
  cr_assert_eq(sits_trace_read(p, &none, &t, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "stamps.csv:1: not a trace format") &&
                strstr(err.msg, "--format csv --fields"),
            "%s", err.msg);
  free(p), free(q), free(r);
}

/* A tegrastats log as a terminal captured it: the shell's prompt and sudo's above the samples.
 * Detected as tegrastats all the same; the two lines are skipped and counted (an error under
 * strict, at line 1). */
Test(trace, tegrastats_after_a_shell_prompt) {
  char *p =
      tu_write("prompt.log",
               "nvidia@linux:~$ sudo /usr/bin/tegrastats\n"
               "[sudo] password for nvidia:\n"
               "RAM 284/7860MB (lfb 1808x4MB) CPU [48%@2034,off,off,53%@2034,43%@2033,41%@2034] "
               "EMC_FREQ 2%@1600 GR3D_FREQ @0 APE 150 GPU@27.5C BCPU@29.5C VDD_IN 3566/3566\n"
               "RAM 288/7860MB (lfb 1808x4MB) CPU [45%@2033,off,off,39%@2030,43%@2030,42%@2033] "
               "EMC_FREQ 2%@1600 GR3D_FREQ @0 APE 150 GPU@27.5C BCPU@29.5C VDD_IN 3445/3505\n\n");
  sits_trace *t = read_ok(p, NULL);
  cr_assert_str_eq(t->format, "tegrastats");
  cr_assert_eq(t->n_rows, 2);
  cr_assert_eq(t->skipped, 2);
  cr_assert_eq(t->first_skipped_line, 1);
  cr_assert_float_eq(at(t, 1, "power_w.VDD_IN"), 3.445, 1e-12);
  cr_assert_float_eq(at(t, 0, "temp_c.BCPU"), 29.5, 1e-12);
  sits_trace_free(t);
  sits_trace_opts strict = {.strict = true};
  sits_err err = {0};
  cr_assert_eq(sits_trace_read(p, &strict, &t, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "prompt.log:1:"), "%s", err.msg);
  /* a text with no sample in its first lines is still not a trace */
  char *q = tu_write("notes.txt", "$ tegrastats --interval 500\nerror: not a Jetson\n");
  cr_assert_eq(sits_trace_read(q, NULL, &t, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "notes.txt:1: not a trace format"), "%s", err.msg);
  /* the line named is the first that is not blank or a comment */
  char *c = tu_write("commented.txt", "# exported by a script\n\nhello, world!\n");
  cr_assert_eq(sits_trace_read(c, NULL, &t, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "commented.txt:3: not a trace format"), "%s", err.msg);
  free(p), free(q), free(c);
}

/* Every column nvidia-smi logs is kept under a normalised name: the H200 log of this project
 * (validation/data/h200_nvsmi_allcols.csv, a current driver's names) hand-checked on its line
 * 700 (row 698: header and rows from line 2); the reason mask's bits and the per-reason
 * Active/Not Active fields agree. */
Test(trace, nvidia_smi_keeps_every_column) {
  sits_trace *t = read_ok(SITS_VALIDATION_DATA "/h200_nvsmi_allcols.csv", NULL);
  cr_assert_eq(t->n_rows, 2274);
  conformance(t);
  size_t r = 698; /* 15:31:20.025, 0, 692.57 W, 692.57 W, 677.73 W, 700.00 W, 700.00 W, 55, 48,
                     1485 MHz, 1485 MHz, 3201 MHz, 1515 MHz, 99 %, 25 %, P0, [N/A], 0x...04,
                     Not Active, Active, Not Active x 4 */
  cr_assert_float_eq(at(t, r, "power_w.gpu0"), 692.57, 1e-9);
  cr_assert_float_eq(at(t, r, "power_w.gpu0_average"), 692.57, 1e-9);
  cr_assert_float_eq(at(t, r, "power_w.gpu0_instant"), 677.73, 1e-9);
  cr_assert_float_eq(at(t, r, "power_w.gpu0_set_limit"), 700.0, 1e-9);
  cr_assert_float_eq(at(t, r, "power_w.gpu0_limit"), 700.0, 1e-9);
  cr_assert_float_eq(at(t, r, "temp_c.gpu0"), 55.0, 0);
  cr_assert_float_eq(at(t, r, "temp_c.gpu0_mem"), 48.0, 0);
  cr_assert_float_eq(at(t, r, "freq_mhz.gpu0_gr"), 1485.0, 0); /* clocks.current.graphics */
  cr_assert_float_eq(at(t, r, "freq_mhz.gpu0_sm"), 1485.0, 0); /* clocks.current.sm */
  cr_assert_float_eq(at(t, r, "freq_mhz.gpu0_mem"), 3201.0, 0);
  cr_assert_float_eq(at(t, r, "freq_mhz.gpu0_video"), 1515.0, 0);
  cr_assert_float_eq(at(t, r, "util_frac.gpu0"), 0.99, 1e-12);
  cr_assert_float_eq(at(t, r, "util_frac.gpu0_mem"), 0.25, 1e-12);
  cr_assert_float_eq(at(t, r, "pstate.gpu0"), 0.0, 0);
  cr_assert(isnan(at(t, r, "util_frac.gpu0_fan"))); /* [N/A]: no fan on the card */
  cr_assert_float_eq(at(t, r, "throttle.gpu0_sw_power_cap"), 1.0, 0);
  cr_assert_float_eq(at(t, r, "throttle.gpu0_idle"), 0.0, 0);
  cr_assert_float_eq(at(t, r, "throttle.gpu0_hw_thermal"), 0.0, 0);
  cr_assert_float_eq(at(t, 0, "throttle.gpu0_idle"), 1.0, 0); /* 0x...01 at the start */
  sits_trace_free(t);
}

/* The older names (clocks.sm, clocks_throttle_reasons.*) and the newer ones give the same
 * columns; a numeric field the reader has no name for is kept as nvsmi.<gpu>_<field>, a text
 * field (name, uuid, driver_version, pci.bus_id) is passed over; a mask that is not hexadecimal
 * makes its line malformed; P-states beyond P15 or text are empty. */
Test(trace, nvidia_smi_old_and_new_names) {
  char *path =
      tu_write("names.csv",
               "timestamp, name, pci.bus_id, driver_version, clocks.sm [MHz], "
               "clocks_throttle_reasons.active, "
               "clocks_throttle_reasons.hw_thermal_slowdown, pstate, encoder.stats.sessionCount, "
               "memory.used [MiB]\n"
               "2026/07/15 01:52:12.000, NVIDIA A100, 00000000:19:00.0, 535.104.05, 1410 MHz, "
               "0x0000000000000044, Active, P2, 3, 1024 MiB\n"
               "2026/07/15 01:52:12.100, NVIDIA A100, 00000000:19:00.0, 535.104.05, 1395 MHz, "
               "0x0000000000000000, Not Active, P16, 4, 2 GiB\n"
               "2026/07/15 01:52:12.200, NVIDIA A100, 00000000:19:00.0, 535.104.05, 1395 MHz, "
               "44, Not Active, P0, 5, 1 MiB\n");
  sits_trace *t = read_ok(path, NULL);
  cr_assert_eq(t->n_rows, 2);
  cr_assert_eq(t->skipped, 1); /* "44": not 0x... */
  cr_assert_eq(t->first_skipped_line, 4);
  cr_assert_float_eq(at(t, 0, "freq_mhz.gpu_sm"), 1410.0, 0);
  cr_assert_float_eq(at(t, 0, "throttle.gpu_sw_thermal"), 0.0, 0); /* 0x44 = 0x40 | 0x04 */
  cr_assert_float_eq(at(t, 0, "throttle.gpu_sw_power_cap"), 1.0, 0);
  cr_assert_float_eq(at(t, 0, "throttle.gpu_hw_thermal"), 1.0, 0);
  cr_assert_float_eq(at(t, 1, "throttle.gpu_hw_thermal"), 0.0, 0);
  cr_assert_float_eq(at(t, 0, "pstate.gpu"), 2.0, 0);
  cr_assert(isnan(at(t, 1, "pstate.gpu")));
  cr_assert_float_eq(at(t, 1, "nvsmi.gpu_encoder.stats.sessionCount"), 4.0, 0);
  cr_assert_float_eq(at(t, 0, "memory_mib.gpu_used"), 1024.0, 0);
  cr_assert_float_eq(at(t, 1, "memory_mib.gpu_used"), 2048.0, 0);
  for (size_t c = 0; c < t->n_cols; c++)
    cr_assert(!strstr(t->names[c], "name") && !strstr(t->names[c], "bus_id") &&
                  !strstr(t->names[c], "driver"),
              "text field kept: %s", t->names[c]);
  sits_trace_free(t);
  free(path);
}

/* A header whose first field is not the timestamp (`--query-gpu=index,name,timestamp,...`, as
 * many users write it) is found by its fields, and a machine with several GPUs, which
 * nvidia-smi logs as a line per GPU per sample, gives a row per sample with each GPU's columns
 * (gpu0_..., gpu1_...; the row's time the first line's); a GPU seen in the row already starts
 * the next sample; a malformed line changes nothing of the row it would have joined. */
Test(trace, nvidia_smi_index_first_and_several_gpus) {
  char *path =
      tu_write("multi.csv",
               "index, name, timestamp, power.draw [W], temperature.gpu, clocks.current.sm [MHz]\n"
               "0, NVIDIA H100, 2026/07/15 01:52:12.000, 100.00 W, 50, 1980 MHz\n"
               "1, NVIDIA H100, 2026/07/15 01:52:12.000, 200.00 W, 60, 1755 MHz\n"
               "0, NVIDIA H100, 2026/07/15 01:52:12.101, 101.00 W, 51, 1980 MHz\n"
               "1, NVIDIA H100, 2026/07/15 01:52:12.103, 201.00 W, 61, 1.5 kW\n"
               "0, NVIDIA H100, 2026/07/15 01:52:12.200, 102.00 W, 52, 1980 MHz\n"
               "0, NVIDIA H100, 2026/07/15 01:52:12.300, 103.00 W, 53, 1980 MHz\n"
               "1, NVIDIA H100, 2026/07/15 01:52:12.300, 203.00 W, 63, 1740 MHz\n"
               "1, NVIDIA H100, 2026/07/15 01:52:12.400, 204.00 W, 64, 1740 MHz\n"
               "0, NVIDIA H100, 2026/07/15 01:52:12.500, 105.00 W, 55, 1980 MHz\n"
               "1, NVIDIA H100, 2026/07/15 01:52:12.502, 205.00 W, 65, 1740 MHz\n");
  sits_trace *t = read_ok(path, NULL); /* the format by content: the sniff finds the header */
  cr_assert_str_eq(t->format, "nvsmi");
  cr_assert_eq(t->n_rows, 6);
  /* GPU 0's line at .400 is missing: its .500 line starts the next sample, not .400's */
  cr_assert(isnan(at(t, 4, "power_w.gpu0")));
  cr_assert_float_eq(at(t, 4, "power_w.gpu1"), 204.0, 0);
  cr_assert_float_eq(at(t, 5, "time_s"), 0.5, 1e-9);
  cr_assert_float_eq(at(t, 5, "power_w.gpu0"), 105.0, 0);
  cr_assert_float_eq(at(t, 5, "power_w.gpu1"), 205.0, 0);
  cr_assert_eq(t->skipped, 1); /* line 5: kW is not a clock's unit */
  cr_assert_eq(t->first_skipped_line, 5);
  cr_assert_float_eq(at(t, 0, "time_s"), 0.0, 0);
  cr_assert_float_eq(at(t, 1, "time_s"), 0.101, 1e-9);
  cr_assert_float_eq(at(t, 3, "time_s"), 0.3, 1e-9);
  cr_assert_float_eq(at(t, 0, "power_w.gpu0"), 100.0, 0);
  cr_assert_float_eq(at(t, 0, "power_w.gpu1"), 200.0, 0);
  cr_assert_float_eq(at(t, 0, "freq_mhz.gpu1_sm"), 1755.0, 0);
  cr_assert_float_eq(at(t, 1, "temp_c.gpu0"), 51.0, 0);
  cr_assert(isnan(at(t, 1, "temp_c.gpu1")));  /* its line was malformed */
  cr_assert(isnan(at(t, 2, "power_w.gpu1"))); /* no line of GPU 1 in that sample */
  cr_assert_float_eq(at(t, 3, "power_w.gpu1"), 203.0, 0);
  cr_assert_float_eq(at(t, 3, "temp_c.gpu0"), 53.0, 0);
  sits_trace_free(t);
  free(path);
  /* one GPU's lines with a repeated time stamp are still two samples: the second malformed */
  path = tu_write("repeat.csv", "temperature.gpu, timestamp, index\n"
                                "40, 2026/07/15 01:52:12.000, 0\n"
                                "41, 2026/07/15 01:52:12.000, 0\n"
                                "42, 2026/07/15 01:52:12.100, 0\n");
  t = read_ok(path, NULL);
  cr_assert_eq(t->n_rows, 2);
  cr_assert_eq(t->skipped, 1);
  cr_assert_float_eq(at(t, 1, "temp_c.gpu0"), 42.0, 0);
  sits_trace_free(t);
  free(path);
}

/* Variants found in public logs (2026-12-07): a short 100-ms log and a 5-s log with 1-s stamps
 * get their interval from the lines that start a new second (the old (span + 1 s) / rows read
 * 0.132 and 4.2 s); Thor's negative idle rail is kept; VIC_FREQ and NVENC0_FREQ engine clocks
 * (x%@f and @f forms); JetPack 3's `cpu [a%,b%]@f` with EMC and GR3D without _FREQ. */
Test(trace, tegrastats_public_variants) {
  char body[8192];
  size_t n = 0;
  const char *line = "RAM 2274/6834MB CPU [9%@729,5%@729] GR3D_FREQ 0%@[305,305] tj@47.5C "
                     "VDD_IN 4000mW/4000mW\n";
  /* 53 lines 100 ms apart from 10:00:00.9: 1, 10, 10, 10, 10, 10, 2 lines per second */
  for (int k = 0; k < 53; k++) {
    int ds = 9 + k; /* tenths of a second */
    n += (size_t)snprintf(body + n, sizeof body - n, "12-07-2026 10:00:%02d %s", ds / 10, line);
  }
  char *path = tu_write("short100.log", body);
  sits_trace *t = read_ok(path, NULL);
  cr_assert_eq(t->n_rows, 53);
  cr_assert_float_eq(t->interval_s, 0.1, 1e-12); /* rows 1 .. 51: 5 s over 50 rows */
  sits_trace_free(t);
  free(path);
  n = 0;
  for (int k = 0; k < 5; k++)
    n += (size_t)snprintf(body + n, sizeof body - n, "12-07-2026 10:00:%02d %s", 5 * k, line);
  path = tu_write("every5s.log", body);
  t = read_ok(path, NULL);
  cr_assert_float_eq(t->interval_s, 5.0, 1e-12);
  sits_trace_free(t);
  free(path);
  path = tu_write("variants.log",
                  "05-14-2026 21:36:35 RAM 26063/125772MB CPU [2%@972,1%@972] VIC_FREQ 0%@115 "
                  "NVENC0_FREQ @1691 VDD_GPU -392mW/-392mW VIN 15004mW/15096mW\n"
                  "RAM 3468/3983MB (lfb 48x4MB) cpu [17%,13%,off,5%]@408 EMC 1%@1600 APE 25 "
                  "GR3D 39%@76\n");
  t = read_ok(path, NULL);
  cr_assert_eq(t->n_rows, 2);
  cr_assert_eq(t->skipped, 0);
  cr_assert_float_eq(at(t, 0, "power_w.VDD_GPU"), -0.392, 1e-12);
  cr_assert_float_eq(at(t, 0, "freq_mhz.VIC"), 115.0, 0);
  cr_assert_float_eq(at(t, 0, "util_frac.VIC"), 0.0, 0);
  cr_assert_float_eq(at(t, 0, "freq_mhz.NVENC0"), 1691.0, 0);
  cr_assert_float_eq(at(t, 1, "util_frac.cpu1"), 0.13, 1e-12);
  cr_assert_float_eq(at(t, 1, "freq_mhz.cpu1"), 408.0, 0);
  cr_assert(isnan(at(t, 1, "freq_mhz.cpu2"))); /* off */
  cr_assert_float_eq(at(t, 1, "freq_mhz.EMC"), 1600.0, 0);
  cr_assert_float_eq(at(t, 1, "util_frac.GR3D"), 0.39, 1e-12);
  cr_assert_float_eq(at(t, 1, "freq_mhz.GR3D"), 76.0, 0);
  sits_trace_free(t);
  free(path);
  /* a last line without its newline was cut (GR3D_FREQ 99%@9 of @921): counted, not read */
  path = tu_write("cut.log", "RAM 1/2MB CPU [5%@729] GR3D_FREQ 10%@921 tj@40C\n"
                             "RAM 1/2MB CPU [5%@729] GR3D_FREQ 99%@9");
  t = read_ok(path, NULL);
  cr_assert_eq(t->n_rows, 1);
  cr_assert_eq(t->skipped, 1);
  cr_assert_eq(t->first_skipped_line, 2);
  sits_trace_free(t);
  free(path);
}

/* nvidia-smi logs of several GPUs without an index field, told apart by pci.bus_id: gpu0,
 * gpu1, gpu2 in the order first seen, a row per sample; a log without a timestamp field takes
 * --interval-ms (and says what is missing without it); "MB" is the older drivers' MiB; a
 * quoted generic CSV header is found by its content. */
Test(trace, nvidia_smi_bus_ids_and_no_timestamp) {
  char *path = tu_write(
      "bus.csv", "timestamp, name, pci.bus_id, driver_version, temperature.gpu, memory.used [MB]\n"
                 "2024/06/01 11:27:05.177, NVIDIA A100, 00000000:3B:00.0, 545.23.08, 44, 4 MB\n"
                 "2024/06/01 11:27:05.188, NVIDIA A100, 00000000:8B:00.0, 545.23.08, 42, 5 MB\n"
                 "2024/06/01 11:27:05.192, NVIDIA A100, 00000000:0B:00.0, 545.23.08, 43, 6 MB\n"
                 "2024/06/01 11:27:15.177, NVIDIA A100, 00000000:3B:00.0, 545.23.08, 45, 7 MB\n"
                 "2024/06/01 11:27:15.188, NVIDIA A100, 00000000:8B:00.0, 545.23.08, 41, 8 MB\n");
  sits_trace *t = read_ok(path, NULL);
  cr_assert_eq(t->n_rows, 2);
  cr_assert_float_eq(at(t, 1, "time_s"), 10.0, 1e-9);
  cr_assert_float_eq(at(t, 0, "temp_c.gpu0"), 44.0, 0);
  cr_assert_float_eq(at(t, 0, "temp_c.gpu1"), 42.0, 0);
  cr_assert_float_eq(at(t, 0, "temp_c.gpu2"), 43.0, 0);
  cr_assert_float_eq(at(t, 1, "temp_c.gpu1"), 41.0, 0);
  cr_assert(isnan(at(t, 1, "temp_c.gpu2")));
  cr_assert_float_eq(at(t, 1, "memory_mib.gpu0_used"), 7.0, 0);
  cr_assert_eq(sits_trace_column(t, "temp_c.gpu"), -1);
  cr_assert_eq(sits_trace_column(t, "nvsmi.gpu0_driver_version"), -1);
  sits_trace_free(t);
  free(path);
  /* a last line without its newline was cut ("00000000:0" of a bus id, "6" of "62"): counted,
   * and it names no GPU */
  path = tu_write("cutkey.csv", "timestamp, temperature.gpu, pci.bus_id\n"
                                "2024/06/01 11:27:05.177, 44, 00000000:3B:00.0\n"
                                "2024/06/01 11:27:06.177, 45, 00000000:3B:00.0\n"
                                "2024/06/01 11:27:07.177, 6, 00000000:0");
  t = read_ok(path, NULL);
  cr_assert_eq(t->n_rows, 2);
  cr_assert_eq(t->skipped, 1);
  cr_assert_float_eq(at(t, 1, "temp_c.gpu"), 45.0, 0);
  cr_assert_eq(sits_trace_column(t, "temp_c.gpu1"), -1);
  sits_trace_free(t);
  free(path);
  /* a malformed line names no GPU (a cut last line left one GPU's columns as gpu0) */
  path = tu_write("cut.csv", "timestamp, pci.bus_id, temperature.gpu\n"
                             "2024/06/01 11:27:05.177, 00000000:3B:00.0, 44\n"
                             "2024/06/01 11:27:06.177, 00000000:3B:00.0, 45\n"
                             "2024/06/01 11:27:07.1\n");
  t = read_ok(path, NULL);
  cr_assert_eq(t->skipped, 1);
  cr_assert_float_eq(at(t, 1, "temp_c.gpu"), 45.0, 0);
  sits_trace_free(t);
  free(path);
  /* a cell that is no number and no [N/A]-style placeholder makes its line malformed */
  path = tu_write("badw.csv", "timestamp, power.draw [W], temperature.gpu\n"
                              "2024/01/02 10:00:00.100, 100.00 W, 50\n"
                              "2024/01/02 10:00:00.200, bad W, 51\n"
                              "2024/01/02 10:00:00.300, [N/A], 52\n"
                              "2024/01/02 10:00:00.400, N/A, 53\n");
  t = read_ok(path, NULL);
  cr_assert_eq(t->n_rows, 3);
  cr_assert_eq(t->first_skipped_line, 3);
  cr_assert(isnan(at(t, 1, "power_w.gpu")) && isnan(at(t, 2, "power_w.gpu")));
  cr_assert_float_eq(at(t, 2, "temp_c.gpu"), 53.0, 0);
  sits_trace_free(t);
  free(path);
  /* rows --interval-ms apart by the lines: a malformed one keeps its place */
  path = tu_write("nots_cut.csv", "power.draw [W], temperature.gpu\n"
                                  "100.00 W, 40\n"
                                  "101.00 W\n"
                                  "120.00 W, 42\n");
  sits_trace_opts o1 = {.interval_ms = 1000};
  t = read_ok(path, &o1);
  cr_assert_eq(t->n_rows, 2);
  cr_assert_float_eq(at(t, 1, "time_s"), 2.0, 1e-12);
  cr_assert_float_eq(at(t, 1, "power_w.gpu"), 120.0, 0);
  sits_trace_free(t);
  free(path);
  path = tu_write("nots.csv", "utilization.gpu [%], power.draw [W], temperature.gpu\n"
                              "50 %, 300.00 W, 60\n"
                              "60 %, 310.00 W, 61\n");
  sits_trace *none = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_trace_read(path, NULL, &none, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "no timestamp field") && strstr(err.msg, "--interval-ms"), "%s",
            err.msg);
  sits_trace_opts o = {.interval_ms = 2000};
  t = read_ok(path, &o);
  cr_assert_str_eq(t->format, "nvsmi");
  cr_assert_str_eq(t->interval_source, "option");
  cr_assert_float_eq(at(t, 1, "time_s"), 2.0, 1e-12);
  cr_assert_float_eq(at(t, 1, "power_w.gpu"), 310.0, 0);
  sits_trace_free(t);
  free(path);
  path = tu_write("quoted.csv", "\"time_s\",\"temp_c.cpu\"\n0,40\n0.5,41\n");
  t = read_ok(path, NULL);
  cr_assert_str_eq(t->format, "csv");
  cr_assert_float_eq(at(t, 1, "temp_c.cpu"), 41.0, 0);
  sits_trace_free(t);
  free(path);
}

/* nvidia-smi cells are read in their unit: mW and kW cells, and a nounits log whose header
 * says [mW]; a unit of the wrong kind makes the line malformed. */
Test(trace, nvidia_smi_units) {
  char *path = tu_write("units.csv", "timestamp, index, power.draw [W], clocks.sm [MHz]\n"
                                     "2026/07/15 01:52:12.000, 0, 170720 mW, 1.98 GHz\n"
                                     "2026/07/15 01:52:12.200, 0, 0.17 kW, 1980 MHz\n"
                                     "2026/07/15 01:52:12.400, 0, 171.5 W, 1980 MHz\n"
                                     "2026/07/15 01:52:12.600, 0, 171.5 MHz, 1980 MHz\n");
  sits_trace *t = read_ok(path, NULL);
  cr_assert_eq(t->n_rows, 3);
  cr_assert_float_eq(at(t, 0, "power_w.gpu0"), 170.72, 1e-9);
  cr_assert_float_eq(at(t, 0, "freq_mhz.gpu0_sm"), 1980, 1e-9);
  cr_assert_float_eq(at(t, 1, "power_w.gpu0"), 170.0, 1e-9);
  cr_assert_float_eq(at(t, 2, "power_w.gpu0"), 171.5, 1e-9);
  cr_assert_eq(t->skipped, 1);
  cr_assert_eq(t->first_skipped_line, 5);
  sits_trace_free(t);
  free(path);
  path = tu_write("nounits.csv", "timestamp, power.draw [mW], temperature.gpu\n"
                                 "2026/07/15 01:52:12.000, 170720, 25\n"
                                 "2026/07/15 01:52:12.200, 157520, 26\n");
  t = read_ok(path, NULL);
  cr_assert_float_eq(at(t, 0, "power_w.gpu"), 170.72, 1e-9);
  cr_assert_float_eq(at(t, 1, "power_w.gpu"), 157.52, 1e-9);
  cr_assert_float_eq(at(t, 1, "temp_c.gpu"), 26, 1e-9);
  sits_trace_free(t);
  free(path);
}

/* A HotSpot .ttrace with its .ptrace beside it: kelvin to degC, k x the interval, and the power
 * of the NEXT interval on each row (the replay's zero-order hold from that row on). */
Test(trace, hotspot_ttrace_with_ptrace) {
  char tt[512], pt[512];
  snprintf(tt, sizeof tt, "%s/run.ttrace", tu_dir());
  snprintf(pt, sizeof pt, "%s/run.ptrace", tu_dir());
  FILE *f = fopen(tt, "w");
  fputs("A\tB\n300.00\t310.00\n301.50\t311.25\n302.00\t312.00\n", f);
  fclose(f);
  f = fopen(pt, "w");
  fputs("B A\n1 10\n2 20\n3 30\n", f); /* its own column order */
  fclose(f);
  sits_trace_opts o = {.format = "ttrace", .interval_ms = 250};
  sits_trace *t = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_trace_read(tt, &o, &t, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(t->n_rows, 3);
  int ta = sits_trace_column(t, "temp_c.A"), pa = sits_trace_column(t, "power_w.A"),
      pb = sits_trace_column(t, "power_w.B");
  cr_assert(ta > 0 && pa > 0 && pb > 0);
  cr_assert_float_eq(sits_trace_at(t, 1, 0), 0.25, 1e-12);
  cr_assert_float_eq(sits_trace_at(t, 1, (size_t)ta), 301.50 - 273.15, 1e-9);
  cr_assert_float_eq(sits_trace_at(t, 0, (size_t)pa), 20.0, 0); /* interval 1's */
  cr_assert_float_eq(sits_trace_at(t, 1, (size_t)pb), 3.0, 0);
  cr_assert_float_eq(sits_trace_at(t, 2, (size_t)pb), 3.0, 0); /* the last holds */
  sits_trace_free(t);
  /* sniffed without a format */
  o.format = NULL;
  cr_assert_eq(sits_trace_read(tt, &o, &t, &err), SITS_OK, "%s", err.msg);
  cr_assert_str_eq(t->format, "ttrace");
  sits_trace_free(t);
}

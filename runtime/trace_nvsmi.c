/*
 * trace_nvsmi.c - `nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits] -lms N` logs.
 * The fields come from the header (`timestamp, power.draw [W], temperature.gpu, ...`) or, for
 * a noheader log, from sits_trace_opts.fields (the --query-gpu list). Values may carry their
 * units (`170.72 W`, `17 %`); `[N/A]`-style cells are missing. Read: timestamp
 * (`YYYY/MM/DD HH:MM:SS.mmm`: real sample times), power.draw -> power_w.gpu,
 * temperature.gpu -> temp_c.gpu, temperature.memory -> temp_c.gpu_mem, utilization.gpu ->
 * util_frac.gpu, utilization.memory -> util_frac.gpu_mem, clocks.sm / clocks.mem /
 * clocks.gr -> freq_mhz.gpu_sm / gpu_mem / gpu_gr; other fields are dropped. With an `index`
 * field, `gpu` becomes `gpu<index>`.
 */
#define _POSIX_C_SOURCE 200809L
#include "trace_impl.h"
#include "status_impl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 64

/* `2026/07/15 01:52:12.832` -> the day number and the seconds in the day,
 * kept apart so that millisecond differences survive (an epoch in seconds would not). */
static bool stamp(const char *s, long *day, double *v) {
  int y, mo, d, h, mi;
  double sec;
  if (sscanf(s, "%d/%d/%d %d:%d:%lf", &y, &mo, &d, &h, &mi, &sec) != 6 || mo < 1 || mo > 12 ||
      d < 1 || d > 31 || h > 23 || mi > 59 || sec < 0 || sec >= 61)
    return false;
  *day = sits__days_from_civil(y, mo, d);
  *v = h * 3600.0 + mi * 60.0 + sec;
  return true;
}

static const struct {
  const char *field, *kind, *name;
  double scale;
} known[] = {{"power.draw", "power_w", "", 1.0},
             {"temperature.gpu", "temp_c", "", 1.0},
             {"temperature.memory", "temp_c", "_mem", 1.0},
             {"utilization.gpu", "util_frac", "", 0.01},
             {"utilization.memory", "util_frac", "_mem", 0.01},
             {"clocks.sm", "freq_mhz", "_sm", 1.0},
             {"clocks.mem", "freq_mhz", "_mem", 1.0},
             {"clocks.gr", "freq_mhz", "_gr", 1.0},
             {NULL, NULL, NULL, 0}};

/* The field name of a header cell: `power.draw [W]` -> `power.draw`; its unit ("W") to
 * @p unit ("" without one). */
static void field_name(const char *h, char *out, size_t size, char *unit, size_t usize) {
  snprintf(out, size, "%s", h);
  char *sp = strchr(out, ' ');
  if (sp)
    *sp = '\0';
  const char *open = strchr(h, '['), *close = open ? strchr(open, ']') : NULL;
  snprintf(unit, usize, "%.*s", open && close ? (int)(close - open - 1) : 0, open ? open + 1 : "");
}

/* The factor from @p unit to the base unit of the field kind @p kind (W, degC, fraction's %,
 * MHz); NAN for a unit that is not one of the kind's. */
static double unit_scale(const char *kind, const char *unit) {
  static const struct {
    const char *kind, *unit;
    double scale;
  } units[] = {{"power_w", "W", 1.0},      {"power_w", "mW", 1e-3},   {"power_w", "kW", 1e3},
               {"temp_c", "C", 1.0},       {"freq_mhz", "MHz", 1.0},  {"freq_mhz", "GHz", 1e3},
               {"freq_mhz", "kHz", 1e-3},  {"freq_mhz", "Hz", 1e-6},  {"util_frac", "%", 1.0}};
  if (!*unit)
    return 1.0;
  for (size_t k = 0; k < sizeof units / sizeof units[0]; k++)
    if (!strcmp(units[k].kind, kind) && !strcmp(units[k].unit, unit))
      return units[k].scale;
  return NAN;
}

int sits__nvsmi_sniff(const char *line) {
  double v;
  long day;
  char buf[64];
  snprintf(buf, sizeof buf, "%s", line);
  char *c = strchr(buf, ',');
  if (c)
    *c = '\0';
  return !strncmp(line, "timestamp,", 10) || stamp(buf, &day, &v) ? 25 : 0;
}

/* The values of one sample row into the last row of @p t: every known field, scaled to SI;
 * *why says what makes the row malformed. */
static int row_values(sits_trace *t, char **f, size_t n, char names[][64], char units[][16],
                      const char *gpu, const char **why) {
  int rc = SITS_OK;
  for (size_t k = 0; k < n && rc == SITS_OK && !*why; k++)
    for (int q = 0; known[q].field; q++) {
      if (strcmp(names[k], known[q].field) != 0)
        continue;
      char *end;
      double v = strtod(f[k], &end);
      const char *unit = sits__trim(end); /* a unit after the number: W, mW, %, MHz */
      double scale = unit_scale(known[q].kind, *unit ? unit : units[k]);
      if (end == f[k])
        v = NAN; /* [N/A], [Not Supported] */
      else if (*unit && !isalpha((unsigned char)*unit) && *unit != '%')
        *why = "a value is not a number";
      else if (isnan(scale))
        *why = "a unit this reader does not know (W, mW, kW; MHz, GHz; %; C)";
      v *= scale;
      char col[96];
      snprintf(col, sizeof col, "%s.%s%s", known[q].kind, gpu, known[q].name);
      rc = sits__trace_set(t, col, v * known[q].scale);
    }
  return rc;
}

/* Reading state: the header's field names and the clock. */
typedef struct nvsmi {
  char names[MAX_FIELDS][64];
  char units[MAX_FIELDS][16]; /* from the header: `power.draw [mW]` */
  size_t n_fields;
  int i_time, i_index;
  double t0, prev;
  long day0;
} nvsmi;

/* One sample line (fields @p f, @p n of them): a row of @p t, or a malformed line counted. */
static int sample(nvsmi *s, sits_trace *t, const sits_trace_opts *o, const char *path,
                  size_t lineno, char **f, size_t n, sits_err *err) {
  if (s->i_time < 0)
    for (size_t k = 0; k < s->n_fields; k++) {
      if (!strcmp(s->names[k], "timestamp"))
        s->i_time = (int)k;
      if (!strcmp(s->names[k], "index"))
        s->i_index = (int)k;
    }
  double ts = NAN;
  long day = 0;
  bool ok = n == s->n_fields && s->i_time >= 0 && stamp(f[s->i_time], &day, &ts);
  if (ok && s->day0 < 0)
    s->day0 = day;
  if (ok) /* seconds since the first sample's day */
    ts += (double)(day - s->day0) * 86400.0;
  if (!ok || !(ts > s->prev)) {
    int rc = sits__trace_bad_line(t, o, path, lineno,
                                  n != s->n_fields ? "wrong number of fields"
                                  : s->i_time < 0  ? "no timestamp field"
                                                   : "bad or non-increasing timestamp",
                                  err);
    if (s->i_time < 0 && rc == SITS_OK)
      rc = sits__fail(err, SITS_EINPUT, "%s: the log needs a timestamp field", path);
    return rc;
  }
  if (s->prev == -INFINITY)
    s->t0 = ts;
  s->prev = ts;
  if (sits__trace_add_row(t, lineno) < 0)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  char gpu[32] = "gpu";
  if (s->i_index >= 0)
    snprintf(gpu, sizeof gpu, "gpu%s", f[s->i_index]);
  const char *why = NULL;
  int rc = sits__trace_set(t, "time_s", ts - s->t0);
  if (rc == SITS_OK)
    rc = row_values(t, f, n, s->names, s->units, gpu, &why);
  if (why) {
    t->n_rows--;
    rc = sits__trace_bad_line(t, o, path, lineno, why, err);
  }
  return rc;
}

int sits__nvsmi_read(const char *path, const sits_trace_opts *o, sits_trace *t, sits_err *err) {
  sits__lines L;
  if (sits__lines_open(&L, path, err))
    return SITS_EINPUT;
  char *f[MAX_FIELDS];
  nvsmi s = {.i_time = -1, .i_index = -1, .prev = -INFINITY, .day0 = -1};
  int rc = SITS_OK;
  if (o && o->fields) { /* a noheader log: the query list */
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", o->fields);
    s.n_fields = sits__trace_split(buf, f, MAX_FIELDS);
    for (size_t k = 0; k < s.n_fields; k++)
      field_name(f[k], s.names[k], sizeof s.names[k], s.units[k], sizeof s.units[k]);
  }
  for (char *line; rc == SITS_OK && (line = sits__trace_lines_next(&L, t, o, &rc, err));) {
    char *str = sits__trim(line);
    if (!*str || *str == '#')
      continue;
    size_t n = sits__trace_split(str, f, MAX_FIELDS);
    if (s.n_fields) {
      rc = sample(&s, t, o, path, L.lineno, f, n, err);
      continue;
    }
    if (strcmp(f[0], "timestamp") != 0 && strncmp(f[0], "timestamp ", 10) != 0) {
      rc = sits__fail(err, SITS_EINPUT,
                      "%s:%zu: no header: give the --query-gpu fields (--fields) for a "
                      "noheader log",
                      path, L.lineno);
      break;
    }
    s.n_fields = n;
    for (size_t k = 0; k < n; k++)
      field_name(f[k], s.names[k], sizeof s.names[k], s.units[k], sizeof s.units[k]);
  }
  sits__lines_close(&L);
  if (rc == SITS_OK && !s.n_fields)
    rc = sits__fail(err, SITS_EINPUT, "%s: empty log", path);
  return rc;
}

/*
 * trace_jtop.c - jtop (jetson-stats) CSV logs: `System-Time` (HH:MM:SS), then per-subsystem
 * columns. Read: `<zone>-thermal-CURR_TEMP` (C; -256000 = absent) -> temp_c.<zone>;
 * `<RAIL>-IN_POWER` (mW), `-IN_VOLTAGE` (mV), `-IN_CURRENT` (mA) -> power_w., voltage_v.,
 * current_a.<RAIL>; `CPUn-CURR_FREQ` (MHz), `-CURR_LOAD` (%) -> freq_mhz.cpuN,
 * util_frac.cpuN; `IGPU0-` likewise; `fan1-CURR_PWM` (%) -> util_frac.fan1 (EMC is dropped:
 * its CURR_LOAD is no percentage in these logs, 1133 next to 204 MHz). Running
 * averages (AVG_POWER), trip temperatures, limits, states and sizes are not samples and are
 * dropped. A `-` cell is missing. Row times as for tegrastats: --interval-ms, else what the
 * 1-s stamps imply, else 1 s.
 *
 * The other jtop log: jetson-stats' `jetson.stats` dictionary written row by row by a CSV
 * writer (its jtop_logger example and the scripts built on it), header `time,uptime,...`.
 * Read: `Temp <zone>` (C; -256 = absent) -> temp_c.<zone>; `Power <rail>` and `Power TOT`
 * (mW) -> power_w.<rail>, power_w.TOT; jetson-stats 3's `power cur` (mW) -> power_w.TOT;
 * `CPUn` (% load, `OFF` for an offline core) -> util_frac.cpuN; `GPU` (% load) ->
 * util_frac.gpu; `Fan <name><n>` and 3's `fan` (%) -> util_frac.<name><n>, util_frac.fan.
 * Memory, engines, `power avg`, jetson_clocks and the power model are dropped. The row times
 * are the `time` stamps' differences (datetime's microseconds kept).
 */
#define _POSIX_C_SOURCE 200809L
#include "trace_impl.h"
#include "status_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 512

typedef struct map {
  char name[160]; /* the normalised column, "" to drop */
  double scale;
  bool temp; /* -256000 means absent */
} map;

static bool ends(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n > m && strcmp(s + n - m, suffix) == 0;
}

static void lower(char *s) {
  for (; *s; s++)
    *s = (char)tolower((unsigned char)*s);
}

/* One header field into its mapping. */
static map field(const char *h) {
  map m = {"", 1.0, false};
  char base[128];
  size_t n = strlen(h);
  const char *dash = strrchr(h, '-');
  if (!dash || n >= sizeof base)
    return m;
  size_t lb = (size_t)(dash - h);
  memcpy(base, h, lb);
  base[lb] = '\0';
  const char *what = dash + 1;
  if (ends(h, "-thermal-CURR_TEMP")) {
    base[lb - strlen("-thermal")] = '\0';
    snprintf(m.name, sizeof m.name, "temp_c.%s", base);
    m.temp = true;
  } else if (!strcmp(what, "IN_POWER")) {
    snprintf(m.name, sizeof m.name, "power_w.%s", base), m.scale = 1e-3;
  } else if (!strcmp(what, "IN_VOLTAGE")) {
    snprintf(m.name, sizeof m.name, "voltage_v.%s", base), m.scale = 1e-3;
  } else if (!strcmp(what, "IN_CURRENT")) {
    snprintf(m.name, sizeof m.name, "current_a.%s", base), m.scale = 1e-3;
  } else if (!strcmp(what, "CURR_FREQ") || !strcmp(what, "CURR_LOAD")) {
    bool cpu = !strncmp(base, "CPU", 3) && isdigit((unsigned char)base[3]);
    if (cpu)
      lower(base);
    /* EMC is left out: jtop's EMC-CURR_LOAD is no percentage (1133 next to 204 MHz) */
    if (cpu || !strncmp(base, "IGPU", 4)) {
      bool load = !strcmp(what, "CURR_LOAD");
      snprintf(m.name, sizeof m.name, "%s.%s", load ? "util_frac" : "freq_mhz", base);
      m.scale = load ? 0.01 : 1.0;
    }
  } else if (!strcmp(what, "CURR_PWM") && !strncmp(base, "fan", 3)) {
    snprintf(m.name, sizeof m.name, "util_frac.%s", base), m.scale = 0.01;
  }
  return m;
}

/* One header field of the `jetson.stats` log into its mapping. */
static map stats_field(const char *h) {
  map m = {"", 1.0, false};
  if (!strncmp(h, "Temp ", 5) && h[5]) {
    snprintf(m.name, sizeof m.name, "temp_c.%s", h + 5);
    m.temp = true;
  } else if (!strncmp(h, "Power ", 6) && h[6]) {
    snprintf(m.name, sizeof m.name, "power_w.%s", h + 6), m.scale = 1e-3;
  } else if (!strcmp(h, "power cur")) {
    snprintf(m.name, sizeof m.name, "power_w.TOT"), m.scale = 1e-3;
  } else if (!strncmp(h, "CPU", 3) && isdigit((unsigned char)h[3])) {
    snprintf(m.name, sizeof m.name, "util_frac.cpu%s", h + 3), m.scale = 0.01;
  } else if (!strcmp(h, "GPU") || (!strncmp(h, "GPU", 3) && isdigit((unsigned char)h[3]))) {
    snprintf(m.name, sizeof m.name, "util_frac.gpu%s", h + 3), m.scale = 0.01;
  } else if (!strncmp(h, "Fan ", 4) && h[4]) {
    snprintf(m.name, sizeof m.name, "util_frac.%s", h + 4), m.scale = 0.01;
  } else if (!strcmp(h, "fan")) {
    snprintf(m.name, sizeof m.name, "util_frac.fan"), m.scale = 0.01;
  }
  for (char *c = m.name; *c; c++) /* a zone or rail name with a space ("Temp CV0 x") */
    if (*c == ' ')
      *c = '_';
  return m;
}

static bool clock_s(const char *s, double *v) {
  int h, m, sec;
  char tail;
  if (sscanf(s, "%d:%d:%d%c", &h, &m, &sec, &tail) != 3 || h < 0 || h > 23 || m < 0 || m > 59 ||
      sec < 0 || sec > 60)
    return false;
  *v = h * 3600.0 + m * 60.0 + sec;
  return true;
}

int sits__jtop_sniff(const char *line) {
  return !strncmp(line, "System-Time,", 12) || strstr(line, "-thermal-CURR_TEMP") ||
                 !strncmp(line, "time,uptime,", 12)
             ? 30
             : 0;
}

/* The header line: the dialect (*stats: jetson-stats' logger) and a map per field. */
static int read_header(const char *path, size_t lineno, char **f, size_t n, bool *stats, map **maps,
                       size_t *n_fields, sits_err *err) {
  *stats = n >= 2 && !strcmp(f[0], "time") && !strcmp(f[1], "uptime");
  if (strcmp(f[0], "System-Time") != 0 && !*stats)
    return sits__fail(err, SITS_EINPUT,
                      "%s:%zu: a jtop CSV starts with System-Time (or time,uptime, as "
                      "jetson-stats' logger writes it)",
                      path, lineno);
  if (!(*maps = calloc(n, sizeof **maps)))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  *n_fields = n;
  for (size_t k = 1; k < n; k++)
    (*maps)[k] = *stats ? stats_field(f[k]) : field(f[k]);
  return SITS_OK;
}

/* A row's mapped values into the trace's last row: why the row is not one (NULL when it is;
 * *rc a failure to store). */
static const char *row_values(sits_trace *t, const map *maps, char **f, size_t n, bool stats,
                              int *rc) {
  for (size_t k = 1; k < n && *rc == SITS_OK; k++) {
    if (!maps[k].name[0])
      continue;
    double v = NAN;
    char *end;
    if (strcmp(f[k], "-") != 0 && *f[k] && !(stats && !strcmp(f[k], "OFF"))) {
      v = strtod(f[k], &end);
      if (*end || !isfinite(v))
        return "a value is not a number";
    }
    if (maps[k].temp && v <= -256.0)
      v = NAN;
    *rc = sits__trace_set(t, maps[k].name, v * maps[k].scale);
  }
  return NULL;
}

int sits__jtop_read(const char *path, const sits_trace_opts *o, sits_trace *t, sits_err *err) {
  sits__lines L;
  if (sits__lines_open(&L, path, err))
    return SITS_EINPUT;
  char **f = malloc(MAX_FIELDS * sizeof *f);
  map *maps = NULL;
  size_t n_fields = 0, ts_rows = 0;
  int rc = f ? SITS_OK : sits__fail(err, SITS_ENOMEM, "out of memory");
  double ts_first = NAN, ts_last = NAN, day = 0, prev = -1, t0 = NAN;
  bool stats = false; /* the jetson.stats dialect */
  for (char *line; (line = sits__trace_lines_next(&L, t, o, &rc, err));) {
    char *s = sits__trim(line);
    if (!*s)
      continue;
    size_t n = sits__trace_split(s, f, MAX_FIELDS);
    if (!maps) {
      if ((rc = read_header(path, L.lineno, f, n, &stats, &maps, &n_fields, err)))
        break;
      continue;
    }
    double ts;
    if (n != n_fields || !(stats ? sits__parse_datetime(f[0], &ts) : clock_s(f[0], &ts)) ||
        (stats && !isnan(t0) && !(ts > prev))) {
      rc = sits__trace_bad_line(t, o, path, L.lineno,
                                n != n_fields ? "wrong number of fields"
                                : stats       ? "time missing or not increasing"
                                              : "bad System-Time",
                                err);
      continue;
    }
    if (!stats && prev >= 0 && ts + day < prev)
      day += 86400; /* past midnight */
    ts += stats ? 0 : day;
    if (!stats)
      prev = ts;
    if (sits__trace_add_row(t, L.lineno) < 0) {
      rc = sits__fail(err, SITS_ENOMEM, "out of memory");
      break;
    }
    const char *why = row_values(t, maps, f, n, stats, &rc);
    if (why) {
      t->n_rows--;
      rc = sits__trace_bad_line(t, o, path, L.lineno, why, err);
      continue;
    }
    if (stats) { /* the stamp is the sample's time (from the first row kept) */
      if (isnan(t0))
        t0 = ts;
      prev = ts;
      rc = sits__trace_set(t, "time_s", ts - t0);
      continue;
    }
    if (isnan(ts_first))
      ts_first = ts;
    ts_last = ts;
    ts_rows++;
  }
  free(f), free(maps);
  sits__lines_close(&L);
  if (rc)
    return rc;
  if (stats && !(o && o->interval_ms > 0)) { /* (--interval-ms overrides, as for the others) */
    t->interval_source = "timestamps";
    t->interval_s =
        t->n_rows > 1 ? sits_trace_at(t, t->n_rows - 1, 0) / (double)(t->n_rows - 1) : NAN;
    return SITS_OK;
  }
  sits__trace_row_times(t, o, ts_first, ts_last, ts_rows);
  return SITS_OK;
}

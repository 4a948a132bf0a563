/*
 * trace_tegrastats.c - tegrastats text logs, every JetPack variant, by generic tokens rather
 * than positions (one fixture per variant in tests/data/tegrastats):
 *   - an optional leading `MM-DD-YYYY HH:MM:SS` (JetPack 5 on; 1-s resolution);
 *   - rails `NAME inst/avg[/max]` in mW, with or without the `mW` suffix: the first number
 *     is the sample (the others are running statistics) -> power_w.NAME in watts (`NC`,
 *     an unconnected monitor channel, is dropped);
 *   - temperatures `NAME@x[/y]C`: the first value; `-256C` is a sensor that is off (NAN);
 *     PMIC@100C and PMIC@50C are fixed dummies and are dropped -> temp_c.NAME;
 *   - `CPU [a%@f,off,...]` or `cpu [a%,b%]@f` (JetPack 3: one clock for all) -> util_frac.cpuK
 *     and freq_mhz.cpuK (NAN for an offline core);
 *   - `EMC_FREQ x%[@f]`, `GR3D_FREQ x%@f | x%@[f,f] | @[f,f,f] | @f | x%` (JetPack 3: `EMC`,
 *     `GR3D`) -> util_frac.EMC, util_frac.GR3D, freq_mhz.EMC, freq_mhz.GR3D (the first GPC;
 *     freq_mhz.GR3D_gpcK for the others);
 *   - engine clocks `APE 150`, `NVDEC 1190`, and any other `NAME_FREQ f | x%@f | @f`
 *     (`VIC_FREQ`, `NVENC0_FREQ`) -> freq_mhz.NAME (util_frac.NAME with a load; `off` -> NAN);
 *   - rails may read negative (Thor's VDD_GPU at idle: a monitor's offset): kept as read.
 * RAM/SWAP/IRAM/lfb and other tokens are ignored. Sample times: row k is at k x interval,
 * the interval from --interval-ms, else what the timestamps imply (the seconds between the
 * first and the last line that starts a new second, over the lines between them: a 100-ms log
 * of 5.2 s reads 0.1 s; with fewer than three seconds stamped, (span + 1 s) / rows), else
 * tegrastats' default 1000 ms (also when every stamp is the same second): never the 1-s
 * stamps themselves. Where a stamp goes back or jumps more
 * than 60 s and 10 median steps (a clock set, two logs joined), --strict stops at that line;
 * else the spans of the stretches between such lines are added (trace-info names the repair).
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

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#define MAX_TOKENS 512

/* `MM-DD-YYYY` then `HH:MM:SS` -> seconds (the epoch does not matter, only differences). */
static bool timestamp(const char *date, const char *clock, double *s) {
  int mo, d, y, h, mi, se;
  char tail;
  if (sscanf(date, "%2d-%2d-%4d%c", &mo, &d, &y, &tail) != 3 ||
      sscanf(clock, "%2d:%2d:%2d%c", &h, &mi, &se, &tail) != 3 || mo < 1 || mo > 12 || d < 1 ||
      d > 31 || h > 23 || mi > 59 || se > 60)
    return false;
  *s = (double)sits__days_from_civil(y, mo, d) * 86400.0 + h * 3600.0 + mi * 60.0 + se;
  return true;
}

/* A whole-token number. */
static bool num(const char *s, double *v) {
  char *end;
  errno = 0;
  *v = strtod(s, &end);
  return end != s && *end == '\0' && isfinite(*v);
}

/* A rail value list `a/b[/c]` with optional mW suffixes: the first number in mW. */
static bool rail(const char *s, double *mw) {
  char buf[128];
  if (strlen(s) >= sizeof buf || !strchr(s, '/'))
    return false;
  snprintf(buf, sizeof buf, "%s", s);
  int parts = 0;
  for (char *save = NULL, *p = strtok_r(buf, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
    size_t n = strlen(p);
    if (n > 2 && strcmp(p + n - 2, "mW") == 0)
      p[n - 2] = '\0';
    double v; /* negative kept: Thor's VDD_GPU reads -392 mW at idle (a monitor's offset) */
    if (!num(p, &v))
      return false;
    if (parts++ == 0)
      *mw = v;
  }
  return parts >= 2 && parts <= 3;
}

static bool is_name(const char *s) {
  if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
    return false;
  for (; *s; s++)
    if (!(isalnum((unsigned char)*s) || *s == '_'))
      return false;
  return true;
}

static int set(sits_trace *t, const char *kind, const char *name, double v) {
  char col[160];
  snprintf(col, sizeof col, "%s.%s", kind, name);
  return sits__trace_set(t, col, v);
}

/* `x%@f`, `x%@[f,f]`, `@[f,f,f]`, `@f`, `x%`, `off` for engine @p name (EMC, GR3D). */
static int load_clock(sits_trace *t, const char *name, const char *s) {
  int rc = SITS_OK;
  if (strcmp(s, "off") == 0)
    return SITS_OK;
  const char *at = strchr(s, '@');
  if (at != s) { /* a load percentage first */
    char pct[32];
    size_t n = (size_t)((at ? at : s + strlen(s)) - s);
    if (n == 0 || n >= sizeof pct || s[n - 1] != '%')
      return -1;
    memcpy(pct, s, n - 1);
    pct[n - 1] = '\0';
    double v;
    if (!num(pct, &v))
      return -1;
    rc = set(t, "util_frac", name, v / 100.0);
  }
  if (!at || rc)
    return rc;
  const char *f = at + 1;
  char buf[256];
  snprintf(buf, sizeof buf, "%s", f);
  char *p = buf;
  if (*p == '[') {
    p++;
    char *close = strchr(p, ']');
    if (!close || close[1])
      return -1;
    *close = '\0';
  }
  int k = 0;
  for (char *save = NULL, *q = strtok_r(p, ",", &save); q && !rc;
       q = strtok_r(NULL, ",", &save), k++) {
    double v;
    if (!num(q, &v))
      return -1;
    char col[64];
    if (k == 0)
      snprintf(col, sizeof col, "%s", name);
    else
      snprintf(col, sizeof col, "%s_gpc%d", name, k);
    rc = set(t, "freq_mhz", col, v);
  }
  return k ? rc : -1;
}

/* `[a%@f,off,...]`, or `[a%,b%,...]@f` with one clock for every core (JetPack 3, the form
 * NVIDIA's documentation gives) (the token may have been split on spaces: it never is in
 * practice). */
static int cpu_list(sits_trace *t, const char *s) {
  char buf[1024];
  size_t n = strlen(s);
  const char *close = strrchr(s, ']');
  double shared = NAN;
  if (close && close[1] == '@' && num(close + 2, &shared))
    n = (size_t)(close - s) + 1;
  if (n < 2 || s[0] != '[' || s[n - 1] != ']' || n >= sizeof buf)
    return -1;
  memcpy(buf, s + 1, n - 2);
  buf[n - 2] = '\0';
  int k = 0, rc = SITS_OK;
  for (char *save = NULL, *q = strtok_r(buf, ",", &save); q && !rc;
       q = strtok_r(NULL, ",", &save), k++) {
    char name[16];
    snprintf(name, sizeof name, "cpu%d", k);
    if (strcmp(q, "off") == 0) {
      rc = set(t, "util_frac", name, NAN);
      rc = rc ? rc : set(t, "freq_mhz", name, NAN);
      continue;
    }
    char *pct = strchr(q, '%');
    double u, f = NAN;
    if (!pct)
      return -1;
    *pct = '\0';
    if (!num(q, &u) || (pct[1] && (pct[1] != '@' || !num(pct + 2, &f))))
      return -1;
    rc = set(t, "util_frac", name, u / 100.0);
    rc = rc ? rc : set(t, "freq_mhz", name, pct[1] ? f : shared);
  }
  return rc;
}

/* `NAME@x[/y]C` -> a temperature; 1 when the token is one, 0 when not, -1 on a bad value. */
static int temperature(sits_trace *t, const char *s, int *rc) {
  const char *at = strchr(s, '@');
  size_t n = strlen(s);
  if (!at || at == s || n < 3 || s[n - 1] != 'C')
    return 0;
  char name[128], val[64];
  size_t ln = (size_t)(at - s);
  if (ln >= sizeof name || n - ln - 2 >= sizeof val)
    return -1;
  memcpy(name, s, ln);
  name[ln] = '\0';
  if (!is_name(name) || strcmp(name, "GR3D_FREQ") == 0 || strcmp(name, "EMC_FREQ") == 0)
    return 0;
  memcpy(val, at + 1, n - ln - 2);
  val[n - ln - 2] = '\0';
  char *slash = strchr(val, '/');
  if (slash) /* JetPack 7: x/yC, the second a statistic */
    *slash = '\0';
  size_t lv = strlen(val);
  if (lv && val[lv - 1] == 'C')
    val[lv - 1] = '\0';
  double v;
  if (!num(val, &v))
    return -1;
  if (strcmp(name, "PMIC") == 0 && (v == 100.0 || v == 50.0))
    return 1; /* a fixed dummy */
  *rc = set(t, "temp_c", name, v <= -256.0 ? NAN : v);
  return 1;
}

static const char *const engines[] = {
    "APE",    "NVENC", "NVENC0", "NVENC1", "NVDEC",  "NVDEC0",    "NVDEC1",    "NVJPG", "NVJPG0",
    "NVJPG1", "VIC",   "OFA",    "NVDLA0", "NVDLA1", "PVA0_FREQ", "PVA1_FREQ", "MSENC", NULL};

/* An engine clock's name: one of engines[], or any other NAME_FREQ (VIC_FREQ, NVENC0_FREQ,
 * ...: the clocks newer boards print with the suffix; the column drops it). */
static bool engine(const char *s) {
  for (int k = 0; engines[k]; k++)
    if (strcmp(s, engines[k]) == 0)
      return true;
  size_t n = strlen(s);
  return n > 5 && is_name(s) && strcmp(s + n - 5, "_FREQ") == 0;
}

/* One line's tokens into the last row; returns the number of values recognised, or -1. */
static int parse_tokens(sits_trace *t, char **tok, int n, bool *has_ts, double *ts) {
  int used = 0, i = 0, rc = SITS_OK;
  *has_ts = n >= 2 && timestamp(tok[0], tok[1], ts);
  if (*has_ts)
    i = 2;
  for (; i < n && rc == SITS_OK; i++) {
    const char *s = tok[i], *next = i + 1 < n ? tok[i + 1] : NULL;
    double mw;
    int tr = temperature(t, s, &rc);
    if (tr < 0)
      return -1;
    if (tr > 0) {
      used++;
      continue;
    }
    if ((strcmp(s, "CPU") == 0 || strcmp(s, "cpu") == 0) && next && next[0] == '[') {
      if (cpu_list(t, next))
        return -1;
      used++, i++;
    } else if ((strcmp(s, "EMC_FREQ") == 0 || strcmp(s, "GR3D_FREQ") == 0 ||
                ((strcmp(s, "EMC") == 0 || strcmp(s, "GR3D") == 0) && next &&
                 (strchr(next, '%') || next[0] == '@'))) &&
               next) { /* EMC and GR3D without _FREQ: JetPack 3 */
      if (load_clock(t, s[0] == 'E' ? "EMC" : "GR3D", next))
        return -1;
      used++, i++;
    } else if (next && is_name(s) && rail(next, &mw)) {
      if (strcmp(s, "NC") != 0) /* INA3221 channels wired to nothing */
        rc = set(t, "power_w", s, mw / 1000.0);
      used++, i++;
    } else if (next && engine(s)) {
      double f;
      char name[128]; /* VIC_FREQ -> VIC (PVA0_FREQ keeps its name, as before) */
      size_t ln = strlen(s);
      bool strip = ln > 5 && strcmp(s + ln - 5, "_FREQ") == 0 && strncmp(s, "PVA", 3) != 0;
      snprintf(name, sizeof name, "%.*s", (int)(strip ? ln - 5 : ln), s);
      if (strcmp(next, "off") == 0)
        rc = set(t, "freq_mhz", name, NAN);
      else if (num(next, &f))
        rc = set(t, "freq_mhz", name, f);
      else if (strchr(next, '@') || strchr(next, '%')) { /* x%@f, @f: as EMC and GR3D */
        if (load_clock(t, name, next))
          return -1;
      } else
        continue;
      used++, i++;
    }
  }
  return rc ? -2 : used;
}

int sits__tegrastats_sniff(const char *line) {
  return strstr(line, "RAM ") && (strstr(line, "CPU [") || strstr(line, "@")) ? 10 : 0;
}

/* The stamps' segments laid end to end: the span (each segment's last - first + 1 s) over
 * which the @p n stamps @p ts (of lines @p line) run. A stamp that goes back, or jumps more
 * than 60 s and 10 median steps (10 intervals with --interval-ms), starts a segment (a clock
 * set, two logs joined); --strict refuses it at its line. *breaks counts them. */
static int stamp_span(const double *ts, const size_t *line, size_t n, const sits_trace_opts *o,
                      const char *path, double *span_s, size_t *breaks, sits_err *err) {
  double *steps = malloc((n ? n : 1) * sizeof *steps);
  if (!steps)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  size_t m = 0;
  for (size_t k = 1; k < n; k++)
    if (ts[k] > ts[k - 1])
      steps[m++] = ts[k] - ts[k - 1];
  gsl_sort(steps, 1, m);
  double median = m ? gsl_stats_median_from_sorted_data(steps, 1, m) : 0;
  free(steps);
  double jump_s = fmax(60, 10 * median);
  if (o && o->interval_ms > 0)
    jump_s = fmax(jump_s, o->interval_ms / 100);
  double first = n ? ts[0] : 0;
  /* the lines where the stamp moves on to a new second: from the second such line of a
   * segment to its last, whole seconds pass over whole lines (each such line within one
   * interval after its second began), where the ends' seconds are covered only in part */
  double secs = 0;
  size_t lines = 0, fa = 0, fb = 0; /* a segment's first and last such line (0: none yet) */
  *span_s = 0, *breaks = 0;
  for (size_t k = 1; k <= n; k++) {
    double step = k < n ? ts[k] - ts[k - 1] : -1;
    if (k < n && step >= 0 && step <= jump_s) {
      if (step > 0)
        fa = fa ? fa : k, fb = k;
      continue;
    }
    if (fb > fa)
      secs += ts[fb] - ts[fa], lines += fb - fa;
    fa = fb = 0;
    if (k == n)
      break;
    if (o && o->strict)
      return sits__fail(err, SITS_EINPUT,
                        step < 0 ? "%s:%zu: the timestamp goes back %.0f s"
                                 : "%s:%zu: the timestamp jumps %.0f s (more than %.0f s after "
                                   "the line before)",
                        path, line[k], fabs(step), jump_s);
    *span_s += ts[k - 1] - first + 1.0, first = ts[k], (*breaks)++;
  }
  if (n)
    *span_s += ts[n - 1] - first + 1.0;
  if (lines && secs > 0) /* the span that many rows at that interval take */
    *span_s = secs / (double)lines * (double)n;
  return SITS_OK;
}

int sits__tegrastats_read(const char *path, const sits_trace_opts *o, sits_trace *t,
                          sits_err *err) {
  sits__lines L;
  if (sits__lines_open(&L, path, err))
    return SITS_EINPUT;
  char *tok[MAX_TOKENS];
  int rc = SITS_OK;
  double *ts_all = NULL; /* the stamped lines' stamps and line numbers */
  size_t *ts_line = NULL, ts_rows = 0, ts_cap = 0;
  for (char *line; (line = sits__trace_lines_next(&L, t, o, &rc, err));) {
    /* tegrastats ends every line: one without its newline was cut (the log copied or the
     * capture stopped while it was written), and a cut value reads as another (GR3D_FREQ
     * 99%@9 from @921) */
    size_t len = strlen(line);
    bool cut = len && line[len - 1] != '\n' && line[strspn(line, " \t\r")];
    int n = 0;
    for (char *save = NULL, *p = strtok_r(line, " \t\r\n", &save); p && n < MAX_TOKENS;
         p = strtok_r(NULL, " \t\r\n", &save))
      tok[n++] = p;
    if (n == 0)
      continue;
    if (cut) {
      rc = sits__trace_bad_line(t, o, path, L.lineno, "a line cut short (no newline at its end)",
                                err);
      continue;
    }
    long row = sits__trace_add_row(t, L.lineno);
    if (row < 0) {
      rc = sits__fail(err, SITS_ENOMEM, "out of memory");
      break;
    }
    bool has_ts;
    double ts = NAN;
    int used = parse_tokens(t, tok, n, &has_ts, &ts);
    if (used == -2) {
      rc = sits__fail(err, SITS_ENOMEM, "out of memory");
      break;
    }
    if (used <= 0) { /* nothing tegrastats-like, or a malformed value: drop the row */
      t->n_rows--;
      rc = sits__trace_bad_line(t, o, path, L.lineno,
                                used < 0 ? "malformed tegrastats value" : "not a tegrastats line",
                                err);
      continue;
    }
    if (has_ts) {
      if (ts_rows == ts_cap) {
        size_t cap = ts_cap ? 2 * ts_cap : 256;
        double *a = realloc(ts_all, cap * sizeof *a);
        if (a)
          ts_all = a;
        size_t *b = a ? realloc(ts_line, cap * sizeof *b) : NULL;
        if (b)
          ts_line = b;
        if (!a || !b) {
          rc = sits__fail(err, SITS_ENOMEM, "out of memory");
          break;
        }
        ts_cap = cap;
      }
      ts_all[ts_rows] = ts, ts_line[ts_rows++] = L.lineno;
    }
  }
  sits__lines_close(&L);
  double span_s = 0;
  size_t breaks = 0;
  if (rc == SITS_OK)
    rc = stamp_span(ts_all, ts_line, ts_rows, o, path, &span_s, &breaks, err);
  free(ts_all), free(ts_line);
  if (rc)
    return rc;
  sits__trace_row_times(t, o, 0, span_s - 1.0, ts_rows);
  if (breaks && strcmp(t->interval_source, "timestamps") == 0)
    t->interval_source = "timestamps, between the lines where they go back or jump";
  return SITS_OK;
}

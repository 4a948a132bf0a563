/*
 * trace_nvsmi.c - `nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits] -lms N` logs.
 * The fields come from the header (`timestamp, power.draw [W], temperature.gpu, ...`) or, for
 * a noheader log, from sits_trace_opts.fields (the --query-gpu list). Values may carry their
 * units (`170.72 W`, `17 %`, `1024 MiB`); `[N/A]`-style cells are missing. Every field is
 * kept (known[] below, under the old and the new name a driver gives it): timestamp
 * (`YYYY/MM/DD HH:MM:SS.mmm`: the sample times); power.draw -> power_w.gpu, power.draw.average
 * / .instant -> gpu_average / gpu_instant, enforced.power.limit -> gpu_limit, power.limit ->
 * gpu_set_limit; temperature.gpu / .memory -> temp_c.gpu / gpu_mem; utilization.* and
 * fan.speed -> util_frac.gpu, gpu_mem, gpu_enc, gpu_dec, gpu_fan; clocks[.current].* ->
 * freq_mhz.gpu_sm / _mem / _gr / _video; memory.* -> memory_mib.gpu_used ...; pstate P0..P15 ->
 * pstate.gpu; the clock event (throttle) reasons, as the hexadecimal mask or field by field
 * (Active / Not Active) -> one 0/1 column throttle.gpu_<reason> per reason, the names
 * libsits_rt's NVML source writes; any other numeric field -> nvsmi.gpu_<field> as logged; a
 * text field (name, uuid, driver_version, vbios_version, serial, pci.*) is passed over. The
 * fields come in any order. With an `index` field, `gpu` becomes `gpu<index>`; without one,
 * a log of several GPUs told apart by pci.bus_id (else uuid) names them gpu0, gpu1, ... in
 * the order first seen; the lines of one sample (a line per GPU) are one row. Without a
 * timestamp field the rows are --interval-ms apart.
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

#define MAX_FIELDS 64
#define MAX_GPUS 64 /* lines of one sample merged into a row (index fields) */

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

/* The fields this reader names, under every name a driver has given them (nvidia-smi 525
 * renamed clocks.sm to clocks.current.sm and clocks_throttle_reasons.* to
 * clocks_event_reasons.*; both are accepted in a query and the header prints the new one). */
typedef enum parse { P_NUMBER, P_PSTATE, P_MASK } parse;
static const struct {
  const char *field, *alias, *kind, *name;
  double scale;
  parse how;
} known[] = {
    {"power.draw", NULL, "power_w", "", 1.0, P_NUMBER},
    {"power.draw.average", NULL, "power_w", "_average", 1.0, P_NUMBER},
    {"power.draw.instant", NULL, "power_w", "_instant", 1.0, P_NUMBER},
    {"enforced.power.limit", NULL, "power_w", "_limit", 1.0, P_NUMBER},
    {"power.limit", NULL, "power_w", "_set_limit", 1.0, P_NUMBER},
    {"power.default_limit", NULL, "power_w", "_default_limit", 1.0, P_NUMBER},
    {"power.min_limit", NULL, "power_w", "_min_limit", 1.0, P_NUMBER},
    {"power.max_limit", NULL, "power_w", "_max_limit", 1.0, P_NUMBER},
    {"temperature.gpu", NULL, "temp_c", "", 1.0, P_NUMBER},
    {"temperature.memory", NULL, "temp_c", "_mem", 1.0, P_NUMBER},
    {"utilization.gpu", NULL, "util_frac", "", 0.01, P_NUMBER},
    {"utilization.memory", NULL, "util_frac", "_mem", 0.01, P_NUMBER},
    {"utilization.encoder", NULL, "util_frac", "_enc", 0.01, P_NUMBER},
    {"utilization.decoder", NULL, "util_frac", "_dec", 0.01, P_NUMBER},
    {"fan.speed", NULL, "util_frac", "_fan", 0.01, P_NUMBER},
    {"clocks.sm", "clocks.current.sm", "freq_mhz", "_sm", 1.0, P_NUMBER},
    {"clocks.mem", "clocks.current.memory", "freq_mhz", "_mem", 1.0, P_NUMBER},
    {"clocks.gr", "clocks.current.graphics", "freq_mhz", "_gr", 1.0, P_NUMBER},
    {"clocks.video", "clocks.current.video", "freq_mhz", "_video", 1.0, P_NUMBER},
    {"clocks.max.sm", NULL, "freq_mhz", "_max_sm", 1.0, P_NUMBER},
    {"clocks.max.mem", "clocks.max.memory", "freq_mhz", "_max_mem", 1.0, P_NUMBER},
    {"clocks.max.gr", "clocks.max.graphics", "freq_mhz", "_max_gr", 1.0, P_NUMBER},
    {"clocks.applications.gr", "clocks.applications.graphics", "freq_mhz", "_app_gr", 1.0,
     P_NUMBER},
    {"clocks.applications.mem", "clocks.applications.memory", "freq_mhz", "_app_mem", 1.0,
     P_NUMBER},
    {"memory.used", NULL, "memory_mib", "_used", 1.0, P_NUMBER},
    {"memory.free", NULL, "memory_mib", "_free", 1.0, P_NUMBER},
    {"memory.total", NULL, "memory_mib", "_total", 1.0, P_NUMBER},
    {"memory.reserved", NULL, "memory_mib", "_reserved", 1.0, P_NUMBER},
    {"pstate", NULL, "pstate", "", 1.0, P_PSTATE},
    {"clocks_throttle_reasons.active", "clocks_event_reasons.active", "throttle", "", 1.0, P_MASK},
    {NULL, NULL, NULL, NULL, 0, P_NUMBER}};

/* The reason bits (nvml.h's nvmlClocksEventReason*), their column names (as libsits_rt's NVML
 * source writes them) and the name nvidia-smi gives each as a field of its own. */
static const struct {
  unsigned long long bit;
  const char *column, *field;
} reasons[] = {{0x1, "idle", "gpu_idle"},
               {0x2, "app_clocks", "applications_clocks_setting"},
               {0x4, "sw_power_cap", "sw_power_cap"},
               {0x8, "hw_slowdown", "hw_slowdown"},
               {0x10, "sync_boost", "sync_boost"},
               {0x20, "sw_thermal", "sw_thermal_slowdown"},
               {0x40, "hw_thermal", "hw_thermal_slowdown"},
               {0x80, "hw_power_brake", "hw_power_brake_slowdown"},
               {0x100, "display_clocks", "display_clock_setting"}};
#define N_REASONS (sizeof reasons / sizeof reasons[0])

/* How one field of the log is read: a known field (its row in known[]), one reason of the
 * throttle set as Active / Not Active, any other number kept under nvsmi.<field>, or a text
 * field passed over (name, uuid, driver_version, pci.bus_id, ...: -1 in both). */
typedef struct plan {
  int known, reason; /* -1: not that */
  bool other;        /* a number under nvsmi.<field> (decided on the first sample) */
} plan;

static plan plan_of(const char *field) {
  plan p = {-1, -1, false};
  for (int q = 0; known[q].field; q++)
    if (!strcmp(field, known[q].field) || (known[q].alias && !strcmp(field, known[q].alias)))
      p.known = q;
  const char *tail = NULL;
  if (!strncmp(field, "clocks_throttle_reasons.", 24))
    tail = field + 24;
  else if (!strncmp(field, "clocks_event_reasons.", 21))
    tail = field + 21;
  for (size_t r = 0; tail && r < N_REASONS; r++)
    if (!strcmp(tail, reasons[r].field))
      p.reason = (int)r;
  return p;
}

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
  } units[] = {{"power_w", "W", 1.0},
               {"power_w", "mW", 1e-3},
               {"power_w", "kW", 1e3},
               {"temp_c", "C", 1.0},
               {"freq_mhz", "MHz", 1.0},
               {"freq_mhz", "GHz", 1e3},
               {"freq_mhz", "kHz", 1e-3},
               {"freq_mhz", "Hz", 1e-6},
               {"util_frac", "%", 1.0},
               {"memory_mib", "MiB", 1.0},
               {"memory_mib", "GiB", 1024.0},
               {"memory_mib", "MB", 1.0}}; /* older drivers print MiB as "MB" */
  if (!*unit)
    return 1.0;
  for (size_t k = 0; k < sizeof units / sizeof units[0]; k++)
    if (!strcmp(units[k].kind, kind) && !strcmp(units[k].unit, unit))
      return units[k].scale;
  return NAN;
}

/* A header (a `timestamp` field and a field this reader names, in any order: `index, name,
 * timestamp, power.draw [W]`) or a noheader sample (a field that is a time stamp). */
int sits__nvsmi_sniff(const char *line) {
  char buf[1024], *f[MAX_FIELDS];
  snprintf(buf, sizeof buf, "%s", line);
  size_t n = sits__trace_split(buf, f, MAX_FIELDS);
  bool header = false, named = false;
  size_t named_fields = 0;
  for (size_t k = 0; k < n; k++) {
    char name[64], unit[16];
    double v;
    long day;
    if (stamp(f[k], &day, &v))
      return 25;
    field_name(f[k], name, sizeof name, unit, sizeof unit);
    if (!strcmp(name, "timestamp"))
      header = true, named |= k == 0;
    plan p = plan_of(name);
    named |= p.known >= 0 || p.reason >= 0;
    named_fields += p.known >= 0 || p.reason >= 0;
  }
  return (header && named) || named_fields >= 2 ? 25 : 0;
}

/* A known numeric field's cell, scaled to its kind's unit (a unit in the cell, else the
 * header's); NAN for [N/A]-style cells; *why when it is not a number or not in a unit of its
 * kind. */
static double number(const char *cell, const char *header_unit, int q, const char **why) {
  char *end;
  double v = strtod(cell, &end);
  const char *unit = sits__trim(end); /* a unit after the number: W, mW, %, MHz */
  double scale = unit_scale(known[q].kind, *unit ? unit : header_unit);
  if (end == cell) { /* [N/A], [Not Supported], [Unknown Error] (bracketed or not): missing */
    if (!(cell[0] == '[' || !*cell || !strcmp(cell, "N/A") || !strncmp(cell, "Not ", 4) ||
          !strncmp(cell, "Unknown", 7)))
      *why = "a value is not a number";
    return NAN;
  }
  if (*unit && !isalpha((unsigned char)*unit) && *unit != '%')
    *why = "a value is not a number";
  else if (isnan(scale))
    *why = "a unit this reader does not know (W, mW, kW; MHz, GHz, kHz, Hz; %; C; MiB, GiB, MB)";
  return v * scale * known[q].scale;
}

/* The value @p v into column kind.<gpu><name> of the last row (@p t NULL: a dry run, which
 * only finds what makes a row malformed). */
static int set_col(sits_trace *t, const char *kind, const char *gpu, const char *name, double v) {
  if (!t)
    return SITS_OK;
  char col[160];
  snprintf(col, sizeof col, "%s.%s%s", kind, gpu, name);
  return sits__trace_set(t, col, v);
}

/* `P0` .. `P15`; NAN otherwise ([N/A], Unknown). */
static double pstate(const char *cell) {
  char *end;
  long p = cell[0] == 'P' ? strtol(cell + 1, &end, 10) : -1;
  return p >= 0 && p <= 15 && end != cell + 1 && !*sits__trim(end) ? (double)p : NAN;
}

/* The values of one sample row into the last row of @p t (NULL: none, *why only), field by
 * field as planned; *why says what makes the row malformed. */
static int row_values(sits_trace *t, char **f, size_t n, const plan *plans, char units[][16],
                      char names[][64], const char *gpu, const char **why) {
  int rc = SITS_OK;
  for (size_t k = 0; k < n && rc == SITS_OK && !*why; k++) {
    const plan *p = &plans[k];
    char name[96];
    if (p->known >= 0) {
      int q = p->known;
      switch (known[q].how) {
      case P_NUMBER:
        rc = set_col(t, known[q].kind, gpu, known[q].name, number(f[k], units[k], q, why));
        break;
      case P_PSTATE: rc = set_col(t, "pstate", gpu, "", pstate(f[k])); break;
      case P_MASK: {
        char *end;
        errno = 0;
        unsigned long long m = strtoull(f[k], &end, 16);
        bool ok = !strncmp(f[k], "0x", 2) && end != f[k] + 2 && !*sits__trim(end) && errno == 0;
        if (!ok && f[k][0] != '[')
          *why = "a clock event reason mask that is not 0x followed by hexadecimal digits";
        for (size_t r = 0; r < N_REASONS && rc == SITS_OK; r++) {
          snprintf(name, sizeof name, "_%s", reasons[r].column);
          rc = set_col(t, "throttle", gpu, name, ok ? (double)((m & reasons[r].bit) != 0) : NAN);
        }
        break;
      }
      }
    } else if (p->reason >= 0) {
      double v = !strcmp(f[k], "Active") ? 1.0 : !strcmp(f[k], "Not Active") ? 0.0 : NAN;
      snprintf(name, sizeof name, "_%s", reasons[p->reason].column);
      rc = set_col(t, "throttle", gpu, name, v);
    } else if (p->other) {
      char *end;
      double v = strtod(f[k], &end);
      snprintf(name, sizeof name, "_%s", names[k]);
      rc = set_col(t, "nvsmi", gpu, name, end == f[k] ? NAN : v);
    }
  }
  return rc;
}

/* Reading state: the header's field names and the clock. */
typedef struct nvsmi {
  char names[MAX_FIELDS][64];
  plan plans[MAX_FIELDS];
  bool planned, found;
  char units[MAX_FIELDS][16]; /* from the header: `power.draw [mW]` */
  size_t n_fields;
  int i_time, i_key; /* the timestamp field; the GPU's: index, else pci.bus_id, else uuid */
  bool key_index;
  double t0, prev;
  double gap; /* the last two rows' time apart (0: not known yet) */
  long day0;
  /* the GPUs (key cells) in the last row: nvidia-smi writes a line per GPU per sample, and
   * the lines of one sample are one row (gpu0's columns, gpu1's, ...) */
  char row_gpus[MAX_GPUS][64];
  size_t n_row_gpus;
  /* keyed by bus id or uuid: the GPUs in the order first seen (the first `gpu`, the others
   * gpu1, gpu2, ...; with more than one, the first renamed gpu0 at the end) */
  char keys[MAX_GPUS][64];
  size_t n_keys;
  size_t n_lines; /* sample lines so far, malformed ones too */
} nvsmi;

/* The column prefix of the GPU of cell @p key ("gpu" without a key field); with @p add a key
 * not seen yet is taken as the next GPU (only once its line is read). */
static void gpu_label(nvsmi *s, const char *key, char *gpu, size_t size, bool add) {
  snprintf(gpu, size, "gpu");
  if (s->i_key < 0)
    return;
  if (s->key_index) {
    snprintf(gpu, size, "gpu%.15s", key);
    return;
  }
  size_t k = 0;
  while (k < s->n_keys && strncmp(s->keys[k], key, sizeof s->keys[0] - 1) != 0)
    k++;
  if (add && k == s->n_keys && k < MAX_GPUS)
    snprintf(s->keys[s->n_keys++], sizeof s->keys[0], "%s", key);
  if (k)
    snprintf(gpu, size, "gpu%zu", k);
}

/* One sample line (fields @p f, @p n of them): a row of @p t, or a malformed line counted.
 * Without a timestamp field the rows are --interval-ms apart. */
static int sample(nvsmi *s, sits_trace *t, const sits_trace_opts *o, const char *path,
                  size_t lineno, char **f, size_t n, sits_err *err) {
  if (!s->found) {
    s->found = true;
    int bus = -1, uuid = -1;
    for (size_t k = 0; k < s->n_fields; k++) {
      if (!strcmp(s->names[k], "timestamp"))
        s->i_time = (int)k;
      if (!strcmp(s->names[k], "index"))
        s->i_key = (int)k, s->key_index = true;
      if (!strcmp(s->names[k], "pci.bus_id"))
        bus = (int)k;
      if (!strcmp(s->names[k], "uuid") || !strcmp(s->names[k], "gpu_uuid"))
        uuid = (int)k;
    }
    if (s->i_key < 0)
      s->i_key = bus >= 0 ? bus : uuid;
  }
  if (s->i_time < 0 && !(o && o->interval_ms > 0))
    return sits__fail(err, SITS_EINPUT,
                      "%s: the log has no timestamp field: add timestamp to the --query-gpu "
                      "list, or give the sample interval (--interval-ms)",
                      path);
  if (!s->planned && n == s->n_fields) /* on the first sample: which fields are numbers */
    for (size_t k = 0; k < n; k++) {
      s->plans[k] = plan_of(s->names[k]);
      char *end;
      (void)strtod(f[k], &end);
      const char *rest = sits__trim(end);
      bool text = !strcmp(s->names[k], "driver_version") || !strcmp(s->names[k], "vbios_version") ||
                  !strncmp(s->names[k], "pci.", 4) || !strcmp(s->names[k], "serial");
      s->plans[k].other =
          s->plans[k].known < 0 && s->plans[k].reason < 0 && (int)k != s->i_time &&
          (int)k != s->i_key && !text &&
          ((end != f[k] && (!*rest || isalpha((unsigned char)*rest) || *rest == '%')) ||
           f[k][0] == '[');
      s->planned = true;
    }
  double ts = NAN;
  long day = 0;
  bool ok = n == s->n_fields;
  if (ok && s->i_time >= 0)
    ok = stamp(f[s->i_time], &day, &ts);
  else if (ok) /* rows --interval-ms apart: by the lines (a malformed one took its place), or
                * with GPUs in a row each, by the rows */
    ts = (double)(s->i_key < 0 ? s->n_lines : t->n_rows) * o->interval_ms / 1000.0;
  s->n_lines++;
  if (ok && s->i_time >= 0 && s->day0 < 0)
    s->day0 = day;
  if (ok && s->i_time >= 0) /* seconds since the first sample's day */
    ts += (double)(day - s->day0) * 86400.0;
  /* another GPU's line of the sample in the last row: into that row (its time the first
   * line's); a GPU seen in it already starts the next sample */
  bool merge =
      ok && s->i_key >= 0 && s->n_row_gpus > 0 && s->n_row_gpus < MAX_GPUS && t->n_rows > 0;
  for (size_t k = 0; merge && k < s->n_row_gpus; k++)
    merge = strncmp(s->row_gpus[k], f[s->i_key], sizeof s->row_gpus[0] - 1) != 0;
  /* ... and stamped within the sample: a GPU whose line of this sample is missing starts the
   * next one (under half the rows' spacing from the row's first line; before that spacing is
   * known, a GPU seen in the row already is what starts the next) */
  if (merge && s->i_time >= 0 && s->gap > 0)
    merge = ts - s->prev < 0.5 * s->gap;
  char gpu[32] = "gpu"; /* a malformed line names no GPU */
  if (ok)               /* the name it would take: taken (added) once the line is read */
    gpu_label(s, s->i_key >= 0 ? f[s->i_key] : "", gpu, sizeof gpu, false);
  const char *why = NULL;
  int rc = SITS_OK;
  if (ok && (merge || ts > s->prev) &&
      (rc = row_values(NULL, f, n, s->plans, s->units, s->names, gpu, &why)) == SITS_OK && why)
    return sits__trace_bad_line(t, o, path, lineno, why, err);
  if (rc)
    return rc;
  if (merge) {
    snprintf(s->row_gpus[s->n_row_gpus++], sizeof s->row_gpus[0], "%s", f[s->i_key]);
    gpu_label(s, f[s->i_key], gpu, sizeof gpu, true);
    return row_values(t, f, n, s->plans, s->units, s->names, gpu, &why);
  }
  if (!ok || !(ts > s->prev))
    return sits__trace_bad_line(
        t, o, path, lineno,
        n != s->n_fields ? "wrong number of fields" : "bad or non-increasing timestamp", err);
  if (s->prev == -INFINITY)
    s->t0 = ts;
  else
    s->gap = ts - s->prev;
  s->prev = ts;
  if (sits__trace_add_row(t, lineno) < 0)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  s->n_row_gpus = 0;
  if (s->i_key >= 0) {
    snprintf(s->row_gpus[s->n_row_gpus++], sizeof s->row_gpus[0], "%s", f[s->i_key]);
    gpu_label(s, f[s->i_key], gpu, sizeof gpu, true);
  }
  rc = sits__trace_set(t, "time_s", ts - s->t0);
  if (rc == SITS_OK)
    rc = row_values(t, f, n, s->plans, s->units, s->names, gpu, &why);
  return rc;
}

/* Keyed by bus id or uuid with more than one GPU: the first GPU's columns (kind.gpu,
 * kind.gpu_...) renamed kind.gpu0, kind.gpu0_..., as the others are gpu1, gpu2, ... */
static int name_first_gpu(const nvsmi *s, sits_trace *t, sits_err *err) {
  if (s->key_index || s->n_keys < 2)
    return SITS_OK;
  for (size_t c = 0; c < t->n_cols; c++) {
    const char *dot = strchr(t->names[c], '.');
    if (!dot || strncmp(dot + 1, "gpu", 3) != 0 || (dot[4] && dot[4] != '_'))
      continue;
    size_t len = strlen(t->names[c]);
    char *name = malloc(len + 2);
    if (!name)
      return sits__fail(err, SITS_ENOMEM, "out of memory");
    size_t head = (size_t)(dot - t->names[c]) + 4;
    memcpy(name, t->names[c], head);
    name[head] = '0';
    memcpy(name + head + 1, t->names[c] + head, len - head + 1);
    free(t->names[c]);
    t->names[c] = name;
  }
  return SITS_OK;
}

int sits__nvsmi_read(const char *path, const sits_trace_opts *o, sits_trace *t, sits_err *err) {
  sits__lines L;
  if (sits__lines_open(&L, path, err))
    return SITS_EINPUT;
  char *f[MAX_FIELDS];
  nvsmi s = {.i_time = -1, .i_key = -1, .prev = -INFINITY, .day0 = -1};
  int rc = SITS_OK;
  if (o && o->fields) { /* a noheader log: the query list */
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", o->fields);
    s.n_fields = sits__trace_split(buf, f, MAX_FIELDS);
    for (size_t k = 0; k < s.n_fields; k++)
      field_name(f[k], s.names[k], sizeof s.names[k], s.units[k], sizeof s.units[k]);
  }
  for (char *line; rc == SITS_OK && (line = sits__trace_lines_next(&L, t, o, &rc, err));) {
    /* nvidia-smi ends every line: one without its newline was cut while the log was written
     * (a cut cell still reads: 62 as 6) */
    size_t len = strlen(line);
    bool cut = len && line[len - 1] != '\n';
    char *str = sits__trim(line);
    if (!*str || *str == '#')
      continue;
    if (cut && s.n_fields) {
      s.n_lines++; /* it took its place */
      rc = sits__trace_bad_line(t, o, path, L.lineno, "a line cut short (no newline at its end)",
                                err);
      continue;
    }
    size_t n = sits__trace_split(str, f, MAX_FIELDS);
    if (s.n_fields) {
      rc = sample(&s, t, o, path, L.lineno, f, n, err);
      continue;
    }
    /* a header: the timestamp field, first or not, or fields this reader names */
    bool header = false;
    for (size_t k = 0; k < n; k++) {
      char name[64], unit[16];
      field_name(f[k], name, sizeof name, unit, sizeof unit);
      plan p = plan_of(name);
      header |= !strcmp(name, "timestamp") || p.known >= 0 || p.reason >= 0;
    }
    if (!header) {
      rc = sits__fail(err, SITS_EINPUT,
                      "%s:%zu: no header: give the --query-gpu fields (--fields) for a "
                      "noheader log",
                      path, L.lineno);
      break;
    }
    s.n_fields = n;
    for (size_t k = 0; k < n && rc == SITS_OK; k++) {
      field_name(f[k], s.names[k], sizeof s.names[k], s.units[k], sizeof s.units[k]);
      plan p = plan_of(s.names[k]); /* a header unit no value of the field can be read in */
      if (p.known >= 0 && known[p.known].how == P_NUMBER &&
          isnan(unit_scale(known[p.known].kind, s.units[k])))
        rc = sits__fail(err, SITS_EINPUT,
                        "%s:%zu: field '%s [%s]': a unit this reader does not know for %s (W, "
                        "mW, kW; MHz, GHz, kHz, Hz; %%; C; MiB, GiB, MB)",
                        path, L.lineno, s.names[k], s.units[k], known[p.known].kind);
    }
  }
  sits__lines_close(&L);
  if (rc == SITS_OK && !s.n_fields)
    rc = sits__fail(err, SITS_EINPUT, "%s: empty log", path);
  if (rc == SITS_OK)
    rc = name_first_gpu(&s, t, err);
  if (rc == SITS_OK && s.i_time < 0) /* the rows --interval-ms apart */
    t->interval_s = o->interval_ms / 1000.0, t->interval_source = "option";
  return rc;
}

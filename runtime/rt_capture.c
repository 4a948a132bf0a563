/* rt_capture.c - the runtime hook library: sysfs sources into normalised rows (sits_rt.h). */
#define _POSIX_C_SOURCE 200809L
#include "sits_rt.h"
#include "rt_nvml_impl.h"
#include "status_internal.h"

/* sysfs paths are built in fixed buffers; a name long enough to be cut makes a path that does
 * not exist, and that source is simply not found. GCC cannot see the bounds of directory
 * entries and warns on every such snprintf. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PATH_MAX_LEN 1024 /* a file's path */
#define DIR_LEN 512       /* a class directory: the root (at most 400) and a few components */

typedef enum kind {
  K_TEMP_MC,   /* m°C -> C; -256000 missing */
  K_SCALE,     /* value x scale */
  K_INA_POWER, /* mV file x mA file -> W */
  K_BATT_SIGNED /* µA or µW, signed by the status file (charging negative) */,
  K_RAPL /* energy µJ -> W by difference */
} kind;

typedef struct source {
  char name[300];
  kind k;
  char path[PATH_MAX_LEN], path2[PATH_MAX_LEN];
  double scale, range; /* range: RAPL wrap-around [µJ] */
  double last_e, last_t;
  bool have_last;
} source;

struct sits_rt {
  char root[400];
  source *src; /* every source found (grown as found: a server has hundreds of zones) */
  size_t n, cap;
  bool oom;                               /* a source could not be added */
  char marks[SITS_RT_MAX_MARKS][64];      /* "mark.<label>" or "phase.<label>" columns */
  int pending[SITS_RT_MAX_MARKS];         /* mark: set since the last sample; phase: open during
                                             the interval since the last sample */
  bool open[SITS_RT_MAX_MARKS];           /* phase: open now */
  size_t stack[SITS_RT_MAX_MARKS], depth; /* the open phases, innermost last */
  size_t n_marks;
  bool sampled;
  double t0;
  sits__nvml *nvml; /* NVIDIA GPUs (rt_nvml.c), or NULL */
};

/* A file's first line, trimmed; false when it cannot be read. */
static bool read_line(const char *path, char *buf, size_t size) {
  FILE *f = fopen(path, "r");
  if (!f)
    return false;
  bool ok = fgets(buf, (int)size, f) != NULL;
  fclose(f);
  if (!ok)
    return false;
  size_t n = strlen(buf);
  while (n && isspace((unsigned char)buf[n - 1]))
    buf[--n] = '\0';
  return true;
}

static bool read_num(const char *path, double *v) {
  char buf[128], *end;
  if (!read_line(path, buf, sizeof buf))
    return false;
  errno = 0;
  *v = strtod(buf, &end);
  return end != buf && !*end && isfinite(*v);
}

static source *add(sits_rt *rt, const char *name, kind k, const char *path, double scale) {
  if (rt->n == rt->cap) {
    size_t cap = rt->cap ? 2 * rt->cap : 64;
    source *grown = realloc(rt->src, cap * sizeof *grown);
    if (!grown) {
      rt->oom = true;
      return NULL;
    }
    rt->src = grown, rt->cap = cap;
  }
  for (size_t j = 0; j < rt->n; j++) /* two sources with one name: keep the first */
    if (strcmp(rt->src[j].name, name) == 0)
      return NULL;
  source *s = &rt->src[rt->n++];
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "%s", name);
  snprintf(s->path, sizeof s->path, "%s", path);
  s->k = k, s->scale = scale;
  return s;
}

/* Directory entries of @p dir starting with @p prefix, sorted (natural order: zone2 before
 * zone10), into a new array (*names, free()); their count. None, or no memory: 0. */
typedef char entry_name[256];
static size_t entries(const char *dir, const char *prefix, entry_name **names) {
  *names = NULL;
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  size_t n = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.' || strncmp(e->d_name, prefix, strlen(prefix)) != 0)
      continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 32;
      entry_name *grown = realloc(*names, cap * sizeof *grown);
      if (!grown)
        break;
      *names = grown;
    }
    snprintf((*names)[n++], sizeof(entry_name), "%s", e->d_name);
  }
  closedir(d);
  entry_name *v = *names;
  for (size_t i = 1; i < n; i++) /* insertion sort by natural order */
    for (size_t j = i; j > 0; j--) {
      size_t la = strlen(v[j - 1]), lb = strlen(v[j]);
      if (la < lb || (la == lb && strcmp(v[j - 1], v[j]) <= 0))
        break;
      entry_name tmp;
      memcpy(tmp, v[j], sizeof tmp);
      memcpy(v[j], v[j - 1], sizeof tmp);
      memcpy(v[j - 1], tmp, sizeof tmp);
    }
  return n;
}

/* What a sysfs entry calls itself: the first line of @p dir/@p entry/@p file (type, name), or
 * the entry's own name. */
static void label_of(const char *dir, const char *entry, const char *file, char *out, size_t size) {
  char p[PATH_MAX_LEN];
  snprintf(p, sizeof p, "%s/%s/%s", dir, entry, file);
  if (!read_line(p, out, size))
    snprintf(out, size, "%s", entry);
}

static void thermal_zones(sits_rt *rt) {
  char dir[DIR_LEN];
  entry_name *names;
  snprintf(dir, sizeof dir, "%s/class/thermal", rt->root);
  size_t n = entries(dir, "thermal_zone", &names);
  for (size_t k = 0; k < n; k++) {
    char p[PATH_MAX_LEN], type[128], col[300];
    label_of(dir, names[k], "type", type, sizeof type);
    snprintf(col, sizeof col, "temp_c.%s", type);
    snprintf(p, sizeof p, "%s/%s/temp", dir, names[k]);
    if (!add(rt, col, K_TEMP_MC, p, 1e-3) && !rt->oom) { /* a type seen before: its number */
      snprintf(col, sizeof col, "temp_c.%s_%s", type, names[k] + strlen("thermal_zone"));
      add(rt, col, K_TEMP_MC, p, 1e-3);
    }
  }
  free(names);
}

/* Cooling devices: cur_state as cooling_state.<type> (the device's number when two share a
 * type, as x86's "Processor" devices do). */
static void cooling_devices(sits_rt *rt) {
  char dir[DIR_LEN];
  entry_name *names;
  snprintf(dir, sizeof dir, "%s/class/thermal", rt->root);
  size_t n = entries(dir, "cooling_device", &names);
  for (size_t k = 0; k < n; k++) {
    char p[PATH_MAX_LEN], type[128], col[300];
    label_of(dir, names[k], "type", type, sizeof type);
    snprintf(col, sizeof col, "cooling_state.%s", type);
    snprintf(p, sizeof p, "%s/%s/cur_state", dir, names[k]);
    double v;
    if (!read_num(p, &v))
      continue;
    if (!add(rt, col, K_SCALE, p, 1.0)) { /* a type seen before */
      snprintf(col, sizeof col, "cooling_state.%s_%s", type, names[k] + strlen("cooling_device"));
      add(rt, col, K_SCALE, p, 1.0);
    }
  }
  free(names);
}

/* A hwmon chip's fans: pwmN (0-255) as the duty util_frac.<chip>_pwmN, fanN_input as
 * fan_rpm.<chip>_fanN. */
static void hwmon_fans(sits_rt *rt, const char *base, const char *chip) {
  for (int ch = 1; ch <= 8; ch++) {
    char p[PATH_MAX_LEN], col[300];
    double v;
    snprintf(p, sizeof p, "%s/pwm%d", base, ch);
    if (read_num(p, &v)) {
      snprintf(col, sizeof col, "util_frac.%s_pwm%d", chip, ch);
      add(rt, col, K_SCALE, p, 1.0 / 255.0);
    }
    snprintf(p, sizeof p, "%s/fan%d_input", base, ch);
    if (read_num(p, &v)) {
      snprintf(col, sizeof col, "fan_rpm.%s_fan%d", chip, ch);
      add(rt, col, K_SCALE, p, 1.0);
    }
  }
}

static void hwmon(sits_rt *rt) {
  char dir[DIR_LEN];
  entry_name *names;
  snprintf(dir, sizeof dir, "%s/class/hwmon", rt->root);
  size_t n = entries(dir, "hwmon", &names);
  for (size_t h = 0; h < n; h++) {
    char base[800], chip[96], name[64];
    snprintf(base, sizeof base, "%s/%s", dir, names[h]);
    label_of(dir, names[h], "name", name, sizeof name);
    snprintf(chip, sizeof chip, "%s", name);
    for (size_t e = 0; e < h; e++) { /* a name an earlier chip has (two GPUs): its number */
      char other[64];
      label_of(dir, names[e], "name", other, sizeof other);
      if (strcmp(other, name) == 0) {
        snprintf(chip, sizeof chip, "%s_%s", name, names[h] + strlen("hwmon"));
        break;
      }
    }
    bool ina = strcmp(name, "ina3221") == 0; /* a second one (AGX boards have two) too */
    hwmon_fans(rt, base, chip);
    const struct {
      const char *prefix, *kind;
      double scale;
    } files[] = {
        {"power", "power_w", 1e-6}, {"in", "voltage_v", 1e-3}, {"curr", "current_a", 1e-3}};
    for (int f = 0; f < 3; f++)
      for (int ch = 0; ch <= 16; ch++) {
        char input[PATH_MAX_LEN], label_path[PATH_MAX_LEN], label[128], col[300];
        snprintf(input, sizeof input, "%s/%s%d_input", base, files[f].prefix, ch);
        double v;
        if (!read_num(input, &v))
          continue;
        snprintf(label_path, sizeof label_path, "%s/%s%d_label", base, files[f].prefix, ch);
        bool labelled = read_line(label_path, label, sizeof label);
        if (ina && f > 0) { /* INA3221 labels live on in*_label */
          snprintf(label_path, sizeof label_path, "%s/in%d_label", base, ch);
          labelled = read_line(label_path, label, sizeof label);
        }
        if (labelled &&
            (strcmp(label, "NC") == 0 || (ina && (strstr(label, "sum") || strstr(label, "Sum")))))
          continue; /* unconnected, or the INA3221 sum channel (another chip's "psu sum" is
                       a rail) */
        if (!labelled)
          snprintf(label, sizeof label, "%s%d", files[f].prefix, ch);
        snprintf(col, sizeof col, "%s.%s_%s", files[f].kind, chip, label);
        if (ina && labelled)
          snprintf(col, sizeof col, "%s.%s", files[f].kind, label);
        add(rt, col, K_SCALE, input, files[f].scale);
        if (ina && labelled && f == 1) { /* P = V I per labelled channel */
          char curr[PATH_MAX_LEN], pcol[300];
          snprintf(curr, sizeof curr, "%s/curr%d_input", base, ch);
          double i;
          if (read_num(curr, &i)) {
            snprintf(pcol, sizeof pcol, "power_w.%s", label);
            source *s = add(rt, pcol, K_INA_POWER, input, 1e-6);
            if (s)
              snprintf(s->path2, sizeof s->path2, "%s", curr);
          }
        }
      }
  }
  free(names);
}

static void power_supply(sits_rt *rt) {
  char dir[DIR_LEN];
  entry_name *names;
  snprintf(dir, sizeof dir, "%s/class/power_supply", rt->root);
  size_t n = entries(dir, "", &names);
  for (size_t k = 0; k < n; k++) {
    char p[PATH_MAX_LEN], type[64], col[160];
    snprintf(p, sizeof p, "%s/%s/type", dir, names[k]);
    if (!read_line(p, type, sizeof type) || strcmp(type, "Battery") != 0)
      continue;
    double v;
    snprintf(p, sizeof p, "%s/%s/voltage_now", dir, names[k]);
    if (read_num(p, &v)) {
      snprintf(col, sizeof col, "voltage_v.%s", names[k]);
      add(rt, col, K_SCALE, p, 1e-6);
    }
    snprintf(p, sizeof p, "%s/%s/current_now", dir, names[k]);
    if (read_num(p, &v)) {
      snprintf(col, sizeof col, "current_a.%s", names[k]);
      source *s = add(rt, col, K_BATT_SIGNED, p, 1e-6);
      if (s)
        snprintf(s->path2, sizeof s->path2, "%s/%s/status", dir, names[k]);
    }
    snprintf(p, sizeof p, "%s/%s/power_now", dir, names[k]);
    if (read_num(p, &v)) {
      snprintf(col, sizeof col, "power_w.%s", names[k]);
      source *s = add(rt, col, K_BATT_SIGNED, p, 1e-6); /* the current's sign: V I */
      if (s)
        snprintf(s->path2, sizeof s->path2, "%s/%s/status", dir, names[k]);
    }
  }
  free(names);
}

static void rapl(sits_rt *rt) {
  char dir[DIR_LEN];
  entry_name *names;
  snprintf(dir, sizeof dir, "%s/class/powercap", rt->root);
  size_t n = entries(dir, "intel-rapl:", &names);
  for (size_t k = 0; k < n; k++) {
    char p[PATH_MAX_LEN], name[128], col[300];
    label_of(dir, names[k], "name", name, sizeof name);
    snprintf(col, sizeof col, "power_w.rapl_%s", name);
    snprintf(p, sizeof p, "%s/%s/energy_uj", dir, names[k]);
    double e;
    if (!read_num(p, &e))
      continue;
    source *s = add(rt, col, K_RAPL, p, 1e-6);
    if (!s && !rt->oom) { /* a name another zone has (each package's "dram"): its number */
      snprintf(col, sizeof col, "power_w.rapl_%s_%s", name, names[k] + strlen("intel-rapl:"));
      for (char *c = col; *c; c++)
        *c = *c == ':' ? '_' : *c;
      s = add(rt, col, K_RAPL, p, 1e-6);
    }
    snprintf(p, sizeof p, "%s/%s/max_energy_range_uj", dir, names[k]);
    if (s && !read_num(p, &s->range))
      s->range = 0;
  }
  free(names);
}

static void clocks(sits_rt *rt) {
  char dir[DIR_LEN];
  entry_name *names;
  snprintf(dir, sizeof dir, "%s/devices/system/cpu", rt->root);
  size_t n = entries(dir, "cpu", &names);
  for (size_t k = 0; k < n; k++) {
    if (!isdigit((unsigned char)names[k][3]))
      continue;
    char p[PATH_MAX_LEN], col[160];
    snprintf(p, sizeof p, "%s/%s/cpufreq/scaling_cur_freq", dir, names[k]);
    double v;
    if (!read_num(p, &v))
      continue;
    snprintf(col, sizeof col, "freq_mhz.%s", names[k]);
    add(rt, col, K_SCALE, p, 1e-3);
  }
  snprintf(dir, sizeof dir, "%s/class/devfreq", rt->root);
  free(names);
  n = entries(dir, "", &names);
  for (size_t k = 0; k < n; k++) {
    char p[PATH_MAX_LEN], col[300];
    snprintf(p, sizeof p, "%s/%s/cur_freq", dir, names[k]);
    double v;
    if (!read_num(p, &v))
      continue;
    snprintf(col, sizeof col, "freq_mhz.%s", names[k]);
    add(rt, col, K_SCALE, p, 1e-6);
  }
  free(names);
}

sits_rt *sits_rt_open(const sits_rt_opts *o, sits_err *err) {
  static const sits_rt_opts defaults = {0};
  if (!o)
    o = &defaults;
  sits_rt *rt = calloc(1, sizeof *rt);
  if (!rt) {
    sits__fail(err, SITS_ENOMEM, "out of memory");
    return NULL;
  }
  snprintf(rt->root, sizeof rt->root, "%s", o->sysfs_root ? o->sysfs_root : "/sys");
  if (!o->no_sysfs) {
    thermal_zones(rt);
    cooling_devices(rt);
    hwmon(rt);
    power_supply(rt);
    rapl(rt);
    clocks(rt);
  }
  char why[512] = "";
  if (o->nvml)
    rt->nvml = sits__nvml_open(o->nvml_library, why, sizeof why);
  if (o->nvml > 0 && !rt->nvml) {
    sits__fail(err, SITS_EINPUT, "%s", why);
    sits_rt_free(rt);
    return NULL;
  }
  if (rt->oom) {
    sits_rt_free(rt);
    sits__fail(err, SITS_ENOMEM, "out of memory listing the sources");
    return NULL;
  }
  if (rt->n == 0 && !rt->nvml) {
    if (o->no_sysfs)
      sits__fail(err, SITS_EINPUT, "no source to capture: %s", why[0] ? why : "sysfs is off");
    else
      sits__fail(err, SITS_EINPUT,
                 "%s: no thermal zone, hwmon, power supply, RAPL or clock source found%s%s",
                 rt->root, why[0] ? "; " : "", why);
    sits_rt_free(rt);
    return NULL;
  }
  return rt;
}

sits_rt *sits_rt_new(const char *sysfs_root, sits_err *err) {
  sits_rt_opts o = {.sysfs_root = sysfs_root};
  return sits_rt_open(&o, err);
}

void sits_rt_free(sits_rt *rt) {
  if (rt) {
    sits__nvml_close(rt->nvml);
    free(rt->src);
  }
  free(rt);
}

size_t sits_rt_gpu_count(const sits_rt *rt) {
  return sits__nvml_gpu_count(rt->nvml);
}

/* The sources' columns: sysfs, then NVML (marks and phases follow). */
static size_t n_sources(const sits_rt *rt) {
  return rt->n + sits__nvml_column_count(rt->nvml);
}

size_t sits_rt_column_count(const sits_rt *rt) {
  return n_sources(rt) + rt->n_marks;
}

const char *sits_rt_column_name(const sits_rt *rt, size_t k) {
  if (k < rt->n)
    return rt->src[k].name;
  if (k < n_sources(rt))
    return sits__nvml_column_name(rt->nvml, k - rt->n);
  return rt->marks[k - n_sources(rt)];
}

/* The column "<kind>.<label>", or -1. */
static int find_col(const sits_rt *rt, const char *kind, const char *label) {
  size_t lk = strlen(kind);
  for (size_t k = 0; k < rt->n_marks; k++)
    if (strncmp(rt->marks[k], kind, lk) == 0 && rt->marks[k][lk] == '.' &&
        strcmp(rt->marks[k] + lk + 1, label) == 0)
      return (int)k;
  return -1;
}

static int add_col(sits_rt *rt, const char *kind, const char *label, sits_err *err) {
  if (find_col(rt, kind, label) >= 0)
    return SITS_OK;
  if (rt->sampled)
    return sits__fail(err, SITS_EINPUT, "%s '%s': declare %ss before the first sample", kind, label,
                      kind);
  if (rt->n_marks == SITS_RT_MAX_MARKS || !*label || strlen(label) > 50 || strchr(label, ','))
    return sits__fail(err, SITS_EINPUT,
                      "%s '%s': at most %d marks and phases of 1-50 characters, no comma", kind,
                      label, SITS_RT_MAX_MARKS);
  snprintf(rt->marks[rt->n_marks++], sizeof rt->marks[0], "%s.%s", kind, label);
  return SITS_OK;
}

/* The column of <kind>.<label>, declared now when nothing was sampled yet; -1 with err. */
static int col_of(sits_rt *rt, const char *kind, const char *label, sits_err *err) {
  int k = find_col(rt, kind, label);
  if (k >= 0)
    return k;
  return add_col(rt, kind, label, err) ? -1 : (int)rt->n_marks - 1;
}

int sits_rt_add_mark(sits_rt *rt, const char *label, sits_err *err) {
  return add_col(rt, "mark", label, err);
}

int sits_rt_mark(sits_rt *rt, const char *label, sits_err *err) {
  int k = col_of(rt, "mark", label, err);
  if (k < 0)
    return err ? err->code : SITS_EINPUT;
  rt->pending[k] = 1;
  return SITS_OK;
}

int sits_rt_add_phase(sits_rt *rt, const char *label, sits_err *err) {
  return add_col(rt, "phase", label, err);
}

int sits_rt_phase_begin(sits_rt *rt, const char *label, sits_err *err) {
  int k = col_of(rt, "phase", label, err);
  if (k < 0)
    return err ? err->code : SITS_EINPUT;
  if (rt->open[k])
    return sits__fail(err, SITS_EINPUT, "phase '%s' begins while it is open", label);
  rt->open[k] = true;
  rt->pending[k] = 1;
  rt->stack[rt->depth++] = (size_t)k;
  return SITS_OK;
}

int sits_rt_phase_end(sits_rt *rt, const char *label, sits_err *err) {
  int k = find_col(rt, "phase", label);
  if (k < 0 || !rt->open[k])
    return sits__fail(err, SITS_EINPUT, "phase '%s' ends but is not open", label);
  size_t inner = rt->stack[rt->depth - 1];
  if (inner != (size_t)k)
    return sits__fail(err, SITS_EINPUT, "phase '%s' ends while '%s', begun inside it, is open",
                      label, rt->marks[inner] + 6);
  rt->open[k] = false;
  rt->depth--;
  return SITS_OK;
}

static double read_source(source *s, double t) {
  double v, i;
  char status[64];
  switch (s->k) {
  case K_TEMP_MC: return read_num(s->path, &v) && v > -256000 + 0.5 ? v * s->scale : NAN;
  case K_SCALE: return read_num(s->path, &v) ? v * s->scale : NAN;
  case K_INA_POWER: /* mV x mA = µW */
    return read_num(s->path, &v) && read_num(s->path2, &i) ? v * i * s->scale : NAN;
  case K_BATT_SIGNED:
    if (!read_num(s->path, &v))
      return NAN;
    v = fabs(v) * s->scale;
    if (read_line(s->path2, status, sizeof status) && strcmp(status, "Charging") == 0)
      return -v;
    if (read_line(s->path2, status, sizeof status) && strcmp(status, "Discharging") == 0)
      return v;
    return v == 0 ? 0.0 : NAN; /* Full / Not charging / Unknown: no direction */
  case K_RAPL: {
    if (!read_num(s->path, &v))
      return NAN;
    double p = NAN;
    if (s->have_last && t > s->last_t) {
      double de = v - s->last_e;
      if (de < 0 && s->range > 0)
        de += s->range; /* the counter wrapped */
      p = de >= 0 ? de * s->scale / (t - s->last_t) : NAN;
    }
    s->last_e = v, s->last_t = t, s->have_last = true;
    return p;
  }
  }
  return NAN;
}

int sits_rt_sample_at(sits_rt *rt, double t_s, double *values, sits_err *err) {
  (void)err;
  for (size_t k = 0; k < rt->n; k++)
    values[k] = read_source(&rt->src[k], t_s);
  if (rt->nvml)
    sits__nvml_read(rt->nvml, t_s, values + rt->n);
  size_t m0 = n_sources(rt);
  for (size_t k = 0; k < rt->n_marks; k++) {
    values[m0 + k] = rt->pending[k];
    rt->pending[k] = rt->open[k]; /* a phase: 1 again while it stays open */
  }
  rt->sampled = true;
  return SITS_OK;
}

int sits_rt_sample(sits_rt *rt, double *t_s, double *values, sits_err *err) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
    return sits__fail(err, SITS_EIO, "clock_gettime: %s", strerror(errno));
  double now = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
  if (!rt->sampled)
    rt->t0 = now;
  *t_s = now - rt->t0;
  return sits_rt_sample_at(rt, *t_s, values, err);
}

/* A header field as RFC 4180 has it: quoted, with "" for a quote, when it holds a comma, a
 * quote or a line break (a thermal zone's type is whatever the driver says). */
static void csv_name(FILE *f, const char *s) {
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
  }
  fputc('"', f);
}

int sits_rt_write_header(const sits_rt *rt, FILE *f) {
  fputs("time_s", f);
  for (size_t k = 0; k < sits_rt_column_count(rt); k++) {
    fputc(',', f);
    csv_name(f, sits_rt_column_name(rt, k));
  }
  fputc('\n', f);
  return ferror(f) ? SITS_EIO : SITS_OK;
}

int sits_rt_write_row(const sits_rt *rt, FILE *f, double t_s, const double *values) {
  fprintf(f, "%.6f", t_s);
  for (size_t k = 0; k < sits_rt_column_count(rt); k++)
    if (isnan(values[k]))
      fputc(',', f);
    else
      fprintf(f, ",%.9g", values[k]);
  fputc('\n', f);
  return ferror(f) ? SITS_EIO : SITS_OK;
}

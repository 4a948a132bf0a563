/*
 * rt_nvml.c - NVIDIA GPUs as a source of the runtime hook library, through NVML loaded at run
 * time (dlopen of libnvidia-ml.so.1): no build dependency on the driver or CUDA. The few NVML
 * types used here are declared locally as nvml.h lays them out (its ABI has been stable since
 * the _v2 entry points); a quantity a GPU does not report (NVML_ERROR_NOT_SUPPORTED at
 * discovery, or an entry point the library lacks) gets no column.
 *
 * Columns, per GPU g ("gpu" with one GPU, "gpu0", "gpu1", ... with several; the names the
 * nvidia-smi reader gives the same quantities):
 *   power_w.g           nvmlDeviceGetPowerUsage (mW): nvidia-smi's power.draw (averaged by
 *                       the driver over about 1 s on Ampere and newer)
 *   power_w.g_average   field NVML_FI_DEV_POWER_AVERAGE (185), mW
 *   power_w.g_instant   field NVML_FI_DEV_POWER_INSTANT (186), mW
 *   power_w.g_energy    the mean power over the last sample interval from the energy counter
 *                       (nvmlDeviceGetTotalEnergyConsumption, mJ); empty on the first sample
 *   power_w.g_limit     nvmlDeviceGetEnforcedPowerLimit (mW)
 *   temp_c.g            nvmlDeviceGetTemperature(NVML_TEMPERATURE_GPU)
 *   temp_c.g_mem        field NVML_FI_DEV_MEMORY_TEMP (82): HBM/GDDR
 *   freq_mhz.g_gr, g_sm, g_mem, g_video   nvmlDeviceGetClockInfo (graphics, SM, memory, video)
 *   util_frac.g, g_mem  nvmlDeviceGetUtilizationRates (%, as a fraction)
 *   util_frac.g_fan     nvmlDeviceGetFanSpeed (%, as a fraction)
 *   pstate.g            nvmlDeviceGetPerformanceState (0 = P0 ... 15)
 *   throttle.g_<reason> one 0/1 column per clock event (throttle) reason bit of
 *                       nvmlDeviceGetCurrentClocksEventReasons (...ThrottleReasons on older
 *                       drivers): idle, app_clocks, sw_power_cap, hw_slowdown, sync_boost,
 *                       sw_thermal, hw_thermal, hw_power_brake, display_clocks
 */
#define _POSIX_C_SOURCE 200809L
#include "rt_nvml_impl.h"

#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GPUS 64
#define MAX_COLS (MAX_GPUS * 32) /* a GPU has at most 24 columns (below) */
#define MAX_FIELDS 3

/* The NVML types this file uses, as nvml.h lays them out. */
typedef int nvml_ret; /* NVML_SUCCESS 0 */
typedef void *nvml_dev;
typedef struct {
  unsigned int gpu, memory;
} nvml_util;
typedef union {
  double dVal;
  int siVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  long long sllVal;
  unsigned short usVal;
} nvml_value;
typedef struct {
  unsigned int fieldId, scopeId;
  long long timestamp, latencyUsec;
  int valueType; /* 0 double, 1 uint, 2 ulong, 3 ulonglong, 4 slonglong, 5 sint, 6 ushort */
  nvml_ret nvmlReturn;
  nvml_value value;
} nvml_field;

enum { FI_MEMORY_TEMP = 82, FI_POWER_AVERAGE = 185, FI_POWER_INSTANT = 186 };

typedef struct api {
  nvml_ret (*init)(void);
  nvml_ret (*shutdown)(void);
  nvml_ret (*count)(unsigned int *);
  nvml_ret (*handle)(unsigned int, nvml_dev *);
  nvml_ret (*power)(nvml_dev, unsigned int *);
  nvml_ret (*limit)(nvml_dev, unsigned int *);
  nvml_ret (*energy)(nvml_dev, unsigned long long *);
  nvml_ret (*temp)(nvml_dev, int, unsigned int *);
  nvml_ret (*clock)(nvml_dev, int, unsigned int *);
  nvml_ret (*util)(nvml_dev, nvml_util *);
  nvml_ret (*fan)(nvml_dev, unsigned int *);
  nvml_ret (*pstate)(nvml_dev, int *);
  nvml_ret (*reasons)(nvml_dev, unsigned long long *);
  nvml_ret (*fields)(nvml_dev, int, nvml_field *);
} api;

typedef enum what {
  W_POWER,
  W_FIELD, /* arg: the index into the device's field batch; scale */
  W_ENERGY,
  W_LIMIT,
  W_TEMP,
  W_CLOCK, /* arg: the clock type */
  W_UTIL_GPU,
  W_UTIL_MEM,
  W_FAN,
  W_PSTATE,
  W_REASON /* arg: the bit */
} what;

typedef struct column {
  char name[64];
  what w;
  int gpu, arg;
  double scale;
} column;

typedef struct device {
  nvml_dev h;
  nvml_field fields[MAX_FIELDS];
  int n_fields;
  unsigned long long reasons; /* this sample's */
  bool reasons_ok;
  double last_e, last_t; /* the energy counter [mJ] at the last sample */
  bool have_e;
} device;

struct sits__nvml {
  void *lib;
  api f;
  device dev[MAX_GPUS];
  unsigned int n_dev;
  column col[MAX_COLS];
  size_t n_col;
};

static const struct {
  const char *name;
  unsigned long long bit;
} reasons[] = {{"idle", 0x1},        {"app_clocks", 0x2},      {"sw_power_cap", 0x4},
               {"hw_slowdown", 0x8}, {"sync_boost", 0x10},     {"sw_thermal", 0x20},
               {"hw_thermal", 0x40}, {"hw_power_brake", 0x80}, {"display_clocks", 0x100}};

/* dlsym into a function pointer (POSIX guarantees the conversion; ISO C has no word for it). */
static void resolve(void *lib, const char *name, void *fn_ptr) {
  void *p = dlsym(lib, name);
  memcpy(fn_ptr, &p, sizeof p);
}

static void bind_all(sits__nvml *n) {
  api *f = &n->f;
  resolve(n->lib, "nvmlInit_v2", &f->init);
  resolve(n->lib, "nvmlShutdown", &f->shutdown);
  resolve(n->lib, "nvmlDeviceGetCount_v2", &f->count);
  resolve(n->lib, "nvmlDeviceGetHandleByIndex_v2", &f->handle);
  resolve(n->lib, "nvmlDeviceGetPowerUsage", &f->power);
  resolve(n->lib, "nvmlDeviceGetEnforcedPowerLimit", &f->limit);
  resolve(n->lib, "nvmlDeviceGetTotalEnergyConsumption", &f->energy);
  resolve(n->lib, "nvmlDeviceGetTemperature", &f->temp);
  resolve(n->lib, "nvmlDeviceGetClockInfo", &f->clock);
  resolve(n->lib, "nvmlDeviceGetUtilizationRates", &f->util);
  resolve(n->lib, "nvmlDeviceGetFanSpeed", &f->fan);
  resolve(n->lib, "nvmlDeviceGetPerformanceState", &f->pstate);
  resolve(n->lib, "nvmlDeviceGetCurrentClocksEventReasons", &f->reasons);
  if (!f->reasons)
    resolve(n->lib, "nvmlDeviceGetCurrentClocksThrottleReasons", &f->reasons);
  resolve(n->lib, "nvmlDeviceGetFieldValues", &f->fields);
}

static void add_col(sits__nvml *n, int gpu, const char *kind, const char *suffix, what w, int arg,
                    double scale) {
  if (n->n_col == MAX_COLS)
    return;
  column *c = &n->col[n->n_col++];
  char g[16] = "gpu";
  if (n->n_dev > 1)
    snprintf(g, sizeof g, "gpu%d", gpu);
  snprintf(c->name, sizeof c->name, "%s.%s%s", kind, g, suffix);
  c->w = w, c->gpu = gpu, c->arg = arg, c->scale = scale;
}

static double field_value(const nvml_field *v) {
  if (v->nvmlReturn != 0)
    return NAN;
  switch (v->valueType) {
  case 0: return v->value.dVal;
  case 1: return (double)v->value.uiVal;
  case 2: return (double)v->value.ulVal;
  case 3: return (double)v->value.ullVal;
  case 4: return (double)v->value.sllVal;
  case 5: return (double)v->value.siVal;
  case 6: return (double)v->value.usVal;
  }
  return NAN;
}

/* The batch of field values a device reports: memory temperature, averaged and instant power,
 * each kept only when the first read succeeds. */
static void discover_fields(sits__nvml *n, int g) {
  device *d = &n->dev[g];
  if (!n->f.fields)
    return;
  const struct {
    unsigned int id;
    const char *kind, *suffix;
    double scale;
  } want[MAX_FIELDS] = {{FI_POWER_AVERAGE, "power_w", "_average", 1e-3},
                        {FI_POWER_INSTANT, "power_w", "_instant", 1e-3},
                        {FI_MEMORY_TEMP, "temp_c", "_mem", 1.0}};
  for (int k = 0; k < MAX_FIELDS; k++) {
    nvml_field probe;
    memset(&probe, 0, sizeof probe);
    probe.fieldId = want[k].id;
    if (n->f.fields(d->h, 1, &probe) != 0 || !isfinite(field_value(&probe)))
      continue;
    d->fields[d->n_fields].fieldId = want[k].id;
    add_col(n, g, want[k].kind, want[k].suffix, W_FIELD, d->n_fields, want[k].scale);
    d->n_fields++;
  }
}

static void discover(sits__nvml *n, int g) {
  const api *f = &n->f;
  nvml_dev h = n->dev[g].h;
  unsigned int u;
  unsigned long long ull;
  int i;
  nvml_util ut;
  if (f->power && f->power(h, &u) == 0)
    add_col(n, g, "power_w", "", W_POWER, 0, 1e-3);
  discover_fields(n, g);
  if (f->energy && f->energy(h, &ull) == 0)
    add_col(n, g, "power_w", "_energy", W_ENERGY, 0, 1.0);
  if (f->limit && f->limit(h, &u) == 0)
    add_col(n, g, "power_w", "_limit", W_LIMIT, 0, 1e-3);
  if (f->temp && f->temp(h, 0, &u) == 0)
    add_col(n, g, "temp_c", "", W_TEMP, 0, 1.0);
  static const char *clock_names[] = {"_gr", "_sm", "_mem", "_video"};
  for (int c = 0; c < 4; c++)
    if (f->clock && f->clock(h, c, &u) == 0)
      add_col(n, g, "freq_mhz", clock_names[c], W_CLOCK, c, 1.0);
  if (f->util && f->util(h, &ut) == 0) {
    add_col(n, g, "util_frac", "", W_UTIL_GPU, 0, 0.01);
    add_col(n, g, "util_frac", "_mem", W_UTIL_MEM, 0, 0.01);
  }
  if (f->fan && f->fan(h, &u) == 0)
    add_col(n, g, "util_frac", "_fan", W_FAN, 0, 0.01);
  if (f->pstate && f->pstate(h, &i) == 0)
    add_col(n, g, "pstate", "", W_PSTATE, 0, 1.0);
  if (f->reasons && f->reasons(h, &ull) == 0)
    for (size_t r = 0; r < sizeof reasons / sizeof reasons[0]; r++) {
      char suffix[32];
      snprintf(suffix, sizeof suffix, "_%s", reasons[r].name);
      add_col(n, g, "throttle", suffix, W_REASON, (int)r, 1.0);
    }
}

sits__nvml *sits__nvml_open(const char *library, char *why, size_t why_size) {
  const char *name = library && *library ? library : "libnvidia-ml.so.1";
  sits__nvml *n = calloc(1, sizeof *n);
  if (!n) {
    snprintf(why, why_size, "out of memory");
    return NULL;
  }
  n->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!n->lib) {
    const char *e = dlerror();
    snprintf(why, why_size, "NVML: cannot load %s (%s)", name, e ? e : "dlopen failed");
    free(n);
    return NULL;
  }
  bind_all(n);
  const api *f = &n->f;
  int rc;
  if (!f->init || !f->shutdown || !f->count || !f->handle)
    snprintf(why, why_size,
             "NVML: %s lacks nvmlInit_v2, nvmlDeviceGetCount_v2 or "
             "nvmlDeviceGetHandleByIndex_v2",
             name);
  else if ((rc = f->init()) != 0)
    snprintf(why, why_size, "NVML: nvmlInit_v2 failed (NVML error %d): is the driver loaded?", rc);
  else if ((rc = f->count(&n->n_dev)) != 0 || n->n_dev == 0) {
    snprintf(why, why_size, "NVML: no GPU found (nvmlDeviceGetCount_v2: error %d, %u GPUs)", rc,
             n->n_dev);
    f->shutdown();
  } else if (n->n_dev > MAX_GPUS) {
    snprintf(why, why_size, "NVML: %u GPUs, more than the %d one capture reads", n->n_dev,
             MAX_GPUS);
    f->shutdown();
  } else {
    for (unsigned int g = 0; g < n->n_dev; g++)
      if (f->handle(g, &n->dev[g].h) == 0)
        discover(n, (int)g);
    if (n->n_col > 0)
      return n;
    snprintf(why, why_size, "NVML: none of %u GPUs reports power, temperature or clocks", n->n_dev);
    f->shutdown();
  }
  dlclose(n->lib);
  free(n);
  return NULL;
}

void sits__nvml_close(sits__nvml *n) {
  if (!n)
    return;
  n->f.shutdown();
  dlclose(n->lib);
  free(n);
}

size_t sits__nvml_gpu_count(const sits__nvml *n) {
  return n ? n->n_dev : 0;
}

size_t sits__nvml_column_count(const sits__nvml *n) {
  return n ? n->n_col : 0;
}

const char *sits__nvml_column_name(const sits__nvml *n, size_t k) {
  return n->col[k].name;
}

/* What every column of one GPU shares in a sample: one batch of field values, the reasons. */
static void read_device(sits__nvml *n, int g) {
  device *d = &n->dev[g];
  if (d->n_fields > 0) {
    for (int k = 0; k < d->n_fields; k++) {
      unsigned int id = d->fields[k].fieldId;
      memset(&d->fields[k], 0, sizeof d->fields[k]);
      d->fields[k].fieldId = id;
    }
    if (n->f.fields(d->h, d->n_fields, d->fields) != 0)
      for (int k = 0; k < d->n_fields; k++)
        d->fields[k].nvmlReturn = -1;
  }
  d->reasons_ok = n->f.reasons && n->f.reasons(d->h, &d->reasons) == 0;
}

static double read_energy(sits__nvml *n, device *d, double t) {
  unsigned long long mj;
  if (n->f.energy(d->h, &mj) != 0)
    return NAN;
  double e = (double)mj, p = NAN;
  if (d->have_e && t > d->last_t && e >= d->last_e)
    p = (e - d->last_e) * 1e-3 / (t - d->last_t);
  d->last_e = e, d->last_t = t, d->have_e = true;
  return p;
}

static double read_column(sits__nvml *n, const column *c, double t) {
  const api *f = &n->f;
  device *d = &n->dev[c->gpu];
  unsigned int u;
  int i;
  nvml_util ut;
  double v = NAN;
  switch (c->w) {
  case W_POWER: v = f->power(d->h, &u) == 0 ? u : NAN; break;
  case W_FIELD: v = field_value(&d->fields[c->arg]); break;
  case W_ENERGY: v = read_energy(n, d, t); break;
  case W_LIMIT: v = f->limit(d->h, &u) == 0 ? u : NAN; break;
  case W_TEMP: v = f->temp(d->h, 0, &u) == 0 ? u : NAN; break;
  case W_CLOCK: v = f->clock(d->h, c->arg, &u) == 0 ? u : NAN; break;
  case W_UTIL_GPU: v = f->util(d->h, &ut) == 0 ? ut.gpu : NAN; break;
  case W_UTIL_MEM: v = f->util(d->h, &ut) == 0 ? ut.memory : NAN; break;
  case W_FAN: v = f->fan(d->h, &u) == 0 ? u : NAN; break;
  case W_PSTATE: v = f->pstate(d->h, &i) == 0 && i >= 0 && i <= 15 ? i : NAN; break;
  case W_REASON: v = d->reasons_ok ? (d->reasons & reasons[c->arg].bit) != 0 : NAN; break;
  }
  return v * c->scale;
}

void sits__nvml_read(sits__nvml *n, double t_s, double *values) {
  for (unsigned int g = 0; g < n->n_dev; g++)
    if (n->dev[g].h)
      read_device(n, (int)g);
  for (size_t k = 0; k < n->n_col; k++)
    values[k] = read_column(n, &n->col[k], t_s);
}

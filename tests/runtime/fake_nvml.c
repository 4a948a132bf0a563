/*
 * fake_nvml.c - a stand-in for libnvidia-ml.so.1 that the capture tests load with dlopen
 * (sits_rt_opts.nvml_library): the NVML entry points libsits_rt uses, returning a scripted
 * sequence. The k-th call of each quantity (k = 0 is libsits_rt's discovery probe, k = s the
 * s-th sample) returns:
 *   temperature.gpu 40 + k C; memory (field 82) 45 + 2k C
 *   power usage 100000 + 1000k mW; average (field 185) 110000 + 500k mW; instant (field 186)
 *     120000 + 2000k mW, except k = 3: NVML_ERROR_UNKNOWN
 *   energy counter 1000000 + 60000k mJ; enforced limit 700000 mW
 *   clocks: graphics and SM 1980 - 10k MHz, memory 3201 MHz, video NOT_SUPPORTED
 *   utilisation 50 % GPU, 20 % memory; fan NOT_SUPPORTED; P-state 0 for k < 2, else 2
 *   clock event reasons: 0x4 (software power cap) for odd k, 0x1 (idle) for even k
 * Environment: FAKE_NVML_GPUS (default 1) GPUs, each with the same sequence kept apart;
 * FAKE_NVML_INIT_RC, the code nvmlInit_v2 returns (default 0).
 */
#include <stdlib.h>
#include <string.h>

#define NOT_SUPPORTED 3
#define UNKNOWN 999
#define GPUS 4

typedef struct {
  unsigned int gpu, memory;
} util_t;
typedef struct {
  unsigned int fieldId, scopeId;
  long long timestamp, latencyUsec;
  int valueType, nvmlReturn;
  union {
    double dVal;
    unsigned int uiVal;
    unsigned long long ullVal;
  } value;
} field_t;

enum { C_TEMP, C_POWER, C_AVG, C_INST, C_MEMT, C_ENERGY, C_CLOCK, C_PSTATE, C_REASONS, C_N };

/* Call counters per GPU and quantity: no other state. The test process loads this library
 * once and reads it from one thread. */
static unsigned calls[GPUS][C_N];
static int gpus = 1;

static int gpu_of(void *dev) {
  return (int)((char *)dev - (char *)0x1000);
}

static unsigned next(void *dev, int q) {
  return calls[gpu_of(dev)][q]++;
}

int nvmlInit_v2(void) {
  const char *g = getenv("FAKE_NVML_GPUS"), *rc = getenv("FAKE_NVML_INIT_RC");
  gpus = g ? atoi(g) : 1;
  if (gpus < 0 || gpus > GPUS)
    gpus = 1;
  memset(calls, 0, sizeof calls);
  return rc ? atoi(rc) : 0;
}

int nvmlShutdown(void) {
  return 0;
}

int nvmlDeviceGetCount_v2(unsigned int *n) {
  *n = (unsigned)gpus;
  return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **dev) {
  if ((int)i >= gpus)
    return 2;
  *dev = (char *)0x1000 + i;
  return 0;
}

int nvmlDeviceGetTemperature(void *dev, int sensor, unsigned int *t) {
  if (sensor != 0)
    return NOT_SUPPORTED;
  *t = 40 + next(dev, C_TEMP);
  return 0;
}

int nvmlDeviceGetPowerUsage(void *dev, unsigned int *mw) {
  *mw = 100000 + 1000 * next(dev, C_POWER);
  return 0;
}

int nvmlDeviceGetEnforcedPowerLimit(void *dev, unsigned int *mw) {
  (void)dev;
  *mw = 700000;
  return 0;
}

int nvmlDeviceGetTotalEnergyConsumption(void *dev, unsigned long long *mj) {
  *mj = 1000000ull + 60000ull * next(dev, C_ENERGY);
  return 0;
}

int nvmlDeviceGetClockInfo(void *dev, int type, unsigned int *mhz) {
  if (type == 3)
    return NOT_SUPPORTED;
  if (type == 2) {
    *mhz = 3201;
    return 0;
  }
  /* graphics and SM share one sequence: count it on the SM clock's call */
  unsigned k = type == 1 ? next(dev, C_CLOCK) : calls[gpu_of(dev)][C_CLOCK];
  *mhz = 1980 - 10 * k;
  return 0;
}

int nvmlDeviceGetUtilizationRates(void *dev, util_t *u) {
  (void)dev;
  u->gpu = 50, u->memory = 20;
  return 0;
}

int nvmlDeviceGetFanSpeed(void *dev, unsigned int *pct) {
  (void)dev, (void)pct;
  return NOT_SUPPORTED;
}

int nvmlDeviceGetPerformanceState(void *dev, int *p) {
  *p = next(dev, C_PSTATE) < 2 ? 0 : 2;
  return 0;
}

int nvmlDeviceGetCurrentClocksEventReasons(void *dev, unsigned long long *r) {
  *r = next(dev, C_REASONS) % 2 ? 0x4 : 0x1;
  return 0;
}

int nvmlDeviceGetFieldValues(void *dev, int n, field_t *v) {
  for (int k = 0; k < n; k++) {
    v[k].nvmlReturn = 0;
    v[k].valueType = 1;
    unsigned c;
    switch (v[k].fieldId) {
    case 82: v[k].value.uiVal = 45 + 2 * next(dev, C_MEMT); break;
    case 185: v[k].value.uiVal = 110000 + 500 * next(dev, C_AVG); break;
    case 186:
      c = next(dev, C_INST);
      v[k].value.uiVal = 120000 + 2000 * c;
      if (c == 3)
        v[k].nvmlReturn = UNKNOWN;
      break;
    default: v[k].nvmlReturn = NOT_SUPPORTED;
    }
  }
  return 0;
}

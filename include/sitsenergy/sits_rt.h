/*
 * sits_rt.h - the runtime hook library: samples Linux sysfs on a board and writes the
 * normalised trace CSV (sits_trace.h), with marks (one-sample pulses) and phases (begin/end,
 * nested; `replay` reports its metrics per phase) from an inference runtime. It depends
 * on libc only (libsits_rt: no HDF5, CVODE or GSL), so it builds and runs on the board.
 *
 * Sources found under the sysfs root (a fake tree in tests, "/" on a board):
 *   class/thermal/thermal_zoneN (temp in m°C, type)     -> temp_c.<type>; -256000 is missing
 *   class/thermal/cooling_deviceN cur_state (type)      -> cooling_state.<type> (_N when two
 *     devices share a type)
 *   class/hwmon/hwmonN pwmK (0-255), fanK_input (RPM)   -> util_frac.<name>_pwmK (the duty a
 *     platform fan's replay reads), fan_rpm.<name>_fanK
 *   class/hwmon/hwmonN powerK_input (µW)                -> power_w.<name>_<label or powerK>
 *                      inK_input (mV), currK_input (mA) -> voltage_v., current_a.<label>
 *     INA3221 (name ina3221): per labelled channel also P = V I -> power_w.<label>; channels
 *     labelled NC and the sum channel are skipped
 *   class/power_supply/NAME of type Battery: voltage_now (µV), current_now (µA), power_now (µW)
 *     -> voltage_v., current_a., power_w.<name>; current and power are positive when `status` says
 *     Discharging and negative when Charging, whatever the driver's sign
 *   class/powercap/intel-rapl:N energy_uj (name)         -> power_w.rapl_<name>, from the energy
 *     difference between samples (wrap-around at max_energy_range_uj; missing on the first)
 *   devices/system/cpu/cpuN/cpufreq/scaling_cur_freq (kHz) -> freq_mhz.cpuN
 *   class/devfreq/NAME cur_freq (Hz)                         -> freq_mhz.<device>
 * With sits_rt_opts.nvml, NVIDIA GPUs through NVML, loaded at run time (dlopen of
 * libnvidia-ml.so.1; no build dependency): power (power_w.gpu = nvidia-smi's power.draw,
 * gpu_average, gpu_instant, gpu_energy from the energy counter, gpu_limit), temp_c.gpu and
 * gpu_mem, freq_mhz.gpu_gr/_sm/_mem/_video, util_frac.gpu/_mem/_fan, pstate.gpu and one 0/1
 * throttle.gpu_<reason> column per clock event reason (sw_power_cap, hw_slowdown, sw_thermal,
 * hw_thermal, hw_power_brake, ...); gpu0, gpu1, ... with several GPUs. A quantity a GPU does
 * not report has no column.
 * Time comes from CLOCK_MONOTONIC, as seconds from the first sample.
 */
#ifndef SITS_RT_H
#define SITS_RT_H

#include <stddef.h>
#include <stdio.h>

#include "sits_status.h"

SITS_BEGIN_DECLS

typedef struct sits_rt sits_rt;

#define SITS_RT_MAX_MARKS 32

/** Which sources sits_rt_open() looks for. All zero: sysfs under "/sys", no NVML. */
typedef struct sits_rt_opts {
  const char *sysfs_root;   /**< NULL: "/sys" */
  int no_sysfs;             /**< nonzero: no sysfs source (NVML alone) */
  int nvml;                 /**< 0: no NVML; 1: NVML required (an error when it cannot be
                                 loaded or finds no GPU); -1: NVML when it loads */
  const char *nvml_library; /**< NULL: "libnvidia-ml.so.1" (a path: another NVML, a stand-in) */
} sits_rt_opts;

/** Discovers the sources @p o asks for (NULL: as all zero). Finding none is an error that
 *  says why (no sysfs source under the root; NVML not loadable, no GPU). */
SITS_API sits_rt *sits_rt_open(const sits_rt_opts *o, sits_err *err);
/** sits_rt_open() of the sysfs sources under @p sysfs_root (NULL: "/sys") alone. */
SITS_API sits_rt *sits_rt_new(const char *sysfs_root, sits_err *err);
SITS_API void sits_rt_free(sits_rt *rt);

/** The GPUs NVML found (0 without NVML). */
SITS_API size_t sits_rt_gpu_count(const sits_rt *rt);

/** Columns after time_s: count and names ("temp_c.cpu-thermal", ...; marks last). */
SITS_API size_t sits_rt_column_count(const sits_rt *rt);
SITS_API const char *sits_rt_column_name(const sits_rt *rt, size_t k);

/** Declares a phase mark before the first sample: a column mark.<label> (1 in the rows
 *  sampled after sits_rt_mark(label), 0 otherwise). */
SITS_API int sits_rt_add_mark(sits_rt *rt, const char *label, sits_err *err);
/** Marks the next sample with @p label (declared, or declared now if nothing was sampled). */
SITS_API int sits_rt_mark(sits_rt *rt, const char *label, sits_err *err);

/** Declares a phase before the first sample: a column phase.<label>, 1 in every row whose
 *  interval (from the previous sample to this one) the phase was open in, else 0. */
SITS_API int sits_rt_add_phase(sits_rt *rt, const char *label, sits_err *err);
/** Opens phase @p label (declared now if nothing was sampled). Phases nest: one may begin
 *  inside another; a phase already open is an error. */
SITS_API int sits_rt_phase_begin(sits_rt *rt, const char *label, sits_err *err);
/** Closes phase @p label, which must be the innermost open one (else an error naming it). */
SITS_API int sits_rt_phase_end(sits_rt *rt, const char *label, sits_err *err);

/** Reads every source now (CLOCK_MONOTONIC) into @p values (column_count values, NAN when a
 *  source could not be read) and the time since the first sample into *t_s. */
SITS_API int sits_rt_sample(sits_rt *rt, double *t_s, double *values, sits_err *err);
/** The same at a given time (tests, replayed clocks). */
SITS_API int sits_rt_sample_at(sits_rt *rt, double t_s, double *values, sits_err *err);

/** The CSV header (time_s and the columns) and one row. */
SITS_API int sits_rt_write_header(const sits_rt *rt, FILE *f);
SITS_API int sits_rt_write_row(const sits_rt *rt, FILE *f, double t_s, const double *values);

SITS_END_DECLS

#endif

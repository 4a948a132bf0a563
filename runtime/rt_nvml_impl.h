/* rt_nvml_impl.h - the NVML source of the runtime hook library (internal to libsits_rt). */
#ifndef SITS_RT_NVML_IMPL_H
#define SITS_RT_NVML_IMPL_H

#include <stddef.h>

typedef struct sits__nvml sits__nvml;

/** Loads @p library (NULL: "libnvidia-ml.so.1") with dlopen, initialises NVML and discovers
 *  every GPU's readable quantities. NULL with the reason in @p why when the library cannot be
 *  loaded, lacks NVML's entry points, fails to initialise or has no GPU. */
sits__nvml *sits__nvml_open(const char *library, char *why, size_t why_size);
/** Shuts NVML down and unloads the library. */
void sits__nvml_close(sits__nvml *n);

size_t sits__nvml_gpu_count(const sits__nvml *n);
size_t sits__nvml_column_count(const sits__nvml *n);
const char *sits__nvml_column_name(const sits__nvml *n, size_t k);
/** Reads every column at time @p t_s (seconds, for the energy counter's average power) into
 *  @p values; NAN where a reading fails. */
void sits__nvml_read(sits__nvml *n, double t_s, double *values);

#endif

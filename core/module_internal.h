/*
 * module_internal.h - optional parts of the library built as modules that are loaded beside
 * libsits on first use (HDF5 writers, CHOLMOD, the FFTW-based layered-grid solver): their
 * dependencies (HDF5 pulls ~35 shared libraries, CHOLMOD pulls OpenBLAS, LAPACK, METIS and
 * gfortran, FFTW ~1 ms) would otherwise add 10-20 ms of dynamic loading to every process,
 * which sweeps and scripts start by the thousand. Modules stay mapped until exit (RTLD_NODELETE),
 * as if linked.
 */
#ifndef SITS_MODULE_INTERNAL_H
#define SITS_MODULE_INTERNAL_H

#include <stddef.h>

#include "status_internal.h"

/** Opens the module @p file ("libsits_h5.so") from the directory of the library that holds
 *  this code; NULL with the loader's message in @p err. Close with sits__module_close(). */
void *sits__module_open(const char *file, sits_err *err);
/** The folder libsits was loaded from into @p out; -1 when the loader cannot say. */
int sits__library_dir(char *out, size_t size);
/**
 * Opens module @p file and returns its entry points: the one object @p symbol that the module
 * exports, an ops struct whose type a private header declares for both the module and its
 * loader (so no function is re-typed across dlsym). *@p handle gets the module; NULL with the
 * message when the module or its ops are missing.
 */
const void *sits__module_ops(const char *file, const char *symbol, void **handle, sits_err *err);
void sits__module_close(void *h);

#endif

/*
 * sits_module.h - optional parts of the library built as modules that are loaded beside
 * libsits on first use (HDF5 writers, CHOLMOD, the FFTW-based layered-grid solver): their
 * dependencies (HDF5 pulls ~35 shared libraries, CHOLMOD pulls OpenBLAS, LAPACK, METIS and
 * gfortran, FFTW ~1 ms) would otherwise add 10-20 ms of dynamic loading to every process,
 * which sweeps and scripts start by the thousand. Modules stay mapped until exit (RTLD_NODELETE),
 * as if linked.
 */
#ifndef SITS_MODULE_H
#define SITS_MODULE_H

#include <stddef.h>

#include "sits_status.h"

/** Opens the module @p file ("libsits_h5.so") from the directory of the library that holds
 *  this code; NULL with the loader's message in @p err. Close with sits__module_close(). */
void *sits__module_open(const char *file, sits_err *err);
/** The function @p name of module @p h, or NULL with a message. */
void (*sits__module_fn(void *h, const char *name, sits_err *err))(void);
/** Opens module @p file and resolves the @p n functions @p names into @p fns; the module, or
 *  NULL with the message when it or one of the functions is missing. */
void *sits__module_load(const char *file, const char *const *names, size_t n, void (**fns)(void),
                        sits_err *err);
void sits__module_close(void *h);

#endif

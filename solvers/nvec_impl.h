/* nvec_impl.h - compiled serial N_Vector operations (nvec_fast.c; internal). */
#ifndef SITS_NVEC_IMPL_H
#define SITS_NVEC_IMPL_H

#include <sundials/sundials_nvector.h>

/** Installs the compiled operations on serial vector @p v; vectors cloned from it inherit
 *  them. */
void sits__nvec_fast(N_Vector v);

#endif

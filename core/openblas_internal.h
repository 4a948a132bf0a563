/*
 * openblas_internal.h - Debian's OpenBLAS (libopenblas0, already installed for CHOLMOD),
 * loaded at run time by the numerics whose dense products or factorisations gain from it
 * (the exponential integrator's phi products, the layered grid's edge LU). Linked into
 * libsits its start-up would add ~5 ms to every process; loaded, it is paid only by the runs
 * that use it. It stays mapped once loaded (RTLD_NODELETE): its threads and buffers outlive
 * the object that loaded it, and a later one finds it there.
 *
 * The environment variable SITS_BLAS=gsl keeps GSL's reference CBLAS and LU everywhere
 * (a caller may name its own variable too, e.g. SITS_EXPINT_BLAS).
 */
#ifndef SITS_OPENBLAS_INTERNAL_H
#define SITS_OPENBLAS_INTERNAL_H

/** OpenBLAS's handle, or NULL when it is missing or SITS_BLAS (or @p env, when not NULL) is
 *  "gsl". Release with sits__openblas_close(). */
void *sits__openblas_open(const char *env);
/** The address of @p name in @p h, or NULL. */
void *sits__openblas_sym(void *h, const char *name);
void sits__openblas_close(void *h);

#endif

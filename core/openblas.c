/* openblas.c - OpenBLAS loaded at run time (openblas_internal.h). */
#include "openblas_internal.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#define OPENBLAS_SONAME "libopenblas.so.0"

static int wants_gsl(const char *env) {
  const char *v = env ? getenv(env) : NULL;
  const char *all = getenv("SITS_BLAS");
  return (v && strcmp(v, "gsl") == 0) || (all && strcmp(all, "gsl") == 0);
}

void *sits__openblas_open(const char *env) {
  if (wants_gsl(env))
    return NULL;
  return dlopen(OPENBLAS_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
}

void *sits__openblas_sym(void *h, const char *name) {
  return h ? dlsym(h, name) : NULL;
}

void sits__openblas_close(void *h) {
  if (h)
    dlclose(h);
}

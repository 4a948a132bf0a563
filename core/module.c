/* module.c - optional modules loaded beside libsits (see sits_module.h). */
#define _GNU_SOURCE
#include "module_internal.h"
#include "status_internal.h"

#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>

/* An object of this library, to ask the loader where the library is. */
static const char anchor = 0;

int sits__library_dir(char *out, size_t size) {
  Dl_info info;
  char dir[4096];
  if (!dladdr(&anchor, &info) || !info.dli_fname)
    return -1;
  snprintf(dir, sizeof dir, "%s", info.dli_fname);
  snprintf(out, size, "%s", dirname(dir));
  return 0;
}

void *sits__module_open(const char *file, sits_err *err) {
  char dir[4096], path[4200];
  if (sits__library_dir(dir, sizeof dir)) {
    sits__fail(err, SITS_EIO, "cannot locate libsits to find its module %s", file);
    return NULL;
  }
  /* installed: the private folder lib/sitsenergy/; in the build tree: beside the library */
  snprintf(path, sizeof path, "%s/sitsenergy/%s", dir, file);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!h) {
    snprintf(path, sizeof path, "%s/%s", dir, file);
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  }
  if (!h)
    sits__fail(err, SITS_EIO, "cannot load the module %s: %s", path, dlerror());
  return h;
}

const void *sits__module_ops(const char *file, const char *symbol, void **handle, sits_err *err) {
  *handle = sits__module_open(file, err);
  if (!*handle)
    return NULL;
  const void *ops = dlsym(*handle, symbol);
  if (!ops) {
    sits__fail(err, SITS_EIO, "the module %s lacks %s", file, symbol);
    sits__module_close(*handle);
    *handle = NULL;
  }
  return ops;
}

void sits__module_close(void *h) {
  if (h)
    dlclose(h);
}

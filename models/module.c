/* module.c - optional modules loaded beside libsits (see sits_module.h). */
#define _GNU_SOURCE
#include "sits_module.h"

#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>

/* An object of this library, to ask the loader where the library is. */
static const char anchor = 0;

void *sits__module_open(const char *file, sits_err *err) {
  Dl_info info;
  char dir[4096], path[4200];
  if (!dladdr(&anchor, &info) || !info.dli_fname) {
    sits__fail(err, SITS_EIO, "cannot locate libsits to find its module %s", file);
    return NULL;
  }
  snprintf(dir, sizeof dir, "%s", info.dli_fname);
  snprintf(path, sizeof path, "%s/%s", dirname(dir), file);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!h)
    sits__fail(err, SITS_EIO, "cannot load the module %s: %s", path, dlerror());
  return h;
}

void (*sits__module_fn(void *h, const char *name, sits_err *err))(void) {
  void (*fn)(void) = NULL;
  *(void **)&fn = dlsym(h, name);
  if (!fn)
    sits__fail(err, SITS_EIO, "a module lacks %s", name);
  return fn;
}

void *sits__module_load(const char *file, const char *const *names, size_t n, void (**fns)(void),
                        sits_err *err) {
  void *h = sits__module_open(file, err);
  for (size_t k = 0; h && k < n; k++)
    if (!(fns[k] = sits__module_fn(h, names[k], err))) {
      sits__module_close(h);
      h = NULL;
    }
  return h;
}

void sits__module_close(void *h) {
  if (h)
    dlclose(h);
}

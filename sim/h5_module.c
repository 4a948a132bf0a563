/*
 * h5_module.c - loads the HDF5 writers (the module libsits_h5, beside libsits) when an HDF5
 * file is written, so that processes that write none do not pay HDF5's start-up (its ~35
 * transitive libraries: ~22 ms per process, measured). The module is found next to the
 * library that holds this code (dladdr), which works in the build tree and installed.
 * Loaded with RTLD_NODELETE: HDF5 stays mapped until exit, as if it were linked.
 */
#define _GNU_SOURCE
#include "sits_sim.h"
#include "sits_module.h"
#include "writer_impl.h"

#include <stdio.h>
#include <string.h>

static void *open_module(sits_err *err) {
  return sits__module_open("libsits_h5.so", err);
}

/* Every module entry has the shape int entry(const char *tmp_path, const void *args). */
typedef int (*h5_entry)(const char *, const void *);

int sits__h5_call(const char *path, const char *entry, const void *args, sits_err *err) {
  void *h = open_module(err);
  if (!h)
    return SITS_EIO;
  h5_entry fn = (h5_entry)sits__module_fn(h, entry, err);
  sits__atomic a;
  int rc = fn ? sits__atomic_begin(&a, path, err) : SITS_EIO;
  if (rc == SITS_OK) {
    int ok = fn(a.tmp_path, args) == 0;
    if (!ok)
      sits__fail(err, SITS_EIO, "%s: writing the HDF5 file failed", path);
    rc = sits__atomic_end(&a, ok, err);
    if (!ok)
      rc = SITS_EIO;
  }
  sits__module_close(h);
  return rc;
}

int sits_write_h5(const sits_scenario *sc, const sits_result *r, const char *path, sits_err *err) {
  sits__h5_result args = {sc, r};
  return sits__h5_call(path, "sits__h5_write_result", &args, err);
}

int sits_write_table_h5(const char *path, size_t rows, size_t cols, const char *const *names,
                        const char *const *cells, sits_err *err) {
  sits__h5_table args = {rows, cols, names, cells};
  return sits__h5_call(path, "sits__h5_write_table", &args, err);
}

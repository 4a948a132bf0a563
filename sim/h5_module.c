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

int sits__h5_call_result(const char *path, const sits_scenario *sc, const sits_result *r,
                         sits_err *err) {
  void *h = open_module(err);
  if (!h)
    return SITS_EIO;
  int (*fn)(const char *, const sits_scenario *, const sits_result *) =
      (int (*)(const char *, const sits_scenario *, const sits_result *))sits__module_fn(
          h, "sits__h5_write_result", err);
  sits__atomic a;
  int rc = fn ? sits__atomic_begin(&a, path, err) : SITS_EIO;
  if (rc == SITS_OK) {
    int ok = fn(a.tmp_path, sc, r) == 0;
    if (!ok)
      sits__fail(err, SITS_EIO, "%s: writing the HDF5 file failed", path);
    rc = sits__atomic_end(&a, ok, err);
    if (!ok)
      rc = SITS_EIO;
  }
  sits__module_close(h);
  return rc;
}

int sits__h5_call_columns(const char *path, sits__h5_columns *c, sits_err *err) {
  void *h = open_module(err);
  if (!h)
    return SITS_EIO;
  int (*fn)(const sits__h5_columns *) =
      (int (*)(const sits__h5_columns *))sits__module_fn(h, "sits__h5_write_columns", err);
  sits__atomic a;
  int rc = fn ? sits__atomic_begin(&a, path, err) : SITS_EIO;
  if (rc == SITS_OK) {
    c->tmp_path = a.tmp_path;
    int ok = fn(c) == 0;
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
  return sits__h5_call_result(path, sc, r, err);
}

int sits_write_table_h5(const char *path, size_t rows, size_t cols, const char *const *names,
                        const char *const *cells, sits_err *err) {
  void *h = open_module(err);
  if (!h)
    return SITS_EIO;
  int (*fn)(const char *, size_t, size_t, const char *const *, const char *const *) =
      (int (*)(const char *, size_t, size_t, const char *const *,
               const char *const *))sits__module_fn(h, "sits__h5_write_table", err);
  sits__atomic a;
  int rc = fn ? sits__atomic_begin(&a, path, err) : SITS_EIO;
  if (rc == SITS_OK) {
    int ok = fn(a.tmp_path, rows, cols, names, cells) == 0;
    if (!ok)
      sits__fail(err, SITS_EIO, "%s: writing the HDF5 file failed", path);
    rc = sits__atomic_end(&a, ok, err);
    if (!ok)
      rc = SITS_EIO;
  }
  sits__module_close(h);
  return rc;
}

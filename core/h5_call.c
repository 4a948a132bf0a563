/*
 * h5_call.c - loads the HDF5 writers (the module libsits_h5, beside libsits) when an HDF5 file
 * is written, so that processes that write none do not pay HDF5's start-up (its ~35 transitive
 * libraries: ~22 ms per process, measured), and writes through a temporary file.
 */
#define _GNU_SOURCE
#include "h5_impl.h"
#include "io_impl.h"
#include "module_impl.h"

#include <stdio.h>
#include <string.h>

enum { H5_RESULT, H5_COLUMNS, H5_TABLE };

/* Writes @p args (of the entry @p kind) to @p path through a temporary file. */
static int h5_write(const char *path, int kind, const void *args, sits_err *err) {
  void *h;
  const sits__h5_ops *ops = sits__module_ops(SITS__H5_MODULE, SITS__H5_OPS, &h, err);
  if (!ops)
    return SITS_EIO;
  if (strcmp(path, "-") == 0)
    return sits__fail(err, SITS_EINPUT,
                      "HDF5 cannot be written to the standard output ('-'): give a file name");
  sits__atomic a;
  int rc = sits__atomic_begin(&a, path, err);
  if (rc == SITS_OK) {
    int w = kind == H5_RESULT    ? ops->write_result(a.tmp_path, args)
            : kind == H5_COLUMNS ? ops->write_columns(a.tmp_path, args)
                                 : ops->write_table(a.tmp_path, args);
    if (w != 0)
      sits__fail(err, SITS_EIO, "%s: writing the HDF5 file failed", path);
    rc = sits__atomic_end(&a, w == 0, err);
    if (w != 0)
      rc = SITS_EIO;
  }
  sits__module_close(h);
  return rc;
}

int sits__h5_write_columns_file(const char *path, const sits__h5_columns *c, sits_err *err) {
  return h5_write(path, H5_COLUMNS, c, err);
}

int sits__h5_write_result_file(const char *path, const sits_scenario *sc, const sits_result *r,
                               sits_err *err) {
  sits__h5_result args = {sc, r};
  return h5_write(path, H5_RESULT, &args, err);
}

int sits__h5_write_table_file(const char *path, const sits__h5_table *t, sits_err *err) {
  return h5_write(path, H5_TABLE, t, err);
}

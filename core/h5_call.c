/*
 * h5_call.c - loads the HDF5 writers (the module libsits_h5, beside libsits) when an HDF5 file
 * is written, so that processes that write none do not pay HDF5's start-up (its ~35 transitive
 * libraries: ~22 ms per process, measured), and writes through a temporary file.
 */
#define _GNU_SOURCE
#include "h5_impl.h"
#include "io_impl.h"
#include "module_impl.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include "sits_output.h"
#include <string.h>

enum { H5_RESULT, H5_COLUMNS, H5_TABLE };

/* Copies the file @p from to the device or FIFO @p to (HDF5 writes only to a file it can seek
 * in: /dev/null or a pipe get the finished file). */
static int copy_to(const char *from, const char *to, const char *shown, sits_err *err) {
  FILE *in = fopen(from, "rb");
  sits__atomic a = {0};
  snprintf(a.tmp_path, sizeof a.tmp_path, "%s", to);
  a.path = shown;
  FILE *out = in ? sits__atomic_fopen(&a, err) : NULL;
  char buf[65536];
  size_t n;
  int rc = in && out ? SITS_OK : SITS_EIO, e = 0;
  while (rc == SITS_OK && (n = fread(buf, 1, sizeof buf, in)) > 0)
    if (fwrite(buf, 1, n, out) != n || fflush(out) != 0)
      rc = SITS_EIO, e = errno;
  if (out && fclose(out) != 0 && !e)
    rc = SITS_EIO, e = errno;
  if (out && rc)
    sits__fail(err, SITS_EIO, "%s: write error: %s", shown, strerror(e ? e : EIO));
  if (in)
    fclose(in);
  return rc;
}

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
  char device[4096] = "";
  if (rc == SITS_OK && a.in_place) { /* a device or FIFO: the file is made in $TMPDIR first */
    snprintf(device, sizeof device, "%s", a.tmp_path);
    int fd = sits_output_temp("-", "h5.", a.tmp_path, sizeof a.tmp_path, err);
    if (fd < 0)
      rc = SITS_EIO;
    else
      close(fd);
  }
  if (rc == SITS_OK) {
    int w = kind == H5_RESULT    ? ops->write_result(a.tmp_path, args)
            : kind == H5_COLUMNS ? ops->write_columns(a.tmp_path, args)
                                 : ops->write_table(a.tmp_path, args);
    if (w != 0)
      sits__fail(err, SITS_EIO, "%s: writing the HDF5 file failed", path);
    if (device[0]) {
      rc = w == 0 ? copy_to(a.tmp_path, device, path, err) : SITS_EIO;
      remove(a.tmp_path);
    } else
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

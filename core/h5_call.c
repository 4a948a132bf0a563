/*
 * h5_call.c - loads the HDF5 writers (the module libsits_h5, beside libsits) when an HDF5 file
 * is written, so that processes that write none do not pay HDF5's start-up (its ~35 transitive
 * libraries: ~22 ms per process, measured), and writes through a temporary file.
 */
#define _GNU_SOURCE
#include "h5_internal.h"
#include "io_internal.h"
#include "module_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

/* ---- a result file written as the run goes ---- */

struct sits__h5_stream {
  void *module, *h;
  const sits__h5_ops *ops;
  const sits_scenario *sc;
  sits__atomic a;
  char device[4096]; /* a device or FIFO: the file is made in $TMPDIR, copied at the end */
};

sits__h5_stream *sits__h5_stream_open(const char *path, const sits_scenario *sc, sits_err *err) {
  if (strcmp(path, "-") == 0) {
    sits__fail(err, SITS_EINPUT,
               "HDF5 cannot be written to the standard output ('-'): give a file name");
    return NULL;
  }
  sits__h5_stream *s = calloc(1, sizeof *s);
  if (!s) {
    sits__fail(err, SITS_ENOMEM, "out of memory");
    return NULL;
  }
  s->sc = sc;
  s->ops = sits__module_ops(SITS__H5_MODULE, SITS__H5_OPS, &s->module, err);
  int rc = s->ops ? sits__atomic_begin(&s->a, path, err) : SITS_EIO;
  if (rc == SITS_OK && s->a.in_place) {
    snprintf(s->device, sizeof s->device, "%s", s->a.tmp_path);
    int fd = sits_output_temp("-", "h5.", s->a.tmp_path, sizeof s->a.tmp_path, err);
    rc = fd < 0 ? SITS_EIO : (close(fd), SITS_OK);
  }
  if (rc == SITS_OK && !(s->h = s->ops->stream_open(s->a.tmp_path, sc))) {
    rc = sits__fail(err, SITS_EIO, "%s: cannot create the HDF5 file", path);
    if (s->device[0])
      remove(s->a.tmp_path);
    else
      sits__atomic_end(&s->a, 0, NULL);
  }
  if (rc) {
    sits__module_close(s->module);
    free(s);
    return NULL;
  }
  return s;
}

int sits__h5_stream_rows(sits__h5_stream *s, const sits_result *r, size_t first, size_t count,
                         sits_err *err) {
  return s->ops->stream_rows(s->h, r, first, count) == 0
             ? SITS_OK
             : sits__fail(err, SITS_EIO, "%s: writing the HDF5 file failed", s->a.path);
}

int sits__h5_stream_close(sits__h5_stream *s, const sits_result *r, sits_err *err) {
  if (!s)
    return SITS_OK;
  int w = s->ops->stream_close(s->h, s->sc, r), rc = SITS_OK;
  if (r && w != 0)
    rc = sits__fail(err, SITS_EIO, "%s: writing the HDF5 file failed", s->a.path);
  if (s->device[0]) {
    if (r && rc == SITS_OK)
      rc = copy_to(s->a.tmp_path, s->device, s->a.path, err);
    remove(s->a.tmp_path);
  } else {
    int end = sits__atomic_end(&s->a, r && rc == SITS_OK, err);
    rc = rc ? rc : (r ? end : SITS_OK);
  }
  sits__module_close(s->module);
  free(s);
  return rc;
}

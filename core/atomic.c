/* atomic.c - files written under a temporary name and renamed over the target when complete
 * (io_impl.h), so that a failed or killed writer never leaves a truncated file behind. */
#define _POSIX_C_SOURCE 200809L
#include "io_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int sits__atomic_begin(sits__atomic *a, const char *path, sits_err *err) {
  a->path = path;
  snprintf(a->tmp_path, sizeof a->tmp_path, "%s.tmp.XXXXXX", path);
  int fd = mkstemp(a->tmp_path);
  if (fd < 0)
    return sits__fail(err, SITS_EIO, "%s: cannot create: %s", path, strerror(errno));
  close(fd);
  return SITS_OK;
}

int sits__atomic_end(sits__atomic *a, int ok, sits_err *err) {
  if (ok && rename(a->tmp_path, a->path) == 0)
    return SITS_OK;
  int e = errno;
  remove(a->tmp_path);
  return ok ? sits__fail(err, SITS_EIO, "%s: cannot rename into place: %s", a->path, strerror(e))
            : err->code;
}

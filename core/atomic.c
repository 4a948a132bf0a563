/*
 * atomic.c - writing an output file without losing anything (io_impl.h).
 *
 * A regular file (or a new one) is written under a unique temporary name next to it
 * (mkstemp: O_EXCL, never through a link) and renamed over it when complete, so a failed or
 * killed writer never leaves a truncated file under the name asked for. The file gets the
 * permissions a new file gets from the process umask, not mkstemp's 0600. A symbolic link is
 * followed to its target, which is replaced (the link stays a link). Anything else at the
 * path - a character device such as /dev/null, a FIFO - is written in place, streaming, and
 * never replaced; a folder is an error.
 */
#define _POSIX_C_SOURCE 200809L
#include "io_impl.h"
#include "sits_output.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file a path names, links followed (a dangling link names its missing target). */
static int resolve(const char *path, char *out, size_t size) {
  snprintf(out, size, "%s", path);
  for (int hops = 0; hops < 40; hops++) {
    struct stat st;
    if (lstat(out, &st) != 0 || !S_ISLNK(st.st_mode))
      return 0;
    char target[4096], dir[4096];
    ssize_t n = readlink(out, target, sizeof target - 1);
    if (n < 0)
      return -1;
    target[n] = '\0';
    if (target[0] == '/') {
      snprintf(out, size, "%s", target);
      continue;
    }
    snprintf(dir, sizeof dir, "%s", out);
    if (snprintf(out, size, "%s/%s", dirname(dir), target) >= (int)size) {
      errno = ENAMETOOLONG;
      return -1;
    }
  }
  errno = ELOOP;
  return -1;
}

/* The process umask, read without changing it where /proc tells it (umask() would set it). */
static mode_t current_umask(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  unsigned m = 0;
  bool found = false;
  while (f && !found && fgets(line, sizeof line, f))
    found = sscanf(line, "Umask: %o", &m) == 1;
  if (f)
    fclose(f);
  if (found)
    return (mode_t)m;
  mode_t old = umask(022); /* no /proc: the classic read-back */
  umask(old);
  return old;
}

int sits__atomic_begin(sits__atomic *a, const char *path, sits_err *err) {
  a->path = path;
  a->in_place = false;
  if (!*path)
    return sits__fail(err, SITS_EIO, "an output file name is empty");
  if (resolve(path, a->final_path, sizeof a->final_path))
    return sits__fail(err, SITS_EIO, "%s: cannot follow the link: %s", path, strerror(errno));
  struct stat st;
  if (stat(a->final_path, &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode))
      return sits__fail(err, SITS_EIO, "%s: is a folder, not a file", path);
    a->in_place = true; /* a device or a FIFO: written as it is, never replaced */
    snprintf(a->tmp_path, sizeof a->tmp_path, "%s", a->final_path);
    return SITS_OK;
  }
  if (snprintf(a->tmp_path, sizeof a->tmp_path, "%s.tmp.XXXXXX", a->final_path) >=
      (int)sizeof a->tmp_path)
    return sits__fail(err, SITS_EIO, "%s: the file name is too long", path);
  int fd = mkstemp(a->tmp_path);
  if (fd < 0)
    return sits__fail(err, SITS_EIO, "%s: cannot create: %s", path, strerror(errno));
  fchmod(fd, 0666 & ~current_umask());
  close(fd);
  return SITS_OK;
}

int sits__atomic_end(sits__atomic *a, int ok, sits_err *err) {
  int failed = err && err->code ? err->code : SITS_EIO; /* what the writer recorded */
  if (a->in_place)
    return ok ? SITS_OK : failed;
  if (ok && rename(a->tmp_path, a->final_path) == 0)
    return SITS_OK;
  int e = errno;
  remove(a->tmp_path);
  return ok ? sits__fail(err, SITS_EIO, "%s: cannot rename into place: %s", a->path, strerror(e))
            : failed;
}

struct sits_output {
  sits__atomic a;
  FILE *f;
};

sits_output *sits_output_open(const char *path, sits_err *err) {
  sits_output *o = calloc(1, sizeof *o);
  if (!o) {
    sits__fail(err, SITS_ENOMEM, "out of memory");
    return NULL;
  }
  if (sits__atomic_begin(&o->a, path, err)) {
    free(o);
    return NULL;
  }
  if (!(o->f = fopen(o->a.tmp_path, "w"))) {
    sits__fail(err, SITS_EIO, "%s: cannot create: %s", path, strerror(errno));
    sits__atomic_end(&o->a, 0, err);
    free(o);
    return NULL;
  }
  return o;
}

FILE *sits_output_file(sits_output *o) {
  return o->f;
}

int sits_output_close(sits_output *o, bool ok, sits_err *err) {
  if (!o)
    return SITS_OK;
  ok = ok && !ferror(o->f);
  if (fclose(o->f) != 0)
    ok = false;
  if (!ok && !(err && err->code))
    sits__fail(err, SITS_EIO, "%s: write error", o->a.path);
  int rc = sits__atomic_end(&o->a, ok, err);
  free(o);
  return rc;
}

/*
 * atomic.c - writing an output file without losing anything (io_internal.h).
 *
 * A regular file (or a new one) is written under a unique temporary name next to it
 * (mkstemp: O_EXCL, never through a link) and renamed over it when complete, so a failed or
 * killed writer never leaves a truncated file under the name asked for. The file gets the
 * permissions a new file gets from the process umask, not mkstemp's 0600. A symbolic link is
 * followed to its target, which is replaced (the link stays a link). Anything else at the
 * path - a character device such as /dev/null, a FIFO - is written in place, streaming, and
 * never replaced; "-" is the standard output; a folder is an error.
 *
 * Temporary names are recognisable: TARGET.sits-tmp.PID.XXXXXX (SITS_OUTPUT_TEMP_TAG). A
 * writer killed outright (SIGKILL, a power cut) leaves one behind; the next writer of the
 * same target removes those whose process is gone. The command-line tool removes its own on
 * SIGINT/SIGTERM/SIGHUP.
 */
#define _POSIX_C_SOURCE 200809L
#include "io_internal.h"
#include "sits_output.h"
#include "status_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
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

/* Removes TARGET.sits-tmp.PID.* beside @p final whose process PID no longer runs. */
static void remove_stale(const char *final) {
  char dir[4096], base[4096], tmp[4096];
  snprintf(tmp, sizeof tmp, "%s", final);
  snprintf(dir, sizeof dir, "%s", dirname(tmp));
  snprintf(tmp, sizeof tmp, "%s", final);
  snprintf(base, sizeof base, "%s" SITS_OUTPUT_TEMP_TAG, basename(tmp));
  size_t nb = strlen(base);
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL) {
    if (strncmp(e->d_name, base, nb) != 0)
      continue;
    char *end;
    long pid = strtol(e->d_name + nb, &end, 10);
    if (end == e->d_name + nb || *end != '.' || pid <= 0 || pid == (long)getpid())
      continue;
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
      unlinkat(dirfd(d), e->d_name, 0);
  }
  if (d)
    closedir(d);
}

/* A unique temporary file beside @p final, named TARGET.sits-tmp.PID.<tag>XXXXXX; its fd. */
static int make_temp(const char *final, const char *tag, char *out, size_t size) {
  if (snprintf(out, size, "%s" SITS_OUTPUT_TEMP_TAG "%ld.%sXXXXXX", final, (long)getpid(),
               tag ? tag : "") >= (int)size) {
    errno = ENAMETOOLONG;
    return -1;
  }
  remove_stale(final);
  int fd = mkstemp(out);
  if (fd >= 0)
    fchmod(fd, 0666 & ~current_umask());
  return fd;
}

int sits__atomic_begin(sits__atomic *a, const char *path, sits_err *err) {
  a->path = path;
  a->in_place = a->is_stdout = false;
  if (!*path)
    return sits__fail(err, SITS_EIO, "an output file name is empty");
  if (strcmp(path, "-") == 0) {
    a->in_place = a->is_stdout = true;
    snprintf(a->tmp_path, sizeof a->tmp_path, "/dev/stdout");
    snprintf(a->final_path, sizeof a->final_path, "/dev/stdout");
    return SITS_OK;
  }
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
  int fd = make_temp(a->final_path, NULL, a->tmp_path, sizeof a->tmp_path);
  if (fd < 0)
    return sits__fail(err, SITS_EIO, "%s: cannot create: %s", path, strerror(errno));
  close(fd);
  return SITS_OK;
}

FILE *sits__atomic_fopen(sits__atomic *a, sits_err *err) {
  FILE *f = NULL;
  if (a->is_stdout) { /* shares the standard output's offset: nothing written over */
    fflush(stdout);
    int fd = dup(STDOUT_FILENO);
    f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f && fd >= 0)
      close(fd);
  } else
    f = fopen(a->tmp_path, "w");
  if (!f)
    sits__fail(err, SITS_EIO, "%s: cannot create: %s", a->path, strerror(errno));
  return f;
}

int sits_output_temp(const char *path, const char *tag, char *name, size_t size, sits_err *err) {
  char final[4096];
  if (!*path)
    return sits__fail(err, SITS_EIO, "an output file name is empty"), -1;
  if (strcmp(path, "-") == 0) { /* stdout: the temporary goes to $TMPDIR */
    const char *t = getenv("TMPDIR");
    snprintf(final, sizeof final, "%s/sitsenergy-stdout", t && *t ? t : "/tmp");
  } else if (resolve(path, final, sizeof final))
    return sits__fail(err, SITS_EIO, "%s: cannot follow the link: %s", path, strerror(errno)), -1;
  int fd = make_temp(final, tag, name, size);
  if (fd < 0)
    sits__fail(err, SITS_EIO, "%s: cannot create a temporary file: %s", path, strerror(errno));
  return fd;
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
  if (!(o->f = sits__atomic_fopen(&o->a, err))) {
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
  int e = 0; /* why the stream failed: ENOSPC on a full disk, EIO, ... */
  errno = 0;
  if (fflush(o->f) != 0 || ferror(o->f))
    e = errno ? errno : EIO, ok = false;
  if (fclose(o->f) != 0 && !e)
    e = errno ? errno : EIO, ok = false;
  if (!ok && !(err && err->code))
    sits__fail(err, SITS_EIO, "%s: write error: %s", o->a.path, strerror(e ? e : EIO));
  int rc = sits__atomic_end(&o->a, ok, err);
  free(o);
  return rc;
}

int sits_write_path(const char *path, sits_write_fn fn, const void *ctx, sits_err *err) {
  sits_output *o = sits_output_open(path, err);
  if (!o)
    return SITS_EIO;
  FILE *f = sits_output_file(o);
  int rc = fn(ctx, f, err);
  if (rc == SITS_OK && ferror(f))
    rc = sits__fail(err, SITS_EIO, "%s: write error", path);
  int end = sits_output_close(o, rc == SITS_OK, err);
  return rc ? rc : end;
}

char *sits_write_text(sits_write_fn fn, const void *ctx, sits_err *err) {
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  if (!m) {
    sits__fail(err, SITS_ENOMEM, "out of memory");
    return NULL;
  }
  int rc = fn(ctx, m, err);
  if (fclose(m) != 0 && rc == SITS_OK)
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  if (rc) {
    free(text);
    return NULL;
  }
  return text;
}

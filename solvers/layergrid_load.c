/* layergrid_load.c - sits_layergrid through the module libsits_layergrid (layergrid.c, which
 * links FFTW), loaded on first use (core/module_internal.h). */
#define _POSIX_C_SOURCE 200809L
#include "sits_layergrid.h"
#include "status_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "layergrid_impl.h"
#include "layergrid_internal.h"
#include "module_internal.h"

struct sits_layergrid {
  void *module;
  const sits__layergrid_ops *ops;
  sits__lg *impl;
};

/* FFTW wisdom (measured plans) kept between runs: the file SITS_FFTW_WISDOM names ("off" or
 * empty: none, the plans estimated), else $XDG_CACHE_HOME/sitsenergy/fftw-wisdom, else
 * ~/.cache/sitsenergy/fftw-wisdom. 0 when there is none; 2 when the cache folders may be
 * made. */
static int wisdom_path(char *out, size_t size) {
  const char *env = getenv("SITS_FFTW_WISDOM");
  if (env) /* "-" is no file here (it is the standard output elsewhere) */
    return *env && strcmp(env, "off") != 0 && strcmp(env, "-") != 0 &&
           snprintf(out, size, "%s", env) < (int)size;
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  int n = xdg && xdg[0] == '/'     ? snprintf(out, size, "%s/sitsenergy/fftw-wisdom", xdg)
          : home && home[0] == '/' ? snprintf(out, size, "%s/.cache/sitsenergy/fftw-wisdom", home)
                                   : -1;
  return n > 0 && n < (int)size ? 2 : 0;
}

#define WISDOM_MAX_BYTES (1 << 20) /* FFTW's text for a few plans is a few kB */

/* The wisdom file's text (malloc'ed; "" when missing, unreadable or not a plain file: opened
 * without blocking, so a FIFO put there cannot hang the run, and checked once open). */
static char *wisdom_read(const char *path) {
  struct stat st;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  bool ok = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < WISDOM_MAX_BYTES;
  char *text = calloc(1, ok ? (size_t)st.st_size + 1 : 1);
  if (ok && text && read(fd, text, (size_t)st.st_size) != (ssize_t)st.st_size)
    text[0] = '\0';
  if (fd >= 0)
    close(fd);
  return text;
}

/* Keeps the wisdom: written to a new temporary beside the file and renamed over it, so what
 * is at the path (a plain file, or nothing) is replaced whole and a link there is never
 * written through; skipped when the path holds anything but a plain file. A cache: failures
 * are silent (the next run measures again). */
static void wisdom_write(const char *path, const char *text, int make_dirs) {
  char tmp[4096 + 16];
  if (make_dirs) { /* the cache folders, each level */
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = strchr(tmp + 1, '/'); p; p = strchr(p + 1, '/')) {
      *p = '\0';
      if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
        return;
      *p = '/';
    }
  }
  struct stat st;
  if ((lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) ||
      snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp)
    return;
  int fd = mkstemp(tmp);
  if (fd < 0)
    return;
  FILE *f = fdopen(fd, "w");
  bool ok = f && fputs(text, f) >= 0;
  if (f)
    ok = fclose(f) == 0 && ok;
  else
    close(fd);
  if (!ok || rename(tmp, path) != 0)
    unlink(tmp);
}

/* A solver; with @p again, one more for a network whose first solver this process made
 * already: FFTW's wisdom then holds its plans (imported or measured by the first), so the
 * file is neither read, imported nor written again (each import hashes every plan in it: a
 * run on the 12 x 12 ev6 grid that keeps ~30 solvers spent 84 M instructions, a tenth of it,
 * importing the same 9-kB file) */
static sits_layergrid *lg_create(const gsl_spmatrix *g, const double *c, size_t rows, size_t cols,
                                 size_t layers, bool again, sits_err *err) {
  sits_layergrid *s = calloc(1, sizeof *s);
  if (!s) {
    sits__fail(err, SITS_ENOMEM, "out of memory");
    return NULL;
  }
  char path[4096];
  int where = wisdom_path(path, sizeof path);
  char *wisdom = where ? (again ? calloc(1, 1) : wisdom_read(path)) : NULL;
  s->ops = sits__module_ops(SITS__LAYERGRID_MODULE, SITS__LAYERGRID_OPS, &s->module, err);
  if (s->ops && s->ops->abi != SITS__LAYERGRID_ABI) {
    sits__fail(err, SITS_EUNSUPPORTED,
               "%s is from another build of the library (interface %d, "
               "not %d): reinstall it",
               SITS__LAYERGRID_MODULE, s->ops->abi, SITS__LAYERGRID_ABI);
    s->ops = NULL;
  }
  if (!s->ops || (where && !wisdom) ||
      !(s->impl = s->ops->create(g, c, rows, cols, layers, wisdom, err))) {
    if (s->ops && where && !wisdom)
      sits__fail(err, SITS_ENOMEM, "out of memory");
    free(wisdom);
    sits_layergrid_free(s);
    return NULL;
  }
  free(wisdom);
  char *grown = s->ops->wisdom_export(s->impl);
  if (grown)
    wisdom_write(path, grown, where == 2);
  free(grown);
  return s;
}

sits_layergrid *sits_layergrid_new(const gsl_spmatrix *g, const double *c, size_t rows, size_t cols,
                                   size_t layers, sits_err *err) {
  return lg_create(g, c, rows, cols, layers, false, err);
}

sits_layergrid *sits__layergrid_new_again(const gsl_spmatrix *g, const double *c, size_t rows,
                                          size_t cols, size_t layers, sits_err *err) {
  return lg_create(g, c, rows, cols, layers, true, err);
}

int sits_layergrid_setup(sits_layergrid *s, double alpha, double tau, sits_err *err) {
  return s->ops->setup(s->impl, alpha, tau, err);
}

int sits_layergrid_solve(sits_layergrid *s, const double *b, double *x, sits_err *err) {
  return s->ops->solve(s->impl, b, x, err);
}

void sits_layergrid_apply(const sits_layergrid *s, const double *x, double *y) {
  s->ops->apply(s->impl, x, y);
}

void sits_layergrid_to_modes(sits_layergrid *s, const double *x, double *v) {
  s->ops->to_modes(s->impl, x, v);
}

void sits_layergrid_from_modes(sits_layergrid *s, const double *v, double *x) {
  s->ops->from_modes(s->impl, v, x);
}

int sits_layergrid_solve_modes(sits_layergrid *s, const double *b, double *x, sits_err *err) {
  return s->ops->solve_modes(s->impl, b, x, err);
}

void sits_layergrid_apply_modes(sits_layergrid *s, const double *x, double *y) {
  s->ops->apply_modes(s->impl, x, y);
}

size_t sits_layergrid_edge_unknowns(const sits_layergrid *s) {
  return s->ops->edge_unknowns(s->impl);
}

void sits_layergrid_free(sits_layergrid *s) {
  if (!s)
    return;
  if (s->impl)
    s->ops->release(s->impl);
  sits__module_close(s->module);
  free(s);
}

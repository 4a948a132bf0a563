/* cli_common.c - messages, exit codes and --set handling shared by the commands. */
#define _DEFAULT_SOURCE
#include "cli.h"
#include "sits_scenario.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void cli_error(const char *fmt, ...) {
  char line[8192], named[8704];
  va_list ap, again;
  va_start(ap, fmt);
  va_copy(again, ap);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  /* a pipe held in memory named as the user gave it, wherever a message names it (a message
   * too long for the buffer, a list of 60,000 columns, goes out as it is) */
  if (n >= 0 && (size_t)n < sizeof line)
    fprintf(stderr, "sitsenergy: %s\n", cli_input_name(line, named, sizeof named));
  else {
    fputs("sitsenergy: ", stderr);
    vfprintf(stderr, fmt, again);
    fputc('\n', stderr);
  }
  va_end(again);
  va_end(ap);
}

int cli_exit_code(int status) {
  switch (status) {
  case SITS_OK: return EXIT_OK;
  case SITS_ESOLVER:
  case SITS_EINTERNAL: return EXIT_SOLVER;
  default: return EXIT_INPUT;
  }
}

int cli_fail(int status, const sits_err *err) {
  cli_error("%s", err->msg[0] ? err->msg : sits_strerror(status));
  return cli_exit_code(status);
}

int cli_bad_option(int c, const char *arg, const char *cmd) {
  if (c == ':')
    cli_error("option '%s' needs a value (see 'sitsenergy %s --help')", arg, cmd);
  else
    cli_error("unknown option '%s' (see 'sitsenergy %s --help')", arg, cmd);
  return EXIT_USAGE;
}

int cli_sets_add(cli_sets *s, const char *item) {
  if (s->n == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 8;
    const char **p = realloc(s->items, cap * sizeof *p);
    if (!p)
      return -1;
    s->items = p;
    s->cap = cap;
  }
  s->items[s->n++] = item;
  return 0;
}

void cli_sets_release(cli_sets *s) {
  free(s->items);
  s->items = NULL;
  s->n = s->cap = 0;
}

/* What names a file: its device and inode when it exists, else its folder's resolved path and
 * its name. Returns false for paths that are not files to compare (stdout, devices, FIFOs). */
typedef struct file_id {
  bool exists;
  dev_t dev;
  ino_t ino;
  char name[8200];
} file_id;

static bool identify(const char *path, file_id *id) {
  struct stat st;
  memset(id, 0, sizeof *id);
  if (!strcmp(path, "-"))
    return false;
  if (stat(path, &st) == 0) {
    if (!S_ISREG(st.st_mode))
      return false; /* /dev/null twice is harmless; a FIFO is the user's */
    id->exists = true, id->dev = st.st_dev, id->ino = st.st_ino;
    return true;
  }
  char dir[4096], resolved[4096];
  const char *slash = strrchr(path, '/');
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
  if (slash == path)
    snprintf(dir, sizeof dir, "/");
  if (!realpath(dir, resolved))
    snprintf(resolved, sizeof resolved, "%s", dir);
  snprintf(id->name, sizeof id->name, "%s/%s", resolved, slash ? slash + 1 : path);
  return true;
}

static bool same(const file_id *a, const file_id *b) {
  if (a->exists != b->exists)
    return false;
  return a->exists ? a->dev == b->dev && a->ino == b->ino : strcmp(a->name, b->name) == 0;
}

/* The outputs the command declared (cli_check_paths), for the check against the files a
 * scenario reads, which are known only once it is loaded (cli_check_scenario_inputs). */
static struct {
  const char *path[16];
  size_t n;
} declared;

int cli_check_paths(const char *const *inputs, size_t ni, const char *const *outputs, size_t no) {
  file_id a, b;
  for (size_t i = 0; i < no && declared.n < 16; i++)
    if (outputs[i])
      declared.path[declared.n++] = outputs[i];
  for (size_t i = 0; i < no; i++)
    if (outputs[i] && !*outputs[i]) { /* refused before the run, not after it */
      cli_error("an output file name is empty");
      return EXIT_INPUT;
    }
  for (size_t i = 0; i < no; i++)
    for (size_t j = i + 1; outputs[i] && j < no; j++)
      if (outputs[j] && !strcmp(outputs[i], "-") && !strcmp(outputs[j], "-")) {
        cli_error("two outputs are '-' (the standard output): give one of them a file name");
        return EXIT_INPUT;
      }
  for (size_t i = 0; i < no; i++) { /* a folder that is not there: said now, not after the run */
    if (!outputs[i] || !strcmp(outputs[i], "-"))
      continue;
    const char *slash = strrchr(outputs[i], '/');
    char dir[4096];
    struct stat st;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - outputs[i]) : 1,
             slash ? outputs[i] : ".");
    if (slash == outputs[i])
      snprintf(dir, sizeof dir, "/");
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
      cli_error("%s: no folder '%s' to write it in", outputs[i], dir);
      return EXIT_INPUT;
    }
  }
  for (size_t i = 0; i < no; i++) {
    if (!outputs[i] || !identify(outputs[i], &a))
      continue;
    for (size_t j = 0; j < ni; j++)
      if (inputs[j] && identify(inputs[j], &b) && same(&a, &b)) {
        cli_error("%s: an output would replace the input %s", outputs[i], inputs[j]);
        return EXIT_INPUT;
      }
    for (size_t j = i + 1; j < no; j++)
      if (outputs[j] && identify(outputs[j], &b) && same(&a, &b)) {
        cli_error("%s and %s are the same file: give each output its own name", outputs[i],
                  outputs[j]);
        return EXIT_INPUT;
      }
  }
  for (size_t i = 0; i < no; i++) /* their temporary files go if the run is stopped */
    cli_cleanup_watch(outputs[i]);
  return EXIT_OK;
}

int cli_check_scenario_inputs(const sits_scenario *sc) {
  file_id a, b;
  for (size_t i = 0; i < declared.n; i++) {
    if (!identify(declared.path[i], &a))
      continue;
    for (size_t k = 0; k < sits_scenario_input_count(sc); k++) {
      const char *in = sits_scenario_input(sc, k);
      if (identify(in, &b) && same(&a, &b)) {
        cli_error("%s: an output would replace the input %s (read by the scenario)",
                  declared.path[i], in);
        return EXIT_INPUT;
      }
    }
  }
  return EXIT_OK;
}

int cli_no_stdout(const char *opt, const char *path) {
  if (!path || strcmp(path, "-") != 0)
    return EXIT_OK;
  cli_error("%s -: this output cannot stream to the standard output; give a file name", opt);
  return EXIT_INPUT;
}

/* The next line of @p f into *buf (grown as needed, to CLI_MAX_LINE at most): its length, 0 at
 * the end, -1 when longer than CLI_MAX_LINE or out of memory; *nul tells a NUL byte (a file that
 * is not text, such as /dev/zero, is refused without reading it all). */
long cli_read_line(FILE *f, char **buf, size_t *cap, bool *nul) {
  size_t len = 0;
  int ch;
  *nul = false;
  while ((ch = getc(f)) != EOF) {
    if (len + 2 > *cap) {
      size_t c = *cap ? 2 * *cap : 4096;
      char *p = realloc(*buf, c);
      if (!p)
        return -1;
      *buf = p, *cap = c;
    }
    *nul = *nul || ch == '\0';
    (*buf)[len++] = (char)ch;
    if (len > CLI_MAX_LINE)
      return -1;
    if (ch == '\n')
      break;
  }
  if (*buf)
    (*buf)[len] = '\0';
  return (long)len;
}

void cli_progress_start(cli_progress *p) {
  memset(p, 0, sizeof *p);
  clock_gettime(CLOCK_MONOTONIC, &p->start);
}

static double seconds_between(const struct timespec *a, const struct timespec *b) {
  return (double)(b->tv_sec - a->tv_sec) + 1e-9 * (double)(b->tv_nsec - a->tv_nsec);
}

double cli_progress_elapsed(const cli_progress *p) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return seconds_between(&p->start, &now);
}

bool cli_progress_due(cli_progress *p, double every_s, double *elapsed_s) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  *elapsed_s = seconds_between(&p->start, &now);
  if (*elapsed_s < 2.0 || (p->shown && seconds_between(&p->last, &now) < every_s))
    return false;
  p->last = now;
  p->shown = true;
  return true;
}

void cli_interval_unused(double interval_ms, const sits_trace *trace, const char *path) {
  if (interval_ms > 0 && trace &&
      !(trace->interval_source && strcmp(trace->interval_source, "option") == 0))
    cli_error("note: --interval-ms not used: %s's rows carry their own times (%s)", path,
              trace->interval_source ? trace->interval_source : "its time column");
}

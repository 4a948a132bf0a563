/* cli_common.c - messages, exit codes and --set handling shared by the commands. */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void cli_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("sitsenergy: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
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

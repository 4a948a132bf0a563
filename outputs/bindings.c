/*
 * bindings.c - the library's outputs as a language binding (the Python package, python/)
 * takes them: texts instead of FILE streams. Nothing here computes; each call wraps one of the
 * C API's writers. (The series as contiguous blocks and the names by index are sim's
 * accessors: sits_result_series, sits_scenario_node_name ...)
 */
#define _POSIX_C_SOURCE 200809L
#include "sits_output.h"
#include "sits_sim.h"
#include "sits_writers.h"
#include "status_internal.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sits_free(void *p) {
  free(p);
}

typedef struct summary_ctx {
  const sits_scenario *sc;
  const sits_result *r;
} summary_ctx;

static int summary_writer(const void *p, FILE *f, sits_err *err) {
  const summary_ctx *c = p;
  (void)err;
  return sits_write_summary_json(c->sc, c->r, f);
}

typedef struct steady_ctx {
  const sits_scenario *sc;
  const sits_steady_state *st;
} steady_ctx;

static int steady_writer(const void *p, FILE *f, sits_err *err) {
  const steady_ctx *c = p;
  (void)err;
  return sits_write_steady_json(c->sc, c->st, f);
}

char *sits_summary_json_text(const sits_scenario *sc, const sits_result *r) {
  summary_ctx c = {sc, r};
  sits_err err = {0};
  return sits_write_text(summary_writer, &c, &err);
}

char *sits_steady_json_text(const sits_scenario *sc, sits_err *err) {
  sits_steady_state st;
  memset(&st, 0, sizeof st);
  steady_ctx c = {sc, &st};
  char *text = sits_steady(sc, &st, err) ? NULL : sits_write_text(steady_writer, &c, err);
  sits_steady_release(&st);
  return text;
}

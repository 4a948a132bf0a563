/*
 * fuzz_hotspot.c - libFuzzer target: HotSpot's input readers on arbitrary input.
 *
 * The input is split at lines "%%": a floorplan (.flp), a power trace (.ptrace), a
 * HotSpot config (.config) and an init file. Each reader must succeed or fail with a
 * message; with a valid floorplan the block network is built, and with a valid trace and
 * config its steady state is solved. Nothing may crash, hang or leak.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sits_hotspot.h"

#include "fuzz_tmp.h"

static void put(const char *path, const char *text, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f)
    abort();
  fwrite(text, 1, len, f);
  fclose(f);
}

static void check(int rc, const sits_err *err) {
  if (rc != SITS_OK && err->msg[0] == '\0')
    abort(); /* a failure promises a message */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *dir = fuzz_tmp("sits_fuzz_hs_");
  char *text = malloc(size + 1);
  if (!text)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  const char *names[4] = {"f.flp", "p.ptrace", "c.config", "i.init"};
  char paths[4][512];
  char *part = text;
  for (int k = 0; k < 4; k++) {
    snprintf(paths[k], sizeof paths[k], "%s/%s", dir, names[k]);
    char *sep = part ? strstr(part, "\n%%\n") : NULL;
    size_t len = part ? (sep ? (size_t)(sep - part) : strlen(part)) : 0;
    put(paths[k], part ? part : "", len);
    part = sep ? sep + 4 : NULL;
  }
  free(text);
  sits_err err = {0};
  sits_floorplan *flp = NULL;
  int rc = sits_hs_read_flp(paths[0], &flp, &err);
  check(rc, &err);
  sits_hs_options *o = sits_hs_options_new();
  err.msg[0] = '\0';
  rc = sits_hs_options_read_config(o, paths[2], &err);
  check(rc, &err);
  sits_hs_params p;
  sits_hs_model m;
  err.msg[0] = '\0';
  int prc = sits_hs_options_params(o, &p, &m, &err);
  check(prc, &err);
  if (flp) {
    sits_hs_trace *tr = NULL;
    err.msg[0] = '\0';
    rc = sits_hs_read_ptrace(paths[1], flp, &tr, &err);
    check(rc, &err);
    if (prc != SITS_OK)
      sits_hs_params_default(&p);
    p.grid_rows = p.grid_cols = 4; /* keep grids small: the fuzzer wants many cases a second */
    sits_hs_network *net = NULL;
    err.msg[0] = '\0';
    rc = ((net = sits_hs_network_new(flp, &p, flp->n % 2 ? SITS_HS_GRID : SITS_HS_BLOCK, &err))
              ? SITS_OK
              : err.code);
    check(rc, &err);
    if (net) {
      double *vals = malloc((4 * flp->n + 12) * sizeof *vals);
      err.msg[0] = '\0';
      check(sits_hs_read_init(paths[3], net, vals, &err), &err);
      if (tr && sits_hs_node_count(net) < 4000) {
        double *t = malloc(sits_hs_node_count(net) * sizeof *t);
        err.msg[0] = '\0';
        check(sits_hs_steady(net, tr->power_w, false, t, &err), &err);
        free(t);
      }
      free(vals);
    }
    sits_hs_network_free(net);
    sits_hs_trace_free(tr);
  }
  sits_hs_options_free(o);
  sits_floorplan_free(flp);
  return 0;
}

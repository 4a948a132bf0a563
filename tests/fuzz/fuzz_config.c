/*
 * fuzz_config.c - libFuzzer target: scenario loading on arbitrary input.
 *
 * The input is split at lines "%%": the scenario file, a trace file it may name as
 * "t.csv", then one --set override per line. A load must either succeed (and then the
 * steady state is solved) or fail with a message; nothing may crash or leak.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sits_sim.h"

#include "fuzz_tmp.h"

static void put(const char *dir, const char *name, const char *text, size_t len) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f)
    abort();
  fwrite(text, 1, len, f);
  fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *dir = fuzz_tmp("sits_fuzz_");
  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = '\0';
  char *parts[3] = {text, "", ""};
  for (int i = 1; i < 3; i++) {
    char *sep = strstr(parts[i - 1], "\n%%\n");
    if (!sep)
      break;
    *sep = '\0';
    parts[i] = sep + 4;
  }
  put(dir, "s.cfg", parts[0], strlen(parts[0]));
  put(dir, "t.csv", parts[1], strlen(parts[1]));
  const char *sets[16];
  size_t n_sets = 0;
  for (char *save = NULL, *line = strtok_r(parts[2], "\n", &save); line && n_sets < 16;
       line = strtok_r(NULL, "\n", &save))
    sets[n_sets++] = line;
  char path[512];
  snprintf(path, sizeof path, "%s/s.cfg", dir);
  sits_scenario *sc = NULL;
  sits_err err = {0};
  int rc = sits_scenario_load(path, sets, n_sets, &sc, &err);
  if (rc == SITS_OK) {
    sits_steady_state st;
    if (sits_steady(sc, &st, &err) == SITS_OK)
      sits_steady_release(&st);
  } else if (sc || err.msg[0] == '\0') {
    abort();
  }
  sits_scenario_free(sc);
  free(text);
  return 0;
}

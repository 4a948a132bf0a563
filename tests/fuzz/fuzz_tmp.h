/*
 * fuzz_tmp.h - the fuzzers' scratch folder: made on the first input under $TMPDIR (or /tmp),
 * removed with its files when the fuzzer exits (it left three folders behind on every run of
 * the fuzz stage).
 */
#ifndef SITS_FUZZ_TMP_H
#define SITS_FUZZ_TMP_H

#include "../tmp_tree.h"

static char fuzz_dir[256];

static void fuzz_dir_remove(void) {
  tmp_tree_remove(fuzz_dir);
}

/* the folder, made once (@p prefix: the start of its name) */
static const char *fuzz_tmp(const char *prefix) {
  if (!fuzz_dir[0] &&
      (tmp_tree_make(fuzz_dir, sizeof fuzz_dir, prefix) != 0 || atexit(fuzz_dir_remove)))
    abort();
  return fuzz_dir;
}

#endif

/*
 * fuzz_tmp.h - the fuzzers' scratch folder: made on the first input under $TMPDIR (or /tmp),
 * its files and itself removed when the fuzzer exits (it left three folders behind on every
 * run of the fuzz stage).
 */
#ifndef SITS_FUZZ_TMP_H
#define SITS_FUZZ_TMP_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_dir[256];

static void fuzz_dir_remove(void) {
  DIR *d = opendir(fuzz_dir);
  if (d) {
    struct dirent *ent;
    char path[512];
    while ((ent = readdir(d)))
      if (strcmp(ent->d_name, ".") && strcmp(ent->d_name, "..")) {
        snprintf(path, sizeof path, "%s/%s", fuzz_dir, ent->d_name);
        unlink(path);
      }
    closedir(d);
  }
  rmdir(fuzz_dir);
}

/* the folder, made once (@p prefix: the start of its name) */
static const char *fuzz_tmp(const char *prefix) {
  if (!fuzz_dir[0]) {
    const char *tmp = getenv("TMPDIR");
    snprintf(fuzz_dir, sizeof fuzz_dir, "%s/%sXXXXXX", tmp && *tmp ? tmp : "/tmp", prefix);
    if (!mkdtemp(fuzz_dir) || atexit(fuzz_dir_remove))
      abort();
  }
  return fuzz_dir;
}

#endif

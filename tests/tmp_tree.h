/*
 * tmp_tree.h - removing a scratch folder and what it holds, for the tests (test_util.h) and the
 * fuzzers (fuzz/fuzz_tmp.h), which do not link Criterion.
 */
#ifndef SITS_TMP_TREE_H
#define SITS_TMP_TREE_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Removes @p path and, when it is a folder, everything under it (links are removed, not
 * followed). */
static inline void tmp_tree_remove(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0)
    return;
  if (!S_ISDIR(st.st_mode)) {
    unlink(path);
    return;
  }
  DIR *d = opendir(path);
  if (d) {
    struct dirent *ent;
    while ((ent = readdir(d)))
      if (strcmp(ent->d_name, ".") && strcmp(ent->d_name, "..")) {
        size_t len = strlen(path) + strlen(ent->d_name) + 2;
        char *sub = malloc(len);
        if (sub) {
          snprintf(sub, len, "%s/%s", path, ent->d_name);
          tmp_tree_remove(sub);
          free(sub);
        }
      }
    closedir(d);
  }
  rmdir(path);
}

/* mkdtemp of $TMPDIR (or /tmp)/@p prefix XXXXXX into @p dir (@p size bytes); 0 on success */
static inline int tmp_tree_make(char *dir, size_t size, const char *prefix) {
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, size, "%s/%sXXXXXX", tmp && *tmp ? tmp : "/tmp", prefix);
  return mkdtemp(dir) ? 0 : -1;
}

#endif

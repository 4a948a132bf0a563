/* writer_impl.h - helpers shared by the output writers (never installed). */
#ifndef SITS_WRITER_IMPL_H
#define SITS_WRITER_IMPL_H

#include <stdio.h>

#include "sits_status.h"

/** A file written under a temporary name and renamed over the target when complete. */
typedef struct sits__atomic {
  char tmp_path[4096];
  const char *path;
} sits__atomic;

/** Creates the temporary file next to @p path (its name is in a->tmp_path). */
int sits__atomic_begin(sits__atomic *a, const char *path, sits_err *err);
/** ok: renames the temporary over the target; !ok: removes it. */
int sits__atomic_end(sits__atomic *a, int ok, sits_err *err);

/** JSON string with escapes. */
void sits__json_str(FILE *f, const char *s);
/** JSON number, or null when not finite. */
void sits__json_num(FILE *f, double v);

#endif

/* io_internal.h - writing a file safely (internal to the libraries). */
#ifndef SITS_IO_INTERNAL_H
#define SITS_IO_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "status_internal.h"

/** A file written under a temporary name and renamed over the target when complete. */
typedef struct sits__atomic {
  char tmp_path[4096];   /* where the writer writes */
  char final_path[4096]; /* the file replaced at the end (links followed) */
  const char *path;      /* as given, for messages */
  bool in_place;         /* a device or a FIFO: tmp_path is the path itself, nothing renamed */
  bool is_stdout;        /* "-": the standard output (in_place too) */
} sits__atomic;

/** Creates the temporary file next to @p path (its name is in a->tmp_path). */
int sits__atomic_begin(sits__atomic *a, const char *path, sits_err *err);
/** The stream to write to: the temporary file, the device, or a duplicate of the standard
 *  output for "-" (stdout flushed first); NULL with the reason in @p err. */
FILE *sits__atomic_fopen(sits__atomic *a, sits_err *err);
/** ok: renames the temporary over the target; !ok: removes it. */
int sits__atomic_end(sits__atomic *a, int ok, sits_err *err);

#endif

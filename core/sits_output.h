/*
 * sits_output.h - writing an output file safely, for programs over the library (the library's
 * own writers do the same): a regular or new file is written under a unique temporary name
 * (mkstemp) next to it and renamed over it only when complete; a symbolic link is followed
 * and its target replaced; a device or a FIFO is written in place; new files get the
 * permissions of the umask.
 */
#ifndef SITS_OUTPUT_H
#define SITS_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "sits_status.h"

SITS_BEGIN_DECLS

typedef struct sits_output sits_output;

/** Opens @p path for writing as above; NULL with the reason in @p err. */
SITS_API sits_output *sits_output_open(const char *path, sits_err *err);

/** The stream to write to. */
SITS_API FILE *sits_output_file(sits_output *o);

/** Closes the stream and, when @p ok and every write succeeded, puts the file in place;
 *  otherwise removes the temporary file. Frees @p o (NULL is a no-op). SITS_OK, or
 *  SITS_EIO with the reason. */
SITS_API int sits_output_close(sits_output *o, bool ok, sits_err *err);

SITS_END_DECLS

#endif

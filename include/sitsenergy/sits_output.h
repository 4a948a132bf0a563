/*
 * sits_output.h - writing an output file safely, for programs over the library (the library's
 * own writers do the same): a regular or new file is written under a unique temporary name
 * (mkstemp) next to it and renamed over it only when complete; a symbolic link is followed
 * and its target replaced; a device or a FIFO is written in place; "-" is the standard output;
 * new files get the permissions of the umask.
 *
 * Temporary files are named TARGET.sits-tmp.PID.XXXXXX: a writer killed outright leaves one
 * that the next writer of the same target removes (once process PID is gone), and a program
 * that catches SIGINT/SIGTERM can remove its own by that name.
 */
#ifndef SITS_OUTPUT_H
#define SITS_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
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

/** A writer of some content onto @p f: SITS_OK or a status with @p err. */
typedef int (*sits_write_fn)(const void *ctx, FILE *f, sits_err *err);

/** What @p fn writes, into the file @p path through sits_output_open/close (in place only
 *  when complete; a write error is SITS_EIO). */
SITS_API int sits_write_path(const char *path, sits_write_fn fn, const void *ctx, sits_err *err);

/** What @p fn writes, as a malloc'ed string (free()); NULL with @p err. */
SITS_API char *sits_write_text(sits_write_fn fn, const void *ctx, sits_err *err);

/** What every temporary name holds after the target's name (then the PID, a dot, a tag). */
#define SITS_OUTPUT_TEMP_TAG ".sits-tmp."

/** Creates a unique temporary file for a program's own use beside the output @p path (links
 *  followed; $TMPDIR for "-"), named as above with @p tag (may be NULL) before the unique
 *  part, and removes stale ones of that target. The name goes to @p name (@p size bytes);
 *  returns the open descriptor, or -1 with the reason in @p err. The caller removes it. */
SITS_API int sits_output_temp(const char *path, const char *tag, char *name, size_t size,
                              sits_err *err);

SITS_END_DECLS

#endif

/*
 * sits_status.h - status codes and the error record shared by every layer.
 *
 * Every library function that can fail returns an int status: SITS_OK (0) or one of
 * the negative codes below. The detailed, human-readable message travels in a
 * sits_err record owned by the caller (usually embedded in a handle). The library
 * never prints and never exits.
 */
#ifndef SITS_STATUS_H
#define SITS_STATUS_H

#include <stddef.h>

#include "sits_export.h"

SITS_BEGIN_DECLS

/* X(name, value, text): one list yields the enum and sits_strerror(). */
#define SITS_STATUS_MAP(X)                                                                         \
  X(OK, 0, "success")                                                                              \
  X(EINPUT, -1, "bad input")                                                                       \
  X(ENOMEM, -2, "out of memory")                                                                   \
  X(ESOLVER, -3, "solver failure")                                                                 \
  X(EIO, -4, "input/output error")                                                                 \
  X(EUNSUPPORTED, -5, "not supported yet")                                                         \
  X(EINTERNAL, -6, "internal error")                                                             \
  X(ECANCELED, -7, "stopped by the caller")

enum sits_status {
#define SITS_STATUS_ENUM(name, value, text) SITS_##name = value,
  SITS_STATUS_MAP(SITS_STATUS_ENUM)
#undef SITS_STATUS_ENUM
};

/** Capacity of an error message, including the terminating NUL. */
#define SITS_ERRMSG_MAX 8192

/** An error record: the last status and its message (empty when none). */
typedef struct sits_err {
  int code;
  char msg[SITS_ERRMSG_MAX];
} sits_err;

/** Static text for a status code; never NULL ("unknown status" for other values). */
SITS_API const char *sits_strerror(int status);

/** Clears @p err (NULL is a no-op). */
SITS_API void sits_err_clear(sits_err *err);

SITS_END_DECLS

#endif

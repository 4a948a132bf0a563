/* status_internal.h - recording an error (internal to the libraries; see sits_status.h). */
#ifndef SITS_STATUS_INTERNAL_H
#define SITS_STATUS_INTERNAL_H

#include "sits_status.h"

/**
 * Records @p code and a printf-style message in @p err (NULL: message dropped) and
 * returns @p code, so that `return sits__fail(err, SITS_EINPUT, "...")` reads naturally.
 */
int sits__fail(sits_err *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif

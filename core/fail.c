/* fail.c - recording an error (status_internal.h). Its own file so that the modules, which
 * cannot reach libsits' hidden functions, compile their own copy. */
#include "status_internal.h"

#include <stdarg.h>
#include <stdio.h>

int sits__fail(sits_err *err, int code, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->code = code;
  }
  return code;
}

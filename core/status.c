/* status.c - status texts and the error record (see sits_status.h). */
#include "sits_status.h"

const char *sits_strerror(int status) {
  switch (status) {
#define SITS_STATUS_CASE(name, value, text)                                                        \
  case value: return text;
    SITS_STATUS_MAP(SITS_STATUS_CASE)
#undef SITS_STATUS_CASE
  default: return "unknown status";
  }
}

void sits_err_clear(sits_err *err) {
  if (err) {
    err->code = SITS_OK;
    err->msg[0] = '\0';
  }
}

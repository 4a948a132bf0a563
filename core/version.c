/* version.c - the library's version (sits_version.h), set by the build. */
#include "sits_version.h"

#ifndef SITS_VERSION
#define SITS_VERSION "unknown"
#endif

const char *sits_version(void) {
  return SITS_VERSION;
}

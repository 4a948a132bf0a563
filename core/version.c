/* version.c - the library's version (sits_version.h), set by the build. */
#include "sits_version.h"

#include "git_hash.h" /* SITS_GIT_HASH, written at build time (cmake/git_hash.cmake) */

#ifndef SITS_VERSION
#define SITS_VERSION "unknown"
#endif

const char *sits_version(void) {
  return SITS_VERSION " (git " SITS_GIT_HASH ")";
}

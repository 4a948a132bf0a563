/* sits_version.h - the library's version. */
#ifndef SITS_VERSION_H
#define SITS_VERSION_H

#include "sits_export.h"

SITS_BEGIN_DECLS

/** The library's version ("0.1.0"); static text. */
SITS_API const char *sits_version(void);

SITS_END_DECLS

#endif

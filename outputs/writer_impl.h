/* writer_impl.h - helpers shared by the output writers (never installed). */
#ifndef SITS_WRITER_IMPL_H
#define SITS_WRITER_IMPL_H

#include <stdio.h>

#include "h5_internal.h"
#include "io_internal.h"
#include "json_internal.h"
#include "status_internal.h"

#endif

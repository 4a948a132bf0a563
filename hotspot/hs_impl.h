/* hs_impl.h - what the files of the HotSpot wing share (internal to hotspot/). */
#ifndef SITS_HS_IMPL_H
#define SITS_HS_IMPL_H

#include <stdbool.h>
#include <stdio.h>

#include "sits_hotspot.h"
#include "status_internal.h"
#include "text_internal.h"

/** The next line that is not blank or a comment, split into at most @p max tokens (in place).
 *  Returns the token count, 0 at the end, -1 on binary data (error set). */
int sits__hs_next_tokens(sits__lines *l, char **tok, int max, sits_err *err);
/** A whole finite number. */
bool sits__hs_number(const char *s, double *v);

#endif

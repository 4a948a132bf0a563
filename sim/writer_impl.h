/* writer_impl.h - helpers shared by the output writers (never installed). */
#ifndef SITS_WRITER_IMPL_H
#define SITS_WRITER_IMPL_H

#include <stdio.h>

#include "h5_impl.h"
#include "io_impl.h"
#include "status_impl.h"

/** JSON string with escapes. */
void sits__json_str(FILE *f, const char *s);
/** JSON number, or null when not finite. */
void sits__json_num(FILE *f, double v);

typedef struct sits_fit_metrics sits_fit_metrics;
/** The members of a fit-metrics object, without braces: "rmse_<u>", "mae_<u>",
 *  "max_abs_err_<u>", "bias_<u>" (u = @p unit, "v" or "c"), "r2", "n". */
void sits__json_metrics(FILE *f, const sits_fit_metrics *m, const char *unit);

#endif

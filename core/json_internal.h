/* json_internal.h - the JSON primitives shared by the library's writers (core/json.c; never
 * installed). */
#ifndef SITS_JSON_INTERNAL_H
#define SITS_JSON_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

/** JSON string with escapes. */
void sits__json_str(FILE *f, const char *s);
/** JSON string @p s as an object's key, the @p nth (0-based) use of that name in the object:
 *  "s" for the first, "s#2", "s#3"... after it (a column mapped twice keeps both entries). */
void sits__json_key_nth(FILE *f, const char *s, size_t nth);
/** JSON number, or null when not finite. */
void sits__json_num(FILE *f, double v);

typedef struct sits_fit_metrics sits_fit_metrics;
/** The members of a fit-metrics object, without braces: "rmse_<u>", "mae_<u>",
 *  "max_abs_err_<u>", "bias_<u>" (u = @p unit, "v" or "c"), "r2", "n". */
void sits__json_metrics(FILE *f, const sits_fit_metrics *m, const char *unit);

#endif

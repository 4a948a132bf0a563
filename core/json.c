/* json.c - the JSON primitives every writer of the library uses (json_internal.h): a string
 * with its escapes, a number (null when not finite), and a fit's metrics as members. */
#include "json_internal.h"

#include <math.h>
#include <stdio.h>

#include "sits_metrics.h"

void sits__json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

void sits__json_key_nth(FILE *f, const char *s, size_t nth) {
  if (nth == 0) {
    sits__json_str(f, s);
    return;
  }
  char key[320];
  snprintf(key, sizeof key, "%s#%zu", s, nth + 1);
  sits__json_str(f, key);
}

void sits__json_num(FILE *f, double v) {
  if (isfinite(v))
    fprintf(f, "%.10g", v);
  else
    fputs("null", f);
}

void sits__json_metrics(FILE *f, const sits_fit_metrics *m, const char *unit) {
  const char *key[] = {"rmse", "mae", "max_abs_err", "bias"};
  const double v[] = {m->rmse, m->mae, m->max_abs_err, m->bias};
  for (int k = 0; k < 4; k++) {
    fprintf(f, "%s\"%s_%s\":", k ? "," : "", key[k], unit);
    sits__json_num(f, v[k]);
  }
  fputs(",\"r2\":", f);
  sits__json_num(f, m->r2);
  fprintf(f, ",\"n\":%zu", m->n);
}

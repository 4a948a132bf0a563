/* json.c - the JSON primitives every writer of the library uses (json_internal.h): a string
 * with its escapes, a number (null when not finite), and a fit's metrics as members. */
#include "json_internal.h"

#include <math.h>
#include <stdio.h>

#include "sits_metrics.h"

/* The length of the well-formed UTF-8 sequence at @p s (1-4), or 0 when it is not one
 * (a stray continuation byte, a truncated or overlong sequence, a surrogate, above U+10FFFF):
 * JSON text is UTF-8, and a parser refuses a file with such bytes. */
static size_t utf8_len(const unsigned char *s) {
  unsigned char c = s[0];
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  for (size_t k = 1; k < n; k++)
    if ((s[k] >> 6) != 0x2)
      return 0;
  if ((n == 2 && c < 0xC2) || (n == 3 && c == 0xE0 && s[1] < 0xA0) ||
      (n == 3 && c == 0xED && s[1] >= 0xA0) || (n == 4 && c == 0xF0 && s[1] < 0x90) ||
      (n == 4 && (c > 0xF4 || (c == 0xF4 && s[1] >= 0x90))))
    return 0;
  return n;
}

void sits__json_str(FILE *f, const char *s) {
  fputc('"', f);
  while (*s) {
    unsigned char c = (unsigned char)*s;
    size_t n = utf8_len((const unsigned char *)s);
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else if (n == 0) /* not UTF-8 (a Latin-1 byte): the replacement character */
      fputs("\\ufffd", f);
    else
      fwrite(s, 1, n, f);
    s += n ? n : 1;
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

/*
 * lex.c - integer literals libconfig would wrap (config_internal.h).
 *
 * libconfig 1.5 (Debian 12) stores a decimal or hexadecimal integer without an `L` suffix in
 * 32 bits, silently: `c_j_per_k = 4294967298` reads as 2 and `99999999999999999999` as -1.
 * The loader finds such literals in every file it reads (outside strings and comments) before
 * libconfig does, and `--set` gives them the `L` that makes libconfig keep 64 bits, so every
 * number is read whole and then range-checked by its key.
 */
#include "config_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool name_char(char ch) {
  return isalnum((unsigned char)ch) || ch == '_' || ch == '*';
}

/* The literal at @p p (a digit): its length in @p len; true when it is an integer that does
 * not fit in 32 bits and has no `L` suffix. */
static bool wide_literal(const char *line, const char *p, size_t *len) {
  bool hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
  const char *q = p + (hex ? 2 : 0);
  while (hex ? isxdigit((unsigned char)*q) : isdigit((unsigned char)*q))
    q++;
  *len = (size_t)(q - p);
  if (!hex && (*q == '.' || *q == 'e' || *q == 'E'))
    return false; /* a float */
  if (*q == 'L' || *q == 'l')
    return false; /* 64 bits already */
  bool negative = p > line && p[-1] == '-';
  errno = 0;
  unsigned long long v = strtoull(p, NULL, hex ? 16 : 10);
  return errno == ERANGE || v > (negative ? 2147483648ull : 2147483647ull);
}

const char *sits__wide_integer(const char *line, bool *in_comment, size_t *len) {
  for (const char *p = line; *p; p++) {
    if (*in_comment) {
      if (p[0] == '*' && p[1] == '/')
        *in_comment = false, p++;
      continue;
    }
    if (p[0] == '#' || (p[0] == '/' && p[1] == '/'))
      return NULL;
    if (p[0] == '/' && p[1] == '*') {
      *in_comment = true, p++;
      continue;
    }
    if (*p == '"') { /* a string, with its escapes */
      for (p++; *p && *p != '"'; p++)
        if (*p == '\\' && p[1])
          p++;
      if (!*p)
        return NULL;
      continue;
    }
    if (!isdigit((unsigned char)*p))
      continue;
    const char *before = p;
    while (before > line && before[-1] == '-')
      before--; /* `a-1`: a name; `= -1`: a sign */
    bool exponent = p > line + 1 && p[-1] == '+' && (p[-2] == 'e' || p[-2] == 'E');
    if ((before > line && name_char(before[-1])) || (p > line && p[-1] == '.') || exponent) {
      while (name_char(p[1]) || p[1] == '.')
        p++; /* inside a name, or a float's digits */
      continue;
    }
    size_t n = 0;
    if (wide_literal(line, p, &n))
      return *len = n, p;
    p += n ? n - 1 : 0;
  }
  return NULL;
}

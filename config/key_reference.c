/*
 * key_reference.c - the key table as text: defaults and ranges in words, and the reference
 * that `sitsenergy keys` prints and the README carries (sits_config.h).
 */
#include "config_internal.h"
#include "status_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *sits_config_key_default(const sits_key *k, char *buf, size_t size) {
  if (k->dflt_text)
    snprintf(buf, size, "%s", k->dflt_text);
  else if (!isnan(k->dflt))
    snprintf(buf, size, "%g", k->dflt);
  else
    snprintf(buf, size, "-");
  return buf;
}

const char *sits_config_key_range(const sits_key *k, char *buf, size_t size) {
  const char *whole = k->flags & SITS_KEY_WHOLE ? "whole, " : "";
  bool lo = isfinite(k->lo), hi = isfinite(k->hi);
  bool lo_open = k->flags & SITS_KEY_LO_OPEN, hi_open = k->flags & SITS_KEY_HI_OPEN;
  if (lo && hi)
    snprintf(buf, size, "%s%c%g, %g%c", whole, lo_open ? '(' : '[', k->lo, k->hi,
             hi_open ? ')' : ']');
  else if (lo)
    snprintf(buf, size, "%s%s %g", whole, lo_open ? ">" : ">=", k->lo);
  else if (hi)
    snprintf(buf, size, "%s%s %g", whole, hi_open ? "<" : "<=", k->hi);
  else
    snprintf(buf, size, "%s", k->flags & SITS_KEY_WHOLE ? "whole" : "");
  return buf;
}

static const char *type_name(sits_key_type t) {
  static const char *const names[] = {"number", "bool",  "string", "group",
                                      "list",   "array", "map",    "name or group"};
  return (size_t)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

/* The section a key is listed under: its first component, "scenario" for top-level keys. */
static void section_of(const sits_key *k, char *out, size_t size) {
  const char *dot = strchr(k->path, '.');
  if (dot)
    snprintf(out, size, "%.*s", (int)(dot - k->path), k->path);
  else
    snprintf(out, size, "scenario");
}

static void write_markdown(FILE *f, const sits_key *keys, size_t n, const char *filter) {
  char section[64] = "", sec[64], dflt[128], range[96];
  for (size_t i = 0; i < n; i++) {
    const sits_key *k = &keys[i];
    if (filter && !strstr(k->path, filter))
      continue;
    section_of(k, sec, sizeof sec);
    if (strcmp(sec, section) != 0) {
      snprintf(section, sizeof section, "%s", sec);
      fprintf(f,
              "%s#### `%s`\n\n| key | type | unit | default | range | what it is |\n"
              "|---|---|---|---|---|---|\n",
              i ? "\n" : "", section);
    }
    fprintf(f, "| `%s` | %s%s | %s | %s | %s | ", k->path, type_name(k->type),
            k->flags & SITS_KEY_REQUIRED ? ", required" : "", *k->unit ? k->unit : "",
            sits_config_key_default(k, dflt, sizeof dflt),
            sits_config_key_range(k, range, sizeof range));
    for (const char *c = k->help; *c; c++) /* a | would end the cell */
      fputs(*c == '|' ? "\\|" : (char[]){*c, 0}, f);
    fputs(" |\n", f);
  }
}

static void write_text(FILE *f, const sits_key *keys, size_t n, const char *filter) {
  char dflt[128], range[96];
  for (size_t i = 0; i < n; i++) {
    const sits_key *k = &keys[i];
    if (filter && !strstr(k->path, filter))
      continue;
    fprintf(f, "%s  [%s%s%s%s] default %s%s%s\n    %s; sets %s\n", k->path, type_name(k->type),
            *k->unit ? ", " : "", k->unit, k->flags & SITS_KEY_REQUIRED ? ", required" : "",
            sits_config_key_default(k, dflt, sizeof dflt),
            *sits_config_key_range(k, range, sizeof range) ? ", range " : "", range, k->help,
            k->lands);
  }
}

int sits_config_write_keys(FILE *f, const char *format, const char *filter, sits_err *err) {
  size_t n;
  const sits_key *keys = sits__key_table(&n);
  if (format && strcmp(format, "markdown") == 0)
    write_markdown(f, keys, n, filter);
  else if (!format || strcmp(format, "text") == 0)
    write_text(f, keys, n, filter);
  else
    return sits__fail(err, SITS_EINPUT, "--format must be text or markdown (got '%s')", format);
  return ferror(f) ? sits__fail(err, SITS_EIO, "writing the key reference failed") : SITS_OK;
}

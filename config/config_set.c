/*
 * config_set.c - `--set KEY=VALUE` overrides on the merged configuration.
 *
 * KEY is a libconfig path (`platform.thermal.links.[2].r_k_per_w`); VALUE is parsed as a
 * libconfig value (`35`, `1.5e-3`, `"text"`, `true`, `[1, 2]`); a bare word that does not
 * parse is taken as a string, so `--set platform=jetson_orin_nx` works unquoted. Missing
 * groups along the path are created; the result is checked like any config afterwards.
 */
#define _POSIX_C_SOURCE 200809L
#include "config_internal.h"
#include "status_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "v = VALUE;" with an `L` after each integer literal outside 32 bits, which libconfig would
 * otherwise wrap (lex.c): such a value is read whole, then range-checked by its key. */
static char *value_text(const char *value) {
  size_t len = 2 * strlen(value) + 16;
  char *text = malloc(len), *out = text;
  if (!text)
    return NULL;
  out += sprintf(out, "v = ");
  bool in_comment = false;
  const char *p = value, *wide;
  size_t n = 0;
  while ((wide = sits__wide_integer(p, &in_comment, &n)) != NULL) {
    bool hex = wide[1] == 'x' || wide[1] == 'X'; /* beyond 64 bits too: a float */
    errno = 0;
    (void)strtoll(wide > value && wide[-1] == '-' ? wide - 1 : wide, NULL, hex ? 16 : 10);
    out += sprintf(out, "%.*s%s", (int)(wide + n - p), p, errno == ERANGE && !hex ? ".0" : "L");
    p = wide + n;
  }
  sprintf(out, "%s;", p);
  return text;
}

static int parse_value(config_t *tmp, const char *value) {
  char *text = value_text(value);
  if (!text)
    return -1;
  int ok = config_read_string(tmp, text) == CONFIG_TRUE;
  free(text);
  if (ok) /* more than the one value ("45 ; platform = x"): not silently dropped */
    return config_setting_length(config_root_setting(tmp)) == 1 ? 0 : -2;
  /* a bare word: a string */
  config_destroy(tmp);
  config_init(tmp);
  config_setting_t *v = config_setting_add(config_root_setting(tmp), "v", CONFIG_TYPE_STRING);
  return v && config_setting_set_string(v, value) == CONFIG_TRUE ? 0 : -1;
}

/* "[N]": a list or array index. */
static int parse_index(const char *part, unsigned *index) {
  size_t len = strlen(part);
  if (len < 3 || part[0] != '[' || part[len - 1] != ']' ||
      strspn(part + 1, "0123456789") != len - 2)
    return 0;
  *index = (unsigned)strtoul(part + 1, NULL, 10);
  return 1;
}

/* Each dotted component is a name ([A-Za-z*][-A-Za-z0-9_*]*) or an index [N]. */
static int valid_path(const char *key) {
  char copy[1024], *save = NULL;
  unsigned index;
  if (!*key || key[0] == '.' || key[strlen(key) - 1] == '.' || strstr(key, "..") ||
      strlen(key) >= sizeof copy)
    return 0;
  snprintf(copy, sizeof copy, "%s", key);
  for (char *part = strtok_r(copy, ".", &save); part; part = strtok_r(NULL, ".", &save)) {
    if (part[0] == '[') {
      if (!parse_index(part, &index))
        return 0;
    } else if (!(((part[0] | 32) >= 'a' && (part[0] | 32) <= 'z') || part[0] == '*') ||
               strspn(part, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-*") !=
                   strlen(part)) {
      return 0;
    }
  }
  return 1;
}

/* The group that will hold the last path component, created where missing. */
static config_setting_t *parent_group(config_t *cfg, char *path, const char *origin,
                                      const char **leaf) {
  config_setting_t *parent = config_root_setting(cfg);
  char *dot = strrchr(path, '.');
  if (!dot) {
    *leaf = path;
    return parent;
  }
  *dot = '\0';
  *leaf = dot + 1;
  char *save = NULL;
  for (char *part = strtok_r(path, ".", &save); part; part = strtok_r(NULL, ".", &save)) {
    config_setting_t *next = NULL;
    unsigned index;
    if (parse_index(part, &index)) {
      next = config_setting_get_elem(parent, index);
    } else if (config_setting_is_group(parent)) {
      next = config_setting_get_member(parent, part);
      if (!next) {
        next = config_setting_add(parent, part, CONFIG_TYPE_GROUP);
        if (next)
          next->file = origin;
      }
    }
    if (!next)
      return NULL;
    parent = next;
  }
  return parent;
}

static void mark_origin(config_setting_t *s, const char *origin) {
  s->file = origin;
  s->line = 0;
  for (int i = 0; config_setting_is_aggregate(s) && i < config_setting_length(s); i++)
    mark_origin(config_setting_get_elem(s, (unsigned)i), origin);
}

static int replace_elem(config_setting_t *parent, unsigned index, const config_setting_t *v,
                        const char *set, sits_err *err) {
  config_setting_t *old = config_setting_get_elem(parent, index);
  if (!old)
    return sits__fail(err, SITS_EINPUT, "--set %s: no element [%u] there", set, index);
  if (!config_setting_is_array(parent) || !config_setting_is_number(v))
    return sits__fail(err, SITS_EINPUT,
                      "--set %s: only numbers in an array can be replaced by index; set the "
                      "members of a list element instead",
                      set);
  double d = config_setting_get_float(v);
  int ok = config_setting_type(old) == CONFIG_TYPE_FLOAT
               ? config_setting_set_float(old, d)
               : config_setting_set_int64(old, (long long)config_setting_get_int64(v));
  return ok ? SITS_OK : sits__fail(err, SITS_EINPUT, "--set %s: wrong value type", set);
}

static int apply(sits__config *c, char *key, config_setting_t *v, const char *set,
                 const char *origin, sits_err *err) {
  const char *leaf = NULL;
  char path[1024];
  snprintf(path, sizeof path, "%s", key);
  config_setting_t *parent = parent_group(&c->cfg, path, origin, &leaf);
  if (!parent)
    return sits__fail(err, SITS_EINPUT, "--set %s: the path '%s' does not exist", set, key);
  unsigned index;
  if (parse_index(leaf, &index))
    return replace_elem(parent, index, v, set, err);
  if (!config_setting_is_group(parent))
    return sits__fail(err, SITS_EINPUT, "--set %s: '%s' is not inside a group", set, key);
  if (config_setting_get_member(parent, leaf))
    config_setting_remove(parent, leaf);
  config_setting_t *added = sits__config_copy(c, parent, leaf, v);
  if (!added)
    return sits__fail(err, SITS_EINPUT, "--set %s: '%s' is not a valid key name", set, leaf);
  mark_origin(added, origin);
  return SITS_OK;
}

int sits__config_apply_set(sits__config *c, const char *set, sits_err *err) {
  const char *eq = strchr(set, '=');
  if (!eq || eq == set)
    return sits__fail(err, SITS_EINPUT, "--set '%s': expected KEY=VALUE", set);
  char key[1024];
  size_t klen = (size_t)(eq - set);
  if (klen >= sizeof key)
    return sits__fail(err, SITS_EINPUT, "--set '%s': key too long", set);
  memcpy(key, set, klen);
  key[klen] = '\0';
  if (!valid_path(key))
    return sits__fail(err, SITS_EINPUT, "--set '%s': '%s' is not a config path", set, key);
  if (!eq[1])
    return sits__fail(err, SITS_EINPUT, "--set '%s': the value is empty", set);
  char origin_text[1100];
  snprintf(origin_text, sizeof origin_text, "--set %s", set);
  const char *origin = sits__config_intern(c, origin_text);
  config_t tmp;
  config_init(&tmp);
  config_set_options(&tmp, CONFIG_OPTION_AUTOCONVERT);
  int parsed = origin ? parse_value(&tmp, eq + 1) : -1;
  int rc =
      parsed == -2
          ? sits__fail(err, SITS_EINPUT,
                       "--set '%s': the value holds more than one setting (one --set per key)", set)
      : parsed ? sits__fail(err, SITS_ENOMEM, "out of memory")
               : apply(c, key, config_lookup(&tmp, "v"), set, origin, err);
  config_destroy(&tmp);
  return rc;
}

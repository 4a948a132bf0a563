/*
 * tree.c - the merged configuration tree's primitives that loading, --set, the key check and
 * the readers share: kept strings, where a setting comes from, deep copies that keep their
 * file:line, errors prefixed with a setting's location, and setting a number in place.
 */
#define _POSIX_C_SOURCE 200809L
#include "config_internal.h"
#include "status_internal.h"

#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>

const char *sits__config_intern(sits__config *c, const char *s) {
  if (c->n_strings == c->cap_strings) {
    size_t cap = c->cap_strings ? 2 * c->cap_strings : 16;
    char **p = realloc(c->strings, cap * sizeof *p);
    if (!p)
      return NULL;
    c->strings = p;
    c->cap_strings = cap;
  }
  char *copy = strdup(s);
  if (copy)
    c->strings[c->n_strings++] = copy;
  return copy;
}

const char *sits__where(const config_setting_t *s, char *buf, size_t size) {
  const char *file = s ? config_setting_source_file(s) : NULL;
  unsigned line = s ? config_setting_source_line(s) : 0;
  const config_setting_t *root = s;
  while (!file && line && root->parent)
    root = root->parent;
  if (!file && line && config_setting_get_hook(root))
    file = config_setting_get_hook(root); /* a scenario loaded from a text: its name */
  if (!file)
    file = "<config>";
  if (line)
    snprintf(buf, size, "%s:%u", file, line);
  else
    snprintf(buf, size, "%s", file);
  return buf;
}

bool sits__is_stream_path(const char *path) {
  return strcmp(path, "/dev/stdin") == 0 || strncmp(path, "/dev/fd/", 8) == 0 ||
         strncmp(path, "/proc/self/fd/", 14) == 0;
}

const char *sits__setting_dir(const config_setting_t *s, char *buf, size_t size) {
  const char *file = s ? config_setting_source_file(s) : NULL;
  if (!file || config_setting_source_line(s) == 0 || sits__is_stream_path(file)) {
    /* --set values and a scenario read from the standard input or a pipe: the working folder */
    snprintf(buf, size, ".");
    return buf;
  }
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s", file);
  snprintf(buf, size, "%s", dirname(tmp));
  return buf;
}

int sits__fail_at(sits_err *err, int code, const config_setting_t *s, const char *fmt, ...) {
  char where[4200], msg[SITS_ERRMSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return sits__fail(err, code, "%s: %s", sits__where(s, where, sizeof where), msg);
}

/* The member of group @p g that a model's message @p msg is about: the first whose name the
 * message holds as a word ("r_k_per_w must be > 0"), so that the error points at that key's
 * own line, or at the --set that gave it; NULL when none is named. */
static const config_setting_t *named_member(const config_setting_t *g, const char *msg) {
  for (int i = 0; g && config_setting_is_group(g) && i < config_setting_length(g); i++) {
    const config_setting_t *m = config_setting_get_elem(g, (unsigned)i);
    const char *name = config_setting_name(m);
    size_t n = name ? strlen(name) : 0;
    for (const char *p = n ? strstr(msg, name) : NULL; p; p = strstr(p + 1, name)) {
      bool start = p == msg || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
      bool end = !(isalnum((unsigned char)p[n]) || p[n] == '_');
      if (start && end)
        return m;
    }
  }
  return NULL;
}

int sits__at(const config_setting_t *s, int rc, sits_err *err) {
  char msg[SITS_ERRMSG_MAX];
  snprintf(msg, sizeof msg, "%s", err->msg);
  const config_setting_t *m = named_member(s, msg);
  return sits__fail_at(err, rc, m ? m : s, "%s", msg);
}

static void set_origin(config_setting_t *dst, const config_setting_t *src, const char *file) {
  dst->line = src->line;
  dst->file = file;
}

static config_setting_t *copy_into(sits__config *c, config_setting_t *parent, const char *name,
                                   const config_setting_t *src, const char *file) {
  int type = config_setting_type(src);
  config_setting_t *dst = config_setting_add(parent, name, type);
  if (!dst)
    return NULL;
  set_origin(dst, src, file);
  switch (type) {
  case CONFIG_TYPE_INT: config_setting_set_int(dst, config_setting_get_int(src)); break;
  case CONFIG_TYPE_INT64: config_setting_set_int64(dst, config_setting_get_int64(src)); break;
  case CONFIG_TYPE_FLOAT: config_setting_set_float(dst, config_setting_get_float(src)); break;
  case CONFIG_TYPE_BOOL: config_setting_set_bool(dst, config_setting_get_bool(src)); break;
  case CONFIG_TYPE_STRING: config_setting_set_string(dst, config_setting_get_string(src)); break;
  default: /* group, list, array */
    for (int i = 0; i < config_setting_length(src); i++) {
      const config_setting_t *e = config_setting_get_elem(src, (unsigned)i);
      const char *ename = type == CONFIG_TYPE_GROUP ? config_setting_name(e) : NULL;
      if (!copy_into(c, dst, ename, e, file))
        return NULL;
    }
  }
  return dst;
}

config_setting_t *sits__config_copy(sits__config *c, config_setting_t *parent, const char *name,
                                    const config_setting_t *src) {
  const char *file = src->file ? sits__config_intern(c, src->file) : NULL;
  return copy_into(c, parent, name, src, file);
}

int sits__config_set_number(sits__config *c, const char *path, double value) {
  config_setting_t *s = config_lookup(&c->cfg, path);
  const char *dot = strrchr(path, '.');
  const char *name = dot ? dot + 1 : path;
  if (!s) { /* a member not given: added to its group */
    char parent_path[512];
    snprintf(parent_path, sizeof parent_path, "%.*s", dot ? (int)(dot - path) : 0, path);
    config_setting_t *g = dot ? config_lookup(&c->cfg, parent_path) : config_root_setting(&c->cfg);
    s = g && config_setting_is_group(g) ? config_setting_add(g, name, CONFIG_TYPE_FLOAT) : NULL;
  }
  config_setting_t *arr = s ? config_setting_parent(s) : NULL;
  if (s && arr && config_setting_is_array(arr) && config_setting_type(s) != CONFIG_TYPE_FLOAT) {
    /* an element of an array of integers: the array made one of floats (arrays are of one
     * type) */
    int n = config_setting_length(arr), at = config_setting_index(s);
    double v[256];
    if (n > 256)
      return -1;
    for (int k = 0; k < n; k++) {
      const config_setting_t *e = config_setting_get_elem(arr, (unsigned)k);
      v[k] = config_setting_type(e) == CONFIG_TYPE_FLOAT ? config_setting_get_float(e)
                                                         : (double)config_setting_get_int64(e);
    }
    v[at] = value;
    while (config_setting_length(arr) > 0)
      config_setting_remove_elem(arr, 0);
    for (int k = 0; k < n; k++)
      if (!config_setting_set_float_elem(arr, -1, v[k]))
        return -1;
    return 0;
  }
  if (s && config_setting_type(s) != CONFIG_TYPE_FLOAT) { /* an integer: made a float */
    config_setting_t *parent = config_setting_parent(s);
    char nm[128];
    snprintf(nm, sizeof nm, "%s", name);
    config_setting_remove(parent, nm);
    s = config_setting_add(parent, nm, CONFIG_TYPE_FLOAT);
  }
  return s && config_setting_set_float(s, value) == CONFIG_TRUE ? 0 : -1;
}

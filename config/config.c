/*
 * config.c - loading and merging scenario, platform and workload files (libconfig).
 *
 * The scenario may name its platform (`platform = "NAME"`) and its workload
 * (`workload_profile = "NAME"`); both files are read and their groups copied into the
 * scenario tree, so the tree is the complete merged configuration that `--set` paths
 * address and that outputs store.
 */
#define _POSIX_C_SOURCE 200809L
#include "config_impl.h"
#include "status_impl.h"

#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef SITS_SOURCE_CONFIG_DIR
#define SITS_SOURCE_CONFIG_DIR ""
#endif
#ifndef SITS_INSTALL_CONFIG_DIR
#define SITS_INSTALL_CONFIG_DIR ""
#endif

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
  if (!file)
    file = "<config>";
  if (line)
    snprintf(buf, size, "%s:%u", file, line);
  else
    snprintf(buf, size, "%s", file);
  return buf;
}

const char *sits__setting_dir(const config_setting_t *s, char *buf, size_t size) {
  const char *file = s ? config_setting_source_file(s) : NULL;
  if (!file || config_setting_source_line(s) == 0) { /* --set values: the working dir */
    snprintf(buf, size, ".");
    return buf;
  }
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s", file);
  snprintf(buf, size, "%s", dirname(tmp));
  return buf;
}

int sits__fail_at(sits_err *err, int code, const config_setting_t *s, const char *fmt, ...) {
  char where[512], msg[SITS_ERRMSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return sits__fail(err, code, "%s: %s", sits__where(s, where, sizeof where), msg);
}

int sits__at(const config_setting_t *s, int rc, sits_err *err) {
  char msg[SITS_ERRMSG_MAX];
  snprintf(msg, sizeof msg, "%s", err->msg);
  return sits__fail_at(err, rc, s, "%s", msg);
}

static int is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int try_root(const char *root, const char *kind, const char *name, char *out, size_t size) {
  if (!root || !*root)
    return 0;
  snprintf(out, size, "%s/%s/%s.cfg", root, kind, name);
  return is_file(out);
}

int sits__find_config(const char *kind, const char *name, const char *base_dir, char *out,
                      size_t size) {
  size_t len = strlen(name);
  if (strchr(name, '/') || (len > 4 && strcmp(name + len - 4, ".cfg") == 0)) {
    if (name[0] == '/')
      snprintf(out, size, "%s", name);
    else
      snprintf(out, size, "%s/%s", base_dir, name);
    return is_file(out);
  }
  const char *env = getenv("SITS_CONFIG_PATH");
  if (env) {
    char roots[4096];
    snprintf(roots, sizeof roots, "%s", env);
    char *save = NULL;
    for (char *r = strtok_r(roots, ":", &save); r; r = strtok_r(NULL, ":", &save))
      if (try_root(r, kind, name, out, size))
        return 1;
  }
  char up[4096];
  snprintf(up, sizeof up, "%s/..", base_dir);
  return try_root(base_dir, kind, name, out, size) || try_root(up, kind, name, out, size) ||
         try_root(SITS_SOURCE_CONFIG_DIR, kind, name, out, size) ||
         try_root(SITS_INSTALL_CONFIG_DIR, kind, name, out, size);
}

static int read_file(config_t *cfg, const char *path, sits_err *err) {
  config_init(cfg);
  config_set_options(cfg, CONFIG_OPTION_AUTOCONVERT);
  char dir[4096], tmp[4096];
  snprintf(tmp, sizeof tmp, "%s", path);
  snprintf(dir, sizeof dir, "%s", dirname(tmp));
  config_set_include_dir(cfg, dir);
  if (config_read_file(cfg, path) == CONFIG_TRUE)
    return SITS_OK;
  if (config_error_type(cfg) == CONFIG_ERR_FILE_IO)
    return sits__fail(err, SITS_EINPUT, "%s: cannot read the file", path);
  return sits__fail(err, SITS_EINPUT, "%s:%d: %s",
                    config_error_file(cfg) ? config_error_file(cfg) : path, config_error_line(cfg),
                    config_error_text(cfg));
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

/*
 * Replaces the string member @p key of the root (a name) with group @p group read from
 * the file it names. @p kind is the configs/ sub-folder searched.
 */
static int merge_named(sits__config *c, config_setting_t *root, const char *key, const char *kind,
                       const char *group, sits_err *err) {
  config_setting_t *s = root ? config_setting_get_member(root, key) : NULL;
  char where[512], dir[4096], path[4096];
  if (!s || config_setting_type(s) != CONFIG_TYPE_STRING)
    return SITS_OK;
  if (strcmp(key, group) != 0 && config_setting_get_member(root, group))
    return sits__fail(err, SITS_EINPUT, "%s: give either '%s' or '%s', not both",
                      sits__where(s, where, sizeof where), key, group);
  const char *name = config_setting_get_string(s);
  sits__where(s, where, sizeof where);
  sits__setting_dir(s, dir, sizeof dir);
  if (config_setting_source_line(s) == 0) { /* from --set: a bare name is also looked for */
    char tmp[4096];                         /* around the scenario file */
    snprintf(tmp, sizeof tmp, "%s", c->scenario_path);
    if (!sits__find_config(kind, name, dir, path, sizeof path))
      snprintf(dir, sizeof dir, "%s", dirname(tmp));
  }
  if (!sits__find_config(kind, name, dir, path, sizeof path))
    return sits__fail(err, SITS_EINPUT,
                      "%s: %s '%s' not found (looked for %s/%s.cfg under the scenario's "
                      "folder, $SITS_CONFIG_PATH and the shipped configs)",
                      where, key, name, kind, name);
  config_t other;
  int rc = read_file(&other, path, err);
  if (rc == SITS_OK) {
    config_setting_t *g = config_lookup(&other, group);
    if (!g || !config_setting_is_group(g))
      rc = sits__fail(err, SITS_EINPUT, "%s: no '%s' group in the file", path, group);
    else {
      const char *name_copy = sits__config_intern(c, name);
      config_setting_t *merged = root;
      if (strcmp(key, group) == 0)
        config_setting_remove(root, key);
      merged = sits__config_copy(c, root, group, g);
      if (!merged || !name_copy)
        rc = sits__fail(err, SITS_ENOMEM, "out of memory");
    }
  }
  config_destroy(&other);
  return rc;
}

/* Overrides of the names that pick other files apply before those files are merged: the
 * platform and workload names first (phase 0), a battery named inside the platform after the
 * platform's merge (phase 1), every other key on the merged tree (phase 2). */
static int set_phase(const char *set) {
  if (strncmp(set, "platform=", 9) == 0 || strncmp(set, "workload_profile=", 17) == 0)
    return 0;
  return strncmp(set, "platform.battery=", 17) == 0 ? 1 : 2;
}

static int apply_sets(sits__config *c, const char *const *sets, size_t n, int phase,
                      sits_err *err) {
  for (size_t i = 0; i < n; i++) {
    if (set_phase(sets[i]) != phase)
      continue;
    int rc = sits__config_apply_set(c, sets[i], err);
    if (rc)
      return rc;
  }
  return SITS_OK;
}

int sits__config_load(sits__config *c, const char *path, const char *const *sets, size_t n_sets,
                      sits_err *err) {
  memset(c, 0, sizeof *c);
  c->scenario_path = strdup(path);
  if (!c->scenario_path)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  int rc = read_file(&c->cfg, path, err);
  if (rc)
    return rc;
  if ((rc = apply_sets(c, sets, n_sets, 0, err)) ||
      (rc = merge_named(c, config_root_setting(&c->cfg), "platform", "platforms", "platform",
                        err)) ||
      (rc = apply_sets(c, sets, n_sets, 1, err)) ||
      (rc = merge_named(c, config_lookup(&c->cfg, "platform"), "battery", "batteries", "battery",
                        err)) ||
      (rc = merge_named(c, config_root_setting(&c->cfg), "workload_profile", "workloads",
                        "workload", err)) ||
      (rc = apply_sets(c, sets, n_sets, 2, err)))
    return rc;
  return sits__config_check_keys(c, err);
}

void sits__config_release(sits__config *c) {
  if (c->scenario_path)
    config_destroy(&c->cfg);
  for (size_t i = 0; i < c->n_strings; i++)
    free(c->strings[i]);
  free(c->strings);
  free(c->scenario_path);
  memset(c, 0, sizeof *c);
}

char *sits__config_text(const sits__config *c) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f)
    return NULL;
  config_write(&c->cfg, f);
  fclose(f);
  return buf;
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
  if (s && config_setting_type(s) != CONFIG_TYPE_FLOAT) { /* an integer: made a float */
    config_setting_t *parent = config_setting_parent(s);
    char nm[128];
    snprintf(nm, sizeof nm, "%s", name);
    config_setting_remove(parent, nm);
    s = config_setting_add(parent, nm, CONFIG_TYPE_FLOAT);
  }
  return s && config_setting_set_float(s, value) == CONFIG_TRUE ? 0 : -1;
}

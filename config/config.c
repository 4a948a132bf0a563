/*
 * config.c - loading and merging scenario, platform and workload files (libconfig).
 *
 * The scenario may name its platform (`platform = "NAME"`) and its workload
 * (`workload_profile = "NAME"`); both files are read and their groups copied into the
 * scenario tree, so the tree is the complete merged configuration that `--set` paths
 * address and that outputs store.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "config_internal.h"
#include "module_internal.h"
#include "status_internal.h"
#include "text_internal.h"

#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <limits.h>
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
  if (try_root(base_dir, kind, name, out, size) || try_root(up, kind, name, out, size))
    return 1;
  /* the shipped configs: the source tree's for a library still in the build tree, else the
   * ones installed relative to the library (then the configured install folder) */
  char lib[4096], shipped[4300];
  if (sits__library_dir(lib, sizeof lib) == 0) {
    if (strcmp(lib, SITS_BUILD_LIB_DIR) == 0)
      return try_root(SITS_SOURCE_CONFIG_DIR, kind, name, out, size);
    snprintf(shipped, sizeof shipped, "%s/%s", lib, SITS_LIB_TO_CONFIGS);
    if (try_root(shipped, kind, name, out, size))
      return 1;
  }
  return try_root(SITS_INSTALL_CONFIG_DIR, kind, name, out, size);
}

static int add_input(sits__config *c, const char *path, sits_err *err);

#define MAX_INCLUDE_DEPTH 10 /* libconfig's own limit */

/* The file name of an `@include "NAME"` line (libconfig reads one only at a line's start), in
 * @p name; 0 when the line is not an include, -1 when it is one without a quoted name. */
static int include_name(const char *line, char *name, size_t size) {
  while (*line == ' ' || *line == '\t')
    line++;
  if (strncmp(line, "@include", 8) != 0)
    return 0;
  line += 8;
  while (*line == ' ' || *line == '\t')
    line++;
  const char *end = *line == '"' ? strchr(line + 1, '"') : NULL;
  if (!end || (size_t)(end - line - 1) >= size)
    return -1;
  snprintf(name, size, "%.*s", (int)(end - line - 1), line + 1);
  return 1;
}

static int scan_includes(sits__config *c, sits__lines *L, const char *dir, int depth,
                         sits_err *err);

/* Checks the file an include names (libconfig opens it relative to @p dir, the including
 * scenario's folder, at every depth) before libconfig does: a folder, a FIFO, a device or an
 * empty name ends libconfig's scanner with exit(2), a FIFO without a writer blocks it. Each
 * included file is an input (protected as an output target) and is scanned in turn. */
static int check_include(sits__config *c, const sits__lines *L, const char *name, const char *dir,
                         int depth, sits_err *err) {
  char path[8200], real[PATH_MAX];
  struct stat st;
  if (!*name)
    return sits__fail(err, SITS_EINPUT, "%s:%zu: @include names no file", L->path, L->lineno);
  if (depth >= MAX_INCLUDE_DEPTH)
    return sits__fail(err, SITS_EINPUT,
                      "%s:%zu: @include \"%s\": includes nest deeper than %d "
                      "(a file that includes itself?)",
                      L->path, L->lineno, name, MAX_INCLUDE_DEPTH);
  snprintf(path, sizeof path, "%s%s%s", name[0] == '/' ? "" : dir, name[0] == '/' ? "" : "/", name);
  if (stat(path, &st) != 0)
    return sits__fail(err, SITS_EINPUT, "%s:%zu: @include \"%s\": cannot read %s: %s", L->path,
                      L->lineno, name, path, strerror(errno));
  if (!S_ISREG(st.st_mode))
    return sits__fail(err, SITS_EINPUT, "%s:%zu: @include \"%s\": %s is %s, not a regular file",
                      L->path, L->lineno, name, path,
                      S_ISDIR(st.st_mode)    ? "a folder"
                      : S_ISFIFO(st.st_mode) ? "a FIFO"
                                             : "a device or socket");
  sits__lines inner;
  int rc = sits__lines_open(&inner, path, err);
  if (rc == SITS_OK)
    rc = add_input(c, realpath(path, real) ? real : path, err);
  if (rc == SITS_OK)
    rc = scan_includes(c, &inner, dir, depth + 1, err);
  sits__lines_close(&inner);
  return rc;
}

/* Each line of @p L: its include checked, its integer literals too (sits__wide_integer).
 * A line that is not text (binary data, UTF-16, over 1 MiB), in the named file or one it
 * includes, is refused here with its own file and line: libconfig's file reader rescans a
 * token at every 8-KiB refill, quadratic in a long line's length (2 MB: 1.6 s, 4 MB: 6.4 s),
 * and reports an included file's error at the include. */
static int scan_includes(sits__config *c, sits__lines *L, const char *dir, int depth,
                         sits_err *err) {
  bool binary, in_comment = false;
  char name[4096];
  for (char *line; (line = sits__lines_next(L, &binary)) != NULL;) {
    if (binary)
      return sits__fail(err, SITS_EINPUT, "%s:%zu: %s", L->path, L->lineno, L->reason);
    int kind = in_comment ? 0 : include_name(line, name, sizeof name);
    if (kind < 0)
      return sits__fail(err, SITS_EINPUT, "%s:%zu: @include needs a quoted file name", L->path,
                        L->lineno);
    if (kind > 0) {
      int rc = check_include(c, L, name, dir, depth, err);
      if (rc)
        return rc;
      continue;
    }
    size_t n = 0; /* block comments hide includes and numbers from libconfig */
    const char *wide = sits__wide_integer(line, &in_comment, &n);
    bool hex = wide && (wide[1] == 'x' || wide[1] == 'X');
    if (wide)
      return sits__fail(err, SITS_EINPUT,
                        "%s:%zu: the integer %.*s does not fit in 32 bits, which libconfig would "
                        "wrap silently: write %.*s%s%.*sL (a 64-bit integer)",
                        L->path, L->lineno, (int)n, wide, hex ? 0 : (int)n, wide,
                        hex ? "" : ".0 (a number) or ", (int)n, wide);
  }
  return SITS_OK;
}

/* The includes of the file at @p path (or of @p text, named @p path), resolved in @p dir. */
static int check_includes(sits__config *c, const char *path, const char *text, const char *dir,
                          sits_err *err) {
  sits__lines L = {.path = path};
  struct stat st;
  if (text)
    L.fp = fmemopen((void *)text, strlen(text), "r");
  else if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
    return SITS_OK; /* the standard input or a pipe: read once, by libconfig */
  else if (sits__lines_open(&L, path, err) != SITS_OK)
    return SITS_OK; /* libconfig reports why it cannot read the file */
  if (!L.fp)
    return SITS_OK;
  int rc = scan_includes(c, &L, dir, 0, err);
  sits__lines_close(&L);
  return rc;
}

static int read_file(sits__config *c, config_t *cfg, const char *path, const char *text,
                     sits_err *err) {
  config_init(cfg);
  config_set_options(cfg, CONFIG_OPTION_AUTOCONVERT);
  if (text) { /* a string: its includes and file names from the working folder */
    config_set_include_dir(cfg, ".");
    int rc = check_includes(c, path, text, ".", err);
    if (rc)
      return rc;
    if (config_read_string(cfg, text) == CONFIG_TRUE)
      return SITS_OK;
    return sits__fail(err, SITS_EINPUT, "%s:%d: %s",
                      config_error_file(cfg) ? config_error_file(cfg) : path,
                      config_error_line(cfg), config_error_text(cfg));
  }
  char dir[4096], tmp[4096];
  snprintf(tmp, sizeof tmp, "%s", path);
  snprintf(dir, sizeof dir, "%s", !sits__is_stream_path(path) ? dirname(tmp) : ".");
  config_set_include_dir(cfg, dir); /* a stream's includes: the working folder */
  int rc = check_includes(c, path, NULL, dir, err);
  if (rc)
    return rc;
  if (config_read_file(cfg, path) == CONFIG_TRUE)
    return SITS_OK;
  if (config_error_type(cfg) == CONFIG_ERR_FILE_IO)
    return sits__fail(err, SITS_EINPUT, "%s: cannot read the file", path);
  return sits__fail(err, SITS_EINPUT, "%s:%d: %s",
                    config_error_file(cfg) ? config_error_file(cfg) : path, config_error_line(cfg),
                    config_error_text(cfg));
}

/*
 * Replaces the string member @p key of the root (a name) with group @p group read from
 * the file it names. @p kind is the configs/ sub-folder searched.
 */
static int merge_named(sits__config *c, config_setting_t *root, const char *key, const char *kind,
                       const char *group, sits_err *err) {
  config_setting_t *s = root ? config_setting_get_member(root, key) : NULL;
  char where[4200], dir[4096], path[4096];
  if (!s || config_setting_type(s) != CONFIG_TYPE_STRING)
    return SITS_OK;
  if (strcmp(key, group) != 0 && config_setting_get_member(root, group))
    return sits__fail(err, SITS_EINPUT, "%s: give either '%s' or '%s', not both",
                      sits__where(s, where, sizeof where), key, group);
  const char *name = config_setting_get_string(s);
  sits__where(s, where, sizeof where);
  if (c->default_battery && strcmp(key, "battery") == 0 && !config_setting_source_file(s)) {
    /* the pack battery_default gave (default_battery): its place is that key's */
    const config_setting_t *bd =
        config_setting_get_member(config_root_setting(&c->cfg), "battery_default");
    char at[4096];
    const config_setting_t *wh =
        config_setting_get_member(config_root_setting(&c->cfg), "battery_capacity_wh");
    if (bd && config_setting_source_line(bd) > 0)
      snprintf(where, sizeof where, "%s: battery_default", sits__where(bd, at, sizeof at));
    else if (bd)
      snprintf(where, sizeof where, "--set battery_default");
    else /* the shipped default pack, given for battery_capacity_wh */
      snprintf(where, sizeof where, "%s: battery_capacity_wh (the default battery_default)",
               sits__where(wh, at, sizeof at));
  }
  sits__setting_dir(s, dir, sizeof dir);
  if (config_setting_source_line(s) == 0) { /* from --set: a bare name is also looked for */
    char tmp[4096];                         /* around the scenario file */
    snprintf(tmp, sizeof tmp, "%s", c->scenario_path);
    if (!sits__find_config(kind, name, dir, path, sizeof path))
      snprintf(dir, sizeof dir, "%s",
               !sits__is_stream_path(tmp) && !c->from_text ? dirname(tmp) : ".");
  }
  if (!sits__find_config(kind, name, dir, path, sizeof path))
    return sits__fail(err, SITS_EINPUT,
                      "%s: %s '%s' not found (looked for %s/%s.cfg under the scenario's "
                      "folder, $SITS_CONFIG_PATH and the shipped configs)",
                      where, key, name, kind, name);
  config_t other;
  int rc = read_file(c, &other, path, NULL, err);
  if (rc == SITS_OK) {
    config_setting_t *g = config_lookup(&other, group);
    if (!g || !config_setting_is_group(g))
      rc = sits__fail(err, SITS_EINPUT, "%s: no '%s' group in the file", path, group);
    else {
      const char *name_copy = sits__config_intern(c, name);
      config_setting_t *merged = root;
      /* the name goes: the merged text (outputs' config attribute) re-runs as it is, and the
       * group it picked keeps its own name member */
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
 * platform and workload names first (phase 0); a battery named inside the platform, and the
 * keys that decide whether and which pack battery_capacity_wh gives a platform without one,
 * after the platform's merge (phase 1); every other key on the merged tree (phase 2). */
static int set_phase(const char *set) {
  if (strncmp(set, "platform=", 9) == 0 || strncmp(set, "workload_profile=", 17) == 0)
    return 0;
  return strncmp(set, "platform.battery=", 17) == 0 || strncmp(set, "battery_default=", 16) == 0 ||
                 strncmp(set, "battery_capacity_wh=", 20) == 0
             ? 1
             : 2;
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

/* A scenario that sizes a pack (battery_capacity_wh) on a platform without one: the platform
 * gets the pack named by battery_default (a configs/batteries name), scaled by the loader. */
static int default_battery(sits__config *c, sits_err *err) {
  config_setting_t *root = config_root_setting(&c->cfg), *p = config_lookup(&c->cfg, "platform");
  if (!config_setting_get_member(root, "battery_capacity_wh") || !p ||
      !config_setting_is_group(p) || config_setting_get_member(p, "battery"))
    return SITS_OK;
  const char *name = NULL;
  int rc = sits__key_str(root, "battery_default", &name, err);
  if (rc)
    return rc;
  if (!name)
    name = sits_config_key("battery_default")->dflt_text;
  config_setting_t *b = config_setting_add(p, "battery", CONFIG_TYPE_STRING);
  if (!b || config_setting_set_string(b, name) != CONFIG_TRUE ||
      !(c->default_battery = sits__config_intern(c, name)))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  return SITS_OK;
}

/* Adds @p path to the configuration's inputs once. */
static int add_input(sits__config *c, const char *path, sits_err *err) {
  for (size_t i = 0; i < c->n_inputs; i++)
    if (strcmp(c->inputs[i], path) == 0)
      return SITS_OK;
  const char **p = realloc(c->inputs, (c->n_inputs + 1) * sizeof *p);
  const char *copy = p ? sits__config_intern(c, path) : NULL;
  if (p)
    c->inputs = p;
  if (!copy)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  c->inputs[c->n_inputs++] = copy;
  return SITS_OK;
}

/* The files under @p s (generic path @p path): each setting's source file (the scenario, the
 * platform, battery and workload files, @include'd files) and each file-name key's file. */
static int list_inputs(sits__config *c, const config_setting_t *s, const char *path,
                       sits_err *err) {
  const char *file = config_setting_source_file(s);
  int rc = SITS_OK;
  if (file && config_setting_source_line(s) > 0)
    rc = add_input(c, file, err);
  const sits_key *k = *path ? sits_config_key(path) : NULL;
  if (rc == SITS_OK && k && (k->flags & SITS_KEY_FILE) &&
      config_setting_type(s) == CONFIG_TYPE_STRING) {
    const char *name = config_setting_get_string(s);
    char dir[4096], abs_dir[PATH_MAX], full[8200];
    if (name[0] == '/')
      snprintf(full, sizeof full, "%s", name);
    else {
      const char *d = sits__setting_dir(s, dir, sizeof dir);
      snprintf(full, sizeof full, "%s/%s", realpath(d, abs_dir) ? abs_dir : d, name);
      /* the merged text names the file absolutely, so that it re-runs from anywhere (the
       * text of an output, a sweep row); the setting keeps its file and line for messages */
      if (full[0] == '/' && config_setting_set_string((config_setting_t *)s, full) != CONFIG_TRUE)
        rc = sits__fail(err, SITS_ENOMEM, "out of memory");
    }
    if (rc == SITS_OK)
      rc = add_input(c, full, err);
  }
  for (int i = 0; rc == SITS_OK && config_setting_is_aggregate(s) && i < config_setting_length(s);
       i++) {
    const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
    char sub[512];
    if (config_setting_name(e))
      snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", config_setting_name(e));
    else
      snprintf(sub, sizeof sub, "%s.[%d]", path, i);
    rc = list_inputs(c, e, sub, err);
  }
  return rc;
}

static int load(sits__config *c, const char *path, const char *text, const char *const *sets,
                size_t n_sets, sits_err *err) {
  memset(c, 0, sizeof *c);
  c->from_text = text != NULL;
  c->scenario_path = strdup(path);
  if (c->scenario_path && n_sets && (c->sets = calloc(n_sets, sizeof *c->sets)) != NULL)
    for (size_t i = 0; i < n_sets; i++)
      if ((c->sets[c->n_sets] = sits__config_intern(c, sets[i])) != NULL)
        c->n_sets++;
  if (!c->scenario_path)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  int rc = read_file(c, &c->cfg, path, text, err);
  if (rc)
    return rc;
  if (text) /* its settings have no file: messages name them by the text's name (sits__where) */
    config_setting_set_hook(config_root_setting(&c->cfg), c->scenario_path);
  if ((rc = apply_sets(c, sets, n_sets, 0, err)) ||
      (rc = merge_named(c, config_root_setting(&c->cfg), "platform", "platforms", "platform",
                        err)) ||
      (rc = apply_sets(c, sets, n_sets, 1, err)) || (rc = default_battery(c, err)) ||
      (rc = merge_named(c, config_lookup(&c->cfg, "platform"), "battery", "batteries", "battery",
                        err)) ||
      (rc = merge_named(c, config_root_setting(&c->cfg), "workload_profile", "workloads",
                        "workload", err)) ||
      (rc = apply_sets(c, sets, n_sets, 2, err)))
    return rc;
  if ((rc = sits__config_check_keys(c, err)))
    return rc;
  return list_inputs(c, config_root_setting(&c->cfg), "", err);
}

int sits__config_load(sits__config *c, const char *path, const char *const *sets, size_t n_sets,
                      sits_err *err) {
  return load(c, path, NULL, sets, n_sets, err);
}

int sits__config_load_text(sits__config *c, const char *name, const char *text,
                           const char *const *sets, size_t n_sets, sits_err *err) {
  return load(c, name, text, sets, n_sets, err);
}

void sits__config_release(sits__config *c) {
  if (c->scenario_path)
    config_destroy(&c->cfg);
  for (size_t i = 0; i < c->n_strings; i++)
    free(c->strings[i]);
  free(c->strings);
  free(c->inputs);
  free(c->sets);
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

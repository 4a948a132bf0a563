/*
 * keys.c - checking a merged configuration against the key table (key_table.c), looking keys
 * up, and the key reference (sits_config.h).
 *
 * An unknown key is an error that names the key, where it is, and the nearest valid name
 * among its group's keys. Groups whose members are user names (MAP keys: node names under
 * `power_w`, HotSpot options) are not descended.
 */
#include "config_internal.h"
#include "status_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t sits__edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  size_t *row = malloc((lb + 1) * sizeof *row);
  if (!row)
    return (size_t)-1;
  for (size_t j = 0; j <= lb; j++)
    row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j];
      size_t best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best)
        best = up + 1;
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  size_t d = row[lb];
  free(row);
  return d;
}

/* Copies @p path into @p out with every "[N]" as "[]"; false when it does not fit. */
static bool generic_path(const char *path, char *out, size_t size) {
  size_t o = 0;
  for (const char *p = path; *p; p++) {
    if (o + 3 >= size)
      return false;
    out[o++] = *p;
    if (*p == '[') {
      while (p[1] >= '0' && p[1] <= '9')
        p++;
    }
  }
  out[o] = '\0';
  return true;
}

const sits_key *sits_config_keys(size_t *n) {
  return sits__key_table(n);
}

const sits_key *sits_config_key(const char *path) {
  char gen[512];
  size_t n;
  const sits_key *keys = sits__key_table(&n);
  if (!path || !generic_path(path, gen, sizeof gen))
    return NULL;
  for (size_t i = 0; i < n; i++)
    if (strcmp(keys[i].path, gen) == 0)
      return &keys[i];
  return NULL;
}

/* The parent part of @p path ("" at the top), into @p out. */
static void parent_of(const char *path, char *out, size_t size) {
  const char *dot = strrchr(path, '.');
  size_t len = dot ? (size_t)(dot - path) : 0;
  snprintf(out, size, "%.*s", (int)len, path);
}

bool sits__key_in_range(const sits_key *k, double v) {
  if (k->flags & SITS_KEY_WHOLE && v != floor(v))
    return false;
  bool lo = k->flags & SITS_KEY_LO_OPEN ? v > k->lo : v >= k->lo;
  bool hi = k->flags & SITS_KEY_HI_OPEN ? v < k->hi : v <= k->hi;
  return lo && hi;
}

int sits__key_range_fail(const sits_key *k, const char *member, const config_setting_t *s, double v,
                         sits_err *err) {
  char range[96];
  sits_config_key_range(k, range, sizeof range);
  bool interval = isfinite(k->lo) && isfinite(k->hi);
  return sits__fail_at(err, SITS_EINPUT, s, "'%s' must be %s%s%s (got %g)", member,
                       k->flags & SITS_KEY_WHOLE ? "a whole number " : "", interval ? "in " : "",
                       range + (k->flags & SITS_KEY_WHOLE ? strlen("whole, ") : 0), v);
}

static int unknown(const char *group, const config_setting_t *s, sits_err *err) {
  const char *name = config_setting_name(s), *best = NULL;
  size_t best_d = (size_t)-1, n;
  const sits_key *keys = sits__key_table(&n);
  char parent[512];
  for (size_t i = 0; i < n; i++) {
    parent_of(keys[i].path, parent, sizeof parent);
    if (strcmp(parent, group) != 0)
      continue;
    const char *last = keys[i].path + (*group ? strlen(group) + 1 : 0);
    size_t d = sits__edit_distance(name, last);
    if (d < best_d)
      best_d = d, best = last;
  }
  char where[4200], hint[160] = "";
  if (best && best_d <= 1 + strlen(name) / 3)
    snprintf(hint, sizeof hint, " (did you mean '%s'?)", best);
  return sits__fail(err, SITS_EINPUT, "%s: unknown key '%s' in %s%s",
                    sits__where(s, where, sizeof where), name, *group ? group : "the scenario",
                    hint);
}

static int check_group(const char *group, const config_setting_t *g, sits_err *err);

/* Descends into a group, or into each group of a list, under the generic path @p path. */
static int check_child(const sits_key *k, const config_setting_t *s, sits_err *err) {
  if (k->type == SITS_KEY_MAP)
    return SITS_OK;
  if (config_setting_is_group(s))
    return check_group(k->path, s, err);
  if (k->type != SITS_KEY_LIST || !config_setting_is_list(s))
    return SITS_OK;
  char elem[512];
  snprintf(elem, sizeof elem, "%s.[]", k->path);
  for (int i = 0; i < config_setting_length(s); i++) {
    const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
    if (config_setting_is_group(e)) {
      int rc = check_group(elem, e, err);
      if (rc)
        return rc;
    }
  }
  return SITS_OK;
}

static int check_group(const char *group, const config_setting_t *g, sits_err *err) {
  for (int i = 0; i < config_setting_length(g); i++) {
    const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
    char path[512];
    snprintf(path, sizeof path, "%s%s%s", group, *group ? "." : "", config_setting_name(s));
    const sits_key *k = sits_config_key(path);
    if (!k)
      return unknown(group, s, err);
    int t = config_setting_type(s); /* every number in its range, whoever reads it later */
    bool num = t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64 || t == CONFIG_TYPE_FLOAT;
    double v = !num                     ? 0
               : t == CONFIG_TYPE_FLOAT ? config_setting_get_float(s)
                                        : (double)config_setting_get_int64(s);
    if (num && k->type == SITS_KEY_NUMBER && !(k->flags & SITS_KEY_MODEL_CHECKED) &&
        !sits__key_in_range(k, v))
      return sits__key_range_fail(k, config_setting_name(s), s, v, err);
    int rc = check_child(k, s, err);
    if (rc)
      return rc;
  }
  return SITS_OK;
}

int sits__config_check_keys(const sits__config *c, sits_err *err) {
  return check_group("", config_root_setting(&c->cfg), err);
}

/*
 * get.c - typed readers of config members. The key readers (sits__key_*) take the default,
 * whether the key is required and its range from the key table (key_table.c), so that a
 * default or a range is written in one place; sits__get_* read members that are not table
 * keys (the values of MAP groups: a node's power, a domain's demand or rate). Errors name
 * the file:line the setting came from.
 */
#include "config_internal.h"
#include "status_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int sits__get_num(const config_setting_t *g, const char *key, double dflt, bool required,
                  double *out, sits_err *err) {
  const config_setting_t *s = g ? config_setting_get_member(g, key) : NULL;
  if (!s) {
    *out = dflt;
    return required ? sits__fail_at(err, SITS_EINPUT, g, "missing key '%s'", key) : SITS_OK;
  }
  if (!config_setting_is_number(s))
    return sits__fail_at(err, SITS_EINPUT, s, "'%s' must be a number", key);
  *out = config_setting_get_float(s);
  if (!isfinite(*out))
    return sits__fail_at(err, SITS_EINPUT, s, "'%s' must be finite", key);
  return SITS_OK;
}

int sits__get_str(const config_setting_t *g, const char *key, bool required, const char **out,
                  sits_err *err) {
  const config_setting_t *s = g ? config_setting_get_member(g, key) : NULL;
  *out = NULL;
  if (!s)
    return required ? sits__fail_at(err, SITS_EINPUT, g, "missing key '%s'", key) : SITS_OK;
  if (config_setting_type(s) != CONFIG_TYPE_STRING)
    return sits__fail_at(err, SITS_EINPUT, s, "'%s' must be a string", key);
  *out = config_setting_get_string(s);
  return SITS_OK;
}

/* The table entry of @p path, or an internal error: every path the loaders read is a key. */
static const sits_key *key_of(const char *path, const char **member, sits_err *err) {
  const sits_key *k = sits_config_key(path);
  if (!k) {
    sits__fail(err, SITS_EINTERNAL, "'%s' is not in the key table", path);
    return NULL;
  }
  const char *dot = strrchr(k->path, '.');
  *member = dot ? dot + 1 : k->path;
  return k;
}

static int number(const config_setting_t *g, const char *path, bool required, double *out,
                  sits_err *err) {
  const char *member;
  const sits_key *k = key_of(path, &member, err);
  if (!k)
    return SITS_EINTERNAL;
  int rc = sits__get_num(g, member, k->dflt, required || (k->flags & SITS_KEY_REQUIRED), out, err);
  const config_setting_t *s = g ? config_setting_get_member(g, member) : NULL;
  if (rc || !s || (k->flags & SITS_KEY_MODEL_CHECKED) || sits__key_in_range(k, *out))
    return rc;
  return sits__key_range_fail(k, member, s, *out, err);
}

int sits__key_num(const config_setting_t *g, const char *path, double *out, sits_err *err) {
  return number(g, path, false, out, err);
}

int sits__key_num_required(const config_setting_t *g, const char *path, double *out,
                           sits_err *err) {
  return number(g, path, true, out, err);
}

int sits__key_str(const config_setting_t *g, const char *path, const char **out, sits_err *err) {
  const char *member;
  const sits_key *k = key_of(path, &member, err);
  if (!k) {
    *out = NULL;
    return SITS_EINTERNAL;
  }
  return sits__get_str(g, member, k->flags & SITS_KEY_REQUIRED, out, err);
}

int sits__key_bool(const config_setting_t *g, const char *path, bool *out, sits_err *err) {
  const char *member;
  *out = false;
  if (!key_of(path, &member, err))
    return SITS_EINTERNAL;
  const config_setting_t *s = g ? config_setting_get_member(g, member) : NULL;
  if (!s)
    return SITS_OK;
  if (config_setting_type(s) != CONFIG_TYPE_BOOL)
    return sits__fail_at(err, SITS_EINPUT, s, "'%s' must be true or false", member);
  *out = config_setting_get_bool(s);
  return SITS_OK;
}

int sits__key_numbers(const config_setting_t *g, const char *key, const char *owner, double *out,
                      size_t max, size_t *n, sits_err *err) {
  const config_setting_t *a = config_setting_get_member(g, key);
  *n = 0;
  if (!a)
    return owner ? sits__fail_at(err, SITS_EINPUT, g, "%s needs '%s' as an array of numbers", owner,
                                 key)
                 : SITS_OK;
  if (!(config_setting_is_array(a) || config_setting_is_list(a)) || config_setting_length(a) < 1)
    return sits__fail_at(err, SITS_EINPUT, a, "'%s' must be an array of numbers", key);
  if ((size_t)config_setting_length(a) > max)
    return sits__fail_at(err, SITS_EINPUT, a, "'%s' has more than %zu values", key, max);
  *n = (size_t)config_setting_length(a);
  for (size_t k = 0; k < *n; k++) {
    const config_setting_t *e = config_setting_get_elem(a, (unsigned)k);
    if (!config_setting_is_number(e))
      return sits__fail_at(err, SITS_EINPUT, a, "'%s' must hold numbers", key);
    out[k] = config_setting_get_float(e);
    if (!isfinite(out[k]))
      return sits__fail_at(err, SITS_EINPUT, a, "'%s' must hold finite numbers", key);
  }
  return SITS_OK;
}

/*
 * nvp_conf.c - reads a board's /etc/nvpmodel.conf (dvfs-table --nvpmodel-conf) for what a new
 * power mode must agree with: its PARAM definitions (which PARAM names and argument names the
 * board's nvpmodel knows), its POWER_MODELs (IDs and names: the stock modes, and the free IDs)
 * and its PM_CONFIG default.
 *
 * The layout is L4T's (the comment block that opens every nvpmodel.conf):
 *   < PARAM TYPE=FILE|CLOCK NAME=P >      then lines "ARG_NAME PATH"
 *   < POWER_MODEL ID=n NAME=mode >        then lines "PARAM ARG VALUE"
 *   < PM_CONFIG DEFAULT=n >
 * '#' starts a comment; the space after '<' is optional (NVIDIA's own files have
 * "<PARAM TYPE=CLOCK NAME=EMC >"). A malformed header, a duplicate ID or name, a mode line
 * naming a PARAM or argument the file does not define, or a file with no POWER_MODEL is an
 * error at file:line.
 */
#define _POSIX_C_SOURCE 200809L
#include "nvp_conf_impl.h"

#include "status_internal.h"
#include "text_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The value of KEY= in a header's text (up to a blank or '>'), into out; false when absent. */
static bool header_value(const char *text, const char *key, char *out, size_t size) {
  size_t k = strlen(key);
  for (const char *p = text; (p = strstr(p, key)) != NULL; p++) {
    if (p != text && !isspace((unsigned char)p[-1]) && p[-1] != '<')
      continue;
    if (p[k] != '=')
      continue;
    p += k + 1;
    size_t n = 0;
    while (p[n] && !isspace((unsigned char)p[n]) && p[n] != '>')
      n++;
    if (n == 0 || n >= size)
      return false;
    memcpy(out, p, n);
    out[n] = '\0';
    return true;
  }
  return false;
}

static const sits__nvp_param *find_param(const sits__nvp_conf *c, const char *name) {
  for (size_t k = 0; k < c->n_params; k++)
    if (strcmp(c->params[k].name, name) == 0)
      return &c->params[k];
  return NULL;
}

bool sits__nvp_conf_has(const sits__nvp_conf *c, const char *param, const char *arg) {
  const sits__nvp_param *p = find_param(c, param);
  for (size_t k = 0; p && k < p->n_args; k++)
    if (strcmp(p->args[k], arg) == 0)
      return true;
  return false;
}

const sits__nvp_param *sits__nvp_conf_param(const sits__nvp_conf *c, const char *name) {
  return find_param(c, name);
}

/* A header line "< KIND ... >": the section it opens. */
static int header(sits__nvp_conf *c, const char *path, size_t line, const char *s, int *section,
                  sits_err *err) {
  const char *end = strchr(s, '>');
  if (!end || end[1 + strspn(end + 1, " \t\r")] != '\0')
    return sits__fail(err, SITS_EINPUT, "%s:%zu: a section header must end with '>'", path, line);
  char name[64], value[64];
  const char *kind = s + 1 + strspn(s + 1, " \t");
  if (strncmp(kind, "PARAM", 5) == 0 && isspace((unsigned char)kind[5])) {
    if (c->n_params == SITS__NVP_MAX_PARAMS)
      return sits__fail(err, SITS_EINPUT, "%s:%zu: more than %d PARAM sections", path, line,
                        SITS__NVP_MAX_PARAMS);
    if (!header_value(kind, "NAME", name, sizeof name) ||
        !header_value(kind, "TYPE", value, sizeof value) ||
        (strcmp(value, "FILE") != 0 && strcmp(value, "CLOCK") != 0))
      return sits__fail(err, SITS_EINPUT,
                        "%s:%zu: a PARAM header needs TYPE=FILE or TYPE=CLOCK and NAME=", path,
                        line);
    if (find_param(c, name))
      return sits__fail(err, SITS_EINPUT, "%s:%zu: PARAM %s is defined twice", path, line, name);
    sits__nvp_param *p = &c->params[c->n_params++];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->clock = strcmp(value, "CLOCK") == 0;
    *section = 1;
    return SITS_OK;
  }
  if (strncmp(kind, "POWER_MODEL", 11) == 0 && isspace((unsigned char)kind[11])) {
    if (c->n_modes == SITS__NVP_MAX_MODES)
      return sits__fail(err, SITS_EINPUT, "%s:%zu: more than %d POWER_MODEL sections", path, line,
                        SITS__NVP_MAX_MODES);
    char *tail = NULL;
    errno = 0;
    long id = header_value(kind, "ID", value, sizeof value) ? strtol(value, &tail, 10) : -1;
    if (!tail || *tail || errno || id < 0 || id > 255 ||
        !header_value(kind, "NAME", name, sizeof name))
      return sits__fail(err, SITS_EINPUT,
                        "%s:%zu: a POWER_MODEL header needs ID=0..255 and NAME=", path, line);
    for (size_t k = 0; k < c->n_modes; k++)
      if (c->modes[k].id == id || strcmp(c->modes[k].name, name) == 0)
        return sits__fail(err, SITS_EINPUT,
                          "%s:%zu: POWER_MODEL %s (ID %ld) repeats mode %s (ID %ld)", path, line,
                          name, id, c->modes[k].name, c->modes[k].id);
    c->modes[c->n_modes].id = id;
    snprintf(c->modes[c->n_modes].name, sizeof c->modes[0].name, "%s", name);
    c->n_modes++;
    *section = 2;
    return SITS_OK;
  }
  if (strncmp(kind, "PM_CONFIG", 9) == 0 && isspace((unsigned char)kind[9])) {
    char *tail = NULL;
    long id = header_value(kind, "DEFAULT", value, sizeof value) ? strtol(value, &tail, 10) : -1;
    if (!tail || *tail || id < 0 || id > 255)
      return sits__fail(err, SITS_EINPUT, "%s:%zu: PM_CONFIG needs DEFAULT=0..255", path, line);
    c->default_id = id;
    *section = 3;
    return SITS_OK;
  }
  return sits__fail(err, SITS_EINPUT,
                    "%s:%zu: unknown section (PARAM, POWER_MODEL or PM_CONFIG expected)", path,
                    line);
}

/* A line inside a section: "ARG PATH" in a PARAM, "PARAM ARG VALUE" in a POWER_MODEL. */
static int body(sits__nvp_conf *c, const char *path, size_t line, const char *s, int section,
                sits_err *err) {
  char a[64], b[64], v[256];
  int n = sscanf(s, "%63s %63s %255s", a, b, v);
  if (section == 1) {
    sits__nvp_param *p = &c->params[c->n_params - 1];
    if (n < 2)
      return sits__fail(err, SITS_EINPUT, "%s:%zu: a PARAM line is 'ARG_NAME PATH'", path, line);
    if (p->n_args == SITS__NVP_MAX_ARGS)
      return sits__fail(err, SITS_EINPUT, "%s:%zu: PARAM %s has more than %d arguments", path, line,
                        p->name, SITS__NVP_MAX_ARGS);
    snprintf(p->args[p->n_args++], sizeof p->args[0], "%s", a);
    return SITS_OK;
  }
  if (section == 2) {
    if (n != 3)
      return sits__fail(err, SITS_EINPUT, "%s:%zu: a POWER_MODEL line is 'PARAM ARG VALUE'", path,
                        line);
    if (!sits__nvp_conf_has(c, a, b))
      return sits__fail(err, SITS_EINPUT, "%s:%zu: %s %s is not a defined PARAM argument", path,
                        line, a, b);
    return SITS_OK;
  }
  return sits__fail(err, SITS_EINPUT,
                    section ? "%s:%zu: PM_CONFIG takes no lines"
                            : "%s:%zu: a line before any section",
                    path, line);
}

int sits__nvp_conf_read(const char *path, sits__nvp_conf *c, sits_err *err) {
  memset(c, 0, sizeof *c);
  c->default_id = -1;
  sits__lines ls;
  int rc = sits__lines_open(&ls, path, err);
  if (rc)
    return rc;
  char *s;
  bool binary = false;
  int section = 0;
  while (rc == SITS_OK && (s = sits__lines_next(&ls, &binary)) != NULL) {
    if (binary) {
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: %s", path, ls.lineno, ls.reason);
      break;
    }
    char *hash = strchr(s, '#');
    if (hash)
      *hash = '\0';
    char *t = sits__trim(s);
    if (!*t)
      continue;
    rc = *t == '<' ? header(c, path, ls.lineno, t, &section, err)
                   : body(c, path, ls.lineno, t, section, err);
  }
  if (rc == SITS_OK && ferror(ls.fp))
    rc = sits__fail(err, SITS_EIO, "%s: read error", path);
  sits__lines_close(&ls);
  if (rc == SITS_OK && c->n_modes == 0)
    rc = sits__fail(err, SITS_EINPUT, "%s: no POWER_MODEL section (not an nvpmodel.conf?)", path);
  return rc;
}

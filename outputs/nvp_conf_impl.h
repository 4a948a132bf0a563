/*
 * nvp_conf_impl.h - a board's nvpmodel.conf as dvfs-table --nvpmodel-conf reads it
 * (nvp_conf.c): its PARAM definitions and its POWER_MODELs. Private to outputs/.
 */
#ifndef SITS_NVP_CONF_IMPL_H
#define SITS_NVP_CONF_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "sits_status.h"

#define SITS__NVP_MAX_PARAMS 64
#define SITS__NVP_MAX_ARGS 32
#define SITS__NVP_MAX_MODES 64

typedef struct sits__nvp_param {
  char name[64];
  bool clock; /* TYPE=CLOCK (else FILE) */
  char args[SITS__NVP_MAX_ARGS][64];
  size_t n_args;
} sits__nvp_param;

typedef struct sits__nvp_conf {
  sits__nvp_param params[SITS__NVP_MAX_PARAMS];
  size_t n_params;
  struct {
    long id;
    char name[64];
  } modes[SITS__NVP_MAX_MODES];
  size_t n_modes;
  long default_id; /* PM_CONFIG DEFAULT, -1 when absent */
} sits__nvp_conf;

/** Reads @p path into @p c; SITS_EINPUT with file:line for a malformed file. */
int sits__nvp_conf_read(const char *path, sits__nvp_conf *c, sits_err *err);
/** Whether PARAM @p param defines the argument @p arg. */
bool sits__nvp_conf_has(const sits__nvp_conf *c, const char *param, const char *arg);
/** PARAM @p name, or NULL. */
const sits__nvp_param *sits__nvp_conf_param(const sits__nvp_conf *c, const char *name);

#endif

/*
 * hotspot_platform.c - a platform's thermal network from a floorplan:
 *   thermal = { hotspot = { flp = "ev6.flp"; config = "example.config";
 *                           materials = "example.materials"; model = "block"; compat = false;
 *                           options = { k_chip = 130.0; }; }; };
 * Paths are relative to the file that names them. The HotSpot options come from `config`,
 * then `options` (which win). Node names are HotSpot's: the block names (silicon, marked as
 * junctions), iface_<b>, hsp_<b>, hsink_<b>, inode_0..11, so domains map to blocks by name
 * (node = "IntExec"; or nodes = [...] with fractions). The scenario's ambient_c and initial
 * state apply (HotSpot's -ambient and -init_temp do not).
 */
#define _POSIX_C_SOURCE 200809L
#include "scenario_impl.h"
#include "sits_hotspot.h"

#include <stdio.h>
#include <string.h>

#define W(s) sits__where((s), where, sizeof where)

static int path_of(const config_setting_t *g, const char *key, bool required, char *out,
                   size_t size, sits_err *err) {
  const char *v = NULL;
  int rc = sits__get_str(g, key, required, &v, err);
  if (rc || !v) {
    out[0] = '\0';
    return rc;
  }
  if (v[0] == '/')
    snprintf(out, size, "%s", v);
  else {
    char dir[4096];
    snprintf(out, size, "%s/%s",
             sits__setting_dir(config_setting_get_member(g, key), dir, sizeof dir), v);
  }
  return SITS_OK;
}

int sits__load_hotspot_thermal(sits_scenario *sc, const config_setting_t *hs, sits_err *err) {
  char where[512], flp[4096], cfg[4096], mats[4096];
  if (!config_setting_is_group(hs))
    return sits__fail(err, SITS_EINPUT, "%s: 'hotspot' must be a group { flp; ... }", W(hs));
  const char *model = NULL;
  int rc;
  if ((rc = path_of(hs, "flp", true, flp, sizeof flp, err)) ||
      (rc = path_of(hs, "config", false, cfg, sizeof cfg, err)) ||
      (rc = path_of(hs, "materials", false, mats, sizeof mats, err)) ||
      (rc = sits__get_str(hs, "model", false, &model, err)))
    return rc;
  if (model && strcmp(model, "block") != 0) {
    const config_setting_t *m = config_setting_get_member(hs, "model");
    if (strcmp(model, "grid") == 0)
      return sits__fail(err, SITS_EUNSUPPORTED,
                        "%s: grid floorplans in platforms are not in this version (block values "
                        "of a grid are reductions, not nodes); use model = \"block\", or "
                        "`sitsenergy hotspot -model_type grid` for a HotSpot run",
                        W(m));
    return sits__fail(err, SITS_EINPUT, "%s: model '%s': expected \"block\"", W(m), model);
  }
  sits_hs_options *o = sits_hs_options_new();
  if (!o)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  const config_setting_t *opts = config_setting_get_member(hs, "options");
  if (opts && !config_setting_is_group(opts))
    rc = sits__fail(err, SITS_EINPUT, "%s: 'options' must be a group of HotSpot options", W(opts));
  for (int i = 0; rc == SITS_OK && opts && i < config_setting_length(opts); i++) {
    const config_setting_t *e = config_setting_get_elem(opts, (unsigned)i);
    char val[256];
    if (config_setting_is_number(e))
      snprintf(val, sizeof val, "%.17g", config_setting_get_float(e));
    else if (config_setting_type(e) == CONFIG_TYPE_STRING)
      snprintf(val, sizeof val, "%s", config_setting_get_string(e));
    else {
      rc = sits__fail(err, SITS_EINPUT, "%s: HotSpot options are numbers or strings", W(e));
      break;
    }
    rc = sits_hs_options_set(o, config_setting_name(e), val, W(e), err);
  }
  if (rc == SITS_OK && mats[0])
    rc = sits_hs_options_set(o, "materials_file", mats, W(hs), err);
  if (rc == SITS_OK && cfg[0])
    rc = sits_hs_options_read_config(o, cfg, err);
  sits_hs_params prm;
  sits_hs_model kind;
  if (rc == SITS_OK && (rc = sits_hs_options_params(o, &prm, &kind, err)) == SITS_OK &&
      kind != SITS_HS_BLOCK)
    rc = sits__fail(err, SITS_EUNSUPPORTED,
                    "%s: the HotSpot options ask for a grid model; "
                    "platforms take the block model",
                    W(hs));
  sits_floorplan *f = NULL;
  sits_hs_network *net = NULL;
  if (rc == SITS_OK)
    rc = sits_hs_read_flp(flp, &f, err);
  if (rc == SITS_OK && (rc = sits_hs_network_new(f, &prm, SITS_HS_BLOCK, &net, err))) {
    char msg[SITS_ERRMSG_MAX]; /* the package does not fit the die: name the group */
    snprintf(msg, sizeof msg, "%s", err->msg);
    sits__fail(err, rc, "%s: %s: %s", W(hs), flp, msg);
  }
  if (rc == SITS_OK) {
    sc->thermal = sits_hs_take_thermal(net);
    for (size_t b = 0; b < f->n; b++)
      sits_thermal_set_junction(sc->thermal, (int)b, true);
  }
  sits_hs_network_free(net);
  sits_floorplan_free(f);
  sits_hs_options_free(o);
  return rc;
}

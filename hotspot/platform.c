/*
 * platform.c - a platform's thermal network from a floorplan:
 *   thermal = { hotspot = { flp = "ev6.flp"; config = "example.config";
 *                           materials = "example.materials"; model = "block"; compat = false;
 *                           options = { k_chip = 130.0; }; }; };
 * Paths are relative to the file that names them. The HotSpot options come from `config`,
 * then `options` (which win). Block model: node names are HotSpot's: the block names
 * (silicon, marked as junctions), iface_<b>, hsp_<b>, hsink_<b>, inode_0..11, so domains map
 * to blocks by name (node = "IntExec"; or nodes = [...] with fractions). Grid model (rows,
 * cols; compat for HotSpot's quirks): the cells L<layer>_<row>_<col> and inode_0..11; a block
 * name is a group of its silicon cells for domains and static_node (HotSpot's power map) and
 * an alias of its centre cell elsewhere. The scenario's ambient_c and initial state apply
 * (HotSpot's -ambient and -init_temp do not).
 */
#define _POSIX_C_SOURCE 200809L
#include "platform_internal.h"
#include "hs_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOTSPOT_KEY "platform.thermal.hotspot."

static int path_of(const config_setting_t *g, const char *key, char *out, size_t size,
                   sits_err *err) {
  const char *v = NULL;
  int rc = sits__key_str(g, key, &v, err);
  if (rc || !v) {
    out[0] = '\0';
    return rc;
  }
  if (v[0] == '/')
    snprintf(out, size, "%s", v);
  else {
    char dir[4096];
    snprintf(
        out, size, "%s/%s",
        sits__setting_dir(config_setting_get_member(g, strrchr(key, '.') + 1), dir, sizeof dir), v);
  }
  return SITS_OK;
}

/* A grid platform: the network's cells are the nodes (L<layer>_<row>_<col>, then inode_N);
 * the silicon cells are the junctions; each block name (and iface_/hsp_/hsink_ + name) is an
 * alias of the cell under the block's centre in its layer, and a group of its silicon cells
 * weighted by HotSpot's power map (B7) for the domains. */
static int grid_groups(sits__hs_platform *sc, const sits_floorplan *f, const sits_hs_params *prm,
                       sits_hs_network *net, const char *where, const char *flp_path,
                       sits_err *err) {
  size_t R = prm->grid_rows, C = prm->grid_cols, nb = f->n, n = sits_hs_node_count(net);
  double *unit = calloc(nb, sizeof *unit), *w = malloc(n * sizeof *w);
  sc->groups = calloc(nb, sizeof *sc->groups);
  int rc = unit && w && sc->groups ? SITS_OK : sits__fail(err, SITS_ENOMEM, "out of memory");
  sc->thermal = sits_hs_take_thermal(net);
  for (size_t i = 0; rc == SITS_OK && i < R * C; i++)
    sits_thermal_set_junction(sc->thermal, (int)i, true);
  static const char *prefix[4] = {"", "iface_", "hsp_", "hsink_"};
  double ch_m = f->height_m / (double)R, cw_m = f->width_m / (double)C; /* a cell */
  sc->grid_rows = R, sc->grid_cols = C, sc->width_m = f->width_m, sc->height_m = f->height_m;
  for (size_t b = 0; rc == SITS_OK && b < nb; b++) {
    const sits_flp_block *k = &f->b[b];
    double ci = floor((f->height_m - (k->y_m + k->h_m / 2)) / ch_m),
           cj = floor((k->x_m + k->w_m / 2) / cw_m);
    size_t i = ci < 0 ? 0 : ci >= (double)R ? R - 1 : (size_t)ci;
    size_t j = cj < 0 ? 0 : cj >= (double)C ? C - 1 : (size_t)cj;
    char name[160];
    for (size_t L = 0; rc == SITS_OK && L < 4; L++) {
      snprintf(name, sizeof name, "%s%s", prefix[L], k->name);
      if ((rc = sits_thermal_add_alias(sc->thermal, name, (int)(L * R * C + i * C + j), err))) {
        char msg[SITS_ERRMSG_MAX]; /* e.g. a block named like a cell: name the block's line */
        snprintf(msg, sizeof msg, "%s", err->msg);
        sits__fail(err, rc, "%s: %s:%zu: block '%s': %s", where, flp_path, k->line, k->name, msg);
      }
    }
    unit[b] = 1.0;
    sits_hs_power_map(net, unit, w);
    unit[b] = 0.0;
    size_t cnt = 0;
    double sum = 0;
    for (size_t c = 0; c < R * C; c++)
      cnt += w[c] > 0, sum += w[c];
    sits__group *g = &sc->groups[sc->n_groups];
    if (rc == SITS_OK &&
        (!(g->name = strdup(k->name)) || !(g->nodes = malloc((cnt ? cnt : 1) * sizeof(int))) ||
         !(g->w = malloc((cnt ? cnt : 1) * sizeof(double)))))
      rc = sits__fail(err, SITS_ENOMEM, "out of memory");
    sc->n_groups += g->name != NULL;
    for (size_t c = 0; rc == SITS_OK && c < R * C; c++)
      if (w[c] > 0)
        g->nodes[g->n] = (int)c, g->w[g->n++] = w[c] / sum;
  }
  free(unit), free(w);
  return rc;
}

/* The group's HotSpot options: `options`, then materials, rows, cols and model (which win). */
static int group_options(const config_setting_t *hs, sits_hs_options *o, const char *mats,
                         double rows, double cols, const char *model, sits_err *err) {
  char where[4200];
  int rc = SITS_OK;
  bool grid = model && strcmp(model, "grid") == 0;
  const config_setting_t *opts = config_setting_get_member(hs, "options");
  if (opts && !config_setting_is_group(opts))
    rc = sits__fail_at(err, SITS_EINPUT, opts, "'options' must be a group of HotSpot options");
  for (int i = 0; rc == SITS_OK && opts && i < config_setting_length(opts); i++) {
    const config_setting_t *e = config_setting_get_elem(opts, (unsigned)i);
    char val[256];
    if (config_setting_is_number(e))
      snprintf(val, sizeof val, "%.17g", config_setting_get_float(e));
    else if (config_setting_type(e) == CONFIG_TYPE_STRING)
      snprintf(val, sizeof val, "%s", config_setting_get_string(e));
    else {
      rc = sits__fail_at(err, SITS_EINPUT, e, "HotSpot options are numbers or strings");
      break;
    }
    rc = sits_hs_options_set(o, config_setting_name(e), val, sits__where(e, where, sizeof where),
                             err);
  }
  if (rc == SITS_OK && mats[0])
    rc = sits_hs_options_set(o, "materials_file", mats, sits__where(hs, where, sizeof where), err);
  char num[32];
  if (rc == SITS_OK && !isnan(rows) && snprintf(num, sizeof num, "%.0f", rows) > 0)
    rc = sits_hs_options_set(o, "grid_rows", num, sits__where(hs, where, sizeof where), err);
  if (rc == SITS_OK && !isnan(cols) && snprintf(num, sizeof num, "%.0f", cols) > 0)
    rc = sits_hs_options_set(o, "grid_cols", num, sits__where(hs, where, sizeof where), err);
  if (rc == SITS_OK && model) /* the group's model wins over the options' model_type */
    rc = sits_hs_options_set(o, "model_type", grid ? "grid" : "block",
                             sits__where(hs, where, sizeof where), err);
  return rc;
}

int sits__hs_platform_load(const config_setting_t *hs, sits__hs_platform *sc, sits_err *err) {
  char where[4200], flp[4096], cfg[4096], mats[4096];
  if (!config_setting_is_group(hs))
    return sits__fail_at(err, SITS_EINPUT, hs, "'hotspot' must be a group { flp; ... }");
  const char *model = NULL;
  int rc;
  if ((rc = path_of(hs, HOTSPOT_KEY "flp", flp, sizeof flp, err)) ||
      (rc = path_of(hs, HOTSPOT_KEY "config", cfg, sizeof cfg, err)) ||
      (rc = path_of(hs, HOTSPOT_KEY "materials", mats, sizeof mats, err)) ||
      (rc = sits__key_str(hs, HOTSPOT_KEY "model", &model, err)))
    return rc;
  bool grid = model && strcmp(model, "grid") == 0;
  if (model && !grid && strcmp(model, "block") != 0)
    return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(hs, "model"),
                         "model '%s': expected \"block\" or \"grid\"", model);
  double rows = NAN, cols = NAN;
  bool compat = false;
  if ((rc = sits__key_bool(hs, HOTSPOT_KEY "compat", &compat, err)) ||
      (rc = sits__key_num(hs, HOTSPOT_KEY "rows", &rows, err)) ||
      (rc = sits__key_num(hs, HOTSPOT_KEY "cols", &cols, err)))
    return rc;
  if ((!isnan(rows) && (rows != floor(rows) || rows < 2 || rows > 4096)) ||
      (!isnan(cols) && (cols != floor(cols) || cols < 2 || cols > 4096)))
    return sits__fail_at(err, SITS_EINPUT, hs,
                         "'rows' and 'cols' must be whole numbers, 2 to 4096");
  sits_hs_options *o = sits_hs_options_new();
  if (!o)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  rc = group_options(hs, o, mats, rows, cols, model, err);
  if (rc == SITS_OK && cfg[0])
    rc = sits_hs_options_read_config(o, cfg, err);
  sits_hs_params prm;
  sits_hs_model kind;
  if (rc == SITS_OK && (rc = sits_hs_options_params(o, &prm, &kind, err)) == SITS_OK) {
    /* the physically correct grid unless compat (HotSpot's quirks, docs/hotspot-model.md) */
    prm.transpose_lateral = compat;
    prm.hotspot_init_map = compat;
  }
  sits_floorplan *f = NULL;
  sits_hs_network *net = NULL;
  if (rc == SITS_OK)
    rc = sits_hs_read_flp(flp, &f, err);
  if (rc == SITS_OK &&
      (rc = ((net = sits_hs_network_new(f, &prm, kind, err)) ? SITS_OK : err->code))) {
    char msg[SITS_ERRMSG_MAX]; /* the package does not fit the die: name the group */
    snprintf(msg, sizeof msg, "%s", err->msg);
    size_t ln = 0;
    int off = 0; /* a block's message ("line N: ...") at its file:line */
    if (sscanf(msg, "line %zu: %n", &ln, &off) == 1 && off > 0)
      sits__fail_at(err, rc, hs, "%s:%zu: %s", flp, ln, msg + off);
    else
      sits__fail_at(err, rc, hs, "%s: %s", flp, msg);
  }
  if (rc == SITS_OK && kind == SITS_HS_GRID)
    rc = grid_groups(sc, f, &prm, net, sits__where(hs, where, sizeof where), flp, err);
  if (rc == SITS_OK)
    sc->n_blocks = f->n;
  if (rc == SITS_OK && kind == SITS_HS_BLOCK) {
    sc->thermal = sits_hs_take_thermal(net);
    for (size_t b = 0; b < f->n; b++)
      sits_thermal_set_junction(sc->thermal, (int)b, true);
  }
  sits_hs_network_free(net);
  sits_floorplan_free(f);
  sits_hs_options_free(o);
  return rc;
}

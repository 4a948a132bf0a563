/*
 * options.c - HotSpot's options: the table of every option with its default, `-key value`
 * from the command line and .config files, the -d dump, materials files, and the typed
 * parameters and model type (docs/hotspot-model.md 4.8, B2).
 */
#define _POSIX_C_SOURCE 200809L
#include "hs_impl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"

/* ---- options -------------------------------------------------------------------------- */

/* Every option HotSpot's hotspot command reads (its example.config and its global flags),
 * with the code defaults. */
static const char *const known[][2] = {
    {"t_chip", "0.15e-3"},
    {"material_chip", NULL},
    {"k_chip", "100.0"},
    {"p_chip", "1.75e6"},
    {"material_sink", NULL},
    {"c_convec", "140.4"},
    {"r_convec", "0.1"},
    {"s_sink", "0.06"},
    {"t_sink", "0.0069"},
    {"k_sink", "400.0"},
    {"p_sink", "3.55e6"},
    {"material_spreader", NULL},
    {"s_spreader", "0.03"},
    {"t_spreader", "0.001"},
    {"k_spreader", "400.0"},
    {"p_spreader", "3.55e6"},
    {"material_interface", NULL},
    {"t_interface", "2.0e-05"},
    {"k_interface", "4.0"},
    {"p_interface", "4.0e6"},
    {"model_secondary", "0"},
    {"r_convec_sec", "1.0"},
    {"c_convec_sec", "140.4"},
    {"n_metal", "8"},
    {"t_metal", "100.0e-6"},
    {"t_c4", "0.0001"},
    {"s_c4", "20.0e-6"},
    {"n_c4", "400"},
    {"s_sub", "0.021"},
    {"t_sub", "0.001"},
    {"s_solder", "0.021"},
    {"t_solder", "0.00094"},
    {"s_pcb", "0.1"},
    {"t_pcb", "0.002"},
    {"ambient", "318.15"},
    {"init_file", NULL},
    {"init_temp", "333.15"},
    {"steady_file", NULL},
    {"sampling_intvl", "3.333e-6"},
    {"base_proc_freq", "3e9"},
    {"dtm_used", "0"},
    {"thermal_threshold", "354.95"},
    {"model_type", "block"},
    {"leakage_used", "0"},
    {"leakage_mode", "0"},
    {"package_model_used", "0"},
    {"package_config_file", NULL},
    {"block_omit_lateral", "0"},
    {"grid_rows", "64"},
    {"grid_cols", "64"},
    {"grid_layer_file", NULL},
    {"grid_steady_file", NULL},
    {"grid_transient_file", NULL},
    {"grid_map_mode", "center"},
    {"detailed_3D", "off"},
    {"use_microfluidic_cooling", "0"},
    {"pumping_pressure", "52000"},
    {"pump_internal_res", "0"},
    {"inlet_temperature", "298.15"},
    {"coolant_material", "water"},
    {"coolant_capac", "4172638"},
    {"coolant_res", "1.647717911"},
    {"coolant_visc", "8.89e-4"},
    {"wall_material", "silicon"},
    {"wall_capac", "1630300"},
    {"wall_res", "0.0076923077"},
    {"htc", "27132"},
    {"wrap_l2", "1"},
    {"l2_label", "L2"},
    {"model_rim", "0"},
    {"rim_thickness", "5e-05"},
    {"compact_ratio", "0.005"},
    {"n_orients", "300"},
    {"P0", "0.99"},
    {"Davg", "1"},
    {"Kmoves", "7"},
    {"Rcool", "0.99"},
    {"Rreject", "0.99"},
    {"Nmax", "1000"},
    {"lambdaA", "5.0e+06"},
    {"lambdaT", "1"},
    {"lambdaW", "350"},
    {"materials_file", NULL},
    {"c", NULL},
    {"d", NULL},
    {"f", NULL},
    {"p", NULL},
    {"o", NULL},
};
#define N_KNOWN (sizeof known / sizeof known[0])

struct sits_hs_options {
  char *value[N_KNOWN];
  char *origin[N_KNOWN];
};

sits_hs_options *sits_hs_options_new(void) {
  return calloc(1, sizeof(sits_hs_options));
}

void sits_hs_options_free(sits_hs_options *o) {
  if (!o)
    return;
  for (size_t k = 0; k < N_KNOWN; k++)
    free(o->value[k]), free(o->origin[k]);
  free(o);
}

static int find_key(const char *key) {
  for (size_t k = 0; k < N_KNOWN; k++)
    if (strcmp(known[k][0], key) == 0)
      return (int)k;
  return -1;
}

static int set(sits_hs_options *o, const char *key, const char *value, const char *origin,
               bool keep, sits_err *err) {
  int k = find_key(key);
  if (k < 0) {
    const char *best = NULL;
    size_t bd = (size_t)-1;
    for (size_t j = 0; j < N_KNOWN; j++) {
      size_t d = sits__edit_distance(key, known[j][0]);
      if (d < bd)
        bd = d, best = known[j][0];
    }
    if (bd <= 3)
      return sits__fail(err, SITS_EINPUT, "%s: unknown option '-%s' (did you mean '-%s'?)", origin,
                        key, best);
    return sits__fail(err, SITS_EINPUT, "%s: unknown option '-%s'", origin, key);
  }
  if (keep && o->value[k])
    return SITS_OK;
  free(o->value[k]), free(o->origin[k]);
  o->value[k] = strdup(value);
  o->origin[k] = strdup(origin);
  if (!o->value[k] || !o->origin[k])
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  return SITS_OK;
}

int sits_hs_options_set(sits_hs_options *o, const char *key, const char *value, const char *origin,
                        sits_err *err) {
  return set(o, key, value, origin, false, err);
}

int sits_hs_options_read_config(sits_hs_options *o, const char *path, sits_err *err) {
  sits__lines l;
  int rc = sits__lines_open(&l, path, err);
  char *tok[3];
  int nt;
  while (rc == SITS_OK && (nt = sits__hs_next_tokens(&l, tok, 3, err)) != 0) {
    char where[1100];
    snprintf(where, sizeof where, "%s:%zu", path, l.lineno);
    if (nt < 0)
      rc = SITS_EINPUT;
    else if (nt != 2 || tok[0][0] != '-' || !tok[0][1])
      rc = sits__fail(err, SITS_EINPUT, "%s: expected '-option value'", where);
    else
      rc = set(o, tok[0] + 1, tok[1], where, true, err);
  }
  if (rc == SITS_OK && !l.fp)
    rc = SITS_EINPUT;
  sits__lines_close(&l);
  return rc;
}

const char *sits_hs_options_get(const sits_hs_options *o, const char *key) {
  int k = find_key(key);
  if (k < 0)
    return NULL;
  const char *v = o->value[k] ? o->value[k] : known[k][1];
  return v && strcmp(v, "(null)") != 0 ? v : NULL;
}

int sits_hs_options_dump(const sits_hs_options *o, FILE *f) {
  for (size_t k = 0; k < N_KNOWN; k++) {
    if (strlen(known[k][0]) == 1) /* the file flags c d f p o are not config options */
      continue;
    const char *v = sits_hs_options_get(o, known[k][0]);
    fprintf(f, "\t\t-%-24s %s\n", known[k][0], v ? v : "(null)");
  }
  return ferror(f) ? SITS_EIO : SITS_OK;
}

/* Typed reads with the option's origin in messages. */
static int opt_num(const sits_hs_options *o, const char *key, double *v, sits_err *err) {
  int k = find_key(key);
  const char *s = sits_hs_options_get(o, key);
  if (!s || !sits__hs_number(s, v))
    return sits__fail(err, SITS_EINPUT, "%s: -%s '%s' is not a number",
                      o->value[k] ? o->origin[k] : "default", key, s ? s : "(null)");
  return SITS_OK;
}

static int opt_flag(const sits_hs_options *o, const char *key, bool *v, sits_err *err) {
  const char *s = sits_hs_options_get(o, key);
  if (s && (!strcmp(s, "on") || !strcmp(s, "1") || !strcmp(s, "true")))
    return *v = true, SITS_OK;
  if (!s || !strcmp(s, "off") || !strcmp(s, "0") || !strcmp(s, "false"))
    return *v = false, SITS_OK;
  int k = find_key(key);
  return sits__fail(err, SITS_EINPUT, "%s: -%s '%s': expected 0 or 1",
                    o->origin[k] ? o->origin[k] : "default", key, s);
}

/* A material of a .materials file: blocks of name, solid|fluid, k, rho c, [viscosity]. */
static int material(const char *path, const char *name, double *k_w_mk, double *p_j_m3k,
                    sits_err *err) {
  sits__lines l;
  int rc = sits__lines_open(&l, path, err);
  char *tok[4];
  int nt;
  bool found = false;
  while (rc == SITS_OK && !found && (nt = sits__hs_next_tokens(&l, tok, 4, err)) != 0) {
    if (nt != 1) {
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: expected a material name", path, l.lineno);
      break;
    }
    char mname[256];
    snprintf(mname, sizeof mname, "%s", tok[0]);
    size_t at = l.lineno;
    if ((nt = sits__hs_next_tokens(&l, tok, 4, err)) != 1 ||
        (strcmp(tok[0], "solid") != 0 && strcmp(tok[0], "fluid") != 0)) {
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: material '%s': expected 'solid' or 'fluid'", path,
                      l.lineno, mname);
      break;
    }
    bool fluid = strcmp(tok[0], "fluid") == 0;
    double v[3];
    for (int q = 0; q < (fluid ? 3 : 2) && rc == SITS_OK; q++)
      if (sits__hs_next_tokens(&l, tok, 4, err) != 1 || !sits__hs_number(tok[0], &v[q]) ||
          !(v[q] > 0))
        rc = sits__fail(err, SITS_EINPUT, "%s:%zu: material '%s' (line %zu): expected a number > 0",
                        path, l.lineno, mname, at);
    if (rc == SITS_OK && strcmp(mname, name) == 0)
      found = true, *k_w_mk = v[0], *p_j_m3k = v[1];
  }
  sits__lines_close(&l);
  if (rc == SITS_OK && !found)
    rc = sits__fail(err, SITS_EINPUT, "%s: no material '%s'", path, name);
  return rc;
}

/* The numeric parameters and the grid size. */
static int numbers(const sits_hs_options *o, sits_hs_params *p, sits_err *err) {
  struct {
    const char *key;
    double *v;
  } nums[] = {{"t_chip", &p->t_chip_m},
              {"k_chip", &p->k_chip_w_per_mk},
              {"p_chip", &p->p_chip_j_per_m3k},
              {"t_interface", &p->t_interface_m},
              {"k_interface", &p->k_interface_w_per_mk},
              {"p_interface", &p->p_interface_j_per_m3k},
              {"s_spreader", &p->s_spreader_m},
              {"t_spreader", &p->t_spreader_m},
              {"k_spreader", &p->k_spreader_w_per_mk},
              {"p_spreader", &p->p_spreader_j_per_m3k},
              {"s_sink", &p->s_sink_m},
              {"t_sink", &p->t_sink_m},
              {"k_sink", &p->k_sink_w_per_mk},
              {"p_sink", &p->p_sink_j_per_m3k},
              {"r_convec", &p->r_convec_k_per_w},
              {"c_convec", &p->c_convec_j_per_k},
              {"ambient", &p->ambient_k},
              {"init_temp", &p->init_temp_k},
              {"sampling_intvl", &p->sampling_intvl_s}};
  int rc;
  for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) {
    if ((rc = opt_num(o, nums[k].key, nums[k].v, err)))
      return rc;
    /* every one a size, a material property or an absolute temperature (kelvin): > 0, named
     * with where it was given */
    if (!(*nums[k].v > 0) || !isfinite(*nums[k].v)) {
      int q = find_key(nums[k].key);
      bool kelvin = !strcmp(nums[k].key, "ambient") || !strcmp(nums[k].key, "init_temp");
      return sits__fail(err, SITS_EINPUT, "%s: -%s %g must be > 0%s",
                        o->value[q] ? o->origin[q] : "default", nums[k].key, *nums[k].v,
                        kelvin ? " (a temperature in kelvin)" : "");
    }
  }
  if (!(p->s_spreader_m < p->s_sink_m)) {
    int q = find_key("s_spreader"), r = find_key("s_sink");
    return sits__fail(err, SITS_EINPUT,
                      "%s: the spreader (-s_spreader %g m) must be smaller than the sink "
                      "(-s_sink %g m)",
                      o->value[r]   ? o->origin[r]
                      : o->value[q] ? o->origin[q]
                                    : "default",
                      p->s_spreader_m, p->s_sink_m);
  }
  double rows, cols;
  if ((rc = opt_num(o, "grid_rows", &rows, err)) || (rc = opt_num(o, "grid_cols", &cols, err)))
    return rc;
  if (rows != floor(rows) || cols != floor(cols) || rows < 2 || cols < 2 || rows > 4096 ||
      cols > 4096)
    return sits__fail(err, SITS_EINPUT,
                      "-grid_rows and -grid_cols must be whole numbers, 2 to 4096 (got %g x %g)",
                      rows, cols);
  p->grid_rows = (size_t)rows, p->grid_cols = (size_t)cols;
  if (!(p->sampling_intvl_s > 0))
    return sits__fail(err, SITS_EINPUT, "-sampling_intvl must be > 0");
  return SITS_OK;
}

/* The flags: block_omit_lateral, and HotSpot features this engine refuses. */
static int flags(const sits_hs_options *o, sits_hs_params *p, sits_err *err) {
  bool b;
  int rc;
  if ((rc = opt_flag(o, "block_omit_lateral", &b, err)))
    return rc;
  p->block_omit_lateral = b;
  const char *unsupported[] = {"model_secondary", "use_microfluidic_cooling", "package_model_used",
                               "detailed_3D", "dtm_used"};
  for (size_t k = 0; k < sizeof unsupported / sizeof unsupported[0]; k++) {
    if ((rc = opt_flag(o, unsupported[k], &b, err)))
      return rc;
    if (b)
      return sits__fail(err, SITS_EUNSUPPORTED, "%s: -%s 1 is not supported by this engine",
                        o->origin[find_key(unsupported[k])], unsupported[k]);
  }
  if (sits_hs_options_get(o, "grid_layer_file"))
    return sits__fail(err, SITS_EUNSUPPORTED,
                      "%s: -grid_layer_file (layer configuration files) is not supported",
                      o->origin[find_key("grid_layer_file")]);
  double lm;
  if ((rc = opt_num(o, "leakage_mode", &lm, err)))
    return rc;
  if (lm != 0)
    return sits__fail(err, SITS_EUNSUPPORTED, "-leakage_mode %g: only mode 0 exists in HotSpot",
                      lm);
  return SITS_OK;
}

/* -model_type and -grid_map_mode. */
static int modes(const sits_hs_options *o, sits_hs_params *p, sits_hs_model *model, sits_err *err) {
  const char *mt = sits_hs_options_get(o, "model_type");
  if (mt && strcmp(mt, "block") == 0)
    *model = SITS_HS_BLOCK;
  else if (mt && strcmp(mt, "grid") == 0)
    *model = SITS_HS_GRID;
  else
    return sits__fail(err, SITS_EINPUT, "%s: -model_type '%s': expected block or grid",
                      o->origin[find_key("model_type")], mt ? mt : "(null)");
  const char *mm = sits_hs_options_get(o, "grid_map_mode");
  const char *names[] = {"avg", "min", "max", "center"};
  size_t m = 0;
  while (m < 4 && (!mm || strcmp(mm, names[m]) != 0))
    m++;
  if (m == 4)
    return sits__fail(err, SITS_EINPUT, "%s: -grid_map_mode '%s': expected avg, min, max or center",
                      o->origin[find_key("grid_map_mode")], mm ? mm : "(null)");
  p->map_mode = (sits_hs_map)m;
  return SITS_OK;
}

/* -material_* overwrite k and rho c after every numeric key (docs/hotspot-model.md B2). */
static int materials(const sits_hs_options *o, sits_hs_params *p, sits_err *err) {
  const char *mats = sits_hs_options_get(o, "materials_file");
  struct {
    const char *key;
    double *k, *p;
  } parts[] = {{"material_chip", &p->k_chip_w_per_mk, &p->p_chip_j_per_m3k},
               {"material_interface", &p->k_interface_w_per_mk, &p->p_interface_j_per_m3k},
               {"material_spreader", &p->k_spreader_w_per_mk, &p->p_spreader_j_per_m3k},
               {"material_sink", &p->k_sink_w_per_mk, &p->p_sink_j_per_m3k}};
  int rc;
  for (size_t k = 0; k < 4; k++) {
    const char *name = sits_hs_options_get(o, parts[k].key);
    if (!name)
      continue;
    if (!mats)
      return sits__fail(err, SITS_EINPUT, "%s: -%s %s needs -materials_file",
                        o->origin[find_key(parts[k].key)], parts[k].key, name);
    if ((rc = material(mats, name, parts[k].k, parts[k].p, err)))
      return rc;
  }
  return SITS_OK;
}

int sits_hs_options_params(const sits_hs_options *o, sits_hs_params *p, sits_hs_model *model,
                           sits_err *err) {
  sits_hs_params_default(p);
  int rc;
  if ((rc = numbers(o, p, err)) || (rc = flags(o, p, err)) || (rc = modes(o, p, model, err)))
    return rc;
  return materials(o, p, err);
}

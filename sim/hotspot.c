/*
 * hotspot.c - HotSpot's input files, its options, and the steady and transient solvers of
 * the floorplan networks (see sits_hotspot.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "sits_hotspot.h"
#include "status_impl.h"
#include "sits_netsteady.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>

#include "config_impl.h"
#include "sits_chol.h"
#include "sits_layergrid.h"
#include "sits_lti.h"
#include "sits_ode.h"
#include "sits_steady.h"

/* ---- line reading --------------------------------------------------------------------- */

typedef struct lines {
  FILE *f;
  const char *path;
  char *buf;
  size_t cap, lineno;
} lines;

static int lines_open(lines *l, const char *path, sits_err *err) {
  memset(l, 0, sizeof *l);
  l->path = path;
  if (!(l->f = fopen(path, "r")))
    return sits__fail(err, SITS_EINPUT, "%s: cannot open: %s", path, strerror(errno));
  return SITS_OK;
}

static void lines_close(lines *l) {
  if (l->f)
    fclose(l->f);
  free(l->buf);
}

/* The next line that is not blank or a comment, split into at most @p max tokens (in place).
 * Returns the token count, 0 at the end, -1 on binary data (error set). */
static int next_tokens(lines *l, char **tok, int max, sits_err *err) {
  ssize_t got;
  while ((got = getline(&l->buf, &l->cap, l->f)) >= 0) {
    l->lineno++;
    if (memchr(l->buf, '\0', (size_t)got)) {
      sits__fail(err, SITS_EINPUT, "%s:%zu: binary data in a text file", l->path, l->lineno);
      return -1;
    }
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(l->buf, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
      if (*t == '#')
        break;
      if (n < max)
        tok[n] = t;
      n++;
    }
    if (n)
      return n;
  }
  return 0;
}

static bool number(const char *s, double *v) {
  char *end;
  errno = 0;
  *v = strtod(s, &end);
  return *s && !*end && isfinite(*v) && errno != ERANGE;
}

/* ---- .flp ----------------------------------------------------------------------------- */

int sits_hs_read_flp(const char *path, sits_floorplan **out, sits_err *err) {
  *out = NULL;
  lines l;
  int rc = lines_open(&l, path, err);
  if (rc)
    return rc;
  sits_flp_block *b = NULL;
  size_t n = 0, cap = 0;
  char *tok[8];
  int nt;
  while (rc == SITS_OK && (nt = next_tokens(&l, tok, 8, err)) != 0) {
    if (nt < 0) {
      rc = SITS_EINPUT;
      break;
    }
    if (nt == 3) /* connectivity: name1 name2 wire_density (HotFloorplan's), skipped */
      continue;
    double v[6];
    if (nt != 5 && nt != 7) {
      rc =
          sits__fail(err, SITS_EINPUT,
                     "%s:%zu: expected 'name width height left-x bottom-y' (5 or 7 fields), got %d",
                     path, l.lineno, nt);
      break;
    }
    for (int k = 1; k < nt && rc == SITS_OK; k++)
      if (!number(tok[k], &v[k < 6 ? k - 1 : 5]))
        rc = sits__fail(err, SITS_EINPUT, "%s:%zu: '%s' is not a number", path, l.lineno, tok[k]);
    if (rc)
      break;
    if (n == cap) {
      cap = cap ? 2 * cap : 64;
      sits_flp_block *nb = realloc(b, cap * sizeof *nb);
      if (!nb) {
        rc = sits__fail(err, SITS_ENOMEM, "out of memory");
        break;
      }
      b = nb;
    }
    if (!(b[n].name = strdup(tok[0]))) {
      rc = sits__fail(err, SITS_ENOMEM, "out of memory");
      break;
    }
    b[n].w_m = v[0], b[n].h_m = v[1], b[n].x_m = v[2], b[n].y_m = v[3], b[n].line = l.lineno;
    n++;
  }
  lines_close(&l);
  if (rc == SITS_OK)
    rc = sits_floorplan_new(b, n, path, out, err);
  for (size_t k = 0; k < n; k++)
    free(b[k].name);
  free(b);
  return rc;
}

/* ---- .ptrace -------------------------------------------------------------------------- */

void sits_hs_trace_free(sits_hs_trace *t) {
  if (!t)
    return;
  free(t->power_w);
  free(t->column);
  free(t);
}

int sits_hs_read_ptrace(const char *path, const sits_floorplan *flp, sits_hs_trace **out,
                        sits_err *err) {
  *out = NULL;
  lines l;
  int rc = lines_open(&l, path, err);
  if (rc)
    return rc;
  size_t n = flp->n;
  char **tok = malloc((n + 1) * sizeof *tok);
  size_t *col = malloc((n + 1) * sizeof *col);
  sits_hs_trace *t = calloc(1, sizeof *t);
  size_t cap = 0;
  if (!tok || !col || !t)
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  int nt = rc ? 0 : next_tokens(&l, tok, (int)n + 1, err);
  if (rc == SITS_OK && nt <= 0)
    rc = nt < 0 ? SITS_EINPUT : sits__fail(err, SITS_EINPUT, "%s: empty power trace", path);
  if (rc == SITS_OK && (size_t)nt != n)
    rc = sits__fail(err, SITS_EINPUT,
                    "%s:%zu: the power trace has %d columns but the floorplan %zu blocks", path,
                    l.lineno, nt, n);
  bool *seen = rc ? NULL : calloc(n, sizeof *seen);
  if (rc == SITS_OK && !seen)
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t k = 0; rc == SITS_OK && k < n; k++) {
    int b = sits_floorplan_find(flp, tok[k]);
    if (b < 0)
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: column '%s' is not a block of the floorplan", path,
                      l.lineno, tok[k]);
    else if (seen[b])
      rc =
          sits__fail(err, SITS_EINPUT, "%s:%zu: column '%s' appears twice", path, l.lineno, tok[k]);
    else
      seen[b] = true, col[k] = (size_t)b;
  }
  free(seen);
  if (t)
    t->n_blocks = n, t->column = col, col = NULL;
  while (rc == SITS_OK && (nt = next_tokens(&l, tok, (int)n + 1, err)) != 0) {
    if (nt < 0) {
      rc = SITS_EINPUT;
      break;
    }
    if ((size_t)nt != n) {
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: %d values for the %zu columns of the header", path,
                      l.lineno, nt, n);
      break;
    }
    if (t->n_rows == cap) {
      cap = cap ? 2 * cap : 128;
      double *w = realloc(t->power_w, cap * n * sizeof *w);
      if (!w) {
        rc = sits__fail(err, SITS_ENOMEM, "out of memory");
        break;
      }
      t->power_w = w;
    }
    for (size_t k = 0; k < n && rc == SITS_OK; k++) {
      double v;
      if (!number(tok[k], &v))
        rc = sits__fail(err, SITS_EINPUT, "%s:%zu: '%s' is not a number", path, l.lineno, tok[k]);
      else
        t->power_w[t->n_rows * n + t->column[k]] = v;
    }
    t->n_rows++;
  }
  if (rc == SITS_OK && t->n_rows == 0)
    rc = sits__fail(err, SITS_EINPUT, "%s:%zu: no power rows after the header", path, l.lineno);
  lines_close(&l);
  free(tok), free(col);
  if (rc) {
    sits_hs_trace_free(t);
    return rc;
  }
  *out = t;
  return SITS_OK;
}

/* ---- .init ---------------------------------------------------------------------------- */

int sits_hs_read_init(const char *path, const sits_hs_network *net, double *vals, sits_err *err) {
  size_t n = sits_hs_floorplan(net)->n, m = 4 * n + 12;
  bool *seen = calloc(m, sizeof *seen);
  char(*names)[600] = malloc(m * sizeof *names);
  lines l;
  int rc =
      !seen || !names ? sits__fail(err, SITS_ENOMEM, "out of memory") : lines_open(&l, path, err);
  if (rc) {
    free(seen), free(names);
    return rc;
  }
  for (size_t k = 0; k < m; k++)
    sits_hs_value_name(net, k, names[k], sizeof names[k]);
  char *tok[3];
  int nt;
  while (rc == SITS_OK && (nt = next_tokens(&l, tok, 3, err)) != 0) {
    if (nt < 0) {
      rc = SITS_EINPUT;
      break;
    }
    double v;
    if (nt != 2 || !number(tok[1], &v)) {
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: expected 'name temperature_K'", path, l.lineno);
      break;
    }
    size_t k = 0;
    while (k < m && strcmp(names[k], tok[0]) != 0)
      k++;
    if (k == m)
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: '%s' is not a node of this floorplan's network",
                      path, l.lineno, tok[0]);
    else if (seen[k])
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: '%s' appears twice", path, l.lineno, tok[0]);
    else if (!(v > 0))
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: %g K is not a temperature", path, l.lineno, v);
    else
      seen[k] = true, vals[k] = v;
  }
  for (size_t k = 0; rc == SITS_OK && k < m; k++)
    if (!seen[k])
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: no value for '%s'", path, l.lineno, names[k]);
  lines_close(&l);
  free(seen), free(names);
  return rc;
}

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
  lines l;
  int rc = lines_open(&l, path, err);
  char *tok[3];
  int nt;
  while (rc == SITS_OK && (nt = next_tokens(&l, tok, 3, err)) != 0) {
    char where[1100];
    snprintf(where, sizeof where, "%s:%zu", path, l.lineno);
    if (nt < 0)
      rc = SITS_EINPUT;
    else if (nt != 2 || tok[0][0] != '-' || !tok[0][1])
      rc = sits__fail(err, SITS_EINPUT, "%s: expected '-option value'", where);
    else
      rc = set(o, tok[0] + 1, tok[1], where, true, err);
  }
  if (rc == SITS_OK && !l.f)
    rc = SITS_EINPUT;
  lines_close(&l);
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
  if (!s || !number(s, v))
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
  lines l;
  int rc = lines_open(&l, path, err);
  char *tok[4];
  int nt;
  bool found = false;
  while (rc == SITS_OK && !found && (nt = next_tokens(&l, tok, 4, err)) != 0) {
    if (nt != 1) {
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: expected a material name", path, l.lineno);
      break;
    }
    char mname[256];
    snprintf(mname, sizeof mname, "%s", tok[0]);
    size_t at = l.lineno;
    if ((nt = next_tokens(&l, tok, 4, err)) != 1 ||
        (strcmp(tok[0], "solid") != 0 && strcmp(tok[0], "fluid") != 0)) {
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: material '%s': expected 'solid' or 'fluid'", path,
                      l.lineno, mname);
      break;
    }
    bool fluid = strcmp(tok[0], "fluid") == 0;
    double v[3];
    for (int q = 0; q < (fluid ? 3 : 2) && rc == SITS_OK; q++)
      if (next_tokens(&l, tok, 4, err) != 1 || !number(tok[0], &v[q]) || !(v[q] > 0))
        rc = sits__fail(err, SITS_EINPUT, "%s:%zu: material '%s' (line %zu): expected a number > 0",
                        path, l.lineno, mname, at);
    if (rc == SITS_OK && strcmp(mname, name) == 0)
      found = true, *k_w_mk = v[0], *p_j_m3k = v[1];
  }
  lines_close(&l);
  if (rc == SITS_OK && !found)
    rc = sits__fail(err, SITS_EINPUT, "%s: no material '%s'", path, name);
  return rc;
}

int sits_hs_options_params(const sits_hs_options *o, sits_hs_params *p, sits_hs_model *model,
                           sits_err *err) {
  sits_hs_params_default(p);
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
  for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++)
    if ((rc = opt_num(o, nums[k].key, nums[k].v, err)))
      return rc;
  double rows, cols;
  if ((rc = opt_num(o, "grid_rows", &rows, err)) || (rc = opt_num(o, "grid_cols", &cols, err)))
    return rc;
  if (rows != floor(rows) || cols != floor(cols) || rows < 1 || cols < 1 || rows > 4096 ||
      cols > 4096)
    return sits__fail(err, SITS_EINPUT,
                      "-grid_rows and -grid_cols must be whole numbers, 1 to 4096");
  p->grid_rows = (size_t)rows, p->grid_cols = (size_t)cols;
  if (!(p->sampling_intvl_s > 0))
    return sits__fail(err, SITS_EINPUT, "-sampling_intvl must be > 0");
  bool b;
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
  const char *mt = sits_hs_options_get(o, "model_type");
  if (mt && strcmp(mt, "block") == 0)
    *model = SITS_HS_BLOCK;
  else if (mt && strcmp(mt, "grid") == 0)
    *model = SITS_HS_GRID;
  else
    return sits__fail(err, SITS_EINPUT, "%s: -model_type '%s': expected block or grid",
                      o->origin[find_key("model_type")], mt ? mt : "(null)");
  const char *mm = sits_hs_options_get(o, "grid_map_mode");
  const char *modes[] = {"avg", "min", "max", "center"};
  size_t m = 0;
  while (m < 4 && (!mm || strcmp(mm, modes[m]) != 0))
    m++;
  if (m == 4)
    return sits__fail(err, SITS_EINPUT, "%s: -grid_map_mode '%s': expected avg, min, max or center",
                      o->origin[find_key("grid_map_mode")], mm ? mm : "(null)");
  p->map_mode = (sits_hs_map)m;
  /* -material_* overwrite k and rho c after every numeric key (docs/hotspot-model.md B2) */
  const char *mats = sits_hs_options_get(o, "materials_file");
  struct {
    const char *key;
    double *k, *p;
  } parts[] = {{"material_chip", &p->k_chip_w_per_mk, &p->p_chip_j_per_m3k},
               {"material_interface", &p->k_interface_w_per_mk, &p->p_interface_j_per_m3k},
               {"material_spreader", &p->k_spreader_w_per_mk, &p->p_spreader_j_per_m3k},
               {"material_sink", &p->k_sink_w_per_mk, &p->p_sink_j_per_m3k}};
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

/* ---- steady state --------------------------------------------------------------------- */

/* G T = P + g_amb T_amb through sits_netsteady.h, factorised once and reused by the leakage
 * loop: a grid by the layered-grid solver (HotSpot's grid network has its structure) unless
 * @p general, other large networks by CHOLMOD (G is SPD), small ones by a dense LU. */
static sits_net_steady *steady_solver(const sits_hs_network *net, bool general, sits_err *err) {
  const sits_hs_params *prm = sits_hs_params_of(net);
  bool grid = sits_hs_model_of(net) == SITS_HS_GRID;
  sits_net_steady_opts o = {.grid_rows = grid ? (size_t)prm->grid_rows : 0,
                            .grid_cols = grid ? (size_t)prm->grid_cols : 0,
                            .grid_layers = grid ? 4 : 0,
                            .cholmod = true,
                            .no_layergrid = general};
  return sits_net_steady_new(sits_hs_thermal(net), &o, err);
}

int sits_hs_steady(const sits_hs_network *net, const double *block_w, bool leakage, double *node_k,
                   sits_err *err) {
  return sits_hs_steady_ex(net, block_w, leakage, false, node_k, err);
}

int sits_hs_steady_ex(const sits_hs_network *net, const double *block_w, bool leakage, bool general,
                      double *node_k, sits_err *err) {
  const sits_floorplan *f = sits_hs_floorplan(net);
  const sits_hs_params *prm = sits_hs_params_of(net);
  size_t n = sits_hs_node_count(net), nb = f->n;
  sits_net_steady *sv = steady_solver(net, general, err);
  double *node_w = malloc(n * sizeof *node_w), *pw = malloc(nb * sizeof *pw);
  double *prev = malloc(n * sizeof *prev), *vals = malloc((4 * nb + 12) * sizeof *vals);
  int rc = !sv                            ? err->code
           : node_w && pw && prev && vals ? SITS_OK
                                          : sits__fail(err, SITS_ENOMEM, "out of memory");
  if (rc == SITS_OK) {
    sits_hs_power_map(net, block_w, node_w);
    rc = sits_net_steady_solve(sv, node_w, prm->ambient_k, node_k, err);
  }
  /* HotSpot's steady leakage loop (docs/hotspot-model.md 4.10) on the silicon block values */
  for (int it = 0; leakage && rc == SITS_OK; it++) {
    if (it == 100) {
      rc = sits__fail(err, SITS_ESOLVER,
                      "thermal runaway: the leakage loop did not settle in 100 "
                      "rounds");
      break;
    }
    sits_hs_block_values(net, node_k, vals);
    for (size_t b = 0; b < nb; b++)
      pw[b] = block_w[b] + sits_hs_leakage_w(net, b, vals[b]);
    sits_hs_power_map(net, pw, node_w);
    memcpy(prev, node_k, n * sizeof *prev);
    if ((rc = sits_net_steady_solve(sv, node_w, prm->ambient_k, node_k, err)))
      break;
    double d = 0;
    for (size_t i = 0; i < n; i++)
      d = fmax(d, fabs(node_k[i] - prev[i]));
    if (d > 500)
      rc = sits__fail(err, SITS_ESOLVER, "thermal runaway: the leakage loop moved by %.0f K", d);
    else if (d < 0.01)
      break;
  }
  sits_net_steady_free(sv);
  free(node_w), free(pw), free(prev), free(vals);
  return rc;
}

/* ---- transients ----------------------------------------------------------------------- */

struct sits_hs_transient {
  const sits_hs_network *net;
  size_t n;
  double dt, t;
  double *state, *g_amb, *c, *inv_c, *tmp;
  double *src_w; /* this interval's node powers plus g_amb T_amb [W]: the RHS's constant part */
  /* block model: e^{A dt} and G^-1 (dense) */
  gsl_matrix *expm, *ginv;
  /* grid model: CVODE */
  gsl_spmatrix *g;
  double *jac_values;
  sits_ode *ode;
  sits_lti *lti;      /* grid, fixed step */
  sits_layergrid *lg; /* its Newton systems C + gamma G, when the grid has that structure */
  double *lbuf;
  long steps;
};

/* e^{A dt} = C^-1/2 V e^{-L dt} V^T C^1/2 and G^-1 = C^-1/2 V L^-1 V^T C^-1/2 from the
 * eigen-decomposition S = C^-1/2 G C^-1/2 = V L V^T (symmetric positive definite). */
static int exact_setup(sits_hs_transient *tr, sits_err *err) {
  size_t n = tr->n;
  gsl_matrix *s = gsl_matrix_calloc(n, n), *v = gsl_matrix_alloc(n, n);
  gsl_matrix *w = gsl_matrix_alloc(n, n);
  gsl_vector *lam = gsl_vector_alloc(n);
  gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(n);
  tr->expm = gsl_matrix_alloc(n, n);
  tr->ginv = gsl_matrix_alloc(n, n);
  int rc = SITS_OK;
  if (!s || !v || !w || !lam || !ws || !tr->expm || !tr->ginv)
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  if (rc == SITS_OK) {
    for (size_t col = 0; col < n; col++)
      for (int p = tr->g->p[col]; p < tr->g->p[col + 1]; p++) {
        size_t row = (size_t)tr->g->i[p];
        gsl_matrix_set(s, row, col, tr->g->data[p] / sqrt(tr->c[row] * tr->c[col]));
      }
    if (gsl_eigen_symmv(s, lam, v, ws))
      rc = sits__fail(err, SITS_ESOLVER, "the eigen-decomposition of the network failed");
  }
  for (size_t k = 0; rc == SITS_OK && k < n; k++)
    if (!(gsl_vector_get(lam, k) > 0))
      rc = sits__fail(err, SITS_ESOLVER, "the network is not grounded (eigenvalue %g)",
                      gsl_vector_get(lam, k));
  if (rc == SITS_OK) {
    /* W = V e^{-L dt}: then expm = C^-1/2 W V^T C^1/2 */
    for (size_t i = 0; i < n; i++)
      for (size_t k = 0; k < n; k++)
        gsl_matrix_set(w, i, k, gsl_matrix_get(v, i, k) * exp(-gsl_vector_get(lam, k) * tr->dt));
    gsl_blas_dgemm(CblasNoTrans, CblasTrans, 1.0, w, v, 0.0, tr->expm);
    for (size_t i = 0; i < n; i++)
      for (size_t k = 0; k < n; k++)
        gsl_matrix_set(w, i, k, gsl_matrix_get(v, i, k) / gsl_vector_get(lam, k));
    gsl_blas_dgemm(CblasNoTrans, CblasTrans, 1.0, w, v, 0.0, tr->ginv);
    for (size_t i = 0; i < n; i++)
      for (size_t j = 0; j < n; j++) {
        double ci = sqrt(tr->c[i]), cj = sqrt(tr->c[j]);
        gsl_matrix_set(tr->expm, i, j, gsl_matrix_get(tr->expm, i, j) * cj / ci);
        gsl_matrix_set(tr->ginv, i, j, gsl_matrix_get(tr->ginv, i, j) / (ci * cj));
      }
  }
  gsl_matrix_free(s), gsl_matrix_free(v), gsl_matrix_free(w);
  gsl_vector_free(lam);
  if (ws)
    gsl_eigen_symmv_free(ws);
  return rc;
}

/* y' = C^-1 (P + g_amb T_amb - G y), the bracket's constant part set once an interval */
static int grid_rhs(double t, const double *y, double *ydot, void *user) {
  (void)t;
  const sits_hs_transient *tr = user;
  const gsl_spmatrix *g = tr->g;
  if (tr->lg) { /* G y from the grid's layer constants */
    sits_layergrid_apply(tr->lg, y, ydot);
    for (size_t i = 0; i < tr->n; i++)
      ydot[i] = (tr->src_w[i] - ydot[i]) * tr->inv_c[i];
    return 0;
  }
  /* G is symmetric: its column i is its row i, and a gather beats a scatter */
  for (size_t i = 0; i < tr->n; i++) {
    double s = tr->src_w[i];
    for (int p = g->p[i]; p < g->p[i + 1]; p++)
      s -= g->data[p] * y[g->i[p]];
    ydot[i] = s * tr->inv_c[i];
  }
  return 0;
}

static int grid_jac(double t, const double *y, double *values, void *user) {
  (void)t, (void)y;
  const sits_hs_transient *tr = user;
  memcpy(values, tr->jac_values, tr->g->nz * sizeof *values);
  return 0;
}

/* the constant Jacobian -C^-1 G in G's pattern, for CVODE and the CHOLMOD ESDIRK */
static int jac_setup(sits_hs_transient *tr, sits_err *err) {
  if (!(tr->jac_values = malloc(tr->g->nz * sizeof *tr->jac_values)))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t col = 0; col < tr->n; col++)
    for (int p = tr->g->p[col]; p < tr->g->p[col + 1]; p++)
      tr->jac_values[p] = -tr->g->data[p] * tr->inv_c[tr->g->i[p]];
  return SITS_OK;
}

static int ode_setup(sits_hs_transient *tr, double rtol, sits_err *err) {
  double *atol = malloc(tr->n * sizeof *atol);
  int rc = atol ? jac_setup(tr, err) : sits__fail(err, SITS_ENOMEM, "out of memory");
  if (rc) {
    free(atol);
    return rc;
  }
  for (size_t i = 0; i < tr->n; i++)
    atol[i] = rtol * 100.0; /* kelvin: rtol 1e-5 holds 1e-3 K, a tenth of HotSpot's print */
  sits_ode_opts o = {.n = tr->n,
                     .pattern = tr->g,
                     .rhs = grid_rhs,
                     .jac = grid_jac,
                     .user = tr,
                     .rtol = rtol,
                     .atol = atol,
                     .linsol = SITS_LINSOL_KLU,
                     /* the Jacobian is constant and a KLU refactorisation of the 64 x 64 grid
                      * costs ~30 solves: let the Newton matrix age until gamma doubles
                      * (measured on 5 ev6 intervals: 27 setups instead of 50, 5.5 s instead
                      * of 10.2 s, the same 0.01 K from HotSpot's output) */
                     .dgmax_lsetup = 1.0};
  tr->ode = sits_ode_new(&o, 0.0, tr->state, err);
  free(atol);
  return tr->ode ? SITS_OK : SITS_ESOLVER;
}

/* (I - gamma J) x = b with J = -C^-1 G is (C + gamma G) x = C b */
static int lg_setup(void *user, double gamma, sits_err *err) {
  sits_hs_transient *tr = user;
  return sits_layergrid_setup(tr->lg, 1.0, gamma, err);
}

static int lg_solve(void *user, const double *b, double *x, sits_err *err) {
  sits_hs_transient *tr = user;
  for (size_t i = 0; i < tr->n; i++)
    tr->lbuf[i] = tr->c[i] * b[i];
  return sits_layergrid_solve(tr->lg, tr->lbuf, x, err);
}

static int lti_setup(sits_hs_transient *tr, const sits_hs_transient_opts *o, sits_err *err) {
  const sits_hs_params *prm = sits_hs_params_of(tr->net);
  sits_err quiet = {0}; /* not a layered grid: CHOLMOD */
  if (!o->general &&
      (tr->lg = sits_layergrid_new(tr->g, tr->c, prm->grid_rows, prm->grid_cols, 4, &quiet))) {
    if (!(tr->lbuf = malloc(tr->n * sizeof *tr->lbuf)))
      return sits__fail(err, SITS_ENOMEM, "out of memory");
    sits_lti_opts lo = {.n = tr->n,
                        .rhs = grid_rhs,
                        .user = tr,
                        .h_s = tr->dt / (o->substeps > 0 ? o->substeps : 4),
                        .order = o->order ? o->order : 3,
                        .lsetup = lg_setup,
                        .lsolve = lg_solve,
                        .luser = tr};
    tr->lti = sits_lti_new(&lo, 0.0, tr->state, err);
    return tr->lti ? SITS_OK : SITS_ESOLVER;
  }
  int rc = jac_setup(tr, err);
  if (rc)
    return rc;
  sits_lti_opts lo = {.n = tr->n,
                      .pattern = tr->g,
                      .rhs = grid_rhs,
                      .jac = grid_jac,
                      .user = tr,
                      .h_s = tr->dt / (o->substeps > 0 ? o->substeps : 4),
                      .order = o->order ? o->order : 3,
                      /* C (I - gamma h J) = C + gamma h G is SPD: CHOLMOD */
                      .spd_scale = tr->c};
  tr->lti = sits_lti_new(&lo, 0.0, tr->state, err);
  return tr->lti ? SITS_OK : SITS_ESOLVER;
}

int sits_hs_transient_new(const sits_hs_network *net, double dt_s, const double *node_k0,
                          const sits_hs_transient_opts *o, sits_hs_transient **out, sits_err *err) {
  static const sits_hs_transient_opts none = {0};
  if (!o)
    o = &none;
  double rtol = o->rtol;
  *out = NULL;
  if (!(dt_s > 0))
    return sits__fail(err, SITS_EINPUT, "the sampling interval must be > 0");
  sits_hs_transient *tr = calloc(1, sizeof *tr);
  if (!tr)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  const sits_thermal *th = sits_hs_thermal(net);
  tr->net = net;
  tr->n = sits_hs_node_count(net);
  tr->dt = dt_s;
  size_t n = tr->n;
  tr->state = malloc(n * sizeof(double));
  tr->src_w = calloc(n, sizeof(double));
  tr->g_amb = malloc(n * sizeof(double));
  tr->c = malloc(n * sizeof(double));
  tr->inv_c = malloc(n * sizeof(double));
  tr->tmp = malloc(n * sizeof(double));
  tr->g = sits_thermal_conductance(th);
  int rc = tr->state && tr->src_w && tr->g_amb && tr->c && tr->inv_c && tr->tmp && tr->g
               ? SITS_OK
               : sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t i = 0; rc == SITS_OK && i < n; i++) {
    tr->state[i] = node_k0[i];
    tr->g_amb[i] = sits_thermal_ambient_conductance_w_per_k(th, (int)i);
    tr->c[i] = sits_thermal_capacity_j_per_k(th, (int)i);
    tr->inv_c[i] = 1.0 / tr->c[i];
  }
  if (rc == SITS_OK)
    rc = sits_hs_model_of(net) == SITS_HS_BLOCK ? exact_setup(tr, err)
         : !o->cvode                            ? lti_setup(tr, o, err)
                                                : ode_setup(tr, rtol > 0 ? rtol : 1e-5, err);
  if (rc) {
    sits_hs_transient_free(tr);
    return rc;
  }
  *out = tr;
  return SITS_OK;
}

void sits_hs_transient_free(sits_hs_transient *tr) {
  if (!tr)
    return;
  free(tr->state), free(tr->src_w), free(tr->g_amb), free(tr->c), free(tr->inv_c), free(tr->tmp);
  free(tr->jac_values), free(tr->lbuf);
  sits_layergrid_free(tr->lg);
  if (tr->expm)
    gsl_matrix_free(tr->expm);
  if (tr->ginv)
    gsl_matrix_free(tr->ginv);
  if (tr->g)
    gsl_spmatrix_free(tr->g);
  sits_ode_free(tr->ode);
  sits_lti_free(tr->lti);
  free(tr);
}

int sits_hs_transient_step(sits_hs_transient *tr, const double *block_w, double *node_k,
                           sits_err *err) {
  size_t n = tr->n;
  sits_hs_power_map(tr->net, block_w, tr->src_w);
  double amb = sits_hs_params_of(tr->net)->ambient_k;
  for (size_t i = 0; i < n; i++)
    tr->src_w[i] += tr->g_amb[i] * amb;
  if (tr->expm) {
    /* T_inf = G^-1 (P + g_amb T_amb); T <- T_inf + e^{A dt} (T - T_inf) */
    gsl_vector_view src = gsl_vector_view_array(tr->src_w, n);
    gsl_vector_view tinf = gsl_vector_view_array(node_k, n);
    gsl_blas_dgemv(CblasNoTrans, 1.0, tr->ginv, &src.vector, 0.0, &tinf.vector);
    for (size_t i = 0; i < n; i++)
      tr->tmp[i] = tr->state[i] - node_k[i];
    gsl_vector_view b = gsl_vector_view_array(tr->tmp, n);
    gsl_vector_view s = gsl_vector_view_array(tr->state, n);
    gsl_vector_memcpy(&s.vector, &tinf.vector);
    gsl_blas_dgemv(CblasNoTrans, 1.0, tr->expm, &b.vector, 1.0, &s.vector);
    memcpy(node_k, tr->state, n * sizeof *node_k);
    tr->t += tr->dt;
    tr->steps++;
    return SITS_OK;
  }
  if (tr->lti) { /* fixed steps land on the interval's end */
    int rc = sits_lti_advance(tr->lti, tr->t + tr->dt, tr->state, err);
    if (rc)
      return rc;
    memcpy(node_k, tr->state, n * sizeof *node_k);
    tr->t += tr->dt;
    return SITS_OK;
  }
  int rc = tr->t > 0 ? sits_ode_reinit(tr->ode, tr->t, tr->state, err) : SITS_OK;
  double t_end = tr->t + tr->dt, t = tr->t;
  sits_ode_event ev = SITS_ODE_STEPPED;
  while (rc == SITS_OK && ev != SITS_ODE_STOP)
    rc = sits_ode_step(tr->ode, t_end, &t, &ev, err);
  if (rc)
    return rc;
  memcpy(tr->state, sits_ode_state(tr->ode), n * sizeof *tr->state);
  memcpy(node_k, tr->state, n * sizeof *node_k);
  tr->t = t_end;
  return SITS_OK;
}

void sits_hs_transient_stats(const sits_hs_transient *tr, sits_hs_stats *st) {
  memset(st, 0, sizeof *st);
  if (tr->expm) {
    st->method = "exact-zoh";
    st->steps = tr->steps;
    return;
  }
  sits_ode_stats s;
  if (tr->lti)
    sits_lti_get_stats(tr->lti, &s);
  else
    sits_ode_get_stats(tr->ode, &s);
  st->method = tr->lg    ? "arkode-esdirk-layergrid"
               : tr->lti ? "arkode-esdirk-cholmod"
                         : "cvode-bdf-klu";
  st->steps = s.steps, st->rhs_evals = s.rhs_evals, st->jac_evals = s.jac_evals;
  st->lin_setups = s.lin_setups;
}

/* ---- writers -------------------------------------------------------------------------- */

int sits_hs_write_values(FILE *f, const sits_hs_network *net, const double *vals, int precision) {
  size_t m = 4 * sits_hs_floorplan(net)->n + 12;
  char name[600];
  for (size_t k = 0; k < m; k++)
    fprintf(f, "%s\t%.*f\n", sits_hs_value_name(net, k, name, sizeof name), precision, vals[k]);
  return ferror(f) ? SITS_EIO : SITS_OK;
}

int sits_hs_write_grid(FILE *f, const sits_hs_network *net, const double *node_k, int precision) {
  const sits_hs_params *p = sits_hs_params_of(net);
  size_t rc_n = p->grid_rows * p->grid_cols;
  for (size_t L = 0; L < 4; L++) {
    fprintf(f, "Layer %zu:\n", L);
    for (size_t c = 0; c < rc_n; c++)
      fprintf(f, "%zu\t%.*f\n", c, precision, node_k[L * rc_n + c]);
  }
  return ferror(f) ? SITS_EIO : SITS_OK;
}

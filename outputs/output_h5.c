/*
 * output_h5.c - the HDF5 writers, built as the module libsits_h5 that libsits loads only
 * when an HDF5 file is written (h5_module.c): HDF5 and its ~35 transitive libraries cost
 * ~22 ms of start-up to every process that links them.
 *
 * The result file of the contract:
 *   /time_s, /temp_c/<node>, /power_w/total, /power_w/<domain>, /freq_mhz/<domain>,
 *   /node_power_w/<node>, /battery/{soc,voltage_v,current_a} (with a battery),
 *   /fan_duty/<fan> (with platform.fans), /events,
 *   for grid floorplans /temp_c/<layer> and /node_power_w/<layer> (time x rows x cols),
 *   /grid/{y_m,x_m} and /blocks/<block>/{max_c,avg_c,center_c} instead of one dataset per
 *   cell (see the streaming section); /time_s is every series' dimension scale;
 *   root attributes sitsenergy_version (with the git commit), config (merged config text:
 *   it re-runs as it is), command_line (when the scenario records one), library_versions,
 *   summary_json (as --summary json), end_reason, solver counters.
 * Every dataset carries a `units` attribute. String attributes are variable-length UTF-8.
 * Written under a temporary name, then renamed.
 */
#define _POSIX_C_SOURCE 200809L
#include "result_internal.h"
#include "scenario_internal.h"
#include "sits_config.h"
#include "sits_writers.h"
#include "writer_impl.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_version.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <libconfig.h>
#include <sundials/sundials_config.h>

/* A string attribute as h5py and h5dump read text naturally: variable-length, UTF-8 (h5py
 * gives a str, not bytes). Replaces one of the same name. Negative on failure, as H5LT's. */
/* A variable-length UTF-8 string type (h5py reads str), or negative. */
static hid_t vlen_utf8(void) {
  hid_t t = H5Tcopy(H5T_C_S1);
  if (t >= 0 && (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0)) {
    H5Tclose(t);
    return -1;
  }
  return t;
}

static herr_t str_attr(hid_t loc, const char *obj, const char *name, const char *value) {
  hid_t t = vlen_utf8(), space = H5Screate(H5S_SCALAR), a = -1;
  herr_t rc = t < 0 || space < 0 ? -1 : 0;
  if (rc == 0 && H5Aexists_by_name(loc, obj, name, H5P_DEFAULT) > 0)
    rc = H5Adelete_by_name(loc, obj, name, H5P_DEFAULT);
  if (rc == 0)
    a = H5Acreate_by_name(loc, obj, name, t, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (rc == 0 && (a < 0 || H5Awrite(a, t, &value) < 0))
    rc = -1;
  if (a >= 0)
    H5Aclose(a);
  if (space >= 0)
    H5Sclose(space);
  if (t >= 0)
    H5Tclose(t);
  return rc;
}

/* The scenario's assumptions as a 1-D array of such strings on the root (h5py: an array of
 * str; none: an empty array). Negative on failure. */
static herr_t assumptions_attr(hid_t file, const sits_scenario *sc) {
  size_t n = sits_scenario_assumption_count(sc);
  const char **v = malloc((n ? n : 1) * sizeof *v);
  hsize_t dim = n;
  hid_t t = vlen_utf8(), space = H5Screate_simple(1, &dim, NULL), a = -1;
  herr_t rc = !v || t < 0 || space < 0 ? -1 : 0;
  for (size_t k = 0; v && k < n; k++)
    v[k] = sits_scenario_assumption(sc, k);
  if (rc == 0 && H5Aexists(file, "assumptions") > 0)
    rc = H5Adelete(file, "assumptions");
  if (rc == 0)
    a = H5Acreate2(file, "assumptions", t, space, H5P_DEFAULT, H5P_DEFAULT);
  if (rc == 0 && (a < 0 || H5Awrite(a, t, v) < 0))
    rc = -1;
  if (a >= 0)
    H5Aclose(a);
  if (space >= 0)
    H5Sclose(space);
  if (t >= 0)
    H5Tclose(t);
  free(v);
  return rc;
}

static int put_events(hid_t file, const sits_result *r) {
  hid_t kind = H5Tcopy(H5T_C_S1), detail = H5Tcopy(H5T_C_S1), subject = H5Tcopy(H5T_C_S1),
        unit = H5Tcopy(H5T_C_S1);
  H5Tset_size(kind, sizeof r->events[0].kind);
  H5Tset_size(detail, sizeof r->events[0].detail);
  H5Tset_size(subject, sizeof r->events[0].subject);
  H5Tset_size(unit, sizeof r->events[0].unit);
  hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sits_event));
  H5Tinsert(t, "time_s", HOFFSET(sits_event, time_s), H5T_NATIVE_DOUBLE);
  H5Tinsert(t, "kind", HOFFSET(sits_event, kind), kind);
  H5Tinsert(t, "detail", HOFFSET(sits_event, detail), detail);
  H5Tinsert(t, "subject", HOFFSET(sits_event, subject), subject);
  H5Tinsert(t, "unit", HOFFSET(sits_event, unit), unit);
  H5Tinsert(t, "value", HOFFSET(sits_event, value), H5T_NATIVE_DOUBLE);
  H5Tinsert(t, "from", HOFFSET(sits_event, from), H5T_NATIVE_DOUBLE);
  H5Tinsert(t, "limit", HOFFSET(sits_event, limit), H5T_NATIVE_DOUBLE);
  H5Tinsert(t, "soc", HOFFSET(sits_event, soc), H5T_NATIVE_DOUBLE);
  hsize_t dims[1] = {r->n_events};
  hid_t space = H5Screate_simple(1, dims, NULL);
  hid_t d = H5Dcreate2(file, "/events", t, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int rc = d < 0 ? -1 : 0;
  if (!rc && r->n_events && H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, r->events) < 0)
    rc = -1;
  if (d >= 0)
    H5Dclose(d);
  H5Sclose(space);
  H5Tclose(t);
  H5Tclose(kind);
  H5Tclose(detail);
  H5Tclose(subject);
  H5Tclose(unit);
  return rc;
}

static int put_attributes(hid_t file, const sits_scenario *sc, const sits_result *r) {
  const sits_summary *s = &r->summary;
  long steps = r->stats.steps, rhs = r->stats.rhs_evals, jac = r->stats.jac_evals,
       reinits = r->stats.reinits;
  double bal = s->energy_balance_rel;
  int rc = 0;
  rc |= str_attr(file, "/", "sitsenergy_version", sits_version()) < 0;
  rc |= str_attr(file, "/", "config", sits_scenario_config_text(sc)) < 0;
  rc |= str_attr(file, "/", "end_reason", sits_end_reason_name(s->end_reason)) < 0;
  rc |= H5LTset_attribute_long(file, "/", "solver_steps", &steps, 1) < 0;
  rc |= H5LTset_attribute_long(file, "/", "solver_rhs_evals", &rhs, 1) < 0;
  rc |= H5LTset_attribute_long(file, "/", "solver_jac_evals", &jac, 1) < 0;
  rc |= H5LTset_attribute_long(file, "/", "solver_reinits", &reinits, 1) < 0;
  rc |= str_attr(file, "/", "solver_linear_solver", sits__result_linear_solver(r)) < 0;
  rc |= str_attr(file, "/", "solver_method", r->stats.method ? r->stats.method : "cvode") < 0;
  long ticks[2] = {(long)r->ticks_evaluated, (long)r->ticks_skipped};
  rc |= H5LTset_attribute_long(file, "/", "governor_ticks", &ticks[0], 1) < 0;
  rc |= H5LTset_attribute_long(file, "/", "ticks_skipped", &ticks[1], 1) < 0;
  rc |= H5LTset_attribute_double(file, "/", "energy_balance_rel_err", &bal, 1) < 0;
  /* provenance: how it was made, with what, and the summary as --summary json gives it */
  if (sits_scenario_origin(sc))
    rc |= str_attr(file, "/", "command_line", sits_scenario_origin(sc)) < 0;
  unsigned maj, min, rel;
  char libs[256];
  H5get_libversion(&maj, &min, &rel);
  snprintf(libs, sizeof libs, "HDF5 %u.%u.%u, SUNDIALS %s, GSL %s, libconfig %d.%d.%d", maj, min,
           rel, SUNDIALS_VERSION, GSL_VERSION, LIBCONFIG_VER_MAJOR, LIBCONFIG_VER_MINOR,
           LIBCONFIG_VER_REVISION);
  rc |= str_attr(file, "/", "library_versions", libs) < 0;
  rc |= assumptions_attr(file, sc) < 0;
  char *json = NULL;
  size_t json_len = 0;
  FILE *m = open_memstream(&json, &json_len);
  if (m) {
    int jrc = sits_write_summary_json(sc, r, m);
    if (fclose(m) == 0 && jrc == SITS_OK && json)
      rc |= str_attr(file, "/", "summary_json", json) < 0;
  }
  free(json);
  size_t nd;
  const sits_domain *dom = sits_scenario_domains(sc, &nd);
  for (size_t d = 0; d < nd && !rc; d++) { /* each domain's energy on its power series */
    char path[128];
    snprintf(path, sizeof path, "/power_w/%s", dom[d].name);
    if (H5Lexists(file, path, H5P_DEFAULT) > 0)
      rc |= H5LTset_attribute_double(file, path, "energy_j", &s->domain_energy_j[d], 1) < 0;
  }
  return rc ? -1 : 0;
}

/* HDF5 prints its error stack by default; the library reports through its status instead. */
static int quietly(int (*fn)(const char *, const void *), const char *tmp, const void *args) {
  H5E_auto2_t saved_fn;
  void *saved_data;
  H5Eget_auto2(H5E_DEFAULT, &saved_fn, &saved_data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  int rc = fn(tmp, args);
  H5Eset_auto2(H5E_DEFAULT, saved_fn, saved_data);
  return rc;
}

static int write_file(const char *tmp, const sits_scenario *sc, const sits_result *r);

static int result_fn(const char *tmp, const void *p) {
  const sits__h5_result *a = p;
  return write_file(tmp, a->sc, a->r);
}

static int write_result(const char *tmp_path, const sits__h5_result *args) {
  return quietly(result_fn, tmp_path, args);
}

static int columns_fn(const char *tmp, const void *p) {
  const sits__h5_columns *c = p;
  hid_t file = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file < 0)
    return -1;
  double *col = malloc((c->n_rows ? c->n_rows : 1) * sizeof *col);
  hsize_t dims[1] = {c->n_rows};
  int bad = !col || H5LTmake_dataset_double(file, "/time_s", 1, dims, c->time_s) < 0 ||
            str_attr(file, "/time_s", "units", "s") < 0;
  for (size_t g = 0; g < c->n_groups && !bad; g++) {
    hid_t grp = H5Gcreate2(file, c->group[g], H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    bad = grp < 0;
    for (size_t j = 0; j < c->n_cols && !bad; j++) {
      for (size_t k = 0; k < c->n_rows; k++)
        col[k] = c->values[g][k * c->n_cols + j];
      bad = H5LTmake_dataset_double(grp, c->names[j], 1, dims, col) < 0 ||
            str_attr(grp, c->names[j], "units", c->units[g]) < 0;
    }
    if (grp >= 0)
      H5Gclose(grp);
  }
  for (size_t k = 0; k < c->n_attrs && !bad; k++)
    bad = str_attr(file, "/", c->attr_name[k], c->attr_value[k]) < 0;
  if (!bad && c->sc)
    bad = assumptions_attr(file, c->sc) < 0;
  free(col);
  if (H5Fclose(file) < 0)
    bad = 1;
  return bad ? -1 : 0;
}

static int write_columns(const char *tmp_path, const sits__h5_columns *args) {
  return quietly(columns_fn, tmp_path, args);
}

/* The unit of a sweep table's column: a configuration key's (a varied key, a limit), else
 * its name's unit suffix (the contract's _c, _w, _s, _j, ...), on the part of a dotted name
 * that carries it (energy_j.cpu, battery.runtime_s, tdp_budget_w.value); "0/1" for flags;
 * NULL when the name says none. */
static const char *column_unit(const char *name) {
  const sits_key *k = sits_config_key(name);
  if (k && k->unit && *k->unit)
    return k->unit;
  size_t len = strlen(name);
  if ((len > 3 && strcmp(name + len - 3, ".ok") == 0) || strcmp(name, "verdict_ok") == 0 ||
      (len > 10 && strcmp(name + len - 10, "_estimated") == 0))
    return "0/1";
  char part[256];
  const char *dot = strchr(name, '.');
  if (dot && (strcmp(dot, ".value") == 0 || strcmp(dot, ".limit") == 0)) {
    snprintf(part, sizeof part, "%.*s", (int)(dot - name), name);
    k = sits_config_key(part);
    if (k && k->unit && *k->unit)
      return k->unit;
  } else if (dot && strchr(name, '_') && strchr(name, '_') < dot)
    snprintf(part, sizeof part, "%.*s", (int)(dot - name), name); /* energy_j.cpu */
  else
    snprintf(part, sizeof part, "%s", dot ? strrchr(name, '.') + 1 : name);
  static const struct {
    const char *suffix, *unit;
  } units[] = {{"_mhz", "MHz"}, {"_hz", "Hz"},   {"_mj", "mJ"},      {"_ms", "ms"},
               {"_wh", "Wh"},   {"_ohm", "ohm"}, {"_fraction", "1"}, {"_rel", "1"},
               {"_soc", "1"},   {"_c", "degC"},  {"_w", "W"},        {"_s", "s"},
               {"_j", "J"},     {"_v", "V"},     {"_a", "A"},        {"_done", "1"}};
  size_t pl = strlen(part);
  for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
    size_t sl = strlen(units[u].suffix);
    if (pl > sl && strcmp(part + pl - sl, units[u].suffix) == 0)
      return units[u].unit;
  }
  return NULL;
}

static int table_fn(const char *tmp, const void *p) {
  const sits__h5_table *a = p;
  hid_t file = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file < 0)
    return -1;
  int bad = 0;
  hsize_t dims[1] = {a->rows};
  double *col = malloc((a->rows ? a->rows : 1) * sizeof *col);
  bad = !col;
  for (size_t j = 0; j < a->cols && !bad; j++) {
    bool numeric = true, any = false;
    size_t width = 1;
    for (size_t r = 0; r < a->rows; r++) {
      const char *c = a->cells[r * a->cols + j];
      char *end;
      size_t len = strlen(c);
      width = len + 1 > width ? len + 1 : width;
      if (!*c) {
        col[r] = NAN;
        continue;
      }
      col[r] = strtod(c, &end);
      any = true;
      if (*end)
        numeric = false;
    }
    /* the type by the column, not by this table's values: the hash, the end reason and the
     * error are text; an all-empty column is a number (NAN) when its name has a unit (a
     * battery figure on a platform without one), else text */
    const char *name = a->names[j];
    if (!strcmp(name, "config_hash") || !strcmp(name, "end_reason") || !strcmp(name, "error"))
      numeric = false;
    else if (!any && column_unit(name))
      any = true;
    if (numeric && any) {
      const char *unit = column_unit(a->names[j]);
      if (strcmp(a->names[j], "index") == 0) { /* the combination's number: an integer */
        long long *ix = malloc((a->rows ? a->rows : 1) * sizeof *ix);
        for (size_t r = 0; ix && r < a->rows; r++)
          ix[r] = (long long)col[r];
        bad = !ix || H5LTmake_dataset(file, a->names[j], 1, dims, H5T_NATIVE_LLONG, ix) < 0;
        free(ix);
      } else
        bad = H5LTmake_dataset_double(file, a->names[j], 1, dims, col) < 0;
      if (!bad && unit)
        bad = str_attr(file, a->names[j], "units", unit) < 0;
      continue;
    }
    /* text: fixed-length strings (h5py reads them as bytes) */
    char *buf = calloc(a->rows ? a->rows : 1, width);
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, width);
    hid_t space = H5Screate_simple(1, dims, NULL);
    hid_t d =
        buf ? H5Dcreate2(file, a->names[j], t, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    for (size_t r = 0; buf && r < a->rows; r++)
      memcpy(buf + r * width, a->cells[r * a->cols + j], strlen(a->cells[r * a->cols + j]));
    bad = d < 0 || (a->rows && H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0);
    if (d >= 0)
      H5Dclose(d);
    H5Sclose(space);
    H5Tclose(t);
    free(buf);
  }
  free(col);
  if (!bad) /* provenance: which program wrote the table */
    bad = str_attr(file, "/", "sitsenergy_version", sits_version()) < 0;
  if (H5Fclose(file) < 0)
    bad = 1;
  return bad ? -1 : 0;
}

static int write_table(const char *tmp_path, const sits__h5_table *args) {
  return quietly(table_fn, tmp_path, args);
}

/* ---- streaming: the result file grown by blocks of rows as the run goes ----
 *
 * A grid floorplan's cells (4 layers of R x C, nodes 0..4RC-1) are not one dataset each: per
 * layer, /temp_c/<layer> and /node_power_w/<layer> are time x rows x cols, with dimension
 * scales /time_s, /grid/y_m (cell centres, row 0 at the top edge) and /grid/x_m; per
 * floorplan block, /blocks/<block>/{max_c,avg_c,center_c} are HotSpot's reductions over the
 * block's silicon cells (the maximum, the area-weighted mean, the cell under its centre).
 * Other nodes (the package's) keep /temp_c/<node>. */

#define STREAM_CHUNK 4096
#define GRID_LAYERS 4
#define GRID_CHUNK_VALUES 65536 /* values per chunk of a layer dataset (512 KiB) */

static const char *const layer_name[GRID_LAYERS] = {"silicon", "interface", "spreader", "sink"};

typedef struct h5_stream {
  hid_t file;
  size_t n, nd, nf, n_cols, rows;
  bool battery;
  hid_t *ds;   /* one growing dataset per column, in the CSV's order (-2: a grid cell) */
  double *col; /* one block of one column */
  size_t R, C; /* a grid: R x C cells per layer; 0 otherwise */
  hid_t layer_t[GRID_LAYERS], layer_p[GRID_LAYERS];
  double *plane; /* rows of one layer */
  size_t nb;
  const sits__group *blocks;
  int *center;
  hid_t *block_ds; /* max, avg, center per block */
  hid_t time;
  hsize_t chunk_rows; /* time rows per chunk of a series: the run's samples, at most 4096 */
} h5_stream;

/* Row k's value of column j (time, temperatures, node powers, total, domain powers,
 * frequencies, battery, fan duties). */
static double cell(const h5_stream *h, const sits_result *r, size_t k, size_t j) {
  size_t n = h->n, nd = h->nd;
  if (j == 0)
    return r->time_s[k];
  if ((j -= 1) < n)
    return r->temp_c[k * n + j];
  if ((j -= n) < n)
    return r->node_power_w[k * n + j];
  if ((j -= n) == 0)
    return r->total_power_w[k];
  if ((j -= 1) < nd)
    return r->domain_power_w[k * nd + j];
  if ((j -= nd) < nd)
    return r->freq_mhz[k * nd + j];
  j -= nd;
  if (h->battery && j < 3)
    return j == 0 ? r->batt_soc[k] : j == 1 ? r->batt_voltage_v[k] : r->batt_current_a[k];
  j -= h->battery ? 3 : 0;
  return r->fan_duty[k * r->n_fans + j];
}

/* A dataset growing along time: rank 1, or 3 (time x rows x cols); chunked to the run's
 * length (a 1,001-sample run is one chunk of 1,001, not of 4,096) and compressed (shuffle +
 * deflate level 1: h5py, xarray and h5dump read it; a smooth series shrinks ~3-6x). */
static hid_t growing_nd(const h5_stream *h, hid_t loc, const char *name, const char *units,
                        size_t R, size_t C) {
  int rank = R ? 3 : 1;
  hsize_t tc = R ? (GRID_CHUNK_VALUES / (R * C) ? GRID_CHUNK_VALUES / (R * C) : 1) : STREAM_CHUNK;
  if (h->chunk_rows && tc > h->chunk_rows)
    tc = h->chunk_rows;
  hsize_t dims[3] = {0, R, C}, max[3] = {H5S_UNLIMITED, R, C}, chunk[3] = {tc, R, C};
  hid_t space = H5Screate_simple(rank, dims, max), plist = H5Pcreate(H5P_DATASET_CREATE);
  bool zip = H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0 && H5Zfilter_avail(H5Z_FILTER_SHUFFLE) > 0;
  hid_t d = space < 0 || plist < 0 || H5Pset_chunk(plist, rank, chunk) < 0 ||
                    (zip && (H5Pset_shuffle(plist) < 0 || H5Pset_deflate(plist, 1) < 0))
                ? -1
                : H5Dcreate2(loc, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, plist, H5P_DEFAULT);
  if (space >= 0)
    H5Sclose(space);
  if (plist >= 0)
    H5Pclose(plist);
  if (d >= 0 && str_attr(loc, name, "units", units) < 0) {
    H5Dclose(d);
    d = -1;
  }
  return d;
}

static hid_t growing(const h5_stream *h, hid_t loc, const char *name, const char *units) {
  return growing_nd(h, loc, name, units, 0, 0);
}

/* Appends m rows (rank 1: m values; rank 3: m x R x C) to @p d holding @p rows. */
static int append(hid_t d, size_t rows, size_t m, size_t R, size_t C, const double *v) {
  int rank = R ? 3 : 1;
  hsize_t size[3] = {rows + m, R, C}, start[3] = {rows, 0, 0}, len[3] = {m, R, C};
  hid_t file_space = -1, mem = H5Screate_simple(rank, len, NULL);
  int bad = mem < 0 || H5Dset_extent(d, size) < 0 || (file_space = H5Dget_space(d)) < 0 ||
            H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, NULL, len, NULL) < 0 ||
            H5Dwrite(d, H5T_NATIVE_DOUBLE, mem, file_space, H5P_DEFAULT, v) < 0;
  if (file_space >= 0)
    H5Sclose(file_space);
  if (mem >= 0)
    H5Sclose(mem);
  return bad ? -1 : 0;
}

static int stream_free(h5_stream *h) {
  int bad = 0;
  for (size_t j = 0; h->ds && j < h->n_cols; j++)
    if (h->ds[j] >= 0)
      H5Dclose(h->ds[j]);
  for (int L = 0; L < GRID_LAYERS; L++) {
    if (h->layer_t[L] >= 0)
      H5Dclose(h->layer_t[L]);
    if (h->layer_p[L] >= 0)
      H5Dclose(h->layer_p[L]);
  }
  for (size_t b = 0; h->block_ds && b < 3 * h->nb; b++)
    if (h->block_ds[b] >= 0)
      H5Dclose(h->block_ds[b]);
  if (h->file >= 0 && H5Fclose(h->file) < 0)
    bad = 1;
  free(h->ds), free(h->col), free(h->plane), free(h->center), free(h->block_ds), free(h);
  return bad ? -1 : 0;
}

/* A hard link @p name in @p group to the scale at @p path, so that a group opened alone
 * (xarray's open_dataset(group=...)) has its coordinate's values; left out where the group
 * already has a member of that name (a node named time_s). */
static int link_scale(hid_t group, hid_t file, const char *name, const char *path) {
  htri_t e = H5Lexists(group, name, H5P_DEFAULT);
  if (e != 0)
    return e < 0 ? -1 : 0;
  return H5Lcreate_hard(file, path, group, name, H5P_DEFAULT, H5P_DEFAULT) < 0 ? -1 : 0;
}

/* /grid/y_m and /grid/x_m (cell centres) as dimension scales. */
static int grid_scales(h5_stream *h, const sits_scenario *sc, hid_t *y, hid_t *x) {
  hid_t g = H5Gcreate2(h->file, "/grid", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  double *v = malloc((h->R > h->C ? h->R : h->C) * sizeof *v);
  int bad = g < 0 || !v;
  hsize_t nr[1] = {h->R}, nc[1] = {h->C};
  for (size_t i = 0; !bad && i < h->R; i++)
    v[i] = sc->grid_height_m - ((double)i + 0.5) * sc->grid_height_m / (double)h->R;
  bad = bad || H5LTmake_dataset_double(g, "y_m", 1, nr, v) < 0;
  for (size_t j = 0; !bad && j < h->C; j++)
    v[j] = ((double)j + 0.5) * sc->grid_width_m / (double)h->C;
  bad = bad || H5LTmake_dataset_double(g, "x_m", 1, nc, v) < 0;
  free(v);
  *y = bad ? -1 : H5Dopen2(g, "y_m", H5P_DEFAULT);
  *x = bad ? -1 : H5Dopen2(g, "x_m", H5P_DEFAULT);
  bad = bad || *y < 0 || *x < 0 || str_attr(g, "y_m", "units", "m") < 0 ||
        str_attr(g, "x_m", "units", "m") < 0 || H5DSset_scale(*y, "y_m") < 0 ||
        H5DSset_scale(*x, "x_m") < 0;
  if (g >= 0)
    H5Gclose(g);
  return bad ? -1 : 0;
}

static int grid_open(h5_stream *h, const sits_scenario *sc, hid_t gt, hid_t gp) {
  hid_t y = -1, x = -1;
  int bad = grid_scales(h, sc, &y, &x);
  for (int L = 0; L < GRID_LAYERS && !bad; L++) {
    bad = (h->layer_t[L] = growing_nd(h, gt, layer_name[L], "degC", h->R, h->C)) < 0 ||
          (h->layer_p[L] = growing_nd(h, gp, layer_name[L], "W", h->R, h->C)) < 0;
    for (int k = 0; k < 2 && !bad; k++) {
      hid_t d = k ? h->layer_p[L] : h->layer_t[L];
      bad = H5DSattach_scale(d, h->time, 0) < 0 || H5DSattach_scale(d, y, 1) < 0 ||
            H5DSattach_scale(d, x, 2) < 0;
    }
  }
  if (y >= 0)
    H5Dclose(y);
  if (x >= 0)
    H5Dclose(x);
  h->nb = sc->n_groups, h->blocks = sc->groups;
  h->center = malloc((h->nb ? h->nb : 1) * sizeof *h->center);
  h->block_ds = malloc((h->nb ? 3 * h->nb : 1) * sizeof *h->block_ds);
  bad = bad || !h->center || !h->block_ds;
  for (size_t b = 0; h->block_ds && b < 3 * h->nb; b++)
    h->block_ds[b] = -1;
  hid_t blocks = bad ? -1 : H5Gcreate2(h->file, "/blocks", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  bad = bad || blocks < 0;
  static const char *const what[3] = {"max_c", "avg_c", "center_c"};
  for (size_t b = 0; b < h->nb && !bad; b++) {
    h->center[b] = sits_thermal_find(sits_scenario_thermal(sc), h->blocks[b].name);
    hid_t g = H5Gcreate2(blocks, h->blocks[b].name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    bad = g < 0 || h->center[b] < 0;
    for (int k = 0; k < 3 && !bad; k++)
      bad = (h->block_ds[3 * b + k] = growing(h, g, what[k], "degC")) < 0 ||
            H5DSattach_scale(h->block_ds[3 * b + k], h->time, 0) < 0;
    bad = bad || link_scale(g, h->file, "time_s", "/time_s") < 0;
    if (g >= 0)
      H5Gclose(g);
  }
  if (blocks >= 0)
    H5Gclose(blocks);
  return bad ? -1 : 0;
}

static void *stream_open_fn(const char *tmp, const sits_scenario *sc) {
  h5_stream *h = calloc(1, sizeof *h);
  if (!h)
    return NULL;
  const sits_thermal *th = sits_scenario_thermal(sc);
  const sits_domain *dom = sits_scenario_domains(sc, &h->nd);
  h->n = sits_thermal_node_count(th);
  h->R = sc->grid_rows, h->C = sc->grid_cols;
  if (h->R * h->C * GRID_LAYERS > h->n)
    h->R = h->C = 0;
  for (int L = 0; L < GRID_LAYERS; L++)
    h->layer_t[L] = h->layer_p[L] = -1;
  h->time = -1;
  double samples = floor(sc->duration_s / sc->sample_period_s) + 1.0;
  h->chunk_rows = samples >= 1 && samples < STREAM_CHUNK ? (hsize_t)samples : STREAM_CHUNK;
  h->battery = sits_scenario_battery(sc) != NULL;
  h->nf = sc->n_fans;
  h->n_cols = 1 + 2 * h->n + 1 + 2 * h->nd + (h->battery ? 3 : 0) + h->nf;
  h->ds = malloc(h->n_cols * sizeof *h->ds);
  h->col = malloc(STREAM_CHUNK * sizeof *h->col);
  h->file = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  bool bad = !h->ds || !h->col || h->file < 0;
  for (size_t j = 0; h->ds && j < h->n_cols; j++)
    h->ds[j] = -1;
  const char *groups[] = {"/temp_c",   "/node_power_w", "/power_w",
                          "/freq_mhz", "/battery",      "/fan_duty"};
  hid_t g[6] = {-1, -1, -1, -1, -1, -1};
  for (int k = 0; k < 6 && !bad; k++)
    if (k < 4 || (k == 4 && h->battery) || (k == 5 && h->nf))
      bad = (g[k] = H5Gcreate2(h->file, groups[k], H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0;
  size_t j = 0, cells = GRID_LAYERS * h->R * h->C;
  if (!bad)
    bad = (h->ds[j++] = h->time = growing(h, h->file, "/time_s", "s")) < 0 ||
          H5DSset_scale(h->time, "time_s") < 0;
  for (size_t i = 0; i < h->n && !bad; i++, j++)
    bad = i < cells ? (h->ds[j] = -2, false)
                    : (h->ds[j] = growing(h, g[0], sits_thermal_name(th, (int)i), "degC")) < 0;
  for (size_t i = 0; i < h->n && !bad; i++, j++)
    bad = i < cells ? (h->ds[j] = -2, false)
                    : (h->ds[j] = growing(h, g[1], sits_thermal_name(th, (int)i), "W")) < 0;
  if (!bad)
    bad = (h->ds[j++] = growing(h, g[2], "total", "W")) < 0;
  for (size_t d = 0; d < h->nd && !bad; d++)
    bad = (h->ds[j++] = growing(h, g[2], dom[d].name, "W")) < 0;
  for (size_t d = 0; d < h->nd && !bad; d++)
    bad = (h->ds[j++] = growing(h, g[3], dom[d].name, "MHz")) < 0;
  if (h->battery && !bad)
    bad = (h->ds[j++] = growing(h, g[4], "soc", "1")) < 0 ||
          (h->ds[j++] = growing(h, g[4], "voltage_v", "V")) < 0 ||
          (h->ds[j++] = growing(h, g[4], "current_a", "A")) < 0;
  for (size_t f = 0; f < h->nf && !bad; f++)
    bad = (h->ds[j++] = growing(h, g[5], sc->fans[f].name, "1")) < 0;
  for (size_t k = 1; k < h->n_cols && !bad; k++) /* time is every series' dimension scale */
    bad = h->ds[k] >= 0 && H5DSattach_scale(h->ds[k], h->time, 0) < 0;
  for (int k = 0; k < 6 && !bad; k++) /* each group's coordinate, for a group read alone */
    bad = g[k] >= 0 && link_scale(g[k], h->file, "time_s", "/time_s") < 0;
  if (h->R && !bad)
    bad = (h->plane = malloc((GRID_CHUNK_VALUES > h->R * h->C ? GRID_CHUNK_VALUES : h->R * h->C) *
                             sizeof *h->plane)) == NULL ||
          grid_open(h, sc, g[0], g[1]) < 0;
  for (int k = 0; k < 2 && h->R && !bad; k++) /* the layers' other coordinates */
    bad = link_scale(g[k], h->file, "y_m", "/grid/y_m") < 0 ||
          link_scale(g[k], h->file, "x_m", "/grid/x_m") < 0;
  for (int k = 0; k < 6; k++)
    if (g[k] >= 0)
      H5Gclose(g[k]);
  if (bad) {
    stream_free(h);
    return NULL;
  }
  return h;
}

/* The grid's layers and blocks for rows first..first+m-1. */
static int grid_rows(h5_stream *h, const sits_result *r, size_t first, size_t m) {
  size_t rc = h->R * h->C, per = GRID_CHUNK_VALUES / rc ? GRID_CHUNK_VALUES / rc : 1;
  for (size_t at = 0; at < m; at += per) {
    size_t q = m - at < per ? m - at : per;
    for (int L = 0; L < GRID_LAYERS; L++)
      for (int k = 0; k < 2; k++) {
        const double *src = k ? r->node_power_w : r->temp_c;
        for (size_t t = 0; t < q; t++)
          memcpy(h->plane + t * rc, src + (first + at + t) * h->n + (size_t)L * rc,
                 rc * sizeof *h->plane);
        if (append(k ? h->layer_p[L] : h->layer_t[L], h->rows + at, q, h->R, h->C, h->plane))
          return -1;
      }
  }
  for (size_t b = 0; b < h->nb; b++) {
    const sits__group *g = &h->blocks[b];
    for (int k = 0; k < 3; k++) {
      for (size_t t = 0; t < m; t++) {
        const double *row = r->temp_c + (first + t) * h->n;
        double v = k == 2 ? row[h->center[b]] : k == 0 ? -INFINITY : 0;
        for (size_t c = 0; k < 2 && c < g->n; c++)
          v = k == 0 ? fmax(v, row[g->nodes[c]]) : v + g->w[c] * row[g->nodes[c]];
        h->col[t] = v;
      }
      if (append(h->block_ds[3 * b + k], h->rows, m, 0, 0, h->col))
        return -1;
    }
  }
  return 0;
}

static int stream_rows_fn(h5_stream *h, const sits_result *r, size_t first, size_t count) {
  for (size_t at = 0; at < count; at += STREAM_CHUNK) {
    size_t m = count - at < STREAM_CHUNK ? count - at : STREAM_CHUNK;
    for (size_t j = 0; j < h->n_cols; j++) {
      if (h->ds[j] == -2) /* a grid cell: in its layer's dataset */
        continue;
      for (size_t k = 0; k < m; k++)
        h->col[k] = cell(h, r, first + at + k, j);
      if (append(h->ds[j], h->rows, m, 0, 0, h->col))
        return -1;
    }
    if (h->R && grid_rows(h, r, first + at, m))
      return -1;
    h->rows += m;
  }
  return 0;
}

/* A whole result at once: the stream's layout in one go. */
static int write_file(const char *tmp, const sits_scenario *sc, const sits_result *r) {
  h5_stream *h = stream_open_fn(tmp, sc);
  if (!h)
    return -1;
  int rc = stream_rows_fn(h, r, 0, r->n_samples) || put_events(h->file, r) ||
           put_attributes(h->file, sc, r);
  return stream_free(h) || rc ? -1 : 0;
}

/* The stream's entry points with HDF5's error printing off, as quietly() does. */
static void *stream_open(const char *tmp, const sits_scenario *sc) {
  H5E_auto2_t fn;
  void *data;
  H5Eget_auto2(H5E_DEFAULT, &fn, &data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  void *h = stream_open_fn(tmp, sc);
  H5Eset_auto2(H5E_DEFAULT, fn, data);
  return h;
}

static int stream_rows(void *h, const sits_result *r, size_t first, size_t count) {
  H5E_auto2_t fn;
  void *data;
  H5Eget_auto2(H5E_DEFAULT, &fn, &data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  int rc = stream_rows_fn(h, r, first, count);
  H5Eset_auto2(H5E_DEFAULT, fn, data);
  return rc;
}

static int stream_close(void *p, const sits_scenario *sc, const sits_result *r) {
  h5_stream *h = p;
  H5E_auto2_t fn;
  void *data;
  H5Eget_auto2(H5E_DEFAULT, &fn, &data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  int rc = r ? (put_events(h->file, r) || put_attributes(h->file, sc, r)) : 0;
  rc = stream_free(h) || rc;
  H5Eset_auto2(H5E_DEFAULT, fn, data);
  return rc ? -1 : 0;
}

/* HDF5 closes what is still open at exit (H5_term_library, an atexit handler); a file whose
 * close failed (a full disk) makes it crash (HDF5 1.10: exit 139 after the error was
 * reported). In the sitsenergy program (which sets SITSENERGY_H5_NO_ATEXIT, cli/main.c) the
 * module asks the library, as it is loaded and before any other HDF5 call, not to install the
 * handler: the writers close every file they open, and what HDF5 keeps goes with the process.
 * In another process (Python with h5py, a user's program) HDF5 keeps its handler. */
__attribute__((constructor)) static void no_exit_handler(void) {
  if (getenv("SITSENERGY_H5_NO_ATEXIT"))
    H5dont_atexit();
}

SITS_API const sits__h5_ops sits_h5_module_ops = {write_result, write_columns, write_table,
                                                  stream_open,  stream_rows,   stream_close};

/* calibrate.c - battery calibration against a measured test (see sits_calibrate.h). */
#define _POSIX_C_SOURCE 200809L
#include "scenario_impl.h"
#include "sits_calibrate.h"
#include "sits_table.h"
#include "writer_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *mapping(const sits_scenario *sc, const char *key, const char *given,
                           const char *dflt) {
  if (given)
    return given;
  const char *v = NULL;
  config_setting_t *g = config_lookup(&sc->config.cfg, "replay.battery");
  if (g && config_setting_lookup_string(g, key, &v) == CONFIG_TRUE)
    return v;
  return dflt;
}

static int column(const sits_table *t, const char *name, const char *path, sits_err *err) {
  int c = sits_table_column(t, name);
  if (c < 0)
    sits__fail(err, SITS_EINPUT, "%s:1: no column '%s' (map it with replay.battery or the options)",
               path, name);
  return c;
}

int sits_calibrate_battery(const sits_scenario *sc, const sits_calibrate_opts *o,
                           sits_calibration *out, sits_err *err) {
  memset(out, 0, sizeof *out);
  const sits_battery *b = sits_scenario_battery(sc);
  if (!b)
    return sits__fail(err, SITS_EINPUT, "--fit battery needs a battery in the platform");
  int sign = o->discharge_positive;
  if (sign < 0) {
    int v = 0;
    config_setting_t *g = config_lookup(&sc->config.cfg, "replay.battery");
    sign = g && config_setting_lookup_bool(g, "discharge_positive", &v) == CONFIG_TRUE ? v : 0;
  }
  sits_table *t = NULL;
  int rc = sits_table_read_csv(o->trace_path, &t, err);
  if (rc)
    return rc;
  int ct = column(t, mapping(sc, "time_column", o->time_column, "time_s"), o->trace_path, err);
  int ci = ct < 0 ? -1
                  : column(t, mapping(sc, "current_column", o->current_column, "current_a"),
                           o->trace_path, err);
  int cv = ci < 0 ? -1
                  : column(t, mapping(sc, "voltage_column", o->voltage_column, "voltage_v"),
                           o->trace_path, err);
  if (cv < 0) {
    sits_table_free(t);
    return SITS_EINPUT;
  }
  out->n = t->n_rows;
  out->t_s = malloc(out->n * sizeof(double));
  out->i_a = malloc(out->n * sizeof(double));
  out->v_v = malloc(out->n * sizeof(double));
  if (!out->t_s || !out->i_a || !out->v_v)
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t k = 0; rc == SITS_OK && k < out->n; k++) {
    out->t_s[k] = sits_table_at(t, k, (size_t)ct);
    out->i_a[k] = (sign ? 1 : -1) * sits_table_at(t, k, (size_t)ci);
    out->v_v[k] = sits_table_at(t, k, (size_t)cv);
    if (k && !(out->t_s[k] > out->t_s[k - 1]))
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: time does not increase", o->trace_path,
                      t->lines[k]);
  }
  sits_table_free(t);
  const sits_battery_cfg *cell = sits_battery_config(b);
  sits_battery_cfg c = *cell;
  c.capacity_ah = sits_battery_capacity_ah(b);
  c.capacity_wh = NAN;
  size_t n_rc = cell->n_rc ? cell->n_rc : 1;
  out->train_fraction = o->train_fraction;
  out->fit_capacity = o->fit_capacity;
  if (rc == SITS_OK)
    rc = sits_battery_fit_cell(&c, out->t_s, out->i_a, out->v_v, out->n, n_rc, o->train_fraction,
                               o->fit_capacity, &out->fit, err);
  return rc;
}

void sits_calibration_release(sits_calibration *c) {
  free(c->t_s), free(c->i_a), free(c->v_v), free(c->fit.model_v);
  memset(c, 0, sizeof *c);
}

static void metrics_json(FILE *f, const char *key, const sits_fit_metrics *m) {
  fprintf(f, "\"%s\":{\"voltage_v\":{\"rmse_v\":", key);
  sits__json_num(f, m->rmse_v);
  fputs(",\"mae_v\":", f);
  sits__json_num(f, m->mae_v);
  fputs(",\"max_abs_err_v\":", f);
  sits__json_num(f, m->max_abs_err_v);
  fputs(",\"bias_v\":", f);
  sits__json_num(f, m->bias_v);
  fputs(",\"r2\":", f);
  sits__json_num(f, m->r2);
  fprintf(f, ",\"n\":%zu}}", m->n);
}

int sits_write_calibration_json(const sits_calibration *c, FILE *f) {
  const sits_battery_fit *b = &c->fit;
  fprintf(f, "{\"fit\":[\"battery\"],\"parameters\":{\"platform.battery.r0_ohm\":%.10g", b->r0_ohm);
  for (size_t k = 0; k < b->n_rc; k++)
    fprintf(f, ",\"platform.battery.rc.[%zu].r_ohm\":%.10g,\"platform.battery.rc.[%zu].c_f\":%.10g",
            k, b->rc_r_ohm[k], k, b->rc_c_f[k]);
  if (c->fit_capacity)
    fprintf(f, ",\"platform.battery.capacity_ah\":%.10g", b->capacity_ah);
  fprintf(f, ",\"initial_soc_of_the_test\":%.10g},", b->initial_soc);
  metrics_json(f, "train", &b->train);
  fputc(',', f);
  metrics_json(f, "holdout", &b->holdout);
  fprintf(f, ",\"train_fraction\":%.10g,\"converged\":%s}\n", c->train_fraction,
          b->converged ? "true" : "false");
  return ferror(f) ? SITS_EIO : SITS_OK;
}

static int set_float(config_setting_t *g, const char *key, double v) {
  config_setting_t *s = config_setting_get_member(g, key);
  if (s)
    config_setting_remove(g, key);
  s = config_setting_add(g, key, CONFIG_TYPE_FLOAT);
  return s && config_setting_set_float(s, v) == CONFIG_TRUE ? 0 : -1;
}

int sits_write_calibrated_config(const sits_scenario *sc, const sits_calibration *c,
                                 const char *path, sits_err *err) {
  config_t cfg;
  config_init(&cfg);
  int ok = config_read_string(&cfg, sits_scenario_config_text(sc)) == CONFIG_TRUE;
  config_setting_t *b = ok ? config_lookup(&cfg, "platform.battery") : NULL;
  ok = b && set_float(b, "r0_ohm", c->fit.r0_ohm) == 0;
  if (ok && config_setting_get_member(b, "rc"))
    config_setting_remove(b, "rc");
  config_setting_t *rc = ok ? config_setting_add(b, "rc", CONFIG_TYPE_LIST) : NULL;
  for (size_t k = 0; rc && k < c->fit.n_rc; k++) {
    config_setting_t *g = config_setting_add(rc, NULL, CONFIG_TYPE_GROUP);
    ok = ok && g && set_float(g, "r_ohm", c->fit.rc_r_ohm[k]) == 0 &&
         set_float(g, "c_f", c->fit.rc_c_f[k]) == 0;
  }
  if (ok && c->fit_capacity) {
    ok = set_float(b, "capacity_ah", c->fit.capacity_ah) == 0;
    if (config_setting_get_member(b, "capacity_wh"))
      config_setting_remove(b, "capacity_wh");
  }
  sits__atomic a;
  int status = ok ? sits__atomic_begin(&a, path, err)
                  : sits__fail(err, SITS_EINTERNAL, "cannot build the calibrated config");
  if (status == SITS_OK) {
    int wrote = config_write_file(&cfg, a.tmp_path) == CONFIG_TRUE;
    if (!wrote)
      sits__fail(err, SITS_EIO, "%s: cannot write", path);
    status = sits__atomic_end(&a, wrote, err);
  }
  config_destroy(&cfg);
  return status;
}

int sits_write_calibration_csv(const sits_calibration *c, const char *path, sits_err *err) {
  FILE *f = fopen(path, "w");
  if (!f)
    return sits__fail(err, SITS_EIO, "%s: cannot create", path);
  fputs("time_s,voltage_v,model_voltage_v,current_a\n", f);
  for (size_t k = 0; k < c->n; k++)
    fprintf(f, "%.9g,%.9g,%.9g,%.9g\n", c->t_s[k] - c->t_s[0], c->v_v[k], c->fit.model_v[k],
            c->i_a[k]);
  return fclose(f) == 0 ? SITS_OK : sits__fail(err, SITS_EIO, "%s: write error", path);
}

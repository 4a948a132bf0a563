/*
 * battery_cfg.c - the platform's `battery` group into a sits_battery, checked, with the
 * scenario's battery_capacity_wh override. Errors name file:line.
 */
#define _POSIX_C_SOURCE 200809L
#include "scenario_internal.h"
#include "status_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define BATTERY_KEY "platform.battery."

/* The battery's numeric arrays (required). */
static int read_array(const config_setting_t *g, const char *key, double *out, size_t max,
                      size_t *n, sits_err *err) {
  return sits__key_numbers(g, key, "the battery", out, max, n, err);
}

static int read_rc(const config_setting_t *g, sits_battery_cfg *c, sits_err *err) {
  const config_setting_t *rc = config_setting_get_member(g, "rc");
  if (!rc)
    return SITS_OK;
  if (!config_setting_is_list(rc) || (size_t)config_setting_length(rc) > SITS_BATTERY_MAX_RC)
    return sits__fail_at(err, SITS_EINPUT, rc,
                         "'rc' must be a list of 0 to %d groups { r_ohm; c_f; }",
                         SITS_BATTERY_MAX_RC);
  c->n_rc = (size_t)config_setting_length(rc);
  for (size_t k = 0; k < c->n_rc; k++) {
    const config_setting_t *e = config_setting_get_elem(rc, (unsigned)k);
    int r;
    if ((r = sits__key_num(e, "platform.battery.rc.[].r_ohm", &c->rc_r_ohm[k], err)) ||
        (r = sits__key_num(e, "platform.battery.rc.[].c_f", &c->rc_c_f[k], err)))
      return r;
  }
  return SITS_OK;
}

/* A table of group @p g: key @p key is an array over the @p n points of @p like, or with
 * @p n_rows rows over temperature (@p temps, named @p rows_key) a list of n_rows such arrays.
 * Row j goes to out + j * stride; a 1-D table to out (one row). */
typedef struct table_spec {
  const char *key, *like, *rows_key;
  size_t n, n_rows;
  const double *temps;
  double *out;
  size_t stride, max;
} table_spec;

static int read_table(const config_setting_t *g, const table_spec *t, sits_err *err) {
  if (!t->n_rows) {
    size_t n_v = 0;
    int rc = read_array(g, t->key, t->out, t->max, &n_v, err);
    if (rc == SITS_OK && n_v != t->n)
      return sits__fail_at(err, SITS_EINPUT, g, "%s has %zu values but %s %zu", t->like, t->n,
                           t->key, n_v);
    return rc;
  }
  const config_setting_t *v = config_setting_get_member(g, t->key);
  if (!v || !config_setting_is_list(v) || (size_t)config_setting_length(v) != t->n_rows)
    return sits__fail_at(err, SITS_EINPUT, v ? v : g,
                         "with %s, '%s' must be a list of %zu arrays, one per temperature "
                         "( [...], [...] )",
                         t->rows_key, t->key, t->n_rows);
  for (size_t j = 0; j < t->n_rows; j++) {
    const config_setting_t *row = config_setting_get_elem(v, (unsigned)j);
    if (!config_setting_is_array(row) || (size_t)config_setting_length(row) != t->n)
      return sits__fail_at(err, SITS_EINPUT, row,
                           "%s row %zu (%g C) must be an array of %zu numbers like %s", t->key, j,
                           t->temps[j], t->n, t->like);
    for (size_t k = 0; k < t->n; k++) {
      const config_setting_t *e = config_setting_get_elem(row, (unsigned)k);
      if (!config_setting_is_number(e))
        return sits__fail_at(err, SITS_EINPUT, row, "%s must hold numbers", t->key);
      t->out[j * t->stride + k] = config_setting_get_float(e);
    }
  }
  return SITS_OK;
}

/* ocv_v: an array over ocv_soc, or with ocv_t_c one array per temperature (a 2-D table). */
static int read_ocv_v(const config_setting_t *g, sits_battery_cfg *c, sits_err *err) {
  if (config_setting_get_member(g, "ocv_t_c")) {
    int rc = read_array(g, "ocv_t_c", c->ocv_t_c, SITS_BATTERY_MAX_OCV_T, &c->n_ocv_t, err);
    if (rc)
      return rc;
  }
  table_spec t = {"ocv_v",
                  "ocv_soc",
                  "ocv_t_c",
                  c->n_ocv,
                  c->n_ocv_t,
                  c->ocv_t_c,
                  c->n_ocv_t ? c->ocv_v_t[0] : c->ocv_v,
                  SITS_BATTERY_MAX_OCV,
                  SITS_BATTERY_MAX_OCV};
  return read_table(g, &t, err);
}

/* The resistance tables: r_soc (and r_t_c), r0_scale and each pair's r_scale over them. */
static int read_r_tables(const config_setting_t *g, sits_battery_cfg *c, sits_err *err) {
  if (!config_setting_get_member(g, "r_soc")) {
    const char *need[] = {"r_t_c", "r0_scale"};
    for (int k = 0; k < 2; k++)
      if (config_setting_get_member(g, need[k]))
        return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(g, need[k]),
                             "'%s' needs 'r_soc', the SOC points of the resistance tables",
                             need[k]);
    const config_setting_t *list = config_setting_get_member(g, "rc");
    for (size_t k = 0; k < c->n_rc; k++)
      for (int w = 0; w < 2; w++) {
        const char *key = w ? "c_scale" : "r_scale";
        const config_setting_t *s =
            config_setting_get_member(config_setting_get_elem(list, (unsigned)k), key);
        if (s)
          return sits__fail_at(err, SITS_EINPUT, s,
                               "'%s' needs 'r_soc', the SOC points of the resistance tables", key);
      }
    return SITS_OK;
  }
  int rc = read_array(g, "r_soc", c->r_soc, SITS_BATTERY_MAX_R_SOC, &c->n_r_soc, err);
  if (rc == SITS_OK && config_setting_get_member(g, "r_t_c"))
    rc = read_array(g, "r_t_c", c->r_t_c, SITS_BATTERY_MAX_R_T, &c->n_r_t, err);
  if (rc)
    return rc;
  table_spec t = {"r0_scale",
                  "r_soc",
                  "r_t_c",
                  c->n_r_soc,
                  c->n_r_t,
                  c->r_t_c,
                  c->r0_scale[0],
                  SITS_BATTERY_MAX_R_SOC,
                  SITS_BATTERY_MAX_R_SOC};
  if (!config_setting_get_member(g, "r0_scale")) /* R0 at factor 1, the pairs' tables only */
    for (size_t j = 0; j < SITS_BATTERY_MAX_R_T; j++)
      for (size_t k = 0; k < SITS_BATTERY_MAX_R_SOC; k++)
        c->r0_scale[j][k] = 1.0;
  else if ((rc = read_table(g, &t, err)))
    return rc;
  const config_setting_t *list = config_setting_get_member(g, "rc");
  for (size_t k = 0; k < c->n_rc; k++) {
    const config_setting_t *e = config_setting_get_elem(list, (unsigned)k);
    if (config_setting_get_member(e, "r_scale")) {
      c->rc_has_scale[k] = true;
      t.key = "r_scale", t.out = c->rc_r_scale[k][0];
      if ((rc = read_table(e, &t, err)))
        return rc;
    }
    if (config_setting_get_member(e, "c_scale")) { /* the capacitance's, over the same points */
      c->rc_has_c_scale[k] = true;
      t.key = "c_scale", t.out = c->rc_c_scale[k][0];
      if ((rc = read_table(e, &t, err)))
        return rc;
    }
  }
  return SITS_OK;
}

/* Capacity over temperature: capacity_t_c and capacity_scale, both or neither, one factor per
 * temperature. */
static int read_capacity_rows(const config_setting_t *g, sits_battery_cfg *c, sits_err *err) {
  const config_setting_t *t = config_setting_get_member(g, "capacity_t_c");
  const config_setting_t *f = config_setting_get_member(g, "capacity_scale");
  if (!t != !f)
    return sits__fail_at(
        err, SITS_EINPUT, t ? t : f, "'%s' needs '%s' (a capacity factor at each temperature)",
        t ? "capacity_t_c" : "capacity_scale", t ? "capacity_scale" : "capacity_t_c");
  if (!t)
    return SITS_OK;
  size_t n_f = 0;
  int rc = read_array(g, "capacity_t_c", c->q_t_c, SITS_BATTERY_MAX_R_T, &c->n_q_t, err);
  if (rc == SITS_OK)
    rc = read_array(g, "capacity_scale", c->q_scale, SITS_BATTERY_MAX_R_T, &n_f, err);
  if (rc == SITS_OK && n_f != c->n_q_t)
    return sits__fail_at(err, SITS_EINPUT, f, "capacity_t_c has %zu values but capacity_scale %zu",
                         c->n_q_t, n_f);
  if (rc == SITS_OK && c->n_q_t < 2)
    return sits__fail_at(err, SITS_EINPUT, t,
                         "capacity_t_c needs 2 to %d temperatures (one is a capacity_ah)",
                         SITS_BATTERY_MAX_R_T);
  return rc;
}

/* R0 plus the RC pairs' resistances: the cell's resistance to a steady load [ohm]. */
static double dc_resistance(const sits_battery_cfg *c) {
  double r = c->r0_ohm;
  for (size_t k = 0; k < c->n_rc; k++)
    r += c->rc_r_ohm[k];
  return r;
}

/* The optional hysteresis group { m_v; gamma; initial; m0_v; } into @p c. */
static int read_hysteresis(const config_setting_t *g, sits_battery_cfg *c, sits_err *err) {
  int rc = SITS_OK;
  const config_setting_t *hy = config_setting_get_member(g, "hysteresis");
  if (hy) {
    if (!config_setting_is_group(hy))
      return sits__fail_at(err, SITS_EINPUT, hy, "'hysteresis' must be a group { m_v; gamma; }");
    if ((rc = sits__key_num(hy, BATTERY_KEY "hysteresis.m_v", &c->hyst_m_v, err)) ||
        (rc = sits__key_num(hy, BATTERY_KEY "hysteresis.gamma", &c->hyst_gamma, err)) ||
        (rc = sits__key_num(hy, BATTERY_KEY "hysteresis.initial", &c->hyst_initial, err)) ||
        (rc = sits__key_num(hy, BATTERY_KEY "hysteresis.m0_v", &c->hyst_m0_v, err)))
      return rc;
  }
  return rc;
}

/* A capacity given must be > 0 (the model takes 0 for "not given"): the pack's and the
 * scenario's battery_capacity_wh (@p wh, its value @p scenario_wh). */
static int check_capacities(const config_setting_t *g, const config_setting_t *wh,
                            const sits_battery_cfg *c, double scenario_wh, sits_err *err) {
  const char *cap_keys[] = {"capacity_ah", "capacity_wh"};
  const double cap_vals[] = {c->capacity_ah, c->capacity_wh};
  for (int k = 0; k < 2; k++)
    if (config_setting_get_member(g, cap_keys[k]) && !(cap_vals[k] > 0))
      return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(g, cap_keys[k]),
                           "the capacity must be > 0 (%s = %g)", cap_keys[k], cap_vals[k]);
  if (wh && !(scenario_wh > 0))
    return sits__fail_at(err, SITS_EINPUT, wh,
                         "the capacity must be > 0 (battery_capacity_wh = %g)", scenario_wh);
  return SITS_OK;
}

/* A pack resized by battery_capacity_wh: its own node's heat capacity scales with its energy
 * (the same cells, more or fewer of them) and its resistance to the ambient with its surface,
 * energy^(-2/3). @p file_wh: the pack file's energy. */
static int scale_pack_node(sits_scenario *sc, double file_wh, double scenario_wh, sits_err *err) {
  if (!sc->batt_own_node || !(file_wh > 0) || scenario_wh == file_wh)
    return SITS_OK;
  double f = scenario_wh / file_wh;
  sc->batt_node_scale = f;
  int rc =
      sits_thermal_set_capacity(sc->thermal, sc->batt_node,
                                f * sits_thermal_capacity_j_per_k(sc->thermal, sc->batt_node), err);
  return rc ? rc
            : sits_thermal_set_link_r(sc->thermal, sc->batt_link,
                                      pow(f, -2.0 / 3.0) *
                                          sits_thermal_link_r_k_per_w(sc->thermal, sc->batt_link),
                                      err);
}

/* The loader's notes on the pack: a default pack sized to battery_capacity_wh, an OCV at SOC 0
 * above the cutoff. */
static int battery_notes(sits_scenario *sc, const config_setting_t *g, const config_setting_t *wh,
                         const sits_battery_cfg *c, double scenario_wh, sits_err *err) {
  int rc;
  if (sc->config.default_battery && wh &&
      (rc = sits__scenario_note(sc, err,
                                "the platform has no battery: battery_capacity_wh = %g Wh sizes a "
                                "'%s' pack (battery_default) to it, %zuS%zuP, capacity scaled "
                                "(%.3f Ah per cell)",
                                scenario_wh, sc->config.default_battery, c->series, c->parallel,
                                sits_battery_capacity_ah(sc->battery) / (double)c->parallel)))
    return rc;
  if (c->ocv_soc[0] > 0 || c->ocv_soc[c->n_ocv - 1] < 1) { /* held flat beyond its ends */
    const char *name = NULL;
    config_setting_lookup_string(g, "name", &name);
    if ((rc = sits__scenario_note(
             sc, err,
             "battery %s: ocv_soc covers SOC %g to %g only: the OCV is held at its end values "
             "outside it (%.3f V below, %.3f V above), so the charge there is counted at them",
             name ? name : "", c->ocv_soc[0], c->ocv_soc[c->n_ocv - 1],
             sits_battery_ocv_v(sc->battery, 0.0), sits_battery_ocv_v(sc->battery, 1.0))))
      return rc;
  }
  double ocv0 = sits_battery_ocv_v(sc->battery, 0.0);
  if (ocv0 > c->cutoff_v) { /* SOC 0 comes before the cutoff at rest: say what ends the run */
    const char *name = NULL;
    config_setting_lookup_string(g, "name", &name);
    return sits__scenario_note(
        sc, err,
        "battery %s: the OCV at SOC 0 (%.3f V per cell) is above cutoff_v (%.3f V), as when the "
        "capacity was measured to the cutoff under load: a run ends at SOC 0 (battery_empty) "
        "unless the load's IR drop (%.0f mOhm per cell with the RC pairs) reaches the cutoff first",
        name ? name : "", ocv0, c->cutoff_v, 1e3 * dc_resistance(c));
  }
  return SITS_OK;
}

/* The key of the battery group a check's message @p msg is about (its line in the error),
 * else the group. */
static const config_setting_t *battery_key_of(const config_setting_t *g, const char *msg) {
  static const struct {
    const char *says, *key;
  } keys[] = {{"cutoff_v", "cutoff_v"},
              {"ocv_soc", "ocv_soc"},
              {"OCV temperatures", "ocv_t_c"},
              {"OCV table", "ocv_v"},
              {"r0_ohm", "r0_ohm"},
              {"RC pair", "rc"},
              {"series and parallel", "series"},
              {"coulombic", "coulombic_efficiency"},
              {"hysteresis", "hysteresis"},
              {"capacity_t_c", "capacity_t_c"},
              {"capacity_scale", "capacity_scale"},
              {"r_soc", "r_soc"}};
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
    const config_setting_t *m;
    if (strstr(msg, keys[k].says) && (m = config_setting_get_member(g, keys[k].key)))
      return m;
  }
  return g;
}

int sits__load_battery(sits_scenario *sc, const config_setting_t *root, sits_err *err) {
  const config_setting_t *p = config_setting_get_member(root, "platform");
  const config_setting_t *g = config_setting_get_member(p, "battery");
  const config_setting_t *wh = config_setting_get_member(root, "battery_capacity_wh");
  const config_setting_t *life = config_setting_get_member(root, "min_battery_life_s");
  int rc;
  if (!g) {
    if (wh || life)
      return sits__fail_at(err, SITS_EINPUT, wh ? wh : life, "'%s' needs a battery in the platform",
                           wh ? "battery_capacity_wh" : "min_battery_life_s");
    return SITS_OK;
  }
  if (!config_setting_is_group(g))
    return sits__fail_at(err, SITS_EINPUT, g, "'battery' must be a group");
  sits_battery_cfg c;
  memset(&c, 0, sizeof c);
  double series, parallel, ceff;
  const char *node = NULL;
  double scenario_wh;
  if ((rc = sits__key_num(g, BATTERY_KEY "series", &series, err)) ||
      (rc = sits__key_num(g, BATTERY_KEY "parallel", &parallel, err)) ||
      (rc = sits__key_num(g, BATTERY_KEY "capacity_ah", &c.capacity_ah, err)) ||
      (rc = sits__key_num(g, BATTERY_KEY "capacity_wh", &c.capacity_wh, err)) ||
      (rc = sits__key_num(root, "battery_capacity_wh", &scenario_wh, err)) ||
      (rc = read_array(g, "ocv_soc", c.ocv_soc, SITS_BATTERY_MAX_OCV, &c.n_ocv, err)) ||
      (rc = sits__key_num(g, BATTERY_KEY "r0_ohm", &c.r0_ohm, err)) || (rc = read_rc(g, &c, err)) ||
      (rc = sits__key_num(g, BATTERY_KEY "r_ea_j_per_mol", &c.r_ea_j_per_mol, err)) ||
      (rc = sits__key_num(g, BATTERY_KEY "r_ref_c", &c.r_ref_c, err)) ||
      (rc = sits__key_num(g, BATTERY_KEY "cutoff_v", &c.cutoff_v, err)) ||
      (rc = sits__key_num(g, BATTERY_KEY "coulombic_efficiency", &ceff, err)) ||
      (rc = sits__key_num(g, BATTERY_KEY "initial_soc", &sc->batt_initial_soc, err)) ||
      (rc = sits__key_num(g, BATTERY_KEY "efficiency", &sc->batt_efficiency, err)) ||
      (rc = sits__key_str(g, BATTERY_KEY "node", &node, err)) ||
      (rc = sits__key_bool(g, BATTERY_KEY "entropic_heat", &c.entropic_heat, err)))
    return rc;
  if ((rc = read_hysteresis(g, &c, err)) || (rc = check_capacities(g, wh, &c, scenario_wh, err)))
    return rc;
  if (wh) /* the scenario's capacity wins over the pack's */
    c.capacity_wh = scenario_wh;
  if ((rc = read_ocv_v(g, &c, err)) || (rc = read_r_tables(g, &c, err)) ||
      (rc = read_capacity_rows(g, &c, err)))
    return rc;
  if (wh) /* the scenario's capacity wins over the pack's */
    c.capacity_ah = NAN;
  c.series = (size_t)series;
  c.parallel = (size_t)parallel;
  c.coulombic_eff = ceff;
  sc->batt_node = -1;
  /* the pack's own node, added with the platform's network (not on a floorplan's) */
  if (config_setting_get_member(g, "thermal") && !sc->hotspot && !node) {
    sc->batt_node = sits_thermal_find(sc->thermal, SITS_PACK_NODE);
    sc->batt_own_node = sc->batt_node >= 0;
  }
  if (node && strcmp(node, "ambient") == 0) /* isothermal at the ambient, as without a node */
    node = NULL;
  if (node && (sc->batt_node = sits_thermal_find(sc->thermal, node)) < 0)
    return sits__unknown_node(sc->thermal, config_setting_get_member(g, "node"), "battery", node,
                              err);
  if (!(sc->battery = sits_battery_new(&c, err))) {
    char msg[SITS_ERRMSG_MAX];
    snprintf(msg, sizeof msg, "%s", err->msg);
    return sits__fail_at(err, SITS_EINPUT, battery_key_of(g, msg), "battery: %s", msg);
  }
  if (wh) { /* the pack file's energy: its capacity_wh, or capacity_ah at the mean OCV */
    double file_wh = NAN, file_ah = NAN;
    if (config_setting_lookup_float(g, "capacity_wh", &file_wh) != CONFIG_TRUE &&
        config_setting_lookup_float(g, "capacity_ah", &file_ah) == CONFIG_TRUE)
      file_wh = file_ah * (double)(c.series * c.parallel) * sits_battery_mean_ocv_v(sc->battery);
    if ((rc = scale_pack_node(sc, file_wh, scenario_wh, err)))
      return sits__at(wh, rc, err);
  }
  return battery_notes(sc, g, wh, &c, scenario_wh, err);
}

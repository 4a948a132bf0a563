/*
 * fans.c - fans as cooling devices (platform.fans): each sets the resistance of one link of
 * the network by its duty, from a table of measured or fitted resistances.
 *
 * A fan's convective conductance grows smoothly and monotonically with its speed, so the
 * table is read as conductances and interpolated with GSL's Steffen spline (monotone
 * between points, no overshoot; linear for two points), held at the ends outside it. The
 * duty is what boards log: the PWM duty as a fraction (jtop's CURR_PWM %, hwmon pwmN / 255,
 * a cooling device's cur_state / max_state). It comes from a trace column when one is mapped
 * (replay.fans), else from the fan's trips, evaluated every period_s as the kernel's
 * step_wise governor does with active trips and a fan's cooling levels: trip k is on above
 * trip_c[k] and stays on until the sensor is below trip_c[k] - hysteresis_c[k]; the duty is
 * that of the highest trip on, initial_duty when none is.
 */
#include "scenario_internal.h"
#include "status_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_interp.h>

#define FAN_KEY "platform.fans.[]."

double sits__fan_g_w_per_k(const sits__fan *f, double duty) {
  size_t n = f->n_points;
  if (n == 1 || duty <= f->duty[0])
    return 1.0 / f->r_k_per_w[0];
  if (duty >= f->duty[n - 1])
    return 1.0 / f->r_k_per_w[n - 1];
  double g[SITS__FAN_POINTS];
  for (size_t k = 0; k < n; k++)
    g[k] = 1.0 / f->r_k_per_w[k];
  if (n == 2) {
    double w = (duty - f->duty[0]) / (f->duty[1] - f->duty[0]);
    return g[0] + w * (g[1] - g[0]);
  }
  gsl_interp *in = gsl_interp_alloc(gsl_interp_steffen, n);
  double v = NAN;
  if (in && gsl_interp_init(in, f->duty, g, n) == GSL_SUCCESS)
    v = gsl_interp_eval(in, f->duty, g, duty, NULL);
  gsl_interp_free(in);
  return v;
}

double sits__fan_trip_duty(const sits__fan *f, double temp_c, size_t *on) {
  while (*on < f->n_trips && temp_c > f->trip_c[*on])
    (*on)++;
  while (*on > 0 && temp_c < f->trip_c[*on - 1] - f->hysteresis_c[*on - 1])
    (*on)--;
  return *on ? f->trip_duty[*on - 1] : f->initial_duty;
}

int sits__fan_apply(sits_scenario *sc, size_t k, sits_err *err) {
  const sits__fan *f = &sc->fans[k];
  double g = sits__fan_g_w_per_k(f, f->initial_duty);
  if (!(g > 0) || !isfinite(g))
    return sits__fail(err, SITS_EINPUT, "fan '%s': no finite conductance at duty %g", f->name,
                      f->initial_duty);
  return sits_thermal_set_link_r(sc->thermal, f->link, 1.0 / g, err);
}

/* The link the fan names by its ends (either order; "ambient" for the ambient). */
static int find_link(sits_scenario *sc, const config_setting_t *g, sits__fan *f, sits_err *err) {
  const char *na = NULL, *nb = NULL;
  int rc;
  if ((rc = sits__key_str(g, FAN_KEY "a", &na, err)) ||
      (rc = sits__key_str(g, FAN_KEY "b", &nb, err)))
    return rc;
  int a = strcmp(na, "ambient") == 0 ? SITS_AMBIENT : sits_thermal_find(sc->thermal, na);
  int b = strcmp(nb, "ambient") == 0 ? SITS_AMBIENT : sits_thermal_find(sc->thermal, nb);
  if ((a < 0 && strcmp(na, "ambient")) || (b < 0 && strcmp(nb, "ambient")))
    return sits__fail_at(err, SITS_EINPUT, g, "fan '%s': no node '%s'", f->name,
                         a < 0 && strcmp(na, "ambient") ? na : nb);
  size_t found = 0;
  int la, lb;
  for (size_t k = 0; sits_thermal_link_ends(sc->thermal, k, &la, &lb) == SITS_OK; k++)
    if (((la == a && lb == b) || (la == b && lb == a)) && found++ == 0)
      f->link = k, f->a = la, f->b = lb;
  if (found == 0)
    return sits__fail_at(err, SITS_EINPUT, g, "fan '%s': no link joins '%s' and '%s'", f->name, na,
                         nb);
  if (found > 1)
    return sits__fail_at(err, SITS_EINPUT, g,
                         "fan '%s': %zu links join '%s' and '%s'; a fan cools one", f->name, found,
                         na, nb);
  return SITS_OK;
}

static int load_fan(sits_scenario *sc, const config_setting_t *g, sits__fan *f, sits_err *err) {
  const char *name = NULL, *sensor = NULL;
  int rc;
  if (!config_setting_is_group(g))
    return sits__fail_at(err, SITS_EINPUT, g,
                         "a fan must be a group { name; a; b; duty; "
                         "r_k_per_w; }");
  if ((rc = sits__key_str(g, FAN_KEY "name", &name, err)))
    return rc;
  if (strlen(name) >= sizeof f->name || !*name)
    return sits__fail_at(err, SITS_EINPUT, g, "a fan's name must have 1 to %zu characters",
                         sizeof f->name - 1);
  snprintf(f->name, sizeof f->name, "%s", name);
  if ((rc = find_link(sc, g, f, err)))
    return rc;
  size_t nr;
  if ((rc = sits__key_numbers(g, "duty", "a fan", f->duty, SITS__FAN_POINTS, &f->n_points, err)) ||
      (rc = sits__key_numbers(g, "r_k_per_w", "a fan", f->r_k_per_w, SITS__FAN_POINTS, &nr, err)))
    return rc;
  const config_setting_t *dm = config_setting_get_member(g, "duty");
  if (nr != f->n_points)
    return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(g, "r_k_per_w"),
                         "fan '%s': one r_k_per_w per duty (%zu duties, %zu resistances)", f->name,
                         f->n_points, nr);
  for (size_t k = 0; k < f->n_points; k++) {
    if (!(f->duty[k] >= 0 && f->duty[k] <= 1) || (k > 0 && !(f->duty[k] > f->duty[k - 1])))
      return sits__fail_at(err, SITS_EINPUT, dm,
                           "fan '%s': duty must rise strictly within 0-1 (a PWM fraction)",
                           f->name);
    if (!(f->r_k_per_w[k] > 0))
      return sits__fail_at(err, SITS_EINPUT, config_setting_get_member(g, "r_k_per_w"),
                           "fan '%s': r_k_per_w must be > 0", f->name);
  }
  if ((rc = sits__key_num(g, FAN_KEY "initial_duty", &f->initial_duty, err)) ||
      (rc = sits__key_num(g, FAN_KEY "period_s", &f->period_s, err)) ||
      (rc = sits__key_str(g, FAN_KEY "sensor", &sensor, err)))
    return rc;
  if (isnan(f->initial_duty)) /* not given: the table's first */
    f->initial_duty = f->duty[0];
  f->sensor = -1;
  const config_setting_t *trips = config_setting_get_member(g, "trips");
  if (trips) {
    if (!config_setting_is_list(trips) || config_setting_length(trips) > SITS__FAN_TRIPS)
      return sits__fail_at(err, SITS_EINPUT, trips,
                           "'trips' must be a list of at most %d groups { temp_c; "
                           "hysteresis_c; duty; }",
                           SITS__FAN_TRIPS);
    if (!sensor)
      return sits__fail_at(err, SITS_EINPUT, trips, "fan '%s': trips need a 'sensor' node",
                           f->name);
    f->n_trips = (size_t)config_setting_length(trips);
    for (size_t k = 0; k < f->n_trips; k++) {
      const config_setting_t *t = config_setting_get_elem(trips, (unsigned)k);
      f->hysteresis_c[k] = 0;
      if (!config_setting_is_group(t))
        return sits__fail_at(err, SITS_EINPUT, t, "a trip must be a group { temp_c; duty; }");
      if ((rc = sits__key_num(t, FAN_KEY "trips.[].temp_c", &f->trip_c[k], err)) ||
          (rc = sits__key_num(t, FAN_KEY "trips.[].hysteresis_c", &f->hysteresis_c[k], err)) ||
          (rc = sits__key_num(t, FAN_KEY "trips.[].duty", &f->trip_duty[k], err)))
        return rc;
      if (k > 0 && !(f->trip_c[k] > f->trip_c[k - 1]))
        return sits__fail_at(err, SITS_EINPUT, t, "fan '%s': trips must rise in temp_c", f->name);
    }
  }
  if (sensor && (f->sensor = sits_thermal_find(sc->thermal, sensor)) < 0)
    return sits__unknown_node(sc->thermal, config_setting_get_member(g, "sensor"), "fan", sensor,
                              err);
  return SITS_OK;
}

int sits__load_fans(sits_scenario *sc, const config_setting_t *p, sits_err *err) {
  const config_setting_t *list = config_setting_get_member(p, "fans");
  if (!list)
    return SITS_OK;
  if (sc->hotspot)
    return sits__fail_at(err, SITS_EINPUT, list,
                         "fans cool a link of a network of nodes and links; a floorplan has none "
                         "to name");
  if (!config_setting_is_list(list) || config_setting_length(list) > SITS__MAX_FANS)
    return sits__fail_at(err, SITS_EINPUT, list, "'fans' must be a list of at most %d groups",
                         SITS__MAX_FANS);
  sc->n_fans = (size_t)config_setting_length(list);
  for (size_t k = 0; k < sc->n_fans; k++) {
    const config_setting_t *g = config_setting_get_elem(list, (unsigned)k);
    sits__fan *f = &sc->fans[k];
    int rc = load_fan(sc, g, f, err);
    for (size_t j = 0; rc == SITS_OK && j < k; j++)
      if (!strcmp(sc->fans[j].name, f->name) || sc->fans[j].link == f->link)
        rc = sits__fail_at(err, SITS_EINPUT, g, "fan '%s': %s", f->name,
                           !strcmp(sc->fans[j].name, f->name) ? "a second fan of that name"
                                                              : "its link has a fan already");
    double r_link = sits_thermal_link_r_k_per_w(sc->thermal, f->link);
    if (rc == SITS_OK && (rc = sits__fan_apply(sc, k, err)))
      rc = sits__at(g, rc, err);
    if (rc)
      return rc;
    double r_fan = sits_thermal_link_r_k_per_w(sc->thermal, f->link);
    if (fabs(r_fan - r_link) > 1e-9 * r_link &&
        (rc = sits__scenario_note(sc, err,
                                  "fan %s: its link's r_k_per_w (%.4g K/W) is replaced by its "
                                  "table's %.4g K/W at duty %.3g (and follows the duty in runs)",
                                  f->name, r_link, r_fan, f->initial_duty)))
      return rc;
  }
  return SITS_OK;
}

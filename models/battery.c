/* battery.c - the Thevenin battery pack (see sits_battery.h for the equations). */
#include "sits_battery.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_interp.h>

#define R_GAS_J_PER_MOL_K 8.314462618
#define KELVIN 273.15

struct sits_battery {
  sits_battery_cfg cfg;
  double q_ah;
  gsl_interp *ocv;
  gsl_interp_accel *acc; /* a lookup cache: mutable, so a battery is not shared across threads */
};

static int check(const sits_battery_cfg *c, sits_err *err) {
  if (c->series < 1 || c->parallel < 1)
    return sits__fail(err, SITS_EINPUT, "series and parallel must be at least 1");
  if (c->n_ocv < 2 || c->n_ocv > SITS_BATTERY_MAX_OCV)
    return sits__fail(err, SITS_EINPUT, "the OCV table needs 2 to %d points", SITS_BATTERY_MAX_OCV);
  for (size_t k = 0; k < c->n_ocv; k++) {
    if (!(c->ocv_soc[k] >= 0 && c->ocv_soc[k] <= 1))
      return sits__fail(err, SITS_EINPUT, "ocv_soc[%zu] = %g is not in [0, 1]", k, c->ocv_soc[k]);
    if (k && !(c->ocv_soc[k] > c->ocv_soc[k - 1]))
      return sits__fail(err, SITS_EINPUT, "ocv_soc must increase (point %zu)", k);
    /* flat steps (LFP plateaus) and dips within the noise of measured tables are fine */
    if (k && !(c->ocv_v[k] >= c->ocv_v[k - 1] - SITS_BATTERY_OCV_NOISE_V))
      return sits__fail(err, SITS_EINPUT,
                        "the OCV table is not monotone: %g V after %g V at point %zu", c->ocv_v[k],
                        c->ocv_v[k - 1], k);
  }
  bool ah = c->capacity_ah > 0 && isfinite(c->capacity_ah);
  bool wh = c->capacity_wh > 0 && isfinite(c->capacity_wh);
  if (!ah && !wh)
    return sits__fail(err, SITS_EINPUT, "the capacity must be > 0 (capacity_ah or capacity_wh)");
  if (!(c->r0_ohm > 0) || c->n_rc > SITS_BATTERY_MAX_RC)
    return sits__fail(err, SITS_EINPUT, "r0_ohm must be > 0 and there are 0 to %d RC pairs",
                      SITS_BATTERY_MAX_RC);
  for (size_t k = 0; k < c->n_rc; k++)
    if (!(c->rc_r_ohm[k] > 0) || !(c->rc_c_f[k] > 0))
      return sits__fail(err, SITS_EINPUT, "RC pair %zu needs r_ohm > 0 and c_f > 0", k);
  if (!(c->ocv_v[c->n_ocv - 1] > c->ocv_v[0]))
    return sits__fail(err, SITS_EINPUT, "the OCV table is flat");
  if (!(c->cutoff_v < c->ocv_v[c->n_ocv - 1]))
    return sits__fail(err, SITS_EINPUT, "cutoff_v %g V is not below the OCV at full charge (%g V)",
                      c->cutoff_v, c->ocv_v[c->n_ocv - 1]);
  if (!(c->coulombic_eff > 0 && c->coulombic_eff <= 1))
    return sits__fail(err, SITS_EINPUT, "coulombic efficiency must be in (0, 1]");
  return SITS_OK;
}

sits_battery *sits_battery_new(const sits_battery_cfg *cfg, sits_err *err) {
  if (check(cfg, err))
    return NULL;
  sits_battery *b = calloc(1, sizeof *b);
  if (!b) {
    sits__fail(err, SITS_ENOMEM, "out of memory");
    return NULL;
  }
  b->cfg = *cfg;
  b->ocv = gsl_interp_alloc(gsl_interp_steffen, cfg->n_ocv);
  b->acc = gsl_interp_accel_alloc();
  if (!b->ocv || !b->acc || gsl_interp_init(b->ocv, b->cfg.ocv_soc, b->cfg.ocv_v, cfg->n_ocv)) {
    sits__fail(err, SITS_ENOMEM, "cannot set up the OCV interpolation");
    sits_battery_free(b);
    return NULL;
  }
  b->q_ah =
      cfg->capacity_ah > 0 && isfinite(cfg->capacity_ah)
          ? cfg->capacity_ah
          : cfg->capacity_wh / ((double)(cfg->series * cfg->parallel) * sits_battery_mean_ocv_v(b));
  return b;
}

void sits_battery_free(sits_battery *b) {
  if (!b)
    return;
  gsl_interp_free(b->ocv);
  gsl_interp_accel_free(b->acc);
  free(b);
}

const sits_battery_cfg *sits_battery_config(const sits_battery *b) {
  return &b->cfg;
}
double sits_battery_capacity_ah(const sits_battery *b) {
  return b->q_ah;
}

double sits_battery_ocv_v(const sits_battery *b, double soc) {
  const sits_battery_cfg *c = &b->cfg;
  soc = fmin(fmax(soc, c->ocv_soc[0]), c->ocv_soc[c->n_ocv - 1]);
  return gsl_interp_eval(b->ocv, c->ocv_soc, c->ocv_v, soc, b->acc);
}

/* Over [0, 1]: the interpolant inside the table, its end values held outside it. */
double sits_battery_mean_ocv_v(const sits_battery *b) {
  const sits_battery_cfg *c = &b->cfg;
  double lo = c->ocv_soc[0], hi = c->ocv_soc[c->n_ocv - 1];
  double inside = gsl_interp_eval_integ(b->ocv, c->ocv_soc, c->ocv_v, lo, hi, b->acc);
  return inside + lo * c->ocv_v[0] + (1 - hi) * c->ocv_v[c->n_ocv - 1];
}

double sits_battery_pack_energy_j(const sits_battery *b, double soc_lo, double soc_hi) {
  const sits_battery_cfg *c = &b->cfg;
  double lo = fmax(soc_lo, c->ocv_soc[0]), hi = fmin(soc_hi, c->ocv_soc[c->n_ocv - 1]);
  if (!(hi > lo))
    return 0;
  double integ = gsl_interp_eval_integ(b->ocv, c->ocv_soc, c->ocv_v, lo, hi, b->acc);
  return (double)(c->series * c->parallel) * b->q_ah * 3600.0 * integ;
}

double sits_battery_r_scale(const sits_battery *b, double temp_c) {
  const sits_battery_cfg *c = &b->cfg;
  if (c->r_ea_j_per_mol == 0)
    return 1.0;
  return exp(c->r_ea_j_per_mol / R_GAS_J_PER_MOL_K *
             (1.0 / (temp_c + KELVIN) - 1.0 / (c->r_ref_c + KELVIN)));
}

bool sits_battery_current_a(const sits_battery *b, double soc, const double *v_rc_v, double temp_c,
                            double p_pack_w, double *i_cell_a, double *v_cell_v, double *disc_v2) {
  const sits_battery_cfg *c = &b->cfg;
  double bq = sits_battery_ocv_v(b, soc);
  for (size_t k = 0; k < c->n_rc; k++)
    bq -= v_rc_v[k];
  double a = c->r0_ohm * sits_battery_r_scale(b, temp_c);
  double p = p_pack_w / (double)(c->series * c->parallel);
  double disc = bq * bq - 4 * a * p;
  if (disc_v2)
    *disc_v2 = disc;
  if (disc < 0) {
    *i_cell_a = bq / (2 * a); /* the current of maximum power, for reporting */
    *v_cell_v = bq / 2;
    return false;
  }
  /* the smaller root, in the form that avoids cancellation for small p */
  *i_cell_a = 2 * p / (bq + sqrt(disc));
  *v_cell_v = bq - a * *i_cell_a;
  return true;
}

void sits_battery_derivative(const sits_battery *b, const double *v_rc_v, double temp_c,
                             double i_cell_a, double *dsoc_dt, double *dv_rc_dt) {
  const sits_battery_cfg *c = &b->cfg;
  double i_eff = i_cell_a >= 0 ? i_cell_a : c->coulombic_eff * i_cell_a;
  *dsoc_dt = -i_eff / (3600.0 * b->q_ah);
  double s = sits_battery_r_scale(b, temp_c);
  for (size_t k = 0; k < c->n_rc; k++)
    dv_rc_dt[k] = i_cell_a / c->rc_c_f[k] - v_rc_v[k] / (s * c->rc_r_ohm[k] * c->rc_c_f[k]);
}

double sits_battery_heat_w(const sits_battery *b, const double *v_rc_v, double temp_c,
                           double i_cell_a) {
  const sits_battery_cfg *c = &b->cfg;
  double s = sits_battery_r_scale(b, temp_c);
  double q = i_cell_a * i_cell_a * c->r0_ohm * s;
  for (size_t k = 0; k < c->n_rc; k++)
    q += v_rc_v[k] * v_rc_v[k] / (s * c->rc_r_ohm[k]);
  return q * (double)(c->series * c->parallel);
}

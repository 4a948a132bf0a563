/* battery.c - the Thevenin battery pack (see sits_battery.h for the equations). */
#include "sits_battery.h"
#include "status_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_interp.h>

#define R_GAS_J_PER_MOL_K 8.314462618
#define KELVIN 273.15

#define N_TABLES (1 + 2 * SITS_BATTERY_MAX_RC)
#define C_TABLE(k) (1 + SITS_BATTERY_MAX_RC + (k)) /* pair k's capacitance table */

struct sits_battery {
  sits_battery_cfg cfg;
  double q_ah;
  size_t n_rows;                             /* 1 (ocv_v) or n_ocv_t (ocv_v_t) */
  const double *row[SITS_BATTERY_MAX_OCV_T]; /* OCV values of each row, in cfg */
  gsl_interp *ocv[SITS_BATTERY_MAX_OCV_T];
  gsl_interp_accel *acc; /* a lookup cache: mutable, so a battery is not shared across threads */
  /* the factor tables: [0] R0, [1 + k] pair k's R, [1 + MAX_RC + k] pair k's C; one
   * interpolant per row */
  gsl_interp *rtab[N_TABLES][SITS_BATTERY_MAX_R_T];
  gsl_interp_accel *racc;
  gsl_interp *qtab; /* capacity factor over temperature (linear); NULL without rows */
};

/* Row j of factor table t (0: R0, 1 + k: pair k's R, C_TABLE(k): its C), in cfg. */
static const double *r_row(const sits_battery_cfg *c, size_t t, size_t j) {
  return t == 0                     ? c->r0_scale[j]
         : t <= SITS_BATTERY_MAX_RC ? c->rc_r_scale[t - 1][j]
                                    : c->rc_c_scale[t - C_TABLE(0)][j];
}

static bool has_table(const sits_battery_cfg *c, size_t t) {
  if (c->n_r_soc == 0)
    return false;
  if (t == 0)
    return true;
  return t <= SITS_BATTERY_MAX_RC ? t - 1 < c->n_rc && c->rc_has_scale[t - 1]
                                  : t - C_TABLE(0) < c->n_rc && c->rc_has_c_scale[t - C_TABLE(0)];
}

/* The resistance tables: knots in [0, 1] increasing, rows' temperatures increasing, factors
 * positive and finite. */
static int check_r_tables(const sits_battery_cfg *c, sits_err *err) {
  if (c->n_r_soc == 0)
    return SITS_OK;
  if (c->n_r_soc < 2 || c->n_r_soc > SITS_BATTERY_MAX_R_SOC)
    return sits__fail(err, SITS_EINPUT, "the resistance tables need 2 to %d r_soc points",
                      SITS_BATTERY_MAX_R_SOC);
  for (size_t k = 0; k < c->n_r_soc; k++)
    if (!(c->r_soc[k] >= 0 && c->r_soc[k] <= 1) || (k && !(c->r_soc[k] > c->r_soc[k - 1])))
      return sits__fail(err, SITS_EINPUT, "r_soc must increase within [0, 1] (point %zu: %g)", k,
                        c->r_soc[k]);
  if (c->n_r_t == 1 || c->n_r_t > SITS_BATTERY_MAX_R_T)
    return sits__fail(err, SITS_EINPUT, "resistance rows over temperature need 2 to %d r_t_c",
                      SITS_BATTERY_MAX_R_T);
  for (size_t j = 1; j < c->n_r_t; j++)
    if (!(c->r_t_c[j] > c->r_t_c[j - 1]))
      return sits__fail(err, SITS_EINPUT, "r_t_c must increase (%g C after %g C)", c->r_t_c[j],
                        c->r_t_c[j - 1]);
  size_t rows = c->n_r_t ? c->n_r_t : 1;
  for (size_t t = 0; t < N_TABLES; t++)
    for (size_t j = 0; has_table(c, t) && j < rows; j++)
      for (size_t k = 0; k < c->n_r_soc; k++) {
        double f = r_row(c, t, j)[k];
        char what[40];
        if (t == 0)
          snprintf(what, sizeof what, "R0");
        else if (t <= SITS_BATTERY_MAX_RC)
          snprintf(what, sizeof what, "RC pair %zu", t - 1);
        else
          snprintf(what, sizeof what, "RC pair %zu capacitance", t - C_TABLE(0));
        if (!(f > 0) || !isfinite(f))
          return sits__fail(err, SITS_EINPUT, "the %s factor %g (row %zu, point %zu) must be > 0",
                            what, f, j, k);
      }
  return SITS_OK;
}

/* One OCV row over the SOC points: monotone within the noise, not flat, cutoff below its top. */
static int check_row(const sits_battery_cfg *c, const double *v, const char *row, sits_err *err) {
  for (size_t k = 0; k < c->n_ocv; k++) /* a cell's open-circuit voltage */
    if (!(v[k] > 0 && v[k] < 2000))     /* a cell, or a pack modelled as one (an EV's 800 V) */
      return sits__fail(err, SITS_EINPUT,
                        "the OCV table%s: %g V at point %zu is not a cell's voltage (0 to 2000 V)",
                        row, v[k], k);
  if (!(c->cutoff_v > 0))
    return sits__fail(err, SITS_EINPUT, "cutoff_v %g V must be > 0 (a cell's voltage)",
                      c->cutoff_v);
  for (size_t k = 1; k < c->n_ocv; k++)
    /* flat steps (LFP plateaus) and dips within the noise of measured tables are fine */
    if (!(v[k] >= v[k - 1] - SITS_BATTERY_OCV_NOISE_V))
      return sits__fail(err, SITS_EINPUT,
                        "the OCV table%s is not monotone: %g V after %g V at point %zu", row, v[k],
                        v[k - 1], k);
  if (!(v[c->n_ocv - 1] > v[0]))
    return sits__fail(err, SITS_EINPUT, "the OCV table%s is flat", row);
  if (!(c->cutoff_v < v[c->n_ocv - 1]))
    return sits__fail(err, SITS_EINPUT,
                      "cutoff_v %g V is not below the OCV at full charge (%g V%s)", c->cutoff_v,
                      v[c->n_ocv - 1], row);
  return SITS_OK;
}

static int check(const sits_battery_cfg *c, sits_err *err) {
  if (c->series < 1 || c->parallel < 1)
    return sits__fail(err, SITS_EINPUT, "series and parallel must be at least 1");
  if (c->n_ocv < 3 || c->n_ocv > SITS_BATTERY_MAX_OCV)
    return sits__fail(err, SITS_EINPUT, "the OCV table needs 3 to %d points", SITS_BATTERY_MAX_OCV);
  for (size_t k = 0; k < c->n_ocv; k++) {
    if (!(c->ocv_soc[k] >= 0 && c->ocv_soc[k] <= 1))
      return sits__fail(err, SITS_EINPUT, "ocv_soc[%zu] = %g is not in [0, 1]", k, c->ocv_soc[k]);
    if (k && !(c->ocv_soc[k] > c->ocv_soc[k - 1]))
      return sits__fail(err, SITS_EINPUT, "ocv_soc must increase (point %zu)", k);
  }
  if (c->n_ocv_t == 1 || c->n_ocv_t > SITS_BATTERY_MAX_OCV_T)
    return sits__fail(err, SITS_EINPUT, "a 2-D OCV table needs 2 to %d temperatures",
                      SITS_BATTERY_MAX_OCV_T);
  for (size_t j = 1; j < c->n_ocv_t; j++)
    if (!(c->ocv_t_c[j] > c->ocv_t_c[j - 1]))
      return sits__fail(err, SITS_EINPUT, "the OCV temperatures must increase (%g C after %g C)",
                        c->ocv_t_c[j], c->ocv_t_c[j - 1]);
  int rc;
  if (c->n_ocv_t == 0 && (rc = check_row(c, c->ocv_v, "", err)))
    return rc;
  for (size_t j = 0; j < c->n_ocv_t; j++) {
    char row[48];
    snprintf(row, sizeof row, " at %g C", c->ocv_t_c[j]);
    if ((rc = check_row(c, c->ocv_v_t[j], row, err)))
      return rc;
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
  int rt = check_r_tables(c, err);
  if (rt)
    return rt;
  if (!(c->coulombic_eff > 0 && c->coulombic_eff <= 1))
    return sits__fail(err, SITS_EINPUT, "coulombic efficiency must be in (0, 1]");
  if (!(c->hyst_m_v >= 0 && c->hyst_m_v < 1))
    return sits__fail(err, SITS_EINPUT, "the hysteresis m_v must be in [0, 1) V (got %g)",
                      c->hyst_m_v);
  if (!(c->hyst_m0_v >= 0 && c->hyst_m0_v < 1))
    return sits__fail(err, SITS_EINPUT, "the hysteresis m0_v must be in [0, 1) V (got %g)",
                      c->hyst_m0_v);
  if (c->hyst_m_v > 0 && !(c->hyst_gamma > 0 && isfinite(c->hyst_gamma)))
    return sits__fail(err, SITS_EINPUT, "the hysteresis gamma must be > 0 (got %g)", c->hyst_gamma);
  if (c->entropic_heat && c->n_ocv_t < 2)
    return sits__fail(err, SITS_EINPUT,
                      "entropic_heat needs OCV rows over temperature (ocv_t_c): dOCV/dT comes "
                      "from them");
  if (c->n_q_t == 1 || c->n_q_t > SITS_BATTERY_MAX_R_T)
    return sits__fail(err, SITS_EINPUT,
                      "capacity over temperature needs 2 to %d points (capacity_t_c has %zu)",
                      SITS_BATTERY_MAX_R_T, c->n_q_t);
  for (size_t j = 0; j < c->n_q_t; j++) {
    if (!isfinite(c->q_t_c[j]) || (j > 0 && !(c->q_t_c[j] > c->q_t_c[j - 1])))
      return sits__fail(err, SITS_EINPUT,
                        "capacity_t_c must increase strictly (point %zu: %g C after %g C)", j,
                        c->q_t_c[j], j ? c->q_t_c[j - 1] : NAN);
    if (!(c->q_scale[j] > 0 && c->q_scale[j] < 10))
      return sits__fail(err, SITS_EINPUT,
                        "capacity_scale must be factors in (0, 10) (point %zu at %g C: %g)", j,
                        c->q_t_c[j], c->q_scale[j]);
  }
  if (c->hyst_m_v > 0 && !(c->hyst_initial >= -1 && c->hyst_initial <= 1))
    return sits__fail(err, SITS_EINPUT, "the hysteresis initial state must be in [-1, 1] (got %g)",
                      c->hyst_initial);
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
  b->n_rows = cfg->n_ocv_t ? cfg->n_ocv_t : 1;
  b->acc = gsl_interp_accel_alloc();
  b->racc = gsl_interp_accel_alloc();
  bool ok = b->acc && b->racc;
  for (size_t j = 0; ok && j < b->n_rows; j++) {
    b->row[j] = cfg->n_ocv_t ? b->cfg.ocv_v_t[j] : b->cfg.ocv_v;
    b->ocv[j] = gsl_interp_alloc(gsl_interp_steffen, cfg->n_ocv);
    ok = b->ocv[j] && gsl_interp_init(b->ocv[j], b->cfg.ocv_soc, b->row[j], cfg->n_ocv) == 0;
  }
  size_t r_rows = cfg->n_r_t ? cfg->n_r_t : 1;
  for (size_t t = 0; ok && t < N_TABLES; t++)
    for (size_t j = 0; ok && has_table(cfg, t) && j < r_rows; j++) {
      b->rtab[t][j] = gsl_interp_alloc(cfg->n_r_soc >= 3 ? gsl_interp_steffen : gsl_interp_linear,
                                       cfg->n_r_soc);
      ok = b->rtab[t][j] &&
           gsl_interp_init(b->rtab[t][j], b->cfg.r_soc, r_row(&b->cfg, t, j), cfg->n_r_soc) == 0;
    }
  if (ok && cfg->n_q_t >= 2) { /* capacity over temperature: linear between the points */
    b->qtab = gsl_interp_alloc(gsl_interp_linear, cfg->n_q_t);
    ok = b->qtab && gsl_interp_init(b->qtab, b->cfg.q_t_c, b->cfg.q_scale, cfg->n_q_t) == 0;
  }
  if (!ok) {
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
  for (size_t j = 0; j < SITS_BATTERY_MAX_OCV_T; j++)
    if (b->ocv[j])
      gsl_interp_free(b->ocv[j]);
  for (size_t t = 0; t < N_TABLES; t++)
    for (size_t j = 0; j < SITS_BATTERY_MAX_R_T; j++)
      if (b->rtab[t][j])
        gsl_interp_free(b->rtab[t][j]);
  if (b->qtab)
    gsl_interp_free(b->qtab);
  gsl_interp_accel_free(b->acc);
  gsl_interp_accel_free(b->racc);
  free(b);
}

const sits_battery_cfg *sits_battery_config(const sits_battery *b) {
  return &b->cfg;
}
double sits_battery_capacity_ah(const sits_battery *b) {
  return b->q_ah;
}

double sits_battery_capacity_at_ah(const sits_battery *b, double temp_c) {
  const sits_battery_cfg *c = &b->cfg;
  if (!b->qtab)
    return b->q_ah;
  double t = fmin(fmax(temp_c, c->q_t_c[0]), c->q_t_c[c->n_q_t - 1]); /* held at the ends */
  return b->q_ah * gsl_interp_eval(b->qtab, c->q_t_c, c->q_scale, t, NULL);
}

/* Of @p n rows at increasing temperatures @p rows_c: the two around @p temp_c and the weight
 * of the upper one (held at the end rows; lo 0 and w 0 with fewer than 2 rows). */
static void rows_around(const double *rows_c, size_t n, double temp_c, size_t *lo, double *w) {
  *lo = 0, *w = 0;
  if (n < 2 || !(temp_c > rows_c[0]))
    return;
  if (temp_c >= rows_c[n - 1]) {
    *lo = n - 2, *w = 1;
    return;
  }
  size_t j = 0;
  while (temp_c > rows_c[j + 1])
    j++;
  *lo = j, *w = (temp_c - rows_c[j]) / (rows_c[j + 1] - rows_c[j]);
}

/* The OCV rows around @p temp_c. */
static void rows_at(const sits_battery *b, double temp_c, size_t *lo, double *w) {
  rows_around(b->cfg.ocv_t_c, b->n_rows, temp_c, lo, w);
}

static double row_eval(const sits_battery *b, size_t j, double soc) {
  return gsl_interp_eval(b->ocv[j], b->cfg.ocv_soc, b->row[j], soc, b->acc);
}

double sits_battery_ocv_at_v(const sits_battery *b, double soc, double temp_c) {
  const sits_battery_cfg *c = &b->cfg;
  soc = fmin(fmax(soc, c->ocv_soc[0]), c->ocv_soc[c->n_ocv - 1]);
  size_t j;
  double w;
  rows_at(b, temp_c, &j, &w);
  double v = row_eval(b, j, soc);
  return w > 0 ? (1 - w) * v + w * row_eval(b, j + 1, soc) : v;
}

double sits_battery_ocv_v(const sits_battery *b, double soc) {
  return sits_battery_ocv_at_v(b, soc, b->cfg.r_ref_c);
}

/* Integral of OCV over [lo, hi] inside the table, at r_ref_c (linear in the rows' integrals). */
static double ocv_integ(const sits_battery *b, double lo, double hi) {
  const sits_battery_cfg *c = &b->cfg;
  size_t j;
  double w;
  rows_at(b, c->r_ref_c, &j, &w);
  double i0 = gsl_interp_eval_integ(b->ocv[j], c->ocv_soc, b->row[j], lo, hi, b->acc);
  return w > 0 ? (1 - w) * i0 + w * gsl_interp_eval_integ(b->ocv[j + 1], c->ocv_soc, b->row[j + 1],
                                                          lo, hi, b->acc)
               : i0;
}

/* Over [0, 1]: the interpolant inside the table, its end values held outside it. */
double sits_battery_mean_ocv_v(const sits_battery *b) {
  const sits_battery_cfg *c = &b->cfg;
  double lo = c->ocv_soc[0], hi = c->ocv_soc[c->n_ocv - 1];
  return ocv_integ(b, lo, hi) + lo * sits_battery_ocv_v(b, lo) +
         (1 - hi) * sits_battery_ocv_v(b, hi);
}

double sits_battery_pack_energy_j(const sits_battery *b, double soc_lo, double soc_hi) {
  const sits_battery_cfg *c = &b->cfg;
  double lo = fmax(soc_lo, c->ocv_soc[0]), hi = fmin(soc_hi, c->ocv_soc[c->n_ocv - 1]);
  if (!(hi > lo))
    return 0;
  return (double)(c->series * c->parallel) * b->q_ah * 3600.0 * ocv_integ(b, lo, hi);
}

double sits_battery_r_scale(const sits_battery *b, double temp_c) {
  const sits_battery_cfg *c = &b->cfg;
  if (c->r_ea_j_per_mol == 0)
    return 1.0;
  return exp(c->r_ea_j_per_mol / R_GAS_J_PER_MOL_K *
             (1.0 / (temp_c + KELVIN) - 1.0 / (c->r_ref_c + KELVIN)));
}

static double r_row_eval(const sits_battery *b, size_t t, size_t j, double soc) {
  return gsl_interp_eval(b->rtab[t][j], b->cfg.r_soc, r_row(&b->cfg, t, j), soc, b->racc);
}

/* Where a temperature sits among the factor tables' rows (r_t_c): the row below and the
 * upper one's weight. Taken once per evaluation and shared by every table. */
typedef struct row_pos {
  size_t j;
  double w;
} row_pos;

static row_pos r_rows_at(const sits_battery *b, double temp_c) {
  row_pos p = {0, 0};
  rows_around(b->cfg.r_t_c, b->cfg.n_r_t, temp_c, &p.j, &p.w);
  return p;
}

/* The factor of table t at soc and row position @p at: its rows' interpolant at soc, linear
 * in T between the rows (held at the end rows); 1 without a table. */
static double table_factor(const sits_battery *b, size_t t, double soc, row_pos at) {
  const sits_battery_cfg *c = &b->cfg;
  if (!has_table(c, t))
    return 1.0;
  soc = fmin(fmax(soc, c->r_soc[0]), c->r_soc[c->n_r_soc - 1]);
  double f = r_row_eval(b, t, at.j, soc);
  return at.w > 0 ? (1 - at.w) * f + at.w * r_row_eval(b, t, at.j + 1, soc) : f;
}

/* Resistance t (0: R0, 1 + k: pair k) [ohm] at soc and row position @p at; @p arrhenius is
 * sits_battery_r_scale(b, temp_c), taken once by callers that need several: it applies
 * without rows over temperature (which hold the temperature dependence themselves). */
static double r_ohm(const sits_battery *b, size_t t, double soc, row_pos at, double arrhenius) {
  const sits_battery_cfg *c = &b->cfg;
  double base = t == 0 ? c->r0_ohm : c->rc_r_ohm[t - 1];
  bool rows = has_table(c, t) && c->n_r_t > 0;
  return base * table_factor(b, t, soc, at) * (rows ? 1.0 : arrhenius);
}

double sits_battery_rc_c_f(const sits_battery *b, size_t k, double soc, double temp_c) {
  return k < b->cfg.n_rc ? b->cfg.rc_c_f[k] * table_factor(b, C_TABLE(k), soc, r_rows_at(b, temp_c))
                         : NAN;
}

double sits_battery_r0_ohm(const sits_battery *b, double soc, double temp_c) {
  return r_ohm(b, 0, soc, r_rows_at(b, temp_c), sits_battery_r_scale(b, temp_c));
}

double sits_battery_rc_r_ohm(const sits_battery *b, size_t k, double soc, double temp_c) {
  return k < b->cfg.n_rc
             ? r_ohm(b, 1 + k, soc, r_rows_at(b, temp_c), sits_battery_r_scale(b, temp_c))
             : NAN;
}

/* The current solve of sits_battery_current_a with the cell's R0 @p r0 given. */
static bool current_with(const sits_battery *b, double soc, const double *v_rc_v, double temp_c,
                         double p_pack_w, double s_rest, double r0, double *i_cell_a,
                         double *v_cell_v, double *disc_v2) {
  const sits_battery_cfg *c = &b->cfg;
  double bq = sits_battery_ocv_at_v(b, soc, temp_c);
  for (size_t k = 0; k < c->n_rc; k++)
    bq -= v_rc_v[k];
  if (c->hyst_m_v > 0)
    bq += c->hyst_m_v * v_rc_v[c->n_rc];
  double p = p_pack_w / (double)(c->series * c->parallel);
  /* the instantaneous term: the current's sign follows the power's (the smaller root) */
  bq += c->hyst_m0_v * (p > 0 ? -1.0 : p < 0 ? 1.0 : s_rest);
  double disc = bq * bq - 4 * r0 * p;
  if (disc_v2)
    *disc_v2 = disc;
  if (disc < 0) {
    *i_cell_a = bq / (2 * r0); /* the current of maximum power, for reporting */
    *v_cell_v = bq / 2;
    return false;
  }
  /* the smaller root, in the form that avoids cancellation for small p */
  *i_cell_a = 2 * p / (bq + sqrt(disc));
  *v_cell_v = bq - r0 * *i_cell_a;
  return true;
}

bool sits_battery_current_a(const sits_battery *b, double soc, const double *v_rc_v, double temp_c,
                            double p_pack_w, double s_rest, double *i_cell_a, double *v_cell_v,
                            double *disc_v2) {
  return current_with(b, soc, v_rc_v, temp_c, p_pack_w, s_rest, sits_battery_r0_ohm(b, soc, temp_c),
                      i_cell_a, v_cell_v, disc_v2);
}

/* The pairs' resistances at soc and row position @p at into r (n_rc of them). */
static void pair_r_ohm(const sits_battery *b, double soc, row_pos at, double arrhenius, double *r) {
  for (size_t k = 0; k < b->cfg.n_rc; k++)
    r[k] = r_ohm(b, 1 + k, soc, at, arrhenius);
}

/* sits_battery_derivative with the pairs' resistances @p r given. */
static void derivative_with(const sits_battery *b, double soc, const double *v_rc_v, double temp_c,
                            double i_cell_a, row_pos at, const double *r, double *dsoc_dt,
                            double *dv_rc_dt) {
  const sits_battery_cfg *c = &b->cfg;
  double i_eff = i_cell_a >= 0 ? i_cell_a : c->coulombic_eff * i_cell_a;
  double q_ah = sits_battery_capacity_at_ah(b, temp_c);
  *dsoc_dt = -i_eff / (3600.0 * q_ah);
  for (size_t k = 0; k < c->n_rc; k++) {
    double cap = c->rc_c_f[k] * table_factor(b, C_TABLE(k), soc, at);
    dv_rc_dt[k] = i_cell_a / cap - v_rc_v[k] / (r[k] * cap);
  }
  if (c->hyst_m_v > 0) {
    double h = v_rc_v[c->n_rc], sgn = i_cell_a > 0 ? 1.0 : i_cell_a < 0 ? -1.0 : 0.0;
    dv_rc_dt[c->n_rc] = -fabs(i_cell_a) * c->hyst_gamma / (3600.0 * q_ah) * (h + sgn);
  }
}

void sits_battery_derivative(const sits_battery *b, double soc, const double *v_rc_v, double temp_c,
                             double i_cell_a, double *dsoc_dt, double *dv_rc_dt) {
  row_pos at = r_rows_at(b, temp_c);
  double r[SITS_BATTERY_MAX_RC];
  pair_r_ohm(b, soc, at, sits_battery_r_scale(b, temp_c), r);
  derivative_with(b, soc, v_rc_v, temp_c, i_cell_a, at, r, dsoc_dt, dv_rc_dt);
}

double sits_battery_docv_dt_v_per_k(const sits_battery *b, double soc, double temp_c) {
  const sits_battery_cfg *c = &b->cfg;
  if (b->n_rows < 2 || !(temp_c > c->ocv_t_c[0]) || !(temp_c < c->ocv_t_c[b->n_rows - 1]))
    return 0;
  soc = fmin(fmax(soc, c->ocv_soc[0]), c->ocv_soc[c->n_ocv - 1]);
  size_t j;
  double w;
  rows_at(b, temp_c, &j, &w);
  return (row_eval(b, j + 1, soc) - row_eval(b, j, soc)) / (c->ocv_t_c[j + 1] - c->ocv_t_c[j]);
}

double sits_battery_entropic_w(const sits_battery *b, double soc, double temp_c, double i_cell_a) {
  const sits_battery_cfg *c = &b->cfg;
  if (!c->entropic_heat)
    return 0;
  return -i_cell_a * (temp_c + KELVIN) * sits_battery_docv_dt_v_per_k(b, soc, temp_c) *
         (double)(c->series * c->parallel);
}

size_t sits_battery_state_count(const sits_battery *b) {
  return b->cfg.n_rc + (b->cfg.hyst_m_v > 0 ? 1 : 0);
}

/* The pack's Joule heat [W] with the cell's R0 and pairs' R given. */
static double joule_with(const sits_battery *b, const double *v_rc_v, double i_cell_a, double r0,
                         const double *r) {
  const sits_battery_cfg *c = &b->cfg;
  double q = i_cell_a * i_cell_a * r0;
  for (size_t k = 0; k < c->n_rc; k++)
    q += v_rc_v[k] * v_rc_v[k] / r[k];
  return q * (double)(c->series * c->parallel);
}

double sits_battery_heat_w(const sits_battery *b, double soc, const double *v_rc_v, double temp_c,
                           double i_cell_a) {
  double arrhenius = sits_battery_r_scale(b, temp_c), r[SITS_BATTERY_MAX_RC];
  row_pos at = r_rows_at(b, temp_c);
  pair_r_ohm(b, soc, at, arrhenius, r);
  return joule_with(b, v_rc_v, i_cell_a, r_ohm(b, 0, soc, at, arrhenius), r);
}

bool sits_battery_eval(const sits_battery *b, double soc, const double *v_rc_v, double temp_c,
                       double p_pack_w, double s_rest, sits_battery_point *out) {
  /* the Arrhenius factor, the table rows and the resistances once, for all three */
  double arrhenius = sits_battery_r_scale(b, temp_c), r[SITS_BATTERY_MAX_RC];
  row_pos at = r_rows_at(b, temp_c);
  double r0 = r_ohm(b, 0, soc, at, arrhenius);
  pair_r_ohm(b, soc, at, arrhenius, r);
  out->ok = current_with(b, soc, v_rc_v, temp_c, p_pack_w, s_rest, r0, &out->i_cell_a,
                         &out->v_cell_v, &out->disc_v2);
  out->heat_w = joule_with(b, v_rc_v, out->i_cell_a, r0, r) +
                sits_battery_entropic_w(b, soc, temp_c, out->i_cell_a);
  derivative_with(b, soc, v_rc_v, temp_c, out->i_cell_a, at, r, &out->dsoc_dt, out->dv_rc_dt);
  return out->ok;
}

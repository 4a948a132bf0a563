/* battery_fit.c - ECM identification from a measured test (see sits_battery_fit.h). */
#include "sits_battery_fit.h"
#include "status_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>

#include "sits_fit.h"

/* The hysteresis fit's bounds: m_v up to 0.1 V (LFP's half gap between the branches is
 * ~15 mV, NMC's smaller: beyond 0.1 V the term stands in for an OCV or capacity error, a drift
 * linear in the charge moved, not hysteresis); gamma from 0.1 to 1000 (h settles within
 * 1/gamma of the capacity moved: from 10 capacities to 0.1 % of one). */
#define HYST_G_LO 0.1
#define HYST_G_HI 1000.0

typedef struct problem {
  sits_battery_cfg cell;
  const double *t, *i, *v;
  const double *temp_c; /* the cell temperature at each sample, or NULL (r_ref_c) */
  const double *q;      /* the cycler's charge counter, discharge positive [Ah], or NULL */
  size_t n, n_train, n_rc;
  bool fit_capacity;
  bool fit_lag;    /* the recording's voltage-to-current time lag */
  bool keep;       /* the cell's R0, RC pairs, tables and hysteresis kept: SOC0 fitted */
  bool fit_ea;     /* the resistances' activation energy */
  double dt_med_s; /* the training part's median sample interval: the lag's upper bound */
  double q_ah;     /* when not fitted */
  bool hyst;       /* the cell has hysteresis: m, gamma, h0 and m0 are fitted too */
  size_t nk;       /* resistance values per resistor: the cell's r_soc knots, or 1 (constant) */
  size_t ref;      /* the knot whose values become r0_ohm and r_ohm (the one nearest SOC 0.5) */
} problem;

/* With knots, R0 and each R_j are their values at the knots (tau_j at the reference knot:
 * C_j = tau_j / R_j there, constant), interpolated over SOC as the model does. */
typedef struct params {
  double r0[SITS_BATTERY_MAX_R_SOC], r[SITS_BATTERY_MAX_RC][SITS_BATTERY_MAX_R_SOC];
  double tau[SITS_BATTERY_MAX_RC], q_ah, soc0;
  double m_v, gamma, h0, m0_v;
  double lag_s;        /* the voltage's lag behind the current [s], 0 when not fitted */
  double ea_j_per_mol; /* the resistances' activation energy [J/mol] (the cell's when not fitted) */
} params;

#define MAX_PARAMS ((1 + SITS_BATTERY_MAX_RC) * SITS_BATTERY_MAX_R_SOC + SITS_BATTERY_MAX_RC + 8)

static void unpack(const problem *pb, const double *x, params *p) {
  size_t k = 0;
  for (size_t q = 0; !pb->keep && q < pb->nk; q++) /* a kept cell's R and C are its own */
    p->r0[q] = exp(x[k++]);
  for (size_t j = 0; !pb->keep && j < pb->n_rc; j++) {
    for (size_t q = 0; q < pb->nk; q++)
      p->r[j][q] = exp(x[k++]);
    p->tau[j] = exp(x[k++]);
  }
  p->soc0 = 1.0 / (1.0 + exp(-x[k++]));
  p->q_ah = pb->fit_capacity ? exp(x[k++]) : pb->q_ah;
  p->m_v = p->gamma = p->h0 = p->m0_v = 0;
  if (pb->keep) /* the cell's hysteresis as it is, its initial state too */
    p->m_v = pb->cell.hyst_m_v, p->gamma = pb->cell.hyst_gamma, p->h0 = pb->cell.hyst_initial,
    p->m0_v = pb->cell.hyst_m0_v;
  else if (pb->hyst) { /* bounded: m_v and m0_v below the cap, gamma in (HYST_G_LO, HYST_G_HI) */
    p->m_v = SITS_BATTERY_FIT_HYST_M_MAX_V / (1.0 + exp(-x[k++]));
    p->gamma = exp(log(HYST_G_LO) + (log(HYST_G_HI) - log(HYST_G_LO)) / (1.0 + exp(-x[k++])));
    p->h0 = tanh(x[k++]);
    p->m0_v = SITS_BATTERY_FIT_HYST_M_MAX_V / (1.0 + exp(-x[k++]));
  }
  p->lag_s = pb->fit_lag ? pb->dt_med_s / (1.0 + exp(-x[k++])) : 0.0;
  p->ea_j_per_mol = pb->fit_ea ? SITS_BATTERY_FIT_EA_MAX_J_PER_MOL / (1.0 + exp(-x[k++]))
                               : pb->cell.r_ea_j_per_mol;
}

static size_t n_params(const problem *pb) {
  size_t common = 1 + (pb->fit_capacity ? 1 : 0) + (pb->fit_lag ? 1 : 0) + (pb->fit_ea ? 1 : 0);
  if (pb->keep)
    return common;
  return (1 + pb->n_rc) * pb->nk + pb->n_rc + common + (pb->hyst ? 4 : 0);
}

/* The charge the cell gives out from sample k to k+1 [Ah], charging negative and counted at the
 * cell's coulombic efficiency: the counter's change when the log has one (a log with gaps),
 * else the current @p i_a held over the interval @p dt_s. */
static double charge_out_ah(const double *q, size_t k, double i_a, double dt_s, double eta) {
  double dq = q ? q[k + 1] - q[k] : i_a * dt_s / 3600.0;
  return dq >= 0 ? dq : eta * dq;
}

/* Simulates the first m samples into out (model voltage), with the model's own functions:
 * the parameters become a cell (its resistance tables when fitted at knots). */
static int simulate(const problem *pb, const params *p, size_t m, double *out) {
  sits_battery_cfg c = pb->cell;
  c.capacity_ah = p->q_ah;
  c.capacity_wh = NAN;
  c.r_ea_j_per_mol = p->ea_j_per_mol;
  if (!pb->keep) { /* the fitted values (kept: the cell's own) */
    c.n_rc = pb->n_rc;
    c.r0_ohm = p->r0[pb->ref];
    for (size_t j = 0; j < pb->n_rc; j++) /* C constant: tau at the reference knot over R there */
      c.rc_r_ohm[j] = p->r[j][pb->ref], c.rc_c_f[j] = p->tau[j] / p->r[j][pb->ref];
    for (size_t q = 0; q < c.n_r_soc; q++) { /* pb->nk knots, the row without temperature */
      c.r0_scale[0][q] = p->r0[q] / c.r0_ohm;
      for (size_t j = 0; j < pb->n_rc; j++)
        c.rc_has_scale[j] = true, c.rc_r_scale[j][0][q] = p->r[j][q] / c.rc_r_ohm[j];
    }
  }
  sits_err err;
  sits_battery *b = sits_battery_new(&c, &err);
  if (!b)
    return -1;
  double soc = p->soc0, vrc[SITS_BATTERY_MAX_RC] = {0}, h = p->h0;
  /* the instantaneous term's sign: the current's, held through rests (before the first
   * current: h's) */
  double s_last = h > 0 ? 1.0 : h < 0 ? -1.0 : 0.0;
  for (size_t k = 0; k < m; k++) {
    double sum = 0;
    for (size_t j = 0; j < pb->n_rc; j++)
      sum += vrc[j];
    /* the current at the voltage's instant, lag_s before the stamp (interpolated within
     * the interval before it; a lag longer than the interval takes the sample before) */
    double i_k = pb->i[k];
    if (k > 0 && p->lag_s > 0)
      i_k -= fmin(p->lag_s / (pb->t[k] - pb->t[k - 1]), 1.0) * (pb->i[k] - pb->i[k - 1]);
    if (i_k != 0)
      s_last = i_k > 0 ? -1.0 : 1.0;
    /* at the sample's temperature: OCV(SOC, T) and R(SOC, T) */
    double tc = pb->temp_c ? pb->temp_c[k] : c.r_ref_c;
    double ocv = pb->temp_c ? sits_battery_ocv_at_v(b, soc, tc) : sits_battery_ocv_v(b, soc);
    out[k] = ocv + p->m_v * h + p->m0_v * s_last - sum - sits_battery_r0_ohm(b, soc, tc) * i_k;
    if (k + 1 < m) {
      /* held from this voltage's instant to the next one's: the lagged current (over a test
       * the counted charge moves by about lag_s times the current's last minus first value) */
      double dt = pb->t[k + 1] - pb->t[k], i = i_k;
      if (pb->hyst && i != 0) { /* exact for the held current: h -> -sgn(i) */
        double e = exp(-fabs(i) * dt * p->gamma / (3600.0 * p->q_ah)), s = i > 0 ? 1.0 : -1.0;
        h = -s + (h + s) * e;
      }
      for (size_t j = 0; j < pb->n_rc; j++) { /* exact for the held current and R */
        double r = sits_battery_rc_r_ohm(b, j, soc, tc);
        double e = exp(-dt / (r * sits_battery_rc_c_f(b, j, soc, tc)));
        vrc[j] = vrc[j] * e + r * i * (1 - e);
      }
      soc -= charge_out_ah(pb->q, k, i, dt, c.coulombic_eff) / p->q_ah;
    }
  }
  sits_battery_free(b);
  return 0;
}

static int residual(const double *x, double *r, void *user) {
  const problem *pb = user;
  params p;
  unpack(pb, x, &p);
  if (simulate(pb, &p, pb->n_train, r))
    return 1;
  for (size_t k = 0; k < pb->n_train; k++)
    r[k] -= pb->v[k];
  return 0;
}

void sits_fit_metrics_compute(const double *model, const double *meas, size_t from, size_t to,
                              sits_fit_metrics *m) {
  double sum = 0, sum2 = 0, abs_sum = 0, max_abs = 0, mean = 0;
  size_t n = 0;
  memset(m, 0, sizeof *m);
  for (size_t k = from; k < to; k++)
    if (!isnan(meas[k]) && !isnan(model[k]))
      mean += meas[k], n++;
  m->n = n;
  if (n == 0) {
    m->rmse = m->mae = m->max_abs_err = m->bias = m->r2 = NAN;
    return;
  }
  mean /= (double)n;
  double ss_tot = 0;
  for (size_t k = from; k < to; k++) {
    if (isnan(meas[k]) || isnan(model[k]))
      continue;
    double e = model[k] - meas[k];
    sum += e, sum2 += e * e, abs_sum += fabs(e);
    max_abs = fmax(max_abs, fabs(e));
    ss_tot += (meas[k] - mean) * (meas[k] - mean);
  }
  m->rmse = sqrt(sum2 / (double)n);
  m->mae = abs_sum / (double)n;
  m->max_abs_err = max_abs;
  m->bias = sum / (double)n;
  m->r2 = ss_tot > 0 ? 1.0 - sum2 / ss_tot : NAN;
}

/* The initial SOC where the OCV matches the first measured voltage (GSL Brent on the
 * monotone interpolant), kept inside [0.01, 0.99] as a start of the fit. */
typedef struct ocv_root {
  sits_battery *b;
  double v;
} ocv_root;

static double ocv_minus(double soc, void *p) {
  const ocv_root *r = p;
  return sits_battery_ocv_v(r->b, soc) - r->v;
}

static double soc_from_voltage(const sits_battery_cfg *c, double v) {
  sits_err err;
  sits_battery_cfg cc = *c;
  if (!(cc.capacity_ah > 0))
    cc.capacity_ah = 1;
  ocv_root r = {sits_battery_new(&cc, &err), v};
  if (!r.b)
    return 0.5;
  double lo = c->ocv_soc[0], hi = c->ocv_soc[c->n_ocv - 1], soc;
  if (ocv_minus(lo, &r) >= 0)
    soc = lo;
  else if (ocv_minus(hi, &r) <= 0)
    soc = hi;
  else {
    gsl_function fn = {ocv_minus, &r};
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    soc = 0.5 * (lo + hi);
    if (s && gsl_root_fsolver_set(s, &fn, lo, hi) == GSL_SUCCESS)
      for (int it = 0; it < 100; it++) {
        gsl_root_fsolver_iterate(s);
        soc = gsl_root_fsolver_root(s);
        if (gsl_root_test_interval(gsl_root_fsolver_x_lower(s), gsl_root_fsolver_x_upper(s), 1e-9,
                                   0) == GSL_SUCCESS)
          break;
      }
    gsl_root_fsolver_free(s);
  }
  sits_battery_free(r.b);
  return fmin(fmax(soc, 0.01), 0.99);
}

/* The start SOC for the fit: the OCV at the first rest (|I| under 2 % of the largest for 10
 * samples: the voltage there is near the OCV) counted back to the start by the charge moved
 * before it; the first voltage when the training part has no rest (a test that starts under
 * load reads low: the fit then has to move SOC0 a long way). */
static double start_soc(const sits_battery_cfg *cell, const double *t_s, const double *i_a,
                        const double *v_v, const double *q, size_t n) {
  double i_max = 0;
  for (size_t k = 0; k < n; k++)
    i_max = fmax(i_max, fabs(i_a[k]));
  size_t quiet = 0;
  double q_ah = 0; /* discharged before the sample */
  for (size_t k = 0; k < n; k++) {
    quiet = fabs(i_a[k]) <= 0.02 * i_max ? quiet + 1 : 0;
    if (quiet >= 10 && k > 0) {
      double soc = soc_from_voltage(cell, v_v[k]) + q_ah / cell->capacity_ah;
      return fmin(fmax(soc, 0.01), 0.99);
    }
    if (k + 1 < n)
      q_ah += charge_out_ah(q, k, i_a[k], t_s[k + 1] - t_s[k], 1.0);
  }
  return soc_from_voltage(cell, v_v[0]);
}

int sits_battery_fit_cell(const sits_battery_cfg *cell, const double *t_s, const double *i_a,
                          const double *v_v, size_t n, size_t n_rc, double train_fraction,
                          bool fit_capacity, sits_battery_fit *out, sits_err *err) {
  return sits_battery_fit_cell_t(cell, t_s, i_a, v_v, NULL, n, n_rc, train_fraction, fit_capacity,
                                 out, err);
}

int sits_battery_fit_cell_t(const sits_battery_cfg *cell, const double *t_s, const double *i_a,
                            const double *v_v, const double *temp_c, size_t n, size_t n_rc,
                            double train_fraction, bool fit_capacity, sits_battery_fit *out,
                            sits_err *err) {
  return sits_battery_fit_cell_x(cell, t_s, i_a, v_v, temp_c, NULL, n, n_rc, train_fraction,
                                 fit_capacity ? SITS_BATTERY_FIT_CAPACITY : 0u, out, err);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int sits_battery_fit_cell_x(const sits_battery_cfg *cell, const double *t_s, const double *i_a,
                            const double *v_v, const double *temp_c, const double *q_ah, size_t n,
                            size_t n_rc, double train_fraction, unsigned what,
                            sits_battery_fit *out, sits_err *err) {
  memset(out, 0, sizeof *out);
  bool fit_capacity = (what & SITS_BATTERY_FIT_CAPACITY) != 0;
  if (what & ~(unsigned)(SITS_BATTERY_FIT_CAPACITY | SITS_BATTERY_FIT_LAG | SITS_BATTERY_FIT_KEEP |
                         SITS_BATTERY_FIT_ARRHENIUS))
    return sits__fail(err, SITS_EINPUT, "unknown battery fit flags 0x%x", what);
  if (n < 10)
    return sits__fail(err, SITS_EINPUT, "the fit needs at least 10 samples (the trace has %zu)", n);
  if (n_rc > SITS_BATTERY_MAX_RC)
    return sits__fail(err, SITS_EINPUT, "the fit takes 0 to %d RC pairs (the battery has %zu)",
                      SITS_BATTERY_MAX_RC, n_rc);
  if (!(train_fraction > 0 && train_fraction <= 1))
    return sits__fail(err, SITS_EINPUT, "the train fraction must be in (0, 1] (got %g)",
                      train_fraction);
  for (size_t k = 1; k < n; k++)
    if (!(t_s[k] > t_s[k - 1]))
      return sits__fail(err, SITS_EINPUT, "sample %zu: time does not increase", k);
  problem pb = {.cell = *cell,
                .t = t_s,
                .i = i_a,
                .v = v_v,
                .temp_c = temp_c,
                .q = q_ah,
                .n = n,
                .n_rc = n_rc,
                .fit_capacity = fit_capacity,
                .fit_lag = (what & SITS_BATTERY_FIT_LAG) != 0,
                .keep = (what & SITS_BATTERY_FIT_KEEP) != 0,
                .fit_ea = (what & SITS_BATTERY_FIT_ARRHENIUS) != 0,
                .q_ah = cell->capacity_ah,
                .hyst = cell->hyst_m_v > 0 || cell->hyst_m0_v > 0,
                .nk = 1};
  if (pb.keep)
    pb.n_rc = cell->n_rc;       /* the cell's, whatever was asked */
  else if (cell->n_r_soc > 0) { /* the resistance tables over SOC: fitted at the cell's knots */
    if (cell->n_r_t > 0)
      return sits__fail(err, SITS_EINPUT,
                        "the battery fit takes resistance tables over SOC only: the cell's rows "
                        "over temperature (r_t_c) need a test at each temperature");
    pb.nk = cell->n_r_soc;
    for (size_t q = 1; q < pb.nk; q++)
      if (fabs(cell->r_soc[q] - 0.5) < fabs(cell->r_soc[pb.ref] - 0.5))
        pb.ref = q;
  }
  pb.n_train = (size_t)floor(train_fraction * (double)n);
  if (pb.n_train < n_params(&pb) + 5)
    return sits__fail(err, SITS_EINPUT, "the training part has too few samples");
  out->train_temp_lo_c = out->train_temp_hi_c = NAN;
  for (size_t k = 0; temp_c && k < pb.n_train; k++)
    if (isfinite(temp_c[k])) {
      out->train_temp_lo_c =
          isnan(out->train_temp_lo_c) ? temp_c[k] : fmin(out->train_temp_lo_c, temp_c[k]);
      out->train_temp_hi_c =
          isnan(out->train_temp_hi_c) ? temp_c[k] : fmax(out->train_temp_hi_c, temp_c[k]);
    }
  if (pb.fit_ea) { /* the factor needs the temperature to move, and no rows that replace it */
    if (!temp_c)
      return sits__fail(err, SITS_EINPUT,
                        "the activation energy is fitted from the cell temperature at each "
                        "sample: the test has none (replay.battery.temperature_column)");
    if (cell->n_r_t > 0)
      return sits__fail(err, SITS_EINPUT,
                        "the cell's resistance rows over temperature (r_t_c) replace the "
                        "Arrhenius factor: there is no activation energy to fit");
    double span = out->train_temp_hi_c - out->train_temp_lo_c;
    if (!(span >= SITS_BATTERY_FIT_EA_MIN_SPAN_K))
      return sits__fail(err, SITS_EINPUT,
                        "the cell temperature spans %.3g K over the training part (%.4g to %.4g "
                        "C): at least %g K are needed to fit an activation energy",
                        isnan(span) ? 0.0 : span, out->train_temp_lo_c, out->train_temp_hi_c,
                        SITS_BATTERY_FIT_EA_MIN_SPAN_K);
  }
  if (pb.fit_lag) { /* the lag is bounded by the training part's median interval */
    double *dt = malloc((pb.n_train - 1) * sizeof(double));
    if (!dt)
      return sits__fail(err, SITS_ENOMEM, "out of memory");
    for (size_t k = 0; k + 1 < pb.n_train; k++)
      dt[k] = t_s[k + 1] - t_s[k];
    qsort(dt, pb.n_train - 1, sizeof(double), cmp_double);
    pb.dt_med_s = dt[(pb.n_train - 1) / 2];
    free(dt);
  }
  double soc0 = start_soc(cell, t_s, i_a, v_v, q_ah, pb.n_train);
  /* several starts: small and large R0, fast and slow RC pairs (one when the cell is kept) */
  const double r0s[] = {0.005, 0.03}, taus[] = {20.0, 300.0};
  double best[MAX_PARAMS], best_cost = INFINITY;
  bool best_conv = false;
  for (size_t a = 0; a < 2; a++)
    for (size_t b = 0; b < 2; b++) {
      if (pb.keep && (a || b))
        continue;
      double x[MAX_PARAMS], cost;
      bool conv;
      size_t k = 0;
      for (size_t q = 0; !pb.keep && q < pb.nk; q++)
        x[k++] = log(r0s[a]);
      for (size_t j = 0; !pb.keep && j < pb.n_rc; j++) {
        for (size_t q = 0; q < pb.nk; q++)
          x[k++] = log(r0s[a]);
        x[k++] = log(taus[b] * pow(10.0, (double)j));
      }
      x[k++] = log(soc0 / (1 - soc0));
      if (fit_capacity)
        x[k++] = log(cell->capacity_ah);
      if (pb.hyst && !pb.keep) { /* from the cell's values, inside the bounds */
        double m = fmin(fmax(cell->hyst_m_v / SITS_BATTERY_FIT_HYST_M_MAX_V, 1e-3), 1 - 1e-3);
        double g = (log(fmin(fmax(cell->hyst_gamma, HYST_G_LO * 1.01), HYST_G_HI / 1.01)) -
                    log(HYST_G_LO)) /
                   (log(HYST_G_HI) - log(HYST_G_LO));
        x[k++] = log(m / (1 - m));
        x[k++] = log(g / (1 - g));
        x[k++] = atanh(fmin(fmax(cell->hyst_initial, -0.99), 0.99));
        double m0 = fmin(fmax(cell->hyst_m0_v / SITS_BATTERY_FIT_HYST_M_MAX_V, 1e-3), 1 - 1e-3);
        x[k++] = log(m0 / (1 - m0));
      }
      if (pb.fit_lag) /* half the median interval */
        x[k++] = 0.0;
      if (pb.fit_ea) { /* from the cell's (20 kJ/mol without one), inside the range */
        double e = cell->r_ea_j_per_mol > 0 ? cell->r_ea_j_per_mol : 20000.0;
        e = fmin(fmax(e / SITS_BATTERY_FIT_EA_MAX_J_PER_MOL, 1e-3), 1 - 1e-3);
        x[k++] = log(e / (1 - e));
      }
      sits_fit_opts o = {n_params(&pb), pb.n_train, residual, &pb, 200, NULL, NULL, NULL};
      sits_err e2 = {0};
      if (sits_fit_nlinear(&o, x, &cost, &conv, &e2) == SITS_OK && cost < best_cost) {
        best_cost = cost;
        best_conv = conv;
        memcpy(best, x, sizeof x);
      }
    }
  if (!isfinite(best_cost))
    return sits__fail(err, SITS_ESOLVER, "the battery fit found no finite solution from any start");
  params p;
  unpack(&pb, best, &p);
  if (pb.keep) { /* the cell's own values (their tables are not reported) */
    p.r0[0] = cell->r0_ohm;
    for (size_t j = 0; j < pb.n_rc; j++)
      p.r[j][0] = cell->rc_r_ohm[j], p.tau[j] = cell->rc_r_ohm[j] * cell->rc_c_f[j];
  }
  out->lag_s = p.lag_s;
  out->r_ea_j_per_mol = p.ea_j_per_mol;
  out->lag_frac = pb.fit_lag ? p.lag_s / pb.dt_med_s : 0.0;
  out->model_v = malloc(n * sizeof(double));
  if (!out->model_v || simulate(&pb, &p, n, out->model_v))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  out->n_rc = pb.n_rc;
  out->r0_ohm = p.r0[pb.ref];
  for (size_t j = 0; j < pb.n_rc; j++) {
    out->rc_r_ohm[j] = p.r[j][pb.ref];
    out->rc_c_f[j] = p.tau[j] / p.r[j][pb.ref];
  }
  double soc = p.soc0;
  out->train_soc_lo = out->train_soc_hi = soc;
  for (size_t k = 0; k + 1 < pb.n_train; k++) {
    soc -= charge_out_ah(q_ah, k, i_a[k], t_s[k + 1] - t_s[k], cell->coulombic_eff) / p.q_ah;
    out->train_soc_lo = fmin(out->train_soc_lo, soc);
    out->train_soc_hi = fmax(out->train_soc_hi, soc);
  }
  out->n_r_soc = pb.keep ? 0 : cell->n_r_soc;
  for (size_t q = 0; q < out->n_r_soc; q++) { /* factors on the reference knot's values */
    out->r_soc[q] = cell->r_soc[q];
    out->r0_scale[q] = p.r0[q] / out->r0_ohm;
    for (size_t j = 0; j < pb.n_rc; j++)
      out->rc_r_scale[j][q] = p.r[j][q] / out->rc_r_ohm[j];
  }
  out->capacity_ah = p.q_ah;
  out->initial_soc = p.soc0;
  out->hyst_m_v = p.m_v, out->hyst_gamma = p.gamma, out->hyst_initial = p.h0;
  out->hyst_m0_v = p.m0_v;
  out->converged = best_conv;
  out->n_train = pb.n_train;
  sits_fit_metrics_compute(out->model_v, v_v, 0, pb.n_train, &out->train);
  sits_fit_metrics_compute(out->model_v, v_v, pb.n_train, n, &out->holdout);
  return SITS_OK;
}

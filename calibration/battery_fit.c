/* battery_fit.c - ECM identification from a measured test (see sits_battery_fit.h). */
#include "sits_battery_fit.h"
#include "status_internal.h"

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

/* One test of the fit: its samples, the training part's length and its residuals' offset. */
typedef struct test_data {
  const double *t, *i, *v;
  const double *temp_c; /* the cell temperature at each sample, or NULL (r_ref_c) */
  const double *q;      /* the cycler's charge counter, discharge positive [Ah], or NULL */
  size_t n, n_train, off;
  double temp_lo_c, temp_hi_c; /* over the training part (NAN without temperatures) */
  bool soc_given;              /* the SOC at the first sample given (soc0), not fitted */
  double soc0;
} test_data;

/* The residuals of the last two evaluations: a finite-difference column moves one parameter
 * from the base point, so the tests that parameter does not reach keep the base's residuals. */
typedef struct res_cache {
  double *x, *r;
  bool valid;
} res_cache;

typedef struct problem {
  sits_battery_cfg cell;
  test_data ts[SITS_BATTERY_FIT_MAX_TESTS];
  size_t n_tests, n_train; /* n_train: all tests' training samples */
  size_t n_soc_free;       /* the tests whose start SOC is fitted */
  size_t n_rc;
  bool fit_capacity;
  bool fit_lag;    /* the recording's voltage-to-current time lag */
  bool keep;       /* the cell's R0, RC pairs, tables and hysteresis kept: SOC0 fitted */
  bool fit_ea;     /* the resistances' activation energy */
  double dt_med_s; /* the training parts' smallest median sample interval: the lag's bound */
  double q_ah;     /* when not fitted */
  bool hyst;       /* the cell has hysteresis: m, gamma, h0 and m0 are fitted too */
  size_t nk;       /* resistance values per resistor and row: the cell's r_soc knots, or 1 */
  size_t ref;      /* the knot whose values become r0_ohm and r_ohm (the one nearest SOC 0.5) */
  /* rows over temperature (SITS_BATTERY_FIT_ROWS): nr rows at rows_c, ref_row's values the
   * base; flat: no knots in the cell, the rows' one value written at SOC 0 and 1 */
  size_t nr, ref_row;
  bool rows, flat;
  double rows_c[SITS_BATTERY_MAX_R_T];
  res_cache cache[2];
  size_t cache_next;      /* the cache the next evaluation without a source overwrites */
  unsigned char *reaches; /* n_params x n_tests: parameter k moves test s's residuals */
  sits_battery_fit_progress_fn progress; /* NULL: none */
  void *progress_user;
  size_t start, n_starts, evaluations; /* for progress */
} problem;

/* With knots, R0 and each R_j are their values at the knots (tau_j at the reference knot:
 * C_j = tau_j / R_j there, constant over SOC), interpolated over SOC as the model does; with
 * rows, per row, tau_j at the reference row and each other row's C_j a factor on it. */
typedef struct params {
  double r0[SITS_BATTERY_MAX_R_T][SITS_BATTERY_MAX_R_SOC];
  double r[SITS_BATTERY_MAX_RC][SITS_BATTERY_MAX_R_T][SITS_BATTERY_MAX_R_SOC];
  double tau[SITS_BATTERY_MAX_RC], cf[SITS_BATTERY_MAX_RC][SITS_BATTERY_MAX_R_T];
  double q_ah, soc0[SITS_BATTERY_FIT_MAX_TESTS];
  double m_v, gamma, h0, m0_v;
  double lag_s;        /* the voltage's lag behind the current [s], 0 when not fitted */
  double ea_j_per_mol; /* the resistances' activation energy [J/mol] (the cell's when not fitted) */
} params;

#define MAX_PARAMS                                                                                 \
  ((1 + SITS_BATTERY_MAX_RC) * SITS_BATTERY_MAX_R_SOC * SITS_BATTERY_MAX_R_T +                     \
   SITS_BATTERY_MAX_RC * (1 + SITS_BATTERY_MAX_R_T) + SITS_BATTERY_FIT_MAX_TESTS + 8)

static void unpack(const problem *pb, const double *x, params *p) {
  size_t k = 0;
  for (size_t t = 0; !pb->keep && t < pb->nr; t++) /* a kept cell's R and C are its own */
    for (size_t q = 0; q < pb->nk; q++)
      p->r0[t][q] = exp(x[k++]);
  for (size_t j = 0; !pb->keep && j < pb->n_rc; j++) {
    for (size_t t = 0; t < pb->nr; t++)
      for (size_t q = 0; q < pb->nk; q++)
        p->r[j][t][q] = exp(x[k++]);
    p->tau[j] = exp(x[k++]);
    for (size_t t = 0; t < pb->nr; t++)
      p->cf[j][t] = t == pb->ref_row ? 1.0 : exp(x[k++]);
  }
  for (size_t s = 0; s < pb->n_tests; s++)
    p->soc0[s] = pb->ts[s].soc_given ? pb->ts[s].soc0 : 1.0 / (1.0 + exp(-x[k++]));
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
  size_t common =
      pb->n_soc_free + (pb->fit_capacity ? 1 : 0) + (pb->fit_lag ? 1 : 0) + (pb->fit_ea ? 1 : 0);
  if (pb->keep)
    return common;
  return (1 + pb->n_rc) * pb->nk * pb->nr + pb->n_rc * pb->nr + common + (pb->hyst ? 4 : 0);
}

/* Whether row t's values reach test s: without rows always; with rows when the test's
 * training temperatures come within the row's neighbours (the factors are linear in T between
 * rows, held beyond the end rows). */
static bool row_reaches(const problem *pb, size_t t, size_t s) {
  if (!pb->rows)
    return true;
  double lo = t > 0 ? pb->rows_c[t - 1] : -INFINITY;
  double hi = t + 1 < pb->nr ? pb->rows_c[t + 1] : INFINITY;
  return pb->ts[s].temp_hi_c > lo && pb->ts[s].temp_lo_c < hi;
}

/* Which tests each parameter reaches: a row's values those row_reaches gives, a test's SOC0
 * only its own test, the rest every test. */
static void map_reach(problem *pb) {
  size_t np = n_params(pb), k = 0, ns = pb->n_tests;
  memset(pb->reaches, 1, np * ns);
  if (!pb->keep) {
    /* row t of R0 and of each pair (R at the knots, then tau, then the C factors) */
    for (size_t blk = 0; blk < 1 + pb->n_rc; blk++) {
      for (size_t t = 0; t < pb->nr; t++)
        for (size_t q = 0; q < pb->nk; q++, k++)
          for (size_t s = 0; s < ns; s++)
            pb->reaches[k * ns + s] = row_reaches(pb, t, s);
      if (blk == 0)
        continue;
      k++; /* tau: every test */
      for (size_t t = 0; t < pb->nr; t++) {
        if (t == pb->ref_row)
          continue;
        for (size_t s = 0; s < ns; s++)
          pb->reaches[k * ns + s] = row_reaches(pb, t, s);
        k++;
      }
    }
  }
  for (size_t s = 0; s < ns; s++)
    if (!pb->ts[s].soc_given) {
      for (size_t u = 0; u < ns; u++)
        pb->reaches[k * ns + u] = u == s;
      k++;
    }
}

/* The charge the cell gives out from sample k to k+1 [Ah], charging negative and counted at the
 * cell's coulombic efficiency: the counter's change when the log has one (a log with gaps),
 * else the current @p i_a held over the interval @p dt_s. */
static double charge_out_ah(const double *q, size_t k, double i_a, double dt_s, double eta) {
  double dq = q ? q[k + 1] - q[k] : i_a * dt_s / 3600.0;
  return dq >= 0 ? dq : eta * dq;
}

/* The parameters as a cell (its resistance tables and rows when fitted at knots and rows). */
static void params_cell(const problem *pb, const params *p, sits_battery_cfg *c) {
  *c = pb->cell;
  c->capacity_ah = p->q_ah;
  c->capacity_wh = NAN;
  c->r_ea_j_per_mol = p->ea_j_per_mol;
  if (pb->keep) /* the fitted values (kept: the cell's own) */
    return;
  size_t rr = pb->ref_row, kq = pb->ref;
  c->n_rc = pb->n_rc;
  c->r0_ohm = p->r0[rr][kq];
  for (size_t j = 0; j < pb->n_rc; j++) /* C: tau at the reference knot over R there */
    c->rc_r_ohm[j] = p->r[j][rr][kq], c->rc_c_f[j] = p->tau[j] / p->r[j][rr][kq];
  if (pb->rows) {
    c->n_r_t = pb->nr;
    memcpy(c->r_t_c, pb->rows_c, pb->nr * sizeof(double));
    if (pb->flat)
      c->n_r_soc = 2, c->r_soc[0] = 0.0, c->r_soc[1] = 1.0;
  }
  for (size_t t = 0; t < pb->nr; t++)
    for (size_t q = 0; q < c->n_r_soc; q++) { /* one value per row when flat */
      size_t v = pb->flat ? 0 : q;
      c->r0_scale[t][q] = p->r0[t][v] / c->r0_ohm;
      for (size_t j = 0; j < pb->n_rc; j++) {
        c->rc_has_scale[j] = true, c->rc_r_scale[j][t][q] = p->r[j][t][v] / c->rc_r_ohm[j];
        if (pb->rows)
          c->rc_has_c_scale[j] = true, c->rc_c_scale[j][t][q] = p->cf[j][t];
      }
    }
}

/* Simulates the first m samples of test s into out (model voltage), with the model's own
 * functions. */
static int simulate(const problem *pb, const params *p, size_t s, size_t m, double *out) {
  const test_data *td = &pb->ts[s];
  sits_battery_cfg c;
  params_cell(pb, p, &c);
  sits_err err;
  sits_battery *b = sits_battery_new(&c, &err);
  if (!b)
    return -1;
  double soc = p->soc0[s], vrc[SITS_BATTERY_MAX_RC] = {0}, h = p->h0;
  /* the instantaneous term's sign: the current's, held through rests (before the first
   * current: h's) */
  double s_last = h > 0 ? 1.0 : h < 0 ? -1.0 : 0.0;
  for (size_t k = 0; k < m; k++) {
    double sum = 0;
    for (size_t j = 0; j < pb->n_rc; j++)
      sum += vrc[j];
    /* the current at the voltage's instant, lag_s before the stamp (interpolated within
     * the interval before it; a lag longer than the interval takes the sample before) */
    double i_k = td->i[k];
    if (k > 0 && p->lag_s > 0)
      i_k -= fmin(p->lag_s / (td->t[k] - td->t[k - 1]), 1.0) * (td->i[k] - td->i[k - 1]);
    if (i_k != 0)
      s_last = i_k > 0 ? -1.0 : 1.0;
    /* at the sample's temperature: OCV(SOC, T) and R(SOC, T) */
    double tc = td->temp_c ? td->temp_c[k] : c.r_ref_c;
    double ocv = td->temp_c ? sits_battery_ocv_at_v(b, soc, tc) : sits_battery_ocv_v(b, soc);
    out[k] = ocv + p->m_v * h + p->m0_v * s_last - sum - sits_battery_r0_ohm(b, soc, tc) * i_k;
    if (k + 1 < m) {
      /* held from this voltage's instant to the next one's: the lagged current (over a test
       * the counted charge moves by about lag_s times the current's last minus first value) */
      double dt = td->t[k + 1] - td->t[k], i = i_k;
      if (pb->hyst && i != 0) { /* exact for the held current: h -> -sgn(i) */
        double e = exp(-fabs(i) * dt * p->gamma / (3600.0 * p->q_ah)), sg = i > 0 ? 1.0 : -1.0;
        h = -sg + (h + sg) * e;
      }
      for (size_t j = 0; j < pb->n_rc; j++) { /* exact for the held current and R */
        double r = sits_battery_rc_r_ohm(b, j, soc, tc);
        double e = exp(-dt / (r * sits_battery_rc_c_f(b, j, soc, tc)));
        vrc[j] = vrc[j] * e + r * i * (1 - e);
      }
      soc -= charge_out_ah(td->q, k, i, dt, c.coulombic_eff) / p->q_ah;
    }
  }
  sits_battery_free(b);
  return 0;
}

/* The training residuals of every test, each test simulated only when a parameter that
 * reaches it differs from the cached evaluation nearest to x. */
static int residual(const double *x, double *r, void *user) {
  problem *pb = user;
  size_t np = n_params(pb), ns = pb->n_tests;
  bool redo[SITS_BATTERY_FIT_MAX_TESTS];
  int src = -1;
  size_t best = ns + 1;
  for (int c = 0; c < 2; c++) {
    const res_cache *ca = &pb->cache[c];
    if (!ca->valid || !ca->x)
      continue;
    bool mark[SITS_BATTERY_FIT_MAX_TESTS] = {false};
    for (size_t k = 0; k < np; k++)
      if (x[k] != ca->x[k])
        for (size_t s = 0; s < ns; s++)
          mark[s] = mark[s] || pb->reaches[k * ns + s];
    size_t cnt = 0;
    for (size_t s = 0; s < ns; s++)
      cnt += mark[s];
    if (cnt < best)
      best = cnt, src = c, memcpy(redo, mark, sizeof mark);
  }
  if (src < 0)
    for (size_t s = 0; s < ns; s++)
      redo[s] = true;
  params p;
  unpack(pb, x, &p);
  for (size_t s = 0; s < ns; s++) {
    const test_data *td = &pb->ts[s];
    if (!redo[s]) {
      memcpy(r + td->off, pb->cache[src].r + td->off, td->n_train * sizeof(double));
      continue;
    }
    if (simulate(pb, &p, s, td->n_train, r + td->off))
      return 1;
    for (size_t k = 0; k < td->n_train; k++)
      r[td->off + k] -= td->v[k];
  }
  /* kept: the other cache than the source (the base point stays for the next column) */
  size_t w = src >= 0 ? (size_t)(1 - src) : pb->cache_next;
  res_cache *ca = &pb->cache[w];
  if (ca->x && ca->r) {
    memcpy(ca->x, x, np * sizeof(double));
    memcpy(ca->r, r, pb->n_train * sizeof(double));
    ca->valid = true;
  }
  pb->cache_next = 1 - w;
  pb->evaluations++;
  if (pb->progress) {
    double ss = 0;
    for (size_t k = 0; k < pb->n_train; k++)
      ss += r[k] * r[k];
    pb->progress(pb->start, pb->n_starts, pb->evaluations, sqrt(ss / (double)pb->n_train),
                 pb->progress_user);
  }
  return 0;
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
  sits_battery_test one = {t_s, i_a, v_v, temp_c, q_ah, n, false, NAN};
  return sits_battery_fit_tests(cell, &one, 1, n_rc, train_fraction, what, out, err);
}

/* The median of @p n values (sorted in a copy); NAN for none or out of memory. */
static double median_of(const double *v, size_t n) {
  double *w = n ? malloc(n * sizeof(double)) : NULL;
  if (!w)
    return NAN;
  size_t m = 0;
  for (size_t k = 0; k < n; k++)
    if (isfinite(v[k]))
      w[m++] = v[k];
  qsort(w, m, sizeof(double), cmp_double);
  double med = m ? (m % 2 ? w[m / 2] : 0.5 * (w[m / 2 - 1] + w[m / 2])) : NAN;
  free(w);
  return med;
}

/* The rows over temperature: the cell's r_t_c, else the tests' median temperatures (sorted,
 * those within SITS_BATTERY_FIT_ROW_MERGE_K of the group's first averaged into one row);
 * each row must have training samples nearer to it than to the rows beside it. */
static int place_rows(problem *pb, const sits_battery_fit *out, sits_err *err) {
  const sits_battery_cfg *cell = &pb->cell;
  if (cell->n_r_t > 0) {
    pb->nr = cell->n_r_t;
    memcpy(pb->rows_c, cell->r_t_c, pb->nr * sizeof(double));
  } else {
    double med[SITS_BATTERY_FIT_MAX_TESTS];
    for (size_t s = 0; s < pb->n_tests; s++)
      med[s] = out->tests[s].temp_median_c;
    qsort(med, pb->n_tests, sizeof(double), cmp_double);
    pb->nr = 0;
    for (size_t s = 0; s < pb->n_tests;) {
      size_t e = s;
      double sum = 0;
      while (e < pb->n_tests && med[e] - med[s] <= SITS_BATTERY_FIT_ROW_MERGE_K)
        sum += med[e++];
      if (pb->nr == SITS_BATTERY_MAX_R_T)
        return sits__fail(err, SITS_EINPUT,
                          "the tests' median cell temperatures make more than %d rows over "
                          "temperature (tests within %g K share one)",
                          SITS_BATTERY_MAX_R_T, SITS_BATTERY_FIT_ROW_MERGE_K);
      pb->rows_c[pb->nr++] = round(10.0 * sum / (double)(e - s)) / 10.0;
      s = e;
    }
    if (pb->nr < 2)
      return sits__fail(err, SITS_EINPUT,
                        "rows over temperature need tests at two or more temperatures: the "
                        "tests' median cell temperatures are all within %g K of %.4g C",
                        SITS_BATTERY_FIT_ROW_MERGE_K, pb->rows_c[0]);
  }
  /* each row measured: some training sample weighs at least one half on it */
  for (size_t t = 0; t < pb->nr; t++) {
    double lo = t > 0 ? 0.5 * (pb->rows_c[t - 1] + pb->rows_c[t]) : -INFINITY;
    double hi = t + 1 < pb->nr ? 0.5 * (pb->rows_c[t] + pb->rows_c[t + 1]) : INFINITY;
    size_t hits = 0;
    for (size_t s = 0; s < pb->n_tests; s++)
      for (size_t k = 0; k < pb->ts[s].n_train; k++)
        hits += pb->ts[s].temp_c[k] >= lo && pb->ts[s].temp_c[k] <= hi;
    if (hits < 10)
      return sits__fail(err, SITS_EINPUT,
                        "the row at %.4g C (r_t_c): %zu training samples have a cell temperature "
                        "nearer to it than to the rows beside it (the tests span %.4g to %.4g C): "
                        "its values would not be measured",
                        pb->rows_c[t], hits, out->train_temp_lo_c, out->train_temp_hi_c);
  }
  pb->ref_row = 0;
  for (size_t t = 1; t < pb->nr; t++)
    if (fabs(pb->rows_c[t] - cell->r_ref_c) < fabs(pb->rows_c[pb->ref_row] - cell->r_ref_c))
      pb->ref_row = t;
  return SITS_OK;
}

/* Checks the tests and fills pb's test table, the training parts' temperature ranges and
 * medians (into out) and the lag's bound. */
static int take_tests(problem *pb, const sits_battery_test *tests, double train_fraction,
                      sits_battery_fit *out, sits_err *err) {
  pb->dt_med_s = INFINITY;
  out->train_temp_lo_c = out->train_temp_hi_c = NAN;
  for (size_t s = 0; s < pb->n_tests; s++) {
    const sits_battery_test *te = &tests[s];
    test_data *td = &pb->ts[s];
    const char *which = pb->n_tests > 1 ? "test " : "";
    char num[24] = "";
    if (pb->n_tests > 1)
      snprintf(num, sizeof num, "%zu: ", s + 1);
    if (te->n < 10)
      return sits__fail(err, SITS_EINPUT,
                        "%s%sthe fit needs at least 10 samples (the trace has %zu)", which, num,
                        te->n);
    for (size_t k = 1; k < te->n; k++)
      if (!(te->t_s[k] > te->t_s[k - 1]))
        return sits__fail(err, SITS_EINPUT, "%s%ssample %zu: time does not increase", which, num,
                          k);
    *td = (test_data){te->t_s,
                      te->i_a,
                      te->v_v,
                      te->temp_c,
                      te->q_ah,
                      te->n,
                      (size_t)floor(train_fraction * (double)te->n),
                      pb->n_train,
                      NAN,
                      NAN,
                      te->soc_given,
                      te->initial_soc};
    if (te->soc_given && !(te->initial_soc >= 0 && te->initial_soc <= 1))
      return sits__fail(err, SITS_EINPUT, "%s%sthe given initial SOC %g is not in [0, 1]", which,
                        num, te->initial_soc);
    pb->n_soc_free += !te->soc_given;
    pb->n_train += td->n_train;
    if (td->n_train < 2)
      return sits__fail(err, SITS_EINPUT, "%s%sthe training part has too few samples", which, num);
    for (size_t k = 0; te->temp_c && k < td->n_train; k++)
      if (isfinite(te->temp_c[k])) {
        td->temp_lo_c = isnan(td->temp_lo_c) ? te->temp_c[k] : fmin(td->temp_lo_c, te->temp_c[k]);
        td->temp_hi_c = isnan(td->temp_hi_c) ? te->temp_c[k] : fmax(td->temp_hi_c, te->temp_c[k]);
      }
    if (!isnan(td->temp_lo_c)) {
      out->train_temp_lo_c =
          isnan(out->train_temp_lo_c) ? td->temp_lo_c : fmin(out->train_temp_lo_c, td->temp_lo_c);
      out->train_temp_hi_c =
          isnan(out->train_temp_hi_c) ? td->temp_hi_c : fmax(out->train_temp_hi_c, td->temp_hi_c);
    }
    out->tests[s].temp_median_c = te->temp_c ? median_of(te->temp_c, td->n_train) : NAN;
    if (pb->fit_lag) { /* the lag is bounded by the training parts' median interval */
      double *dt = malloc((td->n_train - 1) * sizeof(double));
      if (!dt)
        return sits__fail(err, SITS_ENOMEM, "out of memory");
      for (size_t k = 0; k + 1 < td->n_train; k++)
        dt[k] = te->t_s[k + 1] - te->t_s[k];
      qsort(dt, td->n_train - 1, sizeof(double), cmp_double);
      pb->dt_med_s = fmin(pb->dt_med_s, dt[(td->n_train - 1) / 2]);
      free(dt);
    }
  }
  return SITS_OK;
}

/* Pooled metrics over every test's part (train: [0, n_train), else [n_train, n)). */
static int pooled(const problem *pb, const double *model, bool train, sits_fit_metrics *m,
                  sits_err *err) {
  size_t tot = 0;
  for (size_t s = 0; s < pb->n_tests; s++)
    tot += train ? pb->ts[s].n_train : pb->ts[s].n - pb->ts[s].n_train;
  double *a = malloc((tot ? tot : 1) * sizeof(double)),
         *b = malloc((tot ? tot : 1) * sizeof(double));
  if (!a || !b) {
    free(a), free(b);
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  }
  size_t w = 0, base = 0;
  for (size_t s = 0; s < pb->n_tests; s++) {
    const test_data *td = &pb->ts[s];
    for (size_t k = train ? 0 : td->n_train; k < (train ? td->n_train : td->n); k++, w++)
      a[w] = model[base + k], b[w] = td->v[k];
    base += td->n;
  }
  sits_fit_metrics_compute(a, b, 0, tot, m);
  free(a), free(b);
  return SITS_OK;
}

/* The start point of one start (R0 and the pairs' R from r0_start, each pair's tau from
 * tau_start times 10^j; colder rows' R raised by a 25 kJ/mol Arrhenius factor on the
 * reference row). */
static size_t start_point(const problem *pb, const sits_battery_cfg *cell, double r0_start,
                          double tau_start, double *x) {
  size_t k = 0;
  double row_f[SITS_BATTERY_MAX_R_T];
  for (size_t t = 0; t < pb->nr; t++)
    row_f[t] =
        pb->rows ? exp(25000.0 / 8.314462618 *
                       (1.0 / (pb->rows_c[t] + 273.15) - 1.0 / (pb->rows_c[pb->ref_row] + 273.15)))
                 : 1.0;
  for (size_t t = 0; !pb->keep && t < pb->nr; t++)
    for (size_t q = 0; q < pb->nk; q++)
      x[k++] = log(r0_start * row_f[t]);
  for (size_t j = 0; !pb->keep && j < pb->n_rc; j++) {
    for (size_t t = 0; t < pb->nr; t++)
      for (size_t q = 0; q < pb->nk; q++)
        x[k++] = log(r0_start * row_f[t]);
    x[k++] = log(tau_start * pow(10.0, (double)j));
    for (size_t t = 0; t < pb->nr; t++)
      if (t != pb->ref_row)
        x[k++] = -log(row_f[t]); /* C from the colder row's R: the same tau */
  }
  for (size_t s = 0; s < pb->n_tests; s++) {
    const test_data *td = &pb->ts[s];
    if (td->soc_given)
      continue;
    double soc0 = start_soc(cell, td->t, td->i, td->v, td->q, td->n_train);
    x[k++] = log(soc0 / (1 - soc0));
  }
  if (pb->fit_capacity)
    x[k++] = log(cell->capacity_ah);
  if (pb->hyst && !pb->keep) { /* from the cell's values, inside the bounds */
    double m = fmin(fmax(cell->hyst_m_v / SITS_BATTERY_FIT_HYST_M_MAX_V, 1e-3), 1 - 1e-3);
    double g =
        (log(fmin(fmax(cell->hyst_gamma, HYST_G_LO * 1.01), HYST_G_HI / 1.01)) - log(HYST_G_LO)) /
        (log(HYST_G_HI) - log(HYST_G_LO));
    x[k++] = log(m / (1 - m));
    x[k++] = log(g / (1 - g));
    x[k++] = atanh(fmin(fmax(cell->hyst_initial, -0.99), 0.99));
    double m0 = fmin(fmax(cell->hyst_m0_v / SITS_BATTERY_FIT_HYST_M_MAX_V, 1e-3), 1 - 1e-3);
    x[k++] = log(m0 / (1 - m0));
  }
  if (pb->fit_lag) /* half the median interval */
    x[k++] = 0.0;
  if (pb->fit_ea) { /* from the cell's (20 kJ/mol without one), inside the range */
    double e = cell->r_ea_j_per_mol > 0 ? cell->r_ea_j_per_mol : 20000.0;
    e = fmin(fmax(e / SITS_BATTERY_FIT_EA_MAX_J_PER_MOL, 1e-3), 1 - 1e-3);
    x[k++] = log(e / (1 - e));
  }
  return k;
}

/* The fitted values into out (the kept cell's own for R and C). */
static void report(const problem *pb, const sits_battery_cfg *cell, params *p,
                   sits_battery_fit *out) {
  size_t rr = pb->ref_row, kq = pb->ref;
  if (pb->keep) { /* the cell's own values (their tables are not reported) */
    p->r0[rr][kq] = cell->r0_ohm;
    for (size_t j = 0; j < pb->n_rc; j++)
      p->r[j][rr][kq] = cell->rc_r_ohm[j], p->tau[j] = cell->rc_r_ohm[j] * cell->rc_c_f[j];
  }
  out->lag_s = p->lag_s;
  out->r_ea_j_per_mol = p->ea_j_per_mol;
  out->lag_frac = pb->fit_lag ? p->lag_s / pb->dt_med_s : 0.0;
  out->n_rc = pb->n_rc;
  out->r0_ohm = p->r0[rr][kq];
  for (size_t j = 0; j < pb->n_rc; j++) {
    out->rc_r_ohm[j] = p->r[j][rr][kq];
    out->rc_c_f[j] = p->tau[j] / p->r[j][rr][kq];
  }
  out->n_r_soc = pb->keep ? 0 : pb->flat ? 2 : cell->n_r_soc;
  for (size_t q = 0; q < out->n_r_soc; q++) { /* factors on the reference knot's values */
    size_t v = pb->flat ? 0 : q;
    out->r_soc[q] = pb->flat ? (double)q : cell->r_soc[q];
    out->r0_scale[q] = p->r0[rr][v] / out->r0_ohm;
    for (size_t j = 0; j < pb->n_rc; j++)
      out->rc_r_scale[j][q] = p->r[j][rr][v] / out->rc_r_ohm[j];
    for (size_t t = 0; pb->rows && t < pb->nr; t++) {
      out->r0_scale_t[t][q] = p->r0[t][v] / out->r0_ohm;
      for (size_t j = 0; j < pb->n_rc; j++)
        out->rc_r_scale_t[j][t][q] = p->r[j][t][v] / out->rc_r_ohm[j];
    }
  }
  out->n_r_t = pb->rows ? pb->nr : 0;
  out->r_soc_flat = pb->flat;
  for (size_t t = 0; t < out->n_r_t; t++) {
    out->r_t_c[t] = pb->rows_c[t];
    for (size_t j = 0; j < pb->n_rc; j++)
      out->rc_c_scale_t[j][t] = p->cf[j][t];
  }
  out->capacity_ah = p->q_ah;
  out->initial_soc = p->soc0[0];
  out->hyst_m_v = p->m_v, out->hyst_gamma = p->gamma, out->hyst_initial = p->h0;
  out->hyst_m0_v = p->m0_v;
}

int sits_battery_fit_tests(const sits_battery_cfg *cell, const sits_battery_test *tests,
                           size_t n_tests, size_t n_rc, double train_fraction, unsigned what,
                           sits_battery_fit *out, sits_err *err) {
  return sits_battery_fit_tests_p(cell, tests, n_tests, n_rc, train_fraction, what, NULL, NULL, out,
                                  err);
}

/* The fit's flags and sizes, before any data are read. */
static int check_request(const sits_battery_test *tests, size_t n_tests, size_t n_rc,
                         double train_fraction, unsigned what, sits_err *err) {
  if (what & ~(unsigned)(SITS_BATTERY_FIT_CAPACITY | SITS_BATTERY_FIT_LAG | SITS_BATTERY_FIT_KEEP |
                         SITS_BATTERY_FIT_ARRHENIUS | SITS_BATTERY_FIT_ROWS))
    return sits__fail(err, SITS_EINPUT, "unknown battery fit flags 0x%x", what);
  if (n_tests < 1 || n_tests > SITS_BATTERY_FIT_MAX_TESTS || !tests)
    return sits__fail(err, SITS_EINPUT, "the fit takes 1 to %d tests (given %zu)",
                      SITS_BATTERY_FIT_MAX_TESTS, n_tests);
  if (n_rc > SITS_BATTERY_MAX_RC)
    return sits__fail(err, SITS_EINPUT, "the fit takes 0 to %d RC pairs (the battery has %zu)",
                      SITS_BATTERY_MAX_RC, n_rc);
  if (!(train_fraction > 0 && train_fraction <= 1))
    return sits__fail(err, SITS_EINPUT, "the train fraction must be in (0, 1] (got %g)",
                      train_fraction);
  return SITS_OK;
}

/* What the cell and the tests allow of the request (the tests taken): rows over temperature,
 * an activation energy, the resistance tables' knots. */
static int shape_problem(problem *pb, const sits_battery_cfg *cell, const sits_battery_test *tests,
                         sits_battery_fit *out, sits_err *err) {
  size_t n_tests = pb->n_tests;
  if (pb->rows && pb->keep)
    return sits__fail(
        err, SITS_EINPUT,
        "a kept cell keeps its rows over temperature: fit rows with battery, not soc");
  if (pb->rows && pb->fit_ea)
    return sits__fail(err, SITS_EINPUT,
                      "rows over temperature replace the Arrhenius factor: fit one of them");
  if (pb->keep)
    pb->n_rc = cell->n_rc; /* the cell's, whatever was asked */
  else if (cell->n_r_t > 0 && !pb->rows)
    return sits__fail(err, SITS_EINPUT,
                      "the cell has resistance rows over temperature (r_t_c): fit them with "
                      "rows (tests at their temperatures), or drop them");
  if (!pb->keep && cell->n_r_soc > 0) { /* the resistance tables over SOC: at the cell's knots */
    pb->nk = cell->n_r_soc;
    for (size_t q = 1; q < pb->nk; q++)
      if (fabs(cell->r_soc[q] - 0.5) < fabs(cell->r_soc[pb->ref] - 0.5))
        pb->ref = q;
  }
  if (pb->rows) {
    for (size_t s = 0; s < n_tests; s++)
      if (!tests[s].temp_c || isnan(pb->ts[s].temp_lo_c))
        return sits__fail(err, SITS_EINPUT,
                          "rows over temperature are fitted at each sample's cell temperature: "
                          "test %zu has none (replay.battery.temperature_column)",
                          s + 1);
    pb->flat = cell->n_r_soc == 0;
    int rc = place_rows(pb, out, err);
    if (rc)
      return rc;
  }
  if (pb->fit_ea) { /* the factor needs the temperature to move, and no rows that replace it */
    for (size_t s = 0; s < n_tests; s++)
      if (!tests[s].temp_c)
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
  return SITS_OK;
}

/* The fit from several starts (small and large R0, fast and slow RC pairs; one when the cell
 * is kept): the least cost's parameters into best (*best_cost INFINITY when none ended). */
static int fit_from_starts(problem *pb, const sits_battery_cfg *cell, size_t np, double *best,
                           double *best_cost, bool *best_conv, sits_err *err) {
  int rc = SITS_OK;
  pb->reaches = malloc(np * pb->n_tests);
  for (int c = 0; c < 2; c++)
    pb->cache[c].x = malloc(np * sizeof(double)),
    pb->cache[c].r = malloc(pb->n_train * sizeof(double));
  if (!pb->reaches || !pb->cache[0].x || !pb->cache[0].r || !pb->cache[1].x || !pb->cache[1].r)
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  else
    map_reach(pb);
  const double r0s[] = {0.005, 0.03}, taus[] = {20.0, 300.0};
  *best_cost = INFINITY;
  *best_conv = false;
  for (size_t a = 0; rc == SITS_OK && a < 2; a++)
    for (size_t b = 0; b < 2; b++) {
      if (pb->keep && (a || b))
        continue;
      double x[MAX_PARAMS], cost;
      bool conv;
      start_point(pb, cell, r0s[a], taus[b], x);
      pb->cache[0].valid = pb->cache[1].valid = false;
      pb->start = 2 * a + b + 1, pb->n_starts = pb->keep ? 1 : 4, pb->evaluations = 0;
      sits_fit_opts o = {np, pb->n_train, residual, pb, SITS_BATTERY_FIT_MAX_ITER, NULL, NULL, NULL,
                         /* a Jacobian of 1e7 values and more (joint fits over several long
                          * tests): its QR would take most of the time */
                         (double)pb->n_train * (double)np >= 1e7};
      sits_err e2 = {0};
      if (sits_fit_nlinear(&o, x, &cost, &conv, &e2) == SITS_OK && cost < *best_cost) {
        *best_cost = cost;
        *best_conv = conv;
        memcpy(best, x, np * sizeof *best);
      }
    }
  free(pb->reaches);
  for (int c = 0; c < 2; c++)
    free(pb->cache[c].x), free(pb->cache[c].r);
  return rc;
}

/* The fitted model over every test (out->model_v) and each test's figures: the SOC span of
 * its training part, training and held-out metrics (the model from the test's start). */
static int model_per_test(const problem *pb, const sits_battery_cfg *cell, const params *p,
                          sits_battery_fit *out, sits_err *err) {
  size_t n_all = 0;
  for (size_t s = 0; s < pb->n_tests; s++)
    n_all += pb->ts[s].n;
  out->model_v = malloc(n_all * sizeof(double));
  if (!out->model_v)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  out->n_tests = pb->n_tests;
  out->train_soc_lo = INFINITY, out->train_soc_hi = -INFINITY;
  for (size_t s = 0, off = 0; s < pb->n_tests; off += pb->ts[s].n, s++) {
    const test_data *td = &pb->ts[s];
    struct sits_battery_fit_test *r = &out->tests[s];
    if (simulate(pb, p, s, td->n, out->model_v + off)) {
      free(out->model_v), out->model_v = NULL;
      return sits__fail(err, SITS_ENOMEM, "out of memory");
    }
    r->n = td->n, r->n_train = td->n_train, r->offset = off, r->initial_soc = p->soc0[s];
    double soc = p->soc0[s];
    r->train_soc_lo = r->train_soc_hi = soc;
    for (size_t k = 0; k + 1 < td->n_train; k++) {
      soc -=
          charge_out_ah(td->q, k, td->i[k], td->t[k + 1] - td->t[k], cell->coulombic_eff) / p->q_ah;
      r->train_soc_lo = fmin(r->train_soc_lo, soc);
      r->train_soc_hi = fmax(r->train_soc_hi, soc);
    }
    out->train_soc_lo = fmin(out->train_soc_lo, r->train_soc_lo);
    out->train_soc_hi = fmax(out->train_soc_hi, r->train_soc_hi);
    sits_fit_metrics_compute(out->model_v + off, td->v, 0, td->n_train, &r->train);
    /* held out: the model from the test's start, compared after the training part */
    sits_fit_metrics_compute(out->model_v + off, td->v, td->n_train, td->n, &r->holdout);
  }
  return SITS_OK;
}

int sits_battery_fit_tests_p(const sits_battery_cfg *cell, const sits_battery_test *tests,
                             size_t n_tests, size_t n_rc, double train_fraction, unsigned what,
                             sits_battery_fit_progress_fn progress, void *progress_user,
                             sits_battery_fit *out, sits_err *err) {
  memset(out, 0, sizeof *out);
  int rc = check_request(tests, n_tests, n_rc, train_fraction, what, err);
  if (rc)
    return rc;
  problem pb = {.cell = *cell,
                .n_tests = n_tests,
                .n_rc = n_rc,
                .fit_capacity = (what & SITS_BATTERY_FIT_CAPACITY) != 0,
                .fit_lag = (what & SITS_BATTERY_FIT_LAG) != 0,
                .keep = (what & SITS_BATTERY_FIT_KEEP) != 0,
                .fit_ea = (what & SITS_BATTERY_FIT_ARRHENIUS) != 0,
                .rows = (what & SITS_BATTERY_FIT_ROWS) != 0,
                .q_ah = cell->capacity_ah,
                .hyst = cell->hyst_m_v > 0 || cell->hyst_m0_v > 0,
                .nk = 1,
                .nr = 1,
                .progress = progress,
                .progress_user = progress_user};
  if ((rc = take_tests(&pb, tests, train_fraction, out, err)) ||
      (rc = shape_problem(&pb, cell, tests, out, err)))
    return rc;
  size_t np = n_params(&pb);
  if (np == 0)
    return sits__fail(err, SITS_EINPUT,
                      "nothing to fit: the cell is kept and every test's initial SOC is given");
  if (pb.n_train < np + 5)
    return sits__fail(err, SITS_EINPUT, "the training part has too few samples");
  double best[MAX_PARAMS], best_cost;
  bool best_conv;
  if ((rc = fit_from_starts(&pb, cell, np, best, &best_cost, &best_conv, err)))
    return rc;
  if (!isfinite(best_cost))
    return sits__fail(err, SITS_ESOLVER, "the battery fit found no finite solution from any start");
  params p;
  unpack(&pb, best, &p);
  report(&pb, cell, &p, out);
  if ((rc = model_per_test(&pb, cell, &p, out, err)))
    return rc;
  out->converged = best_conv;
  out->n_train = pb.n_train;
  if ((rc = pooled(&pb, out->model_v, true, &out->train, err)) ||
      (rc = pooled(&pb, out->model_v, false, &out->holdout, err))) {
    free(out->model_v), out->model_v = NULL;
    return rc;
  }
  return SITS_OK;
}

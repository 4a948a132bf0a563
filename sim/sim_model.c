/*
 * sim_model.c - the coupled model inside a run: inputs per interval, the right-hand side
 * and its analytic Jacobian.
 *
 * State y = [T_1..T_N, E_in, E_amb]:
 *   C_i dT_i/dt = P_i(T_i) - sum_j g_ij (T_i - T_j) - g_i,amb (T_i - T_amb)   [W]
 *   dE_in/dt    = sum_i P_i(T_i)                                           [W]
 *   dE_amb/dt   = sum_i g_i,amb (T_i - T_amb)                              [W]
 * P_i = static and traced power + sum over domains d with a share f_dk on node i of
 *   f_dk (idle_d + dyn_d(opp) u_d + L_d(V, T_i))   (sits_power.h).
 * Jacobian: -C^-1 G, plus f_dk dL_d/dT / C_i on the diagonal and f_dk dL_d/dT in the
 * E_in row for every domain node; g_amb in the E_amb row.
 * With a battery (sits_battery.h) the state goes on with [SOC, V_1..V_n, E_drawn]: the pack
 * delivers P_sys / efficiency, its Joule heat goes into its node (and E_in), and
 * dE_drawn/dt = P_sys / efficiency. The battery block of the Jacobian (its states, its
 * node and the leakage nodes that change P_sys) is taken by forward differences of the
 * battery terms alone; the rest stays analytic.
 */
#include "run_impl.h"
#include "status_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sits__run_set_segment(run *rn, size_t seg) {
  rn->seg = seg;
  rn->memo.ok = false; /* powers and ambient */
  memcpy(rn->base_power_w, sits_scenario_static_power_w(rn->sc), rn->n * sizeof(double));
  sits_schedule_add_node_power(rn->sched, seg, rn->base_power_w);
  rn->ambient_c = sits_schedule_ambient_c(rn->sched, seg);
  rn->base_total_w = 0;
  for (size_t i = 0; i < rn->n; i++)
    rn->base_total_w += rn->base_power_w[i];
  for (size_t d = 0; d < rn->nd; d++)
    rn->demand[d] = 0;
  sits_schedule_set_demand(rn->sched, seg, rn->demand);
  sits__run_update_util(rn);
  const double *v = sits_schedule_values(rn->sched, seg);
  for (size_t j = 0; j < sits_schedule_column_count(rn->sched); j++) {
    sits_column c = sits_schedule_column(rn->sched, j);
    if (c.kind == SITS_COLUMN_FAN_DUTY && c.target >= 0 && (size_t)c.target < rn->sc->n_fans) {
      rn->fan_traced[c.target] = true; /* the trace drives it: its trips stay off */
      sits__run_fan_set(rn, (size_t)c.target, v[j]);
    }
    /* a replay's domain clocks and loads (no governor then) */
    if (c.kind == SITS_COLUMN_FREQ_MHZ && c.target >= 0 && (size_t)c.target < rn->nd) {
      const sits_domain *dom = &rn->dom[c.target];
      size_t best = 0;
      for (size_t k = 1; k < dom->n_opp; k++)
        if (fabs(dom->opp[k].freq_mhz - v[j]) < fabs(dom->opp[best].freq_mhz - v[j]))
          best = k;
      rn->opp[c.target] = best;
      rn->memo.ok = false;
    }
    if (c.kind == SITS_COLUMN_UTIL && c.target >= 0 && (size_t)c.target < rn->nd) {
      rn->util[c.target] = fmin(fmax(v[j], 0.0), 1.0);
      rn->memo.ok = false;
    }
  }
}

bool sits__run_fan_set(run *rn, size_t f, double duty) {
  const sits__fan *fan = &rn->sc->fans[f];
  rn->fan_duty[f] = duty;
  double dg = sits__fan_g_w_per_k(fan, duty) - sits__fan_g_w_per_k(fan, fan->initial_duty);
  if (dg == rn->fan_dg[f])
    return false;
  rn->fan_dg[f] = dg;
  rn->memo.ok = false;
  rn->jac_changed = true;
  return true;
}

/* The fans' extra flows on their links into ydot (the E_out row: to the ambient). */
static void fan_flows(const run *rn, const double *y, double *ydot) {
  for (size_t f = 0; f < rn->sc->n_fans; f++) {
    double dg = rn->fan_dg[f];
    if (dg == 0)
      continue;
    const sits__fan *fan = &rn->sc->fans[f];
    double tb = fan->b >= 0 ? y[fan->b] : rn->ambient_c, q = dg * (y[fan->a] - tb);
    ydot[fan->a] -= q / sits_thermal_capacity_j_per_k(rn->th, fan->a);
    if (fan->b >= 0)
      ydot[fan->b] += q / sits_thermal_capacity_j_per_k(rn->th, fan->b);
    else
      ydot[rn->lay.i_e_out] += q;
  }
}

void sits__run_update_util(run *rn) {
  for (size_t d = 0; d < rn->nd; d++) {
    double u = sits_domain_utilisation(&rn->dom[d], rn->opp[d], rn->demand[d]);
    if (u != rn->util[d] || rn->opp[d] != rn->memo.opp[d]) /* the powers change */
      rn->memo.ok = false;
    rn->util[d] = u;
    rn->memo.opp[d] = rn->opp[d];
  }
}

/* Power of domain d's share on its node k at temperature temp_c; slope into *dp. */
static double share_w(const run *rn, size_t d, size_t k, double temp_c, double *dp) {
  const sits_domain *dom = &rn->dom[d];
  double p = sits_domain_power_w(dom, rn->opp[d], rn->util[d], temp_c, dp);
  if (dp)
    *dp *= dom->fractions[k];
  return dom->fractions[k] * p;
}

double sits__run_power_w(const run *rn, const double *y, double *domain_w) {
  double total = rn->base_total_w;
  for (size_t d = 0; d < rn->nd; d++) {
    double p = 0;
    for (size_t k = 0; k < rn->dom[d].n_nodes; k++)
      p += share_w(rn, d, k, y[rn->dom[d].nodes[k]], NULL);
    if (domain_w)
      domain_w[d] = p;
    total += p;
  }
  return total;
}

void sits__run_battery(const run *rn, const double *y, double p_sys_w, sits__batt_eval *b) {
  const double *v_rc = y + rn->lay.i_soc + 1;
  double temp_c = rn->batt_node >= 0 ? y[rn->batt_node] : rn->ambient_c;
  b->p_pack_w = p_sys_w / rn->batt_eff;
  /* disc: b^2 - 4 a p per cell [V^2], the brown-out root */
  sits_battery_point pt;
  b->ok = sits_battery_eval(rn->batt, y[rn->lay.i_soc], v_rc, temp_c, b->p_pack_w, rn->batt_s, &pt);
  b->i_cell_a = pt.i_cell_a, b->v_cell_v = pt.v_cell_v, b->disc = pt.disc_v2;
  b->heat_w = pt.heat_w, b->dsoc = pt.dsoc_dt;
  memcpy(b->dv, pt.dv_rc_dt, sizeof b->dv);
}

/* Node powers into rn->node_power_w, per-domain powers into dom_w (may be NULL); the sum. */
/* The leakage temperature factor of domain d on node i: one exp per node, slope and
 * reference, shared by the domains that have them in common (@p seen of them so far). */
typedef struct leak_memo {
  int node;
  double per_k, ref_c, factor;
} leak_memo;

static double leak_factor(const sits_domain *dom, int i, double temp_c, leak_memo *memo,
                          size_t *seen) {
  for (size_t m = 0; m < *seen; m++)
    if (memo[m].node == i && memo[m].per_k == dom->leak_per_k && memo[m].ref_c == dom->leak_ref_c)
      return memo[m].factor;
  double f = sits_domain_leak_factor(dom, temp_c);
  if (*seen < SITS_MAX_DOMAINS)
    memo[(*seen)++] = (leak_memo){i, dom->leak_per_k, dom->leak_ref_c, f};
  return f;
}

static double node_power(run *rn, const double *y, double *dom_w) {
  double total = rn->base_total_w;
  memcpy(rn->node_power_w, rn->base_power_w, rn->n * sizeof(double));
  leak_memo memo[SITS_MAX_DOMAINS];
  size_t seen = 0;
  for (size_t d = 0; d < rn->nd; d++) {
    double pd = 0;
    const sits_domain *dom = &rn->dom[d];
    for (size_t k = 0; k < dom->n_nodes; k++) {
      int i = dom->nodes[k];
      double p =
          dom->n_nodes == 1 /* a domain spread over cells keeps its own exps */
              ? dom->fractions[k] * sits_domain_power_w_f(dom, rn->opp[d], rn->util[d],
                                                          leak_factor(dom, i, y[i], memo, &seen))
              : share_w(rn, d, k, y[i], NULL);
      rn->node_power_w[i] += p;
      pd += p;
    }
    if (dom_w)
      dom_w[d] = pd;
    total += pd;
  }
  return total;
}

double sits__run_node_power(run *rn, const double *y) {
  rn->memo.ok = false; /* the scratch no longer holds the remembered state's powers */
  return node_power(rn, y, NULL);
}

/* Everything at state y under the current inputs, remembered for the last state: the
 * right-hand side, the total and per-domain powers and the battery (an integrator's step
 * start, the root functions, the peaks and the samples all read the same step end). */
static const run_memo *evaluate(run *rn, const double *y, bool need_ydot) {
  run_memo *m = &rn->memo;
  size_t ny = rn->lay.ny;
  if (!(m->ok && memcmp(m->y, y, ny * sizeof(double)) == 0)) {
    double total = node_power(rn, y, m->dom_w);
    if (rn->batt) {
      sits__run_battery(rn, y, total, &m->batt);
      if (rn->batt_node >= 0)
        rn->node_power_w[rn->batt_node] += m->batt.heat_w;
    }
    m->p_w = total;
    memcpy(m->y, y, ny * sizeof(double));
    m->ok = true;
    m->ydot_ok = false;
  }
  if (need_ydot && !m->ydot_ok) { /* rn->node_power_w still holds this state's powers */
    const sits__batt_eval *b = &m->batt;
    double q_amb, *ydot = m->ydot;
    sits_thermal_derivative(rn->th, y, rn->node_power_w, rn->ambient_c, ydot, &q_amb);
    ydot[rn->lay.i_e_in] = m->p_w; /* the board's; the pack's heat has its own integral */
    ydot[rn->lay.i_e_out] = q_amb;
    fan_flows(rn, y, ydot);
    if (rn->batt) {
      ydot[rn->lay.i_soc] = b->dsoc;
      for (size_t k = 0; k < rn->lay.nrc; k++)
        ydot[rn->lay.i_soc + 1 + k] = b->dv[k];
      ydot[rn->lay.i_drawn] = b->p_pack_w;
      if (rn->lay.i_e_pack)
        ydot[rn->lay.i_e_pack] = b->heat_w;
    }
    m->ydot_ok = true;
  }
  return m;
}

double sits__run_at_state(run *rn, const double *y, double *dom_w, sits__batt_eval *b) {
  const run_memo *m = evaluate(rn, y, false);
  if (dom_w)
    memcpy(dom_w, m->dom_w, rn->nd * sizeof(double));
  if (b && rn->batt)
    *b = m->batt;
  return m->p_w;
}

int sits__run_rhs(double t, const double *y, double *ydot, void *user) {
  (void)t;
  run *rn = user;
  memcpy(ydot, evaluate(rn, y, true)->ydot, rn->lay.ny * sizeof(double));
  return 0;
}

/* The battery's share of the right-hand side on the rows of its block. */
static void battery_rows(run *rn, const double *y, double *out) {
  sits__batt_eval b;
  sits__run_battery(rn, y, sits__run_power_w(rn, y, NULL), &b);
  size_t r = 0;
  out[r++] = b.dsoc;
  for (size_t k = 0; k < rn->lay.nrc; k++)
    out[r++] = b.dv[k];
  out[r++] = b.p_pack_w;
  if (rn->batt_node >= 0) {
    out[r++] = b.heat_w / sits_thermal_capacity_j_per_k(rn->th, rn->batt_node);
    out[r++] = b.heat_w; /* E_in */
  }
}

static void battery_jacobian(run *rn, const double *y, double *values) {
  double base[8], pert[8], ycopy[rn->lay.ny];
  memcpy(ycopy, y, rn->lay.ny * sizeof(double));
  battery_rows(rn, y, base);
  for (size_t c = 0; c < rn->n_bcols; c++) {
    size_t j = rn->bcols[c];
    double h = 1e-7 * fmax(1.0, fabs(y[j]));
    ycopy[j] = y[j] + h;
    battery_rows(rn, ycopy, pert);
    ycopy[j] = y[j];
    for (size_t r = 0; r < rn->n_brows; r++)
      values[rn->boff[r * rn->n_bcols + c]] += (pert[r] - base[r]) / h;
  }
}

int sits__run_jac(double t, const double *y, double *values, void *user) {
  (void)t;
  run *rn = user;
  memcpy(values, rn->jac_const, rn->jac->nz * sizeof(double));
  size_t slot = 0;
  for (size_t d = 0; d < rn->nd; d++)
    for (size_t k = 0; k < rn->dom[d].n_nodes; k++, slot++) {
      int i = rn->dom[d].nodes[k];
      double dp;
      share_w(rn, d, k, y[i], &dp);
      values[rn->leak_diag[slot]] += dp / sits_thermal_capacity_j_per_k(rn->th, i);
      values[rn->leak_ein[slot]] += dp;
    }
  if (rn->batt)
    battery_jacobian(rn, y, values);
  for (size_t f = 0; f < rn->sc->n_fans; f++) {
    const sits__fan *fan = &rn->sc->fans[f];
    double dg = rn->fan_dg[f], ca = sits_thermal_capacity_j_per_k(rn->th, fan->a);
    if (dg == 0)
      continue;
    values[rn->fan_jac[f][0]] -= dg / ca;
    if (fan->b >= 0) {
      double cb = sits_thermal_capacity_j_per_k(rn->th, fan->b);
      values[rn->fan_jac[f][1]] += dg / ca;
      values[rn->fan_jac[f][2]] -= dg / cb;
      values[rn->fan_jac[f][3]] += dg / cb;
    } else {
      values[rn->fan_jac[f][4]] += dg;
    }
  }
  return 0;
}

static size_t offset_of(gsl_spmatrix *m, size_t i, size_t j) {
  return (size_t)(gsl_spmatrix_ptr(m, i, j) - m->data);
}

/* The battery block: rows SOC, V_k, E_drawn (and the battery node's T and E_pack), columns
 * SOC, V_k (and the battery node's T and every domain node). */
static void battery_block(run *rn) {
  rn->n_brows = rn->n_bcols = 0;
  for (size_t k = 0; k <= rn->lay.nrc; k++) {
    rn->brows[rn->n_brows++] = rn->lay.i_soc + k;
    rn->bcols[rn->n_bcols++] = rn->lay.i_soc + k;
  }
  rn->brows[rn->n_brows++] = rn->lay.i_drawn;
  if (rn->batt_node >= 0) {
    rn->brows[rn->n_brows++] = (size_t)rn->batt_node;
    rn->brows[rn->n_brows++] = rn->lay.i_e_pack;
    rn->bcols[rn->n_bcols++] = (size_t)rn->batt_node;
  }
  for (size_t d = 0; d < rn->nd; d++)
    for (size_t k = 0; k < rn->dom[d].n_nodes; k++) {
      size_t i = (size_t)rn->dom[d].nodes[k], c = 0;
      while (c < rn->n_bcols && rn->bcols[c] != i)
        c++;
      if (c == rn->n_bcols && rn->n_bcols < sizeof rn->bcols / sizeof rn->bcols[0])
        rn->bcols[rn->n_bcols++] = i;
    }
}

int sits__run_build_jacobian(run *rn, sits_err *err) {
  size_t n = rn->n, slots = 0, ny = rn->lay.ny;
  gsl_spmatrix *g = sits_thermal_conductance(rn->th);
  if (rn->batt)
    battery_block(rn);
  gsl_spmatrix *coo =
      g ? gsl_spmatrix_alloc_nzmax(ny, ny, g->nz + 3 * n + 2 + 64 * 8, GSL_SPMATRIX_COO) : NULL;
  int rc = !coo;
  for (size_t j = 0; !rc && j < n; j++)
    for (int p = g->p[j]; p < g->p[j + 1]; p++)
      rc |= gsl_spmatrix_set(coo, (size_t)g->i[p], j,
                             -g->data[p] / sits_thermal_capacity_j_per_k(rn->th, g->i[p]));
  for (size_t i = 0; !rc && i < n; i++) {
    rc |= gsl_spmatrix_set(coo, n + 1, i, sits_thermal_ambient_conductance_w_per_k(rn->th, (int)i));
    rc |= gsl_spmatrix_set(coo, n, i, 0.0); /* E_in row: leakage slopes go here */
  }
  /* explicit zero diagonals keep I - gamma J inside the sparsity pattern */
  for (size_t i = n; !rc && i < ny; i++)
    rc |= gsl_spmatrix_set(coo, i, i, 0.0);
  for (size_t r = 0; !rc && rn->batt && r < rn->n_brows; r++)
    for (size_t c = 0; !rc && c < rn->n_bcols; c++)
      if (!gsl_spmatrix_ptr(coo, rn->brows[r], rn->bcols[c]))
        rc |= gsl_spmatrix_set(coo, rn->brows[r], rn->bcols[c], 0.0);
  rc |= !coo;
  if (!rc)
    rn->jac = gsl_spmatrix_compress(coo, GSL_SPMATRIX_CSC);
  gsl_spmatrix_free(g);
  gsl_spmatrix_free(coo);
  for (size_t d = 0; d < rn->nd; d++)
    slots += rn->dom[d].n_nodes;
  rn->leak_diag = malloc((slots ? slots : 1) * sizeof(size_t));
  rn->leak_ein = malloc((slots ? slots : 1) * sizeof(size_t));
  rn->boff = malloc((rn->n_brows * rn->n_bcols + 1) * sizeof(size_t));
  rn->jac_const = rn->jac ? malloc(rn->jac->nz * sizeof(double)) : NULL;
  if (!rn->jac || !rn->leak_diag || !rn->leak_ein || !rn->jac_const || !rn->boff)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t r = 0; r < rn->n_brows; r++)
    for (size_t c = 0; c < rn->n_bcols; c++)
      rn->boff[r * rn->n_bcols + c] = offset_of(rn->jac, rn->brows[r], rn->bcols[c]);
  memcpy(rn->jac_const, rn->jac->data, rn->jac->nz * sizeof(double));
  for (size_t f = 0; f < rn->sc->n_fans; f++) { /* its link's entries are in the pattern */
    size_t a = (size_t)rn->sc->fans[f].a;
    rn->fan_jac[f][0] = offset_of(rn->jac, a, a);
    rn->fan_jac[f][4] = offset_of(rn->jac, n + 1, a);
    if (rn->sc->fans[f].b >= 0) {
      size_t b = (size_t)rn->sc->fans[f].b;
      rn->fan_jac[f][1] = offset_of(rn->jac, a, b);
      rn->fan_jac[f][2] = offset_of(rn->jac, b, b);
      rn->fan_jac[f][3] = offset_of(rn->jac, b, a);
    }
  }
  size_t slot = 0;
  for (size_t d = 0; d < rn->nd; d++)
    for (size_t k = 0; k < rn->dom[d].n_nodes; k++, slot++) {
      size_t i = (size_t)rn->dom[d].nodes[k];
      rn->leak_diag[slot] = offset_of(rn->jac, i, i);
      rn->leak_ein[slot] = offset_of(rn->jac, n, i);
    }
  return SITS_OK;
}

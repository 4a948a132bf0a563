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
 */
#include "run_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sits__run_set_segment(run *rn, size_t seg) {
  rn->seg = seg;
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
}

void sits__run_update_util(run *rn) {
  for (size_t d = 0; d < rn->nd; d++)
    rn->util[d] = sits_domain_utilisation(&rn->dom[d], rn->opp[d], rn->demand[d]);
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

int sits__run_rhs(double t, const double *y, double *ydot, void *user) {
  (void)t;
  run *rn = user;
  double q_amb, total = rn->base_total_w;
  memcpy(rn->node_power_w, rn->base_power_w, rn->n * sizeof(double));
  for (size_t d = 0; d < rn->nd; d++)
    for (size_t k = 0; k < rn->dom[d].n_nodes; k++) {
      int i = rn->dom[d].nodes[k];
      double p = share_w(rn, d, k, y[i], NULL);
      rn->node_power_w[i] += p;
      total += p;
    }
  sits_thermal_derivative(rn->th, y, rn->node_power_w, rn->ambient_c, ydot, &q_amb);
  ydot[rn->n] = total;
  ydot[rn->n + 1] = q_amb;
  return 0;
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
  return 0;
}

static size_t offset_of(gsl_spmatrix *m, size_t i, size_t j) {
  return (size_t)(gsl_spmatrix_ptr(m, i, j) - m->data);
}

int sits__run_build_jacobian(run *rn, sits_err *err) {
  size_t n = rn->n, slots = 0;
  gsl_spmatrix *g = sits_thermal_conductance(rn->th);
  gsl_spmatrix *coo =
      g ? gsl_spmatrix_alloc_nzmax(n + 2, n + 2, g->nz + 3 * n + 2, GSL_SPMATRIX_COO) : NULL;
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
  rc |= !coo || gsl_spmatrix_set(coo, n, n, 0.0) || gsl_spmatrix_set(coo, n + 1, n + 1, 0.0);
  if (!rc)
    rn->jac = gsl_spmatrix_compress(coo, GSL_SPMATRIX_CSC);
  gsl_spmatrix_free(g);
  gsl_spmatrix_free(coo);
  for (size_t d = 0; d < rn->nd; d++)
    slots += rn->dom[d].n_nodes;
  rn->leak_diag = malloc((slots ? slots : 1) * sizeof(size_t));
  rn->leak_ein = malloc((slots ? slots : 1) * sizeof(size_t));
  rn->jac_const = rn->jac ? malloc(rn->jac->nz * sizeof(double)) : NULL;
  if (!rn->jac || !rn->leak_diag || !rn->leak_ein || !rn->jac_const)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  memcpy(rn->jac_const, rn->jac->data, rn->jac->nz * sizeof(double));
  size_t slot = 0;
  for (size_t d = 0; d < rn->nd; d++)
    for (size_t k = 0; k < rn->dom[d].n_nodes; k++, slot++) {
      size_t i = (size_t)rn->dom[d].nodes[k];
      rn->leak_diag[slot] = offset_of(rn->jac, i, i);
      rn->leak_ein[slot] = offset_of(rn->jac, n, i);
    }
  return SITS_OK;
}

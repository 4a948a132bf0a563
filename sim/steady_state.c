/*
 * steady_state.c - steady temperatures of the time-averaged inputs:
 *   F(T) = G T - P(T) - g_amb T_amb = 0
 * with P the power per node averaged over [0, duration_s] (HotSpot's convention): static
 * and traced power, plus each domain at the OPP its base governor picks for its average
 * demand (held down by the thermal governor where that would settle its sensor above the
 * trip: thermal_limit()), whose leakage depends on its node's temperature. Without leakage F is
 * linear and solved directly (sits_netsteady.h); with it, by GSL's hybrid Newton solver with the
 * analytic Jacobian G - diag(dP/dT), started from the leakage-free solution — or, for networks over
 * 2,048 nodes (grid floorplans) or solver.linear_solver = "klu", by KINSOL's Newton with KLU on
 * that sparse Jacobian (sits_newton.h). Thermal runaway: no root (the iteration diverges or fails),
 * or a root where G - diag(dP/dT) is not positive definite (an unstable fixed point).
 */
#include "config_internal.h"
#include "scenario_internal.h"
#include "status_internal.h"
#include "sits_netsteady.h"
#include "sits_sim.h"
#include "sits_steady.h"
#include "sits_chol.h"
#include "sits_newton.h"

/* the dense hybrid Newton holds n x n doubles (2,048 nodes: 32 MB); above, KINSOL + KLU */
#define SITS_STEADY_DENSE_MAX 2048

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multiroots.h>
#include <gsl/gsl_spblas.h>

#define RUNAWAY_C 1000.0 /* a steady state above this is taken as runaway */

void sits_steady_release(sits_steady_state *st) {
  if (st) {
    free(st->temp_c);
    memset(st, 0, sizeof *st);
  }
}

typedef struct problem {
  const sits_scenario *sc;
  const sits_thermal *th;
  size_t n, nd;
  const sits_domain *dom;
  const size_t *opp;
  const double *util;
  const double *base_w; /* per node: static + traced */
  double ambient_c;
  gsl_spmatrix *g;
  double *p_w, *dp_w_per_k; /* scratch: node powers and their slopes (n each) */
} problem;

/* Node powers at temperatures t into p (and slopes into dp when not NULL); the total. */
static double node_power(const problem *pb, const double *t, double *p, double *dp) {
  double total = 0;
  memcpy(p, pb->base_w, pb->n * sizeof(double));
  if (dp)
    memset(dp, 0, pb->n * sizeof(double));
  for (size_t i = 0; i < pb->n; i++)
    total += pb->base_w[i];
  for (size_t d = 0; d < pb->nd; d++)
    for (size_t k = 0; k < pb->dom[d].n_nodes; k++) {
      int i = pb->dom[d].nodes[k];
      double slope, w = pb->dom[d].fractions[k] *
                        sits_domain_power_w(&pb->dom[d], pb->opp[d], pb->util[d], t[i], &slope);
      p[i] += w;
      total += w;
      if (dp)
        dp[i] += pb->dom[d].fractions[k] * slope;
    }
  return total;
}

static int f_eval(const gsl_vector *x, void *params, gsl_vector *f) {
  const problem *pb = params;
  double *p = pb->p_w;
  node_power(pb, x->data, p, NULL);
  gsl_spblas_dgemv(CblasNoTrans, 1.0, pb->g, x, 0.0, f);
  for (size_t i = 0; i < pb->n; i++)
    f->data[i] -= p[i] + sits_thermal_ambient_conductance_w_per_k(pb->th, (int)i) * pb->ambient_c;
  for (size_t i = 0; i < pb->n; i++)
    if (!isfinite(f->data[i]))
      return GSL_EBADFUNC;
  return GSL_SUCCESS;
}

static int df_eval(const gsl_vector *x, void *params, gsl_matrix *j) {
  const problem *pb = params;
  double *dp = pb->dp_w_per_k;
  node_power(pb, x->data, pb->p_w, dp);
  gsl_spmatrix_sp2d(j, pb->g);
  for (size_t i = 0; i < pb->n; i++)
    gsl_matrix_set(j, i, i, gsl_matrix_get(j, i, i) - dp[i]);
  return GSL_SUCCESS;
}

static int fdf_eval(const gsl_vector *x, void *params, gsl_vector *f, gsl_matrix *j) {
  int rc = f_eval(x, params, f);
  return rc ? rc : df_eval(x, params, j);
}

/* The stability of a root: G - diag(dP/dT) symmetric positive definite. */
static bool stable(const problem *pb, const double *t) {
  gsl_matrix *j = gsl_matrix_alloc(pb->n, pb->n);
  gsl_vector_const_view tv = gsl_vector_const_view_array(t, pb->n);
  df_eval(&tv.vector, (void *)pb, j);
  bool ok = gsl_linalg_cholesky_decomp1(j) == GSL_SUCCESS;
  gsl_matrix_free(j);
  return ok;
}

static bool has_leakage(const problem *pb) {
  for (size_t d = 0; d < pb->nd; d++)
    if (pb->dom[d].leak_ref_w > 0 && pb->dom[d].leak_per_k != 0)
      return true;
  return false;
}

/* Large networks (a grid floorplan): KINSOL's Newton with KLU on the sparse Jacobian
 * G - diag(dP/dT), and the stability check by a sparse Cholesky of the same matrix. */
static int sparse_f(const double *t, double *f, void *user) {
  const problem *pb = user;
  gsl_vector_const_view tv = gsl_vector_const_view_array(t, pb->n);
  gsl_vector_view fv = gsl_vector_view_array(f, pb->n);
  return f_eval(&tv.vector, (void *)pb, &fv.vector) != GSL_SUCCESS;
}

/* values of G - diag(dP/dT) in G's compressed-column order */
static void jac_values(const problem *pb, const double *t, double *values) {
  const double *dp = pb->dp_w_per_k;
  node_power(pb, t, pb->p_w, pb->dp_w_per_k);
  for (size_t j = 0; j < pb->n; j++)
    for (int k = pb->g->p[j]; k < pb->g->p[j + 1]; k++)
      values[k] = pb->g->data[k] - ((size_t)pb->g->i[k] == j ? dp[j] : 0.0);
}

static int sparse_jac(const double *t, double *values, void *user) {
  jac_values(user, t, values);
  return 0;
}

static int sparse_newton(const problem *pb, double *t, bool *runaway, sits_err *err) {
  sits_err quiet = {0}; /* no root is a runaway, not an error */
  bool solved = sits_newton_solve(pb->g, sparse_f, sparse_jac, (void *)pb,
                                  1e-9 * (1.0 + (double)pb->n), 200, t, &quiet) == SITS_OK;
  bool bounded = true;
  for (size_t i = 0; bounded && i < pb->n; i++)
    bounded = t[i] <= RUNAWAY_C; /* NaN too */
  *runaway = true;
  if (!bounded)
    return SITS_OK;
  gsl_spmatrix *j = gsl_spmatrix_alloc_nzmax(pb->n, pb->n, pb->g->nz, GSL_SPMATRIX_CSC);
  double *dx = malloc(pb->n * sizeof *dx);
  if (!j || !dx) {
    gsl_spmatrix_free(j), free(dx);
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  }
  gsl_spmatrix_memcpy(j, pb->g);
  jac_values(pb, t, j->data);
  sits_chol *c = sits_chol_new(j, NULL, &quiet);
  int rc = c || quiet.code == SITS_EINPUT ? SITS_OK : sits__fail(err, quiet.code, "%s", quiet.msg);
  /* not positive definite: an unstable fixed point. Not solved to the residual test (stalled
   * in rounding, as the dense path's at_root() explains): a root when the Newton correction
   * is within 1 mK everywhere. */
  if (c && !solved && sparse_f(t, dx, (void *)pb) == 0 &&
      sits_chol_solve(c, dx, NULL, dx, &quiet) == SITS_OK) {
    solved = true;
    for (size_t i = 0; i < pb->n; i++)
      solved = solved && fabs(dx[i]) <= 1e-3;
  }
  *runaway = !c || !solved;
  sits_chol_free(c);
  gsl_spmatrix_free(j);
  free(dx);
  return rc;
}

/* Whether x, where the residual test failed (the solver stalled), is a root all the same: the
 * Newton correction J^-1 F(x) within 1 mK everywhere. A link of 1e-9 K/W (two nodes all but
 * merged) puts 1e9 W/K in G, where one ulp of a temperature is ~1e-5 W of residual and the
 * residual's rounding (~3e-5 W there) moves the merged nodes' common temperature by ~3e-5 K:
 * the residual test in watts cannot pass, and without this the root was called a runaway
 * (at 1e-12 K/W the rounding is ~0.03 K, no longer a root to report). */
static bool at_root(const problem *pb, const gsl_vector *x) {
  gsl_matrix *j = gsl_matrix_alloc(pb->n, pb->n);
  gsl_vector *f = gsl_vector_alloc(pb->n), *dx = gsl_vector_alloc(pb->n);
  gsl_permutation *perm = gsl_permutation_alloc(pb->n);
  int sign;
  bool ok = j && f && dx && perm && fdf_eval(x, (void *)pb, f, j) == GSL_SUCCESS &&
            gsl_linalg_LU_decomp(j, perm, &sign) == GSL_SUCCESS &&
            gsl_linalg_LU_solve(j, perm, f, dx) == GSL_SUCCESS;
  for (size_t i = 0; ok && i < pb->n; i++)
    ok = fabs(dx->data[i]) <= 1e-3;
  gsl_permutation_free(perm);
  gsl_vector_free(dx), gsl_vector_free(f);
  gsl_matrix_free(j);
  return ok;
}

/* Newton from the guess in t; *runaway when there is no stable root. */
static int newton(const problem *pb, double *t, bool *runaway, sits_err *err) {
  gsl_multiroot_function_fdf fn = {f_eval, df_eval, fdf_eval, pb->n, (void *)pb};
  gsl_multiroot_fdfsolver *s =
      gsl_multiroot_fdfsolver_alloc(gsl_multiroot_fdfsolver_hybridsj, pb->n);
  if (!s)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  gsl_vector_view x0 = gsl_vector_view_array(t, pb->n);
  int status = gsl_multiroot_fdfsolver_set(s, &fn, &x0.vector);
  for (int iter = 0; status == GSL_SUCCESS && iter < 200; iter++) {
    status = gsl_multiroot_fdfsolver_iterate(s);
    if (status)
      break;
    status = gsl_multiroot_test_residual(s->f, 1e-9 * (1.0 + pb->n));
    if (status == GSL_SUCCESS)
      break;
    status = gsl_vector_max(s->x) > RUNAWAY_C ? GSL_EMAXITER : GSL_SUCCESS;
    if (iter == 199)
      status = GSL_EMAXITER;
  }
  bool converged = (status == GSL_SUCCESS ||
                    ((status == GSL_ENOPROG || status == GSL_ENOPROGJ || status == GSL_EMAXITER) &&
                     at_root(pb, s->x))) &&
                   gsl_vector_max(s->x) <= RUNAWAY_C;
  memcpy(t, s->x->data, pb->n * sizeof(double));
  gsl_multiroot_fdfsolver_free(s);
  *runaway = !converged || !stable(pb, t);
  return SITS_OK;
}

int sits__steady_at(const sits_scenario *sc, const size_t *opp, const double *util,
                    const double *base_w, double ambient_c, double *t, double *total_w,
                    bool *runaway, sits_err *err) {
  return sits__steady_at_net(sc, sits_scenario_thermal(sc), opp, util, base_w, ambient_c, t,
                             total_w, runaway, err);
}

/* A message about node 'NAME' (the network's check) at that node's line of the platform's
 * config (platform.thermal.nodes), where it has one (not a floorplan's block). */
static int at_node(const sits_scenario *sc, int rc, sits_err *err) {
  const char *q = strchr(err->msg, '\''), *e = q ? strchr(q + 1, '\'') : NULL;
  const config_t *cfg = sits__scenario_cfg(sc);
  const config_setting_t *nodes = cfg ? config_lookup(cfg, "platform.thermal.nodes") : NULL;
  for (int k = 0; e && nodes && k < config_setting_length(nodes); k++) {
    const config_setting_t *g = config_setting_get_elem(nodes, (unsigned)k);
    const char *name = NULL;
    if (config_setting_lookup_string(g, "name", &name) && strlen(name) == (size_t)(e - q - 1) &&
        strncmp(name, q + 1, (size_t)(e - q - 1)) == 0) {
      char msg[SITS_ERRMSG_MAX];
      snprintf(msg, sizeof msg, "%s", err->msg);
      return sits__fail_at(err, rc, g, "%s", msg);
    }
  }
  return rc;
}

int sits__steady_at_net(const sits_scenario *sc, const sits_thermal *th, const size_t *opp,
                        const double *util, const double *base_w, double ambient_c, double *t,
                        double *total_w, bool *runaway, sits_err *err) {
  problem pb = {
      .sc = sc, .th = th, .opp = opp, .util = util, .base_w = base_w, .ambient_c = ambient_c};
  pb.n = sits_thermal_node_count(pb.th);
  pb.dom = sits_scenario_domains(sc, &pb.nd);
  int rc = sits_thermal_check_grounded(pb.th, err);
  if (rc)
    return at_node(sc, rc, err);
  double *p = malloc(pb.n * sizeof *p), *ambient = malloc(pb.n * sizeof *ambient);
  pb.p_w = malloc(pb.n * sizeof *pb.p_w);
  pb.dp_w_per_k = malloc(pb.n * sizeof *pb.dp_w_per_k);
  if (!(pb.g = sits_thermal_conductance(pb.th)) || !p || !ambient || !pb.p_w || !pb.dp_w_per_k) {
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
    goto done;
  }
  /* the leakage-free start: domain powers at the ambient */
  for (size_t i = 0; i < pb.n; i++)
    ambient[i] = ambient_c;
  node_power(&pb, ambient, p, NULL);
  sits_net_steady *lin = sits_net_steady_new(pb.th, NULL, err);
  rc = lin ? sits_net_steady_solve(lin, p, ambient_c, t, err) : err->code;
  sits_net_steady_free(lin);
  *runaway = false;
  /* solver.linear_solver picks the Newton's algebra: "klu" sparse, "dense" dense, "auto" by
   * size */
  sits_linsol ls = sits_scenario_solver(sc)->linsol;
  bool sparse = ls == SITS_LINSOL_KLU || (ls == SITS_LINSOL_AUTO && pb.n > SITS_STEADY_DENSE_MAX);
  if (rc == SITS_OK && has_leakage(&pb))
    rc = sparse ? sparse_newton(&pb, t, runaway, err) : newton(&pb, t, runaway, err);
  *total_w = node_power(&pb, t, p, NULL);
  if (*runaway) {   /* no fixed point: no temperature and no power to report (the last */
    *total_w = NAN; /* iterate's power was an arbitrary number, up to 1e9 W) */
    for (size_t i = 0; i < pb.n; i++)
      t[i] = NAN;
  }
done:
  free(p);
  free(ambient);
  free(pb.p_w), free(pb.dp_w_per_k);
  gsl_spmatrix_free(pb.g);
  return rc;
}

/* The thermal governor's share of the steady state: where its sensor would settle above the
 * temperature it holds (step_wise's trip_c, power_allocator's control_c) at the base
 * governor's OPPs, or run away, the cooling state rises, each step lowering every domain's
 * highest allowed OPP by one (step_wise's rule; for power_allocator an approximation of the
 * budget its PID settles on), until the sensor's steady temperature is at or below it; opp,
 * util and the steady figures in st are then that state's. */
static int thermal_limit(const sits_scenario *sc, const double *demand, size_t *opp, double *util,
                         const double *base, sits_steady_state *st, sits_err *err) {
  const sits_governor_cfg *g = sits_scenario_governor(sc);
  st->thermal_state = 0, st->thermal_cycles = false;
  st->unthrottled_sensor_c = st->warmer_sensor_c = NAN;
  if (!g || g->thermal == SITS_THERMAL_NONE || g->sensor_node < 0 ||
      (size_t)g->sensor_node >= st->n)
    return SITS_OK;
  double hold = g->thermal == SITS_THERMAL_STEP_WISE ? g->trip_c : g->control_c;
  st->unthrottled_sensor_c = st->runaway ? NAN : st->temp_c[g->sensor_node];
  if (!(st->runaway || st->temp_c[g->sensor_node] > hold))
    return SITS_OK;
  size_t nd, top = 0;
  const sits_domain *dom = sits_scenario_domains(sc, &nd);
  size_t base_opp[SITS_MAX_DOMAINS];
  for (size_t d = 0; d < nd; d++) {
    base_opp[d] = opp[d];
    top = dom[d].n_opp - 1 > top ? dom[d].n_opp - 1 : top;
  }
  int rc = SITS_OK;
  double last = st->unthrottled_sensor_c; /* the state above's */
  for (size_t c = 1; c <= top && rc == SITS_OK; c++) {
    bool moved = false;
    for (size_t d = 0; d < nd; d++) {
      size_t allowed = dom[d].n_opp - 1 >= c ? dom[d].n_opp - 1 - c : 0;
      size_t o = base_opp[d] < allowed ? base_opp[d] : allowed;
      moved = moved || o != opp[d];
      opp[d] = o;
      util[d] = sits_domain_utilisation(&dom[d], o, demand[d]);
    }
    st->thermal_state = c;
    if (!moved) /* this step lowers no domain: the next may */
      continue;
    rc = sits__steady_with_fans(sc, opp, util, base, st->ambient_c, st->temp_c, &st->total_power_w,
                                &st->runaway, st->fan_duty, st->fan_cycles, err);
    if (rc == SITS_OK && !st->runaway && st->temp_c[g->sensor_node] <= hold) {
      st->thermal_cycles = g->thermal == SITS_THERMAL_STEP_WISE &&
                           st->temp_c[g->sensor_node] < g->trip_c - g->hysteresis_c;
      st->warmer_sensor_c = last;
      return SITS_OK;
    }
    last = rc == SITS_OK && !st->runaway ? st->temp_c[g->sensor_node] : NAN;
  }
  return rc; /* at the lowest OPPs and still above: the figures are those (or runaway) */
}

/* The pack's heat in its node (a pack with one): the cells at the initial SOC under the
 * average draw, the RC pairs settled (V_k = I R_k), at the node's steady temperature, which
 * the heat raises: a few fixed-point rounds (the heat is a small share of the node's). */
static int pack_heat(const sits_scenario *sc, const size_t *opp, const double *util, double *base,
                     sits_steady_state *st, sits_err *err) {
  const sits_battery *b = sc->battery;
  st->battery_heat_w = 0;
  if (!b || sc->batt_node < 0 || st->runaway)
    return SITS_OK;
  const sits_battery_cfg *cfg = sits_battery_config(b);
  double soc = sc->batt_initial_soc, heat = 0, base0 = base[sc->batt_node];
  int rc = SITS_OK;
  for (int round = 0; round < 4 && rc == SITS_OK && !st->runaway; round++) {
    double temp_c = st->temp_c[sc->batt_node];
    double p_pack = (st->total_power_w - heat) / sc->batt_efficiency;
    /* the settled current, I = 2 p / (v + sqrt(v^2 - 4 R p)), puts the pairs at I R_k */
    double p_cell = p_pack / (double)(cfg->series * cfg->parallel);
    double v = sits_battery_ocv_at_v(b, soc, temp_c) - sits__battery_discharge_hyst_v(cfg);
    double d = v * v - 4.0 * sits__battery_settled_r_ohm(b, soc, temp_c) * p_cell;
    double i = d >= 0 ? 2.0 * p_cell / (v + sqrt(d)) : NAN;
    double v_rc[SITS_BATTERY_MAX_RC + 1] = {0};
    for (size_t j = 0; j < cfg->n_rc; j++)
      v_rc[j] = i * sits_battery_rc_r_ohm(b, j, soc, temp_c);
    if (cfg->hyst_m_v > 0) /* a long discharge's hysteresis state */
      v_rc[cfg->n_rc] = -1.0;
    sits_battery_point pt = {0};
    if (d >= 0)
      sits_battery_eval(b, soc, v_rc, temp_c, p_pack, -1.0, &pt);
    double next = pt.ok ? pt.heat_w : 0.0;
    if (fabs(next - heat) <= 1e-9 * (1 + fabs(next)) && round > 0)
      break;
    heat = next;
    base[sc->batt_node] = base0 + heat;
    rc = sits__steady_with_fans(sc, opp, util, base, st->ambient_c, st->temp_c, &st->total_power_w,
                                &st->runaway, st->fan_duty, st->fan_cycles, err);
  }
  if (rc == SITS_OK && !st->runaway) { /* the board's power, as a run's energy_j counts it */
    st->total_power_w -= heat;
    st->battery_heat_w = heat;
  }
  base[sc->batt_node] = base0;
  return rc;
}

int sits_steady(const sits_scenario *sc, sits_steady_state *st, sits_err *err) {
  const sits_thermal *th = sits_scenario_thermal(sc);
  const sits_schedule *s = sits_scenario_schedule(sc);
  size_t n = sits_thermal_node_count(th), nc = sits_schedule_column_count(s), nd;
  const sits_domain *dom = sits_scenario_domains(sc, &nd);
  memset(st, 0, sizeof *st);
  st->n = n;
  st->temp_c = calloc(n, sizeof(double));
  double *base = calloc(n, sizeof(double)), *cols = calloc(nc ? nc : 1, sizeof(double));
  int rc = SITS_OK;
  if (!st->temp_c || !base || !cols) {
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
    goto done;
  }
  sits_schedule_average(s, sits_scenario_duration_s(sc), cols, &st->ambient_c);
  memcpy(base, sits_scenario_static_power_w(sc), n * sizeof(double));
  double demand[SITS_MAX_DOMAINS] = {0}, util[SITS_MAX_DOMAINS];
  size_t opp[SITS_MAX_DOMAINS];
  for (size_t j = 0; j < nc; j++) {
    sits_column c = sits_schedule_column(s, j);
    if (c.kind == SITS_COLUMN_POWER_W)
      base[c.target] += cols[j];
    else if (c.kind == SITS_COLUMN_DEMAND)
      demand[c.target] = cols[j];
  }
  for (size_t d = 0; d < nd; d++) {
    opp[d] = sits_governor_base_opp(sits_scenario_governor(sc), &dom[d], d, demand[d]);
    util[d] = sits_domain_utilisation(&dom[d], opp[d], demand[d]);
  }
  st->n_fans = sc->n_fans;
  rc = sits__steady_with_fans(sc, opp, util, base, st->ambient_c, st->temp_c, &st->total_power_w,
                              &st->runaway, st->fan_duty, st->fan_cycles, err);
  if (rc == SITS_OK)
    rc = thermal_limit(sc, demand, opp, util, base, st, err);
  if (rc == SITS_OK)
    rc = pack_heat(sc, opp, util, base, st, err);
  bool any = sits_thermal_has_junctions(th);
  st->max_junction_temp_c = st->runaway ? NAN : -INFINITY;
  for (size_t i = 0; !st->runaway && i < n; i++)
    if (!any || sits_thermal_is_junction(th, (int)i))
      st->max_junction_temp_c = fmax(st->max_junction_temp_c, st->temp_c[i]);
  for (size_t d = 0; d < nd; d++) {
    st->opp[d] = opp[d];
    st->domain_power_w[d] = 0;
    for (size_t k = 0; k < dom[d].n_nodes; k++)
      st->domain_power_w[d] +=
          dom[d].fractions[k] *
          sits_domain_power_w(&dom[d], opp[d], util[d], st->temp_c[dom[d].nodes[k]], NULL);
  }
done:
  free(base);
  free(cols);
  if (rc)
    sits_steady_release(st);
  return rc;
}

/* ---- fans: the duties their trips settle to ------------------------------------------- */

/* A copy of the scenario's network with each fan's link at duty[f]. */
static sits_thermal *net_at(const sits_scenario *sc, const double *duty, sits_err *err) {
  const sits_thermal *th = sc->thermal;
  sits_thermal *c = sits_thermal_new();
  if (!c) {
    sits__fail(err, SITS_ENOMEM, "out of memory");
    return NULL;
  }
  int rc = SITS_OK;
  for (size_t i = 0; rc == SITS_OK && i < sits_thermal_node_count(th); i++) {
    /* the node's index, or a negative status */
    int idx = sits_thermal_add_node(c, sits_thermal_name(th, (int)i),
                                    sits_thermal_capacity_j_per_k(th, (int)i), err);
    rc = idx < 0 ? idx : SITS_OK;
    sits_thermal_set_initial_c(c, (int)i, sits_thermal_initial_c(th, (int)i));
    sits_thermal_set_junction(c, (int)i, sits_thermal_is_junction(th, (int)i));
    sits_thermal_set_critical_c(c, (int)i, sits_thermal_critical_c(th, (int)i));
  }
  int a, b;
  for (size_t k = 0; rc == SITS_OK && sits_thermal_link_ends(th, k, &a, &b) == SITS_OK; k++) {
    double r = sits_thermal_link_r_k_per_w(th, k);
    for (size_t f = 0; f < sc->n_fans; f++)
      if (sc->fans[f].link == k)
        r = 1.0 / sits__fan_g_w_per_k(&sc->fans[f], duty[f]);
    rc = sits_thermal_add_link(c, a, b, r, err);
  }
  if (rc) { /* err says why; the caller returns its code */
    sits_thermal_free(c);
    return NULL;
  }
  return c;
}

sits_thermal *sits__net_with_fans_at_c(const sits_scenario *sc, double sensor_c, sits_err *err) {
  double duty[SITS__MAX_FANS];
  for (size_t f = 0; f < sc->n_fans; f++) {
    const sits__fan *fan = &sc->fans[f];
    duty[f] = fan->initial_duty;
    for (size_t k = 0; k < fan->n_trips; k++)
      if (sensor_c > fan->trip_c[k])
        duty[f] = fan->trip_duty[k];
  }
  return net_at(sc, duty, err);
}

/* One step of the fans' trips at steady temperatures t, as a board warming up from the
 * ambient takes them: a fan whose next trip is below its sensor goes one level up, one whose
 * current trip has cleared by its hysteresis one level down. t NULL: no steady state at these
 * levels (runaway), so the board warms past every trip: each fan goes one level up. Returns
 * whether any moved. */
static bool settle(const sits_scenario *sc, const double *t, size_t *on, double *duty) {
  bool moved = false;
  for (size_t f = 0; f < sc->n_fans; f++) {
    const sits__fan *fan = &sc->fans[f];
    double tc = !fan->n_trips ? NAN : t ? t[fan->sensor] : INFINITY;
    if (on[f] < fan->n_trips && tc > fan->trip_c[on[f]])
      on[f]++, moved = true;
    else if (on[f] > 0 && tc < fan->trip_c[on[f] - 1] - fan->hysteresis_c[on[f] - 1])
      on[f]--, moved = true;
    duty[f] = on[f] ? fan->trip_duty[on[f] - 1] : fan->initial_duty;
  }
  return moved;
}

int sits__steady_with_fans(const sits_scenario *sc, const size_t *opp, const double *util,
                           const double *base_w, double ambient_c, double *t, double *total_w,
                           bool *runaway, double *duty_out, bool *cycles, sits_err *err) {
  double duty[SITS__MAX_FANS], seen[SITS__MAX_FANS * (2 * SITS__FAN_TRIPS + 2)][SITS__MAX_FANS];
  size_t n_seen = 0, nf = sc->n_fans, on[SITS__MAX_FANS] = {0};
  for (size_t f = 0; f < nf; f++) {
    duty[f] = sc->fans[f].initial_duty;
    if (cycles)
      cycles[f] = false;
  }
  int rc = sits__steady_at(sc, opp, util, base_w, ambient_c, t, total_w, runaway, err);
  /* fixed point over the fans' levels: solve, read the trips, until they stay; a return to
   * levels seen before is a cycle (the fan toggles around a trip's hysteresis) */
  while (rc == SITS_OK && nf && n_seen < sizeof seen / sizeof seen[0]) {
    memcpy(seen[n_seen++], duty, nf * sizeof(double));
    if (!settle(sc, *runaway ? NULL : t, on, duty))
      break;
    size_t back = n_seen;
    for (size_t s = 0; s < n_seen && back == n_seen; s++)
      if (!memcmp(seen[s], duty, nf * sizeof(double)))
        back = s;
    if (back < n_seen) { /* a cycle: each fan at its highest duty of it */
      for (size_t f = 0; f < nf; f++) {
        double hi = duty[f];
        for (size_t s = back; s < n_seen; s++) {
          if (cycles && seen[s][f] != duty[f])
            cycles[f] = true;
          hi = fmax(hi, seen[s][f]);
        }
        duty[f] = hi;
      }
    }
    sits_thermal *net = net_at(sc, duty, err);
    rc = net ? sits__steady_at_net(sc, net, opp, util, base_w, ambient_c, t, total_w, runaway, err)
             : err->code;
    sits_thermal_free(net);
    if (back < n_seen)
      break;
  }
  for (size_t f = 0; duty_out && f < nf; f++)
    duty_out[f] = duty[f];
  return rc;
}

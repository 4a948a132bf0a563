/*
 * sim.c - the event loop of a run: CVODE between input breakpoints, output samples
 * interpolated inside steps, critical temperatures found as roots.
 *
 * State y = [T_1..T_N, E_in, E_amb] with
 *   C_i dT_i/dt = P_i - sum_j g_ij (T_i - T_j) - g_i,amb (T_i - T_amb)   [W]
 *   dE_in/dt    = sum_i P_i                                            [W]
 *   dE_amb/dt   = sum_i g_i,amb (T_i - T_amb)                          [W]
 * The Jacobian is constant: -C^-1 G for the temperatures, g_amb for E_amb.
 */
#include "result_impl.h"
#include "scenario_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct run {
  const sits_scenario *sc;
  const sits_thermal *th;
  const sits_schedule *sched;
  size_t n, ny, seg;
  double *node_power_w; /* inputs of the current segment */
  double ambient_c, total_power_w;
  gsl_spmatrix *jac; /* CSC with the constant values */
  int *crit_node;
  int n_crit;
  double *y_start, *y_buf;
  double eps_s;
  double last_report_s; /* simulated time of the last progress call */
  sits_ode *ode;
  sits_result *res;
} run;

static int rhs(double t, const double *y, double *ydot, void *user) {
  (void)t;
  run *rn = user;
  double q_amb;
  sits_thermal_derivative(rn->th, y, rn->node_power_w, rn->ambient_c, ydot, &q_amb);
  ydot[rn->n] = rn->total_power_w;
  ydot[rn->n + 1] = q_amb;
  return 0;
}

static int jac(double t, const double *y, double *values, void *user) {
  (void)t, (void)y;
  run *rn = user;
  memcpy(values, rn->jac->data, rn->jac->nz * sizeof(double));
  return 0;
}

static int roots(double t, const double *y, double *g, void *user) {
  (void)t;
  run *rn = user;
  for (int k = 0; k < rn->n_crit; k++)
    g[k] = y[rn->crit_node[k]] - sits_thermal_critical_c(rn->th, rn->crit_node[k]);
  return 0;
}

static gsl_spmatrix *build_jacobian(const sits_thermal *th, size_t n) {
  gsl_spmatrix *g = sits_thermal_conductance(th);
  gsl_spmatrix *coo =
      g ? gsl_spmatrix_alloc_nzmax(n + 2, n + 2, g->nz + 2 * n + 2, GSL_SPMATRIX_COO) : NULL;
  gsl_spmatrix *csc = NULL;
  if (!coo)
    goto done;
  int rc = 0;
  for (size_t j = 0; j < n; j++)
    for (int p = g->p[j]; p < g->p[j + 1]; p++)
      rc |= gsl_spmatrix_set(coo, (size_t)g->i[p], j,
                             -g->data[p] / sits_thermal_capacity_j_per_k(th, g->i[p]));
  for (size_t i = 0; i < n; i++)
    rc |= gsl_spmatrix_set(coo, n + 1, i, sits_thermal_ambient_conductance_w_per_k(th, (int)i));
  /* explicit zero diagonals keep I - gamma J inside the sparsity pattern */
  rc |= gsl_spmatrix_set(coo, n, n, 0.0);
  rc |= gsl_spmatrix_set(coo, n + 1, n + 1, 0.0);
  if (!rc)
    csc = gsl_spmatrix_compress(coo, GSL_SPMATRIX_CSC);
done:
  gsl_spmatrix_free(g);
  gsl_spmatrix_free(coo);
  return csc;
}

static void set_inputs(run *rn, size_t seg) {
  rn->seg = seg;
  memcpy(rn->node_power_w, sits_scenario_static_power_w(rn->sc), rn->n * sizeof(double));
  sits_schedule_add_node_power(rn->sched, seg, rn->node_power_w);
  rn->ambient_c = sits_schedule_ambient_c(rn->sched, seg);
  rn->total_power_w = 0;
  for (size_t i = 0; i < rn->n; i++)
    rn->total_power_w += rn->node_power_w[i];
}

static int reserve_samples(sits_result *r) {
  if (r->n_samples < r->cap_samples)
    return 0;
  size_t cap = r->cap_samples ? 2 * r->cap_samples : 1024, n = r->n_nodes;
  double *t = realloc(r->time_s, cap * sizeof *t);
  if (t)
    r->time_s = t;
  double *tc = realloc(r->temp_c, cap * n * sizeof *tc);
  if (tc)
    r->temp_c = tc;
  double *np = realloc(r->node_power_w, cap * n * sizeof *np);
  if (np)
    r->node_power_w = np;
  double *tp = realloc(r->total_power_w, cap * sizeof *tp);
  if (tp)
    r->total_power_w = tp;
  if (!t || !tc || !np || !tp)
    return -1;
  r->cap_samples = cap;
  return 0;
}

static void track_peaks(run *rn, const double *y) {
  for (size_t i = 0; i < rn->n; i++)
    if (y[i] > rn->res->peak_temp_c[i])
      rn->res->peak_temp_c[i] = y[i];
}

static int record(run *rn, double t, const double *y, sits_err *err) {
  sits_result *r = rn->res;
  if (reserve_samples(r))
    return sits__fail(err, SITS_ENOMEM, "out of memory for %zu samples", r->n_samples);
  size_t k = r->n_samples++, n = rn->n;
  r->time_s[k] = t;
  memcpy(r->temp_c + k * n, y, n * sizeof(double));
  memcpy(r->node_power_w + k * n, rn->node_power_w, n * sizeof(double));
  r->total_power_w[k] = rn->total_power_w;
  track_peaks(rn, y);
  return SITS_OK;
}

static double sample_time(const run *rn, size_t k) {
  return (double)k * sits_scenario_sample_period_s(rn->sc);
}

/* Records the samples due up to @p t_upto (interpolated within the last step). */
static int record_due(run *rn, double t_upto, double t_state, sits_err *err) {
  int rc = SITS_OK;
  size_t k;
  while (rc == SITS_OK && (k = rn->res->n_samples, sample_time(rn, k) <= t_upto)) {
    double ts = sample_time(rn, k);
    if (fabs(ts - t_state) <= rn->eps_s)
      rc = record(rn, ts, sits_ode_state(rn->ode), err);
    else if ((rc = sits_ode_interpolate(rn->ode, ts, rn->y_buf, err)) == SITS_OK)
      rc = record(rn, ts, rn->y_buf, err);
  }
  return rc;
}

/* Integrates one input segment up to t_stop. *root is set when a critical trip fired. */
static int integrate_segment(run *rn, double t_stop, double *t, bool *root,
                             const sits_run_opts *opts, sits_err *err) {
  double end_s = sits_scenario_duration_s(rn->sc);
  bool final = t_stop >= end_s - rn->eps_s;
  for (;;) {
    sits_ode_event ev;
    int rc = sits_ode_step(rn->ode, t_stop, t, &ev, err);
    if (rc)
      return rc;
    track_peaks(rn, sits_ode_state(rn->ode));
    /* samples at a breakpoint belong to the next segment; at the end, to this one */
    double upto = ev == SITS_ODE_STEPPED || ev == SITS_ODE_ROOT || final ? *t : *t - rn->eps_s;
    if ((rc = record_due(rn, fmin(upto, end_s - rn->eps_s), *t, err)))
      return rc;
    if (opts && opts->progress && *t - rn->last_report_s >= 1e-3 * end_s) {
      opts->progress(*t, end_s, opts->progress_user);
      rn->last_report_s = *t;
    }
    if (ev != SITS_ODE_STEPPED) {
      *root = ev == SITS_ODE_ROOT;
      return SITS_OK;
    }
  }
}

static int critical_event(run *rn, double t, const double *y, sits_err *err) {
  for (int k = 0; k < rn->n_crit; k++) {
    int i = rn->crit_node[k];
    if (y[i] >= sits_thermal_critical_c(rn->th, i) - 1e-6) {
      char detail[128];
      snprintf(detail, sizeof detail, "node '%s' reached %.3f C (critical_c %.3f C)",
               sits_thermal_name(rn->th, i), y[i], sits_thermal_critical_c(rn->th, i));
      if (sits__result_add_event(rn->res, t, "critical_temp", detail))
        return sits__fail(err, SITS_ENOMEM, "out of memory");
      return 1;
    }
  }
  return 0;
}

static int loop(run *rn, const sits_run_opts *opts, sits_end_reason *why, double *t_end,
                sits_err *err) {
  double end_s = sits_scenario_duration_s(rn->sc), t = 0;
  size_t nseg = sits_schedule_segment_count(rn->sched);
  int rc = record(rn, 0.0, rn->y_start, err);
  *why = SITS_END_DURATION;
  if (rc == SITS_OK && (rc = critical_event(rn, 0.0, rn->y_start, err)) != 0) {
    *why = SITS_END_CRITICAL_TEMP;
    *t_end = 0;
    return rc < 0 ? rc : SITS_OK;
  }
  while (rc == SITS_OK && t < end_s - rn->eps_s) {
    double t_bp = rn->seg + 1 < nseg ? sits_schedule_start_s(rn->sched, rn->seg + 1) : INFINITY;
    bool root = false;
    if ((rc = integrate_segment(rn, fmin(t_bp, end_s), &t, &root, opts, err)))
      break;
    if (root) {
      if ((rc = critical_event(rn, t, sits_ode_state(rn->ode), err)) < 0)
        return rc;
      rc = SITS_OK;
      *why = SITS_END_CRITICAL_TEMP;
      break;
    }
    if (t < end_s - rn->eps_s) { /* a breakpoint: new inputs, restart the integrator */
      set_inputs(rn, rn->seg + 1);
      if ((rc = sits_ode_reinit(rn->ode, t, sits_ode_state(rn->ode), err)) == SITS_OK)
        rc = record_due(rn, t + rn->eps_s, t, err);
    }
  }
  *t_end = t;
  if (rc == SITS_OK &&
      (rn->res->n_samples == 0 || rn->res->time_s[rn->res->n_samples - 1] < t - rn->eps_s))
    rc = record(rn, t, sits_ode_state(rn->ode), err);
  return rc;
}

static int init_run(run *rn, const sits_scenario *sc, sits_err *err) {
  rn->sc = sc;
  rn->th = sits_scenario_thermal(sc);
  rn->sched = sits_scenario_schedule(sc);
  rn->n = sits_thermal_node_count(rn->th);
  rn->ny = rn->n + 2;
  rn->eps_s = 1e-9 * fmax(1.0, sits_scenario_duration_s(sc));
  rn->node_power_w = calloc(rn->n, sizeof(double));
  rn->y_start = calloc(rn->ny, sizeof(double));
  rn->y_buf = calloc(rn->ny, sizeof(double));
  rn->crit_node = calloc(rn->n, sizeof(int));
  rn->res = calloc(1, sizeof *rn->res);
  rn->jac = build_jacobian(rn->th, rn->n);
  if (!rn->node_power_w || !rn->y_start || !rn->y_buf || !rn->crit_node || !rn->res || !rn->jac ||
      !(rn->res->peak_temp_c = malloc(rn->n * sizeof(double))))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  rn->res->n_nodes = rn->n;
  set_inputs(rn, 0);
  for (size_t i = 0; i < rn->n; i++) {
    double init = sits_thermal_initial_c(rn->th, (int)i);
    rn->y_start[i] = isnan(init) ? rn->ambient_c : init;
    rn->res->peak_temp_c[i] = -INFINITY;
    if (!isnan(sits_thermal_critical_c(rn->th, (int)i)))
      rn->crit_node[rn->n_crit++] = (int)i;
  }
  return SITS_OK;
}

static int make_ode(run *rn, sits_err *err) {
  const sits_solver_settings *s = sits_scenario_solver(rn->sc);
  double *atol = malloc(rn->ny * sizeof *atol);
  if (!atol)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t i = 0; i < rn->n; i++)
    atol[i] = s->atol_k;
  atol[rn->n] = atol[rn->n + 1] = 1e-6; /* J: the relative tolerance dominates */
  sits_ode_opts o = {.n = rn->ny,
                     .pattern = rn->jac,
                     .rhs = rhs,
                     .jac = jac,
                     .user = rn,
                     .rtol = s->rtol,
                     .atol = atol,
                     .linsol = s->linsol,
                     .klu_threshold = s->klu_threshold,
                     .n_roots = rn->n_crit,
                     .roots = rn->n_crit ? roots : NULL};
  rn->ode = sits_ode_new(&o, 0.0, rn->y_start, err);
  free(atol);
  return rn->ode ? SITS_OK : err->code;
}

static void release_run(run *rn) {
  sits_ode_free(rn->ode);
  gsl_spmatrix_free(rn->jac);
  free(rn->node_power_w);
  free(rn->y_start);
  free(rn->y_buf);
  free(rn->crit_node);
}

int sits_run(const sits_scenario *sc, const sits_run_opts *opts, sits_result **out, sits_err *err) {
  run rn = {0};
  sits_end_reason why = SITS_END_DURATION;
  double t_end = 0;
  *out = NULL;
  int rc = init_run(&rn, sc, err);
  if (rc == SITS_OK)
    rc = make_ode(&rn, err);
  if (rc == SITS_OK)
    rc = loop(&rn, opts, &why, &t_end, err);
  if (rc == SITS_OK) {
    sits_ode_get_stats(rn.ode, &rn.res->stats);
    const double *y_end =
        why == SITS_END_CRITICAL_TEMP && t_end == 0 ? rn.y_start : sits_ode_state(rn.ode);
    sits__summarise(sc, rn.res, why, t_end, y_end, rn.y_start);
    *out = rn.res;
    rn.res = NULL;
  }
  sits_result_free(rn.res);
  release_run(&rn);
  return rc;
}

int sits__result_add_event(sits_result *r, double t_s, const char *kind, const char *detail) {
  if (r->n_events == r->cap_events) {
    size_t cap = r->cap_events ? 2 * r->cap_events : 16;
    sits_event *e = realloc(r->events, cap * sizeof *e);
    if (!e)
      return -1;
    r->events = e;
    r->cap_events = cap;
  }
  sits_event *e = &r->events[r->n_events++];
  e->time_s = t_s;
  snprintf(e->kind, sizeof e->kind, "%s", kind);
  snprintf(e->detail, sizeof e->detail, "%s", detail);
  return 0;
}

void sits_result_free(sits_result *r) {
  if (!r)
    return;
  free(r->time_s);
  free(r->temp_c);
  free(r->node_power_w);
  free(r->total_power_w);
  free(r->peak_temp_c);
  free(r->events);
  free(r);
}

size_t sits_result_sample_count(const sits_result *r) {
  return r->n_samples;
}
const double *sits_result_time_s(const sits_result *r) {
  return r->time_s;
}
double sits_result_temp_c(const sits_result *r, size_t k, size_t node) {
  return r->temp_c[k * r->n_nodes + node];
}
double sits_result_total_power_w(const sits_result *r, size_t k) {
  return r->total_power_w[k];
}
double sits_result_node_power_w(const sits_result *r, size_t k, size_t node) {
  return r->node_power_w[k * r->n_nodes + node];
}
const double *sits_result_peak_temp_c(const sits_result *r) {
  return r->peak_temp_c;
}
const sits_summary *sits_result_summary(const sits_result *r) {
  return &r->summary;
}
void sits_result_solver_stats(const sits_result *r, sits_ode_stats *stats) {
  *stats = r->stats;
}
size_t sits_result_event_count(const sits_result *r) {
  return r->n_events;
}
const sits_event *sits_result_event(const sits_result *r, size_t k) {
  return &r->events[k];
}

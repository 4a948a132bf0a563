/*
 * sim.c - the event loop of a run (the model itself is in sim_model.c).
 *
 * Breakpoints are the schedule's segment starts and the governor's ticks. Between two
 * breakpoints the inputs are constant and CVODE integrates one internal step at a time
 * up to the next one (tstop), so output samples are interpolated inside steps and peaks
 * are taken at every step; at a breakpoint the inputs change and CVODE restarts.
 * Critical temperatures are roots found at their exact crossing time. The exponential path
 * under a governor steps past the ticks that change nothing (step_ahead below).
 */
#include "run_impl.h"
#include "status_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Roots: critical temperatures, then (with a battery) the cell cutoff, the brown-out and an
 * empty pack (SOC 0: an OCV table may stay above the cutoff down to SOC 0). */
static int roots(double t, const double *y, double *g, void *user) {
  (void)t;
  run *rn = user;
  for (int k = 0; k < rn->n_crit; k++)
    g[k] = y[rn->crit_node[k]] - sits_thermal_critical_c(rn->th, rn->crit_node[k]);
  if (rn->batt) {
    sits__batt_eval b;
    sits__run_at_state(rn, y, NULL, &b);
    g[rn->n_crit] = b.v_cell_v - rn->cutoff_v;
    g[rn->n_crit + 1] = b.disc;
    g[rn->n_crit + 2] = y[rn->lay.i_soc];
  }
  return 0;
}

static int grow(double **a, size_t cap, size_t per) {
  double *p = realloc(*a, cap * (per ? per : 1) * sizeof(double));
  if (!p)
    return -1;
  *a = p;
  return 0;
}

static int reserve_samples(sits_result *r) {
  if (r->n_samples < r->cap_samples)
    return 0;
  size_t cap = r->cap_samples ? 2 * r->cap_samples : 1024;
  if (grow(&r->time_s, cap, 1) || grow(&r->temp_c, cap, r->n_nodes) ||
      grow(&r->node_power_w, cap, r->n_nodes) || grow(&r->total_power_w, cap, 1) ||
      grow(&r->domain_power_w, cap, r->n_domains) || grow(&r->freq_mhz, cap, r->n_domains) ||
      grow(&r->batt_soc, cap, 1) || grow(&r->batt_voltage_v, cap, 1) ||
      grow(&r->batt_current_a, cap, 1) || grow(&r->fan_duty, cap, r->n_fans))
    return -1;
  r->cap_samples = cap;
  return 0;
}

static const double *state(const run *rn);
static int push_history(run *rn, double t, double e);

static void track_peaks(run *rn, const double *y) {
  /* the exponential path's steps are long: a node may peak inside one */
  const double *top = rn->ex && y == state(rn) ? rn->top : y;
  for (size_t i = 0; i < rn->n; i++)
    if (top[i] > rn->res->peak_temp_c[i])
      rn->res->peak_temp_c[i] = top[i];
  sits__batt_eval b = {0};
  double p = sits__run_at_state(rn, y, NULL, &b);
  if (rn->batt) {
    double v = (double)sits_battery_config(rn->batt)->series * b.v_cell_v;
    if (v < rn->min_pack_v)
      rn->min_pack_v = v;
  } /* the board's power: the pack's heat is not part of it */
  if (p > rn->peak_power_w)
    rn->peak_power_w = p;
}

/* The sample block held so far to the sink (streaming: and the buffer emptied). */
#define SINK_BLOCK 4096

static int flush_samples(run *rn, sits_err *err) {
  sits_result *r = rn->res;
  const sits_run_opts *o = rn->opts;
  if (!o || !o->sink || r->n_samples == r->n_flushed)
    return SITS_OK;
  int rc = o->sink(r, r->n_flushed, r->n_samples - r->n_flushed, o->sink_user, err);
  if (rc)
    return err->code ? rc : sits__fail(err, rc, "writing the samples failed");
  r->n_flushed = r->n_samples;
  if (!o->keep_samples)
    r->n_samples = r->n_flushed = 0;
  return SITS_OK;
}

static int record(run *rn, double t, const double *y, sits_err *err) {
  sits_result *r = rn->res;
  if (reserve_samples(r))
    return sits__fail(err, SITS_ENOMEM, "out of memory for %zu samples", r->n_samples);
  size_t k = r->n_samples++, n = rn->n, nd = rn->nd;
  r->time_s[k] = t;
  memcpy(r->temp_c + k * n, y, n * sizeof(double));
  double *node_w = r->node_power_w + k * n, *dom_w = r->domain_power_w + k * nd;
  memcpy(node_w, rn->base_power_w, n * sizeof(double));
  sits__batt_eval b = {0};
  r->total_power_w[k] = sits__run_at_state(rn, y, dom_w, &b);
  for (size_t f = 0; f < r->n_fans; f++)
    r->fan_duty[k * r->n_fans + f] = rn->fan_duty[f];
  for (size_t d = 0; d < nd; d++) {
    r->freq_mhz[k * nd + d] = rn->dom[d].opp[rn->opp[d]].freq_mhz;
    for (size_t j = 0; j < rn->dom[d].n_nodes; j++)
      node_w[rn->dom[d].nodes[j]] += rn->dom[d].fractions[j] * dom_w[d];
  }
  if (rn->batt) {
    const sits_battery_cfg *c = sits_battery_config(rn->batt);
    r->batt_soc[k] = y[rn->lay.i_soc];
    r->batt_voltage_v[k] = (double)c->series * b.v_cell_v;
    r->batt_current_a[k] = (double)c->parallel * b.i_cell_a;
    if (rn->batt_node >= 0) /* its Joule heat is power into its node (not the board's) */
      node_w[rn->batt_node] += b.heat_w;
  }
  track_peaks(rn, y);
  /* a quiet span has no breakpoints: its samples keep the energy history as fine as the ticks'
   * windows need it */
  if (rn->quiet && rn->elog.n && t > rn->elog.t[rn->elog.n - 1] &&
      push_history(rn, t, y[rn->lay.i_e_in]))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  r->n_recorded++;
  r->last_time_s = t;
  return r->n_samples - r->n_flushed >= SINK_BLOCK ? flush_samples(rn, err) : SITS_OK;
}

/* The integrator of the run: CVODE or the exponential path. */
static const double *state(const run *rn) {
  return rn->behind ? rn->y_behind : rn->ex ? sits_expint_state(rn->ex) : sits_ode_state(rn->ode);
}

static double sample_time(const run *rn, size_t k) {
  return (double)k * sits_scenario_sample_period_s(rn->sc);
}

/* The next schedule segment's start (INFINITY after the last). */
static double next_segment_s(const run *rn) {
  return rn->seg + 1 < sits_schedule_segment_count(rn->sched)
             ? sits_schedule_start_s(rn->sched, rn->seg + 1)
             : INFINITY;
}

/*
 * The exponential path under a governor: most ticks change nothing (the same OPPs), and a
 * tick that changes nothing is no breakpoint for the equations. So the integrator steps past
 * the ticks, as far as its error control lets it (a power of two of tick periods, up to the
 * next segment, sample or the end), and the run follows behind it tick by tick on the step's
 * dense output (sits_expint_dense: exact for the step's linear system, two n x n products a
 * tick). A tick that changes the OPPs restarts the integrator there (reinit()): what it
 * computed past that tick is dropped. Results are those of the same ETD2RK steps with the
 * same error control; ticks cost the governor and the dense output instead of a step each.
 */
static double ahead_target(const run *rn, double now, double tstop) {
  double p = sits_scenario_governor(rn->sc)->period_s;
  double hint = sits_expint_step_hint(rn->ex), ticks = 1;
  if (rn->quiet) { /* no ticks to read: whole sample periods on the samples' grid */
    double sp = sits_scenario_sample_period_s(rn->sc);
    double hard = fmin(sits_scenario_duration_s(rn->sc), next_segment_s(rn));
    size_t k = rn->res->n_recorded;
    if (sp > 0 && k > 0 && fabs(now - sample_time(rn, k - 1)) <= rn->eps_s) {
      double m = 1;
      while (m < 1024 && 2 * m * sp <= hint * (1 + 1e-9))
        m *= 2;
      double target;
      while ((target = sample_time(rn, k - 1 + (size_t)m)) > hard + rn->eps_s && m > 1)
        m /= 2;
      if (target > tstop && target <= hard + rn->eps_s)
        return target;
    }
  }
  while (ticks < 1024 && 2 * ticks * p <= hint * (1 + 1e-9))
    ticks *= 2;
  /* the hard stops: the next segment, sample and the end */
  double hard = fmin(sits_scenario_duration_s(rn->sc), next_segment_s(rn));
  double ts = sample_time(rn, rn->res->n_recorded);
  if (ts > now + rn->eps_s)
    hard = fmin(hard, ts);
  /* from one sample to the next in one step when the error control allows it; otherwise a
   * power of two of periods that does not pass the hard stops: step lengths repeat, so their
   * phi matrices stay cached */
  size_t k = rn->res->n_recorded;
  if (hard == ts && k > 0 && fabs(now - sample_time(rn, k - 1)) <= rn->eps_s &&
      hard - now <= ticks * p * (1 + 1e-9))
    return hard;
  double target;
  while ((target = ((double)rn->tick - 1 + ticks) * p) > hard + rn->eps_s && ticks > 1)
    ticks /= 2;
  return target > tstop && target <= hard + rn->eps_s ? target : tstop;
}

/* The run's state at t inside the integrator's last step (and, on the exponential path, the
 * maxima since the last such point, rn->top). */
static int dense_behind(run *rn, double t, sits_err *err) {
  if (!rn->ex)
    return sits_ode_interpolate(rn->ode, t, rn->y_behind, err);
  int rc = sits_expint_dense(rn->ex, t, rn->y_behind, rn->max_behind, err);
  rn->top = rn->max_behind;
  return rc;
}

/* CVODE on a layered grid (grid_path.c) steps the same way, as far as it chooses up to the
 * next segment or the end, the ticks and samples read on its dense output. */
static int step_ahead(run *rn, double tstop, double *t, sits_ode_event *ev, sits_err *err) {
  double t_ex = rn->ex ? sits_expint_time(rn->ex) : sits_ode_time(rn->ode);
  double now = rn->behind ? rn->t_behind : t_ex;
  *t = now;
  *ev = SITS_ODE_STOP;
  if (!(tstop > now))
    return SITS_OK;
  if (!rn->behind) {
    int rc =
        rn->ex ? sits_expint_step(rn->ex, ahead_target(rn, now, tstop), &t_ex, &rn->ex_event, err)
               : sits_ode_step(rn->ode, fmin(sits_scenario_duration_s(rn->sc), next_segment_s(rn)),
                               &t_ex, &rn->ex_event, err);
    if (rc)
      return rc;
    if (rn->ex)
      rn->top = sits_expint_step_max(rn->ex);
  }
  if (t_ex > tstop + rn->eps_s) { /* stop behind the integrator */
    int rc = dense_behind(rn, tstop, err);
    if (rc)
      return rc;
    rn->behind = true;
    *t = rn->t_behind = tstop;
    return SITS_OK;
  }
  if (rn->behind && rn->ex) { /* catch up with the integrator: the maxima since the last stop */
    int rc = dense_behind(rn, t_ex, err);
    if (rc)
      return rc;
  }
  rn->behind = false;
  *t = t_ex;
  *ev = rn->ex_event == SITS_ODE_STOP && t_ex < tstop - rn->eps_s ? SITS_ODE_STEPPED : rn->ex_event;
  return SITS_OK;
}

static int step(run *rn, double tstop, double *t, sits_ode_event *ev, sits_err *err) {
  if (rn->ahead)
    return step_ahead(rn, tstop, t, ev, err);
  if (rn->ex)
    rn->top = sits_expint_step_max(rn->ex);
  return rn->ex ? sits_expint_step(rn->ex, tstop, t, ev, err)
                : sits_ode_step(rn->ode, tstop, t, ev, err);
}

static int interpolate(run *rn, double t, double *y, sits_err *err) {
  return rn->ex ? sits_expint_interpolate(rn->ex, t, y, err)
                : sits_ode_interpolate(rn->ode, t, y, err);
}

/* "auto" above the exponential path's size bound starts on CVODE stepping past ticks, which
 * wins while the OPPs hold (the ev6 block network warming, 60 s: 0.03 s against 0.14 s); every
 * OPP change restarts CVODE at order 1 (~85 steps a change on the ev6 block), so once the
 * inputs change SWITCH_AFTER times in a row each within SWITCH_GAP_TICKS ticks of the last,
 * the run goes on on the exponential path from that change (ev6 throttling, 20 s: 0.32 s
 * against CVODE's 1.72 s; bench/run.sh ev6). A run has switched when it may switch and is on
 * the exponential path. */
#define SWITCH_AFTER 8
#define SWITCH_GAP_TICKS 10
static int switch_path(run *rn, double t, sits_err *err) {
  sits_ode_get_stats(rn->ode, &rn->before_switch);
  sits_expint *ex = sits_expint_new(&rn->switch_to, t, state(rn), err);
  if (!ex)
    return err->code;
  sits_ode_free(rn->ode);
  rn->ode = NULL;
  rn->ex = ex;
  rn->jac_changed = false; /* A is taken at the switch */
  rn->behind = false;
  rn->top = sits_expint_step_max(ex);
  return SITS_OK;
}

/*
 * A layered grid under "auto" (rn->hybrid): CVODE on the grid solver steps past the ticks
 * while the OPPs hold, but every OPP change restarts it at order 1 from a ~1e-6-s step (~65
 * steps to the next tick on the 12 x 12 ev6 grid). Once the inputs change GRID_SWITCH_AFTER
 * times in a row, each within SWITCH_GAP_TICKS ticks of the last, and those restarts have
 * taken the steps the modes' set-up is worth (GRID_EIGEN_STEPS), the run goes on on the
 * exponential path in the network's modes (exact zero-order-hold steps across a change: one
 * or two a tick), and back on CVODE once GRID_BACK_TICKS ticks pass without a change (a
 * modal tick costs two transforms of the state, O(n^2 / 4), where CVODE's dense output is
 * O(n)). The one not running is kept: the modes are computed once (~10 ms at 588 states),
 * CVODE's grid solvers stay factorised. Up to GRID_MODAL_MAX_STATES (a 17 x 17 grid; also
 * the bound of solver.method = "exponential" on a grid, larger ones taking the grid solver
 * path as before): the modes' O(n^3) set-up and O(n^2) transforms lose to the grid solver's
 * O(n log n) above.
 */
#define GRID_SWITCH_AFTER 3
/* The modes' set-up in CVODE steps on the grid solver, at 588 states: ~10 ms of dsyevd and
 * OpenBLAS's loading against ~42 us a step (2.7 ms for the ~65 steps of a restart), measured
 * on the 12 x 12 ev6 grid. The set-up grows as n^3 and a step as ~n, so the steps it is worth
 * as n^2: on a 17 x 17 grid (1,168 states) that throttled for a few ticks, handing over at
 * the 3rd change took 0.190 s against 0.118 s staying on CVODE. */
#define GRID_EIGEN_STEPS 240
#define GRID_BACK_TICKS 32
#define GRID_MODAL_MAX_STATES 1200

static int to_modal(run *rn, double t, sits_err *err) {
  const double *y = state(rn);
  sits_err quiet = {0};
  sits_expint *ex = rn->ex_idle;
  if (ex ? sits_expint_reinit(ex, t, y, &quiet) != SITS_OK
         : !(ex = sits_expint_new(&rn->switch_to, t, y, &quiet))) {
    if (quiet.code == SITS_ENOMEM || quiet.code == SITS_EINTERNAL) {
      *err = quiet;
      return err->code;
    }
    rn->hybrid = false; /* no modes (an eigen-decomposition that failed): CVODE on */
    int rc = sits_ode_reinit(rn->ode, t, y, err);
    rn->behind = false;
    return rc;
  }
  rn->ode_idle = rn->ode, rn->ode = NULL;
  rn->ex = ex, rn->ex_idle = NULL;
  rn->behind = false;
  rn->top = sits_expint_step_max(ex);
  rn->handovers++;
  return SITS_OK;
}

static int to_cvode(run *rn, double t, sits_err *err) {
  int rc = sits_ode_reinit(rn->ode_idle, t, state(rn), err);
  if (rc)
    return rc;
  rn->ex_idle = rn->ex, rn->ex = NULL;
  rn->ode = rn->ode_idle, rn->ode_idle = NULL;
  rn->behind = false;
  rn->close_changes = 0;
  rn->handovers++;
  return SITS_OK;
}

/* Counts an input change at the current tick for the hand-overs between paths: whether it
 * came within SWITCH_GAP_TICKS of the last (rn->close_changes counts such changes in a row). */
static bool count_change(run *rn) {
  bool close = rn->tick - rn->last_change_tick <= SWITCH_GAP_TICKS;
  rn->close_changes = close ? rn->close_changes + 1 : 0;
  rn->last_change_tick = rn->tick;
  return close;
}

/* The inputs changed at t (the exponential path and CVODE on a grid drop what they computed
 * past t). */
static int reinit(run *rn, double t, sits_err *err) {
  if (rn->hybrid) {
    bool close = count_change(rn);
    if (!rn->ex) {
      sits_ode_stats st;
      sits_ode_get_stats(rn->ode, &st);
      if (!close)
        rn->streak_steps0 = st.steps;
      /* the first hand-over once the restarts of this run of changes have cost about what
       * the modes will (GRID_EIGEN_STEPS at 588 states, growing as n^2); later ones at once */
      double k = (double)rn->lay.ny / 588.0, need = rn->ex_idle ? 0 : GRID_EIGEN_STEPS * k * k;
      if (rn->close_changes >= GRID_SWITCH_AFTER && (double)(st.steps - rn->streak_steps0) >= need)
        return to_modal(rn, t, err);
    }
  }
  if (rn->may_switch && !rn->ex) {
    count_change(rn);
    if (rn->close_changes >= SWITCH_AFTER)
      return switch_path(rn, t, err);
  }
  if (rn->ex) {
    int rc = sits_expint_reinit(rn->ex, t, state(rn), err);
    if (rc == SITS_OK && rn->jac_changed) /* a fan changed the linear part */
      rc = sits_expint_refresh(rn->ex, err);
    rn->jac_changed = false;
    rn->behind = false;
    rn->top = sits_expint_step_max(rn->ex);
    return rc;
  }
  int rc = sits_ode_reinit(rn->ode, t, state(rn), err);
  rn->behind = false;
  return rc;
}

/* Records the samples due up to @p t_upto (interpolated within the last step). */
static int record_due(run *rn, double t_upto, double t_state, sits_err *err) {
  int rc = SITS_OK;
  size_t k;
  while (rc == SITS_OK && (k = rn->res->n_recorded, sample_time(rn, k) <= t_upto)) {
    double ts = sample_time(rn, k);
    if (fabs(ts - t_state) <= rn->eps_s)
      rc = record(rn, ts, state(rn), err);
    else if ((rc = interpolate(rn, ts, rn->y_buf, err)) == SITS_OK)
      rc = record(rn, ts, rn->y_buf, err);
  }
  return rc;
}

/* A solver failure with a node far above anything a board reaches is thermal runaway (leakage
 * growing faster than the package sheds heat): said as such, with where and when; other
 * failures keep the solver's message. */
static int runaway_or(run *rn, int rc, double t, sits_err *err) {
  const double *y = state(rn);
  size_t hot = 0;
  for (size_t i = 1; i < rn->n; i++)
    if (!(y[i] <= y[hot]))
      hot = i;
  bool runaway = !isfinite(y[hot]) || y[hot] >= 500.0;
  if (!runaway && rn->jac) { /* or the hottest node heats itself: d(P - G T)/dT > 0 there */
    double *values = malloc(rn->jac->nz * sizeof(double));
    const double *diag = gsl_spmatrix_ptr(rn->jac, hot, hot);
    if (values && diag && sits__run_jac(t, y, values, rn) == 0)
      runaway = values[diag - rn->jac->data] > 0;
    free(values);
  }
  if (!runaway)
    return rc;
  char why[SITS_ERRMSG_MAX];
  snprintf(why, sizeof why, "%s", err->msg);
  return sits__fail(err, SITS_ESOLVER,
                    "thermal runaway at t = %.3f s: node '%s' at %.4g C and rising (leakage "
                    "grows faster than the package sheds heat; the solver stopped: %s)",
                    t, sits_thermal_name(rn->th, (int)hot), y[hot], why);
}

/* A quiet span has no ticks, and the energy history takes points where the run stops (its
 * samples, the span's end): the windows read on it (the TDP's moving average, the power cap's
 * look-back) interpolate between them, so the span also stops at least every eighth of the TDP
 * window and, over the last cap window before its end, every eighth of that (where the first
 * tick after the span looks back). The next such stop after t. */
static double quiet_history_stop(const run *rn, double t) {
  const sits_governor_cfg *cfg = sits_scenario_governor(rn->sc);
  double last = rn->elog.n ? rn->elog.t[rn->elog.n - 1] : 0;
  double next = last + sits_scenario_limits(rn->sc)->tdp_window_s / 8;
  if (rn->gov && cfg->power_cap && cfg->cap_window_s > 0) {
    double zone = rn->quiet_until_s - cfg->cap_window_s;
    next = fmin(next, t < zone - rn->eps_s ? zone : last + cfg->cap_window_s / 8);
  }
  return next;
}

/* The most steps CVODE takes after a fall-back: a blow-up that reaches no trip is runaway. */
#define FALLBACK_STEPS 100000

/* The exponential path failed: its steps fell under its floor (1e-12 of t), as a leakage
 * blow-up makes them before a critical trip ends the run (CVODE, which has none, reaches the
 * trip). With a critical trip to end the run, CVODE goes on from where the run is (the path's
 * last state, or the dense output's behind it on a run that reads a governor's ticks behind
 * its integrator), once, for at most FALLBACK_STEPS steps. */
static int fall_back(run *rn, double t_run, double *t) {
  sits_err quiet = {0};
  /* from where the run is: the integrator's state, or the dense output's behind it (a grid's
   * CVODE, kept while the modes ran, goes on from there) */
  sits_ode *ode = rn->ode_idle;
  if (ode ? sits_ode_reinit(ode, t_run, state(rn), &quiet) != SITS_OK
          : !(ode = sits_ode_new(&rn->ode_opts, t_run, state(rn), &quiet)))
    return quiet.code;
  rn->ode_idle = NULL;
  rn->hybrid = false;
  sits_expint_get_stats(rn->ex, &rn->before_fallback);
  sits_expint_free(rn->ex);
  rn->ex = NULL;
  rn->ode = ode;
  rn->behind = false;
  rn->fell_back = true;
  *t = t_run;
  return SITS_OK;
}

/* Integrates up to t_stop with constant inputs. *root is set when a critical trip fired. */
static int integrate_interval(run *rn, double t_stop, double *t, bool *root,
                              const sits_run_opts *opts, sits_err *err) {
  double end_s = sits_scenario_duration_s(rn->sc);
  bool final = t_stop >= end_s - rn->eps_s;
  /* per-domain energy: the trapezoid rule over the steps, from the interval's own start (its
   * inputs: a breakpoint is a jump) */
  double right[SITS_MAX_DOMAINS];
  sits__run_at_state(rn, state(rn), rn->dom_w_left, NULL);
  for (;;) {
    double t_before = *t;
    sits_ode_event ev;
    /* the exponential path stops at every sample time: samples are then exact states, and
     * the step lengths (tick period, sample period) repeat, so their phi matrices are cached;
     * a run ahead of its integrator reads them on the dense output */
    double target = t_stop;
    if (rn->ex || rn->ahead) {
      double ts = sample_time(rn, rn->res->n_recorded);
      if (ts > *t + rn->eps_s && ts < t_stop - rn->eps_s)
        target = ts;
    }
    if (rn->quiet) {
      double th = quiet_history_stop(rn, *t);
      if (th > *t + rn->eps_s && th < target - rn->eps_s)
        target = th;
    }
    int rc = step(rn, target, t, &ev, err);
    if (rc && rn->ex && rn->n_crit && !rn->fell_back && fall_back(rn, t_before, t) == SITS_OK)
      continue; /* CVODE goes on from the exponential path's last state, to the trip */
    if (rc == SITS_OK && rn->fell_back && ++rn->fallback_steps > FALLBACK_STEPS)
      rc = sits__fail(err, SITS_ESOLVER,
                      "CVODE took %d steps after the exponential path "
                      "failed without reaching a critical trip",
                      FALLBACK_STEPS);
    if (rc)
      return runaway_or(rn, rc, *t, err);
    if (ev == SITS_ODE_STOP && target < t_stop)
      ev = SITS_ODE_STEPPED;
    track_peaks(rn, state(rn));
    if (rn->quiet && rn->elog.n && *t > rn->elog.t[rn->elog.n - 1] + rn->eps_s &&
        *t < t_stop - rn->eps_s && push_history(rn, *t, state(rn)[rn->lay.i_e_in]))
      return sits__fail(err, SITS_ENOMEM, "out of memory");
    sits__run_at_state(rn, state(rn), right, NULL);
    for (size_t d = 0; d < rn->nd; d++) {
      rn->dom_e_j[d] += 0.5 * (rn->dom_w_left[d] + right[d]) * (*t - t_before);
      rn->dom_w_left[d] = right[d];
    }
    /* samples at a breakpoint belong to the next interval; at the end, to this one */
    double upto = ev == SITS_ODE_STEPPED || ev == SITS_ODE_ROOT || final ? *t : *t - rn->eps_s;
    if ((rc = record_due(rn, fmin(upto, end_s - rn->eps_s), *t, err)))
      return rc;
    if (opts && (opts->progress || opts->stop) &&
        (*t - rn->last_report_s >= 1e-3 * end_s || ++rn->steps_unpolled >= 4096)) {
      if (opts->progress)
        opts->progress(*t, end_s, opts->progress_user);
      rn->last_report_s = *t, rn->steps_unpolled = 0;
      if (opts->stop && opts->stop(opts->stop_user))
        return sits__fail(err, SITS_ECANCELED, "the run was stopped at t = %.6g s", *t);
    }
    if (ev != SITS_ODE_STEPPED) {
      *root = ev == SITS_ODE_ROOT;
      return SITS_OK;
    }
  }
}

static int add_event(run *rn, double t, const char *kind, const char *detail, const char *subject,
                     const char *unit, double value, double from, double limit, double soc,
                     sits_err *err) {
  return sits__result_add_event_fields(rn->res, t, kind, detail, subject, unit, value, from, limit,
                                       soc)
             ? sits__fail(err, SITS_ENOMEM, "out of memory")
             : SITS_OK;
}

/* At a root or at the start: which end condition holds? Returns the end reason + 1, 0 for
 * none, or a negative status. */
static int battery_event(run *rn, double t, const double *y, sits_err *err) {
  if (!rn->batt)
    return 0;
  sits__batt_eval b = {0};
  sits__run_at_state(rn, y, NULL, &b);
  char detail[128];
  if (b.disc <= 1e-9 * b.v_cell_v * b.v_cell_v) {
    snprintf(detail, sizeof detail, "the pack cannot deliver %.3f W (SOC %.4f)", b.p_pack_w,
             y[rn->lay.i_soc]);
    int rc = add_event(rn, t, "brownout", detail, "pack", "W", b.p_pack_w, NAN, NAN,
                       y[rn->lay.i_soc], err);
    return rc ? rc : 1 + SITS_END_BROWNOUT;
  }
  if (b.v_cell_v <= rn->cutoff_v + 1e-6) {
    snprintf(detail, sizeof detail, "cell voltage %.4f V reached cutoff_v (SOC %.4f)", b.v_cell_v,
             y[rn->lay.i_soc]);
    int rc = add_event(rn, t, "battery_cutoff", detail, "pack", "V", b.v_cell_v, NAN, rn->cutoff_v,
                       y[rn->lay.i_soc], err);
    return rc ? rc : 1 + SITS_END_BATTERY_CUTOFF;
  }
  if (y[rn->lay.i_soc] <= 1e-9) {
    snprintf(detail, sizeof detail, "SOC reached 0 at cell voltage %.4f V (cutoff_v %.4f V)",
             b.v_cell_v, rn->cutoff_v);
    int rc = add_event(rn, t, "battery_empty", detail, "pack", "V", b.v_cell_v, NAN, rn->cutoff_v,
                       y[rn->lay.i_soc], err);
    return rc ? rc : 1 + SITS_END_BATTERY_EMPTY;
  }
  return 0;
}

static int critical_event(run *rn, double t, const double *y, sits_err *err) {
  for (int k = 0; k < rn->n_crit; k++) {
    int i = rn->crit_node[k];
    if (y[i] >= sits_thermal_critical_c(rn->th, i) - 1e-6) {
      char detail[128];
      snprintf(detail, sizeof detail, "node '%s' reached %.3f C (critical_c %.3f C)",
               sits_thermal_name(rn->th, i), y[i], sits_thermal_critical_c(rn->th, i));
      int rc = add_event(rn, t, "critical_temp", detail, sits_thermal_name(rn->th, i), "degC", y[i],
                         NAN, sits_thermal_critical_c(rn->th, i), NAN, err);
      return rc ? rc : 1 + SITS_END_CRITICAL_TEMP;
    }
  }
  return 0;
}

static int push_history(run *rn, double t, double e) {
  const sits__elog *l = &rn->elog;
  const sits_governor_cfg *cfg = sits_scenario_governor(rn->sc);
  if (l->n && rn->gov && cfg->power_cap && t > l->t[l->n - 1] &&
      (e - l->e[l->n - 1]) / (t - l->t[l->n - 1]) > cfg->tdp_budget_w)
    rn->cap_over_s = t;
  return sits__elog_push(&rn->elog, t, e);
}

/* Items, demand and service time of [t0, t1) at the current OPPs; throttled time. */
static void account(run *rn, double t0, double t1) {
  double dt = t1 - t0;
  for (size_t d = 0; d < rn->nd; d++) {
    const sits_domain *dom = &rn->dom[d];
    if (dom->max_rate <= 0)
      continue;
    double cap = sits_domain_capacity(dom, rn->opp[d]);
    double done = fmin(rn->demand[d], cap) * dom->max_rate * dt; /* sits_domain_rate() */
    rn->items[d] += done;
    rn->demanded[d] += rn->demand[d] * dom->max_rate * dt;
    rn->latency_ms_sum[d] += done * 1000.0 / (cap * dom->max_rate);
  }
  if (rn->throttled || rn->cap_active)
    rn->throttled_s += dt;
  for (size_t f = 0; f < rn->sc->n_fans; f++) {
    rn->fan_duty_s[f] += rn->fan_duty[f] * dt;
    rn->fan_max_duty[f] = fmax(rn->fan_max_duty[f], rn->fan_duty[f]);
  }
}

static int governor_events(run *rn, double t, const sits_governor_out *out, sits_err *err) {
  char detail[128];
  int rc = SITS_OK;
  for (size_t d = 0; d < rn->nd && rc == SITS_OK; d++)
    if (out->opp[d] != rn->opp[d]) {
      snprintf(detail, sizeof detail, "%s %.0f -> %.0f MHz", rn->dom[d].name,
               rn->dom[d].opp[rn->opp[d]].freq_mhz, rn->dom[d].opp[out->opp[d]].freq_mhz);
      rc = add_event(rn, t, "opp_change", detail, rn->dom[d].name, "MHz",
                     rn->dom[d].opp[out->opp[d]].freq_mhz, rn->dom[d].opp[rn->opp[d]].freq_mhz, NAN,
                     NAN, err);
    }
  if (rc == SITS_OK && out->thermal_limited != rn->throttled)
    rc = add_event(rn, t, out->thermal_limited ? "throttle_start" : "throttle_end", "thermal",
                   "thermal", "", NAN, NAN, NAN, NAN, err);
  if (rc == SITS_OK && out->cap_limited != rn->cap_active)
    rc = add_event(rn, t, out->cap_limited ? "cap_active" : "cap_released", "power cap",
                   "power_cap", "", NAN, NAN, NAN, NAN, err);
  return rc;
}

typedef struct since_ctx {
  const run *rn;
  double t_s, e_j; /* now, and the energy put in until now */
  size_t *hint;    /* the power cap reads the window's start times in order, tick after tick:
                    * where it found them last, counted from the run's first point */
} since_ctx;

static double energy_since(double t0_s, void *user) {
  since_ctx *c = user;
  const sits__elog *l = &c->rn->elog;
  size_t h = *c->hint >= l->dropped ? *c->hint - l->dropped : 0;
  double e = sits__elog_at(l, t0_s, &h);
  *c->hint = h + l->dropped;
  return c->e_j - e;
}

/* A governor tick at time t on state y. Returns 1 when an OPP changed. */
static int tick(run *rn, double t, const double *y, sits_err *err) {
  const sits_governor_cfg *cfg = sits_scenario_governor(rn->sc);
  double dom_temp[SITS_MAX_DOMAINS];
  for (size_t d = 0; d < rn->nd; d++)
    dom_temp[d] = y[rn->dom[d].nodes[0]];
  since_ctx since = {rn, t, y[rn->lay.i_e_in], &rn->cap_hint};
  sits_governor_obs obs = {.t_s = t,
                           .sensor_c =
                               cfg->thermal != SITS_THERMAL_NONE ? y[cfg->sensor_node] : NAN,
                           .demand = rn->demand,
                           .domain_temp_c = dom_temp,
                           .other_power_w = rn->base_total_w,
                           .energy_since = energy_since,
                           .energy_user = &since};
  sits_governor_out out;
  sits_governor_tick(rn->gov, &obs, &out);
  rn->res->ticks_evaluated++;
  int rc = governor_events(rn, t, &out, err);
  if (rc)
    return rc;
  if (out.thermal_limited && isnan(rn->time_to_throttle_s))
    rn->time_to_throttle_s = t;
  int changed = memcmp(rn->opp, out.opp, rn->nd * sizeof(size_t)) != 0;
  memcpy(rn->opp, out.opp, sizeof rn->opp);
  memcpy(rn->base_opp, out.base_opp, sizeof rn->base_opp);
  rn->throttled = out.thermal_limited;
  rn->cap_active = out.cap_limited;
  sits__run_update_util(rn);
  rn->tick++;
  rn->next_tick_s = (double)rn->tick * cfg->period_s;
  return changed;
}

/* The fans whose trips are due at t (not those a trace drives): their duties from the
 * sensors at state y. Returns 1 when a duty changed. */
static int fan_ticks(run *rn, double t, const double *y, sits_err *err) {
  int changed = 0;
  for (size_t f = 0; f < rn->sc->n_fans; f++) {
    const sits__fan *fan = &rn->sc->fans[f];
    if (rn->fan_traced[f] || !fan->n_trips ||
        (double)rn->fan_ticks[f] * fan->period_s > t + rn->eps_s)
      continue;
    double from = rn->fan_duty[f];
    double duty = sits__fan_trip_duty(fan, y[fan->sensor], &rn->fan_on[f]);
    rn->fan_ticks[f]++;
    if (duty == from)
      continue;
    sits__run_fan_set(rn, f, duty);
    changed = 1;
    char detail[128];
    snprintf(detail, sizeof detail, "%s duty %.3g -> %.3g (%s at %.2f C)", fan->name, from, duty,
             sits_thermal_name(rn->th, fan->sensor), y[fan->sensor]);
    int rc = add_event(rn, t, "fan_change", detail, fan->name, "duty", duty, from, NAN, NAN, err);
    if (rc)
      return rc;
  }
  return changed;
}

/* At breakpoint t: new segment and/or governor tick. Returns 1 when the inputs changed. */
static int advance_inputs(run *rn, double t, sits_err *err) {
  int changed = 0;
  if (rn->batt && sits_battery_config(rn->batt)->hyst_m0_v > 0) {
    /* the sign the pack rests at, should the new inputs draw nothing */
    sits__batt_eval b = {0};
    sits__run_at_state(rn, state(rn), NULL, &b);
    if (b.p_pack_w != 0)
      rn->batt_s = b.p_pack_w > 0 ? -1.0 : 1.0;
  }
  if (next_segment_s(rn) <= t + rn->eps_s) {
    sits__run_set_segment(rn, rn->seg + 1);
    changed = 1;
  }
  if (rn->gov && rn->next_tick_s <= t + rn->eps_s) {
    int rc = tick(rn, t, state(rn), err);
    if (rc < 0)
      return rc;
    changed |= rc;
  }
  int rc = fan_ticks(rn, t, state(rn), err);
  return rc < 0 ? rc : changed | rc;
}

static double next_breakpoint(const run *rn, double end_s) {
  double t_seg = next_segment_s(rn), t_tick = rn->gov ? rn->next_tick_s : INFINITY;
  for (size_t f = 0; f < rn->sc->n_fans; f++)
    if (!rn->fan_traced[f] && rn->sc->fans[f].n_trips)
      t_tick = fmin(t_tick, (double)rn->fan_ticks[f] * rn->sc->fans[f].period_s);
  return fmin(fmin(t_seg, t_tick), end_s);
}

#define QUIET_BACKOFF_MIN_S 0.5
#define QUIET_BACKOFF_MAX_S 64.0
#define QUIET_WORTH_TICKS 8

/* After ticks at t that changed nothing: where the ticks up to the next input change provably
 * change nothing either (quiet.c), they are skipped (the next tick is the first at or after
 * that change); else the next try waits, twice as long after each failure (an OPP or fan that
 * keeps changing, a limit cycle, would otherwise have the proof tried after each change). */
static void try_quiet(run *rn, double t, double end_s, int changed) {
  if (!rn->may_skip || changed)
    return;
  if (rn->seg != rn->quiet_seg) { /* a new segment: try soon, as at the start */
    rn->quiet_seg = rn->seg;
    rn->quiet_backoff_s = QUIET_BACKOFF_MIN_S, rn->quiet_retry_s = t;
  }
  if (rn->quiet || t < rn->quiet_retry_s)
    return;
  const sits_governor_cfg *cfg = sits_scenario_governor(rn->sc);
  double stop = fmin(next_segment_s(rn), end_s), first = next_breakpoint(rn, end_s);
  bool window = !rn->gov || !cfg->power_cap || t - rn->cap_over_s >= cfg->cap_window_s;
  double h = rn->gov ? cfg->period_s : INFINITY; /* the proof's grid: the shortest tick period */
  for (size_t f = 0; f < rn->sc->n_fans; f++)
    if (!rn->fan_traced[f] && rn->sc->fans[f].n_trips)
      h = fmin(h, rn->sc->fans[f].period_s);
  double until = first < stop - rn->eps_s && isfinite(h)
                     ? sits__run_quiet_until(rn, state(rn), t, stop, h, window)
                     : t;
  /* a proof that reaches past at most a few ticks is not worth its cost: wait longer */
  bool worth = until >= stop - rn->eps_s || until - t >= QUIET_WORTH_TICKS * h;
  if (!worth) {
    rn->quiet_retry_s = t + rn->quiet_backoff_s;
    rn->quiet_backoff_s = fmin(2 * rn->quiet_backoff_s, QUIET_BACKOFF_MAX_S);
  } else
    rn->quiet_backoff_s = QUIET_BACKOFF_MIN_S;
  if (!(until > first + rn->eps_s))
    return;
  if (rn->gov) { /* the first tick at or after the change */
    size_t k = (size_t)ceil((until - rn->eps_s) / cfg->period_s);
    if (k > rn->tick) {
      rn->ticks_skipped += k - rn->tick;
      rn->tick = k;
      rn->next_tick_s = (double)k * cfg->period_s;
    }
  }
  for (size_t f = 0; f < rn->sc->n_fans; f++) {
    const sits__fan *fan = &rn->sc->fans[f];
    size_t k = (size_t)ceil((until - rn->eps_s) / fan->period_s);
    if (!rn->fan_traced[f] && fan->n_trips && k > rn->fan_ticks[f])
      rn->fan_ticks[f] = k;
  }
  rn->quiet = true;
  rn->quiet_until_s = until;
}

static int loop(run *rn, const sits_run_opts *opts, sits_end_reason *why, double *t_end,
                sits_err *err) {
  double end_s = sits_scenario_duration_s(rn->sc), t = 0;
  *why = SITS_END_DURATION;
  int rc = push_history(rn, 0.0, 0.0) ? sits__fail(err, SITS_ENOMEM, "out of memory") : SITS_OK;
  if (rc == SITS_OK)
    rc = record(rn, 0.0, rn->y_start, err);
  if (rc == SITS_OK && ((rc = critical_event(rn, 0.0, rn->y_start, err)) != 0 ||
                        (rc = battery_event(rn, 0.0, rn->y_start, err)) != 0)) {
    *why = rc > 0 ? (sits_end_reason)(rc - 1) : SITS_END_DURATION;
    *t_end = 0;
    return rc < 0 ? rc : flush_samples(rn, err); /* the state it ended in, recorded */
  }
  while (rc == SITS_OK && t < end_s - rn->eps_s) {
    double t0 = t;
    bool root = false;
    if ((rc = integrate_interval(rn, next_breakpoint(rn, end_s), &t, &root, opts, err)))
      break;
    account(rn, t0, t);
    if ((!rn->elog.n || t > rn->elog.t[rn->elog.n - 1]) &&
        push_history(rn, t, state(rn)[rn->lay.i_e_in]))
      return sits__fail(err, SITS_ENOMEM, "out of memory");
    if (rn->quiet && t >= rn->quiet_until_s - rn->eps_s)
      rn->quiet = false;
    if (root) {
      const double *y = state(rn);
      if ((rc = critical_event(rn, t, y, err)) == 0)
        rc = battery_event(rn, t, y, err);
      if (rc < 0)
        return rc;
      if (rc > 0) {
        *why = (sits_end_reason)(rc - 1);
        rc = SITS_OK;
        break;
      }
      rc = SITS_OK; /* a root that ends nothing (a sign change back): go on */
      continue;
    }
    if (t >= end_s - rn->eps_s)
      break;
    int changed = advance_inputs(rn, t, err);
    if (changed < 0)
      return changed;
    if (changed && (rc = reinit(rn, t, err)))
      break;
    if (!changed && rn->hybrid && rn->ex && rn->tick - rn->last_change_tick >= GRID_BACK_TICKS &&
        (rc = to_cvode(rn, t, err)))
      break;
    rc = record_due(rn, t + rn->eps_s, t, err);
    try_quiet(rn, t, end_s, changed);
  }
  *t_end = t;
  if (rc == SITS_OK && (rn->res->n_recorded == 0 || rn->res->last_time_s < t - rn->eps_s))
    rc = record(rn, t, state(rn), err);
  return rc == SITS_OK ? flush_samples(rn, err) : rc;
}

static int init_run(run *rn, const sits_scenario *sc, sits_err *err) {
  rn->sc = sc;
  rn->th = sits_scenario_thermal(sc);
  rn->sched = sits_scenario_schedule(sc);
  rn->dom = sits_scenario_domains(sc, &rn->nd);
  rn->n = sits_thermal_node_count(rn->th);
  rn->batt = sits_scenario_battery(sc);
  rn->lay =
      sits__layout_of(rn->n, rn->batt != NULL, rn->batt ? sits_battery_state_count(rn->batt) : 0,
                      rn->batt != NULL && sc->batt_node >= 0);
  rn->eps_s = 1e-9 * fmax(1.0, sits_scenario_duration_s(sc));
  const sits_governor_cfg *gcfg = sits_scenario_governor(sc);
  /* the power cap reads the energy back over its window */
  sits__elog_init(&rn->elog, sits_scenario_limits(sc)->tdp_window_s,
                  gcfg ? gcfg->cap_window_s + 2 * gcfg->period_s : 0);
  rn->time_to_throttle_s = NAN;
  rn->base_power_w = calloc(rn->n, sizeof(double));
  rn->node_power_w = calloc(rn->n, sizeof(double));
  rn->y_start = calloc(rn->lay.ny, sizeof(double));
  rn->y_buf = calloc(rn->lay.ny, sizeof(double));
  rn->memo.y = calloc(rn->lay.ny, sizeof(double));
  rn->memo.ydot = calloc(rn->lay.ny, sizeof(double));
  rn->crit_node = calloc(rn->n, sizeof(int));
  rn->res = calloc(1, sizeof *rn->res);
  if (!rn->base_power_w || !rn->node_power_w || !rn->y_start || !rn->y_buf || !rn->crit_node ||
      !rn->memo.y || !rn->memo.ydot || !rn->res ||
      !(rn->res->peak_temp_c = malloc(rn->n * sizeof(double))))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  if (rn->nd && !sc->traced_domains &&
      !(rn->gov = sits_governor_new(sits_scenario_governor(sc), rn->dom, rn->nd)))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  rn->res->n_nodes = rn->n;
  rn->res->n_domains = rn->nd;
  rn->res->n_fans = sc->n_fans;
  if ((rn->batt = sits_scenario_battery(sc))) {
    const sits_battery_cfg *c = sits_battery_config(rn->batt);
    rn->batt_node = sc->batt_node;
    rn->batt_eff = sc->batt_efficiency;
    rn->cutoff_v = c->cutoff_v;
    rn->min_pack_v = INFINITY;
    rn->res->has_battery = true;
    double *y = realloc(rn->y_start, rn->lay.ny * sizeof(double));
    double *yb = realloc(rn->y_buf, rn->lay.ny * sizeof(double));
    if (y)
      rn->y_start = y;
    if (yb)
      rn->y_buf = yb;
    if (!y || !yb)
      return sits__fail(err, SITS_ENOMEM, "out of memory");
    memset(rn->y_start + rn->n, 0, (rn->lay.ny - rn->n) * sizeof(double));
    rn->y_start[rn->lay.i_soc] = sc->batt_initial_soc;
    if (c->hyst_m_v > 0) /* the hysteresis state after the RC voltages */
      rn->y_start[rn->lay.i_soc + 1 + c->n_rc] = c->hyst_initial;
    /* at rest before the first current, the instantaneous term follows h's sign */
    rn->batt_s = c->hyst_initial > 0 ? 1.0 : c->hyst_initial < 0 ? -1.0 : 0.0;
  }
  for (size_t f = 0; f < sc->n_fans; f++)
    rn->fan_duty[f] = rn->fan_max_duty[f] = sc->fans[f].initial_duty;
  sits__run_set_segment(rn, 0);
  for (size_t i = 0; i < rn->n; i++) {
    double init = sits_thermal_initial_c(rn->th, (int)i);
    rn->y_start[i] = isnan(init) ? rn->ambient_c : init;
    rn->res->peak_temp_c[i] = -INFINITY;
    if (!isnan(sits_thermal_critical_c(rn->th, (int)i)))
      rn->crit_node[rn->n_crit++] = (int)i;
  }
  if (rn->gov && tick(rn, 0.0, rn->y_start, err) < 0)
    return err->code;
  if (fan_ticks(rn, 0.0, rn->y_start, err) < 0)
    return err->code;
  return sits__run_build_jacobian(rn, err);
}

/* The absolute tolerances (kept in the run: a switch of path takes them again). */
static int make_atol(run *rn, const sits_solver_settings *s, sits_err *err) {
  if (!(rn->atol = malloc(rn->lay.ny * sizeof *rn->atol)))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t i = 0; i < rn->n; i++)
    rn->atol[i] = s->atol_k;
  for (size_t i = rn->n; i < rn->lay.ny; i++)
    rn->atol[i] = 1e-6; /* J, V: the relative tolerance dominates */
  if (rn->batt)
    rn->atol[rn->lay.i_soc] = 1e-9;
  return SITS_OK;
}

/* The exponential path's options for the system CVODE's @p o describe. */
static sits_expint_opts expint_opts(const sits_ode_opts *o) {
  return (sits_expint_opts){.n = o->n,
                            .pattern = o->pattern,
                            .rhs = o->rhs,
                            .jac = o->jac,
                            .user = o->user,
                            .rtol = o->rtol,
                            .atol = o->atol,
                            .n_roots = o->n_roots,
                            .roots = o->roots};
}

static int make_ode(run *rn, sits_err *err) {
  const sits_solver_settings *s = sits_scenario_solver(rn->sc);
  int rc = make_atol(rn, s, err);
  if (rc)
    return rc;
  sits_ode_opts o = {.n = rn->lay.ny,
                     .pattern = rn->jac,
                     .rhs = sits__run_rhs,
                     .jac = sits__run_jac,
                     .user = rn,
                     .rtol = s->rtol,
                     .atol = rn->atol,
                     .linsol = s->linsol,
                     .klu_threshold = s->klu_threshold,
                     .n_roots = rn->n_crit + (rn->batt ? 3 : 0),
                     .roots = rn->n_crit || rn->batt ? roots : NULL};
  sits_solver_method asked = s->method, m = asked;
  /* a layered grid: the fast path is CVODE on the grid solver, stepping past the ticks
   * (grid_path.c) */
  if (m != SITS_METHOD_CVODE) {
    sits_err quiet = {0};
    rc = sits__grid_new(rn, &rn->grid, &quiet);
    if (rc && rc != SITS_EUNSUPPORTED) {
      *err = quiet;
      return rc;
    }
    if (rn->grid) {
      o.lsetup = sits__grid_lsetup;
      o.lsolve = sits__grid_lsolve;
      o.luser = rn->grid;
    }
  }
  if (m == SITS_METHOD_AUTO && !rn->grid)
    m = rn->lay.ny <= SITS_EXPINT_AUTO_MAX_STATES ? SITS_METHOD_EXPONENTIAL : SITS_METHOD_CVODE;
  rn->switch_to = expint_opts(&o);
  rn->ode_opts = o;
  /* a grid's exponential path is the modal form (the dense one stops at 400 states): forced,
   * or under "auto" with a governor whose OPPs may change every few ticks (to_modal()) */
  const sits_expint_modal *modal = NULL;
  if (rn->grid && rn->lay.ny <= GRID_MODAL_MAX_STATES &&
      (m == SITS_METHOD_EXPONENTIAL || (rn->gov && m == SITS_METHOD_AUTO))) {
    if (!(modal = sits__grid_modal(rn->grid, rn->lay.ny)))
      return sits__fail(err, SITS_ENOMEM, "out of memory");
    rn->switch_to.modal = modal;
  }
  if (modal && m == SITS_METHOD_EXPONENTIAL) { /* larger grids: the grid solver path */
    sits_err quiet = {0};
    rn->ex = sits_expint_new(&rn->switch_to, 0.0, rn->y_start, &quiet);
    if (!rn->ex && quiet.code != SITS_EUNSUPPORTED && quiet.code != SITS_ESOLVER) {
      *err = quiet;
      return err->code;
    }
  }
  if (!rn->grid && m == SITS_METHOD_EXPONENTIAL)
    rn->ex = sits_expint_new(&rn->switch_to, 0.0, rn->y_start, err);
  else if (!rn->ex)
    rn->ode = sits_ode_new(&o, 0.0, rn->y_start, err);
  rn->hybrid = rn->ode && modal && asked == SITS_METHOD_AUTO;
  rn->may_switch = rn->ode && asked == SITS_METHOD_AUTO && !rn->grid && rn->gov &&
                   rn->lay.ny <= SITS_EXPINT_MAX_STATES;
  /* the run behind the integrator (step_ahead) */
  rn->ahead = rn->ex ? rn->gov != NULL : rn->ode && asked != SITS_METHOD_CVODE;
  /* quiet spans on the paths that step past ticks; CVODE as asked stops at every tick */
  rn->may_skip = (rn->ex || rn->ahead) && s->skip_quiet_ticks;
  rn->quiet_seg = (size_t)-1; /* the first try sets the backoff */
  if (rn->ahead && (!(rn->y_behind = calloc(o.n, sizeof(double))) ||
                    !(rn->max_behind = calloc(o.n, sizeof(double)))))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  return rn->ode || rn->ex ? SITS_OK : err->code;
}

static void release_run(run *rn) {
  sits_ode_free(rn->ode);
  sits_expint_free(rn->ex);
  sits_ode_free(rn->ode_idle);
  sits_expint_free(rn->ex_idle);
  free(rn->atol);
  sits__grid_free(rn->grid);
  sits_governor_free(rn->gov);
  gsl_spmatrix_free(rn->jac);
  free(rn->jac_const);
  free(rn->leak_diag);
  free(rn->leak_ein);
  free(rn->boff);
  sits__elog_free(&rn->elog);
  free(rn->base_power_w);
  free(rn->node_power_w);
  free(rn->y_start);
  free(rn->y_buf);
  free(rn->y_behind);
  free(rn->max_behind);
  free(rn->memo.y);
  free(rn->memo.ydot);
  free(rn->crit_node);
}

/* b's counts added to s's (one run's work on two integrators) */
static void add_stats(sits_ode_stats *s, const sits_ode_stats *b) {
  s->steps += b->steps, s->rhs_evals += b->rhs_evals, s->jac_evals += b->jac_evals;
  s->lin_setups += b->lin_setups, s->err_test_fails += b->err_test_fails;
  s->nonlin_iters += b->nonlin_iters, s->nonlin_conv_fails += b->nonlin_conv_fails;
  s->reinits += b->reinits;
}

int sits_sink_discard(const sits_result *r, size_t first, size_t count, void *user, sits_err *err) {
  (void)r, (void)first, (void)count, (void)user, (void)err;
  return SITS_OK;
}

int sits_run(const sits_scenario *sc, const sits_run_opts *opts, sits_result **out, sits_err *err) {
  run rn = {.opts = opts};
  sits_end_reason why = SITS_END_DURATION;
  double t_end = 0;
  *out = NULL;
  int rc = sits__check_samples(sc, err);
  if (rc)
    return rc;
  rc = init_run(&rn, sc, err);
  if (rc == SITS_OK)
    rc = make_ode(&rn, err);
  if (rc == SITS_OK)
    rc = loop(&rn, opts, &why, &t_end, err);
  if (rc == SITS_OK) {
    if (rn.ex)
      sits_expint_get_stats(rn.ex, &rn.res->stats);
    else
      sits_ode_get_stats(rn.ode, &rn.res->stats);
    sits_ode_stats idle = {0}; /* a grid's kept integrator (to_modal, to_cvode) */
    if (rn.ex_idle || rn.ode_idle) {
      if (rn.ex_idle)
        sits_expint_get_stats(rn.ex_idle, &idle);
      else
        sits_ode_get_stats(rn.ode_idle, &idle);
      add_stats(&rn.res->stats, &idle);
    }
    if ((rn.may_switch && rn.ex) || rn.fell_back) /* both paths' work */
      add_stats(&rn.res->stats, rn.fell_back ? &rn.before_fallback : &rn.before_switch);
    rn.res->ticks_skipped = rn.ticks_skipped;
    rn.res->stats.method = (rn.may_switch && rn.ex) ? "cvode-ahead, then exponential"
                           : rn.handovers           ? "grid-cvode and exponential"
                           : rn.fell_back           ? "exponential, then cvode"
                           : rn.ex                  ? "exponential"
                           : rn.grid                ? "grid-cvode"
                           : rn.ahead               ? "cvode-ahead"
                                                    : "cvode";
    sits__tally tally = {.lay = rn.lay,
                         .why = why,
                         .end_s = t_end,
                         .y_end =
                             why == SITS_END_CRITICAL_TEMP && t_end == 0 ? rn.y_start : state(&rn),
                         .y_start = rn.y_start,
                         .elog = &rn.elog,
                         .peak_power_w = rn.peak_power_w,
                         .throttled_s = rn.throttled_s,
                         .time_to_throttle_s = rn.time_to_throttle_s,
                         .min_pack_v = rn.min_pack_v,
                         .items = rn.items,
                         .demanded = rn.demanded,
                         .latency_ms_sum = rn.latency_ms_sum,
                         .domain_energy_j = rn.dom_e_j,
                         .fan_duty_s = rn.fan_duty_s,
                         .fan_max_duty = rn.fan_max_duty};
    sits__summarise(sc, rn.res, &tally);
    *out = rn.res;
    rn.res = NULL;
  }
  sits_result_free(rn.res);
  release_run(&rn);
  return rc;
}

int sits__result_add_event_fields(sits_result *r, double t_s, const char *kind, const char *detail,
                                  const char *subject, const char *unit, double value, double from,
                                  double limit, double soc) {
  if (r->n_events == r->cap_events) {
    size_t cap = r->cap_events ? 2 * r->cap_events : 16;
    sits_event *e = realloc(r->events, cap * sizeof *e);
    if (!e)
      return -1;
    r->events = e;
    r->cap_events = cap;
  }
  sits_event *e = &r->events[r->n_events++];
  memset(e, 0, sizeof *e); /* the whole record goes to HDF5, padding and string tails too */
  e->time_s = t_s;
  snprintf(e->kind, sizeof e->kind, "%s", kind);
  snprintf(e->detail, sizeof e->detail, "%s", detail);
  snprintf(e->subject, sizeof e->subject, "%s", subject ? subject : "");
  snprintf(e->unit, sizeof e->unit, "%s", unit ? unit : "");
  e->value = value, e->from = from, e->limit = limit, e->soc = soc;
  return 0;
}

int sits__result_add_event(sits_result *r, double t_s, const char *kind, const char *detail) {
  return sits__result_add_event_fields(r, t_s, kind, detail, NULL, NULL, NAN, NAN, NAN, NAN);
}

void sits_result_free(sits_result *r) {
  if (!r)
    return;
  free(r->time_s);
  free(r->temp_c);
  free(r->node_power_w);
  free(r->total_power_w);
  free(r->domain_power_w);
  free(r->freq_mhz);
  free(r->fan_duty);
  free(r->batt_soc);
  free(r->batt_voltage_v);
  free(r->batt_current_a);
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
double sits_result_domain_power_w(const sits_result *r, size_t k, size_t d) {
  return r->domain_power_w[k * r->n_domains + d];
}
double sits_result_freq_mhz(const sits_result *r, size_t k, size_t d) {
  return r->freq_mhz[k * r->n_domains + d];
}
const double *sits_result_peak_temp_c(const sits_result *r) {
  return r->peak_temp_c;
}
const sits_summary *sits_result_summary(const sits_result *r) {
  return &r->summary;
}
const sits_band *sits_result_band(const sits_result *r) {
  return &r->band;
}
void sits_result_ticks(const sits_result *r, size_t *evaluated, size_t *skipped) {
  if (evaluated)
    *evaluated = r->ticks_evaluated;
  if (skipped)
    *skipped = r->ticks_skipped;
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
double sits_result_battery_soc(const sits_result *r, size_t k) {
  return r->batt_soc[k];
}
double sits_result_battery_voltage_v(const sits_result *r, size_t k) {
  return r->batt_voltage_v[k];
}
double sits_result_battery_current_a(const sits_result *r, size_t k) {
  return r->batt_current_a[k];
}

const double *sits_result_series(const sits_result *r, const char *what, size_t *cols) {
  static const struct {
    const char *name;
    size_t off;
    int width; /* 0: nodes, 1: domains, 2: one column, 3: fans */
  } s[] = {{"temp_c", offsetof(sits_result, temp_c), 0},
           {"node_power_w", offsetof(sits_result, node_power_w), 0},
           {"domain_power_w", offsetof(sits_result, domain_power_w), 1},
           {"freq_mhz", offsetof(sits_result, freq_mhz), 1},
           {"total_power_w", offsetof(sits_result, total_power_w), 2},
           {"time_s", offsetof(sits_result, time_s), 2},
           {"battery_soc", offsetof(sits_result, batt_soc), 2},
           {"battery_voltage_v", offsetof(sits_result, batt_voltage_v), 2},
           {"battery_current_a", offsetof(sits_result, batt_current_a), 2},
           {"fan_duty", offsetof(sits_result, fan_duty), 3}};
  *cols = 0;
  for (size_t k = 0; r && what && k < sizeof s / sizeof s[0]; k++)
    if (strcmp(s[k].name, what) == 0) {
      if (strncmp(what, "battery_", 8) == 0 && !r->has_battery)
        return NULL;
      *cols = s[k].width == 0   ? r->n_nodes
              : s[k].width == 1 ? r->n_domains
              : s[k].width == 3 ? r->n_fans
                                : 1;
      return *(double *const *)((const char *)r + s[k].off);
    }
  return NULL;
}

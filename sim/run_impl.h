/*
 * run_impl.h - the state of one run, shared by sim.c (event loop, recording) and
 * sim_model.c (inputs, right-hand side, Jacobian). Never installed.
 */
#ifndef SITS_RUN_IMPL_H
#define SITS_RUN_IMPL_H

#include "result_internal.h"
#include "scenario_internal.h"
#include "sits_expint.h"

/** The battery at a state. */
typedef struct sits__batt_eval {
  double i_cell_a, v_cell_v, heat_w, dsoc, dv[SITS_BATTERY_MAX_RC + 1], p_pack_w, disc;
  bool ok; /* false: brown-out */
} sits__batt_eval;

/** Everything at one state under the current inputs (void when they change). */
typedef struct run_memo {
  bool ok, ydot_ok; /* the powers and battery at y; the right-hand side too */
  double *y, *ydot; /* lay.ny each */
  double p_w, dom_w[SITS_MAX_DOMAINS];
  size_t opp[SITS_MAX_DOMAINS]; /* the OPPs the utilisations were taken at */
  sits__batt_eval batt;
} run_memo;

typedef struct run {
  const sits_scenario *sc;
  const sits_run_opts *opts; /* may be NULL */
  const sits_thermal *th;
  const sits_schedule *sched;
  const sits_domain *dom;
  size_t n, nd, seg; /* nodes, domains, current schedule segment */
  sits__layout lay;  /* the state vector */
  /* inputs of the current interval */
  double *base_power_w; /* per node: static + traced power (temperature-independent) */
  double *node_power_w; /* scratch for the right-hand side */
  double ambient_c, base_total_w;
  size_t opp[SITS_MAX_DOMAINS], base_opp[SITS_MAX_DOMAINS];
  double demand[SITS_MAX_DOMAINS], util[SITS_MAX_DOMAINS];
  bool throttled, cap_active;
  /* Jacobian: CSC with the constant part, and where the leakage slopes go */
  gsl_spmatrix *jac;
  double *jac_const;
  size_t *leak_diag, *leak_ein; /* per (domain, node k): offsets into the values */
  /* fans (sim/fans.c): the duty each is at, the conductance it adds to its link over the
   * network's (which holds its initial duty's), its trips on, its ticks so far (the next at
   * fan_ticks x period_s); where the Jacobian takes its link */
  double fan_duty[SITS__MAX_FANS], fan_dg[SITS__MAX_FANS];
  size_t fan_on[SITS__MAX_FANS], fan_ticks[SITS__MAX_FANS];
  bool fan_traced[SITS__MAX_FANS];
  size_t fan_jac[SITS__MAX_FANS][5]; /* (a,a) (a,b) (b,b) (b,a) (E_out,a) */
  bool jac_changed;                  /* a fan changed the linear part: A is taken again */
  /* governor */
  sits_governor *gov;
  double next_tick_s;
  size_t tick;
  /* energy history at the breakpoints, for windows */
  sits__elog elog;
  size_t cap_hint;
  double cap_over_s; /* the last logged point whose interval averaged over the cap's budget */
  /* quiet spans (quiet.c): ticks proved to change nothing until quiet_until_s are skipped;
   * after a failed proof the next try waits quiet_backoff_s (doubling) */
  bool may_skip, quiet;
  double quiet_until_s, quiet_retry_s, quiet_backoff_s;
  size_t ticks_skipped, quiet_seg; /* the segment the backoff was set in */
  /* accounting */
  double items[SITS_MAX_DOMAINS], demanded[SITS_MAX_DOMAINS], latency_ms_sum[SITS_MAX_DOMAINS];
  double dom_e_j[SITS_MAX_DOMAINS], dom_w_left[SITS_MAX_DOMAINS]; /* per-domain energy */
  double throttled_s, time_to_throttle_s, peak_power_w;
  double fan_duty_s[SITS__MAX_FANS], fan_max_duty[SITS__MAX_FANS]; /* each fan's duty x time */
  /* battery: its states are in lay */
  const sits_battery *batt;
  int batt_node;
  double batt_eff, min_pack_v, cutoff_v;
  double batt_s; /* the instantaneous hysteresis sign at rest: the last current's (-1 discharge) */
  size_t n_bcols, n_brows, bcols[64], brows[8], *boff; /* FD block of the Jacobian */
  int *crit_node;
  int n_crit;
  double *y_start, *y_buf;
  run_memo memo; /* the last state evaluated (sim_model.c) */
  double eps_s, last_report_s;
  size_t steps_unpolled; /* loop passes since the progress and stop were last called */
  sits_ode *ode;         /* the CVODE path, or */
  sits_expint *ex;       /* the exponential path (solver.method), or */
  /* the exponential path under a governor, and CVODE but for solver.method = "cvode", step
   * past ticks (sim.c, step_ahead): the run is then at t_behind inside the integrator's last
   * step, at state y_behind */
  bool ahead, behind;
  double t_behind;
  double *y_behind, *max_behind; /* lay.ny each */
  sits_ode_event ex_event;       /* how the integrator's last step ended */
  const double *top;             /* per component, the largest value since the last stop */
  struct sits__grid *grid;       /* the layered-grid path */
  /* "auto" on a network above SITS_EXPINT_AUTO_MAX_STATES: CVODE stepping past ticks until the
   * inputs change every few ticks (throttling: each change restarts CVODE), then the
   * exponential path from there on (sim.c, switch_path) */
  bool may_switch;
  sits_expint_opts switch_to; /* the exponential path's options */
  double *atol;               /* the integrators' absolute tolerances (lay.ny) */
  size_t last_change_tick, close_changes;
  sits_ode_stats before_switch; /* CVODE's figures up to the switch */
  /* the exponential path failed (a leakage blow-up's steps under its floor): CVODE from its
   * last state on (sim.c, fall_back), with its figures up to there */
  sits_ode_opts ode_opts;
  /* a layered grid under "auto" (sim.c, to_modal and to_cvode): CVODE on the grid solver
   * stepping past ticks, and the exponential path in the network's modes (switch_to.modal)
   * while the OPPs change every few ticks; the one not running is kept, with its figures */
  bool hybrid;
  sits_ode *ode_idle;
  sits_expint *ex_idle;
  size_t handovers;
  long streak_steps0; /* CVODE's steps when the current run of close changes began */
  bool fell_back;
  long fallback_steps;
  sits_ode_stats before_fallback;
  sits_result *res;
} run;

/** Sets the inputs of schedule segment @p seg (powers, ambient, demands). */
void sits__run_set_segment(run *rn, size_t seg);
/** Puts fan @p f at @p duty; returns whether that changed its conductance. */
bool sits__run_fan_set(run *rn, size_t f, double duty);
/** Re-derives each domain's utilisation from its OPP and demand. */
void sits__run_update_util(run *rn);
/** Node powers at state @p y into rn->node_power_w (no battery heat); returns their sum. */
double sits__run_node_power(run *rn, const double *y);
/** Total power [W] and, optionally, per-domain power at state @p y. */
double sits__run_power_w(const run *rn, const double *y, double *domain_w);

/** The battery at state y with system power p_sys_w. */
void sits__run_battery(const run *rn, const double *y, double p_sys_w, sits__batt_eval *b);
/** Total power (per domain into dom_w, may be NULL) and the battery (b, with one) at state y,
 *  remembered with the right-hand side for the last state. */
double sits__run_at_state(run *rn, const double *y, double *dom_w, sits__batt_eval *b);
/** From state @p y at tick time @p t: the time up to which every governor and fan tick
 *  provably changes nothing while the inputs stay as they are until @p t_stop (quiet.c): t_stop
 *  when the whole span is proved, else t plus a whole number of tick periods @p h (t: none);
 *  @p window_at_most_budget as sits_governor_quiet()'s. */
double sits__run_quiet_until(const run *rn, const double *y, double t, double t_stop, double h,
                             bool window_at_most_budget);
/** Builds the Jacobian pattern and its constant part. */
int sits__run_build_jacobian(run *rn, sits_err *err);
/** The layered-grid Newton solver (grid_path.c): SITS_EUNSUPPORTED when the network is not
 *  one (or has a battery or fans); lsetup/lsolve as sits_ode_opts' (user: the sits__grid). */
typedef struct sits__grid sits__grid;
int sits__grid_new(run *rn, sits__grid **out, sits_err *err);
void sits__grid_free(sits__grid *gp);
int sits__grid_lsetup(void *user, double gamma, sits_err *err);
int sits__grid_lsolve(void *user, const double *b, double *x, sits_err *err);
/** The same network in the exponential path's modal form (states n nodes, then the two
 *  energy integrals: @p ny = n + 2), kept by @p gp; NULL when out of memory. */
const sits_expint_modal *sits__grid_modal(sits__grid *gp, size_t ny);
/** CVODE callbacks. */
int sits__run_rhs(double t, const double *y, double *ydot, void *user);
int sits__run_jac(double t, const double *y, double *values, void *user);

#endif

/* thermal_cal.c - thermal network calibration against a board trace (sits_thermal_cal.h). */
#define _POSIX_C_SOURCE 200809L
#include "sits_output.h"
#include "sits_thermal_cal.h"
#include "status_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_internal.h"
#include "thermal_internal.h"
#include "sits_fit.h"
#include "sits_replay.h"
#include "json_internal.h"

#define SPREAD 30.0 /* R and C bounds: within this factor of the scenario's values */
/* Physics bounds (sits_thermal_cal_opts.physics_bounds), from the power class of the training
 * rows (P_max, P_mean):
 *  - a resistance between the one that drops 0.05 K at P_max (less is no link a sensor sees)
 *    and the one on which the mean power would raise 200 K (no running device does: dies stop
 *    near 100-125 C), with the mean taken as at least P_max / 20 (a trace mostly idle);
 *  - a capacitance between 1e-4 and 100 J/K per watt of P_max: at the low end a die of silicon
 *    a tenth of the smallest per watt (an H200's 814 mm2 x 0.78 mm die, 1.0 J/K for 700 W,
 *    1.5e-3 J/(K W); a 5-W phone SoC's ~100 mm2 x 0.5 mm, 0.08 J/K, 1.6e-2 J/(K W)), at the
 *    high end 110 g of aluminium per watt (0.9 J/(g K)), beyond a passively cooled 15-W board
 *    with its heatsink (~250 g, 17 g/W) and a 700-W card with its cooler (~1.5 kg, 2 g/W). */
#define PHYS_R_LO_K 0.05
#define PHYS_R_HI_K 200.0
#define PHYS_C_LO_J_PER_K_W 1e-4
#define PHYS_C_HI_J_PER_K_W 100.0
/* An unsensed node's start at most this far above the warmest sensed reading (a die under a
 * board sensor; dies stop near 100-125 C, boards sit above 25 C) */
#define PHYS_INITIAL_RISE_K 100.0
/* A sensor whose training readings span less is flagged as not moving (plausibility()): a
 * 1-K sensor's two steps; the shipped traces' move 4-30 K */
#define STILL_SENSOR_K 2.0
/* Silicon's volumetric heat capacity: 2330 kg/m3 x 700 J/(kg K) = 1.63 J/(cm3 K), the value
 * of HotSpot's example.config (p_chip 1.6303e6 J/(m3 K)) */
#define SILICON_J_PER_MM3_K 1.6303e-3

typedef struct problem {
  const sits_thermal_cal_opts *o;
  const sits_trace *trace;
  sits_thermal_cal *c;
  size_t n_rows, n_train, n_nodes;
  size_t hold_lo, hold_hi; /* the held-out rows [lo, hi); n_train counts the others */
  size_t use_hi;           /* rows from here on take no part (sits_thermal_cal_opts.use_to) */
  sits_scenario *sc;       /* loaded once; each evaluation sets the parameters in memory */
  double *loaded_initial;  /* per node: its initial_c as loaded (a replay changes it) */
  double *initial;         /* per node: NAN or a fitted initial temperature */
  double *best_x;          /* the fitted parameters, in the fit's coordinates */
  size_t evaluations;
  double cost;     /* the fit's least training cost */
  size_t n_starts; /* of fit()'s three starts, how many (a trip scan's trials take one) */
  /* physics bounds: a fourth start from the trace's own scales (per parameter; NAN: the
   * scenario's value), see data_start() */
  bool has_data_start;
  double data_start[SITS_THERMAL_CAL_MAX_PARAMS];
  sits_err last;
} problem;

static double sigmoid(double x) {
  return 1.0 / (1.0 + exp(-x));
}

static double value_of(const sits_thermal_param *p, double x) {
  double s = sigmoid(x);
  return p->log_scale ? exp(log(p->lo) + s * (log(p->hi) - log(p->lo)))
                      : p->lo + s * (p->hi - p->lo);
}

static double x_of(const sits_thermal_param *p, double v) {
  double s = p->log_scale ? (log(v) - log(p->lo)) / (log(p->hi) - log(p->lo))
                          : (v - p->lo) / (p->hi - p->lo);
  s = fmin(fmax(s, 1e-6), 1 - 1e-6);
  return log(s / (1 - s));
}

/* Sets the parameters x in the loaded scenario (sits_scenario_set_number: no file is read
 * again) and replays the trace: *rep (caller frees). */
static int evaluate(problem *pb, const double *x, sits_replay **rep, sits_err *err) {
  int rc = SITS_OK;
  *rep = NULL;
  for (size_t i = 0; i < pb->n_nodes; i++) { /* as loaded, whatever the last replay left */
    pb->initial[i] = NAN;
    sits_thermal_set_initial_c(sits__scenario_thermal_mut(pb->sc), (int)i, pb->loaded_initial[i]);
  }
  for (size_t k = 0; rc == SITS_OK && k < pb->c->n_params; k++) {
    const sits_thermal_param *p = &pb->c->params[k];
    double v = value_of(p, x[k]);
    if (p->node >= 0)
      pb->initial[p->node] = v;
    else
      rc = sits_scenario_set_number(pb->sc, p->path, v, err);
  }
  pb->evaluations++;
  if (rc == SITS_OK)
    rc = sits_replay_run_trace(pb->sc, pb->trace, pb->o->trace_path, pb->initial, rep, err);
  return rc;
}

static int residual(const double *x, double *r, void *user) {
  problem *pb = user;
  sits_replay *rep;
  int rc = evaluate(pb, x, &rep, &pb->last);
  for (size_t k = 0; rc == SITS_OK && k < rep->n_sensors; k++) {
    int col = sits_trace_column(pb->trace, rep->sensors[k].column);
    double w = sqrt(rep->sensors[k].weight); /* every logged sensor jointly, by weight */
    for (size_t row = 0, j = 0; row < pb->n_rows; row++) {
      if ((row >= pb->hold_lo && row < pb->hold_hi) || row >= pb->use_hi)
        continue;
      double m = sits_trace_at(pb->trace, row, (size_t)col);
      r[k * pb->n_train + j++] = isnan(m) ? 0.0 : w * (rep->sim_c[k * pb->n_rows + row] - m);
    }
  }
  sits_replay_free(rep);
  return rc ? 1 : 0;
}

/* A number member of @p g, int or float; false when absent. */
static bool lookup_number(const config_setting_t *g, const char *name, double *v) {
  long long iv;
  if (config_setting_lookup_float(g, name, v) == CONFIG_TRUE)
    return true;
  if (config_setting_lookup_int64(g, name, &iv) != CONFIG_TRUE)
    return false;
  *v = (double)iv;
  return true;
}

/* The ranges of R and C from the device's physics (PHYS_*; lo = hi = 0: around the scenario's
 * values). */
typedef struct range {
  double r_lo, r_hi, c_lo, c_hi;
} range;

static int physics_ranges(problem *pb, const sits_replay *rep, range *r, sits_err *err) {
  double pmax = 0, sum = 0;
  size_t n = 0;
  for (size_t row = 0; row < pb->n_rows; row++)
    if ((row < pb->hold_lo || row >= pb->hold_hi) && row < pb->use_hi &&
        isfinite(rep->power_w[row])) {
      pmax = fmax(pmax, rep->power_w[row]);
      sum += rep->power_w[row], n++;
    }
  if (!(pmax > 0))
    return sits__fail(err, SITS_EINPUT,
                      "physics bounds need power: the mapped power is never above 0 W in the "
                      "training part (a trace without load determines no resistance; --fit "
                      "thermal keeps the scenario's own ranges)");
  double pmean = fmax(sum / (double)n, pmax / 20);
  pb->c->physics_bounds = true;
  pb->c->power_max_w = pmax, pb->c->power_mean_w = sum / (double)n;
  *r = (range){PHYS_R_LO_K / pmax, PHYS_R_HI_K / pmean, PHYS_C_LO_J_PER_K_W * pmax,
               PHYS_C_HI_J_PER_K_W * pmax};
  return SITS_OK;
}

/* The fourth start of a fit with physics bounds, from the trace's own scales: every
 * resistance scaled so that they add up to the rise the training rows show over the power
 * they carry (mean sensed reading - ambient, over the mean power), every capacitance so that
 * the network's time constant is a quarter of the training span. Only the network's R and C
 * move; the rest starts where the scenario puts it. */
static void data_start(problem *pb, const sits_scenario *sc, const sits_replay *rep) {
  sits_thermal_cal *c = pb->c;
  double r_sum = 0, c_sum = 0, t_sum = 0, span = 0;
  size_t n_t = 0;
  for (size_t k = 0; k < c->n_params; k++) {
    pb->data_start[k] = NAN;
    if (strstr(c->params[k].path, ".r_k_per_w"))
      r_sum += c->params[k].start;
    else if (strstr(c->params[k].path, ".c_j_per_k"))
      c_sum += c->params[k].start;
  }
  for (size_t row = 0; row < pb->n_rows; row++)
    if ((row < pb->hold_lo || row >= pb->hold_hi) && row < pb->use_hi) {
      for (size_t s = 0; s < rep->n_sensors; s++) {
        int col = sits_trace_column(rep->trace, rep->sensors[s].column);
        double v = col >= 0 ? sits_trace_at(rep->trace, row, (size_t)col) : NAN;
        if (isfinite(v))
          t_sum += v, n_t++;
      }
      span = fmax(span, sits_trace_at(rep->trace, row, 0) - sits_trace_at(rep->trace, 0, 0));
    }
  double rise = n_t ? t_sum / (double)n_t - sits_scenario_ambient_c(sc) : NAN;
  double r_est = rise / c->power_mean_w, c_est = span / 4 / r_est;
  if (!(r_sum > 0 && c_sum > 0 && r_est > 0 && c_est > 0 && isfinite(r_est) && isfinite(c_est)))
    return;
  for (size_t k = 0; k < c->n_params; k++) {
    sits_thermal_param *p = &c->params[k];
    double f = strstr(p->path, ".r_k_per_w")   ? r_est / r_sum
               : strstr(p->path, ".c_j_per_k") ? c_est / c_sum
                                               : NAN;
    if (isfinite(f))
      pb->data_start[k] = fmin(fmax(p->start * f, p->lo * 1.05), p->hi / 1.05);
  }
  pb->has_data_start = true;
}

/* A resistance or capacitance parameter starting at @p v: within [lo, hi] (the start moved
 * inside), or within SPREAD of @p v when lo is 0. */
static sits_thermal_param bounded(double v, double lo, double hi) {
  if (!(lo > 0))
    return (sits_thermal_param){
        .node = -1, .start = v, .lo = v / SPREAD, .hi = v * SPREAD, .log_scale = true};
  double start = fmin(fmax(v, lo * 1.05), hi / 1.05);
  return (sits_thermal_param){.node = -1, .start = start, .lo = lo, .hi = hi, .log_scale = true};
}

/* Each link's R and node's C (those a kept network still fits), the fans' links left to
 * fan_params, within the physics ranges @p phys (zero: SPREAD around each value). */
static int network_params(sits_thermal_cal *c, const sits_scenario *sc, const range *phys,
                          sits_err *err) {
  const config_setting_t *th = config_lookup(sits__scenario_cfg(sc), "platform.thermal");
  if (!th || config_setting_get_member(th, "hotspot"))
    return sits__fail(err, SITS_EUNSUPPORTED,
                      "--fit thermal needs a platform with thermal nodes and links (floorplan "
                      "networks are not fitted in this version)");
  const config_setting_t *links = config_setting_get_member(th, "links");
  const config_setting_t *nodes = config_setting_get_member(th, "nodes");
  size_t nl = (size_t)config_setting_length(links), nn = (size_t)config_setting_length(nodes);
  for (size_t k = 0; k < nl + nn; k++) {
    if (c->keep_network && !(c->fit_capacitance && k >= nl)) /* kept (but its C's, if asked) */
      continue;
    bool fan_link = false; /* its resistance is the fan's (below) */
    for (size_t f = 0; k < nl && f < sits_scenario_fan_count(sc); f++)
      fan_link |= sits__scenario_fan(sc, f)->link == k;
    if (fan_link)
      continue;
    if (c->n_params == SITS_THERMAL_CAL_MAX_PARAMS)
      return sits__fail(err, SITS_EINPUT, "more than %d parameters to fit",
                        SITS_THERMAL_CAL_MAX_PARAMS);
    const config_setting_t *g =
        config_setting_get_elem(k < nl ? links : nodes, (unsigned)(k < nl ? k : k - nl));
    const char *key = k < nl ? "r_k_per_w" : "c_j_per_k";
    double v;
    if (!lookup_number(g, key, &v))
      return sits__fail(err, SITS_EINPUT, "cannot read %s of thermal %s %zu", key,
                        k < nl ? "link" : "node", k < nl ? k : k - nl);
    sits_thermal_param *p = &c->params[c->n_params++];
    *p = bounded(v, k < nl ? phys->r_lo : phys->c_lo, k < nl ? phys->r_hi : phys->c_hi);
    snprintf(p->path, sizeof p->path, "platform.thermal.%s.[%zu].%s", k < nl ? "links" : "nodes",
             k < nl ? k : k - nl, key);
  }
  return SITS_OK;
}

static int fan_params(sits_thermal_cal *c, const sits_scenario *sc, const sits_replay *rep,
                      const range *phys, sits_err *err) {
  /* each fan's resistances at the duties the replay visits: a traced fan's, the points
   * around the range of its column; otherwise those around its initial duty and its trips'
   * duties (a point no duty reaches leaves the fit unchanged: not a parameter) */
  for (size_t f = 0; !c->keep_network && f < sits_scenario_fan_count(sc); f++) {
    const sits__fan *fan = sits__scenario_fan(sc, f);
    double lo = rep->fan_traced[f] ? rep->fan_duty_min[f] : fan->initial_duty;
    double hi = rep->fan_traced[f] ? rep->fan_duty_max[f] : fan->initial_duty;
    for (size_t t = 0; !rep->fan_traced[f] && t < fan->n_trips; t++)
      lo = fmin(lo, fan->trip_duty[t]), hi = fmax(hi, fan->trip_duty[t]);
    for (size_t j = 0; j < fan->n_points; j++) {
      double below = j > 0 ? fan->duty[j - 1] : -INFINITY;
      double above = j + 1 < fan->n_points ? fan->duty[j + 1] : INFINITY;
      if (!(hi > below && lo < above))
        continue;
      if (c->n_params == SITS_THERMAL_CAL_MAX_PARAMS)
        return sits__fail(err, SITS_EINPUT, "more than %d parameters to fit",
                          SITS_THERMAL_CAL_MAX_PARAMS);
      double v = fan->r_k_per_w[j];
      sits_thermal_param *p = &c->params[c->n_params++];
      *p = bounded(v, phys->r_lo, phys->r_hi);
      snprintf(p->path, sizeof p->path, "platform.fans.[%zu].r_k_per_w.[%zu]", f, j);
    }
  }
  return SITS_OK;
}

/* Each sensor's lag (replay.sensors.[k].lag_s) where the scenario gives one above 0, the
 * sensor is fitted (weight above 0) and the network is fitted: between a twentieth of the training
 * rows' mean interval (a shorter lag changes no reading) and a quarter of their span (a longer one
 * is the network's business). */
static int lag_params(problem *pb, const sits_replay *rep, sits_err *err) {
  sits_thermal_cal *c = pb->c;
  size_t last = pb->use_hi < pb->n_rows ? pb->use_hi : pb->n_rows;
  double span =
      last > 1 ? sits_trace_at(pb->trace, last - 1, 0) - sits_trace_at(pb->trace, 0, 0) : 0;
  for (size_t k = 0; !c->keep_network && k < rep->n_sensors; k++) {
    if (!(rep->sensors[k].lag_s > 0 && rep->sensors[k].weight > 0)) /* 0: reported, not fitted */
      continue;
    if (!(span > 0))
      return sits__fail(err, SITS_EINPUT, "%s: replay.sensors.[%zu].lag_s: the trace spans no time",
                        pb->o->trace_path, k);
    if (c->n_params == SITS_THERMAL_CAL_MAX_PARAMS)
      return sits__fail(err, SITS_EINPUT, "more than %d parameters to fit",
                        SITS_THERMAL_CAL_MAX_PARAMS);
    sits_thermal_param *p = &c->params[c->n_params++];
    *p = bounded(rep->sensors[k].lag_s, 0.05 * span / (double)(last - 1), 0.25 * span);
    snprintf(p->path, sizeof p->path, "replay.sensors.[%zu].lag_s", k);
  }
  return SITS_OK;
}

static int leakage_params(sits_thermal_cal *c, const sits_scenario *sc, sits_err *err) {
  /* the modelled domains' leakage: its size at the reference and its slope (the replay keeps
   * only the domains replay.domains names; their config index by name) */
  const config_setting_t *cdom = config_lookup(sits__scenario_cfg(sc), "platform.domains");
  if (c->fit_leakage && !sits__scenario_traced_domains(sc))
    return sits__fail(err, SITS_EINPUT,
                      "--fit leakage needs domains the replay models (replay.domains: each "
                      "domain's clock and load from the trace); with measured power only, the "
                      "leakage is in the measurement");
  for (size_t d = 0; c->fit_leakage && d < sits_scenario_domain_count(sc); d++) {
    int ci = -1;
    for (int e = 0; cdom && ci < 0 && e < config_setting_length(cdom); e++) {
      const char *nm = NULL;
      if (config_setting_lookup_string(config_setting_get_elem(cdom, (unsigned)e), "name", &nm) &&
          !strcmp(nm, sits_scenario_domains(sc, NULL)[d].name))
        ci = e;
    }
    if (ci < 0)
      return sits__fail(err, SITS_EINPUT, "domain '%s' is not in platform.domains",
                        sits_scenario_domains(sc, NULL)[d].name);
    const sits_domain *dm = &sits_scenario_domains(sc, NULL)[d];
    if (c->n_params + 2 > SITS_THERMAL_CAL_MAX_PARAMS)
      return sits__fail(err, SITS_EINPUT, "more than %d parameters to fit",
                        SITS_THERMAL_CAL_MAX_PARAMS);
    if (dm->leak_ref_w > 0) {
      sits_thermal_param *p = &c->params[c->n_params++];
      *p = (sits_thermal_param){.node = -1,
                                .start = dm->leak_ref_w,
                                .lo = dm->leak_ref_w / SPREAD,
                                .hi = dm->leak_ref_w * SPREAD,
                                .log_scale = true};
      snprintf(p->path, sizeof p->path, "platform.domains.[%d].leak_ref_w", ci);
    }
    /* the slope: leakage doubling every 6 K to every 350 K */
    sits_thermal_param *p = &c->params[c->n_params++];
    *p = (sits_thermal_param){.node = -1,
                              .start = fmin(fmax(dm->leak_per_k, 0.0021), 0.11),
                              .lo = 0.002,
                              .hi = 0.12,
                              .log_scale = true};
    snprintf(p->path, sizeof p->path, "platform.domains.[%d].leak_per_k", ci);
  }
  return SITS_OK;
}

/* The ambient (within --ambient-range, or the 15-40 C prior) and each unsensed node's initial
 * temperature. */
static int temperature_params(problem *pb, const sits_scenario *sc, const sits_replay *rep,
                              sits_err *err) {
  sits_thermal_cal *c = pb->c;
  if (c->fit_ambient) {
    if (config_lookup(sits__scenario_cfg(sc), "replay.ambient_column"))
      return sits__fail(err, SITS_EINPUT,
                        "--fit ambient: the trace gives the ambient (replay.ambient_column)");
    sits_thermal_param *p = &c->params[c->n_params++];
    double lo = pb->o->ambient_lo_c, hi = pb->o->ambient_hi_c;
    if (lo == 0 && hi == 0) /* the prior: where a board indoors sits */
      lo = 15, hi = 40;
    if (!(hi > lo))
      return sits__fail(err, SITS_EINPUT, "the ambient's range %g to %g C is empty", lo, hi);
    *p = (sits_thermal_param){
        .node = -1, .start = fmin(fmax(sits_scenario_ambient_c(sc), lo), hi), .lo = lo, .hi = hi};
    snprintf(p->path, sizeof p->path, "ambient_c");
  }
  /* an unsensed node's initial temperature: between the coolest the ambient may be and the
   * warmest sensed node at the start (heat flows from the sources outwards; a node of no
   * sensor starts between them), with 5 and 10 K to spare, and around the replay's own
   * estimate (the steady state of the first power: a powered node may start above every
   * sensor); with no sensed reading at the start, the scenario's ambient -20 to +80 K */
  double sensed_hi = -INFINITY;
  for (size_t i = 0; i < pb->n_nodes; i++)
    if (rep->sensed[i] && isfinite(rep->initial_c[i]))
      sensed_hi = fmax(sensed_hi, rep->initial_c[i]);
  bool prior = pb->o->ambient_lo_c == 0 && pb->o->ambient_hi_c == 0; /* 15-40 C, as above */
  double amb_lo = !c->fit_ambient ? sits_scenario_ambient_c(sc)
                  : prior         ? 15.0
                                  : pb->o->ambient_lo_c;
  for (size_t i = 0; c->fit_initial && i < pb->n_nodes; i++) {
    /* the pack's own node is not in the config's nodes (and no sensor sees it) */
    if (rep->sensed[i] || (pb->sc->batt_own_node && (int)i == pb->sc->batt_node))
      continue;
    double est = rep->initial_c[i], ilo = sits_scenario_ambient_c(sc) - 20,
           ihi = sits_scenario_ambient_c(sc) + 80;
    /* with ranges from physics the scenario's values only start the fit: an estimate from a
     * guess far off (R 1e6 K/W: 68,729 C) is held to the readings' neighbourhood, up to
     * PHYS_INITIAL_RISE_K above the warmest */
    if (pb->o->physics_bounds && isfinite(sensed_hi) && isfinite(est))
      est = fmin(fmax(est, amb_lo - 5), sensed_hi + PHYS_INITIAL_RISE_K);
    if (isfinite(sensed_hi) && isfinite(est)) {
      ilo = fmin(fmin(sits_scenario_ambient_c(sc), amb_lo) - 5, est - 10);
      ihi = fmax(sensed_hi + 10, est + 10);
    }
    if (c->n_params == SITS_THERMAL_CAL_MAX_PARAMS)
      return sits__fail(err, SITS_EINPUT, "too many parameters to fit");
    sits_thermal_param *p = &c->params[c->n_params++];
    *p = (sits_thermal_param){.node = (int)i, .start = est, .lo = ilo, .hi = ihi};
    snprintf(p->path, sizeof p->path, "platform.thermal.nodes.[%zu].initial_c", i);
  }
  return SITS_OK;
}

/* The parameters: every link's R and node's C, the fans' resistances, the sensors' lags, the
 * modelled domains' leakage, then the ambient and initial temperatures. */
static int parameters(problem *pb, const sits_scenario *sc, const sits_replay *rep, sits_err *err) {
  sits_thermal_cal *c = pb->c;
  range phys = {0};
  int rc = pb->o->physics_bounds ? physics_ranges(pb, rep, &phys, err) : SITS_OK;
  if (rc == SITS_OK)
    rc = network_params(c, sc, &phys, err);
  if (rc == SITS_OK)
    rc = fan_params(c, sc, rep, &phys, err);
  if (rc == SITS_OK)
    rc = lag_params(pb, rep, err);
  if (rc == SITS_OK)
    rc = leakage_params(c, sc, err);
  if (rc == SITS_OK)
    rc = temperature_params(pb, sc, rep, err);
  if (rc)
    return rc;
  if (c->n_params == 0)
    return sits__fail(err, SITS_EINPUT,
                      c->keep_network && c->fit_initial
                          ? "nothing to fit: with the network kept, every node is sensed (no "
                            "initial temperature to fit) and no ambient or leakage is asked for"
                          : "nothing to fit: the network is kept and no capacitance, ambient, "
                            "initial or leakage is asked for");
  if (pb->o->physics_bounds)
    data_start(pb, sc, rep);
  return SITS_OK;
}

/* Loads the scenario and the trace, replays once as given (its sensors and estimated initial
 * state) and lists the parameters. */
static int setup(problem *pb, sits_err *err) {
  const sits_thermal_cal_opts *o = pb->o;
  sits_thermal_cal *c = pb->c;
  sits_trace *trace = NULL;
  sits_replay *rep = NULL;
  int rc = sits_trace_read(o->trace_path, &o->trace, &trace, err);
  pb->trace = trace;
  if (rc == SITS_OK)
    rc = sits__cal_scenario(o, o->sets, o->n_sets, &pb->sc, err);
  if (rc == SITS_OK) {
    pb->n_nodes = sits_thermal_node_count(sits_scenario_thermal(pb->sc));
    pb->loaded_initial = malloc((pb->n_nodes + 1) * sizeof *pb->loaded_initial);
    pb->initial = malloc((pb->n_nodes + 1) * sizeof *pb->initial);
    if (!pb->loaded_initial || !pb->initial)
      rc = sits__fail(err, SITS_ENOMEM, "out of memory");
    for (size_t i = 0; rc == SITS_OK && i < pb->n_nodes; i++)
      pb->loaded_initial[i] = sits_thermal_initial_c(sits_scenario_thermal(pb->sc), (int)i);
  }
  if (rc == SITS_OK &&
      (rc = sits_replay_run_trace(pb->sc, trace, o->trace_path, NULL, &rep, err)) == SITS_OK) {
    pb->n_rows = trace->n_rows;
    if (o->hold_to > o->hold_from) { /* a block inside */
      if (!(o->hold_from >= 0 && o->hold_to <= 1))
        rc = sits__fail(err, SITS_EINPUT, "the held-out block %g-%g is not inside the trace",
                        o->hold_from, o->hold_to);
      pb->hold_lo = (size_t)floor(o->hold_from * (double)pb->n_rows);
      pb->hold_hi = (size_t)floor(o->hold_to * (double)pb->n_rows);
    } else {
      pb->hold_lo = (size_t)floor(c->train_fraction * (double)pb->n_rows);
      pb->hold_hi = pb->n_rows;
    }
    pb->use_hi = pb->n_rows;
    if (o->use_to > 0 && o->use_to < 1)
      pb->use_hi = (size_t)floor(o->use_to * (double)pb->n_rows);
    if (rc == SITS_OK && pb->hold_hi > pb->use_hi)
      rc = sits__fail(err, SITS_EINPUT, "the held-out rows run past the rows in use (%g)",
                      o->use_to);
    pb->n_train = rc ? 0 : pb->use_hi - (pb->hold_hi - pb->hold_lo);
    c->n_rows = pb->n_rows, c->n_train = pb->n_train;
    c->trace_skipped = trace->skipped, c->trace_first_skipped_line = trace->first_skipped_line;
    c->n_sensors = rep->n_sensors < SITS_THERMAL_CAL_MAX_SENSORS ? rep->n_sensors
                                                                 : SITS_THERMAL_CAL_MAX_SENSORS;
    for (size_t k = 0; k < c->n_sensors; k++)
      snprintf(c->sensor[k], sizeof c->sensor[k], "%s", rep->sensors[k].column);
    /* each sensor needs readings in the training part: a zone the log marks absent (jtop's
     * -256 C) or a column left empty there gives the fit nothing to follow */
    if (rc == SITS_OK && pb->n_train < 2) /* --train-fraction 1e-300: say so, not the sensors */
      rc = sits__fail(err, SITS_EINPUT,
                      "%s: the training part has %zu of the %zu rows: raise --train-fraction "
                      "(%g)",
                      o->trace_path, pb->n_train, pb->n_rows, o->train_fraction);
    for (size_t k = 0; rc == SITS_OK && k < c->n_sensors; k++) {
      int col = sits_trace_column(trace, rep->sensors[k].column);
      size_t seen = 0;
      for (size_t row = 0; col >= 0 && row < pb->n_rows; row++)
        if ((row < pb->hold_lo || row >= pb->hold_hi) && row < pb->use_hi &&
            !isnan(sits_trace_at(trace, row, (size_t)col)))
          seen++;
      if (seen == 0)
        rc = sits__fail(err, SITS_EINPUT,
                        "%s: sensor column '%s' has no reading in the training part (%zu of %zu "
                        "rows): nothing to fit it to (a zone the log marks absent, as jtop's "
                        "-256 C, reads as missing)",
                        o->trace_path, rep->sensors[k].column, pb->n_train, pb->n_rows);
    }
    if (rc == SITS_OK)
      rc = parameters(pb, pb->sc, rep, err);
    if (rc == SITS_OK && pb->n_train < c->n_params + 5)
      rc = sits__fail(err, SITS_EINPUT,
                      "the training part (%zu rows) is too short for %zu "
                      "parameters",
                      pb->n_train, c->n_params);
  }
  sits_replay_free(rep);
  return rc;
}

/* GSL's least squares from the scenario's values and from all R and C x0.3 and x3 (and with
 * physics bounds from the trace's own scales, data_start()); the best finite solution into
 * c->params (value, weak_share), converged, rcond. */
static int fit(problem *pb, sits_err *err) {
  sits_thermal_cal *c = pb->c;
  size_t np = c->n_params;
  double *x = malloc((np + 1) * sizeof *x), *best = malloc((np + 1) * sizeof *best);
  double weak[SITS_THERMAL_CAL_MAX_PARAMS] = {0}, best_cost = INFINITY, rcond = NAN;
  double *cov = malloc(np * np * sizeof *cov + 1), *cov_s = malloc(np * np * sizeof *cov_s + 1);
  bool best_conv = false;
  int rc = x && best && cov && cov_s ? SITS_OK : sits__fail(err, SITS_ENOMEM, "out of memory");
  const double scales[] = {1.0, 0.3, 3.0};
  size_t n_starts = pb->n_starts + (pb->has_data_start && pb->n_starts == 3);
  for (size_t s = 0; rc == SITS_OK && s < n_starts; s++) {
    for (size_t k = 0; k < np; k++) {
      const sits_thermal_param *p = &c->params[k];
      x[k] = s == 3 ? x_of(p, isnan(pb->data_start[k]) ? p->start : pb->data_start[k])
                    : x_of(p, p->log_scale ? p->start * scales[s] : p->start);
    }
    double cost, rc_s = NAN, weak_s[SITS_THERMAL_CAL_MAX_PARAMS];
    bool conv;
    sits_fit_opts fo = {np,   c->n_sensors * pb->n_train, residual, pb, 100, &rc_s, weak_s, cov_s,
                        false};
    sits_err e2 = {0};
    c->starts++;
    if (sits_fit_nlinear(&fo, x, &cost, &conv, &e2) == SITS_OK && isfinite(cost) &&
        cost < best_cost) {
      best_cost = cost, best_conv = conv, rcond = rc_s;
      memcpy(best, x, np * sizeof *x);
      memcpy(weak, weak_s, np * sizeof *weak);
      memcpy(cov, cov_s, np * np * sizeof *cov);
    }
  }
  if (rc == SITS_OK && !isfinite(best_cost))
    rc = sits__fail(err, SITS_ESOLVER,
                    "the thermal fit found no finite solution from %zu starts%s%s", c->starts,
                    pb->last.msg[0] ? ": " : "", pb->last.msg);
  for (size_t k = 0; rc == SITS_OK && k < np; k++) {
    c->params[k].value = value_of(&c->params[k], best[k]);
    c->params[k].weak_share = weak[k];
    if (!isfinite(c->params[k].value))
      rc = sits__fail(err, SITS_ESOLVER, "the fit ended on a non-finite %s", c->params[k].path);
  }
  for (size_t k = 0; rc == SITS_OK && k < np; k++) { /* through the map x -> value */
    sits_thermal_param *p = &c->params[k];
    double sg = sigmoid(best[k]), span = p->log_scale ? log(p->hi) - log(p->lo) : p->hi - p->lo;
    double dvdx = (p->log_scale ? p->value : 1.0) * span * sg * (1 - sg);
    p->at_bound = sg < 0.01 || sg > 0.99;
    p->std_err = p->at_bound ? NAN : fabs(dvdx) * sqrt(cov[k * np + k]);
    for (size_t j = 0; j < np; j++)
      c->corr[k * np + j] = cov[k * np + j] / sqrt(cov[k * np + k] * cov[j * np + j]);
  }
  c->converged = best_conv;
  c->rcond = rcond;
  pb->cost = best_cost;
  c->unidentifiable = !isfinite(rcond) || rcond < 1e-6; /* rank-deficient: 0 (solvers/fit.c) */
  if (rc == SITS_OK)
    memcpy(x, best, np * sizeof *x);
  free(best), free(cov), free(cov_s);
  pb->best_x = x;
  return rc;
}

static void flag(sits_thermal_cal *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void flag(sits_thermal_cal *c, const char *fmt, ...) {
  if (c->n_flags == sizeof c->flags / sizeof c->flags[0])
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->flags[c->n_flags++], sizeof c->flags[0], fmt, ap);
  va_end(ap);
}

/* What a user should not believe in the fitted values (sits_thermal_cal.h). */
static void plausibility(problem *pb) {
  sits_thermal_cal *c = pb->c;
  const sits_thermal *th = sits_scenario_thermal(pb->sc);
  size_t np = c->n_params;
  bool grounded = false; /* a link to the ambient: else its fitted value changes nothing */
  for (size_t i = 0; i < pb->n_nodes; i++)
    grounded |= sits_thermal_ambient_conductance_w_per_k(th, (int)i) > 0;
  if (c->fit_ambient && !grounded)
    flag(c, "ambient_c is fitted but no link reaches the ambient: its value changes nothing, "
            "and the network has no steady state (add a link to \"ambient\")");
  /* a sensor that hardly moves over the training rows determines no R or C: every value
   * between the ranges' ends fits it (the band and the flags below then say little more) */
  bool network = !pb->o->keep_network || pb->o->fit_capacitance; /* R or C fitted */
  for (size_t k = 0; network && k < c->n_sensors; k++) {
    int col = sits_trace_column(pb->trace, c->sensor[k]);
    double lo = INFINITY, hi = -INFINITY;
    for (size_t row = 0; col >= 0 && row < pb->n_rows && row < pb->use_hi; row++) {
      double v = sits_trace_at(pb->trace, row, (size_t)col);
      if ((row < pb->hold_lo || row >= pb->hold_hi) && isfinite(v))
        lo = fmin(lo, v), hi = fmax(hi, v);
    }
    if (hi >= lo && hi - lo < STILL_SENSOR_K)
      flag(c,
           "%s moves only %.3g K over the training rows (%.4g-%.4g C): the network's resistances "
           "and capacitances are not determined by it (a load step that moves it several kelvin "
           "would)",
           c->sensor[k], hi - lo, lo, hi);
  }
  for (size_t k = 0; k < np; k++) {
    const sits_thermal_param *p = &c->params[k];
    if (p->at_bound)
      flag(c, "%s = %.4g is at the %s end of its range [%.4g, %.4g]: the data push it out", p->path,
           p->value, sigmoid(x_of(p, p->value)) < 0.5 ? "lower" : "upper", p->lo, p->hi);
    if (strcmp(p->path, "ambient_c") == 0 && (p->value < 15 || p->value > 40))
      flag(c,
           "ambient_c = %.4g C is outside 15-40 C, where a board indoors sits: it stands in "
           "for something the network lacks (a fan, a missing node)",
           p->value);
    for (size_t j = k + 1; j < np; j++)
      if (fabs(c->corr[k * np + j]) > 0.99)
        flag(c, "%s and %s are correlated %+.3f: the trace fixes their combination, not each",
             p->path, c->params[j].path, c->corr[k * np + j]);
  }
  /* a node lighter than its own silicon: die_area_mm2 x die_thickness_mm at silicon's
   * volumetric heat capacity (SILICON_J_PER_MM3_K); nodes are in the config's order */
  const config_setting_t *nodes =
      config_lookup(sits__scenario_cfg(pb->sc), "platform.thermal.nodes");
  for (int i = 0; nodes && i < config_setting_length(nodes); i++) {
    const config_setting_t *g = config_setting_get_elem(nodes, (unsigned)i);
    double area, thick;
    if (!lookup_number(g, "die_area_mm2", &area) || !lookup_number(g, "die_thickness_mm", &thick))
      continue;
    double c_si = area * thick * SILICON_J_PER_MM3_K, c_node = sits_thermal_capacity_j_per_k(th, i);
    if (c_node < c_si)
      flag(c,
           "node '%s' c_j_per_k = %.4g J/K is below the heat capacity of its silicon alone "
           "(%.4g mm2 x %.4g mm x 1.63 J/(cm3 K) = %.4g J/K): the trace does not resolve its "
           "time constant, or its power enters elsewhere",
           sits_thermal_name(th, i), c_node, area, thick, c_si);
  }
  /* a junction node heavier than a linked node that is not a junction (the fitted values
   * are in the scenario after the final evaluation) */
  const config_setting_t *links =
      config_lookup(sits__scenario_cfg(pb->sc), "platform.thermal.links");
  for (int l = 0; links && l < config_setting_length(links); l++) {
    const config_setting_t *g = config_setting_get_elem(links, (unsigned)l);
    const char *an = NULL, *bn = NULL;
    config_setting_lookup_string(g, "a", &an);
    config_setting_lookup_string(g, "b", &bn);
    int a = an ? sits_thermal_find(th, an) : -1, b = bn ? sits_thermal_find(th, bn) : -1;
    for (int s = 0; a >= 0 && b >= 0 && s < 2; s++) {
      int j = s ? b : a, o = s ? a : b;
      double cj = sits_thermal_capacity_j_per_k(th, j), co = sits_thermal_capacity_j_per_k(th, o);
      if (sits_thermal_is_junction(th, j) && !sits_thermal_is_junction(th, o) && cj > co)
        flag(c,
             "junction node '%s' (%.4g J/K) is heavier than its neighbour '%s' (%.4g J/K): a "
             "die is lighter than the metal it sits on",
             sits_thermal_name(th, j), cj, sits_thermal_name(th, o), co);
    }
  }
}

/* Element @p idx of the number array @p arr set to @p v. An array holds one type, so an array
 * of ints is rewritten as floats (its other values kept). */
static bool set_array_elem(config_setting_t *arr, int idx, double v) {
  int n = config_setting_length(arr);
  if (!config_setting_is_array(arr) || idx < 0 || idx >= n)
    return false;
  config_setting_t *e = config_setting_get_elem(arr, (unsigned)idx);
  if (config_setting_type(e) == CONFIG_TYPE_FLOAT)
    return config_setting_set_float(e, v) == CONFIG_TRUE;
  double vals[64];
  if (n > 64)
    return false;
  for (int k = 0; k < n; k++)
    vals[k] = config_setting_get_float_elem(arr, (unsigned)k);
  vals[idx] = v;
  while (config_setting_length(arr) > 0)
    config_setting_remove_elem(arr, 0);
  for (int k = 0; k < n; k++)
    if (!config_setting_set_float_elem(arr, -1, vals[k]))
      return false;
  return true;
}

/* The calibrated scenario as text (malloc'ed; NULL on failure): the merged config with every
 * fitted value set, each moved to the end of its group as a --set places it, in the layout
 * `config_write` gives a default libconfig configuration. */
static char *calibrated_text(const problem *pb) {
  config_t cfg;
  config_init(&cfg);
  const char *text = sits_scenario_config_text(pb->sc);
  bool ok = text && config_read_string(&cfg, text) == CONFIG_TRUE;
  for (size_t k = 0; ok && k < pb->c->n_params; k++) {
    const sits_thermal_param *p = &pb->c->params[k];
    config_setting_t *s = config_lookup(&cfg, p->path), *parent;
    const char *dot = strrchr(p->path, '.');
    char parent_path[160], name[160];
    snprintf(name, sizeof name, "%s", dot ? dot + 1 : p->path);
    snprintf(parent_path, sizeof parent_path, "%.*s", dot ? (int)(dot - p->path) : 0, p->path);
    parent = s     ? config_setting_parent(s)
             : dot ? config_lookup(&cfg, parent_path)
                   : config_root_setting(&cfg);
    if (name[0] == '[') { /* an array's element (a fan's r_k_per_w.[j]): set in place */
      ok = parent && set_array_elem(parent, (int)strtol(name + 1, NULL, 10), p->value);
      continue;
    }
    if (s)
      config_setting_remove(parent, name);
    s = parent ? config_setting_add(parent, name, CONFIG_TYPE_FLOAT) : NULL;
    ok = s && config_setting_set_float(s, p->value) == CONFIG_TRUE;
  }
  char *buf = NULL;
  size_t len = 0;
  FILE *mf = ok ? open_memstream(&buf, &len) : NULL;
  if (mf) {
    config_write(&cfg, mf);
    ok = fclose(mf) == 0;
  }
  config_destroy(&cfg);
  if (!mf || !ok) {
    free(buf);
    return NULL;
  }
  return buf;
}

/* The metrics at the fitted parameters, train and held out, and the calibrated config. */
static int finish(problem *pb, sits_err *err) {
  sits_thermal_cal *c = pb->c;
  sits_replay *rep;
  int rc = evaluate(pb, pb->best_x, &rep, err);
  double *meas = rc == SITS_OK ? malloc((pb->n_rows + 1) * sizeof *meas) : NULL;
  if (rc == SITS_OK && !meas)
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t k = 0; rc == SITS_OK && k < c->n_sensors; k++) {
    int col = sits_trace_column(pb->trace, c->sensor[k]);
    for (size_t row = 0; row < pb->n_rows; row++)
      meas[row] = sits_trace_at(pb->trace, row, (size_t)col);
    sits_fit_metrics_compute(rep->sim_c + k * pb->n_rows, meas, pb->hold_lo, pb->hold_hi,
                             &c->holdout[k]);
    for (size_t row = pb->hold_lo; row < pb->n_rows; row++) /* the rest: the training rows */
      if (row < pb->hold_hi || row >= pb->use_hi)
        meas[row] = NAN;
    sits_fit_metrics_compute(rep->sim_c + k * pb->n_rows, meas, 0, pb->n_rows, &c->train[k]);
  }
  free(meas);
  sits_replay_free(rep);
  if (rc == SITS_OK && !(c->config_text = calibrated_text(pb)))
    rc = sits__fail(err, SITS_EINTERNAL, "cannot build the calibrated config");
  return rc;
}

/* One calibration as the options say (no trip scan); its training cost into *cost. */
static int calibrate_once(const sits_thermal_cal_opts *o, sits_thermal_cal *c, double *cost,
                          size_t n_starts, sits_err *err) {
  memset(c, 0, sizeof *c);
  c->train_fraction = o->train_fraction > 0 ? o->train_fraction : 0.7;
  c->fit_ambient = o->fit_ambient, c->fit_initial = o->fit_initial;
  c->fit_leakage = o->fit_leakage;
  c->keep_network = o->keep_network;
  c->fit_capacitance = o->keep_network && o->fit_capacitance;
  problem pb = {.o = o, .c = c, .n_starts = n_starts};
  int rc = setup(&pb, err);
  if (rc == SITS_OK)
    rc = fit(&pb, err);
  if (rc == SITS_OK)
    rc = finish(&pb, err);
  if (rc == SITS_OK)
    plausibility(&pb);
  c->evaluations = pb.evaluations;
  *cost = pb.cost;
  sits_scenario_free(pb.sc);
  sits_trace_free((sits_trace *)pb.trace);
  free(pb.loaded_initial), free(pb.initial), free(pb.best_x);
  if (rc)
    sits_thermal_cal_release(c);
  return rc;
}

#define TRIP_SCAN_K 15.0 /* the coarse scan's reach, K either way */
#define MAX_SHIFTED (SITS__MAX_FANS * SITS__FAN_TRIPS)

/* The trips the scan shifts: every fan with trips that the trace does not drive, as
 * `platform.fans.[f].trips.[t].temp_c` paths with their values. */
typedef struct trip_set {
  size_t n;
  char path[MAX_SHIFTED][96];
  double temp_c[MAX_SHIFTED];
} trip_set;

static int governed_trips(const sits_thermal_cal_opts *o, trip_set *ts, sits_err *err) {
  sits_trace *trace = NULL;
  sits_scenario *sc = NULL;
  sits_replay *rep = NULL;
  ts->n = 0;
  int rc = sits_trace_read(o->trace_path, &o->trace, &trace, err);
  if (rc == SITS_OK)
    rc = sits__cal_scenario(o, o->sets, o->n_sets, &sc, err);
  if (rc == SITS_OK)
    rc = sits_replay_run_trace(sc, trace, o->trace_path, NULL, &rep, err);
  for (size_t f = 0; rc == SITS_OK && f < sits_scenario_fan_count(sc); f++)
    for (size_t k = 0;
         !rep->fan_traced[f] && k < sits__scenario_fan(sc, f)->n_trips && ts->n < MAX_SHIFTED;
         k++) {
      snprintf(ts->path[ts->n], sizeof ts->path[0], "platform.fans.[%zu].trips.[%zu].temp_c", f, k);
      ts->temp_c[ts->n++] = sits__scenario_fan(sc, f)->trip_c[k];
    }
  if (rc == SITS_OK && ts->n == 0)
    rc = sits__fail(err, SITS_EINPUT,
                    "--fit trips: no fan here is switched by its trips (a platform fan with trips "
                    "and no trace column: replay.fans or util_frac.<fan>)");
  sits_replay_free(rep);
  sits_scenario_free(sc);
  sits_trace_free(trace);
  return rc;
}

/* The worst sensor's RMSE of @p m (sensors without one passed over; NAN if none has one). */
static double worst_rmse(const sits_thermal_cal *c, const sits_fit_metrics *m) {
  double w = NAN;
  for (size_t k = 0; k < c->n_sensors; k++)
    if (!isnan(m[k].rmse) && !(m[k].rmse <= w))
      w = m[k].rmse;
  return w;
}

/* One trial of a trip scan: the calibration with the governed trips moved by @p offset, from
 * @p n_starts starts; its figures into *fig and its cost into *cost (INFINITY where it fits
 * nothing finite). @p keep: the calibration is left in *out (else released). */
static int trip_trial(const sits_thermal_cal_opts *o, const trip_set *ts, const char **sets,
                      char (*text)[128], double offset, size_t n_starts, sits_thermal_cal *out,
                      bool keep, sits_thermal_trip_fig *fig, double *cost, sits_err *err) {
  for (size_t j = 0; j < ts->n; j++) {
    snprintf(text[j], sizeof text[0], "%s=%.6f", ts->path[j], ts->temp_c[j] + offset);
    sets[o->n_sets + j] = text[j];
  }
  sits_thermal_cal_opts oo = *o;
  oo.sets = sets, oo.n_sets = o->n_sets + ts->n, oo.fit_trips = false;
  *fig = (sits_thermal_trip_fig){offset, NAN, NAN, n_starts};
  *cost = INFINITY;
  int r = calibrate_once(&oo, out, cost, n_starts, err);
  if (r == SITS_OK) {
    fig->train_rmse_c = worst_rmse(out, out->train);
    fig->holdout_rmse_c = worst_rmse(out, out->holdout);
    if (!keep)
      sits_thermal_cal_release(out);
  }
  return r;
}

#define TRIP_FINALISTS 5 /* the coarse scan's best offsets fitted from every start */

/* The trip scan (sits_thermal_cal_opts.fit_trips): a calibration from the scenario's values
 * (one start) at each offset of the governed fans' trips, -15 to +15 K by 1 K; the five
 * offsets of least training cost then fitted from every start, and the least of those is
 * the result. */
static int trip_scan(const sits_thermal_cal_opts *o, sits_thermal_cal *c, sits_err *err) {
  trip_set *ts = malloc(sizeof *ts);
  sits_thermal_cal *trial = malloc(sizeof *trial);
  const char **sets = malloc((o->n_sets + MAX_SHIFTED + 1) * sizeof *sets);
  char(*text)[128] = malloc(MAX_SHIFTED * sizeof *text);
  int rc = ts && trial && sets && text ? governed_trips(o, ts, err)
                                       : sits__fail(err, SITS_ENOMEM, "out of memory");
  enum { N_COARSE = 2 * (int)TRIP_SCAN_K + 1 };
  double coarse_cost[N_COARSE], best_cost = INFINITY, best_offset = NAN;
  size_t evaluations = 0, starts = 0, n_scan = 0, total = N_COARSE + TRIP_FINALISTS;
  sits_thermal_trip_fig scan[SITS_THERMAL_CAL_MAX_TRIP_SCAN];
  sits_err last = {0};
  memset(c, 0, sizeof *c);
  for (size_t k = 0; rc == SITS_OK && k < o->n_sets; k++)
    sets[k] = o->sets[k];
  for (int s = 0; rc == SITS_OK && s < N_COARSE; s++) { /* the coarse scan */
    sits_err e = {0};
    int r = trip_trial(o, ts, sets, text, -TRIP_SCAN_K + s, 1, trial, false, &scan[n_scan],
                       &coarse_cost[s], &e);
    evaluations += trial->evaluations, starts += trial->starts, n_scan++;
    if (r == SITS_ESOLVER)
      last = e; /* this offset fits nothing finite: the others may */
    else if (r)
      rc = r, *err = e;
    if (o->progress)
      o->progress(n_scan, total, -TRIP_SCAN_K + s, o->progress_user);
  }
  for (int f = 0; rc == SITS_OK && f < TRIP_FINALISTS; f++) { /* the finalists, every start */
    int pick = -1;
    for (int s = 0; s < N_COARSE; s++)
      if (isfinite(coarse_cost[s]) && (pick < 0 || coarse_cost[s] < coarse_cost[pick]))
        pick = s;
    if (pick < 0)
      break;
    coarse_cost[pick] = INFINITY; /* taken */
    double cost, offset = -TRIP_SCAN_K + pick;
    sits_err e = {0};
    int r = trip_trial(o, ts, sets, text, offset, 3, trial, true, &scan[n_scan], &cost, &e);
    evaluations += trial->evaluations, starts += trial->starts, n_scan++;
    if (r == SITS_OK && cost < best_cost) { /* kept as the result */
      sits_thermal_cal_release(c);
      *c = *trial;
      evaluations -= trial->evaluations, starts -= trial->starts; /* counted in c */
      best_cost = cost, best_offset = offset;
    } else if (r == SITS_OK)
      sits_thermal_cal_release(trial);
    else if (r == SITS_ESOLVER)
      last = e;
    else if (r)
      rc = r, *err = e;
    if (o->progress)
      o->progress(n_scan, total, offset, o->progress_user);
  }
  if (rc == SITS_OK && isnan(best_offset))
    rc = last.msg[0] ? (*err = last, SITS_ESOLVER)
                     : sits__fail(err, SITS_ESOLVER, "the trip scan fitted no offset");
  if (rc == SITS_OK) {
    c->fit_trips = true;
    c->trip_offset_c = best_offset;
    c->n_trip_scan = n_scan;
    memcpy(c->trip_scan, scan, n_scan * sizeof *scan);
    c->evaluations += evaluations, c->starts += starts;
    if (fabs(best_offset) >= TRIP_SCAN_K && c->n_flags < sizeof c->flags / sizeof c->flags[0])
      snprintf(c->flags[c->n_flags++], sizeof c->flags[0],
               "the fans' trips moved by %+.0f K, the end of the scan (+-%.0f K): the trace "
               "does not place the switching, or the fan is not what it shows",
               best_offset, TRIP_SCAN_K);
  } else
    sits_thermal_cal_release(c);
  free(ts), free(trial), free(sets), free(text);
  return rc;
}

int sits__cal_scenario(const sits_thermal_cal_opts *o, const char *const *sets, size_t n_sets,
                       sits_scenario **out, sits_err *err) {
  return o->scenario_text
             ? sits_scenario_load_text(o->scenario_text, o->scenario_path, sets, n_sets, out, err)
             : sits_scenario_load(o->scenario_path, sets, n_sets, out, err);
}

int sits_calibrate_thermal(const sits_thermal_cal_opts *o, sits_thermal_cal *c, sits_err *err) {
  if (o->fit_trips)
    return trip_scan(o, c, err);
  double cost;
  return calibrate_once(o, c, &cost, 3, err);
}

int sits__calibrate_thermal_warm(const sits_thermal_cal_opts *o, sits_thermal_cal *c,
                                 sits_err *err) {
  double cost;
  return calibrate_once(o, c, &cost, 1, err);
}

void sits_thermal_cal_release(sits_thermal_cal *c) {
  free(c->config_text);
  c->config_text = NULL;
}

/* How many sensors before @p k read the same column (its JSON key's number, column#2...). */
static size_t sensor_nth(const sits_thermal_cal *c, size_t k) {
  size_t nth = 0;
  for (size_t q = 0; q < k; q++)
    nth += strcmp(c->sensor[q], c->sensor[k]) == 0;
  return nth;
}

static void metrics_json(FILE *f, const sits_thermal_cal *c, const sits_fit_metrics *m) {
  fputc('{', f);
  for (size_t k = 0; k < c->n_sensors; k++) {
    fprintf(f, "%s", k ? "," : "");
    sits__json_key_nth(f, c->sensor[k], sensor_nth(c, k));
    fputs(":{", f);
    sits__json_metrics(f, &m[k], "c");
    fputc('}', f);
  }
  fputc('}', f);
}

/* The parameters' standard errors, ranges and correlations ("uncertainty", "correlation"). */
static void json_uncertainty(FILE *f, const sits_thermal_cal *c) {
  fputs(",\"uncertainty\":{", f);
  for (size_t k = 0; k < c->n_params; k++) {
    const sits_thermal_param *p = &c->params[k];
    fprintf(f, "%s", k ? "," : "");
    sits__json_str(f, p->path);
    fputs(":{\"std_err\":", f);
    sits__json_num(f, p->std_err);
    fputs(",\"lo\":", f);
    sits__json_num(f, p->lo);
    fputs(",\"hi\":", f);
    sits__json_num(f, p->hi);
    fprintf(f, ",\"at_bound\":%s}", p->at_bound ? "true" : "false");
  }
  fputs("},\"correlation\":[", f);
  for (size_t k = 0; k < c->n_params; k++) {
    fputs(k ? ",[" : "[", f);
    for (size_t j = 0; j < c->n_params; j++) {
      fputs(j ? "," : "", f);
      sits__json_num(f, c->corr[k * c->n_params + j]);
    }
    fputc(']', f);
  }
  fputc(']', f);
}

/* The network order's candidates (--orders). */
static void json_orders(FILE *f, const sits_thermal_cal *c) {
  fprintf(f, ",\"order\":%d,\"board\":%s,\"orders\":[", c->order, c->board ? "true" : "false");
  for (size_t k = 0; k < c->n_orders; k++) {
    const sits_thermal_order_fig *o = &c->orders[k];
    fprintf(f, "%s{\"order\":%d,\"board\":%s,\"train_rmse_c\":", k ? "," : "", o->order,
            o->board ? "true" : "false");
    sits__json_num(f, o->train_rmse_c);
    fputs(",\"holdout_rmse_c\":", f);
    sits__json_num(f, o->holdout_rmse_c);
    if (!isnan(o->kfold_rmse_c)) {
      fputs(",\"kfold_rmse_c\":", f);
      sits__json_num(f, o->kfold_rmse_c);
    }
    if (!isnan(o->validation_rmse_c)) {
      fputs(",\"validation_rmse_c\":", f);
      sits__json_num(f, o->validation_rmse_c);
    }
    fprintf(f, ",\"flags\":%zu}", o->flags);
  }
  fputc(']', f);
}

/* The trip scan (--fit ...,trips). */
static void json_trip_scan(FILE *f, const sits_thermal_cal *c) {
  fputs(",\"trip_offset_c\":", f);
  sits__json_num(f, c->trip_offset_c);
  fputs(",\"trip_scan\":[", f);
  for (size_t k = 0; k < c->n_trip_scan; k++) {
    const sits_thermal_trip_fig *s = &c->trip_scan[k];
    fprintf(f, "%s{\"offset_c\":", k ? "," : "");
    sits__json_num(f, s->offset_c);
    fputs(",\"train_rmse_c\":", f);
    sits__json_num(f, s->train_rmse_c);
    fputs(",\"holdout_rmse_c\":", f);
    sits__json_num(f, s->holdout_rmse_c);
    fprintf(f, ",\"starts\":%zu}", s->starts);
  }
  fputc(']', f);
}

/* The 95 % band over the held-out rows. */
static void json_band(FILE *f, const sits_thermal_cal *c) {
  fputs(",\"band\":{", f);
  for (size_t k = 0; k < c->n_sensors; k++) {
    fputs(k ? "," : "", f);
    sits__json_key_nth(f, c->sensor[k], sensor_nth(c, k));
    fputs(":{\"level\":0.95,\"residual_q95_c\":", f);
    sits__json_num(f, c->residual_q95_c[k]);
    fputs(",\"training_q95_c\":", f);
    sits__json_num(f, c->training_q95_c[k]);
    fputs(",\"forecast_q95_c\":", f);
    sits__json_num(f, c->forecast_q95_c[k]);
    fputs(",\"holdout_coverage\":", f);
    sits__json_num(f, c->band_coverage[k]);
    fputs(",\"holdout_mean_half_width_c\":", f);
    sits__json_num(f, c->band_mean_half_width_c[k]);
    fputc('}', f);
  }
  fputs("},\"band_method\":\"sqrt(residual_q95^2 + (1.96 sigma)^2), residual_q95 the wider of "
        "the training and forecast residuals' 95th percentiles, sigma the parameters' "
        "covariance (their ranges as a uniform prior) propagated linearly\"",
        f);
}

/* The power-timing candidates (--fit auto). */
static void json_timing(FILE *f, const sits_thermal_cal *c) {
  fputs(",\"power_columns\":", f);
  sits__json_str(f, c->power_columns);
  fputs(",\"power_timing\":[", f);
  for (size_t k = 0; k < c->n_timings; k++) {
    const sits_thermal_timing_fig *t = &c->timings[k];
    fprintf(f, "%s{\"suffix\":", k ? "," : "");
    sits__json_str(f, t->suffix);
    fprintf(f, ",\"timing\":\"%s\",\"train_rmse_c\":", t->interval_mean ? "interval_mean" : "hold");
    sits__json_num(f, t->train_rmse_c);
    fputs(",\"holdout_rmse_c\":", f);
    sits__json_num(f, t->holdout_rmse_c);
    fputs(",\"validation_rmse_c\":", f);
    sits__json_num(f, t->validation_rmse_c);
    fprintf(f, ",\"chosen\":%s}", k == c->timing_chosen ? "true" : "false");
  }
  fputc(']', f);
  if (!c->n_structures)
    return;
  fputs(",\"structure\":[", f);
  for (size_t k = 0; k < c->n_structures; k++) {
    const sits_thermal_structure_fig *t = &c->structures[k];
    fputs(k ? ",{\"candidate\":" : "{\"candidate\":", f);
    sits__json_str(f, t->what);
    fputs(",\"train_rmse_c\":", f);
    sits__json_num(f, t->train_rmse_c);
    fputs(",\"validation_rmse_c\":", f);
    sits__json_num(f, t->validation_rmse_c);
    fprintf(f, ",\"chosen\":%s}", k == c->structure_chosen ? "true" : "false");
  }
  fputc(']', f);
}

int sits_thermal_cal_write_json(const sits_thermal_cal *c, FILE *f) {
  const char *what[] = {
      c->keep_network ? NULL : "thermal", c->fit_capacitance ? "capacitance" : NULL,
      c->fit_ambient ? "ambient" : NULL,  c->fit_initial ? "initial" : NULL,
      c->fit_leakage ? "leakage" : NULL,  c->fit_trips ? "trips" : NULL,
      c->fit_auto ? "auto" : NULL};
  fputs("{\"schema_version\":1,\"fit\":[", f);
  for (size_t k = 0, n = 0; k < sizeof what / sizeof *what; k++)
    if (what[k])
      fprintf(f, "%s\"%s\"", n++ ? "," : "", what[k]);
  fputs("],\"parameters\":{", f);
  for (size_t k = 0; k < c->n_params; k++) {
    fprintf(f, "%s", k ? "," : "");
    sits__json_str(f, c->params[k].path);
    fputc(':', f);
    sits__json_num(f, c->params[k].value);
  }
  fputs("},\"train\":", f);
  metrics_json(f, c, c->train);
  fputs(",\"holdout\":", f);
  metrics_json(f, c, c->holdout);
  fprintf(f, ",\"train_fraction\":%.10g,\"converged\":%s,\"rcond\":", c->train_fraction,
          c->converged ? "true" : "false");
  sits__json_num(f, c->rcond);
  fputs(",\"unidentifiable\":[", f);
  int first = 1;
  for (size_t k = 0; c->unidentifiable && k < c->n_params; k++)
    if (c->params[k].weak_share > 0.1) {
      fputs(first ? "" : ",", f), first = 0;
      sits__json_str(f, c->params[k].path);
    }
  fputc(']', f);
  json_uncertainty(f, c);
  fputs(",\"flags\":[", f);
  for (size_t k = 0; k < c->n_flags; k++) {
    fputs(k ? "," : "", f);
    sits__json_str(f, c->flags[k]);
  }
  fputc(']', f);
  if (c->n_orders)
    json_orders(f, c);
  if (c->fit_trips)
    json_trip_scan(f, c);
  if (c->has_band)
    json_band(f, c);
  if (c->fit_auto)
    json_timing(f, c);
  if (c->physics_bounds) {
    fputs(",\"bounds\":{\"method\":\"physics\",\"power_max_w\":", f);
    sits__json_num(f, c->power_max_w);
    fputs(",\"power_mean_w\":", f);
    sits__json_num(f, c->power_mean_w);
    fputc('}', f);
  }
  fprintf(f, ",\"starts\":%zu,\"evaluations\":%zu,\"rows\":%zu,\"train_rows\":%zu}\n", c->starts,
          c->evaluations, c->n_rows, c->n_train);
  return ferror(f) ? SITS_EIO : SITS_OK;
}

int sits_thermal_cal_write_config(const sits_thermal_cal *c, const char *path, sits_err *err) {
  sits_output *o = sits_output_open(path, err);
  return o ? sits_output_close(o, fputs(c->config_text, sits_output_file(o)) >= 0, err) : SITS_EIO;
}

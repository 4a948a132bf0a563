/*
 * text_summary.c - the summaries a person reads (sits_text.h): a run's (end reason,
 * temperatures, power, energy balance, items, battery, throttling, constraints, verdict)
 * and a replay's (per sensor metrics). The JSON forms are in outputs/output_json.c and
 * traces/replay.c.
 */
#include "sits_text.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "result_internal.h"
#include "scenario_internal.h"

static void text_constraint(FILE *f, const char *key, const char *unit, const sits_constraint *c) {
  if (c->set)
    fprintf(f, "  %-22s %10.3f %-3s (limit %.3f)  %s\n", key, c->value, unit, c->limit,
            c->ok ? "ok" : "VIOLATED");
}

/* Each node's peak temperature. */
static void text_peaks(FILE *f, const sits_thermal *th, const sits_result *r) {
  /* every node up to 24; beyond (floorplans), the 12 hottest: all of them are in the JSON */
  size_t shown = r->n_nodes <= 24 ? r->n_nodes : 12;
  if (shown == r->n_nodes)
    fprintf(f, "peak temperature by node:\n");
  else
    fprintf(f, "peak temperature, the %zu hottest of %zu nodes (all in --summary json):\n", shown,
            r->n_nodes);
  bool *done = calloc(r->n_nodes, sizeof *done);
  for (size_t k = 0; k < shown; k++) {
    size_t i = k;
    if (shown < r->n_nodes) { /* the hottest not shown yet */
      i = r->n_nodes;
      for (size_t j = 0; done && j < r->n_nodes; j++)
        if (!done[j] && (i == r->n_nodes || r->peak_temp_c[j] > r->peak_temp_c[i]))
          i = j;
      if (i == r->n_nodes)
        break;
      done[i] = true;
    }
    fprintf(f, "  %-22s %10.3f C%s\n", sits_thermal_name(th, (int)i), r->peak_temp_c[i],
            sits_thermal_is_junction(th, (int)i) ? "  (junction)" : "");
  }
  free(done);
}

/* The constraints, each against its limit, and the verdict. */
static void text_verdict(FILE *f, const sits_summary *s) {
  if (s->tdp.set || s->junction.set || s->latency.set || s->energy_per_item.set ||
      s->battery_life.set) {
    fprintf(f, "constraints:\n");
    text_constraint(f, "tdp_budget_w", "W", &s->tdp);
    text_constraint(f, "max_junction_temp_c", "C", &s->junction);
    text_constraint(f, "max_latency_ms", "ms", &s->latency);
    text_constraint(f, "max_energy_per_item_mj", "mJ", &s->energy_per_item);
    if (s->battery_life.set)
      fprintf(f, "  %-22s %10.1f s   (at least %.1f)  %s\n", "min_battery_life_s",
              s->battery_life.value, s->battery_life.limit, s->battery_life.ok ? "ok" : "VIOLATED");
  }
  bool board_ended = s->end_reason == SITS_END_CRITICAL_TEMP || s->end_reason == SITS_END_BROWNOUT;
  fprintf(f, "verdict               %s%s%s\n", s->ok ? "ok" : "violated",
          board_ended ? ": the board ended the run, " : "",
          board_ended ? sits_end_reason_name(s->end_reason) : "");
}

/* The 95 % band of a run on fitted parameters. */
static void text_band(FILE *f, const sits_result *r) {
  const sits_summary *s = &r->summary;
  if (!r->band.set)
    return;
  fprintf(f, "95 %% band             max junction temp %.3f +- %.3f C", s->max_junction_temp_c,
          r->band.max_junction_temp_half_width_c);
  if (!isnan(r->band.p_junction_ok))
    fprintf(f, ", P(junction limit holds) %.3f", r->band.p_junction_ok);
  if (!isnan(s->time_to_throttle_s) && !isnan(r->band.time_to_throttle_half_width_s))
    fprintf(f, ", first throttle %.1f +- %.1f s", s->time_to_throttle_s,
            r->band.time_to_throttle_half_width_s);
  if (s->has_battery && !isnan(r->band.runtime_half_width_s))
    fprintf(f, ", runtime %.0f +- %.0f s", s->runtime_s, r->band.runtime_half_width_s);
  if (!isnan(r->band.final_junction_temp_half_width_c))
    fprintf(f, ", final junction temp %.3f +- %.3f C", s->final_junction_temp_c,
            r->band.final_junction_temp_half_width_c);
  fprintf(f, " (%zu fitted parameters, residual q95 %.3f C)\n", r->band.n_params,
          r->band.residual_q95_c);
}

/* What the solver did. */
static void text_solver(FILE *f, const sits_result *r) {
  if (r->stats.method && strcmp(r->stats.method, "exponential") == 0)
    fprintf(f,
            "solver                exponential (ETD2RK), %ld steps, %ld RHS evaluations, %ld "
            "Jacobians, %ld phi computations\n",
            r->stats.steps, r->stats.rhs_evals, r->stats.jac_evals, r->stats.lin_setups);
  else if (r->stats.method && strcmp(r->stats.method, "cvode-ahead, then exponential") == 0)
    fprintf(f,
            "solver                CVODE stepping past ticks, then exponential (ETD2RK) once the "
            "OPPs changed every few ticks, %ld steps, %ld RHS evaluations, %ld Jacobians and "
            "phi computations\n",
            r->stats.steps, r->stats.rhs_evals, r->stats.jac_evals + r->stats.lin_setups);
  else if (r->stats.method && strcmp(r->stats.method, "grid-cvode and exponential") == 0)
    fprintf(f,
            "solver                CVODE on the layered-grid solver stepping past ticks, and "
            "the exponential path in the network's modes while the OPPs changed every few "
            "ticks, %ld steps, %ld RHS evaluations, %ld grid setups and phi computations\n",
            r->stats.steps, r->stats.rhs_evals, r->stats.lin_setups);
  else if (r->stats.method && strcmp(r->stats.method, "grid-cvode") == 0)
    fprintf(f,
            "solver                CVODE on the layered-grid solver, stepping past ticks, %ld "
            "steps, %ld RHS evaluations, %ld grid setups\n",
            r->stats.steps, r->stats.rhs_evals, r->stats.lin_setups);
  else
    fprintf(f, "solver                CVODE%s, %ld steps, %ld RHS evaluations, %ld Jacobians, %s\n",
            r->stats.method && strcmp(r->stats.method, "cvode-ahead") == 0 ? ", stepping past ticks"
                                                                           : "",
            r->stats.steps, r->stats.rhs_evals, r->stats.jac_evals,
            r->stats.sparse ? "KLU" : "dense");
  if (r->ticks_skipped)
    fprintf(f,
            "governor ticks        %zu evaluated, %zu skipped (proved to change nothing: "
            "solver.skip_quiet_ticks)\n",
            r->ticks_evaluated, r->ticks_skipped);
}

/* The scenario's assumptions, a line each under a heading (none: nothing). */
static void text_assumptions(FILE *f, const sits_scenario *sc) {
  size_t n = sc ? sits_scenario_assumption_count(sc) : 0;
  if (n)
    fprintf(f, "assumptions:\n");
  for (size_t k = 0; k < n; k++)
    fprintf(f, "  - %s\n", sits_scenario_assumption(sc, k));
}

int sits_write_summary_text(const sits_scenario *sc, const sits_result *r, FILE *f) {
  const sits_summary *s = &r->summary;
  const sits_thermal *th = sits_scenario_thermal(sc);
  fprintf(f, "end reason            %s after %.3f s\n", sits_end_reason_name(s->end_reason),
          s->simulated_s);
  fprintf(f, "max junction temp     %.3f C\n", s->max_junction_temp_c);
  fprintf(f, "final junction temp   %.3f C\n", s->final_junction_temp_c);
  fprintf(f, "power                 avg %.3f W, peak %.3f W, peak %.0f-s average %.3f W\n",
          s->avg_power_w, s->peak_power_w, sits_scenario_limits(sc)->tdp_window_s, s->tdp_w);
  if (s->battery_heat_j != 0) /* the pack's heat enters the network besides the board's */
    fprintf(f,
            "energy                %.3f J in + %.3f J of the pack's heat = %.3f J stored + %.3f "
            "J to ambient (balance error %.1e)\n",
            s->energy_j, s->battery_heat_j, s->energy_stored_j, s->energy_to_ambient_j,
            s->energy_balance_rel);
  else
    fprintf(f,
            "energy                %.3f J in = %.3f J stored + %.3f J to ambient "
            "(balance error %.1e)\n",
            s->energy_j, s->energy_stored_j, s->energy_to_ambient_j, s->energy_balance_rel);
  size_t nd;
  const sits_domain *dom = sits_scenario_domains(sc, &nd);
  if (nd) {
    fprintf(f, "energy by domain     ");
    for (size_t d = 0; d < nd; d++)
      fprintf(f, " %s %.3f J%s", dom[d].name, s->domain_energy_j[d], d + 1 < nd ? "," : "\n");
  }
  text_peaks(f, th, r);
  if (!isnan(s->items_done))
    fprintf(f, "items                 %.1f done, %.3f mJ each, latency %.3f ms, deficit %.2f%%\n",
            s->items_done, s->energy_per_item_mj, s->latency_ms, 100 * s->deficit_fraction);
  if (s->has_battery)
    fprintf(
        f,
        "battery               SOC %.4f at the end, runtime %.1f s%s, min %.3f V, %.3f Wh drawn\n",
        s->final_soc, s->runtime_s, s->runtime_estimated ? " (estimated)" : "", s->min_voltage_v,
        s->energy_drawn_wh);
  for (size_t k = 0; k < s->n_fans && k < SITS_MAX_FANS; k++)
    fprintf(f, "fan %-17s duty max %.3f, mean %.3f over the run\n", sits_scenario_fan_name(sc, k),
            s->fan_max_duty[k], s->fan_mean_duty[k]);
  if (!isnan(s->time_to_throttle_s)) /* time_to_throttle_s: the thermal governor's first */
    fprintf(f, "throttling            first at %.3f s, %.1f%% of the time\n", s->time_to_throttle_s,
            100 * s->throttled_fraction);
  else if (s->throttled_fraction > 0) /* below the base OPP by the power cap alone */
    fprintf(f, "throttling            %.1f%% of the time (by the power cap; never thermal)\n",
            100 * s->throttled_fraction);
  text_verdict(f, s);
  text_band(f, r);
  text_assumptions(f, sc);
  text_solver(f, r);
  return ferror(f) ? SITS_EIO : SITS_OK;
}

int sits_replay_write_text(const sits_replay *r, const sits_scenario *sc, FILE *f) {
  fprintf(f, "trace                 %s, %zu samples (%zu malformed lines skipped), %.3f s\n",
          r->trace->format, r->trace->n_rows, r->trace->skipped, r->duration_s);
  for (size_t k = 0; k < r->n_sensors; k++) {
    const sits_fit_metrics *m = &r->sensors[k].m;
    fprintf(f, "%-22s rmse %.3f C, mae %.3f C, max %.3f C, bias %+.3f C, r2 %.3f, n %zu\n",
            r->sensors[k].name, m->rmse, m->mae, m->max_abs_err, m->bias, m->r2, m->n);
    if (r->sensors[k].lag_s > 0)
      fprintf(f, "%-22s read through a %.3g-s first-order lag (replay.sensors.[].lag_s)\n", "",
              r->sensors[k].lag_s);
    if (r->band_c && k < SITS_REPLAY_MAX_BAND_SENSORS)
      fprintf(f, "%-22s 95 %% band: %.1f %% of samples inside, mean half-width %.3f K\n", "",
              100 * r->band_coverage[k], r->band_mean_half_width_c[k]);
  }
  for (size_t p = 0; p < r->n_phases; p++) {
    const sits_replay_phase *ph = &r->phases[p];
    fprintf(f, "phase %-16s %zu times, %.3f s, %.3f J measured in\n", ph->label, ph->instances,
            ph->duration_s, ph->energy_j);
    for (size_t k = 0; k < r->n_sensors; k++)
      fprintf(f, "  %-20s rmse %.3f C, bias %+.3f C, peak %.3f C measured, %.3f C simulated\n",
              r->sensors[k].name, ph->m[k].rmse, ph->m[k].bias, ph->peak_measured_c[k],
              ph->peak_simulated_c[k]);
  }
  text_assumptions(f, sc);
  return ferror(f) ? SITS_EIO : SITS_OK;
}

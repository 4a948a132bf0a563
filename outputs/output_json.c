/* output_json.c - Summary and Steady JSON, the text summary, and the temp-file helper. */
#define _POSIX_C_SOURCE 200809L
#include "result_internal.h"
#include "status_internal.h"
#include "scenario_internal.h"
#include "sits_writers.h"
#include "writer_impl.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ,"key":number */
static void json_kv(FILE *f, const char *key, double v) {
  fprintf(f, ",\"%s\":", key);
  sits__json_num(f, v);
}

/* ,"key":{"<node>":number,...} */
static void json_by_node(FILE *f, const char *key, const sits_thermal *th, const double *v,
                         size_t n) {
  fprintf(f, ",\"%s\":{", key);
  for (size_t i = 0; i < n; i++) {
    fputs(i ? "," : "", f);
    sits__json_str(f, sits_thermal_name(th, (int)i));
    fputc(':', f);
    sits__json_num(f, v[i]);
  }
  fputc('}', f);
}

static void json_constraint(FILE *f, const char *key, const sits_constraint *c, int *first) {
  if (!c->set)
    return;
  fprintf(f, "%s\"%s\":{\"limit\":", *first ? "" : ",", key);
  sits__json_num(f, c->limit);
  json_kv(f, "value", c->value);
  fprintf(f, ",\"ok\":%s}", c->ok ? "true" : "false");
  *first = 0;
}

/* ,"band":{...}: a prediction's 95 % band (sits_band), when set. */
static void json_band(FILE *f, const sits_band *b) {
  if (!b->set)
    return;
  static const char method[] =
      "sqrt(residual_q95^2 + (1.96 sigma)^2), sigma the calibration's parameter covariance "
      "propagated by one secant run per parameter (each moved by its standard error)";
  fputs(",\"band\":{", f);
  fputs("\"level\":", f);
  sits__json_num(f, b->level);
  fprintf(f, ",\"parameters\":%zu", b->n_params);
  json_kv(f, "residual_q95_c", b->residual_q95_c);
  json_kv(f, "max_junction_temp_half_width_c", b->max_junction_temp_half_width_c);
  json_kv(f, "time_to_throttle_half_width_s", b->time_to_throttle_half_width_s);
  json_kv(f, "runtime_half_width_s", b->runtime_half_width_s);
  json_kv(f, "p_junction_ok", b->p_junction_ok);
  json_kv(f, "final_junction_temp_half_width_c", b->final_junction_temp_half_width_c);
  fputs(",\"method\":", f);
  sits__json_str(f, method);
  fputc('}', f);
}

/* "battery": the pack's figures, or null without a pack. */
static void json_battery(FILE *f, const sits_summary *s) {
  if (!s->has_battery) {
    fputs(",\"battery\":null", f);
    return;
  }
  fputs(",\"battery\":{\"final_soc\":", f);
  sits__json_num(f, s->final_soc);
  json_kv(f, "runtime_s", s->runtime_s);
  fprintf(f, ",\"estimated\":%s", s->runtime_estimated ? "true" : "false");
  json_kv(f, "min_voltage_v", s->min_voltage_v);
  json_kv(f, "energy_drawn_wh", s->energy_drawn_wh);
  fputc('}', f);
}

/* "overrides": the --set overrides as { key: value text }. */
static void json_overrides(FILE *f, const sits_scenario *sc) {
  fputs(",\"overrides\":{", f);
  for (size_t k = 0; k < sits_scenario_override_count(sc); k++) {
    const char *o = sits_scenario_override(sc, k), *eq = strchr(o, '=');
    char key[512];
    snprintf(key, sizeof key, "%.*s", eq ? (int)(eq - o) : (int)strlen(o), o);
    fputs(k ? "," : "", f);
    sits__json_str(f, key);
    fputc(':', f);
    sits__json_str(f, eq ? eq + 1 : "");
  }
  fputc('}', f);
}

/* "fans": each fan's largest and mean duty over the run. */
static void json_fans(FILE *f, const sits_scenario *sc, const sits_summary *s) {
  fputs(",\"fans\":{", f);
  for (size_t k = 0; k < s->n_fans && k < SITS_MAX_FANS; k++) {
    fputs(k ? "," : "", f);
    sits__json_str(f, sits_scenario_fan_name(sc, k));
    fputs(":{\"max_duty\":", f);
    sits__json_num(f, s->fan_max_duty[k]);
    json_kv(f, "mean_duty", s->fan_mean_duty[k]);
    fputc('}', f);
  }
  fputc('}', f);
}

/* sits__summary_fields [from, to) as "name":value pairs. */
static void json_fields(FILE *f, const sits_summary *s, size_t from, size_t to) {
  for (size_t k = from; k < to; k++)
    json_kv(f, sits__summary_fields[k].name, sits__summary_value(s, k));
}

/* Where the summary's composite figures go among sits__summary_fields. */
enum { JSON_PEAK_TEMP_AT = 2, JSON_DOMAIN_ENERGY_AT = 5, JSON_BATTERY_AT = 12 };

int sits_write_summary_json(const sits_scenario *sc, const sits_result *r, FILE *f) {
  const sits_summary *s = &r->summary;
  fprintf(f, "{\"schema_version\":1,\"end_reason\":\"%s\"", sits_end_reason_name(s->end_reason));
  json_fields(f, s, 0, JSON_PEAK_TEMP_AT);
  json_by_node(f, "peak_temp_c", sits_scenario_thermal(sc), r->peak_temp_c, r->n_nodes);
  json_kv(f, "final_junction_temp_c", s->final_junction_temp_c);
  json_fields(f, s, JSON_PEAK_TEMP_AT, JSON_DOMAIN_ENERGY_AT);
  size_t nd;
  const sits_domain *dom = sits_scenario_domains(sc, &nd);
  fputs(",\"domain_energy_j\":{", f);
  for (size_t d = 0; d < nd; d++) {
    fputs(d ? "," : "", f);
    sits__json_str(f, dom[d].name);
    fputc(':', f);
    sits__json_num(f, s->domain_energy_j[d]);
  }
  fputc('}', f);
  json_fields(f, s, JSON_DOMAIN_ENERGY_AT, JSON_BATTERY_AT);
  json_battery(f, s);
  fputs(",\"energy_account\":{\"in_j\":", f);
  sits__json_num(f, s->energy_j);
  json_kv(f, "stored_j", s->energy_stored_j);
  json_kv(f, "to_ambient_j", s->energy_to_ambient_j);
  json_kv(f, "battery_heat_j", s->battery_heat_j);
  json_kv(f, "balance_rel_err", s->energy_balance_rel);
  fputs("},\"constraints\":{", f);
  int first = 1;
  json_constraint(f, "tdp_budget_w", &s->tdp, &first);
  json_constraint(f, "max_junction_temp_c", &s->junction, &first);
  json_constraint(f, "max_latency_ms", &s->latency, &first);
  json_constraint(f, "max_energy_per_item_mj", &s->energy_per_item, &first);
  json_constraint(f, "min_battery_life_s", &s->battery_life, &first);
  fprintf(f, "},\"config_hash\":\"%016llx\"", sits_scenario_config_hash(sc));
  json_overrides(f, sc);
  fputs(",\"notes\":[", f);
  for (size_t k = 0; k < sits_scenario_note_count(sc); k++) {
    fputs(k ? "," : "", f);
    sits__json_str(f, sits_scenario_note(sc, k));
  }
  fputc(']', f);
  sits__json_assumptions(f, sc);
  json_fans(f, sc, s);
  json_band(f, &r->band);
  fprintf(f,
          ",\"verdict\":\"%s\",\"solver\":{\"steps\":%ld,\"rhs_evals\":%ld,"
          "\"jac_evals\":%ld,\"lin_setups\":%ld,\"reinits\":%ld,\"err_test_fails\":%ld,"
          "\"linear_solver\":\"%s\",\"method\":\"%s\",\"governor_ticks\":%zu,"
          "\"ticks_skipped\":%zu}}\n",
          s->ok ? "ok" : "violated", r->stats.steps, r->stats.rhs_evals, r->stats.jac_evals,
          r->stats.lin_setups, r->stats.reinits, r->stats.err_test_fails,
          sits__result_linear_solver(r), r->stats.method ? r->stats.method : "cvode",
          r->ticks_evaluated, r->ticks_skipped);
  return ferror(f) ? SITS_EIO : SITS_OK;
}

int sits_write_steady_json(const sits_scenario *sc, const sits_steady_state *st, FILE *f) {
  fprintf(f, "{\"schema_version\":1,\"runaway\":%s", st->runaway ? "true" : "false");
  json_by_node(f, "temp_c", sits_scenario_thermal(sc), st->temp_c, st->n);
  json_kv(f, "max_junction_temp_c", st->max_junction_temp_c);
  size_t nd;
  const sits_domain *dom = sits_scenario_domains(sc, &nd);
  fputs(",\"power_w\":{\"total\":", f);
  sits__json_num(f, st->total_power_w);
  for (size_t d = 0; d < nd; d++)
    json_kv(f, dom[d].name, st->domain_power_w[d]);
  fputc('}', f);
  json_kv(f, "ambient_c", st->ambient_c);
  if (sits_scenario_battery(sc)) /* the pack's heat in its node (0 with none) */
    json_kv(f, "battery_heat_w", st->battery_heat_w);
  fputs(",\"freq_mhz\":{", f);
  for (size_t d = 0; d < nd; d++) {
    fprintf(f, "%s", d ? "," : "");
    sits__json_str(f, dom[d].name);
    fprintf(f, ":%.10g", dom[d].opp[st->opp[d]].freq_mhz);
  }
  fputc('}', f);
  if (st->n_fans) { /* the fans' steady duties */
    fputs(",\"fans\":{", f);
    for (size_t k = 0; k < st->n_fans && k < SITS_MAX_FANS; k++) {
      fprintf(f, "%s", k ? "," : "");
      sits__json_str(f, sc->fans[k].name);
      fprintf(f, ":{\"duty\":%.10g,\"cycles\":%s}", st->fan_duty[k],
              st->fan_cycles[k] ? "true" : "false");
    }
    fputc('}', f);
  }
  const sits_governor_cfg *g = sits_scenario_governor(sc);
  if (st->thermal_state > 0 && g) { /* the thermal governor held the steady state down */
    fprintf(f, ",\"thermal_limit\":{\"governor\":\"%s\",\"sensor\":",
            g->thermal == SITS_THERMAL_STEP_WISE ? "step_wise" : "power_allocator");
    sits__json_str(f, sits_thermal_name(sits_scenario_thermal(sc), g->sensor_node));
    json_kv(f, g->thermal == SITS_THERMAL_STEP_WISE ? "trip_c" : "control_c",
            g->thermal == SITS_THERMAL_STEP_WISE ? g->trip_c : g->control_c);
    double hold = g->thermal == SITS_THERMAL_STEP_WISE ? g->trip_c : g->control_c;
    fprintf(f, ",\"cooling_state\":%zu,\"held\":%s,\"cycles\":%s", st->thermal_state,
            !st->runaway && st->temp_c[g->sensor_node] <= hold ? "true" : "false",
            st->thermal_cycles ? "true" : "false");
    json_kv(f, "warmer_sensor_c", st->warmer_sensor_c);
    json_kv(f, "unthrottled_sensor_c", st->unthrottled_sensor_c);
    fputc('}', f);
  }
  sits__json_assumptions(f, sc);
  json_band(f, &st->band);
  fputs("}\n", f);
  return ferror(f) ? SITS_EIO : SITS_OK;
}

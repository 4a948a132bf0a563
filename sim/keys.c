/*
 * keys.c - the names every config group may hold, checked on load.
 *
 * An unknown key is an error that names the key, where it is, and the nearest valid
 * name. Groups whose members are user names (node names under `power_w`) or whose
 * support comes with later work (domains, governor, battery, ...) are not descended
 * here; scenario.c handles them.
 */
#include "config_impl.h"
#include "status_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct schema schema;
typedef struct key {
  const char *name;
  const schema *child; /* group: its schema; list of groups: each element's */
} key;
struct schema {
  const char *where; /* the group's dotted name, for messages */
  const key *keys;
};

static const schema node_schema = {"platform.thermal.nodes.[]", (const key[]){{"name", NULL},
                                                                              {"c_j_per_k", NULL},
                                                                              {"initial_c", NULL},
                                                                              {"junction", NULL},
                                                                              {"critical_c", NULL},
                                                                              {NULL, NULL}}};
static const schema link_schema = {
    "platform.thermal.links.[]",
    (const key[]){{"a", NULL}, {"b", NULL}, {"r_k_per_w", NULL}, {NULL, NULL}}};
static const schema opp_schema = {"platform.domains.[].opp.[]", (const key[]){{"freq_mhz", NULL},
                                                                              {"volt_v", NULL},
                                                                              {"power_w", NULL},
                                                                              {"items_per_s", NULL},
                                                                              {NULL, NULL}}};
static const schema domain_schema = {"platform.domains.[]", (const key[]){{"name", NULL},
                                                                          {"node", NULL},
                                                                          {"nodes", NULL},
                                                                          {"fractions", NULL},
                                                                          {"ceff_f", NULL},
                                                                          {"idle_w", NULL},
                                                                          {"max_rate", NULL},
                                                                          {"item", NULL},
                                                                          {"mem_bound", NULL},
                                                                          {"leak_ref_w", NULL},
                                                                          {"leak_ref_v", NULL},
                                                                          {"leak_ref_c", NULL},
                                                                          {"leak_per_k", NULL},
                                                                          {"opp", &opp_schema},
                                                                          {NULL, NULL}}};
static const schema thermal_gov_schema = {"platform.governor.thermal",
                                          (const key[]){{"kind", NULL},
                                                        {"sensor", NULL},
                                                        {"trip_c", NULL},
                                                        {"hysteresis_c", NULL},
                                                        {"switch_on_c", NULL},
                                                        {"control_c", NULL},
                                                        {"sustainable_power_w", NULL},
                                                        {"weights", NULL},
                                                        {NULL, NULL}}};
static const schema cap_schema = {"platform.governor.power_cap",
                                  (const key[]){{"window_s", NULL}, {NULL, NULL}}};
static const schema governor_schema = {"platform.governor",
                                       (const key[]){{"kind", NULL},
                                                     {"period_s", NULL},
                                                     {"up_threshold", NULL},
                                                     {"thermal", &thermal_gov_schema},
                                                     {"power_cap", &cap_schema},
                                                     {"fixed_opp", NULL},
                                                     {NULL, NULL}}};
static const schema rc_schema = {"platform.battery.rc.[]",
                                 (const key[]){{"r_ohm", NULL}, {"c_f", NULL}, {NULL, NULL}}};
static const schema battery_schema = {"platform.battery",
                                      (const key[]){{"series", NULL},
                                                    {"parallel", NULL},
                                                    {"capacity_ah", NULL},
                                                    {"capacity_wh", NULL},
                                                    {"ocv_soc", NULL},
                                                    {"ocv_v", NULL},
                                                    {"ocv_t_c", NULL},
                                                    {"r0_ohm", NULL},
                                                    {"rc", &rc_schema},
                                                    {"r_ea_j_per_mol", NULL},
                                                    {"r_ref_c", NULL},
                                                    {"initial_soc", NULL},
                                                    {"cutoff_v", NULL},
                                                    {"efficiency", NULL},
                                                    {"coulombic_efficiency", NULL},
                                                    {"node", NULL},
                                                    {"name", NULL},
                                                    {"description", NULL},
                                                    {NULL, NULL}}};
static const schema replay_battery_schema = {"replay.battery",
                                             (const key[]){{"current_column", NULL},
                                                           {"voltage_column", NULL},
                                                           {"time_column", NULL},
                                                           {"discharge_positive", NULL},
                                                           {NULL, NULL}}};
static const schema replay_schema = {"replay", (const key[]){{"power", NULL},
                                                             {"sensors", NULL},
                                                             {"ambient_column", NULL},
                                                             {"battery", &replay_battery_schema},
                                                             {NULL, NULL}}};
static const schema hotspot_schema = {"platform.thermal.hotspot", (const key[]){{"flp", NULL},
                                                                                {"config", NULL},
                                                                                {"materials", NULL},
                                                                                {"model", NULL},
                                                                                {"rows", NULL},
                                                                                {"cols", NULL},
                                                                                {"compat", NULL},
                                                                                {"options", NULL},
                                                                                {NULL, NULL}}};
static const schema thermal_schema = {"platform.thermal",
                                      (const key[]){{"nodes", &node_schema},
                                                    {"links", &link_schema},
                                                    {"hotspot", &hotspot_schema},
                                                    {NULL, NULL}}};
static const schema platform_schema = {"platform", (const key[]){{"name", NULL},
                                                                 {"description", NULL},
                                                                 {"thermal", &thermal_schema},
                                                                 {"domains", &domain_schema},
                                                                 {"governor", &governor_schema},
                                                                 {"battery", &battery_schema},
                                                                 {"static_w", NULL},
                                                                 {"static_node", NULL},
                                                                 {NULL, NULL}}};
static const schema phase_schema = {"workload.phases.[]", (const key[]){{"name", NULL},
                                                                        {"duration_s", NULL},
                                                                        {"demand", NULL},
                                                                        {"power_w", NULL},
                                                                        {"ambient_c", NULL},
                                                                        {NULL, NULL}}};
static const schema workload_schema = {"workload", (const key[]){{"name", NULL},
                                                                 {"description", NULL},
                                                                 {"repeat", NULL},
                                                                 {"phases", &phase_schema},
                                                                 {"trace", NULL},
                                                                 {"rate", NULL},
                                                                 {"item", NULL},
                                                                 {NULL, NULL}}};
static const schema solver_schema = {"solver", (const key[]){{"rtol", NULL},
                                                             {"atol_k", NULL},
                                                             {"linear_solver", NULL},
                                                             {"klu_threshold", NULL},
                                                             {NULL, NULL}}};
static const schema scenario_schema = {"the scenario",
                                       (const key[]){{"name", NULL},
                                                     {"description", NULL},
                                                     {"platform", &platform_schema},
                                                     {"workload_profile", NULL},
                                                     {"workload", &workload_schema},
                                                     {"duration_s", NULL},
                                                     {"ambient_c", NULL},
                                                     {"tdp_budget_w", NULL},
                                                     {"tdp_window_s", NULL},
                                                     {"max_junction_temp_c", NULL},
                                                     {"battery_capacity_wh", NULL},
                                                     {"min_battery_life_s", NULL},
                                                     {"max_latency_ms", NULL},
                                                     {"max_energy_per_item_mj", NULL},
                                                     {"sample_period_s", NULL},
                                                     {"replay", &replay_schema},
                                                     {"solver", &solver_schema},
                                                     {NULL, NULL}}};

size_t sits__edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  size_t *row = malloc((lb + 1) * sizeof *row);
  if (!row)
    return (size_t)-1;
  for (size_t j = 0; j <= lb; j++)
    row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j];
      size_t best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best)
        best = up + 1;
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  size_t d = row[lb];
  free(row);
  return d;
}

static const key *find_key(const schema *sc, const char *name) {
  for (const key *k = sc->keys; k->name; k++)
    if (strcmp(k->name, name) == 0)
      return k;
  return NULL;
}

static int unknown(const schema *sc, const config_setting_t *s, sits_err *err) {
  const char *name = config_setting_name(s), *best = NULL;
  size_t best_d = (size_t)-1;
  for (const key *k = sc->keys; k->name; k++) {
    size_t d = sits__edit_distance(name, k->name);
    if (d < best_d)
      best_d = d, best = k->name;
  }
  char where[512], hint[160] = "";
  if (best && best_d <= 1 + strlen(name) / 3)
    snprintf(hint, sizeof hint, " (did you mean '%s'?)", best);
  return sits__fail(err, SITS_EINPUT, "%s: unknown key '%s' in %s%s",
                    sits__where(s, where, sizeof where), name, sc->where, hint);
}

static int check_group(const schema *sc, const config_setting_t *g, sits_err *err);

static int check_child(const key *k, const config_setting_t *s, sits_err *err) {
  if (!k->child)
    return SITS_OK;
  if (config_setting_is_group(s))
    return check_group(k->child, s, err);
  if (config_setting_is_list(s))
    for (int i = 0; i < config_setting_length(s); i++) {
      const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
      if (config_setting_is_group(e)) {
        int rc = check_group(k->child, e, err);
        if (rc)
          return rc;
      }
    }
  return SITS_OK;
}

static int check_group(const schema *sc, const config_setting_t *g, sits_err *err) {
  for (int i = 0; i < config_setting_length(g); i++) {
    const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
    const key *k = find_key(sc, config_setting_name(s));
    if (!k)
      return unknown(sc, s, err);
    int rc = check_child(k, s, err);
    if (rc)
      return rc;
  }
  return SITS_OK;
}

int sits__config_check_keys(const sits__config *c, sits_err *err) {
  return check_group(&scenario_schema, config_root_setting(&c->cfg), err);
}

/*
 * bindings.c - the library as a language binding (the Python package, python/) takes it:
 * texts instead of FILE streams, series as contiguous blocks. Nothing here computes; each
 * call wraps one of the C API's writers or accessors.
 */
#define _POSIX_C_SOURCE 200809L
#include "result_impl.h"
#include "scenario_impl.h"
#include "sits_output.h"
#include "sits_sim.h"
#include "status_impl.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sits_free(void *p) {
  free(p);
}

typedef struct summary_ctx {
  const sits_scenario *sc;
  const sits_result *r;
} summary_ctx;

static int summary_writer(const void *p, FILE *f, sits_err *err) {
  const summary_ctx *c = p;
  (void)err;
  return sits_write_summary_json(c->sc, c->r, f);
}

typedef struct steady_ctx {
  const sits_scenario *sc;
  const sits_steady_state *st;
} steady_ctx;

static int steady_writer(const void *p, FILE *f, sits_err *err) {
  const steady_ctx *c = p;
  (void)err;
  return sits_write_steady_json(c->sc, c->st, f);
}

char *sits_summary_json_text(const sits_scenario *sc, const sits_result *r) {
  summary_ctx c = {sc, r};
  sits_err err = {0};
  return sits_write_text(summary_writer, &c, &err);
}

char *sits_steady_json_text(const sits_scenario *sc, sits_err *err) {
  sits_steady_state st;
  memset(&st, 0, sizeof st);
  steady_ctx c = {sc, &st};
  char *text = sits_steady(sc, &st, err) ? NULL : sits_write_text(steady_writer, &c, err);
  sits_steady_release(&st);
  return text;
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

size_t sits_scenario_fan_count(const sits_scenario *sc) {
  return sc->n_fans;
}

const char *sits_scenario_fan_name(const sits_scenario *sc, size_t k) {
  return k < sc->n_fans ? sc->fans[k].name : NULL;
}

size_t sits_scenario_domain_count(const sits_scenario *sc) {
  size_t n;
  sits_scenario_domains(sc, &n);
  return n;
}

const char *sits_scenario_domain_name(const sits_scenario *sc, size_t d) {
  size_t n;
  const sits_domain *dom = sits_scenario_domains(sc, &n);
  return d < n ? dom[d].name : NULL;
}

size_t sits_scenario_node_count(const sits_scenario *sc) {
  return sits_thermal_node_count(sits_scenario_thermal(sc));
}

const char *sits_scenario_node_name(const sits_scenario *sc, size_t i) {
  const sits_thermal *th = sits_scenario_thermal(sc);
  return i < sits_thermal_node_count(th) ? sits_thermal_name(th, (int)i) : NULL;
}

/*
 * output_csv.c - the CSV result: a header line, then one row per sample:
 *   time_s, temp_c.<node>..., node_power_w.<node>..., power_w.total, power_w.<domain>...,
 *   freq_mhz.<domain>..., battery.soc, battery.voltage_v, battery.current_a (with a battery)
 * Written under a temporary name, then renamed.
 */
#include "sits_output.h"
#include "result_impl.h"
#include "status_impl.h"
#include "scenario_impl.h"
#include "writer_impl.h"

static int write_rows(FILE *f, const sits_scenario *sc, const sits_result *r) {
  const sits_thermal *th = sits_scenario_thermal(sc);
  size_t n = r->n_nodes;
  fputs("time_s", f);
  for (size_t i = 0; i < n; i++)
    fprintf(f, ",temp_c.%s", sits_thermal_name(th, (int)i));
  for (size_t i = 0; i < n; i++)
    fprintf(f, ",node_power_w.%s", sits_thermal_name(th, (int)i));
  size_t nd;
  const sits_domain *dom = sits_scenario_domains(sc, &nd);
  fputs(",power_w.total", f);
  for (size_t d = 0; d < nd; d++)
    fprintf(f, ",power_w.%s", dom[d].name);
  for (size_t d = 0; d < nd; d++)
    fprintf(f, ",freq_mhz.%s", dom[d].name);
  if (r->has_battery)
    fputs(",battery.soc,battery.voltage_v,battery.current_a", f);
  fputc('\n', f);
  for (size_t k = 0; k < r->n_samples; k++) {
    fprintf(f, "%.9g", r->time_s[k]);
    for (size_t i = 0; i < n; i++)
      fprintf(f, ",%.9g", r->temp_c[k * n + i]);
    for (size_t i = 0; i < n; i++)
      fprintf(f, ",%.9g", r->node_power_w[k * n + i]);
    fprintf(f, ",%.9g", r->total_power_w[k]);
    for (size_t d = 0; d < nd; d++)
      fprintf(f, ",%.9g", r->domain_power_w[k * nd + d]);
    for (size_t d = 0; d < nd; d++)
      fprintf(f, ",%.9g", r->freq_mhz[k * nd + d]);
    if (r->has_battery)
      fprintf(f, ",%.9g,%.9g,%.9g", r->batt_soc[k], r->batt_voltage_v[k], r->batt_current_a[k]);
    fputc('\n', f);
  }
  return ferror(f) ? -1 : 0;
}

int sits_write_csv(const sits_scenario *sc, const sits_result *r, const char *path, sits_err *err) {
  sits_output *o = sits_output_open(path, err);
  return o ? sits_output_close(o, write_rows(sits_output_file(o), sc, r) == 0, err) : SITS_EIO;
}

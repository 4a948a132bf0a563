/*
 * steady_state.c - steady temperatures of the time-averaged inputs:
 *   G T = P_avg + g_amb T_amb,avg
 * with P_avg the power per node averaged over [0, duration_s] (HotSpot's convention).
 */
#include "scenario_impl.h"
#include "sits_sim.h"
#include "sits_steady.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sits_steady_release(sits_steady_state *st) {
  if (st) {
    free(st->temp_c);
    memset(st, 0, sizeof *st);
  }
}

static void average_power(const sits_scenario *sc, double *node_w, double *amb_c, double *cols) {
  const sits_schedule *s = sits_scenario_schedule(sc);
  size_t n = sits_thermal_node_count(sits_scenario_thermal(sc));
  sits_schedule_average(s, sits_scenario_duration_s(sc), cols, amb_c);
  memcpy(node_w, sits_scenario_static_power_w(sc), n * sizeof(double));
  for (size_t j = 0; j < sits_schedule_column_count(s); j++)
    if (sits_schedule_column(s, j).kind == SITS_COLUMN_POWER_W)
      node_w[sits_schedule_column(s, j).target] += cols[j];
}

int sits_steady(const sits_scenario *sc, sits_steady_state *st, sits_err *err) {
  const sits_thermal *th = sits_scenario_thermal(sc);
  size_t n = sits_thermal_node_count(th);
  size_t nc = sits_schedule_column_count(sits_scenario_schedule(sc));
  memset(st, 0, sizeof *st);
  int rc = sits_thermal_check_grounded(th, err);
  if (rc)
    return rc;
  st->n = n;
  st->temp_c = calloc(n, sizeof(double));
  double *b = calloc(n, sizeof(double)), *cols = calloc(nc ? nc : 1, sizeof(double));
  gsl_spmatrix *g = sits_thermal_conductance(th);
  if (!st->temp_c || !b || !cols || !g) {
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
    goto done;
  }
  average_power(sc, b, &st->ambient_c, cols);
  for (size_t i = 0; i < n; i++) {
    st->total_power_w += b[i];
    b[i] += sits_thermal_ambient_conductance_w_per_k(th, (int)i) * st->ambient_c;
  }
  rc = sits_steady_solve(g, b, st->temp_c, err);
  bool any = sits_thermal_has_junctions(th);
  st->max_junction_temp_c = -INFINITY;
  for (size_t i = 0; i < n; i++)
    if (!any || sits_thermal_is_junction(th, (int)i))
      st->max_junction_temp_c = fmax(st->max_junction_temp_c, st->temp_c[i]);
done:
  free(b);
  free(cols);
  gsl_spmatrix_free(g);
  if (rc)
    sits_steady_release(st);
  return rc;
}

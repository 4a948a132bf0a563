/*
 * steady.c - steady states of a floorplan network: G T = P + g_amb T_amb through
 * sits_netsteady.h, with HotSpot's leakage loop (docs/hotspot-model.md 4.7, 4.10).
 */
#define _POSIX_C_SOURCE 200809L
#include "hs_impl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sits_netsteady.h"

/* ---- steady state --------------------------------------------------------------------- */

/* G T = P + g_amb T_amb through sits_netsteady.h, factorised once and reused by the leakage
 * loop: a grid by the layered-grid solver (HotSpot's grid network has its structure) unless
 * @p general, other large networks by CHOLMOD (G is SPD), small ones by a dense LU. */
static sits_net_steady *steady_solver(const sits_hs_network *net, bool general, sits_err *err) {
  const sits_hs_params *prm = sits_hs_params_of(net);
  bool grid = sits_hs_model_of(net) == SITS_HS_GRID;
  sits_net_steady_opts o = {.grid_rows = grid ? (size_t)prm->grid_rows : 0,
                            .grid_cols = grid ? (size_t)prm->grid_cols : 0,
                            .grid_layers = grid ? 4 : 0,
                            .cholmod = true,
                            .no_layergrid = general};
  return sits_net_steady_new(sits_hs_thermal(net), &o, err);
}

int sits_hs_steady(const sits_hs_network *net, const double *block_w, bool leakage, double *node_k,
                   sits_err *err) {
  return sits_hs_steady_ex(net, block_w, leakage, false, node_k, err);
}

int sits_hs_steady_ex(const sits_hs_network *net, const double *block_w, bool leakage, bool general,
                      double *node_k, sits_err *err) {
  const sits_floorplan *f = sits_hs_floorplan(net);
  const sits_hs_params *prm = sits_hs_params_of(net);
  size_t n = sits_hs_node_count(net), nb = f->n;
  sits_net_steady *sv = steady_solver(net, general, err);
  double *node_w = malloc(n * sizeof *node_w), *pw = malloc(nb * sizeof *pw);
  double *prev = malloc(n * sizeof *prev), *vals = malloc((4 * nb + 12) * sizeof *vals);
  int rc = !sv                            ? err->code
           : node_w && pw && prev && vals ? SITS_OK
                                          : sits__fail(err, SITS_ENOMEM, "out of memory");
  if (rc == SITS_OK) {
    sits_hs_power_map(net, block_w, node_w);
    rc = sits_net_steady_solve(sv, node_w, prm->ambient_k, node_k, err);
  }
  /* HotSpot's steady leakage loop (docs/hotspot-model.md 4.10) on the silicon block values */
  for (int it = 0; leakage && rc == SITS_OK; it++) {
    if (it == 100) {
      rc = sits__fail(err, SITS_ESOLVER,
                      "thermal runaway: the leakage loop did not settle in 100 "
                      "rounds");
      break;
    }
    sits_hs_block_values(net, node_k, vals);
    for (size_t b = 0; b < nb; b++)
      pw[b] = block_w[b] + sits_hs_leakage_w(net, b, vals[b]);
    sits_hs_power_map(net, pw, node_w);
    memcpy(prev, node_k, n * sizeof *prev);
    if ((rc = sits_net_steady_solve(sv, node_w, prm->ambient_k, node_k, err)))
      break;
    double d = 0;
    for (size_t i = 0; i < n; i++)
      d = fmax(d, fabs(node_k[i] - prev[i]));
    if (d > 500)
      rc = sits__fail(err, SITS_ESOLVER, "thermal runaway: the leakage loop moved by %.0f K", d);
    else if (d < 0.01)
      break;
  }
  sits_net_steady_free(sv);
  free(node_w), free(pw), free(prev), free(vals);
  return rc;
}

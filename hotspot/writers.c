/* writers.c - HotSpot's output files: block values (.steady, .ttrace rows) and the grid
 * layout (.grid.steady) (docs/hotspot-model.md B9, C). */
#define _POSIX_C_SOURCE 200809L
#include "hs_impl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- writers -------------------------------------------------------------------------- */

int sits_hs_write_values(FILE *f, const sits_hs_network *net, const double *vals, int precision) {
  size_t m = 4 * sits_hs_floorplan(net)->n + 12;
  char name[600];
  for (size_t k = 0; k < m; k++)
    fprintf(f, "%s\t%.*f\n", sits_hs_value_name(net, k, name, sizeof name), precision, vals[k]);
  return ferror(f) ? SITS_EIO : SITS_OK;
}

int sits_hs_write_grid(FILE *f, const sits_hs_network *net, const double *node_k, int precision) {
  const sits_hs_params *p = sits_hs_params_of(net);
  size_t rc_n = p->grid_rows * p->grid_cols;
  for (size_t L = 0; L < 4; L++) {
    fprintf(f, "Layer %zu:\n", L);
    for (size_t c = 0; c < rc_n; c++)
      fprintf(f, "%zu\t%.*f\n", c, precision, node_k[L * rc_n + c]);
  }
  return ferror(f) ? SITS_EIO : SITS_OK;
}

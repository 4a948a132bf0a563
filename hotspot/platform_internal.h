/* platform_internal.h - a platform's thermal network from a HotSpot floorplan (platform.c), for
 * the scenario loader (internal). */
#ifndef SITS_HS_PLATFORM_IMPL_H
#define SITS_HS_PLATFORM_IMPL_H

#include "config_internal.h"
#include "sits_thermal.h"

/* A name that stands for several nodes with weights summing to 1: a floorplan block of a
 * grid platform (its silicon cells, in HotSpot's power map). Domains listing the name spread
 * their heat this way; elsewhere the name is an alias of the block's centre cell. */
typedef struct sits__group {
  char *name;
  size_t n;
  int *nodes;
  double *w;
} sits__group;

/** What a floorplan platform builds; the caller owns it, also after a failure. */
typedef struct sits__hs_platform {
  sits_thermal *thermal;
  sits__group *groups; /* grid floorplan blocks */
  size_t n_groups;
  size_t grid_rows, grid_cols; /* a grid: cells L<layer>_<row>_<col> are nodes 0..4RC-1 */
  size_t n_blocks;             /* the floorplan's blocks (block model: nodes 0..n_blocks-1) */
  double width_m, height_m;    /* the floorplan's extent (row 0 is its top edge) */
} sits__hs_platform;

/** Builds the network of a platform's thermal.hotspot group @p hs (file:line errors). */
int sits__hs_platform_load(const config_setting_t *hs, sits__hs_platform *out, sits_err *err);

#endif

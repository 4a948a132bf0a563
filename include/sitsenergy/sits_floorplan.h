/*
 * sits_floorplan.h - HotSpot-compatible floorplan thermal networks (block and grid), built
 * from a floorplan and package parameters as docs/hotspot-model.md describes them.
 *
 * Block model: 4 layers (silicon, TIM "iface_", spreader "hsp_", sink "hsink_") of one node
 * per block, then the 12 package nodes inode_0..11 (SP_W, SP_E, SP_N, SP_S, SINK_C_W,
 * SINK_C_E, SINK_C_N, SINK_C_S, SINK_W, SINK_E, SINK_N, SINK_S). Grid model: rows x cols
 * cells per layer (row 0 at the north edge), node l*R*C + i*C + j, named "L<l>_<i>_<j>",
 * then the same 12 package nodes. Every capacitance carries HotSpot's 0.333 factor.
 *
 * The network goes into a sits_thermal (temperatures in degrees Celsius there); the maps
 * from block powers to node powers and from node temperatures to block temperatures come
 * with it. Two HotSpot quirks of the grid model are switches: the transposed lateral
 * resistances of non-square cells (transpose_lateral) and the unnormalised initial map
 * that starts uncovered cells at 0 K (hotspot_init_map).
 */
#ifndef SITS_FLOORPLAN_H
#define SITS_FLOORPLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "sits_status.h"
#include "sits_thermal.h"

SITS_BEGIN_DECLS

#define SITS_KELVIN 273.15

typedef struct sits_flp_block {
  char *name;
  double w_m, h_m, x_m, y_m; /**< x, y of the lower-left corner after translation */
  size_t line;               /**< source line, for messages */
} sits_flp_block;

/** A floorplan: blocks translated so that the minimum corner is (0, 0). */
typedef struct sits_floorplan {
  size_t n;
  sits_flp_block *b;
  double width_m, height_m; /**< bounding box */
} sits_floorplan;

/** A new floorplan from @p n blocks (names copied; positions translated; checked: names
 *  unique and non-empty, sizes > 0 and finite, no two blocks overlapping by more than
 *  HotSpot's 1e-6 m tolerance). @p path names the source in messages. NULL on failure, with
 *  the reason in @p err. */
SITS_API sits_floorplan *sits_floorplan_new(const sits_flp_block *blocks, size_t n,
                                            const char *path, sits_err *err);
SITS_API void sits_floorplan_free(sits_floorplan *f);
/** Index of block @p name, or -1. */
SITS_API int sits_floorplan_find(const sits_floorplan *f, const char *name);

typedef enum sits_hs_model { SITS_HS_BLOCK, SITS_HS_GRID } sits_hs_model;
typedef enum sits_hs_map {
  SITS_HS_MAP_AVG,
  SITS_HS_MAP_MIN,
  SITS_HS_MAP_MAX,
  SITS_HS_MAP_CENTER
} sits_hs_map;

/** Package and layer parameters (HotSpot's names; SI units, temperatures in kelvin). */
typedef struct sits_hs_params {
  /* t_ thickness, s_ side, k_ conductivity, p_ volumetric heat capacity (HotSpot's names) */
  double t_chip_m, k_chip_w_per_mk, p_chip_j_per_m3k;
  double t_interface_m, k_interface_w_per_mk, p_interface_j_per_m3k;
  double s_spreader_m, t_spreader_m, k_spreader_w_per_mk, p_spreader_j_per_m3k;
  double s_sink_m, t_sink_m, k_sink_w_per_mk, p_sink_j_per_m3k;
  double r_convec_k_per_w, c_convec_j_per_k;
  double ambient_k, init_temp_k, sampling_intvl_s;
  bool block_omit_lateral;
  size_t grid_rows, grid_cols;
  sits_hs_map map_mode;
  bool transpose_lateral; /**< HotSpot's grid quirk: rx/ry swapped on non-square cells */
  bool hotspot_init_map;  /**< HotSpot's grid quirk: occupancy-weighted sum, 0 K uncovered */
  /* HotSpot's steady leakage: alpha area e^{beta (T - T_base)} per silicon block */
  double leak_alpha_w_per_m2, leak_beta_per_k, leak_base_k;
} sits_hs_params;

/** HotSpot's code defaults (default_thermal_config(), docs/hotspot-model.md 4.8), quirks on. */
SITS_API void sits_hs_params_default(sits_hs_params *p);

typedef struct sits_hs_network sits_hs_network;

/**
 * Builds the @p model network of @p flp with @p prm (copied). Fails on a die larger than
 * the spreader or the sink, on a grid under 2 x 2, or on a block spanning no row or
 * column of the grid: NULL then, with the reason in @p err.
 */
SITS_API sits_hs_network *sits_hs_network_new(const sits_floorplan *flp, const sits_hs_params *prm,
                                              sits_hs_model model, sits_err *err);
SITS_API void sits_hs_network_free(sits_hs_network *net);

/** Hands the RC network over to the caller (who frees it); the network keeps its maps but
 *  must not be used for solving afterwards. */
SITS_API sits_thermal *sits_hs_take_thermal(sits_hs_network *net);
/** The RC network (borrowed; temperatures in degC there). */
SITS_API const sits_thermal *sits_hs_thermal(const sits_hs_network *net);
SITS_API size_t sits_hs_node_count(const sits_hs_network *net);
SITS_API sits_hs_model sits_hs_model_of(const sits_hs_network *net);
SITS_API const sits_floorplan *sits_hs_floorplan(const sits_hs_network *net);
SITS_API const sits_hs_params *sits_hs_params_of(const sits_hs_network *net);

/** Node powers [W] (n_nodes) from block powers (floorplan order). */
SITS_API void sits_hs_power_map(const sits_hs_network *net, const double *block_w, double *node_w);

/**
 * Block-level values (4 n_blocks + 12: silicon, iface_, hsp_, hsink_ per block, then the
 * inodes) from node temperatures, in the same unit: the node itself (block model) or the
 * grid_map_mode reduction over the block's cells, per layer (grid model).
 */
SITS_API void sits_hs_block_values(const sits_hs_network *net, const double *node,
                                   double *block_vals);

/**
 * Node temperatures [K] from block-level temperatures [K] (4 n + 12, as above), for an
 * initial state: the node itself (block model); in the grid model HotSpot's map (each cell
 * the occupancy-weighted sum of the blocks over it, uncovered cells 0 K) with
 * hotspot_init_map, else the occupancy-weighted mean (uncovered cells at init_temp_k).
 */
SITS_API void sits_hs_init_map(const sits_hs_network *net, const double *block_k, double *node_k);

/** HotSpot's steady leakage of block @p b at temperature @p temp_k [W]. */
SITS_API double sits_hs_leakage_w(const sits_hs_network *net, size_t b, double temp_k);

/** The name of block-level value @p k (0 .. 4n + 11): "<blk>", "iface_<blk>", ..., "inode_N"
 *  into @p buf. */
SITS_API const char *sits_hs_value_name(const sits_hs_network *net, size_t k, char *buf,
                                        size_t size);

SITS_END_DECLS

#endif

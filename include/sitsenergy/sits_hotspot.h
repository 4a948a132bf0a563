/*
 * sits_hotspot.h - HotSpot's files (.flp, .ptrace, .config, .init, .materials), its options,
 * and the solvers behind `sitsenergy hotspot`: the steady state (direct solve, optionally with
 * HotSpot's steady leakage loop) and transients (the exact zero-order-hold update for the
 * block model, a fixed-step ESDIRK or CVODE for the grid). Temperatures here are in kelvin,
 * as in HotSpot.
 */
#ifndef SITS_HOTSPOT_H
#define SITS_HOTSPOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sits_floorplan.h"
#include "sits_export.h"

SITS_BEGIN_DECLS

/* ---- files -------------------------------------------------------------------------- */

/** Reads a .flp: `name width height left-x bottom-y [2 material columns]` lines; comments
 *  (#) and blank lines skipped, as are the 3-field connectivity lines `name1 name2 density`. */
SITS_API int sits_hs_read_flp(const char *path, sits_floorplan **out, sits_err *err);

/** A power trace, columns in floorplan order. */
typedef struct sits_hs_trace {
  size_t n_rows, n_blocks;
  double *power_w; /**< n_rows x n_blocks, row-major, floorplan order */
  size_t *column;  /**< the block of each header column, in the file's order */
} sits_hs_trace;

/** Reads a .ptrace against @p flp: the header must name every block once (any order). */
SITS_API int sits_hs_read_ptrace(const char *path, const sits_floorplan *flp, sits_hs_trace **out,
                                 sits_err *err);
SITS_API void sits_hs_trace_free(sits_hs_trace *t);

/** Reads an .init / .steady file: every one of the 4 n + 12 block-level names once, in any
 *  order, into @p vals_k (kelvin). */
SITS_API int sits_hs_read_init(const char *path, const sits_hs_network *net, double *vals_k,
                               sits_err *err);

/* ---- options ------------------------------------------------------------------------ */

typedef struct sits_hs_options sits_hs_options;

SITS_API sits_hs_options *sits_hs_options_new(void);
SITS_API void sits_hs_options_free(sits_hs_options *o);
/** Sets option @p key (without the leading '-') from @p origin ("file:line" or "command
 *  line"); an unknown key fails with the nearest known one as a suggestion. */
SITS_API int sits_hs_options_set(sits_hs_options *o, const char *key, const char *value,
                                 const char *origin, sits_err *err);
/** Reads a HotSpot .config (`-key value` lines); keys already set (from the command line)
 *  keep their values. */
SITS_API int sits_hs_options_read_config(sits_hs_options *o, const char *path, sits_err *err);
/** The value of @p key (NULL for "(null)" or unset file options). */
SITS_API const char *sits_hs_options_get(const sits_hs_options *o, const char *key);
/** Writes every option as `-key value` lines (HotSpot's -d dump). */
SITS_API int sits_hs_options_dump(const sits_hs_options *o, FILE *f);
/** The typed parameters and model type, with -material_* applied from -materials_file; flags
 *  this engine does not implement (secondary path, LCF, microfluidics, package model) fail
 *  with SITS_EUNSUPPORTED. */
SITS_API int sits_hs_options_params(const sits_hs_options *o, sits_hs_params *p,
                                    sits_hs_model *model, sits_err *err);

/* ---- solvers ------------------------------------------------------------------------ */

/** Steady node temperatures [K] for node powers @p node_w: G T = P + g_amb T_amb. With
 *  @p leakage, HotSpot's loop: add each silicon block's steady leakage to its power and
 *  re-solve until the largest change is under 0.01 K (at most 100 rounds: "thermal
 *  runaway" otherwise). */
SITS_API int sits_hs_steady(const sits_hs_network *net, const double *block_w, bool leakage,
                            double *node_k, sits_err *err);
/** sits_hs_steady, choosing the grid's sparse solver: with @p general CHOLMOD, else the
 *  layered-grid solver (sits_layergrid.h) where the network has its structure. */
SITS_API int sits_hs_steady_ex(const sits_hs_network *net, const double *block_w, bool leakage,
                               bool general, double *node_k, sits_err *err);

typedef struct sits_hs_transient sits_hs_transient;

typedef struct sits_hs_stats {
  /** "exact-zoh", "arkode-esdirk-layergrid", "arkode-esdirk-cholmod" or "cvode-bdf-klu" */
  const char *method;
  long steps, rhs_evals, jac_evals, lin_setups;
} sits_hs_stats;

/** A transient from @p node_k0 [K] over intervals of @p dt_s (options: NULL for the defaults):
 *  the exact zero-order-hold update T(t+dt) = T_inf + e^{A dt} (T - T_inf) for the block model
 *  (e^{A dt} built once from the eigen-decomposition of C^-1/2 G C^-1/2). The grid model by
 *  default: ARKODE's L-stable ESDIRK3(2)4L[2]SA at dt / 4 (sits_lti.h), its linear systems
 *  C + gamma h G solved by the layered-grid solver set up once for the run (sits_layergrid.h;
 *  a grid without that structure, or opts.general: one CHOLMOD factorisation). On HotSpot's
 *  ev6 64 x 64 case within 0.003 K of a CVODE run at rtol 1e-9; 100 intervals in 0.6 s. With
 *  cvode: CVODE BDF + KLU, the constant Jacobian given once, the symbolic factorisation kept
 *  across intervals. */
/** How a grid transient is integrated (the block model is always exact). */
typedef struct sits_hs_transient_opts {
  bool cvode;   /**< CVODE BDF + KLU (variable step, rtol) instead of the fixed-step ESDIRK */
  double rtol;  /**< CVODE: relative tolerance (0: 1e-5; absolute 100 rtol K) */
  int substeps; /**< ESDIRK: steps per interval (0: 4) */
  int order;    /**< ESDIRK: 3 or 4 (0: 3) */
  bool general; /**< ESDIRK: CHOLMOD even where the layered-grid solver applies */
} sits_hs_transient_opts;

/** A transient of @p net from the state @p node_k0 (kelvin) in intervals of @p dt_s; NULL on
 *  failure, with the reason in @p err. */
SITS_API sits_hs_transient *sits_hs_transient_new(const sits_hs_network *net, double dt_s,
                                                  const double *node_k0,
                                                  const sits_hs_transient_opts *o, sits_err *err);
SITS_API void sits_hs_transient_free(sits_hs_transient *tr);
/** Advances one interval with block powers @p block_w held; the state into @p node_k. */
SITS_API int sits_hs_transient_step(sits_hs_transient *tr, const double *block_w, double *node_k,
                                    sits_err *err);
SITS_API void sits_hs_transient_stats(const sits_hs_transient *tr, sits_hs_stats *st);

/* ---- HotSpot's output formats --------------------------------------------------------- */

/** `name<TAB>T` lines for the 4 n + 12 block-level values (a .steady / .init file). */
SITS_API int sits_hs_write_values(FILE *f, const sits_hs_network *net, const double *vals,
                                  int precision);
/** The grid's `Layer k:` blocks of `index<TAB>T` lines (a .grid.steady file). */
SITS_API int sits_hs_write_grid(FILE *f, const sits_hs_network *net, const double *node_k,
                                int precision);

/* ---- the drop-in ------------------------------------------------------------------------ */

typedef struct sits_hs_run_opts {
  sits_hs_options *options; /**< command line and -c config, already merged */
  int precision;            /**< decimals of the text outputs (HotSpot: 2) */
  bool geometric_lateral;   /**< turn HotSpot's transposed grid lateral resistances off */
  bool normalised_init;     /**< turn HotSpot's 0 K uncovered cells / unnormalised map off */
  double rtol;              /**< grid transient tolerance (0: 1e-5, atol 100 rtol K) */
  bool cvode;               /**< grid transient by CVODE instead of the fixed-step ESDIRK */
  int substeps;             /**< ESDIRK steps per interval (0: 4) */
  int order;                /**< ESDIRK order (3 or 4; 0: 3) */
  bool general;             /**< grids: CHOLMOD instead of the layered-grid solver */
} sits_hs_run_opts;

typedef struct sits_hs_run_report {
  sits_hs_model model;
  size_t n_blocks, n_nodes, n_rows;
  bool steady_done, transient_done, leakage;
  sits_hs_stats stats;
} sits_hs_run_report;

/**
 * What `hotspot` does: reads -f, -p (and -init_file), builds the -model_type network, writes
 * -steady_file / -grid_steady_file (the steady state of the trace's mean power, with HotSpot's
 * leakage loop under -leakage_used 1), the transient -o (a .ttrace; with a .h5 name our HDF5
 * layout: /time_s, /temp_c/<block>, /power_w/<block>) and -grid_transient_file (rewritten, not
 * appended), and -d (the options). Each file appears complete or not at all.
 */
SITS_API int sits_hs_run(const sits_hs_run_opts *o, sits_hs_run_report *rep, sits_err *err);

SITS_END_DECLS

#endif

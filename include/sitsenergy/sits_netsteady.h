/*
 * sits_netsteady.h - the linear steady state of a thermal network, one entry for every caller:
 *
 *   G T = P + g_amb T_amb          [W]; G the conductance matrix [W/K], T in degC (or K)
 *
 * with optional pinned nodes whose temperatures are given: the others solve
 * G_uu T_u = P_u + g_amb,u T_amb - G_up T_p. The solver is chosen once, by size and
 * structure, and its factorisation reused by every solve (a leakage loop, a DVFS table's
 * rows): a dense LU (GSL) below SITS_STEADY_SPARSE_THRESHOLD unknowns; the layered-grid
 * solver (sits_layergrid.h) for a HotSpot grid network without pins; else a sparse direct
 * factorisation, KLU, or CHOLMOD when asked or for a grid the layered-grid solver does not
 * take (G is symmetric positive definite).
 */
#ifndef SITS_NETSTEADY_H
#define SITS_NETSTEADY_H

#include <stdbool.h>
#include <stddef.h>

#include "sits_status.h"
#include "sits_thermal.h"

SITS_BEGIN_DECLS

typedef struct sits_net_steady sits_net_steady;

typedef struct sits_net_steady_opts {
  const bool *pinned; /**< per node: its temperature is given (NULL: none) */
  /** A HotSpot grid network (rows x cols cells per layer, layers, then package nodes): the
   *  layered-grid solver is tried for it. 0: not a grid. */
  size_t grid_rows, grid_cols, grid_layers;
  bool cholmod;      /**< sparse systems by CHOLMOD instead of KLU */
  bool no_layergrid; /**< a grid by the sparse factorisation, not the layered-grid solver */
} sits_net_steady_opts;

/** Factorises the network's (reduced) conductance matrix; @p o may be NULL. NULL with
 *  SITS_EINPUT when it is singular (a part not linked to the ambient or a pinned node). */
SITS_API sits_net_steady *sits_net_steady_new(const sits_thermal *th, const sits_net_steady_opts *o,
                                              sits_err *err);

/** Solves for @p power_w (per node) and @p ambient_c: @p t holds the pinned nodes'
 *  temperatures on entry and every node's on return. */
SITS_API int sits_net_steady_solve(sits_net_steady *s, const double *power_w, double ambient_c,
                                   double *t, sits_err *err);

/** "dense-lu", "klu", "cholmod" or "layered-grid". */
SITS_API const char *sits_net_steady_method(const sits_net_steady *s);

SITS_API void sits_net_steady_free(sits_net_steady *s);

SITS_END_DECLS

#endif

/*
 * sits_thermal.h - the thermal RC network.
 *
 * Nodes carry a heat capacity C_i [J/K]; links carry a thermal resistance R_ij [K/W]
 * between two nodes or between a node and the ambient boundary. The network obeys
 *
 *   C_i dT_i/dt = P_i - sum_j (T_i - T_j)/R_ij - (T_i - T_amb)/R_i,amb
 *
 * with temperatures in degrees Celsius, power in watts. In matrix form
 * C dT/dt = P - G T + g_amb T_amb, where G is the (symmetric) conductance matrix whose
 * diagonal includes the ambient conductances g_amb.
 */
#ifndef SITS_THERMAL_H
#define SITS_THERMAL_H

#include <stdbool.h>
#include <stddef.h>

#include <gsl/gsl_spmatrix.h>

#include "sits_status.h"

SITS_BEGIN_DECLS

/** Index that stands for the ambient boundary in sits_thermal_add_link(). */
#define SITS_AMBIENT (-1)
/** The most fans (platform.fans) a platform has: each cools one link of its network. */
#define SITS_MAX_FANS 4

typedef struct sits_thermal sits_thermal;

/** A new empty network, or NULL when out of memory. Free with sits_thermal_free(). */
SITS_API sits_thermal *sits_thermal_new(void);

/** Frees @p th; NULL is a no-op. */
SITS_API void sits_thermal_free(sits_thermal *th);

/**
 * Makes room for @p n_nodes nodes and @p n_links links (those to the ambient included) in
 * all, so that building a large network (a 64 x 64 grid: 16,396 nodes, ~60,000 links) grows
 * no array on the way. Only an optimisation: adding past it still works. SITS_OK or
 * SITS_ENOMEM.
 */
SITS_API int sits_thermal_reserve(sits_thermal *th, size_t n_nodes, size_t n_links, sits_err *err);

/**
 * Adds a node named @p name (copied; unique, not "ambient") with heat capacity
 * @p c_j_per_k > 0. Its initial temperature defaults to the ambient, it is not a
 * junction and has no critical trip. Returns the node index (>= 0) or a negative status.
 */
SITS_API int sits_thermal_add_node(sits_thermal *th, const char *name, double c_j_per_k,
                                   sits_err *err);

/** Initial temperature of node @p i in degC; NAN means "start at the ambient". */
SITS_API void sits_thermal_set_initial_c(sits_thermal *th, int i, double initial_c);
/** Marks node @p i as a junction (counted in the junction temperature). */
SITS_API void sits_thermal_set_junction(sits_thermal *th, int i, bool junction);
/** Shutdown trip of node @p i in degC; NAN means none. */
SITS_API void sits_thermal_set_critical_c(sits_thermal *th, int i, double critical_c);

/**
 * Links nodes @p a and @p b (b may be SITS_AMBIENT) through @p r_k_per_w > 0.
 * Parallel links add their conductances. Returns SITS_OK or SITS_EINPUT
 * (self link, bad index, R not positive and finite).
 */
SITS_API int sits_thermal_add_link(sits_thermal *th, int a, int b, double r_k_per_w, sits_err *err);

/** Number of nodes. */
/** Changes the resistance of the @p k-th link added (sits_thermal_add_link calls counted in
 *  order, links to ambient included); the network is as if built with it. SITS_EINPUT for
 *  an unknown link or a resistance that is not > 0. */
SITS_API int sits_thermal_set_link_r(sits_thermal *th, size_t k, double r_k_per_w, sits_err *err);
/** The resistance of the @p k-th link added, NAN when there is none. */
SITS_API double sits_thermal_link_r_k_per_w(const sits_thermal *th, size_t k);
/** The ends of link @p k, counted as sits_thermal_link_r_k_per_w() counts them (every link in
 *  the order added, those to the ambient too; *b = SITS_AMBIENT for those); SITS_EINPUT when
 *  there is no such link. */
SITS_API int sits_thermal_link_ends(const sits_thermal *th, size_t k, int *a, int *b);
/** Changes the heat capacity of node @p i (SITS_EINPUT when not > 0). */
SITS_API int sits_thermal_set_capacity(sits_thermal *th, int i, double c_j_per_k, sits_err *err);
SITS_API size_t sits_thermal_node_count(const sits_thermal *th);
/** Number of node-to-node links (ambient links are folded into the nodes). */
SITS_API size_t sits_thermal_link_count(const sits_thermal *th);
/** Index of the node named @p name (or by an alias), or -1. */
SITS_API int sits_thermal_find(const sits_thermal *th, const char *name);
/** Makes @p name (not a node's name) another name of node @p node: a floorplan block whose
 *  silicon is many grid cells is found as its centre cell. */
SITS_API int sits_thermal_add_alias(sits_thermal *th, const char *name, int node, sits_err *err);
/** Name of node @p i (borrowed). */
SITS_API const char *sits_thermal_name(const sits_thermal *th, int i);
SITS_API double sits_thermal_capacity_j_per_k(const sits_thermal *th, int i);
SITS_API double sits_thermal_initial_c(const sits_thermal *th, int i);
SITS_API bool sits_thermal_is_junction(const sits_thermal *th, int i);
SITS_API double sits_thermal_critical_c(const sits_thermal *th, int i);
/** Sum of the conductances from node @p i to the ambient [W/K]. */
SITS_API double sits_thermal_ambient_conductance_w_per_k(const sits_thermal *th, int i);
/** True when at least one node is marked as a junction. */
SITS_API bool sits_thermal_has_junctions(const sits_thermal *th);

/**
 * Evaluates the network: dtemp_dt[i] = (P_i - heat out of i) / C_i [K/s] for the
 * temperatures @p temp_c and node powers @p power_w (both length n). Stores the total
 * heat flowing into the ambient [W] in *to_ambient_w when it is not NULL.
 */
SITS_API void sits_thermal_derivative(const sits_thermal *th, const double *temp_c,
                                      const double *power_w, double ambient_c, double *dtemp_dt,
                                      double *to_ambient_w);

/**
 * The conductance matrix G [W/K] (n x n, compressed column, ambient conductances on
 * the diagonal). The caller frees it with gsl_spmatrix_free(). NULL when out of memory.
 */
SITS_API gsl_spmatrix *sits_thermal_conductance(const sits_thermal *th);

/**
 * Checks that every node has a path to the ambient, which makes G non-singular and the
 * steady state unique. SITS_EINPUT names the first node without one.
 */
SITS_API int sits_thermal_check_grounded(const sits_thermal *th, sits_err *err);
/** As sits_thermal_check_grounded(), with the nodes marked in @p pinned (n_nodes flags; a
 *  replay's sensed nodes, whose temperatures are given) counting as grounded: SITS_EINPUT
 *  naming the first node with no path to the ambient or to a pinned node. */
SITS_API int sits_thermal_check_reachable(const sits_thermal *th, const bool *pinned,
                                          sits_err *err);

SITS_END_DECLS

#endif

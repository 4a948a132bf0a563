/*
 * sits_layergrid.h - a fast direct solver for the conduction network of a layered uniform grid:
 * (alpha C + tau G) x = b, where the first L x R x C nodes are the cells of L layers of an
 * R x C grid (node l R C + i C + j), every layer uniform (one row-link, one column-link and
 * one ground conductance, one capacitance per cell; one vertical conductance between each
 * pair of layers), and a few extra nodes after them that link only to whole edges of a
 * layer (the same conductance along the edge) and to each other. HotSpot's grid model
 * (docs/hotspot-model.md B2-B5: 4 layers and 12 package nodes) is of this form, with or without
 * its transposed lateral resistances.
 *
 * Method: with the edge links taken out, the cells' operator A0 is diagonalised in each layer
 * by the 2-D cosine transform (DCT-II, FFTW) and couples the L layers of one mode through a
 * tridiagonal L x L system. The edge links and the extra nodes come back through the
 * capacitance-matrix (Woodbury) form: a dense system over the edge cells of the linked layers
 * and the extra nodes (4 (R + C) per linked layer, plus the extras: 524 unknowns for HotSpot's
 * 64 x 64 grid), factorised once per (alpha, tau) by GSL's LU (OpenBLAS's LAPACK for large
 * systems when installed; SITS_BLAS=gsl keeps GSL's). A solve is then one forward and one
 * inverse transform, two sweeps of the per-mode systems and one small dense solve. The cells'
 * own operator (the edge links taken out) must be regular: cells that reach the ambient only
 * through the extra nodes give SITS_EUNSUPPORTED at a steady-state setup (alpha = 0).
 *
 * FFT plans are measured and kept as FFTW wisdom in a file (SITS_FFTW_WISDOM names it, "off"
 * for none; default $XDG_CACHE_HOME/sitsenergy/fftw-wisdom, else ~/.cache/...): the first
 * solver of a size measures and writes it, later ones read it. Results agree with estimated
 * plans to rounding (~1e-12 relative). FFTW's planner and wisdom are process-wide and not
 * thread-safe, and a solver has scratch space of its own: create, free and use solvers from
 * one thread at a time.
 *
 * Measured against CHOLMOD on the same 64 x 64 HotSpot network (bench/hotspot.sh and the
 * notes): see README "Speed". The structure is checked entry by entry on construction;
 * a matrix without it gives SITS_EUNSUPPORTED, and callers fall back to a general sparse
 * solver.
 */
#ifndef SITS_LAYERGRID_H
#define SITS_LAYERGRID_H

#include <stddef.h>

#include <gsl/gsl_spmatrix.h>

#include "sits_status.h"

SITS_BEGIN_DECLS

typedef struct sits_layergrid sits_layergrid;

/**
 * Recognises the structure in the compressed-column conductance matrix @p g (symmetric, the
 * Laplacian of the links plus the ground conductances on its diagonal) of @p layers x @p rows x
 * @p cols cells and the extra nodes after them, with heat capacities @p c (NULL: only
 * alpha = 0 may be used). NULL with SITS_EUNSUPPORTED when the matrix is not of that form
 * (rows or cols under 2, a non-uniform layer, an extra node linked to part of an edge, ...).
 */
SITS_API sits_layergrid *sits_layergrid_new(const gsl_spmatrix *g, const double *c, size_t rows,
                                            size_t cols, size_t layers, sits_err *err);
/** Prepares solves with alpha C + tau G (alpha >= 0, tau > 0); SITS_EINPUT if singular. */
SITS_API int sits_layergrid_setup(sits_layergrid *s, double alpha, double tau, sits_err *err);
/** Solves (alpha C + tau G) x = b; @p x and @p b may be the same array. */
SITS_API int sits_layergrid_solve(sits_layergrid *s, const double *b, double *x, sits_err *err);
/** y = G x for the recognised matrix, from its layer constants (no index arrays: ~3 x
 *  faster than a sparse product on HotSpot's grid); equal to G x up to rounding. */
SITS_API void sits_layergrid_apply(const sits_layergrid *s, const double *x, double *y);
/**
 * Mode coordinates: the cells of each layer in the orthonormal 2-D cosine basis (DCT-II, the
 * eigenvectors of a layer's lateral links), the extra nodes as they are. The map Q is
 * orthogonal and C is uniform per layer, so (alpha C + tau G) x = b becomes (alpha C + tau
 * Q^T G Q) (Q^T x) = Q^T b: an integrator that keeps its state in these coordinates saves the
 * two transforms of every solve and does one each way per output (the 2-norm is unchanged,
 * weighted norms are not: fit for a fixed-step integrator of a linear problem). @p x and
 * @p v may be the same array.
 */
SITS_API void sits_layergrid_to_modes(sits_layergrid *s, const double *x, double *v);
/** The inverse of sits_layergrid_to_modes; @p v and @p x may be the same array. */
SITS_API void sits_layergrid_from_modes(sits_layergrid *s, const double *v, double *x);
/** sits_layergrid_solve with @p b and @p x in mode coordinates (may be the same array). */
SITS_API int sits_layergrid_solve_modes(sits_layergrid *s, const double *b, double *x,
                                        sits_err *err);
/** y = Q^T G Q x (mode coordinates): the layers' terms per mode, the edge links through the
 *  edge cells' values; equal to the transformed sits_layergrid_apply up to rounding.
 *  @p x and @p y must differ. */
SITS_API void sits_layergrid_apply_modes(sits_layergrid *s, const double *x, double *y);
/** Number of unknowns of the dense edge system (the size its LU is made for). */
SITS_API size_t sits_layergrid_edge_unknowns(const sits_layergrid *s);
SITS_API void sits_layergrid_free(sits_layergrid *s);

SITS_END_DECLS

#endif

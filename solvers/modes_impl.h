/* modes_impl.h - the modes of a symmetric thermal network (modes.c), for the exponential
 * integrator's modal form (sits_expint.h, sits_expint_opts.modal). Internal.
 *
 * The network's thermal rows are C T' = -G T + ..., C diagonal and positive, G symmetric.
 * With S = C^-1/2 G C^-1/2 = Q V Lambda V^T Q^T (Q an orthonormal basis in which S is block
 * diagonal: the parity classes of the network's mirror symmetries, or the identity; V the
 * blocks' eigenvectors), A_TT = -C^-1 G = C^-1/2 Q V (-Lambda) V^T Q^T C^1/2, so in the modal
 * coordinates z = V^T Q^T C^1/2 T every function of A_TT is diagonal: mu = -lambda. */
#ifndef SITS_MODES_IMPL_H
#define SITS_MODES_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "sits_expint.h"
#include "status_internal.h"

/** One basis vector of Q: at most four nodes (a node and its mirror images). */
typedef struct sits__pvec {
  int k;
  size_t idx[4];
  double coef[4];
} sits__pvec;

typedef struct sits__modes {
  size_t m, ne; /* thermal states, and the states after them (W's rows) */
  size_t ncls;  /* blocks (parity classes): 1, 2 or 4 */
  size_t off[4], len[4];
  double *sc, *isc; /* C^1/2, C^-1/2 (m each) */
  double *mu;       /* the eigenvalues of A_TT, <= 0, block by block (m) */
  double *v, *vt;   /* per block, V and V^T row-major at voff[k] (len[k]^2 each) */
  size_t voff[4];
  sits__pvec *basis; /* Q's columns, block by block (m) */
  double *w;         /* ne x m: W's rows in the modal coordinates, (W T) = w . z */
  bool *w_any;       /* ne: the row has a nonzero */
  double *scr;       /* m: scratch of the transforms */
  /* Q^T C^1/2 and C^-1/2 Q as gathers of four (zero coefficients where fewer): basis vector
   * j's entry is sum_t gin[4j+t] x[gin_idx[4j+t]]; node i's value sum_t gout[4i+t]
   * u[gout_idx[4i+t]] */
  unsigned *gin_idx, *gout_idx;
  double *gin, *gout;
} sits__modes;

/** The modes of the network @p o describes (n states in all): SITS_EUNSUPPORTED when G is
 *  not symmetric or C not positive, SITS_ENOMEM. The mirrors, when given, are checked (C and
 *  G invariant under both, each an involution, the two commuting): a failed check only
 *  drops them (one block of m). */
int sits__modes_new(const sits_expint_modal *o, size_t n, sits__modes **out, sits_err *err);
void sits__modes_free(sits__modes *md);

#endif

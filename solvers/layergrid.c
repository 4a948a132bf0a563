/* layergrid.c - the layered-grid solver of sits_layergrid.h (cosine transforms by FFTW, the
 * edge system by GSL's LU), built as the module libsits_layergrid that layergrid_load.c
 * loads on first use (FFTW adds ~1 ms to the start of every process that links it).
 *
 * Notation: cells (l, i, j), mode (p, q) of a layer, m = p C + q. Phi_R[i][p] =
 * s_p cos(pi p (i + 1/2) / R) (s_0 = sqrt(1/R), else sqrt(2/R)) is the orthonormal DCT-II
 * basis, the eigenvectors of the path Laplacian of R cells with eigenvalues
 * 2 - 2 cos(pi p / R); likewise Phi_C. The coefficient arrays are orthonormal ones: FFTW's
 * unnormalised REDFT10/REDFT01 pair is scaled per mode (fwd_scale, inv_scale).
 *
 * A "segment" is one edge (north row i = 0, south row R - 1, west column j = 0, east C - 1)
 * of one layer, all of whose cells link to one extra node with one conductance g. The edge
 * unknowns y are the segments' cells in order (a corner cell appears once per segment it
 * belongs to; the Woodbury form below is exact with such repeats).
 *
 *   alpha C + tau G = [A0 + U (tau D) U^T, -tau U E; -tau E^T U^T, alpha C_x + tau G_x]
 *
 * with A0 the cells without their edge links, U the selection of segment cells, D their link
 * conductances, E (segment cell, extra) the incidence scaled by g. With w = tau D y -
 * tau E p and y = U^T x: x = A0^-1 (b - U w), and (y, p) solve the dense system
 *
 *   [I + X tau D, -X tau E; -tau E^T, alpha C_x + tau G_x] (y; p) = (U^T A0^-1 b; b_x),
 *
 * X = U^T A0^-1 U, whose blocks between two segments are Psi_s K Psi_t^T in the transform
 * bases (build_x). */
#include <stddef.h>

#include <gsl/gsl_spmatrix.h>

#include "layergrid_impl.h"
#include "openblas_internal.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_linalg.h>

enum { SIDE_N, SIDE_S, SIDE_W, SIDE_E };

/* The edge system's LU goes to OpenBLAS's LAPACK (core/openblas.c) from this many flops:
 * measured on this project's 2-core machine, GSL's blocked LU runs ~5 GFlop/s (0.43, 2.4 and
 * 17 ms for n = 131, 259 and 515), OpenBLAS ~25 (0.21, 0.73, 3.6 ms), and loading OpenBLAS
 * costs ~5 ms: a gain from ~4e7 flops, clear from 1e8 (the 256 x 256 grid's four parity
 * blocks of 515, 3.6e8; the 128 x 128 grid's, 4.6e7, stay on GSL). */
#define LAPACK_MIN_FLOPS 1e8
/* GSL's triangular solves took 14 % of the 64 x 64 transient (two per block and solve); the
 * inverse costs ~2 LUs, paid back after a few solves, and a steady state (one solve) never
 * makes it */
#define INVERSE_AFTER 4

typedef struct seg {
  size_t layer, ext, len, off; /* extra node (0-based among the extras), cells, offset in y */
  int side;
  double g;
} seg;

typedef struct sits__lg lg_impl;

static void lg_free(lg_impl *s);

struct sits__lg {
  size_t R, C, L, nc, ncell, ne;
  double *gr, *gc, *gz, *gnd, *cap; /* per layer (gz: between l and l + 1) */
  double *gext, *cext;              /* G and C on the extra nodes (ne x ne, ne) */
  bool has_c;
  seg *seg;
  size_t nseg, ny, ns;
  size_t lay[8], nl;     /* the distinct layers that have segments (at most 8 kept) */
  gsl_matrix *phr, *phc; /* Phi_R (R x R), Phi_C (C x C) */
  double *fwd_scale, *inv_scale;
  double *scr; /* gather and scatter's scratch, 3 mx */
  size_t mx;   /* max(R, C) */
  double *lam; /* the path Laplacians' eigenvalues 2 - 2 cos(pi p / R), then those over C */
  fftw_plan pf, pb;
  bool wisdom;        /* plans measured (FFTW_MEASURE) or taken from wisdom, not estimated */
  bool measured;      /* a plan was measured here: the wisdom grew */
  double *buf, *corr; /* fftw_malloc'ed, ncell */
  /* made by setup */
  bool ready;
  double tau;            /* of the current setup (the mode systems' off-diagonals) */
  double *piv, *mul, *w; /* per mode: 1 / pivots [l nc + m], multipliers [(l-1) nc + m], and
                            (T_m^-1) between segment layers [m nl nl + a nl + b] */
  gsl_matrix *S;         /* the dense system (LU), or with blocks only its rows that the
                            parity blocks are read from (one per orbit of the reflections) */
  size_t *row_of;        /* edge unknown -> its row of S, or SIZE_MAX when not kept */
  size_t *node_of;       /* row of S -> edge unknown */
  size_t nrows;
  double *xbuf; /* fftw_malloc'ed scratch for build_x, max(R, C)^2 */
  struct {
    size_t rows, cols;
    int axis;
    fftw_plan p;
  } plans[8];
  size_t nplans;
  gsl_permutation *perm;
  gsl_vector *sol, *z, *u;
  /* mirror symmetry of the edge system (find_mirrors): the images of each edge unknown under
   * the north-south and the west-east reflection, and an orthonormal basis of the four
   * parity classes in which the edge system is block diagonal (4 LUs of ~ns/4) */
  size_t *mirror[2];
  struct pvec {
    int n;
    size_t idx[4];
    double coef[4];
  } * basis;
  size_t cls_off[5];
  bool use_blocks, blocks_now; /* symmetric structure; the current setup factorised by blocks */
  gsl_matrix *blk[4];
  gsl_permutation *bperm[4];
  /* OpenBLAS's LAPACK LU for edge systems from LAPACK_MIN_FLOPS (GSL's otherwise): the
   * row-major matrix is the transpose to LAPACK, so the solves take trans = 'T' */
  void *blas;
  void (*getrf)(const int *, const int *, double *, const int *, int *, int *);
  void (*getrs)(const char *, const int *, const int *, const double *, const int *, const int *,
                double *, const int *, int *, size_t);
  int *ipiv, *bipiv[4];
  /* the parity blocks' inverses, transposed, made once a factorisation has served
   * INVERSE_AFTER solves (a transient's 1,200): a product instead of two triangular solves */
  gsl_matrix *binv[4];
  double *binv_tmp;
  size_t solves;
  bool inv_ready;
  gsl_vector *bvec[4];
};

static size_t cell(const lg_impl *s, size_t l, size_t i, size_t j) {
  return l * s->nc + i * s->C + j;
}

/* the a-th cell of a segment */
static size_t seg_cell(const lg_impl *s, const seg *g, size_t a) {
  switch (g->side) {
  case SIDE_N: return cell(s, g->layer, 0, a);
  case SIDE_S: return cell(s, g->layer, s->R - 1, a);
  case SIDE_W: return cell(s, g->layer, a, 0);
  default: return cell(s, g->layer, a, s->C - 1);
  }
}

static bool row_seg(const seg *g) {
  return g->side == SIDE_N || g->side == SIDE_S;
}

/* the segment's fixed-index weights over the modes it does not run along: for a row segment
 * Phi_R[i_s][.] (over p), for a column segment Phi_C[j_s][.] (over q) */
static const double *seg_weights(const lg_impl *s, const seg *g) {
  switch (g->side) {
  case SIDE_N: return gsl_matrix_const_ptr(s->phr, 0, 0);
  case SIDE_S: return gsl_matrix_const_ptr(s->phr, s->R - 1, 0);
  case SIDE_W: return gsl_matrix_const_ptr(s->phc, 0, 0);
  default: return gsl_matrix_const_ptr(s->phc, s->C - 1, 0);
  }
}

static bool close_to(double a, double b, double scale) {
  return fabs(a - b) <= 1e-10 * scale;
}

static int unsupported(sits_err *err, const char *why) {
  return sits__fail(err, SITS_EUNSUPPORTED, "not a layered uniform grid: %s", why);
}

/* Reads the per-layer conductances, the extra block and the segments, then checks every
 * cell column of G against them. */
static int recognise(lg_impl *s, const gsl_spmatrix *g, const double *c, sits_err *err) {
  size_t R = s->R, C = s->C, L = s->L;
  for (size_t l = 0; l < L; l++) {
    size_t c0 = cell(s, l, 0, 0);
    s->gr[l] = -gsl_spmatrix_get(g, cell(s, l, 1, 0), c0);
    s->gc[l] = -gsl_spmatrix_get(g, cell(s, l, 0, 1), c0);
    if (l + 1 < L)
      s->gz[l] = -gsl_spmatrix_get(g, cell(s, l + 1, 0, 0), c0);
    double sum = 0;
    for (int p = g->p[c0]; p < g->p[c0 + 1]; p++)
      sum += g->data[p];
    s->gnd[l] = sum;
    if (s->gr[l] < 0 || s->gc[l] < 0 || (l + 1 < L && s->gz[l] < 0) || sum < -1e-12)
      return unsupported(err, "a conductance of the wrong sign");
    if (c) {
      s->cap[l] = c[c0];
      for (size_t k = 0; k < s->nc; k++)
        if (!close_to(c[c0 + k], s->cap[l], s->cap[l]))
          return unsupported(err, "heat capacities differ within a layer");
    }
  }
  for (size_t e = 0; e < s->ne; e++) {
    for (size_t f = 0; f < s->ne; f++)
      s->gext[e * s->ne + f] = gsl_spmatrix_get(g, s->ncell + e, s->ncell + f);
    s->cext[e] = c ? c[s->ncell + e] : 0;
  }
  /* segments: for every extra node, the layer edges it links to (whole and uniform) */
  int side_of[4 * 64]; /* (layer, side) -> segment or -1 */
  if (L > 64)
    return unsupported(err, "more than 64 layers");
  for (size_t k = 0; k < 4 * L; k++)
    side_of[k] = -1;
  for (size_t e = 0; e < s->ne; e++) {
    size_t col = s->ncell + e, linked = 0, covered = 0;
    for (int p = g->p[col]; p < g->p[col + 1]; p++)
      linked += (size_t)g->i[p] < s->ncell;
    for (size_t l = 0; l < L && covered < linked; l++)
      for (int side = 0; side < 4; side++) {
        seg sg = {.layer = l, .ext = e, .side = side, .len = side <= SIDE_S ? C : R};
        double v = gsl_spmatrix_get(g, seg_cell(s, &sg, 0), col);
        if (v >= 0)
          continue;
        size_t a = 1; /* a side is linked when all its cells are, alike (else a corner) */
        while (a < sg.len && close_to(gsl_spmatrix_get(g, seg_cell(s, &sg, a), col), v, -v))
          a++;
        if (a < sg.len)
          continue;
        if (side_of[4 * l + (size_t)side] >= 0)
          return unsupported(err, "an edge links to two extra nodes");
        for (size_t k = 0; k < s->nseg; k++)
          if (s->seg[k].ext == e && s->seg[k].layer == l)
            return unsupported(err, "an extra node links to two edges of one layer");
        sg.g = -v;
        sg.off = s->ny;
        s->ny += sg.len;
        side_of[4 * l + (size_t)side] = (int)s->nseg;
        s->seg[s->nseg++] = sg;
        covered += sg.len;
      }
    if (covered != linked)
      return unsupported(err, "an extra node links to cells off the edges");
  }
  s->ns = s->ny + s->ne;
  /* the edge system is dense (ns^2 doubles, LUs of ~ns^3/12 flops in its parity blocks): a
   * long, thin grid, whose every cell is on an edge (4096 x 2: 65,000 unknowns, past 120 s),
   * goes to a sparse factorisation; 256 x 256 (4,100 unknowns) stays here */
  if (s->ns > 4096 && (double)s->ns > 32.0 * sqrt((double)s->ncell))
    return unsupported(err, "an edge system too large for a dense solve (a long, thin grid)");
  for (size_t k = 0; k < s->nseg; k++) {
    size_t a = 0;
    while (a < s->nl && s->lay[a] != s->seg[k].layer)
      a++;
    if (a == s->nl) {
      if (s->nl == 8)
        return unsupported(err, "edges linked on more than 8 layers");
      s->lay[s->nl++] = s->seg[k].layer;
    }
  }
  /* every cell column, entry by entry, in row order */
  for (size_t l = 0; l < L; l++)
    for (size_t i = 0; i < R; i++)
      for (size_t j = 0; j < C; j++) {
        size_t col = cell(s, l, i, j), nexp = 0;
        size_t rows[16];
        double vals[16], diag = s->gnd[l];
#define EXPECT(row, gval)                                                                          \
  do {                                                                                             \
    if ((gval) > 0) {                                                                              \
      rows[nexp] = (row), vals[nexp++] = -(gval), diag += (gval);                                  \
    }                                                                                              \
  } while (0)
        if (l > 0)
          EXPECT(cell(s, l - 1, i, j), s->gz[l - 1]);
        if (i > 0)
          EXPECT(cell(s, l, i - 1, j), s->gr[l]);
        if (j > 0)
          EXPECT(cell(s, l, i, j - 1), s->gc[l]);
        size_t at_diag = nexp++;
        rows[at_diag] = col;
        if (j + 1 < C)
          EXPECT(cell(s, l, i, j + 1), s->gc[l]);
        if (i + 1 < R)
          EXPECT(cell(s, l, i + 1, j), s->gr[l]);
        if (l + 1 < L)
          EXPECT(cell(s, l + 1, i, j), s->gz[l]);
        size_t first_ext = nexp;
        int sides[4] = {i == 0 ? SIDE_N : -1, i + 1 == R ? SIDE_S : -1, j == 0 ? SIDE_W : -1,
                        j + 1 == C ? SIDE_E : -1};
        for (int k = 0; k < 4; k++) {
          int sg = sides[k] < 0 ? -1 : side_of[4 * l + (size_t)sides[k]];
          if (sg < 0)
            continue;
          size_t at = nexp;
          EXPECT(s->ncell + s->seg[sg].ext, s->seg[sg].g);
          for (; at > first_ext && rows[at - 1] > rows[at]; at--) { /* extras in row order */
            size_t tr = rows[at];
            double tv = vals[at];
            rows[at] = rows[at - 1], vals[at] = vals[at - 1];
            rows[at - 1] = tr, vals[at - 1] = tv;
          }
        }
#undef EXPECT
        vals[at_diag] = diag;
        if ((size_t)(g->p[col + 1] - g->p[col]) != nexp)
          return unsupported(err, "a cell with links off the grid pattern");
        for (size_t k = 0; k < nexp; k++) {
          int p = g->p[col] + (int)k;
          if ((size_t)g->i[p] != rows[k] || !close_to(g->data[p], vals[k], diag))
            return unsupported(err, "a cell whose links differ from its layer's");
        }
      }
  return SITS_OK;
}

static gsl_matrix *dct_basis(size_t n) {
  gsl_matrix *m = gsl_matrix_alloc(n, n);
  if (m)
    for (size_t i = 0; i < n; i++)
      for (size_t p = 0; p < n; p++)
        gsl_matrix_set(m, i, p,
                       sqrt((p ? 2.0 : 1.0) / (double)n) *
                           cos(M_PI * (double)p * ((double)i + 0.5) / (double)n));
  return m;
}

/* The segment that is @p k's mirror image (reflection @p axis: 0 rows i -> R-1-i, 1 columns
 * j -> C-1-j), or -1. */
static int mirror_seg(const lg_impl *s, size_t k, int axis) {
  static const int flip[2][4] = {{SIDE_S, SIDE_N, SIDE_W, SIDE_E},
                                 {SIDE_N, SIDE_S, SIDE_E, SIDE_W}};
  int side = flip[axis][s->seg[k].side];
  for (size_t t = 0; t < s->nseg; t++)
    if (s->seg[t].layer == s->seg[k].layer && s->seg[t].side == side)
      return close_to(s->seg[t].g, s->seg[k].g, s->seg[k].g) ? (int)t : -1;
  return -1;
}

/* The two reflections as permutations of the edge unknowns (segment cells, then extras), and
 * the parity basis; false when the grid's edges or extra nodes are not mirror symmetric. The
 * extra nodes not on a segment follow from their links to those that are. */
static bool find_mirrors(lg_impl *s) {
  size_t ns = s->ns, ny = s->ny, ne = s->ne;
  for (int axis = 0; axis < 2; axis++) {
    size_t *m = s->mirror[axis];
    for (size_t a = 0; a < ns; a++)
      m[a] = ns; /* unknown */
    for (size_t k = 0; k < s->nseg; k++) {
      int t = mirror_seg(s, k, axis);
      if (t < 0)
        return false;
      const seg *g = &s->seg[k], *h = &s->seg[t];
      bool along = row_seg(g) == (axis == 1); /* the reflection runs along this segment */
      for (size_t a = 0; a < g->len; a++)
        m[g->off + a] = h->off + (along ? g->len - 1 - a : a);
      size_t e = ny + g->ext, f = ny + h->ext;
      if (m[e] != ns && m[e] != f)
        return false;
      m[e] = f;
    }
    for (bool progress = true; progress;) {
      progress = false;
      for (size_t e = 0; e < ne; e++) {
        if (m[ny + e] != ns)
          continue;
        size_t found = ns, count = 0;
        for (size_t f = 0; f < ne; f++) {
          bool ok = close_to(s->cext[e], s->cext[f], fabs(s->cext[e])) &&
                    close_to(s->gext[e * ne + e], s->gext[f * ne + f], s->gext[e * ne + e]);
          for (size_t a = 0; ok && a < ne; a++)
            if (m[ny + a] != ns)
              ok = close_to(s->gext[e * ne + a], s->gext[f * ne + (m[ny + a] - ny)],
                            s->gext[e * ne + e]);
          if (ok)
            found = ny + f, count++;
        }
        if (count == 1)
          m[ny + e] = found, progress = true;
      }
    }
    for (size_t a = 0; a < ns; a++)
      if (m[a] == ns || m[m[a]] != a)
        return false;
    /* every extra node's capacity and links as its image's, those of the extras mapped
     * through their segments too (the parity blocks are exact only then) */
    for (size_t e = 0; e < ne; e++) {
      size_t me = m[ny + e] - ny;
      if (!close_to(s->cext[e], s->cext[me], fabs(s->cext[e])))
        return false;
      for (size_t f = 0; f < ne; f++)
        if (!close_to(s->gext[e * ne + f], s->gext[me * ne + (m[ny + f] - ny)],
                      fabs(s->gext[e * ne + e])))
          return false;
    }
  }
  /* the basis: per orbit {a, Ma, Na, MNa} and character (s1, s2), sum chi(g) e_{g a} */
  size_t *seen = calloc(ns, sizeof *seen), n_out[4] = {0};
  struct pvec *tmp = malloc(ns * sizeof *tmp);
  if (!seen || !tmp) {
    free(seen), free(tmp);
    return false;
  }
  for (int cls = 0; cls < 4; cls++) {
    double s1 = cls & 1 ? -1.0 : 1.0, s2 = cls & 2 ? -1.0 : 1.0;
    memset(seen, 0, ns * sizeof *seen);
    for (size_t a = 0; a < ns; a++) {
      if (seen[a])
        continue;
      size_t img[4] = {a, s->mirror[0][a], s->mirror[1][a], s->mirror[1][s->mirror[0][a]]};
      double chi[4] = {1.0, s1, s2, s1 * s2};
      struct pvec v = {0};
      for (int g = 0; g < 4; g++) {
        seen[img[g]] = 1;
        int k = 0;
        while (k < v.n && v.idx[k] != img[g])
          k++;
        if (k == v.n)
          v.idx[v.n] = img[g], v.coef[v.n++] = 0.0;
        v.coef[k] += chi[g];
      }
      double norm = 0;
      for (int k = 0; k < v.n; k++)
        norm += v.coef[k] * v.coef[k];
      if (norm < 0.5)
        continue; /* this character vanishes on the orbit */
      for (int k = 0; k < v.n; k++)
        v.coef[k] /= sqrt(norm);
      tmp[n_out[0] + n_out[1] + n_out[2] + n_out[3]] = v;
      n_out[cls]++;
    }
  }
  free(seen);
  size_t total = n_out[0] + n_out[1] + n_out[2] + n_out[3];
  if (total != ns) {
    free(tmp);
    return false;
  }
  s->basis = tmp;
  s->cls_off[0] = 0;
  for (int c = 0; c < 4; c++)
    s->cls_off[c + 1] = s->cls_off[c] + n_out[c];
  for (int c = 0; c < 4; c++) {
    size_t m = n_out[c];
    if (!m)
      continue;
    s->blk[c] = gsl_matrix_alloc(m, m);
    s->bperm[c] = gsl_permutation_alloc(m);
    s->bipiv[c] = malloc(m * sizeof(int));
    s->bvec[c] = gsl_vector_alloc(m);
    if (!s->blk[c] || !s->bperm[c] || !s->bvec[c] || !s->bipiv[c])
      return false;
  }
  return true;
}

/* A plan: from wisdom, or measured (adding to the wisdom), or estimated when wisdom is off.
 * Measuring overwrites the arrays, which hold nothing yet where this is called. */
static fftw_plan plan_r2r(lg_impl *s, int rank, const int *n, int howmany, double *buf, int stride,
                          int dist, const fftw_r2r_kind *kind) {
  if (!s->wisdom)
    return fftw_plan_many_r2r(rank, n, howmany, buf, NULL, stride, dist, buf, NULL, stride, dist,
                              kind, FFTW_ESTIMATE);
  fftw_plan p = fftw_plan_many_r2r(rank, n, howmany, buf, NULL, stride, dist, buf, NULL, stride,
                                   dist, kind, FFTW_MEASURE | FFTW_WISDOM_ONLY);
  if (p)
    return p;
  s->measured = true;
  return fftw_plan_many_r2r(rank, n, howmany, buf, NULL, stride, dist, buf, NULL, stride, dist,
                            kind, FFTW_MEASURE);
}

/* The synthesis plan along @p axis of a rows x cols array (made once per shape). */
static fftw_plan synth_plan(lg_impl *s, size_t rows, size_t cols, int axis) {
  for (size_t k = 0; k < s->nplans; k++)
    if (s->plans[k].rows == rows && s->plans[k].cols == cols && s->plans[k].axis == axis)
      return s->plans[k].p;
  if (s->nplans == sizeof s->plans / sizeof *s->plans)
    return NULL;
  int len = (int)(axis ? cols : rows);
  fftw_r2r_kind kind = FFTW_REDFT01;
  fftw_plan plan = plan_r2r(s, 1, &len, (int)(axis ? rows : cols), s->xbuf, axis ? 1 : (int)cols,
                            axis ? (int)cols : 1, &kind);
  if (plan) {
    s->plans[s->nplans].rows = rows, s->plans[s->nplans].cols = cols;
    s->plans[s->nplans].axis = axis, s->plans[s->nplans++].p = plan;
  }
  return plan;
}

typedef struct text_buf {
  char *p;
  size_t n, cap;
  bool failed;
} text_buf;

static void put_char(char c, void *data) {
  text_buf *t = data;
  if (t->failed)
    return;
  if (t->n + 2 > t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 4096;
    char *p = realloc(t->p, cap);
    if (!p) {
      t->failed = true;
      return;
    }
    t->p = p, t->cap = cap;
  }
  t->p[t->n++] = c;
  t->p[t->n] = '\0';
}

/* The process's FFTW wisdom as text (malloc'ed) when this object measured a plan, else NULL */
static char *lg_wisdom_export(sits__lg *s) {
  if (!s->measured)
    return NULL;
  text_buf t = {0};
  fftw_export_wisdom(put_char, &t);
  if (t.failed || !t.p) {
    free(t.p);
    return NULL;
  }
  return t.p;
}

/* The rows of S to keep: all of them for a full LU; with parity blocks one per orbit, the
 * node each of its basis vectors is read at (factor_blocks) - a quarter of S's memory, which
 * on a 64 x 64 grid is ~1,600 fewer first-touch page faults' worth of 2 MB. */
static int keep_rows(lg_impl *s) {
  size_t ns = s->ns;
  s->row_of = malloc(2 * ns * sizeof *s->row_of);
  if (!s->row_of)
    return -1;
  s->node_of = s->row_of + ns;
  for (size_t a = 0; a < ns; a++)
    s->row_of[a] = s->use_blocks ? SIZE_MAX : a, s->node_of[a] = a;
  s->nrows = s->use_blocks ? 0 : ns;
  for (size_t u = 0; s->use_blocks && u < ns; u++) {
    size_t a = s->basis[u].idx[0];
    if (s->row_of[a] == SIZE_MAX)
      s->node_of[s->nrows] = a, s->row_of[a] = s->nrows++;
  }
  return !(s->S = gsl_matrix_alloc(s->nrows, ns));
}

static lg_impl *lg_new(const gsl_spmatrix *g, const double *c, size_t rows, size_t cols,
                       size_t layers, const char *wisdom, sits_err *err) {
  if (!g || !GSL_SPMATRIX_ISCSC(g) || g->size1 != g->size2) {
    sits__fail(err, SITS_EINTERNAL, "sits_layergrid_new: a square compressed-column matrix");
    return NULL;
  }
  size_t ncell = layers * rows * cols;
  if (rows < 2 || cols < 2 || !layers || g->size1 < ncell || g->size1 - ncell > 64) {
    unsupported(err, "fewer than 2 rows or columns, or more than 64 extra nodes");
    return NULL;
  }
  lg_impl *s = calloc(1, sizeof *s);
  if (!s) {
    sits__fail(err, SITS_ENOMEM, "out of memory");
    return NULL;
  }
  s->R = rows, s->C = cols, s->L = layers, s->nc = rows * cols, s->ncell = ncell;
  s->ne = g->size1 - ncell, s->has_c = c != NULL;
  s->wisdom = wisdom != NULL;
  if (wisdom && *wisdom)
    fftw_import_wisdom_from_string(wisdom); /* unreadable wisdom: the plans are measured */
  size_t L = layers, nc = s->nc, ne = s->ne;
  s->gr = calloc(5 * L, sizeof(double));
  s->gext = calloc(ne * ne + ne + 1, sizeof(double));
  s->seg = calloc(4 * L, sizeof *s->seg);
  s->phr = dct_basis(rows), s->phc = dct_basis(cols);
  s->fwd_scale = malloc(2 * nc * sizeof(double));
  s->lam = malloc((rows + cols) * sizeof(double));
  s->buf = fftw_malloc(ncell * sizeof(double));
  s->corr = fftw_malloc(ncell * sizeof(double));
  int rc = SITS_OK;
  if (!s->gr || !s->gext || !s->seg || !s->phr || !s->phc || !s->fwd_scale || !s->lam || !s->buf ||
      !s->corr)
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  if (rc == SITS_OK) {
    s->gc = s->gr + L, s->gz = s->gc + L, s->gnd = s->gz + L, s->cap = s->gnd + L;
    s->cext = s->gext + ne * ne;
    s->inv_scale = s->fwd_scale + nc;
    rc = recognise(s, g, c, err);
  }
  if (rc == SITS_OK) {
    for (size_t p = 0; p < rows; p++)
      s->lam[p] = 2.0 - 2.0 * cos(M_PI * (double)p / (double)rows);
    for (size_t q = 0; q < cols; q++)
      s->lam[rows + q] = 2.0 - 2.0 * cos(M_PI * (double)q / (double)cols);
    for (size_t p = 0; p < rows; p++)
      for (size_t q = 0; q < cols; q++) {
        double sp = sqrt((p ? 2.0 : 1.0) / (double)rows), sq = sqrt((q ? 2.0 : 1.0) / (double)cols);
        s->fwd_scale[p * cols + q] = sp * sq / 4.0;
        s->inv_scale[p * cols + q] = sp * sq / ((p ? 2.0 : 1.0) * (q ? 2.0 : 1.0));
      }
    int n2[2] = {(int)rows, (int)cols};
    fftw_r2r_kind kf[2] = {FFTW_REDFT10, FFTW_REDFT10}, kb[2] = {FFTW_REDFT01, FFTW_REDFT01};
    s->pf = plan_r2r(s, 2, n2, (int)L, s->buf, 1, (int)nc, kf);
    s->pb = plan_r2r(s, 2, n2, (int)L, s->buf, 1, (int)nc, kb);
    size_t mx = rows > cols ? rows : cols;
    s->piv = malloc((2 * L + s->nl * s->nl) * nc * sizeof(double));
    if (s->ns) {
      s->xbuf = fftw_malloc(mx * mx * sizeof(double));
      s->perm = gsl_permutation_alloc(s->ns);
      s->ipiv = malloc(s->ns * sizeof(int));
      s->sol = gsl_vector_alloc(s->ns);
      s->z = gsl_vector_alloc(mx);
      s->u = gsl_vector_alloc(mx);
      s->scr = malloc(3 * mx * sizeof(double));
      s->mx = mx;
    }
    if (!s->pf || !s->pb || !s->piv ||
        (s->ns && (!s->xbuf || !s->perm || !s->ipiv || !s->sol || !s->z || !s->u || !s->scr)))
      rc = sits__fail(err, SITS_ENOMEM, "out of memory");
    else
      s->mul = s->piv + L * nc, s->w = s->mul + L * nc;
  }
  if (rc == SITS_OK && s->ns) {
    s->mirror[0] = malloc(2 * s->ns * sizeof(size_t));
    if (!s->mirror[0])
      rc = sits__fail(err, SITS_ENOMEM, "out of memory");
    else {
      s->mirror[1] = s->mirror[0] + s->ns;
      s->use_blocks = find_mirrors(s);
      rc = keep_rows(s) ? sits__fail(err, SITS_ENOMEM, "out of memory") : SITS_OK;
      /* the edge blocks' synthesis plans, made here while xbuf holds nothing (measuring
       * overwrites it); a block is na x nb with na, nb among the segment lengths */
      for (size_t a = 0; rc == SITS_OK && a < s->nseg; a++)
        for (size_t b = a; rc == SITS_OK && b < s->nseg; b++)
          if (!synth_plan(s, s->seg[a].len, s->seg[b].len, 0) ||
              !synth_plan(s, s->seg[a].len, s->seg[b].len, 1))
            rc = sits__fail(err, SITS_ENOMEM, "FFTW: no plan for the edge system");
      double flops = 0; /* of one factorisation */
      for (int c = 0; c < 4 && s->use_blocks; c++)
        flops += 2.0 / 3.0 * pow((double)(s->cls_off[c + 1] - s->cls_off[c]), 3);
      if (!s->use_blocks)
        flops = 2.0 / 3.0 * pow((double)s->ns, 3);
      if (rc == SITS_OK && flops >= LAPACK_MIN_FLOPS && (s->blas = sits__openblas_open(NULL))) {
        *(void **)&s->getrf = sits__openblas_sym(s->blas, "dgetrf_");
        *(void **)&s->getrs = sits__openblas_sym(s->blas, "dgetrs_");
        if (!s->getrf || !s->getrs) {
          s->getrf = NULL, s->getrs = NULL;
          sits__openblas_close(s->blas);
          s->blas = NULL;
        }
      }
    }
  }
  if (rc) {
    lg_free(s);
    return NULL;
  }
  return s;
}

/* v (coefficients, ncell) <- T_m^-1 v for every mode: the layers' tridiagonal systems */
static void mode_solve(const lg_impl *s, double *v) {
  size_t nc = s->nc, L = s->L;
  for (size_t l = 1; l < L; l++) {
    const double *mu = s->mul + l * nc;
    double *a = v + l * nc, *b = v + (l - 1) * nc;
    for (size_t m = 0; m < nc; m++)
      a[m] -= mu[m] * b[m];
  }
  for (size_t m = 0; m < nc; m++)
    v[(L - 1) * nc + m] *= s->piv[(L - 1) * nc + m];
  for (size_t l = L - 1; l-- > 0;) {
    double off = -s->tau * s->gz[l], *a = v + l * nc, *b = v + (l + 1) * nc;
    const double *pv = s->piv + l * nc;
    for (size_t m = 0; m < nc; m++)
      a[m] = (a[m] - off * b[m]) * pv[m];
  }
}

/* a <- Psi a along @p axis of the row-major rows x cols array a (0: every column, of length
 * rows; 1: every row): the orthonormal DCT-II synthesis sum_p Phi[i][p] a_p, by FFTW's
 * REDFT01 after scaling mode p by s_p / (p ? 2 : 1). Plans are made once per shape. */
static int synthesise(lg_impl *s, double *a, size_t rows, size_t cols, int axis) {
  size_t n = axis ? cols : rows, many = axis ? rows : cols;
  size_t stride = axis ? 1 : cols, dist = axis ? cols : 1;
  fftw_plan plan = synth_plan(s, rows, cols, axis);
  if (!plan)
    return -1;
  for (size_t p = 0; p < n; p++) {
    double f = sqrt((p ? 2.0 : 1.0) / (double)n) / (p ? 2.0 : 1.0);
    for (size_t m = 0; m < many; m++)
      a[p * stride + m * dist] *= f;
  }
  fftw_execute_r2r(plan, a, a);
  return 0;
}

/* X = U^T A0^-1 U into the top-left ny x ny block of S, block by block (symmetric): between
 * segments a and b, Psi_a K Psi_b^T with K between their free modes, the two products by
 * cosine transforms (O(n^2 log n) a block, not n^3). */
static int build_x(lg_impl *s) {
  size_t C = s->C, nl = s->nl, R = s->R;
  for (size_t a = 0; a < s->nseg; a++)
    for (size_t b = a; b < s->nseg; b++) {
      const seg *sa = &s->seg[a], *sb = &s->seg[b];
      size_t la = 0, lb = 0, na = sa->len, nb = sb->len;
      while (s->lay[la] != sa->layer)
        la++;
      while (s->lay[lb] != sb->layer)
        lb++;
      const double *wa = seg_weights(s, sa), *wb = seg_weights(s, sb);
      bool ra = row_seg(sa), rb = row_seg(sb);
      double *K = s->xbuf; /* na x nb, row-major */
      memset(K, 0, na * nb * sizeof *K);
      /* K between the free modes (q for a row segment, p for a column one) */
      for (size_t p = 0; p < R; p++)
        for (size_t q = 0; q < C; q++) {
          double wv = s->w[(p * C + q) * nl * nl + la * nl + lb];
          if (ra && rb)
            K[q * nb + q] += wa[p] * wb[p] * wv;
          else if (!ra && !rb)
            K[p * nb + p] += wa[q] * wb[q] * wv;
          else if (ra)
            K[q * nb + p] = wa[p] * wb[q] * wv;
          else
            K[p * nb + q] = wa[q] * wb[p] * wv;
        }
      if (synthesise(s, K, na, nb, 0) || synthesise(s, K, na, nb, 1))
        return -1;
      for (size_t i = 0; i < na; i++) { /* the kept rows of the block and of its transpose */
        size_t r = s->row_of[sa->off + i];
        if (r != SIZE_MAX)
          memcpy(gsl_matrix_ptr(s->S, r, sb->off), K + i * nb, nb * sizeof *K);
      }
      for (size_t j = 0; j < nb && b != a; j++) {
        size_t r = s->row_of[sb->off + j];
        if (r == SIZE_MAX)
          continue;
        double *row = gsl_matrix_ptr(s->S, r, sa->off);
        for (size_t i = 0; i < na; i++)
          row[i] = K[i * nb + j];
      }
    }
  return 0;
}

/* LU of @p m in place: OpenBLAS's dgetrf when loaded, else GSL's; non-zero when singular */
static int lu_factor(const lg_impl *s, gsl_matrix *m, gsl_permutation *perm, int *ipiv) {
  int sign;
  if (!s->getrf)
    return gsl_linalg_LU_decomp(m, perm, &sign) || !isfinite(gsl_linalg_LU_lndet(m));
  int n = (int)m->size1, lda = (int)m->tda, info = 0;
  s->getrf(&n, &n, m->data, &lda, ipiv, &info);
  if (info)
    return -1;
  for (size_t i = 0; i < m->size1; i++) {
    double d = m->data[i * m->tda + i];
    if (!isfinite(d) || d == 0.0)
      return -1;
  }
  return 0;
}

/* b <- m^-1 b with lu_factor's factors */
static void lu_solve(const lg_impl *s, const gsl_matrix *m, const gsl_permutation *perm,
                     const int *ipiv, gsl_vector *b) {
  if (!s->getrs) {
    gsl_linalg_LU_svx(m, perm, b);
    return;
  }
  int n = (int)m->size1, lda = (int)m->tda, one = 1, info = 0;
  s->getrs("T", &n, &one, m->data, &lda, ipiv, b->data, &n, &info, 1);
}

static int factor_full(lg_impl *s) {
  s->blocks_now = false;
  return lu_factor(s, s->S, s->perm, s->ipiv);
}

/* The edge system in the parity basis V: V^T S V is block diagonal when S commutes with the
 * reflections, which holds to rounding when the grid is mirror symmetric (find_mirrors
 * checked its conductances, capacities and edges to 1e-10; the transforms are symmetric). */
static int factor_blocks(lg_impl *s) {
  size_t tda = s->S->tda;
  const double *S = s->S->data;
  for (int c = 0; c < 4; c++) {
    size_t o = s->cls_off[c], m = s->cls_off[c + 1] - o;
    if (!m)
      continue;
    /* (V^T S V)[u][w] = (S V_w)[a] / V_u[a] at one node a of u's orbit: S V_w is in the
     * same parity class, where a vector's values on an orbit are proportional to V_u's */
    for (size_t u = 0; u < m; u++) {
      const struct pvec *pu = &s->basis[o + u];
      /* the entries of V_u on its orbit are of one magnitude (>= 1/2), the first kept */
      const double *row = S + s->row_of[pu->idx[0]] * tda;
      double inv = 1.0 / pu->coef[0];
      for (size_t w = 0; w < m; w++) {
        const struct pvec *pw = &s->basis[o + w];
        double v = 0;
        for (int j = 0; j < pw->n; j++)
          v += row[pw->idx[j]] * pw->coef[j];
        s->blk[c]->data[u * s->blk[c]->tda + w] = v * inv;
      }
    }
    if (lu_factor(s, s->blk[c], s->bperm[c], s->bipiv[c]))
      return -1;
  }
  s->blocks_now = true;
  return 0;
}

/* sol <- S^-1 sol, by the blocks or the full LU */
/* The blocks' inverses (GSL's LU only: OpenBLAS's solves are fast); false when out of memory */
static bool make_inverses(lg_impl *s) {
  size_t big = 0;
  for (int c = 0; c < 4; c++)
    if (s->cls_off[c + 1] - s->cls_off[c] > big)
      big = s->cls_off[c + 1] - s->cls_off[c];
  if (!s->binv_tmp && !(s->binv_tmp = malloc(big * sizeof(double))))
    return false;
  for (int c = 0; c < 4; c++) {
    size_t m = s->cls_off[c + 1] - s->cls_off[c];
    if (!m)
      continue;
    if (!s->binv[c] && !(s->binv[c] = gsl_matrix_alloc(m, m)))
      return false;
    if (gsl_linalg_LU_invert(s->blk[c], s->bperm[c], s->binv[c]) ||
        gsl_matrix_transpose(s->binv[c]))
      return false;
  }
  return true;
}

/* b <- M^-1 b from the transposed inverse: b_new = sum_j b_j row_j, rows contiguous */
static void inverse_apply(const gsl_matrix *inv_t, gsl_vector *b, double *tmp) {
  size_t m = inv_t->size1;
  memset(tmp, 0, m * sizeof *tmp);
  for (size_t j = 0; j < m; j++) {
    const double *row = inv_t->data + j * inv_t->tda;
    double bj = b->data[j * b->stride];
    for (size_t i = 0; i < m; i++)
      tmp[i] += bj * row[i];
  }
  for (size_t i = 0; i < m; i++)
    b->data[i * b->stride] = tmp[i];
}

static void edge_solve(lg_impl *s) {
  if (!s->blocks_now) {
    lu_solve(s, s->S, s->perm, s->ipiv, s->sol);
    return;
  }
  if (!s->inv_ready && !s->getrs && ++s->solves == INVERSE_AFTER)
    s->inv_ready = make_inverses(s);
  for (int c = 0; c < 4; c++) {
    size_t o = s->cls_off[c], m = s->cls_off[c + 1] - o;
    for (size_t u = 0; u < m; u++) {
      const struct pvec *pu = &s->basis[o + u];
      double v = 0;
      for (int i = 0; i < pu->n; i++)
        v += pu->coef[i] * s->sol->data[pu->idx[i]];
      s->bvec[c]->data[u] = v;
    }
    if (m && s->inv_ready)
      inverse_apply(s->binv[c], s->bvec[c], s->binv_tmp);
    else if (m)
      lu_solve(s, s->blk[c], s->bperm[c], s->bipiv[c], s->bvec[c]);
  }
  gsl_vector_set_zero(s->sol);
  for (int c = 0; c < 4; c++) {
    size_t o = s->cls_off[c], m = s->cls_off[c + 1] - o;
    for (size_t u = 0; u < m; u++) {
      const struct pvec *pu = &s->basis[o + u];
      double v = s->bvec[c]->data[u];
      for (int i = 0; i < pu->n; i++)
        s->sol->data[pu->idx[i]] += pu->coef[i] * v;
    }
  }
}

static int lg_setup(lg_impl *s, double alpha, double tau, sits_err *err) {
  if (!(tau > 0) || !(alpha >= 0) || (alpha > 0 && !s->has_c))
    return sits__fail(err, SITS_EINTERNAL, "sits_layergrid_setup: alpha %g, tau %g", alpha, tau);
  size_t R = s->R, C = s->C, L = s->L, nc = s->nc, nl = s->nl, ny = s->ny, ne = s->ne;
  s->tau = tau, s->ready = false;
  s->solves = 0, s->inv_ready = false;
  double tmp[64];
  for (size_t p = 0; p < R; p++)
    for (size_t q = 0; q < C; q++) {
      size_t m = p * C + q;
      double lp = 2.0 - 2.0 * cos(M_PI * (double)p / (double)R);
      double lq = 2.0 - 2.0 * cos(M_PI * (double)q / (double)C);
      double d = 0;
      for (size_t l = 0; l < L; l++) {
        double a = alpha * s->cap[l] + tau * (s->gnd[l] + s->gr[l] * lp + s->gc[l] * lq +
                                              (l ? s->gz[l - 1] : 0) + (l + 1 < L ? s->gz[l] : 0));
        double a0 = a; /* a pivot that cancels to rounding of its diagonal is zero */
        if (l) {
          double mu = -tau * s->gz[l - 1] / d;
          s->mul[l * nc + m] = mu;
          a -= mu * (-tau * s->gz[l - 1]);
        }
        if (!(a > 1e-12 * a0) || !(a > 1e-300)) {
          if (s->ns) /* the cells may reach the ambient only through the extra nodes */
            return sits__fail(err, SITS_EUNSUPPORTED,
                              "not a layered uniform grid the solver takes: its cells reach "
                              "the ambient only through the edge nodes");
          return sits__fail(err, SITS_EINPUT,
                            "the grid's conduction matrix is singular (a layer stack with no "
                            "path to the ambient?)");
        }
        d = a;
        s->piv[l * nc + m] = 1.0 / a;
      }
      /* T_m^-1 between the segment layers: solve for each unit vector (layers are few) */
      for (size_t a = 0; a < nl; a++) {
        for (size_t l = 0; l < L; l++)
          tmp[l] = l == s->lay[a] ? 1.0 : 0.0;
        for (size_t l = 1; l < L; l++)
          tmp[l] -= s->mul[l * nc + m] * tmp[l - 1];
        tmp[L - 1] *= s->piv[(L - 1) * nc + m];
        for (size_t l = L - 1; l-- > 0;)
          tmp[l] = (tmp[l] + tau * s->gz[l] * tmp[l + 1]) * s->piv[l * nc + m];
        for (size_t b = 0; b < nl; b++)
          s->w[m * nl * nl + a * nl + b] = tmp[s->lay[b]];
      }
    }
  if (s->ns) {
    if (build_x(s))
      return sits__fail(err, SITS_ENOMEM, "FFTW: no plan for the edge system");
    for (size_t r = 0; r < s->nrows; r++) {
      size_t a = s->node_of[r];
      double *row = gsl_matrix_ptr(s->S, r, 0);
      if (a < ny) {
        for (size_t e = 0; e < ne; e++)
          row[ny + e] = 0.0;
        /* columns of X times tau D, and the extra columns -X tau E */
        for (size_t k = 0; k < s->nseg; k++) {
          const seg *g = &s->seg[k];
          double tg = tau * g->g, sum = 0;
          for (size_t b = g->off; b < g->off + g->len; b++)
            sum += row[b], row[b] *= tg;
          row[ny + g->ext] -= tg * sum;
        }
        row[a] += 1.0;
        continue;
      }
      size_t e = a - ny; /* an extra node's row */
      for (size_t b = 0; b < ny; b++)
        row[b] = 0.0;
      for (size_t f = 0; f < ne; f++)
        row[ny + f] = tau * s->gext[e * ne + f] + (e == f ? alpha * s->cext[e] : 0.0);
      for (size_t k = 0; k < s->nseg; k++)
        if (s->seg[k].ext == e)
          for (size_t b = 0; b < s->seg[k].len; b++)
            row[s->seg[k].off + b] = -tau * s->seg[k].g;
    }
    if (s->use_blocks ? factor_blocks(s) : factor_full(s))
      return sits__fail(err, SITS_EINPUT, "the grid's edge system is singular");
  }
  s->ready = true;
  return SITS_OK;
}

/* buf (coefficients) <- FFTW of buf, orthonormally scaled; and back */
static void forward(lg_impl *s, double *v) {
  fftw_execute_r2r(s->pf, v, v);
  for (size_t l = 0; l < s->L; l++)
    for (size_t m = 0; m < s->nc; m++)
      v[l * s->nc + m] *= s->fwd_scale[m];
}

static void inverse(lg_impl *s, double *v) {
  for (size_t l = 0; l < s->L; l++)
    for (size_t m = 0; m < s->nc; m++)
      v[l * s->nc + m] *= s->inv_scale[m];
  fftw_execute_r2r(s->pb, v, v);
}

/* out = Phi z (n x n, row-major) and out = Phi^T z */
static void phi_mul(const double *phi, size_t n, const double *z, double *out) {
  for (size_t i = 0; i < n; i++) {
    const double *row = phi + i * n;
    double s0 = 0, s1 = 0;
    size_t k = 0;
    for (; k + 1 < n; k += 2)
      s0 += row[k] * z[k], s1 += row[k + 1] * z[k + 1];
    if (k < n)
      s0 += row[k] * z[k];
    out[i] = s0 + s1;
  }
}

static void phi_tmul(const double *phi, size_t n, const double *z, double *out) {
  memset(out, 0, n * sizeof *out);
  for (size_t i = 0; i < n; i++) {
    const double *row = phi + i * n;
    double zi = z[i];
    for (size_t k = 0; k < n; k++)
      out[k] += zi * row[k];
  }
}

/* The segments of the a-th linked layer by side (-1: none). */
static void layer_sides(const lg_impl *s, size_t a, int side[4]) {
  side[0] = side[1] = side[2] = side[3] = -1;
  for (size_t k = 0; k < s->nseg; k++)
    if (s->seg[k].layer == s->lay[a])
      side[s->seg[k].side] = (int)k;
}

/* The cells' values of the side pair from @p first (N, S or W, E) into sol: segment t of
 * the pair has the layer's partial sums ev + (-1)^t od over the modes across it, synthesised
 * along it by Phi (n x n) */
static void pair_values(lg_impl *s, const int side[4], int first, const double *ev,
                        const double *od, double *z, const double *phi, size_t n) {
  for (int t = 0; t < 2; t++) {
    int k = side[first + t];
    if (k < 0)
      continue;
    for (size_t i = 0; i < n; i++)
      z[i] = t ? ev[i] - od[i] : ev[i] + od[i];
    phi_mul(phi, n, z, s->sol->data + s->seg[k].off);
  }
}

/* U^T of the coefficients @p v: the segment cells' values into sol[0, ny). A north and a
 * south segment (rows 0 and R - 1, whose weights Phi_R[R-1][p] = (-1)^p Phi_R[0][p]) share
 * one pass over the layer's coefficients: its even and odd modes summed apart; west and east
 * likewise. */
static void gather(lg_impl *s, const double *v) {
  size_t R = s->R, C = s->C, nc = s->nc;
  double *ev = s->scr, *od = ev + s->mx, *z = od + s->mx;
  for (size_t a = 0; a < s->nl; a++) {
    const double *Y = v + s->lay[a] * nc;
    int side[4];
    layer_sides(s, a, side);
    if (side[SIDE_N] >= 0 || side[SIDE_S] >= 0) {
      const double *w0 = s->phr->data;
      memset(ev, 0, 2 * s->mx * sizeof *ev);
      for (size_t p = 0; p < R; p++) {
        double wp = w0[p], *acc = p & 1 ? od : ev;
        const double *row = Y + p * C;
        for (size_t q = 0; q < C; q++)
          acc[q] += wp * row[q];
      }
      pair_values(s, side, SIDE_N, ev, od, z, s->phc->data, C);
    }
    if (side[SIDE_W] >= 0 || side[SIDE_E] >= 0) {
      const double *w0 = s->phc->data;
      for (size_t p = 0; p < R; p++) {
        const double *row = Y + p * C;
        double e0 = 0, o0 = 0;
        size_t q = 0;
        for (; q + 1 < C; q += 2)
          e0 += w0[q] * row[q], o0 += w0[q + 1] * row[q + 1];
        if (q < C)
          e0 += w0[q] * row[q];
        ev[p] = e0, od[p] = o0;
      }
      pair_values(s, side, SIDE_W, ev, od, z, s->phr->data, R);
    }
  }
}

/* corr (coefficients) += U v, with v on segment k's cells = scale[k] (vals[cell] - vals[its
 * extra]); the two segments of a side pair in one pass, as in gather */
static void scatter(lg_impl *s, double *corr, const double *scale, const double *vals) {
  size_t R = s->R, C = s->C, nc = s->nc, ny = s->ny, mx = s->mx;
  double *ws = s->scr, *u1 = ws + mx, *u2 = u1 + mx;
  for (size_t a = 0; a < s->nl; a++) {
    double *Y = corr + s->lay[a] * nc;
    int side[4];
    layer_sides(s, a, side);
    for (int pair = 0; pair < 2; pair++) {
      int t1 = side[2 * pair], t2 = side[2 * pair + 1]; /* N, S or W, E */
      if (t1 < 0 && t2 < 0)
        continue;
      size_t len = pair ? R : C;
      const double *phi = pair ? s->phr->data : s->phc->data;
      for (int t = 0; t < 2; t++) {
        int k = t ? t2 : t1;
        double *u = t ? u2 : u1;
        if (k < 0) {
          memset(u, 0, len * sizeof *u);
          continue;
        }
        const seg *g = &s->seg[k];
        double pe = vals[ny + g->ext];
        for (size_t i = 0; i < len; i++)
          ws[i] = scale[k] * (vals[g->off + i] - pe);
        phi_tmul(phi, len, ws, u);
      }
      for (size_t i = 0; i < len; i++) { /* u1 + u2 and u1 - u2 */
        double x = u1[i], y = u2[i];
        u1[i] = x + y, u2[i] = x - y;
      }
      if (!pair) { /* corr[p][q] += Phi_R[0][p] (u_N[q] + (-1)^p u_S[q]) */
        for (size_t p = 0; p < R; p++) {
          double wp = s->phr->data[p], *row = Y + p * C;
          const double *u = p & 1 ? u2 : u1;
          for (size_t q = 0; q < C; q++)
            row[q] += wp * u[q];
        }
      } else { /* corr[p][q] += Phi_C[0][q] (u_W[p] + (-1)^q u_E[p]) */
        const double *w0 = s->phc->data;
        for (size_t p = 0; p < R; p++) {
          double *row = Y + p * C, ue = u1[p], uo = u2[p];
          size_t q = 0;
          for (; q + 1 < C; q += 2)
            row[q] += w0[q] * ue, row[q + 1] += w0[q + 1] * uo;
          if (q < C)
            row[q] += w0[q] * ue;
        }
      }
    }
  }
}

/* buf: the right-hand side's cell coefficients in, the solution's out; b_ext the extras' right-
 * hand side, x_ext their solution */
static void solve_core(lg_impl *s, double *v, const double *b_ext, double *x_ext) {
  size_t ny = s->ny, ne = s->ne;
  double *sol = s->sol->data;
  mode_solve(s, v);
  if (!s->ns)
    return;
  gather(s, v); /* U^T A0^-1 b */
  for (size_t e = 0; e < ne; e++)
    sol[ny + e] = b_ext[e];
  edge_solve(s);
  /* w = tau g (y - p) on the segment cells, into coefficients, through the modes */
  memset(s->corr, 0, s->ncell * sizeof(double));
  double tg[4 * 64];
  for (size_t k = 0; k < s->nseg; k++)
    tg[k] = s->tau * s->seg[k].g;
  scatter(s, s->corr, tg, sol);
  mode_solve(s, s->corr);
  for (size_t k = 0; k < s->ncell; k++)
    v[k] -= s->corr[k];
  for (size_t e = 0; e < ne; e++)
    x_ext[e] = sol[ny + e];
}

static int lg_solve(lg_impl *s, const double *b, double *x, sits_err *err) {
  if (!s->ready)
    return sits__fail(err, SITS_EINTERNAL, "sits_layergrid_solve before a successful setup");
  memcpy(s->buf, b, s->ncell * sizeof(double));
  forward(s, s->buf);
  solve_core(s, s->buf, b + s->ncell, x + s->ncell);
  inverse(s, s->buf);
  memcpy(x, s->buf, s->ncell * sizeof(double));
  return SITS_OK;
}

/* in place on x's cells (the extras' right-hand side read before x's extras are written) */
static int lg_solve_modes(lg_impl *s, const double *b, double *x, sits_err *err) {
  if (!s->ready)
    return sits__fail(err, SITS_EINTERNAL, "sits_layergrid_solve_modes before a successful setup");
  if (x != b)
    memcpy(x, b, s->ncell * sizeof(double));
  solve_core(s, x, b + s->ncell, x + s->ncell);
  return SITS_OK;
}

static void lg_to_modes(lg_impl *s, const double *x, double *v) {
  memcpy(s->buf, x, s->ncell * sizeof(double));
  forward(s, s->buf);
  memmove(v + s->ncell, x + s->ncell, s->ne * sizeof(double));
  memcpy(v, s->buf, s->ncell * sizeof(double));
}

static void lg_from_modes(lg_impl *s, const double *v, double *x) {
  memcpy(s->buf, v, s->ncell * sizeof(double));
  inverse(s, s->buf);
  memmove(x + s->ncell, v + s->ncell, s->ne * sizeof(double));
  memcpy(x, s->buf, s->ncell * sizeof(double));
}

/* y = G x in mode coordinates: per mode the layers' own and vertical terms, then the edge
 * links through the segment cells' values (gather) and back (scatter) */
static void lg_apply_modes(lg_impl *s, const double *x, double *y) {
  size_t R = s->R, C = s->C, L = s->L, nc = s->nc, ne = s->ne, ny = s->ny, nd = s->ncell;
  for (size_t l = 0; l < L; l++) {
    const double *xl = x + l * nc;
    double *yl = y + l * nc, gr = s->gr[l], gc = s->gc[l], gnd = s->gnd[l];
    double gup = l > 0 ? s->gz[l - 1] : 0.0, gdn = l + 1 < L ? s->gz[l] : 0.0;
    for (size_t p = 0; p < R; p++) {
      double dp = gnd + gup + gdn + gr * s->lam[p];
      for (size_t q = 0; q < C; q++)
        yl[p * C + q] = (dp + gc * s->lam[R + q]) * xl[p * C + q];
    }
    if (l > 0)
      for (size_t k = 0; k < nc; k++)
        yl[k] -= gup * xl[k - nc];
    if (l + 1 < L)
      for (size_t k = 0; k < nc; k++)
        yl[k] -= gdn * xl[k + nc];
  }
  if (!s->nseg && !ne)
    return;
  for (size_t e = 0; e < ne; e++) {
    double v = 0;
    for (size_t f = 0; f < ne; f++)
      v += s->gext[e * ne + f] * x[nd + f];
    y[nd + e] = v;
  }
  if (!s->nseg)
    return;
  gather(s, x); /* the segment cells' temperatures, and the extras' */
  double *vals = s->sol->data, gs[4 * 64];
  for (size_t e = 0; e < ne; e++)
    vals[ny + e] = x[nd + e];
  for (size_t k = 0; k < s->nseg; k++) {
    const seg *g = &s->seg[k];
    gs[k] = g->g;
    double sum = 0;
    for (size_t a = 0; a < g->len; a++)
      sum += vals[g->off + a];
    y[nd + g->ext] -= g->g * sum;
  }
  scatter(s, y, gs, vals);
}

static void lg_apply(const lg_impl *s, const double *x, double *y) {
  size_t R = s->R, C = s->C, L = s->L, nc = s->nc, ne = s->ne;
  for (size_t l = 0; l < L; l++) {
    const double *xl = x + l * nc;
    double *yl = y + l * nc, gr = s->gr[l], gc = s->gc[l], gnd = s->gnd[l];
    for (size_t k = 0; k < nc; k++)
      yl[k] = gnd * xl[k];
    if (l > 0)
      for (size_t k = 0; k < nc; k++)
        yl[k] += s->gz[l - 1] * (xl[k] - xl[k - nc]);
    if (l + 1 < L)
      for (size_t k = 0; k < nc; k++)
        yl[k] += s->gz[l] * (xl[k] - xl[k + nc]);
    for (size_t i = 0; i < R; i++) {
      const double *xr = xl + i * C;
      double *yr = yl + i * C;
      if (i > 0)
        for (size_t j = 0; j < C; j++)
          yr[j] += gr * (xr[j] - xr[j - C]);
      if (i + 1 < R)
        for (size_t j = 0; j < C; j++)
          yr[j] += gr * (xr[j] - xr[j + C]);
      yr[0] += gc * (xr[0] - xr[1]);
      for (size_t j = 1; j + 1 < C; j++)
        yr[j] += gc * (2.0 * xr[j] - xr[j - 1] - xr[j + 1]);
      yr[C - 1] += gc * (xr[C - 1] - xr[C - 2]);
    }
  }
  for (size_t e = 0; e < ne; e++) {
    double v = 0;
    for (size_t f = 0; f < ne; f++)
      v += s->gext[e * ne + f] * x[s->ncell + f];
    y[s->ncell + e] = v;
  }
  for (size_t k = 0; k < s->nseg; k++) {
    const seg *g = &s->seg[k];
    size_t e = s->ncell + g->ext;
    for (size_t a = 0; a < g->len; a++) {
      size_t c = seg_cell(s, g, a);
      y[c] += g->g * (x[c] - x[e]);
      y[e] -= g->g * x[c];
    }
  }
}

static size_t lg_edge_unknowns(const lg_impl *s) {
  return s->ns;
}

static void lg_free(lg_impl *s) {
  if (!s)
    return;
  if (s->pf)
    fftw_destroy_plan(s->pf);
  if (s->pb)
    fftw_destroy_plan(s->pb);
  fftw_free(s->buf), fftw_free(s->corr);
  free(s->gr), free(s->gext), free(s->seg), free(s->fwd_scale), free(s->lam), free(s->scr),
      free(s->piv);
  gsl_matrix_free(s->phr), gsl_matrix_free(s->phc), gsl_matrix_free(s->S);
  for (size_t k = 0; k < s->nplans; k++)
    fftw_destroy_plan(s->plans[k].p);
  fftw_free(s->xbuf);
  gsl_permutation_free(s->perm);
  free(s->ipiv);
  sits__openblas_close(s->blas);
  gsl_vector_free(s->sol), gsl_vector_free(s->z), gsl_vector_free(s->u);
  for (int c = 0; c < 4; c++)
    gsl_matrix_free(s->blk[c]), gsl_permutation_free(s->bperm[c]), gsl_vector_free(s->bvec[c]),
        free(s->bipiv[c]), gsl_matrix_free(s->binv[c]);
  free(s->binv_tmp);
  free(s->mirror[0]), free(s->basis), free(s->row_of);
  free(s);
}

SITS_API const sits__layergrid_ops sits_layergrid_module_ops = {
    SITS__LAYERGRID_ABI, lg_new,          lg_setup,    lg_solve,      lg_apply,
    lg_edge_unknowns,    lg_free,         lg_to_modes, lg_from_modes, lg_solve_modes,
    lg_apply_modes,      lg_wisdom_export};

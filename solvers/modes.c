/* modes.c - the modes of a symmetric thermal network (modes_impl.h): the blocks of S =
 * C^-1/2 G C^-1/2 in the parity basis of the network's mirror symmetries, and their
 * eigen-decompositions (LAPACK's dsyevd from OpenBLAS when it loads, GSL's symmv otherwise).
 *
 * Cost: a HotSpot grid of 12 x 12 cells (588 thermal states) splits into four blocks of 147
 * under its two reflections, ~4 ms each with dsyevd on this project's 2-core machine, where
 * the whole 588 took 60-90 ms; a transform between the nodes and the modes is then four
 * 147 x 147 products instead of one 588 x 588 (a quarter of the work). */
#include "modes_impl.h"
#include "openblas_internal.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_spmatrix.h>

#define EIGEN_BLAS_MIN_CUBES 2e6

typedef void (*syevd_fn)(const char *, const char *, const int *, double *, const int *, double *,
                         double *, const int *, int *, const int *, int *, size_t, size_t);

static bool close_rel(double a, double b, double scale) {
  return fabs(a - b) <= 1e-10 * scale;
}

/* G's entry (i, j): CSC, the column's rows searched */
static double g_at(const gsl_spmatrix *g, size_t i, size_t j) {
  for (int q = g->p[j]; q < g->p[j + 1]; q++)
    if ((size_t)g->i[q] == i)
      return g->data[q];
  return 0.0;
}

static double g_scale(const gsl_spmatrix *g) {
  double s = 0;
  for (size_t k = 0; k < g->nz; k++)
    s = fmax(s, fabs(g->data[k]));
  return s;
}

static bool symmetric(const gsl_spmatrix *g, double scale) {
  for (size_t j = 0; j < g->size2; j++)
    for (int q = g->p[j]; q < g->p[j + 1]; q++)
      if (!close_rel(g_at(g, j, (size_t)g->i[q]), g->data[q], scale))
        return false;
  return true;
}

/* the mirror leaves c and G as they are, and is an involution */
static bool invariant(const sits_expint_modal *o, const size_t *mir, double scale) {
  size_t m = o->m;
  double cmax = 0;
  for (size_t i = 0; i < m; i++)
    cmax = fmax(cmax, o->c[i]);
  for (size_t i = 0; i < m; i++)
    if (mir[i] >= m || mir[mir[i]] != i || !close_rel(o->c[mir[i]], o->c[i], cmax))
      return false;
  const gsl_spmatrix *g = o->g;
  for (size_t j = 0; j < m; j++)
    for (int q = g->p[j]; q < g->p[j + 1]; q++)
      if (!close_rel(g_at(g, mir[(size_t)g->i[q]], mir[j]), g->data[q], scale))
        return false;
  return true;
}

/* Q's columns by class: per orbit {a, M0 a, M1 a, M1 M0 a} and character (s0, s1), the
 * normalised sum of chi(g) e_{g a}; a character that vanishes on the orbit gives none.
 * Without mirrors, the unit vectors (one class). */
static int parity_basis(sits__modes *md, const size_t *m0, const size_t *m1) {
  size_t m = md->m, at = 0;
  if (!m0) {
    for (size_t a = 0; a < m; a++)
      md->basis[a] = (sits__pvec){.k = 1, .idx = {a}, .coef = {1.0}};
    md->ncls = 1, md->off[0] = 0, md->len[0] = m;
    return 0;
  }
  bool *seen = malloc(m * sizeof *seen);
  if (!seen)
    return -1;
  md->ncls = 0;
  for (int cls = 0; cls < 4; cls++) {
    double s0 = cls & 1 ? -1.0 : 1.0, s1 = cls & 2 ? -1.0 : 1.0;
    size_t start = at;
    memset(seen, 0, m * sizeof *seen);
    for (size_t a = 0; a < m; a++) {
      if (seen[a])
        continue;
      size_t img[4] = {a, m0[a], m1[a], m1[m0[a]]};
      double chi[4] = {1.0, s0, s1, s0 * s1};
      sits__pvec v = {0};
      for (int g = 0; g < 4; g++) {
        seen[img[g]] = true;
        int k = 0;
        while (k < v.k && v.idx[k] != img[g])
          k++;
        if (k == v.k)
          v.idx[v.k] = img[g], v.coef[v.k++] = 0.0;
        v.coef[k] += chi[g];
      }
      double norm = 0;
      for (int k = 0; k < v.k; k++)
        norm += v.coef[k] * v.coef[k];
      if (norm < 0.5)
        continue;
      int kept = 0; /* drop the images whose characters cancelled */
      for (int k = 0; k < v.k; k++)
        if (v.coef[k] != 0)
          v.idx[kept] = v.idx[k], v.coef[kept++] = v.coef[k] / sqrt(norm);
      v.k = kept;
      if (at == m) { /* more vectors than nodes: not a group of involutions after all */
        free(seen);
        return 1;
      }
      md->basis[at++] = v;
    }
    if (at > start)
      md->off[md->ncls] = start, md->len[md->ncls++] = at - start;
  }
  free(seen);
  return at == m ? 0 : 1;
}

/* Block k of S in the basis: S_ij = q_i^T C^-1/2 G C^-1/2 q_j (S maps each class to itself) */
static void block_of(const sits__modes *md, const gsl_spmatrix *g, size_t k, double *s, double *r) {
  size_t n = md->len[k], off = md->off[k];
  for (size_t j = 0; j < n; j++) {
    const sits__pvec *qj = &md->basis[off + j];
    for (int t = 0; t < qj->k; t++) { /* r = S q_j, on the columns of q_j's nodes */
      size_t a = qj->idx[t];
      double x = qj->coef[t] * md->isc[a];
      for (int p = g->p[a]; p < g->p[a + 1]; p++)
        r[g->i[p]] += g->data[p] * x;
    }
    for (size_t i = 0; i < n; i++) {
      const sits__pvec *qi = &md->basis[off + i];
      double v = 0;
      for (int t = 0; t < qi->k; t++)
        v += qi->coef[t] * md->isc[qi->idx[t]] * r[qi->idx[t]];
      s[i * n + j] = v;
    }
    for (int t = 0; t < qj->k; t++) /* r back to zero: G's columns of q_j's nodes */
      for (int p = g->p[qj->idx[t]]; p < g->p[qj->idx[t] + 1]; p++)
        r[g->i[p]] = 0;
  }
  for (size_t i = 0; i < n; i++) /* round-off's asymmetry out */
    for (size_t j = i + 1; j < n; j++) {
      double v = 0.5 * (s[i * n + j] + s[j * n + i]);
      s[i * n + j] = s[j * n + i] = v;
    }
}

/* eigenvalues into lam, V and V^T (row-major) into v and vt; s is overwritten */
static int eigen(size_t n, double *s, double *lam, double *v, double *vt, void *blas) {
  syevd_fn syevd = NULL;
  *(void **)&syevd = sits__openblas_sym(blas, "dsyevd_");
  if (syevd) {
    int nn = (int)n, lwork = -1, liwork = -1, info = 0, iq = 0;
    double wq = 0;
    syevd("V", "U", &nn, s, &nn, lam, &wq, &lwork, &iq, &liwork, &info, 1, 1);
    lwork = (int)wq, liwork = iq;
    double *work = malloc((size_t)(lwork > 0 ? lwork : 1) * sizeof *work);
    int *iwork = malloc((size_t)(liwork > 0 ? liwork : 1) * sizeof *iwork);
    if (!work || !iwork) {
      free(work), free(iwork);
      return -1;
    }
    syevd("V", "U", &nn, s, &nn, lam, work, &lwork, iwork, &liwork, &info, 1, 1);
    free(work), free(iwork);
    if (info != 0)
      return 1;
    /* column-major Z read by rows is V^T */
    memcpy(vt, s, n * n * sizeof *vt);
    for (size_t i = 0; i < n; i++)
      for (size_t j = 0; j < n; j++)
        v[i * n + j] = vt[j * n + i];
    return 0;
  }
  gsl_matrix_view a = gsl_matrix_view_array(s, n, n), ev = gsl_matrix_view_array(v, n, n);
  gsl_vector_view l = gsl_vector_view_array(lam, n);
  gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(n);
  if (!ws)
    return -1;
  gsl_error_handler_t *old = gsl_set_error_handler_off();
  int rc = gsl_eigen_symmv(&a.matrix, &l.vector, &ev.matrix, ws);
  gsl_set_error_handler(old);
  gsl_eigen_symmv_free(ws);
  if (rc)
    return 1;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      vt[i * n + j] = v[j * n + i];
  return 0;
}

void sits__modes_free(sits__modes *md) {
  if (!md)
    return;
  free(md->sc), free(md->isc), free(md->mu), free(md->v), free(md->vt);
  free(md->basis), free(md->w), free(md->w_any), free(md->scr);
  free(md->gin_idx), free(md->gout_idx), free(md->gin), free(md->gout);
  free(md);
}

/* The mirrors that pass the checks (C and G invariant under each, the two commuting), else
 * none; one reflection given: its classes, the second character repeating the first. */
static void checked_mirrors(const sits_expint_modal *o, double scale, const size_t **m0,
                            const size_t **m1) {
  *m0 = o->mirror[0], *m1 = o->mirror[1] ? o->mirror[1] : o->mirror[0];
  if (*m0 && (!invariant(o, *m0, scale) || !invariant(o, *m1, scale)))
    *m0 = *m1 = NULL;
  for (size_t i = 0; *m0 && i < o->m; i++)
    if ((*m0)[(*m1)[i]] != (*m1)[(*m0)[i]])
      *m0 = *m1 = NULL;
}

/* The parity basis and each block's eigen-decomposition: 0, -1 out of memory, 1 failed. */
static int decompose(sits__modes *md, const sits_expint_modal *o, double scale) {
  const size_t *m0, *m1;
  checked_mirrors(o, scale, &m0, &m1);
  int rc = parity_basis(md, m0, m1);
  if (rc > 0)
    rc = parity_basis(md, NULL, NULL);
  if (rc)
    return rc;
  size_t vlen = 0, big = 0;
  double cubes = 0;
  for (size_t k = 0; k < md->ncls; k++) {
    size_t len = md->len[k];
    md->voff[k] = vlen, vlen += len * len;
    big = len > big ? len : big;
    cubes += (double)len * (double)len * (double)len;
  }
  double *s = NULL, *r = NULL;
  if (!(md->v = malloc(vlen * sizeof(double))) || !(md->vt = malloc(vlen * sizeof(double))) ||
      !(s = malloc(big * big * sizeof(double))) || !(r = calloc(md->m, sizeof(double)))) {
    free(s);
    return -1;
  }
  /* OpenBLAS's dsyevd where the blocks are large enough to pay for loading it (~5 ms, 22 M
   * instructions): for a block of 147 GSL's symmv took 10 ms, dsyevd 2.5-4 ms; on the 8 x 8
   * ev6 grid's four blocks of ~67 GSL's run took 296 M instructions against 301 M with
   * OpenBLAS loaded, so GSL's below sum len^3 = 2e6 (a 9 x 9 grid's blocks) */
  void *blas = cubes >= EIGEN_BLAS_MIN_CUBES ? sits__openblas_open("SITS_EXPINT_BLAS") : NULL;
  for (size_t k = 0; rc == 0 && k < md->ncls; k++) {
    block_of(md, o->g, k, s, r);
    rc = eigen(md->len[k], s, md->mu + md->off[k], md->v + md->voff[k], md->vt + md->voff[k], blas);
  }
  sits__openblas_close(blas);
  free(s), free(r);
  for (size_t i = 0; rc == 0 && i < md->m; i++) /* S is semi-definite: round-off's negatives 0 */
    md->mu[i] = md->mu[i] > 0 ? -md->mu[i] : 0.0;
  return rc;
}

/* The gathers: each basis vector's nodes, each node's basis vectors (one per class at most);
 * nonzero out of memory. */
static int gathers(sits__modes *md) {
  size_t m = md->m;
  unsigned char *used = NULL;
  if (m > UINT_MAX || !(md->gin_idx = calloc(4 * m, sizeof(unsigned))) ||
      !(md->gout_idx = calloc(4 * m, sizeof(unsigned))) ||
      !(md->gin = calloc(4 * m, sizeof(double))) || !(md->gout = calloc(4 * m, sizeof(double))) ||
      !(used = calloc(m, 1)))
    return -1;
  for (size_t j = 0; j < m; j++)
    for (int t = 0; t < md->basis[j].k; t++) {
      size_t a = md->basis[j].idx[t];
      md->gin_idx[4 * j + (size_t)t] = (unsigned)a;
      md->gin[4 * j + (size_t)t] = md->basis[j].coef[t] * md->sc[a];
      size_t u = 4 * a + used[a]++;
      md->gout_idx[u] = (unsigned)j;
      md->gout[u] = md->basis[j].coef[t] * md->isc[a];
    }
  free(used);
  return 0;
}

/* W in the modes: (W T) = W C^-1/2 Q V z, so w_r = V^T Q^T (C^-1/2 W_r) */
static void modal_w(sits__modes *md, const double *w) {
  size_t m = md->m;
  for (size_t e = 0; w && e < md->ne; e++) {
    const double *wr = w + e * m;
    double *wz = md->w + e * m;
    for (size_t k = 0; k < md->ncls; k++) {
      size_t len = md->len[k], off = md->off[k];
      const double *v = md->v + md->voff[k];
      for (size_t j = 0; j < len; j++) {
        const sits__pvec *q = &md->basis[off + j];
        double u = 0;
        for (int t = 0; t < q->k; t++)
          u += q->coef[t] * md->isc[q->idx[t]] * wr[q->idx[t]];
        for (size_t p = 0; u != 0 && p < len; p++)
          wz[off + p] += u * v[j * len + p];
        md->w_any[e] = md->w_any[e] || u != 0;
      }
    }
  }
}

int sits__modes_new(const sits_expint_modal *o, size_t n, sits__modes **out, sits_err *err) {
  *out = NULL;
  size_t m = o->m;
  if (!m || m > n || !o->c || !o->g || o->g->size1 != m || o->g->size2 != m ||
      o->g->sptype != GSL_SPMATRIX_CSC)
    return sits__fail(err, SITS_EINTERNAL, "the modal form: incomplete options");
  for (size_t i = 0; i < m; i++)
    if (!(o->c[i] > 0) || !isfinite(o->c[i]))
      return sits__fail(err, SITS_EUNSUPPORTED, "the modal form needs positive heat capacities");
  double scale = g_scale(o->g);
  if (!isfinite(scale) || !symmetric(o->g, scale))
    return sits__fail(err, SITS_EUNSUPPORTED, "the modal form needs symmetric conductances");
  sits__modes *md = calloc(1, sizeof *md);
  if (!md)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  md->m = m, md->ne = n - m;
  int rc = (md->sc = malloc(m * sizeof(double))) && (md->isc = malloc(m * sizeof(double))) &&
                   (md->mu = malloc(m * sizeof(double))) &&
                   (md->basis = malloc(m * sizeof *md->basis)) &&
                   (md->scr = calloc(m, sizeof(double))) &&
                   (md->w = calloc(md->ne ? md->ne * m : 1, sizeof(double))) &&
                   (md->w_any = calloc(md->ne ? md->ne : 1, sizeof(bool)))
               ? 0
               : -1;
  for (size_t i = 0; rc == 0 && i < m; i++)
    md->sc[i] = sqrt(o->c[i]), md->isc[i] = 1.0 / md->sc[i];
  if (rc == 0)
    rc = decompose(md, o, scale);
  if (rc == 0)
    rc = gathers(md) ? -1 : 0;
  if (rc) {
    sits__modes_free(md);
    return rc < 0 ? sits__fail(err, SITS_ENOMEM, "out of memory")
                  : sits__fail(err, SITS_ESOLVER, "the network's eigen-decomposition failed");
  }
  modal_w(md, o->w);
  *out = md;
  return SITS_OK;
}

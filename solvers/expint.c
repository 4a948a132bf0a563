/*
 * expint.c - the ETD2RK exponential integrator behind sits_expint (scheme, error estimate,
 * step control and root location are described in sits_expint.h).
 */
#include "sits_expint.h"
#include "modes_impl.h"
#include "openblas_internal.h"
#include "status_internal.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_roots.h>

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SITS_EXPINT_AVX2 1
#else
#define SITS_EXPINT_AVX2 0
#endif

#define CACHE_SLOTS 16
/* Two step lengths within this relative distance share a cache entry: interval lengths
 * computed as differences of times (k + 1) P - k P differ in their last bits. The length
 * error this admits, 1e-9 h |f|, is far below the tolerances. */
#define SAME_H_REL 1e-9
#define TAYLOR_DEGREE 12
#define TAYLOR_NORM 0.5 /* ||X|| after scaling: truncation 0.5^13 / 13! ~ 2e-14 */
#define ROOT_TOL_S 1e-7
#define MAX_HALVINGS 60
#define STALE_SHARE 0.5 /* the remainder's share of the slope change that re-takes A */
#define FILL_LEVELS 8   /* phi pairs of h/2 ... h/2^8 kept from computing h's */
/* the slot phi_for() takes for the longer length outlives the FILL_LEVELS it fills */
_Static_assert(FILL_LEVELS + 1 < CACHE_SLOTS, "the phi cache is too small for its fills");
/* From this many states the phi products go to OpenBLAS when the system has it (Debian's
 * libopenblas0: 10.6 ms a phi pair at n = 134 against 40 ms on GSL's reference CBLAS), loaded
 * by the integrator that needs it: linked into libsits, its start-up would add ~6 ms to every
 * process (the 8-hour video run takes ~23 ms). Below it the products are too small to gain.
 * SITS_EXPINT_BLAS=gsl (or SITS_BLAS=gsl) keeps GSL's at any size (core/openblas.c). */
#define BLAS_MIN_STATES 32
/* The curvature estimate (etd2()): taken twice, as F'' comes from secants one step apart; and
 * the first-order solution's error may be at most FIRST_ORDER_CAP tolerances, against a
 * curvature estimate that cancels by chance. Chosen on tests/sim/test_paths.c (the cubic
 * remainder within 1e-4 at 2 s: 2.2e-4 without the factor 2) and the ev6 block network
 * throttling (26,645 steps; 22,679 with neither, 31,554 with a cap of 4). */
#define CURVATURE_SAFETY 2.0
#define FIRST_ORDER_CAP 10.0
/* A step's interior maximum from its cubic is checked when it exceeds the ends by this many
 * tolerances (rtol |y| + atol), and kept when the cubic agrees with the exact values within
 * as many (step_maxima()) */
#define MAX_CHECK 100.0
#define MAX_GRID 16 /* the check's march across the step: h/16 (a cached level) */
#define SMALL_N 8   /* up to this many states the phi products are plain loops (gemm()) */

typedef void (*dgemm_fn)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, int, int,
                         int, double, const double *, int, const double *, int, double, double *,
                         int);

typedef void (*matvec_fn)(size_t n, const double *m, const double *x, double *out);

typedef struct slot {
  double h;
  unsigned long version, used;
  double *hphi1, *hphi2; /* n x n row-major (hphi2 by columns with sparse_rem) */
} slot;

struct sits_expint {
  sits_expint_opts o;
  size_t n;
  double *atol;
  double t, t_prev;
  double *y, *y_prev, *f, *f_prev, *a, *fa, *d, *corr, *tmp, *jac_values;
  double *g, *g_new, *g_try, *y_try;
  double *ymax; /* per component, the largest value inside the last step */
  /* step_maxima()'s check of the cubic: the end slopes where it has an interior maximum (NAN
   * elsewhere), the exact values at one length and their largest, which disagree */
  double *mx_d1, *mx_u, *mx_t, *mx_top;
  double *mx_d0, *mx_g, *mx_v, *mx_w, *mx_x, *mx_bs, *mx_lu, *mx_ls, *mx_ru, *mx_rs;
  double *mx_pu, *mx_ps; /* the sample before the current one */
  bool *mx_bad;
  /* dense output of the last step [t_prev, t]: the ETD2RK step is the exact solution of
   * u' = A u + F(y_prev) + (s / h) (F(a) - F(y_prev)) (s from the step's start), so the
   * state inside it is that linear system's solution, marched from a cursor */
  double *step_d;      /* (F(a) - F(y_prev)) / h of the accepted step */
  double dn_s;         /* the cursor: offset from t_prev, */
  double *dn_y, *dn_v; /* its state and slope */
  double *dn_q;        /* L phi2(LA) d for the distance q_len of step q_step */
  double q_len;
  long q_step;
  unsigned long q_version;
  bool f_valid;  /* f = f(y) at the current inputs */
  double *amat;  /* A, n x n row-major */
  double a_norm; /* its 1-norm */
  /* the last ETD2RK step's slope change over it (weighted sums of squares): the part A
   * predicts, A (a - y), and the remainder's, F(a) - F(y) (sits_expint_step: a stale A) */
  double lin2, rem2;
  bool stale_a; /* A is to be taken again before the next step */
  /* the last accepted step's length, and whether its secant step_d and this step's describe
   * one smooth stretch of the remainder (no input change, no new A, no root cut between them):
   * then a step's error is estimated from the remainder's curvature (etd2()) */
  double h_last;
  bool d_last_valid;
  int est_order; /* the order in h of the last estimate: 2 (first-order solution's) or 3 */
  unsigned long a_version, clock;
  long a_step; /* the step count at which A was taken */
  double h_pref;
  /* the current interval: its stop, its step, the steps of that length left to its stop (a
   * whole number, exact in a double), and the time the plan expects next (a root or a reinit
   * elsewhere starts a new plan) */
  double plan_tstop, plan_h, plan_left, plan_t;
  double h_first; /* the first step after the last reinit, when the error test cut it (else 0) */
  struct {
    double len, rent; /* an interval cut on cached lengths, the steps that cost so far */
  } odd[8];           /* plan_on_cached() */
  unsigned odd_next;
  bool first_pending;
  slot cache[CACHE_SLOTS];
  slot *mru; /* the last slot found or filled */
  /* workspace of the phi computation */
  gsl_matrix *w_pow, *w_next, *w_e, *w_p1, *w_p2, *w_t1, *w_t2;
  double *phi_scratch1, *phi_scratch2; /* for partial steps (interpolation, roots) */
  void *blas;                          /* OpenBLAS, when loaded (BLAS_MIN_STATES) */
  dgemm_fn dgemm;                      /* its cblas_dgemm; NULL: GSL's */
  matvec_fn mv;                        /* the dense n x n product: matvec() or matvec_avx2() */
  /* A by rows (CSR) for its products, built from the pattern's columns: row i's entries
   * rv[rp[i] .. rp[i+1]) in columns ci[], ascending, each the pattern's entry src[] (a sum
   * along a row in a register instead of scattered additions: 1,206 entries at n = 134 took
   * 2.7 us a product by columns in a run, ~12 % of the ev6 block network's throttling run) */
  int *rp, *ci, *src;
  double *rv;
  /* From BLAS_MIN_STATES states (with mv): the remainder's entries at round-off are exact
   * zeros (etd2()), and the phi2 products take only the columns of a vector's nonzeros
   * (rem_mv()): the remainder lives in the rows whose right-hand side is not linear (leakage
   * and the energy integrals), 13 of 134 on the ev6 block network. The phi2 matrices are then
   * kept by columns, so that each column a product takes is contiguous. */
  bool sparse_rem;
  void (*axpy)(size_t n, double a, const double *x, double *y); /* y += a x */
  /* the modal form (opts.modal): the network's modes, and two vectors of m for the products.
   * A phi pair's arrays are then [a_0 .. a_m-1, b_0 .. b_m-1, c] (modal_phi()) */
  sits__modes *md;
  double *mz, *mz2;
  /* the state in the modes, kept along the steps (modal_f()): z of y (z_ok), of the step's
   * first-order end and of its end; F = f - A y at the inputs' start (the state of the last
   * reinit: F_r, its modes zF_r, and the size of its terms for the round-off test) */
  double *zy, *za, *zt, *zf, *zfr, *fr, *fr_size, *dlt, *row_abs; /* row_abs: sum_j |A_ij| */
  bool z_ok, zfr_ok, zt_ok;
  sits_ode_stats st;
};

/* ---- phi functions ------------------------------------------------------------------ */

/* The larger of a and b where the hot loops compare magnitudes or temperatures: fmax() is a
 * library call that GCC does not inline on x86-64 (~2 % of the ev6 block network's
 * throttling run, with the spills around the call). A NaN in b is returned. */
static inline double max2(double a, double b) {
  return a > b ? a : b;
}

static double norm1(const gsl_matrix *m) {
  double best = 0;
  for (size_t j = 0; j < m->size2; j++) {
    double s = 0;
    for (size_t i = 0; i < m->size1; i++)
      s += fabs(m->data[i * m->tda + j]);
    if (s > best)
      best = s;
  }
  return best;
}

/* c = alpha a b + beta c for n x n row-major arrays with n <= SMALL_N (inlined where n is a
 * constant): row i of a b is the rows of b weighted by row i of a, each sum in k's order */
static inline __attribute__((always_inline)) void
small_gemm(size_t n, double alpha, const double *a, const double *b, double beta, double *c) {
  double t[SMALL_N * SMALL_N];
  memset(t, 0, n * n * sizeof *t);
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < n; k++) {
      double aik = a[i * n + k];
      for (size_t j = 0; j < n; j++)
        t[i * n + j] += aik * b[k * n + j];
    }
  for (size_t i = 0; i < n * n; i++)
    c[i] = alpha * t[i] + (beta != 0.0 ? beta * c[i] : 0.0);
}

/* c = alpha a b + beta c (n x n, row-major): OpenBLAS's dgemm when loaded, GSL's for
 * mid-sized systems, and below SMALL_N a plain product (a board's two- or three-node network:
 * there a phi pair is ~30 products of 2 x 2 matrices, and GSL's per-call checks and row views
 * took ~70 % of a calibration, which computes one for every trace row whose interval differs
 * from the last, as a logger's jittered timestamps do). */
static void gemm(const sits_expint *e, double alpha, const gsl_matrix *a, const gsl_matrix *b,
                 double beta, gsl_matrix *c) {
  size_t n = a->size1;
  if (n <= SMALL_N && a->tda == n && b->tda == n && c->tda == n) { /* rows n apart */
    switch (n) { /* the size a constant in each case, so the compiler unrolls the loops */
    case 1: small_gemm(1, alpha, a->data, b->data, beta, c->data); break;
    case 2: small_gemm(2, alpha, a->data, b->data, beta, c->data); break;
    case 3: small_gemm(3, alpha, a->data, b->data, beta, c->data); break;
    case 4: small_gemm(4, alpha, a->data, b->data, beta, c->data); break;
    case 5: small_gemm(5, alpha, a->data, b->data, beta, c->data); break;
    case 6: small_gemm(6, alpha, a->data, b->data, beta, c->data); break;
    case 7: small_gemm(7, alpha, a->data, b->data, beta, c->data); break;
    default: small_gemm(8, alpha, a->data, b->data, beta, c->data); break; /* n == SMALL_N */
    }
    return;
  }
  if (!e->dgemm) {
    gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, alpha, a, b, beta, c);
    return;
  }
  e->dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, alpha, a->data,
           (int)a->tda, b->data, (int)b->tda, beta, c->data, (int)c->tda);
}

static void store_level(sits_expint *e, double h, const gsl_matrix *p1, const gsl_matrix *p2);

/* c = alpha A b with A on its sparse rows (CSR) and b, c n x n: O(nonzeros n) where a dense
 * product takes n^3 (the ev6 block network: 1,206 entries against 134^2) */
static void csr_gemm(const sits_expint *e, double alpha, const double *b, double *c) {
  size_t n = e->n;
  for (size_t i = 0; i < n; i++) {
    double *ci = c + i * n;
    memset(ci, 0, n * sizeof(double));
    for (int k = e->rp[i]; k < e->rp[i + 1]; k++)
      e->axpy(n, alpha * e->rv[k], b + (size_t)e->ci[k] * n, ci);
  }
}

/* E = e^X, P1 = phi1(X), P2 = phi2(X) with X = h A; outputs scaled by h into hphi1/hphi2.
 * With @p fill, the squarings' intermediate results, which are the phi pairs of h / 2^j (the
 * same X after scaling, so the same numbers as computing them alone), go into the cache for
 * the FILL_LEVELS lengths below h: the halved steps of a rejection and the short steps after
 * an input change find them there. */
static int modal_phi(sits_expint *e, double h, double *hphi1, double *hphi2, sits_err *err);
static int modal_a(sits_expint *e);

static int phi_compute(sits_expint *e, const double *a, double h, double *hphi1, double *hphi2,
                       bool fill, sits_err *err) {
  if (e->md)
    return modal_phi(e, h, hphi1, hphi2, err);
  size_t n = e->n, nn = n * n;
  gsl_matrix *x = e->w_pow, *pw = e->w_next, *em = e->w_e, *p1 = e->w_p1, *p2 = e->w_p2;
  gsl_matrix *t1 = e->w_t1, *t2 = e->w_t2;
  for (size_t i = 0; i < nn; i++)
    x->data[i] = h * a[i];
  double nx = norm1(x);
  if (!isfinite(nx))
    return sits__fail(err, SITS_ESOLVER, "the exponential integrator's matrix is not finite");
  int s = 0;
  if (nx > TAYLOR_NORM) {
    /* s = ceil(log2(nx / TAYLOR_NORM)), exactly (frexp): the same X for h and h 2^j, so the
     * squarings of a longer length pass through the shorter lengths' own results */
    int ex;
    double m = frexp(nx / TAYLOR_NORM, &ex);
    s = m == 0.5 ? ex - 1 : ex;
    if (s > 1000)
      return sits__fail(err, SITS_ESOLVER, "the exponential integrator's matrix is too large");
    double sc = ldexp(1.0, -s);
    for (size_t i = 0; i < nn; i++)
      x->data[i] *= sc;
  }
  /* Taylor: P2 = sum_{k <= TAYLOR_DEGREE} X^k/(k+2)! by Paterson-Stockmeyer in blocks of
   * four (X^2, X^3, X^4, then Horner in X^4 over the blocks B_j = sum_{i<4} c_{4j+i} X^i),
   * then P1 = I + X P2 and E = I + X P1: 8 products where the plain series took 11 (the
   * identities phi_k(X) = 1/k! + X phi_{k+1}(X); E and P1 so carry the series two and one
   * degrees further). The work matrices are n x n with rows n apart, as gsl_matrix_alloc made
   * them: plain loops over their n^2 values. */
  gsl_matrix *x2 = pw, *x3 = t1, *x4 = t2;
  /* From BLAS_MIN_STATES (sparse_rem) the products with X itself run on A's sparse rows,
   * X = (h 2^-s) A: four of the Taylor part's eight dense products */
  double xs = h * ldexp(1.0, -s);
  bool sparse_x = e->sparse_rem;
  if (sparse_x) {
    csr_gemm(e, xs, x->data, x2->data);
    csr_gemm(e, xs, x2->data, x3->data); /* X X^2 = X^2 X */
  } else {
    gemm(e, 1.0, x, x, 0.0, x2);
    gemm(e, 1.0, x2, x, 0.0, x3);
  }
  gemm(e, 1.0, x2, x2, 0.0, x4);
  double c[TAYLOR_DEGREE + 1], f = 2.0; /* c_k = 1/(k+2)! */
  for (int k = 0; k <= TAYLOR_DEGREE; k++)
    c[k] = 1.0 / f, f *= k + 3;
  const gsl_matrix *pows[4] = {NULL, x, x2, x3};
  int top = TAYLOR_DEGREE / 4; /* the last block */
  for (int j = top; j >= 0; j--) {
    if (j < top) /* em <- X^4 R (R in p2) */
      gemm(e, 1.0, x4, p2, 0.0, em);
    else
      memset(em->data, 0, nn * sizeof(double));
    for (size_t i = 0; i < nn; i++) { /* p2 <- B_j + X^4 R */
      double v = em->data[i];
      for (int q = 1; q < 4 && 4 * j + q <= TAYLOR_DEGREE; q++)
        v += c[4 * j + q] * pows[q]->data[i];
      p2->data[i] = v;
    }
    for (size_t i = 0; i < n; i++)
      p2->data[i * n + i] += c[4 * j];
  }
  if (sparse_x)
    csr_gemm(e, xs, p2->data, p1->data);
  else
    gemm(e, 1.0, x, p2, 0.0, p1);
  for (size_t i = 0; i < n; i++)
    p1->data[i * n + i] += 1.0;
  if (sparse_x)
    csr_gemm(e, xs, p1->data, em->data);
  else
    gemm(e, 1.0, x, p1, 0.0, em);
  for (size_t i = 0; i < n; i++)
    em->data[i * n + i] += 1.0;
  /* squaring: P2 <- (P1^2 + 2 P2)/4, P1 <- (E P1 + P1)/2, E <- E^2 */
  for (int k = 0; k < s; k++) {
    if (fill && s - k <= FILL_LEVELS)
      store_level(e, ldexp(h, k - s), p1, p2);
    gemm(e, 0.25, p1, p1, 0.5, p2);
    gemm(e, 0.5, em, p1, 0.0, t1);
    for (size_t i = 0; i < nn; i++)
      p1->data[i] = 0.5 * p1->data[i] + t1->data[i];
    /* E^2: the next squaring's; the last one's is never read. (E = I + X' P1 on the sparse
     * rows instead, tried: its error grows by |X'| at every level, 1.9e-2 of the state on
     * large_linear_step_exact against 2.6e-11) */
    if (k + 1 < s) {
      gemm(e, 1.0, em, em, 0.0, t2);
      memcpy(em->data, t2->data, nn * sizeof(double));
    }
  }
  for (size_t i = 0; i < n * n; i++) {
    if (hphi1)
      hphi1[i] = h * p1->data[i];
    if (hphi2)
      hphi2[e->sparse_rem ? i % n * n + i / n : i] = h * p2->data[i];
    if (!isfinite(p1->data[i]) || !isfinite(p2->data[i]))
      return sits__fail(err, SITS_ESOLVER, "the exponential integrator's phi functions overflowed");
  }
  e->st.lin_setups++;
  return SITS_OK;
}

static void free_work(sits_expint *e) {
  gsl_matrix *m[] = {e->w_pow, e->w_next, e->w_e, e->w_p1, e->w_p2, e->w_t1, e->w_t2};
  for (size_t k = 0; k < sizeof m / sizeof m[0]; k++)
    if (m[k])
      gsl_matrix_free(m[k]);
}

static int alloc_work(sits_expint *e) {
  size_t n = e->n;
  gsl_matrix **m[] = {&e->w_pow, &e->w_next, &e->w_e, &e->w_p1, &e->w_p2, &e->w_t1, &e->w_t2};
  for (size_t k = 0; k < sizeof m / sizeof m[0]; k++)
    if (!(*m[k] = gsl_matrix_alloc(n, n)))
      return -1;
  return 0;
}

int sits_expint_phi(size_t n, const double *a, double h, double *hphi1, double *hphi2,
                    sits_err *err) {
  sits_expint e = {.n = n};
  int rc = n && !alloc_work(&e) ? phi_compute(&e, a, h, hphi1, hphi2, false, err)
                                : sits__fail(err, SITS_ENOMEM, "out of memory");
  free_work(&e);
  return rc;
}

/* ---- the frozen Jacobian and the cache --------------------------------------------------- */

static int refresh_a(sits_expint *e, const double *y, sits_err *err) {
  if (e->md) { /* the modal form's A is its linear part, taken once */
    e->a_step = e->st.steps;
    if (e->a_version)
      return SITS_OK;
    if (modal_a(e))
      return sits__fail(err, SITS_EINTERNAL,
                        "the modal form: an entry of its linear part is not on the pattern");
    for (size_t i = 0; i < e->n; i++) {
      e->row_abs[i] = 0;
      for (int k = e->rp[i]; k < e->rp[i + 1]; k++)
        e->row_abs[i] += fabs(e->rv[k]);
    }
    e->a_version = 1;
    e->a_norm = 0; /* its phi pairs cost O(m): none are filled on the way (phi_for()) */
    e->d_last_valid = false;
    e->st.jac_evals++;
    return SITS_OK;
  }
  const gsl_spmatrix *p = e->o.pattern;
  if (e->o.jac(e->t, y, e->jac_values, e->o.user))
    return sits__fail(err, SITS_ESOLVER, "the Jacobian could not be evaluated");
  memset(e->amat, 0, e->n * e->n * sizeof(double));
  for (size_t j = 0; j < e->n; j++)
    for (int q = p->p[j]; q < p->p[j + 1]; q++)
      e->amat[(size_t)p->i[q] * e->n + j] = e->jac_values[q];
  e->a_norm = 0;
  for (size_t j = 0; j < e->n; j++) {
    double c = 0;
    for (int q = p->p[j]; q < p->p[j + 1]; q++)
      c += fabs(e->jac_values[q]);
    e->a_norm = fmax(e->a_norm, c);
  }
  for (size_t k = 0; k < p->nz; k++)
    e->rv[k] = e->jac_values[e->src[k]];
  e->a_version++;
  e->d_last_valid = false; /* F = f - A y changed with A */
  e->a_step = e->st.steps;
  e->st.jac_evals++;
  return SITS_OK;
}

static slot *find_slot(sits_expint *e, double h) {
  for (int k = 0; k < CACHE_SLOTS; k++) {
    slot *s = &e->cache[k];
    if (s->version == e->a_version && fabs(s->h - h) <= SAME_H_REL * h)
      return s;
  }
  return NULL;
}

/* The phi pair of length @p h. On a miss, when the steps may grow to @p hmax (the rest of
 * the interval), the pair of the longest length top = h 2^j <= hmax (j <= FILL_LEVELS) that
 * is not cached yet is computed instead, its squarings passing through h and the lengths
 * between (which the doubling steps of the interval, try_step(), then find in the cache):
 * only when h A is large enough to be scaled down (|h A| > TAYLOR_NORM), else h's own pair.
 * A failure at the longer length (an overflow) falls back to h's own. Without @p fill (the
 * dense output's lengths, used once) only h's pair is computed and kept. */
static const slot *phi_for(sits_expint *e, double h, double hmax, bool fill, sits_err *err) {
  slot *m = e->mru; /* ticks ask for one length again and again */
  if (m && m->version == e->a_version && fabs(m->h - h) <= SAME_H_REL * h) {
    m->used = ++e->clock;
    return m;
  }
  slot *hit = find_slot(e, h);
  if (hit) {
    hit->used = ++e->clock;
    return e->mru = hit;
  }
  double top = h;
  if (fill && h * e->a_norm > TAYLOR_NORM)
    for (int j = 0; j < FILL_LEVELS && 2 * top <= hmax * (1 + SAME_H_REL) && !find_slot(e, 2 * top);
         j++)
      top *= 2;
  for (int pass = 0; pass < 2; pass++, top = h) {
    slot *lru = &e->cache[0];
    for (int k = 1; k < CACHE_SLOTS; k++)
      if (e->cache[k].used < lru->used)
        lru = &e->cache[k];
    lru->h = top; /* taken first, so that the shorter lengths filled on the way keep it */
    lru->version = e->a_version;
    lru->used = ++e->clock;
    if (phi_compute(e, e->amat, top, lru->hphi1, lru->hphi2, fill, err)) {
      lru->version = 0; /* no A has version 0 */
      if (top == h)
        return NULL;
      *err = (sits_err){0}; /* h's own may still be computed */
      continue;
    }
    if ((hit = top == h ? lru : find_slot(e, h))) {
      hit->used = ++e->clock;
      return e->mru = hit;
    }
  }
  sits__fail(err, SITS_EINTERNAL, "exponential integrator: phi cache");
  return NULL;
}

/* The phi pair of length @p h for the current A, from phi1/phi2 of hA, into the cache unless
 * it is there (a pair that is not finite is left out). */
static void store_level(sits_expint *e, double h, const gsl_matrix *p1, const gsl_matrix *p2) {
  slot *lru = NULL;
  for (int k = 0; k < CACHE_SLOTS; k++) {
    slot *s = &e->cache[k];
    if (s->version == e->a_version && fabs(s->h - h) <= SAME_H_REL * h)
      return;
    if (!lru || s->used < lru->used)
      lru = s;
  }
  size_t nn = e->n * e->n;
  for (size_t i = 0; i < nn; i++) {
    size_t i2 = e->sparse_rem ? i % e->n * e->n + i / e->n : i;
    lru->hphi1[i] = h * p1->data[i];
    lru->hphi2[i2] = h * p2->data[i];
    if (!isfinite(lru->hphi1[i]) || !isfinite(lru->hphi2[i2])) {
      lru->version = 0;
      return;
    }
  }
  lru->h = h;
  lru->version = e->a_version;
  lru->used = ++e->clock;
}

/* ---- stepping ----------------------------------------------------------------------------- */

/* Rows i0.. of out = m x, one at a time (the rows left over by four at a time). */
static void rows_from(size_t i0, size_t n, const double *m, const double *x, double *out) {
  for (size_t i = i0; i < n; i++) {
    const double *row = m + i * n;
    double s = 0;
    for (size_t j = 0; j < n; j++)
      s += row[j] * x[j];
    out[i] = s;
  }
}

/* out = m x, m n x n row-major. Four rows at a time: four independent sums (each in the same
 * order as a row alone, so the result is the same to the bit) hide the latency of the
 * additions that one running sum waits on. */
static void matvec(size_t n, const double *m, const double *x, double *out) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const double *r0 = m + i * n, *r1 = r0 + n, *r2 = r1 + n, *r3 = r2 + n;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (size_t j = 0; j < n; j++) {
      double xj = x[j];
      s0 += r0[j] * xj;
      s1 += r1[j] * xj;
      s2 += r2[j] * xj;
      s3 += r3[j] * xj;
    }
    out[i] = s0, out[i + 1] = s1, out[i + 2] = s2, out[i + 3] = s3;
  }
  rows_from(i, n, m, x, out);
}

#if SITS_EXPINT_AVX2
/* The same product on AVX2 with FMA, chosen at run time (sits_expint_new(): the processor
 * has both, from BLAS_MIN_STATES states): four rows at a time, each row's sum in four lanes
 * of four columns (a summation order other than matvec()'s, so the last bits differ). The
 * build stays for any x86-64; matvec() is what the rest run. At n = 134: 2.1 us a product
 * against 4.7-5.0 us (a loop of 1e5 products, 2026-12-07), where the dense products of the
 * steps and the samples were ~30 % of the ev6 block network's throttling run. */
__attribute__((target("avx2,fma"))) static double hsum4(__m256d a) {
  __m128d lo = _mm_add_pd(_mm256_castpd256_pd128(a), _mm256_extractf128_pd(a, 1));
  return _mm_cvtsd_f64(lo) + _mm_cvtsd_f64(_mm_unpackhi_pd(lo, lo));
}

__attribute__((target("avx2,fma"))) static void matvec_avx2(size_t n, const double *m,
                                                            const double *x, double *out) {
  size_t n4 = n & ~(size_t)3, i = 0;
  for (; i + 4 <= n; i += 4) {
    const double *r0 = m + i * n, *r1 = r0 + n, *r2 = r1 + n, *r3 = r2 + n;
    __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
    size_t j = 0;
    for (; j < n4; j += 4) {
      __m256d xv = _mm256_loadu_pd(x + j);
      a0 = _mm256_fmadd_pd(_mm256_loadu_pd(r0 + j), xv, a0);
      a1 = _mm256_fmadd_pd(_mm256_loadu_pd(r1 + j), xv, a1);
      a2 = _mm256_fmadd_pd(_mm256_loadu_pd(r2 + j), xv, a2);
      a3 = _mm256_fmadd_pd(_mm256_loadu_pd(r3 + j), xv, a3);
    }
    double s0 = hsum4(a0), s1 = hsum4(a1), s2 = hsum4(a2), s3 = hsum4(a3);
    for (; j < n; j++) {
      double xj = x[j];
      s0 += r0[j] * xj, s1 += r1[j] * xj, s2 += r2[j] * xj, s3 += r3[j] * xj;
    }
    out[i] = s0, out[i + 1] = s1, out[i + 2] = s2, out[i + 3] = s3;
  }
  rows_from(i, n, m, x, out);
}
#endif

static void axpy(size_t n, double a, const double *x, double *y) {
  for (size_t i = 0; i < n; i++)
    y[i] += a * x[i];
}

#if SITS_EXPINT_AVX2
__attribute__((target("avx2,fma"))) static void axpy_avx2(size_t n, double a, const double *x,
                                                          double *y) {
  __m256d av = _mm256_set1_pd(a);
  size_t i = 0;
  for (; i + 4 <= n; i += 4)
    _mm256_storeu_pd(y + i, _mm256_fmadd_pd(av, _mm256_loadu_pd(x + i), _mm256_loadu_pd(y + i)));
  for (; i < n; i++)
    y[i] += a * x[i];
}
#endif

/* ---- the modal form (sits_expint_opts.modal, modes_impl.h) ------------------------------ */

/* phi1, phi2 and phi3 at z <= 0: their Taylor series near 0 (|z| < 1/2: 17 terms, the first
 * left out ~0.5^17 / 17! of the sum), else from expm1 (the cancellation in phi3 at |z| = 1/2
 * costs ~1e-16 / 0.018 relative) */
static void phis(double z, double *p1, double *p2, double *p3) {
  if (fabs(z) < 0.5) {
    static const double inv_fact[20] = {/* 1 / k! */
                                        1.0,
                                        1.0,
                                        1.0 / 2,
                                        1.0 / 6,
                                        1.0 / 24,
                                        1.0 / 120,
                                        1.0 / 720,
                                        1.0 / 5040,
                                        1.0 / 40320,
                                        1.0 / 362880,
                                        1.0 / 3628800,
                                        1.0 / 39916800,
                                        1.0 / 479001600,
                                        1.0 / 6227020800.0,
                                        1.0 / 87178291200.0,
                                        1.0 / 1307674368000.0,
                                        1.0 / 20922789888000.0,
                                        1.0 / 355687428096000.0,
                                        1.0 / 6402373705728000.0,
                                        1.0 / 121645100408832000.0};
    double s1 = 0, s2 = 0, s3 = 0;
    for (int j = 16; j >= 0; j--) { /* Horner: phi_k = sum_j z^j / (j + k)! */
      s1 = inv_fact[j + 1] + z * s1;
      s2 = inv_fact[j + 2] + z * s2;
      s3 = inv_fact[j + 3] + z * s3;
    }
    *p1 = s1, *p2 = s2, *p3 = s3;
    return;
  }
  double em = expm1(z);
  *p1 = em / z;
  *p2 = (em - z) / (z * z);
  *p3 = (em - z - 0.5 * z * z) / (z * z * z);
}

/* The phi pair of length h in the modes: with mu the eigenvalues of A_TT,
 *   hphi1 = [h phi1(h mu), h^2 phi2(h mu), h], hphi2 = [h phi2(h mu), h^2 phi3(h mu), h/2]
 * (A = [A_TT, 0; W, 0]: h phi1(hA) = [h phi1(h A_TT), 0; h^2 W phi2(h A_TT), h I] and
 * h phi2(hA) = [h phi2(h A_TT), 0; h^2 W phi3(h A_TT), h/2 I], from A^k = [A_TT^k, 0;
 * W A_TT^(k-1), 0]). */
static int modal_phi(sits_expint *e, double h, double *hphi1, double *hphi2, sits_err *err) {
  const sits__modes *md = e->md;
  size_t m = md->m;
  double p1, p2, p3, *t1 = e->phi_scratch1, *t2 = e->phi_scratch2;
  double *o1 = hphi1 ? hphi1 : t1, *o2 = hphi2 ? hphi2 : t2;
  for (size_t k = 0; k < m; k++) {
    phis(h * md->mu[k], &p1, &p2, &p3);
    o1[k] = h * p1, o1[m + k] = h * h * p2;
    o2[k] = h * p2, o2[m + k] = h * h * p3;
    if (!isfinite(o1[k]) || !isfinite(o2[m + k]))
      return sits__fail(err, SITS_ESOLVER, "the exponential integrator's phi functions overflowed");
  }
  o1[2 * m] = h, o2[2 * m] = 0.5 * h;
  e->st.lin_setups++;
  return SITS_OK;
}

/* z = V^T Q^T C^1/2 x block by block (x's thermal part, a state or a slope): a block's
 * product as the rows of V for x's nonzeros when they are few (a remainder lives at the
 * leakage nodes), else V^T's dense product */
static void modes_in(const sits_expint *e, const double *x, double *z) {
  const sits__modes *md = e->md;
  double *u = md->scr;
  const unsigned *gi = md->gin_idx;
  const double *gc = md->gin;
  for (size_t k = 0; k < md->ncls; k++) {
    size_t len = md->len[k], off = md->off[k], nz = 0;
    for (size_t j = off; j < off + len; j++) {
      const unsigned *ix = gi + 4 * j;
      const double *cf = gc + 4 * j;
      double v = cf[0] * x[ix[0]] + cf[1] * x[ix[1]] + cf[2] * x[ix[2]] + cf[3] * x[ix[3]];
      u[j] = v;
      nz += v != 0;
    }
    if (4 * nz < len) {
      memset(z + off, 0, len * sizeof(double));
      for (size_t j = 0; j < len; j++)
        if (u[off + j] != 0)
          e->axpy(len, u[off + j], md->v + md->voff[k] + j * len, z + off);
    } else {
      e->mv(len, md->vt + md->voff[k], u + off, z + off);
    }
  }
}

/* x's thermal part = C^-1/2 Q V z */
static void modes_out(const sits_expint *e, const double *z, double *x) {
  const sits__modes *md = e->md;
  double *u = md->scr;
  for (size_t k = 0; k < md->ncls; k++)
    e->mv(md->len[k], md->v + md->voff[k], z + md->off[k], u + md->off[k]);
  const unsigned *gi = md->gout_idx;
  const double *gc = md->gout;
  for (size_t i = 0; i < md->m; i++) {
    const unsigned *ix = gi + 4 * i;
    const double *cf = gc + 4 * i;
    x[i] = cf[0] * u[ix[0]] + cf[1] * u[ix[1]] + cf[2] * u[ix[2]] + cf[3] * u[ix[3]];
  }
}

/* out = M x for a phi matrix M of the modal form, given as modal_phi()'s array: the thermal
 * part C^-1/2 Q V diag(a) V^T Q^T C^1/2 x_T, each other row c x_r + w_r . (b z) */
static void modal_mv(sits_expint *e, const double *arr, const double *x, double *out) {
  const sits__modes *md = e->md;
  size_t m = md->m;
  double *z = e->mz, *z2 = e->mz2;
  modes_in(e, x, z);
  for (size_t k = 0; k < m; k++)
    z2[k] = arr[k] * z[k];
  modes_out(e, z2, out);
  for (size_t r = 0; r < md->ne; r++) {
    const double *w = md->w + r * m;
    double s = arr[2 * m] * x[m + r];
    for (size_t k = 0; md->w_any[r] && k < m; k++) /* E_in's row is zero: its input is power */
      s += w[k] * arr[m + k] * z[k];
    out[m + r] = s;
  }
}

/* out = M x for a phi matrix M (the h phi1 products): dense, or in the modes */
static void prod(sits_expint *e, const double *mat, const double *x, double *out) {
  if (e->md)
    modal_mv(e, mat, x, out);
  else
    e->mv(e->n, mat, x, out);
}

/* A's entries on the pattern's rows from the modal form: -G_ij / c_i in the thermal rows, W
 * below; nonzero when one of A's entries is not on the pattern */
static int modal_a(sits_expint *e) {
  const sits_expint_modal *o = e->o.modal;
  size_t m = o->m, found = 0, want = 0;
  for (size_t i = 0; i < e->n; i++)
    for (int k = e->rp[i]; k < e->rp[i + 1]; k++) {
      size_t j = (size_t)e->ci[k];
      double v = 0;
      if (i < m && j < m) {
        for (int q = o->g->p[j]; q < o->g->p[j + 1]; q++)
          if ((size_t)o->g->i[q] == i)
            v = -o->g->data[q] / o->c[i];
      } else if (i >= m && j < m && o->w) {
        v = o->w[(i - m) * m + j];
      }
      e->rv[k] = v;
      found += v != 0;
    }
  for (size_t k = 0; k < o->g->nz; k++)
    want += o->g->data[k] != 0;
  for (size_t k = 0; o->w && k < (e->n - m) * m; k++)
    want += o->w[k] != 0;
  return found == want ? 0 : 1;
}

/* out = m x for the phi2 products (the remainder's d and step_d, etd2()). With sparse_rem, m
 * is kept by columns and the product is a sum of the columns of x's nonzeros, in ascending
 * order: the remainder lives in a few rows (13 of 134 on the ev6 block network), and each
 * column is contiguous. Otherwise the dense product. */
static void rem_mv(sits_expint *e, const double *m, const double *x, double *out) {
  size_t n = e->n;
  if (e->md) {
    modal_mv(e, m, x, out);
    return;
  }
  if (!e->sparse_rem) {
    e->mv(n, m, x, out);
    return;
  }
  memset(out, 0, n * sizeof(double));
  for (size_t j = 0; j < n; j++)
    if (x[j] != 0)
      e->axpy(n, x[j], m + j * n, out);
}

/* sum_j |A_ij| max(|a_j|, |y_j|) over row i's own entries (etd2()'s round-off bound) */
static double row_size(const sits_expint *e, size_t i, const double *a, const double *y) {
  double z = 0;
  for (int k = e->rp[i]; k < e->rp[i + 1]; k++)
    z += fabs(e->rv[k]) * max2(fabs(a[e->ci[k]]), fabs(y[e->ci[k]]));
  return z;
}

/* (A x)_i, row i alone, its entries in ascending columns */
static inline double row_dot(const sits_expint *e, size_t i, const double *x) {
  double s = 0;
  for (int k = e->rp[i]; k < e->rp[i + 1]; k++)
    s += e->rv[k] * x[e->ci[k]];
  return s;
}

/* out = A x on A's sparse pattern (the values A was taken from), O(nonzeros); row by row,
 * each row's sum in ascending columns (the order a sum by columns gives it). */
static void spmv(const sits_expint *e, const double *x, double *out) {
  const int *rp = e->rp, *ci = e->ci;
  const double *rv = e->rv;
  size_t i = 0;
  /* four rows at a time, each its own sum in its own order (the same bits as one row alone):
   * the four chains of additions overlap where one waits on each addition's latency (1,206
   * entries at n = 134, ~9 a row) */
  for (; i + 4 <= e->n; i += 4) {
    int k0 = rp[i], k1 = rp[i + 1], k2 = rp[i + 2], k3 = rp[i + 3], k4 = rp[i + 4];
    int m = k1 - k0;
    m = k2 - k1 < m ? k2 - k1 : m;
    m = k3 - k2 < m ? k3 - k2 : m;
    m = k4 - k3 < m ? k4 - k3 : m;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (int q = 0; q < m; q++) {
      s0 += rv[k0 + q] * x[ci[k0 + q]];
      s1 += rv[k1 + q] * x[ci[k1 + q]];
      s2 += rv[k2 + q] * x[ci[k2 + q]];
      s3 += rv[k3 + q] * x[ci[k3 + q]];
    }
    for (int k = k0 + m; k < k1; k++)
      s0 += rv[k] * x[ci[k]];
    for (int k = k1 + m; k < k2; k++)
      s1 += rv[k] * x[ci[k]];
    for (int k = k2 + m; k < k3; k++)
      s2 += rv[k] * x[ci[k]];
    for (int k = k3 + m; k < k4; k++)
      s3 += rv[k] * x[ci[k]];
    out[i] = s0, out[i + 1] = s1, out[i + 2] = s2, out[i + 3] = s3;
  }
  for (; i < e->n; i++)
    out[i] = row_dot(e, i, x);
}

static int rhs(sits_expint *e, const double *y, double *out, sits_err *err) {
  e->st.rhs_evals++;
  int rc = e->o.rhs(e->t, y, out, e->o.user);
  if (rc)
    return sits__fail(err, SITS_ESOLVER, "the right-hand side failed (%d)", rc);
  return SITS_OK;
}

static int ensure_f(sits_expint *e, sits_err *err) {
  if (e->f_valid)
    return SITS_OK;
  int rc = rhs(e, e->y, e->f, err);
  e->f_valid = rc == SITS_OK;
  return rc;
}

/* One ETD2RK step of length h from (y, f) into out; the error estimate into *est (may be
 * NULL). hphi1/hphi2: the phi matrices for h.
 *
 * The estimate: after a step of the same smooth stretch (e->d_last_valid), that of the
 * second-order solution carried on. ETD2RK takes the remainder F as linear in time over the
 * step (its secant d / h); with F = F0 + t F1 + t^2 F2 / 2 the solution it misses is
 * h^3 (phi3(hA) - phi2(hA) / 2) F2, at most h^3 / 12 |F2| for a dissipative A (-1/12 at hA =
 * 0, smaller for the stiff modes), and F2 is the change of the secant slope from the last
 * step to this one over the distance between their midpoints (taken CURVATURE_SAFETY times,
 * and never below the first-order solution's error over FIRST_ORDER_CAP). Otherwise (the
 * first step after an input change, a new A or a root) the correction h phi2 d, the
 * first-order solution's error, which bounds the second's. *e->est_order says which (the
 * estimate's order in h: the steps double below 2^-order). */
/* out = h phi1(hA) f(y) for the integrator's own state y in the modal form, from the state's
 * modes z (kept along the steps) rather than a transform of f: f's modes are mu z + those of
 * F = f - A y, and F changes from the inputs' start F_r only at the nodes whose power depends
 * on the temperature (leakage: 30 of 588 on the 12 x 12 ev6 grid), so its change's transform
 * takes the few rows of V those nodes reach (modes_in()), where f's took every row. The
 * entries of the change at round-off (64 eps of the terms of f - A y, now and at the start)
 * are zeros, as etd2()'s remainder's. Also the modes of the first-order end, z + h phi1 zf,
 * into za. */
static void modal_f(sits_expint *e, const double *hphi1, const double *f, double *out) {
  const sits__modes *md = e->md;
  size_t m = md->m;
  const double *y = e->y;
  if (!e->z_ok) {
    modes_in(e, y, e->zy);
    e->z_ok = true;
  }
  spmv(e, y, e->dlt);
  double ytop = 0; /* the terms of (A y)_i are at most row_abs_i ytop */
  for (size_t i = 0; i < m; i++)
    ytop = max2(ytop, fabs(y[i]));
  if (!e->zfr_ok) {
    for (size_t i = 0; i < m; i++)
      e->fr[i] = f[i] - e->dlt[i], e->fr_size[i] = fabs(f[i]) + e->row_abs[i] * ytop;
    modes_in(e, e->fr, e->zfr);
    e->zfr_ok = true;
  }
  for (size_t i = 0; i < m; i++) {
    double dd = (f[i] - e->dlt[i]) - e->fr[i];
    double tiny = 64 * DBL_EPSILON * (fabs(f[i]) + e->row_abs[i] * ytop + e->fr_size[i]);
    e->dlt[i] = fabs(dd) <= tiny ? 0.0 : dd;
  }
  modes_in(e, e->dlt, e->mz);
  double *zf = e->zf;
  for (size_t k = 0; k < m; k++) {
    zf[k] = md->mu[k] * e->zy[k] + e->zfr[k] + e->mz[k];
    e->mz2[k] = hphi1[k] * zf[k];
    e->za[k] = e->zy[k] + e->mz2[k];
  }
  modes_out(e, e->mz2, out);
  for (size_t r = 0; r < md->ne; r++) {
    const double *w = md->w + r * m;
    double sum = hphi1[2 * m] * f[m + r];
    for (size_t k = 0; md->w_any[r] && k < m; k++)
      sum += w[k] * hphi1[m + k] * zf[k];
    out[m + r] = sum;
  }
}

static int etd2(sits_expint *e, const double *y, const double *f, double h, const double *hphi1,
                const double *hphi2, double *out, double *est, sits_err *err) {
  size_t n = e->n;
  /* the modal form from the integrator's own state: its modes kept (modal_f()) */
  bool zfast = e->md && y == e->y && f == e->f && h > 0;
  if (zfast)
    modal_f(e, hphi1, f, e->tmp);
  else
    prod(e, hphi1, f, e->tmp);
  for (size_t i = 0; i < n; i++)
    e->a[i] = y[i] + e->tmp[i];
  int rc = rhs(e, e->a, e->fa, err);
  if (rc)
    return rc;
  /* F(a) - F(y) = f(a) - f(y) - A (a - y) */
  for (size_t i = 0; i < n; i++)
    e->tmp[i] = e->a[i] - y[i];
  spmv(e, e->tmp, e->d);
  double lin2 = 0, rem2 = 0; /* A's share of the slope's change over the step, and F's */
  for (size_t i = 0; i < n; i++) {
    double w = e->o.rtol * fabs(y[i]) + e->atol[i], ad = e->d[i];
    e->d[i] = e->fa[i] - f[i] - ad;
    /* a linear row's d is the round-off of f(a) - f(y) - A (a - y): a few eps of its terms'
     * sizes, which |f(a)| + |f(y)| + 2 sum_j |A_ij| max(|a_j|, |y_j|) (over the row's own
     * entries: an energy integral that no row reads does not count) bounds; 64 eps of that
     * is a zero (a nonlinear row's d so small moves the state by less than its round-off);
     * the sum over the row only where the two values alone do not settle it */
    if (e->sparse_rem) {
      double ad_f = fabs(e->d[i]), base = fabs(e->fa[i]) + fabs(f[i]);
      if (ad_f <= 64 * DBL_EPSILON * base ||
          ad_f <= 64 * DBL_EPSILON * (base + 2 * row_size(e, i, e->a, y)))
        e->d[i] = 0;
    }
    lin2 += (ad / w) * (ad / w);
    rem2 += (e->d[i] / w) * (e->d[i] / w);
  }
  e->lin2 = lin2, e->rem2 = rem2;
  rem_mv(e, hphi2, e->d, e->corr);
  if (zfast) /* the end's modes: za + h phi2 zd (modal_mv() left h phi2 zd in mz2) */
    for (size_t k = 0; k < e->md->m; k++)
      e->zt[k] = e->za[k] + e->mz2[k];
  e->zt_ok = zfast;
  bool curved = est && e->d_last_valid && h > 0; /* h 0: a partial step, no estimate */
  double sum = 0, sum3 = 0, k3 = curved ? h * h * h / 12.0 / (0.5 * (h + e->h_last)) : 0;
  for (size_t i = 0; i < n; i++) {
    out[i] = e->a[i] + e->corr[i];
    double w = e->o.rtol * max2(fabs(y[i]), fabs(out[i])) + e->atol[i];
    double r = e->corr[i] / w, r3 = k3 * (e->d[i] / h - e->step_d[i]) / w;
    sum += r * r, sum3 += r3 * r3;
  }
  if (est && curved)
    *est = fmax(CURVATURE_SAFETY * sqrt(sum3 / (double)n), sqrt(sum / (double)n) / FIRST_ORDER_CAP);
  else if (est)
    *est = sqrt(sum / (double)n);
  if (est)
    e->est_order = curved ? 3 : 2;
  return SITS_OK;
}

/* A root function's sign change from g0 to g1; with @p at_end, one that reaches 0 at the end
 * counts too. */
static bool crossed(double g0, double g1, bool at_end) {
  return at_end ? (g0 < 0 && g1 >= 0) || (g0 > 0 && g1 <= 0)
                : (g0 < 0 && g1 > 0) || (g0 > 0 && g1 < 0);
}

static int eval_roots(sits_expint *e, const double *y, double *g) {
  return e->o.n_roots ? e->o.roots(e->t, y, g, e->o.user) : 0;
}

typedef struct partial_ctx {
  sits_expint *e;
  int k;
  sits_err *err;
  int rc;
} partial_ctx;

/* The state a partial step of length s from the last step's start reaches (into y_try). */
static int partial(sits_expint *e, double s, sits_err *err) {
  if (s <= 0) {
    memcpy(e->y_try, e->y_prev, e->n * sizeof(double));
    return SITS_OK;
  }
  int rc = phi_compute(e, e->amat, s, e->phi_scratch1, e->phi_scratch2, false, err);
  return rc ? rc
            : etd2(e, e->y_prev, e->f_prev, 0, e->phi_scratch1, e->phi_scratch2, e->y_try, NULL,
                   err);
}

static double root_fn(double s, void *user) {
  partial_ctx *c = user;
  if (c->rc)
    return 0;
  if ((c->rc = partial(c->e, s, c->err)) || eval_roots(c->e, c->e->y_try, c->e->g_try)) {
    if (!c->rc)
      c->rc = sits__fail(c->err, SITS_ESOLVER, "the root functions failed");
    return 0;
  }
  return c->e->g_try[c->k];
}

/* The earliest crossing inside the last step [t_prev, t] into *s_root (h when none). */
static int locate_root(sits_expint *e, double h, double *s_root, sits_err *err) {
  *s_root = h;
  gsl_root_fsolver *sol = NULL;
  int rc = SITS_OK;
  for (int k = 0; k < e->o.n_roots && rc == SITS_OK; k++) {
    if (!crossed(e->g[k], e->g_new[k], false))
      continue; /* no crossing, or one exactly at the step's end (s = h) */
    if (!sol && !(sol = gsl_root_fsolver_alloc(gsl_root_fsolver_brent))) {
      rc = sits__fail(err, SITS_ENOMEM, "out of memory");
      break;
    }
    partial_ctx c = {e, k, err, SITS_OK};
    gsl_function fn = {root_fn, &c};
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int status = gsl_root_fsolver_set(sol, &fn, 0.0, h);
    double up = h;
    for (int it = 0; status == GSL_SUCCESS && it < 200 && c.rc == SITS_OK; it++) {
      status = gsl_root_fsolver_iterate(sol);
      double lo = gsl_root_fsolver_x_lower(sol);
      up = gsl_root_fsolver_x_upper(sol);
      if (gsl_root_test_interval(lo, up, ROOT_TOL_S, 0) == GSL_SUCCESS)
        break;
    }
    gsl_set_error_handler(old);
    rc = c.rc;
    if (up < *s_root)
      *s_root = up; /* just past the crossing: the event's condition holds there */
  }
  if (sol)
    gsl_root_fsolver_free(sol);
  return rc;
}

/* The maximum of the cubic Hermite interpolant on [0, 1] with values y0, y1 and scaled
 * slopes d0 > 0 > d1 (so it has an interior maximum where its derivative vanishes). */
static double hermite_max(double y0, double y1, double d0, double d1) {
  double a = 6 * (y0 - y1) + 3 * (d0 + d1), b = -6 * (y0 - y1) - 4 * d0 - 2 * d1, c = d0;
  double best = fmax(y0, y1), th[2];
  int k = 0;
  if (fabs(a) < 1e-300) {
    if (b != 0)
      th[k++] = -c / b;
  } else {
    double disc = b * b - 4 * a * c;
    if (disc >= 0) {
      double q = -0.5 * (b + copysign(sqrt(disc), b));
      th[k++] = q / a;
      if (q != 0)
        th[k++] = c / q;
    }
  }
  for (int j = 0; j < k; j++) {
    double x = th[j];
    if (!(x > 0 && x < 1))
      continue;
    double x2 = x * x, x3 = x2 * x;
    double p = (2 * x3 - 3 * x2 + 1) * y0 + (x3 - 2 * x2 + x) * d0 + (3 * x2 - 2 * x3) * y1 +
               (x3 - x2) * d1;
    best = fmax(best, p);
  }
  return best;
}

static void dense_reset(sits_expint *e) {
  e->dn_s = 0;
  memcpy(e->dn_y, e->y_prev, e->n * sizeof(double));
  memcpy(e->dn_v, e->f_prev, e->n * sizeof(double));
}

/* The slope of the step's linear system at offset s and state u: f(y_prev) + A (u - y_prev)
 * + s d, into v (e->tmp: free between steps). */
static void dense_slope(sits_expint *e, double s, const double *u, double *v) {
  size_t n = e->n;
  double *w = e->tmp;
  for (size_t j = 0; j < n; j++)
    w[j] = u[j] - e->y_prev[j];
  for (size_t i = 0; i < n; i++) { /* A is sparse: its rows (spmv()) */
    double vi = e->f_prev[i] + s * e->step_d[i];
    for (int k = e->rp[i]; k < e->rp[i + 1]; k++)
      vi += e->rv[k] * w[e->ci[k]];
    v[i] = vi;
  }
}

/* An interval whose steps' phi pairs are not cached (a stop moved inside a plan, a root's cut,
 * a sample period that the ticks' lengths divide) is cut instead into m steps of the longest
 * cached length c <= h_pref with len = m c (m a whole number from 2), when there is one: from
 * BLAS_MIN_STATES states a phi pair costs as much as ~12 n steps (~40 dense n x n products
 * against a step's few n x n ones; 80 ms at n = 268). The steps still double as in
 * plan_accept(). A length that comes again is cut so until the extra steps it took (m - 1 an
 * interval, an upper bound) reach that price, then its own phi pairs are computed (as renting
 * until the rent reaches the price: at most twice the better of the two): the ev6 block
 * network warming 60 s on the exponential path took 6,021 steps against 1,245 with every such
 * interval cut, so a long run would pay for it. */
static void plan_on_cached(sits_expint *e, double len) {
  size_t nodd = sizeof e->odd / sizeof e->odd[0];
  int seen = -1;
  if (e->md)
    return; /* the modal form's phi pairs cost O(m): every length its own */
  for (size_t k = 0; k < nodd; k++)
    if (fabs(e->odd[k].len - len) <= SAME_H_REL * len)
      seen = (int)k;
  double price = 12.0 * (double)e->n;
  if (seen >= 0 && e->odd[seen].rent >= price)
    return; /* bought */
  const slot *best = NULL;
  double best_m = 0;
  for (int k = 0; k < CACHE_SLOTS; k++) {
    const slot *c = &e->cache[k];
    if (c->version != e->a_version || !(c->h > 0) ||
        c->h > fmin(e->h_pref, len) * (1 + SAME_H_REL) || (best && c->h <= best->h))
      continue;
    double r = len / c->h, m = round(r);
    if (m >= 2 && m <= 1e6 && fabs(r - m) <= SAME_H_REL * r)
      best = c, best_m = m;
  }
  if (!best)
    return;
  if (seen < 0) {
    seen = (int)(e->odd_next++ % nodd);
    e->odd[seen].len = len, e->odd[seen].rent = 0;
  }
  e->odd[seen].rent += best_m - 1;
  e->plan_h = best->h;
  e->plan_left = best_m;
}

/* The step toward @p tstop that passes the error test, into *h (e->y_try its end state; its
 * estimate into *est_out). The interval is cut into steps of lengths len / 2^k, so that the
 * phi pairs of a few lengths serve it all: a rejection halves the step; an accepted step
 * whose estimate is small enough for one twice as long (< 2^-order: 1/4 for the first-order
 * solution's estimate, O(h^2), 1/8 for the curvature's, O(h^3)) doubles it from the next step
 * on, as soon as what is left of
 * the interval is a whole number of the doubled steps. A transient at the start of the interval (an
 * input change) is crossed in short steps, and the rest of it in long ones. From
 * BLAS_MIN_STATES states an interval whose lengths len / 2^k are not cached may run on a
 * cached length instead (plan_on_cached()). */
/* One try of a step of length @p h from the current state into e->y_try, its estimate into
 * *est (try_step() and try_step_free(); @p tries so far; @p fill as phi_for()'s): refused
 * when the tries run out or the step falls under its floor. */
static int try_length(sits_expint *e, double h, double len, int tries, bool fill, double *est,
                      sits_err *err) {
  if (tries > MAX_HALVINGS + 4 || (h < len && h < 1e-12 * fmax(1.0, fabs(e->t))))
    return sits__fail(err, SITS_ESOLVER,
                      "exponential integrator: step size %.3g s too small at t = %.9g s "
                      "(error test failed %d times)",
                      h, e->t, tries);
  const slot *s = phi_for(e, h, len, fill, err);
  if (!s)
    return err->code;
  return etd2(e, e->y, e->f, h, s->hphi1, s->hphi2, e->y_try, est, err);
}

/* try_step() of the modal form: its phi pairs cost O(m) at any length, so the steps need not
 * repeat a few cached lengths; the length follows the estimate as an embedded pair's does,
 * h est^(-1/order) x 0.9, between a fifth and four times the last, the interval's end met
 * in one step or two equal ones. (The plans of lengths len / 2^k, for the dense form's cache,
 * took 13-14 steps a 10-ms tick after each OPP change on the 12 x 12 ev6 grid throttling.) */
static int try_step_free(sits_expint *e, double len, double *h_out, double *est_out,
                         sits_err *err) {
  double h = len;
  if (e->h_pref < len)
    h = len < 2 * e->h_pref ? 0.5 * len : e->h_pref;
  for (int tries = 0;; tries++) {
    double est;
    int rc = try_length(e, h, len, tries, false, &est, err);
    if (rc)
      return rc;
    double fac = est > 0 ? 0.9 * pow(est, -1.0 / e->est_order) : 4.0;
    if (est <= 1.0) {
      double next = h * fmin(4.0, fmax(1.0, fac));
      /* a step the interval cut short says nothing against longer ones */
      e->h_pref = h < len || !(e->h_pref > next) ? next : e->h_pref;
      *est_out = est;
      *h_out = h;
      return SITS_OK;
    }
    e->st.err_test_fails++;
    h *= fmax(0.2, fmin(0.9, fac));
    e->h_pref = h;
  }
}

static int try_step(sits_expint *e, double tstop, double len, double *h_out, double *est_out,
                    sits_err *err) {
  if (e->md)
    return try_step_free(e, len, h_out, est_out, err);
  if (tstop != e->plan_tstop || !(e->plan_h > 0) || e->t != e->plan_t) {
    double m = 1;
    if (len > e->h_pref * (1 + SAME_H_REL))
      m = ldexp(1.0, (int)ceil(log2(len / e->h_pref) - 1e-12));
    e->plan_tstop = tstop;
    e->plan_h = len / m;
    e->plan_left = m;
    e->plan_t = e->t;
    if (e->n >= BLAS_MIN_STATES && !find_slot(e, e->plan_h))
      plan_on_cached(e, len);
  }
  double h = e->plan_left <= 1 ? len : e->plan_h;
  bool refreshed = false;
  int rc;
  for (int tries = 0;; tries++) {
    double est;
    if ((rc = try_length(e, h, len, tries, true, &est, err)))
      return rc;
    if (est <= 1.0) {
      /* a short step because the interval is short says nothing against longer ones */
      if (est < ldexp(1.0, -e->est_order) && !(e->h_pref >= 2 * h))
        e->h_pref = 2 * h;
      *est_out = est;
      break;
    }
    e->st.err_test_fails++;
    if (!refreshed && !e->md && e->a_step != e->st.steps && tries >= 2) {
      if ((rc = refresh_a(e, e->y, err)))
        return rc;
      refreshed = true;
      continue;
    }
    h *= 0.5;
    e->h_pref = e->plan_h = h;
    e->plan_left *= 2;
  }
  *h_out = h;
  return SITS_OK;
}

/* The plan after an accepted step of length @p h with estimate @p est (try_step()). */
static void plan_accept(sits_expint *e, double est) {
  e->plan_left -= 1;
  e->plan_t = e->t;
  if (est < ldexp(1.0, -e->est_order) && e->plan_left >= 2 && fmod(e->plan_left, 2.0) == 0) {
    e->plan_h *= 2;
    e->plan_left /= 2;
  }
}

/* The cubic Hermite interpolant on [0, 1] at x. */
static double hermite_at(double y0, double y1, double d0, double d1, double x) {
  double x2 = x * x, x3 = x2 * x;
  return (2 * x3 - 3 * x2 + 1) * y0 + (x3 - 2 * x2 + x) * d0 + (3 * x2 - 2 * x3) * y1 +
         (x3 - x2) * d1;
}

/* Where a cubic put an interior maximum (e->mx_d1[i] its end slope, NAN elsewhere), the
 * cubic is checked against the exact solution of the linear system over the interval of
 * length @p len from state @p y0 with slope @p v0 and the remainder's slope @p g (per second):
 * u(s) = y0 + s phi1(sA) v0 + s^2 phi2(sA) g, at the lengths len/256 ... len/32 whose phi
 * pairs the cache holds and on a march of len/16 across the interval (u += L phi1(LA) u'(t)
 * + L^2 phi2(LA) g, u'(t) = v0 + A (u - y0) + t g). Where the cubic agrees with those values
 * within MAX_CHECK tolerances it is kept (ymax the larger of it and them); else ymax is the
 * largest of the ends, the values and an estimate between them: the parabola through the
 * largest value and its neighbours, or, where the first value is the largest (a mode far
 * faster than the interval, settled by len/256 and then following a slower one down), the
 * line through the first two values taken back to the interval's start, above the slow
 * trajectory's value where the fast mode met it: a peak between the values is not read low.
 * @p d0: the cubic's start slopes (times len); @p y1: the interval's end. */
static void check_maxima(sits_expint *e, double len, const double *y0, const double *v0,
                         const double *g, const double *y1, const double *d0, double *ymax) {
  size_t n = e->n;
  double *u = e->mx_u, *t2 = e->mx_t, *v = e->mx_v, *w = e->mx_w, *x = e->mx_x;
  double *best = e->mx_top, *bs = e->mx_bs, *lu = e->mx_lu, *ls = e->mx_ls, *ru = e->mx_ru,
         *rs = e->mx_rs;
  bool *bad = e->mx_bad;
  double *pu = e->mx_pu, *ps = e->mx_ps;
  for (size_t i = 0; i < n; i++)
    bad[i] = false, best[i] = -INFINITY, bs[i] = lu[i] = ls[i] = ru[i] = rs[i] = NAN,
    pu[i] = ps[i] = NAN;
  int samples = 0;
  /* the march's phi pair: cached, else computed (and the lengths below it cached): a check
   * is rare, where a mode far faster than the interval meets a cubic */
  const slot *qm = find_slot(e, len / MAX_GRID);
  const double *m1 = qm ? qm->hphi1 : NULL, *m2 = qm ? qm->hphi2 : NULL;
  sits_err quiet = {0};
  if (!qm && phi_compute(e, e->amat, len / MAX_GRID, e->phi_scratch1, e->phi_scratch2, true,
                         &quiet) == SITS_OK)
    m1 = e->phi_scratch1, m2 = e->phi_scratch2;
  for (int k = FILL_LEVELS + MAX_GRID; k >= 1; k--) {
    /* k > MAX_GRID: the early length len/2^(k - MAX_GRID), shortest first; then the march's
     * points j len/16 (k = MAX_GRID - j) */
    bool early = k > MAX_GRID;
    double s = early ? ldexp(len, -(k - MAX_GRID)) : (MAX_GRID - k + 1) * (len / MAX_GRID);
    if (early) {
      const slot *q = s < len / MAX_GRID ? find_slot(e, s) : NULL;
      if (!q)
        continue;
      prod(e, q->hphi1, v0, w);
      rem_mv(e, q->hphi2, g, t2);
      for (size_t i = 0; i < n; i++)
        u[i] = y0[i] + w[i] + s * t2[i];
    } else {
      double sl = len / MAX_GRID, tj = s - sl;
      if (!m1 || k == 1) /* no march; or its last point, the interval's end */
        break;
      if (k == MAX_GRID) {
        memcpy(u, y0, n * sizeof *u);
        rem_mv(e, m2, g, t2); /* the same for every step of the march */
      }
      for (size_t i = 0; i < n; i++)
        x[i] = u[i] - y0[i];
      spmv(e, x, v);
      for (size_t i = 0; i < n; i++)
        v[i] += v0[i] + tj * g[i];
      prod(e, m1, v, w);
      for (size_t i = 0; i < n; i++)
        u[i] += w[i] + sl * t2[i];
    }
    samples++;
    for (size_t i = 0; i < n; i++) {
      if (isnan(e->mx_d1[i]))
        continue;
      double c = hermite_at(y0[i], y1[i], d0[i], e->mx_d1[i], s / len);
      bad[i] |= fabs(c - u[i]) > MAX_CHECK * (e->o.rtol * fabs(u[i]) + e->atol[i]);
      if (u[i] > best[i]) /* its neighbours: the sample before it, and the one after */
        lu[i] = pu[i], ls[i] = ps[i], best[i] = u[i], bs[i] = s, ru[i] = rs[i] = NAN;
      else if (isnan(rs[i]))
        ru[i] = u[i], rs[i] = s;
      pu[i] = u[i], ps[i] = s;
    }
  }
  for (size_t i = 0; samples && i < n; i++) {
    if (isnan(e->mx_d1[i]))
      continue;
    if (!bad[i]) {
      ymax[i] = fmax(ymax[i], best[i]);
      continue;
    }
    if (isnan(rs[i])) /* the last value the largest: the end is its right neighbour */
      ru[i] = y1[i], rs[i] = len;
    double top = best[i];
    if (isnan(ls[i]) && ru[i] < best[i]) /* the first value, then down */
      top = best[i] + (best[i] - ru[i]) * bs[i] / (rs[i] - bs[i]);
    else if (isfinite(ls[i])) { /* the parabola's vertex, within reason */
      double a1 = (best[i] - lu[i]) / (bs[i] - ls[i]), a2 = (ru[i] - best[i]) / (rs[i] - bs[i]);
      double curv = (a2 - a1) / (rs[i] - ls[i]); /* half the second derivative */
      if (curv < 0) {
        double sv = 0.5 * (ls[i] + bs[i]) - a1 / (2 * curv); /* where the slope is 0 */
        double vv = lu[i] + a1 * (sv - ls[i]) + curv * (sv - ls[i]) * (sv - bs[i]);
        if (sv > ls[i] && sv < rs[i])
          top = fmin(fmax(vv, best[i]), best[i] + (best[i] - fmin(lu[i], ru[i])));
      }
    }
    ymax[i] = fmax(fmax(y0[i], y1[i]), top);
  }
}

/* The largest values inside an accepted step of length @p h, into e->ymax: from the cubic
 * Hermite interpolant with the end slopes f(y_n) and f(a) + A (y_n+1 - a) (= f(y_n+1) up to
 * the remainder's change; its row of A only where the start slope rises). A cubic cannot
 * follow a mode much faster than the step (a 5-ms die under a 1-s step, started 25 K below
 * its heatsink: the cubic peaked at 776 C where the die reached 50.1 C), so where it puts a
 * maximum more than MAX_CHECK tolerances above both ends it is checked against the exact
 * solution of the step's linear system (check_maxima()). */
static void step_maxima(sits_expint *e, double h) {
  size_t n = e->n;
  bool check = false;
  for (size_t i = 0; i < n; i++) {
    double y0 = e->y[i], y1 = e->y_try[i], d0 = h * e->f[i];
    e->ymax[i] = max2(y0, y1);
    e->mx_d1[i] = NAN; /* no interior maximum */
    e->mx_d0[i] = d0;
    if (!(d0 > 0))
      continue;
    /* (A corr)_i (spmv()'s sum), only on the rows that rise at the start */
    double d1 = h * (e->fa[i] + row_dot(e, i, e->corr));
    if (d1 < 0) {
      double top = hermite_max(y0, y1, d0, d1);
      double tol = MAX_CHECK * (e->o.rtol * fabs(top) + e->atol[i]);
      e->ymax[i] = max2(e->ymax[i], top);
      if (top > max2(y0, y1) + tol)
        e->mx_d1[i] = d1, check = true;
    }
  }
  if (!check)
    return;
  for (size_t i = 0; i < n; i++)
    e->mx_g[i] = e->d[i] / h;
  check_maxima(e, h, e->y, e->f, e->mx_g, e->y_try, e->mx_d0, e->ymax);
}

/* The root functions over the step just taken: a crossing inside it moves the step's end to
 * the crossing (*event SITS_ODE_ROOT). */
static int step_roots(sits_expint *e, sits_ode_event *event, sits_err *err) {
  size_t n = e->n;
  int rc;
  if (eval_roots(e, e->y, e->g_new))
    return sits__fail(err, SITS_ESOLVER, "the root functions failed");
  double s_root;
  if ((rc = locate_root(e, e->t - e->t_prev, &s_root, err)))
    return rc;
  if (s_root < e->t - e->t_prev) {
    if ((rc = partial(e, s_root, err)))
      return rc;
    memcpy(e->y, e->y_try, n * sizeof(double));
    e->z_ok = false; /* the partial step's end: its modes are not kept */
    for (size_t i = 0; i < n; i++)
      e->ymax[i] = fmax(e->y_prev[i], e->y[i]);
    e->t = e->t_prev + s_root;
    e->d_last_valid = false; /* the step was cut: its secant is not the next one's neighbour */
    if (eval_roots(e, e->y, e->g_new))
      return sits__fail(err, SITS_ESOLVER, "the root functions failed");
    *event = SITS_ODE_ROOT;
  } else {
    for (int k = 0; k < e->o.n_roots; k++)
      if (crossed(e->g[k], e->g_new[k], true))
        *event = SITS_ODE_ROOT;
  }
  memcpy(e->g, e->g_new, (size_t)e->o.n_roots * sizeof(double));
  return SITS_OK;
}

int sits_expint_step(sits_expint *e, double tstop, double *t_out, sits_ode_event *event,
                     sits_err *err) {
  *t_out = e->t;
  *event = SITS_ODE_STOP;
  double len = tstop - e->t, h = len;
  if (!(len > 0))
    return SITS_OK;
  double est = 1;
  int rc = SITS_OK;
  if (e->stale_a) { /* at the next step, so that the last step's dense output keeps its A */
    e->stale_a = false;
    if ((rc = refresh_a(e, e->y, err)))
      return rc;
  }
  rc = ensure_f(e, err);
  if (rc || (rc = try_step(e, tstop, len, &h, &est, err)))
    return rc;
  /* A stale A: over the step the remainder changed the slope by more than half as much as A
   * did (and A's change matters at this step length). The error estimate, which compares the
   * first- and second-order solutions, cannot see it: with A far from the Jacobian the steps
   * creep towards an equilibrium (y' = y - 1000 y^3 with A from y = 1 stalled 1 % off). A is
   * taken again at the step's end. Thermal networks: the remainder is leakage's curvature,
   * ~1e-4 of A's share. */
  bool stale = e->rem2 > STALE_SHARE * STALE_SHARE * e->lin2 && h * h * e->lin2 > (double)e->n;
  size_t n = e->n;
  step_maxima(e, h); /* accept */
  memcpy(e->y_prev, e->y, n * sizeof(double));
  memcpy(e->f_prev, e->f, n * sizeof(double));
  for (size_t i = 0; i < n; i++)
    e->step_d[i] = e->d[i] / h;
  e->h_last = h, e->d_last_valid = true;
  dense_reset(e);
  e->t_prev = e->t;
  memcpy(e->y, e->y_try, n * sizeof(double));
  if (e->md && e->zt_ok)
    memcpy(e->zy, e->zt, e->md->m * sizeof(double));
  e->z_ok = e->md && e->zt_ok;
  e->t = h >= len * (1 - SAME_H_REL) ? tstop : e->t + h;
  e->st.steps++;
  e->f_valid = false;
  plan_accept(e, est);
  e->stale_a = stale && e->a_step != e->st.steps - 1;
  if (e->first_pending) { /* a step cut short by the error test, not by the interval */
    e->h_first = h < len * (1 - SAME_H_REL) ? h : 0;
    e->first_pending = false;
  }
  *event = e->t == tstop ? SITS_ODE_STOP : SITS_ODE_STEPPED;
  if (e->o.n_roots && (rc = step_roots(e, event, err)))
    return rc;
  *t_out = e->t;
  return SITS_OK;
}

int sits_expint_dense(sits_expint *e, double t, double *y, double *ymax, sits_err *err) {
  size_t n = e->n;
  if (!(t >= e->t_prev && t <= e->t) || e->st.steps == 0)
    return sits__fail(err, SITS_ESOLVER,
                      "exponential integrator: no dense output at t = %.9g s outside the last "
                      "step [%.9g, %.9g]",
                      t, e->t_prev, e->t);
  double s = t - e->t_prev;
  if (s < e->dn_s)
    dense_reset(e);
  double len = s - e->dn_s;
  double *u = e->a, *v = e->fa; /* free between steps */
  if (t == e->t) {
    memcpy(u, e->y, n * sizeof(double));
  } else if (len > 0) {
    const slot *sl = phi_for(e, len, len, false, err);
    if (!sl)
      return err->code;
    /* u = u_c + L phi1(LA) v_c + L^2 phi2(LA) d: the exact solution from the cursor */
    prod(e, sl->hphi1, e->dn_v, u);
    if (e->q_step != e->st.steps || e->q_version != e->a_version || e->q_len != sl->h) {
      rem_mv(e, sl->hphi2, e->step_d, e->dn_q); /* the same for every tick of a step */
      for (size_t i = 0; i < n; i++)
        e->dn_q[i] *= len;
      e->q_step = e->st.steps, e->q_version = e->a_version, e->q_len = sl->h;
    }
    for (size_t i = 0; i < n; i++)
      u[i] += e->dn_y[i] + e->dn_q[i];
  } else {
    memcpy(u, e->dn_y, n * sizeof(double));
  }
  dense_slope(e, s, u, v);
  if (ymax) { /* as a step's (step_maxima()), over the stretch from the cursor */
    bool check = false;
    for (size_t i = 0; i < n; i++) {
      double y0 = e->dn_y[i], d0 = len * e->dn_v[i], d1 = len * v[i];
      ymax[i] = y0 > u[i] ? y0 : u[i];
      e->mx_d1[i] = NAN, e->mx_d0[i] = d0;
      if (d0 > 0 && d1 < 0) {
        double top = hermite_max(y0, u[i], d0, d1);
        ymax[i] = fmax(ymax[i], top);
        if (top > fmax(y0, u[i]) + MAX_CHECK * (e->o.rtol * fabs(top) + e->atol[i]))
          e->mx_d1[i] = d1, check = true;
      }
    }
    if (check && len > 0) /* the remainder's slope per second over the step: step_d */
      check_maxima(e, len, e->dn_y, e->dn_v, e->step_d, u, e->mx_d0, ymax);
  }

  e->dn_s = s;
  memcpy(e->dn_y, u, n * sizeof(double));
  memcpy(e->dn_v, v, n * sizeof(double));
  memcpy(y, u, n * sizeof(double));
  return SITS_OK;
}

int sits_expint_interpolate(sits_expint *e, double t, double *y, sits_err *err) {
  if (t == e->t) {
    memcpy(y, e->y, e->n * sizeof(double));
    return SITS_OK;
  }
  return sits_expint_dense(e, t, y, NULL, err);
}

double sits_expint_time(const sits_expint *e) {
  return e->t;
}

double sits_expint_step_hint(const sits_expint *e) {
  return e->h_pref;
}

/* ---- life cycle ----------------------------------------------------------------------------- */

int sits_expint_reinit(sits_expint *e, double t0, const double *y0, sits_err *err) {
  e->t = e->t_prev = t0;
  if (y0 != e->y)
    memcpy(e->y, y0, e->n * sizeof(double));
  /* the maxima restart here: those of a step that ran past t0 are dropped with it (the run
   * has read the peaks up to t0 already) */
  memcpy(e->ymax, e->y, e->n * sizeof(double));
  e->f_valid = false;
  e->z_ok = e->zfr_ok = false; /* the modal form's state and F_r: from this state */
  e->d_last_valid = false;     /* the inputs changed: the remainder's slope may jump here */
  e->st.reinits++;
  /* the inputs changed: the step that crossed the last change's transient is where this
   * one starts too (rather than the long steps that ended that interval) */
  double first = e->md ? e->h_first : 2 * e->h_first; /* the modal form's any length: that one */
  if (e->h_first > 0 && e->h_pref > first)
    e->h_pref = first;
  e->first_pending = true;
  e->plan_h = 0;
  if (e->o.n_roots && eval_roots(e, e->y, e->g))
    return sits__fail(err, SITS_ESOLVER, "the root functions failed");
  return SITS_OK;
}

int sits_expint_refresh(sits_expint *e, sits_err *err) {
  return refresh_a(e, e->y, err);
}

/* A's rows (e->rp, ci, src; rv is filled by refresh_a()) from the pattern's columns: nonzero
 * on failure (out of memory). */
static int by_rows(sits_expint *e) {
  const gsl_spmatrix *p = e->o.pattern;
  size_t n = e->n, nz = p->nz ? p->nz : 1;
  if (!(e->rp = calloc(n + 1, sizeof(int))) || !(e->ci = malloc(nz * sizeof(int))) ||
      !(e->src = malloc(nz * sizeof(int))) || !(e->rv = calloc(nz, sizeof(double))))
    return 1;
  for (size_t j = 0; j < n; j++)
    for (int q = p->p[j]; q < p->p[j + 1]; q++)
      e->rp[p->i[q] + 1]++;
  for (size_t i = 0; i < n; i++)
    e->rp[i + 1] += e->rp[i];

  int *next = malloc(n * sizeof(int));
  if (!next)
    return 1;
  memcpy(next, e->rp, n * sizeof(int));
  for (size_t j = 0; j < n; j++) /* columns ascending: each row's columns come ascending */
    for (int q = p->p[j]; q < p->p[j + 1]; q++) {
      int k = next[p->i[q]]++;
      e->ci[k] = (int)j, e->src[k] = q;
    }
  free(next);
  return 0;
}

sits_expint *sits_expint_new(const sits_expint_opts *o, double t0, const double *y0,
                             sits_err *err) {
  if (!o || !o->n || !o->pattern || !o->rhs || (!o->jac && !o->modal) || !o->atol ||
      (o->n_roots && !o->roots)) {
    sits__fail(err, SITS_EINTERNAL, "sits_expint_new: incomplete options");
    return NULL;
  }
  if (o->n > (o->modal ? SITS_EXPINT_MODAL_MAX_STATES : SITS_EXPINT_MAX_STATES)) {
    sits__fail(err, SITS_EINPUT,
               "the exponential path takes at most %d states (this system has %zu): use "
               "solver.method = \"cvode\" or \"auto\"",
               o->modal ? SITS_EXPINT_MODAL_MAX_STATES : SITS_EXPINT_MAX_STATES, o->n);
    return NULL;
  }
  sits_expint *e = calloc(1, sizeof *e);
  size_t n = o->n, nr = o->n_roots > 0 ? (size_t)o->n_roots : 1;
  bool ok = e != NULL;
  if (ok && o->modal) {
    int rc = sits__modes_new(o->modal, n, &e->md, err);
    if (rc) {
      free(e);
      return NULL;
    }
  }
  /* a phi matrix: n x n, or the modal form's 2 m + 1 values */
  size_t pm = e && e->md ? 2 * e->md->m + 1 : n * n;
  if (ok) {
    e->o = *o;
    e->n = n;
    e->h_pref = INFINITY;
    /* kept loaded after the close (RTLD_NODELETE): OpenBLAS's threads and buffers outlive
     * the integrator, and a later one finds it there */
    if (n >= BLAS_MIN_STATES && !e->md && (e->blas = sits__openblas_open("SITS_EXPINT_BLAS")) &&
        !(*(void **)&e->dgemm = sits__openblas_sym(e->blas, "cblas_dgemm"))) {
      sits__openblas_close(e->blas);
      e->blas = NULL;
    }
    e->a_step = -1;
    e->q_step = -1;
    /* below BLAS_MIN_STATES the plain loops: the small networks' results (calibration's
     * two-node fits among them) stay the same to the bit on any processor; and at any size
     * with SITS_EXPINT_PLAIN=1 (to compare against). SITS_EXPINT_PLAIN=simd keeps the
     * column-wise remainder but not AVX2: what a processor without it (aarch64) runs. */
    const char *plain = getenv("SITS_EXPINT_PLAIN");
    bool fast = n >= BLAS_MIN_STATES && !(plain && strcmp(plain, "1") == 0);
    bool simd = fast && !(plain && strcmp(plain, "simd") == 0);
    e->mv = matvec;
    e->axpy = axpy;
#if SITS_EXPINT_AVX2
    if (simd) {
      __builtin_cpu_init();
      if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        e->mv = matvec_avx2, e->axpy = axpy_avx2;
    }
#endif
    (void)simd; /* elsewhere the plain products are the only ones */
    e->sparse_rem = fast;
    double **vec[] = {
        &e->atol,  &e->y,     &e->y_prev, &e->f,      &e->f_prev, &e->a,     &e->fa,    &e->d,
        &e->corr,  &e->tmp,   &e->y_try,  &e->ymax,   &e->step_d, &e->dn_y,  &e->dn_v,  &e->dn_q,
        &e->mx_d1, &e->mx_u,  &e->mx_t,   &e->mx_top, &e->mx_d0,  &e->mx_g,  &e->mx_v,  &e->mx_w,
        &e->mx_x,  &e->mx_bs, &e->mx_lu,  &e->mx_ls,  &e->mx_ru,  &e->mx_rs, &e->mx_pu, &e->mx_ps};
    for (size_t k = 0; ok && k < sizeof vec / sizeof vec[0]; k++)
      ok = (*vec[k] = calloc(n, sizeof(double))) != NULL;
    ok = ok && (e->mx_bad = calloc(n, sizeof(bool)));
    ok = ok && (e->g = calloc(nr, sizeof(double))) && (e->g_new = calloc(nr, sizeof(double))) &&
         (e->g_try = calloc(nr, sizeof(double))) &&
         (e->jac_values = calloc(o->pattern->nz ? o->pattern->nz : 1, sizeof(double))) &&
         !by_rows(e) && (e->phi_scratch1 = malloc(pm * sizeof(double))) &&
         (e->phi_scratch2 = malloc(pm * sizeof(double)));
    if (ok && e->md) { /* the modal form: no n x n matrices */
      size_t m = e->md->m;
      double **mv[] = {&e->mz, &e->mz2, &e->zy, &e->za, &e->zt, &e->zf, &e->zfr};
      for (size_t k = 0; ok && k < sizeof mv / sizeof mv[0]; k++)
        ok = (*mv[k] = calloc(m, sizeof(double))) != NULL;
      ok = ok && (e->fr = calloc(n, sizeof(double))) && (e->fr_size = calloc(n, sizeof(double))) &&
           (e->dlt = calloc(n, sizeof(double))) && (e->row_abs = calloc(n, sizeof(double)));
    } else if (ok)
      ok = (e->amat = calloc(n * n, sizeof(double))) && !alloc_work(e);
    for (int k = 0; ok && k < CACHE_SLOTS; k++)
      ok = (e->cache[k].hphi1 = malloc(pm * sizeof(double))) &&
           (e->cache[k].hphi2 = malloc(pm * sizeof(double)));
  }
  if (!ok) {
    sits_expint_free(e);
    sits__fail(err, SITS_ENOMEM, "out of memory");
    return NULL;
  }
  memcpy(e->atol, o->atol, n * sizeof(double));
  if (refresh_a(e, y0, err) || sits_expint_reinit(e, t0, y0, err)) {
    sits_expint_free(e);
    return NULL;
  }
  e->st.reinits = 0;
  return e;
}

void sits_expint_free(sits_expint *e) {
  if (!e)
    return;
  double *vec[] = {e->atol,         e->y,      e->y_prev,     e->f,     e->f_prev, e->a,
                   e->fa,           e->d,      e->corr,       e->tmp,   e->y_try,  e->g,
                   e->g_new,        e->g_try,  e->jac_values, e->ymax,  e->amat,   e->phi_scratch1,
                   e->phi_scratch2, e->step_d, e->dn_y,       e->dn_v,  e->dn_q,   e->mx_d1,
                   e->mx_u,         e->mx_t,   e->mx_top,     e->mx_d0, e->mx_g,   e->mx_v,
                   e->mx_w,         e->mx_x,   e->mx_bs,      e->mx_lu, e->mx_ls,  e->mx_ru,
                   e->mx_rs,        e->mx_pu,  e->mx_ps};
  for (size_t k = 0; k < sizeof vec / sizeof vec[0]; k++)
    free(vec[k]);
  free(e->mx_bad);
  free(e->rp), free(e->ci), free(e->src), free(e->rv);
  free(e->mz), free(e->mz2), free(e->zy), free(e->za), free(e->zt), free(e->zf), free(e->zfr);
  free(e->fr), free(e->fr_size), free(e->dlt), free(e->row_abs);
  sits__modes_free(e->md);
  for (int k = 0; k < CACHE_SLOTS; k++) {
    free(e->cache[k].hphi1);
    free(e->cache[k].hphi2);
  }
  free_work(e);
  sits__openblas_close(e->blas);
  free(e);
}

const double *sits_expint_state(const sits_expint *e) {
  return e->y;
}

const double *sits_expint_step_max(const sits_expint *e) {
  return e->ymax;
}

void sits_expint_get_stats(const sits_expint *e, sits_ode_stats *st) {
  *st = e->st;
  st->sparse = false;
}

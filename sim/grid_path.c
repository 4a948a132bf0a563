/*
 * grid_path.c - the Newton solver of a run on a layered-grid network (a HotSpot grid
 * floorplan): CVODE (BDF, the run's rtol and atol, sits_ode.h) with the layered-grid solver
 * (sits_layergrid.h: (C + gamma G) x = C b by cosine transforms, no sparse factorisation) in
 * place of KLU over all cells. The run follows the integrator on its dense output (sim.c,
 * step_ahead): a governor tick or a sample inside a step is read there, and only a tick that
 * changes the inputs restarts the integrator. The reference path (solver.method = "cvode")
 * stops CVODE at every tick instead, where it restarts its order and step ramp.
 *
 * The Newton matrix is that of the network's linear part: y = [T, E_in, E_amb],
 *   J = [-C^-1 G, 0, 0; 0, 0, 0; g_amb^T, 0, 0]
 * and the systems (I - gamma J) x = b are (C + gamma G) x_T = C b_T, x_in = b_in,
 * x_amb = b_amb + gamma g_amb . x_T. The power's slope in T (leakage) is left out: it is
 * ~1e-3 of a cell's conductance on HotSpot's ev6, so the Newton iteration still converges
 * in one or two iterations, and CVODE's own convergence test guards it. J is constant:
 * setups are only for a new gamma (sits_ode asks for gammas on a sqrt(2) ladder, kept here
 * in up to LG_SLOTS grid solvers within LG_BUDGET_BYTES: after an input change CVODE ramps
 * its step up from ~1e-6 s through ~20 rungs, and a run with many changes finds them kept).
 *
 * No battery: its states are not in that matrix (SITS_EUNSUPPORTED: CVODE with KLU or the
 * exponential path). No fans: they change the conductances the grid solvers have factored.
 */
#include "run_impl.h"
#include "status_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layergrid_internal.h"

/* Grid solvers kept, one per gamma, at most LG_SLOTS and about LG_BUDGET_BYTES in all. A
 * solver holds its dense edge system and ~8 values per cell (measured RSS per kept solver:
 * 0.85 MB on a 32 x 32 ev6 grid, 3.4 MB on 64 x 64). On ev6 32 x 32 with 100 demand changes
 * in 10 s: 6.0 s with 8 kept, 3.0 s with 32 (one run each). */
#define LG_SLOTS 32
#define LG_BUDGET_BYTES (64.0 * 1024 * 1024)

struct sits__grid {
  run *rn;
  size_t n;
  sits_layergrid *lg; /* the current one: lgs[k] */
  sits_layergrid *lgs[LG_SLOTS];
  double lg_gamma[LG_SLOTS];
  unsigned long lg_used[LG_SLOTS], clock;
  int slots; /* how many are kept: the budget over one solver's size */
  size_t rows, cols;
  gsl_spmatrix *g;
  double *c, *g_amb, *lbuf;
  double gamma;
  /* the modal form of the same network (sits__grid_modal()) */
  double *w;
  size_t *mirror[2];
  sits_expint_modal modal;
};

/* The silicon layer's rows and columns from its last cell's name, L0_<rows-1>_<cols-1>. */
static bool grid_dims(const sits_thermal *th, size_t n, size_t *rows, size_t *cols) {
  if (n < 12 + 4 * 4 || (n - 12) % 4)
    return false;
  size_t cells = (n - 12) / 4;
  unsigned r, c;
  char tail;
  const char *name = sits_thermal_name(th, (int)(cells - 1));
  if (!name || sscanf(name, "L0_%u_%u%c", &r, &c, &tail) != 2)
    return false;
  *rows = (size_t)r + 1, *cols = (size_t)c + 1;
  return *rows * *cols == cells;
}

/* The grid solver for C + gamma G: one of the kept ones, or the least recently used one
 * set up again. */
int sits__grid_lsetup(void *user, double gamma, sits_err *err) {
  sits__grid *gp = user;
  gp->gamma = gamma;
  int lru = 0;
  for (int k = 0; k < gp->slots; k++) {
    if (gp->lgs[k] && fabs(gp->lg_gamma[k] - gamma) <= 1e-9 * gamma) {
      gp->lg = gp->lgs[k];
      gp->lg_used[k] = ++gp->clock;
      return SITS_OK;
    }
    if (gp->lg_used[k] < gp->lg_used[lru])
      lru = k;
  }
  if (!gp->lgs[lru] &&
      !(gp->lgs[lru] = sits__layergrid_new_again(gp->g, gp->c, gp->rows, gp->cols, 4, err)))
    return err->code;
  int rc = sits_layergrid_setup(gp->lgs[lru], 1.0, gamma, err);
  gp->lg_gamma[lru] = rc == SITS_OK ? gamma : NAN;
  gp->lg_used[lru] = ++gp->clock;
  gp->lg = gp->lgs[lru];
  return rc;
}

int sits__grid_lsolve(void *user, const double *b, double *x, sits_err *err) {
  sits__grid *gp = user;
  const run *rn = gp->rn;
  size_t n = gp->n;
  double b_in = b[rn->lay.i_e_in], b_amb = b[rn->lay.i_e_out];
  for (size_t i = 0; i < n; i++)
    gp->lbuf[i] = gp->c[i] * b[i];
  int rc = sits_layergrid_solve(gp->lg, gp->lbuf, x, err);
  if (rc)
    return rc;
  double gamma = gp->gamma, s = 0; /* the last setup's */
  for (size_t i = 0; i < n; i++)
    s += gp->g_amb[i] * x[i];
  x[rn->lay.i_e_in] = b_in;
  x[rn->lay.i_e_out] = b_amb + gamma * s;
  return SITS_OK;
}

/* Mirror @p axis of the grid (0: rows i -> R-1-i, 1: columns j -> C-1-j) as a permutation of
 * the nodes into @p mir: the cells' images by their indices, each extra node's the one whose
 * links are its links' images (found where exactly one matches, repeated while that resolves
 * more: the sink's outer nodes link only to extra nodes). False when some extra node has no
 * unique image: the modal form then goes without this mirror. The modes check the result. */
static bool grid_mirror(const sits__grid *gp, int axis, size_t *mir) {
  size_t R = gp->rows, C = gp->cols, cells = R * C * 4, n = gp->n;
  for (size_t a = 0; a < cells; a++) {
    size_t l = a / (R * C), i = a / C % R, j = a % C;
    mir[a] = l * R * C + (axis == 0 ? (R - 1 - i) * C + j : i * C + (C - 1 - j));
  }
  for (size_t e = cells; e < n; e++)
    mir[e] = SIZE_MAX;
  const gsl_spmatrix *g = gp->g;
  /* pass 0: on the links to cells alone (an extra node linked to cells, whose links to other
   * extra nodes may wait on those: the spreader's west node and the sink's inner one link to
   * each other); pass 1: every link, the extra nodes' images known */
  for (int pass = 0; pass < 2; pass++)
    for (bool progress = true; progress;) {
      progress = false;
      for (size_t e = cells; e < n; e++) {
        if (mir[e] != SIZE_MAX)
          continue;
        size_t found = SIZE_MAX, count = 0;
        for (size_t f = cells; f < n && count < 2; f++) {
          bool ok = g->p[e + 1] - g->p[e] == g->p[f + 1] - g->p[f] && gp->c[e] == gp->c[f];
          size_t to_cells = 0;
          for (int q = g->p[e]; ok && q < g->p[e + 1]; q++) {
            size_t b = (size_t)g->i[q], mb = b == e ? f : mir[b];
            to_cells += b < cells;
            if (mb == SIZE_MAX) {
              ok = pass == 0;
              continue;
            }
            double v = 0;
            for (int r = g->p[f]; r < g->p[f + 1]; r++)
              if ((size_t)g->i[r] == mb)
                v = g->data[r];
            ok = fabs(v - g->data[q]) <= 1e-10 * fabs(g->data[q]);
          }
          if (ok && (pass == 1 || to_cells > 0))
            found = f, count++;
        }
        if (count == 1)
          mir[e] = found, progress = true;
      }
    }
  for (size_t e = cells; e < n; e++)
    if (mir[e] == SIZE_MAX)
      return false;
  return true;
}

const sits_expint_modal *sits__grid_modal(sits__grid *gp, size_t ny) {
  if (gp->modal.m)
    return &gp->modal;
  size_t n = gp->n;
  const run *rn = gp->rn;
  /* the grid path has no battery: the states are the nodes and the two energy integrals */
  if (ny != n + 2 || rn->lay.i_e_in < n || rn->lay.i_e_out < n ||
      !(gp->w = calloc(2 * n, sizeof(double))))
    return NULL;
  /* E_out' = g_amb . (T - T_amb): its row of A; E_in's is the power's, all remainder */
  memcpy(gp->w + (rn->lay.i_e_out - n) * n, gp->g_amb, n * sizeof(double));
  for (int axis = 0; axis < 2; axis++)
    if ((gp->mirror[axis] = malloc(n * sizeof(size_t))) &&
        !grid_mirror(gp, axis, gp->mirror[axis])) {
      free(gp->mirror[axis]);
      gp->mirror[axis] = NULL;
    }
  if (!gp->mirror[0] || !gp->mirror[1]) { /* both or none */
    free(gp->mirror[0]), free(gp->mirror[1]);
    gp->mirror[0] = gp->mirror[1] = NULL;
  }
  gp->modal = (sits_expint_modal){
      .m = n, .c = gp->c, .g = gp->g, .w = gp->w, .mirror = {gp->mirror[0], gp->mirror[1]}};
  return &gp->modal;
}

void sits__grid_free(sits__grid *gp) {
  if (!gp)
    return;
  free(gp->w), free(gp->mirror[0]), free(gp->mirror[1]);
  for (int k = 0; k < LG_SLOTS; k++)
    sits_layergrid_free(gp->lgs[k]);
  gsl_spmatrix_free(gp->g);
  free(gp->c), free(gp->g_amb), free(gp->lbuf);
  free(gp);
}

int sits__grid_new(run *rn, sits__grid **out, sits_err *err) {
  *out = NULL;
  size_t rows, cols, n = rn->n;
  if (rn->batt || rn->sc->n_fans || !grid_dims(rn->th, n, &rows, &cols))
    return sits__fail(err, SITS_EUNSUPPORTED, "not a layered grid without a battery or fans");
  sits__grid *gp = calloc(1, sizeof *gp);
  if (!gp)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  gp->rn = rn;
  gp->n = n;
  gp->c = malloc(n * sizeof(double));
  gp->g_amb = malloc(n * sizeof(double));
  gp->lbuf = malloc(n * sizeof(double));
  gp->g = sits_thermal_conductance(rn->th);
  if (!gp->c || !gp->g_amb || !gp->lbuf || !gp->g) {
    sits__grid_free(gp);
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  }
  for (size_t i = 0; i < n; i++) {
    gp->c[i] = sits_thermal_capacity_j_per_k(rn->th, (int)i);
    gp->g_amb[i] = sits_thermal_ambient_conductance_w_per_k(rn->th, (int)i);
  }
  sits_err quiet = {0};
  if (!(gp->lg = gp->lgs[0] = sits_layergrid_new(gp->g, gp->c, rows, cols, 4, &quiet))) {
    sits__grid_free(gp);
    return sits__fail(err, SITS_EUNSUPPORTED, "not a layered grid: %s", quiet.msg);
  }
  gp->lg_gamma[0] = NAN;
  gp->rows = rows, gp->cols = cols;
  double edge = (double)sits_layergrid_edge_unknowns(gp->lg);
  double per_solver_bytes = 8.0 * (edge * edge + 8.0 * (double)n);
  gp->slots = (int)fmax(4, fmin(LG_SLOTS, LG_BUDGET_BYTES / per_solver_bytes));
  *out = gp;
  return SITS_OK;
}

/*
 * network.c - HotSpot-compatible block and grid networks (see sits_floorplan.h and
 * docs/hotspot-model.md, whose section numbers the comments cite).
 */
#define _POSIX_C_SOURCE 200809L
#include "sits_floorplan.h"
#include "status_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define C_FACTOR 0.333 /* HotSpot's lumped-vs-distributed capacitance factor (4.1) */
#define GEOM_TOL 1e-6  /* HotSpot's equality tolerance on lengths [m] */
#define N_PACKAGE 12

enum {
  SP_W,
  SP_E,
  SP_N,
  SP_S,
  SINK_C_W,
  SINK_C_E,
  SINK_C_N,
  SINK_C_S,
  SINK_W,
  SINK_E,
  SINK_N,
  SINK_S
};

static bool eq(double a, double b) {
  return fabs(a - b) < GEOM_TOL;
}

/* ---- floorplan ---------------------------------------------------------------------- */

void sits_floorplan_free(sits_floorplan *f) {
  if (!f)
    return;
  for (size_t k = 0; k < f->n; k++)
    free(f->b[k].name);
  free(f->b);
  free(f);
}

int sits_floorplan_find(const sits_floorplan *f, const char *name) {
  for (size_t k = 0; k < f->n; k++)
    if (strcmp(f->b[k].name, name) == 0)
      return (int)k;
  return -1;
}

static double overlap(double a0, double a1, double b0, double b1) {
  return fmin(a1, b1) - fmax(a0, b0);
}

static int floorplan_make(const sits_flp_block *blocks, size_t n, const char *path,
                          sits_floorplan **out, sits_err *err) {
  *out = NULL;
  if (n == 0)
    return sits__fail(err, SITS_EINPUT, "%s: no blocks in the floorplan", path);
  for (size_t k = 0; k < n; k++) {
    const sits_flp_block *b = &blocks[k];
    if (!b->name || !*b->name)
      return sits__fail(err, SITS_EINPUT, "%s:%zu: a block needs a name", path, b->line);
    if (!(b->w_m > 0 && b->h_m > 0 && isfinite(b->w_m) && isfinite(b->h_m) && isfinite(b->x_m) &&
          isfinite(b->y_m)))
      return sits__fail(err, SITS_EINPUT,
                        "%s:%zu: block '%s' needs a width and height > 0 and finite coordinates",
                        path, b->line, b->name);
    for (size_t j = 0; j < k; j++) {
      const sits_flp_block *o = &blocks[j];
      if (strcmp(o->name, b->name) == 0)
        return sits__fail(err, SITS_EINPUT, "%s:%zu: block '%s' is already defined on line %zu",
                          path, b->line, b->name, o->line);
      double ox = overlap(b->x_m, b->x_m + b->w_m, o->x_m, o->x_m + o->w_m);
      double oy = overlap(b->y_m, b->y_m + b->h_m, o->y_m, o->y_m + o->h_m);
      if (ox > GEOM_TOL && oy > GEOM_TOL)
        return sits__fail(err, SITS_EINPUT,
                          "%s:%zu: block '%s' overlaps block '%s' (line %zu) by %.3g x %.3g m",
                          path, b->line, b->name, o->name, o->line, ox, oy);
    }
  }
  sits_floorplan *f = calloc(1, sizeof *f);
  if (!f || !(f->b = calloc(n, sizeof *f->b))) {
    free(f);
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  }
  double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
  for (size_t k = 0; k < n; k++) {
    x0 = fmin(x0, blocks[k].x_m), y0 = fmin(y0, blocks[k].y_m);
    x1 = fmax(x1, blocks[k].x_m + blocks[k].w_m), y1 = fmax(y1, blocks[k].y_m + blocks[k].h_m);
  }
  f->n = n;
  for (size_t k = 0; k < n; k++) {
    f->b[k] = blocks[k];
    f->b[k].x_m -= x0, f->b[k].y_m -= y0;
    if (!(f->b[k].name = strdup(blocks[k].name))) {
      sits_floorplan_free(f);
      return sits__fail(err, SITS_ENOMEM, "out of memory");
    }
  }
  f->width_m = x1 - x0, f->height_m = y1 - y0;
  *out = f;
  return SITS_OK;
}

sits_floorplan *sits_floorplan_new(const sits_flp_block *blocks, size_t n, const char *path,
                                   sits_err *err) {
  sits_floorplan *f = NULL;
  return floorplan_make(blocks, n, path, &f, err) ? NULL : f;
}

/* ---- parameters --------------------------------------------------------------------- */

void sits_hs_params_default(sits_hs_params *p) {
  memset(p, 0, sizeof *p);
  p->t_chip_m = 0.15e-3, p->k_chip_w_per_mk = 100.0, p->p_chip_j_per_m3k = 1.75e6;
  p->t_interface_m = 20e-6, p->k_interface_w_per_mk = 4.0, p->p_interface_j_per_m3k = 4.0e6;
  p->s_spreader_m = 30e-3, p->t_spreader_m = 1e-3, p->k_spreader_w_per_mk = 400.0,
  p->p_spreader_j_per_m3k = 3.55e6;
  p->s_sink_m = 60e-3, p->t_sink_m = 6.9e-3, p->k_sink_w_per_mk = 400.0,
  p->p_sink_j_per_m3k = 3.55e6;
  p->r_convec_k_per_w = 0.1, p->c_convec_j_per_k = 140.4;
  p->ambient_k = 318.15, p->init_temp_k = 333.15, p->sampling_intvl_s = 3.333e-6;
  p->grid_rows = p->grid_cols = 64;
  p->map_mode = SITS_HS_MAP_CENTER;
  p->transpose_lateral = p->hotspot_init_map = true;
  p->leak_alpha_w_per_m2 = 1.5e4, p->leak_beta_per_k = 0.036, p->leak_base_k = 383.15;
}

/* ---- the network -------------------------------------------------------------------- */

typedef struct cell_span { /* a block's cells in the grid (B7) */
  size_t i1, i2, j1, j2;
  double *phi; /* (i2 - i1) x (j2 - j1) occupancies, row-major */
} cell_span;

struct sits_hs_network {
  sits_hs_model model;
  sits_hs_params prm;
  const sits_floorplan *flp; /* borrowed: the caller keeps it alive */
  sits_thermal *th;
  size_t n_nodes, rows, cols, layer; /* layer: nodes per layer (n blocks or R C) */
  cell_span *span;                   /* grid: per block */
};

typedef struct layer_prm {
  double t, k, p;
} layer_prm;

static void layers(const sits_hs_params *p, layer_prm l[4]) {
  l[0] = (layer_prm){p->t_chip_m, p->k_chip_w_per_mk, p->p_chip_j_per_m3k};
  l[1] = (layer_prm){p->t_interface_m, p->k_interface_w_per_mk, p->p_interface_j_per_m3k};
  l[2] = (layer_prm){p->t_spreader_m, p->k_spreader_w_per_mk, p->p_spreader_j_per_m3k};
  l[3] = (layer_prm){p->t_sink_m, p->k_sink_w_per_mk, p->p_sink_j_per_m3k};
}

/* Package geometry of 4.5 / B4.7. */
typedef struct package {
  double r_sp1_x, r_sp1_y, r_hs1_x, r_hs1_y, r_hs2_x, r_hs2_y, r_hs;
  double a_x, a_y, a_o;
} package;

static package package_of(const sits_hs_params *p, double w, double h) {
  double ssp = p->s_spreader_m, shs = p->s_sink_m;
  double ksp = p->k_spreader_w_per_mk, tsp = p->t_spreader_m, khs = p->k_sink_w_per_mk,
         ths = p->t_sink_m;
  package k;
  k.r_sp1_x = ((ssp - w) / 4) / (ksp * tsp * (ssp + 3 * h) / 4);
  k.r_sp1_y = ((ssp - h) / 4) / (ksp * tsp * (ssp + 3 * w) / 4);
  k.r_hs1_x = ((ssp - w) / 4) / (khs * ths * (ssp + 3 * h) / 4);
  k.r_hs1_y = ((ssp - h) / 4) / (khs * ths * (ssp + 3 * w) / 4);
  k.r_hs2_x = ((ssp - w) / 4) / (khs * ths * (3 * ssp + h) / 4);
  k.r_hs2_y = ((ssp - h) / 4) / (khs * ths * (3 * ssp + w) / 4);
  k.r_hs = ((shs - ssp) / 4) / (khs * ths * (shs + 3 * ssp) / 4);
  k.a_x = (ssp + h) * (ssp - w) / 4;
  k.a_y = (ssp + w) * (ssp - h) / 4;
  k.a_o = (shs * shs - ssp * ssp) / 4;
  return k;
}

static int node(sits_hs_network *net, const char *name, double c, sits_err *err) {
  int i = sits_thermal_add_node(net->th, name, c, err);
  return i < 0 ? i : SITS_OK;
}

static int link(sits_hs_network *net, size_t a, int b, double r, sits_err *err) {
  return sits_thermal_add_link(net->th, (int)a, b, r, err);
}

/* The 12 package nodes (after @p base nodes) and their links among themselves (4.5, 4.6). */
static int add_package(sits_hs_network *net, size_t base, const package *k, sits_err *err) {
  const sits_hs_params *p = &net->prm;
  double shs2 = p->s_sink_m * p->s_sink_m;
  double csp_x = C_FACTOR * p->p_spreader_j_per_m3k * p->t_spreader_m * k->a_x;
  double csp_y = C_FACTOR * p->p_spreader_j_per_m3k * p->t_spreader_m * k->a_y;
  double chc_x = C_FACTOR * p->p_sink_j_per_m3k * p->t_sink_m * k->a_x +
                 C_FACTOR * p->c_convec_j_per_k * k->a_x / shs2;
  double chc_y = C_FACTOR * p->p_sink_j_per_m3k * p->t_sink_m * k->a_y +
                 C_FACTOR * p->c_convec_j_per_k * k->a_y / shs2;
  double cho = C_FACTOR * p->p_sink_j_per_m3k * p->t_sink_m * k->a_o +
               C_FACTOR * p->c_convec_j_per_k * k->a_o / shs2;
  const double c[N_PACKAGE] = {csp_x, csp_x, csp_y, csp_y, chc_x, chc_x,
                               chc_y, chc_y, cho,   cho,   cho,   cho};
  int rc;
  for (int q = 0; q < N_PACKAGE; q++) {
    char name[32];
    snprintf(name, sizeof name, "inode_%d", q);
    if ((rc = node(net, name, c[q], err)))
      return rc;
  }
  double ksp = p->k_spreader_w_per_mk, tsp = p->t_spreader_m, khs = p->k_sink_w_per_mk,
         ths = p->t_sink_m;
  double sp_per_x = tsp / (ksp * k->a_x), sp_per_y = tsp / (ksp * k->a_y);
  double amb_c_x = ths / (khs * k->a_x) + p->r_convec_k_per_w * shs2 / k->a_x;
  double amb_c_y = ths / (khs * k->a_y) + p->r_convec_k_per_w * shs2 / k->a_y;
  double amb_o = ths / (khs * k->a_o) + p->r_convec_k_per_w * shs2 / k->a_o;
  if ((rc = link(net, base + SP_W, (int)(base + SINK_C_W), sp_per_x, err)) ||
      (rc = link(net, base + SP_E, (int)(base + SINK_C_E), sp_per_x, err)) ||
      (rc = link(net, base + SP_N, (int)(base + SINK_C_N), sp_per_y, err)) ||
      (rc = link(net, base + SP_S, (int)(base + SINK_C_S), sp_per_y, err)) ||
      (rc = link(net, base + SINK_C_W, (int)(base + SINK_W), k->r_hs + k->r_hs2_x, err)) ||
      (rc = link(net, base + SINK_C_E, (int)(base + SINK_E), k->r_hs + k->r_hs2_x, err)) ||
      (rc = link(net, base + SINK_C_N, (int)(base + SINK_N), k->r_hs + k->r_hs2_y, err)) ||
      (rc = link(net, base + SINK_C_S, (int)(base + SINK_S), k->r_hs + k->r_hs2_y, err)) ||
      (rc = link(net, base + SINK_C_W, SITS_AMBIENT, amb_c_x, err)) ||
      (rc = link(net, base + SINK_C_E, SITS_AMBIENT, amb_c_x, err)) ||
      (rc = link(net, base + SINK_C_N, SITS_AMBIENT, amb_c_y, err)) ||
      (rc = link(net, base + SINK_C_S, SITS_AMBIENT, amb_c_y, err)))
    return rc;
  for (int q = SINK_W; q <= SINK_S; q++)
    if ((rc = link(net, base + (size_t)q, SITS_AMBIENT, amb_o, err)))
      return rc;
  return SITS_OK;
}

static const char *const prefix[4] = {"", "iface_", "hsp_", "hsink_"};

/* Block model (4.2 - 4.6). */
/* Lateral links between adjacent blocks, every layer (silicon optional) (4.3). */
static int block_lateral(sits_hs_network *net, const layer_prm *l, sits_err *err) {
  const sits_floorplan *f = net->flp;
  size_t n = f->n;
  int rc;
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      const sits_flp_block *a = &f->b[i], *b = &f->b[j];
      double len, ha, hb;
      if (eq(a->x_m + a->w_m, b->x_m) || eq(b->x_m + b->w_m, a->x_m)) {
        len = overlap(a->y_m, a->y_m + a->h_m, b->y_m, b->y_m + b->h_m), ha = a->w_m / 2,
        hb = b->w_m / 2;
      } else if (eq(a->y_m + a->h_m, b->y_m) || eq(b->y_m + b->h_m, a->y_m)) {
        len = overlap(a->x_m, a->x_m + a->w_m, b->x_m, b->x_m + b->w_m), ha = a->h_m / 2,
        hb = b->h_m / 2;
      } else
        continue;
      if (!(len > 1e-9))
        continue; /* corner contact */
      for (int L = net->prm.block_omit_lateral ? 1 : 0; L < 4; L++) {
        double kt = l[L].k * l[L].t * len;
        if ((rc = link(net, (size_t)L * n + i, (int)((size_t)L * n + j), ha / kt + hb / kt, err)))
          return rc;
      }
    }
  return SITS_OK;
}

/* Border blocks to the periphery: each side's r_sp1 / r_hs1 shared in proportion to the
 * blocks' edge conductances (4.5). */
static int block_borders(sits_hs_network *net, const layer_prm *l, const package *k, size_t base,
                         sits_err *err) {
  const sits_floorplan *f = net->flp;
  size_t n = f->n;
  double big_w = f->width_m, big_h = f->height_m;
  int rc;
  for (int side = 0; side < 4; side++) { /* W, E, N, S */
    bool ns = side >= 2;
    double g_sp = 0, g_hs = 0;
    for (int pass = 0; pass < 2; pass++)
      for (size_t b = 0; b < n; b++) {
        const sits_flp_block *q = &f->b[b];
        bool border = side == 0   ? eq(q->x_m, 0)
                      : side == 1 ? eq(q->x_m + q->w_m, big_w)
                      : side == 2 ? eq(q->y_m + q->h_m, big_h)
                                  : eq(q->y_m, 0);
        if (!border)
          continue;
        double g_sp_b =
            ns ? l[2].k * q->w_m * l[2].t / (q->h_m / 2) : l[2].k * q->h_m * l[2].t / (q->w_m / 2);
        double g_hs_b =
            ns ? l[3].k * q->w_m * l[3].t / (q->h_m / 2) : l[3].k * q->h_m * l[3].t / (q->w_m / 2);
        if (pass == 0) {
          g_sp += g_sp_b, g_hs += g_hs_b;
          continue;
        }
        double r1_sp = ns ? k->r_sp1_y : k->r_sp1_x, r1_hs = ns ? k->r_hs1_y : k->r_hs1_x;
        if ((rc = link(net, 2 * n + b, (int)(base + SP_W + (size_t)side),
                       1 / g_sp_b + r1_sp * g_sp / g_sp_b, err)) ||
            (rc = link(net, 3 * n + b, (int)(base + SINK_C_W + (size_t)side),
                       1 / g_hs_b + r1_hs * g_hs / g_hs_b, err)))
          return rc;
      }
  }
  return SITS_OK;
}

static int build_block(sits_hs_network *net, sits_err *err) {
  const sits_floorplan *f = net->flp;
  const sits_hs_params *p = &net->prm;
  size_t n = f->n;
  layer_prm l[4];
  layers(p, l);
  double shs2 = p->s_sink_m * p->s_sink_m;
  int rc;
  for (int L = 0; L < 4; L++)
    for (size_t b = 0; b < n; b++) {
      double a = f->b[b].w_m * f->b[b].h_m;
      double c =
          C_FACTOR * l[L].p * l[L].t * a + (L == 3 ? C_FACTOR * p->c_convec_j_per_k * a / shs2 : 0);
      char name[600];
      snprintf(name, sizeof name, "%s%s", prefix[L], f->b[b].name);
      if ((rc = node(net, name, c, err))) {
        for (size_t o = 0; L > 0 && o < n; o++) /* a block named as another's layer node */
          if (strcmp(f->b[o].name, name) == 0)
            return sits__fail(err, rc,
                              "line %zu: block '%s' has the name of block '%s''s %s node (line "
                              "%zu): HotSpot names each block's interface, spreader and sink "
                              "nodes iface_, hsp_ and hsink_ and its name; rename one",
                              f->b[o].line, name, f->b[b].name,
                              L == 1   ? "interface"
                              : L == 2 ? "spreader"
                                       : "sink",
                              f->b[b].line);
        return rc;
      }
    }
  package k = package_of(p, f->width_m, f->height_m);
  size_t base = 4 * n;
  if ((rc = add_package(net, base, &k, err)) || (rc = block_lateral(net, l, err)))
    return rc;
  /* vertical path (4.4) */
  for (size_t b = 0; b < n; b++) {
    double a = f->b[b].w_m * f->b[b].h_m;
    if ((rc = link(net, b, (int)(n + b), l[0].t / (l[0].k * a), err)) ||
        (rc = link(net, n + b, (int)(2 * n + b), l[1].t / (l[1].k * a), err)) ||
        (rc = link(net, 2 * n + b, (int)(3 * n + b), l[2].t / (l[2].k * a), err)) ||
        (rc = link(net, 3 * n + b, SITS_AMBIENT,
                   l[3].t / (l[3].k * a) + p->r_convec_k_per_w * shs2 / a, err)))
      return rc;
  }
  return block_borders(net, l, &k, base, err);
}

static double tceil(double v) {
  double r = round(v);
  return fabs(v - r) < GEOM_TOL ? r : ceil(v);
}
static double tfloor(double v) {
  double r = round(v);
  return fabs(v - r) < GEOM_TOL ? r : floor(v);
}

/* A block's cells and occupancies (B7). */
static int span_of(sits_hs_network *net, size_t b, sits_err *err) {
  const sits_flp_block *q = &net->flp->b[b];
  double R = (double)net->rows, C = (double)net->cols;
  double cw = net->flp->width_m / C, ch = net->flp->height_m / R, big_h = net->flp->height_m;
  double i1 = R - tceil((q->y_m + q->h_m) / ch), i2 = R - tfloor(q->y_m / ch);
  double j1 = tfloor(q->x_m / cw), j2 = tceil((q->x_m + q->w_m) / cw);
  if (!(i1 >= 0 && i1 < i2 && i2 <= R && j1 >= 0 && j1 < j2 && j2 <= C))
    return sits__fail(err, SITS_EINPUT,
                      "block '%s' (line %zu) covers no whole grid row or column (%zu x %zu)",
                      q->name, q->line, net->rows, net->cols);
  cell_span *s = &net->span[b];
  s->i1 = (size_t)i1, s->i2 = (size_t)i2, s->j1 = (size_t)j1, s->j2 = (size_t)j2;
  size_t nr = s->i2 - s->i1, nc = s->j2 - s->j1;
  if (!(s->phi = malloc(nr * nc * sizeof *s->phi)))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t i = s->i1; i < s->i2; i++)
    for (size_t j = s->j1; j < s->j2; j++) {
      double phi = 1;
      if (!(i > s->i1 && i + 1 < s->i2 && j > s->j1 && j + 1 < s->j2)) {
        double oh = fmin(q->y_m + q->h_m, big_h - (double)i * ch) -
                    fmax(q->y_m, big_h - (double)(i + 1) * ch);
        double ow = fmin(q->x_m + q->w_m, (double)(j + 1) * cw) - fmax(q->x_m, (double)j * cw);
        if (fabs(oh / ch) < GEOM_TOL)
          oh = 0;
        else if (fabs(oh / ch - 1) < GEOM_TOL)
          oh = ch;
        if (fabs(ow / cw) < GEOM_TOL)
          ow = 0;
        else if (fabs(ow / cw - 1) < GEOM_TOL)
          ow = cw;
        phi = oh * ow / (ch * cw);
        if (phi < 0)
          return sits__fail(err, SITS_EINTERNAL, "negative occupancy of block '%s'", q->name);
      }
      s->phi[(i - s->i1) * nc + (j - s->j1)] = phi;
    }
  return SITS_OK;
}

/* Grid model (B1 - B5). */
/* "L<layer>_<row>_<col>" into @p buf (64 bytes): snprintf's format parsing took 15 % of a
 * 64 x 64 steady run (16,384 names) */
static void cell_name(char *buf, size_t layer, size_t i, size_t j) {
  size_t v[3] = {layer, i, j};
  char *o = buf;
  *o++ = 'L';
  for (int k = 0; k < 3; k++) {
    char d[24];
    int n = 0;
    do
      d[n++] = (char)('0' + v[k] % 10);
    while ((v[k] /= 10) > 0);
    while (n > 0)
      *o++ = d[--n];
    *o++ = k < 2 ? '_' : '\0';
  }
}

static int build_grid(sits_hs_network *net, sits_err *err) {
  const sits_floorplan *f = net->flp;
  const sits_hs_params *p = &net->prm;
  size_t R = net->rows, C = net->cols, rc_n = R * C;
  double cw = f->width_m / (double)C, ch = f->height_m / (double)R, a = cw * ch;
  double shs2 = p->s_sink_m * p->s_sink_m;
  layer_prm l[4];
  layers(p, l);
  /* cells and 12 package nodes; per layer its lateral links and one down (or to the ambient),
   * the edge links of two layers, and the package's (a few dozen) */
  size_t links = 4 * (R * (C - 1) + C * (R - 1) + rc_n) + 2 * 2 * (R + C) + 64;
  int rc = sits_thermal_reserve(net->th, 4 * rc_n + 12, links, err);
  if (rc)
    return rc;
  for (size_t L = 0; L < 4; L++) {
    double c =
        C_FACTOR * l[L].p * l[L].t * a + (L == 3 ? C_FACTOR * p->c_convec_j_per_k * a / shs2 : 0);
    for (size_t i = 0; i < R; i++)
      for (size_t j = 0; j < C; j++) {
        char name[64];
        cell_name(name, L, i, j);
        if ((rc = node(net, name, c, err)))
          return rc;
      }
  }
  package k = package_of(p, f->width_m, f->height_m);
  size_t base = 4 * rc_n;
  if ((rc = add_package(net, base, &k, err)))
    return rc;
  for (size_t L = 0; L < 4; L++) {
    double rx = cw / (l[L].k * ch * l[L].t), ry = ch / (l[L].k * cw * l[L].t);
    double rz = l[L].t / (l[L].k * a);
    /* HotSpot's rows use rx and columns ry (B4.1-2); the geometric choice is the reverse */
    double r_row = p->transpose_lateral ? rx : ry, r_col = p->transpose_lateral ? ry : rx;
    size_t o = L * rc_n;
    for (size_t i = 0; i < R; i++)
      for (size_t j = 0; j < C; j++) {
        size_t at = o + i * C + j;
        if ((i + 1 < R && (rc = link(net, at, (int)(at + C), r_row, err))) ||
            (j + 1 < C && (rc = link(net, at, (int)(at + 1), r_col, err))))
          return rc;
        if (L < 3 && (rc = link(net, at, (int)(at + rc_n), rz, err)))
          return rc;
        if (L == 3 && (rc = link(net, at, SITS_AMBIENT, rz + p->r_convec_k_per_w * shs2 / a, err)))
          return rc;
      }
    if (L == 2 || L == 3) { /* edge cells to the periphery (B4.5-6) */
      double r1x = L == 2 ? k.r_sp1_x : k.r_hs1_x, r1y = L == 2 ? k.r_sp1_y : k.r_hs1_y;
      size_t w = base + (L == 2 ? SP_W : SINK_C_W);
      for (size_t j = 0; j < C; j++) {
        double r = ry / 2 + (double)C * r1y;
        if ((rc = link(net, o + j, (int)(w + 2), r, err)) || /* row 0: north */
            (rc = link(net, o + (R - 1) * C + j, (int)(w + 3), r, err)))
          return rc;
      }
      for (size_t i = 0; i < R; i++) {
        double r = rx / 2 + (double)R * r1x;
        if ((rc = link(net, o + i * C + C - 1, (int)(w + 1), r, err)) || /* east */
            (rc = link(net, o + i * C, (int)w, r, err)))
          return rc;
      }
    }
  }
  if (!(net->span = calloc(f->n, sizeof *net->span)))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t b = 0; b < f->n; b++)
    if ((rc = span_of(net, b, err)))
      return rc;
  return SITS_OK;
}

static int network_make(const sits_floorplan *flp, const sits_hs_params *prm, sits_hs_model model,
                        sits_hs_network **out, sits_err *err) {
  *out = NULL;
  if (!(flp->width_m < prm->s_spreader_m && flp->height_m < prm->s_spreader_m))
    return sits__fail(
        err, SITS_EINPUT,
        "the die (%.6g x %.6g m) must be smaller than the spreader (s_spreader %.6g m)",
        flp->width_m, flp->height_m, prm->s_spreader_m);
  if (!(prm->s_spreader_m < prm->s_sink_m))
    return sits__fail(
        err, SITS_EINPUT,
        "the spreader (s_spreader %.6g m) must be smaller than the sink (s_sink %.6g m)",
        prm->s_spreader_m, prm->s_sink_m);
  const double pos[] = {
      prm->t_chip_m,         prm->k_chip_w_per_mk,      prm->p_chip_j_per_m3k,
      prm->t_interface_m,    prm->k_interface_w_per_mk, prm->p_interface_j_per_m3k,
      prm->t_spreader_m,     prm->k_spreader_w_per_mk,  prm->p_spreader_j_per_m3k,
      prm->t_sink_m,         prm->k_sink_w_per_mk,      prm->p_sink_j_per_m3k,
      prm->r_convec_k_per_w, prm->c_convec_j_per_k};
  for (size_t k = 0; k < sizeof pos / sizeof pos[0]; k++)
    if (!(pos[k] > 0) || !isfinite(pos[k]))
      return sits__fail(err, SITS_EINPUT,
                        "layer thicknesses, conductivities, heat capacities, r_convec and "
                        "c_convec must be > 0");
  if (model == SITS_HS_GRID && (prm->grid_rows < 2 || prm->grid_cols < 2))
    return sits__fail(err, SITS_EINPUT,
                      "the grid needs at least 2 rows and 2 columns (got %zu x %zu)",
                      prm->grid_rows, prm->grid_cols);
  sits_hs_network *net = calloc(1, sizeof *net);
  if (!net || !(net->th = sits_thermal_new())) {
    free(net);
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  }
  net->model = model;
  net->prm = *prm;
  net->flp = flp;
  net->rows = prm->grid_rows, net->cols = prm->grid_cols;
  net->layer = model == SITS_HS_BLOCK ? flp->n : net->rows * net->cols;
  int rc = model == SITS_HS_BLOCK ? build_block(net, err) : build_grid(net, err);
  if (rc) {
    sits_hs_network_free(net);
    return rc;
  }
  net->n_nodes = sits_thermal_node_count(net->th);
  *out = net;
  return SITS_OK;
}

sits_hs_network *sits_hs_network_new(const sits_floorplan *flp, const sits_hs_params *prm,
                                     sits_hs_model model, sits_err *err) {
  sits_hs_network *net = NULL;
  return network_make(flp, prm, model, &net, err) ? NULL : net;
}

void sits_hs_network_free(sits_hs_network *net) {
  if (!net)
    return;
  if (net->span)
    for (size_t b = 0; b < net->flp->n; b++)
      free(net->span[b].phi);
  free(net->span);
  sits_thermal_free(net->th);
  free(net);
}

sits_thermal *sits_hs_take_thermal(sits_hs_network *net) {
  sits_thermal *th = net->th;
  net->th = NULL;
  return th;
}

const sits_thermal *sits_hs_thermal(const sits_hs_network *net) {
  return net->th;
}
size_t sits_hs_node_count(const sits_hs_network *net) {
  return net->n_nodes;
}
sits_hs_model sits_hs_model_of(const sits_hs_network *net) {
  return net->model;
}
const sits_floorplan *sits_hs_floorplan(const sits_hs_network *net) {
  return net->flp;
}
const sits_hs_params *sits_hs_params_of(const sits_hs_network *net) {
  return &net->prm;
}

void sits_hs_power_map(const sits_hs_network *net, const double *block_w, double *node_w) {
  memset(node_w, 0, net->n_nodes * sizeof *node_w);
  const sits_floorplan *f = net->flp;
  if (net->model == SITS_HS_BLOCK) {
    memcpy(node_w, block_w, f->n * sizeof *node_w);
    return;
  }
  double a = f->width_m * f->height_m / (double)(net->rows * net->cols);
  for (size_t b = 0; b < f->n; b++) {
    const cell_span *s = &net->span[b];
    double density = block_w[b] / (f->b[b].w_m * f->b[b].h_m);
    size_t nc = s->j2 - s->j1;
    for (size_t i = s->i1; i < s->i2; i++)
      for (size_t j = s->j1; j < s->j2; j++)
        node_w[i * net->cols + j] += a * s->phi[(i - s->i1) * nc + (j - s->j1)] * density;
  }
}

/* One block's value in layer L from the cells (B8). */
static double reduce(const sits_hs_network *net, const cell_span *s, size_t L, const double *t) {
  const double *lay = t + L * net->rows * net->cols;
  size_t C = net->cols;
  if (net->prm.map_mode == SITS_HS_MAP_CENTER) {
    size_t ci = (s->i1 + s->i2) / 2, cj = (s->j1 + s->j2) / 2;
    size_t ci2 = (s->i2 - s->i1) % 2 == 0 ? ci - 1 : ci,
           cj2 = (s->j2 - s->j1) % 2 == 0 ? cj - 1 : cj;
    return (lay[ci * C + cj] + lay[ci2 * C + cj] + lay[ci * C + cj2] + lay[ci2 * C + cj2]) / 4;
  }
  double acc = net->prm.map_mode == SITS_HS_MAP_MIN   ? INFINITY
               : net->prm.map_mode == SITS_HS_MAP_MAX ? -INFINITY
                                                      : 0;
  for (size_t i = s->i1; i < s->i2; i++)
    for (size_t j = s->j1; j < s->j2; j++) {
      double v = lay[i * C + j];
      acc = net->prm.map_mode == SITS_HS_MAP_MIN   ? fmin(acc, v)
            : net->prm.map_mode == SITS_HS_MAP_MAX ? fmax(acc, v)
                                                   : acc + v;
    }
  return net->prm.map_mode == SITS_HS_MAP_AVG ? acc / (double)((s->i2 - s->i1) * (s->j2 - s->j1))
                                              : acc;
}

void sits_hs_block_values(const sits_hs_network *net, const double *t, double *vals) {
  size_t n = net->flp->n;
  if (net->model == SITS_HS_BLOCK) {
    memcpy(vals, t, (4 * n + N_PACKAGE) * sizeof *vals);
    return;
  }
  for (size_t L = 0; L < 4; L++)
    for (size_t b = 0; b < n; b++)
      vals[L * n + b] = reduce(net, &net->span[b], L, t);
  memcpy(vals + 4 * n, t + 4 * net->layer, N_PACKAGE * sizeof *vals);
}

void sits_hs_init_map(const sits_hs_network *net, const double *block_k, double *node_k) {
  size_t n = net->flp->n;
  if (net->model == SITS_HS_BLOCK) {
    memcpy(node_k, block_k, (4 * n + N_PACKAGE) * sizeof *node_k);
    return;
  }
  size_t rc_n = net->rows * net->cols, C = net->cols;
  double *cover = calloc(rc_n, sizeof *cover);
  memset(node_k, 0, 4 * rc_n * sizeof *node_k);
  for (size_t b = 0; b < n; b++) {
    const cell_span *s = &net->span[b];
    size_t nc = s->j2 - s->j1;
    for (size_t i = s->i1; i < s->i2; i++)
      for (size_t j = s->j1; j < s->j2; j++) {
        double phi = s->phi[(i - s->i1) * nc + (j - s->j1)];
        if (cover)
          cover[i * C + j] += phi;
        for (size_t L = 0; L < 4; L++)
          node_k[L * rc_n + i * C + j] += phi * block_k[L * n + b];
      }
  }
  if (!net->prm.hotspot_init_map && cover) /* the occupancy-weighted mean; init_temp uncovered */
    for (size_t c = 0; c < rc_n; c++)
      for (size_t L = 0; L < 4; L++)
        node_k[L * rc_n + c] =
            cover[c] > 0 ? node_k[L * rc_n + c] / cover[c] : net->prm.init_temp_k;
  free(cover);
  memcpy(node_k + 4 * rc_n, block_k + 4 * n, N_PACKAGE * sizeof *node_k);
}

double sits_hs_leakage_w(const sits_hs_network *net, size_t b, double temp_k) {
  const sits_hs_params *p = &net->prm;
  const sits_flp_block *q = &net->flp->b[b];
  return p->leak_alpha_w_per_m2 * q->w_m * q->h_m *
         exp(p->leak_beta_per_k * (temp_k - p->leak_base_k));
}

const char *sits_hs_value_name(const sits_hs_network *net, size_t k, char *buf, size_t size) {
  size_t n = net->flp->n;
  if (k < 4 * n)
    snprintf(buf, size, "%s%s", prefix[k / n], net->flp->b[k % n].name);
  else
    snprintf(buf, size, "inode_%zu", k - 4 * n);
  return buf;
}

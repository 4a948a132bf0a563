/*
 * test_util.h - helpers for the tests: temporary files, loading scenarios from text,
 * running the CLI, and the exact solution of a linear RC network.
 *
 * The exact solution: C dT/dt = b - G T with constant b has the steady state
 * T_ss = G^-1 b and, with S = C^-1/2 G C^-1/2 = V diag(l) V^T (symmetric, GSL eigen),
 *   T(t) = T_ss + C^-1/2 V diag(e^{-l t}) V^T C^1/2 (T(0) - T_ss).
 */
#ifndef SITS_TEST_UTIL_H
#define SITS_TEST_UTIL_H

#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>

#include "sits_scenario.h"
#include "sits_sim.h"
#include "sits_thermal.h"
#include "tmp_tree.h"

/* `.disabled = TU_MAIN_BUILD_ONLY` on a long fit (15 s or more under ASan) whose code paths
 * the sanitizer stage runs in shorter cases as well (the corpus's `--fit battery` and
 * `--fit battery,rows` calibrations, test_json_schemas'): the sanitizer build skips it, as
 * CI's sanitizer stage skips the validation label; the main build runs it. */
#if defined(SITS_SANITIZED_BUILD) && SITS_SANITIZED_BUILD
#define TU_MAIN_BUILD_ONLY true
#else
#define TU_MAIN_BUILD_ONLY false
#endif

static char tu_dir_path[256];

static inline void tu_dir_remove(void) {
  const char *keep = getenv("SITS_TEST_KEEP");
  if (tu_dir_path[0] && !(keep && strcmp(keep, "1") == 0))
    tmp_tree_remove(tu_dir_path);
}

/* A fresh temporary folder per test process under $TMPDIR (or /tmp), removed with what it
 * holds when the process exits (SITS_TEST_KEEP=1 keeps it, to look at after a failure):
 * every run of the suite left ~200 folders behind before. */
static inline const char *tu_dir(void) {
  if (!tu_dir_path[0]) {
    cr_assert_eq(tmp_tree_make(tu_dir_path, sizeof tu_dir_path, "sits_test_"), 0);
    cr_assert_eq(atexit(tu_dir_remove), 0);
  }
  return tu_dir_path;
}

/* Writes @p text to tu_dir()/name and returns the path (static buffer per call site). */
static inline char *tu_write(const char *name, const char *text) {
  char *path = malloc(512);
  snprintf(path, 512, "%s/%s", tu_dir(), name);
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f, "cannot write %s", path);
  fputs(text, f);
  fclose(f);
  return path;
}

/* Loads the shipped configs/@p rel with @p n overrides @p sets; asserts success. */
static inline sits_scenario *tu_shipped(const char *rel, const char *const *sets, size_t n) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", SITS_CONFIGS, rel);
  sits_scenario *sc = NULL;
  sits_err err = {0};
  int rc = sits_scenario_load(path, sets, n, &sc, &err);
  cr_assert_eq(rc, SITS_OK, "%s: %s", rel, err.msg);
  return sc;
}

/* Loads a scenario from text; asserts success. */
static inline sits_scenario *tu_load(const char *name, const char *text) {
  char *path = tu_write(name, text);
  sits_scenario *sc = NULL;
  sits_err err = {0};
  int rc = sits_scenario_load(path, NULL, 0, &sc, &err);
  cr_assert_eq(rc, SITS_OK, "loading %s failed: %s", name, err.msg);
  free(path);
  return sc;
}

/* Loads a scenario that must fail; returns the status and copies the message. */
static inline int tu_load_fail(const char *name, const char *text, char *msg, size_t size) {
  char *path = tu_write(name, text);
  sits_scenario *sc = NULL;
  sits_err err = {0};
  int rc = sits_scenario_load(path, NULL, 0, &sc, &err);
  cr_assert_neq(rc, SITS_OK, "loading %s should fail", name);
  cr_assert_null(sc);
  snprintf(msg, size, "%s", err.msg);
  free(path);
  return rc;
}

static inline sits_result *tu_run(const sits_scenario *sc) {
  sits_result *r = NULL;
  sits_err err = {0};
  int rc = sits_run(sc, NULL, &r, &err);
  cr_assert_eq(rc, SITS_OK, "run failed: %s", err.msg);
  return r;
}

/* Reads a whole file into a malloc'ed string ("" when missing). */
static inline char *tu_slurp(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f)
    return strdup("");
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = calloc((size_t)n + 1, 1);
  if (fread(s, 1, (size_t)n, f) != (size_t)n)
    s[0] = '\0';
  fclose(f);
  return s;
}

/* Runs the CLI with @p args (a shell word list); captures stdout/stderr; returns exit code. */
static inline int tu_cli(const char *args, char **out, char **err) {
  char cmd[8192], o[512], e[512];
  snprintf(o, sizeof o, "%s/stdout.txt", tu_dir());
  snprintf(e, sizeof e, "%s/stderr.txt", tu_dir());
  snprintf(cmd, sizeof cmd, "%s %s >%s 2>%s </dev/null", SITS_CLI, args, o, e);
  int st = system(cmd);
  if (out)
    *out = tu_slurp(o);
  if (err)
    *err = tu_slurp(e);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Exact response of the network (dense G, n x n; capacities c) from t0_c after t seconds. */
static inline void tu_exact(size_t n, const double *c, const gsl_matrix *g, const double *b,
                            const double *t0_c, double t, double *out) {
  gsl_matrix *s = gsl_matrix_alloc(n, n), *v = gsl_matrix_alloc(n, n), *lu = gsl_matrix_alloc(n, n);
  gsl_vector *l = gsl_vector_alloc(n), *ss = gsl_vector_alloc(n), *w = gsl_vector_alloc(n);
  gsl_permutation *p = gsl_permutation_alloc(n);
  gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(n);
  int sign;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      gsl_matrix_set(s, i, j, gsl_matrix_get(g, i, j) / sqrt(c[i] * c[j]));
  gsl_eigen_symmv(s, l, v, ws);
  gsl_matrix_memcpy(lu, g);
  gsl_vector_const_view bv = gsl_vector_const_view_array(b, n);
  gsl_linalg_LU_decomp(lu, p, &sign);
  gsl_linalg_LU_solve(lu, p, &bv.vector, ss);
  for (size_t k = 0; k < n; k++) { /* w = diag(e^{-l t}) V^T C^1/2 (T0 - Tss) */
    double acc = 0;
    for (size_t i = 0; i < n; i++)
      acc += gsl_matrix_get(v, i, k) * sqrt(c[i]) * (t0_c[i] - gsl_vector_get(ss, i));
    gsl_vector_set(w, k, acc * exp(-gsl_vector_get(l, k) * t));
  }
  for (size_t i = 0; i < n; i++) {
    double acc = 0;
    for (size_t k = 0; k < n; k++)
      acc += gsl_matrix_get(v, i, k) * gsl_vector_get(w, k);
    out[i] = gsl_vector_get(ss, i) + acc / sqrt(c[i]);
  }
  gsl_matrix_free(s), gsl_matrix_free(v), gsl_matrix_free(lu);
  gsl_vector_free(l), gsl_vector_free(ss), gsl_vector_free(w);
  gsl_permutation_free(p);
  gsl_eigen_symmv_free(ws);
}

/* A 2-layer grid of rows x cols cells ("c<k>", layer 0 first) whose layer 1 has its north
 * row linked to an extra node "xn" and its south row to "xs" (the layered-grid solver's edge
 * segments), the extras linked to the ambient, layer 1's cells optionally too. */
typedef struct tu_grid_spec {
  size_t rows, cols;
  double c_j_per_k[2];                              /* a cell's, per layer */
  double r_row_k_per_w, r_col_k_per_w, r_z_k_per_w; /* along a column, a row, between layers */
  double r_edge_k_per_w;                            /* an edge cell to its extra node */
  double c_n_j_per_k, c_s_j_per_k;                  /* the extras */
  double r_n_amb_k_per_w, r_s_amb_k_per_w;          /* the extras to the ambient */
  double r_cell_amb_k_per_w;                        /* layer 1's cells to the ambient; 0: none */
} tu_grid_spec;

static inline sits_thermal *tu_two_layer_grid(const tu_grid_spec *g) {
  size_t R = g->rows, C = g->cols;
  sits_thermal *th = sits_thermal_new();
  sits_err err = {0};
  char name[32];
  for (size_t k = 0; k < 2 * R * C; k++) {
    snprintf(name, sizeof name, "c%zu", k);
    cr_assert_geq(sits_thermal_add_node(th, name, g->c_j_per_k[k >= R * C], &err), 0, "%s",
                  err.msg);
  }
  int xn = sits_thermal_add_node(th, "xn", g->c_n_j_per_k, &err);
  int xs = sits_thermal_add_node(th, "xs", g->c_s_j_per_k, &err);
  cr_assert(xn >= 0 && xs >= 0, "%s", err.msg);
  for (size_t l = 0; l < 2; l++)
    for (size_t i = 0; i < R; i++)
      for (size_t j = 0; j < C; j++) {
        int at = (int)(l * R * C + i * C + j);
        if (i + 1 < R)
          cr_assert_eq(sits_thermal_add_link(th, at, at + (int)C, g->r_row_k_per_w, &err), 0);
        if (j + 1 < C)
          cr_assert_eq(sits_thermal_add_link(th, at, at + 1, g->r_col_k_per_w, &err), 0);
        if (l == 0)
          cr_assert_eq(sits_thermal_add_link(th, at, at + (int)(R * C), g->r_z_k_per_w, &err), 0);
        else if (i == 0 || i + 1 == R)
          cr_assert_eq(sits_thermal_add_link(th, at, i == 0 ? xn : xs, g->r_edge_k_per_w, &err), 0);
        if (l == 1 && g->r_cell_amb_k_per_w > 0)
          cr_assert_eq(sits_thermal_add_link(th, at, SITS_AMBIENT, g->r_cell_amb_k_per_w, &err), 0);
      }
  cr_assert_eq(sits_thermal_add_link(th, xn, SITS_AMBIENT, g->r_n_amb_k_per_w, &err), 0);
  cr_assert_eq(sits_thermal_add_link(th, xs, SITS_AMBIENT, g->r_s_amb_k_per_w, &err), 0);
  return th;
}

#endif

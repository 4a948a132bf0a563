/*
 * files.c - HotSpot's input files (docs/hotspot-model.md, part C): .flp floorplans, .ptrace
 * power traces and .init/.steady temperature files, read with file:line errors.
 */
#define _POSIX_C_SOURCE 200809L
#include "hs_impl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int sits__hs_next_tokens(sits__lines *l, char **tok, int max, sits_err *err) {
  char *line;
  bool binary;
  while ((line = sits__lines_next(l, &binary)) != NULL) {
    if (binary) {
      sits__fail(err, SITS_EINPUT, "%s:%zu: %s", l->path, l->lineno, l->reason);
      return -1;
    }
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
      if (*t == '#')
        break;
      if (n < max)
        tok[n] = t;
      n++;
    }
    if (n)
      return n;
  }
  return 0;
}

bool sits__hs_number(const char *s, double *v) {
  char *end;
  errno = 0;
  *v = strtod(s, &end);
  return *s && !*end && isfinite(*v) && errno != ERANGE;
}

/* ---- .flp ----------------------------------------------------------------------------- */

int sits_hs_read_flp(const char *path, sits_floorplan **out, sits_err *err) {
  *out = NULL;
  sits__lines l;
  int rc = sits__lines_open(&l, path, err);
  if (rc)
    return rc;
  sits_flp_block *b = NULL;
  size_t n = 0, cap = 0;
  char *tok[8];
  int nt;
  while (rc == SITS_OK && (nt = sits__hs_next_tokens(&l, tok, 8, err)) != 0) {
    if (nt < 0) {
      rc = SITS_EINPUT;
      break;
    }
    if (nt == 3) /* connectivity: name1 name2 wire_density (HotFloorplan's), skipped */
      continue;
    double v[6];
    if (nt != 5 && nt != 7) {
      rc =
          sits__fail(err, SITS_EINPUT,
                     "%s:%zu: expected 'name width height left-x bottom-y' (5 or 7 fields), got %d",
                     path, l.lineno, nt);
      break;
    }
    for (int k = 1; k < nt && rc == SITS_OK; k++)
      if (!sits__hs_number(tok[k], &v[k < 6 ? k - 1 : 5]))
        rc = sits__fail(err, SITS_EINPUT, "%s:%zu: '%s' is not a number", path, l.lineno, tok[k]);
    /* the optional volumetric heat capacity (J/(m^3 K)) and resistivity (m K/W): not used by the
     * networks (HotSpot's layer files set them), but a value no material has is an error */
    for (int k = 5; k < nt && rc == SITS_OK; k++) {
      double x;
      sits__hs_number(tok[k], &x);
      if (!(x > 0))
        rc = sits__fail(err, SITS_EINPUT, "%s:%zu: the block's %s must be positive (got %s)", path,
                        l.lineno, k == 5 ? "heat capacity (J/(m^3 K))" : "resistivity (m K/W)",
                        tok[k]);
    }
    if (rc)
      break;
    if (n == cap) {
      cap = cap ? 2 * cap : 64;
      sits_flp_block *nb = realloc(b, cap * sizeof *nb);
      if (!nb) {
        rc = sits__fail(err, SITS_ENOMEM, "out of memory");
        break;
      }
      b = nb;
    }
    if (!(b[n].name = strdup(tok[0]))) {
      rc = sits__fail(err, SITS_ENOMEM, "out of memory");
      break;
    }
    b[n].w_m = v[0], b[n].h_m = v[1], b[n].x_m = v[2], b[n].y_m = v[3], b[n].line = l.lineno;
    n++;
  }
  sits__lines_close(&l);
  if (rc == SITS_OK)
    rc = ((*out = sits_floorplan_new(b, n, path, err)) ? SITS_OK : err->code);
  for (size_t k = 0; k < n; k++)
    free(b[k].name);
  free(b);
  return rc;
}

/* ---- .ptrace -------------------------------------------------------------------------- */

void sits_hs_trace_free(sits_hs_trace *t) {
  if (!t)
    return;
  free(t->power_w);
  free(t->column);
  free(t);
}

int sits_hs_read_ptrace(const char *path, const sits_floorplan *flp, sits_hs_trace **out,
                        sits_err *err) {
  *out = NULL;
  sits__lines l;
  int rc = sits__lines_open(&l, path, err);
  if (rc)
    return rc;
  size_t n = flp->n;
  char **tok = malloc((n + 1) * sizeof *tok);
  size_t *col = malloc((n + 1) * sizeof *col);
  sits_hs_trace *t = calloc(1, sizeof *t);
  size_t cap = 0;
  if (!tok || !col || !t)
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  int nt = rc ? 0 : sits__hs_next_tokens(&l, tok, (int)n + 1, err);
  if (rc == SITS_OK && nt <= 0)
    rc = nt < 0 ? SITS_EINPUT : sits__fail(err, SITS_EINPUT, "%s: empty power trace", path);
  if (rc == SITS_OK && (size_t)nt != n)
    rc = sits__fail(err, SITS_EINPUT,
                    "%s:%zu: the power trace has %d columns but the floorplan %zu blocks", path,
                    l.lineno, nt, n);
  bool *seen = rc ? NULL : calloc(n, sizeof *seen);
  if (rc == SITS_OK && !seen)
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t k = 0; rc == SITS_OK && k < n; k++) {
    int b = sits_floorplan_find(flp, tok[k]);
    if (b < 0)
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: column '%s' is not a block of the floorplan", path,
                      l.lineno, tok[k]);
    else if (seen[b])
      rc =
          sits__fail(err, SITS_EINPUT, "%s:%zu: column '%s' appears twice", path, l.lineno, tok[k]);
    else
      seen[b] = true, col[k] = (size_t)b;
  }
  free(seen);
  if (t)
    t->n_blocks = n, t->column = col, col = NULL;
  while (rc == SITS_OK && (nt = sits__hs_next_tokens(&l, tok, (int)n + 1, err)) != 0) {
    if (nt < 0) {
      rc = SITS_EINPUT;
      break;
    }
    if ((size_t)nt != n) {
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: %d values for the %zu columns of the header", path,
                      l.lineno, nt, n);
      break;
    }
    if (t->n_rows == cap) {
      cap = cap ? 2 * cap : 128;
      double *w = realloc(t->power_w, cap * n * sizeof *w);
      if (!w) {
        rc = sits__fail(err, SITS_ENOMEM, "out of memory");
        break;
      }
      t->power_w = w;
    }
    for (size_t k = 0; k < n && rc == SITS_OK; k++) {
      double v;
      if (!sits__hs_number(tok[k], &v))
        rc = sits__fail(err, SITS_EINPUT, "%s:%zu: '%s' is not a number", path, l.lineno, tok[k]);
      else if (!(v >= 0 && v <= 1e6)) /* as the config's powers: 0 to 1 MW */
        rc = sits__fail(err, SITS_EINPUT, "%s:%zu: %s W for block '%s' is not a power (0 to 1 MW)",
                        path, l.lineno, tok[k], flp->b[t->column[k]].name);
      else
        t->power_w[t->n_rows * n + t->column[k]] = v;
    }
    t->n_rows++;
  }
  if (rc == SITS_OK && t->n_rows == 0)
    rc = sits__fail(err, SITS_EINPUT, "%s:%zu: no power rows after the header", path, l.lineno);
  sits__lines_close(&l);
  free(tok), free(col);
  if (rc) {
    sits_hs_trace_free(t);
    return rc;
  }
  *out = t;
  return SITS_OK;
}

/* ---- .init ---------------------------------------------------------------------------- */

int sits_hs_read_init(const char *path, const sits_hs_network *net, double *vals, sits_err *err) {
  size_t n = sits_hs_floorplan(net)->n, m = 4 * n + 12;
  bool *seen = calloc(m, sizeof *seen);
  char(*names)[600] = malloc(m * sizeof *names);
  sits__lines l;
  int rc = !seen || !names ? sits__fail(err, SITS_ENOMEM, "out of memory")
                           : sits__lines_open(&l, path, err);
  if (rc) {
    free(seen), free(names);
    return rc;
  }
  for (size_t k = 0; k < m; k++)
    sits_hs_value_name(net, k, names[k], sizeof names[k]);
  char *tok[3];
  int nt;
  while (rc == SITS_OK && (nt = sits__hs_next_tokens(&l, tok, 3, err)) != 0) {
    if (nt < 0) {
      rc = SITS_EINPUT;
      break;
    }
    double v;
    if (nt != 2 || !sits__hs_number(tok[1], &v)) {
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: expected 'name temperature_K'", path, l.lineno);
      break;
    }
    size_t k = 0;
    while (k < m && strcmp(names[k], tok[0]) != 0)
      k++;
    if (k == m)
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: '%s' is not a node of this floorplan's network",
                      path, l.lineno, tok[0]);
    else if (seen[k])
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: '%s' appears twice", path, l.lineno, tok[0]);
    else if (!(v > 0))
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: %g K is not a temperature", path, l.lineno, v);
    else
      seen[k] = true, vals[k] = v;
  }
  for (size_t k = 0; rc == SITS_OK && k < m; k++)
    if (!seen[k])
      rc = sits__fail(err, SITS_EINPUT, "%s:%zu: no value for '%s'", path, l.lineno, names[k]);
  sits__lines_close(&l);
  free(seen), free(names);
  return rc;
}

/*
 * run.c - the `hotspot` drop-in: HotSpot's inputs in, HotSpot's outputs out (see
 * sits_hotspot.h). Every file is written under a temporary name and renamed when complete.
 */
#define _POSIX_C_SOURCE 200809L
#include "sits_hotspot.h"
#include "status_internal.h"
#include "h5_internal.h"
#include "sits_output.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct run {
  const sits_hs_run_opts *o;
  sits_hs_params prm;
  sits_hs_model model;
  sits_floorplan *flp;
  sits_hs_trace *tr;
  sits_hs_network *net;
  size_t n, nb, m; /* nodes, blocks, block-level values */
  double *node, *vals;
} run;

static const char *opt(const run *r, const char *key) {
  return sits_hs_options_get(r->o->options, key);
}

static bool is_h5(const char *path) {
  size_t n = strlen(path);
  return n > 3 && strcmp(path + n - 3, ".h5") == 0;
}

/* Closes an output the writer @p rc filled: in place when it succeeded, else removed. */
static int close_out(sits_output *o, int rc, sits_err *err) {
  int end = sits_output_close(o, rc == SITS_OK, err);
  return rc ? rc : end;
}

static int steady(run *r, sits_hs_run_report *rep, sits_err *err) {
  const char *sf = opt(r, "steady_file"), *gf = opt(r, "grid_steady_file");
  if (!sf && !gf)
    return SITS_OK;
  if (gf && r->model != SITS_HS_GRID)
    return sits__fail(err, SITS_EINPUT, "-grid_steady_file needs -model_type grid");
  double *mean = calloc(r->nb, sizeof *mean);
  if (!mean)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t k = 0; k < r->tr->n_rows; k++) /* HotSpot: the trace's arithmetic mean */
    for (size_t b = 0; b < r->nb; b++)
      mean[b] += r->tr->power_w[k * r->nb + b] / (double)r->tr->n_rows;
  const char *lk = opt(r, "leakage_used");
  rep->leakage = lk && (strcmp(lk, "1") == 0 || strcmp(lk, "on") == 0);
  int rc = sits_hs_steady_ex(r->net, mean, rep->leakage, r->o->general, r->node, err);
  free(mean);
  if (rc)
    return rc;
  sits_output *o;
  if (sf) {
    sits_hs_block_values(r->net, r->node, r->vals);
    if (!(o = sits_output_open(sf, err)))
      return SITS_EIO;
    rc = sits_hs_write_values(sits_output_file(o), r->net, r->vals, r->o->precision);
    if ((rc = close_out(o, rc, err)))
      return rc;
  }
  if (gf) {
    if (!(o = sits_output_open(gf, err)))
      return SITS_EIO;
    rc = sits_hs_write_grid(sits_output_file(o), r->net, r->node, r->o->precision);
    if ((rc = close_out(o, rc, err)))
      return rc;
  }
  rep->steady_done = true;
  return SITS_OK;
}

/* The HDF5 of a transient: /time_s, /temp_c/<block>, /power_w/<block>. */
static int write_h5(run *r, const char *path, const double *temp_k, sits_err *err) {
  size_t rows = r->tr->n_rows, nb = r->nb;
  double *t = malloc(rows * sizeof *t), *c = malloc(rows * nb * sizeof *c);
  const char **names = malloc(nb * sizeof *names);
  int rc = t && c && names ? SITS_OK : sits__fail(err, SITS_ENOMEM, "out of memory");
  if (rc == SITS_OK) {
    for (size_t k = 0; k < rows; k++)
      t[k] = (double)(k + 1) * r->prm.sampling_intvl_s;
    for (size_t k = 0; k < rows * nb; k++)
      c[k] = temp_k[k] - SITS_KELVIN;
    for (size_t b = 0; b < nb; b++)
      names[b] = r->flp->b[b].name;
    sits__h5_columns cols = {.n_rows = rows,
                             .n_cols = nb,
                             .n_groups = 2,
                             .n_attrs = 1,
                             .time_s = t,
                             .names = names,
                             .group = {"/temp_c", "/power_w"},
                             .units = {"degC", "W"},
                             .values = {c, r->tr->power_w},
                             .attr_name = {"model"},
                             .attr_value = {r->model == SITS_HS_BLOCK ? "block" : "grid"}};
    rc = sits__h5_write_columns_file(path, &cols, err);
  }
  free(t), free(c), free(names);
  return rc;
}

static int transient(run *r, sits_hs_run_report *rep, sits_err *err) {
  const char *out = opt(r, "o"), *gt = opt(r, "grid_transient_file");
  if (!out && !gt)
    return SITS_OK;
  if (gt && r->model != SITS_HS_GRID)
    return sits__fail(err, SITS_EINPUT, "-grid_transient_file needs -model_type grid");
  const char *init = opt(r, "init_file");
  int rc = SITS_OK;
  if (init)
    rc = sits_hs_read_init(init, r->net, r->vals, err);
  else
    for (size_t k = 0; k < r->m; k++)
      r->vals[k] = r->prm.init_temp_k;
  if (rc)
    return rc;
  sits_hs_init_map(r->net, r->vals, r->node);
  sits_hs_transient *tr = NULL;
  size_t rows = r->tr->n_rows;
  double *blk = malloc(rows * r->nb * sizeof *blk);
  if (!blk)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  sits_hs_transient_opts to = {.cvode = r->o->cvode,
                               .rtol = r->o->rtol,
                               .substeps = r->o->substeps,
                               .order = r->o->order,
                               .general = r->o->general};
  if ((rc = ((tr = sits_hs_transient_new(r->net, r->prm.sampling_intvl_s, r->node, &to, err))
                 ? SITS_OK
                 : err->code))) {
    free(blk);
    return rc;
  }
  sits_output *go = gt ? sits_output_open(gt, err) : NULL;
  FILE *gf = go ? sits_output_file(go) : NULL;
  if (gt && !go)
    rc = SITS_EIO;
  for (size_t k = 0; rc == SITS_OK && k < rows; k++) {
    if ((rc = sits_hs_transient_step(tr, r->tr->power_w + k * r->nb, r->node, err)))
      break;
    sits_hs_block_values(r->net, r->node, r->vals);
    memcpy(blk + k * r->nb, r->vals, r->nb * sizeof *blk); /* silicon values */
    if (gf) {
      fprintf(gf, "t = %g\n", (double)k * r->prm.sampling_intvl_s);
      rc = sits_hs_write_grid(gf, r->net, r->node, r->o->precision);
    }
  }
  sits_hs_transient_stats(tr, &rep->stats);
  sits_hs_transient_free(tr);
  if (go)
    rc = close_out(go, rc, err);
  if (rc == SITS_OK && out) {
    if (is_h5(out))
      rc = write_h5(r, out, blk, err);
    else {
      sits_output *o = sits_output_open(out, err);
      FILE *f = o ? sits_output_file(o) : NULL;
      if (!o)
        rc = SITS_EIO;
      else {
        for (size_t c = 0; c < r->nb; c++) /* the ptrace's column order */
          fprintf(f, "%s%c", r->flp->b[r->tr->column[c]].name, c + 1 < r->nb ? '\t' : '\n');
        for (size_t k = 0; k < rows; k++)
          for (size_t c = 0; c < r->nb; c++)
            fprintf(f, "%.*f%c", r->o->precision, blk[k * r->nb + r->tr->column[c]],
                    c + 1 < r->nb ? '\t' : '\n');
        rc = close_out(o, SITS_OK, err);
      }
    }
  }
  free(blk);
  if (rc == SITS_OK)
    rep->transient_done = true;
  return rc;
}

int sits_hs_run(const sits_hs_run_opts *o, sits_hs_run_report *rep, sits_err *err) {
  memset(rep, 0, sizeof *rep);
  run r = {.o = o};
  int rc = sits_hs_options_params(o->options, &r.prm, &r.model, err);
  if (rc)
    return rc;
  r.prm.transpose_lateral = !o->geometric_lateral;
  r.prm.hotspot_init_map = !o->normalised_init;
  const char *flp = opt(&r, "f"), *ptrace = opt(&r, "p");
  if (!flp || !ptrace)
    return sits__fail(err, SITS_EINPUT, "hotspot needs a floorplan (-f) and a power trace (-p)");
  if ((rc = sits_hs_read_flp(flp, &r.flp, err)) ||
      (rc = sits_hs_read_ptrace(ptrace, r.flp, &r.tr, err)))
    goto done;
  if ((rc = ((r.net = sits_hs_network_new(r.flp, &r.prm, r.model, err)) ? SITS_OK : err->code))) {
    char msg[SITS_ERRMSG_MAX]; /* the die against the package, or a block against the grid */
    snprintf(msg, sizeof msg, "%s", err->msg);
    size_t ln = 0;
    int off = 0; /* a block's message ("line N: ...") at its file:line */
    if (sscanf(msg, "line %zu: %n", &ln, &off) == 1 && off > 0)
      sits__fail(err, rc, "%s:%zu: %s", flp, ln, msg + off);
    else
      sits__fail(err, rc, "%s: %s", flp, msg);
    goto done;
  }
  r.n = sits_hs_node_count(r.net), r.nb = r.flp->n, r.m = 4 * r.nb + 12;
  r.node = malloc(r.n * sizeof *r.node);
  r.vals = malloc(r.m * sizeof *r.vals);
  if (!r.node || !r.vals) {
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
    goto done;
  }
  rep->model = r.model, rep->n_blocks = r.nb, rep->n_nodes = r.n, rep->n_rows = r.tr->n_rows;
  if ((rc = transient(&r, rep, err)) || (rc = steady(&r, rep, err)))
    goto done;
  const char *dump = opt(&r, "d");
  if (dump) {
    sits_output *out = sits_output_open(dump, err);
    rc = out ? close_out(out, sits_hs_options_dump(o->options, sits_output_file(out)), err)
             : SITS_EIO;
  }
done:
  free(r.node), free(r.vals);
  sits_hs_network_free(r.net);
  sits_hs_trace_free(r.tr);
  sits_floorplan_free(r.flp);
  return rc;
}

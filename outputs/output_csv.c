/*
 * output_csv.c - the CSV result: a header line, then one row per sample:
 *   time_s, temp_c.<node>..., node_power_w.<node>..., power_w.total, power_w.<domain>...,
 *   freq_mhz.<domain>..., battery.soc, battery.voltage_v, battery.current_a (with a battery),
 *   fan_duty.<fan>... (with platform.fans)
 * Written under a temporary name, then renamed.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sits_output.h"
#include "result_internal.h"
#include "sits_writers.h"
#include "status_internal.h"
#include "scenario_internal.h"
#include "writer_impl.h"

static void write_header(FILE *f, const sits_scenario *sc) {
  const sits_thermal *th = sits_scenario_thermal(sc);
  size_t n = sits_thermal_node_count(th), nd;
  fputs("time_s", f);
  for (size_t i = 0; i < n; i++)
    fprintf(f, ",temp_c.%s", sits_thermal_name(th, (int)i));
  for (size_t i = 0; i < n; i++)
    fprintf(f, ",node_power_w.%s", sits_thermal_name(th, (int)i));
  const sits_domain *dom = sits_scenario_domains(sc, &nd);
  fputs(",power_w.total", f);
  for (size_t d = 0; d < nd; d++)
    fprintf(f, ",power_w.%s", dom[d].name);
  for (size_t d = 0; d < nd; d++)
    fprintf(f, ",freq_mhz.%s", dom[d].name);
  if (sits_scenario_battery(sc))
    fputs(",battery.soc,battery.voltage_v,battery.current_a", f);
  for (size_t k = 0; k < sc->n_fans; k++)
    fprintf(f, ",fan_duty.%s", sc->fans[k].name);
  fputc('\n', f);
}

/* Rows [first, first + count) of @p r. */
static int write_rows(FILE *f, const sits_result *r, size_t first, size_t count) {
  size_t n = r->n_nodes, nd = r->n_domains;
  for (size_t k = first; k < first + count; k++) {
    fprintf(f, "%.9g", r->time_s[k]);
    for (size_t i = 0; i < n; i++)
      fprintf(f, ",%.9g", r->temp_c[k * n + i]);
    for (size_t i = 0; i < n; i++)
      fprintf(f, ",%.9g", r->node_power_w[k * n + i]);
    fprintf(f, ",%.9g", r->total_power_w[k]);
    for (size_t d = 0; d < nd; d++)
      fprintf(f, ",%.9g", r->domain_power_w[k * nd + d]);
    for (size_t d = 0; d < nd; d++)
      fprintf(f, ",%.9g", r->freq_mhz[k * nd + d]);
    if (r->has_battery)
      fprintf(f, ",%.9g,%.9g,%.9g", r->batt_soc[k], r->batt_voltage_v[k], r->batt_current_a[k]);
    for (size_t j = 0; j < r->n_fans; j++)
      fprintf(f, ",%.9g", r->fan_duty[k * r->n_fans + j]);
    fputc('\n', f);
  }
  return ferror(f) ? -1 : 0;
}

int sits_write_csv(const sits_scenario *sc, const sits_result *r, const char *path, sits_err *err) {
  sits_output *o = sits_output_open(path, err);
  if (!o)
    return SITS_EIO;
  write_header(sits_output_file(o), sc);
  return sits_output_close(o, write_rows(sits_output_file(o), r, 0, r->n_samples) == 0, err);
}

/* ---- the result written as the run goes (sits_run_opts.sink) ---- */

struct sits_stream {
  char *path; /* for messages */
  sits_output *csv;
  sits__h5_stream *h5;
  const sits_scenario *ptrace; /* a HotSpot power trace of this scenario's blocks */
};

/* ---- HotSpot .ptrace: block names, then each sample's block powers [W] ---- */

static int ptrace_check(const sits_scenario *sc, sits_err *err) {
  if (!sc->hotspot || sc->n_blocks == 0)
    return sits__fail(err, SITS_EINPUT,
                      "--ptrace needs a floorplan platform (platform.thermal.hotspot)");
  if (!sc->grid_rows)
    return SITS_OK;
  const sits_schedule *s = sits_scenario_schedule(sc);
  for (size_t j = 0; s && j < sits_schedule_column_count(s); j++)
    if (sits_schedule_column(s, j).kind == SITS_COLUMN_POWER_W)
      return sits__fail(err, SITS_EINPUT,
                        "--ptrace on a grid floorplan takes block power from the domains and "
                        "static power; this workload injects power into cells directly");
  return SITS_OK;
}

static void ptrace_header(FILE *f, const sits_scenario *sc) {
  for (size_t b = 0; b < sc->n_blocks; b++)
    fprintf(f, "%s%s", b ? "\t" : "",
            sc->grid_rows ? sc->groups[b].name : sits_thermal_name(sc->thermal, (int)b));
  fputc('\n', f);
}

static int ptrace_rows(FILE *f, const sits_scenario *sc, const sits_result *r, size_t first,
                       size_t count) {
  size_t n = r->n_nodes, nd = r->n_domains, nb = sc->n_blocks;
  for (size_t k = first; k < first + count; k++)
    for (size_t b = 0; b < nb; b++) {
      double p = 0;
      if (!sc->grid_rows)
        p = r->node_power_w[k * n + b];
      else if (sc->block_share) {
        for (size_t d = 0; d < nd; d++)
          p += sc->block_share[d * nb + b] * r->domain_power_w[k * nd + d];
        p += sc->block_share[SITS_MAX_DOMAINS * nb + b]; /* static watts given to b */
      }
      fprintf(f, "%.9g%c", p, b + 1 < nb ? '\t' : '\n');
    }
  return ferror(f) ? -1 : 0;
}

sits_stream *sits_stream_open(const sits_scenario *sc, const char *path, sits_stream_format format,
                              sits_err *err) {
  sits_stream *s = calloc(1, sizeof *s);
  if (!s || !(s->path = strdup(strcmp(path, "-") == 0 ? "the standard output" : path))) {
    free(s);
    sits__fail(err, SITS_ENOMEM, "out of memory");
    return NULL;
  }
  if (format == SITS_STREAM_PTRACE) {
    if (ptrace_check(sc, err) == SITS_OK && (s->csv = sits_output_open(path, err)) != NULL) {
      s->ptrace = sc;
      ptrace_header(sits_output_file(s->csv), sc);
    }
  } else if (format == SITS_STREAM_H5)
    s->h5 = sits__h5_stream_open(path, sc, err);
  else if ((s->csv = sits_output_open(path, err)) != NULL)
    write_header(sits_output_file(s->csv), sc);
  if (!s->h5 && !s->csv) {
    free(s->path);
    free(s);
    return NULL;
  }
  return s;
}

int sits_stream_write(sits_stream *s, const sits_result *r, size_t first, size_t count,
                      sits_err *err) {
  if (s->h5)
    return sits__h5_stream_rows(s->h5, r, first, count, err);
  if (s->ptrace ? ptrace_rows(sits_output_file(s->csv), s->ptrace, r, first, count) == 0
                : write_rows(sits_output_file(s->csv), r, first, count) == 0)
    return SITS_OK;
  return sits__fail(err, SITS_EIO, "%s: writing the CSV file failed: %s", s->path, strerror(errno));
}

int sits_stream_sink(const sits_result *r, size_t first, size_t count, void *stream,
                     sits_err *err) {
  return sits_stream_write(stream, r, first, count, err);
}

int sits_stream_close(sits_stream *s, const sits_result *r, sits_err *err) {
  if (!s)
    return SITS_OK;
  int rc = s->h5 ? sits__h5_stream_close(s->h5, r, err)
                 : sits_output_close(s->csv, r != NULL, r ? err : NULL);
  free(s->path);
  free(s);
  return r ? rc : SITS_OK;
}

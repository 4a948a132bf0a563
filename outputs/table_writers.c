/* table_writers.c - DVFS table writers (see sits_table_writer.h). */
#define _POSIX_C_SOURCE 200809L
#include "sits_output.h"
#include "sits_board.h"
#include "sits_table_writer.h"
#include "status_internal.h"
#include "writer_impl.h"

#include <ctype.h>
#include <stdbool.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A C / device-tree identifier from a domain name: [a-z0-9_]. */
static void ident(const char *name, char *out, size_t size) {
  size_t k = 0;
  for (; *name && k + 1 < size; name++)
    out[k++] = isalnum((unsigned char)*name) ? (char)tolower((unsigned char)*name) : '_';
  out[k] = '\0';
}

static void num(FILE *f, double v) {
  if (isfinite(v))
    fprintf(f, "%.10g", v);
  else
    fputs(v > 0 ? "inf" : "", f); /* a time that never comes (JSON null); NaN: empty */
}

static int write_csv(const sits_dvfs_table *t, size_t n, FILE *f) {
  (void)n;
  fputs("freq_mhz,volt_v,power_w,total_power_w,steady_temp_c,runaway,items_per_s,items_per_j,"
        "energy_per_item_mj,time_to_trip_s,sustainable,inefficient,knee,max_sustainable,"
        "steady_temp_half_width_c,fan_cycles\n",
        f);
  for (size_t k = 0; k < t->n; k++) {
    const sits_dvfs_row *r = &t->rows[k];
    const double v[] = {r->freq_mhz,           r->volt_v,        r->power_w,     r->total_power_w,
                        r->steady_temp_c,      r->runaway,       r->items_per_s, r->items_per_j,
                        r->energy_per_item_mj, r->time_to_trip_s};
    for (size_t j = 0; j < sizeof v / sizeof v[0]; j++) {
      if (j)
        fputc(',', f);
      num(f, v[j]);
    }
    fprintf(f, ",%d,%d,%d,%d,", r->sustainable, r->inefficient, r->freq_mhz == t->knee_freq_mhz,
            r->freq_mhz == t->max_sustainable_freq_mhz);
    if (isfinite(r->steady_temp_half_width_c)) /* empty without a band */
      fprintf(f, "%.10g", r->steady_temp_half_width_c);
    fprintf(f, ",%d\n", r->fan_cycles);
  }
  return SITS_OK;
}

static void jnum(FILE *f, const char *key, double v, int comma) {
  fprintf(f, "%s\"%s\":", comma ? "," : "", key);
  if (isfinite(v))
    fprintf(f, "%.10g", v);
  else
    fputs("null", f);
}

static int write_json(const sits_dvfs_table *t, size_t n, FILE *f) {
  (void)n;
  fprintf(f, "{\"schema_version\":1,\"domain\":\"%s\",\"item\":\"%s\"", t->domain, t->item);
  jnum(f, "ambient_c", t->ambient_c, 1);
  jnum(f, "trip_c", t->trip_c, 1);
  fputs(",\"opps\":[", f);
  for (size_t k = 0; k < t->n; k++) {
    const sits_dvfs_row *r = &t->rows[k];
    fputs(k ? ",{" : "{", f);
    jnum(f, "freq_mhz", r->freq_mhz, 0);
    jnum(f, "volt_v", r->volt_v, 1);
    jnum(f, "power_w", r->power_w, 1);
    jnum(f, "total_power_w", r->total_power_w, 1);
    jnum(f, "steady_temp_c", r->steady_temp_c, 1);
    fprintf(f, ",\"runaway\":%s", r->runaway ? "true" : "false");
    jnum(f, "items_per_s", r->items_per_s, 1);
    jnum(f, "items_per_j", r->items_per_j, 1);
    jnum(f, "energy_per_item_mj", r->energy_per_item_mj, 1);
    jnum(f, "time_to_trip_s", r->time_to_trip_s, 1);
    fprintf(f, ",\"sustainable\":%s,\"inefficient\":%s", r->sustainable ? "true" : "false",
            r->inefficient ? "true" : "false");
    jnum(f, "steady_temp_half_width_c", r->steady_temp_half_width_c, 1);
    fprintf(f, ",\"fan_cycles\":%s", r->fan_cycles ? "true" : "false");
    fputc('}', f);
  }
  fputc(']', f);
  jnum(f, "knee_freq_mhz", t->knee_freq_mhz, 1);
  jnum(f, "max_sustainable_freq_mhz", t->max_sustainable_freq_mhz, 1);
  jnum(f, "dynamic_power_coefficient_uw_per_mhz_v2", t->dynamic_power_coefficient_uw_per_mhz_v2, 1);
  jnum(f, "sustainable_power_mw", t->sustainable_power_mw, 1);
  /* what the powers and the coefficient are of: the whole domain (a CPU cluster's every
   * core; the dts divides by its CPUs for opp-microwatt and dynamic-power-coefficient) */
  fputs(",\"power_scope\":\"domain\"", f);
  fputs("}\n", f);
  return SITS_OK;
}

static int write_header(const sits_dvfs_table *t, size_t n, FILE *f) {
  (void)n;
  char id[64];
  ident(t->domain, id, sizeof id);
  fprintf(
      f,
      "/* DVFS table of '%s' at %.1f C ambient, written by sitsenergy dvfs-table.\n"
      " * microwatt: the whole domain's full-load power (all its CPUs; the dts's opp-microwatt\n"
      " * is one CPU's), 0 where it runs away (steady_temp_c -1 there); energy_per_item_mj 0\n"
      " * where it has none; the _KHZ defines -1L where there is no such OPP. */\n"
      "#ifndef SITS_DVFS_%s_H\n#define SITS_DVFS_%s_H\n\n"
      "struct sits_%s_opp {\n  unsigned long freq_khz, microvolt, microwatt;\n"
      "  double steady_temp_c, items_per_s, energy_per_item_mj;\n"
      "  int sustainable, inefficient;\n};\n\n"
      "static const struct sits_%s_opp sits_%s_opps[] = {\n",
      t->domain, t->ambient_c, id, id, id, id, id);
  for (size_t k = 0; k < t->n; k++) {
    const sits_dvfs_row *r = &t->rows[k];
    fprintf(f, "    {%luUL, %luUL, %luUL, %.6g, %.6g, %.6g, %d, %d},\n",
            (unsigned long)llround(r->freq_mhz * 1e3), (unsigned long)llround(r->volt_v * 1e6),
            isfinite(r->power_w) ? (unsigned long)llround(r->power_w * 1e6) : 0UL,
            isfinite(r->steady_temp_c) ? r->steady_temp_c : -1.0, r->items_per_s,
            isfinite(r->energy_per_item_mj) ? r->energy_per_item_mj : 0.0, r->sustainable,
            r->inefficient);
  }
  fprintf(f,
          "};\n\n#define SITS_%s_KNEE_KHZ %ldL\n#define SITS_%s_MAX_SUSTAINABLE_KHZ %ldL\n"
          "\n#endif\n",
          id, isfinite(t->knee_freq_mhz) ? lround(t->knee_freq_mhz * 1e3) : -1L, id,
          isfinite(t->max_sustainable_freq_mhz) ? lround(t->max_sustainable_freq_mhz * 1e3) : -1L);
  return SITS_OK;
}

static const struct {
  const char *name;
  int (*write)(const sits_dvfs_table *t, size_t n, FILE *f);
} writers[] = {{"csv", write_csv}, {"json", write_json}, {"header", write_header}};

/* The board formats: the scenario's names and model besides the tables (sits_board_write). */
static bool board_format(const char *format) {
  return strcmp(format, "dts") == 0 || strcmp(format, "nvpmodel") == 0;
}

int sits_dvfs_format_known(const char *format) {
  if (board_format(format))
    return 1;
  for (size_t i = 0; i < sizeof writers / sizeof writers[0]; i++)
    if (strcmp(writers[i].name, format) == 0)
      return 1;
  return 0;
}

int sits_dvfs_write(const char *format, const sits_dvfs_table *tables, size_t n, FILE *f,
                    sits_err *err) {
  if (board_format(format))
    return sits__fail(err, SITS_EINPUT,
                      "format '%s' needs the scenario, not only its tables: sits_board_write",
                      format);
  for (size_t i = 0; i < sizeof writers / sizeof writers[0]; i++)
    if (strcmp(writers[i].name, format) == 0) {
      int rc = writers[i].write(tables, n, f);
      return rc ? rc : (ferror(f) ? sits__fail(err, SITS_EIO, "write error") : SITS_OK);
    }
  return sits__fail(err, SITS_EINPUT, "unknown format '%s' (csv, json, dts, header, nvpmodel)",
                    format);
}

typedef struct board_ctx {
  const sits_scenario *sc;
  const char *format;
  const sits_board_opts *o;
} board_ctx;

static int board_writer(const void *p, FILE *f, sits_err *err) {
  const board_ctx *c = p;
  return sits_board_write(c->sc, c->format, c->o, f, err);
}

int sits_board_write_file(const sits_scenario *sc, const char *format, const sits_board_opts *o,
                          const char *path, sits_err *err) {
  board_ctx c = {sc, format, o};
  return sits_write_path(path, board_writer, &c, err);
}

typedef struct tables_ctx {
  const char *format;
  const sits_dvfs_table *tables;
  size_t n;
} tables_ctx;

static int tables_writer(const void *p, FILE *f, sits_err *err) {
  const tables_ctx *c = p;
  return sits_dvfs_write(c->format, c->tables, c->n, f, err);
}

int sits_dvfs_write_file(const char *format, const sits_dvfs_table *tables, size_t n,
                         const char *path, sits_err *err) {
  if (!sits_dvfs_format_known(format))
    return sits_dvfs_write(format, tables, n, NULL, err); /* the unknown-format message */
  tables_ctx c = {format, tables, n};
  return sits_write_path(path, tables_writer, &c, err);
}

char *sits_dvfs_table_json_text(const sits_scenario *sc, const char *domain, sits_err *err) {
  sits_dvfs_table *t = malloc(sizeof *t);
  if (!t) {
    sits__fail(err, SITS_ENOMEM, "out of memory");
    return NULL;
  }
  tables_ctx c = {"json", t, 1};
  char *text =
      sits_dvfs_table_compute(sc, domain, t, err) ? NULL : sits_write_text(tables_writer, &c, err);
  free(t);
  return text;
}

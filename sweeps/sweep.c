/* sweep.c - a scenario over the Cartesian product of --vary values (sits_sweep.h). */
#define _POSIX_C_SOURCE 200809L
#include "sits_sweep.h"
#include "result_internal.h"
#include "sampling_impl.h"
#include "scenario_internal.h"
#include "status_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sits_sim.h"
#include "sits_writers.h"

#define MAX_VARY 8
#define MAX_VALUES 4096

typedef struct axis {
  char key[256];
  size_t n;
  char **values;
} axis;

struct sits_sweep {
  const char *scenario;
  const char *const *sets;
  size_t n_sets;
  axis v[MAX_VARY];
  size_t n_vary;
  sits__sampler *sampler;      /* --dist keys and their drawn samples (NULL: none) */
  const char *series_dir;      /* each combination's time series to DIR/<index>.h5 (NULL: none) */
  sits_scenario *base;         /* the first row's scenario, reused by the next rows in memory */
  char *dom[SITS_MAX_DOMAINS]; /* the energy_j.<domain> columns' domains */
  size_t n_dom;
};

/* After index, config_hash and the varied keys: end_reason, every summary field
 * (sits__summary_fields), a battery's figures and each constraint's value, limit and ok (empty
 * where the scenario has none). */
static const char columns[] =
    "battery.final_soc,battery.runtime_s,battery.runtime_estimated,battery.min_voltage_v,"
    "battery.energy_drawn_wh,"
    "tdp_budget_w.value,tdp_budget_w.limit,tdp_budget_w.ok,"
    "max_junction_temp_c.value,max_junction_temp_c.limit,max_junction_temp_c.ok,"
    "max_latency_ms.value,max_latency_ms.limit,max_latency_ms.ok,"
    "max_energy_per_item_mj.value,max_energy_per_item_mj.limit,max_energy_per_item_mj.ok,"
    "min_battery_life_s.value,min_battery_life_s.limit,min_battery_life_s.ok";
/* then energy_j.<domain> per domain of the scenario as loaded without the varied keys, then */
static const char last_columns[] = "verdict_ok,error";
/* end_reason .. verdict_ok, besides the domains: empty on a failed row (end_reason, the summary
 * fields, 5 battery figures, 5 constraints x 3, verdict_ok) */
#define N_RESULT_COLUMNS (1 + SITS__SUMMARY_FIELDS + 5 + 15 + 1)

sits_sweep *sits_sweep_new(const char *scenario_path, const char *const *sets, size_t n_sets,
                           sits_err *err) {
  sits_sweep *s = calloc(1, sizeof *s);
  if (!s) {
    sits__fail(err, SITS_ENOMEM, "out of memory");
    return NULL;
  }
  s->scenario = scenario_path, s->sets = sets, s->n_sets = n_sets;
  /* the per-domain columns: the scenario's domains as given (a row that varies the platform
   * fills the columns of the domains it has by name) */
  sits_scenario *sc = NULL;
  sits_err quiet = {0};
  if (sits_scenario_load(scenario_path, sets, n_sets, &sc, &quiet) == SITS_OK) {
    const sits_domain *dom = sits_scenario_domains(sc, &s->n_dom);
    for (size_t d = 0; d < s->n_dom; d++)
      if (!(s->dom[d] = strdup(dom[d].name))) {
        sits_scenario_free(sc);
        sits_sweep_free(s);
        sits__fail(err, SITS_ENOMEM, "out of memory");
        return NULL;
      }
  }
  sits_scenario_free(sc);
  return s;
}

void sits_sweep_free(sits_sweep *s) {
  if (!s)
    return;
  for (size_t i = 0; i < s->n_vary; i++) {
    for (size_t k = 0; k < s->v[i].n; k++)
      free(s->v[i].values[k]);
    free(s->v[i].values);
  }
  sits__sampler_free(s->sampler);
  sits_scenario_free(s->base);
  for (size_t d = 0; d < s->n_dom; d++)
    free(s->dom[d]);
  free(s);
}

static int add_value(axis *v, const char *text) {
  char *copy = strdup(text);
  if (!copy)
    return -1;
  v->values[v->n++] = copy;
  return 0;
}

/* The values of "START:STOP:COUNT" or "V1,V2,..." into @p v; -1 when malformed. */
static int parse_values(axis *v, const char *text) {
  double a, b;
  long count;
  char tail;
  if (sscanf(text, "%lf:%lf:%ld%c", &a, &b, &count, &tail) == 3) {
    if (count < 1 || count > MAX_VALUES || !isfinite(a) || !isfinite(b))
      return -1;
    if (count == 1 && a != b) /* one value of two ends: which? (20:40:1 dropped 40) */
      return -2;
    for (long i = 0; i < count; i++) {
      char buf[64];
      snprintf(buf, sizeof buf, "%.12g",
               count == 1 ? a : a + (b - a) * (double)i / (double)(count - 1));
      if (add_value(v, buf))
        return -1;
    }
    return 0;
  }
  if (strchr(text, ':')) /* a range that is not START:STOP:COUNT */
    return -1;
  char *copy = strdup(text);
  if (!copy)
    return -1;
  int rc = 0;
  for (char *p = copy, *comma; rc == 0; p = comma + 1) { /* every value, none empty */
    comma = strchr(p, ',');
    if (comma)
      *comma = '\0';
    rc = !*p || v->n == MAX_VALUES ? -1 : add_value(v, p);
    if (!comma)
      break;
  }
  free(copy);
  return rc == 0 && v->n ? 0 : -1;
}

int sits_sweep_vary(sits_sweep *s, const char *spec, sits_err *err) {
  const char *eq = strchr(spec, '=');
  axis *v = s->n_vary < MAX_VARY ? &s->v[s->n_vary] : NULL;
  bool ok = v && eq && eq != spec && (size_t)(eq - spec) < sizeof v->key && eq[1];
  if (ok && !(v->values = calloc(MAX_VALUES, sizeof *v->values)))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  if (ok) {
    memcpy(v->key, spec, (size_t)(eq - spec));
    v->key[eq - spec] = '\0';
    s->n_vary++; /* counted now, so that sits_sweep_free releases what parse_values added */
    int pv = parse_values(v, eq + 1);
    if (pv == -2)
      return sits__fail(err, SITS_EINPUT,
                        "--vary '%s': a count of 1 between two different ends gives one of them "
                        "only: use START:STOP:2 for both ends, or KEY=V for one value",
                        spec);
    ok = pv == 0;
  }
  if (!ok)
    return sits__fail(err, SITS_EINPUT,
                      "--vary '%s': expected KEY=V1,V2,... (no empty value) or "
                      "KEY=START:STOP:COUNT, at most %d values an axis and %d axes",
                      spec, MAX_VALUES, MAX_VARY);
  for (size_t i = 0; i + 1 < s->n_vary; i++)
    if (strcmp(s->v[i].key, v->key) == 0)
      return sits__fail(err, SITS_EINPUT, "--vary '%s': '%s' is varied twice", spec, v->key);
  return SITS_OK;
}

int sits_sweep_dist(sits_sweep *s, const char *spec, sits_err *err) {
  if (!s->sampler && !(s->sampler = sits__sampler_new()))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t i = 0; i < s->n_vary; i++)
    if (!strncmp(spec, s->v[i].key, strlen(s->v[i].key)) && spec[strlen(s->v[i].key)] == '=')
      return sits__fail(err, SITS_EINPUT, "--dist '%s': the key is a --vary axis already", spec);
  return sits__sampler_dist(s->sampler, spec, err);
}

int sits_sweep_sample(sits_sweep *s, size_t n, const char *method, unsigned long seed,
                      sits_err *err) {
  if (!s->sampler)
    return sits__fail(err, SITS_EINPUT, "--sample needs at least one --dist");
  for (size_t j = 0; j < sits__sampler_dims(s->sampler); j++)
    for (size_t i = 0; i < s->n_vary; i++)
      if (strcmp(sits__sampler_key(s->sampler, j), s->v[i].key) == 0)
        return sits__fail(err, SITS_EINPUT, "--dist '%s': the key is a --vary axis already",
                          s->v[i].key);
  return sits__sampler_draw(s->sampler, n, method, seed, err);
}

void sits_sweep_series(sits_sweep *s, const char *dir) {
  s->series_dir = dir;
}

size_t sits_sweep_count(const sits_sweep *s) {
  size_t n = s->sampler ? sits__sampler_count(s->sampler) : 1;
  for (size_t i = 0; i < s->n_vary; i++)
    n *= s->v[i].n;
  return n;
}

char *sits_sweep_header(const sits_sweep *s) {
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  if (!m)
    return NULL;
  int rc = sits_sweep_write_header(s, m);
  if (fclose(m) != 0 || rc) {
    free(text);
    return NULL;
  }
  return text;
}

int sits_sweep_write_header(const sits_sweep *s, FILE *f) {
  fputs("index,config_hash", f);
  for (size_t i = 0; i < s->n_vary; i++)
    fprintf(f, ",%s", s->v[i].key);
  for (size_t j = 0; j < sits__sampler_dims(s->sampler); j++)
    fprintf(f, ",%s", sits__sampler_key(s->sampler, j));
  fputs(",end_reason", f);
  for (size_t k = 0; k < SITS__SUMMARY_FIELDS; k++)
    fprintf(f, ",%s", sits__summary_fields[k].name);
  fprintf(f, ",%s", columns);
  for (size_t d = 0; d < s->n_dom; d++)
    fprintf(f, ",energy_j.%s", s->dom[d]);
  fprintf(f, ",%s\n", last_columns);
  return ferror(f) ? SITS_EIO : SITS_OK;
}

/* A CSV field, quoted when it holds a comma, a quote or a newline (RFC 4180). */
static void csv_field(FILE *f, const char *s) {
  if (!strpbrk(s, ",\"\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++)
    fputs(*s == '"' ? "\"\"" : (*s == '\n' ? " " : (char[]){*s, 0}), f);
  fputc('"', f);
}

static void num(FILE *f, double v) {
  if (isfinite(v))
    fprintf(f, ",%.10g", v);
  else
    fputs(",", f);
}

static void constraint(FILE *f, const sits_constraint *c) {
  if (!c->set) {
    fputs(",,,", f);
    return;
  }
  num(f, c->value);
  num(f, c->limit);
  fprintf(f, ",%d", c->ok);
}

static void summary_fields(FILE *f, const sits_sweep *sw, const sits_scenario *sc,
                           const sits_summary *s) {
  fprintf(f, ",%s", sits_end_reason_name(s->end_reason));
  for (size_t k = 0; k < SITS__SUMMARY_FIELDS; k++)
    num(f, sits__summary_value(s, k));
  if (s->has_battery) {
    num(f, s->final_soc);
    num(f, s->runtime_s);
    fprintf(f, ",%d", s->runtime_estimated);
    num(f, s->min_voltage_v);
    num(f, s->energy_drawn_wh);
  } else
    fputs(",,,,,", f);
  const sits_constraint *c[] = {&s->tdp, &s->junction, &s->latency, &s->energy_per_item,
                                &s->battery_life};
  for (size_t i = 0; i < 5; i++)
    constraint(f, c[i]);
  size_t nd;
  const sits_domain *dom = sits_scenario_domains(sc, &nd);
  for (size_t k = 0; k < sw->n_dom; k++) {
    size_t d = 0;
    while (d < nd && strcmp(dom[d].name, sw->dom[k]) != 0)
      d++;
    if (d < nd)
      num(f, s->domain_energy_j[d]);
    else
      fputc(',', f);
  }
  fprintf(f, ",%d,", s->ok);
}

int sits_sweep_row_values(const sits_sweep *s, size_t idx, char *out, size_t size) {
  FILE *f = fmemopen(out, size, "w");
  if (!f)
    return -1;
  char drawn[64];
  size_t nd = sits__sampler_dims(s->sampler), k = 0;
  if (s->sampler) {
    k = idx % sits__sampler_count(s->sampler);
    idx /= sits__sampler_count(s->sampler);
  }
  const char *vals[MAX_VARY];
  for (size_t i = s->n_vary; i-- > 0;) {
    vals[i] = s->v[i].values[idx % s->v[i].n];
    idx /= s->v[i].n;
  }
  for (size_t i = 0; i < s->n_vary; i++) {
    fputs(i ? "," : "", f);
    csv_field(f, vals[i]);
  }
  for (size_t j = 0; j < nd; j++) {
    sits__sampler_value(s->sampler, k, j, drawn, sizeof drawn);
    fputs(s->n_vary + j ? "," : "", f);
    csv_field(f, drawn);
  }
  int rc = ferror(f) ? -1 : 0;
  fclose(f);
  return rc;
}

int sits_sweep_run_row(sits_sweep *s, size_t idx, FILE *f, bool *violated) {
  const char *vals[MAX_VARY + SITS__MAX_DISTS], *sets[256 + MAX_VARY + SITS__MAX_DISTS];
  char buf[MAX_VARY + SITS__MAX_DISTS][600], drawn[SITS__MAX_DISTS][64];
  size_t n = 0, index = idx, nd = sits__sampler_dims(s->sampler), nv = s->n_vary + nd;
  if (s->sampler) { /* the sample varies fastest, inside each grid point */
    size_t k = idx % sits__sampler_count(s->sampler);
    idx /= sits__sampler_count(s->sampler);
    for (size_t j = 0; j < nd; j++) {
      sits__sampler_value(s->sampler, k, j, drawn[j], sizeof drawn[j]);
      vals[s->n_vary + j] = drawn[j];
    }
  }
  for (size_t i = s->n_vary; i-- > 0;) { /* the last axis varies fastest */
    vals[i] = s->v[i].values[idx % s->v[i].n];
    idx /= s->v[i].n;
  }
  for (size_t i = 0; i < s->n_sets && n < 256; i++)
    sets[n++] = s->sets[i];
  const char *keys[MAX_VARY + SITS__MAX_DISTS];
  for (size_t i = 0; i < nv; i++) {
    keys[i] = i < s->n_vary ? s->v[i].key : sits__sampler_key(s->sampler, i - s->n_vary);
    snprintf(buf[i], sizeof buf[i], "%s=%s", keys[i], vals[i]);
    sets[n++] = buf[i];
  }
  sits_err err = {0};
  sits_scenario *sc = NULL, *own = NULL;
  sits_result *r = NULL;
  int rc = SITS_EUNSUPPORTED;
  /* in memory: the first loaded row's scenario with this row's values applied as that load
   * applied its own (the same model, text and config_hash); a row whose values cannot be
   * (not numbers, keys held elsewhere, out of range, refused) loads its own. A partly applied
   * row leaves the base for the next row to set again, key by key as always. */
  if (s->base && (rc = sits__scenario_apply_sets(s->base, sets + n - nv, nv, &err)) == SITS_OK)
    sc = s->base;
  else {
    err = (sits_err){0};
    rc = sits_scenario_load(s->scenario, sets, n, &own, &err);
    sc = own;
    if (rc == SITS_OK && !s->base)
      s->base = own, own = NULL;
  }
  fprintf(f, "%zu,", index);
  if (rc == SITS_OK)
    fprintf(f, "%016llx", sits_scenario_config_hash(sc));
  for (size_t i = 0; i < nv; i++) {
    fputc(',', f);
    csv_field(f, vals[i]);
  }
  if (rc == SITS_OK && s->series_dir) { /* the series streamed to DIR/<index>.h5 */
    char path[4300];
    snprintf(path, sizeof path, "%s/%zu.h5", s->series_dir, index);
    sits_stream *st = sits_stream_open(sc, path, SITS_STREAM_H5, &err);
    sits_run_opts o = {.sink = sits_stream_sink, .sink_user = st};
    rc = st ? sits_run(sc, &o, &r, &err) : SITS_EIO;
    int c = sits_stream_close(st, rc == SITS_OK ? r : NULL, &err);
    rc = rc ? rc : c;
  } else if (rc == SITS_OK) { /* a row is its summary: the samples are dropped */
    sits_run_opts o = {.sink = sits_sink_discard};
    rc = sits_run(sc, &o, &r, &err);
  }
  *violated = false;
  if (rc == SITS_OK) {
    summary_fields(f, s, sc, sits_result_summary(r));
    *violated = !sits_result_summary(r)->ok;
  } else {
    for (size_t k = 0; k < N_RESULT_COLUMNS + s->n_dom + 1; k++) /* end_reason .. verdict_ok */
      fputc(',', f);
    csv_field(f, err.msg);
  }
  fputc('\n', f);
  sits_result_free(r);
  sits_scenario_free(own);
  return ferror(f) ? SITS_EIO : rc;
}

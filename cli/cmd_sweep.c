/*
 * cmd_sweep.c - `sitsenergy sweep`: run a scenario over a grid of --set values and write
 * one summary row per combination (CSV, or HDF5 for an -o name ending in .h5).
 *
 * --vary KEY=V1,V2,... or KEY=START:STOP:COUNT (COUNT values, ends included); several
 * --vary give the Cartesian product, the last varying fastest. -j JOBS runs combinations
 * in JOBS processes; --shard K/N keeps the combinations whose index is K-1 modulo N, so
 * N machines can share a sweep. Rows keep the combination order whatever the jobs.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "sits_sim.h"

static const char sweep_usage[] =
    "usage: sitsenergy sweep SCENARIO.cfg --vary KEY=V1,V2,... | --vary KEY=START:STOP:COUNT ...\n"
    "                        [-j JOBS] [--shard K/N] [--set KEY=VALUE]... [--check] -o "
    "OUT.csv|OUT.h5\n\n"
    "Runs the scenario for every combination of the --vary values (the last varies fastest)\n"
    "and writes one row per combination: the varied values, then the summary's end_reason,\n"
    "simulated_s, max_junction_temp_c, avg_power_w, peak_power_w, energy_j, tdp_w,\n"
    "time_to_throttle_s, throttled_fraction, items_done, energy_per_item_mj, latency_ms,\n"
    "deficit_fraction, verdict_ok (1/0) and error (the message when a run failed).\n"
    "  -j JOBS        processes in parallel (default 1)\n"
    "  --shard K/N    only combinations K, K+N, K+2N, ... (1-based)\n"
    "  --check        exit 3 when a combination violates a constraint\n";

#define MAX_VARY 8
#define MAX_VALUES 4096

typedef struct vary {
  char key[256];
  size_t n;
  char *values[MAX_VALUES];
} vary;

typedef struct args {
  const char *scenario, *out;
  const cli_sets *sets; /* the dispatcher's --set overrides */
  vary v[MAX_VARY];
  size_t n_vary;
  long jobs, shard_k, shard_n;
  int check;
} args;

static int parse_vary(vary *v, const char *text) {
  const char *eq = strchr(text, '=');
  if (!eq || eq == text || (size_t)(eq - text) >= sizeof v->key || !eq[1])
    return -1;
  memcpy(v->key, text, (size_t)(eq - text));
  v->key[eq - text] = '\0';
  double a, b;
  long count;
  char tail;
  if (sscanf(eq + 1, "%lf:%lf:%ld%c", &a, &b, &count, &tail) == 3) {
    if (count < 1 || count > MAX_VALUES || !isfinite(a) || !isfinite(b))
      return -1;
    for (long i = 0; i < count; i++) {
      char buf[64];
      snprintf(buf, sizeof buf, "%.12g",
               count == 1 ? a : a + (b - a) * (double)i / (double)(count - 1));
      if (!(v->values[v->n++] = strdup(buf)))
        return -1;
    }
    return 0;
  }
  char *copy = strdup(eq + 1), *save = NULL;
  for (char *tok = strtok_r(copy, ",", &save); tok && v->n < MAX_VALUES;
       tok = strtok_r(NULL, ",", &save))
    v->values[v->n++] = strdup(tok);
  free(copy);
  return v->n ? 0 : -1;
}

static const struct option sweep_opts[] = {
    {"vary", required_argument, NULL, 'v'}, {"shard", required_argument, NULL, 's'},
    {"check", no_argument, NULL, 'k'},      {"output", required_argument, NULL, 'o'},
    {"jobs", required_argument, NULL, 'j'}, {NULL, 0, NULL, 0}};

static void init(void *p) {
  ((args *)p)->jobs = 1;
}

static int option(void *p, int c, const char *arg) {
  args *a = p;
  switch (c) {
  case 'v':
    if (a->n_vary == MAX_VARY || parse_vary(&a->v[a->n_vary++], arg)) {
      cli_error("--vary '%s': expected KEY=V1,V2,... or KEY=START:STOP:COUNT (at most %d)", arg,
                MAX_VARY);
      return EXIT_INPUT;
    }
    break;
  case 's':
    if (sscanf(arg, "%ld/%ld", &a->shard_k, &a->shard_n) != 2 || a->shard_n < 1 || a->shard_k < 1 ||
        a->shard_k > a->shard_n) {
      cli_error("--shard '%s': expected K/N with 1 <= K <= N", arg);
      return EXIT_INPUT;
    }
    break;
  case 'j':
    a->jobs = strtol(arg, NULL, 10);
    if (a->jobs < 1 || a->jobs > 256) {
      cli_error("-j '%s': expected a number of jobs from 1 to 256", arg);
      return EXIT_INPUT;
    }
    break;
  case 'k': a->check = 1; break;
  case 'o': a->out = arg; break;
  }
  return EXIT_OK;
}

static int check(void *p, cli_ctx *ctx) {
  args *a = p;
  if (!a->out || a->n_vary == 0) {
    cli_error("sweep needs a scenario file, at least one --vary and -o OUT (see 'sitsenergy sweep "
              "--help')");
    return EXIT_USAGE;
  }
  a->scenario = ctx->scenario;
  a->sets = &ctx->sets;
  return EXIT_OK;
}

static size_t combinations(const args *a) {
  size_t n = 1;
  for (size_t i = 0; i < a->n_vary; i++)
    n *= a->v[i].n;
  return n;
}

/* The value of each --vary for combination @p idx (the last varies fastest). */
static void pick(const args *a, size_t idx, const char **vals) {
  for (size_t i = a->n_vary; i-- > 0;) {
    vals[i] = a->v[i].values[idx % a->v[i].n];
    idx /= a->v[i].n;
  }
}

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

/* Runs combination idx and writes its row (without the trailing newline). */
static int run_one(const args *a, size_t idx, FILE *f) {
  const char *vals[MAX_VARY], *sets[256 + MAX_VARY];
  char buf[MAX_VARY][600];
  size_t n = 0;
  pick(a, idx, vals);
  for (size_t i = 0; i < a->sets->n && n < 256; i++)
    sets[n++] = a->sets->items[i];
  for (size_t i = 0; i < a->n_vary; i++) {
    snprintf(buf[i], sizeof buf[i], "%s=%s", a->v[i].key, vals[i]);
    sets[n++] = buf[i];
  }
  for (size_t i = 0; i < a->n_vary; i++) {
    if (i)
      fputc(',', f);
    csv_field(f, vals[i]);
  }
  sits_err err = {0};
  sits_scenario *sc = NULL;
  sits_result *r = NULL;
  int rc = sits_scenario_load(a->scenario, sets, n, &sc, &err);
  if (rc == SITS_OK)
    rc = sits_run(sc, NULL, &r, &err);
  int violated = 0;
  if (rc == SITS_OK) {
    const sits_summary *s = sits_result_summary(r);
    fprintf(f, ",%s", sits_end_reason_name(s->end_reason));
    const double v[] = {s->simulated_s,        s->max_junction_temp_c,
                        s->avg_power_w,        s->peak_power_w,
                        s->energy_j,           s->tdp_w,
                        s->time_to_throttle_s, s->throttled_fraction,
                        s->items_done,         s->energy_per_item_mj,
                        s->latency_ms,         s->deficit_fraction};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
      num(f, v[i]);
    fprintf(f, ",%d,", s->ok);
    violated = !s->ok;
  } else {
    fputs(",,,,,,,,,,,,,,", f);
    csv_field(f, err.msg);
  }
  fputc('\n', f);
  sits_result_free(r);
  sits_scenario_free(sc);
  return rc ? -1 : violated;
}

/* Runs the combinations of job @p job into @p path; exit status: bit 0 failures, bit 1 violations.
 */
static int run_job(const args *a, size_t job, size_t jobs, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f)
    return 4;
  int status = 0;
  size_t total = combinations(a);
  for (size_t idx = 0; idx < total; idx++) {
    if (a->shard_n && (long)(idx % (size_t)a->shard_n) != a->shard_k - 1)
      continue;
    if (idx % jobs != job)
      continue;
    fprintf(f, "%zu,", idx);
    int rc = run_one(a, idx, f);
    status |= rc < 0 ? 1 : (rc ? 2 : 0);
  }
  return fclose(f) ? 4 : status;
}

static const char *columns =
    "end_reason,simulated_s,max_junction_temp_c,avg_power_w,peak_power_w,energy_j,tdp_w,"
    "time_to_throttle_s,throttled_fraction,items_done,energy_per_item_mj,latency_ms,"
    "deficit_fraction,verdict_ok,error";

/* Merges the jobs' files in combination order (each line starts with its index). */
static int merge(const args *a, char paths[][4200], size_t jobs, FILE *out) {
  size_t total = combinations(a);
  char **rows = calloc(total, sizeof *rows);
  if (!rows)
    return -1;
  for (size_t j = 0; j < jobs; j++) {
    FILE *f = fopen(paths[j], "r");
    char *line = NULL;
    size_t cap = 0;
    while (f && getline(&line, &cap, f) > 0) {
      char *comma = strchr(line, ',');
      size_t idx = strtoul(line, NULL, 10);
      if (comma && idx < total && !rows[idx])
        rows[idx] = strdup(comma + 1);
    }
    free(line);
    if (f)
      fclose(f);
  }
  for (size_t i = 0; i < a->n_vary; i++)
    fprintf(out, "%s%s", i ? "," : "", a->v[i].key);
  fprintf(out, ",%s\n", columns);
  for (size_t i = 0; i < total; i++) {
    if (rows[i])
      fputs(rows[i], out);
    free(rows[i]);
  }
  free(rows);
  return ferror(out) ? -1 : 0;
}

/* One CSV line into fields (quotes as written by csv_field), in place. */
static size_t split_csv(char *line, char **f, size_t max) {
  size_t n = 0;
  char *p = line;
  while (n < max) {
    char *start = p, *w = p;
    if (*p == '"') { /* quoted: "" is a quote */
      p++;
      for (;;) {
        if (*p == '"' && p[1] == '"')
          *w++ = '"', p += 2;
        else if (*p == '"') {
          p++;
          break;
        } else if (!*p)
          break;
        else
          *w++ = *p++;
      }
      while (*p && *p != ',' && *p != '\n')
        p++;
    } else {
      while (*p && *p != ',' && *p != '\n')
        *w++ = *p++;
    }
    char sep = *p;
    *w = '\0';
    f[n++] = start;
    if (sep != ',')
      break;
    p++;
  }
  return n;
}

/* The merged CSV at @p csv into the HDF5 file @p h5 (one dataset per column). */
static int csv_to_h5(const char *csv, const char *h5) {
  FILE *f = fopen(csv, "r");
  if (!f)
    return -1;
  char *line = NULL, *hdr = NULL, **names = NULL, **cells = NULL;
  size_t cap = 0, cols = 0, rows = 0, alloc = 0;
  char **lines = NULL;
  int rc = 0;
  while (getline(&line, &cap, f) > 0) {
    if (!hdr) {
      hdr = strdup(line);
      continue;
    }
    if (rows == alloc) {
      alloc = alloc ? 2 * alloc : 64;
      char **nl = realloc(lines, alloc * sizeof *nl);
      if (!nl) {
        rc = -1;
        break;
      }
      lines = nl;
    }
    lines[rows++] = strdup(line);
  }
  free(line);
  fclose(f);
  names = malloc(1024 * sizeof *names);
  if (rc == 0 && hdr && names) {
    cols = split_csv(hdr, names, 1024);
    cells = calloc(rows * cols + 1, sizeof *cells);
    char *tmp[1024];
    for (size_t r = 0; cells && r < rows; r++) {
      size_t n = lines[r] ? split_csv(lines[r], tmp, 1024) : 0;
      for (size_t c = 0; c < cols; c++)
        cells[r * cols + c] = c < n ? tmp[c] : "";
    }
    sits_err err = {0};
    rc = cells && sits_write_table_h5(h5, rows, cols, (const char *const *)names,
                                      (const char *const *)cells, &err) == SITS_OK
             ? 0
             : (cli_error("%s", err.msg[0] ? err.msg : "out of memory"), -1);
  } else
    rc = -1;
  for (size_t r = 0; r < rows; r++)
    free(lines[r]);
  free(lines), free(hdr), free(names), free(cells);
  return rc;
}

static int spawn_jobs(const args *a, size_t jobs, char paths[][4200]) {
  pid_t pids[256];
  int status_all = 0;
  for (size_t j = 0; j < jobs; j++) {
    snprintf(paths[j], 4200, "%s.job%zu.tmp", a->out, j);
    pids[j] = jobs == 1 ? 0 : fork();
    if (pids[j] < 0)
      return -1;
    if (jobs == 1)
      return run_job(a, 0, 1, paths[0]);
    if (pids[j] == 0)
      _exit(run_job(a, j, jobs, paths[j]));
  }
  for (size_t j = 0; j < jobs; j++) {
    int st;
    if (waitpid(pids[j], &st, 0) < 0 || !WIFEXITED(st))
      status_all |= 4;
    else
      status_all |= WEXITSTATUS(st);
  }
  return status_all;
}

static int body(void *p, cli_ctx *ctx) {
  (void)ctx;
  const args *a = p;
  int code = EXIT_OK;
  {
    size_t jobs = (size_t)a->jobs;
    char(*paths)[4200] = calloc(jobs, sizeof *paths);
    int status = paths ? spawn_jobs(a, jobs, paths) : -1;
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.tmp", a->out);
    FILE *out = fopen(tmp, "w");
    int ok = status >= 0 && !(status & 4) && out && merge(a, paths, jobs, out) == 0;
    if (out && fclose(out) != 0)
      ok = 0;
    for (size_t j = 0; paths && j < jobs; j++)
      remove(paths[j]);
    free(paths);
    size_t olen = strlen(a->out);
    bool h5 = olen > 3 && strcmp(a->out + olen - 3, ".h5") == 0;
    if (ok && h5) { /* the merged table into HDF5, then drop the CSV */
      ok = csv_to_h5(tmp, a->out) == 0;
      remove(tmp);
    }
    if (ok && (h5 || rename(tmp, a->out) == 0)) {
      code = status & 1 ? EXIT_INPUT : (a->check && (status & 2) ? EXIT_VIOLATED : EXIT_OK);
      if (status & 1)
        cli_error("some combinations failed: see the error column of %s", a->out);
    } else {
      remove(tmp);
      cli_error("%s: writing the sweep failed: %s", a->out, strerror(errno));
      code = EXIT_INPUT;
    }
  }
  return code;
}

static void release(void *p) {
  args *a = p;
  for (size_t i = 0; i < a->n_vary; i++)
    for (size_t k = 0; k < a->v[i].n; k++)
      free(a->v[i].values[k]);
}

const cli_cmd cli_cmd_sweep = {.name = "sweep",
                               .help =
                                   "run a scenario over a grid of --set values (one CSV row each)",
                               .usage = sweep_usage,
                               .opts = sweep_opts,
                               .shortopts = "o:j:",
                               .args_size = sizeof(args),
                               .init = init,
                               .option = option,
                               .check = check,
                               .body = body,
                               .release = release,
                               .flags = CLI_SCENARIO};

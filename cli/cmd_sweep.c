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
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "sits_sim.h"
#include "sits_writers.h"
#include "sits_output.h"
#include "sits_sweep.h"

static const char sweep_usage[] =
    "usage: sitsenergy sweep SCENARIO.cfg --vary KEY=V1,V2,... | --vary KEY=START:STOP:COUNT ...\n"
    "                        [-j JOBS] [--shard K/N|slurm | --shard0 K/N] [--set KEY=VALUE]... "
    "[--check] -o "
    "OUT.csv|OUT.h5\n\n"
    "Runs the scenario for every combination of the --vary values (the last varies fastest)\n"
    "and writes one row per combination: index (0-based) and config_hash (of the merged\n"
    "configuration), the varied values, then every summary field: end_reason, simulated_s,\n"
    "max_junction_temp_c, powers, energies, throttling, items, latency, deficit, the\n"
    "battery's (battery.final_soc, .runtime_s, ...), each constraint's .value, .limit and .ok,\n"
    "verdict_ok (1/0) and error (the message when a run failed).\n"
    "  --dist 'KEY=uniform(a,b)|normal(mu,sigma)|lognormal(mu,sigma)|triangular(a,c,b)|\n"
    "                 choice(v1,v2,...)'   a sampled key (repeatable; lognormal: of the log)\n"
    "  --sample N     N samples of the --dist keys at every --vary grid point\n"
    "  --method M     lhs (default, Latin hypercube), sobol, halton or random (GSL)\n"
    "  --seed S       the draw's seed (default 1; sobol/halton skip S points)\n"
    "  --summary F    text or json: per column mean, std, 5/50/95/99 % quantiles, and per\n"
    "                 constraint P(violated) with a 95 % interval (stdout; stderr with -o -)\n"
    "  -j JOBS        processes in parallel (default 1)\n"
    "  --shard K/N    only combinations K-1, K-1+N, ... (K from 1 to N: 1-based)\n"
    "  --shard0 K/N   the same 0-based: combinations K, K+N, ... (K from 0 to N-1), as\n"
    "                 --shard0 $SLURM_ARRAY_TASK_ID/N with --array=0-(N-1)\n"
    "  --shard slurm  this task's share of a Slurm job array (SLURM_ARRAY_TASK_ID - _MIN of\n"
    "                 SLURM_ARRAY_TASK_COUNT; --array=0-N or 1-N alike)\n"
    "  --plot OUT.png one --vary key: the outputs against it; two: a heat map of the first\n"
    "                 output with the rows over its limit crossed; sampled: histograms and\n"
    "                 empirical CDFs with the limits marked (gnuplot)\n"
    "  --plot-y A,B   the outputs drawn (default max_junction_temp_c)\n"
    "  --series DIR   each combination's time series to DIR/<index>.h5 (as run -o writes)\n"
    "  --check        exit 3 when a combination violates a constraint\n"
    "  --resume       keep the rows of an existing OUT.csv of this sweep that ran, run the rest\n"
    "                 (a stopped sweep writes its finished rows to OUT)\n"
    "  -o OUT         the table: HDF5 for a name ending in .h5, else CSV; '-' is stdout (CSV)\n";

#define MAX_VARY 8

typedef struct args {
  const char *out;
  const char *vary[MAX_VARY];
  size_t n_vary;
  long jobs, shard_k, shard_n;
  const char *dist[64];
  size_t n_dist;
  double samples, seed; /* samples 0: no sampling */
  const char *method;
  bool method_given;        /* --method on the command line (method defaults to lhs) */
  const char *summary;      /* --summary text|json: the probabilistic summary (NULL: none) */
  const char *png, *plot_y; /* --plot OUT.png, --plot-y a,b */
  const char *series;       /* --series DIR */
  int check, resume;
  char **kept;    /* --resume: the rows of OUT that ran, by index (NULL: to run) */
  sits_sweep *sw; /* built in check(), with the dispatcher's --set overrides */
} args;

static const struct option sweep_opts[] = {
    {"vary", required_argument, NULL, 'v'},    {"shard", required_argument, NULL, 's'},
    {"shard0", required_argument, NULL, 'z'},  {"check", no_argument, NULL, 'k'},
    {"output", required_argument, NULL, 'o'},  {"jobs", required_argument, NULL, 'j'},
    {"dist", required_argument, NULL, 'd'},    {"sample", required_argument, NULL, 'n'},
    {"method", required_argument, NULL, 'm'},  {"seed", required_argument, NULL, 'S'},
    {"summary", required_argument, NULL, 'y'}, {"resume", no_argument, NULL, 'r'},
    {"plot", required_argument, NULL, 'p'},    {"plot-y", required_argument, NULL, 'Y'},
    {"series", required_argument, NULL, 'T'},  {NULL, 0, NULL, 0}};

static void init(void *p) {
  args *a = p;
  a->jobs = 1, a->method = "lhs", a->seed = 1;
}

/* An environment variable as a whole number >= 0; -1 when unset or not one. */
static long env_long(const char *name) {
  const char *v = getenv(name);
  char *end;
  long x = v && *v ? strtol(v, &end, 10) : -1;
  return v && *v && !*end && x >= 0 ? x : -1;
}

/* --shard slurm: this task's share of a Slurm job array (sbatch --array=MIN-MAX, any base):
 * shard SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN (0-based) of SLURM_ARRAY_TASK_COUNT. */
static int slurm_shard(args *a) {
  long id = env_long("SLURM_ARRAY_TASK_ID"), min = env_long("SLURM_ARRAY_TASK_MIN"),
       count = env_long("SLURM_ARRAY_TASK_COUNT"), step = env_long("SLURM_ARRAY_TASK_STEP");
  if (id < 0 || count < 1) {
    cli_error("--shard slurm: SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT are not set (run "
              "it in a job array: sbatch --array=0-N)");
    return EXIT_INPUT;
  }
  if (step > 1) {
    cli_error("--shard slurm: a job array with a step (%ld) is not supported: use --array=0-N",
              step);
    return EXIT_INPUT;
  }
  long k = id - (min < 0 ? 0 : min);
  if (k < 0 || k >= count) {
    cli_error("--shard slurm: task %ld is outside the array's %ld tasks from %ld", id, count,
              min < 0 ? 0 : min);
    return EXIT_INPUT;
  }
  a->shard_k = k + 1, a->shard_n = count;
  return EXIT_OK;
}

static int option(void *p, int c, const char *arg) {
  args *a = p;
  switch (c) {
  case 'v':
    if (a->n_vary == MAX_VARY) {
      cli_error("--vary '%s': expected KEY=V1,V2,... or KEY=START:STOP:COUNT (at most %d)", arg,
                MAX_VARY);
      return EXIT_INPUT;
    }
    a->vary[a->n_vary++] = arg;
    break;
  case 's':
    if (strcmp(arg, "slurm") == 0)
      return slurm_shard(a);
    if (sscanf(arg, "%ld/%ld", &a->shard_k, &a->shard_n) != 2 || a->shard_n < 1 || a->shard_k < 1 ||
        a->shard_k > a->shard_n) {
      cli_error("--shard '%s': expected K/N with 1 <= K <= N (1-based; --shard0 is 0-based)", arg);
      return EXIT_INPUT;
    }
    break;
  case 'z': {
    int used = 0;
    if (sscanf(arg, "%ld/%ld%n", &a->shard_k, &a->shard_n, &used) != 2 || arg[used] ||
        a->shard_n < 1 || a->shard_k < 0 || a->shard_k >= a->shard_n) {
      cli_error("--shard0 '%s': expected K/N with 0 <= K < N (0-based; --shard is 1-based)", arg);
      return EXIT_INPUT;
    }
    a->shard_k++; /* kept 1-based inside */
    break;
  }
  case 'j':
    a->jobs = strtol(arg, NULL, 10);
    if (a->jobs < 1 || a->jobs > 256) {
      cli_error("-j '%s': expected a number of jobs from 1 to 256", arg);
      return EXIT_INPUT;
    }
    break;
  case 'k': a->check = 1; break;
  case 'r': a->resume = 1; break;
  case 'p': a->png = arg; break;
  case 'Y': a->plot_y = arg; break;
  case 'T': a->series = arg; break;
  case 'o': a->out = arg; break;
  case 'd':
    if (a->n_dist == 64) {
      cli_error("--dist '%s': at most 64 distributions", arg);
      return EXIT_USAGE;
    }
    a->dist[a->n_dist++] = arg;
    break;
  case 'n': return cli_number("--sample", arg, 1, 1e7, false, "1 to 10000000 samples", &a->samples);
  case 'm': a->method = arg, a->method_given = true; break;
  case 'y':
    if (strcmp(arg, "text") && strcmp(arg, "json")) {
      cli_error("--summary '%s': expected text or json", arg);
      return EXIT_INPUT; /* an option's value, as run's --summary */
    }
    a->summary = arg;
    break;
  case 'S': return cli_number("--seed", arg, 0, 4294967295.0, false, "0 to 4294967295", &a->seed);
  }
  return EXIT_OK;
}

/* The row @p line (of @p len bytes) kept for --resume when it ran this sweep's combination
 * (complete, its values, an empty error column); whether it was. */
static bool keep_row(args *a, const char *line, long len, size_t total) {
  char *end;
  size_t idx = strtoul(line, &end, 10);
  bool ran = end != line && *end == ',' && idx < total && len >= 2 && line[len - 1] == '\n' &&
             line[len - 2] == ','; /* an empty error column */
  char vals[8192], *hash_end = ran ? strchr(end + 1, ',') : NULL;
  ran = ran && hash_end && sits_sweep_row_values(a->sw, idx, vals, sizeof vals) == 0 &&
        strncmp(hash_end + 1, vals, strlen(vals)) == 0 && hash_end[1 + strlen(vals)] == ',';
  return ran && !a->kept[idx] && (a->kept[idx] = strdup(line)) != NULL;
}

/* The rows of job files a killed sweep (SIGKILL, a power cut) left beside OUT, named
 * OUT.sits-tmp.PID.jobN.XXXXXX with PID no longer running: kept like OUT's; the next sweep
 * to OUT removes the files (sits_output_temp). Their count. */
static size_t harvest_jobs(args *a, size_t total) {
  char dir[4096], base[4096], tmp[4096];
  snprintf(tmp, sizeof tmp, "%s", a->out);
  snprintf(dir, sizeof dir, "%s", dirname(tmp));
  snprintf(tmp, sizeof tmp, "%s", a->out);
  snprintf(base, sizeof base, "%s" SITS_OUTPUT_TEMP_TAG, basename(tmp));
  size_t nb = strlen(base), kept = 0, cap = 0;
  char *line = NULL;
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL) {
    char *end;
    long pid = strncmp(e->d_name, base, nb) == 0 ? strtol(e->d_name + nb, &end, 10) : 0;
    if (pid <= 0 || strncmp(end, ".job", 4) != 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
      continue;
    char path[8300];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    FILE *f = fopen(path, "r");
    long len;
    bool nul;
    while (f && (len = cli_read_line(f, &line, &cap, &nul)) > 0)
      kept += !nul && keep_row(a, line, len, total);
    if (f)
      fclose(f);
  }
  if (d)
    closedir(d);
  free(line);
  return kept;
}

/* --resume: the rows of the existing OUT that ran (complete, no error) are kept by index, and
 * those in job files a killed sweep left; the others run. OUT must be this sweep's table (the
 * same header); no OUT: everything runs but what the job files hold. */
static int read_resumed(args *a) {
  size_t olen = strlen(a->out);
  if (strcmp(a->out, "-") == 0 || (olen > 3 && strcmp(a->out + olen - 3, ".h5") == 0)) {
    cli_error("--resume continues a CSV table: give -o OUT.csv");
    return EXIT_USAGE;
  }
  size_t total = sits_sweep_count(a->sw);
  if (!(a->kept = calloc(total ? total : 1, sizeof *a->kept))) {
    cli_error("out of memory");
    return EXIT_INPUT;
  }
  struct stat st;
  if (stat(a->out, &st) != 0) { /* no table yet: what job files of a killed sweep hold */
    size_t got = harvest_jobs(a, total);
    fprintf(stderr, "sitsenergy: resuming %s: %zu of %zu rows done\n", a->out, got, total);
    return EXIT_OK;
  }
  if (!S_ISREG(st.st_mode)) {
    cli_error("%s: --resume needs a regular file", a->out);
    return EXIT_INPUT;
  }
  char *head = sits_sweep_header(a->sw), *line = NULL;
  size_t cap = 0, lineno = 0, kept = 0;
  FILE *f = fopen(a->out, "r");
  int code = f && head ? EXIT_OK : EXIT_INPUT;
  if (code)
    cli_error("%s: cannot read: %s", a->out, strerror(errno));
  long len;
  bool nul;
  while (code == EXIT_OK && (len = cli_read_line(f, &line, &cap, &nul)) != 0) {
    lineno++;
    if (len < 0 || nul) {
      cli_error("%s:%zu: not a text line of at most 1 MiB", a->out, lineno);
      code = EXIT_INPUT;
    } else if (lineno == 1 && strcmp(line, head) != 0) {
      cli_error("%s:1: not this sweep's table (its header differs): give another -o or drop "
                "--resume",
                a->out);
      code = EXIT_INPUT;
    } else if (lineno > 1)
      kept += keep_row(a, line, len, total);
  }
  free(line), free(head);
  if (f)
    fclose(f);
  if (code == EXIT_OK) {
    kept += harvest_jobs(a, total);
    fprintf(stderr, "sitsenergy: resuming %s: %zu of %zu rows done\n", a->out, kept, total);
  }
  return code;
}

/* --plot-y: every name a column of this sweep's table, checked before any run. */
static int check_plot_y(const args *a) {
  char *head = sits_sweep_header(a->sw), ys[1024];
  if (!head)
    return EXIT_INPUT;
  head[strcspn(head, "\n")] = ',';
  snprintf(ys, sizeof ys, "%s", a->plot_y ? a->plot_y : "max_junction_temp_c");
  int code = EXIT_OK;
  size_t named = 0;
  char *save = NULL;
  for (char *y = strtok_r(ys, ",", &save); y && code == EXIT_OK; y = strtok_r(NULL, ",", &save)) {
    named++;
    char quoted[300];
    snprintf(quoted, sizeof quoted, ",%s,", y);
    if (!strstr(head, quoted)) {
      cli_error("--plot-y '%s': the table has no such column (see 'sitsenergy sweep --help')", y);
      code = EXIT_USAGE;
    }
  }
  if (code == EXIT_OK && (named == 0 || named > 8)) {
    cli_error("--plot-y '%s': expected 1 to 8 column names, comma-separated", a->plot_y);
    code = EXIT_USAGE;
  }
  free(head);
  return code;
}

static int check(void *p, cli_ctx *ctx) {
  args *a = p;
  if (a->n_dist > 0 && a->samples == 0) {
    cli_error("--dist needs --sample N (see 'sitsenergy sweep --help')");
    return EXIT_USAGE;
  }
  if (!a->out || (a->n_vary == 0 && a->samples == 0)) {
    cli_error("sweep needs a scenario file, at least one --vary or --sample, and -o OUT (see "
              "'sitsenergy sweep --help')");
    return EXIT_USAGE;
  }
  if (a->method_given && a->samples == 0) { /* else silently unused */
    cli_error("--method needs --sample N (see 'sitsenergy sweep --help')");
    return EXIT_USAGE;
  }
  if ((a->n_dist > 0) != (a->samples > 0)) {
    cli_error("%s (see 'sitsenergy sweep --help')",
              a->n_dist ? "--dist needs --sample N" : "--sample needs at least one --dist");
    return EXIT_USAGE;
  }
  if (a->samples > 0 && (a->samples != floor(a->samples) || a->seed != floor(a->seed))) {
    cli_error("--sample and --seed take whole numbers");
    return EXIT_USAGE;
  }
  const char *in[] = {ctx->scenario}, *out[] = {a->out, a->png};
  if (cli_check_paths(in, 1, out, 2) || cli_check_outputs_of(ctx) ||
      cli_no_stdout("--plot", a->png))
    return EXIT_INPUT;
  if (a->plot_y && !a->png) {
    cli_error("--plot-y needs --plot OUT.png");
    return EXIT_USAGE;
  }
  sits_err err = {0};
  if (!(a->sw = sits_sweep_new(ctx->scenario, ctx->sets.items, ctx->sets.n, &err)))
    return cli_fail(SITS_ENOMEM, &err);
  for (size_t i = 0; i < a->n_vary; i++) {
    int rc = sits_sweep_vary(a->sw, a->vary[i], &err);
    if (rc == SITS_EINPUT) { /* the command line's words: a usage error */
      cli_error("%s (see 'sitsenergy sweep --help')", err.msg);
      return EXIT_USAGE;
    }
    if (rc)
      return cli_fail(rc, &err);
  }
  for (size_t i = 0; i < a->n_dist; i++)
    if (sits_sweep_dist(a->sw, a->dist[i], &err)) {
      cli_error("%s (see 'sitsenergy sweep --help')", err.msg);
      return EXIT_USAGE;
    }
  if (a->samples > 0 &&
      sits_sweep_sample(a->sw, (size_t)a->samples, a->method, (unsigned long)a->seed, &err)) {
    cli_error("%s (see 'sitsenergy sweep --help')", err.msg);
    return EXIT_USAGE;
  }
  if (a->png && check_plot_y(a) != EXIT_OK)
    return EXIT_USAGE;
  if (a->series) {
    struct stat st;
    if (stat(a->series, &st) != 0 || !S_ISDIR(st.st_mode)) {
      cli_error("--series %s: not a folder (create it first)", a->series);
      return EXIT_INPUT;
    }
    sits_sweep_series(a->sw, a->series);
  }
  return a->resume ? read_resumed(a) : EXIT_OK;
}

/* Whether combination @p idx is this run's: in its shard and not kept by --resume. */
static bool to_run(const args *a, size_t idx) {
  bool in_shard = !a->shard_n || (long)(idx % (size_t)a->shard_n) == a->shard_k - 1;
  return in_shard && !(a->kept && a->kept[idx]);
}

/* Runs the combinations of job @p job into the file open on @p fd, each row after its index;
 * exit status: bit 0 failures, bit 1 violations, bit 2 a file that could not be written. */
static int run_job(const args *a, size_t job, size_t jobs, int fd) {
  FILE *f = fdopen(fd, "w");
  if (!f)
    return 4;
  int status = 0;
  size_t total = sits_sweep_count(a->sw);
  for (size_t idx = 0; idx < total; idx++) {
    if (idx % jobs != job || !to_run(a, idx))
      continue;
    bool violated;
    int rc = sits_sweep_run_row(a->sw, idx, f, &violated);
    status |= rc == SITS_EIO ? 4 : rc ? 1 : violated ? 2 : 0;
    fflush(f); /* a stopped sweep keeps every finished row */
  }
  return fclose(f) ? 4 : status;
}

/* --plot: the table drawn (cli_plot_sweep), the outputs named by --plot-y. */
static int plot_sweep(const args *a, const char *const *rows, size_t n) {
  char *head = sits_sweep_header(a->sw), ys[1024];
  if (!head)
    return EXIT_INPUT;
  cli_sweep_plot p = {.header = head, .rows = rows, .n = n, .sampled = a->n_dist > 0};
  char keys[2][256];
  for (size_t i = 0; i < a->n_vary && i < 2; i++) { /* the key of "KEY=..." */
    snprintf(keys[i], sizeof keys[i], "%.*s", (int)strcspn(a->vary[i], "="), a->vary[i]);
    p.keys[p.n_keys++] = keys[i];
  }
  snprintf(ys, sizeof ys, "%s", a->plot_y ? a->plot_y : "max_junction_temp_c");
  char *save = NULL;
  for (char *y = strtok_r(ys, ",", &save); y && p.n_y < 8; y = strtok_r(NULL, ",", &save))
    p.ys[p.n_y++] = y;
  int code = p.n_y ? cli_plot_sweep(&p, a->png) : EXIT_USAGE;
  free(head);
  return code;
}

/* Merges the jobs' files in combination order (each line starts with its index). */
static int merge(const args *a, char paths[][4200], size_t jobs, FILE *out, int *plot_code) {
  size_t total = sits_sweep_count(a->sw);
  char **rows = calloc(total, sizeof *rows);
  if (!rows)
    return -1;
  for (size_t j = 0; j < jobs; j++) {
    FILE *f = fopen(paths[j], "r");
    char *line = NULL;
    size_t cap = 0;
    while (f && getline(&line, &cap, f) > 0) {
      char *end;
      size_t idx = strtoul(line, &end, 10), len = strlen(line); /* each row: its index first */
      if (end != line && *end == ',' && idx < total && !rows[idx] && line[len - 1] == '\n')
        rows[idx] = strdup(line); /* a line without its newline: a job stopped mid-row */
    }
    free(line);
    if (f)
      fclose(f);
  }
  for (size_t i = 0; a->kept && i < total; i++)
    if (a->kept[i] && !rows[i])
      rows[i] = strdup(a->kept[i]);
  sits_sweep_write_header(a->sw, out);
  for (size_t i = 0; i < total; i++)
    if (rows[i])
      fputs(rows[i], out);
  int rc = ferror(out) ? -1 : 0;
  if (a->summary) { /* on stderr when the table itself is on stdout */
    sits_err err = {0};
    FILE *sum = strcmp(a->out, "-") == 0 ? stderr : stdout;
    if (sits_sweep_write_stats(a->sw, (const char *const *)rows, total, a->summary, sum, &err))
      cli_error("%s", err.msg);
  }
  if (a->png) /* a plot that fails leaves the table as it is; the exit code says it */
    *plot_code = plot_sweep(a, (const char *const *)rows, total);
  for (size_t i = 0; i < total; i++)
    free(rows[i]);
  free(rows);
  return rc;
}

/* Stopping a sweep (SIGINT, SIGTERM, SIGHUP): the jobs are stopped, the rows they finished go
 * to OUT (so that --resume continues from there), the job files are removed, and the program
 * dies of the signal. The one piece of state this needs (the CLI's, not the library's). */
static volatile sig_atomic_t stop_sig;
static pid_t children[256];
static volatile sig_atomic_t n_children;

static void on_stop(int sig) {
  stop_sig = sig;
  for (sig_atomic_t i = 0; i < n_children; i++)
    kill(children[i], SIGTERM);
}

static void add_child(pid_t pid) {
  children[n_children] = pid;
  n_children = n_children + 1;
}

/* The rows finished so far: the newlines in the job files (read on from @p seen bytes). */
static size_t rows_done(char paths[][4200], size_t jobs, long *seen, size_t *count) {
  size_t total = 0;
  for (size_t j = 0; j < jobs; j++) {
    FILE *f = fopen(paths[j], "r");
    if (f && fseek(f, seen[j], SEEK_SET) == 0) {
      int ch;
      while ((ch = getc(f)) != EOF) {
        seen[j]++;
        count[j] += ch == '\n';
      }
    }
    if (f)
      fclose(f);
    total += count[j];
  }
  return total;
}

/* On a terminal, while the jobs run: a progress line on stderr once the sweep has taken 2 s,
 * refreshed twice a second ("N of M combinations"); returns when every job has ended. */
static void progress_wait(const args *a, pid_t *pids, size_t jobs, char paths[][4200]) {
  if (!isatty(STDERR_FILENO))
    return;
  size_t runs = 0, total = sits_sweep_count(a->sw), count[256] = {0};
  long seen[256] = {0};
  for (size_t i = 0; i < total; i++)
    runs += to_run(a, i);
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  bool shown = false;
  for (;;) {
    bool alive = false;
    for (size_t j = 0; j < jobs; j++) { /* still running: nothing to reap yet (not reaped) */
      siginfo_t info;
      memset(&info, 0, sizeof info);
      alive = alive || (waitid(P_PID, (id_t)pids[j], &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
                        info.si_pid == 0);
    }
    if (!alive || stop_sig)
      break;
    nanosleep(&(struct timespec){0, 250000000}, NULL);
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - start.tv_sec < 2)
      continue;
    size_t done = rows_done(paths, jobs, seen, count);
    double elapsed =
        (double)(now.tv_sec - start.tv_sec) + 1e-9 * (double)(now.tv_nsec - start.tv_nsec);
    char eta[48] = ""; /* the rows so far at the same pace */
    if (done > 0 && done < runs)
      snprintf(eta, sizeof eta, ", about %.0f s left",
               elapsed * (double)(runs - done) / (double)done);
    fprintf(stderr, "\rsitsenergy: %zu of %zu combinations, %.0f s%s\033[K", done, runs, elapsed,
            eta);
    shown = true;
  }
  if (shown)
    fputs("\r\033[K", stderr);
}

/* Each job's rows go to its own file, created beside the output with a unique, recognisable
 * name (sits_output_temp: O_EXCL, never through a link; two sweeps to one output do not share
 * files; removed on SIGINT/SIGTERM, and by a later sweep to the same output after SIGKILL). */
static int spawn_jobs(const args *a, size_t jobs, char paths[][4200], sits_err *err) {
  pid_t pids[256];
  int fds[256], status_all = 0;
  for (size_t j = 0; j < jobs; j++) {
    char tag[32];
    snprintf(tag, sizeof tag, "job%zu.", j);
    if ((fds[j] = sits_output_temp(a->out, tag, paths[j], 4200, err)) < 0) {
      paths[j][0] = '\0';
      return -1;
    }
    cli_cleanup_file(paths[j]);
  }
  pid_t parent = getpid();
  for (size_t j = 0; j < jobs; j++) { /* processes even for one job: a stop kills it at once */
    pids[j] = fork();
    if (pids[j] < 0)
      return -1;
    if (pids[j] == 0) {
      cli_cleanup_default(); /* the parent stops the jobs and keeps their finished rows */
      /* a parent killed outright (SIGKILL, OOM) takes its jobs with it; one already gone
       * before prctl took effect is seen by getppid */
      if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        _exit(4);
      /* several jobs: OpenBLAS (the exponential path's phi products from 32 states, loaded
       * by the first run that needs it) with one thread each, unless the user chose: its
       * spare threads spin between products on the cores the other jobs run on (16 rows
       * of the ev6 block network throttling, -j 2: 1.81-2.10 s against 1.31-1.63 s) */
      if (jobs > 1)
        setenv("OPENBLAS_NUM_THREADS", "1", 0);
      _exit(run_job(a, j, jobs, fds[j]));
    }
    add_child(pids[j]);
    close(fds[j]);
  }
  progress_wait(a, pids, jobs, paths);
  for (size_t j = 0; j < jobs; j++) {
    int st;
    pid_t w;
    while ((w = waitpid(pids[j], &st, 0)) < 0 && errno == EINTR)
      ;
    if (w < 0 || !WIFEXITED(st))
      status_all |= stop_sig ? 0 : 4; /* a job stopped by the user: its rows so far count */
    else
      status_all |= WEXITSTATUS(st);
  }
  return status_all;
}

/* The merged table: CSV through the library's safe writer, or HDF5 from a unique temporary
 * CSV. */
static int write_merged(const args *a, char paths[][4200], size_t jobs, int *plot_code,
                        sits_err *err) {
  size_t olen = strlen(a->out);
  bool h5 = olen > 3 && strcmp(a->out + olen - 3, ".h5") == 0;
  if (!h5) {
    sits_output *o = sits_output_open(a->out, err);
    if (!o)
      return SITS_EIO;
    return sits_output_close(o, merge(a, paths, jobs, sits_output_file(o), plot_code) == 0, err);
  }
  char tmp[4300];
  int fd = sits_output_temp(a->out, "merge.", tmp, sizeof tmp, err);
  if (fd < 0)
    return SITS_EIO;
  cli_cleanup_file(tmp);
  FILE *f = fdopen(fd, "w");
  int ok = f && merge(a, paths, jobs, f, plot_code) == 0;
  if (f && fclose(f) != 0)
    ok = 0;
  int rc =
      ok ? sits_write_csv_as_h5(tmp, a->out, err)
         : (snprintf(err->msg, sizeof err->msg, "%s: cannot write: %s", a->out, strerror(errno)),
            SITS_EIO);
  remove(tmp);
  return rc;
}

static int body(void *p, cli_ctx *ctx) {
  (void)ctx;
  const args *a = p;
  size_t jobs = (size_t)a->jobs;
  char(*paths)[4200] = calloc(jobs, sizeof *paths);
  sits_err err = {0};
  int plot_code = EXIT_OK;
  cli_on_stop(on_stop);
  int status = paths ? spawn_jobs(a, jobs, paths, &err) : -1;
  int rc = status >= 0 && !(status & 4) ? write_merged(a, paths, jobs, &plot_code, &err) : SITS_EIO;
  for (size_t j = 0; paths && j < jobs; j++)
    if (paths[j][0])
      remove(paths[j]);
  free(paths);
  if (stop_sig) { /* the finished rows are in OUT: say how to go on, then die of the signal */
    int sig = stop_sig;
    if (rc == SITS_OK)
      cli_error("stopped: the finished rows are in %s; the same command with --resume runs the "
                "rest",
                a->out);
    cli_cleanup_install(); /* the generic handler again: temporary files go */
    signal(sig, SIG_DFL);
    raise(sig);
  }
  if (rc) {
    if (err.msg[0])
      cli_error("%s", err.msg);
    else /* a job could not write its rows beside OUT (its file is gone) */
      cli_error("%s: writing the sweep failed: a job could not write its rows beside it (a full "
                "disk or a file-size limit?)",
                a->out);
    return EXIT_INPUT;
  }
  if (plot_code != EXIT_OK)
    return plot_code;
  if (status & 1)
    cli_error("some combinations failed: see the error column of %s",
              strcmp(a->out, "-") ? a->out : "the table on stdout");
  return status & 1 ? EXIT_INPUT : (a->check && (status & 2) ? EXIT_VIOLATED : EXIT_OK);
}

static void release(void *p) {
  args *a = p;
  for (size_t i = 0; a->kept && i < sits_sweep_count(a->sw); i++)
    free(a->kept[i]);
  free(a->kept);
  sits_sweep_free(a->sw);
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

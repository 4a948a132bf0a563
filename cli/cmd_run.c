/* cmd_run.c - `sitsenergy run`: simulate a scenario, write HDF5/CSV, print the summary. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "sits_sim.h"
#include "sits_writers.h"
#include "sits_text.h"
#include "sits_thermal_cal.h"

static const char run_usage[] =
    "usage: sitsenergy run SCENARIO.cfg [-o OUT.h5] [--csv OUT.csv] [--summary text|json]\n"
    "                      [--plot OUT.png] [--ptrace OUT.ptrace] [--set KEY=VALUE]...\n"
    "                      [--check] [--no-band] [--quiet]\n\n"
    "Simulates the scenario over duration_s and prints a summary on stdout.\n"
    "  -o OUT.h5          write the time series to HDF5 (/time_s, /temp_c/<node>, ...)\n"
    "  --csv OUT.csv      write the time series to CSV (one row per sample); '-' for stdout,\n"
    "                     and the summary goes to stderr\n"
    "  --plot OUT.png     plot node temperatures (the ten hottest of more), total power, the\n"
    "                     junction limit and, on a calibrated scenario, the peak's 95 % band;\n"
    "                     below, the domains' clocks and the battery's SOC; throttling and\n"
    "                     the power cap shaded, a critical or battery event marked (gnuplot)\n"
    "  --ptrace OUT       a floorplan platform's block powers as a HotSpot .ptrace (one row\n"
    "                     per sample: run hotspot with -sampling_intvl = sample_period_s)\n"
    "  --summary FORMAT   text (default) or json\n"
    "  --set KEY=VALUE    override a config value, e.g. ambient_c=35 or\n"
    "                     platform.thermal.links.[2].r_k_per_w=1.5 (repeatable)\n"
    "  --check            exit 3 when a constraint is violated\n"
    "  --no-band          on a calibrated scenario (one with an uncertainty group), skip\n"
    "                     the 95 % band: it costs one more run per fitted parameter\n"
    "  --quiet            no progress line and no notes on stderr\n";

/* A progress line on stderr once a run has taken 2 s, refreshed 4 times a second. */
static void on_progress(double t_s, double end_s, void *user) {
  double elapsed;
  if (cli_progress_due(user, 0.25, &elapsed)) {
    char eta[48] = ""; /* the simulated time so far at the same pace */
    if (t_s > 0 && t_s < end_s)
      snprintf(eta, sizeof eta, ", about %.0f s left", elapsed * (end_s - t_s) / t_s);
    fprintf(stderr, "\rsitsenergy: simulated %.1f of %.1f s (%3.0f%%), %.0f s%s\033[K", t_s, end_s,
            100.0 * t_s / end_s, elapsed, eta);
  }
}

typedef struct run_args {
  const char *h5, *csv, *png, *summary, *ptrace;
  int check, quiet, no_band;
} run_args;

static const struct option run_opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"csv", required_argument, NULL, 'c'},
                                         {"plot", required_argument, NULL, 'p'},
                                         {"ptrace", required_argument, NULL, 't'},
                                         {"summary", required_argument, NULL, 's'},
                                         {"check", no_argument, NULL, 'k'},
                                         {"quiet", no_argument, NULL, 'q'},
                                         {"no-band", no_argument, NULL, 'b'},
                                         {NULL, 0, NULL, 0}};

static void init(void *p) {
  ((run_args *)p)->summary = "text";
}

static int option(void *p, int c, const char *arg) {
  run_args *a = p;
  switch (c) {
  case 'o': a->h5 = arg; break;
  case 'c': a->csv = arg; break;
  case 'p': a->png = arg; break;
  case 't': a->ptrace = arg; break;
  case 's': a->summary = arg; break;
  case 'k': a->check = 1; break;
  case 'q': a->quiet = 1; break;
  case 'b': a->no_band = 1; break;
  }
  return EXIT_OK;
}

static int check(void *p, cli_ctx *ctx) {
  const run_args *a = p;
  if (strcmp(a->summary, "text") != 0 && strcmp(a->summary, "json") != 0) {
    cli_error("--summary must be 'text' or 'json', not '%s'", a->summary);
    return EXIT_INPUT;
  }
  const char *in[] = {ctx->scenario}, *out[] = {a->h5, a->csv, a->png, a->ptrace};
  if (cli_no_stdout("-o", a->h5) || cli_no_stdout("--plot", a->png) ||
      cli_no_stdout("--ptrace", a->ptrace))
    return EXIT_INPUT;
  return cli_check_paths(in, 1, out, 4);
}

/* The HDF5 and CSV outputs, written as the run goes. */
typedef struct streams {
  sits_stream *h5, *csv, *ptrace;
} streams;

static int to_streams(const sits_result *r, size_t first, size_t count, void *user, sits_err *err) {
  streams *s = user;
  int rc = s->h5 ? sits_stream_write(s->h5, r, first, count, err) : SITS_OK;
  rc = rc || !s->csv ? rc : sits_stream_write(s->csv, r, first, count, err);
  return rc || !s->ptrace ? rc : sits_stream_write(s->ptrace, r, first, count, err);
}

static int write_outputs(const run_args *a, const char *scenario, const sits_scenario *sc,
                         const sits_result *r) {
  int rc;
  if (a->png && (rc = cli_plot_run(sc, r, scenario, a->png)))
    return rc;
  FILE *sum = a->csv && strcmp(a->csv, "-") == 0 ? stderr : stdout; /* stdout holds the CSV */
  if (strcmp(a->summary, "json") == 0)
    sits_write_summary_json(sc, r, sum);
  else
    sits_write_summary_text(sc, r, sum);
  if (!a->quiet && a->h5)
    cli_error("wrote %s", a->h5);
  if (!a->quiet && a->csv && strcmp(a->csv, "-") != 0)
    cli_error("wrote %s", a->csv);
  if (!a->quiet && a->png)
    cli_error("wrote %s", a->png);
  if (!a->quiet && a->ptrace)
    cli_error("wrote %s", a->ptrace);
  return EXIT_OK;
}

static int body(void *p, cli_ctx *ctx) {
  const run_args *a = p;
  sits_err err = {0};
  sits_result *res = NULL;
  cli_progress prog;
  cli_progress_start(&prog);
  /* the series stream to their files as the run goes (memory does not grow with the run);
   * the plot needs them all in memory */
  streams st = {NULL, NULL, NULL};
  sits_run_opts ro = {.progress_user = &prog, .sink_user = &st, .keep_samples = a->png != NULL};
  if (!a->quiet && isatty(STDERR_FILENO))
    ro.progress = on_progress;
  for (size_t k = 0; !a->quiet && k < sits_scenario_note_count(ctx->sc); k++)
    cli_error("note: %s", sits_scenario_note(ctx->sc, k));
  int rc = SITS_OK;
  if (a->h5 && !(st.h5 = sits_stream_open(ctx->sc, a->h5, SITS_STREAM_H5, &err)))
    rc = err.code ? err.code : SITS_EIO;
  if (rc == SITS_OK && a->csv &&
      !(st.csv = sits_stream_open(ctx->sc, a->csv, SITS_STREAM_CSV, &err)))
    rc = err.code ? err.code : SITS_EIO;
  if (rc == SITS_OK && a->ptrace &&
      !(st.ptrace = sits_stream_open(ctx->sc, a->ptrace, SITS_STREAM_PTRACE, &err)))
    rc = err.code ? err.code : SITS_EIO;
  if (rc == SITS_OK && (st.h5 || st.csv || st.ptrace))
    ro.sink = to_streams;
  else if (!a->png) /* the summary alone: the samples are dropped as the run goes */
    ro.sink = sits_sink_discard;
  if (rc == SITS_OK)
    rc = sits_run(ctx->sc, &ro, &res, &err);
  if (prog.shown)
    fputs("\r\033[K", stderr);
  if (rc == SITS_OK && !a->no_band) /* a calibrated scenario's 95 % band */
    rc = sits_run_bands(ctx->sc, &ro, res, &err);
  int c1 = sits_stream_close(st.h5, rc ? NULL : res, &err);
  int c2 = rc || c1 ? sits_stream_close(st.csv, NULL, NULL) : sits_stream_close(st.csv, res, &err);
  int c3 = rc || c1 || c2 ? sits_stream_close(st.ptrace, NULL, NULL)
                          : sits_stream_close(st.ptrace, res, &err);
  rc = rc ? rc : c1 ? c1 : c2 ? c2 : c3;
  int code = rc ? cli_fail(rc, &err) : write_outputs(a, ctx->scenario, ctx->sc, res);
  if (code == EXIT_OK && a->check && !sits_result_summary(res)->ok)
    code = EXIT_VIOLATED;
  sits_result_free(res);
  return code;
}

const cli_cmd cli_cmd_run = {.name = "run",
                             .help = "simulate a scenario over time (HDF5, CSV, summary)",
                             .usage = run_usage,
                             .opts = run_opts,
                             .shortopts = "o:",
                             .args_size = sizeof(run_args),
                             .init = init,
                             .option = option,
                             .check = check,
                             .body = body,
                             .flags = CLI_SCENARIO | CLI_LOAD};

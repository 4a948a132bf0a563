/* cmd_replay.c - `sitsenergy replay`: a board trace through the model, against its sensors. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sits_replay.h"
#include "sits_thermal_cal.h"
#include "sits_text.h"

static const char replay_usage[] =
    "usage: sitsenergy replay SCENARIO.cfg --trace FILE [--format "
    "auto|tegrastats|jtop|nvsmi|csv|ttrace]\n"
    "                         [--interval-ms MS] [--fields LIST] [--strict] [-o OUT.h5]\n"
    "                         [--plot OUT.png] [--summary text|json] [--set KEY=VALUE]...\n\n"
    "Drives the scenario's thermal network with the trace's measured power (the scenario's\n"
    "replay.power list maps columns onto nodes) and compares the simulated temperatures with\n"
    "the measured sensors (replay.sensors). Sensed nodes start at their first readings; the\n"
    "others at the steady state of the first sample's power with the sensed nodes held. The\n"
    "platform's domains, static power and battery are left out: the measured power holds them.\n"
    "Prints the Replay summary JSON (per sensor rmse_c, mae_c, max_abs_err_c, bias_c, r2, n).\n"
    "--interval-ms: the tegrastats/jtop sample interval (default: what the timestamps imply);\n"
    "a HotSpot .ttrace's sampling_intvl (required: the file has no times; a .ptrace of the\n"
    "same name beside it gives the block powers).\n"
    "--fields: the --query-gpu list of a noheader nvidia-smi log; with --format csv, the\n"
    "column names of any CSV (time_ms,temp_mc.cpu,power_mw.board...: names with units,\n"
    "converted on reading; a non-numeric first line is the file's header and is passed over;\n"
    "'-' names a column to pass over; the time column may hold the logger's date-and-time or\n"
    "clock stamps, e.g. 2025-05-01 17:06:56).\n"
    "--strict: a malformed line is an error instead of being skipped.\n"
    "-o: measured and simulated series in HDF5.\n"
    "--plot: measured against simulated per sensor, with the power on a second axis and, on a\n"
    "calibrated scenario, the simulated curve's 95 % band shaded.\n";

typedef struct args {
  const char *trace, *h5, *png, *summary;
  sits_trace_opts to;
} args;

static const struct option replay_opts[] = {{"trace", required_argument, NULL, 't'},
                                            {"format", required_argument, NULL, 'F'},
                                            {"interval-ms", required_argument, NULL, 'i'},
                                            {"fields", required_argument, NULL, 'q'},
                                            {"strict", no_argument, NULL, 'S'},
                                            {"plot", required_argument, NULL, 'p'},
                                            {"summary", required_argument, NULL, 's'},
                                            {"output", required_argument, NULL, 'o'},
                                            {NULL, 0, NULL, 0}};

static void init(void *p) {
  ((args *)p)->summary = "json";
}

static int option(void *p, int c, const char *arg) {
  args *a = p;
  switch (c) {
  case 't':
    if (!(arg = cli_input(arg, "--trace")))
      return EXIT_INPUT;
    a->trace = arg;
    break;
  case 'F': a->to.format = arg; break;
  case 'i':
    return cli_number("--interval-ms", arg, 0, 1e9, true,
                      "a positive number of milliseconds, at most 1e9", &a->to.interval_ms);
  case 'q': a->to.fields = arg; break;
  case 'S': a->to.strict = true; break;
  case 'p': a->png = arg; break;
  case 's': return cli_summary_format(arg, &a->summary);
  case 'o': a->h5 = arg; break;
  }
  return EXIT_OK;
}

static int check(void *p, cli_ctx *ctx) {
  const args *a = p;
  if (!a->trace) {
    cli_error("replay needs a scenario file and --trace (see 'sitsenergy replay --help')");
    return EXIT_USAGE;
  }
  const char *in[] = {ctx->scenario, a->trace}, *out[] = {a->h5, a->png};
  if (cli_no_stdout("-o", a->h5) || cli_no_stdout("--plot", a->png))
    return EXIT_INPUT;
  return cli_check_paths(in, 2, out, 2);
}

static int body(void *p, cli_ctx *ctx) {
  const args *a = p;
  sits_replay *r = NULL;
  sits_err err = {0};
  int rc = sits_replay_run(ctx->sc, a->trace, &a->to, &r, &err);
  if (rc == SITS_OK) /* 95 % bands where the scenario carries its calibration's uncertainty */
    rc = sits_replay_bands(ctx->sc, r, 0, &err);
  int code = rc ? cli_fail(rc, &err) : EXIT_OK;
  if (code == EXIT_OK) {
    if (strcmp(a->summary, "json") == 0)
      sits_replay_write_json(r, ctx->sc, stdout);
    else
      sits_replay_write_text(r, ctx->sc, stdout);
    if (r->trace->skipped)
      cli_error("%s: %zu malformed lines skipped (the first on line %zu)", a->trace,
                r->trace->skipped, r->trace->first_skipped_line);
    cli_interval_unused(a->to.interval_ms, r->trace, a->trace);
    for (size_t k = 0; k < r->n_sensors; k++)
      if (r->sensors[k].m.n == 0)
        cli_error("warning: %s: sensor column '%s' has no reading (a zone the log marks absent, "
                  "as jtop's -256 C, reads as missing): its figures are null",
                  a->trace, r->sensors[k].column);
    if (a->h5 && (rc = sits_replay_write_h5(r, ctx->sc, a->h5, &err)))
      code = cli_fail(rc, &err);
    if (code == EXIT_OK && a->png)
      code = cli_plot_replay(r, a->png);
  }
  sits_replay_free(r);
  return code;
}

const cli_cmd cli_cmd_replay = {
    .name = "replay",
    .help = "drive the model with a board trace's power, compare its sensors",
    .usage = replay_usage,
    .opts = replay_opts,
    .shortopts = "o:",
    .args_size = sizeof(args),
    .init = init,
    .option = option,
    .check = check,
    .body = body,
    .flags = CLI_SCENARIO | CLI_LOAD};

/* cmd_replay.c - `sitsenergy replay`: a board trace through the model, against its sensors. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sits_replay.h"

static const char replay_usage[] =
    "usage: sitsenergy replay SCENARIO.cfg --trace FILE [--format auto|tegrastats|jtop|nvsmi|csv]\n"
    "                         [--interval-ms MS] [--fields LIST] [--strict] [-o OUT.h5]\n"
    "                         [--plot OUT.png] [--summary text|json] [--set KEY=VALUE]...\n\n"
    "Drives the scenario's thermal network with the trace's measured power (the scenario's\n"
    "replay.power list maps columns onto nodes) and compares the simulated temperatures with\n"
    "the measured sensors (replay.sensors). Sensed nodes start at their first readings; the\n"
    "others at the steady state of the first sample's power with the sensed nodes held. The\n"
    "platform's domains, static power and battery are left out: the measured power holds them.\n"
    "Prints the Replay summary JSON (per sensor rmse_c, mae_c, max_abs_err_c, bias_c, r2, n).\n"
    "--interval-ms: the tegrastats/jtop sample interval (default: what the timestamps imply).\n"
    "--fields: the --query-gpu list of a noheader nvidia-smi log; with --format csv, the\n"
    "column names of any CSV (time_ms,temp_mc.cpu,power_mw.board...: names with units,\n"
    "converted on reading; a non-numeric first line is the file's header and is passed over).\n"
    "--strict: a malformed line is an error instead of being skipped.\n"
    "-o: measured and simulated series in HDF5.\n"
    "--plot: measured against simulated per sensor, with the power on a second axis.\n";

static void text_summary(const sits_replay *r, FILE *f) {
  fprintf(f, "trace                 %s, %zu samples (%zu malformed lines skipped), %.3f s\n",
          r->trace->format, r->trace->n_rows, r->trace->skipped, r->duration_s);
  for (size_t k = 0; k < r->n_sensors; k++) {
    const sits_fit_metrics *m = &r->sensors[k].m;
    fprintf(f, "%-22s rmse %.3f C, mae %.3f C, max %.3f C, bias %+.3f C, r2 %.3f, n %zu\n",
            r->sensors[k].column, m->rmse, m->mae, m->max_abs_err, m->bias, m->r2, m->n);
  }
}

int cmd_replay(int argc, char **argv) {
  static const struct option opts[] = {{"trace", required_argument, NULL, 't'},
                                       {"format", required_argument, NULL, 'F'},
                                       {"interval-ms", required_argument, NULL, 'i'},
                                       {"fields", required_argument, NULL, 'q'},
                                       {"strict", no_argument, NULL, 'S'},
                                       {"plot", required_argument, NULL, 'p'},
                                       {"summary", required_argument, NULL, 's'},
                                       {"set", required_argument, NULL, 'x'},
                                       {"output", required_argument, NULL, 'o'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  const char *trace = NULL, *h5 = NULL, *png = NULL, *summary = "json";
  sits_trace_opts to = {0};
  cli_sets sets = {0};
  int c, code = EXIT_OK;
  char *end;
  opterr = 0;
  while (code == EXIT_OK && (c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
    switch (c) {
    case 't': trace = optarg; break;
    case 'F': to.format = optarg; break;
    case 'i':
      to.interval_ms = strtod(optarg, &end);
      if (*end || !(to.interval_ms > 0)) {
        cli_error("--interval-ms '%s': expected a positive number of milliseconds", optarg);
        code = EXIT_INPUT;
      }
      break;
    case 'q': to.fields = optarg; break;
    case 'S': to.strict = true; break;
    case 'p': png = optarg; break;
    case 's':
      summary = optarg;
      if (strcmp(summary, "json") != 0 && strcmp(summary, "text") != 0) {
        cli_error("--summary '%s': expected text or json", optarg);
        code = EXIT_INPUT;
      }
      break;
    case 'x': cli_sets_add(&sets, optarg); break;
    case 'o': h5 = optarg; break;
    case 'h':
      fputs(replay_usage, stdout);
      cli_sets_release(&sets);
      return EXIT_OK;
    default: code = cli_bad_option(c, argv[optind - 1], "replay");
    }
  }
  if (code == EXIT_OK && (optind != argc - 1 || !trace)) {
    cli_error("replay needs a scenario file and --trace (see 'sitsenergy replay --help')");
    code = EXIT_USAGE;
  }
  sits_scenario *sc = NULL;
  sits_replay *r = NULL;
  sits_err err = {0};
  int rc = SITS_OK;
  if (code == EXIT_OK && ((rc = sits_scenario_load(argv[optind], sets.items, sets.n, &sc, &err)) ||
                          (rc = sits_replay_run(sc, trace, &to, &r, &err))))
    code = cli_fail(rc, &err);
  if (code == EXIT_OK) {
    if (strcmp(summary, "json") == 0)
      sits_replay_write_json(r, sc, stdout);
    else
      text_summary(r, stdout);
    if (r->trace->skipped)
      fprintf(stderr, "sitsenergy: %s: %zu malformed lines skipped (the first on line %zu)\n",
              trace, r->trace->skipped, r->trace->first_skipped_line);
    if (h5 && (rc = sits_replay_write_h5(r, h5, &err)))
      code = cli_fail(rc, &err);
    if (code == EXIT_OK && png)
      code = cli_plot_replay(r, png);
  }
  sits_replay_free(r);
  sits_scenario_free(sc);
  cli_sets_release(&sets);
  return code;
}

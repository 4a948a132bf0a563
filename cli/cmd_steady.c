/* cmd_steady.c - `sitsenergy steady`: steady temperatures of the averaged inputs, JSON. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "sits_sim.h"

static const char steady_usage[] =
    "usage: sitsenergy steady SCENARIO.cfg [--set KEY=VALUE]...\n\n"
    "Prints the steady state of the time-averaged inputs over duration_s as JSON:\n"
    "temp_c (by node), max_junction_temp_c, power_w.total, runaway.\n"
    "  --set KEY=VALUE    override a config value (repeatable)\n";

int cmd_steady(int argc, char **argv) {
  static const struct option opts[] = {
      {"set", required_argument, NULL, 'S'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  cli_sets sets = {0};
  int c, code = EXIT_OK;
  opterr = 0;
  while (code == EXIT_OK && (c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
    if (c == 'S')
      cli_sets_add(&sets, optarg);
    else if (c == 'h') {
      fputs(steady_usage, stdout);
      cli_sets_release(&sets);
      return EXIT_OK;
    } else {
      code = cli_bad_option(c, argv[optind - 1], "steady");
    }
  }
  if (code == EXIT_OK && optind != argc - 1) {
    cli_error("steady needs one scenario file (see 'sitsenergy steady --help')");
    code = EXIT_USAGE;
  }
  if (code != EXIT_OK) {
    cli_sets_release(&sets);
    return code;
  }
  sits_err err = {0};
  sits_scenario *sc = NULL;
  sits_steady_state st = {0};
  int rc = sits_scenario_load(argv[optind], sets.items, sets.n, &sc, &err);
  if (rc == SITS_OK)
    rc = sits_steady(sc, &st, &err);
  if (rc == SITS_OK)
    sits_write_steady_json(sc, &st, stdout);
  else
    code = cli_fail(rc, &err);
  sits_steady_release(&st);
  sits_scenario_free(sc);
  cli_sets_release(&sets);
  return code;
}

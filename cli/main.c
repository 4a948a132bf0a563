/* main.c - the sitsenergy program: the command table and dispatch. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "sits_sim.h"

typedef struct command {
  const char *name;
  int (*fn)(int argc, char **argv);
  const char *help;
} command;

static const command commands[] = {
    {"run", cmd_run, "simulate a scenario over time (HDF5, CSV, summary)"},
    {"steady", cmd_steady, "steady temperatures of the time-averaged inputs (JSON)"},
    {"dvfs-table", cmd_dvfs_table, "per-OPP power, temperature, throughput, sustainability"},
    {"sweep", cmd_sweep, "run a scenario over a grid of --set values (one CSV row each)"},
    {"calibrate", cmd_calibrate, "fit the battery's R0 and RC pairs to a measured test"},
    {"replay", cmd_replay, "drive the model with a board trace's power, compare its sensors"},
    {"capture", cmd_capture, "sample a board's sysfs into a trace CSV"},
    {"hotspot", cmd_hotspot, "HotSpot's command line: floorplan networks, .ttrace/.steady out"},
    {"keys", cmd_keys, "the configuration keys: type, unit, default, range, what each sets"},
};

static void usage(FILE *f) {
  fprintf(f, "usage: sitsenergy <command> [options]\n"
             "       sitsenergy --version | --help | <command> --help\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
  fprintf(f, "\nexit codes: 0 finished, 1 bad input, 2 usage error, 3 constraint violated "
             "(--check), 4 solver failure\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return EXIT_USAGE;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "help") == 0) {
    usage(stdout);
    return EXIT_OK;
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("sitsenergy %s\n", sits_version());
    return EXIT_OK;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(argv[1], commands[i].name) == 0)
      return commands[i].fn(argc - 1, argv + 1);
  cli_error("unknown command '%s' (see 'sitsenergy --help')", argv[1]);
  return EXIT_USAGE;
}

/* cmd_dvfs_table.c - `sitsenergy dvfs-table`: the DVFS table of a domain for runtimes. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sits_dvfs.h"
#include "sits_table_writer.h"

static const char table_usage[] =
    "usage: sitsenergy dvfs-table SCENARIO.cfg [--domain NAME] [--format "
    "csv|json|dts|header|nvpmodel]\n"
    "                             [--set KEY=VALUE]... [-o FILE]\n\n"
    "For each OPP of a domain (default: the platform's first), at the scenario's ambient:\n"
    "power at full load at the steady temperature, the steady junction temperature or\n"
    "runaway, throughput, energy per item, time to the trip from ambient, and whether it is\n"
    "sustainable; the efficiency knee, the highest sustainable OPP and inefficient OPPs.\n"
    "  --format FORMAT   csv (default), json, dts (Linux operating-points-v2 with\n"
    "                    dynamic-power-coefficient and sustainable-power), header (C),\n"
    "                    nvpmodel (a POWER_MODEL block over every domain)\n"
    "  -o FILE           write there (under a temporary name, renamed when complete)\n";

typedef struct args {
  const char *scenario, *domain, *format, *out;
  cli_sets sets;
} args;

static int parse(int argc, char **argv, args *a) {
  static const struct option opts[] = {
      {"domain", required_argument, NULL, 'd'}, {"format", required_argument, NULL, 'f'},
      {"set", required_argument, NULL, 'S'},    {"output", required_argument, NULL, 'o'},
      {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
  int c;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
    switch (c) {
    case 'd': a->domain = optarg; break;
    case 'f': a->format = optarg; break;
    case 'S': cli_sets_add(&a->sets, optarg); break;
    case 'o': a->out = optarg; break;
    case 'h': fputs(table_usage, stdout); return -1;
    default: return cli_bad_option(c, argv[optind - 1], "dvfs-table");
    }
  }
  if (optind != argc - 1) {
    cli_error("dvfs-table needs one scenario file (see 'sitsenergy dvfs-table --help')");
    return EXIT_USAGE;
  }
  a->scenario = argv[optind];
  if (!sits_dvfs_format_known(a->format)) {
    cli_error("--format must be csv, json, dts, header or nvpmodel, not '%s'", a->format);
    return EXIT_INPUT;
  }
  return EXIT_OK;
}

static int emit(const args *a, const sits_dvfs_table *tables, size_t n) {
  sits_err err = {0};
  int rc = a->out ? sits_dvfs_write_file(a->format, tables, n, a->out, &err)
                  : sits_dvfs_write(a->format, tables, n, stdout, &err);
  return rc ? cli_fail(rc, &err) : EXIT_OK;
}

int cmd_dvfs_table(int argc, char **argv) {
  args a = {.format = "csv"};
  int code = parse(argc, argv, &a);
  if (code) {
    cli_sets_release(&a.sets);
    return code < 0 ? EXIT_OK : code;
  }
  sits_err err = {0};
  sits_scenario *sc = NULL;
  sits_dvfs_table *tables = calloc(SITS_MAX_DOMAINS, sizeof *tables);
  size_t n = 0;
  int rc = SITS_ENOMEM;
  if (tables)
    rc = sits_scenario_load(a.scenario, a.sets.items, a.sets.n, &sc, &err);
  else
    snprintf(err.msg, sizeof err.msg, "out of memory");
  if (rc == SITS_OK && strcmp(a.format, "nvpmodel") == 0 && !a.domain) {
    size_t nd;
    const sits_domain *dom = sits_scenario_domains(sc, &nd);
    for (; rc == SITS_OK && n < nd; n++)
      rc = sits_dvfs_table_compute(sc, dom[n].name, &tables[n], &err);
  } else if (rc == SITS_OK) {
    rc = sits_dvfs_table_compute(sc, a.domain, &tables[0], &err);
    n = 1;
  }
  code = rc ? cli_fail(rc, &err) : emit(&a, tables, n);
  free(tables);
  sits_scenario_free(sc);
  cli_sets_release(&a.sets);
  return code;
}

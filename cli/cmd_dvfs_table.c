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
  const char *domain, *format, *out;
} args;

static const struct option table_opts[] = {{"domain", required_argument, NULL, 'd'},
                                           {"format", required_argument, NULL, 'f'},
                                           {"output", required_argument, NULL, 'o'},
                                           {NULL, 0, NULL, 0}};

static void init(void *p) {
  ((args *)p)->format = "csv";
}

static int option(void *p, int c, const char *arg) {
  args *a = p;
  if (c == 'd')
    a->domain = arg;
  else if (c == 'f')
    a->format = arg;
  else
    a->out = arg;
  return EXIT_OK;
}

static int check(void *p, cli_ctx *ctx) {
  const args *a = p;
  if (!sits_dvfs_format_known(a->format)) {
    cli_error("--format must be csv, json, dts, header or nvpmodel, not '%s'", a->format);
    return EXIT_INPUT;
  }
  const char *in[] = {ctx->scenario}, *out[] = {a->out};
  return cli_check_paths(in, 1, out, 1);
}

static int emit(const args *a, const sits_dvfs_table *tables, size_t n) {
  sits_err err = {0};
  int rc = a->out ? sits_dvfs_write_file(a->format, tables, n, a->out, &err)
                  : sits_dvfs_write(a->format, tables, n, stdout, &err);
  return rc ? cli_fail(rc, &err) : EXIT_OK;
}

static int body(void *p, cli_ctx *ctx) {
  const args *a = p;
  sits_err err = {0};
  sits_dvfs_table *tables = calloc(SITS_MAX_DOMAINS, sizeof *tables);
  size_t n = 0;
  int rc = tables ? SITS_OK : SITS_ENOMEM;
  if (rc == SITS_OK && strcmp(a->format, "nvpmodel") == 0 && !a->domain) {
    size_t nd;
    const sits_domain *dom = sits_scenario_domains(ctx->sc, &nd);
    for (; rc == SITS_OK && n < nd; n++)
      rc = sits_dvfs_table_compute(ctx->sc, dom[n].name, &tables[n], &err);
  } else if (rc == SITS_OK) {
    rc = sits_dvfs_table_compute(ctx->sc, a->domain, &tables[0], &err);
    n = 1;
  }
  int code = rc ? cli_fail(rc, &err) : emit(a, tables, n);
  free(tables);
  return code;
}

const cli_cmd cli_cmd_dvfs_table = {.name = "dvfs-table",
                                    .help =
                                        "per-OPP power, temperature, throughput, sustainability",
                                    .usage = table_usage,
                                    .opts = table_opts,
                                    .shortopts = "o:",
                                    .args_size = sizeof(args),
                                    .init = init,
                                    .option = option,
                                    .check = check,
                                    .body = body,
                                    .flags = CLI_SCENARIO | CLI_LOAD};

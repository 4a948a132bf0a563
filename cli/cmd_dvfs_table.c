/* cmd_dvfs_table.c - `sitsenergy dvfs-table`: the DVFS table of a domain for runtimes. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sits_board.h"
#include "sits_dvfs.h"
#include "sits_table_writer.h"
#include "sits_thermal_cal.h"

static const char table_usage[] =
    "usage: sitsenergy dvfs-table SCENARIO.cfg [--domain NAME] [--format "
    "csv|json|dts|header|nvpmodel]\n"
    "                             [--mode-id N] [--mode-name NAME] [--nvpmodel-conf FILE]\n"
    "                             [--set KEY=VALUE]... [-o FILE]\n\n"
    "For each OPP of a domain (default: the platform's first), at the scenario's ambient:\n"
    "power at full load at the steady temperature, the steady junction temperature or\n"
    "runaway, throughput, energy per item, time to the trip from ambient, and whether it is\n"
    "sustainable; the efficiency knee, the highest sustainable OPP and inefficient OPPs.\n"
    "  --format FORMAT   csv (default), json, header (C), dts, nvpmodel:\n"
    "                    dts: a device-tree overlay (dtc -@) for the board the platform's\n"
    "                    device_tree names: OPP tables, per-CPU dynamic-power-coefficient,\n"
    "                    thermal zones with trips, cooling maps and the IPA's\n"
    "                    sustainable-power (every domain, or --domain's);\n"
    "                    nvpmodel: an L4T POWER_MODEL whose per-domain caps serve most of\n"
    "                    the workload within tdp_budget_w and the junction limit\n"
    "  --mode-id N       nvpmodel: the mode's ID (default: the first after the stock modes)\n"
    "  --mode-name NAME  nvpmodel: its NAME (default SITS_<budget>W)\n"
    "  --nvpmodel-conf FILE  nvpmodel: the board's /etc/nvpmodel.conf: its modes are the stock\n"
    "                    ones (the new mode takes the first free ID), every line written\n"
    "                    must name a PARAM and argument it defines, its CPU_ONLINE cores\n"
    "                    are all put online\n"
    "  -o FILE           write there (under a temporary name, renamed when complete)\n";

typedef struct args {
  const char *domain, *format, *out, *mode_name, *conf;
  long mode_id;
} args;

static const struct option table_opts[] = {{"domain", required_argument, NULL, 'd'},
                                           {"format", required_argument, NULL, 'f'},
                                           {"output", required_argument, NULL, 'o'},
                                           {"mode-id", required_argument, NULL, 'i'},
                                           {"mode-name", required_argument, NULL, 'n'},
                                           {"nvpmodel-conf", required_argument, NULL, 'C'},
                                           {NULL, 0, NULL, 0}};

static void init(void *p) {
  ((args *)p)->format = "csv";
  ((args *)p)->mode_id = -1;
}

static int option(void *p, int c, const char *arg) {
  args *a = p;
  if (c == 'd')
    a->domain = arg;
  else if (c == 'f')
    a->format = arg;
  else if (c == 'n')
    a->mode_name = arg;
  else if (c == 'C')
    a->conf = arg;
  else if (c == 'i') {
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (errno || end == arg || *end || v < 0 || v > 255) {
      cli_error("--mode-id '%s': expected an integer 0-255", arg);
      return EXIT_INPUT;
    }
    a->mode_id = v;
  } else
    a->out = arg;
  return EXIT_OK;
}

static int check(void *p, cli_ctx *ctx) {
  const args *a = p;
  if (!sits_dvfs_format_known(a->format)) {
    cli_error("--format must be csv, json, dts, header or nvpmodel, not '%s'", a->format);
    return EXIT_INPUT;
  }
  if (a->domain && strcmp(a->format, "nvpmodel") == 0) {
    cli_error("--domain does not go with --format nvpmodel (a mode sets every domain's cap)");
    return EXIT_USAGE;
  }
  if ((a->mode_name || a->mode_id >= 0 || a->conf) && strcmp(a->format, "nvpmodel") != 0) {
    cli_error("--mode-id, --mode-name and --nvpmodel-conf go with --format nvpmodel");
    return EXIT_USAGE;
  }
  for (const char *c = a->mode_name; c && *c; c++)
    if (!(*c >= 'A' && *c <= 'Z') && !(*c >= 'a' && *c <= 'z') && !(*c >= '0' && *c <= '9') &&
        *c != '_') {
      cli_error("--mode-name '%s': nvpmodel names hold only [A-Za-z0-9_]", a->mode_name);
      return EXIT_INPUT;
    }
  if (a->mode_name && (!*a->mode_name || strlen(a->mode_name) > 31)) {
    cli_error("--mode-name '%s': 1 to 31 characters", a->mode_name);
    return EXIT_INPUT;
  }
  const char *in[] = {ctx->scenario, a->conf}, *out[] = {a->out};
  return cli_check_paths(in, a->conf ? 2 : 1, out, 1);
}

static int emit(const args *a, const sits_dvfs_table *tables, size_t n) {
  sits_err err = {0};
  int rc = a->out ? sits_dvfs_write_file(a->format, tables, n, a->out, &err)
                  : sits_dvfs_write(a->format, tables, n, stdout, &err);
  return rc ? cli_fail(rc, &err) : EXIT_OK;
}

static int board(const args *a, cli_ctx *ctx) {
  sits_err err = {0};
  sits_board_opts o = {a->domain, a->mode_id, a->mode_name, a->conf};
  int rc = a->out ? sits_board_write_file(ctx->sc, a->format, &o, a->out, &err)
                  : sits_board_write(ctx->sc, a->format, &o, stdout, &err);
  return rc ? cli_fail(rc, &err) : EXIT_OK;
}

static int body(void *p, cli_ctx *ctx) {
  const args *a = p;
  if (strcmp(a->format, "dts") == 0 || strcmp(a->format, "nvpmodel") == 0)
    return board(a, ctx);
  sits_err err = {0};
  sits_dvfs_table *tables = calloc(SITS_MAX_DOMAINS, sizeof *tables);
  size_t n = 0;
  int rc = tables ? SITS_OK : SITS_ENOMEM;
  if (rc == SITS_OK) {
    rc = sits_dvfs_table_compute(ctx->sc, a->domain, &tables[0], &err);
    n = 1;
  }
  if (rc == SITS_OK) /* on a calibrated scenario: each OPP's steady temperature's band */
    rc = sits_dvfs_table_bands(ctx->sc, &tables[0], &err);
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

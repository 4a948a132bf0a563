/* cmd_trace_info.c - `sitsenergy trace-info`: what a trace reader makes of a file. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "sits_trace.h"

static const char trace_info_usage[] =
    "usage: sitsenergy trace-info FILE [--format auto|tegrastats|jtop|nvsmi|csv|ttrace]\n"
    "                             [--interval-ms MS] [--fields LIST] [--strict]\n"
    "                             [--summary text|json]\n\n"
    "Reads FILE as replay and calibrate would and prints what the reader made of it: the\n"
    "format, the rows, the span and the sample interval (median, least and largest step\n"
    "between rows, and whether it came from the timestamps, --interval-ms or the default), the\n"
    "malformed lines skipped, then every column with its quantity, unit, count of values and\n"
    "range: the names to put in a scenario's replay group. --summary json prints the same as\n"
    "one JSON object (docs/schemas/trace-info.schema.json). The options read the file as\n"
    "replay's do ('-' reads standard input).\n";

typedef struct args {
  const char *summary;
  sits_trace_opts to;
} args;

static const struct option trace_info_opts[] = {
    {"format", required_argument, NULL, 'F'},  {"interval-ms", required_argument, NULL, 'i'},
    {"fields", required_argument, NULL, 'q'},  {"strict", no_argument, NULL, 'S'},
    {"summary", required_argument, NULL, 's'}, {NULL, 0, NULL, 0}};

static void init(void *p) {
  ((args *)p)->summary = "text";
}

static int option(void *p, int c, const char *arg) {
  args *a = p;
  switch (c) {
  case 'F': a->to.format = arg; break;
  case 'i':
    return cli_number("--interval-ms", arg, 0, 1e9, true,
                      "a positive number of milliseconds, at most 1e9", &a->to.interval_ms);
  case 'q': a->to.fields = arg; break;
  case 'S': a->to.strict = true; break;
  case 's': return cli_summary_format(arg, &a->summary);
  }
  return EXIT_OK;
}

static int body(void *p, cli_ctx *ctx) {
  const args *a = p;
  const char *path = ctx->scenario;
  if (!(path = cli_input(path, "the trace")))
    return EXIT_INPUT;
  sits_err err = {0};
  sits_trace *t = NULL;
  int rc = sits_trace_read(path, &a->to, &t, &err);
  if (rc)
    return cli_fail(rc, &err);
  sits_trace_write_info(t, ctx->scenario, strcmp(a->summary, "json") == 0, stdout);
  cli_interval_unused(a->to.interval_ms, t, ctx->scenario);
  sits_trace_free(t);
  return EXIT_OK; /* a write error on stdout is main's to report */
}

const cli_cmd cli_cmd_trace_info = {.name = "trace-info",
                                    .help = "what a trace reader makes of a file: columns, units",
                                    .usage = trace_info_usage,
                                    .opts = trace_info_opts,
                                    .args_size = sizeof(args),
                                    .init = init,
                                    .option = option,
                                    .body = body,
                                    .flags = CLI_FILE};

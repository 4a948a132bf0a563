/*
 * dispatch.c - option handling done once for every command (git's run_builtin is the model):
 * the command's own options plus --set and --help through getopt_long, the one scenario
 * argument, loading the scenario with the overrides, the body, and releasing it all.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sits_scenario.h"

#define MAX_OPTS 64

enum { OPT_SET = 0x100, OPT_HELP = 'h' };

/* The command's options, then --set and --help. */
static void options(const cli_cmd *cmd, struct option *all, char *shortopts, size_t size) {
  size_t n = 0;
  for (; cmd->opts && cmd->opts[n].name && n < MAX_OPTS - 3; n++)
    all[n] = cmd->opts[n];
  if (cmd->flags & CLI_SCENARIO)
    all[n++] = (struct option){"set", required_argument, NULL, OPT_SET};
  all[n++] = (struct option){"help", no_argument, NULL, OPT_HELP};
  all[n] = (struct option){NULL, 0, NULL, 0};
  snprintf(shortopts, size, ":%sh", cmd->shortopts ? cmd->shortopts : "");
}

static int parse(const cli_cmd *cmd, int argc, char **argv, void *args, cli_ctx *ctx) {
  struct option all[MAX_OPTS];
  char shortopts[64];
  options(cmd, all, shortopts, sizeof shortopts);
  int c, code = EXIT_OK;
  opterr = 0;
  optind = 1;
  while (code == EXIT_OK && (c = getopt_long(argc, argv, shortopts, all, NULL)) != -1) {
    if (c == OPT_SET)
      code = cli_sets_add(&ctx->sets, optarg) ? EXIT_INPUT : EXIT_OK;
    else if (c == OPT_HELP) {
      fputs(cmd->usage, stdout);
      for (const char *const *part = cmd->usage_more; part && *part; part++)
        fputs(*part, stdout);
      return -1;
    } else if (c == '?' || c == ':')
      code = cli_bad_option(c, argv[optind - 1], cmd->name);
    else
      code = cmd->option(args, c, optarg);
  }
  if (code)
    return code;
  if (cmd->flags & CLI_FILE) {
    if (optind != argc - 1) {
      cli_error("%s takes one file (see 'sitsenergy %s --help')", cmd->name, cmd->name);
      return EXIT_USAGE;
    }
    ctx->scenario = argv[optind];
    return EXIT_OK;
  }
  if (!(cmd->flags & CLI_SCENARIO)) {
    if (optind == argc)
      return EXIT_OK;
    cli_error("%s takes no argument '%s' (see 'sitsenergy %s --help')", cmd->name, argv[optind],
              cmd->name);
    return EXIT_USAGE;
  }
  if (optind != argc - 1) {
    if (optind >= argc)
      cli_error("%s needs a scenario file (see 'sitsenergy %s --help')", cmd->name, cmd->name);
    else
      cli_error("%s takes one scenario file (see 'sitsenergy %s --help')", cmd->name, cmd->name);
    return EXIT_USAGE;
  }
  ctx->scenario = argv[optind];
  if (!(ctx->scenario = cli_input(ctx->scenario, "the scenario")))
    return EXIT_INPUT;
  return EXIT_OK;
}

/* The command line as a shell would take it back ("sitsenergy run 'a b.cfg' ..."), malloc'ed;
 * taken before getopt reorders argv. NULL when out of memory. */
static char *command_line(int argc, char **argv) {
  size_t len = 16;
  for (int i = 0; i < argc; i++)
    len += 4 * strlen(argv[i]) + 3;
  char *s = malloc(len), *p = s;
  if (!s)
    return NULL;
  p += sprintf(p, "sitsenergy");
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    bool plain = *a != '\0';
    for (const char *c = a; *c && plain; c++)
      plain = isalnum((unsigned char)*c) || strchr("-_./=:,+@%", *c);
    *p++ = ' ';
    if (plain) {
      p += sprintf(p, "%s", a);
      continue;
    }
    *p++ = '\'';
    for (const char *c = a; *c; c++)
      p += *c == '\'' ? sprintf(p, "'\\''") : sprintf(p, "%c", *c);
    *p++ = '\'';
    *p = '\0';
  }
  return s;
}

int cli_dispatch(const cli_cmd *cmd, int argc, char **argv) {
  if (cmd->raw)
    return cmd->raw(argc, argv);
  cli_ctx ctx = {0};
  char *cmdline = command_line(argc, argv);
  void *args = calloc(1, cmd->args_size ? cmd->args_size : 1);
  if (!args) {
    cli_error("out of memory");
    free(cmdline);
    return EXIT_INPUT;
  }
  if (cmd->init)
    cmd->init(args);
  int code = parse(cmd, argc, argv, args, &ctx);
  if (code == EXIT_OK && cmd->check)
    code = cmd->check(args, &ctx);
  if (code == EXIT_OK && (cmd->flags & CLI_LOAD)) {
    sits_err err = {0};
    int rc = sits_scenario_load(ctx.scenario, ctx.sets.items, ctx.sets.n, &ctx.sc, &err);
    if (rc)
      code = cli_fail(rc, &err);
    else
      code = cli_check_scenario_inputs(ctx.sc);
    if (code == EXIT_OK && sits_scenario_set_origin(ctx.sc, cmdline)) {
      cli_error("out of memory");
      code = EXIT_INPUT;
    }
  }
  if (code == EXIT_OK)
    code = cmd->body(args, &ctx);
  if (cmd->release)
    cmd->release(args);
  sits_scenario_free(ctx.sc);
  cli_sets_release(&ctx.sets);
  free(args);
  free(cmdline);
  return code < 0 ? EXIT_OK : code;
}

int cli_check_outputs_of(const cli_ctx *ctx) {
  sits_err err = {0};
  sits_scenario *sc = NULL;
  if (sits_scenario_load(ctx->scenario, ctx->sets.items, ctx->sets.n, &sc, &err))
    return EXIT_OK; /* the command reports the load's own error where it loads */
  int code = cli_check_scenario_inputs(sc);
  sits_scenario_free(sc);
  return code;
}

int cli_summary_format(const char *arg, const char **out) {
  if (strcmp(arg, "json") != 0 && strcmp(arg, "text") != 0) {
    cli_error("--summary '%s': expected text or json", arg);
    return EXIT_INPUT;
  }
  *out = arg;
  return EXIT_OK;
}

int cli_number(const char *opt, const char *arg, double lo, double hi, bool lo_open,
               const char *expect, double *out) {
  char *end;
  *out = strtod(arg, &end);
  bool ok = *arg && !*end && isfinite(*out) && (lo_open ? *out > lo : *out >= lo) && *out <= hi;
  if (ok)
    return EXIT_OK;
  cli_error("%s '%s': expected %s", opt, arg, expect);
  return EXIT_INPUT;
}

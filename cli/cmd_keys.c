/* cmd_keys.c - `sitsenergy keys`: the configuration keys, with type, unit, default, range and
 * what each sets (the key table of sits_config.h; the README's key reference is this output). */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "sits_config.h"

static const char keys_usage[] =
    "usage: sitsenergy keys [--format text|markdown] [FILTER]\n\n"
    "Lists every configuration key a scenario, platform, workload or battery file may hold:\n"
    "its type, unit, default, accepted range, what it is and the model value it sets. FILTER\n"
    "keeps the keys whose dotted path contains it (`sitsenergy keys battery`).\n"
    "  --format text|markdown   one entry per key (default), or the README's tables\n";

static int cmd_keys(int argc, char **argv) {
  static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  const char *format = "text";
  int c;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
    if (c == 'f')
      format = optarg;
    else if (c == 'h') {
      fputs(keys_usage, stdout);
      return EXIT_OK;
    } else {
      return cli_bad_option(c, argv[optind - 1], "keys");
    }
  }
  if (optind < argc - 1) {
    cli_error("keys takes at most one FILTER (see 'sitsenergy keys --help')");
    return EXIT_USAGE;
  }
  sits_err err = {0};
  int rc = sits_config_write_keys(stdout, format, optind < argc ? argv[optind] : NULL, &err);
  if (rc == SITS_EINPUT) { /* --format's value, as dvfs-table's */
    cli_error("%s", err.msg);
    return EXIT_INPUT;
  }
  return rc ? cli_fail(rc, &err) : EXIT_OK;
}

/* Its own parsing: no scenario. */
const cli_cmd cli_cmd_keys = {
    .name = "keys",
    .help = "the configuration keys: type, unit, default, range, what each sets",
    .raw = cmd_keys};

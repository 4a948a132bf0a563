/* cmd_hotspot.c - `sitsenergy hotspot`: a drop-in for HotSpot's `hotspot` command. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sits_hotspot.h"

static const char hotspot_usage[] =
    "usage: sitsenergy hotspot -f FLOORPLAN.flp -p POWER.ptrace [-c CONFIG] [-o "
    "OUT.ttrace|OUT.h5]\n"
    "                          [-materials_file F] [-model_type block|grid] [-init_file F]\n"
    "                          [-steady_file F] [-grid_steady_file F] [-grid_transient_file F]\n"
    "                          [-grid_rows N -grid_cols M] [-d DUMP.config] [-<option> value]...\n"
    "                          [--precision N] [--geometric-lateral] [--normalised-init]\n"
    "                          [--substeps 4] [--order 3] [--cvode [--rtol X]] [--cholmod]\n"
    "                          [--stats]\n\n"
    "HotSpot's command line, files and outputs (kelvin, HotSpot's node order and names, %.2f),\n"
    "computed exactly or close to it: the block transient by the exact zero-order-hold update,\n"
    "the grid transient by ARKODE's L-stable ESDIRK (--order 3 or 4) at --substeps fixed steps\n"
    "per interval (within 0.003 K of a tight CVODE run on HotSpot's example), or by CVODE\n"
    "(BDF, KLU) with --cvode. Grid steady states and the ESDIRK's linear systems are solved\n"
    "directly by a layered-grid solver (cosine transform per layer, a dense system for the\n"
    "edges and package nodes); --cholmod uses a sparse Cholesky factorisation instead.\n"
    "Options come from the command line, then -c (the command line wins); an unknown option\n"
    "is an error.\n"
    "Differences from HotSpot: -grid_transient_file is rewritten, not appended to; -o with a\n"
    ".h5 name writes our HDF5 layout (/time_s, /temp_c/<block>, /power_w/<block>); HotSpot's\n"
    "RK4 error is not reproduced. Its two grid-model quirks are, unless switched off:\n"
    "  --geometric-lateral  lateral resistances of non-square cells in their geometric\n"
    "                       orientation (HotSpot swaps them)\n"
    "  --normalised-init    a cell starts at the occupancy-weighted mean of its blocks (HotSpot\n"
    "                       sums them, so cells no block covers start at 0 K)\n"
    "--precision N: decimals of the text outputs (2). --rtol X: CVODE's relative tolerance\n"
    "(1e-5; absolute 100 x that in K). --stats: solver counters on stderr.\n";

/* A `--name VALUE` option of this engine at argv[*i] (substeps, order, precision, rtol). */
static int valued(int argc, char **argv, int *i, sits_hs_run_opts *ro) {
  const char *a = argv[*i];
  if (*i + 1 >= argc)
    return cli_bad_option(':', a, "hotspot");
  const char *v = argv[++*i];
  double x;
  int code;
  if (!strcmp(a, "--substeps")) {
    code = cli_number(a, v, 1, 1000, false, "1 to 1000", &x);
    ro->substeps = (int)x;
  } else if (!strcmp(a, "--order")) {
    code = cli_number(a, v, 3, 4, false, "3 or 4", &x);
    ro->order = (int)x;
  } else if (!strcmp(a, "--precision")) {
    code = cli_number(a, v, 0, 15, false, "0 to 15 decimals", &x);
    ro->precision = (int)x;
  } else
    return cli_number(a, v, 1e-12, 1e-2, false, "a tolerance in [1e-12, 1e-2]", &ro->rtol);
  if (code == EXIT_OK && x != (double)(int)x) {
    cli_error("%s '%s': expected a whole number", a, v);
    code = EXIT_INPUT;
  }
  return code;
}

/* HotSpot's arguments (single-dash `-key value` options, -c CONFIG) and this engine's
 * (--geometric-lateral, ...). -1 after --help. */
static int parse(int argc, char **argv, sits_hs_run_opts *ro, bool *stats, const char **config) {
  sits_err err = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int code = EXIT_OK;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(hotspot_usage, stdout);
      return -1;
    } else if (!strcmp(a, "--geometric-lateral"))
      ro->geometric_lateral = true;
    else if (!strcmp(a, "--normalised-init"))
      ro->normalised_init = true;
    else if (!strcmp(a, "--stats"))
      *stats = true;
    else if (!strcmp(a, "--cvode"))
      ro->cvode = true;
    else if (!strcmp(a, "--cholmod"))
      ro->general = true;
    else if (!strcmp(a, "--substeps") || !strcmp(a, "--order") || !strcmp(a, "--precision") ||
             !strcmp(a, "--rtol"))
      code = valued(argc, argv, &i, ro);
    else if (a[0] == '-' && a[1] && a[1] != '-' && i + 1 >= argc) {
      cli_error("option '%s' needs a value (see 'sitsenergy hotspot --help')", a);
      code = EXIT_USAGE;
    } else if (!strcmp(a, "-c"))
      *config = argv[++i];
    else if (a[0] == '-' && a[1] && a[1] != '-') {
      if (sits_hs_options_set(ro->options, a + 1, argv[++i], "command line", &err)) {
        cli_error("%s (see 'sitsenergy hotspot --help')", err.msg);
        code = EXIT_USAGE;
      }
    } else
      code = cli_bad_option('?', a, "hotspot");
    if (code)
      return code;
  }
  return EXIT_OK;
}

static int cmd_hotspot(int argc, char **argv) {
  sits_hs_options *opts = sits_hs_options_new();
  sits_hs_run_opts ro = {.options = opts, .precision = 2};
  bool stats = false;
  sits_err err = {0};
  const char *config = NULL;
  int code = opts ? parse(argc, argv, &ro, &stats, &config) : (cli_error("out of memory"), 1);
  int rc = SITS_OK;
  if (code == EXIT_OK && config && (rc = sits_hs_options_read_config(opts, config, &err)))
    code = cli_fail(rc, &err);
  if (code == EXIT_OK && (!sits_hs_options_get(opts, "f") || !sits_hs_options_get(opts, "p"))) {
    cli_error("hotspot needs -f FLOORPLAN and -p POWER_TRACE (see 'sitsenergy hotspot --help')");
    code = EXIT_USAGE;
  }
  if (code == EXIT_OK) { /* no output may replace an input or another output */
    const char *in[] = {sits_hs_options_get(opts, "f"), sits_hs_options_get(opts, "p"), config,
                        sits_hs_options_get(opts, "init_file"),
                        sits_hs_options_get(opts, "materials_file")};
    const char *out[] = {sits_hs_options_get(opts, "o"), sits_hs_options_get(opts, "steady_file"),
                         sits_hs_options_get(opts, "grid_steady_file"),
                         sits_hs_options_get(opts, "grid_transient_file"),
                         sits_hs_options_get(opts, "d")};
    code = cli_check_paths(in, 5, out, 5);
  }
  sits_hs_run_report rep;
  if (code == EXIT_OK && (rc = sits_hs_run(&ro, &rep, &err)))
    code = cli_fail(rc, &err);
  if (code == EXIT_OK && stats)
    fprintf(stderr,
            "sitsenergy hotspot: %s model, %zu blocks, %zu nodes, %zu intervals; transient %s: "
            "%ld steps, %ld RHS evaluations, %ld Jacobians, %ld linear setups\n",
            rep.model == SITS_HS_BLOCK ? "block" : "grid", rep.n_blocks, rep.n_nodes, rep.n_rows,
            rep.transient_done ? rep.stats.method : "not run", rep.stats.steps, rep.stats.rhs_evals,
            rep.stats.jac_evals, rep.stats.lin_setups);
  sits_hs_options_free(opts);
  return code < 0 ? EXIT_OK : code;
}

/* Its own parsing: HotSpot's single-dash options. */
const cli_cmd cli_cmd_hotspot = {
    .name = "hotspot",
    .help = "HotSpot's command line: floorplan networks, .ttrace/.steady out",
    .raw = cmd_hotspot};

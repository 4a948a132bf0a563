/* cmd_steady.c - `sitsenergy steady`: steady temperatures of the averaged inputs, JSON. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>

#include "cli.h"
#include "sits_sim.h"
#include "sits_thermal_cal.h"
#include "sits_writers.h"

static const char steady_usage[] =
    "usage: sitsenergy steady SCENARIO.cfg [--set KEY=VALUE]...\n\n"
    "Prints the steady state of the time-averaged inputs over duration_s as JSON:\n"
    "temp_c (by node), max_junction_temp_c, power_w.total, runaway; each domain at its base\n"
    "governor's OPP, held down by the thermal governor where that OPP would settle its sensor\n"
    "above the trip (thermal_limit: the cooling state, whether it cycles); on a calibrated\n"
    "scenario (one with an uncertainty group) the steady junction's 95 % band (band:\n"
    "half-width, P(junction limit holds); one more steady state per fitted parameter).\n"
    "  --set KEY=VALUE    override a config value (repeatable)\n";

static int body(void *args, cli_ctx *ctx) {
  (void)args;
  sits_err err = {0};
  sits_steady_state st = {0};
  int rc = sits_steady(ctx->sc, &st, &err), code = EXIT_OK;
  if (rc == SITS_OK && !st.runaway)
    rc = sits_steady_bands(ctx->sc, &st, &err);
  if (rc == SITS_OK)
    sits_write_steady_json(ctx->sc, &st, stdout);
  else
    code = cli_fail(rc, &err);
  sits_steady_release(&st);
  return code;
}

const cli_cmd cli_cmd_steady = {.name = "steady",
                                .help = "steady temperatures of the time-averaged inputs (JSON)",
                                .usage = steady_usage,
                                .body = body,
                                .flags = CLI_SCENARIO | CLI_LOAD};

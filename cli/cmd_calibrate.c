/* cmd_calibrate.c - `sitsenergy calibrate`: fit model parameters to a measured trace. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sits_calibrate.h"
#include "sits_replay.h"
#include "sits_thermal_cal.h"

static const char calibrate_usage[] =
    "usage: sitsenergy calibrate SCENARIO.cfg --trace FILE --fit thermal[,ambient,initial]\n"
    "                            [--format auto|tegrastats|jtop|nvsmi|csv] [--interval-ms MS]\n"
    "                            [--fields LIST] [--strict] [--train-fraction 0.7]\n"
    "                            [--plot OUT.png] [--set KEY=VALUE]... -o CALIBRATED.cfg\n"
    "       sitsenergy calibrate SCENARIO.cfg --trace FILE --fit battery[,capacity]\n"
    "                            [--train-fraction 0.7] [--plot OUT.png] [--set KEY=VALUE]...\n"
    "                            [--time-col NAME] [--current-col NAME] [--voltage-col NAME]\n"
    "                            [--discharge-positive | --discharge-negative]\n"
    "                            [--ocv-test FILE [--ocv-columns TIME,CURRENT,VOLTAGE]\n"
    "                             [--ocv-points 101] [--ocv-max-c-rate 0.05] [--ocv-r-ohm R]]\n"
    "                            -o CALIBRATED.cfg\n"
    "       sitsenergy calibrate SCENARIO.cfg --ocv-test FILE [...] -o CALIBRATED.cfg\n\n"
    "--fit thermal fits the thermal network's link resistances and node capacitances (with\n"
    "ambient: the ambient temperature; with initial: the unsensed nodes' initial temperatures)\n"
    "to a board trace replayed through the scenario's replay group (see 'sitsenergy replay'),\n"
    "on the first --train-fraction of the rows; prints train and held-out metrics per sensor\n"
    "and writes the calibrated scenario (it runs with run and replay).\n\n"
    "--fit battery fits the platform battery's R0 and RC pairs (and with 'capacity' its capacity) "
    "to a\n"
    "measured cell-level test: a CSV with time, current and voltage columns. The columns\n"
    "and the current's sign come from the scenario's replay.battery group or the options\n"
    "(default time_s, current_a, voltage_v, negative current discharging). The first\n"
    "--train-fraction of the samples is fitted, the rest held out. Prints the Calibrate JSON\n"
    "and writes the scenario with the fitted values to -o.\n\n"
    "--ocv-test FILE builds the OCV-SOC table from a slow (C/20 or slower; --ocv-max-c-rate\n"
    "in C per hour) constant-current discharge from full to the cutoff: the first sustained\n"
    "discharge in the file, whatever the sign of its current, corrected by I R: R is\n"
    "--ocv-r-ohm, or the voltage step where the current starts after a rest, or else the\n"
    "battery's R0 + sum R_k; resampled at --ocv-points evenly spaced SOC values. Its\n"
    "capacity replaces "
    "the battery's; the fit (if any) uses both. Without --trace only the table is built.\n";

typedef struct args {
  bool thermal;             /* --fit thermal[,ambient,initial] */
  sits_thermal_cal_opts th; /* its options */
  const char *scenario, *out, *png, *fit;
  sits_calibrate_opts opts;
  cli_sets sets;
  char ocv_cols[1024];
} args;

/* TIME,CURRENT,VOLTAGE into opts.ocv_columns (pointers into a->ocv_cols). */
static int ocv_columns(const char *arg, args *a) {
  snprintf(a->ocv_cols, sizeof a->ocv_cols, "%s", arg);
  char *save = NULL, *p = a->ocv_cols;
  for (int k = 0; k < 3; k++, p = NULL) {
    char *tok = strtok_r(p, ",", &save);
    if (!tok || !*tok)
      return -1;
    a->opts.ocv_columns[k] = tok;
  }
  return strtok_r(NULL, ",", &save) ? -1 : 0;
}

static int parse(int argc, char **argv, args *a) {
  static const struct option opts[] = {{"trace", required_argument, NULL, 't'},
                                       {"fit", required_argument, NULL, 'f'},
                                       {"train-fraction", required_argument, NULL, 'r'},
                                       {"plot", required_argument, NULL, 'p'},
                                       {"set", required_argument, NULL, 'S'},
                                       {"output", required_argument, NULL, 'o'},
                                       {"time-col", required_argument, NULL, 'T'},
                                       {"current-col", required_argument, NULL, 'I'},
                                       {"voltage-col", required_argument, NULL, 'V'},
                                       {"discharge-positive", no_argument, NULL, 'P'},
                                       {"discharge-negative", no_argument, NULL, 'N'},
                                       {"ocv-test", required_argument, NULL, 'O'},
                                       {"ocv-columns", required_argument, NULL, 'C'},
                                       {"ocv-points", required_argument, NULL, 'n'},
                                       {"ocv-max-c-rate", required_argument, NULL, 'm'},
                                       {"ocv-r-ohm", required_argument, NULL, 'R'},
                                       {"format", required_argument, NULL, 'y'},
                                       {"interval-ms", required_argument, NULL, 'z'},
                                       {"fields", required_argument, NULL, 'Q'},
                                       {"strict", no_argument, NULL, 'X'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  int c;
  char *end;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
    switch (c) {
    case 't': a->opts.trace_path = optarg; break;
    case 'f': a->fit = optarg; break;
    case 'r':
      a->opts.train_fraction = strtod(optarg, &end);
      if (*end || !(a->opts.train_fraction > 0 && a->opts.train_fraction <= 1)) {
        cli_error("--train-fraction '%s': expected a number in (0, 1]", optarg);
        return EXIT_INPUT;
      }
      break;
    case 'p': a->png = optarg; break;
    case 'S': cli_sets_add(&a->sets, optarg); break;
    case 'o': a->out = optarg; break;
    case 'T': a->opts.time_column = optarg; break;
    case 'I': a->opts.current_column = optarg; break;
    case 'V': a->opts.voltage_column = optarg; break;
    case 'P': a->opts.discharge_positive = 1; break;
    case 'N': a->opts.discharge_positive = 0; break;
    case 'O': a->opts.ocv_test_path = optarg; break;
    case 'C':
      if (ocv_columns(optarg, a)) {
        cli_error("--ocv-columns '%s': expected TIME,CURRENT,VOLTAGE column names", optarg);
        return EXIT_INPUT;
      }
      break;
    case 'n': {
      long v = strtol(optarg, &end, 10);
      if (*end || v < 3 || v > SITS_BATTERY_MAX_OCV) {
        cli_error("--ocv-points '%s': expected a whole number from 3 to %d", optarg,
                  SITS_BATTERY_MAX_OCV);
        return EXIT_INPUT;
      }
      a->opts.ocv_points = (size_t)v;
      break;
    }
    case 'm':
      a->opts.ocv_max_c_rate_per_h = strtod(optarg, &end);
      if (*end || !(a->opts.ocv_max_c_rate_per_h > 0 && a->opts.ocv_max_c_rate_per_h <= 1)) {
        cli_error("--ocv-max-c-rate '%s': expected a C-rate per hour in (0, 1]", optarg);
        return EXIT_INPUT;
      }
      break;
    case 'R':
      a->opts.ocv_r_ohm = strtod(optarg, &end);
      a->opts.ocv_r_given = true;
      if (*end || !(a->opts.ocv_r_ohm >= 0 && a->opts.ocv_r_ohm < 10)) {
        cli_error("--ocv-r-ohm '%s': expected a resistance in ohms, >= 0", optarg);
        return EXIT_INPUT;
      }
      break;
    case 'y': a->th.trace.format = optarg; break;
    case 'z':
      a->th.trace.interval_ms = strtod(optarg, &end);
      if (*end || !(a->th.trace.interval_ms > 0)) {
        cli_error("--interval-ms '%s': expected a positive number of milliseconds", optarg);
        return EXIT_INPUT;
      }
      break;
    case 'Q': a->th.trace.fields = optarg; break;
    case 'X': a->th.trace.strict = true; break;
    case 'h': fputs(calibrate_usage, stdout); return -1;
    default: return cli_bad_option(c, argv[optind - 1], "calibrate");
    }
  }
  bool ocv_only = a->opts.ocv_test_path && !a->opts.trace_path && !a->fit;
  if (optind != argc - 1 || !a->out || (!ocv_only && (!a->opts.trace_path || !a->fit))) {
    cli_error("calibrate needs a scenario file, --trace with --fit (or --ocv-test) and -o (see "
              "'sitsenergy calibrate --help')");
    return EXIT_USAGE;
  }
  a->scenario = argv[optind];
  if (ocv_only)
    return EXIT_OK;
  if (strstr(a->fit, "thermal") || strstr(a->fit, "ambient") || strstr(a->fit, "initial") ||
      strstr(a->fit, "leakage")) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", a->fit);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
      if (!strcmp(tok, "thermal"))
        a->thermal = true;
      else if (!strcmp(tok, "ambient"))
        a->th.fit_ambient = true;
      else if (!strcmp(tok, "initial"))
        a->th.fit_initial = true;
      else if (!strcmp(tok, "leakage")) {
        cli_error("--fit leakage: a replay drives the network with measured power, which "
                  "already holds the leakage; a leakage slope is not fitted in this version");
        return EXIT_INPUT;
      } else {
        cli_error("--fit '%s': '%s' does not combine with thermal (thermal, ambient, initial)",
                  a->fit, tok);
        return EXIT_INPUT;
      }
    }
    if (!a->thermal) {
      cli_error("--fit '%s': ambient and initial come with thermal", a->fit);
      return EXIT_INPUT;
    }
    a->th.scenario_path = a->scenario;
    a->th.trace_path = a->opts.trace_path;
    a->th.train_fraction = a->opts.train_fraction;
    return EXIT_OK;
  }
  if (strcmp(a->fit, "battery") == 0)
    a->opts.fit_capacity = false;
  else if (strcmp(a->fit, "battery,capacity") == 0 || strcmp(a->fit, "capacity,battery") == 0)
    a->opts.fit_capacity = true;
  else {
    cli_error("--fit '%s': expected battery[,capacity] or thermal[,ambient,initial]", a->fit);
    return EXIT_INPUT;
  }
  return EXIT_OK;
}

/* measured against calibrated replay per sensor, through a calibrated-scenario replay */
static int thermal_plot(const char *cfg, const sits_thermal_cal_opts *o, const char *png) {
  sits_scenario *sc = NULL;
  sits_replay *r = NULL;
  sits_err err = {0};
  int rc = sits_scenario_load(cfg, NULL, 0, &sc, &err);
  if (rc == SITS_OK)
    rc = sits_replay_run(sc, o->trace_path, &o->trace, &r, &err);
  int code = rc ? cli_fail(rc, &err) : cli_plot_replay(r, png);
  sits_replay_free(r);
  sits_scenario_free(sc);
  return code;
}

static int calibrate_thermal(args *a) {
  a->th.sets = a->sets.items, a->th.n_sets = a->sets.n;
  sits_thermal_cal cal;
  sits_err err = {0};
  int rc = sits_calibrate_thermal(&a->th, &cal, &err);
  if (rc == SITS_OK)
    rc = sits_thermal_cal_write_config(&cal, a->out, &err);
  int code = rc ? cli_fail(rc, &err) : EXIT_OK;
  if (rc == SITS_OK) {
    sits_thermal_cal_write_json(&cal, stdout);
    if (cal.unidentifiable)
      cli_error("warning: the fit is ill-conditioned (rcond %.2g): the parameters listed as "
                "unidentifiable are not determined by this trace (add a sensor on their nodes or "
                "a richer power profile)",
                cal.rcond);
    if (a->png)
      code = thermal_plot(a->out, &a->th, a->png);
  }
  sits_thermal_cal_release(&cal);
  return code;
}

int cmd_calibrate(int argc, char **argv) {
  args a = {.opts = {.discharge_positive = -1, .train_fraction = 0.7}};
  int code = parse(argc, argv, &a);
  if (code) {
    cli_sets_release(&a.sets);
    return code < 0 ? EXIT_OK : code;
  }
  if (a.thermal) {
    code = calibrate_thermal(&a);
    cli_sets_release(&a.sets);
    return code;
  }
  sits_err err = {0};
  sits_scenario *sc = NULL;
  sits_calibration cal = {0};
  int rc = sits_scenario_load(a.scenario, a.sets.items, a.sets.n, &sc, &err);
  if (rc == SITS_OK)
    rc = sits_calibrate_battery(sc, &a.opts, &cal, &err);
  if (rc == SITS_OK)
    rc = sits_write_calibrated_config(sc, &cal, a.out, &err);
  if (rc)
    code = cli_fail(rc, &err);
  else {
    sits_write_calibration_json(&cal, stdout);
    code = a.png && cal.has_fit ? cli_plot_calibration(&cal, a.png) : EXIT_OK;
    if (a.png && !cal.has_fit)
      cli_error("--plot draws a fitted trace: nothing drawn for an OCV test alone");
  }
  sits_calibration_release(&cal);
  sits_scenario_free(sc);
  cli_sets_release(&a.sets);
  return code;
}

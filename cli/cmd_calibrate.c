/* cmd_calibrate.c - `sitsenergy calibrate`: fit model parameters to a measured trace. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "sits_bpx.h"
#include "sits_calibrate.h"
#include "sits_replay.h"
#include "sits_thermal_cal.h"

static const char calibrate_usage[] =
    "usage: sitsenergy calibrate SCENARIO.cfg --trace FILE --fit "
    "auto|[thermal|capacitance,]ambient,...\n"
    "                            [--format auto|tegrastats|jtop|nvsmi|csv|ttrace] [--interval-ms "
    "MS]\n"
    "                            [--fields LIST] [--strict] [--train-fraction 0.7]\n"
    "                            [--ambient-range LO:HI] [--orders 1,2,3 [--kfold K]]\n"
    "                            [--plot OUT.png] [--csv OUT.csv] [--set KEY=VALUE]...\n"
    "                            -o CALIBRATED.cfg\n"
    "       sitsenergy calibrate SCENARIO.cfg --trace FILE [--trace FILE]...\n"
    "                            --fit battery|soc[,capacity][,lag][,arrhenius|,rows]\n"
    "                            [--train-fraction 0.7] [--average-s S] [--initial-soc S]\n"
    "                            [--plot OUT.png] [--csv OUT.csv] [--set KEY=VALUE]...\n"
    "                            [--time-col NAME] [--current-col NAME] [--voltage-col NAME]\n"
    "                            [--temp-col NAME] [--ah-col NAME]\n"
    "                            [--discharge-positive | --discharge-negative]\n"
    "                            [--ocv-test FILE [--ocv-charge FILE]\n"
    "                             [--ocv-columns TIME,CURRENT,VOLTAGE]\n"
    "                             [--ocv-points 101] [--ocv-max-c-rate 0.05] [--ocv-r-ohm R]]\n"
    "                            [--cycle FILE [--cycle FILE]... [--cycle-columns TIME,CURRENT]\n"
    "                             [--cycle-ref-eta E]]\n"
    "                            [--bpx CELL.json] -o CALIBRATED.cfg\n"
    "       sitsenergy calibrate SCENARIO.cfg --ocv-test FILE [...] -o CALIBRATED.cfg\n"
    "       sitsenergy calibrate SCENARIO.cfg --cycle FILE [--cycle FILE]... -o CALIBRATED.cfg\n\n"
    "--fit thermal fits the thermal network's link resistances and node capacitances (with\n"
    "ambient: the ambient temperature; with initial: the unsensed nodes' initial temperatures,\n"
    "each between 5 K below the coolest ambient allowed and 10 K above the warmest sensed\n"
    "reading at the start, or 10 K around the replay's estimate for a powered node)\n"
    "to a board trace replayed through the scenario's replay group (see 'sitsenergy replay'),\n"
    "on the first --train-fraction of the rows; prints train and held-out metrics per sensor\n"
    "and writes the calibrated scenario (it runs with run and replay). With ambient, the\n"
    "ambient is fitted within --ambient-range (default 15:40 C, where a board indoors sits).\n"
    "The JSON gives each parameter's standard error and range (uncertainty), their\n"
    "correlation matrix, and flags: values at a range's end, an ambient outside 15-40 C, a\n"
    "junction heavier than its neighbour, a node lighter than its die's silicon\n"
    "(die_area_mm2, die_thickness_mm), pairs correlated beyond 0.99.\n"
    "--orders 1,2,3 calibrates chains of 1 to 3 nodes from each sensed node to the ambient\n"
    "(with sensors on several nodes, each order also with the chains joined at one shared\n"
    "board node) and keeps the candidate with the least RMSE on the training rows' last\n"
    "quarter fitted on the first three (validation_rmse_c; order, board, every candidate\n"
    "under orders); with --kfold K, on K equal blocks of the training rows each held out in\n"
    "turn (kfold_rmse_c). The held-out tail never chooses; the result is the winner's fit.\n"
    "Without thermal (--fit ambient, --fit ambient,initial) the network is kept as the\n"
    "scenario gives it, say calibrated on another trace of the board, and only the ambient\n"
    "and initial temperatures are fitted: the held-out figures then say how that network\n"
    "holds on a trace it was not fitted to. --fit capacitance[,...] fits the nodes'\n"
    "capacitances and keeps the resistances (from steady points or a datasheet).\n"
    "With trips (a board whose fan state is not logged): the trip temperatures of the fans\n"
    "the trace does not drive (a fan with trips and no column) are shifted by one offset,\n"
    "scanned from -15 to +15 K in 1-K steps, each a fit from the scenario's values; the five\n"
    "offsets of least training cost are fitted again from every start and the least wins\n"
    "(trip_offset_c, every trial's figures under trip_scan; the calibrated scenario carries\n"
    "the shifted trips).\n";
static const char calibrate_usage_auto[] =
    "--fit auto is thermal,ambient,initial with the power timing the data call for: each\n"
    "mapped power column's rail under every name the trace holds (power_w.<rail>, _instant,\n"
    "_average, _energy), each as a reading held from its row and as the mean over the interval\n"
    "before it (replay.power.[].timing); each fitted on the training rows, then again on\n"
    "their first 3/4 from where that fit ended and scored on the last 1/4: the least of that\n"
    "validation RMSE wins, the held-out tail untouched; with --orders, the order is then\n"
    "chosen on that timing. Every candidate's figures under power_timing; the calibrated\n"
    "scenario maps the chosen columns.\n"
    "Its ranges of R and C come from the device's power class, not from the scenario's values\n"
    "(which only start the fit, with a fourth start from the trace's own scales): R in\n"
    "[0.05 K / P_max, 200 K / max(P_mean, P_max / 20)], C in [1e-4, 100] J/(K W) x P_max, P_max\n"
    "and P_mean the training rows' mapped power (bounds in the JSON). Then the structure:\n"
    "the network as given, with an unlogged fan on its link to the ambient (four steps\n"
    "between the median and the warmest training reading, its two resistances fitted) or\n"
    "with a first-order lag on each sensor (replay.sensors.[].lag_s, fitted), each fitted on\n"
    "the first 3/4 of the training rows and scored on the last 1/4; the best is kept when it\n"
    "cuts that RMSE by 5 % and 0.02 K (structure in the JSON; not with --orders).\n"
    "--fit auto,trips also tries a fan that switches once (5 K hysteresis), its trip placed\n"
    "by the trip scan above in each fit: for a devkit fan that turns on at one temperature.\n"
    "It costs two scans (the H200 log: 79 -> 246 s), and on the validation data it gained\n"
    "on two traces and lost on two (validation/README.md), so plain auto leaves it out.\n";

static const char calibrate_usage_more[] =
    "--plot draws each sensor measured and as the calibrated scenario replays it with its\n"
    "95 % band shaded, the power on a second axis, a dashed line where the held-out tail\n"
    "begins; --csv writes those series (time_s, measured and simulated per sensor, power_w,\n"
    "held_out: 0 on the rows fitted, 1 on those held out, and per sensor the band's\n"
    "half-width, band_half_width_c <column>).\n\n"
    "--fit battery fits the platform battery's R0 and RC pairs (and with 'capacity' its capacity) "
    "to a\n"
    "measured cell-level test: a CSV with time, current and voltage columns. The columns\n"
    "and the current's sign come from the scenario's replay.battery group or the options\n"
    "(default time_s, current_a, voltage_v, negative current discharging). With --temp-col\n"
    "(or replay.battery.temperature_column) each sample is taken at its cell temperature\n"
    "(OCV over temperature, R times the Arrhenius factor): the values fitted are at r_ref_c.\n"
    "With --ah-col (or replay.battery.charge_column) SOC follows the cycler's charge counter\n"
    "[Ah, the current's sign] instead of the integrated current: for logs that leave out part\n"
    "of the test (HPPC files with the pulses but not the discharges between them).\n"
    "A cell with a hysteresis group has its m_v, gamma and initial h fitted too. With 'lag'\n"
    "the recording's voltage lag behind its current is fitted as well (0 to the median\n"
    "sample interval: each voltage taken with the current interpolated that long before its\n"
    "stamp), for cyclers that log the two at different instants of a sample; it is reported\n"
    "(voltage_lag_s_of_the_test), not written into the cell. With 'arrhenius' (and the\n"
    "cell temperature, --temp-col, moving at least 1 K over the training part) the\n"
    "resistances' activation energy r_ea_j_per_mol is fitted too (0 to 100 kJ/mol; flagged\n"
    "at its range's ends or from less than 5 K), and written into the cell; not with rows\n"
    "over temperature (r_t_c), which replace the factor. --fit soc keeps the cell as\n"
    "the scenario has it (R0, RC pairs, tables, hysteresis) and fits only the test's initial\n"
    "SOC (and capacity, lag if named): the held-out figures then say how a cell calibrated\n"
    "on one test holds on another (train on a short start, --train-fraction 0.05). The first\n"
    "--train-fraction of the samples is fitted, the rest held out. --trace repeated (up to\n"
    "16 tests of one cell, the same columns) fits them together: one cell, each test's own\n"
    "start SOC, the first --train-fraction of each test trained on; the JSON adds each test's\n"
    "figures (tests). With 'rows' (and --temp-col) R0, the RC pairs' R at each r_soc point and\n"
    "their C become rows over temperature (r_t_c), the model taking each sample at its cell\n"
    "temperature between the rows: rows at the cell's r_t_c if it has them, else at the\n"
    "tests' median cell temperatures (tests within 2 K share one), each needing training\n"
    "samples nearer to it than to its neighbours; the row nearest r_ref_c holds r0_ohm and\n"
    "the r_ohm and c_f values. --average-s S fits each test on averages over blocks of S\n"
    "seconds, for long logs sampled fast: a block's current is the mean of the currents held\n"
    "to the next sample (the charge is kept), its voltage and temperature the means, its time\n"
    "its first sample's; R0 then takes up what each pair does in half a block (R_k S / 2\n"
    "tau_k); --train-fraction counts the averaged samples. The JSON gives average_s and\n"
    "recorded_samples. --initial-soc S gives every test's start SOC (1 for tests that start\n"
    "from a full charge) instead of fitting it, so that the cell's values cannot trade\n"
    "against a start SOC the test does not have (JSON: initial_soc_given). Prints the\n"
    "Calibrate JSON and writes the scenario with the fitted values to -o; --bpx also writes\n"
    "the fitted cell as Battery Parameter eXchange JSON (Model \"Partial\", the ECM under\n"
    "\"User-defined\" with PyBaMM's names; sitsenergy.bpx in the Python package reads it\n"
    "back).\n"
    "--plot: the measured voltage (fitted, held out: two colours), the model's dashed,\n"
    "the current on a second axis; --csv\n"
    "writes them (time_s, voltage_v, model_voltage_v, current_a discharge positive, held_out\n"
    "1 for the samples held out, and test with several --trace).\n\n";
static const char calibrate_usage_more2[] =
    "--ocv-test FILE builds the OCV-SOC table from a slow (C/20 or slower; --ocv-max-c-rate\n"
    "in C per hour) constant-current discharge from full to the cutoff: the first sustained\n"
    "discharge in the file, whatever the sign of its current, corrected by I R: R is\n"
    "--ocv-r-ohm, or the voltage step where the current starts after a rest, or else the\n"
    "battery's R0 + sum R_k; resampled at --ocv-points evenly spaced SOC values. Its\n"
    "capacity replaces "
    "the battery's; the fit (if any) uses both. Without --trace only the table is built.\n"
    "--ocv-charge FILE adds the slow charge from empty to full (same columns): the table is\n"
    "then the midpoint of the two branches (the IR correction cancels to first order, and the\n"
    "table sits between the hysteresis branches); the JSON gives their half gap.\n"
    "--cycle FILE (repeated, in time order; '-' once for the standard input) gives\n"
    "recordings that together take the cell from full to empty and back to full, as the\n"
    "three scripts of Plett's dynamic test do (the trace's sign, its time and current\n"
    "columns or --cycle-columns): the coulombic efficiency that closes the cycle\n"
    "(discharged over charged) and the capacity, the most charge removed at any point, both\n"
    "counted as the fit counts SOC (each sample's current held to the next), replace the\n"
    "battery's (and an OCV test's capacity) for the fit and in -o. With --cycle-ref-eta E\n"
    "the charge after the first file is taken at efficiency E (measured at a reference\n"
    "temperature: Plett runs scripts 2 and 3 at 25 C) and the first file's efficiency is\n"
    "solved for. Without --trace only the capacity and efficiency are computed.\n";

#define STR_(x) #x
#define STR(x) STR_(x)

#define CYCLE_MAX 16

typedef struct args {
  bool thermal;             /* --fit thermal[,ambient,initial] */
  bool fit_auto;            /* --fit auto */
  sits_thermal_cal_opts th; /* its options */
  const char *out, *png, *csv, *fit, *bpx;
  sits_calibrate_opts opts;
  char ocv_cols[1024], cycle_cols[1024];
  int orders[SITS_THERMAL_CAL_MAX_ORDERS];
  size_t n_orders;
  const char *cycle[CYCLE_MAX];                     /* --cycle, in order */
  const char *more[SITS_BATTERY_FIT_MAX_TESTS - 1]; /* --trace after the first */
} args;

static const struct option calibrate_opts[] = {{"trace", required_argument, NULL, 't'},
                                               {"fit", required_argument, NULL, 'f'},
                                               {"train-fraction", required_argument, NULL, 'r'},
                                               {"plot", required_argument, NULL, 'p'},
                                               {"csv", required_argument, NULL, 'S'},
                                               {"output", required_argument, NULL, 'o'},
                                               {"time-col", required_argument, NULL, 'T'},
                                               {"current-col", required_argument, NULL, 'I'},
                                               {"voltage-col", required_argument, NULL, 'V'},
                                               {"temp-col", required_argument, NULL, 'W'},
                                               {"ah-col", required_argument, NULL, 'H'},
                                               {"discharge-positive", no_argument, NULL, 'P'},
                                               {"discharge-negative", no_argument, NULL, 'N'},
                                               {"ocv-test", required_argument, NULL, 'O'},
                                               {"ocv-columns", required_argument, NULL, 'C'},
                                               {"ocv-charge", required_argument, NULL, 'G'},
                                               {"ocv-points", required_argument, NULL, 'n'},
                                               {"ocv-max-c-rate", required_argument, NULL, 'm'},
                                               {"ocv-r-ohm", required_argument, NULL, 'R'},
                                               {"format", required_argument, NULL, 'y'},
                                               {"interval-ms", required_argument, NULL, 'z'},
                                               {"fields", required_argument, NULL, 'Q'},
                                               {"strict", no_argument, NULL, 'X'},
                                               {"bpx", required_argument, NULL, 'B'},
                                               {"ambient-range", required_argument, NULL, 'A'},
                                               {"orders", required_argument, NULL, 'K'},
                                               {"kfold", required_argument, NULL, 'k'},
                                               {"cycle", required_argument, NULL, 'Y'},
                                               {"cycle-ref-eta", required_argument, NULL, 'E'},
                                               {"cycle-columns", required_argument, NULL, 'L'},
                                               {"average-s", required_argument, NULL, 'a'},
                                               {"initial-soc", required_argument, NULL, 'i'},
                                               {NULL, 0, NULL, 0}};

static void init(void *p) {
  args *a = p;
  a->opts.discharge_positive = -1;
  a->opts.train_fraction = 0.7;
}

/* --ocv-columns TIME,CURRENT,VOLTAGE into opts.ocv_columns, --cycle-columns TIME,CURRENT into
 * opts.cycle_columns (pointers into a->ocv_cols, a->cycle_cols). */
static int column_names(const char *arg, args *a, bool cycle) {
  char *buf = cycle ? a->cycle_cols : a->ocv_cols;
  const char **names = cycle ? a->opts.cycle_columns : a->opts.ocv_columns;
  int count = cycle ? 2 : 3;
  snprintf(buf, sizeof a->ocv_cols, "%s", arg);
  char *save = NULL, *p = buf;
  for (int k = 0; k < count; k++, p = NULL) {
    char *tok = strtok_r(p, ",", &save);
    if (!tok || !*tok)
      break;
    names[k] = tok;
    if (k == count - 1 && !strtok_r(NULL, ",", &save))
      return EXIT_OK;
  }
  cli_error(cycle ? "--cycle-columns '%s': expected TIME,CURRENT column names"
                  : "--ocv-columns '%s': expected TIME,CURRENT,VOLTAGE column names",
            arg);
  return EXIT_INPUT;
}

/* The options with numbers. */
static int number_option(args *a, int c, const char *arg) {
  double v;
  int code;
  switch (c) {
  case 'r':
    return cli_number("--train-fraction", arg, 0, 1, true, "a number in (0, 1]",
                      &a->opts.train_fraction);
  case 'n':
    code = cli_number("--ocv-points", arg, 3, SITS_BATTERY_MAX_OCV, false,
                      "a whole number from 3 to " STR(SITS_BATTERY_MAX_OCV), &v);
    if (code == EXIT_OK && v != (double)(size_t)v) {
      cli_error("--ocv-points '%s': expected a whole number from 3 to %d", arg,
                SITS_BATTERY_MAX_OCV);
      code = EXIT_INPUT;
    }
    a->opts.ocv_points = (size_t)v;
    return code;
  case 'a':
    return cli_number("--average-s", arg, 0, 3600, true, "a number of seconds in (0, 3600]",
                      &a->opts.average_s);
  case 'i':
    a->opts.initial_soc_given = true;
    return cli_number("--initial-soc", arg, 0, 1, false, "a state of charge from 0 to 1",
                      &a->opts.initial_soc);
  case 'm':
    return cli_number("--ocv-max-c-rate", arg, 0, 1, true, "a C-rate per hour in (0, 1]",
                      &a->opts.ocv_max_c_rate_per_h);
  case 'E':
    code = cli_number("--cycle-ref-eta", arg, 0.8, 1, true, "an efficiency in (0.8, 1]",
                      &a->opts.cycle_ref_eta);
    if (code == EXIT_OK && !(a->opts.cycle_ref_eta > 0.8)) {
      cli_error("--cycle-ref-eta '%s': expected an efficiency in (0.8, 1]", arg);
      code = EXIT_INPUT;
    }
    return code;
  case 'R':
    a->opts.ocv_r_given = true;
    code = cli_number("--ocv-r-ohm", arg, 0, INFINITY, false, "a resistance in ohms, >= 0",
                      &a->opts.ocv_r_ohm);
    if (code == EXIT_OK && !(a->opts.ocv_r_ohm < 10)) { /* a cell's, not a load's */
      cli_error("--ocv-r-ohm '%s': expected a resistance in ohms, >= 0", arg);
      code = EXIT_INPUT;
    }
    return code;
  default:
    return cli_number("--interval-ms", arg, 0, 1e9, true,
                      "a positive number of milliseconds, at most 1e9", &a->th.trace.interval_ms);
  }
}

/* The thermal fit's structured options: --orders 1,2,3, --kfold N, --ambient-range LO:HI. */
static int thermal_option(args *a, int c, const char *arg) {
  switch (c) {
  case 'K': {
    a->n_orders = 0;
    for (const char *tok = arg; *tok;) { /* no empty item: "1,,2" is refused */
      char *end;
      long k = strtol(tok, &end, 10);
      if (end == tok || (*end && *end != ',') || (*end == ',' && !end[1]) || k < 1 || k > 3 ||
          a->n_orders == SITS_THERMAL_CAL_MAX_ORDERS) {
        cli_error("--orders '%s': expected a list of 1, 2, 3", arg);
        return EXIT_INPUT;
      }
      a->orders[a->n_orders++] = (int)k;
      if (!*end)
        break;
      tok = end + 1;
    }
    if (!a->n_orders) {
      cli_error("--orders '%s': expected a list of 1, 2, 3", arg);
      return EXIT_INPUT;
    }
    break;
  }
  case 'k': {
    char *end;
    long k = strtol(arg, &end, 10);
    if (end == arg || *end || k < 2 || k > 20) {
      cli_error("--kfold '%s': expected a number of folds from 2 to 20", arg);
      return EXIT_INPUT;
    }
    a->th.kfold = (size_t)k;
    break;
  }
  case 'A': {
    char *end;
    double lo = strtod(arg, &end), hi = NAN;
    if (*end == ':')
      hi = strtod(end + 1, &end);
    if (*end || !isfinite(lo) || !isfinite(hi) || !(hi > lo) || lo < -273.15 || hi > 1e4) {
      cli_error("--ambient-range '%s': expected LO:HI in degC with -273.15 <= LO < HI <= 10000",
                arg);
      return EXIT_INPUT;
    }
    a->th.ambient_lo_c = lo, a->th.ambient_hi_c = hi;
    break;
  }
  }
  return EXIT_OK;
}

static int option(void *p, int c, const char *arg) {
  args *a = p;
  switch (c) {
  case 't':
    if (!(arg = cli_input(arg, "--trace")))
      return EXIT_INPUT;
    if (!a->opts.trace_path) {
      a->opts.trace_path = arg;
      break;
    }
    if (a->opts.n_more_traces == SITS_BATTERY_FIT_MAX_TESTS - 1) {
      cli_error("--trace '%s': a battery fit takes at most %d traces", arg,
                SITS_BATTERY_FIT_MAX_TESTS);
      return EXIT_USAGE;
    }
    a->more[a->opts.n_more_traces++] = arg;
    a->opts.more_trace_paths = a->more;
    break;
  case 'f': a->fit = arg; break;
  case 'p': a->png = arg; break;
  case 'S': a->csv = arg; break;
  case 'o': a->out = arg; break;
  case 'T': a->opts.time_column = arg; break;
  case 'I': a->opts.current_column = arg; break;
  case 'V': a->opts.voltage_column = arg; break;
  case 'W': a->opts.temperature_column = arg; break;
  case 'H': a->opts.charge_column = arg; break;
  case 'P': a->opts.discharge_positive = 1; break;
  case 'N': a->opts.discharge_positive = 0; break;
  case 'O':
    if (!(arg = cli_input(arg, "--ocv-test")))
      return EXIT_INPUT;
    a->opts.ocv_test_path = arg;
    break;
  case 'C': return column_names(arg, a, false);
  case 'L': return column_names(arg, a, true);
  case 'Y':
    if (a->opts.n_cycle == CYCLE_MAX) {
      cli_error("--cycle '%s': at most %d recordings make a cycle", arg, CYCLE_MAX);
      return EXIT_USAGE;
    }
    if (!(arg = cli_input(arg, "--cycle")))
      return EXIT_INPUT;
    a->cycle[a->opts.n_cycle++] = arg;
    a->opts.cycle_paths = a->cycle;
    break;
  case 'G': a->opts.ocv_charge_path = arg; break;
  case 'y': a->th.trace.format = arg; break;
  case 'Q': a->th.trace.fields = arg; break;
  case 'X': a->th.trace.strict = true; break;
  case 'B': a->bpx = arg; break;
  case 'K':
  case 'k':
  case 'A': return thermal_option(a, c, arg);
  default: return number_option(a, c, arg);
  }
  return EXIT_OK;
}

/* --fit [thermal,]ambient,initial,leakage into a->th. */
static int thermal_fit(args *a, const char *scenario) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", a->fit);
  char *save = NULL;
  bool fitted_network = false;
  for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (!strcmp(tok, "thermal"))
      fitted_network = true;
    else if (!strcmp(tok, "ambient"))
      a->th.fit_ambient = true;
    else if (!strcmp(tok, "initial"))
      a->th.fit_initial = true;
    else if (!strcmp(tok, "leakage"))
      a->th.fit_leakage = true;
    else if (!strcmp(tok, "capacitance"))
      a->th.fit_capacitance = true;
    else if (!strcmp(tok, "trips"))
      a->th.fit_trips = true;
    else if (!strcmp(tok, "auto")) /* thermal, ambient, initial and the structure */
      a->fit_auto = fitted_network = a->th.fit_ambient = a->th.fit_initial = true;
    else {
      cli_error("--fit '%s': '%s' does not combine with thermal (thermal, capacitance, ambient, "
                "initial, leakage, trips, auto)",
                a->fit, tok);
      return EXIT_INPUT;
    }
  }
  if (a->th.fit_trips && !fitted_network && !a->th.fit_capacitance && !a->th.fit_ambient &&
      !a->th.fit_initial && !a->th.fit_leakage) {
    cli_error("--fit '%s': trips shifts the fans' trips while the rest is fitted: add thermal, "
              "capacitance, ambient, initial or leakage",
              a->fit);
    return EXIT_USAGE;
  }
  if (a->th.fit_trips && a->n_orders) {
    cli_error("--fit '%s' --orders: a trip scan with the orders is not in this version; scan "
              "the trips on the network the orders chose",
              a->fit);
    return EXIT_USAGE;
  }
  if (a->fit_auto && a->th.fit_capacitance) {
    cli_error("--fit '%s': auto fits the network with its power timing; capacitance is not "
              "among its candidates in this version",
              a->fit);
    return EXIT_USAGE;
  }
  if (fitted_network && a->th.fit_capacitance) {
    cli_error("--fit '%s': thermal fits the capacitances already; capacitance alone keeps the "
              "resistances",
              a->fit);
    return EXIT_USAGE;
  }
  /* without thermal the network is kept as the scenario gives it (calibrated on another
   * trace): only the ambient, initial temperatures or leakage are fitted to this one */
  a->thermal = true;
  a->th.keep_network = !fitted_network;
  if (a->th.keep_network && a->n_orders) {
    cli_error("--fit '%s' --orders: the orders are networks to fit; add thermal to --fit", a->fit);
    return EXIT_USAGE;
  }
  a->th.scenario_path = scenario;
  a->th.trace_path = a->opts.trace_path;
  a->th.train_fraction = a->opts.train_fraction;
  return EXIT_OK;
}

/* The options a thermal fit refuses (they belong to a battery fit), then the fit's own. */
static int check_thermal(args *a, const char *scenario) {
  if (a->bpx) {
    cli_error("--bpx writes a battery cell: it goes with --fit battery or --ocv-test");
    return EXIT_USAGE;
  }
  if (a->opts.n_cycle) {
    cli_error("--cycle gives a battery's capacity: it goes with --fit battery, not '%s'", a->fit);
    return EXIT_USAGE;
  }
  if (a->opts.average_s > 0) {
    cli_error("--average-s averages a battery test: it goes with --fit battery or soc, not '%s'",
              a->fit);
    return EXIT_USAGE;
  }
  if (a->opts.initial_soc_given) {
    cli_error("--initial-soc is a battery test's start SOC: it goes with --fit battery, not '%s'",
              a->fit);
    return EXIT_USAGE;
  }
  if (a->opts.n_more_traces) {
    cli_error("--trace given %zu times: several tests are fitted together by --fit battery or "
              "soc; a thermal fit takes one trace",
              a->opts.n_more_traces + 1);
    return EXIT_USAGE;
  }
  return thermal_fit(a, scenario);
}

/* --fit for a battery: battery (or soc: the cell kept), with capacity, lag, arrhenius or rows
 * in any order, each once, and the options that go with them. */
static int check_battery(args *a) {
  bool battery = false, bad = false;
  a->opts.fit_capacity = a->opts.fit_lag = a->opts.keep_cell = a->opts.fit_arrhenius = false;
  a->opts.fit_rows = false;
  for (const char *s = a->fit; *s && !bad;) {
    size_t len = strcspn(s, ",");
    bool *flag = len == 7 && strncmp(s, "battery", 7) == 0     ? &battery
                 : len == 3 && strncmp(s, "soc", 3) == 0       ? &a->opts.keep_cell
                 : len == 8 && strncmp(s, "capacity", 8) == 0  ? &a->opts.fit_capacity
                 : len == 3 && strncmp(s, "lag", 3) == 0       ? &a->opts.fit_lag
                 : len == 9 && strncmp(s, "arrhenius", 9) == 0 ? &a->opts.fit_arrhenius
                 : len == 4 && strncmp(s, "rows", 4) == 0      ? &a->opts.fit_rows
                                                               : NULL;
    bad = !flag || *flag;
    if (flag)
      *flag = true;
    s += len;
    if (*s == ',' && *++s == '\0')
      bad = true; /* a trailing comma */
  }
  if (bad || battery == a->opts.keep_cell) { /* one of battery and soc */
    cli_error(
        "--fit '%s': expected battery[,capacity][,lag][,arrhenius|,rows], "
        "soc[,capacity][,lag][,arrhenius] or [thermal|capacitance,]ambient,initial,leakage,trips",
        a->fit);
    return EXIT_INPUT;
  }
  if (a->opts.fit_rows && (a->opts.keep_cell || a->opts.fit_arrhenius)) {
    cli_error("--fit '%s': rows over temperature are fitted with battery (soc keeps the cell's), "
              "and replace the Arrhenius factor (one of rows and arrhenius)",
              a->fit);
    return EXIT_USAGE;
  }
  if (a->opts.keep_cell && a->opts.initial_soc_given) {
    cli_error("--fit '%s' --initial-soc: soc fits the test's start SOC, --initial-soc gives it "
              "(fit battery with it, or soc without it)",
              a->fit);
    return EXIT_USAGE;
  }
  if (a->opts.fit_capacity && a->opts.n_cycle) {
    cli_error("--fit '%s' --cycle: the cycle gives the capacity; fit 'battery' alone", a->fit);
    return EXIT_USAGE;
  }
  return EXIT_OK;
}

static int check(void *p, cli_ctx *ctx) {
  args *a = p;
  bool ocv_only = (a->opts.ocv_test_path || a->opts.n_cycle) && !a->opts.trace_path && !a->fit;
  if (!a->out || (!ocv_only && (!a->opts.trace_path || !a->fit))) {
    cli_error("calibrate needs a scenario file, --trace with --fit (or --ocv-test, --cycle) and "
              "-o (see 'sitsenergy calibrate --help')");
    return EXIT_USAGE;
  }
  if (a->opts.cycle_ref_eta > 0 && a->opts.n_cycle < 2) {
    cli_error("--cycle-ref-eta weighs the charge of the --cycle recordings after the first: give "
              "two or more");
    return EXIT_USAGE;
  }
  if (a->th.kfold && !a->n_orders) {
    cli_error("--kfold goes with --orders (it chooses the network's order)");
    return EXIT_USAGE;
  }
  if (a->opts.ocv_charge_path && !a->opts.ocv_test_path) {
    cli_error("--ocv-charge goes with --ocv-test (the discharge branch)");
    return EXIT_USAGE;
  }
  const char *in[4 + CYCLE_MAX + SITS_BATTERY_FIT_MAX_TESTS] = {ctx->scenario, a->opts.trace_path,
                                                                a->opts.ocv_test_path,
                                                                a->opts.ocv_charge_path},
                                 *out[] = {a->out, a->png, a->csv, a->bpx};
  size_t n_in = 4;
  for (size_t k = 0; k < a->opts.n_cycle; k++)
    in[n_in++] = a->cycle[k];
  for (size_t k = 0; k < a->opts.n_more_traces; k++)
    in[n_in++] = a->more[k];
  if (cli_check_paths(in, n_in, out, 4) || cli_no_stdout("--plot", a->png) ||
      cli_no_stdout("--csv", a->csv) || cli_check_outputs_of(ctx))
    return EXIT_INPUT;
  if (a->out && strcmp(a->out, "-") == 0) {
    cli_error("-o -: the standard output carries the fit's JSON; give the calibrated config a "
              "file name");
    return EXIT_INPUT;
  }
  if (a->opts.initial_soc_given && (ocv_only || !a->opts.trace_path)) {
    cli_error("--initial-soc gives the --trace tests' start SOC: give --trace");
    return EXIT_USAGE;
  }
  if (a->opts.average_s > 0 && (ocv_only || !a->opts.trace_path)) {
    cli_error("--average-s averages the --trace tests of a battery fit: give --trace");
    return EXIT_USAGE;
  }
  if (ocv_only && (a->png || a->csv)) {
    cli_error("%s a fitted trace: give --trace and --fit",
              a->png ? "--plot draws" : "--csv writes");
    return EXIT_USAGE;
  }
  if (ocv_only)
    return EXIT_OK;
  if (strstr(a->fit, "thermal") || strstr(a->fit, "ambient") || strstr(a->fit, "initial") ||
      strstr(a->fit, "leakage") || strstr(a->fit, "capacitance") || strstr(a->fit, "trips") ||
      strstr(a->fit, "auto"))
    return check_thermal(a, ctx->scenario);
  return check_battery(a);
}

/* Measured against calibrated per sensor, through a replay of the calibrated scenario: drawn
 * into @p png, written to @p csv (either may be NULL). */
static int thermal_series(const char *cfg, const sits_thermal_cal_opts *o, const char *png,
                          const char *csv, size_t n_train) {
  sits_scenario *sc = NULL;
  sits_replay *r = NULL;
  sits_err err = {0};
  int rc = sits_scenario_load(cfg, NULL, 0, &sc, &err);
  if (rc == SITS_OK)
    rc = sits_replay_run(sc, o->trace_path, &o->trace, &r, &err);
  if (rc == SITS_OK) /* the 95 % band from the uncertainty the calibration wrote */
    rc = sits_replay_bands(sc, r, n_train, &err);
  if (rc == SITS_OK && csv)
    rc = sits_replay_write_csv_split(r, csv, n_train, SIZE_MAX, &err); /* the tail held out */
  /* the plot marks where the held-out tail begins */
  double split_s =
      rc == SITS_OK && n_train < r->trace->n_rows ? sits_trace_at(r->trace, n_train, 0) : NAN;
  int code = rc ? cli_fail(rc, &err) : png ? cli_plot_replay_split(r, split_s, png) : EXIT_OK;
  sits_replay_free(r);
  sits_scenario_free(sc);
  return code;
}

/* A progress line on stderr once a thermal calibration has taken 2 s (a trip scan, an order
 * search, --fit auto's candidates, the band's forecast blocks), refreshed once a second, with
 * the time so far and, at the same pace, the time left of the stage. */
typedef struct thermal_progress {
  cli_progress p;
  const char *stage;   /* what the fits are of */
  double stage_from_s; /* seconds from the start to the stage's: the time left is the stage's */
} thermal_progress;

static void on_trip_progress(size_t done, size_t total, double offset_c, void *user) {
  thermal_progress *tp = user;
  double elapsed;
  if (!cli_progress_due(&tp->p, 1.0, &elapsed))
    return;
  char eta[48] = "";
  if (done > 0 && done < total)
    snprintf(eta, sizeof eta, ", about %.0f s left",
             (elapsed - tp->stage_from_s) * (double)(total - done) / (double)done);
  if (isnan(offset_c))
    fprintf(stderr, "\rsitsenergy: fit %zu of %zu (%s), %.0f s%s\033[K", done, total, tp->stage,
            elapsed, eta);
  else
    fprintf(stderr, "\rsitsenergy: trip scan, offset %zu of %zu (%+.2f K), %.0f s%s\033[K", done,
            total, offset_c, elapsed, eta);
}

static int calibrate_thermal(args *a, cli_ctx *ctx) {
  a->th.sets = ctx->sets.items, a->th.n_sets = ctx->sets.n;
  sits_thermal_cal cal;
  sits_err err = {0};
  thermal_progress prog = {.stage = a->fit_auto && a->n_orders ? "--fit auto's timings, then orders"
                                    : a->n_orders              ? "orders and folds"
                                                               : "--fit auto's candidates"};
  cli_progress_start(&prog.p);
  if (isatty(STDERR_FILENO))
    a->th.progress = on_trip_progress, a->th.progress_user = &prog;
  int rc = a->fit_auto   ? sits_calibrate_thermal_auto(&a->th, a->orders, a->n_orders, &cal, &err)
           : a->n_orders ? sits_calibrate_thermal_orders(&a->th, a->orders, a->n_orders, &cal, &err)
                         : sits_calibrate_thermal(&a->th, &cal, &err);
  prog.stage = "the band's forecast blocks", prog.stage_from_s = cli_progress_elapsed(&prog.p);
  if (rc == SITS_OK) /* the covariance and residuals into the scenario, the held-out band */
    rc = sits_thermal_cal_add_uncertainty(&cal, &a->th, &err);
  if (prog.p.shown) /* the line ends before anything else is printed */
    fputc('\n', stderr);
  if (rc == SITS_OK)
    rc = sits_thermal_cal_write_config(&cal, a->out, &err);
  int code = rc ? cli_fail(rc, &err) : EXIT_OK;
  if (rc == SITS_OK) {
    sits_thermal_cal_write_json(&cal, stdout);
    if (cal.trace_skipped) /* the lines the fit passed over, said as replay says them */
      cli_error("%s: %zu malformed lines skipped (the first on line %zu)", a->th.trace_path,
                cal.trace_skipped, cal.trace_first_skipped_line);
    if (cal.unidentifiable)
      cli_error("warning: the fit is ill-conditioned (rcond %.2g): the parameters listed as "
                "unidentifiable are not determined by this trace (add a sensor on their nodes or "
                "a richer power profile)",
                cal.rcond);
    if (a->png || a->csv)
      code = thermal_series(a->out, &a->th, a->png, a->csv, cal.n_train);
  }
  sits_thermal_cal_release(&cal);
  return code;
}

/* A progress line on stderr once a battery fit has taken 2 s, refreshed once a second. */
static void on_fit_progress(size_t start, size_t n_starts, size_t evals, double rms_v, void *user) {
  double elapsed;
  if (cli_progress_due(user, 1.0, &elapsed))
    fprintf(stderr,
            "\rsitsenergy: battery fit, start %zu of %zu, %zu evaluations, RMS %.2f mV, %.0f s ",
            start, n_starts, evals, 1e3 * rms_v, elapsed);
}

static int calibrate_battery(args *a, cli_ctx *ctx) {
  sits_err err = {0};
  cli_progress prog;
  cli_progress_start(&prog);
  if (isatty(STDERR_FILENO))
    a->opts.progress = on_fit_progress, a->opts.progress_user = &prog;
  sits_scenario *sc = NULL;
  sits_calibration cal = {0};
  int code, rc = sits_scenario_load(ctx->scenario, ctx->sets.items, ctx->sets.n, &sc, &err);
  if (rc == SITS_OK)
    rc = sits_calibrate_battery(sc, &a->opts, &cal, &err);
  if (prog.shown) /* the line ends before anything else is printed */
    fputc('\n', stderr);
  if (rc == SITS_OK)
    rc = sits_write_calibrated_config(sc, &cal, a->out, &err);
  if (rc == SITS_OK && a->bpx) {
    sits_battery_cfg cell;
    char desc[512];
    snprintf(desc, sizeof desc, "calibrated by sitsenergy %s from %s%s%s", sits_version(),
             a->opts.trace_path ? a->opts.trace_path : "",
             a->opts.trace_path && a->opts.ocv_test_path ? " and " : "",
             a->opts.ocv_test_path ? a->opts.ocv_test_path : "");
    rc = sits_calibrated_cell(sc, &cal, &cell, &err);
    if (rc == SITS_OK)
      rc = sits_battery_write_bpx_file(&cell, ctx->scenario, desc, a->bpx, &err);
  }
  if (rc)
    code = cli_fail(rc, &err);
  else {
    sits_write_calibration_json(&cal, stdout);
    if (cal.has_fit && !cal.fit.converged)
      cli_error("warning: the battery fit stopped before its tolerances were met (see flags "
                "in the JSON)");
    if (cal.has_fit && cal.rc_added)
      cli_error("note: the cell has no RC pair: the fit added one (platform.battery.rc.[0] in "
                "the output), as R0 alone cannot follow the voltage's relaxation after a current "
                "step");
    if (sits_calibration_no_current(&cal))
      cli_error("warning: the trace carries no current: the cell's resistances are not fitted "
                "by it (see flags in the JSON)");
    int odd = sits_calibration_rc_implausible(&cal);
    if (odd >= 0)
      cli_error("warning: the fitted RC pair %d (%.3g ohm, %.3g F) is no relaxation the data "
                "show: it stands for a drift (see flags in the JSON)",
                odd, cal.fit.rc_r_ohm[odd], cal.fit.rc_c_f[odd]);
    if (sits_calibration_r0_implausible(&cal))
      cli_error("warning: the fitted r0_ohm %.3g ohm is below 1 micro-ohm, which no battery has "
                "(see flags in the JSON)",
                cal.fit.r0_ohm);
    /* a fit is there: check() refuses --plot and --csv without one */
    code = a->png ? cli_plot_calibration(&cal, a->png) : EXIT_OK;
    if (code == EXIT_OK && a->csv && (rc = sits_write_calibration_csv(&cal, a->csv, &err)))
      code = cli_fail(rc, &err);
  }
  sits_calibration_release(&cal);
  sits_scenario_free(sc);
  return code;
}

/* The thermal fit loads the scenario itself (with the --set overrides, once). */
static int body(void *p, cli_ctx *ctx) {
  args *a = p;
  return a->thermal ? calibrate_thermal(a, ctx) : calibrate_battery(a, ctx);
}

static const char *const calibrate_usage_parts[] = {calibrate_usage_auto, calibrate_usage_more,
                                                    calibrate_usage_more2, NULL};

const cli_cmd cli_cmd_calibrate = {.name = "calibrate",
                                   .help = "fit a thermal network or a battery to measured data",
                                   .usage = calibrate_usage,
                                   .usage_more = calibrate_usage_parts,
                                   .opts = calibrate_opts,
                                   .shortopts = "o:",
                                   .args_size = sizeof(args),
                                   .init = init,
                                   .option = option,
                                   .check = check,
                                   .body = body,
                                   .flags = CLI_SCENARIO};

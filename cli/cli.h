/* cli.h - what the command files share: exit codes, messages, common options. */
#ifndef SITS_CLI_H
#define SITS_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "sits_status.h"

enum {
  EXIT_OK = 0,
  EXIT_INPUT = 1,    /* bad config, trace or option value */
  EXIT_USAGE = 2,    /* the command line itself is wrong */
  EXIT_VIOLATED = 3, /* --check and a constraint does not hold */
  EXIT_SOLVER = 4
};

/** Prints "sitsenergy: <message>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** The exit code for a library status. */
int cli_exit_code(int status);

/** Reports a library failure (its message) and returns the exit code. */
int cli_fail(int status, const sits_err *err);

/** Reports a getopt failure (@p c is ':' for a missing value) of command @p cmd; returns
 *  EXIT_USAGE. */
int cli_bad_option(int c, const char *arg, const char *cmd);

/** The --set overrides gathered from the command line. */
typedef struct cli_sets {
  const char **items;
  size_t n, cap;
} cli_sets;
int cli_sets_add(cli_sets *s, const char *item);
void cli_sets_release(cli_sets *s);

typedef struct sits_scenario sits_scenario;
typedef struct sits_result sits_result;
/** Plots node temperatures and total power of @p r into the PNG @p png (gnuplot). */
int cli_plot_run(const sits_scenario *sc, const sits_result *r, const char *title, const char *png);

typedef struct sits_replay sits_replay;
/** Plots measured against simulated per sensor of @p r, power on a second axis (gnuplot). */
int cli_plot_replay(const sits_replay *r, const char *png);

typedef struct sits_calibration sits_calibration;
/** Plots measured against fitted voltage of @p cal, current on a second axis (gnuplot). */
int cli_plot_calibration(const sits_calibration *cal, const char *png);

/** The commands. argv[0] is the command name. */
int cmd_run(int argc, char **argv);
int cmd_steady(int argc, char **argv);
int cmd_dvfs_table(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_hotspot(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_capture(int argc, char **argv);
int cmd_keys(int argc, char **argv);

#endif

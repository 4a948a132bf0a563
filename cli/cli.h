/* cli.h - what the command files share: exit codes, messages, common options. */
#ifndef SITS_CLI_H
#define SITS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "sits_status.h"
#include "sits_trace.h"

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

typedef struct sits_scenario sits_scenario;

/** The --set overrides gathered from the command line. */
typedef struct cli_sets {
  const char **items;
  size_t n, cap;
} cli_sets;
int cli_sets_add(cli_sets *s, const char *item);
void cli_sets_release(cli_sets *s);

typedef struct sits_result sits_result;
/** Plots node temperatures and total power of @p r into the PNG @p png (gnuplot). */
int cli_plot_run(const sits_scenario *sc, const sits_result *r, const char *title, const char *png);

typedef struct sits_replay sits_replay;
/** Plots measured against simulated per sensor of @p r, power on a second axis (gnuplot). */
int cli_plot_replay(const sits_replay *r, const char *png);
/** The same with a dashed line where a fit's training part ends (@p split_s; NAN: none). */
int cli_plot_replay_split(const sits_replay *r, double split_s, const char *png);

/** A sweep's table for --plot: the header line, the rows (NULL: none) and what to draw. */
typedef struct cli_sweep_plot {
  const char *header;
  const char *const *rows;
  size_t n;
  const char *keys[2]; /* the first two --vary keys */
  size_t n_keys;
  bool sampled; /* --dist keys: distributions of the outputs */
  const char *ys[8];
  size_t n_y;
} cli_sweep_plot;
/** One varied key: the outputs against it; two: a heat map of the first output with the
 *  rows that violate its limit crossed; sampled: histograms and empirical CDFs, limits marked. */
int cli_plot_sweep(const cli_sweep_plot *p, const char *png);

typedef struct sits_calibration sits_calibration;
/** Plots measured against fitted voltage of @p cal, current on a second axis (gnuplot). */
int cli_plot_calibration(const sits_calibration *cal, const char *png);

struct option;

/** What the dispatcher gathered for a scenario command (git's run_builtin is the model):
 *  its one positional argument, the --set overrides and, with CLI_LOAD, the scenario loaded
 *  with them. The dispatcher releases all of it. */
typedef struct cli_ctx {
  const char *scenario;
  cli_sets sets;
  sits_scenario *sc;
} cli_ctx;

enum {
  CLI_SCENARIO = 1u << 0, /* one positional SCENARIO.cfg and --set */
  CLI_LOAD = 1u << 1,     /* the dispatcher loads the scenario before the body */
  CLI_FILE = 1u << 2      /* one positional FILE (in cli_ctx.scenario), no --set */
};

/** A command for the dispatcher (dispatch.c): it parses the command's own options through
 *  @c option, adds --set and --help, checks the scenario argument, loads the scenario when
 *  asked, runs @c body and frees everything. A command whose arguments are not of that form
 *  (hotspot, capture, keys) gives @c raw instead. */
typedef struct cli_cmd {
  const char *name, *help, *usage;
  /** The rest of the --help text after usage, in pieces (C99 caps a string literal at 4095
   *  characters): a NULL-terminated list, or NULL for none. */
  const char *const *usage_more;
  const struct option *opts; /* the command's own long options, {0}-terminated */
  const char *shortopts;     /* its short options with values ("o:") */
  size_t args_size;          /* the command's argument struct, zeroed then init() */
  void (*init)(void *args);
  /** One of the command's options: EXIT_OK, or an exit code (the message printed). */
  int (*option)(void *args, int c, const char *arg);
  /** After parsing, before loading: EXIT_OK or an exit code (NULL: nothing to check). */
  int (*check)(void *args, cli_ctx *ctx);
  int (*body)(void *args, cli_ctx *ctx);
  void (*release)(void *args); /* NULL: nothing to free */
  unsigned flags;
  int (*raw)(int argc, char **argv); /* argv[0] is the command name */
} cli_cmd;

/** Runs @p cmd on its arguments (argv[0] is the command name); the exit code. */
int cli_dispatch(const cli_cmd *cmd, int argc, char **argv);

/** --summary's value: "text" or "json" into *out; else the error printed and EXIT_INPUT. */
int cli_summary_format(const char *arg, const char **out);
/** Parses @p arg as a number in [lo, hi] (lo excluded when @p lo_open) for option @p opt;
 *  prints "--opt 'arg': expected EXPECT" and returns EXIT_INPUT when it is not. */
int cli_number(const char *opt, const char *arg, double lo, double hi, bool lo_open,
               const char *expect, double *out);

/** No output may be an input or another output (compared as files: device and inode, or the
 *  resolved name of a file not there yet; stdout "-", devices and FIFOs are not compared).
 *  NULL entries are skipped. Prints the error and returns EXIT_INPUT, else EXIT_OK. */
int cli_check_paths(const char *const *inputs, size_t ni, const char *const *outputs, size_t no);

/** Signals: SIGINT/SIGTERM/SIGHUP remove this process's temporary files beside the watched
 *  outputs and the registered files, stop the registered children, and re-raise (cleanup.c). */
void cli_cleanup_install(void);
/* heap.c: the heap in one large region and huge pages (SITS_HUGEPAGES=0: as glibc sets it) */
void cli_heap_setup(void);
/** @p handler for SIGINT, SIGTERM and SIGHUP (every signal blocked while it runs). */
void cli_on_stop(void (*handler)(int));
/** Default signal actions again (a forked job: its parent cleans up). */
void cli_cleanup_default(void);
/** Watches the output @p path (NULL, "" and "-" are skipped). */
void cli_cleanup_watch(const char *path);
/** Removes @p path by name on a signal. */
void cli_cleanup_file(const char *path);
/** Sends SIGTERM to @p pid on a signal. */
void cli_cleanup_child(int pid);

/** The clock of a progress line on a terminal: cli_progress_start at the work's start, then
 *  cli_progress_due says when to print (from 2 s after the start, every @p every_s). */
typedef struct cli_progress {
  struct timespec start, last;
  bool shown;
} cli_progress;
void cli_progress_start(cli_progress *p);
/** Seconds since cli_progress_start. */
double cli_progress_elapsed(const cli_progress *p);
/** True when a line is due (and marks it printed); *elapsed_s: seconds since the start. */
bool cli_progress_due(cli_progress *p, double every_s, double *elapsed_s);

/** Whether @p path names the standard input: '-', or /dev/stdin (/dev/fd/0,
 *  /proc/self/fd/0) when the standard input is a pipe (read once, as '-' is). */
bool cli_is_stdin(const char *path);
/** "-" given for input @p what: the path to read the standard input by (/dev/stdin, a pipe
 *  first copied into memory so that it can be read twice), or NULL with the error printed
 *  (the standard input already taken by another input, a terminal, not text). */
const char *cli_stdin(const char *what);
/** The path to read input @p what (a scenario, a trace) named @p path by: the standard input
 *  as cli_stdin() for '-'; a named pipe or a shell's <(...) first copied into memory (read
 *  once, as the readers need to read it more than once); else @p path itself. NULL with the
 *  error printed. */
const char *cli_input(const char *path, const char *what);
/** A note on stderr when --interval-ms (@p interval_ms > 0) was given for @p trace (named
 *  @p path) but its rows carry their own times, so the option changed nothing. */
void cli_interval_unused(double interval_ms, const sits_trace *trace, const char *path);
/** @p msg with a held pipe's memory name (/dev/fd/N) put back as the name it was given as
 *  (into @p buf), or @p msg itself. */
const char *cli_input_name(const char *msg, char *buf, size_t size);

/** No output declared to cli_check_paths may be a file the loaded scenario @p sc read (its
 *  platform, battery, workload, included files, traces, floorplans). EXIT_INPUT with the
 *  message, else EXIT_OK. */
int cli_check_scenario_inputs(const sits_scenario *sc);

/** For a command that loads its scenario itself (sweep, calibrate): loads it once to check
 *  its outputs against the files it reads (cli_check_scenario_inputs). */
int cli_check_outputs_of(const cli_ctx *ctx);

/** Refuses "-" for the output @p opt whose format cannot stream to stdout (HDF5, PNG);
 *  EXIT_INPUT with the message, else EXIT_OK. */
int cli_no_stdout(const char *opt, const char *path);

/** The longest line the program's own readers take (as the library's: 1 MiB). */
#define CLI_MAX_LINE (1024 * 1024)
/** The next line of @p f into *buf (grown, to CLI_MAX_LINE at most): its length, 0 at the
 *  end, -1 when longer or out of memory; *nul tells a NUL byte (not text). */
long cli_read_line(FILE *f, char **buf, size_t *cap, bool *nul);

/** The commands. argv[0] is the command name. */
extern const cli_cmd cli_cmd_run, cli_cmd_steady, cli_cmd_dvfs_table, cli_cmd_sweep,
    cli_cmd_calibrate, cli_cmd_replay, cli_cmd_capture, cli_cmd_hotspot, cli_cmd_keys,
    cli_cmd_sweep_merge, cli_cmd_trace_info;

#endif

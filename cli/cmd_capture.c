/* cmd_capture.c - `sitsenergy capture`: sample sysfs into a normalised trace CSV. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "sits_output.h"
#include "sits_rt.h"

static const char capture_usage[] =
    "usage: sitsenergy capture [--sysfs-root DIR] [--period-ms 200] [--duration-s S]\n"
    "                          [--samples N] [--mark LABEL]... -o TRACE.csv\n\n"
    "Samples the board's sysfs (thermal zones, hwmon rails incl. INA3221, battery, RAPL,\n"
    "cpufreq, devfreq) every --period-ms on the monotonic clock and writes the normalised\n"
    "trace CSV (time_s, temp_c.*, power_w.*, voltage_v.*, current_a.*, freq_mhz.*) that\n"
    "replay and calibrate read. It stops after --duration-s or --samples, or at Ctrl-C; the\n"
    "file appears when the capture ends. --sysfs-root points at another tree (default /sys).\n"
    "--mark LABEL declares a mark.LABEL column for runtime annotations (sits_rt_mark()).\n";

/* The one piece of process state: Ctrl-C ends the capture cleanly (the CLI, not the library). */
static volatile sig_atomic_t stop;
static void on_signal(int sig) {
  (void)sig;
  stop = 1;
}

typedef struct args {
  const char *root, *out, *marks[16];
  size_t n_marks;
  double period_ms, duration_s, samples; /* samples < 0: until stopped */
} args;

static const struct option capture_opts[] = {{"sysfs-root", required_argument, NULL, 'r'},
                                             {"period-ms", required_argument, NULL, 'p'},
                                             {"duration-s", required_argument, NULL, 'd'},
                                             {"samples", required_argument, NULL, 'n'},
                                             {"mark", required_argument, NULL, 'm'},
                                             {"output", required_argument, NULL, 'o'},
                                             {NULL, 0, NULL, 0}};

static void init(void *p) {
  args *a = p;
  a->period_ms = 200, a->duration_s = INFINITY, a->samples = -1;
}

static int option(void *p, int c, const char *arg) {
  args *a = p;
  switch (c) {
  case 'r': a->root = arg; break;
  case 'p': return cli_number("--period-ms", arg, 1, 3600000, false, "1 to 3600000", &a->period_ms);
  case 'd':
    return cli_number("--duration-s", arg, 0, INFINITY, true, "a positive number of seconds",
                      &a->duration_s);
  case 'n': {
    int code = cli_number("--samples", arg, 1, 1e15, false, "a positive whole number", &a->samples);
    if (code == EXIT_OK && a->samples != floor(a->samples)) {
      cli_error("--samples '%s': expected a positive whole number", arg);
      code = EXIT_INPUT;
    }
    return code;
  }
  case 'm':
    if (a->n_marks == 16) {
      cli_error("at most 16 --mark options");
      return EXIT_INPUT;
    }
    a->marks[a->n_marks++] = arg;
    break;
  case 'o': a->out = arg; break;
  }
  return EXIT_OK;
}

static int check(void *p, cli_ctx *ctx) {
  const args *a = p;
  (void)ctx;
  if (!a->out) {
    cli_error("capture needs -o TRACE.csv (see 'sitsenergy capture --help')");
    return EXIT_USAGE;
  }
  if (a->samples < 0 && isinf(a->duration_s) && !isatty(STDIN_FILENO)) {
    cli_error("capture needs --duration-s or --samples when it cannot be stopped with Ctrl-C");
    return EXIT_USAGE;
  }
  const char *out[] = {a->out};
  return cli_check_paths(NULL, 0, out, 1);
}

/* Samples into @p f every period until the duration, the sample count or a signal; the
 * number of samples written into *k. */
static int sample_loop(const args *a, sits_rt *rt, FILE *f, double *v, long *k, sits_err *err) {
  struct timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  bool tty = isatty(STDERR_FILENO);
  int rc = sits_rt_write_header(rt, f);
  for (*k = 0; rc == SITS_OK && !stop && (a->samples < 0 || *k < (long)a->samples); (*k)++) {
    double t;
    if ((rc = sits_rt_sample(rt, &t, v, err)) || (rc = sits_rt_write_row(rt, f, t, v)))
      break;
    if (tty)
      fprintf(stderr, "\rsitsenergy capture: %ld samples, %.1f s", *k + 1, t);
    if (t + a->period_ms / 1000.0 > a->duration_s + 1e-9) {
      (*k)++;
      break;
    }
    long ns = next.tv_nsec + (long)(a->period_ms * 1e6);
    next.tv_sec += ns / 1000000000L;
    next.tv_nsec = ns % 1000000000L;
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR && !stop)
      ;
  }
  if (tty)
    fputc('\n', stderr);
  return rc;
}

static int body(void *p, cli_ctx *ctx) {
  const args *a = p;
  (void)ctx;
  sits_err err = {0};
  sits_rt *rt = sits_rt_new(a->root, &err);
  if (!rt)
    return cli_fail(SITS_EINPUT, &err);
  int rc = SITS_OK;
  for (size_t k = 0; rc == SITS_OK && k < a->n_marks; k++)
    rc = sits_rt_add_mark(rt, a->marks[k], &err);
  sits_output *o = rc == SITS_OK ? sits_output_open(a->out, &err) : NULL;
  FILE *f = o ? sits_output_file(o) : NULL;
  if (rc == SITS_OK && !o) {
    sits_rt_free(rt);
    return cli_fail(SITS_EIO, &err);
  }
  size_t nc = sits_rt_column_count(rt);
  double *v = malloc((nc ? nc : 1) * sizeof *v);
  if (rc == SITS_OK && !v)
    rc = SITS_ENOMEM;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  long k = 0;
  if (rc == SITS_OK)
    rc = sample_loop(a, rt, f, v, &k, &err);
  int code = EXIT_OK;
  if (o && sits_output_close(o, rc == SITS_OK, &err) != SITS_OK && rc == SITS_OK)
    rc = SITS_EIO;
  if (rc) {
    code = err.msg[0] ? cli_fail(rc, &err) : (cli_error("%s: write error", a->out), EXIT_INPUT);
  } else
    fprintf(stderr, "sitsenergy: wrote %s (%ld samples, %zu columns)\n", a->out, k, nc);
  free(v);
  sits_rt_free(rt);
  return code;
}

const cli_cmd cli_cmd_capture = {.name = "capture",
                                 .help = "sample a board's sysfs into a trace CSV",
                                 .usage = capture_usage,
                                 .opts = capture_opts,
                                 .shortopts = "o:",
                                 .args_size = sizeof(args),
                                 .init = init,
                                 .option = option,
                                 .check = check,
                                 .body = body};

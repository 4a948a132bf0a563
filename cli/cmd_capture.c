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

static int cmd_capture(int argc, char **argv) {
  static const struct option opts[] = {{"sysfs-root", required_argument, NULL, 'r'},
                                       {"period-ms", required_argument, NULL, 'p'},
                                       {"duration-s", required_argument, NULL, 'd'},
                                       {"samples", required_argument, NULL, 'n'},
                                       {"mark", required_argument, NULL, 'm'},
                                       {"output", required_argument, NULL, 'o'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  const char *root = NULL, *out = NULL, *marks[16];
  size_t n_marks = 0;
  double period_ms = 200, duration_s = INFINITY;
  long samples = -1;
  int c;
  char *end;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
    switch (c) {
    case 'r': root = optarg; break;
    case 'p':
      period_ms = strtod(optarg, &end);
      if (*end || !(period_ms >= 1 && period_ms <= 3600000)) {
        cli_error("--period-ms '%s': expected 1 to 3600000", optarg);
        return EXIT_INPUT;
      }
      break;
    case 'd':
      duration_s = strtod(optarg, &end);
      if (*end || !(duration_s > 0)) {
        cli_error("--duration-s '%s': expected a positive number of seconds", optarg);
        return EXIT_INPUT;
      }
      break;
    case 'n':
      samples = strtol(optarg, &end, 10);
      if (*end || samples < 1) {
        cli_error("--samples '%s': expected a positive whole number", optarg);
        return EXIT_INPUT;
      }
      break;
    case 'm':
      if (n_marks == 16) {
        cli_error("at most 16 --mark options");
        return EXIT_INPUT;
      }
      marks[n_marks++] = optarg;
      break;
    case 'o': out = optarg; break;
    case 'h': fputs(capture_usage, stdout); return EXIT_OK;
    default: return cli_bad_option(c, argv[optind - 1], "capture");
    }
  }
  if (optind != argc || !out) {
    cli_error("capture needs -o TRACE.csv (see 'sitsenergy capture --help')");
    return EXIT_USAGE;
  }
  if (samples < 0 && isinf(duration_s) && !isatty(STDIN_FILENO)) {
    cli_error("capture needs --duration-s or --samples when it cannot be stopped with Ctrl-C");
    return EXIT_USAGE;
  }
  sits_err err = {0};
  sits_rt *rt = sits_rt_new(root, &err);
  if (!rt)
    return cli_fail(SITS_EINPUT, &err);
  int rc = SITS_OK;
  for (size_t k = 0; rc == SITS_OK && k < n_marks; k++)
    rc = sits_rt_add_mark(rt, marks[k], &err);
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, (long)getpid());
  FILE *f = rc == SITS_OK ? fopen(tmp, "w") : NULL;
  if (rc == SITS_OK && !f) {
    cli_error("%s: cannot create: %s", out, strerror(errno));
    sits_rt_free(rt);
    return EXIT_INPUT;
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
  if (rc == SITS_OK)
    rc = sits_rt_write_header(rt, f);
  struct timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  bool tty = isatty(STDERR_FILENO);
  long k = 0;
  for (; rc == SITS_OK && !stop && (samples < 0 || k < samples); k++) {
    double t;
    if ((rc = sits_rt_sample(rt, &t, v, &err)) || (rc = sits_rt_write_row(rt, f, t, v)))
      break;
    if (tty)
      fprintf(stderr, "\rsitsenergy capture: %ld samples, %.1f s", k + 1, t);
    if (t + period_ms / 1000.0 > duration_s + 1e-9)
      break;
    long ns = next.tv_nsec + (long)(period_ms * 1e6);
    next.tv_sec += ns / 1000000000L;
    next.tv_nsec = ns % 1000000000L;
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR && !stop)
      ;
  }
  if (tty)
    fputc('\n', stderr);
  int code = EXIT_OK;
  if (f && fclose(f) != 0 && rc == SITS_OK)
    rc = SITS_EIO;
  if (rc == SITS_OK && rename(tmp, out) != 0)
    rc = SITS_EIO;
  if (rc) {
    remove(tmp);
    code = err.msg[0] ? cli_fail(rc, &err) : (cli_error("%s: write error", out), EXIT_INPUT);
  } else
    fprintf(stderr, "sitsenergy: wrote %s (%ld samples, %zu columns)\n", out,
            samples > 0 && k > samples ? samples : k, nc);
  free(v);
  sits_rt_free(rt);
  return code;
}

/* Its own parsing: no scenario. */
const cli_cmd cli_cmd_capture = {
    .name = "capture", .help = "sample a board's sysfs into a trace CSV", .raw = cmd_capture};

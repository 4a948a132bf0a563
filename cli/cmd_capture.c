/* cmd_capture.c - `sitsenergy capture`: sample sysfs and NVIDIA GPUs (NVML) into a normalised
 * trace CSV. */
#define _DEFAULT_SOURCE /* realpath */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
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
    "usage: sitsenergy capture [--source sysfs,nvml] [--sysfs-root DIR] [--nvml-library LIB]\n"
    "                          [--period-ms MS] [--duration-s S] [--samples N]\n"
    "                          [--mark LABEL]... -o TRACE.csv\n\n"
    "Samples the board's sysfs (thermal zones, hwmon rails incl. INA3221, battery, RAPL,\n"
    "cpufreq, devfreq) and NVIDIA GPUs through NVML every --period-ms on the monotonic clock\n"
    "and writes the normalised trace CSV (time_s, temp_c.*, power_w.*, voltage_v.*,\n"
    "current_a.*, freq_mhz.*, util_frac.*, ...) that replay and calibrate read. It stops after\n"
    "--duration-s or --samples, or at Ctrl-C; the file appears when the capture ends.\n\n"
    "  --source LIST     sysfs, nvml or both (default: sysfs, and NVML too when\n"
    "                    libnvidia-ml.so.1 loads and --sysfs-root is not given); a source\n"
    "                    named here that finds nothing is an error\n"
    "  --sysfs-root DIR  another sysfs tree (default /sys)\n"
    "  --nvml-library LIB  the NVML library to load (default libnvidia-ml.so.1)\n"
    "  --period-ms MS    sample period (default 200; 100 when NVML is a source)\n"
    "  --duration-s S    stop after S seconds\n"
    "  --samples N       stop after N samples (without either: at Ctrl-C, which a\n"
    "                    capture not run from a terminal cannot get, so it needs one)\n"
    "  -o TRACE.csv      the trace (written under a temporary name, renamed at the end;\n"
    "                    not inside the sysfs tree it reads)\n"
    "  --mark LABEL      declares a mark.LABEL column for runtime annotations\n"
    "                    (sits_rt_mark())\n\n"
    "NVML columns per GPU (gpu, or gpu0, gpu1, ... with several): power_w.gpu (nvidia-smi's\n"
    "power.draw), power_w.gpu_average, _instant, _energy (the interval's mean from the energy\n"
    "counter), _limit; temp_c.gpu, gpu_mem; freq_mhz.gpu_gr, _sm, _mem, _video;\n"
    "util_frac.gpu, _mem, _fan; pstate.gpu; throttle.gpu_<reason> (0/1: sw_power_cap,\n"
    "hw_slowdown, sw_thermal, hw_thermal, hw_power_brake, idle, ...). What a GPU does not\n"
    "report has no column.\n";

/* The one piece of process state: Ctrl-C ends the capture cleanly (the CLI, not the library). */
static volatile sig_atomic_t stop;
static void on_signal(int sig) {
  (void)sig;
  stop = 1;
}

typedef struct args {
  const char *root, *out, *marks[16], *nvml_library;
  size_t n_marks;
  int sysfs, nvml;                       /* --source: -1 not given */
  double period_ms, duration_s, samples; /* samples < 0: until stopped */
} args;

static const struct option capture_opts[] = {{"source", required_argument, NULL, 's'},
                                             {"nvml-library", required_argument, NULL, 'l'},
                                             {"sysfs-root", required_argument, NULL, 'r'},
                                             {"period-ms", required_argument, NULL, 'p'},
                                             {"duration-s", required_argument, NULL, 'd'},
                                             {"samples", required_argument, NULL, 'n'},
                                             {"mark", required_argument, NULL, 'm'},
                                             {"output", required_argument, NULL, 'o'},
                                             {NULL, 0, NULL, 0}};

static void init(void *p) {
  args *a = p;
  a->period_ms = -1, a->duration_s = INFINITY, a->samples = -1;
  a->sysfs = a->nvml = -1;
}

/* --source sysfs,nvml: each named once, nothing else. */
static int sources(args *a, const char *arg) {
  a->sysfs = a->nvml = 0;
  const char *p = arg;
  while (*p) {
    size_t n = strcspn(p, ",");
    int *flag = n == 5 && !strncmp(p, "sysfs", 5)  ? &a->sysfs
                : n == 4 && !strncmp(p, "nvml", 4) ? &a->nvml
                                                   : NULL;
    if (!flag || *flag) {
      cli_error("--source '%s': expected sysfs, nvml or sysfs,nvml", arg);
      return EXIT_INPUT; /* an option's value */
    }
    *flag = 1;
    p += n + (p[n] == ',');
  }
  if (!a->sysfs && !a->nvml) {
    cli_error("--source '%s': expected sysfs, nvml or sysfs,nvml", arg);
    return EXIT_INPUT;
  }
  return EXIT_OK;
}

static int option(void *p, int c, const char *arg) {
  args *a = p;
  switch (c) {
  case 's': return sources(a, arg);
  case 'l':
    if (!*arg) { /* dlopen("") is the program itself */
      cli_error("--nvml-library '': expected the NVML library's file name");
      return EXIT_INPUT;
    }
    a->nvml_library = arg;
    break;
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

/* The output may not lie in the sysfs tree the capture reads (a copied tree, --sysfs-root:
 * it would replace one of the files it samples): EXIT_INPUT with the message, else EXIT_OK. */
static int outside_the_tree(const char *out, const char *root) {
  char tree[PATH_MAX], where[PATH_MAX], dir[PATH_MAX];
  if (!realpath(root, tree))
    return EXIT_OK;            /* no tree: the capture says so */
  if (!realpath(out, where)) { /* not there yet: its folder */
    snprintf(dir, sizeof dir, "%s", out);
    char *slash = strrchr(dir, '/');
    if (slash)
      *(slash == dir ? slash + 1 : slash) = '\0';
    if (!realpath(slash ? dir : ".", where))
      return EXIT_OK; /* a folder that is not there: cli_check_paths said so */
  }
  size_t n = strlen(tree);
  if (strncmp(where, tree, n) == 0 && (where[n] == '/' || where[n] == '\0' || n == 1)) {
    cli_error("-o %s: inside the sysfs tree the capture reads (%s): write it elsewhere", out, root);
    return EXIT_INPUT;
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
  int code = cli_check_paths(NULL, 0, out, 1);
  return code ? code : outside_the_tree(a->out, a->root ? a->root : "/sys");
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
  args *a = p;
  (void)ctx;
  sits_err err = {0};
  /* Without --source: sysfs, and NVML when it loads on the machine's own tree (required when
   * --nvml-library names one). */
  sits_rt_opts ro = {.sysfs_root = a->root, .nvml_library = a->nvml_library};
  if (a->sysfs < 0)
    ro.nvml = a->nvml_library ? 1 : a->root ? 0 : -1;
  else {
    ro.no_sysfs = !a->sysfs;
    ro.nvml = a->nvml;
  }
  sits_rt *rt = sits_rt_open(&ro, &err);
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
  if (a->period_ms < 0) { /* NVML's readings change at 10 Hz and more: sample at 10 Hz */
    a->period_ms = sits_rt_gpu_count(rt) > 0 ? 100 : 200;
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
    fprintf(stderr, "sitsenergy: wrote %s (%ld samples, %zu columns, %zu GPUs through NVML)\n",
            a->out, k, nc, sits_rt_gpu_count(rt));
  free(v);
  sits_rt_free(rt);
  return code;
}

const cli_cmd cli_cmd_capture = {
    .name = "capture",
    .help = "sample a board's sysfs and NVIDIA GPUs (NVML) into a trace CSV",
    .usage = capture_usage,
    .opts = capture_opts,
    .shortopts = "o:",
    .args_size = sizeof(args),
    .init = init,
    .option = option,
    .check = check,
    .body = body};

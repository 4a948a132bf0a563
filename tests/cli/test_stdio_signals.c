/*
 * test_stdio_signals.c - "-" for the standard streams, and what a stopped run leaves behind.
 *
 * "-" is the standard input for the scenario and --trace (a pipe or a redirected file), the
 * standard output for run --csv, dvfs-table -o and sweep -o; each gives the same bytes as the
 * file would. SIGTERM during a run's write and during a sweep leaves no temporary file and no
 * job process; the temporary file of a writer killed with SIGKILL is removed by the next
 * writer of the same output, and one of a live process is left alone.
 */
#define _DEFAULT_SOURCE
#include "test_util.h"

#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEMO SITS_CONFIGS "/examples/video_enc.cfg"
#define CASE_CFG SITS_CONFIGS "/../validation/cases/orin_nano_jp6.cfg"
#define CASE_TRACE SITS_VALIDATION_DATA "/orin_nano_jp6_tegrastats.raw"

/* Runs the shell command @p cmd (stdout to OUT, stderr to ERR in the test folder); exit code. */
static int sh(const char *cmd, char **out, char **err) {
  char full[8192], o[512], e[512];
  snprintf(o, sizeof o, "%s/sh.out", tu_dir());
  snprintf(e, sizeof e, "%s/sh.err", tu_dir());
  snprintf(full, sizeof full, "(%s) >%s 2>%s", cmd, o, e);
  int st = system(full);
  if (out)
    *out = tu_slurp(o);
  if (err)
    *err = tu_slurp(e);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The same command with the scenario from a file, a pipe and a redirect gives the same
 * summary. */
Test(stdio, scenario_from_stdin) {
  char cmd[4096], *file, *piped, *redirected, *err;
  snprintf(cmd, sizeof cmd, "%s run %s --set duration_s=30 --summary json", SITS_CLI, DEMO);
  cr_assert_eq(sh(cmd, &file, &err), 0, "%s", err);
  free(err);
  snprintf(cmd, sizeof cmd, "cat %s | %s run - --set duration_s=30 --summary json", DEMO, SITS_CLI);
  cr_assert_eq(sh(cmd, &piped, &err), 0, "%s", err);
  free(err);
  snprintf(cmd, sizeof cmd, "%s run - --set duration_s=30 --summary json < %s", SITS_CLI, DEMO);
  cr_assert_eq(sh(cmd, &redirected, &err), 0, "%s", err);
  free(err);
  cr_assert(strstr(file, "\"max_junction_temp_c\""), "%s", file);
  cr_assert_str_eq(piped, file);
  cr_assert_str_eq(redirected, file);
  free(file), free(piped), free(redirected);
}

/* A trace piped in replays as the file does (the format is sniffed, then read: twice). */
Test(stdio, trace_from_stdin) {
  char cmd[4096], *file, *piped, *err;
  snprintf(cmd, sizeof cmd, "%s replay %s --trace %s --summary json", SITS_CLI, CASE_CFG,
           CASE_TRACE);
  cr_assert_eq(sh(cmd, &file, &err), 0, "%s", err);
  free(err);
  snprintf(cmd, sizeof cmd, "cat %s | %s replay %s --trace - --summary json", CASE_TRACE, SITS_CLI,
           CASE_CFG);
  cr_assert_eq(sh(cmd, &piped, &err), 0, "%s", err);
  free(err);
  cr_assert(strstr(file, "\"rmse_c\""), "%s", file);
  cr_assert_str_eq(piped, file);
  free(file), free(piped);
}

/* A trace from a named pipe or a shell's <(...) replays as the file does: the pipe is held in
 * memory, where before the format's sniff read its first 4 KiB away (661 rows read as 649) or
 * a late writer found the pipe already read ("empty file"). An error names the pipe as given. */
Test(stdio, trace_from_a_named_pipe, .timeout = 60) {
  char cmd[4096], *file, *piped, *subst, *err;
  snprintf(cmd, sizeof cmd, "%s replay %s --trace %s --summary json", SITS_CLI, CASE_CFG,
           CASE_TRACE);
  cr_assert_eq(sh(cmd, &file, &err), 0, "%s", err);
  free(err);
  snprintf(cmd, sizeof cmd,
           "cd %s && rm -f tp && mkfifo tp && (sleep 1; cat %s > tp) & sleep 0.2; cd %s && "
           "%s replay %s --trace tp --summary json",
           tu_dir(), CASE_TRACE, tu_dir(), SITS_CLI, CASE_CFG);
  cr_assert_eq(sh(cmd, &piped, &err), 0, "%s", err);
  free(err);
  snprintf(cmd, sizeof cmd, "bash -c '%s replay %s --trace <(cat %s) --summary json'", SITS_CLI,
           CASE_CFG, CASE_TRACE);
  cr_assert_eq(sh(cmd, &subst, &err), 0, "%s", err);
  free(err);
  cr_assert(strstr(file, "\"n\":661"), "%s", file);
  cr_assert_str_eq(piped, file);
  cr_assert_str_eq(subst, file);
  free(file), free(piped), free(subst);
  snprintf(cmd, sizeof cmd,
           "cd %s && rm -f tp && mkfifo tp && (printf 'time_s,x\\n0,1\\n1,2\\n' > tp) & "
           "sleep 0.2; cd %s && %s replay %s --trace tp",
           tu_dir(), tu_dir(), SITS_CLI, CASE_CFG);
  cr_assert_eq(sh(cmd, NULL, &err), 1, "%s", err);
  cr_assert(strstr(err, "tp has no column 'power_w.VDD_IN'; its columns: x"), "%s", err);
  free(err);
  /* a warning names it too (every message goes through one printer) */
  snprintf(cmd, sizeof cmd,
           "cd %s && rm -f tp && mkfifo tp && ((cat %s; echo garbage) > tp) & sleep 0.2; cd %s && "
           "%s replay %s --trace tp --summary json",
           tu_dir(), CASE_TRACE, tu_dir(), SITS_CLI, CASE_CFG);
  cr_assert_eq(sh(cmd, NULL, &err), 0, "%s", err);
  cr_assert(strstr(err, "sitsenergy: tp: 1 malformed lines skipped"), "%s", err);
  cr_assert_null(strstr(err, "/dev/fd/"), "%s", err);
  free(err);
}

/* A scenario from a named pipe runs as from "-": held in memory, its relative names (a
 * workload trace) found in the working folder, as for the standard input. */
Test(stdio, scenario_from_a_named_pipe, .timeout = 60) {
  char cmd[4096], *file, *piped, *err;
  char *cfg = tu_write("piped.cfg", "platform = \"jetson_orin_nx\";\n"
                                    "workload = { trace = \"burst.csv\"; };\nduration_s = 10.0;\n");
  snprintf(cmd, sizeof cmd, "cp %s/traces/orin_nano_vlm_burst_power.csv %s/burst.csv", SITS_CONFIGS,
           tu_dir());
  cr_assert_eq(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "cd %s && %s run piped.cfg --summary json", tu_dir(), SITS_CLI);
  cr_assert_eq(sh(cmd, &file, &err), 0, "%s", err);
  free(err);
  snprintf(cmd, sizeof cmd,
           "cd %s && rm -f sp && mkfifo sp && (cat piped.cfg > sp) & sleep 0.2; cd %s && "
           "%s run sp --summary json",
           tu_dir(), tu_dir(), SITS_CLI);
  cr_assert_eq(sh(cmd, &piped, &err), 0, "%s", err);
  free(err);
  char *a = strstr(file, "\"max_junction_temp_c\""), *b = strstr(piped, "\"max_junction_temp_c\"");
  cr_assert(a && b, "%s", piped);
  cr_assert_eq(strncmp(a, b, 40), 0, "%.40s vs %.40s", a, b);
  free(file), free(piped), free(cfg);
}

/* stdin read once: the scenario and the trace cannot both be "-"; a binary stdin is refused. */
Test(stdio, stdin_refusals) {
  char cmd[4096], *out, *err;
  snprintf(cmd, sizeof cmd, "cat %s | %s replay - --trace -", CASE_TRACE, SITS_CLI);
  cr_assert_eq(sh(cmd, &out, &err), 1, "%s", err);
  cr_assert(strstr(err, "already read for another input"), "%s", err);
  free(out), free(err);
  snprintf(cmd, sizeof cmd, "head -c 4096 /dev/zero | %s run -", SITS_CLI);
  cr_assert_eq(sh(cmd, &out, &err), 1, "%s", err);
  cr_assert(strstr(err, "not text"), "%s", err);
  free(out), free(err);
}

/* run --csv - puts the CSV on stdout (the summary moves to stderr), byte for byte the file. */
Test(stdio, csv_to_stdout) {
  char cmd[4096], path[600], *out, *err;
  snprintf(path, sizeof path, "%s/demo.csv", tu_dir());
  snprintf(cmd, sizeof cmd, "%s run %s --set duration_s=20 --quiet --csv %s", SITS_CLI, DEMO, path);
  cr_assert_eq(sh(cmd, NULL, NULL), 0);
  char *file = tu_slurp(path);
  snprintf(cmd, sizeof cmd, "%s run %s --set duration_s=20 --quiet --csv - --summary json",
           SITS_CLI, DEMO);
  cr_assert_eq(sh(cmd, &out, &err), 0, "%s", err);
  cr_assert(strlen(file) > 1000);
  cr_assert_str_eq(out, file);
  cr_assert(err[0] == '{' && strstr(err, "\"verdict\""), "the summary is on stderr: %.80s", err);
  free(out), free(err), free(file);
  /* HDF5 and PNG cannot stream: refused before the run */
  snprintf(cmd, sizeof cmd, "%s run %s -o -", SITS_CLI, DEMO);
  cr_assert_eq(sh(cmd, &out, &err), 1);
  cr_assert(strstr(err, "-o -: this output cannot stream"), "%s", err);
  free(out), free(err);
  snprintf(cmd, sizeof cmd, "%s run %s --csv - --plot -", SITS_CLI, DEMO);
  cr_assert_eq(sh(cmd, &out, &err), 1);
  cr_assert(strstr(err, "--plot -: this output cannot stream"), "%s", err);
  free(out), free(err);
}

/* dvfs-table -o - and sweep -o - write what they would write to a file. */
Test(stdio, tables_to_stdout) {
  char cmd[4096], path[600], *out, *err;
  snprintf(path, sizeof path, "%s/table.json", tu_dir());
  snprintf(cmd, sizeof cmd, "%s dvfs-table %s --format json -o %s", SITS_CLI, DEMO, path);
  cr_assert_eq(sh(cmd, NULL, NULL), 0);
  char *file = tu_slurp(path);
  snprintf(cmd, sizeof cmd, "%s dvfs-table %s --format json -o -", SITS_CLI, DEMO);
  cr_assert_eq(sh(cmd, &out, &err), 0, "%s", err);
  cr_assert(strstr(file, "\"opps\""));
  cr_assert_str_eq(out, file);
  free(out), free(err), free(file);
  snprintf(path, sizeof path, "%s/sweep.csv", tu_dir());
  snprintf(cmd, sizeof cmd, "%s sweep %s --set duration_s=10 --vary ambient_c=20,30 -j 2 -o %s",
           SITS_CLI, DEMO, path);
  cr_assert_eq(sh(cmd, NULL, NULL), 0);
  file = tu_slurp(path);
  snprintf(cmd, sizeof cmd, "%s sweep %s --set duration_s=10 --vary ambient_c=20,30 -j 2 -o -",
           SITS_CLI, DEMO);
  cr_assert_eq(sh(cmd, &out, &err), 0, "%s", err);
  cr_assert(!strncmp(file, "index,config_hash,ambient_c,end_reason", 38), "%s", file);
  cr_assert_str_eq(out, file);
  free(out), free(err), free(file);
}

/* The entries of the test folder whose names contain @p part. */
static int count_named(const char *part) {
  DIR *d = opendir(tu_dir());
  struct dirent *e;
  int n = 0;
  while ((e = readdir(d)) != NULL)
    n += strstr(e->d_name, part) != NULL;
  closedir(d);
  return n;
}

/* Starts the CLI with @p args (argv words) in the background; its pid. */
static pid_t start(const char *const *args) {
  pid_t pid = fork();
  if (pid == 0) {
    freopen("/dev/null", "w", stdout);
    freopen("/dev/null", "w", stderr);
    execv(SITS_CLI, (char *const *)args);
    _exit(127);
  }
  return pid;
}

/* Waits (up to 60 s) until a file whose name holds @p part appears; whether it did. */
static bool appears(const char *part) {
  for (int i = 0; i < 6000; i++) {
    if (count_named(part) > 0)
      return true;
    nanosleep(&(struct timespec){0, 10000000}, NULL);
  }
  return false;
}

/* SIGTERM while a run writes its CSV: no temporary file remains, the output is not created,
 * and the run dies of the signal. */
Test(signals, sigterm_during_a_run_leaves_nothing, .timeout = 120) {
  char out[600];
  snprintf(out, sizeof out, "%s/long.csv", tu_dir());
  const char *args[] = {
      SITS_CLI,  "run",   DEMO, "--set", "duration_s=20000", "--set", "sample_period_s=0.02",
      "--quiet", "--csv", out,  NULL};
  pid_t pid = start(args);
  cr_assert(appears("long.csv.sits-tmp."), "the run never began its write");
  kill(pid, SIGTERM);
  int st;
  cr_assert_eq(waitpid(pid, &st, 0), pid);
  cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "status %d", st);
  cr_assert_eq(count_named("long.csv"), 0, "a temporary file or a partial output remains");
}

/* Starts a two-job sweep of 2,000 hour-long rows writing tu_dir()/@p name (its path into
 * @p out), and returns once its jobs run (their files are there, and one second more). */
static pid_t start_sweep(const char *name, char *out, size_t size) {
  snprintf(out, size, "%s/%s", tu_dir(), name);
  const char *args[] = {
      SITS_CLI, "sweep", DEMO, "--set", "duration_s=3600", "--vary", "ambient_c=20:45:2000", "-j",
      "2",      "-o",    out,  NULL};
  pid_t pid = start(args);
  char tmp[600];
  snprintf(tmp, sizeof tmp, "%s.sits-tmp.", name);
  cr_assert(appears(tmp), "the sweep never made its job files");
  nanosleep(&(struct timespec){1, 0}, NULL); /* the jobs are running */
  return pid;
}

/* SIGTERM to a sweep with two jobs: the job files go, and so do the job processes. */
Test(signals, sigterm_during_a_sweep_keeps_finished_rows, .timeout = 120) {
  char out[600];
  pid_t pid = start_sweep("big_sweep.csv", out, sizeof out);
  kill(pid, SIGTERM);
  int st;
  cr_assert_eq(waitpid(pid, &st, 0), pid);
  cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "status %d", st);
  cr_assert_eq(count_named("sits-tmp"), 0, "a job or temporary file remains");
  /* the finished rows are in OUT, whole: as many fields as the header, no error */
  char *text = tu_slurp(out);
  cr_assert(!strncmp(text, "index,config_hash,ambient_c,", 28), "%.80s", text);
  size_t rows = 0, header_fields = 1;
  for (const char *c = text; *c != '\n'; c++)
    header_fields += *c == ',';
  for (char *line = strchr(text, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
    size_t fields = 1;
    for (const char *c = line; *c != '\n'; c++)
      fields += *c == ',';
    cr_assert_eq(fields, header_fields, "%.80s", line);
    cr_assert_eq(strchr(line, '\n')[-1], ',', "an error in a row the stop cut: %.80s", line);
    rows++;
  }
  cr_assert_lt(rows, 2000);
  cr_log_info("%zu rows finished before the stop", rows);
  free(text);
  char cmd[1024];
  int left = 1;
  for (int i = 0; i < 200 && left; i++) { /* the jobs end on their SIGTERM */
    /* "[b]ig": the pattern does not match the shell that runs pgrep */
    snprintf(cmd, sizeof cmd, "pgrep -f '%s/[b]ig_sweep.csv' >/dev/null", tu_dir());
    left = system(cmd) == 0;
    if (left)
      nanosleep(&(struct timespec){0, 10000000}, NULL);
  }
  cr_assert(!left, "a job process outlived the sweep");
}

/* Whether a process whose command line holds tu_dir()/@p part runs. */
static bool running(const char *part) {
  char cmd[1024];
  /* "[x]": the pattern does not match the shell that runs pgrep */
  snprintf(cmd, sizeof cmd, "pgrep -f '%s/[%c]%s' >/dev/null", tu_dir(), part[0], part + 1);
  return system(cmd) == 0;
}

/* Whether such a process still runs after 2 s. */
static bool lingers(const char *part) {
  for (int i = 0; i < 200; i++) {
    if (!running(part))
      return false;
    nanosleep(&(struct timespec){0, 10000000}, NULL);
  }
  return true;
}

/* SIGKILL to a sweep (no handler runs): its job processes die with it (PR_SET_PDEATHSIG)
 * instead of running their rows to the end; their files are the next writer's to remove. */
Test(signals, sigkill_to_the_sweep_takes_its_jobs, .timeout = 120) {
  char out[600];
  pid_t pid = start_sweep("killed_sweep.csv", out, sizeof out);
  cr_assert(running("killed_sweep.csv"), "no job process is running");
  kill(pid, SIGKILL);
  int st;
  cr_assert_eq(waitpid(pid, &st, 0), pid);
  cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "status %d", st);
  cr_assert(!lingers("killed_sweep.csv"), "a job process outlived the killed sweep");
}

/* --resume: rows of OUT that ran this combination are kept, the rest run; the table equals
 * an uninterrupted sweep's byte for byte. A row whose values are not this combination's (an
 * OUT of another grid with the same keys), a failed row and a cut row are run again; another
 * sweep's table (other keys) is refused. */
Test(signals, resume_finishes_a_sweep) {
  char cmd[4096];
  const char *d = tu_dir();
  snprintf(cmd, sizeof cmd,
           "cd %s && %s sweep %s --set duration_s=20 --vary ambient_c=20:45:8 -o full.csv "
           "2>/dev/null && (head -3 full.csv; sed -n 5p full.csv; sed -n 7p full.csv | "
           "sed 's/,$/,boom/'; sed -n 8p full.csv | head -c 40) > part.csv && "
           "%s sweep %s --set duration_s=20 --vary ambient_c=20:45:8 -o part.csv --resume "
           "2>resume.err && cmp -s part.csv full.csv && grep -q '3 of 8 rows done' resume.err",
           d, SITS_CLI, DEMO, SITS_CLI, DEMO);
  cr_assert_eq(system(cmd), 0, "%s", cmd);
  snprintf(cmd, sizeof cmd,
           "cd %s && %s sweep %s --set duration_s=20 --vary ambient_c=20,45 -o other.csv "
           "2>/dev/null && cp full.csv grid.csv && %s sweep %s --set duration_s=20 --vary "
           "ambient_c=20,45 -o grid.csv --resume 2>/dev/null && cmp -s grid.csv other.csv",
           d, SITS_CLI, DEMO, SITS_CLI, DEMO);
  cr_assert_eq(system(cmd), 0, "a row of another grid was kept");
  char args[2048], *out, *err;
  snprintf(args, sizeof args, "sweep %s --vary duration_s=10,20 -o %s/full.csv --resume", DEMO, d);
  cr_assert_eq(tu_cli(args, &out, &err), 1);
  cr_assert(strstr(err, "full.csv:1: not this sweep's table"), "%s", err);
  free(out), free(err);
}

/* A SIGKILLed writer's temporary file (its process gone) is removed by the next write of the
 * same output; one of a live process (this test's) stays. */
Test(signals, sigkill_leftovers_removed_by_the_next_writer) {
  pid_t dead = fork();
  if (dead == 0)
    _exit(0);
  waitpid(dead, NULL, 0);
  char stale[700], live[700], out[600], cmd[4096];
  snprintf(out, sizeof out, "%s/again.csv", tu_dir());
  snprintf(stale, sizeof stale, "%s.sits-tmp.%ld.Ab12Cd", out, (long)dead);
  snprintf(live, sizeof live, "%s.sits-tmp.%ld.Ef34Gh", out, (long)getpid());
  free(tu_write("again.csv.sits-tmp.x", "")); /* not of the pattern: kept */
  FILE *f = fopen(stale, "w");
  fputs("partial", f);
  fclose(f);
  f = fopen(live, "w");
  fclose(f);
  snprintf(cmd, sizeof cmd, "%s run %s --set duration_s=5 --quiet --csv %s", SITS_CLI, DEMO, out);
  cr_assert_eq(sh(cmd, NULL, NULL), 0);
  struct stat st;
  cr_assert_neq(stat(stale, &st), 0, "the dead writer's temporary file is still there");
  cr_assert_eq(stat(live, &st), 0, "a live writer's temporary file was removed");
  cr_assert_eq(count_named("again.csv.sits-tmp.x"), 1);
  cr_assert_eq(stat(out, &st), 0);
}

/* The peak resident memory [KiB] of the CLI run with @p args (argv words). */
static long peak_rss_kib(const char *const *args) {
  pid_t pid = start(args);
  int st;
  struct rusage ru;
  cr_assert_eq(wait4(pid, &st, 0, &ru), pid);
  cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
  return ru.ru_maxrss;
}

/* run -o/--csv streams the series to the files as the run goes: ten times the samples (500 k
 * against 50 k, ~75 MB if they were held) leave the peak memory within 30 MB. */
Test(streaming, run_memory_does_not_grow_with_its_length, .timeout = 300) {
#if defined(__SANITIZE_ADDRESS__)
  /* AddressSanitizer keeps freed blocks in a quarantine of up to 256 MB: resident memory says
   * nothing about the program's own there (the regular build runs this test) */
  cr_skip_test("peak memory is not the program's under AddressSanitizer");
#endif
  char h5[600], csv[600];
  snprintf(h5, sizeof h5, "%s/stream.h5", tu_dir());
  snprintf(csv, sizeof csv, "%s/stream.csv", tu_dir());
  /* clang-format off */
  const char *shorter[] = {SITS_CLI, "run", DEMO, "--set", "duration_s=1000", "--set",
                           "sample_period_s=0.02", "--quiet", "-o", h5, "--csv", csv, NULL};
  const char *longer[] = {SITS_CLI, "run", DEMO, "--set", "duration_s=10000", "--set",
                          "sample_period_s=0.02", "--quiet", "-o", h5, "--csv", csv, NULL};
  /* clang-format on */
  long a = peak_rss_kib(shorter), b = peak_rss_kib(longer);
  cr_log_info("peak RSS: %ld KiB for 50 k samples, %ld KiB for 500 k", a, b);
  cr_assert_lt(b, a + 30 * 1024, "%ld KiB against %ld KiB", b, a);
  char *text = tu_slurp(csv);
  size_t lines = 0;
  for (const char *c = text; *c; c++)
    lines += *c == '\n';
  cr_assert_eq(lines, 500002, "header + 500,001 rows: %zu", lines);
  free(text);
}

/* A sweep killed outright (SIGKILL to it and its jobs, as a power cut would): the rows its jobs
 * had finished are in their job files, which --resume takes (their PID gone) before the next
 * sweep removes them; the finished table equals an uninterrupted sweep's byte for byte. The
 * rows run on the reference path (solver.method = "cvode", ~0.2 s a row): on the fast path the
 * 40 rows took ~1.2 s on -j 2, and the sweep had ended before the kill at 1.5 s. */
Test(signals, resume_after_sigkill, .timeout = 240) {
  char out[600], full[600];
  snprintf(out, sizeof out, "%s/killed.csv", tu_dir());
  snprintf(full, sizeof full, "%s/whole.csv", tu_dir());
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0); /* its own group: the kill reaches the jobs too */
    freopen("/dev/null", "w", stderr);
    execl(SITS_CLI, SITS_CLI, "sweep", DEMO, "--set", "duration_s=3600", "--set",
          "solver.method=\"cvode\"", "--vary", "ambient_c=20:45:40", "-j", "2", "-o", out,
          (char *)NULL);
    _exit(127);
  }
  setpgid(pid, pid);
  cr_assert(appears("killed.csv.sits-tmp."), "the sweep never made its job files");
  nanosleep(&(struct timespec){1, 500000000}, NULL);
  kill(-pid, SIGKILL);
  int st;
  waitpid(pid, &st, 0);
  cr_assert(count_named("killed.csv.sits-tmp.") > 0, "no job file was left to resume from");
  char cmd[4096], *a, *b;
  snprintf(cmd, sizeof cmd,
           "%s sweep %s --set duration_s=3600 --set 'solver.method=\"cvode\"' --vary "
           "ambient_c=20:45:40 -j 2 -o %s --resume 2>%s/resume.err && %s sweep %s --set "
           "duration_s=3600 --set 'solver.method=\"cvode\"' --vary ambient_c=20:45:40 -j 2 "
           "-o %s 2>/dev/null",
           SITS_CLI, DEMO, out, tu_dir(), SITS_CLI, DEMO, full);
  cr_assert_eq(system(cmd), 0);
  a = tu_slurp(out), b = tu_slurp(full);
  cr_assert_str_eq(a, b, "the resumed table differs from the uninterrupted one");
  free(a), free(b);
  char err_path[700];
  snprintf(err_path, sizeof err_path, "%s/resume.err", tu_dir());
  char *msg = tu_slurp(err_path);
  size_t done = 0;
  const char *r = strstr(msg, "resuming");
  cr_assert(r && sscanf(strstr(r, ": ") + 2, "%zu", &done) == 1, "%s", msg);
  cr_log_info("%zu of 40 rows taken from the killed sweep's job files", done);
  cr_assert_gt(done, 0, "%s", msg);
  free(msg);
  cr_assert_eq(count_named("killed.csv.sits-tmp."), 0, "the dead job files remain");
}

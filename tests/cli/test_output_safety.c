/*
 * test_output_safety.c - outputs never replace what is not theirs: a symbolic link stays a
 * link (its target is replaced), a FIFO and /dev/null are written in place, an output that
 * is an input or another output is refused before any work with the input unchanged, new
 * files get the permissions the umask gives, and a failed write leaves no file behind.
 */
#include "test_util.h"

#include <sys/stat.h>
#include <sys/wait.h>

/* A scenario file in the test folder (a one-node step, 60 s). */
static const char *scenario(void) {
  return tu_write("safe.cfg", "platform = { thermal = {\n"
                              "  nodes = ( { name = \"die\"; c_j_per_k = 2.0; } );\n"
                              "  links = ( { a = \"die\"; b = \"ambient\"; r_k_per_w = 1.0; } );\n"
                              "}; };\n"
                              "workload = { phases = ( { duration_s = 60.0; power_w = { die = "
                              "5.0; }; } ); };\n"
                              "sample_period_s = 1.0;\n");
}

static int run(const char *fmt, const char *a, const char *b, char **err) {
  char args[4096];
  snprintf(args, sizeof args, fmt, scenario(), a, b);
  return tu_cli(args, NULL, err);
}

Test(output_safety, symlink_stays_a_link) {
  char link[512], target[512];
  snprintf(link, sizeof link, "%s/link.csv", tu_dir());
  snprintf(target, sizeof target, "%s/target.csv", tu_dir());
  remove(link), remove(target);
  cr_assert_eq(symlink("target.csv", link), 0);
  char *err;
  cr_assert_eq(run("run %s --quiet --csv %s%s", link, "", &err), 0, "%s", err);
  struct stat st;
  cr_assert_eq(lstat(link, &st), 0);
  cr_assert(S_ISLNK(st.st_mode), "the link was replaced by a file");
  cr_assert_eq(stat(target, &st), 0);
  cr_assert(S_ISREG(st.st_mode) && st.st_size > 100);
  char *text = tu_slurp(target);
  cr_assert(!strncmp(text, "time_s,temp_c.die", 17), "%.40s", text);
  free(text), free(err);
}

Test(output_safety, fifo_and_dev_null_written_in_place) {
  char fifo[512], copy[512];
  snprintf(fifo, sizeof fifo, "%s/out.fifo", tu_dir());
  snprintf(copy, sizeof copy, "%s/fifo_copy.csv", tu_dir());
  remove(fifo);
  cr_assert_eq(mkfifo(fifo, 0600), 0);
  pid_t reader = fork();
  if (reader == 0) { /* the consumer at the other end */
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cat %s > %s", fifo, copy);
    _exit(system(cmd) == 0 ? 0 : 1);
  }
  char *err;
  cr_assert_eq(run("run %s --quiet --csv %s%s", fifo, "", &err), 0, "%s", err);
  int st;
  cr_assert_eq(waitpid(reader, &st, 0), reader);
  struct stat sb;
  cr_assert_eq(stat(fifo, &sb), 0);
  cr_assert(S_ISFIFO(sb.st_mode), "the FIFO was replaced");
  char *text = tu_slurp(copy);
  cr_assert(!strncmp(text, "time_s,temp_c.die", 17), "%.40s", text);
  size_t lines = 0;
  for (const char *c = text; *c; c++)
    lines += *c == '\n';
  cr_assert_eq(lines, 62, "%zu lines through the FIFO", lines); /* header + 0..60 s */
  free(text), free(err);
  cr_assert_eq(run("run %s --quiet --csv %s%s", "/dev/null", "", &err), 0, "%s", err);
  cr_assert_eq(stat("/dev/null", &sb), 0);
  cr_assert(S_ISCHR(sb.st_mode), "/dev/null is no longer a device");
  free(err);
}

Test(output_safety, outputs_that_are_inputs_or_each_other) {
  char *before = tu_slurp(scenario()), *err;
  cr_assert_eq(run("run %s --csv %s%s", scenario(), "", &err), 1);
  cr_assert(strstr(err, "an output would replace the input"), "%s", err);
  char *after = tu_slurp(scenario());
  cr_assert_str_eq(before, after);
  free(err);
  char same[512];
  snprintf(same, sizeof same, "%s/same.h5", tu_dir());
  remove(same);
  char args[2048];
  snprintf(args, sizeof args, "run %s -o %s --csv %s/./same.h5", scenario(), same, tu_dir());
  cr_assert_eq(tu_cli(args, NULL, &err), 1);
  cr_assert(strstr(err, "are the same file"), "%s", err);
  struct stat sb;
  cr_assert_neq(stat(same, &sb), 0, "refused before any work: nothing written");
  free(err), free(before), free(after);
}

Test(output_safety, new_files_follow_the_umask) {
  char out[512];
  snprintf(out, sizeof out, "%s/mode.csv", tu_dir());
  mode_t old = umask(027);
  remove(out);
  char *err;
  cr_assert_eq(run("run %s --quiet --csv %s%s", out, "", &err), 0, "%s", err);
  umask(old);
  struct stat sb;
  cr_assert_eq(stat(out, &sb), 0);
  cr_assert_eq(sb.st_mode & 0777, 0640, "mode %o", (unsigned)(sb.st_mode & 0777));
  free(err);
}

Test(output_safety, failed_write_leaves_nothing) {
  char dir[512], *err;
  snprintf(dir, sizeof dir, "%s/no_such_dir/out.csv", tu_dir());
  cr_assert_eq(run("run %s --quiet --csv %s%s", dir, "", &err), 1); /* before any work */
  cr_assert(strstr(err, "no_such_dir/out.csv: no folder '") && strstr(err, "' to write it in"),
            "%s", err);
  free(err);
  cr_assert_eq(run("run %s --quiet --csv '%s'%s", "", "", &err), 1); /* before any work */
  cr_assert(strstr(err, "an output file name is empty"), "%s", err);
  free(err);
  snprintf(dir, sizeof dir, "%s", tu_dir()); /* a folder as the output */
  cr_assert_eq(run("run %s --quiet --csv %s%s", dir, "", &err), 1);
  cr_assert(strstr(err, "is a folder, not a file"), "%s", err);
  free(err);
}

/* gnuplot's messages go to stderr: with a constant power it warns "empty y2 range", which
 * used to land on stdout before the JSON summary. */
Test(output_safety, plot_messages_stay_off_stdout) {
  char args[2048], *out, *err;
  snprintf(args, sizeof args, "run %s --quiet --plot %s/constant.png --summary json", scenario(),
           tu_dir());
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  cr_assert(out[0] == '{' && strstr(out, "\"verdict\""), "stdout is not only the JSON: %.80s", out);
  cr_assert_eq(strchr(out, '\n'), out + strlen(out) - 1, "one line of JSON: %s", out);
  /* and on stderr only this program's lines: gnuplot's note on the range it widened for the
   * constant power is dropped (it leaked as "Warning: empty y2 range ..."), its others would
   * be "sitsenergy: gnuplot: ..." */
  for (const char *l = err; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
    cr_assert(strncmp(l, "sitsenergy: ", 12) == 0, "a line not ours on stderr: %s", l);
  cr_assert_null(strstr(err, "empty y2 range"), "%s", err);
  free(out), free(err);
}

/* Without gnuplot on PATH, --plot says what is missing (it said "gnuplot failed" for a script
 * gnuplot rejected too) and leaves no PNG. */
Test(output_safety, plot_without_gnuplot_says_so) {
  char cmd[4096], path[1024];
  snprintf(
      cmd, sizeof cmd,
      "PATH=/nonexistent %s run %s --quiet --plot %s/nognuplot.png > /dev/null 2> %s/nognuplot.err",
      SITS_CLI, scenario(), tu_dir(), tu_dir());
  int st = system(cmd);
  cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1, "exit %d", st);
  snprintf(path, sizeof path, "%s/nognuplot.err", tu_dir());
  char *err = tu_slurp(path);
  cr_assert(strstr(err, "nognuplot.png: no gnuplot to draw it (apt-get install gnuplot-nox)"), "%s",
            err);
  free(err);
  struct stat sb;
  snprintf(path, sizeof path, "%s/nognuplot.png", tu_dir());
  cr_assert_neq(stat(path, &sb), 0, "a PNG was left");
}

/* Two sweeps to one output at the same time: each writes its own uniquely named job files,
 * both finish with the whole table, and no temporary file is left (they used to share
 * OUT.tmp and OUT.jobN.tmp and one lost its rows). A file planted at the old fixed job name
 * is left alone. */
Test(output_safety, concurrent_sweeps_to_one_output) {
  char out[512], planted[600], args[4096], cmd[9000];
  snprintf(out, sizeof out, "%s/sweep.csv", tu_dir());
  snprintf(planted, sizeof planted, "%s.job0.tmp", out);
  FILE *p = fopen(planted, "w");
  fputs("not the sweep's\n", p);
  fclose(p);
  snprintf(args, sizeof args,
           "sweep %s --vary ambient_c=20:40:5 --vary "
           "'platform.thermal.links.[0].r_k_per_w=0.5,1.0' -j 2 -o %s",
           scenario(), out);
  snprintf(cmd, sizeof cmd, "(%s %s & %s %s; wait) 2>%s/sweeps.err", SITS_CLI, args, SITS_CLI, args,
           tu_dir());
  cr_assert_eq(system(cmd), 0);
  char *text = tu_slurp(out);
  size_t lines = 0;
  for (const char *c = text; *c; c++)
    lines += *c == '\n';
  cr_assert_eq(lines, 11, "header + 10 rows, got %zu:\n%s", lines, text);
  const char *head = "index,config_hash,ambient_c,platform.thermal.links.[0].r_k_per_w,end_reason";
  cr_assert(!strncmp(text, head, strlen(head)), "%s", text);
  free(text);
  char *kept = tu_slurp(planted);
  cr_assert_str_eq(kept, "not the sweep's\n");
  free(kept);
  snprintf(cmd, sizeof cmd, "ls %s | grep -c 'sweep\\.csv\\.sits-tmp\\.'", tu_dir());
  FILE *ls = popen(cmd, "r");
  int left = -1;
  cr_assert_eq(fscanf(ls, "%d", &left), 1);
  pclose(ls);
  cr_assert_eq(left, 0, "temporary files left beside the output");
}

/* Fields of a CSV line, quotes honoured. */
static size_t csv_fields(const char *line) {
  size_t n = 1;
  bool quoted = false;
  for (const char *c = line; *c && *c != '\n'; c++) {
    if (*c == '"')
      quoted = !quoted;
    else if (*c == ',' && !quoted)
      n++;
  }
  return n;
}

/* A combination that fails has as many fields as the header, its message in the error
 * column (it had one field less and the message under verdict_ok). */
Test(output_safety, failed_sweep_row_keeps_the_columns) {
  char out[512], args[4096], *o, *err;
  snprintf(out, sizeof out, "%s/failing.csv", tu_dir());
  snprintf(args, sizeof args, "sweep %s --vary 'platform.thermal.links.[0].r_k_per_w=-1,0.5' -o %s",
           scenario(), out);
  cr_assert_eq(tu_cli(args, &o, &err), 1, "%s", err);
  char *text = tu_slurp(out);
  char *row1 = strchr(text, '\n') + 1, *row2 = strchr(row1, '\n') + 1;
  size_t header = csv_fields(text);
  cr_assert_eq(header, 43); /* index, config_hash, one varied key, 40 result columns */
  cr_assert_eq(csv_fields(row1), header, "%s", row1);
  cr_assert_eq(csv_fields(row2), header, "%s", row2);
  const char *last = strrchr(strtok(row1, "\n"), ',');
  cr_assert(strstr(last, "r_k_per_w must be > 0"), "the message is not in the last column: %s",
            row1);
  free(text), free(o), free(err);
}

/* A folder the process may not write to: the run fails before replacing anything, with the
 * file and the reason, and leaves no temporary file; the file already there is intact. (Root
 * may write to any folder: then the write succeeds, which is checked instead.) */
Test(output_safety, read_only_folder) {
  char dir[512], out[600], args[2048], *err;
  snprintf(dir, sizeof dir, "%s/ro", tu_dir());
  snprintf(out, sizeof out, "%s/kept.csv", dir);
  cr_assert_eq(mkdir(dir, 0755), 0);
  FILE *f = fopen(out, "w");
  fputs("old contents\n", f);
  fclose(f);
  cr_assert_eq(chmod(dir, 0555), 0);
  bool writable = access(dir, W_OK) == 0; /* root */
  snprintf(args, sizeof args, "run %s --quiet --csv %s", scenario(), out);
  int code = tu_cli(args, NULL, &err);
  char *text = tu_slurp(out);
  if (writable) {
    cr_assert_eq(code, 0, "%s", err);
    cr_assert(!strncmp(text, "time_s,", 7), "%.40s", text);
  } else {
    cr_assert_eq(code, 1);
    cr_assert(strstr(err, "kept.csv: cannot create: Permission denied"), "%s", err);
    cr_assert_str_eq(text, "old contents\n");
  }
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "ls -A %s | grep -c sits-tmp", dir);
  FILE *ls = popen(cmd, "r");
  int left = -1;
  cr_assert_eq(fscanf(ls, "%d", &left), 1);
  pclose(ls);
  cr_assert_eq(left, 0, "a temporary file was left in the folder");
  chmod(dir, 0755);
  free(err), free(text);
}

/* --plot draws through uniquely named temporary files: files of the user's at the old fixed
 * names (q.png.data.csv, q.png.tmp.png) are left alone, a link to the PNG stays a link, and
 * no temporary file remains. */
Test(output_safety, plot_touches_nothing_of_the_users) {
  char data[600], tmp[600], link[600], target[600], args[4096], *err;
  snprintf(data, sizeof data, "%s/q.png.data.csv", tu_dir());
  snprintf(tmp, sizeof tmp, "%s/q.png.tmp.png", tu_dir());
  snprintf(link, sizeof link, "%s/q.png", tu_dir());
  snprintf(target, sizeof target, "%s/real.png", tu_dir());
  FILE *f = fopen(data, "w");
  fputs("mine\n", f);
  fclose(f);
  f = fopen(tmp, "w");
  fputs("mine too\n", f);
  fclose(f);
  cr_assert_eq(symlink("real.png", link), 0);
  snprintf(args, sizeof args, "run %s --quiet --plot %s", scenario(), link);
  cr_assert_eq(tu_cli(args, NULL, &err), 0, "%s", err);
  char *a = tu_slurp(data), *b = tu_slurp(tmp), *png = tu_slurp(target);
  cr_assert_str_eq(a, "mine\n");
  cr_assert_str_eq(b, "mine too\n");
  cr_assert(!strncmp(png, "\x89PNG", 4), "the link's target is not a PNG");
  struct stat st;
  cr_assert_eq(lstat(link, &st), 0);
  cr_assert(S_ISLNK(st.st_mode), "the link was replaced");
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "ls -A %s | grep -c 'sits-tmp'", tu_dir());
  FILE *ls = popen(cmd, "r");
  int left = -1;
  cr_assert_eq(fscanf(ls, "%d", &left), 1);
  pclose(ls);
  cr_assert_eq(left, 0);
  free(a), free(b), free(png), free(err);
}

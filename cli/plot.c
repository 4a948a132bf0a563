/*
 * plot.c - PNG plots of a run through gnuplot: node temperatures on the left axis, total
 * power (as steps) on the right. The series come from a temporary CSV of the run; the
 * PNG is written under a temporary name and renamed when gnuplot succeeds.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "sits_sim.h"

static void gp_quote(FILE *gp, const char *s) { /* gnuplot single-quoted string */
  fputc('\'', gp);
  for (; *s; s++)
    fputs(*s == '\'' ? "''" : (char[]){*s, 0}, gp);
  fputc('\'', gp);
}

static int run_gnuplot(const char *csv, size_t n_nodes, const char *title, const char *png) {
  FILE *gp = popen("gnuplot 2>&1 >/dev/null", "w");
  if (!gp)
    return -1;
  fprintf(gp, "set terminal pngcairo size 1200,700 font 'sans,11'\nset output ");
  gp_quote(gp, png);
  fprintf(gp, "\nset termoption noenhanced\nset autoscale xfix\n"
              "set datafile separator ','\nset key outside right top autotitle columnhead\n"
              "set xlabel 'time (s)'\nset ylabel 'temperature (C)'\n"
              "set y2label 'total power (W)'\nset ytics nomirror\nset y2tics\nset grid\n"
              "set title ");
  gp_quote(gp, title);
  fprintf(gp, " noenhanced\nplot for [i=2:%zu] ", n_nodes + 1);
  gp_quote(gp, csv);
  fprintf(gp, " using 1:i with lines lw 2, ");
  gp_quote(gp, csv);
  fprintf(gp, " using 1:%zu axes x1y2 with steps lc rgb '#909090' title 'power_w.total'\n",
          2 * n_nodes + 2);
  int st = pclose(gp);
  return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

int cli_plot_run(const sits_scenario *sc, const sits_result *r, const char *title,
                 const char *png) {
  char csv[4096], tmp_png[4096];
  snprintf(csv, sizeof csv, "%s.data.csv", png);
  snprintf(tmp_png, sizeof tmp_png, "%s.tmp.png", png);
  sits_err err = {0};
  int rc = sits_write_csv(sc, r, csv, &err);
  if (rc)
    return cli_fail(rc, &err);
  size_t n = sits_thermal_node_count(sits_scenario_thermal(sc));
  int ok = run_gnuplot(csv, n, title, tmp_png) == 0 && rename(tmp_png, png) == 0;
  remove(csv);
  if (!ok) {
    remove(tmp_png);
    cli_error("%s: gnuplot failed (is gnuplot installed? apt-get install gnuplot-nox)", png);
    return EXIT_INPUT;
  }
  return EXIT_OK;
}

/*
 * plot.c - PNG plots through gnuplot: a run (node temperatures, total power as steps on the
 * right axis), a replay (measured against simulated per sensor, power on the right) and a
 * battery calibration (measured against fitted voltage, current on the right). Each writes
 * its series to a temporary CSV beside the PNG and pipes a script to gnuplot (paths quoted,
 * never through a shell); gnuplot draws into a temporary PNG that the safe writer then puts in
 * place (a link followed, a device written in place). The temporary files have unique names
 * (PNG.sits-tmp.PID.data.XXXXXX, ...png.XXXXXX): nothing of the user's is touched.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "sits_calibrate.h"
#include "sits_output.h"
#include "sits_replay.h"
#include "sits_trace.h"
#include "sits_sim.h"
#include "sits_writers.h"

static void gp_quote(FILE *gp, const char *s) { /* gnuplot single-quoted string */
  fputc('\'', gp);
  for (; *s; s++)
    fputs(*s == '\'' ? "''" : (char[]){*s, 0}, gp);
  fputc('\'', gp);
}

typedef struct plot_spec {
  size_t height_px;
  /** Writes the series into @p csv. */
  int (*write_csv)(const void *arg, const char *csv, sits_err *err);
  /** Writes the plot commands after the common set-up (terminal, output, CSV, grid). */
  void (*script)(FILE *gp, const void *arg, const char *csv);
} plot_spec;

/* gnuplot's messages (held in @p f) on stderr as this program's lines, "sitsenergy: gnuplot:
 * ...", but for the notes on a range it widened itself (a constant series: "Warning: empty y2
 * range [2.5:2.5], adjusting to [2.475:2.525]"), which say nothing to the user. */
static void relay_messages(FILE *f) {
  char line[1024];
  rewind(f);
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    if (!*line || (strstr(line, "Warning: empty") && strstr(line, "range")))
      continue;
    cli_error("gnuplot: %s", line);
  }
}

static int gnuplot(const plot_spec *p, const void *arg, const char *csv, const char *tmp_png) {
  /* a gnuplot that is missing or stops early closes the pipe: the writes then fail (EPIPE)
   * instead of killing the program with SIGPIPE, and pclose's status says what happened */
  struct sigaction ignore = {.sa_handler = SIG_IGN}, before;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGPIPE, &ignore, &before);
  /* its messages into a file of their own (its stderr from the fork), relayed after */
  FILE *msgs = tmpfile();
  int saved = msgs ? dup(STDERR_FILENO) : -1;
  fflush(stderr);
  if (saved >= 0)
    dup2(fileno(msgs), STDERR_FILENO);
  FILE *gp = popen("gnuplot 1>&2", "w"); /* stdout holds results only */
  if (saved >= 0) {
    dup2(saved, STDERR_FILENO);
    close(saved);
  }
  if (!gp) {
    sigaction(SIGPIPE, &before, NULL);
    if (msgs)
      fclose(msgs);
    return -1;
  }
  fprintf(gp, "set terminal pngcairo size 1200,%zu font 'sans,11'\nset output ", p->height_px);
  gp_quote(gp, tmp_png);
  fputs("\nset termoption noenhanced\nset datafile separator ','\nset key autotitle columnhead\n"
        "set grid\nset ytics nomirror\nset y2tics\nset xlabel 'time (s)'\n",
        gp);
  p->script(gp, arg, csv);
  int st = pclose(gp);
  sigaction(SIGPIPE, &before, NULL);
  int code = st != -1 && WIFEXITED(st) ? (WEXITSTATUS(st) == 127 ? 127 /* no gnuplot */
                                          : WEXITSTATUS(st) == 0 ? 0
                                                                 : -1)
                                       : -1;
  if (msgs) {
    if (code != 127) /* the shell's "not found": said by the caller */
      relay_messages(msgs);
    fclose(msgs);
  }
  return code;
}

/* Copies the finished file @p from into the output @p png through the safe writer. */
static int put_png(const char *from, const char *png, sits_err *err) {
  FILE *in = fopen(from, "rb");
  sits_output *o = in ? sits_output_open(png, err) : NULL;
  char buf[65536];
  size_t n;
  bool ok = o != NULL;
  while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
    ok = fwrite(buf, 1, n, sits_output_file(o)) == n;
  if (in)
    fclose(in);
  return o ? sits_output_close(o, ok, err) : SITS_EIO;
}

static int plot_png(const plot_spec *p, const void *arg, const char *png) {
  char csv[4200], tmp_png[4200];
  sits_err err = {0};
  int fd_csv = sits_output_temp(png, "data.", csv, sizeof csv, &err);
  int fd_png = fd_csv < 0 ? -1 : sits_output_temp(png, "png.", tmp_png, sizeof tmp_png, &err);
  if (fd_csv >= 0)
    close(fd_csv);
  if (fd_png < 0) {
    if (fd_csv >= 0)
      remove(csv);
    return cli_fail(SITS_EIO, &err);
  }
  close(fd_png);
  int rc = p->write_csv(arg, csv, &err);
  if (rc) {
    remove(csv), remove(tmp_png);
    return cli_fail(rc, &err);
  }
  int gst = gnuplot(p, arg, csv, tmp_png);
  remove(csv);
  rc = gst == 0 ? put_png(tmp_png, png, &err) : SITS_EIO;
  remove(tmp_png);
  if (gst == 127) {
    cli_error("%s: no gnuplot to draw it (apt-get install gnuplot-nox)", png);
    return EXIT_INPUT;
  }
  if (gst != 0) {
    cli_error("%s: gnuplot could not draw it (its messages above)", png);
    return EXIT_INPUT;
  }
  return rc ? cli_fail(rc, &err) : EXIT_OK;
}

/* ---- a run ---- */

typedef struct run_arg {
  const sits_scenario *sc;
  const sits_result *r;
  const char *title;
} run_arg;

static int run_csv(const void *p, const char *csv, sits_err *err) {
  const run_arg *a = p;
  return sits_write_csv(a->sc, a->r, csv, err);
}

#define THROTTLE_COLOUR "#f6c9c4" /* a run's thermal throttling, shaded */
#define CAP_COLOUR "#f3e2b3"      /* the power cap in force, shaded */
#define EVENT_COLOUR "#7b1fa2"    /* events that end or endanger a run: lines, labels */
#define RUN_PLOT_NODES 10 /* more nodes (a floorplan's blocks): the hottest, so the key fits */

/* The nodes a run's plot draws: all, or of more than RUN_PLOT_NODES the hottest by their peak
 * (in the network's order); their count. */
static size_t plotted_nodes(const sits_result *r, size_t n, size_t *pick) {
  size_t cols = 0, ns = sits_result_sample_count(r);
  const double *t = sits_result_series(r, "temp_c", &cols);
  if (n <= RUN_PLOT_NODES || !t || cols != n || ns == 0) {
    for (size_t k = 0; k < n && k < RUN_PLOT_NODES; k++)
      pick[k] = k;
    return n <= RUN_PLOT_NODES ? n : 0; /* 0: draw them all (no series to rank by) */
  }
  double peak[RUN_PLOT_NODES];
  size_t m = 0;
  for (size_t k = 0; k < n; k++) {
    double hi = -INFINITY;
    for (size_t i = 0; i < ns; i++)
      hi = fmax(hi, t[i * cols + k]);
    size_t at = m < RUN_PLOT_NODES ? m++ : RUN_PLOT_NODES; /* insertion into the top list */
    while (at > 0 && hi > peak[at - 1]) {
      if (at < RUN_PLOT_NODES)
        peak[at] = peak[at - 1], pick[at] = pick[at - 1];
      at--;
    }
    if (at < RUN_PLOT_NODES)
      peak[at] = hi, pick[at] = k;
  }
  for (size_t i = 1; i < m; i++) /* back into the network's order */
    for (size_t j = i; j > 0 && pick[j] < pick[j - 1]; j--) {
      size_t x = pick[j];
      pick[j] = pick[j - 1], pick[j - 1] = x;
    }
  return m;
}

static int column_of(const char *header, const char *name);

/* The CSV's header line (malloc'd; NULL when it cannot be read). */
static char *csv_header(const char *csv) {
  FILE *f = fopen(csv, "r");
  char *line = NULL;
  size_t cap = 0;
  if (f && getline(&line, &cap, f) < 0) {
    free(line);
    line = NULL;
  }
  if (f)
    fclose(f);
  return line;
}

/* The lower panel of a run's plot: each domain's clock as steps and the battery's SOC on a
 * second axis, their columns found by name in the CSV's header (has_lower_panel: whether
 * there is any). */
static void run_lower_panel(FILE *gp, const run_arg *a, const char *csv, const char *header) {
  size_t nd = 0;
  const sits_domain *d = sits_scenario_domains(a->sc, &nd);
  int soc = column_of(header, "battery.soc");
  fprintf(gp, "set title '%s' noenhanced\nset ylabel 'frequency (MHz)'\nset yrange [0:*]\n",
          soc >= 0 ? "clocks and battery" : "clocks");
  fputs(soc >= 0 ? "set y2label 'battery SOC'\nset y2range [0:1]\nset y2tics\n"
                 : "unset y2label\nunset y2tics\n",
        gp);
  fputs("plot ", gp);
  bool first = true;
  for (size_t k = 0; k < nd; k++) {
    char name[96];
    snprintf(name, sizeof name, "freq_mhz.%s", d[k].name);
    int col = column_of(header, name);
    if (col < 0)
      continue;
    fputs(first ? "" : ", ", gp);
    gp_quote(gp, csv);
    fprintf(gp, " using 1:%d with steps lw 2", col + 1);
    first = false;
  }
  if (soc >= 0) {
    fputs(first ? "" : ", ", gp);
    gp_quote(gp, csv);
    fprintf(gp, " using 1:%d axes x1y2 with lines lw 2 dt 2 lc rgb 'black'", soc + 1);
  }
  fputc('\n', gp);
}

/* Whether the CSV has a column the lower panel draws. */
static bool has_lower_panel(const run_arg *a, const char *header) {
  size_t nd = 0;
  const sits_domain *d = sits_scenario_domains(a->sc, &nd);
  bool any = header && column_of(header, "battery.soc") >= 0;
  for (size_t k = 0; header && !any && k < nd; k++) {
    char name[96];
    snprintf(name, sizeof name, "freq_mhz.%s", d[k].name);
    any = column_of(header, name) >= 0;
  }
  return any;
}

static void run_upper_panel(FILE *gp, const run_arg *a, const char *csv, bool thermal, bool cap);

#define RUN_PLOT_SPANS 200 /* shaded spans a kind at most (closer ones merged) */

/* Shades the spans between an event kind @p on and its end @p off (a span still open at the
 * end runs to the last sample) behind both panels, in @p colour; spans closer than 1/400 of
 * the run (under a pixel or two) are merged, more so until at most RUN_PLOT_SPANS remain.
 * Returns whether any span was drawn. */
static bool run_spans(FILE *gp, const sits_result *r, const char *on, const char *off,
                      const char *colour, double t0, double t1) {
  size_t ne = sits_result_event_count(r), n = 0;
  double(*span)[2] = malloc((ne + 1) * sizeof *span), start = NAN;
  for (size_t k = 0; span && k < ne; k++) {
    const sits_event *e = sits_result_event(r, k);
    if (strcmp(e->kind, on) == 0 && isnan(start))
      start = e->time_s;
    else if (strcmp(e->kind, off) == 0 && !isnan(start))
      span[n][0] = start, span[n++][1] = e->time_s, start = NAN;
  }
  if (span && !isnan(start))
    span[n][0] = start, span[n++][1] = t1;
  for (double gap = (t1 - t0) / 400.0; span && n > 0; gap *= 2.0) {
    size_t m = 0; /* merge the spans whose gap is under `gap` */
    for (size_t k = 1; k < n; k++)
      if (span[k][0] - span[m][1] < gap)
        span[m][1] = span[k][1];
      else
        m++, span[m][0] = span[k][0], span[m][1] = span[k][1];
    n = m + 1;
    if (n <= RUN_PLOT_SPANS)
      break;
  }
  for (size_t k = 0; span && k < n; k++)
    fprintf(gp,
            "set object rect from %.10g, graph 0 to %.10g, graph 1 fc rgb '%s' fs solid 1.0 "
            "noborder behind\n",
            span[k][0], fmax(span[k][1], span[k][0] + (t1 - t0) / 1000.0), colour);
  free(span);
  return n > 0;
}

/* A dashed vertical line and a label at each event that ends or endangers the run (a node
 * past its critical temperature, the battery's cutoff, empty or brown-out), the first 20. */
static void run_event_lines(FILE *gp, const sits_result *r) {
  static const char *const kinds[][2] = {{"critical_temp", "critical"},
                                         {"battery_cutoff", "cutoff"},
                                         {"battery_empty", "empty"},
                                         {"brownout", "brown-out"}};
  size_t shown = 0;
  for (size_t k = 0; k < sits_result_event_count(r) && shown < 20; k++) {
    const sits_event *e = sits_result_event(r, k);
    for (size_t j = 0; j < sizeof kinds / sizeof kinds[0]; j++)
      if (strcmp(e->kind, kinds[j][0]) == 0) {
        fprintf(gp,
                "set arrow from %.10g, graph 0 to %.10g, graph 1 nohead lc rgb '" EVENT_COLOUR
                "' dt 3 "
                "lw 1.5 front\nset label ",
                e->time_s, e->time_s);
        gp_quote(gp, kinds[j][1]);
        fprintf(gp,
                " at %.10g, graph 0.97 rotate by 90 right offset -0.6, 0 front noenhanced tc rgb "
                "'" EVENT_COLOUR "'\n",
                e->time_s);
        shown++;
      }
  }
}

/* The run's marks behind (throttling: thermal red, the power cap amber) and on top of both
 * panels (events that end or endanger the run); *thermal, *cap: whether those are drawn (the
 * upper panel's key names them). */
static void run_marks(FILE *gp, const sits_result *r, bool *thermal, bool *cap) {
  size_t ns = sits_result_sample_count(r);
  const double *t = sits_result_time_s(r);
  *thermal = *cap = false;
  if (ns < 2 || !t)
    return;
  *thermal = run_spans(gp, r, "throttle_start", "throttle_end", THROTTLE_COLOUR, t[0], t[ns - 1]);
  *cap = run_spans(gp, r, "cap_active", "cap_released", CAP_COLOUR, t[0], t[ns - 1]);
  run_event_lines(gp, r);
}

/* The widest key title (in characters) of a run's two panels: the plotted nodes, the domains'
 * clocks, the peak's band, the limit and the fixed titles. */
static size_t run_key_chars(const run_arg *a) {
  const sits_thermal *th = sits_scenario_thermal(a->sc);
  size_t n = sits_thermal_node_count(th), pick[RUN_PLOT_NODES], w = strlen("thermal throttling");
  size_t n_pick = plotted_nodes(a->r, n, pick);
  for (size_t k = 0; k < (n_pick ? n_pick : n); k++) {
    const char *name = sits_thermal_name(th, (int)(n_pick ? pick[k] : k));
    size_t len = strlen("temp_c.") + (name ? strlen(name) : 0);
    w = len > w ? len : w;
  }
  size_t nd = 0;
  const sits_domain *d = sits_scenario_domains(a->sc, &nd);
  for (size_t k = 0; k < nd; k++) {
    size_t len = strlen("freq_mhz.") + strlen(d[k].name);
    w = len > w ? len : w;
  }
  const sits_band *band = sits_result_band(a->r);
  const sits_summary *s = sits_result_summary(a->r);
  if (band && band->set && s) { /* as run_upper_panel titles it */
    char t[96];
    size_t len = (size_t)snprintf(t, sizeof t, "Tj peak %.2f +- %.2f C (95 %% band)",
                                  s->max_junction_temp_c, band->max_junction_temp_half_width_c);
    w = len > w ? len : w;
  }
  return w;
}

/* Key characters that fit right of a multiplot's plot area at RUN_RMARGIN; each one more takes
 * about RUN_KEY_CHAR of the width (the PNG's font at its 1200-pixel width: 7.1 px), the plot
 * area no narrower than to RUN_RMARGIN_MIN (a longer title then runs over the y2 label). */
#define RUN_RMARGIN 0.74
#define RUN_KEY_FITS 24
#define RUN_KEY_CHAR 0.006
#define RUN_RMARGIN_MIN 0.45

static void run_script(FILE *gp, const void *p, const char *csv) {
  const run_arg *a = p;
  char *header = csv_header(csv);
  bool lower = has_lower_panel(a, header);
  fputs("set autoscale xfix\nset offsets 0, 0, graph 0.05, graph 0.05\nset key outside right top\n",
        gp);
  if (lower) { /* the panels' plot areas aligned, and room for the wider key */
    size_t key = run_key_chars(a);
    double right =
        RUN_RMARGIN - (key > RUN_KEY_FITS ? (double)(key - RUN_KEY_FITS) : 0.0) * RUN_KEY_CHAR;
    fprintf(gp,
            "set multiplot layout 2,1\nset lmargin at screen 0.07\nset rmargin at screen %.3f\n",
            right > RUN_RMARGIN_MIN ? right : RUN_RMARGIN_MIN);
  }
  bool thermal, cap;
  run_marks(gp, a->r, &thermal, &cap);
  run_upper_panel(gp, a, csv, thermal, cap);
  if (lower) {
    fputs("set autoscale y\nset autoscale y2\nset offsets 0, 0, graph 0.05, 0\n", gp);
    run_lower_panel(gp, a, csv, header);
    fputs("unset multiplot\n", gp);
  }
  free(header);
}

/* The upper panel: node temperatures (the hottest of many), the limit, a calibrated scenario's
 * peak band, the total power on a second axis; the key names the shaded throttling. */
static void run_upper_panel(FILE *gp, const run_arg *a, const char *csv, bool thermal, bool cap) {
  size_t n = sits_thermal_node_count(sits_scenario_thermal(a->sc)), pick[RUN_PLOT_NODES];
  size_t n_pick = plotted_nodes(a->r, n, pick);
  fputs("set ylabel 'temperature (C)'\n"
        "set y2label 'total power (W)'\nset title ",
        gp);
  gp_quote(gp, a->title);
  if (n_pick && n_pick < n)
    fprintf(gp, " . ' (the %zu hottest of %zu nodes)'", n_pick, n);
  fputs(" noenhanced\nplot ", gp);
  if (thermal) /* key entries for the shaded spans (the spans are objects: no key of their own) */
    fputs("NaN with boxes fc rgb '" THROTTLE_COLOUR "' fs solid 1.0 noborder "
          "title 'thermal throttling', ",
          gp);
  if (cap)
    fputs("NaN with boxes fc rgb '" CAP_COLOUR "' fs solid 1.0 noborder title 'power cap', ", gp);
  /* the total power first, light, so that a chattering governor's steps do not hide the
   * temperatures drawn over it */
  gp_quote(gp, csv);
  fprintf(gp, " using 1:%zu axes x1y2 with steps lc rgb '#b8b8b8' title 'power_w.total', ",
          2 * n + 2);
  /* drawn as curves, so the axis takes them in: the peak's 95 % band, the junction limit */
  const sits_band *band = sits_result_band(a->r);
  const sits_summary *s = sits_result_summary(a->r);
  if (band && band->set && s && isfinite(s->max_junction_temp_c) &&
      isfinite(band->max_junction_temp_half_width_c)) {
    gp_quote(gp, csv);
    fprintf(gp,
            " using 1:(%.9g):(%.9g) with filledcurves fc rgb '#c8d8f0' fs solid 0.7 noborder "
            "title 'Tj peak %.2f +- %.2f C (95 %% band)', ",
            s->max_junction_temp_c - band->max_junction_temp_half_width_c,
            s->max_junction_temp_c + band->max_junction_temp_half_width_c, s->max_junction_temp_c,
            band->max_junction_temp_half_width_c);
  }
  const sits_limits *lim = sits_scenario_limits(a->sc);
  if (lim && isfinite(lim->max_junction_temp_c))
    fprintf(gp, "%.9g with lines dt 2 lw 2 lc rgb '#c03030' title 'junction limit %.4g C', ",
            lim->max_junction_temp_c, lim->max_junction_temp_c);
  if (n_pick == 0 || n_pick == n) {
    fprintf(gp, "for [i=2:%zu] ", n + 1);
    gp_quote(gp, csv);
    fputs(" using 1:i with lines lw 2", gp);
  } else
    for (size_t k = 0; k < n_pick; k++) {
      fputs(k ? ", " : "", gp);
      gp_quote(gp, csv);
      fprintf(gp, " using 1:%zu with lines lw 2", pick[k] + 2);
    }
  fputc('\n', gp);
}

int cli_plot_run(const sits_scenario *sc, const sits_result *r, const char *title,
                 const char *png) {
  size_t nd = 0;
  sits_scenario_domains(sc, &nd);
  /* a second panel (clocks, battery) below when the run has either */
  plot_spec spec = {nd || sits_scenario_battery(sc) ? 1000 : 700, run_csv, run_script};
  run_arg a = {sc, r, title};
  return plot_png(&spec, &a, png);
}

/* ---- a replay: one panel per sensor ---- */

/* Each phase's row runs shaded behind the curves, labelled once, a colour per phase. */
static void replay_phases(FILE *gp, const sits_replay *r) {
  static const char *fill[] = {"#dde6ff", "#ffe2cc", "#dff3dd", "#f3dcf0", "#f6f2c8"};
  const sits_trace *t = r->trace;
  int c = -1, obj = 1;
  for (size_t p = 0; p < r->n_phases; p++) {
    char name[80];
    snprintf(name, sizeof name, "phase.%s", r->phases[p].label);
    if ((c = sits_trace_column(t, name)) < 0)
      continue;
    bool labelled = false;
    for (size_t row = 0; row < t->n_rows; row++) {
      if (sits_trace_at(t, row, (size_t)c) < 0.5)
        continue;
      size_t end = row;
      while (end + 1 < t->n_rows && sits_trace_at(t, end + 1, (size_t)c) >= 0.5)
        end++;
      double t0 = sits_trace_at(t, row, 0);
      double t1 = end + 1 < t->n_rows ? sits_trace_at(t, end + 1, 0) : r->duration_s;
      fprintf(gp,
              "set object %d rect from %.9g, graph 0 to %.9g, graph 1 fc rgb '%s' "
              "fs solid 0.6 noborder behind\n",
              obj++, t0, t1, fill[p % 5]);
      if (!labelled) {
        fprintf(gp, "set label %d ", obj);
        gp_quote(gp, r->phases[p].label);
        fprintf(gp, " at %.9g, graph %.2f font ',8'\n", t0, 0.97 - 0.05 * (double)(p % 5));
        labelled = true;
      }
      row = end;
    }
  }
}

/* A replay with the time the fit's training part ends (NAN: none). */
typedef struct replay_plot {
  const sits_replay *r;
  double split_s;
} replay_plot;

static int replay_plot_csv(const void *p, const char *csv, sits_err *err) {
  return sits_replay_write_csv(((const replay_plot *)p)->r, csv, err);
}

static void replay_script(FILE *gp, const void *p, const char *csv) {
  const replay_plot *rp = p;
  const sits_replay *r = rp->r;
  fprintf(gp,
          "set multiplot layout %zu,1\nset ylabel 'temperature (C)'\nset y2label 'power (W)'\n"
          "set key top left Left reverse opaque font ',9'\nset autoscale xfix\n",
          r->n_sensors);
  replay_phases(gp, r);
  if (isfinite(rp->split_s)) /* where the fit's training part ends */
    fprintf(gp,
            "set arrow from %.9g, graph 0 to %.9g, graph 1 nohead dt 2 lc rgb '#606060'\n"
            "set label 'fitted | held out' at %.9g, graph 0.04 center font ',8'\n",
            rp->split_s, rp->split_s, rp->split_s);
  size_t band0 = 3 + 2 * r->n_sensors; /* the band's columns follow the power */
  for (size_t k = 0; k < r->n_sensors; k++) {
    fputs("plot ", gp);
    gp_quote(gp, csv);
    if (r->band_c && k < SITS_REPLAY_MAX_BAND_SENSORS) /* drawn first: behind the curves */
      fprintf(gp,
              " using 1:($%zu-$%zu):($%zu+$%zu) with filledcurves fc rgb '#c8d8f0' "
              "fs solid 0.7 noborder title '95 %% band', ''",
              3 + 2 * k, band0 + k, 3 + 2 * k, band0 + k);
    fprintf(gp,
            " using 1:%zu with points pt 7 ps 0.3, '' using 1:%zu with lines lw 2, "
            "'' using 1:%zu axes x1y2 with lines lc rgb '#a0a0a0'\n",
            2 + 2 * k, 3 + 2 * k, 2 + 2 * r->n_sensors);
  }
  fputs("unset multiplot\n", gp);
}

int cli_plot_replay(const sits_replay *r, const char *png) {
  return cli_plot_replay_split(r, NAN, png);
}

int cli_plot_replay_split(const sits_replay *r, double split_s, const char *png) {
  replay_plot rp = {r, split_s};
  plot_spec spec = {300 + 300 * r->n_sensors, replay_plot_csv, replay_script};
  return plot_png(&spec, &rp, png);
}

/* ---- a battery calibration: voltage measured and fitted, current on the right ---- */

static int calibration_csv(const void *cal, const char *csv, sits_err *err) {
  return sits_write_calibration_csv(cal, csv, err);
}

static void calibration_script(FILE *gp, const void *cal, const char *csv) {
  (void)cal;
  /* the current first, light, so that the voltages are drawn over it; the measured voltage
   * in two colours, fitted and held out; the model dashed over both */
  fputs("set autoscale xfix\nset ylabel 'voltage (V)'\nset y2label 'current (A, discharge > 0)'\n"
        "set key outside right top\nplot ",
        gp);
  gp_quote(gp, csv);
  fputs(" using 1:4 axes x1y2 with lines lw 1 lc rgb '#c8c8c8' title 'current_a', "
        "'' using 1:(column(5) == 0 ? $2 : NaN) with lines lw 2 lc rgb '#1f5fa8' "
        "title 'measured (fitted)', "
        "'' using 1:(column(5) == 1 ? $2 : NaN) with lines lw 2 lc rgb '#d07010' "
        "title 'measured (held out)', "
        "'' using 1:3 with lines lw 1.5 dt 2 lc rgb 'black' title 'model_voltage_v'\n",
        gp);
}

int cli_plot_calibration(const sits_calibration *cal, const char *png) {
  static const plot_spec spec = {700, calibration_csv, calibration_script};
  return plot_png(&spec, cal, png);
}

/* ---- a sweep: outputs over one key, a heat map over two, distributions of a sampled one ---- */

/* An axis label for a key or column: its last part's words and its unit suffix as a unit
 * ("max_junction_temp_c" -> "max junction temp (C)", "platform.thermal.links.[2].r_k_per_w" ->
 * "platform.thermal.links.[2].r (K/W)"), quoted for gnuplot. */
static void gp_label(FILE *gp, const char *name) {
  static const char *const units[][2] = {
      {"_k_per_w", "K/W"}, {"_j_per_k", "J/K"}, {"_w_per_k", "W/K"}, {"_j_per_mol", "J/mol"},
      {"_mhz", "MHz"},     {"_hz", "Hz"},       {"_mj", "mJ"},       {"_ms", "ms"},
      {"_wh", "Wh"},       {"_ah", "Ah"},       {"_mv", "mV"},       {"_ohm", "ohm"},
      {"_c", "C"},         {"_w", "W"},         {"_s", "s"},         {"_j", "J"},
      {"_v", "V"},         {"_a", "A"},         {"_k", "K"}};
  char buf[512];
  snprintf(buf, sizeof buf, "%s", name);
  const char *unit = NULL;
  size_t len = strlen(buf);
  for (size_t k = 0; k < sizeof units / sizeof units[0] && !unit; k++) {
    size_t n = strlen(units[k][0]);
    const char *dot = strrchr(buf, '.');
    size_t last = dot ? (size_t)(dot - buf) + 1 : 0; /* the suffix must leave a word before it */
    if (len > last + n && strcmp(buf + len - n, units[k][0]) == 0)
      unit = units[k][1], buf[len - n] = '\0';
  }
  size_t left = strlen(buf);
  char per[32];
  if (unit && left > 4 && strcmp(buf + left - 4, "_per") == 0) { /* items_per_s: a rate, 1/s */
    snprintf(per, sizeof per, "1/%s", unit);
    unit = per, buf[left - 4] = '\0';
  }
  const char *dot = strrchr(buf, '.');
  for (char *c = buf + (dot ? (size_t)(dot - buf) + 1 : 0); *c; c++)
    if (*c == '_')
      *c = ' ';
  char label[600];
  snprintf(label, sizeof label, unit ? "%s (%s)" : "%s", buf, unit);
  gp_quote(gp, label);
}

/* The constraint a summary column is judged by ("" when none). */
static const char *constraint_of(const char *y) {
  static const char *const map[][2] = {{"max_junction_temp_c", "max_junction_temp_c"},
                                       {"tdp_w", "tdp_budget_w"},
                                       {"battery.runtime_s", "min_battery_life_s"},
                                       {"latency_ms", "max_latency_ms"},
                                       {"energy_per_item_mj", "max_energy_per_item_mj"}};
  for (size_t k = 0; k < sizeof map / sizeof map[0]; k++)
    if (strcmp(y, map[k][0]) == 0)
      return map[k][1];
  return "";
}

/* The index of column @p name in the header line, or -1. */
static int column_of(const char *header, const char *name) {
  int k = 0;
  size_t n = strlen(name);
  for (const char *c = header; c && *c; k++) {
    const char *end = strpbrk(c, ",\n");
    size_t len = end ? (size_t)(end - c) : strlen(c);
    if (len == n && strncmp(c, name, n) == 0)
      return k;
    c = end && *end == ',' ? end + 1 : NULL;
  }
  return -1;
}

/* Field @p col of a row (the first fields are never quoted); NAN when empty or absent. */
static double field(const char *row, int col) {
  const char *c = row;
  for (int k = 0; k < col && c; k++)
    c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL;
  char *end;
  double v = c ? strtod(c, &end) : NAN;
  return c && end != c ? v : NAN;
}

/* The constraint's limit for @p y: the first row's value of its .limit column, or NAN. */
static double limit_of(const cli_sweep_plot *p, const char *y) {
  char name[300];
  snprintf(name, sizeof name, "%s.limit", constraint_of(y));
  int col = *constraint_of(y) ? column_of(p->header, name) : -1;
  for (size_t r = 0; col >= 0 && r < p->n; r++)
    if (p->rows[r])
      return field(p->rows[r], col);
  return NAN;
}

static int fail_io(const char *path, sits_err *err) {
  snprintf(err->msg, sizeof err->msg, "%s: cannot write the plot's data", path);
  return err->code = SITS_EIO;
}

static int sweep_csv(const void *arg, const char *csv, sits_err *err) {
  const cli_sweep_plot *p = arg;
  FILE *f = fopen(csv, "w");
  if (!f)
    return fail_io(csv, err);
  fputs(p->header, f);
  for (size_t r = 0; r < p->n; r++)
    if (p->rows[r])
      fputs(p->rows[r], f);
  return fclose(f) == 0 ? SITS_OK : fail_io(csv, err);
}

/* The largest count of the 20-bin histogram of column @p y over the rows (as gnuplot bins it:
 * width (max - min) / 20, 1 when the values are all equal). */
static size_t histogram_peak(const cli_sweep_plot *p, const char *y) {
  int col = column_of(p->header, y);
  double lo = INFINITY, hi = -INFINITY;
  for (size_t r = 0; col >= 0 && r < p->n; r++) {
    double v = p->rows[r] ? field(p->rows[r], col) : NAN;
    if (isfinite(v))
      lo = fmin(lo, v), hi = fmax(hi, v);
  }
  if (!(hi >= lo))
    return 0;
  double w = hi > lo ? (hi - lo) / 20.0 : 1.0;
  size_t count[64] = {0}, peak = 0;
  for (size_t r = 0; r < p->n; r++) {
    double v = p->rows[r] ? field(p->rows[r], col) : NAN;
    if (!isfinite(v))
      continue;
    long b = (long)floor((v - lo) / w);
    b = b < 0 ? 0 : b > 63 ? 63 : b;
    if (++count[b] > peak)
      peak = count[b];
  }
  return peak;
}

/* Whether column @p y has a finite value in some row. */
static bool has_values(const cli_sweep_plot *p, const char *y) {
  int col = column_of(p->header, y);
  for (size_t r = 0; col >= 0 && r < p->n; r++)
    if (p->rows[r] && isfinite(field(p->rows[r], col)))
      return true;
  return false;
}

/* A panel that says column @p y has no values (a battery's runtime on a run without one):
 * gnuplot cannot range an empty column. */
static void empty_panel(FILE *gp, const char *y) {
  fputs("set label 1 ", gp);
  gp_quote(gp, y);
  fputs(" . ': no values in the table' at graph 0.5, 0.5 center\n"
        "plot [0:1] [0:1] NaN notitle\nunset label 1\n",
        gp);
}

/* Sampled rows: per output a histogram and the empirical CDF, the limit marked. */
static void sweep_sampled(FILE *gp, const cli_sweep_plot *p, const char *csv) {
  fprintf(gp, "set multiplot layout %zu,2\n", p->n_y);
  for (size_t k = 0; k < p->n_y; k++) {
    double lim = limit_of(p, p->ys[k]);
    fputs("unset arrow\n", gp);
    if (!has_values(p, p->ys[k])) { /* both cells of the row say so */
      fputs("set xlabel ", gp);
      gp_label(gp, p->ys[k]);
      fputs(" noenhanced\nunset ylabel\n", gp);
      empty_panel(gp, p->ys[k]);
      empty_panel(gp, p->ys[k]);
      continue;
    }
    if (isfinite(lim))
      fprintf(gp, "set arrow from %.10g, graph 0 to %.10g, graph 1 nohead lc rgb 'red' dt 2\n", lim,
              lim);
    fputs("set xlabel ", gp);
    gp_label(gp, p->ys[k]);
    fputs(" noenhanced\nset ylabel 'rows'\nstats ", gp);
    gp_quote(gp, csv);
    fputs(" using ", gp);
    gp_quote(gp, p->ys[k]);
    fputs(" nooutput\nw = (STATS_max - STATS_min) / 20.0\nif (w <= 0) w = 1\n", gp);
    if (isfinite(lim)) /* the range holds the limit */
      fprintf(gp,
              "L = %.10g\nset xrange [(STATS_min < L ? STATS_min : L) - w : "
              "(STATS_max > L ? STATS_max : L) + w]\n",
              lim);
    else
      fputs("set autoscale x\n", gp);
    size_t peak = histogram_peak(p, p->ys[k]); /* counts are whole: no 0.5 ticks */
    fprintf(gp, "set ytics %s\nset yrange [0:*]\n", peak > 0 && peak <= 10 ? "1" : "autofreq");
    fputs("plot ", gp);
    gp_quote(gp, csv);
    fputs(" using (w * floor(column(", gp);
    gp_quote(gp, p->ys[k]);
    fputs(") / w) + w / 2):(1.0) smooth freq with boxes fs solid 0.5 notitle\n"
          "set ylabel 'P(value <= x)'\nset ytics autofreq\nset yrange [0:1]\nplot ",
          gp);
    gp_quote(gp, csv);
    fputs(" using ", gp);
    gp_quote(gp, p->ys[k]);
    fputs(":(1.0) smooth cnormal with lines lw 2 notitle\n", gp);
  }
  fputs("unset multiplot\n", gp);
}

/* One key: the outputs against it, limits dashed. */
static void sweep_one_key(FILE *gp, const cli_sweep_plot *p, const char *csv) {
  /* the panels' plot areas aligned, whatever their keys' widths */
  fprintf(gp,
          "set multiplot layout %zu,1\nset lmargin at screen 0.08\nset rmargin at screen 0.86\n"
          "set xlabel ",
          p->n_y);
  gp_label(gp, p->keys[0]);
  fputs(" noenhanced\n", gp);
  for (size_t k = 0; k < p->n_y; k++) {
    double lim = limit_of(p, p->ys[k]);
    fputs("set ylabel ", gp);
    gp_label(gp, p->ys[k]);
    fputs(" noenhanced\n", gp);
    if (!has_values(p, p->ys[k])) {
      empty_panel(gp, p->ys[k]);
      continue;
    }
    fputs("plot ", gp);
    gp_quote(gp, csv);
    fputs(" using ", gp);
    gp_quote(gp, p->keys[0]);
    fputs(":", gp);
    gp_quote(gp, p->ys[k]);
    fputs(" with linespoints lw 2 pt 7 notitle", gp);
    if (isfinite(lim))
      fprintf(gp, ", %.10g with lines lc rgb 'red' dt 2 title 'limit'", lim);
    fputc('\n', gp);
  }
  fputs("unset multiplot\n", gp);
}

/* Two keys: the first output as colour over the grid, the rows that violate its limit
 * crossed (the constraint's boundary runs between crossed and plain cells). */
static void sweep_two_keys(FILE *gp, const cli_sweep_plot *p, const char *csv) {
  char ok[300];
  snprintf(ok, sizeof ok, "%s.ok", constraint_of(p->ys[0]));
  fputs("set xlabel ", gp);
  gp_label(gp, p->keys[0]);
  fputs(" noenhanced\nset ylabel ", gp);
  gp_label(gp, p->keys[1]);
  fputs(" noenhanced\nset cblabel ", gp);
  gp_label(gp, p->ys[0]);
  fputs(" noenhanced\n", gp);
  if (!has_values(p, p->ys[0])) {
    empty_panel(gp, p->ys[0]);
    return;
  }
  fputs("plot ", gp);
  gp_quote(gp, csv);
  fputs(" using ", gp);
  gp_quote(gp, p->keys[0]);
  fputc(':', gp);
  gp_quote(gp, p->keys[1]);
  fputc(':', gp);
  gp_quote(gp, p->ys[0]);
  fputs(" with points pt 5 ps 3 palette notitle", gp);
  if (*constraint_of(p->ys[0]) && column_of(p->header, ok) >= 0 &&
      isfinite(limit_of(p, p->ys[0]))) {
    fputs(", '' using ", gp);
    gp_quote(gp, p->keys[0]);
    fputs(":(column(", gp);
    gp_quote(gp, ok);
    fputs(") == 0 ? column(", gp);
    gp_quote(gp, p->keys[1]);
    fputs(") : NaN) with points pt 2 ps 2 lc rgb 'black' title 'violates the limit'", gp);
  }
  fputc('\n', gp);
}

static void sweep_script(FILE *gp, const void *arg, const char *csv) {
  const cli_sweep_plot *p = arg;
  fputs("set datafile missing ''\nset key outside right top\nunset y2tics\n", gp);
  if (p->sampled)
    sweep_sampled(gp, p, csv);
  else if (p->n_keys == 1)
    sweep_one_key(gp, p, csv);
  else
    sweep_two_keys(gp, p, csv);
}

int cli_plot_sweep(const cli_sweep_plot *p, const char *png) {
  plot_spec spec = {p->sampled || p->n_keys == 1 ? 350 + 300 * p->n_y : 700, sweep_csv,
                    sweep_script};
  return plot_png(&spec, p, png);
}

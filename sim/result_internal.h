/* result_internal.h - the recorded run, shared by sim.c, summary.c and the writers. */
#ifndef SITS_RESULT_INTERNAL_H
#define SITS_RESULT_INTERNAL_H

#include "sits_sim.h"
#include <string.h>

struct sits_result {
  sits_band band; /* sits_run_bands (calibration/bands.c) */
  size_t n_nodes;
  size_t n_samples, cap_samples;
  size_t n_recorded;    /* samples made so far, streamed ones included */
  size_t n_flushed;     /* rows [0, n_flushed) already given to the sink */
  double last_time_s;   /* the last sample's time */
  double *time_s;       /* n_samples */
  double *temp_c;       /* n_samples x n_nodes, row-major */
  double *node_power_w; /* n_samples x n_nodes */
  double *total_power_w;
  size_t n_domains;
  double *domain_power_w; /* n_samples x n_domains */
  double *freq_mhz;       /* n_samples x n_domains */
  bool has_battery;
  double *batt_soc, *batt_voltage_v, *batt_current_a;
  size_t n_fans;
  double *fan_duty;    /* n_samples x n_fans: each fan's PWM duty */
  double *peak_temp_c; /* n_nodes */
  sits_event *events;
  size_t n_events, cap_events;
  sits_summary summary;
  sits_ode_stats stats;
  size_t ticks_evaluated, ticks_skipped; /* governor ticks */
};

/** The summary's scalar figures, named as the outputs write them, in the order the sweep's CSV
 *  lists them; the JSON summary writes the first twelve in the same order, its composite
 *  figures (peak per node, energy per domain, battery) between them. One list, so that the
 *  two outputs cannot name or order a figure differently. */
typedef struct sits__summary_field {
  const char *name;
  size_t offset; /* of the double in sits_summary */
} sits__summary_field;
#define SITS__SUMMARY_FIELDS 17
extern const sits__summary_field sits__summary_fields[SITS__SUMMARY_FIELDS];
/** Field @p k of sits__summary_fields in @p s. */
static inline double sits__summary_value(const sits_summary *s, size_t k) {
  double v;
  memcpy(&v, (const char *)s + sits__summary_fields[k].offset, sizeof v);
  return v;
}

/** Adds an event row; SITS_ENOMEM when it cannot. */
int sits__result_add_event(sits_result *r, double t_s, const char *kind, const char *detail);
/** The run's linear solver as the outputs name it: "klu", "dense" or "layergrid" (inline: the
 *  HDF5 module, a separate library, sees only public symbols). */
static inline const char *sits__result_linear_solver(const sits_result *r) {
  /* a grid's run handed over to the modes solved on the grid solver while on CVODE */
  return r->stats.method && strncmp(r->stats.method, "grid-cvode", 10) == 0 ? "layergrid"
         : r->stats.sparse                                                  ? "klu"
                                                                            : "dense";
}
/** The same with the fields of sits_event (NAN where one does not apply). */
int sits__result_add_event_fields(sits_result *r, double t_s, const char *kind, const char *detail,
                                  const char *subject, const char *unit, double value, double from,
                                  double limit, double soc);
/** The state vector of a run, defined once: temperatures [0, n), the energy into the network
 *  and the energy out to the ambient, then with a battery SOC, the RC pairs' voltages, the
 *  energy drawn from the pack and the pack's Joule heat into the network (its node's; the
 *  board's energy in i_e_in excludes it). */
typedef struct sits__layout {
  size_t n;                   /* nodes */
  size_t i_e_in, i_e_out;     /* energy integrators [J] */
  size_t nrc, i_soc, i_drawn; /* battery (i_soc + 1 .. i_soc + nrc: the RC voltages) */
  size_t i_e_pack; /* the pack's Joule heat into the network [J] (with its node; else 0) */
  size_t ny;       /* the state's length */
} sits__layout;

/** The layout for @p n nodes and, when @p battery, a pack with @p nrc RC pairs; @p pack_heat:
 *  its Joule heat goes into a node (the i_e_pack integral; 0 without). */
sits__layout sits__layout_of(size_t n, bool battery, size_t nrc, bool pack_heat);

/** The energy put in at every breakpoint, kept only as far back as windows read it (so a
 *  run's memory does not grow with its length), and the peak moving average of power over
 *  the TDP window, taken as breakpoints come. */
typedef struct sits__elog {
  double *t, *e; /* the points kept */
  size_t n, cap;
  size_t pend;                  /* the first point whose window starting there is not yet taken */
  size_t hint_back, hint_ahead; /* where the windows' reads found their points last */
  size_t dropped;               /* points dropped so far (readers' hints shift by it) */
  double w, keep_s;             /* the TDP window; how far back reads go */
  double best;                  /* the largest windowed average so far (-INFINITY: none) */
  bool first_done;              /* the window [0, w] taken */
} sits__elog;

/** @p tdp_window_s: the TDP window; @p keep_s: the longest look-back of other readers. */
void sits__elog_init(sits__elog *l, double tdp_window_s, double keep_s);
void sits__elog_free(sits__elog *l);
/** Appends (t, e), t not below the last; -1 when out of memory. */
int sits__elog_push(sits__elog *l, double t, double e);
/** The energy at @p at (linear between points; @p at not before latest - keep_s), from
 *  *hint (may be NULL) as sits__history_at_hint(). */
double sits__elog_at(const sits__elog *l, double at, size_t *hint);
/** The peak moving average of power over the window for a run ending at @p end_s (the last
 *  point); @p avg_power_w when the run is not longer than the window. */
double sits__elog_tdp_w(const sits__elog *l, double end_s, double avg_power_w);

/** What the run loop accounted, for the summary. */
typedef struct sits__tally {
  sits__layout lay;
  sits_end_reason why;
  double end_s;
  const double *y_end, *y_start;
  const sits__elog *elog; /* energy in at the breakpoints */
  double peak_power_w, throttled_s, time_to_throttle_s;
  double min_pack_v;                               /* battery */
  const double *items, *demanded, *latency_ms_sum; /* per domain */
  const double *domain_energy_j;                   /* per domain */
  const double *fan_duty_s, *fan_max_duty;         /* per fan: duty x time, highest duty */
} sits__tally;

/** The value at @p at of a history (ts ascending, n points), linear between points and
 *  held outside; 0 when empty. */
double sits__history_at(const double *ts, const double *vs, size_t n, double at);
/** The same, starting from *hint (the index the last read found; updated) when it is at or
 *  before @p at: cheap for reads at nearby increasing times. */
double sits__history_at_hint(const double *ts, const double *vs, size_t n, double at, size_t *hint);

/** Fills r->summary from the run's tally and the scenario's limits. */
void sits__summarise(const sits_scenario *sc, sits_result *r, const sits__tally *t);

#endif

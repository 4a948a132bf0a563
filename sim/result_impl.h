/* result_impl.h - the recorded run, shared by sim.c, summary.c and the writers. */
#ifndef SITS_RESULT_IMPL_H
#define SITS_RESULT_IMPL_H

#include "sits_sim.h"

struct sits_result {
  size_t n_nodes;
  size_t n_samples, cap_samples;
  size_t n_recorded;  /* samples made so far, streamed ones included */
  size_t n_flushed;   /* rows [0, n_flushed) already given to the sink */
  double last_time_s; /* the last sample's time */
  double *time_s;       /* n_samples */
  double *temp_c;       /* n_samples x n_nodes, row-major */
  double *node_power_w; /* n_samples x n_nodes */
  double *total_power_w;
  size_t n_domains;
  double *domain_power_w; /* n_samples x n_domains */
  double *freq_mhz;       /* n_samples x n_domains */
  bool has_battery;
  double *batt_soc, *batt_voltage_v, *batt_current_a;
  double *peak_temp_c; /* n_nodes */
  sits_event *events;
  size_t n_events, cap_events;
  sits_summary summary;
  sits_ode_stats stats;
};

/** Adds an event row; SITS_ENOMEM when it cannot. */
int sits__result_add_event(sits_result *r, double t_s, const char *kind, const char *detail);
/** The same with the fields of sits_event (NAN where one does not apply). */
int sits__result_add_event_fields(sits_result *r, double t_s, const char *kind, const char *detail,
                                  const char *subject, const char *unit, double value, double from,
                                  double limit, double soc);
/** The state vector of a run, defined once: temperatures [0, n), the energy into the network
 *  and the energy out to the ambient, then with a battery SOC, the RC pairs' voltages and the
 *  energy drawn from the pack. */
typedef struct sits__layout {
  size_t n;                   /* nodes */
  size_t i_e_in, i_e_out;     /* energy integrators [J] */
  size_t nrc, i_soc, i_drawn; /* battery (i_soc + 1 .. i_soc + nrc: the RC voltages) */
  size_t ny;                  /* the state's length */
} sits__layout;

/** The layout for @p n nodes and, when @p battery, a pack with @p nrc RC pairs. */
sits__layout sits__layout_of(size_t n, bool battery, size_t nrc);

/** What the run loop accounted, for the summary. */
typedef struct sits__tally {
  sits__layout lay;
  sits_end_reason why;
  double end_s;
  const double *y_end, *y_start;
  const double *hist_t, *hist_e; /* energy in at every breakpoint */
  size_t n_hist;
  double peak_power_w, throttled_s, time_to_throttle_s;
  double min_pack_v;                               /* battery */
  const double *items, *demanded, *latency_ms_sum; /* per domain */
  const double *domain_energy_j;                   /* per domain */
} sits__tally;

/** The value at @p at of a history (ts ascending, n points), linear between points and
 *  held outside; 0 when empty. */
double sits__history_at(const double *ts, const double *vs, size_t n, double at);
/** The same, starting from *hint (the index the last read found; updated) when it is at or
 *  before @p at: cheap for reads at nearby increasing times. */
double sits__history_at_hint(const double *ts, const double *vs, size_t n, double at,
                             size_t *hint);

/** Fills r->summary from the run's tally and the scenario's limits. */
void sits__summarise(const sits_scenario *sc, sits_result *r, const sits__tally *t);

#endif

/*
 * test_energy_log.c - the run's energy history (sits__elog in result_internal.h): the peak
 * moving average of power (TDP) taken as breakpoints come, against closed forms, and its
 * memory bounded however long the run.
 */
#include "test_util.h"

#include "result_internal.h"

/* Power 2 W with a burst of 10 W on [t0, t0 + d]: energy piecewise linear, breakpoints
 * every dt. The peak 1-s average: a window holding the whole burst when d <= w,
 * (10 d + 2 (w - d)) / w; 10 W when d >= w. */
static double energy_at(double t, double t0, double d) {
  double burst = fmin(fmax(t - t0, 0), d);
  return 2 * t + 8 * burst;
}

static double run_log(double end, double dt, double t0, double d, double w, size_t *cap,
                      bool check) {
  sits__elog l;
  sits__elog_init(&l, w, 1.1);
  size_t n = (size_t)llround(end / dt);
  for (size_t k = 0; k <= n; k++) {
    double t = (double)k * dt;
    cr_assert_eq(sits__elog_push(&l, t, energy_at(t, t0, d)), 0);
    if (check && t > 2) { /* reads back at a breakpoint within the look-back (1.1 s) stay exact */
      size_t hint = 0;
      double back = t - floor(1.05 / dt) * dt;
      cr_assert_float_eq(sits__elog_at(&l, back, &hint), energy_at(back, t0, d), 1e-9 * t);
    }
  }
  double tdp = sits__elog_tdp_w(&l, (double)n * dt, energy_at(end, t0, d) / end);
  *cap = l.cap;
  sits__elog_free(&l);
  return tdp;
}

Test(energy_log, tdp_closed_forms) {
  size_t cap;
  /* a 0.5-s burst at an arbitrary place, breakpoints every 50 ms */
  cr_assert_float_eq(run_log(600, 0.05, 123.4, 0.5, 1.0, &cap, true), (10 * 0.5 + 2 * 0.5) / 1.0, 1e-9);
  /* a 3-s burst: the window sits inside it */
  cr_assert_float_eq(run_log(600, 0.05, 10.0, 3.0, 1.0, &cap, true), 10.0, 1e-9);
  /* the burst in the first and in the last window */
  cr_assert_float_eq(run_log(60, 0.05, 0.0, 0.2, 1.0, &cap, true), 2 + 8 * 0.2, 1e-9);
  cr_assert_float_eq(run_log(60, 0.05, 59.8, 0.2, 1.0, &cap, true), 2 + 8 * 0.2, 1e-9);
  /* breakpoints not on the burst's edges (every 0.3 s): the energy is known at them and
   * linear between (the run's model), so the answer is the largest 1-s difference of that
   * piecewise-linear energy, here by brute force over window starts every 0.1 ms */
  double best = 0;
  for (int k = 0; k <= 40000; k++) {
    double s0 = 98.0 + 1e-4 * k, e[2];
    for (int j = 0; j < 2; j++) {
      double at = s0 + j, lo = floor(at / 0.3) * 0.3, hi = lo + 0.3;
      double elo = energy_at(lo, 100.05, 0.2), ehi = energy_at(hi, 100.05, 0.2);
      e[j] = elo + (at - lo) / 0.3 * (ehi - elo);
    }
    best = fmax(best, e[1] - e[0]);
  }
  double tdp = run_log(300, 0.3, 100.05, 0.2, 1.0, &cap, true);
  cr_assert_float_eq(tdp, best, 1e-6, "tdp %.12g vs %.12g", tdp, best);
  cr_assert_lt(tdp, 2 + 8 * 0.2, "smoothed: %g", tdp);
  /* a run no longer than the window: its average */
  cr_assert_float_eq(run_log(0.8, 0.05, 0.1, 0.1, 1.0, &cap, true), energy_at(0.8, 0.1, 0.1) / 0.8,
                     1e-12);
}

/* A week of 50-ms breakpoints (12 million): the log keeps the last ~1.1 s, not the run. */
Test(energy_log, memory_bounded, .timeout = 120) {
  size_t cap;
  double tdp = run_log(7 * 86400.0, 0.05, 300000.0, 0.5, 1.0, &cap, false);
  cr_assert_float_eq(tdp, 6.0, 1e-6);
  cr_assert_leq(cap, 2048, "capacity %zu", cap);
}

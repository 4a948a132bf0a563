/*
 * sits_battery_fit.h - identification of a cell's R0 and RC pairs (and optionally its
 * capacity) from a measured current/voltage test, with the cell's OCV table known.
 *
 * The model is driven by the measured current (zero-order hold between samples, discharge
 * positive): SOC falls by I dt / (3600 Q); each RC pair follows its exact update
 * V_k <- V_k e^{-dt/tau_k} + R_k I (1 - e^{-dt/tau_k}); V = OCV(SOC) - sum V_k - R0 I.
 * Parameters are fitted in log space (R0, R_k, tau_k = R_k C_k, Q) plus the initial SOC
 * (logit), by GSL multifit_nlinear from several starts, on the first train_fraction of the
 * samples; the rest is held out. Metrics: RMSE, MAE, max |error|, bias (model - measured),
 * R^2 and n, on both parts.
 */
#ifndef SITS_BATTERY_FIT_H
#define SITS_BATTERY_FIT_H

#include <stdbool.h>
#include <stddef.h>

#include "sits_battery.h"
#include "sits_export.h"
#include "sits_metrics.h"

SITS_BEGIN_DECLS

/** The hysteresis fit's upper bound on m_v [V]. */
#define SITS_BATTERY_FIT_HYST_M_MAX_V 0.1

/** The most tests one joint fit takes (sits_battery_fit_tests). */
#define SITS_BATTERY_FIT_MAX_TESTS 16

typedef struct sits_battery_fit {
  size_t n_rc;
  double r0_ohm, rc_r_ohm[SITS_BATTERY_MAX_RC], rc_c_f[SITS_BATTERY_MAX_RC];
  double capacity_ah, initial_soc;
  /** with a cell that has hysteresis (cell->hyst_m_v > 0, its values the start): the fitted
   *  m_v, gamma and h at the start (and hyst_m0_v below); 0 otherwise */
  double hyst_m_v, hyst_gamma, hyst_initial;
  /** with a cell that has resistance tables over SOC (cell->n_r_soc > 0, no rows over
   *  temperature): R0 and each R_k fitted at its r_soc knots. r0_ohm and rc_r_ohm are then
   *  the values at the knot nearest SOC 0.5, and these the factors on them (1 there) */
  size_t n_r_soc;
  double r_soc[SITS_BATTERY_MAX_R_SOC]; /**< the cell's knots */
  double r0_scale[SITS_BATTERY_MAX_R_SOC], rc_r_scale[SITS_BATTERY_MAX_RC][SITS_BATTERY_MAX_R_SOC];
  /** the SOC range the training part covers (from the fitted start SOC and the charge) */
  double train_soc_lo, train_soc_hi;
  sits_fit_metrics train, holdout;
  bool converged;
  size_t n_train;
  double *model_v; /**< the fitted model's voltage at every sample (n values, malloc'ed) */
  /** with hysteresis: the fitted instantaneous term m0_v [V] (0 to the m_v bound) */
  double hyst_m0_v;
  /** with SITS_BATTERY_FIT_LAG: the recording's voltage lag behind its current [s] (0 to the
   *  training part's median sample interval; 0 without the flag), and that lag as a fraction
   *  of the median interval */
  double lag_frac, lag_s;
  /** the resistances' Arrhenius activation energy the model took [J/mol]: fitted with
   *  SITS_BATTERY_FIT_ARRHENIUS, else the cell's */
  double r_ea_j_per_mol;
  /** the cell temperature's range over the training part [C] (NAN without temperatures) */
  double train_temp_lo_c, train_temp_hi_c;
  /** with SITS_BATTERY_FIT_ROWS: the rows over temperature fitted (n_r_t of them at r_t_c,
   *  increasing), each row's factors on r0_ohm and rc_r_ohm at the r_soc knots above (the
   *  cell's, or 0 and 1 for a cell without: one value per row) and on rc_c_f (one per row,
   *  the same at every knot); the row nearest the cell's r_ref_c holds the reference knot's
   *  factor 1. n_r_t is 0 without rows. */
  size_t n_r_t;
  double r_t_c[SITS_BATTERY_MAX_R_T];
  double r0_scale_t[SITS_BATTERY_MAX_R_T][SITS_BATTERY_MAX_R_SOC];
  double rc_r_scale_t[SITS_BATTERY_MAX_RC][SITS_BATTERY_MAX_R_T][SITS_BATTERY_MAX_R_SOC];
  double rc_c_scale_t[SITS_BATTERY_MAX_RC][SITS_BATTERY_MAX_R_T];
  /** each test's part of a joint fit (sits_battery_fit_tests; one test for the others):
   *  model_v holds the tests one after another, test s from tests[s].offset; train, holdout,
   *  train_soc_* and train_temp_* above are over all tests together, initial_soc test 0's */
  size_t n_tests;
  struct sits_battery_fit_test {
    size_t n, n_train, offset;
    double initial_soc;
    /** the training part's median cell temperature [C] (NAN without temperatures) */
    double temp_median_c;
    double train_soc_lo, train_soc_hi;
    sits_fit_metrics train, holdout;
  } tests[SITS_BATTERY_FIT_MAX_TESTS];
  /** rows over temperature fitted for a cell without r_soc: r_soc is then 0 and 1 with one
   *  value per row (the same factor at both) */
  bool r_soc_flat;
} sits_battery_fit;

/**
 * Fits @p n_rc RC pairs to the samples (t_s, i_a, v_v; n of them, time increasing) of one
 * cell whose OCV table and capacity come from @p cell. @p fit_capacity also fits Q.
 * Release out->model_v with free().
 */
SITS_API int sits_battery_fit_cell(const sits_battery_cfg *cell, const double *t_s,
                                   const double *i_a, const double *v_v, size_t n, size_t n_rc,
                                   double train_fraction, bool fit_capacity, sits_battery_fit *out,
                                   sits_err *err);

/** The same with the cell temperature at each sample (@p temp_c, n values; NULL: r_ref_c): the
 *  model takes the OCV at that temperature (a table over temperature) and R0 and R_k times
 *  the cell's Arrhenius factor (r_ea_j_per_mol; C_k unchanged), so the fitted values are
 *  those at r_ref_c. */
SITS_API int sits_battery_fit_cell_t(const sits_battery_cfg *cell, const double *t_s,
                                     const double *i_a, const double *v_v, const double *temp_c,
                                     size_t n, size_t n_rc, double train_fraction,
                                     bool fit_capacity, sits_battery_fit *out, sits_err *err);

/** What sits_battery_fit_cell_x fits besides R0 and the RC pairs (and the cell's hysteresis
 *  and resistance tables when it has them). */
enum {
  SITS_BATTERY_FIT_CAPACITY = 1u, /**< the capacity */
  /** the recording's sample lag: each voltage sample is modelled with the current a time d
   *  before its stamp (the current linearly interpolated in the interval before the stamp,
   *  I_k - (d / dt_k) (I_k - I_k-1), the sample before for d > dt_k), d fitted from 0 to the
   *  training part's median interval. Cyclers that log current and voltage at
   *  slightly different instants within a sample (a voltage that takes only part of a
   *  current step at its stamp and the rest one sample later) otherwise put a spike into the
   *  residual at every step that no R or RC pair removes. A property of the recording, not
   *  of the cell: it is reported, not written into the cell. */
  SITS_BATTERY_FIT_LAG = 2u,
  /** the cell kept as it is (R0, RC pairs, resistance tables, hysteresis and its initial
   *  state): only the test's initial SOC is fitted (and the capacity and lag when flagged),
   *  so the held-out figures say how a cell calibrated on one test holds on another. n_rc is
   *  then the cell's; the result's r0_ohm and rc values are the cell's, without tables. */
  SITS_BATTERY_FIT_KEEP = 4u,
  /** the resistances' Arrhenius activation energy (r_ea_j_per_mol, 0 to
   *  SITS_BATTERY_FIT_EA_MAX_J_PER_MOL; R0 and each R_k times exp(E_a / R_gas (1/T - 1/T_ref)),
   *  C_k unchanged), from the cell temperature at each sample (temp_c needed, spanning at
   *  least SITS_BATTERY_FIT_EA_MIN_SPAN_K over the training part; a cell without rows over
   *  temperature, which replace the factor) */
  SITS_BATTERY_FIT_ARRHENIUS = 8u,
  /** R0, the R_k and the C_k as rows over temperature (the cell's resistance tables with
   *  r_t_c), fitted jointly over tests at several temperatures (sits_battery_fit_tests): each
   *  test needs its cell temperature at each sample; the model interpolates the rows at it
   *  (linear in T, held beyond the end rows), as a simulation does. Each row has R0 and each
   *  R_k at every r_soc knot and one factor on each C_k; the SOC0 of each test is its own.
   *  Rows at the cell's r_t_c when it has them, else at the tests' median training-part
   *  temperatures (those within SITS_BATTERY_FIT_ROW_MERGE_K of each other sharing a row). */
  SITS_BATTERY_FIT_ROWS = 16u,
};

/** Tests whose median temperatures lie within this of each other share a row [K]. */
#define SITS_BATTERY_FIT_ROW_MERGE_K 2.0

/** One test of a joint fit: its samples as sits_battery_fit_cell_x takes them (temp_c and q_ah
 *  may be NULL). */
typedef struct sits_battery_test {
  const double *t_s, *i_a, *v_v, *temp_c, *q_ah;
  size_t n;
  /** true: the test's SOC at its first sample is @p initial_soc (0 to 1, say 1 for a test that
   *  starts from a full charge), not fitted; false (zero-initialised): fitted */
  bool soc_given;
  double initial_soc;
} sits_battery_test;

/**
 * Fits one cell to @p n_tests tests together (1 to SITS_BATTERY_FIT_MAX_TESTS): the first
 * @p train_fraction of each test is trained on, the rest held out. R0, the RC pairs, their
 * tables, the capacity, hysteresis (one initial state for all), the lag (one for all, bounded
 * by the smallest median interval) and the activation energy are shared; each test has its
 * own initial SOC. @p what as for sits_battery_fit_cell_x, plus SITS_BATTERY_FIT_ROWS.
 * out->model_v holds every test's samples, test after test.
 */
SITS_API int sits_battery_fit_tests(const sits_battery_cfg *cell, const sits_battery_test *tests,
                                    size_t n_tests, size_t n_rc, double train_fraction,
                                    unsigned what, sits_battery_fit *out, sits_err *err);

/** Called after each evaluation of the model on the training parts: the start (1-based) of
 *  @p n_starts, the evaluations of this start so far and the evaluation's residual RMS [V]
 *  (finite-difference columns included: it moves around the best point). For a progress line;
 *  it must not call back into the fit. */
typedef void (*sits_battery_fit_progress_fn)(size_t start, size_t n_starts, size_t evaluations,
                                             double rms_v, void *user);

/** sits_battery_fit_tests with @p progress (NULL: none) called as the fit goes. */
SITS_API int sits_battery_fit_tests_p(const sits_battery_cfg *cell, const sits_battery_test *tests,
                                      size_t n_tests, size_t n_rc, double train_fraction,
                                      unsigned what, sits_battery_fit_progress_fn progress,
                                      void *progress_user, sits_battery_fit *out, sits_err *err);

/** The iterations each start of a battery fit may take (GSL's trust-region driver). */
#define SITS_BATTERY_FIT_MAX_ITER 200
/** The activation energy's fitted range [J/mol]: 0 to this. */
#define SITS_BATTERY_FIT_EA_MAX_J_PER_MOL 100000.0
/** The least span of the cell temperature over the training part for an activation energy
 *  [K]. */
#define SITS_BATTERY_FIT_EA_MIN_SPAN_K 1.0

/** The same with @p what a set of SITS_BATTERY_FIT_* flags, and @p q_ah (n values, or NULL)
 *  the cycler's charge counter [Ah], discharge positive: SOC then follows its change between
 *  samples instead of the current held over each interval (a log that leaves out part of the
 *  test, as HPPC files that keep only the pulses do). */
SITS_API int sits_battery_fit_cell_x(const sits_battery_cfg *cell, const double *t_s,
                                     const double *i_a, const double *v_v, const double *temp_c,
                                     const double *q_ah, size_t n, size_t n_rc,
                                     double train_fraction, unsigned what, sits_battery_fit *out,
                                     sits_err *err);

/** An OCV-SOC table built from a slow constant-current discharge. */
typedef struct sits_ocv_test {
  size_t n;                           /**< table points (SOC 0, 1/(n-1), ..., 1) */
  double soc[SITS_BATTERY_MAX_OCV];   /**< increasing */
  double ocv_v[SITS_BATTERY_MAX_OCV]; /**< at each SOC */
  double capacity_ah;                 /**< charge delivered by the discharge */
  double c_rate_per_h;                /**< mean current / capacity */
  double r_dc_ohm;                    /**< resistance of the IR correction */
  const char *r_source;               /**< "given", "step" or "battery" (static text) */
  double t_start_s, t_end_s;          /**< the discharge used */
  size_t first_sample, n_samples;     /**< its samples in the input */
  int discharge_sign;                 /**< +1: positive current discharged */
  /* With a charge branch too (sits_ocv_from_branches): */
  bool both_branches;        /**< ocv_v is the midpoint of the discharge and charge branches */
  double charge_capacity_ah; /**< charge stored by the charge run */
  double half_gap_v;         /**< mean half gap (charge - discharge) / 2 over SOC 0.1-0.9: the
                                  hysteresis the branches show, NAN without a charge branch */
} sits_ocv_test;

/**
 * Builds an OCV table of @p n_points from the first sustained discharge in the samples
 * (t_s, i_a, v_v; n of them, time increasing): the first run of at least 10 samples in which
 * the current keeps one sign with |I| above half its largest value and the voltage falls from
 * start to end. Its sign is discharge, whatever the instrument's convention. The charge
 * delivered, integrated by trapezoids, defines SOC from 1 at the run's start to 0 at its end
 * (so the test must start full and end at the cutoff). The voltage is corrected for a
 * resistance: OCV = V + I r_dc. @p r_dc_ohm >= 0 is used as given; NAN measures it from the
 * voltage step where the current starts (the last rest sample before the run minus the
 * first loaded one, over I), or takes @p r_fallback_ohm (the cell's R0 + sum R_k: at a
 * steady current the RC pairs hold I R_k) when no rest precedes the run. The step is a lower
 * bound of the steady overpotential (slow polarisation has not built up), the cell's
 * R0 + sum R_k an estimate of it. The table is the linear interpolation of that curve at evenly
 * spaced SOC. Fails when no discharge is found, when it is faster than @p max_c_rate_per_h
 * (C/20 = 0.05 by default, passed as 0), or when the result dips by more than the OCV noise.
 */
SITS_API int sits_ocv_from_discharge(const double *t_s, const double *i_a, const double *v_v,
                                     size_t n, double r_dc_ohm, double r_fallback_ohm,
                                     size_t n_points, double max_c_rate_per_h, sits_ocv_test *out,
                                     sits_err *err);

/**
 * The OCV table as the midpoint of two branches: the first sustained discharge of (t_d, i_d,
 * v_d) as sits_ocv_from_discharge builds it, and the first sustained charge of (t_c, i_c,
 * v_c) (the voltage rising; SOC from 0 at its start to 1 at its end by its own charge; OCV =
 * V - |I| r_dc with the discharge's r_dc: the charge's own first step, from empty, holds the
 * empty cell's steep OCV rise). The
 * midpoint removes the IR correction's error to first order and sits between the
 * hysteresis branches, as Plett's OCV procedure does; capacity and the other run fields are
 * the discharge's, with the charge's capacity and the half gap beside them.
 */
SITS_API int sits_ocv_from_branches(const double *t_d, const double *i_d, const double *v_d,
                                    size_t n_d, const double *t_c, const double *i_c,
                                    const double *v_c, size_t n_c, double r_dc_ohm,
                                    double r_fallback_ohm, size_t n_points, double max_c_rate_per_h,
                                    sits_ocv_test *out, sits_err *err);

/** The capacity and coulombic efficiency of a closed cycle (Plett's ESC procedure, step 1 of
 *  processDynamic): see sits_capacity_from_cycle. */
typedef struct sits_cycle_capacity {
  double capacity_ah;     /**< the most charge removed at any point: full to empty */
  double coulombic_eff;   /**< efficiency of the charge in the first n_first parts */
  double eta_ref;         /**< efficiency given for the later parts' charge, or NAN */
  double discharge_ah;    /**< all discharge, integrated as the model does */
  double charge_ah;       /**< all charge */
  double first_charge_ah; /**< charge in the first n_first parts */
  size_t empty_part;      /**< the part where the charge removed peaks ... */
  double empty_t_s;       /**< ... and the time there */
} sits_cycle_capacity;

/**
 * The capacity and coulombic efficiency from a closed cycle: @p n_parts recordings in order
 * (part p: n[p] samples t_s[p], i_a[p], time increasing, positive current discharging) that
 * together take the cell from full to empty and back to full, as the three scripts of Plett's
 * dynamic test do (script 1 the test at its temperature, 2 the rest of the discharge to the
 * cutoff, 3 the charge back to full). Each sample's current is held to the next sample, as
 * sits_battery_fit_cell integrates SOC (no charge is counted between parts). The efficiency
 * closes the cycle: with @p eta_ref NAN, eta = discharged / charged over all parts; else the
 * charge after the first @p n_first parts is taken at eta_ref (measured at a reference
 * temperature: Plett's 25 C test for scripts 2 and 3) and eta = (discharged - eta_ref x
 * later charge) / charge of the first parts. The capacity is then the largest net charge
 * removed (discharge minus eta x charge) from the start. Fails when a part has fewer than 2
 * samples or a time that does not increase, when there is no discharge or charge to weigh,
 * when eta is not in (0.8, 1]: the parts do not close a cycle from full to full, or when no
 * charge ever comes out net of what went in (the cell did not start full). The totals in
 * @p out are counted only once every sample has passed: nonzero totals with a failure mean
 * the recordings are no cycle (read with the wrong current sign, say).
 */
SITS_API int sits_capacity_from_cycle(size_t n_parts, const size_t *n, const double *const *t_s,
                                      const double *const *i_a, size_t n_first, double eta_ref,
                                      sits_cycle_capacity *out, sits_err *err);

SITS_END_DECLS

#endif

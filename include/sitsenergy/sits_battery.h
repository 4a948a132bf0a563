/*
 * sits_battery.h - a Thevenin equivalent-circuit battery pack (the model; sim_model.c couples
 * it to the load and the thermal network).
 *
 * Cell: terminal voltage V = OCV(SOC) - sum_k V_k - I R0 (I > 0 discharging) with
 *   dSOC/dt = -I_eff / (3600 Q_ah(T)),  I_eff = I (discharge) or coulombic_eff * I (charge),
 *   dV_k/dt = I / C_k - V_k / (R_k C_k),  k = 1..n_rc (0 to 3 pairs),
 * Q_ah(T) the capacity, or its rows over temperature (q_t_c). OCV(SOC) is a monotone cubic
 * (GSL Steffen) through the table. With a 2-D table (rows of OCV over the same SOC points at
 * increasing temperatures ocv_t_c), OCV(SOC, T) is linear
 * in T between the Steffen curves of the two neighbouring rows and held at the end rows outside
 * them; the SOC-only functions (mean OCV, Wh conversion, energy) use T = r_ref_c. R0 and R_k
 * scale with
 * temperature by Arrhenius: R(T) = R_ref exp(Ea/R_gas (1/T - 1/T_ref)), T in kelvin.
 * Pack: `series` x `parallel` cells; pack voltage = series V, pack current = parallel I.
 * Constant-power load P (the pack's output): each cell delivers p = P / (series parallel),
 * and I solves R0 I^2 - b I + p = 0 with b = OCV - sum V_k: the smaller root
 * I = (b - sqrt(b^2 - 4 R0 p)) / (2 R0). No real root (p > b^2 / (4 R0)) is a brown-out.
 * Joule heat of the pack: series parallel (I^2 R0 + sum V_k^2 / R_k).
 */
#ifndef SITS_BATTERY_H
#define SITS_BATTERY_H

#include <stdbool.h>
#include <stddef.h>

#include "sits_status.h"

SITS_BEGIN_DECLS

#define SITS_BATTERY_MAX_RC 3
#define SITS_BATTERY_MAX_OCV 256
#define SITS_BATTERY_MAX_OCV_T 8
#define SITS_BATTERY_MAX_R_SOC 16
#define SITS_BATTERY_MAX_R_T 8
/** OCV dips up to this size [V] are taken as measurement noise, not a non-monotone table
 *  (the A123 table derived from C/30 tests dips by 0.1 mV on its plateau). */
#define SITS_BATTERY_OCV_NOISE_V 1e-3

typedef struct sits_battery_cfg {
  size_t series, parallel;
  double capacity_ah; /**< per cell; or NAN with capacity_wh set */
  double capacity_wh; /**< per pack; NAN when capacity_ah is given */
  size_t n_ocv;
  double ocv_soc[SITS_BATTERY_MAX_OCV];   /**< increasing, in [0, 1] */
  double ocv_v[SITS_BATTERY_MAX_OCV];     /**< non-decreasing with SOC (1-D table) */
  size_t n_ocv_t;                         /**< 0: OCV(SOC) only; 2 or more: rows of ocv_v_t */
  double ocv_t_c[SITS_BATTERY_MAX_OCV_T]; /**< increasing temperatures of the rows */
  double ocv_v_t[SITS_BATTERY_MAX_OCV_T][SITS_BATTERY_MAX_OCV]; /**< row j at ocv_t_c[j] */
  double r0_ohm;
  size_t n_rc;
  double rc_r_ohm[SITS_BATTERY_MAX_RC], rc_c_f[SITS_BATTERY_MAX_RC];
  double r_ea_j_per_mol; /**< 0: no temperature dependence */
  double r_ref_c;
  double cutoff_v;      /**< per cell */
  double coulombic_eff; /**< on charge, in (0, 1] */
  /** One-state dynamic hysteresis (Plett's enhanced self-correcting model): the terminal
   *  voltage has + hyst_m_v h, with dh/dt = -|i| hyst_gamma / (3600 Q) (h + sgn i) (i > 0
   *  discharging: h tends to -1 on discharge, +1 on charge, at a rate per Ah moved).
   *  hyst_m_v = 0: none. hyst_initial: h at the start, in [-1, 1]. */
  double hyst_m_v, hyst_gamma, hyst_initial;
  /** Reversible (entropic) heat, -i T dOCV/dT per cell (T in K, i > 0 discharging), added to
   *  the Joule heat: it needs OCV rows over temperature (ocv_t_c), whose slope between the
   *  rows gives dOCV/dT (0 outside them, where the OCV is held). */
  bool entropic_heat;
  /** Resistances over SOC and temperature (optional; n_r_soc = 0: none). R0 and each R_k are
   *  r0_ohm and rc_r_ohm[k] times a factor from a table over r_soc (GSL Steffen from 3 knots,
   *  linear with 2; held at the end knots), one row per r_t_c temperature (n_r_t of them:
   *  linear in T between the rows, held at the end rows, and then no Arrhenius factor) or a
   *  single row (n_r_t = 0: times the Arrhenius factor as without tables). The capacitances
   *  have tables of their own (rc_c_scale below). A pair without its own table
   *  (rc_has_scale[k] false) keeps factor 1. */
  size_t n_r_soc, n_r_t;
  double r_soc[SITS_BATTERY_MAX_R_SOC], r_t_c[SITS_BATTERY_MAX_R_T];
  double r0_scale[SITS_BATTERY_MAX_R_T][SITS_BATTERY_MAX_R_SOC];
  bool rc_has_scale[SITS_BATTERY_MAX_RC];
  double rc_r_scale[SITS_BATTERY_MAX_RC][SITS_BATTERY_MAX_R_T][SITS_BATTERY_MAX_R_SOC];
  /** Instantaneous hysteresis of Plett's ESC model: the terminal voltage has + hyst_m0_v s,
   *  s = -1 while discharging, +1 while charging and, at rest, the sign of the last current
   *  (s_rest of sits_battery_current_a). 0: none. */
  double hyst_m0_v;
  /** Capacitance tables (optional, with the resistance tables' r_soc and r_t_c): C_k is
   *  rc_c_f[k] times a factor from rc_c_scale[k] interpolated as the resistance factors are
   *  (no Arrhenius factor on a capacitance). A pair without one (rc_has_c_scale[k] false)
   *  keeps C_k constant. */
  bool rc_has_c_scale[SITS_BATTERY_MAX_RC];
  double rc_c_scale[SITS_BATTERY_MAX_RC][SITS_BATTERY_MAX_R_T][SITS_BATTERY_MAX_R_SOC];
  /** Capacity over temperature (optional; n_q_t = 0: none, else 2 to SITS_BATTERY_MAX_R_T
   *  points): the capacity at cell temperature T is the capacity (capacity_ah, or converted
   *  from capacity_wh) times q_scale, linear in T between the increasing q_t_c and held at
   *  the end points. SOC runs over the capacity at the present temperature:
   *  dSOC/dt = -I_eff / (3600 Q(T)) (the SOC does not jump when the temperature moves). */
  size_t n_q_t;
  double q_t_c[SITS_BATTERY_MAX_R_T], q_scale[SITS_BATTERY_MAX_R_T];
} sits_battery_cfg;

typedef struct sits_battery sits_battery;

/**
 * A battery from @p cfg (copied), checked: series, parallel >= 1; capacity > 0; the OCV
 * table has at least 3 points (GSL Steffen needs 3), SOC strictly increasing within [0, 1], OCV
 * never decreasing by more than SITS_BATTERY_OCV_NOISE_V and not flat overall, every OCV in
 * (0, 2000) V; R0 > 0, R_k, C_k > 0; 0 < cutoff, below the OCV at the highest SOC. A capacity given in Wh is converted to the cell's Ah
 * through the mean OCV over SOC in [0, 1]: Q_ah = Wh / (series parallel mean_OCV). NULL with the
 * reason in @p err.
 */
SITS_API sits_battery *sits_battery_new(const sits_battery_cfg *cfg, sits_err *err);
SITS_API void sits_battery_free(sits_battery *b);

SITS_API const sits_battery_cfg *sits_battery_config(const sits_battery *b);
/** The cell's dynamic states after SOC: its n_rc RC voltages, then h with hysteresis. The
 *  v_rc_v arrays below hold them all. */
SITS_API size_t sits_battery_state_count(const sits_battery *b);
/** The cell capacity [Ah] (given or converted). */
SITS_API double sits_battery_capacity_ah(const sits_battery *b);
/** The cell capacity [Ah] at cell temperature @p temp_c: sits_battery_capacity_ah() times the
 *  q_scale factor there (the same without capacity rows). */
SITS_API double sits_battery_capacity_at_ah(const sits_battery *b, double temp_c);
/** OCV [V] at @p soc (clamped to the table's range), at r_ref_c for a 2-D table. */
SITS_API double sits_battery_ocv_v(const sits_battery *b, double soc);
/** OCV [V] at @p soc and cell temperature @p temp_c (the same as sits_battery_ocv_v() for a
 *  1-D table). */
SITS_API double sits_battery_ocv_at_v(const sits_battery *b, double soc, double temp_c);
/** Mean OCV over SOC in [0, 1] [V] (the integral of the interpolant; at r_ref_c). */
SITS_API double sits_battery_mean_ocv_v(const sits_battery *b);
/** Arrhenius factor on the resistances at @p temp_c (1 at r_ref_c or with Ea = 0). */
SITS_API double sits_battery_r_scale(const sits_battery *b, double temp_c);

/**
 * Cell current [A] for a pack output power @p p_pack_w at state (soc, v_rc) and
 * temperature @p temp_c; the cell terminal voltage into *v_cell_v and, when @p disc_v2 is
 * not NULL, the quadratic's discriminant b^2 - 4 R0 p [V^2] (the brown-out margin). Returns
 * false on a brown-out (no real root). With instantaneous hysteresis (hyst_m0_v) the voltage
 * has + hyst_m0_v s: s = -1 for p > 0 (discharging), +1 for p < 0, @p s_rest at p = 0 (the
 * sign after the last current: -1 after a discharge, +1 after a charge, 0 none).
 */
SITS_API bool sits_battery_current_a(const sits_battery *b, double soc, const double *v_rc_v,
                                     double temp_c, double p_pack_w, double s_rest,
                                     double *i_cell_a, double *v_cell_v, double *disc_v2);

/** State derivatives for cell current @p i_cell_a at @p soc and @p temp_c (the RC pairs' R
 *  from their tables or Arrhenius factor): dSOC/dt [1/s], dV_k/dt [V/s] and, with
 *  hysteresis, dh/dt [1/s] after them. */
SITS_API void sits_battery_derivative(const sits_battery *b, double soc, const double *v_rc_v,
                                      double temp_c, double i_cell_a, double *dsoc_dt,
                                      double *dv_rc_dt);

/** Open-circuit energy of the pack between @p soc_lo and @p soc_hi [J]:
 *  series parallel Q 3600 * integral of OCV dSOC. */
SITS_API double sits_battery_pack_energy_j(const sits_battery *b, double soc_lo, double soc_hi);

/** Joule heat of the whole pack [W], with R0 and the pairs' R at @p soc and @p temp_c. */
SITS_API double sits_battery_heat_w(const sits_battery *b, double soc, const double *v_rc_v,
                                    double temp_c, double i_cell_a);

/** R0 of a cell at @p soc and @p temp_c [ohm] (its tables, or r0_ohm times the Arrhenius
 *  factor). */
SITS_API double sits_battery_r0_ohm(const sits_battery *b, double soc, double temp_c);
/** R of RC pair @p k at @p soc and @p temp_c [ohm]. */
SITS_API double sits_battery_rc_r_ohm(const sits_battery *b, size_t k, double soc, double temp_c);

/** C of RC pair @p k at @p soc and @p temp_c [F] (its c_scale table, or rc_c_f). */
SITS_API double sits_battery_rc_c_f(const sits_battery *b, size_t k, double soc, double temp_c);

/** dOCV/dT of a cell at @p soc and @p temp_c [V/K]: the slope between the OCV rows around
 *  temp_c (0 with one row, and outside the rows' temperatures). */
SITS_API double sits_battery_docv_dt_v_per_k(const sits_battery *b, double soc, double temp_c);

/** Entropic heat of the whole pack [W]: -i (T + 273.15) dOCV/dT per cell, times the cells;
 *  0 unless the cell's entropic_heat is set. */
SITS_API double sits_battery_entropic_w(const sits_battery *b, double soc, double temp_c,
                                        double i_cell_a);

/** Everything of a cell at one state and pack power, as sits_battery_current_a,
 *  sits_battery_heat_w + sits_battery_entropic_w and sits_battery_derivative give it (the same
 *  values, bit for bit), with the temperature's Arrhenius factor, table rows and resistances
 *  taken once: what a simulation evaluates at every state. */
typedef struct sits_battery_point {
  bool ok;                                  /**< false on a brown-out (sits_battery_current_a) */
  double i_cell_a;                          /**< cell current [A] */
  double v_cell_v;                          /**< cell terminal voltage [V] */
  double disc_v2;                           /**< the quadratic's discriminant [V^2] */
  double heat_w;                            /**< the pack's Joule and entropic heat [W] */
  double dsoc_dt;                           /**< [1/s] */
  double dv_rc_dt[SITS_BATTERY_MAX_RC + 1]; /**< the pairs' dV/dt [V/s], then dh/dt [1/s] */
} sits_battery_point;

/** Fills @p out for pack output power @p p_pack_w at state (soc, v_rc) and @p temp_c
 *  (@p s_rest as for sits_battery_current_a); returns out->ok. */
SITS_API bool sits_battery_eval(const sits_battery *b, double soc, const double *v_rc_v,
                                double temp_c, double p_pack_w, double s_rest,
                                sits_battery_point *out);

SITS_END_DECLS

#endif

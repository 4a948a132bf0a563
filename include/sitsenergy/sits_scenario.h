/*
 * sits_scenario.h - a loaded and validated scenario: platform, workload, settings.
 *
 * Loading reads the scenario file, merges the platform and workload files it names and
 * the --set overrides, checks every key and value (errors name file:line), and builds
 * the thermal network and the input schedule that sits_run() integrates.
 */
#ifndef SITS_SCENARIO_H
#define SITS_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>

#include "sits_battery.h"
#include "sits_governor.h"
#include "sits_ode.h"
#include "sits_power.h"
#include "sits_schedule.h"
#include "sits_status.h"
#include "sits_thermal.h"

SITS_BEGIN_DECLS

typedef struct sits_scenario sits_scenario;

/**
 * Loads the scenario file @p path with the overrides @p sets ("KEY=VALUE", n_sets of
 * them; may be NULL when n_sets is 0). On success *out is a new scenario to free with
 * sits_scenario_free(). On failure *out is NULL and @p err says `file:line: what`:
 * SITS_EINPUT for bad input, SITS_EUNSUPPORTED for groups this version does not model.
 */
SITS_API int sits_scenario_load(const char *path, const char *const *sets, size_t n_sets,
                                sits_scenario **out, sits_err *err);

/** sits_scenario_load from the text @p text (a scenario file's contents); @p name (NULL:
 *  "<text>") stands for the file in messages; file names, platform and workload names and
 *  @include resolve against the working folder. */
SITS_API int sits_scenario_load_text(const char *text, const char *name, const char *const *sets,
                                     size_t n_sets, sits_scenario **out, sits_err *err);

/** Frees @p sc; NULL is a no-op. */
SITS_API void sits_scenario_free(sits_scenario *sc);

/**
 * Turns @p sc into a replay of measured power: @p schedule (owned from now on, freed on error
 * too) replaces the workload, the domains, static power, battery and governor are dropped
 * (the measured power already holds them), the run lasts @p duration_s with samples every
 * @p sample_period_s, and the nodes start at @p initial_c (n values in degC; NULL keeps
 * the scenario's).
 */
SITS_API int sits_scenario_make_replay(sits_scenario *sc, sits_schedule *schedule,
                                       double duration_s, double sample_period_s,
                                       const double *initial_c, sits_err *err);

SITS_API const sits_thermal *sits_scenario_thermal(const sits_scenario *sc);
SITS_API const sits_schedule *sits_scenario_schedule(const sits_scenario *sc);
/** Constant power per node [W] (platform static_w), n nodes (borrowed). */
SITS_API const double *sits_scenario_static_power_w(const sits_scenario *sc);
SITS_API double sits_scenario_duration_s(const sits_scenario *sc);
SITS_API double sits_scenario_sample_period_s(const sits_scenario *sc);
/** Notes of the loader: facts about the inputs a user should know that are not errors (e.g.
 *  a battery whose OCV at SOC 0 lies above its cutoff). The CLI prints them on stderr and the
 *  summary JSON lists them. */
SITS_API size_t sits_scenario_note_count(const sits_scenario *sc);
/** Note @p k (borrowed), NULL past the end. */
SITS_API const char *sits_scenario_note(const sits_scenario *sc, size_t k);
/** What the scenario's answers rest on besides measurements of the board, in words: the
 *  platform's values its file marks as estimated (platform.estimated), the cooling (the fan
 *  curves in force, or one resistance per path: a fan at one speed or passive cooling), a
 *  pack without temperature dependence or without a thermal node of its own, workload rates
 *  taken from the roofline, and the notes above. Every summary lists them. */
SITS_API size_t sits_scenario_assumption_count(const sits_scenario *sc);
/** Assumption @p k (borrowed), NULL past the end. */
SITS_API const char *sits_scenario_assumption(const sits_scenario *sc, size_t k);
/** The --set overrides the scenario was loaded with ("KEY=VALUE", borrowed). */
SITS_API size_t sits_scenario_override_count(const sits_scenario *sc);
SITS_API const char *sits_scenario_override(const sits_scenario *sc, size_t k);
/** FNV-1a (64 bits) of the merged configuration text: equal hashes, the same scenario. */
SITS_API unsigned long long sits_scenario_config_hash(const sits_scenario *sc);
/** The files the scenario was loaded from, in the order met (the scenario, the platform,
 *  battery and workload files, included files, workload traces and floorplan files); a
 *  program checks its outputs against them. */
SITS_API size_t sits_scenario_input_count(const sits_scenario *sc);
/** Input file @p k (borrowed), NULL past the end. */
SITS_API const char *sits_scenario_input(const sits_scenario *sc, size_t k);
/** Records how the scenario was made (e.g. the command line; copied, NULL clears): HDF5
 *  outputs store it as the root attribute `command_line`. SITS_ENOMEM on failure. */
SITS_API int sits_scenario_set_origin(sits_scenario *sc, const char *text);
/** The text given to sits_scenario_set_origin(), or NULL (borrowed). */
SITS_API const char *sits_scenario_origin(const sits_scenario *sc);
/** The merged configuration as libconfig text (borrowed). */
SITS_API const char *sits_scenario_config_text(const sits_scenario *sc);

/**
 * Changes one number of a loaded scenario in memory, as if it had been given with --set when
 * loading, without reading any file again: `ambient_c` (the ambient of every input segment
 * that had no ambient of its own follows it), `platform.thermal.links.[K].r_k_per_w`,
 * `platform.thermal.nodes.[K].c_j_per_k` and `platform.thermal.nodes.[K].initial_c` (K counts
 * the config's links and nodes; not for floorplan networks). The merged configuration
 * (sits_scenario_config_text) records the value. SITS_EUNSUPPORTED for other paths (reload
 * with --set), SITS_EINPUT for a value the model refuses.
 */
SITS_API int sits_scenario_set_number(sits_scenario *sc, const char *path, double value,
                                      sits_err *err);

/** The DVFS domains (borrowed, *n of them; @p n may be NULL). */
SITS_API const sits_domain *sits_scenario_domains(const sits_scenario *sc, size_t *n);
/** The scenario's ambient temperature [degC] (ambient_c). */
SITS_API double sits_scenario_ambient_c(const sits_scenario *sc);
/** The battery (borrowed), or NULL for a wall-powered platform. */
SITS_API const sits_battery *sits_scenario_battery(const sits_scenario *sc);
/** The governor settings. */
SITS_API const sits_governor_cfg *sits_scenario_governor(const sits_scenario *sc);

/** Constraint limits; NAN when the scenario does not set them. */
typedef struct sits_limits {
  double tdp_budget_w;
  double tdp_window_s;
  double max_junction_temp_c;
  double max_latency_ms;
  double max_energy_per_item_mj;
  double min_battery_life_s; /**< a lower bound */
} sits_limits;
SITS_API const sits_limits *sits_scenario_limits(const sits_scenario *sc);

/** The integrator of a run (key solver.method). */
typedef enum sits_solver_method {
  SITS_METHOD_AUTO,       /**< exponential up to SITS_EXPINT_AUTO_MAX_STATES, else CVODE stepping
                               past ticks (on the layered-grid solver for grid floorplans) */
  SITS_METHOD_CVODE,      /**< the reference path: CVODE stopping at every breakpoint */
  SITS_METHOD_EXPONENTIAL /**< ETD2RK (sits_expint.h); an error above its size limit */
} sits_solver_method;

/** Solver settings (scenario group `solver`). */
typedef struct sits_solver_settings {
  sits_solver_method method;
  double rtol;
  double atol_k;
  sits_linsol linsol;
  size_t klu_threshold;
  bool skip_quiet_ticks; /**< skip ticks proved to change nothing (solver.skip_quiet_ticks) */
} sits_solver_settings;
SITS_API const sits_solver_settings *sits_scenario_solver(const sits_scenario *sc);

/** The scenario's domains and nodes by index (NULL past the end). */
SITS_API size_t sits_scenario_domain_count(const sits_scenario *sc);
/** The platform's fans (platform.fans) and their names (NULL past the end). */
SITS_API size_t sits_scenario_fan_count(const sits_scenario *sc);
SITS_API const char *sits_scenario_fan_name(const sits_scenario *sc, size_t k);
SITS_API const char *sits_scenario_domain_name(const sits_scenario *sc, size_t d);
SITS_API size_t sits_scenario_node_count(const sits_scenario *sc);
SITS_API const char *sits_scenario_node_name(const sits_scenario *sc, size_t i);

SITS_END_DECLS

#endif

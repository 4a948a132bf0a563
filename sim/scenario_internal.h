/* scenario_internal.h - the scenario's fields, shared by sim/ and offered to the layers above it
 * (never installed). */
#ifndef SITS_SCENARIO_INTERNAL_H
#define SITS_SCENARIO_INTERNAL_H

#define SITS_PACK_NODE "battery" /* the pack's own node (battery.thermal) */

#include <stdarg.h>
#include "config_internal.h"
#include "platform_internal.h"
#include "sits_battery.h"
#include "sits_governor.h"
#include "sits_scenario.h"

/* What a domain can do for a workload's platform-neutral work (workload.work): its class and
 * its dense peak throughput at the top OPP. */
typedef enum {
  SITS__UNIT_OTHER,
  SITS__UNIT_CPU,
  SITS__UNIT_GPU,
  SITS__UNIT_NPU,
  SITS__UNIT_VENC,
  SITS__UNIT_VDEC
} sits__unit;
enum { SITS__FP32, SITS__FP16, SITS__INT8, SITS__INT4, SITS__N_PREC };
typedef struct sits__dom_caps {
  sits__unit unit;
  double tops[SITS__N_PREC]; /* tera-ops/s by precision; NAN where not stated */
  double tops_efficiency;    /* the share of tops a network reaches */
  double mpix_per_s;         /* a video unit's Mpixel/s; NAN where not stated */
} sits__dom_caps;

/* The board's device-tree and nvpmodel names (platform.device_tree, platform.nvpmodel and the
 * domains' dt_* keys; board_cfg.c). Labels are [A-Za-z0-9_], checked on load. */
#define SITS__DT_LABELS 16
#define SITS__DT_ZONES 16
typedef char sits__label[32];
typedef struct sits__dt_zone {
  char name[14];    /* without "-thermal" */
  double sensor_id; /* NAN: no cell */
  sits__label cooling[SITS__DT_LABELS];
  size_t n_cooling;
} sits__dt_zone;
typedef struct sits__dt_domain {
  sits__label cpus[SITS__DT_LABELS], node;
  size_t n_cpus, cluster_size;
  bool opp_table;
  double volt_max_v, clock_latency_ns, suspend_mhz; /* NAN: not given */
} sits__dt_domain;
typedef struct sits__nvp_clock {
  int domain;
  char params[4][32];
  size_t n_params;
  double unit_hz;
  bool min_freq, power_control;
} sits__nvp_clock;
typedef struct sits__board {
  bool dt;                                                         /* platform.device_tree given */
  sits__label sensor;                                              /* thermal_sensor */
  double critical_c, hysteresis_c, polling_ms, polling_passive_ms; /* NAN: not given */
  sits__dt_zone zones[SITS__DT_ZONES];
  size_t n_zones;
  sits__dt_domain dom[SITS_MAX_DOMAINS];
  bool nvp; /* platform.nvpmodel given */
  char stock[16][32];
  size_t n_stock;
  sits__nvp_clock clocks[SITS_MAX_DOMAINS];
  size_t n_clocks;
  double cpu_cores; /* platform.nvpmodel.cpu_cores: CPU_ONLINE CORE_0.. lines (0: none) */
  bool emc;         /* platform.nvpmodel.emc: an EMC MAX_FREQ 0 line (no memory cap) */
} sits__board;

/* A fan: a cooling device that sets one link's resistance by its duty (platform.fans;
 * fans.c). The link's resistance in the network is the fan's at initial_duty; a run adds the
 * difference of conductances at the duty it is at. */
#define SITS__MAX_FANS SITS_MAX_FANS
#define SITS__FAN_POINTS 16
#define SITS__FAN_TRIPS 8
typedef struct sits__fan {
  char name[32];
  size_t link; /* index into the network's links */
  int a, b;    /* its ends; b = -1: the ambient */
  double duty[SITS__FAN_POINTS], r_k_per_w[SITS__FAN_POINTS];
  size_t n_points;
  double initial_duty;
  double trip_c[SITS__FAN_TRIPS], hysteresis_c[SITS__FAN_TRIPS], trip_duty[SITS__FAN_TRIPS];
  size_t n_trips;
  int sensor; /* the node the trips read */
  double period_s;
} sits__fan;

struct sits_scenario {
  sits__config config;
  char *config_text; /* the merged config as text; NULL after a change (made again on demand) */
  sits_thermal *thermal;
  sits_schedule *schedule;
  double *static_power_w; /* per node */
  double duration_s, ambient_c, sample_period_s;
  double max_samples; /* the bound on a run's samples and a replayed trace's rows */
  sits_limits limits;
  sits_solver_settings solver;
  sits_domain domains[SITS_MAX_DOMAINS];
  size_t n_domains;
  sits__dom_caps caps[SITS_MAX_DOMAINS];
  double mem_gb_per_s, mem_efficiency; /* the platform's DRAM (NAN: not stated) */
  bool work;                           /* the workload states platform-neutral 'work' */
  double work_rate[SITS_MAX_DOMAINS];  /* items/s each domain does of it at f_max (0: none) */
  sits_governor_cfg gov;
  sits_battery *battery;  /* NULL: wall-powered */
  int batt_node;          /* -1: isothermal at the ambient */
  bool batt_own_node;     /* batt_node is the pack's own (platform.battery.thermal) */
  size_t batt_link;       /* the own node's link to the ambient (the network's link index) */
  double batt_node_scale; /* battery_capacity_wh over the pack file's energy (0: not scaled) */
  double batt_initial_soc, batt_efficiency;
  sits__group *groups; /* grid floorplan blocks */
  size_t n_groups;
  double *block_share; /* (SITS_MAX_DOMAINS + 1) x n_groups: domain d's share of its power into
                        * block g (row SITS_MAX_DOMAINS: static power's); NULL: no grid */
  size_t *amb_rows;    /* schedule segments whose ambient is ambient_c (no value of their own) */
  size_t n_amb_rows, cap_amb_rows;
  bool hotspot;                /* the network is a floorplan's (its links are not the config's) */
  size_t grid_rows, grid_cols; /* a grid floorplan: 4 layers of cells are nodes 0..4RC-1 */
  size_t n_blocks;             /* a floorplan's blocks (block model: nodes 0..n_blocks-1) */
  double grid_width_m, grid_height_m;
  char **notes; /* what the loader wants the user to know (sits_scenario_note) */
  size_t n_notes;
  char **assumptions; /* what the answers rest on (assumptions.c; the notes among them) */
  size_t n_assumptions;
  char *origin; /* how it was made (the command line), or NULL */
  sits__board board;
  sits__fan fans[SITS__MAX_FANS];
  size_t n_fans;
  /* a replay whose trace gives domains' clocks and loads (replay.domains): those domains stay
   * (their power modelled, leakage included), without a governor */
  bool traced_domains;
};

/** Keeps the domains with keep[d] (in order; the others' arrays freed at the end as ever). */
void sits__scenario_keep_domains(sits_scenario *sc, const bool *keep);

/** Reads the platform's `fans` list (after the links) and sets each fan link's resistance to
 *  the fan's at its initial duty. */
int sits__load_fans(sits_scenario *sc, const config_setting_t *platform, sits_err *err);
/** The conductance [W/K] of fan @p f's link at duty @p duty (0-1): its table's resistances
 *  taken as conductances, Steffen-interpolated (linear for two points), held outside. */
double sits__fan_g_w_per_k(const sits__fan *f, double duty);
/** The duty fan @p f's trips ask for at @p temp_c, from @p on trips on (updated: a trip turns
 *  on above trip_c and off below trip_c - hysteresis_c). */
double sits__fan_trip_duty(const sits__fan *f, double temp_c, size_t *on);
/** Re-sets fan @p k's link in the network after a change of its table. */
int sits__fan_apply(sits_scenario *sc, size_t k, sits_err *err);

/** Appends a segment to sc->schedule (sits_schedule_append); @p scenario_ambient: its ambient
 *  is the scenario's ambient_c, and follows it when sits_scenario_set_number changes it. */
int sits__scenario_append(sits_scenario *sc, double start_s, const double *values, double ambient_c,
                          bool scenario_ambient, sits_err *err);

/** Why a power input may not name a grid block (it would heat one cell). */
#define SITS__GRID_BLOCK_POWER                                                                     \
  "a block of a grid floorplan is many cells; power inputs name nodes (cells L<layer>_<row>_"      \
  "<col>) — a domain over the block spreads its power by area"

/** Records that @p share of row @p d's power (a domain, or SITS_MAX_DOMAINS: static power)
 *  goes to group @p grp (a grid block). */
int sits__scenario_block_share(sits_scenario *sc, size_t d, const sits__group *grp, double share,
                               sits_err *err);
/** The group named @p name, or NULL. */
const sits__group *sits__scenario_group(const sits_scenario *sc, const char *name);

/** Reads the platform's `battery` group, battery_capacity_wh and min_battery_life_s. */
int sits__load_battery(sits_scenario *sc, const config_setting_t *root, sits_err *err);

/** Reads the platform's `domains` list. */
int sits__load_domains(sits_scenario *sc, const config_setting_t *platform, sits_err *err);
/** Reads the platform's `device_tree` and `nvpmodel` groups and the domains' dt_* keys. */
int sits__load_board(sits_scenario *sc, const config_setting_t *platform, sits_err *err);
/** Reads the platform's `governor` group (defaults: performance, 0.1 s). */
int sits__load_governor(sits_scenario *sc, const config_setting_t *platform, sits_err *err);
/**
 * Steady temperatures @p t (n) with domain d at OPP opp[d] and utilisation util[d],
 * other power base_w (per node) and the ambient; total power into *total_w. On runaway
 * the temperatures are NAN and *runaway is true.
 */
int sits__steady_at(const sits_scenario *sc, const size_t *opp, const double *util,
                    const double *base_w, double ambient_c, double *t, double *total_w,
                    bool *runaway, sits_err *err);
/** sits__steady_at on the network @p th (the scenario's, or a copy with other link
 *  resistances). */
int sits__steady_at_net(const sits_scenario *sc, const sits_thermal *th, const size_t *opp,
                        const double *util, const double *base_w, double ambient_c, double *t,
                        double *total_w, bool *runaway, sits_err *err);
/** A cell's resistance to a steady current with its RC pairs settled, R0 + sum R_k [ohm], at
 *  @p soc and @p temp_c; and the voltage a long discharge's hysteresis takes off its OCV
 *  (m0 + m: the sign and the dynamic state at -1) [V] (summary.c: the life estimate; the
 *  steady pack heat). */
double sits__battery_settled_r_ohm(const sits_battery *b, double soc, double temp_c);
double sits__battery_discharge_hyst_v(const sits_battery_cfg *cfg);
/** sits__steady_at with the fans at the duties their trips settle to (fans.c): duty[f] and
 *  cycles[f] per fan (may be NULL). */
int sits__steady_with_fans(const sits_scenario *sc, const size_t *opp, const double *util,
                           const double *base_w, double ambient_c, double *t, double *total_w,
                           bool *runaway, double *duty, bool *cycles, sits_err *err);
/**
 * The kernel IPA's sustainable power of a thermal zone: the power its actors (share[d] of
 * domain d; 1: all of it) dissipate in steady state with the hottest junction at
 * @p control_c, static power on and every other actor at its minimum (its lowest OPP at full
 * load, the least power the IPA can grant), leakage at the resulting temperatures. *p_max_w:
 * the actors' full-load power at their top OPP at those temperatures. NAN when the rest
 * runs away; 0 when the junction is at control_c without the zone.
 */
int sits__zone_sustainable_w(const sits_scenario *sc, const double *share, double ambient_c,
                             double control_c, double *p_w, double *p_max_w, sits_err *err);
/** The hottest junction node's temperature of @p t (every node when none is a junction). */
double sits__junction_max(const sits_thermal *th, const double *t);
/** Index of the domain named @p name, or -1. */
int sits__find_domain(const sits_scenario *sc, const char *name);

/**
 * Sets duration_s and sample_period_s; @p workload_s is the workload's natural length
 * (0 when it repeats or has none), the default duration.
 */
int sits__load_times(sits_scenario *sc, const config_setting_t *root, double workload_s,
                     sits_err *err);
/** Reads the workload (phases or trace), sets the times, builds sc->schedule. */
int sits__load_workload(sits_scenario *sc, const config_setting_t *root, sits_err *err);
/** Reads static_w / static_node of the platform group @p p. */
int sits__load_static_power(sits_scenario *sc, const config_setting_t *p, sits_err *err);
/** The error for a reference to a node that does not exist, with a suggestion. */
int sits__unknown_node(const sits_thermal *th, const config_setting_t *s, const char *what,
                       const char *name, sits_err *err);

/** Adds a note (printf-style) to @p sc; SITS_ENOMEM on failure. */
/** A new copy of the network with each fan at the duty its trips give with its sensor at
 *  @p sensor_c (steady_state.c; free it with sits_thermal_free), NULL with @p err set. */
sits_thermal *sits__net_with_fans_at_c(const sits_scenario *sc, double sensor_c, sits_err *err);
/** ,"assumptions":[...]: what the answers rest on, for the JSON writers (summary, steady,
 *  replay). */
void sits__json_assumptions(FILE *f, const sits_scenario *sc);
/** The scenario's assumptions (assumptions.c), after everything else is loaded. */
int sits__scenario_assumptions(sits_scenario *sc, const config_setting_t *root, sits_err *err);
/** Whether the run's samples (duration_s / sample_period_s + 1) are within max_samples. */
int sits__check_samples(const sits_scenario *sc, sits_err *err);
int sits__scenario_note(sits_scenario *sc, sits_err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** Appends the formatted text (at most 1023 bytes) to the list @p list of @p n strings
 *  (realloc'ed; each string malloc'ed): the notes' and the assumptions' appender. */
int sits__strlist_addv(char ***list, size_t *n, sits_err *err, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

/**
 * Applies "KEY=VALUE" overrides to a loaded scenario in memory, exactly as a load with them
 * as --set would have (the same model values and the same configuration text, so the same
 * config_hash, when the scenario was loaded with the same keys set last): numbers only, keys
 * sits_scenario_set_number takes, within the key table's ranges. SITS_EUNSUPPORTED, with
 * nothing changed, when one is not such (load with --set instead); a value the model refuses
 * fails with its message (the scenario is then partly changed: apply again or reload).
 */
int sits__scenario_apply_sets(sits_scenario *sc, const char *const *sets, size_t n, sits_err *err);

/** The control temperature of the board's zones: the thermal governor's trip (step_wise) or
 *  control temperature (power_allocator), else max_junction_temp_c (sim/nvp_mode.c). */
double sits__control_c(const sits_scenario *sc);

/* What the layers above sim/ (traces, calibration) read of a scenario besides the public
 * accessors: the merged configuration, the scenario file's path, the network to change, a
 * fan's model, and whether a trace drives the domains. */
const config_t *sits__scenario_cfg(const sits_scenario *sc);
const char *sits__scenario_path(const sits_scenario *sc);
sits_thermal *sits__scenario_thermal_mut(sits_scenario *sc);
const sits__fan *sits__scenario_fan(const sits_scenario *sc, size_t k); /**< NULL past the end */
bool sits__scenario_traced_domains(const sits_scenario *sc);
void sits__scenario_set_traced_domains(sits_scenario *sc);

#endif

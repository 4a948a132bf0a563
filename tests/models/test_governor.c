/*
 * test_governor.c - one conformance suite for every base governor, and the thermal and
 * power-cap policies on scripted inputs.
 */
#include "test_util.h"

#include "sits_governor.h"

/* the domain's node arrays: one node */
static int one_node[1] = {0};
static double whole[1] = {1.0};

static sits_domain five_opps(void) {
  sits_domain d;
  memset(&d, 0, sizeof d);
  snprintf(d.name, sizeof d.name, "gpu");
  d.n_nodes = 1;
  d.nodes = one_node, d.fractions = whole;
  d.n_opp = 5;
  for (size_t k = 0; k < 5; k++)
    d.opp[k] = (sits_opp){200.0 * (double)(k + 1), 0.6 + 0.1 * (double)k, NAN, NAN};
  d.ceff_f = 2e-9;
  d.leak_ref_v = 1.0;
  d.leak_ref_c = 25;
  d.max_rate = 100;
  return d;
}

static sits_governor_cfg cfg_of(sits_base_kind kind) {
  sits_governor_cfg c;
  memset(&c, 0, sizeof c);
  c.base = kind;
  c.period_s = 0.1;
  c.up_threshold = 0.8;
  c.fixed_opp[0] = 2;
  return c;
}

/* A past of constant power: the energy over [t0, 0] is past_w * (0 - t0). */
static double constant_past(double t0_s, void *user) {
  return *(double *)user * (0 - t0_s);
}

static size_t tick_once(sits_governor *g, double demand, double temp_c, double past_w) {
  double dem[1] = {demand}, temp[1] = {temp_c};
  sits_governor_obs obs = {.t_s = 0,
                           .sensor_c = temp_c,
                           .demand = dem,
                           .domain_temp_c = temp,
                           .other_power_w = 0,
                           .energy_since = constant_past,
                           .energy_user = &past_w};
  sits_governor_out out;
  sits_governor_tick(g, &obs, &out);
  return out.opp[0];
}

/* Every base governor: an OPP in range, monotone in demand, deterministic, and with no
 * thermal governor or cap the final OPP is the base choice. */
Test(governor_conformance, every_base_kind) {
  sits_domain d = five_opps();
  for (int kind = 0; kind < SITS_GOV_BASE_COUNT; kind++) {
    sits_governor_cfg c = cfg_of((sits_base_kind)kind);
    cr_assert_eq(sits_base_kind_from_name(sits_base_kind_name((sits_base_kind)kind)), kind);
    sits_governor *g = sits_governor_new(&c, &d, 1);
    size_t prev = 0;
    for (double dem = 0; dem <= 1.5; dem += 0.01) {
      size_t k = tick_once(g, dem, 25, 0);
      cr_assert_lt(k, d.n_opp, "%s", sits_base_kind_name((sits_base_kind)kind));
      cr_assert_geq(k, prev, "%s not monotone at %g", sits_base_kind_name((sits_base_kind)kind),
                    dem);
      cr_assert_eq(k, sits_governor_base_opp(&c, &d, 0, dem));
      cr_assert_eq(k, tick_once(g, dem, 25, 0), "deterministic");
      prev = k;
    }
    sits_governor_free(g);
  }
  cr_assert_eq(sits_base_kind_from_name("turbo"), -1);
}

Test(governor, fixed_performance_powersave) {
  sits_domain d = five_opps();
  sits_governor_cfg c = cfg_of(SITS_GOV_FIXED);
  cr_assert_eq(sits_governor_base_opp(&c, &d, 0, 0.9), 2);
  c.base = SITS_GOV_PERFORMANCE;
  cr_assert_eq(sits_governor_base_opp(&c, &d, 0, 0.0), 4);
  c.base = SITS_GOV_POWERSAVE;
  cr_assert_eq(sits_governor_base_opp(&c, &d, 0, 1.0), 0);
}

Test(governor, ondemand_stepped_demand) {
  sits_domain d = five_opps(); /* cap(f) = f / 1000 with mem_bound 0 */
  sits_governor_cfg c = cfg_of(SITS_GOV_ONDEMAND);
  /* lowest OPP with cap >= demand / 0.8 */
  const double demand[] = {0.0, 0.1, 0.3, 0.5, 0.7, 0.9};
  const size_t want[] = {0, 0, 1, 3, 4, 4}; /* 0.125 -> 200, 0.375 -> 400, 0.625 -> 800, ... */
  for (size_t i = 0; i < 6; i++)
    cr_assert_eq(sits_governor_base_opp(&c, &d, 0, demand[i]), want[i], "demand %g", demand[i]);
}

Test(governor, schedutil_maps_util_to_frequency) {
  sits_domain d = five_opps();
  sits_governor_cfg c = cfg_of(SITS_GOV_SCHEDUTIL);
  /* f = 1.25 * 1000 * u rounded up to an OPP */
  cr_assert_eq(sits_governor_base_opp(&c, &d, 0, 0.15), 0); /* 187.5 -> 200 */
  cr_assert_eq(sits_governor_base_opp(&c, &d, 0, 0.3), 1);  /* 375 -> 400 */
  cr_assert_eq(sits_governor_base_opp(&c, &d, 0, 0.5), 3);  /* 625 -> 800 */
  cr_assert_eq(sits_governor_base_opp(&c, &d, 0, 0.8), 4);  /* 1000 */
}

Test(governor, step_wise_steps_and_releases) {
  sits_domain d = five_opps();
  sits_governor_cfg c = cfg_of(SITS_GOV_PERFORMANCE);
  c.thermal = SITS_THERMAL_STEP_WISE;
  c.trip_c = 80;
  c.hysteresis_c = 5;
  sits_governor *g = sits_governor_new(&c, &d, 1);
  cr_assert_eq(tick_once(g, 1, 79, 0), 4);
  cr_assert_eq(tick_once(g, 1, 81, 0), 3); /* one step per period above the trip */
  cr_assert_eq(tick_once(g, 1, 82, 0), 2);
  cr_assert_eq(tick_once(g, 1, 78, 0), 2); /* inside the hysteresis band: hold */
  cr_assert_eq(tick_once(g, 1, 74, 0), 3); /* below trip - hysteresis: release one step */
  cr_assert_eq(tick_once(g, 1, 74, 0), 4);
  cr_assert_eq(tick_once(g, 1, 74, 0), 4);
  for (int i = 0; i < 10; i++)
    tick_once(g, 1, 90, 0);
  cr_assert_eq(tick_once(g, 1, 90, 0), 0); /* saturates at the lowest OPP */
  sits_governor_free(g);
}

Test(governor, power_allocator_budget) {
  sits_domain d = five_opps(); /* full power = 2e-9 V^2 f: 0.144, 0.392, 0.768, 1.28, 1.92 W */
  sits_governor_cfg c = cfg_of(SITS_GOV_PERFORMANCE);
  c.thermal = SITS_THERMAL_POWER_ALLOCATOR;
  c.switch_on_c = 60;
  c.control_c = 80;
  c.sustainable_power_w = 0.8;
  c.weight[0] = 1;
  sits_governor *g = sits_governor_new(&c, &d, 1);
  cr_assert_eq(tick_once(g, 1, 50, 0), 4); /* below switch-on: no limit */
  /* at the control temperature the budget is the sustainable power: 0.768 W fits */
  cr_assert_eq(tick_once(g, 1, 80, 0), 2);
  /* 20 K below control: 0.8 + 2*0.8/20*20 = 2.4 W -> top */
  cr_assert_eq(tick_once(g, 1, 60.5, 0), 4);
  /* far above: the budget goes to 0, the lowest OPP */
  cr_assert_eq(tick_once(g, 1, 100, 0), 0);
  sits_governor_free(g);
}

Test(governor, power_cap_keeps_the_window_average) {
  sits_domain d = five_opps();
  sits_governor_cfg c = cfg_of(SITS_GOV_PERFORMANCE);
  c.power_cap = true;
  c.cap_window_s = 1.0;
  c.tdp_budget_w = 1.0;
  sits_governor *g = sits_governor_new(&c, &d, 1);
  /* a past at the budget (1 W): 1 W allowed for the next 0.1 s -> 0.768 W (600 MHz) */
  cr_assert_eq(tick_once(g, 1, 25, 1.0), 2);
  /* an idle past: the tightest window is the full one ahead: 1 J over 0.1 s plus nine
   * periods at the lowest OPP (0.144 W): (1 - 9 * 0.1 * 0.144) / 0.1 = 8.7 W -> top */
  cr_assert_eq(tick_once(g, 1, 25, 0.0), 4);
  /* a past far over budget: the lowest OPP */
  cr_assert_eq(tick_once(g, 1, 25, 2.0), 0);
  sits_governor_free(g);
}

/* sits_governor_quiet: a span may be skipped only where no tick would change anything. For
 * step_wise at 80 C with 5 K of hysteresis: quiet at state 0 up to the trip, not above it; in a
 * raised state only while the sensor stays in [75, 80] (below 75 it releases a step, a state
 * change though the output may not change yet). For IPA switching on at 60 C: quiet below it.
 * Under a 1-W cap: quiet when the power bound and the window are at most 1 W, or when every
 * domain is at its lowest OPP (nothing to lower); not otherwise. In every case the OPPs held
 * must be those a quiet tick gives (the base OPP under the cooling state's limit): after the
 * cap has lowered the domain, a tick with the window at its budget raises it again, so the
 * lowered OPP is not quiet. Each verdict is checked against a tick at the bound's ends. */
Test(governor, quiet_only_where_ticks_change_nothing) {
  sits_domain d = five_opps();
  double full[1] = {1.0}, none[1] = {0.0};
  size_t top[1] = {4}, three[1] = {3}, two[1] = {2}, lowest[1] = {0};
  sits_governor_cfg c = cfg_of(SITS_GOV_SCHEDUTIL);
  c.thermal = SITS_THERMAL_STEP_WISE;
  c.trip_c = 80;
  c.hysteresis_c = 5;
  sits_governor *g = sits_governor_new(&c, &d, 1);
  cr_assert(sits_governor_quiet(g, full, top, 40, 80, NAN, true));
  cr_assert_not(sits_governor_quiet(g, full, top, 40, 80.01, NAN, true));
  cr_assert_not(sits_governor_quiet(g, full, three, 40, 80, NAN, true)); /* not what it gives */
  cr_assert_eq(tick_once(g, 1, 81, 0), 3);                               /* raised: state 1 */
  cr_assert(sits_governor_quiet(g, full, three, 75, 80, NAN, true));
  cr_assert_not(sits_governor_quiet(g, full, top, 75, 80, NAN, true));
  cr_assert_not(sits_governor_quiet(g, full, three, 74.9, 80, NAN, true));
  cr_assert_eq(tick_once(g, 1, 75, 0), 3); /* at 75 it holds, as quiet said */
  cr_assert_eq(tick_once(g, 1, 80, 0), 3);
  sits_governor_free(g);

  c.thermal = SITS_THERMAL_POWER_ALLOCATOR;
  c.switch_on_c = 60;
  c.control_c = 80;
  c.sustainable_power_w = 0.8;
  g = sits_governor_new(&c, &d, 1);
  cr_assert(sits_governor_quiet(g, full, top, 30, 59.9, NAN, true));
  cr_assert_not(sits_governor_quiet(g, full, top, 30, 60, NAN, true));
  cr_assert_not(sits_governor_quiet(g, full, two, 30, 59.9, NAN, true)); /* IPA's limit held */
  sits_governor_free(g);

  c.thermal = SITS_THERMAL_NONE;
  c.power_cap = true;
  c.cap_window_s = 1.0;
  c.tdp_budget_w = 1.0;
  g = sits_governor_new(&c, &d, 1);
  cr_assert(sits_governor_quiet(g, full, top, NAN, NAN, 1.0, true));
  cr_assert_not(sits_governor_quiet(g, full, top, NAN, NAN, 1.01, true));
  cr_assert_not(sits_governor_quiet(g, full, top, NAN, NAN, 0.5, false));
  cr_assert(sits_governor_quiet(g, none, lowest, NAN, NAN, 5.0, false)); /* nothing to lower */
  cr_assert_eq(tick_once(g, 0, 25, 5.0), 0);
  /* full demand at the top OPP predicts 1.92 W: over the budget, not quiet, and a tick with
   * the window at the budget does lower it (to 600 MHz, 0.768 W) */
  cr_assert_not(sits_governor_quiet(g, full, top, NAN, NAN, 1.92, true));
  cr_assert_eq(tick_once(g, 1, 25, 1.0), 2);
  /* held there at 0.768 W: not quiet, since a tick at that past raises it (the tightest
   * look-back allows (1 - 0.768 x 0.9) / 0.1 = 3.09 W, above the top OPP's 1.92 W) */
  cr_assert_not(sits_governor_quiet(g, full, two, NAN, NAN, 0.768, true));
  cr_assert_eq(tick_once(g, 1, 25, 0.768), 4);
  sits_governor_free(g);
}

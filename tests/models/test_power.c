/* test_power.c - DVFS power and performance of a domain, hand-checked. */
#include "test_util.h"

#include "sits_power.h"

/* the domains' node arrays: one node, and a share that does not sum to 1 */
static int one_node[1] = {0};
static double whole[1] = {1.0}, halves[2] = {0.5, 0.5};

static sits_domain five_opps(void) {
  sits_domain d;
  memset(&d, 0, sizeof d);
  snprintf(d.name, sizeof d.name, "gpu");
  d.n_nodes = 1;
  d.nodes = one_node, d.fractions = whole;
  d.n_opp = 5;
  const double f[5] = {200, 400, 600, 800, 1000}, v[5] = {0.6, 0.65, 0.7, 0.8, 0.9};
  for (size_t k = 0; k < 5; k++)
    d.opp[k] = (sits_opp){f[k], v[k], NAN, NAN};
  d.ceff_f = 2e-9;
  d.idle_w = 0.3;
  d.leak_ref_w = 0.5;
  d.leak_ref_v = 0.9;
  d.leak_ref_c = 25;
  d.leak_per_k = 0.02;
  d.max_rate = 100;
  d.mem_bound = 0.25;
  return d;
}

Test(power, dynamic_power_by_hand) {
  sits_domain d = five_opps();
  /* 2e-9 F * 0.6^2 V^2 * 200e6 Hz = 0.144 W; 0.8^2 * 800e6 -> 1.024 W; 0.9^2 * 1e9 -> 1.62 W */
  cr_assert_float_eq(sits_domain_dynamic_w(&d, 0), 0.144, 1e-12);
  cr_assert_float_eq(sits_domain_dynamic_w(&d, 3), 1.024, 1e-12);
  cr_assert_float_eq(sits_domain_dynamic_w(&d, 4), 1.62, 1e-12);
  /* at 25 C the leakage is 0.5 * V/0.9: at OPP 3, 0.5 * 0.8/0.9; u = 0.5 */
  double dp;
  double p = sits_domain_power_w(&d, 3, 0.5, 25.0, &dp);
  cr_assert_float_eq(p, 0.3 + 0.512 + 0.5 * 0.8 / 0.9, 1e-12);
  cr_assert_float_eq(dp, 0.02 * 0.5 * 0.8 / 0.9, 1e-12);
  /* 10 K hotter: leakage times e^0.2 */
  p = sits_domain_power_w(&d, 4, 1.0, 35.0, &dp);
  cr_assert_float_eq(p, 0.3 + 1.62 + 0.5 * exp(0.2), 1e-12);
  cr_assert_float_eq(dp, 0.02 * 0.5 * exp(0.2), 1e-12);
}

Test(power, measured_power_replaces_dynamic_and_reference_leakage) {
  sits_domain d = five_opps();
  d.opp[4].power_w = 3.0;
  /* at full load and leak_ref_c: idle + the measured value */
  cr_assert_float_eq(sits_domain_power_w(&d, 4, 1.0, 25.0, NULL), 0.3 + 3.0, 1e-12);
  /* dynamic part = 3.0 - 0.5 (reference leakage at 0.9 V) */
  cr_assert_float_eq(sits_domain_dynamic_w(&d, 4), 2.5, 1e-12);
  /* half load, 20 K hotter: 0.3 + 2.5/2 + 0.5 e^0.4 */
  cr_assert_float_eq(sits_domain_power_w(&d, 4, 0.5, 45.0, NULL), 0.3 + 1.25 + 0.5 * exp(0.4),
                     1e-12);
}

Test(power, capacity_and_rate) {
  sits_domain d = five_opps();
  /* cap(f) = 1 / (0.75 * fmax/f + 0.25): at 500... use 400 MHz: 1/(0.75*2.5 + 0.25) = 1/2.125 */
  cr_assert_float_eq(sits_domain_capacity(&d, 1), 1.0 / 2.125, 1e-12);
  cr_assert_float_eq(sits_domain_capacity(&d, 4), 1.0, 1e-12);
  /* demand 0.2 at 400 MHz: u = 0.2 * 2.125 = 0.425, rate = 0.2 * 100 */
  cr_assert_float_eq(sits_domain_utilisation(&d, 1, 0.2), 0.425, 1e-12);
  cr_assert_float_eq(sits_domain_rate(&d, 1, 0.2), 20.0, 1e-12);
  /* demand above capacity: u = 1, rate = cap * max_rate */
  cr_assert_float_eq(sits_domain_utilisation(&d, 1, 0.9), 1.0, 0);
  cr_assert_float_eq(sits_domain_rate(&d, 1, 0.9), 100.0 / 2.125, 1e-12);
  /* a measured throughput overrides the model */
  d.opp[1].items_per_s = 70;
  cr_assert_float_eq(sits_domain_capacity(&d, 1), 0.7, 1e-12);
}

Test(power, check_rejects_bad_domains) {
  sits_err err = {0};
  sits_domain d = five_opps();
  cr_assert_eq(sits_domain_check(&d, &err), SITS_OK, "%s", err.msg);
  d.opp[2].freq_mhz = 300; /* below the previous 400 */
  cr_assert_eq(sits_domain_check(&d, &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "increasing freq_mhz"), "%s", err.msg);
  d = five_opps();
  d.fractions = halves; /* one node holding half of the heat */
  cr_assert_eq(sits_domain_check(&d, &err), SITS_EINPUT);
  d = five_opps();
  d.mem_bound = 1.5;
  cr_assert_eq(sits_domain_check(&d, &err), SITS_EINPUT);
  d = five_opps();
  d.opp[0].volt_v = 0;
  cr_assert_eq(sits_domain_check(&d, &err), SITS_EINPUT);
}

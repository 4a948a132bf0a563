/*
 * test_dvfs_table.c - the DVFS table: the MLU370 knee, the Energy Model coefficient round
 * trip, closed-form steady temperatures and time to trip, the inefficiency rule, and the
 * writers (the dts compiles with dtc, the header with the C compiler).
 */
#include "test_util.h"

#include "sits_board.h"
#include "sits_dvfs.h"
#include "sits_table_writer.h"

static void compute(const sits_scenario *sc, const char *domain, sits_dvfs_table *t) {
  sits_err err = {0};
  cr_assert_eq(sits_dvfs_table_compute(sc, domain, t, &err), SITS_OK, "%s", err.msg);
}

Test(dvfs_table, mlu370_knee_at_800_mhz) {
  sits_scenario *sc = tu_shipped("scenarios/mlu370_resnet50.cfg", NULL, 0);
  sits_dvfs_table t;
  compute(sc, NULL, &t);
  cr_assert_eq(t.n, 3);
  cr_assert_float_eq(t.knee_freq_mhz, 800.0, 0);
  /* the measured throughput; the power is the measurement plus the leakage rise */
  cr_assert_float_eq(t.rows[0].items_per_s, 186.0, 1e-9);
  cr_assert_float_eq(t.rows[2].items_per_s, 334.0, 1e-9);
  for (size_t k = 0; k < 3; k++) {
    /* die -> heatsink -> ambient in series: T_j = T_amb + P (0.12 + 0.45) */
    cr_assert_float_eq(t.rows[k].steady_temp_c, 30.0 + t.rows[k].total_power_w * 0.57, 1e-6);
    cr_assert_float_eq(t.rows[k].items_per_j, t.rows[k].items_per_s / t.rows[k].total_power_w,
                       1e-12);
  }
  /* at 800 MHz the die is near 48 C, above the 45 C reference: a little over 32 W */
  cr_assert_gt(t.rows[0].power_w, 32.0);
  cr_assert_lt(t.rows[0].power_w, 32.5);
  sits_scenario_free(sc);
}

Test(dvfs_table, coefficient_round_trip_within_one_percent) {
  char text[512];
  snprintf(text, sizeof text,
           "platform = \"rk3588\";\nworkload = { phases = ( { duration_s = 60; demand = { cpu_big "
           "= 1.0; }; } ); };\n");
  sits_scenario *sc = tu_load("rk.cfg", text);
  sits_dvfs_table t;
  compute(sc, "cpu_big", &t);
  size_t nd;
  const sits_domain *d = &sits_scenario_domains(sc, &nd)[1];
  double c = t.dynamic_power_coefficient_uw_per_mhz_v2;
  cr_assert_float_eq(c, 4 * 416.0, 1e-6); /* the kernel's 416 per A76 core, four cores */
  for (size_t k = 0; k < d->n_opp; k++) {
    double model = c * d->opp[k].volt_v * d->opp[k].volt_v * d->opp[k].freq_mhz; /* uW */
    double dyn = sits_domain_dynamic_w(d, k) * 1e6;
    cr_assert_float_eq(model, dyn, 0.01 * dyn, "OPP %zu", k);
  }
  sits_scenario_free(sc);
}

Test(dvfs_table, time_to_trip_closed_form_and_sustainable) {
  /* one node C = 2 J/K, R = 3 K/W; no leakage; trip 30 C at 25 C ambient */
  sits_scenario *sc = tu_load(
      "trip.cfg",
      "platform = { thermal = {\n"
      "  nodes = ( { name = \"die\"; c_j_per_k = 2.0; junction = true; } );\n"
      "  links = ( { a = \"die\"; b = \"ambient\"; r_k_per_w = 3.0; } ); };\n"
      "  domains = ( { name = \"gpu\"; node = \"die\"; ceff_f = 2e-9; idle_w = 0.3; max_rate = "
      "100.0;\n"
      "    opp = ( { freq_mhz = 200.0; volt_v = 0.6; }, { freq_mhz = 1000.0; volt_v = 1.0; } ); } "
      ");\n"
      "  governor = { thermal = { kind = \"step_wise\"; sensor = \"die\"; trip_c = 30.0; }; }; };\n"
      "workload = { phases = ( { duration_s = 10; demand = { gpu = 1.0; }; } ); };\n");
  sits_dvfs_table t;
  compute(sc, NULL, &t);
  /* 200 MHz: 0.3 + 2e-9 * 0.36 * 2e8 = 0.444 W -> 26.33 C: sustainable, never trips */
  cr_assert_float_eq(t.rows[0].steady_temp_c, 25 + 3 * 0.444, 1e-7);
  cr_assert(t.rows[0].sustainable);
  cr_assert(isinf(t.rows[0].time_to_trip_s));
  /* 1000 MHz: 2.3 W -> 31.9 C: trips at t = -RC ln(1 - 5 / 6.9) */
  cr_assert_not(t.rows[1].sustainable);
  double want = -6.0 * log(1.0 - 5.0 / 6.9);
  cr_assert_float_eq(t.rows[1].time_to_trip_s, want, 1e-4 * want);
  cr_assert_float_eq(t.max_sustainable_freq_mhz, 200.0, 0);
  /* sustainable power: (30 - 25) / 3 K/W = 1666.7 mW */
  cr_assert_float_eq(t.sustainable_power_mw, 5000.0 / 3.0, 1e-6);
  sits_scenario_free(sc);
}

/* The kernel's rule (em_compute_costs) on each domain's own power: an OPP is inefficient when
 * a faster one costs no more per cycle (P/f; the kernel compares f_max 10 P / f in integer uW
 * and kHz), checked against that definition on every shipped domain of the Orin NX; then a
 * hand-made tie (500/1000/1500 MHz at 0.8 V: the same 0.64 mW/MHz; 2000 MHz at 0.9 V: 0.81)
 * flags 500 and 1000, not 1500; and the ev6 floorplan (4.48, 5.48, 6.67 mW/MHz rising) flags
 * none: it flagged 1000 and 1500 MHz when the rule took the platform's power, static power
 * and the other domains included, which pushed a runtime onto the unsustainable 2000 MHz. */
Test(dvfs_table, inefficient_follows_the_energy_model_rule) {
  sits_scenario *sc = tu_shipped("scenarios/orin_nx_video_enc.cfg", NULL, 0);
  size_t nd;
  const sits_domain *dom = sits_scenario_domains(sc, &nd);
  for (size_t i = 0; i < nd; i++) {
    sits_dvfs_table t;
    compute(sc, dom[i].name, &t);
    for (size_t k = 0; k < t.n; k++) {
      double cost = t.rows[k].power_w / t.rows[k].freq_mhz;
      bool cheaper_above = false;
      for (size_t j = k + 1; j < t.n; j++)
        cheaper_above |= t.rows[j].power_w / t.rows[j].freq_mhz <= cost * (1 + 1e-9);
      cr_assert_eq(t.rows[k].inefficient, cheaper_above, "%s OPP %zu", dom[i].name, k);
    }
  }
  sits_scenario_free(sc);
  sits_scenario *tie = tu_load(
      "tie.cfg",
      "platform = { thermal = { nodes = ( { name = \"die\"; c_j_per_k = 2.0; junction = "
      "true; } );\n"
      "  links = ( { a = \"die\"; b = \"ambient\"; r_k_per_w = 1.0; } ); };\n"
      "  domains = ( { name = \"cpu\"; node = \"die\"; ceff_f = 1e-9; max_rate = 10.0;\n"
      "    opp = ( { freq_mhz = 500.0; volt_v = 0.8; }, { freq_mhz = 1000.0; volt_v = 0.8; "
      "},\n"
      "            { freq_mhz = 1500.0; volt_v = 0.8; }, { freq_mhz = 2000.0; volt_v = 0.9; "
      "} ); } ); };\n"
      "workload = { phases = ( { duration_s = 10.0; demand = { cpu = 1.0; }; } ); };\n");
  sits_dvfs_table t;
  compute(tie, NULL, &t);
  const bool want[] = {true, true, false, false};
  for (size_t k = 0; k < 4; k++)
    cr_assert_eq(t.rows[k].inefficient, want[k], "OPP %zu: %g W", k, t.rows[k].power_w);
  sits_scenario_free(tie);
  sits_scenario *ev6 = tu_shipped("scenarios/ev6_floorplan_throttle.cfg", NULL, 0);
  compute(ev6, "int", &t);
  for (size_t k = 0; k < t.n; k++)
    cr_assert_not(t.rows[k].inefficient, "ev6 int OPP %zu", k);
  cr_assert_float_eq(t.max_sustainable_freq_mhz, 1500.0, 0);
  sits_scenario_free(ev6);
}

static char *render(const char *format, const sits_dvfs_table *t, size_t n, const char *name) {
  char *path = malloc(512);
  snprintf(path, 512, "%s/%s", tu_dir(), name);
  FILE *f = fopen(path, "w");
  sits_err err = {0};
  cr_assert_eq(sits_dvfs_write(format, t, n, f, &err), SITS_OK, "%s", err.msg);
  fclose(f);
  return path;
}

Test(dvfs_table, dts_compiles_with_dtc_and_header_with_cc) {
  sits_scenario *sc = tu_shipped("scenarios/mlu370_resnet50.cfg", NULL, 0);
  sits_dvfs_table t;
  compute(sc, NULL, &t);
  char *dts = malloc(512), cmd[2048];
  snprintf(dts, 512, "%s/mlu.dts", tu_dir());
  sits_err e = {0};
  cr_assert_eq(sits_board_write_file(sc, "dts", NULL, dts, &e), SITS_OK, "%s", e.msg);
  FILE *devnull = fopen("/dev/null", "w");
  cr_assert_eq(sits_dvfs_write("dts", &t, 1, devnull, &e), SITS_EINPUT); /* needs the scenario */
  fclose(devnull);
  snprintf(cmd, sizeof cmd, "dtc -@ -q -I dts -O dtb -o %s/mlu.dtbo %s", tu_dir(), dts);
  cr_assert_eq(system(cmd), 0, "dtc rejected %s", dts);
  char *text = tu_slurp(dts);
  cr_assert(strstr(text, "opp-hz = /bits/ 64 <800000000>;"), "%s", text);
  cr_assert(strstr(text, "opp-microvolt = <850000>;"), "%s", text);
  cr_assert(strstr(text, "dynamic-power-coefficient = <"), "%s", text);
  cr_assert(strstr(text, "sustainable-power = <"), "%s", text);
  free(text);
  char *h = render("header", &t, 1, "mlu.h");
  snprintf(cmd, sizeof cmd,
           "printf '#include \"%s\"\\nint main(void) { return sits_mlu_opps[0].freq_khz != "
           "800000UL; }\\n' > %s/m.c && "
           "cc -Wall -Wextra -Werror -o %s/m %s/m.c && %s/m",
           h, tu_dir(), tu_dir(), tu_dir(), tu_dir());
  cr_assert_eq(system(cmd), 0, "the header does not compile or holds the wrong table");
  char *js = render("json", &t, 1, "mlu.json");
  text = tu_slurp(js);
  cr_assert(strstr(text, "\"knee_freq_mhz\":800"), "%s", text);
  cr_assert(strstr(text, "\"opps\":[{\"freq_mhz\":800,"), "%s", text);
  free(text);
  sits_err err = {0};
  cr_assert_eq(sits_dvfs_write("xml", &t, 1, stdout, &err), SITS_EINPUT);
  free(dts), free(h), free(js);
  sits_scenario_free(sc);
}

/* A hot ambient (200 C, above the 95 C trip): the table is computed, not failed. OPPs whose
 * leakage outruns the package are marked runaway with no power or temperature (and are not
 * called inefficient: there is no cost to compare); every row reaches the trip at once (the
 * nodes start at the ambient); none is sustainable. The 800 MHz row still has a fixed point,
 * and it obeys the series network: T_j = 200 + P (0.12 + 0.45). */
Test(dvfs_table, hot_ambient_marks_runaway_opps) {
  const char *sets[] = {"ambient_c=200"};
  sits_scenario *sc = tu_shipped("scenarios/mlu370_resnet50.cfg", sets, 1);
  sits_dvfs_table t;
  compute(sc, NULL, &t);
  cr_assert_eq(t.n, 3);
  cr_assert(!t.rows[0].runaway);
  cr_assert_float_eq(t.rows[0].steady_temp_c, 200.0 + t.rows[0].total_power_w * 0.57, 1e-6);
  for (size_t k = 1; k < 3; k++) {
    cr_assert(t.rows[k].runaway, "row %zu", k);
    cr_assert(isnan(t.rows[k].power_w) && isnan(t.rows[k].total_power_w));
    cr_assert(isnan(t.rows[k].steady_temp_c));
    cr_assert(!t.rows[k].inefficient);
  }
  for (size_t k = 0; k < 3; k++) {
    cr_assert(!t.rows[k].sustainable);
    cr_assert_float_eq(t.rows[k].time_to_trip_s, 0.0, 0);
  }
  /* steady of the same scenario: at 1400 MHz it runs away, so its step_wise governor steps
   * down to the lowest OPP, where it does not (the die above the 95-C trip still: as low as
   * it goes); the figures are that row's */
  sits_steady_state st;
  sits_err err = {0};
  cr_assert_eq(sits_steady(sc, &st, &err), SITS_OK, "%s", err.msg);
  cr_assert(!st.runaway);
  cr_assert_eq(st.thermal_state, 2);
  cr_assert(isnan(st.unthrottled_sensor_c) && isnan(st.warmer_sensor_c));
  cr_assert_float_eq(st.max_junction_temp_c, t.rows[0].steady_temp_c, 1e-6);
  sits_steady_release(&st);
  sits_scenario_free(sc);
}

/*
 * test_board.c - the board outputs (sits_board_write): the device-tree overlay's numbers
 * against closed forms of the platform's network, and the nvpmodel mode against hand-checked
 * choices and its own definition (tests/cli/check_dts.sh compiles and applies the overlay).
 */
#include "test_util.h"

#include "sits_board.h"
#include "sits_dvfs.h"
#include "sits_power.h"

/* The value of "PROP = <N>" after the line holding @p anchor in @p text; -1 if absent. */
static long long prop_after(const char *text, const char *anchor, const char *prop) {
  const char *a = strstr(text, anchor), *p = a ? strstr(a, prop) : NULL;
  long long v = -1;
  if (p && sscanf(p + strlen(prop), " = <%lld>", &v) != 1)
    v = -1;
  return v;
}

static char *render(const sits_scenario *sc, const char *format, const sits_board_opts *o) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  sits_err err = {0};
  cr_assert_eq(sits_board_write(sc, format, o, f, &err), SITS_OK, "%s", err.msg);
  fclose(f);
  return buf;
}

/* RK3588 (configs/platforms/rk3588.cfg): die --1.2 K/W-- heatsink --fan-- ambient, every
 * domain on the die, static 0.788 W on the heatsink. With the die at the 85 C control
 * temperature the fan is at full speed (past its 65 C trip), 3.0 K/W, and the die takes
 * (85 - Ta - 3.0 * 0.788) / 4.2 W in all; a zone gets that less the
 * other actors at their lowest OPP at full load (their power at 85 C). */
Test(board, rk3588_sustainable_power_closed_form) {
  sits_scenario *sc = tu_load("rk.cfg", "platform = \"rk3588\"; workload_profile = "
                                        "\"vision_fp16\"; ambient_c = 30.0;\n");
  size_t nd;
  const sits_domain *dom = sits_scenario_domains(sc, &nd);
  cr_assert_eq(nd, 4);
  double total = (85.0 - 30.0 - 3.0 * 0.788) / 4.2, pmin[4];
  for (size_t d = 0; d < 4; d++)
    pmin[d] = sits_domain_power_w(&dom[d], 0, 1.0, 85.0, NULL);
  /* domains: cpu_little, cpu_big (b0-b1 | b2-b3), gpu, npu */
  double big0 = total - pmin[0] - 0.5 * pmin[1] - pmin[2] - pmin[3];
  double little = total - pmin[1] - pmin[2] - pmin[3];
  double gpu = total - pmin[0] - pmin[1] - pmin[3];
  char *text = render(sc, "dts", NULL);
  cr_assert_float_eq((double)prop_after(text, "bigcore0-thermal {", "sustainable-power"),
                     1000 * big0, 1.0, "%s", text);
  cr_assert_float_eq((double)prop_after(text, "bigcore2-thermal {", "sustainable-power"),
                     1000 * big0, 1.0);
  cr_assert_float_eq((double)prop_after(text, "littlecore-thermal {", "sustainable-power"),
                     1000 * little, 1.0);
  cr_assert_float_eq((double)prop_after(text, "gpu-thermal {", "sustainable-power"), 1000 * gpu,
                     1.0);
  /* zones without cooling devices: no sustainable-power, a critical trip at 115 C */
  cr_assert(strstr(text, "package-thermal {"));
  cr_assert_gt(strstr(strstr(text, "package-thermal {"), "sustainable-power"),
               strstr(text, "bigcore0-thermal {"));
  cr_assert_eq(prop_after(text, "package-thermal {", "temperature"), 115000);
  /* per-CPU coefficients as upstream: A55 228, A76 416, Mali-G610 2982 (uW/MHz/V^2) */
  cr_assert_eq(prop_after(text, "&cpu_l0 {", "dynamic-power-coefficient"), 228);
  cr_assert_eq(prop_after(text, "&cpu_b3 {", "dynamic-power-coefficient"), 416);
  cr_assert_eq(prop_after(text, "&gpu {", "dynamic-power-coefficient"), 2982);
  /* b2-b3 take the second A76 table; the GPU keeps its own (estimated voltages) */
  cr_assert(strstr(text, "&cpu_b2 {\n\toperating-points-v2 = <&sits_cpu_big_opp_table1>;"));
  cr_assert(strstr(text, "&gpu {\n\tdynamic-power-coefficient"), "%s", text);
  cr_assert_null(strstr(text, "opp-table-npu"));
  /* IPA trips from the governor: switch-on 75 C, control 85 C, 2 C hysteresis */
  cr_assert_eq(prop_after(text, "sits_bigcore0_alert0:", "temperature"), 75000);
  cr_assert_eq(prop_after(text, "sits_bigcore0_alert1:", "temperature"), 85000);
  cr_assert_eq(prop_after(text, "sits_bigcore0_alert1:", "hysteresis"), 2000);
  free(text);
  /* --domain: only its devices and zones */
  sits_board_opts o = {"cpu_little", -1, NULL, NULL};
  text = render(sc, "dts", &o);
  cr_assert(strstr(text, "littlecore-thermal {"));
  cr_assert_null(strstr(text, "bigcore0-thermal"));
  cr_assert_null(strstr(text, "&cpu_b0"));
  free(text);
  sits_scenario_free(sc);
}

/* Cooling maps: a cooling state s caps at OPP n-1-s; the map's lower limit is the state of the
 * highest sustainable OPP. At 70 C ambient the A76 top OPPs are not sustainable. */
Test(board, cooling_map_starts_at_the_highest_sustainable_opp) {
  sits_scenario *sc = tu_load("rk.cfg", "platform = \"rk3588\"; workload_profile = "
                                        "\"vision_fp16\"; ambient_c = 70.0;\n");
  sits_dvfs_table t;
  sits_err err = {0};
  cr_assert_eq(sits_dvfs_table_compute(sc, "cpu_big", &t, &err), SITS_OK, "%s", err.msg);
  size_t top = t.n;
  for (size_t k = 0; k < t.n; k++)
    if (t.rows[k].sustainable)
      top = k;
  cr_assert(top < t.n - 1, "expected an unsustainable top OPP at 70 C");
  char *text = render(sc, "dts", NULL), want[64];
  snprintf(want, sizeof want, "<&cpu_b0 %zu %zu>", t.n - 1 - top, t.n - 1);
  cr_assert(strstr(text, want), "no '%s' in\n%s", want, text);
  free(text);
  sits_scenario_free(sc);
}

/* Two domains on one node, 1 K/W to 25 C, no leakage or idle power: full-load power is
 * 1, 2 or 4 W at 1, 2 or 4 GHz (capacity 0.25, 0.5, 1). The workload loads 'a' at half its
 * capacity at f_max. */
static sits_scenario *two_domains(const char *limits) {
  char text[2048];
  snprintf(
      text, sizeof text,
      "platform = { thermal = { nodes = ( { name = \"die\"; c_j_per_k = 1.0; "
      "junction = true; } );\n"
      "  links = ( { a = \"die\"; b = \"ambient\"; r_k_per_w = 1.0; } ); };\n"
      "  domains = ( { name = \"a\"; node = \"die\"; ceff_f = 1e-9;\n"
      "      opp = ( { freq_mhz = 1000.0; volt_v = 1.0; }, { freq_mhz = 2000.0; volt_v = 1.0; },\n"
      "              { freq_mhz = 4000.0; volt_v = 1.0; } ); },\n"
      "    { name = \"b\"; node = \"die\"; ceff_f = 1e-9;\n"
      "      opp = ( { freq_mhz = 1000.0; volt_v = 1.0; }, { freq_mhz = 2000.0; volt_v = 1.0; },\n"
      "              { freq_mhz = 4000.0; volt_v = 1.0; } ); } ); };\n"
      "ambient_c = 25.0;\n%s\n"
      "workload = { phases = ( { duration_s = 10.0; demand = { a = 0.5; }; } ); };\n",
      limits);
  return tu_load("two.cfg", text);
}

static void expect_mode(const char *limits, size_t cap_a, size_t cap_b, double power_w) {
  sits_scenario *sc = two_domains(limits);
  sits_nvp_mode m;
  sits_err err = {0};
  cr_assert_eq(sits_nvp_mode_choose(sc, &m, &err), SITS_OK, "%s", err.msg);
  cr_assert(m.feasible, "%s", limits);
  cr_assert_eq(m.cap[0], cap_a, "%s: a at OPP %zu", limits, m.cap[0]);
  cr_assert_eq(m.cap[1], cap_b, "%s: b at OPP %zu", limits, m.cap[1]);
  cr_assert_float_eq(m.total_power_w, power_w, 1e-9);
  cr_assert_float_eq(m.throughput, 1.0, 1e-12);
  cr_assert_float_eq(m.demand[0], 0.5, 0);
  cr_assert_eq(m.evaluated, 9);
  sits_scenario_free(sc);
}

/* 5.5 W: (4 GHz, 1 GHz) = 5 W serves all of 'a' and keeps capacity 1.25, more than
 * (2, 2) = 4 W (1.0) or (2, 1); (1, 4) serves half. 4.5 W: (2, 2). A junction limit of
 * 29.5 C (< 4.5 W at 1 K/W) gives the same as 4.5 W. */
Test(board, nvpmodel_mode_hand_checked) {
  expect_mode("tdp_budget_w = 5.5;", 2, 0, 5.0);
  expect_mode("tdp_budget_w = 4.5;", 1, 1, 4.0);
  expect_mode("max_junction_temp_c = 29.5;", 1, 1, 4.0);
}

Test(board, nvpmodel_mode_impossible_budget_fails_with_numbers) {
  sits_scenario *sc = two_domains("tdp_budget_w = 1.5;");
  sits_nvp_mode m;
  sits_err err = {0};
  cr_assert_eq(sits_nvp_mode_choose(sc, &m, &err), SITS_OK);
  cr_assert_not(m.feasible);
  cr_assert_float_eq(m.total_power_w, 2.0, 1e-9); /* the least: both at 1 GHz */
  char buf[4096];
  FILE *f = fmemopen(buf, sizeof buf, "w");
  sits_board_opts o = {NULL, -1, NULL, NULL};
  int rc = sits_board_write(sc, "nvpmodel", &o, f, &err);
  fclose(f);
  cr_assert_eq(rc, SITS_EINPUT);
  cr_assert(strstr(err.msg, "nvpmodel"), "%s", err.msg); /* no names on this platform */
  sits_scenario_free(sc);
}

/* The Orin NX under a 15 W budget: the mode holds it at full load, and no single cap can be
 * raised without breaking the budget or the limit (or serving less). */
Test(board, orin_nx_mode_holds_budget_and_is_locally_best) {
  const char *sets[] = {"ambient_c=25"};
  sits_scenario *sc = tu_shipped("scenarios/orin_nx_video_enc.cfg", sets, 1);
  sits_nvp_mode m, up;
  sits_err err = {0};
  cr_assert_eq(sits_nvp_mode_choose(sc, &m, &err), SITS_OK, "%s", err.msg);
  cr_assert(m.feasible);
  cr_assert_leq(m.total_power_w, 15.0);
  cr_assert_lt(m.junction_c, 85.0);
  cr_assert_not(m.capped[3], "the encoder has no nvpmodel clock");
  size_t nd;
  const sits_domain *dom = sits_scenario_domains(sc, &nd);
  for (size_t d = 0; d < nd; d++) {
    if (!m.capped[d] || m.cap[d] + 1 >= dom[d].n_opp)
      continue;
    size_t cap[SITS_MAX_DOMAINS];
    memcpy(cap, m.cap, sizeof cap);
    cap[d]++;
    cr_assert_eq(sits_nvp_mode_eval(sc, cap, &up, &err), SITS_OK, "%s", err.msg);
    cr_assert(!up.feasible || up.throughput <= m.throughput,
              "raising %s to OPP %zu still holds: %g W, %g C", dom[d].name, cap[d],
              up.total_power_w, up.junction_c);
  }
  /* the mode's lines: kHz for the CPU clusters, Hz for the GPU and DLAs, no ID of a stock mode */
  char *text = render(sc, "nvpmodel", NULL), line[128];
  cr_assert(strstr(text, "< POWER_MODEL ID=4 NAME=SITS_15W >\n"), "%s", text);
  snprintf(line, sizeof line, "CPU_A78_1 MAX_FREQ %lld\n",
           llround(dom[0].opp[m.cap[0]].freq_mhz * 1e3));
  cr_assert(strstr(text, line), "no '%s' in\n%s", line, text);
  snprintf(line, sizeof line, "GPU MAX_FREQ %lld\n", llround(dom[1].opp[m.cap[1]].freq_mhz * 1e6));
  cr_assert(strstr(text, line), "no '%s' in\n%s", line, text);
  cr_assert(strstr(text, "DLA1_CORE MAX_FREQ "));
  cr_assert_null(strstr(text, "ENC"));
  free(text);
  sits_board_opts o = {NULL, 2, NULL, NULL};
  char buf[256];
  FILE *f = fmemopen(buf, sizeof buf, "w");
  cr_assert_eq(sits_board_write(sc, "nvpmodel", &o, f, &err), SITS_EINPUT);
  fclose(f);
  cr_assert(strstr(err.msg, "stock mode 15W"), "%s", err.msg);
  o.mode_id = 7, o.mode_name = "EDGE_VLM";
  text = render(sc, "nvpmodel", &o);
  cr_assert(strstr(text, "< POWER_MODEL ID=7 NAME=EDGE_VLM >\n"), "%s", text);
  free(text);
  sits_scenario_free(sc);
}

/* Bad device_tree names fail at load with file:line. */
Test(board, bad_names_fail_at_load) {
  static const char *const bad[][2] = {
      {"device_tree = { thermal_sensor = \"tsadc\"; zones = ( { name = \"cpu_little\"; } ); };",
       "thermal-zones binding"},
      {"device_tree = { thermal_sensor = \"tsadc\"; zones = ( { name = \"abcdefghijklmn\"; } ); };",
       "1 to 12"},
      {"device_tree = { thermal_sensor = \"ts-adc\"; };", "not a device-tree label"},
      {"device_tree = { zones = ( ); };", "thermal_sensor"},
      {"device_tree = { thermal_sensor = \"t\"; zones = ( { name = \"cpu\"; cooling = "
       "[\"cpu9\"]; } ); };",
       "in no domain"},
      {"nvpmodel = { clocks = ( { domain = \"gpu\"; params = [\"GPU\"]; } ); };",
       "unknown domain 'gpu'"},
      {"nvpmodel = { clocks = ( { domain = \"a\"; params = [\"CPU A\"]; } ); };", "[A-Za-z0-9_]"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    char text[2048];
    snprintf(text, sizeof text,
             "platform = { thermal = { nodes = ( { name = \"die\"; c_j_per_k = 1.0; } );\n"
             "  links = ( { a = \"die\"; b = \"ambient\"; r_k_per_w = 1.0; } ); };\n"
             "  domains = ( { name = \"a\"; node = \"die\"; dt_cpus = [\"cpu0\"];\n"
             "    opp = ( { freq_mhz = 1000.0; volt_v = 1.0; } ); } );\n  %s\n};\n"
             "workload = { phases = ( { duration_s = 1.0; demand = { a = 0.5; }; } ); };\n",
             bad[k][0]);
    char *path = tu_write("bad.cfg", text);
    sits_scenario *sc = NULL;
    sits_err err = {0};
    cr_assert_eq(sits_scenario_load(path, NULL, 0, &sc, &err), SITS_EINPUT, "%s", bad[k][0]);
    cr_assert(strstr(err.msg, bad[k][1]), "%s: %s", bad[k][0], err.msg);
    cr_assert(strstr(err.msg, "bad.cfg:"), "%s", err.msg);
    free(path);
  }
}

/* The MAX_FREQ value of PARAM @p param in @p text's POWER_MODEL, -2 when absent. */
static long long nvp_max(const char *text, const char *param) {
  char key[64];
  snprintf(key, sizeof key, "\n%s MAX_FREQ ", param);
  const char *p = strstr(text, key);
  return p ? atoll(p + strlen(key)) : -2;
}

/* Modes for 10, 15 and 25 W on the Orin NX at 25 C differ, each the highest caps whose worst
 * case keeps its budget and the junction limit (the header says which holds each cap), with the
 * lines a stock P3767 mode has (CPU_ONLINE for the eight cores, EMC MAX_FREQ); with the board's
 * nvpmodel.conf (tests/data, its layout) the new mode takes the first free ID and every line names
 * a PARAM and argument the file defines. At 35 C the junction limit binds: 15 and 25 W give one
 * mode, and the header says why. */
Test(board, nvpmodel_modes_by_budget_with_the_board_conf, .timeout = 120) {
  char args[1024], *out, *err, *modes[3];
  const int budgets[] = {10, 15, 25};
  for (int k = 0; k < 3; k++) {
    snprintf(args, sizeof args,
             "dvfs-table %s/scenarios/orin_nx_video_enc.cfg --format nvpmodel --set ambient_c=25 "
             "--set tdp_budget_w=%d --nvpmodel-conf %s/nvpmodel_p3767_layout.conf",
             SITS_CONFIGS, budgets[k], SITS_TEST_DATA);
    cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
    modes[k] = out;
    free(err);
    char head[64];
    snprintf(head, sizeof head, "< POWER_MODEL ID=4 NAME=SITS_%dW >\n", budgets[k]);
    cr_assert(strstr(out, head), "%s", out);
    cr_assert(strstr(out, "has the modes 0 MAXN, 1 10W, 2 15W, 3 25W;"), "%s", out);
    for (int c = 0; c < 8; c++) {
      char line[32];
      snprintf(line, sizeof line, "\nCPU_ONLINE CORE_%d 1\n", c);
      cr_assert(strstr(out, line), "%s", out);
    }
    cr_assert(strstr(out, "\nEMC MAX_FREQ 0\n"), "%s", out);
    const char *full = strstr(out, "at full load ");
    cr_assert(full);
    cr_assert_leq(strtod(full + strlen("at full load "), NULL), budgets[k], "%s", out);
  }
  /* caps grow with the budget: CPU and GPU never lower, and the three modes differ */
  cr_assert_leq(nvp_max(modes[0], "CPU_A78_0"), nvp_max(modes[1], "CPU_A78_0"));
  cr_assert_leq(nvp_max(modes[1], "CPU_A78_0"), nvp_max(modes[2], "CPU_A78_0"));
  cr_assert_lt(nvp_max(modes[0], "CPU_A78_0"), nvp_max(modes[2], "CPU_A78_0"));
  cr_assert_leq(nvp_max(modes[0], "GPU"), nvp_max(modes[1], "GPU"));
  const char *body[3];
  for (int k = 0; k < 3; k++)
    body[k] = strstr(modes[k], "\nCPU_ONLINE");
  cr_assert_str_neq(body[0], body[1]);
  cr_assert_str_neq(body[1], body[2]);
  /* what holds each cap: at 10 W the budget (one OPP more on the CPU: 10.68 W); at 25 W the
   * junction (the CPU's top OPP: 89.92 C), which the header says binds, not the budget; the
   * 25 W mode's GPU below the 15 W one's is that trade: its CPU is two OPPs higher */
  cr_assert(strstr(modes[0], "# One OPP more on cpu (1113.6 MHz): 10.68 W, 62.76 C: over the "
                             "budget.\n"),
            "%s", modes[0]);
  cr_assert(strstr(modes[2], "# One OPP more on cpu (1984 MHz): 19.03 W, 89.92 C: over the "
                             "junction limit.\n"),
            "%s", modes[2]);
  cr_assert(strstr(modes[2], "# The junction limit binds, not the budget: at 25 C ambient"), "%s",
            modes[2]);
  cr_assert_not(strstr(modes[0], "The junction limit binds"), "%s", modes[0]);
  for (int k = 0; k < 3; k++)
    free(modes[k]);
  /* 35 C: the junction binds at ~14.7 W, so 25 W gives the 15 W mode, and says so */
  for (int k = 1; k < 3; k++) {
    snprintf(args, sizeof args,
             "dvfs-table %s/scenarios/orin_nx_video_enc.cfg --format nvpmodel --set ambient_c=35 "
             "--set tdp_budget_w=%d",
             SITS_CONFIGS, budgets[k]);
    cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
    /* at 15 W both bind (14.68 W); at 25 W only the junction */
    cr_assert(k == 1 || strstr(out, "# The junction limit binds, not the budget"), "%s", out);
    modes[k] = out;
    free(err);
  }
  cr_assert_str_eq(strstr(modes[1], "\nCPU_ONLINE"), strstr(modes[2], "\nCPU_ONLINE"));
  free(modes[1]), free(modes[2]);
}

/* A conf that is not this board's, or malformed, or an ID or name it takes: refused, with the
 * file and line or the PARAM it lacks. */
Test(board, nvpmodel_conf_errors) {
  struct {
    const char *conf, *extra, *want;
  } cases[] = {
      {"< PARAM TYPE=CLOCK NAME=GPU >\nMAX_FREQ /x\n< POWER_MODEL ID=0 NAME=MAXN >\nGPU MAX_FREQ "
       "-1\n",
       "", "defines no PARAM CPU_ONLINE"},
      {"< PARAM TYPE=CLOCK NAME=GPU\nMAX_FREQ /x\n", "", "bad.conf:1: a section header must end"},
      {"< PARAM TYPE=CLOCK NAME=GPU >\nMAX_FREQ /x\n< POWER_MODEL ID=0 NAME=MAXN >\nGPU MIN_FREQ "
       "0\n",
       "", "bad.conf:4: GPU MIN_FREQ is not a defined PARAM argument"},
      {"< POWER_MODEL ID=x NAME=MAXN >\n", "", "bad.conf:1: a POWER_MODEL header needs ID=0..255"},
      {"< PARAM TYPE=CLOCK NAME=GPU >\nMAX_FREQ /x\n", "", "bad.conf: no POWER_MODEL section"},
      {"CORE_0 /x\n", "", "bad.conf:1: a line before any section"},
      {"< POWER_MODEL ID=0 NAME=A >\n< POWER_MODEL ID=0 NAME=B >\n", "",
       "bad.conf:2: POWER_MODEL B (ID 0) repeats mode A (ID 0)"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char *path = tu_write("bad.conf", cases[k].conf), args[1024], *out, *err;
    snprintf(args, sizeof args,
             "dvfs-table %s/scenarios/orin_nx_video_enc.cfg --format nvpmodel --nvpmodel-conf %s%s",
             SITS_CONFIGS, path, cases[k].extra);
    cr_assert_eq(tu_cli(args, &out, &err), 1, "case %zu: %s", k, out);
    cr_assert(strstr(err, cases[k].want), "case %zu: %s", k, err);
    free(out), free(err), free(path);
  }
  /* the conf's IDs and names are taken */
  char args[1024], *out, *err;
  snprintf(args, sizeof args,
           "dvfs-table %s/scenarios/orin_nx_video_enc.cfg --format nvpmodel --nvpmodel-conf "
           "%s/nvpmodel_p3767_layout.conf --mode-id 2",
           SITS_CONFIGS, SITS_TEST_DATA);
  cr_assert_eq(tu_cli(args, &out, &err), 1);
  cr_assert(strstr(err, "--mode-id 2 is mode 15W of"), "%s", err);
  free(out), free(err);
  snprintf(args, sizeof args,
           "dvfs-table %s/scenarios/orin_nx_video_enc.cfg --format nvpmodel --nvpmodel-conf "
           "%s/nvpmodel_p3767_layout.conf --mode-name 25W",
           SITS_CONFIGS, SITS_TEST_DATA);
  cr_assert_eq(tu_cli(args, &out, &err), 1);
  cr_assert(strstr(err, "mode name 25W is taken by ID 3"), "%s", err);
  free(out), free(err);
}

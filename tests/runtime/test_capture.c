/*
 * test_capture.c - the runtime hook library on fake sysfs trees: a Jetson-like board
 * (thermal zones with an absent sensor, an INA3221 with an unconnected and a sum channel,
 * devfreq, cpufreq) and a laptop-like one (a battery whose current sign follows its status,
 * RAPL energy counters with wrap-around), units and signs checked by hand; marks; the CSV
 * read back by the trace reader; the capture command.
 */
#include "test_util.h"

#include <sys/stat.h>

#include "sits_rt.h"
#include "sits_trace.h"

/* Writes @p text to root/rel, creating the directories. */
static void put(const char *root, const char *rel, const char *text) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  for (char *p = path + strlen(root) + 1; *p; p++)
    if (*p == '/') {
      *p = '\0';
      mkdir(path, 0755);
      *p = '/';
    }
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f, "%s", path);
  fputs(text, f);
  fclose(f);
}

static const char *tree(const char *name) {
  static char root[2][600];
  int k = strcmp(name, "jetson") == 0 ? 0 : 1;
  snprintf(root[k], sizeof root[k], "%s/%s", tu_dir(), name);
  mkdir(root[k], 0755);
  return root[k];
}

static const char *jetson(void) {
  const char *r = tree("jetson");
  put(r, "class/thermal/thermal_zone0/type", "cpu-thermal\n");
  put(r, "class/thermal/thermal_zone0/temp", "45500\n");
  put(r, "class/thermal/thermal_zone1/type", "cv0-thermal\n");
  put(r, "class/thermal/thermal_zone1/temp", "-256000\n");
  put(r, "class/hwmon/hwmon0/name", "ina3221\n");
  put(r, "class/hwmon/hwmon0/in1_label", "VDD_IN\n");
  put(r, "class/hwmon/hwmon0/in1_input", "5000\n");
  put(r, "class/hwmon/hwmon0/curr1_input", "1200\n");
  put(r, "class/hwmon/hwmon0/in2_label", "NC\n");
  put(r, "class/hwmon/hwmon0/in2_input", "0\n");
  put(r, "class/hwmon/hwmon0/curr2_input", "0\n");
  put(r, "class/hwmon/hwmon0/in7_label", "sum of shunt voltages\n");
  put(r, "class/hwmon/hwmon0/in7_input", "5000\n");
  put(r, "class/hwmon/hwmon0/curr7_input", "1400\n");
  put(r, "class/devfreq/17000000.gpu/cur_freq", "918000000\n");
  put(r, "class/thermal/cooling_device0/type", "pwm-fan\n");
  put(r, "class/thermal/cooling_device0/cur_state", "3\n");
  put(r, "class/thermal/cooling_device1/type", "cpufreq-cpu0\n");
  put(r, "class/thermal/cooling_device1/cur_state", "0\n");
  put(r, "class/thermal/cooling_device2/type", "cpufreq-cpu0\n");
  put(r, "class/thermal/cooling_device2/cur_state", "2\n");
  put(r, "class/hwmon/hwmon1/name", "pwmfan\n");
  put(r, "class/hwmon/hwmon1/pwm1", "153\n");
  put(r, "class/hwmon/hwmon2/name", "pwm_tach\n");
  put(r, "class/hwmon/hwmon2/fan1_input", "2780\n");
  put(r, "devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", "1728000\n");
  return r;
}

static const char *laptop(void) {
  const char *r = tree("laptop");
  put(r, "class/thermal/thermal_zone0/type", "x86_pkg_temp\n");
  put(r, "class/thermal/thermal_zone0/temp", "61000\n");
  put(r, "class/power_supply/BAT0/type", "Battery\n");
  put(r, "class/power_supply/BAT0/status", "Discharging\n");
  put(r, "class/power_supply/BAT0/voltage_now", "11800000\n");
  put(r, "class/power_supply/BAT0/current_now", "1500000\n");
  put(r, "class/power_supply/BAT0/power_now", "17700000\n"); /* unsigned, as drivers write it */
  put(r, "class/power_supply/AC/type", "Mains\n");
  put(r, "class/powercap/intel-rapl:0/name", "package-0\n");
  put(r, "class/powercap/intel-rapl:0/energy_uj", "1000000\n");
  put(r, "class/powercap/intel-rapl:0/max_energy_range_uj", "4000000\n");
  return r;
}

static double col(const sits_rt *rt, const double *v, const char *name) {
  for (size_t k = 0; k < sits_rt_column_count(rt); k++)
    if (strcmp(sits_rt_column_name(rt, k), name) == 0)
      return v[k];
  cr_assert_fail("no column %s", name);
  return NAN;
}

static bool has(const sits_rt *rt, const char *needle) {
  for (size_t k = 0; k < sits_rt_column_count(rt); k++)
    if (strstr(sits_rt_column_name(rt, k), needle))
      return true;
  return false;
}

Test(capture, jetson_like_tree) {
  sits_err err = {0};
  sits_rt *rt = sits_rt_new(jetson(), &err);
  cr_assert_not_null(rt, "%s", err.msg);
  double v[64];
  cr_assert_eq(sits_rt_sample_at(rt, 0.0, v, &err), SITS_OK);
  cr_assert_float_eq(col(rt, v, "temp_c.cpu-thermal"), 45.5, 1e-12);    /* m°C */
  cr_assert(isnan(col(rt, v, "temp_c.cv0-thermal")));                   /* -256000: absent */
  cr_assert_float_eq(col(rt, v, "voltage_v.VDD_IN"), 5.0, 1e-12);       /* mV */
  cr_assert_float_eq(col(rt, v, "current_a.VDD_IN"), 1.2, 1e-12);       /* mA */
  cr_assert_float_eq(col(rt, v, "power_w.VDD_IN"), 6.0, 1e-12);         /* V I */
  cr_assert_float_eq(col(rt, v, "freq_mhz.17000000.gpu"), 918.0, 1e-9); /* Hz */
  cr_assert_float_eq(col(rt, v, "freq_mhz.cpu0"), 1728.0, 1e-9);        /* kHz */
  cr_assert_not(has(rt, "NC"));
  cr_assert_not(has(rt, "sum"));
  cr_assert_float_eq(col(rt, v, "cooling_state.pwm-fan"), 3.0, 0);
  cr_assert_float_eq(col(rt, v, "cooling_state.cpufreq-cpu0"), 0.0, 0);
  cr_assert_float_eq(col(rt, v, "cooling_state.cpufreq-cpu0_2"), 2.0, 0); /* same type */
  cr_assert_float_eq(col(rt, v, "util_frac.pwmfan_pwm1"), 0.6, 1e-12);    /* 153 / 255 */
  cr_assert_float_eq(col(rt, v, "fan_rpm.pwm_tach_fan1"), 2780.0, 0);
  put(jetson(), "class/thermal/cooling_device0/cur_state", "4\n"); /* read each sample */
  cr_assert_eq(sits_rt_sample_at(rt, 1.0, v, &err), SITS_OK);
  cr_assert_float_eq(col(rt, v, "cooling_state.pwm-fan"), 4.0, 0);
  sits_rt_free(rt);
}

Test(capture, laptop_like_tree_signs_and_rapl) {
  sits_err err = {0};
  const char *r = laptop();
  sits_rt *rt = sits_rt_new(r, &err);
  cr_assert_not_null(rt, "%s", err.msg);
  double v[64];
  cr_assert_eq(sits_rt_sample_at(rt, 0.0, v, &err), SITS_OK);
  cr_assert_float_eq(col(rt, v, "voltage_v.BAT0"), 11.8, 1e-12); /* µV */
  cr_assert_float_eq(col(rt, v, "current_a.BAT0"), 1.5, 1e-12);  /* µA, discharging: + */
  cr_assert_float_eq(col(rt, v, "power_w.BAT0"), 17.7, 1e-12);   /* µW, with the current's sign */
  cr_assert(isnan(col(rt, v, "power_w.rapl_package-0")));        /* no difference yet */
  cr_assert_not(has(rt, ".AC"));                                 /* mains: no battery */
  put(r, "class/power_supply/BAT0/status", "Charging\n");
  put(r, "class/powercap/intel-rapl:0/energy_uj", "3000000\n");
  cr_assert_eq(sits_rt_sample_at(rt, 0.5, v, &err), SITS_OK);
  cr_assert_float_eq(col(rt, v, "current_a.BAT0"), -1.5, 1e-12);        /* charging: - */
  cr_assert_float_eq(col(rt, v, "power_w.BAT0"), -17.7, 1e-12);         /* V I: - too */
  cr_assert_float_eq(col(rt, v, "power_w.rapl_package-0"), 4.0, 1e-12); /* 2 J in 0.5 s */
  put(r, "class/powercap/intel-rapl:0/energy_uj", "500000\n");          /* wrapped at 4 J */
  cr_assert_eq(sits_rt_sample_at(rt, 1.0, v, &err), SITS_OK);
  cr_assert_float_eq(col(rt, v, "power_w.rapl_package-0"), 3.0, 1e-12); /* 1.5 J in 0.5 s */
  sits_rt_free(rt);
}

Test(capture, marks_and_the_csv_read_back) {
  sits_err err = {0};
  sits_rt *rt = sits_rt_new(jetson(), &err);
  cr_assert_not_null(rt);
  cr_assert_eq(sits_rt_add_mark(rt, "prefill", &err), SITS_OK);
  char path[600];
  snprintf(path, sizeof path, "%s/cap.csv", tu_dir());
  FILE *f = fopen(path, "w");
  cr_assert_eq(sits_rt_write_header(rt, f), SITS_OK);
  double v[64];
  for (int k = 0; k < 3; k++) {
    if (k == 1)
      cr_assert_eq(sits_rt_mark(rt, "prefill", &err), SITS_OK);
    cr_assert_eq(sits_rt_sample_at(rt, 0.2 * k, v, &err), SITS_OK);
    cr_assert_float_eq(col(rt, v, "mark.prefill"), k == 1 ? 1.0 : 0.0, 0);
    cr_assert_eq(sits_rt_write_row(rt, f, 0.2 * k, v), SITS_OK);
  }
  fclose(f);
  /* a mark not declared before sampling started */
  cr_assert_eq(sits_rt_mark(rt, "decode", &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "declare marks before the first sample"), "%s", err.msg);
  sits_rt_free(rt);
  sits_trace *t = NULL;
  cr_assert_eq(sits_trace_read(path, NULL, &t, &err), SITS_OK, "%s", err.msg);
  cr_assert_str_eq(t->format, "csv");
  cr_assert_eq(t->n_rows, 3);
  cr_assert_float_eq(sits_trace_at(t, 1, (size_t)sits_trace_column(t, "power_w.VDD_IN")), 6.0,
                     1e-12);
  cr_assert(isnan(sits_trace_at(t, 0, (size_t)sits_trace_column(t, "temp_c.cv0-thermal"))));
  cr_assert_float_eq(sits_trace_at(t, 1, (size_t)sits_trace_column(t, "mark.prefill")), 1.0, 0);
  sits_trace_free(t);
  /* a tree without any source is an error */
  sits_rt *none = sits_rt_new(tu_dir(), &err);
  cr_assert_null(none);
  cr_assert(strstr(err.msg, "no thermal zone"), "%s", err.msg);
}

Test(capture, the_capture_command) {
  char args[2048], *out, *err, path[600];
  snprintf(path, sizeof path, "%s/cli_cap.csv", tu_dir());
  snprintf(args, sizeof args,
           "capture --sysfs-root %s --period-ms 20 --samples 5 --mark warmup -o %s", jetson(),
           path);
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  cr_assert(strstr(err, "5 samples"), "%s", err);
  free(out), free(err);
  sits_trace *t = NULL;
  sits_err e = {0};
  cr_assert_eq(sits_trace_read(path, NULL, &t, &e), SITS_OK, "%s", e.msg);
  cr_assert_eq(t->n_rows, 5);
  double span = sits_trace_at(t, 4, 0);
  cr_assert(span > 0.07 && span < 0.5, "4 periods of 20 ms took %g s", span);
  cr_assert_geq(sits_trace_column(t, "mark.warmup"), 0);
  sits_trace_free(t);
  snprintf(args, sizeof args, "capture --sysfs-root %s/nothing --samples 1 -o %s", tu_dir(), path);
  cr_assert_eq(tu_cli(args, &out, &err), 1);
  cr_assert(strstr(err, "no thermal zone, hwmon"), "%s", err);
  free(out), free(err);
}

/* Two chips or RAPL zones of one name (two GPUs of one driver, each package's DRAM) are each
 * a column, the later with its number (before, the second was dropped, unsaid: a 150-W GPU
 * missing); a rail labelled "sum" on a chip other than the INA3221 is a rail. And -o inside
 * the tree the capture reads is refused (it replaced a zone's temp file). */
Test(capture, same_names_each_a_column) {
  char r[700];
  snprintf(r, sizeof r, "%s/dup", tu_dir());
  mkdir(r, 0755);
  for (int h = 1; h <= 2; h++) {
    char rel[128];
    snprintf(rel, sizeof rel, "class/hwmon/hwmon%d/name", h);
    put(r, rel, "amdgpu\n");
    snprintf(rel, sizeof rel, "class/hwmon/hwmon%d/power1_label", h);
    put(r, rel, "PPT\n");
    snprintf(rel, sizeof rel, "class/hwmon/hwmon%d/power1_input", h);
    put(r, rel, h == 1 ? "35000000\n" : "150000000\n");
  }
  put(r, "class/hwmon/hwmon3/name", "corsairpsu\n");
  put(r, "class/hwmon/hwmon3/power1_label", "psu sum\n");
  put(r, "class/hwmon/hwmon3/power1_input", "280000000\n");
  /* two INA3221s (AGX boards have two): the second is one too, its rails by their labels */
  put(r, "class/hwmon/hwmon4/name", "ina3221\n");
  put(r, "class/hwmon/hwmon4/in1_label", "VDD_IN\n");
  put(r, "class/hwmon/hwmon4/in1_input", "5000\n");
  put(r, "class/hwmon/hwmon4/curr1_input", "1200\n");
  put(r, "class/hwmon/hwmon5/name", "ina3221\n");
  put(r, "class/hwmon/hwmon5/in1_label", "VDD_GPU\n");
  put(r, "class/hwmon/hwmon5/in1_input", "5000\n");
  put(r, "class/hwmon/hwmon5/curr1_input", "2000\n");
  put(r, "class/hwmon/hwmon5/in7_label", "sum of shunt voltages\n");
  put(r, "class/hwmon/hwmon5/in7_input", "100\n");
  put(r, "class/powercap/intel-rapl:0:0/name", "dram\n");
  put(r, "class/powercap/intel-rapl:0:0/energy_uj", "1000000\n");
  put(r, "class/powercap/intel-rapl:1:0/name", "dram\n");
  put(r, "class/powercap/intel-rapl:1:0/energy_uj", "1000000\n");
  sits_err err = {0};
  sits_rt *rt = sits_rt_new(r, &err);
  cr_assert_not_null(rt, "%s", err.msg);
  double v[64];
  cr_assert_eq(sits_rt_sample_at(rt, 0.0, v, &err), SITS_OK);
  cr_assert_float_eq(col(rt, v, "power_w.amdgpu_PPT"), 35.0, 1e-12);
  cr_assert_float_eq(col(rt, v, "power_w.amdgpu_2_PPT"), 150.0, 1e-12);
  cr_assert_float_eq(col(rt, v, "power_w.corsairpsu_psu sum"), 280.0, 1e-12);
  cr_assert_float_eq(col(rt, v, "power_w.VDD_IN"), 6.0, 1e-12);
  cr_assert_float_eq(col(rt, v, "power_w.VDD_GPU"), 10.0, 1e-12); /* the second chip's V I */
  cr_assert_float_eq(col(rt, v, "voltage_v.VDD_GPU"), 5.0, 1e-12);
  cr_assert_not(has(rt, "shunt"));
  put(r, "class/powercap/intel-rapl:0:0/energy_uj", "2000000\n");
  put(r, "class/powercap/intel-rapl:1:0/energy_uj", "4000000\n");
  cr_assert_eq(sits_rt_sample_at(rt, 0.5, v, &err), SITS_OK);
  cr_assert_float_eq(col(rt, v, "power_w.rapl_dram"), 2.0, 1e-12);     /* 1 J in 0.5 s */
  cr_assert_float_eq(col(rt, v, "power_w.rapl_dram_1_0"), 6.0, 1e-12); /* 3 J */
  sits_rt_free(rt);
  char args[2048], *out, *e;
  snprintf(args, sizeof args, "capture --sysfs-root %s --samples 1 -o %s/class/hwmon/hwmon1/name",
           r, r);
  cr_assert_eq(tu_cli(args, &out, &e), 1, "%s", e);
  cr_assert(strstr(e, "inside the sysfs tree the capture reads"), "%s", e);
  free(out), free(e);
  char name[800];
  snprintf(name, sizeof name, "%s/class/hwmon/hwmon1/name", r);
  char *kept = tu_slurp(name);
  cr_assert_str_eq(kept, "amdgpu\n");
  free(kept);
}

/* A thermal zone whose type holds a comma and a quote: the header quotes it (RFC 4180), so
 * the CSV keeps its columns and reads back with the name whole. */
Test(capture, odd_zone_type_quoted_in_the_header) {
  char root[600];
  snprintf(root, sizeof root, "%s/odd", tu_dir());
  mkdir(root, 0755);
  put(root, "class/thermal/thermal_zone0/type", "soc,\"big\"\n");
  put(root, "class/thermal/thermal_zone0/temp", "50000\n");
  sits_err err = {0};
  sits_rt *rt = sits_rt_new(root, &err);
  cr_assert_not_null(rt, "%s", err.msg);
  char path[700];
  snprintf(path, sizeof path, "%s/odd.csv", tu_dir());
  FILE *f = fopen(path, "w");
  double v[8];
  cr_assert_eq(sits_rt_write_header(rt, f), SITS_OK);
  cr_assert_eq(sits_rt_sample_at(rt, 0.0, v, &err), SITS_OK);
  cr_assert_eq(sits_rt_write_row(rt, f, 0.0, v), SITS_OK);
  cr_assert_eq(sits_rt_sample_at(rt, 0.2, v, &err), SITS_OK);
  cr_assert_eq(sits_rt_write_row(rt, f, 0.2, v), SITS_OK);
  fclose(f);
  sits_rt_free(rt);
  char *text = tu_slurp(path);
  cr_assert(!strncmp(text, "time_s,\"temp_c.soc,\"\"big\"\"\"\n", 28), "%s", text);
  free(text);
  sits_trace *t = NULL;
  cr_assert_eq(sits_trace_read(path, NULL, &t, &err), SITS_OK, "%s", err.msg);
  int c = sits_trace_column(t, "temp_c.soc,\"big\"");
  cr_assert(c > 0, "column not found");
  cr_assert_float_eq(sits_trace_at(t, 1, (size_t)c), 50.0, 1e-12);
  sits_trace_free(t);
}

/* Phases: nested begin/end, a column each, 1 in every row whose interval the phase was open
 * in (one opened and closed between two samples still shows); an end that is not the
 * innermost open phase, a phase begun twice and an end of a closed phase are errors. */
Test(capture, phases_nest_and_cover_their_intervals) {
  sits_err err = {0};
  sits_rt *rt = sits_rt_new(jetson(), &err);
  cr_assert_not_null(rt, "%s", err.msg);
  cr_assert_eq(sits_rt_phase_begin(rt, "inference", &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(sits_rt_add_phase(rt, "preprocess", &err), SITS_OK, "%s", err.msg);
  size_t n = sits_rt_column_count(rt), a = n - 2, b = n - 1;
  cr_assert_str_eq(sits_rt_column_name(rt, a), "phase.inference");
  cr_assert_str_eq(sits_rt_column_name(rt, b), "phase.preprocess");
  double v[64];
  cr_assert_eq(sits_rt_sample_at(rt, 0.0, v, &err), SITS_OK);
  cr_assert(v[a] == 1 && v[b] == 0);
  cr_assert_eq(sits_rt_phase_begin(rt, "preprocess", &err), SITS_OK, "%s", err.msg);
  /* inference ends while preprocess, begun inside it, is open */
  cr_assert_eq(sits_rt_phase_end(rt, "inference", &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "phase 'inference' ends while 'preprocess', begun inside it, is open"),
            "%s", err.msg);
  cr_assert_eq(sits_rt_phase_begin(rt, "preprocess", &err), SITS_EINPUT);
  cr_assert_eq(sits_rt_phase_end(rt, "preprocess", &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(sits_rt_sample_at(rt, 0.1, v, &err), SITS_OK);
  cr_assert(v[a] == 1 && v[b] == 1, "preprocess opened and closed in the interval: %g", v[b]);
  cr_assert_eq(sits_rt_sample_at(rt, 0.2, v, &err), SITS_OK);
  cr_assert(v[a] == 1 && v[b] == 0);
  cr_assert_eq(sits_rt_phase_end(rt, "inference", &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(sits_rt_sample_at(rt, 0.3, v, &err), SITS_OK);
  cr_assert(v[a] == 1, "closed during the interval: still shown");
  cr_assert_eq(sits_rt_sample_at(rt, 0.4, v, &err), SITS_OK);
  cr_assert(v[a] == 0 && v[b] == 0);
  cr_assert_eq(sits_rt_phase_end(rt, "inference", &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "is not open"), "%s", err.msg);
  /* after the first sample a new phase cannot get a column */
  cr_assert_eq(sits_rt_phase_begin(rt, "late", &err), SITS_EINPUT);
  cr_assert(strstr(err.msg, "declare phases before the first sample"), "%s", err.msg);
  sits_rt_free(rt);
}

/* NVML through the stand-in library (fake_nvml.c): its scripted sequence, k-th call of each
 * quantity (k = 0 the discovery probe, k = s the s-th sample). */
static sits_rt *fake_nvml(int gpus, sits_err *err) {
  char n[8];
  snprintf(n, sizeof n, "%d", gpus);
  setenv("FAKE_NVML_GPUS", n, 1);
  unsetenv("FAKE_NVML_INIT_RC");
  sits_rt_opts o = {.no_sysfs = 1, .nvml = 1, .nvml_library = FAKE_NVML};
  return sits_rt_open(&o, err);
}

Test(capture, nvml_columns_units_and_the_scripted_sequence) {
  sits_err err = {0};
  sits_rt *rt = fake_nvml(1, &err);
  cr_assert_not_null(rt, "%s", err.msg);
  cr_assert_eq(sits_rt_gpu_count(rt), 1);
  /* every quantity the stand-in reports, none it does not (video clock, fan) */
  static const char *const want[] = {"power_w.gpu",
                                     "power_w.gpu_average",
                                     "power_w.gpu_instant",
                                     "temp_c.gpu_mem",
                                     "power_w.gpu_energy",
                                     "power_w.gpu_limit",
                                     "temp_c.gpu",
                                     "freq_mhz.gpu_gr",
                                     "freq_mhz.gpu_sm",
                                     "freq_mhz.gpu_mem",
                                     "util_frac.gpu",
                                     "util_frac.gpu_mem",
                                     "pstate.gpu",
                                     "throttle.gpu_idle",
                                     "throttle.gpu_app_clocks",
                                     "throttle.gpu_sw_power_cap",
                                     "throttle.gpu_hw_slowdown",
                                     "throttle.gpu_sync_boost",
                                     "throttle.gpu_sw_thermal",
                                     "throttle.gpu_hw_thermal",
                                     "throttle.gpu_hw_power_brake",
                                     "throttle.gpu_display_clocks"};
  size_t nw = sizeof want / sizeof want[0];
  cr_assert_eq(sits_rt_column_count(rt), nw);
  for (size_t k = 0; k < nw; k++)
    cr_assert_str_eq(sits_rt_column_name(rt, k), want[k]);
  cr_assert_not(has(rt, "video"));
  cr_assert_not(has(rt, "fan"));
  double v[64];
  /* sample 1 (k = 1) */
  cr_assert_eq(sits_rt_sample_at(rt, 0.0, v, &err), SITS_OK);
  cr_assert_float_eq(col(rt, v, "temp_c.gpu"), 41.0, 0);
  cr_assert_float_eq(col(rt, v, "temp_c.gpu_mem"), 47.0, 0);
  cr_assert_float_eq(col(rt, v, "power_w.gpu"), 101.0, 1e-12); /* mW -> W */
  cr_assert_float_eq(col(rt, v, "power_w.gpu_average"), 110.5, 1e-12);
  cr_assert_float_eq(col(rt, v, "power_w.gpu_instant"), 122.0, 1e-12);
  cr_assert(isnan(col(rt, v, "power_w.gpu_energy")), "no interval yet");
  cr_assert_float_eq(col(rt, v, "power_w.gpu_limit"), 700.0, 1e-12);
  cr_assert_float_eq(col(rt, v, "freq_mhz.gpu_sm"), 1970.0, 0);
  cr_assert_float_eq(col(rt, v, "freq_mhz.gpu_gr"), 1970.0, 0);
  cr_assert_float_eq(col(rt, v, "freq_mhz.gpu_mem"), 3201.0, 0);
  cr_assert_float_eq(col(rt, v, "util_frac.gpu"), 0.5, 1e-12); /* % -> fraction */
  cr_assert_float_eq(col(rt, v, "util_frac.gpu_mem"), 0.2, 1e-12);
  cr_assert_float_eq(col(rt, v, "pstate.gpu"), 0.0, 0);
  cr_assert_float_eq(col(rt, v, "throttle.gpu_sw_power_cap"), 1.0, 0); /* odd k: 0x4 */
  cr_assert_float_eq(col(rt, v, "throttle.gpu_idle"), 0.0, 0);
  /* sample 2, 0.5 s later: 60 J from the energy counter in 0.5 s = 120 W */
  cr_assert_eq(sits_rt_sample_at(rt, 0.5, v, &err), SITS_OK);
  cr_assert_float_eq(col(rt, v, "power_w.gpu_energy"), 120.0, 1e-9);
  cr_assert_float_eq(col(rt, v, "temp_c.gpu"), 42.0, 0);
  cr_assert_float_eq(col(rt, v, "pstate.gpu"), 2.0, 0);
  cr_assert_float_eq(col(rt, v, "throttle.gpu_sw_power_cap"), 0.0, 0); /* even k: 0x1 */
  cr_assert_float_eq(col(rt, v, "throttle.gpu_idle"), 1.0, 0);
  /* sample 3: the instant field fails (NVML_ERROR_UNKNOWN): empty, the rest read */
  cr_assert_eq(sits_rt_sample_at(rt, 0.75, v, &err), SITS_OK);
  cr_assert(isnan(col(rt, v, "power_w.gpu_instant")));
  cr_assert_float_eq(col(rt, v, "power_w.gpu_average"), 111.5, 1e-12);
  cr_assert_float_eq(col(rt, v, "power_w.gpu_energy"), 240.0, 1e-9); /* 60 J in 0.25 s */
  sits_rt_free(rt);
}

Test(capture, nvml_several_gpus_and_failures_named) {
  sits_err err = {0};
  sits_rt *rt = fake_nvml(2, &err);
  cr_assert_not_null(rt, "%s", err.msg);
  cr_assert_eq(sits_rt_gpu_count(rt), 2);
  cr_assert_str_eq(sits_rt_column_name(rt, 0), "power_w.gpu0");
  cr_assert(has(rt, "temp_c.gpu1_mem"));
  double v[128];
  cr_assert_eq(sits_rt_sample_at(rt, 0.0, v, &err), SITS_OK);
  cr_assert_float_eq(col(rt, v, "temp_c.gpu0"), 41.0, 0); /* each GPU its own sequence */
  cr_assert_float_eq(col(rt, v, "temp_c.gpu1"), 41.0, 0);
  sits_rt_free(rt);
  /* a library that is not there, one that fails to initialise, no GPU */
  sits_rt_opts o = {.no_sysfs = 1, .nvml = 1, .nvml_library = "/nonexistent/libnvidia-ml.so.1"};
  cr_assert_null(sits_rt_open(&o, &err));
  cr_assert(strstr(err.msg, "NVML: cannot load /nonexistent/libnvidia-ml.so.1"), "%s", err.msg);
  setenv("FAKE_NVML_INIT_RC", "9", 1);
  o.nvml_library = FAKE_NVML;
  cr_assert_null(sits_rt_open(&o, &err));
  cr_assert(strstr(err.msg, "nvmlInit_v2 failed (NVML error 9)"), "%s", err.msg);
  unsetenv("FAKE_NVML_INIT_RC");
  setenv("FAKE_NVML_GPUS", "0", 1);
  cr_assert_null(sits_rt_open(&o, &err));
  cr_assert(strstr(err.msg, "no GPU found"), "%s", err.msg);
  /* NVML when it loads (-1): a sysfs tree alone still captures */
  o.nvml = -1, o.no_sysfs = 0, o.sysfs_root = jetson();
  rt = sits_rt_open(&o, &err);
  cr_assert_not_null(rt, "%s", err.msg);
  cr_assert_eq(sits_rt_gpu_count(rt), 0);
  cr_assert(has(rt, "VDD_IN"));
  sits_rt_free(rt);
  /* sysfs and NVML together: sysfs columns, then NVML's, then marks */
  setenv("FAKE_NVML_GPUS", "1", 1);
  rt = sits_rt_open(&o, &err);
  cr_assert_not_null(rt, "%s", err.msg);
  cr_assert_eq(sits_rt_add_mark(rt, "load", &err), SITS_OK);
  size_t n = sits_rt_column_count(rt);
  cr_assert_str_eq(sits_rt_column_name(rt, n - 1), "mark.load");
  cr_assert(has(rt, "power_w.VDD_IN") && has(rt, "power_w.gpu_instant"));
  cr_assert_eq(sits_rt_sample_at(rt, 0.0, v, &err), SITS_OK);
  cr_assert_float_eq(col(rt, v, "power_w.VDD_IN"), 6.0, 1e-12);
  cr_assert_float_eq(col(rt, v, "temp_c.gpu"), 41.0, 0);
  sits_rt_free(rt);
}

/* The capture command on the stand-in: --source nvml at the 10-Hz default, read back; bad
 * --source values are usage errors. */
Test(capture, the_capture_command_with_nvml) {
  char args[2048], *out, *err, path[600];
  snprintf(path, sizeof path, "%s/cli_nvml.csv", tu_dir());
  setenv("FAKE_NVML_GPUS", "1", 1);
  unsetenv("FAKE_NVML_INIT_RC");
  snprintf(args, sizeof args, "capture --source nvml --nvml-library %s --samples 4 -o %s",
           FAKE_NVML, path);
  cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
  cr_assert(strstr(err, "4 samples, 22 columns, 1 GPUs through NVML"), "%s", err);
  free(out), free(err);
  sits_trace *t = NULL;
  sits_err e = {0};
  cr_assert_eq(sits_trace_read(path, NULL, &t, &e), SITS_OK, "%s", e.msg);
  cr_assert_eq(t->n_rows, 4);
  double span = sits_trace_at(t, 3, 0);
  cr_assert(span > 0.28 && span < 0.9, "3 periods of the 100-ms default took %g s", span);
  cr_assert_float_eq(sits_trace_at(t, 3, (size_t)sits_trace_column(t, "temp_c.gpu")), 44.0, 0);
  cr_assert_float_eq(sits_trace_at(t, 0, (size_t)sits_trace_column(t, "power_w.gpu_instant")),
                     122.0, 1e-9);
  sits_trace_free(t);
  static const char *const bad[] = {"bogus", "nvml,nvml", "", ",", "sysfs,"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    snprintf(args, sizeof args, "capture --source '%s' --samples 1 -o %s", bad[k], path);
    int rc = tu_cli(args, &out, &err);
    if (k == 4) { /* a trailing comma is read as the list it ends */
      free(out), free(err);
      continue;
    }
    cr_assert_eq(rc, 1, "--source '%s': %s", bad[k], err); /* an option's value: 1 */
    cr_assert(strstr(err, "expected sysfs, nvml or sysfs,nvml"), "%s", err);
    free(out), free(err);
  }
  /* NVML named but not loadable: exit 1, the reason given */
  snprintf(args, sizeof args,
           "capture --source nvml --nvml-library /nonexistent/nvml.so --samples 1 -o %s", path);
  cr_assert_eq(tu_cli(args, &out, &err), 1);
  cr_assert(strstr(err, "NVML: cannot load /nonexistent/nvml.so"), "%s", err);
  free(out), free(err);
}

/* trace-info on the real H200 capture (validation/data/h200_nvml_hook_capture.csv): rows,
 * span, interval and a column's count and range as computed independently (Python's csv and
 * statistics over the file): temp_c.gpu 2,208 values 33..56, mean 44.44293; the energy
 * counter's mean power has no value on the first row (2,207). */
Test(capture, trace_info_on_the_real_capture) {
  char *out, *err;
  cr_assert_eq(tu_cli("trace-info " SITS_VALIDATION_DATA "/h200_nvml_hook_capture.csv", &out, &err),
               0, "%s", err);
  cr_assert(strstr(out, "csv, 2208 rows over 220.700 s, interval 0.1 s (0.09872 to 0.1013, "
                        "timestamps), 0 malformed lines skipped"),
            "%s", out);
  cr_assert(strstr(out, "temp_c.gpu                         temperature            C        "
                        "          2208           33           56      44.4429"),
            "%s", out);
  cr_assert(strstr(out, "power_w.gpu_energy                 power                  W        "
                        "          2207"),
            "%s", out);
  cr_assert(strstr(out, "phase.duty100                      phase                  0/1"), "%s",
            out);
  free(out), free(err);
  cr_assert_eq(tu_cli("trace-info --summary json " SITS_VALIDATION_DATA
                      "/h200_nvml_hook_capture.csv",
                      &out, &err),
               0, "%s", err);
  cr_assert(strstr(out, "\"rows\":2208,\"skipped_lines\":0,\"duration_s\":220.700141"), "%s", out);
  cr_assert(strstr(out, "{\"name\":\"temp_c.gpu\",\"quantity\":\"temperature\",\"unit\":\"C\","
                        "\"n\":2208,\"min\":33,\"max\":56,\"mean\":44.44293478"),
            "%s", out);
  free(out), free(err);
}

/* A server's tree: 301 thermal zones, most sharing a type (acpitz), none dropped: each
 * duplicate type gets its zone's number; the values are each zone's own. */
Test(capture, every_zone_of_a_large_tree) {
  char root[600];
  snprintf(root, sizeof root, "%s/server", tu_dir());
  mkdir(root, 0755);
  for (int z = 0; z < 301; z++) {
    char rel[128], val[32];
    snprintf(rel, sizeof rel, "class/thermal/thermal_zone%d/type", z);
    put(root, rel, z < 290 ? "acpitz\n" : "x86_pkg_temp\n");
    snprintf(rel, sizeof rel, "class/thermal/thermal_zone%d/temp", z);
    snprintf(val, sizeof val, "%d\n", 30000 + 10 * z);
    put(root, rel, val);
  }
  sits_err err = {0};
  sits_rt *rt = sits_rt_new(root, &err);
  cr_assert_not_null(rt, "%s", err.msg);
  cr_assert_eq(sits_rt_column_count(rt), 301);
  double *v = malloc(301 * sizeof *v);
  cr_assert_eq(sits_rt_sample_at(rt, 0.0, v, &err), SITS_OK);
  cr_assert_float_eq(col(rt, v, "temp_c.acpitz"), 30.0, 1e-12);      /* zone 0 */
  cr_assert_float_eq(col(rt, v, "temp_c.acpitz_289"), 32.89, 1e-12); /* zone 289 */
  cr_assert_float_eq(col(rt, v, "temp_c.x86_pkg_temp_300"), 33.0, 1e-12);
  free(v);
  sits_rt_free(rt);
}

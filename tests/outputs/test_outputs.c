/*
 * test_outputs.c - the HDF5, CSV and JSON outputs read back: names and layout of the
 * contract, values equal to the in-memory result.
 */
#include "test_util.h"
#include "sits_writers.h"

#include <hdf5.h>
#include <hdf5_hl.h>

#include "sits_hotspot.h"

/* A string attribute as sits writes them: variable-length UTF-8 (asserted), copied into buf. */
static char *dup_str_attr(hid_t f, const char *obj, const char *name) {
  hid_t a = H5Aopen_by_name(f, obj, name, H5P_DEFAULT, H5P_DEFAULT);
  cr_assert_geq(a, 0, "no attribute %s of %s", name, obj);
  hid_t t = H5Aget_type(a);
  cr_assert_gt(H5Tis_variable_str(t), 0, "%s: not a variable-length string", name);
  char *v = NULL;
  cr_assert_geq(H5Aread(a, t, &v), 0);
  char *copy = strdup(v ? v : "");
  H5free_memory(v);
  H5Tclose(t);
  H5Aclose(a);
  return copy;
}

static void get_str_attr(hid_t f, const char *obj, const char *name, char *buf, size_t size) {
  hid_t a = H5Aopen_by_name(f, obj, name, H5P_DEFAULT, H5P_DEFAULT);
  cr_assert_geq(a, 0, "no attribute %s of %s", name, obj);
  hid_t t = H5Aget_type(a);
  cr_assert_gt(H5Tis_variable_str(t), 0, "%s: not a variable-length string", name);
  cr_assert_eq(H5Tget_cset(t), H5T_CSET_UTF8, "%s: not UTF-8", name);
  char *v = NULL;
  cr_assert_geq(H5Aread(a, t, &v), 0);
  snprintf(buf, size, "%s", v ? v : "");
  H5free_memory(v);
  H5Tclose(t);
  H5Aclose(a);
}

static void read_series(hid_t f, const char *name, double *out, size_t n) {
  int rank = 0;
  hsize_t dims[1];
  cr_assert_geq(H5LTget_dataset_ndims(f, name, &rank), 0, "no dataset %s", name);
  cr_assert_eq(rank, 1);
  H5LTget_dataset_info(f, name, dims, NULL, NULL);
  cr_assert_eq(dims[0], n, "%s has %llu values, /time_s %zu", name, (unsigned long long)dims[0], n);
  cr_assert_geq(H5LTread_dataset_double(f, name, out), 0);
}

Test(outputs, hdf5_layout_and_values) {
  sits_scenario *sc = tu_shipped("scenarios/hotspot_3node_step.cfg", NULL, 0);
  sits_result *r = tu_run(sc);
  char path[512];
  snprintf(path, sizeof path, "%s/out.h5", tu_dir());
  sits_err err = {0};
  cr_assert_eq(sits_write_h5(sc, r, path, &err), SITS_OK, "%s", err.msg);
  size_t n = sits_result_sample_count(r);
  double *v = malloc(n * sizeof *v);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  cr_assert_geq(f, 0);
  read_series(f, "/time_s", v, n);
  for (size_t k = 0; k < n; k++)
    cr_assert_eq(v[k], sits_result_time_s(r)[k]);
  const char *nodes[] = {"chip", "spreader", "sink"};
  for (size_t i = 0; i < 3; i++) {
    char name[64];
    snprintf(name, sizeof name, "/temp_c/%s", nodes[i]);
    read_series(f, name, v, n);
    for (size_t k = 0; k < n; k++)
      cr_assert_eq(v[k], sits_result_temp_c(r, k, i));
  }
  read_series(f, "/power_w/total", v, n);
  cr_assert_eq(v[0], 40.0);
  cr_assert_eq(v[n - 1], 10.0);
  read_series(f, "/node_power_w/chip", v, n);
  cr_assert_eq(v[0], 40.0);
  char units[16], version[96], linsol[16];
  cr_assert_geq((get_str_attr(f, "/temp_c/chip", "units", units, sizeof units), 0), 0);
  cr_assert_str_eq(units, "degC");
  cr_assert_geq((get_str_attr(f, "/", "sitsenergy_version", version, sizeof version), 0), 0);
  cr_assert_str_eq(version, sits_version());
  cr_assert_geq((get_str_attr(f, "/", "solver_linear_solver", linsol, sizeof linsol), 0), 0);
  cr_assert_str_eq(linsol, "dense");
  long steps = 0;
  cr_assert_geq(H5LTget_attribute_long(f, "/", "solver_steps", &steps), 0);
  sits_ode_stats st;
  sits_result_solver_stats(r, &st);
  cr_assert_eq(steps, st.steps);
  cr_assert_gt(steps, 0);
  long ticks = -1, skipped = -1;
  size_t te, ts;
  sits_result_ticks(r, &te, &ts);
  cr_assert_geq(H5LTget_attribute_long(f, "/", "governor_ticks", &ticks), 0);
  cr_assert_geq(H5LTget_attribute_long(f, "/", "ticks_skipped", &skipped), 0);
  cr_assert_eq(ticks, (long)te);
  cr_assert_eq(skipped, (long)ts);
  char *config = dup_str_attr(f, "/", "config");
  cr_assert(strstr(config, "spreader") && strstr(config, "duration_s"), "%s", config);
  hid_t ev = H5Dopen2(f, "/events", H5P_DEFAULT);
  cr_assert_geq(ev, 0, "no /events dataset");
  H5Dclose(ev);
  /* chunked to the run (its samples, under 4096) and compressed: shuffle, then deflate */
  hid_t d = H5Dopen2(f, "/temp_c/chip", H5P_DEFAULT), dcpl = H5Dget_create_plist(d);
  hsize_t chunk = 0;
  cr_assert_eq(H5Pget_chunk(dcpl, 1, &chunk), 1);
  cr_assert_lt(n, 4096);
  cr_assert_eq(chunk, n);
  cr_assert_eq(H5Pget_nfilters(dcpl), 2);
  unsigned flags = 0, cd[4];
  size_t ncd = 4;
  cr_assert_eq(H5Pget_filter2(dcpl, 0, &flags, &ncd, cd, 0, NULL, NULL), H5Z_FILTER_SHUFFLE);
  ncd = 4;
  cr_assert_eq(H5Pget_filter2(dcpl, 1, &flags, &ncd, cd, 0, NULL, NULL), H5Z_FILTER_DEFLATE);
  H5Pclose(dcpl), H5Dclose(d);
  H5Fclose(f);
  free(config);
  free(v);
  sits_result_free(r);
  sits_scenario_free(sc);
}

Test(outputs, csv_header_and_rows) {
  sits_scenario *sc = tu_shipped("scenarios/hotspot_3node_step.cfg", NULL, 0);
  sits_result *r = tu_run(sc);
  char path[512];
  snprintf(path, sizeof path, "%s/out.csv", tu_dir());
  sits_err err = {0};
  cr_assert_eq(sits_write_csv(sc, r, path, &err), SITS_OK, "%s", err.msg);
  char *text = tu_slurp(path);
  cr_assert(strncmp(text,
                    "time_s,temp_c.chip,temp_c.spreader,temp_c.sink,node_power_w.chip,"
                    "node_power_w.spreader,node_power_w.sink,power_w.total\n",
                    118) == 0,
            "%.200s", text);
  size_t lines = 0;
  for (char *p = text; *p; p++)
    lines += *p == '\n';
  cr_assert_eq(lines, sits_result_sample_count(r) + 1);
  /* second row: t = 0.01 s */
  char *row = strchr(text, '\n') + 1;
  row = strchr(row, '\n') + 1;
  double t, chip;
  cr_assert_eq(sscanf(row, "%lf,%lf", &t, &chip), 2);
  cr_assert_float_eq(t, 0.01, 1e-12);
  cr_assert_float_eq(chip, sits_result_temp_c(r, 1, 0), 1e-6);
  free(text);
  sits_result_free(r);
  sits_scenario_free(sc);
}

Test(outputs, write_failure_leaves_nothing) {
  sits_scenario *sc = tu_shipped("scenarios/hotspot_3node_step.cfg", NULL, 0);
  sits_result *r = tu_run(sc);
  sits_err err = {0};
  cr_assert_eq(sits_write_h5(sc, r, "/nonexistent_dir/out.h5", &err), SITS_EIO);
  cr_assert(strstr(err.msg, "/nonexistent_dir/out.h5: cannot create"), "%s", err.msg);
  cr_assert_eq(sits_write_csv(sc, r, "/nonexistent_dir/out.csv", &err), SITS_EIO);
  sits_result_free(r);
  sits_scenario_free(sc);
}

Test(outputs, summary_json_fields) {
  sits_scenario *sc = tu_shipped("scenarios/orin_nx_vlm_burst.cfg", NULL, 0);
  sits_result *r = tu_run(sc);
  char path[512];
  snprintf(path, sizeof path, "%s/summary.json", tu_dir());
  FILE *f = fopen(path, "w");
  sits_write_summary_json(sc, r, f);
  fclose(f);
  char *j = tu_slurp(path);
  const char *keys[] = {"\"end_reason\":\"duration\"",
                        "\"simulated_s\":",
                        "\"max_junction_temp_c\":",
                        "\"peak_temp_c\":{\"die\":",
                        "\"avg_power_w\":",
                        "\"peak_power_w\":",
                        "\"energy_j\":",
                        "\"time_to_throttle_s\":null",
                        "\"throttled_fraction\":",
                        "\"battery\":",
                        "\"items_done\":",
                        "\"energy_per_item_mj\":",
                        "\"latency_ms\":",
                        "\"deficit_fraction\":",
                        "\"constraints\":{\"tdp_budget_w\":{\"limit\":15,",
                        "\"max_junction_temp_c\":{\"limit\":85,",
                        "\"verdict\":\"violated\""};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    cr_assert(strstr(j, keys[i]), "summary lacks %s: %s", keys[i], j);
  double avg = 0;
  cr_assert_eq(sscanf(strstr(j, "\"avg_power_w\":") + 14, "%lf", &avg), 1);
  cr_assert_float_eq(avg, sits_result_summary(r)->avg_power_w, 1e-8 * avg);
  free(j);
  sits_result_free(r);
  sits_scenario_free(sc);
}

/* The per-item limits hold on a workload of platform-neutral work too (the product's example:
 * video_enc's frames at 30/s by the roofline on the Orin NX, 22.427 ms each, as its summary
 * reads), not only on a platform or workload that states max_rate: 40 ms holds, 10 ms does not.
 * A workload of power phases processes no items, and the limit is refused at its line. */
Test(outputs, per_item_limits_on_roofline_work) {
  const char *ok[] = {"duration_s=10", "max_latency_ms=40", "max_energy_per_item_mj=1000"};
  sits_scenario *sc = tu_shipped("examples/video_enc.cfg", ok, 3);
  sits_result *r = tu_run(sc);
  const sits_summary *s = sits_result_summary(r);
  cr_assert_float_eq(s->latency_ms, 22.427, 5e-4);
  cr_assert(s->latency.ok && s->energy_per_item.ok);
  sits_result_free(r);
  sits_scenario_free(sc);
  const char *tight[] = {"duration_s=10", "max_latency_ms=10"};
  sc = tu_shipped("examples/video_enc.cfg", tight, 2);
  r = tu_run(sc);
  cr_assert_not(sits_result_summary(r)->latency.ok);
  sits_result_free(r);
  sits_scenario_free(sc);
  char msg[8192];
  cr_assert_eq(
      tu_load_fail("no_items.cfg",
                   "platform = { name = \"p\";\n"
                   "  thermal = { nodes = ({ name = \"die\"; c_j_per_k = 1.0; });\n"
                   "    links = ({ a = \"die\"; b = \"ambient\"; r_k_per_w = 2.0; }); }; };\n"
                   "workload = { phases = ({ duration_s = 10.0; power_w = { die = 1.0; }; }); };\n"
                   "max_latency_ms = 40.0;\n",
                   msg, sizeof msg),
      SITS_EINPUT);
  cr_assert(strstr(msg, "no_items.cfg:5: 'max_latency_ms' needs a domain that processes items"),
            "%s", msg);
}

/* Every constraint the scenario sets is in the JSON with its limit, value and verdict, as the
 * text summary shows them (latency and energy per item on the MLU370 ResNet-50 run: 2.994 ms
 * per image against 10 ms, 274.8 mJ per image against 100 mJ; battery life on a 1 Wh pack). */
Test(outputs, summary_json_every_constraint) {
  char path[512], scen[512];
  snprintf(scen, sizeof scen, "%s/scenarios/mlu370_resnet50.cfg", SITS_CONFIGS);
  const char *sets[] = {"duration_s=10", "max_latency_ms=10", "max_energy_per_item_mj=100"};
  sits_err err = {0};
  sits_scenario *sc = NULL;
  cr_assert_eq(sits_scenario_load(scen, sets, 3, &sc, &err), SITS_OK, "%s", err.msg);
  sits_result *r = tu_run(sc);
  snprintf(path, sizeof path, "%s/constraints.json", tu_dir());
  FILE *f = fopen(path, "w");
  sits_write_summary_json(sc, r, f);
  fclose(f);
  char *j = tu_slurp(path);
  cr_assert(strstr(j, "\"max_latency_ms\":{\"limit\":10,\"value\":2.99"), "%s", j);
  cr_assert(strstr(j, "\"max_energy_per_item_mj\":{\"limit\":100,\"value\":275."), "%s", j);
  cr_assert(strstr(j, "\"ok\":false}"), "%s", j);
  cr_assert(strstr(j, "\"verdict\":\"violated\""), "%s", j);
  free(j);
  sits_result_free(r);
  sits_scenario_free(sc);
  snprintf(scen, sizeof scen, "%s/scenarios/orin_nx_video_enc.cfg", SITS_CONFIGS);
  const char *bsets[] = {"duration_s=60", "platform.battery.capacity_wh=1",
                         "min_battery_life_s=3000"};
  cr_assert_eq(sits_scenario_load(scen, bsets, 3, &sc, &err), SITS_OK, "%s", err.msg);
  r = tu_run(sc);
  f = fopen(path, "w");
  sits_write_summary_json(sc, r, f);
  fclose(f);
  j = tu_slurp(path);
  cr_assert(strstr(j, "\"min_battery_life_s\":{\"limit\":3000,\"value\":"), "%s", j);
  cr_assert(!sits_result_summary(r)->battery_life.ok);
  free(j);
  sits_result_free(r);
  sits_scenario_free(sc);
}

/* A sink that counts the rows it gets and checks they come in order. */
typedef struct seen {
  size_t rows;
  double last_t;
  bool ordered;
  int fail_after; /* > 0: fail at that call */
  int calls;
} seen;

static int counting_sink(const sits_result *r, size_t first, size_t count, void *user,
                         sits_err *err) {
  seen *s = user;
  if (s->fail_after && ++s->calls >= s->fail_after)
    return (snprintf(err->msg, sizeof err->msg, "disk full (test)"), err->code = SITS_EIO);
  const double *t = sits_result_time_s(r);
  for (size_t k = first; k < first + count; k++) {
    s->ordered = s->ordered && t[k] > s->last_t;
    s->last_t = t[k];
  }
  s->rows += count;
  return SITS_OK;
}

/* Streaming: a run with a sink gives it every sample in order, in blocks, and keeps none;
 * the files written as the run goes hold the same bytes (CSV) and values (HDF5) as the files
 * written from a kept result; a sink that fails stops the run with its message. */
Test(outputs, streamed_equals_kept) {
  char path[512];
  snprintf(path, sizeof path, "%s/scenarios/orin_nx_video_enc.cfg", SITS_CONFIGS);
  const char *sets[] = {"duration_s=1200", "sample_period_s=0.1"};
  sits_scenario *sc = NULL;
  sits_err err0 = {0};
  cr_assert_eq(sits_scenario_load(path, sets, 2, &sc, &err0), SITS_OK, "%s", err0.msg);
  sits_result *kept = tu_run(sc);
  size_t n = sits_result_sample_count(kept);
  cr_assert_gt(n, 4096 * 2, "the run spans several blocks (%zu samples)", n);
  char csv_a[600], csv_b[600], h5_a[600], h5_b[600];
  snprintf(csv_a, sizeof csv_a, "%s/kept.csv", tu_dir());
  snprintf(csv_b, sizeof csv_b, "%s/streamed.csv", tu_dir());
  snprintf(h5_a, sizeof h5_a, "%s/kept.h5", tu_dir());
  snprintf(h5_b, sizeof h5_b, "%s/streamed.h5", tu_dir());
  sits_err err = {0};
  cr_assert_eq(sits_write_csv(sc, kept, csv_a, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(sits_write_h5(sc, kept, h5_a, &err), SITS_OK, "%s", err.msg);
  /* the rows through a counting sink */
  seen s = {.ordered = true, .last_t = -1};
  sits_run_opts o = {.sink = counting_sink, .sink_user = &s};
  sits_result *r = NULL;
  cr_assert_eq(sits_run(sc, &o, &r, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(s.rows, n);
  cr_assert(s.ordered);
  cr_assert_eq(sits_result_sample_count(r), 0, "a streamed run keeps no samples");
  cr_assert_float_eq(sits_result_summary(r)->max_junction_temp_c,
                     sits_result_summary(kept)->max_junction_temp_c, 0);
  sits_result_free(r);
  /* the discarding sink (a summary-only run, a sweep row): no samples kept, the summary the
   * same to the bit (peaks, energies, battery and power figures are taken as the run goes) */
  sits_run_opts dis = {.sink = sits_sink_discard};
  cr_assert_eq(sits_run(sc, &dis, &r, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(sits_result_sample_count(r), 0);
  const sits_summary *sd = sits_result_summary(r), *sk = sits_result_summary(kept);
  cr_assert(sd->max_junction_temp_c == sk->max_junction_temp_c && sd->energy_j == sk->energy_j &&
                sd->avg_power_w == sk->avg_power_w && sd->peak_power_w == sk->peak_power_w &&
                sd->runtime_s == sk->runtime_s && sd->battery_heat_j == sk->battery_heat_j,
            "peak %.17g / %.17g, energy %.17g / %.17g", sd->max_junction_temp_c,
            sk->max_junction_temp_c, sd->energy_j, sk->energy_j);
  sits_result_free(r);
  /* each file streamed by its own run (the run is deterministic) */
  sits_stream *st[2] = {sits_stream_open(sc, csv_b, SITS_STREAM_CSV, &err),
                        sits_stream_open(sc, h5_b, SITS_STREAM_H5, &err)};
  cr_assert(st[0] && st[1], "%s", err.msg);
  for (int k = 0; k < 2; k++) {
    sits_run_opts so = {.sink = sits_stream_sink, .sink_user = st[k]};
    cr_assert_eq(sits_run(sc, &so, &r, &err), SITS_OK, "%s", err.msg);
    cr_assert_eq(sits_stream_close(st[k], r, &err), SITS_OK, "%s", err.msg);
    sits_result_free(r);
  }
  char *a = tu_slurp(csv_a), *b = tu_slurp(csv_b);
  cr_assert(strlen(a) > 100000);
  cr_assert_str_eq(a, b, "the streamed CSV differs from the written one");
  free(a), free(b);
  const char *series[] = {"/time_s",       "/temp_c/die",  "/power_w/total",
                          "/freq_mhz/gpu", "/battery/soc", "/node_power_w/module"};
  hid_t fa = H5Fopen(h5_a, H5F_ACC_RDONLY, H5P_DEFAULT),
        fb = H5Fopen(h5_b, H5F_ACC_RDONLY, H5P_DEFAULT);
  double *va = malloc(n * sizeof *va), *vb = malloc(n * sizeof *vb);
  for (size_t k = 0; k < sizeof series / sizeof series[0]; k++) {
    read_series(fa, series[k], va, n);
    read_series(fb, series[k], vb, n);
    cr_assert(memcmp(va, vb, n * sizeof *va) == 0, "%s differs", series[k]);
  }
  hsize_t ne = 0;
  H5LTget_dataset_info(fb, "/events", &ne, NULL, NULL);
  cr_assert_eq(ne, sits_result_event_count(kept));
  char version[64] = "";
  cr_assert_geq((get_str_attr(fb, "/", "sitsenergy_version", version, sizeof version), 0), 0);
  free(va), free(vb);
  H5Fclose(fa), H5Fclose(fb);
  /* a failing sink stops the run, says why, and a stream closed without a result leaves
   * nothing */
  seen f = {.ordered = true, .last_t = -1, .fail_after = 2};
  sits_run_opts fo = {.sink = counting_sink, .sink_user = &f};
  err = (sits_err){0};
  cr_assert_eq(sits_run(sc, &fo, &r, &err), SITS_EIO);
  cr_assert_null(r);
  cr_assert(strstr(err.msg, "disk full (test)"), "%s", err.msg);
  char gone[600];
  snprintf(gone, sizeof gone, "%s/dropped.h5", tu_dir());
  sits_stream *d = sits_stream_open(sc, gone, SITS_STREAM_H5, &err);
  cr_assert_not_null(d, "%s", err.msg);
  sits_stream_close(d, NULL, NULL);
  cr_assert_neq(access(gone, F_OK), 0, "a dropped stream left its file");
  sits_result_free(kept);
  sits_scenario_free(sc);
}

/* The config attribute of an HDF5 output re-runs as it is (#16): the product's example names a
 * platform, its battery and a workload profile; the stored merged text, loaded from a file of
 * its own, runs to the same summary and the same config_hash. */
Test(outputs, config_attribute_reruns) {
  char ex[512];
  snprintf(ex, sizeof ex, "%s/examples/video_enc.cfg", SITS_CONFIGS);
  const char *sets[] = {"duration_s=30"};
  sits_scenario *sc = NULL;
  sits_err err = {0};
  cr_assert_eq(sits_scenario_load(ex, sets, 1, &sc, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(sits_scenario_set_origin(sc, "sitsenergy run video_enc.cfg --set duration_s=30"),
               SITS_OK);
  sits_result *r = tu_run(sc);
  char path[512];
  snprintf(path, sizeof path, "%s/rerun.h5", tu_dir());
  cr_assert_eq(sits_write_h5(sc, r, path, &err), SITS_OK, "%s", err.msg);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  char *config = dup_str_attr(f, "/", "config");
  char *libs = dup_str_attr(f, "/", "library_versions"),
       *summary = dup_str_attr(f, "/", "summary_json");
  char *origin = dup_str_attr(f, "/", "command_line");
  cr_assert(strstr(libs, "HDF5 1.") && strstr(libs, "SUNDIALS ") && strstr(libs, "GSL "), "%s",
            libs);
  cr_assert(strncmp(summary, "{\"schema_version\":1,\"end_reason\":\"duration\"", 40) == 0, "%s",
            summary);
  cr_assert_str_eq(origin, "sitsenergy run video_enc.cfg --set duration_s=30");
  free(libs), free(summary), free(origin);
  H5Fclose(f);
  sits_scenario *again = tu_load("rerun.cfg", config);
  sits_result *r2 = tu_run(again);
  const sits_summary *a = sits_result_summary(r), *b = sits_result_summary(r2);
  cr_assert_eq(a->energy_j, b->energy_j);
  cr_assert_eq(a->max_junction_temp_c, b->max_junction_temp_c);
  cr_assert_eq(a->final_soc, b->final_soc);
  cr_assert_eq(sits_scenario_config_hash(sc), sits_scenario_config_hash(again));
  free(config);
  sits_result_free(r), sits_result_free(r2);
  sits_scenario_free(sc), sits_scenario_free(again);
}

/* A grid floorplan: per layer one time x rows x cols dataset with dimension scales (not one
 * dataset per cell), and per block HotSpot's reductions, against the result's node values. */
Test(outputs, hdf5_grid_layers_and_block_reductions) {
  const char *sets[] = {"platform.thermal.hotspot.model=\"grid\"",
                        "platform.thermal.hotspot.rows=8", "platform.thermal.hotspot.cols=6",
                        "duration_s=0.5"};
  sits_scenario *sc = tu_shipped("scenarios/ev6_floorplan_throttle.cfg", sets, 4);
  sits_result *r = tu_run(sc);
  char path[512];
  snprintf(path, sizeof path, "%s/grid.h5", tu_dir());
  sits_err err = {0};
  cr_assert_eq(sits_write_h5(sc, r, path, &err), SITS_OK, "%s", err.msg);
  size_t n = sits_result_sample_count(r), R = 8, C = 6;
  const sits_thermal *th = sits_scenario_thermal(sc);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  cr_assert_geq(f, 0);
  cr_assert_eq(H5Lexists(f, "/temp_c/L0_0_0", H5P_DEFAULT), 0, "no per-cell datasets");
  static const char *const layers[] = {"silicon", "interface", "spreader", "sink"};
  double *grid = malloc(n * R * C * sizeof *grid);
  for (size_t L = 0; L < 4; L++)
    for (int k = 0; k < 2; k++) {
      char name[64];
      snprintf(name, sizeof name, "/%s/%s", k ? "node_power_w" : "temp_c", layers[L]);
      hsize_t dims[3];
      int rank = 0;
      cr_assert_geq(H5LTget_dataset_ndims(f, name, &rank), 0, "no %s", name);
      cr_assert_eq(rank, 3);
      H5LTget_dataset_info(f, name, dims, NULL, NULL);
      cr_assert(dims[0] == n && dims[1] == R && dims[2] == C, "%s shape", name);
      cr_assert_geq(H5LTread_dataset_double(f, name, grid), 0);
      for (size_t t = 0; t < n; t += n / 7 + 1)
        for (size_t i = 0; i < R; i++)
          for (size_t j = 0; j < C; j++) {
            char cell[64];
            snprintf(cell, sizeof cell, "L%zu_%zu_%zu", L, i, j);
            int node = sits_thermal_find(th, cell);
            double want = k ? sits_result_node_power_w(r, t, (size_t)node)
                            : sits_result_temp_c(r, t, (size_t)node);
            cr_assert_eq(grid[(t * R + i) * C + j], want, "%s[%zu][%zu][%zu]", name, t, i, j);
          }
      hid_t d = H5Dopen2(f, name, H5P_DEFAULT), y = H5Dopen2(f, "/grid/y_m", H5P_DEFAULT),
            x = H5Dopen2(f, "/grid/x_m", H5P_DEFAULT), ts = H5Dopen2(f, "/time_s", H5P_DEFAULT);
      cr_assert_gt(H5DSis_attached(d, ts, 0), 0);
      cr_assert_gt(H5DSis_attached(d, y, 1), 0);
      cr_assert_gt(H5DSis_attached(d, x, 2), 0);
      H5Dclose(d), H5Dclose(y), H5Dclose(x), H5Dclose(ts);
    }
  /* cell centres: ev6's 16 x 16 mm die, row 0 at the top */
  double y[8], x[6];
  cr_assert_geq(H5LTread_dataset_double(f, "/grid/y_m", y), 0);
  cr_assert_geq(H5LTread_dataset_double(f, "/grid/x_m", x), 0);
  cr_assert_float_eq(x[0], 0.016 / 6 / 2, 1e-12);
  cr_assert_float_eq(y[0], 0.016 - 0.016 / 8 / 2, 1e-12);
  /* IntExec: max over its silicon cells, the mean weighted by the share of the block each
   * cell holds, the cell under its centre (the name's alias) */
  double *mx = malloc(n * sizeof *mx), *avg = malloc(n * sizeof *avg),
         *ctr = malloc(n * sizeof *ctr);
  read_series(f, "/blocks/IntExec/max_c", mx, n);
  read_series(f, "/blocks/IntExec/avg_c", avg, n);
  read_series(f, "/blocks/IntExec/center_c", ctr, n);
  int centre = sits_thermal_find(th, "IntExec");
  cr_assert_geq(centre, 0);
  /* the block's overlap with each cell, from the floorplan file */
  char flp[600];
  snprintf(flp, sizeof flp, "%s/platforms/floorplans/ev6.flp", SITS_CONFIGS);
  sits_floorplan *fp = NULL;
  cr_assert_eq(sits_hs_read_flp(flp, &fp, &err), SITS_OK, "%s", err.msg);
  const sits_flp_block *b = &fp->b[sits_floorplan_find(fp, "IntExec")];
  double cw = fp->width_m / (double)C, ch = fp->height_m / (double)R, area[8 * 6];
  for (size_t i = 0; i < R; i++)
    for (size_t j = 0; j < C; j++) {
      double x0 = (double)j * cw, y0 = fp->height_m - (double)(i + 1) * ch;
      double ox = fmin(x0 + cw, b->x_m + b->w_m) - fmax(x0, b->x_m);
      double oy = fmin(y0 + ch, b->y_m + b->h_m) - fmax(y0, b->y_m);
      area[i * C + j] = ox > 0 && oy > 0 ? ox * oy : 0;
    }
  for (size_t t = 0; t < n; t++) {
    cr_assert_eq(ctr[t], sits_result_temp_c(r, t, (size_t)centre));
    double want_max = -INFINITY, sum = 0, wsum = 0;
    for (size_t c = 0; c < R * C; c++)
      if (area[c] > 0) {
        double temp = sits_result_temp_c(r, t, c); /* layer 0 cells are nodes 0..RC-1 */
        want_max = fmax(want_max, temp), sum += area[c] * temp, wsum += area[c];
      }
    cr_assert_float_eq(mx[t], want_max, 1e-12, "max at sample %zu", t);
    cr_assert_float_eq(avg[t], sum / wsum, 1e-9, "area-weighted mean at sample %zu", t);
  }
  sits_floorplan_free(fp);
  H5Fclose(f);
  free(grid), free(mx), free(avg), free(ctr);
  sits_result_free(r);
  sits_scenario_free(sc);
}

/* Stored config texts re-run from another directory when the scenario names files by relative
 * paths (a floorplan next to its platform, a trace next to its scenario). */
Test(outputs, config_attribute_reruns_with_file_paths) {
  static const char *const cases[][2] = {{"scenarios/ev6_floorplan_throttle.cfg", "duration_s=1"},
                                         {"scenarios/orin_nano_replay.cfg", "duration_s=20"}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    const char *sets[] = {cases[k][1]};
    sits_scenario *sc = tu_shipped(cases[k][0], sets, 1);
    sits_scenario *again = tu_load("elsewhere.cfg", sits_scenario_config_text(sc));
    cr_assert_eq(sits_scenario_config_hash(sc), sits_scenario_config_hash(again), "%s",
                 cases[k][0]);
    sits_scenario_free(sc), sits_scenario_free(again);
  }
}

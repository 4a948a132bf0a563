/*
 * test_article.c - the product's figures in validation/README.md's "The product's source,
 * side by side" table, asserted so that the table and the code cannot drift apart. These are
 * the product's answers under the stated assumptions, pinned at the precision the table
 * prints (the article's own figures and the differences are in the table).
 */
#include "test_util.h"

#include "sits_dvfs.h"

/* 2.2: ResNet-18 at FP16 and INT4 on the Orin NX, busy, 25 C, under L4T's fan curve: 83.5 C
 * and 62.5 C (the article: 72.3 and 65.1). */
Test(article, orin_resnet18_fp16_int4) {
  const char *files[] = {"scenarios/article_orin_resnet18_fp16.cfg",
                         "scenarios/article_orin_resnet18_int4.cfg"};
  const double tj[] = {83.5, 62.5}, watts[] = {19.1, 11.8};
  for (int k = 0; k < 2; k++) {
    sits_scenario *sc = tu_shipped(files[k], NULL, 0);
    sits_result *r = tu_run(sc);
    const sits_summary *s = sits_result_summary(r);
    cr_assert_float_eq(s->max_junction_temp_c, tj[k], 0.05, "%s: %.3f C", files[k],
                       s->max_junction_temp_c);
    cr_assert_float_eq(s->avg_power_w, watts[k], 0.05, "%s: %.3f W", files[k], s->avg_power_w);
    sits_result_free(r);
    sits_scenario_free(sc);
  }
}

/* 2.3: the MLU370's DVFS table at 30 C: 32.2 / 69.7 / 95.3 W, 186 / 312 / 334 img/s, 5.73 /
 * 4.46 / 3.49 img/s/W (the card's total, idle video units included), knee 800 MHz (the
 * article: 32 / 68 / 92 W, the same img/s, 5.81 / 4.59 / 3.63, knee 800). */
Test(article, mlu370_dvfs_points) {
  sits_scenario *sc = tu_shipped("scenarios/mlu370_resnet50.cfg", NULL, 0);
  sits_dvfs_table t;
  sits_err err = {0};
  cr_assert_eq(sits_dvfs_table_compute(sc, NULL, &t, &err), SITS_OK, "%s", err.msg);
  const double w[] = {32.2, 69.7, 95.3}, ips[] = {186, 312, 334}, ipj[] = {5.73, 4.46, 3.49};
  for (size_t k = 0; k < 3; k++) {
    cr_assert_float_eq(t.rows[k].power_w, w[k], 0.05, "%zu: %.3f W", k, t.rows[k].power_w);
    cr_assert_float_eq(t.rows[k].items_per_s, ips[k], 1e-9);
    cr_assert_float_eq(t.rows[k].items_per_j, ipj[k], 0.005, "%zu: %.4f", k, t.rows[k].items_per_j);
  }
  cr_assert_float_eq(t.knee_freq_mhz, 800.0, 0);
  sits_scenario_free(sc);
}

/* 2.4: the VLM on Horizon J5 (traffic and BPU power fitted to the unpruned run: 24.1 FPS,
 * 8.2 W); pruned with the source's 37 % less traffic: 38.25 FPS (the source: 38.7) at the
 * same 8.19 W (the source: 5.6 W; the model has no DRAM power). */
Test(article, j5_vlm_pruning) {
  const char *files[] = {"scenarios/article_j5_vlm.cfg", "scenarios/article_j5_vlm_pruned.cfg"};
  const double fps[] = {24.1, 38.25};
  for (int k = 0; k < 2; k++) {
    sits_scenario *sc = tu_shipped(files[k], NULL, 0);
    sits_result *r = tu_run(sc);
    const sits_summary *s = sits_result_summary(r);
    cr_assert_float_eq(s->items_done / 300.0, fps[k], 0.01, "%s: %.3f FPS", files[k],
                       s->items_done / 300.0);
    cr_assert_float_eq(s->avg_power_w, 8.19, 0.02, "%s: %.3f W", files[k], s->avg_power_w);
    sits_result_free(r);
    sits_scenario_free(sc);
  }
}

/* 2.5: the four-line configuration: 4.63 W average, 46.3 C peak (the fan at its second step
 * at most), verdict ok, 30 frames/s for the hour, SOC 0.915 at the end. */
Test(article, four_line_config) {
  sits_scenario *sc = tu_shipped("examples/video_enc.cfg", NULL, 0);
  sits_result *r = tu_run(sc);
  const sits_summary *s = sits_result_summary(r);
  cr_assert_float_eq(s->avg_power_w, 4.63, 0.005, "%.4f W", s->avg_power_w);
  cr_assert_float_eq(s->max_junction_temp_c, 46.29, 0.005, "%.4f C", s->max_junction_temp_c);
  cr_assert(s->ok);
  cr_assert_float_eq(s->items_done, 108000, 1e-6);
  cr_assert_float_eq(s->final_soc, 0.915, 0.0005, "%.5f", s->final_soc);
  sits_result_free(r);
  sits_scenario_free(sc);
}

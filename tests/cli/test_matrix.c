/*
 * test_matrix.c - every shipped workload on every shipped platform (issue #12): the product's
 * example with --set platform=P --set workload_profile=W either runs (exit 0, a verdict, items
 * done) or says which unit the platform lacks for the work (exit 1, "has no ..."). The
 * product platforms' outcomes are pinned; the platform-neutral work's translation is checked
 * against the roofline by hand.
 */
#include "test_util.h"

#include <dirent.h>

/* The names (without .cfg) of the files in SITS_CONFIGS/@p sub, sorted; their count. */
static size_t names(const char *sub, char out[][64], size_t max) {
  char dir[512];
  snprintf(dir, sizeof dir, "%s/%s", SITS_CONFIGS, sub);
  DIR *d = opendir(dir);
  cr_assert_not_null(d, "%s", dir);
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && n < max) {
    size_t len = strlen(e->d_name);
    if (len > 4 && strcmp(e->d_name + len - 4, ".cfg") == 0)
      snprintf(out[n++], 64, "%.*s", (int)(len - 4), e->d_name);
  }
  closedir(d);
  qsort(out, n, 64, (int (*)(const void *, const void *))strcmp);
  return n;
}

/* What a product platform does with each workload: NULL runs, else the message's text. Every
 * shipped workload runs on every product platform (the two cards' video units since #37). */
static const char *expected(const char *platform, const char *workload) {
  (void)platform, (void)workload;
  return NULL;
}

static bool product(const char *p) {
  return !strcmp(p, "jetson_orin_nx") || !strcmp(p, "raspberry_pi5") || !strcmp(p, "rk3588") ||
         !strcmp(p, "qcs8550") || !strcmp(p, "ascend_310p") || !strcmp(p, "horizon_j5") ||
         !strcmp(p, "hi3559a") || !strcmp(p, "mlu370");
}

Test(matrix, every_workload_on_every_platform, .timeout = 300) {
  char platforms[64][64], workloads[64][64];
  size_t np = names("platforms", platforms, 64), nw = names("workloads", workloads, 64);
  cr_assert_geq(np, 4);
  cr_assert_geq(nw, 4);
  size_t ran = 0, refused = 0, product_ran = 0, n_product = 0;
  for (size_t p = 0; p < np; p++)
    n_product += product(platforms[p]);
  for (size_t p = 0; p < np; p++)
    for (size_t w = 0; w < nw; w++) {
      char args[2048], *out, *err;
      snprintf(args, sizeof args,
               "run %s/examples/video_enc.cfg --set platform=%s --set workload_profile=%s "
               "--set duration_s=60 --summary json --quiet",
               SITS_CONFIGS, platforms[p], workloads[w]);
      int code = tu_cli(args, &out, &err);
      const char *want = product(platforms[p]) ? expected(platforms[p], workloads[w]) : NULL;
      if (code == 0) {
        cr_assert(!want, "%s x %s ran; expected '%s'", platforms[p], workloads[w], want);
        cr_assert(strstr(out, "\"verdict\":\"ok\"") || strstr(out, "\"verdict\":\"violated\""),
                  "%s x %s: %s", platforms[p], workloads[w], out);
        cr_assert(!strstr(out, "\"items_done\":0,") && !strstr(out, "\"items_done\":null"),
                  "%s x %s did no items: %s", platforms[p], workloads[w], out);
        ran++;
        product_ran += product(platforms[p]);
      } else {
        cr_assert_eq(code, 1, "%s x %s: exit %d: %s", platforms[p], workloads[w], code, err);
        cr_assert(!product(platforms[p]) || want, "%s x %s: %s", platforms[p], workloads[w], err);
        char named[128];
        snprintf(named, sizeof named, "platform '%s' has no ", platforms[p]);
        cr_assert(strstr(err, named), "%s x %s: %s", platforms[p], workloads[w], err);
        cr_assert(!want || strstr(err, want), "%s x %s: %s", platforms[p], workloads[w], err);
        cr_assert(strstr(err, ".cfg:"), "the message names the file:line: %s", err);
        refused++;
      }
      free(out), free(err);
    }
  cr_log_info("matrix: %zu platforms x %zu workloads: %zu ran, %zu refused", np, nw, ran, refused);
  /* the eight product platforms, every workload on each (the two cards' encoders since #37) */
  cr_assert_eq(n_product, 8);
  cr_assert_eq(product_ran, n_product * nw, "%zu of %zu product runs", product_ran, n_product * nw);
}

/* The neutral work by hand (every domain at its top OPP: the performance governor):
 * llm_decode on the Orin NX is memory-bound on the GPU: 4500 MB / (102.4 GB/s x 0.7) =
 * 62.779 ms per token, plus the CPU's 0.2 Gop / (0.254 TOPS x 0.5) = 1.575 ms: 64.354 ms.
 * vision_int8 on the RK3588 goes to the NPU: 3.64 Gop / (6 TOPS x 0.5) = 1.2133 ms against
 * 5 MB / (33.8 GB/s x 0.7) = 0.2113 ms; the CPU work to the A76 cluster: 0.05 Gop / (0.154 x
 * 0.5) = 0.6494 ms against 1 MB / 23.66 GB/s = 0.0423 ms: 1.8627 ms. */
Test(matrix, roofline_by_hand) {
  const struct {
    const char *platform, *workload;
    double latency_ms;
  } cases[] = {{"jetson_orin_nx", "llm_decode", 62.7790 + 1.5748},
               {"rk3588", "vision_int8", 1.21333 + 0.64935}};
  for (size_t k = 0; k < 2; k++) {
    char args[2048], *out, *err;
    snprintf(args, sizeof args,
             "run %s/examples/video_enc.cfg --set platform=%s --set workload_profile=%s "
             "--set duration_s=20 --set 'platform.governor.kind=\"performance\"' "
             "--set 'platform.governor.thermal.trip_c=500' --summary json --quiet",
             SITS_CONFIGS, cases[k].platform, cases[k].workload);
    cr_assert_eq(tu_cli(args, &out, &err), 0, "%s", err);
    const char *l = strstr(out, "\"latency_ms\":");
    cr_assert_not_null(l, "%s", out);
    double ms = strtod(l + 13, NULL);
    cr_assert_float_eq(ms, cases[k].latency_ms, 1e-3, "%s x %s: %.6f ms", cases[k].platform,
                       cases[k].workload, ms);
    free(out), free(err);
  }
}

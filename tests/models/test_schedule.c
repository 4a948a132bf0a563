/* test_schedule.c - piecewise-constant inputs. */
#include "test_util.h"

#include "sits_schedule.h"

Test(schedule, merges_equal_segments_and_finds) {
  sits_column cols[3] = {
      {SITS_COLUMN_POWER_W, 3}, {SITS_COLUMN_POWER_W, 1}, {SITS_COLUMN_DEMAND, 0}};
  sits_schedule *s = sits_schedule_new(3, cols);
  sits_err err = {0};
  double a[3] = {1, 2, 0.5}, b[3] = {5, 0, 0.7};
  cr_assert_eq(sits_schedule_append(s, 0.0, a, 25.0, &err), SITS_OK);
  cr_assert_eq(sits_schedule_append(s, 1.0, a, 25.0, &err), SITS_OK); /* same: merged */
  cr_assert_eq(sits_schedule_append(s, 2.0, b, 25.0, &err), SITS_OK);
  cr_assert_eq(sits_schedule_append(s, 4.0, b, 30.0, &err), SITS_OK); /* ambient changes */
  cr_assert_eq(sits_schedule_segment_count(s), 3);
  cr_assert_eq(sits_schedule_find(s, 1.999), 0);
  cr_assert_eq(sits_schedule_find(s, 2.0), 1);
  cr_assert_eq(sits_schedule_find(s, 100.0), 2);
  cr_assert_eq(sits_schedule_find(s, -1.0), 0);
  double node_w[4] = {0};
  sits_schedule_add_node_power(s, 0, node_w);
  cr_assert_float_eq(node_w[3], 1.0, 0);
  cr_assert_float_eq(node_w[1], 2.0, 0);
  cr_assert_float_eq(sits_schedule_total_power_w(s, 1), 5.0, 0); /* demand is not power */
  double demand[1] = {0};
  sits_schedule_set_demand(s, 1, demand);
  cr_assert_float_eq(demand[0], 0.7, 0);
  sits_schedule_free(s);
}

Test(schedule, time_must_increase_and_start_at_zero) {
  sits_column col = {SITS_COLUMN_POWER_W, 0};
  sits_schedule *s = sits_schedule_new(1, &col);
  sits_err err = {0};
  double p = 1;
  cr_assert_eq(sits_schedule_append(s, 0.5, &p, 25.0, &err), SITS_EINPUT);
  cr_assert_eq(sits_schedule_append(s, 0.0, &p, 25.0, &err), SITS_OK);
  p = 2;
  cr_assert_eq(sits_schedule_append(s, 0.0, &p, 25.0, &err), SITS_EINPUT);
  p = NAN;
  cr_assert_eq(sits_schedule_append(s, 1.0, &p, 25.0, &err), SITS_EINPUT);
  sits_schedule_free(s);
}

Test(schedule, time_average) {
  sits_column col = {SITS_COLUMN_POWER_W, 0};
  sits_schedule *s = sits_schedule_new(1, &col);
  sits_err err = {0};
  double p = 10;
  sits_schedule_append(s, 0.0, &p, 20.0, &err);
  p = 4;
  sits_schedule_append(s, 3.0, &p, 30.0, &err);
  double avg, amb;
  /* over [0, 5]: (10*3 + 4*2)/5 = 7.6 W; ambient (20*3 + 30*2)/5 = 24 C */
  sits_schedule_average(s, 5.0, &avg, &amb);
  cr_assert_float_eq(avg, 7.6, 1e-12);
  cr_assert_float_eq(amb, 24.0, 1e-12);
  /* over [0, 2]: only the first segment */
  sits_schedule_average(s, 2.0, &avg, &amb);
  cr_assert_float_eq(avg, 10.0, 1e-12);
  sits_schedule_free(s);
}

/* A repeating schedule (sits_schedule_repeat) against the same cycles appended one by one
 * (the way a repeating workload was stored before): the same count, and segment by segment
 * the same starts (c P + the first cycle's, computed alike: equal to the bit), values and
 * ambient; sits_schedule_find the same at every start, just before and after it and between;
 * the same averages. Cycles of three phases whose last differs from its first, whose last
 * equals its first (merged into the next cycle's), and whose end falls inside a cycle. */
static void repeat_against_appended(const double *vals, const double *amb, const double *dur,
                                    size_t m, double end_s) {
  sits_column col = {SITS_COLUMN_POWER_W, 0};
  sits_schedule *r = sits_schedule_new(1, &col), *x = sits_schedule_new(1, &col);
  sits_err err = {0};
  double period = 0, first[8];
  for (size_t i = 0; i < m; i++) {
    first[i] = period;
    cr_assert_eq(sits_schedule_append(r, period, &vals[i], amb[i], &err), SITS_OK, "%s", err.msg);
    period += dur[i];
  }
  cr_assert_eq(sits_schedule_repeat(r, period, end_s, &err), SITS_OK, "%s", err.msg);
  for (size_t c = 0; (double)c * period < end_s; c++)
    for (size_t i = 0; i < m; i++) {
      double t = c ? (double)c * period + first[i] : first[i];
      if (t < end_s)
        cr_assert_eq(sits_schedule_append(x, t, &vals[i], amb[i], &err), SITS_OK, "%s", err.msg);
    }
  size_t n = sits_schedule_segment_count(x);
  cr_assert_eq(sits_schedule_segment_count(r), n, "%zu against %zu appended",
               sits_schedule_segment_count(r), n);
  for (size_t k = 0; k < n; k++) {
    double t = sits_schedule_start_s(x, k);
    cr_assert_eq(sits_schedule_start_s(r, k), t, "segment %zu: %.17g against %.17g", k,
                 sits_schedule_start_s(r, k), t);
    cr_assert_eq(sits_schedule_values(r, k)[0], sits_schedule_values(x, k)[0], "segment %zu", k);
    cr_assert_eq(sits_schedule_ambient_c(r, k), sits_schedule_ambient_c(x, k), "segment %zu", k);
    double next = k + 1 < n ? sits_schedule_start_s(x, k + 1) : end_s + 1;
    const double probes[] = {t, nextafter(t, -INFINITY), nextafter(t, INFINITY), 0.5 * (t + next)};
    for (size_t j = 0; j < 4; j++)
      cr_assert_eq(sits_schedule_find(r, probes[j]), sits_schedule_find(x, probes[j]),
                   "find(%.17g): %zu against %zu", probes[j], sits_schedule_find(r, probes[j]),
                   sits_schedule_find(x, probes[j]));
  }
  cr_assert_eq(sits_schedule_find(r, 1e6 * end_s), n - 1);
  double ar, ax, aar, aax;
  sits_schedule_average(r, end_s, &ar, &aar);
  sits_schedule_average(x, end_s, &ax, &aax);
  cr_assert_float_eq(ar, ax, 1e-12 * fabs(ax));
  cr_assert_float_eq(aar, aax, 1e-12 * fabs(aax));
  sits_schedule_free(r);
  sits_schedule_free(x);
}

Test(schedule, repeats_as_the_cycles_appended) {
  const double v[] = {5, 1, 3}, a[] = {25, 25, 30}, d[] = {0.1, 0.25, 0.05};
  repeat_against_appended(v, a, d, 3, 4.0);   /* ends on a cycle boundary */
  repeat_against_appended(v, a, d, 3, 3.93);  /* inside a cycle's last phase */
  repeat_against_appended(v, a, d, 3, 100.1); /* inside a cycle's first */
  const double vw[] = {5, 1, 5}, aw[] = {25, 25, 25};
  repeat_against_appended(vw, aw, d, 3, 7.77); /* last = first: runs on into the next cycle */
  const double v2[] = {2, 2.5}, a2[] = {20, 20}, d2[] = {0.001, 0.002};
  repeat_against_appended(v2, a2, d2, 2, 1.0); /* a 3-ms cycle, 333 repeats and a part */
}

/* What a repeating schedule refuses, and what leaves it as it is: the memory stays one
 * cycle's whatever the count (1e7 cycles here: the count says so, nothing is allocated). */
Test(schedule, repeat_refusals_and_no_ops) {
  sits_column col = {SITS_COLUMN_POWER_W, 0};
  sits_schedule *s = sits_schedule_new(1, &col);
  sits_err err = {0};
  double p[2] = {1, 2};
  cr_assert_eq(sits_schedule_repeat(s, 1.0, 10.0, &err), SITS_EINPUT, "an empty schedule");
  cr_assert_eq(sits_schedule_append(s, 0.0, &p[0], 25.0, &err), SITS_OK);
  cr_assert_eq(sits_schedule_repeat(s, 1.0, 10.0, &err), SITS_OK); /* one segment: as it is */
  cr_assert_eq(sits_schedule_segment_count(s), 1);
  cr_assert_eq(sits_schedule_append(s, 0.5, &p[1], 25.0, &err), SITS_OK);
  cr_assert_eq(sits_schedule_repeat(s, 0.5, 10.0, &err), SITS_EINPUT, "%s", err.msg);
  cr_assert(strstr(err.msg, "after the last segment's start"), "%s", err.msg);
  cr_assert_eq(sits_schedule_repeat(s, NAN, 10.0, &err), SITS_EINPUT);
  cr_assert_eq(sits_schedule_repeat(s, 1.0, 1e7, &err), SITS_OK, "%s", err.msg);
  cr_assert_eq(sits_schedule_segment_count(s), 20000000);
  cr_assert_float_eq(sits_schedule_start_s(s, 19999999), 9999999.5, 1e-9);
  cr_assert_eq(sits_schedule_find(s, 9999999.25), 19999998);
  cr_assert_eq(sits_schedule_repeat(s, 1.0, 1e7, &err), SITS_EINPUT, "repeats already");
  cr_assert_eq(sits_schedule_append(s, 1e7, &p[0], 25.0, &err), SITS_EINPUT);
  /* an ambient set on a segment holds in every cycle */
  sits_schedule_set_ambient_c(s, 3, 40.0);
  cr_assert_eq(sits_schedule_ambient_c(s, 1), 40.0);
  cr_assert_eq(sits_schedule_ambient_c(s, 19999999), 40.0);
  cr_assert_eq(sits_schedule_ambient_c(s, 2), 25.0);
  sits_schedule_free(s);
}

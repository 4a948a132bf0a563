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

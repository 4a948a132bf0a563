/*
 * test_bands_internal.c - how a calibration's forecast blocks make its band's quantile
 * (sits__forecast_q95_of): the mean of the blocks' 95th percentiles, a block far above their
 * median left out.
 */
#include "test_util.h"

#include "thermal_internal.h"

/* The H200 card B's blocks (two-node recipe, 2026-12-07): 2.32, 2.64 and 17.15 K; the last a
 * block fit that stopped in a far minimum. Its mean made a 7.37-K band that covered 100 % of
 * the held-out part, whose 95th percentile of error is 2.05 K; without it the band is 2.48 K
 * (97 % covered). Blocks that agree are averaged as they were: the XU3 1.4 GHz trace's
 * 0.64, 0.66, 0.60 K give 0.6333 K; a block at exactly 3 times the median is kept. */
Test(bands, a_failed_forecast_block_is_left_out) {
  const double card_b[] = {2.32, 2.64, 17.15}, agree[] = {0.64, 0.66, 0.60};
  cr_assert_float_eq(sits__forecast_q95_of(card_b, 3), (2.32 + 2.64) / 2, 1e-12);
  cr_assert_float_eq(sits__forecast_q95_of(agree, 3), (0.64 + 0.66 + 0.60) / 3, 1e-12);
  const double edge[] = {1.0, 3.0, 1.0}; /* the median 1, the block at 3 x: kept */
  cr_assert_float_eq(sits__forecast_q95_of(edge, 3), 5.0 / 3.0, 1e-12);
  const double two[] = {0.5, 4.0}; /* two blocks: the median is their mean, 2.25; both kept */
  cr_assert_float_eq(sits__forecast_q95_of(two, 2), 2.25, 1e-12);
  cr_assert_float_eq(sits__forecast_q95_of(two, 1), 0.5, 0);
  cr_assert(isnan(sits__forecast_q95_of(two, 0)));
}

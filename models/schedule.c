/* schedule.c - piecewise-constant inputs (see sits_schedule.h). */
#include "sits_schedule.h"
#include "status_internal.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct sits_schedule {
  size_t n_cols;
  sits_column *cols;
  size_t n_seg, cap_seg;
  double *start_s;
  double *ambient_c;
  double *values; /* n_seg x n_cols, row-major */
  /* A repeating schedule (sits_schedule_repeat): the n_seg stored segments are one cycle of
   * period_s, repeated; segment k of the n_total is stored segment k's place in its cycle.
   * With wrap the last stored segment equals the first and runs on into the next cycle (the
   * next cycle's first segment merged into it, as an appended one would be). */
  double period_s; /* 0: not repeating */
  size_t n_total;
  bool wrap;
};

/* The stored segment of segment @p k and its cycle. */
static size_t stored_of(const sits_schedule *s, size_t k, size_t *cycle) {
  *cycle = 0;
  if (!(s->period_s > 0) || k < s->n_seg)
    return k;
  size_t w = s->wrap ? 1 : 0, m = s->n_seg - w, k2 = k - s->n_seg;
  *cycle = 1 + k2 / m;
  return w + k2 % m;
}

/* Segment k from its cycle and stored segment (not the first of a wrapped cycle > 0). */
static size_t index_of(const sits_schedule *s, size_t cycle, size_t b) {
  if (cycle == 0)
    return b;
  size_t w = s->wrap ? 1 : 0;
  return s->n_seg + (cycle - 1) * (s->n_seg - w) + (b - w);
}

sits_schedule *sits_schedule_new(size_t n_cols, const sits_column *cols) {
  sits_schedule *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  s->n_cols = n_cols;
  s->cols = malloc((n_cols ? n_cols : 1) * sizeof *s->cols);
  if (!s->cols) {
    free(s);
    return NULL;
  }
  if (n_cols)
    memcpy(s->cols, cols, n_cols * sizeof *cols);
  return s;
}

void sits_schedule_free(sits_schedule *s) {
  if (!s)
    return;
  free(s->cols);
  free(s->start_s);
  free(s->ambient_c);
  free(s->values);
  free(s);
}

static int reserve(sits_schedule *s, size_t need) {
  if (need <= s->cap_seg)
    return 0;
  size_t cap = s->cap_seg ? s->cap_seg * 2 : 64;
  while (cap < need)
    cap *= 2;
  double *t = realloc(s->start_s, cap * sizeof *t);
  if (!t)
    return -1;
  s->start_s = t;
  double *a = realloc(s->ambient_c, cap * sizeof *a);
  if (!a)
    return -1;
  s->ambient_c = a;
  double *p = realloc(s->values, cap * (s->n_cols ? s->n_cols : 1) * sizeof *p);
  if (!p)
    return -1;
  s->values = p;
  s->cap_seg = cap;
  return 0;
}

static int same_as_last(const sits_schedule *s, const double *values, double ambient_c) {
  if (s->n_seg == 0 || s->ambient_c[s->n_seg - 1] != ambient_c)
    return 0;
  const double *last = s->values + (s->n_seg - 1) * s->n_cols;
  return s->n_cols == 0 || memcmp(last, values, s->n_cols * sizeof(double)) == 0;
}

int sits_schedule_append(sits_schedule *s, double start_s, const double *values, double ambient_c,
                         sits_err *err) {
  if (!isfinite(start_s) || !isfinite(ambient_c))
    return sits__fail(err, SITS_EINPUT, "time or ambient is not a finite number");
  for (size_t j = 0; j < s->n_cols; j++)
    if (!isfinite(values[j]))
      return sits__fail(err, SITS_EINPUT, "a value is not a finite number");
  if (s->period_s > 0)
    return sits__fail(err, SITS_EINPUT, "a repeating schedule takes no more segments");
  if (s->n_seg == 0 && start_s != 0.0)
    return sits__fail(err, SITS_EINPUT, "the first segment must start at 0 s (got %g)", start_s);
  if (s->n_seg > 0 && !(start_s > s->start_s[s->n_seg - 1]))
    return sits__fail(err, SITS_EINPUT, "time %g s is not after the previous %g s", start_s,
                      s->start_s[s->n_seg - 1]);
  if (same_as_last(s, values, ambient_c))
    return SITS_OK;
  if (reserve(s, s->n_seg + 1))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  s->start_s[s->n_seg] = start_s;
  s->ambient_c[s->n_seg] = ambient_c;
  if (s->n_cols)
    memcpy(s->values + s->n_seg * s->n_cols, values, s->n_cols * sizeof(double));
  s->n_seg++;
  return SITS_OK;
}

int sits_schedule_repeat(sits_schedule *s, double period_s, double end_s, sits_err *err) {
  if (s->period_s > 0)
    return sits__fail(err, SITS_EINPUT, "the schedule repeats already");
  if (s->n_seg == 0)
    return sits__fail(err, SITS_EINPUT, "an empty schedule cannot repeat");
  if (!(isfinite(period_s) && period_s > s->start_s[s->n_seg - 1]))
    return sits__fail(err, SITS_EINPUT,
                      "the period %g s must be finite and after the last segment's start (%g s)",
                      period_s, s->start_s[s->n_seg - 1]);
  if (!(end_s > period_s) || s->n_seg == 1)
    return SITS_OK; /* no second cycle starts, or every cycle is the one segment */
  double cycles = ceil(end_s / period_s);
  if (!isfinite(end_s) || cycles * (double)s->n_seg > 0.5 * (double)SIZE_MAX)
    return sits__fail(err, SITS_EINPUT, "the schedule would repeat %g times: too many", cycles);
  s->wrap = s->ambient_c[s->n_seg - 1] == s->ambient_c[0] &&
            (s->n_cols == 0 || memcmp(s->values + (s->n_seg - 1) * s->n_cols, s->values,
                                      s->n_cols * sizeof(double)) == 0);
  s->period_s = period_s;
  s->n_total = SIZE_MAX; /* the segments that start before end_s: find() counts them */
  size_t k = sits_schedule_find(s, end_s);
  s->n_total = sits_schedule_start_s(s, k) < end_s ? k + 1 : k;
  return SITS_OK;
}

size_t sits_schedule_segment_count(const sits_schedule *s) {
  return s->period_s > 0 ? s->n_total : s->n_seg;
}
size_t sits_schedule_column_count(const sits_schedule *s) {
  return s->n_cols;
}
sits_column sits_schedule_column(const sits_schedule *s, size_t j) {
  return s->cols[j];
}
double sits_schedule_start_s(const sits_schedule *s, size_t k) {
  size_t c, b = stored_of(s, k, &c);
  return c ? (double)c * s->period_s + s->start_s[b] : s->start_s[b];
}
double sits_schedule_ambient_c(const sits_schedule *s, size_t k) {
  size_t c;
  return s->ambient_c[stored_of(s, k, &c)];
}
void sits_schedule_set_ambient_c(sits_schedule *s, size_t k, double ambient_c) {
  size_t c;
  if (k < sits_schedule_segment_count(s))
    s->ambient_c[stored_of(s, k, &c)] = ambient_c;
}
const double *sits_schedule_values(const sits_schedule *s, size_t k) {
  size_t c;
  return s->values + stored_of(s, k, &c) * s->n_cols;
}

void sits_schedule_add_node_power(const sits_schedule *s, size_t k, double *node_power_w) {
  const double *p = sits_schedule_values(s, k);
  for (size_t j = 0; j < s->n_cols; j++)
    if (s->cols[j].kind == SITS_COLUMN_POWER_W)
      node_power_w[s->cols[j].target] += p[j];
}

void sits_schedule_set_demand(const sits_schedule *s, size_t k, double *demand) {
  const double *p = sits_schedule_values(s, k);
  for (size_t j = 0; j < s->n_cols; j++)
    if (s->cols[j].kind == SITS_COLUMN_DEMAND)
      demand[s->cols[j].target] = p[j];
}

double sits_schedule_total_power_w(const sits_schedule *s, size_t k) {
  const double *p = sits_schedule_values(s, k);
  double sum = 0.0;
  for (size_t j = 0; j < s->n_cols; j++)
    if (s->cols[j].kind == SITS_COLUMN_POWER_W)
      sum += p[j];
  return sum;
}

/* The last stored segment whose start in cycle @p cycle (at offset base) is at or before t_s
 * (0 when none is). */
static size_t find_in_cycle(const sits_schedule *s, double base, double t_s) {
  size_t lo = 0, hi = s->n_seg; /* answer in [lo, hi) */
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (base + s->start_s[mid] <= t_s)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

size_t sits_schedule_find(const sits_schedule *s, double t_s) {
  if (!(s->period_s > 0) || !(t_s >= s->period_s))
    return find_in_cycle(s, 0.0, t_s);
  /* the cycle whose start (c P, as sits_schedule_start_s computes it) is the last at or
   * before t_s */
  double cf = floor(t_s / s->period_s);
  size_t c = cf >= 0.5 * (double)SIZE_MAX ? SIZE_MAX / 2 : (size_t)cf;
  while (c > 1 && (double)c * s->period_s > t_s)
    c--;
  while ((double)(c + 1) * s->period_s <= t_s && c < SIZE_MAX / 2)
    c++;
  size_t b = find_in_cycle(s, (double)c * s->period_s, t_s);
  size_t k = s->wrap && b == 0 ? index_of(s, c - 1, s->n_seg - 1) : index_of(s, c, b);
  size_t n = sits_schedule_segment_count(s);
  return k < n ? k : n - 1;
}

void sits_schedule_average(const sits_schedule *s, double end_s, double *avg,
                           double *avg_ambient_c) {
  for (size_t j = 0; j < s->n_cols; j++)
    avg[j] = 0.0;
  double amb = 0.0;
  size_t n = sits_schedule_segment_count(s);
  for (size_t k = 0; k < n && sits_schedule_start_s(s, k) < end_s; k++) {
    double start = sits_schedule_start_s(s, k);
    double stop = k + 1 < n ? fmin(sits_schedule_start_s(s, k + 1), end_s) : end_s;
    double w = (stop - start) / end_s;
    const double *p = sits_schedule_values(s, k);
    for (size_t j = 0; j < s->n_cols; j++)
      avg[j] += w * p[j];
    amb += w * sits_schedule_ambient_c(s, k);
  }
  *avg_ambient_c = amb;
}

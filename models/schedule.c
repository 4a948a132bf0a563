/* schedule.c - piecewise-constant inputs (see sits_schedule.h). */
#include "sits_schedule.h"
#include "status_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct sits_schedule {
  size_t n_cols;
  sits_column *cols;
  size_t n_seg, cap_seg;
  double *start_s;
  double *ambient_c;
  double *values; /* n_seg x n_cols, row-major */
};

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

size_t sits_schedule_segment_count(const sits_schedule *s) {
  return s->n_seg;
}
size_t sits_schedule_column_count(const sits_schedule *s) {
  return s->n_cols;
}
sits_column sits_schedule_column(const sits_schedule *s, size_t j) {
  return s->cols[j];
}
double sits_schedule_start_s(const sits_schedule *s, size_t k) {
  return s->start_s[k];
}
double sits_schedule_ambient_c(const sits_schedule *s, size_t k) {
  return s->ambient_c[k];
}
void sits_schedule_set_ambient_c(sits_schedule *s, size_t k, double ambient_c) {
  if (k < s->n_seg)
    s->ambient_c[k] = ambient_c;
}
const double *sits_schedule_values(const sits_schedule *s, size_t k) {
  return s->values + k * s->n_cols;
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

size_t sits_schedule_find(const sits_schedule *s, double t_s) {
  size_t lo = 0, hi = s->n_seg; /* answer in [lo, hi) */
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->start_s[mid] <= t_s)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

void sits_schedule_average(const sits_schedule *s, double end_s, double *avg,
                           double *avg_ambient_c) {
  for (size_t j = 0; j < s->n_cols; j++)
    avg[j] = 0.0;
  double amb = 0.0;
  for (size_t k = 0; k < s->n_seg && s->start_s[k] < end_s; k++) {
    double stop = k + 1 < s->n_seg ? fmin(s->start_s[k + 1], end_s) : end_s;
    double w = (stop - s->start_s[k]) / end_s;
    const double *p = sits_schedule_values(s, k);
    for (size_t j = 0; j < s->n_cols; j++)
      avg[j] += w * p[j];
    amb += w * s->ambient_c[k];
  }
  *avg_ambient_c = amb;
}

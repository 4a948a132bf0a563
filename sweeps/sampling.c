/*
 * sampling.c - the sampled axes of a sweep (sampling_impl.h): distributions per key and the
 * design that draws N points in [0,1)^d, mapped through each distribution's inverse CDF.
 *
 * Designs: "sobol" and "halton" are GSL's quasi-random sequences (gsl_qrng; the seed skips
 * that many points), "random" is GSL's MT19937 (gsl_rng) seeded with --seed, and "lhs" a
 * Latin hypercube: in each dimension the N strata [k/N, (k+1)/N) are shuffled (gsl_ran_shuffle)
 * and a uniform jitter is drawn inside each, so every stratum of every dimension holds
 * exactly one point. The inverse CDFs are GSL's (gsl_cdf_ugaussian_Pinv) or closed forms
 * (uniform, triangular, a discrete choice). The points are drawn once, so rows are the same
 * whatever the jobs or shards that run them.
 */
#define _POSIX_C_SOURCE 200809L
#include "sampling_impl.h"
#include "status_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_qrng.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#define MAX_CHOICES 256

typedef enum { D_UNIFORM, D_NORMAL, D_LOGNORMAL, D_TRIANGULAR, D_CHOICE } dist_kind;

typedef struct dist {
  char key[256];
  dist_kind kind;
  double p[3];
  char *choice[MAX_CHOICES];
  size_t n_choice;
} dist;

struct sits__sampler {
  dist d[SITS__MAX_DISTS];
  size_t n_dist, n;
  double *u; /* n x n_dist points in [0,1) */
};

sits__sampler *sits__sampler_new(void) {
  return calloc(1, sizeof(sits__sampler));
}

void sits__sampler_free(sits__sampler *s) {
  if (!s)
    return;
  for (size_t i = 0; i < s->n_dist; i++)
    for (size_t k = 0; k < s->d[i].n_choice; k++)
      free(s->d[i].choice[k]);
  free(s->u);
  free(s);
}

/* "name(a,b,...)" into its name and up to @p max numbers (or words for choice); the count. */
static int args_of(const char *text, char *name, size_t size, char *inner, size_t isize) {
  const char *open = strchr(text, '('), *close = strrchr(text, ')');
  if (!open || !close || close < open || close[1] != '\0' || open == text)
    return -1;
  snprintf(name, size, "%.*s", (int)(open - text), text);
  snprintf(inner, isize, "%.*s", (int)(close - open - 1), open + 1);
  return 0;
}

static int numbers(char *inner, double *p, int want) {
  int n = 0;
  for (char *save = NULL, *t = strtok_r(inner, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    char *end;
    double v = strtod(t, &end);
    while (isspace((unsigned char)*end))
      end++;
    if (end == t || *end || !isfinite(v) || n == want)
      return -1;
    p[n++] = v;
  }
  return n == want ? 0 : -1;
}

int sits__sampler_dist(sits__sampler *s, const char *spec, sits_err *err) {
  const char *eq = strchr(spec, '=');
  char name[32], inner[4096];
  dist *d = s->n_dist < SITS__MAX_DISTS ? &s->d[s->n_dist] : NULL;
  if (!d)
    return sits__fail(err, SITS_EINPUT, "--dist '%s': at most %d distributions", spec,
                      SITS__MAX_DISTS);
  if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof d->key ||
      args_of(eq + 1, name, sizeof name, inner, sizeof inner))
    return sits__fail(err, SITS_EINPUT,
                      "--dist '%s': expected KEY=uniform(a,b), normal(mu,sigma), "
                      "lognormal(mu,sigma), triangular(a,c,b) or choice(v1,v2,...)",
                      spec);
  memset(d, 0, sizeof *d);
  snprintf(d->key, sizeof d->key, "%.*s", (int)(eq - spec), spec);
  for (size_t i = 0; i < s->n_dist; i++)
    if (strcmp(s->d[i].key, d->key) == 0)
      return sits__fail(err, SITS_EINPUT, "--dist '%s': the key has a distribution already", spec);
  int bad = 0;
  if (strcmp(name, "uniform") == 0)
    d->kind = D_UNIFORM, bad = numbers(inner, d->p, 2) || !(d->p[1] > d->p[0]);
  else if (strcmp(name, "normal") == 0)
    d->kind = D_NORMAL, bad = numbers(inner, d->p, 2) || !(d->p[1] > 0);
  else if (strcmp(name, "lognormal") == 0)
    d->kind = D_LOGNORMAL, bad = numbers(inner, d->p, 2) || !(d->p[1] > 0);
  else if (strcmp(name, "triangular") == 0)
    d->kind = D_TRIANGULAR,
    bad = numbers(inner, d->p, 3) || !(d->p[0] <= d->p[1] && d->p[1] <= d->p[2] && d->p[0] < d->p[2]);
  else if (strcmp(name, "choice") == 0) {
    d->kind = D_CHOICE;
    for (char *save = NULL, *t = strtok_r(inner, ",", &save); t && !bad;
         t = strtok_r(NULL, ",", &save)) {
      while (isspace((unsigned char)*t))
        t++;
      bad = !*t || d->n_choice == MAX_CHOICES || !(d->choice[d->n_choice++] = strdup(t));
    }
    bad = bad || d->n_choice == 0;
  } else
    bad = 1;
  if (bad) {
    for (size_t k = 0; k < d->n_choice; k++)
      free(d->choice[k]);
    d->n_choice = 0;
    return sits__fail(err, SITS_EINPUT,
                      "--dist '%s': expected uniform(a,b) with a < b, normal(mu,sigma) or "
                      "lognormal(mu,sigma) with sigma > 0, triangular(a,c,b) with a <= c <= b, "
                      "or choice(v1,v2,...)",
                      spec);
  }
  s->n_dist++;
  return SITS_OK;
}

/* The Latin hypercube: per dimension a shuffled stratum per point, jittered inside it. */
static void latin(double *u, size_t n, size_t dims, gsl_rng *r) {
  size_t *perm = malloc(n * sizeof *perm);
  for (size_t j = 0; perm && j < dims; j++) {
    for (size_t k = 0; k < n; k++)
      perm[k] = k;
    gsl_ran_shuffle(r, perm, n, sizeof *perm);
    for (size_t k = 0; k < n; k++)
      u[k * dims + j] = ((double)perm[k] + gsl_rng_uniform(r)) / (double)n;
  }
  free(perm);
}

int sits__sampler_draw(sits__sampler *s, size_t n, const char *method, unsigned long seed,
                       sits_err *err) {
  size_t dims = s->n_dist;
  if (dims == 0)
    return sits__fail(err, SITS_EINPUT, "--sample needs at least one --dist");
  if (n < 1 || n > 10000000)
    return sits__fail(err, SITS_EINPUT, "--sample %zu: expected 1 to 10,000,000 samples", n);
  free(s->u);
  if (!(s->u = malloc(n * dims * sizeof *s->u)))
    return sits__fail(err, SITS_ENOMEM, "out of memory for %zu samples", n);
  s->n = n;
  if (strcmp(method, "sobol") == 0 || strcmp(method, "halton") == 0) {
    const gsl_qrng_type *t = strcmp(method, "sobol") == 0 ? gsl_qrng_sobol : gsl_qrng_halton;
    unsigned max_dim = strcmp(method, "sobol") == 0 ? 40 : 1229;
    if (dims > max_dim)
      return sits__fail(err, SITS_EINPUT, "--method %s takes at most %u distributions", method,
                        max_dim);
    gsl_qrng *q = gsl_qrng_alloc(t, (unsigned)dims);
    if (!q)
      return sits__fail(err, SITS_ENOMEM, "out of memory");
    for (unsigned long k = 0; k < seed; k++) /* the seed skips points of the sequence */
      gsl_qrng_get(q, s->u);
    for (size_t k = 0; k < n; k++)
      gsl_qrng_get(q, s->u + k * dims);
    gsl_qrng_free(q);
    return SITS_OK;
  }
  bool lhs = strcmp(method, "lhs") == 0;
  if (!lhs && strcmp(method, "random") != 0)
    return sits__fail(err, SITS_EINPUT, "--method '%s': expected lhs, sobol, halton or random",
                      method);
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  if (!r)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  gsl_rng_set(r, seed);
  if (lhs)
    latin(s->u, n, dims, r);
  else
    for (size_t k = 0; k < n * dims; k++)
      s->u[k] = gsl_rng_uniform(r);
  gsl_rng_free(r);
  return SITS_OK;
}

size_t sits__sampler_count(const sits__sampler *s) {
  return s ? s->n : 0;
}

size_t sits__sampler_dims(const sits__sampler *s) {
  return s ? s->n_dist : 0;
}

const char *sits__sampler_key(const sits__sampler *s, size_t j) {
  return s->d[j].key;
}

/* A point's coordinate kept off 0 and 1, where inverse CDFs are infinite. */
static double inside(double u) {
  return fmin(fmax(u, 1e-12), 1.0 - 1e-12);
}

void sits__sampler_value(const sits__sampler *s, size_t k, size_t j, char *out, size_t size) {
  const dist *d = &s->d[j];
  double u = inside(s->u[k * s->n_dist + j]), v = 0;
  switch (d->kind) {
  case D_UNIFORM: v = d->p[0] + (d->p[1] - d->p[0]) * u; break;
  case D_NORMAL: v = d->p[0] + d->p[1] * gsl_cdf_ugaussian_Pinv(u); break;
  case D_LOGNORMAL: v = exp(d->p[0] + d->p[1] * gsl_cdf_ugaussian_Pinv(u)); break;
  case D_TRIANGULAR: {
    double a = d->p[0], c = d->p[1], b = d->p[2], fc = (c - a) / (b - a);
    v = u < fc ? a + sqrt(u * (b - a) * (c - a)) : b - sqrt((1 - u) * (b - a) * (b - c));
    break;
  }
  case D_CHOICE: {
    size_t i = (size_t)(u * (double)d->n_choice);
    snprintf(out, size, "%s", d->choice[i < d->n_choice ? i : d->n_choice - 1]);
    return;
  }
  }
  snprintf(out, size, "%.12g", v);
}

/* sampling_impl.h - the sampled axes of a sweep: per-key distributions and the design that
 * draws the points (sampling.c). Internal to the libraries. */
#ifndef SITS_SAMPLING_IMPL_H
#define SITS_SAMPLING_IMPL_H

#include <stddef.h>

#include "sits_status.h"

#define SITS__MAX_DISTS 64

typedef struct sits__sampler sits__sampler;

sits__sampler *sits__sampler_new(void);
void sits__sampler_free(sits__sampler *s);
/** Adds "KEY=uniform(a,b)|normal(mu,sigma)|lognormal(mu,sigma)|triangular(a,c,b)|
 *  choice(v1,...)"; SITS_EINPUT with the reason. */
int sits__sampler_dist(sits__sampler *s, const char *spec, sits_err *err);
/** Draws @p n points with design @p method (lhs, sobol, halton, random) and @p seed. */
int sits__sampler_draw(sits__sampler *s, size_t n, const char *method, unsigned long seed,
                       sits_err *err);
size_t sits__sampler_count(const sits__sampler *s);
size_t sits__sampler_dims(const sits__sampler *s);
const char *sits__sampler_key(const sits__sampler *s, size_t j);
/** Sample @p k's value of distribution @p j as --set text. */
void sits__sampler_value(const sits__sampler *s, size_t k, size_t j, char *out, size_t size);

#endif

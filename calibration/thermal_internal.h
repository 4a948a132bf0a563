/* thermal_internal.h - what thermal_auto.c takes from thermal_orders.c (not installed). */
#ifndef SITS_THERMAL_INTERNAL_H
#define SITS_THERMAL_INTERNAL_H
#include "sits_thermal_cal.h"

/* The order-@p k chain (S - N2 - ... - Nk - ambient from each sensed node, as
 * sits_calibrate_thermal_orders builds it) of the scenario @p o names with @p sets applied, as
 * a config text (malloc'd) into *text, and its node names into @p what. *text stays NULL
 * without an error when the scenario's network has k or more nodes per sensed node already
 * (the chain would not add to it). */
int sits__thermal_chain_text(const sits_thermal_cal_opts *o, const char **sets, size_t n_sets,
                             int k, char **text, char *what, size_t what_size, sits_err *err);

#endif

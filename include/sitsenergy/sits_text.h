/* sits_text.h - text summaries of runs and replays, for people (the JSON forms are the
 * contract's). */
#ifndef SITS_TEXT_H
#define SITS_TEXT_H

#include <stdio.h>

#include "sits_replay.h"
#include "sits_sim.h"

SITS_BEGIN_DECLS

/** A run's summary as aligned text lines: end reason, junction temperature, power, energy
 *  balance, per-node peaks (the 12 hottest past 24 nodes), items, battery, throttling,
 *  constraints with their limits, verdict, solver statistics. SITS_EIO on a write error. */
SITS_API int sits_write_summary_text(const sits_scenario *sc, const sits_result *r, FILE *f);

/** A replay's summary: the trace (format, samples, skipped lines, span), one line per sensor
 *  (rmse, mae, max, bias in degC, r2, n), the phases, and the assumptions of @p sc (the
 *  scenario replayed; NULL: none listed). SITS_EIO on a write error. */
SITS_API int sits_replay_write_text(const sits_replay *r, const sits_scenario *sc, FILE *f);

SITS_END_DECLS

#endif

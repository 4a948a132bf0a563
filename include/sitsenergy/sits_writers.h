/*
 * sits_writers.h - a run's results as files and texts: the contract's HDF5 and CSV (at the end
 * or streamed as the run goes), the Summary and Steady JSON, tables as HDF5, and texts for
 * language bindings. Each file is written under a temporary name and renamed when complete.
 */
#ifndef SITS_WRITERS_H
#define SITS_WRITERS_H

#include <stddef.h>
#include <stdio.h>

#include "sits_sim.h"
#include "sits_export.h"

SITS_BEGIN_DECLS

/** HDF5 layout of the contract: /time_s, /temp_c/<node>, /power_w/total, ... */
SITS_API int sits_write_h5(const sits_scenario *sc, const sits_result *r, const char *path,
                           sits_err *err);
/** A table (rows x cols text cells, row-major) as one HDF5 dataset per column at the root:
 *  doubles where every cell is a number or empty (NaN), fixed-length strings otherwise.
 *  Written under a temporary name, then renamed (the sweep's -o x.h5). */
SITS_API int sits_write_table_h5(const char *path, size_t rows, size_t cols,
                                 const char *const *names, const char *const *cells, sits_err *err);
/** A CSV file with a header (RFC 4180 quoting) into the HDF5 file @p h5, one dataset per column
 *  as sits_write_table_h5 writes them. */
SITS_API int sits_write_csv_as_h5(const char *csv, const char *h5, sits_err *err);
/** CSV: time_s, temp_c.<node>..., node_power_w.<node>..., power_w.total. */
/** A result file written as the run goes: give sits_stream_write (through a sits_sample_sink)
 *  every block of samples, then sits_stream_close with the finished result (it adds HDF5's
 *  events and attributes and puts the file in place) or NULL (the file is dropped). The file
 *  is the one sits_write_h5 / sits_write_csv would write. */
typedef struct sits_stream sits_stream;
/** SITS_STREAM_PTRACE: a floorplan platform's block powers as a HotSpot power trace (block
 *  names, then one row per sample; block model: the power into each block node; grid model:
 *  the domains' and static power's shares of each block). */
typedef enum { SITS_STREAM_CSV, SITS_STREAM_H5, SITS_STREAM_PTRACE } sits_stream_format;
SITS_API sits_stream *sits_stream_open(const sits_scenario *sc, const char *path,
                                       sits_stream_format format, sits_err *err);
SITS_API int sits_stream_write(sits_stream *s, const sits_result *r, size_t first, size_t count,
                               sits_err *err);
/** sits_stream_write as a sits_sample_sink (@p stream is the sits_stream). */
SITS_API int sits_stream_sink(const sits_result *r, size_t first, size_t count, void *stream,
                              sits_err *err);
SITS_API int sits_stream_close(sits_stream *s, const sits_result *r, sits_err *err);

SITS_API int sits_write_csv(const sits_scenario *sc, const sits_result *r, const char *path,
                            sits_err *err);
/** Summary JSON object (one line) onto @p f (the text form: sits_text.h). */
SITS_API int sits_write_summary_json(const sits_scenario *sc, const sits_result *r, FILE *f);
/** Steady JSON object onto @p f. */
SITS_API int sits_write_steady_json(const sits_scenario *sc, const sits_steady_state *st, FILE *f);

/* For language bindings (the Python package): texts instead of streams. */

/** The summary JSON of @p r (as --summary json), malloc'ed (free with sits_free); NULL when
 *  out of memory. */
SITS_API char *sits_summary_json_text(const sits_scenario *sc, const sits_result *r);
/** The steady state of @p sc as the `steady` command's JSON, malloc'ed; NULL with @p err. */
SITS_API char *sits_steady_json_text(const sits_scenario *sc, sits_err *err);
/** Frees what the *_text functions return. */
SITS_API void sits_free(void *p);

SITS_END_DECLS

#endif

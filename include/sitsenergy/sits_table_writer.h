/*
 * sits_table_writer.h - DVFS tables in the formats runtimes read, one ops-table entry per
 * format:
 *   csv       one row per OPP, the columns of sits_dvfs_row plus knee / max_sustainable;
 *   json      the DVFS table JSON of the interface contract;
 *   header    a C header with a static const table.
 * They write the first table. The board formats dts (a device-tree overlay) and nvpmodel (an
 * L4T power mode) need the scenario's board names and model: sits_board_write (sits_dvfs.h),
 * or sits_board_write_file here.
 */
#ifndef SITS_TABLE_WRITER_H
#define SITS_TABLE_WRITER_H

#include <stdio.h>

#include "sits_board.h"
#include "sits_dvfs.h"
#include "sits_export.h"

SITS_BEGIN_DECLS

/** True when @p format names a writer. */
SITS_API int sits_dvfs_format_known(const char *format);

/** Writes @p n tables (n >= 1) in @p format onto @p f. SITS_EINPUT for an unknown format. */
SITS_API int sits_dvfs_write(const char *format, const sits_dvfs_table *tables, size_t n, FILE *f,
                             sits_err *err);

/** The same into the file @p path, written under a temporary name and renamed when complete. */
SITS_API int sits_dvfs_write_file(const char *format, const sits_dvfs_table *tables, size_t n,
                                  const char *path, sits_err *err);

/** sits_board_write into the file @p path (temporary name, renamed when complete). */
SITS_API int sits_board_write_file(const sits_scenario *sc, const char *format,
                                   const sits_board_opts *o, const char *path, sits_err *err);

/** The DVFS table of @p domain (NULL: the first) as the JSON of --format json, malloc'ed
 *  (free with sits_free); NULL with @p err. */
SITS_API char *sits_dvfs_table_json_text(const sits_scenario *sc, const char *domain,
                                         sits_err *err);

SITS_END_DECLS

#endif

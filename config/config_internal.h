/*
 * config_internal.h - the merged configuration (never installed; hotspot/ and sim/ read it).
 *
 * A scenario file, the platform and workload files it names, and the --set overrides
 * are merged into one libconfig tree. Settings copied from another file keep that
 * file's name and line (libconfig's `file`/`line` fields), so every later error can
 * say `file:line` whatever file the setting came from.
 */
#ifndef SITS_CONFIG_INTERNAL_H
#define SITS_CONFIG_INTERNAL_H

#include <libconfig.h>
#include <stdbool.h>

#include "sits_config.h"
#include "status_internal.h"

typedef struct sits__config {
  config_t cfg;
  char *scenario_path;
  char **strings; /* file names and --set texts that settings point to */
  size_t n_strings, cap_strings;
  const char **inputs; /* every file the configuration reads (interned), after loading */
  size_t n_inputs;
  const char *default_battery; /* the pack battery_default gave a platform without one */
  const char **sets;           /* the --set overrides it was loaded with (interned) */
  size_t n_sets;
  bool from_text; /* read from a string: file names resolve against the working folder */
} sits__config;

/** Loads @p path, merges platform/workload files and applies @p sets (KEY=VALUE). */
int sits__config_load(sits__config *c, const char *path, const char *const *sets, size_t n_sets,
                      sits_err *err);
/** sits__config_load from the text @p text; @p name stands for the file in messages. */
int sits__config_load_text(sits__config *c, const char *name, const char *text,
                           const char *const *sets, size_t n_sets, sits_err *err);
/** Releases what sits__config_load() built (safe on a zeroed struct). */
void sits__config_release(sits__config *c);
/** The merged configuration as libconfig text (malloc'ed), or NULL when out of memory. */
char *sits__config_text(const sits__config *c);

/**
 * The first integer literal of @p line that libconfig 1.5 would wrap to 32 bits (no `L`
 * suffix, outside 32 bits), its length in @p len; NULL when none. @p in_comment carries a
 * block comment from one line to the next.
 */
const char *sits__wide_integer(const char *line, bool *in_comment, size_t *len);

/** Keeps a copy of @p s for the lifetime of @p c; NULL when out of memory. */
const char *sits__config_intern(sits__config *c, const char *s);

/** sits__fail with the message prefixed by where @p s comes from ("file:line: ..."). */
int sits__fail_at(sits_err *err, int code, const config_setting_t *s, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/** Prefixes the message already in @p err with where @p s comes from; returns @p rc. */
int sits__at(const config_setting_t *s, int rc, sits_err *err);

/** Formats where @p s comes from: "file:line", or the file (or --set text) alone. */
const char *sits__where(const config_setting_t *s, char *buf, size_t size);

/** Folder of the file @p s comes from ("." when none), into @p buf. */
/** Whether @p path is a stream's (/dev/stdin, /dev/fd/N, /proc/self/fd/N: the standard input
 *  or a pipe the CLI holds): its relative names resolve against the working folder. */
bool sits__is_stream_path(const char *path);
const char *sits__setting_dir(const config_setting_t *s, char *buf, size_t size);

/**
 * Finds a config by name: @p name is a path when it contains '/' or ends in ".cfg"
 * (relative to @p base_dir), else `<root>/<kind>/<name>.cfg` is searched in
 * $SITS_CONFIG_PATH (colon-separated roots), @p base_dir, @p base_dir/.., the source
 * tree's configs/ and the installed configs/. Writes the path found into @p out.
 */
int sits__find_config(const char *kind, const char *name, const char *base_dir, char *out,
                      size_t size);

/** Sets the number at @p path (with indices) in the merged tree, adding a missing member to its
 *  group and making an integer setting a float (it moves to the end of its group, as
 *  libconfig has no replace); 0, or -1 when the path's group does not exist. */
int sits__config_set_number(sits__config *c, const char *path, double value);

/** Applies one "KEY=VALUE" override to the merged tree. */
int sits__config_apply_set(sits__config *c, const char *set, sits_err *err);

/** Deep-copies @p src as member @p name of group @p parent, keeping file and line. */
config_setting_t *sits__config_copy(sits__config *c, config_setting_t *parent, const char *name,
                                    const config_setting_t *src);

/** The key table (key_table.c); *n gets its length. */
const sits_key *sits__key_table(size_t *n);

/** Whether @p v is in the range of number key @p k. */
bool sits__key_in_range(const sits_key *k, double v);
/** "'member' must be in [lo, hi] (got v)" at the setting @p s; SITS_EINPUT. */
int sits__key_range_fail(const sits_key *k, const char *member, const config_setting_t *s, double v,
                         sits_err *err);

/* Key readers (get.c): the member named by the last component of @p path (a key of the table,
 * generic or with indices) of group @p g. Absent: the table's default (NAN: none; NULL for
 * strings, false for bools), an error when the table marks the key required; present: the
 * right type, finite, and within the table's range unless SITS_KEY_MODEL_CHECKED. Errors
 * name the file:line of the setting (or of the group for a missing key). */
int sits__key_num(const config_setting_t *g, const char *path, double *out, sits_err *err);
/** sits__key_num for a key required only in some forms (trip_c for step_wise, ...). */
int sits__key_num_required(const config_setting_t *g, const char *path, double *out, sits_err *err);
int sits__key_str(const config_setting_t *g, const char *path, const char **out, sits_err *err);
int sits__key_bool(const config_setting_t *g, const char *path, bool *out, sits_err *err);
/** The numeric array (or list) member @p key of group @p g into out (1 to @p max finite
 *  numbers, *n of them); absent: SITS_OK with *n = 0 unless @p owner is given, which names
 *  what needs it in the error ("the battery", "a fan"). Errors carry file:line. */
int sits__key_numbers(const config_setting_t *g, const char *key, const char *owner, double *out,
                      size_t max, size_t *n, sits_err *err);

/* Readers of members that are not table keys (values inside MAP groups): absent -> *out =
 * dflt, an error when required; a value of the wrong type is an error naming file:line. */
int sits__get_num(const config_setting_t *g, const char *key, double dflt, bool required,
                  double *out, sits_err *err);
int sits__get_str(const config_setting_t *g, const char *key, bool required, const char **out,
                  sits_err *err);

/** Checks every key of the merged tree against the key table (keys.c). */
int sits__config_check_keys(const sits__config *c, sits_err *err);

/** Levenshtein distance, for "did you mean" suggestions. */
size_t sits__edit_distance(const char *a, const char *b);

#endif

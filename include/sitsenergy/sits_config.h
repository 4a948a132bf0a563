/*
 * sits_config.h - the configuration keys: one table of every key a scenario, platform,
 * workload or battery file may hold, with its type, unit, default, range, a help line and the
 * model value it lands in.
 *
 * The loader checks every key of a merged configuration against this table (an unknown key
 * is an error naming its file:line and the nearest known name) and takes defaults and
 * ranges from it; `sitsenergy keys` prints it, and the README's key reference is generated
 * from it. Paths are dotted; `[]` stands for any element of a list (`platform.domains.[].opp.[]
 * .freq_mhz`).
 */
#ifndef SITS_CONFIG_H
#define SITS_CONFIG_H

#include <stddef.h>
#include <stdio.h>

#include "sits_status.h"

SITS_BEGIN_DECLS

/** What a key holds. */
typedef enum sits_key_type {
  SITS_KEY_NUMBER,       /**< a number (integer or float) */
  SITS_KEY_BOOL,         /**< true or false */
  SITS_KEY_STRING,       /**< a string */
  SITS_KEY_GROUP,        /**< a group of the keys listed under it */
  SITS_KEY_LIST,         /**< a list of groups, each with the keys listed under `<path>.[]` */
  SITS_KEY_ARRAY,        /**< an array of numbers or of strings (`[1.0, 2.0]`) */
  SITS_KEY_MAP,          /**< a group whose member names are the user's (node or domain names,
                              HotSpot options): not checked against the table */
  SITS_KEY_NAME_OR_GROUP /**< a file name or an inline group (`platform`) */
} sits_key_type;

/** Key flags. */
enum {
  SITS_KEY_REQUIRED = 1u << 0, /**< must be given (where its group is) */
  SITS_KEY_LO_OPEN = 1u << 1,  /**< the range excludes its lower end */
  SITS_KEY_HI_OPEN = 1u << 2,  /**< the range excludes its upper end */
  SITS_KEY_WHOLE = 1u << 3,    /**< a whole number */
  /** The range is enforced where the value lands (the model, or a check of the loader that
   *  covers several keys), with that check's own message, not by the generic range check;
   *  it is listed here for reference (tests/config checks that values outside it fail). */
  SITS_KEY_MODEL_CHECKED = 1u << 4,
  SITS_KEY_FILE = 1u << 5 /**< a file name the loader reads (relative to the file naming it) */
};

/** One configuration key. */
typedef struct sits_key {
  const char *path; /**< dotted path, `[]` for list elements */
  sits_key_type type;
  const char *unit;      /**< "W", "degC", "s", ...; "" for dimensionless or not a number */
  double dflt;           /**< the default of a number; NAN: none, or computed (dflt_text) */
  const char *dflt_text; /**< the default in words when it is computed or not a number */
  double lo, hi;         /**< the accepted range of a number (-INFINITY/INFINITY: open) */
  unsigned flags;        /**< SITS_KEY_* flags */
  const char *help;      /**< one line */
  const char *lands;     /**< the model value it sets (struct.field, or what it selects) */
} sits_key;

/** The table, in document order (a group before its members); *n gets the count. */
SITS_API const sits_key *sits_config_keys(size_t *n);

/** The key at @p path (generic: `[]` for list elements, or with indices `[2]`, which are
 *  taken as `[]`), or NULL. */
SITS_API const sits_key *sits_config_key(const char *path);

/** Formats the default of @p k into @p buf ("-" when none). */
SITS_API const char *sits_config_key_default(const sits_key *k, char *buf, size_t size);

/** Formats the range of @p k into @p buf ("> 0", "[0, 1]", "" when any value is taken). */
SITS_API const char *sits_config_key_range(const sits_key *k, char *buf, size_t size);

/**
 * Writes the key reference: @p format "markdown" (a table per top-level section, as in the
 * README) or "text" (one line per key). Keys whose path contains @p filter (NULL: all).
 * Returns SITS_OK, SITS_EINPUT for an unknown format, SITS_EIO when writing fails.
 */
SITS_API int sits_config_write_keys(FILE *f, const char *format, const char *filter, sits_err *err);

SITS_END_DECLS

#endif

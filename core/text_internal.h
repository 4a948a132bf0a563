/*
 * text_internal.h - reading text files: one line source (line numbers, NUL bytes caught) and one
 * CSV field splitter (RFC 4180 quoting) for every reader of the libraries: workload CSV
 * tables, board traces, HotSpot's files. Internal.
 */
#ifndef SITS_TEXT_INTERNAL_H
#define SITS_TEXT_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "status_internal.h"

/** The longest line a reader takes (bytes); a longer one is refused, so that a file that is
 *  not text (/dev/zero, a binary) cannot make a reader grow without bound. */
#define SITS_MAX_LINE (1024u * 1024u)

/** A text file read line by line. */
typedef struct sits__lines {
  FILE *fp;
  const char *path;
  char *line;
  size_t cap, lineno;
  const char *reason; /* why the last line is not text (static), or NULL */
} sits__lines;

/** Opens @p path; an error "PATH: cannot open: why" otherwise. */
int sits__lines_open(sits__lines *L, const char *path, sits_err *err);
/** The next line (its newline kept), or NULL at the end; *binary tells a line that is not text
 *  - a NUL byte, or longer than SITS_MAX_LINE - with the reason in L->reason (the caller skips
 *  it or fails with L->lineno). */
char *sits__lines_next(sits__lines *L, bool *binary);
void sits__lines_close(sits__lines *L);

/** @p s without leading and trailing white space (in place). */
char *sits__trim(char *s);

/** Whether a line is blank or a '#' comment. */
bool sits__blank_or_comment(const char *line);

/**
 * The next comma-separated field at *@p cursor (in place; NULL after the last field), RFC
 * 4180 style: a field in double quotes may hold commas, and "" in it stands for one quote;
 * white space around a field is dropped (not inside quotes). *@p bad is set for a quote that
 * is not closed on the line or text after a closing quote.
 */
char *sits__csv_field(char **cursor, bool *bad);
/** sits__csv_field with @p sep (',', '\t' or ';') between the fields. */
char *sits__csv_field_sep(char **cursor, char sep, bool *bad);

/** Splits @p line into at most @p max fields of @p f; the number of fields in the line (it
 *  may exceed max); *@p bad tells malformed quoting (sits__csv_field). */
size_t sits__csv_split(char *line, char **f, size_t max, bool *bad);

/** Writes the header field @p prefix followed by @p name as RFC 4180 has it: in double quotes,
 *  a quote doubled, when it holds a comma, a quote or a line break (which becomes a space). */
void sits__csv_put_name(FILE *f, const char *prefix, const char *name);

/** Days from 1970-01-01 to the proleptic Gregorian date @p y - @p m - @p d (Howard Hinnant's
 *  days_from_civil): for stamps' differences. */
long sits__days_from_civil(int y, int m, int d);

/** A duration as [[h:]m:]s with an optional fraction on the seconds ("25:19:08.386", "01:30"):
 *  seconds in *@p out; false if @p s is not one (minutes and seconds below 60). */
bool sits__parse_hms(const char *s, double *out);

/** A date and time: "2019-05-03 10:00:00.5" (or 'T', '/' for '-', a trailing 'Z' or a UTC
 *  offset such as +08:00, -0500, +05, applied), "03.05.2019 10:00:00" (day first),
 *  "5/3/2019 10:00:00" or "11/27/2018 8:41:18 PM" (month first): seconds since 1970 in *@p out
 *  (without an offset, as if UTC); false if @p s is not one. */
bool sits__parse_datetime(const char *s, double *out);

#endif

/* text.c - the line source and the CSV field splitter (text_internal.h). */
#define _POSIX_C_SOURCE 200809L
#include "text_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <fcntl.h>
#include <unistd.h>

int sits__lines_open(sits__lines *L, const char *path, sits_err *err) {
  *L = (sits__lines){.path = path};
  /* opened without waiting: a FIFO that no program writes to reads as empty instead of
   * blocking the open for ever; reads then wait for a writer that is there */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return sits__fail(err, SITS_EINPUT, "%s: cannot open: %s", path, strerror(errno));
  struct stat st; /* a directory opens for reading, and then reads as nothing */
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    close(fd);
    return sits__fail(err, SITS_EINPUT, "%s: is a directory, not a file", path);
  }
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0 || !(L->fp = fdopen(fd, "r"))) {
    int e = errno;
    close(fd);
    return sits__fail(err, SITS_EINPUT, "%s: cannot open: %s", path, strerror(e));
  }
  return SITS_OK;
}

char *sits__lines_next(sits__lines *L, bool *binary) {
  *binary = false;
  L->reason = NULL;
  if (!L->fp)
    return NULL;
  size_t len = 0;
  bool nul = false;
  int c = EOF;
  while (len < SITS_MAX_LINE && (c = getc(L->fp)) != EOF) {
    if (len + 2 > L->cap) {
      size_t cap = L->cap ? 2 * L->cap : 256;
      char *p = realloc(L->line, cap);
      if (!p) { /* out of memory: as a line that cannot be read */
        *binary = true;
        L->reason = "out of memory";
        return L->line ? L->line : (char *)"";
      }
      L->line = p, L->cap = cap;
    }
    nul = nul || c == '\0';
    L->line[len++] = (char)c;
    if (c == '\n')
      break;
  }
  if (len == 0)
    return NULL;
  bool over = len == SITS_MAX_LINE && c != '\n';
  /* the rest of a long line of text: one line, counted once (up to 64 MiB more: a stream
   * without line breaks, or /dev/zero's NULs, is not drained for ever) */
  for (size_t more = 0; over && !nul && more < 64 * (size_t)SITS_MAX_LINE; more++)
    if ((c = getc(L->fp)) == EOF || c == '\n' || (nul = c == '\0'))
      break;
  L->line[len] = '\0';
  L->lineno++;
  bool utf16 = L->lineno == 1 && len >= 2 &&
               ((unsigned char)L->line[0] == 0xFF || (unsigned char)L->line[0] == 0xFE) &&
               ((unsigned char)L->line[1] ^ (unsigned char)L->line[0]) == 0x01;
  if (L->lineno == 1 && len >= 3 && memcmp(L->line, "\xEF\xBB\xBF", 3) == 0) {
    memmove(L->line, L->line + 3, len - 2); /* UTF-8's byte-order mark, as spreadsheets save */
    len -= 3;
  }
  const char *packed = NULL; /* a compressed file, by its magic number */
  if (L->lineno == 1) {
    static const struct {
      const char *magic;
      size_t len;
      const char *what;
    } kinds[] = {{"\x1F\x8B", 2, "gzip-compressed (decompress it first: gunzip)"},
                 {"\xFD"
                  "7zXZ",
                  5, "xz-compressed (decompress it first: unxz)"},
                 {"\x28\xB5\x2F\xFD", 4, "zstd-compressed (decompress it first: unzstd)"},
                 {"BZh", 3, "bzip2-compressed (decompress it first: bunzip2)"},
                 {"PK\x03\x04", 4, "a zip archive (extract the log first: unzip)"}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0] && !packed; i++)
      if (len >= kinds[i].len && memcmp(L->line, kinds[i].magic, kinds[i].len) == 0 &&
          (i != 3 || (len >= 10 && memcmp(L->line + 4, "1AY&SY", 6) == 0)))
        packed = kinds[i].what;
  }
  if (packed)
    L->reason = packed;
  else if (utf16)
    L->reason = "UTF-16 text (save the file as UTF-8)";
  else if (nul)
    L->reason = "binary data in a text file";
  else if (over)
    L->reason = "a line over 1 MiB (not a text file of this kind)";
  *binary = L->reason != NULL;
  return L->line;
}

void sits__lines_close(sits__lines *L) {
  free(L->line);
  if (L->fp)
    fclose(L->fp);
  L->line = NULL, L->fp = NULL;
}

char *sits__trim(char *s) {
  while (isspace((unsigned char)*s))
    s++;
  char *e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1]))
    *--e = '\0';
  return s;
}

bool sits__blank_or_comment(const char *line) {
  while (isspace((unsigned char)*line))
    line++;
  return *line == '\0' || *line == '#';
}

/* A quoted field from the opening quote at @p q: unescaped in place; *end gets what follows
 * (white space, then @p sep or the line's end). */
static char *quoted(char *q, char sep, char **end, bool *bad) {
  char *out = q + 1, *w = out, *r = out;
  for (;;) {
    if (*r == '\0' || *r == '\n' || (*r == '\r' && r[1] == '\0')) { /* not closed */
      *bad = true;
      *w = '\0';
      *end = r;
      return out;
    }
    if (*r == '"') {
      if (r[1] == '"') {
        *w++ = '"';
        r += 2;
        continue;
      }
      r++;
      break;
    }
    *w++ = *r++;
  }
  *w = '\0';
  while ((*r == ' ' || *r == '\t' || *r == '\r' || *r == '\n') && *r != sep)
    r++;
  if (*r && *r != sep)
    *bad = true; /* text after the closing quote */
  *end = r;
  return out;
}

char *sits__csv_field(char **cursor, bool *bad) {
  return sits__csv_field_sep(cursor, ',', bad);
}

char *sits__csv_field_sep(char **cursor, char sep, bool *bad) {
  char *p = *cursor;
  if (!p)
    return NULL;
  while ((*p == ' ' || *p == '\t') && *p != sep) /* a tab that separates is a field's end */
    p++;
  char *field, *end;
  if (*p == '"')
    field = quoted(p, sep, &end, bad);
  else {
    field = p;
    end = strchr(p, sep);
    if (!end)
      end = p + strlen(p);
  }
  if (*end == sep && sep) {
    *end = '\0';
    *cursor = end + 1;
  } else {
    *end = '\0';
    *cursor = NULL;
  }
  return *p == '"' ? field : sits__trim(field);
}

size_t sits__csv_split(char *line, char **f, size_t max, bool *bad) {
  size_t n = 0;
  char *cursor = line, *field;
  *bad = false;
  while ((field = sits__csv_field(&cursor, bad)) != NULL) {
    if (n < max)
      f[n] = field;
    n++;
  }
  return n;
}

/* A duration as [[h:]m:]s with an optional fraction ("25:19:08.386", "01:30", "12:05:00"),
 * as cyclers write their test and step times: seconds in *out, false if @p s is not one. */
bool sits__parse_hms(const char *s, double *out) {
  double parts[3], v = 0;
  size_t n = 0;
  const char *p = s;
  while (n < 3) {
    if (!isdigit((unsigned char)*p))
      return false;
    char *end;
    errno = 0;
    parts[n] = strtod(p, &end);
    if (errno || end == p)
      return false;
    for (const char *q = p; q < end; q++) /* digits, and a fraction only on the seconds */
      if (!isdigit((unsigned char)*q) && *q != '.')
        return false;
    n++;
    p = end;
    if (*p != ':')
      break;
    if (memchr(s, '.', (size_t)(end - s))) /* a fraction before a ':' */
      return false;
    p++;
  }
  if (*p || n < 2)
    return false;
  for (size_t k = 0; k < n; k++) {
    if (k > 0 && parts[k] >= 60) /* minutes and seconds below 60; hours run on */
      return false;
    v = v * 60 + parts[k];
  }
  *out = v;
  return true;
}

/* Days from 1970-01-01 to the proleptic Gregorian date y-m-d. */
long sits__days_from_civil(int y, int m, int d) {
  y -= m <= 2;
  long era = (y >= 0 ? y : y - 399) / 400, yoe = y - era * 400;
  long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

/* A date and time as cyclers and loggers write them: "2019-05-03 10:00:00.5" (or with a 'T',
 * '/' for '-', then 'Z' or a UTC offset, +08:00, -0500, +05, which is applied: a log across a
 * daylight-saving change stays continuous), "03.05.2019 10:00:00" (day first) and
 * "5/3/2019 10:00:00" or "11/27/2018 8:41:18 PM" (month first, as US cyclers write it):
 * seconds since 1970 (a time without an offset taken as UTC: only the differences between
 * rows count), false if @p s is not one. */
bool sits__parse_datetime(const char *s, double *out) {
  int y, mo, d, h, mi, used = 0;
  char sep1, sep2, sep3;
  bool iso = false; /* year first: it may end in a UTC offset */
  if (sscanf(s, "%4d%c%2d%c%2d%c%2d:%2d:%n", &y, &sep1, &mo, &sep2, &d, &sep3, &h, &mi, &used) ==
          8 &&
      used > 0 && y >= 1000 && (sep1 == '-' || sep1 == '/') && sep2 == sep1 &&
      (sep3 == ' ' || sep3 == 'T')) {
    iso = true;
  } else if (sscanf(s, "%2d%c%2d%c%4d %2d:%2d:%n", &d, &sep1, &mo, &sep2, &y, &h, &mi, &used) ==
                 7 &&
             used > 0 && (sep1 == '.' || sep1 == '/') && sep2 == sep1) {
    sep3 = ' ';
    if (sep1 == '/') { /* month first */
      int m = d;
      d = mo, mo = m;
    }
  } else
    return false;
  const char *sec = s + used;
  char *end;
  if (!isdigit((unsigned char)sec[0]) || !isdigit((unsigned char)sec[1]))
    return false;
  double secs = strtod(sec, &end), zone_s = 0;
  if (*end == 'Z' && sep1 != '.')
    end++;
  else if ((*end == '+' || *end == '-') && iso) { /* a UTC offset: +08:00, -0500, +05 */
    int zh = 0, zm = 0, n = 0;
    const char *z = end + 1;
    if (isdigit((unsigned char)z[0]) && isdigit((unsigned char)z[1])) {
      zh = (z[0] - '0') * 10 + (z[1] - '0'), n = 2;
      const char *m = z[2] == ':' ? z + 3 : z + 2;
      if (isdigit((unsigned char)m[0]) && isdigit((unsigned char)m[1]))
        zm = (m[0] - '0') * 10 + (m[1] - '0'), n = (int)(m + 2 - z);
      else if (z[2] == ':')
        return false;
    }
    if (!n || zh > 14 || zm > 59)
      return false;
    zone_s = (*end == '+' ? 1 : -1) * (zh * 3600.0 + zm * 60.0);
    end = (char *)z + n;
  }
  if (end[0] == ' ' && (end[1] == 'A' || end[1] == 'P') && end[2] == 'M' && !end[3] &&
      sep3 != 'T' && h >= 1 && h <= 12) { /* a 12-hour clock */
    h = h % 12 + (end[1] == 'P' ? 12 : 0);
    end += 3;
  }
  if (*end || y < 1900 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
      !(secs < 61))
    return false;
  *out = (double)sits__days_from_civil(y, mo, d) * 86400.0 + h * 3600.0 + mi * 60.0 + secs - zone_s;
  return true;
}

void sits__csv_put_name(FILE *f, const char *prefix, const char *name) {
  bool quote = strpbrk(prefix, ",\"\r\n") || strpbrk(name, ",\"\r\n");
  if (!quote) {
    fputs(prefix, f), fputs(name, f);
    return;
  }
  fputc('"', f);
  for (int part = 0; part < 2; part++)
    for (const char *s = part ? name : prefix; *s; s++) {
      if (*s == '"')
        fputc('"', f);
      fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
  fputc('"', f);
}

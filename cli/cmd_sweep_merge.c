/* cmd_sweep_merge.c - `sitsenergy sweep-merge OUT IN...`: the shards of a sweep (--shard K/N,
 * --shard slurm, or any runs of one sweep) joined into one table, rows in index order. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "sits_output.h"
#include "sits_sim.h"
#include "sits_writers.h"

static const char merge_usage[] =
    "usage: sitsenergy sweep-merge OUT.csv|OUT.h5 IN.csv...\n\n"
    "Joins sweep tables written by shards of one sweep (--shard K/N, --shard slurm): the\n"
    "headers must be equal; rows are put in the order of their index column, a row present in\n"
    "two inputs is kept once when both are equal and refused when they differ, and every\n"
    "index up to the last must be there (a missing shard is refused). OUT is HDF5\n"
    "for a name ending in .h5 (one dataset per column), else CSV ('-' for stdout).\n";

typedef struct row {
  size_t index;
  char *text;
  const char *file;
  size_t line;
} row;

static int by_index(const void *a, const void *b) {
  const row *x = a, *y = b;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* The fields of a CSV line (RFC 4180: a comma inside double quotes separates nothing). */
static size_t csv_fields(const char *line) {
  size_t n = 1;
  bool quoted = false;
  for (const char *c = line; *c && *c != '\n'; c++)
    if (*c == '"')
      quoted = !quoted;
    else if (*c == ',' && !quoted)
      n++;
  return n;
}

/* Reads @p path's rows into *rows (n, cap); its header compared with (or kept in) *header.
 * Every row must end its line and have the header's fields: a shard cut by a stopped job or
 * a full disk, or a row of another table, is refused rather than copied. */
static int read_table(const char *path, char **header, row **rows, size_t *n, size_t *cap) {
  FILE *f = fopen(path, "r");
  struct stat st;
  if (!f) {
    cli_error("%s: cannot open: %s", path, strerror(errno));
    return EXIT_INPUT;
  }
  if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
    cli_error("%s: is a directory, not a sweep table", path);
    fclose(f);
    return EXIT_INPUT;
  }
  char *line = NULL;
  size_t lcap = 0, lineno = 0;
  long len;
  int code = EXIT_OK;
  bool nul;
  while (code == EXIT_OK && (len = cli_read_line(f, &line, &lcap, &nul)) != 0) {
    lineno++;
    if (len < 0 || nul) { /* too long, or a NUL byte: not text */
      cli_error("%s:%zu: not a text line of at most 1 MiB", path, lineno);
      code = EXIT_INPUT;
      break;
    }
    if (line[len - 1] != '\n') {
      cli_error("%s:%zu: the line is cut (the file ends inside it)", path, lineno);
      code = EXIT_INPUT;
      break;
    }
    if (lineno == 1) {
      if (strncmp(line, "index,config_hash,", 18) != 0) {
        cli_error("%s:1: not a sweep table (its header starts 'index,config_hash,')", path);
        code = EXIT_INPUT;
      } else if (!*header) {
        if (!(*header = strdup(line))) {
          cli_error("out of memory");
          code = EXIT_INPUT;
        }
      } else if (strcmp(*header, line) != 0) {
        cli_error("%s:1: its header differs from the first input's: not a shard of the same "
                  "sweep",
                  path);
        code = EXIT_INPUT;
      }
      continue;
    }
    char *end;
    size_t idx = strtoul(line, &end, 10);
    if (end == line || *end != ',' || line[0] == '-') {
      cli_error("%s:%zu: the row does not start with its index", path, lineno);
      code = EXIT_INPUT;
      break;
    }
    size_t want = csv_fields(*header), got = csv_fields(line);
    if (got != want) {
      cli_error("%s:%zu: the row has %zu fields, the header %zu", path, lineno, got, want);
      code = EXIT_INPUT;
      break;
    }
    if (*n == *cap) {
      size_t c = *cap ? 2 * *cap : 256;
      row *p = realloc(*rows, c * sizeof *p);
      if (!p) {
        cli_error("out of memory");
        code = EXIT_INPUT;
        break;
      }
      *rows = p, *cap = c;
    }
    (*rows)[(*n)++] = (row){idx, strdup(line), path, lineno};
  }
  free(line);
  fclose(f);
  if (code == EXIT_OK && lineno == 0) {
    cli_error("%s: empty: no header", path);
    code = EXIT_INPUT;
  }
  return code;
}

static int write_out(const char *out, const char *header, const row *rows, size_t n) {
  size_t olen = strlen(out);
  bool h5 = olen > 3 && strcmp(out + olen - 3, ".h5") == 0;
  sits_err err = {0};
  char tmp[4300];
  int fd = -1;
  sits_output *o = NULL;
  FILE *f = NULL;
  if (h5) {
    if ((fd = sits_output_temp(out, "merge.", tmp, sizeof tmp, &err)) < 0)
      return cli_fail(SITS_EIO, &err);
    cli_cleanup_file(tmp);
    f = fdopen(fd, "w");
  } else if ((o = sits_output_open(out, &err)) != NULL)
    f = sits_output_file(o);
  else
    return cli_fail(SITS_EIO, &err);
  bool ok = f != NULL;
  if (ok)
    fputs(header, f);
  for (size_t i = 0; ok && i < n; i++)
    if (i == 0 || rows[i].index != rows[i - 1].index)
      fputs(rows[i].text, f);
  if (!h5)
    return sits_output_close(o, ok, &err) ? cli_fail(SITS_EIO, &err) : EXIT_OK;
  ok = f && fclose(f) == 0 && ok;
  int rc = ok ? sits_write_csv_as_h5(tmp, out, &err) : SITS_EIO;
  remove(tmp);
  return rc ? cli_fail(rc, &err) : EXIT_OK;
}

static int cmd_sweep_merge(int argc, char **argv) {
  static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  int c;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
    if (c == 'h') {
      fputs(merge_usage, stdout);
      return EXIT_OK;
    }
    return cli_bad_option(c, argv[optind - 1], "sweep-merge");
  }
  if (argc - optind < 2) {
    cli_error("sweep-merge needs OUT and at least one IN (see 'sitsenergy sweep-merge --help')");
    return EXIT_USAGE;
  }
  const char *out = argv[optind];
  const char *outs[] = {out};
  if (cli_check_paths((const char *const *)argv + optind + 1, (size_t)(argc - optind - 1), outs, 1))
    return EXIT_INPUT;
  char *header = NULL;
  row *rows = NULL;
  size_t n = 0, cap = 0;
  int code = EXIT_OK;
  for (int i = optind + 1; code == EXIT_OK && i < argc; i++)
    code = read_table(argv[i], &header, &rows, &n, &cap);
  if (code == EXIT_OK) {
    qsort(rows, n, sizeof *rows, by_index);
    for (size_t i = 1; code == EXIT_OK && i < n; i++)
      if (rows[i].index == rows[i - 1].index && strcmp(rows[i].text, rows[i - 1].text) != 0) {
        cli_error("%s:%zu: row %zu differs from %s:%zu's", rows[i].file, rows[i].line,
                  rows[i].index, rows[i - 1].file, rows[i - 1].line);
        code = EXIT_INPUT;
      }
    size_t expect = 0; /* every index from 0 to the last: a shard is not missing */
    for (size_t i = 0; code == EXIT_OK && i < n; i++) {
      if (rows[i].index > expect) {
        cli_error("row %zu is in no input (the rows run to %zu): a shard is missing or was "
                  "stopped; finish it with --resume",
                  expect, rows[n - 1].index);
        code = EXIT_INPUT;
      }
      expect = rows[i].index + 1;
    }
  }
  if (code == EXIT_OK)
    code = write_out(out, header, rows, n);
  for (size_t i = 0; i < n; i++)
    free(rows[i].text);
  free(rows), free(header);
  return code;
}

const cli_cmd cli_cmd_sweep_merge = {.name = "sweep-merge",
                                     .help = "join the shards of a sweep into one table",
                                     .usage = merge_usage,
                                     .raw = cmd_sweep_merge};

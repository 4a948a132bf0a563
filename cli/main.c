/* main.c - the sitsenergy program: the command table and dispatch. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "sits_sim.h"

static const cli_cmd *const commands[] = {
    &cli_cmd_run,         &cli_cmd_steady,    &cli_cmd_dvfs_table, &cli_cmd_sweep,
    &cli_cmd_sweep_merge, &cli_cmd_calibrate, &cli_cmd_replay,     &cli_cmd_capture,
    &cli_cmd_trace_info,  &cli_cmd_hotspot,   &cli_cmd_keys,
};

static void usage(FILE *f) {
  fprintf(f, "usage: sitsenergy <command> [options]\n"
             "       sitsenergy --version | --help | <command> --help\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->help);
  fprintf(f, "\nexit codes: 0 finished, 1 bad input, 2 usage error, 3 constraint violated "
             "(--check), 4 solver failure\n");
  fprintf(f, "\nenvironment:\n"
             "  SITS_FFTW_WISDOM  the file grid models keep measured FFT plans in (default\n"
             "                    $XDG_CACHE_HOME or ~/.cache/sitsenergy/fftw-wisdom; off: none)\n"
             "  SITS_BLAS=gsl     GSL's reference BLAS and LU, not OpenBLAS, for the large dense\n"
             "                    products (SITS_EXPINT_BLAS=gsl: the exponential path only)\n"
             "  SITS_EXPINT_PLAIN=1  the exponential path's step products as plain loops at\n"
             "                    any size (default from 32 states: AVX2 where the CPU has it;\n"
             "                    =simd: without AVX2 only, as a CPU that lacks it runs them)\n"
             "  SITS_HUGEPAGES=0  the heap as glibc sets it up (default: one region in huge\n"
             "                    pages, which saves the page faults of large grids)\n");
}

int main(int argc, char **argv) {
  /* the HDF5 module skips HDF5's exit handler, which crashes on a file whose close failed
   * (a full disk): this program closes every file it writes (outputs/output_h5.c) */
  setenv("SITSENERGY_H5_NO_ATEXIT", "1", 1);
  if (argc < 2) {
    usage(stderr);
    return EXIT_USAGE;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "help") == 0) {
    usage(stdout);
    return EXIT_OK;
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("sitsenergy %s\n", sits_version());
    return EXIT_OK;
  }
  cli_cleanup_install();
  cli_heap_setup();
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(argv[1], commands[i]->name) == 0) {
      int code = cli_dispatch(commands[i], argc - 1, argv + 1);
      if (fflush(stdout) != 0 || ferror(stdout)) { /* a full disk or a closed pipe: results lost */
        cli_error("the standard output: write error: %s", strerror(errno ? errno : EIO));
        return code ? code : EXIT_INPUT;
      }
      return code;
    }
  cli_error("unknown command '%s' (see 'sitsenergy --help')", argv[1]);
  return EXIT_USAGE;
}

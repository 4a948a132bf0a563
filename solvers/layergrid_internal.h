/* layergrid_internal.h - the layered-grid solver's entry points for the library's own use
 * (layergrid_load.c), beside sits_layergrid.h. Never installed. */
#ifndef SITS_LAYERGRID_INTERNAL_H
#define SITS_LAYERGRID_INTERNAL_H

#include "sits_layergrid.h"
#include "status_internal.h"

/** sits_layergrid_new() for one more solver of a network whose first one this process made
 *  (the grid path keeps one per gamma): FFTW's wisdom is not read, imported or written again,
 *  its plans being in FFTW's wisdom since the first. */
sits_layergrid *sits__layergrid_new_again(const gsl_spmatrix *g, const double *c, size_t rows,
                                          size_t cols, size_t layers, sits_err *err);

#endif

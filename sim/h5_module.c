/* h5_module.c - the public HDF5 writers of sits_sim.h, over core/h5_call.c (which loads the
 * module libsits_h5 beside libsits on first use and writes through a temporary file). */
#include "sits_sim.h"
#include "status_impl.h"
#include "writer_impl.h"

#include <stdio.h>
#include <string.h>

int sits_write_h5(const sits_scenario *sc, const sits_result *r, const char *path, sits_err *err) {
  return sits__h5_write_result_file(path, sc, r, err);
}

int sits_write_table_h5(const char *path, size_t rows, size_t cols, const char *const *names,
                        const char *const *cells, sits_err *err) {
  sits__h5_table args = {rows, cols, names, cells};
  return sits__h5_write_table_file(path, &args, err);
}

/* A board program on libsits_rt: one sample of a fake sysfs tree, as CSV on stdout. The same
 * file is compiled as C and as C++ (-x c++: the header's extern "C" makes the names link). */
#include <stdio.h>
#include <stdlib.h>

#include <sits_rt.h>

int main(int argc, char **argv) {
  sits_err err = {0};
  sits_rt *rt = sits_rt_new(argc > 1 ? argv[1] : NULL, &err);
  if (!rt) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  double *v = (double *)malloc(sits_rt_column_count(rt) * sizeof *v);
  int rc = !v || sits_rt_write_header(rt, stdout) || sits_rt_sample_at(rt, 0.0, v, &err) ||
           sits_rt_write_row(rt, stdout, 0.0, v);
  free(v);
  sits_rt_free(rt);
  return rc;
}

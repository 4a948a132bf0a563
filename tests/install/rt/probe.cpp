// The same from C++: the header's extern "C" makes sits_rt_new link.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <sits_rt.h>

int main(int argc, char **argv) {
  sits_err err = {0};
  sits_rt *rt = sits_rt_new(argc > 1 ? argv[1] : NULL, &err);
  if (!rt) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  double t, *v = static_cast<double *>(std::malloc(sits_rt_column_count(rt) * sizeof *v));
  int rc = !v || sits_rt_write_header(rt, stdout) || sits_rt_sample_at(rt, 0.0, v, &err) ||
           sits_rt_write_row(rt, stdout, 0.0, v);
  (void)t;
  free(v);
  sits_rt_free(rt);
  return rc;
}

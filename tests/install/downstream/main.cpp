// The downstream program from C++, through the umbrella header (extern "C" linkage).
#include <cstdio>

#include <sitsenergy.h>

int main() {
  sits_err err = {0, {0}};
  sits_thermal *th = sits_thermal_new();
  int a = sits_thermal_add_node(th, "die", 2.0, &err);
  if (a < 0 || sits_thermal_add_link(th, a, SITS_AMBIENT, 4.0, &err)) {
    std::fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  double t = 45.0, p = 10.0, d;
  sits_thermal_derivative(th, &t, &p, 25.0, &d, nullptr);
  std::printf("dT/dt = %.3f K/s\n", d); // (10 - 20/4) / 2 = 2.5
  sits_thermal_free(th);
  return d == 2.5 ? 0 : 1;
}

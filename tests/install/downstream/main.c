/* Builds a two-node network through the installed API and prints its derivative. */
#include <stdio.h>

#include <sits_status.h>
#include <sits_thermal.h>

int main(void) {
  sits_err err = {0};
  sits_thermal *th = sits_thermal_new();
  int a = sits_thermal_add_node(th, "die", 2.0, &err);
  if (a < 0 || sits_thermal_add_link(th, a, SITS_AMBIENT, 4.0, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  double t = 45.0, p = 10.0, d;
  sits_thermal_derivative(th, &t, &p, 25.0, &d, NULL);
  printf("dT/dt = %.3f K/s\n", d); /* (10 - 20/4) / 2 = 2.5 */
  sits_thermal_free(th);
  return d == 2.5 ? 0 : 1;
}

/*
 * test_jacobian.c - the analytic Jacobian of the coupled model (constant conduction part
 * plus leakage slopes) against central finite differences of the right-hand side.
 * Tolerance: central differences with h = 1e-4 K have a truncation error of order
 * h^2 |f'''| ~ 1e-9 here and a rounding error of order 1e-16 |f| / h ~ 1e-11; 1e-6
 * relative to the largest entry leaves a wide margin.
 */
#include "test_util.h"

#include "run_impl.h"

Test(jacobian, matches_finite_differences_with_leakage) {
  sits_scenario *sc = tu_load(
      "jac.cfg",
      "platform = { thermal = {\n"
      "  nodes = ( { name = \"a\"; c_j_per_k = 2.0; }, { name = \"b\"; c_j_per_k = 5.0; },\n"
      "            { name = \"c\"; c_j_per_k = 30.0; } );\n"
      "  links = ( { a = \"a\"; b = \"b\"; r_k_per_w = 0.5; }, { a = \"b\"; b = \"c\"; r_k_per_w = "
      "0.3; },\n"
      "            { a = \"c\"; b = \"ambient\"; r_k_per_w = 1.2; }, { a = \"a\"; b = \"ambient\"; "
      "r_k_per_w = 9.0; } ); };\n"
      "  domains = ( { name = \"gpu\"; nodes = [\"a\", \"b\"]; fractions = [0.7, 0.3]; ceff_f = "
      "3e-9;\n"
      "                idle_w = 0.2; leak_ref_w = 0.8; leak_ref_v = 0.9; leak_per_k = 0.03;\n"
      "                opp = ( { freq_mhz = 500.0; volt_v = 0.7; }, { freq_mhz = 1000.0; volt_v = "
      "0.9; } ); },\n"
      "              { name = \"cpu\"; node = \"b\"; ceff_f = 1e-9; leak_ref_w = 0.3; leak_per_k = "
      "0.02;\n"
      "                opp = ( { freq_mhz = 1500.0; volt_v = 0.8; } ); } ); };\n"
      "workload = { phases = ( { duration_s = 1; demand = { gpu = 0.6; cpu = 0.4; }; } ); };\n");
  run rn = {0};
  rn.sc = sc;
  rn.th = sits_scenario_thermal(sc);
  rn.sched = sits_scenario_schedule(sc);
  rn.dom = sits_scenario_domains(sc, &rn.nd);
  rn.n = 3;
  rn.lay = sits__layout_of(3, false, 0, false); /* ny = 5 */
  rn.opp[0] = 1;
  rn.base_power_w = calloc(3, sizeof(double));
  rn.node_power_w = calloc(3, sizeof(double));
  rn.memo.y = calloc(5, sizeof(double)); /* the run's evaluation memo (run_impl.h) */
  rn.memo.ydot = calloc(5, sizeof(double));
  sits__run_set_segment(&rn, 0);
  sits_err err = {0};
  cr_assert_eq(sits__run_build_jacobian(&rn, &err), SITS_OK, "%s", err.msg);
  double y[5] = {70.0, 55.0, 40.0, 12.0, 3.0}, values[64];
  cr_assert_leq(rn.jac->nz, 64);
  sits__run_jac(0, y, values, &rn);
  double dense[5][5] = {{0}}, worst = 0, scale = 0;
  for (size_t j = 0; j < 5; j++)
    for (int p = rn.jac->p[j]; p < rn.jac->p[j + 1]; p++) {
      dense[rn.jac->i[p]][j] = values[p];
      scale = fmax(scale, fabs(values[p]));
    }
  for (size_t j = 0; j < 5; j++) {
    double yp[5], ym[5], fp[5], fm[5], h = 1e-4;
    memcpy(yp, y, sizeof y), memcpy(ym, y, sizeof y);
    yp[j] += h, ym[j] -= h;
    sits__run_rhs(0, yp, fp, &rn);
    sits__run_rhs(0, ym, fm, &rn);
    for (size_t i = 0; i < 5; i++)
      worst = fmax(worst, fabs((fp[i] - fm[i]) / (2 * h) - dense[i][j]));
  }
  cr_log_info("worst Jacobian entry error %g (largest entry %g)", worst, scale);
  cr_assert_lt(worst, 1e-6 * scale, "worst %g", worst);
  gsl_spmatrix_free(rn.jac);
  free(rn.jac_const), free(rn.leak_diag), free(rn.leak_ein), free(rn.boff);
  free(rn.base_power_w), free(rn.node_power_w), free(rn.memo.y), free(rn.memo.ydot);
  sits_scenario_free(sc);
}

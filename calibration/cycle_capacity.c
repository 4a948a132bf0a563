/* cycle_capacity.c - capacity and coulombic efficiency of a closed cycle (see
 * sits_battery_fit.h, sits_capacity_from_cycle). */
#include "sits_battery_fit.h"
#include "status_internal.h"

#include <math.h>
#include <string.h>

/* The efficiency a cycle may show: below 0.8 or above 1 (more charge out than in) the parts
 * do not return the cell to where it started. */
#define ETA_LO 0.8
#define ETA_HI 1.0

int sits_capacity_from_cycle(size_t n_parts, const size_t *n, const double *const *t_s,
                             const double *const *i_a, size_t n_first, double eta_ref,
                             sits_cycle_capacity *out, sits_err *err) {
  memset(out, 0, sizeof *out);
  out->eta_ref = eta_ref;
  if (n_parts == 0)
    return sits__fail(err, SITS_EINPUT, "a cycle needs at least one recording");
  bool with_ref = !isnan(eta_ref);
  if (with_ref && !(eta_ref > ETA_LO && eta_ref <= ETA_HI))
    return sits__fail(err, SITS_EINPUT, "reference efficiency %g is not in (%g, %g]", eta_ref,
                      ETA_LO, ETA_HI);
  if (with_ref && !(n_first >= 1 && n_first < n_parts))
    return sits__fail(err, SITS_EINPUT,
                      "a reference efficiency needs recordings after the first %zu (there are %zu)",
                      n_first, n_parts);
  if (!with_ref)
    n_first = n_parts;
  for (size_t p = 0; p < n_parts; p++) { /* every sample checked before anything is counted */
    if (n[p] < 2)
      return sits__fail(err, SITS_EINPUT, "recording %zu of the cycle has %zu samples (2 needed)",
                        p + 1, n[p]);
    for (size_t k = 0; k + 1 < n[p]; k++)
      if (!(t_s[p][k + 1] > t_s[p][k]) || !isfinite(i_a[p][k] * (t_s[p][k + 1] - t_s[p][k])))
        return sits__fail(err, SITS_EINPUT,
                          "recording %zu of the cycle, sample %zu: time does not increase or "
                          "the current is not a number",
                          p + 1, k + 2);
  }
  for (size_t p = 0; p < n_parts; p++) {
    for (size_t k = 0; k + 1 < n[p]; k++) {
      double q = i_a[p][k] * (t_s[p][k + 1] - t_s[p][k]) / 3600.0;
      if (q > 0)
        out->discharge_ah += q;
      else {
        out->charge_ah -= q;
        if (p < n_first)
          out->first_charge_ah -= q;
      }
    }
  }
  if (!(out->discharge_ah > 0) || !(out->first_charge_ah > 0))
    return sits__fail(err, SITS_EINPUT,
                      "the cycle has %s: it must take the cell from full to empty and back to "
                      "full",
                      !(out->discharge_ah > 0) ? "no discharge"
                      : with_ref ? "no charge in its first recording (whose efficiency the "
                                   "reference leaves to solve for)"
                                 : "no charge to weigh");
  double later = out->charge_ah - out->first_charge_ah;
  double eta = with_ref ? (out->discharge_ah - eta_ref * later) / out->first_charge_ah
                        : out->discharge_ah / out->charge_ah;
  out->coulombic_eff = eta;
  if (!(eta > ETA_LO && eta <= ETA_HI))
    return sits__fail(err, SITS_EINPUT,
                      "coulombic efficiency %.4f from the cycle (%.4f Ah out, %.4f Ah in): the "
                      "recordings do not take the cell from full back to full",
                      eta, out->discharge_ah, out->charge_ah);
  double removed = 0, peak = -INFINITY;
  for (size_t p = 0; p < n_parts; p++) {
    double e = p < n_first ? eta : eta_ref;
    for (size_t k = 0; k + 1 < n[p]; k++) {
      double q = i_a[p][k] * (t_s[p][k + 1] - t_s[p][k]) / 3600.0;
      removed += q > 0 ? q : e * q;
      if (removed > peak)
        peak = removed, out->empty_part = p, out->empty_t_s = t_s[p][k + 1];
    }
  }
  out->capacity_ah = peak;
  /* all the charge went in before any came out (to rounding: a millionth of what moved): the
   * cell did not start full */
  if (!(peak > 1e-6 * out->discharge_ah))
    return sits__fail(err, SITS_EINPUT,
                      "the cycle never takes charge out of the cell: it must start full");
  return SITS_OK;
}

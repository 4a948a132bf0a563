/*
 * bpx.c - an equivalent-circuit cell as Battery Parameter eXchange (BPX) JSON (sits_bpx.h).
 *
 * BPX (the Faraday Institution's standard, PyBaMM's and PyBOP's exchange format) describes
 * physics-based models (SPM, SPMe, DFN) in its fixed sections; it has no equivalent-circuit
 * section. The cell goes where BPX puts parameters outside its models: Header.Model
 * "Partial" and Parameterisation."User-defined", whose values are numbers or interpolated
 * tables {"x": [...], "y": [...]}, under PyBaMM's names for its Thevenin (ECM) model where it
 * has them. The Python package (python/sitsenergy/bpx.py) reads these files back.
 */
#define _POSIX_C_SOURCE 200809L
#include "sits_bpx.h"
#include "sits_output.h"
#include "sits_scenario.h"
#include "status_internal.h"
#include "json_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BPX_VERSION "1.1.0" /* the first with Header.Model "Partial" (BPX CHANGELOG v1.1.0) */

static void table(FILE *f, const double *x, const double *y, size_t n) {
  fputs("{\"x\": [", f);
  for (size_t k = 0; k < n; k++)
    fprintf(f, "%s%.12g", k ? ", " : "", x[k]);
  fputs("], \"y\": [", f);
  for (size_t k = 0; k < n; k++)
    fprintf(f, "%s%.12g", k ? ", " : "", y[k]);
  fputs("]}", f);
}

/* A resistance or capacitance table: the reference value times its factors, over SOC (one
 * row) or by temperature in K (rows over r_t_c), under "<name> by SOC <unit>" or
 * "<name> by temperature and SOC <unit>". */
static void scaled_tables(FILE *f, const sits_battery_cfg *c, const char *name, const char *unit,
                          double ref, const double (*scale)[SITS_BATTERY_MAX_R_SOC]) {
  double y[SITS_BATTERY_MAX_R_SOC];
  bool by_t = c->n_r_t > 0;
  fprintf(f, "      \"%s by %sSOC %s\": ", name, by_t ? "temperature and " : "", unit);
  if (by_t)
    fputc('{', f);
  for (size_t t = 0; t < (by_t ? c->n_r_t : 1); t++) {
    for (size_t q = 0; q < c->n_r_soc; q++)
      y[q] = ref * scale[t][q];
    if (by_t)
      fprintf(f, "%s\n        \"%.6g\": ", t ? "," : "", c->r_t_c[t] + 273.15);
    table(f, c->r_soc, y, c->n_r_soc);
  }
  fputs(by_t ? "\n      },\n" : ",\n", f);
}

int sits_battery_write_bpx(const sits_battery_cfg *c, const char *title, const char *description,
                           FILE *f, sits_err *err) {
  sits_battery *b = sits_battery_new(c, err); /* checked, and its capacity in Ah per cell */
  if (!b)
    return err->code ? err->code : SITS_EINPUT;
  fprintf(f, "{\n  \"Header\": {\n    \"BPX\": \"%s\",\n    \"Title\": ", BPX_VERSION);
  sits__json_str(f, title ? title : "sitsenergy cell");
  fputs(",\n    \"Description\": ", f);
  sits__json_str(f, description ? description : "");
  fputs(",\n    \"Model\": \"Partial\"\n  },\n  \"Parameterisation\": {\n"
        "    \"User-defined\": {\n      \"description\": \"sitsenergy equivalent-circuit cell "
        "(Thevenin: OCV(SOC[, T]), R0 and RC pairs with an Arrhenius factor); one cell, x = "
        "SOC in [0, 1]; PyBaMM's ECM names where it has them\",\n",
        f);
  fprintf(f, "      \"Nominal cell capacity [A.h]\": %.12g,\n", sits_battery_capacity_ah(b));
  if (c->n_q_t >= 2) { /* x: temperature [K], y: the capacity there [A.h] */
    double x[SITS_BATTERY_MAX_R_T], y[SITS_BATTERY_MAX_R_T];
    for (size_t j = 0; j < c->n_q_t; j++)
      x[j] = c->q_t_c[j] + 273.15, y[j] = sits_battery_capacity_at_ah(b, c->q_t_c[j]);
    fputs("      \"Cell capacity by temperature [A.h]\": ", f);
    table(f, x, y, c->n_q_t);
    fputs(",\n", f);
  }
  fputs("      \"Open-circuit voltage [V]\": ", f);
  table(f, c->ocv_soc, c->ocv_v, c->n_ocv);
  fputs(",\n", f);
  if (c->n_ocv_t >= 2) {
    fputs("      \"Open-circuit voltage by temperature [V]\": {", f);
    for (size_t j = 0; j < c->n_ocv_t; j++) {
      fprintf(f, "%s\n        \"%.6g\": ", j ? "," : "", c->ocv_t_c[j] + 273.15);
      table(f, c->ocv_soc, c->ocv_v_t[j], c->n_ocv);
    }
    fputs("\n      },\n", f);
  }
  fprintf(f, "      \"R0 [Ohm]\": %.12g,\n", c->r0_ohm);
  for (size_t k = 0; k < c->n_rc; k++)
    fprintf(f, "      \"R%zu [Ohm]\": %.12g,\n      \"C%zu [F]\": %.12g,\n", k + 1, c->rc_r_ohm[k],
            k + 1, c->rc_c_f[k]);
  if (c->n_r_soc >= 2) { /* the resistance (and capacitance) tables, as absolute values */
    scaled_tables(f, c, "R0", "[Ohm]", c->r0_ohm, c->r0_scale);
    for (size_t k = 0; k < c->n_rc; k++) {
      char name[32]; /* "R" and a size_t */
      snprintf(name, sizeof name, "R%zu", k + 1);
      if (c->rc_has_scale[k])
        scaled_tables(f, c, name, "[Ohm]", c->rc_r_ohm[k], c->rc_r_scale[k]);
      name[0] = 'C';
      if (c->rc_has_c_scale[k])
        scaled_tables(f, c, name, "[F]", c->rc_c_f[k], c->rc_c_scale[k]);
    }
  }
  if (c->hyst_m_v > 0 || c->hyst_m0_v > 0)
    fprintf(f,
            "      \"Hysteresis magnitude [V]\": %.12g,\n"
            "      \"Hysteresis decay rate\": %.12g,\n"
            "      \"Initial hysteresis state\": %.12g,\n"
            "      \"Instantaneous hysteresis [V]\": %.12g,\n",
            c->hyst_m_v, c->hyst_gamma, c->hyst_initial, c->hyst_m0_v);
  if (c->r_ea_j_per_mol > 0)
    fprintf(f,
            "      \"Resistance activation energy [J.mol-1]\": %.12g,\n"
            "      \"Reference temperature [K]\": %.12g,\n",
            c->r_ea_j_per_mol, c->r_ref_c + 273.15);
  if (isfinite(c->cutoff_v))
    fprintf(f, "      \"Lower voltage cut-off [V]\": %.12g,\n", c->cutoff_v);
  fprintf(f, "      \"Upper voltage cut-off [V]\": %.12g,\n", c->ocv_v[c->n_ocv - 1]);
  fprintf(f, "      \"Coulombic efficiency\": %.12g\n    }\n  }\n}\n", c->coulombic_eff);
  sits_battery_free(b);
  return ferror(f) ? sits__fail(err, SITS_EIO, "write error") : SITS_OK;
}

typedef struct bpx_ctx {
  const sits_battery_cfg *c;
  const char *title, *description;
} bpx_ctx;

static int bpx_writer(const void *p, FILE *f, sits_err *err) {
  const bpx_ctx *x = p;
  return sits_battery_write_bpx(x->c, x->title, x->description, f, err);
}

int sits_battery_write_bpx_file(const sits_battery_cfg *c, const char *title,
                                const char *description, const char *path, sits_err *err) {
  bpx_ctx x = {c, title, description};
  return sits_write_path(path, bpx_writer, &x, err);
}

char *sits_scenario_bpx_text(const sits_scenario *sc, const char *title, sits_err *err) {
  const sits_battery *b = sits_scenario_battery(sc);
  if (!b) {
    sits__fail(err, SITS_EINPUT, "the scenario's platform has no battery");
    return NULL;
  }
  bpx_ctx x = {sits_battery_config(b), title, "exported by sitsenergy"};
  return sits_write_text(bpx_writer, &x, err);
}

/*
 * thermal_orders.c - the network's order chosen from the data (sits_thermal_cal.h,
 * sits_calibrate_thermal_orders): for each order k, a chain from the sensed node to the
 * ambient, S - N2 - ... - Nk - ambient, is calibrated as sits_calibrate_thermal does (same
 * trace, split, options), and the order with the least held-out RMSE wins; a higher order
 * must improve on a lower one by 2 % to be kept (equal fits: the simpler network).
 *
 * A candidate keeps the scenario's replay group and everything else; its thermal group is
 * the chain: S keeps its name (and junction flag), N2 takes the name of S's one neighbour
 * when S has exactly one (so a power column mapped there still lands on it), the others are
 * stage<k>; a power column mapped to a node the chain lacks goes to the chain's last node.
 * Start values: each link R_eq / k (R_eq: the scenario's steady resistance from S to the
 * ambient, by its own network), C_S for S and the scenario's other capacitance shared by the
 * rest. Domains, static power, battery and governor are dropped: a replay leaves them out. A
 * fan on a link to the ambient moves to the chain's link to the ambient (its trip sensor, when
 * the chain lacks it, to S); a fan between two nodes is dropped.
 */
#define _POSIX_C_SOURCE 200809L
#include "sits_netsteady.h"
#include "sits_output.h"
#include "sits_thermal_cal.h"
#include "status_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_impl.h"

/* The one sensed node S (its name), R_eq and the capacitances of S and of the rest. */
static int survey(const sits_scenario *sc, char *s_name, size_t size, char *neighbour,
                  size_t nsize, double *r_eq, double *c_s, double *c_rest, bool *junction,
                  sits_err *err) {
  const config_setting_t *sens = config_lookup(&sc->config.cfg, "replay.sensors");
  const sits_thermal *th = sc->thermal;
  int s = -1;
  for (int k = 0; sens && k < config_setting_length(sens); k++) {
    const char *node = NULL;
    config_setting_lookup_string(config_setting_get_elem(sens, (unsigned)k), "node", &node);
    int i = node ? sits_thermal_find(th, node) : -1;
    if (i < 0 || (s >= 0 && i != s))
      return sits__fail(err, SITS_EINPUT,
                        "--orders fits chains from one sensed node: replay.sensors must all "
                        "measure the same node");
    s = i;
  }
  if (s < 0)
    return sits__fail(err, SITS_EINPUT, "--orders needs replay.sensors on a node");
  snprintf(s_name, size, "%s", sits_thermal_name(th, s));
  *junction = sits_thermal_is_junction(th, s);
  size_t n = sits_thermal_node_count(th);
  *c_s = sits_thermal_capacity_j_per_k(th, s), *c_rest = 0;
  for (size_t i = 0; i < n; i++)
    if ((int)i != s)
      *c_rest += sits_thermal_capacity_j_per_k(th, (int)i);
  neighbour[0] = '\0';
  const config_setting_t *links = config_lookup(&sc->config.cfg, "platform.thermal.links");
  int count = 0;
  for (int l = 0; links && l < config_setting_length(links); l++) {
    const char *a = NULL, *b = NULL;
    const config_setting_t *g = config_setting_get_elem(links, (unsigned)l);
    config_setting_lookup_string(g, "a", &a);
    config_setting_lookup_string(g, "b", &b);
    const char *other = a && strcmp(a, s_name) == 0 ? b : b && strcmp(b, s_name) == 0 ? a : NULL;
    if (other && strcmp(other, "ambient") != 0)
      snprintf(neighbour, nsize, "%s", other), count++;
  }
  if (count != 1)
    neighbour[0] = '\0';
  /* R_eq: 1 W into S, the rest unpowered, at a 0 C ambient */
  double *p = calloc(n, sizeof *p), *t = calloc(n, sizeof *t);
  sits_net_steady *lin = p && t ? sits_net_steady_new(th, NULL, err) : NULL;
  int rc = !p || !t ? sits__fail(err, SITS_ENOMEM, "out of memory") : lin ? SITS_OK : err->code;
  if (rc == SITS_OK) {
    p[s] = 1.0;
    rc = sits_net_steady_solve(lin, p, 0.0, t, err);
    *r_eq = t[s];
  }
  sits_net_steady_free(lin);
  free(p), free(t);
  return rc;
}

static config_setting_t *add_float(config_setting_t *g, const char *name, double v) {
  config_setting_t *s = config_setting_add(g, name, CONFIG_TYPE_FLOAT);
  if (s)
    config_setting_set_float(s, v);
  return s;
}

static config_setting_t *add_string(config_setting_t *g, const char *name, const char *v) {
  config_setting_t *s = config_setting_add(g, name, CONFIG_TYPE_STRING);
  if (s)
    config_setting_set_string(s, v);
  return s;
}

static int config_writer(const void *cfg, FILE *f, sits_err *err) {
  (void)err;
  config_write(cfg, f);
  return SITS_OK;
}

/* The candidate of order @p k as a scenario text (malloc'ed), or NULL. */
static char *candidate(const sits_scenario *sc, int k, const char *s_name, const char *nb,
                       double r_eq, double c_s, double c_rest, bool junction) {
  config_t cfg;
  config_init(&cfg);
  bool ok = config_read_string(&cfg, sits_scenario_config_text(sc)) == CONFIG_TRUE;
  config_setting_t *plat = ok ? config_lookup(&cfg, "platform") : NULL;
  ok = plat != NULL;
  static const char *const drop[] = {"thermal", "domains", "static_w", "static_node", "battery",
                                     "governor", "device_tree", "nvpmodel"};
  for (size_t d = 0; ok && d < sizeof drop / sizeof drop[0]; d++)
    if (config_setting_get_member(plat, drop[d]))
      config_setting_remove(plat, drop[d]);
  char names[3][64];
  for (int i = 0; i < k; i++)
    snprintf(names[i], sizeof names[i], "%s",
             i == 0                ? s_name
             : i == 1 && nb && *nb ? nb
                                   : (i == 1 ? "stage2" : "stage3"));
  config_setting_t *th = ok ? config_setting_add(plat, "thermal", CONFIG_TYPE_GROUP) : NULL;
  config_setting_t *nodes = th ? config_setting_add(th, "nodes", CONFIG_TYPE_LIST) : NULL;
  config_setting_t *links = th ? config_setting_add(th, "links", CONFIG_TYPE_LIST) : NULL;
  ok = nodes && links;
  double c_other = k > 1 ? (c_rest > 0 ? c_rest / (k - 1) : 10 * c_s) : 0;
  for (int i = 0; ok && i < k; i++) {
    config_setting_t *g = config_setting_add(nodes, NULL, CONFIG_TYPE_GROUP);
    ok = g && add_string(g, "name", names[i]) && add_float(g, "c_j_per_k", i ? c_other : c_s);
    if (ok && i == 0 && junction) {
      config_setting_t *j = config_setting_add(g, "junction", CONFIG_TYPE_BOOL);
      ok = j && config_setting_set_bool(j, 1);
    }
    config_setting_t *l = ok ? config_setting_add(links, NULL, CONFIG_TYPE_GROUP) : NULL;
    ok = l && add_string(l, "a", names[i]) && add_string(l, "b", i + 1 < k ? names[i + 1] : "ambient") &&
         add_float(l, "r_k_per_w", r_eq / k);
  }
  /* a fan on a link to the ambient cools the chain's last link; one between two nodes has
   * no place in a chain and is left out */
  config_setting_t *fans = ok ? config_setting_get_member(plat, "fans") : NULL;
  for (int e = fans ? config_setting_length(fans) - 1 : -1; ok && e >= 0; e--) {
    config_setting_t *g = config_setting_get_elem(fans, (unsigned)e);
    const char *a = NULL, *b = NULL;
    config_setting_lookup_string(g, "a", &a);
    config_setting_lookup_string(g, "b", &b);
    bool amb = (a && !strcmp(a, "ambient")) || (b && !strcmp(b, "ambient"));
    config_setting_t *ma = config_setting_get_member(g, "a"), *mb = config_setting_get_member(g, "b");
    if (amb && ma && mb)
      ok = config_setting_set_string(ma, names[k - 1]) && config_setting_set_string(mb, "ambient");
    else
      ok = config_setting_remove_elem(fans, (unsigned)e) == CONFIG_TRUE;
    const char *sensor = NULL; /* a trip sensor the chain lacks reads its first node */
    config_setting_t *ms = amb ? config_setting_get_member(g, "sensor") : NULL;
    if (ok && ms && config_setting_lookup_string(g, "sensor", &sensor)) {
      bool in_chain = false;
      for (int i = 0; i < k; i++)
        in_chain |= strcmp(names[i], sensor) == 0;
      if (!in_chain)
        ok = config_setting_set_string(ms, names[0]);
    }
  }
  /* power into nodes the chain lacks: its last node */
  config_setting_t *pw = ok ? config_lookup(&cfg, "replay.power") : NULL;
  for (int e = 0; pw && e < config_setting_length(pw); e++) {
    config_setting_t *g = config_setting_get_elem(pw, (unsigned)e), *node;
    const char *name = NULL;
    config_setting_lookup_string(g, "node", &name);
    bool in_chain = false;
    for (int i = 0; name && i < k; i++)
      in_chain |= strcmp(names[i], name) == 0;
    if (!in_chain && (node = config_setting_get_member(g, "node")) != NULL)
      config_setting_set_string(node, names[k - 1]);
  }
  sits_err quiet = {0};
  char *text = ok ? sits_write_text(config_writer, &cfg, &quiet) : NULL;
  config_destroy(&cfg);
  return text;
}

static double worst_holdout(const sits_thermal_cal *c) {
  double w = 0;
  for (size_t k = 0; k < c->n_sensors; k++)
    w = fmax(w, c->holdout[k].rmse);
  return w;
}

int sits_calibrate_thermal_orders(const sits_thermal_cal_opts *o, const int *orders,
                                  size_t n_orders, sits_thermal_cal *out, sits_err *err) {
  memset(out, 0, sizeof *out);
  if (o->keep_network)
    return sits__fail(err, SITS_EINPUT, "--orders fits networks: it does not keep the network");
  if (n_orders == 0 || n_orders > SITS_THERMAL_CAL_MAX_ORDERS)
    return sits__fail(err, SITS_EINPUT, "--orders takes 1 to %d orders",
                      SITS_THERMAL_CAL_MAX_ORDERS);
  for (size_t k = 0; k < n_orders; k++)
    if (orders[k] < 1 || orders[k] > 3)
      return sits__fail(err, SITS_EINPUT, "--orders: order %d is not 1, 2 or 3", orders[k]);
  sits_scenario *sc = NULL;
  int rc = o->scenario_text
               ? sits_scenario_load_text(o->scenario_text, o->scenario_path, o->sets, o->n_sets,
                                         &sc, err)
               : sits_scenario_load(o->scenario_path, o->sets, o->n_sets, &sc, err);
  char s_name[64], nb[64];
  double r_eq = NAN, c_s = NAN, c_rest = NAN;
  bool junction = false;
  if (rc == SITS_OK)
    rc = survey(sc, s_name, sizeof s_name, nb, sizeof nb, &r_eq, &c_s, &c_rest, &junction, err);
  sits_thermal_cal *cand = rc ? NULL : calloc(1, sizeof *cand);
  if (rc == SITS_OK && !cand)
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  double best = INFINITY;
  sits_thermal_order_fig figs[SITS_THERMAL_CAL_MAX_ORDERS];
  size_t folds = o->kfold > 1 ? o->kfold : 0;
  if (rc == SITS_OK && folds > 20)
    rc = sits__fail(err, SITS_EINPUT, "--kfold takes 2 to 20 folds (got %zu)", folds);
  for (size_t k = 0; rc == SITS_OK && k < n_orders; k++) {
    char *text = candidate(sc, orders[k], s_name, nb, r_eq, c_s, c_rest, junction);
    char name[4200];
    snprintf(name, sizeof name, "%s (order %d)", o->scenario_path, orders[k]);
    sits_thermal_cal_opts oc = *o;
    oc.scenario_path = name, oc.scenario_text = text, oc.sets = NULL, oc.n_sets = 0;
    oc.hold_from = oc.hold_to = 0;
    /* k-fold: each of the folds' blocks held out in turn; the mean of the worst sensor's */
    double kf = 0;
    for (size_t f = 0; rc == SITS_OK && text && f < folds; f++) {
      sits_thermal_cal_opts of = oc;
      of.hold_from = (double)f / (double)folds, of.hold_to = (double)(f + 1) / (double)folds;
      if ((rc = sits_calibrate_thermal(&of, cand, err)) == SITS_OK) {
        kf += worst_holdout(cand) / (double)folds;
        sits_thermal_cal_release(cand);
      }
    }
    if (rc == SITS_OK)
      rc = text ? sits_calibrate_thermal(&oc, cand, err)
                : sits__fail(err, SITS_ENOMEM, "cannot build the order-%d candidate", orders[k]);
    if (rc == SITS_OK) {
      double h = worst_holdout(cand), score = folds ? kf : h;
      figs[k] = (sits_thermal_order_fig){orders[k], cand->train[0].rmse, h, cand->n_flags,
                                         folds ? kf : NAN};
      if (score < 0.98 * best) { /* the winner so far (a higher order must gain 2 %): kept */
        best = score;
        sits_thermal_cal_release(out);
        *out = *cand;
        out->order = orders[k];
      } else
        sits_thermal_cal_release(cand);
    }
    free(text);
  }
  if (rc == SITS_OK) {
    out->n_orders = n_orders;
    memcpy(out->orders, figs, n_orders * sizeof figs[0]);
  } else
    sits_thermal_cal_release(out);
  free(cand);
  sits_scenario_free(sc);
  return rc;
}

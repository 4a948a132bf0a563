/*
 * thermal_orders.c - the network's order chosen from the data (sits_thermal_cal.h,
 * sits_calibrate_thermal_orders): for each order k, a chain of k nodes from each sensed node
 * to the ambient, S - N2 - ... - Nk - ambient, is calibrated as sits_calibrate_thermal does
 * (same trace, split, options), and the candidate with the least validation RMSE wins: the
 * training rows' last quarter held out from a fit on the first three quarters, or with k-fold
 * the mean over k equal blocks of the training rows each held out in turn (the held-out tail
 * takes no part in the choice; its figures are reported). The orders are tried from the simplest,
 * each once, and a later candidate must improve on the best so far by 2 % to be kept (equal
 * fits: the simpler network). With sensors on two or more
 * nodes each order is tried twice: the chains each to the ambient, and the chains joined at one
 * shared node ("board": the carrier board or heatsink they share) that alone reaches the ambient.
 *
 * A candidate keeps the scenario's replay group and everything else; its thermal group is
 * the chains: each S keeps its name (and junction flag), its N2 takes the name of S's one
 * neighbour when S has exactly one and no other chain claims it, the others are stage<k>
 * (<S>_stage<k> with several sensed nodes). A power column mapped to a node the candidate
 * lacks goes to the board node, or without one to the last node of the chain from the sensed
 * node nearest to it in the scenario's network (fewest links). Start values: each chain's
 * links R_eq / k (R_eq: the scenario's steady resistance from S to the ambient, by its own
 * network; / (k + 1) with the board node, which takes the least of them / (k + 1)), C_S for
 * each S and the scenario's other capacitance shared by the rest. Static power, battery and
 * governor are dropped: a replay leaves them out; so are the domains, unless the replay
 * models some (replay.domains), whose nodes then move as a power column's. A fan on a link to the
 * ambient moves to the candidate's link to the ambient (the board's, or the chain's whose node its
 * trips read, else the first chain's; its trip sensor, when the candidate lacks it, to the
 * first S); a fan between two nodes is dropped.
 */
#define _POSIX_C_SOURCE 200809L
#include "sits_netsteady.h"
#include "sits_output.h"
#include "sits_thermal_cal.h"
#include "status_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_internal.h"
#include "thermal_internal.h"

#define MAX_SENSED 8

/* A sensed node: its name, its one neighbour's (or ""), R_eq, C and junction flag. */
typedef struct sensed {
  char name[64], neighbour[64];
  int index;
  double r_eq, c;
  bool junction;
} sensed;

/* The scenario's network as the candidates need it: the sensed nodes, the capacitance of the
 * others, and the node count. */
typedef struct survey_t {
  sensed s[MAX_SENSED];
  size_t m;
  double c_rest;
} survey_t;

/* The other end of link @p l of @p links when one of its ends is @p name, else NULL. */
static const char *other_end(const config_setting_t *links, int l, const char *name) {
  const char *a = NULL, *b = NULL;
  const config_setting_t *g = config_setting_get_elem(links, (unsigned)l);
  config_setting_lookup_string(g, "a", &a);
  config_setting_lookup_string(g, "b", &b);
  return a && strcmp(a, name) == 0 ? b : b && strcmp(b, name) == 0 ? a : NULL;
}

/* The one neighbour of node @p name in @p links (its name into out; "" for none or several). */
static void one_neighbour(const config_setting_t *links, const char *name, char *out, size_t size) {
  int count = 0;
  out[0] = '\0';
  for (int l = 0; links && l < config_setting_length(links); l++) {
    const char *other = other_end(links, l, name);
    if (other && strcmp(other, "ambient") != 0)
      snprintf(out, size, "%s", other), count++;
  }
  if (count != 1)
    out[0] = '\0';
}

/* The distinct nodes replay.sensors measure, each with its R_eq (1 W into it alone, the rest
 * unpowered, at a 0 C ambient), and the others' capacitance. */
static int survey(const sits_scenario *sc, survey_t *sv, sits_err *err) {
  const config_setting_t *sens = config_lookup(sits__scenario_cfg(sc), "replay.sensors");
  const sits_thermal *th = sits_scenario_thermal(sc);
  memset(sv, 0, sizeof *sv);
  for (int k = 0; sens && k < config_setting_length(sens); k++) {
    const char *node = NULL;
    config_setting_lookup_string(config_setting_get_elem(sens, (unsigned)k), "node", &node);
    int i = node ? sits_thermal_find(th, node) : -1;
    bool seen = false;
    for (size_t j = 0; j < sv->m; j++)
      seen |= sv->s[j].index == i;
    if (i < 0 || seen)
      continue;
    if (sv->m == MAX_SENSED)
      return sits__fail(err, SITS_EINPUT, "--orders fits chains from at most %d sensed nodes",
                        MAX_SENSED);
    sensed *e = &sv->s[sv->m++];
    e->index = i;
    snprintf(e->name, sizeof e->name, "%s", sits_thermal_name(th, i));
    e->junction = sits_thermal_is_junction(th, i);
    e->c = sits_thermal_capacity_j_per_k(th, i);
  }
  if (sv->m == 0)
    return sits__fail(err, SITS_EINPUT, "--orders needs replay.sensors on a node");
  size_t n = sits_thermal_node_count(th);
  for (size_t i = 0; i < n; i++) {
    bool is_sensed = false;
    for (size_t j = 0; j < sv->m; j++)
      is_sensed |= sv->s[j].index == (int)i;
    if (!is_sensed)
      sv->c_rest += sits_thermal_capacity_j_per_k(th, (int)i);
  }
  const config_setting_t *links = config_lookup(sits__scenario_cfg(sc), "platform.thermal.links");
  for (size_t j = 0; j < sv->m; j++) {
    one_neighbour(links, sv->s[j].name, sv->s[j].neighbour, sizeof sv->s[j].neighbour);
    for (size_t o = 0; o < sv->m; o++) /* a sensed node is its own chain's, not another's N2 */
      if (!strcmp(sv->s[j].neighbour, sv->s[o].name))
        sv->s[j].neighbour[0] = '\0';
    for (size_t o = 0; o < j; o++) /* nor two chains' */
      if (sv->s[j].neighbour[0] && !strcmp(sv->s[j].neighbour, sv->s[o].neighbour))
        sv->s[j].neighbour[0] = sv->s[o].neighbour[0] = '\0';
  }
  double *p = calloc(n, sizeof *p), *t = calloc(n, sizeof *t);
  sits_net_steady *lin = p && t ? sits_net_steady_new(th, NULL, err) : NULL;
  int rc = !p || !t ? sits__fail(err, SITS_ENOMEM, "out of memory") : lin ? SITS_OK : err->code;
  for (size_t j = 0; rc == SITS_OK && j < sv->m; j++) {
    memset(p, 0, n * sizeof *p);
    p[sv->s[j].index] = 1.0;
    rc = sits_net_steady_solve(lin, p, 0.0, t, err);
    sv->s[j].r_eq = t[sv->s[j].index];
  }
  sits_net_steady_free(lin);
  free(p), free(t);
  return rc;
}

/* The sensed node (index into sv) nearest to node @p name in the scenario's network, by the
 * fewest links (breadth first); 0 when none is reachable. */
static size_t nearest_sensed(const sits_scenario *sc, const survey_t *sv, const char *name) {
  const sits_thermal *th = sits_scenario_thermal(sc);
  const config_setting_t *links = config_lookup(sits__scenario_cfg(sc), "platform.thermal.links");
  size_t n = sits_thermal_node_count(th);
  int start = sits_thermal_find(th, name);
  int *dist = malloc(n * sizeof *dist), *queue = malloc(n * sizeof *queue);
  size_t best = 0;
  if (!dist || !queue || start < 0) {
    free(dist), free(queue);
    return 0;
  }
  for (size_t i = 0; i < n; i++)
    dist[i] = -1;
  size_t head = 0, tail = 0;
  dist[start] = 0, queue[tail++] = start;
  int best_d = -1;
  while (head < tail) {
    int u = queue[head++];
    for (size_t j = 0; j < sv->m; j++)
      if (sv->s[j].index == u && (best_d < 0 || dist[u] < best_d))
        best = j, best_d = dist[u];
    for (int l = 0; links && l < config_setting_length(links); l++) {
      const char *other = other_end(links, l, sits_thermal_name(th, u));
      int v = other ? sits_thermal_find(th, other) : -1;
      if (v >= 0 && dist[v] < 0)
        dist[v] = dist[u] + 1, queue[tail++] = v;
    }
  }
  free(dist), free(queue);
  return best;
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

/* A fan on a link to the ambient cools the candidate's (see the comment inside); false when
 * the configuration could not be changed. */
static bool move_fans(config_setting_t *plat, const char (*names)[3][80], size_t m, int k,
                      bool board, const char *board_name) {
  /* a fan on a link to the ambient cools the candidate's: the board's, else the chain's whose
   * node its trips read (else the first chain's); one between two nodes has no place here */
  config_setting_t *fans = config_setting_get_member(plat, "fans");
  bool ok = true;
  for (int e = fans ? config_setting_length(fans) - 1 : -1; ok && e >= 0; e--) {
    config_setting_t *g = config_setting_get_elem(fans, (unsigned)e);
    const char *a = NULL, *b = NULL, *sensor = NULL;
    config_setting_lookup_string(g, "a", &a);
    config_setting_lookup_string(g, "b", &b);
    config_setting_lookup_string(g, "sensor", &sensor);
    bool amb = (a && !strcmp(a, "ambient")) || (b && !strcmp(b, "ambient"));
    config_setting_t *ma = config_setting_get_member(g, "a"),
                     *mb = config_setting_get_member(g, "b");
    size_t chain = 0;
    bool in_candidate = false;
    for (size_t c = 0; sensor && c < m; c++)
      for (int i = 0; i < k; i++)
        if (!strcmp(names[c][i], sensor))
          chain = c, in_candidate = true;
    in_candidate |= board && sensor && !strcmp(sensor, board_name);
    if (amb && ma && mb)
      ok = config_setting_set_string(ma, board ? board_name : names[chain][k - 1]) &&
           config_setting_set_string(mb, "ambient");
    else
      ok = config_setting_remove_elem(fans, (unsigned)e) == CONFIG_TRUE;
    config_setting_t *ms = amb ? config_setting_get_member(g, "sensor") : NULL;
    if (ok && ms && !in_candidate) /* a trip sensor the candidate lacks reads the first S */
      ok = config_setting_set_string(ms, names[0][0]);
  }
  return ok;
}

/* Power mapped into nodes the candidate lacks moves to the candidate's (see inside). */
static void move_heat(config_t *cfg, config_setting_t *plat, bool modelled, const sits_scenario *sc,
                      const survey_t *sv, const char (*names)[3][80], int k, bool board,
                      const char *board_name) {
  /* power into nodes the candidate lacks (a column's or a modelled domain's): the board, else
   * the nearest sensed node's chain end */
  size_t m = sv->m;
  config_setting_t *heat[2] = {config_lookup(cfg, "replay.power"),
                               modelled ? config_setting_get_member(plat, "domains") : NULL};
  for (int h = 0; h < 2; h++)
    for (int e = 0; heat[h] && e < config_setting_length(heat[h]); e++) {
      config_setting_t *g = config_setting_get_elem(heat[h], (unsigned)e), *node;
      const char *name = NULL;
      config_setting_lookup_string(g, "node", &name);
      bool in_candidate = board && name && !strcmp(name, board_name);
      for (size_t c = 0; name && c < m; c++)
        for (int i = 0; i < k; i++)
          in_candidate |= strcmp(names[c][i], name) == 0;
      if (!in_candidate && name && (node = config_setting_get_member(g, "node")) != NULL) {
        char to[80];
        snprintf(to, sizeof to, "%s",
                 board ? board_name : names[nearest_sensed(sc, sv, name)][k - 1]);
        config_setting_set_string(node, to);
      }
    }
}

/* The candidate of order @p k (with a shared board node when @p board) as a scenario text
 * (malloc'ed), or NULL. */
static char *candidate(const sits_scenario *sc, const survey_t *sv, int k, bool board) {
  config_t cfg;
  config_init(&cfg);
  bool ok = config_read_string(&cfg, sits_scenario_config_text(sc)) == CONFIG_TRUE;
  config_setting_t *plat = ok ? config_lookup(&cfg, "platform") : NULL;
  ok = plat != NULL;
  /* modelled domains (replay.domains) heat the candidate too: they stay, the rest go */
  bool modelled = config_lookup(&cfg, "replay.domains") != NULL;
  static const char *const drop[] = {"thermal", "domains",  "static_w",    "static_node",
                                     "battery", "governor", "device_tree", "nvpmodel"};
  for (size_t d = 0; ok && d < sizeof drop / sizeof drop[0]; d++)
    if (config_setting_get_member(plat, drop[d]) && !(modelled && !strcmp(drop[d], "domains")))
      config_setting_remove(plat, drop[d]);
  size_t m = sv->m;
  char names[MAX_SENSED][3][80], board_name[80] = "board";
  for (size_t c = 0; c < m; c++)
    for (int i = 0; i < k; i++) {
      if (i == 0)
        snprintf(names[c][i], sizeof names[c][i], "%s", sv->s[c].name);
      else if (i == 1 && sv->s[c].neighbour[0])
        snprintf(names[c][i], sizeof names[c][i], "%s", sv->s[c].neighbour);
      else if (m == 1)
        snprintf(names[c][i], sizeof names[c][i], "stage%d", i + 1);
      else
        snprintf(names[c][i], sizeof names[c][i], "%s_stage%d", sv->s[c].name, i + 1);
      if (!strcmp(names[c][i], board_name))
        snprintf(board_name, sizeof board_name, "shared_board");
    }
  double r_min = INFINITY;
  for (size_t c = 0; c < m; c++)
    r_min = fmin(r_min, sv->s[c].r_eq);
  size_t n_other = m * (size_t)(k - 1) + (board ? 1 : 0);
  double c_max = 0;
  for (size_t c = 0; c < m; c++)
    c_max = fmax(c_max, sv->s[c].c);
  double c_other = n_other ? (sv->c_rest > 0 ? sv->c_rest / (double)n_other : 10 * c_max) : 0;
  double split = board ? k + 1 : k;
  config_setting_t *th = ok ? config_setting_add(plat, "thermal", CONFIG_TYPE_GROUP) : NULL;
  config_setting_t *nodes = th ? config_setting_add(th, "nodes", CONFIG_TYPE_LIST) : NULL;
  config_setting_t *links = th ? config_setting_add(th, "links", CONFIG_TYPE_LIST) : NULL;
  ok = nodes && links;
  for (size_t c = 0; ok && c < m; c++)
    for (int i = 0; ok && i < k; i++) {
      config_setting_t *g = config_setting_add(nodes, NULL, CONFIG_TYPE_GROUP);
      ok = g && add_string(g, "name", names[c][i]) &&
           add_float(g, "c_j_per_k", i ? c_other : sv->s[c].c);
      if (ok && i == 0 && sv->s[c].junction) {
        config_setting_t *j = config_setting_add(g, "junction", CONFIG_TYPE_BOOL);
        ok = j && config_setting_set_bool(j, 1);
      }
      const char *next = i + 1 < k ? names[c][i + 1] : board ? board_name : "ambient";
      config_setting_t *l = ok ? config_setting_add(links, NULL, CONFIG_TYPE_GROUP) : NULL;
      ok = l && add_string(l, "a", names[c][i]) && add_string(l, "b", next) &&
           add_float(l, "r_k_per_w", sv->s[c].r_eq / split);
    }
  if (ok && board) {
    config_setting_t *g = config_setting_add(nodes, NULL, CONFIG_TYPE_GROUP);
    config_setting_t *l = g ? config_setting_add(links, NULL, CONFIG_TYPE_GROUP) : NULL;
    ok = g && l && add_string(g, "name", board_name) && add_float(g, "c_j_per_k", c_other) &&
         add_string(l, "a", board_name) && add_string(l, "b", "ambient") &&
         add_float(l, "r_k_per_w", r_min / split);
  }
  ok = ok && move_fans(plat, (const char(*)[3][80])names, m, k, board, board_name);
  if (ok)
    move_heat(&cfg, plat, modelled, sc, sv, (const char(*)[3][80])names, k, board, board_name);
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

/* What a candidate is chosen on, never the held-out tail: with k-fold the mean over k equal
 * blocks of the training rows, each held out in turn, of the worst sensor's RMSE (*kf);
 * without, that RMSE on the training rows' last quarter fitted on the first three (*val). */
static int choice_figures(const sits_thermal_cal_opts *o, const sits_thermal_cal_opts *oc,
                          size_t folds, sits_thermal_cal *cand, double *kf, double *val,
                          size_t *fitted, size_t fits, sits_err *err) {
  double tf = o->train_fraction > 0 ? o->train_fraction : 0.7;
  int rc = SITS_OK;
  for (size_t f = 0; rc == SITS_OK && f < (folds ? folds : 1); f++) {
    sits_thermal_cal_opts of = *oc;
    of.use_to = tf;
    of.hold_from = folds ? tf * (double)f / (double)folds : 0.75 * tf;
    of.hold_to = folds ? tf * (double)(f + 1) / (double)folds : tf;
    sits_err ve = {0}; /* a validation block that cannot be fitted leaves *val NAN */
    int r = sits_calibrate_thermal(&of, cand, folds ? err : &ve);
    if (folds)
      rc = r;
    if (r == SITS_OK) {
      if (folds)
        *kf += worst_holdout(cand) / (double)folds;
      else
        *val = worst_holdout(cand);
      sits_thermal_cal_release(cand);
    }
    if (o->progress)
      o->progress(++*fitted, fits, NAN, o->progress_user);
  }
  return rc;
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
  /* from the simplest, each once: the 2 % a later candidate must gain then favours the smaller
   * network, whatever order the list gave them in (3,2,1 chose 3 where 1,2,3 chose 1) */
  int sorted[SITS_THERMAL_CAL_MAX_ORDERS];
  size_t n_sorted = 0;
  for (int k = 1; k <= 3; k++)
    for (size_t j = 0; j < n_orders; j++)
      if (orders[j] == k) {
        sorted[n_sorted++] = k;
        break;
      }
  orders = sorted, n_orders = n_sorted;
  sits_scenario *sc = NULL;
  int rc = sits__cal_scenario(o, o->sets, o->n_sets, &sc, err);
  survey_t *sv = rc ? NULL : malloc(sizeof *sv);
  if (rc == SITS_OK)
    rc = sv ? survey(sc, sv, err) : sits__fail(err, SITS_ENOMEM, "out of memory");
  sits_thermal_cal *cand = rc ? NULL : calloc(1, sizeof *cand);
  if (rc == SITS_OK && !cand)
    rc = sits__fail(err, SITS_ENOMEM, "out of memory");
  double best = INFINITY;
  sits_thermal_order_fig figs[SITS_THERMAL_CAL_MAX_CANDIDATES];
  size_t n_figs = 0;
  size_t folds = o->kfold > 1 ? o->kfold : 0;
  if (rc == SITS_OK && folds > 20)
    rc = sits__fail(err, SITS_EINPUT, "--kfold takes 2 to 20 folds (got %zu)", folds);
  /* each order, then with several sensed nodes the same order joined at a board node */
  size_t per_order = rc == SITS_OK && sv->m > 1 ? 2 : 1;
  size_t fits = n_orders * per_order * (folds ? folds + 1 : 2), fitted = 0; /* progress */
  for (size_t q = 0; rc == SITS_OK && q < n_orders * per_order; q++) {
    int k = orders[q / per_order];
    bool board = q % per_order == 1;
    char *text = candidate(sc, sv, k, board);
    char name[4200];
    snprintf(name, sizeof name, "%s (order %d%s)", o->scenario_path, k, board ? ", board" : "");
    sits_thermal_cal_opts oc = *o;
    oc.scenario_path = name, oc.scenario_text = text, oc.sets = NULL, oc.n_sets = 0;
    oc.hold_from = oc.hold_to = 0;
    oc.progress = NULL; /* the candidates' fits are counted here, not their scans */
    double kf = 0, val = NAN;
    if (text)
      rc = choice_figures(o, &oc, folds, cand, &kf, &val, &fitted, fits, err);
    if (rc == SITS_OK)
      rc = text ? sits_calibrate_thermal(&oc, cand, err)
                : sits__fail(err, SITS_ENOMEM, "cannot build the order-%d candidate", k);
    if (rc == SITS_OK && o->progress)
      o->progress(++fitted, fits, NAN, o->progress_user);
    if (rc == SITS_OK) {
      double h = worst_holdout(cand), score = folds ? kf : val;
      if (isnan(score)) /* the validation fit failed: it wins only where no other is scored */
        score = 1e300;
      figs[n_figs++] = (sits_thermal_order_fig){
          k, cand->train[0].rmse, h, cand->n_flags, folds ? kf : NAN, board, val};
      if (score < 0.98 * best) { /* the winner so far (a later candidate must gain 2 %) */
        best = score;
        sits_thermal_cal_release(out);
        *out = *cand;
        out->order = k, out->board = board;
      } else
        sits_thermal_cal_release(cand);
    }
    free(text);
  }
  if (rc == SITS_OK) {
    out->n_orders = n_figs;
    memcpy(out->orders, figs, n_figs * sizeof figs[0]);
  } else
    sits_thermal_cal_release(out);
  free(cand), free(sv);
  sits_scenario_free(sc);
  return rc;
}

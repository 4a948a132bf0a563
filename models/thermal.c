/*
 * thermal.c - the thermal RC network (see sits_thermal.h for the equations).
 *
 * The right-hand side loops over links, not over a matrix: each link moves heat
 * g_ab (T_a - T_b) [W] from a to b, which keeps the cost linear in the link count.
 */
#define _POSIX_C_SOURCE 200809L
#include "sits_thermal.h"
#include "status_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct node {
  char *name;
  double c_j_per_k;
  double inv_c_k_per_j;
  double initial_c;
  double critical_c;
  double g_amb_w_per_k;
  bool junction;
} node;

typedef struct link {
  int a, b;
  double g_w_per_k;
} link;

/* A link as it was added: its ends, resistance, and its entry in links (-1: to ambient). */
typedef struct added {
  int a, b;
  double r_k_per_w;
  long link;
} added;

typedef struct alias {
  char *name;
  int node;
} alias;

/* Node names, packed one after another in blocks that never move (a 64 x 64 grid names
 * 16,384 cells: one allocation per 64 kB instead of one per name) */
typedef struct name_block {
  struct name_block *next;
  size_t used, cap;
  char data[];
} name_block;

#define NAME_BLOCK_BYTES 65536

struct sits_thermal {
  name_block *names;
  node *nodes;
  size_t n_nodes, cap_nodes;
  alias *aliases; /* other names of nodes (a floorplan block's cell), searched after nodes */
  size_t n_aliases;
  int *index;        /* open-addressing hash of node names -> node + 1 (0: empty) */
  size_t index_size; /* a power of two, at least twice the node count */
  link *links;
  size_t n_links, cap_links;
  added *added; /* every sits_thermal_add_link call, in order (links to ambient included) */
  size_t n_added, cap_added;
};

sits_thermal *sits_thermal_new(void) {
  return calloc(1, sizeof(sits_thermal));
}

void sits_thermal_free(sits_thermal *th) {
  if (!th)
    return;
  for (name_block *b = th->names, *next; b; b = next)
    next = b->next, free(b);
  free(th->nodes);
  for (size_t k = 0; k < th->n_aliases; k++)
    free(th->aliases[k].name);
  free(th->aliases);
  free(th->links);
  free(th->added);
  free(th->index);
  free(th);
}

/* A copy of @p name that lives as long as @p th, or NULL when out of memory */
static char *name_copy(sits_thermal *th, const char *name) {
  size_t len = strlen(name) + 1;
  name_block *b = th->names;
  if (!b || b->cap - b->used < len) {
    size_t cap = len > NAME_BLOCK_BYTES ? len : NAME_BLOCK_BYTES;
    if (!(b = malloc(sizeof *b + cap)))
      return NULL;
    b->next = th->names, b->used = 0, b->cap = cap;
    th->names = b;
  }
  char *out = b->data + b->used;
  memcpy(out, name, len);
  b->used += len;
  return out;
}

static size_t name_hash(const char *s) { /* FNV-1a */
  size_t h = 1469598103934665603u;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211u;
  return h;
}

static void index_put(int *index, size_t size, const char *name, int node) {
  size_t k = name_hash(name) & (size - 1);
  while (index[k])
    k = (k + 1) & (size - 1);
  index[k] = node + 1;
}

/* Keeps the index at most half full, rebuilding it when it grows. */
static int index_reserve(sits_thermal *th, size_t n_nodes) {
  if (2 * n_nodes <= th->index_size)
    return 0;
  size_t size = th->index_size ? 2 * th->index_size : 64;
  while (size < 2 * n_nodes)
    size *= 2;
  int *index = calloc(size, sizeof *index);
  if (!index)
    return -1;
  for (size_t i = 0; i < th->n_nodes; i++)
    index_put(index, size, th->nodes[i].name, (int)i);
  free(th->index);
  th->index = index;
  th->index_size = size;
  return 0;
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap)
    return 0;
  size_t ncap = *cap ? *cap * 2 : 16;
  while (ncap < need)
    ncap *= 2;
  void *p = realloc(*arr, ncap * elem);
  if (!p)
    return -1;
  *arr = p;
  *cap = ncap;
  return 0;
}

int sits_thermal_reserve(sits_thermal *th, size_t n_nodes, size_t n_links, sits_err *err) {
  if (grow((void **)&th->nodes, &th->cap_nodes, n_nodes, sizeof(node)) ||
      index_reserve(th, n_nodes) ||
      grow((void **)&th->links, &th->cap_links, n_links, sizeof(link)) ||
      grow((void **)&th->added, &th->cap_added, n_links, sizeof(added)))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  return SITS_OK;
}

int sits_thermal_add_node(sits_thermal *th, const char *name, double c_j_per_k, sits_err *err) {
  if (!name || !*name)
    return sits__fail(err, SITS_EINPUT, "node name is empty");
  if (strcmp(name, "ambient") == 0)
    return sits__fail(err, SITS_EINPUT, "'ambient' is reserved for the boundary");
  if (strpbrk(name, "/,\" \t\r\n"))
    return sits__fail(err, SITS_EINPUT,
                      "node name '%s' has a character that cannot name an output column "
                      "(/ , \" or white space)",
                      name);
  if (sits_thermal_find(th, name) >= 0)
    return sits__fail(err, SITS_EINPUT, "duplicate node '%s'", name);
  if (!(c_j_per_k > 0) || !isfinite(c_j_per_k))
    return sits__fail(err, SITS_EINPUT, "node '%s': c_j_per_k must be > 0 (got %g)", name,
                      c_j_per_k);
  if (grow((void **)&th->nodes, &th->cap_nodes, th->n_nodes + 1, sizeof(node)) ||
      index_reserve(th, th->n_nodes + 1))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  node *nd = &th->nodes[th->n_nodes];
  memset(nd, 0, sizeof *nd);
  nd->name = name_copy(th, name);
  if (!nd->name)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  nd->c_j_per_k = c_j_per_k;
  nd->inv_c_k_per_j = 1.0 / c_j_per_k;
  nd->initial_c = NAN;
  nd->critical_c = NAN;
  index_put(th->index, th->index_size, name, (int)th->n_nodes);
  return (int)th->n_nodes++;
}

void sits_thermal_set_initial_c(sits_thermal *th, int i, double initial_c) {
  th->nodes[i].initial_c = initial_c;
}
void sits_thermal_set_junction(sits_thermal *th, int i, bool junction) {
  th->nodes[i].junction = junction;
}
void sits_thermal_set_critical_c(sits_thermal *th, int i, double critical_c) {
  th->nodes[i].critical_c = critical_c;
}

int sits_thermal_add_link(sits_thermal *th, int a, int b, double r_k_per_w, sits_err *err) {
  int n = (int)th->n_nodes;
  if (a < 0 || a >= n || b < SITS_AMBIENT || b >= n)
    return sits__fail(err, SITS_EINPUT, "link names a node that does not exist");
  if (a == b)
    return sits__fail(err, SITS_EINPUT, "link from '%s' to itself", th->nodes[a].name);
  if (!(r_k_per_w > 0) || !isfinite(r_k_per_w))
    return sits__fail(err, SITS_EINPUT, "r_k_per_w must be > 0 (got %g)", r_k_per_w);
  double g = 1.0 / r_k_per_w;
  if (grow((void **)&th->added, &th->cap_added, th->n_added + 1, sizeof(added)))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  if (b == SITS_AMBIENT) {
    th->added[th->n_added++] = (added){a, b, r_k_per_w, -1};
    th->nodes[a].g_amb_w_per_k += g;
    return SITS_OK;
  }
  if (grow((void **)&th->links, &th->cap_links, th->n_links + 1, sizeof(link)))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  th->added[th->n_added++] = (added){a, b, r_k_per_w, (long)th->n_links};
  th->links[th->n_links++] = (link){a, b, g};
  return SITS_OK;
}

int sits_thermal_set_link_r(sits_thermal *th, size_t k, double r_k_per_w, sits_err *err) {
  if (k >= th->n_added)
    return sits__fail(err, SITS_EINPUT, "no link %zu (the network has %zu)", k, th->n_added);
  if (!(r_k_per_w > 0) || !isfinite(r_k_per_w))
    return sits__fail(err, SITS_EINPUT, "r_k_per_w must be > 0 (got %g)", r_k_per_w);
  added *l = &th->added[k];
  l->r_k_per_w = r_k_per_w;
  if (l->link >= 0) {
    th->links[l->link].g_w_per_k = 1.0 / r_k_per_w;
    return SITS_OK;
  }
  /* the node's conductance to ambient summed again in the order the links were added, so
   * that it equals a network built with this resistance to the last bit */
  double g = 0;
  for (size_t j = 0; j < th->n_added; j++)
    if (th->added[j].link < 0 && th->added[j].a == l->a)
      g += 1.0 / th->added[j].r_k_per_w;
  th->nodes[l->a].g_amb_w_per_k = g;
  return SITS_OK;
}

double sits_thermal_link_r_k_per_w(const sits_thermal *th, size_t k) {
  return k < th->n_added ? th->added[k].r_k_per_w : NAN;
}

int sits_thermal_link_ends(const sits_thermal *th, size_t k, int *a, int *b) {
  if (k >= th->n_added)
    return SITS_EINPUT;
  *a = th->added[k].a;
  *b = th->added[k].link < 0 ? SITS_AMBIENT : th->added[k].b;
  return SITS_OK;
}

int sits_thermal_set_capacity(sits_thermal *th, int i, double c_j_per_k, sits_err *err) {
  if (i < 0 || (size_t)i >= th->n_nodes)
    return sits__fail(err, SITS_EINPUT, "no node %d (the network has %zu)", i, th->n_nodes);
  if (!(c_j_per_k > 0) || !isfinite(c_j_per_k))
    return sits__fail(err, SITS_EINPUT, "node '%s': c_j_per_k must be > 0 (got %g)",
                      th->nodes[i].name, c_j_per_k);
  th->nodes[i].c_j_per_k = c_j_per_k;
  th->nodes[i].inv_c_k_per_j = 1.0 / c_j_per_k;
  return SITS_OK;
}

size_t sits_thermal_node_count(const sits_thermal *th) {
  return th->n_nodes;
}
size_t sits_thermal_link_count(const sits_thermal *th) {
  return th->n_links;
}

int sits_thermal_find(const sits_thermal *th, const char *name) {
  if (!th->index_size)
    return -1;
  for (size_t k = name_hash(name) & (th->index_size - 1); th->index[k];
       k = (k + 1) & (th->index_size - 1))
    if (strcmp(th->nodes[th->index[k] - 1].name, name) == 0)
      return th->index[k] - 1;
  for (size_t k = 0; k < th->n_aliases; k++)
    if (strcmp(th->aliases[k].name, name) == 0)
      return th->aliases[k].node;
  return -1;
}

int sits_thermal_add_alias(sits_thermal *th, const char *name, int node, sits_err *err) {
  if (node < 0 || (size_t)node >= th->n_nodes)
    return sits__fail(err, SITS_EINPUT, "alias '%s' names a node that does not exist", name);
  if (sits_thermal_find(th, name) >= 0)
    return sits__fail(err, SITS_EINPUT, "'%s' is already a node name", name);
  alias *a = realloc(th->aliases, (th->n_aliases + 1) * sizeof *a);
  if (!a)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  th->aliases = a;
  if (!(a[th->n_aliases].name = strdup(name)))
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  a[th->n_aliases++].node = node;
  return SITS_OK;
}

const char *sits_thermal_name(const sits_thermal *th, int i) {
  return th->nodes[i].name;
}
double sits_thermal_capacity_j_per_k(const sits_thermal *th, int i) {
  return th->nodes[i].c_j_per_k;
}
double sits_thermal_initial_c(const sits_thermal *th, int i) {
  return th->nodes[i].initial_c;
}
bool sits_thermal_is_junction(const sits_thermal *th, int i) {
  return th->nodes[i].junction;
}
double sits_thermal_critical_c(const sits_thermal *th, int i) {
  return th->nodes[i].critical_c;
}
double sits_thermal_ambient_conductance_w_per_k(const sits_thermal *th, int i) {
  return th->nodes[i].g_amb_w_per_k;
}

bool sits_thermal_has_junctions(const sits_thermal *th) {
  for (size_t i = 0; i < th->n_nodes; i++)
    if (th->nodes[i].junction)
      return true;
  return false;
}

void sits_thermal_derivative(const sits_thermal *th, const double *temp_c, const double *power_w,
                             double ambient_c, double *dtemp_dt, double *to_ambient_w) {
  size_t n = th->n_nodes;
  double q_amb = 0.0;
  for (size_t i = 0; i < n; i++) {
    double q = th->nodes[i].g_amb_w_per_k * (temp_c[i] - ambient_c);
    dtemp_dt[i] = power_w[i] - q;
    q_amb += q;
  }
  for (size_t k = 0; k < th->n_links; k++) {
    const link *l = &th->links[k];
    double f = l->g_w_per_k * (temp_c[l->a] - temp_c[l->b]);
    dtemp_dt[l->a] -= f;
    dtemp_dt[l->b] += f;
  }
  for (size_t i = 0; i < n; i++)
    dtemp_dt[i] *= th->nodes[i].inv_c_k_per_j;
  if (to_ambient_w)
    *to_ambient_w = q_amb;
}

/* Straight into compressed columns: count each column's entries (its diagonal, and two per
 * link end), fill, then sort every column by row and sum the duplicates (parallel links).
 * Inserting into GSL's triplet tree instead cost 48 ms for the 16,396-node HotSpot grid. */
gsl_spmatrix *sits_thermal_conductance(const sits_thermal *th) {
  size_t n = th->n_nodes;
  if (!n)
    return NULL;
  /* a column holds its diagonal (the ambient's and every link's conductance summed in
   * place) and one entry per link end, parallel links then merged: n + 2 links at most, each
   * written once (the memory is what this costs on a 16,000-node grid) */
  gsl_spmatrix *m = gsl_spmatrix_alloc_nzmax(n, n, n + 2 * th->n_links, GSL_SPMATRIX_CSC);
  size_t *fill = calloc(n + 1, sizeof *fill);
  if (!m || !fill) {
    free(fill);
    if (m)
      gsl_spmatrix_free(m);
    return NULL;
  }
  for (size_t i = 0; i < n; i++)
    fill[i + 1] = 1;
  for (size_t k = 0; k < th->n_links; k++)
    fill[th->links[k].a + 1]++, fill[th->links[k].b + 1]++;
  for (size_t j = 0; j < n; j++)
    fill[j + 1] += fill[j];
  int *mi = m->i;
  double *md = m->data;
  for (size_t i = 0; i < n; i++) /* the diagonal first in its column, then the others */
    mi[fill[i]] = (int)i, md[fill[i]++] = th->nodes[i].g_amb_w_per_k;
  for (size_t k = 0; k < th->n_links; k++) {
    const link *l = &th->links[k];
    size_t a = (size_t)l->a, b = (size_t)l->b;
    mi[fill[b]] = l->a, md[fill[b]++] = -l->g_w_per_k;
    mi[fill[a]] = l->b, md[fill[a]++] = -l->g_w_per_k;
  }
  /* fill[j] is now the end of column j; sort, merge and sum the diagonal, compacting */
  size_t out = 0, start = 0;
  for (size_t j = 0; j < n; j++) {
    size_t end = fill[j];
    double diag = md[start];
    for (size_t a = start + 1; a < end; a++)
      diag -= md[a];
    md[start] = diag;
    for (size_t a = start + 1; a < end; a++) /* insertion sort: a column has a few entries */
      for (size_t b = a; b > start && mi[b - 1] > mi[b]; b--) {
        int ti = mi[b];
        double td = md[b];
        mi[b] = mi[b - 1], md[b] = md[b - 1];
        mi[b - 1] = ti, md[b - 1] = td;
      }
    m->p[j] = (int)out;
    for (size_t a = start; a < end; a++) {
      if (out > (size_t)m->p[j] && mi[out - 1] == mi[a])
        md[out - 1] += md[a];
      else
        mi[out] = mi[a], md[out++] = md[a];
    }
    start = end;
  }
  m->p[n] = (int)out;
  m->nz = out;
  free(fill);
  return m;
}

/* Union-find over the links: a node is grounded when its set touches the ambient. */
static size_t root_of(size_t *parent, size_t i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

int sits_thermal_check_grounded(const sits_thermal *th, sits_err *err) {
  return sits_thermal_check_reachable(th, NULL, err);
}

int sits_thermal_check_reachable(const sits_thermal *th, const bool *pinned, sits_err *err) {
  size_t n = th->n_nodes;
  size_t *parent = malloc((n + 1) * sizeof *parent);
  if (!parent)
    return sits__fail(err, SITS_ENOMEM, "out of memory");
  for (size_t i = 0; i <= n; i++)
    parent[i] = i; /* index n is the ambient, with the pinned nodes */
  for (size_t i = 0; i < n; i++)
    if (th->nodes[i].g_amb_w_per_k > 0 || (pinned && pinned[i]))
      parent[root_of(parent, i)] = root_of(parent, n);
  for (size_t k = 0; k < th->n_links; k++)
    parent[root_of(parent, (size_t)th->links[k].a)] = root_of(parent, (size_t)th->links[k].b);
  int rc = SITS_OK;
  for (size_t i = 0; i < n && rc == SITS_OK; i++)
    if (root_of(parent, i) != root_of(parent, n))
      rc = pinned ? sits__fail(err, SITS_EINPUT,
                               "node '%s' has no path to the ambient or to a sensed node: its "
                               "temperature is not determined",
                               th->nodes[i].name)
                  : sits__fail(err, SITS_EINPUT,
                               "node '%s' has no path to the ambient: it has no steady state",
                               th->nodes[i].name);
  free(parent);
  return rc;
}

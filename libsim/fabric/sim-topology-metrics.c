/* sim-topology-metrics.c: figures of a topology (sim-topology.h).
 *
 * Metrics.  igraph computes the connected components and, on a directed
 * copy of the graph with a super-source and a super-sink, the max-flow
 * that gives the bisection bandwidth.  The diameter comes from our own
 * breadth-first searches, which know which vertices are GPUs: one from
 * each switch a node is cabled to, combined with each GPU's hops to those
 * switches (see diameter_structure()), or one from every GPU when nodes
 * are cabled to each other or to more than 4,096 switches.  igraph errors
 * never abort (sim_init() installs a handler that returns the
 * code); every call's return is checked.
 */
#include "config.h"

#include "sim-topology-private.h"
#include "core/sim-error.h"
#include "core/sim-util.h"

#include <igraph.h>
#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Metrics */

/* Hops of the longest route between two GPUs: for each GPU, a search over
 * the whole graph (for GPUs of other nodes) and one over its node (for its
 * node's GPUs), as routes go.  O(GPUs x (vertices + links)): the fallback
 * of diameter() for graphs it cannot decompose, and its reference in the
 * tests. */
static guint
diameter_search (SimTopology *t)
{
  guint nv = n_vertices (t), best = 0;
  g_autofree guint16 *dist = g_new (guint16, MAX (1u, nv));

  for (guint32 g = 0; g < t->n_gpus; g++)
    {
      guint32 node = g_array_index (t->node_of, guint32, g);
      const NodeSpan *span = &t->spans[node];

      sim__topology_bfs (t, g, NULL, FALSE, dist, nv);
      for (guint32 h = 0; h < t->n_gpus; h++)
        if (g_array_index (t->node_of, guint32, h) != node && dist[h] != UNREACHED)
          best = MAX (best, dist[h]);
      sim__topology_bfs (t, g, span, FALSE, dist, span->n_gpus + span->n_extra);
      for (guint32 i = 0; i < span->n_gpus; i++)
        if (dist[i] != UNREACHED)
          best = MAX (best, dist[i]);
    }
  return best;
}

/* Attachment points above which the decomposition is not tried (their
 * distance matrix takes 2 bytes per pair: 32 MiB at this bound). */
#define MAX_ATTACH 4096u

/* Breadth-first searches over every link from each of @points (@n of
 * them; @index maps a vertex to its position among them, or NO_NODE),
 * filling @between[x * n + y] with the hops from point x to point y
 * (UNREACHED if none).  The searches run 64 at a time, one bit each in a
 * word per vertex, so that a level of all 64 costs one pass over the
 * links. */
static void
distances_between (SimTopology *t, const guint32 *points, const guint32 *index, guint32 n,
                   guint16 *between)
{
  guint nv = n_vertices (t);
  g_autofree guint64 *seen = g_new (guint64, MAX (1u, nv));
  g_autofree guint64 *front = g_new (guint64, MAX (1u, nv));
  g_autofree guint64 *next = g_new (guint64, MAX (1u, nv));

  for (gsize i = 0; i < (gsize) n * n; i++)
    between[i] = UNREACHED;
  for (guint32 base = 0; base < n; base += 64)
    {
      guint32 k = MIN (64u, n - base);
      gboolean active = TRUE;
      guint level = 0;

      memset (seen, 0, nv * sizeof (guint64));
      memset (front, 0, nv * sizeof (guint64));
      for (guint32 s = 0; s < k; s++)
        {
          guint32 v = points[base + s];
          seen[v] |= G_GUINT64_CONSTANT (1) << s;
          front[v] |= G_GUINT64_CONSTANT (1) << s;
          between[(gsize) (base + s) * n + index[v]] = 0;
        }
      while (active && level + 1 < UNREACHED)
        {
          guint64 *swap;

          level++;
          active = FALSE;
          memset (next, 0, nv * sizeof (guint64));
          for (guint32 v = 0; v < nv; v++)
            if (front[v] != 0)
              for (guint32 e = t->adj_start[v]; e < t->adj_start[v + 1]; e++)
                next[other_end (t, t->adj_link[e], v)] |= front[v];
          for (guint32 v = 0; v < nv; v++)
            {
              guint64 fresh = next[v] & ~seen[v];

              next[v] = fresh;
              if (fresh == 0)
                continue;
              seen[v] |= fresh;
              active = TRUE;
              if (index[v] != NO_NODE)
                for (guint64 bits = fresh; bits != 0; bits &= bits - 1)
                  between[(gsize) (base + (guint32) __builtin_ctzll (bits)) * n + index[v]]
                    = (guint16) level;
            }
          swap = front;
          front = next;
          next = swap;
        }
    }
}

/* GPUs with the same costs to every attachment point. */
typedef struct {
  const guint32 *pairs;  /* (attachment, cost) pairs, by attachment */
  guint32 len;           /* pairs */
  guint32 node;          /* the node of its first GPU */
  gboolean many_nodes;   /* it has GPUs of more than one node */
} Profile;

/* The same diameter as diameter_search(), from the cluster's structure.
 * Nodes meet the rest of the graph only at their attachment points (the
 * switches their NICs plug into).  A shortest route from GPU g to GPU h of
 * another node leaves g's node for the first time at some attachment point
 * x, having stayed inside the node until then, and enters h's node for the
 * last time from some attachment point y, staying inside from there; so
 *   d(g, h) = min over x, y of  c(g, x) + D(x, y) + c(h, y),
 * where c(g, x) is the hops from g to x over its node's own links plus the
 * cable to x, and D the distance over the whole graph (which may cross
 * other nodes, as routes through a rail-optimized node's NVLink do).  D
 * takes one search per attachment point (the leaf switches of a tree, not
 * its GPUs); GPUs with the same costs c(., x) for all x (the same position
 * in nodes cabled to the same leaves) make one profile, and the maximum is
 * taken over pairs of profiles, each pair in O(its attachment points).
 * Returns FALSE, leaving *@best alone, when the graph does not split that
 * way (a cable between two nodes, or too many attachment points). */
static gboolean
diameter_structure (SimTopology *t, guint *best)
{
  guint nv = n_vertices (t), result = 0;
  const guint32 *node_of = (const guint32 *) (gpointer) t->node_of->data;
  g_autofree guint32 *attach = g_new (guint32, MAX (1u, nv));  /* vertex -> index */
  g_autofree guint16 *dist = g_new (guint16, MAX (1u, nv));
  g_autofree guint32 *points = NULL, *cost = NULL, *stamp = NULL, *touched = NULL;
  g_autofree guint32 *far = NULL;
  g_autofree guint16 *between = NULL;
  g_autoptr(GArray) profiles = g_array_new (FALSE, FALSE, sizeof (Profile));
  g_autoptr(GHashTable) seen = NULL;
  guint32 n_attach = 0, max_span = 0;

  /* A node's own links must stay inside it, and its cables must end
   * outside every node. */
  for (guint32 v = 0; v < nv; v++)
    attach[v] = NO_NODE;
  for (guint l = 0; l < t->links->len; l++)
    {
      const SimLink *k = &g_array_index (t->links, SimLink, l);
      guint32 na = node_of[k->a], nb = node_of[k->b];

      if (k->tier == SIM_TIER_INTRA)
        {
          if (na != nb || na == NO_NODE)
            return FALSE;
          continue;
        }
      if (na != NO_NODE && nb != NO_NODE)
        return FALSE;
      if (na != NO_NODE && attach[k->b] == NO_NODE)
        attach[k->b] = n_attach++;
      if (nb != NO_NODE && attach[k->a] == NO_NODE)
        attach[k->a] = n_attach++;
    }
  if (n_attach > MAX_ATTACH)
    return FALSE;

  /* D between attachment points, one search from each. */
  points = g_new (guint32, MAX (1u, n_attach));
  for (guint32 v = 0; v < nv; v++)
    if (attach[v] != NO_NODE)
      points[attach[v]] = v;
  between = g_new (guint16, MAX ((gsize) 1, (gsize) n_attach * n_attach));
  distances_between (t, points, attach, n_attach, between);

  /* Each GPU's profile (and the diameter inside nodes on the way). */
  for (guint32 n = 0; n < t->n_nodes; n++)
    max_span = MAX (max_span, t->spans[n].n_gpus + t->spans[n].n_extra);
  g_free (dist);
  dist = g_new (guint16, MAX (1u, max_span));
  cost = g_new (guint32, MAX (1u, n_attach));
  stamp = g_new0 (guint32, MAX (1u, n_attach));
  touched = g_new (guint32, MAX (1u, n_attach));
  seen = g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref,
                                NULL);
  for (guint32 g = 0; g < t->n_gpus; g++)
    {
      guint32 node = node_of[g], n_touched = 0, size;
      const NodeSpan *span = &t->spans[node];
      g_autofree guint32 *pairs = NULL;
      GBytes *key;
      gpointer found;

      size = span->n_gpus + span->n_extra;
      sim__topology_bfs (t, g, span, FALSE, dist, size);
      for (guint32 i = 0; i < span->n_gpus; i++)
        if (dist[i] != UNREACHED)
          result = MAX (result, dist[i]);

      for (guint32 i = 0; i < size; i++)
        {
          guint32 v = i < span->n_gpus ? span->first_gpu + i
                                       : span->first_extra + (i - span->n_gpus);
          if (dist[i] == UNREACHED)
            continue;
          for (guint32 e = t->adj_start[v]; e < t->adj_start[v + 1]; e++)
            {
              const SimLink *k = &g_array_index (t->links, SimLink, t->adj_link[e]);
              guint32 x;

              if (k->tier == SIM_TIER_INTRA)
                continue;
              x = attach[k->a == v ? k->b : k->a];
              if (stamp[x] != g + 1)
                {
                  stamp[x] = g + 1;
                  cost[x] = G_MAXUINT32;
                  touched[n_touched++] = x;
                }
              cost[x] = MIN (cost[x], (guint32) dist[i] + 1);
            }
        }
      /* In attachment order, so that equal profiles have equal bytes. */
      for (guint32 i = 1; i < n_touched; i++)
        for (guint32 j = i; j > 0 && touched[j - 1] > touched[j]; j--)
          {
            guint32 swap = touched[j];
            touched[j] = touched[j - 1];
            touched[j - 1] = swap;
          }
      pairs = g_new (guint32, MAX (1u, 2 * n_touched));
      for (guint32 i = 0; i < n_touched; i++)
        {
          pairs[2 * i] = touched[i];
          pairs[2 * i + 1] = cost[touched[i]];
        }
      key = g_bytes_new_take (g_steal_pointer (&pairs), (gsize) 2 * n_touched * sizeof (guint32));
      if (g_hash_table_lookup_extended (seen, key, NULL, &found))
        {
          Profile *q = &g_array_index (profiles, Profile, GPOINTER_TO_UINT (found));
          if (q->node != node)
            q->many_nodes = TRUE;
          g_bytes_unref (key);
        }
      else
        {
          Profile p = { g_bytes_get_data (key, NULL), n_touched, node, FALSE };
          g_hash_table_insert (seen, key, GUINT_TO_POINTER (profiles->len));
          g_array_append_val (profiles, p);
        }
    }

  /* For each profile P, far[y] = min over its (x, c) of c + D(x, y): the
   * hops from its GPUs to attachment point y.  Then each profile Q with a
   * GPU of another node ends a route of min over its (y, c) of far[y] + c. */
  far = g_new (guint32, MAX (1u, n_attach));
  for (guint pi = 0; pi < profiles->len; pi++)
    {
      const Profile *p = &g_array_index (profiles, Profile, pi);

      for (guint32 y = 0; y < n_attach; y++)
        far[y] = G_MAXUINT32;
      for (guint32 i = 0; i < p->len; i++)
        {
          const guint16 *row = between + (gsize) p->pairs[2 * i] * n_attach;
          guint32 c = p->pairs[2 * i + 1];

          for (guint32 y = 0; y < n_attach; y++)
            if (row[y] != UNREACHED)
              far[y] = MIN (far[y], c + row[y]);
        }
      for (guint qi = 0; qi < profiles->len; qi++)
        {
          const Profile *q = &g_array_index (profiles, Profile, qi);
          guint32 d = G_MAXUINT32;

          if (!p->many_nodes && !q->many_nodes && p->node == q->node)
            continue;
          for (guint32 i = 0; i < q->len; i++)
            if (far[q->pairs[2 * i]] != G_MAXUINT32)
              d = MIN (d, far[q->pairs[2 * i]] + q->pairs[2 * i + 1]);
          if (d != G_MAXUINT32)
            result = MAX (result, d);
        }
    }
  *best = result;
  return TRUE;
}

/* Hops of the longest route between two GPUs, from the structure when the
 * graph allows, else by searching. */
static guint
diameter (SimTopology *t)
{
  guint best;

  if (diameter_structure (t, &best))
    return best;
  return diameter_search (t);
}

guint
sim__topology_diameter (SimTopology *topology, gboolean search)
{
  guint best;

  g_return_val_if_fail (topology != NULL, 0);
  if (search)
    return diameter_search (topology);
  if (diameter_structure (topology, &best))
    return best;
  return G_MAXUINT;
}

/* Sets an error for a failed igraph call. */
static gboolean
igraph_failed (igraph_error_t rc, const char *what, GError **error)
{
  if (rc == IGRAPH_SUCCESS)
    return FALSE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "igraph failed to compute %s: %s", what,
               igraph_strerror (rc));
  return TRUE;
}

/* Components and bisection bandwidth, with igraph. */
static gboolean
graph_metrics (SimTopology *t, SimTopologyMetrics *m, GError **error)
{
  guint nv = n_vertices (t), nl = t->links->len, half = t->n_gpus / 2;
  igraph_t graph;
  igraph_vector_int_t edges, extra;
  igraph_vector_t capacity;
  igraph_integer_t n_components = 0;
  igraph_real_t flow = 0;
  igraph_error_t rc;
  double big = 1;
  gboolean ok = FALSE;

  if (igraph_failed (igraph_vector_int_init (&edges, (igraph_integer_t) 4 * nl), "edges",
                     error))
    return FALSE;
  if (igraph_failed (igraph_vector_int_init (&extra, 0), "edges", error))
    {
      igraph_vector_int_destroy (&edges);
      return FALSE;
    }
  if (igraph_failed (igraph_vector_init (&capacity, (igraph_integer_t) 2 * nl), "capacities",
                     error))
    {
      igraph_vector_int_destroy (&edges);
      igraph_vector_int_destroy (&extra);
      return FALSE;
    }
  for (guint l = 0; l < nl; l++)
    {
      const SimLink *k = &g_array_index (t->links, SimLink, l);
      double cap = k->bandwidth * k->efficiency;

      VECTOR (edges)[4 * l] = k->a;
      VECTOR (edges)[4 * l + 1] = k->b;
      VECTOR (edges)[4 * l + 2] = k->b;
      VECTOR (edges)[4 * l + 3] = k->a;
      VECTOR (capacity)[2 * l] = cap;
      VECTOR (capacity)[2 * l + 1] = cap;
      big += 2 * cap;
    }
  rc = igraph_create (&graph, &edges, (igraph_integer_t) nv, IGRAPH_DIRECTED);
  if (igraph_failed (rc, "the graph", error))
    goto out_vectors;

  rc = igraph_connected_components (&graph, NULL, NULL, &n_components, IGRAPH_WEAK);
  if (igraph_failed (rc, "connected components", error))
    goto out_graph;
  m->components = (guint) n_components;

  if (half > 0)
    {
      /* A super-source S feeding the first half of the GPUs and a
       * super-sink T draining the second, with more capacity than the whole
       * graph, so that only the graph's own links limit the flow. */
      igraph_integer_t s = nv, sink = nv + 1;

      rc = igraph_add_vertices (&graph, 2, NULL);
      if (igraph_failed (rc, "the bisection graph", error))
        goto out_graph;
      for (guint32 g = 0; g < t->n_gpus && rc == IGRAPH_SUCCESS; g++)
        {
          igraph_integer_t v = sim_topology_get_gpu_vertex (t, g);
          rc = igraph_vector_int_push_back (&extra, g < half ? s : v);
          if (rc == IGRAPH_SUCCESS)
            rc = igraph_vector_int_push_back (&extra, g < half ? v : sink);
          if (rc == IGRAPH_SUCCESS)
            rc = igraph_vector_push_back (&capacity, big);
        }
      if (rc == IGRAPH_SUCCESS)
        rc = igraph_add_edges (&graph, &extra, NULL);
      if (igraph_failed (rc, "the bisection graph", error))
        goto out_graph;
      rc = igraph_maxflow_value (&graph, &flow, s, sink, &capacity, NULL);
      if (igraph_failed (rc, "the bisection max-flow", error))
        goto out_graph;
    }
  m->bisection_bandwidth = flow;
  ok = TRUE;

out_graph:
  igraph_destroy (&graph);
out_vectors:
  igraph_vector_int_destroy (&edges);
  igraph_vector_int_destroy (&extra);
  igraph_vector_destroy (&capacity);
  return ok;
}

gboolean
sim_topology_get_metrics (SimTopology *topology, SimTopologyMetrics *metrics, GError **error)
{
  g_return_val_if_fail (topology != NULL, FALSE);
  g_return_val_if_fail (metrics != NULL, FALSE);

  sim_init ();
  sim_topology_get_counts (topology, metrics);
  metrics->diameter = diameter (topology);
  /* igraph built without IGRAPH_THREAD_SAFE (Debian's) keeps its error
   * machinery (the IGRAPH_FINALLY stack) in globals: simulations built in
   * several threads take turns here.  It runs once per topology. */
#if IGRAPH_THREAD_SAFE
  return graph_metrics (topology, metrics, error);
#else
  {
    static GMutex igraph_lock;
    gboolean ok;
    g_mutex_lock (&igraph_lock);
    ok = graph_metrics (topology, metrics, error);
    g_mutex_unlock (&igraph_lock);
    return ok;
  }
#endif
}

void
sim_topology_get_counts (const SimTopology *topology, SimTopologyMetrics *metrics)
{
  const SimTopology *t = topology;
  double down[4] = { 0 }, up[4] = { 0 };

  g_return_if_fail (t != NULL);
  g_return_if_fail (metrics != NULL);
  memset (metrics, 0, sizeof *metrics);
  metrics->gpus = t->n_gpus;
  metrics->nodes = t->n_nodes;
  metrics->nvswitches = t->nvswitch_chips;
  for (guint v = 0; v < n_vertices (t); v++)
    {
      guint r = vertex_rank (vertex_kind (t, v));
      if (r > 0)
        {
          metrics->switches[r]++;
          metrics->switches[0]++;
        }
    }
  for (guint l = 0; l < t->links->len; l++)
    {
      const SimLink *k = &g_array_index (t->links, SimLink, l);
      guint ra = vertex_rank (vertex_kind (t, k->a)), rb = vertex_rank (vertex_kind (t, k->b));

      if (k->tier == SIM_TIER_INTRA)
        continue;
      metrics->cables++;
      if (g_array_index (t->optical, guint8, l))
        metrics->transceivers += 2;
      if (ra < rb)
        {
          up[ra] += k->bandwidth;
          down[rb] += k->bandwidth;
        }
      else if (rb < ra)
        {
          up[rb] += k->bandwidth;
          down[ra] += k->bandwidth;
        }
      else if (k->tier == SIM_TIER_CORE)
        up[ra] += 2 * k->bandwidth;  /* dragonfly global links: up for both ends */
    }
  for (guint r = 1; r < 4; r++)
    metrics->oversubscription[r] = up[r] > 0 ? down[r] / up[r] : 0;
}

/* sim-topology-routing.c: routes over the topology (sim-topology.h).
 *
 * Routing.  A route between GPUs of two nodes has three parts: from the
 * sending GPU to the NIC it leaves by, over the node's own links; from
 * that NIC to the receiving GPU's nearest NIC, over the network; and from
 * there to the GPU.  The network part follows the routing mode
 * (sim-topology.h, SimRouting).  D-mod-K on a tree fabric is computed in
 * closed form: the destination's way up (one uplink per tier, the digit of
 * its NIC number) is climbed from the source's leaf with the same digits
 * until the two meet, then followed down; that costs a few array reads per
 * tier and needs no table (each NIC's way up is kept once worked out, 72
 * bytes a NIC), which is what makes it the cheap mode at 100k GPUs.
 * Spraying uses the same meeting point and names pooled resources instead
 * of links.  ECMP and adaptive routing choose at every hop, among the
 * links that lead one hop closer to the destination, by the flow hash
 * (ECMP) or the fewest registered flows (adaptive).  On a tree they need
 * no table either: the destination leaf's ancestors are marked (a few
 * dozen switches, listed once per leaf), and the route climbs until it
 * meets one and comes down through them.  Elsewhere (a dragonfly, or a
 * tree too asymmetric for the up/down rules, where D-mod-K uses the
 * destination's digit) routes walk towards the destination NIC's switch
 * over the links between switches, taking at each hop the links to
 * switches one hop closer to it (see net_walk()).  On a dragonfly as
 * build_dragonfly() cables it, the hop distances come from the structure
 * (see dfly_dist()): between two routers they are 0 to 3, decided by
 * their groups and their global links, with the destination router's
 * neighbours marked once per route and each router's global neighbours
 * listed once (four bytes per global port, sixteen per router and four
 * per group besides); no search, nothing kept per destination, and a hop
 * costs a scan of the router's links (and, on the first hop of a route of
 * three, of some neighbours' global links).  The structure is checked on
 * the built graph first; a graph that departs from it, and every other
 * graph, walks the distances of one breadth-first search from the
 * destination switch over the links between switches, kept in a cache
 * keyed by that switch (two bytes per switch).  A per-destination table is the smallest thing that answers
 * every source at once: caching whole paths per (source, destination)
 * pair would grow with the square of the GPU count, and caching next-hop
 * lists per destination costs as much as the adjacency itself.  Scanning
 * a switch's links to other switches at each hop costs at most a switch's
 * radix.  The cache has a memory budget; past it the oldest destination is
 * dropped (and would be recomputed identically).
 * Routes between GPUs of one node use a second, smaller table computed
 * over the node's own links only, indexed by the vertex's position in its
 * node.  The parts of routes inside nodes are kept once per node model
 * where the flow hash plays no part in them, and copied (see
 * node_route()).  A route is gathered on the stack and written to the
 * caller's array in one go.
 */
#include "config.h"

#include "sim-topology-private.h"
#include "core/sim-error.h"
#include "core/sim-util.h"

#include <igraph.h>
#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Routing */

void
sim__topology_bfs (SimTopology *t, guint32 dst, const NodeSpan *span, gboolean network,
                   guint16 *dist, gsize n)
{
  guint32 *queue = t->bfs_queue;
  guint head = 0, tail = 0;

  for (gsize i = 0; i < n; i++)
    dist[i] = UNREACHED;
  dist[span ? local_index (t, span, dst) : dst] = 0;
  queue[tail++] = dst;
  while (head < tail)
    {
      guint32 v = queue[head++];
      guint16 dv = dist[span ? local_index (t, span, v) : v];

      for (guint32 e = t->adj_start[v]; e < t->adj_start[v + 1]; e++)
        {
          const SimLink *l = &g_array_index (t->links, SimLink, t->adj_link[e]);
          guint32 u = l->a == v ? l->b : l->a;
          guint32 iu;

          if (span != NULL && l->tier != SIM_TIER_INTRA)
            continue;
          if (span == NULL && network && l->tier == SIM_TIER_INTRA)
            continue;
          iu = span ? local_index (t, span, u) : u;
          if (dist[iu] != UNREACHED || dv + 1 >= UNREACHED)
            continue;
          dist[iu] = (guint16) (dv + 1);
          queue[tail++] = u;
        }
    }
}

/* Caches @d, the table towards @dst (over a node's links if @intra). */
static void
cache_add (SimTopology *t, guint32 dst, gboolean intra, DistTable *d)
{
  /* Drop the oldest tables while over budget (keeping at least this one). */
  while (t->cache_bytes + d->bytes > CACHE_BUDGET && !g_queue_is_empty (&t->cache_order))
    {
      guint key = GPOINTER_TO_UINT (g_queue_pop_head (&t->cache_order));
      GHashTable *c = key & 1 ? t->intra_cache : t->global_cache;
      DistTable *old = g_hash_table_lookup (c, GUINT_TO_POINTER (key >> 1));
      t->cache_bytes -= old->bytes;
      g_hash_table_remove (c, GUINT_TO_POINTER (key >> 1));
    }
  g_hash_table_insert (intra ? t->intra_cache : t->global_cache, GUINT_TO_POINTER (dst), d);
  g_queue_push_tail (&t->cache_order, GUINT_TO_POINTER (dst << 1 | (intra ? 1u : 0u)));
  t->cache_bytes += d->bytes;
}

/* The distance table towards @dst (over @span's links, or over the
 * network's), computed and cached on first use. */
static const DistTable *
dist_table (SimTopology *t, guint32 dst, const NodeSpan *span)
{
  GHashTable *cache = span ? t->intra_cache : t->global_cache;
  DistTable *d = g_hash_table_lookup (cache, GUINT_TO_POINTER (dst));
  gsize n;

  if (d != NULL)
    return d;
  n = span ? span->n_gpus + span->n_extra : n_vertices (t);
  d = g_new (DistTable, 1);
  d->dist = g_new (guint16, MAX ((gsize) 1, n));
  d->bytes = n * sizeof (guint16);
  sim__topology_bfs (t, dst, span, TRUE, d->dist, n);
  cache_add (t, dst, span != NULL, d);
  return d;
}

/* A 64-bit mix (splitmix64's finaliser): hop k of a flow picks with
 * mix(hash + k * golden ratio), so that hops choose independently. */
static guint64
mix64 (guint64 x)
{
  x ^= x >> 30;
  x *= G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  x ^= x >> 27;
  x *= G_GUINT64_CONSTANT (0x94d049bb133111eb);
  x ^= x >> 31;
  return x;
}

/* Resources a route gathers on the stack before it spills into its
 * array: every route of a tree fits, so that the array is written once a
 * route. */
#define ROUTE_BUF 64

/* A route under construction: its resources (the first @held in @res,
 * whose other elements are stale, then the @n in @buf) and latency, and
 * what the hops choose by. */
typedef struct {
  GArray         *res;       /* the route from its element base on */
  guint           base;
  guint           held;
  guint32        *buf;       /* room for @room resources: the caller's, or the stack's */
  guint           room;
  guint           n;
  SimTime         latency;
  SimRouting      mode;      /* for walks: ECMP (hash), ADAPTIVE (load) or DMODK (digit) */
  guint64         hash;
  guint           hop;       /* hops taken, for the hash */
  guint64         dest;      /* the destination NIC's number, for the digit */
  guint64         div;       /* the product of the choices made so far */
  const guint32  *load;
  gboolean        forked;    /* a walk chose among several links */
} Route;

static inline guint
route_len (const Route *r)
{
  return r->held + r->n;
}

/* Moves the buffer into the array, which then holds the route exactly
 * (callers reuse arrays, often for routes of the same length: those need
 * no resizing). */
static void
route_flush (Route *r)
{
  if (r->held == 0 && r->res->len == r->base)
    {
      /* (The common case, nothing spilled yet: one append.) */
      g_array_append_vals (r->res, r->buf, r->n);
      r->held = r->n;
      r->n = 0;
      return;
    }
  if (r->res->len != r->base + r->held + r->n)
    g_array_set_size (r->res, r->base + r->held + r->n);
  if (r->n > 0)
    memcpy (&g_array_index (r->res, guint32, r->base + r->held), r->buf,
            r->n * sizeof (guint32));
  r->held += r->n;
  r->n = 0;
}

static inline void
route_push (Route *r, guint32 res)
{
  if (G_UNLIKELY (r->n == r->room))
    route_flush (r);
  r->buf[r->n++] = res;
}

/* Resource @i of the route so far. */
static inline guint32
route_at (const Route *r, guint i)
{
  return i < r->held ? g_array_index (r->res, guint32, r->base + i) : r->buf[i - r->held];
}

/* Drops the resources past the first @len. */
static void
route_truncate (Route *r, guint len)
{
  if (len >= r->held)
    r->n = len - r->held;
  else
    {
      r->held = len;
      r->n = 0;
    }
}

/* Appends link @l, crossed from @v, and the latency of the link and of
 * the vertex it enters. */
static inline guint32
take (SimTopology *t, Route *r, guint32 l, guint32 v)
{
  const SimLink *k = &g_array_index (t->links, SimLink, l);
  guint32 next = k->a == v ? k->b : k->a;

  route_push (r, 2 * l + (k->a == v ? 0 : 1));
  r->latency += k->latency + g_array_index (t->latency, SimTime, next);
  return next;
}

static inline guint
n_up (const SimTopology *t, guint32 v)
{
  return t->up_start[v + 1] - t->up_start[v];
}

/* A destination NIC's way up, as dmodk_tree() follows it down: the same
 * for every source, so it is worked out once per NIC, with the resources
 * and latency of the way down from each of its switches.  One cache line,
 * aligned (a route reads two, its source's and its destination's, most
 * often from memory at a hundred thousand GPUs): the latencies in
 * nanoseconds of 32 bits, a way with one longer (over four seconds) marked
 * wide and routed hop by hop instead. */
typedef struct NicWay {
  guint32 way[MAX_TIERS];           /* switches, from the NIC's leaf up */
  guint32 down[MAX_TIERS];          /* the resource down from way[k]: to way[k - 1], or
                                     * for k = 0 to the NIC */
  guint32 down_latency[MAX_TIERS];  /* from way[k] down to the NIC, its vertex included */
  guint32 up;                       /* the resource up from the NIC to way[0] ... */
  guint32 up_latency;               /* ... and the hop's latency, way[0]'s included */
  guint8  n;                        /* switches on the way; 0 until worked out */
  guint8  wide;                     /* a latency does not fit: routed by take() */
} __attribute__ ((aligned (64))) NicWay;

G_STATIC_ASSERT (sizeof (NicWay) == 64);

/* A latency as NicWay keeps it, or FALSE if it does not fit. */
static inline gboolean
narrow_latency (SimTime latency, guint32 *out)
{
  *out = (guint32) latency;
  return latency >= 0 && latency <= G_MAXUINT32;
}

/* An uplink of a switch as dmodk_tree() climbs it: the resource up and
 * the switch it leads to, as take() finds them, in 8 bytes (at a hundred
 * thousand GPUs the entries span about a megabyte, and a route's climb
 * misses on them).  The hop's latency (the link's and the next switch's)
 * is the same for every uplink of a switch on the fabrics the builders
 * make, so it is kept once per switch (SimTopology.up_latency); where one
 * switch's differ, the climbs go hop by hop (take()). */
typedef struct UpHop {
  guint32 res, next;
} UpHop;

/* The resource of link @l crossed from @v, and the latency of the hop. */
static guint32
hop_resource (const SimTopology *t, guint32 l, guint32 v, SimTime *latency)
{
  const SimLink *k = &g_array_index (t->links, SimLink, l);
  guint32 next = k->a == v ? k->b : k->a;

  *latency = k->latency + g_array_index (t->latency, SimTime, next);
  return 2 * l + (k->a == v ? 0 : 1);
}

/* nic_way() the first time for NIC @nd (or every time, searching). */
G_NO_INLINE static const NicWay *
nic_way_make (SimTopology *t, guint32 nd)
{
  NicWay *w;
  guint64 div = 1;
  SimTime lat;

  SimTime down, up;

  if (t->nic_way == NULL)
    t->nic_way = g_aligned_alloc0 (MAX (1u, t->n_nics), sizeof (NicWay), 64);
  w = &t->nic_way[nd];
  w->wide = FALSE;
  w->way[0] = other_end (t, t->nic_access[nd], t->nic_vertex[nd]);
  w->down[0] = hop_resource (t, t->nic_access[nd], w->way[0], &down);
  w->up = hop_resource (t, t->nic_access[nd], t->nic_vertex[nd], &up);
  w->wide |= !narrow_latency (down, &w->down_latency[0]) || !narrow_latency (up, &w->up_latency);
  w->n = 1;
  while (w->n <= MAX_TIERS - 1 && n_up (t, w->way[w->n - 1]) > 0)
    {
      guint32 v = w->way[w->n - 1];
      guint n = n_up (t, v);
      guint32 l = t->up_link[t->up_start[v] + (guint) ((nd / div) % n)];

      w->way[w->n] = other_end (t, l, v);
      w->down[w->n] = hop_resource (t, l, w->way[w->n], &lat);
      down += lat;
      w->wide |= !narrow_latency (down, &w->down_latency[w->n]);
      div *= n;
      w->n++;
    }
  return w;
}

/* NIC @nd's way up, made when first asked (inline: a route asks for two,
 * and they are made once). */
static inline const NicWay *
nic_way (SimTopology *t, guint32 nd)
{
  if (G_LIKELY (t->nic_way != NULL && t->nic_way[nd].n > 0 && !t->search))
    return &t->nic_way[nd];
  return nic_way_make (t, nd);
}

/* D-mod-K on a tree, in closed form: the destination's way up from its
 * leaf takes, at each tier, uplink (D / P) mod u of its u uplinks (P: the
 * product of the uplink counts below).  The source climbs from its leaf
 * with the same digits until it stands on the destination's way, then
 * follows it down.  FALSE (and nothing appended) if the two never meet,
 * which a symmetric tree does not allow. */
/* The hops of every switch's uplinks (UpHop) and each switch's latency
 * up, made when first asked; FALSE if a switch's uplinks differ in their
 * latency (the climbs then go by take()). */
static gboolean
up_hops (SimTopology *t)
{
  if (t->up_hop == NULL)
    {
      guint32 n = t->up_start[n_vertices (t)];
      t->up_hop = g_new (UpHop, MAX (1u, n));
      t->up_latency = g_new0 (SimTime, MAX (1u, n_vertices (t)));
      t->up_alike = TRUE;
      for (guint32 v = 0; v < n_vertices (t); v++)
        for (guint32 e = t->up_start[v]; e < t->up_start[v + 1]; e++)
          {
            UpHop *h = &t->up_hop[e];
            SimTime latency;
            h->next = other_end (t, t->up_link[e], v);
            h->res = hop_resource (t, t->up_link[e], v, &latency);
            if (e == t->up_start[v])
              t->up_latency[v] = latency;
            else if (latency != t->up_latency[v])
              t->up_alike = FALSE;
          }
    }
  return t->up_alike;
}

static gboolean
dmodk_tree (SimTopology *t, guint32 ns, guint32 nd, Route *r)
{
  const NicWay *w, *ws;
  gboolean narrow;
  guint32 b;
  guint len0 = route_len (r), met = NO_NODE;
  SimTime lat0 = r->latency;
  guint64 div = 1;

  if (t->nic_access[ns] == NO_NODE || t->nic_access[nd] == NO_NODE)
    return FALSE;
  w = nic_way (t, nd);
  ws = G_LIKELY (!t->search) ? nic_way (t, ns) : NULL;
  /* (A way with a latency too long for its line is routed hop by hop, as
   * the search does.) */
  narrow = ws != NULL && !ws->wide && !w->wide && up_hops (t);
  if (G_LIKELY (narrow))
    {
      /* The hops up as take() finds them, each read in one place. */
      route_push (r, ws->up);
      r->latency += ws->up_latency;
      b = ws->way[0];
    }
  else
    b = take (t, r, t->nic_access[ns], t->nic_vertex[ns]);
  if (b == w->way[0])
    met = 0;
  for (guint k = 0; k + 1 < w->n && met == NO_NODE; k++)
    {
      guint n = n_up (t, b);
      guint e;
      if (n == 0)
        break;
      e = t->up_start[b] + (guint) ((nd / div) % n);
      if (G_LIKELY (narrow))
        {
          const UpHop *h = &t->up_hop[e];
          route_push (r, h->res);
          r->latency += t->up_latency[b];
          b = h->next;
        }
      else
        b = take (t, r, t->up_link[e], b);
      div *= n;
      if (b == w->way[k + 1])
        met = k + 1;
    }
  if (met == NO_NODE)
    {
      route_truncate (r, len0);
      r->latency = lat0;
      return FALSE;
    }
  if (G_UNLIKELY (!narrow))
    {
      /* Hop by hop, as the kept way down must reproduce. */
      for (guint j = met; j > 0; j--)
        take (t, r, w->down[j] / 2, w->way[j]);
      take (t, r, t->nic_access[nd], w->way[0]);
      return TRUE;
    }
  for (guint j = met + 1; j-- > 0;)
    route_push (r, w->down[j]);
  r->latency += w->down_latency[met];
  return TRUE;
}

/* Packet spraying on a tree: the D-mod-K path gives the hops and their
 * latency; the resources become the NIC links and the pooled uplinks of
 * each switch (or pod of spines) the flow sprays over, up on the source's
 * side and down on the destination's. */
static gboolean
spray_tree (SimTopology *t, guint32 ns, guint32 nd, Route *r)
{
  guint len0 = route_len (r);
  guint32 base = 2 * t->links->len, ls, ld, pod_s = NO_NODE, pod_d = NO_NODE, x;

  if (!dmodk_tree (t, ns, nd, r))
    return FALSE;
  route_truncate (r, len0);
  x = 2 * t->nic_access[ns] + (g_array_index (t->links, SimLink, t->nic_access[ns]).a
                               == t->nic_vertex[ns] ? 0 : 1);
  route_push (r, x);
  ls = other_end (t, t->nic_access[ns], t->nic_vertex[ns]);
  ld = other_end (t, t->nic_access[nd], t->nic_vertex[nd]);
  if (ls != ld)
    {
      if (n_up (t, ls) > 0)
        pod_s = t->bundle_of[other_end (t, t->up_link[t->up_start[ls]], ls)];
      if (n_up (t, ld) > 0)
        pod_d = t->bundle_of[other_end (t, t->up_link[t->up_start[ld]], ld)];
      x = base + 2 * t->bundle_of[ls];
      route_push (r, x);
      if (pod_s != NO_NODE && pod_d != NO_NODE && pod_s != pod_d)
        {
          x = base + 2 * pod_s;
          route_push (r, x);
          x = base + 2 * pod_d + 1;
          route_push (r, x);
        }
      x = base + 2 * t->bundle_of[ld] + 1;
      route_push (r, x);
    }
  x = 2 * t->nic_access[nd] + (g_array_index (t->links, SimLink, t->nic_access[nd]).a
                               == ld ? 0 : 1);
  route_push (r, x);
  return TRUE;
}

/* Among @n candidate links out of @v (@cand), the one @r's mode picks:
 * the flow's hash (ECMP, or @by_hash), the fewest registered flows with
 * ties to the destination's digit (adaptive), or the digit (D-mod-K). */
static guint32
choose (SimTopology *t, Route *r, guint32 v, const guint32 *cand, guint n, gboolean by_hash)
{
  guint pick;

  if (n == 1)
    return cand[0];
  if (by_hash || r->mode == SIM_ROUTING_ECMP)
    return cand[mix64 (r->hash + (r->hop + 1) * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15)) % n];
  pick = (guint) ((r->dest / r->div) % n);
  if (r->div <= G_MAXUINT32)
    r->div *= n;
  if (r->mode == SIM_ROUTING_ADAPTIVE && r->load != NULL)
    {
      guint best = pick;
      guint32 best_load = G_MAXUINT32;
      /* From the digit's choice on, round to it; the first unloaded link
       * cannot be beaten (ties stay with the earlier), so the scan stops
       * there. */
      for (guint k = 0, i = pick; k < n && best_load > 0; k++, i = i + 1 == n ? 0 : i + 1)
        {
          const SimLink *l = &g_array_index (t->links, SimLink, cand[i]);
          guint32 here = r->load[2 * cand[i] + (l->a == v ? 0 : 1)];
          if (here < best_load)
            {
              best_load = here;
              best = i;
            }
        }
      pick = best;
    }
  return cand[pick];
}

/* Room for @n candidate links in the topology's scratch buffer. */
static guint32 *
cand_buffer (SimTopology *t, guint n)
{
  if (n > t->cand_size)
    {
      t->cand_size = MAX (n, 2 * t->cand_size);
      t->cand = g_renew (guint32, t->cand, t->cand_size);
    }
  return t->cand;
}

/* Walks from @v to @dst along links that lead one hop closer (over
 * @span's links, or the network's), choosing among them as @r says (by
 * the flow hash inside a node).  FALSE if @dst is not reachable. */
static gboolean
walk (SimTopology *t, guint32 v, guint32 dst, const NodeSpan *span, Route *r)
{
  const DistTable *d = dist_table (t, dst, span);

  if (d->dist[span ? local_index (t, span, v) : v] == UNREACHED)
    return FALSE;
  while (v != dst)
    {
      guint16 want = (guint16) (d->dist[span ? local_index (t, span, v) : v] - 1);
      guint32 *cand = cand_buffer (t, t->adj_start[v + 1] - t->adj_start[v]);
      guint n = 0;

      for (guint32 e = t->adj_start[v]; e < t->adj_start[v + 1]; e++)
        {
          const SimLink *k = &g_array_index (t->links, SimLink, t->adj_link[e]);
          guint32 u = k->a == v ? k->b : k->a;

          if ((span != NULL) != (k->tier == SIM_TIER_INTRA))
            continue;
          if (d->dist[span ? local_index (t, span, u) : u] == want)
            cand[n++] = t->adj_link[e];
        }
      g_assert (n > 0);
      if (n > 1)
        r->forked = TRUE;
      v = take (t, r, choose (t, r, v, cand, n, span != NULL), v);
      r->hop++;
    }
  return TRUE;
}

/* Memory for the rows of ancestors kept per leaf, in bytes; past it, a
 * leaf's row is made again each time routes turn to it. */
#define ANC_BUDGET (64u << 20)

/* The row of leaf @ld's ancestors (its up-neighbours at level 1, theirs
 * at 2...): per vertex from t->anc_base on, its level plus one, or 0 if it
 * is not an ancestor.  Kept per leaf within ANC_BUDGET; else (and while
 * searching) made again in one scratch row when routes turn to another
 * leaf.  Reading a kept row costs nothing per ancestor, where marking
 * them again cost a store each (at 100k GPUs, every core is an ancestor
 * of every leaf). */
static const guint8 *
anc_row (SimTopology *t, guint32 ld)
{
  guint8 *row;
  guint n_anc = 0;

  if (t->up_to == NULL)
    {
      guint32 base = ld;
      /* The far ends of links, which the hops of tree_walk() look at
       * for every candidate. */
      t->up_to = g_new (guint32, MAX (1u, t->up_start[n_vertices (t)]));
      t->adj_to = g_new (guint32, MAX (1u, t->adj_start[n_vertices (t)]));
      for (guint32 v = 0; v < n_vertices (t); v++)
        {
          for (guint32 e = t->up_start[v]; e < t->up_start[v + 1]; e++)
            t->up_to[e] = other_end (t, t->up_link[e], v);
          for (guint32 e = t->adj_start[v]; e < t->adj_start[v + 1]; e++)
            t->adj_to[e] = other_end (t, t->adj_link[e], v);
        }
      /* An ancestor is a leaf (a NIC's switch) or the far end of an
       * uplink: the rows start at the lowest of them. */
      for (guint32 e = 0; e < t->up_start[n_vertices (t)]; e++)
        base = MIN (base, t->up_to[e]);
      for (guint32 nic = 0; nic < t->n_nics; nic++)
        if (t->nic_access[nic] != NO_NODE)
          base = MIN (base, other_end (t, t->nic_access[nic], t->nic_vertex[nic]));
      t->anc_base = base;
      t->anc_width = n_vertices (t) - base;
      t->anc_rows = g_new0 (guint8 *, t->anc_width);
      t->anc_queue = g_new (guint32, t->anc_width);
      t->anc_scratch_leaf = NO_NODE;
    }
  g_assert (ld >= t->anc_base);
  if (!t->search && t->anc_rows[ld - t->anc_base] != NULL)
    return t->anc_rows[ld - t->anc_base];
  if (!t->search && t->anc_bytes + t->anc_width <= ANC_BUDGET)
    {
      row = t->anc_rows[ld - t->anc_base] = g_new0 (guint8, t->anc_width);
      t->anc_bytes += t->anc_width;
    }
  else
    {
      if (t->anc_scratch == NULL)
        t->anc_scratch = g_new0 (guint8, t->anc_width);
      else if (t->anc_scratch_leaf == ld && !t->search)
        return t->anc_scratch;
      else
        memset (t->anc_scratch, 0, t->anc_width);
      t->anc_scratch_leaf = ld;
      row = t->anc_scratch;
    }
  row[ld - t->anc_base] = 1;
  t->anc_queue[n_anc++] = ld;
  for (guint i = 0; i < n_anc; i++)
    {
      guint32 w = t->anc_queue[i];
      guint8 level = row[w - t->anc_base];   /* its level plus one */
      if (level >= MAX_TIERS)
        continue;
      for (guint32 e = t->up_start[w]; e < t->up_start[w + 1]; e++)
        {
          guint32 u = t->up_to[e];
          if (row[u - t->anc_base] == 0)
            {
              row[u - t->anc_base] = (guint8) (level + 1);
              t->anc_queue[n_anc++] = u;
            }
        }
    }
  return row;
}

/* Whether vertex @v is in @row (anc_row()): its level plus one, or 0. */
static inline guint8
anc_level (const SimTopology *t, const guint8 *row, guint32 v)
{
  return v >= t->anc_base ? row[v - t->anc_base] : 0;
}

/* Hop by hop on a tree, for the modes that choose at every hop (ECMP,
 * adaptive), without a distance table: with the destination leaf's
 * ancestors (its up-neighbours, theirs, ...: anc_row()), climb from the
 * source's leaf (to an ancestor among the up-neighbours as soon as there
 * is one, which is the lowest common tier, else up any uplink), then come
 * down through ancestors one tier at a time.  O(ancestors' uplinks + radix
 * x tiers) the first time for a destination leaf, O(radix x tiers) after
 * (its row is kept, within a budget).  FALSE (nothing appended) if the
 * climb finds no common switch, which a symmetric tree does not allow. */
static gboolean
tree_walk (SimTopology *t, guint32 ns, guint32 nd, Route *r)
{
  guint32 vs = t->nic_vertex[ns], vd = t->nic_vertex[nd], ld, b, *cand;
  const guint8 *row;
  guint len0 = route_len (r), hop0 = r->hop;
  SimTime lat0 = r->latency;
  guint64 div0 = r->div;

  if (t->nic_access[ns] == NO_NODE || t->nic_access[nd] == NO_NODE)
    return FALSE;
  ld = other_end (t, t->nic_access[nd], vd);
  row = anc_row (t, ld);

  b = take (t, r, t->nic_access[ns], vs);
  r->hop++;
  while (anc_level (t, row, b) == 0)
    {
      guint n = 0, n_marked = 0;
      cand = cand_buffer (t, n_up (t, b));
      for (guint32 e = t->up_start[b]; e < t->up_start[b + 1]; e++)
        if (anc_level (t, row, t->up_to[e]) != 0)
          n_marked++;
      for (guint32 e = t->up_start[b]; e < t->up_start[b + 1]; e++)
        if (n_marked == 0 || anc_level (t, row, t->up_to[e]) != 0)
          cand[n++] = t->up_link[e];
      if (n == 0)
        {
          route_truncate (r, len0);
          r->latency = lat0;
          r->hop = hop0;
          r->div = div0;
          return FALSE;
        }
      b = take (t, r, choose (t, r, b, cand, n, FALSE), b);
      r->hop++;
    }
  while (b != ld)
    {
      guint n = 0;
      guint8 want = (guint8) (anc_level (t, row, b) - 1);
      cand = cand_buffer (t, t->adj_start[b + 1] - t->adj_start[b]);
      for (guint32 e = t->adj_start[b]; e < t->adj_start[b + 1]; e++)
        {
          guint32 u = t->adj_to[e];
          if (anc_level (t, row, u) == want && g_array_index (t->node_of, guint32, u) == NO_NODE)
            cand[n++] = t->adj_link[e];
        }
      g_assert (n > 0);
      b = take (t, r, choose (t, r, b, cand, n, FALSE), b);
      r->hop++;
    }
  take (t, r, t->nic_access[nd], ld);
  r->hop++;
  return TRUE;
}

/* One of the NICs nearest GPU @g (a tie broken by @hash), or NO_NODE. */
static guint32
nearest_nic (const SimTopology *t, guint32 g, guint64 hash)
{
  guint32 first = t->gpu_nic_start[g], n = t->gpu_nic_start[g + 1] - first;

  if (n == 0)
    return NO_NODE;
  return t->gpu_nic[first + (n == 1 ? 0 : (guint32) (mix64 (hash) % n))];
}

/* Walks over the network, off the closed forms.  A NIC's vertex is
 * reached through its one network link, from its switch: its hop
 * distances are its switch's plus one, and no NIC is a step on another's
 * way (its only link leads back).  So a walk towards a NIC takes the same
 * hops, from the same candidates in the same order, as a walk towards
 * its switch over the links between switches, followed by the NIC's
 * link: one table per switch serves all its NICs, it has an entry per
 * switch rather than per vertex, and each hop scans a switch's links to
 * other switches rather than also its NIC ports.  That holds when every
 * NIC has one network link, to a switch, and no other vertex of a node
 * has any, with the switches numbered after the nodes' vertices, which is
 * how the builders lay them out; elsewhere walk() goes over the whole
 * graph. */

/* Whether the walks between switches apply, and their adjacency.
 * O(vertices + links), on the first walk. */
static void
net_init (SimTopology *t)
{
  guint32 nv = n_vertices (t), nl = t->links->len, first = nv, count = 0;
  g_autofree guint8 *is_nic_link = g_new0 (guint8, MAX (1u, nl));

  t->net_state = -1;
  for (guint32 v = nv; v-- > 0 && g_array_index (t->node_of, guint32, v) == NO_NODE;)
    first = v;
  for (guint32 v = 0; v < first; v++)
    if (g_array_index (t->node_of, guint32, v) == NO_NODE)
      return;  /* a switch among the nodes' vertices */
  for (guint32 i = 0; i < t->n_nics; i++)
    {
      if (t->nic_access[i] == NO_NODE
          || other_end (t, t->nic_access[i], t->nic_vertex[i]) < first)
        return;
      is_nic_link[t->nic_access[i]] = 1;
    }
  for (guint32 l = 0; l < nl; l++)
    {
      const SimLink *k = &g_array_index (t->links, SimLink, l);
      if (k->tier == SIM_TIER_INTRA)
        continue;
      if (k->a >= first && k->b >= first)
        count++;
      else if (!is_nic_link[l])
        return;  /* a node's vertex on the network by a second link, or not a NIC */
    }

  t->first_switch = first;
  t->n_switches = nv - first;
  t->sw_start = g_new0 (guint32, t->n_switches + 1);
  t->sw_link = g_new (guint32, MAX (1u, 2 * count));
  t->sw_to = g_new (guint32, MAX (1u, 2 * count));
  count = 0;
  for (guint32 s = 0; s < t->n_switches; s++)
    {
      guint32 v = first + s;
      t->sw_start[s] = count;
      for (guint32 e = t->adj_start[v]; e < t->adj_start[v + 1]; e++)
        {
          guint32 l = t->adj_link[e], u = other_end (t, l, v);
          if (u >= first && g_array_index (t->links, SimLink, l).tier != SIM_TIER_INTRA)
            {
              t->sw_link[count] = l;
              t->sw_to[count] = u - first;
              count++;
            }
        }
    }
  t->sw_start[t->n_switches] = count;
  t->net_state = 1;
}

/* The hop distances to switch @s (a switch number) over the links
 * between switches, cached with the other tables (keyed by its vertex,
 * which no NIC's table shares). */
static const DistTable *
switch_table (SimTopology *t, guint32 s)
{
  guint32 dst = t->first_switch + s, *queue = t->bfs_queue, head = 0, tail = 0;
  DistTable *d = g_hash_table_lookup (t->global_cache, GUINT_TO_POINTER (dst));

  if (d != NULL)
    return d;
  d = g_new (DistTable, 1);
  d->dist = g_new (guint16, MAX (1u, t->n_switches));
  d->bytes = t->n_switches * sizeof (guint16);
  for (guint32 x = 0; x < t->n_switches; x++)
    d->dist[x] = UNREACHED;
  d->dist[s] = 0;
  queue[tail++] = s;
  while (head < tail)
    {
      guint32 x = queue[head++];
      guint16 dx = d->dist[x];
      for (guint32 e = t->sw_start[x]; e < t->sw_start[x + 1]; e++)
        if (d->dist[t->sw_to[e]] == UNREACHED && dx + 1 < UNREACHED)
          {
            d->dist[t->sw_to[e]] = (guint16) (dx + 1);
            queue[tail++] = t->sw_to[e];
          }
    }
  cache_add (t, dst, FALSE, d);
  return d;
}

/* Distances on a dragonfly, from its structure.  Routers come in groups
 * of a, every two routers of a group joined (local links), and global
 * links between groups, every two groups joined by at least one.  For a
 * router x, let G(x) be the routers x has a global link to, and N[x] its
 * group together with G(x): x and its neighbours.  Over the links between
 * switches, the hop distance from router u to router d is then:
 *   0  if u = d;
 *   1  if u is in N[d] (d's group, or a global link between them);
 *   2  if N[u] meets N[d]: u's group holds a router of N[d] (d has a
 *      global link into it), or a router of G(u) is in N[d] (u has a
 *      global link into d's group, or they share a global neighbour in a
 *      third group);
 *   3  otherwise: a local hop to a router with a link into d's group,
 *      that link, and a local hop to d.
 * Those are the distances a breadth-first search from d finds, parallel
 * links and all, for every such graph, however the global ports are
 * allocated.  A walk towards d needs only whether each neighbour of the
 * router it is on is one hop closer (dfly_closer()).  With N[d] and the
 * groups meeting it marked (about a + global ports stores, once per
 * route between groups, none when the destination router is the previous
 * route's; a route inside a group needs no marks), the
 * last hop compares each link's far end with d, the hop before reads a
 * mark per link, and the first hop of a route of three reads a group's
 * mark per link and, for neighbours whose group does not meet N[d], may
 * scan their global links (at most their global ports).  Each router
 * also keeps a 64-bit signature of the groups its global links reach (bit
 * g mod 64 for group g): a router none of whose bits is among those of
 * the groups meeting N[d] has no global neighbour in N[d], which spares
 * most of those scans.  Nothing is kept per destination, so there is no
 * table to compute or evict.
 *
 * The groups are taken from build_dragonfly()'s parameters, kept in the
 * topology, rather than found in the graph (which would mean finding its
 * cliques); but the structure is checked on the built graph before it is
 * used: the switches are exactly the groups' routers, numbered group by
 * group, every two routers of a group are joined, no link joins a router
 * to itself, and every group has a link to every other.  A graph that
 * departs from it in any way (a builder that cables otherwise, or links
 * that are missing) routes by the search.  O(vertices + links), on the
 * first walk. */
static void
dfly_init (SimTopology *t)
{
  guint32 a = t->dfly_a, groups = t->dfly_groups, nsw = t->n_switches, count = 0;
  g_autofree guint32 *stamp = NULL;

  if (a == 0 || groups == 0 || (guint64) a * groups != nsw)
    return;
  for (guint32 s = 0; s < nsw; s++)
    if (vertex_kind (t, t->first_switch + s) != SIM_VERTEX_ROUTER)
      return;
  /* Each router joined to the a - 1 others of its group (stamp[u] == s + 1
   * once u is counted for s), and no link to itself. */
  stamp = g_new0 (guint32, MAX (1u, MAX (nsw, groups)));
  for (guint32 s = 0; s < nsw; s++)
    {
      guint32 local = 0;
      for (guint32 e = t->sw_start[s]; e < t->sw_start[s + 1]; e++)
        {
          guint32 u = t->sw_to[e];
          if (u == s)
            return;
          if (u / a != s / a)
            count++;
          else if (stamp[u] != s + 1)
            {
              stamp[u] = s + 1;
              local++;
            }
        }
      if (local != a - 1)
        return;
    }
  /* Each group joined to the groups - 1 others (stamp[h] == g + 1 once
   * group h is counted for group g). */
  memset (stamp, 0, MAX (1u, MAX (nsw, groups)) * sizeof (guint32));
  for (guint32 g = 0; g < groups; g++)
    {
      guint32 reached = 0;
      for (guint32 s = g * a; s < (g + 1) * a; s++)
        for (guint32 e = t->sw_start[s]; e < t->sw_start[s + 1]; e++)
          {
            guint32 h = t->sw_to[e] / a;
            if (h != g && stamp[h] != g + 1)
              {
                stamp[h] = g + 1;
                reached++;
              }
          }
      if (reached != groups - 1)
        return;
    }

  t->gl_start = g_new (guint32, nsw + 1);
  t->gl_to = g_new (guint32, MAX (1u, count));
  t->gl_sig = g_new0 (guint64, MAX (1u, nsw));
  count = 0;
  for (guint32 s = 0; s < nsw; s++)
    {
      t->gl_start[s] = count;
      for (guint32 e = t->sw_start[s]; e < t->sw_start[s + 1]; e++)
        if (t->sw_to[e] / a != s / a)
          {
            t->gl_to[count++] = t->sw_to[e];
            t->gl_sig[s] |= G_GUINT64_CONSTANT (1) << (t->sw_to[e] / a % 64);
          }
    }
  t->gl_start[nsw] = count;
  t->gl_mark = g_new0 (guint32, MAX (1u, nsw));
  t->gl_gmark = g_new0 (guint32, groups);
  t->gl_now = 0;
  t->gl_dst = NO_NODE;
  t->dfly = TRUE;
}

/* Marks N[@d] and the groups that meet it, unless they are marked
 * already. */
static void
dfly_mark (SimTopology *t, guint32 d)
{
  guint32 a = t->dfly_a, lo = d / a * a;

  if (t->gl_dst == d)
    return;
  if (++t->gl_now == 0)
    {
      memset (t->gl_mark, 0, t->n_switches * sizeof (guint32));
      memset (t->gl_gmark, 0, t->dfly_groups * sizeof (guint32));
      t->gl_now = 1;
    }
  for (guint32 u = lo; u < lo + a; u++)
    t->gl_mark[u] = t->gl_now;
  t->gl_gmark[d / a] = t->gl_now;
  t->gl_gsig = t->gl_sig[d] | G_GUINT64_CONSTANT (1) << (d / a % 64);
  for (guint32 i = t->gl_start[d]; i < t->gl_start[d + 1]; i++)
    {
      t->gl_mark[t->gl_to[i]] = t->gl_now;
      t->gl_gmark[t->gl_to[i] / a] = t->gl_now;
    }
  t->gl_dst = d;
}

/* Whether router @u is at most two hops from the router marked by
 * dfly_mark(): whether N[u] meets N[d] (u's group, or one of its global
 * neighbours). */
static inline gboolean
dfly_within_2 (const SimTopology *t, guint32 u)
{
  const guint32 *mark = t->gl_mark, now = t->gl_now;

  if (t->gl_gmark[u / t->dfly_a] == now)
    return TRUE;
  /* A router of G(u) in N[d] would have its group among those meeting
   * N[d]: where none of u's groups can be one (by their bits), no scan. */
  if ((t->gl_sig[u] & t->gl_gsig) == 0)
    return FALSE;
  for (guint32 i = t->gl_start[u]; i < t->gl_start[u + 1]; i++)
    if (mark[t->gl_to[i]] == now)
      return TRUE;
  return FALSE;
}

/* The hop distance from router @u to router @d, marked by dfly_mark(). */
static guint
dfly_dist (const SimTopology *t, guint32 u, guint32 d)
{
  if (u == d)
    return 0;
  if (t->gl_mark[u] == t->gl_now)
    return 1;
  return dfly_within_2 (t, u) ? 2 : 3;
}

/* The links of a walk's hop from router @s, at distance @ds from router
 * @d (marked by dfly_mark()), to routers one hop closer, in adjacency
 * order, into @cand; returns their count.  A neighbour of @s is at
 * distance ds - 1 or more, so "at most ds - 1" is "exactly". */
static guint
dfly_closer (const SimTopology *t, guint32 s, guint32 d, guint ds, guint32 *cand)
{
  guint n = 0;

  if (ds == 1)
    {
      for (guint32 e = t->sw_start[s]; e < t->sw_start[s + 1]; e++)
        if (t->sw_to[e] == d)
          cand[n++] = t->sw_link[e];
    }
  else if (ds == 2)
    {
      for (guint32 e = t->sw_start[s]; e < t->sw_start[s + 1]; e++)
        if (t->gl_mark[t->sw_to[e]] == t->gl_now && t->sw_to[e] != d)
          cand[n++] = t->sw_link[e];
    }
  else
    {
      for (guint32 e = t->sw_start[s]; e < t->sw_start[s + 1]; e++)
        if (dfly_within_2 (t, t->sw_to[e]))
          cand[n++] = t->sw_link[e];
    }
  return n;
}

/* What walks over the network need, on the first one. */
static void
net_setup (SimTopology *t)
{
  net_init (t);
  if (t->net_state > 0)
    dfly_init (t);
}

gboolean
sim__topology_dragonfly_structure (SimTopology *topology)
{
  g_return_val_if_fail (topology != NULL, FALSE);
  if (topology->net_state == 0)
    net_setup (topology);
  return topology->net_state > 0 && topology->dfly;
}

/* The network part of a route from NIC @ns to NIC @nd: what walk() from
 * one's vertex to the other's over the network gives, choosing as @r
 * says.  FALSE (nothing appended) if they are not connected.  Each hop
 * takes, among the switch's links to switches in adjacency order, those
 * that lead one hop closer to the destination NIC's switch, by the
 * distances of a search from it (switch_table()) or, on a dragonfly, of
 * its structure (dfly_dist()): the same distances, so the same hops. */
static gboolean
net_walk (SimTopology *t, guint32 ns, guint32 nd, Route *r)
{
  guint32 vs = t->nic_vertex[ns], vd = t->nic_vertex[nd], first, s, sd;
  const DistTable *d = NULL;
  guint ds;

  if (t->net_state == 0)
    net_setup (t);
  if (t->net_state < 0 || t->search)
    return walk (t, vs, vd, NULL, r);
  first = t->first_switch;
  s = other_end (t, t->nic_access[ns], vs) - first;
  sd = other_end (t, t->nic_access[nd], vd) - first;
  if (t->dfly)
    {
      /* Inside a group the one hop looks for @sd itself: no marks. */
      if (s / t->dfly_a == sd / t->dfly_a)
        ds = s == sd ? 0 : 1;
      else
        {
          dfly_mark (t, sd);
          ds = dfly_dist (t, s, sd);
        }
    }
  else
    {
      d = switch_table (t, sd);
      if (d->dist[s] == UNREACHED)
        return FALSE;
      ds = d->dist[s];
    }
  take (t, r, t->nic_access[ns], vs);
  r->hop++;
  for (; s != sd; ds--)
    {
      guint32 *cand = cand_buffer (t, t->sw_start[s + 1] - t->sw_start[s]);
      guint n = 0;

      if (d != NULL)
        {
          guint16 want = (guint16) (ds - 1);
          for (guint32 e = t->sw_start[s]; e < t->sw_start[s + 1]; e++)
            if (d->dist[t->sw_to[e]] == want)
              cand[n++] = t->sw_link[e];
        }
      else
        n = dfly_closer (t, s, sd, ds, cand);
      g_assert (n > 0);
      if (n > 1)
        r->forked = TRUE;
      s = take (t, r, choose (t, r, first + s, cand, n, FALSE), first + s) - first;
      r->hop++;
    }
  take (t, r, t->nic_access[nd], first + sd);
  r->hop++;
  return TRUE;
}

/* A walk between two NICs kept (net_walk_kept()): one cache line,
 * direct-mapped by the pair. */
#define WALK_KEPT_LEN 9

typedef struct WalkKept {
  guint64 key;                     /* (ns << 32 | nd) + 1; 0: empty */
  SimTime latency;
  guint64 div;                     /* Route.div after it, from 1 */
  guint8  len;
  guint8  forked;
  guint32 res[WALK_KEPT_LEN];
} __attribute__ ((aligned (64))) WalkKept;

G_STATIC_ASSERT (sizeof (WalkKept) == 64);

/* net_walk(), kept by its two NICs where D-mod-K or spraying routes and
 * their closed form does not apply (on a tree, the flows to or from a
 * leaf with fewer uplinks than the others).  Such a walk picks each hop
 * by the destination's number, from the network's fixed distances: it
 * depends on the two NICs alone, and the route, its latency, its hops,
 * whether it chose, and the product of its choices are the same each
 * time.  So the first walk between two NICs is kept (up to
 * WALK_KEPT_LEN hops), and later ones copy it: every route the same to
 * the bit, where a walk scans each switch's links on the way. */
static gboolean
net_walk_kept (SimTopology *t, guint32 ns, guint32 nd, Route *r)
{
  guint64 key = ((guint64) ns << 32 | nd) + 1;
  guint len0 = route_len (r);
  gboolean forked = r->forked;
  WalkKept *w;

  if ((t->routing != SIM_ROUTING_DMODK && t->routing != SIM_ROUTING_SPRAY) || t->search
      || r->div != 1)
    return net_walk (t, ns, nd, r);
  if (G_UNLIKELY (t->walk_kept == NULL))
    {
      guint bits = 10;
      while (bits < 16 && (1u << bits) < 16 * t->n_nics)
        bits++;
      t->walk_kept = g_aligned_alloc0 (1u << bits, sizeof (WalkKept), 64);
      t->walk_shift = 64 - bits;
    }
  w = &t->walk_kept[(key * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15)) >> t->walk_shift];
  if (w->key == key)
    {
      for (guint i = 0; i < w->len; i++)
        route_push (r, w->res[i]);
      r->latency += w->latency;
      r->hop += w->len;
      r->div = w->div;
      r->forked |= w->forked;
      return TRUE;
    }
  {
    SimTime lat0 = r->latency;
    guint len;
    r->forked = FALSE;
    if (!net_walk (t, ns, nd, r))
      {
        r->forked |= forked;
        return FALSE;
      }
    len = route_len (r) - len0;
    /* (Every hop of the walk is one resource.) */
    if (len <= WALK_KEPT_LEN)
      {
        w->key = key;
        w->latency = r->latency - lat0;
        w->div = r->div;
        w->len = (guint8) len;
        w->forked = (guint8) r->forked;
        for (guint i = 0; i < len; i++)
          w->res[i] = route_at (r, len0 + i);
      }
    r->forked |= forked;
    return TRUE;
  }
}

/* Routes inside nodes.  The nodes of one model are copies of each other:
 * the same vertices and links in the same order, offset by the node's
 * first GPU, first other vertex and first link (build_node() cables a
 * node's links in one go).  A walk inside a node sees only those links
 * and the distances over them, so it takes the same hops in every copy,
 * up to the offsets.  Where no hop had a choice (the flow hash played no
 * part), the route between two vertices of a node is kept once for every
 * node of its shape, as resources relative to the node's first link, and
 * later routes copy it: a few stores instead of a table look-up and a
 * scan of each vertex's links per hop.  A segment whose walk chose by the
 * hash (an NVSwitch node with fewer NICs than GPUs has some) is walked
 * each time.  Nodes whose links are not in one run, or too large for a
 * table of every pair of their vertices, always walk. */

/* Room sim__topology_node_routes_fixed() gives a route (a longer one is
 * measured, not written). */
#define ROUTE_ROOM_CHECK 32
/* Vertices of a node beyond which routes inside it are not kept. */
#define SHAPE_MAX_VERTICES 512u
/* Kinds of segment[] entries that are not an index into segments. */
#define SEG_UNKNOWN G_MAXUINT32        /* not routed yet */
#define SEG_WALK    (G_MAXUINT32 - 1)  /* chosen by the hash: walked each time */
#define SEG_NONE    (G_MAXUINT32 - 2)  /* not connected */

typedef struct {
  guint32 start, len;   /* in the shape's steps */
  SimTime latency;
} Segment;

typedef struct {
  guint32  node;        /* the first node of this shape */
  guint32  n_links;
  guint32  n_local;     /* vertices per node */
  guint32 *segment;     /* n_local x n_local, by local index from and to: an index in
                         * segments or a SEG_ kind; NULL until first used */
  GArray  *segments;    /* Segment */
  GArray  *steps;       /* guint32: a resource less twice the node's first link */
  guint8   gpus_fixed;  /* sim__topology_node_routes_fixed(): 0 not known yet, 1 every
                         * route between two of its GPUs fixed, 2 not */
  guint8   apart;       /* sim__topology_node_apart(): 0 not known yet, 1 yes, 2 no */
} Shape;

static void
shape_free (gpointer p)
{
  Shape *s = p;

  g_free (s->segment);
  g_array_unref (s->segments);
  g_array_unref (s->steps);
  g_free (s);
}

/* A hash of what a walk inside @node depends on: its size, its links
 * (ends by local index, and latency) and its vertices' latencies. */
static guint
shape_signature (const SimTopology *t, guint32 node, guint32 n_links)
{
  const NodeSpan *span = &t->spans[node];
  guint32 link0 = t->node_link0[node];
  guint64 h = (guint64) span->n_gpus << 40 ^ (guint64) span->n_extra << 20 ^ n_links;

  for (guint32 i = 0; i < n_links; i++)
    {
      const SimLink *k = &g_array_index (t->links, SimLink, link0 + i);
      h = mix64 (h ^ ((guint64) local_index (t, span, k->a) << 32 | local_index (t, span, k->b)));
      h = mix64 (h ^ (guint64) k->latency);
    }
  for (guint32 x = 0; x < span->n_gpus + span->n_extra; x++)
    {
      guint32 v = x < span->n_gpus ? span->first_gpu + x
                                   : span->first_extra + (x - span->n_gpus);
      h = mix64 (h ^ (guint64) g_array_index (t->latency, SimTime, v));
    }
  return (guint) (h ^ h >> 32);
}

/* Whether nodes @a and @b (of @n_links links each) route alike. */
static gboolean
shape_equal (const SimTopology *t, guint32 a, guint32 b, guint32 n_links)
{
  const NodeSpan *sa = &t->spans[a], *sb = &t->spans[b];

  if (sa->n_gpus != sb->n_gpus || sa->n_extra != sb->n_extra)
    return FALSE;
  for (guint32 i = 0; i < n_links; i++)
    {
      const SimLink *ka = &g_array_index (t->links, SimLink, t->node_link0[a] + i);
      const SimLink *kb = &g_array_index (t->links, SimLink, t->node_link0[b] + i);
      if (local_index (t, sa, ka->a) != local_index (t, sb, kb->a)
          || local_index (t, sa, ka->b) != local_index (t, sb, kb->b)
          || ka->latency != kb->latency)
        return FALSE;
    }
  for (guint32 x = 0; x < sa->n_gpus + sa->n_extra; x++)
    {
      guint32 va = x < sa->n_gpus ? sa->first_gpu + x : sa->first_extra + (x - sa->n_gpus);
      guint32 vb = x < sb->n_gpus ? sb->first_gpu + x : sb->first_extra + (x - sb->n_gpus);
      if (g_array_index (t->latency, SimTime, va) != g_array_index (t->latency, SimTime, vb))
        return FALSE;
    }
  return TRUE;
}

/* Sorts the nodes into shapes, on the first route.  O(vertices + links). */
static void
shapes_init (SimTopology *t)
{
  guint nn = MAX (1u, t->n_nodes);
  g_autofree guint32 *count = g_new0 (guint32, nn);
  g_autofree guint32 *last = g_new0 (guint32, nn);
  g_autoptr(GHashTable) by_signature = g_hash_table_new (g_direct_hash, g_direct_equal);

  t->shapes = g_ptr_array_new_with_free_func (shape_free);
  t->node_shape = g_new (guint32, nn);
  t->node_link0 = g_new (guint32, nn);
  for (guint32 n = 0; n < t->n_nodes; n++)
    t->node_link0[n] = NO_NODE;
  for (guint32 l = 0; l < t->links->len; l++)
    {
      const SimLink *k = &g_array_index (t->links, SimLink, l);
      guint32 node = g_array_index (t->node_of, guint32, k->a);

      if (k->tier != SIM_TIER_INTRA || node == NO_NODE)
        continue;
      if (t->node_link0[node] == NO_NODE)
        t->node_link0[node] = l;
      count[node]++;
      last[node] = l;
    }
  for (guint32 n = 0; n < t->n_nodes; n++)
    {
      const NodeSpan *span = &t->spans[n];
      guint32 n_local = span->n_gpus + span->n_extra, sig;
      Shape *shape;
      gpointer found;

      t->node_shape[n] = NO_NODE;
      if (count[n] == 0)
        t->node_link0[n] = 0;
      else if (last[n] - t->node_link0[n] + 1 != count[n])
        continue;  /* links not in one run: no offset relates this node to another */
      if (n_local > SHAPE_MAX_VERTICES)
        continue;
      sig = shape_signature (t, n, count[n]);
      found = g_hash_table_lookup (by_signature, GUINT_TO_POINTER (sig));
      if (found != NULL)
        {
          guint32 i = GPOINTER_TO_UINT (found) - 1;
          shape = g_ptr_array_index (t->shapes, i);
          if (shape->n_links == count[n] && shape_equal (t, shape->node, n, count[n]))
            {
              t->node_shape[n] = i;
              continue;
            }
        }
      shape = g_new0 (Shape, 1);
      shape->node = n;
      shape->n_links = count[n];
      shape->n_local = n_local;
      shape->segments = g_array_new (FALSE, FALSE, sizeof (Segment));
      shape->steps = g_array_new (FALSE, FALSE, sizeof (guint32));
      t->node_shape[n] = t->shapes->len;
      if (found == NULL)  /* (a colliding signature keeps its first shape) */
        g_hash_table_insert (by_signature, GUINT_TO_POINTER (sig),
                             GUINT_TO_POINTER (t->shapes->len + 1));
      g_ptr_array_add (t->shapes, shape);
    }
}

/* node_route() when the segment is not kept yet, or not kept at all. */
G_NO_INLINE static gboolean
node_route_walk (SimTopology *t, guint32 node, guint32 from, guint32 to, Route *r)
{
  const NodeSpan *span = &t->spans[node];
  guint32 sh, *slot, len0, base;
  SimTime lat0;
  gboolean forked;
  Shape *shape;

  if (t->shapes == NULL)
    shapes_init (t);
  sh = t->node_shape[node];
  if (sh == NO_NODE || t->search)
    return walk (t, from, to, span, r);
  shape = g_ptr_array_index (t->shapes, sh);
  if (shape->segment == NULL)
    {
      gsize n = (gsize) shape->n_local * shape->n_local;
      shape->segment = g_new (guint32, MAX ((gsize) 1, n));
      memset (shape->segment, 0xff, n * sizeof (guint32));  /* SEG_UNKNOWN */
    }
  slot = &shape->segment[(gsize) local_index (t, span, from) * shape->n_local
                         + local_index (t, span, to)];
  base = 2 * t->node_link0[node];
  if (*slot < SEG_NONE)
    {
      /* Kept, but longer than the buffer has room for. */
      const Segment *s = &g_array_index (shape->segments, Segment, *slot);
      const guint32 *step = &g_array_index (shape->steps, guint32, s->start);

      for (guint32 i = 0; i < s->len; i++)
        route_push (r, base + step[i]);
      r->latency += s->latency;
      r->hop += s->len;
      return TRUE;
    }
  if (*slot == SEG_NONE)
    return FALSE;
  if (*slot == SEG_WALK)
    return walk (t, from, to, span, r);

  /* First time: walk, and keep the segment if no hop chose (whether a hop
   * of the route before it chose stays known). */
  len0 = route_len (r);
  lat0 = r->latency;
  forked = r->forked;
  r->forked = FALSE;
  if (!walk (t, from, to, span, r))
    {
      *slot = SEG_NONE;
      r->forked = forked;
      return FALSE;
    }
  if (r->forked)
    *slot = SEG_WALK;
  else
    {
      Segment s = { .start = shape->steps->len, .len = route_len (r) - len0,
                    .latency = r->latency - lat0 };
      for (guint32 i = len0; i < route_len (r); i++)
        {
          guint32 x = route_at (r, i) - base;
          g_array_append_val (shape->steps, x);
        }
      *slot = shape->segments->len;
      g_array_append_val (shape->segments, s);
    }
  r->forked = r->forked || forked;
  return TRUE;
}

/* Copies the route from @from to @to, two vertices of @node, from the
 * node's shape into @out (room for @room): its length and latency into
 * *@len and *@latency, or FALSE (nothing written) if the shape does not
 * keep it or it does not fit. */
static inline gboolean
node_segment (const SimTopology *t, guint32 node, guint32 from, guint32 to, guint32 *out,
              guint room, guint *len, SimTime *latency)
{
  const NodeSpan *span = &t->spans[node];
  const Shape *shape;
  const Segment *s;
  const guint32 *step;
  guint32 sh, k, base;

  if (G_UNLIKELY (t->shapes == NULL) || (sh = t->node_shape[node]) == NO_NODE)
    return FALSE;
  shape = g_ptr_array_index (t->shapes, sh);
  if (G_UNLIKELY (shape->segment == NULL))
    return FALSE;
  k = shape->segment[(gsize) local_index (t, span, from) * shape->n_local
                     + local_index (t, span, to)];
  if (k >= SEG_NONE)
    return FALSE;
  s = &g_array_index (shape->segments, Segment, k);
  if (s->len > room)
    return FALSE;
  step = &g_array_index (shape->steps, guint32, s->start);
  base = 2 * t->node_link0[node];
  for (guint32 i = 0; i < s->len; i++)
    out[i] = base + step[i];
  *len = s->len;
  *latency = s->latency;
  return TRUE;
}

/* Appends the route from @from to @to, two vertices of @node, over the
 * node's links: what walk() gives, copied from the node's shape when it
 * is kept (inline: most routes take two such copies).  FALSE if @to is
 * not reachable. */
G_ALWAYS_INLINE static inline gboolean
node_route (SimTopology *t, guint32 node, guint32 from, guint32 to, Route *r)
{
  guint len;
  SimTime latency;

  if (G_LIKELY (node_segment (t, node, from, to, r->buf + r->n, r->room - r->n, &len,
                              &latency)))
    {
      r->n += len;
      r->latency += latency;
      r->hop += len;
      return TRUE;
    }
  return node_route_walk (t, node, from, to, r);
}

/* The route between two GPUs of one node, written straight into @out when
 * the node's shape keeps it and it fits in @room, as node_route() would
 * copy it: FALSE (and nothing written) otherwise.  Half the routes of a
 * run are such, and this spares them route_build()'s setting up. */
static inline gboolean
route_in_node (const SimTopology *t, guint32 src_gpu, guint32 dst_gpu, guint32 *out,
               guint room, guint *len, SimTime *latency)
{
  guint32 node = g_array_index (t->node_of, guint32, src_gpu);

  return node == g_array_index (t->node_of, guint32, dst_gpu) && !t->search
         && node_segment (t, node, src_gpu, dst_gpu, out, room, len, latency);
}

/* Appends @n bytes of @p to @sig. */
static inline void
sig_put (GByteArray *sig, gconstpointer p, guint n)
{
  g_byte_array_append (sig, p, n);
}

/* The switch of @node's NICs, as sim__topology_node_switch() defines it,
 * and what its kind depends on into @sig; NO_NODE (and @sig as it may be)
 * if it has none. */
static guint32
node_switch_of (const SimTopology *t, guint32 node, const guint32 *nic_start, GByteArray *sig)
{
  const NodeSpan *span = &t->spans[node];
  const Shape *shape;
  guint32 sw = NO_NODE, n_nics = nic_start[node + 1] - nic_start[node];
  SimTime lat;

  if (t->node_shape[node] == NO_NODE || n_nics == 0)
    return NO_NODE;
  shape = g_ptr_array_index (t->shapes, t->node_shape[node]);
  g_byte_array_set_size (sig, 0);
  sig_put (sig, &t->node_shape[node], sizeof (guint32));
  for (guint32 i = 0; i < shape->n_links; i++)
    {
      const SimLink *k = &g_array_index (t->links, SimLink, t->node_link0[node] + i);
      double cap = k->bandwidth * k->efficiency;
      sig_put (sig, &cap, sizeof cap);
    }
  /* Every link out of the node is a NIC's one link to its switch. */
  for (guint32 x = 0; x < span->n_gpus + span->n_extra; x++)
    {
      guint32 v = x < span->n_gpus ? span->first_gpu + x : span->first_extra + (x - span->n_gpus);
      guint out = 0;
      for (guint32 e = t->adj_start[v]; e < t->adj_start[v + 1]; e++)
        if (g_array_index (t->node_of, guint32, other_end (t, t->adj_link[e], v)) != node)
          out++;
      if (out > (vertex_kind (t, v) == SIM_VERTEX_NIC ? 1u : 0u))
        return NO_NODE;
    }
  sig_put (sig, &n_nics, sizeof n_nics);
  for (guint32 n = nic_start[node]; n < nic_start[node + 1]; n++)
    {
      guint32 l = t->nic_access[n], at;
      const SimLink *k;
      double cap;
      if (l == NO_NODE)
        return NO_NODE;
      k = &g_array_index (t->links, SimLink, l);
      at = other_end (t, l, t->nic_vertex[n]);
      if (sw == NO_NODE)
        sw = at;
      else if (at != sw)
        return NO_NODE;
      cap = k->bandwidth * k->efficiency;
      at = local_index (t, span, t->nic_vertex[n]);
      sig_put (sig, &at, sizeof at);
      sig_put (sig, &cap, sizeof cap);
      sig_put (sig, &k->latency, sizeof k->latency);
    }
  lat = g_array_index (t->latency, SimTime, sw);
  sig_put (sig, &lat, sizeof lat);
  return sw;
}

/* The number of @sig's bytes in @table (bytes -> number), given the next
 * one if they have none. */
static guint32
intern_bytes (GHashTable *table, const GByteArray *sig)
{
  GBytes *key = g_bytes_new (sig->data, sig->len);
  gpointer found;
  guint32 id;

  if (g_hash_table_lookup_extended (table, key, NULL, &found))
    {
      g_bytes_unref (key);
      return GPOINTER_TO_UINT (found);
    }
  id = g_hash_table_size (table);
  g_hash_table_insert (table, key, GUINT_TO_POINTER (id));
  return id;
}

/* The kind of switch @sw's uplinks (sim__topology_node_uplinks()), from
 * @table, @sig as scratch. */
static guint32
switch_uplinks (const SimTopology *t, guint32 sw, GByteArray *sig, GHashTable *table)
{
  guint32 n = n_up (t, sw);

  gboolean alike = TRUE;
  double cap0 = 0;
  SimTime link0 = 0, far0 = 0;

  g_byte_array_set_size (sig, 0);
  sig_put (sig, &n, sizeof n);
  for (guint32 e = t->up_start[sw]; e < t->up_start[sw + 1]; e++)
    {
      const SimLink *k = &g_array_index (t->links, SimLink, t->up_link[e]);
      double cap = k->bandwidth * k->efficiency;
      SimTime lat = g_array_index (t->latency, SimTime, other_end (t, t->up_link[e], sw));
      sig_put (sig, &cap, sizeof cap);
      sig_put (sig, &k->latency, sizeof k->latency);
      sig_put (sig, &lat, sizeof lat);
      if (e == t->up_start[sw])
        {
          cap0 = cap;
          link0 = k->latency;
          far0 = lat;
        }
      alike = alike && cap == cap0 && k->latency == link0 && lat == far0;
    }
  return intern_bytes (table, sig) | (alike ? UPLINKS_ALIKE : 0);
}

gboolean
sim__topology_node_uplinks (SimTopology *topology, guint32 node, guint32 *nic0, guint32 *n_up_,
                            guint32 *up_kind, guint32 *spines)
{
  SimTopology *t = topology;

  g_return_val_if_fail (t != NULL && node < t->n_nodes, FALSE);
  if (sim__topology_node_switch (t, node, NULL) == NO_NODE || t->node_up[node] == NO_NODE)
    return FALSE;
  *nic0 = t->node_nic0[node];
  *n_up_ = n_up (t, t->node_switch[node]);
  *up_kind = t->node_up[node];
  *spines = t->node_spines[node];
  return TRUE;
}

/* sim__topology_node_switch()'s and sim__topology_node_uplinks()' tables,
 * for every node at once: O(links). */
static void
node_switches_init (SimTopology *t)
{
  g_autoptr(GHashTable) kinds = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                                       (GDestroyNotify) g_bytes_unref, NULL);
  g_autoptr(GHashTable) ups = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                                     (GDestroyNotify) g_bytes_unref, NULL);
  g_autoptr(GHashTable) spines = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                                        (GDestroyNotify) g_bytes_unref, NULL);
  /* (A switch's uplinks, worked out once: switch -> kind << 32 | spines.) */
  g_autoptr(GHashTable) of_switch = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                                           g_free);
  g_autoptr(GByteArray) sig = g_byte_array_new ();
  g_autofree guint32 *nic_start = g_new0 (guint32, t->n_nodes + 1);
  gboolean in_order = TRUE;
  guint32 last = 0, n = MAX (t->n_nodes, 1);

  if (t->shapes == NULL)
    shapes_init (t);
  /* (NICs are numbered node by node: a NIC out of that order, or of no
   * node, leaves every node without a switch.) */
  for (guint32 i = 0; i < t->n_nics && in_order; i++)
    {
      guint32 nd = g_array_index (t->node_of, guint32, t->nic_vertex[i]);
      in_order = nd < t->n_nodes && nd >= last;
      if (in_order)
        nic_start[nd + 1]++;
      last = nd;
    }
  for (guint32 v = 0; v < t->n_nodes; v++)
    nic_start[v + 1] = in_order ? nic_start[v + 1] + nic_start[v] : 0;
  t->node_switch = g_new (guint32, n);
  t->node_kind = g_new (guint32, n);
  t->node_nic0 = g_new (guint32, n);
  t->node_up = g_new (guint32, n);
  t->node_spines = g_new (guint32, n);
  for (guint32 v = 0; v < t->n_nodes; v++)
    {
      guint64 *up;
      guint32 sw;
      t->node_switch[v] = sw = node_switch_of (t, v, nic_start, sig);
      t->node_kind[v] = t->node_up[v] = t->node_spines[v] = NO_NODE;
      t->node_nic0[v] = nic_start[v];
      if (sw == NO_NODE)
        continue;
      t->node_kind[v] = intern_bytes (kinds, sig);
      if (!t->tree || t->routing != SIM_ROUTING_DMODK || n_up (t, sw) == 0)
        continue;
      up = g_hash_table_lookup (of_switch, GUINT_TO_POINTER (sw));
      if (up == NULL)
        {
          up = g_new (guint64, 1);
          *up = (guint64) switch_uplinks (t, sw, sig, ups) << 32;
          g_byte_array_set_size (sig, 0);
          for (guint32 e = t->up_start[sw]; e < t->up_start[sw + 1]; e++)
            {
              guint32 to = other_end (t, t->up_link[e], sw);
              sig_put (sig, &to, sizeof to);
            }
          *up |= intern_bytes (spines, sig);
          g_hash_table_insert (of_switch, GUINT_TO_POINTER (sw), up);
        }
      t->node_up[v] = (guint32) (*up >> 32);
      t->node_spines[v] = (guint32) *up;
    }
}

guint32
sim__topology_node_switch (SimTopology *topology, guint32 node, guint32 *kind)
{
  SimTopology *t = topology;

  g_return_val_if_fail (t != NULL && node < t->n_nodes, NO_NODE);
  if (G_UNLIKELY (t->node_switch == NULL))
    node_switches_init (t);
  if (kind != NULL)
    *kind = t->node_kind[node];
  return t->node_switch[node];
}

void
sim__topology_set_search (SimTopology *topology, gboolean search)
{
  g_return_if_fail (topology != NULL);
  topology->search = search;
  /* Drops what was kept: node_route() copies whatever it finds. */
  g_clear_pointer (&topology->shapes, g_ptr_array_unref);
  g_clear_pointer (&topology->node_shape, g_free);
  g_clear_pointer (&topology->node_link0, g_free);
  g_clear_pointer (&topology->node_switch, g_free);
  g_clear_pointer (&topology->node_kind, g_free);
  g_clear_pointer (&topology->node_nic0, g_free);
  g_clear_pointer (&topology->node_up, g_free);
  g_clear_pointer (&topology->node_spines, g_free);
}

gboolean
sim_topology_route_via (SimTopology *topology, guint32 src_gpu, guint32 nic_gpu,
                        guint32 dst_gpu, guint64 flow_hash, const guint32 *load,
                        GArray *resources, SimTime *latency)
{
  g_return_val_if_fail (resources != NULL, FALSE);
  g_array_set_size (resources, 0);
  return sim__topology_route_fixed (topology, src_gpu, nic_gpu, dst_gpu, flow_hash, load,
                                    resources, latency, NULL);
}

/* Starts @r: empty, gathered in @buf (room for @room), its spills into
 * @res from its end on. */
static void
route_begin (Route *r, SimTopology *t, guint32 *buf, guint room, GArray *res,
             guint64 flow_hash, const guint32 *load)
{
  r->buf = buf;
  r->room = room;
  r->res = res;
  r->base = res->len;
  r->held = 0;
  r->n = 0;
  r->latency = 0;
  r->mode = t->routing;
  r->hash = flow_hash;
  r->hop = 0;
  r->dest = 0;
  r->div = 1;
  r->load = load;
  r->forked = FALSE;
}

/* The route from @src_gpu to @dst_gpu (two GPUs, not the same) into @r,
 * leaving by a NIC of @nic_gpu's: FALSE if there is none (what @r spilled
 * is then the caller's to drop), else whether it depends only on the
 * GPUs into *@fixed (nullable), as sim__topology_route_fixed() says. */
static gboolean
route_build (SimTopology *t, guint32 src_gpu, guint32 nic_gpu, guint32 dst_gpu,
             guint64 flow_hash, Route *r, gboolean *fixed)
{
  guint32 ns_node, nd_node, ns, nd;
  gboolean ok, unique_nics = TRUE;

  ns_node = g_array_index (t->node_of, guint32, src_gpu);
  nd_node = g_array_index (t->node_of, guint32, dst_gpu);
  if (ns_node == nd_node)
    ok = node_route (t, ns_node, src_gpu, dst_gpu, r);
  else
    {
      if (nic_gpu >= t->n_gpus || g_array_index (t->node_of, guint32, nic_gpu) != ns_node)
        nic_gpu = src_gpu;
      ns = nearest_nic (t, nic_gpu, flow_hash);
      nd = nearest_nic (t, dst_gpu, flow_hash);
      unique_nics = t->gpu_nic_start[nic_gpu + 1] - t->gpu_nic_start[nic_gpu] == 1
                    && t->gpu_nic_start[dst_gpu + 1] - t->gpu_nic_start[dst_gpu] == 1;
      if (ns == NO_NODE || nd == NO_NODE)
        return FALSE;
      r->dest = nd;
      ok = node_route (t, ns_node, src_gpu, t->nic_vertex[ns], r);
      if (ok)
        {
          gboolean done = FALSE;
          if (t->tree && t->routing == SIM_ROUTING_SPRAY)
            done = spray_tree (t, ns, nd, r);
          else if (t->tree && t->routing == SIM_ROUTING_DMODK)
            done = dmodk_tree (t, ns, nd, r);
          else if (t->tree)
            done = tree_walk (t, ns, nd, r);
          ok = done || net_walk_kept (t, ns, nd, r);
        }
      if (ok)
        ok = node_route (t, nd_node, t->nic_vertex[nd], dst_gpu, r);
    }
  /* Inside a node, only a walk that chose (by the hash) depends on more
   * than the two GPUs.  Across nodes, D-mod-K and spraying choose by the
   * destination's number, ECMP by the hash and adaptive routing by the
   * load; and a GPU with several nearest NICs picks one by the hash. */
  if (ok && fixed != NULL)
    *fixed = !r->forked
             && (ns_node == nd_node
                 || (unique_nics && (t->routing == SIM_ROUTING_DMODK
                                     || t->routing == SIM_ROUTING_SPRAY)));
  return ok;
}

gboolean
sim__topology_route_fixed (SimTopology *topology, guint32 src_gpu, guint32 nic_gpu,
                           guint32 dst_gpu, guint64 flow_hash, const guint32 *load,
                           GArray *resources, SimTime *latency, gboolean *fixed)
{
  SimTopology *t = topology;
  guint32 buf[ROUTE_BUF];
  Route r;

  g_return_val_if_fail (t != NULL, FALSE);
  g_return_val_if_fail (src_gpu < t->n_gpus && dst_gpu < t->n_gpus, FALSE);
  g_return_val_if_fail (resources != NULL, FALSE);
  g_return_val_if_fail (g_array_get_element_size (resources) == sizeof (guint32), FALSE);

  if (latency != NULL)
    *latency = 0;
  if (fixed != NULL)
    *fixed = FALSE;
  if (src_gpu == dst_gpu)
    return TRUE;
  /* @resources is sized once, when the route is complete. */
  route_begin (&r, t, buf, ROUTE_BUF, resources, flow_hash, load);
  if (!route_build (t, src_gpu, nic_gpu, dst_gpu, flow_hash, &r, fixed))
    {
      g_array_set_size (resources, r.base);
      if (fixed != NULL)
        *fixed = FALSE;
      return FALSE;
    }
  route_flush (&r);
  if (latency != NULL)
    *latency = r.latency;
  return TRUE;
}

gboolean
sim__topology_route_into (SimTopology *topology, guint32 src_gpu, guint32 nic_gpu,
                          guint32 dst_gpu, guint64 flow_hash, const guint32 *load,
                          guint32 *out, guint room, guint *len, SimTime *latency,
                          gboolean *fixed)
{
  SimTopology *t = topology;
  guint32 buf[8];
  Route r;
  guint n;

  g_return_val_if_fail (t != NULL && len != NULL && latency != NULL && fixed != NULL, FALSE);
  g_return_val_if_fail (src_gpu < t->n_gpus && dst_gpu < t->n_gpus, FALSE);
  g_return_val_if_fail (out != NULL || room == 0, FALSE);

  *len = 0;
  *latency = 0;
  *fixed = FALSE;
  if (src_gpu == dst_gpu)
    return TRUE;
  if (route_in_node (t, src_gpu, dst_gpu, out, room, len, latency))
    {
      /* (A kept segment is a walk that did not choose: fixed.) */
      *fixed = TRUE;
      return TRUE;
    }
  if (G_UNLIKELY (t->route_spill == NULL))
    t->route_spill = g_array_new (FALSE, FALSE, sizeof (guint32));
  if (G_UNLIKELY (t->route_spill->len > 0))
    g_array_set_size (t->route_spill, 0);
  /* Gathered in @out itself: what does not fit spills, and is only
   * measured. */
  if (room > 0)
    route_begin (&r, t, out, room, t->route_spill, flow_hash, load);
  else
    route_begin (&r, t, buf, G_N_ELEMENTS (buf), t->route_spill, flow_hash, load);
  if (!route_build (t, src_gpu, nic_gpu, dst_gpu, flow_hash, &r, fixed))
    {
      *fixed = FALSE;
      return FALSE;
    }
  n = route_len (&r);
  *len = n;
  *latency = r.latency;
  /* (A flush happens only with the buffer full: a route that spilled
   * fits only if nothing came after.) */
  if (r.held > 0 && n <= room)
    memcpy (out, t->route_spill->data, n * sizeof (guint32));
  return TRUE;
}

gboolean
sim__topology_node_routes_fixed (SimTopology *topology, guint32 node)
{
  SimTopology *t = topology;
  Shape *shape;
  guint32 sh;

  g_return_val_if_fail (t != NULL && node < t->n_nodes, FALSE);
  if (t->search)
    return FALSE;
  if (t->shapes == NULL)
    shapes_init (t);
  sh = t->node_shape[node];
  if (sh == NO_NODE)
    return FALSE;
  shape = g_ptr_array_index (t->shapes, sh);
  if (shape->gpus_fixed == 0)
    {
      /* Every pair of the GPUs of the shape's first node, routed once: a
       * route inside a node depends on the shape and the two places alone
       * (a walk that chose by the hash is not fixed). */
      const NodeSpan *span = &t->spans[shape->node];
      guint32 buf[ROUTE_ROOM_CHECK];
      gboolean all = TRUE;
      for (guint32 a = span->first_gpu; all && a < span->first_gpu + span->n_gpus; a++)
        for (guint32 b = span->first_gpu; all && b < span->first_gpu + span->n_gpus; b++)
          {
            guint len;
            SimTime latency;
            gboolean fixed = FALSE;
            if (a != b)
              all = sim__topology_route_into (t, a, a, b, 0, NULL, buf, G_N_ELEMENTS (buf),
                                              &len, &latency, &fixed)
                    && fixed;
          }
      shape->gpus_fixed = all ? 1 : 2;
    }
  return shape->gpus_fixed == 1;
}

/* Marks in @used (a bit per resource of @node's links) the resources of
 * the route inside @node from vertex @from to vertex @to; with @against,
 * FALSE at once if one of them is marked there.  FALSE as well if the
 * route is not fixed (a hop chose by the hash) or leaves the node's
 * links. */
static gboolean
segment_mark (SimTopology *t, guint32 node, guint32 from, guint32 to, guint8 *used,
              const guint8 *against, GArray *spill)
{
  const Shape *shape = g_ptr_array_index (t->shapes, t->node_shape[node]);
  guint32 buf[ROUTE_BUF], base = 2 * t->node_link0[node], n_res = 2 * shape->n_links;
  Route r;

  g_array_set_size (spill, 0);
  route_begin (&r, t, buf, ROUTE_BUF, spill, 0, NULL);
  if (!node_route (t, node, from, to, &r) || r.forked)
    return FALSE;
  for (guint i = 0; i < route_len (&r); i++)
    {
      guint32 x = route_at (&r, i) - base;
      if (route_at (&r, i) < base || x >= n_res)
        return FALSE;
      if (against != NULL && against[x / 8] >> (x % 8) & 1)
        return FALSE;
      used[x / 8] |= (guint8) (1u << (x % 8));
    }
  return TRUE;
}

gboolean
sim__topology_node_apart (SimTopology *topology, guint32 node)
{
  SimTopology *t = topology;
  Shape *shape;
  guint32 sh;

  g_return_val_if_fail (t != NULL && node < t->n_nodes, FALSE);
  /* (Only the trees' routes keep to switches between their two nodes.) */
  if (t->search || !t->tree || !sim__topology_node_routes_fixed (t, node))
    return FALSE;
  sh = t->node_shape[node];
  shape = g_ptr_array_index (t->shapes, sh);
  if (shape->apart == 0)
    {
      /* On the shape's first node: the resources of every route between
       * two of its GPUs, then those of every way between a GPU and each
       * NIC it may leave or arrive by (route_build()'s segments), none of
       * which may be among the first. */
      const NodeSpan *span = &t->spans[shape->node];
      gsize bytes = (2 * (gsize) shape->n_links + 7) / 8 + 1;
      g_autofree guint8 *inside = g_new0 (guint8, bytes);
      g_autofree guint8 *out = g_new0 (guint8, bytes);
      g_autoptr(GArray) spill = g_array_new (FALSE, FALSE, sizeof (guint32));
      guint32 first = span->first_gpu, last = span->first_gpu + span->n_gpus;
      gboolean ok = TRUE;

      for (guint32 a = first; ok && a < last; a++)
        for (guint32 b = first; ok && b < last; b++)
          ok = a == b || segment_mark (t, shape->node, a, b, inside, NULL, spill);
      for (guint32 g = first; ok && g < last; g++)
        for (guint32 k = t->gpu_nic_start[g]; ok && k < t->gpu_nic_start[g + 1]; k++)
          {
            guint32 nic = t->nic_vertex[t->gpu_nic[k]];
            ok = g_array_index (t->node_of, guint32, nic) == shape->node
                 && segment_mark (t, shape->node, g, nic, out, inside, spill)
                 && segment_mark (t, shape->node, nic, g, out, inside, spill);
          }
      shape->apart = ok ? 1 : 2;
    }
  return shape->apart == 1;
}

/* Asks for what node_segment() reads of @node. */
static inline void
prefetch_node (const SimTopology *t, guint32 node)
{
  __builtin_prefetch (&t->spans[node]);
  if (t->node_shape != NULL)
    __builtin_prefetch (&t->node_shape[node]);
  if (t->node_link0 != NULL)
    __builtin_prefetch (&t->node_link0[node]);
}

/* The last stage of sim__topology_prefetch_route(), from the flow's two
 * NICs: the first hop up from the source's leaf, where the two leaves
 * differ (the hops above depend on it). */
static inline void
prefetch_up (const SimTopology *t, guint32 ns, guint32 nd)
{
  const NicWay *ws, *wd;
  guint32 b, n;

  if (t->up_hop == NULL)
    return;
  ws = &t->nic_way[ns];
  wd = &t->nic_way[nd];
  b = ws->way[0];
  if (ws->n == 0 || wd->n == 0 || b == wd->way[0] || (n = n_up (t, b)) == 0)
    return;
  __builtin_prefetch (&t->up_hop[t->up_start[b] + nd % n]);
}

/* Whether sim__topology_prefetch_route() has stages 2 and 3 for the flow
 * between @src_gpu and @dst_gpu, in nodes @ns_node and @nd_node: only
 * D-mod-K and spraying on a tree, and GPUs of one nearest NIC each, read
 * what follows in an order known ahead.  Its NICs then in *@ns, *@nd. */
static inline gboolean
prefetch_nics (const SimTopology *t, guint32 src_gpu, guint32 dst_gpu, guint32 ns_node,
               guint32 nd_node, guint32 *ns, guint32 *nd)
{
  if (ns_node == nd_node || !t->tree || t->nic_way == NULL
      || (t->routing != SIM_ROUTING_DMODK && t->routing != SIM_ROUTING_SPRAY)
      || t->gpu_nic_start[src_gpu + 1] - t->gpu_nic_start[src_gpu] != 1
      || t->gpu_nic_start[dst_gpu + 1] - t->gpu_nic_start[dst_gpu] != 1)
    return FALSE;
  *ns = t->gpu_nic[t->gpu_nic_start[src_gpu]];
  *nd = t->gpu_nic[t->gpu_nic_start[dst_gpu]];
  return TRUE;
}

/* Stage 2 of sim__topology_prefetch_route(), from the flow's two NICs. */
static inline void
prefetch_ways (const SimTopology *t, guint32 ns, guint32 nd)
{
  __builtin_prefetch (&t->nic_access[ns]);
  __builtin_prefetch (&t->nic_access[nd]);
  __builtin_prefetch (&t->nic_vertex[ns]);
  __builtin_prefetch (&t->nic_vertex[nd]);
  __builtin_prefetch (&t->nic_way[ns]);
  __builtin_prefetch (&t->nic_way[nd]);
}

void
sim__topology_prefetch_route (const SimTopology *t, guint32 src_gpu, guint32 dst_gpu,
                              guint stage)
{
  const guint32 *node_of = (const guint32 *) (gpointer) t->node_of->data;
  guint32 ns_node, nd_node, ns, nd;

  if (G_UNLIKELY (t->search || src_gpu >= t->n_gpus || dst_gpu >= t->n_gpus))
    return;
  if (stage == 0)
    {
      __builtin_prefetch (&node_of[src_gpu]);
      __builtin_prefetch (&node_of[dst_gpu]);
      __builtin_prefetch (&t->gpu_nic_start[src_gpu]);
      __builtin_prefetch (&t->gpu_nic_start[dst_gpu]);
      return;
    }
  ns_node = node_of[src_gpu];
  nd_node = node_of[dst_gpu];
  if (stage == 1)
    {
      prefetch_node (t, ns_node);
      if (ns_node == nd_node)
        return;
      prefetch_node (t, nd_node);
      __builtin_prefetch (&t->gpu_nic[t->gpu_nic_start[src_gpu]]);
      __builtin_prefetch (&t->gpu_nic[t->gpu_nic_start[dst_gpu]]);
      return;
    }
  if (!prefetch_nics (t, src_gpu, dst_gpu, ns_node, nd_node, &ns, &nd))
    return;
  if (stage == 2)
    prefetch_ways (t, ns, nd);
  else
    prefetch_up (t, ns, nd);
}

void
sim__topology_prefetch_up (const SimTopology *topology, guint32 ns, guint32 nd)
{
  if (ns != NO_NODE)
    prefetch_up (topology, ns, nd);
}

guint64
sim__topology_prefetch_routes (const SimTopology *t, const guint32 *pairs, gsize stride,
                               guint n, guint stage, guint32 *nics)
{
  const guint32 *node_of = (const guint32 *) (gpointer) t->node_of->data;
  guint32 last_src = G_MAXUINT32, last_dst = G_MAXUINT32, ns = NO_NODE, nd = NO_NODE;
  guint64 cross = 0;

  /* (No NICs but those found below.) */
  for (guint i = 0; stage == 2 && nics != NULL && i < MIN (n, 64); i++)
    nics[2 * i] = nics[2 * i + 1] = NO_NODE;
  if (G_UNLIKELY (t->search) || stage > 2)
    return ~G_GUINT64_CONSTANT (0);
  for (guint i = 0; i < n; i++, pairs += stride)
    {
      guint32 src = pairs[0], dst = pairs[1], ns_node, nd_node;
      if (G_UNLIKELY (src >= t->n_gpus || dst >= t->n_gpus))
        {
          cross |= i < 64 ? G_GUINT64_CONSTANT (1) << i : 0;
          continue;
        }
      if (stage == 0)
        {
          /* (Sixteen GPUs to a line of each table.) */
          if ((src ^ last_src) >= 16 || (dst ^ last_dst) >= 16)
            {
              __builtin_prefetch (&node_of[src]);
              __builtin_prefetch (&node_of[dst]);
              __builtin_prefetch (&t->gpu_nic_start[src]);
              __builtin_prefetch (&t->gpu_nic_start[dst]);
            }
          last_src = src;
          last_dst = dst;
          continue;
        }
      ns_node = node_of[src];
      nd_node = node_of[dst];
      if (ns_node != nd_node && i < 64)
        cross |= G_GUINT64_CONSTANT (1) << i;
      if (stage == 1)
        {
          /* (Two flows in a row mostly join the same nodes.) */
          if (ns_node != last_src || nd_node != last_dst)
            {
              prefetch_node (t, ns_node);
              if (ns_node != nd_node)
                prefetch_node (t, nd_node);
            }
          if (ns_node != nd_node)
            {
              __builtin_prefetch (&t->gpu_nic[t->gpu_nic_start[src]]);
              __builtin_prefetch (&t->gpu_nic[t->gpu_nic_start[dst]]);
            }
          last_src = ns_node;
          last_dst = nd_node;
          continue;
        }
      if (src != last_src || dst != last_dst)
        {
          last_src = src;
          last_dst = dst;
          if (prefetch_nics (t, src, dst, ns_node, nd_node, &ns, &nd))
            prefetch_ways (t, ns, nd);
          else
            ns = nd = NO_NODE;
        }
      if (nics != NULL && i < 64)
        {
          nics[2 * i] = ns;
          nics[2 * i + 1] = nd;
        }
    }
  return stage == 1 ? cross : ~G_GUINT64_CONSTANT (0);
}

gboolean
sim_topology_route (SimTopology *topology, guint32 src_gpu, guint32 dst_gpu,
                    guint64 flow_hash, GArray *resources, SimTime *latency)
{
  return sim_topology_route_via (topology, src_gpu, src_gpu, dst_gpu, flow_hash, NULL,
                                 resources, latency);
}

SimRouting
sim_topology_get_routing (const SimTopology *topology)
{
  g_return_val_if_fail (topology != NULL, SIM_ROUTING_ECMP);
  return topology->routing;
}

guint
sim_topology_get_n_resources (const SimTopology *topology)
{
  g_return_val_if_fail (topology != NULL, 0);
  return 2 * topology->links->len + 2 * topology->n_bundles;
}

/* A route between GPUs of two nodes starts on a vertex of the source node
 * and ends outside it, so some hop of it leaves the node: a directed
 * resource of a link with one end among the node's vertices and the other
 * outside, crossed outwards.  That holds whatever the routing mode: the
 * hop-by-hop walks and the closed forms name the links they cross, and
 * spraying, whose pooled resources are not links of any node, still names
 * the NIC's own link to its switch (spray_tree()).  Likewise a route into
 * the node crosses one of those links inwards.  The links are found from
 * the adjacency of the node's vertices, O(their degrees). */
void
sim_topology_get_node_cut_capacity (const SimTopology *topology, guint node, double *out,
                                    double *in)
{
  const NodeSpan *span;
  double sum_out = 0, sum_in = 0;

  g_return_if_fail (topology != NULL && out != NULL && in != NULL);
  *out = *in = 0;
  g_return_if_fail (node < topology->n_nodes);
  span = &topology->spans[node];
  for (guint i = 0; i < span->n_gpus + span->n_extra; i++)
    {
      guint32 v = i < span->n_gpus ? span->first_gpu + i : span->first_extra + (i - span->n_gpus);
      for (guint32 e = topology->adj_start[v]; e < topology->adj_start[v + 1]; e++)
        {
          guint32 l = topology->adj_link[e];
          const SimLink *k = &g_array_index (topology->links, SimLink, l);
          guint32 u = k->a == v ? k->b : k->a;
          guint32 away = 2 * l + (k->a == v ? 0 : 1);   /* 2l runs from a to b */

          if (g_array_index (topology->node_of, guint32, u) == node)
            continue;
          sum_out += MAX (0.0, sim_topology_resource_capacity (topology, away));
          sum_in += MAX (0.0, sim_topology_resource_capacity (topology, away ^ 1));
        }
    }
  *out = sum_out;
  *in = sum_in;
}

/* Union-find over vertices, for the pods of spines. */
static guint32
find_root (guint32 *parent, guint32 v)
{
  while (parent[v] != v)
    {
      parent[v] = parent[parent[v]];
      v = parent[v];
    }
  return v;
}

/* Builds what routing needs once the graph is complete: NIC numbers, the
 * NICs nearest each GPU, every switch's uplinks, the routing mode, and for
 * spraying the pooled groups.  Time complexity: O(vertices + links +
 * GPUs x node size). */
void
sim__topology_build_routing (SimTopology *t, const SimFabricConfig *config, GArray *nics)
{
  guint nv = n_vertices (t);
  g_autofree guint32 *nic_of = g_new (guint32, MAX (1u, nv));
  g_autofree guint16 *dist = NULL;
  guint max_span = 1;
  GArray *near = g_array_new (FALSE, FALSE, sizeof (guint32));

  t->tree = config->kind == SIM_FABRIC_SINGLE_SWITCH || config->kind == SIM_FABRIC_FAT_TREE
            || config->kind == SIM_FABRIC_FAT_TREE_3
            || config->kind == SIM_FABRIC_RAIL_OPTIMIZED
            || config->kind == SIM_FABRIC_RAIL_OPTIMIZED_3;
  t->routing = config->routing;
  if (t->routing == SIM_ROUTING_DEFAULT)
    t->routing = t->trunk_kind != NULL && strcmp (t->trunk_kind, "infiniband") == 0
                 ? SIM_ROUTING_DMODK : SIM_ROUTING_ECMP;

  /* NICs, in the order the builders numbered them (node by node). */
  t->n_nics = nics->len;
  t->nic_vertex = g_new (guint32, MAX (1u, t->n_nics));
  t->nic_access = g_new (guint32, MAX (1u, t->n_nics));
  for (guint v = 0; v < nv; v++)
    nic_of[v] = NO_NODE;
  for (guint32 i = 0; i < t->n_nics; i++)
    {
      guint32 v = g_array_index (nics, guint32, i);
      t->nic_vertex[i] = v;
      t->nic_access[i] = NO_NODE;
      nic_of[v] = i;
      for (guint32 e = t->adj_start[v]; e < t->adj_start[v + 1]; e++)
        if (g_array_index (t->links, SimLink, t->adj_link[e]).tier == SIM_TIER_ACCESS)
          {
            t->nic_access[i] = t->adj_link[e];
            break;
          }
    }

  /* The NICs nearest each GPU, over its node's links. */
  for (guint n = 0; n < t->n_nodes; n++)
    max_span = MAX (max_span, t->spans[n].n_gpus + t->spans[n].n_extra);
  dist = g_new (guint16, max_span);
  t->gpu_nic_start = g_new0 (guint32, t->n_gpus + 1);
  for (guint32 g = 0; g < t->n_gpus; g++)
    {
      const NodeSpan *span = &t->spans[g_array_index (t->node_of, guint32, g)];
      guint16 best = UNREACHED;

      t->gpu_nic_start[g] = near->len;
      if (t->n_nics == 0)
        continue;
      sim__topology_bfs (t, g, span, FALSE, dist, span->n_gpus + span->n_extra);
      for (guint32 x = 0; x < span->n_extra; x++)
        if (nic_of[span->first_extra + x] != NO_NODE)
          best = MIN (best, dist[span->n_gpus + x]);
      for (guint32 x = 0; x < span->n_extra && best != UNREACHED; x++)
        if (nic_of[span->first_extra + x] != NO_NODE && dist[span->n_gpus + x] == best)
          g_array_append_val (near, nic_of[span->first_extra + x]);
    }
  t->gpu_nic_start[t->n_gpus] = near->len;
  t->gpu_nic = (guint32 *) (gpointer) g_array_free (near, FALSE);

  /* Uplinks: links from a switch to a switch of a higher tier, in the
   * order they were cabled (port order). */
  t->up_start = g_new0 (guint32, nv + 1);
  for (guint pass = 0; pass < 2; pass++)
    {
      guint32 count = 0;
      for (guint32 v = 0; v < nv; v++)
        {
          guint rv = vertex_rank (vertex_kind (t, v));
          if (pass == 0)
            t->up_start[v] = count;
          for (guint32 e = t->adj_start[v]; e < t->adj_start[v + 1] && rv > 0; e++)
            {
              guint32 u = other_end (t, t->adj_link[e], v);
              if (g_array_index (t->node_of, guint32, u) == NO_NODE
                  && vertex_rank (vertex_kind (t, u)) > rv)
                {
                  if (pass == 1)
                    t->up_link[t->up_start[v] + (count - t->up_start[v])] = t->adj_link[e];
                  count++;
                }
            }
        }
      if (pass == 0)
        {
          t->up_start[nv] = count;
          t->up_link = g_new (guint32, MAX (1u, count));
        }
    }

  /* Spraying: a group per leaf (its uplinks) and per pod of spines that
   * have uplinks (spines joined through a common leaf). */
  t->bundle_of = g_new (guint32, MAX (1u, nv));
  for (guint v = 0; v < nv; v++)
    t->bundle_of[v] = NO_NODE;
  if (t->routing == SIM_ROUTING_SPRAY && t->tree)
    {
      g_autofree guint32 *parent = g_new (guint32, MAX (1u, nv));
      GArray *cap = g_array_new (FALSE, TRUE, sizeof (double));

      for (guint32 v = 0; v < nv; v++)
        parent[v] = v;
      for (guint32 v = 0; v < nv; v++)
        if (vertex_rank (vertex_kind (t, v)) == 1)
          for (guint32 i = t->up_start[v]; i + 1 < t->up_start[v + 1]; i++)
            {
              guint32 a = find_root (parent, other_end (t, t->up_link[i], v));
              guint32 b = find_root (parent, other_end (t, t->up_link[i + 1], v));
              parent[MAX (a, b)] = MIN (a, b);
            }
      for (guint32 v = 0; v < nv; v++)
        {
          guint32 root, group;
          double c = 0;
          if (n_up (t, v) == 0)
            continue;
          root = vertex_rank (vertex_kind (t, v)) == 1 ? v : find_root (parent, v);
          if (t->bundle_of[root] == NO_NODE || root == v)
            {
              if (t->bundle_of[root] == NO_NODE)
                {
                  double zero = 0;
                  t->bundle_of[root] = cap->len;
                  g_array_append_val (cap, zero);
                }
            }
          group = t->bundle_of[root];
          t->bundle_of[v] = group;
          for (guint32 i = t->up_start[v]; i < t->up_start[v + 1]; i++)
            {
              const SimLink *k = &g_array_index (t->links, SimLink, t->up_link[i]);
              c += k->bandwidth * k->efficiency;
            }
          g_array_index (cap, double, group) += c;
        }
      t->n_bundles = cap->len;
      t->bundle_capacity = (double *) (gpointer) g_array_free (cap, FALSE);
    }
}

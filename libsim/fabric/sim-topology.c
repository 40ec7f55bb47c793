/* sim-topology.c: the network of a cluster, built as a graph.
 *
 * Numbering.  Vertex i < n_gpus is GPU i of the cluster, so a GPU's vertex
 * is its index.  Then come, node by node, each node's other vertices
 * (NVSwitch, PCIe switches, CPU root, NICs), then the network switches.
 * Links are kept in build order in one array; link l gives the directed
 * resources 2l (a to b) and 2l + 1 (b to a).  After building, adjacency is
 * packed into compressed rows (for every vertex, the links that touch it).
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

#include "sim-topology.h"
#include "sim-error.h"
#include "sim-util.h"

#include <igraph.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

/* Distances are 16-bit; this one means "not reachable". */
#define UNREACHED G_MAXUINT16
/* Memory for cached distance tables, in bytes. */
#define CACHE_BUDGET (64u << 20)
#define NO_NODE G_MAXUINT32
/* Switch tiers a closed-form route climbs at most. */
#define MAX_TIERS 4

/* A node's vertices: its GPUs [first_gpu, first_gpu + n_gpus) and its other
 * vertices [first_extra, first_extra + n_extra). */
typedef struct {
  guint32 first_gpu, n_gpus;
  guint32 first_extra, n_extra;
} NodeSpan;

typedef struct {
  guint16 *dist;
  gsize    bytes;
} DistTable;

struct _SimTopology {
  guint32  n_gpus;
  guint32  n_nodes;
  GArray  *kinds;        /* guint8 per vertex (SimVertexKind) */
  GArray  *latency;      /* SimTime per vertex */
  GArray  *node_of;      /* guint32 per vertex: its node, or NO_NODE */
  GArray  *links;        /* SimLink */
  GArray  *optical;      /* guint8 per link: the cable takes two transceivers */
  GPtrArray *warnings;   /* what was built otherwise than asked, NULL-terminated */
  NodeSpan *spans;       /* per node */
  guint    nvswitch_chips;

  /* Adjacency, compressed rows. */
  guint32 *adj_start;    /* n_vertices + 1 */
  guint32 *adj_link;     /* 2 * n_links */

  /* Routing (see the top of this file). */
  SimRouting routing;       /* resolved: never SIM_ROUTING_DEFAULT */
  const char *trunk_kind;   /* the link kind of the fabric ("infiniband"), or NULL */
  gboolean tree;            /* switches rank strictly by tier: up/down routing applies */
  guint32  n_nics;
  guint32 *nic_vertex;      /* per NIC number (node by node): its vertex */
  guint32 *nic_access;      /* per NIC number: its link to a switch, or NO_NODE */
  guint32 *gpu_nic_start;   /* n_gpus + 1: the NICs nearest each GPU ... */
  guint32 *gpu_nic;         /* ... as NIC numbers */
  guint32 *up_start;        /* n_vertices + 1: each switch's uplinks (links to a higher
                             * tier), in port order ... */
  guint32 *up_link;         /* ... as link numbers */
  guint32 *bundle_of;       /* spray: per vertex, the pooled group of its uplinks, or NO_NODE */
  guint32  n_bundles;
  struct NicWay *nic_way;   /* D-mod-K: per NIC, its way up (see dmodk_tree()); NULL
                             * until the first route */
  double  *bundle_capacity; /* per group: the summed usable capacity of its uplinks */

  /* Route caches: destination vertex -> DistTable *. */
  GHashTable *global_cache;
  GHashTable *intra_cache;
  GQueue      cache_order;  /* keys as GUINT_TO_POINTER (vertex << 1 | intra) */
  gsize       cache_bytes;
  guint32    *bfs_queue;    /* n_vertices */
  /* Hop-by-hop routing on a tree: the destination leaf's ancestors. */
  guint32    *anc_stamp;    /* per vertex: == anc_now if marked */
  guint8     *anc_level;    /* per vertex: tiers above the destination leaf */
  guint32    *anc_list;     /* the marked vertices */
  guint32     anc_now;
  guint32     anc_leaf;     /* the leaf whose ancestors are marked */
  GHashTable *anc_kept;     /* leaf -> AncList: its ancestors, to mark again */
  guint32    *up_to;        /* per up_link entry: the switch it leads to */
  guint32    *adj_to;       /* per adj_link entry: the vertex it leads to */
  gsize       anc_bytes;
  guint32    *cand;         /* scratch: candidate links of one hop */
  guint       cand_size;
  /* Routes inside nodes, kept per shape of node (see node_route()). */
  GPtrArray  *shapes;       /* Shape *; NULL until the first route */
  guint32    *node_shape;   /* per node: its shape, or NO_NODE (its routes walk) */
  guint32    *node_link0;   /* per node: its first link */
  gboolean    search;       /* route by walk() alone (sim__topology_set_search()) */
  /* Walks between switches (see net_walk()). */
  gint        net_state;    /* 0: not looked at yet; 1: they apply; -1: they do not */
  guint32     first_switch; /* the vertex of switch 0: switches are numbered last */
  guint32     n_switches;
  guint32    *sw_start;     /* n_switches + 1: each switch's links to switches ... */
  guint32    *sw_link;      /* ... in adjacency order, as link numbers ... */
  guint32    *sw_to;        /* ... and the switch each leads to */
  /* Distances on a dragonfly from its structure (see dfly_init()). */
  guint32     dfly_groups;  /* as build_dragonfly() made it: its groups ... */
  guint32     dfly_a;       /* ... of this many routers; 0 if not a dragonfly */
  gboolean    dfly;         /* the structure holds: net_walk() needs no search */
  guint32    *gl_start;     /* n_switches + 1: each router's links to other groups ... */
  guint32    *gl_to;        /* ... as the routers they lead to */
  guint64    *gl_sig;       /* per router: bit g % 64 set for each group g it has a link into */
  guint32    *gl_mark;      /* per router: == gl_now if in N[gl_dst] (see dfly_dist()) */
  guint32    *gl_gmark;     /* per group: == gl_now if it meets N[gl_dst] */
  guint32     gl_now;
  guint32     gl_dst;       /* the router whose neighbours are marked, or NO_NODE */
  guint64     gl_gsig;      /* bit g % 64 set for each group g that meets N[gl_dst] */
};

/* ------------------------------------------------------------------------ */
/* Building blocks */

static guint32
add_vertex (SimTopology *t, SimVertexKind kind, SimTime latency, guint32 node)
{
  guint8 k = (guint8) kind;

  g_array_append_val (t->kinds, k);
  g_array_append_val (t->latency, latency);
  g_array_append_val (t->node_of, node);
  return t->kinds->len - 1;
}

static void
add_link (SimTopology *t, guint32 a, guint32 b, double bandwidth, const SimLinkModel *m,
          SimLinkTier tier, gboolean optical)
{
  SimLink l = {
    .a = a, .b = b, .bandwidth = bandwidth,
    .efficiency = m != NULL && m->efficiency > 0 ? m->efficiency : 1.0,
    .latency = m != NULL ? m->latency_ns : 0,
    .tier = tier,
    .model = m != NULL ? g_intern_string (m->name) : NULL,
  };
  guint8 o = optical ? 1 : 0;

  g_array_append_val (t->links, l);
  g_array_append_val (t->optical, o);
}

static SimVertexKind
vertex_kind (const SimTopology *t, guint32 v)
{
  return (SimVertexKind) g_array_index (t->kinds, guint8, v);
}

static guint
n_vertices (const SimTopology *t)
{
  return t->kinds->len;
}

/* The network tier of a vertex: 0 inside nodes, 1 leaf or router, 2 spine,
 * 3 core. */
static guint
vertex_rank (SimVertexKind k)
{
  switch (k)
    {
    case SIM_VERTEX_LEAF:
    case SIM_VERTEX_ROUTER:
      return 1;
    case SIM_VERTEX_SPINE:
      return 2;
    case SIM_VERTEX_CORE:
      return 3;
    default:
      return 0;
    }
}

/* ------------------------------------------------------------------------ */
/* Inside nodes */

/* The link model joining a node's GPUs: the node's intra_link, else the
 * GPU's scale-up link ("PCIe Gen4" is looked up as "PCIe-Gen4"). */
static const SimLinkModel *
intra_link_model (const SimNode *node, const SimCatalogue *catalogue)
{
  g_autofree char *name = NULL;

  if (node->model->intra_link != NULL)
    return node->model->intra_link;
  if (node->model->intra_link_name != NULL)
    return sim_catalogue_lookup_link (catalogue, node->model->intra_link_name);
  if (node->gpu_model == NULL || node->gpu_model->scaleup_link == NULL)
    return NULL;
  name = g_strdelimit (g_strdup (node->gpu_model->scaleup_link), " ", '-');
  return sim_catalogue_lookup_link (catalogue, name);
}

static const SimLinkModel *
pcie_link_model (const SimNode *node, const SimCatalogue *catalogue)
{
  if (node->model->pcie_link != NULL)
    return node->model->pcie_link;
  return sim_catalogue_lookup_link (catalogue, node->model->pcie_link_name);
}

/* Builds the inside of @node; appends the vertex of each of its NICs to
 * @nics (and the node's index to @nic_nodes). */
static gboolean
build_node (SimTopology *t, const SimNode *node, const SimCatalogue *catalogue,
            gboolean want_nics, GArray *nics, GArray *nic_nodes, GError **error)
{
  const SimNodeModel *m = node->model;
  const char *kind = m->intra_node != NULL ? m->intra_node : "pcie";
  guint g = node->n_gpus, k = want_nics ? m->nics : 0;
  const SimLinkModel *intra = intra_link_model (node, catalogue);
  const SimLinkModel *pcie = pcie_link_model (node, catalogue);
  NodeSpan *span = &t->spans[node->index];
  guint32 gpu0 = node->first_gpu;
  gboolean is_pcie = strcmp (kind, "pcie") == 0;

  span->first_gpu = gpu0;
  span->n_gpus = g;
  span->first_extra = n_vertices (t);

  if (g > 1 && intra == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "node model \"%s\" (%s) has no intra-node link: expected an intra_link key "
                   "naming a [link] model such as \"NVLink4\"", m->name, m->source_file);
      return FALSE;
    }
  if ((k > 0 || (is_pcie && g > 1)) && pcie == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "node model \"%s\" (%s) has no PCIe link: expected a pcie_link key naming a "
                   "[link] model such as \"PCIe-Gen5\"", m->name, m->source_file);
      return FALSE;
    }

  if (is_pcie)
    {
      /* One PCIe switch per NIC when the GPUs divide evenly among them in
       * groups of at most four, else one per four GPUs. */
      guint n_sw = k > 0 && g % k == 0 && g / k <= 4 ? k : MAX (1u, (g + 3) / 4);
      guint32 sw0 = n_vertices (t), root = NO_NODE;

      for (guint i = 0; i < n_sw; i++)
        add_vertex (t, SIM_VERTEX_PCIE_SWITCH, 0, node->index);
      if (n_sw > 1)
        {
          root = add_vertex (t, SIM_VERTEX_CPU, 0, node->index);
          for (guint i = 0; i < n_sw; i++)
            add_link (t, sw0 + i, root, pcie->bandwidth, pcie, SIM_TIER_INTRA, FALSE);
        }
      for (guint i = 0; i < g; i++)
        {
          const SimLinkModel *lm = intra != NULL ? intra : pcie;
          add_link (t, gpu0 + i, sw0 + (guint32) ((guint64) i * n_sw / g), lm->bandwidth, lm,
                    SIM_TIER_INTRA, FALSE);
        }
      for (guint j = 0; j < k; j++)
        {
          guint32 nic = add_vertex (t, SIM_VERTEX_NIC, 0, node->index);
          add_link (t, nic, sw0 + j % n_sw, pcie->bandwidth, pcie, SIM_TIER_INTRA, FALSE);
          g_array_append_val (nics, nic);
          g_array_append_val (nic_nodes, node->index);
        }
    }
  else
    {
      if (strcmp (kind, "nvswitch") == 0 && g > 1)
        {
          SimTime lat = m->nvswitch != NULL ? m->nvswitch->latency_ns : 0;
          guint32 nvs = add_vertex (t, SIM_VERTEX_NVSWITCH, lat, node->index);
          for (guint i = 0; i < g; i++)
            add_link (t, gpu0 + i, nvs, intra->bandwidth, intra, SIM_TIER_INTRA, FALSE);
        }
      else if (g > 1)
        {
          /* nvlink-mesh and infinity-fabric: a full mesh. */
          double share = intra->bandwidth / (g - 1);
          for (guint i = 0; i < g; i++)
            for (guint j = i + 1; j < g; j++)
              add_link (t, gpu0 + i, gpu0 + j, share, intra, SIM_TIER_INTRA, FALSE);
        }
      for (guint j = 0; j < k; j++)
        {
          guint32 nic = add_vertex (t, SIM_VERTEX_NIC, 0, node->index);
          g_array_append_val (nics, nic);
          g_array_append_val (nic_nodes, node->index);
          if (k >= g)
            add_link (t, gpu0 + j % g, nic, pcie->bandwidth, pcie, SIM_TIER_INTRA, FALSE);
        }
      if (k > 0 && k < g)
        for (guint i = 0; i < g; i++)
          {
            guint32 nic = g_array_index (nics, guint32, nics->len - k + (guint) ((guint64) i * k / g));
            add_link (t, gpu0 + i, nic, pcie->bandwidth, pcie, SIM_TIER_INTRA, FALSE);
          }
    }
  span->n_extra = n_vertices (t) - span->first_extra;
  t->nvswitch_chips += m->nvswitches;
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Between nodes */

typedef struct {
  SimTopology         *t;
  const SimFabricConfig *config;
  GArray              *nics;       /* guint32 vertex per NIC, in node order */
  GArray              *nic_nodes;  /* guint32 node per NIC */
  const SimLinkModel **nic_link;   /* per node */
  const SimLinkModel  *trunk;      /* the link model of switch-to-switch links */
  const SimSwitchModel *sw;        /* nullable */
  guint                radix;
  double               port_bw;    /* bytes/s per switch port */
  SimTime              sw_latency;
  double               oversub;
} Fabric;

static guint32
add_switch (Fabric *f, SimVertexKind kind)
{
  return add_vertex (f->t, kind, f->sw_latency, NO_NODE);
}

/* Joins NIC @i to switch @sw. */
static void
attach_nic (Fabric *f, guint i, guint32 sw)
{
  guint32 nic = g_array_index (f->nics, guint32, i);
  guint32 node = g_array_index (f->nic_nodes, guint32, i);
  const SimLinkModel *m = f->nic_link[node];

  add_link (f->t, nic, sw, MIN (m->bandwidth, f->port_bw), m, SIM_TIER_ACCESS,
            m->access_optical);
}

static void
add_trunk (Fabric *f, guint32 lower, guint32 upper, SimLinkTier tier, gboolean electrical)
{
  add_link (f->t, lower, upper, f->port_bw, f->trunk, tier, f->trunk->optical && !electrical);
}

/* How far a leaf of @down NIC ports and @up uplinks is from the asked
 * ratio r, on a log scale, so that 2.5:1 and 1.6:1 are as far from 2:1 as
 * 1:1 and 4:1 are, each a factor away. */
static double
ratio_error (guint down, guint up, double r)
{
  return fabs (log ((double) down / up / r));
}

/* The uplinks of a switch with @down NIC ports out of @ports: the whole
 * number nearest @down / r (floor or ceiling, whichever gives the ratio
 * nearer r; the ceiling on a tie, the less oversubscribed), at least one
 * and at most the ports left; 0 if no port is left. */
static guint
uplinks_for (const Fabric *f, guint down, guint ports)
{
  double want = down / f->oversub;
  guint room = ports > down ? ports - down : 0;
  guint lo = MIN (room, MAX (1u, (guint) floor (want + 1e-9)));
  guint hi = MIN (room, MAX (1u, (guint) ceil (want - 1e-9)));

  if (room == 0)
    return 0;
  return ratio_error (down, hi, f->oversub) <= ratio_error (down, lo, f->oversub) + 1e-12
           ? hi : lo;
}

/* Whole nodes per switch.  A switch of @ports ports (for NICs and
 * uplinks) takes n whole nodes of @k NICs each, n x k NIC ports, and
 * uplinks_for() of them; the plan is the n whose down:up ratio is nearest
 * the one asked (exactly it when any n gives it), and of those the
 * largest, for the fewest switches.  The ratio of a full switch is then
 * what the [fabric] section asked for, or the nearest that whole nodes
 * allow; the builder reports the second (see check_oversubscription()).
 * The search tries every n up to @ports / @k: O(radix). */
typedef struct {
  guint nodes;  /* whole nodes per switch */
  guint down;   /* their NIC ports */
  guint up;     /* uplinks of a full switch */
} LeafPlan;

static gboolean
plan_leaves (const Fabric *f, guint k, guint ports, const char *what, LeafPlan *plan,
             GError **error)
{
  double best = INFINITY;

  memset (plan, 0, sizeof *plan);
  for (guint n = ports / MAX (1u, k); n >= 1; n--)
    {
      guint down = n * k, up = uplinks_for (f, down, ports);
      double e;

      if (up == 0)
        continue;
      e = ratio_error (down, up, f->oversub);
      if (e < best - 1e-12)
        {
          best = e;
          plan->nodes = n;
          plan->down = down;
          plan->up = up;
        }
    }
  if (plan->nodes == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "radix too small: a node's %u NICs and one uplink need %u ports, but a %s "
                   "has %u for them: expected a larger radix (no node's NICs are split across "
                   "switches)", k, k + 1, what, ports);
      return FALSE;
    }
  return TRUE;
}

/* The most NICs a node of the fabric has. */
static guint
max_node_nics (const Fabric *f)
{
  guint best = 0, run = 0;

  for (guint i = 0; i < f->nics->len; i++)
    {
      if (i > 0 && g_array_index (f->nic_nodes, guint32, i)
                   != g_array_index (f->nic_nodes, guint32, i - 1))
        run = 0;
      run++;
      best = MAX (best, run);
    }
  return best;
}

/* How many upper switches take @n_lower switches' uplinks, @ups[i] of them
 * from lower switch i, spread round-robin (uplink j to upper switch
 * j mod n): the fewest n, from the port count's lower bound up, such that
 * no upper switch needs more than @radix ports.  0 if none will do. */
static guint
spread_count (const guint *ups, guint n_lower, guint radix)
{
  guint64 total = 0;
  guint max_up = 0;

  for (guint i = 0; i < n_lower; i++)
    {
      total += ups[i];
      max_up = MAX (max_up, ups[i]);
    }
  for (guint n = MAX (1u, (guint) ((total + radix - 1) / radix)); n <= MAX (1u, max_up); n++)
    {
      guint64 ports = 0;
      for (guint i = 0; i < n_lower; i++)
        ports += (ups[i] + n - 1) / n;
      if (ports <= radix)
        return n;
    }
  return 0;
}

static gboolean
build_single_switch (Fabric *f, GError **error)
{
  guint32 sw;

  if (f->nics->len > f->radix)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "radix too small: %u NICs do not fit on one switch of %u ports: expected "
                   "a larger radix, or topology = fat-tree", f->nics->len, f->radix);
      return FALSE;
    }
  sw = add_switch (f, SIM_VERTEX_LEAF);
  for (guint i = 0; i < f->nics->len; i++)
    attach_nic (f, i, sw);
  return TRUE;
}

/* Leaves in node order, each with as many whole nodes as fit in
 * @plan->down NIC ports (nodes with fewer NICs than the plan's pack more
 * to a leaf); every NIC of a node on its one leaf.  Their vertices are
 * appended to @leaves. */
static void
build_leaves (Fabric *f, const LeafPlan *plan, GArray *leaves)
{
  guint used = 0;

  for (guint i = 0; i < f->nics->len;)
    {
      guint32 node = g_array_index (f->nic_nodes, guint32, i);
      guint k = 0;
      guint32 leaf;

      while (i + k < f->nics->len && g_array_index (f->nic_nodes, guint32, i + k) == node)
        k++;
      if (leaves->len == 0 || used + k > plan->down)
        {
          leaf = add_switch (f, SIM_VERTEX_LEAF);
          g_array_append_val (leaves, leaf);
          used = 0;
        }
      leaf = g_array_index (leaves, guint32, leaves->len - 1);
      for (guint j = 0; j < k; j++)
        attach_nic (f, i + j, leaf);
      used += k;
      i += k;
    }
}

/* The NICs on each leaf, from the access links (in @leaves' order). */
static guint *
leaf_loads (const Fabric *f, GArray *leaves)
{
  guint *load = g_new0 (guint, MAX (1u, leaves->len));
  g_autoptr(GHashTable) index = g_hash_table_new (g_direct_hash, g_direct_equal);

  for (guint i = 0; i < leaves->len; i++)
    g_hash_table_insert (index, GUINT_TO_POINTER (g_array_index (leaves, guint32, i) + 1),
                         GUINT_TO_POINTER (i + 1));
  for (guint l = 0; l < f->t->links->len; l++)
    {
      const SimLink *k = &g_array_index (f->t->links, SimLink, l);
      guint i = GPOINTER_TO_UINT (g_hash_table_lookup (index, GUINT_TO_POINTER (k->b + 1)));
      if (k->tier == SIM_TIER_ACCESS && i > 0)
        load[i - 1]++;
    }
  return load;
}

/* Joins @leaves, each with uplinks_for() its NICs, to as few spines as
 * their ports allow; leaf uplink j goes to spine j mod n. */
static gboolean
build_spines (Fabric *f, GArray *leaves, GError **error)
{
  g_autofree guint *ups = NULL;
  g_autofree guint *load = NULL;
  guint n_spines;
  guint32 spine0;

  if (leaves->len <= 1)
    return TRUE;  /* one leaf needs no spine */
  load = leaf_loads (f, leaves);
  ups = g_new (guint, leaves->len);
  for (guint i = 0; i < leaves->len; i++)
    ups[i] = MAX (1u, uplinks_for (f, load[i], f->radix));
  n_spines = spread_count (ups, leaves->len, f->radix);
  if (n_spines == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "radix too small: %u leaves need more ports than a spine of %u ports has: "
                   "expected at most %u leaves in two tiers (a larger radix, more "
                   "oversubscription, or topology = fat-tree-3)", leaves->len, f->radix,
                   f->radix);
      return FALSE;
    }
  spine0 = n_vertices (f->t);
  for (guint s = 0; s < n_spines; s++)
    add_switch (f, SIM_VERTEX_SPINE);
  for (guint l = 0; l < leaves->len; l++)
    for (guint j = 0; j < ups[l]; j++)
      add_trunk (f, g_array_index (leaves, guint32, l), spine0 + j % n_spines,
                 SIM_TIER_AGGREGATION, FALSE);
  return TRUE;
}

static gboolean
build_fat_tree (Fabric *f, GError **error)
{
  g_autoptr(GArray) leaves = g_array_new (FALSE, FALSE, sizeof (guint32));
  LeafPlan plan;

  if (!plan_leaves (f, max_node_nics (f), f->radix, "leaf", &plan, error))
    return FALSE;
  build_leaves (f, &plan, leaves);
  return build_spines (f, leaves, error);
}

/* Three tiers: leaves of whole nodes as in two; pods of radix/2 leaves,
 * each leaf with one uplink to each of its pod's first spines (as many as
 * its uplinks); spine j of a pod has as many uplinks as downlinks
 * (non-blocking), spread round-robin over core group j, which has as few
 * cores as its ports allow. */
static gboolean
build_fat_tree_3 (Fabric *f, GError **error)
{
  g_autoptr(GArray) leaves = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint up = 0, per_pod = f->radix / 2, n_pods;
  LeafPlan plan;
  g_autofree guint *pod_leaves = NULL;
  g_autofree guint32 *spines = NULL;
  g_autofree guint *spine_down = NULL;
  g_autofree guint *load = NULL;
  g_autofree guint *leaf_up = NULL;
  g_autofree guint *group_ups = NULL;

  if (per_pod == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "radix too small: %u ports: expected at least 2 for three tiers", f->radix);
      return FALSE;
    }
  if (!plan_leaves (f, max_node_nics (f), f->radix, "leaf", &plan, error))
    return FALSE;
  build_leaves (f, &plan, leaves);
  n_pods = (leaves->len + per_pod - 1) / per_pod;
  pod_leaves = g_new (guint, MAX (1u, n_pods));
  for (guint p = 0; p < n_pods; p++)
    pod_leaves[p] = MIN (per_pod, leaves->len - p * per_pod);

  if (leaves->len <= 1)
    return TRUE;  /* one leaf needs no spine */
  load = leaf_loads (f, leaves);
  leaf_up = g_new (guint, leaves->len);
  for (guint l = 0; l < leaves->len; l++)
    {
      leaf_up[l] = MAX (1u, uplinks_for (f, load[l], f->radix));
      up = MAX (up, leaf_up[l]);
    }
  spines = g_new0 (guint32, (gsize) n_pods * up);
  spine_down = g_new0 (guint, (gsize) n_pods * up);
  for (guint p = 0; p < n_pods; p++)
    for (guint l = 0; l < pod_leaves[p]; l++)
      {
        guint leaf = p * per_pod + l;
        for (guint j = 0; j < leaf_up[leaf]; j++)
          {
            guint32 *spine = &spines[p * up + j];
            if (*spine == 0)
              *spine = add_switch (f, SIM_VERTEX_SPINE);
            add_trunk (f, g_array_index (leaves, guint32, leaf), *spine, SIM_TIER_AGGREGATION,
                       FALSE);
            spine_down[p * up + j]++;
          }
      }
  if (n_pods <= 1)
    return TRUE;  /* one pod needs no core */

  group_ups = g_new0 (guint, n_pods);
  for (guint j = 0; j < up; j++)
    {
      guint n_cores, n_members = 0;
      guint32 core0;

      for (guint p = 0; p < n_pods; p++)
        if (spine_down[p * up + j] > 0)
          group_ups[n_members++] = spine_down[p * up + j];
      if (n_members < 2)
        continue;  /* spine j exists in one pod only: nothing to join */
      n_cores = spread_count (group_ups, n_members, f->radix);
      if (n_cores == 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "radix too small: %u pods need more ports than a core switch of %u "
                       "ports has: expected at most %u pods (a larger radix)", n_pods,
                       f->radix, f->radix);
          return FALSE;
        }
      core0 = n_vertices (f->t);
      for (guint c = 0; c < n_cores; c++)
        add_switch (f, SIM_VERTEX_CORE);
      for (guint p = 0; p < n_pods; p++)
        for (guint x = 0; x < spine_down[p * up + j]; x++)
          add_trunk (f, spines[p * up + j], core0 + x % n_cores, SIM_TIER_CORE, FALSE);
    }
  return TRUE;
}

/* NIC i of every node of a rail group on rail leaf i of that group; all
 * leaves joined by spines.  A rail leaf takes one NIC of each node of its
 * group, so the group has as many nodes as the plan for nodes of one NIC
 * puts on a leaf. */
static gboolean
build_rail_optimized (Fabric *f, GError **error)
{
  g_autoptr(GArray) leaves = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GHashTable) leaf_of = g_hash_table_new (g_direct_hash, g_direct_equal);
  guint first = 0;
  LeafPlan plan;

  if (!plan_leaves (f, 1, f->radix, "rail leaf", &plan, error))
    return FALSE;
  for (guint i = 0; i < f->nics->len; i++)
    {
      guint32 node = g_array_index (f->nic_nodes, guint32, i);
      guint rail, group;
      gpointer key, value;

      if (i == 0 || node != g_array_index (f->nic_nodes, guint32, i - 1))
        first = i;
      rail = i - first;
      group = node / plan.nodes;
      key = GUINT_TO_POINTER (((guint64) group << 16 | rail) + 1);
      if (rail >= 1u << 16)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "%u NICs in one node: expected fewer than 65536 rails", rail + 1);
          return FALSE;
        }
      if (!g_hash_table_lookup_extended (leaf_of, key, NULL, &value))
        {
          guint32 leaf = add_switch (f, SIM_VERTEX_LEAF);
          g_array_append_val (leaves, leaf);
          value = GUINT_TO_POINTER (leaf);
          g_hash_table_insert (leaf_of, key, value);
        }
      attach_nic (f, i, GPOINTER_TO_UINT (value));
    }
  return build_spines (f, leaves, error);
}

/* Groups of routers joined all-to-all inside a group (electrical) and by
 * global links between groups (optical), "consecutive" allocation of global
 * ports: group g's ports are taken in order, router by router.  Every NIC
 * of a node is on one router, m whole nodes to a router, spread evenly over
 * the routers the nodes need.  With an oversubscription asked (and no
 * global_links), a router's global links are chosen as a leaf's uplinks
 * are, for its NIC ports. */
static gboolean
build_dragonfly (Fabric *f, GError **error)
{
  const SimFabricConfig *c = f->config;
  guint n = f->nics->len, k = max_node_nics (f), n_nodes = 0;
  guint a = c->dragonfly_routers_per_group ? c->dragonfly_routers_per_group
                                            : MAX (2u, f->radix / 2);
  gboolean by_ratio = c->oversubscription != 0 && c->dragonfly_global_links == 0;
  guint h = c->dragonfly_global_links ? c->dragonfly_global_links : MAX (1u, f->radix / 4);
  guint groups, m, m_max, per_pair;
  g_autofree guint *next_port = NULL;
  guint32 router0;

  for (guint i = 0; i < n; i++)
    n_nodes = MAX (n_nodes, g_array_index (f->nic_nodes, guint32, i) + 1);
  if (a - 1 + (by_ratio ? 1 : h) >= f->radix)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "radix too small: %u routers per group and %u global links leave no port of "
                   "%u for NICs: expected routers_per_group - 1 + global_links < radix", a,
                   by_ratio ? 1 : h, f->radix);
      return FALSE;
    }
  if (by_ratio)
    {
      LeafPlan plan;
      if (!plan_leaves (f, k, f->radix - (a - 1), "dragonfly router", &plan, error))
        return FALSE;
      m_max = plan.nodes;
    }
  else
    m_max = (f->radix - (a - 1) - h) / k;
  if (m_max == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "radix too small: a node's %u NICs need %u ports on one router, but %u "
                   "routers per group and %u global links leave %u of %u: expected a larger "
                   "radix, fewer routers_per_group or global_links (no node's NICs are split "
                   "across routers)", k, k, a, h, f->radix - (a - 1) - h, f->radix);
      return FALSE;
    }
  if (c->dragonfly_groups > 0)
    groups = c->dragonfly_groups;
  else
    groups = MAX (1u, (n_nodes + a * m_max - 1) / (a * m_max));
  m = MAX (1u, (n_nodes + groups * a - 1) / (groups * a));
  if (by_ratio)
    h = uplinks_for (f, m * k, f->radix - (a - 1));
  if (m * k + (a - 1) + h > f->radix)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "radix too small: %u nodes over %u groups of %u routers put %u nodes of %u "
                   "NICs on a router, which with %u group ports and %u global ports need "
                   "more than %u: expected more groups or a larger radix", n_nodes, groups, a,
                   m, k, a - 1, h, f->radix);
      return FALSE;
    }
  if (groups > 1 && groups - 1 > a * h)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%u groups need %u global links from each group, but %u routers of %u "
                   "global links have %u: expected at most %u groups", groups, groups - 1, a,
                   h, a * h, a * h + 1);
      return FALSE;
    }

  f->t->dfly_groups = groups;
  f->t->dfly_a = a;
  router0 = n_vertices (f->t);
  for (guint r = 0; r < groups * a; r++)
    add_switch (f, SIM_VERTEX_ROUTER);
  for (guint i = 0; i < n; i++)
    attach_nic (f, i, router0 + g_array_index (f->nic_nodes, guint32, i) / m);
  for (guint g = 0; g < groups; g++)
    for (guint r = 0; r < a; r++)
      for (guint s = r + 1; s < a; s++)
        add_trunk (f, router0 + g * a + r, router0 + g * a + s, SIM_TIER_AGGREGATION, TRUE);
  if (groups < 2)
    return TRUE;
  per_pair = a * h / (groups - 1);
  next_port = g_new0 (guint, groups);
  for (guint g1 = 0; g1 < groups; g1++)
    for (guint g2 = g1 + 1; g2 < groups; g2++)
      for (guint k2 = 0; k2 < per_pair; k2++)
        {
          guint32 r1 = router0 + g1 * a + next_port[g1]++ / h;
          guint32 r2 = router0 + g2 * a + next_port[g2]++ / h;
          add_trunk (f, r1, r2, SIM_TIER_CORE, FALSE);
        }
  return TRUE;
}

/* The links of the network (from @first on): the [fabric] link_latency
 * in place of the link model's per-hop latency, plus the propagation
 * along the cable lengths the [fabric] section gives. */
static void
set_network_link_latency (SimTopology *t, const SimFabricConfig *config, guint first)
{
  for (guint l = first; l < t->links->len; l++)
    {
      SimLink *k = &g_array_index (t->links, SimLink, l);
      double metres;

      if (k->tier == SIM_TIER_INTRA)
        continue;
      if (config->set_link_latency)
        k->latency = config->link_latency;
      metres = k->tier == SIM_TIER_ACCESS ? config->access_cable_length : config->cable_length;
      k->latency += (SimTime) llround (metres * SIM_CABLE_NS_PER_METRE);
    }
}

/* Adds a warning to @t: something built otherwise than asked. */
static void G_GNUC_PRINTF (2, 3)
add_warning (SimTopology *t, const char *format, ...)
{
  va_list ap;

  va_start (ap, format);
  g_ptr_array_index (t->warnings, t->warnings->len - 1) = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_ptr_array_add (t->warnings, NULL);
}

/* "2:1", "3.08:1". */
static char *
ratio_string (double r)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup_printf ("%s:1", g_ascii_formatd (buf, sizeof buf, "%.3g", r));
}

static gint
compare_shapes (gconstpointer a, gconstpointer b)
{
  const guint *x = a, *y = b;  /* { down, up, count } */
  if (x[2] != y[2])
    return x[2] > y[2] ? -1 : 1;
  return x[0] != y[0] ? (x[0] > y[0] ? -1 : 1) : (x[1] > y[1] ? -1 : x[1] < y[1]);
}

/* Checks the built leaves (rail leaves, dragonfly routers) from @first_switch
 * on against the oversubscription asked: every one with uplinks should
 * have NIC ports : uplinks equal to it.  Where whole nodes do not allow
 * it, the builder took the nearest ratio; this says which it built, leaf
 * shape by leaf shape, as a warning.  A dragonfly with no ratio asked is
 * not checked (its global links come from global_links). */
static void
check_oversubscription (Fabric *f, guint32 first_switch, guint first_link)
{
  SimTopology *t = f->t;
  guint n_sw = n_vertices (t) - first_switch;
  g_autofree guint *down = g_new0 (guint, MAX (1u, n_sw));
  g_autofree guint *up = g_new0 (guint, MAX (1u, n_sw));
  g_autoptr(GArray) shapes = g_array_new (FALSE, FALSE, 3 * sizeof (guint));
  g_autoptr(GString) built = g_string_new (NULL);
  g_autofree char *asked = NULL;
  gboolean off = FALSE;
  const char *what, *whats;

  if (f->config->kind == SIM_FABRIC_DRAGONFLY && f->config->oversubscription == 0)
    return;
  for (guint l = first_link; l < t->links->len; l++)
    {
      const SimLink *k = &g_array_index (t->links, SimLink, l);
      SimVertexKind ka = vertex_kind (t, k->a), kb = vertex_kind (t, k->b);

      if (k->tier == SIM_TIER_ACCESS)
        down[k->b - first_switch]++;
      else if (ka == SIM_VERTEX_LEAF && kb == SIM_VERTEX_SPINE)
        up[k->a - first_switch]++;
      else if (ka == SIM_VERTEX_ROUTER && k->tier == SIM_TIER_CORE)
        {
          up[k->a - first_switch]++;
          up[k->b - first_switch]++;
        }
    }
  for (guint s = 0; s < n_sw; s++)
    {
      guint i;

      if (up[s] == 0 || down[s] == 0)
        continue;
      if (fabs ((double) down[s] / up[s] / f->oversub - 1) > 1e-9)
        off = TRUE;
      for (i = 0; i < shapes->len; i++)
        {
          guint *sh = &g_array_index (shapes, guint, 3 * i);
          if (sh[0] == down[s] && sh[1] == up[s])
            {
              sh[2]++;
              break;
            }
        }
      if (i == shapes->len)
        {
          guint sh[3] = { down[s], up[s], 1 };
          g_array_append_vals (shapes, sh, 1);
        }
    }
  if (!off)
    return;
  g_array_sort (shapes, compare_shapes);
  what = f->config->kind == SIM_FABRIC_DRAGONFLY ? "router"
         : f->config->kind == SIM_FABRIC_RAIL_OPTIMIZED ? "rail leaf" : "leaf";
  whats = f->config->kind == SIM_FABRIC_DRAGONFLY ? "routers"
          : f->config->kind == SIM_FABRIC_RAIL_OPTIMIZED ? "rail leaves" : "leaves";
  for (guint i = 0; i < shapes->len; i++)
    {
      const guint *sh = &g_array_index (shapes, guint, 3 * i);
      g_autofree char *r = ratio_string ((double) sh[0] / sh[1]);
      g_string_append_printf (built, "%s%u %s of %u NIC ports and %u %s (%s)",
                              i > 0 ? ", " : "", sh[2], sh[2] == 1 ? what : whats, sh[0], sh[1],
                              f->config->kind == SIM_FABRIC_DRAGONFLY ? "global links"
                                                                      : "uplinks", r);
    }
  asked = ratio_string (f->oversub);
  add_warning (t, "oversubscription %s asked, but not every %s can have it with whole nodes "
               "of up to %u NICs on %u-port switches: built %s", asked, what,
               max_node_nics (f), f->radix, built->str);
}

static gboolean build_network (Fabric *f, GError **error);

static gboolean
build_fabric (SimTopology *t, const SimCluster *cluster, const SimCatalogue *catalogue,
              const SimFabricConfig *config, GArray *nics, GArray *nic_nodes, GError **error)
{
  g_autofree const SimLinkModel **nic_link = g_new0 (const SimLinkModel *, t->n_nodes);
  const SimLinkModel *forced = NULL;
  Fabric f = { .t = t, .config = config, .nics = nics, .nic_nodes = nic_nodes,
               .nic_link = nic_link };

  if (config->link_model != NULL)
    {
      forced = sim_catalogue_lookup_link (catalogue, config->link_model);
      if (forced == NULL)
        {
          const char *guess = sim_catalogue_suggest_link (catalogue, config->link_model);
          g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                       "no link model \"%s\" in the catalogue%s (see `gpusim models`)",
                       config->link_model, sim__did_you_mean (guess));
          return FALSE;
        }
    }
  if (config->switch_model != NULL)
    {
      f.sw = sim_catalogue_lookup_switch (catalogue, config->switch_model);
      if (f.sw == NULL)
        {
          const char *guess = sim_catalogue_suggest_switch (catalogue, config->switch_model);
          g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                       "no switch model \"%s\" in the catalogue%s (see `gpusim models`)",
                       config->switch_model, sim__did_you_mean (guess));
          return FALSE;
        }
    }
  if (config->oversubscription != 0 && !(config->oversubscription >= 1))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "oversubscription %g: expected at least 1 (1:1 is non-blocking)",
                   config->oversubscription);
      return FALSE;
    }
  f.oversub = config->oversubscription != 0 ? config->oversubscription : 1.0;

  for (guint i = 0; i < t->n_nodes; i++)
    {
      const SimNode *node = sim_cluster_get_node (cluster, i);
      const SimNodeModel *m = node->model;

      nic_link[i] = forced;
      if (nic_link[i] == NULL)
        nic_link[i] = m->nic_link != NULL ? m->nic_link
                                          : sim_catalogue_lookup_link (catalogue, m->nic_link_name);
      if (m->nics == 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "node model \"%s\" has no NICs: expected nics > 0 to join a %s fabric "
                       "(or topology = none)", m->name, sim_fabric_kind_to_string (config->kind));
          return FALSE;
        }
      if (nic_link[i] == NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "node model \"%s\" (%s) has no NIC link: expected a nic_link key in the "
                       "model, or a link key in [fabric], naming a [link] model such as "
                       "\"IB-NDR\"", m->name, m->source_file);
          return FALSE;
        }
    }
  f.trunk = nic_link[0];
  t->trunk_kind = f.trunk->kind != NULL ? g_intern_string (f.trunk->kind) : NULL;
  if (config->routing == SIM_ROUTING_SPRAY
      && (config->kind == SIM_FABRIC_DRAGONFLY))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "routing spray needs a tree fabric: expected topology single-switch, "
                   "fat-tree, fat-tree-3 or rail-optimized (a dragonfly routes minimally over "
                   "one path: use dmodk, ecmp or adaptive)");
      return FALSE;
    }
  f.radix = config->radix != 0 ? config->radix : f.sw != NULL ? f.sw->radix : 0;
  if (f.radix == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                   "no switch: expected a switch model ([fabric] switch) or a radix");
      return FALSE;
    }
  f.port_bw = f.sw != NULL ? f.sw->port_bandwidth : f.trunk->bandwidth;
  f.sw_latency = config->set_switch_latency ? config->switch_latency
                 : f.sw != NULL ? f.sw->latency_ns : 0;
  return build_network (&f, error);
}

/* The switches and their links, once @f is resolved (its link models,
 * radix, port bandwidth, switch latency and oversubscription); shared by
 * the cluster builder and sim_topology_new_hosts(). */
static gboolean
build_network (Fabric *f, GError **error)
{
  SimTopology *t = f->t;
  const SimFabricConfig *config = f->config;
  GArray *nics = f->nics, *nic_nodes = f->nic_nodes;
  const SimLinkModel **nic_link = f->nic_link;

  /* A NIC's vertex carries half its link's per-message transport latency
   * (or half the [fabric] transport_latency that replaces it). */
  for (guint i = 0; i < nics->len; i++)
    {
      const SimLinkModel *m = nic_link[g_array_index (nic_nodes, guint32, i)];
      SimTime transport = config->set_transport_latency ? config->transport_latency
                                                        : m->transport_latency_ns;
      g_array_index (t->latency, SimTime, g_array_index (nics, guint32, i)) = transport / 2;
    }

  {
    guint first_link = t->links->len;
    guint32 first_switch = n_vertices (t);
    gboolean ok;

    switch (config->kind)
      {
      case SIM_FABRIC_SINGLE_SWITCH:
        ok = build_single_switch (f, error);
        break;
      case SIM_FABRIC_FAT_TREE:
        ok = build_fat_tree (f, error);
        break;
      case SIM_FABRIC_FAT_TREE_3:
        ok = build_fat_tree_3 (f, error);
        break;
      case SIM_FABRIC_RAIL_OPTIMIZED:
        ok = build_rail_optimized (f, error);
        break;
      case SIM_FABRIC_DRAGONFLY:
        ok = build_dragonfly (f, error);
        break;
      case SIM_FABRIC_NONE:
      default:
        ok = TRUE;
        break;
      }
    if (ok)
      {
        set_network_link_latency (t, config, first_link);
        check_oversubscription (f, first_switch, first_link);
      }
    return ok;
  }
}

static void build_routing (SimTopology *t, const SimFabricConfig *config, GArray *nics);

/* ------------------------------------------------------------------------ */
/* The topology */

static void
dist_table_free (gpointer p)
{
  DistTable *d = p;
  g_free (d->dist);
  g_free (d);
}

static void
build_adjacency (SimTopology *t)
{
  guint nv = n_vertices (t), nl = t->links->len;
  g_autofree guint32 *fill = g_new0 (guint32, nv + 1);

  t->adj_start = g_new0 (guint32, nv + 1);
  t->adj_link = g_new (guint32, (gsize) 2 * nl + 1);
  for (guint l = 0; l < nl; l++)
    {
      const SimLink *k = &g_array_index (t->links, SimLink, l);
      t->adj_start[k->a + 1]++;
      t->adj_start[k->b + 1]++;
    }
  for (guint v = 0; v < nv; v++)
    t->adj_start[v + 1] += t->adj_start[v];
  for (guint l = 0; l < nl; l++)
    {
      const SimLink *k = &g_array_index (t->links, SimLink, l);
      t->adj_link[t->adj_start[k->a] + fill[k->a]++] = l;
      t->adj_link[t->adj_start[k->b] + fill[k->b]++] = l;
    }
  t->bfs_queue = g_new (guint32, nv + 1);
}

static SimTopology *
topology_alloc (guint32 n_gpus, guint32 n_nodes)
{
  SimTopology *t = g_new0 (SimTopology, 1);

  t->kinds = g_array_new (FALSE, FALSE, sizeof (guint8));
  t->latency = g_array_new (FALSE, FALSE, sizeof (SimTime));
  t->node_of = g_array_new (FALSE, FALSE, sizeof (guint32));
  t->links = g_array_new (FALSE, FALSE, sizeof (SimLink));
  t->optical = g_array_new (FALSE, FALSE, sizeof (guint8));
  t->warnings = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (t->warnings, NULL);
  t->global_cache = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, dist_table_free);
  t->intra_cache = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, dist_table_free);
  g_queue_init (&t->cache_order);
  t->n_gpus = n_gpus;
  t->n_nodes = n_nodes;
  t->spans = g_new0 (NodeSpan, MAX (1u, n_nodes));
  return t;
}

/* Refuses a topology whose numbering would overflow. */
static gboolean
check_size (SimTopology *t, GError **error)
{
  if (n_vertices (t) >= G_MAXUINT32 / 2 || t->links->len >= G_MAXUINT32 / 4)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "the topology is too large: %u vertices, %u links", n_vertices (t),
                   t->links->len);
      return FALSE;
    }
  return TRUE;
}

SimTopology *
sim_topology_new (const SimCluster *cluster, const SimCatalogue *catalogue,
                  const SimFabricConfig *config, GError **error)
{
  g_autoptr(SimTopology) t = NULL;
  g_autoptr(GArray) nics = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) nic_nodes = g_array_new (FALSE, FALSE, sizeof (guint32));
  SimFabricConfig none = { 0 };

  g_return_val_if_fail (cluster != NULL, NULL);
  g_return_val_if_fail (catalogue != NULL, NULL);

  sim_init ();
  if (config == NULL)
    config = &none;
  if ((guint) config->kind > SIM_FABRIC_DRAGONFLY)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "unknown fabric kind %d",
                   (int) config->kind);
      return NULL;
    }

  t = topology_alloc (sim_cluster_get_n_gpus (cluster), sim_cluster_get_n_nodes (cluster));

  for (guint32 i = 0; i < t->n_gpus; i++)
    add_vertex (t, SIM_VERTEX_GPU, 0, sim_cluster_get_gpu (cluster, i)->node);
  for (guint i = 0; i < t->n_nodes; i++)
    if (!build_node (t, sim_cluster_get_node (cluster, i), catalogue,
                     config->kind != SIM_FABRIC_NONE, nics, nic_nodes, error))
      return NULL;
  if (config->kind != SIM_FABRIC_NONE && t->n_nodes > 0
      && !build_fabric (t, cluster, catalogue, config, nics, nic_nodes, error))
    return NULL;
  if (!check_size (t, error))
    return NULL;
  build_adjacency (t);
  build_routing (t, config, nics);
  return g_steal_pointer (&t);
}

SimTopology *
sim_topology_new_hosts (guint n_hosts, double host_bandwidth, SimFabricKind kind, guint radix,
                        double oversubscription, SimTime link_latency, GError **error)
{
  g_autoptr(SimTopology) t = NULL;
  g_autoptr(GArray) nics = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) nic_nodes = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autofree const SimLinkModel **nic_link = NULL;
  SimLinkModel host_link = {
    .name = (char *) "host", .kind = (char *) "ethernet", .transport = (char *) "rdma",
    .bandwidth = host_bandwidth, .efficiency = 1.0, .latency_ns = link_latency,
  };
  SimFabricConfig config = {
    .kind = kind, .radix = radix, .oversubscription = oversubscription,
    .set_link_latency = TRUE, .link_latency = link_latency,
    .set_switch_latency = TRUE, .set_transport_latency = TRUE,
    .routing = SIM_ROUTING_DMODK,
  };
  Fabric f = { .config = &config, .nics = nics, .nic_nodes = nic_nodes,
               .trunk = &host_link, .port_bw = host_bandwidth };

  sim_init ();
  if (n_hosts < 2)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%u hosts: expected at least 2 to make a network", n_hosts);
      return NULL;
    }
  if (n_hosts >= G_MAXUINT32 / 8)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%u hosts: too many", n_hosts);
      return NULL;
    }
  if (!(host_bandwidth > 0) || isinf (host_bandwidth))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "host bandwidth %g bytes/s: expected a positive, finite number",
                   host_bandwidth);
      return NULL;
    }
  if (kind != SIM_FABRIC_SINGLE_SWITCH && kind != SIM_FABRIC_FAT_TREE
      && kind != SIM_FABRIC_FAT_TREE_3)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "topology %s: expected single-switch, fat-tree or fat-tree-3 for hosts",
                   sim_fabric_kind_to_string (kind));
      return NULL;
    }
  if (oversubscription != 0 && !(oversubscription >= 1 && isfinite (oversubscription)))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "oversubscription %g: expected at least 1 (1:1 is non-blocking)",
                   oversubscription);
      return NULL;
    }
  if (link_latency < 0 || link_latency > SIM_FABRIC_MAX_LATENCY)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "link latency %" G_GINT64_FORMAT " ns: expected 0 to 1 s", link_latency);
      return NULL;
    }
  if (radix == 0 && kind == SIM_FABRIC_SINGLE_SWITCH)
    radix = n_hosts;
  if (radix < 2)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "radix %u: expected at least 2 ports per switch", radix);
      return NULL;
    }

  t = topology_alloc (n_hosts, n_hosts);
  f.t = t;
  f.radix = radix;
  f.oversub = oversubscription != 0 ? oversubscription : 1.0;
  nic_link = g_new (const SimLinkModel *, n_hosts);
  f.nic_link = nic_link;
  /* Hosts first (the "GPU" vertices, one per node), then one NIC each,
   * joined by a host link of unbounded capacity that no route is
   * limited by. */
  for (guint32 h = 0; h < n_hosts; h++)
    add_vertex (t, SIM_VERTEX_GPU, 0, h);
  for (guint32 h = 0; h < n_hosts; h++)
    {
      NodeSpan *span = &t->spans[h];
      guint32 nic;

      span->first_gpu = h;
      span->n_gpus = 1;
      span->first_extra = n_vertices (t);
      nic = add_vertex (t, SIM_VERTEX_NIC, 0, h);
      span->n_extra = 1;
      add_link (t, h, nic, INFINITY, NULL, SIM_TIER_INTRA, FALSE);
      g_array_append_val (nics, nic);
      g_array_append_val (nic_nodes, h);
      nic_link[h] = &host_link;
    }
  t->trunk_kind = g_intern_string (host_link.kind);
  if (!build_network (&f, error) || !check_size (t, error))
    return NULL;
  /* The link model lives on this stack: keep only its interned name. */
  build_adjacency (t);
  build_routing (t, &config, nics);
  return g_steal_pointer (&t);
}

void
sim_topology_free (SimTopology *topology)
{
  if (topology == NULL)
    return;
  g_array_unref (topology->kinds);
  g_array_unref (topology->latency);
  g_array_unref (topology->node_of);
  g_array_unref (topology->links);
  g_array_unref (topology->optical);
  g_ptr_array_unref (topology->warnings);
  g_free (topology->spans);
  g_free (topology->adj_start);
  g_free (topology->adj_link);
  g_free (topology->bfs_queue);
  g_free (topology->nic_vertex);
  g_free (topology->nic_access);
  g_free (topology->gpu_nic_start);
  g_free (topology->gpu_nic);
  g_free (topology->up_start);
  g_free (topology->up_link);
  g_free (topology->bundle_of);
  g_free (topology->bundle_capacity);
  g_free (topology->anc_stamp);
  g_free (topology->anc_level);
  g_free (topology->anc_list);
  if (topology->anc_kept != NULL)
    g_hash_table_unref (topology->anc_kept);
  g_free (topology->up_to);
  g_free (topology->adj_to);
  g_free (topology->cand);
  g_free (topology->nic_way);
  g_free (topology->sw_start);
  g_free (topology->sw_link);
  g_free (topology->sw_to);
  g_free (topology->gl_start);
  g_free (topology->gl_to);
  g_free (topology->gl_sig);
  g_free (topology->gl_mark);
  g_free (topology->gl_gmark);
  if (topology->shapes != NULL)
    g_ptr_array_unref (topology->shapes);
  g_free (topology->node_shape);
  g_free (topology->node_link0);
  g_hash_table_unref (topology->global_cache);
  g_hash_table_unref (topology->intra_cache);
  g_queue_clear (&topology->cache_order);
  g_free (topology);
}

const char * const *
sim_topology_get_warnings (const SimTopology *topology)
{
  g_return_val_if_fail (topology != NULL, NULL);
  return (const char * const *) topology->warnings->pdata;
}

guint
sim_topology_get_n_vertices (const SimTopology *topology)
{
  g_return_val_if_fail (topology != NULL, 0);
  return n_vertices (topology);
}

guint
sim_topology_get_n_gpus (const SimTopology *topology)
{
  g_return_val_if_fail (topology != NULL, 0);
  return topology->n_gpus;
}

SimVertexKind
sim_topology_get_vertex_kind (const SimTopology *topology, guint32 vertex)
{
  g_return_val_if_fail (topology != NULL, SIM_VERTEX_GPU);
  g_return_val_if_fail (vertex < n_vertices (topology), SIM_VERTEX_GPU);
  return vertex_kind (topology, vertex);
}

SimTime
sim_topology_get_vertex_latency (const SimTopology *topology, guint32 vertex)
{
  g_return_val_if_fail (topology != NULL, 0);
  g_return_val_if_fail (vertex < n_vertices (topology), 0);
  return g_array_index (topology->latency, SimTime, vertex);
}

gint
sim_topology_get_vertex_node (const SimTopology *topology, guint32 vertex)
{
  guint32 node;

  g_return_val_if_fail (topology != NULL, -1);
  g_return_val_if_fail (vertex < n_vertices (topology), -1);
  node = g_array_index (topology->node_of, guint32, vertex);
  return node == NO_NODE ? -1 : (gint) node;
}

/* The first neighbour of V whose kind is a network switch, or NO_NODE. */
static guint32
switch_above (const SimTopology *t, guint32 v, guint32 not_this)
{
  for (guint32 e = t->adj_start[v]; e < t->adj_start[v + 1]; e++)
    {
      const SimLink *l = &g_array_index (t->links, SimLink, t->adj_link[e]);
      guint32 w = l->a == v ? l->b : l->a;
      SimVertexKind k = vertex_kind (t, w);
      if (w != not_this && g_array_index (t->node_of, guint32, w) == NO_NODE &&
          (k == SIM_VERTEX_LEAF || k == SIM_VERTEX_SPINE || k == SIM_VERTEX_CORE ||
           k == SIM_VERTEX_ROUTER))
        return w;
    }
  return NO_NODE;
}

guint32
sim_topology_get_node_group (const SimTopology *topology, guint node, SimLinkTier tier)
{
  guint32 leaf = NO_NODE;

  g_return_val_if_fail (topology != NULL, G_MAXUINT32);
  g_return_val_if_fail (node < topology->n_nodes, G_MAXUINT32);
  for (guint32 v = 0; v < n_vertices (topology) && leaf == NO_NODE; v++)
    if (g_array_index (topology->node_of, guint32, v) == node &&
        vertex_kind (topology, v) == SIM_VERTEX_NIC)
      leaf = switch_above (topology, v, NO_NODE);
  if (leaf == NO_NODE || tier <= SIM_TIER_INTRA)
    return tier <= SIM_TIER_INTRA ? node : G_MAXUINT32;
  if (tier == SIM_TIER_ACCESS)
    return leaf;
  if (tier == SIM_TIER_AGGREGATION)
    {
      /* The first switch above the leaf: in a three-tier fat-tree the
       * spines are a pod's own, so this names the pod; in two tiers every
       * leaf reaches the same first spine. */
      guint32 up = NO_NODE;
      for (guint32 e = topology->adj_start[leaf]; e < topology->adj_start[leaf + 1] && up == NO_NODE; e++)
        {
          const SimLink *l = &g_array_index (topology->links, SimLink, topology->adj_link[e]);
          guint32 w = l->a == leaf ? l->b : l->a;
          if (g_array_index (topology->node_of, guint32, w) == NO_NODE &&
              vertex_rank (vertex_kind (topology, w)) > vertex_rank (vertex_kind (topology, leaf)))
            up = w;
        }
      return up == NO_NODE ? leaf : up;
    }
  return 0;
}

guint
sim_topology_get_n_links (const SimTopology *topology)
{
  g_return_val_if_fail (topology != NULL, 0);
  return topology->links->len;
}

const SimLink *
sim_topology_get_link (const SimTopology *topology, guint32 link)
{
  g_return_val_if_fail (topology != NULL, NULL);
  g_return_val_if_fail (link < topology->links->len, NULL);
  return &g_array_index (topology->links, SimLink, link);
}

gboolean
sim_topology_get_link_optical (const SimTopology *topology, guint32 link)
{
  g_return_val_if_fail (topology != NULL, FALSE);
  g_return_val_if_fail (link < topology->links->len, FALSE);
  return g_array_index (topology->optical, guint8, link) != 0;
}

guint32
sim_topology_get_gpu_vertex (const SimTopology *topology, guint32 gpu)
{
  g_return_val_if_fail (topology != NULL, 0);
  g_return_val_if_fail (gpu < topology->n_gpus, 0);
  return gpu;
}

double
sim_topology_resource_capacity (const SimTopology *topology, guint32 resource)
{
  const SimLink *l;

  g_return_val_if_fail (topology != NULL, 0);
  g_return_val_if_fail (resource < sim_topology_get_n_resources (topology), 0);
  if (resource >= 2 * topology->links->len)
    return topology->bundle_capacity[(resource - 2 * topology->links->len) / 2];
  l = &g_array_index (topology->links, SimLink, resource / 2);
  return l->bandwidth * l->efficiency;
}

/* ------------------------------------------------------------------------ */
/* Routing */

/* The position of @v among its node's vertices (GPUs first). */
static guint32
local_index (const SimTopology *t, const NodeSpan *span, guint32 v)
{
  if (v < t->n_gpus)
    return v - span->first_gpu;
  return span->n_gpus + (v - span->first_extra);
}

static inline guint32
other_end (const SimTopology *t, guint32 link, guint32 v)
{
  const SimLink *k = &g_array_index (t->links, SimLink, link);
  return k->a == v ? k->b : k->a;
}

/* Breadth-first search from @dst over the node's own links (@span), over
 * the network's links only (@span NULL, @network), or over every link;
 * fills @dist (indexed by local index with @span, else by vertex). */
static void
bfs (SimTopology *t, guint32 dst, const NodeSpan *span, gboolean network, guint16 *dist,
     gsize n)
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
  bfs (t, dst, span, TRUE, d->dist, n);
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
  guint32         buf[ROUTE_BUF];
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
  if (G_UNLIKELY (r->n == ROUTE_BUF))
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
 * and latency of the way down from each of its switches. */
typedef struct NicWay {
  guint32 way[MAX_TIERS];           /* switches, from the NIC's leaf up */
  guint32 down[MAX_TIERS];          /* the resource down from way[k]: to way[k - 1], or
                                     * for k = 0 to the NIC */
  SimTime down_latency[MAX_TIERS];  /* from way[k] down to the NIC, its vertex included */
  guint32 n;                        /* switches on the way; 0 until worked out */
} NicWay;

/* The resource of link @l crossed from @v, and the latency of the hop. */
static guint32
hop_resource (const SimTopology *t, guint32 l, guint32 v, SimTime *latency)
{
  const SimLink *k = &g_array_index (t->links, SimLink, l);
  guint32 next = k->a == v ? k->b : k->a;

  *latency = k->latency + g_array_index (t->latency, SimTime, next);
  return 2 * l + (k->a == v ? 0 : 1);
}

static const NicWay *
nic_way (SimTopology *t, guint32 nd)
{
  NicWay *w;
  guint64 div = 1;
  SimTime lat;

  if (t->nic_way == NULL)
    t->nic_way = g_new0 (NicWay, MAX (1u, t->n_nics));
  w = &t->nic_way[nd];
  if (w->n > 0 && !t->search)
    return w;
  w->way[0] = other_end (t, t->nic_access[nd], t->nic_vertex[nd]);
  w->down[0] = hop_resource (t, t->nic_access[nd], w->way[0], &lat);
  w->down_latency[0] = lat;
  w->n = 1;
  while (w->n <= MAX_TIERS - 1 && n_up (t, w->way[w->n - 1]) > 0)
    {
      guint32 v = w->way[w->n - 1];
      guint n = n_up (t, v);
      guint32 l = t->up_link[t->up_start[v] + (guint) ((nd / div) % n)];

      w->way[w->n] = other_end (t, l, v);
      w->down[w->n] = hop_resource (t, l, w->way[w->n], &lat);
      w->down_latency[w->n] = w->down_latency[w->n - 1] + lat;
      div *= n;
      w->n++;
    }
  return w;
}

/* D-mod-K on a tree, in closed form: the destination's way up from its
 * leaf takes, at each tier, uplink (D / P) mod u of its u uplinks (P: the
 * product of the uplink counts below).  The source climbs from its leaf
 * with the same digits until it stands on the destination's way, then
 * follows it down.  FALSE (and nothing appended) if the two never meet,
 * which a symmetric tree does not allow. */
static gboolean
dmodk_tree (SimTopology *t, guint32 ns, guint32 nd, Route *r)
{
  const NicWay *w;
  guint32 b;
  guint len0 = route_len (r), met = NO_NODE;
  SimTime lat0 = r->latency;
  guint64 div = 1;

  if (t->nic_access[ns] == NO_NODE || t->nic_access[nd] == NO_NODE)
    return FALSE;
  w = nic_way (t, nd);

  b = take (t, r, t->nic_access[ns], t->nic_vertex[ns]);
  if (b == w->way[0])
    met = 0;
  for (guint k = 0; k + 1 < w->n && met == NO_NODE; k++)
    {
      guint n = n_up (t, b);
      if (n == 0)
        break;
      b = take (t, r, t->up_link[t->up_start[b] + (guint) ((nd / div) % n)], b);
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
  if (G_UNLIKELY (t->search))
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

/* A leaf's ancestors, with their levels, as tree_walk() marks them:
 * marking again from the list costs a store per ancestor, where finding
 * them costs a scan of each one's uplinks (a spine's dozens). */
typedef struct {
  guint32  n;
  guint32 *vertex;
  guint8  *level;
} AncList;

/* Memory for kept ancestor lists, in bytes; past it, they are found again
 * each time. */
#define ANC_BUDGET (16u << 20)

static void
anc_list_free (gpointer p)
{
  AncList *a = p;
  g_free (a->vertex);
  g_free (a->level);
  g_free (a);
}

/* Marks the ancestors of leaf @ld (itself at level 0, its up-neighbours
 * at 1, theirs at 2...) in anc_stamp, under a new anc_now. */
static void
mark_ancestors (SimTopology *t, guint32 ld)
{
  const AncList *kept = NULL;
  guint n_anc = 0;

  if (t->anc_stamp == NULL)
    {
      t->anc_stamp = g_new0 (guint32, n_vertices (t));
      t->anc_level = g_new0 (guint8, n_vertices (t));
      t->anc_list = g_new (guint32, n_vertices (t));
      t->anc_kept = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, anc_list_free);
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
    }
  if (++t->anc_now == 0)
    {
      memset (t->anc_stamp, 0, n_vertices (t) * sizeof (guint32));
      t->anc_now = 1;
    }
  t->anc_leaf = ld;
  if (!t->search)
    kept = g_hash_table_lookup (t->anc_kept, GUINT_TO_POINTER (ld));
  if (kept != NULL)
    {
      for (guint32 i = 0; i < kept->n; i++)
        {
          t->anc_stamp[kept->vertex[i]] = t->anc_now;
          t->anc_level[kept->vertex[i]] = kept->level[i];
        }
      return;
    }

  t->anc_stamp[ld] = t->anc_now;
  t->anc_level[ld] = 0;
  t->anc_list[n_anc++] = ld;
  for (guint i = 0; i < n_anc; i++)
    {
      guint32 w = t->anc_list[i];
      if (t->anc_level[w] + 1 >= MAX_TIERS)
        continue;
      for (guint32 e = t->up_start[w]; e < t->up_start[w + 1]; e++)
        {
          guint32 u = t->up_to[e];
          if (t->anc_stamp[u] != t->anc_now)
            {
              t->anc_stamp[u] = t->anc_now;
              t->anc_level[u] = (guint8) (t->anc_level[w] + 1);
              t->anc_list[n_anc++] = u;
            }
        }
    }
  if (!t->search && t->anc_bytes + (gsize) n_anc * 5 <= ANC_BUDGET)
    {
      AncList *a = g_new (AncList, 1);
      a->n = n_anc;
      a->vertex = g_memdup2 (t->anc_list, (gsize) n_anc * sizeof (guint32));
      a->level = g_new (guint8, n_anc);
      for (guint i = 0; i < n_anc; i++)
        a->level[i] = t->anc_level[t->anc_list[i]];
      g_hash_table_insert (t->anc_kept, GUINT_TO_POINTER (ld), a);
      t->anc_bytes += (gsize) n_anc * 5;
    }
}

/* Hop by hop on a tree, for the modes that choose at every hop (ECMP,
 * adaptive), without a distance table: mark the destination leaf's
 * ancestors (its up-neighbours, theirs, ...), climb from the source's leaf
 * (to a marked up-neighbour as soon as there is one, which is the lowest
 * common tier, else up any uplink), then come down through marked
 * switches one tier at a time.  O(ancestors' uplinks + radix x tiers) the
 * first time for a destination leaf, O(ancestors + radix x tiers) after
 * (its ancestors are kept, within a budget), O(radix x tiers) for a route
 * to the same leaf as the one before.  FALSE (nothing appended) if the
 * climb finds no common switch, which a symmetric tree does not allow. */
static gboolean
tree_walk (SimTopology *t, guint32 ns, guint32 nd, Route *r)
{
  guint32 vs = t->nic_vertex[ns], vd = t->nic_vertex[nd], ld, b, *cand;
  guint len0 = route_len (r), hop0 = r->hop;
  SimTime lat0 = r->latency;
  guint64 div0 = r->div;

  if (t->nic_access[ns] == NO_NODE || t->nic_access[nd] == NO_NODE)
    return FALSE;
  ld = other_end (t, t->nic_access[nd], vd);
  /* The marks stand until the next leaf's: routes to one leaf in a row
   * (a collective's flows often are) mark it once. */
  if (t->anc_stamp == NULL || ld != t->anc_leaf || t->search)
    mark_ancestors (t, ld);

  b = take (t, r, t->nic_access[ns], vs);
  r->hop++;
  while (t->anc_stamp[b] != t->anc_now)
    {
      guint n = 0, n_marked = 0;
      cand = cand_buffer (t, n_up (t, b));
      for (guint32 e = t->up_start[b]; e < t->up_start[b + 1]; e++)
        if (t->anc_stamp[t->up_to[e]] == t->anc_now)
          n_marked++;
      for (guint32 e = t->up_start[b]; e < t->up_start[b + 1]; e++)
        if (n_marked == 0 || t->anc_stamp[t->up_to[e]] == t->anc_now)
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
      guint8 want = (guint8) (t->anc_level[b] - 1);
      cand = cand_buffer (t, t->adj_start[b + 1] - t->adj_start[b]);
      for (guint32 e = t->adj_start[b]; e < t->adj_start[b + 1]; e++)
        {
          guint32 u = t->adj_to[e];
          if (t->anc_stamp[u] == t->anc_now && t->anc_level[u] == want
              && g_array_index (t->node_of, guint32, u) == NO_NODE)
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

/* Appends the route from @from to @to, two vertices of @node, over the
 * node's links: what walk() gives, copied from the node's shape when it
 * is kept (inline: most routes take two such copies).  FALSE if @to is
 * not reachable. */
G_ALWAYS_INLINE static inline gboolean
node_route (SimTopology *t, guint32 node, guint32 from, guint32 to, Route *r)
{
  const NodeSpan *span = &t->spans[node];
  const Shape *shape;
  guint32 sh, k;

  if (G_UNLIKELY (t->shapes == NULL) || (sh = t->node_shape[node]) == NO_NODE)
    return node_route_walk (t, node, from, to, r);
  shape = g_ptr_array_index (t->shapes, sh);
  if (G_UNLIKELY (shape->segment == NULL))
    return node_route_walk (t, node, from, to, r);
  k = shape->segment[(gsize) local_index (t, span, from) * shape->n_local
                     + local_index (t, span, to)];
  if (k < SEG_NONE)
    {
      const Segment *s = &g_array_index (shape->segments, Segment, k);
      const guint32 *step = &g_array_index (shape->steps, guint32, s->start);
      guint32 base = 2 * t->node_link0[node], *out = r->buf + r->n;

      if (G_LIKELY (r->n + s->len <= ROUTE_BUF))
        {
          for (guint32 i = 0; i < s->len; i++)
            out[i] = base + step[i];
          r->n += s->len;
          r->latency += s->latency;
          r->hop += s->len;
          return TRUE;
        }
    }
  return node_route_walk (t, node, from, to, r);
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

gboolean
sim__topology_route_fixed (SimTopology *topology, guint32 src_gpu, guint32 nic_gpu,
                           guint32 dst_gpu, guint64 flow_hash, const guint32 *load,
                           GArray *resources, SimTime *latency, gboolean *fixed)
{
  SimTopology *t = topology;
  guint32 ns_node, nd_node, ns, nd;
  Route r;
  gboolean ok, unique_nics = TRUE;

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
  /* (Not an initialiser: that would clear the buffer too.)  @resources is
   * sized once, when the route is complete. */
  r.res = resources;
  r.base = resources->len;
  r.held = 0;
  r.n = 0;
  r.latency = 0;
  r.mode = t->routing;
  r.hash = flow_hash;
  r.hop = 0;
  r.dest = 0;
  r.div = 1;
  r.load = load;
  r.forked = FALSE;

  ns_node = g_array_index (t->node_of, guint32, src_gpu);
  nd_node = g_array_index (t->node_of, guint32, dst_gpu);
  if (ns_node == nd_node)
    ok = node_route (t, ns_node, src_gpu, dst_gpu, &r);
  else
    {
      if (nic_gpu >= t->n_gpus || g_array_index (t->node_of, guint32, nic_gpu) != ns_node)
        nic_gpu = src_gpu;
      ns = nearest_nic (t, nic_gpu, flow_hash);
      nd = nearest_nic (t, dst_gpu, flow_hash);
      unique_nics = t->gpu_nic_start[nic_gpu + 1] - t->gpu_nic_start[nic_gpu] == 1
                    && t->gpu_nic_start[dst_gpu + 1] - t->gpu_nic_start[dst_gpu] == 1;
      if (ns == NO_NODE || nd == NO_NODE)
        {
          g_array_set_size (resources, r.base);
          return FALSE;
        }
      r.dest = nd;
      ok = node_route (t, ns_node, src_gpu, t->nic_vertex[ns], &r);
      if (ok)
        {
          gboolean done = FALSE;
          if (t->tree && t->routing == SIM_ROUTING_SPRAY)
            done = spray_tree (t, ns, nd, &r);
          else if (t->tree && t->routing == SIM_ROUTING_DMODK)
            done = dmodk_tree (t, ns, nd, &r);
          else if (t->tree)
            done = tree_walk (t, ns, nd, &r);
          ok = done || net_walk (t, ns, nd, &r);
        }
      if (ok)
        ok = node_route (t, nd_node, t->nic_vertex[nd], dst_gpu, &r);
    }
  if (!ok)
    {
      g_array_set_size (resources, r.base);
      return FALSE;
    }
  route_flush (&r);
  if (latency != NULL)
    *latency = r.latency;
  /* Inside a node, only a walk that chose (by the hash) depends on more
   * than the two GPUs.  Across nodes, D-mod-K and spraying choose by the
   * destination's number, ECMP by the hash and adaptive routing by the
   * load; and a GPU with several nearest NICs picks one by the hash. */
  if (fixed != NULL)
    *fixed = !r.forked
             && (ns_node == nd_node
                 || (unique_nics && (t->routing == SIM_ROUTING_DMODK
                                     || t->routing == SIM_ROUTING_SPRAY)));
  return TRUE;
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
static void
build_routing (SimTopology *t, const SimFabricConfig *config, GArray *nics)
{
  guint nv = n_vertices (t);
  g_autofree guint32 *nic_of = g_new (guint32, MAX (1u, nv));
  g_autofree guint16 *dist = NULL;
  guint max_span = 1;
  GArray *near = g_array_new (FALSE, FALSE, sizeof (guint32));

  t->tree = config->kind == SIM_FABRIC_SINGLE_SWITCH || config->kind == SIM_FABRIC_FAT_TREE
            || config->kind == SIM_FABRIC_FAT_TREE_3
            || config->kind == SIM_FABRIC_RAIL_OPTIMIZED;
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
      bfs (t, g, span, FALSE, dist, span->n_gpus + span->n_extra);
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

      bfs (t, g, NULL, FALSE, dist, nv);
      for (guint32 h = 0; h < t->n_gpus; h++)
        if (g_array_index (t->node_of, guint32, h) != node && dist[h] != UNREACHED)
          best = MAX (best, dist[h]);
      bfs (t, g, span, FALSE, dist, span->n_gpus + span->n_extra);
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
      bfs (t, g, span, FALSE, dist, size);
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

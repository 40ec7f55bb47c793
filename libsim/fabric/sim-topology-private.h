/* sim-topology-private.h: the topology's structure, shared by its builder
 * (sim-topology.c), its routing (sim-topology-routing.c) and its metrics
 * (sim-topology-metrics.c); routing and metrics without their shortcuts,
 * for the tests; the routes the collectives keep.  Not installed. */
#pragma once

#include "sim-topology.h"

#include "core/sim-keys.h"
G_BEGIN_DECLS

/* Distances are 16-bit; this one means "not reachable". */
#define UNREACHED G_MAXUINT16
/* Memory for cached distance tables, in bytes. */
#define CACHE_BUDGET (64u << 20)
#define NO_NODE G_MAXUINT32
/* Set in a node's kind of uplinks (sim__topology_node_uplinks()) when
 * every uplink of its switch has the same capacity, latency and far end's
 * latency: then renumbering them all by one shift changes no route's
 * capacities or latencies. */
#define UPLINKS_ALIKE 0x80000000u
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
  guint32 *node_leaf;    /* per node: the switch above its lowest-numbered NIC that has
                          * one, or NO_NODE (sim_topology_get_node_group()) */

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
  struct UpHop *up_hop;     /* D-mod-K: per up_link entry, its hop (see dmodk_tree());
                             * NULL until the first route ... */
  SimTime *up_latency;      /* ... and per vertex, the latency of a hop up from it */
  gboolean up_alike;        /* every switch's uplinks have one latency */
  struct WalkKept *walk_kept; /* D-mod-K and spraying: walks between NICs (see
                             * net_walk_kept()), or NULL until the first */
  guint    walk_shift;
  GArray  *route_spill;     /* sim__topology_route_into(): a route longer than its buffer */
  double  *bundle_capacity; /* per group: the summed usable capacity of its uplinks */

  /* Route caches: destination vertex -> DistTable *. */
  GHashTable *global_cache;
  GHashTable *intra_cache;
  GQueue      cache_order;  /* keys as GUINT_TO_POINTER (vertex << 1 | intra) */
  gsize       cache_bytes;
  guint32    *bfs_queue;    /* n_vertices */
  /* Hop by hop on a tree (tree_walk()): per destination leaf, a row of
   * each vertex from anc_base on: its level above the leaf plus one, 0 if
   * it is not an ancestor.  Rows kept per leaf within a budget, else one
   * made again in anc_scratch. */
  guint32     anc_base;     /* the lowest vertex that can be an ancestor */
  guint32     anc_width;    /* vertices from anc_base on */
  guint8    **anc_rows;     /* per vertex from anc_base on: its row if a leaf, or NULL */
  guint8     *anc_scratch;
  guint32     anc_scratch_leaf; /* the leaf whose row anc_scratch holds, or NO_NODE */
  guint32    *anc_queue;    /* scratch: the ancestors found */
  guint32    *up_to;        /* per up_link entry: the switch it leads to */
  guint32    *adj_to;       /* per adj_link entry: the vertex it leads to */
  gsize       anc_bytes;
  guint32    *cand;         /* scratch: candidate links of one hop */
  guint       cand_size;
  /* Routes inside nodes, kept per shape of node (see node_route()). */
  GPtrArray  *shapes;       /* Shape *; NULL until the first route */
  guint32    *node_shape;   /* per node: its shape, or NO_NODE (its routes walk) */
  guint32    *node_link0;   /* per node: its first link */
  /* Nodes under one switch (sim__topology_node_switch()), for every node
   * when first asked. */
  guint32    *node_switch;  /* per node: the switch of all its NICs, or NO_NODE */
  guint32    *node_kind;    /* per node: its kind */
  guint32    *node_nic0;    /* per node: its first NIC's number */
  guint32    *node_up;      /* per node: its switch's uplinks' kind (UPLINKS_ALIKE set
                             * when they are all alike), or NO_NODE ... */
  guint32    *node_spines;  /* ... and the switches they lead to, as a number */
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

static inline SimVertexKind
vertex_kind (const SimTopology *t, guint32 v)
{
  return (SimVertexKind) g_array_index (t->kinds, guint8, v);
}

static inline guint
n_vertices (const SimTopology *t)
{
  return t->kinds->len;
}

/* The network tier of a vertex: 0 inside nodes, 1 leaf or router, 2 spine,
 * 3 core. */
static inline guint
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

/* The position of @v among its node's vertices (GPUs first). */
static inline guint32
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
 * fills @dist (indexed by local index with @span, else by vertex).  Uses
 * the topology's queue: not reentrant (sim-topology-routing.c). */
void sim__topology_bfs (SimTopology *t, guint32 dst, const NodeSpan *span, gboolean network,
                        guint16 *dist, gsize n);

/* Routing's part of sim_topology_new() (sim-topology-routing.c): the NIC
 * tables, uplinks and spray bundles, once the links are built. */
void sim__topology_build_routing (SimTopology *t, const SimFabricConfig *config, GArray *nics);

/* For the tests and the collectives (fabric/sim-collective.c). */
/* The diameter of sim_topology_get_metrics() (internal, for the tests):
 * from the structure (%G_MAXUINT when the graph does not decompose), or,
 * with @search, by a breadth-first search from every GPU. */
guint sim__topology_diameter (SimTopology *topology, gboolean search);

/* sim_topology_route_via(), the route appended to what @resources holds
 * (left as it was on failure), and whether it depends only on the three
 * GPUs (internal, for the collectives): *@fixed (nullable) is %TRUE when
 * no hop chose by @flow_hash or @load, so that every flow between them
 * takes this route. */
gboolean sim__topology_route_fixed (SimTopology *topology, guint32 src_gpu, guint32 nic_gpu,
                                    guint32 dst_gpu, guint64 flow_hash, const guint32 *load,
                                    GArray *resources, SimTime *latency, gboolean *fixed);

/* sim__topology_route_fixed() into @out, which has room for @room
 * resources (internal, for the collectives): the route's length into
 * *@len, and the route into @out when it fits (when *@len > @room, @out
 * holds nothing of use: the same call with room enough gives the same
 * route).
 * FALSE if the GPUs are not connected.  No array to resize: a plan's
 * routes are written where they belong. */
gboolean sim__topology_route_into (SimTopology *topology, guint32 src_gpu, guint32 nic_gpu,
                                   guint32 dst_gpu, guint64 flow_hash, const guint32 *load,
                                   guint32 *out, guint room, guint *len, SimTime *latency,
                                   gboolean *fixed);

/* Asks for what routing the flow from @src_gpu to @dst_gpu will read
 * (internal, for the collectives, which route many flows one after
 * another): in four stages (0 to 3), each of which reads what the one
 * before asked for, so that a caller runs each stage for a flow some
 * flows after the stage before it, and the misses of several routes
 * overlap.  A hint: it changes no route. */
void sim__topology_prefetch_route (const SimTopology *topology, guint32 src_gpu,
                                   guint32 dst_gpu, guint stage);

/* Whether every route between two GPUs of @node depends on the two GPUs
 * alone (internal, for the collectives): no hop of it chose by the flow's
 * hash.  Worked out once per shape of node (sim-topology-routing.c). */
gboolean sim__topology_node_routes_fixed (SimTopology *topology, guint32 node);

/* Whether no route leaving or reaching @node crosses a link that a route
 * between two of its GPUs crosses (internal, for the collectives): on a
 * tree, whose routes between nodes keep to switches, when the ways
 * between each GPU and the NICs it may leave or arrive by share no link
 * with the routes between its GPUs, all fixed.  Then flows between two
 * GPUs of @node and flows that leave or reach it have no resource in
 * common.  Worked out once per shape of node (sim-topology-routing.c). */
gboolean sim__topology_node_apart (SimTopology *topology, guint32 node);

/* sim__topology_prefetch_route()'s @stage (0 to 2) for @n flows at once,
 * the first's source GPU at @pairs, its destination next, and each next
 * flow's @stride words on: what two flows in a row would read alike is
 * asked for once, and stage 2 skips the flows inside one node.  Returns,
 * from stage 1, a bit for each of the first 64 flows that leaves its
 * node (all set from the other stages): only those have a stage 3.  At
 * stage 2, @nics (nullable) takes two words for each of the first 64
 * flows: the NICs that sim__topology_prefetch_up() takes for its stage 3,
 * or NO_NODE where it has none. */
guint64 sim__topology_prefetch_routes (const SimTopology *topology, const guint32 *pairs,
                                       gsize stride, guint n, guint stage, guint32 *nics);
/* Stage 3 of sim__topology_prefetch_route() from the NICs that
 * sim__topology_prefetch_routes() gave (nothing for NO_NODE). */
void sim__topology_prefetch_up (const SimTopology *topology, guint32 ns, guint32 nd);

/* The switch that every NIC of @node is cabled to (internal, for the
 * collectives), or NO_NODE: when its NICs go to several switches (rails)
 * or to none, when a vertex of it has any other link out of it, or when
 * routes inside it are not kept by shape.  In *@kind (nullable), a
 * number shared by the nodes alike from their GPUs to that switch: the
 * same shape of node (the same links and latencies inside, see
 * node_route()), the same capacities of those links, NICs at the same
 * places cabled by links of the same capacity and latency, and switches
 * of the same latency.  A route between GPUs of two nodes under one
 * switch crosses the links of those two nodes only, whatever the routing
 * (adaptive routing aside): batches of flows on such nodes that differ
 * by a renaming of nodes of a kind meet the same capacities in the same
 * pattern.  O(1) after the first call, which costs O(links). */
guint32 sim__topology_node_switch (SimTopology *topology, guint32 node, guint32 *kind);
/* For a node under one switch (sim__topology_node_switch()) on a tree
 * routed by D-mod-K (internal, for the collectives): the number of its
 * first NIC (NICs are numbered node by node), and its switch's uplinks: in
 * *@n_up their count, in *@up_kind a number shared by the switches whose
 * uplinks are alike (their count, and uplink by uplink the link's capacity
 * and latency and the latency of the switch it leads to), in *@spines a
 * number shared by the switches whose uplinks lead, in order, to the same
 * switches.  FALSE, and nothing set, for a node under no such switch, or
 * a switch without uplinks.  Between two leaves of one such list, D-mod-K
 * sends a flow to NIC d up the source leaf's uplink d mod n_up and down
 * the destination leaf's uplink of the same number: its resources are the
 * two NICs' links and those two uplinks, which the leaves, d mod n_up and
 * the kinds decide. */
gboolean sim__topology_node_uplinks (SimTopology *topology, guint32 node, guint32 *nic0,
                                     guint32 *n_up, guint32 *up_kind, guint32 *spines);
/* Routes without the shortcuts (internal, for the tests): with @search,
 * every part of a route inside a node walks its node's distance table,
 * D-mod-K works out the destination's way up afresh and comes down it hop
 * by hop, and walks over the network follow the distances to the
 * destination NIC over the whole graph: what the kept segments and ways
 * of sim_topology_route_via() and its walks between switches must
 * reproduce. */
void sim__topology_set_search (SimTopology *topology, gboolean search);

/* Whether walks over the network of @topology take a dragonfly's hop
 * distances from its structure rather than from a search (internal, for
 * the tests; looks at the graph if no route has yet). */
gboolean sim__topology_dragonfly_structure (SimTopology *topology);

/* [fabric]'s keys (sim-fabric-config.c). */
extern const SimKeyTable sim__fabric_key_table;

/* The [fabric] key to blame when sim_topology_new() failed on @config:
 * "link" or "switch" when that model is not in @catalogue, else NULL (the
 * section as a whole). */
const char *sim__fabric_bad_model_key (const SimFabricConfig *config,
                                       const SimCatalogue *catalogue);

G_END_DECLS

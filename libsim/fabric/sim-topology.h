/* sim-topology.h: the network of a cluster, as a graph.
 *
 * A topology is an igraph graph whose vertices are GPUs, NVSwitches, PCIe
 * switches, NICs and network switches, and whose edges are physical links
 * with a bandwidth (bytes/s in each direction), a per-hop latency and a
 * protocol efficiency, all from catalogue link and switch models.  Links are
 * full duplex: link l gives two directed resources, 2l (from its vertex a
 * to b) and 2l + 1 (from b to a), each with the link's capacity.  The
 * bandwidth-sharing solver and the collectives work on these resources.
 *
 * Builders: inside a node, an NVSwitch (all GPUs to one logical switch), an
 * NVLink mesh, PCIe switches shared by GPUs and NICs, or an Infinity Fabric
 * full mesh, as the node model says; between nodes, a single switch, a
 * two- or three-tier fat-tree with a chosen oversubscription, a
 * rail-optimized fabric (NIC i of every node on leaf i), or a dragonfly.
 *
 * Routing is shortest paths with deterministic ECMP: among equal-cost
 * paths, the flow's hash picks one, the same one every time.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib.h>
#include "core/sim-units.h"
#include "cluster/sim-catalogue.h"
#include "cluster/sim-cluster.h"

G_BEGIN_DECLS

/**
 * SimFabricKind:
 * @SIM_FABRIC_NONE: nodes are not connected (single-node studies)
 * @SIM_FABRIC_SINGLE_SWITCH: every NIC on one switch
 * @SIM_FABRIC_FAT_TREE: a two-tier leaf-spine fat-tree
 * @SIM_FABRIC_FAT_TREE_3: a three-tier fat-tree (leaf, spine, core; pods)
 * @SIM_FABRIC_RAIL_OPTIMIZED: NIC i of every node on rail leaf i, rails
 *   joined by spines
 * @SIM_FABRIC_DRAGONFLY: groups of routers, all-to-all inside a group,
 *   global links between groups
 */
typedef enum {
  SIM_FABRIC_NONE,
  SIM_FABRIC_SINGLE_SWITCH,
  SIM_FABRIC_FAT_TREE,
  SIM_FABRIC_FAT_TREE_3,
  SIM_FABRIC_RAIL_OPTIMIZED,
  SIM_FABRIC_DRAGONFLY,
} SimFabricKind;

/**
 * SimFabricConfig:
 *
 * How nodes are connected, as a scenario's [fabric] section says.  Zero
 * or %NULL fields take defaults (the node model's NIC link, the switch
 * model's radix, non-blocking).
 */
typedef struct {
  SimFabricKind kind;
  char   *switch_model;      /* catalogue [switch] model */
  char   *link_model;        /* catalogue [link] model for NIC-to-switch links */
  double  oversubscription;  /* leaf downlink:uplink bandwidth, >= 1 (1 = non-blocking) */
  guint   radix;             /* ports per switch; 0: the switch model's */
  guint   dragonfly_groups;
  guint   dragonfly_routers_per_group;
  guint   dragonfly_global_links; /* per router */
} SimFabricConfig;

/**
 * SimVertexKind:
 */
typedef enum {
  SIM_VERTEX_GPU,
  SIM_VERTEX_NVSWITCH,
  SIM_VERTEX_PCIE_SWITCH,
  SIM_VERTEX_NIC,
  SIM_VERTEX_LEAF,
  SIM_VERTEX_SPINE,
  SIM_VERTEX_CORE,
  SIM_VERTEX_ROUTER,
} SimVertexKind;

/**
 * SimLinkTier:
 * @SIM_TIER_INTRA: inside a node (NVLink, PCIe, Infinity Fabric)
 * @SIM_TIER_ACCESS: NIC to its first switch
 * @SIM_TIER_AGGREGATION: leaf to spine (or within a dragonfly group)
 * @SIM_TIER_CORE: spine to core (or dragonfly global links)
 */
typedef enum {
  SIM_TIER_INTRA,
  SIM_TIER_ACCESS,
  SIM_TIER_AGGREGATION,
  SIM_TIER_CORE,
} SimLinkTier;

/**
 * SimLink:
 * @a: one end (vertex)
 * @b: the other end
 * @bandwidth: bytes/s in each direction (line rate)
 * @efficiency: the share of @bandwidth a transfer achieves (protocol overhead)
 * @latency: per-hop latency
 * @tier: where in the hierarchy it is
 * @model: (nullable): its catalogue link model's name
 */
typedef struct {
  guint32     a, b;
  double      bandwidth;
  double      efficiency;
  SimTime     latency;
  SimLinkTier tier;
  const char *model;
} SimLink;

typedef struct _SimTopology SimTopology;

/**
 * sim_topology_new:
 * @cluster: the cluster (its pools and node models)
 * @catalogue: where link and switch models are looked up
 * @config: how nodes are connected
 * @error: return location for a #GError
 *
 * Errors: SIM_ERROR_NOT_FOUND for an unknown link or switch model;
 * SIM_ERROR_INVALID if the fabric cannot be built (radix too small for
 * the node count, oversubscription < 1...), saying why.
 *
 * Returns: (transfer full) (nullable): the topology.
 */
SimTopology *sim_topology_new (const SimCluster *cluster, const SimCatalogue *catalogue,
                               const SimFabricConfig *config, GError **error);
void sim_topology_free (SimTopology *topology);

guint          sim_topology_get_n_vertices (const SimTopology *topology);
SimVertexKind  sim_topology_get_vertex_kind (const SimTopology *topology, guint32 vertex);
guint          sim_topology_get_n_links (const SimTopology *topology);
const SimLink *sim_topology_get_link (const SimTopology *topology, guint32 link);

/** sim_topology_get_gpu_vertex: Returns: the vertex of GPU @gpu (a cluster index). */
guint32 sim_topology_get_gpu_vertex (const SimTopology *topology, guint32 gpu);

/**
 * sim_topology_resource_capacity:
 * Returns: the usable capacity of directed resource @resource (bytes/s):
 *   the link's bandwidth times its efficiency.
 */
double sim_topology_resource_capacity (const SimTopology *topology, guint32 resource);

/**
 * sim_topology_route:
 * @topology: a topology
 * @src_gpu: the sending GPU (cluster index)
 * @dst_gpu: the receiving GPU
 * @flow_hash: picks among equal-cost paths (deterministic ECMP)
 * @resources: (out caller-allocates) (element-type guint32): cleared, then
 *   filled with the directed resources of the path, in order
 * @latency: (out) (optional): the sum of the path's per-hop latencies
 *
 * Paths between two vertices are computed once and cached.
 * Time complexity: O(path length) once cached.
 *
 * Returns: %FALSE if the GPUs are not connected.
 */
gboolean sim_topology_route (SimTopology *topology, guint32 src_gpu, guint32 dst_gpu,
                             guint64 flow_hash, GArray *resources, SimTime *latency);

/**
 * SimTopologyMetrics:
 *
 * Figures of a topology, for `gpusim topo` and cost.
 */
typedef struct {
  guint   gpus, nodes;
  guint   switches[4];          /* by tier of switch: [1] leaf, [2] spine, [3] core */
  guint   nvswitches;
  guint   cables;               /* links outside nodes */
  guint   transceivers;         /* optical modules (two per optical cable) */
  double  bisection_bandwidth;  /* bytes/s, between the two halves of the GPUs */
  guint   diameter;             /* hops between the farthest two GPUs */
  double  oversubscription[4];  /* per tier: down/up bandwidth at that tier's switches */
  guint   components;           /* connected components (1 if all connected) */
} SimTopologyMetrics;

/**
 * sim_topology_get_metrics:
 * @topology: a topology
 * @metrics: (out caller-allocates): filled
 * @error: return location for a #GError
 *
 * Bisection bandwidth comes from igraph's max-flow between the first and
 * second halves of the GPUs (by index).  Time complexity: one max-flow on
 * the graph.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_topology_get_metrics (SimTopology *topology, SimTopologyMetrics *metrics,
                                   GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimTopology, sim_topology_free)

G_END_DECLS

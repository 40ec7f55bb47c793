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
 * two- or three-tier fat-tree with a chosen oversubscription, a two- or
 * three-tier rail-optimized fabric (NIC i of every node on leaf i), or a
 * dragonfly.
 *
 * The network is cabled as it would be built: whole nodes.  In a fat-tree
 * (two or three tiers) every NIC of a node is on one leaf; on a
 * rail-optimized fabric NIC k of every node of a rail group is on that
 * group's rail leaf k; on a dragonfly every NIC of a node is on one
 * router.  A leaf takes n whole nodes of k NICs and u uplinks, n x k + u
 * at most the radix, with the bandwidth n x k x b : u x p the
 * oversubscription asked (b a NIC's bandwidth, the fastest node's, p a
 * switch port's, b at most p) when some n gives it exactly (the largest
 * such n), else the nearest ratio (on a log scale) that whole nodes allow,
 * which sim_topology_get_warnings() then names.  A leaf that is not full
 * (the last) gets the uplinks nearest its NICs' bandwidth over the ratio.
 * With 8 NICs a node as fast as the 64 ports: 4 nodes and 32 uplinks at
 * 1:1, 5 and 20 at 2:1, 6 and 16 at 3:1, 6 and 12 at 4:1; 8 NICs of 400
 * Gb/s on 144 ports of 800 Gb/s (Quantum-X800): 12 nodes and 48 uplinks
 * at 1:1, 14 and 28 at 2:1.
 *
 * Routing is minimal (fewest hops) and follows the fabric's routing mode
 * (#SimRouting): InfiniBand's subnet manager routes statically by
 * destination (D-mod-K), Ethernet hashes each flow over the equal-cost
 * paths (ECMP); adaptive routing and packet spraying are options.  A route
 * between GPUs of two nodes leaves its node through a NIC (by default the
 * one nearest the sending GPU; a collective may name the GPU whose NIC a
 * channel uses, as NCCL does) and enters through the NIC nearest the
 * receiving GPU.
 *
 * Simplifications, stated once:
 * - the NVSwitch chips of a node (4 in a DGX H100, 6 in a DGX A100) act
 *   as one logical non-blocking crossbar; each GPU has one link to it
 *   carrying the GPU's whole scale-up bandwidth in each direction;
 * - an NVLink or Infinity Fabric mesh is a full mesh that splits the GPU's
 *   scale-up bandwidth evenly among its peers;
 * - a PCIe node has one PCIe switch per NIC when its GPUs divide evenly
 *   among them in groups of at most four (else one per four GPUs), every
 *   NIC on a PCIe switch, and the switches joined by a CPU root vertex;
 * - in an NVSwitch, NVLink-mesh or Infinity Fabric node, each NIC hangs off
 *   one GPU by a PCIe link (GPU i to NIC i when there is one NIC per GPU;
 *   GPUs share a NIC when there are fewer);
 * - "shortest" counts hops, not latency or bandwidth.
 *
 * Latency: a route's latency is the sum of its links' latencies plus the
 * latency of every vertex it passes through (a switch's port-to-port
 * latency; a NIC's half of its link model's per-message transport latency,
 * so that the two NICs of a path add up to it once).  A network link's
 * latency is its model's per-hop latency (ports, serialisation, forward
 * error correction, as measured over short cables) plus the propagation
 * along the cable length the [fabric] section gives for its tier
 * (#SIM_CABLE_NS_PER_METRE); the [fabric] keys transport_latency,
 * switch_latency and link_latency replace the models' figures.  The
 * collectives (sim-collective.h) pay a route's latency per network step.
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
 * @SIM_FABRIC_RAIL_OPTIMIZED_3: rail leaves as %SIM_FABRIC_RAIL_OPTIMIZED,
 *   in pods of whole rail groups joined by spines, the pods by cores (three
 *   tiers, for clusters two tiers of the switch cannot hold)
 */
typedef enum {
  SIM_FABRIC_NONE,
  SIM_FABRIC_SINGLE_SWITCH,
  SIM_FABRIC_FAT_TREE,
  SIM_FABRIC_FAT_TREE_3,
  SIM_FABRIC_RAIL_OPTIMIZED,
  SIM_FABRIC_DRAGONFLY,
  SIM_FABRIC_RAIL_OPTIMIZED_3,
} SimFabricKind;

/**
 * SimFabricConfig:
 * @kind: how nodes are connected
 * @switch_model: (nullable): the switch model; %NULL needs @radix, and the
 *   switches then have the NIC link's port speed and no latency
 * @link_model: (nullable): the link model of every NIC; %NULL: each node
 *   model's nic_link.  Switch-to-switch links use it too, at the switch's
 *   port bandwidth
 * @oversubscription: at the leaf (or rail leaf, or dragonfly router) tier:
 *   the NIC ports' bandwidth over the up ports' (on a dragonfly, the
 *   global ports'; there 0 keeps @dragonfly_global_links); upper tiers are
 *   non-blocking.  Built exactly
 *   where whole nodes allow it, else the nearest ratio, with a warning
 * @radix: ports per switch; 0: the switch model's
 * @dragonfly_groups: 0: as many as the NICs need
 * @dragonfly_routers_per_group: 0: radix / 2
 * @dragonfly_global_links: global links per router; 0: radix / 4
 * @transport_latency: with @set_transport_latency, replaces the NIC link
 *   model's per-message transport latency (the sockets or verbs overhead)
 * @switch_latency: with @set_switch_latency, replaces the switch model's
 *   port-to-port latency
 * @link_latency: with @set_link_latency, replaces the per-hop latency of
 *   the network's links (NIC to switch, switch to switch)
 * @set_transport_latency: @transport_latency was given
 * @set_switch_latency: @switch_latency was given
 * @set_link_latency: @link_latency was given
 * @access_cable_length: metres of cable from a NIC to its switch; each
 *   adds #SIM_CABLE_NS_PER_METRE to the hop
 * @cable_length: metres of cable between two switches (every upper tier)
 * @routing: how routes pick among equal-cost paths; %SIM_ROUTING_DEFAULT:
 *   by the link kind
 * @sharing: how running jobs' collectives share the network (default
 *   demand-aware)
 *
 * How nodes are connected, as a scenario's [fabric] section says.  Zero
 * or %NULL fields take defaults (the node model's NIC link, the switch
 * model's radix, non-blocking).
 */
/**
 * SimRouting:
 * @SIM_ROUTING_DEFAULT: by the fabric's link kind: %SIM_ROUTING_DMODK on
 *   InfiniBand, %SIM_ROUTING_ECMP on Ethernet and RoCE
 * @SIM_ROUTING_DMODK: static destination-based routing, as InfiniBand's
 *   subnet manager computes it for a fat-tree (OpenSM's ftree and updn
 *   engines; Zahavi et al., "D-Mod-K routing providing non-blocking traffic
 *   for shift permutations on real life fat trees", 2010).  Every switch
 *   forwards a packet by its destination alone.  Going up, a switch with u
 *   uplinks (in port order) takes uplink (D / P) mod u, where D is the
 *   destination NIC's number (its LID order: NICs numbered node by node)
 *   and P the product of the uplink counts at the tiers below; going down,
 *   the path is the mirror image of the destination's own way up, so the
 *   destinations below one switch come down on different links.  NCCL's
 *   rings (the inter-node edge of channel c from NIC c of a node to NIC c
 *   of the next) form shift permutations, which this routing carries
 *   without two flows on one link on a non-blocking tree.  On a dragonfly,
 *   or where the tree is not symmetric enough for the mirror to meet, the
 *   choice among the next hops that lead closer is the same digit of D
 * @SIM_ROUTING_ECMP: per-flow equal-cost multi-path hashing, as Ethernet
 *   and RoCE switches do with the 5-tuple (RFC 2992): at every hop a hash of
 *   the flow picks one of the links that lead closer.  Different flows can
 *   collide on one link while another stays idle, and the model keeps those
 *   collisions (the hash is deterministic: same flow, same path)
 * @SIM_ROUTING_ADAPTIVE: adaptive routing (InfiniBand adaptive routing in
 *   NVIDIA Quantum switches, Ethernet flowlet or congestion-aware
 *   switching, e.g. CONGA, SIGCOMM 2014), modelled at the time a flow is
 *   registered: at every hop it takes the least-loaded of the links that
 *   lead closer (fewest flows already registered on it; ties go to the
 *   D-mod-K choice), and keeps that path
 * @SIM_ROUTING_SPRAY: packet spraying (Dixit et al., "On the impact of
 *   packet spraying in data center networks", INFOCOM 2013; AI Ethernet
 *   fabrics spray RoCE packets the same way): the packets of a flow spread
 *   evenly over every equal-cost path.  Modelled as an even split: the uplinks of a switch, and the links
 *   down into a switch, act as one pooled resource of their summed
 *   capacity for such flows, which is exact on a symmetric tree where every
 *   flow sprays.  Tree fabrics only (single-switch, fat-tree, fat-tree-3,
 *   rail-optimized, rail-optimized-3)
 *
 * How a route picks among equal-cost paths.
 */
typedef enum {
  SIM_ROUTING_DEFAULT,
  SIM_ROUTING_DMODK,
  SIM_ROUTING_ECMP,
  SIM_ROUTING_ADAPTIVE,
  SIM_ROUTING_SPRAY,
} SimRouting;

/**
 * SimFabricSharing:
 * @SIM_FABRIC_SHARING_DEMAND: each communicating job's flows ask for the
 *   bandwidth its iterations need on average (bytes per iteration over the
 *   iteration time) and never take more; max-min fairness with those
 *   demands, iterated to a fixed point (sim-job-comm.h).  A job is slowed
 *   only when the network cannot carry its average demand
 * @SIM_FABRIC_SHARING_ALWAYS_ON: each job's flows hold their max-min share
 *   for the whole run, as if every job communicated all the time: an upper
 *   bound on contention (a job that communicates a tenth of each iteration
 *   still crowds its neighbours all of it)
 * @SIM_FABRIC_SHARING_PHASES: each job alternates compute phases (flows
 *   off) and communication phases (flows on, uncapped, at their max-min
 *   share), simulated event by event over the running jobs at each arrival
 *   or departure; each job runs at the mean iteration time found
 *   (sim-job-comm.h).  Sees bursts that coincide; meant for small clusters
 *
 * How running jobs' collectives share the network.
 */
typedef enum {
  SIM_FABRIC_SHARING_DEMAND,
  SIM_FABRIC_SHARING_ALWAYS_ON,
  SIM_FABRIC_SHARING_PHASES,
} SimFabricSharing;

typedef struct {
  SimFabricKind kind;
  char   *switch_model;      /* catalogue [switch] model */
  char   *link_model;        /* catalogue [link] model for NIC-to-switch links */
  double  oversubscription;  /* leaf downlink:uplink bandwidth, >= 1 (1 = non-blocking) */
  guint   radix;             /* ports per switch; 0: the switch model's */
  guint   dragonfly_groups;
  guint   dragonfly_routers_per_group;
  guint   dragonfly_global_links; /* per router */
  SimTime transport_latency;
  SimTime switch_latency;
  SimTime link_latency;
  gboolean set_transport_latency;
  gboolean set_switch_latency;
  gboolean set_link_latency;
  double  access_cable_length;  /* metres */
  double  cable_length;         /* metres */
  SimRouting routing;
  SimFabricSharing sharing;
} SimFabricConfig;

/**
 * SIM_CABLE_NS_PER_METRE:
 *
 * Propagation delay of a cable: light in silica fibre travels at c / n
 * with a group index n of about 1.47 (ITU-T G.652 single-mode fibre), 4.9
 * ns per metre; twinax copper (velocity factor about 0.7) is 4.8 ns/m.
 * Both are rounded to 5 ns per metre.
 */
#define SIM_CABLE_NS_PER_METRE 5.0

/**
 * SIM_FABRIC_MAX_LATENCY:
 *
 * The largest latency a [fabric] key accepts (1 s): a network hop or a
 * transport slower than that is a typing error (a "m" meant as metres
 * reads as minutes), not a network.
 */
#define SIM_FABRIC_MAX_LATENCY SIM_SECOND

/**
 * SIM_FABRIC_MAX_CABLE_LENGTH:
 *
 * The longest cable a [fabric] key accepts, 10 km (the reach of long-range
 * single-mode optics); longer is not a cluster.
 */
#define SIM_FABRIC_MAX_CABLE_LENGTH 10000.0

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
  SIM_VERTEX_CPU,
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
 * sim_topology_new: (skip)
 * @cluster: the cluster (its pools and node models)
 * @catalogue: where link and switch models are looked up
 * @config: how nodes are connected
 * @error: return location for a #GError
 *
 * Errors: SIM_ERROR_NOT_FOUND for an unknown link or switch model;
 * SIM_ERROR_INVALID if the fabric cannot be built (radix too small for
 * the node count, oversubscription < 1, spraying on a dragonfly...),
 * saying why.
 *
 * Time complexity: O(vertices + links + GPUs x node size), the last for
 * the NICs nearest each GPU.
 *
 * Returns: (transfer full) (nullable): the topology.
 */
SimTopology *sim_topology_new (const SimCluster *cluster, const SimCatalogue *catalogue,
                               const SimFabricConfig *config, GError **error);
/**
 * sim_topology_new_hosts: (skip)
 * @n_hosts: the hosts, at least 2
 * @host_bandwidth: bytes/s of each host's one NIC, in each direction; the
 *   switches' ports run at the same speed
 * @kind: %SIM_FABRIC_SINGLE_SWITCH, %SIM_FABRIC_FAT_TREE (two tiers) or
 *   %SIM_FABRIC_FAT_TREE_3 (three tiers)
 * @radix: ports per switch; 0 for a single switch means @n_hosts
 * @oversubscription: down ports per up port at the leaves (0 or 1:
 *   non-blocking), as in #SimFabricConfig
 * @link_latency: the latency of every network link (host to leaf, switch
 *   to switch), ns; switches and NICs add none
 * @error: return location for a #GError
 *
 * A network of hosts with no catalogue: host h is the topology's "GPU" h
 * (a node of its own, with one NIC joined to it by a link of unbounded
 * capacity, so that only network links constrain a route).  The switches
 * are built by the same code as sim_topology_new() builds a cluster's
 * fabric, so a fat-tree here has the leaves, spines, cores, port splits
 * and D-mod-K routing (%SIM_ROUTING_DMODK) that a scenario's [fabric]
 * section would give.  A route between two hosts on one leaf has latency
 * 2 x @link_latency; through a spine 4 x, through a core 6 x.
 *
 * Errors: SIM_ERROR_INVALID for fewer than 2 hosts, a bandwidth that is
 * not positive and finite, another topology kind, an oversubscription
 * below 1, a latency outside 0 to 1 s, or a radix too small for the hosts,
 * saying which.
 *
 * Returns: (transfer full) (nullable): the topology.
 */
SimTopology *sim_topology_new_hosts (guint n_hosts, double host_bandwidth, SimFabricKind kind,
                                     guint radix, double oversubscription, SimTime link_latency,
                                     GError **error);
/**
 * sim_topology_free: (skip)
 */
void sim_topology_free (SimTopology *topology);

/**
 * sim_topology_get_warnings:
 * @topology: a topology
 *
 * What the builder built otherwise than the configuration asked, one
 * sentence each: an oversubscription that whole nodes do not allow
 * exactly, with the ratios of the leaves built instead.  Empty when
 * everything is as asked.
 *
 * Returns: (transfer none) (array zero-terminated=1): the warnings.
 */
const char * const *sim_topology_get_warnings (const SimTopology *topology);
guint          sim_topology_get_n_vertices (const SimTopology *topology);
/**
 * sim_topology_get_n_gpus:
 *
 * Returns: the number of GPUs (the cluster's).
 */
guint          sim_topology_get_n_gpus (const SimTopology *topology);
/**
 * sim_topology_get_vertex_latency:
 * Returns: what a path pays to pass through @vertex: a switch's
 *   port-to-port latency, half a NIC's transport latency, else 0.
 */
SimTime        sim_topology_get_vertex_latency (const SimTopology *topology, guint32 vertex);
/**
 * sim_topology_get_vertex_node:
 * Returns: the cluster node that @vertex is inside, or -1 for a network
 *   switch.
 */
gint           sim_topology_get_vertex_node (const SimTopology *topology, guint32 vertex);
SimVertexKind  sim_topology_get_vertex_kind (const SimTopology *topology, guint32 vertex);
guint          sim_topology_get_n_links (const SimTopology *topology);
const SimLink *sim_topology_get_link (const SimTopology *topology, guint32 link);

/**
 * sim_topology_get_node_group:
 * @topology: a topology
 * @node: a node index
 * @tier: %SIM_TIER_INTRA (the node itself), %SIM_TIER_ACCESS (its leaf:
 *   the switch of its first NIC), %SIM_TIER_AGGREGATION (its pod: the
 *   first switch above that leaf) or %SIM_TIER_CORE (the whole fabric)
 *
 * Names the group of nodes that share @node's switch at @tier, so that
 * nodes with the same answer are that close.  Time complexity: O(vertices).
 *
 * Returns: a group id (a vertex or node number; 0 for the whole fabric),
 *   or G_MAXUINT32 if @node has no NIC on a switch.
 */
guint32 sim_topology_get_node_group (const SimTopology *topology, guint node, SimLinkTier tier);

/**
 * sim_topology_get_gpu_vertex:
 *
 * Returns: the vertex of GPU @gpu (a cluster index).
 */
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
 * Two GPUs of the same node are routed over the node's own links only.
 * Between nodes, the route leaves by the NIC nearest @src_gpu (ties broken
 * by @flow_hash), crosses the network as the topology's routing mode says
 * (#SimRouting; %SIM_ROUTING_ADAPTIVE sees no load here), and enters by the
 * NIC nearest @dst_gpu.  Every mode takes a minimal path; the same
 * arguments always give the same path.
 *
 * On a tree fabric (single-switch, fat-tree, fat-tree-3, rail-optimized,
 * rail-optimized-3) no mode needs a table (see sim_topology_route_via()).  On a dragonfly,
 * or for a tree too asymmetric for the up/down rules, the hop distances
 * to the destination NIC's switch are computed once (a breadth-first
 * search over the links between switches, O(switches + their links)) and
 * cached per destination switch, two bytes per switch, within a fixed
 * memory budget (the oldest destination is dropped first; a dropped one
 * is recomputed to the same result).  Time complexity: O(sum of the
 * switches' links to switches along the path) once cached.  Routes
 * inside a node walk small per-node tables the same way; where no hop of
 * such a part depends on @flow_hash, it is kept once for all the nodes of
 * a model and copied, O(its hops).
 *
 * Returns: %FALSE if the GPUs are not connected.
 */
gboolean sim_topology_route (SimTopology *topology, guint32 src_gpu, guint32 dst_gpu,
                             guint64 flow_hash, GArray *resources, SimTime *latency);

/**
 * sim_topology_route_via: (skip)
 * @topology: a topology
 * @src_gpu: the sending GPU (cluster index)
 * @nic_gpu: a GPU of @src_gpu's node whose nearest NIC the route leaves
 *   by (NCCL's channel NIC; reached over the node's own links, through
 *   that GPU on NVSwitch nodes, as NCCL's PXN does), or @src_gpu
 * @dst_gpu: the receiving GPU
 * @flow_hash: tells flows apart: ECMP hashes it; it breaks ties between
 *   NICs equally near a GPU
 * @load: (nullable): flows registered per directed resource, which
 *   %SIM_ROUTING_ADAPTIVE avoids; %NULL counts none
 * @resources: (out caller-allocates): cleared, then filled with the
 *   directed resources of the path, in order (with
 *   %SIM_ROUTING_SPRAY, the pooled resources of the tiers it sprays over)
 * @latency: (out) (optional): the sum of the path's per-hop latencies
 *
 * A route as sim_topology_route() describes, leaving by @nic_gpu's NIC.
 * Between GPUs of one node, @nic_gpu is ignored.  On a tree fabric the
 * network part needs no search: D-mod-K is computed in closed form from
 * the NICs' numbers, O(tiers); ECMP and adaptive routing climb to the
 * destination's ancestors and come down, O(the destination leaf's
 * ancestors + radix x tiers) once the leaf's ancestors are listed (the
 * first time, O(their uplinks)).  On a dragonfly they walk a cached table
 * of distances to the destination's switch.
 *
 * Returns: %FALSE if the GPUs are not connected.
 */
gboolean sim_topology_route_via (SimTopology *topology, guint32 src_gpu, guint32 nic_gpu,
                                 guint32 dst_gpu, guint64 flow_hash, const guint32 *load,
                                 GArray *resources, SimTime *latency);

/**
 * sim_topology_get_routing:
 *
 * Returns: the routing mode in force (never %SIM_ROUTING_DEFAULT: the
 *   default resolved by the link kind).
 */
SimRouting sim_topology_get_routing (const SimTopology *topology);

/**
 * sim_topology_get_n_resources:
 *
 * Returns: the directed resources routes can name: two per link, then,
 *   with %SIM_ROUTING_SPRAY, two pooled resources (up and down) per
 *   switch or pod that has uplinks.
 */
guint sim_topology_get_n_resources (const SimTopology *topology);

/**
 * sim_topology_get_node_cut_capacity:
 * @topology: a topology
 * @node: a node index
 * @out: (out): the summed capacity (bytes/s) of the directed resources
 *   that leave @node: its links to vertices outside it, outwards
 * @in: (out): the same links, inwards
 *
 * The capacity of the cut between @node's vertices and the rest of the
 * fabric.  Every route from a GPU of @node to a GPU of another node
 * crosses one of those resources outwards, and every route into @node
 * one inwards, whatever the routing mode (spraying's pooled resources lie
 * beyond the NIC's own link, which its routes still name).  So the
 * largest share over capacity among those resources, of flows out of
 * @node, is at least their summed shares over @out (the mediant of the
 * ratios): a lower bound of their time without routing them.  Time
 * complexity: O(links of @node's vertices).
 */
void sim_topology_get_node_cut_capacity (const SimTopology *topology, guint node, double *out,
                                         double *in);

/**
 * sim_routing_to_string:
 * Returns: (transfer none): the name of @routing in a scenario ("dmodk").
 */
const char *sim_routing_to_string (SimRouting routing);

/**
 * sim_fabric_sharing_to_string:
 * Returns: "demand", "always-on" or "phases".
 */
const char *sim_fabric_sharing_to_string (SimFabricSharing sharing);

/**
 * sim_fabric_sharing_from_string:
 * @text: "demand", "always-on" ("always_on" too) or "phases"
 * @sharing: (out): the mode
 * @error: return location for a #GError
 *
 * Errors: SIM_ERROR_INVALID, naming the known modes, with a suggestion.
 *
 * Returns: (skip): %TRUE on success.
 */
gboolean sim_fabric_sharing_from_string (const char *text, SimFabricSharing *sharing,
                                         GError **error);

/**
 * sim_routing_from_string:
 * @text: "default", "dmodk" (or "d-mod-k"), "ecmp", "adaptive" or "spray"
 * @routing: (out): the mode
 * @error: return location for a #GError
 *
 * Errors: SIM_ERROR_INVALID for an unknown name, with a suggestion.
 *
 * Returns: (skip): %TRUE on success.
 */
gboolean sim_routing_from_string (const char *text, SimRouting *routing, GError **error);

/**
 * SimTopologyMetrics:
 *
 * Figures of a topology, for `gpusim topo` and cost.
 */
typedef struct {
  guint   gpus, nodes;
  guint   switches[4];          /* [0] all network switches; by tier: [1] leaf (or rail
                                 * leaf, or dragonfly router), [2] spine, [3] core */
  guint   nvswitches;           /* NVSwitch chips in the nodes (the models' count) */
  guint   cables;               /* links outside nodes */
  guint   transceivers;         /* optical modules (two per optical cable) */
  double  bisection_bandwidth;  /* bytes/s, between the two halves of the GPUs */
  guint   diameter;             /* hops between the farthest two GPUs */
  double  oversubscription[4];  /* per switch tier [1..3]: down/up line bandwidth at that
                                 * tier's switches; 0 at the top tier ([0] unused) */
  guint   components;           /* connected components (1 if all connected) */
} SimTopologyMetrics;

/**
 * sim_topology_get_metrics:
 * @topology: a topology
 * @metrics: (out caller-allocates): filled
 * @error: return location for a #GError
 *
 * Bisection bandwidth comes from igraph's max-flow between the first and
 * second halves of the GPUs (by index), in one direction, over usable
 * capacities (bandwidth times efficiency).  Diameter counts the hops of
 * the longest route between two GPUs.  Cables are links outside nodes; a
 * cable is optical (two transceivers) between switches when its link
 * model says so (except inside a dragonfly group, which is wired
 * electrically, as in Kim et al., ISCA 2008) and from a NIC to its switch
 * when the model's access_optical says so.  Time complexity: one
 * max-flow, plus a breadth-first search from every switch a node is cabled
 * to (from every GPU if nodes are cabled to each other).
 *
 * Returns: %TRUE on success.
 */
gboolean sim_topology_get_metrics (SimTopology *topology, SimTopologyMetrics *metrics,
                                   GError **error);

/**
 * sim_topology_get_counts:
 * @topology: a topology
 * @metrics: (out caller-allocates): filled, except the bisection bandwidth,
 *   diameter and components (left 0)
 *
 * The cheap part of sim_topology_get_metrics(): counts of GPUs, nodes,
 * switches, cables and transceivers, and oversubscription per tier.
 * Time complexity: O(vertices + links).
 */
void sim_topology_get_counts (const SimTopology *topology, SimTopologyMetrics *metrics);

/**
 * sim_fabric_kind_to_string:
 * Returns: (transfer none): the name of @kind in a scenario ("fat-tree").
 */
const char *sim_fabric_kind_to_string (SimFabricKind kind);

/**
 * sim_fabric_kind_from_string:
 * @text: "none", "single-switch", "fat-tree", "fat-tree-3", "rail-optimized",
 *   "rail-optimized-3" or "dragonfly" (any case)
 * @kind: (out): the kind
 * @error: return location for a #GError
 *
 * Errors: SIM_ERROR_INVALID for an unknown name, with a suggestion.
 *
 * Returns: (skip): %TRUE on success.
 */
gboolean sim_fabric_kind_from_string (const char *text, SimFabricKind *kind, GError **error);

/**
 * sim_fabric_config_keys:
 *
 * Returns: (transfer none) (array zero-terminated=1): the keys of a
 *   scenario's [fabric] section: topology, switch, link, oversubscription,
 *   radix, groups, routers_per_group, global_links, transport_latency,
 *   switch_latency, link_latency, access_cable_length, cable_length, routing.
 */
const char * const *sim_fabric_config_keys (void);

/**
 * sim_fabric_config_set:
 * @config: a configuration (zero-initialised to start with)
 * @key: one of sim_fabric_config_keys()
 * @value: its value as written in the scenario
 * @error: return location for a #GError
 *
 * Sets one key.  topology is one of none, single-switch, fat-tree,
 * fat-tree-3, rail-optimized, rail-optimized-3, dragonfly; switch and link
 * are model names (checked when the topology is built); oversubscription is "2:1" or "2"
 * (at least 1); radix, groups, routers_per_group and global_links are
 * positive integers (0 for the default); transport_latency, switch_latency
 * and link_latency are durations with a unit ("20us", "150ns") of at most
 * 1 s; access_cable_length and cable_length are lengths with a unit ("3m",
 * "0.1km") of at most 10 km; routing is one of default, dmodk, ecmp,
 * adaptive, spray (#SimRouting).
 *
 * Errors: SIM_ERROR_UNKNOWN_KEY for an unknown key (with a suggestion);
 * SIM_ERROR_PARSE or SIM_ERROR_INVALID for a bad value, saying what was
 * expected.  The message does not name the file or line: the caller adds
 * them.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_fabric_config_set (SimFabricConfig *config, const char *key, const char *value,
                                GError **error);

/**
 * sim_fabric_config_clear:
 *
 * Frees the strings of @config and zeroes it.
 */
void sim_fabric_config_clear (SimFabricConfig *config);

/**
 * sim_fabric_config_copy:
 * @dest: (out caller-allocates): overwritten (not cleared first)
 * @src: a configuration
 *
 * Deep-copies @src into @dest.
 */
void sim_fabric_config_copy (SimFabricConfig *dest, const SimFabricConfig *src);

/* ------------------------------------------------------------------------ */
/* The fabric as it would be ordered and cabled (sim-cabling.c) */

/**
 * sim_topology_get_link_optical:
 *
 * Returns: whether link @link is an optical cable (two transceivers), as
 *   sim_topology_get_metrics() counts them.
 */
gboolean sim_topology_get_link_optical (const SimTopology *topology, guint32 link);

/**
 * sim_vertex_kind_to_string:
 * Returns: (transfer none): "gpu", "nvswitch", "pcie-switch", "nic",
 *   "leaf", "spine", "core", "router" or "cpu".
 */
const char *sim_vertex_kind_to_string (SimVertexKind kind);

/**
 * sim_topology_dup_device_name:
 * @topology: a topology
 * @vertex: a vertex
 *
 * The name of a device in a cabling plan: a switch by its kind and number
 * among the switches of that kind, in build order ("leaf0", "spine3",
 * "core1", "router12"); a part of a node by the node's index and its
 * number among the node's parts of its kind ("node5/nic7", "node5/gpu0",
 * "node5/nvswitch0").  Time complexity: O(vertices).
 *
 * Returns: (transfer full): the name.
 */
char *sim_topology_dup_device_name (const SimTopology *topology, guint32 vertex);

/**
 * sim_topology_dup_device_names:
 * @topology: a topology
 *
 * sim_topology_dup_device_name() of every vertex at once.  Time
 * complexity: O(vertices).
 *
 * Returns: (transfer full) (array zero-terminated=1): the names, by vertex.
 */
char **sim_topology_dup_device_names (const SimTopology *topology);

/**
 * SimCable:
 * @link: the topology's link
 * @from: its lower end (a NIC, or the switch of the lower tier)
 * @to: its upper end
 * @from_port: the port at @from, numbered from 1 in the order the device's
 *   cables were laid (a leaf's NICs first, then its uplinks)
 * @to_port: the port at @to
 * @tier: %SIM_TIER_ACCESS, %SIM_TIER_AGGREGATION or %SIM_TIER_CORE
 * @bandwidth: line rate, bytes/s in each direction
 * @optical: an optical cable (else copper)
 * @transceivers: 2 for an optical cable, else 0
 * @length_m: metres, from [fabric] access_cable_length (access) or
 *   cable_length (the rest); 0 when not given
 * @model: (nullable): its link model's name
 *
 * One cable of the network.
 */
typedef struct {
  guint32     link;
  guint32     from, to;
  guint       from_port, to_port;
  SimLinkTier tier;
  double      bandwidth;
  gboolean    optical;
  guint       transceivers;
  double      length_m;
  const char *model;
} SimCable;

/**
 * sim_topology_get_cables: (skip)
 * @topology: a topology
 * @config: the configuration it was built from (for the cable lengths)
 *
 * The cables of the network, one per link outside nodes, in build order.
 * Their count is sim_topology_get_counts()' cables, and their transceivers
 * its transceivers.  Time complexity: O(vertices + links).
 *
 * Returns: (transfer full) (element-type SimCable): the cables.
 */
GArray *sim_topology_get_cables (const SimTopology *topology, const SimFabricConfig *config);

/**
 * sim_cable_length_class:
 * @metres: a cable's length; 0 or less: not given
 *
 * The class a cable of that length is bought in: "<=3m" (passive copper),
 * "<=5m" (active copper), "<=30m" (active optical), "<=100m", "<=500m",
 * "<=2km", "<=10km" (the IEEE 802.3 reaches of 400G optics: SR, DR, FR,
 * LR), ">10km", or "unspecified".
 *
 * Returns: (transfer none): the class's name.
 */
const char *sim_cable_length_class (double metres);

/**
 * sim_topology_format_cabling:
 * @topology: a topology
 * @config: the configuration it was built from
 *
 * The cabling plan as CSV: a header, then one row per cable of
 * sim_topology_get_cables(): cable (its number from 1), from_device,
 * from_port, to_device, to_port (devices named by
 * sim_topology_dup_device_name()), tier (access, aggregation, core),
 * speed_gbps, medium (copper or optical), length_m (empty when not
 * given), length_class (sim_cable_length_class()), transceivers,
 * link_model.  Time complexity: O(vertices + links).
 *
 * Returns: (transfer full): the text.
 */
char *sim_topology_format_cabling (const SimTopology *topology, const SimFabricConfig *config);

/**
 * sim_topology_write_cabling:
 * @topology: a topology
 * @config: the configuration it was built from
 * @path: the CSV file to write (replaced atomically)
 * @error: return location for a #GError
 *
 * Writes sim_topology_format_cabling() to @path.
 *
 * Errors: SIM_ERROR_IO naming @path if it cannot be written.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_topology_write_cabling (const SimTopology *topology, const SimFabricConfig *config,
                                     const char *path, GError **error);

/**
 * SimBomKind:
 * @SIM_BOM_SWITCH: network switches, by model and tier
 * @SIM_BOM_CABLE: cables, by medium, speed and length class
 * @SIM_BOM_TRANSCEIVER: optical transceivers (two per optical cable), by speed
 * @SIM_BOM_NIC: the nodes' NICs on the network, by link model and speed
 *
 * The kinds of line of a bill of materials, in the order they are listed.
 */
typedef enum {
  SIM_BOM_SWITCH,
  SIM_BOM_CABLE,
  SIM_BOM_TRANSCEIVER,
  SIM_BOM_NIC,
} SimBomKind;

/**
 * SimBomLine:
 * @kind: what it is
 * @description: the item ("Quantum-2-QM9700, leaf"; "optical 400 Gb/s, <=30m")
 * @count: how many
 * @unit_price_usd: the price of one, 0 when none is known (NICs always:
 *   the catalogue prices nodes whole)
 */
typedef struct {
  SimBomKind kind;
  char      *description;
  guint      count;
  double     unit_price_usd;
} SimBomLine;

/**
 * SimBomPrices:
 * @switch_usd: one switch (the [fabric] switch model's price_usd)
 * @cable_usd: one cable ([cost] cable_price, else the link model's price)
 * @transceiver_usd: one transceiver ([cost] transceiver_price)
 *
 * Unit prices, as the cost model takes them (0: unknown).
 */
typedef struct {
  double switch_usd;
  double cable_usd;
  double transceiver_usd;
} SimBomPrices;

/**
 * sim_topology_get_bom: (skip)
 * @topology: a topology
 * @config: the configuration it was built from (the switch model's name,
 *   the cable lengths)
 * @prices: (nullable): unit prices; %NULL: none known
 *
 * The bill of materials of the network: switches by tier, cables by
 * medium, speed and length class, transceivers by speed, NICs by link
 * model and speed; each kind in the order first met.  The switch, cable
 * and transceiver counts add up to sim_topology_get_counts()'.  Time
 * complexity: O(vertices + links x distinct lines).
 *
 * Returns: (transfer full) (element-type SimBomLine): the lines (the array
 *   frees their descriptions).
 */
GArray *sim_topology_get_bom (const SimTopology *topology, const SimFabricConfig *config,
                              const SimBomPrices *prices);

/**
 * sim_bom_kind_to_string:
 * Returns: (transfer none): "switch", "cable", "transceiver" or "nic".
 */
const char *sim_bom_kind_to_string (SimBomKind kind);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimTopology, sim_topology_free)
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SimFabricConfig, sim_fabric_config_clear)

G_END_DECLS

/* check-fabric.c: tests of the cluster network (libsim/fabric/sim-topology.c
 * and sim-fabric-config.c), on small clusters of catalogue nodes.
 *
 * What is checked, and against what: switch, cable and transceiver counts,
 * diameters, oversubscription and bisection bandwidths worked out by hand
 * in the comments of each test from the catalogue's published figures
 * (NDR: 400 Gb/s = 50 GB/s at efficiency 0.95, so 47.5 GB/s usable per NIC;
 * NVLink4 450 GB/s at 0.817; PCIe Gen5 63 GB/s at 0.9, 56.7 GB/s usable,
 * never the bottleneck behind a 47.5 GB/s NIC); routes (intra-node routes
 * stay inside the node, cross-leaf routes go up and down, ECMP spreads
 * different hashes over spines and repeats the same hash exactly, D-mod-K
 * picks the uplink by the destination alone, a route leaves by the NIC it
 * is given, latency is the sum of the hops); the [fabric] latency keys
 * (transport, switch and link latency, cable lengths at 5 ns/m) each moving
 * a route's latency by what its hops count, worked out by hand; the
 * [fabric] key parser; errors, bad latency and length values among them;
 * the diameter from the structure against a search from every GPU, on a
 * few hundred small configurations; topologies built and measured (igraph's
 * bisection) in four threads at once equal to one built alone.
 *
 * What is not asserted: the vertex numbering beyond GPU i = vertex i, the
 * order of links, which spine a given hash picks, or that a fabric is
 * optimal for its cost.
 */
#include "config.h"

#include <check.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "core/sim-error.h"
#include "cluster/sim-catalogue.h"
#include "cluster/sim-cluster.h"
#include "fabric/sim-topology.h"
#include "report/sim-diagram.h"
#include "fabric/sim-topology-private.h"

#include <graphviz/cgraph.h>

#ifndef SIM_TOP_SRCDIR
#error "SIM_TOP_SRCDIR must be defined by the build"
#endif

#define MODELDIR SIM_TOP_SRCDIR "/models"
#define GB 1e9
/* Usable NDR bandwidth per NIC: 50 GB/s x 0.95. */
#define NDR_USABLE (47.5 * GB)

static SimCatalogue *catalogue;

static void
setup (void)
{
  g_autoptr(GError) error = NULL;

  catalogue = sim_catalogue_new ();
  ck_assert_msg (sim_catalogue_add_directory (catalogue, MODELDIR, &error), "%s",
                 error ? error->message : "?");
  ck_assert_msg (sim_catalogue_resolve (catalogue, &error), "%s", error ? error->message : "?");
}

static void
teardown (void)
{
  g_clear_pointer (&catalogue, sim_catalogue_free);
}

/* A cluster of @n nodes of @model. */
static SimCluster *
make_cluster (const char *model, guint n)
{
  g_autoptr(GError) error = NULL;
  SimCluster *c = sim_cluster_new ();
  const SimNodeModel *m = sim_catalogue_lookup_node (catalogue, model);

  ck_assert_ptr_nonnull (m);
  ck_assert_msg (sim_cluster_add_pool (c, "p", m, NULL, 0, n, &error), "%s",
                 error ? error->message : "?");
  return c;
}

/* Builds "@n x @model" on the fabric described by @lines ("key=value"). */
static SimTopology *
make_topology (const char *model, guint n, const char * const *lines, GError **error)
{
  g_autoptr(SimCluster) c = make_cluster (model, n);
  g_auto(SimFabricConfig) config = { 0 };

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) kv = g_strsplit (lines[i], "=", 2);
      ck_assert_msg (sim_fabric_config_set (&config, kv[0], kv[1], error), "%s: %s", lines[i],
                     (error && *error) ? (*error)->message : "?");
    }
  return sim_topology_new (c, catalogue, &config, error);
}

static SimTopology *
must_build (const char *model, guint n, const char * const *lines, SimTopologyMetrics *m)
{
  g_autoptr(GError) error = NULL;
  SimTopology *t = make_topology (model, n, lines, &error);

  ck_assert_msg (t != NULL, "building: %s", error ? error->message : "?");
  ck_assert_msg (sim_topology_get_metrics (t, m, &error), "metrics: %s",
                 error ? error->message : "?");
  return t;
}

static void
assert_near (double got, double want, const char *what)
{
  ck_assert_msg (fabs (got - want) <= 1e-6 * fabs (want) + 1e-3, "%s: got %.6g, expected %.6g",
                 what, got, want);
}

/* The vertex at the far end of resource @r. */
static guint32
resource_head (SimTopology *t, guint32 r)
{
  const SimLink *l = sim_topology_get_link (t, r / 2);
  return r % 2 == 0 ? l->b : l->a;
}

static guint32
resource_tail (SimTopology *t, guint32 r)
{
  const SimLink *l = sim_topology_get_link (t, r / 2);
  return r % 2 == 0 ? l->a : l->b;
}

/* Checks that @path is a connected walk from GPU @src to GPU @dst and
 * that @latency is the sum of its links and inner vertices. */
static void
assert_walk (SimTopology *t, GArray *path, guint32 src, guint32 dst, SimTime latency)
{
  guint32 at = sim_topology_get_gpu_vertex (t, src);
  SimTime sum = 0;

  for (guint i = 0; i < path->len; i++)
    {
      guint32 r = g_array_index (path, guint32, i);
      ck_assert_uint_eq (resource_tail (t, r), at);
      sum += sim_topology_get_link (t, r / 2)->latency;
      at = resource_head (t, r);
      if (i + 1 < path->len)
        sum += sim_topology_get_vertex_latency (t, at);
    }
  ck_assert_uint_eq (at, sim_topology_get_gpu_vertex (t, dst));
  ck_assert_int_eq (latency, sum);
}

/* ------------------------------------------------------------------------ */

/* 4 x DGX-H100, every NIC on one Quantum-2 QM9700 (64 ports).
 * - 32 NICs on one switch: 1 switch, 32 cables, all copper (0 transceivers);
 *   16 NVSwitch chips (4 per node).
 * - Diameter: GPU-NIC-switch-NIC-GPU = 4 (inside a node, 2 via the NVSwitch).
 * - Bisection: GPUs 0-15 (nodes 0, 1) against 16-31: the cut is their 16
 *   NIC links, 16 x 47.5 = 760 GB/s.
 * - Latency, GPU 0 to GPU 1: two NVLink4 hops of 300 ns (the NVSwitch-gen3
 *   file gives no latency) = 600 ns.  GPU 0 to GPU 8: PCIe 300 + IB 100 +
 *   switch 150 + IB 100 + PCIe 300 = 950 ns of hops, plus the verbs
 *   transport's 700 ns per message (half on each NIC) = 1650 ns. */
START_TEST (test_single_switch)
{
  const char *cfg[] = { "topology=single-switch", "switch=Quantum-2-QM9700", NULL };
  SimTopologyMetrics m;
  g_autoptr(SimTopology) t = must_build ("DGX-H100", 4, cfg, &m);
  g_autoptr(GArray) path = g_array_new (FALSE, FALSE, sizeof (guint32));
  SimTime lat;

  ck_assert_uint_eq (m.gpus, 32);
  ck_assert_uint_eq (m.nodes, 4);
  ck_assert_uint_eq (m.switches[0], 1);
  ck_assert_uint_eq (m.switches[1], 1);
  ck_assert_uint_eq (m.nvswitches, 16);
  ck_assert_uint_eq (m.cables, 32);
  ck_assert_uint_eq (m.transceivers, 0);
  ck_assert_uint_eq (m.diameter, 4);
  ck_assert_uint_eq (m.components, 1);
  assert_near (m.bisection_bandwidth, 16 * NDR_USABLE, "bisection");

  /* Inside a node: only intra-node links, through the NVSwitch. */
  ck_assert (sim_topology_route (t, 0, 1, 7, path, &lat));
  ck_assert_uint_eq (path->len, 2);
  for (guint i = 0; i < path->len; i++)
    ck_assert_int_eq (sim_topology_get_link (t, g_array_index (path, guint32, i) / 2)->tier,
                      SIM_TIER_INTRA);
  ck_assert_int_eq (sim_topology_get_vertex_kind (t, resource_head (t, g_array_index (path,
                                                                                 guint32, 0))),
                    SIM_VERTEX_NVSWITCH);
  assert_walk (t, path, 0, 1, lat);
  ck_assert_int_eq (lat, 600);
  /* The usable capacity of a GPU's NVLink: 450 GB/s x 0.817. */
  assert_near (sim_topology_resource_capacity (t, g_array_index (path, guint32, 0)),
               450 * GB * 0.817, "NVLink4 capacity");

  /* Across nodes: GPU, NIC, switch, NIC, GPU. */
  ck_assert (sim_topology_route (t, 0, 8, 7, path, &lat));
  ck_assert_uint_eq (path->len, 4);
  assert_walk (t, path, 0, 8, lat);
  ck_assert_int_eq (lat, 950 + 700);

  /* The same GPU: an empty route. */
  ck_assert (sim_topology_route (t, 5, 5, 7, path, &lat));
  ck_assert_uint_eq (path->len, 0);
  ck_assert_int_eq (lat, 0);
}
END_TEST

/* 32 x DGX-H100 (256 NICs) on a 2:1 two-tier fat-tree of QM9700 cut to
 * radix 24.
 * - Leaf ports: up = floor(24 / 3) = 8, down = 16 (2 nodes per leaf):
 *   256 / 16 = 16 leaves, 128 uplinks.  Spines: at least 128 / 24 -> 6; with
 *   6 or 7, some spine takes 2 links from each of 16 leaves = 32 > 24 ports;
 *   8 spines take one link from every leaf (16 ports each).  24 switches.
 * - Cables: 256 access (copper) + 128 leaf-spine (optical): 384 cables,
 *   256 transceivers.  Oversubscription at the leaves: 16 x 50 / 8 x 50 = 2.
 * - Bisection: GPUs 0-127 are nodes 0-15, on leaves 0-7; their uplinks
 *   carry 8 x 8 x 47.5 = 3040 GB/s, half of their 128 NICs' 6080 GB/s.
 * - Diameter: GPU-NIC-leaf-spine-leaf-NIC-GPU = 6.
 * - Latency, GPU 0 to GPU 255: PCIe 300 + 4 IB hops of 100 + 3 switches of
 *   150 + PCIe 300 = 1450 ns. */
START_TEST (test_fat_tree_2to1)
{
  /* ECMP here (the InfiniBand default is D-mod-K, test_dmodk_spines). */
  const char *cfg[] = { "topology=fat-tree", "switch=Quantum-2-QM9700", "radix=24",
                        "oversubscription=2:1", "routing=ecmp", NULL };
  SimTopologyMetrics m;
  g_autoptr(SimTopology) t = must_build ("DGX-H100", 32, cfg, &m);
  g_autoptr(GArray) path = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) again = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GHashTable) spines = g_hash_table_new (g_direct_hash, g_direct_equal);
  const SimLinkTier tiers[] = { SIM_TIER_INTRA, SIM_TIER_ACCESS, SIM_TIER_AGGREGATION,
                                SIM_TIER_AGGREGATION, SIM_TIER_ACCESS, SIM_TIER_INTRA };
  SimTime lat, lat2;

  ck_assert_uint_eq (m.gpus, 256);
  ck_assert_uint_eq (m.switches[1], 16);
  ck_assert_uint_eq (m.switches[2], 8);
  ck_assert_uint_eq (m.switches[0], 24);
  ck_assert_uint_eq (m.cables, 384);
  ck_assert_uint_eq (m.transceivers, 256);
  assert_near (m.oversubscription[1], 2.0, "leaf oversubscription");
  ck_assert (m.oversubscription[2] == 0);
  ck_assert_uint_eq (m.diameter, 6);
  assert_near (m.bisection_bandwidth, 64 * NDR_USABLE, "bisection");

  /* Up and down: GPU 0 (leaf 0) to GPU 255 (leaf 15). */
  for (guint64 hash = 0; hash < 64; hash++)
    {
      guint32 up;

      ck_assert (sim_topology_route (t, 0, 255, hash, path, &lat));
      ck_assert_uint_eq (path->len, 6);
      for (guint i = 0; i < 6; i++)
        ck_assert_int_eq (sim_topology_get_link (t, g_array_index (path, guint32, i) / 2)->tier,
                          tiers[i]);
      up = resource_head (t, g_array_index (path, guint32, 2));
      ck_assert_int_eq (sim_topology_get_vertex_kind (t, up), SIM_VERTEX_SPINE);
      g_hash_table_add (spines, GUINT_TO_POINTER (up));
      assert_walk (t, path, 0, 255, lat);
      ck_assert_int_eq (lat, 1450 + 700);   /* hops, and the verbs transport */

      /* Determinism: the same hash, the same path. */
      ck_assert (sim_topology_route (t, 0, 255, hash, again, &lat2));
      ck_assert_uint_eq (again->len, path->len);
      ck_assert_mem_eq (again->data, path->data, path->len * sizeof (guint32));
      ck_assert_int_eq (lat, lat2);
    }
  /* 64 hashes over 8 equal spines: the chance that they all miss even one
   * spine is below 8 x (7/8)^64 < 0.002, and the mix is fixed, so this is
   * deterministic; at least 6 distinct spines is a loose bound. */
  ck_assert_uint_ge (g_hash_table_size (spines), 6);
}
END_TEST

/* The same 2:1 fabric under D-mod-K, the InfiniBand default.  Leaf 0
 * (NICs 0-15) has 8 uplinks, uplink j to spine j (8 spines, one link from
 * every leaf).  A route to NIC D leaves leaf 0 by uplink D mod 8 and comes
 * down the destination leaf's uplink D mod 8, whatever the flow's hash:
 * - GPU 0 to GPU 255 (NIC 255 on leaf 15): 255 mod 8 = 7, one spine for
 *   every hash;
 * - GPU 0 to GPUs 248-255 (NICs 248-255, D mod 8 = 0..7): eight different
 *   spines, so eight flows from one leaf to the same far leaf take eight
 *   different uplinks and eight different downlinks;
 * - GPUs 0-7 to GPU 255 arrive by the same spine (destination-based). */
START_TEST (test_dmodk_spines)
{
  const char *cfg[] = { "topology=fat-tree", "switch=Quantum-2-QM9700", "radix=24",
                        "oversubscription=2:1", NULL };
  SimTopologyMetrics m;
  g_autoptr(SimTopology) t = must_build ("DGX-H100", 32, cfg, &m);
  g_autoptr(GArray) path = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GHashTable) spines = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr(GHashTable) downs = g_hash_table_new (g_direct_hash, g_direct_equal);
  guint32 first = G_MAXUINT32;
  SimTime lat;

  ck_assert_int_eq (sim_topology_get_routing (t), SIM_ROUTING_DMODK);
  for (guint64 hash = 0; hash < 16; hash++)
    {
      ck_assert (sim_topology_route (t, 0, 255, hash, path, &lat));
      ck_assert_uint_eq (path->len, 6);
      assert_walk (t, path, 0, 255, lat);
      /* 1450 ns of hops and switches, plus the verbs' 700 ns per message
       * (half at each NIC). */
      ck_assert_int_eq (lat, 2150);
      if (first == G_MAXUINT32)
        first = resource_head (t, g_array_index (path, guint32, 2));
      ck_assert_uint_eq (resource_head (t, g_array_index (path, guint32, 2)), first);
    }
  for (guint32 dst = 248; dst < 256; dst++)
    {
      ck_assert (sim_topology_route (t, 0, dst, 3, path, &lat));
      ck_assert_uint_eq (path->len, 6);
      assert_walk (t, path, 0, dst, lat);
      g_hash_table_add (spines, GUINT_TO_POINTER (resource_head (t, g_array_index (path,
                                                                                 guint32, 2))));
      g_hash_table_add (downs, GUINT_TO_POINTER (g_array_index (path, guint32, 3)));
    }
  ck_assert_uint_eq (g_hash_table_size (spines), 8);
  ck_assert_uint_eq (g_hash_table_size (downs), 8);
  for (guint32 src = 0; src < 8; src++)
    {
      ck_assert (sim_topology_route (t, src, 255, src * 77, path, &lat));
      ck_assert_uint_eq (resource_head (t, g_array_index (path, guint32, 2)), first);
    }
}
END_TEST

/* The same 32 nodes, non-blocking, radix 32.
 * - up = floor(32 / 2) = 16, down = 16: 16 leaves, 256 uplinks; 8 spines
 *   (256 / 32) take 2 links from each leaf (32 ports each).  24 switches,
 *   256 + 256 = 512 cables, 512 transceivers.
 * - Bisection: the 128 NICs of one half, 128 x 47.5 = 6080 GB/s, twice the
 *   2:1 fabric's. */
START_TEST (test_fat_tree_nonblocking)
{
  const char *cfg[] = { "topology=fat-tree", "switch=Quantum-2-QM9700", "radix=32", NULL };
  SimTopologyMetrics m;
  g_autoptr(SimTopology) t = must_build ("DGX-H100", 32, cfg, &m);

  ck_assert_uint_eq (m.switches[1], 16);
  ck_assert_uint_eq (m.switches[2], 8);
  ck_assert_uint_eq (m.cables, 512);
  ck_assert_uint_eq (m.transceivers, 512);
  assert_near (m.oversubscription[1], 1.0, "leaf oversubscription");
  assert_near (m.bisection_bandwidth, 128 * NDR_USABLE, "bisection");
  ck_assert_uint_eq (m.diameter, 6);
}
END_TEST

/* 1,024 GPUs: 128 x DGX-H100 on a 2:1 fat-tree of QM9700 (64 ports).
 * - Whole nodes: n nodes of 8 NICs and u uplinks with 8n + u <= 64 and
 *   8n = 2u: u = 4n, 12n <= 64, n = 5: 40 NICs and 20 uplinks a leaf.
 *   128 nodes fill 25 leaves and put 3 on a 26th, whose 24 NICs take
 *   24 / 2 = 12 uplinks: 25 x 20 + 12 = 512 uplinks.  Spines: 8 or 9 would
 *   take 3 links from each full leaf (25 x 3 + 2 = 77 > 64 ports); 10 take
 *   2 (52 ports): 36 switches.
 * - Cables 1024 + 512 = 1536; transceivers 1024 (access cables copper).
 * - Bisection: GPUs 0-511 are nodes 0-63: leaves 0-11 (60 nodes) and 4 of
 *   leaf 12's 5 nodes.  The first half can send 12 x 20 uplinks' worth from
 *   leaves 0-11, 20 up from leaf 12 and 8 straight to leaf 12's
 *   second-half node: 268.  The second half takes less: node 64's 8 NICs
 *   and what comes down into leaves 13-25, 12 x 20 + 12 = 252: the cut is
 *   260 x 47.5 = 12,350 GB/s. */
START_TEST (test_fat_tree_1024)
{
  const char *cfg[] = { "topology=fat-tree", "switch=Quantum-2-QM9700",
                        "oversubscription=2", NULL };
  SimTopologyMetrics m;
  g_autoptr(SimTopology) t = must_build ("DGX-H100", 128, cfg, &m);

  ck_assert_uint_eq (m.gpus, 1024);
  ck_assert_uint_eq (m.switches[1], 26);
  ck_assert_uint_eq (m.switches[2], 10);
  ck_assert_uint_eq (m.cables, 1536);
  ck_assert_uint_eq (m.transceivers, 1024);
  assert_near (m.bisection_bandwidth, 260 * NDR_USABLE, "bisection");
  assert_near (m.oversubscription[1], 2.0, "leaf oversubscription");
  ck_assert_uint_eq (m.diameter, 6);
  /* Every leaf is 2:1, the last one too: nothing to warn about. */
  ck_assert_ptr_null (sim_topology_get_warnings (t)[0]);
}
END_TEST

/* 4 x DGX-H100, rail-optimized on QM9700 (non-blocking: 32 down, 32 up).
 * - NIC i of every node on rail leaf i: 8 leaves of 4 NICs, each with
 *   4 uplinks (as many as its NICs); 32 uplinks fit one spine.  9 switches,
 *   32 + 32 = 64 cables, 64 transceivers.
 * - Diameter 6: GPU 0 of node 0 to GPU 3 of node 1 leaves by GPU 0's NIC
 *   (rail 0) and enters by GPU 3's (rail 3), so it crosses the spine:
 *   GPU-NIC-rail 0-spine-rail 3-NIC-GPU, for every hash.  Leaving by GPU
 *   3's NIC instead (a NCCL channel's NIC, reached over NVLink) keeps it on
 *   rail 3: GPU 0-NVSwitch-GPU 3-NIC-rail 3-NIC-GPU, 6 hops, no spine.
 * - Bisection: each rail leaf has 2 NICs of each half: 8 x 2 x 47.5 =
 *   760 GB/s. */
START_TEST (test_rail_optimized)
{
  const char *cfg[] = { "topology=rail-optimized", "switch=Quantum-2-QM9700", NULL };
  SimTopologyMetrics m;
  g_autoptr(SimTopology) t = must_build ("DGX-H100", 4, cfg, &m);
  g_autoptr(GArray) path = g_array_new (FALSE, FALSE, sizeof (guint32));
  gboolean via_spine = FALSE, via_nvlink = FALSE;
  SimTime lat;

  ck_assert_uint_eq (m.switches[1], 8);
  ck_assert_uint_eq (m.switches[2], 1);
  ck_assert_uint_eq (m.cables, 64);
  ck_assert_uint_eq (m.transceivers, 64);
  ck_assert_uint_eq (m.diameter, 6);
  assert_near (m.bisection_bandwidth, 16 * NDR_USABLE, "bisection");

  /* Same rail: GPU 2 of node 0 to GPU 2 of node 3 through rail leaf 2. */
  ck_assert (sim_topology_route (t, 2, 26, 1, path, &lat));
  ck_assert_uint_eq (path->len, 4);
  ck_assert_int_eq (sim_topology_get_vertex_kind (t, resource_head (t, g_array_index (path,
                                                                                 guint32, 1))),
                    SIM_VERTEX_LEAF);

  for (guint64 hash = 0; hash < 64; hash++)
    {
      ck_assert (sim_topology_route (t, 0, 11, hash, path, &lat));
      ck_assert_uint_eq (path->len, 6);
      assert_walk (t, path, 0, 11, lat);
      via_spine = via_nvlink = FALSE;
      for (guint i = 0; i < path->len; i++)
        {
          SimVertexKind k = sim_topology_get_vertex_kind (t, resource_head (t,
                                                      g_array_index (path, guint32, i)));
          via_spine |= k == SIM_VERTEX_SPINE;
          via_nvlink |= k == SIM_VERTEX_NVSWITCH;
        }
      ck_assert (via_spine);
      ck_assert (!via_nvlink);

      ck_assert (sim_topology_route_via (t, 0, 3, 11, hash, NULL, path, &lat));
      ck_assert_uint_eq (path->len, 6);
      assert_walk (t, path, 0, 11, lat);
      via_spine = via_nvlink = FALSE;
      for (guint i = 0; i < path->len; i++)
        {
          SimVertexKind k = sim_topology_get_vertex_kind (t, resource_head (t,
                                                      g_array_index (path, guint32, i)));
          via_spine |= k == SIM_VERTEX_SPINE;
          via_nvlink |= k == SIM_VERTEX_NVSWITCH;
        }
      ck_assert (!via_spine);
      ck_assert (via_nvlink);
    }
}
END_TEST

/* 16 x DGX-H100 on a three-tier fat-tree of QM9700 cut to radix 16.
 * - Whole nodes, non-blocking: 8n + u <= 16 with u = 8n: one node (8 NICs)
 *   and 8 uplinks a leaf, 16 leaves.  Pods of 16 / 2 = 8 leaves: 2 pods,
 *   each with 8 spines (one link from each of its 8 leaves, 8 up to the
 *   cores).  Core group j joins spine j of both pods: 16 links fit one
 *   core of 16 ports, 8 cores.  16 + 16 + 8 = 40 switches; 128 access +
 *   128 leaf-spine + 128 spine-core = 384 cables; the 256 between switches
 *   optical: 512 transceivers.
 * - Diameter: GPU-NIC-leaf-spine-core-spine-leaf-NIC-GPU = 8.
 * - Bisection: pod 0 holds nodes 0-7, GPUs 0-63; its 64 core links carry as
 *   much as its 64 NICs: 64 x 47.5 = 3040 GB/s (non-blocking). */
START_TEST (test_fat_tree_3)
{
  const char *cfg[] = { "topology=fat-tree-3", "switch=Quantum-2-QM9700", "radix=16", NULL };
  SimTopologyMetrics m;
  g_autoptr(SimTopology) t = must_build ("DGX-H100", 16, cfg, &m);

  ck_assert_uint_eq (m.switches[1], 16);
  ck_assert_uint_eq (m.switches[2], 16);
  ck_assert_uint_eq (m.switches[3], 8);
  ck_assert_uint_eq (m.cables, 384);
  ck_assert_uint_eq (m.transceivers, 512);
  ck_assert_uint_eq (m.diameter, 8);
  assert_near (m.oversubscription[1], 1.0, "leaf");
  assert_near (m.oversubscription[2], 1.0, "spine");
  assert_near (m.bisection_bandwidth, 64 * NDR_USABLE, "bisection");
}
END_TEST

/* 6 x DGX-H100 (48 NICs) on a dragonfly of QM9700 cut to radix 16, with 4
 * routers per group and 2 global links each.
 * - A router has 16 - 3 - 2 = 11 ports for NICs: one whole node of 8.
 *   6 nodes need 2 groups; ceil(6 / 8) = 1 node a router: nodes 0-3 on
 *   routers 0-3 (group 0), nodes 4, 5 on routers 4, 5 (group 1), routers 6
 *   and 7 without nodes.
 * - Global links: 4 x 2 = 8 ports a group, all 8 to the one other group,
 *   taken in order: router i to router i + 4, twice (optical, 16
 *   transceivers); 2 x 6 links inside groups (electrical); 48 access
 *   links: 68 cables.
 * - Diameter 6: any two routers are at most 2 hops apart (r0-r4-r5 or
 *   r0-r1-r5), so GPU-NIC-router-router-router-NIC-GPU.
 * - Bisection: GPUs 0-23 are nodes 0-2 on routers 0-2; what leaves them is
 *   one local link each to router 3 and two global links each: 9 links,
 *   9 x 47.5 = 427.5 GB/s. */
START_TEST (test_dragonfly)
{
  const char *cfg[] = { "topology=dragonfly", "switch=Quantum-2-QM9700", "radix=16",
                        "routers_per_group=4", "global_links=2", NULL };
  SimTopologyMetrics m;
  g_autoptr(SimTopology) t = must_build ("DGX-H100", 6, cfg, &m);
  g_autoptr(GArray) path = g_array_new (FALSE, FALSE, sizeof (guint32));
  SimTime lat;

  ck_assert_uint_eq (m.switches[1], 8);
  ck_assert_uint_eq (m.switches[0], 8);
  ck_assert_uint_eq (m.cables, 68);
  ck_assert_uint_eq (m.transceivers, 16);
  ck_assert_uint_eq (m.diameter, 6);
  assert_near (m.bisection_bandwidth, 9 * NDR_USABLE, "bisection");
  ck_assert (sim_topology_route (t, 0, 45, 3, path, &lat));
  ck_assert_uint_eq (path->len, 6);
  assert_walk (t, path, 0, 45, lat);
}
END_TEST

/* The groups key on the dragonfly above: 3 groups asked where 2 would
 * do.  Still one node a router (ceil(6 / (3 x 4)) = 1): nodes 0-3 on
 * routers 0-3 (group 0), nodes 4, 5 on routers 4, 5 (group 1), group 2
 * empty.  3 x 4 = 12 routers.  Each group has 4 x 2 = 8 global ports for
 * 2 other groups: 4 links a pair, 3 pairs, 12 global (optical) links,
 * 24 transceivers; 3 x 6 links inside groups; 48 access links: 78
 * cables.  Group 0's ports go to group 1 from routers 0 and 1 (two each)
 * and group 1's come in at routers 4 and 5, so routers 0-3 and 4-5 are
 * still at most 2 hops apart (r2-r1-r5): diameter 6, as with 2 groups.
 * Each node's 8 NICs stay on one router, whatever the groups. */
START_TEST (test_dragonfly_groups)
{
  const char *cfg[] = { "topology=dragonfly", "switch=Quantum-2-QM9700", "radix=16",
                        "routers_per_group=4", "global_links=2", "groups=3", NULL };
  SimTopologyMetrics m;
  g_autoptr(SimTopology) t = must_build ("DGX-H100", 6, cfg, &m);
  gint64 router_of[6] = { -1, -1, -1, -1, -1, -1 };
  guint access = 0;

  ck_assert_uint_eq (m.switches[1], 12);
  ck_assert_uint_eq (m.switches[0], 12);
  ck_assert_uint_eq (m.cables, 78);
  ck_assert_uint_eq (m.transceivers, 24);
  ck_assert_uint_eq (m.diameter, 6);
  for (guint l = 0; l < sim_topology_get_n_links (t); l++)
    {
      const SimLink *k = sim_topology_get_link (t, l);
      gint node;

      if (k->tier != SIM_TIER_ACCESS)
        continue;
      access++;
      node = sim_topology_get_vertex_node (t, k->a);
      ck_assert_int_ge (node, 0);
      ck_assert_int_lt (node, 6);
      ck_assert_int_eq (sim_topology_get_vertex_kind (t, k->b), SIM_VERTEX_ROUTER);
      if (router_of[node] < 0)
        router_of[node] = k->b;
      ck_assert_msg (router_of[node] == k->b, "node %d's NICs on routers %" G_GINT64_FORMAT
                     " and %u", node, router_of[node], k->b);
    }
  ck_assert_uint_eq (access, 48);
  /* Six nodes, six routers. */
  for (guint i = 0; i < 6; i++)
    for (guint j = i + 1; j < 6; j++)
      ck_assert_int_ne (router_of[i], router_of[j]);
}
END_TEST

/* Builders inside nodes.
 * - MI300X-8: a full Infinity Fabric mesh, 28 links of 448 / 7 = 64 GB/s;
 *   GPU to GPU is one hop.  Bisection of one node: 4 x 4 = 16 links across,
 *   16 x 64 = 1024 GB/s (efficiency 1: the file gives none).
 * - PCIe-8GPU: 2 NICs, so 2 PCIe switches of 4 GPUs under a CPU root; GPU 0
 *   to GPU 1 is 2 hops, GPU 0 to GPU 7 is 4 (through the root); bisection
 *   is the root link of the first switch: 31.5 x 0.9 = 28.35 GB/s. */
START_TEST (test_intra_node)
{
  const char *none[] = { "topology=none", NULL };
  SimTopologyMetrics m;
  g_autoptr(SimTopology) mi = must_build ("MI300X-8", 1, none, &m);
  g_autoptr(SimTopology) pc = NULL;
  g_autoptr(GArray) path = g_array_new (FALSE, FALSE, sizeof (guint32));
  SimTime lat;

  ck_assert_uint_eq (sim_topology_get_n_links (mi), 28);
  assert_near (sim_topology_get_link (mi, 0)->bandwidth, 64 * GB, "IF link");
  ck_assert (sim_topology_route (mi, 0, 7, 0, path, &lat));
  ck_assert_uint_eq (path->len, 1);
  assert_near (m.bisection_bandwidth, 1024 * GB, "MI300X bisection");
  ck_assert_uint_eq (m.diameter, 1);
  ck_assert_uint_eq (m.cables, 0);

  pc = must_build ("PCIe-8GPU", 1, none, &m);
  ck_assert (sim_topology_route (pc, 0, 1, 0, path, &lat));
  ck_assert_uint_eq (path->len, 2);
  ck_assert_int_eq (sim_topology_get_vertex_kind (pc, resource_head (pc, g_array_index (path,
                                                                                   guint32, 0))),
                    SIM_VERTEX_PCIE_SWITCH);
  ck_assert (sim_topology_route (pc, 0, 7, 0, path, &lat));
  ck_assert_uint_eq (path->len, 4);
  ck_assert_int_eq (sim_topology_get_vertex_kind (pc, resource_head (pc, g_array_index (path,
                                                                                   guint32, 1))),
                    SIM_VERTEX_CPU);
  assert_near (m.bisection_bandwidth, 31.5 * GB * 0.9, "PCIe bisection");
  ck_assert_uint_eq (m.diameter, 4);
}
END_TEST

/* The diameter from the structure (each GPU's hops to the switches its
 * node is cabled to, and the distances between those switches) against a
 * breadth-first search from every GPU, on every fabric kind, node model
 * (NVSwitch, PCIe tree with few NICs, full mesh), radix (small radixes give
 * more tiers, rail spines and routes that cut through a node's NVLink),
 * oversubscription and node count.  Each configuration must decompose and
 * agree; at least 100 must build. */
START_TEST (test_diameter_structure)
{
  const char *topologies[] = { "single-switch", "fat-tree", "fat-tree-3", "rail-optimized",
                               "dragonfly" };
  const char *models[] = { "DGX-H100", "PCIe-8GPU", "MI300X-8", "DGX-A100" };
  const char *radixes[] = { "8", "16", "64" };
  const char *oversub[] = { "1", "2", "3" };
  const guint counts[] = { 1, 2, 3, 5, 9, 17 };
  guint built = 0;

  for (guint a = 0; a < G_N_ELEMENTS (topologies); a++)
    for (guint b = 0; b < G_N_ELEMENTS (models); b++)
      for (guint c = 0; c < G_N_ELEMENTS (radixes); c++)
        for (guint d = 0; d < G_N_ELEMENTS (oversub); d++)
          for (guint e = 0; e < G_N_ELEMENTS (counts); e++)
            {
              g_autofree char *topo = g_strconcat ("topology=", topologies[a], NULL);
              g_autofree char *radix = g_strconcat ("radix=", radixes[c], NULL);
              g_autofree char *over = g_strconcat ("oversubscription=", oversub[d], NULL);
              const char *cfg[] = { topo, "switch=Quantum-2-QM9700", radix, over, NULL };
              g_autoptr(GError) error = NULL;
              g_autoptr(SimTopology) t = make_topology (models[b], counts[e], cfg, &error);
              guint fast, slow;

              if (t == NULL)
                continue;  /* too many nodes for the radix, and the like */
              built++;
              fast = sim__topology_diameter (t, FALSE);
              slow = sim__topology_diameter (t, TRUE);
              ck_assert_msg (fast == slow, "%u x %s, %s %s %s: structure %u, search %u",
                             counts[e], models[b], topo, radix, over, fast, slow);
            }
  ck_assert_uint_ge (built, 100);
}
END_TEST

/* Two nodes with no fabric: two components, no route between them. */
START_TEST (test_no_fabric)
{
  const char *none[] = { NULL };
  SimTopologyMetrics m;
  g_autoptr(SimTopology) t = must_build ("DGX-H100", 2, none, &m);
  g_autoptr(GArray) path = g_array_new (FALSE, FALSE, sizeof (guint32));

  ck_assert_uint_eq (m.components, 2);
  ck_assert_uint_eq (m.switches[0], 0);
  ck_assert (m.bisection_bandwidth == 0);
  ck_assert (!sim_topology_route (t, 0, 8, 0, path, NULL));
  ck_assert (sim_topology_route (t, 0, 7, 0, path, NULL));
}
END_TEST

/* TCP transport latency: Eth-100G-TCP has 20 us per message, split over the
 * two NICs; PCIe-8GPU GPU 0 to GPU 8 on one SN2700: GPU-PCIe switch-NIC-
 * switch-NIC-PCIe switch-GPU, 6 hops: 4 PCIe Gen4 hops of 300 ns + 2
 * Ethernet hops of 0 (not given) + the SN2700's 300 ns + 2 NICs of 10 us
 * = 21.5 us. */
START_TEST (test_tcp_latency)
{
  const char *cfg[] = { "topology=single-switch", "switch=Spectrum-SN2700", NULL };
  SimTopologyMetrics m;
  g_autoptr(SimTopology) t = must_build ("PCIe-8GPU", 2, cfg, &m);
  g_autoptr(GArray) path = g_array_new (FALSE, FALSE, sizeof (guint32));
  SimTime lat;

  ck_assert (sim_topology_route (t, 0, 8, 0, path, &lat));
  ck_assert_uint_eq (path->len, 6);
  assert_walk (t, path, 0, 8, lat);
  ck_assert_int_eq (lat, 4 * 300 + 300 + 20000);
}
END_TEST


/* The [fabric] latency keys on the 2:1 fat-tree of test_fat_tree_2to1,
 * GPU 0 to GPU 255 (2 NICs, 2 access cables, 2 leaf-spine cables, 3
 * switches): 1450 ns of hops + 700 ns of verbs transport = 2150 ns.  Each
 * key moves it by what its hops count:
 * - transport_latency = 20us: 2150 - 700 + 20000;
 * - switch_latency = 1us: 3 switches of 1000 instead of 150;
 * - link_latency = 1us: 4 network hops of 1000 instead of 100;
 * - access_cable_length = 3m: 2 x 3 m x 5 ns/m = 30 ns;
 * - cable_length = 50m: 2 x 50 m x 5 ns/m = 500 ns.
 * Inside a node nothing changes (600 ns over the NVSwitch). */
START_TEST (test_latency_keys)
{
  static const struct {
    const char *line;
    SimTime     want;
  } cases[] = {
    { NULL, 2150 },
    { "transport_latency=20us", 2150 - 700 + 20000 },
    { "switch_latency=1us", 2150 + 3 * (1000 - 150) },
    { "link_latency=1us", 2150 + 4 * (1000 - 100) },
    { "access_cable_length=3m", 2150 + 2 * 15 },
    { "cable_length=50m", 2150 + 2 * 250 },
    { "cable_length=0.05km", 2150 + 2 * 250 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *cfg[] = { "topology=fat-tree", "switch=Quantum-2-QM9700", "radix=24",
                            "oversubscription=2:1", cases[i].line, NULL };
      g_autoptr(GError) error = NULL;
      g_autoptr(SimTopology) t = make_topology ("DGX-H100", 32, cfg, &error);
      g_autoptr(GArray) path = g_array_new (FALSE, FALSE, sizeof (guint32));
      SimTime lat;

      ck_assert_msg (t != NULL, "%s", error ? error->message : "?");
      ck_assert (sim_topology_route (t, 0, 255, 3, path, &lat));
      assert_walk (t, path, 0, 255, lat);
      ck_assert_msg (lat == cases[i].want, "%s: %" G_GINT64_FORMAT " ns, expected %"
                     G_GINT64_FORMAT, cases[i].line ? cases[i].line : "(defaults)", lat,
                     cases[i].want);
      ck_assert (sim_topology_route (t, 0, 1, 3, path, &lat));
      ck_assert_int_eq (lat, 600);
    }
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Errors */

typedef struct {
  const char *label;
  const char *model;
  guint       nodes;
  const char *lines[6];
  int         code;
  const char *must[3];
} BadFabric;

static const BadFabric bad_fabrics[] = {
  { "unknown switch", "DGX-H100", 2, { "topology=single-switch", "switch=Quantum-2-QM970" },
    SIM_ERROR_NOT_FOUND, { "\"Quantum-2-QM970\"", "did you mean \"Quantum-2-QM9700\"?" } },
  { "unknown link", "DGX-H100", 2, { "topology=fat-tree", "radix=64", "link=IB-NRD" },
    SIM_ERROR_NOT_FOUND, { "\"IB-NRD\"", "did you mean \"IB-NDR\"?" } },
  { "radix too small for one switch", "DGX-H100", 4,
    { "topology=single-switch", "switch=Quantum-2-QM9700", "radix=16" },
    SIM_ERROR_INVALID, { "radix too small", "32 NICs", "16 ports" } },
  { "too many leaves for two tiers", "DGX-H100", 20,
    { "topology=fat-tree", "switch=Quantum-2-QM9700", "radix=16" },
    SIM_ERROR_INVALID, { "radix too small", "fat-tree-3" } },
  { "a node's NICs do not fit one leaf", "DGX-H100", 4,
    { "topology=fat-tree", "switch=Quantum-2-QM9700", "radix=8" },
    SIM_ERROR_INVALID, { "radix too small", "8 NICs and one uplink need 9 ports",
                         "leaf has 8" } },
  { "a node's NICs do not fit one router", "DGX-H100", 6,
    { "topology=dragonfly", "switch=Quantum-2-QM9700", "radix=8" },
    SIM_ERROR_INVALID, { "radix too small", "8 NICs need 8 ports on one router",
                         "leave 3 of 8" } },
  { "dragonfly radix too small", "DGX-H100", 2,
    { "topology=dragonfly", "switch=Quantum-2-QM9700", "radix=4", "routers_per_group=4" },
    SIM_ERROR_INVALID, { "radix too small" } },
  { "no switch and no radix", "DGX-H100", 2, { "topology=fat-tree" },
    SIM_ERROR_MISSING, { "expected a switch model" } },
};

START_TEST (test_bad_fabric)
{
  const BadFabric *b = &bad_fabrics[_i];
  g_autoptr(GError) error = NULL;
  g_autoptr(SimTopology) t = make_topology (b->model, b->nodes, b->lines, &error);

  ck_assert_msg (t == NULL, "%s: accepted", b->label);
  ck_assert_msg (error != NULL && error->domain == SIM_ERROR && error->code == b->code,
                 "%s: code %d, expected %d (%s)", b->label, error ? error->code : -1, b->code,
                 error ? error->message : "");
  for (guint i = 0; i < G_N_ELEMENTS (b->must) && b->must[i] != NULL; i++)
    ck_assert_msg (strstr (error->message, b->must[i]) != NULL, "%s: message lacks '%s': %s",
                   b->label, b->must[i], error->message);
}
END_TEST

/* Oversubscription below 1 is refused by the key parser and by the builder. */
START_TEST (test_oversubscription_below_one)
{
  g_auto(SimFabricConfig) config = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCluster) c = make_cluster ("DGX-H100", 2);
  g_autoptr(SimTopology) t = NULL;

  ck_assert (!sim_fabric_config_set (&config, "oversubscription", "1:2", &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  ck_assert (strstr (error->message, "expected at least 1:1") != NULL);
  g_clear_error (&error);

  config.kind = SIM_FABRIC_FAT_TREE;
  config.radix = 64;
  config.oversubscription = 0.5;
  t = sim_topology_new (c, catalogue, &config, &error);
  ck_assert_ptr_null (t);
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  ck_assert (strstr (error->message, "oversubscription") != NULL);
}
END_TEST

/* Bad latency and cable values: a negative number, no unit, an unknown
 * unit, a latency over 1 s ("2m" is two minutes), a cable over 10 km. */
START_TEST (test_latency_key_errors)
{
  static const struct {
    const char *key, *value, *must;
  } cases[] = {
    { "transport_latency", "-5us", "non-negative number with a unit" },
    { "transport_latency", "20", "no unit" },
    { "switch_latency", "150 parsecs", "unknown unit" },
    { "link_latency", "2m", "longer than 1 s" },
    { "access_cable_length", "3", "no unit" },
    { "cable_length", "-1m", "non-negative number with a unit" },
    { "cable_length", "20km", "longer than 10 km" },
    { "cable_length", "30us", "unknown unit" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(SimFabricConfig) config = { 0 };
      g_autoptr(GError) error = NULL;

      ck_assert (!sim_fabric_config_set (&config, cases[i].key, cases[i].value, &error));
      ck_assert_ptr_nonnull (error);
      ck_assert_msg (strstr (error->message, cases[i].must) != NULL, "%s = %s: %s",
                     cases[i].key, cases[i].value, error->message);
      ck_assert (!config.set_transport_latency && !config.set_switch_latency &&
                 !config.set_link_latency);
      ck_assert (config.cable_length == 0 && config.access_cable_length == 0);
    }
}
END_TEST

/* The [fabric] keys: values, defaults, copies, and messages. */
START_TEST (test_config_keys)
{
  g_auto(SimFabricConfig) config = { 0 };
  g_auto(SimFabricConfig) copy = { 0 };
  g_autoptr(GError) error = NULL;
  const char * const *keys = sim_fabric_config_keys ();

  ck_assert_str_eq (keys[0], "topology");
  ck_assert_uint_eq (g_strv_length ((char **) keys), 15);

  ck_assert (sim_fabric_config_set (&config, "topology", "rail-optimized", NULL));
  ck_assert_int_eq (config.kind, SIM_FABRIC_RAIL_OPTIMIZED);
  ck_assert (sim_fabric_config_set (&config, "oversubscription", "3:2", NULL));
  assert_near (config.oversubscription, 1.5, "3:2");
  ck_assert (sim_fabric_config_set (&config, "oversubscription", " 2 ", NULL));
  assert_near (config.oversubscription, 2, "2");
  ck_assert (sim_fabric_config_set (&config, "switch", "Quantum-2-QM9700", NULL));
  ck_assert (sim_fabric_config_set (&config, "switch", "Spectrum-4-SN5400", NULL));
  ck_assert (sim_fabric_config_set (&config, "link", "RoCE-400G", NULL));
  ck_assert (sim_fabric_config_set (&config, "radix", "48", NULL));
  ck_assert (sim_fabric_config_set (&config, "groups", "9", NULL));
  ck_assert (sim_fabric_config_set (&config, "routers_per_group", "8", NULL));
  ck_assert (sim_fabric_config_set (&config, "global_links", "4", NULL));
  ck_assert_uint_eq (config.radix, 48);
  ck_assert_uint_eq (config.dragonfly_groups, 9);
  ck_assert_uint_eq (config.dragonfly_routers_per_group, 8);
  ck_assert_uint_eq (config.dragonfly_global_links, 4);

  sim_fabric_config_copy (&copy, &config);
  ck_assert_str_eq (copy.switch_model, "Spectrum-4-SN5400");
  ck_assert_ptr_ne (copy.switch_model, config.switch_model);
  ck_assert_str_eq (copy.link_model, "RoCE-400G");
  ck_assert_str_eq (sim_fabric_kind_to_string (copy.kind), "rail-optimized");

  ck_assert (!sim_fabric_config_set (&config, "topology", "fat-tre", &error));
  ck_assert (strstr (error->message, "did you mean \"fat-tree\"") != NULL);
  g_clear_error (&error);

  /* routing: the names of SimRouting, any case, "d-mod-k" too. */
  ck_assert_int_eq (config.routing, SIM_ROUTING_DEFAULT);
  ck_assert (sim_fabric_config_set (&config, "routing", "ECMP", NULL));
  ck_assert_int_eq (config.routing, SIM_ROUTING_ECMP);
  ck_assert (sim_fabric_config_set (&config, "routing", "d-mod-k", NULL));
  ck_assert_int_eq (config.routing, SIM_ROUTING_DMODK);
  ck_assert (sim_fabric_config_set (&config, "routing", "spray", NULL));
  ck_assert (sim_fabric_config_set (&config, "routing", "adaptive", NULL));
  ck_assert_int_eq (config.routing, SIM_ROUTING_ADAPTIVE);
  ck_assert_str_eq (sim_routing_to_string (SIM_ROUTING_SPRAY), "spray");
  ck_assert (!sim_fabric_config_set (&config, "routing", "adaptiv", &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  ck_assert (strstr (error->message, "did you mean \"adaptive\"") != NULL);
  ck_assert (strstr (error->message, "dmodk, ecmp, adaptive, spray") != NULL);
  g_clear_error (&error);
  ck_assert_int_eq (config.routing, SIM_ROUTING_ADAPTIVE);

  /* sharing: demand-aware by default, always-on as the upper bound. */
  ck_assert_int_eq (config.sharing, SIM_FABRIC_SHARING_DEMAND);
  ck_assert (sim_fabric_config_set (&config, "sharing", "always-on", NULL));
  ck_assert_int_eq (config.sharing, SIM_FABRIC_SHARING_ALWAYS_ON);
  ck_assert (sim_fabric_config_set (&config, "sharing", "Demand", NULL));
  ck_assert_int_eq (config.sharing, SIM_FABRIC_SHARING_DEMAND);
  ck_assert (sim_fabric_config_set (&config, "sharing", "always_on", NULL));
  ck_assert_str_eq (sim_fabric_sharing_to_string (config.sharing), "always-on");
  ck_assert (!sim_fabric_config_set (&config, "sharing", "demnd", &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  ck_assert (strstr (error->message, "did you mean \"demand\"") != NULL);
  ck_assert (strstr (error->message, "always-on") != NULL);
  g_clear_error (&error);
  ck_assert_int_eq (config.sharing, SIM_FABRIC_SHARING_ALWAYS_ON);
  ck_assert (sim_fabric_config_set (&config, "sharing", "phases", NULL));
  ck_assert_int_eq (config.sharing, SIM_FABRIC_SHARING_PHASES);
  ck_assert_str_eq (sim_fabric_sharing_to_string (config.sharing), "phases");
  ck_assert (!sim_fabric_config_set (&config, "sharing", "phase", &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  ck_assert (strstr (error->message, "did you mean \"phases\"") != NULL);
  ck_assert (strstr (error->message, "demand") != NULL);
  g_clear_error (&error);
  ck_assert_int_eq (config.sharing, SIM_FABRIC_SHARING_PHASES);
  ck_assert (sim_fabric_config_set (&config, "sharing", "always-on", NULL));
  ck_assert (!sim_fabric_config_set (&config, "oversubscription", "two", &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_PARSE));
  ck_assert (strstr (error->message, "\"2:1\"") != NULL);
  g_clear_error (&error);
  ck_assert (!sim_fabric_config_set (&config, "radix", "-4", &error));
  g_clear_error (&error);
  ck_assert (!sim_fabric_config_set (&config, "radx", "4", &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_UNKNOWN_KEY));
  ck_assert (strstr (error->message, "did you mean \"radix\"") != NULL);
  g_clear_error (&error);
  ck_assert (!sim_fabric_config_set (&config, "switch", "  ", &error));
  ck_assert (strstr (error->message, "expected the name of a [switch] model") != NULL);
}
END_TEST

/* Boxes and edges of a DOT graph read back with cgraph: the legend is one
 * more vertex; every edge label is returned in @labels (sorted). */
static guint
read_dot (const char *dot, guint *n_edges, GPtrArray *labels, GPtrArray *boxes)
{
  Agraph_t *g = agmemread (dot);
  guint n = 0;

  ck_assert_ptr_nonnull (g);
  *n_edges = 0;
  for (Agnode_t *v = agfstnode (g); v != NULL; v = agnxtnode (g, v))
    {
      if (strcmp (agnameof (v), "legend") != 0)
        {
          n++;
          if (boxes != NULL)
            g_ptr_array_add (boxes, g_strdup (agget (v, (char *) "label")));
        }
      for (Agedge_t *e = agfstout (g, v); e != NULL; e = agnxtout (g, e))
        {
          const char *style = agget (e, (char *) "style");
          /* The invisible edges that keep a tier's boxes in order stand for
           * no link: not counted. */
          if (style != NULL && strstr (style, "invis") != NULL)
            continue;
          (*n_edges)++;
          if (labels != NULL)
            g_ptr_array_add (labels, g_strdup (agget (e, (char *) "label")));
        }
    }
  agclose (g);
  return n;
}

static SimTopology *
build_fabric (SimCluster *c, const char * const *lines)
{
  g_auto(SimFabricConfig) config = { 0 };
  g_autoptr(GError) error = NULL;
  SimTopology *t;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) kv = g_strsplit (lines[i], "=", 2);
      ck_assert (sim_fabric_config_set (&config, kv[0], kv[1], &error));
    }
  t = sim_topology_new (c, catalogue, &config, &error);
  ck_assert_msg (t != NULL, "%s", error ? error->message : "?");
  return t;
}

/* Compares @dot with the golden file tests/data/NAME (regenerate with
 * SIM_REGENERATE_GOLDEN=1 after a deliberate change, and review the diff). */
static void
assert_golden (const char *dot, const char *name)
{
  g_autofree char *path = g_build_filename (SIM_TEST_DATADIR, name, NULL);
  g_autofree char *want = NULL;

  if (g_getenv ("SIM_REGENERATE_GOLDEN") != NULL)
    ck_assert (g_file_set_contents (path, dot, -1, NULL));
  ck_assert_msg (g_file_get_contents (path, &want, NULL, NULL), "cannot read %s", path);
  if (strcmp (want, dot) != 0)
    {
      g_autofree char *got = g_build_filename (g_get_tmp_dir (), name, NULL);
      g_file_set_contents (got, dot, -1, NULL);
      ck_abort_msg ("the DOT of %s differs from its golden file (this run's is %s)", name, got);
    }
}

/* The diagram of 4 x DGX-H100 on one switch.  Expanded: 4 node boxes and 1
 * switch, joined by 4 edges, each standing for a node's 8 NDR links.
 * Collapsed: one "4 x DGX-H100" box and the switch, one edge for all 32
 * links.  Both against golden DOT; SVG is laid out and rendered; an
 * unknown format is refused. */
START_TEST (test_diagram)
{
  const char *lines[] = { "topology=single-switch", "switch=Quantum-2-QM9700", NULL };
  g_autoptr(SimCluster) c = make_cluster ("DGX-H100", 4);
  g_autoptr(SimTopology) t = build_fabric (c, lines);
  g_autoptr(GError) error = NULL;
  g_autofree char *dot = NULL, *collapsed = NULL, *svg = NULL, *bad = NULL;
  g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) boxes = g_ptr_array_new_with_free_func (g_free);
  SimDiagramOptions expand = { TRUE, SIM_DIAGRAM_HEAT_NONE, NULL, NULL, NULL, 0 };
  gsize len = 0;
  guint edges = 0;

  ck_assert_msg (sim_topology_render (t, c, &expand, "dot", &dot, &len, &error), "%s",
                 error ? error->message : "?");
  ck_assert_uint_eq (read_dot (dot, &edges, labels, NULL), 5);
  ck_assert_uint_eq (edges, 4);
  for (guint i = 0; i < labels->len; i++)
    ck_assert_str_eq (labels->pdata[i], "8 x 400 Gb/s");
  assert_golden (dot, "diagram-single-switch-expanded.dot");

  g_ptr_array_set_size (labels, 0);
  ck_assert (sim_topology_render (t, c, NULL, "dot", &collapsed, &len, &error));
  ck_assert_uint_eq (read_dot (collapsed, &edges, labels, boxes), 2);
  ck_assert_uint_eq (edges, 1);
  ck_assert_str_eq (labels->pdata[0], "32 x 400 Gb/s");
  ck_assert (g_strv_contains ((const char * const *) (g_ptr_array_add (boxes, NULL),
                                                      boxes->pdata), "leaf 0"));
  ck_assert (g_strv_contains ((const char * const *) boxes->pdata,
                              "4 x DGX-H100\nnodes 0-3\n8 x H100-SXM each"));
  assert_golden (collapsed, "diagram-single-switch.dot");

  ck_assert_msg (sim_topology_render (t, c, &expand, "svg", &svg, &len, &error), "%s",
                 error ? error->message : "?");
  ck_assert (len > 100 && strstr (svg, "<svg") != NULL && strstr (svg, "node 3") != NULL);
  ck_assert (!sim_topology_render (t, c, NULL, "gif", &bad, &len, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
}
END_TEST

/* A rail-optimized fabric of 8 x DGX-H100: NIC i of every node on rail
 * leaf i, 8 rail leaves under one spine.  Collapsed, the nodes are one box
 * ("8 x DGX-H100") in a cluster "rail group 0", the rails are drawn as
 * rails: 8 boxes "rail i / leaf i", each joined to the nodes by one bundle
 * "NIC i / 8 x 400 Gb/s" (NIC i of each of the 8 nodes: the NIC-to-rail
 * pattern, once) and to the spine by one of its 8 uplinks: 10 boxes, 16
 * edges.  Expanded: 8 + 8 + 1 boxes and 64 node-to-rail edges of one link
 * each, plus the 8 rail-to-spine bundles. */
START_TEST (test_diagram_rails)
{
  const char *lines[] = { "topology=rail-optimized", "switch=Quantum-2-QM9700", NULL };
  g_autoptr(SimCluster) c = make_cluster ("DGX-H100", 8);
  g_autoptr(SimTopology) t = build_fabric (c, lines);
  g_autoptr(GError) error = NULL;
  g_autofree char *dot = NULL, *full = NULL;
  g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) boxes = g_ptr_array_new_with_free_func (g_free);
  SimDiagramOptions expand = { TRUE, SIM_DIAGRAM_HEAT_NONE, NULL, NULL, NULL, 0 };
  gsize len = 0;
  guint edges = 0, one_link = 0, rails = 0, nics = 0;
  gboolean nodes = FALSE;

  ck_assert (sim_topology_render (t, c, NULL, "dot", &dot, &len, &error));
  ck_assert_uint_eq (read_dot (dot, &edges, labels, boxes), 10);
  ck_assert_uint_eq (edges, 16);
  for (guint i = 0; i < boxes->len; i++)
    {
      g_autofree char *want = g_strdup_printf ("rail %u\nleaf %u", rails, rails);
      rails += strcmp (boxes->pdata[i], want) == 0;
      nodes |= g_str_has_prefix (boxes->pdata[i], "8 x DGX-H100");
    }
  ck_assert_uint_eq (rails, 8);
  ck_assert (nodes);
  for (guint i = 0; i < 8; i++)
    {
      g_autofree char *want = g_strdup_printf ("NIC %u\n8 x 400 Gb/s", i);
      nics += g_ptr_array_find_with_equal_func (labels, want, g_str_equal, NULL);
    }
  ck_assert_uint_eq (nics, 8);
  ck_assert (strstr (dot, "rail group 0") != NULL);
  ck_assert (strstr (dot, "rack 0") == NULL);
  assert_golden (dot, "diagram-rails.dot");

  g_ptr_array_set_size (labels, 0);
  ck_assert (sim_topology_render (t, c, &expand, "dot", &full, &len, &error));
  ck_assert_uint_eq (read_dot (full, &edges, labels, NULL), 17);
  for (guint i = 0; i < labels->len; i++)
    one_link += g_str_has_prefix (labels->pdata[i], "NIC ")
                && g_str_has_suffix (labels->pdata[i], "\n1 x 400 Gb/s");
  ck_assert_uint_eq (one_link, 64);
  ck_assert_uint_eq (edges, 64 + 8);

  /* Width: expanded, the 64 node-to-rail bundles side by side (more than
   * the 8 nodes, 8 rail leaves, or 8 rail-to-spine bundles); collapsed,
   * the 8 rails (and 8 bundles in each band). */
  {
    guint width = 0;
    ck_assert (sim_topology_check_diagram_width (t, c, &expand, 0, &width, &error));
    ck_assert_uint_eq (width, 64);
    ck_assert (sim_topology_check_diagram_width (t, c, &expand, 64, NULL, &error));
    ck_assert (!sim_topology_check_diagram_width (t, c, &expand, 63, &width, &error));
    ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
    ck_assert_msg (strstr (error->message, "64 labelled bundles of links from the nodes up")
                   != NULL, "%s", error->message);
    g_clear_error (&error);
    ck_assert (sim_topology_check_diagram_width (t, c, NULL, 8, &width, &error));
    ck_assert_uint_eq (width, 8);
  }
}
END_TEST

/* The inside of a DGX-H100 from the catalogue: 2 CPUs, 8 GPUs, 8 NICs, 4
 * NVSwitch chips; every GPU linked to every chip (8 x 4 lines), the
 * caption giving 450 GB/s per GPU (18 NVLink4 links x 25 GB/s each way:
 * the 900 GB/s NVIDIA quotes counts both), each NIC's port 400 Gb/s. */
START_TEST (test_node_diagram)
{
  const SimNodeModel *m = sim_catalogue_lookup_node (catalogue, "DGX-H100");
  g_autoptr(GError) error = NULL;
  g_autofree char *dot = NULL;
  g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) boxes = g_ptr_array_new_with_free_func (g_free);
  gsize len = 0;
  guint edges = 0, nvlink = 0, cpus = 0, nics = 0;

  ck_assert_ptr_nonnull (m);
  ck_assert_msg (sim_node_model_render (m, "dot", &dot, &len, &error), "%s",
                 error ? error->message : "?");
  ck_assert_uint_eq (read_dot (dot, &edges, labels, boxes), 2 + 8 + 8 + 4);
  {
    g_autoptr(GRegex) re = g_regex_new ("gpu[0-9]+ -- nvs[0-9]+", 0, 0, NULL);
    g_autoptr(GMatchInfo) match = NULL;
    for (g_regex_match (re, dot, 0, &match); g_match_info_matches (match);
         g_match_info_next (match, NULL))
      nvlink++;
  }
  ck_assert_msg (strstr (dot, "450 GB/s per GPU each way") != NULL, "no NVLink caption");
  for (guint i = 0; i < boxes->len; i++)
    {
      cpus += g_str_has_prefix (boxes->pdata[i], "CPU ");
      nics += strstr (boxes->pdata[i], "400 Gb/s") != NULL;
    }
  ck_assert_uint_eq (nvlink, 8 * 4);
  ck_assert_uint_eq (cpus, 2);
  ck_assert_uint_eq (nics, 8);
}
END_TEST

/* igraph (Debian's, not built thread-safe) computes the bisection: builds
 * and metrics in four threads at once give what one thread gives. */
typedef struct {
  SimTopologyMetrics m;
  gboolean           ok;
} MetricsJob;

static const char *const threads_cfg[] = { "topology=fat-tree", "switch=Quantum-2-QM9700",
                                           "radix=24", "oversubscription=2:1", NULL };

static gpointer
metrics_in_thread (gpointer data)
{
  MetricsJob *job = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCluster) c = NULL;
  g_auto(SimFabricConfig) config = { 0 };
  g_autoptr(SimTopology) t = NULL;

  /* No ck_assert outside the test's own thread. */
  c = sim_cluster_new ();
  job->ok = sim_cluster_add_pool (c, "p", sim_catalogue_lookup_node (catalogue, "DGX-H100"),
                                  NULL, 0, 32, &error);
  for (guint i = 0; job->ok && threads_cfg[i] != NULL; i++)
    {
      g_auto(GStrv) kv = g_strsplit (threads_cfg[i], "=", 2);
      job->ok = sim_fabric_config_set (&config, kv[0], kv[1], &error);
    }
  job->ok = job->ok && (t = sim_topology_new (c, catalogue, &config, &error)) != NULL &&
            sim_topology_get_metrics (t, &job->m, &error);
  return NULL;
}

START_TEST (test_metrics_in_threads)
{
  SimTopologyMetrics alone;
  g_autoptr(SimTopology) t = must_build ("DGX-H100", 32, threads_cfg, &alone);
  MetricsJob jobs[4] = { 0 };
  GThread *threads[4];

  for (guint i = 0; i < 4; i++)
    threads[i] = g_thread_new ("metrics", metrics_in_thread, &jobs[i]);
  for (guint i = 0; i < 4; i++)
    {
      g_thread_join (threads[i]);
      ck_assert (jobs[i].ok);
      ck_assert (jobs[i].m.bisection_bandwidth == alone.bisection_bandwidth);
      ck_assert_uint_eq (jobs[i].m.diameter, alone.diameter);
      ck_assert_uint_eq (jobs[i].m.components, alone.components);
    }
  ck_assert (alone.bisection_bandwidth > 0);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Whole nodes and the oversubscription asked, over every builder.
 *
 * What is checked, for every topology kind, cluster sizes from 1 to 40
 * nodes (of 8 NICs, of 2, and the two mixed), radixes from 12 to 64 and
 * oversubscriptions from 1:1 to 5:1:
 * - no node's NICs are split: in a fat-tree, a three-tier fat-tree, a
 *   single switch or a dragonfly every NIC of a node is on one switch; on
 *   a rail-optimized fabric (two tiers or three) NIC k of a node is on
 *   rail leaf k of its group: two nodes share a rail leaf for NIC 0 exactly when they share
 *   it for every NIC, and a node's NICs are on different rail leaves;
 * - oversubscription as asked: every leaf (router) with uplinks (global
 *   links) has NIC ports : uplinks equal to the ratio asked, or the builder
 *   warns and the warning names the ratio that leaf has;
 * - the full leaves of a tree (those with the most NICs) are as near the
 *   ratio asked as any whole number of nodes and uplinks on that radix
 *   could be, against an enumeration of every (nodes, uplinks) pair that
 *   fits, which shares nothing with the builder's search.
 * What is not asserted: which nodes share a leaf beyond the rules above,
 * or the spine and core tiers (non-blocking, tested above by hand). */

typedef struct {
  guint nodes, down, up;  /* per leaf-tier switch: nodes seen, NIC ports, uplinks */
  gint  first_node;
} LeafCount;

/* The smallest |log(d / u / r)| that n whole nodes of @k NICs and u
 * uplinks on @ports ports can give, by enumeration. */
static double
best_ratio_error (guint k, guint ports, double r)
{
  double best = INFINITY;

  for (guint n = 1; n * k < ports; n++)
    for (guint u = 1; n * k + u <= ports; u++)
      best = MIN (best, fabs (log ((double) n * k / u / r)));
  return best;
}

static SimCluster *
make_mixed (guint n_big, guint n_small)
{
  g_autoptr(GError) error = NULL;
  SimCluster *c = sim_cluster_new ();

  if (n_big > 0)
    ck_assert_msg (sim_cluster_add_pool (c, "big", sim_catalogue_lookup_node (catalogue,
                                                                              "DGX-H100"),
                                         NULL, 0, n_big, &error), "%s",
                   error ? error->message : "?");
  if (n_small > 0)
    ck_assert_msg (sim_cluster_add_pool (c, "small", sim_catalogue_lookup_node (catalogue,
                                                                                "PCIe-8GPU"),
                                         NULL, 0, n_small, &error), "%s",
                   error ? error->message : "?");
  return c;
}

/* Checks one built topology; returns whether it had leaves with uplinks. */
static gboolean
check_whole_nodes (SimTopology *t, SimFabricKind kind, double r, guint k_max, guint radix,
                   const char *label)
{
  guint nv = sim_topology_get_n_vertices (t), nl = sim_topology_get_n_links (t);
  g_autofree LeafCount *leaf = g_new0 (LeafCount, nv);
  g_autofree gint64 *first_switch = NULL;   /* per node: the switch of its first NIC */
  g_autofree guint *nic_rank = g_new0 (guint, nv);
  GHashTable *seen = g_hash_table_new (g_direct_hash, g_direct_equal);
  const char * const *warnings = sim_topology_get_warnings (t);
  guint n_nodes = 0, max_down = 0;
  gboolean uplinks = FALSE;
  gboolean rails = kind == SIM_FABRIC_RAIL_OPTIMIZED || kind == SIM_FABRIC_RAIL_OPTIMIZED_3;

  for (guint v = 0; v < nv; v++)
    if (sim_topology_get_vertex_node (t, v) >= 0)
      n_nodes = MAX (n_nodes, (guint) sim_topology_get_vertex_node (t, v) + 1);
  first_switch = g_new (gint64, MAX (1u, n_nodes));
  for (guint i = 0; i < n_nodes; i++)
    first_switch[i] = -1;
  for (guint v = 0; v < nv; v++)
    leaf[v].first_node = -1;
  /* A NIC's rank in its node: NICs are numbered node by node, in order. */
  {
    gint last = -1;
    guint rank = 0;
    for (guint v = 0; v < nv; v++)
      if (sim_topology_get_vertex_kind (t, v) == SIM_VERTEX_NIC)
        {
          gint node = sim_topology_get_vertex_node (t, v);
          rank = node == last ? rank + 1 : 0;
          last = node;
          nic_rank[v] = rank;
        }
  }
  for (guint l = 0; l < nl; l++)
    {
      const SimLink *k = sim_topology_get_link (t, l);
      SimVertexKind ka = sim_topology_get_vertex_kind (t, k->a);
      SimVertexKind kb = sim_topology_get_vertex_kind (t, k->b);

      if (k->tier == SIM_TIER_ACCESS)
        {
          gint node = sim_topology_get_vertex_node (t, k->a);
          ck_assert_int_eq (ka, SIM_VERTEX_NIC);
          leaf[k->b].down++;
          if (rails)
            {
              /* Key (switch, node): a node's NICs on distinct rail leaves. */
              gpointer key = GUINT_TO_POINTER ((guint64) k->b * 100003u + (guint) node + 1);
              ck_assert_msg (!g_hash_table_contains (seen, key),
                             "%s: node %d has two NICs on rail leaf %u", label, node, k->b);
              g_hash_table_add (seen, key);
              if (nic_rank[k->a] == 0)
                first_switch[node] = k->b;
            }
          else
            {
              if (first_switch[node] < 0)
                first_switch[node] = k->b;
              ck_assert_msg (first_switch[node] == k->b,
                             "%s: node %d's NICs split across switches %" G_GINT64_FORMAT
                             " and %u", label, node, first_switch[node], k->b);
            }
        }
      else if (ka == SIM_VERTEX_LEAF && kb == SIM_VERTEX_SPINE)
        leaf[k->a].up++;
      else if (ka == SIM_VERTEX_ROUTER && k->tier == SIM_TIER_CORE)
        {
          leaf[k->a].up++;
          leaf[k->b].up++;
        }
    }
  g_hash_table_unref (seen);
  /* Rails: nodes that share rail leaf 0 share every rail leaf. */
  if (rails)
    for (guint l = 0; l < nl; l++)
      {
        const SimLink *k = sim_topology_get_link (t, l);
        if (k->tier != SIM_TIER_ACCESS)
          continue;
        {
          gint node = sim_topology_get_vertex_node (t, k->a);
          LeafCount *lc = &leaf[k->b];
          if (lc->first_node < 0)
            lc->first_node = node;
          ck_assert_msg (first_switch[node] >= 0 && first_switch[lc->first_node] >= 0, "%s",
                         label);
          /* Both nodes have the same rail-0 leaf: the same group. */
          ck_assert_msg (first_switch[node] == first_switch[lc->first_node],
                         "%s: rail leaf %u mixes nodes %d and %d of different groups", label,
                         k->b, node, lc->first_node);
        }
      }

  for (guint v = 0; v < nv; v++)
    if (leaf[v].up > 0 && leaf[v].down > 0)
      max_down = MAX (max_down, leaf[v].down);
  for (guint v = 0; v < nv; v++)
    {
      const LeafCount *lc = &leaf[v];
      double ratio;

      if (lc->up == 0 || lc->down == 0)
        continue;
      uplinks = TRUE;
      ratio = (double) lc->down / lc->up;
      if (fabs (ratio / r - 1) > 1e-9)
        {
          char buf[G_ASCII_DTOSTR_BUF_SIZE];
          g_autofree char *named = g_strdup_printf ("%u NIC ports and %u ", lc->down, lc->up);
          g_autofree char *ratio_named = g_strdup_printf ("(%s:1)", g_ascii_formatd (
                                                            buf, sizeof buf, "%.3g", ratio));
          ck_assert_msg (warnings[0] != NULL, "%s: switch %u at %g:1, %g asked, no warning",
                         label, v, ratio, r);
          ck_assert_msg (strstr (warnings[0], named) != NULL
                         && strstr (warnings[0], ratio_named) != NULL,
                         "%s: the warning does not name %s%s: %s", label, named, ratio_named,
                         warnings[0]);
        }
      if (kind != SIM_FABRIC_DRAGONFLY && lc->down == max_down && !rails)
        assert_near (fabs (log (ratio / r)), best_ratio_error (k_max, radix, r), label);
    }
  return uplinks;
}

START_TEST (test_whole_nodes)
{
  static const SimFabricKind kinds[] = {
    SIM_FABRIC_SINGLE_SWITCH, SIM_FABRIC_FAT_TREE, SIM_FABRIC_FAT_TREE_3,
    SIM_FABRIC_RAIL_OPTIMIZED, SIM_FABRIC_RAIL_OPTIMIZED_3, SIM_FABRIC_DRAGONFLY,
  };
  static const guint sizes[][2] = {  /* DGX-H100 (8 NICs), PCIe-8GPU (2 NICs) */
    { 1, 0 }, { 3, 0 }, { 5, 0 }, { 13, 0 }, { 40, 0 }, { 0, 7 }, { 0, 33 }, { 6, 9 },
  };
  static const guint radixes[] = { 12, 20, 36, 64 };
  static const double ratios[] = { 1, 1.5, 2, 2.5, 3, 4, 5 };
  guint built = 0, with_uplinks = 0, warned = 0;

  for (guint a = 0; a < G_N_ELEMENTS (kinds); a++)
    for (guint b = 0; b < G_N_ELEMENTS (sizes); b++)
      for (guint c = 0; c < G_N_ELEMENTS (radixes); c++)
        for (guint d = 0; d < G_N_ELEMENTS (ratios); d++)
          {
            g_autoptr(SimCluster) cl = make_mixed (sizes[b][0], sizes[b][1]);
            SimFabricConfig config = { .kind = kinds[a], .radix = radixes[c],
                                       .oversubscription = ratios[d] };
            g_autoptr(GError) error = NULL;
            g_autoptr(SimTopology) t = NULL;
            g_autofree char *label = g_strdup_printf (
              "%s, %u x 8 + %u x 2 NICs, radix %u, %g:1", sim_fabric_kind_to_string (kinds[a]),
              sizes[b][0], sizes[b][1], radixes[c], ratios[d]);

            t = sim_topology_new (cl, catalogue, &config, &error);
            if (t == NULL)
              {
                /* Only a radix too small may refuse. */
                ck_assert_msg (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID)
                               && strstr (error->message, "radix too small") != NULL,
                               "%s: %s", label, error->message);
                continue;
              }
            built++;
            if (check_whole_nodes (t, kinds[a], ratios[d], sizes[b][0] > 0 ? 8 : 2,
                                   radixes[c], label))
              with_uplinks++;
            warned += sim_topology_get_warnings (t)[0] != NULL;
          }
  /* The sweep must have built most of its fabrics, many with uplinks, and
   * hit both exact and nearest ratios. */
  ck_assert_uint_ge (built, 600);
  ck_assert_uint_ge (with_uplinks, 300);
  ck_assert_uint_ge (warned, 20);
  ck_assert_uint_lt (warned, with_uplinks);
}
END_TEST

/* Three tiers of rails, worked out by hand.  48 x DGX-H100 on 32-port
 * switches of Quantum-2 speed (NIC and port 400 Gb/s), 1:1: a rail leaf
 * takes one NIC of 16 nodes and 16 uplinks, so the rail groups are nodes
 * 0-15, 16-31 and 32-47, 8 rail leaves each (24).  A pod holds radix/2 =
 * 16 leaves, two whole groups: pod 0 is groups 0 and 1, pod 1 group 2.
 * Each leaf has one uplink to each of its pod's 16 spines (32 spines);
 * spine j of pod 0 has 16 leaves below and 16 uplinks, of pod 1 8 and 8;
 * core group j joins the 24 uplinks of spine j of both pods on one
 * 32-port core (16 cores).  72 switches, 384 + 384 + 384 cables.  Routes:
 * rail 3 of node 0 to rail 3 of node 16 (groups 0 and 1, one pod) turn at
 * a spine; to node 32 (pod 1) they climb to a core. */
START_TEST (test_rail_optimized_3)
{
  const char *cfg[] = { "topology=rail-optimized-3", "switch=Quantum-2-QM9700", "radix=32",
                        NULL };
  SimTopologyMetrics m;
  g_autoptr(SimTopology) t = must_build ("DGX-H100", 48, cfg, &m);
  guint nv = sim_topology_get_n_vertices (t), nl = sim_topology_get_n_links (t);
  g_autofree guint *down = g_new0 (guint, nv);
  g_autofree guint *up = g_new0 (guint, nv);
  g_autofree guint *degree = g_new0 (guint, nv);
  g_autofree gint *group = g_new (gint, nv);
  /* By leaf: a bitmask of the spines above it, numbered in order met. */
  g_autofree guint64 *spines_of = g_new0 (guint64, nv);
  g_autofree gint *spine_bit = g_new (gint, nv);
  guint n_spine_bits = 0;
  guint64 pod_spines[3] = { 0, 0, 0 };
  g_autoptr(GArray) path = g_array_new (FALSE, FALSE, sizeof (guint32));
  SimTime lat;

  ck_assert_uint_eq (m.switches[1], 24);
  ck_assert_uint_eq (m.switches[2], 32);
  ck_assert_uint_eq (m.switches[3], 16);
  ck_assert_uint_eq (m.switches[0], 72);
  ck_assert_uint_eq (m.cables, 3 * 384);
  ck_assert_uint_eq (m.components, 1);
  assert_near (m.oversubscription[1], 1, "rail leaf 1:1");
  assert_near (m.oversubscription[2], 1, "spine 1:1");
  ck_assert_str_eq (sim_topology_get_warnings (t)[0] == NULL ? "" : sim_topology_get_warnings (t)[0], "");

  for (guint v = 0; v < nv; v++)
    group[v] = spine_bit[v] = -1;
  for (guint l = 0; l < nl; l++)
    {
      const SimLink *k = sim_topology_get_link (t, l);
      SimVertexKind ka = sim_topology_get_vertex_kind (t, k->a);
      SimVertexKind kb = sim_topology_get_vertex_kind (t, k->b);

      if (k->tier == SIM_TIER_INTRA)
        continue;
      degree[k->a] += ka != SIM_VERTEX_NIC;
      degree[k->b]++;
      if (k->tier == SIM_TIER_ACCESS)
        {
          gint g = sim_topology_get_vertex_node (t, k->a) / 16;
          ck_assert_int_eq (kb, SIM_VERTEX_LEAF);
          ck_assert_msg (group[k->b] < 0 || group[k->b] == g,
                         "rail leaf %u has nodes of groups %d and %d", k->b, group[k->b], g);
          group[k->b] = g;
        }
      else if (ka == SIM_VERTEX_LEAF && kb == SIM_VERTEX_SPINE)
        {
          if (spine_bit[k->b] < 0)
            spine_bit[k->b] = (gint) n_spine_bits++;
          spines_of[k->a] |= G_GUINT64_CONSTANT (1) << spine_bit[k->b];
          down[k->b]++;
        }
      else if (ka == SIM_VERTEX_SPINE && kb == SIM_VERTEX_CORE)
        up[k->a]++;
      else
        ck_abort_msg ("a link from a %d to a %d", ka, kb);
    }
  ck_assert_uint_eq (n_spine_bits, 32);
  for (guint v = 0; v < nv; v++)
    {
      ck_assert_uint_le (degree[v], 32);
      if (sim_topology_get_vertex_kind (t, v) == SIM_VERTEX_SPINE)
        {
          /* Non-blocking, 16 (pod 0) or 8 (pod 1) leaves below. */
          ck_assert_uint_eq (down[v], up[v]);
          ck_assert (down[v] == 16 || down[v] == 8);
        }
      if (sim_topology_get_vertex_kind (t, v) == SIM_VERTEX_LEAF)
        {
          ck_assert_int_ge (group[v], 0);
          ck_assert_uint_eq (__builtin_popcountll (spines_of[v]), 16);
          /* Every leaf of a group, and of a pod, under the same spines. */
          if (pod_spines[group[v]] == 0)
            pod_spines[group[v]] = spines_of[v];
          ck_assert (spines_of[v] == pod_spines[group[v]]);
        }
    }
  ck_assert (pod_spines[0] == pod_spines[1]);
  ck_assert ((pod_spines[0] & pod_spines[2]) == 0);

  /* Rail 3 to rail 3 inside pod 0: GPU, NIC, rail leaf, spine, rail leaf,
   * NIC, GPU (6 links); to pod 1 through a core (8). */
  ck_assert (sim_topology_route (t, 0 * 8 + 3, 16 * 8 + 3, 7, path, &lat));
  assert_walk (t, path, 0 * 8 + 3, 16 * 8 + 3, lat);
  ck_assert_uint_eq (path->len, 6);
  ck_assert (sim_topology_route (t, 0 * 8 + 3, 32 * 8 + 3, 7, path, &lat));
  assert_walk (t, path, 0 * 8 + 3, 32 * 8 + 3, lat);
  ck_assert_uint_eq (path->len, 8);
  {
    guint cores = 0;
    for (guint i = 0; i < path->len; i++)
      cores += sim_topology_get_vertex_kind (t, resource_head (t, g_array_index (path, guint32,
                                                                                 i)))
               == SIM_VERTEX_CORE;
    ck_assert_uint_eq (cores, 1);
  }
}
END_TEST

/* Pods of whole rail groups where radix/2 is not a multiple of the rails:
 * 72 x DGX-H100 on 36 ports at 1:1 are 4 groups of 18 nodes, 8 rail leaves
 * each, 18 uplinks a leaf.  A pod holds up to 18 leaves, two whole groups
 * (16): pods {0, 1} and {2, 3}, where pods of 18 leaves in a row would
 * cut group 2 in two.  18 spines a pod (36), each 16 down and 16 up; core
 * group j joins 32 uplinks on one core (18).  Every leaf of a group is
 * under the same spines; groups of different pods under none in common. */
START_TEST (test_rail_optimized_3_whole_groups)
{
  const char *cfg[] = { "topology=rail-optimized-3", "switch=Quantum-2-QM9700", "radix=36",
                        NULL };
  SimTopologyMetrics m;
  g_autoptr(SimTopology) t = must_build ("DGX-H100", 72, cfg, &m);
  guint nv = sim_topology_get_n_vertices (t), nl = sim_topology_get_n_links (t);
  g_autofree gint *group = g_new (gint, nv);
  g_autofree guint *lowest = g_new (guint, nv);   /* by leaf: the lowest spine above */
  guint group_spine[4] = { G_MAXUINT, G_MAXUINT, G_MAXUINT, G_MAXUINT };

  ck_assert_uint_eq (m.switches[1], 32);
  ck_assert_uint_eq (m.switches[2], 36);
  ck_assert_uint_eq (m.switches[3], 18);
  for (guint v = 0; v < nv; v++)
    {
      group[v] = -1;
      lowest[v] = G_MAXUINT;
    }
  for (guint l = 0; l < nl; l++)
    {
      const SimLink *k = sim_topology_get_link (t, l);
      if (k->tier == SIM_TIER_ACCESS)
        group[k->b] = sim_topology_get_vertex_node (t, k->a) / 18;
      else if (sim_topology_get_vertex_kind (t, k->a) == SIM_VERTEX_LEAF
               && sim_topology_get_vertex_kind (t, k->b) == SIM_VERTEX_SPINE)
        lowest[k->a] = MIN (lowest[k->a], k->b);
    }
  for (guint v = 0; v < nv; v++)
    if (sim_topology_get_vertex_kind (t, v) == SIM_VERTEX_LEAF)
      {
        ck_assert_int_ge (group[v], 0);
        if (group_spine[group[v]] == G_MAXUINT)
          group_spine[group[v]] = lowest[v];
        ck_assert_msg (lowest[v] == group_spine[group[v]],
                       "rail leaf %u of group %d under another pod's spines", v, group[v]);
      }
  ck_assert_uint_eq (group_spine[0], group_spine[1]);
  ck_assert_uint_eq (group_spine[2], group_spine[3]);
  ck_assert_uint_ne (group_spine[0], group_spine[2]);
}
END_TEST

/* Where two tiers of rails cannot be built, the error names the third
 * tier, which builds it: 40 x DGX-H100 on 16 ports at 1:1 are 5 rail
 * groups of 8 nodes, 40 rail leaves of 8 uplinks, more than 16-port
 * spines can join in one tier.  In three: pods of one group (8 leaves),
 * 8 spines each (40), and core group j takes spine j's 8 uplinks from each
 * of the 5 pods, 40 on 16-port cores: 3 cores (ceil(8/3) = 3 links from
 * each pod, 15 ports), 24 cores. */
START_TEST (test_rail_optimized_3_beyond_two)
{
  const char *two[] = { "topology=rail-optimized", "switch=Quantum-2-QM9700", "radix=16",
                        NULL };
  const char *three[] = { "topology=rail-optimized-3", "switch=Quantum-2-QM9700", "radix=16",
                          NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(SimTopology) t2 = make_topology ("DGX-H100", 40, two, &error);
  SimTopologyMetrics m;
  g_autoptr(SimTopology) t3 = NULL;

  ck_assert_ptr_null (t2);
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  ck_assert_msg (strstr (error->message, "40 leaves need more ports than a spine of 16 ports")
                 != NULL && strstr (error->message, "topology = rail-optimized-3") != NULL,
                 "%s", error->message);
  t3 = must_build ("DGX-H100", 40, three, &m);
  ck_assert_uint_eq (m.switches[1], 40);
  ck_assert_uint_eq (m.switches[2], 40);
  ck_assert_uint_eq (m.switches[3], 24);
  ck_assert_uint_eq (m.cables, 320 + 320 + 320);
  ck_assert_uint_eq (m.components, 1);
}
END_TEST

/* The plans worked out by hand in sim-topology.h, for 8 NICs a node on 64
 * ports: 4 nodes and 32 uplinks at 1:1, 5 and 20 at 2:1, 6 and 16 at 3:1,
 * 6 and 12 at 4:1; and 1.5:1, which whole nodes of 8 meet exactly only
 * with 3 nodes and 16 uplinks (24:16).  24 nodes, so that every leaf is
 * full (24 = 4 x 6 = 6 x 4 = 8 x 3) except at 2:1 (4 x 5 + 4: the last
 * leaf's 32 NICs take 16 uplinks, still 2:1).  No warning in any. */
START_TEST (test_leaf_plans)
{
  static const struct {
    const char *ratio;
    guint leaves, spine_links;
  } cases[] = {
    { "1", 6, 6 * 32 }, { "2", 5, 4 * 20 + 16 }, { "3", 4, 4 * 16 }, { "4", 4, 4 * 12 },
    { "1.5", 8, 8 * 16 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *os = g_strdup_printf ("oversubscription=%s", cases[i].ratio);
      const char *cfg[] = { "topology=fat-tree", "switch=Quantum-2-QM9700", os, NULL };
      SimTopologyMetrics m;
      g_autoptr(SimTopology) t = must_build ("DGX-H100", 24, cfg, &m);

      ck_assert_msg (m.switches[1] == cases[i].leaves, "%s:1: %u leaves, expected %u",
                     cases[i].ratio, m.switches[1], cases[i].leaves);
      ck_assert_msg (m.cables == 192 + cases[i].spine_links, "%s:1: %u cables, expected %u",
                     cases[i].ratio, m.cables, 192 + cases[i].spine_links);
      assert_near (m.oversubscription[1], g_ascii_strtod (cases[i].ratio, NULL), os);
      ck_assert_ptr_null (sim_topology_get_warnings (t)[0]);
    }
}
END_TEST

/* The oversubscription asked is of bandwidth, down:up, where a NIC's port
 * carries the NIC's speed and an uplink the switch port's.  Worked out by
 * hand: DGX H100 (eight NICs of 400 Gb/s) on Quantum-X800 switches (144
 * ports of 800 Gb/s): at 1:1 twelve nodes a leaf, 96 ports down (38.4
 * Tb/s) and 48 up (38.4 Tb/s); at 2:1 fourteen, 112 down (44.8 Tb/s) and
 * 28 up (22.4 Tb/s), 140 of the 144 ports (fifteen would need 150).  A
 * PCIe server (two NICs of 100 Gb/s) on Quantum-2 (64 ports of 400 Gb/s)
 * at 1:1: 24 nodes, 48 ports down (4.8 Tb/s) and 12 up (4.8 Tb/s).  Two
 * full leaves each; no warning; the metrics' leaf ratio is the one asked.
 * Counting ports instead built 2:1 on the Quantum-X800 as 96 down and 48
 * up, 1:1 in bandwidth. */
START_TEST (test_leaf_plans_by_bandwidth)
{
  static const struct {
    const char *model, *sw, *ratio;
    guint nodes, nics, up;
  } cases[] = {
    { "DGX-H100", "Quantum-X800-Q3400", "1", 24, 8, 48 },
    { "DGX-H100", "Quantum-X800-Q3400", "2", 28, 8, 28 },
    { "PCIe-8GPU", "Quantum-2-QM9700", "1", 48, 2, 12 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *os = g_strdup_printf ("oversubscription=%s", cases[i].ratio);
      g_autofree char *sw = g_strdup_printf ("switch=%s", cases[i].sw);
      const char *cfg[] = { "topology=fat-tree", sw, os, NULL };
      SimTopologyMetrics m;
      g_autoptr(SimTopology) t = must_build (cases[i].model, cases[i].nodes, cfg, &m);
      guint access = cases[i].nodes * cases[i].nics;

      ck_assert_msg (m.switches[1] == 2, "%s %s:1: %u leaves, expected 2", cases[i].sw,
                     cases[i].ratio, m.switches[1]);
      ck_assert_msg (m.cables == access + 2 * cases[i].up, "%s %s:1: %u cables, expected %u",
                     cases[i].sw, cases[i].ratio, m.cables, access + 2 * cases[i].up);
      assert_near (m.oversubscription[1], g_ascii_strtod (cases[i].ratio, NULL), os);
      ck_assert_ptr_null (sim_topology_get_warnings (t)[0]);
    }
}
END_TEST

/* 3:1 on 64 nodes: 6 nodes and 16 uplinks a leaf (48:16) fill 10 leaves;
 * the 11th holds 4 nodes, 32 NICs, whose nearest whole number of uplinks
 * is 11 (32 / 11 = 2.91; 10 would give 3.2): the builder says so, naming
 * both shapes. */
START_TEST (test_oversubscription_warning)
{
  const char *cfg[] = { "topology=fat-tree", "switch=Quantum-2-QM9700", "oversubscription=3",
                        NULL };
  SimTopologyMetrics m;
  g_autoptr(SimTopology) t = must_build ("DGX-H100", 64, cfg, &m);
  const char * const *w = sim_topology_get_warnings (t);

  ck_assert_uint_eq (m.switches[1], 11);
  ck_assert_ptr_nonnull (w[0]);
  ck_assert_ptr_null (w[1]);
  ck_assert_msg (strstr (w[0], "oversubscription 3:1") != NULL, "%s", w[0]);
  ck_assert_msg (strstr (w[0], "10 leaves of 48 NIC ports and 16 uplinks (3:1)") != NULL, "%s",
                 w[0]);
  ck_assert_msg (strstr (w[0], "1 leaf of 32 NIC ports and 11 uplinks (2.91:1)") != NULL, "%s",
                 w[0]);
}
END_TEST

/* A dragonfly whose global links are given: 6 x DGX-H100, radix 16, 4
 * routers a group and 2 global links each leave 16 - 3 - 2 = 11 ports for
 * NICs, one node a router; 2 groups, every router's 2 global ports cabled
 * to the other group.  2:1 asked, 8 NIC ports over 2 global links built
 * (4:1) on the 6 routers with nodes: the builder says so.  Without
 * global_links it picks them for the ratio: 8 NIC ports and 4 global links,
 * the 2:1 asked, and no warning. */
START_TEST (test_dragonfly_oversubscription)
{
  const char *fixed[] = { "topology=dragonfly", "switch=Quantum-2-QM9700", "radix=16",
                          "routers_per_group=4", "global_links=2", "oversubscription=2",
                          NULL };
  const char *chosen[] = { "topology=dragonfly", "switch=Quantum-2-QM9700", "radix=16",
                           "routers_per_group=4", "oversubscription=2", NULL };
  SimTopologyMetrics m;
  g_autoptr(SimTopology) t = must_build ("DGX-H100", 6, fixed, &m);
  g_autoptr(SimTopology) t2 = NULL;
  const char * const *w = sim_topology_get_warnings (t);

  ck_assert_ptr_nonnull (w[0]);
  ck_assert_msg (strstr (w[0], "oversubscription 2:1 asked, but not every router") != NULL,
                 "%s", w[0]);
  ck_assert_msg (strstr (w[0], "6 routers of 8 NIC ports and 2 global links (4:1)") != NULL,
                 "%s", w[0]);
  t2 = must_build ("DGX-H100", 6, chosen, &m);
  ck_assert_ptr_null (sim_topology_get_warnings (t2)[0]);
  /* 8 routers of 2 groups, 4 global links each: 8 x 4 / 2 = 16 global
   * cables, 2 x 6 inside the groups, 48 to NICs. */
  ck_assert_uint_eq (m.switches[1], 8);
  ck_assert_uint_eq (m.cables, 48 + 12 + 16);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* The cabling plan and the bill of materials.
 *
 * What is checked: over fabrics of every kind, that the cables are the
 * summary's (sim_topology_get_counts(): as many cables and transceivers),
 * that the bill of materials adds up to the same switches, cables and
 * transceivers and to one NIC per node NIC, and that every device's ports
 * are numbered 1, 2, ... without a gap or a repeat and a switch uses at
 * most its radix; on a small fabric, every line of the bill and its
 * priced total by hand, and rows of the CSV; the length classes at their
 * bounds, and the cable length keys moving a cable from one to the next.
 * What is not asserted: which switch port a given NIC lands on beyond the
 * first and last rows checked by hand. */

static void
check_cables_against_counts (SimTopology *t, const SimFabricConfig *config, guint radix,
                             const char *label)
{
  SimTopologyMetrics m;
  g_autoptr(GArray) cables = sim_topology_get_cables (t, config);
  g_autoptr(GArray) bom = sim_topology_get_bom (t, config, NULL);
  guint nv = sim_topology_get_n_vertices (t);
  g_autofree guint *ports = g_new0 (guint, nv);
  g_autofree guint *top = g_new0 (guint, nv);
  guint transceivers = 0, nics = 0, sum[4] = { 0 };

  sim_topology_get_counts (t, &m);
  ck_assert_msg (cables->len == m.cables, "%s: %u cables, summary %u", label, cables->len,
                 m.cables);
  for (guint i = 0; i < cables->len; i++)
    {
      const SimCable *c = &g_array_index (cables, SimCable, i);
      transceivers += c->transceivers;
      ck_assert (c->transceivers == (c->optical ? 2u : 0u));
      ports[c->from]++;
      ports[c->to]++;
      top[c->from] = MAX (top[c->from], c->from_port);
      top[c->to] = MAX (top[c->to], c->to_port);
    }
  ck_assert_msg (transceivers == m.transceivers, "%s: %u transceivers, summary %u", label,
                 transceivers, m.transceivers);
  for (guint v = 0; v < nv; v++)
    {
      SimVertexKind k = sim_topology_get_vertex_kind (t, v);
      /* Ports numbered from 1 with no gap and no repeat: as many as the
       * highest number. */
      ck_assert_msg (ports[v] == top[v], "%s: vertex %u has %u cables, highest port %u", label,
                     v, ports[v], top[v]);
      if (k == SIM_VERTEX_NIC)
        {
          ck_assert_uint_le (ports[v], 1);
          nics += ports[v];
        }
      else if (k >= SIM_VERTEX_LEAF && k <= SIM_VERTEX_ROUTER)
        ck_assert_msg (ports[v] <= radix, "%s: switch %u uses %u of %u ports", label, v,
                       ports[v], radix);
    }
  for (guint i = 0; i < bom->len; i++)
    {
      const SimBomLine *b = &g_array_index (bom, SimBomLine, i);
      sum[b->kind] += b->count;
      ck_assert (b->unit_price_usd == 0);
      if (i > 0)
        ck_assert_int_le (g_array_index (bom, SimBomLine, i - 1).kind, b->kind);
    }
  ck_assert_msg (sum[SIM_BOM_SWITCH] == m.switches[0], "%s: %u switches billed, summary %u",
                 label, sum[SIM_BOM_SWITCH], m.switches[0]);
  ck_assert_uint_eq (sum[SIM_BOM_CABLE], m.cables);
  ck_assert_uint_eq (sum[SIM_BOM_TRANSCEIVER], m.transceivers);
  ck_assert_uint_eq (sum[SIM_BOM_NIC], nics);
}

START_TEST (test_cabling_counts)
{
  static const struct {
    const char *model;
    guint       nodes, radix;
    const char *lines[5];
  } cases[] = {
    { "DGX-H100", 4, 64, { "topology=single-switch", NULL } },
    { "DGX-H100", 64, 64, { "topology=fat-tree", "oversubscription=2", NULL } },
    { "DGX-H100", 64, 64, { "topology=fat-tree", "oversubscription=3", NULL } },
    { "DGX-H100", 16, 16, { "topology=fat-tree-3", NULL } },
    { "DGX-H100", 40, 24, { "topology=fat-tree-3", "oversubscription=2", NULL } },
    { "DGX-H100", 48, 64, { "topology=rail-optimized", "oversubscription=2", NULL } },
    { "DGX-H100", 6, 16, { "topology=dragonfly", "routers_per_group=4", "global_links=2",
                           NULL } },
    { "PCIe-8GPU", 30, 12, { "topology=dragonfly", "oversubscription=2", NULL } },
    { "PCIe-8GPU", 9, 8, { "topology=fat-tree", "access_cable_length=2m",
                           "cable_length=40m", NULL } },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(SimCluster) c = make_cluster (cases[i].model, cases[i].nodes);
      g_auto(SimFabricConfig) config = { 0 };
      g_autoptr(GError) error = NULL;
      g_autoptr(SimTopology) t = NULL;
      g_autofree char *label = g_strdup_printf ("%u x %s, %s radix %u", cases[i].nodes,
                                                cases[i].model, cases[i].lines[0],
                                                cases[i].radix);

      for (guint j = 0; cases[i].lines[j] != NULL; j++)
        {
          g_auto(GStrv) kv = g_strsplit (cases[i].lines[j], "=", 2);
          ck_assert (sim_fabric_config_set (&config, kv[0], kv[1], &error));
        }
      config.switch_model = g_strdup ("Quantum-2-QM9700");
      config.radix = cases[i].radix;
      t = sim_topology_new (c, catalogue, &config, &error);
      ck_assert_msg (t != NULL, "%s: %s", label, error ? error->message : "?");
      check_cables_against_counts (t, &config, cases[i].radix, label);
    }
}
END_TEST

/* 2 x DGX-H100 on a fat-tree of QM9700 cut to 16 ports, 2 m from NIC to
 * leaf and 20 m between switches; by hand: 2 leaves of one node (8 NICs,
 * 8 uplinks) and 1 spine taking all 16 uplinks.
 *   switch  2  Quantum-2-QM9700, leaf       $36,000
 *   switch  1  Quantum-2-QM9700, spine      $36,000
 *   cable  16  copper 400 Gb/s, <=3m        $500
 *   cable  16  optical 400 Gb/s, <=30m      $500
 *   transceiver 32  400 Gb/s                $1,000
 *   nic    16  IB-NDR 400 Gb/s              (with the nodes)
 * Total 3 x 36,000 + 32 x 500 + 32 x 1,000 = $156,000.  The CSV's first
 * row is node 0's NIC 0 on leaf 0's port 1; cable 17 is leaf 0's first
 * uplink, its port 9, on spine 0's port 1; cable 32, leaf 1's last uplink
 * (port 16) on spine 0's port 16. */
START_TEST (test_cabling_by_hand)
{
  const char *cfg[] = { "topology=fat-tree", "switch=Quantum-2-QM9700", "radix=16",
                        "access_cable_length=2m", "cable_length=20m", NULL };
  static const struct {
    SimBomKind  kind;
    const char *item;
    guint       count;
    double      price;
  } want[] = {
    { SIM_BOM_SWITCH, "Quantum-2-QM9700, leaf", 2, 36000 },
    { SIM_BOM_SWITCH, "Quantum-2-QM9700, spine", 1, 36000 },
    { SIM_BOM_CABLE, "copper 400 Gb/s, <=3m", 16, 500 },
    { SIM_BOM_CABLE, "optical 400 Gb/s, <=30m", 16, 500 },
    { SIM_BOM_TRANSCEIVER, "400 Gb/s", 32, 1000 },
    { SIM_BOM_NIC, "IB-NDR 400 Gb/s", 16, 0 },
  };
  g_autoptr(SimCluster) c = make_cluster ("DGX-H100", 2);
  g_auto(SimFabricConfig) config = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(SimTopology) t = NULL;
  g_autoptr(GArray) bom = NULL;
  g_autofree char *csv = NULL;
  g_auto(GStrv) rows = NULL;
  SimBomPrices prices = { 36000, 500, 1000 };
  double total = 0;

  for (guint j = 0; cfg[j] != NULL; j++)
    {
      g_auto(GStrv) kv = g_strsplit (cfg[j], "=", 2);
      ck_assert (sim_fabric_config_set (&config, kv[0], kv[1], &error));
    }
  t = sim_topology_new (c, catalogue, &config, &error);
  ck_assert_msg (t != NULL, "%s", error ? error->message : "?");
  bom = sim_topology_get_bom (t, &config, &prices);
  ck_assert_uint_eq (bom->len, G_N_ELEMENTS (want));
  for (guint i = 0; i < bom->len; i++)
    {
      const SimBomLine *b = &g_array_index (bom, SimBomLine, i);
      ck_assert_int_eq (b->kind, want[i].kind);
      ck_assert_str_eq (b->description, want[i].item);
      ck_assert_uint_eq (b->count, want[i].count);
      ck_assert (b->unit_price_usd == want[i].price);
      total += b->count * b->unit_price_usd;
    }
  ck_assert (total == 156000);

  csv = sim_topology_format_cabling (t, &config);
  rows = g_strsplit (csv, "\n", -1);
  ck_assert_uint_eq (g_strv_length (rows), 1 + 32 + 1);   /* header, cables, the last "" */
  ck_assert_str_eq (rows[0], "cable,from_device,from_port,to_device,to_port,tier,speed_gbps,"
                             "medium,length_m,length_class,transceivers,link_model");
  ck_assert_str_eq (rows[1], "1,node0/nic0,1,leaf0,1,access,400,copper,2,<=3m,0,IB-NDR");
  ck_assert_str_eq (rows[16], "16,node1/nic7,1,leaf1,8,access,400,copper,2,<=3m,0,IB-NDR");
  ck_assert_str_eq (rows[17],
                    "17,leaf0,9,spine0,1,aggregation,400,optical,20,<=30m,2,IB-NDR");
  ck_assert_str_eq (rows[32],
                    "32,leaf1,16,spine0,16,aggregation,400,optical,20,<=30m,2,IB-NDR");
  ck_assert_str_eq (rows[33], "");
  {
    g_autofree char *name = sim_topology_dup_device_name (t, sim_topology_get_gpu_vertex (t, 9));
    ck_assert_str_eq (name, "node1/gpu1");
  }
}
END_TEST

/* Length classes at their bounds, and the [fabric] length keys moving the
 * cables they set (and only those) into the next class. */
START_TEST (test_cable_length_classes)
{
  static const struct {
    double      metres;
    const char *cls;
  } cases[] = {
    { 0, "unspecified" }, { -1, "unspecified" }, { 0.5, "<=3m" }, { 3, "<=3m" },
    { 3.5, "<=5m" }, { 5, "<=5m" }, { 5.1, "<=30m" }, { 30, "<=30m" }, { 31, "<=100m" },
    { 100, "<=100m" }, { 101, "<=500m" }, { 500, "<=500m" }, { 501, "<=2km" },
    { 2000, "<=2km" }, { 2001, "<=10km" }, { 10000, "<=10km" }, { 10001, ">10km" },
  };
  g_autoptr(SimCluster) c = make_cluster ("DGX-H100", 2);
  SimFabricConfig config = { .kind = SIM_FABRIC_FAT_TREE, .radix = 16,
                             .access_cable_length = 3, .cable_length = 100 };
  g_autoptr(SimTopology) t = sim_topology_new (c, catalogue, &config, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    ck_assert_str_eq (sim_cable_length_class (cases[i].metres), cases[i].cls);
  ck_assert_ptr_nonnull (t);
  for (guint step = 0; step < 3; step++)
    {
      g_autoptr(GArray) cables = NULL;
      if (step == 1)
        config.access_cable_length = 4;   /* access cables to <=5m */
      if (step == 2)
        config.cable_length = 150;        /* the others to <=500m */
      cables = sim_topology_get_cables (t, &config);
      for (guint i = 0; i < cables->len; i++)
        {
          const SimCable *k = &g_array_index (cables, SimCable, i);
          const char *cls = sim_cable_length_class (k->length_m);
          if (k->tier == SIM_TIER_ACCESS)
            ck_assert_str_eq (cls, step >= 1 ? "<=5m" : "<=3m");
          else
            ck_assert_str_eq (cls, step >= 2 ? "<=500m" : "<=100m");
        }
    }
}
END_TEST

/* Writing the plan: to a file, read back equal to the text; to a directory
 * that does not exist, an error naming the path and no file. */
START_TEST (test_cabling_write)
{
  g_autoptr(SimCluster) c = make_cluster ("DGX-H100", 2);
  SimFabricConfig config = { .kind = SIM_FABRIC_SINGLE_SWITCH, .radix = 16 };
  g_autoptr(SimTopology) t = sim_topology_new (c, catalogue, &config, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("gpusim-cabling-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "cables.csv", NULL);
  g_autofree char *bad = g_build_filename (dir, "missing", "cables.csv", NULL);
  g_autofree char *want = NULL, *got = NULL;

  ck_assert_ptr_nonnull (t);
  ck_assert (sim_topology_write_cabling (t, &config, path, &error));
  want = sim_topology_format_cabling (t, &config);
  ck_assert (g_file_get_contents (path, &got, NULL, NULL));
  ck_assert_str_eq (got, want);
  ck_assert (!sim_topology_write_cabling (t, &config, bad, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_IO));
  ck_assert_msg (strstr (error->message, bad) != NULL, "%s", error->message);
  ck_assert (!g_file_test (bad, G_FILE_TEST_EXISTS));
  g_unlink (path);
  g_rmdir (dir);
}
END_TEST

static Suite *
fabric_suite (void)
{
  Suite *s = suite_create ("fabric");
  TCase *tc = tcase_create ("topologies");
  TCase *bad = tcase_create ("errors");

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_single_switch);
  tcase_add_test (tc, test_fat_tree_2to1);
  tcase_add_test (tc, test_dmodk_spines);
  tcase_add_test (tc, test_fat_tree_nonblocking);
  tcase_add_test (tc, test_fat_tree_1024);
  tcase_add_test (tc, test_rail_optimized);
  tcase_add_test (tc, test_fat_tree_3);
  tcase_add_test (tc, test_dragonfly);
  tcase_add_test (tc, test_dragonfly_groups);
  tcase_add_test (tc, test_intra_node);
  tcase_add_test (tc, test_no_fabric);
  tcase_add_test (tc, test_diameter_structure);
  tcase_add_test (tc, test_tcp_latency);
  tcase_add_test (tc, test_latency_keys);
  tcase_add_test (tc, test_diagram);
  tcase_add_test (tc, test_diagram_rails);
  tcase_add_test (tc, test_node_diagram);
  tcase_add_test (tc, test_metrics_in_threads);
  tcase_add_test (tc, test_whole_nodes);
  tcase_add_test (tc, test_rail_optimized_3);
  tcase_add_test (tc, test_rail_optimized_3_whole_groups);
  tcase_add_test (tc, test_rail_optimized_3_beyond_two);
  tcase_add_test (tc, test_leaf_plans);
  tcase_add_test (tc, test_leaf_plans_by_bandwidth);
  tcase_add_test (tc, test_oversubscription_warning);
  tcase_add_test (tc, test_dragonfly_oversubscription);
  tcase_add_test (tc, test_cabling_counts);
  tcase_add_test (tc, test_cabling_by_hand);
  tcase_add_test (tc, test_cable_length_classes);
  tcase_add_test (tc, test_cabling_write);
  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (bad, setup, teardown);
  tcase_add_loop_test (bad, test_bad_fabric, 0, G_N_ELEMENTS (bad_fabrics));
  tcase_add_test (bad, test_oversubscription_below_one);
  tcase_add_test (bad, test_config_keys);
  tcase_add_test (bad, test_latency_key_errors);
  suite_add_tcase (s, bad);
  return s;
}

int
main (void)
{
  SRunner *runner = srunner_create (fabric_suite ());
  int failed;

  srunner_run_all (runner, CK_NORMAL);
  failed = srunner_ntests_failed (runner);
  srunner_free (runner);
  return failed == 0 ? 0 : 1;
}

/* check-routing.c: how the fabric's routing mode and NCCL-style rings set
 * the bandwidth of collectives across nodes.
 *
 * What it checks, on DGX H100 nodes (8 GPUs, 8 NDR NICs, GPU i on NIC i)
 * and Quantum-2 switches, with 1 GiB ring all-reduce:
 * - D-mod-K (the InfiniBand default) keeps a ring at the per-node NIC
 *   bound on 1:1 two- and three-tier fat-trees of 2 to 64 nodes, the bound
 *   being what two nodes reach (models/SOURCES.md B1: 370-390 GB/s busbw for
 *   two DGX H100 over 8 x NDR; 46-49 GB/s per NDR NIC);
 * - rail-optimized equals fat-tree (the ring's node-to-node edges join
 *   NICs of one index, so they stay on one rail);
 * - on 2:1 and 4:1 a ring alone keeps the bound, and drops only when a
 *   second job's flows share its uplinks, by the amount worked out below;
 * - each routing mode: ECMP collides where D-mod-K does not, spraying
 *   reaches the bound and pools oversubscribed uplinks, adaptive routing
 *   steers a second job off the uplinks the first one loads;
 * - the default mode by link kind, and the errors.
 *
 * The model's numbers (sim-collective.h): every ring edge of the 8
 * channels carries 2(n-1)/n x S / 8; the nodes' NICs are the narrowest
 * links (NDR: 50 GB/s x 0.95 = 47.5 GB/s usable; NVLink4 and PCIe Gen5
 * are wider per flow), so with one flow per link a ring's bus bandwidth
 * is 8 x 47.5 = 380 GB/s, and with k flows on its most shared link
 * 380 / k (max-min fair: each of the k gets 47.5 / k, and the ring moves
 * at its slowest edge).
 *
 * What it does not assert: the latency term (NCCL's per-step constants,
 * which grow with the GPU count and are tested in check-collective.c): the
 * scaling checks below use the bandwidth term, busbw with the
 * size-independent time removed, at the Simple protocol's full bandwidth
 * (the model's LL128 moves 92 % of it; the tuner may pick LL128 at 1 GiB
 * on many nodes).  Nor which uplink a given ECMP hash picks.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <string.h>
#include <sim.h>
#include "core/sim-maxmin.h"
#include "fabric/sim-topology.h"
#include "fabric/sim-collective.h"

#define GiB ((guint64) 1 << 30)
/* 8 NDR NICs of 47.5 GB/s usable each. */
#define NIC_BOUND 380.0

static SimCatalogue *catalogue;

typedef struct {
  SimCluster   *cluster;
  SimTopology  *topology;
  SimCommModel *comm;
} Setup;

static void
setup (void)
{
  g_autoptr(GError) error = NULL;
  catalogue = sim_catalogue_new_default (NULL, &error);
  ck_assert_msg (catalogue != NULL, "%s", error ? error->message : "");
}

static void
teardown (void)
{
  g_clear_pointer (&catalogue, sim_catalogue_free);
}

/* @nodes DGX H100 on the fabric of @lines ("key=value"). */
static void
make (Setup *s, guint nodes, const char * const *lines)
{
  g_autoptr(GError) error = NULL;
  g_auto(SimFabricConfig) config = { 0 };

  s->cluster = sim_cluster_new ();
  ck_assert (sim_cluster_add_pool (s->cluster, "p", sim_catalogue_lookup_node (catalogue,
                                                                               "DGX-H100"),
                                   NULL, 0, nodes, &error));
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) kv = g_strsplit (lines[i], "=", 2);
      ck_assert_msg (sim_fabric_config_set (&config, kv[0], kv[1], &error), "%s: %s",
                     lines[i], error ? error->message : "");
    }
  s->topology = sim_topology_new (s->cluster, catalogue, &config, &error);
  ck_assert_msg (s->topology != NULL, "%s", error ? error->message : "");
  s->comm = sim_comm_model_new (s->topology, s->cluster);
}

static void
clear (Setup *s)
{
  sim_comm_model_free (s->comm);
  sim_topology_free (s->topology);
  sim_cluster_free (s->cluster);
}

/* The GPUs of @n_nodes whole nodes, in node order. */
static guint
gpus_of (const guint *nodes, guint n_nodes, guint32 *gpus)
{
  guint n = 0;
  for (guint i = 0; i < n_nodes; i++)
    for (guint k = 0; k < 8; k++)
      gpus[n++] = nodes[i] * 8 + k;
  return n;
}

/* Bus bandwidth of @t's bandwidth term at the Simple protocol, GB/s. */
static double
bandwidth_term (const SimCollectiveTiming *t, guint n)
{
  static const double proto[] = { 0.5, 0.92, 1.0 };
  return t->bandwidth / proto[t->protocol] * sim_collective_busbw_factor (t->op, n) / 1e9;
}

/* 1 GiB ring all-reduce on @n_nodes whole nodes, given what is registered. */
static void
ring_time (Setup *s, const guint *nodes, guint n_nodes, SimCollectiveTiming *t)
{
  g_autoptr(GError) error = NULL;
  guint32 gpus[512];
  guint n = gpus_of (nodes, n_nodes, gpus);

  ck_assert_msg (sim_collective_time (s->comm, SIM_COLLECTIVE_ALL_REDUCE,
                                      SIM_COLLECTIVE_ALGO_RING, GiB, gpus, n, t, &error), "%s",
                 error ? error->message : "");
}

/* Registers a 1 GiB ring all-reduce job on @n_nodes whole nodes. */
static guint
ring_add (Setup *s, const guint *nodes, guint n_nodes)
{
  g_autoptr(GError) error = NULL;
  guint32 gpus[512];
  guint n = gpus_of (nodes, n_nodes, gpus);
  guint id = sim_comm_model_add (s->comm, SIM_COLLECTIVE_ALL_REDUCE, SIM_COLLECTIVE_ALGO_RING,
                                 GiB, gpus, n, &error);
  ck_assert_msg (id > 0, "%s", error ? error->message : "");
  return id;
}

/* Bandwidth term of a registered job, GB/s. */
static double
job_busbw (Setup *s, guint id, guint n_nodes)
{
  SimCollectiveTiming t;
  ck_assert (sim_comm_model_estimate (s->comm, id, GiB, &t));
  return bandwidth_term (&t, 8 * n_nodes);
}

static double
alone_busbw (Setup *s, guint n_nodes, double *whole)
{
  guint nodes[64];
  SimCollectiveTiming t;

  for (guint i = 0; i < n_nodes; i++)
    nodes[i] = i;
  ring_time (s, nodes, n_nodes, &t);
  if (whole != NULL)
    *whole = t.busbw / 1e9;
  return bandwidth_term (&t, 8 * n_nodes);
}

static void
assert_gbs (double got, double want, double tolerance, const char *what)
{
  ck_assert_msg (fabs (got - want) <= tolerance * want, "%s: %.2f GB/s, expected %.2f within "
                 "%.1f %%", what, got, want, 100 * tolerance);
}

static const guint sizes[] = { 2, 4, 8, 16, 32, 64 };

/* Two-tier 1:1 fat-tree of QM9700 (radix 64: 32 NICs down, 32 uplinks
 * per leaf, so 4 nodes per leaf; 64 nodes take 16 leaves and 8 spines).
 * A ring crosses from the last node of a leaf to the first of the next:
 * 8 flows, one per channel, into NICs 32(L+1) + x for eight different x,
 * so D-mod-K sends them up uplinks x = D mod 32 and down the mirror links:
 * no link carries two, and every size gets 380 GB/s, equal to two nodes
 * (on one leaf).  The whole busbw, latency included, is 379 GB/s on two
 * nodes (models/SOURCES.md B1: 370-390 GB/s over 8 x NDR) and stays within
 * 10 % of it up to 64 nodes (the ring's per-step
 * latencies hide behind its bytes while a step moves more than its latency
 * is worth: 1 GiB over 512 GPUs still does, barely, on its network steps). */
START_TEST (test_fat_tree_scaling)
{
  const char *cfg[] = { "topology=fat-tree", "switch=Quantum-2-QM9700", NULL };
  double two = 0, two_whole = 0;

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      Setup s;
      char what[64];
      double bw, whole;

      make (&s, sizes[i], cfg);
      ck_assert_int_eq (sim_topology_get_routing (s.topology), SIM_ROUTING_DMODK);
      bw = alone_busbw (&s, sizes[i], &whole);
      if (i == 0)
        {
          guint nodes[2] = { 0, 1 };
          SimCollectiveTiming t;
          two = bw;
          two_whole = whole;
          ring_time (&s, nodes, 2, &t);
          assert_gbs (t.busbw / 1e9, 380, 0.05, "2 x DGX H100 busbw (B1: 370-390)");
        }
      g_snprintf (what, sizeof what, "%u nodes, 2-tier 1:1", sizes[i]);
      assert_gbs (bw, NIC_BOUND, 0.001, what);
      assert_gbs (bw, two, 0.10, what);
      g_snprintf (what, sizeof what, "%u nodes, 2-tier 1:1, whole busbw", sizes[i]);
      assert_gbs (whole, two_whole, 0.10, what);
      clear (&s);
    }
}
END_TEST

/* Three-tier 1:1 fat-tree, QM9700 cut to radix 16 so that 64 nodes need
 * the core: 8 down and 8 up per leaf (one node per leaf), pods of 8
 * leaves with 8 spines each, core group j joining spine j of every pod.
 * Node m to node m + 1: NIC D = 8(m+1) + x leaves leaf m by uplink
 * D mod 8 = x (eight spines for eight channels); across pods, spine x
 * goes up by uplink (D / 8) mod 8 and meets the destination's own way up
 * at the same core, then follows it down.  No link carries two flows:
 * 380 GB/s at every size. */
START_TEST (test_fat_tree_3_scaling)
{
  const char *cfg[] = { "topology=fat-tree-3", "switch=Quantum-2-QM9700", "radix=16", NULL };
  double two = 0, two_whole = 0;

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      Setup s;
      char what[64];
      double bw, whole;
      SimTopologyMetrics m;

      make (&s, sizes[i], cfg);
      sim_topology_get_counts (s.topology, &m);
      if (sizes[i] == 64)
        ck_assert_uint_gt (m.switches[3], 0);
      bw = alone_busbw (&s, sizes[i], &whole);
      if (i == 0)
        {
          two = bw;
          two_whole = whole;
        }
      g_snprintf (what, sizeof what, "%u nodes, 3-tier 1:1", sizes[i]);
      assert_gbs (bw, NIC_BOUND, 0.001, what);
      assert_gbs (bw, two, 0.10, what);
      g_snprintf (what, sizeof what, "%u nodes, 3-tier 1:1, whole busbw", sizes[i]);
      assert_gbs (whole, two_whole, 0.10, what);
      clear (&s);
    }
}
END_TEST

/* Rail-optimized against fat-tree: the ring's edges between nodes join
 * NICs of one index, so on rails they never leave a rail leaf: 2 nodes
 * (and 16) get the fat-tree's bandwidth, under any routing, and no more
 * latency.  And the
 * rail leaves' uplinks go unused: at 8:1 (radix 64: 7 up, 56 down; 16
 * NICs per rail leaf get ceil(16 / 8) = 2 uplinks) the ring still gets
 * 380 GB/s, where a ring whose edges changed rail (NIC x to NIC x + 1)
 * would send 16 flows up each rail leaf's 2 uplinks, 8 per uplink:
 * 380 / 8 = 47.5 GB/s. */
START_TEST (test_rail_equals_fat_tree)
{
  const char *ft[] = { "topology=fat-tree", "switch=Quantum-2-QM9700", NULL };
  const char *rail[] = { "topology=rail-optimized", "switch=Quantum-2-QM9700", NULL };
  const char *rail_ecmp[] = { "topology=rail-optimized", "switch=Quantum-2-QM9700",
                              "routing=ecmp", NULL };
  const guint counts[] = { 2, 16 };

  for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
    {
      Setup a, b, c;
      guint nodes[16];
      SimCollectiveTiming ta, tb, tc;

      for (guint k = 0; k < counts[i]; k++)
        nodes[k] = k;
      make (&a, counts[i], ft);
      make (&b, counts[i], rail);
      make (&c, counts[i], rail_ecmp);
      ring_time (&a, nodes, counts[i], &ta);
      ring_time (&b, nodes, counts[i], &tb);
      ring_time (&c, nodes, counts[i], &tc);
      /* The same bandwidth; rail routes take one switch where the
       * fat-tree's cross spines past 4 nodes, so rails are never slower. */
      ck_assert_double_eq_tol (bandwidth_term (&tb, 8 * counts[i]),
                               bandwidth_term (&ta, 8 * counts[i]), 1e-9 * NIC_BOUND);
      ck_assert_double_le (tb.time, ta.time);
      ck_assert_double_eq_tol (tc.time, tb.time, 1e-9 * tb.time);
      assert_gbs (bandwidth_term (&tb, 8 * counts[i]), NIC_BOUND, 0.001, "rail-optimized");
      clear (&a);
      clear (&b);
      clear (&c);
    }
  {
    const char *thin[] = { "topology=rail-optimized", "switch=Quantum-2-QM9700",
                           "oversubscription=8:1", NULL };
    Setup s;
    SimTopologyMetrics m;

    make (&s, 16, thin);
    sim_topology_get_counts (s.topology, &m);
    ck_assert_uint_eq (m.switches[1], 8);
    ck_assert (m.oversubscription[1] >= 7.9);
    assert_gbs (alone_busbw (&s, 16, NULL), NIC_BOUND, 0.001, "rail-optimized 8:1, 16 nodes");
    clear (&s);
  }
}
END_TEST

/* Oversubscription costs only when jobs share uplinks.  Two 4-node jobs,
 * A and B, each straddling two leaves (whole nodes, D-mod-K):
 * - 2:1, radix 48: 16 uplinks per leaf, 4 nodes per leaf.  A on nodes
 *   2-5 crosses 3 -> 4 into NICs 32 + x (x = 0..7, one per channel) and
 *   5 -> 2 into NICs 16 + x; B on nodes 0, 1, 6, 7 crosses 1 -> 6 into
 *   NICs 48 + x and 7 -> 0 into NICs x.  Uplinks D mod 16: A's and B's
 *   are the same eight, x, on both leaves: two flows per uplink, 47.5 / 2
 *   each, busbw 8 x 23.75 = 190 GB/s for each job.  Alone, A has eight
 *   uplinks to itself: 380.
 * - 4:1, radix 64: 12 uplinks, 6 nodes per leaf.  A on nodes 4-7 crosses
 *   5 -> 6 (NICs 48 + x: uplinks x) and 7 -> 4 (NICs 32 + x: uplinks
 *   8 + x mod 12); B on 0, 1, 8, 9 crosses 1 -> 8 (NICs 64 + x: uplinks
 *   4 + x) and 9 -> 0 (NICs x: uplinks x).  Leaf 0's uplinks 4-7 and leaf
 *   1's 0-3 carry one flow of each: 190 GB/s each; alone, 380.
 * - 1:1, radix 64: 32 uplinks, 4 nodes per leaf, the 2:1 placement:
 *   A's uplinks are x and 16 + x, B's 16 + x and x on the other leaf:
 *   never shared, 380 each. */
START_TEST (test_oversubscription_needs_other_jobs)
{
  const struct {
    const char *radix, *oversub;
    guint a[4], b[4];
    double together;
  } cases[] = {
    { "radix=48", "oversubscription=2:1", { 2, 3, 4, 5 }, { 0, 1, 6, 7 }, 190 },
    { "radix=64", "oversubscription=4:1", { 4, 5, 6, 7 }, { 0, 1, 8, 9 }, 190 },
    { "radix=64", "oversubscription=1:1", { 2, 3, 4, 5 }, { 0, 1, 6, 7 }, 380 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *cfg[] = { "topology=fat-tree", "switch=Quantum-2-QM9700", cases[i].radix,
                            cases[i].oversub, NULL };
      Setup s;
      guint ia, ib;

      make (&s, 16, cfg);
      ia = ring_add (&s, cases[i].a, 4);
      assert_gbs (job_busbw (&s, ia, 4), NIC_BOUND, 0.001, "A alone");
      ib = ring_add (&s, cases[i].b, 4);
      assert_gbs (job_busbw (&s, ia, 4), cases[i].together, 0.001, cases[i].oversub);
      assert_gbs (job_busbw (&s, ib, 4), cases[i].together, 0.001, cases[i].oversub);
      ck_assert (sim_comm_model_remove (s.comm, ib));
      assert_gbs (job_busbw (&s, ia, 4), NIC_BOUND, 0.001, "A alone again");
      clear (&s);
    }
}
END_TEST

/* ECMP against D-mod-K on 5 nodes of the 1:1 two-tier fat-tree (leaf 0:
 * nodes 0-3, leaf 1: node 4).  The ring crosses 3 -> 4 and 4 -> 0, eight
 * flows each way.  D-mod-K: uplinks D mod 32 of eight different D, 380.
 * ECMP hashes each flow to one of 32 uplinks (and of the spines' links
 * down): the chance that eight flows miss each other is
 * 32!/(24! 32^8) = 0.39 per leaf, and the busbw is 380 / k with k the
 * most flows on one link.  This placement's hashes put k = 3 on one link
 * (deterministic: the same flows hash the same way): 126.7 GB/s.  On a
 * rail-optimized fabric the same ring stays on its rails, and ECMP has
 * nothing to collide on (test_rail_equals_fat_tree). */
START_TEST (test_ecmp_collides)
{
  const char *dmodk[] = { "topology=fat-tree", "switch=Quantum-2-QM9700", "routing=dmodk", NULL };
  const char *ecmp[] = { "topology=fat-tree", "switch=Quantum-2-QM9700", "routing=ecmp", NULL };
  Setup a, b;
  double bw_d, bw_e, k;

  make (&a, 5, dmodk);
  make (&b, 5, ecmp);
  ck_assert_int_eq (sim_topology_get_routing (b.topology), SIM_ROUTING_ECMP);
  bw_d = alone_busbw (&a, 5, NULL);
  bw_e = alone_busbw (&b, 5, NULL);
  assert_gbs (bw_d, NIC_BOUND, 0.001, "D-mod-K, 5 nodes");
  /* A whole number of flows share the busiest link. */
  k = NIC_BOUND / bw_e;
  ck_assert_msg (k >= 1.999 && fabs (k - round (k)) < 1e-3, "ECMP: 380 / %.4f", k);
  assert_gbs (bw_e, NIC_BOUND / 3, 0.001, "ECMP, 5 nodes");
  clear (&a);
  clear (&b);
}
END_TEST

/* Packet spraying: the flows of a leaf share its pooled uplinks.
 * - The ECMP placement above (5 nodes, 1:1): eight flows over 32 pooled
 *   uplinks, 380 GB/s, as D-mod-K.
 * - 4:1 with both jobs of the oversubscription test: 16 flows leave leaf
 *   0 over 12 uplinks of 47.5 GB/s pooled: 12 x 47.5 / 16 = 35.625 GB/s
 *   each, busbw 8 x 35.625 = 285 GB/s each, where D-mod-K's fixed paths
 *   give 190. */
START_TEST (test_spray)
{
  const char *five[] = { "topology=fat-tree", "switch=Quantum-2-QM9700", "routing=spray", NULL };
  const char *four[] = { "topology=fat-tree", "switch=Quantum-2-QM9700", "radix=64",
                         "oversubscription=4:1", "routing=spray", NULL };
  const guint a[4] = { 4, 5, 6, 7 }, b[4] = { 0, 1, 8, 9 };
  Setup s;
  guint ia, ib;

  make (&s, 5, five);
  ck_assert_int_eq (sim_topology_get_routing (s.topology), SIM_ROUTING_SPRAY);
  ck_assert_uint_gt (sim_topology_get_n_resources (s.topology),
                     2 * sim_topology_get_n_links (s.topology));
  assert_gbs (alone_busbw (&s, 5, NULL), NIC_BOUND, 0.001, "spray, 5 nodes");
  clear (&s);

  make (&s, 16, four);
  ia = ring_add (&s, a, 4);
  assert_gbs (job_busbw (&s, ia, 4), NIC_BOUND, 0.001, "spray, A alone");
  ib = ring_add (&s, b, 4);
  assert_gbs (job_busbw (&s, ia, 4), 285, 0.001, "spray 4:1, A with B");
  assert_gbs (job_busbw (&s, ib, 4), 285, 0.001, "spray 4:1, B with A");
  clear (&s);
}
END_TEST

/* Adaptive routing at registration, on the 2:1 case of the
 * oversubscription test: A (nodes 2-5) registers first and takes uplinks
 * x = 0..7 of both leaves (the D-mod-K choice, nothing loaded yet).  B's
 * flows then find those loaded and take eight of the other eight uplinks
 * (and downlinks): no link carries two flows, 380 GB/s each, where
 * D-mod-K gives 190.  At 4:1 (12 uplinks for 16 flows) four uplinks must
 * carry two whatever the choice: 190 each, adaptive or not. */
START_TEST (test_adaptive)
{
  const char *two[] = { "topology=fat-tree", "switch=Quantum-2-QM9700", "radix=48",
                        "oversubscription=2:1", "routing=adaptive", NULL };
  const char *four[] = { "topology=fat-tree", "switch=Quantum-2-QM9700", "radix=64",
                         "oversubscription=4:1", "routing=adaptive", NULL };
  const guint a2[4] = { 2, 3, 4, 5 }, b2[4] = { 0, 1, 6, 7 };
  const guint a4[4] = { 4, 5, 6, 7 }, b4[4] = { 0, 1, 8, 9 };
  Setup s;
  guint ia, ib;

  make (&s, 16, two);
  ck_assert_int_eq (sim_topology_get_routing (s.topology), SIM_ROUTING_ADAPTIVE);
  ia = ring_add (&s, a2, 4);
  ib = ring_add (&s, b2, 4);
  assert_gbs (job_busbw (&s, ia, 4), NIC_BOUND, 0.001, "adaptive 2:1, A");
  assert_gbs (job_busbw (&s, ib, 4), NIC_BOUND, 0.001, "adaptive 2:1, B");
  /* B leaves and comes back: its flows find the same free uplinks. */
  ck_assert (sim_comm_model_remove (s.comm, ib));
  ib = ring_add (&s, b2, 4);
  assert_gbs (job_busbw (&s, ib, 4), NIC_BOUND, 0.001, "adaptive 2:1, B again");
  clear (&s);

  make (&s, 16, four);
  ia = ring_add (&s, a4, 4);
  ib = ring_add (&s, b4, 4);
  assert_gbs (job_busbw (&s, ia, 4), 190, 0.001, "adaptive 4:1, A");
  assert_gbs (job_busbw (&s, ib, 4), 190, 0.001, "adaptive 4:1, B");
  clear (&s);
}
END_TEST

/* The default follows the link kind: InfiniBand (the DGX H100's IB-NDR)
 * D-mod-K, RoCE ECMP; an explicit key wins.  Spraying needs a tree. */
START_TEST (test_defaults_and_errors)
{
  const char *ib[] = { "topology=fat-tree", "switch=Quantum-2-QM9700", NULL };
  const char *roce[] = { "topology=fat-tree", "switch=Spectrum-4-SN5400", "link=RoCE-400G",
                         NULL };
  const char *roce_spray[] = { "topology=fat-tree", "switch=Spectrum-4-SN5400",
                               "link=RoCE-400G", "routing=spray", NULL };
  g_autoptr(GError) error = NULL;
  g_auto(SimFabricConfig) config = { 0 };
  g_autoptr(SimCluster) cluster = sim_cluster_new ();
  Setup s;

  make (&s, 2, ib);
  ck_assert_int_eq (sim_topology_get_routing (s.topology), SIM_ROUTING_DMODK);
  clear (&s);
  make (&s, 2, roce);
  ck_assert_int_eq (sim_topology_get_routing (s.topology), SIM_ROUTING_ECMP);
  clear (&s);
  make (&s, 2, roce_spray);
  ck_assert_int_eq (sim_topology_get_routing (s.topology), SIM_ROUTING_SPRAY);
  clear (&s);

  ck_assert (sim_cluster_add_pool (cluster, "p", sim_catalogue_lookup_node (catalogue,
                                                                            "DGX-H100"),
                                   NULL, 0, 4, &error));
  ck_assert (sim_fabric_config_set (&config, "topology", "dragonfly", NULL));
  ck_assert (sim_fabric_config_set (&config, "switch", "Quantum-2-QM9700", NULL));
  ck_assert (sim_fabric_config_set (&config, "routing", "spray", NULL));
  ck_assert_ptr_null (sim_topology_new (cluster, catalogue, &config, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  ck_assert (strstr (error->message, "spray needs a tree fabric") != NULL);
  g_clear_error (&error);

  /* A dragonfly routes with the other modes. */
  ck_assert (sim_fabric_config_set (&config, "routing", "dmodk", NULL));
  {
    g_autoptr(SimTopology) t = sim_topology_new (cluster, catalogue, &config, &error);
    g_autoptr(GArray) path = g_array_new (FALSE, FALSE, sizeof (guint32));
    ck_assert_msg (t != NULL, "%s", error ? error->message : "");
    ck_assert (sim_topology_route (t, 0, 31, 0, path, NULL));
    ck_assert_uint_ge (path->len, 4);
  }

  ck_assert (!sim_routing_from_string ("ecmpp", &config.routing, &error));
  ck_assert (strstr (error->message, "did you mean \"ecmp\"") != NULL);
}
END_TEST

static Suite *
routing_suite (void)
{
  Suite *s = suite_create ("routing");
  TCase *tc = tcase_create ("rings");

  tcase_set_timeout (tc, 120);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_fat_tree_scaling);
  tcase_add_test (tc, test_fat_tree_3_scaling);
  tcase_add_test (tc, test_rail_equals_fat_tree);
  tcase_add_test (tc, test_oversubscription_needs_other_jobs);
  tcase_add_test (tc, test_ecmp_collides);
  tcase_add_test (tc, test_spray);
  tcase_add_test (tc, test_adaptive);
  tcase_add_test (tc, test_defaults_and_errors);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *r = srunner_create (routing_suite ());
  int failed;

  srunner_run_all (r, CK_NORMAL);
  failed = srunner_ntests_failed (r);
  srunner_free (r);
  return failed == 0 ? 0 : 1;
}

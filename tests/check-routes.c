/* check-routes.c: the shortcuts of sim_topology_route_via() against the
 * search they stand for (libsim/fabric/sim-topology.c).
 *
 * What is checked: on small clusters of every node layout (NVSwitch with a
 * NIC per GPU and with fewer NICs than GPUs, where the way from a GPU to a
 * NIC depends on the flow hash; a PCIe tree; a full mesh with one NIC per
 * GPU and with fewer) over every fabric kind and every routing mode it
 * allows, the route between every ordered pair of GPUs, for several flow
 * hashes, leaving by the sending GPU's NIC and by another GPU's, with a
 * load for adaptive routing, is the same (resources in the same order,
 * latency, success) as on a twin topology told to route by search alone
 * (sim__topology_set_search()): routes inside nodes copied from what is
 * kept for their model, D-mod-K's kept ways up, and, on the dragonfly,
 * walks towards the destination's switch over the links between switches,
 * by hop distances taken from the dragonfly's structure (its groups and
 * global links), against walks towards the destination NIC over the whole
 * graph by the distances of a breadth-first search.  Dragonflies of many
 * shapes are compared (test_dragonfly_shapes), each in every routing mode
 * it takes.  Each pair is routed twice on the fast twin, so that both the
 * first route (which fills what is kept) and the copies are compared.
 * Where the first pass says a route depends on its two GPUs alone
 * (sim__topology_route_fixed(), which lets the collectives route once
 * the flows between the same GPUs), every other hash, with and without a
 * load, must give that route.
 *
 * What is not checked here: that the search's routes are the right ones
 * (check-fabric.c and check-routing.c do).
 */
#include "config.h"

#include <check.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "core/sim-error.h"
#include "cluster/sim-catalogue.h"
#include "cluster/sim-cluster.h"
#include "fabric/sim-topology.h"
#include "fabric/sim-topology-private.h"

#ifndef SIM_TOP_SRCDIR
#error "SIM_TOP_SRCDIR must be defined by the build"
#endif

#define MODELDIR SIM_TOP_SRCDIR "/models"

/* Two node models the catalogue lacks: an NVSwitch node with half as many
 * NICs as GPUs (GPUs 2i and 2i + 1 share NIC i, so a GPU's way to its
 * NIC through the NVSwitch has two next hops, picked by the hash) and an
 * Infinity Fabric mesh with three NICs for eight GPUs, and a node of one
 * GPU and one NIC, so that every pair of GPUs routes over the network. */
static const char *const extra_models[] = {
  "[node]\n"
  "name = NVS-4NIC\n"
  "gpu = H100-SXM\n"
  "gpus = 8\n"
  "intra_node = nvswitch\n"
  "nvswitches = 4\n"
  "nics = 4\n"
  "nic_bandwidth = 400Gb/s\n"
  "nic_type = infiniband-ndr\n"
  "intra_link = NVLink4\n"
  "nic_link = IB-NDR\n"
  "pcie_link = PCIe-Gen5\n",
  "[node]\n"
  "name = Mesh-3NIC\n"
  "gpu = H100-SXM\n"
  "gpus = 8\n"
  "intra_node = infinity-fabric\n"
  "nics = 3\n"
  "nic_bandwidth = 400Gb/s\n"
  "nic_type = infiniband-ndr\n"
  "intra_link = NVLink4\n"
  "nic_link = IB-NDR\n"
  "pcie_link = PCIe-Gen5\n",
  "[node]\n"
  "name = One-GPU\n"
  "gpu = H100-SXM\n"
  "gpus = 1\n"
  "intra_node = pcie\n"
  "nics = 1\n"
  "nic_bandwidth = 400Gb/s\n"
  "nic_type = infiniband-ndr\n"
  "intra_link = PCIe-Gen5\n"
  "nic_link = IB-NDR\n"
  "pcie_link = PCIe-Gen5\n",
};

static SimCatalogue *catalogue;

static void
setup (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("check-routes-XXXXXX", &error);

  ck_assert_msg (dir != NULL, "%s", error ? error->message : "?");
  catalogue = sim_catalogue_new ();
  ck_assert_msg (sim_catalogue_add_directory (catalogue, MODELDIR, &error), "%s",
                 error ? error->message : "?");
  for (guint i = 0; i < G_N_ELEMENTS (extra_models); i++)
    {
      g_autofree char *name = g_strdup_printf ("extra-%u.ini", i);
      g_autofree char *path = g_build_filename (dir, name, NULL);

      ck_assert (g_file_set_contents (path, extra_models[i], -1, NULL));
      ck_assert_msg (sim_catalogue_add_file (catalogue, path, &error), "%s",
                     error ? error->message : "?");
      g_unlink (path);
    }
  ck_assert_msg (sim_catalogue_resolve (catalogue, &error), "%s", error ? error->message : "?");
  g_rmdir (dir);
}

static void
teardown (void)
{
  g_clear_pointer (&catalogue, sim_catalogue_free);
}

/* @n nodes of @model on the fabric @lines ("key=value"), or NULL if the
 * configuration does not build (too many nodes for the radix...). */
static SimTopology *
build (const char *model, guint n, const char * const *lines)
{
  g_autoptr(SimCluster) c = sim_cluster_new ();
  g_auto(SimFabricConfig) config = { 0 };
  const SimNodeModel *m = sim_catalogue_lookup_node (catalogue, model);

  ck_assert_ptr_nonnull (m);
  ck_assert (sim_cluster_add_pool (c, "p", m, NULL, 0, n, NULL));
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) kv = g_strsplit (lines[i], "=", 2);
      ck_assert_msg (sim_fabric_config_set (&config, kv[0], kv[1], NULL), "%s", lines[i]);
    }
  return sim_topology_new (c, catalogue, &config, NULL);
}

/* Whether a route said to depend only on its GPUs (*fixed from
 * sim__topology_route_fixed()) is the one every hash gives, with or
 * without a load. */
static void
check_fixed (SimTopology *t, guint32 s, guint32 nic, guint32 d, const GArray *route, SimTime lat,
             const guint32 *load, const char *what)
{
  static const guint64 others[] = { 3, 11, G_GUINT64_CONSTANT (0x123456789abcdef) };
  g_autoptr(GArray) c = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint32 sentinel = 0xfeedu;
  SimTime lc = -1;
  gboolean again = FALSE;

  /* sim__topology_route_fixed() appends to what the array holds. */
  g_array_append_val (c, sentinel);
  ck_assert (sim__topology_route_fixed (t, s, nic, d, others[0], NULL, c, &lc, &again));
  ck_assert (again);
  ck_assert_uint_eq (c->len, route->len + 1);
  ck_assert_uint_eq (g_array_index (c, guint32, 0), sentinel);
  ck_assert (route->len == 0
             || memcmp (&g_array_index (c, guint32, 1), route->data,
                        route->len * sizeof (guint32)) == 0);

  for (guint h = 0; h < G_N_ELEMENTS (others); h++)
    {
      ck_assert (sim_topology_route_via (t, s, nic, d, others[h], h == 1 ? load : NULL, c, &lc));
      ck_assert_msg (c->len == route->len && lc == lat
                     && (c->len == 0
                         || memcmp (c->data, route->data, c->len * sizeof (guint32)) == 0),
                     "%s: %u -> %u (NIC of %u) said to depend on its GPUs alone, but hash %"
                     G_GUINT64_FORMAT " routes it otherwise", what, s, d, nic, others[h]);
    }
}

/* Every ordered pair of GPUs of @fast and @slow (the same configuration,
 * @slow routing by search), three times on @fast (appended to an array,
 * into a fresh one, and written in place by sim__topology_route_into()
 * with room for all of it, for three resources, a route's buffer then
 * spilling or the route found too long, and for none, the length alone,
 * each asked again with the room it said), from every @step-th GPU;
 * returns the routes compared, and in *@n_fixed (nullable) how many of
 * them depend on their GPUs alone (each checked against other hashes). */
static guint
compare_all_fixed (SimTopology *fast, SimTopology *slow, const char *what, guint step,
                   guint *n_fixed)
{
  static const guint64 hashes[] = { 0, 1, 7, G_GUINT64_CONSTANT (0x9e3779b97f4a7c15),
                                    G_GUINT64_CONSTANT (0xdeadbeefcafe) };
  guint n = sim_topology_get_n_gpus (fast), n_res = sim_topology_get_n_resources (fast);
  g_autoptr(GArray) a = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) b = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autofree guint32 *load = g_new (guint32, MAX (1u, n_res));
  guint compared = 0;

  ck_assert_uint_eq (n, sim_topology_get_n_gpus (slow));
  ck_assert_uint_eq (n_res, sim_topology_get_n_resources (slow));
  /* A load with ties and differences, for adaptive routing. */
  for (guint i = 0; i < n_res; i++)
    load[i] = (i * 2654435761u >> 7) % 3;

  for (guint pass = 0; pass < 3; pass++)
    for (guint h = 0; h < G_N_ELEMENTS (hashes); h++)
      for (guint32 s = 0; s < n; s += step)
        for (guint32 d = 0; d < n; d++)
          for (guint via = 0; via < 2; via++)
            {
              /* The sending GPU's NIC, or another GPU's of its node (or
               * a GPU of another node, which routes ignore). */
              guint32 nic = via == 0 ? s : (guint32) ((s + 1 + hashes[h] % 5) % n);
              const guint32 *l = h % 2 == 0 ? load : NULL;
              SimTime la = -1, lb = -1;
              gboolean oka, okb, fixed = FALSE;

              if (pass == 0)
                {
                  /* (It appends.) */
                  g_array_set_size (a, 0);
                  oka = sim__topology_route_fixed (fast, s, nic, d, hashes[h], l, a, &la,
                                                   &fixed);
                }
              else if (pass == 2)
                {
                  static const guint rooms[] = { 64, 3, 0 };
                  guint room = rooms[(s + d + h) % 3], len = G_MAXUINT;
                  g_array_set_size (a, MAX (room, 1));
                  oka = sim__topology_route_into (fast, s, nic, d, hashes[h], l,
                                                  room > 0 ? (guint32 *) (gpointer) a->data
                                                           : NULL,
                                                  room, &len, &la, &fixed);
                  ck_assert (oka || (len == 0 && !fixed));
                  if (oka && len > room)
                    {
                      SimTime first = la;
                      g_array_set_size (a, len);
                      ck_assert (sim__topology_route_into (fast, s, nic, d, hashes[h], l,
                                                           (guint32 *) (gpointer) a->data,
                                                           len, &len, &la, &fixed));
                      ck_assert_uint_eq (a->len, len);
                      ck_assert (first == la);
                    }
                  g_array_set_size (a, oka ? len : 0);
                }
              else
                oka = sim_topology_route_via (fast, s, nic, d, hashes[h], l, a, &la);
              okb = sim_topology_route_via (slow, s, nic, d, hashes[h], l, b, &lb);
              ck_assert_msg (oka == okb, "%s: %u -> %u (NIC of %u, hash %" G_GUINT64_FORMAT
                             "): routed %d, by search %d", what, s, d, nic, hashes[h], oka, okb);
              /* (An empty route may have no storage: memcmp() is not
               * given NULL.) */
              ck_assert_msg (a->len == b->len && la == lb
                             && (a->len == 0
                                 || memcmp (a->data, b->data, a->len * sizeof (guint32)) == 0),
                             "%s: %u -> %u (NIC of %u, hash %" G_GUINT64_FORMAT "): %u hops "
                             "and %" G_GINT64_FORMAT " ns, by search %u hops and %"
                             G_GINT64_FORMAT " ns", what, s, d, nic, hashes[h], a->len, la,
                             b->len, lb);
              if (fixed)
                {
                  check_fixed (fast, s, nic, d, a, la, load, what);
                  if (n_fixed != NULL)
                    (*n_fixed)++;
                }
              compared++;
            }
  return compared;
}

static guint
compare_all (SimTopology *fast, SimTopology *slow, const char *what, guint step)
{
  return compare_all_fixed (fast, slow, what, step, NULL);
}

/* Every node layout on every fabric kind, under every routing mode it
 * takes, at a radix small enough for three tiers and several groups. */
START_TEST (test_routes_match_search)
{
  const char *models[] = { "DGX-H100", "NVS-4NIC", "PCIe-8GPU", "MI300X-8", "Mesh-3NIC" };
  const char *topologies[] = { "single-switch", "fat-tree", "fat-tree-3", "rail-optimized",
                               "dragonfly" };
  const char *routings[] = { "dmodk", "ecmp", "adaptive", "spray" };
  const char *oversub[] = { "1", "2" };
  const guint counts[] = { 1, 3, 5 };
  guint built = 0, routes = 0, n, n_fixed, any_fixed = 0;

  for (guint a = 0; a < G_N_ELEMENTS (models); a++)
    for (guint b = 0; b < G_N_ELEMENTS (topologies); b++)
      for (guint c = 0; c < G_N_ELEMENTS (routings); c++)
        for (guint d = 0; d < G_N_ELEMENTS (oversub); d++)
          for (guint e = 0; e < G_N_ELEMENTS (counts); e++)
            {
              g_autofree char *topo = g_strconcat ("topology=", topologies[b], NULL);
              g_autofree char *routing = g_strconcat ("routing=", routings[c], NULL);
              g_autofree char *over = g_strconcat ("oversubscription=", oversub[d], NULL);
              g_autofree char *what = NULL;
              const char *cfg[] = { topo, routing, over, "switch=Quantum-2-QM9700", "radix=8",
                                    NULL };
              g_autoptr(SimTopology) fast = build (models[a], counts[e], cfg);
              g_autoptr(SimTopology) slow = NULL;

              if (fast == NULL)
                continue;  /* spray on a dragonfly, too many nodes for the radix */
              slow = build (models[a], counts[e], cfg);
              ck_assert_ptr_nonnull (slow);
              sim__topology_set_search (slow, TRUE);
              what = g_strdup_printf ("%u x %s, %s, %s, %s:1", counts[e], models[a], topo,
                                      routing, oversub[d]);
              /* The dragonfly, and it alone, takes distances from its structure. */
              ck_assert_msg (sim__topology_dragonfly_structure (fast)
                             == (strcmp (topologies[b], "dragonfly") == 0), "%s", what);
              n_fixed = 0;
              n = compare_all_fixed (fast, slow, what, 1, &n_fixed);
              routes += n;
              built++;
              /* With a NIC of its own per GPU, D-mod-K and spraying on a
               * tree depend on the two GPUs alone: the routes of the first
               * pass (half of those compared) are then fixed. */
              if ((strcmp (models[a], "DGX-H100") == 0 || strcmp (models[a], "MI300X-8") == 0)
                  && (c == 0 || c == 3) && strcmp (topologies[b], "dragonfly") != 0)
                ck_assert_msg (n_fixed > 0 && n_fixed >= n / 4, "%s: %u of %u fixed", what,
                               n_fixed, n);
              any_fixed += n_fixed;
            }
  ck_assert_uint_gt (any_fixed, 0);
  ck_assert_uint_ge (built, 150);
  ck_assert_uint_ge (routes, 1000000);
}
END_TEST

/* Dragonflies of several shapes, whose walks take the hop distances
 * from the structure: groups of 1 to 5 routers, 1 to 35 global links a
 * router, one group and up to seventy, one global link between two groups
 * and several (parallel between the same two routers in some), global
 * ports left unused, routers with one NIC and with several; every
 * routing mode a dragonfly takes, spray refused. */
/* D-mod-K keeps each NIC's way down with its latencies in 32 bits of
 * nanoseconds; a way whose latency passes four seconds (a link and a
 * switch at the keys' limit of a second each, over three tiers) is routed
 * hop by hop instead, and must give what the search gives, to the
 * nanosecond. */
START_TEST (test_long_latencies)
{
  const char *cfg[] = { "topology=fat-tree-3", "routing=dmodk", "switch=Quantum-2-QM9700",
                        "radix=8", "switch_latency=1s", "link_latency=1s", NULL };
  /* (Five nodes of four NICs: two pods, their routes over the core.) */
  g_autoptr(SimTopology) fast = build ("NVS-4NIC", 5, cfg);
  g_autoptr(SimTopology) slow = build ("NVS-4NIC", 5, cfg);
  g_autoptr(GArray) route = g_array_new (FALSE, FALSE, sizeof (guint32));
  SimTime longest = 0, lat;

  ck_assert_ptr_nonnull (fast);
  ck_assert_ptr_nonnull (slow);
  sim__topology_set_search (slow, TRUE);
  ck_assert_uint_gt (compare_all (fast, slow, "fat-tree-3, a second a hop", 3), 0);
  /* The longest route does pass four seconds (its way down then cannot
   * be kept in 32 bits). */
  for (guint32 d = 0; d < sim_topology_get_n_gpus (fast); d++)
    {
      ck_assert (sim_topology_route (fast, 0, d, 0, route, &lat));
      longest = MAX (longest, lat);
    }
  ck_assert_int_gt (longest, (SimTime) G_MAXUINT32);
}
END_TEST

/* D-mod-K climbs a switch's uplinks with one latency a switch (the
 * builders make them alike); where one uplink's latency differs, the
 * climbs go hop by hop and must still give what the search gives, to the
 * nanosecond.  One leaf's second uplink is made slower on both twins. */
START_TEST (test_uplinks_unequal_latency)
{
  const char *cfg[] = { "topology=fat-tree-3", "routing=dmodk", "switch=Quantum-2-QM9700",
                        "radix=8", NULL };
  g_autoptr(SimTopology) fast = build ("NVS-4NIC", 5, cfg);
  g_autoptr(SimTopology) slow = build ("NVS-4NIC", 5, cfg);
  SimTopology *both[] = { fast, slow };
  guint32 sw = NO_NODE;

  ck_assert_ptr_nonnull (fast);
  ck_assert_ptr_nonnull (slow);
  sim__topology_set_search (slow, TRUE);
  for (guint32 v = 0; v < fast->latency->len && sw == NO_NODE; v++)
    if (fast->up_start[v + 1] - fast->up_start[v] >= 2)
      sw = v;
  ck_assert_uint_ne (sw, NO_NODE);
  for (guint i = 0; i < G_N_ELEMENTS (both); i++)
    g_array_index (both[i]->links, SimLink, both[i]->up_link[both[i]->up_start[sw] + 1]).latency
      += 777;
  ck_assert_uint_gt (compare_all (fast, slow, "fat-tree-3, one uplink slower", 1), 0);
  /* (The climbs did see the difference.) */
  ck_assert (fast->up_hop != NULL && !fast->up_alike);
}
END_TEST

START_TEST (test_dragonfly_shapes)
{
  static const struct {
    guint groups, a, h, radix, nodes, step;
    const char *model;
  } shapes[] = {
    { 9, 4, 2, 8, 36, 1, "One-GPU" },     /* one global link per pair of groups */
    { 5, 4, 2, 8, 40, 1, "One-GPU" },     /* two per pair */
    { 3, 2, 3, 8, 12, 1, "One-GPU" },     /* three per pair, between the same routers */
    { 6, 4, 3, 9, 24, 1, "One-GPU" },     /* two per pair, two ports unused a group */
    { 4, 5, 2, 9, 20, 1, "One-GPU" },     /* three per pair, one port unused */
    { 4, 3, 1, 6, 24, 1, "One-GPU" },     /* one global link a router */
    { 3, 1, 2, 4, 6, 1, "One-GPU" },      /* groups of one router */
    { 5, 2, 2, 8, 30, 1, "One-GPU" },     /* more NICs than routers, some routers with none */
    { 70, 2, 35, 38, 40, 1, "One-GPU" },  /* more groups than a router's signature has
                                           * bits, NICs on the first twenty */
    { 65, 4, 16, 20, 260, 13, "One-GPU" }, /* as many, a NIC on every router, from every
                                            * 13th (most routes three hops) */
    { 1, 4, 2, 8, 8, 1, "One-GPU" },      /* one group */
    { 1, 1, 1, 8, 3, 1, "One-GPU" },      /* one router */
    { 5, 4, 1, 24, 3, 1, "DGX-H100" },    /* eight NICs a node */
    { 3, 3, 2, 16, 4, 1, "NVS-4NIC" },    /* fewer NICs than GPUs */
  };
  const char *routings[] = { "dmodk", "ecmp", "adaptive", "spray" };
  guint built = 0, routes = 0;

  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    for (guint c = 0; c < G_N_ELEMENTS (routings); c++)
      {
        g_autofree char *groups = g_strdup_printf ("groups=%u", shapes[i].groups);
        g_autofree char *a = g_strdup_printf ("routers_per_group=%u", shapes[i].a);
        g_autofree char *h = g_strdup_printf ("global_links=%u", shapes[i].h);
        g_autofree char *radix = g_strdup_printf ("radix=%u", shapes[i].radix);
        g_autofree char *routing = g_strconcat ("routing=", routings[c], NULL);
        g_autofree char *what = NULL;
        const char *cfg[] = { "topology=dragonfly", groups, a, h, radix, routing,
                              "switch=Quantum-2-QM9700", NULL };
        g_autoptr(SimTopology) fast = build (shapes[i].model, shapes[i].nodes, cfg);
        g_autoptr(SimTopology) slow = NULL;

        what = g_strdup_printf ("%u x %s, dragonfly of %u groups of %u routers, %u global "
                                "links, radix %u, %s", shapes[i].nodes, shapes[i].model,
                                shapes[i].groups, shapes[i].a, shapes[i].h, shapes[i].radix,
                                routing);
        if (strcmp (routings[c], "spray") == 0)
          {
            ck_assert_msg (fast == NULL, "%s: built", what);
            continue;
          }
        ck_assert_msg (fast != NULL, "%s: not built", what);
        slow = build (shapes[i].model, shapes[i].nodes, cfg);
        ck_assert_ptr_nonnull (slow);
        sim__topology_set_search (slow, TRUE);
        ck_assert_msg (sim__topology_dragonfly_structure (fast), "%s: searched", what);
        routes += compare_all (fast, slow, what, shapes[i].step);
        built++;
      }
  ck_assert_uint_eq (built, 3 * G_N_ELEMENTS (shapes));
  ck_assert_uint_ge (routes, 100000);
}
END_TEST

/* A cluster of two node models: the nodes of each share what is kept,
 * and the two never mix. */
START_TEST (test_mixed_models)
{
  const char *cfg[] = { "topology=fat-tree", "switch=Quantum-2-QM9700", "routing=ecmp",
                        "radix=16", NULL };
  g_autoptr(SimCluster) c = sim_cluster_new ();
  g_auto(SimFabricConfig) config = { 0 };
  g_autoptr(SimTopology) fast = NULL;
  g_autoptr(SimTopology) slow = NULL;

  ck_assert (sim_cluster_add_pool (c, "a", sim_catalogue_lookup_node (catalogue, "DGX-H100"),
                                   NULL, 0, 2, NULL));
  ck_assert (sim_cluster_add_pool (c, "b", sim_catalogue_lookup_node (catalogue, "NVS-4NIC"),
                                   NULL, 0, 2, NULL));
  ck_assert (sim_cluster_add_pool (c, "c", sim_catalogue_lookup_node (catalogue, "DGX-H100"),
                                   NULL, 0, 1, NULL));
  for (guint i = 0; cfg[i] != NULL; i++)
    {
      g_auto(GStrv) kv = g_strsplit (cfg[i], "=", 2);
      ck_assert (sim_fabric_config_set (&config, kv[0], kv[1], NULL));
    }
  fast = sim_topology_new (c, catalogue, &config, NULL);
  slow = sim_topology_new (c, catalogue, &config, NULL);
  ck_assert_ptr_nonnull (fast);
  ck_assert_ptr_nonnull (slow);
  sim__topology_set_search (slow, TRUE);
  ck_assert_uint_gt (compare_all (fast, slow, "DGX-H100 and NVS-4NIC", 1), 0);
}
END_TEST

static Suite *
routes_suite (void)
{
  Suite *s = suite_create ("routes");
  TCase *tc = tcase_create ("shortcuts");

  tcase_set_timeout (tc, 600);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_routes_match_search);
  tcase_add_test (tc, test_mixed_models);
  tcase_add_test (tc, test_dragonfly_shapes);
  tcase_add_test (tc, test_long_latencies);
  tcase_add_test (tc, test_uplinks_unequal_latency);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *r = srunner_create (routes_suite ());
  int failed;

  srunner_run_all (r, CK_NORMAL);
  failed = srunner_ntests_failed (r);
  srunner_free (r);
  return failed == 0 ? 0 : 1;
}

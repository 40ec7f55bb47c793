/* bench-routes.c: routing on a dragonfly.
 *
 * DGX H100 nodes (a NIC per GPU) on the dragonfly that [fabric] topology =
 * dragonfly builds from Quantum-2 QM9700 switches (64 ports: groups of 32
 * routers, 16 global links and 17 NICs a router): 10,240 GPUs (19 groups)
 * and 100,000 GPUs (184 groups).  For each, and each routing mode a
 * dragonfly takes, it routes 100,000 pairs of GPUs drawn uniformly (seed
 * 42, each with a flow hash drawn too), counting each route's resources
 * as a load that adaptive routing reads.  It prints the wall time of the
 * routes, the mean resources a route, a checksum of every route's
 * resources in order (so that two builds can be shown to route alike) and
 * the peak resident memory of the process so far.  It prints figures and
 * never fails on time.  Instruction counts of the routing alone:
 *
 *   valgrind --tool=callgrind --toggle-collect=sim_topology_route_via \
 *     bench/bench-routes --nodes 12500 --routing ecmp
 *
 *   bench-routes [--nodes N] [--routing dmodk|ecmp|adaptive] [--routes N]
 */
#include "config.h"

#include "bench-args.h"

#include <sim.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#ifndef SIM_TOP_SRCDIR
#error "SIM_TOP_SRCDIR must be defined by the build"
#endif

static void
one_case (SimCatalogue *catalogue, guint nodes, const char *routing, guint n_routes)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCluster) cluster = sim_cluster_new ();
  g_auto(SimFabricConfig) config = { 0 };
  g_autoptr(SimTopology) t = NULL;
  g_autoptr(GArray) res = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GRand) rng = g_rand_new_with_seed (42);
  g_autofree guint32 *load = NULL;
  guint64 hops = 0, sum = 0;
  gint64 t0, t1, t2;
  struct rusage ru;
  guint n;

  if (!sim_cluster_add_pool (cluster, "h100", sim_catalogue_lookup_node (catalogue, "DGX-H100"),
                             NULL, 0, nodes, &error)
      || !sim_fabric_config_set (&config, "topology", "dragonfly", &error)
      || !sim_fabric_config_set (&config, "switch", "Quantum-2-QM9700", &error)
      || !sim_fabric_config_set (&config, "routing", routing, &error))
    {
      fprintf (stderr, "bench-routes: %s\n", error->message);
      exit (1);
    }
  t0 = g_get_monotonic_time ();
  t = sim_topology_new (cluster, catalogue, &config, &error);
  if (t == NULL)
    {
      fprintf (stderr, "bench-routes: %s\n", error->message);
      exit (1);
    }
  n = sim_topology_get_n_gpus (t);
  load = g_new0 (guint32, sim_topology_get_n_resources (t));
  t1 = g_get_monotonic_time ();
  for (guint i = 0; i < n_routes; i++)
    {
      guint32 s = (guint32) g_rand_int_range (rng, 0, (gint32) n);
      guint32 d = (guint32) g_rand_int_range (rng, 0, (gint32) n);
      guint64 hash = g_rand_int (rng);

      if (!sim_topology_route_via (t, s, s, d, hash, load, res, NULL))
        {
          fprintf (stderr, "bench-routes: no route from GPU %u to GPU %u\n", s, d);
          exit (1);
        }
      for (guint k = 0; k < res->len; k++)
        {
          guint32 x = g_array_index (res, guint32, k);
          sum = sum * 1000003 + x;
          load[x]++;
        }
      hops += res->len;
    }
  t2 = g_get_monotonic_time ();
  getrusage (RUSAGE_SELF, &ru);
  printf ("%7u GPUs  %-8s  build %6.3f s  %u routes %6.3f s (%5.2f us each)  %5.2f resources "
          "a route  checksum %016" G_GINT64_MODIFIER "x  peak %ld MB\n", n, routing,
          (t1 - t0) / 1e6, n_routes, (t2 - t1) / 1e6, (t2 - t1) / (double) n_routes,
          hops / (double) n_routes, sum, ru.ru_maxrss / 1024);
}

#define ROUTES_USAGE \
  "usage: bench-routes [--nodes N] [--routing dmodk|ecmp|adaptive] [--routes N]\n" \
  "  routes per second between random pairs of GPUs on a dragonfly of DGX H100\n"

int
main (int argc, char **argv)
{
  const char *modes[] = { "dmodk", "ecmp", "adaptive" };
  const guint sizes[] = { 1280, 12500 };
  const char *routing = NULL;
  guint nodes = 0, n_routes = 100000;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCatalogue) catalogue = sim_catalogue_new ();

  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--nodes") == 0 && i + 1 < argc)
        {
          nodes = (guint) bench_whole ("bench-routes", argv[i], argv[i + 1], 2, 100000);
          i++;
        }
      else if (strcmp (argv[i], "--routing") == 0 && i + 1 < argc)
        routing = argv[++i];
      else if (strcmp (argv[i], "--routes") == 0 && i + 1 < argc)
        {
          n_routes = (guint) bench_whole ("bench-routes", argv[i], argv[i + 1], 1, 100000000);
          i++;
        }
      else if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0)
        {
          fputs (ROUTES_USAGE, stdout);
          return 0;
        }
      else
        {
          fprintf (stderr, "bench-routes: %s: unknown option, or its value missing\n%s",
                   argv[i], ROUTES_USAGE);
          return 2;
        }
    }
  if (routing != NULL && strcmp (routing, modes[0]) != 0 && strcmp (routing, modes[1]) != 0
      && strcmp (routing, modes[2]) != 0)
    {
      fprintf (stderr, "bench-routes: --routing %s: expected dmodk, ecmp or adaptive\n", routing);
      return 2;
    }
  if (!sim_catalogue_add_directory (catalogue, SIM_TOP_SRCDIR "/models", &error)
      || !sim_catalogue_resolve (catalogue, &error))
    {
      fprintf (stderr, "bench-routes: %s\n", error->message);
      return 1;
    }
  printf ("bench-routes: DGX H100 on a dragonfly of Quantum-2 QM9700, random pairs of GPUs\n");
  for (guint i = 0; i < (nodes > 0 ? 1 : G_N_ELEMENTS (sizes)); i++)
    for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
      if (routing == NULL || strcmp (routing, modes[m]) == 0)
        one_case (catalogue, nodes > 0 ? nodes : sizes[i], modes[m], n_routes);
  return 0;
}

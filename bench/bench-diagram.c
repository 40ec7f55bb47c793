/* bench-diagram: the pictures' costs.
 *
 * 1. A 10,000-GPU fabric (1,250 DGX H100 nodes, 10,000 NDR links to the
 *    leaves) drawn to SVG as a three-tier fat-tree, collapsed (the default)
 *    and expanded, and the largest rail-optimized fabric two tiers of
 *    64-port switches make (256 nodes, 2,048 GPUs): wall time of building
 *    the topology, and of the diagram (graph, refinement, Graphviz's layout
 *    and rendering).  The goal is under 5 s for the collapsed diagrams.
 * 2. The HTML report of a Philly month (October 2017, 47,192 jobs on 256
 *    DGX A100 nodes behind a 2:1 three-tier fat-tree): the run writes its outputs,
 *    then the report is built from them; the report's wall time alone is
 *    timed (goal: under 5 s), with its size.
 *
 * It prints figures and never fails on time; it exits 0 with a note if the
 * Philly trace is absent.
 *
 *   bench-diagram [--expand] [TRACE.csv]   (--expand adds the expanded 10,000-GPU
 *                                           diagram, about 12 s of Graphviz)
 */
#include "config.h"

#include <sim.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "bench-util.h"
#include "bench-args.h"

#define PHILLY \
  "[scenario]\nname = philly-2017-10\nseed = 1\n" \
  "[pool a100]\nmodel = DGX-A100\ncount = 256\n" \
  "[workload]\nsource = philly\ntrace = %s\n" \
  "[fabric]\ntopology = fat-tree-3\nswitch = Quantum-QM8700\noversubscription = 2\n" \
  "[output]\ntimeseries_interval = 1h\n"

static gboolean
draw (const char *topology, guint nodes, gboolean expand, GError **error)
{
  g_autoptr(SimCatalogue) catalogue = sim_catalogue_new_default (NULL, error);
  g_autoptr(SimCluster) cluster = NULL;
  g_autoptr(SimTopology) t = NULL;
  g_auto(SimFabricConfig) config = { 0 };
  g_autofree char *svg = NULL;
  SimDiagramOptions options = { expand, SIM_DIAGRAM_HEAT_NONE, NULL, NULL, NULL, 0 };
  gsize len = 0;
  gint64 t0, t1, t2;

  if (catalogue == NULL)
    return FALSE;
  cluster = sim_cluster_new ();
  if (!sim_cluster_add_pool (cluster, "h100", sim_catalogue_lookup_node (catalogue, "DGX-H100"),
                             NULL, 0, nodes, error) ||
      !sim_fabric_config_set (&config, "topology", topology, error) ||
      !sim_fabric_config_set (&config, "switch", "Quantum-2-QM9700", error))
    return FALSE;
  t0 = g_get_monotonic_time ();
  t = sim_topology_new (cluster, catalogue, &config, error);
  if (t == NULL)
    return FALSE;
  t1 = g_get_monotonic_time ();
  if (!sim_topology_render (t, cluster, &options, "svg", &svg, &len, error))
    return FALSE;
  t2 = g_get_monotonic_time ();
  printf ("%-16s %-9s %6u %8u %10.3f %10.3f %9.0f kB\n", topology,
          expand ? "expanded" : "collapsed", sim_topology_get_n_gpus (t),
          sim_topology_get_n_links (t), (t1 - t0) / 1e6, (t2 - t1) / 1e6, len / 1e3);
  return TRUE;
}

#define USAGE \
  "usage: bench-diagram [--expand] [TRACE.csv]\n" \
  "  fabrics of DGX-H100 nodes drawn to SVG, and the report of a replay of the Philly month\n" \
  "  --expand: the 10,000-GPU fat-tree expanded as well\n" \
  "  TRACE.csv: the Philly month's jobs; by default philly/philly-2017-10.csv under\n" \
  "  $GPUSIM_TRACE_DIR, else under data/traces in the source tree\n"

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *trace = NULL;
  static const char *const flags[] = { "--expand", NULL };
  gboolean expand = FALSE;
  char *args[2] = { argv[0], NULL };
  int n_args = 1;

  bench_args (argc, argv, USAGE, flags, 1);
  /* The trace, wherever it stands among the options. */
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--expand") == 0)
      expand = TRUE;
    else
      args[n_args++] = argv[i];
  printf ("bench-diagram: fabrics of DGX-H100 nodes drawn to SVG\n\n");
  printf ("%-16s %-9s %6s %8s %10s %10s %12s\n", "topology", "view", "GPUs", "links",
          "build s", "draw s", "SVG");
  if (!draw ("fat-tree-3", 1250, FALSE, &error) || !draw ("rail-optimized", 256, FALSE, &error) ||
      (expand && !draw ("fat-tree-3", 1250, TRUE, &error)))
    {
      fprintf (stderr, "bench-diagram: %s\n", error->message);
      return 1;
    }

  printf ("\n");
  trace = bench_philly_trace (n_args, args, "bench-diagram: no Philly report");
  if (trace == NULL)
    return 0;
  {
    g_autofree char *text = g_strdup_printf (PHILLY, trace);
    g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "bench-diagram", NULL,
                                                             NULL, &error);
    g_autoptr(SimSimulation) sim = NULL;
    g_autofree char *dir = g_dir_make_tmp ("bench-diagram-XXXXXX", &error);
    g_autofree char *html = NULL;
    gint64 t0, t1, t2;

    if (sc == NULL || dir == NULL || (sim = sim_simulation_new (sc, &error)) == NULL ||
        !sim_simulation_set_output_dir (sim, dir, &error))
      {
        fprintf (stderr, "bench-diagram: %s\n", error->message);
        return 1;
      }
    t0 = g_get_monotonic_time ();
    if (!sim_simulation_run (sim, &error))
      {
        fprintf (stderr, "bench-diagram: %s\n", error->message);
        return 1;
      }
    t1 = g_get_monotonic_time ();
    html = sim_html_report_render (dir, NULL, &error);
    t2 = g_get_monotonic_time ();
    if (html == NULL)
      {
        fprintf (stderr, "bench-diagram: %s\n", error->message);
        return 1;
      }
    printf ("\nPhilly, October 2017, 256 x DGX-A100 on a 2:1 three-tier fat-tree\n");
    {
      double jobs = 0;
      sim_report_get_value (sim_simulation_get_report (sim), "jobs_completed", &jobs);
      printf ("run (writing outputs) %8.3f s, %.0f jobs completed\n", (t1 - t0) / 1e6, jobs);
    }
    printf ("report                %8.3f s, %.0f kB\n", (t2 - t1) / 1e6, strlen (html) / 1e3);
    {
      const char *names[] = { "summary.json", "jobs.csv", "timeseries.csv", "nodes.csv",
                              "topology.dot" };
      for (guint i = 0; i < G_N_ELEMENTS (names); i++)
        {
          g_autofree char *p = g_build_filename (dir, names[i], NULL);
          g_remove (p);
        }
      g_rmdir (dir);
    }
  }
  return 0;
}

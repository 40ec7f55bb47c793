/* bench-llm: what the language-model training model costs at scale.
 *
 * The cluster: 2,048 DGX H100 (16,384 GPUs) on a three-tier NDR fat tree,
 * the scale of Llama 3 405B's pre-training.  It prints:
 *  - building the cluster and its fabric (not the model's cost, but what
 *    `gpusim llm` pays first);
 *  - one step of Llama 3 405B at Meta's layout (TP 8, PP 16, CP 2, DP 64,
 *    2,048 sequences of 8,192 tokens), cold (its collectives timed on the
 *    fabric) and warm (from the cache);
 *  - the search over every layout of the 16,384 GPUs (sim_llm_search()),
 *    with the number of layouts timed and the best one.
 * Wall times from g_get_monotonic_time(); the machine may be shared.  The
 * figures are printed, never judged.
 *
 *   bench-llm
 */
#include "config.h"

#include <sim.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench-args.h"

#define USAGE \
  "usage: bench-llm\n" \
  "  what the language-model training model costs on 16,384 H100: the fabric built,\n" \
  "  one step of Llama 3 405B cold and warm, and the search over every layout\n"

static double
now (void)
{
  return (double) g_get_monotonic_time () / 1e6;
}

static void
die (GError *error)
{
  fprintf (stderr, "bench-llm: %s\n", error ? error->message : "failed");
  exit (1);
}

int
main (int argc, char **argv)
{
  bench_args (argc, argv, USAGE, NULL, 0);

  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("bench-llm-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "h100-16k.ini", NULL);
  g_autoptr(SimScenario) sc = NULL;
  g_autoptr(SimCatalogue) cat = NULL;
  g_autoptr(SimTopology) topo = NULL;
  g_autoptr(SimLlmModel) model = NULL;
  g_autoptr(SimLlmSystem) sys = NULL;
  g_autoptr(GArray) best = NULL;
  SimCluster *cluster;
  SimLlmLayout layout;
  SimLlmEstimate est;
  guint tried = 0;
  double t0, t1, t2, t3;
  const char *text =
    "[scenario]\nname = h100-16k\nhorizon = 1d\n\n[pool h100]\nmodel = DGX-H100\ncount = 2048\n\n"
    "[fabric]\ntopology = fat-tree-3\nswitch = Quantum-2-QM9700\nlink = IB-NDR\n\n"
    "[workload]\nsource = synthetic\nrate = 1/h\ngpus = 8\nduration = constant(1h)\n";

  if (!g_file_set_contents (path, text, -1, &error))
    die (error);
  t0 = now ();
  sc = sim_scenario_load (path, NULL, &error);
  if (sc == NULL)
    die (error);
  cat = sim_catalogue_new_default ((const char * const *) sc->model_dirs, &error);
  if (cat == NULL)
    die (error);
  cluster = sim_cluster_new_for_scenario (sc, cat, &error);
  if (cluster == NULL)
    die (error);
  topo = sim_topology_new (cluster, cat, &sc->fabric, &error);
  if (topo == NULL)
    die (error);
  sys = sim_llm_system_new (cluster, topo, &error);
  model = sim_llm_model_load ("llama3-405b", NULL, &error);
  if (sys == NULL || model == NULL)
    die (error);
  t1 = now ();
  printf ("cluster and fabric: 16,384 H100 on a 3-tier fat tree built in %.3f s\n", t1 - t0);

  sim_llm_layout_init (&layout);
  if (!sim_llm_layout_parse (&layout, "tp=8 pp=16 cp=2 dp=64 global_batch=2048 seq_length=8192",
                             &error))
    die (error);
  t1 = now ();
  if (!sim_llm_estimate (sys, model, &layout, &est, &error))
    die (error);
  t2 = now ();
  if (!sim_llm_estimate (sys, model, &layout, &est, &error))
    die (error);
  t3 = now ();
  printf ("one step, llama3-405b at tp 8 pp 16 cp 2 dp 64: %.4f s cold, %.6f s warm "
          "(iteration %.2f s, MFU %.1f %%)\n", t2 - t1, t3 - t2, est.iteration_time,
          100 * est.mfu);

  sim_llm_layout_init (&layout);
  if (!sim_llm_layout_parse (&layout, "global_batch=2048 seq_length=8192", &error))
    die (error);
  t1 = now ();
  best = sim_llm_search (sys, model, &layout, 5, &tried, &error);
  t2 = now ();
  if (best == NULL)
    die (error);
  {
    const SimLlmCandidate *c = &g_array_index (best, SimLlmCandidate, 0);
    printf ("search over the layouts of 16,384 GPUs: %u layouts in %.3f s (%.1f us each); "
            "best tp %u pp %u (x%u) cp %u dp %u, iteration %.2f s, MFU %.1f %%\n", tried,
            t2 - t1, 1e6 * (t2 - t1) / MAX (1u, tried), c->layout.tp, c->layout.pp,
            c->layout.virtual_stages, c->layout.cp, c->estimate.dp, c->estimate.iteration_time,
            100 * c->estimate.mfu);
  }
  g_clear_pointer (&sys, sim_llm_system_free);
  g_clear_pointer (&topo, sim_topology_free);
  sim_cluster_free (cluster);
  g_unlink (path);
  g_rmdir (dir);
  return 0;
}

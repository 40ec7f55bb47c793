/* bench-placement.c: the cost of one placement decision.
 *
 * A cluster of 1,000 and then 10,000 nodes of 8 GPUs (96 cores and 768 GiB
 * each) is filled to about 60% of its GPUs by first-fit with a mix of
 * fractional, 1-, 2-, 4- and 8-GPU jobs, some of which then leave, so that
 * nodes are partly used and some GPUs shared.  Each placement is then
 * asked where a fixed sequence of probe jobs (the same mix, plus 16-GPU
 * jobs) would go, without starting them, so that every placement sees the
 * same state; the time per decision is printed, in microseconds.  FGD is
 * given a workload of six task types.
 *
 * Then first-fit and best-fit alone on jobs of whole GPUs that fit in one
 * node (the probes without the fractional and 16-GPU ones), on clusters
 * of 1,024, 10,240 and 102,400 GPUs built the same way: the decisions the
 * cluster's indexes of free GPUs serve in O(log nodes).  And first-fit and
 * best-fit on fractional jobs (100 to 900 thousandths, host shares as the
 * fractional task types) and on jobs spanning nodes (16 to 40 GPUs), on
 * clusters of 1,024 to 307,200 GPUs: the decisions served by the index of
 * shared GPUs by room and by the free-GPU index, which should cost about
 * the same at every size.  Last, jobs spanning nodes on the same clusters
 * with a second partition of 64 nodes: what masking the other partition
 * costs.  And topology-aware placement on three-tier fat-trees of 1,024,
 * 10,240 and 102,400 GPUs (jobs of 16 to 128 GPUs), with the time making
 * the policy takes.
 *
 * The figures are printed, never judged: this program fails only if a
 * placement is unknown.
 *
 *   bench-placement [--quick]     (--quick: 1,000 nodes and 1,024 GPUs only)
 */
#include "config.h"

#include <sim.h>
#include <stdio.h>
#include <string.h>

#include "bench-args.h"

#define USAGE \
  "usage: bench-placement [--quick]\n" \
  "  placement cost per decision on 1,000 and 10,000 nodes of 8 GPUs\n" \
  "  --quick: 1,000 nodes and 1,024 GPUs only\n"

static const char * const placements[] = {
  "first-fit", "best-fit", "worst-fit", "random", "packing", "clustering", "dot-product", "fgd",
};

static const SimTaskClass classes[] = {
  { 1, 250, 4000, 16ull << 30, NULL, 3 },
  { 1, 500, 8000, 32ull << 30, NULL, 3 },
  { 1, 1000, 8000, 64ull << 30, NULL, 4 },
  { 2, 1000, 16000, 128ull << 30, NULL, 2 },
  { 4, 1000, 32000, 256ull << 30, NULL, 1 },
  { 8, 1000, 64000, 512ull << 30, NULL, 1 },
};

static SimJob
draw_job (GRand *rand, gboolean big)
{
  SimJob j = { 0 };
  const SimTaskClass *t;
  guint k = g_rand_int_range (rand, 0, big ? 15 : 14);

  if (k == 14)
    {
      j.spec.gpus = 16;
      j.spec.gpu_milli = 1000;
      j.spec.cpu_milli = 128000;
      j.spec.memory_bytes = 1024ull << 30;
      return j;
    }
  t = &classes[k < 3 ? 0 : k < 6 ? 1 : k < 10 ? 2 : k < 12 ? 3 : k < 13 ? 4 : 5];
  j.spec.gpus = t->gpus;
  j.spec.gpu_milli = t->milli;
  j.spec.cpu_milli = t->cpu_milli;
  j.spec.memory_bytes = t->memory_bytes;
  return j;
}

static void
commit (SimCluster *c, const SimJob *job, const SimPlacement *pl)
{
  guint last = G_MAXUINT, count = 0;

  sim_cluster_allocate (c, pl->gpus, pl->n_gpus, pl->milli, NULL);
  /* Placements list a node's GPUs together. */
  for (guint i = 0; i <= pl->n_gpus; i++)
    {
      guint node = i < pl->n_gpus ? sim_cluster_get_gpu (c, pl->gpus[i])->node : G_MAXUINT;
      if (node != last && count > 0)
        {
          guint64 cpu, mem;
          sim_job_host_share (job, count, &cpu, &mem);
          sim_cluster_reserve_host (c, last, cpu, mem, NULL);
          count = 0;
        }
      last = node;
      count++;
    }
}

/* Microseconds per decision of PLACEMENT over N_PROBES probes on C (about
 * 0.2 s of decisions, at least 20), on the network @topology (nullable);
 * PLACED: the share that found a place; *@setup_us (nullable): the
 * microseconds making the policy took. */
static double
time_decisions_on (const char *placement, const SimTaskClass *tasks, guint n_tasks,
                   const SimCluster *c, const SimTopology *topology, const SimJob *probes,
                   guint n_probes, double *placed_share, double *setup_us)
{
  SimPolicySetup setup = { 0 };
  g_autoptr(SimPolicy) policy = NULL;
  g_autoptr(GError) error = NULL;
  guint32 gpus[128];
  guint n = 0, placed = 0;
  gint64 t0, elapsed;

  setup.seed = 1;
  setup.task_classes = tasks;
  setup.n_task_classes = n_tasks;
  setup.cluster = topology != NULL ? c : NULL;
  setup.topology = topology;
  t0 = g_get_monotonic_time ();
  policy = sim_policy_new ("fifo", placement, &setup, &error);
  if (policy == NULL)
    g_error ("bench-placement: %s", error->message);
  if (setup_us != NULL)
    *setup_us = (double) (g_get_monotonic_time () - t0);
  t0 = g_get_monotonic_time ();
  do
    {
      SimPlacement pl = { gpus, 0, 0, -1 };
      placed += sim_policy_place (policy, c, &probes[n % n_probes], &pl);
      n++;
      elapsed = g_get_monotonic_time () - t0;
    }
  while (n < 20 || (elapsed < 200000 && n < 200000));
  *placed_share = (double) placed / n;
  return (double) elapsed / n;
}

static double
time_decisions (const char *placement, const SimTaskClass *tasks, guint n_tasks,
                const SimCluster *c, const SimJob *probes, guint n_probes, double *placed_share)
{
  return time_decisions_on (placement, tasks, n_tasks, c, NULL, probes, n_probes, placed_share,
                            NULL);
}

static SimCluster *
build (const SimCatalogue *cat, guint nodes)
{
  SimCluster *c = sim_cluster_new ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (1);
  g_autoptr(GError) error = NULL;
  guint target = nodes * 8 * 6 / 10;
  guint32 gpus[64];

  if (!sim_cluster_add_pool (c, "main", sim_catalogue_lookup_node (cat, "DGX-H100"), NULL, 8, nodes,
                             &error))
    g_error ("%s", error->message);
  sim_cluster_set_pool_host (c, 0, 96000, 768ull << 30);
  while (sim_cluster_get_n_gpus (c) - sim_cluster_get_n_free_gpus (c) < target)
    {
      SimJob j = draw_job (rand, FALSE);
      SimPlacement pl = { gpus, 0, 0, -1 };
      if (!sim_place_first_fit (c, &j, &pl))
        break;
      commit (c, &j, &pl);
      /* One job in ten leaves again at once: holes across the cluster. */
      if (g_rand_int_range (rand, 0, 10) == 0 && j.spec.gpu_milli == 1000)
        {
          guint64 cpu, mem;
          sim_job_host_share (&j, j.spec.gpus, &cpu, &mem);
          sim_cluster_release (c, pl.gpus, pl.n_gpus, pl.milli);
          sim_cluster_release_host (c, sim_cluster_get_gpu (c, pl.gpus[0])->node, cpu, mem);
        }
    }
  return c;
}

int
main (int argc, char **argv)
{
  static const char *const bench_flags[] = { "--quick", NULL };

  bench_args (argc, argv, USAGE, bench_flags, 0);

  g_autoptr(SimCatalogue) cat = NULL;
  g_autoptr(GError) error = NULL;
  gboolean quick = argc > 1 && strcmp (argv[1], "--quick") == 0;
  const guint sizes[] = { 1000, 10000 };
  SimJob probes[256];

  cat = sim_catalogue_new_default (NULL, &error);
  if (cat == NULL)
    {
      fprintf (stderr, "bench-placement: %s\n", error->message);
      return 1;
    }
  {
    g_autoptr(GRand) rand = g_rand_new_with_seed (2);
    for (guint i = 0; i < G_N_ELEMENTS (probes); i++)
      {
        probes[i] = draw_job (rand, TRUE);
        probes[i].spec.id = i + 1;
      }
  }

  printf ("placement cost per decision (nodes of 8 GPUs, about 60%% allocated)\n");
  printf ("%-12s %8s %12s %8s\n", "placement", "nodes", "us/decision", "placed");
  for (guint s = 0; s < (quick ? 1 : G_N_ELEMENTS (sizes)); s++)
    {
      g_autoptr(SimCluster) c = build (cat, sizes[s]);

      for (guint p = 0; p < G_N_ELEMENTS (placements); p++)
        {
          gboolean fgd = strcmp (placements[p], "fgd") == 0;
          double share, us;

          us = time_decisions (placements[p], fgd ? classes : NULL, fgd ? G_N_ELEMENTS (classes) : 0,
                               c, probes, G_N_ELEMENTS (probes), &share);
          printf ("%-12s %8u %12.2f %7.0f%%\n", placements[p], sizes[s], us, 100.0 * share);
        }
    }

  {
    const guint whole_sizes[] = { 128, 1280, 12800 };
    SimJob whole[G_N_ELEMENTS (probes)];
    guint n_whole = 0;

    for (guint i = 0; i < G_N_ELEMENTS (probes); i++)
      if (probes[i].spec.gpu_milli == 1000 && probes[i].spec.gpus <= 8)
        whole[n_whole++] = probes[i];
    printf ("\nwhole-GPU jobs on one node (%u probes of 1, 2, 4 and 8 GPUs)\n", n_whole);
    printf ("%-12s %8s %12s %8s\n", "placement", "GPUs", "us/decision", "placed");
    for (guint s = 0; s < (quick ? 1 : G_N_ELEMENTS (whole_sizes)); s++)
      {
        g_autoptr(SimCluster) c = build (cat, whole_sizes[s]);

        for (guint p = 0; p < 2; p++)
          {
            double share, us;

            us = time_decisions (placements[p], NULL, 0, c, whole, n_whole, &share);
            printf ("%-12s %8u %12.2f %7.0f%%\n", placements[p], whole_sizes[s] * 8, us,
                    100.0 * share);
          }
      }
  }

  {
    const guint big_sizes[] = { 128, 1280, 12800, 38400 };
    static const guint millis[] = { 100, 250, 300, 500, 700, 900 };
    SimJob fraction[64], span[64];
    g_autoptr(GRand) rand = g_rand_new_with_seed (3);

    for (guint i = 0; i < G_N_ELEMENTS (fraction); i++)
      {
        SimJob f = { 0 }, m = { 0 };
        f.spec.id = 1000 + i;
        f.spec.gpus = 1;
        f.spec.gpu_milli = millis[g_rand_int_range (rand, 0, G_N_ELEMENTS (millis))];
        f.spec.cpu_milli = f.spec.gpu_milli <= 250 ? 4000 : 8000;
        f.spec.memory_bytes = (f.spec.gpu_milli <= 250 ? 16ull : 32ull) << 30;
        fraction[i] = f;
        m.spec.id = 2000 + i;
        m.spec.gpus = 8 * g_rand_int_range (rand, 2, 6);
        m.spec.gpu_milli = 1000;
        span[i] = m;
      }
    printf ("\nfractional jobs (%u probes of 100 to 900/1000) and jobs spanning nodes "
            "(%u probes of 16 to 40 GPUs)\n", (guint) G_N_ELEMENTS (fraction),
            (guint) G_N_ELEMENTS (span));
    printf ("%-12s %-10s %8s %12s %8s\n", "placement", "jobs", "GPUs", "us/decision", "placed");
    for (guint s = 0; s < (quick ? 1 : G_N_ELEMENTS (big_sizes)); s++)
      {
        g_autoptr(SimCluster) c = build (cat, big_sizes[s]);

        for (guint k = 0; k < 2; k++)
          for (guint p = 0; p < 2; p++)
            {
              double share, us;

              us = time_decisions (placements[p], NULL, 0, c, k ? span : fraction,
                                   G_N_ELEMENTS (fraction), &share);
              printf ("%-12s %-10s %8u %12.2f %7.0f%%\n", placements[p],
                      k ? "spanning" : "fractional", big_sizes[s] * 8, us, 100.0 * share);
            }
      }

    /* The same clusters with their last 64 nodes in a partition of their
     * own (a cloud pool beside the owned nodes): a job is placed inside
     * one partition, the others' nodes masked while the rule runs. */
    printf ("\njobs spanning nodes, the last 64 nodes in a second partition\n");
    printf ("%-12s %8s %12s %8s\n", "placement", "GPUs", "us/decision", "placed");
    for (guint s = 0; s < (quick ? 1 : G_N_ELEMENTS (big_sizes)); s++)
      {
        g_autoptr(SimCluster) c = build (cat, big_sizes[s]);

        for (guint k = big_sizes[s] - 64; k < big_sizes[s]; k++)
          sim_cluster_set_node_partition (c, k, 1);
        for (guint p = 0; p < 2; p++)
          {
            double share, us;

            us = time_decisions (placements[p], NULL, 0, c, span, G_N_ELEMENTS (span), &share);
            printf ("%-12s %8u %12.2f %7.0f%%\n", placements[p], big_sizes[s] * 8, us,
                    100.0 * share);
          }
      }
  }

  /* Topology-aware placement on a three-tier fat-tree (of Quantum-2
   * switches, of Quantum-X800 past the 65,536 NICs a tree of 64 ports
   * reaches), 2:1 at the leaves: jobs spanning nodes, which it places by
   * leaf and pod, and the time making the policy takes (each node's leaf
   * and pod). */
  {
    const guint topo_sizes[] = { 128, 1280, 12800 };
    SimJob span[64];
    g_autoptr(GRand) rand = g_rand_new_with_seed (4);

    for (guint i = 0; i < G_N_ELEMENTS (span); i++)
      {
        SimJob m = { 0 };
        m.spec.id = 3000 + i;
        m.spec.gpus = 8 * g_rand_int_range (rand, 2, 17);
        m.spec.gpu_milli = 1000;
        span[i] = m;
      }
    printf ("\ntopology-aware on a three-tier fat-tree, 2:1 (%u probes of 16 to 128 GPUs)\n",
            (guint) G_N_ELEMENTS (span));
    printf ("%-16s %8s %12s %8s %10s\n", "placement", "GPUs", "us/decision", "placed",
            "setup ms");
    for (guint s = 0; s < (quick ? 1 : G_N_ELEMENTS (topo_sizes)); s++)
      {
        g_autoptr(SimCluster) c = build (cat, topo_sizes[s]);
        g_auto(SimFabricConfig) config = { 0 };
        SimTopology *t;
        double share, us, setup_us;

        if (!sim_fabric_config_set (&config, "topology", "fat-tree-3", &error)
            || !sim_fabric_config_set (&config, "switch", topo_sizes[s] * 8 <= 65536
                                                          ? "Quantum-2-QM9700"
                                                          : "Quantum-X800-Q3400", &error)
            || !sim_fabric_config_set (&config, "oversubscription", "2", &error)
            || (t = sim_topology_new (c, cat, &config, &error)) == NULL)
          {
            fprintf (stderr, "bench-placement: %s\n", error->message);
            return 1;
          }
        us = time_decisions_on ("topology-aware", NULL, 0, c, t, span, G_N_ELEMENTS (span),
                                &share, &setup_us);
        printf ("%-16s %8u %12.2f %7.0f%% %10.1f\n", "topology-aware", topo_sizes[s] * 8, us,
                100.0 * share, setup_us / 1000);
        sim_topology_free (t);
      }
  }
  return 0;
}

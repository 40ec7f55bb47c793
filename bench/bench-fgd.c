/* bench-fgd.c: the FGD fragmentation experiment, its figures and its cost.
 *
 * 1. The whole study as the paper ran it (the paper variant, its six
 *    policies, ten seeds, to 130% of arrived GPU demand) on the openb
 *    default and gpushare100 pod lists: our allocation rate at 90, 100,
 *    110, 120 and 130% beside the paper's (Weng et al., ATC'23, Fig. 7 and
 *    11, as its artifact records them), timed wall-clock on the default
 *    thread pool.  Read from openb/ as bench_trace_file() finds it
 *    (bench-args.h); if no place has the lists, a note says so and this
 *    part is skipped.
 * 2. The same on the default list in the gpusim variant (GPU pods only,
 *    pools by model), for its cost.
 * 3. The cost of one placement decision in the paper variant, on 1,000 and
 *    10,000 synthetic nodes of 8 GPUs, one seed on one thread, with a
 *    fixed mix of whole and fractional tasks: the 1,000 nodes are filled
 *    to 100% of capacity, the 10,000 to 10% (the same number of
 *    decisions, each scanning ten times the nodes).
 *
 * Prints figures and never fails on them or on time (tests/check-openb.c
 * holds the figures to the paper's).
 */
#include "config.h"

#include <sim.h>
#include <stdio.h>
#include <string.h>

#include "bench-args.h"

#define NODE_LIST "openb_node_list_gpu_node.csv"

#define USAGE \
  "usage: bench-fgd\n" \
  "  the FGD fragmentation study on the openb node and pod lists, beside the paper's\n" \
  "  figures, and the cost of one placement decision; the lists are read from openb/\n" \
  "  under $GPUSIM_TRACE_DIR, else under data/traces in the source tree (where\n" \
  "  `gpusim trace fetch openb-nodes openb-pods openb-pods-gpushare100` puts them)\n"

static char *
trace_file (const char *name)
{
  return bench_trace_file ("openb", name, NULL);
}

static guint64
total_tasks (const SimFgdResult *r)
{
  guint64 n = 0;

  for (guint i = 0; i < r->n_runs; i++)
    n += r->runs[i].tasks_arrived;
  return n;
}

static void
bench_study (const char *list, SimFgdVariant variant)
{
  g_autofree char *pod_name = g_strdup_printf ("openb_pod_list_%s.csv", list);
  g_autofree char *nodes_path = trace_file (NODE_LIST);
  g_autofree char *pods_path = trace_file (pod_name);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) nodes = NULL;
  g_autoptr(GPtrArray) pods = NULL;
  g_autoptr(SimFgdResult) r = NULL;
  g_autofree char *table = NULL;
  g_autofree char *against = NULL;
  static const char *const gpusim_policies[] = { "first-fit", "best-fit", NULL };
  SimFgdConfig config = { 0 };
  gint64 t0, t1;

  if (nodes_path == NULL || pods_path == NULL)
    {
      printf ("openb %s lists not found (openb/ under $GPUSIM_TRACE_DIR or data/traces; "
              "gpusim trace fetch puts them there): skipped\n\n", list);
      return;
    }
  t0 = g_get_monotonic_time ();
  nodes = sim_openb_read_nodes (nodes_path, &error);
  pods = nodes ? sim_openb_read_pods (pods_path, &error) : NULL;
  t1 = g_get_monotonic_time ();
  if (pods == NULL)
    {
      fprintf (stderr, "bench-fgd: %s\n", error->message);
      return;
    }
  printf ("== %s list, %s variant: read %u nodes and %u pods in %.3f s\n", list,
          sim_fgd_variant_to_string (variant), nodes->len, pods->len, (t1 - t0) / 1e6);

  config.variant = variant;
  config.policies = variant == SIM_FGD_VARIANT_PAPER ? sim_fgd_paper_policies : gpusim_policies;
  config.n_policies = g_strv_length ((char **) config.policies);
  config.n_seeds = 10;
  config.first_seed = 1;
  config.stop_share = 1.30;
  config.sample_step = 0.01;
  t0 = g_get_monotonic_time ();
  r = sim_fgd_experiment_run (nodes, pods, &config, &error);
  t1 = g_get_monotonic_time ();
  if (r == NULL)
    {
      fprintf (stderr, "bench-fgd: %s\n", error->message);
      return;
    }
  table = sim_fgd_result_format_table (r);
  printf ("%s\n", table);
  if (variant == SIM_FGD_VARIANT_PAPER)
    against = sim_fgd_result_format_against_paper (r, list);
  if (against != NULL)
    printf ("%s\n", against);
  printf ("whole study: %u policies x 10 seeds to 130%%, %u threads: %.2f s, %" G_GUINT64_FORMAT
          " tasks, %.0f tasks/s (%.2f s per run)\n\n", config.n_policies,
          MIN (g_get_num_processors (), r->n_runs), (t1 - t0) / 1e6, total_tasks (r),
          total_tasks (r) / ((t1 - t0) / 1e6), (t1 - t0) / 1e6 / r->n_runs);
}

/* A fixed mix of tasks: whole GPUs (1, 2, 4, 8) and fractions of one. */
static GPtrArray *
synthetic_pods (void)
{
  static const struct { guint num_gpu, milli, count; } mix[] = {
    { 1, 1000, 50 }, { 1, 500, 15 }, { 1, 250, 10 }, { 1, 750, 5 },
    { 2, 1000, 10 }, { 4, 1000, 5 }, { 8, 1000, 5 },
  };
  GPtrArray *pods = g_ptr_array_new_with_free_func ((GDestroyNotify) sim_openb_pod_free);

  for (guint i = 0; i < G_N_ELEMENTS (mix); i++)
    for (guint k = 0; k < mix[i].count; k++)
      {
        SimOpenbPod *p = g_new0 (SimOpenbPod, 1);
        p->name = g_strdup_printf ("pod-%u-%u", i, k);
        p->cpu_milli = 4000 * mix[i].num_gpu;
        p->memory_mib = 16384 * mix[i].num_gpu;
        p->num_gpu = mix[i].num_gpu;
        p->gpu_milli = mix[i].milli;
        p->gpu_spec = g_new0 (char *, 1);
        p->qos = g_strdup ("LS");
        p->pod_phase = g_strdup ("Running");
        p->deletion_time = p->scheduled_time = -1;
        g_ptr_array_add (pods, p);
      }
  return pods;
}

static GPtrArray *
synthetic_nodes (guint n)
{
  GPtrArray *nodes = g_ptr_array_new_with_free_func ((GDestroyNotify) sim_openb_node_free);

  for (guint i = 0; i < n; i++)
    {
      SimOpenbNode *node = g_new0 (SimOpenbNode, 1);
      node->sn = g_strdup_printf ("node-%05u", i);
      node->cpu_milli = 96000;
      node->memory_mib = 393216;
      node->gpus = 8;
      node->model = g_strdup ("G2");
      g_ptr_array_add (nodes, node);
    }
  return nodes;
}

static void
bench_decisions (void)
{
  static const guint sizes[] = { 1000, 10000 };
  g_autoptr(GPtrArray) pods = synthetic_pods ();

  printf ("cost per decision in the paper variant (filter, every node scored, fragmentation "
          "update), one\nthread, 8-GPU nodes; 1,000 nodes filled to 100%% of capacity, 10,000 "
          "to 10%%\n");
  printf ("%-8s %-14s %10s %10s %14s\n", "nodes", "policy", "tasks", "seconds", "us/decision");
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      g_autoptr(GPtrArray) nodes = synthetic_nodes (sizes[s]);
      for (guint p = 0; sim_fgd_paper_policies[p] != NULL; p++)
        {
          g_autoptr(GError) error = NULL;
          g_autoptr(SimFgdResult) r = NULL;
          const char *name = sim_fgd_paper_policies[p];
          SimFgdConfig config = { 0 };
          gint64 t0, t1;
          double secs;

          config.policies = &name;
          config.n_policies = 1;
          config.n_seeds = 1;
          config.first_seed = 1;
          config.stop_share = 1000.0 / sizes[s];
          config.sample_step = 0.01 * config.stop_share;
          config.n_threads = 1;
          t0 = g_get_monotonic_time ();
          r = sim_fgd_experiment_run (nodes, pods, &config, &error);
          t1 = g_get_monotonic_time ();
          if (r == NULL)
            {
              fprintf (stderr, "bench-fgd: %s\n", error->message);
              continue;
            }
          secs = (t1 - t0) / 1e6;
          printf ("%-8u %-14s %10" G_GUINT64_FORMAT " %10.3f %14.2f\n", sizes[s], name,
                  total_tasks (r), secs, 1e6 * secs / total_tasks (r));
        }
    }
}

int
main (int argc, char **argv)
{
  bench_args (argc, argv, USAGE, NULL, 0);
  bench_study ("default", SIM_FGD_VARIANT_PAPER);
  bench_study ("gpushare100", SIM_FGD_VARIANT_PAPER);
  bench_study ("default", SIM_FGD_VARIANT_GPUSIM);
  bench_decisions ();
  return 0;
}

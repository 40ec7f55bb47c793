/* custom-policy: embedding gpusim and giving it a policy of one's own.
 *
 * Builds a scenario in memory (8 DGX A100 nodes, a mix of small and
 * node-sized jobs), then runs it three times: with the built-in FIFO
 * first-fit and best-fit policies, and with "worst-fit", written below as a
 * GObject implementing the SimPolicy interface: it places each job on the
 * node with the MOST free GPUs, spreading jobs out.  Prints one line per
 * policy.
 *
 * Build against an installed gpusim:
 *   cc custom-policy.c $(pkg-config --cflags --libs sim-1.0) -o custom-policy
 */
#include <sim.h>
#include <stdio.h>

/* ---- the policy ---------------------------------------------------------- */

#define EXAMPLE_TYPE_WORST_FIT (example_worst_fit_get_type ())
G_DECLARE_FINAL_TYPE (ExampleWorstFit, example_worst_fit, EXAMPLE, WORST_FIT, GObject)

struct _ExampleWorstFit {
  GObject parent_instance;
};

static const char *
worst_fit_name (SimPolicy *policy)
{
  return "fifo/worst-fit";
}

/* Whole-GPU jobs that fit in one node go to the node with the most free
 * GPUs; anything else falls back to the built-in first-fit. */
static gboolean
worst_fit_place (SimPolicy *policy, const SimCluster *cluster, const SimJob *job,
                 SimPlacement *placement)
{
  const SimNode *best = NULL;
  guint got = 0;

  if (job->spec.gpu_milli < SIM_GPU_WHOLE ||
      job->spec.gpus > sim_cluster_get_max_gpus_per_node (cluster))
    return sim_place_first_fit (cluster, job, placement);
  for (guint i = 0; i < sim_cluster_get_n_nodes (cluster); i++)
    {
      const SimNode *node = sim_cluster_get_node (cluster, i);
      if (node->free_gpus >= job->spec.gpus && (best == NULL || node->free_gpus > best->free_gpus))
        best = node;
    }
  if (best == NULL)
    return FALSE;
  for (guint g = 0; g < best->n_gpus && got < job->spec.gpus; g++)
    if (sim_cluster_get_gpu (cluster, best->first_gpu + g)->n_tenants == 0)
      placement->gpus[got++] = best->first_gpu + g;
  placement->n_gpus = got;
  placement->milli = SIM_GPU_WHOLE;
  return TRUE;
}

static void
worst_fit_iface_init (SimPolicyInterface *iface)
{
  iface->abi_version = SIM_POLICY_ABI_VERSION;
  iface->get_name = worst_fit_name;
  iface->place = worst_fit_place;
  /* compare and schedule stay NULL: FIFO order, head-of-line blocking. */
}

G_DEFINE_FINAL_TYPE_WITH_CODE (ExampleWorstFit, example_worst_fit, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (SIM_TYPE_POLICY, worst_fit_iface_init))

static void
example_worst_fit_class_init (ExampleWorstFitClass *klass)
{
}

static void
example_worst_fit_init (ExampleWorstFit *self)
{
}

/* ---- the program --------------------------------------------------------- */

static const char *scenario =
  "[scenario]\n"
  "name = custom-policy\n"
  "seed = 42\n"
  "horizon = 7d\n"
  "[pool a100]\n"
  "model = DGX-A100\n"
  "count = 8\n"
  "[workload]\n"
  "rate = 4/h\n"
  "[class small]\n"
  "share = 0.7\n"
  "gpus = 1:0.4, 2:0.3, 4:0.3\n"
  "duration = lognormal(median=1h, sigma=1)\n"
  "[class node]\n"
  "share = 0.3\n"
  "gpus = 8\n"
  "duration = exponential(mean=3h)\n";

static gboolean
run_one (SimScenario *sc, SimPolicy *custom, GError **error)
{
  g_autoptr(SimSimulation) sim = NULL;
  SimReport *report;
  double wait = 0, util = 0, frag = 0;

  sim = sim_simulation_new (sc, error);
  if (sim == NULL)
    return FALSE;
  if (custom != NULL && !sim_simulation_set_policy (sim, custom, error))
    return FALSE;
  if (!sim_simulation_run (sim, error))
    return FALSE;
  report = sim_simulation_get_report (sim);
  sim_report_get_value (report, "wait_mean", &wait);
  sim_report_get_value (report, "gpu_utilization", &util);
  sim_report_get_value (report, "fragmented_gpus_mean", &frag);
  printf ("%-16s mean wait %8.1f s   utilization %5.1f %%   fragmented GPUs %5.2f\n",
          sim_policy_get_name (sim_simulation_get_policy (sim)), wait, 100 * util, frag);
  return TRUE;
}

int
main (void)
{
  const char *placements[] = { "first-fit", "best-fit" };
  g_autoptr(GError) error = NULL;
  g_autoptr(SimPolicy) worst_fit = g_object_new (EXAMPLE_TYPE_WORST_FIT, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (placements); i++)
    {
      g_autofree char *set = g_strdup_printf ("policy.placement=%s", placements[i]);
      const char *sets[] = { set, NULL };
      g_autoptr(SimScenario) sc = sim_scenario_load_from_data (scenario, -1, "custom-policy",
                                                               NULL, sets, &error);
      if (sc == NULL || !run_one (sc, NULL, &error))
        goto failed;
    }
  {
    g_autoptr(SimScenario) sc = sim_scenario_load_from_data (scenario, -1, "custom-policy", NULL,
                                                             NULL, &error);
    if (sc == NULL || !run_one (sc, worst_fit, &error))
      goto failed;
  }
  return 0;

failed:
  fprintf (stderr, "custom-policy: %s\n", error->message);
  return 1;
}

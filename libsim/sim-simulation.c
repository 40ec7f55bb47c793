/* sim-simulation.c: the simulation's public face: building a run from a
 * scenario (the catalogue, the cluster, the fabric, the workload, the
 * policy, then the modules from their table) and the API around the kernel
 * (kernel/sim-kernel.c), which runs it. */
#include "config.h"

#include "kernel/sim-kernel-private.h"
#include "core/sim-error.h"
#include "sim-modules.h"
#include "core/sim-util.h"
#include "cluster/sim-mig.h"
#include "sched/sim-plugin.h"
#include "scenario/sim-sources.h"
#include "scenario/sim-scenario-private.h"
#include "cluster/sim-cluster-private.h"
#include "workload/sim-workload-private.h"
#include "fabric/sim-topology-private.h"

#include <string.h>

G_DEFINE_FINAL_TYPE (SimSimulation, sim_simulation, G_TYPE_OBJECT)

static void
sim_simulation_finalize (GObject *object)
{
  SimSimulation *self = SIM_SIMULATION (object);

  if (self->progress_destroy)
    self->progress_destroy (self->progress_data);
  if (self->observer_destroy)
    self->observer_destroy (self->observer_data);
  sim__kernel_finalize (self);
  g_clear_pointer (&self->report, sim_report_unref);
  g_clear_error (&self->error);
  g_clear_object (&self->policy);
  g_clear_pointer (&self->engine, sim_engine_free);
  g_clear_pointer (&self->scaling, sim__class_scaling_free);
  g_clear_pointer (&self->comm, sim__job_comm_free);
  g_clear_pointer (&self->topology, sim_topology_free);
  g_clear_pointer (&self->comm_rng, sim_rng_free);
  g_clear_pointer (&self->workload, sim_workload_free);
  g_clear_pointer (&self->cluster, sim_cluster_free);
  g_clear_pointer (&self->catalogue, sim_catalogue_free);
  g_clear_pointer (&self->scenario, sim_scenario_unref);
  G_OBJECT_CLASS (sim_simulation_parent_class)->finalize (object);
}

static void
sim_simulation_class_init (SimSimulationClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sim_simulation_finalize;
}

static void
sim_simulation_init (SimSimulation *self)
{
  sim__kernel_init (self);
}

/* ------------------------------------------------------------------------- */
/* Construction.                                                             */

/* The section a pool's errors point at: its own, or the one it was made
 * from (a machine or VC list). */
static char *
pool_group (const SimPoolConfig *pool)
{
  return pool->from_group != NULL ? g_strdup (pool->from_group)
                                  : g_strdup_printf ("pool %s", pool->name);
}

SimCluster *
sim_cluster_new_for_scenario (const SimScenario *scenario, const SimCatalogue *catalogue,
                              GError **error)
{
  g_autoptr(SimCluster) cluster = sim_cluster_new ();

  g_return_val_if_fail (scenario != NULL && catalogue != NULL, NULL);
  /* The nodes point into the catalogue's models: the cluster keeps it
   * (a reference count, which a const catalogue still has). */
  sim__cluster_hold_catalogue (cluster, (SimCatalogue *) catalogue);
  for (guint i = 0; i < scenario->n_pools; i++)
    {
      const SimPoolConfig *p = &scenario->pools[i];
      const SimNodeModel *node = sim_catalogue_lookup_node (catalogue, p->node_model);
      const SimGpuModel *gpu = NULL;

      if (node == NULL)
        {
          g_autofree char *group = pool_group (p);
          sim__unknown_model (scenario, catalogue, group, "model", "node", p->node_model, error);
          return NULL;
        }
      if (p->gpu_model != NULL &&
          (gpu = sim_catalogue_lookup_gpu (catalogue, p->gpu_model)) == NULL)
        {
          g_autofree char *group = pool_group (p);
          /* A pool made from a list: the key behind the model. */
          sim__unknown_model (scenario, catalogue, group,
                              p->from_group != NULL && p->gpu_key != NULL ? p->gpu_key : "gpu",
                              "GPU", p->gpu_model, error);
          return NULL;
        }
      if (!sim_cluster_add_pool (cluster, p->name, node, gpu, p->gpus_per_node, p->count, error))
        {
          g_prefix_error (error, "%s: ", scenario->path);
          return NULL;
        }
      /* Pools from a machine list carry each node's host resources. */
      if (p->cpu_milli > 0 || p->memory_bytes > 0)
        sim_cluster_set_pool_host (cluster, i, p->cpu_milli, p->memory_bytes);
    }
  return g_steal_pointer (&cluster);
}

/* Whether the scenario's jobs are generated from its [class] sections (not
 * read from a trace). */
static gboolean
generates (const SimScenario *sc)
{
  return !sim__source_info (sc->source)->is_trace;
}

/* Every GPU model a class names must be in the catalogue. */
static gboolean
check_gpu_models (SimSimulation *self, GError **error)
{
  const SimScenario *sc = self->scenario;

  for (guint c = 0; generates (sc) && c < sc->generator.n_classes; c++)
    {
      const SimJobClassConfig *cls = &sc->generator.classes[c];
      g_auto(GStrv) names = NULL;
      if (cls->gpu_models == NULL)
        continue;
      names = g_strsplit (cls->gpu_models, "|", -1);
      for (guint i = 0; names[i] != NULL; i++)
        if (sim_catalogue_lookup_gpu (self->catalogue, names[i]) == NULL)
          {
            g_autofree char *group = g_strdup_printf ("class %s", cls->name);
            sim__unknown_model (sc, self->catalogue, group, "gpu_model", "GPU", names[i], error);
            return FALSE;
          }
    }
  return TRUE;
}

/* A class's MIG profile must exist on some GPU of the cluster that the
 * class may use; otherwise every one of its jobs would be refused at run
 * time.  The error lists the profiles the cluster's GPUs do offer. */
static gboolean
check_mig_profiles (SimSimulation *self, GError **error)
{
  const SimScenario *sc = self->scenario;

  for (guint c = 0; generates (sc) && c < sc->generator.n_classes; c++)
    {
      const SimJobClassConfig *cls = &sc->generator.classes[c];
      g_autoptr(GString) offered = NULL;
      g_autoptr(GPtrArray) seen = NULL;
      g_autofree char *group = NULL;
      gboolean found = FALSE;

      if (cls->mig_profile == NULL)
        continue;
      offered = g_string_new (NULL);
      seen = g_ptr_array_new ();
      for (guint n = 0; n < sim_cluster_get_n_nodes (self->cluster) && !found; n++)
        {
          const SimGpuModel *gpu = sim_cluster_get_node (self->cluster, n)->gpu_model;
          if (gpu == NULL || g_ptr_array_find (seen, gpu, NULL) ||
              !sim_cluster_node_allows (self->cluster, n, cls->gpu_models))
            continue;
          g_ptr_array_add (seen, (gpointer) gpu);
          found = sim_mig_lookup_profile (gpu, cls->mig_profile) >= 0;
          for (guint p = 0; p < gpu->n_mig_profiles; p++)
            g_string_append_printf (offered, "%s%s", p > 0 ? ", " : offered->len ? "; " : "",
                                    gpu->mig_profiles[p].name);
          if (gpu->n_mig_profiles > 0)
            g_string_append_printf (offered, " on %s", gpu->name);
        }
      if (found)
        continue;
      group = g_strdup_printf ("class %s", cls->name);
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "no GPU of this cluster offers MIG profile \"%s\": expected one of the "
                   "profiles its GPUs have (%s)", cls->mig_profile,
                   offered->len > 0 ? offered->str : "none: no GPU here supports MIG");
      sim__scenario_locate (sc, group, "mig", error);
      return FALSE;
    }
  return TRUE;
}

static gboolean
uses_comm (const SimScenario *sc)
{
  if (sc->n_comm_mix > 0)
    return TRUE;
  for (guint c = 0; generates (sc) && c < sc->generator.n_classes; c++)
    if (sc->generator.classes[c].comm.iteration > 0)
      return TRUE;
  return FALSE;
}

static gboolean
build_fabric (SimSimulation *self, GError **error)
{
  SimScenario *sc = self->scenario;

  if (sc->fabric.kind == SIM_FABRIC_NONE)
    {
      if (uses_comm (sc))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                       "%s: jobs have communication profiles but there is no [fabric] section "
                       "to carry them: add one, e.g. [fabric] topology = fat-tree", sc->path);
          return FALSE;
        }
      return TRUE;
    }
  self->topology = sim_topology_new (self->cluster, self->catalogue, &sc->fabric, error);
  if (self->topology == NULL)
    {
      /* An unknown model is the key's fault: its line (or its variant's). */
      sim__scenario_locate (sc, "fabric", sim__fabric_bad_model_key (&sc->fabric,
                                                                     self->catalogue), error);
      return FALSE;
    }
  self->comm = sim__job_comm_new (self->topology, self->cluster);
  sim__job_comm_set_sharing (self->comm, sc->fabric.sharing);
  self->comm_rng = sim_rng_new (sc->seed, "comm");
  for (guint i = 0; i < sc->n_comm_mix; i++)
    self->comm_mix_total += sc->comm_mix[i].share;
  return TRUE;
}

/* A class's iteration on an idle copy of the fabric (sim-class-scaling.h). */
static gboolean
idle_iteration (gpointer data, const SimCommProfile *c, guint n, double compute_s,
                double *iteration_s, GError **error)
{
  SimSimulation *self = data;

  return sim__job_comm_idle_iteration (self->comm, c, n, compute_s, iteration_s, error);
}

/* The synthetic workload's mix as task classes, for placements that weigh
 * the tasks to come; traces give none (such placements learn as they go). */
static GArray *
task_classes (const SimScenario *sc)
{
  GArray *classes = g_array_new (FALSE, TRUE, sizeof (SimTaskClass));
  double total_share = 0;

  if (!generates (sc))
    return classes;
  for (guint c = 0; c < sc->generator.n_classes; c++)
    total_share += sc->generator.classes[c].share;
  for (guint c = 0; c < sc->generator.n_classes; c++)
    {
      const SimJobClassConfig *cls = &sc->generator.classes[c];
      double total_w = 0;
      for (guint g = 0; g < cls->n_gpu_values; g++)
        total_w += cls->gpu_weights ? cls->gpu_weights[g] : 1;
      for (guint g = 0; g < cls->n_gpu_values; g++)
        {
          SimTaskClass t = { 0 };
          t.gpus = cls->gpu_values[g];
          t.milli = SIM_GPU_WHOLE;
          t.weight = cls->share / total_share * (cls->gpu_weights ? cls->gpu_weights[g] : 1) /
                     total_w;
          g_array_append_val (classes, t);
        }
    }
  return classes;
}

/* What a placement is set up with: the cluster, its network, the
 * workload's task classes (kept alive in *CLASSES), the seed, and whether
 * a node sleeps (the power module answers, if attached). */
static void
policy_setup (SimSimulation *self, SimPolicySetup *setup, GArray **classes)
{
  *classes = task_classes (self->scenario);
  memset (setup, 0, sizeof *setup);
  setup->cluster = self->cluster;
  setup->seed = self->scenario->seed;
  setup->topology = self->topology;
  setup->task_classes = (const SimTaskClass *) (void *) (*classes)->data;
  setup->n_task_classes = (*classes)->len;
  setup->node_asleep = sim__kernel_node_asleep;
  setup->node_asleep_data = self;
}

static gboolean
create_policy (SimSimulation *self, gboolean load_plugin, GError **error)
{
  SimScenario *sc = self->scenario;
  g_autoptr(SimPolicyParams) params = sim_policy_params_new ();
  g_autoptr(GArray) classes = NULL;
  SimPolicySetup setup;
  GHashTableIter it;
  gpointer key, value;
  const char *failed;

  if (sc->plugin != NULL && !load_plugin)
    {
      /* Validation: the file is there, but nothing of it runs.  A FIFO
       * first-fit policy without the [policy] keys (which are the
       * plugin's to read) stands in for it. */
      if (!g_file_test (sc->plugin, G_FILE_TEST_IS_REGULAR))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                       "%s: no such regular file: expected a policy plugin (a shared "
                       "object)", sc->plugin);
          sim__scenario_locate (sc, "policy", "plugin", error);
          return FALSE;
        }
      self->plugin_unloaded = TRUE;
      policy_setup (self, &setup, &classes);
      self->policy = sim_policy_new ("fifo", "first-fit", &setup, error);
      return self->policy != NULL;
    }
  else if (sc->plugin != NULL)
    {
      self->policy = sim_policy_load_plugin (sc->plugin, error);
      if (self->policy == NULL)
        {
          sim__scenario_locate (sc, "policy", "plugin", error);
          return FALSE;
        }
      return TRUE;
    }
  g_hash_table_iter_init (&it, sc->policy_params);
  while (g_hash_table_iter_next (&it, &key, &value))
    sim_policy_params_set (params, key, value);
  policy_setup (self, &setup, &classes);
  setup.params = params;
  self->policy = sim_policy_new (sc->queue, sc->placement, &setup, error);
  if (self->policy != NULL)
    return TRUE;

  failed = sim_policy_params_get_failed_key (params);
  if (failed != NULL)
    sim__scenario_locate (sc, "policy", failed, error);
  else
    {
      g_autoptr(GPtrArray) orders = sim_policy_list_queue_orders ();
      gboolean queue_known = FALSE;
      for (guint i = 0; i < orders->len; i++)
        queue_known |= g_ascii_strcasecmp (orders->pdata[i], sc->queue) == 0;
      sim__scenario_locate (sc, "policy", queue_known ? "placement" : "queue", error);
    }
  return FALSE;
}

SimPolicy *
sim__kernel_new_placement (SimSimulation *self, const char *placement, GError **error)
{
  g_autoptr(GArray) classes = NULL;
  SimPolicySetup setup;

  g_return_val_if_fail (SIM_IS_SIMULATION (self) && placement != NULL, NULL);
  policy_setup (self, &setup, &classes);
  return sim_policy_new ("fifo", placement, &setup, error);
}

/* A new workload for the scenario: its generator or trace reader. */
static SimWorkload *
open_workload (SimSimulation *self, GError **error)
{
  const SimScenario *scenario = self->scenario;
  g_autofree double *rates = sim__class_scaling_dup_rates (self->scaling);
  SimSourceContext context = { NULL };
  g_autoptr(GPtrArray) gpus = sim_catalogue_get_gpus (self->catalogue);
  g_autoptr(GPtrArray) gpu_names = g_ptr_array_new ();
  g_autoptr(GPtrArray) mig_names = g_ptr_array_new ();
  SimWorkload *workload;

  /* Classes' speeds on the reference GPU (a Gavel job type's steps per
   * second), as the class scaling resolved them. */
  context.class_rates = rates;
  /* The names a trace's rows may give. */
  for (guint i = 0; i < gpus->len; i++)
    {
      const SimGpuModel *gpu = g_ptr_array_index (gpus, i);

      g_ptr_array_add (gpu_names, gpu->name);
      for (guint p = 0; p < gpu->n_mig_profiles; p++)
        if (!g_ptr_array_find_with_equal_func (mig_names, gpu->mig_profiles[p].name,
                                               g_str_equal, NULL))
          g_ptr_array_add (mig_names, gpu->mig_profiles[p].name);
    }
  g_ptr_array_add (gpu_names, NULL);
  g_ptr_array_add (mig_names, NULL);
  context.gpu_models = (const char * const *) gpu_names->pdata;
  context.mig_profiles = (const char * const *) mig_names->pdata;
  if (scenario->source == SIM_SOURCE_SYNTHETIC && scenario->generator.n_classes > 0
      && !sim__generator_check_rate (&scenario->generator, error))
    {
      sim__scenario_locate (scenario, "workload", "rate", error);
      return NULL;
    }
  workload = sim__source_info (scenario->source)->open (scenario, &context, error);
  if (workload == NULL)
    sim__scenario_locate (scenario, "workload",
                          sim__source_info (scenario->source)->is_trace ? "trace" : NULL, error);
  return workload;
}

SimSimulation *
sim__kernel_new (SimScenario *scenario, guint off, GError **error)
{
  g_autoptr(SimSimulation) self = NULL;
  const SimModuleInfo *modules;
  guint n_modules;

  g_return_val_if_fail (scenario != NULL, NULL);
  sim_init ();
  self = g_object_new (SIM_TYPE_SIMULATION, NULL);
  self->scenario = sim_scenario_ref (scenario);

  if (!sim__scenario_check_models (scenario, error))
    return NULL;
  self->catalogue = sim_catalogue_new_default ((const char * const *) scenario->model_dirs, error);
  if (self->catalogue == NULL)
    return NULL;
  self->cluster = sim_cluster_new_for_scenario (scenario, self->catalogue, error);
  if (self->cluster == NULL || !build_fabric (self, error))
    return NULL;
  if (!check_gpu_models (self, error) || !check_mig_profiles (self, error))
    return NULL;
  self->scaling = sim__class_scaling_new (scenario, self->catalogue, self->cluster,
                                          self->comm != NULL ? idle_iteration : NULL, self,
                                          error);
  if (self->scaling == NULL)
    return NULL;
  sim__kernel_add_start_factor (self, sim__class_scaling_speed, self->scaling);
  self->workload = open_workload (self, error);
  if (self->workload == NULL || !create_policy (self, !(off & SIM_KERNEL_NO_PLUGIN), error))
    return NULL;
  sim__kernel_setup_engine (self);
  /* Then the modules, in their table's order. */
  modules = sim__modules_get (&n_modules);
  for (guint i = 0; i < n_modules; i++)
    if (modules[i].attach != NULL && !modules[i].attach (self, off, error))
      return NULL;
  return g_steal_pointer (&self);
}

SimSimulation *
sim_simulation_new (SimScenario *scenario, GError **error)
{
  g_return_val_if_fail (scenario != NULL, NULL);
  return sim__kernel_new (scenario, 0, error);
}

SimWorkload *
sim_simulation_open_workload (SimSimulation *self, GError **error)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), NULL);
  return open_workload (self, error);
}

/* ------------------------------------------------------------------------- */
/* Settings.                                                                 */

gboolean
sim_simulation_set_policy (SimSimulation *self, SimPolicy *policy, GError **error)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self) && SIM_IS_POLICY (policy), FALSE);
  if (self->started)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                   "the policy must be set before the run starts");
      return FALSE;
    }
  if (SIM_POLICY_GET_IFACE (policy)->place == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "policy %s has no place method", G_OBJECT_TYPE_NAME (policy));
      return FALSE;
    }
  g_set_object (&self->policy, policy);
  return TRUE;
}

void
sim_simulation_set_progress_func (SimSimulation *self, SimProgressFunc func, gpointer user_data,
                                  GDestroyNotify destroy)
{
  g_return_if_fail (SIM_IS_SIMULATION (self));
  if (self->progress_destroy)
    self->progress_destroy (self->progress_data);
  self->progress = func;
  self->progress_data = user_data;
  self->progress_destroy = destroy;
}

void
sim_simulation_set_job_observer (SimSimulation *self, SimJobObserver func, gpointer user_data,
                                 GDestroyNotify destroy)
{
  g_return_if_fail (SIM_IS_SIMULATION (self));
  if (self->observer_destroy)
    self->observer_destroy (self->observer_data);
  self->observer = func;
  self->observer_data = user_data;
  self->observer_destroy = destroy;
}

void
sim_simulation_estimate (SimSimulation *self, SimRunEstimate *estimate)
{
  const SimScenario *sc;

  g_return_if_fail (SIM_IS_SIMULATION (self) && estimate != NULL);
  sc = self->scenario;
  memset (estimate, 0, sizeof *estimate);
  estimate->jobs = sim__source_expected_jobs (sc);
  if (self->series_out != NULL && sc->horizon != SIM_TIME_NEVER && sc->sample_interval > 0)
    estimate->samples = (guint64) (sc->horizon / sc->sample_interval);
  estimate->output_bytes = (self->jobs_out != NULL ? estimate->jobs * SIM_JOB_ROW_BYTES : 0) +
                           estimate->samples * SIM_SAMPLE_ROW_BYTES;
}

void
sim_simulation_set_force (SimSimulation *self, gboolean force)
{
  g_return_if_fail (SIM_IS_SIMULATION (self));
  self->force = force;
}

gboolean
sim_simulation_check_limits (SimSimulation *self, GError **error)
{
  SimRunEstimate e;

  g_return_val_if_fail (SIM_IS_SIMULATION (self), FALSE);
  if (self->force)
    return TRUE;
  sim_simulation_estimate (self, &e);
  if (e.jobs > SIM_LIMIT_JOBS)
    {
      *error = sim__kernel_too_big (self, "workload", "rate",
                                    "this run would simulate about %.3g jobs", (double) e.jobs);
      return FALSE;
    }
  if (e.samples > SIM_LIMIT_SAMPLES)
    {
      *error = sim__kernel_too_big (self, "output", "timeseries_interval",
                                    "this run would write about %.3g time-series rows",
                                    (double) e.samples);
      return FALSE;
    }
  if (e.output_bytes > SIM_LIMIT_OUTPUT_BYTES)
    {
      *error = sim__kernel_too_big (self, "workload", "rate", "this run would write about %.3g GB",
                                    e.output_bytes / 1e9);
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* Running.                                                                  */

gboolean
sim_simulation_fail (SimSimulation *self, const GError *error)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), FALSE);
  g_return_val_if_fail (error != NULL, FALSE);
  /* The last progress call comes as the run finishes: it may still fail
   * the run. */
  if (self->error != NULL || (self->finished && !self->finishing))
    return FALSE;
  sim__kernel_fail (self, g_error_copy (error));
  return TRUE;
}

gboolean
sim_simulation_run (SimSimulation *self, GError **error)
{
  gboolean stopped;

  g_return_val_if_fail (SIM_IS_SIMULATION (self), FALSE);
  return sim__kernel_advance (self, SIM_TIME_NEVER, FALSE, &stopped, error);
}

gboolean
sim_simulation_run_until (SimSimulation *self, SimTime until, GError **error)
{
  gboolean stopped;

  g_return_val_if_fail (SIM_IS_SIMULATION (self), FALSE);
  return sim__kernel_advance (self, until, FALSE, &stopped, error);
}

gboolean
sim_simulation_run_to_decision (SimSimulation *self, GError **error)
{
  gboolean stopped;

  g_return_val_if_fail (SIM_IS_SIMULATION (self), FALSE);
  if (!sim__kernel_advance (self, SIM_TIME_NEVER, TRUE, &stopped, error))
    return FALSE;
  return stopped && self->decision_pending;
}

gboolean
sim_simulation_set_node_available (SimSimulation *self, guint node, gboolean available,
                                   GError **error)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), FALSE);
  if (node >= sim_cluster_get_n_nodes (self->cluster))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "node %u does not exist (the cluster "
                   "has %u)", node, sim_cluster_get_n_nodes (self->cluster));
      return FALSE;
    }
  sim__kernel_set_node_available (self, node, available);
  return TRUE;
}

SimSchedContext *
sim_simulation_get_decision (SimSimulation *self)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), NULL);
  return self->decision_pending ? &self->decision : NULL;
}

gboolean
sim_simulation_decide (SimSimulation *self, gboolean run_policy, GError **error)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), FALSE);
  return sim__kernel_decide (self, run_policy, error);
}

/* ------------------------------------------------------------------------- */
/* Getters.                                                                  */

gboolean
sim_simulation_is_finished (SimSimulation *self)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), TRUE);
  return self->finished;
}

SimTime
sim_simulation_get_now (SimSimulation *self)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), 0);
  return sim_engine_now (self->engine);
}

const SimCluster *
sim_simulation_get_cluster (SimSimulation *self)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), NULL);
  return self->cluster;
}

char **
sim_simulation_dup_warnings (SimSimulation *self)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), NULL);
  if (self->topology == NULL)
    return g_new0 (char *, 1);
  return g_strdupv ((char **) sim_topology_get_warnings (self->topology));
}

SimScenario *
sim_simulation_get_scenario (SimSimulation *self)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), NULL);
  return self->scenario;
}

SimPolicy *
sim_simulation_get_policy (SimSimulation *self)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), NULL);
  return self->policy;
}

SimReport *
sim_simulation_get_report (SimSimulation *self)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), NULL);
  return self->report;
}

guint
sim_simulation_get_n_classes (SimSimulation *self)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), 0);
  return sim__class_scaling_get_n_classes (self->scaling);
}

const char *
sim_simulation_get_class_name (SimSimulation *self, guint job_class)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), NULL);
  return sim__class_scaling_get_name (self->scaling, job_class);
}

gboolean
sim_simulation_get_class_speedup (SimSimulation *self, guint job_class, guint n_gpus,
                                  double *speedup, GError **error)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), FALSE);
  g_return_val_if_fail (speedup != NULL, FALSE);
  return sim__class_scaling_speedup (self->scaling, job_class, n_gpus, speedup, error);
}

void
sim_remove_temporary_files (void)
{
  /* Async-signal-safe: it only reads a fixed array and unlinks. */
  sim__remove_temporary_files ();
}

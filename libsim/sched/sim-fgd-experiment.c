/* sim-fgd-experiment.c: the FGD study's fragmentation experiment.
 *
 * Each (policy, seed) pair is a run on its own copy of the cluster, so runs
 * are independent and may execute on a thread pool; each writes only its
 * own slot of the result, and everything is summarised and printed in
 * order afterwards, so the output does not depend on which thread finished
 * first.
 *
 * Per task the work is one placement (O(nodes) or O(GPUs) for the
 * built-ins) plus the update of one node's fragmentation, O(task types x
 * GPUs per node): the cluster's fragmentation is kept as a sum of per-node
 * terms, in integers (thousandths of a GPU times pod counts), so it is
 * exact and never drifts.  Recomputing every node at every sample would
 * cost O(nodes x types x GPUs per node) per sample instead.
 *
 * CPU and memory are not part of the cluster's state yet: a run keeps the
 * free CPU and memory of each node in arrays, and node_admits() is the one
 * place that decides whether a node can take a task on those grounds (and
 * on GPU model).  A placement is asked for first on the whole cluster;
 * only if it picks a node that node_admits() refuses are the refusing
 * nodes masked (their free GPU capacity allocated for the time of one
 * call) and the placement asked again.  For a placement that picks the
 * best node by a score of the node alone (first-fit, best-fit, packing,
 * FGD) this is the same as filtering the nodes first, and it costs nothing
 * in the common case where the first choice is admitted.
 */
#include "config.h"

#include "sched/sim-fgd-experiment.h"
#include "sched/sim-fgd-paper.h"
#include "sched/sim-policy.h"
#include "cluster/sim-cluster.h"
#include "workload/sim-openb.h"
#include "core/sim-rng.h"
#include "core/sim-error.h"
#include "core/sim-util.h"

#include <math.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <json-glib/json-glib.h>

const char *const sim_fgd_paper_policies[] = {
  "random", "dot-product", "clustering", "packing", "best-fit", "fgd", NULL,
};

#define MAX_MODELS 64
#define MAX_POINTS 1000000

/* A class of pods with the same demands; its weight is its popularity. */
typedef struct {
  guint64 cpu_milli;
  guint64 memory_mib;
  guint32 num_gpu;
  guint32 gpu_milli;
  guint64 models;    /* bit i: accepts the cluster's GPU model i */
  guint64 count;     /* pods of this type among the GPU pods */
} TaskType;

/* A pod that may be drawn. */
typedef struct {
  guint32 pod;       /* index in the pod list */
  guint32 type;
} Task;

/* ------------------------------------------------------------------------- */
/* The bridge to the policy registry.                                        */

typedef gboolean (*FgdPlaceFunc) (gpointer state, const SimCluster *cluster, const SimJob *job,
                                  SimPlacement *placement);

typedef struct {
  FgdPlaceFunc   place;
  gpointer       state;
  GDestroyNotify free_state;
} FgdPlacer;

/* What a placement may need to know of the experiment: the task population
 * (FGD minimises fragmentation with respect to it) and the run's seed (for
 * randomised placements). */
typedef struct {
  const TaskType *types;
  guint           n_types;
  guint64         total_count;
  guint64         seed;
  const SimCluster *cluster;
} FgdPlacerSetup;

static gboolean
registry_place (gpointer state, const SimCluster *cluster, const SimJob *job,
                SimPlacement *placement)
{
  return sim_policy_place (state, cluster, job, placement);
}

/* The one function that turns a policy name into a placement.  Errors:
 * SIM_ERROR_NOT_FOUND for an unknown name, listing the known ones. */
static gboolean
fgd_placer_init (FgdPlacer *placer, const char *name, const FgdPlacerSetup *setup,
                 GError **error)
{
  g_autofree SimTaskClass *classes = g_new0 (SimTaskClass, MAX (setup->n_types, 1));
  SimPolicySetup ps = { 0 };
  g_autoptr(SimPolicyParams) params = NULL;
  SimPolicy *policy;

  /* The task population, for placements that weigh the tasks to come. */
  for (guint i = 0; i < setup->n_types; i++)
    {
      classes[i].gpus = setup->types[i].num_gpu;
      classes[i].milli = setup->types[i].gpu_milli;
      classes[i].cpu_milli = (guint32) setup->types[i].cpu_milli;
      classes[i].memory_bytes = setup->types[i].memory_mib * G_GUINT64_CONSTANT (1048576);
      classes[i].weight = (double) setup->types[i].count;
    }
  /* The paper's dot-product baseline prefers the node whose free resources
   * align least with the task (its simulator scores 1 - cos). */
  params = sim_policy_params_new ();
  if (g_strcmp0 (name, "dot-product") == 0)
    sim_policy_params_set (params, "dot_product", "min");
  ps.params = params;
  ps.cluster = setup->cluster;
  ps.seed = setup->seed;
  ps.task_classes = classes;
  ps.n_task_classes = setup->n_types;
  policy = sim_policy_new ("fifo", name, &ps, error);
  if (policy == NULL)
    return FALSE;
  placer->place = registry_place;
  placer->state = policy;
  placer->free_state = g_object_unref;
  return TRUE;
}

static void
fgd_placer_clear (FgdPlacer *placer)
{
  if (placer->state != NULL && placer->free_state != NULL)
    placer->free_state (placer->state);
  placer->state = NULL;
}

/* ------------------------------------------------------------------------- */
/* The experiment's inputs, shared read-only by every run.                   */

typedef struct {
  char   *name;
  SimNodeModel *model;
  guint32 gpus;
  guint   model_index;
  GArray *members;   /* guint: indices in the node list */
} PoolSpec;

typedef struct {
  const GPtrArray *pods;
  const SimFgdConfig *config;

  GPtrArray *gpu_models;   /* SimGpuModel*, one per distinct model */
  GPtrArray *model_names;  /* char*, the trace's names, bit index = position */
  GPtrArray *pools;        /* PoolSpec* */
  guint    n_nodes;
  guint    n_gpus;
  guint    n_cpu_only;
  guint64  capacity_milli;
  guint64 *cpu_cap;        /* per cluster node */
  guint64 *mem_cap;
  guint8  *model_of;

  GArray  *types;          /* TaskType */
  guint64  total_count;
  GArray  *tasks;          /* Task */

  double  *points;
  guint64 *thresholds;     /* arrived demand in thousandths of a GPU */
  guint    n_points;
  guint    full_point;     /* index of 100%, or n_points */

  SimFgdPaper *paper;      /* the paper variant's inputs, or NULL */
} Experiment;

static void
gpu_model_free (SimGpuModel *m)
{
  g_free (m->name);
  g_free (m->vendor);
  g_free (m->description);
  g_free (m);
}

static void
pool_spec_free (PoolSpec *p)
{
  g_free (p->name);
  g_free (p->model->name);
  g_free (p->model->description);
  g_free (p->model->gpu_name);
  g_free (p->model);
  g_array_unref (p->members);
  g_free (p);
}

static void
experiment_clear (Experiment *e)
{
  g_clear_pointer (&e->gpu_models, g_ptr_array_unref);
  g_clear_pointer (&e->model_names, g_ptr_array_unref);
  g_clear_pointer (&e->pools, g_ptr_array_unref);
  g_clear_pointer (&e->cpu_cap, g_free);
  g_clear_pointer (&e->mem_cap, g_free);
  g_clear_pointer (&e->model_of, g_free);
  g_clear_pointer (&e->types, g_array_unref);
  g_clear_pointer (&e->tasks, g_array_unref);
  g_clear_pointer (&e->points, g_free);
  g_clear_pointer (&e->thresholds, g_free);
  g_clear_pointer (&e->paper, sim__fgd_paper_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Experiment, experiment_clear)

static guint
model_index (Experiment *e, const char *name, GError **error)
{
  SimGpuModel *m;

  for (guint i = 0; i < e->model_names->len; i++)
    if (strcmp (e->model_names->pdata[i], name) == 0)
      return i;
  if (e->model_names->len == MAX_MODELS)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "the node list has more than %d GPU models", MAX_MODELS);
      return G_MAXUINT;
    }
  g_ptr_array_add (e->model_names, g_strdup (name));
  m = g_new0 (SimGpuModel, 1);
  m->name = g_strdup (sim_openb_gpu_model_to_catalogue (name));
  m->vendor = g_strdup ("");
  m->description = g_strdup_printf ("GPU model %s of the openb trace", name);
  g_ptr_array_add (e->gpu_models, m);
  return e->model_names->len - 1;
}

static gboolean
build_cluster_spec (Experiment *e, const GPtrArray *nodes, GError **error)
{
  guint n = 0;

  e->gpu_models = g_ptr_array_new_with_free_func ((GDestroyNotify) gpu_model_free);
  e->model_names = g_ptr_array_new_with_free_func (g_free);
  e->pools = g_ptr_array_new_with_free_func ((GDestroyNotify) pool_spec_free);

  for (guint i = 0; i < nodes->len; i++)
    {
      const SimOpenbNode *node = nodes->pdata[i];
      PoolSpec *pool = NULL;
      guint mi;

      if (node->gpus == 0)
        {
          e->n_cpu_only++;
          continue;
        }
      if (node->gpus > SIM_CLUSTER_MAX_GPUS_PER_NODE)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "node %s has %u GPUs: at most %u per node are supported", node->sn,
                       node->gpus, SIM_CLUSTER_MAX_GPUS_PER_NODE);
          return FALSE;
        }
      mi = model_index (e, node->model, error);
      if (mi == G_MAXUINT)
        return FALSE;
      for (guint p = 0; p < e->pools->len && pool == NULL; p++)
        {
          PoolSpec *q = e->pools->pdata[p];
          if (q->model_index == mi && q->gpus == node->gpus)
            pool = q;
        }
      if (pool == NULL)
        {
          const SimGpuModel *gm = e->gpu_models->pdata[mi];
          pool = g_new0 (PoolSpec, 1);
          pool->name = g_strdup_printf ("%s-%ux", node->model, node->gpus);
          pool->gpus = node->gpus;
          pool->model_index = mi;
          pool->members = g_array_new (FALSE, FALSE, sizeof (guint));
          pool->model = g_new0 (SimNodeModel, 1);
          pool->model->name = g_strdup_printf ("openb-%s-%u", node->model, node->gpus);
          pool->model->description = g_strdup_printf ("openb node with %u x %s", node->gpus,
                                                      node->model);
          pool->model->gpu_name = g_strdup (gm->name);
          pool->model->gpu = gm;
          pool->model->gpus = node->gpus;
          g_ptr_array_add (e->pools, pool);
        }
      g_array_append_val (pool->members, i);
      e->n_nodes++;
      e->n_gpus += node->gpus;
    }
  if (e->n_nodes == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "the node list has no GPU node (%u CPU-only nodes)", e->n_cpu_only);
      return FALSE;
    }
  e->capacity_milli = (guint64) e->n_gpus * SIM_GPU_WHOLE;
  e->cpu_cap = g_new (guint64, e->n_nodes);
  e->mem_cap = g_new (guint64, e->n_nodes);
  e->model_of = g_new (guint8, e->n_nodes);
  for (guint p = 0; p < e->pools->len; p++)
    {
      const PoolSpec *pool = e->pools->pdata[p];
      for (guint j = 0; j < pool->members->len; j++, n++)
        {
          const SimOpenbNode *node = nodes->pdata[g_array_index (pool->members, guint, j)];
          e->cpu_cap[n] = node->cpu_milli;
          e->mem_cap[n] = node->memory_mib;
          e->model_of[n] = (guint8) pool->model_index;
        }
    }
  return TRUE;
}

/* The GPU models (bits) a pod accepts. */
static guint64
accepted_models (const Experiment *e, const SimOpenbPod *pod)
{
  guint64 mask = 0;

  if (e->config->ignore_gpu_spec || pod->gpu_spec[0] == NULL)
    return G_MAXUINT64;
  for (guint s = 0; pod->gpu_spec[s] != NULL; s++)
    for (guint m = 0; m < e->model_names->len; m++)
      {
        const char *name = e->model_names->pdata[m];
        if (g_ascii_strcasecmp (pod->gpu_spec[s], name) == 0
            || g_ascii_strcasecmp (pod->gpu_spec[s], sim_openb_gpu_model_to_catalogue (name)) == 0)
          mask |= G_GUINT64_CONSTANT (1) << m;
      }
  return mask;
}

static gboolean
build_population (Experiment *e, GError **error)
{
  g_autoptr(GHashTable) index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  e->types = g_array_new (FALSE, FALSE, sizeof (TaskType));
  e->tasks = g_array_new (FALSE, FALSE, sizeof (Task));
  for (guint i = 0; i < e->pods->len; i++)
    {
      const SimOpenbPod *pod = e->pods->pdata[i];
      TaskType t = { 0 };
      Task task;
      char *key;
      gpointer found;

      if (pod->num_gpu == 0 || pod->gpu_milli == 0)
        continue;
      t.cpu_milli = pod->cpu_milli;
      t.memory_mib = pod->memory_mib;
      t.num_gpu = pod->num_gpu;
      t.gpu_milli = pod->gpu_milli;
      t.models = accepted_models (e, pod);
      key = g_strdup_printf ("%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "/%u/%u/%"
                             G_GUINT64_FORMAT, t.cpu_milli, t.memory_mib, t.num_gpu,
                             t.gpu_milli, t.models);
      if (g_hash_table_lookup_extended (index, key, NULL, &found))
        {
          task.type = GPOINTER_TO_UINT (found);
          g_free (key);
        }
      else
        {
          task.type = e->types->len;
          g_array_append_val (e->types, t);
          g_hash_table_insert (index, key, GUINT_TO_POINTER (task.type));
        }
      g_array_index (e->types, TaskType, task.type).count++;
      task.pod = i;
      g_array_append_val (e->tasks, task);
    }
  e->total_count = e->tasks->len;
  if (e->tasks->len == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "the pod list has no pod asking for GPUs (%u pods)", e->pods->len);
      return FALSE;
    }
  return TRUE;
}

/* The sample points: every multiple of the step up to the stop, with 100%
 * (if reached) and the stop itself.  Shares closer than 1e-9 are one
 * point, and then 100% and the stop keep their exact values. */
static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static void
build_points (Experiment *e)
{
  const SimFgdConfig *c = e->config;
  g_autoptr(GArray) pts = g_array_new (FALSE, FALSE, sizeof (double));
  guint k_max = (guint) floor (c->stop_share / c->sample_step + 1e-9);
  double one = 1.0;

  for (guint k = 0; k <= k_max; k++)
    {
      /* Rounded to 1e-9 so that 3 x 0.01 is the share written 0.03. */
      double p = nearbyint (k * c->sample_step * 1e9) / 1e9;
      g_array_append_val (pts, p);
    }
  if (c->stop_share >= 1.0 - 1e-9)
    g_array_append_val (pts, one);
  g_array_append_val (pts, c->stop_share);
  g_array_sort (pts, compare_doubles);

  e->points = g_new (double, pts->len);
  e->thresholds = g_new (guint64, pts->len);
  e->n_points = 0;
  for (guint i = 0; i < pts->len; i++)
    {
      double p = g_array_index (pts, double, i);
      if (e->n_points > 0 && p - e->points[e->n_points - 1] < 1e-9)
        {
          if (p == 1.0 || p == c->stop_share)
            e->points[e->n_points - 1] = p;
          continue;
        }
      e->points[e->n_points++] = p;
    }
  /* A multiple of the step just above the stop by rounding merged into it;
   * anything beyond the stop goes. */
  while (e->n_points > 1 && e->points[e->n_points - 1] > c->stop_share)
    e->n_points--;
  e->points[e->n_points - 1] = c->stop_share;
  e->full_point = e->n_points;
  for (guint i = 0; i < e->n_points; i++)
    {
      e->thresholds[i] = (guint64) ceil (e->points[i] * (double) e->capacity_milli - 1e-6);
      if (e->points[i] == 1.0)
        e->full_point = i;
    }
}

/* ------------------------------------------------------------------------- */
/* One run.                                                                  */

typedef struct {
  guint32 gpu;
  guint32 milli;
} Mask;

typedef struct {
  const Experiment *exp;
  const char *policy;
  guint64     seed;
  SimFgdRun  *out;
  GError     *error;

  SimCluster *cluster;
  FgdPlacer   placer;
  guint64    *cpu_free;   /* per node */
  guint64    *mem_free;
  guint64    *frag;       /* per node: sum over types of count x F_n(m), thousandths */
  guint64     frag_sum;
  GArray     *masked;     /* Mask */
} Run;

/* Whether node @i may take a task of type @t as far as CPU, memory and GPU
 * model go (whether its GPUs have room is the placement's business).  The
 * one place that decides it while the cluster does not track CPU and
 * memory itself. */
static inline gboolean
node_admits (const Run *run, guint i, const TaskType *t)
{
  return run->cpu_free[i] >= t->cpu_milli && run->mem_free[i] >= t->memory_mib
         && ((t->models >> run->exp->model_of[i]) & 1) != 0;
}

/* Takes a placed task's CPU and memory from node @i. */
static inline void
node_take (Run *run, guint i, const TaskType *t)
{
  run->cpu_free[i] -= t->cpu_milli;
  run->mem_free[i] -= t->memory_mib;
  /* The cluster's own host accounting, which placements consult. */
  sim_cluster_reserve_host (run->cluster, i, t->cpu_milli,
                            t->memory_mib * G_GUINT64_CONSTANT (1048576), NULL);
}

static inline guint32
gpu_room (const SimGpu *g)
{
  return g->mig_used != 0 || g->used_milli >= SIM_GPU_WHOLE ? 0 : SIM_GPU_WHOLE - g->used_milli;
}

/* sum over task types m of count_m x F_n(m), in thousandths of a GPU. */
static guint64
node_fragmentation (const Run *run, guint i)
{
  const SimNode *node = sim_cluster_get_node (run->cluster, i);
  const Experiment *e = run->exp;
  guint32 room[SIM_CLUSTER_MAX_GPUS_PER_NODE];
  guint64 free_total = 0, sum = 0;

  for (guint g = 0; g < node->n_gpus; g++)
    {
      room[g] = gpu_room (sim_cluster_get_gpu (run->cluster, node->first_gpu + g));
      free_total += room[g];
    }
  if (free_total == 0)
    return 0;
  for (guint k = 0; k < e->types->len; k++)
    {
      const TaskType *t = &g_array_index (e->types, TaskType, k);
      guint64 f = free_total;

      if (node_admits (run, i, t))
        {
          guint fit = 0;
          guint64 unusable = 0;
          for (guint g = 0; g < node->n_gpus; g++)
            {
              if (room[g] >= t->gpu_milli)
                fit++;
              else
                unusable += room[g];
            }
          if (fit >= t->num_gpu)
            f = unusable;
        }
      sum += t->count * f;
    }
  return sum;
}

static void
update_fragmentation (Run *run, guint i)
{
  run->frag_sum -= run->frag[i];
  run->frag[i] = node_fragmentation (run, i);
  run->frag_sum += run->frag[i];
}

/* Makes the nodes that refuse @t look full to the placement.  Only GPUs
 * with room for the task need hiding: a node left with fewer such GPUs
 * than the task asks for cannot be chosen.  A node's whole free GPUs are
 * hidden in one call. */
static void
mask_refusing_nodes (Run *run, const TaskType *t)
{
  guint n_nodes = sim_cluster_get_n_nodes (run->cluster);

  for (guint i = 0; i < n_nodes; i++)
    {
      const SimNode *node = sim_cluster_get_node (run->cluster, i);
      guint32 whole[SIM_CLUSTER_MAX_GPUS_PER_NODE];
      guint n_whole = 0, usable = 0;

      if (node->free_gpus < t->num_gpu && t->gpu_milli == SIM_GPU_WHOLE)
        continue;
      if (node_admits (run, i, t))
        continue;
      for (guint g = 0; g < node->n_gpus; g++)
        if (gpu_room (sim_cluster_get_gpu (run->cluster, node->first_gpu + g)) >= t->gpu_milli)
          usable++;
      if (usable < t->num_gpu)
        continue;
      for (guint g = 0; g < node->n_gpus; g++)
        {
          Mask m = { node->first_gpu + g, 0 };
          m.milli = gpu_room (sim_cluster_get_gpu (run->cluster, m.gpu));
          if (m.milli < t->gpu_milli)
            continue;
          if (m.milli == SIM_GPU_WHOLE)
            whole[n_whole++] = m.gpu;
          else if (sim_cluster_allocate (run->cluster, &m.gpu, 1, m.milli, NULL))
            g_array_append_val (run->masked, m);
        }
      if (n_whole > 0 && sim_cluster_allocate (run->cluster, whole, n_whole, SIM_GPU_WHOLE, NULL))
        for (guint k = 0; k < n_whole; k++)
          {
            Mask m = { whole[k], SIM_GPU_WHOLE };
            g_array_append_val (run->masked, m);
          }
    }
}

static void
unmask_nodes (Run *run)
{
  for (guint i = run->masked->len; i-- > 0;)
    {
      const Mask *m = &g_array_index (run->masked, Mask, i);
      sim_cluster_release (run->cluster, &m->gpu, 1, m->milli);
    }
  g_array_set_size (run->masked, 0);
}

/* Checks that @pl is a placement of @t on one node and returns that node. */
static gboolean
placement_node (Run *run, const TaskType *t, const SimPlacement *pl, guint *node,
                GError **error)
{
  guint n_gpus = sim_cluster_get_n_gpus (run->cluster);

  if (pl->n_gpus != t->num_gpu || pl->milli != t->gpu_milli)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                   "placement \"%s\" gave %u GPU(s) of %u/1000 for a task of %u GPU(s) of "
                   "%u/1000", run->policy, pl->n_gpus, pl->milli, t->num_gpu, t->gpu_milli);
      return FALSE;
    }
  for (guint k = 0; k < pl->n_gpus; k++)
    {
      guint this_node;
      if (pl->gpus[k] >= n_gpus)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                       "placement \"%s\" gave GPU %u, which does not exist", run->policy,
                       pl->gpus[k]);
          return FALSE;
        }
      this_node = sim_cluster_get_gpu (run->cluster, pl->gpus[k])->node;
      if (k == 0)
        *node = this_node;
      else if (this_node != *node)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                       "placement \"%s\" spread a task over nodes %u and %u: a task must "
                       "run on one node", run->policy, *node, this_node);
          return FALSE;
        }
    }
  return TRUE;
}

/* Returns 1 if the task was placed, 0 if it did not fit, -1 on error. */
static int
place_task (Run *run, const TaskType *t, SimJob *job, SimPlacement *pl, GError **error)
{
  guint node = 0;
  gboolean ok;

  if (t->num_gpu > sim_cluster_get_max_gpus_per_node (run->cluster))
    return 0;
  ok = run->placer.place (run->placer.state, run->cluster, job, pl);
  if (ok && !placement_node (run, t, pl, &node, error))
    return -1;
  if (ok && !node_admits (run, node, t))
    {
      mask_refusing_nodes (run, t);
      ok = run->placer.place (run->placer.state, run->cluster, job, pl);
      unmask_nodes (run);
      if (ok && !placement_node (run, t, pl, &node, error))
        return -1;
      if (ok && !node_admits (run, node, t))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                       "placement \"%s\" chose node %u, which lacks the CPU, memory or GPU "
                       "model the task needs", run->policy, node);
          return -1;
        }
    }
  if (!ok)
    return 0;
  if (!sim_cluster_allocate (run->cluster, pl->gpus, pl->n_gpus, pl->milli, error))
    return -1;
  node_take (run, node, t);
  update_fragmentation (run, node);
  return 1;
}

static void
record_sample (Run *run, guint k, guint64 arrived, guint64 failed)
{
  const Experiment *e = run->exp;
  SimFgdSample *s = &run->out->samples[k];
  guint64 allocated = sim_cluster_get_allocated_milli (run->cluster);
  double capacity = (double) e->capacity_milli;

  s->arrived_share = e->points[k];
  s->demand_share = (double) arrived / capacity;
  s->allocated_share = (double) allocated / capacity;
  s->fragmented_share = (double) run->frag_sum / ((double) e->total_count * capacity);
  s->unallocated_gpus = (double) (e->capacity_milli - allocated) / SIM_GPU_WHOLE;
  s->failed_tasks = failed;
}

static gboolean
build_run_cluster (Run *run, GError **error)
{
  const Experiment *e = run->exp;

  run->cluster = sim_cluster_new ();
  for (guint p = 0; p < e->pools->len; p++)
    {
      const PoolSpec *pool = e->pools->pdata[p];
      if (!sim_cluster_add_pool (run->cluster, pool->name, pool->model, NULL, pool->gpus,
                                 pool->members->len, error))
        return FALSE;
    }
  for (guint i = 0; i < e->n_nodes; i++)
    sim_cluster_set_node_host (run->cluster, i, e->cpu_cap[i],
                               e->mem_cap[i] * G_GUINT64_CONSTANT (1048576));
  return TRUE;
}

static gboolean
execute_run (Run *run, GError **error)
{
  const Experiment *e = run->exp;
  FgdPlacerSetup setup = { 0 };
  g_autoptr(SimRng) rng = sim_rng_new (run->seed, "fgd-tasks");
  guint32 gpus[SIM_CLUSTER_MAX_GPUS_PER_NODE];
  guint64 arrived = 0, failed = 0, drawn = 0;
  guint64 digest = G_GUINT64_CONSTANT (0xcbf29ce484222325);
  guint next = 0;

  if (!build_run_cluster (run, error))
    return FALSE;
  setup.types = (const TaskType *) (void *) e->types->data;
  setup.n_types = e->types->len;
  setup.total_count = e->total_count;
  setup.seed = run->seed;
  setup.cluster = run->cluster;
  if (!fgd_placer_init (&run->placer, run->policy, &setup, error))
    return FALSE;
  run->cpu_free = g_memdup2 (e->cpu_cap, e->n_nodes * sizeof (guint64));
  run->mem_free = g_memdup2 (e->mem_cap, e->n_nodes * sizeof (guint64));
  run->frag = g_new0 (guint64, e->n_nodes);
  run->masked = g_array_new (FALSE, FALSE, sizeof (Mask));
  for (guint i = 0; i < e->n_nodes; i++)
    update_fragmentation (run, i);

  run->out->policy = g_strdup (run->policy);
  run->out->seed = run->seed;
  run->out->n_samples = e->n_points;
  run->out->samples = g_new0 (SimFgdSample, e->n_points);
  while (next < e->n_points && arrived >= e->thresholds[next])
    record_sample (run, next++, arrived, failed);

  while (next < e->n_points)
    {
      guint64 pick = sim_rng_uniform_int (rng, e->tasks->len);
      const Task *task = &g_array_index (e->tasks, Task, pick);
      const TaskType *t = &g_array_index (e->types, TaskType, task->type);
      SimJob job = { 0 };
      SimPlacement pl = { gpus, 0, 0, -1 };
      int placed;

      for (guint b = 0; b < 4; b++)
        digest = (digest ^ ((task->pod >> (8 * b)) & 0xff)) * G_GUINT64_CONSTANT (0x100000001b3);
      job.spec.id = ++drawn;
      job.spec.gpus = t->num_gpu;
      job.spec.gpu_milli = t->gpu_milli;
      job.spec.cpu_milli = (guint32) t->cpu_milli;
      job.spec.memory_bytes = t->memory_mib * G_GUINT64_CONSTANT (1048576);
      job.spec.user = -1;
      job.spec.status = -1;
      job.state = SIM_JOB_QUEUED;
      job.start = job.end = -1;
      job.rate = 1.0;
      job.queue_seq = drawn;

      arrived += (guint64) t->num_gpu * t->gpu_milli;
      placed = place_task (run, t, &job, &pl, error);
      if (placed < 0)
        return FALSE;
      if (placed == 0)
        failed++;
      while (next < e->n_points && arrived >= e->thresholds[next])
        record_sample (run, next++, arrived, failed);
    }
  run->out->tasks_arrived = drawn;
  run->out->tasks_failed = failed;
  run->out->sequence_digest = digest;
  return TRUE;
}

static void
run_clear (Run *run)
{
  fgd_placer_clear (&run->placer);
  g_clear_pointer (&run->cluster, sim_cluster_free);
  g_clear_pointer (&run->cpu_free, g_free);
  g_clear_pointer (&run->mem_free, g_free);
  g_clear_pointer (&run->frag, g_free);
  g_clear_pointer (&run->masked, g_array_unref);
}

typedef struct {
  GMutex mutex;
  guint  done;
  guint  total;
  const SimFgdConfig *config;
} Progress;

static void
run_worker (gpointer data, gpointer user_data)
{
  Run *run = data;
  Progress *progress = user_data;

  if (run->exp->paper != NULL)
    sim__fgd_paper_run (run->exp->paper, run->policy, run->seed, run->exp->config->stop_share,
                        run->exp->config->ties_in_list_order, run->exp->points, run->exp->thresholds, run->exp->n_points, run->out,
                        &run->error);
  else
    execute_run (run, &run->error);
  run_clear (run);
  g_mutex_lock (&progress->mutex);
  progress->done++;
  if (progress->config->progress != NULL)
    progress->config->progress (progress->done, progress->total,
                                progress->config->progress_data);
  g_mutex_unlock (&progress->mutex);
}

/* ------------------------------------------------------------------------- */
/* Summaries.                                                                */

static SimFgdStat
stat_of (const double *x, guint n)
{
  SimFgdStat s = { 0, 0 };

  if (n == 0)
    {
      s.mean = NAN;
      return s;
    }
  s.mean = gsl_stats_mean (x, 1, n);
  if (n > 1)
    s.ci95 = gsl_cdf_tdist_Pinv (0.975, n - 1) * gsl_stats_sd_m (x, 1, n, s.mean) / sqrt (n);
  return s;
}

static void
summarise (SimFgdResult *r, const Experiment *e)
{
  g_autofree double *x = g_new (double, r->n_seeds);
  guint last = r->n_points - 1;

  for (guint p = 0; p < r->n_policies; p++)
    {
      SimFgdPolicySummary *s = &r->summaries[p];
      const SimFgdRun *runs = &r->runs[p * r->n_seeds];

      s->policy = g_strdup (runs[0].policy);
      s->allocated = g_new (SimFgdStat, r->n_points);
      s->fragmented = g_new (SimFgdStat, r->n_points);
      for (guint k = 0; k < r->n_points; k++)
        {
          for (guint j = 0; j < r->n_seeds; j++)
            x[j] = runs[j].samples[k].allocated_share;
          s->allocated[k] = stat_of (x, r->n_seeds);
          for (guint j = 0; j < r->n_seeds; j++)
            x[j] = runs[j].samples[k].fragmented_share;
          s->fragmented[k] = stat_of (x, r->n_seeds);
        }
      if (e->full_point < r->n_points)
        s->allocated_at_full = s->allocated[e->full_point];
      else
        s->allocated_at_full = stat_of (x, 0);
      s->allocated_at_stop = s->allocated[last];
      s->fragmented_at_stop = s->fragmented[last];
      for (guint j = 0; j < r->n_seeds; j++)
        x[j] = runs[j].samples[last].unallocated_gpus;
      s->unallocated_at_stop = stat_of (x, r->n_seeds);
      for (guint j = 0; j < r->n_seeds; j++)
        x[j] = (double) runs[j].tasks_failed;
      s->failed_tasks = stat_of (x, r->n_seeds);
    }
}

void
sim_fgd_result_free (SimFgdResult *result)
{
  if (result == NULL)
    return;
  for (guint i = 0; i < result->n_runs; i++)
    {
      g_free (result->runs[i].policy);
      g_free (result->runs[i].samples);
    }
  for (guint i = 0; i < result->n_policies; i++)
    {
      g_free (result->summaries[i].policy);
      g_free (result->summaries[i].allocated);
      g_free (result->summaries[i].fragmented);
    }
  g_free (result->runs);
  g_free (result->summaries);
  g_free (result->points);
  g_free (result);
}

static gboolean
check_config (const SimFgdConfig *c, GError **error)
{
  if (c->n_policies == 0 || c->policies == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "no policy to compare");
      return FALSE;
    }
  for (guint i = 0; i < c->n_policies; i++)
    if (c->policies[i] == NULL || *c->policies[i] == '\0')
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "policy %u has no name", i + 1);
        return FALSE;
      }
  if (c->n_seeds == 0 || c->n_seeds > 1000000)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%u seeds: expected 1 to 1000000",
                   c->n_seeds);
      return FALSE;
    }
  if (!(c->stop_share > 0 && c->stop_share <= 100))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "stop share %g: expected more than 0 and at most 100 (10000%%)",
                   c->stop_share);
      return FALSE;
    }
  if (!(c->sample_step > 0 && c->sample_step <= c->stop_share)
      || c->stop_share / c->sample_step > MAX_POINTS)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "sample step %g: expected more than 0, at most the stop share (%g), and "
                   "at most %d samples", c->sample_step, c->stop_share, MAX_POINTS);
      return FALSE;
    }
  return TRUE;
}

SimFgdResult *
sim_fgd_experiment_run (const GPtrArray *nodes, const GPtrArray *pods,
                        const SimFgdConfig *config, GError **error)
{
  g_auto(Experiment) e = { 0 };
  g_autoptr(SimFgdResult) r = NULL;
  g_autofree Run *runs = NULL;
  Progress progress = { 0 };
  guint n_threads;

  g_return_val_if_fail (nodes != NULL && pods != NULL && config != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_config (config, error))
    return NULL;
  if (config->variant != SIM_FGD_VARIANT_PAPER && config->variant != SIM_FGD_VARIANT_GPUSIM)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "unknown variant %d: expected %d "
                   "(paper) or %d (gpusim)", (int) config->variant, SIM_FGD_VARIANT_PAPER,
                   SIM_FGD_VARIANT_GPUSIM);
      return NULL;
    }
  /* Unknown names are refused before anything runs. */
  for (guint i = 0; i < config->n_policies; i++)
    {
      FgdPlacer placer = { 0 };
      FgdPlacerSetup setup = { 0 };
      if (config->variant == SIM_FGD_VARIANT_PAPER)
        {
          if (!sim__fgd_paper_check_policy (config->policies[i], error))
            return NULL;
          continue;
        }
      if (!fgd_placer_init (&placer, config->policies[i], &setup, error))
        return NULL;
      fgd_placer_clear (&placer);
    }
  e.pods = pods;
  e.config = config;
  r = g_new0 (SimFgdResult, 1);
  if (config->variant == SIM_FGD_VARIANT_PAPER)
    {
      e.paper = sim__fgd_paper_new (nodes, pods, config->ignore_gpu_spec, error);
      if (e.paper == NULL)
        return NULL;
      if (sim__fgd_paper_n_gpu_pods (e.paper) == 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "the pod list has no pod asking for GPUs (%u pods)", pods->len);
          return NULL;
        }
      e.capacity_milli = (guint64) sim__fgd_paper_n_gpus (e.paper) * SIM_GPU_WHOLE;
      r->n_nodes = sim__fgd_paper_n_nodes (e.paper);
      r->n_gpus = sim__fgd_paper_n_gpus (e.paper);
      r->n_cpu_only_nodes = sim__fgd_paper_n_cpu_only_nodes (e.paper);
      r->n_gpu_pods = sim__fgd_paper_n_gpu_pods (e.paper);
      r->n_task_types = sim__fgd_paper_n_typical_types (e.paper);
    }
  else
    {
      if (!build_cluster_spec (&e, nodes, error) || !build_population (&e, error))
        return NULL;
      r->n_nodes = e.n_nodes;
      r->n_gpus = e.n_gpus;
      r->n_cpu_only_nodes = e.n_cpu_only;
      r->n_gpu_pods = e.tasks->len;
      r->n_task_types = e.types->len;
    }
  build_points (&e);

  r->variant = config->variant;
  r->ties_in_list_order = config->variant == SIM_FGD_VARIANT_PAPER && config->ties_in_list_order;
  r->n_pods = pods->len;
  r->stop_share = config->stop_share;
  r->sample_step = config->sample_step;
  r->first_seed = config->first_seed;
  r->n_seeds = config->n_seeds;
  r->n_points = e.n_points;
  r->points = g_memdup2 (e.points, e.n_points * sizeof (double));
  r->n_policies = config->n_policies;
  r->n_runs = config->n_policies * config->n_seeds;
  r->runs = g_new0 (SimFgdRun, r->n_runs);
  r->summaries = g_new0 (SimFgdPolicySummary, r->n_policies);

  runs = g_new0 (Run, r->n_runs);
  for (guint p = 0; p < config->n_policies; p++)
    for (guint j = 0; j < config->n_seeds; j++)
      {
        Run *run = &runs[p * config->n_seeds + j];
        run->exp = &e;
        run->policy = config->policies[p];
        run->seed = config->first_seed + j;
        run->out = &r->runs[p * config->n_seeds + j];
      }

  g_mutex_init (&progress.mutex);
  progress.total = r->n_runs;
  progress.config = config;
  n_threads = config->n_threads ? config->n_threads : g_get_num_processors ();
  n_threads = MIN (n_threads, r->n_runs);
  if (n_threads <= 1)
    for (guint i = 0; i < r->n_runs; i++)
      run_worker (&runs[i], &progress);
  else
    {
      GThreadPool *pool = g_thread_pool_new (run_worker, &progress, (gint) n_threads, TRUE,
                                             error);
      if (pool == NULL)
        {
          g_mutex_clear (&progress.mutex);
          return NULL;
        }
      for (guint i = 0; i < r->n_runs; i++)
        g_thread_pool_push (pool, &runs[i], NULL);
      g_thread_pool_free (pool, FALSE, TRUE);
    }
  g_mutex_clear (&progress.mutex);

  /* The first failure in run order, whichever thread met it first. */
  for (guint i = 0; i < r->n_runs; i++)
    if (runs[i].error != NULL)
      {
        g_propagate_error (error, runs[i].error);
        runs[i].error = NULL;
        for (guint j = i + 1; j < r->n_runs; j++)
          g_clear_error (&runs[j].error);
        return NULL;
      }
  summarise (r, &e);
  return g_steal_pointer (&r);
}

/* ------------------------------------------------------------------------- */
/* Output.                                                                   */

/* @v formatted with @format in the C locale, into @buf. */
static const char *
fmt (char buf[G_ASCII_DTOSTR_BUF_SIZE], const char *format, double v)
{
  return g_ascii_formatd (buf, G_ASCII_DTOSTR_BUF_SIZE, format, v);
}

/* "93.21 +- 0.15" for a share, in percent; "-" if undefined. */
static void
append_pct_stat (GString *s, SimFgdStat st, int width)
{
  char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE];
  g_autofree char *cell = NULL;

  if (isnan (st.mean))
    cell = g_strdup ("-");
  else
    cell = g_strdup_printf ("%s +- %s", fmt (a, "%.2f", 100 * st.mean),
                            fmt (b, "%.2f", 100 * st.ci95));
  g_string_append_printf (s, "%-*s", width, cell);
}

static char *
pct_label (double share)
{
  char a[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup_printf ("%s%%", fmt (a, "%.4g", 100 * share));
}

static guint
policy_width (const SimFgdResult *r)
{
  guint w = 6;

  for (guint p = 0; p < r->n_policies; p++)
    w = MAX (w, strlen (r->summaries[p].policy));
  return w + 2;
}

char *
sim_fgd_result_format_table (const SimFgdResult *r)
{
  GString *s = g_string_new (NULL);
  g_autofree char *stop = NULL;
  g_autofree char *step = NULL;
  g_autofree char *col_stop = NULL;
  char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE];
  guint pw;

  g_return_val_if_fail (r != NULL, NULL);
  stop = pct_label (r->stop_share);
  step = pct_label (r->sample_step);
  pw = policy_width (r);
  if (r->variant == SIM_FGD_VARIANT_PAPER)
    {
      g_string_append_printf (s, "variant     paper (as the study's own simulator runs it)\n");
      g_string_append_printf (s, "cluster     %u nodes in list order (%u with GPUs), %u GPUs; "
                              "ties to the first node by %s\n", r->n_nodes,
                              r->n_nodes - r->n_cpu_only_nodes, r->n_gpus,
                              r->ties_in_list_order ? "name"
                                                    : "name, names prefixed at random per seed");
      g_string_append_printf (s, "tasks       the %u pods (%u asking for GPUs, %u CPU-only) "
                              "shuffled, topped up or trimmed\n            by uniform draws "
                              "to the stop share; none leaving; FGD weighs %u typical types\n",
                              r->n_pods, r->n_gpu_pods, r->n_pods - r->n_gpu_pods,
                              r->n_task_types);
    }
  else
    {
      g_string_append_printf (s, "variant     gpusim (GPU pods only, GPU nodes pooled by "
                              "model)\n");
      g_string_append_printf (s, "cluster     %u GPU nodes, %u GPUs", r->n_nodes, r->n_gpus);
      if (r->n_cpu_only_nodes > 0)
        g_string_append_printf (s, " (%u CPU-only nodes left out)", r->n_cpu_only_nodes);
      g_string_append_printf (s, "\ntasks       drawn from %u GPU pods of %u (%u task types), "
                              "with replacement, none leaving\n", r->n_gpu_pods, r->n_pods,
                              r->n_task_types);
    }
  g_string_append_printf (s, "runs        %u %s x %u seeds (%" G_GUINT64_FORMAT " to %"
                          G_GUINT64_FORMAT "), until arrived GPU demand reaches %s of "
                          "capacity, sampled every %s\n\n", r->n_policies,
                          r->n_policies == 1 ? "policy" : "policies", r->n_seeds,
                          r->first_seed, r->first_seed + r->n_seeds - 1, stop, step);
  g_string_append (s, "allocation rate: allocated GPUs / GPU capacity, %, mean +- 95% CI "
                      "over seeds;\nfailed tasks, fragmented share of capacity and "
                      "unallocated GPUs at the end\n");
  col_stop = g_strdup_printf ("alloc. at %s", stop);
  g_string_append_printf (s, "%-*s%-18s%-18s%-18s%-12s%s\n", pw, "policy", "alloc. at 100%",
                          col_stop, "failed tasks", "fragmented", "unallocated GPUs");
  for (guint p = 0; p < r->n_policies; p++)
    {
      const SimFgdPolicySummary *x = &r->summaries[p];
      g_autofree char *failed = NULL;
      g_autofree char *frag = NULL;

      g_string_append_printf (s, "%-*s", pw, x->policy);
      append_pct_stat (s, x->allocated_at_full, 18);
      append_pct_stat (s, x->allocated_at_stop, 18);
      failed = g_strdup_printf ("%s +- %s", fmt (a, "%.1f", x->failed_tasks.mean),
                                fmt (b, "%.1f", x->failed_tasks.ci95));
      g_string_append_printf (s, "%-18s", failed);
      frag = g_strdup_printf ("%s%%", fmt (a, "%.2f", 100 * x->fragmented_at_stop.mean));
      g_string_append_printf (s, "%-12s", frag);
      g_string_append_printf (s, "%s\n", fmt (a, "%.1f", x->unallocated_at_stop.mean));
    }
  return g_string_free (s, FALSE);
}

/* Ends the current line of @s without trailing blanks. */
static void
end_line (GString *s)
{
  while (s->len > 0 && s->str[s->len - 1] == ' ')
    g_string_truncate (s, s->len - 1);
  g_string_append_c (s, '\n');
}

char *
sim_fgd_result_format_curve (const SimFgdResult *r, guint every)
{
  GString *s = g_string_new (NULL);
  guint cw;

  g_return_val_if_fail (r != NULL, NULL);
  every = MAX (every, 1);
  cw = MAX (policy_width (r), 18);
  g_string_append (s, "allocation rate (%, mean +- 95% CI) against arrived GPU demand\n");
  g_string_append_printf (s, "%-10s", "arrived");
  for (guint p = 0; p < r->n_policies; p++)
    g_string_append_printf (s, "%-*s", cw, r->summaries[p].policy);
  end_line (s);
  for (guint k = 0; k < r->n_points; k++)
    {
      g_autofree char *label = NULL;
      if (k % every != 0 && k != r->n_points - 1)
        continue;
      label = pct_label (r->points[k]);
      g_string_append_printf (s, "%-10s", label);
      for (guint p = 0; p < r->n_policies; p++)
        append_pct_stat (s, r->summaries[p].allocated[k], cw);
      end_line (s);
    }
  return g_string_free (s, FALSE);
}

static void
add_stat (JsonBuilder *b, const char *name, SimFgdStat st)
{
  json_builder_set_member_name (b, name);
  if (isnan (st.mean))
    {
      json_builder_add_null_value (b);
      return;
    }
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "mean");
  json_builder_add_double_value (b, st.mean);
  json_builder_set_member_name (b, "ci95");
  json_builder_add_double_value (b, st.ci95);
  json_builder_end_object (b);
}

static void
add_int (JsonBuilder *b, const char *name, gint64 v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, v);
}

static void add_paper_reference (JsonBuilder *b, const SimFgdResult *r, const char *list);

/* The JSON text, with the paper's figures for @list if not NULL. */
static char *
result_json (const SimFgdResult *r, gboolean pretty, const char *list)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "variant");
  json_builder_add_string_value (b, sim_fgd_variant_to_string (r->variant));
  json_builder_set_member_name (b, "cluster");
  json_builder_begin_object (b);
  if (r->variant == SIM_FGD_VARIANT_PAPER)
    {
      add_int (b, "nodes", r->n_nodes);
      add_int (b, "gpus", r->n_gpus);
      add_int (b, "cpu_only_nodes", r->n_cpu_only_nodes);
      json_builder_set_member_name (b, "ties_in_list_order");
      json_builder_add_boolean_value (b, r->ties_in_list_order);
    }
  else
    {
      add_int (b, "gpu_nodes", r->n_nodes);
      add_int (b, "gpus", r->n_gpus);
      add_int (b, "cpu_only_nodes_left_out", r->n_cpu_only_nodes);
    }
  json_builder_end_object (b);
  json_builder_set_member_name (b, "tasks");
  json_builder_begin_object (b);
  add_int (b, "pods", r->n_pods);
  add_int (b, "gpu_pods", r->n_gpu_pods);
  add_int (b, "task_types", r->n_task_types);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "stop_share");
  json_builder_add_double_value (b, r->stop_share);
  json_builder_set_member_name (b, "sample_step");
  json_builder_add_double_value (b, r->sample_step);
  add_int (b, "first_seed", (gint64) r->first_seed);
  add_int (b, "seeds", r->n_seeds);
  /* In percent, where the sample points are round numbers. */
  json_builder_set_member_name (b, "arrived_percent");
  json_builder_begin_array (b);
  for (guint k = 0; k < r->n_points; k++)
    json_builder_add_double_value (b, nearbyint (r->points[k] * 1e8) / 1e6);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "policies");
  json_builder_begin_array (b);
  for (guint p = 0; p < r->n_policies; p++)
    {
      const SimFgdPolicySummary *x = &r->summaries[p];

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, x->policy);
      add_stat (b, "allocated_share_at_100", x->allocated_at_full);
      add_stat (b, "allocated_share_at_stop", x->allocated_at_stop);
      add_stat (b, "failed_tasks", x->failed_tasks);
      add_stat (b, "fragmented_share_at_stop", x->fragmented_at_stop);
      add_stat (b, "unallocated_gpus_at_stop", x->unallocated_at_stop);
      json_builder_set_member_name (b, "allocated_share");
      json_builder_begin_array (b);
      for (guint k = 0; k < r->n_points; k++)
        {
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "mean");
          json_builder_add_double_value (b, x->allocated[k].mean);
          json_builder_set_member_name (b, "ci95");
          json_builder_add_double_value (b, x->allocated[k].ci95);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_set_member_name (b, "fragmented_share");
      json_builder_begin_array (b);
      for (guint k = 0; k < r->n_points; k++)
        json_builder_add_double_value (b, x->fragmented[k].mean);
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  if (list != NULL)
    add_paper_reference (b, r, list);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, pretty);
  return json_generator_to_data (gen, NULL);
}

char *
sim_fgd_result_to_json (const SimFgdResult *r, gboolean pretty)
{
  g_return_val_if_fail (r != NULL, NULL);
  return result_json (r, pretty, NULL);
}

gboolean
sim_fgd_result_write_csv (const SimFgdResult *r, const char *path, GError **error)
{
  g_autoptr(SimAtomicFile) file = NULL;
  FILE *out;

  g_return_val_if_fail (r != NULL && path != NULL, FALSE);
  file = sim__atomic_file_new (path, error);
  if (file == NULL)
    return FALSE;
  out = sim__atomic_file_stream (file);
  fputs ("policy,seed,arrived_share,allocated_share,fragmented_share\n", out);
  for (guint i = 0; i < r->n_runs; i++)
    {
      const SimFgdRun *run = &r->runs[i];
      for (guint k = 0; k < run->n_samples; k++)
        {
          char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE];
          char c[G_ASCII_DTOSTR_BUF_SIZE];
          const SimFgdSample *x = &run->samples[k];
          sim__csv_write_field (out, run->policy);
          fprintf (out, ",%" G_GUINT64_FORMAT ",%s,%s,%s\n", run->seed,
                   fmt (a, "%.4f", x->arrived_share), fmt (b, "%.6f", x->allocated_share),
                   fmt (c, "%.6f", x->fragmented_share));
        }
    }
  return sim__atomic_file_commit (file, error);
}

/* ------------------------------------------------------------------------- */
/* Variants and the paper's figures.                                         */

const char *
sim_fgd_variant_to_string (SimFgdVariant variant)
{
  return variant == SIM_FGD_VARIANT_GPUSIM ? "gpusim" : "paper";
}

gboolean
sim_fgd_variant_from_string (const char *name, SimFgdVariant *variant, GError **error)
{
  g_return_val_if_fail (variant != NULL, FALSE);
  if (g_strcmp0 (name, "paper") == 0)
    *variant = SIM_FGD_VARIANT_PAPER;
  else if (g_strcmp0 (name, "gpusim") == 0)
    *variant = SIM_FGD_VARIANT_GPUSIM;
  else
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "unknown variant \"%s\": expected paper or gpusim", name ? name : "");
      return FALSE;
    }
  return TRUE;
}

/* The points the paper's figures are given at, in percent. */
static const int reference_points[] = { 90, 100, 110, 120, 130 };

/* Mean allocation rate (percent) over the paper's ten seeds, from its
 * artifact (experiments/analysis/expected_results/analysis_allo_discrete.csv
 * of hkust-adsl/kubernetes-scheduler-simulator), policies in the order of
 * sim_fgd_paper_policies. */
static const struct {
  const char *list;
  double pct[6][G_N_ELEMENTS (reference_points)];
} references[] = {
  { "default", {
      { 85.02, 86.30, 86.88, 87.28, 87.47 },   /* random */
      { 89.98, 90.62, 90.70, 90.76, 90.85 },   /* dot-product */
      { 89.98, 91.65, 91.73, 91.80, 91.88 },   /* clustering */
      { 89.98, 91.78, 91.85, 91.92, 92.00 },   /* packing */
      { 89.99, 92.86, 92.94, 93.00, 93.08 },   /* best-fit */
      { 89.98, 95.23, 95.30, 95.35, 95.39 },   /* fgd */
    } },
  { "gpushare100", {
      { 78.21, 78.90, 79.13, 79.30, 79.44 },
      { 81.84, 81.98, 82.12, 82.27, 82.42 },
      { 82.08, 82.22, 82.37, 82.52, 82.65 },
      { 81.99, 82.13, 82.28, 82.43, 82.57 },
      { 84.48, 84.62, 84.75, 84.90, 85.01 },
      { 86.53, 86.64, 86.73, 86.81, 86.90 },
    } },
};

gboolean
sim_fgd_paper_reference (const char *pod_list, const char *policy, double arrived_share,
                         double *allocated_share)
{
  for (guint l = 0; l < G_N_ELEMENTS (references); l++)
    {
      if (g_strcmp0 (pod_list, references[l].list) != 0)
        continue;
      for (guint p = 0; sim_fgd_paper_policies[p] != NULL; p++)
        {
          if (g_strcmp0 (policy, sim_fgd_paper_policies[p]) != 0)
            continue;
          for (guint k = 0; k < G_N_ELEMENTS (reference_points); k++)
            if (fabs (arrived_share * 100 - reference_points[k]) < 1e-6)
              {
                if (allocated_share != NULL)
                  *allocated_share = references[l].pct[p][k] / 100;
                return TRUE;
              }
        }
    }
  return FALSE;
}

const char *
sim_fgd_reference_list_of (const char *pod_list_path)
{
  g_autofree char *base = NULL;

  g_return_val_if_fail (pod_list_path != NULL, NULL);
  base = g_path_get_basename (pod_list_path);
  for (guint l = 0; l < G_N_ELEMENTS (references); l++)
    {
      g_autofree char *csv = g_strdup_printf ("openb_pod_list_%s.csv", references[l].list);
      g_autofree char *gz = g_strdup_printf ("openb_pod_list_%s.csv.gz", references[l].list);
      if (strcmp (base, csv) == 0 || strcmp (base, gz) == 0)
        return references[l].list;
    }
  return NULL;
}

/* The index of the sample point at @share, or G_MAXUINT. */
static guint
point_index (const SimFgdResult *r, double share)
{
  for (guint k = 0; k < r->n_points; k++)
    if (fabs (r->points[k] - share) < 1e-9)
      return k;
  return G_MAXUINT;
}

static gboolean
has_reference (const char *list)
{
  for (guint l = 0; l < G_N_ELEMENTS (references); l++)
    if (g_strcmp0 (list, references[l].list) == 0)
      return TRUE;
  return FALSE;
}

/* Whether the policies with a reference rank at @k as in the paper. */
static gboolean
same_ranking (const SimFgdResult *r, const char *list, guint k)
{
  for (guint a = 0; a < r->n_policies; a++)
    for (guint b = 0; b < r->n_policies; b++)
      {
        const char *pa = r->summaries[a].policy, *pb = r->summaries[b].policy;
        double ra, rb;
        if (a == b || !sim_fgd_paper_reference (list, pa, r->points[k], &ra)
            || !sim_fgd_paper_reference (list, pb, r->points[k], &rb))
          continue;
        if (ra < rb && !(r->summaries[a].allocated[k].mean < r->summaries[b].allocated[k].mean))
          return FALSE;
      }
  return TRUE;
}

char *
sim_fgd_result_format_against_paper (const SimFgdResult *r, const char *list)
{
  GString *s;
  guint pw, last;
  char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE], c[G_ASCII_DTOSTR_BUF_SIZE];

  g_return_val_if_fail (r != NULL, NULL);
  if (!has_reference (list))
    return NULL;
  s = g_string_new (NULL);
  pw = policy_width (r);
  g_string_append_printf (s, "allocation rate (%%) beside the paper's (Weng et al., ATC'23, "
                          "openb %s list, mean of 10 seeds):\nours / paper (ours - paper) "
                          "at each arrived GPU demand\n", list);
  g_string_append_printf (s, "%-*s", pw, "policy");
  for (guint k = 0; k < G_N_ELEMENTS (reference_points); k++)
    {
      g_autofree char *h = g_strdup_printf ("%d%%", reference_points[k]);
      g_string_append_printf (s, "%-23s", h);
    }
  end_line (s);
  for (guint p = 0; p < r->n_policies; p++)
    {
      const SimFgdPolicySummary *x = &r->summaries[p];
      g_string_append_printf (s, "%-*s", pw, x->policy);
      for (guint k = 0; k < G_N_ELEMENTS (reference_points); k++)
        {
          double share = reference_points[k] / 100.0, ref;
          guint i = point_index (r, share);
          g_autofree char *cell = NULL;
          if (i == G_MAXUINT || !sim_fgd_paper_reference (list, x->policy, share, &ref))
            cell = g_strdup ("-");
          else
            cell = g_strdup_printf ("%s / %s (%s)", fmt (a, "%.2f", 100 * x->allocated[i].mean),
                                    fmt (b, "%.2f", 100 * ref),
                                    fmt (c, "%+.2f", 100 * (x->allocated[i].mean - ref)));
          g_string_append_printf (s, "%-23s", cell);
        }
      end_line (s);
    }
  last = point_index (r, 1.30);
  if (last != G_MAXUINT)
    g_string_append_printf (s, "ranking at 130%%: %s\n",
                            same_ranking (r, list, last) ? "as in the paper"
                                                         : "differs from the paper");
  return g_string_free (s, FALSE);
}

static void
add_paper_reference (JsonBuilder *b, const SimFgdResult *r, const char *list)
{
  json_builder_set_member_name (b, "paper");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "pod_list");
  json_builder_add_string_value (b, list);
  json_builder_set_member_name (b, "arrived_percent");
  json_builder_begin_array (b);
  for (guint k = 0; k < G_N_ELEMENTS (reference_points); k++)
    json_builder_add_int_value (b, reference_points[k]);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "allocated_share");
  json_builder_begin_object (b);
  for (guint p = 0; p < r->n_policies; p++)
    {
      const char *name = r->summaries[p].policy;
      double v;
      if (!sim_fgd_paper_reference (list, name, 1.30, NULL))
        continue;
      json_builder_set_member_name (b, name);
      json_builder_begin_array (b);
      for (guint k = 0; k < G_N_ELEMENTS (reference_points); k++)
        {
          sim_fgd_paper_reference (list, name, reference_points[k] / 100.0, &v);
          json_builder_add_double_value (b, v);
        }
      json_builder_end_array (b);
    }
  json_builder_end_object (b);
  json_builder_end_object (b);
}

char *
sim_fgd_experiment_run_files (const char *nodes_path, const char *pods_path,
                              const char *const *policies, guint n_seeds, guint64 first_seed,
                              double stop_share, double sample_step, const char *variant,
                              guint n_threads, GError **error)
{
  g_autoptr(GPtrArray) nodes = NULL;
  g_autoptr(GPtrArray) pods = NULL;
  g_autoptr(SimFgdResult) r = NULL;
  SimFgdConfig config = { 0 };

  g_return_val_if_fail (nodes_path != NULL && pods_path != NULL, NULL);
  if (!sim_fgd_variant_from_string (variant, &config.variant, error))
    return NULL;
  nodes = sim_openb_read_nodes (nodes_path, error);
  if (nodes == NULL)
    return NULL;
  pods = sim_openb_read_pods (pods_path, error);
  if (pods == NULL)
    return NULL;
  config.policies = policies != NULL ? policies : sim_fgd_paper_policies;
  config.n_policies = g_strv_length ((char **) config.policies);
  config.n_seeds = n_seeds;
  config.first_seed = first_seed;
  config.stop_share = stop_share;
  config.sample_step = sample_step;
  config.n_threads = n_threads;
  r = sim_fgd_experiment_run (nodes, pods, &config, error);
  if (r == NULL)
    return NULL;
  return result_json (r, FALSE, config.variant == SIM_FGD_VARIANT_PAPER
                                  ? sim_fgd_reference_list_of (pods_path) : NULL);
}

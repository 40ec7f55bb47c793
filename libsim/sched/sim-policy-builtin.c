/* sim-policy-builtin.c: the built-in queue order ("fifo") and placements
 * ("first-fit", "best-fit"), and the placing that other placements share
 * (sim_place_node_admits(), sim_place_best_fit(), sim_place_mig()...). */
#include "config.h"

#include "sched/sim-policy-private.h"
#include "cluster/sim-cluster-private.h"
#include "core/sim-error.h"

#include <string.h>

/* ------------------------------------------------------------------------- */
/* Placements.
 *
 * Whole-GPU jobs that fit in one node are placed on one node: a job of g
 * GPUs needs a node with at least g free.  Larger jobs take whole free
 * nodes while at least a node's worth remains, and the rest on one more
 * node.  Within a node, the lowest-numbered free GPUs are taken.  First-fit
 * picks the lowest-numbered node that fits; best-fit the node that fits with
 * the fewest free GPUs (ties to the lowest number), which keeps whole nodes
 * free for large jobs.  Fractional jobs (one GPU, less than 1000/1000) go on
 * the first GPU with room (first-fit) or the one with the least room left
 * that still fits (best-fit).  Every decision goes through the cluster's
 * indexes, without a pass over the nodes or GPUs and without allocating.
 * The cluster finds the first node from any index with enough free GPUs,
 * room on one GPU, and host CPU and memory for a share of the job
 * (sim_cluster_find_node_fitting(): trees of the maxima over ranges of
 * nodes), so the nodes a pass would try and refuse for lack of GPUs or
 * host are passed over unseen; only the GPU-model check is asked per node
 * found, and a refused model skips its whole pool.  A job in one node:
 * first-fit takes the first node found; best-fit the first node admitting
 * it in the smallest bucket of nodes by exact free count that fits.  A job
 * spanning nodes takes whole free nodes, pool after pool, through the same
 * search, and its remainder as a one-node job would, skipping the nodes
 * taken.  A fractional job: first-fit takes the first node found with the
 * room, and its lowest GPU with it; best-fit goes through the cluster's
 * treaps of shared GPUs by (room, index), per pool whose model the job
 * allows, then the first free GPU.  Each step costs O(log nodes) (expected
 * O(log GPUs) in a treap) while the free GPUs, room and host of the nodes
 * agree, more when they part ways (many nodes with room but no CPU left,
 * and others the reverse), and a shared GPU refused for its host is passed
 * in best-fit's order one by one.  A job that cannot fit anywhere is
 * refused in O(GPUs per node) from the cluster's histogram of free GPUs. */

static guint
take_free_gpus (const SimCluster *cluster, const SimNode *node, guint want, guint32 *out)
{
  guint got = 0;
  const SimGpu *gpus = sim__cluster_gpus (cluster);

  for (guint g = 0; g < node->n_gpus && got < want; g++)
    if (gpus[node->first_gpu + g].n_tenants == 0)
      out[got++] = node->first_gpu + g;
  return got;
}

/* JOB's host share for @gpus_here of its GPUs on one node, as the
 * cluster's search for a fitting node takes it (none when the job asks
 * for no CPU or memory, which every node fits). */
static inline void
host_need (const SimJob *job, guint gpus_here, guint64 *cpu, guint64 *mem)
{
  *cpu = *mem = 0;
  if (job->spec.cpu_milli != 0 || job->spec.memory_bytes != 0)
    sim_job_host_share (job, gpus_here, cpu, mem);
}

/* The first node index past the nodes that refuse JOB as node @i does
 * when the reason is the GPU model: past @i's pool (every node of a pool
 * refuses alike); else past @i. */
static inline guint
past_refusing_node (const SimCluster *cluster, const SimJob *job, guint i)
{
  const SimPool *pool;

  if (sim_cluster_node_allows (cluster, i, job->spec.gpu_models))
    return i + 1;
  pool = sim_cluster_get_pool (cluster, sim_cluster_get_node (cluster, i)->pool);
  return pool->first_node + pool->n_nodes;
}

/* A fractional job by a pass over the GPUs: the first GPU with room
 * (first-fit) or the one with the least room that fits, ties to the
 * lowest number (BEST); only for a job of no thousandths, which any GPU
 * not in MIG mode takes and the cluster's index of room does not cover. */
static gint64
fraction_scan (const SimCluster *cluster, const SimJob *job, gboolean best)
{
  guint n = sim_cluster_get_n_gpus (cluster);
  guint milli = job->spec.gpu_milli;
  gint64 chosen = -1;
  guint chosen_room = G_MAXUINT;

  for (guint i = 0; i < n; i++)
    {
      const SimGpu *g = sim_cluster_get_gpu (cluster, i);
      guint room = SIM_GPU_WHOLE - g->used_milli;
      if (room < milli || g->mig_used != 0 || (best && room >= chosen_room) ||
          !sim_place_node_admits (cluster, g->node, job, 1))
        continue;
      chosen = i;
      chosen_room = room;
      if (!best || room == milli)
        break;
    }
  return chosen;
}

/* The lowest-numbered GPU of node @i, not in MIG mode, with @milli of
 * room; free only (@free) or free or shared. */
static guint
gpu_in_node (const SimCluster *cluster, guint i, guint milli, gboolean free)
{
  const SimNode *node = sim_cluster_get_node (cluster, i);

  for (guint g = node->first_gpu; g < node->first_gpu + node->n_gpus; g++)
    {
      const SimGpu *gpu = sim_cluster_get_gpu (cluster, g);
      if (free ? gpu->n_tenants == 0
               : gpu->mig_used == 0 && SIM_GPU_WHOLE - gpu->used_milli >= milli)
        return g;
    }
  g_return_val_if_reached (G_MAXUINT);
}

/* The lowest-numbered GPU with @milli of room (@free: a free GPU) on a
 * node that admits fractional JOB, through the cluster's search for a
 * node with such a GPU and the host for the job: the nodes it passes over
 * would refuse the job, and a node refusing the GPU model is passed with
 * its pool. */
static guint
first_gpu_with_room (const SimCluster *cluster, const SimJob *job, guint milli, gboolean free)
{
  guint64 cpu, mem;

  host_need (job, 1, &cpu, &mem);
  for (guint i = sim_cluster_find_node_fitting (cluster, 0, free, milli, cpu, mem);
       i != G_MAXUINT;
       i = sim_cluster_find_node_fitting (cluster, past_refusing_node (cluster, job, i), free,
                                          milli, cpu, mem))
    if (sim_place_node_admits (cluster, i, job, 1))
      return gpu_in_node (cluster, i, milli, free);
  return G_MAXUINT;
}

/* A fractional job through the cluster's indexes.  First-fit: the first
 * node with a GPU of enough room and the host for the job that admits it
 * (see first_gpu_with_room()).  Best-fit: the GPUs shared by fractional
 * jobs in order of room, then index, per pool whose model the job allows,
 * the smallest first admitted over those pools; failing that, or tied at
 * 1000, the lowest-numbered free GPU on a node that admits the job.  The
 * same GPU as fraction_scan(), without a pass over the GPUs. */
static gboolean
place_fraction (const SimCluster *cluster, const SimJob *job, SimPlacement *placement,
                gboolean best)
{
  guint milli = job->spec.gpu_milli;
  gint64 chosen = -1;

  if (job->spec.gpus != 1)
    return FALSE;
  if (milli == 0)
    chosen = fraction_scan (cluster, job, best);
  else if (!best)
    {
      guint i = first_gpu_with_room (cluster, job, milli, FALSE);
      if (i != G_MAXUINT)
        chosen = i;
    }
  else
    {
      guint best_room = G_MAXUINT, best_gpu = G_MAXUINT;

      for (guint p = 0; p < sim_cluster_get_n_pools (cluster); p++)
        {
          const SimPool *pool = sim_cluster_get_pool (cluster, p);
          guint i;

          if (!sim_cluster_node_allows (cluster, pool->first_node, job->spec.gpu_models))
            continue;
          for (i = sim_cluster_find_shared_gpu (cluster, p, milli, 0); i != G_MAXUINT;)
            {
              const SimGpu *g = sim_cluster_get_gpu (cluster, i);
              guint room = SIM_GPU_WHOLE - g->used_milli;

              if (room > best_room || (room == best_room && i > best_gpu))
                break;
              if (sim_place_node_admits (cluster, g->node, job, 1))
                {
                  best_room = room;
                  best_gpu = i;
                  break;
                }
              i = sim_cluster_find_shared_gpu (cluster, p, room, i + 1);
            }
        }
      /* Free GPUs have room 1000: they come after any shared GPU with less
       * and tie with one with as much (see sim_cluster_find_shared_gpu()). */
      if (best_gpu == G_MAXUINT || best_room == SIM_GPU_WHOLE)
        best_gpu = MIN (best_gpu, first_gpu_with_room (cluster, job, SIM_GPU_WHOLE, TRUE));
      if (best_gpu != G_MAXUINT)
        chosen = best_gpu;
    }
  if (chosen < 0)
    return FALSE;
  placement->gpus[0] = (guint32) chosen;
  placement->n_gpus = 1;
  placement->milli = milli;
  return TRUE;
}

/* The whole nodes a job spanning nodes has taken so far: the first @got
 * GPUs of @gpus, node after node in increasing order, all of each node's.
 * is_taken() walks them alongside an increasing run of node indexes. */
typedef struct {
  const SimCluster *cluster;
  const guint32    *gpus;
  guint             got;
  guint             at;
} Taken;

static inline void
taken_init (Taken *t, const SimCluster *cluster, const guint32 *gpus, guint got)
{
  t->cluster = cluster;
  t->gpus = gpus;
  t->got = got;
  t->at = 0;
}

/* Whether node @i is taken; @i must not decrease between calls (until
 * taken_init() again). */
static inline gboolean
is_taken (Taken *t, guint i)
{
  while (t->at < t->got)
    {
      const SimNode *node = sim_cluster_get_node (
        t->cluster, sim_cluster_get_gpu (t->cluster, t->gpus[t->at])->node);
      if (node->index >= i)
        return node->index == i;
      t->at += node->n_gpus;
    }
  return FALSE;
}

/* First-fit through the cluster's index of free GPUs: the lowest-numbered
 * node with @want free that admits the job, skipping the nodes taken in
 * the first @got GPUs of @gpus (as place_span() takes them).  The nodes a
 * pass over all nodes would try, in the same order, without looking at
 * the others. */
static const SimNode *
first_node (const SimCluster *cluster, const SimJob *job, guint want, const guint32 *gpus,
            guint got)
{
  Taken t;
  guint64 cpu, mem;

  host_need (job, want, &cpu, &mem);
  taken_init (&t, cluster, gpus, got);
  for (guint i = sim_cluster_find_node_fitting (cluster, 0, want, 0, cpu, mem); i != G_MAXUINT;
       i = sim_cluster_find_node_fitting (cluster, i + 1, want, 0, cpu, mem))
    if (!is_taken (&t, i) && sim_place_node_admits (cluster, i, job, want))
      return sim_cluster_get_node (cluster, i);
  return NULL;
}

/* Best-fit through the cluster's buckets of nodes by free GPUs: the
 * lowest-numbered node that admits the job in the smallest bucket of at
 * least @want free, skipping the nodes taken in the first @got GPUs of
 * @gpus: the node with the fewest free GPUs, ties to the lowest number,
 * without looking at nodes with more free than the one chosen. */
static const SimNode *
best_node (const SimCluster *cluster, const SimJob *job, guint want, const guint32 *gpus,
           guint got)
{
  guint max = sim_cluster_get_max_gpus_per_node (cluster);
  guint64 cpu, mem;
  Taken t;

  host_need (job, want, &cpu, &mem);
  for (guint f = want; f <= max; f++)
    {
      taken_init (&t, cluster, gpus, got);
      for (guint i = sim_cluster_find_node_with_free_exactly (cluster, 0, f); i != G_MAXUINT;)
        {
          if (!is_taken (&t, i) && sim_place_node_admits (cluster, i, job, want))
            return sim_cluster_get_node (cluster, i);
          i = sim_cluster_find_node_fitting (cluster, i + 1, f, 0, cpu, mem);
          if (i != G_MAXUINT)
            i = sim_cluster_find_node_with_free_exactly (cluster, i, f);
        }
    }
  return NULL;
}

/* A job of whole GPUs that spans nodes: whole free nodes first, in node
 * order, each if it is no larger than what remains and admits its share;
 * then the remainder on the first node with room (first-fit) or the one
 * with the fewest free GPUs (BEST), among the nodes not taken.  Pools are
 * runs of nodes of one size, in node order, so a pool's whole free nodes
 * are its nodes with that many free: found through the index of free GPUs,
 * pool after pool, without a pass over the nodes or an allocation, for
 * nodes of one size or several. */
static gboolean
place_span (const SimCluster *cluster, const SimJob *job, SimPlacement *placement, gboolean best)
{
  guint want = job->spec.gpus;
  guint got = 0;
  const SimNode *node;

  for (guint p = 0; p < sim_cluster_get_n_pools (cluster) && got < want; p++)
    {
      const SimPool *pool = sim_cluster_get_pool (cluster, p);
      guint size = pool->gpus_per_node, end = pool->first_node + pool->n_nodes;

      guint64 cpu, mem;

      host_need (job, size, &cpu, &mem);
      for (guint i = sim_cluster_find_node_fitting (cluster, pool->first_node, size, 0, cpu, mem);
           i < end && want - got >= size;
           i = sim_cluster_find_node_fitting (cluster, i + 1, size, 0, cpu, mem))
        if (sim_place_node_admits (cluster, i, job, size))
          got += take_free_gpus (cluster, sim_cluster_get_node (cluster, i), size,
                                 placement->gpus + got);
    }
  if (got < want)
    {
      node = best ? best_node (cluster, job, want - got, placement->gpus, got)
                  : first_node (cluster, job, want - got, placement->gpus, got);
      if (node == NULL)
        return FALSE;
      got += take_free_gpus (cluster, node, want - got, placement->gpus + got);
    }
  return got == want;
}

static gboolean
place_whole (const SimCluster *cluster, const SimJob *job, SimPlacement *placement, gboolean best)
{
  guint want = job->spec.gpus;
  const SimNode *node;

  if (job->spec.gpu_milli < SIM_GPU_WHOLE)
    return place_fraction (cluster, job, placement, best);
  if (want == 0 || want > sim_cluster_get_n_free_gpus (cluster))
    return FALSE;
  placement->n_gpus = want;
  placement->milli = SIM_GPU_WHOLE;

  if (want <= sim_cluster_get_max_gpus_per_node (cluster))
    {
      if (sim_cluster_count_nodes_with_free (cluster, want) == 0)
        return FALSE;
      node = best ? best_node (cluster, job, want, NULL, 0)
                  : first_node (cluster, job, want, NULL, 0);
      if (node == NULL)
        return FALSE;
      take_free_gpus (cluster, node, want, placement->gpus);
      return TRUE;
    }

  return place_span (cluster, job, placement, best);
}

void
sim_job_host_share (const SimJob *job, guint gpus_here, guint64 *cpu_milli, guint64 *memory_bytes)
{
  guint gpus = MAX (job->spec.gpus, 1);

  /* In proportion to the GPUs on the node, rounded down; a one-node job
   * gets all of it. */
  *cpu_milli = (guint64) job->spec.cpu_milli * MIN (gpus_here, gpus) / gpus;
  *memory_bytes = job->spec.memory_bytes / gpus * MIN (gpus_here, gpus);
  if (gpus_here >= gpus)
    *memory_bytes = job->spec.memory_bytes;
}

gboolean
sim_job_takes_whole_gpus (const SimJob *job)
{
  g_return_val_if_fail (job != NULL, FALSE);
  return job->spec.gpu_milli >= SIM_GPU_WHOLE && job->spec.mig_profile == NULL;
}

SimTime
sim_job_get_requested (const SimJob *job)
{
  g_return_val_if_fail (job != NULL, 0);
  return job->spec.requested > 0 ? job->spec.requested : job->spec.duration;
}

guint
sim_job_get_min_gpus (const SimJob *job)
{
  g_return_val_if_fail (job != NULL, 0);
  if (job->spec.gpus_min > 0 && job->spec.gpus_min < job->spec.gpus)
    return job->spec.gpus_min;
  return job->spec.gpus;
}

gboolean
sim_place_node_admits (const SimCluster *cluster, guint node, const SimJob *job, guint gpus_here)
{
  guint64 cpu, mem;

  if (!sim_cluster_node_allows (cluster, node, job->spec.gpu_models))
    return FALSE;
  if (job->spec.cpu_milli == 0 && job->spec.memory_bytes == 0)
    return TRUE;
  sim_job_host_share (job, gpus_here, &cpu, &mem);
  return sim_cluster_node_fits_host (cluster, node, cpu, mem);
}

gboolean
sim_placement_set_gpus (SimPlacement *placement, const SimCluster *cluster, const SimJob *job,
                        const guint32 *gpus, guint n_gpus, GError **error)
{
  guint n_cluster_gpus;
  guint min_gpus;

  g_return_val_if_fail (placement != NULL && cluster != NULL && job != NULL, FALSE);
  g_return_val_if_fail (gpus != NULL || n_gpus == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (placement->gpus == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                   "this placement has no room for GPUs: fill the placement a policy's "
                   "place() is given, not a new one");
      return FALSE;
    }
  min_gpus = sim_job_get_min_gpus (job);
  if (n_gpus == 0 || n_gpus > job->spec.gpus || n_gpus < min_gpus ||
      n_gpus > placement->n_gpus)
    {
      if (min_gpus < job->spec.gpus)
        g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                     "job %" G_GUINT64_FORMAT " takes %u to %u GPUs; %u given",
                     job->spec.id, min_gpus, job->spec.gpus, n_gpus);
      else
        g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                     "job %" G_GUINT64_FORMAT " takes %u GPU%s; %u given",
                     job->spec.id, job->spec.gpus, job->spec.gpus == 1 ? "" : "s", n_gpus);
      return FALSE;
    }
  n_cluster_gpus = sim_cluster_get_n_gpus (cluster);
  for (guint i = 0; i < n_gpus; i++)
    {
      const SimGpu *gpu;
      const SimNode *node;
      guint here = 0;

      if (gpus[i] >= n_cluster_gpus)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "job %" G_GUINT64_FORMAT ": GPU %u does not exist (the cluster has "
                       "GPUs 0 to %u)", job->spec.id, gpus[i], n_cluster_gpus - 1);
          return FALSE;
        }
      for (guint j = 0; j < i; j++)
        if (gpus[j] == gpus[i])
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                         "job %" G_GUINT64_FORMAT ": GPU %u is listed twice",
                         job->spec.id, gpus[i]);
            return FALSE;
          }
      gpu = sim_cluster_get_gpu (cluster, gpus[i]);
      node = sim_cluster_get_node (cluster, gpu->node);
      if (!node->available)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "job %" G_GUINT64_FORMAT ": GPU %u is on node %u, which is down or "
                       "drained", job->spec.id, gpus[i], gpu->node);
          return FALSE;
        }
      if (gpu->mig_used != 0 || gpu->used_milli + job->spec.gpu_milli > 1000)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "job %" G_GUINT64_FORMAT ": GPU %u has %u/1000 free%s; the job needs "
                       "%u/1000 of it", job->spec.id, gpus[i],
                       gpu->mig_used != 0 ? 0 : 1000 - gpu->used_milli,
                       gpu->mig_used != 0 ? " (it is in MIG mode)" : "", job->spec.gpu_milli);
          return FALSE;
        }
      for (guint j = 0; j < n_gpus; j++)
        if (gpus[j] < n_cluster_gpus && sim_cluster_get_gpu (cluster, gpus[j])->node == gpu->node)
          here++;
      if (!sim_place_node_admits (cluster, gpu->node, job, here))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "job %" G_GUINT64_FORMAT ": node %u (GPU %u) %s", job->spec.id,
                       gpu->node, gpus[i],
                       sim_cluster_node_allows (cluster, gpu->node, job->spec.gpu_models)
                         ? "lacks the host CPU or memory the job's GPUs there need"
                         : "has a GPU model the job does not allow");
          return FALSE;
        }
    }
  memcpy (placement->gpus, gpus, n_gpus * sizeof *gpus);
  placement->n_gpus = n_gpus;
  placement->milli = job->spec.gpu_milli;
  placement->mig_start = -1;
  return TRUE;
}

gboolean
sim_placement_set_mig (SimPlacement *placement, const SimCluster *cluster, const SimJob *job,
                       guint gpu, int start, GError **error)
{
  const SimGpu *g;
  const SimNode *node;
  const SimMigLayout *layout;
  SimMigLayout trial;
  GError *local = NULL;
  int profile, at;

  g_return_val_if_fail (placement != NULL && cluster != NULL && job != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (placement->gpus == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                   "this placement has no room for GPUs: fill the placement a policy's "
                   "place() is given, not a new one");
      return FALSE;
    }
  if (job->spec.mig_profile == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "job %" G_GUINT64_FORMAT " asks for no MIG profile: give it GPUs with "
                   "sim_placement_set_gpus()", job->spec.id);
      return FALSE;
    }
  if (gpu >= sim_cluster_get_n_gpus (cluster))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "job %" G_GUINT64_FORMAT ": GPU %u does not exist (the cluster has GPUs 0 "
                   "to %u)", job->spec.id, gpu, sim_cluster_get_n_gpus (cluster) - 1);
      return FALSE;
    }
  g = sim_cluster_get_gpu (cluster, gpu);
  node = sim_cluster_get_node (cluster, g->node);
  if (!node->available)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "job %" G_GUINT64_FORMAT ": GPU %u is on node %u, which is down or drained",
                   job->spec.id, gpu, g->node);
      return FALSE;
    }
  profile = node->gpu_model != NULL ? sim_mig_lookup_profile (node->gpu_model,
                                                              job->spec.mig_profile) : -1;
  if (profile < 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "job %" G_GUINT64_FORMAT ": GPU %u (%s) has no MIG profile %s",
                   job->spec.id, gpu, node->gpu_model ? node->gpu_model->name : "unknown model",
                   job->spec.mig_profile);
      return FALSE;
    }
  layout = sim_cluster_get_mig_layout (cluster, gpu);
  if (layout == NULL && g->n_tenants > 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "job %" G_GUINT64_FORMAT ": GPU %u holds whole or fractional jobs: it "
                   "cannot take a MIG instance", job->spec.id, gpu);
      return FALSE;
    }
  if (!sim_place_node_admits (cluster, g->node, job, 1))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "job %" G_GUINT64_FORMAT ": node %u (GPU %u) %s", job->spec.id, g->node, gpu,
                   sim_cluster_node_allows (cluster, g->node, job->spec.gpu_models)
                     ? "lacks the host CPU or memory the job needs"
                     : "has a GPU model the job does not allow");
      return FALSE;
    }
  if (layout != NULL)
    trial = *layout;
  else
    sim_mig_layout_init (&trial);
  at = sim_mig_layout_add (node->gpu_model, &trial, (guint) profile, start, &local);
  if (at < 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "job %" G_GUINT64_FORMAT ": GPU %u: %s", job->spec.id, gpu,
                   local ? local->message : "no room for the instance");
      g_clear_error (&local);
      return FALSE;
    }
  placement->gpus[0] = gpu;
  placement->n_gpus = 1;
  placement->milli = job->spec.gpu_milli;
  placement->mig_start = at;
  return TRUE;
}

gboolean
sim_place_first_fit (const SimCluster *cluster, const SimJob *job, SimPlacement *placement)
{
  g_return_val_if_fail (cluster != NULL && job != NULL && placement != NULL, FALSE);
  g_return_val_if_fail (placement->gpus != NULL, FALSE);
  return place_whole (cluster, job, placement, FALSE);
}

gboolean
sim_place_best_fit (const SimCluster *cluster, const SimJob *job, SimPlacement *placement)
{
  g_return_val_if_fail (cluster != NULL && job != NULL && placement != NULL, FALSE);
  g_return_val_if_fail (placement->gpus != NULL, FALSE);
  return place_whole (cluster, job, placement, TRUE);
}

gboolean
sim_place_mig (const SimCluster *cluster, const SimJob *job, SimPlacement *placement)
{
  guint gpu, start;

  g_return_val_if_fail (cluster != NULL && job != NULL && placement != NULL, FALSE);
  g_return_val_if_fail (placement->gpus != NULL, FALSE);
  if (job->spec.mig_profile == NULL || job->spec.gpus != 1 ||
      !sim_cluster_mig_find (cluster, job->spec.mig_profile, job->spec.gpu_models, &gpu, &start))
    return FALSE;
  if (!sim_place_node_admits (cluster, sim_cluster_get_gpu (cluster, gpu)->node, job, 1))
    return FALSE;
  placement->gpus[0] = gpu;
  placement->n_gpus = 1;
  placement->milli = job->spec.gpu_milli;
  placement->mig_start = (gint32) start;
  return TRUE;
}

static gboolean
first_fit (gpointer state, const SimCluster *cluster, const SimJob *job, SimPlacement *placement)
{
  return place_whole (cluster, job, placement, FALSE);
}

static gboolean
best_fit (gpointer state, const SimCluster *cluster, const SimJob *job, SimPlacement *placement)
{
  return place_whole (cluster, job, placement, TRUE);
}

void
sim__register_builtin_policies (void)
{
  static const SimQueueOrderInfo fifo = {
    .name = "fifo",
    .description = "first come, first served; the head blocks the queue",
  };
  static const SimPlacementInfo ff = {
    .name = "first-fit",
    .description = "the lowest-numbered node with room",
    .place = first_fit,
  };
  static const SimPlacementInfo bf = {
    .name = "best-fit",
    .description = "the node with room and the fewest free GPUs",
    .place = best_fit,
  };
  sim_policy_register_queue_order (&fifo);
  sim_policy_register_placement (&ff);
  sim_policy_register_placement (&bf);
}

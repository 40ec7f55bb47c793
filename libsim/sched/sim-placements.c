/* sim-placements.c: worst-fit, random, GPU packing, GPU clustering,
 * dot-product and fragmentation gradient descent (FGD) placements, and the
 * FGD paper's fragmentation measure.
 *
 * Every placement handles the same three shapes of job as first-fit and
 * best-fit (sim-policy-builtin.c):
 *
 *  - a fractional job (one GPU, gpu_milli < 1000) goes on one GPU with at
 *    least that much room, possibly shared with other fractional jobs;
 *  - a whole-GPU job that fits in a node goes on one node, on that node's
 *    lowest-numbered free GPUs;
 *  - a larger job takes whole free nodes, lowest-numbered first, while at
 *    least a node's worth remains, and the rest on one more node.
 *
 * The placements differ only in which node (or GPU) they prefer, and each
 * is written as a score, lower being better, with ties going to the
 * lowest-numbered node (then GPU): this makes every choice deterministic
 * and the expected answers of the tests writable by hand.  A node is
 * considered only if sim_place_node_admits() accepts it (GPU model, host
 * CPU and memory); GPUs in MIG mode never take whole or fractional jobs.
 *
 *  - worst-fit: the node with the most free GPUs; the GPU with the most room.
 *  - random: uniformly among the nodes (GPUs) that fit, from the stream
 *    "placement" of the scenario seed; one draw per decision.
 *  - packing: the FGD paper's "GPU packing" baseline (Kubernetes'
 *    MostAllocated in spirit): first a GPU already shared by fractional
 *    tasks (the one with the least room left), then a free GPU on a node
 *    already in use, then an idle node (the one with the fewest GPUs).
 *    Among used nodes the paper's score is flat; ties go to the most
 *    allocated node here, then the lowest number.
 *  - clustering: the paper's "GPU clustering" baseline: nodes are ranked in
 *    four bands, a node holding only tasks of the job's GPU request, a node
 *    holding that request among others, an idle node, a node holding only
 *    other requests; within a band the node with the least free GPU
 *    capacity first.  The request type is gpu_milli.  The cluster does not
 *    record which jobs a GPU holds, so the type is read off the GPU: a GPU
 *    with t tenants and u thousandths used holds the job's type if
 *    u = t x gpu_milli (exact when its tenants are alike).
 *  - dot-product: Tetris' alignment: the dot product of the job's demand
 *    and the node's free resources, (CPU, memory, GPU), each divided by the
 *    node's capacity of it; resources a node does not model are left out.
 *    For a fractional job the GPU term is that of the GPU considered.  By
 *    default the largest product wins (Tetris); the key dot_product = min
 *    takes the smallest, as the FGD paper's simulator does.
 *  - fgd: fragmentation gradient descent, below.
 *
 * Cost: one pass over the nodes (and their GPUs) per decision, O(nodes x
 * GPUs per node); FGD multiplies that by the number of task types and by
 * the distinct free amounts on a node.  Indexing nodes by free capacity
 * would make the simple placements faster but not FGD, and the pass is
 * cheap next to a simulated event (see bench/bench-placement.c).
 */
#include "config.h"

#include "sched/sim-placements.h"
#include "sched/sim-policy-private.h"
#include "sched/sim-fragmentation.h"
#include "core/sim-rng.h"
#include "sim-error.h"

#include <math.h>
#include <string.h>

typedef enum {
  KIND_WORST_FIT,
  KIND_RANDOM,
  KIND_PACKING,
  KIND_CLUSTERING,
  KIND_DOT_PRODUCT,
  KIND_FGD,
} Kind;

typedef struct {
  Kind       kind;
  SimRng    *rng;         /* random */
  GArray    *candidates;  /* guint32, random */
  gboolean   dot_min;     /* dot-product: smallest product wins */
  GArray    *classes;     /* SimTaskClass, fgd */
  gboolean   learn;       /* fgd: classes learnt from the jobs seen */
  GHashTable *seen;       /* fgd learning: job ids already counted */
} Placer;

/* ------------------------------------------------------------------------- */
/* Fragmentation (see sim-fragmentation.h).
 *
 * With the paper's notation: a node n has free GPU capacities R_{n,g} (in
 * GPUs, 0 to 1) and a task type m asks d_m of each of its GPUs.  Then
 *
 *   F_n(m) = sum_g R_{n,g}                        if m cannot run on n,
 *          = sum_g R_{n,g} [R_{n,g} < min(d_m, 1)] otherwise,
 *   F_n(M) = sum_m p_m F_n(m),   F(M) = sum_n F_n(M).
 *
 * Capacities are kept in thousandths here, so the sums are exact until the
 * weights come in. */

typedef struct {
  guint   node;
  guint   n_gpus;
  guint   free[SIM_CLUSTER_MAX_GPUS_PER_NODE]; /* thousandths free per GPU */
  guint64 cpu_cap, free_cpu;
  guint64 mem_cap, free_mem;
} NodeView;

static inline guint
gpu_room (const SimGpu *g)
{
  return g->mig_used != 0 ? 0 : SIM_GPU_WHOLE - g->used_milli;
}

static void
node_view (const SimCluster *cluster, guint index, NodeView *v)
{
  const SimNode *node = sim_cluster_get_node (cluster, index);

  v->node = index;
  v->n_gpus = node->n_gpus;
  for (guint g = 0; g < node->n_gpus; g++)
    v->free[g] = gpu_room (sim_cluster_get_gpu (cluster, node->first_gpu + g));
  v->cpu_cap = node->cpu_milli;
  v->free_cpu = node->free_cpu_milli;
  v->mem_cap = node->memory_bytes;
  v->free_mem = node->free_memory_bytes;
}

static gboolean
view_fits_host (const NodeView *v, guint64 cpu, guint64 mem)
{
  return (v->cpu_cap == 0 || cpu <= v->free_cpu) && (v->mem_cap == 0 || mem <= v->free_mem);
}

/* sum_m w_m F_n(m), in thousandths of a GPU times weight. */
static double
view_fragmentation (const SimCluster *cluster, const NodeView *v, const SimTaskClass *classes,
                    guint n)
{
  guint total = 0, whole_free = 0, max_room = 0, partial = 0;
  double f = 0;

  for (guint g = 0; g < v->n_gpus; g++)
    {
      total += v->free[g];
      if (v->free[g] == SIM_GPU_WHOLE)
        whole_free++;
      else
        partial += v->free[g];
      max_room = MAX (max_room, v->free[g]);
    }
  if (total == 0)
    return 0;
  for (guint m = 0; m < n; m++)
    {
      const SimTaskClass *t = &classes[m];
      guint64 cpu = t->cpu_milli, mem = t->memory_bytes;
      guint unusable;

      if (t->weight <= 0 || t->gpus == 0 || t->milli == 0)
        continue;
      if (t->gpus > v->n_gpus)
        {
          /* A share of a multi-node task, as sim_job_host_share() splits it. */
          cpu = (guint64) t->cpu_milli * v->n_gpus / t->gpus;
          mem = t->memory_bytes / t->gpus * v->n_gpus;
        }
      if (!sim_cluster_node_allows (cluster, v->node, t->gpu_models) ||
          !view_fits_host (v, cpu, mem))
        unusable = total;
      else if (t->gpus > v->n_gpus)
        unusable = whole_free == v->n_gpus ? 0 : total;
      else if (t->milli < SIM_GPU_WHOLE)
        {
          if (t->gpus != 1 || max_room < t->milli)
            unusable = total;
          else
            {
              unusable = 0;
              for (guint g = 0; g < v->n_gpus; g++)
                if (v->free[g] < t->milli)
                  unusable += v->free[g];
            }
        }
      else
        unusable = whole_free < t->gpus ? total : partial;
      f += t->weight * unusable;
    }
  return f;
}

static double
weight_sum (const SimTaskClass *classes, guint n)
{
  double w = 0;

  for (guint m = 0; m < n; m++)
    if (classes[m].weight > 0)
      w += classes[m].weight;
  return w;
}

double
sim_fgd_node_fragmentation (const SimCluster *cluster, guint node, const SimTaskClass *classes,
                            guint n)
{
  NodeView v;
  double w;

  g_return_val_if_fail (cluster != NULL && node < sim_cluster_get_n_nodes (cluster), 0);
  g_return_val_if_fail (classes != NULL || n == 0, 0);
  w = weight_sum (classes, n);
  if (w <= 0)
    return 0;
  node_view (cluster, node, &v);
  return view_fragmentation (cluster, &v, classes, n) / w / SIM_GPU_WHOLE;
}

double
sim_fgd_cluster_fragmentation (const SimCluster *cluster, const SimTaskClass *classes, guint n)
{
  guint n_nodes;
  double w, f = 0;
  NodeView v;

  g_return_val_if_fail (cluster != NULL, 0);
  g_return_val_if_fail (classes != NULL || n == 0, 0);
  w = weight_sum (classes, n);
  if (w <= 0)
    return 0;
  n_nodes = sim_cluster_get_n_nodes (cluster);
  for (guint i = 0; i < n_nodes; i++)
    {
      const SimNode *node = sim_cluster_get_node (cluster, i);
      if (node->free_gpus == 0)
        {
          /* Skip nodes without room quickly: no free capacity, no fragment. */
          gboolean any = FALSE;
          for (guint g = 0; g < node->n_gpus && !any; g++)
            any = gpu_room (sim_cluster_get_gpu (cluster, node->first_gpu + g)) > 0;
          if (!any)
            continue;
        }
      node_view (cluster, i, &v);
      f += view_fragmentation (cluster, &v, classes, n);
    }
  return f / w / SIM_GPU_WHOLE;
}

/* ------------------------------------------------------------------------- */
/* Scores, lower is better. */

/* Free GPU capacity of a node, in thousandths (MIG GPUs count as none). */
static guint
node_free_milli (const SimCluster *cluster, const SimNode *node)
{
  guint sum = 0;

  for (guint g = 0; g < node->n_gpus; g++)
    sum += gpu_room (sim_cluster_get_gpu (cluster, node->first_gpu + g));
  return sum;
}

/* Clustering band of NODE for requests of MILLI per GPU: 0 only that
 * request, 1 that request among others, 2 idle, 3 only other requests. */
static guint
cluster_band (const SimCluster *cluster, const SimNode *node, guint milli)
{
  gboolean same = FALSE, other = FALSE;

  for (guint g = 0; g < node->n_gpus; g++)
    {
      const SimGpu *gpu = sim_cluster_get_gpu (cluster, node->first_gpu + g);
      if (gpu->n_tenants == 0)
        continue;
      if (gpu->mig_used == 0 && gpu->used_milli == gpu->n_tenants * milli)
        same = TRUE;
      else
        other = TRUE;
    }
  if (same)
    return other ? 1 : 0;
  return other ? 3 : 2;
}

/* Demand-times-free terms of the host resources for a job's share on NODE. */
static double
dot_host (const SimNode *node, guint64 cpu, guint64 mem)
{
  double d = 0;

  if (node->cpu_milli > 0)
    d += ((double) cpu / node->cpu_milli) * ((double) node->free_cpu_milli / node->cpu_milli);
  if (node->memory_bytes > 0)
    d += ((double) mem / node->memory_bytes) *
         ((double) node->free_memory_bytes / node->memory_bytes);
  return d;
}

static double
dot_sign (const Placer *s, double dot)
{
  return s->dot_min ? dot : -dot;
}

/* The score of putting WANT whole GPUs of JOB on NODE. */
static double
node_score (const Placer *s, const SimCluster *cluster, const SimNode *node, const SimJob *job,
            guint want)
{
  switch (s->kind)
    {
    case KIND_WORST_FIT:
      return -(double) node->free_gpus;
    case KIND_PACKING:
      /* Whole GPUs never go on shared ones: a used node, the most
       * allocated first, then an idle node, the smallest first. */
      if (node->free_gpus < node->n_gpus)
        return 1e9 + node_free_milli (cluster, node);
      return 2e9 + node->n_gpus;
    case KIND_CLUSTERING:
      return cluster_band (cluster, node, SIM_GPU_WHOLE) * 1e9 + node_free_milli (cluster, node);
    case KIND_DOT_PRODUCT:
      {
        guint64 cpu, mem;
        double dot;
        sim_job_host_share (job, want, &cpu, &mem);
        dot = dot_host (node, cpu, mem) +
              ((double) want / node->n_gpus) *
                ((double) node_free_milli (cluster, node) / (node->n_gpus * SIM_GPU_WHOLE));
        return dot_sign (s, dot);
      }
    case KIND_RANDOM:
    case KIND_FGD:
    default:
      g_assert_not_reached ();
    }
  return 0;
}

/* What a fractional score needs of the node, computed once per node. */
typedef struct {
  guint free_milli;
  guint band;
} NodeFacts;

static void
node_facts (const Placer *s, const SimCluster *cluster, const SimNode *node, const SimJob *job,
            NodeFacts *f)
{
  f->free_milli = s->kind == KIND_PACKING || s->kind == KIND_CLUSTERING
                    ? node_free_milli (cluster, node) : 0;
  f->band = s->kind == KIND_CLUSTERING ? cluster_band (cluster, node, job->spec.gpu_milli) : 0;
}

/* The score of putting fractional JOB on GPU G of NODE. */
static double
gpu_score (const Placer *s, const NodeFacts *f, const SimNode *node, const SimGpu *g,
           const SimJob *job)
{
  guint room = gpu_room (g);

  switch (s->kind)
    {
    case KIND_WORST_FIT:
      return -(double) room;
    case KIND_PACKING:
      if (g->used_milli > 0)
        return room;
      if (node->free_gpus < node->n_gpus)
        return 1e9 + f->free_milli;
      return 2e9 + node->n_gpus;
    case KIND_CLUSTERING:
      return f->band * 1e9 + f->free_milli * 1e3 + room;
    case KIND_DOT_PRODUCT:
      {
        double dot = dot_host (node, job->spec.cpu_milli, job->spec.memory_bytes) +
                     ((double) job->spec.gpu_milli / SIM_GPU_WHOLE) *
                       ((double) room / SIM_GPU_WHOLE);
        return dot_sign (s, dot);
      }
    case KIND_RANDOM:
    case KIND_FGD:
    default:
      g_assert_not_reached ();
    }
  return 0;
}

/* ------------------------------------------------------------------------- */
/* FGD.
 *
 * For every node that admits the job, and every way of putting it there
 * that differs in fragmentation (for a fractional job, each distinct room
 * among the GPUs that fit, the lowest-numbered GPU of each; for a whole-GPU
 * job, the lowest-numbered free GPUs, all free GPUs being alike), the
 * node's F_n(M) is computed before and after; the placement with the
 * smallest increase wins, ties to the lowest node, then GPU.  Only the
 * chosen node's fragmentation changes, so the increase of the node is the
 * increase of the cluster. */

#define FGD_EPSILON 1e-9

static const SimTaskClass *
fgd_classes (const Placer *s, guint *n)
{
  *n = s->classes->len;
  return (const SimTaskClass *) (void *) s->classes->data;
}

/* Learns the task distribution online: counts each job once, by type. */
static void
fgd_learn (Placer *s, const SimJob *job)
{
  gint64 *id;
  const SimJobSpec *sp = &job->spec;

  if (!s->learn || g_hash_table_contains (s->seen, &sp->id))
    return;
  id = g_new (gint64, 1);
  *id = (gint64) sp->id;
  g_hash_table_add (s->seen, id);
  for (guint m = 0; m < s->classes->len; m++)
    {
      SimTaskClass *t = &g_array_index (s->classes, SimTaskClass, m);
      if (t->gpus == sp->gpus && t->milli == sp->gpu_milli && t->cpu_milli == sp->cpu_milli &&
          t->memory_bytes == sp->memory_bytes && t->gpu_models == sp->gpu_models)
        {
          t->weight += 1;
          return;
        }
    }
  {
    SimTaskClass t = { sp->gpus, sp->gpu_milli, sp->cpu_milli, sp->memory_bytes, sp->gpu_models,
                       1.0 };
    g_array_append_val (s->classes, t);
  }
}

/* The increase of fragmentation when WANT whole GPUs of JOB go on NODE;
 * fills GPUS with them. */
static double
fgd_whole_delta (const Placer *s, const SimCluster *cluster, guint node, const SimJob *job,
                 guint want, guint32 *gpus)
{
  const SimTaskClass *classes;
  guint n, got = 0;
  NodeView v;
  double before;
  guint64 cpu, mem;
  const SimNode *nd = sim_cluster_get_node (cluster, node);

  classes = fgd_classes (s, &n);
  node_view (cluster, node, &v);
  before = view_fragmentation (cluster, &v, classes, n);
  for (guint g = 0; g < v.n_gpus && got < want; g++)
    if (sim_cluster_get_gpu (cluster, nd->first_gpu + g)->n_tenants == 0)
      {
        v.free[g] = 0;
        if (gpus != NULL)
          gpus[got] = nd->first_gpu + g;
        got++;
      }
  sim_job_host_share (job, want, &cpu, &mem);
  if (v.cpu_cap > 0)
    v.free_cpu -= MIN (cpu, v.free_cpu);
  if (v.mem_cap > 0)
    v.free_mem -= MIN (mem, v.free_mem);
  return view_fragmentation (cluster, &v, classes, n) - before;
}

static gboolean
fgd_fraction (const Placer *s, const SimCluster *cluster, const SimJob *job, gint64 *chosen)
{
  guint n_nodes = sim_cluster_get_n_nodes (cluster);
  guint milli = job->spec.gpu_milli;
  const SimTaskClass *classes;
  guint n;
  double best = INFINITY;

  classes = fgd_classes (s, &n);
  *chosen = -1;
  for (guint i = 0; i < n_nodes; i++)
    {
      const SimNode *node = sim_cluster_get_node (cluster, i);
      NodeView v;
      double before;
      guint tried[SIM_CLUSTER_MAX_GPUS_PER_NODE];
      guint n_tried = 0;
      gboolean any = FALSE;

      for (guint g = 0; g < node->n_gpus && !any; g++)
        any = gpu_room (sim_cluster_get_gpu (cluster, node->first_gpu + g)) >= milli;
      if (!any || !sim_place_node_admits (cluster, i, job, 1))
        continue;
      node_view (cluster, i, &v);
      before = view_fragmentation (cluster, &v, classes, n);
      for (guint g = 0; g < v.n_gpus; g++)
        {
          guint room = v.free[g];
          gboolean again = FALSE;
          NodeView after;
          double delta;

          if (room < milli)
            continue;
          for (guint k = 0; k < n_tried && !again; k++)
            again = tried[k] == room;
          if (again)
            continue;
          tried[n_tried++] = room;
          after = v;
          after.free[g] -= milli;
          if (after.cpu_cap > 0)
            after.free_cpu -= MIN (job->spec.cpu_milli, after.free_cpu);
          if (after.mem_cap > 0)
            after.free_mem -= MIN (job->spec.memory_bytes, after.free_mem);
          delta = view_fragmentation (cluster, &after, classes, n) - before;
          if (delta < best - FGD_EPSILON)
            {
              best = delta;
              *chosen = node->first_gpu + g;
            }
        }
    }
  return *chosen >= 0;
}

/* ------------------------------------------------------------------------- */
/* The shared frame: which node, which GPU. */

static guint
take_free_gpus (const SimCluster *cluster, const SimNode *node, guint want, guint32 *out)
{
  guint got = 0;

  for (guint g = 0; g < node->n_gpus && got < want; g++)
    if (sim_cluster_get_gpu (cluster, node->first_gpu + g)->n_tenants == 0)
      out[got++] = node->first_gpu + g;
  return got;
}

/* The node to host WANT whole GPUs of JOB, skipping nodes marked in SKIP. */
static const SimNode *
choose_node (Placer *s, const SimCluster *cluster, const SimJob *job, guint want,
             const guint8 *skip)
{
  guint n_nodes = sim_cluster_get_n_nodes (cluster);
  const SimNode *chosen = NULL;
  double best = INFINITY;

  if (s->kind == KIND_RANDOM)
    g_array_set_size (s->candidates, 0);
  for (guint i = 0; i < n_nodes; i++)
    {
      const SimNode *node = sim_cluster_get_node (cluster, i);
      double score;

      if (node->free_gpus < want || (skip != NULL && skip[i]) ||
          !sim_place_node_admits (cluster, i, job, want))
        continue;
      if (s->kind == KIND_RANDOM)
        {
          guint32 index = i;
          g_array_append_val (s->candidates, index);
          continue;
        }
      if (s->kind == KIND_FGD)
        score = fgd_whole_delta (s, cluster, i, job, want, NULL);
      else
        score = node_score (s, cluster, node, job, want);
      if (chosen == NULL || score < best - FGD_EPSILON)
        {
          chosen = node;
          best = score;
        }
    }
  if (s->kind == KIND_RANDOM && s->candidates->len > 0)
    chosen = sim_cluster_get_node (
      cluster, g_array_index (s->candidates, guint32,
                              sim_rng_uniform_int (s->rng, s->candidates->len)));
  return chosen;
}

static gboolean
place_fraction (Placer *s, const SimCluster *cluster, const SimJob *job, SimPlacement *placement)
{
  guint n_nodes = sim_cluster_get_n_nodes (cluster);
  guint milli = job->spec.gpu_milli;
  gint64 chosen = -1;
  double best = INFINITY;

  if (job->spec.gpus != 1)
    return FALSE;
  if (s->kind == KIND_FGD)
    {
      if (!fgd_fraction (s, cluster, job, &chosen))
        return FALSE;
    }
  else
    {
      if (s->kind == KIND_RANDOM)
        g_array_set_size (s->candidates, 0);
      for (guint i = 0; i < n_nodes; i++)
        {
          const SimNode *node = sim_cluster_get_node (cluster, i);
          gboolean admitted = FALSE, asked = FALSE;
          NodeFacts facts = { 0, 0 };

          for (guint k = 0; k < node->n_gpus; k++)
            {
              guint32 index = node->first_gpu + k;
              const SimGpu *g = sim_cluster_get_gpu (cluster, index);
              double score;

              if (gpu_room (g) < milli)
                continue;
              if (!asked)
                {
                  admitted = sim_place_node_admits (cluster, i, job, 1);
                  asked = TRUE;
                  if (admitted && s->kind != KIND_RANDOM)
                    node_facts (s, cluster, node, job, &facts);
                }
              if (!admitted)
                break;
              if (s->kind == KIND_RANDOM)
                {
                  g_array_append_val (s->candidates, index);
                  continue;
                }
              score = gpu_score (s, &facts, node, g, job);
              if (chosen < 0 || score < best - FGD_EPSILON)
                {
                  chosen = index;
                  best = score;
                }
            }
        }
      if (s->kind == KIND_RANDOM && s->candidates->len > 0)
        chosen = g_array_index (s->candidates, guint32,
                                sim_rng_uniform_int (s->rng, s->candidates->len));
    }
  if (chosen < 0)
    return FALSE;
  placement->gpus[0] = (guint32) chosen;
  placement->n_gpus = 1;
  placement->milli = milli;
  return TRUE;
}

static gboolean
place (gpointer state, const SimCluster *cluster, const SimJob *job, SimPlacement *placement)
{
  Placer *s = state;
  guint want = job->spec.gpus;
  guint n_nodes = sim_cluster_get_n_nodes (cluster);
  g_autofree guint8 *taken = NULL;
  const SimNode *node;
  guint got = 0;

  if (s->kind == KIND_FGD)
    fgd_learn (s, job);
  if (job->spec.gpu_milli < SIM_GPU_WHOLE)
    return job->spec.gpu_milli > 0 && place_fraction (s, cluster, job, placement);
  if (want == 0 || want > sim_cluster_get_n_free_gpus (cluster))
    return FALSE;
  placement->n_gpus = want;
  placement->milli = SIM_GPU_WHOLE;

  if (want <= sim_cluster_get_max_gpus_per_node (cluster))
    {
      if (sim_cluster_count_nodes_with_free (cluster, want) == 0)
        return FALSE;
      node = choose_node (s, cluster, job, want, NULL);
      if (node == NULL)
        return FALSE;
      take_free_gpus (cluster, node, want, placement->gpus);
      return TRUE;
    }

  /* Spans nodes: whole free nodes first, in order, then the remainder on
   * the node this placement prefers. */
  taken = g_new0 (guint8, n_nodes);
  for (guint i = 0; i < n_nodes && want - got > 0; i++)
    {
      node = sim_cluster_get_node (cluster, i);
      if (node->free_gpus == node->n_gpus && node->n_gpus <= want - got &&
          sim_place_node_admits (cluster, i, job, node->n_gpus))
        {
          got += take_free_gpus (cluster, node, node->n_gpus, placement->gpus + got);
          taken[i] = 1;
        }
    }
  if (got < want)
    {
      node = choose_node (s, cluster, job, want - got, taken);
      if (node == NULL)
        return FALSE;
      got += take_free_gpus (cluster, node, want - got, placement->gpus + got);
    }
  return got == want;
}

/* ------------------------------------------------------------------------- */
/* Creation and registration. */

static Placer *
placer_new (Kind kind)
{
  Placer *s = g_new0 (Placer, 1);

  s->kind = kind;
  s->candidates = g_array_new (FALSE, FALSE, sizeof (guint32));
  return s;
}

static void
placer_free (gpointer state)
{
  Placer *s = state;

  if (s == NULL)
    return;
  g_clear_pointer (&s->rng, sim_rng_free);
  g_array_unref (s->candidates);
  if (s->classes != NULL)
    g_array_unref (s->classes);
  if (s->seen != NULL)
    g_hash_table_unref (s->seen);
  g_free (s);
}

static gpointer
create_worst_fit (const SimPolicySetup *setup, GError **error)
{
  return placer_new (KIND_WORST_FIT);
}

static gpointer
create_random (const SimPolicySetup *setup, GError **error)
{
  Placer *s = placer_new (KIND_RANDOM);

  s->rng = sim_rng_new (setup->seed, "placement");
  return s;
}

static gpointer
create_packing (const SimPolicySetup *setup, GError **error)
{
  return placer_new (KIND_PACKING);
}

static gpointer
create_clustering (const SimPolicySetup *setup, GError **error)
{
  return placer_new (KIND_CLUSTERING);
}

static gpointer
create_dot_product (const SimPolicySetup *setup, GError **error)
{
  Placer *s;
  const char *sense = "max";

  if (setup->params != NULL &&
      !sim_policy_params_get_string (setup->params, "dot_product", "max", &sense, error))
    return NULL;
  if (g_ascii_strcasecmp (sense, "max") != 0 && g_ascii_strcasecmp (sense, "min") != 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "dot_product: \"%s\": expected max (Tetris) or min", sense);
      if (setup->params != NULL)
        sim__policy_params_fail (setup->params, "dot_product");
      return NULL;
    }
  s = placer_new (KIND_DOT_PRODUCT);
  s->dot_min = g_ascii_strcasecmp (sense, "min") == 0;
  return s;
}

static gpointer
create_fgd (const SimPolicySetup *setup, GError **error)
{
  Placer *s = placer_new (KIND_FGD);

  s->classes = g_array_new (FALSE, FALSE, sizeof (SimTaskClass));
  if (setup->task_classes != NULL && setup->n_task_classes > 0 &&
      weight_sum (setup->task_classes, setup->n_task_classes) > 0)
    g_array_append_vals (s->classes, setup->task_classes, setup->n_task_classes);
  else
    {
      s->learn = TRUE;
      s->seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
    }
  return s;
}

void
sim__register_placements (void)
{
  static const char * const dot_keys[] = { "dot_product", NULL };
  static const SimPlacementInfo infos[] = {
    { .name = "worst-fit",
      .description = "the node with the most free GPUs (fractional: the GPU with the most room)",
      .create = create_worst_fit, .destroy = placer_free, .place = place },
    { .name = "random",
      .description = "uniformly among the nodes (fractional: GPUs) with room, seeded",
      .create = create_random, .destroy = placer_free, .place = place },
    { .name = "packing",
      .description = "GPU packing: shared GPUs first, then used nodes, then idle ones",
      .create = create_packing, .destroy = placer_free, .place = place },
    { .name = "clustering",
      .description = "GPU clustering: nodes holding tasks of the same GPU request first",
      .create = create_clustering, .destroy = placer_free, .place = place },
    { .name = "dot-product",
      .description = "Tetris: best alignment of demand and free CPU, memory and GPU",
      .keys = dot_keys, .create = create_dot_product, .destroy = placer_free, .place = place },
    { .name = "fgd",
      .description = "fragmentation gradient descent: the least increase of expected fragmentation",
      .create = create_fgd, .destroy = placer_free, .place = place },
  };

  for (guint i = 0; i < G_N_ELEMENTS (infos); i++)
    sim_policy_register_placement (&infos[i]);
}

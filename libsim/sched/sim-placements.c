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
 *  - clustering: the FGD paper's "GPU clustering" baseline, as its
 *    simulator defines it (kubernetes-scheduler-simulator, plugin
 *    GpuClusteringScore, with the GPU chosen within the node by best fit,
 *    its default): a task's type is "sharing" for a fractional task and
 *    "whole GPUs" otherwise, and a node's types are those of the tasks it
 *    holds.  Nodes are ranked in four bands: a node holding only the job's
 *    type, a node holding it among others, an idle node, a node holding
 *    only other types; within a band the node with the least free GPU
 *    capacity first; within the node, the GPU with the least room that
 *    fits.  The cluster does not record which jobs a GPU holds, so the
 *    types are read off the GPUs: a GPU wholly taken by one tenant holds a
 *    whole-GPU task, any other GPU in use holds sharing tasks, and a GPU in
 *    MIG mode is of neither type.  Two simplifications follow from that,
 *    and one from determinism: the simulator's tags also tell whole-GPU
 *    tasks apart by their GPU count (1-GPU, 2-GPU, ...), which the GPUs do
 *    not show, so here they are one type; and its score is an integer of
 *    25 levels per band with ties drawn at random, where here the exact
 *    free capacity decides and ties go to the lowest number.  (Reading
 *    the type as the GPU share itself, as an earlier version did, kept
 *    fractional tasks of different sizes apart, spreading them over idle
 *    nodes; that is not the paper's baseline.)
 *  - dot-product: Tetris' alignment: the dot product of the job's demand
 *    and the node's free resources, (CPU, memory, GPU), each divided by the
 *    node's capacity of it; resources a node does not model are left out.
 *    For a fractional job the GPU term is that of the GPU considered.  By
 *    default the largest product wins (Tetris); the key dot_product = min
 *    takes the smallest, as the FGD paper's simulator does.
 *  - fgd: fragmentation gradient descent, below.
 *
 * Cost, without allocation per decision.  Worst-fit's whole-GPU jobs go
 * through the cluster's buckets of nodes by free GPUs (the first admitted
 * node in the largest bucket that fits), O(log nodes) per node tried; a job
 * spanning nodes takes its whole free nodes through the cluster's index of
 * free GPUs, pool after pool, for every placement.  The rest is one pass
 * over the nodes per decision, because the score looks at every node:
 * random must know every admitted node to draw uniformly among them;
 * packing and clustering rank nodes by their free thousandths (shared GPUs
 * included) and, for clustering, by the kinds of tasks they hold;
 * dot-product by free host CPU and memory as well as GPUs; FGD by each
 * node's change of fragmentation; and the fractional jobs of all but FGD
 * (worst-fit's too: it ranks GPUs by room, ties to the lowest number,
 * which the cluster's index of shared GPUs could serve but does not yet).
 * Nodes and GPUs are read straight from the cluster's arrays; a node is first
 * tested on what is cheap (free GPUs, room on a GPU), then scored, and
 * asked whether it admits the job (model, host CPU and memory) only if its
 * score would win: a refused node changes nothing, so this chooses what
 * filtering first would.  Random must know every admitted node and asks
 * each.  FGD memoises its work (below), so that a decision costs one pass
 * over the GPUs of the nodes with room plus, for the few nodes whose state
 * changed, O(task types x GPUs per node).  Indexing nodes by free capacity
 * would save the pass for the simple placements but not for FGD, whose
 * score is not monotone in any one quantity (see bench/bench-placement.c).
 */
#include "config.h"

#include "sched/sim-placements.h"
#include "sched/sim-policy-private.h"
#include "sched/sim-fragmentation.h"
#include "core/sim-rng.h"
#include "core/sim-error.h"

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

/* The task types as view_fragmentation() reads them: those that count
 * (positive weight, asking for GPUs), in their order, one array per field.
 * The distinct shares asked by the one-GPU fractional types are kept
 * ascending, so that the free capacity below each share is found for all
 * of them in one sweep of a node's sorted rooms rather than in one pass
 * over its GPUs per type. */
typedef enum {
  CLASS_SHARE,      /* one GPU, a share of it */
  CLASS_MULTI_SHARE,/* several GPUs, a share of each: never placed */
  CLASS_WHOLE,      /* whole GPUs */
} ClassKind;

typedef struct {
  guint        n_rows;
  guint32     *gpus;
  guint32     *milli;
  guint64     *cpu;      /* thousandths of a core */
  guint64     *mem;      /* bytes */
  const char **models;   /* NULL: any */
  guint8      *kind;     /* ClassKind */
  guint32     *level;    /* CLASS_SHARE: index of milli in levels */
  double      *weight;
  guint64     *weight_int; /* the weights, when integral */
  gboolean     integral;   /* whole weights, small enough for the sum to be exact */
  gboolean     any_models; /* some type restricts the GPU model */
  guint32     *levels;   /* ascending, below SIM_GPU_WHOLE */
  guint        n_levels;
} ClassTable;

typedef struct _FgdMemo FgdMemo;

typedef struct {
  Kind       kind;
  SimRng    *rng;         /* random */
  guint32   *candidates;  /* random: nodes (GPUs) that fit */
  guint      n_candidates;
  guint      candidates_size;
  GByteArray *taken;      /* nodes already in a job that spans nodes */
  gboolean   dot_min;     /* dot-product: smallest product wins */
  GArray    *classes;     /* SimTaskClass, fgd */
  gboolean   learn;       /* fgd: classes learnt from the jobs seen */
  GHashTable *seen;       /* fgd learning: job ids already counted */
  ClassTable table;       /* fgd: the classes as view_fragmentation() reads them */
  gboolean   table_stale; /* the classes changed since it was built */
  FgdMemo   *memo;        /* fgd */
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

static void
class_table_clear (ClassTable *ct)
{
  g_free (ct->gpus);
  g_free (ct->milli);
  g_free (ct->cpu);
  g_free (ct->mem);
  g_free (ct->models);
  g_free (ct->kind);
  g_free (ct->level);
  g_free (ct->weight);
  g_free (ct->weight_int);
  g_free (ct->levels);
  memset (ct, 0, sizeof *ct);
}

static void
class_table_build (ClassTable *ct, const SimTaskClass *classes, guint n)
{
  gboolean used[SIM_GPU_WHOLE] = { FALSE };
  guint32 index[SIM_GPU_WHOLE];
  guint size = MAX (n, 1);
  double sum = 0;

  class_table_clear (ct);
  ct->gpus = g_new (guint32, size);
  ct->milli = g_new (guint32, size);
  ct->cpu = g_new (guint64, size);
  ct->mem = g_new (guint64, size);
  ct->models = g_new (const char *, size);
  ct->kind = g_new (guint8, size);
  ct->level = g_new0 (guint32, size);
  ct->weight = g_new (double, size);
  ct->weight_int = g_new0 (guint64, size);
  ct->levels = g_new (guint32, size);
  ct->integral = TRUE;
  for (guint m = 0; m < n; m++)
    {
      const SimTaskClass *t = &classes[m];
      guint r = ct->n_rows;

      if (t->weight <= 0 || t->gpus == 0 || t->milli == 0)
        continue;
      ct->gpus[r] = t->gpus;
      ct->milli[r] = t->milli;
      ct->cpu[r] = t->cpu_milli;
      ct->mem[r] = t->memory_bytes;
      ct->models[r] = t->gpu_models;
      ct->any_models = ct->any_models || t->gpu_models != NULL;
      ct->kind[r] = t->milli >= SIM_GPU_WHOLE ? CLASS_WHOLE
                    : t->gpus == 1 ? CLASS_SHARE : CLASS_MULTI_SHARE;
      if (ct->kind[r] == CLASS_SHARE)
        used[t->milli] = TRUE;
      ct->weight[r] = t->weight;
      /* With whole weights whose sum times the most free capacity a node
       * can have stays below 2^53, every product and partial sum of the
       * floating-point sum is an exact integer: the sum may be taken in
       * integers instead, which gives the same double. */
      ct->integral = ct->integral && t->weight == floor (t->weight) &&
                     t->weight < 9007199254740992.0;
      if (ct->integral)
        {
          ct->weight_int[r] = (guint64) t->weight;
          sum += t->weight;
        }
      ct->n_rows++;
    }
  ct->integral = ct->integral &&
                 sum * SIM_GPU_WHOLE * SIM_CLUSTER_MAX_GPUS_PER_NODE < 9007199254740992.0;
  for (guint milli = 0; milli < SIM_GPU_WHOLE; milli++)
    if (used[milli])
      {
        index[milli] = ct->n_levels;
        ct->levels[ct->n_levels++] = milli;
      }
  for (guint r = 0; r < ct->n_rows; r++)
    if (ct->kind[r] == CLASS_SHARE)
      ct->level[r] = index[ct->milli[r]];
}

/* sum_m w_m F_n(m), in thousandths of a GPU times weight.
 *
 * The unusable capacity of each type is found first, without a branch
 * that depends on the type where the compiler can help it, and summed in
 * type order afterwards.  Time complexity: O(types + GPUs per node
 * squared), the square from sorting the rooms. */
static double
view_fragmentation (const SimCluster *cluster, const NodeView *v, const ClassTable *ct)
{
  guint total = 0, whole_free = 0, max_room = 0, partial = 0;
  guint sorted[SIM_CLUSTER_MAX_GPUS_PER_NODE];
  guint below[SIM_GPU_WHOLE];
  guint unusable[256];
  double f = 0;

  for (guint g = 0; g < v->n_gpus; g++)
    {
      guint room = v->free[g], k = g;

      total += room;
      if (room == SIM_GPU_WHOLE)
        whole_free++;
      else
        partial += room;
      max_room = MAX (max_room, room);
      while (k > 0 && sorted[k - 1] > room)
        {
          sorted[k] = sorted[k - 1];
          k--;
        }
      sorted[k] = room;
    }
  if (total == 0)
    return 0;
  /* below[j]: the free capacity on GPUs with less room than levels[j]. */
  for (guint j = 0, p = 0, acc = 0; j < ct->n_levels; j++)
    {
      while (p < v->n_gpus && sorted[p] < ct->levels[j])
        acc += sorted[p++];
      below[j] = acc;
    }
  for (guint r0 = 0; r0 < ct->n_rows; r0 += G_N_ELEMENTS (unusable))
    {
      guint n = MIN (ct->n_rows - r0, G_N_ELEMENTS (unusable));
      guint64 exact = 0;

      for (guint k = 0; k < n; k++)
        {
          guint r = r0 + k;
          guint64 cpu = ct->cpu[r], mem = ct->mem[r];
          guint32 gpus = ct->gpus[r];
          gboolean fits;
          guint u;

          if (gpus > v->n_gpus)
            {
              /* A share of a multi-node task, as sim_job_host_share()
               * splits it; it can use the node only whole. */
              cpu = cpu * v->n_gpus / gpus;
              mem = mem / gpus * v->n_gpus;
              u = whole_free == v->n_gpus ? 0 : total;
            }
          else if (ct->kind[r] == CLASS_SHARE)
            u = max_room < ct->milli[r] ? total : below[ct->level[r]];
          else if (ct->kind[r] == CLASS_WHOLE)
            u = whole_free < gpus ? total : partial;
          else
            u = total;
          fits = view_fits_host (v, cpu, mem);
          if (ct->any_models && ct->models[r] != NULL &&
              !sim_cluster_node_allows (cluster, v->node, ct->models[r]))
            fits = FALSE;
          unusable[k] = fits ? u : total;
        }
      if (ct->integral)
        {
          for (guint k = 0; k < n; k++)
            exact += ct->weight_int[r0 + k] * unusable[k];
          f += (double) exact;
        }
      else
        for (guint k = 0; k < n; k++)
          f += ct->weight[r0 + k] * unusable[k];
    }
  return f;
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ClassTable, class_table_clear)

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
  g_auto(ClassTable) ct = { 0 };
  NodeView v;
  double w;

  g_return_val_if_fail (cluster != NULL && node < sim_cluster_get_n_nodes (cluster), 0);
  g_return_val_if_fail (classes != NULL || n == 0, 0);
  w = weight_sum (classes, n);
  if (w <= 0)
    return 0;
  class_table_build (&ct, classes, n);
  node_view (cluster, node, &v);
  return view_fragmentation (cluster, &v, &ct) / w / SIM_GPU_WHOLE;
}

double
sim_fgd_cluster_fragmentation (const SimCluster *cluster, const SimTaskClass *classes, guint n)
{
  g_auto(ClassTable) ct = { 0 };
  guint n_nodes;
  double w, f = 0;
  NodeView v;

  g_return_val_if_fail (cluster != NULL, 0);
  g_return_val_if_fail (classes != NULL || n == 0, 0);
  w = weight_sum (classes, n);
  if (w <= 0)
    return 0;
  class_table_build (&ct, classes, n);
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
      f += view_fragmentation (cluster, &v, &ct);
    }
  return f / w / SIM_GPU_WHOLE;
}

/* ------------------------------------------------------------------------- */
/* What a decision reads of the cluster.
 *
 * The cluster keeps its nodes and its GPUs each in one array, numbered
 * densely (sim-cluster.h); a decision takes the address of the first of
 * each once and indexes from there, which the pass over every node would
 * otherwise pay a call per node and per GPU for.  The layout is checked
 * once per decision. */

typedef struct {
  const SimCluster *cluster;
  const SimNode    *nodes;
  const SimGpu     *gpus;
  guint             n_nodes;
  guint             n_gpus;
} Arrays;

static void
arrays_init (Arrays *a, const SimCluster *cluster)
{
  a->cluster = cluster;
  a->n_nodes = sim_cluster_get_n_nodes (cluster);
  a->n_gpus = sim_cluster_get_n_gpus (cluster);
  a->nodes = a->n_nodes > 0 ? sim_cluster_get_node (cluster, 0) : NULL;
  a->gpus = a->n_gpus > 0 ? sim_cluster_get_gpu (cluster, 0) : NULL;
  g_assert (a->n_nodes == 0 ||
            sim_cluster_get_node (cluster, a->n_nodes - 1) == a->nodes + a->n_nodes - 1);
  g_assert (a->n_gpus == 0 ||
            sim_cluster_get_gpu (cluster, a->n_gpus - 1) == a->gpus + a->n_gpus - 1);
}

/* sim_place_node_admits() for one decision: the job's host share on a node
 * depends only on how many of its GPUs go there, so it is computed once
 * rather than once per node.  The test is that function's, node by node. */
typedef struct {
  const char *models;  /* NULL: any GPU model */
  gboolean    host;    /* the job asks for CPU or memory at all */
  guint64     cpu;     /* its share on one node */
  guint64     mem;
} Admit;

static void
admit_init (Admit *d, const SimJob *job, guint gpus_here)
{
  d->models = job->spec.gpu_models;
  d->host = job->spec.cpu_milli != 0 || job->spec.memory_bytes != 0;
  sim_job_host_share (job, gpus_here, &d->cpu, &d->mem);
}

static inline gboolean
admits (const Arrays *a, const Admit *d, guint i)
{
  const SimNode *node = &a->nodes[i];

  if (d->models != NULL && !sim_cluster_node_allows (a->cluster, i, d->models))
    return FALSE;
  if (!d->host)
    return TRUE;
  return (node->cpu_milli == 0 || d->cpu <= node->free_cpu_milli) &&
         (node->memory_bytes == 0 || d->mem <= node->free_memory_bytes);
}

/* Whether some GPU of NODE has MILLI of room.  A free GPU has all of it. */
static inline gboolean
node_has_room (const Arrays *a, const SimNode *node, guint milli)
{
  const SimGpu *g = a->gpus + node->first_gpu;

  if (node->free_gpus > 0)
    return TRUE;
  for (guint k = 0; k < node->n_gpus; k++)
    if (gpu_room (&g[k]) >= milli)
      return TRUE;
  return FALSE;
}

/* ------------------------------------------------------------------------- */
/* Scores, lower is better. */

/* Free GPU capacity of a node, in thousandths (MIG GPUs count as none). */
static guint
node_free_milli (const Arrays *a, const SimNode *node)
{
  const SimGpu *g = a->gpus + node->first_gpu;
  guint sum = 0;

  for (guint k = 0; k < node->n_gpus; k++)
    sum += gpu_room (&g[k]);
  return sum;
}

/* Clustering band of NODE for a job of the sharing type (SHARE) or of the
 * whole-GPU type: 0 only that type, 1 that type among others, 2 idle, 3
 * only other types.  A GPU wholly taken by one tenant holds a whole-GPU
 * task, any other GPU in use sharing tasks; MIG instances are neither. */
static guint
cluster_band (const Arrays *a, const SimNode *node, gboolean share)
{
  const SimGpu *g = a->gpus + node->first_gpu;
  gboolean same = FALSE, other = FALSE;

  for (guint k = 0; k < node->n_gpus; k++)
    {
      const SimGpu *gpu = &g[k];
      gboolean whole;

      if (gpu->n_tenants == 0)
        continue;
      if (gpu->mig_used != 0)
        {
          other = TRUE;
          continue;
        }
      whole = gpu->n_tenants == 1 && gpu->used_milli == SIM_GPU_WHOLE;
      if (whole != share)
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

/* The score of putting WANT whole GPUs of a job on NODE; D is the job's
 * admission for that share (its host share is the dot product's demand). */
static double
node_score (const Placer *s, const Arrays *a, const SimNode *node, const Admit *d, guint want)
{
  switch (s->kind)
    {
    case KIND_WORST_FIT:
      return -(double) node->free_gpus;
    case KIND_PACKING:
      /* Whole GPUs never go on shared ones: a used node, the most
       * allocated first, then an idle node, the smallest first. */
      if (node->free_gpus < node->n_gpus)
        return 1e9 + node_free_milli (a, node);
      return 2e9 + node->n_gpus;
    case KIND_CLUSTERING:
      return cluster_band (a, node, FALSE) * 1e9 + node_free_milli (a, node);
    case KIND_DOT_PRODUCT:
      {
        double dot = dot_host (node, d->cpu, d->mem) +
                     ((double) want / node->n_gpus) *
                       ((double) node_free_milli (a, node) / (node->n_gpus * SIM_GPU_WHOLE));
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
  guint  free_milli;
  guint  band;
  double host_dot;   /* dot-product: the host terms, alike for every GPU */
} NodeFacts;

static void
node_facts (const Placer *s, const Arrays *a, const SimNode *node, const SimJob *job,
            NodeFacts *f)
{
  f->free_milli = s->kind == KIND_PACKING || s->kind == KIND_CLUSTERING
                    ? node_free_milli (a, node) : 0;
  f->band = s->kind == KIND_CLUSTERING ? cluster_band (a, node, TRUE) : 0;
  f->host_dot = s->kind == KIND_DOT_PRODUCT
                  ? dot_host (node, job->spec.cpu_milli, job->spec.memory_bytes) : 0;
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
        double dot = f->host_dot +
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
 * increase of the cluster.
 *
 * Memoisation.  A node's F_n(M) before and after a placement is a function
 * of what the node looks like (the room of each GPU, which GPUs have no
 * tenant, free and total host CPU and memory, its pool and GPU model), of
 * the task types and of the job's shape (GPUs, share, CPU, memory, models,
 * and how many of its GPUs go on the node).  Between two decisions only
 * the nodes that received a job change, so both are kept: per node, a copy
 * of that state with a version number and F_n(M) before; per job shape,
 * the increase of each node (for a fractional shape, of each GPU that is a
 * candidate) with the version of the node it was computed for.  A decision
 * compares each node with room against its copy (O(GPUs per node)); when
 * they differ, the node gets a new version and everything computed for it
 * is recomputed when next asked for.  The values are those the direct
 * computation gives, bit for bit, since they come from the same inputs
 * through the same arithmetic, and the scan compares them in the same
 * order; so the choices are the same.  When the task types change (FGD
 * learning them online), every node is recomputed.
 *
 * Under both, F of a node state is memoised by the state itself (the
 * rooms sorted, since F depends only on their multiset, the host, and the
 * GPU model if a type restricts it), in a fixed table of slots that each
 * keep the last state hashed there: nodes alike, most of them while the
 * cluster is young, share one computation.  A table of F by state alone,
 * without the per-node versions, was rejected: it would hash every node at
 * every decision, which costs more than comparing the node with its copy.
 *
 * F itself is a sum over task types in their order; when the weights are
 * whole numbers small enough that every partial sum is an exact integer
 * (pod counts, as in the openb experiment), it is summed in integers,
 * which gives the same double.  Memory: O(nodes + GPUs) per job shape
 * seen (at most FGD_MAX_SHAPES, then they start afresh) and the state
 * table (about 3 MB). */

#define FGD_EPSILON 1e-9
#define FGD_MAX_SHAPES 512
#define FGD_STATE_SLOTS (1u << 14)

typedef struct {
  guint64 version;      /* 0: nothing recorded */
  guint64 epoch;        /* the task types' epoch it was recorded at */
  guint64 free_cpu, free_mem;
  guint64 cpu_cap, mem_cap;
  const SimGpuModel *model;
  guint32 pool;
  guint32 n_gpus;
  guint32 first_gpu;
  guint64 idle;         /* bit g: GPU g has no tenant */
  guint64 first;        /* bit g: no lower GPU has GPU g's room */
  gboolean have_before;
  double  before;       /* sum_m w_m F_n(m) of this state */
} NodeMemo;

/* F_n(M) of one node state: the rooms sorted (F depends on their multiset
 * only), the host, and the GPU model when some type restricts it. */
typedef struct {
  guint64       epoch;  /* 0: empty */
  guint64       free_cpu, free_mem, cpu_cap, mem_cap;
  gconstpointer model;
  guint32       n_gpus;
  guint16       room[SIM_CLUSTER_MAX_GPUS_PER_NODE];
  double        f;
} StateEntry;

typedef struct {
  guint32     gpus, milli, want, cpu_milli;
  guint64     memory_bytes;
  const char *gpu_models;
  guint64    *version;  /* per node: the node version the values below are for */
  double     *node;     /* per node: the increase (whole-GPU shapes) */
  double     *gpu;      /* per GPU: the increase if it is a candidate (fractional) */
} ShapeMemo;

struct _FgdMemo {
  guint      n_nodes, n_gpus;
  NodeMemo  *nodes;
  guint16   *room;      /* per GPU: its room in the recorded state */
  SimGpu    *gpus;      /* per GPU: the state recorded */
  GPtrArray *shapes;    /* ShapeMemo* */
  guint      last_shape;
  guint64    clock;     /* the last version given out */
  guint64    epoch;     /* bumped when the task types change */
  StateEntry *states;   /* F by node state, FGD_STATE_SLOTS of them */
};

static void
shape_memo_free (gpointer data)
{
  ShapeMemo *m = data;

  g_free (m->version);
  g_free (m->node);
  g_free (m->gpu);
  g_free (m);
}

static void
fgd_memo_free (FgdMemo *memo)
{
  if (memo == NULL)
    return;
  g_free (memo->nodes);
  g_free (memo->room);
  g_free (memo->gpus);
  g_free (memo->states);
  g_ptr_array_unref (memo->shapes);
  g_free (memo);
}

/* The memo for a cluster of A's size; a cluster of another size starts it
 * afresh. */
static FgdMemo *
fgd_memo_get (Placer *s, const Arrays *a)
{
  FgdMemo *m = s->memo;

  if (m != NULL && m->n_nodes == a->n_nodes && m->n_gpus == a->n_gpus)
    return m;
  if (m == NULL)
    {
      m = s->memo = g_new0 (FgdMemo, 1);
      m->shapes = g_ptr_array_new_with_free_func (shape_memo_free);
      m->states = g_new0 (StateEntry, FGD_STATE_SLOTS);
      m->epoch = 1;
    }
  g_free (m->nodes);
  g_free (m->room);
  g_free (m->gpus);
  g_ptr_array_set_size (m->shapes, 0);
  m->n_nodes = a->n_nodes;
  m->n_gpus = a->n_gpus;
  m->nodes = g_new0 (NodeMemo, MAX (a->n_nodes, 1));
  m->room = g_new0 (guint16, MAX (a->n_gpus, 1));
  m->gpus = g_new0 (SimGpu, MAX (a->n_gpus, 1));
  m->last_shape = 0;
  return m;
}

/* The memo of JOB's shape with WANT of its GPUs on one node. */
static ShapeMemo *
fgd_shape (FgdMemo *m, const SimJob *job, guint want)
{
  const SimJobSpec *sp = &job->spec;
  ShapeMemo *x;

  for (guint k = 0; k < m->shapes->len; k++)
    {
      guint i = (m->last_shape + k) % m->shapes->len;
      x = m->shapes->pdata[i];
      if (x->gpus == sp->gpus && x->milli == sp->gpu_milli && x->want == want &&
          x->cpu_milli == sp->cpu_milli && x->memory_bytes == sp->memory_bytes &&
          x->gpu_models == sp->gpu_models)
        {
          m->last_shape = i;
          return x;
        }
    }
  if (m->shapes->len >= FGD_MAX_SHAPES)
    g_ptr_array_set_size (m->shapes, 0);
  x = g_new0 (ShapeMemo, 1);
  x->gpus = sp->gpus;
  x->milli = sp->gpu_milli;
  x->want = want;
  x->cpu_milli = sp->cpu_milli;
  x->memory_bytes = sp->memory_bytes;
  x->gpu_models = sp->gpu_models;
  x->version = g_new0 (guint64, MAX (m->n_nodes, 1));
  x->node = g_new0 (double, MAX (m->n_nodes, 1));
  x->gpu = g_new0 (double, MAX (m->n_gpus, 1));
  g_ptr_array_add (m->shapes, x);
  m->last_shape = m->shapes->len - 1;
  return x;
}

/* Recorded GPUs are compared as bytes, which needs a struct without padding. */
G_STATIC_ASSERT (sizeof (SimGpu) == 5 * sizeof (guint32));

/* Compares node I with its recorded state, records it anew if it differs,
 * and returns the version of the state. */
static guint64
fgd_sync_node (FgdMemo *m, const Arrays *a, guint i)
{
  const SimNode *node = &a->nodes[i];
  const SimGpu *g = a->gpus + node->first_gpu;
  NodeMemo *n = &m->nodes[i];
  guint16 *room = m->room + node->first_gpu;
  SimGpu *copy = m->gpus + node->first_gpu;
  guint64 idle = 0, first = 0;

  /* SimGpu has no padding: equal bytes are equal GPUs. */
  if (n->version != 0 && n->epoch == m->epoch && n->free_cpu == node->free_cpu_milli &&
      n->free_mem == node->free_memory_bytes && n->n_gpus == node->n_gpus &&
      n->first_gpu == node->first_gpu && n->cpu_cap == node->cpu_milli &&
      n->mem_cap == node->memory_bytes && n->pool == node->pool &&
      n->model == node->gpu_model && memcmp (copy, g, node->n_gpus * sizeof (SimGpu)) == 0)
    return n->version;
  memcpy (copy, g, node->n_gpus * sizeof (SimGpu));
  for (guint k = 0; k < node->n_gpus; k++)
    {
      gboolean again = FALSE;

      room[k] = (guint16) gpu_room (&g[k]);
      if (g[k].n_tenants == 0)
        idle |= G_GUINT64_CONSTANT (1) << k;
      for (guint j = 0; j < k && !again; j++)
        again = room[j] == room[k];
      if (!again)
        first |= G_GUINT64_CONSTANT (1) << k;
    }
  n->first = first;
  n->version = ++m->clock;
  n->epoch = m->epoch;
  n->idle = idle;
  n->free_cpu = node->free_cpu_milli;
  n->free_mem = node->free_memory_bytes;
  n->cpu_cap = node->cpu_milli;
  n->mem_cap = node->memory_bytes;
  n->n_gpus = node->n_gpus;
  n->first_gpu = node->first_gpu;
  n->pool = node->pool;
  n->model = node->gpu_model;
  n->have_before = FALSE;
  return n->version;
}

/* The view of node I as recorded. */
static void
fgd_memo_view (const FgdMemo *m, guint i, NodeView *v)
{
  const NodeMemo *n = &m->nodes[i];
  const guint16 *room = m->room + n->first_gpu;

  v->node = i;
  v->n_gpus = n->n_gpus;
  for (guint g = 0; g < n->n_gpus; g++)
    v->free[g] = room[g];
  v->cpu_cap = n->cpu_cap;
  v->free_cpu = n->free_cpu;
  v->mem_cap = n->mem_cap;
  v->free_mem = n->free_mem;
}

/* view_fragmentation() of V, a view of a node whose GPU model is MODEL,
 * through the memo of F by state: nodes alike (most of them, while they
 * are idle) share one computation.  A slot holds the last state hashed to
 * it; the whole state is compared, so a hit is exact. */
static double
fgd_state_f (const Placer *s, const Arrays *a, FgdMemo *m, const NodeView *v,
             gconstpointer model)
{
  guint16 sorted[SIM_CLUSTER_MAX_GPUS_PER_NODE];
  guint64 h = G_GUINT64_CONSTANT (0xcbf29ce484222325);
  StateEntry *e;

  if (!s->table.any_models)
    model = NULL;
  for (guint g = 0; g < v->n_gpus; g++)
    {
      guint16 room = (guint16) v->free[g];
      guint k = g;
      while (k > 0 && sorted[k - 1] > room)
        {
          sorted[k] = sorted[k - 1];
          k--;
        }
      sorted[k] = room;
    }
  for (guint g = 0; g < v->n_gpus; g++)
    h = (h ^ sorted[g]) * G_GUINT64_CONSTANT (0x100000001b3);
  h = (h ^ v->free_cpu) * G_GUINT64_CONSTANT (0x100000001b3);
  h = (h ^ v->free_mem) * G_GUINT64_CONSTANT (0x100000001b3);
  h = (h ^ v->cpu_cap) * G_GUINT64_CONSTANT (0x100000001b3);
  h = (h ^ v->mem_cap) * G_GUINT64_CONSTANT (0x100000001b3);
  h = (h ^ GPOINTER_TO_SIZE (model)) * G_GUINT64_CONSTANT (0x100000001b3);
  h ^= h >> 29;
  e = &m->states[h & (FGD_STATE_SLOTS - 1)];
  if (e->epoch == m->epoch && e->n_gpus == v->n_gpus && e->free_cpu == v->free_cpu &&
      e->free_mem == v->free_mem && e->cpu_cap == v->cpu_cap && e->mem_cap == v->mem_cap &&
      e->model == model && memcmp (e->room, sorted, v->n_gpus * sizeof (guint16)) == 0)
    return e->f;
  e->f = view_fragmentation (a->cluster, v, &s->table);
  e->epoch = m->epoch;
  e->n_gpus = v->n_gpus;
  e->free_cpu = v->free_cpu;
  e->free_mem = v->free_mem;
  e->cpu_cap = v->cpu_cap;
  e->mem_cap = v->mem_cap;
  e->model = model;
  memcpy (e->room, sorted, v->n_gpus * sizeof (guint16));
  return e->f;
}

/* F_n(M) of node I's recorded state (as view_fragmentation() gives it). */
static double
fgd_before (const Placer *s, const Arrays *a, FgdMemo *m, guint i, const NodeView *v)
{
  NodeMemo *n = &m->nodes[i];

  if (!n->have_before)
    {
      n->before = fgd_state_f (s, a, m, v, n->model);
      n->have_before = TRUE;
    }
  return n->before;
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
  /* The weights change: every memoised value is stale. */
  s->table_stale = TRUE;
  if (s->memo != NULL)
    s->memo->epoch++;
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

/* The increase of fragmentation when WANT whole GPUs of JOB go on node I,
 * in the state recorded for it: its lowest-numbered GPUs without tenant
 * lose all their room, and the node the job's host share. */
static double
fgd_whole_delta (const Placer *s, const Arrays *a, FgdMemo *m, guint i, const SimJob *job,
                 guint want)
{
  guint got = 0;
  NodeView v;
  double before;
  guint64 cpu, mem;
  guint64 idle = m->nodes[i].idle;

  fgd_memo_view (m, i, &v);
  before = fgd_before (s, a, m, i, &v);
  for (guint g = 0; g < v.n_gpus && got < want; g++)
    if ((idle >> g) & 1)
      {
        v.free[g] = 0;
        got++;
      }
  sim_job_host_share (job, want, &cpu, &mem);
  if (v.cpu_cap > 0)
    v.free_cpu -= MIN (cpu, v.free_cpu);
  if (v.mem_cap > 0)
    v.free_mem -= MIN (mem, v.free_mem);
  return fgd_state_f (s, a, m, &v, m->nodes[i].model) - before;
}

/* Whether GPU G of node memo N (rooms ROOM) is a candidate for a
 * fractional job of MILLI: it fits, and no lower GPU has the same room. */
static inline gboolean
fgd_candidate (const NodeMemo *n, const guint16 *room, guint g, guint milli)
{
  return room[g] >= milli && ((n->first >> g) & 1) != 0;
}

/* Fills X's increases for node I's candidate GPUs, in the recorded state. */
static void
fgd_fraction_deltas (const Placer *s, const Arrays *a, FgdMemo *m, guint i, const SimJob *job,
                     ShapeMemo *x)
{
  const NodeMemo *nm = &m->nodes[i];
  const guint16 *room = m->room + nm->first_gpu;
  guint milli = job->spec.gpu_milli;
  NodeView v;
  double before;

  fgd_memo_view (m, i, &v);
  before = fgd_before (s, a, m, i, &v);
  for (guint g = 0; g < v.n_gpus; g++)
    {
      NodeView after;

      if (!fgd_candidate (nm, room, g, milli))
        continue;
      after = v;
      after.free[g] -= milli;
      if (after.cpu_cap > 0)
        after.free_cpu -= MIN (job->spec.cpu_milli, after.free_cpu);
      if (after.mem_cap > 0)
        after.free_mem -= MIN (job->spec.memory_bytes, after.free_mem);
      x->gpu[nm->first_gpu + g] = fgd_state_f (s, a, m, &after, nm->model) - before;
    }
}

static gboolean
fgd_fraction (Placer *s, const Arrays *a, const SimJob *job, gint64 *chosen)
{
  guint milli = job->spec.gpu_milli;
  FgdMemo *m = fgd_memo_get (s, a);
  ShapeMemo *x = fgd_shape (m, job, 1);
  double best = INFINITY;
  Admit d;

  admit_init (&d, job, 1);
  *chosen = -1;
  for (guint i = 0; i < a->n_nodes; i++)
    {
      const SimNode *node = &a->nodes[i];
      const guint16 *room;
      gboolean asked = FALSE, admitted = FALSE;
      guint64 version;

      if (!node_has_room (a, node, milli))
        continue;
      version = fgd_sync_node (m, a, i);
      if (x->version[i] != version)
        {
          fgd_fraction_deltas (s, a, m, i, job, x);
          x->version[i] = version;
        }
      room = m->room + node->first_gpu;
      for (guint g = 0; g < node->n_gpus; g++)
        {
          double delta;

          if (!fgd_candidate (&m->nodes[i], room, g, milli))
            continue;
          delta = x->gpu[node->first_gpu + g];
          if (!(delta < best - FGD_EPSILON))
            continue;
          if (!asked)
            {
              admitted = admits (a, &d, i);
              asked = TRUE;
            }
          if (!admitted)
            break;
          best = delta;
          *chosen = node->first_gpu + g;
        }
    }
  return *chosen >= 0;
}

/* ------------------------------------------------------------------------- */
/* The shared frame: which node, which GPU. */

static guint
take_free_gpus (const Arrays *a, const SimNode *node, guint want, guint32 *out)
{
  const SimGpu *g = a->gpus + node->first_gpu;
  guint got = 0;

  for (guint k = 0; k < node->n_gpus && got < want; k++)
    if (g[k].n_tenants == 0)
      out[got++] = node->first_gpu + k;
  return got;
}

/* Empties the random placement's candidates, with room for every node and
 * every GPU of A (the buffer grows only with the cluster). */
static void
candidates_reset (Placer *s, const Arrays *a)
{
  guint size = MAX (MAX (a->n_nodes, a->n_gpus), 1);

  if (s->candidates_size < size)
    {
      g_free (s->candidates);
      s->candidates = g_new (guint32, size);
      s->candidates_size = size;
    }
  s->n_candidates = 0;
}

/* The node to host WANT whole GPUs of JOB, skipping nodes marked in SKIP. */
static const SimNode *
choose_node (Placer *s, const Arrays *a, const SimJob *job, guint want, const guint8 *skip)
{
  const SimNode *chosen = NULL;
  double best = INFINITY;
  FgdMemo *m = NULL;
  ShapeMemo *x = NULL;
  Admit d;

  admit_init (&d, job, want);
  if (s->kind == KIND_WORST_FIT)
    {
      /* The node with the most free GPUs, ties to the lowest number: the
       * first node admitting the job in the largest bucket of nodes by
       * free GPUs, through the cluster's index, without a pass. */
      for (guint f = sim_cluster_get_max_gpus_per_node (a->cluster); f >= want && f > 0; f--)
        for (guint i = sim_cluster_find_node_with_free_exactly (a->cluster, 0, f);
             i != G_MAXUINT; i = sim_cluster_find_node_with_free_exactly (a->cluster, i + 1, f))
          if ((skip == NULL || !skip[i]) && admits (a, &d, i))
            return &a->nodes[i];
      return NULL;
    }
  if (s->kind == KIND_RANDOM)
    candidates_reset (s, a);
  if (s->kind == KIND_FGD)
    {
      m = fgd_memo_get (s, a);
      x = fgd_shape (m, job, want);
    }
  for (guint i = 0; i < a->n_nodes; i++)
    {
      const SimNode *node = &a->nodes[i];
      double score;

      if (node->free_gpus < want || (skip != NULL && skip[i]))
        continue;
      if (s->kind == KIND_RANDOM)
        {
          if (admits (a, &d, i))
            s->candidates[s->n_candidates++] = i;
          continue;
        }
      if (s->kind == KIND_FGD)
        {
          guint64 version = fgd_sync_node (m, a, i);
          if (x->version[i] != version)
            {
              x->node[i] = fgd_whole_delta (s, a, m, i, job, want);
              x->version[i] = version;
            }
          score = x->node[i];
        }
      else
        score = node_score (s, a, node, &d, want);
      if ((chosen == NULL || score < best - FGD_EPSILON) && admits (a, &d, i))
        {
          chosen = node;
          best = score;
        }
    }
  if (s->kind == KIND_RANDOM && s->n_candidates > 0)
    chosen = &a->nodes[s->candidates[sim_rng_uniform_int (s->rng, s->n_candidates)]];
  return chosen;
}

static gboolean
place_fraction (Placer *s, const Arrays *a, const SimJob *job, SimPlacement *placement)
{
  guint milli = job->spec.gpu_milli;
  gint64 chosen = -1;
  double best = INFINITY;

  if (job->spec.gpus != 1)
    return FALSE;
  if (s->kind == KIND_FGD)
    {
      if (!fgd_fraction (s, a, job, &chosen))
        return FALSE;
    }
  else
    {
      Admit d;

      admit_init (&d, job, 1);
      if (s->kind == KIND_RANDOM)
        candidates_reset (s, a);
      for (guint i = 0; i < a->n_nodes; i++)
        {
          const SimNode *node = &a->nodes[i];
          const SimGpu *g = a->gpus + node->first_gpu;
          gboolean admitted = FALSE, asked = FALSE, facts_known = FALSE;
          NodeFacts facts = { 0, 0, 0 };

          for (guint k = 0; k < node->n_gpus; k++)
            {
              guint32 index = node->first_gpu + k;
              double score;

              if (gpu_room (&g[k]) < milli)
                continue;
              if (s->kind == KIND_RANDOM)
                {
                  if (!asked)
                    {
                      admitted = admits (a, &d, i);
                      asked = TRUE;
                    }
                  if (!admitted)
                    break;
                  s->candidates[s->n_candidates++] = index;
                  continue;
                }
              if (!facts_known)
                {
                  node_facts (s, a, node, job, &facts);
                  facts_known = TRUE;
                }
              score = gpu_score (s, &facts, node, &g[k], job);
              if (!(chosen < 0 || score < best - FGD_EPSILON))
                continue;
              if (!asked)
                {
                  admitted = admits (a, &d, i);
                  asked = TRUE;
                }
              if (!admitted)
                break;
              chosen = index;
              best = score;
            }
        }
      if (s->kind == KIND_RANDOM && s->n_candidates > 0)
        chosen = s->candidates[sim_rng_uniform_int (s->rng, s->n_candidates)];
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
  const SimNode *node;
  guint8 *taken;
  guint got = 0;
  Arrays a;

  if (s->kind == KIND_FGD)
    {
      fgd_learn (s, job);
      if (s->table_stale)
        {
          class_table_build (&s->table, (const SimTaskClass *) (void *) s->classes->data,
                             s->classes->len);
          s->table_stale = FALSE;
        }
    }
  arrays_init (&a, cluster);
  if (job->spec.gpu_milli < SIM_GPU_WHOLE)
    return job->spec.gpu_milli > 0 && place_fraction (s, &a, job, placement);
  if (want == 0 || want > sim_cluster_get_n_free_gpus (cluster))
    return FALSE;
  placement->n_gpus = want;
  placement->milli = SIM_GPU_WHOLE;

  if (want <= sim_cluster_get_max_gpus_per_node (cluster))
    {
      if (sim_cluster_count_nodes_with_free (cluster, want) == 0)
        return FALSE;
      node = choose_node (s, &a, job, want, NULL);
      if (node == NULL)
        return FALSE;
      take_free_gpus (&a, node, want, placement->gpus);
      return TRUE;
    }

  /* Spans nodes: whole free nodes first, in order, then the remainder on
   * the node this placement prefers.  Pools are runs of nodes of one size:
   * a pool's whole free nodes are found through the cluster's index of
   * free GPUs.  The taken nodes are marked for choose_node() in an array
   * kept zeroed between decisions (cleared after use, node by node). */
  if (s->taken->len != a.n_nodes)
    {
      g_byte_array_set_size (s->taken, a.n_nodes);
      memset (s->taken->data, 0, a.n_nodes);
    }
  taken = s->taken->data;
  for (guint p = 0; p < sim_cluster_get_n_pools (cluster) && got < want; p++)
    {
      const SimPool *pool = sim_cluster_get_pool (cluster, p);
      guint size = pool->gpus_per_node, end = pool->first_node + pool->n_nodes;

      for (guint i = sim_cluster_find_node_with_free (cluster, pool->first_node, size);
           i < end && want - got >= size;
           i = sim_cluster_find_node_with_free (cluster, i + 1, size))
        if (sim_place_node_admits (cluster, i, job, size))
          {
            got += take_free_gpus (&a, &a.nodes[i], size, placement->gpus + got);
            taken[i] = 1;
          }
    }
  node = NULL;
  if (got < want)
    node = choose_node (s, &a, job, want - got, taken);
  for (guint k = 0; k < got; k += a.nodes[a.gpus[placement->gpus[k]].node].n_gpus)
    taken[a.gpus[placement->gpus[k]].node] = 0;
  if (got < want)
    {
      if (node == NULL)
        return FALSE;
      got += take_free_gpus (&a, node, want - got, placement->gpus + got);
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
  s->taken = g_byte_array_new ();
  return s;
}

static void
placer_free (gpointer state)
{
  Placer *s = state;

  if (s == NULL)
    return;
  g_clear_pointer (&s->rng, sim_rng_free);
  g_free (s->candidates);
  g_byte_array_unref (s->taken);
  g_clear_pointer (&s->memo, fgd_memo_free);
  class_table_clear (&s->table);
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
  s->table_stale = TRUE;
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
      .description = "GPU clustering: nodes holding tasks of the same type (sharing or whole GPUs) first",
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

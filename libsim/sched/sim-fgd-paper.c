/* sim-fgd-paper.c: the FGD experiment as the study's own simulator runs it.
 *
 * The semantics are in sim-fgd-paper.h.  Here: a node is a small struct
 * (free CPU and memory, free thousandths of each GPU, counts of the kinds
 * of GPU task it holds); a run is a loop over the seed's task sequence
 * that scores every feasible node and takes the best.
 *
 * The cost is in FGD's fragmentation, O(typical types x GPUs per node) per
 * node state.  Each node keeps the fragmentation of its present state and
 * a version that changes with the state; FGD's score and GPU choice for a
 * node and a task type are remembered with the version they were computed
 * at, so a node is scored again only when it changed since that type last
 * came.  Candidate GPUs with equal free room give equal states and are
 * tried once.
 */
#include "config.h"

#include "sched/sim-fgd-paper.h"
#include "cluster/sim-cluster.h"
#include "workload/sim-openb.h"
#include "core/sim-rng.h"
#include "core/sim-error.h"

#include <math.h>
#include <string.h>

const char *const sim__fgd_paper_policy_names[] = {
  "random", "dot-product", "clustering", "packing", "best-fit", "fgd", NULL,
};

typedef enum {
  POL_RANDOM, POL_DOT_PRODUCT, POL_CLUSTERING, POL_PACKING, POL_BEST_FIT, POL_FGD,
} Policy;

#define MAX_GPUS     8
#define MAX_MODELS   64
#define MAX_SCORE    100
#define MAX_SPEC_CPU 128000.0  /* milli-cores: the normalisation of CPU */
#define MAX_SPEC_GPU 8000      /* milli-GPUs: of GPU */
#define N_KINDS      (MAX_GPUS + 1) /* 0: shared GPU, k: k whole GPUs */
#define TYPICAL_SHARE 95       /* percent of the pods the typical types cover */

typedef struct {
  guint64 cpu_milli;
  guint64 memory_mib;
  guint32 num_gpu;
  guint32 gpu_milli;   /* 0 for CPU-only tasks */
  guint64 models;      /* accepted GPU models, bit per model */
  guint32 type;        /* index of its demand type, for FGD's memory */
} Task;

typedef struct {
  guint64 cpu_milli;
  guint32 num_gpu;
  guint32 gpu_milli;
  guint64 models;
  double  p;           /* popularity, summing to 1 over the typical types */
} Typical;

typedef struct {
  guint64 cpu_cap;
  guint64 mem_cap;
  guint8  n_gpus;
  guint8  model;
  guint32 name_rank;   /* position in byte order of names */
} NodeSpec;

struct _SimFgdPaper {
  NodeSpec *nodes;
  guint     n_nodes;
  guint     n_cpu_only;
  guint     n_gpus;
  guint64   capacity_milli;
  Task     *tasks;     /* the pod list in name order */
  guint    *task_of_pod; /* pod list position -> index in tasks */
  guint     n_tasks;
  guint     n_gpu_pods;
  guint     n_types;   /* demand types among the tasks */
  Typical  *typical;
  guint     n_typical;
};

/* ------------------------------------------------------------------------- */
/* Preparation.                                                              */

void
sim__fgd_paper_free (SimFgdPaper *p)
{
  if (p == NULL)
    return;
  g_free (p->nodes);
  g_free (p->tasks);
  g_free (p->task_of_pod);
  g_free (p->typical);
  g_free (p);
}

static guint
model_index (GPtrArray *names, const char *name, GError **error)
{
  for (guint i = 0; i < names->len; i++)
    if (strcmp (names->pdata[i], name) == 0)
      return i;
  if (names->len == MAX_MODELS)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "the node list has more than %d GPU models", MAX_MODELS);
      return G_MAXUINT;
    }
  g_ptr_array_add (names, (gpointer) name);
  return names->len - 1;
}

static int
compare_names (gconstpointer a, gconstpointer b, gpointer data)
{
  const GPtrArray *names = data;
  guint i = *(const guint *) a, j = *(const guint *) b;
  int c = strcmp (names->pdata[i], names->pdata[j]);

  return c != 0 ? c : (i > j) - (i < j);
}

/* The GPU models (bits) a pod accepts: all for an empty gpu_spec. */
static guint64
accepted_models (const GPtrArray *model_names, const SimOpenbPod *pod, gboolean ignore)
{
  guint64 mask = 0;

  if (ignore || pod->gpu_spec[0] == NULL)
    return G_MAXUINT64;
  for (guint s = 0; pod->gpu_spec[s] != NULL; s++)
    for (guint m = 0; m < model_names->len; m++)
      {
        const char *name = model_names->pdata[m];
        if (g_ascii_strcasecmp (pod->gpu_spec[s], name) == 0
            || g_ascii_strcasecmp (pod->gpu_spec[s], sim_openb_gpu_model_to_catalogue (name)) == 0)
          mask |= G_GUINT64_CONSTANT (1) << m;
      }
  return mask;
}

typedef struct {
  Typical t;
  guint64 count;
} TypeCount;

/* Decreasing popularity; among equals, larger CPU, share, GPU count and
 * model set first, so that the order does not depend on the list's. */
static int
compare_type_counts (gconstpointer a, gconstpointer b)
{
  const TypeCount *x = a, *y = b;

  if (x->count != y->count)
    return x->count > y->count ? -1 : 1;
  if (x->t.cpu_milli != y->t.cpu_milli)
    return x->t.cpu_milli > y->t.cpu_milli ? -1 : 1;
  if (x->t.gpu_milli != y->t.gpu_milli)
    return x->t.gpu_milli > y->t.gpu_milli ? -1 : 1;
  if (x->t.num_gpu != y->t.num_gpu)
    return x->t.num_gpu > y->t.num_gpu ? -1 : 1;
  return (x->t.models < y->t.models) - (x->t.models > y->t.models);
}

/* The typical task types of FGD and the demand types of the tasks. */
static void
build_types (SimFgdPaper *p)
{
  g_autoptr(GHashTable) typical_index = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                                               (GDestroyNotify) g_bytes_unref,
                                                               NULL);
  g_autoptr(GHashTable) demand_index = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                                              (GDestroyNotify) g_bytes_unref,
                                                              NULL);
  g_autoptr(GArray) counts = g_array_new (FALSE, FALSE, sizeof (TypeCount));
  guint64 cum = 0, total = p->n_tasks;
  guint n = 0;

  for (guint i = 0; i < p->n_tasks; i++)
    {
      Task *task = &p->tasks[i];
      guint64 tkey[4] = { task->cpu_milli, task->num_gpu, task->gpu_milli, task->models };
      guint64 dkey[5] = { task->cpu_milli, task->memory_mib, task->num_gpu, task->gpu_milli,
                          task->models };
      g_autoptr(GBytes) tb = g_bytes_new (tkey, sizeof tkey);
      g_autoptr(GBytes) db = g_bytes_new (dkey, sizeof dkey);
      gpointer found;

      if (g_hash_table_lookup_extended (typical_index, tb, NULL, &found))
        g_array_index (counts, TypeCount, GPOINTER_TO_UINT (found)).count++;
      else
        {
          TypeCount tc = { { task->cpu_milli, task->num_gpu, task->gpu_milli, task->models, 0 },
                           1 };
          g_hash_table_insert (typical_index, g_bytes_ref (tb), GUINT_TO_POINTER (counts->len));
          g_array_append_val (counts, tc);
        }
      if (g_hash_table_lookup_extended (demand_index, db, NULL, &found))
        task->type = GPOINTER_TO_UINT (found);
      else
        {
          task->type = p->n_types++;
          g_hash_table_insert (demand_index, g_bytes_ref (db), GUINT_TO_POINTER (task->type));
        }
    }
  g_array_sort (counts, compare_type_counts);
  while (n < counts->len && cum * 100 < TYPICAL_SHARE * total)
    cum += g_array_index (counts, TypeCount, n++).count;
  p->n_typical = n;
  p->typical = g_new (Typical, n);
  for (guint i = 0; i < n; i++)
    {
      const TypeCount *tc = &g_array_index (counts, TypeCount, i);
      p->typical[i] = tc->t;
      p->typical[i].p = (double) tc->count / (double) cum;
    }
}

SimFgdPaper *
sim__fgd_paper_new (const GPtrArray *nodes, const GPtrArray *pods, gboolean ignore_gpu_spec,
                    GError **error)
{
  g_autoptr(SimFgdPaper) p = g_new0 (SimFgdPaper, 1);
  g_autoptr(GPtrArray) model_names = g_ptr_array_new ();
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  g_autofree guint *order = NULL;

  if (nodes->len == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "the node list has no node");
      return NULL;
    }
  p->n_nodes = nodes->len;
  p->nodes = g_new0 (NodeSpec, nodes->len);
  order = g_new (guint, MAX (nodes->len, pods->len));
  for (guint i = 0; i < nodes->len; i++)
    {
      const SimOpenbNode *node = nodes->pdata[i];
      NodeSpec *spec = &p->nodes[i];

      if (node->gpus > MAX_GPUS)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "node %s has %u GPUs: at most %d per node are supported", node->sn,
                       node->gpus, MAX_GPUS);
          return NULL;
        }
      spec->cpu_cap = node->cpu_milli;
      spec->mem_cap = node->memory_mib;
      spec->n_gpus = (guint8) node->gpus;
      if (node->gpus > 0)
        {
          guint m = model_index (model_names, node->model, error);
          if (m == G_MAXUINT)
            return NULL;
          spec->model = (guint8) m;
        }
      else
        p->n_cpu_only++;
      p->n_gpus += node->gpus;
      g_ptr_array_add (names, node->sn);
      order[i] = i;
    }
  if (p->n_gpus == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "the node list has no GPU (%u CPU-only nodes)", p->n_cpu_only);
      return NULL;
    }
  p->capacity_milli = (guint64) p->n_gpus * SIM_GPU_WHOLE;
  g_qsort_with_data (order, (gint) nodes->len, sizeof (guint), compare_names, names);
  for (guint r = 0; r < nodes->len; r++)
    p->nodes[order[r]].name_rank = r;

  if (pods->len == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "the pod list has no pod");
      return NULL;
    }
  g_ptr_array_set_size (names, 0);
  for (guint i = 0; i < pods->len; i++)
    {
      g_ptr_array_add (names, ((const SimOpenbPod *) pods->pdata[i])->name);
      order[i] = i;
    }
  g_qsort_with_data (order, (gint) pods->len, sizeof (guint), compare_names, names);
  p->n_tasks = pods->len;
  p->tasks = g_new0 (Task, pods->len);
  p->task_of_pod = g_new (guint, pods->len);
  for (guint i = 0; i < pods->len; i++)
    {
      const SimOpenbPod *pod = pods->pdata[order[i]];
      Task *t = &p->tasks[i];

      p->task_of_pod[order[i]] = i;
      t->cpu_milli = pod->cpu_milli;
      t->memory_mib = pod->memory_mib;
      if (pod->num_gpu > 0 && pod->gpu_milli > 0)
        {
          t->num_gpu = pod->num_gpu;
          t->gpu_milli = pod->gpu_milli;
          t->models = accepted_models (model_names, pod, ignore_gpu_spec);
          p->n_gpu_pods++;
        }
      else
        t->models = G_MAXUINT64;
    }
  build_types (p);
  return g_steal_pointer (&p);
}

guint sim__fgd_paper_n_nodes (const SimFgdPaper *p) { return p->n_nodes; }
guint sim__fgd_paper_n_cpu_only_nodes (const SimFgdPaper *p) { return p->n_cpu_only; }
guint sim__fgd_paper_n_gpus (const SimFgdPaper *p) { return p->n_gpus; }
guint sim__fgd_paper_n_gpu_pods (const SimFgdPaper *p) { return p->n_gpu_pods; }
guint sim__fgd_paper_n_typical_types (const SimFgdPaper *p) { return p->n_typical; }

static int
policy_of (const char *name)
{
  for (guint i = 0; sim__fgd_paper_policy_names[i] != NULL; i++)
    if (strcmp (name, sim__fgd_paper_policy_names[i]) == 0)
      return (int) i;
  return -1;
}

gboolean
sim__fgd_paper_check_policy (const char *name, GError **error)
{
  if (policy_of (name) >= 0)
    return TRUE;
  {
    g_autofree char *known = g_strjoinv (", ", (char **) sim__fgd_paper_policy_names);
    g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                 "unknown policy \"%s\" for the paper's experiment (known: %s)", name, known);
  }
  return FALSE;
}

/* ------------------------------------------------------------------------- */
/* Node state and the plugins' scores.                                       */

typedef struct {
  guint64 cpu_free;
  guint64 mem_free;
  guint32 left[MAX_GPUS];   /* free thousandths of each GPU */
  guint32 kinds[N_KINDS];   /* GPU tasks on the node, by kind */
  guint32 version;
  double  frag;             /* fragmentation of this state, milli-GPUs */
} Node;

typedef struct {
  guint32 version;          /* of the node when computed, 0: never */
  gint32  score;
  gint32  gpu;              /* FGD's GPU for a shared task */
} FgdMemo;

typedef struct {
  const SimFgdPaper *paper;
  Policy   policy;
  Node    *nodes;
  FgdMemo *memo;            /* n_nodes x n_types, for FGD */
  double   frag_sum;
  SimRng  *pick;            /* the random policy's choices */
  guint32 *rank;            /* tie-breaking order of the nodes, lowest first */
  guint   *cand;            /* feasible nodes of the task at hand */
  gint64  *score;
  gint32  *gpu;
} Run;

static inline gboolean
is_shared (const Task *t)
{
  return t->num_gpu == 1 && t->gpu_milli < SIM_GPU_WHOLE;
}

static inline guint
kind_of (const Task *t)
{
  return is_shared (t) ? 0 : t->num_gpu;
}

static guint32
free_total (const guint32 *left, guint n)
{
  guint32 sum = 0;

  for (guint g = 0; g < n; g++)
    sum += left[g];
  return sum;
}

/* The node's fragmentation in milli-GPUs for a state (CPU free, GPUs). */
static double
fragmentation (const SimFgdPaper *p, const NodeSpec *spec, guint64 cpu_free,
               const guint32 *left)
{
  guint32 total = free_total (left, spec->n_gpus);
  double sum = 0;

  if (total == 0)
    return 0;
  for (guint k = 0; k < p->n_typical; k++)
    {
      const Typical *t = &p->typical[k];
      guint32 unusable = total;

      if (t->num_gpu > 0 && ((t->models >> spec->model) & 1) != 0 && cpu_free >= t->cpu_milli)
        {
          guint fit = 0;
          guint32 small = 0;
          for (guint g = 0; g < spec->n_gpus; g++)
            {
              if (left[g] >= t->gpu_milli)
                fit++;
              else
                small += left[g];
            }
          if (fit >= t->num_gpu)
            unusable = small;
        }
      sum += t->p * (double) unusable;
    }
  return sum;
}

static gboolean
feasible (const Run *run, guint i, const Task *t)
{
  const NodeSpec *spec = &run->paper->nodes[i];
  const Node *n = &run->nodes[i];
  guint fit = 0;

  if (n->cpu_free < t->cpu_milli || n->mem_free < t->memory_mib)
    return FALSE;
  if (t->num_gpu == 0)
    return TRUE;
  if (spec->n_gpus == 0 || ((t->models >> spec->model) & 1) == 0)
    return FALSE;
  for (guint g = 0; g < spec->n_gpus; g++)
    if (n->left[g] >= t->gpu_milli)
      fit++;
  return fit >= t->num_gpu;
}

static gint64
score_dot_product (const Node *n, guint n_gpus, const Task *t)
{
  double node_vec[2] = { (double) n->cpu_free / MAX_SPEC_CPU,
                         (double) free_total (n->left, n_gpus) / MAX_SPEC_GPU };
  double task_vec[2] = { (double) t->cpu_milli / MAX_SPEC_CPU,
                         (double) ((guint64) t->num_gpu * t->gpu_milli) / MAX_SPEC_GPU };
  double dot = 0;

  for (guint k = 0; k < 2; k++)
    dot += node_vec[k] * task_vec[k];
  return (gint64) (MAX_SCORE * (1 - dot / 2));
}

static gint64
score_clustering (const Node *n, guint n_gpus, const Task *t)
{
  gint64 used = MAX_SPEC_GPU - (gint64) free_total (n->left, n_gpus);
  gint64 base = MAX_SCORE / 4 * used / MAX_SPEC_GPU;
  guint kinds = 0;

  if (t->num_gpu == 0)
    return 0;
  for (guint k = 0; k < N_KINDS; k++)
    kinds += n->kinds[k] > 0;
  if (n->kinds[kind_of (t)] > 0)
    return base + (kinds == 1 ? MAX_SCORE * 3 / 4 : MAX_SCORE / 2);
  return base + (kinds == 0 ? MAX_SCORE / 4 : 0);
}

/* GPU indices by increasing free room, equal rooms in index order. */
static void
gpus_by_room (const guint32 *left, guint n, guint *order)
{
  for (guint g = 0; g < n; g++)
    {
      guint k = g;
      while (k > 0 && left[order[k - 1]] > left[g])
        {
          order[k] = order[k - 1];
          k--;
        }
      order[k] = g;
    }
}

static gint64
score_packing (const Node *n, guint n_gpus, const Task *t)
{
  guint order[MAX_GPUS];
  guint fully_free = 0, whole_taken = 0, need = t->num_gpu;
  gint64 free_pct = 0;

  if (t->num_gpu == 0)
    return 0;
  for (guint g = 0; g < n_gpus; g++)
    fully_free += n->left[g] == SIM_GPU_WHOLE;
  if (fully_free == n_gpus)
    return MAX ((gint64) MAX_SCORE / 3 - fully_free, (gint64) fully_free);
  gpus_by_room (n->left, n_gpus, order);
  for (guint k = 0; k < n_gpus && need > 0; k++)
    {
      guint32 room = n->left[order[k]];
      if (t->gpu_milli <= room)
        {
          need--;
          if (room == SIM_GPU_WHOLE)
            whole_taken++;
          free_pct += (gint64) room * 100 / SIM_GPU_WHOLE;
        }
    }
  if (whole_taken > 0)
    return MAX ((gint64) MAX_SCORE / 2 - whole_taken, (gint64) MAX_SCORE / 3);
  return MAX ((gint64) MAX_SCORE - free_pct / 10, (gint64) MAX_SCORE / 2);
}

static gint64
score_best_fit (const Node *n, guint n_gpus, const Task *t)
{
  double free_vec[2] = { (double) n->cpu_free, (double) free_total (n->left, n_gpus) };
  double req_vec[2] = { (double) t->cpu_milli, (double) ((guint64) t->num_gpu * t->gpu_milli) };
  double max_vec[2] = { MAX_SPEC_CPU, MAX_SPEC_GPU };
  double s = 0;

  for (guint k = 0; k < 2; k++)
    s += (free_vec[k] - req_vec[k]) / max_vec[k] * 0.5;
  return (gint64) ((1.0 - s) * MAX_SCORE);
}

static inline gint64
fgd_score_of (double before, double after)
{
  return (gint64) (1.0 / (1.0 + exp (-((before - after) / 1000))) * MAX_SCORE);
}

/* FGD's score of node @i for @t and, for a shared task, the GPU. */
static gint64
score_fgd (Run *run, guint i, const Task *t, gint32 *gpu)
{
  const SimFgdPaper *p = run->paper;
  const NodeSpec *spec = &p->nodes[i];
  Node *n = &run->nodes[i];
  FgdMemo *memo = &run->memo[(gsize) i * p->n_types + t->type];
  guint64 cpu_after = n->cpu_free - t->cpu_milli;
  guint32 left[MAX_GPUS];
  gint64 best = 0;

  if (memo->version == n->version)
    {
      *gpu = memo->gpu;
      return memo->score;
    }
  memcpy (left, n->left, sizeof left);
  *gpu = -1;
  if (is_shared (t))
    {
      for (guint g = 0; g < spec->n_gpus; g++)
        {
          gboolean seen = FALSE;
          gint64 s;
          if (n->left[g] < t->gpu_milli)
            continue;
          /* An earlier GPU with the same room gives the same state. */
          for (guint h = 0; h < g && !seen; h++)
            seen = n->left[h] == n->left[g];
          if (seen)
            continue;
          left[g] -= t->gpu_milli;
          s = fgd_score_of (n->frag, fragmentation (p, spec, cpu_after, left));
          left[g] += t->gpu_milli;
          if (*gpu < 0 || s > best)
            {
              best = s;
              *gpu = (gint32) g;
            }
        }
    }
  else
    {
      guint order[MAX_GPUS];
      guint need = t->num_gpu;
      gpus_by_room (n->left, spec->n_gpus, order);
      for (guint k = 0; k < spec->n_gpus && need > 0; k++)
        if (left[order[k]] >= t->gpu_milli)
          {
            left[order[k]] -= t->gpu_milli;
            need--;
          }
      best = fgd_score_of (n->frag, fragmentation (p, spec, cpu_after, left));
    }
  memo->version = n->version;
  memo->score = (gint32) best;
  memo->gpu = *gpu;
  return best;
}

/* Places @t: returns FALSE if no node can take it; else the node and the
 * GPUs taken (bit g for GPU g) in @node_out and @mask_out. */
static gboolean
place (Run *run, const Task *t, guint *node_out, guint *mask_out)
{
  const SimFgdPaper *p = run->paper;
  guint n_cand = 0, chosen = 0;
  gint64 low = G_MAXINT64, high = G_MININT64;
  gint64 best = G_MININT64;
  const NodeSpec *spec;
  Node *n;
  gint32 gpu = -1;

  for (guint i = 0; i < p->n_nodes; i++)
    {
      const Node *node = &run->nodes[i];
      guint ng = p->nodes[i].n_gpus;
      gint64 s = 0;
      gint32 g = -1;

      if (!feasible (run, i, t))
        continue;
      switch (run->policy)
        {
        case POL_RANDOM:      s = 0; break;
        case POL_DOT_PRODUCT: s = score_dot_product (node, ng, t); break;
        case POL_CLUSTERING:  s = score_clustering (node, ng, t); break;
        case POL_PACKING:     s = score_packing (node, ng, t); break;
        case POL_BEST_FIT:    s = score_best_fit (node, ng, t); break;
        case POL_FGD:         s = score_fgd (run, i, t, &g); break;
        default:              g_assert_not_reached ();
        }
      run->cand[n_cand] = i;
      run->score[n_cand] = s;
      run->gpu[n_cand] = g;
      n_cand++;
      low = MIN (low, s);
      high = MAX (high, s);
    }
  if (n_cand == 0)
    return FALSE;

  if (run->policy == POL_RANDOM)
    {
      guint k = (guint) sim_rng_uniform_int (run->pick, n_cand);
      for (guint c = 0; c < n_cand; c++)
        run->score[c] = c == k ? MAX_SCORE : 0;
    }
  else if (run->policy == POL_BEST_FIT)
    for (guint c = 0; c < n_cand; c++)
      run->score[c] = high == low ? 0 : (run->score[c] - low) * MAX_SCORE / (high - low);

  for (guint c = 0; c < n_cand; c++)
    if (run->score[c] > best
        || (run->score[c] == best
            && run->rank[run->cand[c]] < run->rank[run->cand[chosen]]))
      {
        best = run->score[c];
        chosen = c;
      }
  gpu = run->gpu[chosen];
  chosen = run->cand[chosen];
  *node_out = chosen;
  *mask_out = 0;
  spec = &p->nodes[chosen];
  n = &run->nodes[chosen];

  /* The GPUs inside the node. */
  if (is_shared (t))
    {
      if (run->policy == POL_RANDOM)
        {
          guint seen = 0;
          for (guint g = 0; g < spec->n_gpus; g++)
            if (n->left[g] >= t->gpu_milli && sim_rng_uniform_int (run->pick, ++seen) == 0)
              gpu = (gint32) g;
        }
      else if (run->policy != POL_FGD)
        {
          gpu = -1;
          for (guint g = 0; g < spec->n_gpus; g++)
            if (n->left[g] >= t->gpu_milli && (gpu < 0 || n->left[g] < n->left[gpu]))
              gpu = (gint32) g;
        }
      g_assert (gpu >= 0 && n->left[gpu] >= t->gpu_milli);
      n->left[gpu] -= t->gpu_milli;
      *mask_out = 1u << gpu;
    }
  else if (t->num_gpu > 0)
    {
      guint need = t->num_gpu;
      for (guint g = 0; g < spec->n_gpus && need > 0; g++)
        if (n->left[g] == SIM_GPU_WHOLE)
          {
            n->left[g] = 0;
            *mask_out |= 1u << g;
            need--;
          }
      g_assert (need == 0);
    }
  n->cpu_free -= t->cpu_milli;
  n->mem_free -= t->memory_mib;
  if (t->num_gpu > 0)
    n->kinds[kind_of (t)]++;
  n->version++;
  run->frag_sum -= n->frag;
  n->frag = fragmentation (p, spec, n->cpu_free, n->left);
  run->frag_sum += n->frag;
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* The task sequence of a seed, and the run.                                 */

static inline guint64
demand_of (const Task *t)
{
  return (guint64) t->num_gpu * t->gpu_milli;
}

/* Indices into the name-ordered tasks: the list shuffled, then trimmed or
 * topped up to the target demand. */
static GArray *
build_sequence (const SimFgdPaper *p, guint64 seed, double stop_share)
{
  g_autoptr(SimRng) rng = sim_rng_new (seed, "fgd-paper-sequence");
  GArray *seq = g_array_sized_new (FALSE, FALSE, sizeof (guint32), p->n_tasks);
  double target = stop_share * (double) p->capacity_milli;
  guint64 total = 0;
  guint32 *v;

  g_array_set_size (seq, p->n_tasks);
  v = (guint32 *) (void *) seq->data;
  for (guint i = 0; i < p->n_tasks; i++)
    {
      v[i] = i;
      total += demand_of (&p->tasks[i]);
    }
  for (guint i = p->n_tasks; i > 1; i--)
    {
      guint j = (guint) sim_rng_uniform_int (rng, i);
      guint32 x = v[i - 1];
      v[i - 1] = v[j];
      v[j] = x;
    }
  if ((double) total > target)
    while ((double) total > target && seq->len > 0)
      {
        guint k = (guint) sim_rng_uniform_int (rng, seq->len);
        total -= demand_of (&p->tasks[g_array_index (seq, guint32, k)]);
        g_array_remove_index (seq, k);
      }
  else
    for (;;)
      {
        guint32 k = (guint32) sim_rng_uniform_int (rng, p->n_tasks);
        if ((double) (total + demand_of (&p->tasks[k])) > target)
          break;
        total += demand_of (&p->tasks[k]);
        g_array_append_val (seq, k);
        /* Never ends on a list of CPU-only pods: checked by the caller. */
      }
  return seq;
}

static void
record (const Run *run, SimFgdSample *s, double point, guint64 arrived, guint64 allocated,
        guint64 failed)
{
  double capacity = (double) run->paper->capacity_milli;

  s->arrived_share = point;
  s->demand_share = (double) arrived / capacity;
  s->allocated_share = (double) allocated / capacity;
  s->fragmented_share = run->frag_sum / capacity;
  s->unallocated_gpus = (double) (run->paper->capacity_milli - allocated) / SIM_GPU_WHOLE;
  s->failed_tasks = failed;
}

/* The order ties are broken in.  The study's simulator prefixes every
 * node's name with a distinct random number ("0412-openb-node-0000", a
 * permutation drawn at each seed) and breaks ties by name, so ties go to
 * nodes in an order that is random but fixed for the run; with
 * @list_order, by the plain names (the list's order for openb). */
static void
tie_ranks (Run *run, guint64 seed, gboolean list_order)
{
  const SimFgdPaper *p = run->paper;
  g_autoptr(SimRng) rng = NULL;
  g_autofree guint32 *by_name = g_new (guint32, p->n_nodes);

  run->rank = g_new (guint32, p->n_nodes);
  for (guint i = 0; i < p->n_nodes; i++)
    run->rank[i] = p->nodes[i].name_rank;
  if (list_order)
    return;
  rng = sim_rng_new (seed, "fgd-paper-node-prefix");
  for (guint r = 0; r < p->n_nodes; r++)
    by_name[r] = r;
  for (guint r = p->n_nodes; r > 1; r--)
    {
      guint j = (guint) sim_rng_uniform_int (rng, r);
      guint32 x = by_name[r - 1];
      by_name[r - 1] = by_name[j];
      by_name[j] = x;
    }
  /* The node r-th by name gets prefix by_name[r]. */
  for (guint i = 0; i < p->n_nodes; i++)
    run->rank[i] = by_name[p->nodes[i].name_rank];
}

static void
run_init (Run *run, const SimFgdPaper *p, Policy policy, guint64 seed, gboolean list_order)
{
  run->paper = p;
  run->policy = policy;
  run->nodes = g_new0 (Node, p->n_nodes);
  run->cand = g_new (guint, p->n_nodes);
  run->score = g_new (gint64, p->n_nodes);
  run->gpu = g_new (gint32, p->n_nodes);
  run->pick = sim_rng_new (seed, "fgd-paper-random");
  tie_ranks (run, seed, list_order);
  if (policy == POL_FGD)
    run->memo = g_new0 (FgdMemo, (gsize) p->n_nodes * p->n_types);
  for (guint i = 0; i < p->n_nodes; i++)
    {
      Node *n = &run->nodes[i];
      n->cpu_free = p->nodes[i].cpu_cap;
      n->mem_free = p->nodes[i].mem_cap;
      for (guint g = 0; g < p->nodes[i].n_gpus; g++)
        n->left[g] = SIM_GPU_WHOLE;
      n->version = 1;
      n->frag = fragmentation (p, &p->nodes[i], n->cpu_free, n->left);
      run->frag_sum += n->frag;
    }
}

static void
run_clear (Run *run)
{
  g_free (run->nodes);
  g_free (run->cand);
  g_free (run->score);
  g_free (run->gpu);
  g_free (run->memo);
  g_free (run->rank);
  sim_rng_free (run->pick);
}

gboolean
sim__fgd_paper_run (const SimFgdPaper *p, const char *policy, guint64 seed, double stop_share,
                    gboolean ties_in_list_order, const double *points,
                    const guint64 *thresholds, guint n_points, SimFgdRun *out, GError **error)
{
  Run run = { 0 };
  g_autoptr(GArray) seq = NULL;
  guint64 arrived = 0, allocated = 0, failed = 0;
  guint64 digest = G_GUINT64_CONSTANT (0xcbf29ce484222325);
  guint next = 0;
  int pol = policy_of (policy);

  if (pol < 0)
    return sim__fgd_paper_check_policy (policy, error);
  if (p->n_gpu_pods == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "the pod list has no pod asking for GPUs (%u pods): GPU demand never "
                   "arrives", p->n_tasks);
      return FALSE;
    }
  run_init (&run, p, (Policy) pol, seed, ties_in_list_order);
  out->policy = g_strdup (policy);
  out->seed = seed;
  out->n_samples = n_points;
  out->samples = g_new0 (SimFgdSample, n_points);
  seq = build_sequence (p, seed, stop_share);
  while (next < n_points && arrived >= thresholds[next])
    {
      record (&run, &out->samples[next], points[next], arrived, allocated, failed);
      next++;
    }
  for (guint k = 0; k < seq->len; k++)
    {
      guint32 index = g_array_index (seq, guint32, k);
      const Task *t = &p->tasks[index];
      guint node, mask;

      for (guint b = 0; b < 4; b++)
        digest = (digest ^ ((index >> (8 * b)) & 0xff)) * G_GUINT64_CONSTANT (0x100000001b3);
      arrived += demand_of (t);
      if (place (&run, t, &node, &mask))
        allocated += demand_of (t);
      else
        failed++;
      while (next < n_points && arrived >= thresholds[next])
        {
          record (&run, &out->samples[next], points[next], arrived, allocated, failed);
          next++;
        }
    }
  /* The sequence stops just below the target: the last points take the
   * final state. */
  for (; next < n_points; next++)
    record (&run, &out->samples[next], points[next], arrived, allocated, failed);
  out->tasks_arrived = seq->len;
  out->tasks_failed = failed;
  out->sequence_digest = digest;
  run_clear (&run);
  return TRUE;
}

gboolean
sim__fgd_paper_place_pods (const SimFgdPaper *p, const char *policy, guint64 seed,
                           gboolean ties_in_list_order, const guint *pods, guint n_pods, gint *nodes_out, guint *gpus_out,
                           double *fragmentation_out, GError **error)
{
  Run run = { 0 };
  int pol = policy_of (policy);

  if (pol < 0)
    return sim__fgd_paper_check_policy (policy, error);
  run_init (&run, p, (Policy) pol, seed, ties_in_list_order);
  for (guint k = 0; k < n_pods; k++)
    {
      guint node = 0, mask = 0;
      g_return_val_if_fail (pods[k] < p->n_tasks, FALSE);
      if (place (&run, &p->tasks[p->task_of_pod[pods[k]]], &node, &mask))
        {
          nodes_out[k] = (gint) node;
          gpus_out[k] = mask;
        }
      else
        {
          nodes_out[k] = -1;
          gpus_out[k] = 0;
        }
    }
  if (fragmentation_out != NULL)
    *fragmentation_out = run.frag_sum;
  run_clear (&run);
  return TRUE;
}

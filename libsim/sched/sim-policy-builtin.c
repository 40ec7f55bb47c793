/* sim-policy-builtin.c: the registry of named queue orders and placements,
 * the policy object that combines one of each, and the built-in placements. */
#include "config.h"

#include "sched/sim-policy-private.h"
#include "sim-error.h"
#include "sim-util.h"

#include <string.h>

typedef struct {
  char               *name;
  char               *description;
  SimQueueCompareFunc compare;
  gboolean            skip_blocked;
} QueueOrder;

typedef struct {
  char        *name;
  char        *description;
  SimPlaceFunc place;
} Placement;

static GPtrArray *queue_orders; /* QueueOrder*, never freed: a process-wide table */
static GPtrArray *placements;   /* Placement* */

void
sim_policy_register_queue_order (const char *name, const char *description,
                                 SimQueueCompareFunc compare, gboolean skip_blocked)
{
  QueueOrder *q;

  g_return_if_fail (name != NULL);
  if (queue_orders == NULL)
    queue_orders = g_ptr_array_new ();
  for (guint i = 0; i < queue_orders->len; i++)
    g_return_if_fail (strcmp (((QueueOrder *) queue_orders->pdata[i])->name, name) != 0);
  q = g_new0 (QueueOrder, 1);
  q->name = g_strdup (name);
  q->description = g_strdup (description ? description : "");
  q->compare = compare;
  q->skip_blocked = skip_blocked;
  g_ptr_array_add (queue_orders, q);
}

void
sim_policy_register_placement (const char *name, const char *description, SimPlaceFunc place)
{
  Placement *p;

  g_return_if_fail (name != NULL && place != NULL);
  if (placements == NULL)
    placements = g_ptr_array_new ();
  for (guint i = 0; i < placements->len; i++)
    g_return_if_fail (strcmp (((Placement *) placements->pdata[i])->name, name) != 0);
  p = g_new0 (Placement, 1);
  p->name = g_strdup (name);
  p->description = g_strdup (description ? description : "");
  p->place = place;
  g_ptr_array_add (placements, p);
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static GPtrArray *
list_names (GPtrArray *table)
{
  GPtrArray *names = g_ptr_array_new ();

  sim__policy_register_builtins ();
  for (guint i = 0; table != NULL && i < table->len; i++)
    g_ptr_array_add (names, *(char **) table->pdata[i]);
  g_ptr_array_sort (names, compare_names);
  return names;
}

GPtrArray *
sim_policy_list_queue_orders (void)
{
  sim__policy_register_builtins ();
  return list_names (queue_orders);
}

GPtrArray *
sim_policy_list_placements (void)
{
  sim__policy_register_builtins ();
  return list_names (placements);
}

/* Looks NAME up in TABLE (entries start with their name); on failure sets
 * an error listing the known names and the closest one. */
static gpointer
lookup (GPtrArray *table, const char *what, const char *name, GError **error)
{
  g_autoptr(GPtrArray) names = list_names (table);
  g_autofree char *known = NULL;
  const char *closest;

  for (guint i = 0; i < table->len; i++)
    if (g_ascii_strcasecmp (*(char **) table->pdata[i], name) == 0)
      return table->pdata[i];
  g_ptr_array_add (names, NULL);
  known = g_strjoinv (", ", (char **) names->pdata);
  closest = sim__closest (name, (const char * const *) names->pdata, names->len - 1);
  if (closest != NULL)
    g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                 "unknown %s \"%s\": did you mean \"%s\"? (known: %s)", what, name, closest, known);
  else
    g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND, "unknown %s \"%s\" (known: %s)", what,
                 name, known);
  return NULL;
}

/* ------------------------------------------------------------------------- */
/* The policy object: one queue order and one placement.                     */

#define SIM_TYPE_BUILTIN_POLICY (sim_builtin_policy_get_type ())
G_DECLARE_FINAL_TYPE (SimBuiltinPolicy, sim_builtin_policy, SIM, BUILTIN_POLICY, GObject)

struct _SimBuiltinPolicy {
  GObject           parent_instance;
  const QueueOrder *order;
  const Placement  *placement;
  char             *name;
};

static void sim_builtin_policy_iface_init (SimPolicyInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SimBuiltinPolicy, sim_builtin_policy, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (SIM_TYPE_POLICY,
                                                      sim_builtin_policy_iface_init))

static void
sim_builtin_policy_finalize (GObject *object)
{
  SimBuiltinPolicy *self = SIM_BUILTIN_POLICY (object);

  g_free (self->name);
  G_OBJECT_CLASS (sim_builtin_policy_parent_class)->finalize (object);
}

static void
sim_builtin_policy_class_init (SimBuiltinPolicyClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sim_builtin_policy_finalize;
}

static void
sim_builtin_policy_init (SimBuiltinPolicy *self)
{
}

static const char *
builtin_get_name (SimPolicy *policy)
{
  return SIM_BUILTIN_POLICY (policy)->name;
}

static int
builtin_compare (SimPolicy *policy, const SimJob *a, const SimJob *b)
{
  SimBuiltinPolicy *self = SIM_BUILTIN_POLICY (policy);

  return self->order->compare ? self->order->compare (a, b) : 0;
}

static gboolean
builtin_place (SimPolicy *policy, const SimCluster *cluster, const SimJob *job,
               SimPlacement *placement)
{
  return SIM_BUILTIN_POLICY (policy)->placement->place (cluster, job, placement);
}

static void
builtin_schedule (SimPolicy *policy, SimSchedContext *context)
{
  sim_policy_schedule_in_order (policy, context, SIM_BUILTIN_POLICY (policy)->order->skip_blocked);
}

static void
sim_builtin_policy_iface_init (SimPolicyInterface *iface)
{
  iface->abi_version = SIM_POLICY_ABI_VERSION;
  iface->get_name = builtin_get_name;
  iface->compare = builtin_compare;
  iface->place = builtin_place;
  iface->schedule = builtin_schedule;
}

SimPolicy *
sim_policy_new_builtin (const char *queue, const char *placement, GError **error)
{
  const QueueOrder *q;
  const Placement *p;
  SimBuiltinPolicy *self;

  g_return_val_if_fail (queue != NULL && placement != NULL, NULL);
  sim__policy_register_builtins ();
  q = lookup (queue_orders, "queue order", queue, error);
  if (q == NULL)
    return NULL;
  p = lookup (placements, "placement", placement, error);
  if (p == NULL)
    return NULL;
  self = g_object_new (SIM_TYPE_BUILTIN_POLICY, NULL);
  self->order = q;
  self->placement = p;
  self->name = g_strdup_printf ("%s/%s", q->name, p->name);
  return SIM_POLICY (self);
}

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
 * that still fits (best-fit).  Each pass costs O(nodes) at worst; a job that
 * cannot fit anywhere is refused in O(GPUs per node) from the cluster's
 * histogram of free GPUs. */

static guint
take_free_gpus (const SimCluster *cluster, const SimNode *node, guint want, guint32 *out)
{
  guint got = 0;

  for (guint g = 0; g < node->n_gpus && got < want; g++)
    if (sim_cluster_get_gpu (cluster, node->first_gpu + g)->n_tenants == 0)
      out[got++] = node->first_gpu + g;
  return got;
}

/* The node to host `want` GPUs, skipping nodes in `skip` (may be NULL). */
static const SimNode *
choose_node (const SimCluster *cluster, guint want, gboolean best, const guint8 *skip)
{
  guint n_nodes = sim_cluster_get_n_nodes (cluster);
  const SimNode *chosen = NULL;

  for (guint i = 0; i < n_nodes; i++)
    {
      const SimNode *node = sim_cluster_get_node (cluster, i);
      if (node->free_gpus < want || (skip != NULL && skip[i]))
        continue;
      if (!best)
        return node;
      if (chosen == NULL || node->free_gpus < chosen->free_gpus)
        {
          chosen = node;
          if (node->free_gpus == want)
            break;
        }
    }
  return chosen;
}

static gboolean
place_fraction (const SimCluster *cluster, const SimJob *job, SimPlacement *placement,
                gboolean best)
{
  guint n = sim_cluster_get_n_gpus (cluster);
  guint milli = job->spec.gpu_milli;
  gint64 chosen = -1;
  guint chosen_room = G_MAXUINT;

  if (job->spec.gpus != 1)
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      const SimGpu *g = sim_cluster_get_gpu (cluster, i);
      guint room = SIM_GPU_WHOLE - g->used_milli;
      if (room < milli || g->mig_used != 0)
        continue;
      if (!best)
        {
          chosen = i;
          break;
        }
      if (room < chosen_room)
        {
          chosen = i;
          chosen_room = room;
          if (room == milli)
            break;
        }
    }
  if (chosen < 0)
    return FALSE;
  placement->gpus[0] = (guint32) chosen;
  placement->n_gpus = 1;
  placement->milli = milli;
  return TRUE;
}

static gboolean
place_whole (const SimCluster *cluster, const SimJob *job, SimPlacement *placement, gboolean best)
{
  guint want = job->spec.gpus;
  guint n_nodes = sim_cluster_get_n_nodes (cluster);
  g_autofree guint8 *taken = NULL;
  guint got = 0;
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
      node = choose_node (cluster, want, best, NULL);
      if (node == NULL)
        return FALSE;
      take_free_gpus (cluster, node, want, placement->gpus);
      return TRUE;
    }

  /* Spans nodes: whole free nodes first, in order, then the remainder. */
  taken = g_new0 (guint8, n_nodes);
  for (guint i = 0; i < n_nodes && want - got > 0; i++)
    {
      node = sim_cluster_get_node (cluster, i);
      if (node->free_gpus == node->n_gpus && node->n_gpus <= want - got)
        {
          got += take_free_gpus (cluster, node, node->n_gpus, placement->gpus + got);
          taken[i] = 1;
        }
    }
  if (got < want)
    {
      node = choose_node (cluster, want - got, best, taken);
      if (node == NULL)
        return FALSE;
      got += take_free_gpus (cluster, node, want - got, placement->gpus + got);
    }
  return got == want;
}

gboolean
sim_place_first_fit (const SimCluster *cluster, const SimJob *job, SimPlacement *placement)
{
  g_return_val_if_fail (cluster != NULL && job != NULL && placement != NULL, FALSE);
  return place_whole (cluster, job, placement, FALSE);
}

gboolean
sim_place_best_fit (const SimCluster *cluster, const SimJob *job, SimPlacement *placement)
{
  g_return_val_if_fail (cluster != NULL && job != NULL && placement != NULL, FALSE);
  return place_whole (cluster, job, placement, TRUE);
}

void
sim__policy_register_builtins (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done))
    {
      sim_policy_register_queue_order ("fifo",
                                       "first come, first served; the head blocks the queue",
                                       NULL, FALSE);
      sim_policy_register_placement ("first-fit", "the lowest-numbered node with room",
                                     sim_place_first_fit);
      sim_policy_register_placement ("best-fit",
                                     "the node with room and the fewest free GPUs",
                                     sim_place_best_fit);
      g_once_init_leave (&done, 1);
    }
}

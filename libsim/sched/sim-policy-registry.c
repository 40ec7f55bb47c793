/* sim-policy-registry.c: the one place that lists the queue orders and
 * placements defined in their own files, so that each is registered by
 * name exactly once, at first use (as GStreamer registers elements from
 * one plugin-init function); the names listed and described; and the
 * policy object that combines one queue order and one placement found by
 * name.  It is the top of sched/: the files it lists call none of it. */
#include "config.h"

#include "sched/sim-policy-private.h"
#include "sched/sim-queue-orders.h"
#include "sched/sim-placements.h"
#include "core/sim-error.h"
#include "core/sim-util.h"

#include <string.h>

void
sim__policy_register_builtins (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done))
    {
      sim__register_builtin_policies ();
      sim__register_queue_orders ();
      sim__register_placements ();
      sim__register_topology_placement ();
      sim__register_consolidate_placement ();
      g_once_init_leave (&done, 1);
    }
}

GPtrArray *
sim_policy_list_queue_orders (void)
{
  sim__policy_register_builtins ();
  return sim__policy_table_list_queue_orders ();
}

GPtrArray *
sim_policy_list_placements (void)
{
  sim__policy_register_builtins ();
  return sim__policy_table_list_placements ();
}

const char *
sim_policy_describe_builtin (const char *name)
{
  g_return_val_if_fail (name != NULL, NULL);
  sim__policy_register_builtins ();
  return sim__policy_table_describe (name);
}

gboolean
sim__policy_reads_key (const char *queue, const char *placement, const char *key)
{
  sim__policy_register_builtins ();
  return sim__policy_table_reads_key (queue, placement, key);
}

GPtrArray *
sim__policy_param_readers (void)
{
  sim__policy_register_builtins ();
  return sim__policy_table_param_readers ();
}

/* ------------------------------------------------------------------------- */
/* The policy object: one queue order and one placement.                     */

#define SIM_TYPE_BUILTIN_POLICY (sim_builtin_policy_get_type ())
G_DECLARE_FINAL_TYPE (SimBuiltinPolicy, sim_builtin_policy, SIM, BUILTIN_POLICY, GObject)

struct _SimBuiltinPolicy {
  GObject                  parent_instance;
  const SimQueueOrderInfo *order;
  const SimPlacementInfo  *placement;
  gpointer                 order_state;
  gpointer                 placement_state;
  char                    *name;
};

static void sim_builtin_policy_iface_init (SimPolicyInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SimBuiltinPolicy, sim_builtin_policy, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (SIM_TYPE_POLICY,
                                                      sim_builtin_policy_iface_init))

static void
sim_builtin_policy_finalize (GObject *object)
{
  SimBuiltinPolicy *self = SIM_BUILTIN_POLICY (object);

  if (self->order != NULL && self->order->destroy != NULL && self->order_state != NULL)
    self->order->destroy (self->order_state);
  if (self->placement != NULL && self->placement->destroy != NULL && self->placement_state != NULL)
    self->placement->destroy (self->placement_state);
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

  return self->order->compare ? self->order->compare (self->order_state, a, b) : 0;
}

static gboolean
builtin_place (SimPolicy *policy, const SimCluster *cluster, const SimJob *job,
               SimPlacement *placement)
{
  SimBuiltinPolicy *self = SIM_BUILTIN_POLICY (policy);

  return self->placement->place (self->placement_state, cluster, job, placement);
}

static void
builtin_schedule (SimPolicy *policy, SimSchedContext *context)
{
  SimBuiltinPolicy *self = SIM_BUILTIN_POLICY (policy);

  if (self->order->schedule != NULL)
    self->order->schedule (self->order_state, policy, context);
  else
    sim_policy_schedule_in_order (policy, context,
                                  (self->order->flags & SIM_POLICY_SKIP_BLOCKED) != 0);
}

static guint
builtin_get_flags (SimPolicy *policy)
{
  return SIM_BUILTIN_POLICY (policy)->order->flags;
}

static void
sim_builtin_policy_iface_init (SimPolicyInterface *iface)
{
  iface->abi_version = SIM_POLICY_ABI_VERSION;
  iface->get_name = builtin_get_name;
  iface->compare = builtin_compare;
  iface->place = builtin_place;
  iface->schedule = builtin_schedule;
  iface->get_flags = builtin_get_flags;
}

/* Refuses [policy] keys that neither part reads. */
static gboolean
check_keys (const SimQueueOrderInfo *q, const SimPlacementInfo *p, SimPolicyParams *params,
            GError **error)
{
  g_autoptr(GPtrArray) keys = NULL;
  g_autoptr(GPtrArray) known = g_ptr_array_new ();

  if (params == NULL)
    return TRUE;
  for (guint i = 0; q->keys != NULL && q->keys[i] != NULL; i++)
    g_ptr_array_add (known, (gpointer) q->keys[i]);
  for (guint i = 0; p->keys != NULL && p->keys[i] != NULL; i++)
    g_ptr_array_add (known, (gpointer) p->keys[i]);
  keys = sim_policy_params_get_keys (params);
  for (guint i = 0; i < keys->len; i++)
    {
      gboolean ok = FALSE;
      for (guint k = 0; k < known->len; k++)
        ok |= strcmp (known->pdata[k], keys->pdata[i]) == 0;
      if (!ok)
        {
          const char *close = sim__closest (keys->pdata[i], (const char * const *) known->pdata,
                                            known->len);
          g_autofree char *list = NULL;
          g_ptr_array_add (known, NULL);
          list = g_strjoinv (", ", (char **) known->pdata);
          g_set_error (error, SIM_ERROR, SIM_ERROR_UNKNOWN_KEY,
                       "%s/%s does not read this key%s (it reads: %s)", q->name, p->name,
                       sim__did_you_mean (close),
                       *list ? list : "no keys");
          /* Remember it, so the caller can say where it is. */
          sim__policy_params_fail (params, keys->pdata[i]);
          return FALSE;
        }
    }
  return TRUE;
}

SimPolicy *
sim_policy_new (const char *queue, const char *placement, const SimPolicySetup *setup,
                GError **error)
{
  const SimQueueOrderInfo *q;
  const SimPlacementInfo *p;
  g_autoptr(SimBuiltinPolicy) self = NULL;
  SimPolicySetup empty = { 0 };

  g_return_val_if_fail (queue != NULL && placement != NULL, NULL);
  sim__policy_register_builtins ();
  if (setup == NULL)
    setup = &empty;
  q = sim__policy_table_find_queue_order (queue, error);
  if (q == NULL)
    return NULL;
  p = sim__policy_table_find_placement (placement, error);
  if (p == NULL)
    return NULL;
  if (!check_keys (q, p, setup->params, error))
    return NULL;
  self = g_object_new (SIM_TYPE_BUILTIN_POLICY, NULL);
  self->order = q;
  self->placement = p;
  self->name = g_strdup_printf ("%s/%s", q->name, p->name);
  if (q->create != NULL && (self->order_state = q->create (setup, error)) == NULL)
    return NULL;
  if (p->create != NULL && (self->placement_state = p->create (setup, error)) == NULL)
    return NULL;
  return SIM_POLICY (g_steal_pointer (&self));
}

SimPolicy *
sim_policy_new_builtin (const char *queue, const char *placement, GError **error)
{
  return sim_policy_new (queue, placement, NULL, error);
}

/* sim-policy.c: the policy interface, its invokers and the decision point. */
#include "config.h"

#include "sched/sim-policy-private.h"
#include "core/sim-error.h"
#include "cluster/sim-cluster-private.h"

G_DEFINE_INTERFACE (SimPolicy, sim_policy, G_TYPE_OBJECT)

/* A context is part of the simulation that makes it: a binding's copy is
 * the same context, with a reference to the simulation. */
static SimSchedContext *
context_copy (SimSchedContext *context)
{
  if (context->keep != NULL)
    g_object_ref (context->keep);
  return context;
}

static void
context_free (SimSchedContext *context)
{
  if (context->keep != NULL)
    g_object_unref (context->keep);
}

G_DEFINE_BOXED_TYPE (SimSchedContext, sim_sched_context, context_copy, context_free)

/* Whether CONTEXT's decision is still being made; sets ERROR if not. */
static gboolean
check_open (SimSchedContext *context, const char *what, GError **error)
{
  if (!context->closed)
    return TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
               "the decision at %.3f s is over: a policy can %s only during the call it is "
               "given the context in", sim_time_to_seconds (context->now), what);
  return FALSE;
}

static void
sim_policy_default_init (SimPolicyInterface *iface)
{
}

const char *
sim__policy_name (SimPolicy *policy)
{
  const char *name = sim_policy_get_name (policy);

  return name != NULL ? name : G_OBJECT_TYPE_NAME (policy);
}

/* A policy's failure is kept on the object itself (the interface has no
 * instance data of its own), until a simulation takes it. */
static GQuark
failure_quark (void)
{
  static GQuark quark;

  if (G_UNLIKELY (quark == 0))
    quark = g_quark_from_static_string ("sim-policy-failure");
  return quark;
}

/* Failures held by policies, in the whole process: the kernel asks after
 * every call into its policy (each comparison, each job of a pass), and
 * with none held anywhere the answer costs one load, not a look-up in the
 * object's data. */
static gint failures_held;

static void
failure_free (gpointer failure)
{
  g_atomic_int_dec_and_test (&failures_held);
  g_error_free (failure);
}

gboolean
sim_policy_fail (SimPolicy *self, const GError *error)
{
  g_return_val_if_fail (SIM_IS_POLICY (self), FALSE);
  g_return_val_if_fail (error != NULL, FALSE);
  if (sim__policy_has_failure (self))
    return FALSE;
  g_atomic_int_inc (&failures_held);
  g_object_set_qdata_full (G_OBJECT (self), failure_quark (), g_error_copy (error),
                           failure_free);
  return TRUE;
}

gboolean
sim__policy_has_failure (SimPolicy *policy)
{
  return g_atomic_int_get (&failures_held) > 0
         && g_object_get_qdata (G_OBJECT (policy), failure_quark ()) != NULL;
}

GError *
sim__policy_take_failure (SimPolicy *policy)
{
  GError *failure = g_object_steal_qdata (G_OBJECT (policy), failure_quark ());

  if (failure != NULL)
    g_atomic_int_dec_and_test (&failures_held);
  return failure;
}

const char *
sim_policy_get_name (SimPolicy *self)
{
  SimPolicyInterface *iface;

  g_return_val_if_fail (SIM_IS_POLICY (self), NULL);
  iface = SIM_POLICY_GET_IFACE (self);
  return iface->get_name ? iface->get_name (self) : G_OBJECT_TYPE_NAME (self);
}

int
sim_policy_compare (SimPolicy *self, const SimJob *a, const SimJob *b)
{
  SimPolicyInterface *iface;

  g_return_val_if_fail (SIM_IS_POLICY (self), 0);
  g_return_val_if_fail (a != NULL && b != NULL, 0);
  iface = SIM_POLICY_GET_IFACE (self);
  if (iface->compare != NULL)
    {
      int c = iface->compare (self, a, b);
      if (c != 0)
        return c;
    }
  return a->queue_seq < b->queue_seq ? -1 : a->queue_seq > b->queue_seq;
}

/* A moldable job: the largest count from its gpus_min up to its gpus that
 * fits now (never more than the free GPUs), placed by the policy's own
 * rule.  While the policy places it, the job asks for that count (its
 * spec's gpus), so every placement works unchanged; the request is
 * restored before returning, and the placement's n_gpus says what was
 * chosen.  PLACEMENT's buffer has room for the full request.  At most
 * gpus - gpus_min + 1 placements per call. */
static gboolean
place_moldable (SimPolicy *self, SimPolicyInterface *iface, const SimCluster *cluster,
                const SimJob *job, SimPlacement *placement)
{
  SimJob *asking = (SimJob *) job;
  guint32 request = job->spec.gpus;
  guint n = MIN (request, sim_cluster_get_n_free_gpus (cluster));
  gboolean ok = FALSE;

  for (; !ok && n >= job->spec.gpus_min && n > 0; n--)
    {
      asking->spec.gpus = n;
      placement->n_gpus = n;
      ok = iface->place (self, cluster, job, placement);
    }
  asking->spec.gpus = request;
  if (!ok)
    placement->n_gpus = request;
  return ok;
}

/* The policy's own rule, moldable or not. */
static gboolean
place_rule (SimPolicy *self, SimPolicyInterface *iface, const SimCluster *cluster,
            const SimJob *job, SimPlacement *placement)
{
  if (job->spec.gpus_min > 0 && job->spec.gpus_min < job->spec.gpus &&
      sim_job_takes_whole_gpus (job) && placement->n_gpus == job->spec.gpus)
    return place_moldable (self, iface, cluster, job, placement);
  return iface->place (self, cluster, job, placement);
}

/* A cluster in partitions (sim_cluster_set_node_partition()): the job is
 * placed inside one, trying them in order, by the policy's own rule with
 * the other partitions' nodes taken out of service while it chooses; the
 * cluster is left exactly as it was (availability is undone node by node,
 * and nothing is allocated while the rule runs).  Time: O(nodes of the
 * other partitions) more per partition tried, over the cluster's list of
 * them (a cloud pool beside a large owned cluster costs its own nodes
 * when the owned partition is tried).  The nodes masked are listed in an
 * array kept per thread (simulations may run on several), so that a
 * decision allocates nothing once it is as long as the largest cluster's
 * node count. */
static void
masked_free (gpointer p)
{
  g_array_unref (p);
}

static GPrivate masked_nodes = G_PRIVATE_INIT (masked_free);

static gboolean
place_in_partitions (SimPolicy *self, SimPolicyInterface *iface, const SimCluster *cluster,
                     const SimJob *job, SimPlacement *placement)
{
  SimCluster *c = (SimCluster *) cluster;
  guint n_nodes = sim_cluster_get_n_nodes (cluster);
  guint n_parts = sim_cluster_get_n_partitions (cluster);
  guint32 request = placement->n_gpus;
  GArray *list = g_private_get (&masked_nodes);
  guint *masked;
  gboolean ok = FALSE;

  if (list == NULL)
    {
      list = g_array_new (FALSE, FALSE, sizeof (guint));
      g_private_set (&masked_nodes, list);
    }
  if (list->len < n_nodes)
    g_array_set_size (list, n_nodes);
  masked = (guint *) (gpointer) list->data;

  for (guint p = 0; p < n_parts && !ok; p++)
    {
      guint n_masked = 0, n_outside = 0;
      const guint32 *outside = sim__cluster_get_nodes_outside (c, p, &n_outside);
      for (guint k = 0; k < n_outside; k++)
        if (sim_cluster_get_node (cluster, outside[k])->available &&
            sim_cluster_set_node_available (c, outside[k], FALSE))
          masked[n_masked++] = outside[k];
      placement->n_gpus = request;
      ok = place_rule (self, iface, cluster, job, placement);
      while (n_masked > 0)
        sim_cluster_set_node_available (c, masked[--n_masked], TRUE);
    }
  return ok;
}

/* What a placement's GPUs hold before the policy's place() writes them: no
 * GPU has this index, so a place() that returns TRUE without filling the
 * placement is told apart from one that chose GPUs (the caller's buffer
 * would otherwise hold whatever was there before, a stack's leftovers,
 * which may well be GPUs that exist). */
#define UNCHOSEN G_MAXUINT32

static void
mark_unchosen (SimPlacement *placement)
{
  for (guint i = 0; i < placement->n_gpus; i++)
    placement->gpus[i] = UNCHOSEN;
}

gboolean
sim_policy_place (SimPolicy *self, const SimCluster *cluster, const SimJob *job,
                  SimPlacement *placement)
{
  SimPolicyInterface *iface;

  g_return_val_if_fail (SIM_IS_POLICY (self), FALSE);
  g_return_val_if_fail (cluster != NULL && job != NULL && placement != NULL, FALSE);
  /* A placement with no GPU array (a new Sim.Placement() in Python) has
   * nowhere to write: refused, where it used to crash the caller. */
  g_return_val_if_fail (placement->gpus != NULL, FALSE);
  iface = SIM_POLICY_GET_IFACE (self);
  g_return_val_if_fail (iface->place != NULL, FALSE);
  /* MIG jobs go where the library's first fit finds an instance of their
   * profile, unless the policy places them itself (SIM_POLICY_PLACES_MIG). */
  if (job->spec.mig_profile != NULL &&
      !(iface->get_flags != NULL && (iface->get_flags (self) & SIM_POLICY_PLACES_MIG)))
    return sim_place_mig (cluster, job, placement);
  if (job->spec.mig_profile != NULL)
    {
      placement->n_gpus = 1;
      placement->milli = job->spec.gpu_milli;
      mark_unchosen (placement);
      return iface->place (self, cluster, job, placement);
    }
  placement->mig_start = -1;
  mark_unchosen (placement);
  /* A job on one GPU cannot span partitions: no need to mask. */
  if (sim_cluster_get_n_partitions (cluster) > 1 && job->spec.gpus > 1)
    return place_in_partitions (self, iface, cluster, job, placement);
  return place_rule (self, iface, cluster, job, placement);
}

guint
sim_policy_get_flags (SimPolicy *self)
{
  SimPolicyInterface *iface;

  g_return_val_if_fail (SIM_IS_POLICY (self), 0);
  iface = SIM_POLICY_GET_IFACE (self);
  return iface->get_flags ? iface->get_flags (self) : 0;
}

void
sim_policy_schedule (SimPolicy *self, SimSchedContext *context)
{
  SimPolicyInterface *iface;

  g_return_if_fail (SIM_IS_POLICY (self));
  g_return_if_fail (context != NULL);
  iface = SIM_POLICY_GET_IFACE (self);
  /* A policy without a pass of its own (a C plugin or a Python subclass
   * that only orders and places) gets the usual pass, greedy or blocking as
   * its flags say: the flags are the documented way to ask for greedy, and
   * they mean the same for every policy, built in or not. */
  if (iface->schedule != NULL)
    iface->schedule (self, context);
  else
    sim_policy_schedule_in_order (self, context,
                                  (sim_policy_get_flags (self) & SIM_POLICY_SKIP_BLOCKED) != 0);
}

void
sim_policy_schedule_in_order (SimPolicy *self, SimSchedContext *context, gboolean skip_blocked)
{
  guint n = 0;
  SimJob * const *queue;
  guint32 stack_gpus[64];

  g_return_if_fail (SIM_IS_POLICY (self));
  g_return_if_fail (context != NULL);

  queue = sim_sched_context_get_queue (context, &n);
  /* A placement that failed (sim_policy_fail()) ends the pass: the
   * simulation stops the run with its error when the pass returns. */
  for (guint i = 0; i < n && context->error == NULL && !sim__policy_has_failure (self); i++)
    {
      SimJob *job = queue[i];
      g_autofree guint32 *heap_gpus = NULL;
      SimPlacement placement = { 0 };

      if (job->state != SIM_JOB_QUEUED)
        continue;
      if (sim_job_takes_whole_gpus (job) && sim_cluster_get_n_free_gpus (context->cluster) == 0)
        {
          if (!skip_blocked)
            break;
          continue;
        }
      if (job->spec.gpus <= G_N_ELEMENTS (stack_gpus))
        placement.gpus = stack_gpus;
      else
        placement.gpus = heap_gpus = g_new (guint32, job->spec.gpus);
      placement.n_gpus = job->spec.gpus;
      placement.milli = job->spec.gpu_milli;
      placement.mig_start = -1;
      if (sim_policy_place (self, context->cluster, job, &placement))
        {
          GError *error = NULL;
          if (!sim_sched_context_start (context, job, &placement, &error))
            {
              if (g_error_matches (error, SIM_ERROR, SIM_ERROR_HELD))
                {
                  /* Held back for now: as if it did not fit. */
                  g_error_free (error);
                  if (!skip_blocked)
                    break;
                  continue;
                }
              /* A placement the cluster refuses is a bug in the policy:
               * keep the error for the simulation to report. */
              g_prefix_error (&error, "policy %s: ", sim_policy_get_name (self));
              context->error = error;
            }
        }
      else if (!skip_blocked)
        break;
    }
}

SimTime
sim_sched_context_get_now (SimSchedContext *context)
{
  g_return_val_if_fail (context != NULL, 0);
  return context->now;
}

const SimCluster *
sim_sched_context_get_cluster (SimSchedContext *context)
{
  g_return_val_if_fail (context != NULL, NULL);
  return context->cluster;
}

SimJob * const *
sim_sched_context_get_queue (SimSchedContext *context, guint *n)
{
  g_return_val_if_fail (context != NULL && n != NULL, NULL);
  *n = context->queue->len;
  return (SimJob * const *) context->queue->pdata;
}

gboolean
sim_sched_context_start (SimSchedContext *context, SimJob *job, const SimPlacement *placement,
                         GError **error)
{
  g_return_val_if_fail (context != NULL && job != NULL && placement != NULL, FALSE);
  if (!check_open (context, "start a job", error))
    return FALSE;
  if (job->state != SIM_JOB_QUEUED)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                   "job %" G_GUINT64_FORMAT " is not waiting: it cannot be started",
                   job->spec.id);
      return FALSE;
    }
  if ((placement->n_gpus != job->spec.gpus &&
       (placement->n_gpus < sim_job_get_min_gpus (job) || placement->n_gpus > job->spec.gpus)) ||
      placement->milli != job->spec.gpu_milli)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                   "job %" G_GUINT64_FORMAT " asks for %u x %u/1000 GPUs; the placement "
                   "gives %u x %u/1000",
                   job->spec.id, job->spec.gpus, job->spec.gpu_milli, placement->n_gpus,
                   placement->milli);
      return FALSE;
    }
  if (placement->gpus == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                   "job %" G_GUINT64_FORMAT ": the placement has no GPUs, only a count: "
                   "expected the placement a policy's place() filled", job->spec.id);
      return FALSE;
    }
  for (guint i = 0; i < placement->n_gpus; i++)
    if (placement->gpus[i] == UNCHOSEN)
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                     "job %" G_GUINT64_FORMAT ": the placement's GPU %u of %u was never "
                     "chosen: a place() that returns TRUE must fill the placement it is "
                     "given (sim_placement_set_gpus(), or a placement such as "
                     "sim_place_first_fit())", job->spec.id, i + 1, placement->n_gpus);
        return FALSE;
      }
  context->held = FALSE;
  if (context->admit != NULL && !context->admit (context->admit_data, job, placement, error))
    {
      context->held = TRUE;
      context->n_held++;
      return FALSE;
    }
  if (!context->start (context->owner, job, placement, error))
    return FALSE;
  context->n_started++;
  return TRUE;
}

SimJob * const *
sim_sched_context_get_running (SimSchedContext *context, guint *n)
{
  g_return_val_if_fail (context != NULL && n != NULL, NULL);
  if (context->closed)
    {
      *n = 0;
      return NULL;
    }
  if (context->running == NULL)
    {
      /* Built on demand: most policies never look at running jobs, and
       * bringing their progress up to date costs O(running jobs). */
      context->running = g_ptr_array_new ();
      context->fill_running (context->owner, context->running);
    }
  *n = context->running->len;
  return (SimJob * const *) context->running->pdata;
}

gboolean
sim_sched_context_preempt (SimSchedContext *context, SimJob *job, SimTime overhead,
                           GError **error)
{
  g_return_val_if_fail (context != NULL && job != NULL, FALSE);
  if (!check_open (context, "preempt a job", error))
    return FALSE;
  if (job->state != SIM_JOB_RUNNING)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                   "job %" G_GUINT64_FORMAT " is not running: it cannot be preempted",
                   job->spec.id);
      return FALSE;
    }
  if (overhead < 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                   "preemption overhead of job %" G_GUINT64_FORMAT " is negative", job->spec.id);
      return FALSE;
    }
  if (!context->preempt (context->owner, job, overhead, error))
    return FALSE;
  context->n_preempted++;
  return TRUE;
}

void
sim_sched_context_wake_at (SimSchedContext *context, SimTime time)
{
  g_return_if_fail (context != NULL);
  /* A wake-up asked for after the decision would come from no decision. */
  g_return_if_fail (!context->closed);
  if (time < context->now)
    {
      /* The signature has no GError (plugins call it as it is): the pass
       * keeps the error, and the simulation stops the run with it. */
      if (context->error != NULL)
        return;
      context->error = g_error_new (SIM_ERROR, SIM_ERROR_STATE,
                                    "sim_sched_context_wake_at() asked for a decision at "
                                    "%.9f s, before the decision's time, %.9f s: expected a "
                                    "time at or after it",
                                    sim_time_to_seconds (time),
                                    sim_time_to_seconds (context->now));
      if (context->policy != NULL)
        g_prefix_error (&context->error, "policy %s: ", sim__policy_name (context->policy));
      return;
    }
  context->wake (context->owner, time);
}

/* sim-policy.h: scheduling policies.
 *
 * A policy decides only at decision points (an arrival, a completion, or a
 * timer it asked for).  Like Kubernetes' scheduler it is split in two: a
 * queue order (which waiting job to consider first) and a placement (which
 * GPUs a job gets).  #SimPolicy is a GObject interface whose vtable is
 * public, so a policy can be written in C, loaded from a plugin, or written
 * in another language through introspection.  Every vfunc has a public
 * invoker of the same name.
 *
 * A policy does not start jobs itself: it is handed a #SimSchedContext, a
 * request object through which it looks at the queue and the cluster and
 * records its decisions with sim_sched_context_start().  No ownership
 * crosses the boundary: jobs, the cluster and the context are
 * (transfer none) and valid only during the call.
 *
 * Built-in queue orders and placements are registered by name from one
 * function at start-up (see sim_policy_new_builtin()).
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib-object.h>
#include "cluster/sim-cluster.h"
#include "workload/sim-job.h"

G_BEGIN_DECLS

/**
 * SimPlacement:
 * @gpus: (array length=n_gpus): chosen GPU indices
 * @n_gpus: their number (the job's GPU count)
 * @milli: thousandths of each GPU (1000 for whole GPUs)
 *
 * Where a job runs.  Filled by a placement; @gpus has room for the job's
 * GPU count.
 */
typedef struct {
  guint32 *gpus;
  guint32  n_gpus;
  guint32  milli;
} SimPlacement;

typedef struct _SimSchedContext SimSchedContext;

#define SIM_TYPE_POLICY (sim_policy_get_type ())
G_DECLARE_INTERFACE (SimPolicy, sim_policy, SIM, POLICY, GObject)

/** SIM_POLICY_ABI_VERSION: bumped whenever #SimPolicyInterface grows. */
#define SIM_POLICY_ABI_VERSION 1

/**
 * SimPolicyInterface:
 * @abi_version: the %SIM_POLICY_ABI_VERSION the implementation was built
 *   against (set it in the interface init function)
 * @get_name: the policy's name, for reports
 * @compare: queue order: negative if @a goes before @b.  %NULL keeps
 *   submission order.  Must be a total order, stable across calls.
 * @place: chooses GPUs for @job on @cluster; returns %FALSE if the job
 *   does not fit now.  Must not change the cluster.
 * @schedule: one scheduling pass over the ordered queue; %NULL uses
 *   sim_policy_schedule_in_order() with head-of-line blocking.
 */
struct _SimPolicyInterface {
  GTypeInterface parent_iface;

  guint        abi_version;
  const char * (*get_name) (SimPolicy *self);
  int          (*compare)  (SimPolicy *self, const SimJob *a, const SimJob *b);
  gboolean     (*place)    (SimPolicy *self, const SimCluster *cluster, const SimJob *job,
                            SimPlacement *placement);
  void         (*schedule) (SimPolicy *self, SimSchedContext *context);
};

/** sim_policy_get_name: Returns: (transfer none): the policy's name. */
const char *sim_policy_get_name (SimPolicy *self);

/**
 * sim_policy_compare:
 * Returns: the queue order of @a and @b (submission order if the policy
 *   has no @compare).
 */
int sim_policy_compare (SimPolicy *self, const SimJob *a, const SimJob *b);

/**
 * sim_policy_place:
 * @self: a policy
 * @cluster: (transfer none): the cluster now
 * @job: (transfer none): a queued job
 * @placement: (out caller-allocates): filled on success
 *
 * Returns: %TRUE if the job fits now and @placement says where.
 */
gboolean sim_policy_place (SimPolicy *self, const SimCluster *cluster, const SimJob *job,
                           SimPlacement *placement);

/**
 * sim_policy_schedule:
 * @self: a policy
 * @context: (transfer none): this decision point
 *
 * Runs one scheduling pass.
 */
void sim_policy_schedule (SimPolicy *self, SimSchedContext *context);

/**
 * sim_policy_schedule_in_order:
 * @self: a policy
 * @context: a decision point
 * @skip_blocked: %FALSE for head-of-line blocking (stop at the first job
 *   that does not fit); %TRUE to go on to later jobs (greedy)
 *
 * The usual pass: walk the queue in the policy's order, place each job and
 * start it, until a job does not fit.
 */
void sim_policy_schedule_in_order (SimPolicy *self, SimSchedContext *context,
                                   gboolean skip_blocked);

/* ------------------------------------------------------------------------- */

/** sim_sched_context_get_now: Returns: the current time. */
SimTime sim_sched_context_get_now (SimSchedContext *context);

/** sim_sched_context_get_cluster: Returns: (transfer none): the cluster. */
const SimCluster *sim_sched_context_get_cluster (SimSchedContext *context);

/**
 * sim_sched_context_get_queue:
 * @context: a decision point
 * @n: (out): the number of queued jobs
 *
 * Returns: (transfer none) (array length=n): the queued jobs in the
 *   policy's order.  Starting a job does not change this array during the
 *   pass; a started job's state becomes %SIM_JOB_RUNNING.
 */
SimJob * const *sim_sched_context_get_queue (SimSchedContext *context, guint *n);

/**
 * sim_sched_context_start:
 * @context: a decision point
 * @job: a queued job
 * @placement: where to run it
 * @error: return location for a #GError
 *
 * Starts @job on @placement.
 *
 * Errors: SIM_ERROR_STATE if the job is not queued, the placement has the
 * wrong number of GPUs, or a GPU lacks room.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_sched_context_start (SimSchedContext *context, SimJob *job,
                                  const SimPlacement *placement, GError **error);

/* ------------------------------------------------------------------------- */
/* Built-ins, registered by name.                                            */

/**
 * SimQueueCompareFunc:
 * Returns: negative if @a goes first.
 */
typedef int (*SimQueueCompareFunc) (const SimJob *a, const SimJob *b);

/**
 * SimPlaceFunc:
 * Returns: %TRUE if @job fits now; @placement says where.
 */
typedef gboolean (*SimPlaceFunc) (const SimCluster *cluster, const SimJob *job,
                                  SimPlacement *placement);

/**
 * sim_policy_register_queue_order:
 * @name: a new name
 * @description: one line for listings
 * @compare: (nullable): the order; %NULL for submission order
 * @skip_blocked: whether a job that does not fit lets later ones run
 *
 * Registers a queue order.  Not thread-safe; register before running.
 */
void sim_policy_register_queue_order (const char *name, const char *description,
                                      SimQueueCompareFunc compare, gboolean skip_blocked);

/**
 * sim_policy_register_placement:
 * @name: a new name
 * @description: one line for listings
 * @place: the placement
 */
void sim_policy_register_placement (const char *name, const char *description,
                                    SimPlaceFunc place);

/**
 * sim_policy_list_queue_orders:
 * Returns: (transfer container) (element-type utf8): registered names, sorted.
 */
GPtrArray *sim_policy_list_queue_orders (void);

/**
 * sim_policy_list_placements:
 * Returns: (transfer container) (element-type utf8): registered names, sorted.
 */
GPtrArray *sim_policy_list_placements (void);

/**
 * sim_policy_new_builtin:
 * @queue: a registered queue order, e.g. "fifo"
 * @placement: a registered placement, e.g. "first-fit" or "best-fit"
 * @error: return location for a #GError
 *
 * Errors: SIM_ERROR_NOT_FOUND for an unknown name, with the known names
 * and the closest one.
 *
 * Returns: (transfer full) (nullable): a policy named "QUEUE/PLACEMENT".
 */
SimPolicy *sim_policy_new_builtin (const char *queue, const char *placement, GError **error);

/* Built-in placements, public so that other policies can reuse them. */
gboolean sim_place_first_fit (const SimCluster *cluster, const SimJob *job, SimPlacement *placement);
gboolean sim_place_best_fit (const SimCluster *cluster, const SimJob *job, SimPlacement *placement);

G_END_DECLS

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
#include "fabric/sim-topology.h"

G_BEGIN_DECLS

/**
 * SimPlacement:
 * @gpus: (array length=n_gpus): chosen GPU indices
 * @n_gpus: their number (the job's GPU count)
 * @milli: thousandths of each GPU (1000 for whole GPUs)
 * @mig_start: for a MIG job, the start slice of its instance on @gpus[0]
 *
 * Where a job runs.  Filled by a placement; @gpus has room for the job's
 * GPU count.  A placement without an array (@gpus %NULL, as a new
 * Sim.Placement() in Python is) is refused by every placement function
 * with a critical warning and %FALSE: the placements a policy receives
 * come with their array.
 */
typedef struct {
  guint32 *gpus;
  guint32  n_gpus;
  guint32  milli;
  gint32   mig_start;
} SimPlacement;

typedef struct _SimSchedContext SimSchedContext;

/**
 * SIM_TYPE_SCHED_CONTEXT:
 *
 * The boxed type of #SimSchedContext.  A copy (what a binding keeps of a
 * context past the call it was given in) is the same context, and keeps
 * the simulation it belongs to alive; once its decision is over, the
 * context can still be read but no longer acts: sim_sched_context_start()
 * and sim_sched_context_preempt() fail with SIM_ERROR_STATE.
 */
#define SIM_TYPE_SCHED_CONTEXT (sim_sched_context_get_type ())
GType sim_sched_context_get_type (void) G_GNUC_CONST;

#define SIM_TYPE_POLICY (sim_policy_get_type ())
G_DECLARE_INTERFACE (SimPolicy, sim_policy, SIM, POLICY, GObject)

/**
 * SIM_POLICY_ABI_VERSION:
 *
 * Bumped whenever #SimPolicyInterface grows.
 */
#define SIM_POLICY_ABI_VERSION 2

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
 *   sim_policy_schedule_in_order(), greedy if @get_flags has
 *   %SIM_POLICY_SKIP_BLOCKED and with head-of-line blocking otherwise.
 * @get_flags: (nullable): #SimPolicyFlags; %NULL for none
 */
struct _SimPolicyInterface {
  GTypeInterface parent_iface;

  guint        abi_version;
  const char * (*get_name) (SimPolicy *self);
  int          (*compare)  (SimPolicy *self, const SimJob *a, const SimJob *b);
  gboolean     (*place)    (SimPolicy *self, const SimCluster *cluster, const SimJob *job,
                            SimPlacement *placement);
  void         (*schedule) (SimPolicy *self, SimSchedContext *context);
  guint        (*get_flags) (SimPolicy *self);
};

/**
 * sim_policy_get_name:
 *
 * Returns: (transfer none): the policy's name.
 */
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
 * @placement: (transfer none): the caller's placement, whose @gpus has room
 *   for the job's GPU count; filled on success.  It is an in argument for
 *   introspection: the buffer is the caller's, so a binding passes it
 *   through (for instance to sim_place_best_fit()) rather than allocating
 *   one
 *
 * Its GPUs are marked unchosen (%G_MAXUINT32) before the policy's place()
 * runs, so that a place() returning %TRUE without filling the placement is
 * refused by sim_sched_context_start() rather than start the job on what
 * the buffer held.
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
 * Runs one scheduling pass: the policy's own @schedule, or else
 * sim_policy_schedule_in_order() with the %SIM_POLICY_SKIP_BLOCKED flag of
 * sim_policy_get_flags() deciding whether a job that does not fit blocks
 * the queue.  The same rule holds for built-in, plugin and Python policies.
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

/**
 * sim_policy_fail:
 * @self: a policy
 * @error: (transfer none): what went wrong, in the policy's words (copied)
 *
 * Stops the run that uses @self, with an error.  A method of a policy
 * (a C plugin's, or one written in another language whose call failed)
 * that cannot do its work reports it here, then returns at once with any
 * value: a neutral one ("does not fit", submission order) would otherwise
 * let the run go on to a wrong answer.
 *
 * The simulation looks for a failure after every call it makes into the
 * policy (an order between two jobs, a scheduling pass, its name) and
 * stops there: sim_simulation_run(), sim_simulation_run_until(),
 * sim_simulation_run_to_decision() and sim_simulation_decide() return
 * %FALSE with SIM_ERROR_STATE, "policy NAME failed at T s: MESSAGE"
 * (MESSAGE being @error's), and so does every later call on that
 * simulation.  Within a pass, sim_policy_schedule_in_order() stops at
 * the job whose placement failed.
 *
 * The simulation takes the failure: the policy then holds none, and may be
 * given to a new simulation.  A failure reported while no simulation runs
 * @self is taken by the next run that uses it, which fails at its start.
 * Until one is taken, the first failure reported counts and later ones are
 * ignored.  Time complexity: O(1).
 *
 * Returns: %TRUE if @error is now the policy's failure; %FALSE if one
 *   reported earlier is still to be taken (it is kept, and @error ignored).
 */
gboolean sim_policy_fail (SimPolicy *self, const GError *error);

/* ------------------------------------------------------------------------- */

/**
 * sim_sched_context_get_now:
 *
 * Returns: the current time.
 */
SimTime sim_sched_context_get_now (SimSchedContext *context);

/**
 * sim_sched_context_get_cluster:
 *
 * Returns: (transfer none): the cluster.
 */
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
 * wrong number of GPUs, a GPU left unchosen by the place() that returned
 * it (sim_policy_place()), or a GPU lacks room; SIM_ERROR_HELD if the start
 * is refused for now though the placement is good: the facility power
 * limit in hold mode keeps the job waiting while starting it would take
 * the facility over its limit.  A held job stays queued and nothing
 * changes; a policy treats it as a job that does not fit now (the
 * built-in passes do), and is asked again at the next decision.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_sched_context_start (SimSchedContext *context, SimJob *job,
                                  const SimPlacement *placement, GError **error);

/**
 * sim_sched_context_get_running:
 * @context: a decision point
 * @n: (out): the number of running jobs
 *
 * Returns: (transfer none) (array length=n): the running jobs, in the order
 *   they started; their @executed and @attained are up to date.
 */
SimJob * const *sim_sched_context_get_running (SimSchedContext *context, guint *n);

/**
 * sim_sched_context_preempt:
 * @context: a decision point
 * @job: a running job
 * @overhead: extra work the job must redo when it runs again (checkpoint
 *   and restore), added to its remaining work
 * @error: return location for a #GError
 *
 * Stops @job, frees its GPUs and puts it back in the queue; the work it
 * has done is kept.  The queue array of this pass does not change.
 *
 * Errors: SIM_ERROR_STATE if the job is not running.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_sched_context_preempt (SimSchedContext *context, SimJob *job, SimTime overhead,
                                    GError **error);

/**
 * sim_sched_context_wake_at:
 * @context: a decision point, during the call it was given in
 * @time: when to decide again (ns): at or after the decision's time,
 *   sim_sched_context_get_now()
 *
 * Asks for another decision at @time even if nothing else happens (for
 * instance when a running job's attained service will cross a threshold).
 * A @time equal to the decision's own asks for another pass at this
 * instant, after this one.  With a scheduling cycle ([policy] interval),
 * the decision comes at the cycle's first tick at or after @time, as every
 * decision does.
 *
 * A @time before the decision's is a mistake of the policy's that no
 * decision can honour: the run stops with SIM_ERROR_STATE naming the time
 * asked and the decision's time, in seconds (as a policy's failure does,
 * sim_policy_fail()), at the end of this pass; a built-in pass stops
 * at once.  A context whose decision is over (one a binding kept) refuses
 * the call with a critical warning.
 */
void sim_sched_context_wake_at (SimSchedContext *context, SimTime time);

/* ------------------------------------------------------------------------- */
/* Parameters, from a scenario's [policy] section.                           */

typedef struct _SimPolicyParams SimPolicyParams;

/**
 * sim_policy_params_new: (skip)
 */
SimPolicyParams *sim_policy_params_new (void);
/**
 * sim_policy_params_free: (skip)
 */
void             sim_policy_params_free (SimPolicyParams *params);
/**
 * sim_policy_params_set:
 *
 * Sets @key to the text @value (copied).
 */
void             sim_policy_params_set (SimPolicyParams *params, const char *key, const char *value);
/**
 * sim_policy_params_get_keys:
 * Returns: (transfer container) (element-type utf8): the keys set, sorted.
 */
GPtrArray       *sim_policy_params_get_keys (const SimPolicyParams *params);

/*
 * Typed getters: each returns %TRUE and stores the default when the key is
 * absent; with a bad value it returns %FALSE with SIM_ERROR_PARSE or
 * SIM_ERROR_INVALID saying what was expected, and remembers the key (see
 * sim_policy_params_get_failed_key()) so the caller can say where it is.
 */
gboolean sim_policy_params_get_duration (SimPolicyParams *params, const char *key, SimTime def,
                                         SimTime *out, GError **error);
gboolean sim_policy_params_get_number (SimPolicyParams *params, const char *key, double def,
                                       double min, double max, double *out, GError **error);
/**
 * sim_policy_params_get_string: (skip)
 */
gboolean sim_policy_params_get_string (SimPolicyParams *params, const char *key, const char *def,
                                       const char **out, GError **error);
/**
 * sim_policy_params_get_durations:
 * @out: (out) (array length=n): a newly allocated array of durations
 * Parses a comma-separated list ("1h, 10h"); absent: *@n = 0.
 */
gboolean sim_policy_params_get_durations (SimPolicyParams *params, const char *key,
                                          SimTime **out, guint *n, GError **error);
/**
 * sim_policy_params_get_failed_key:
 *
 * Returns: (nullable): the key of the last failure.
 */
const char *sim_policy_params_get_failed_key (const SimPolicyParams *params);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimPolicyParams, sim_policy_params_free)

/* ------------------------------------------------------------------------- */
/* Built-ins, registered by name.                                            */

/**
 * SimTaskClass:
 * @gpus: GPUs per task
 * @milli: thousandths of each GPU (1000: whole GPUs)
 * @cpu_milli: host CPU per task
 * @memory_bytes: host memory per task
 * @gpu_models: (nullable): allowed GPU models, interned, as in #SimJobSpec
 * @weight: how common the class is (relative)
 *
 * One kind of task in a workload's mix, for placements that weigh the
 * tasks to come (fragmentation gradient descent).
 */
typedef struct {
  guint32     gpus;
  guint32     milli;
  guint32     cpu_milli;
  guint64     memory_bytes;
  const char *gpu_models;
  double      weight;
} SimTaskClass;

/**
 * SimNodeAsleepFunc:
 * @data: the data given with the function
 * @node: a node index
 *
 * Returns: whether @node is asleep now: an idle node the power model has
 *   put to sleep ([power] sleep_after), which a job placed on it waits for.
 */
typedef gboolean (*SimNodeAsleepFunc) (gpointer data, guint node);

/**
 * SimPolicySetup:
 * @cluster: (nullable): the cluster the policy will schedule
 * @params: (nullable): the [policy] keys
 * @seed: the scenario seed (draw from a stream such as "policy")
 * @task_classes: (nullable) (array length=n_task_classes): the workload's
 *   mix, if known in advance
 * @n_task_classes: its length
 * @topology: (nullable): the cluster's network, when the scenario has one
 * @node_asleep: (nullable) (skip): whether a node is asleep now, valid
 *   while the policy lives; %NULL when nodes never sleep
 * @node_asleep_data: (skip): passed to @node_asleep
 *
 * What a policy may know when it is created.
 */
typedef struct {
  const SimCluster   *cluster;
  SimPolicyParams    *params;
  guint64             seed;
  const SimTaskClass *task_classes;
  guint               n_task_classes;
  const SimTopology  *topology;
  SimNodeAsleepFunc   node_asleep;
  gpointer            node_asleep_data;
} SimPolicySetup;

/**
 * SimPolicyFlags:
 * @SIM_POLICY_SKIP_BLOCKED: a job that does not fit lets later jobs run
 *   (greedy); otherwise the first job that does not fit blocks the queue
 * @SIM_POLICY_TIME_DEPENDENT_ORDER: the queue order depends on state that
 *   changes with time (attained service): re-sort at every decision, with
 *   running jobs' service brought up to date first
 * @SIM_POLICY_PLACES_MIG: the policy's place() is asked for MIG jobs too,
 *   and chooses their GPU and instance (sim_placement_set_mig()); without
 *   it the library places them first fit (sim_place_mig())
 */
typedef enum {
  SIM_POLICY_SKIP_BLOCKED = 1 << 0,
  SIM_POLICY_TIME_DEPENDENT_ORDER = 1 << 1,
  SIM_POLICY_PLACES_MIG = 1 << 2,
} SimPolicyFlags;

/**
 * SimQueueOrderInfo:
 * @name: its name in scenarios, e.g. "fifo"
 * @description: one line for listings
 * @keys: (nullable) (array zero-terminated=1): the [policy] keys it reads
 * @flags: #SimPolicyFlags
 * @create: (nullable): makes its state from the setup; %NULL for none
 * @destroy: (nullable): frees the state
 * @compare: (nullable): the order; %NULL for submission order
 * @schedule: (nullable): one pass; %NULL for sim_policy_schedule_in_order()
 *
 * A queue order, registered by name.
 */
typedef struct {
  const char         *name;
  const char         *description;
  const char * const *keys;
  guint               flags;
  gpointer (*create)   (const SimPolicySetup *setup, GError **error);
  void     (*destroy)  (gpointer state);
  int      (*compare)  (gpointer state, const SimJob *a, const SimJob *b);
  void     (*schedule) (gpointer state, SimPolicy *policy, SimSchedContext *context);
} SimQueueOrderInfo;

/**
 * SimPlacementInfo:
 * @name: its name in scenarios, e.g. "best-fit"
 * @description: one line for listings
 * @keys: (nullable) (array zero-terminated=1): the [policy] keys it reads
 * @create: (nullable): makes its state from the setup
 * @destroy: (nullable): frees the state
 * @place: chooses GPUs; must not change the cluster
 *
 * A placement, registered by name.
 */
typedef struct {
  const char         *name;
  const char         *description;
  const char * const *keys;
  gpointer (*create)  (const SimPolicySetup *setup, GError **error);
  void     (*destroy) (gpointer state);
  gboolean (*place)   (gpointer state, const SimCluster *cluster, const SimJob *job,
                       SimPlacement *placement);
} SimPlacementInfo;

/**
 * sim_policy_register_queue_order:
 * @info: the order (copied; its strings and @keys must stay valid)
 *
 * Registers a queue order by name.  Not thread-safe: register before
 * running simulations.
 */
void sim_policy_register_queue_order (const SimQueueOrderInfo *info);

/**
 * sim_policy_register_placement:
 * @info: the placement (copied; its strings and @keys must stay valid)
 */
void sim_policy_register_placement (const SimPlacementInfo *info);

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
 * sim_policy_describe_builtin:
 * @name: a queue order or placement
 * Returns: (nullable): its one-line description.
 */
const char *sim_policy_describe_builtin (const char *name);

/**
 * sim_policy_new:
 * @queue: a registered queue order, e.g. "fifo"
 * @placement: a registered placement, e.g. "first-fit" or "best-fit"
 * @setup: (nullable): what the policy may know; %NULL for nothing
 * @error: return location for a #GError
 *
 * Errors: SIM_ERROR_NOT_FOUND for an unknown name, with the known names
 * and the closest one; SIM_ERROR_UNKNOWN_KEY for a [policy] key neither
 * part reads (with a suggestion); the parts' own errors for bad values
 * (see sim_policy_params_get_failed_key()).
 *
 * Returns: (transfer full) (nullable): a policy named "QUEUE/PLACEMENT".
 */
SimPolicy *sim_policy_new (const char *queue, const char *placement, const SimPolicySetup *setup,
                           GError **error);

/**
 * sim_policy_new_builtin:
 * @queue: a registered queue order
 * @placement: a registered placement
 * @error: return location for a #GError
 *
 * sim_policy_new() without a setup.
 *
 * Returns: (transfer full) (nullable): a policy named "QUEUE/PLACEMENT".
 */
SimPolicy *sim_policy_new_builtin (const char *queue, const char *placement, GError **error);

/**
 * sim_policy_get_flags:
 * Returns: the #SimPolicyFlags of @self.
 */
guint sim_policy_get_flags (SimPolicy *self);

/**
 * sim_job_host_share:
 * @job: a job
 * @gpus_here: how many of its GPUs are on one node
 * @cpu_milli: (out): the host CPU it takes on that node
 * @memory_bytes: (out): the host memory it takes on that node
 *
 * A job's host CPU and memory are split across its nodes in proportion to
 * its GPUs there (rounded down).
 */
void sim_job_host_share (const SimJob *job, guint gpus_here, guint64 *cpu_milli,
                         guint64 *memory_bytes);

/**
 * sim_job_takes_whole_gpus:
 * @job: a job
 *
 * Returns: whether @job takes whole free GPUs (not shares of GPUs, not MIG
 *   instances, which also fit on GPUs already in use), so that fewer free
 *   GPUs than it asks for rule it out at once.
 */
gboolean sim_job_takes_whole_gpus (const SimJob *job);

/**
 * sim_job_get_min_gpus:
 * @job: a job
 *
 * Returns: the fewest GPUs @job can start on: its spec's gpus_min for a
 *   moldable job (sim_policy_place() then picks the count), else its gpus.
 */
guint sim_job_get_min_gpus (const SimJob *job);

/**
 * sim_job_get_requested:
 * @job: a job
 *
 * The run time a scheduler plans with, as EASY and sjf's "requested"
 * estimate take it: the user's estimate (spec.requested) when the workload
 * gives one, else the job's duration.
 *
 * Returns: a time in nanoseconds, never 0 for a job with a duration.
 */
SimTime sim_job_get_requested (const SimJob *job);

/**
 * sim_placement_set_gpus:
 * @placement: the placement a policy's place() was given
 * @cluster: the cluster it was given
 * @job: the job it was given
 * @gpus: (array length=n_gpus): the GPUs chosen, by cluster index
 * @n_gpus: their number: the job's GPU count (or, for a moldable job,
 *   from its minimum up to its count)
 * @error: return location for a #GError
 *
 * Fills @placement with GPUs a policy chose itself, after checking them:
 * the way for a policy written in another language (Python through
 * introspection cannot write the placement's array) to say where a job
 * goes.  Each GPU takes the job's share (all of it for whole-GPU jobs, its
 * fraction for a shared one).  MIG jobs are placed by the library
 * (sim_place_mig()) before a policy's place() is asked.  Nothing is
 * allocated: the simulation does that when the job starts.
 *
 * Errors: SIM_ERROR_STATE for a placement with no GPU array (one a
 * policy was not given), SIM_ERROR_INVALID for a count the job does not
 * take, a GPU index out of range or listed twice, a GPU without room for
 * the job's share (or in MIG mode), on a node that is down or drained, of
 * a model the job does not allow, or on a node without the host CPU and
 * memory the job's share there needs.  @placement is unchanged on error.
 *
 * Returns: %TRUE if @placement now holds @gpus.
 */
gboolean sim_placement_set_gpus (SimPlacement *placement, const SimCluster *cluster,
                                 const SimJob *job, const guint32 *gpus, guint n_gpus,
                                 GError **error);

/**
 * sim_placement_set_mig:
 * @placement: the placement a policy's place() was given
 * @cluster: the cluster it was given
 * @job: the job it was given, one asking for a MIG profile
 * @gpu: the GPU chosen, by cluster index
 * @start: the instance's start slice, or -1 for the first free one the
 *   profile allows there
 * @error: return location for a #GError
 *
 * Fills @placement with a MIG instance of @job's profile that a policy
 * chose itself (a policy with %SIM_POLICY_PLACES_MIG), after checking
 * that it can be made: nothing is allocated until the job starts.
 *
 * Errors: SIM_ERROR_STATE for a placement with no GPU array;
 * SIM_ERROR_INVALID for a job without a MIG profile, a GPU out of range,
 * on a node down or drained, of a model without the profile or one the
 * job does not allow, holding whole or fractional jobs, on a node short of
 * the job's host CPU or memory, or a start the profile does not allow
 * there or whose slices are taken.  @placement is unchanged on error.
 *
 * Returns: %TRUE if @placement now holds the instance.
 */
gboolean sim_placement_set_mig (SimPlacement *placement, const SimCluster *cluster,
                                const SimJob *job, guint gpu, int start, GError **error);

/**
 * sim_place_node_admits:
 * @cluster: a cluster
 * @node: a node index
 * @job: a job
 * @gpus_here: how many of its GPUs would go there
 *
 * Returns: whether @node's GPU model is one @job allows and the node has
 *   the host CPU and memory that share of the job needs.  Placements call
 *   this for every node they consider.
 */
gboolean sim_place_node_admits (const SimCluster *cluster, guint node, const SimJob *job,
                                guint gpus_here);

/**
 * sim_place_mig:
 * @cluster: a cluster
 * @job: a job with a MIG profile
 * @placement: (transfer none): the caller's placement, with room for one
 *   GPU; filled with its GPU and start slice
 *
 * First fit for a MIG job: a GPU already in MIG mode with room for the
 * profile, else a free GPU whose model has it (sim_cluster_mig_find()),
 * on a node that admits the job.  Every built-in placement places MIG jobs
 * this way.
 *
 * Returns: %TRUE if it fits now.
 */
gboolean sim_place_mig (const SimCluster *cluster, const SimJob *job, SimPlacement *placement);

/* Built-in placements, public so that other policies can reuse them. */
gboolean sim_place_first_fit (const SimCluster *cluster, const SimJob *job, SimPlacement *placement);
gboolean sim_place_best_fit (const SimCluster *cluster, const SimJob *job, SimPlacement *placement);

G_END_DECLS

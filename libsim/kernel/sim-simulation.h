/* sim-simulation.h: one run of a scenario.
 *
 * A simulation builds the cluster from the catalogue, opens the workload,
 * creates the policy, attaches the modules its scenario asks for (power
 * and cooling, cost, elastic capacity, failures, the power policies:
 * libsim/sim-modules.c), and drives the event engine.  The kernel's own
 * events (kernel/sim-kernel.c) are six:
 *
 *   arrival    -> the job joins the queue; a decision is requested
 *   completion -> the job's GPUs are released; a decision is requested
 *   decision   -> the policy runs one pass over the queue (after every other
 *                 event at the same instant, and after every job submitted at
 *                 that instant: simultaneous arrivals are decided together)
 *   sample     -> a time-series row
 *   wake       -> a decision a policy asked for at a time of its own
 *   timer      -> a module's timer (kernel/sim-kernel.h)
 *
 * and modules register kinds of their own through the kernel (a node falls
 * asleep, the weather steps, a cloud node comes up, a serverless function
 * ends).
 *
 * It can be driven to the end, to a given time, or to the next decision
 * (for step-wise control such as a reinforcement-learning agent). */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib-object.h>
#include "scenario/sim-scenario.h"
#include "cluster/sim-cluster.h"
#include "sched/sim-policy.h"
#include "report/sim-report.h"

G_BEGIN_DECLS

#define SIM_TYPE_SIMULATION (sim_simulation_get_type ())
G_DECLARE_FINAL_TYPE (SimSimulation, sim_simulation, SIM, SIMULATION, GObject)

/**
 * SimProgressFunc:
 * @simulation: the simulation
 * @fraction: how far the run is, 0 to 1, or -1 if unknown
 * @now: simulated time
 * @jobs_done: jobs completed so far
 * @user_data: as given
 *
 * Called every few thousand events and once at the end.
 */
typedef void (*SimProgressFunc) (SimSimulation *simulation, double fraction, SimTime now,
                                 guint64 jobs_done, gpointer user_data);

/**
 * sim_simulation_new:
 * @scenario: a scenario
 * @error: return location for a #GError
 *
 * Loads the catalogue (the default path, then the scenario's `models`),
 * builds the cluster, opens the workload and creates the policy.
 *
 * Errors: SIM_ERROR_NOT_FOUND for an unknown node or GPU model or policy
 * (with the scenario file, group and key, and a suggestion); any error of
 * the catalogue or the workload.
 *
 * Returns: (transfer full) (nullable): the simulation.
 */
SimSimulation *sim_simulation_new (SimScenario *scenario, GError **error);

/**
 * sim_cluster_new_for_scenario: (skip)
 * @scenario: a scenario
 * @catalogue: where its node and GPU models are looked up
 * @error: return location for a #GError
 *
 * Builds the cluster of @scenario's pools, as sim_simulation_new() does.
 *
 * Errors: SIM_ERROR_NOT_FOUND for an unknown model, at its line in the
 * scenario, with a suggestion; SIM_ERROR_INVALID for a bad count.
 *
 * Returns: (transfer full) (nullable): the cluster.
 */
SimCluster *sim_cluster_new_for_scenario (const SimScenario *scenario, const SimCatalogue *catalogue,
                                          GError **error);

/**
 * SIM_LIMIT_JOBS:
 *
 * Runs are refused past these sizes unless forced
 * (sim_simulation_set_force(), `gpusim run --force`): more jobs than this
 * (minutes to hours of simulation, more with the network), more
 * time-series rows than %SIM_LIMIT_SAMPLES (about 450 MB of CSV), or more
 * output than %SIM_LIMIT_OUTPUT_BYTES.
 */
#define SIM_LIMIT_JOBS          G_GUINT64_CONSTANT (100000000)
/**
 * SIM_LIMIT_SAMPLES:
 * See %SIM_LIMIT_JOBS.
 */
#define SIM_LIMIT_SAMPLES       G_GUINT64_CONSTANT (5000000)
/**
 * SIM_LIMIT_OUTPUT_BYTES:
 * See %SIM_LIMIT_JOBS.
 */
#define SIM_LIMIT_OUTPUT_BYTES  G_GUINT64_CONSTANT (2000000000)
/* Bytes per row of jobs.csv and of timeseries.csv, for estimates. */
#define SIM_JOB_ROW_BYTES       G_GUINT64_CONSTANT (120)
#define SIM_SAMPLE_ROW_BYTES    G_GUINT64_CONSTANT (90)

/**
 * SimRunEstimate:
 * @jobs: jobs the run will simulate (synthetic workloads: the rate over the
 *   horizon, or the job limit); 0 when unknown before the trace is read
 * @samples: time-series rows it will write (0 without time series, or
 *   when the horizon is not set)
 * @output_bytes: about how much jobs.csv and timeseries.csv will take
 *
 * The size of a run, estimated before it starts.
 */
typedef struct {
  guint64 jobs;
  guint64 samples;
  guint64 output_bytes;
} SimRunEstimate;

/**
 * sim_simulation_estimate:
 * @self: a simulation
 * @estimate: (out caller-allocates): its size
 *
 * Estimates the size of the run (after sim_simulation_set_output_dir(),
 * which decides what is written).  A run whose estimate is past
 * %SIM_LIMIT_JOBS, %SIM_LIMIT_SAMPLES or %SIM_LIMIT_OUTPUT_BYTES is refused
 * when it starts, with the key to change, unless forced; a trace whose
 * size is only known as it is read is stopped when it passes a limit.
 */
void sim_simulation_estimate (SimSimulation *self, SimRunEstimate *estimate);

/**
 * sim_simulation_check_limits:
 * @self: a simulation
 * @error: return location for a #GError
 *
 * Checks the estimate (sim_simulation_estimate()) against the limits, as a
 * run does when it starts; nothing is checked once the simulation is
 * forced.
 *
 * Errors: SIM_ERROR_INVALID with the estimate, the limit and the scenario
 * key to change (file and line).
 *
 * Returns: %TRUE if the run may go ahead.
 */
gboolean sim_simulation_check_limits (SimSimulation *self, GError **error);

/**
 * sim_simulation_set_force:
 * @self: a simulation
 * @force: run past the size limits
 */
void sim_simulation_set_force (SimSimulation *self, gboolean force);

/**
 * sim_remove_temporary_files:
 *
 * Removes every temporary output file the library has open (the files a
 * run writes before it commits them under their names).  Async-signal-safe:
 * a program's SIGINT or SIGTERM handler may call it before it exits, so
 * that an interrupted run leaves no `*.tmp-*` files behind.
 */
void sim_remove_temporary_files (void);

/**
 * sim_simulation_open_workload: (skip)
 * @self: a simulation
 * @error: return location for a #GError
 *
 * Opens a new copy of the simulation's workload (its generator or trace
 * reader, set up as the run's own), apart from the run: for instance to
 * read a whole trace before running (`gpusim validate`).
 *
 * Errors: those of the source, with the scenario's [workload] trace key.
 *
 * Returns: (transfer full) (nullable): the workload.
 */
SimWorkload *sim_simulation_open_workload (SimSimulation *self, GError **error);

/**
 * sim_simulation_set_output_dir:
 * @self: a simulation that has not started
 * @dir: a directory, created if missing
 * @error: return location for a #GError
 *
 * Asks for summary.json, jobs.csv and timeseries.csv (as the scenario's
 * [output] group says), nodes.csv (per node: allocation, power and link
 * load, report/sim-run-records.h) and, with a fabric, topology.dot (the
 * network diagram, nodes coloured by allocation) in @dir; with a timeline
 * (sim_simulation_set_timeline()), that file too.  They appear when the run ends, all
 * together: each is written whole to a temporary file and the files are
 * renamed into place only once all are complete (an earlier rename is
 * undone if a later one fails); a run that fails, or whose outputs cannot
 * all be written, leaves the directory as it was.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_simulation_set_output_dir (SimSimulation *self, const char *dir, GError **error);

/**
 * sim_simulation_set_timeline:
 * @self: a simulation, not started
 * @path: the file to write at the end of the run (whole, or not at all)
 * @error: return location for a #GError
 *
 * Records the run's timeline as Chrome trace-event JSON, which Perfetto
 * opens: job runs on their nodes' GPUs, preemptions and MIG
 * reconfigurations (report/sim-timeline.h).  Memory grows with the jobs
 * running at once, the file with the job runs.
 *
 * Errors: SIM_ERROR_STATE after the run started or a second time;
 * SIM_ERROR_IO if @path cannot be created.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_simulation_set_timeline (SimSimulation *self, const char *path, GError **error);

/**
 * sim_simulation_set_policy:
 * @self: a simulation that has not started
 * @policy: (transfer none): a policy to use instead of the scenario's
 * @error: return location for a #GError
 *
 * Replaces the scenario's [policy] with @policy, for instance one written
 * by the caller.
 *
 * Errors: SIM_ERROR_STATE if the run has started.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_simulation_set_policy (SimSimulation *self, SimPolicy *policy, GError **error);

/**
 * sim_simulation_set_progress_func:
 * @self: a simulation
 * @func: (nullable) (scope notified): called as the run progresses
 * @user_data: passed to @func
 * @destroy: frees @user_data
 */
void sim_simulation_set_progress_func (SimSimulation *self, SimProgressFunc func,
                                       gpointer user_data, GDestroyNotify destroy);

/**
 * sim_simulation_fail:
 * @self: a simulation
 * @error: (transfer none): what went wrong (copied)
 *
 * Stops the run with an error: the way for a function the run calls (a
 * #SimProgressFunc, a #SimJobObserver, a binding's callback that failed)
 * to stop it, having no error to return.  The run stops once the call in
 * progress returns (at the latest when the current event is handled):
 * sim_simulation_run(), sim_simulation_run_until(),
 * sim_simulation_run_to_decision() and sim_simulation_decide() return
 * %FALSE with a copy of @error (its domain, code and message), and so
 * does every later call; outputs are abandoned, and no report is made.
 * Called before the run starts, the run fails at its start.  The first
 * error stands: once the run has failed, or has ended, this does nothing.
 * (A policy reports its failures with sim_policy_fail(), which names it.)
 *
 * Returns: %TRUE if the run now fails with @error; %FALSE if it had already
 *   failed or ended.
 */
gboolean sim_simulation_fail (SimSimulation *self, const GError *error);

/**
 * sim_simulation_run:
 * @self: a simulation
 * @error: return location for a #GError
 *
 * Runs to the end: the horizon, or until every job has finished.
 *
 * Errors: a malformed trace line met during the run (SIM_ERROR_TRACE), a
 * policy that broke the rules or reported a failure (SIM_ERROR_STATE, see
 * sim_policy_fail()), failing to write the outputs (SIM_ERROR_IO), or
 * the error given to sim_simulation_fail() by a function the run called.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_simulation_run (SimSimulation *self, GError **error);

/**
 * sim_simulation_run_until:
 * @self: a simulation
 * @until: a simulated time
 * @error: return location for a #GError
 *
 * Runs until @until (or the end, if sooner).  A run with a horizon ends
 * there; one without (its workload a number of jobs, or a trace) ends
 * when nothing is left to happen, whatever @until, and
 * sim_simulation_is_finished() then says so.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_simulation_run_until (SimSimulation *self, SimTime until, GError **error);

/**
 * sim_simulation_run_to_decision:
 * @self: a simulation
 * @error: return location for a #GError
 *
 * Runs until the next scheduling decision is due and stops before the
 * policy's pass: the decision is then pending.  The caller may look at it
 * and act through its context (sim_simulation_get_decision()), and commits
 * it with sim_simulation_decide().  A decision still pending when this (or
 * any run function) is called is first made by the policy.
 *
 * Returns: %TRUE if a decision is pending; %FALSE when the run has ended
 *   (error unset) or failed (error set).
 */
gboolean sim_simulation_run_to_decision (SimSimulation *self, GError **error);

/**
 * sim_simulation_get_decision:
 * @self: a simulation
 *
 * The pending decision, if any: its queue (in the policy's order), the
 * cluster, the running jobs, and sim_sched_context_start() and the other
 * calls a policy makes, for a caller that decides itself.
 *
 * Returns: (transfer none) (nullable): the pending decision's context, valid
 *   until it is committed; %NULL if none is pending.
 */
SimSchedContext *sim_simulation_get_decision (SimSimulation *self);

/**
 * sim_simulation_set_node_available:
 * @self: a simulation
 * @node: a node index
 * @available: whether it takes new jobs
 * @error: return location for a #GError
 *
 * Drains a node (no new job is placed on it; jobs running there go on to
 * their end, and the GPUs they give back stay out of service) or puts it
 * back, from now on.  A decision follows, as the free GPUs changed.
 *
 * Errors: SIM_ERROR_INVALID for a node the cluster does not have.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_simulation_set_node_available (SimSimulation *self, guint node, gboolean available,
                                            GError **error);

/**
 * sim_simulation_decide:
 * @self: a simulation with a pending decision
 * @run_policy: let the policy make its pass (after whatever the caller
 *   did through the context); %FALSE: the caller has decided
 * @error: return location for a #GError
 *
 * Commits the pending decision: started jobs leave the queue, preempted
 * ones rejoin it, rates follow.  The run resumes at the next run call.
 *
 * Errors: SIM_ERROR_STATE if no decision is pending; a failure of the
 *   pass (which ends the run).
 *
 * Returns: %TRUE on success.
 */
gboolean sim_simulation_decide (SimSimulation *self, gboolean run_policy, GError **error);

/**
 * sim_simulation_is_finished:
 *
 * Returns: whether the run has ended.
 */
gboolean sim_simulation_is_finished (SimSimulation *self);

/**
 * sim_simulation_get_now:
 *
 * Returns: the simulated time.
 */
SimTime sim_simulation_get_now (SimSimulation *self);

/**
 * sim_simulation_get_cluster:
 *
 * Returns: (transfer none): the cluster.
 */
const SimCluster *sim_simulation_get_cluster (SimSimulation *self);

/**
 * sim_simulation_dup_warnings:
 * @self: a simulation
 *
 * What building the run did otherwise than the scenario asked, in
 * sentences: a fabric whose leaves could not all hold the oversubscription
 * asked for with whole nodes (sim_topology_get_warnings()).  The run goes
 * ahead as built; a caller shows these to the user.
 *
 * Returns: (transfer full) (array zero-terminated=1): the warnings, empty
 *   when there are none.
 */
char **sim_simulation_dup_warnings (SimSimulation *self);

/**
 * sim_simulation_get_scenario:
 *
 * Returns: (transfer none): the scenario.
 */
SimScenario *sim_simulation_get_scenario (SimSimulation *self);

/**
 * sim_simulation_get_policy:
 *
 * Returns: (transfer none): the policy.
 */
SimPolicy *sim_simulation_get_policy (SimSimulation *self);

/**
 * sim_simulation_get_report:
 * Returns: (transfer none) (nullable): the report, once the run has ended.
 */
SimReport *sim_simulation_get_report (SimSimulation *self);

/**
 * sim_simulation_get_n_classes:
 * @self: a simulation
 *
 * Returns: the synthetic workload's job classes (0 for a trace, whose jobs
 *   have no scaling curve).
 */
guint sim_simulation_get_n_classes (SimSimulation *self);

/**
 * sim_simulation_get_class_speedup:
 * @self: a simulation
 * @job_class: a class of the synthetic workload, from 0
 * @n_gpus: GPUs, >= 1
 * @speedup: (out): the class's speed-up on @n_gpus against one GPU
 * @error: return location for a #GError
 *
 * How much faster a job of the class runs on @n_gpus GPUs of the
 * reference model than on one (see sim-scaling.h for the models): the
 * closed form for linear and Amdahl, the interpolated table, or, for a
 * class with a communication profile (scaling = comm or linear), its
 * iteration's compute over N plus the communication that does not overlap
 * it, timed on an idle copy of the scenario's fabric with the job on the
 * first @n_gpus GPUs (one group of each parallel kind; other jobs'
 * traffic, which a run adds, is not in this figure).  Efficiency is
 * @speedup / @n_gpus.
 *
 * Errors: SIM_ERROR_INVALID for a class that does not exist, @n_gpus of
 * 0, or a communicating class asked for more GPUs than the cluster has;
 * errors of the communication model.
 *
 * Time complexity: O(1) for closed forms; one collective estimate per
 * parallel kind for a communicating class.
 *
 * Returns: %TRUE with @speedup set.
 */
gboolean sim_simulation_get_class_speedup (SimSimulation *self, guint job_class, guint n_gpus,
                                           double *speedup, GError **error);

/**
 * sim_simulation_get_class_name:
 * @self: a simulation
 * @job_class: a class, from 0
 *
 * Returns: (transfer none) (nullable): the class's name, or %NULL if there
 *   is no such class.
 */
const char *sim_simulation_get_class_name (SimSimulation *self, guint job_class);

/**
 * SimJobObserver:
 * @simulation: the simulation
 * @job: (transfer none): the job
 * @user_data: as given
 *
 * Called when a job starts and when it finishes (see @job's state).
 */
typedef void (*SimJobObserver) (SimSimulation *simulation, const SimJob *job, gpointer user_data);

/**
 * sim_simulation_set_job_observer:
 * @self: a simulation
 * @func: (nullable) (scope notified): called at every start and finish
 * @user_data: passed to @func
 * @destroy: frees @user_data
 *
 * For tests and tools that check invariants as the run goes.
 */
void sim_simulation_set_job_observer (SimSimulation *self, SimJobObserver func,
                                      gpointer user_data, GDestroyNotify destroy);

G_END_DECLS

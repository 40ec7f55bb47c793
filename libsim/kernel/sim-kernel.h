/* sim-kernel.h: what the simulation kernel offers the modules (not installed).
 *
 * The kernel runs jobs: their arrival, the queue in the policy's order, the
 * decision protocol, starts, stops and completions as fluids (sim-job.h),
 * GPU sharing and the network's rates, and the run's control.  It names no
 * module.  Power and cooling, cost, elastic capacity, failures, the run's
 * output files and the RL observation are modules beside it: each attaches
 * from the module table (sim-modules.c) and from then on only
 *
 *  - is told what happens, through HOOKS: arrays of plain callbacks the
 *    kernel calls at fixed points of a job's life and of the run, in the
 *    order they were connected (a GSignal per event would cost about ten
 *    times a direct call at millions of events per second; an array walk
 *    costs one indirect call per connected module, and nothing when none is);
 *  - has a say through GATES (every gate must admit a start) and the JOB
 *    CLAIM (a module may take an arriving job out of the cluster: a
 *    serverless function);
 *  - changes rates through SPEED FACTORS that compose: a job's speed is
 *    the product of its start factors (its GPUs' model and its scaling)
 *    times its share of shared GPUs, the share itself measured at the
 *    clock the capacity factors leave its GPUs (a power cap);
 *  - acts through SERVICES: timers and events of its own, a change of state
 *    bracketed by begin and end, re-rating the jobs on a set of GPUs,
 *    holding, releasing and finishing a job, asking for a decision, adding
 *    an accumulator or a jobs.csv column;
 *  - keeps its state in an EXTENSION of the simulation (one slot per
 *    module, found by the module's own key), never in the kernel's struct.
 *
 * SimGrid's plugins work this way: its host-energy plugin connects to the
 * core's signals and keeps its state in an extension of the host; the core
 * never names it.
 *
 * Order is part of the contract: a run must give the same bytes whatever
 * modules are present.  Hooks run in connection order, which is the module
 * table's order, and every hook is called at the point of the job's life
 * named below, no earlier and no later.
 */
#pragma once

#include <glib.h>
#include "kernel/sim-simulation.h"
#include "core/sim-engine.h"
#include "report/sim-metrics.h"
#include "workload/sim-job.h"

G_BEGIN_DECLS

/* ------------------------------------------------------------------------- */
/* Hooks.                                                                    */

/**
 * SimHook:
 * @SIM_HOOK_JOB_ARRIVED: a job was admitted to the queue (SimJobHookFunc)
 * @SIM_HOOK_JOB_PLACED: a job holds its GPUs and is about to run: its
 *   progress, speed and completion are not set yet (SimJobPlacedFunc:
 *   returns a wait, in wall time, before it computes: nodes that wake)
 * @SIM_HOOK_JOB_STARTED: a start is complete (SimJobHookFunc)
 * @SIM_HOOK_JOB_ACTIVITY: the GPUs a running job keeps busy changed, by the
 *   delta given; job->active_gpus is already the new figure
 *   (SimJobActivityFunc)
 * @SIM_HOOK_JOB_STOPPING: a job is about to leave its GPUs: a hint to bring
 *   in the records its stop will touch (SimJobStoppingFunc)
 * @SIM_HOOK_JOB_STOPPED: a job has left its GPUs (finished, preempted or
 *   held), which are free again; job->active_gpus is still what it kept
 *   busy (SimJobHookFunc)
 * @SIM_HOOK_JOB_FINISHED: a job finished, in or out of the cluster
 *   (SimJobHookFunc)
 * @SIM_HOOK_JOB_AT_END: the run ends with this job running; its progress is
 *   up to date (SimJobHookFunc)
 * @SIM_HOOK_STATE_NOTE: the state after a change is being noted for the
 *   accumulators: a module fills its part of it (SimStateNoteFunc)
 * @SIM_HOOK_STATE_CHANGED: the state after a change was noted (SimWatchFunc);
 *   not called again for the changes a watch makes itself
 * @SIM_HOOK_PASS_END: a scheduling pass was committed (SimWatchFunc)
 * @SIM_HOOK_RUN_START: the run starts, before the first arrival is read
 *   (SimWatchFunc)
 * @SIM_HOOK_REPORT: the run ended and every accumulator has reported
 *   (SimReportHookFunc)
 * @SIM_HOOK_COMMIT: the report is final: write what the run produced
 *   (SimCommitFunc; a failure fails the run)
 * @SIM_HOOK_ABANDON: the run failed: drop what it would have written
 *   (SimWatchFunc)
 */
typedef enum {
  SIM_HOOK_JOB_ARRIVED,
  SIM_HOOK_JOB_PLACED,
  SIM_HOOK_JOB_STARTED,
  SIM_HOOK_JOB_ACTIVITY,
  SIM_HOOK_JOB_STOPPING,
  SIM_HOOK_JOB_STOPPED,
  SIM_HOOK_JOB_FINISHED,
  SIM_HOOK_JOB_AT_END,
  SIM_HOOK_STATE_NOTE,
  SIM_HOOK_STATE_CHANGED,
  SIM_HOOK_PASS_END,
  SIM_HOOK_RUN_START,
  SIM_HOOK_REPORT,
  SIM_HOOK_COMMIT,
  SIM_HOOK_ABANDON,
  SIM_N_HOOKS
} SimHook;

typedef void    (*SimJobHookFunc)     (gpointer data, SimJob *job, SimTime now);
/* @nodes: for each of the job's GPUs, its node, or G_MAXUINT when the GPU
 * before it is on the same node (each node once, as the records a stop
 * touches are asked for). */
typedef void    (*SimJobStoppingFunc) (gpointer data, SimJob *job, const guint *nodes);
typedef SimTime (*SimJobPlacedFunc)   (gpointer data, SimJob *job, const SimPlacement *placement,
                                       SimTime now);
typedef void    (*SimJobActivityFunc) (gpointer data, SimJob *job, double delta, SimTime now);
typedef void    (*SimStateNoteFunc)   (gpointer data, SimState *state, SimTime now);
typedef void    (*SimWatchFunc)       (SimSimulation *sim, SimTime now, gpointer data);
typedef void    (*SimReportHookFunc)  (gpointer data, SimReport *report,
                                       const SimReportInfo *info);
typedef gboolean (*SimCommitFunc)     (gpointer data, SimReport *report, GError **error);

/* Connects @func (of the type @hook names, cast to GCallback) with @data.
 * Only before the run starts. */
void sim__kernel_connect (SimSimulation *sim, SimHook hook, GCallback func, gpointer data);

/* ------------------------------------------------------------------------- */
/* Gates, claims and speed factors.                                          */

/* A gate is asked before every start (sim_sched_context_start()): FALSE
 * holds the job back, the start failing with SIM_ERROR_HELD and @error's
 * message.  After each scheduling pass, its @pass_end (nullable) is told how
 * many starts it held. */
typedef gboolean (*SimStartGateFunc) (gpointer data, const SimJob *job,
                                      const SimPlacement *placement, GError **error);
typedef void     (*SimPassEndFunc)   (gpointer data, guint n_held, SimTime now);
void sim__kernel_add_gate (SimSimulation *sim, SimStartGateFunc admit, SimPassEndFunc pass_end,
                           gpointer data);

/* Asked for every arriving job the cluster could run: TRUE takes it (it is
 * then the module's, which ends it with sim__kernel_finish_outside()). */
typedef gboolean (*SimJobClaimFunc) (gpointer data, SimJob *job, SimTime now);
void sim__kernel_add_claim (SimSimulation *sim, SimJobClaimFunc claim, gpointer data);

/* A speed factor of a running job: a start factor multiplies its speed
 * from its start on (its GPUs' model, its scaling on their count); a
 * capacity factor is the share of its GPUs' full speed their clocks leave
 * (1: full), which the sharing model then divides between the jobs on a
 * GPU.  Factors compose by product, in the order they were added. */
typedef double (*SimSpeedFunc) (gpointer data, const SimJob *job);
void sim__kernel_add_start_factor    (SimSimulation *sim, SimSpeedFunc func, gpointer data);
void sim__kernel_add_capacity_factor (SimSimulation *sim, SimSpeedFunc func, gpointer data);

/* ------------------------------------------------------------------------- */
/* Services.                                                                 */

/* The run's objects (borrowed). */
const SimScenario *sim__kernel_get_scenario  (SimSimulation *sim);
const SimCatalogue *sim__kernel_get_catalogue (SimSimulation *sim);
SimCluster        *sim__kernel_get_cluster   (SimSimulation *sim);
struct _SimTopology *sim__kernel_get_topology (SimSimulation *sim);
GPtrArray         *sim__kernel_get_queue     (SimSimulation *sim);
SimTime            sim__kernel_now           (SimSimulation *sim);
/* Whether the run has started (and perhaps ended). */
gboolean           sim__kernel_has_started   (SimSimulation *sim);
/* Whether the run has started and not yet ended. */
gboolean           sim__kernel_is_live       (SimSimulation *sim);
/* Whether nothing is left to do (no job running, waiting or to come) in a
 * run without a horizon: timers and module events due then do nothing. */
gboolean           sim__kernel_is_over       (SimSimulation *sim);

/* Claims @n of every job's slots (SimJob.ext, zero when a job arrives) for
 * a module's own figures of the job; returns the first.  Only before the
 * run starts; a programming error past SIM_JOB_N_SLOTS in all. */
guint    sim__kernel_claim_job_slots (SimSimulation *sim, guint n);

/* An extension: a module's state, under its own @key (the address of a
 * static of the module), freed with @destroy when the simulation is. */
void     sim__kernel_set_extension (SimSimulation *sim, gconstpointer key, gpointer state,
                                    GDestroyNotify destroy);
gpointer sim__kernel_get_extension (SimSimulation *sim, gconstpointer key);

/* A change of state outside the kernel's own events (a cap set by a
 * policy): begin brings the accumulators up to @now, end notes the new
 * state and calls the watches.  Outside a live run both do nothing. */
void sim__kernel_change_begin (SimSimulation *sim, SimTime now);
void sim__kernel_change_end   (SimSimulation *sim);

/* Timers: @func is called at simulated time @when (not before now), as an
 * event of its own, after the accumulators were brought up to @when; the
 * state is noted (and the watches called) after it returns.  Returns an id
 * for sim__kernel_cancel_timer(), or 0 if @when is past.  Without a
 * horizon, a timer due once the run is over does not fire. */
typedef void (*SimTimerFunc) (SimSimulation *sim, SimTime now, gpointer user_data);
guint64  sim__kernel_add_timer    (SimSimulation *sim, SimTime when, SimTimerFunc func,
                                   gpointer user_data);
gboolean sim__kernel_cancel_timer (SimSimulation *sim, guint64 timer);

/* Events of a module's own kind (an engine event: sim-engine.h), for what
 * a timer does not cover: a tag to recognise stale events, a target and an
 * argument.  The handler decides whether it changes the state (and then
 * brackets the change itself). */
guint32 sim__kernel_add_event_kind (SimSimulation *sim, SimEventHandler handler, gpointer data);
SimEventId sim__kernel_schedule (SimSimulation *sim, SimTime when, guint32 kind, guint32 tag,
                                 gpointer target, guint64 arg);

/* Moves the running jobs on GPU @gpu (or on the GPUs whose @changed byte is
 * set, one per GPU of the cluster) to the speed their factors give now,
 * exactly (progress up to date, completions rescheduled), in start order;
 * each job once. */
void sim__kernel_rerate_gpu  (SimSimulation *sim, guint gpu, SimTime now);
void sim__kernel_rerate_gpus (SimSimulation *sim, const guint8 *changed, SimTime now);

/* The running jobs, in start order (borrowed; do not change it). */
GQueue  *sim__kernel_get_running   (SimSimulation *sim);
/* The run fails with @error (taken; the first failure is kept): the engine
 * stops and sim_simulation_run() returns it.  For a module that finds the
 * run cannot give a meaningful result, with the key at fault in @error. */
void     sim__kernel_fail          (SimSimulation *sim, GError *error);
/* Brings running @job's progress (work_left) up to now. */
void     sim__kernel_sync_job      (SimSimulation *sim, SimJob *job);
/* Takes running @job off its GPUs, as a preemption does (it owes @overhead
 * and @lost more work, @lost possibly negative when it gives back part of
 * an earlier overhead), and holds it out of the queue until
 * sim__kernel_release_job(); a job still held when the run ends is reported
 * unfinished.  A decision follows. */
void     sim__kernel_hold_job      (SimSimulation *sim, SimJob *job, SimTime overhead,
                                    SimTime lost);
/* Puts a held job in the queue; a decision follows. */
void     sim__kernel_release_job   (SimSimulation *sim, SimJob *job);
/* A claimed job that ran outside the cluster ends now: the accumulators are
 * told and the job is freed. */
void     sim__kernel_finish_outside (SimSimulation *sim, SimJob *job);
/* A module's own job (a serving replica) arrives now with @spec (its
 * submit time set to now): it queues and is placed under the policy as a
 * workload's job is, but no claim is asked and no communication profile
 * drawn for it.  Returns the job (the simulation's), or NULL when it can
 * never fit the cluster (it is then counted as rejected).  Only in a live
 * run. */
SimJob  *sim__kernel_submit_job    (SimSimulation *sim, const SimJobSpec *spec);
/* A running, waiting or held job leaves the run now without finishing:
 * its GPU time counts as that of a job still running at the end does, and
 * it is freed.  For a module's own jobs, which have no end of their own. */
void     sim__kernel_withdraw_job  (SimSimulation *sim, SimJob *job);
/* Asks for a scheduling decision (at the next tick of the scheduling cycle,
 * if any), for a module whose reasons to hold jobs may have gone. */
void     sim__kernel_request_decision (SimSimulation *sim);

/* Adds an accumulator (report/sim-metrics.h), owned by the simulation from
 * then on; only before the run starts. */
void     sim__kernel_add_accumulator (SimSimulation *sim, SimAccumulator *acc);
/* Asks for a last column @name in jobs.csv, @func giving its value. */
void     sim__kernel_set_job_column  (SimSimulation *sim, const char *name,
                                      SimJobWhereFunc func, gpointer data);
/* jobs.csv and timeseries.csv as the outputs module opened them (each
 * nullable), for the built-in metrics to write into; before the run starts. */
void     sim__kernel_set_record_streams (SimSimulation *sim, FILE *jobs, FILE *series);
/* The energy a job was charged with, J, for jobs.csv's `energy_kwh`
 * column (the power module answers; without it there is no column). */
void     sim__kernel_set_job_energy  (SimSimulation *sim, SimJobFigureFunc func, gpointer data);
/* Where a finished job ran (jobs.csv's `where` column). */
void     sim__kernel_set_job_where   (SimSimulation *sim, SimJobWhereFunc func, gpointer data);
/* A job was interrupted by a failure: counted in the time series' column
 * `interruptions` (which sim__kernel_count_interruptions() asks for). */
void     sim__kernel_count_interruptions (SimSimulation *sim);
void     sim__kernel_note_interruption (SimSimulation *sim);
/* Why a job's run ended early, for the timeline: a module that interrupts
 * jobs answers (NULL: preempted by the policy). */
typedef const char *(*SimCauseFunc) (gpointer data, const SimJob *job);
void        sim__kernel_set_cause_func (SimSimulation *sim, SimCauseFunc func, gpointer data);
const char *sim__kernel_interruption_cause (gpointer sim, const SimJob *job);

/* The same job's fabric figures, for the observation and nodes.csv: see
 * sim__job_comm_get_fabric_load().  Without a network all are 0 and it
 * returns FALSE. */
gboolean sim__kernel_get_fabric_load (SimSimulation *sim, double *max, double *mean,
                                      double *node_load, guint n_nodes);

/* A new simulation of @scenario with the modules whose flags are in @off
 * left off (a mask of SimPowerPolicyKind for the power policies): the
 * baseline a module is measured against. */
SimSimulation *sim__kernel_new (SimScenario *scenario, guint off, GError **error);

/* In @off: build the simulation without loading the scenario's [policy]
 * plugin, for validation.  A plugin is code that runs when it is loaded,
 * and checking a scenario must not run it: the plugin's file is checked to
 * be a regular file, a built-in FIFO first-fit policy stands in for it,
 * and the simulation refuses to run (SIM_ERROR_STATE).  Above the
 * SimPowerPolicyKind bits. */
#define SIM_KERNEL_NO_PLUGIN (1u << 16)

/* A FIFO policy with @placement, set up as the scenario's own policy is
 * (the cluster, its network, the workload's task classes, the seed) but
 * without the [policy] keys: for callers that place jobs themselves at a
 * pending decision (sim-rl-env.h). */
SimPolicy *sim__kernel_new_placement (SimSimulation *sim, const char *placement, GError **error);

/* For tests: the state kept incrementally (the compute and activity sums,
 * the GPUs allocated) against the same recomputed from the running jobs;
 * an error says what differs. */
gboolean sim__kernel_check_state (SimSimulation *sim, GError **error);

/* ------------------------------------------------------------------------- */
/* Readings other modules provide, found through the kernel so that their   */
/* users need not know which module answers.                                 */

/* Power readings (the power module answers; without it every figure is 0
 * and the functions return FALSE). */
typedef struct {
  gboolean (*power)        (gpointer data, double *it_w, double *facility_w);
  double   (*node_w)       (gpointer data, guint node);
  double   (*gpu_w)        (gpointer data, guint gpu);
  gboolean (*node_asleep)  (gpointer data, guint node);
} SimPowerReadings;
void     sim__kernel_set_power_readings (SimSimulation *sim, const SimPowerReadings *readings,
                                         gpointer data);
/* Whether a module answers the power readings (a [power] section). */
gboolean sim__kernel_has_power      (SimSimulation *sim);
gboolean sim__kernel_get_power      (SimSimulation *sim, double *it_w, double *facility_w);
double   sim__kernel_get_node_power (SimSimulation *sim, guint node);
double   sim__kernel_get_gpu_power  (SimSimulation *sim, guint gpu);
gboolean sim__kernel_node_asleep    (gpointer sim, guint node);

/* A job's activity on a whole GPU (sim-sharing.h), its default filled in:
 * its own figure, else its share of a fractional GPU, else 1. */
static inline double
sim__kernel_job_activity (const SimJob *job)
{
  if (job->spec.activity > 0)
    return job->spec.activity;
  if (job->spec.mig_profile == NULL && job->spec.gpu_milli < SIM_GPU_WHOLE)
    return job->spec.gpu_milli / (double) SIM_GPU_WHOLE;
  return 1.0;
}

G_END_DECLS

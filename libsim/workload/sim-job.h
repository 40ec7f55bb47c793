/* sim-job.h: a job inside the simulation.
 *
 * A job progresses as a fluid: it carries its remaining work in reference
 * nanoseconds (time on its reference GPUs, alone) and a rate (1.0 runs at
 * reference speed).  When the rate changes, the work done since the last
 * update is subtracted exactly and the completion event is rescheduled; the
 * stale completion is recognised by the job's version number.  Events thus
 * happen per start, finish or rate change, never per iteration.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib-object.h>
#include "core/sim-units.h"
#include "core/sim-engine.h"
#include "workload/sim-workload.h"

G_BEGIN_DECLS

/**
 * SimJobState:
 * @SIM_JOB_QUEUED: submitted, waiting for GPUs
 * @SIM_JOB_RUNNING: holding GPUs and progressing
 * @SIM_JOB_DONE: finished
 */
typedef enum {
  SIM_JOB_QUEUED,
  SIM_JOB_RUNNING,
  SIM_JOB_DONE,
} SimJobState;

/* Slots of a job that modules keep their own figures in (kernel/sim-kernel.h):
 * the power module's draw, energy and its time, the failure model's record. */
#define SIM_JOB_N_SLOTS 4

/**
 * SimJobSlot: (skip)
 *
 * One of a job's slots for the modules (private).
 */
typedef union {
  double   d;
  gint64   t;
  gpointer p;
} SimJobSlot;

/**
 * SimJob:
 * @spec: what the workload asked for, as the simulation settled it: a
 *   communication profile drawn from the mix, the GPUs a moldable job got
 *   when it started, the share of a GPU a MIG instance counts as
 * @state: where the job is
 * @start: when it started, or -1
 * @end: when it finished, or -1
 * @work_left: remaining work in reference nanoseconds, as of @last_update
 * @rate: progress per nanosecond of simulated time (1.0: reference speed)
 * @speed: its GPUs' speed against the workload's reference GPU (its class's
 *   measured throughput ratio on that model, else dense FP16/BF16 TFLOPS;
 *   the slowest of its GPUs), times its scaling on the GPUs it holds
 *   against the count its duration is measured at (sim-scaling.h), times
 *   its share of a shared GPU (a MIG instance's capacity, or time-sharing
 *   with other jobs: sim-sharing.h), while it runs
 * @last_update: when @work_left was last brought up to date
 * @version: bumped whenever the pending completion becomes stale
 * @queue_seq: arrival order in the queue (ties in every queue order)
 * @gpus: (array length=n_gpus): the GPUs it holds, by cluster index
 * @n_gpus: number of entries in @gpus
 * @n_nodes: nodes its GPUs span
 * @policy_data: for the scheduling policy's own use
 * @executed: time it has spent running, over all its runs, as of @last_update
 * @attained: GPU-seconds of service it has received, as of @last_update
 *   (what least-attained-service orders sort by)
 * @n_preemptions: how often it has been preempted
 * @first_start: when it first started, or -1
 * @mig_start: for a MIG job while it runs, the start slice of its instance
 *
 * The simulation owns jobs; policies see them as (transfer none).  A job
 * of the simulation is reference-counted: whoever keeps it past the call
 * it was given in (a binding's wrapper) takes a reference
 * (sim_job_ref()), and the job stays readable, as it was when the
 * simulation last changed it, after it has finished or the simulation is
 * gone.
 */
typedef struct _SimJob {
  SimJobSpec  spec;
  SimJobState state;
  SimTime     start;
  SimTime     end;
  SimTime     work_left;
  double      rate;
  double      speed;
  SimTime     last_update;
  guint32     version;
  guint64     queue_seq;
  guint32    *gpus;
  guint32     n_gpus;
  guint32     n_nodes;
  gpointer    policy_data;
  SimTime     executed;
  double      attained;
  guint32     n_preemptions;
  SimTime     first_start;
  gint32      mig_start;
  /*< private >*/
  GList       running_link;
  guint64     run_seq;      /* its place in the running queue: the order of starts */
  gpointer    comm_state;   /* the collectives it has registered, while running */
  SimEventId  completion;   /* its pending completion event, cancelled when it moves */
  guint64     start_pass;   /* the decision pass that last started it */
  double      share;        /* the shared-GPU factor in @speed (1: not slowed by sharing) */
  double      active_gpus;  /* the GPUs it keeps busy now, as counted in the activity metric */
  double      computing;    /* its GPUs x thousandths x the share of its time it computes
                             * (rate / speed), as counted in the compute metric */
  SimJobSlot  ext[SIM_JOB_N_SLOTS]; /* the modules' own figures of the job, in the slots
                                     * each claimed from the kernel */
  gint        ref_count;    /* 0: not the simulation's (a caller's, on its stack) */
} SimJob;

/**
 * SIM_TYPE_JOB:
 *
 * The boxed type of #SimJob: a copy of the simulation's job is a new
 * reference to it (sim_job_ref()).
 */
#define SIM_TYPE_JOB (sim_job_get_type ())
GType sim_job_get_type (void) G_GNUC_CONST;

/**
 * sim_job_ref:
 * @job: a job
 *
 * A job of the simulation gets one more reference, and is returned; any
 * other job (one a caller filled in itself) is copied, with its own @gpus,
 * and the copy returned.
 *
 * Returns: (transfer full): @job or its copy; drop it with sim_job_unref().
 */
SimJob *sim_job_ref (SimJob *job);

/**
 * sim_job_unref:
 * @job: (transfer full) (nullable): a job from sim_job_ref()
 *
 * Drops a reference; the last one frees the job.
 */
void    sim_job_unref (SimJob *job);

G_END_DECLS

/* sim-kernel-private.h: the simulation object, for the kernel and the
 * facade that builds it (not installed; modules use sim-kernel.h only). */
#pragma once

#include "kernel/sim-kernel.h"
#include "core/sim-rng.h"
#include "fabric/sim-job-comm.h"
#include "sched/sim-policy-private.h"
#include "kernel/sim-class-scaling.h"
#include "workload/sim-workload-private.h"
#include "cluster/sim-cluster-private.h"
#include "scenario/sim-scenario-private.h"

#include <math.h>

G_BEGIN_DECLS

/* One connected callback. */
typedef struct {
  GCallback func;
  gpointer  data;
} SimHookSlot;

/* A module's state (sim__kernel_set_extension()). */
typedef struct {
  gconstpointer  key;
  gpointer       state;
  GDestroyNotify destroy;
} SimExtension;

struct _SimSimulation {
  GObject        parent_instance;

  SimScenario   *scenario;
  SimCatalogue  *catalogue;
  SimCluster    *cluster;
  SimWorkload   *workload;
  SimPolicy     *policy;
  SimEngine     *engine;
  SimTopology   *topology;    /* NULL without a [fabric] section */
  SimJobComm    *comm;        /* running jobs' collectives on the topology's shared links */
  SimRng        *comm_rng;    /* draws communication profiles from the mix */
  double         comm_mix_total;
  SimClassScaling *scaling;   /* the classes' speed-ups and throughputs; NULL for traces */
  double         computing_milli; /* sum over running jobs of GPUs x thousandths x the
                                   * share of time they compute */
  guint64        pass;        /* decision passes so far */
  SimTime        pass_time;   /* the instant of the last pass */
  guint          passes_now;  /* passes at that instant */
  guint32        k_arrival, k_complete, k_decide, k_sample, k_wake, k_timer;

  SimMetrics     metrics;     /* the built-in metrics, the first accumulator */
  SimState       state;       /* what holds since the last change, for the accumulators */
  GPtrArray     *accumulators; /* SimAccumulator*, told of the state and of job events */
  guint64        samples;     /* time-series events (not counted as the run's events) */
  GPtrArray     *queue;       /* SimJob*, in the policy's queue order */
  GQueue         running;     /* SimJob*, in start order (links inside the jobs) */
  guint64        run_seq;     /* starts so far: SimJob.run_seq of the last */
  GPtrArray     *requeue;     /* jobs preempted in this pass */
  GPtrArray     *held;        /* jobs a module holds out of the queue */
  gboolean       preempted_in_pass;
  guint64        next_queue_seq;

  SimJobSpec     next;        /* the next arrival, if have_next */
  gboolean       have_next;
  gboolean       decide_pending;
  gboolean       pause_at_decision;
  gboolean       decision_pending; /* stopped between a decision's begin and its pass */
  SimSchedContext decision;        /* the decision being made */
  gboolean       started;
  gboolean       finished;
  gboolean       finishing;   /* inside finish(): the report is being made */
  gboolean       plugin_unloaded; /* built with SIM_KERNEL_NO_PLUGIN: a stand-in policy */
  gboolean       force;       /* run even past the size limits */
  SimTime        last_activity;
  GError        *error;       /* a failure inside a handler */
  SimReport     *report;
  FILE          *jobs_out;    /* (nullable) jobs.csv and timeseries.csv as the outputs */
  FILE          *series_out;  /*   module opened them, for the built-in metrics */

  SimProgressFunc progress;
  gpointer        progress_data;
  GDestroyNotify  progress_destroy;
  guint64         progress_next;

  SimJobObserver  observer;
  gpointer        observer_data;
  GDestroyNotify  observer_destroy;

  /* Shared GPUs (sim-sharing.h). */
  GPtrArray     **sharers;    /* per GPU: the running time-sharing jobs on it, or NULL */
  double         *demand;     /* per GPU: their summed activity */
  double          active_gpus; /* sum over running jobs of the GPUs they keep busy */

  /* What modules attached (sim-kernel.h). */
  GArray         *hooks[SIM_N_HOOKS]; /* SimHookSlot */
  GArray         *gates;      /* SimHookSlot, func the admit; then pass_end in gate_ends */
  GArray         *gate_ends;  /* SimHookSlot */
  GArray         *claims;     /* SimHookSlot */
  GArray         *start_factors;    /* SimHookSlot */
  GArray         *capacity_factors; /* SimHookSlot */
  GArray         *extensions; /* SimExtension */
  const SimPowerReadings *readings;
  gpointer        readings_data;
  SimCauseFunc    cause;
  gpointer        cause_data;
  gboolean        in_watch;
  guint           n_job_slots; /* of SimJob.ext, claimed so far */
  guint          *stop_nodes; /* the nodes of a stopping job's GPUs (prefetch_job()) */
  guint           n_stop_nodes;
  GArray         *timers;     /* Timer, by index; free ones chained through next_free */
  guint           free_timer; /* first free slot + 1; 0: none */
};

/* Calls every callback connected to HOOK, as TYPE, with ARGS after its
 * data.  No allocation, no marshalling: a loop over a small array. */
#define SIM__EMIT(self, hook, type, ...)                                           \
  G_STMT_START {                                                              \
    GArray *_h = (self)->hooks[hook];                                         \
    for (guint _i = 0; _i < _h->len; _i++)                                    \
      {                                                                       \
        const SimHookSlot *_s = &g_array_index (_h, SimHookSlot, _i);         \
        ((type) _s->func) (_s->data, __VA_ARGS__);                            \
      }                                                                       \
  } G_STMT_END

/* The product of FACTORS for JOB (1 with none).  One factor, the usual
 * case, is returned as it is (1.0 x f is f, to the last bit). */
static inline double
sim__kernel_compose (GArray *factors, const SimJob *job)
{
  const SimHookSlot *s = (const SimHookSlot *) (void *) factors->data;
  double v = 1.0;

  if (G_LIKELY (factors->len == 1))
    return ((SimSpeedFunc) s->func) (s->data, job);
  for (guint i = 0; i < factors->len; i++)
    {
      const SimHookSlot *s = &g_array_index (factors, SimHookSlot, i);
      v *= ((SimSpeedFunc) s->func) (s->data, job);
    }
  return v;
}


/* Brings a running job's progress up to date at NOW. */
static inline void
sim__kernel_update_progress (SimJob *job, SimTime now)
{
  SimTime dt = now - job->last_update;

  if (dt <= 0)
    return;
  job->work_left -= MIN (job->work_left, (SimTime) llround ((double) dt * job->rate));
  job->executed += dt;
  job->attained += sim_time_to_seconds (dt) * job->n_gpus * (job->spec.gpu_milli / 1000.0);
  job->last_update = now;
}

/* A job that time-shares its one GPU with others (a fractional request). */
static inline gboolean
sim__kernel_job_time_shares (const SimJob *job)
{
  return job->spec.mig_profile == NULL && job->spec.gpu_milli < SIM_GPU_WHOLE && job->n_gpus == 1;
}

/* Rates (sim-kernel-rates.c): a job's completion from its rate, its share
 * of shared GPUs, its parts of the compute and activity metrics, and the
 * rates the network's shares give. */
void   sim__kernel_schedule_completion (SimSimulation *self, SimJob *job, SimTime now);
double sim__kernel_share_speed         (SimSimulation *self, const SimJob *job);
void   sim__kernel_share_join          (SimSimulation *self, SimJob *job, int sign);
void   sim__kernel_share_refresh       (SimSimulation *self, guint g, SimTime now);
void   sim__kernel_account_computing   (SimSimulation *self, SimJob *job);
void   sim__kernel_account_activity    (SimSimulation *self, SimJob *job);
void   sim__kernel_refresh_rates       (SimSimulation *self, SimTime now);

/* The kernel's side of construction and of the run, for the facade
 * (sim-simulation.c). */
void     sim__kernel_init      (SimSimulation *self);
void     sim__kernel_finalize  (SimSimulation *self);
gboolean sim__kernel_advance   (SimSimulation *self, SimTime limit, gboolean pause,
                                gboolean *stopped, GError **error);
gboolean sim__kernel_decide    (SimSimulation *self, gboolean run_policy, GError **error);
void     sim__kernel_abandon   (SimSimulation *self);
void     sim__kernel_setup_engine (SimSimulation *self);
/* FALSE if the node's availability did not change. */
gboolean sim__kernel_set_node_available (SimSimulation *self, guint node, gboolean available);
GError  *sim__kernel_too_big (SimSimulation *self, const char *group, const char *key,
                              const char *format, ...) G_GNUC_PRINTF (4, 5);

G_END_DECLS

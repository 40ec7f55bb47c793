/* sim-simulation.c: wiring the engine, the cluster, the workload and the
 * policy together for one run. */
#include "config.h"

#include "sim-simulation.h"
#include "sim-error.h"
#include "sim-util.h"
#include "core/sim-engine.h"
#include "core/sim-rng.h"
#include "fabric/sim-collective.h"
#include "fabric/sim-job-comm.h"
#include "failures/sim-failures.h"
#include "power/sim-elastic.h"
#include "power/sim-cost-private.h"
#include "power/sim-power.h"
#include "power/sim-cooling.h"
#include "power/sim-energy.h"
#include "power/sim-power-policy.h"
#include "report/sim-metrics.h"
#include "report/sim-diagram.h"
#include "report/sim-run-records.h"
#include "sched/sim-policy-private.h"
#include "sched/sim-plugin.h"
#include "workload/sim-sources.h"
#include "sim-scenario-private.h"
#include "cluster/sim-cluster-private.h"
#include "workload/sim-workload-private.h"

#include <glib/gstdio.h>
#include <errno.h>
#include <math.h>
#include <string.h>

/* Decision passes allowed at one instant before a policy is declared
 * livelocked (each pass that preempts asks for another at the same time;
 * a legitimate cascade is bounded by the jobs involved). */
#define MAX_PASSES_AT_ONE_INSTANT 100000u

/* How often (in events) the progress function is called. */
#define PROGRESS_EVERY 16384

/* A class's scaling, ready for the hot path: its speed-up cached for
 * every GPU count its jobs can hold, its throughput table resolved to
 * catalogue models, and, for a moldable class, the most GPUs the
 * efficiency rule lets a job ask for. */
typedef struct {
  const SimJobClassConfig *config;
  double  *speedup;           /* [n] for n = 0 .. max_n; [0] unused */
  guint    max_n;
  const SimGpuModel *thr_models[SIM_THROUGHPUT_MAX_MODELS];
  double   thr_reference;     /* throughput on the reference model; 0: no table */
  guint32  moldable_cap;      /* 0: not moldable */
} ClassScaling;

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
  double         computing_milli; /* sum over running jobs of GPUs x thousandths x the
                                   * share of time they compute */
  double         reference_tflops; /* the reference GPU's; 0: every GPU runs at speed 1 */
  const SimGpuModel *reference_model; /* (nullable) the reference GPU */
  ClassScaling  *class_scaling; /* per synthetic class; NULL for traces */
  guint          n_class_scaling;
  guint64        pass;        /* decision passes so far */
  SimTime        pass_time;   /* the instant of the last pass */
  guint          passes_now;  /* passes at that instant */
  guint32        k_arrival, k_complete, k_decide, k_sample, k_wake;

  SimMetrics     metrics;     /* the built-in metrics, the first accumulator */
  SimState       state;       /* what holds since the last change, for the accumulators */
  GPtrArray     *accumulators; /* SimAccumulator*, told of the state and of job events */
  SimElastic    *elastic;     /* (nullable) bursting and serverless functions, an accumulator */
  guint64        samples;     /* time-series events (not counted as the run's events) */
  GPtrArray     *queue;       /* SimJob*, in the policy's queue order */
  GQueue         running;     /* SimJob*, in start order (links inside the jobs) */
  guint64        run_seq;     /* starts so far: SimJob.run_seq of the last */
  GPtrArray     *requeue;     /* jobs preempted in this pass */
  GPtrArray     *held;        /* jobs a failure interrupted, waiting for its detection */
  SimFailures   *failures;    /* (nullable) the [failures] model, among accumulators */
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
  gboolean       force;       /* run even past the size limits */
  SimTime        last_activity;
  GError        *error;       /* a failure inside a handler */

  char          *output_dir;
  SimAtomicFile *jobs_file;
  SimAtomicFile *series_file;
  SimAtomicFile *nodes_file;    /* nodes.csv (report/sim-run-records.h) */
  SimAtomicFile *timeline_file; /* sim_simulation_set_timeline() */
  SimAccumulator *node_usage;   /* owned by accumulators */
  SimAccumulator *timeline;     /* owned by accumulators */
  SimReport     *report;

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

  /* Power (power/sim-power.h). */
  SimPower       *power;      /* always there: caps and activity per GPU */
  SimCooling     *cooling;    /* NULL without a [cooling] section */
  SimAccumulator *cost;       /* the [cost] section's accumulator, among accumulators; or NULL */
  guint32         k_weather, k_nap;
  SimTime        *idle_since; /* per node: when it last became idle, or -1 (busy); with sleep */
  guint32        *nap_tag;    /* per node: the version of its pending nap */
  GArray         *watches;    /* PowerWatch */
  gboolean        in_watch;
  GArray         *timers;     /* Timer, by index; free ones chained through next_free */
  /* The power policies' hold on starts (power/sim-facility-limit.h). */
  SimStartGateFunc gate;
  SimPassEndFunc   gate_pass_end;
  gpointer         gate_data;
  guint           free_timer; /* first free slot + 1; 0: none */
  guint32         k_timer;
};

typedef struct {
  SimPowerWatchFunc func;
  gpointer          data;
} PowerWatch;

typedef struct {
  SimTimerFunc func;
  gpointer     data;
  SimEventId   id;
  guint        next_free;
} Timer;

G_DEFINE_FINAL_TYPE (SimSimulation, sim_simulation, G_TYPE_OBJECT)

static GError *too_big (SimSimulation *self, const char *group, const char *key,
                        const char *format, ...) G_GNUC_PRINTF (4, 5);
static void class_scaling_free (SimSimulation *self);
static gboolean has_measured_curve (SimSimulation *self, const SimJob *job);
static void mold_request (SimSimulation *self, SimJob *job);

static void
free_job (SimJob *job)
{
  sim__job_comm_forget (job);
  g_free (job->gpus);
  g_free (job);
}

static void
sim_simulation_finalize (GObject *object)
{
  SimSimulation *self = SIM_SIMULATION (object);

  if (self->progress_destroy)
    self->progress_destroy (self->progress_data);
  if (self->observer_destroy)
    self->observer_destroy (self->observer_data);
  /* Jobs still queued or running when the run ended (or was abandoned).
   * Abandoned with a decision pending, a job started in it is still in the
   * queue as well as running, and a preempted one waits in requeue. */
  for (guint i = 0; i < self->queue->len; i++)
    if (((SimJob *) self->queue->pdata[i])->state != SIM_JOB_RUNNING)
      free_job (self->queue->pdata[i]);
  g_ptr_array_unref (self->queue);
  for (guint i = 0; i < self->requeue->len; i++)
    if (((SimJob *) self->requeue->pdata[i])->state == SIM_JOB_QUEUED)
      free_job (self->requeue->pdata[i]);
  for (guint i = 0; i < self->held->len; i++)
    free_job (self->held->pdata[i]);
  g_ptr_array_unref (self->held);
  g_clear_pointer (&self->decision.running, g_ptr_array_unref);
  while (self->running.head != NULL)
    {
      SimJob *job = self->running.head->data;
      g_queue_unlink (&self->running, &job->running_link);
      free_job (job);
    }
  g_ptr_array_unref (self->requeue);
  g_ptr_array_unref (self->accumulators);
  sim__metrics_clear (&self->metrics);
  g_clear_pointer (&self->report, sim_report_unref);
  g_clear_pointer (&self->jobs_file, sim__atomic_file_free);
  g_clear_pointer (&self->series_file, sim__atomic_file_free);
  g_clear_pointer (&self->nodes_file, sim__atomic_file_free);
  g_clear_pointer (&self->timeline_file, sim__atomic_file_free);
  g_free (self->output_dir);
  g_clear_error (&self->error);
  g_clear_object (&self->policy);
  g_clear_pointer (&self->engine, sim_engine_free);
  class_scaling_free (self);
  g_clear_pointer (&self->comm, sim__job_comm_free);
  g_clear_pointer (&self->topology, sim_topology_free);
  g_clear_pointer (&self->comm_rng, sim_rng_free);
  g_clear_pointer (&self->workload, sim_workload_free);
  if (self->sharers != NULL)
    for (guint g = 0; g < sim_cluster_get_n_gpus (self->cluster); g++)
      g_clear_pointer (&self->sharers[g], g_ptr_array_unref);
  g_clear_pointer (&self->sharers, g_free);
  g_clear_pointer (&self->demand, g_free);
  g_clear_pointer (&self->power, sim__power_free);
  g_clear_pointer (&self->cooling, sim__cooling_free);
  g_clear_pointer (&self->idle_since, g_free);
  g_clear_pointer (&self->nap_tag, g_free);
  g_clear_pointer (&self->watches, g_array_unref);
  g_clear_pointer (&self->timers, g_array_unref);
  g_clear_pointer (&self->cluster, sim_cluster_free);
  g_clear_pointer (&self->catalogue, sim_catalogue_free);
  g_clear_pointer (&self->scenario, sim_scenario_unref);
  G_OBJECT_CLASS (sim_simulation_parent_class)->finalize (object);
}

static void
sim_simulation_class_init (SimSimulationClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sim_simulation_finalize;
}

static void
free_accumulator (gpointer acc)
{
  ((SimAccumulator *) acc)->vtable->free (acc);
}

static void
sim_simulation_init (SimSimulation *self)
{
  self->queue = g_ptr_array_new ();
  g_queue_init (&self->running);
  self->requeue = g_ptr_array_new ();
  self->held = g_ptr_array_new ();
  sim__metrics_init (&self->metrics, 0, NULL, NULL);
  self->accumulators = g_ptr_array_new_with_free_func (free_accumulator);
  self->watches = g_array_new (FALSE, FALSE, sizeof (PowerWatch));
  self->timers = g_array_new (FALSE, FALSE, sizeof (Timer));
  g_ptr_array_add (self->accumulators, sim__metrics_accumulator_new (&self->metrics));
}

/* ------------------------------------------------------------------------- */
/* Event handlers.                                                           */

static void
fail (SimSimulation *self, GError *error)
{
  if (self->error == NULL)
    self->error = error;
  else
    g_error_free (error);
  sim_engine_stop (self->engine);
}

/* The first multiple of PERIOD at or after NOW (NOW without a period). */
static SimTime
next_multiple (SimTime now, SimTime period)
{
  if (period <= 0 || now % period == 0)
    return now;
  if (now > G_MAXINT64 - period)
    return SIM_TIME_NEVER;
  return (now / period + 1) * period;
}

/* Decisions come at once, or with a scheduling cycle ([policy] interval,
 * and backfill_interval for easy) at the next tick of either, as a batch
 * scheduler such as Slurm decides on its main and backfill cycles. */
static void
request_decision (SimSimulation *self)
{
  const SimScenario *sc = self->scenario;
  SimTime now = sim_engine_now (self->engine), at = now;

  if (self->decide_pending)
    return;
  at = next_multiple (now, sc->sched_interval);
  if (sc->backfill_interval > 0)
    at = MIN (at, next_multiple (now, sc->backfill_interval));
  if (at == SIM_TIME_NEVER)
    return;
  self->decide_pending = TRUE;
  sim_engine_schedule (self->engine, at, self->k_decide, 0, NULL, 0);
}

static void note_power (SimSimulation *self);

/* The state that holds until the next event, for the metrics. */
static void
note_state (SimSimulation *self)
{
  self->state.allocated_milli = sim_cluster_get_allocated_milli (self->cluster);
  self->state.cloud_milli = self->elastic != NULL ? sim__elastic_cloud_milli (self->elastic) : 0;
  self->state.computing_milli = self->computing_milli;
  self->state.active_gpus = self->active_gpus;
  self->state.queued = self->queue->len;
  self->state.running = self->running.length;
  self->state.fragmented = 0;
  if (self->queue->len > 0)
    {
      const SimJob *head = self->queue->pdata[0];
      self->state.fragmented = sim_cluster_fragmented_gpus (self->cluster,
                                                                sim_job_get_min_gpus (head));
    }
  if (self->scenario->power.enabled)
    note_power (self);
  if (self->watches->len > 0 && !self->in_watch)
    {
      /* The watches see the state as it now is; what they change is noted
       * by the calls they make, without calling them again. */
      SimTime now = sim_engine_now (self->engine);
      self->in_watch = TRUE;
      for (guint i = 0; i < self->watches->len; i++)
        {
          const PowerWatch *w = &g_array_index (self->watches, PowerWatch, i);
          w->func (self, now, w->data);
        }
      self->in_watch = FALSE;
    }
}

/* Between an arrival or a completion and the decision that follows it:
 * without a scheduling cycle the decision comes at the same instant and
 * notes the state; with one, time passes first, so the state is noted now. */
static void
note_state_before_decision (SimSimulation *self)
{
  if (self->scenario->sched_interval > 0 || self->scenario->backfill_interval > 0)
    note_state (self);
}

static void
report_progress (SimSimulation *self)
{
  double fraction = -1;
  SimTime now = sim_engine_now (self->engine);

  if (self->scenario->horizon != SIM_TIME_NEVER && self->scenario->horizon > 0)
    fraction = (double) now / (double) self->scenario->horizon;
  else if (sim__source_job_limit (self->scenario) > 0)
    fraction = (double) self->metrics.completed / (double) sim__source_job_limit (self->scenario);
  self->progress (self, CLAMP (fraction, -1, 1), now, self->metrics.completed,
                  self->progress_data);
}

/* Every accumulator integrates the state held until NOW. */
static void
accumulate_time (SimSimulation *self, SimTime now)
{
  for (guint i = 0; i < self->accumulators->len; i++)
    {
      SimAccumulator *acc = self->accumulators->pdata[i];
      acc->vtable->advance (acc, &self->state, now);
    }
}

/* Every accumulator is told of EVENT to JOB. */
static void
accumulate_job (SimSimulation *self, SimJobEvent event, const SimJob *job, SimTime now)
{
  const char *class_name = event == SIM_JOB_FINISHED
                             ? sim_workload_get_class_name (self->workload, job->spec.job_class)
                             : NULL;

  for (guint i = 0; i < self->accumulators->len; i++)
    {
      SimAccumulator *acc = self->accumulators->pdata[i];
      acc->vtable->job_event (acc, event, job, class_name, now);
    }
}

/* The power drawn from now on, for the accumulators (power/sim-power.h):
 * IT, cooling and the facility's total. */
static void
note_power (SimSimulation *self)
{
  double it = sim__power_it_w (self->power), cooling = 0;
  gboolean economizer = FALSE;

  if (self->cooling != NULL)
    cooling = sim__cooling_power (self->cooling, it, &economizer);
  self->state.it_power_w = it;
  self->state.gpu_power_w = sim__power_gpus_w (self->power);
  self->state.economizer = economizer;
  self->state.cooling_power_w = cooling;
  self->state.facility_power_w = (it + cooling) / self->scenario->power.electrical_efficiency;
}

static inline void
tick (SimSimulation *self, SimTime now)
{
  accumulate_time (self, now);
  if (self->progress != NULL && sim_engine_dispatched (self->engine) >= self->progress_next)
    {
      self->progress_next = sim_engine_dispatched (self->engine) + PROGRESS_EVERY;
      report_progress (self);
    }
}

/* Reads the next job from the workload and schedules its arrival. */
static void
pull_next (SimSimulation *self)
{
  GError *error = NULL;

  self->have_next = sim_workload_next (self->workload, &self->next, &error);
  if (error != NULL)
    {
      fail (self, error);
      return;
    }
  if (!self->have_next)
    {
      /* A trace that gives no job at all is a mistake, not an empty run. */
      if (self->workload->produced == 0 && sim__source_info (self->scenario->source)->is_trace)
        fail (self, sim__workload_no_jobs_error (self->workload));
      return;
    }
  if (self->next.submit < sim_engine_now (self->engine))
    {
      fail (self, g_error_new (SIM_ERROR, SIM_ERROR_TRACE,
                               "%s: job %" G_GUINT64_FORMAT " is submitted at %.3f s, before the "
                               "simulation's start",
                               self->workload->description, self->next.id,
                               sim_time_to_seconds (self->next.submit)));
      self->have_next = FALSE;
      return;
    }
  if (self->scenario->horizon != SIM_TIME_NEVER && self->next.submit > self->scenario->horizon)
    {
      self->have_next = FALSE;
      return;
    }
  sim_engine_schedule (self->engine, self->next.submit, self->k_arrival, 0, NULL, 0);
}

static gboolean
can_ever_fit (SimSimulation *self, const SimJobSpec *spec)
{
  /* A moldable job can run if its smallest size can. */
  if (spec->gpus_min > 0 && spec->gpus_min < spec->gpus)
    {
      SimJobSpec smallest = *spec;
      smallest.gpus = spec->gpus_min;
      smallest.gpus_min = 0;
      return can_ever_fit (self, &smallest);
    }
  if (spec->gpus == 0 || spec->gpu_milli == 0 || spec->gpu_milli > SIM_GPU_WHOLE)
    return FALSE;
  if (spec->gpu_milli < SIM_GPU_WHOLE && spec->gpus != 1)
    return FALSE;
  if (spec->mig_profile != NULL)
    {
      /* Some pool's GPU model must have the profile. */
      if (spec->gpus != 1)
        return FALSE;
      for (guint p = 0; p < sim_cluster_get_n_pools (self->cluster); p++)
        {
          const SimPool *pool = sim_cluster_get_pool (self->cluster, p);
          if (sim_mig_lookup_profile (pool->gpu_model, spec->mig_profile) >= 0 &&
              sim_cluster_node_allows (self->cluster, pool->first_node, spec->gpu_models))
            return TRUE;
        }
      return FALSE;
    }
  if (spec->gpu_models != NULL)
    {
      /* GPUs of an allowed model, counted pool by pool. */
      guint allowed = 0;
      for (guint p = 0; p < sim_cluster_get_n_pools (self->cluster); p++)
        {
          const SimPool *pool = sim_cluster_get_pool (self->cluster, p);
          if (sim_cluster_node_allows (self->cluster, pool->first_node, spec->gpu_models))
            allowed += pool->n_nodes * pool->gpus_per_node;
        }
      return spec->gpus <= allowed;
    }
  return spec->gpus <= sim_cluster_get_n_gpus (self->cluster);
}

/* Inserts JOB in queue order: after every job that does not come after it,
 * found by binary search, so that equal jobs keep their arrival order.  A
 * FIFO policy appends in O(1) compares. */
static void
enqueue (SimSimulation *self, SimJob *job)
{
  guint lo = 0, hi = self->queue->len;

  if (hi == 0 || sim_policy_compare (self->policy, self->queue->pdata[hi - 1], job) <= 0)
    {
      g_ptr_array_add (self->queue, job);
      return;
    }
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (sim_policy_compare (self->policy, self->queue->pdata[mid], job) <= 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  g_ptr_array_insert (self->queue, (gint) lo, job);
}

static void
on_arrival (SimEngine *engine, const SimEvent *ev, gpointer data)
{
  SimSimulation *self = data;
  SimJob *job;

  tick (self, ev->time);
  self->last_activity = ev->time;
  job = g_new0 (SimJob, 1);
  job->spec = self->next;
  job->state = SIM_JOB_QUEUED;
  job->start = job->end = job->first_start = -1;
  job->work_left = job->spec.duration;
  job->rate = 1.0;
  job->speed = 1.0;
  job->queue_seq = self->next_queue_seq++;
  job->running_link.data = job;
  if (job->spec.comm.iteration == 0 && self->scenario->n_comm_mix > 0 &&
      !has_measured_curve (self, job))
    {
      /* A job without a profile draws one from the mix. */
      double u = sim_rng_uniform (self->comm_rng) * self->comm_mix_total;
      guint k = 0;
      while (k + 1 < self->scenario->n_comm_mix && u >= self->scenario->comm_mix[k].share)
        u -= self->scenario->comm_mix[k++].share;
      job->spec.comm = self->scenario->comm_mix[k].profile;
    }
  if (job->spec.gpus_min > 0)
    mold_request (self, job);
  accumulate_job (self, SIM_JOB_SUBMITTED, job, ev->time);
  if (!self->force && self->metrics.submitted > SIM_LIMIT_JOBS)
    fail (self, too_big (self, "scenario", "horizon", "this run has simulated %.3g jobs",
                         (double) self->metrics.submitted));
  if (self->elastic != NULL && sim__elastic_take_job (self->elastic, job, ev->time))
    ; /* a serverless function: it runs outside the cluster */
  else if (can_ever_fit (self, &job->spec))
    {
      if (self->failures != NULL)
        sim__failures_job_arrived (self->failures, job);
      enqueue (self, job);
      note_state_before_decision (self);
      request_decision (self);
    }
  else
    {
      accumulate_job (self, SIM_JOB_REJECTED, job, ev->time);
      free_job (job);
    }
  pull_next (self);
}

/* The nodes JOB spans, with how many of its GPUs are on each, in the order
 * they first appear in its GPU list. */
typedef struct {
  guint node, gpus;
} NodeShare;

static GArray *
node_shares (SimSimulation *self, const SimJob *job)
{
  GArray *shares = g_array_new (FALSE, FALSE, sizeof (NodeShare));

  for (guint i = 0; i < job->n_gpus; i++)
    {
      guint node = sim_cluster_get_gpu (self->cluster, job->gpus[i])->node;
      guint k = 0;
      /* A node's GPUs usually come together: the last node first. */
      if (shares->len > 0 && g_array_index (shares, NodeShare, shares->len - 1).node == node)
        k = shares->len - 1;
      while (k < shares->len && g_array_index (shares, NodeShare, k).node != node)
        k++;
      if (k == shares->len)
        {
          NodeShare ns = { node, 0 };
          g_array_append_val (shares, ns);
        }
      g_array_index (shares, NodeShare, k).gpus++;
    }
  return shares;
}

typedef void (*NodeShareFunc) (SimSimulation *self, const SimJob *job, guint node, guint gpus);

static void
for_each_node (SimSimulation *self, const SimJob *job, NodeShareFunc func)
{
  g_autoptr(GArray) shares = node_shares (self, job);

  for (guint k = 0; k < shares->len; k++)
    func (self, job, g_array_index (shares, NodeShare, k).node,
          g_array_index (shares, NodeShare, k).gpus);
}

static void
count_node (SimSimulation *self, const SimJob *job, guint node, guint gpus)
{
  ((SimJob *) job)->n_nodes++;
}

static void
release_host (SimSimulation *self, const SimJob *job, guint node, guint gpus)
{
  guint64 cpu, mem;

  sim_job_host_share (job, gpus, &cpu, &mem);
  sim_cluster_release_host (self->cluster, node, cpu, mem);
}

/* Brings a running job's progress up to date at NOW. */
static void
update_progress (SimJob *job, SimTime now)
{
  SimTime dt = now - job->last_update;

  if (dt <= 0)
    return;
  job->work_left -= MIN (job->work_left, (SimTime) llround ((double) dt * job->rate));
  job->executed += dt;
  job->attained += sim_time_to_seconds (dt) * job->n_gpus * (job->spec.gpu_milli / 1000.0);
  job->last_update = now;
}

/* (Re)schedules a running job's completion from NOW at its rate.  The
 * previous completion event is cancelled, not left stale: a stale event
 * could outlive the job, which is freed when it ends. */
static void
schedule_completion (SimSimulation *self, SimJob *job, SimTime now)
{
  double left = ceil ((double) job->work_left / job->rate);

  sim_engine_cancel (self->engine, job->completion);
  job->completion = 0;
  /* A job that would end at or past the end of simulated time can never
   * finish: the run says so rather than leave it running for ever. */
  if (!(left < (double) (SIM_TIME_NEVER - now)))
    {
      fail (self, g_error_new (SIM_ERROR, SIM_ERROR_INVALID,
                               "job %" G_GUINT64_FORMAT " cannot finish: started or resumed at "
                               "%.3f s with %.6g s of work left at %.4g of its full speed, it "
                               "would end past the end of simulated time (%.0f s, about 292 "
                               "years, where 64-bit nanoseconds stop)",
                               job->spec.id, sim_time_to_seconds (now),
                               sim_time_to_seconds (job->work_left), job->rate,
                               sim_time_to_seconds (SIM_TIME_NEVER)));
      return;
    }
  job->completion = sim_engine_schedule (self->engine, now + (SimTime) left, self->k_complete,
                                         job->version, job, 0);
}

static gboolean job_time_shares (const SimJob *job);
static void power_busy (SimSimulation *self, const SimJob *job, double delta, int tenants);
static void power_node_load (SimSimulation *self, const SimJob *job);
static void node_idle (SimSimulation *self, const SimJob *job, SimTime now);
static void job_energy (SimSimulation *self, SimJob *job, SimTime now, gboolean running);
static SimTime wake_nodes (SimSimulation *self, const SimPlacement *placement);
static void share_join (SimSimulation *self, SimJob *job, int sign);
static void share_refresh (SimSimulation *self, guint g, SimTime now);

/* Gives back the GPUs JOB holds: its MIG instance, or its whole or
 * fractional GPUs. */
static void
release_gpus (SimSimulation *self, const SimJob *job)
{
  if (job->spec.mig_profile != NULL)
    {
      const SimNode *node = sim_cluster_get_node (self->cluster,
                                                  sim_cluster_get_gpu (self->cluster,
                                                                       job->gpus[0])->node);
      int profile = sim_mig_lookup_profile (node->gpu_model, job->spec.mig_profile);
      sim_cluster_mig_release (self->cluster, job->gpus[0], (guint) profile,
                               (guint) job->mig_start);
    }
  else
    sim_cluster_release (self->cluster, job->gpus, job->n_gpus, job->spec.gpu_milli);
}

/* Asks for the records a job's stop touches, its GPUs' and nodes' in the
 * cluster and the power model, all at once (a hint: on a large cluster
 * they were last touched long before, and their misses then overlap). */
static void
prefetch_job (SimSimulation *self, const SimJob *job)
{
  guint last = G_MAXUINT;

  for (guint i = 0; i < job->n_gpus; i++)
    {
      guint node = sim__cluster_node_of (self->cluster, job->gpus[i]);
      /* A node's records once (G_MAXUINT asks for none). */
      guint ask = node == last ? G_MAXUINT : node;
      sim__cluster_prefetch (self->cluster, job->gpus[i], ask);
      if (self->power != NULL)
        sim__power_prefetch (self->power, job->gpus[i], ask);
      last = node;
    }
}

/* Takes a running job off its GPUs (finished or preempted). */
static void
stop_job (SimSimulation *self, SimJob *job, SimTime now)
{
  prefetch_job (self, job);
  update_progress (job, now);
  release_gpus (self, job);
  if (job->spec.cpu_milli > 0 || job->spec.memory_bytes > 0)
    for_each_node (self, job, release_host);
  g_queue_unlink (&self->running, &job->running_link);
  self->computing_milli -= job->computing;
  job->computing = 0;
  power_busy (self, job, -job->active_gpus, -1);
  power_node_load (self, job);
  node_idle (self, job, now);
  self->active_gpus -= job->active_gpus;
  job->active_gpus = 0;
  job_energy (self, job, now, FALSE);
  job->version++;
  sim_engine_cancel (self->engine, job->completion);
  job->completion = 0;
  if (job_time_shares (job))
    {
      share_join (self, job, -1);
      share_refresh (self, job->gpus[0], now);
    }
  if (self->comm != NULL)
    sim__job_comm_release (self->comm, job);
}

/* ------------------------------------------------------------------------- */
/* Scaling curves and throughput per GPU model (sim-scaling.h).              */

/* JOB's class's scaling, or NULL (trace jobs, which have no curve). */
static const ClassScaling *
class_scaling_of (SimSimulation *self, const SimJob *job)
{
  if (job->spec.job_class >= self->n_class_scaling)
    return NULL;
  return &self->class_scaling[job->spec.job_class];
}

static double
cached_speedup (const ClassScaling *cs, guint n)
{
  return n <= cs->max_n ? cs->speedup[n] : sim_scaling_speedup (&cs->config->scaling, n);
}

/* Whether JOB's class speed-up is a measured curve (Amdahl or a table),
 * which already includes its communication. */
static gboolean
has_measured_curve (SimSimulation *self, const SimJob *job)
{
  const ClassScaling *cs = class_scaling_of (self, job);

  return cs != NULL && (cs->config->scaling.kind == SIM_SCALING_AMDAHL ||
                        cs->config->scaling.kind == SIM_SCALING_TABLE);
}

/* The GPU count JOB's duration is measured at: the class's reference_gpus,
 * else the most GPUs a job of a moldable class may take, else what the
 * job asks for. */
static guint
reference_count (const ClassScaling *cs, const SimJob *job)
{
  if (cs->config->reference_gpus > 0)
    return cs->config->reference_gpus;
  if (cs->config->gpus_min > 0)
    return cs->config->gpu_values[0];
  return job->spec.gpus;
}

/* The scaling factor of a job that runs on its GPUs: S(N) / S(N_ref), with
 * N the GPUs it holds (sim-scaling.h).  A rigid job measured at its own
 * count runs at 1, as it always did.  For scaling = comm (and linear) this
 * is the compute part, N / N_ref; the communication model then adds what
 * the collectives cost (sim__job_comm_rate()). */
static double
scaling_factor (SimSimulation *self, const SimJob *job)
{
  const ClassScaling *cs = class_scaling_of (self, job);
  guint ref;

  if (cs == NULL || job->spec.mig_profile != NULL)
    return 1.0;
  ref = reference_count (cs, job);
  if (job->n_gpus == ref)
    return 1.0;
  return cached_speedup (cs, job->n_gpus) / cached_speedup (cs, ref);
}

/* The speed of JOB on one GPU of MODEL against the reference GPU: its
 * class's measured throughput ratio when its table lists MODEL, else the
 * ratio of dense FP16 TFLOPS.  A GPU whose speed is not in the catalogue
 * counts as the reference's. */
static double
model_speed (SimSimulation *self, const SimJob *job, const SimGpuModel *model)
{
  const ClassScaling *cs = class_scaling_of (self, job);
  double t;

  if (cs != NULL && cs->thr_reference > 0 && model != NULL)
    for (guint k = 0; k < cs->config->throughput.n_models; k++)
      if (cs->thr_models[k] == model)
        return cs->config->throughput.throughput[k] / cs->thr_reference;
  t = model != NULL ? model->fp16_tflops : 0;
  return t > 0 ? t / self->reference_tflops : 1.0;
}

/* A moldable job arrives: under [policy] moldable_efficiency it asks for
 * no more GPUs than its class's cap (the policy then picks the largest
 * count from gpus_min up that fits when it starts the job). */
static void
mold_request (SimSimulation *self, SimJob *job)
{
  const ClassScaling *cs = class_scaling_of (self, job);

  if (cs != NULL && cs->moldable_cap > 0)
    job->spec.gpus = MAX (job->spec.gpus_min, MIN (job->spec.gpus, cs->moldable_cap));
}

/* The speed of JOB's GPUs against the reference GPU: the slowest of them
 * sets the pace of a synchronous job.  GPUs whose speed is not in the
 * catalogue count as the reference's. */
static double
gpu_speed (SimSimulation *self, const SimJob *job)
{
  double slowest = G_MAXDOUBLE;

  if (self->reference_tflops <= 0)
    return 1.0;
  for (guint i = 0; i < job->n_gpus; i++)
    {
      const SimNode *node = sim_cluster_get_node (self->cluster,
                                                  sim_cluster_get_gpu (self->cluster,
                                                                       job->gpus[i])->node);
      slowest = MIN (slowest, model_speed (self, job, node->gpu_model));
    }
  return slowest == G_MAXDOUBLE ? 1.0 : slowest;
}

/* ------------------------------------------------------------------------- */
/* Shared GPUs: MIG instances and time-sharing (the model is in             */
/* cluster/sim-sharing.h).                                                  */

/* The job's activity on a whole GPU, its default filled in. */
static double
job_activity (const SimJob *job)
{
  if (job->spec.activity > 0)
    return job->spec.activity;
  if (job->spec.mig_profile == NULL && job->spec.gpu_milli < SIM_GPU_WHOLE)
    return job->spec.gpu_milli / (double) SIM_GPU_WHOLE;
  return 1.0;
}

/* A job that time-shares its one GPU with others (a fractional request). */
static gboolean
job_time_shares (const SimJob *job)
{
  return job->spec.mig_profile == NULL && job->spec.gpu_milli < SIM_GPU_WHOLE && job->n_gpus == 1;
}

/* For a running MIG job: its GPU's model and its profile's index. */
static const SimGpuModel *
job_mig (SimSimulation *self, const SimJob *job, guint *profile)
{
  const SimNode *node = sim_cluster_get_node (self->cluster,
                                              sim_cluster_get_gpu (self->cluster,
                                                                   job->gpus[0])->node);
  *profile = (guint) sim_mig_lookup_profile (node->gpu_model, job->spec.mig_profile);
  return node->gpu_model;
}

/* The capacity C of what the job holds, against a whole GPU, and the share
 * of the GPU's SMs it holds. */
static void
job_holding (SimSimulation *self, const SimJob *job, double *capacity, double *sms)
{
  *capacity = *sms = 1.0;
  if (job->spec.mig_profile != NULL)
    {
      guint profile;
      const SimGpuModel *gpu = job_mig (self, job, &profile);
      *capacity = sim_mig_speed (gpu, profile, job->spec.memory_bound);
      *sms = sim_mig_compute_fraction (gpu, profile);
    }
}

/* How a GPU is shared: its pool's mode, or the cluster's. */
static SimSharingMode
gpu_sharing_mode (SimSimulation *self, guint gpu)
{
  guint pool = sim_cluster_get_node (self->cluster,
                                     sim_cluster_get_gpu (self->cluster, gpu)->node)->pool;

  if (pool < self->scenario->n_pools && self->scenario->pools[pool].sharing >= 0)
    return (SimSharingMode) self->scenario->pools[pool].sharing;
  return self->scenario->sharing.mode;
}

/* The speed s of JOB's work at its GPUs' clocks, against full clocks:
 * the slowest of its GPUs sets the pace (power/sim-power.h). */
static double
cap_speed (SimSimulation *self, const SimJob *job)
{
  double s = 1.0;

  if (!sim__power_any_slowed (self->power))
    return 1.0;
  for (guint i = 0; i < job->n_gpus; i++)
    s = MIN (s, sim_power_speed (sim__power_get_clock (self->power, job->gpus[i]),
                                 job->spec.memory_bound));
  return s;
}

/* The factor sharing and power caps put into a running job's speed:
 * min(1, C s / a) on a MIG instance, min(1, K s / D) on a time-shared GPU,
 * min(1, s / a) otherwise, s being its GPUs' speed at their clocks (a
 * capped or clock-limited GPU is, for the job, as a MIG instance of
 * capacity s: power/sim-power.h). */
static double
share_speed (SimSimulation *self, const SimJob *job)
{
  double s = cap_speed (self, job);

  if (job->spec.mig_profile != NULL)
    {
      double capacity, sms;
      job_holding (self, job, &capacity, &sms);
      return sim_sharing_mig_factor (job_activity (job), capacity * s);
    }
  if (job_time_shares (job) && self->sharers != NULL && self->sharers[job->gpus[0]] != NULL)
    {
      guint g = job->gpus[0];
      return sim_sharing_factor (self->demand[g],
                                 sim_sharing_capacity (&self->scenario->sharing,
                                                       gpu_sharing_mode (self, g),
                                                       self->sharers[g]->len) * s);
    }
  return s == 1.0 ? 1.0 : sim_sharing_mig_factor (job_activity (job), s);
}

/* Brings the activity metric's state up to date with JOB's rate: the GPUs
 * it keeps busy are n x (SM share held) x (busy share of what it holds),
 * the busy share being a / C x its sharing factor x the share of time it
 * computes rather than waits on the network. */
/* Brings JOB's part of the compute metric (GPUs x thousandths x the share
 * of its time it computes, rate / speed) up to date after its rate or
 * speed changed; the total is the sum of the running jobs' parts. */
static void
account_computing (SimSimulation *self, SimJob *job)
{
  double c = job->state == SIM_JOB_RUNNING && job->speed > 0
               ? job->n_gpus * (double) job->spec.gpu_milli * job->rate / job->speed : 0;

  self->computing_milli += c - job->computing;
  job->computing = c;
}

/* JOB's GPUs are kept DELTA more GPUs busy in all (shared equally), and
 * TENANTS more jobs hold each. */
static void
power_busy (SimSimulation *self, const SimJob *job, double delta, int tenants)
{
  double each = delta / job->n_gpus;
  double intensity = sim_power_intensity (job->spec.memory_bound,
                                          self->scenario->power.memory_power);

  for (guint i = 0; i < job->n_gpus; i++)
    sim__power_add_busy (self->power, job->gpus[i], each, intensity, tenants,
                         job->spec.gpu_milli);
}

/* The CPU reserved on the nodes JOB is on (a job with a CPU request), for
 * their CPUs' power (the GPUs held count in sim__power_add_busy()). */
static void
power_node_load (SimSimulation *self, const SimJob *job)
{
  guint last = G_MAXUINT;

  if (!self->scenario->power.enabled || job->spec.cpu_milli == 0)
    return;
  for (guint i = 0; i < job->n_gpus; i++)
    {
      guint n = sim_cluster_get_gpu (self->cluster, job->gpus[i])->node;
      const SimNode *node = sim_cluster_get_node (self->cluster, n);
      if (n == last || node->cpu_milli == 0)
        continue;
      last = n;
      sim__power_set_cpu_load (self->power, n, (node->cpu_milli - node->free_cpu_milli) /
                                                 (double) node->cpu_milli);
    }
}

/* JOB's energy brought up to NOW at the power it was charged with, and
 * its power from now on (sim-energy.h). */
static void
job_energy (SimSimulation *self, SimJob *job, SimTime now, gboolean running)
{
  if (!self->scenario->power.enabled)
    return;
  if (now > job->power_since)
    job->energy_j += job->power_w * sim_time_to_seconds (now - job->power_since);
  job->power_since = now;
  job->power_w = 0;
  if (running && job->n_gpus > 0)
    job->power_w = sim__power_job_w (self->power, job->gpus, job->n_gpus,
                                     job->spec.gpu_milli / (double) SIM_GPU_WHOLE,
                                     job->active_gpus / job->n_gpus *
                                       sim_power_intensity (job->spec.memory_bound,
                                                            self->scenario->power.memory_power));
}

static void
account_activity (SimSimulation *self, SimJob *job)
{
  double capacity, sms, busy = 0;

  if (job->state == SIM_JOB_RUNNING && job->speed > 0)
    {
      job_holding (self, job, &capacity, &sms);
      busy = job->n_gpus * sms *
             MIN (1.0, job_activity (job) / (capacity * cap_speed (self, job)) * job->share) *
             (job->rate / job->speed);
    }
  if (job->n_gpus > 0)
    power_busy (self, job, busy - job->active_gpus, 0);
  self->active_gpus += busy - job->active_gpus;
  job->active_gpus = busy;
  job_energy (self, job, sim_engine_now (self->engine), job->state == SIM_JOB_RUNNING);
}

/* A time-sharing job joins (SIGN 1) or leaves (-1) its GPU's sharers. */
static void
share_join (SimSimulation *self, SimJob *job, int sign)
{
  guint g = job->gpus[0];

  if (!job_time_shares (job))
    return;
  if (self->sharers == NULL)
    {
      self->sharers = g_new0 (GPtrArray *, sim_cluster_get_n_gpus (self->cluster));
      self->demand = g_new0 (double, sim_cluster_get_n_gpus (self->cluster));
    }
  if (self->sharers[g] == NULL)
    self->sharers[g] = g_ptr_array_new ();
  if (sign > 0)
    {
      g_ptr_array_add (self->sharers[g], job);
      self->demand[g] += job_activity (job);
    }
  else
    {
      g_ptr_array_remove (self->sharers[g], job);
      self->demand[g] = 0;
      for (guint i = 0; i < self->sharers[g]->len; i++)
        self->demand[g] += job_activity (self->sharers[g]->pdata[i]);
    }
}

/* After a job came to or left GPU G: the time-sharing jobs on it move to
 * their new speed, exactly (progress brought up to date, completion
 * rescheduled), in the order they joined. */
static void
share_refresh (SimSimulation *self, guint g, SimTime now)
{
  if (self->sharers == NULL || self->sharers[g] == NULL)
    return;
  for (guint i = 0; i < self->sharers[g]->len; i++)
    {
      SimJob *job = self->sharers[g]->pdata[i];
      double share = share_speed (self, job);
      if (fabs (share - job->share) <= 1e-12 * share)
        continue;
      update_progress (job, now);
      job->speed = job->speed / job->share * share;
      job->share = share;
      job->rate = job->comm_state != NULL ? sim__job_comm_rate (self->comm, job) : job->speed;
      account_computing (self, job);
      job->version++;
      schedule_completion (self, job, now);
      account_activity (self, job);
    }
}

/* After collectives came or went: new rates for the communicating jobs
 * whose shares changed, and their completions moved. */
static void
refresh_rates (SimSimulation *self, SimTime now)
{
  /* Only jobs whose collectives' flows changed rate (and new ones) can have
   * a new rate; they are updated in start order, so that the order of the
   * rescheduled completions does not depend on the solver's. */
  GPtrArray *changed;

  if (self->comm == NULL || !sim__job_comm_update (self->comm))
    return;
  changed = sim__job_comm_take_changed (self->comm);
  for (guint i = 0; i < changed->len; i++)
    {
      SimJob *job = changed->pdata[i];
      double rate;
      rate = sim__job_comm_rate (self->comm, job);
      if (fabs (rate - job->rate) <= 1e-12 * rate)
        continue;
      update_progress (job, now);
      job->rate = rate;
      account_computing (self, job);
      job->version++;
      schedule_completion (self, job, now);
      account_activity (self, job);
    }
}

static void
on_complete (SimEngine *engine, const SimEvent *ev, gpointer data)
{
  SimSimulation *self = data;
  SimJob *job = ev->target;

  if (ev->tag != job->version)
    return; /* superseded by a rescheduled completion */
  tick (self, ev->time);
  self->last_activity = ev->time;
  stop_job (self, job, ev->time);
  job->state = SIM_JOB_DONE;
  job->end = ev->time;
  job->work_left = 0;
  accumulate_job (self, SIM_JOB_FINISHED, job, ev->time);
  if (self->observer)
    self->observer (self, job, self->observer_data);
  free_job (job);
  note_state_before_decision (self);
  request_decision (self);
}

static gboolean
start_job (gpointer owner, SimJob *job, const SimPlacement *placement, GError **error)
{
  SimSimulation *self = owner;
  SimTime now = sim_engine_now (self->engine);
  guint32 asked_milli = job->spec.gpu_milli;
  guint reserved = 0;
  SimTime wake;
  g_autoptr(GArray) shares = NULL;

  if (job->spec.mig_profile != NULL)
    {
      /* One MIG instance; creating it reconfigures the GPU, which takes time. */
      const SimNode *node;
      int profile, start;
      if (placement->n_gpus != 1 || placement->gpus[0] >= sim_cluster_get_n_gpus (self->cluster))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                       "MIG job %" G_GUINT64_FORMAT " needs a placement on one GPU", job->spec.id);
          return FALSE;
        }
      node = sim_cluster_get_node (self->cluster,
                                   sim_cluster_get_gpu (self->cluster, placement->gpus[0])->node);
      profile = sim_mig_lookup_profile (node->gpu_model, job->spec.mig_profile);
      if (profile < 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                       "GPU %u (%s) has no MIG profile %s", placement->gpus[0],
                       node->gpu_model->name, job->spec.mig_profile);
          return FALSE;
        }
      start = sim_cluster_mig_allocate (self->cluster, placement->gpus[0], (guint) profile,
                                        placement->mig_start, error);
      if (start < 0)
        return FALSE;
      job->mig_start = start;
      job->spec.gpu_milli = sim_mig_instance_milli (node->gpu_model, (guint) profile);
    }
  else if (!sim_cluster_allocate (self->cluster, placement->gpus, placement->n_gpus,
                                  placement->milli, error))
    return FALSE;
  g_free (job->gpus);
  job->gpus = g_memdup2 (placement->gpus, placement->n_gpus * sizeof (guint32));
  job->n_gpus = placement->n_gpus;
  job->n_nodes = 0;
  for_each_node (self, job, count_node);
  if (job->spec.cpu_milli > 0 || job->spec.memory_bytes > 0)
    {
      /* Reserve host CPU and memory node by node. */
      shares = node_shares (self, job);
      for (; reserved < shares->len; reserved++)
        {
          const NodeShare *ns = &g_array_index (shares, NodeShare, reserved);
          guint64 cpu, mem;
          sim_job_host_share (job, ns->gpus, &cpu, &mem);
          if (!sim_cluster_reserve_host (self->cluster, ns->node, cpu, mem, error))
            goto undo;
        }
    }
  /* The job's collectives, before anything else depends on its start. */
  if (self->comm != NULL && !sim__job_comm_register (self->comm, job, error))
    goto undo;
  job->state = SIM_JOB_RUNNING;
  job->start = now;
  if (job->first_start < 0)
    job->first_start = now;
  /* Its nodes wake if asleep; it holds its GPUs for their power. */
  wake = wake_nodes (self, placement);
  power_busy (self, job, 0, 1);
  power_node_load (self, job);
  /* Its GPUs' speed, its scaling on their count and its share of a
   * shared GPU: one product, the speed every rate of the job is measured
   * against (a change of share rescales it: share_refresh()). */
  share_join (self, job, 1);
  job->share = share_speed (self, job);
  job->speed = gpu_speed (self, job) * scaling_factor (self, job) * job->share;
  if (job->spec.mig_profile != NULL)
    {
      /* Creating the instance reconfigures the GPU: that much wall time,
       * whatever the instance's speed. */
      job->work_left += (SimTime) llround ((double) self->scenario->mig_reconfigure_time *
                                           job->speed);
    }
  if (wake > 0)
    {
      /* Its nodes were asleep: it waits for them to wake, as long
       * whatever its speed. */
      job->work_left += (SimTime) llround ((double) wake * job->speed);
    }
  job->rate = job->speed;
  job->last_update = now;
  job->version++;
  g_queue_push_tail_link (&self->running, &job->running_link);
  job->run_seq = ++self->run_seq;
  job->start_pass = self->pass;
  account_computing (self, job);
  accumulate_job (self, SIM_JOB_STARTED, job, now);
  schedule_completion (self, job, now);
  account_activity (self, job);
  if (job_time_shares (job))
    share_refresh (self, job->gpus[0], now);
  if (self->observer)
    self->observer (self, job, self->observer_data);
  return TRUE;

undo:
  /* A refused start leaves the cluster and the job as they were, so that a
   * policy may carry on after it. */
  for (guint u = 0; u < reserved; u++)
    release_host (self, job, g_array_index (shares, NodeShare, u).node,
                  g_array_index (shares, NodeShare, u).gpus);
  release_gpus (self, job);
  job->spec.gpu_milli = asked_milli;
  g_clear_pointer (&job->gpus, g_free);
  job->n_gpus = 0;
  job->n_nodes = 0;
  return FALSE;
}

/* Takes a running job off its GPUs and back to waiting: its progress is
 * kept less LOST (work since its last checkpoint, lost to a failure), and
 * it owes OVERHEAD more (saving and restoring its state).  Preemption and
 * failures both evict this way. */
static void
evict_job (SimSimulation *self, SimJob *job, SimTime overhead, SimTime lost)
{
  SimTime now = sim_engine_now (self->engine);

  stop_job (self, job, now);
  job->state = SIM_JOB_QUEUED;
  job->work_left += overhead + lost;
  job->n_preemptions++;
  accumulate_job (self, SIM_JOB_PREEMPTED, job, now);
  g_clear_pointer (&job->gpus, g_free);
  job->n_gpus = 0;
  job->n_nodes = 0;
  if (self->observer)
    self->observer (self, job, self->observer_data);
}

GQueue *
sim__simulation_get_running (SimSimulation *self)
{
  return &self->running;
}

void
sim__simulation_sync_job (SimSimulation *self, SimJob *job)
{
  g_return_if_fail (job->state == SIM_JOB_RUNNING);
  update_progress (job, sim_engine_now (self->engine));
}

void
sim__simulation_hold_job (SimSimulation *self, SimJob *job, SimTime overhead, SimTime lost)
{
  g_return_if_fail (job->state == SIM_JOB_RUNNING);
  evict_job (self, job, overhead, lost);
  g_ptr_array_add (self->held, job);
  request_decision (self);
}

void
sim__simulation_release_job (SimSimulation *self, SimJob *job)
{
  if (!g_ptr_array_remove (self->held, job))
    g_return_if_reached ();
  enqueue (self, job);
  note_state_before_decision (self);
  request_decision (self);
}

void
sim__simulation_note_interruption (SimSimulation *self)
{
  sim__metrics_note_interruption (&self->metrics);
}

SimFailures *
sim__simulation_get_failures (SimSimulation *self)
{
  return self->failures;
}

void
sim__simulation_set_job_column (SimSimulation *self, const char *name, SimJobWhereFunc func,
                                gpointer data)
{
  sim__metrics_set_column (&self->metrics, name, func, data);
}

static gboolean
preempt_job (gpointer owner, SimJob *job, SimTime overhead, GError **error)
{
  SimSimulation *self = owner;

  evict_job (self, job, overhead, 0);
  self->preempted_in_pass = TRUE;
  /* It rejoins the queue after this pass (see decision_end()). */
  g_ptr_array_add (self->requeue, job);
  return TRUE;
}

static void
wake_at (gpointer owner, SimTime time)
{
  SimSimulation *self = owner;

  sim_engine_schedule (self->engine, time, self->k_wake, 0, NULL, 0);
}

static void
on_wake (SimEngine *engine, const SimEvent *ev, gpointer data)
{
  request_decision (data);
}

/* ------------------------------------------------------------------------- */
/* Idle nodes asleep ([power] sleep_after, power/sim-power.h).               */

static gboolean
node_is_idle (SimSimulation *self, guint n)
{
  const SimNode *node = sim_cluster_get_node (self->cluster, n);

  for (guint g = node->first_gpu; g < node->first_gpu + node->n_gpus; g++)
    {
      const SimGpu *gpu = sim_cluster_get_gpu (self->cluster, g);
      if (gpu->used_milli > 0 || gpu->mig_used > 0)
        return FALSE;
    }
  return TRUE;
}

/* Node N is idle from NOW: it falls asleep after [power] sleep_after,
 * unless a job comes first (a newer tag makes the nap stale). */
static void
schedule_nap (SimSimulation *self, guint n, SimTime now)
{
  SimTime after = self->scenario->power.sleep_after;

  self->nap_tag[n]++;
  if (now <= SIM_TIME_NEVER - 1 - after)
    sim_engine_schedule (self->engine, now + after, self->k_nap, self->nap_tag[n], NULL, n);
}

/* After JOB left its nodes at NOW: those now idle may sleep later. */
static void
node_idle (SimSimulation *self, const SimJob *job, SimTime now)
{
  guint last = G_MAXUINT;

  if (self->nap_tag == NULL)
    return;
  for (guint i = 0; i < job->n_gpus; i++)
    {
      guint n = sim_cluster_get_gpu (self->cluster, job->gpus[i])->node;
      if (n != last && node_is_idle (self, n))
        schedule_nap (self, n, now);
      last = n;
    }
}

/* A job is placed on PLACEMENT's GPUs: their nodes wake (and their naps
 * are called off).  Returns the wait for the ones that were asleep. */
static SimTime
wake_nodes (SimSimulation *self, const SimPlacement *placement)
{
  SimTime wait = 0;

  if (self->nap_tag == NULL)
    return 0;
  for (guint i = 0; i < placement->n_gpus; i++)
    {
      guint n = sim_cluster_get_gpu (self->cluster, placement->gpus[i])->node;
      self->nap_tag[n]++;
      if (sim__power_is_asleep (self->power, n))
        {
          sim__power_set_asleep (self->power, n, FALSE);
          wait = self->scenario->power.wake_time;
        }
    }
  return wait;
}

static gboolean run_is_over (SimSimulation *self);

static void
on_nap (SimEngine *engine, const SimEvent *ev, gpointer data)
{
  SimSimulation *self = data;
  guint n = (guint) ev->arg;

  if (ev->tag != self->nap_tag[n] || !node_is_idle (self, n) ||
      (run_is_over (self) && self->scenario->horizon == SIM_TIME_NEVER))
    return;
  tick (self, ev->time);
  sim__power_set_asleep (self->power, n, TRUE);
  note_state (self);
}

/* The outdoor temperature steps to its next value (sim-cooling.h). */
static void
on_weather (SimEngine *engine, const SimEvent *ev, gpointer data)
{
  SimSimulation *self = data;
  SimTime next;

  if (run_is_over (self) && self->scenario->horizon == SIM_TIME_NEVER)
    return;
  tick (self, ev->time);
  next = sim__cooling_set_time (self->cooling, ev->time);
  note_state (self);
  if (next != SIM_TIME_NEVER)
    sim_engine_schedule (engine, next, self->k_weather, 0, NULL, 0);
}

/* Whether the run has nothing left to do: no job running, waiting or to
 * come.  Timers and naps due then do not fire (the run is over). */
static gboolean
run_is_over (SimSimulation *self)
{
  return self->running.length == 0 && self->queue->len == 0 && !self->have_next &&
         self->requeue->len == 0 && self->held->len == 0;
}

static void
on_timer (SimEngine *engine, const SimEvent *ev, gpointer data)
{
  SimSimulation *self = data;
  guint slot = (guint) ev->arg;
  Timer *t = &g_array_index (self->timers, Timer, slot);
  SimTimerFunc func = t->func;
  gpointer user_data = t->data;

  t->id = 0;
  t->next_free = self->free_timer;
  self->free_timer = slot + 1;
  if (run_is_over (self) && self->scenario->horizon == SIM_TIME_NEVER)
    return;
  tick (self, ev->time);
  func (self, ev->time, user_data);
  note_state (self);
}

/* After GPU G's clock changed: the jobs on it move to their new speed
 * exactly (progress up to date, completions rescheduled), in start order. */
static void
job_clock_refresh (SimSimulation *self, SimJob *job, SimTime now)
{
  double share = share_speed (self, job);

  if (share != job->share)
    {
      update_progress (job, now);
      job->speed = job->speed / job->share * share;
      job->share = share;
      job->rate = job->comm_state != NULL ? sim__job_comm_rate (self->comm, job) : job->speed;
      account_computing (self, job);
      job->version++;
      schedule_completion (self, job, now);
    }
  account_activity (self, job);
}

static void
clock_refresh (SimSimulation *self, guint g, SimTime now)
{
  for (GList *l = self->running.head; l != NULL; l = l->next)
    {
      SimJob *job = l->data;
      gboolean on = FALSE;
      for (guint i = 0; i < job->n_gpus && !on; i++)
        on = job->gpus[i] == g;
      if (on)
        job_clock_refresh (self, job, now);
    }
}

/* The jobs running when this pass began, in start order, with their
 * progress up to date (jobs the pass has already started are not among
 * them: the array is what the policy found, built when first asked for). */
static void
fill_running (gpointer owner, GPtrArray *running)
{
  SimSimulation *self = owner;
  SimTime now = sim_engine_now (self->engine);

  for (GList *l = self->running.head; l != NULL; l = l->next)
    {
      SimJob *job = l->data;
      if (job->start_pass == self->pass)
        continue;
      update_progress (job, now);
      g_ptr_array_add (running, job);
    }
}

static int
compare_in_policy (gconstpointer a, gconstpointer b, gpointer policy)
{
  return sim_policy_compare (policy, *(SimJob * const *) a, *(SimJob * const *) b);
}

/* A decision is a pass in three parts: begin (the livelock guard, the
 * queue in the policy's order, the context), the policy's pass, and end
 * (started jobs out of the queue, preempted ones back in, rates, the state
 * for the metrics).  A caller driving the run decision by decision stops
 * between begin and the pass (sim_simulation_run_to_decision()), may look
 * and act through the context, and commits with sim_simulation_decide(). */
static gboolean
decision_begin (SimSimulation *self, SimTime now)
{
  SimSchedContext *ctx = &self->decision;
  guint flags = sim_policy_get_flags (self->policy);

  self->decide_pending = FALSE;
  self->pass++;
  /* A policy that preempts jobs only to start others that do not start
   * would decide again and again at one instant: stop it, with a clear
   * error, rather than run forever. */
  if (now != self->pass_time)
    {
      self->pass_time = now;
      self->passes_now = 0;
    }
  if (++self->passes_now > MAX_PASSES_AT_ONE_INSTANT)
    {
      fail (self, g_error_new (SIM_ERROR, SIM_ERROR_STATE,
                               "policy %s made %u scheduling passes at %.3f s without time "
                               "moving on: it preempts jobs it cannot then replace",
                               sim_policy_get_name (self->policy), MAX_PASSES_AT_ONE_INSTANT,
                               sim_time_to_seconds (now)));
      return FALSE;
    }

  /* The queue is kept in the policy's order as jobs arrive; orders that
   * change with time (attained service) are re-sorted here, with running
   * jobs' service brought up to date first. */
  if (flags & SIM_POLICY_TIME_DEPENDENT_ORDER)
    {
      for (GList *l = self->running.head; l != NULL; l = l->next)
        update_progress (l->data, now);
      if (self->queue->len > 1)
        g_ptr_array_sort_with_data (self->queue, compare_in_policy, self->policy);
    }

  memset (ctx, 0, sizeof *ctx);
  ctx->now = now;
  ctx->cluster = self->cluster;
  ctx->queue = self->queue;
  ctx->fill_running = fill_running;
  ctx->start = start_job;
  ctx->preempt = preempt_job;
  ctx->wake = wake_at;
  ctx->owner = self;
  /* With a backfill cycle, a pass off its ticks is a main pass only. */
  ctx->no_backfill = self->scenario->backfill_interval > 0 &&
                     now % self->scenario->backfill_interval != 0;
  ctx->admit = (SimAdmitFunc) self->gate;
  ctx->admit_data = self->gate_data;
  return TRUE;
}

static void
decision_pass (SimSimulation *self)
{
  if (self->queue->len > 0 || self->running.length > 0)
    sim_policy_schedule (self->policy, &self->decision);
}

static void
decision_end (SimSimulation *self)
{
  SimSchedContext *ctx = &self->decision;
  SimTime now = ctx->now;

  g_clear_pointer (&ctx->running, g_ptr_array_unref);
  if (ctx->error != NULL)
    {
      fail (self, g_steal_pointer (&ctx->error));
      return;
    }
  if (self->gate_pass_end != NULL)
    self->gate_pass_end (self->gate_data, ctx->n_held, now);

  if (ctx->n_started > 0)
    {
      guint w = 0;
      for (guint i = 0; i < self->queue->len; i++)
        {
          SimJob *job = self->queue->pdata[i];
          if (job->state == SIM_JOB_QUEUED)
            self->queue->pdata[w++] = job;
        }
      g_ptr_array_set_size (self->queue, w);
    }
  if (self->requeue->len > 0)
    {
      for (guint i = 0; i < self->requeue->len; i++)
        {
          SimJob *job = self->requeue->pdata[i];
          if (job->state == SIM_JOB_QUEUED)
            enqueue (self, job);
        }
      g_ptr_array_set_size (self->requeue, 0);
      /* Freed GPUs may let others start: decide again at this instant. */
      request_decision (self);
    }

  /* A main pass leaves the backfilling to the next backfill tick. */
  if (ctx->no_backfill && self->queue->len > 0 && !self->decide_pending)
    {
      SimTime at = next_multiple (now, self->scenario->backfill_interval);
      if (at != SIM_TIME_NEVER)
        {
          self->decide_pending = TRUE;
          sim_engine_schedule (self->engine, at, self->k_decide, 0, NULL, 0);
        }
    }

  refresh_rates (self, now);
  note_state (self);
  if (self->elastic != NULL)
    sim__elastic_after_pass (self->elastic, now);
}

static void
on_decide (SimEngine *engine, const SimEvent *ev, gpointer data)
{
  SimSimulation *self = data;

  tick (self, ev->time);
  /* Jobs submitted at this same instant are decided together: the
   * workload is read one job ahead, so the next one's arrival is already
   * due now; the pass waits for it (and for any after it at this instant). */
  if (self->have_next && self->next.submit == ev->time)
    {
      sim_engine_schedule (engine, ev->time, self->k_decide, 0, NULL, 0);
      return;
    }
  if (!decision_begin (self, ev->time))
    return;
  if (self->pause_at_decision)
    {
      /* The caller looks and acts, then commits (sim_simulation_decide()). */
      self->decision_pending = TRUE;
      sim_engine_stop (engine);
      return;
    }
  decision_pass (self);
  decision_end (self);
}

static void
on_sample (SimEngine *engine, const SimEvent *ev, gpointer data)
{
  SimSimulation *self = data;

  self->samples++;
  if (!self->force && self->samples > SIM_LIMIT_SAMPLES)
    {
      fail (self, too_big (self, "output", "timeseries_interval",
                           "this run has written %.3g time-series rows",
                           (double) self->samples));
      return;
    }
  /* Once nothing else is pending, the run is over: no more samples. */
  if (sim_engine_pending (engine) == 0 && !self->have_next)
    return;
  /* Not tick(): a sample must not advance the integrals (sim-metrics.h). */
  sim__metrics_sample (&self->metrics, &self->state, ev->time);
  /* A next sample past the end of simulated time is not taken: the run's
   * last row, when it finishes, covers the rest. */
  if (ev->time <= SIM_TIME_NEVER - 1 - self->scenario->sample_interval)
    sim_engine_schedule (engine, ev->time + self->scenario->sample_interval, self->k_sample, 0,
                         NULL, 0);
}

/* ------------------------------------------------------------------------- */
/* Construction.                                                             */

/* "no X model "NAME" in the catalogue: did you mean ...?" at [GROUP] KEY. */
static void
unknown_model (const SimScenario *sc, const SimCatalogue *catalogue, const char *group,
               const char *key, const char *what, const char *name, GError **error)
{
  g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
               "no %s model \"%s\" in the catalogue%s (see `gpusim models`)", what, name,
               sim__did_you_mean (sim_catalogue_suggest (catalogue, name)));
  sim__scenario_locate (sc, group, key, error);
}

/* The section a pool's errors point at: its own, or the one it was made
 * from (a machine or VC list). */
static char *
pool_group (const SimPoolConfig *pool)
{
  return pool->from_group != NULL ? g_strdup (pool->from_group)
                                  : g_strdup_printf ("pool %s", pool->name);
}

SimCluster *
sim_cluster_new_for_scenario (const SimScenario *scenario, const SimCatalogue *catalogue,
                              GError **error)
{
  g_autoptr(SimCluster) cluster = sim_cluster_new ();

  g_return_val_if_fail (scenario != NULL && catalogue != NULL, NULL);
  for (guint i = 0; i < scenario->n_pools; i++)
    {
      const SimPoolConfig *p = &scenario->pools[i];
      const SimNodeModel *node = sim_catalogue_lookup_node (catalogue, p->node_model);
      const SimGpuModel *gpu = NULL;

      if (node == NULL)
        {
          g_autofree char *group = pool_group (p);
          unknown_model (scenario, catalogue, group, "model", "node", p->node_model, error);
          return NULL;
        }
      if (p->gpu_model != NULL &&
          (gpu = sim_catalogue_lookup_gpu (catalogue, p->gpu_model)) == NULL)
        {
          g_autofree char *group = pool_group (p);
          /* A pool made from a list: the key behind the model. */
          unknown_model (scenario, catalogue, group,
                         p->from_group != NULL && p->gpu_key != NULL ? p->gpu_key : "gpu", "GPU",
                         p->gpu_model, error);
          return NULL;
        }
      if (!sim_cluster_add_pool (cluster, p->name, node, gpu, p->gpus_per_node, p->count, error))
        {
          g_prefix_error (error, "%s: ", scenario->path);
          return NULL;
        }
      /* Pools from a machine list carry each node's host resources. */
      if (p->cpu_milli > 0 || p->memory_bytes > 0)
        sim_cluster_set_pool_host (cluster, i, p->cpu_milli, p->memory_bytes);
    }
  return g_steal_pointer (&cluster);
}

static void
class_scaling_free (SimSimulation *self)
{
  for (guint c = 0; c < self->n_class_scaling; c++)
    g_free (self->class_scaling[c].speedup);
  g_clear_pointer (&self->class_scaling, g_free);
  self->n_class_scaling = 0;
}

/* The section a class's keys are in, for messages. */
static char *
class_group (const SimScenario *sc, const SimJobClassConfig *cls)
{
  if (sc->generator.n_classes == 1 && strcmp (cls->name, "default") == 0)
    return g_strdup ("workload");
  return g_strdup_printf ("class %s", cls->name);
}

/* A communicating class's speed-up on N GPUs, on an idle copy of the
 * fabric (see sim_simulation_get_class_speedup()).  Its iteration is the
 * compute time at its reference count N_ref, so one GPU computes for
 * iteration x N_ref and N GPUs for iteration x N_ref / N, plus the
 * collectives a job starts (sim-job-comm.h), less what overlaps compute. */
static gboolean
comm_speedup (SimSimulation *self, const SimJobClassConfig *cls, guint n, double *out,
              GError **error)
{
  const SimCommProfile *c = &cls->comm;
  guint ref = cls->reference_gpus;
  double compute1, compute, iteration = 0;

  for (guint g = 0; ref == 0 && g < cls->n_gpu_values; g++)
    ref = MAX (ref, cls->gpu_values[g]);
  compute1 = sim_time_to_seconds (c->iteration) * MAX (ref, 1);
  if (n <= 1)
    {
      *out = 1.0;
      return TRUE;
    }
  if (n > sim_cluster_get_n_gpus (self->cluster))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "class %s on %u GPUs: the cluster has %u", cls->name, n,
                   sim_cluster_get_n_gpus (self->cluster));
      return FALSE;
    }
  compute = compute1 / n;
  if (!sim__job_comm_idle_iteration (self->comm, c, n, compute, &iteration, error))
    return FALSE;
  *out = compute1 / iteration;
  return TRUE;
}

static gboolean
class_speedup (SimSimulation *self, const SimJobClassConfig *cls, guint n, double *out,
               GError **error)
{
  if (cls->comm.iteration > 0 && self->topology != NULL &&
      (cls->scaling.kind == SIM_SCALING_COMM || cls->scaling.kind == SIM_SCALING_LINEAR))
    return comm_speedup (self, cls, n, out, error);
  *out = sim_scaling_speedup (&cls->scaling, n);
  return TRUE;
}

/* Readies every synthetic class's scaling for the run: speed-ups cached
 * for the GPU counts its jobs can hold, its throughput table checked
 * against the catalogue (which must list the reference GPU: durations are
 * measured on it), and the efficiency cap of moldable classes. */
static gboolean
setup_class_scaling (SimSimulation *self, GError **error)
{
  const SimScenario *sc = self->scenario;

  /* A Gavel trace's job types are classes with throughput tables too. */
  if (!sim__source_info (sc->source)->has_classes)
    return TRUE;
  self->class_scaling = g_new0 (ClassScaling, sc->generator.n_classes);
  self->n_class_scaling = sc->generator.n_classes;
  for (guint c = 0; c < sc->generator.n_classes; c++)
    {
      const SimJobClassConfig *cls = &sc->generator.classes[c];
      ClassScaling *cs = &self->class_scaling[c];
      const SimThroughputTable *thr = &cls->throughput;

      cs->config = cls;
      cs->max_n = MAX (cls->reference_gpus, 1);
      for (guint g = 0; g < cls->n_gpu_values; g++)
        cs->max_n = MAX (cs->max_n, cls->gpu_values[g]);
      cs->speedup = g_new0 (double, cs->max_n + 1);
      for (guint n = 1; n <= cs->max_n; n++)
        cs->speedup[n] = sim_scaling_speedup (&cls->scaling, n);

      for (guint k = 0; k < thr->n_models; k++)
        {
          cs->thr_models[k] = sim_catalogue_lookup_gpu (self->catalogue, thr->models[k]);
          if (cs->thr_models[k] == NULL)
            {
              g_autofree char *group = class_group (sc, cls);
              unknown_model (sc, self->catalogue, group, "throughput", "GPU", thr->models[k],
                             error);
              return FALSE;
            }
          if (cs->thr_models[k] == self->reference_model)
            cs->thr_reference = thr->throughput[k];
        }
      if (thr->n_models > 0 && cs->thr_reference == 0)
        {
          g_autofree char *group = class_group (sc, cls);
          g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                       "the throughput table does not list the reference GPU %s, on which "
                       "durations are measured: add it (or set [workload] reference_gpu)",
                       self->reference_model != NULL ? self->reference_model->name : "(none)");
          sim__scenario_locate (sc, group, "throughput", error);
          return FALSE;
        }

      if (cls->gpus_min > 0 && sc->moldable_efficiency > 0)
        {
          guint max = cls->gpu_values[0];
          cs->moldable_cap = cls->gpus_min;
          for (guint n = MIN (max, sim_cluster_get_n_gpus (self->cluster)); n > cls->gpus_min; n--)
            {
              double v;
              if (!class_speedup (self, cls, n, &v, error))
                return FALSE;
              if (v / n >= sc->moldable_efficiency - 1e-12)
                {
                  cs->moldable_cap = n;
                  break;
                }
            }
        }
    }
  return TRUE;
}

/* Durations are run times on the reference GPU ([workload] reference_gpu,
 * else the first pool's); jobs on other GPUs progress at the ratio of dense
 * FP16/BF16 throughput.  A homogeneous cluster runs at speed 1. */
static gboolean
set_reference_gpu (SimSimulation *self, GError **error)
{
  const SimScenario *sc = self->scenario;
  const SimGpuModel *ref;

  if (sc->reference_gpu != NULL)
    {
      ref = sim_catalogue_lookup_gpu (self->catalogue, sc->reference_gpu);
      if (ref == NULL)
        {
          unknown_model (sc, self->catalogue, "workload", "reference_gpu", "GPU",
                         sc->reference_gpu, error);
          return FALSE;
        }
    }
  else
    ref = sim_cluster_get_pool (self->cluster, 0)->gpu_model;
  self->reference_tflops = ref != NULL ? ref->fp16_tflops : 0;
  self->reference_model = ref;
  return TRUE;
}

/* Whether the scenario's jobs are generated from its [class] sections (not
 * read from a trace). */
static gboolean
generates (const SimScenario *sc)
{
  return !sim__source_info (sc->source)->is_trace;
}

/* Every GPU model a class names must be in the catalogue. */
static gboolean
check_gpu_models (SimSimulation *self, GError **error)
{
  const SimScenario *sc = self->scenario;

  for (guint c = 0; generates (sc) && c < sc->generator.n_classes; c++)
    {
      const SimJobClassConfig *cls = &sc->generator.classes[c];
      g_auto(GStrv) names = NULL;
      if (cls->gpu_models == NULL)
        continue;
      names = g_strsplit (cls->gpu_models, "|", -1);
      for (guint i = 0; names[i] != NULL; i++)
        if (sim_catalogue_lookup_gpu (self->catalogue, names[i]) == NULL)
          {
            g_autofree char *group = g_strdup_printf ("class %s", cls->name);
            unknown_model (sc, self->catalogue, group, "gpu_model", "GPU", names[i], error);
            return FALSE;
          }
    }
  return TRUE;
}

/* A class's MIG profile must exist on some GPU of the cluster that the
 * class may use; otherwise every one of its jobs would be refused at run
 * time.  The error lists the profiles the cluster's GPUs do offer. */
static gboolean
check_mig_profiles (SimSimulation *self, GError **error)
{
  const SimScenario *sc = self->scenario;

  for (guint c = 0; generates (sc) && c < sc->generator.n_classes; c++)
    {
      const SimJobClassConfig *cls = &sc->generator.classes[c];
      g_autoptr(GString) offered = NULL;
      g_autoptr(GPtrArray) seen = NULL;
      g_autofree char *group = NULL;
      gboolean found = FALSE;

      if (cls->mig_profile == NULL)
        continue;
      offered = g_string_new (NULL);
      seen = g_ptr_array_new ();
      for (guint n = 0; n < sim_cluster_get_n_nodes (self->cluster) && !found; n++)
        {
          const SimGpuModel *gpu = sim_cluster_get_node (self->cluster, n)->gpu_model;
          if (gpu == NULL || g_ptr_array_find (seen, gpu, NULL) ||
              !sim_cluster_node_allows (self->cluster, n, cls->gpu_models))
            continue;
          g_ptr_array_add (seen, (gpointer) gpu);
          found = sim_mig_lookup_profile (gpu, cls->mig_profile) >= 0;
          for (guint p = 0; p < gpu->n_mig_profiles; p++)
            g_string_append_printf (offered, "%s%s", p > 0 ? ", " : offered->len ? "; " : "",
                                    gpu->mig_profiles[p].name);
          if (gpu->n_mig_profiles > 0)
            g_string_append_printf (offered, " on %s", gpu->name);
        }
      if (found)
        continue;
      group = g_strdup_printf ("class %s", cls->name);
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "no GPU of this cluster offers MIG profile \"%s\": expected one of the "
                   "profiles its GPUs have (%s)", cls->mig_profile,
                   offered->len > 0 ? offered->str : "none: no GPU here supports MIG");
      sim__scenario_locate (sc, group, "mig", error);
      return FALSE;
    }
  return TRUE;
}

static gboolean
uses_comm (const SimScenario *sc)
{
  if (sc->n_comm_mix > 0)
    return TRUE;
  for (guint c = 0; generates (sc) && c < sc->generator.n_classes; c++)
    if (sc->generator.classes[c].comm.iteration > 0)
      return TRUE;
  return FALSE;
}

static gboolean
build_fabric (SimSimulation *self, GError **error)
{
  SimScenario *sc = self->scenario;

  if (sc->fabric.kind == SIM_FABRIC_NONE)
    {
      if (uses_comm (sc))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                       "%s: jobs have communication profiles but there is no [fabric] section "
                       "to carry them: add one, e.g. [fabric] topology = fat-tree", sc->path);
          return FALSE;
        }
      return TRUE;
    }
  self->topology = sim_topology_new (self->cluster, self->catalogue, &sc->fabric, error);
  if (self->topology == NULL)
    {
      /* An unknown model is the key's fault: its line (or its variant's). */
      const char *key = NULL;
      if (sc->fabric.link_model != NULL &&
          sim_catalogue_lookup_link (self->catalogue, sc->fabric.link_model) == NULL)
        key = "link";
      else if (sc->fabric.switch_model != NULL &&
               sim_catalogue_lookup_switch (self->catalogue, sc->fabric.switch_model) == NULL)
        key = "switch";
      sim__scenario_locate (sc, "fabric", key, error);
      return FALSE;
    }
  self->comm = sim__job_comm_new (self->topology, self->cluster);
  sim__job_comm_set_sharing (self->comm, sc->fabric.sharing);
  self->comm_rng = sim_rng_new (sc->seed, "comm");
  for (guint i = 0; i < sc->n_comm_mix; i++)
    self->comm_mix_total += sc->comm_mix[i].share;
  return TRUE;
}

/* The synthetic workload's mix as task classes, for placements that weigh
 * the tasks to come; traces give none (such placements learn as they go). */
static GArray *
task_classes (const SimScenario *sc)
{
  GArray *classes = g_array_new (FALSE, TRUE, sizeof (SimTaskClass));
  double total_share = 0;

  if (!generates (sc))
    return classes;
  for (guint c = 0; c < sc->generator.n_classes; c++)
    total_share += sc->generator.classes[c].share;
  for (guint c = 0; c < sc->generator.n_classes; c++)
    {
      const SimJobClassConfig *cls = &sc->generator.classes[c];
      double total_w = 0;
      for (guint g = 0; g < cls->n_gpu_values; g++)
        total_w += cls->gpu_weights ? cls->gpu_weights[g] : 1;
      for (guint g = 0; g < cls->n_gpu_values; g++)
        {
          SimTaskClass t = { 0 };
          t.gpus = cls->gpu_values[g];
          t.milli = SIM_GPU_WHOLE;
          t.weight = cls->share / total_share * (cls->gpu_weights ? cls->gpu_weights[g] : 1) /
                     total_w;
          g_array_append_val (classes, t);
        }
    }
  return classes;
}

/* For energy-aware placements (SimPolicySetup): whether node N sleeps. */
static gboolean
node_asleep (gpointer data, guint n)
{
  SimSimulation *self = data;

  return sim__power_is_asleep (self->power, n);
}

static gboolean
create_policy (SimSimulation *self, GError **error)
{
  SimScenario *sc = self->scenario;
  g_autoptr(SimPolicyParams) params = sim_policy_params_new ();
  g_autoptr(GArray) classes = task_classes (sc);
  SimPolicySetup setup = { 0 };
  GHashTableIter it;
  gpointer key, value;
  const char *failed;

  if (sc->plugin != NULL)
    {
      self->policy = sim_policy_load_plugin (sc->plugin, error);
      if (self->policy == NULL)
        {
          sim__scenario_locate (sc, "policy", "plugin", error);
          return FALSE;
        }
      return TRUE;
    }
  g_hash_table_iter_init (&it, sc->policy_params);
  while (g_hash_table_iter_next (&it, &key, &value))
    sim_policy_params_set (params, key, value);
  setup.cluster = self->cluster;
  setup.params = params;
  setup.seed = sc->seed;
  setup.topology = self->topology;
  setup.task_classes = (const SimTaskClass *) (void *) classes->data;
  setup.n_task_classes = classes->len;
  if (sc->power.enabled && sc->power.sleep_after > 0)
    {
      setup.node_asleep = node_asleep;
      setup.node_asleep_data = self;
    }
  self->policy = sim_policy_new (sc->queue, sc->placement, &setup, error);
  if (self->policy != NULL)
    return TRUE;

  failed = sim_policy_params_get_failed_key (params);
  if (failed != NULL)
    sim__scenario_locate (sc, "policy", failed, error);
  else
    {
      g_autoptr(GPtrArray) orders = sim_policy_list_queue_orders ();
      gboolean queue_known = FALSE;
      for (guint i = 0; i < orders->len; i++)
        queue_known |= g_ascii_strcasecmp (orders->pdata[i], sc->queue) == 0;
      sim__scenario_locate (sc, "policy", queue_known ? "placement" : "queue", error);
    }
  return FALSE;
}

guint
sim__simulation_get_n_running (SimSimulation *self)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), 0);
  return self->running.length;
}

gboolean
sim__simulation_get_fabric_load (SimSimulation *self, double *max, double *mean,
                                 double *node_load, guint n_nodes)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), FALSE);
  g_return_val_if_fail (max != NULL && mean != NULL, FALSE);
  g_return_val_if_fail (node_load != NULL || n_nodes == 0, FALSE);
  if (self->comm == NULL)
    {
      *max = *mean = 0;
      for (guint n = 0; n < n_nodes; n++)
        node_load[n] = 0;
      return FALSE;
    }
  sim__job_comm_get_fabric_load (self->comm, max, mean, node_load, n_nodes);
  return TRUE;
}

SimPolicy *
sim__simulation_new_placement (SimSimulation *self, const char *placement, GError **error)
{
  g_autoptr(GArray) classes = NULL;
  SimPolicySetup setup = { 0 };

  g_return_val_if_fail (SIM_IS_SIMULATION (self) && placement != NULL, NULL);
  classes = task_classes (self->scenario);
  setup.cluster = self->cluster;
  setup.seed = self->scenario->seed;
  setup.topology = self->topology;
  setup.task_classes = (const SimTaskClass *) (void *) classes->data;
  setup.n_task_classes = classes->len;
  if (self->scenario->power.enabled && self->scenario->power.sleep_after > 0)
    {
      setup.node_asleep = node_asleep;
      setup.node_asleep_data = self;
    }
  return sim_policy_new ("fifo", placement, &setup, error);
}

/* A new workload for the scenario: its generator or trace reader. */
static SimWorkload *
open_workload (SimSimulation *self, GError **error)
{
  const SimScenario *scenario = self->scenario;
  g_autofree double *rates = NULL;
  SimSourceContext context = { NULL };
  SimWorkload *workload;

  /* Classes' speeds on the reference GPU (a Gavel job type's steps per
   * second), as setup_class_scaling() resolved them. */
  if (self->class_scaling != NULL)
    {
      rates = g_new (double, self->n_class_scaling);
      for (guint c = 0; c < self->n_class_scaling; c++)
        rates[c] = self->class_scaling[c].thr_reference;
      context.class_rates = rates;
    }
  workload = sim__source_info (scenario->source)->open (scenario, &context, error);
  if (workload == NULL)
    sim__scenario_locate (scenario, "workload",
                          sim__source_info (scenario->source)->is_trace ? "trace" : NULL, error);
  return workload;
}

/* The network's constant draw: its switches and optical transceivers,
 * from the fabric builder's counts. */
static double
network_power (SimSimulation *self)
{
  const SimScenario *sc = self->scenario;
  const SimSwitchModel *sw;
  const SimLinkModel *link = NULL;
  SimTopologyMetrics counts;
  double transceiver;

  if (self->topology == NULL)
    return 0;
  sim_topology_get_counts (self->topology, &counts);
  sw = sc->fabric.switch_model != NULL
         ? sim_catalogue_lookup_switch (self->catalogue, sc->fabric.switch_model) : NULL;
  if (sc->fabric.link_model != NULL)
    link = sim_catalogue_lookup_link (self->catalogue, sc->fabric.link_model);
  else if (sim_cluster_get_n_pools (self->cluster) > 0)
    link = sim_cluster_get_pool (self->cluster, 0)->model->nic_link;
  transceiver = sc->power.transceiver_power_w >= 0 ? sc->power.transceiver_power_w
                : link != NULL ? link->transceiver_power_w : 0;
  return (sw != NULL ? counts.switches[0] * sw->power_w : 0) + counts.transceivers * transceiver;
}

/* The power model, the cooling, the energy accumulator, and the sleep of
 * idle nodes, as the [power] and [cooling] sections ask. */
static gboolean
setup_power (SimSimulation *self, GError **error)
{
  const SimScenario *sc = self->scenario;

  /* A cap at or below a GPU's idle power cannot be met. */
  for (guint p = 0; p < sim_cluster_get_n_pools (self->cluster); p++)
    {
      const SimGpuModel *gpu = sim_cluster_get_pool (self->cluster, p)->gpu_model;
      const char *key = sc->power.gpu_cap_w > 0 && sc->power.gpu_cap_w <= gpu->idle_w
                          ? "gpu_cap"
                        : sc->power.gpu_cap_share > 0 &&
                          sc->power.gpu_cap_share * gpu->tdp_w <= gpu->idle_w
                          ? "gpu_cap_share" : NULL;
      if (key != NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "a cap of %g W on %s: expected more than its idle power, %g W",
                       strcmp (key, "gpu_cap") == 0 ? sc->power.gpu_cap_w
                                                    : sc->power.gpu_cap_share * gpu->tdp_w,
                       gpu->name, gpu->idle_w);
          sim__scenario_locate (sc, "power", key, error);
          return FALSE;
        }
    }
  self->power = sim__power_new (self->cluster, &sc->power,
                                sc->elastic.enabled ? sc->elastic.pool : NULL, error);
  if (self->power == NULL)
    {
      sim__scenario_locate (sc, "power", NULL, error);
      return FALSE;
    }
  if (!sc->power.enabled)
    return TRUE;
  if (sc->cooling.enabled)
    {
      self->cooling = sim__cooling_new (&sc->cooling, self->catalogue, error);
      if (self->cooling == NULL)
        {
          sim__scenario_locate (sc, "cooling",
                                sc->cooling.outdoor == SIM_OUTDOOR_CSV &&
                                  sim_catalogue_lookup_cooling (self->catalogue,
                                                                sc->cooling.model) != NULL
                                  ? "outdoor_csv" : "type", error);
          return FALSE;
        }
      sim__power_set_fan_share (self->power, sim__cooling_get_model (self->cooling)->server_fans);
    }
  sim__power_set_network (self->power, network_power (self));
  if (sc->power.sleep_after > 0)
    {
      guint n = sim_cluster_get_n_nodes (self->cluster);
      self->nap_tag = g_new0 (guint32, n);
    }
  g_ptr_array_add (self->accumulators, sim__energy_accumulator_new (self->cooling != NULL));
  return TRUE;
}

/* A simulation of SCENARIO with the power policies in OFF left off. */
static SimSimulation *
simulation_new (SimScenario *scenario, guint off, GError **error)
{
  g_autoptr(SimSimulation) self = NULL;

  g_return_val_if_fail (scenario != NULL, NULL);
  sim_init ();
  self = g_object_new (SIM_TYPE_SIMULATION, NULL);
  self->scenario = sim_scenario_ref (scenario);

  self->catalogue = sim_catalogue_new_default ((const char * const *) scenario->model_dirs, error);
  if (self->catalogue == NULL)
    return NULL;
  self->cluster = sim_cluster_new_for_scenario (scenario, self->catalogue, error);
  if (self->cluster == NULL)
    return NULL;
  if (!build_fabric (self, error))
    return NULL;
  if (!setup_power (self, error))
    return NULL;
  if (!check_gpu_models (self, error) || !check_mig_profiles (self, error))
    return NULL;
  if (!set_reference_gpu (self, error))
    return NULL;
  if (!setup_class_scaling (self, error))
    return NULL;
  if (scenario->cost.enabled)
    {
      SimAccumulator *cost = sim__cost_accumulator_new (scenario, self->catalogue,
                                                        self->cluster, error);
      if (cost == NULL)
        return NULL;
      g_ptr_array_add (self->accumulators, cost);
      self->cost = cost;
    }

  self->workload = open_workload (self, error);
  if (self->workload == NULL)
    return NULL;

  if (!create_policy (self, error))
    return NULL;

  self->engine = sim_engine_new ();
  self->k_arrival = sim_engine_register (self->engine, on_arrival, self);
  self->k_complete = sim_engine_register (self->engine, on_complete, self);
  self->k_decide = sim_engine_register (self->engine, on_decide, self);
  self->k_sample = sim_engine_register (self->engine, on_sample, self);
  self->k_wake = sim_engine_register (self->engine, on_wake, self);
  self->k_timer = sim_engine_register (self->engine, on_timer, self);
  self->k_weather = sim_engine_register (self->engine, on_weather, self);
  self->k_nap = sim_engine_register (self->engine, on_nap, self);
  if (scenario->elastic.enabled || scenario->serverless.enabled)
    {
      self->elastic = sim__elastic_new (self, self->cluster, self->catalogue, self->engine,
                                        self->queue, error);
      if (self->elastic == NULL)
        return NULL;
      sim__metrics_set_where (&self->metrics, sim__elastic_job_where, self->elastic);
    }
  if (scenario->failures != NULL)
    {
      self->failures = sim__failures_new (self, scenario, error);
      if (self->failures == NULL)
        return NULL;
      sim__metrics_set_interruptions (&self->metrics);
    }
  /* Last: the power policies watch and act on all of the above. */
  if (!sim__power_policies_attach (self, off, error))
    return NULL;
  return g_steal_pointer (&self);
}

SimSimulation *
sim_simulation_new (SimScenario *scenario, GError **error)
{
  g_return_val_if_fail (scenario != NULL, NULL);
  return simulation_new (scenario, 0, error);
}

SimSimulation *
sim__simulation_new_without_power_policies (SimScenario *scenario, guint off, GError **error)
{
  g_return_val_if_fail (scenario != NULL, NULL);
  return simulation_new (scenario, off, error);
}

SimWorkload *
sim_simulation_open_workload (SimSimulation *self, GError **error)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), NULL);
  return open_workload (self, error);
}

/* The power and access-link load of every node now (nodes.csv). */
static guint
probe_nodes (gpointer data, double *power_w, double *link_load, guint n_nodes)
{
  SimSimulation *self = data;
  double max, mean;
  guint known = 0;

  for (guint n = 0; n < n_nodes; n++)
    power_w[n] = self->scenario->power.enabled ? sim__simulation_get_node_power (self, n) : 0;
  if (self->scenario->power.enabled)
    known |= 1;
  if (sim__simulation_get_fabric_load (self, &max, &mean, link_load, n_nodes))
    known |= 2;
  return known;
}

gboolean
sim_simulation_set_output_dir (SimSimulation *self, const char *dir, GError **error)
{
  g_autofree char *jobs = NULL, *series = NULL, *nodes = NULL;

  g_return_val_if_fail (SIM_IS_SIMULATION (self) && dir != NULL, FALSE);
  if (self->started)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                   "the output directory must be set before the run starts");
      return FALSE;
    }
  if (g_mkdir_with_parents (dir, 0777) != 0)
    {
      int saved = errno;
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "cannot create directory %s: %s", dir,
                   g_strerror (saved));
      return FALSE;
    }
  g_free (self->output_dir);
  self->output_dir = g_strdup (dir);
  g_clear_pointer (&self->jobs_file, sim__atomic_file_free);
  g_clear_pointer (&self->series_file, sim__atomic_file_free);
  g_clear_pointer (&self->nodes_file, sim__atomic_file_free);
  g_clear_pointer (&self->timeline_file, sim__atomic_file_free);
  if (self->scenario->write_jobs)
    {
      jobs = g_build_filename (dir, "jobs.csv", NULL);
      self->jobs_file = sim__atomic_file_new (jobs, error);
      if (self->jobs_file == NULL)
        return FALSE;
    }
  if (self->scenario->write_timeseries)
    {
      series = g_build_filename (dir, "timeseries.csv", NULL);
      self->series_file = sim__atomic_file_new (series, error);
      if (self->series_file == NULL)
        return FALSE;
    }
  nodes = g_build_filename (dir, "nodes.csv", NULL);
  self->nodes_file = sim__atomic_file_new (nodes, error);
  if (self->nodes_file == NULL)
    return FALSE;
  if (self->node_usage == NULL)
    {
      /* The time-series interval, but at least a minute: each sample probes
       * every node (and the network's load). */
      SimTime interval = self->scenario->sample_interval > 0 ? self->scenario->sample_interval
                                                             : SIM_HOUR;
      interval = MAX (interval, 60 * SIM_SECOND);
      self->node_usage = sim__node_usage_new (self->cluster,
                                              sim__atomic_file_stream (self->nodes_file),
                                              interval, probe_nodes, self);
      sim__simulation_add_accumulator (self, self->node_usage);
    }
  else
    sim__node_usage_set_output (self->node_usage, sim__atomic_file_stream (self->nodes_file));
  return TRUE;
}

gboolean
sim_simulation_set_timeline (SimSimulation *self, const char *path, GError **error)
{
  SimTimeline *timeline;

  g_return_val_if_fail (SIM_IS_SIMULATION (self) && path != NULL, FALSE);
  if (self->started || self->timeline != NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                   "the timeline must be set once, before the run starts");
      return FALSE;
    }
  self->timeline_file = sim__atomic_file_new (path, error);
  if (self->timeline_file == NULL)
    return FALSE;
  timeline = sim_timeline_new (sim__atomic_file_stream (self->timeline_file), self->cluster);
  self->timeline = sim__timeline_accumulator_new (self->cluster, timeline,
                                                  self->scenario->mig_reconfigure_time,
                                                  self->failures);
  sim__simulation_add_accumulator (self, self->timeline);
  return TRUE;
}

SimTimeline *
sim__simulation_get_timeline (SimSimulation *self)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), NULL);
  return self->timeline != NULL ? sim__timeline_accumulator_get (self->timeline) : NULL;
}

gboolean
sim_simulation_set_policy (SimSimulation *self, SimPolicy *policy, GError **error)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self) && SIM_IS_POLICY (policy), FALSE);
  if (self->started)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                   "the policy must be set before the run starts");
      return FALSE;
    }
  if (SIM_POLICY_GET_IFACE (policy)->place == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "policy %s has no place method", G_OBJECT_TYPE_NAME (policy));
      return FALSE;
    }
  g_set_object (&self->policy, policy);
  return TRUE;
}

void
sim_simulation_set_progress_func (SimSimulation *self, SimProgressFunc func, gpointer user_data,
                                  GDestroyNotify destroy)
{
  g_return_if_fail (SIM_IS_SIMULATION (self));
  if (self->progress_destroy)
    self->progress_destroy (self->progress_data);
  self->progress = func;
  self->progress_data = user_data;
  self->progress_destroy = destroy;
}

void
sim_simulation_set_job_observer (SimSimulation *self, SimJobObserver func, gpointer user_data,
                                 GDestroyNotify destroy)
{
  g_return_if_fail (SIM_IS_SIMULATION (self));
  if (self->observer_destroy)
    self->observer_destroy (self->observer_data);
  self->observer = func;
  self->observer_data = user_data;
  self->observer_destroy = destroy;
}

/* ------------------------------------------------------------------------- */
/* Size limits.                                                              */

void
sim_simulation_estimate (SimSimulation *self, SimRunEstimate *estimate)
{
  const SimScenario *sc;

  g_return_if_fail (SIM_IS_SIMULATION (self) && estimate != NULL);
  sc = self->scenario;
  memset (estimate, 0, sizeof *estimate);
  estimate->jobs = sim__source_expected_jobs (sc);
  if (self->series_file != NULL && sc->horizon != SIM_TIME_NEVER && sc->sample_interval > 0)
    estimate->samples = (guint64) (sc->horizon / sc->sample_interval);
  estimate->output_bytes = (self->jobs_file != NULL ? estimate->jobs * SIM_JOB_ROW_BYTES : 0) +
                           estimate->samples * SIM_SAMPLE_ROW_BYTES;
}

void
sim_simulation_set_force (SimSimulation *self, gboolean force)
{
  g_return_if_fail (SIM_IS_SIMULATION (self));
  self->force = force;
}

/* The error for a run past a limit: what it would take, which key makes
 * it smaller, and --force. */
static GError *
too_big (SimSimulation *self, const char *group, const char *key, const char *format, ...)
{
  GError *error = NULL;
  g_autofree char *what = NULL;
  va_list ap;

  va_start (ap, format);
  what = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (&error, SIM_ERROR, SIM_ERROR_INVALID,
               "%s: more than a run may take without being forced (%g jobs, %g time-series "
               "rows, %g GB of output); change [%s] %s, or force it (gpusim --force, "
               "sim_simulation_set_force())", what, (double) SIM_LIMIT_JOBS,
               (double) SIM_LIMIT_SAMPLES, SIM_LIMIT_OUTPUT_BYTES / 1e9, group, key);
  sim__scenario_locate (self->scenario, group, key, &error);
  return error;
}

gboolean
sim_simulation_check_limits (SimSimulation *self, GError **error)
{
  SimRunEstimate e;

  g_return_val_if_fail (SIM_IS_SIMULATION (self), FALSE);
  if (self->force)
    return TRUE;
  sim_simulation_estimate (self, &e);
  if (e.jobs > SIM_LIMIT_JOBS)
    {
      *error = too_big (self, "workload", "rate", "this run would simulate about %.3g jobs",
                        (double) e.jobs);
      return FALSE;
    }
  if (e.samples > SIM_LIMIT_SAMPLES)
    {
      *error = too_big (self, "output", "timeseries_interval",
                        "this run would write about %.3g time-series rows", (double) e.samples);
      return FALSE;
    }
  if (e.output_bytes > SIM_LIMIT_OUTPUT_BYTES)
    {
      *error = too_big (self, "workload", "rate", "this run would write about %.3g GB",
                        e.output_bytes / 1e9);
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* Running.                                                                  */

static void
start (SimSimulation *self)
{
  self->started = TRUE;
  sim__metrics_clear (&self->metrics);
  sim__metrics_init_power (&self->metrics, sim_cluster_get_n_gpus (self->cluster),
                           self->jobs_file ? sim__atomic_file_stream (self->jobs_file) : NULL,
                           self->series_file ? sim__atomic_file_stream (self->series_file) : NULL,
                           self->scenario->power.enabled);
  if (self->cooling != NULL)
    {
      SimTime next = sim__cooling_set_time (self->cooling, 0);
      if (next != SIM_TIME_NEVER)
        sim_engine_schedule (self->engine, next, self->k_weather, 0, NULL, 0);
    }
  if (self->nap_tag != NULL)
    for (guint n = 0; n < sim_cluster_get_n_nodes (self->cluster); n++)
      schedule_nap (self, n, 0);
  if (self->scenario->power.enabled)
    note_power (self);
  pull_next (self);
  if (self->scenario->write_timeseries && self->series_file != NULL)
    sim_engine_schedule (self->engine, self->scenario->sample_interval, self->k_sample, 0, NULL, 0);
}

/* topology.dot in the output directory: the collapsed network diagram,
 * nodes coloured by their time-averaged GPU allocation (sim-diagram.h). */
static gboolean
write_topology (SimSimulation *self, SimAtomicFile **file, GError **error)
{
  guint n = sim_cluster_get_n_nodes (self->cluster);
  g_autofree double *heat = g_new0 (double, MAX (n, 1));
  g_autofree char *path = g_build_filename (self->output_dir, "topology.dot", NULL);
  g_autofree char *dot = NULL;
  SimDiagramOptions options = { FALSE, SIM_DIAGRAM_HEAT_NODES,
                                "GPUs allocated, time-averaged", heat, NULL, n };
  gsize len = 0;

  if (self->node_usage == NULL)
    options.heat = SIM_DIAGRAM_HEAT_NONE;
  else
    sim__node_usage_get_utilization (self->node_usage, heat, n);
  if (!sim_topology_render (self->topology, self->cluster, &options, "dot", &dot, &len, error))
    return FALSE;
  *file = sim__atomic_file_new (path, error);
  if (*file == NULL)
    return FALSE;
  fwrite (dot, 1, len, sim__atomic_file_stream (*file));
  return TRUE;
}

static gboolean
finish (SimSimulation *self, GError **error)
{
  SimTime end = self->scenario->horizon != SIM_TIME_NEVER ? self->scenario->horizon
                                                          : self->last_activity;
  g_autofree char *cluster = sim_cluster_describe (self->cluster);
  g_autofree char *workload = NULL;
  SimReportInfo info = { 0 };

  self->finished = TRUE;
  accumulate_time (self, end);
  if (self->series_file != NULL && end > self->metrics.series_last)
    sim__metrics_sample (&self->metrics, &self->state, end);
  for (GList *l = self->running.head; l != NULL; l = l->next)
    {
      update_progress (l->data, end);
      job_energy (self, l->data, end, TRUE);
      accumulate_job (self, SIM_JOB_UNFINISHED, l->data, end);
    }
  /* Preempted jobs waiting again have used GPU time too. */
  for (guint i = 0; i < self->queue->len; i++)
    accumulate_job (self, SIM_JOB_UNFINISHED, self->queue->pdata[i], end);
  for (guint i = 0; i < self->held->len; i++)
    accumulate_job (self, SIM_JOB_UNFINISHED, self->held->pdata[i], end);

  workload = sim__source_info (self->scenario->source)->describe (self->scenario, self->workload);
  info.scenario = self->scenario->name;
  info.seed = self->scenario->seed;
  info.cluster = cluster;
  info.nodes = sim_cluster_get_n_nodes (self->cluster);
  info.gpus = sim_cluster_get_n_gpus (self->cluster);
  info.policy = sim_policy_get_name (self->policy);
  info.workload = workload;
  info.events = sim_engine_dispatched (self->engine) - self->samples;
  info.skipped = sim_workload_get_skipped (self->workload);
  info.end = end;
  if (self->topology != NULL)
    {
      SimTopologyMetrics counts;
      sim_topology_get_counts (self->topology, &counts);
      info.have_fabric = TRUE;
      info.switches = counts.switches[0];
      info.cables = counts.cables;
      info.transceivers = counts.transceivers;
    }
  self->report = sim__report_new (&info);
  for (guint i = 0; i < self->accumulators->len; i++)
    {
      SimAccumulator *acc = self->accumulators->pdata[i];
      acc->vtable->report (acc, self->report, &info);
    }
  sim__cost_report_totals (self->report);
  sim__report_add_run (self->report, &info);
  {
    /* A figure that is not a number cannot be an answer. */
    g_autoptr(GPtrArray) names = sim_report_list_metrics (self->report);
    for (guint i = 0; i < names->len; i++)
      {
        double v = 0;
        sim_report_get_value (self->report, names->pdata[i], &v);
        if (!isfinite (v))
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                         "the run's %s came out as %g, which no run can give: a model of the "
                         "scenario (its [power], [cost] or [elastic] section, or the workload) "
                         "met a case it does not cover; no output is written",
                         (const char *) names->pdata[i], v);
            g_clear_pointer (&self->report, sim_report_unref);
            g_clear_pointer (&self->jobs_file, sim__atomic_file_free);
            g_clear_pointer (&self->series_file, sim__atomic_file_free);
            g_clear_pointer (&self->nodes_file, sim__atomic_file_free);
            g_clear_pointer (&self->timeline_file, sim__atomic_file_free);
            return FALSE;
          }
      }
  }
  if (self->progress != NULL)
    self->progress (self, 1.0, end, self->metrics.completed, self->progress_data);

  if (self->output_dir != NULL)
    {
      /* All outputs are replaced together or not at all. */
      g_autofree char *json = sim_report_to_json (self->report, TRUE);
      g_autofree char *path = g_build_filename (self->output_dir, "summary.json", NULL);
      g_autoptr(SimAtomicFile) summary = sim__atomic_file_new (path, error);
      SimAtomicFile *files[6];
      guint n = 0;
      gboolean ok;

      if (summary == NULL)
        {
          g_clear_pointer (&self->jobs_file, sim__atomic_file_free);
          g_clear_pointer (&self->series_file, sim__atomic_file_free);
          g_clear_pointer (&self->nodes_file, sim__atomic_file_free);
          g_clear_pointer (&self->timeline_file, sim__atomic_file_free);
          return FALSE;
        }
      fputs (json, sim__atomic_file_stream (summary));
      fputc ('\n', sim__atomic_file_stream (summary));
      SimAtomicFile *topology_file = NULL;
      if (self->jobs_file != NULL)
        files[n++] = self->jobs_file;
      if (self->series_file != NULL)
        files[n++] = self->series_file;
      if (self->nodes_file != NULL)
        files[n++] = self->nodes_file;
      if (self->timeline_file != NULL)
        files[n++] = self->timeline_file;
      if (self->topology != NULL && !write_topology (self, &topology_file, error))
        {
          g_clear_pointer (&self->jobs_file, sim__atomic_file_free);
          g_clear_pointer (&self->series_file, sim__atomic_file_free);
          g_clear_pointer (&self->nodes_file, sim__atomic_file_free);
          g_clear_pointer (&self->timeline_file, sim__atomic_file_free);
          return FALSE;
        }
      if (topology_file != NULL)
        files[n++] = topology_file;
      files[n++] = summary;
      ok = sim__atomic_files_commit (files, n, error);
      g_clear_pointer (&topology_file, sim__atomic_file_free);
      g_clear_pointer (&self->jobs_file, sim__atomic_file_free);
      g_clear_pointer (&self->series_file, sim__atomic_file_free);
      g_clear_pointer (&self->nodes_file, sim__atomic_file_free);
      g_clear_pointer (&self->timeline_file, sim__atomic_file_free);
      if (!ok)
        return FALSE;
    }
  else if (self->timeline_file != NULL)
    {
      gboolean ok = sim__atomic_file_commit (self->timeline_file, error);
      g_clear_pointer (&self->timeline_file, sim__atomic_file_free);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

/* Runs until LIMIT; stops early after a decision if PAUSE.  Returns FALSE
 * on failure; *stopped says whether it paused at a decision. */
static gboolean
advance (SimSimulation *self, SimTime limit, gboolean pause, gboolean *stopped, GError **error)
{
  SimRunStatus status;
  SimTime until = MIN (limit, self->scenario->horizon);

  *stopped = FALSE;
  /* A decision left pending is made first, by the policy. */
  if (self->decision_pending && !sim_simulation_decide (self, TRUE, error))
    return FALSE;
  if (self->error != NULL)
    {
      g_propagate_error (error, g_error_copy (self->error));
      return FALSE;
    }
  if (self->finished)
    return TRUE;
  if (!self->started)
    {
      if (!sim_simulation_check_limits (self, error))
        {
          g_clear_pointer (&self->jobs_file, sim__atomic_file_free);
          g_clear_pointer (&self->series_file, sim__atomic_file_free);
          g_clear_pointer (&self->nodes_file, sim__atomic_file_free);
          g_clear_pointer (&self->timeline_file, sim__atomic_file_free);
          return FALSE;
        }
      start (self);
    }
  self->pause_at_decision = pause;
  status = sim_engine_run (self->engine, until);
  self->pause_at_decision = FALSE;
  if (status == SIM_RUN_FAILED && self->error == NULL)
    {
      /* An event the engine refused: a time computed before now or past
       * the end of simulated time.  The run cannot go on. */
      self->error = g_error_copy (sim_engine_get_error (self->engine));
      g_prefix_error (&self->error, "the run stopped at %.3f s of simulated time: ",
                      sim_time_to_seconds (sim_engine_now (self->engine)));
    }
  if (self->error != NULL)
    {
      /* Outputs are abandoned whole: the temporary files go away. */
      g_clear_pointer (&self->jobs_file, sim__atomic_file_free);
      g_clear_pointer (&self->series_file, sim__atomic_file_free);
      g_clear_pointer (&self->nodes_file, sim__atomic_file_free);
      g_clear_pointer (&self->timeline_file, sim__atomic_file_free);
      g_propagate_error (error, g_error_copy (self->error));
      return FALSE;
    }
  if (status == SIM_RUN_STOPPED)
    {
      /* Paused at a decision, before its pass. */
      *stopped = TRUE;
      return TRUE;
    }
  if (status == SIM_RUN_EMPTY)
    return finish (self, error);
  /* SIM_RUN_TIME_REACHED: the caller's limit, or the horizon. */
  if (self->scenario->horizon != SIM_TIME_NEVER &&
      sim_engine_now (self->engine) >= self->scenario->horizon)
    return finish (self, error);
  return TRUE;
}

gboolean
sim_simulation_run (SimSimulation *self, GError **error)
{
  gboolean stopped;

  g_return_val_if_fail (SIM_IS_SIMULATION (self), FALSE);
  return advance (self, SIM_TIME_NEVER, FALSE, &stopped, error);
}

gboolean
sim_simulation_run_until (SimSimulation *self, SimTime until, GError **error)
{
  gboolean stopped;

  g_return_val_if_fail (SIM_IS_SIMULATION (self), FALSE);
  return advance (self, until, FALSE, &stopped, error);
}

gboolean
sim_simulation_run_to_decision (SimSimulation *self, GError **error)
{
  gboolean stopped;

  g_return_val_if_fail (SIM_IS_SIMULATION (self), FALSE);
  if (!advance (self, SIM_TIME_NEVER, TRUE, &stopped, error))
    return FALSE;
  return stopped && self->decision_pending;
}

void
sim__simulation_add_accumulator (SimSimulation *self, SimAccumulator *acc)
{
  g_return_if_fail (SIM_IS_SIMULATION (self) && acc != NULL && !self->started);
  g_ptr_array_add (self->accumulators, acc);
}

gboolean
sim_simulation_set_node_available (SimSimulation *self, guint node, gboolean available,
                                   GError **error)
{
  SimTime now;

  g_return_val_if_fail (SIM_IS_SIMULATION (self), FALSE);
  if (node >= sim_cluster_get_n_nodes (self->cluster))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "node %u does not exist (the cluster "
                   "has %u)", node, sim_cluster_get_n_nodes (self->cluster));
      return FALSE;
    }
  now = sim_engine_now (self->engine);
  if (self->started)
    tick (self, now);
  if (!sim_cluster_set_node_available (self->cluster, node, available))
    return TRUE;
  if (self->started && !self->finished)
    {
      note_state (self);
      /* GPUs came back (or left): the queue may move. */
      if (!self->decision_pending)
        request_decision (self);
    }
  return TRUE;
}

void
sim__simulation_finish_outside (SimSimulation *self, SimJob *job)
{
  SimTime now = sim_engine_now (self->engine);

  tick (self, now);
  self->last_activity = now;
  job->state = SIM_JOB_DONE;
  job->end = now;
  job->work_left = 0;
  accumulate_job (self, SIM_JOB_FINISHED, job, now);
  free_job (job);
}

gboolean
sim__simulation_check_state (SimSimulation *self, GError **error)
{
  double computing = 0, active = 0;
  guint64 milli = 0;

  g_return_val_if_fail (SIM_IS_SIMULATION (self), FALSE);
  for (GList *l = self->running.head; l != NULL; l = l->next)
    {
      const SimJob *job = l->data;
      computing += job->n_gpus * (double) job->spec.gpu_milli * job->rate / job->speed;
      active += job->active_gpus;
      milli += (guint64) job->n_gpus * job->spec.gpu_milli;
    }
  if (fabs (computing - self->computing_milli) > 1e-6 * MAX (1.0, computing) ||
      fabs (active - self->active_gpus) > 1e-6 * MAX (1.0, active) ||
      milli != sim_cluster_get_allocated_milli (self->cluster))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                   "at %.3f s: kept computing %.9g, active %.9g, allocated %" G_GUINT64_FORMAT
                   "; recomputed from the running jobs %.9g, %.9g, %" G_GUINT64_FORMAT,
                   sim_time_to_seconds (sim_engine_now (self->engine)), self->computing_milli,
                   self->active_gpus, sim_cluster_get_allocated_milli (self->cluster), computing,
                   active, milli);
      return FALSE;
    }
  return TRUE;
}

SimSchedContext *
sim_simulation_get_decision (SimSimulation *self)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), NULL);
  return self->decision_pending ? &self->decision : NULL;
}

gboolean
sim_simulation_decide (SimSimulation *self, gboolean run_policy, GError **error)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), FALSE);
  if (!self->decision_pending)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                   "no decision is pending: run to one first (sim_simulation_run_to_decision())");
      return FALSE;
    }
  self->decision_pending = FALSE;
  if (run_policy)
    decision_pass (self);
  decision_end (self);
  if (self->error != NULL)
    {
      g_clear_pointer (&self->jobs_file, sim__atomic_file_free);
      g_clear_pointer (&self->series_file, sim__atomic_file_free);
      g_clear_pointer (&self->nodes_file, sim__atomic_file_free);
      g_clear_pointer (&self->timeline_file, sim__atomic_file_free);
      g_propagate_error (error, g_error_copy (self->error));
      return FALSE;
    }
  return TRUE;
}

gboolean
sim_simulation_is_finished (SimSimulation *self)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), TRUE);
  return self->finished;
}

SimTime
sim_simulation_get_now (SimSimulation *self)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), 0);
  return sim_engine_now (self->engine);
}

const SimCluster *
sim_simulation_get_cluster (SimSimulation *self)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), NULL);
  return self->cluster;
}

SimScenario *
sim_simulation_get_scenario (SimSimulation *self)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), NULL);
  return self->scenario;
}

SimPolicy *
sim_simulation_get_policy (SimSimulation *self)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), NULL);
  return self->policy;
}

SimReport *
sim_simulation_get_report (SimSimulation *self)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), NULL);
  return self->report;
}

guint
sim_simulation_get_n_classes (SimSimulation *self)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), 0);
  return self->n_class_scaling;
}

const char *
sim_simulation_get_class_name (SimSimulation *self, guint job_class)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), NULL);
  if (job_class >= self->n_class_scaling)
    return NULL;
  return self->class_scaling[job_class].config->name;
}

gboolean
sim_simulation_get_class_speedup (SimSimulation *self, guint job_class, guint n_gpus,
                                  double *speedup, GError **error)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), FALSE);
  g_return_val_if_fail (speedup != NULL, FALSE);
  if (job_class >= self->n_class_scaling)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "no job class %u: the workload has %u synthetic class(es)", job_class,
                   self->n_class_scaling);
      return FALSE;
    }
  if (n_gpus == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "a speed-up needs at least one GPU");
      return FALSE;
    }
  return class_speedup (self, self->class_scaling[job_class].config, n_gpus, speedup, error);
}

/* ------------------------------------------------------------------------- */
/* Power.                                                                    */

gboolean
sim__simulation_set_gpu_cap (SimSimulation *self, guint gpu, double cap_w, GError **error)
{
  SimTime now;
  gboolean live;

  g_return_val_if_fail (SIM_IS_SIMULATION (self), FALSE);
  now = sim_engine_now (self->engine);
  live = self->started && !self->finished;
  if (gpu < sim_cluster_get_n_gpus (self->cluster) &&
      sim__power_get_cap (self->power, gpu) == cap_w)
    return TRUE;
  if (live)
    tick (self, now);
  if (!sim__power_set_cap (self->power, gpu, cap_w, error))
    return FALSE;
  if (!live)
    return TRUE;
  clock_refresh (self, gpu, now);
  note_state (self);
  return TRUE;
}

gboolean
sim__simulation_set_gpu_caps (SimSimulation *self, const double *caps_w, GError **error)
{
  guint n;
  SimTime now;
  gboolean live, any = FALSE;
  g_autofree double *before = NULL;

  g_return_val_if_fail (SIM_IS_SIMULATION (self) && caps_w != NULL, FALSE);
  n = sim_cluster_get_n_gpus (self->cluster);
  now = sim_engine_now (self->engine);
  live = self->started && !self->finished;
  before = g_new (double, MAX (n, 1));
  for (guint g = 0; g < n; g++)
    {
      before[g] = sim__power_get_cap (self->power, g);
      any |= before[g] != caps_w[g];
    }
  if (!any)
    return TRUE;
  if (live)
    tick (self, now);
  for (guint g = 0; g < n; g++)
    if (before[g] != caps_w[g] && !sim__power_set_cap (self->power, g, caps_w[g], error))
      {
        /* All or nothing: the caps set so far go back. */
        for (guint k = 0; k < g; k++)
          sim__power_set_cap (self->power, k, before[k], NULL);
        return FALSE;
      }
  if (!live)
    return TRUE;
  /* Each job on a GPU whose cap changed moves to its new speed once. */
  for (GList *l = self->running.head; l != NULL; l = l->next)
    {
      SimJob *job = l->data;
      gboolean on = FALSE;
      for (guint i = 0; i < job->n_gpus && !on; i++)
        on = before[job->gpus[i]] != caps_w[job->gpus[i]];
      if (on)
        job_clock_refresh (self, job, now);
    }
  note_state (self);
  return TRUE;
}

double
sim__simulation_get_gpu_cap (SimSimulation *self, guint gpu)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), 0);
  g_return_val_if_fail (gpu < sim_cluster_get_n_gpus (self->cluster), 0);
  return sim__power_get_cap (self->power, gpu);
}

double
sim__simulation_get_gpu_activity (SimSimulation *self, guint gpu)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), 0);
  g_return_val_if_fail (gpu < sim_cluster_get_n_gpus (self->cluster), 0);
  return sim__power_get_busy (self->power, gpu);
}

double
sim__simulation_get_gpu_power (SimSimulation *self, guint gpu)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), 0);
  g_return_val_if_fail (gpu < sim_cluster_get_n_gpus (self->cluster), 0);
  if (!self->scenario->power.enabled)
    return 0;
  return sim__power_gpu_w (self->power, gpu);
}

double
sim__simulation_get_node_power (SimSimulation *self, guint node)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), 0);
  g_return_val_if_fail (node < sim_cluster_get_n_nodes (self->cluster), 0);
  if (!self->scenario->power.enabled)
    return 0;
  return sim__power_node_w (self->power, node);
}

gboolean
sim__simulation_get_power (SimSimulation *self, double *it_w, double *facility_w)
{
  double it = 0, facility = 0;

  g_return_val_if_fail (SIM_IS_SIMULATION (self), FALSE);
  if (self->scenario->power.enabled)
    {
      SimState saved = self->state;
      note_power (self);
      it = self->state.it_power_w;
      facility = self->state.facility_power_w;
      self->state = saved;
    }
  if (it_w != NULL)
    *it_w = it;
  if (facility_w != NULL)
    *facility_w = facility;
  return self->scenario->power.enabled;
}

double
sim__simulation_get_full_power (SimSimulation *self, double *node_w, guint n_nodes)
{
  guint n = sim_cluster_get_n_nodes (self->cluster);
  double total = 0;

  g_return_val_if_fail (SIM_IS_SIMULATION (self), 0);
  g_return_val_if_fail (node_w != NULL || n_nodes == 0, 0);
  for (guint i = 0; i < n; i++)
    {
      double w = self->scenario->power.enabled ? sim__power_node_full_w (self->power, i) : 0;
      total += w;
      if (i < n_nodes)
        node_w[i] = w;
    }
  return self->scenario->power.enabled ? total + sim__power_get_network (self->power) : 0;
}

SimAccumulator *
sim__simulation_get_cost (SimSimulation *self, double *fixed_usd_per_hour)
{
  SimReportInfo info = { 0 };

  g_return_val_if_fail (SIM_IS_SIMULATION (self), NULL);
  if (fixed_usd_per_hour != NULL)
    *fixed_usd_per_hour = 0;
  if (self->cost == NULL)
    return NULL;
  if (self->topology != NULL)
    {
      SimTopologyMetrics counts;
      sim_topology_get_counts (self->topology, &counts);
      info.have_fabric = TRUE;
      info.switches = counts.switches[0];
      info.cables = counts.cables;
      info.transceivers = counts.transceivers;
    }
  if (fixed_usd_per_hour != NULL)
    *fixed_usd_per_hour = sim__cost_fixed_per_hour (self->cost, &info);
  return self->cost;
}

void
sim__simulation_add_power_watch (SimSimulation *self, SimPowerWatchFunc func, gpointer user_data)
{
  PowerWatch w = { func, user_data };

  g_return_if_fail (SIM_IS_SIMULATION (self) && func != NULL);
  g_array_append_val (self->watches, w);
}

guint64
sim__simulation_add_timer (SimSimulation *self, SimTime when, SimTimerFunc func,
                           gpointer user_data)
{
  guint slot;
  Timer *t;

  g_return_val_if_fail (SIM_IS_SIMULATION (self) && func != NULL, 0);
  if (when < sim_engine_now (self->engine) || when >= SIM_TIME_NEVER)
    return 0;
  if (self->free_timer > 0)
    {
      slot = self->free_timer - 1;
      self->free_timer = g_array_index (self->timers, Timer, slot).next_free;
    }
  else
    {
      slot = self->timers->len;
      g_array_set_size (self->timers, slot + 1);
    }
  t = &g_array_index (self->timers, Timer, slot);
  t->func = func;
  t->data = user_data;
  t->next_free = 0;
  t->id = sim_engine_schedule (self->engine, when, self->k_timer, 0, NULL, slot);
  return t->id;
}

gboolean
sim__simulation_cancel_timer (SimSimulation *self, guint64 timer)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), FALSE);
  if (timer == 0)
    return FALSE;
  for (guint slot = 0; slot < self->timers->len; slot++)
    {
      Timer *t = &g_array_index (self->timers, Timer, slot);
      if (t->id != timer)
        continue;
      sim_engine_cancel (self->engine, timer);
      t->id = 0;
      t->next_free = self->free_timer;
      self->free_timer = slot + 1;
      return TRUE;
    }
  return FALSE;
}

/* ------------------------------------------------------------------------- */
/* For the power policies (power/sim-power-policy.h).                       */

SimPower *
sim__simulation_get_power_model (SimSimulation *self)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (self), NULL);
  return self->power;
}

void
sim__simulation_set_start_gate (SimSimulation *self, SimStartGateFunc admit,
                                SimPassEndFunc pass_end, gpointer data)
{
  g_return_if_fail (SIM_IS_SIMULATION (self) && !self->started);
  self->gate = admit;
  self->gate_pass_end = pass_end;
  self->gate_data = data;
}

void
sim__simulation_request_decision (SimSimulation *self)
{
  g_return_if_fail (SIM_IS_SIMULATION (self));
  if (self->started && !self->finished && !self->decision_pending)
    request_decision (self);
}

/* Node N's CPU reserved, as power_node_load() gives it to the power model,
 * with EXTRA_CPU more. */
static double
cpu_load_with (SimSimulation *self, guint n, guint64 extra_cpu)
{
  const SimNode *node = sim_cluster_get_node (self->cluster, n);

  return (node->cpu_milli - node->free_cpu_milli + extra_cpu) / (double) node->cpu_milli;
}

gboolean
sim__simulation_estimate_start_power (SimSimulation *self, const SimJob *job,
                                      const SimPlacement *placement, double *facility_w)
{
  double intensity, activity, it;
  guint n = placement->n_gpus;
  g_autofree guint *nodes = g_new (guint, MAX (n, 1));
  g_autofree gboolean *woke = g_new0 (gboolean, MAX (n, 1));
  g_autofree gboolean *loaded = g_new0 (gboolean, MAX (n, 1));
  g_autofree double *busy = g_new (double, MAX (n, 1));
  guint n_nodes = 0;

  g_return_val_if_fail (SIM_IS_SIMULATION (self) && job != NULL && placement != NULL, FALSE);
  if (!self->scenario->power.enabled)
    return FALSE;
  intensity = sim_power_intensity (job->spec.memory_bound, self->scenario->power.memory_power);
  activity = job_activity (job);
  /* The job's GPUs held and as busy as it can keep them at their clocks,
   * its nodes awake and their CPUs as loaded as the start would make them: */
  for (guint i = 0; i < n; i++)
    {
      guint g = placement->gpus[i];
      double s = sim_power_speed (sim__power_get_clock (self->power, g), job->spec.memory_bound);
      busy[i] = MIN (placement->milli / (double) SIM_GPU_WHOLE, activity / MAX (s, 1e-9));
      sim__power_add_busy (self->power, g, busy[i], intensity, 1, placement->milli);
    }
  for (guint i = 0; i < n; i++)
    {
      guint node = sim_cluster_get_gpu (self->cluster, placement->gpus[i])->node;
      guint gpus_here = 0;
      guint64 cpu, mem;
      gboolean seen = FALSE;
      for (guint k = 0; k < n_nodes && !seen; k++)
        seen = nodes[k] == node;
      if (seen)
        continue;
      for (guint k = 0; k < n; k++)
        gpus_here += sim_cluster_get_gpu (self->cluster, placement->gpus[k])->node == node;
      sim_job_host_share (job, gpus_here, &cpu, &mem);
      woke[n_nodes] = sim__power_is_asleep (self->power, node);
      if (woke[n_nodes])
        sim__power_set_asleep (self->power, node, FALSE);
      loaded[n_nodes] = job->spec.cpu_milli > 0 &&
                        sim_cluster_get_node (self->cluster, node)->cpu_milli > 0;
      if (loaded[n_nodes])
        sim__power_set_cpu_load (self->power, node, cpu_load_with (self, node, cpu));
      nodes[n_nodes++] = node;
    }
  sim__simulation_get_power (self, &it, facility_w);
  /* ... and back as they are. */
  for (guint k = 0; k < n_nodes; k++)
    {
      if (loaded[k])
        sim__power_set_cpu_load (self->power, nodes[k], cpu_load_with (self, nodes[k], 0));
      if (woke[k])
        sim__power_set_asleep (self->power, nodes[k], TRUE);
    }
  for (guint i = n; i-- > 0;)
    sim__power_add_busy (self->power, placement->gpus[i], -busy[i], intensity, -1,
                         placement->milli);
  return TRUE;
}

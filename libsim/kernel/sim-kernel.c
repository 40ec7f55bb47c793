/* sim-kernel.c: the simulation kernel: jobs' lives, the queue, the decision
 * protocol, rates, the run's control, and the hooks and services modules
 * attach through (sim-kernel.h). */
#include "config.h"

#include "kernel/sim-kernel-private.h"
#include "core/sim-error.h"
#include "core/sim-util.h"
#include "cluster/sim-mig.h"
#include "cluster/sim-cluster-private.h"
#include "scenario/sim-sources.h"

#include <math.h>
#include <string.h>

/* Decision passes allowed at one instant before a policy is declared
 * livelocked (each pass that preempts asks for another at the same time;
 * a legitimate cascade is bounded by the jobs involved). */
#define MAX_PASSES_AT_ONE_INSTANT 100000u

/* How often (in events) the progress function is called. */
#define PROGRESS_EVERY 16384

typedef struct {
  SimTimerFunc func;
  gpointer     data;
  SimEventId   id;
  guint        next_free;
} Timer;

/* The kernel lets go of JOB: what it registered goes, and the job itself
 * when no binding keeps it (sim-job.h). */
static void
free_job (SimJob *job)
{
  sim__job_comm_forget (job);
  sim_job_unref (job);
}

static void
free_accumulator (gpointer acc)
{
  ((SimAccumulator *) acc)->vtable->free (acc);
}

void
sim__kernel_init (SimSimulation *self)
{
  self->queue = g_ptr_array_new ();
  g_queue_init (&self->running);
  self->requeue = g_ptr_array_new ();
  self->held = g_ptr_array_new ();
  sim__metrics_init (&self->metrics, 0, NULL, NULL);
  self->accumulators = g_ptr_array_new_with_free_func (free_accumulator);
  g_ptr_array_add (self->accumulators, sim__metrics_accumulator_new (&self->metrics));
  for (guint h = 0; h < SIM_N_HOOKS; h++)
    self->hooks[h] = g_array_new (FALSE, FALSE, sizeof (SimHookSlot));
  self->gates = g_array_new (FALSE, FALSE, sizeof (SimHookSlot));
  self->gate_ends = g_array_new (FALSE, FALSE, sizeof (SimHookSlot));
  self->claims = g_array_new (FALSE, FALSE, sizeof (SimHookSlot));
  self->start_factors = g_array_new (FALSE, FALSE, sizeof (SimHookSlot));
  self->capacity_factors = g_array_new (FALSE, FALSE, sizeof (SimHookSlot));
  self->extensions = g_array_new (FALSE, FALSE, sizeof (SimExtension));
  self->timers = g_array_new (FALSE, FALSE, sizeof (Timer));
}

void
sim__kernel_finalize (SimSimulation *self)
{
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
  /* Modules' state, last attached first. */
  for (guint i = self->extensions->len; i-- > 0;)
    {
      SimExtension *e = &g_array_index (self->extensions, SimExtension, i);
      if (e->destroy != NULL)
        e->destroy (e->state);
    }
  g_array_unref (self->extensions);
  for (guint h = 0; h < SIM_N_HOOKS; h++)
    g_array_unref (self->hooks[h]);
  g_array_unref (self->gates);
  g_array_unref (self->gate_ends);
  g_array_unref (self->claims);
  g_array_unref (self->start_factors);
  g_array_unref (self->capacity_factors);
  g_array_unref (self->timers);
  if (self->sharers != NULL)
    for (guint g = 0; g < sim_cluster_get_n_gpus (self->cluster); g++)
      g_clear_pointer (&self->sharers[g], g_ptr_array_unref);
  g_clear_pointer (&self->sharers, g_free);
  g_clear_pointer (&self->demand, g_free);
  g_free (self->stop_nodes);
}

/* ------------------------------------------------------------------------- */
/* The state and the accumulators.                                           */

void
sim__kernel_fail (SimSimulation *self, GError *error)
{
  if (self->error == NULL)
    self->error = error;
  else
    g_error_free (error);
  sim_engine_stop (self->engine);
}

/* Whether the policy has reported a failure (sim_policy_fail()); if so,
 * the run stops with it, naming the policy and the time.  Called after
 * every call into the policy: a neutral value it returned after failing
 * (a job that "does not fit") must not be acted on. */
static gboolean
policy_failed (SimSimulation *self)
{
  g_autofree char *name = NULL;
  g_autoptr(GError) failure = NULL;

  if (!sim__policy_has_failure (self->policy))
    return FALSE;
  /* The name first: asking for it calls the policy again, and a failure
   * of that call is ignored while this one is held. */
  name = g_strdup (sim__policy_name (self->policy));
  failure = sim__policy_take_failure (self->policy);
  sim__kernel_fail (self, g_error_new (SIM_ERROR, SIM_ERROR_STATE, "policy %s failed at %.3f s: %s",
                                       name, sim_time_to_seconds (sim_engine_now (self->engine)),
                                       failure->message));
  return TRUE;
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

/* The state that holds until the next event, for the metrics: the
 * kernel's part, then the modules' (STATE_NOTE), then the watches
 * (STATE_CHANGED), which see the state as it now is; what they change is
 * noted by the calls they make, without calling them again. */
static void
note_state (SimSimulation *self)
{
  self->state.allocated_milli = sim_cluster_get_allocated_milli (self->cluster);
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
  SIM__EMIT (self, SIM_HOOK_STATE_NOTE, SimStateNoteFunc, &self->state,
        sim_engine_now (self->engine));
  if (self->hooks[SIM_HOOK_STATE_CHANGED]->len > 0 && !self->in_watch)
    {
      SimTime now = sim_engine_now (self->engine);
      self->in_watch = TRUE;
      for (guint i = 0; i < self->hooks[SIM_HOOK_STATE_CHANGED]->len; i++)
        {
          const SimHookSlot *s = &g_array_index (self->hooks[SIM_HOOK_STATE_CHANGED],
                                                 SimHookSlot, i);
          ((SimWatchFunc) s->func) (self, now, s->data);
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

/* ------------------------------------------------------------------------- */
/* Arrivals.                                                                 */

/* Reads the next job from the workload and schedules its arrival. */
static void
pull_next (SimSimulation *self)
{
  GError *error = NULL;

  self->have_next = sim_workload_next (self->workload, &self->next, &error);
  if (error != NULL)
    {
      sim__kernel_fail (self, error);
      return;
    }
  if (!self->have_next)
    {
      /* A trace that gives no job at all is a mistake, not an empty run. */
      if (self->workload->produced == 0 && sim__source_info (self->scenario->source)->is_trace)
        sim__kernel_fail (self, sim__workload_no_jobs_error (self->workload));
      return;
    }
  if (self->next.submit < sim_engine_now (self->engine))
    {
      sim__kernel_fail (self, g_error_new (SIM_ERROR, SIM_ERROR_TRACE,
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
      policy_failed (self);
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
  policy_failed (self);
}

/* A job the workload gives settles its request: a communication profile
 * drawn from the mix when it has none (and no measured curve, which
 * already includes its communication), and a moldable job's GPU count. */
static void
settle_request (SimSimulation *self, SimJob *job)
{
  const SimScenario *sc = self->scenario;

  if (job->spec.comm.iteration == 0 && sc->n_comm_mix > 0 &&
      !sim__class_scaling_measured (self->scaling, job))
    {
      double u = sim_rng_uniform (self->comm_rng) * self->comm_mix_total;
      guint k = 0;
      while (k + 1 < sc->n_comm_mix && u >= sc->comm_mix[k].share)
        u -= sc->comm_mix[k++].share;
      job->spec.comm = sc->comm_mix[k].profile;
    }
  if (job->spec.gpus_min > 0)
    sim__class_scaling_mold (self->scaling, job);
}

/* Whether a module takes JOB out of the cluster (a serverless function). */
static gboolean
claimed (SimSimulation *self, SimJob *job, SimTime now)
{
  for (guint i = 0; i < self->claims->len; i++)
    {
      const SimHookSlot *s = &g_array_index (self->claims, SimHookSlot, i);
      if (((SimJobClaimFunc) s->func) (s->data, job, now))
        return TRUE;
    }
  return FALSE;
}

static GError *too_many_jobs (SimSimulation *self);

/* A job arrives at NOW with SPEC: into the queue, to a module that claims
 * it (unless it is a module's own, MINE), or rejected. */
static SimJob *
arrive (SimSimulation *self, const SimJobSpec *spec, SimTime now, gboolean mine)
{
  SimJob *job;

  tick (self, now);
  self->last_activity = now;
  job = g_new0 (SimJob, 1);
  job->ref_count = 1;
  job->spec = *spec;
  job->state = SIM_JOB_QUEUED;
  job->start = job->end = job->first_start = -1;
  job->work_left = job->spec.duration;
  job->rate = 1.0;
  job->speed = 1.0;
  job->queue_seq = self->next_queue_seq++;
  job->running_link.data = job;
  if (!mine)
    settle_request (self, job);
  accumulate_job (self, SIM_JOB_SUBMITTED, job, now);
  if (!self->force && self->metrics.submitted > SIM_LIMIT_JOBS)
    sim__kernel_fail (self, too_many_jobs (self));
  if (!mine && claimed (self, job, now))
    return NULL; /* it runs outside the cluster */
  if (can_ever_fit (self, &job->spec))
    {
      SIM__EMIT (self, SIM_HOOK_JOB_ARRIVED, SimJobHookFunc, job, now);
      enqueue (self, job);
      note_state_before_decision (self);
      request_decision (self);
      return job;
    }
  accumulate_job (self, SIM_JOB_REJECTED, job, now);
  free_job (job);
  return NULL;
}

static void
on_arrival (SimEngine *engine, const SimEvent *ev, gpointer data)
{
  SimSimulation *self = data;

  arrive (self, &self->next, ev->time, FALSE);
  pull_next (self);
}

SimJob *
sim__kernel_submit_job (SimSimulation *sim, const SimJobSpec *spec)
{
  SimJobSpec copy = *spec;

  g_return_val_if_fail (sim->started && !sim->finished, NULL);
  copy.submit = sim_engine_now (sim->engine);
  return arrive (sim, &copy, copy.submit, TRUE);
}

/* ------------------------------------------------------------------------- */
/* Progress.                                                                 */

/* The nodes JOB spans, with how many of its GPUs are on each, in the order
 * they first appear in its GPU list. */
typedef struct {
  guint node, gpus;
} NodeShare;

static GArray *
node_shares (SimSimulation *self, const SimJob *job)
{
  GArray *shares = g_array_new (FALSE, FALSE, sizeof (NodeShare));
  const SimGpu *gpus = sim__cluster_gpus (self->cluster);

  for (guint i = 0; i < job->n_gpus; i++)
    {
      guint node = gpus[job->gpus[i]].node;
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

static void
release_host (SimSimulation *self, const SimJob *job, guint node, guint gpus)
{
  guint64 cpu, mem;

  sim_job_host_share (job, gpus, &cpu, &mem);
  sim_cluster_release_host (self->cluster, node, cpu, mem);
}

/* ------------------------------------------------------------------------- */
/* Starts and stops.                                                         */

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
 * cluster (and, through STOPPING, the modules'), all at once (a hint: on a
 * large cluster they were last touched long before, and their misses then
 * overlap). */
static void
prefetch_job (SimSimulation *self, SimJob *job)
{
  guint last = G_MAXUINT;
  guint *nodes;

  if (self->n_stop_nodes < job->n_gpus)
    {
      self->n_stop_nodes = MAX (job->n_gpus, 2 * self->n_stop_nodes);
      self->stop_nodes = g_renew (guint, self->stop_nodes, self->n_stop_nodes);
    }
  nodes = self->stop_nodes;
  for (guint i = 0; i < job->n_gpus; i++)
    {
      guint node = sim__cluster_node_of (self->cluster, job->gpus[i]);
      /* A node's records once (G_MAXUINT asks for none). */
      nodes[i] = node == last ? G_MAXUINT : node;
      sim__cluster_prefetch (self->cluster, job->gpus[i], nodes[i]);
      last = node;
    }
  SIM__EMIT (self, SIM_HOOK_JOB_STOPPING, SimJobStoppingFunc, job, nodes);
}

/* Takes a running job off its GPUs (finished or preempted). */
static void
stop_job (SimSimulation *self, SimJob *job, SimTime now)
{
  prefetch_job (self, job);
  sim__kernel_update_progress (job, now);
  release_gpus (self, job);
  if (job->spec.cpu_milli > 0 || job->spec.memory_bytes > 0)
    {
      g_autoptr(GArray) shares = node_shares (self, job);
      for (guint k = 0; k < shares->len; k++)
        release_host (self, job, g_array_index (shares, NodeShare, k).node,
                      g_array_index (shares, NodeShare, k).gpus);
    }
  g_queue_unlink (&self->running, &job->running_link);
  self->computing_milli -= job->computing;
  job->computing = 0;
  SIM__EMIT (self, SIM_HOOK_JOB_STOPPED, SimJobHookFunc, job, now);
  self->active_gpus -= job->active_gpus;
  job->active_gpus = 0;
  job->version++;
  sim_engine_cancel (self->engine, job->completion);
  job->completion = 0;
  if (sim__kernel_job_time_shares (job))
    {
      sim__kernel_share_join (self, job, -1);
      sim__kernel_share_refresh (self, job->gpus[0], now);
    }
  if (self->comm != NULL)
    sim__job_comm_release (self->comm, job);
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
  SIM__EMIT (self, SIM_HOOK_JOB_FINISHED, SimJobHookFunc, job, ev->time);
  if (self->observer)
    self->observer (self, job, self->observer_data);
  free_job (job);
  note_state_before_decision (self);
  request_decision (self);
}

/* Allocates PLACEMENT's GPUs (or MIG instance) to JOB. */
static gboolean
allocate (SimSimulation *self, SimJob *job, const SimPlacement *placement, GError **error)
{
  const SimNode *node;
  int profile, start;

  if (job->spec.mig_profile == NULL)
    return sim_cluster_allocate (self->cluster, placement->gpus, placement->n_gpus,
                                 placement->milli, error);
  /* One MIG instance; creating it reconfigures the GPU, which takes time. */
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
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE, "GPU %u (%s) has no MIG profile %s",
                   placement->gpus[0], node->gpu_model->name, job->spec.mig_profile);
      return FALSE;
    }
  start = sim_cluster_mig_allocate (self->cluster, placement->gpus[0], (guint) profile,
                                    placement->mig_start, error);
  if (start < 0)
    return FALSE;
  job->mig_start = start;
  job->spec.gpu_milli = sim_mig_instance_milli (node->gpu_model, (guint) profile);
  return TRUE;
}

static gboolean
start_job (gpointer owner, SimJob *job, const SimPlacement *placement, GError **error)
{
  SimSimulation *self = owner;
  SimTime now = sim_engine_now (self->engine);
  guint32 asked_milli = job->spec.gpu_milli;
  guint reserved = 0;
  SimTime wake = 0;
  g_autoptr(GArray) shares = NULL;

  if (!allocate (self, job, placement, error))
    return FALSE;
  g_free (job->gpus);
  job->gpus = g_memdup2 (placement->gpus, placement->n_gpus * sizeof (guint32));
  job->n_gpus = placement->n_gpus;
  shares = node_shares (self, job);
  job->n_nodes = shares->len;
  if (job->spec.cpu_milli > 0 || job->spec.memory_bytes > 0)
    {
      /* Reserve host CPU and memory node by node. */
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
  /* The modules take note (its nodes wake if asleep: it waits for them). */
  for (guint i = 0; i < self->hooks[SIM_HOOK_JOB_PLACED]->len; i++)
    {
      const SimHookSlot *s = &g_array_index (self->hooks[SIM_HOOK_JOB_PLACED], SimHookSlot, i);
      SimTime w = ((SimJobPlacedFunc) s->func) (s->data, job, placement, now);
      wake = MAX (wake, w);
    }
  /* Its GPUs' speed, its scaling on their count and its share of a
   * shared GPU: one product, the speed every rate of the job is measured
   * against (a change of share rescales it: reshare()). */
  sim__kernel_share_join (self, job, 1);
  job->share = sim__kernel_share_speed (self, job);
  job->speed = sim__kernel_compose (self->start_factors, job) * job->share;
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
  sim__kernel_account_computing (self, job);
  accumulate_job (self, SIM_JOB_STARTED, job, now);
  sim__kernel_schedule_completion (self, job, now);
  sim__kernel_account_activity (self, job);
  if (sim__kernel_job_time_shares (job))
    sim__kernel_share_refresh (self, job->gpus[0], now);
  SIM__EMIT (self, SIM_HOOK_JOB_STARTED, SimJobHookFunc, job, now);
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
/* Services that act on the run.                                             */

void
sim__kernel_change_begin (SimSimulation *sim, SimTime now)
{
  if (sim__kernel_is_live (sim))
    tick (sim, now);
}

void
sim__kernel_change_end (SimSimulation *sim)
{
  if (sim__kernel_is_live (sim))
    note_state (sim);
}

GQueue *
sim__kernel_get_running (SimSimulation *sim)
{
  return &sim->running;
}

void
sim__kernel_sync_job (SimSimulation *sim, SimJob *job)
{
  g_return_if_fail (job->state == SIM_JOB_RUNNING);
  sim__kernel_update_progress (job, sim_engine_now (sim->engine));
}

void
sim__kernel_hold_job (SimSimulation *sim, SimJob *job, SimTime overhead, SimTime lost)
{
  g_return_if_fail (job->state == SIM_JOB_RUNNING);
  evict_job (sim, job, overhead, lost);
  g_ptr_array_add (sim->held, job);
  request_decision (sim);
}

void
sim__kernel_release_job (SimSimulation *sim, SimJob *job)
{
  if (!g_ptr_array_remove (sim->held, job))
    g_return_if_reached ();
  enqueue (sim, job);
  note_state_before_decision (sim);
  request_decision (sim);
}

void
sim__kernel_finish_outside (SimSimulation *sim, SimJob *job)
{
  SimTime now = sim_engine_now (sim->engine);

  tick (sim, now);
  sim->last_activity = now;
  job->state = SIM_JOB_DONE;
  job->end = now;
  job->work_left = 0;
  accumulate_job (sim, SIM_JOB_FINISHED, job, now);
  SIM__EMIT (sim, SIM_HOOK_JOB_FINISHED, SimJobHookFunc, job, now);
  free_job (job);
}

void
sim__kernel_withdraw_job (SimSimulation *sim, SimJob *job)
{
  SimTime now = sim_engine_now (sim->engine);

  tick (sim, now);
  sim->last_activity = now;
  if (job->state == SIM_JOB_RUNNING)
    stop_job (sim, job, now);
  else if (!g_ptr_array_remove (sim->queue, job) && !g_ptr_array_remove (sim->held, job))
    g_return_if_reached ();
  accumulate_job (sim, SIM_JOB_UNFINISHED, job, now);
  free_job (job);
  note_state_before_decision (sim);
  request_decision (sim);
}

void
sim__kernel_request_decision (SimSimulation *sim)
{
  g_return_if_fail (SIM_IS_SIMULATION (sim));
  if (sim->started && !sim->finished && !sim->decision_pending)
    request_decision (sim);
}

/* ------------------------------------------------------------------------- */
/* Timers and modules' events.                                               */

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
  if (sim__kernel_is_over (self))
    return;
  tick (self, ev->time);
  func (self, ev->time, user_data);
  note_state (self);
}

guint64
sim__kernel_add_timer (SimSimulation *sim, SimTime when, SimTimerFunc func, gpointer user_data)
{
  guint slot;
  Timer *t;

  g_return_val_if_fail (SIM_IS_SIMULATION (sim) && func != NULL, 0);
  if (when < sim_engine_now (sim->engine) || when >= SIM_TIME_NEVER)
    return 0;
  if (sim->free_timer > 0)
    {
      slot = sim->free_timer - 1;
      sim->free_timer = g_array_index (sim->timers, Timer, slot).next_free;
    }
  else
    {
      slot = sim->timers->len;
      g_array_set_size (sim->timers, slot + 1);
    }
  t = &g_array_index (sim->timers, Timer, slot);
  t->func = func;
  t->data = user_data;
  t->next_free = 0;
  t->id = sim_engine_schedule (sim->engine, when, sim->k_timer, 0, NULL, slot);
  return t->id;
}

gboolean
sim__kernel_cancel_timer (SimSimulation *sim, guint64 timer)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (sim), FALSE);
  if (timer == 0)
    return FALSE;
  for (guint slot = 0; slot < sim->timers->len; slot++)
    {
      Timer *t = &g_array_index (sim->timers, Timer, slot);
      if (t->id != timer)
        continue;
      sim_engine_cancel (sim->engine, timer);
      t->id = 0;
      t->next_free = sim->free_timer;
      sim->free_timer = slot + 1;
      return TRUE;
    }
  return FALSE;
}

guint32
sim__kernel_add_event_kind (SimSimulation *sim, SimEventHandler handler, gpointer data)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (sim) && handler != NULL, 0);
  return sim_engine_register (sim->engine, handler, data);
}

SimEventId
sim__kernel_schedule (SimSimulation *sim, SimTime when, guint32 kind, guint32 tag,
                      gpointer target, guint64 arg)
{
  return sim_engine_schedule (sim->engine, when, kind, tag, target, arg);
}

/* ------------------------------------------------------------------------- */
/* Decisions.                                                                */

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
      sim__kernel_update_progress (job, now);
      g_ptr_array_add (running, job);
    }
}

static int
compare_in_policy (gconstpointer a, gconstpointer b, gpointer policy)
{
  return sim_policy_compare (policy, *(SimJob * const *) a, *(SimJob * const *) b);
}

/* Every gate must admit a start. */
static gboolean
admit (gpointer data, const SimJob *job, const SimPlacement *placement, GError **error)
{
  SimSimulation *self = data;

  for (guint i = 0; i < self->gates->len; i++)
    {
      const SimHookSlot *s = &g_array_index (self->gates, SimHookSlot, i);
      if (!((SimStartGateFunc) s->func) (s->data, job, placement, error))
        return FALSE;
    }
  return TRUE;
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
      sim__kernel_fail (self, g_error_new (SIM_ERROR, SIM_ERROR_STATE,
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
        sim__kernel_update_progress (l->data, now);
      if (self->queue->len > 1)
        g_ptr_array_sort_with_data (self->queue, compare_in_policy, self->policy);
    }
  if (policy_failed (self))
    return FALSE;

  memset (ctx, 0, sizeof *ctx);
  ctx->now = now;
  ctx->cluster = self->cluster;
  ctx->queue = self->queue;
  ctx->fill_running = fill_running;
  ctx->start = start_job;
  ctx->preempt = preempt_job;
  ctx->wake = wake_at;
  ctx->owner = self;
  ctx->keep = G_OBJECT (self);
  ctx->policy = self->policy;
  /* With a backfill cycle, a pass off its ticks is a main pass only. */
  ctx->no_backfill = self->scenario->backfill_interval > 0 &&
                     now % self->scenario->backfill_interval != 0;
  if (self->gates->len > 0)
    {
      ctx->admit = admit;
      ctx->admit_data = self;
    }
  return TRUE;
}

static void
decision_pass (SimSimulation *self)
{
  if (self->queue->len > 0 || self->running.length > 0)
    {
      sim_policy_schedule (self->policy, &self->decision);
      policy_failed (self);
    }
}

static void
decision_end (SimSimulation *self)
{
  SimSchedContext *ctx = &self->decision;
  SimTime now = ctx->now;

  g_clear_pointer (&ctx->running, g_ptr_array_unref);
  ctx->closed = TRUE;
  if (ctx->error != NULL)
    sim__kernel_fail (self, g_steal_pointer (&ctx->error));
  /* A pass that failed (the policy's own failure, or the above) is not
   * committed: the run stops here. */
  if (self->error != NULL)
    return;
  for (guint i = 0; i < self->gate_ends->len; i++)
    {
      const SimHookSlot *s = &g_array_index (self->gate_ends, SimHookSlot, i);
      if (s->func != NULL)
        ((SimPassEndFunc) s->func) (s->data, ctx->n_held, now);
    }

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

  sim__kernel_refresh_rates (self, now);
  note_state (self);
  for (guint i = 0; i < self->hooks[SIM_HOOK_PASS_END]->len; i++)
    {
      const SimHookSlot *s = &g_array_index (self->hooks[SIM_HOOK_PASS_END], SimHookSlot, i);
      ((SimWatchFunc) s->func) (self, now, s->data);
    }
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

gboolean
sim__kernel_decide (SimSimulation *self, gboolean run_policy, GError **error)
{
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
      sim__kernel_abandon (self);
      g_propagate_error (error, g_error_copy (self->error));
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* The run.                                                                  */

/* The error for a run past a limit: what it would take, which key makes
 * it smaller, and --force. */
GError *
sim__kernel_too_big (SimSimulation *self, const char *group, const char *key,
                     const char *format, ...)
{
  GError *error = NULL;
  g_autofree char *what = NULL;
  va_list ap;

  va_start (ap, format);
  what = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (&error, SIM_ERROR, SIM_ERROR_INVALID,
               "%s: more than a run may take without being forced (%g jobs, %g time-series "
               "rows, %g GB of output); change [%s] %s, or force it (--force of gpusim run, "
               "validate, compare, sweep or seek; sim_simulation_set_force())", what, (double) SIM_LIMIT_JOBS,
               (double) SIM_LIMIT_SAMPLES, SIM_LIMIT_OUTPUT_BYTES / 1e9, group, key);
  sim__scenario_locate (self->scenario, group, key, &error);
  return error;
}

static GError *
too_many_jobs (SimSimulation *self)
{
  return sim__kernel_too_big (self, "scenario", "horizon", "this run has simulated %.3g jobs",
                              (double) self->metrics.submitted);
}

static void
on_sample (SimEngine *engine, const SimEvent *ev, gpointer data)
{
  SimSimulation *self = data;

  self->samples++;
  if (!self->force && self->samples > SIM_LIMIT_SAMPLES)
    {
      sim__kernel_fail (self, sim__kernel_too_big (self, "output", "timeseries_interval",
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

void
sim__kernel_setup_engine (SimSimulation *self)
{
  self->engine = sim_engine_new ();
  self->k_arrival = sim_engine_register (self->engine, on_arrival, self);
  self->k_complete = sim_engine_register (self->engine, on_complete, self);
  self->k_decide = sim_engine_register (self->engine, on_decide, self);
  self->k_sample = sim_engine_register (self->engine, on_sample, self);
  self->k_wake = sim_engine_register (self->engine, on_wake, self);
  self->k_timer = sim_engine_register (self->engine, on_timer, self);
}

static void
start (SimSimulation *self)
{
  self->started = TRUE;
  sim__metrics_clear (&self->metrics);
  sim__metrics_init_power (&self->metrics, sim_cluster_get_n_gpus (self->cluster),
                           self->jobs_out, self->series_out, self->readings != NULL);
  for (guint i = 0; i < self->hooks[SIM_HOOK_RUN_START]->len; i++)
    {
      const SimHookSlot *s = &g_array_index (self->hooks[SIM_HOOK_RUN_START], SimHookSlot, i);
      ((SimWatchFunc) s->func) (self, 0, s->data);
    }
  /* The modules' part of the state the run starts in (the kernel's is
   * empty: nothing runs or waits yet). */
  SIM__EMIT (self, SIM_HOOK_STATE_NOTE, SimStateNoteFunc, &self->state, 0);
  pull_next (self);
  if (self->scenario->write_timeseries && self->series_out != NULL)
    sim_engine_schedule (self->engine, self->scenario->sample_interval, self->k_sample, 0, NULL, 0);
}

void
sim__kernel_abandon (SimSimulation *self)
{
  for (guint i = 0; i < self->hooks[SIM_HOOK_ABANDON]->len; i++)
    {
      const SimHookSlot *s = &g_array_index (self->hooks[SIM_HOOK_ABANDON], SimHookSlot, i);
      ((SimWatchFunc) s->func) (self, sim_engine_now (self->engine), s->data);
    }
}

/* Whether every figure of the report is a number: one that is not cannot
 * be an answer. */
static gboolean
check_report (SimSimulation *self, GError **error)
{
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
          return FALSE;
        }
    }
  return TRUE;
}

/* The report, its commit and the last progress call, for finish(). */
static gboolean
finish_report (SimSimulation *self, SimTime end, const char *policy, GError **error)
{
  g_autofree char *cluster = sim_cluster_describe (self->cluster);
  g_autofree char *workload = NULL;
  SimReportInfo info = { 0 };

  accumulate_time (self, end);
  if (self->series_out != NULL && end > self->metrics.series_last)
    sim__metrics_sample (&self->metrics, &self->state, end);
  for (GList *l = self->running.head; l != NULL; l = l->next)
    {
      sim__kernel_update_progress (l->data, end);
      SIM__EMIT (self, SIM_HOOK_JOB_AT_END, SimJobHookFunc, l->data, end);
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
  info.policy = policy;
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
  SIM__EMIT (self, SIM_HOOK_REPORT, SimReportHookFunc, self->report, &info);
  sim__report_add_run (self->report, &info);
  if (!check_report (self, error))
    {
      g_clear_pointer (&self->report, sim_report_unref);
      sim__kernel_abandon (self);
      return FALSE;
    }
  if (self->progress != NULL)
    self->progress (self, 1.0, end, self->metrics.completed, self->progress_data);
  /* The progress function may have stopped the run (sim_simulation_fail()). */
  if (self->error != NULL)
    {
      g_clear_pointer (&self->report, sim_report_unref);
      self->finished = FALSE;
      sim__kernel_abandon (self);
      g_propagate_error (error, g_error_copy (self->error));
      return FALSE;
    }
  for (guint i = 0; i < self->hooks[SIM_HOOK_COMMIT]->len; i++)
    {
      const SimHookSlot *s = &g_array_index (self->hooks[SIM_HOOK_COMMIT], SimHookSlot, i);
      if (!((SimCommitFunc) s->func) (s->data, self->report, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
finish (SimSimulation *self, GError **error)
{
  SimTime end = self->scenario->horizon != SIM_TIME_NEVER ? self->scenario->horizon
                                                          : self->last_activity;
  g_autofree char *policy = NULL;
  gboolean ok;

  /* The report names the policy: one that fails to give its name stops
   * the run here, with no report. */
  policy = g_strdup (sim_policy_get_name (self->policy));
  if (policy_failed (self))
    {
      sim__kernel_abandon (self);
      g_propagate_error (error, g_error_copy (self->error));
      return FALSE;
    }
  self->finished = TRUE;
  self->finishing = TRUE;
  ok = finish_report (self, end, policy, error);
  self->finishing = FALSE;
  return ok;
}

/* Runs until LIMIT; stops early after a decision if PAUSE.  Returns FALSE
 * on failure; *stopped says whether it paused at a decision. */
gboolean
sim__kernel_advance (SimSimulation *self, SimTime limit, gboolean pause, gboolean *stopped,
                     GError **error)
{
  SimRunStatus status;
  SimTime until = MIN (limit, self->scenario->horizon);

  *stopped = FALSE;
  /* A decision left pending is made first, by the policy. */
  if (self->decision_pending && !sim__kernel_decide (self, TRUE, error))
    return FALSE;
  /* A failure the policy reported while no run was using it (or since the
   * last call) stops this one at once. */
  if (!self->finished && self->error == NULL && policy_failed (self))
    sim__kernel_abandon (self);
  if (self->error != NULL)
    {
      g_propagate_error (error, g_error_copy (self->error));
      return FALSE;
    }
  if (self->finished)
    return TRUE;
  if (!self->started)
    {
      if (self->plugin_unloaded)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                       "this simulation was built to validate the scenario, without loading "
                       "its [policy] plugin %s: it cannot run", self->scenario->plugin);
          return FALSE;
        }
      if (!sim_simulation_check_limits (self, error))
        {
          sim__kernel_abandon (self);
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
      sim__kernel_abandon (self);
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
  /* Without a horizon, a run with nothing left to happen has ended, even
   * if the caller's limit was later: it would otherwise wait, limit after
   * limit, for the end of simulated time. */
  if (self->scenario->horizon == SIM_TIME_NEVER && sim_engine_pending (self->engine) == 0)
    return finish (self, error);
  return TRUE;
}

gboolean
sim__kernel_set_node_available (SimSimulation *self, guint node, gboolean available)
{
  SimTime now = sim_engine_now (self->engine);

  if (self->started)
    tick (self, now);
  if (!sim_cluster_set_node_available (self->cluster, node, available))
    return FALSE;
  if (self->started && !self->finished)
    {
      note_state (self);
      /* GPUs came back (or left): the queue may move. */
      if (!self->decision_pending)
        request_decision (self);
    }
  return TRUE;
}

gboolean
sim__kernel_check_state (SimSimulation *self, GError **error)
{
  double computing = 0, active = 0;
  guint64 milli = 0;

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

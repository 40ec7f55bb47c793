/* sim-kernel-rates.c: how fast running jobs go (the kernel's part of the
 * fluid model, sim-job.h): completions rescheduled from rates, the shares
 * of MIG instances and time-shared GPUs (cluster/sim-sharing.h) under the
 * capacity factors modules give (power caps), the compute and activity
 * metrics, and the rates the network's shares give communicating jobs. */
#include "config.h"

#include "kernel/sim-kernel-private.h"
#include "core/sim-error.h"
#include "cluster/sim-mig.h"

/* (Re)schedules a running job's completion from NOW at its rate.  The
 * previous completion event is cancelled, not left stale: a stale event
 * could outlive the job, which is freed when it ends. */
void
sim__kernel_schedule_completion (SimSimulation *self, SimJob *job, SimTime now)
{
  double left = ceil ((double) job->work_left / job->rate);

  sim_engine_cancel (self->engine, job->completion);
  job->completion = 0;
  /* A job that would end at or past the end of simulated time can never
   * finish: the run says so rather than leave it running for ever. */
  if (!(left < (double) (SIM_TIME_NEVER - now)))
    {
      sim__kernel_fail (self, g_error_new (SIM_ERROR, SIM_ERROR_INVALID,
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

/* ------------------------------------------------------------------------- */
/* Shared GPUs: MIG instances and time-sharing (the model is in             */
/* cluster/sim-sharing.h).                                                  */

/* The capacity C of what the job holds, against a whole GPU, and the share
 * of the GPU's SMs it holds. */
static void
job_holding (SimSimulation *self, const SimJob *job, double *capacity, double *sms)
{
  *capacity = *sms = 1.0;
  if (job->spec.mig_profile != NULL)
    {
      const SimNode *node = sim_cluster_get_node (self->cluster,
                                                  sim_cluster_get_gpu (self->cluster,
                                                                       job->gpus[0])->node);
      guint profile = (guint) sim_mig_lookup_profile (node->gpu_model, job->spec.mig_profile);
      *capacity = sim_mig_speed (node->gpu_model, profile, job->spec.memory_bound);
      *sms = sim_mig_compute_fraction (node->gpu_model, profile);
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

/* The factor sharing and the capacity factors (power caps) put into a
 * running job's speed: min(1, C s / a) on a MIG instance, min(1, K s / D)
 * on a time-shared GPU, min(1, s / a) otherwise, s being the share of its
 * GPUs' speed their clocks leave (a capped or clock-limited GPU is, for the
 * job, as a MIG instance of capacity s: power/sim-power.h). */
double
sim__kernel_share_speed (SimSimulation *self, const SimJob *job)
{
  double s = sim__kernel_compose (self->capacity_factors, job);

  if (job->spec.mig_profile != NULL)
    {
      double capacity, sms;
      job_holding (self, job, &capacity, &sms);
      return sim_sharing_mig_factor (sim__kernel_job_activity (job), capacity * s);
    }
  if (sim__kernel_job_time_shares (job) && self->sharers != NULL && self->sharers[job->gpus[0]] != NULL)
    {
      guint g = job->gpus[0];
      return sim_sharing_factor (self->demand[g],
                                 sim_sharing_capacity (&self->scenario->sharing,
                                                       gpu_sharing_mode (self, g),
                                                       self->sharers[g]->len) * s);
    }
  return s == 1.0 ? 1.0 : sim_sharing_mig_factor (sim__kernel_job_activity (job), s);
}

/* Brings JOB's part of the compute metric (GPUs x thousandths x the share
 * of its time it computes, rate / speed) up to date after its rate or
 * speed changed; the total is the sum of the running jobs' parts. */
void
sim__kernel_account_computing (SimSimulation *self, SimJob *job)
{
  double c = job->state == SIM_JOB_RUNNING && job->speed > 0
               ? job->n_gpus * (double) job->spec.gpu_milli * job->rate / job->speed : 0;

  self->computing_milli += c - job->computing;
  job->computing = c;
}

/* Brings the activity metric's state up to date with JOB's rate: the GPUs
 * it keeps busy are n x (SM share held) x (busy share of what it holds),
 * the busy share being a / C x its sharing factor x the share of time it
 * computes rather than waits on the network.  The modules that follow the
 * activity (power) are told the change. */
void
sim__kernel_account_activity (SimSimulation *self, SimJob *job)
{
  double capacity, sms, busy = 0, delta;

  if (job->state == SIM_JOB_RUNNING && job->speed > 0)
    {
      job_holding (self, job, &capacity, &sms);
      busy = job->n_gpus * sms *
             MIN (1.0, sim__kernel_job_activity (job) /
                         (capacity * sim__kernel_compose (self->capacity_factors, job)) * job->share) *
             (job->rate / job->speed);
    }
  delta = busy - job->active_gpus;
  self->active_gpus += delta;
  job->active_gpus = busy;
  SIM__EMIT (self, SIM_HOOK_JOB_ACTIVITY, SimJobActivityFunc, job, delta,
        sim_engine_now (self->engine));
}

/* A time-sharing job joins (SIGN 1) or leaves (-1) its GPU's sharers. */
void
sim__kernel_share_join (SimSimulation *self, SimJob *job, int sign)
{
  guint g = job->gpus[0];

  if (!sim__kernel_job_time_shares (job))
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
      self->demand[g] += sim__kernel_job_activity (job);
    }
  else
    {
      g_ptr_array_remove (self->sharers[g], job);
      self->demand[g] = 0;
      for (guint i = 0; i < self->sharers[g]->len; i++)
        self->demand[g] += sim__kernel_job_activity (self->sharers[g]->pdata[i]);
    }
}

/* Moves JOB to a new rate from NOW: progress brought up to date at the old
 * one, the compute metric, the completion rescheduled. */
static void
set_rate (SimSimulation *self, SimJob *job, double rate, SimTime now)
{
  sim__kernel_update_progress (job, now);
  job->rate = rate;
  sim__kernel_account_computing (self, job);
  job->version++;
  sim__kernel_schedule_completion (self, job, now);
}

/* Moves JOB to the share its GPUs give it now, if that changed (beyond
 * TOLERANCE, relative): its speed rescaled and its rate with it. */
static gboolean
reshare (SimSimulation *self, SimJob *job, double tolerance, SimTime now)
{
  double share = sim__kernel_share_speed (self, job);

  if (fabs (share - job->share) <= tolerance * share)
    return FALSE;
  sim__kernel_update_progress (job, now);
  job->speed = job->speed / job->share * share;
  job->share = share;
  set_rate (self, job, job->comm_state != NULL ? sim__job_comm_rate (self->comm, job)
                                               : job->speed, now);
  return TRUE;
}

/* After a job came to or left GPU G: the time-sharing jobs on it move to
 * their new speed, exactly, in the order they joined. */
void
sim__kernel_share_refresh (SimSimulation *self, guint g, SimTime now)
{
  if (self->sharers == NULL || self->sharers[g] == NULL)
    return;
  for (guint i = 0; i < self->sharers[g]->len; i++)
    {
      SimJob *job = self->sharers[g]->pdata[i];
      if (reshare (self, job, 1e-12, now))
        sim__kernel_account_activity (self, job);
    }
}

/* After collectives came or went: new rates for the communicating jobs
 * whose shares changed, and their completions moved. */
void
sim__kernel_refresh_rates (SimSimulation *self, SimTime now)
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
      double rate = sim__job_comm_rate (self->comm, job);
      if (fabs (rate - job->rate) <= 1e-12 * rate)
        continue;
      set_rate (self, job, rate, now);
      sim__kernel_account_activity (self, job);
    }
}

/* After its GPUs' clocks changed: JOB moves to its new speed exactly. */
static void
rerate_job (SimSimulation *self, SimJob *job, SimTime now)
{
  reshare (self, job, 0, now);
  sim__kernel_account_activity (self, job);
}

static gboolean
job_on_gpu (const SimJob *job, guint g)
{
  for (guint i = 0; i < job->n_gpus; i++)
    if (job->gpus[i] == g)
      return TRUE;
  return FALSE;
}

void
sim__kernel_rerate_gpu (SimSimulation *sim, guint gpu, SimTime now)
{
  g_return_if_fail (SIM_IS_SIMULATION (sim));
  for (GList *l = sim->running.head; l != NULL; l = l->next)
    if (job_on_gpu (l->data, gpu))
      rerate_job (sim, l->data, now);
}

void
sim__kernel_rerate_gpus (SimSimulation *sim, const guint8 *changed, SimTime now)
{
  g_return_if_fail (SIM_IS_SIMULATION (sim) && changed != NULL);
  for (GList *l = sim->running.head; l != NULL; l = l->next)
    {
      SimJob *job = l->data;
      gboolean on = FALSE;
      for (guint i = 0; i < job->n_gpus && !on; i++)
        on = changed[job->gpus[i]] != 0;
      if (on)
        rerate_job (sim, job, now);
    }
}


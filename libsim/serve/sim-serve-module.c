/* sim-serve-module.c: serving inside ordinary runs: a deployment's
 * replicas as jobs of the run, its requests co-simulated with the kernel
 * (see sim-serve-module.h). */
#include "config.h"

#include "serve/sim-serve-module.h"
#include "kernel/sim-kernel.h"
#include "core/sim-error.h"
#include "fabric/sim-topology.h"
#include "llm/sim-llm.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* The scenario's sections.                                                  */

static void
deployment_free (gpointer data)
{
  SimServeDeployment *d = data;

  sim__serve_config_clear (&d->config);
  sim__serve_requests_clear (&d->requests);
  g_free (d);
}

gboolean
sim__serve_sections_read (const SimKeyReader *reader, SimScenario *sc, GError **error)
{
  g_auto(GStrv) groups = g_key_file_get_groups (reader->kf, NULL);

  for (guint i = 0; groups[i] != NULL; i++)
    {
      SimServeDeployment *d;

      if (!g_str_has_prefix (groups[i], "serving ") || groups[i][strlen ("serving ")] == '\0')
        continue;
      if (sc->serving == NULL)
        {
          sc->serving = g_new0 (SimServeSections, 1);
          sc->serving->deployments = g_ptr_array_new_with_free_func (deployment_free);
        }
      d = g_new0 (SimServeDeployment, 1);
      g_ptr_array_add (sc->serving->deployments, d);
      sim__serve_config_init (&d->config);
      sim__serve_requests_init (&d->requests);
      if (!sim__serve_read_group (reader, groups[i], &d->config, &d->requests, error))
        return FALSE;
    }
  return TRUE;
}

void
sim__serve_sections_clear (SimScenario *sc)
{
  if (sc->serving == NULL)
    return;
  g_ptr_array_unref (sc->serving->deployments);
  g_clear_pointer (&sc->serving, g_free);
}

gboolean
sim__serve_has_deployments (const SimScenario *sc)
{
  return sc->serving != NULL && sc->serving->deployments->len > 0;
}

/* ------------------------------------------------------------------------- */
/* The module.                                                               */

/* A replica idle through a whole interval is counted this busy: an
 * activity of 0 would mean unknown, which counts as fully busy. */
#define IDLE_ACTIVITY 1e-3

/* A replica's job lasts this long unless the module ends it: longer than
 * any run, short enough that a slow GPU's completion time still fits. */
#define REPLICA_JOB_LENGTH (G_GINT64_CONSTANT (10) * 365 * 24 * 3600 * 1000000000)
/* Job numbers of replicas: above any trace's. */
#define REPLICA_JOB_ID_BASE G_GUINT64_CONSTANT (1000000000000)

typedef struct _Serve Serve;

typedef struct _Dep Dep;

typedef struct {
  Dep     *dep;
  guint    r;
  SimJob  *job;          /* its job (queued, running or held), or NULL */
  gboolean serving;      /* the loop's replica is up (or draining) */
  gboolean leaving;      /* scaled down: its job leaves once the replica is idle */
  guint64  load_timer;   /* the timer of its load_time, or 0 */
  double   busy_mark;    /* the loop's busy time of the replica at busy_since */
  SimTime  busy_since;   /* the start of the interval its GPUs' activity is measured over */
} Slot;

struct _Dep {
  Serve   *serve;
  guint    index;
  const SimServeDeployment *d;
  const SimServeConfig *c;
  SimServeReplica model;
  GArray  *requests;
  SimServeLoop *loop;
  Slot    *slots;
  guint    n_slots;
  guint    running_jobs;  /* replica jobs holding GPUs */
  guint    job_gpus;      /* a replica job's GPUs: tp, or a whole node's */
  const char *gpu_models;
  guint64  tick_timer;
  double   surplus_since;   /* s; < 0: no surplus */
  guint64  scale_ups, scale_downs;
  guint    peak;
  double   replica_area;    /* running replica jobs x s */
  double   gpu_seconds, cloud_gpu_seconds;
  double   power_w;         /* of its running replicas' GPUs, as last noted */
  double   busy_area;       /* replica jobs' GPUs x their activity x s */
  double   activity_sum;    /* the running replica jobs' activity x their GPUs, now */
  double   energy_j;
  SimTime  last;
  GArray  *timeline;        /* SimServeStep: the replica jobs running, at each change */
  double   owned_usd_per_gpu_hour, cloud_usd_per_gpu_hour;
};

struct _Serve {
  SimSimulation *sim;
  SimCluster *cluster;
  GPtrArray *deps;          /* Dep* */
  guint slot;               /* the job slot naming a job's deployment and replica */
  guint64 next_id;
  guint cloud_first, cloud_end;  /* the [elastic] pool's nodes, or an empty range */
  guint cloud_gpus, cloud_gpus_per_node;
  gboolean power;
  gboolean failed;
};

static int serve_key;

static void
dep_free (gpointer data)
{
  Dep *dep = data;

  sim__serve_loop_free (dep->loop);
  g_clear_pointer (&dep->requests, g_array_unref);
  g_clear_pointer (&dep->timeline, g_array_unref);
  g_free (dep->slots);
  g_free (dep);
}

static void
serve_free (gpointer data)
{
  Serve *self = data;

  g_ptr_array_unref (self->deps);
  g_free (self);
}

/* The job's deployment and replica, or FALSE for another job. */
static gboolean
job_replica (Serve *self, const SimJob *job, Dep **dep, guint *r)
{
  gint64 v = job->ext[self->slot].t;

  if (v == 0)
    return FALSE;
  *dep = self->deps->pdata[(guint) (v >> 32) - 1];
  *r = (guint) (v & 0xffffffff);
  return TRUE;
}

static void
fail (Serve *self, Dep *dep, GError *error)
{
  if (self->failed)
    {
      g_error_free (error);
      return;
    }
  self->failed = TRUE;
  g_prefix_error (&error, "[serving %s]: ", dep->c->name);
  sim__kernel_fail (self->sim, error);
}

/* Brings the deployment's requests up to NOW (INCLUSIVE: the loop's events
 * at NOW too). */
static void
advance (Dep *dep, SimTime now, gboolean inclusive)
{
  GError *error = NULL;

  if (!sim__serve_loop_advance (dep->loop, now, inclusive, &error))
    fail (dep->serve, dep, error);
}

/* The running replica jobs' GPU time and power, up to NOW. */
static void
account (Dep *dep, SimTime now)
{
  double dt = sim_time_to_seconds (now - dep->last);

  if (dt > 0)
    {
      dep->replica_area += dep->running_jobs * dt;
      dep->busy_area += dep->activity_sum * dt;
      dep->energy_j += dep->power_w * dt;
    }
  dep->last = now;
}

/* The replica jobs running change by DELTA at NOW, JOB starting or
 * stopping. */
static void
count_running (Dep *dep, const SimJob *job, SimTime now, int delta)
{
  SimServeStep step;

  account (dep, now);
  dep->running_jobs += delta;
  dep->activity_sum += delta * job->spec.activity * dep->job_gpus;
  dep->peak = MAX (dep->peak, dep->running_jobs);
  step.time = sim_time_to_seconds (now);
  step.replicas = dep->running_jobs;
  if (dep->timeline->len > 0
      && g_array_index (dep->timeline, SimServeStep, dep->timeline->len - 1).time == step.time)
    g_array_index (dep->timeline, SimServeStep, dep->timeline->len - 1) = step;
  else
    g_array_append_val (dep->timeline, step);
}

static void
submit (Dep *dep, guint r)
{
  Serve *self = dep->serve;
  SimJobSpec spec;
  SimJob *job;

  memset (&spec, 0, sizeof spec);
  spec.id = REPLICA_JOB_ID_BASE + self->next_id++;
  spec.duration = REPLICA_JOB_LENGTH;
  spec.gpus = dep->job_gpus;
  spec.gpu_milli = SIM_GPU_WHOLE;
  spec.user = -1;
  spec.status = -1;
  spec.priority = dep->c->priority;
  spec.gpu_models = dep->gpu_models;
  spec.activity = 1.0;
  job = sim__kernel_submit_job (self->sim, &spec);
  if (job == NULL)
    {
      fail (self, dep, g_error_new (SIM_ERROR, SIM_ERROR_UNSATISFIABLE,
                                    "a replica's %u GPUs of model %s never fit the cluster",
                                    dep->job_gpus, dep->gpu_models));
      return;
    }
  job->ext[self->slot].t = ((gint64) (dep->index + 1) << 32) | r;
  dep->slots[r].job = job;
  dep->slots[r].leaving = FALSE;
}

/* A running replica job's GPU time on the [elastic] pool, from its start
 * to NOW, counted as it stops. */
static void
count_cloud (Dep *dep, const SimJob *job, SimTime now)
{
  Serve *self = dep->serve;
  guint node;

  if (job->n_gpus == 0 || job->start < 0)
    return;
  node = sim_cluster_get_gpu (self->cluster, job->gpus[0])->node;
  if (node >= self->cloud_first && node < self->cloud_end)
    dep->cloud_gpu_seconds += job->n_gpus * sim_time_to_seconds (now - job->start);
}

/* Takes replica R's job out of the run. */
static void
withdraw (Dep *dep, guint r)
{
  Slot *slot = &dep->slots[r];
  SimJob *job = slot->job;

  if (job == NULL)
    return;
  slot->job = NULL;
  slot->leaving = FALSE;
  /* The job leaves its GPUs through the kernel: the stop hook sees no slot
   * and does nothing more. */
  job->ext[dep->serve->slot].t = 0;
  if (job->state == SIM_JOB_RUNNING)
    {
      SimTime now = sim__kernel_now (dep->serve->sim);
      count_cloud (dep, job, now);
      count_running (dep, job, now, -1);
      if (slot->load_timer != 0)
        sim__kernel_cancel_timer (dep->serve->sim, slot->load_timer);
      slot->load_timer = 0;
      if (slot->serving)
        sim__serve_loop_replica_down (dep->loop, r);
      slot->serving = FALSE;
    }
  sim__kernel_withdraw_job (dep->serve->sim, job);
}

/* Sets running JOB's activity (the share of its GPUs' time they are busy,
 * which the power model draws by) to A from NOW. */
static void
set_activity (Dep *dep, SimJob *job, double a, SimTime now)
{
  a = CLAMP (a, IDLE_ACTIVITY, 1.0);
  if (job->spec.activity == a)
    return;
  if (job->state == SIM_JOB_RUNNING && job->n_gpus > 0)
    {
      account (dep, now);
      dep->activity_sum += (a - job->spec.activity) * dep->job_gpus;
      job->spec.activity = a;
      sim__kernel_rerate_gpu (dep->serve->sim, job->gpus[0], now);
    }
  else
    job->spec.activity = a;
}

/* Replica R serves from NOW; its GPUs' activity is measured from then. */
static void
serve_from (Dep *dep, guint r, SimTime now)
{
  Slot *slot = &dep->slots[r];

  slot->serving = TRUE;
  sim__serve_loop_replica_up (dep->loop, r);
  slot->busy_mark = sim__serve_loop_replica_busy (dep->loop, r);
  slot->busy_since = now;
}

/* At every look: each serving replica's GPUs were busy, over the interval
 * since the last, the share of it the replica iterated; that share is
 * their activity until the next look. */
static void
follow_load (Dep *dep, SimTime now)
{
  for (guint r = 0; r < dep->n_slots; r++)
    {
      Slot *slot = &dep->slots[r];
      double busy, dt;

      if (slot->job == NULL || slot->job->state != SIM_JOB_RUNNING || !slot->serving
          || now <= slot->busy_since)
        continue;
      busy = sim__serve_loop_replica_busy (dep->loop, r);
      dt = sim_time_to_seconds (now - slot->busy_since);
      /* With a whole node, the GPUs beyond the replica's idle. */
      set_activity (dep, slot->job, (busy - slot->busy_mark) / dt * dep->c->tp
                                    * MAX (1u, dep->c->pp) / dep->job_gpus, now);
      slot->busy_mark = busy;
      slot->busy_since = now;
    }
}

static void
on_loaded (SimSimulation *sim, SimTime now, gpointer data)
{
  Slot *slot = data;
  Dep *dep = slot->dep;
  guint r = slot->r;

  (void) sim;
  dep->slots[r].load_timer = 0;
  advance (dep, now, FALSE);
  serve_from (dep, r, now);
}

static void
on_started (gpointer data, SimJob *job, SimTime now)
{
  Serve *self = data;
  Dep *dep;
  guint r;

  if (!job_replica (self, job, &dep, &r))
    return;
  /* Its GPUs count busy as the kernel started them: whole for a new
   * replica (loading the weights), as last measured for one that starts
   * again; serving, as its requests keep them (follow_load()). */
  count_running (dep, job, now, +1);
  if (dep->c->load_time > 0)
    {
      dep->slots[r].load_timer =
        sim__kernel_add_timer (self->sim, now + sim_time_from_seconds (dep->c->load_time),
                               on_loaded, &dep->slots[r]);
      return;
    }
  advance (dep, now, FALSE);
  serve_from (dep, r, now);
}

/* A replica's job left its GPUs (preempted, or on a failed node): the
 * replica stops serving, and serves again when its job starts again. */
static void
on_stopped (gpointer data, SimJob *job, SimTime now)
{
  Serve *self = data;
  Dep *dep;
  guint r;
  Slot *slot;

  if (!job_replica (self, job, &dep, &r))
    return;
  slot = &dep->slots[r];
  count_running (dep, job, now, -1);
  if (slot->load_timer != 0)
    sim__kernel_cancel_timer (self->sim, slot->load_timer);
  slot->load_timer = 0;
  if (slot->serving)
    {
      advance (dep, now, FALSE);
      sim__serve_loop_replica_down (dep->loop, r);
      slot->serving = FALSE;
    }
}

/* A job that ends through the kernel's own paths (its ten years ran out,
 * or a module finished it): the slot no longer holds it. */
static void
on_finished (gpointer data, SimJob *job, SimTime now)
{
  Serve *self = data;
  Dep *dep;
  guint r;

  (void) now;
  if (job_replica (self, job, &dep, &r))
    dep->slots[r].job = NULL;
}

static guint
count_jobs (const Dep *dep)
{
  guint n = 0;

  for (guint r = 0; r < dep->n_slots; r++)
    if (dep->slots[r].job != NULL && !dep->slots[r].leaving)
      n++;
  return n;
}

/* The autoscaler's look (sim-serve-module.h), and the end of a deployment
 * that has answered every request. */
static void
on_tick (SimSimulation *sim, SimTime now, gpointer data)
{
  Dep *dep = data;
  const SimServeConfig *c = dep->c;
  double t = sim_time_to_seconds (now);

  dep->tick_timer = 0;
  advance (dep, now, TRUE);
  if (dep->serve->failed)
    return;
  follow_load (dep, now);
  /* Replicas that drained have left their GPUs' work: their jobs go. */
  for (guint r = 0; r < dep->n_slots; r++)
    if (dep->slots[r].leaving
        && sim__serve_loop_replica_state (dep->loop, r) == SIM_SERVE_REPLICA_OFF)
      withdraw (dep, r);
  if (sim__serve_loop_done (dep->loop))
    {
      for (guint r = 0; r < dep->n_slots; r++)
        withdraw (dep, r);
      return;
    }
  if (c->autoscale)
    {
      guint max = c->max_replicas > 0 ? c->max_replicas : c->replicas;
      double want = ceil (sim__serve_loop_outstanding (dep->loop) / c->target_outstanding);
      guint have = count_jobs (dep);

      want = MAX ((double) c->min_replicas, MIN ((double) max, want));
      if (have < want)
        {
          for (guint r = 0; r < dep->n_slots && have < want; r++)
            if (dep->slots[r].job == NULL)
              {
                submit (dep, r);
                dep->scale_ups++;
                have++;
              }
          dep->surplus_since = -1;
        }
      else if (have <= want)
        dep->surplus_since = -1;
      else if (dep->surplus_since < 0)
        dep->surplus_since = t;
      else if (t - dep->surplus_since >= c->scale_down_delay)
        {
          guint victim = G_MAXUINT;

          /* A replica still waiting for GPUs goes first; else the serving
           * one with the fewest requests drains. */
          for (guint r = dep->n_slots; r-- > 0 && victim == G_MAXUINT;)
            if (dep->slots[r].job != NULL && !dep->slots[r].leaving
                && dep->slots[r].job->state != SIM_JOB_RUNNING)
              victim = r;
          if (victim != G_MAXUINT)
            withdraw (dep, victim);
          else
            {
              for (guint r = 0; r < dep->n_slots; r++)
                if (dep->slots[r].job != NULL && !dep->slots[r].leaving
                    && sim__serve_loop_replica_state (dep->loop, r) == SIM_SERVE_REPLICA_SERVING
                    && (victim == G_MAXUINT
                        || sim__serve_loop_replica_outstanding (dep->loop, r)
                           < sim__serve_loop_replica_outstanding (dep->loop, victim)))
                  victim = r;
              if (victim != G_MAXUINT)
                {
                  dep->slots[victim].leaving = TRUE;
                  if (sim__serve_loop_replica_drain (dep->loop, victim))
                    {
                      dep->slots[victim].serving = FALSE;
                      withdraw (dep, victim);
                    }
                }
            }
          if (victim != G_MAXUINT)
            dep->scale_downs++;
          /* The next one waits for another scale_down_delay of surplus. */
          dep->surplus_since = t;
        }
    }
  dep->tick_timer = sim__kernel_add_timer (sim, now + MAX (1, sim_time_from_seconds (
                                                               c->autoscale_interval)),
                                           on_tick, dep);
}

static void
on_run_start (SimSimulation *sim, SimTime now, gpointer data)
{
  Serve *self = data;

  for (guint i = 0; i < self->deps->len; i++)
    {
      Dep *dep = self->deps->pdata[i];

      /* The replicas at time 0, then the first look at the load. */
      for (guint r = 0; r < dep->c->replicas; r++)
        submit (dep, r);
      dep->tick_timer = sim__kernel_add_timer (
        sim, now + MAX (1, sim_time_from_seconds (dep->c->autoscale_interval)), on_tick, dep);
    }
}

/* The power of the running replicas' GPUs, after every change. */
static void
on_state_changed (SimSimulation *sim, SimTime now, gpointer data)
{
  Serve *self = data;

  for (guint i = 0; i < self->deps->len; i++)
    {
      Dep *dep = self->deps->pdata[i];
      double w = 0;

      account (dep, now);
      for (guint r = 0; r < dep->n_slots; r++)
        {
          const SimJob *job = dep->slots[r].job;
          if (job == NULL || job->state != SIM_JOB_RUNNING)
            continue;
          for (guint g = 0; g < job->n_gpus; g++)
            w += sim__kernel_get_gpu_power (sim, job->gpus[g]);
        }
      dep->power_w = w;
    }
}

/* A replica job leaves its GPUs. */
static void
on_stopping (gpointer data, SimJob *job, const guint *nodes)
{
  Serve *self = data;
  Dep *dep;
  guint r;

  (void) nodes;
  if (job_replica (self, job, &dep, &r))
    count_cloud (dep, job, sim__kernel_now (self->sim));
}

static void
add (SimReport *report, const Dep *dep, const char *what, double v, const char *unit)
{
  g_autofree char *name = g_strdup_printf ("serving.%s.%s", dep->c->name, what);
  sim__report_add (report, name, v, unit);
}

/* What the deployment's HOURS of GPUs cost, from the run's own accounting
 * when it has one ([cost]: the cost module has reported): its GPU-hours on
 * owned nodes at the cluster's owning cost of a GPU-hour (amortized capex
 * and maintenance over every GPU), with [power] its GPUs' energy at the
 * run's mean price, and its GPU-hours on the [elastic] pool at the burst
 * price (*OWNED); every GPU-hour at the on-demand rent of [cost] cloud
 * (*CLOUD, 0 without one).  Without [cost], the prices `gpusim serve`
 * takes.  FALSE when there is no price at all. */
static gboolean
run_cost (Serve *self, Dep *dep, SimReport *report, const SimReportInfo *info, double hours,
          double *owned, double *cloud)
{
  double fixed_h, price_kwh = 0, rent_h = 0, burst_node_h = 0;
  double cloud_hours = dep->cloud_gpu_seconds / 3600.0;

  *owned = *cloud = 0;
  if (!sim_report_get_value (report, "cost_owning_fixed_per_hour", &fixed_h) || info->gpus == 0)
    {
      *owned = hours * dep->owned_usd_per_gpu_hour;
      *cloud = hours * dep->cloud_usd_per_gpu_hour;
      return dep->owned_usd_per_gpu_hour > 0;
    }
  *owned = (hours - cloud_hours) * fixed_h / (info->gpus - self->cloud_gpus);
  if (self->power && sim_report_get_value (report, "cost_energy_price_mean", &price_kwh))
    *owned += dep->energy_j / 3.6e6 * price_kwh;
  if (cloud_hours > 0 && self->cloud_gpus_per_node > 0
      && sim_report_get_value (report, "burst_price_per_node_hour", &burst_node_h))
    *owned += cloud_hours * burst_node_h / self->cloud_gpus_per_node;
  if (sim_report_get_value (report, "cost_rent_on_demand_per_gpu_hour", &rent_h))
    *cloud = hours * rent_h;
  return TRUE;
}

static void
on_report (gpointer data, SimReport *report, const SimReportInfo *info)
{
  Serve *self = data;
  static const char *stat[] = { "mean", "p50", "p95", "p99" };

  for (guint i = 0; i < self->deps->len; i++)
    {
      Dep *dep = self->deps->pdata[i];
      SimServeResult res;
      double tokens, hours, span = sim_time_to_seconds (info->end);

      /* The replicas still running at the end count to it. */
      for (guint r = 0; r < dep->n_slots; r++)
        {
          SimJob *job = dep->slots[r].job;
          if (job != NULL && job->state == SIM_JOB_RUNNING)
            count_cloud (dep, job, info->end);
        }
      account (dep, info->end);
      advance (dep, info->end, TRUE);
      sim__serve_loop_summarise (dep->loop, &res);
      tokens = res.input_tokens + res.output_tokens;
      dep->gpu_seconds = dep->replica_area * dep->job_gpus;
      hours = dep->gpu_seconds / 3600.0;
      for (guint k = 0; k < 4; k++)
        {
          g_autofree char *a = g_strdup_printf ("ttft_%s", stat[k]);
          g_autofree char *b = g_strdup_printf ("tpot_%s", stat[k]);
          g_autofree char *e = g_strdup_printf ("e2e_%s", stat[k]);
          add (report, dep, a, res.ttft[k], "s");
          add (report, dep, b, res.tpot[k], "s");
          add (report, dep, e, res.e2e[k], "s");
        }
      add (report, dep, "requests", (double) res.requests, "requests");
      add (report, dep, "requests_unfinished", (double) (dep->requests->len - res.requests),
           "requests");
      add (report, dep, "rerouted", (double) sim__serve_loop_rerouted (dep->loop), "requests");
      add (report, dep, "goodput", res.goodput, "requests/s");
      add (report, dep, "slo_attainment", res.slo_attainment, "fraction");
      add (report, dep, "output_tokens_per_second", res.output_tokens_per_second, "tokens/s");
      add (report, dep, "tokens_per_second", res.tokens_per_second, "tokens/s");
      add (report, dep, "kv_cache_utilization", res.kv_utilization, "fraction");
      add (report, dep, "gpu_busy", res.gpu_busy, "fraction");
      add (report, dep, "preemptions", (double) res.preemptions, "sequences");
      add (report, dep, "replicas_mean", span > 0 ? dep->replica_area / span : 0, "replicas");
      add (report, dep, "replicas_peak", dep->peak, "replicas");
      add (report, dep, "scale_ups", (double) dep->scale_ups, "replicas");
      add (report, dep, "scale_downs", (double) dep->scale_downs, "replicas");
      add (report, dep, "gpu_hours", hours, "GPU*h");
      add (report, dep, "gpu_hours_cloud", dep->cloud_gpu_seconds / 3600.0, "GPU*h");
      add (report, dep, "busy_gpu_hours", dep->busy_area / 3600.0, "GPU*h");
      if (self->power)
        {
          add (report, dep, "energy_kwh", dep->energy_j / 3.6e6, "kWh");
          add (report, dep, "kwh_per_million_tokens",
               tokens > 0 ? dep->energy_j / 3.6e6 / tokens * 1e6 : 0, "kWh");
        }
      {
        double owned = 0, cloud = 0;
        if (run_cost (self, dep, report, info, hours, &owned, &cloud))
          {
            add (report, dep, "usd", owned, "USD");
            add (report, dep, "usd_per_million_tokens_owned",
                 tokens > 0 ? owned / tokens * 1e6 : 0, "USD");
            if (cloud > 0)
              add (report, dep, "usd_per_million_tokens_cloud",
                   tokens > 0 ? cloud / tokens * 1e6 : 0, "USD");
          }
      }
    }
}

/* The owned and rented prices of a GPU-hour, as `gpusim serve` finds them. */
static gboolean
price (Dep *dep, const SimScenario *sc, const SimCatalogue *catalogue, const SimCluster *cluster,
       GError **error)
{
  SimLlmEstimate e;
  SimLlmBudget budget;
  gboolean ok;

  memset (&e, 0, sizeof e);
  e.gpus = dep->c->replicas * dep->c->tp * MAX (1u, dep->c->pp);
  e.train_time = 3600;
  ok = sim__llm_budget (sc, catalogue, cluster, &e, &budget, error);
  if (ok)
    {
      dep->owned_usd_per_gpu_hour = budget.owned_usd_per_gpu_hour;
      dep->cloud_usd_per_gpu_hour = budget.cloud_usd_per_gpu_hour;
    }
  sim__llm_budget_clear (&budget);
  return ok;
}

/* The topology the replica model times its all-reduces on: the scenario's
 * fabric, or one switch for every node's NICs without one, as `gpusim
 * serve` and `gpusim llm` build it. */
static SimTopology *
replica_topology (const SimScenario *sc, const SimCatalogue *catalogue, SimCluster *cluster,
                  GError **error)
{
  g_auto(SimFabricConfig) fabric = { 0 };

  sim_fabric_config_copy (&fabric, &sc->fabric);
  if (fabric.kind == SIM_FABRIC_NONE && sim_cluster_get_n_nodes (cluster) > 1)
    {
      guint nics = 0;
      for (guint n = 0; n < sim_cluster_get_n_nodes (cluster); n++)
        nics += MAX (1u, sim_cluster_get_node (cluster, n)->model->nics);
      fabric.kind = SIM_FABRIC_SINGLE_SWITCH;
      fabric.radix = nics;
    }
  return sim_topology_new (cluster, catalogue, &fabric, error);
}

/* A replica's GPUs on one node: its all-reduces run on NVLink. */
static gboolean
admit (gpointer data, const SimJob *job, const SimPlacement *placement, GError **error)
{
  Serve *self = data;
  Dep *dep;
  guint r, node;

  if (!job_replica (self, job, &dep, &r) || placement->n_gpus == 0)
    return TRUE;
  node = sim_cluster_get_gpu (self->cluster, placement->gpus[0])->node;
  for (guint g = 1; g < placement->n_gpus; g++)
    if (sim_cluster_get_gpu (self->cluster, placement->gpus[g])->node != node)
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_HELD,
                     "a replica of [serving %s] runs on the GPUs of one node", dep->c->name);
        return FALSE;
      }
  return TRUE;
}

static gboolean
dep_init (Serve *self, Dep *dep, const SimScenario *sc, SimTopology *topology, GError **error)
{
  g_autoptr(SimLlmModel) model = NULL;
  g_autoptr(SimCommModel) comm = NULL;
  g_autofree guint32 *gpus = NULL;
  const SimServeConfig *c = dep->c;
  /* The first pool's GPUs, as `gpusim serve` takes them. */
  const SimGpuModel *gpu = sim_cluster_get_node (self->cluster, 0)->gpu_model;
  guint per_node = 0;

  model = sim__llm_model_for_scenario (sc, c->model, error);
  if (model == NULL)
    {
      g_prefix_error (error, "[serving %s] model: ", c->name);
      return FALSE;
    }
  /* A replica runs on one node of that GPU model: some node must hold it. */
  for (guint p = 0; p < sim_cluster_get_n_pools (self->cluster); p++)
    {
      const SimPool *pool = sim_cluster_get_pool (self->cluster, p);
      if (pool->gpu_model == gpu)
        per_node = MAX (per_node, pool->gpus_per_node);
    }
  /* A replica job holds whole GPUs of one node: split deployments, MIG
   * slices and shares of a GPU are `gpusim serve`'s alone. */
  if (c->disaggregated || c->mig != NULL || c->replicas_per_gpu > 1)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "[serving %s] %s: in ordinary runs a replica is a job of whole GPUs: "
                   "expected it unset, or in_runs = false to leave the deployment to "
                   "`gpusim serve`", c->name,
                   c->disaggregated ? "disaggregated" : c->mig != NULL ? "mig"
                   : "replicas_per_gpu");
      return FALSE;
    }
  if (c->tp * MAX (1u, c->pp) > per_node)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "[serving %s] %s: %u GPUs a replica: expected at most the %u GPUs of a "
                   "node of %s (a replica's all-reduces run on NVLink inside one)", c->name,
                   c->pp > 1 ? "pp" : "tp", c->tp * MAX (1u, c->pp), per_node, gpu->name);
      return FALSE;
    }
  dep->job_gpus = c->whole_nodes ? per_node : c->tp * MAX (1u, c->pp);
  gpus = g_new (guint32, c->tp * MAX (1u, c->pp));
  for (guint i = 0; i < c->tp * MAX (1u, c->pp); i++)
    gpus[i] = i;
  comm = sim_comm_model_new (topology, self->cluster);
  if (!sim__serve_replica_init (&dep->model, model, gpu, c, comm, gpus, error))
    {
      g_prefix_error (error, "[serving %s]: ", c->name);
      return FALSE;
    }
  dep->requests = sim__serve_requests_generate (&dep->d->requests, sc->seed, error);
  if (dep->requests == NULL)
    {
      g_prefix_error (error, "[serving %s]: ", c->name);
      return FALSE;
    }
  dep->n_slots = c->autoscale ? MAX (c->replicas, c->max_replicas) : c->replicas;
  dep->slots = g_new0 (Slot, dep->n_slots);
  for (guint r = 0; r < dep->n_slots; r++)
    {
      dep->slots[r].dep = dep;
      dep->slots[r].r = r;
    }
  dep->loop = sim__serve_loop_new (&dep->model, c, dep->requests, dep->n_slots, error);
  if (dep->loop == NULL)
    {
      g_prefix_error (error, "[serving %s]: ", c->name);
      return FALSE;
    }
  dep->gpu_models = g_intern_string (gpu->name);
  dep->timeline = g_array_new (FALSE, FALSE, sizeof (SimServeStep));
  dep->surplus_since = -1;
  return TRUE;
}

gboolean
sim__serve_module_attach (SimSimulation *sim, guint flags, GError **error)
{
  const SimScenario *sc = sim__kernel_get_scenario (sim);
  const SimCatalogue *catalogue = sim__kernel_get_catalogue (sim);
  g_autoptr(SimTopology) topology = NULL;
  Serve *self;

  (void) flags;
  if (!sim__serve_has_deployments (sc))
    return TRUE;
  self = g_new0 (Serve, 1);
  self->sim = sim;
  self->cluster = sim__kernel_get_cluster (sim);
  self->deps = g_ptr_array_new_with_free_func (dep_free);
  sim__kernel_set_extension (sim, &serve_key, self, serve_free);
  topology = replica_topology (sc, catalogue, self->cluster, error);
  if (topology == NULL)
    return FALSE;
  for (guint i = 0; i < sc->serving->deployments->len; i++)
    {
      SimServeDeployment *d = sc->serving->deployments->pdata[i];
      Dep *dep;

      /* Asked to stay out of runs: `gpusim serve` studies it alone. */
      if (!d->config.in_runs)
        continue;
      dep = g_new0 (Dep, 1);
      dep->serve = self;
      dep->index = i;
      dep->d = d;
      dep->c = &dep->d->config;
      g_ptr_array_add (self->deps, dep);
      if (!dep_init (self, dep, sc, topology, error)
          || !price (dep, sc, catalogue, self->cluster, error))
        return FALSE;
    }
  self->cloud_first = self->cloud_end = 0;
  if (sc->elastic.enabled)
    for (guint p = 0; p < sim_cluster_get_n_pools (self->cluster); p++)
      {
        const SimPool *pool = sim_cluster_get_pool (self->cluster, p);
        if (strcmp (pool->name, sc->elastic.pool) == 0)
          {
            self->cloud_first = pool->first_node;
            self->cloud_end = pool->first_node + pool->n_nodes;
            self->cloud_gpus_per_node = pool->gpus_per_node;
            self->cloud_gpus = pool->n_nodes * pool->gpus_per_node;
          }
      }
  self->power = sim__kernel_has_power (sim);
  self->slot = sim__kernel_claim_job_slots (sim, 1);
  sim__kernel_add_gate (sim, admit, NULL, self);
  sim__kernel_connect (sim, SIM_HOOK_RUN_START, G_CALLBACK (on_run_start), self);
  sim__kernel_connect (sim, SIM_HOOK_JOB_STARTED, G_CALLBACK (on_started), self);
  sim__kernel_connect (sim, SIM_HOOK_JOB_STOPPING, G_CALLBACK (on_stopping), self);
  sim__kernel_connect (sim, SIM_HOOK_JOB_STOPPED, G_CALLBACK (on_stopped), self);
  sim__kernel_connect (sim, SIM_HOOK_JOB_FINISHED, G_CALLBACK (on_finished), self);
  sim__kernel_connect (sim, SIM_HOOK_STATE_CHANGED, G_CALLBACK (on_state_changed), self);
  sim__kernel_connect (sim, SIM_HOOK_REPORT, G_CALLBACK (on_report), self);
  return TRUE;
}

const SimServeStep *
sim__serve_module_timeline (SimSimulation *sim, const char *deployment, guint *n_steps)
{
  Serve *self = sim__kernel_get_extension (sim, &serve_key);

  *n_steps = 0;
  for (guint i = 0; self != NULL && i < self->deps->len; i++)
    {
      Dep *dep = self->deps->pdata[i];
      if (strcmp (dep->c->name, deployment) == 0)
        {
          *n_steps = dep->timeline->len;
          return (const SimServeStep *) (gpointer) dep->timeline->data;
        }
    }
  return NULL;
}

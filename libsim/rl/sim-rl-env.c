/* sim-rl-env.c: a reinforcement-learning environment over the simulator.
 *
 * The agent acts on the simulation's pending decision through its context
 * (sim_sched_context_start()) and commits it with the policy's pass left
 * out (sim_simulation_decide (sim, FALSE)).  The rewards are integrals of
 * the state the simulation notes between events, taken by an accumulator
 * of its own, so they agree with the report's figures exactly.
 */
#include "config.h"
#include "rl/sim-rl-env.h"
#include "rl/sim-rl-env-private.h"
#include "kernel/sim-kernel.h"
#include "power/sim-power-module.h"
#include "sched/sim-policy-private.h"
#include "report/sim-metrics.h"
#include "power/sim-cost-private.h"
#include "core/sim-error.h"
#include "scenario/sim-scenario-private.h"
#include <math.h>
#include <string.h>

#define SECONDS_PER_HOUR 3600.0
#define J_PER_KWH 3.6e6

/* The integrals since the run began, as the simulation's state held. */
typedef struct {
  SimAccumulator parent;
  SimTime last;
  double  jobs_seconds;   /* job-seconds in the system (waiting or running) */
  double  gpu_seconds;    /* allocated GPU-seconds */
  double  slowdown;       /* the integral of SIM_RL_REWARD_SLOWDOWN's sum (no unit) */
  guint   in_system;      /* jobs in the system in the last state held */
  double  weight;         /* sum of 1 / max (d, bound) over the jobs submitted
                           * and not yet gone, [1/s] */
  guint   weighed;        /* those jobs */
  double  facility_j;     /* the facility's energy, J */
  /* With SIM_RL_REWARD_COST: the cost model, whose energy price the
   * facility's energy is charged at, cut at the price's changes. */
  SimAccumulator *cost;
  double  energy_usd;
  double  price_now;
  SimTime price_until;    /* price_now holds until then */
} RlIntegral;

typedef struct {
  guint32 *gpus;          /* room for the job's GPUs */
  guint    capacity;
  SimPlacement placement; /* where the start would go, if the mask allows it */
} Candidate;

struct _SimRlEnv {
  GObject parent_instance;

  char       *path;
  GStrv       overrides;
  guint       window, slots, n_placements;
  GStrv       placements;
  SimRlReward reward;
  gboolean    skip_forced;
  gboolean    node_actions; /* "start job k at node slot s" actions are offered */

  SimSimulation *sim;
  SimPolicy    **placers;   /* one per placement, for the episode's cluster */
  RlIntegral    *integral;  /* owned by the simulation */
  double         reward_mark; /* the reward integral at the end of the last step */
  double         fixed_usd_h; /* SIM_RL_REWARD_COST: the owning cost per hour */
  gboolean       running;   /* an episode is under way */
  double         total_reward;
  guint64        steps;
  guint          n_gpus;

  /* The decision shown: the window's jobs and each start's placement. */
  SimJob      **jobs;       /* [window], NULL for padding */
  Candidate    *candidates; /* [window * n_placements] */
  Candidate    *node_cands; /* [window * slots] with node actions, else NULL */
  guint         first_node_action; /* W * P */
  guint         waiting;    /* jobs waiting in the whole queue */
  guint         running_jobs;
  double       *node_load;  /* [n_node_load]: each cluster node's uplink load */
  guint         n_node_load;
  double       *node_full;  /* [n_node_load]: each node's full-load power, W */
  double        full_w;     /* the cluster's rated IT power (at full load), W; 0 without
                             * a power model */
  float        *obs, *high;
  gsize         obs_size;
  guint8       *mask;
  guint         n_actions;
};

G_DEFINE_FINAL_TYPE (SimRlEnv, sim_rl_env, G_TYPE_OBJECT)

/* ------------------------------------------------------------------------- */
/* The integral accumulator.                                                 */

static void
integral_advance (SimAccumulator *acc, const SimState *held, SimTime now)
{
  RlIntegral *self = (RlIntegral *) acc;

  if (now > self->last)
    {
      double dt = sim_time_to_seconds (now - self->last);
      self->jobs_seconds += dt * (double) (held->queued + held->running);
      self->gpu_seconds += dt * (double) held->allocated_milli / SIM_GPU_WHOLE;
      self->slowdown += dt * self->weight;
      self->facility_j += dt * held->facility_power_w;
      /* Price x power, as the cost model integrates it (sim-cost.c). */
      for (SimTime t = self->last; self->cost != NULL && held->facility_power_w > 0 && t < now;)
        {
          SimTime t1;
          if (t >= self->price_until)
            self->price_now = sim__cost_energy_price_at (self->cost, t, &self->price_until);
          t1 = MIN (now, self->price_until);
          self->energy_usd += self->price_now * ((double) (t1 - t) / 1e9
                                                 * held->facility_power_w / J_PER_KWH);
          t = t1;
        }
      self->last = now;
    }
  self->in_system = held->queued + held->running;
}

/* The weight of JOB in SIM_RL_REWARD_SLOWDOWN's sum, per second. */
static double
slowdown_weight (const SimJob *job)
{
  SimTime d = job->spec.duration > 0 ? job->spec.duration : MAX (job->spec.requested, 0);
  return 1.0 / MAX (sim_time_to_seconds (d), SIM_RL_SLOWDOWN_BOUND);
}

/* The weights change at the events' time, after advance() has integrated
 * the time before it. */
static void
integral_job_event (SimAccumulator *acc, SimJobEvent event, const SimJob *job,
                    const char *class_name, SimTime now)
{
  RlIntegral *self = (RlIntegral *) acc;

  switch (event)
    {
    case SIM_JOB_SUBMITTED:
      self->weight += slowdown_weight (job);
      self->weighed++;
      break;
    case SIM_JOB_REJECTED:
    case SIM_JOB_FINISHED:
      g_return_if_fail (self->weighed > 0);
      /* Exactly 0 with no job left, whatever the rounding of the sums. */
      self->weight = --self->weighed > 0 ? self->weight - slowdown_weight (job) : 0;
      break;
    default:
      break;
    }
}

static void
integral_report (SimAccumulator *acc, SimReport *report, const SimReportInfo *info)
{
}

static void
integral_free (SimAccumulator *acc)
{
  g_free (acc);
}

static const SimAccumulatorVTable integral_vtable = {
  integral_advance, integral_job_event, integral_report, integral_free,
};

/* ------------------------------------------------------------------------- */

static void
clear_episode (SimRlEnv *self)
{
  if (self->placers != NULL)
    {
      for (guint p = 0; p < self->n_placements; p++)
        g_clear_object (&self->placers[p]);
      g_clear_pointer (&self->placers, g_free);
    }
  self->integral = NULL;
  g_clear_object (&self->sim);
  self->running = FALSE;
  self->total_reward = 0;
  self->steps = 0;
  self->reward_mark = 0;
}

static void
sim_rl_env_finalize (GObject *object)
{
  SimRlEnv *self = SIM_RL_ENV (object);

  clear_episode (self);
  for (guint i = 0; i < self->window * self->n_placements; i++)
    g_free (self->candidates[i].gpus);
  g_free (self->candidates);
  for (guint i = 0; self->node_cands != NULL && i < self->window * self->slots; i++)
    g_free (self->node_cands[i].gpus);
  g_free (self->node_cands);
  g_free (self->jobs);
  g_free (self->node_load);
  g_free (self->node_full);
  g_free (self->obs);
  g_free (self->high);
  g_free (self->mask);
  g_strfreev (self->placements);
  g_strfreev (self->overrides);
  g_free (self->path);
  G_OBJECT_CLASS (sim_rl_env_parent_class)->finalize (object);
}

static void
sim_rl_env_class_init (SimRlEnvClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sim_rl_env_finalize;
}

static void
sim_rl_env_init (SimRlEnv *self)
{
  self->skip_forced = TRUE;
}

static double
reward_integral (SimRlEnv *self)
{
  if (self->integral == NULL)
    return 0;
  if (self->reward == SIM_RL_REWARD_UTILIZATION)
    return self->integral->gpu_seconds / (self->n_gpus * SECONDS_PER_HOUR);
  if (self->reward == SIM_RL_REWARD_SLOWDOWN)
    return -self->integral->slowdown;
  if (self->reward == SIM_RL_REWARD_ENERGY)
    return -self->integral->facility_j / J_PER_KWH;
  if (self->reward == SIM_RL_REWARD_COST)
    return -(self->integral->energy_usd
             + self->fixed_usd_h * sim_time_to_seconds (self->integral->last) / SECONDS_PER_HOUR);
  return -self->integral->jobs_seconds / SECONDS_PER_HOUR;
}

/* The observation's upper bounds. */
static void
fill_high (SimRlEnv *self)
{
  static const float job_high[SIM_RL_JOB_FEATURES] = { 1, G_MAXFLOAT, 1, 1, G_MAXFLOAT,
                                                       G_MAXFLOAT, G_MAXFLOAT };
  static const float global_high[SIM_RL_GLOBAL_FEATURES] = { 1, 1, G_MAXFLOAT, G_MAXFLOAT, 1 };
  float *h = self->high;

  for (guint k = 0; k < self->window; k++, h += SIM_RL_JOB_FEATURES)
    memcpy (h, job_high, sizeof job_high);
  for (guint s = 0; s < self->slots * SIM_RL_SLOT_FEATURES; s++)
    *h++ = 1;
  memcpy (h, global_high, sizeof global_high);
  h += SIM_RL_GLOBAL_FEATURES;
  /* Link loads, appended: one per node slot, then the largest and the mean. */
  for (guint s = 0; s < self->slots * SIM_RL_SLOT_LINK_FEATURES + SIM_RL_LINK_FEATURES; s++)
    *h++ = 1;
  /* Power, appended: one per node slot, then IT, facility and PUE. */
  for (guint s = 0; s < self->slots * SIM_RL_SLOT_POWER_FEATURES; s++)
    *h++ = 1;
  *h++ = 1;
  *h++ = G_MAXFLOAT;
  *h++ = G_MAXFLOAT;
}

gboolean
sim__rl_check_reward (const SimScenario *scenario, SimRlReward reward, const char *what,
                      gboolean *cost_key, GError **error)
{
  *cost_key = FALSE;
  if (reward != SIM_RL_REWARD_ENERGY && reward != SIM_RL_REWARD_COST)
    return TRUE;
  if (!scenario->power.enabled)
    g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                 "%s needs the power model, which gives the facility's energy: add a [power] "
                 "section to the scenario (an empty one will do)%s%s", what,
                 reward == SIM_RL_REWARD_COST && !scenario->cost.enabled
                   ? " and a [cost] section with an energy price" : "",
                 reward == SIM_RL_REWARD_COST
                   ? "; without it the cost would be the fixed owning cost per hour alone, "
                     "which only measures how long the run takes" : "");
  else if (reward == SIM_RL_REWARD_COST && !scenario->cost.enabled)
    g_set_error (error, SIM_ERROR, SIM_ERROR_MISSING,
                 "%s needs the cost model: add a [cost] section to the scenario (energy_price "
                 "or energy_price_file, and what capex and maintenance should count)", what);
  else if (reward == SIM_RL_REWARD_COST && scenario->cost.capacity_basis == SIM_COST_CAPACITY_PEAK)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "peak sizes the facility's capex on the run's peak power, known only at its "
                   "end, and %s charges it step by step: expected capacity_basis = rated", what);
      *cost_key = TRUE;
    }
  else
    return TRUE;
  return FALSE;
}

/* Whether the scenario has what REWARD needs (sim__rl_check_reward()).
 * FROM_SCENARIO: the scenario's [rl] reward chose it. */
static gboolean
check_reward (const SimScenario *scenario, SimRlReward reward, gboolean from_scenario,
              GError **error)
{
  const char *name = reward == SIM_RL_REWARD_ENERGY ? "energy" : "cost";
  g_autofree char *what = NULL;
  gboolean cost_key;

  what = from_scenario ? g_strdup_printf ("the %s reward", name)
                       : g_strdup_printf ("the %s reward ([rl] reward = %s)", name, name);
  if (sim__rl_check_reward (scenario, reward, what, &cost_key, error))
    return TRUE;
  if (cost_key)
    sim__scenario_locate (scenario, "cost", "capacity_basis", error);
  else if (from_scenario)
    sim__scenario_locate (scenario, "rl", "reward", error);
  return FALSE;
}

SimRlEnv *
sim_rl_env_new (const char *scenario_path, const char * const *overrides, guint window,
                guint node_slots, const char * const *placements, SimRlReward reward,
                GError **error)
{
  static const char * const default_placements[] = { "first-fit", "best-fit", NULL };
  g_autoptr(SimRlEnv) self = NULL;
  g_autoptr(SimScenario) scenario = NULL;
  g_autoptr(SimSimulation) sim = NULL;
  gboolean from_scenario = FALSE;

  g_return_val_if_fail (scenario_path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (window > SIM_RL_MAX_WINDOW)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "window of %u jobs: expected 1 to %u (0 for the scenario's)", window,
                   SIM_RL_MAX_WINDOW);
      return NULL;
    }
  if (node_slots > SIM_RL_MAX_SLOTS)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%u node slots: expected 1 to %u (0 for the scenario's)", node_slots,
                   SIM_RL_MAX_SLOTS);
      return NULL;
    }
  if ((int) reward < SIM_RL_REWARD_JOBS || reward > SIM_RL_REWARD_COST)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "reward %d: expected %d (jobs), %d "
                   "(utilization), %d (slowdown), %d (energy), %d (cost) or %d (the "
                   "scenario's)", (int) reward, SIM_RL_REWARD_JOBS, SIM_RL_REWARD_UTILIZATION,
                   SIM_RL_REWARD_SLOWDOWN, SIM_RL_REWARD_ENERGY, SIM_RL_REWARD_COST,
                   SIM_RL_REWARD_SCENARIO);
      return NULL;
    }
  if (placements != NULL &&
      (placements[0] == NULL || g_strv_length ((char **) placements) > SIM_RL_MAX_PLACEMENTS))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "%u placements: expected 1 to %u",
                   g_strv_length ((char **) placements), SIM_RL_MAX_PLACEMENTS);
      return NULL;
    }
  /* The scenario and its placements are checked now rather than at the
   * first reset. */
  scenario = sim_scenario_load (scenario_path, overrides, error);
  if (scenario == NULL || (sim = sim_simulation_new (scenario, error)) == NULL)
    return NULL;
  /* What the arguments leave open, the scenario's [rl] decides. */
  if (window == 0)
    window = scenario->rl.window > 0 ? scenario->rl.window : SIM_RL_DEFAULT_WINDOW;
  if (node_slots == 0)
    node_slots = scenario->rl.node_slots > 0 ? scenario->rl.node_slots : SIM_RL_DEFAULT_SLOTS;
  if (reward == SIM_RL_REWARD_SCENARIO)
    {
      reward = scenario->rl.reward >= 0 ? (SimRlReward) scenario->rl.reward : SIM_RL_REWARD_JOBS;
      if (!check_reward (scenario, reward, scenario->rl.reward >= 0, error))
        return NULL;
    }
  else if (!check_reward (scenario, reward, FALSE, error))
    return NULL;
  if (placements == NULL)
    {
      from_scenario = scenario->rl.placements != NULL;
      placements = from_scenario ? (const char * const *) scenario->rl.placements
                                 : default_placements;
    }
  for (guint p = 0; placements[p] != NULL; p++)
    {
      g_autoptr(SimPolicy) probe = sim__kernel_new_placement (sim, placements[p], error);
      if (probe == NULL)
        {
          g_prefix_error (error, "placement %u of the environment: ", p);
          if (from_scenario)
            sim__scenario_locate (scenario, "rl", "placements", error);
          return NULL;
        }
    }

  self = g_object_new (SIM_TYPE_RL_ENV, NULL);
  self->path = g_strdup (scenario_path);
  self->overrides = g_strdupv ((char **) overrides);
  self->window = window;
  self->slots = node_slots;
  self->placements = g_strdupv ((char **) placements);
  self->n_placements = g_strv_length (self->placements);
  self->reward = reward;
  self->jobs = g_new0 (SimJob *, window);
  self->candidates = g_new0 (Candidate, (gsize) window * self->n_placements);
  self->obs_size = (gsize) window * SIM_RL_JOB_FEATURES + (gsize) node_slots * SIM_RL_SLOT_FEATURES
                   + SIM_RL_GLOBAL_FEATURES + (gsize) node_slots * SIM_RL_SLOT_LINK_FEATURES
                   + SIM_RL_LINK_FEATURES + (gsize) node_slots * SIM_RL_SLOT_POWER_FEATURES
                   + SIM_RL_POWER_FEATURES;
  self->obs = g_new0 (float, self->obs_size);
  self->high = g_new0 (float, self->obs_size);
  self->node_actions = scenario->rl.node_actions == 1;
  self->first_node_action = window * self->n_placements;
  if (self->node_actions)
    self->node_cands = g_new0 (Candidate, (gsize) window * node_slots);
  self->n_actions = window * self->n_placements + (self->node_actions ? window * node_slots : 0)
                    + 1;
  self->mask = g_new0 (guint8, self->n_actions);
  fill_high (self);
  return g_steal_pointer (&self);
}

void
sim_rl_env_set_skip_forced (SimRlEnv *self, gboolean skip)
{
  g_return_if_fail (SIM_IS_RL_ENV (self));
  self->skip_forced = skip;
}

/* ------------------------------------------------------------------------- */
/* Looking at the decision.                                                  */

/* Room for N GPUs in C. */
static void
candidate_reserve (Candidate *c, guint n)
{
  if (c->capacity < n)
    {
      c->capacity = MAX (n, 8);
      g_free (c->gpus);
      c->gpus = g_new (guint32, c->capacity);
    }
  c->placement.gpus = c->gpus;
}

/* Node slot S's nodes, [*first, *last), for a cluster of N_NODES. */
static void
slot_nodes (const SimRlEnv *self, guint s, guint n_nodes, guint *first, guint *last)
{
  guint per_slot = (n_nodes + self->slots - 1) / self->slots;

  *first = MIN (s * per_slot, n_nodes);
  *last = MIN (*first + per_slot, n_nodes);
}

/* The node action (JOB, slot S): its whole GPUs on the first node of the
 * slot, in index order, that takes them all (available, enough free GPUs,
 * admitted: GPU model, host CPU and memory), the node's lowest-numbered
 * free GPUs.  Returns whether there is one. */
static gboolean
place_at_slot (SimRlEnv *self, const SimCluster *cluster, const SimJob *job, guint s,
               Candidate *c)
{
  guint first, last, want = job->spec.gpus;

  if (!sim_job_takes_whole_gpus (job) || want == 0)
    return FALSE;
  slot_nodes (self, s, sim_cluster_get_n_nodes (cluster), &first, &last);
  for (guint n = first; n < last; n++)
    {
      const SimNode *node = sim_cluster_get_node (cluster, n);
      guint got = 0;
      if (!node->available || node->free_gpus < want ||
          !sim_place_node_admits (cluster, n, job, want))
        continue;
      candidate_reserve (c, want);
      for (guint g = 0; g < node->n_gpus && got < want; g++)
        if (sim_cluster_get_gpu (cluster, node->first_gpu + g)->n_tenants == 0)
          c->gpus[got++] = node->first_gpu + g;
      if (got < want)
        continue;
      c->placement.n_gpus = want;
      c->placement.milli = SIM_GPU_WHOLE;
      c->placement.mig_start = -1;
      return TRUE;
    }
  return FALSE;
}

/* The window, each start's placement, the mask and the observation, for
 * the pending decision (or for the end of the run, with none).  The link
 * loads are read only when LINKS (a decision just reached): after a start
 * inside an open decision they keep the committed state's values, whatever
 * the network model has already registered for the start.  Returns
 * whether some start is possible. */
static gboolean
observe (SimRlEnv *self, gboolean links)
{
  SimSchedContext *ctx = self->running ? sim_simulation_get_decision (self->sim) : NULL;
  const SimCluster *cluster = sim_simulation_get_cluster (self->sim);
  SimJob * const *queue = NULL;
  guint n_queue = 0, k = 0, n_nodes, n_free;
  gboolean any = FALSE;
  float *o = self->obs;
  SimTime now = sim_simulation_get_now (self->sim);

  /* Counted by the simulation, not through the context, which would bring
   * running jobs' progress up to date at times the policy's pass does not
   * and so change the run's rounding. */
  self->running_jobs = ctx != NULL ? sim__kernel_get_running (self->sim)->length : 0;
  memset (self->mask, 0, self->n_actions);
  memset (self->jobs, 0, self->window * sizeof *self->jobs);
  self->waiting = 0;
  if (ctx != NULL)
    queue = sim_sched_context_get_queue (ctx, &n_queue);
  n_free = sim_cluster_get_n_free_gpus (cluster);
  for (guint i = 0; i < n_queue; i++)
    {
      SimJob *job = queue[i];
      if (job->state != SIM_JOB_QUEUED)
        continue;
      self->waiting++;
      if (k == self->window)
        continue;
      self->jobs[k] = job;
      for (guint p = 0; p < self->n_placements; p++)
        {
          Candidate *c = &self->candidates[k * self->n_placements + p];
          if (c->capacity < job->spec.gpus)
            {
              c->capacity = MAX (job->spec.gpus, 8);
              g_free (c->gpus);
              c->gpus = g_new (guint32, c->capacity);
            }
          c->placement.gpus = c->gpus;
          c->placement.n_gpus = job->spec.gpus;
          c->placement.milli = job->spec.gpu_milli;
          c->placement.mig_start = -1;
          if (sim_job_takes_whole_gpus (job) && n_free < sim_job_get_min_gpus (job))
            continue;
          if (sim_policy_place (self->placers[p], cluster, job, &c->placement))
            {
              self->mask[k * self->n_placements + p] = 1;
              any = TRUE;
            }
        }
      for (guint s = 0; self->node_actions && s < self->slots; s++)
        if (place_at_slot (self, cluster, job, s, &self->node_cands[k * self->slots + s]))
          {
            self->mask[self->first_node_action + k * self->slots + s] = 1;
            any = TRUE;
          }
      k++;
    }
  /* Waiting with nothing running while a job could start might leave no
   * event to come: the run would end with jobs that never ran. */
  if (ctx != NULL && (!any || self->running_jobs > 0))
    self->mask[self->n_actions - 1] = 1;

  /* The window. */
  for (k = 0; k < self->window; k++, o += SIM_RL_JOB_FEATURES)
    {
      const SimJob *job = self->jobs[k];
      if (job == NULL)
        {
          memset (o, 0, SIM_RL_JOB_FEATURES * sizeof *o);
          continue;
        }
      o[0] = 1;
      o[1] = (float) job->spec.gpus;
      o[2] = (float) job->spec.gpu_milli / SIM_GPU_WHOLE;
      o[3] = job->spec.mig_profile != NULL ? 1 : 0;
      o[4] = (float) (sim_time_to_seconds (MAX (now - job->spec.submit, 0)) / SECONDS_PER_HOUR);
      o[5] = (float) (sim_time_to_seconds (MAX (job->spec.requested, 0)) / SECONDS_PER_HOUR);
      o[6] = (float) job->spec.job_class;
    }

  /* The node slots. */
  n_nodes = sim_cluster_get_n_nodes (cluster);
  {
    for (guint s = 0; s < self->slots; s++, o += SIM_RL_SLOT_FEATURES)
      {
        guint first, last;
        guint64 gpus = 0, free = 0;
        slot_nodes (self, s, n_nodes, &first, &last);
        for (guint n = first; n < last; n++)
          {
            const SimNode *node = sim_cluster_get_node (cluster, n);
            gpus += node->n_gpus;
            free += node->available ? node->free_gpus : 0;
          }
        o[0] = first < last ? 1 : 0;
        o[1] = gpus > 0 ? (float) ((double) free / (double) gpus) : 0;
      }
  }

  /* The whole cluster. */
  o[0] = self->n_gpus > 0 ? (float) ((double) n_free / self->n_gpus) : 0;
  o[1] = self->jobs[0] != NULL && self->n_gpus > 0
           ? (float) ((double) sim_cluster_fragmented_gpus (cluster,
                                                            sim_job_get_min_gpus (self->jobs[0]))
                      / self->n_gpus)
           : 0;
  o[2] = (float) self->waiting;
  o[3] = (float) self->running_jobs;
  o[4] = self->n_gpus > 0
           ? (float) ((double) sim_cluster_get_allocated_milli (cluster)
                      / ((double) SIM_GPU_WHOLE * self->n_gpus))
           : 0;
  o += SIM_RL_GLOBAL_FEATURES;

  /* The network's link loads, as the last committed decision left them. */
  if (links)
  {
    double max_load, mean_load;
    sim__kernel_get_fabric_load (self->sim, &max_load, &mean_load, self->node_load,
                                     MIN (n_nodes, self->n_node_load));
    for (guint s = 0; s < self->slots; s++, o += SIM_RL_SLOT_LINK_FEATURES)
      {
        guint first, last;
        double load = 0;
        slot_nodes (self, s, n_nodes, &first, &last);
        for (guint n = first; n < last && n < self->n_node_load; n++)
          load = MAX (load, self->node_load[n]);
        o[0] = (float) load;
      }
    o[0] = (float) max_load;
    o[1] = (float) mean_load;
  }
  else
    o += self->slots * SIM_RL_SLOT_LINK_FEATURES;
  o += SIM_RL_LINK_FEATURES;

  /* Power, as the power model has it now. */
  if (self->full_w > 0)
    {
      double it_w, facility_w;
      sim__kernel_get_power (self->sim, &it_w, &facility_w);
      for (guint s = 0; s < self->slots; s++, o += SIM_RL_SLOT_POWER_FEATURES)
        {
          guint first, last;
          double w = 0, full = 0;
          slot_nodes (self, s, n_nodes, &first, &last);
          for (guint n = first; n < last && n < self->n_node_load; n++)
            {
              w += sim__kernel_get_node_power (self->sim, n);
              full += self->node_full[n];
            }
          o[0] = full > 0 ? (float) (w / full) : 0;
        }
      o[0] = (float) (it_w / self->full_w);
      o[1] = (float) (facility_w / self->full_w);
      o[2] = it_w > 0 ? (float) (facility_w / it_w) : 0;
    }
  else
    memset (o, 0, (self->slots * SIM_RL_SLOT_POWER_FEATURES + SIM_RL_POWER_FEATURES) * sizeof *o);
  return any;
}


/* Runs to the next decision with a choice (any decision, without
 * skip_forced), committing the ones passed over with nothing started.
 * Sets running to FALSE when the run ends. */
static gboolean
run_to_choice (SimRlEnv *self, GError **error)
{
  for (;;)
    {
      GError *local = NULL;
      if (!sim_simulation_run_to_decision (self->sim, &local))
        {
          self->running = FALSE;
          if (local != NULL)
            {
              g_propagate_error (error, local);
              return FALSE;
            }
          observe (self, TRUE);
          return TRUE;
        }
      if (observe (self, TRUE) || !self->skip_forced)
        return TRUE;
      if (!sim_simulation_decide (self->sim, FALSE, error))
        {
          self->running = FALSE;
          return FALSE;
        }
    }
}

static gboolean
reset (SimRlEnv *self, const guint64 *seed, GError **error)
{
  g_autoptr(GPtrArray) overrides = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(SimScenario) scenario = NULL;
  RlIntegral *integral;

  clear_episode (self);
  for (guint i = 0; self->overrides != NULL && self->overrides[i] != NULL; i++)
    g_ptr_array_add (overrides, g_strdup (self->overrides[i]));
  if (seed != NULL)
    g_ptr_array_add (overrides, g_strdup_printf ("scenario.seed=%" G_GUINT64_FORMAT, *seed));
  g_ptr_array_add (overrides, NULL);
  scenario = sim_scenario_load (self->path, (const char * const *) overrides->pdata, error);
  if (scenario == NULL || (self->sim = sim_simulation_new (scenario, error)) == NULL)
    return FALSE;

  integral = g_new0 (RlIntegral, 1);
  integral->parent.vtable = &integral_vtable;
  sim__kernel_add_accumulator (self->sim, &integral->parent);
  self->integral = integral;
  if (self->reward == SIM_RL_REWARD_COST)
    integral->cost = sim__cost_get (self->sim, &self->fixed_usd_h);
  self->n_gpus = sim_cluster_get_n_gpus (sim_simulation_get_cluster (self->sim));
  if (self->n_node_load != sim_cluster_get_n_nodes (sim_simulation_get_cluster (self->sim)))
    {
      self->n_node_load = sim_cluster_get_n_nodes (sim_simulation_get_cluster (self->sim));
      g_free (self->node_load);
      g_free (self->node_full);
      self->node_load = g_new0 (double, MAX (self->n_node_load, 1));
      self->node_full = g_new0 (double, MAX (self->n_node_load, 1));
    }
  self->full_w = sim__power_module_get_full_power (self->sim, self->node_full, self->n_node_load);

  self->placers = g_new0 (SimPolicy *, self->n_placements);
  for (guint p = 0; p < self->n_placements; p++)
    if ((self->placers[p] = sim__kernel_new_placement (self->sim, self->placements[p],
                                                           error)) == NULL)
      {
        clear_episode (self);
        return FALSE;
      }
  self->running = TRUE;
  if (!run_to_choice (self, error))
    {
      clear_episode (self);
      return FALSE;
    }
  return TRUE;
}

gboolean
sim_rl_env_reset (SimRlEnv *self, GError **error)
{
  g_return_val_if_fail (SIM_IS_RL_ENV (self), FALSE);
  return reset (self, NULL, error);
}

gboolean
sim_rl_env_reset_with_seed (SimRlEnv *self, guint64 seed, GError **error)
{
  g_return_val_if_fail (SIM_IS_RL_ENV (self), FALSE);
  return reset (self, &seed, error);
}

/* The window slot of a start action. */
static guint
action_job (const SimRlEnv *self, guint action)
{
  if (action >= self->first_node_action)
    return (action - self->first_node_action) / self->slots;
  return action / self->n_placements;
}

gboolean
sim_rl_env_step (SimRlEnv *self, guint action, double *reward, gboolean *terminated,
                 gboolean *truncated, GError **error)
{
  double r, mark;

  g_return_val_if_fail (SIM_IS_RL_ENV (self), FALSE);
  *reward = 0;
  *terminated = *truncated = FALSE;
  if (!self->running)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE, "no episode is under way: %s",
                   self->sim == NULL ? "reset the environment first"
                                     : "the last one has ended; reset the environment");
      return FALSE;
    }
  if (action >= self->n_actions)
    {
      if (self->node_actions)
        g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                     "action %u is out of range: expected 0 to %u (%u window jobs x %u "
                     "placements, %u window jobs x %u node slots, then wait)", action,
                     self->n_actions - 1, self->window, self->n_placements, self->window,
                     self->slots);
      else
        g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                     "action %u is out of range: expected 0 to %u (%u window jobs x %u "
                     "placements, then wait)", action, self->n_actions - 1, self->window,
                     self->n_placements);
      return FALSE;
    }
  if (!self->mask[action])
    {
      g_autofree char *what = sim_rl_env_describe_action (self, action);
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID, "action %u (%s) is not possible now: %s",
                   action, what,
                   action == self->n_actions - 1
                     ? "no job runs and a job could start (waiting might never end)"
                   : self->jobs[action_job (self, action)] == NULL
                     ? "that window slot is empty"
                   : action >= self->first_node_action
                     ? (sim_job_takes_whole_gpus (self->jobs[action_job (self, action)])
                          ? "no node of that slot has room for the job"
                          : "node actions take whole-GPU jobs only")
                     : "the placement finds no room for the job");
      return FALSE;
    }

  self->steps++;
  if (action < self->n_actions - 1)
    {
      SimSchedContext *ctx = sim_simulation_get_decision (self->sim);
      gboolean at_node = action >= self->first_node_action;
      Candidate *c = at_node ? &self->node_cands[action - self->first_node_action]
                             : &self->candidates[action];
      SimJob *job = self->jobs[action_job (self, action)];
      if (!sim_sched_context_start (ctx, job, &c->placement, error))
        {
          if (at_node)
            g_prefix_error (error, "node slot %u: ",
                            (action - self->first_node_action) % self->slots);
          else
            g_prefix_error (error, "placement %s: ",
                            self->placements[action % self->n_placements]);
          return FALSE;
        }
      /* Another start possible: the decision stays open; none: wait. */
      if (observe (self, FALSE) || !self->skip_forced)
        return TRUE;
    }
  if (!sim_simulation_decide (self->sim, FALSE, error))
    {
      self->running = FALSE;
      return FALSE;
    }
  if (!run_to_choice (self, error))
    return FALSE;
  mark = reward_integral (self);
  r = mark - self->reward_mark;
  self->reward_mark = mark;
  self->total_reward += r;
  *reward = r;
  if (!self->running)
    {
      if (self->integral->in_system > 0)
        *truncated = TRUE;
      else
        *terminated = TRUE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------- */

const float *
sim_rl_env_get_observation (SimRlEnv *self, gsize *n)
{
  g_return_val_if_fail (SIM_IS_RL_ENV (self) && n != NULL, NULL);
  *n = self->obs_size;
  return self->obs;
}

GBytes *
sim_rl_env_get_observation_bytes (SimRlEnv *self)
{
  g_return_val_if_fail (SIM_IS_RL_ENV (self), NULL);
  return g_bytes_new (self->obs, self->obs_size * sizeof *self->obs);
}

const float *
sim_rl_env_get_observation_high (SimRlEnv *self, gsize *n)
{
  g_return_val_if_fail (SIM_IS_RL_ENV (self) && n != NULL, NULL);
  *n = self->obs_size;
  return self->high;
}

const guint8 *
sim_rl_env_get_action_mask (SimRlEnv *self, gsize *n)
{
  g_return_val_if_fail (SIM_IS_RL_ENV (self) && n != NULL, NULL);
  *n = self->n_actions;
  return self->mask;
}

GBytes *
sim_rl_env_get_action_mask_bytes (SimRlEnv *self)
{
  g_return_val_if_fail (SIM_IS_RL_ENV (self), NULL);
  return g_bytes_new (self->mask, self->n_actions);
}

gsize
sim_rl_env_get_observation_size (SimRlEnv *self)
{
  g_return_val_if_fail (SIM_IS_RL_ENV (self), 0);
  return self->obs_size;
}

guint
sim_rl_env_get_n_actions (SimRlEnv *self)
{
  g_return_val_if_fail (SIM_IS_RL_ENV (self), 0);
  return self->n_actions;
}

guint
sim_rl_env_get_window (SimRlEnv *self)
{
  g_return_val_if_fail (SIM_IS_RL_ENV (self), 0);
  return self->window;
}

guint
sim_rl_env_get_node_slots (SimRlEnv *self)
{
  g_return_val_if_fail (SIM_IS_RL_ENV (self), 0);
  return self->slots;
}

guint
sim_rl_env_get_n_placements (SimRlEnv *self)
{
  g_return_val_if_fail (SIM_IS_RL_ENV (self), 0);
  return self->n_placements;
}

gboolean
sim_rl_env_get_node_actions (SimRlEnv *self)
{
  g_return_val_if_fail (SIM_IS_RL_ENV (self), FALSE);
  return self->node_actions;
}

guint
sim_rl_env_get_first_node_action (SimRlEnv *self)
{
  g_return_val_if_fail (SIM_IS_RL_ENV (self), 0);
  return self->first_node_action;
}

SimRlReward
sim_rl_env_get_reward (SimRlEnv *self)
{
  g_return_val_if_fail (SIM_IS_RL_ENV (self), SIM_RL_REWARD_JOBS);
  return self->reward;
}

const char *
sim_rl_env_get_placement_name (SimRlEnv *self, guint index)
{
  g_return_val_if_fail (SIM_IS_RL_ENV (self), NULL);
  return index < self->n_placements ? self->placements[index] : NULL;
}

guint
sim_rl_env_get_wait_action (SimRlEnv *self)
{
  g_return_val_if_fail (SIM_IS_RL_ENV (self), 0);
  return self->n_actions - 1;
}

char *
sim_rl_env_describe_action (SimRlEnv *self, guint action)
{
  guint k;

  g_return_val_if_fail (SIM_IS_RL_ENV (self), NULL);
  if (action >= self->n_actions)
    return g_strdup_printf ("action %u (out of range)", action);
  if (action == self->n_actions - 1)
    return g_strdup ("wait");
  k = action_job (self, action);
  if (action >= self->first_node_action)
    {
      guint s = (action - self->first_node_action) % self->slots;
      if (self->running && self->jobs[k] != NULL)
        return g_strdup_printf ("start window job %u (job %" G_GUINT64_FORMAT ") at node slot %u",
                                k, self->jobs[k]->spec.id, s);
      return g_strdup_printf ("start window job %u at node slot %u", k, s);
    }
  if (self->running && self->jobs[k] != NULL)
    return g_strdup_printf ("start window job %u (job %" G_GUINT64_FORMAT ") with %s", k,
                            self->jobs[k]->spec.id, self->placements[action % self->n_placements]);
  return g_strdup_printf ("start window job %u with %s", k,
                          self->placements[action % self->n_placements]);
}

SimSimulation *
sim_rl_env_get_simulation (SimRlEnv *self)
{
  g_return_val_if_fail (SIM_IS_RL_ENV (self), NULL);
  return self->sim;
}

double
sim_rl_env_get_total_reward (SimRlEnv *self)
{
  g_return_val_if_fail (SIM_IS_RL_ENV (self), 0);
  return self->total_reward;
}

guint64
sim_rl_env_get_steps (SimRlEnv *self)
{
  g_return_val_if_fail (SIM_IS_RL_ENV (self), 0);
  return self->steps;
}

gboolean
sim_rl_env_is_done (SimRlEnv *self)
{
  g_return_val_if_fail (SIM_IS_RL_ENV (self), TRUE);
  return !self->running;
}

/* sim-facility-limit.c: the facility power limit (sim-facility-limit.h). */
#include "config.h"

#include "power/sim-facility-limit.h"
#include "kernel/sim-kernel.h"
#include "power/sim-power-module.h"
#include "power/sim-power-policy.h"
#include "power/sim-power.h"
#include "report/sim-metrics.h"
#include "core/sim-error.h"
#include "scenario/sim-scenario-private.h"

#include <math.h>

/* The search stops when the bracket is this narrow (a share of TDP), or
 * when the draw is this close under the limit, or after this many steps. */
#define LEVEL_TOLERANCE 1e-7
#define DRAW_TOLERANCE_W 1e-3
#define MAX_STEPS 100
/* Searches after caps were set and the draw is still over (light jobs
 * kept busier by slower GPUs), before settling. */
#define MAX_SEARCHES 8

typedef struct {
  SimAccumulator acc;          /* first: the simulation frees it as an accumulator */
  SimSimulation *sim;          /* (not owned) */
  SimFacilityConfig config;
  SimPowerCaps  *caps;
  SimPower      *power;
  guint          n_gpus;
  double        *tdp;          /* per GPU, W; 0 for a cloud GPU, which it never caps */
  double        *saved;        /* per GPU: its cap before a what-if */
  double         level;        /* cap mode: the caps now, a share of TDP; 1: none */
  double         manager_threshold; /* the cap manager's, if any (> 1: none) */
  double         settled_w;    /* cap mode: the draw the last search left; < 0: none */
  double         lowest_level;
  gboolean       holding;      /* hold mode: the last pass held a start */
  double         held_at_w;    /* the draw when it did */
  guint64        held_starts;
  gboolean       failed;
  gboolean       active;       /* FALSE: no limit; reports only */

  SimTime        last;         /* integrals up to date until here */
  double         limited_s, over_s;
} Limit;

static inline gboolean
limited (const Limit *l)
{
  return l->config.limit_mode == SIM_FACILITY_LIMIT_CAP ? l->level < 1 : l->holding;
}

static void
integrate_limited (Limit *l, SimTime now)
{
  if (now > l->last)
    {
      if (limited (l))
        l->limited_s += sim_time_to_seconds (now - l->last);
      l->last = now;
    }
}

static double
facility_now (Limit *l)
{
  double it, facility = 0;

  sim__kernel_get_power (l->sim, &it, &facility);
  return facility;
}

/* GPU G's cap at LEVEL with the other policies' and the scenario's. */
static double
cap_at (const Limit *l, guint g, double level)
{
  double cap = level < 1 ? level * l->tdp[g] : 0;   /* 0 (no cap) for a cloud GPU */
  double other[2] = { sim__power_caps_get_base (l->caps, g),
                      sim__power_caps_get_source (l->caps, g, SIM_CAP_MANAGER) };

  for (guint k = 0; k < 2; k++)
    if (other[k] > 0 && (cap == 0 || other[k] < cap))
      cap = other[k];
  return cap;
}

/* GPU G's cap now but for the cap manager's. */
static double
cap_without_manager (const Limit *l, guint g)
{
  double cap = l->level < 1 ? l->level * l->tdp[g] : 0, base = sim__power_caps_get_base (l->caps, g);

  if (base > 0 && (cap == 0 || base < cap))
    cap = base;
  return cap;
}

/* The facility's draw with every GPU at LEVEL, the rest as it is now: a
 * what-if on the power model, which the caller puts back (restore()). */
static double
facility_at (Limit *l, double level)
{
  for (guint g = 0; g < l->n_gpus; g++)
    sim__power_set_cap (l->power, g, cap_at (l, g, level), NULL);
  return facility_now (l);
}

static void
save (Limit *l)
{
  for (guint g = 0; g < l->n_gpus; g++)
    l->saved[g] = sim__power_get_cap (l->power, g);
}

static void
restore (Limit *l)
{
  for (guint g = 0; g < l->n_gpus; g++)
    sim__power_set_cap (l->power, g, l->saved[g], NULL);
}

/* The highest level in [min_cap, 1] at which the what-if draw is at or
 * under TARGET (min_cap if none is).  F(level) is continuous and grows
 * with the level, close to linearly (the GPUs at their caps draw them), so
 * the bracket [lo, hi] with F(lo) <= TARGET < F(hi) is narrowed by the
 * Illinois variant of regula falsi (the secant through the bracket's ends,
 * halving the weight of an end kept twice), which takes a handful of
 * what-ifs where bisection takes 25, each O(GPUs); it stops when the draw
 * at lo is within DRAW_TOLERANCE_W of the target or the bracket is
 * narrower than LEVEL_TOLERANCE. */
static double
search_level (Limit *l, double target)
{
  double lo = l->config.min_cap_share, hi = 1, glo, ghi;
  int side = 0;

  save (l);
  ghi = facility_at (l, 1) - target;
  if (ghi <= 0)
    lo = 1;
  else if ((glo = facility_at (l, lo) - target) <= 0)
    {
      /* g(lo) <= 0 < g(hi): keep it so. */
      for (guint k = 0; k < MAX_STEPS && hi - lo > LEVEL_TOLERANCE &&
                        glo < -DRAW_TOLERANCE_W; k++)
        {
          double x = lo + (hi - lo) * (-glo) / (ghi - glo), g;
          /* Never at an end: a step that would stay there bisects. */
          if (!(x > lo && x < hi))
            x = lo + (hi - lo) / 2;
          g = facility_at (l, x) - target;
          if (g <= 0)
            {
              lo = x;
              glo = g;
              if (side == -1)
                ghi /= 2;
              side = -1;
            }
          else
            {
              hi = x;
              ghi = g;
              if (side == 1)
                glo /= 2;
              side = 1;
            }
        }
    }
  restore (l);
  return lo;
}

static gboolean
apply_level (Limit *l, double level, SimTime now)
{
  g_autoptr(GError) error = NULL;

  integrate_limited (l, now);
  l->level = level;
  l->lowest_level = MIN (l->lowest_level, level);
  for (guint g = 0; g < l->n_gpus; g++)
    l->saved[g] = level < 1 ? level * l->tdp[g] : 0;   /* a cloud GPU: no cap */
  if (!sim__power_caps_set_all (l->caps, SIM_CAP_FACILITY, l->saved, &error))
    {
      /* min_cap was checked against every GPU model: a bug. */
      g_critical ("facility limit: %s", error->message);
      l->failed = TRUE;
      return FALSE;
    }
  return TRUE;
}

static void
on_watch (SimSimulation *sim, SimTime now, gpointer data)
{
  Limit *l = data;
  double facility = facility_now (l), target;

  if (l->failed)
    return;
  if (l->config.limit_mode == SIM_FACILITY_LIMIT_HOLD)
    {
      /* The draw fell while jobs wait for it: look at the queue again. */
      if (l->holding && facility < l->held_at_w)
        {
          l->held_at_w = facility;
          sim__kernel_request_decision (sim);
        }
      return;
    }
  if (l->level >= 1 && facility <= l->config.max_power_w)
    return;
  /* The draw the last search left, to the bit: nothing it depends on has
   * changed (a job queued, a decision that started nothing). */
  if (facility == l->settled_w)
    return;
  /* The what-if holds every GPU's busy share as it is, but a light job
   * keeps a slower GPU busier: after the caps are set, the draw read may
   * be over by what the what-if missed.  Aiming that much lower again is a
   * secant step: the miss shrinks with the change of level, so a few steps
   * bring the draw under the limit. */
  target = l->config.max_power_w;
  for (guint k = 0; k < MAX_SEARCHES; k++)
    {
      double level = search_level (l, target), after;
      if (level != l->level && !apply_level (l, level, now))
        return;
      after = facility_now (l);
      l->settled_w = after;
      if (level <= l->config.min_cap_share || after <= l->config.max_power_w)
        break;
      target -= after - l->config.max_power_w;
    }
}

/* Whether a running job holds a GPU of the facility's (not a cloud
 * node's): one that will end and give its power back. */
static gboolean
facility_busy (Limit *l)
{
  for (GList *it = sim__kernel_get_running (l->sim)->head; it != NULL; it = it->next)
    {
      const SimJob *job = it->data;
      for (guint i = 0; i < job->n_gpus; i++)
        if (l->tdp[job->gpus[i]] > 0)
          return TRUE;
    }
  return FALSE;
}

static gboolean
admit (gpointer data, const SimJob *job, const SimPlacement *placement, GError **error)
{
  Limit *l = data;
  double before, after;
  gboolean known;

  /* The cap manager lifts a GPU's low cap once a busy job is on it: the
   * job, and the jobs already on GPUs it will lift (started in this pass,
   * or waiting for raise_after), are weighed at the caps they will have. */
  save (l);
  for (guint g = 0; g < l->n_gpus; g++)
    if (sim__power_caps_get_source (l->caps, g, SIM_CAP_MANAGER) > 0 &&
        sim__power_module_get_gpu_activity (l->sim, g) >= l->manager_threshold)
      sim__power_set_cap (l->power, g, cap_without_manager (l, g), NULL);
  for (guint i = 0; i < placement->n_gpus; i++)
    {
      guint g = placement->gpus[i];
      if (sim__power_caps_get_source (l->caps, g, SIM_CAP_MANAGER) > 0)
        sim__power_set_cap (l->power, g, cap_without_manager (l, g), NULL);
    }
  before = facility_now (l);
  known = sim__power_module_estimate_start_power (l->sim, job, placement, &after);
  restore (l);
  /* A start that adds nothing to the facility's draw (on a cloud node of
   * an [elastic] pool, which draws no power here) is never held: holding
   * it would save nothing. */
  if (!known || after <= l->config.max_power_w || after <= before)
    return TRUE;
  if (!facility_busy (l))
    {
      /* Nothing of the facility runs, so nothing will end and free power:
       * this job would wait for ever, and the run would report every job
       * held as a JCT change of -100 % and the idle draw as energy saved.
       * The limit cannot be kept with any job of this size running. */
      GError *fatal = g_error_new (SIM_ERROR, SIM_ERROR_INVALID,
                                   "%.0f W: job %" G_GUINT64_FORMAT " (%u GPUs) alone would "
                                   "take the facility to %.0f W, so it could never start: "
                                   "expected a limit above what the facility draws with its "
                                   "largest job running alone, or limit_mode = cap",
                                   l->config.max_power_w, job->spec.id, placement->n_gpus,
                                   after);
      sim__scenario_locate (sim_simulation_get_scenario (l->sim), "facility", "max_power",
                            &fatal);
      sim__kernel_fail (l->sim, fatal);
    }
  l->held_starts++;
  g_set_error (error, SIM_ERROR, SIM_ERROR_HELD,
               "job %" G_GUINT64_FORMAT " held: starting it would take the facility to %.0f W, "
               "over its limit of %.0f W", job->spec.id, after, l->config.max_power_w);
  return FALSE;
}

static void
pass_end (gpointer data, guint n_held, SimTime now)
{
  Limit *l = data;

  integrate_limited (l, now);
  l->holding = n_held > 0;
  if (l->holding)
    l->held_at_w = facility_now (l);
}

/* ------------------------------------------------------------------------- */
/* The accumulator. */

static void
acc_advance (SimAccumulator *acc, const SimState *held, SimTime now)
{
  Limit *l = (Limit *) acc;
  SimTime from = l->last;

  integrate_limited (l, now);
  if (now > from)
    {
      /* Over by more than rounding (the search keeps the draw at or
       * under the limit; the power model's peak is power_facility_peak). */
      if (l->active && held->facility_power_w > l->config.max_power_w * (1 + 1e-9))
        l->over_s += sim_time_to_seconds (now - from);
    }
}

static void
acc_job_event (SimAccumulator *acc, SimJobEvent event, const SimJob *job, const char *class_name,
               SimTime now)
{
}

static void
acc_report (SimAccumulator *acc, SimReport *report, const SimReportInfo *info)
{
  Limit *l = (Limit *) acc;
  double end_s = sim_time_to_seconds (info->end);
  g_autoptr(GError) error = NULL;
  SimPolicyOutcome run, base;

  integrate_limited (l, info->end);
  sim__report_add (report, "facility_limit_time", l->limited_s, "s");
  sim__report_add (report, "facility_limit_time_share", end_s > 0 ? 100 * l->limited_s / end_s : 0,
                   "%");
  sim__report_add (report, "facility_time_over_limit", l->over_s, "s");
  if (l->config.limit_mode == SIM_FACILITY_LIMIT_CAP)
    sim__report_add (report, "facility_limit_lowest_cap", 100 * l->lowest_level, "%");
  else
    sim__report_add (report, "facility_limit_held_starts", (double) l->held_starts, "starts");
  if (!l->config.baseline)
    return;
  sim__power_policy_outcome (l->sim, report, &run);
  if (!l->active)
    /* No limit: this run is its own baseline. */
    sim__power_policy_report_baseline (report, &run, &run, "facility_limit");
  else if (sim__power_policy_run_baseline (l->sim, SIM_POWER_POLICY_FACILITY, &base, &error))
    sim__power_policy_report_baseline (report, &run, &base, "facility_limit");
  else if (error != NULL)
    g_warning ("facility limit: the run without it failed, so what it saves and costs is not "
               "reported: %s", error->message);
}

static void
acc_free (SimAccumulator *acc)
{
  Limit *l = (Limit *) acc;

  g_free (l->tdp);
  g_free (l->saved);
  g_free (l);
}

static const SimAccumulatorVTable limit_vtable = {
  acc_advance, acc_job_event, acc_report, acc_free,
};

gboolean
sim__facility_limit_attach (SimSimulation *sim, const SimFacilityConfig *config,
                            gboolean active, GError **error)
{
  const SimCluster *cluster = sim_simulation_get_cluster (sim);
  SimScenario *sc = sim_simulation_get_scenario (sim);
  guint n_gpus = sim_cluster_get_n_gpus (cluster);
  double idle_facility = 0, it = 0;
  SimPower *power;
  Limit *l;

  sim__kernel_get_power (sim, &it, &idle_facility);
  if (!active)
    {
      l = g_new0 (Limit, 1);
      l->acc.vtable = &limit_vtable;
      l->sim = sim;
      l->config = *config;
      l->level = 1;
      l->lowest_level = 1;
      sim__kernel_add_accumulator (sim, &l->acc);
      return TRUE;
    }
  power = sim__power_module_get_model (sim);
  /* A cloud pool's GPUs (an [elastic] pool) draw nothing of the facility's:
   * the limit neither caps nor checks them. */
  if (config->limit_mode == SIM_FACILITY_LIMIT_CAP)
    for (guint p = 0; p < sim_cluster_get_n_pools (cluster); p++)
      {
        const SimPool *pool = sim_cluster_get_pool (cluster, p);
        const SimGpuModel *model = pool->gpu_model;
        if (pool->n_nodes > 0 && sim__power_node_is_outside (power, pool->first_node))
          continue;
        if (config->min_cap_share * model->tdp_w <= model->idle_w)
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                         "%g %% of the TDP of %s is %g W, at or below its idle power (%g W): "
                         "expected a lowest cap the GPU can hold, above %g %%",
                         100 * config->min_cap_share, model->name,
                         config->min_cap_share * model->tdp_w, model->idle_w,
                         100 * model->idle_w / model->tdp_w);
            sim__scenario_locate (sc, "facility", "min_cap", error);
            return FALSE;
          }
      }
  if (config->max_power_w < idle_facility)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%.0f W is below what the facility draws with nothing running (%.0f W): "
                   "expected a limit the idle facility keeps", config->max_power_w,
                   idle_facility);
      sim__scenario_locate (sc, "facility", "max_power", error);
      return FALSE;
    }
  l = g_new0 (Limit, 1);
  l->acc.vtable = &limit_vtable;
  l->sim = sim;
  l->config = *config;
  l->active = TRUE;
  l->caps = sim__power_caps_get (sim);
  l->power = power;
  l->n_gpus = n_gpus;
  l->tdp = g_new (double, MAX (n_gpus, 1));
  l->saved = g_new (double, MAX (n_gpus, 1));
  l->level = 1;
  l->lowest_level = 1;
  l->manager_threshold = sc->power_manager.enabled ? sc->power_manager.threshold : 2;
  l->settled_w = -1;
  for (guint g = 0; g < n_gpus; g++)
    {
      guint node = sim_cluster_get_gpu (cluster, g)->node;
      l->tdp[g] = sim__power_node_is_outside (power, node)
                    ? 0 : sim_cluster_get_node (cluster, node)->gpu_model->tdp_w;
    }
  sim__kernel_add_accumulator (sim, &l->acc);
  sim__kernel_connect (sim, SIM_HOOK_STATE_CHANGED, G_CALLBACK (on_watch), l);
  if (config->limit_mode == SIM_FACILITY_LIMIT_HOLD)
    sim__kernel_add_gate (sim, admit, pass_end, l);
  return TRUE;
}

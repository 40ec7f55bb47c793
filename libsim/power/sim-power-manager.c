/* sim-power-manager.c: the DCGM-style GPU power-cap manager
 * (sim-power-manager.h). */
#include "config.h"

#include "power/sim-power-manager.h"
#include "kernel/sim-kernel.h"
#include "power/sim-power-module.h"
#include "power/sim-power.h"
#include "power/sim-power-policy.h"
#include "report/sim-metrics.h"
#include "core/sim-error.h"
#include "scenario/sim-scenario-private.h"

typedef struct {
  SimAccumulator acc;          /* first: the simulation frees it as an accumulator */
  SimSimulation *sim;          /* (not owned) */
  SimPowerManagerConfig config;
  SimPowerCaps  *caps;
  guint          n_gpus;
  gboolean      *eligible;     /* per GPU: the low cap is below its TDP */
  SimTime       *below_since;  /* per GPU: since when under the threshold, or -1 */
  SimTime       *above_since;  /* per GPU, capped: since when at or above it, or -1 */
  gboolean      *capped;       /* per GPU: under the manager's low cap */
  guint          n_capped;
  guint64        timer;        /* the pending timer, 0 if none */
  SimTime        timer_at;
  gboolean       failed;       /* a cap was refused: the run stops with that error */
  gboolean       reviewing;    /* in review(): the caps it sets call the watches */

  SimTime        last;         /* the integral is up to date until here */
  double         capped_gpu_s;
  guint64        lowerings, raises;
  gboolean       active;       /* FALSE: the section is off; reports only */
} Manager;

static void
integrate (Manager *m, SimTime now)
{
  if (now > m->last)
    {
      m->capped_gpu_s += m->n_capped * sim_time_to_seconds (now - m->last);
      m->last = now;
    }
}

static gboolean
set_capped (Manager *m, guint g, gboolean capped, SimTime now)
{
  g_autoptr(GError) error = NULL;

  integrate (m, now);
  if (!sim__power_caps_set (m->caps, g, SIM_CAP_MANAGER, capped ? m->config.low_cap_w : 0,
                            &error))
    {
      /* The caps were checked against every GPU model when the manager
       * was made: a refusal here is a bug, not a user's mistake. */
      g_critical ("power manager: GPU %u: %s", g, error->message);
      m->failed = TRUE;
      return FALSE;
    }
  m->capped[g] = capped;
  if (capped)
    {
      m->n_capped++;
      m->lowerings++;
      m->above_since[g] = -1;
    }
  else
    {
      m->n_capped--;
      m->raises++;
    }
  return TRUE;
}

static void on_timer (SimSimulation *sim, SimTime now, gpointer data);

/* Looks at every GPU at NOW: notes where activity crossed the threshold,
 * lowers or lifts the caps whose time has come, and sets the timer for the
 * next such time. */
static void
review (Manager *m, SimTime now)
{
  SimTime hold = m->config.hold, raise_after = m->config.raise_after;
  SimTime due = SIM_TIME_NEVER;

  /* A cap set from the timer notes the state, which calls the watches,
   * this one among them: it is in the middle of its pass already. */
  if (m->reviewing)
    return;
  m->reviewing = TRUE;
  for (guint g = 0; g < m->n_gpus && !m->failed; g++)
    {
      double activity;

      if (!m->eligible[g])
        continue;
      activity = sim__power_module_get_gpu_activity (m->sim, g);
      if (activity < m->config.threshold)
        {
          m->above_since[g] = -1;
          if (m->capped[g])
            continue;
          if (m->below_since[g] < 0)
            m->below_since[g] = now;
          if (now - m->below_since[g] >= hold)
            set_capped (m, g, TRUE, now);
          else
            due = MIN (due, m->below_since[g] + hold);
        }
      else
        {
          m->below_since[g] = -1;
          if (!m->capped[g])
            continue;
          if (m->above_since[g] < 0)
            m->above_since[g] = now;
          if (now - m->above_since[g] >= raise_after)
            set_capped (m, g, FALSE, now);
          else
            due = MIN (due, m->above_since[g] + raise_after);
        }
    }
  m->reviewing = FALSE;
  if (m->timer != 0 && m->timer_at != due)
    {
      sim__kernel_cancel_timer (m->sim, m->timer);
      m->timer = 0;
    }
  if (m->timer == 0 && due != SIM_TIME_NEVER)
    {
      m->timer = sim__kernel_add_timer (m->sim, due, on_timer, m);
      m->timer_at = due;
    }
}

static void
on_watch (SimSimulation *sim, SimTime now, gpointer data)
{
  review (data, now);
}

static void
on_timer (SimSimulation *sim, SimTime now, gpointer data)
{
  Manager *m = data;

  m->timer = 0;
  review (m, now);
}

/* ------------------------------------------------------------------------- */
/* The accumulator. */

static void
acc_advance (SimAccumulator *acc, const SimState *held, SimTime now)
{
  integrate ((Manager *) acc, now);
}

static void
acc_job_event (SimAccumulator *acc, SimJobEvent event, const SimJob *job, const char *class_name,
               SimTime now)
{
}

static void
acc_report (SimAccumulator *acc, SimReport *report, const SimReportInfo *info)
{
  Manager *m = (Manager *) acc;
  g_autoptr(GError) error = NULL;
  SimPolicyOutcome run, base;

  integrate (m, info->end);
  sim__report_add (report, "power_manager_capped_gpu_hours", m->capped_gpu_s / 3600, "GPU*h");
  sim__report_add (report, "power_manager_cap_lowerings", (double) m->lowerings, "caps");
  sim__report_add (report, "power_manager_cap_raises", (double) m->raises, "caps");
  if (!m->config.baseline)
    return;
  sim__power_policy_outcome (m->sim, report, &run);
  if (!m->active)
    /* Off, this run is its own baseline. */
    sim__power_policy_report_baseline (report, &run, &run, "power_manager");
  else if (sim__power_policy_run_baseline (m->sim, SIM_POWER_POLICY_MANAGER, &base, &error))
    sim__power_policy_report_baseline (report, &run, &base, "power_manager");
  else if (error != NULL)
    g_warning ("power manager: the run without it failed, so what it saves and costs is not "
               "reported: %s", error->message);
}

static void
acc_free (SimAccumulator *acc)
{
  Manager *m = (Manager *) acc;

  g_free (m->eligible);
  g_free (m->below_since);
  g_free (m->above_since);
  g_free (m->capped);
  g_free (m);
}

static const SimAccumulatorVTable manager_vtable = {
  acc_advance, acc_job_event, acc_report, acc_free,
};

gboolean
sim__power_manager_attach (SimSimulation *sim, const SimPowerManagerConfig *config,
                           gboolean active, GError **error)
{
  const SimCluster *cluster = sim_simulation_get_cluster (sim);
  SimScenario *sc = sim_simulation_get_scenario (sim);
  guint n_gpus = sim_cluster_get_n_gpus (cluster), n_eligible = 0;
  SimPower *power = sim__power_module_get_model (sim);
  Manager *m;

  if (!active)
    {
      m = g_new0 (Manager, 1);
      m->acc.vtable = &manager_vtable;
      m->sim = sim;
      m->config = *config;
      sim__kernel_add_accumulator (sim, &m->acc);
      return TRUE;
    }

  /* Every GPU model of the facility must hold the cap; it caps those whose
   * TDP is above it.  A cloud pool's GPUs (an [elastic] pool) are the
   * provider's: the manager neither caps nor checks them. */
  for (guint p = 0; p < sim_cluster_get_n_pools (cluster); p++)
    {
      const SimPool *pool = sim_cluster_get_pool (cluster, p);
      const SimGpuModel *model = pool->gpu_model;
      if (pool->n_nodes > 0 && sim__power_node_is_outside (power, pool->first_node))
        continue;
      if (config->low_cap_w <= model->idle_w)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "%g W is at or below the idle power of %s (%g W): expected a cap the "
                       "GPU can hold, above its idle power", config->low_cap_w, model->name,
                       model->idle_w);
          sim__scenario_locate (sc, "power_manager", "low_cap", error);
          return FALSE;
        }
    }
  m = g_new0 (Manager, 1);
  m->acc.vtable = &manager_vtable;
  m->sim = sim;
  m->config = *config;
  m->active = TRUE;
  m->caps = sim__power_caps_get (sim);
  m->n_gpus = n_gpus;
  m->eligible = g_new0 (gboolean, MAX (n_gpus, 1));
  m->below_since = g_new (SimTime, MAX (n_gpus, 1));
  m->above_since = g_new (SimTime, MAX (n_gpus, 1));
  m->capped = g_new0 (gboolean, MAX (n_gpus, 1));
  for (guint g = 0; g < n_gpus; g++)
    {
      const SimGpu *gpu = sim_cluster_get_gpu (cluster, g);
      const SimGpuModel *model = sim_cluster_get_node (cluster, gpu->node)->gpu_model;
      double base = sim__power_caps_get_base (m->caps, g);
      /* A cap at or above what the GPU may draw anyway changes nothing. */
      m->eligible[g] = !sim__power_node_is_outside (power, gpu->node) &&
                       config->low_cap_w < model->tdp_w &&
                       (base == 0 || config->low_cap_w < base);
      n_eligible += m->eligible[g];
      m->below_since[g] = -1;
      m->above_since[g] = -1;
    }
  if (n_eligible == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "%g W is at or above every GPU's TDP (or the scenario's own cap): the "
                   "manager would cap nothing; expected a cap below the TDP",
                   config->low_cap_w);
      sim__scenario_locate (sc, "power_manager", "low_cap", error);
      acc_free (&m->acc);
      return FALSE;
    }
  sim__kernel_add_accumulator (sim, &m->acc);
  sim__kernel_connect (sim, SIM_HOOK_STATE_CHANGED, G_CALLBACK (on_watch), m);
  /* The GPUs idle from the start count from the start. */
  m->timer = sim__kernel_add_timer (sim, 0, on_timer, m);
  m->timer_at = 0;
  return TRUE;
}

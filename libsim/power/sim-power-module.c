/* sim-power-module.c: power and cooling in a run, attached to the kernel. */
#include "config.h"

#include "power/sim-power-module.h"
#include "power/sim-cooling.h"
#include "power/sim-energy.h"
#include "kernel/sim-kernel.h"
#include "scenario/sim-scenario-private.h"
#include "cluster/sim-cluster-private.h"
#include "core/sim-error.h"

#include <math.h>
#include <string.h>

typedef struct {
  SimSimulation     *sim;
  const SimScenario *sc;
  SimCluster        *cluster;
  SimPower          *power;      /* always there: caps and activity per GPU */
  SimCooling        *cooling;    /* NULL without a [cooling] section */
  guint32           *nap_tag;    /* per node: the version of its pending nap; with sleep */
  guint32            k_nap, k_weather;
  guint              slot;       /* the first of its three job slots (SLOT_*) */
} PowerModule;

/* What the module keeps of each job, in its slots: the IT power it is
 * charged with now (W), the IT energy it was charged with until the time
 * in the third (J). */
enum { SLOT_POWER, SLOT_ENERGY, SLOT_SINCE, N_SLOTS };
#define JOB_POWER(m, job)  ((job)->ext[(m)->slot + SLOT_POWER].d)
#define JOB_ENERGY(m, job) ((job)->ext[(m)->slot + SLOT_ENERGY].d)
#define JOB_SINCE(m, job)  ((job)->ext[(m)->slot + SLOT_SINCE].t)

/* The module's key among the simulation's extensions. */
static const char module_key = 0;

static void
module_free (gpointer data)
{
  PowerModule *m = data;

  g_clear_pointer (&m->power, sim__power_free);
  g_clear_pointer (&m->cooling, sim__cooling_free);
  g_free (m->nap_tag);
  g_free (m);
}

static PowerModule *
module_of (SimSimulation *sim)
{
  return sim__kernel_get_extension (sim, &module_key);
}

/* ------------------------------------------------------------------------- */
/* Jobs.                                                                     */

/* JOB's GPUs are kept DELTA more GPUs busy in all (shared equally), and
 * TENANTS more jobs hold each. */
static void
power_busy (PowerModule *m, const SimJob *job, double delta, int tenants)
{
  double each = delta / job->n_gpus;
  double intensity = sim_power_intensity (job->spec.memory_bound, m->sc->power.memory_power);

  sim__power_add_busy_gpus (m->power, job->gpus, job->n_gpus, each, intensity, tenants,
                            job->spec.gpu_milli);
}

/* The CPU reserved on the nodes JOB is on (a job with a CPU request), for
 * their CPUs' power (the GPUs held count in sim__power_add_busy()). */
static void
power_node_load (PowerModule *m, const SimJob *job)
{
  guint last = G_MAXUINT;

  if (!m->sc->power.enabled || job->spec.cpu_milli == 0)
    return;
  for (guint i = 0; i < job->n_gpus; i++)
    {
      guint n = sim_cluster_get_gpu (m->cluster, job->gpus[i])->node;
      const SimNode *node = sim_cluster_get_node (m->cluster, n);
      if (n == last || node->cpu_milli == 0)
        continue;
      last = n;
      sim__power_set_cpu_load (m->power, n, (node->cpu_milli - node->free_cpu_milli) /
                                              (double) node->cpu_milli);
    }
}

/* JOB's energy brought up to NOW at the power it was charged with, and
 * its power from now on (sim-energy.h). */
static void
job_energy (PowerModule *m, SimJob *job, SimTime now, gboolean running)
{
  if (!m->sc->power.enabled)
    return;
  if (now > JOB_SINCE (m, job))
    JOB_ENERGY (m, job) += JOB_POWER (m, job) * sim_time_to_seconds (now - JOB_SINCE (m, job));
  JOB_SINCE (m, job) = now;
  JOB_POWER (m, job) = 0;
  if (running && job->n_gpus > 0)
    JOB_POWER (m, job) = sim__power_job_w (m->power, job->gpus, job->n_gpus,
                                     job->spec.gpu_milli / (double) SIM_GPU_WHOLE,
                                     job->active_gpus / job->n_gpus *
                                       sim_power_intensity (job->spec.memory_bound,
                                                            m->sc->power.memory_power));
}

static gboolean
node_is_idle (PowerModule *m, guint n)
{
  const SimNode *node = sim_cluster_get_node (m->cluster, n);

  for (guint g = node->first_gpu; g < node->first_gpu + node->n_gpus; g++)
    {
      const SimGpu *gpu = sim_cluster_get_gpu (m->cluster, g);
      if (gpu->used_milli > 0 || gpu->mig_used > 0)
        return FALSE;
    }
  return TRUE;
}

/* Node N is idle from NOW: it falls asleep after [power] sleep_after,
 * unless a job comes first (a newer tag makes the nap stale). */
static void
schedule_nap (PowerModule *m, guint n, SimTime now)
{
  SimTime after = m->sc->power.sleep_after;

  m->nap_tag[n]++;
  if (now <= SIM_TIME_NEVER - 1 - after)
    sim__kernel_schedule (m->sim, now + after, m->k_nap, m->nap_tag[n], NULL, n);
}

/* A job is placed: its nodes wake (and their naps are called off), and it
 * holds its GPUs.  Returns the wait for the nodes that were asleep. */
static SimTime
on_placed (gpointer data, SimJob *job, const SimPlacement *placement, SimTime now)
{
  PowerModule *m = data;
  SimTime wait = 0;

  if (m->nap_tag != NULL)
    for (guint i = 0; i < placement->n_gpus; i++)
      {
        guint n = sim_cluster_get_gpu (m->cluster, placement->gpus[i])->node;
        m->nap_tag[n]++;
        if (sim__power_is_asleep (m->power, n))
          {
            sim__power_set_asleep (m->power, n, FALSE);
            wait = m->sc->power.wake_time;
          }
      }
  power_busy (m, job, 0, 1);
  power_node_load (m, job);
  return wait;
}

static void
on_activity (gpointer data, SimJob *job, double delta, SimTime now)
{
  PowerModule *m = data;

  if (job->n_gpus > 0)
    power_busy (m, job, delta, 0);
  job_energy (m, job, now, job->state == SIM_JOB_RUNNING);
}

static void
on_stopping (gpointer data, SimJob *job, const guint *nodes)
{
  PowerModule *m = data;

  for (guint i = 0; i < job->n_gpus; i++)
    sim__power_prefetch (m->power, job->gpus[i], nodes[i]);
}

/* JOB left its GPUs at NOW: they are free, and its nodes now idle may
 * sleep later. */
static void
on_stopped (gpointer data, SimJob *job, SimTime now)
{
  PowerModule *m = data;
  guint last = G_MAXUINT;

  power_busy (m, job, -job->active_gpus, -1);
  power_node_load (m, job);
  for (guint i = 0; m->nap_tag != NULL && i < job->n_gpus; i++)
    {
      guint n = sim_cluster_get_gpu (m->cluster, job->gpus[i])->node;
      if (n != last && node_is_idle (m, n))
        schedule_nap (m, n, now);
      last = n;
    }
  job_energy (m, job, now, FALSE);
}

/* The energy JOB was charged with, J (for jobs.csv and the energy totals). */
static double
job_energy_j (const SimJob *job, gpointer data)
{
  return JOB_ENERGY ((PowerModule *) data, job);
}

static void
on_at_end (gpointer data, SimJob *job, SimTime now)
{
  job_energy (data, job, now, TRUE);
}

/* The speed a job keeps at its GPUs' clocks, against full clocks: the
 * slowest of its GPUs sets the pace (sim-power.h). */
static double
cap_speed (gpointer data, const SimJob *job)
{
  PowerModule *m = data;
  double s = 1.0;

  if (!sim__power_any_slowed (m->power))
    return 1.0;
  for (guint i = 0; i < job->n_gpus; i++)
    s = MIN (s, sim_power_speed (sim__power_get_clock (m->power, job->gpus[i]),
                                 job->spec.memory_bound));
  return s;
}

/* ------------------------------------------------------------------------- */
/* The state and the readings.                                               */

/* The power drawn from now on: IT, cooling and the facility's total. */
static void
measure (PowerModule *m, SimState *state)
{
  double it = sim__power_it_w (m->power), cooling = 0;
  gboolean economizer = FALSE;

  if (m->cooling != NULL)
    cooling = sim__cooling_power (m->cooling, it, &economizer);
  state->it_power_w = it;
  state->gpu_power_w = sim__power_gpus_w (m->power);
  state->economizer = economizer;
  state->cooling_power_w = cooling;
  state->facility_power_w = (it + cooling) / m->sc->power.electrical_efficiency;
}

static void
on_state_note (gpointer data, SimState *state, SimTime now)
{
  measure (data, state);
}

static gboolean
read_power (gpointer data, double *it_w, double *facility_w)
{
  SimState state = { 0 };

  measure (data, &state);
  if (it_w != NULL)
    *it_w = state.it_power_w;
  if (facility_w != NULL)
    *facility_w = state.facility_power_w;
  return TRUE;
}

static double
read_node (gpointer data, guint node)
{
  return sim__power_node_w (((PowerModule *) data)->power, node);
}

static double
read_gpu (gpointer data, guint gpu)
{
  return sim__power_gpu_w (((PowerModule *) data)->power, gpu);
}

static gboolean
read_asleep (gpointer data, guint node)
{
  return sim__power_is_asleep (((PowerModule *) data)->power, node);
}

static const SimPowerReadings readings = { read_power, read_node, read_gpu, read_asleep };

/* ------------------------------------------------------------------------- */
/* Naps and weather.                                                         */

static void
on_nap (SimEngine *engine, const SimEvent *ev, gpointer data)
{
  PowerModule *m = data;
  guint n = (guint) ev->arg;

  if (ev->tag != m->nap_tag[n] || !node_is_idle (m, n) || sim__kernel_is_over (m->sim))
    return;
  sim__kernel_change_begin (m->sim, ev->time);
  sim__power_set_asleep (m->power, n, TRUE);
  sim__kernel_change_end (m->sim);
}

/* The outdoor temperature steps to its next value (sim-cooling.h). */
static void
on_weather (SimEngine *engine, const SimEvent *ev, gpointer data)
{
  PowerModule *m = data;
  SimTime next;

  if (sim__kernel_is_over (m->sim))
    return;
  sim__kernel_change_begin (m->sim, ev->time);
  next = sim__cooling_set_time (m->cooling, ev->time);
  sim__kernel_change_end (m->sim);
  if (next != SIM_TIME_NEVER)
    sim__kernel_schedule (m->sim, next, m->k_weather, 0, NULL, 0);
}

static void
on_run_start (SimSimulation *sim, SimTime now, gpointer data)
{
  PowerModule *m = data;

  if (m->cooling != NULL)
    {
      SimTime next = sim__cooling_set_time (m->cooling, 0);
      if (next != SIM_TIME_NEVER)
        sim__kernel_schedule (sim, next, m->k_weather, 0, NULL, 0);
    }
  if (m->nap_tag != NULL)
    for (guint n = 0; n < sim_cluster_get_n_nodes (m->cluster); n++)
      schedule_nap (m, n, 0);
}

/* ------------------------------------------------------------------------- */
/* Set-up.                                                                   */

/* The network's constant draw: its switches and optical transceivers,
 * from the fabric builder's counts. */
static double
network_power (PowerModule *m, const SimCatalogue *catalogue)
{
  const SimScenario *sc = m->sc;
  SimTopology *topology = sim__kernel_get_topology (m->sim);
  const SimSwitchModel *sw;
  const SimLinkModel *link = NULL;
  SimTopologyMetrics counts;
  double transceiver;

  if (topology == NULL)
    return 0;
  sim_topology_get_counts (topology, &counts);
  sw = sc->fabric.switch_model != NULL
         ? sim_catalogue_lookup_switch (catalogue, sc->fabric.switch_model) : NULL;
  if (sc->fabric.link_model != NULL)
    link = sim_catalogue_lookup_link (catalogue, sc->fabric.link_model);
  else if (sim_cluster_get_n_pools (m->cluster) > 0)
    link = sim_cluster_get_pool (m->cluster, 0)->model->nic_link;
  transceiver = sc->power.transceiver_power_w >= 0 ? sc->power.transceiver_power_w
                : link != NULL ? link->transceiver_power_w : 0;
  return (sw != NULL ? counts.switches[0] * sw->power_w : 0) + counts.transceivers * transceiver;
}

/* A cap at or below a GPU's idle power cannot be met; one above every
 * GPU's TDP caps nothing (nvidia-smi refuses a power limit above the
 * board's maximum). */
static gboolean
check_caps (const SimScenario *sc, const SimCluster *cluster, GError **error)
{
  const SimGpuModel *hottest = NULL;

  for (guint p = 0; p < sim_cluster_get_n_pools (cluster); p++)
    {
      const SimGpuModel *gpu = sim_cluster_get_pool (cluster, p)->gpu_model;
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
      if (hottest == NULL || gpu->tdp_w > hottest->tdp_w)
        hottest = gpu;
    }
  if (hottest != NULL && sc->power.gpu_cap_w > hottest->tdp_w)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                   "a cap of %g W caps no GPU of the cluster: expected at most the highest "
                   "TDP, %g W (%s)", sc->power.gpu_cap_w, hottest->tdp_w, hottest->name);
      sim__scenario_locate (sc, "power", "gpu_cap", error);
      return FALSE;
    }
  return TRUE;
}

gboolean
sim__power_module_attach (SimSimulation *sim, guint flags, GError **error)
{
  const SimScenario *sc = sim__kernel_get_scenario (sim);
  const SimCatalogue *catalogue = sim__kernel_get_catalogue (sim);
  PowerModule *m;

  if (!check_caps (sc, sim__kernel_get_cluster (sim), error))
    return FALSE;
  m = g_new0 (PowerModule, 1);
  m->sim = sim;
  m->sc = sc;
  m->cluster = sim__kernel_get_cluster (sim);
  sim__kernel_set_extension (sim, &module_key, m, module_free);
  m->power = sim__power_new (m->cluster, &sc->power,
                             sc->elastic.enabled ? sc->elastic.pool : NULL, error);
  if (m->power == NULL)
    {
      sim__scenario_locate (sc, "power", NULL, error);
      return FALSE;
    }
  /* The caps and the GPUs' activity are kept with or without [power]. */
  sim__kernel_connect (sim, SIM_HOOK_JOB_PLACED, G_CALLBACK (on_placed), m);
  sim__kernel_connect (sim, SIM_HOOK_JOB_ACTIVITY, G_CALLBACK (on_activity), m);
  sim__kernel_connect (sim, SIM_HOOK_JOB_STOPPING, G_CALLBACK (on_stopping), m);
  sim__kernel_connect (sim, SIM_HOOK_JOB_STOPPED, G_CALLBACK (on_stopped), m);
  sim__kernel_add_capacity_factor (sim, cap_speed, m);
  if (!sc->power.enabled)
    return TRUE;

  if (sc->cooling.enabled)
    {
      m->cooling = sim__cooling_new (&sc->cooling, catalogue, error);
      if (m->cooling == NULL)
        {
          sim__scenario_locate (sc, "cooling",
                                sc->cooling.outdoor == SIM_OUTDOOR_CSV &&
                                  sim_catalogue_lookup_cooling (catalogue,
                                                                sc->cooling.model) != NULL
                                  ? "outdoor_csv" : "type", error);
          return FALSE;
        }
      sim__power_set_fan_share (m->power, sim__cooling_get_model (m->cooling)->server_fans);
      m->k_weather = sim__kernel_add_event_kind (sim, on_weather, m);
    }
  sim__power_set_network (m->power, network_power (m, catalogue));
  if (sc->power.sleep_after > 0)
    {
      m->nap_tag = g_new0 (guint32, sim_cluster_get_n_nodes (m->cluster));
      m->k_nap = sim__kernel_add_event_kind (sim, on_nap, m);
    }
  m->slot = sim__kernel_claim_job_slots (sim, N_SLOTS);
  sim__kernel_add_accumulator (sim, sim__energy_accumulator_new (m->cooling != NULL,
                                                                 job_energy_j, m));
  sim__kernel_set_job_energy (sim, job_energy_j, m);
  sim__kernel_connect (sim, SIM_HOOK_JOB_AT_END, G_CALLBACK (on_at_end), m);
  sim__kernel_connect (sim, SIM_HOOK_STATE_NOTE, G_CALLBACK (on_state_note), m);
  sim__kernel_connect (sim, SIM_HOOK_RUN_START, G_CALLBACK (on_run_start), m);
  sim__kernel_set_power_readings (sim, &readings, m);
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* For the power policies.                                                   */

SimPower *
sim__power_module_get_model (SimSimulation *sim)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (sim), NULL);
  return module_of (sim)->power;
}

gboolean
sim__power_module_set_gpu_cap (SimSimulation *sim, guint gpu, double cap_w, GError **error)
{
  PowerModule *m;
  SimTime now;

  g_return_val_if_fail (SIM_IS_SIMULATION (sim), FALSE);
  m = module_of (sim);
  now = sim__kernel_now (sim);
  if (gpu < sim_cluster_get_n_gpus (m->cluster) && sim__power_get_cap (m->power, gpu) == cap_w)
    return TRUE;
  sim__kernel_change_begin (sim, now);
  if (!sim__power_set_cap (m->power, gpu, cap_w, error))
    return FALSE;
  if (!sim__kernel_is_live (sim))
    return TRUE;
  sim__kernel_rerate_gpu (sim, gpu, now);
  sim__kernel_change_end (sim);
  return TRUE;
}

gboolean
sim__power_module_set_gpu_caps (SimSimulation *sim, const double *caps_w, GError **error)
{
  PowerModule *m;
  guint n;
  SimTime now;
  gboolean any = FALSE;
  g_autofree double *before = NULL;
  g_autofree guint8 *changed = NULL;

  g_return_val_if_fail (SIM_IS_SIMULATION (sim) && caps_w != NULL, FALSE);
  m = module_of (sim);
  n = sim_cluster_get_n_gpus (m->cluster);
  now = sim__kernel_now (sim);
  before = g_new (double, MAX (n, 1));
  changed = g_new0 (guint8, MAX (n, 1));
  for (guint g = 0; g < n; g++)
    {
      before[g] = sim__power_get_cap (m->power, g);
      changed[g] = before[g] != caps_w[g];
      any |= changed[g];
    }
  if (!any)
    return TRUE;
  sim__kernel_change_begin (sim, now);
  for (guint g = 0; g < n; g++)
    if (changed[g] && !sim__power_set_cap (m->power, g, caps_w[g], error))
      {
        /* All or nothing: the caps set so far go back. */
        for (guint k = 0; k < g; k++)
          sim__power_set_cap (m->power, k, before[k], NULL);
        return FALSE;
      }
  if (!sim__kernel_is_live (sim))
    return TRUE;
  /* Each job on a GPU whose cap changed moves to its new speed once. */
  sim__kernel_rerate_gpus (sim, changed, now);
  sim__kernel_change_end (sim);
  return TRUE;
}

double
sim__power_module_get_gpu_cap (SimSimulation *sim, guint gpu)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (sim), 0);
  g_return_val_if_fail (gpu < sim_cluster_get_n_gpus (sim__kernel_get_cluster (sim)), 0);
  return sim__power_get_cap (module_of (sim)->power, gpu);
}

double
sim__power_module_get_gpu_activity (SimSimulation *sim, guint gpu)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (sim), 0);
  g_return_val_if_fail (gpu < sim_cluster_get_n_gpus (sim__kernel_get_cluster (sim)), 0);
  return sim__power_get_busy (module_of (sim)->power, gpu);
}

double
sim__power_module_get_full_power (SimSimulation *sim, double *node_w, guint n_nodes)
{
  PowerModule *m;
  guint n;
  double total = 0;

  g_return_val_if_fail (SIM_IS_SIMULATION (sim), 0);
  g_return_val_if_fail (node_w != NULL || n_nodes == 0, 0);
  m = module_of (sim);
  n = sim_cluster_get_n_nodes (m->cluster);
  for (guint i = 0; i < n; i++)
    {
      double w = m->sc->power.enabled ? sim__power_node_full_w (m->power, i) : 0;
      total += w;
      if (i < n_nodes)
        node_w[i] = w;
    }
  return m->sc->power.enabled ? total + sim__power_get_network (m->power) : 0;
}

/* Node N's CPU reserved, as power_node_load() gives it to the power model,
 * with EXTRA_CPU more. */
static double
cpu_load_with (PowerModule *m, guint n, guint64 extra_cpu)
{
  const SimNode *node = sim_cluster_get_node (m->cluster, n);

  return (node->cpu_milli - node->free_cpu_milli + extra_cpu) / (double) node->cpu_milli;
}

gboolean
sim__power_module_estimate_start_power (SimSimulation *sim, const SimJob *job,
                                        const SimPlacement *placement, double *facility_w)
{
  PowerModule *m;
  double intensity, activity, it;
  guint n = placement->n_gpus;
  g_autofree guint *nodes = g_new (guint, MAX (n, 1));
  g_autofree gboolean *woke = g_new0 (gboolean, MAX (n, 1));
  g_autofree gboolean *loaded = g_new0 (gboolean, MAX (n, 1));
  g_autofree double *busy = g_new (double, MAX (n, 1));
  guint n_nodes = 0;

  g_return_val_if_fail (SIM_IS_SIMULATION (sim) && job != NULL && placement != NULL, FALSE);
  m = module_of (sim);
  if (!m->sc->power.enabled)
    return FALSE;
  intensity = sim_power_intensity (job->spec.memory_bound, m->sc->power.memory_power);
  activity = sim__kernel_job_activity (job);
  /* The job's GPUs held and as busy as it can keep them at their clocks,
   * its nodes awake and their CPUs as loaded as the start would make them: */
  for (guint i = 0; i < n; i++)
    {
      guint g = placement->gpus[i];
      double s = sim_power_speed (sim__power_get_clock (m->power, g), job->spec.memory_bound);
      busy[i] = MIN (placement->milli / (double) SIM_GPU_WHOLE, activity / MAX (s, 1e-9));
      sim__power_add_busy (m->power, g, busy[i], intensity, 1, placement->milli);
    }
  for (guint i = 0; i < n; i++)
    {
      guint node = sim_cluster_get_gpu (m->cluster, placement->gpus[i])->node;
      guint gpus_here = 0;
      guint64 cpu, mem;
      gboolean seen = FALSE;
      for (guint k = 0; k < n_nodes && !seen; k++)
        seen = nodes[k] == node;
      if (seen)
        continue;
      for (guint k = 0; k < n; k++)
        gpus_here += sim_cluster_get_gpu (m->cluster, placement->gpus[k])->node == node;
      sim_job_host_share (job, gpus_here, &cpu, &mem);
      woke[n_nodes] = sim__power_is_asleep (m->power, node);
      if (woke[n_nodes])
        sim__power_set_asleep (m->power, node, FALSE);
      loaded[n_nodes] = job->spec.cpu_milli > 0 &&
                        sim_cluster_get_node (m->cluster, node)->cpu_milli > 0;
      if (loaded[n_nodes])
        sim__power_set_cpu_load (m->power, node, cpu_load_with (m, node, cpu));
      nodes[n_nodes++] = node;
    }
  read_power (m, &it, facility_w);
  /* ... and back as they are. */
  for (guint k = 0; k < n_nodes; k++)
    {
      if (loaded[k])
        sim__power_set_cpu_load (m->power, nodes[k], cpu_load_with (m, nodes[k], 0));
      if (woke[k])
        sim__power_set_asleep (m->power, nodes[k], TRUE);
    }
  for (guint i = n; i-- > 0;)
    sim__power_add_busy (m->power, placement->gpus[i], -busy[i], intensity, -1,
                         placement->milli);
  return TRUE;
}

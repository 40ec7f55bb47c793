/* sim-kernel-services.c: what modules attach with (hooks, gates, claims,
 * speed factors, extensions) and the kernel's read-only services: the run's
 * objects, records and the readings other modules provide
 * (sim-kernel.h). */
#include "config.h"

#include "kernel/sim-kernel-private.h"

/* ------------------------------------------------------------------------- */
/* Attaching.                                                                */

static void
add_slot (GArray *slots, GCallback func, gpointer data)
{
  SimHookSlot s = { func, data };

  g_array_append_val (slots, s);
}

void
sim__kernel_connect (SimSimulation *sim, SimHook hook, GCallback func, gpointer data)
{
  g_return_if_fail (SIM_IS_SIMULATION (sim) && hook < SIM_N_HOOKS && func != NULL);
  g_return_if_fail (!sim->started);
  add_slot (sim->hooks[hook], func, data);
}

void
sim__kernel_add_gate (SimSimulation *sim, SimStartGateFunc admit, SimPassEndFunc pass_end,
                      gpointer data)
{
  g_return_if_fail (SIM_IS_SIMULATION (sim) && admit != NULL && !sim->started);
  add_slot (sim->gates, G_CALLBACK (admit), data);
  add_slot (sim->gate_ends, G_CALLBACK (pass_end), data);
}

void
sim__kernel_add_claim (SimSimulation *sim, SimJobClaimFunc claim, gpointer data)
{
  g_return_if_fail (SIM_IS_SIMULATION (sim) && claim != NULL && !sim->started);
  add_slot (sim->claims, G_CALLBACK (claim), data);
}

void
sim__kernel_add_start_factor (SimSimulation *sim, SimSpeedFunc func, gpointer data)
{
  g_return_if_fail (SIM_IS_SIMULATION (sim) && func != NULL && !sim->started);
  add_slot (sim->start_factors, G_CALLBACK (func), data);
}

void
sim__kernel_add_capacity_factor (SimSimulation *sim, SimSpeedFunc func, gpointer data)
{
  g_return_if_fail (SIM_IS_SIMULATION (sim) && func != NULL && !sim->started);
  add_slot (sim->capacity_factors, G_CALLBACK (func), data);
}

void
sim__kernel_set_extension (SimSimulation *sim, gconstpointer key, gpointer state,
                           GDestroyNotify destroy)
{
  SimExtension e = { key, state, destroy };

  g_return_if_fail (SIM_IS_SIMULATION (sim) && key != NULL);
  g_return_if_fail (sim__kernel_get_extension (sim, key) == NULL);
  g_array_append_val (sim->extensions, e);
}

gpointer
sim__kernel_get_extension (SimSimulation *sim, gconstpointer key)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (sim), NULL);
  for (guint i = 0; i < sim->extensions->len; i++)
    if (g_array_index (sim->extensions, SimExtension, i).key == key)
      return g_array_index (sim->extensions, SimExtension, i).state;
  return NULL;
}

/* ------------------------------------------------------------------------- */
/* Services.                                                                 */

const SimScenario *
sim__kernel_get_scenario (SimSimulation *sim)
{
  return sim->scenario;
}

const SimCatalogue *
sim__kernel_get_catalogue (SimSimulation *sim)
{
  return sim->catalogue;
}

SimCluster *
sim__kernel_get_cluster (SimSimulation *sim)
{
  return sim->cluster;
}

SimTopology *
sim__kernel_get_topology (SimSimulation *sim)
{
  return sim->topology;
}

GPtrArray *
sim__kernel_get_queue (SimSimulation *sim)
{
  return sim->queue;
}

SimTime
sim__kernel_now (SimSimulation *sim)
{
  return sim_engine_now (sim->engine);
}

gboolean
sim__kernel_has_started (SimSimulation *sim)
{
  return sim->started;
}

gboolean
sim__kernel_is_live (SimSimulation *sim)
{
  return sim->started && !sim->finished;
}

gboolean
sim__kernel_is_over (SimSimulation *sim)
{
  return sim->running.length == 0 && sim->queue->len == 0 && !sim->have_next &&
         sim->requeue->len == 0 && sim->held->len == 0 &&
         sim->scenario->horizon == SIM_TIME_NEVER;
}

void
sim__kernel_add_accumulator (SimSimulation *sim, SimAccumulator *acc)
{
  g_return_if_fail (SIM_IS_SIMULATION (sim) && acc != NULL && !sim->started);
  g_ptr_array_add (sim->accumulators, acc);
}

void
sim__kernel_set_record_streams (SimSimulation *sim, FILE *jobs, FILE *series)
{
  g_return_if_fail (SIM_IS_SIMULATION (sim) && !sim->started);
  sim->jobs_out = jobs;
  sim->series_out = series;
}

void
sim__kernel_set_job_column (SimSimulation *sim, const char *name, SimJobWhereFunc func,
                            gpointer data)
{
  sim__metrics_set_column (&sim->metrics, name, func, data);
}

guint
sim__kernel_claim_job_slots (SimSimulation *sim, guint n)
{
  guint first;

  g_return_val_if_fail (SIM_IS_SIMULATION (sim) && !sim->started, 0);
  g_return_val_if_fail (sim->n_job_slots + n <= SIM_JOB_N_SLOTS, 0);
  first = sim->n_job_slots;
  sim->n_job_slots += n;
  return first;
}

void
sim__kernel_set_job_energy (SimSimulation *sim, SimJobFigureFunc func, gpointer data)
{
  sim__metrics_set_job_energy (&sim->metrics, func, data);
}

void
sim__kernel_set_job_where (SimSimulation *sim, SimJobWhereFunc func, gpointer data)
{
  sim__metrics_set_where (&sim->metrics, func, data);
}

void
sim__kernel_count_interruptions (SimSimulation *sim)
{
  sim__metrics_set_interruptions (&sim->metrics);
}

void
sim__kernel_note_interruption (SimSimulation *sim)
{
  sim__metrics_note_interruption (&sim->metrics);
}

void
sim__kernel_set_cause_func (SimSimulation *sim, SimCauseFunc func, gpointer data)
{
  sim->cause = func;
  sim->cause_data = data;
}

const char *
sim__kernel_interruption_cause (gpointer data, const SimJob *job)
{
  SimSimulation *sim = data;

  return sim->cause != NULL ? sim->cause (sim->cause_data, job) : NULL;
}

gboolean
sim__kernel_get_fabric_load (SimSimulation *sim, double *max, double *mean, double *node_load,
                             guint n_nodes)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (sim), FALSE);
  g_return_val_if_fail (max != NULL && mean != NULL, FALSE);
  g_return_val_if_fail (node_load != NULL || n_nodes == 0, FALSE);
  if (sim->comm == NULL)
    {
      *max = *mean = 0;
      for (guint n = 0; n < n_nodes; n++)
        node_load[n] = 0;
      return FALSE;
    }
  sim__job_comm_get_fabric_load (sim->comm, max, mean, node_load, n_nodes);
  return TRUE;
}

void
sim__kernel_set_power_readings (SimSimulation *sim, const SimPowerReadings *readings,
                                gpointer data)
{
  sim->readings = readings;
  sim->readings_data = data;
}

gboolean
sim__kernel_has_power (SimSimulation *sim)
{
  return sim->readings != NULL;
}

gboolean
sim__kernel_get_power (SimSimulation *sim, double *it_w, double *facility_w)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (sim), FALSE);
  if (sim->readings != NULL)
    return sim->readings->power (sim->readings_data, it_w, facility_w);
  if (it_w != NULL)
    *it_w = 0;
  if (facility_w != NULL)
    *facility_w = 0;
  return FALSE;
}

double
sim__kernel_get_node_power (SimSimulation *sim, guint node)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (sim), 0);
  g_return_val_if_fail (node < sim_cluster_get_n_nodes (sim->cluster), 0);
  return sim->readings != NULL ? sim->readings->node_w (sim->readings_data, node) : 0;
}

double
sim__kernel_get_gpu_power (SimSimulation *sim, guint gpu)
{
  g_return_val_if_fail (SIM_IS_SIMULATION (sim), 0);
  g_return_val_if_fail (gpu < sim_cluster_get_n_gpus (sim->cluster), 0);
  return sim->readings != NULL ? sim->readings->gpu_w (sim->readings_data, gpu) : 0;
}

gboolean
sim__kernel_node_asleep (gpointer data, guint node)
{
  SimSimulation *sim = data;

  return sim->readings != NULL && sim->readings->node_asleep (sim->readings_data, node);
}


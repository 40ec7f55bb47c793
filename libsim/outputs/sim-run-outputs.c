/* sim-run-outputs.c: the files a run writes, attached to the kernel. */
#include "config.h"

#include "outputs/sim-run-outputs.h"
#include "kernel/sim-kernel.h"
#include "scenario/sim-scenario-private.h"
#include "cluster/sim-cluster-private.h"
#include "report/sim-diagram.h"
#include "report/sim-run-records.h"
#include "core/sim-error.h"
#include "core/sim-util.h"

#include <glib/gstdio.h>
#include <errno.h>

typedef struct {
  SimSimulation  *sim;
  char           *dir;           /* (nullable) the output directory */
  SimAtomicFile  *jobs;          /* jobs.csv */
  SimAtomicFile  *series;        /* timeseries.csv */
  SimAtomicFile  *nodes;         /* nodes.csv (report/sim-run-records.h) */
  SimAtomicFile  *timeline;      /* sim_simulation_set_timeline() */
  SimOutputLock  *lock;          /* (nullable) @dir's, from set_output_dir to the run's end */
  SimAccumulator *node_usage;    /* owned by the simulation's accumulators */
  SimAccumulator *timeline_acc;  /* likewise */
} Outputs;

/* Every file a run may write into its output directory.  One run owns the
 * directory at a time (sim__output_dir_lock()), and leaves there only what
 * it wrote. */
static const char * const output_names[] = {
  "summary.json", "jobs.csv", "timeseries.csv", "nodes.csv", "topology.dot", NULL
};

const char * const *
sim__run_output_names (void)
{
  return output_names;
}

/* The module's key among the simulation's extensions. */
static const char module_key = 0;

/* Every file still open goes away, whole: none was renamed into place. */
static void
drop_files (Outputs *o)
{
  g_clear_pointer (&o->jobs, sim__atomic_file_free);
  g_clear_pointer (&o->series, sim__atomic_file_free);
  g_clear_pointer (&o->nodes, sim__atomic_file_free);
  g_clear_pointer (&o->timeline, sim__atomic_file_free);
}

static void
outputs_free (gpointer data)
{
  Outputs *o = data;

  drop_files (o);
  g_clear_pointer (&o->lock, sim__output_dir_unlock);
  g_free (o->dir);
  g_free (o);
}

static void
on_abandon (SimSimulation *sim, SimTime now, gpointer data)
{
  Outputs *o = data;

  drop_files (o);
  g_clear_pointer (&o->lock, sim__output_dir_unlock);
}

/* topology.dot in the output directory: the collapsed network diagram,
 * nodes coloured by their time-averaged GPU allocation (sim-diagram.h). */
static gboolean
write_topology (Outputs *o, SimTopology *topology, SimAtomicFile **file, GError **error)
{
  SimCluster *cluster = sim__kernel_get_cluster (o->sim);
  guint n = sim_cluster_get_n_nodes (cluster);
  g_autofree double *heat = g_new0 (double, MAX (n, 1));
  g_autofree char *path = g_build_filename (o->dir, "topology.dot", NULL);
  g_autofree char *dot = NULL;
  SimDiagramOptions options = { FALSE, SIM_DIAGRAM_HEAT_NODES,
                                "GPUs allocated, time-averaged", heat, NULL, n };
  gsize len = 0;

  if (o->node_usage == NULL)
    options.heat = SIM_DIAGRAM_HEAT_NONE;
  else
    sim__node_usage_get_utilization (o->node_usage, heat, n);
  if (!sim_topology_render (topology, cluster, &options, "dot", &dot, &len, error))
    return FALSE;
  *file = sim__atomic_file_new (path, error);
  if (*file == NULL)
    return FALSE;
  fwrite (dot, 1, len, sim__atomic_file_stream (*file));
  return TRUE;
}

/* The run ended: summary.json and topology.dot written, and every file
 * renamed into place together, or none. */
static gboolean
on_commit (gpointer data, SimReport *report, GError **error)
{
  Outputs *o = data;
  SimTopology *topology = sim__kernel_get_topology (o->sim);
  g_autofree char *json = NULL, *path = NULL;
  g_autoptr(SimAtomicFile) summary = NULL;
  g_autoptr(SimAtomicFile) topology_file = NULL;
  SimAtomicFile *files[6];
  const char *written[G_N_ELEMENTS (output_names)] = { "summary.json" };
  guint n = 0, n_written = 1;
  gboolean ok;

  if (o->dir == NULL)
    {
      ok = o->timeline == NULL || sim__atomic_file_commit (o->timeline, error);
      drop_files (o);
      return ok;
    }
  json = sim_report_to_json (report, TRUE);
  path = g_build_filename (o->dir, "summary.json", NULL);
  summary = sim__atomic_file_new (path, error);
  if (summary == NULL ||
      (topology != NULL && !write_topology (o, topology, &topology_file, error)))
    {
      drop_files (o);
      return FALSE;
    }
  fputs (json, sim__atomic_file_stream (summary));
  fputc ('\n', sim__atomic_file_stream (summary));
  if (o->jobs != NULL)
    {
      files[n++] = o->jobs;
      written[n_written++] = "jobs.csv";
    }
  if (o->series != NULL)
    {
      files[n++] = o->series;
      written[n_written++] = "timeseries.csv";
    }
  if (o->nodes != NULL)
    {
      files[n++] = o->nodes;
      written[n_written++] = "nodes.csv";
    }
  if (o->timeline != NULL)
    files[n++] = o->timeline;
  if (topology_file != NULL)
    {
      files[n++] = topology_file;
      written[n_written++] = "topology.dot";
    }
  files[n++] = summary;
  ok = sim__atomic_files_commit (files, n, error);
  /* An earlier run's outputs that this one did not write (its topology.dot,
   * when this run has no [fabric]) would be read with this run's: they go,
   * and the directory is free for the next run. */
  if (ok && o->lock != NULL)
    sim__output_dir_prune (o->lock, output_names, written);
  g_clear_pointer (&o->lock, sim__output_dir_unlock);
  drop_files (o);
  return ok;
}

/* The module, attached on first use (before the run starts). */
static Outputs *
outputs_of (SimSimulation *sim, GError **error)
{
  Outputs *o = sim__kernel_get_extension (sim, &module_key);

  if (o != NULL)
    return o;
  o = g_new0 (Outputs, 1);
  o->sim = sim;
  sim__kernel_set_extension (sim, &module_key, o, outputs_free);
  sim__kernel_connect (sim, SIM_HOOK_COMMIT, G_CALLBACK (on_commit), o);
  sim__kernel_connect (sim, SIM_HOOK_ABANDON, G_CALLBACK (on_abandon), o);
  return o;
}

/* The power and access-link load of every node now (nodes.csv). */
static guint
probe_nodes (gpointer data, double *power_w, double *link_load, guint n_nodes)
{
  SimSimulation *sim = data;
  gboolean power = sim__kernel_has_power (sim);
  double max, mean;
  guint known = 0;

  for (guint n = 0; n < n_nodes; n++)
    power_w[n] = power ? sim__kernel_get_node_power (sim, n) : 0;
  if (power)
    known |= 1;
  if (sim__kernel_get_fabric_load (sim, &max, &mean, link_load, n_nodes))
    known |= 2;
  return known;
}

/* Opens DIR/NAME as a temporary file into *FILE. */
static gboolean
open_file (const char *dir, const char *name, SimAtomicFile **file, GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  *file = sim__atomic_file_new (path, error);
  return *file != NULL;
}

gboolean
sim_simulation_set_output_dir (SimSimulation *self, const char *dir, GError **error)
{
  const SimScenario *sc;
  Outputs *o;

  g_return_val_if_fail (SIM_IS_SIMULATION (self) && dir != NULL, FALSE);
  if (sim__kernel_has_started (self))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                   "the output directory must be set before the run starts");
      return FALSE;
    }
  sc = sim__kernel_get_scenario (self);
  o = outputs_of (self, error);
  /* The directory is this run's until it ends: a second run into it, from
   * this process or another, is refused naming the holder, and what a
   * killed run left there goes (sim-util.h). */
  g_clear_pointer (&o->lock, sim__output_dir_unlock);
  o->lock = sim__output_dir_lock (dir, output_names, error);
  if (o->lock == NULL)
    return FALSE;
  g_free (o->dir);
  o->dir = g_strdup (dir);
  drop_files (o);
  sim__kernel_set_record_streams (self, NULL, NULL);
  if ((sc->write_jobs && !open_file (dir, "jobs.csv", &o->jobs, error)) ||
      (sc->write_timeseries && !open_file (dir, "timeseries.csv", &o->series, error)))
    return FALSE;
  sim__kernel_set_record_streams (self, o->jobs ? sim__atomic_file_stream (o->jobs) : NULL,
                                  o->series ? sim__atomic_file_stream (o->series) : NULL);
  if (!open_file (dir, "nodes.csv", &o->nodes, error))
    return FALSE;
  if (o->node_usage == NULL)
    {
      /* The time-series interval, but at least a minute: each sample probes
       * every node (and the network's load). */
      SimTime interval = sc->sample_interval > 0 ? sc->sample_interval : SIM_HOUR;
      interval = MAX (interval, 60 * SIM_SECOND);
      o->node_usage = sim__node_usage_new (sim__kernel_get_cluster (self),
                                           sim__atomic_file_stream (o->nodes), interval,
                                           probe_nodes, self);
      sim__kernel_add_accumulator (self, o->node_usage);
    }
  else
    sim__node_usage_set_output (o->node_usage, sim__atomic_file_stream (o->nodes));
  return TRUE;
}

gboolean
sim_simulation_set_timeline (SimSimulation *self, const char *path, GError **error)
{
  Outputs *o;
  SimTimeline *timeline;

  g_return_val_if_fail (SIM_IS_SIMULATION (self) && path != NULL, FALSE);
  o = sim__kernel_get_extension (self, &module_key);
  if (sim__kernel_has_started (self) || (o != NULL && o->timeline_acc != NULL))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STATE,
                   "the timeline must be set once, before the run starts");
      return FALSE;
    }
  o = outputs_of (self, error);
  o->timeline = sim__atomic_file_new (path, error);
  if (o->timeline == NULL)
    return FALSE;
  timeline = sim_timeline_new (sim__atomic_file_stream (o->timeline),
                               sim__kernel_get_cluster (self));
  o->timeline_acc = sim__timeline_accumulator_new (sim__kernel_get_cluster (self), timeline,
                                                   sim__kernel_get_scenario (self)
                                                     ->mig_reconfigure_time,
                                                   sim__kernel_interruption_cause, self);
  sim__kernel_add_accumulator (self, o->timeline_acc);
  return TRUE;
}

SimTimeline *
sim__outputs_get_timeline (SimSimulation *sim)
{
  Outputs *o;

  g_return_val_if_fail (SIM_IS_SIMULATION (sim), NULL);
  o = sim__kernel_get_extension (sim, &module_key);
  return o != NULL && o->timeline_acc != NULL ? sim__timeline_accumulator_get (o->timeline_acc)
                                              : NULL;
}

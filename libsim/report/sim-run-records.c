/* sim-run-records.c: nodes.csv and the timeline (see sim-run-records.h). */
#include "config.h"

#include "report/sim-run-records.h"

#include <math.h>

/* ------------------------------------------------------------------------ */
/* nodes.csv                                                                 */

/* A node's allocation: thousandths of GPUs held now, their integral
 * (milli x ns as double), the time it is up to, and the peak; one record
 * of 32 bytes, as a job's start or end updates them together (four arrays
 * apart were four misses a node at a hundred thousand GPUs). */
typedef struct {
  guint64 now;
  double  integral;
  SimTime last;
  guint64 peak;
} NodeAlloc;

typedef struct {
  SimAccumulator base;
  const SimCluster *cluster;
  FILE     *out;
  guint     n_nodes;
  SimTime   interval, next_sample;
  SimNodeProbe probe;
  gpointer  probe_data;
  NodeAlloc *alloc;
  /* Samples. */
  double   *power_now, *load_now;
  double   *power_sum, *power_peak, *load_sum, *load_peak;
  guint64   samples;
  guint     known;     /* bits of SimNodeProbe */
} NodeUsage;

static void
usage_advance (SimAccumulator *acc, const SimState *held, SimTime now)
{
  NodeUsage *u = (NodeUsage *) acc;
  guint64 k;

  if (u->probe == NULL || u->interval <= 0 || now < u->next_sample)
    return;
  u->known |= u->probe (u->probe_data, u->power_now, u->load_now, u->n_nodes);
  /* Every instant crossed since the last change (k of them) saw this same
   * state: one probe and one pass over the nodes, however long the gap. */
  k = (guint64) ((now - u->next_sample) / u->interval) + 1;
  for (guint n = 0; n < u->n_nodes; n++)
    {
      u->power_sum[n] += (double) k * u->power_now[n];
      u->load_sum[n] += (double) k * u->load_now[n];
      u->power_peak[n] = MAX (u->power_peak[n], u->power_now[n]);
      u->load_peak[n] = MAX (u->load_peak[n], u->load_now[n]);
    }
  u->samples += k;
  if (k > (guint64) ((G_MAXINT64 - u->next_sample) / u->interval))
    u->next_sample = G_MAXINT64;   /* past the end of simulated time */
  else
    u->next_sample += (SimTime) k * u->interval;
}

static void
usage_change (NodeUsage *u, guint node, gint64 delta, SimTime now)
{
  NodeAlloc *a = &u->alloc[node];

  a->integral += (double) a->now * (double) (now - a->last);
  a->last = now;
  a->now = (guint64) ((gint64) a->now + delta);
  a->peak = MAX (a->peak, a->now);
}

static guint32
job_milli (const SimJob *job)
{
  return job->spec.gpu_milli == 0 ? 1000 : MIN (job->spec.gpu_milli, 1000u);
}

static void
usage_job_event (SimAccumulator *acc, SimJobEvent event, const SimJob *job,
                 const char *class_name, SimTime now)
{
  NodeUsage *u = (NodeUsage *) acc;
  gint64 sign;
  guint run = 0;

  if (event == SIM_JOB_STARTED)
    sign = 1;
  else if (event == SIM_JOB_PREEMPTED || event == SIM_JOB_FINISHED)
    sign = -1;
  else
    return;
  /* A run of the job's GPUs on one node is one change of the node: the
   * same figures as a change a GPU, since the changes after the first
   * come at the same instant (adding nothing to the integral) and move
   * the count one way (its peak is at the run's start or end). */
  for (guint i = 0; i < job->n_gpus; i++)
    {
      guint node = sim_cluster_get_gpu (u->cluster, job->gpus[i])->node;
      run++;
      if (i + 1 == job->n_gpus || sim_cluster_get_gpu (u->cluster, job->gpus[i + 1])->node != node)
        {
          usage_change (u, node, sign * (gint64) run * job_milli (job), now);
          run = 0;
        }
    }
}

static void
put_figure (FILE *out, gboolean known, double v, const char *format)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  fputc (',', out);
  if (known)
    fputs (g_ascii_formatd (buf, sizeof buf, format, v), out);
}

static void
usage_report (SimAccumulator *acc, SimReport *report, const SimReportInfo *info)
{
  NodeUsage *u = (NodeUsage *) acc;
  SimTime end = info->end;
  gboolean power = (u->known & 1) != 0 && u->samples > 0;
  gboolean load = (u->known & 2) != 0 && u->samples > 0;

  fputs ("node,model,gpus,utilization_mean,utilization_peak,power_mean_w,power_peak_w,"
         "power_max_w,link_load_mean,link_load_peak\n", u->out);
  for (guint n = 0; n < u->n_nodes; n++)
    {
      const SimNode *node = sim_cluster_get_node (u->cluster, n);
      double cap = 1000.0 * node->n_gpus;
      usage_change (u, n, 0, end);
      fprintf (u->out, "%u,%s,%u", n, node->model->name, node->n_gpus);
      put_figure (u->out, TRUE, end > 0 && cap > 0 ? u->alloc[n].integral / ((double) end * cap) : 0,
                  "%.6f");
      put_figure (u->out, TRUE, cap > 0 ? u->alloc[n].peak / cap : 0, "%.6f");
      put_figure (u->out, power, power ? u->power_sum[n] / u->samples : 0, "%.3f");
      put_figure (u->out, power, u->power_peak[n], "%.3f");
      put_figure (u->out, power && node->model->max_power_w > 0, node->model->max_power_w,
                  "%.3f");
      put_figure (u->out, load, load ? u->load_sum[n] / u->samples : 0, "%.6f");
      put_figure (u->out, load, u->load_peak[n], "%.6f");
      fputc ('\n', u->out);
    }
}

static void
usage_free (SimAccumulator *acc)
{
  NodeUsage *u = (NodeUsage *) acc;
  g_free (u->alloc);
  g_free (u->power_now);
  g_free (u->load_now);
  g_free (u->power_sum);
  g_free (u->power_peak);
  g_free (u->load_sum);
  g_free (u->load_peak);
  g_free (u);
}

static const SimAccumulatorVTable usage_vtable = {
  usage_advance, usage_job_event, usage_report, usage_free
};

SimAccumulator *
sim__node_usage_new (const SimCluster *cluster, FILE *out, SimTime interval, SimNodeProbe probe,
                     gpointer probe_data)
{
  NodeUsage *u = g_new0 (NodeUsage, 1);
  guint n = MAX (sim_cluster_get_n_nodes (cluster), 1);

  u->base.vtable = &usage_vtable;
  u->cluster = cluster;
  u->out = out;
  u->n_nodes = sim_cluster_get_n_nodes (cluster);
  u->interval = interval;
  u->next_sample = 0;
  u->probe = probe;
  u->probe_data = probe_data;
  u->alloc = g_new0 (NodeAlloc, n);
  u->power_now = g_new0 (double, n);
  u->load_now = g_new0 (double, n);
  u->power_sum = g_new0 (double, n);
  u->power_peak = g_new0 (double, n);
  u->load_sum = g_new0 (double, n);
  u->load_peak = g_new0 (double, n);
  return &u->base;
}

void
sim__node_usage_set_output (SimAccumulator *acc, FILE *out)
{
  g_return_if_fail (acc != NULL && acc->vtable == &usage_vtable);
  ((NodeUsage *) acc)->out = out;
}

void
sim__node_usage_get_utilization (SimAccumulator *acc, double *out, guint n_nodes)
{
  NodeUsage *u = (NodeUsage *) acc;

  g_return_if_fail (acc != NULL && acc->vtable == &usage_vtable && n_nodes == u->n_nodes);
  for (guint n = 0; n < n_nodes; n++)
    {
      const SimNode *node = sim_cluster_get_node (u->cluster, n);
      double cap = 1000.0 * node->n_gpus;
      SimTime end = u->alloc[n].last;
      out[n] = end > 0 && cap > 0 ? u->alloc[n].integral / ((double) end * cap) : 0;
    }
}

/* ------------------------------------------------------------------------ */
/* The timeline                                                              */

/* A job on its GPUs now: the lane it holds on each. */
typedef struct {
  guint  run;
  guint  n;
  guint8 lanes[];
} Held;

typedef struct {
  SimAccumulator base;
  const SimCluster *cluster;
  SimTimeline *timeline;
  SimTime      mig_reconfigure;
  SimRunCauseFunc cause;      /* (nullable) why a run ends early */
  gpointer     cause_data;
  GHashTable  *held;   /* job id -> Held */
  GHashTable  *runs;   /* job id -> runs started so far */
} TimelineAcc;

static void
timeline_advance (SimAccumulator *acc, const SimState *held, SimTime now)
{
}

static char *
job_name (const SimJob *job)
{
  return g_strdup_printf ("job %" G_GUINT64_FORMAT, job->spec.id);
}

static void
end_run (TimelineAcc *t, const SimJob *job, SimTime now, const char *how)
{
  Held *h = g_hash_table_lookup (t->held, &job->spec.id);
  g_autofree char *name = job_name (job);
  g_autofree char *args = NULL;
  const char *cause = NULL;
  g_autofree char *mark = NULL;

  if (h == NULL)
    return;
  /* A preemption by the failure model: an interruption, or a migration
   * off a node being drained. */
  if (g_strcmp0 (how, "preempted") == 0)
    cause = t->cause != NULL ? t->cause (t->cause_data, job) : NULL;
  if (g_strcmp0 (cause, "migration") == 0)
    how = "migrated";
  else if (cause != NULL)
    {
      how = "interrupted";
      mark = g_strdup_printf ("interrupted: %s failure", cause);
    }
  args = g_strdup_printf ("\"job\": %" G_GUINT64_FORMAT ", \"run\": %u, \"gpus\": %u, "
                          "\"end\": \"%s\"", job->spec.id, h->run, job->n_gpus, how);
  if (mark != NULL)
    {
      char *with_cause = g_strdup_printf ("%s, \"cause\": \"%s\"", args, cause);
      g_free (args);
      args = with_cause;
    }
  for (guint i = 0; i < h->n && i < job->n_gpus; i++)
    {
      sim_timeline_add_slice (t->timeline, (gint) job->gpus[i], 0, h->lanes[i], "job", name,
                              job->start, now, args);
      if (g_strcmp0 (how, "preempted") == 0)
        sim_timeline_add_instant (t->timeline, (gint) job->gpus[i], 0, h->lanes[i],
                                  "preemption", "preempted", now, args);
      else if (mark != NULL)
        sim_timeline_add_instant (t->timeline, (gint) job->gpus[i], 0, h->lanes[i],
                                  "interruption", mark, now, args);
      else if (g_strcmp0 (how, "migrated") == 0)
        sim_timeline_add_instant (t->timeline, (gint) job->gpus[i], 0, h->lanes[i],
                                  "migration", "migrated off a drained node", now, args);
      sim_timeline_release_lane (t->timeline, job->gpus[i], h->lanes[i]);
    }
  sim_timeline_add_run (t->timeline, job->spec.id, h->run, name, job->start, now, args);
  g_hash_table_remove (t->held, &job->spec.id);
}

static void
timeline_job_event (SimAccumulator *acc, SimJobEvent event, const SimJob *job,
                    const char *class_name, SimTime now)
{
  TimelineAcc *t = (TimelineAcc *) acc;

  switch (event)
    {
    case SIM_JOB_STARTED:
      {
        Held *h = g_malloc0 (sizeof (Held) + job->n_gpus);
        guint64 *key = g_new (guint64, 1);
        gpointer runs = g_hash_table_lookup (t->runs, &job->spec.id);
        *key = job->spec.id;
        h->run = GPOINTER_TO_UINT (runs);
        h->n = job->n_gpus;
        for (guint i = 0; i < job->n_gpus; i++)
          h->lanes[i] = (guint8) sim_timeline_take_lane (t->timeline, job->gpus[i]);
        g_hash_table_replace (t->held, key, h);
        g_hash_table_replace (t->runs, g_memdup2 (key, sizeof *key), GUINT_TO_POINTER (h->run + 1));
        if (job->spec.mig_profile != NULL && job->n_gpus == 1)
          {
            g_autofree char *name = g_strdup_printf ("MIG reconfigure: %s", job->spec.mig_profile);
            g_autofree char *args = NULL;
            char buf[32];
            args = g_strdup_printf ("\"job\": %" G_GUINT64_FORMAT ", \"profile\": \"%s\", "
                                    "\"reconfigure_s\": %s", job->spec.id,
                                    job->spec.mig_profile,
                                    sim__format_seconds (t->mig_reconfigure, buf));
            sim_timeline_add_instant (t->timeline, (gint) job->gpus[0], 0, h->lanes[0], "mig",
                                      name, now, args);
          }
        break;
      }
    case SIM_JOB_PREEMPTED:
      end_run (t, job, now, "preempted");
      break;
    case SIM_JOB_FINISHED:
      end_run (t, job, now, "finished");
      break;
    case SIM_JOB_UNFINISHED:
      end_run (t, job, now, "running at the end");
      break;
    default:
      break;
    }
}

static void
timeline_report (SimAccumulator *acc, SimReport *report, const SimReportInfo *info)
{
  TimelineAcc *t = (TimelineAcc *) acc;
  sim_timeline_finish (t->timeline);
}

static void
timeline_free (SimAccumulator *acc)
{
  TimelineAcc *t = (TimelineAcc *) acc;
  g_hash_table_unref (t->held);
  g_hash_table_unref (t->runs);
  sim_timeline_free (t->timeline);
  g_free (t);
}

static const SimAccumulatorVTable timeline_vtable = {
  timeline_advance, timeline_job_event, timeline_report, timeline_free
};

SimAccumulator *
sim__timeline_accumulator_new (const SimCluster *cluster, SimTimeline *timeline,
                               SimTime mig_reconfigure, SimRunCauseFunc cause,
                               gpointer cause_data)
{
  TimelineAcc *t = g_new0 (TimelineAcc, 1);

  t->base.vtable = &timeline_vtable;
  t->cluster = cluster;
  t->timeline = timeline;
  t->mig_reconfigure = mig_reconfigure;
  t->cause = cause;
  t->cause_data = cause_data;
  t->held = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  t->runs = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  return &t->base;
}

SimTimeline *
sim__timeline_accumulator_get (SimAccumulator *acc)
{
  g_return_val_if_fail (acc != NULL && acc->vtable == &timeline_vtable, NULL);
  return ((TimelineAcc *) acc)->timeline;
}

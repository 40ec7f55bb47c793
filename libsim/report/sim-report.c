/* sim-report.c: metric accumulators and the report built from them. */
#include "config.h"

#include "report/sim-metrics.h"
#include "core/sim-units.h"
#include "core/sim-util.h"

#include <gsl/gsl_statistics_double.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

/* Bounded slowdown uses this threshold, the usual 10 s (Feitelson et al.). */
#define BSLD_THRESHOLD_S 10.0

const char *
sim__format_seconds (SimTime t, char buf[32])
{
  gint64 whole = t / SIM_SECOND, frac = t % SIM_SECOND;

  if (t < 0)
    {
      whole = -(t / SIM_SECOND);
      frac = -(t % SIM_SECOND);
      g_snprintf (buf, 32, "-%" G_GINT64_FORMAT ".%09" G_GINT64_FORMAT, whole, frac);
    }
  else
    g_snprintf (buf, 32, "%" G_GINT64_FORMAT ".%09" G_GINT64_FORMAT, whole, frac);
  return buf;
}

void
sim__metrics_set_where (SimMetrics *m, SimJobWhereFunc func, gpointer data)
{
  m->where = func;
  m->where_data = data;
}

void
sim__metrics_set_column (SimMetrics *m, const char *name, SimJobWhereFunc func, gpointer data)
{
  m->column_name = name;
  m->column = func;
  m->column_data = data;
}

void
sim__metrics_init (SimMetrics *m, guint total_gpus, FILE *jobs, FILE *series)
{
  sim__metrics_init_power (m, total_gpus, jobs, series, FALSE);
}

void
sim__metrics_set_job_energy (SimMetrics *m, SimJobFigureFunc func, gpointer data)
{
  m->energy = func;
  m->energy_data = data;
}

void
sim__metrics_init_power (SimMetrics *m, guint total_gpus, FILE *jobs, FILE *series,
                         gboolean power)
{
  SimJobWhereFunc where = m->where;
  gpointer where_data = m->where_data;
  const char *column_name = m->column_name;
  SimJobWhereFunc column = m->column;
  gpointer column_data = m->column_data;
  SimJobFigureFunc energy = m->energy;
  gpointer energy_data = m->energy_data;
  gboolean interruptions = m->interruptions;

  memset (m, 0, sizeof *m);
  m->interruptions = interruptions;
  m->where = where;
  m->where_data = where_data;
  m->column_name = column_name;
  m->column = column;
  m->column_data = column_data;
  m->energy = energy;
  m->energy_data = energy_data;
  m->power = power;
  m->total_gpus = total_gpus;
  m->first_submit = -1;
  m->wait = g_array_new (FALSE, FALSE, sizeof (double));
  m->jct = g_array_new (FALSE, FALSE, sizeof (double));
  m->bsld = g_array_new (FALSE, FALSE, sizeof (double));
  m->jobs = jobs;
  m->series = series;
  if (jobs != NULL)
    fprintf (jobs, "id,class,submit_s,start_s,end_s,wait_s,jct_s,run_s,bounded_slowdown,gpus,"
             "gpu_milli,nodes,preemptions%s%s%s%s\n", power ? ",energy_kwh" : "",
             where != NULL ? ",where" : "", column != NULL ? "," : "",
             column != NULL ? column_name : "");
  if (series != NULL)
    {
      fputs (power ? "time_s,queued_jobs,running_jobs,allocated_gpus,utilization,queue_length_avg,"
                     "fragmented_gpus_avg,arrivals,completions,activity,it_power_w,"
                     "cooling_power_w,facility_power_w,pue"
                   : "time_s,queued_jobs,running_jobs,allocated_gpus,utilization,queue_length_avg,"
                     "fragmented_gpus_avg,arrivals,completions,activity", series);
      fputs (interruptions ? ",interruptions\n" : "\n", series);
    }
}

void
sim__metrics_set_interruptions (SimMetrics *m)
{
  m->interruptions = TRUE;
}

void
sim__metrics_note_interruption (SimMetrics *m)
{
  m->series_interruptions++;
}

void
sim__metrics_clear (SimMetrics *m)
{
  g_clear_pointer (&m->wait, g_array_unref);
  g_clear_pointer (&m->jct, g_array_unref);
  g_clear_pointer (&m->bsld, g_array_unref);
}

void
sim__metrics_advance (SimMetrics *m, const SimState *held, SimTime now)
{
  double dt;

  m->queue_max = MAX (m->queue_max, held->queued);
  if (now <= m->last)
    return;
  dt = sim_time_to_seconds (now - m->last);
  m->alloc_int += dt * (double) held->allocated_milli / 1000.0;
  m->compute_int += dt * held->computing_milli / 1000.0;
  m->queue_int += dt * held->queued;
  m->frag_int += dt * held->fragmented;
  m->active_int += dt * MAX (0.0, held->active_gpus);
  if (m->power)
    {
      m->it_int += dt * held->it_power_w;
      m->cooling_int += dt * held->cooling_power_w;
      m->facility_int += dt * held->facility_power_w;
    }
  m->last = now;
}

void
sim__metrics_job_submitted (SimMetrics *m, const SimJob *job)
{
  m->submitted++;
  m->series_arrivals++;
  if (m->first_submit < 0)
    m->first_submit = job->spec.submit;
}

void
sim__metrics_job_finished (SimMetrics *m, const SimJob *job, const char *class_name)
{
  double wait = sim_time_to_seconds (job->first_start - job->spec.submit);
  double jct = sim_time_to_seconds (job->end - job->spec.submit);
  double run = sim_time_to_seconds (job->executed);
  double bsld = MAX (1.0, jct / MAX (run, BSLD_THRESHOLD_S));

  m->completed++;
  m->series_completions++;
  m->last_end = MAX (m->last_end, job->end);
  m->job_gpu_seconds += job->attained;
  g_array_append_val (m->wait, wait);
  g_array_append_val (m->jct, jct);
  g_array_append_val (m->bsld, bsld);
  if (m->jobs != NULL)
    {
      char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
      fprintf (m->jobs, "%" G_GUINT64_FORMAT ",", job->spec.id);
      sim__csv_write_field (m->jobs, class_name);
      fprintf (m->jobs, ",%s,%s,%s,%s,%s,%s,%.6f,%u,%u,%u,%u",
               sim__format_seconds (job->spec.submit, b1),
               sim__format_seconds (job->first_start, b2), sim__format_seconds (job->end, b3),
               sim__format_seconds (job->first_start - job->spec.submit, b4),
               sim__format_seconds (job->end - job->spec.submit, b5),
               sim__format_seconds (job->executed, b6), bsld,
               job->n_gpus > 0 ? job->n_gpus : job->spec.gpus,
               job->spec.gpu_milli, job->n_nodes, job->n_preemptions);
      if (m->power)
        fprintf (m->jobs, ",%.6f",
                 m->energy != NULL ? m->energy (job, m->energy_data) / 3.6e6 : 0.0);
      if (m->where != NULL)
        fprintf (m->jobs, ",%s", m->where (job, m->where_data));
      if (m->column != NULL)
        fprintf (m->jobs, ",%s", m->column (job, m->column_data));
      fputc ('\n', m->jobs);
    }
}

void
sim__metrics_job_unfinished (SimMetrics *m, const SimJob *job, SimTime now)
{
  m->job_gpu_seconds += job->attained;
}

/* Samples never split the run's integrals: they read the integrals as
 * they would stand at NOW without advancing them, so a run with time
 * series on gives the same summary, to the last digit, as one without. */
void
sim__metrics_sample (SimMetrics *m, const SimState *state, SimTime now)
{
  char b[32];
  double dt, since, alloc, queue, frag, active, it, cooling, facility;

  if (m->series == NULL)
    return;
  since = now > m->last ? sim_time_to_seconds (now - m->last) : 0.0;
  alloc = m->alloc_int + since * (double) state->allocated_milli / 1000.0;
  queue = m->queue_int + since * state->queued;
  frag = m->frag_int + since * state->fragmented;
  active = m->active_int + since * MAX (0.0, state->active_gpus);
  it = m->it_int + since * state->it_power_w;
  cooling = m->cooling_int + since * state->cooling_power_w;
  facility = m->facility_int + since * state->facility_power_w;
  dt = sim_time_to_seconds (now - m->series_last);
  if (dt > 0)
    {
      fprintf (m->series, "%s,%u,%u,%.3f,%.6f,%.6f,%.6f,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
               ",%.6f",
               sim__format_seconds (now, b), state->queued, state->running,
               (double) state->allocated_milli / 1000.0,
               m->total_gpus > 0 ? (alloc - m->series_alloc) / dt / m->total_gpus : 0.0,
               (queue - m->series_queue) / dt, (frag - m->series_frag) / dt,
               m->series_arrivals, m->series_completions,
               m->total_gpus > 0 ? (active - m->series_active) / dt / m->total_gpus : 0.0);
      if (m->power)
        {
          double e_it = it - m->series_it;
          fprintf (m->series, ",%.3f,%.3f,%.3f,%.6f", e_it / dt, (cooling - m->series_cooling) / dt,
                   (facility - m->series_facility) / dt,
                   e_it > 0 ? (facility - m->series_facility) / e_it : 0.0);
        }
      if (m->interruptions)
        fprintf (m->series, ",%" G_GUINT64_FORMAT, m->series_interruptions);
      fputc ('\n', m->series);
    }
  m->series_it = it;
  m->series_cooling = cooling;
  m->series_facility = facility;
  m->series_active = active;
  m->series_last = now;
  m->series_alloc = alloc;
  m->series_queue = queue;
  m->series_frag = frag;
  m->series_arrivals = 0;
  m->series_completions = 0;
  m->series_interruptions = 0;
}

/* ------------------------------------------------------------------------- */
/* The report.                                                               */

typedef struct {
  char       *name;
  double      value;
  const char *unit;
} Metric;

struct _SimReport {
  gint    ref_count;
  char   *scenario;
  guint64 seed;
  char   *cluster;
  guint   nodes, gpus;
  char   *policy;
  char   *workload;
  GArray *metrics; /* Metric */
};

G_DEFINE_BOXED_TYPE (SimReport, sim_report, sim_report_ref, sim_report_unref)

SimReport *
sim_report_ref (SimReport *report)
{
  g_return_val_if_fail (report != NULL, NULL);
  g_atomic_int_inc (&report->ref_count);
  return report;
}

void
sim_report_unref (SimReport *report)
{
  if (report == NULL || !g_atomic_int_dec_and_test (&report->ref_count))
    return;
  for (guint i = 0; i < report->metrics->len; i++)
    g_free (g_array_index (report->metrics, Metric, i).name);
  g_array_unref (report->metrics);
  g_free (report->scenario);
  g_free (report->cluster);
  g_free (report->policy);
  g_free (report->workload);
  g_free (report);
}

static const Metric *find (const SimReport *report, const char *name);

static void
add (SimReport *r, const char *name, double value, const char *unit)
{
  Metric m = { NULL, value, unit };

  /* Two accumulators may not report one name. */
  g_return_if_fail (find (r, name) == NULL);
  m.name = g_strdup (name);
  g_array_append_val (r->metrics, m);
}

void
sim__report_add (SimReport *report, const char *name, double value, const char *unit)
{
  g_return_if_fail (report != NULL && name != NULL && unit != NULL);
  add (report, name, value, unit);
}

/* Mean, p50, p95, p99 and max of VALUES (sorted in place), under PREFIX. */
static void
add_distribution (SimReport *r, const char *prefix, GArray *values, const char *unit,
                  gboolean with_max)
{
  double *v = (double *) (void *) values->data;
  gsize n = values->len;
  g_autofree char *k_mean = g_strdup_printf ("%s_mean", prefix);
  g_autofree char *k50 = g_strdup_printf ("%s_p50", prefix);
  g_autofree char *k95 = g_strdup_printf ("%s_p95", prefix);
  g_autofree char *k99 = g_strdup_printf ("%s_p99", prefix);
  g_autofree char *kmax = g_strdup_printf ("%s_max", prefix);

  if (n > 0)
    sim__sort_doubles (v, n);
  add (r, k_mean, n ? gsl_stats_mean (v, 1, n) : 0, unit);
  add (r, k50, n ? gsl_stats_quantile_from_sorted_data (v, 1, n, 0.50) : 0, unit);
  add (r, k95, n ? gsl_stats_quantile_from_sorted_data (v, 1, n, 0.95) : 0, unit);
  add (r, k99, n ? gsl_stats_quantile_from_sorted_data (v, 1, n, 0.99) : 0, unit);
  if (with_max)
    add (r, kmax, n ? v[n - 1] : 0, unit);
}

SimReport *
sim__report_new (const SimReportInfo *info)
{
  SimReport *r = g_new0 (SimReport, 1);

  r->ref_count = 1;
  r->scenario = g_strdup (info->scenario);
  r->seed = info->seed;
  r->cluster = g_strdup (info->cluster);
  r->nodes = info->nodes;
  r->gpus = info->gpus;
  r->policy = g_strdup (info->policy);
  r->workload = g_strdup (info->workload);
  r->metrics = g_array_new (FALSE, FALSE, sizeof (Metric));
  return r;
}

/* The built-in metrics' part of the report. */
static void
metrics_report (const SimMetrics *m, SimReport *r, const SimReportInfo *info)
{
  double end_s = sim_time_to_seconds (info->end);
  double capacity = end_s * info->gpus;

  add (r, "jobs_submitted", (double) m->submitted, "jobs");
  add (r, "jobs_completed", (double) m->completed, "jobs");
  add (r, "jobs_unfinished", (double) (m->submitted - m->completed - m->rejected), "jobs");
  add (r, "jobs_rejected", (double) m->rejected, "jobs");
  add (r, "trace_rows_skipped", (double) info->skipped, "rows");
  add_distribution (r, "wait", m->wait, "s", TRUE);
  add_distribution (r, "jct", m->jct, "s", TRUE);
  add_distribution (r, "bounded_slowdown", m->bsld, "ratio", FALSE);
  add (r, "makespan",
       m->completed ? sim_time_to_seconds (m->last_end - MAX (m->first_submit, 0)) : 0, "s");
  add (r, "gpu_utilization", capacity > 0 ? m->alloc_int / capacity : 0, "ratio");
  add (r, "gpu_compute_utilization", capacity > 0 ? m->compute_int / capacity : 0, "ratio");
  add (r, "gpu_activity", capacity > 0 ? m->active_int / capacity : 0, "ratio");
  add (r, "active_gpu_seconds", m->active_int, "GPU*s");
  add (r, "allocated_gpu_seconds", m->alloc_int, "GPU*s");
  add (r, "job_gpu_seconds", m->job_gpu_seconds, "GPU*s");
  add (r, "queue_length_mean", end_s > 0 ? m->queue_int / end_s : 0, "jobs");
  add (r, "queue_length_max", m->queue_max, "jobs");
  add (r, "fragmented_gpus_mean", end_s > 0 ? m->frag_int / end_s : 0, "GPUs");
  add (r, "fragmentation", capacity > 0 ? m->frag_int / capacity : 0, "ratio");
  add (r, "preemptions", (double) m->preemptions, "preemptions");
}

void
sim__report_add_run (SimReport *r, const SimReportInfo *info)
{
  if (info->have_fabric)
    {
      add (r, "network_switches", info->switches, "switches");
      add (r, "network_cables", info->cables, "cables");
      add (r, "network_transceivers", info->transceivers, "transceivers");
    }
  add (r, "simulated_time", sim_time_to_seconds (info->end), "s");
  add (r, "events", (double) info->events, "events");
}

/* The built-in metrics as an accumulator. */
typedef struct {
  SimAccumulator base;
  SimMetrics    *m;
} MetricsAccumulator;

static void
metrics_acc_advance (SimAccumulator *acc, const SimState *held, SimTime now)
{
  sim__metrics_advance (((MetricsAccumulator *) acc)->m, held, now);
}

static void
metrics_acc_job_event (SimAccumulator *acc, SimJobEvent event, const SimJob *job,
                       const char *class_name, SimTime now)
{
  SimMetrics *m = ((MetricsAccumulator *) acc)->m;

  switch (event)
    {
    case SIM_JOB_SUBMITTED:
      sim__metrics_job_submitted (m, job);
      break;
    case SIM_JOB_REJECTED:
      m->rejected++;
      break;
    case SIM_JOB_STARTED:
      m->started++;
      break;
    case SIM_JOB_PREEMPTED:
      m->preemptions++;
      break;
    case SIM_JOB_FINISHED:
      sim__metrics_job_finished (m, job, class_name);
      break;
    case SIM_JOB_UNFINISHED:
      sim__metrics_job_unfinished (m, job, now);
      break;
    }
}

static void
metrics_acc_report (SimAccumulator *acc, SimReport *report, const SimReportInfo *info)
{
  metrics_report (((MetricsAccumulator *) acc)->m, report, info);
}

static void
metrics_acc_free (SimAccumulator *acc)
{
  g_free (acc);
}

static const SimAccumulatorVTable metrics_acc_vtable = {
  metrics_acc_advance, metrics_acc_job_event, metrics_acc_report, metrics_acc_free,
};

SimAccumulator *
sim__metrics_accumulator_new (SimMetrics *m)
{
  MetricsAccumulator *acc = g_new0 (MetricsAccumulator, 1);

  acc->base.vtable = &metrics_acc_vtable;
  acc->m = m;
  return &acc->base;
}

static const Metric *
find (const SimReport *report, const char *name)
{
  for (guint i = 0; i < report->metrics->len; i++)
    {
      const Metric *m = &g_array_index (report->metrics, Metric, i);
      if (strcmp (m->name, name) == 0)
        return m;
    }
  return NULL;
}

gboolean
sim_report_get_value (const SimReport *report, const char *metric, double *value)
{
  const Metric *m;

  g_return_val_if_fail (report != NULL && metric != NULL, FALSE);
  m = find (report, metric);
  if (m == NULL)
    return FALSE;
  if (value != NULL)
    *value = m->value;
  return TRUE;
}

const char *
sim_report_get_unit (const SimReport *report, const char *metric)
{
  const Metric *m;

  g_return_val_if_fail (report != NULL && metric != NULL, NULL);
  m = find (report, metric);
  return m ? m->unit : NULL;
}

GPtrArray *
sim_report_list_metrics (const SimReport *report)
{
  GPtrArray *names = g_ptr_array_new ();

  g_return_val_if_fail (report != NULL, names);
  for (guint i = 0; i < report->metrics->len; i++)
    g_ptr_array_add (names, g_array_index (report->metrics, Metric, i).name);
  return names;
}

char *
sim_report_to_json (const SimReport *report, gboolean pretty)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;

  g_return_val_if_fail (report != NULL, NULL);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "gpusim");
  json_builder_add_string_value (b, PACKAGE_VERSION);
  json_builder_set_member_name (b, "scenario");
  json_builder_add_string_value (b, report->scenario);
  json_builder_set_member_name (b, "seed");
  json_builder_add_int_value (b, (gint64) report->seed);
  json_builder_set_member_name (b, "cluster");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "description");
  json_builder_add_string_value (b, report->cluster);
  json_builder_set_member_name (b, "nodes");
  json_builder_add_int_value (b, report->nodes);
  json_builder_set_member_name (b, "gpus");
  json_builder_add_int_value (b, report->gpus);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "policy");
  json_builder_add_string_value (b, report->policy);
  json_builder_set_member_name (b, "workload");
  json_builder_add_string_value (b, report->workload);
  json_builder_set_member_name (b, "metrics");
  json_builder_begin_object (b);
  for (guint i = 0; i < report->metrics->len; i++)
    {
      const Metric *m = &g_array_index (report->metrics, Metric, i);
      json_builder_set_member_name (b, m->name);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "value");
      json_builder_add_double_value (b, m->value);
      json_builder_set_member_name (b, "unit");
      json_builder_add_string_value (b, m->unit);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, pretty);
  return json_generator_to_data (gen, NULL);
}

static double
value_of (const SimReport *r, const char *name)
{
  const Metric *m = find (r, name);

  /* The summary names only metrics every report has: a name it does not
   * find is a mistake in this file, not a zero. */
  g_return_val_if_fail (m != NULL, NAN);
  return m->value;
}

static char *
fmt_s (double seconds)
{
  return sim_format_duration (sim_time_from_seconds (seconds));
}

/* @usd as "$1,234,567" (whole dollars) or, below $100, "$12.34". */
static void
append_usd (GString *s, double usd)
{
  char digits[48];
  int n;

  if (fabs (usd) < 100)
    {
      g_string_append_printf (s, "$%.2f", usd);
      return;
    }
  n = g_snprintf (digits, sizeof digits, "%.0f", fabs (usd));
  g_string_append (s, usd < 0 ? "-$" : "$");
  for (int i = 0; i < n; i++)
    {
      if (i > 0 && (n - i) % 3 == 0)
        g_string_append_c (s, ',');
      g_string_append_c (s, digits[i]);
    }
}

/* The [cost] section's figures (power/sim-cost.h), when the run has them. */
static void
format_cost (GString *s, const SimReport *r)
{
  const char *rent[2][4] = {
    { "on demand", "cost_rent_on_demand_per_gpu_hour", "cost_break_even_on_demand",
      "cost_rent_on_demand" },
    { "reserved", "cost_rent_reserved_per_gpu_hour", "cost_break_even_reserved",
      "cost_rent_reserved" },
  };
  double v;

  g_string_append (s, "capex         ");
  append_usd (s, value_of (r, "cost_capex"));
  g_string_append (s, ": nodes ");
  append_usd (s, value_of (r, "cost_capex_nodes"));
  g_string_append (s, ", network ");
  append_usd (s, value_of (r, "cost_capex_network"));
  g_string_append (s, ", cooling and electrical ");
  append_usd (s, value_of (r, "cost_capex_facility"));
  g_string_append_printf (s, " for %.1f kW\n", value_of (r, "cost_capacity"));
  g_string_append (s, "owning        ");
  append_usd (s, value_of (r, "cost_tco"));
  g_string_append (s, " over the run: amortized capex ");
  append_usd (s, value_of (r, "cost_amortized_capex"));
  g_string_append (s, ", maintenance ");
  append_usd (s, value_of (r, "cost_maintenance"));
  g_string_append (s, ", energy ");
  append_usd (s, value_of (r, "cost_energy"));
  if (value_of (r, "cost_energy_kwh") > 0 && value_of (r, "cost_energy") == 0)
    g_string_append_printf (s, " (%.0f kWh not priced: [cost] has no energy_price, %.1f "
                            "kgCO2e)\n", value_of (r, "cost_energy_kwh"),
                            value_of (r, "cost_emissions"));
  else if (value_of (r, "cost_energy_kwh") > 0)
    g_string_append_printf (s, " (%.0f kWh, %.1f kgCO2e)\n", value_of (r, "cost_energy_kwh"),
                            value_of (r, "cost_emissions"));
  else
    g_string_append (s, " (not counted: the run draws no power without a [power] section)\n");
  if (value_of (r, "cost_cooling") > 0)
    {
      g_string_append (s, "cooling cost  ");
      append_usd (s, value_of (r, "cost_cooling"));
      g_string_append_printf (s, ", %.1f %% of the cost of owning (its plant ", 100 *
                              value_of (r, "cost_cooling_share"));
      append_usd (s, value_of (r, "cost_cooling") - value_of (r, "cost_cooling_energy"));
      g_string_append (s, " amortized and maintained, its energy ");
      append_usd (s, value_of (r, "cost_cooling_energy"));
      g_string_append (s, ")\n");
    }
  g_string_append (s, "per unit      ");
  if (sim_report_get_value (r, "cost_per_gpu_hour", &v))
    {
      append_usd (s, v);
      g_string_append_printf (s, " per delivered GPU-hour (%.0f GPU-h)",
                              value_of (r, "cost_delivered_gpu_hours"));
    }
  else
    g_string_append (s, "no GPU-hours delivered");
  if (sim_report_get_value (r, "cost_per_job", &v))
    {
      g_string_append (s, ", ");
      append_usd (s, v);
      g_string_append (s, " per job");
    }
  g_string_append_c (s, '\n');
  for (guint k = 0; k < G_N_ELEMENTS (rent); k++)
    {
      double price, u;

      if (!sim_report_get_value (r, rent[k][1], &price))
        continue;
      g_string_append_printf (s, "%-13s $%.3f per GPU-hour, ", k == 0 ? "renting" : "", price);
      append_usd (s, value_of (r, rent[k][3]));
      g_string_append_printf (s, " for the run (%s); ", rent[k][0]);
      if (sim_report_get_value (r, rent[k][2], &u))
        g_string_append_printf (s, "owning is cheaper above %.1f %% utilization\n", 100 * u);
      else
        g_string_append (s, "owning is never cheaper\n");
    }
}

char *
sim_report_format_text (const SimReport *r)
{
  GString *s = g_string_new (NULL);
  const char *dists[][2] = { { "wait", "wait" }, { "jct", "completion" } };

  g_return_val_if_fail (r != NULL, NULL);
  g_string_append_printf (s, "scenario      %s (seed %" G_GUINT64_FORMAT ")\n", r->scenario, r->seed);
  g_string_append_printf (s, "cluster       %s: %u nodes, %u GPUs\n", r->cluster, r->nodes, r->gpus);
  g_string_append_printf (s, "policy        %s\n", r->policy);
  g_string_append_printf (s, "workload      %s\n", r->workload);
  g_string_append_printf (s, "jobs          %.0f submitted, %.0f completed, %.0f unfinished, "
                          "%.0f rejected (they can never run here)\n",
                          value_of (r, "jobs_submitted"), value_of (r, "jobs_completed"),
                          value_of (r, "jobs_unfinished"), value_of (r, "jobs_rejected"));
  if (value_of (r, "trace_rows_skipped") > 0)
    g_string_append_printf (s, "skipped       %.0f trace rows as invalid (skip_invalid = true; "
                            "false stops at the first, with its line)\n",
                            value_of (r, "trace_rows_skipped"));
  for (guint d = 0; d < G_N_ELEMENTS (dists); d++)
    {
      g_autofree char *k_mean = g_strdup_printf ("%s_mean", dists[d][0]);
      g_autofree char *k50 = g_strdup_printf ("%s_p50", dists[d][0]);
      g_autofree char *k95 = g_strdup_printf ("%s_p95", dists[d][0]);
      g_autofree char *k99 = g_strdup_printf ("%s_p99", dists[d][0]);
      g_autofree char *a = fmt_s (value_of (r, k_mean));
      g_autofree char *b = fmt_s (value_of (r, k50));
      g_autofree char *c = fmt_s (value_of (r, k95));
      g_autofree char *e = fmt_s (value_of (r, k99));
      g_string_append_printf (s, "%-13s mean %s, p50 %s, p95 %s, p99 %s\n", dists[d][1], a, b, c, e);
    }
  g_string_append_printf (s, "slowdown      bounded (10 s): mean %.2f, p50 %.2f, p95 %.2f, p99 %.2f\n",
                          value_of (r, "bounded_slowdown_mean"), value_of (r, "bounded_slowdown_p50"),
                          value_of (r, "bounded_slowdown_p95"), value_of (r, "bounded_slowdown_p99"));
  {
    g_autofree char *mk = fmt_s (value_of (r, "makespan"));
    g_autofree char *st = fmt_s (value_of (r, "simulated_time"));
    g_string_append_printf (s, "makespan      %s (simulated %s, %.0f events)\n", mk, st,
                            value_of (r, "events"));
  }
  g_string_append_printf (s, "utilization   %.1f %% of GPU capacity allocated, %.1f %% computing\n",
                          100 * value_of (r, "gpu_utilization"),
                          100 * value_of (r, "gpu_compute_utilization"));
  g_string_append_printf (s, "activity      %.1f %% of GPU capacity busy (GPU activity, as DCGM "
                          "reports it; allocation above)\n",
                          100 * value_of (r, "gpu_activity"));
  g_string_append_printf (s, "queue         %.2f jobs on average, %.0f at most\n",
                          value_of (r, "queue_length_mean"), value_of (r, "queue_length_max"));
  g_string_append_printf (s, "fragmentation %.2f GPUs on average (%.2f %% of capacity) free but unable "
                          "to host the head job\n",
                          value_of (r, "fragmented_gpus_mean"), 100 * value_of (r, "fragmentation"));
  if (find (r, "pue") != NULL)
    {
      g_string_append_printf (s, "power         IT %.2f kW on average (peak %.2f kW), cooling %.2f kW, "
                              "facility %.2f kW (peak %.2f kW), PUE %.3f\n",
                              value_of (r, "power_it_avg") / 1e3, value_of (r, "power_it_peak") / 1e3,
                              value_of (r, "power_cooling_avg") / 1e3,
                              value_of (r, "power_facility_avg") / 1e3,
                              value_of (r, "power_facility_peak") / 1e3, value_of (r, "pue"));
      g_string_append_printf (s, "energy        %.4g kWh IT (%.4g kWh GPUs, %.4g kWh charged to jobs), "
                              "%.4g kWh facility, %.3g kWh per GPU-hour delivered\n",
                              value_of (r, "energy_it_kwh"), value_of (r, "energy_gpu_kwh"),
                              value_of (r, "energy_jobs_kwh"), value_of (r, "energy_facility_kwh"),
                              value_of (r, "energy_per_gpu_hour"));
      if (find (r, "economizer_hours") != NULL)
        g_string_append_printf (s, "cooling       %.2f kW on average, %.4g h with the chillers off "
                                "(economizer)\n", value_of (r, "power_cooling_avg") / 1e3,
                                value_of (r, "economizer_hours"));
    }
  if (find (r, "burst_cost") != NULL)
    g_string_append_printf (s, "burst         %.0f scale-ups, %.0f cloud nodes at most, %.2f "
                            "node-hours billed (%.1f GPU-hours used): %.2f USD at %.2f USD per "
                            "node-hour\n",
                            value_of (r, "burst_scale_ups"), value_of (r, "burst_nodes_peak"),
                            value_of (r, "burst_node_hours"), value_of (r, "burst_gpu_hours_used"),
                            value_of (r, "burst_cost"), value_of (r, "burst_price_per_node_hour"));
  if (find (r, "serverless_cost") != NULL)
    g_string_append_printf (s, "serverless    %.0f executions (%.0f cold starts), %.0f GPU-seconds "
                            "billed: %.2f USD\n",
                            value_of (r, "serverless_executions"),
                            value_of (r, "serverless_cold_starts"),
                            value_of (r, "serverless_gpu_seconds"), value_of (r, "serverless_cost"));
  if (find (r, "cost_capex") != NULL)
    format_cost (s, r);
  if (find (r, "cost_total") != NULL)
    {
      g_string_append (s, "in all        ");
      append_usd (s, value_of (r, "cost_total"));
      g_string_append (s, " owning and renting together");
      if (find (r, "cost_total_per_gpu_hour") != NULL)
        {
          g_string_append (s, ", ");
          append_usd (s, value_of (r, "cost_total_per_gpu_hour"));
          g_string_append (s, " per GPU-hour delivered anywhere");
        }
      g_string_append_c (s, '\n');
    }
  return g_string_free (s, FALSE);
}

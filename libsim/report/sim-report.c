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

/* By hand, not by printf: a run writes six of these a job, and at a
 * million jobs the C library's formatting of them was a tenth of the
 * run's instructions. */
const char *
sim__format_seconds (SimTime t, char buf[32])
{
  guint64 whole, frac;
  char digits[20];
  guint n = 0, at = 0;

  if (t < 0)
    {
      buf[at++] = '-';
      whole = (guint64) -(t / SIM_SECOND);
      frac = (guint64) -(t % SIM_SECOND);
    }
  else
    {
      whole = (guint64) (t / SIM_SECOND);
      frac = (guint64) (t % SIM_SECOND);
    }
  do
    {
      digits[n++] = (char) ('0' + whole % 10);
      whole /= 10;
    }
  while (whole > 0);
  while (n > 0)
    buf[at++] = digits[--n];
  buf[at++] = '.';
  for (gint i = 8; i >= 0; i--)
    {
      buf[at + i] = (char) ('0' + frac % 10);
      frac /= 10;
    }
  buf[at + 9] = '\0';
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

/* ---- Numbers for people ------------------------------------------------ */

/* Appends the digits of the whole number DIGITS (no sign) with a comma
 * every three from the right. */
static void
append_grouped (GString *s, const char *digits)
{
  gsize n = strlen (digits);

  for (gsize i = 0; i < n; i++)
    {
      if (i > 0 && (n - i) % 3 == 0)
        g_string_append_c (s, ',');
      g_string_append_c (s, digits[i]);
    }
}

char *
sim_format_number (double x)
{
  GString *s;
  char buf[64];
  double ax = fabs (x);

  if (!isfinite (x))
    return g_strdup ("n/a");
  if (ax < 1e-6)
    return g_strdup ("0");
  s = g_string_new (x < 0 ? "-" : "");
  if (ax >= 999.5)
    {
      /* Whole numbers from 1,000 on: every digit of the integer part is
       * kept (rounding 125,600 to 125,6xx would hide nothing). */
      g_snprintf (buf, sizeof buf, "%.0f", ax);
      append_grouped (s, buf);
    }
  else
    {
      int decimals = CLAMP (3 - (int) floor (log10 (ax)), 0, 6);
      char *end;

      g_ascii_formatd (buf, sizeof buf, decimals == 0 ? "%.0f" : decimals == 1 ? "%.1f"
                                        : decimals == 2 ? "%.2f" : decimals == 3 ? "%.3f"
                                        : decimals == 4 ? "%.4f" : decimals == 5 ? "%.5f"
                                        : "%.6f", ax);
      /* Trailing zeros say nothing: 1.500 is 1.5. */
      if (strchr (buf, '.') != NULL)
        {
          end = buf + strlen (buf) - 1;
          while (*end == '0')
            *end-- = '\0';
          if (*end == '.')
            *end = '\0';
        }
      g_string_append (s, buf);
    }
  return g_string_free (s, FALSE);
}

char *
sim_format_count (double n, const char *noun)
{
  g_autofree char *number = sim_format_number (n);
  gsize len;

  if (noun == NULL || *noun == '\0')
    return g_steal_pointer (&number);
  len = strlen (noun);
  if (n == 1 && len > 1 && noun[len - 1] == 's')
    return g_strdup_printf ("%s %.*s", number, (int) len - 1, noun);
  return g_strdup_printf ("%s %s", number, noun);
}

char *
sim_format_usd (double usd)
{
  GString *s;
  char digits[64];
  double a = fabs (usd);

  if (!isfinite (usd))
    return g_strdup ("n/a");
  if (a < 0.005)
    return g_strdup ("$0");
  s = g_string_new (usd < 0 ? "-$" : "$");
  if (a < 99.995)
    {
      g_string_append (s, g_ascii_formatd (digits, sizeof digits, "%.2f", a));
      return g_string_free (s, FALSE);
    }
  g_snprintf (digits, sizeof digits, "%.0f", a);
  append_grouped (s, digits);
  return g_string_free (s, FALSE);
}

/* A value in BASE units scaled by 1,000 to the largest of PREFIXES[] that
 * keeps it at 1 or more ("12.5 kW"). */
static char *
format_scaled (double x, const char *const *units, guint n_units)
{
  guint k = 0;
  g_autofree char *number = NULL;

  while (k + 1 < n_units && fabs (x) >= 999.95)
    {
      x /= 1000;
      k++;
    }
  number = sim_format_number (x);
  return g_strdup_printf ("%s %s", number, units[k]);
}

char *
sim_format_value (double value, const char *unit)
{
  static const char *const watts[] = { "W", "kW", "MW", "GW" };
  static const char *const kwh[] = { "kWh", "MWh", "GWh" };
  static const char *const counted[] = { "jobs", "events", "caps", "starts", "GPUs", "nodes",
                                         "executions" };

  if (!isfinite (value))
    return g_strdup ("n/a");
  if (unit == NULL || *unit == '\0' || strcmp (unit, "count") == 0 ||
      strcmp (unit, "ratio") == 0)
    return sim_format_number (value);
  if (strcmp (unit, "s") == 0)
    {
      g_autofree char *d = NULL;
      if (fabs (value) < 1e-6)
        return g_strdup ("0 s");
      /* A difference of times can be negative; the time type is not. */
      d = sim_format_duration (sim_time_from_seconds (fabs (value)));
      return value < 0 ? g_strdup_printf ("-%s", d) : g_steal_pointer (&d);
    }
  if (strcmp (unit, "USD") == 0)
    return sim_format_usd (value);
  if (g_str_has_prefix (unit, "USD/"))
    {
      g_autofree char *usd = NULL;
      /* A price per unit keeps its cents and about four significant
       * digits ("$2.50/GPU-h", "$4.916/GPU-h", "$0.0895/kWh"), and more
       * digits below a cent ("$0.0012/kWh"). */
      if (fabs (value) < 99.995 && fabs (value) >= 0.01)
        {
          char fmt[8], buf[32];
          int decimals = CLAMP (3 - (int) floor (log10 (fabs (value))), 2, 6);
          gsize n;
          g_snprintf (fmt, sizeof fmt, "%%.%df", decimals);
          g_ascii_formatd (buf, sizeof buf, fmt, fabs (value));
          /* Zeros past the cents say nothing. */
          n = strlen (buf);
          while (n > 0 && buf[n - 1] == '0' && strchr (buf, '.') + 3 < buf + n)
            buf[--n] = '\0';
          usd = g_strdup_printf ("%s$%s", value < 0 ? "-" : "", buf);
        }
      else if (fabs (value) < 0.01 && fabs (value) >= 1e-6)
        {
          g_autofree char *n = sim_format_number (fabs (value));
          usd = g_strdup_printf ("%s$%s", value < 0 ? "-" : "", n);
        }
      else
        usd = sim_format_usd (value);
      return g_strdup_printf ("%s%s", usd, unit + 3);
    }
  if (strcmp (unit, "W") == 0)
    return format_scaled (value, watts, G_N_ELEMENTS (watts));
  if (strcmp (unit, "kWh") == 0)
    return format_scaled (value, kwh, G_N_ELEMENTS (kwh));
  if (strcmp (unit, "fraction") == 0 || strcmp (unit, "%") == 0)
    {
      /* Percentages to a tenth ("74.0 %"), zero as zero, and a share too
       * small for a tenth with its own digits rather than as 0.0. */
      double pc = strcmp (unit, "%") == 0 ? value : 100 * value;
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      g_autofree char *n = NULL;

      if (fabs (pc) < 0.05 || fabs (pc) >= 999.95)
        n = sim_format_number (pc);
      else
        n = g_strdup (g_ascii_formatd (buf, sizeof buf, "%.1f", pc));
      return g_strdup_printf ("%s %%", n);
    }
  for (guint i = 0; i < G_N_ELEMENTS (counted); i++)
    if (strcmp (unit, counted[i]) == 0)
      return sim_format_count (value, unit);
  {
    g_autofree char *n = sim_format_number (value);
    return g_strdup_printf ("%s %s", n, unit);
  }
}

/* The groups of the summary and the report, in their order: a metric is
 * in the first whose prefix or name it has. */
static const struct {
  const char *group;
  const char *const names[12]; /* a name, or a prefix ending in '_' or '.' */
} groups[] = {
  { "jobs", { "jobs_", "wait_", "jct_", "bounded_slowdown_", "preemptions",
              "trace_rows_skipped", NULL } },
  { "failures", { "failures", "failures_", "interruptions", "interruptions_", "migrations",
                  "lost_gpu_hours", "checkpoint_gpu_hours", "restart_gpu_hours", "ettr",
                  "spares_used", "checkpoint_interval_s", NULL } },
  { "power manager", { "power_manager_", NULL } },
  { "facility limit", { "facility_limit_", "facility_time_over_limit", NULL } },
  { "cooling", { "power_cooling_", "energy_cooling_", "economizer_hours", "cost_cooling",
                 "cost_cooling_energy", "cost_cooling_share", NULL } },
  { "power", { "power_", "energy_", "pue", NULL } },
  { "burst", { "burst_", NULL } },
  { "serverless", { "serverless_", NULL } },
  { "cost", { "cost_", NULL } },
  { "serving", { "serving.", NULL } },
};

const char *
sim_report_get_group (const char *metric)
{
  g_return_val_if_fail (metric != NULL, NULL);
  for (guint g = 0; g < G_N_ELEMENTS (groups); g++)
    for (guint i = 0; groups[g].names[i] != NULL; i++)
      {
        const char *n = groups[g].names[i];
        gsize len = strlen (n);
        if (n[len - 1] == '_' || n[len - 1] == '.' ? strncmp (metric, n, len) == 0
                                                   : strcmp (metric, n) == 0)
          return groups[g].group;
      }
  return "run";
}

/* The summary being written: the report and the metrics its lines have
 * shown so far, so that the lines at its end show every other one. */
typedef struct {
  const SimReport *r;
  GHashTable      *shown; /* metric names (the report's own strings) */
} Summary;

static double
value_of (Summary *sum, const char *name)
{
  const Metric *m = find (sum->r, name);

  /* The summary names only metrics every report has: a name it does not
   * find is a mistake in this file, not a zero. */
  g_return_val_if_fail (m != NULL, NAN);
  g_hash_table_add (sum->shown, m->name);
  return m->value;
}

/* The metric's value if the report has it (then it is shown). */
static gboolean
get_value (Summary *sum, const char *name, double *value)
{
  if (find (sum->r, name) == NULL)
    return FALSE;
  *value = value_of (sum, name);
  return TRUE;
}

/* The metric's value for a condition, without counting it as shown: a
 * line left out for a zero must not hide the zero. */
static double
peek (Summary *sum, const char *name)
{
  const Metric *m = find (sum->r, name);

  g_return_val_if_fail (m != NULL, NAN);
  return m->value;
}

static gboolean
has (Summary *sum, const char *name)
{
  return find (sum->r, name) != NULL;
}

/* Appends the metric's value as sim_format_value() writes it for UNIT
 * (NULL: the metric's own unit). */
static void
append_value (GString *s, Summary *sum, const char *name, const char *unit)
{
  const Metric *m = find (sum->r, name);
  g_autofree char *text = NULL;

  g_return_if_fail (m != NULL);
  text = sim_format_value (value_of (sum, name), unit != NULL ? unit : m->unit);
  g_string_append (s, text);
}

static void
append_usd (GString *s, double usd)
{
  g_autofree char *text = sim_format_usd (usd);
  g_string_append (s, text);
}

static void
append_number (GString *s, double x)
{
  g_autofree char *text = sim_format_number (x);
  g_string_append (s, text);
}

static void
append_duration (GString *s, Summary *sum, const char *name)
{
  append_value (s, sum, name, "s");
}

/* The [cost] section's figures (power/sim-cost.h), when the run has them. */
static void
format_cost (GString *s, Summary *sum)
{
  const char *rent[2][4] = {
    { "on demand", "cost_rent_on_demand_per_gpu_hour", "cost_break_even_on_demand",
      "cost_rent_on_demand" },
    { "reserved", "cost_rent_reserved_per_gpu_hour", "cost_break_even_reserved",
      "cost_rent_reserved" },
  };
  double v;

  g_string_append (s, "capex         ");
  append_usd (s, value_of (sum, "cost_capex"));
  g_string_append (s, ": nodes ");
  append_usd (s, value_of (sum, "cost_capex_nodes"));
  g_string_append (s, ", network ");
  append_usd (s, value_of (sum, "cost_capex_network"));
  g_string_append (s, ", cooling and electrical ");
  append_usd (s, value_of (sum, "cost_capex_facility"));
  g_string_append (s, " for ");
  append_value (s, sum, "cost_capacity", NULL);
  g_string_append (s, "\nowning        ");
  append_usd (s, value_of (sum, "cost_tco"));
  g_string_append (s, " over the run: amortized capex ");
  append_usd (s, value_of (sum, "cost_amortized_capex"));
  g_string_append (s, ", maintenance ");
  append_usd (s, value_of (sum, "cost_maintenance"));
  g_string_append (s, ", energy ");
  append_usd (s, value_of (sum, "cost_energy"));
  if (peek (sum, "cost_energy_kwh") > 0 && peek (sum, "cost_energy") == 0)
    {
      g_string_append (s, " (");
      append_value (s, sum, "cost_energy_kwh", "kWh");
      g_string_append (s, " not priced: [cost] has no energy_price, ");
      append_value (s, sum, "cost_emissions", NULL);
      g_string_append (s, ")\n");
    }
  else if (peek (sum, "cost_energy_kwh") > 0)
    {
      g_string_append (s, " (");
      append_value (s, sum, "cost_energy_kwh", "kWh");
      g_string_append (s, ", ");
      append_value (s, sum, "cost_emissions", NULL);
      g_string_append (s, ")\n");
    }
  else
    g_string_append (s, " (not counted: the run draws no power without a [power] section)\n");
  if (peek (sum, "cost_cooling") > 0)
    {
      g_string_append (s, "cooling cost  ");
      append_usd (s, value_of (sum, "cost_cooling"));
      g_string_append (s, ", ");
      append_value (s, sum, "cost_cooling_share", "fraction");
      g_string_append (s, " of the cost of owning (its plant ");
      append_usd (s, value_of (sum, "cost_cooling") - value_of (sum, "cost_cooling_energy"));
      g_string_append (s, " amortized and maintained, its energy ");
      append_usd (s, value_of (sum, "cost_cooling_energy"));
      g_string_append (s, ")\n");
    }
  g_string_append (s, "per unit      ");
  if (get_value (sum, "cost_per_gpu_hour", &v))
    {
      append_value (s, sum, "cost_per_gpu_hour", NULL);
      g_string_append (s, " delivered (");
      append_value (s, sum, "cost_delivered_gpu_hours", NULL);
      g_string_append (s, ")");
    }
  else
    g_string_append (s, "no GPU-hours delivered");
  if (get_value (sum, "cost_per_job", &v))
    {
      g_string_append (s, ", ");
      append_usd (s, v);
      g_string_append (s, " per job");
    }
  g_string_append_c (s, '\n');
  for (guint k = 0; k < G_N_ELEMENTS (rent); k++)
    {
      double price, u;

      if (!get_value (sum, rent[k][1], &price))
        continue;
      g_string_append_printf (s, "%-13s ", k == 0 ? "renting" : "");
      append_value (s, sum, rent[k][1], NULL);
      g_string_append (s, ", ");
      append_usd (s, value_of (sum, rent[k][3]));
      g_string_append_printf (s, " for the run (%s); ", rent[k][0]);
      if (get_value (sum, rent[k][2], &u))
        {
          g_string_append (s, "owning is cheaper above ");
          append_value (s, sum, rent[k][2], "fraction");
          g_string_append (s, " utilization\n");
        }
      else
        g_string_append (s, "owning is never cheaper\n");
    }
}

/* Each deployment serving in the run: its requests, latencies against its
 * objectives, replicas and price, in words; its other figures follow in
 * the rest. */
static void
format_serving (GString *s, Summary *sum)
{
  const SimReport *r = sum->r;
  gboolean first = TRUE;

  for (guint i = 0; i < r->metrics->len; i++)
    {
      const Metric *m = &g_array_index (r->metrics, Metric, i);
      g_autofree char *dep = NULL;
      const char *end;

      if (!g_str_has_prefix (m->name, "serving.") || !g_str_has_suffix (m->name, ".requests"))
        continue;
      end = m->name + strlen (m->name) - strlen (".requests");
      dep = g_strndup (m->name + strlen ("serving."), end - m->name - strlen ("serving."));
#define SERVING(what) g_autofree char *k_##what = g_strdup_printf ("serving.%s." #what, dep)
      {
        SERVING (requests);
        SERVING (requests_unfinished);
        SERVING (ttft_p50);
        SERVING (ttft_p99);
        SERVING (tpot_p50);
        SERVING (tpot_p99);
        SERVING (slo_attainment);
        SERVING (goodput);
        SERVING (replicas_peak);
        SERVING (gpu_hours);
        SERVING (usd_per_million_tokens_owned);
        SERVING (usd_per_million_tokens_cloud);
#undef SERVING
        g_string_append_printf (s, "%-13s %s: ", first ? "serving" : "", dep);
        first = FALSE;
        append_number (s, value_of (sum, k_requests));
        g_string_append (s, " requests answered, ");
        append_number (s, value_of (sum, k_requests_unfinished));
        g_string_append (s, " unfinished; TTFT p50 ");
        append_value (s, sum, k_ttft_p50, NULL);
        g_string_append (s, ", p99 ");
        append_value (s, sum, k_ttft_p99, NULL);
        g_string_append (s, "\n              TPOT p50 ");
        append_value (s, sum, k_tpot_p50, NULL);
        g_string_append (s, ", p99 ");
        append_value (s, sum, k_tpot_p99, NULL);
        g_string_append (s, "; ");
        append_value (s, sum, k_slo_attainment, NULL);
        g_string_append (s, " within both SLOs (goodput ");
        append_value (s, sum, k_goodput, NULL);
        g_string_append (s, ")\n              ");
        append_number (s, value_of (sum, k_replicas_peak));
        g_string_append (s, " replicas at most, ");
        append_value (s, sum, k_gpu_hours, NULL);
        if (has (sum, k_usd_per_million_tokens_owned))
          {
            g_string_append (s, ", ");
            append_value (s, sum, k_usd_per_million_tokens_owned, NULL);
            g_string_append (s, " per million tokens owned");
          }
        if (has (sum, k_usd_per_million_tokens_cloud))
          {
            g_string_append (s, ", ");
            append_value (s, sum, k_usd_per_million_tokens_cloud, NULL);
            g_string_append (s, " rented");
          }
        g_string_append_c (s, '\n');
      }
    }
}

/* Every metric the lines above did not show, group by group: the name as
 * the JSON has it and the value for people, so that the summary holds
 * every result of the run, a module's new metrics included. */
static void
format_rest (GString *s, Summary *sum)
{
  const SimReport *r = sum->r;
  g_autoptr(GPtrArray) order = g_ptr_array_new ();

  /* The groups in the order their first metrics come. */
  for (guint i = 0; i < r->metrics->len; i++)
    {
      const Metric *m = &g_array_index (r->metrics, Metric, i);
      const char *group = sim_report_get_group (m->name);
      if (!g_hash_table_contains (sum->shown, m->name) &&
          !g_ptr_array_find_with_equal_func (order, group, g_str_equal, NULL))
        g_ptr_array_add (order, (gpointer) group);
    }
  for (guint g = 0; g < order->len; g++)
    {
      gsize line_start = s->len;
      gboolean first = TRUE;

      g_string_append_printf (s, "%-13s", (const char *) order->pdata[g]);
      for (guint i = 0; i < r->metrics->len; i++)
        {
          const Metric *m = &g_array_index (r->metrics, Metric, i);
          g_autofree char *value = NULL;
          g_autofree char *item = NULL;

          if (g_hash_table_contains (sum->shown, m->name) ||
              strcmp (sim_report_get_group (m->name), order->pdata[g]) != 0)
            continue;
          /* A count whose unit is its name ("preemptions") needs it once. */
          value = strcmp (m->unit, m->name) == 0 ? sim_format_number (m->value)
                                                 : sim_format_value (m->value, m->unit);
          item = g_strdup_printf ("%s %s", m->name, value);
          /* Lines of about 100 characters, the next ones indented. */
          if (!first && s->len - line_start + strlen (item) + 2 > 100)
            {
              g_string_append (s, ",\n             ");
              line_start = s->len - 13;
            }
          else if (!first)
            g_string_append_c (s, ',');
          g_string_append_c (s, ' ');
          g_string_append (s, item);
          first = FALSE;
        }
      g_string_append_c (s, '\n');
    }
}

char *
sim_report_format_text (const SimReport *r)
{
  GString *s;
  const char *dists[][2] = { { "wait", "wait" }, { "jct", "completion" } };
  g_autoptr(GHashTable) shown = NULL;
  Summary sum_, *sum = &sum_;

  g_return_val_if_fail (r != NULL, NULL);
  shown = g_hash_table_new (g_str_hash, g_str_equal);
  sum_.r = r;
  sum_.shown = shown;
  s = g_string_new (NULL);
  g_string_append_printf (s, "scenario      %s (seed %" G_GUINT64_FORMAT ")\n", r->scenario, r->seed);
  {
    g_autofree char *nodes = sim_format_count (r->nodes, "nodes");
    g_autofree char *gpus = sim_format_count (r->gpus, "GPUs");
    g_string_append_printf (s, "cluster       %s: %s, %s\n", r->cluster, nodes, gpus);
  }
  g_string_append_printf (s, "policy        %s\n", r->policy);
  g_string_append_printf (s, "workload      %s\n", r->workload);
  g_string_append (s, "jobs          ");
  append_number (s, value_of (sum, "jobs_submitted"));
  g_string_append (s, " submitted, ");
  append_number (s, value_of (sum, "jobs_completed"));
  g_string_append (s, " completed, ");
  append_number (s, value_of (sum, "jobs_unfinished"));
  g_string_append (s, " unfinished, ");
  append_number (s, value_of (sum, "jobs_rejected"));
  g_string_append (s, " rejected (they can never run here)\n");
  if (peek (sum, "trace_rows_skipped") > 0)
    {
      g_autofree char *rows = sim_format_count (value_of (sum, "trace_rows_skipped"),
                                                "trace rows");
      g_string_append_printf (s, "skipped       %s as invalid (skip_invalid = true; false "
                              "stops at the first, with its line)\n", rows);
    }
  for (guint d = 0; d < G_N_ELEMENTS (dists); d++)
    {
      g_autofree char *k_mean = g_strdup_printf ("%s_mean", dists[d][0]);
      g_autofree char *k50 = g_strdup_printf ("%s_p50", dists[d][0]);
      g_autofree char *k95 = g_strdup_printf ("%s_p95", dists[d][0]);
      g_autofree char *k99 = g_strdup_printf ("%s_p99", dists[d][0]);
      g_string_append_printf (s, "%-13s mean ", dists[d][1]);
      append_duration (s, sum, k_mean);
      g_string_append (s, ", p50 ");
      append_duration (s, sum, k50);
      g_string_append (s, ", p95 ");
      append_duration (s, sum, k95);
      g_string_append (s, ", p99 ");
      append_duration (s, sum, k99);
      g_string_append_c (s, '\n');
    }
  g_string_append (s, "slowdown      bounded (10 s): mean ");
  append_value (s, sum, "bounded_slowdown_mean", NULL);
  g_string_append (s, ", p50 ");
  append_value (s, sum, "bounded_slowdown_p50", NULL);
  g_string_append (s, ", p95 ");
  append_value (s, sum, "bounded_slowdown_p95", NULL);
  g_string_append (s, ", p99 ");
  append_value (s, sum, "bounded_slowdown_p99", NULL);
  g_string_append (s, "\nmakespan      ");
  append_duration (s, sum, "makespan");
  g_string_append (s, " (simulated ");
  append_duration (s, sum, "simulated_time");
  g_string_append (s, ", ");
  append_value (s, sum, "events", "events");
  g_string_append (s, ")\nutilization   ");
  append_value (s, sum, "gpu_utilization", "fraction");
  g_string_append (s, " of GPU capacity allocated, ");
  append_value (s, sum, "gpu_compute_utilization", "fraction");
  g_string_append (s, " computing\nactivity      ");
  append_value (s, sum, "gpu_activity", "fraction");
  g_string_append (s, " of GPU capacity busy (GPU activity, as DCGM reports it; allocation "
                   "above)\nqueue         ");
  append_value (s, sum, "queue_length_mean", "jobs");
  g_string_append (s, " on average, ");
  append_number (s, value_of (sum, "queue_length_max"));
  g_string_append (s, " at most\nfragmentation ");
  append_value (s, sum, "fragmented_gpus_mean", "GPUs");
  g_string_append (s, " on average (");
  append_value (s, sum, "fragmentation", "fraction");
  g_string_append (s, " of capacity) free but unable to host the head job\n");
  if (has (sum, "pue"))
    {
      double facility_kwh, cooling_kwh;

      g_string_append (s, "power         IT ");
      append_value (s, sum, "power_it_avg", NULL);
      g_string_append (s, " on average (peak ");
      append_value (s, sum, "power_it_peak", NULL);
      g_string_append (s, "), cooling ");
      append_value (s, sum, "power_cooling_avg", NULL);
      g_string_append (s, ", facility ");
      append_value (s, sum, "power_facility_avg", NULL);
      g_string_append (s, " (peak ");
      append_value (s, sum, "power_facility_peak", NULL);
      g_string_append (s, "), PUE ");
      append_value (s, sum, "pue", NULL);
      g_string_append (s, "\nenergy        ");
      append_value (s, sum, "energy_it_kwh", NULL);
      g_string_append (s, " IT (");
      append_value (s, sum, "energy_gpu_kwh", NULL);
      g_string_append (s, " GPUs, ");
      append_value (s, sum, "energy_jobs_kwh", NULL);
      g_string_append (s, " charged to jobs), ");
      append_value (s, sum, "energy_facility_kwh", NULL);
      g_string_append (s, " facility, ");
      append_value (s, sum, "energy_per_gpu_hour", NULL);
      g_string_append (s, " delivered\n");
      /* Cooling's share of the energy (what planners ask first), beside
       * its share of the cost of owning on the cost lines. */
      facility_kwh = value_of (sum, "energy_facility_kwh");
      if (get_value (sum, "energy_cooling_kwh", &cooling_kwh))
        {
          g_autofree char *share = sim_format_value (facility_kwh > 0 ? cooling_kwh / facility_kwh
                                                                      : 0, "fraction");
          g_string_append (s, "cooling       ");
          append_value (s, sum, "energy_cooling_kwh", NULL);
          g_string_append_printf (s, ", %s of the facility's energy", share);
          if (has (sum, "economizer_hours"))
            {
              g_string_append (s, ", ");
              append_value (s, sum, "economizer_hours", NULL);
              g_string_append (s, " with the chillers off (economizer)");
            }
          g_string_append_c (s, '\n');
        }
    }
  if (has (sum, "burst_cost"))
    {
      g_string_append (s, "burst         ");
      append_value (s, sum, "burst_scale_ups", "scale-ups");
      g_string_append (s, ", ");
      append_value (s, sum, "burst_nodes_peak", "cloud nodes");
      g_string_append (s, " at most, ");
      append_value (s, sum, "burst_node_hours", "node-hours");
      g_string_append (s, " billed (");
      append_value (s, sum, "burst_gpu_hours_used", "GPU-hours");
      g_string_append (s, " used): ");
      append_usd (s, value_of (sum, "burst_cost"));
      g_string_append (s, " at ");
      append_value (s, sum, "burst_price_per_node_hour", "USD/node-hour");
      g_string_append_c (s, '\n');
    }
  if (has (sum, "serverless_cost"))
    {
      g_string_append (s, "serverless    ");
      append_value (s, sum, "serverless_executions", "executions");
      g_string_append (s, " (");
      append_value (s, sum, "serverless_cold_starts", "cold starts");
      g_string_append (s, "), ");
      append_value (s, sum, "serverless_gpu_seconds", "GPU-seconds");
      g_string_append (s, " billed: ");
      append_usd (s, value_of (sum, "serverless_cost"));
      g_string_append_c (s, '\n');
    }
  if (has (sum, "cost_capex"))
    format_cost (s, sum);
  if (has (sum, "cost_total"))
    {
      g_string_append (s, "in all        ");
      append_usd (s, value_of (sum, "cost_total"));
      g_string_append (s, " owning and renting together");
      if (has (sum, "cost_total_per_gpu_hour"))
        {
          g_string_append (s, ", ");
          append_value (s, sum, "cost_total_per_gpu_hour", NULL);
          g_string_append (s, " delivered anywhere");
        }
      g_string_append_c (s, '\n');
    }
  format_serving (s, sum);
  format_rest (s, sum);
  return g_string_free (s, FALSE);
}

/* sim-metrics.h: the accumulators a simulation feeds (not installed).
 *
 * Time-weighted figures are exact integrals of piecewise-constant state:
 * before anything changes, sim__metrics_advance() adds value x elapsed time
 * for the state that held since the last change.  Per-job figures are kept
 * in arrays for exact percentiles (8 bytes per job and figure). */
#pragma once

#include <stdio.h>
#include "report/sim-report.h"
#include "workload/sim-job.h"

G_BEGIN_DECLS

typedef struct {
  guint   total_gpus;
  /* State between events, set by the simulation after every change. */
  guint64 allocated_milli;  /* thousandths of GPUs allocated */
  double  computing_milli;  /* the same, weighted by each job's rate (compute, not waiting
                             * on communication) */
  double  active_gpus;      /* GPUs kept busy (activity, as DCGM reports it: sim-sharing.h) */
  guint   queued;
  guint   running;
  guint   fragmented;       /* free GPUs that cannot host the head job */

  SimTime last;             /* integrals are up to date until here */
  double  alloc_int;        /* GPU*s */
  double  compute_int;      /* GPU*s spent computing */
  double  queue_int;        /* job*s */
  double  frag_int;         /* GPU*s */
  double  active_int;       /* GPU*s busy */
  guint   queue_max;

  guint64 submitted, started, completed, rejected, preemptions;
  SimTime first_submit, last_end;
  double  job_gpu_seconds;  /* sum over jobs of GPUs x run time so far */
  GArray *wait, *jct, *bsld; /* double seconds / ratio, completed jobs */

  /* Time series: integrals at the last sample, to average over intervals. */
  FILE   *series;
  SimTime series_last;
  double  series_alloc, series_queue, series_frag, series_active;
  guint64 series_arrivals, series_completions;
  guint64 samples;          /* sampling events so far (not counted as the run's events) */

  FILE   *jobs;             /* per-job rows, or NULL */
} SimMetrics;

void sim__metrics_init (SimMetrics *m, guint total_gpus, FILE *jobs, FILE *series);
void sim__metrics_clear (SimMetrics *m);
void sim__metrics_advance (SimMetrics *m, SimTime now);
void sim__metrics_job_submitted (SimMetrics *m, const SimJob *job);
void sim__metrics_job_finished (SimMetrics *m, const SimJob *job, const char *class_name);
void sim__metrics_sample (SimMetrics *m, SimTime now);
/* Adds the GPU-time of a job not finished at the end (its progress must
 * be up to date); preempted jobs waiting in the queue count too. */
void sim__metrics_job_unfinished (SimMetrics *m, const SimJob *job, SimTime now);

typedef struct {
  const char *scenario;
  guint64     seed;
  const char *cluster;
  guint       nodes, gpus;
  const char *policy;
  const char *workload;
  guint64     events;
  guint64     skipped;       /* trace rows skipped as invalid */
  SimTime     end;
  gboolean    have_fabric;   /* the counts below are set */
  guint       switches, cables, transceivers;
} SimReportInfo;

SimReport *sim__report_new (const SimMetrics *m, const SimReportInfo *info);

/* Formats a time in ns as exact seconds with 9 decimals into buf[32]. */
const char *sim__format_seconds (SimTime t, char buf[32]);

G_END_DECLS

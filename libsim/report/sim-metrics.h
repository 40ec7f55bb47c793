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

/* What holds between two events, as the simulation notes it after every
 * change: what every accumulator integrates. */
typedef struct {
  guint64 allocated_milli;  /* thousandths of GPUs allocated */
  double  computing_milli;  /* the same, weighted by each job's share of time computing
                             * (not waiting on communication) */
  double  active_gpus;      /* GPUs kept busy (activity, as DCGM reports it: sim-sharing.h) */
  guint   queued;
  guint   running;
  guint   fragmented;       /* free GPUs that cannot host the head job */
  /* Power (power/sim-power.h), 0 without a [power] section: what the IT
   * equipment draws (GPUs, the rest of the nodes after their power
   * supplies, switches and optics), what cooling draws, and the facility's
   * total (IT + cooling + electrical losses), all in W. */
  double  it_power_w;
  double  cooling_power_w;
  double  facility_power_w;
  /* Of allocated_milli, the thousandths of GPUs allocated on a cloud pool's
   * nodes (power/sim-elastic.h), which are not the owner's: 0 without one. */
  guint64 cloud_milli;
  double  gpu_power_w;      /* the GPUs' part of it_power_w (before the power supplies) */
  gboolean economizer;      /* the chillers are off (free cooling) */
} SimState;

/* Where a finished job ran, for the `where` column of jobs.csv
 * (power/sim-elastic.h). */
typedef const char *(*SimJobWhereFunc) (const SimJob *job, gpointer data);
/* A figure of a job a module keeps (its energy, J). */
typedef double (*SimJobFigureFunc) (const SimJob *job, gpointer data);

/* The built-in metrics: the accumulator every simulation has. */
typedef struct {
  guint   total_gpus;

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

  FILE   *jobs;             /* per-job rows, or NULL */
  SimJobWhereFunc where;    /* (nullable) adds the column `where` to jobs.csv */
  gpointer where_data;
  const char *column_name;  /* (nullable) one more column (sim__metrics_set_column()) */
  SimJobWhereFunc column;
  gpointer column_data;
  SimJobFigureFunc energy;  /* (nullable) each job's energy, J (sim__metrics_set_job_energy()) */
  gpointer energy_data;

  /* With the power model: power columns in the time series and energy in
   * jobs.csv (power/sim-power.h). */
  gboolean power;
  double  it_int, cooling_int, facility_int;        /* J */
  double  series_it, series_cooling, series_facility;

  /* With the failure model: a last column `interruptions` in the time
   * series (failures/sim-failures.h). */
  gboolean interruptions;
  guint64 series_interruptions;
} SimMetrics;

/* Keeps @m's where function (sim__metrics_set_where()). */
void sim__metrics_init (SimMetrics *m, guint total_gpus, FILE *jobs, FILE *series);
/* The same, with power columns if @power. */
void sim__metrics_init_power (SimMetrics *m, guint total_gpus, FILE *jobs, FILE *series,
                              gboolean power);
/* jobs.csv's `energy_kwh` column, with [power]: each job's energy (J) from
 * @func; kept by the next sim__metrics_init_power(). */
void sim__metrics_set_job_energy (SimMetrics *m, SimJobFigureFunc func, gpointer data);
/* Asks for a last column `where` in jobs.csv from the next
 * sim__metrics_init() on. */
void sim__metrics_set_where (SimMetrics *m, SimJobWhereFunc func, gpointer data);
/* Asks for a last column NAME in jobs.csv (after `where`), FUNC giving
 * its value, from the next sim__metrics_init() on. */
void sim__metrics_set_column (SimMetrics *m, const char *name, SimJobWhereFunc func,
                              gpointer data);
/* Asks for a last column `interruptions` in the time series from the next
 * sim__metrics_init() on. */
void sim__metrics_set_interruptions (SimMetrics *m);
/* A job interrupted by a failure, for the time series. */
void sim__metrics_note_interruption (SimMetrics *m);
void sim__metrics_clear (SimMetrics *m);
/* Integrates @held, the state since the last call, up to @now. */
void sim__metrics_advance (SimMetrics *m, const SimState *held, SimTime now);
void sim__metrics_job_submitted (SimMetrics *m, const SimJob *job);
void sim__metrics_job_finished (SimMetrics *m, const SimJob *job, const char *class_name);
/* A time-series row at @now, @state holding since the last change. */
void sim__metrics_sample (SimMetrics *m, const SimState *state, SimTime now);
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

/* ------------------------------------------------------------------------- */
/* Accumulators: what a run adds up, each contributing its own metrics.     */

/* What happens to a job, as accumulators are told of it. */
typedef enum {
  SIM_JOB_SUBMITTED,
  SIM_JOB_REJECTED,    /* it can never run on this cluster */
  SIM_JOB_STARTED,
  SIM_JOB_PREEMPTED,
  SIM_JOB_FINISHED,
  SIM_JOB_UNFINISHED,  /* still running or waiting again when the run ends */
} SimJobEvent;

typedef struct _SimAccumulator SimAccumulator;

/* An accumulator: told of the state between events (advance, before it
 * changes) and of every job event, it adds its metrics to the report at
 * the end.  The built-in metrics are the first; energy, failures and cost
 * are others, each in its own file. */
typedef struct {
  void (*advance)   (SimAccumulator *acc, const SimState *held, SimTime now);
  void (*job_event) (SimAccumulator *acc, SimJobEvent event, const SimJob *job,
                     const char *class_name, SimTime now);
  void (*report)    (SimAccumulator *acc, SimReport *report, const SimReportInfo *info);
  void (*free)      (SimAccumulator *acc);
} SimAccumulatorVTable;

struct _SimAccumulator {
  const SimAccumulatorVTable *vtable;
};

/* The built-in metrics as an accumulator (@m stays the caller's). */
SimAccumulator *sim__metrics_accumulator_new (SimMetrics *m);

/* A report of @info with no metrics yet. */
SimReport *sim__report_new (const SimReportInfo *info);

/* Adds a metric; a name given twice is a programming error (refused). */
void sim__report_add (SimReport *report, const char *name, double value, const char *unit);

/* The metrics every report ends with: the fabric's counts, the simulated
 * time and the events. */
void sim__report_add_run (SimReport *report, const SimReportInfo *info);

/* Formats a time in ns as exact seconds with 9 decimals into buf[32]. */
const char *sim__format_seconds (SimTime t, char buf[32]);

G_END_DECLS

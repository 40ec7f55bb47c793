/* sim-workload.h: where jobs come from.
 *
 * A #SimWorkload is a stream of job specifications in non-decreasing order
 * of submission time.  The simulation pulls one job at a time, when the
 * previous arrival fires, so a trace is never loaded whole: memory stays
 * bounded by the jobs in the system and the trace readers' reorder window
 * (sim-traces.h), which puts rows in order, not by the length of the trace.
 * Sources: the synthetic generator (GSL draws, one RNG stream per purpose)
 * and trace readers (the Standard Workload Format today).
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib.h>
#include "core/sim-units.h"
#include "workload/sim-scaling.h"

G_BEGIN_DECLS

/**
 * SimCommProfile:
 * @iteration: compute time of one training iteration; 0 for a job that
 *   does not communicate (an opaque job)
 * @dp_bytes: bytes all-reduced across the data-parallel replicas per
 *   iteration (the gradients)
 * @tp: tensor-parallel degree (GPUs per tensor-parallel group, 1 for none)
 * @tp_bytes: bytes all-reduced inside each tensor-parallel group per iteration
 * @pp: pipeline-parallel degree (stages, 1 for none)
 * @pp_bytes: bytes sent between consecutive pipeline stages per iteration
 * @overlap: the share of communication that can hide behind compute, 0 to 1
 *
 * How a training job computes and communicates.  Its data-parallel degree
 * is its GPUs / (@tp x @pp).  The job's duration counts compute only; each
 * iteration takes @iteration plus the communication that does not overlap
 * it, under the bandwidth the job's flows get now.
 */
typedef struct {
  SimTime iteration;
  guint64 dp_bytes;
  guint32 tp;
  guint64 tp_bytes;
  guint32 pp;
  guint64 pp_bytes;
  double  overlap;
} SimCommProfile;

/**
 * SimJobSpec:
 * @id: the job's number (the trace's, or a sequence from 1)
 * @submit: submission time
 * @duration: run time alone on whole GPUs of its reference type
 * @requested: the user's requested or estimated run time; 0 if unknown
 * @gpus: GPUs requested
 * @gpu_milli: share of each GPU in thousandths; 1000 is a whole GPU
 * @job_class: index of the job's class in its workload (0 for traces)
 * @user: user number, or -1 if unknown
 * @status: the trace's status code, or -1 if unknown
 * @priority: larger runs first under priority orders; 0 by default
 * @tenant: the tenant (namespace, virtual cluster) it is charged to; 0 by default
 * @cpu_milli: host CPU it needs, in thousandths of a core, on the nodes it
 *   spans (split across them in proportion to its GPUs); 0 if none
 * @memory_bytes: host memory it needs, split the same way; 0 if none
 * @gpu_models: (nullable): GPU models it may run on, as an interned
 *   string of names separated by '|' ("V100-16GB|V100-32GB"); %NULL for any
 * @comm: how it communicates (all zero for an opaque job)
 * @mig_profile: (nullable): a MIG profile name, interned ("1g.10gb"): the
 *   job runs in one MIG instance of that profile (@gpus is then 1)
 * @gpus_min: for a moldable job, the fewest GPUs it may run on (the
 *   policy picks a count from @gpus_min to @gpus when it starts the job);
 *   0 for a rigid job, which runs on exactly @gpus
 * @activity: the share of a whole GPU's time the job keeps busy when alone
 *   on it, in (0, 1] (see sim-sharing.h); 0 if unknown, which counts as 1
 *   for whole GPUs and MIG instances and as @gpu_milli / 1000 for a
 *   fractional request
 * @memory_bound: the share of its time on a whole GPU limited by memory
 *   bandwidth rather than compute, in [0, 1] (what a MIG instance's share
 *   of memory slices weighs against its share of SMs)
 *
 * A job as a workload describes it, before it reaches the scheduler.
 * Sources leave the fields they do not know at zero.
 */
typedef struct {
  guint64 id;
  SimTime submit;
  SimTime duration;
  SimTime requested;
  guint32 gpus;
  guint32 gpu_milli;
  guint32 job_class;
  gint32  user;
  gint32  status;
  gint32  priority;
  guint32 tenant;
  guint32 cpu_milli;
  guint64 memory_bytes;
  const char *gpu_models;
  SimCommProfile comm;
  const char *mig_profile;
  guint32 gpus_min;
  double  activity;
  double  memory_bound;
} SimJobSpec;

typedef struct _SimWorkload SimWorkload;

/**
 * SimWorkloadVTable:
 * @next: fills the next job and returns %TRUE; returns %FALSE at the end
 *   (error unset) or on failure (error set)
 * @finalize: frees the source's own state
 * @skipped: (nullable): rows skipped so far as invalid (a trace's
 *   skip_invalid); %NULL for a source that skips nothing
 *
 * The methods of a workload source.  A source embeds #SimWorkload as its
 * first member.
 */
typedef struct {
  gboolean (*next)     (SimWorkload *workload, SimJobSpec *out, GError **error);
  void     (*finalize) (SimWorkload *workload);
  guint64  (*skipped)  (const SimWorkload *workload);
} SimWorkloadVTable;

struct _SimWorkload {
  const SimWorkloadVTable *vtable;
  char    *description;   /* for reports: "synthetic", "swf:/path/file.swf" */
  GPtrArray *class_names; /* (element-type utf8) one per job class */
  guint64  produced;      /* jobs returned so far */
  SimTime  last_submit;
  guint64  source_line;   /* the file line of the last job a trace reader
                           * returned; 0 if unknown */
};

/**
 * sim_workload_next:
 * @workload: a workload
 * @out: (out caller-allocates): the next job
 * @error: return location for a #GError
 *
 * Returns: %TRUE with @out filled; %FALSE at the end, or with @error set
 *   (SIM_ERROR_TRACE naming the file and line for a malformed trace).
 */
gboolean sim_workload_next (SimWorkload *workload, SimJobSpec *out, GError **error);

/**
 * sim_workload_free: (skip)
 */
void sim_workload_free (SimWorkload *workload);

/**
 * sim_workload_get_skipped:
 *
 * Returns: rows the source has skipped so far as invalid (a trace read
 *   with skip_invalid: jobs without GPUs or run time, pods deleted before
 *   they were created...); 0 for a source that skips nothing.
 */
guint64 sim_workload_get_skipped (const SimWorkload *workload);

/**
 * sim_workload_get_n_classes:
 *
 * Returns: the number of job classes.
 */
guint sim_workload_get_n_classes (const SimWorkload *workload);

/**
 * sim_workload_get_class_name:
 *
 * Returns: (transfer none): the class's name.
 */
const char *sim_workload_get_class_name (const SimWorkload *workload, guint job_class);

/**
 * sim_workload_read_all: (skip)
 * @workload: a workload, not read yet
 * @jobs: (out): the jobs it gave
 * @error: return location for a #GError
 *
 * Reads @workload to its end: a check of a whole trace before a run
 * (`gpusim validate`).  A source that gives no job at all (a trace with
 * no rows, or whose every row was skipped as invalid) is an error, as in
 * a run.
 *
 * Errors: the source's own (SIM_ERROR_TRACE with the file and line of the
 * first bad row); SIM_ERROR_TRACE for a source without jobs.
 *
 * Returns: %TRUE if every row was read.
 */
gboolean sim_workload_read_all (SimWorkload *workload, guint64 *jobs, GError **error);

/* ------------------------------------------------------------------------- */
/* The synthetic generator.                                                  */

/**
 * SimDistributionKind:
 * @SIM_DIST_CONSTANT: always @mean
 * @SIM_DIST_EXPONENTIAL: exponential of mean @mean
 * @SIM_DIST_LOGNORMAL: lognormal of median @median and shape @sigma
 *   (mu = ln median)
 * @SIM_DIST_EMPIRICAL: one of @values, drawn with @weights (uniform if
 *   @weights is %NULL)
 */
typedef enum {
  SIM_DIST_CONSTANT,
  SIM_DIST_EXPONENTIAL,
  SIM_DIST_LOGNORMAL,
  SIM_DIST_EMPIRICAL,
} SimDistributionKind;

/**
 * SimDurationDist:
 *
 * A distribution of durations, in seconds.  Draws are rounded to whole
 * nanoseconds and clamped to at least 1 ns.
 */
typedef struct {
  SimDistributionKind kind;
  double  mean;     /* seconds: constant, exponential */
  double  median;   /* seconds: lognormal */
  double  sigma;    /* lognormal shape */
  double *values;   /* seconds: empirical */
  double *weights;  /* empirical, nullable */
  guint   n_values;
} SimDurationDist;

/**
 * SimJobClassConfig:
 *
 * One class of jobs in a synthetic mix.
 */
typedef struct {
  char    *name;
  double   share;        /* relative weight of the class among arrivals */
  guint32 *gpu_values;   /* GPUs per job, e.g. {1, 2, 4, 8} */
  double  *gpu_weights;  /* their relative weights */
  guint    n_gpu_values;
  SimDurationDist duration;
  double   estimate_factor; /* requested = duration x factor; 0 means unknown */
  SimCommProfile comm;      /* all zero: the class's jobs do not communicate */
  const char *mig_profile;  /* interned; NULL: whole or fractional GPUs */
  gint32   priority;        /* copied to the jobs */
  guint32  tenant;
  const char *gpu_models;   /* interned '|' list of allowed GPU models; NULL: any */
  /* How the class scales and how fast it runs on each GPU model (see
   * sim-scaling.h): its speed-up curve; the GPU count its durations are
   * measured at (0: the count each job asks for); for a moldable class
   * (gpus = MIN..MAX) the fewest GPUs a job may take (0: rigid); its
   * measured throughput per GPU model (none: FP16 TFLOPS ratios). */
  SimScaling scaling;
  guint32  reference_gpus;
  guint32  gpus_min;
  SimThroughputTable throughput;
  /* Shared GPUs (sim-sharing.h). */
  double   activity;        /* share of a whole GPU kept busy, (0, 1]; 0: unknown */
  double   memory_bound;    /* share of time limited by memory bandwidth, [0, 1] */
  guint32  gpu_milli;       /* thousandths of one GPU per job (gpus = 1); 0: whole GPUs */
  /* Elastic capacity (power/sim-elastic.h): the class's jobs run as
   * serverless GPU functions, outside the cluster. */
  gboolean serverless;
} SimJobClassConfig;

/**
 * SimGeneratorConfig:
 * @rate: mean arrival rate, jobs per second (the daily average if a
 *   profile is given)
 * @profile: 24 hourly multipliers of @rate (their mean is normalised to 1),
 *   or all 0 for a constant rate
 * @max_jobs: stop after this many jobs; 0 for no limit
 * @stop_time: no arrivals after this time; %SIM_TIME_NEVER for no limit
 * @classes: the job classes (at least one)
 * @n_classes: their number
 */
typedef struct {
  double   rate;
  double   profile[24];
  guint64  max_jobs;
  SimTime  stop_time;
  SimJobClassConfig *classes;
  guint    n_classes;
} SimGeneratorConfig;

/**
 * sim_workload_new_generator: (skip)
 * @config: the generator's configuration (copied)
 * @seed: the scenario seed; streams "arrivals", "classes", "sizes",
 *   "durations" are derived from it
 * @error: return location for a #GError
 *
 * Arrivals are Poisson at @rate, or a non-homogeneous Poisson process
 * following the hourly profile (simulated by thinning: candidates at the
 * peak rate, each kept with probability rate(t)/peak).
 *
 * Errors: SIM_ERROR_INVALID if the configuration is inconsistent (no
 * classes, non-positive rate, negative weights, ...), naming the field.
 *
 * Returns: (transfer full) (nullable): the generator.
 */
SimWorkload *sim_workload_new_generator (const SimGeneratorConfig *config, guint64 seed,
                                         GError **error);

/* ------------------------------------------------------------------------- */
/* The Standard Workload Format reader.                                      */

/**
 * SimSwfConfig:
 * @processors_per_gpu: a job asking for p processors gets
 *   ceil(p / @processors_per_gpu) GPUs (> 0)
 * @max_jobs: stop after this many jobs; 0 for all
 * @skip_invalid: skip jobs with no processors or no run time (counted in
 *   sim_workload_swf_skipped()) instead of failing
 * @rebase_time: subtract the first job's submit time from every submit time
 * @reorder_window: jobs held to put the log in order of submission, as
 *   #SimTraceConfig's; 0 reads it strictly in order
 */
typedef struct {
  double   processors_per_gpu;
  guint64  max_jobs;
  gboolean skip_invalid;
  gboolean rebase_time;
  guint64  reorder_window;
} SimSwfConfig;

/**
 * sim_workload_new_swf: (skip)
 * @path: an SWF v2 file
 * @config: how to map it (copied)
 * @error: return location for a #GError
 *
 * Opens the file and reads its header comments; jobs are read one line at
 * a time as sim_workload_next() asks for them.  Each SWF user is a tenant
 * (for fair-share orders).
 *
 * Errors: SIM_ERROR_IO if the file cannot be opened; later, from
 * sim_workload_next(), SIM_ERROR_TRACE for a line that does not have 18
 * integer fields, whose times do not fit in simulated time, or that is
 * further out of order than the reorder window, naming the file and line
 * number.
 *
 * Returns: (transfer full) (nullable): the reader.
 */
SimWorkload *sim_workload_new_swf (const char *path, const SimSwfConfig *config, GError **error);

/**
 * sim_workload_swf_skipped:
 *
 * Returns: jobs skipped so far (SWF only, else 0).
 */
guint64 sim_workload_swf_skipped (const SimWorkload *workload);

/* ------------------------------------------------------------------------- */
/* The Microsoft Philly job list.                                            */

/**
 * SimPhillyConfig:
 * @max_jobs: stop after this many jobs; 0 for all
 * @skip_invalid: skip jobs with no GPUs or no run time (counted) instead
 *   of failing
 * @rebase_time: count submit times from the first job's
 * @reorder_window: rows held to put the list in order of submission, as
 *   #SimTraceConfig's (the published list is in no particular order: it
 *   replays with a window of 80,256 rows or more); 0 reads it strictly in
 *   order
 * @tenants: (nullable) (array zero-terminated=1): virtual clusters to
 *   number first, in this order (tenants and classes 0, 1, ...: the VCs of
 *   a cluster built from philly-vc-nodes.csv, whose quotas are given by
 *   number); VCs not listed are numbered after them by first appearance.
 *   Not copied: it must outlive the reader
 */
typedef struct {
  guint64  max_jobs;
  gboolean skip_invalid;
  gboolean rebase_time;
  guint64  reorder_window;
  char   **tenants;
} SimPhillyConfig;

/**
 * sim_workload_new_philly: (skip)
 * @path: a CSV with the header timestamp,duration,num_gpus,gpu_time,cluster
 * @config: how to read it (copied)
 * @error: return location for a #GError
 *
 * Streams the Philly-derived job list (Jeon et al., ATC'19).  Each virtual
 * cluster is a tenant and a job class, numbered by first appearance.
 *
 * Errors: SIM_ERROR_IO if the file cannot be opened; SIM_ERROR_TRACE for
 * a wrong header; later, from sim_workload_next(), SIM_ERROR_TRACE naming
 * the file and line of a malformed row, of a row further out of order than
 * the reorder window, of a duration of 292 years or more, or of a time
 * that does not fit in simulated time.
 *
 * Returns: (transfer full) (nullable): the reader.
 */
SimWorkload *sim_workload_new_philly (const char *path, const SimPhillyConfig *config,
                                      GError **error);

/**
 * sim_workload_philly_skipped:
 *
 * Returns: jobs skipped so far (Philly only, else 0).
 */
guint64 sim_workload_philly_skipped (const SimWorkload *workload);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimWorkload, sim_workload_free)

G_END_DECLS

/* sim-trace-formats.h: more job-log readers, format detection, and the
 * trace statistics behind `gpusim trace info`.
 *
 * Three formats, streamed through the same table reader and reorder
 * window as the Helios and Slurm readers (sim-traces.h: #SimTraceConfig,
 * errors "file:line:column: field: what was expected"):
 *
 * - Alibaba PAI 2020 (Weng et al., "MLaaS in the Wild: Workload Analysis
 *   and Scheduling in Large-Scale Heterogeneous GPU Clusters", NSDI'22):
 *   the job table joined with the task table by job_name.
 * - Gavel's job traces (Narayanan et al., "Heterogeneity-Aware Cluster
 *   Scheduling Policies for Deep Learning Workloads", OSDI'20), 7 or 10
 *   TAB-separated fields, work in training steps.
 * - gpusim's own job CSV ("native"), which `gpusim trace convert` writes
 *   and every field of #SimJobSpec a trace can give round-trips through.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib.h>
#include "workload/sim-workload.h"
#include "workload/sim-traces.h"
#include "workload/sim-scaling.h"

G_BEGIN_DECLS

/**
 * SimPaiTasks:
 * @SIM_PAI_TASKS_SUM: a job takes the GPUs of all its tasks' instances
 *   together (the default: a PAI job is tasks of several instances, such
 *   as parameter servers and workers, that run together, and gang
 *   scheduling is among the requirements Weng et al., NSDI'22, report)
 * @SIM_PAI_TASKS_LARGEST: a job takes the GPUs of its largest task only
 *
 * How the tasks of a PAI job become the GPUs of one gpusim job.
 */
typedef enum {
  SIM_PAI_TASKS_SUM,
  SIM_PAI_TASKS_LARGEST,
} SimPaiTasks;

/**
 * sim_pai_gpu_type_to_catalogue:
 * @gpu_type: a PAI gpu_type ("P100", "T4", "V100", "V100M32", "MISC", ...)
 *
 * The catalogue GPU model a PAI gpu_type names: P100 -> P100, T4 -> T4,
 * V100 -> V100-16GB (PAI's V100 are the 16 GB cards; the 32 GB ones are
 * V100M32), V100M32 -> V100-32GB.  MISC (PAI's other, undisclosed types),
 * an empty type and any other name give %NULL: no constraint.  Compared
 * without regard to case.
 *
 * Returns: (nullable): an interned catalogue name, or %NULL.
 */
const char *sim_pai_gpu_type_to_catalogue (const char *gpu_type);

/**
 * sim_workload_new_pai: (skip)
 * @job_path: a `pai_job_table.csv`
 * @task_path: its `pai_task_table.csv`
 * @config: how to read them (copied)
 * @tasks: how a job's tasks become its GPUs
 * @error: return location for a #GError
 *
 * Streams an Alibaba PAI 2020 job table, joined with its task table by
 * job_name.  The published tables have no header line: columns are in
 * the order of their `.header` files (job table: job_name, inst_id, user,
 * status, start_time, end_time; task table: job_name, task_name,
 * inst_num, status, start_time, end_time, plan_cpu, plan_mem, plan_gpu,
 * gpu_type).  A first line with a field "job_name" is a header, and its
 * column names are used instead (in any order; other columns ignored).  Times are seconds (decimal numbers).
 *
 * The task table is read first and aggregated per job (a hash table of
 * about 150 bytes per job that has tasks); the job table is then streamed
 * through the reorder window.  For each job:
 *
 * - @submit: the job's start_time (its submission, in PAI's schema).
 * - @duration: from its tasks' earliest start_time to their latest
 *   end_time (the time its gang ran); a job whose tasks never ran (times
 *   of 0 or empty) has no run time.
 * - GPUs: the sum over its tasks of inst_num x plan_gpu (percent of a
 *   GPU), or with %SIM_PAI_TASKS_LARGEST the largest task's.  Below 100
 *   the job takes a fraction of one GPU (@gpu_milli = percent x 10: 50 is
 *   half a GPU); from 100 up, whole GPUs, rounded up (250 -> 3).
 * - @cpu_milli and @memory_bytes: the same sum (or largest task) of
 *   inst_num x plan_cpu (percent of a core) and inst_num x plan_mem (GB).
 * - @gpu_models: the catalogue models of its GPU tasks' gpu_type
 *   (sim_pai_gpu_type_to_catalogue()), several joined with '|'; none if
 *   any GPU task has no known type.
 * - @user and @tenant: the user, numbered by first appearance (PAI has no
 *   virtual clusters: users are the tenants); @job_class 0, "pai".
 * - @status: Terminated 1, Failed 0, Interrupted or Canceled 5 (stopped
 *   before it ended), -1 otherwise (Running, Waiting, ...).
 *
 * Jobs without GPUs (CPU jobs, or no task in the task table) are skipped
 * and counted, whatever @config says.  Jobs that did not finish (Running,
 * Waiting) or have no run time are invalid: skipped and counted if
 * @config's skip_invalid, else an error.  Failed and cancelled jobs are
 * replayed for the time they ran, like the other readers.
 *
 * Errors: SIM_ERROR_IO if a file cannot be opened; SIM_ERROR_TRACE naming
 * the file, line, column and field of a malformed task row (from here)
 * or job row (from sim_workload_next()).
 *
 * Returns: (transfer full) (nullable): the reader.
 */
SimWorkload *sim_workload_new_pai (const char *job_path, const char *task_path,
                                   const SimTraceConfig *config, SimPaiTasks tasks,
                                   GError **error);

/**
 * SimGavelRate:
 * @job_type: a Gavel job_type ("ResNet-18 (batch size 32)")
 * @steps_per_second: its throughput on one reference GPU, in training
 *   steps per second (> 0)
 * @scaling: (nullable): its speed-up on several GPUs against one (a job
 *   on N GPUs makes S(N) x @steps_per_second steps per second); %NULL for
 *   linear
 *
 * One entry of the throughput table that turns a Gavel job's steps into
 * time.
 */
typedef struct {
  const char       *job_type;
  double            steps_per_second;
  const SimScaling *scaling;
} SimGavelRate;

/**
 * sim_workload_new_gavel: (skip)
 * @path: a Gavel job trace (TAB-separated, no header)
 * @config: how to read it (copied)
 * @rates: (array length=n_rates): steps per second of each job type on one
 *   GPU of the reference model
 * @n_rates: entries in @rates
 * @error: return location for a #GError
 *
 * Streams a Gavel job trace.  Its layout is told by the first row's field
 * count: 7 fields (job_type, command, num_steps_arg, needs_data_dir,
 * total_steps, arrival_time, scale_factor) or 10 (job_type, command,
 * working_directory, num_steps_arg, needs_data_dir, total_steps,
 * scale_factor, priority_weight, SLO, arrival_time).  For each job:
 *
 * - @submit: arrival_time (seconds, a decimal number, kept to the
 *   nanosecond).
 * - @gpus: scale_factor, whole GPUs.
 * - @duration: total_steps / (rate x S(scale_factor)), the rate being
 *   @rates' entry for its job_type and S its speed-up curve (linear
 *   without one: S(N) = N).  Gavel's own tables measure each scale
 *   factor: give the scale-1 throughput as the rate, and the others as
 *   the curve's points (speed-up = throughput on N / throughput on 1).
 * - @job_class: its job_type, numbered in the order of @rates (class
 *   names are the job types), so that a scenario's per-class throughput
 *   on other GPU models applies (sim-scaling.h).
 * - @priority: priority_weight rounded (10-field layout; 0 otherwise).
 * - @requested 0, @user -1, @status -1, @tenant 0.
 *
 * A job type missing from @rates is an error naming the row and the type
 * ("no throughput for job type ..."), never a guessed speed.  Rows with a
 * scale_factor of 0 or total_steps of 0 are skipped and counted (Gavel's
 * own reader skips them).
 *
 * Returns: (transfer full) (nullable): the reader.
 */
SimWorkload *sim_workload_new_gavel (const char *path, const SimTraceConfig *config,
                                     const SimGavelRate *rates, guint n_rates, GError **error);

/**
 * sim_workload_new_native: (skip)
 * @path: a gpusim job CSV
 * @config: how to read it (copied)
 * @error: return location for a #GError
 *
 * Streams gpusim's own job format: a CSV (RFC 4180 quoting) with a header
 * line naming its columns, in any order, in fixed SI units:
 *
 * | column | unit, meaning | if absent |
 * |---|---|---|
 * | id | job number, integer | the row number |
 * | submit | seconds (decimal, to the ns) | required |
 * | duration | seconds on the reference GPU | required |
 * | gpus | GPUs, integer (1 for a MIG job) | required |
 * | gpu_milli | thousandths of each GPU, 1..1000 | 1000 |
 * | gpu_model | allowed models, '\|'-separated; empty: any | any |
 * | tenant | tenant number | 0 |
 * | priority | integer, larger first | 0 |
 * | class | job class name; empty: "default" | "default" |
 * | requested | seconds; 0 unknown | 0 |
 * | cpu_milli | thousandths of a core | 0 |
 * | memory | bytes | 0 |
 * | mig | MIG profile ("1g.10gb"); empty: none | none |
 * | user | user number, -1 unknown | -1 |
 * | status | SWF status code, -1 unknown | -1 |
 *
 * Classes are numbered in order of first appearance.  Every job is
 * simulated as written: a row with no GPUs or no run time is an error
 * (or skipped and counted with skip_invalid).
 *
 * Returns: (transfer full) (nullable): the reader.
 */
SimWorkload *sim_workload_new_native (const char *path, const SimTraceConfig *config,
                                      GError **error);

/**
 * SimTraceFormat:
 * @SIM_TRACE_FORMAT_UNKNOWN: not recognised
 * @SIM_TRACE_FORMAT_SWF: Standard Workload Format
 * @SIM_TRACE_FORMAT_PHILLY: the Philly job list
 * @SIM_TRACE_FORMAT_HELIOS: Helios cluster_log.csv
 * @SIM_TRACE_FORMAT_SLURM: sacct --parsable2
 * @SIM_TRACE_FORMAT_OPENB: an openb pod list
 * @SIM_TRACE_FORMAT_PAI: a PAI 2020 job table
 * @SIM_TRACE_FORMAT_GAVEL: a Gavel job trace
 * @SIM_TRACE_FORMAT_NATIVE: gpusim's job CSV
 *
 * Job-log formats.
 */
typedef enum {
  SIM_TRACE_FORMAT_UNKNOWN,
  SIM_TRACE_FORMAT_SWF,
  SIM_TRACE_FORMAT_PHILLY,
  SIM_TRACE_FORMAT_HELIOS,
  SIM_TRACE_FORMAT_SLURM,
  SIM_TRACE_FORMAT_OPENB,
  SIM_TRACE_FORMAT_PAI,
  SIM_TRACE_FORMAT_GAVEL,
  SIM_TRACE_FORMAT_NATIVE,
} SimTraceFormat;

/**
 * sim_trace_format_from_name:
 * @name: "swf", "philly", "helios", "slurm", "openb", "pai", "gavel" or
 *   "native"
 *
 * Returns: the format, or %SIM_TRACE_FORMAT_UNKNOWN.
 */
SimTraceFormat sim_trace_format_from_name (const char *name);

/**
 * sim_trace_format_get_name:
 * @format: a format
 *
 * Returns: its name ("unknown" for %SIM_TRACE_FORMAT_UNKNOWN).
 */
const char *sim_trace_format_get_name (SimTraceFormat format);

/**
 * sim_trace_detect_format:
 * @path: a trace file
 * @error: return location for a #GError
 *
 * Tells a trace's format from its first line that is not blank: a header
 * naming the columns of gpusim's CSV (submit, duration, gpus), Philly's
 * (timestamp,duration,num_gpus,...), Helios' (submit_time, gpu_num),
 * openb's (creation_time, num_gpu), Slurm's ('|' with Submit) or PAI's
 * job table (job_name,inst_id,...); SWF comments (';') or 18 blank-
 * separated integers; TAB-separated rows of 7 or 10 fields (Gavel); else
 * the extension (.swf, .trace).  A PAI job table without a header is
 * recognised by its six fields with a status word among PAI's.
 *
 * Errors: SIM_ERROR_IO if the file cannot be read; SIM_ERROR_TRACE if
 * nothing matches (saying what was seen).
 *
 * Returns: the format, or %SIM_TRACE_FORMAT_UNKNOWN with @error set.
 */
SimTraceFormat sim_trace_detect_format (const char *path, GError **error);

/**
 * SimTraceStats:
 * @jobs: jobs the reader gave
 * @skipped: rows it skipped (no GPUs, not finished, ...)
 * @first_submit: the earliest submit time (as the reader gives it)
 * @last_submit: the latest
 * @gpu_hours: sum of GPUs x (@gpu_milli / 1000) x duration, in hours
 * @gpus_hist: jobs by GPUs asked for: [0] 1 GPU or less, [1] 2, [2] 3-4,
 *   [3] 5-8, [4] 9-16, [5] 17-32, [6] 33-64, [7] more than 64
 * @arrivals_by_hour: jobs by hour of day of their submit time (UTC of the
 *   reader's clock: the log's calendar when rebase_time is off)
 * @rows_out_of_order: rows submitted before an earlier row of the file
 * @window_needed: the smallest reorder window that replays the file: the
 *   most rows any row lies behind its place in submit order
 *
 * What `gpusim trace info` prints.
 */
typedef struct {
  guint64 jobs;
  guint64 skipped;
  SimTime first_submit;
  SimTime last_submit;
  double  gpu_hours;
  guint64 gpus_hist[8];
  guint64 arrivals_by_hour[24];
  guint64 rows_out_of_order;
  guint64 window_needed;
} SimTraceStats;

/**
 * sim_trace_open: (skip)
 * @format: the trace's format (not %SIM_TRACE_FORMAT_UNKNOWN)
 * @path: the trace
 * @config: how to read it
 * @aux_path: (nullable): the PAI task table (required for PAI)
 * @rates: (nullable) (array length=n_rates): Gavel's job-type rates
 * @n_rates: entries in @rates
 * @error: return location for a #GError
 *
 * Opens a trace of any format with one #SimTraceConfig (SWF: one
 * processor per GPU; openb and PAI: as their readers say).
 *
 * Returns: (transfer full) (nullable): the reader.
 */
SimWorkload *sim_trace_open (SimTraceFormat format, const char *path,
                             const SimTraceConfig *config, const char *aux_path,
                             const SimGavelRate *rates, guint n_rates, GError **error);

/**
 * sim_trace_stats_compute:
 * @format: the trace's format
 * @path: the trace
 * @config: how to read it (its reorder_window is ignored: the whole file
 *   is sorted, so that the order of the rows can be measured)
 * @aux_path: (nullable): as sim_trace_open()
 * @rates: (nullable) (array length=n_rates): as sim_trace_open()
 * @n_rates: entries in @rates
 * @stats: (out caller-allocates): the statistics
 * @error: return location for a #GError
 *
 * Reads the whole trace once.  Memory: the reorder window's sort, bounded
 * (sim-traces.h), plus 16 bytes per job for the order measurement.  A
 * trace without jobs (a header alone, or every row skipped) is an error
 * (SIM_ERROR_TRACE), as it is in a run.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_trace_stats_compute (SimTraceFormat format, const char *path,
                                  const SimTraceConfig *config, const char *aux_path,
                                  const SimGavelRate *rates, guint n_rates,
                                  SimTraceStats *stats, GError **error);

/**
 * sim_trace_write_native: (skip)
 * @workload: a workload (read to its end)
 * @path: the CSV to write (replaced when complete, through a temporary
 *   file beside it)
 * @jobs: (out) (optional): jobs written
 * @error: return location for a #GError
 *
 * Writes every job of @workload as gpusim's job CSV
 * (sim_workload_new_native()), fields quoted as RFC 4180 asks.  Times are
 * written in seconds with nine decimals, so that the CSV read back gives
 * the same jobs to the nanosecond.  A workload without jobs is an error
 * (SIM_ERROR_TRACE), and nothing is written.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_trace_write_native (SimWorkload *workload, const char *path, guint64 *jobs,
                                 GError **error);

G_END_DECLS

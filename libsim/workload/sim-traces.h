/* sim-traces.h: readers of GPU-cluster job logs with a header line.
 *
 * Two formats, both streamed one row at a time like the other trace
 * readers, so that memory does not depend on the length of the log:
 *
 * - Helios (SenseTime's four clusters, Hu et al., "Characterization and
 *   Prediction of Deep Learning Workloads in Large-Scale GPU Datacenters",
 *   SC'21): `cluster_log.csv`.
 * - Slurm accounting: the output of
 *   `sacct --parsable2 --allocations --format=JobID,JobName,User,Account,
 *   Partition,Submit,Start,End,Elapsed,State,AllocTRES,ReqTRES,NNodes,
 *   NodeList,Timelimit`.
 *
 * In both, columns are found by name in the header (without regard to
 * ASCII case), in any order; columns the reader does not use are ignored,
 * and a missing column it needs is an error naming every one that is
 * missing.  Every row must have as many fields as the header.  Date-times
 * are naive calendar times: they are converted as written, as if in UTC,
 * without the machine's time zone.  Rows pass through a reorder window
 * (#SimTraceConfig), which releases them in order of submission time, as
 * the simulation consumes them.  Files compressed with gzip are read as they
 * are.
 *
 * Times are never saturated or wrapped around, since either would replay a
 * job at a wrong time without a word: a run time or time limit of 292
 * years or more (what 64-bit nanoseconds hold, e.g. a Slurm Elapsed of
 * "99999999-00:00:00"), a submit time more than 292 years from its origin
 * (after 2262-04-11 without rebase_time), and a job whose run time or time
 * limit would end past the end of simulated time are refused, naming the
 * file, line and field.
 *
 * Errors are SIM_ERROR_TRACE (SIM_ERROR_IO if the file cannot be read) and
 * name the file and line, and for a bad field its column (1-based, in
 * characters) and the column's name:
 * "cluster_log.csv:12:31: gpu_num: "x" is not an integer".
 *
 * Job numbers are the row numbers (1 for the first row after the header,
 * blank lines not counted), since neither log has integer job numbers that
 * are unique (Helios uses hashes, Slurm arrays "123_4").  Users are
 * numbered from 0 in order of first appearance.  Job states map to the
 * status codes of the Standard Workload Format: 1 COMPLETED; 0 for a job
 * that ended abnormally (FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY,
 * BOOT_FAIL, DEADLINE); 5 CANCELLED (with or without " by <uid>"); -1
 * otherwise.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib.h>
#include "workload/sim-workload.h"

G_BEGIN_DECLS

/**
 * SimTraceConfig:
 * @max_jobs: stop after this many jobs; 0 for all
 * @skip_invalid: skip jobs that cannot be simulated (no GPUs, no run time,
 *   not finished), counted in sim_workload_trace_skipped(), instead of
 *   failing
 * @rebase_time: count submit times from the first job's; otherwise from
 *   1970-01-01 00:00:00 of the log's calendar
 * @reorder_window: rows held to put the log in order of submission (see
 *   below); 0 reads it strictly in order
 *
 * How to read a job log.
 *
 * Rows pass through a reorder window: they wait keyed by (submit time,
 * line) and the earliest is released once more than @reorder_window rows
 * wait, or the log has ended, so a log whose rows are
 * at most @reorder_window places from their sorted position replays in
 * order of submission, rows submitted at the same second in the order of
 * the file.  A row that comes after a later row was released is an error
 * naming its line and the key to raise.  Memory: 104 bytes per row of the
 * window for rows that come in order, 132 for rows out of order (at most
 * 23.6 MB at %SIM_TRACE_WINDOW_ROWS_DEFAULT, 10.4 MB for a sorted log);
 * %SIM_TRACE_REORDER_SORT sorts the whole log through a temporary file
 * instead.  With @max_jobs, the jobs are the earliest submitted
 * among the rows read (up to @reorder_window rows ahead).
 */
typedef struct {
  guint64  max_jobs;
  gboolean skip_invalid;
  gboolean rebase_time;
  guint64  reorder_window;
} SimTraceConfig;

/**
 * SIM_TRACE_WINDOW_ROWS_DEFAULT:
 *
 * The reorder window of a scenario without [workload] reorder_window, in
 * rows: enough for the published Philly list (82,247 jobs in no
 * particular order, which needs 80,256).
 */
#define SIM_TRACE_WINDOW_ROWS_DEFAULT 100000

/**
 * SIM_TRACE_REORDER_SORT:
 *
 * A reorder window that sorts the whole trace ([workload] reorder_window =
 * sort): through a temporary file, in bounded memory (6.8 MB of rows
 * sorted at a time, then 26 KB per 65,536 rows of the trace), whatever the
 * order of the rows.
 */
#define SIM_TRACE_REORDER_SORT G_MAXUINT64

/**
 * SIM_TRACE_WINDOW_ROWS_MAX:
 *
 * The largest reorder window a scenario may ask for, in rows.
 */
#define SIM_TRACE_WINDOW_ROWS_MAX 100000000

/**
 * sim_workload_new_helios: (skip)
 * @path: a Helios `cluster_log.csv`
 * @config: how to read it (copied)
 * @error: return location for a #GError
 *
 * Streams a Helios job log.  The columns used are submit_time
 * ("YYYY-MM-DD HH:MM:SS"), duration (run time in seconds, a decimal
 * number), gpu_num, user, vc and state; job_id, jobname, cpu_num,
 * node_num, start_time, end_time, queue and any others are ignored.
 * Fields may be quoted as in RFC 4180 (on one line).
 *
 * Each job gets @gpus = gpu_num whole GPUs, @duration, @submit, @user
 * (by first appearance), @status; its virtual cluster (vc) becomes both its
 * tenant and its job class (class names are the vc names), numbered by
 * first appearance.  @requested is 0 (the log has no time limits).  Jobs
 * with no GPUs (CPU jobs) or a duration that is not positive are invalid:
 * skipped and counted if @config's skip_invalid, else an error naming
 * the file, line and column.
 *
 * Errors: SIM_ERROR_IO if the file cannot be opened; SIM_ERROR_TRACE for
 * an empty file or a header that lacks a needed column (naming them); later,
 * from sim_workload_next(), SIM_ERROR_TRACE naming the file and line of a
 * malformed row, of a row further out of order than the reorder window, or
 * of a time that does not fit in simulated time.
 *
 * Time complexity: O(1) per row, plus a hash look-up of its user and vc;
 * O(log w) for a row that waits out of order in a window of w rows.
 *
 * Returns: (transfer full) (nullable): the reader.
 */
SimWorkload *sim_workload_new_helios (const char *path, const SimTraceConfig *config,
                                      GError **error);

/**
 * sim_workload_new_slurm: (skip)
 * @path: the output of `sacct --parsable2 --allocations --format=...`
 *   (see above), with its header line
 * @config: how to read it (copied)
 * @error: return location for a #GError
 *
 * Streams a Slurm accounting log.  Fields are separated by '|' (a job
 * name that holds '|' breaks its row: pick another delimiter, or leave
 * JobName out of --format).  Output of `--parsable`, whose lines end with
 * a '|', reads the same.  The columns used are:
 *
 * - Submit ("YYYY-MM-DDTHH:MM:SS"), required.  sacct orders jobs by job
 *   number, not by submission: the reorder window puts them in order (or
 *   sort the file by Submit first: for the --format above,
 *   `sort -t'|' -k6,6` after setting the header aside).
 * - Elapsed, the run time, or else Start and End (their difference).
 *   Durations take Slurm's forms: "[D-]HH:MM:SS", "MM:SS", "D-HH",
 *   "D-HH:MM" or "MM".
 * - AllocTRES, or ReqTRES where AllocTRES is empty (a job that never
 *   started); at least one of the two columns is required.  GPUs come from
 *   its gres/gpu entries: "gres/gpu=8", or typed, "gres/gpu:h100=8".  An
 *   untyped entry is the job's total (Slurm lists it beside the typed
 *   ones); without one, the typed entries are summed
 *   ("gres/gpu:a100=4,gres/gpu:h100=2" is 6 GPUs).  Other entries (cpu=,
 *   mem=, billing=, node=, gres/gpumem=...) are ignored.
 * - State, required: the status code, and whether the job finished.
 * - User (the user number) and Account (the tenant), required, numbered by
 *   first appearance; an empty Account is a tenant of its own.
 * - Timelimit, optional: @requested, in the duration forms above;
 *   "UNLIMITED", "Partition_Limit" or empty give 0 (unknown).
 *
 * A typed GPU entry also restricts the job to GPU models of the
 * catalogue, as follows (type names are compared without regard to
 * case; an unknown type leaves @gpu_models %NULL, any model):
 *
 * - h100, h100-sxm: H100-SXM
 * - h200: H200-SXM
 * - a100, a100-80gb, a100_80g: A100-SXM-80GB
 * - a100-40gb, a100_40g: A100-SXM-40GB
 * - v100: either V100 ("V100-16GB|V100-32GB")
 * - v100-16gb, v100_16g: V100-16GB; v100-32gb, v100_32g: V100-32GB
 * - b200, gh200, a10, t4, p100, mi250x, mi300x: the same name in upper case
 *
 * A job whose entries name several types may run on any of their models.
 *
 * Jobs without GPUs are skipped and counted, whatever @config says: they
 * are not GPU jobs.  Jobs that did not finish (State RUNNING, PENDING,
 * REQUEUED, SUSPENDED, or no End) or whose run time is 0 are invalid:
 * skipped and counted if @config's skip_invalid, else an error.  All jobs
 * are in job class 0, named "slurm".
 *
 * Errors: as sim_workload_new_helios(); an Elapsed or Timelimit of 292
 * years or more is refused at its field; a row further out of order than
 * the reorder window is refused with its line and the key to raise.
 *
 * Time complexity: O(1) per row plus its TRES entries, and hash look-ups;
 * O(log w) for a row that waits out of order in a window of w rows.
 *
 * Returns: (transfer full) (nullable): the reader.
 */
SimWorkload *sim_workload_new_slurm (const char *path, const SimTraceConfig *config,
                                     GError **error);

/**
 * sim_workload_trace_skipped:
 * @workload: a workload
 *
 * Returns: jobs skipped so far by a Helios or Slurm reader (0 for other
 *   sources).
 */
guint64 sim_workload_trace_skipped (const SimWorkload *workload);

G_END_DECLS

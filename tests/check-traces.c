/* check-traces.c: the Helios and Slurm job-log readers.
 *
 * What it checks:
 *  - exact values of the first jobs of tests/data/helios-sample.csv and
 *    tests/data/slurm-sample.txt (written out below from the files), the
 *    number of jobs and of skipped rows, max_jobs, and rebase_time off;
 *  - columns found by name in another order, with extra columns, and a
 *    header that lacks needed columns;
 *  - malformed files written here, refused with the exact
 *    "file:line[:column]: " of the fault;
 *  - GPUs and GPU models from Slurm TRES lists, and Slurm's duration forms.
 * What it does not check: that the sample files resemble any real cluster
 * (they are made for these tests), nor how fast the readers are.
 */
#include "config.h"

#include <check.h>
#include <string.h>
#include <glib/gstdio.h>

#include "core/sim-error.h"
#include "core/sim-units.h"
#include "workload/sim-workload.h"
#include "workload/sim-traces.h"
#include "workload/sim-trace-util.h"
#include "workload/sim-variation.h"
#include "scenario/sim-scenario.h"

#define HELIOS SIM_TEST_DATADIR "/helios-sample.csv"
#define SLURM SIM_TEST_DATADIR "/slurm-sample.txt"

static char *tmpdir;

/* Writes @text to @name in the temporary directory; returns the path. */
static char *
write_file (const char *name, const char *text)
{
  char *path = g_build_filename (tmpdir, name, NULL);

  ck_assert (g_file_set_contents (path, text, -1, NULL));
  return path;
}

/* Reads every job; returns their number, or G_MAXUINT64 with @error set. */
static guint64
drain (SimWorkload *w, GError **error)
{
  SimJobSpec j;
  guint64 n = 0;

  while (sim_workload_next (w, &j, error))
    n++;
  return error != NULL && *error != NULL ? G_MAXUINT64 : n;
}

/* The error the first sim_workload_next() that fails sets, opening @path
 * with @open. */
typedef SimWorkload *(*OpenFunc) (const char *, const SimTraceConfig *, GError **);

static GError *
first_error (OpenFunc open, const char *path, gboolean skip_invalid)
{
  SimTraceConfig cfg = { 0, skip_invalid, TRUE, 0 };
  GError *error = NULL;
  g_autoptr (SimWorkload) w = open (path, &cfg, &error);

  if (w != NULL)
    drain (w, &error);
  ck_assert_msg (error != NULL, "%s was read without an error", path);
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_TRACE));
  return error;
}

#define assert_has(error, needle)                                                        \
  ck_assert_msg (strstr ((error)->message, (needle)) != NULL, "\"%s\" lacks \"%s\"",      \
                 (error)->message, (needle))

/* ------------------------------------------------------------------------- */
/* Helios.                                                                   */

/* The first rows of tests/data/helios-sample.csv (job_id, user, vc,
 * jobname, gpu_num, cpu_num, node_num, state, submit_time, start_time,
 * end_time, duration, queue):
 *   2 b6589fc6ab,uYZ7pnW,vcEwI,bert_ft,8,32,1,COMPLETED,2020-04-01 00:00:07,...,7261,12
 *   3 356a192b79,u7hdc2B,vc6YE,resnet50,1,4,1,FAILED,2020-04-01 00:00:48,...,59,0
 *   4 da4b9237ba,uYZ7pnW,vc6YE,detr,0,2,1,COMPLETED,2020-04-01 00:00:48,...,420,0   CPU job
 *   5 77de68daec,uq2XmfL,vcEwI,swin_b,16,64,2,CANCELLED,2020-04-01 00:01:55,...,1800,3600
 *   6 1b64538924,u7hdc2B,vcKrW,gpt_pre,2,8,1,TIMEOUT,2020-04-01 00:07:00,...,0,2     no run time
 *   7 ac3478d69a,uYZ7pnW,vc6YE,eval,8,32,1,COMPLETED,2020-04-01 00:09:43,...,35020,480
 *   8 c1dfd96eea,u3eR5tv,vcEwI,"mmdet,r50",2,8,1,CANCELLED,2020-04-01 00:09:46,...,7261,3600
 * Submit times count from the first row (0, 41, 108, 576, 579 s); users
 * and virtual clusters are numbered by first appearance.  Of the 32 rows,
 * 3 are CPU jobs and 1 has no run time. */
START_TEST (test_helios_first_jobs)
{
  g_autoptr (GError) error = NULL;
  SimTraceConfig cfg = { 0, TRUE, TRUE, 0 };
  g_autoptr (SimWorkload) w = sim_workload_new_helios (HELIOS, &cfg, &error);
  SimJobSpec j;

  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  ck_assert (sim_workload_next (w, &j, &error));
  ck_assert_uint_eq (j.id, 1);
  ck_assert_int_eq (j.submit, 0);
  ck_assert_int_eq (j.duration, 7261 * SIM_SECOND);
  ck_assert_int_eq (j.requested, 0);
  ck_assert_uint_eq (j.gpus, 8);
  ck_assert_uint_eq (j.gpu_milli, 1000);
  ck_assert_int_eq (j.user, 0);
  ck_assert_uint_eq (j.tenant, 0);
  ck_assert_uint_eq (j.job_class, 0);
  ck_assert_int_eq (j.status, 1);
  ck_assert_ptr_null (j.gpu_models);

  ck_assert (sim_workload_next (w, &j, &error));
  ck_assert_uint_eq (j.id, 2);
  ck_assert_int_eq (j.submit, 41 * SIM_SECOND);
  ck_assert_int_eq (j.duration, 59 * SIM_SECOND);
  ck_assert_uint_eq (j.gpus, 1);
  ck_assert_int_eq (j.user, 1);
  ck_assert_uint_eq (j.tenant, 1);
  ck_assert_uint_eq (j.job_class, 1);
  ck_assert_int_eq (j.status, 0);

  ck_assert (sim_workload_next (w, &j, &error));
  ck_assert_uint_eq (j.id, 4);
  ck_assert_int_eq (j.submit, 108 * SIM_SECOND);
  ck_assert_int_eq (j.duration, 1800 * SIM_SECOND);
  ck_assert_uint_eq (j.gpus, 16);
  ck_assert_int_eq (j.user, 2);
  ck_assert_uint_eq (j.tenant, 0);
  ck_assert_int_eq (j.status, 5);
  ck_assert_uint_eq (sim_workload_trace_skipped (w), 1);

  ck_assert (sim_workload_next (w, &j, &error));
  ck_assert_uint_eq (j.id, 6);
  ck_assert_int_eq (j.submit, 576 * SIM_SECOND);
  ck_assert_int_eq (j.duration, 35020 * SIM_SECOND);
  ck_assert_int_eq (j.user, 0);
  ck_assert_uint_eq (j.tenant, 1);
  ck_assert_uint_eq (sim_workload_trace_skipped (w), 2);

  /* A quoted job name with a comma in it. */
  ck_assert (sim_workload_next (w, &j, &error));
  ck_assert_uint_eq (j.id, 7);
  ck_assert_int_eq (j.submit, 579 * SIM_SECOND);
  ck_assert_uint_eq (j.gpus, 2);
  ck_assert_int_eq (j.user, 3);
  ck_assert_int_eq (j.status, 5);

  ck_assert_uint_eq (drain (w, &error) + 5, 28);
  ck_assert_uint_eq (sim_workload_trace_skipped (w), 4);
  ck_assert_uint_eq (sim_workload_get_n_classes (w), 4);
  ck_assert_str_eq (sim_workload_get_class_name (w, 0), "vcEwI");
  ck_assert_str_eq (sim_workload_get_class_name (w, 1), "vc6YE");
  /* vcKrW's first row was skipped: classes come from the jobs returned. */
  ck_assert_str_eq (sim_workload_get_class_name (w, 2), "vcHvQ");
  ck_assert_str_eq (sim_workload_get_class_name (w, 3), "vcKrW");
  ck_assert_str_eq (w->description, "helios:" HELIOS);
}
END_TEST

/* max_jobs stops the stream; without rebase_time, times count from
 * 1970-01-01 00:00:00 (2020-04-01 00:00:07 is 1585699207 s). */
START_TEST (test_helios_limits)
{
  g_autoptr (GError) error = NULL;
  SimTraceConfig cfg = { 3, TRUE, FALSE, 0 };
  g_autoptr (SimWorkload) w = sim_workload_new_helios (HELIOS, &cfg, &error);
  SimJobSpec j;

  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  ck_assert (sim_workload_next (w, &j, &error));
  ck_assert_int_eq (j.submit, G_GINT64_CONSTANT (1585699207) * SIM_SECOND);
  ck_assert_uint_eq (drain (w, &error), 2);
  ck_assert (!sim_workload_next (w, &j, &error));
  ck_assert_ptr_null (error);
}
END_TEST

/* Without skip_invalid, the CPU job on line 4 is refused at its gpu_num
 * (column 31). */
START_TEST (test_helios_strict)
{
  g_autoptr (GError) error = first_error (sim_workload_new_helios, HELIOS, FALSE);

  assert_has (error, "helios-sample.csv:4:31: gpu_num: a job without GPUs");
}
END_TEST

/* Columns in another order, an extra column, unused ones left out, names
 * in another case. */
START_TEST (test_helios_columns)
{
  g_autofree char *path = write_file ("reordered.csv",
                                      "State,duration,site,submit_time,vc,gpu_num,user\n"
                                      "COMPLETED,60.5,sh,2020-05-01 10:00:00,vcA,4,alice\n"
                                      "\n"
                                      "FAILED,30,sh,2020-05-01 10:00:10,vcB,2,\n");
  g_autoptr (GError) error = NULL;
  SimTraceConfig cfg = { 0, FALSE, TRUE, 0 };
  g_autoptr (SimWorkload) w = sim_workload_new_helios (path, &cfg, &error);
  SimJobSpec j;

  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  ck_assert (sim_workload_next (w, &j, &error));
  ck_assert_int_eq (j.submit, 0);
  ck_assert_int_eq (j.duration, 60500 * SIM_MILLISECOND);
  ck_assert_uint_eq (j.gpus, 4);
  ck_assert_int_eq (j.user, 0);
  ck_assert_int_eq (j.status, 1);
  ck_assert (sim_workload_next (w, &j, &error));
  ck_assert_uint_eq (j.id, 2);
  ck_assert_int_eq (j.submit, 10 * SIM_SECOND);
  ck_assert_uint_eq (j.tenant, 1);
  ck_assert_int_eq (j.user, -1); /* empty */
  ck_assert_int_eq (j.status, 0);
  ck_assert (!sim_workload_next (w, &j, &error));
  ck_assert_ptr_null (error);
}
END_TEST

START_TEST (test_helios_missing_columns)
{
  g_autofree char *path = write_file ("missing.csv", "job_id,user,gpu_num,state,submit_time\n");
  g_autoptr (GError) error = NULL;
  SimTraceConfig cfg = { 0, TRUE, TRUE, 0 };
  g_autoptr (SimWorkload) w = sim_workload_new_helios (path, &cfg, &error);

  ck_assert_ptr_null (w);
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_TRACE));
  assert_has (error, "missing.csv:1: the header has no columns vc, duration");
}
END_TEST

static const struct {
  const char *row;
  const char *needle;
} helios_bad[] = {
  { "j3,uA,vc1,c,1,4,1,COMPLETED,2020-04-01 00:06:00,60,0",
    "bad.csv:4: expected 13 fields as in the header, found 11" },
  { "j3,uA,vc1,c,1,4,1,COMPLETED,2019-02-29 00:06:00,2020-04-01 00:06:00,2020-04-01 00:07:00,60,0",
    "bad.csv:4:29: submit_time: \"2019-02-29 00:06:00\" is not a date-time" },
  { "j3,uA,vc1,c,1,4,1,COMPLETED,2020-04-01T00:06:00,2020-04-01 00:06:00,2020-04-01 00:07:00,60,0",
    "bad.csv:4:29: submit_time: \"2020-04-01T00:06:00\" is not a date-time" },
  { "j3,uA,vc1,c,1,4,1,COMPLETED,2020-04-01 00:06:00,2020-04-01 00:06:00,2020-04-01 00:07:00,12s,0",
    "bad.csv:4:89: duration: \"12s\" is not a number of seconds" },
  { "j3,uA,vc1,c,1,4,1,COMPLETED,2020-04-01 00:06:00,2020-04-01 00:06:00,2020-04-01 00:07:00,,0",
    "bad.csv:4:89: duration: \"\" is not a number of seconds" },
  { "j3,uA,vc1,c,x,4,1,COMPLETED,2020-04-01 00:06:00,2020-04-01 00:06:00,2020-04-01 00:07:00,60,0",
    "bad.csv:4:13: gpu_num: \"x\" is not a non-negative integer" },
  { "j3,uA,vc1,c,-1,4,1,COMPLETED,2020-04-01 00:06:00,2020-04-01 00:06:00,2020-04-01 00:07:00,60,0",
    "bad.csv:4:13: gpu_num: \"-1\" is not a non-negative integer" },
  { "j3,uA,,c,1,4,1,COMPLETED,2020-04-01 00:06:00,2020-04-01 00:06:00,2020-04-01 00:07:00,60,0",
    "bad.csv:4:7: vc: the field is empty" },
  /* The virtual cluster becomes the job's class in jobs.csv. */
  { "j3,uA,vc\xe9,c,1,4,1,COMPLETED,2020-04-01 00:06:00,2020-04-01 00:06:00,2020-04-01 00:07:00,60,0",
    "bad.csv:4:7: vc: byte 3 is not UTF-8 text" },
  { "j3,uA,vc1,c,1,4,1,COMPLETED,2020-04-01 00:04:59,2020-04-01 00:06:00,2020-04-01 00:07:00,60,0",
    "bad.csv:4:29: submit_time: submitted 1 s before the row of line 3, which the reorder "
    "window (0 rows) had already released" },
  { "j3,uA,vc1,\"c,d,1,4,1,COMPLETED,2020-04-01 00:06:00,2020-04-01 00:06:00,2020-04-01 00:07:00,60,0",
    "bad.csv:4: the quote opened at column 11 is not closed on this line" },
  { "j3,uA,vc1,\"c\"d,1,4,1,COMPLETED,2020-04-01 00:06:00,2020-04-01 00:06:00,2020-04-01 00:07:00,60,0",
    "bad.csv:4: unexpected text after the quoted field that starts at column 11" },
};

/* A malformed third row (line 4) is refused with its line and column. */
START_TEST (test_helios_malformed)
{
  g_autofree char *text = g_strdup_printf (
    "job_id,user,vc,jobname,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,"
    "duration,queue\n"
    "j1,uA,vc1,a,1,4,1,COMPLETED,2020-04-01 00:00:00,2020-04-01 00:00:00,2020-04-01 00:01:00,60,0\n"
    "j2,uB,vc2,b,2,8,1,FAILED,2020-04-01 00:05:00,2020-04-01 00:05:00,2020-04-01 00:06:00,60,0\n"
    "%s\n", helios_bad[_i].row);
  g_autofree char *path = write_file ("bad.csv", text);
  g_autoptr (GError) error = first_error (sim_workload_new_helios, path, FALSE);

  assert_has (error, helios_bad[_i].needle);
}
END_TEST

/* An empty file, and an error that is returned again by later calls. */
START_TEST (test_helios_empty_and_sticky)
{
  g_autofree char *empty = write_file ("empty.csv", "\n\n");
  g_autofree char *bad = write_file ("sticky.csv", "user,vc,gpu_num,state,submit_time,duration\n"
                                     "u,v,1,COMPLETED,2020-04-01 00:00:00,x\n"
                                     "u,v,1,COMPLETED,2020-04-01 00:00:00,60\n");
  SimTraceConfig cfg = { 0, TRUE, TRUE, 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) again = NULL;
  g_autoptr (SimWorkload) w = sim_workload_new_helios (empty, &cfg, &error);
  SimJobSpec j;

  ck_assert_ptr_null (w);
  assert_has (error, "empty.csv: the file is empty");
  g_clear_error (&error);
  w = sim_workload_new_helios (bad, &cfg, &error);
  ck_assert_ptr_nonnull (w);
  ck_assert (!sim_workload_next (w, &j, &error));
  ck_assert (!sim_workload_next (w, &j, &again));
  ck_assert_str_eq (error->message, again->message);
  assert_has (error, "sticky.csv:2:37: duration");
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Slurm.                                                                    */

/* The first rows of tests/data/slurm-sample.txt (JobID, JobName, User,
 * Account, Partition, Submit, Start, End, Elapsed, State, AllocTRES,
 * ReqTRES, NNodes, NodeList, Timelimit), in short:
 *   2 418230 alice nlp 2024-03-04T09:00:56 1-02:03:04 COMPLETED
 *       gres/gpu=8,gres/gpu:h100=8 ... 2-00:00:00
 *   3 418231 bmartin vision 2024-03-04T09:02:31 00:05:06 FAILED gres/gpu:a100=4 04:00:00
 *   4 418232 dkumar infra (cpu=4,mem=32G: no GPUs)
 *   5 418233 chen.w nlp 2024-03-04T09:04:11 01:30:00 CANCELLED by 1003
 *       gres/gpu=2,gres/gpu:h100=2 UNLIMITED
 *   6 418234 eva vision 2024-03-04T09:04:16 01:00:00 TIMEOUT gres/gpu=1 01:00:00
 * Of the 34 rows, 7 have no GPUs and 1 (the last, cancelled while
 * pending) has no run time. */
START_TEST (test_slurm_first_jobs)
{
  g_autoptr (GError) error = NULL;
  SimTraceConfig cfg = { 0, TRUE, TRUE, 0 };
  g_autoptr (SimWorkload) w = sim_workload_new_slurm (SLURM, &cfg, &error);
  SimJobSpec j;

  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  ck_assert (sim_workload_next (w, &j, &error));
  ck_assert_uint_eq (j.id, 1);
  ck_assert_int_eq (j.submit, 0);
  ck_assert_int_eq (j.duration, 93784 * SIM_SECOND);
  ck_assert_int_eq (j.requested, 2 * 86400 * SIM_SECOND);
  ck_assert_uint_eq (j.gpus, 8);
  ck_assert_uint_eq (j.gpu_milli, 1000);
  ck_assert_str_eq (j.gpu_models, "H100-SXM");
  ck_assert_int_eq (j.user, 0);
  ck_assert_uint_eq (j.tenant, 0);
  ck_assert_uint_eq (j.job_class, 0);
  ck_assert_int_eq (j.status, 1);

  ck_assert (sim_workload_next (w, &j, &error));
  ck_assert_uint_eq (j.id, 2);
  ck_assert_int_eq (j.submit, 95 * SIM_SECOND);
  ck_assert_int_eq (j.duration, 306 * SIM_SECOND);
  ck_assert_int_eq (j.requested, 4 * 3600 * SIM_SECOND);
  ck_assert_uint_eq (j.gpus, 4);
  ck_assert_str_eq (j.gpu_models, "A100-SXM-80GB");
  ck_assert_int_eq (j.user, 1);
  ck_assert_uint_eq (j.tenant, 1);
  ck_assert_int_eq (j.status, 0);

  ck_assert (sim_workload_next (w, &j, &error));
  ck_assert_uint_eq (j.id, 4);
  ck_assert_int_eq (j.submit, 195 * SIM_SECOND);
  ck_assert_int_eq (j.duration, 5400 * SIM_SECOND);
  ck_assert_int_eq (j.requested, 0);
  ck_assert_uint_eq (j.gpus, 2);
  ck_assert_str_eq (j.gpu_models, "H100-SXM");
  ck_assert_int_eq (j.user, 2);
  ck_assert_uint_eq (j.tenant, 0);
  ck_assert_int_eq (j.status, 5);
  ck_assert_uint_eq (sim_workload_trace_skipped (w), 1);

  ck_assert (sim_workload_next (w, &j, &error));
  ck_assert_uint_eq (j.id, 5);
  ck_assert_int_eq (j.requested, 3600 * SIM_SECOND);
  ck_assert_uint_eq (j.gpus, 1);
  ck_assert_ptr_null (j.gpu_models);
  ck_assert_int_eq (j.user, 3);
  ck_assert_uint_eq (j.tenant, 1);
  ck_assert_int_eq (j.status, 0);

  ck_assert_uint_eq (drain (w, &error) + 4, 26);
  ck_assert_uint_eq (sim_workload_trace_skipped (w), 8);
  ck_assert_uint_eq (sim_workload_get_n_classes (w), 1);
  ck_assert_str_eq (sim_workload_get_class_name (w, 0), "slurm");
}
END_TEST

/* Jobs without GPUs are skipped whatever skip_invalid says; the job that
 * never ran (line 35) is refused at its Elapsed (column 82). */
START_TEST (test_slurm_strict)
{
  g_autoptr (GError) error = first_error (sim_workload_new_slurm, SLURM, FALSE);

  assert_has (error, "slurm-sample.txt:35:82: Elapsed: a job without run time");
}
END_TEST

/* Start and End instead of Elapsed, columns in another order, no
 * Timelimit, and `sacct --parsable`'s '|' at the end of every line. */
START_TEST (test_slurm_columns)
{
  g_autofree char *path = write_file (
    "start-end.txt",
    "State|End|ReqTRES|Start|account|USER|Submit|NNodes|\n"
    "COMPLETED|2024-01-01T12:00:00|cpu=8,gres/gpu=2|2024-01-01T11:00:00|a|u|"
    "2024-01-01T10:00:00|1|\n"
    "RUNNING|Unknown|gres/gpu=1|2024-01-01T10:30:00|b|v|2024-01-01T10:30:00|1|\n"
    "CANCELLED|2024-01-01T10:40:00|gres/gpu=1|None|b|v|2024-01-01T10:40:00|1|\n"
    "COMPLETED|2024-01-01T11:00:00|gres/gpu=4|2024-01-01T10:50:00|b|v|2024-01-01T10:45:00|1|\n");
  g_autoptr (GError) error = NULL;
  SimTraceConfig cfg = { 0, TRUE, TRUE, 0 };
  g_autoptr (SimWorkload) w = sim_workload_new_slurm (path, &cfg, &error);
  SimJobSpec j;

  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  ck_assert (sim_workload_next (w, &j, &error));
  ck_assert_int_eq (j.duration, 3600 * SIM_SECOND);
  ck_assert_int_eq (j.requested, 0);
  ck_assert_uint_eq (j.gpus, 2);
  ck_assert (sim_workload_next (w, &j, &error));
  ck_assert_uint_eq (j.id, 4);
  ck_assert_int_eq (j.submit, 45 * 60 * SIM_SECOND);
  ck_assert_int_eq (j.duration, 600 * SIM_SECOND);
  ck_assert_uint_eq (j.gpus, 4);
  ck_assert_int_eq (j.user, 1);
  ck_assert_uint_eq (j.tenant, 1);
  ck_assert (!sim_workload_next (w, &j, &error));
  ck_assert_ptr_null (error);
  ck_assert_uint_eq (sim_workload_trace_skipped (w), 2);
}
END_TEST

static const struct {
  const char *header;
  const char *needle;
} slurm_headers[] = {
  { "JobID|User|Elapsed|State|AllocTRES", "h.txt:1: the header has no columns Submit, Account" },
  { "Submit|User|Account|State|AllocTRES|Start",
    "h.txt:1: the header has no column Elapsed, nor both Start and End" },
  { "Submit|User|Account|State|Elapsed", "h.txt:1: the header has no column AllocTRES or ReqTRES" },
  { "Submit|User|Account|State|Elapsed|AllocTRES|submit",
    "h.txt:1: column Submit appears twice in the header (columns 1 and 7)" },
};

START_TEST (test_slurm_missing_columns)
{
  g_autofree char *text = g_strconcat (slurm_headers[_i].header, "\n", NULL);
  g_autofree char *path = write_file ("h.txt", text);
  g_autoptr (GError) error = NULL;
  SimTraceConfig cfg = { 0, TRUE, TRUE, 0 };
  g_autoptr (SimWorkload) w = sim_workload_new_slurm (path, &cfg, &error);

  ck_assert_ptr_null (w);
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_TRACE));
  assert_has (error, slurm_headers[_i].needle);
}
END_TEST

static const struct {
  const char *row;
  const char *needle;
} slurm_bad[] = {
  { "3|alice|nlp|2024-03-04T09:02:00|01:00:00|COMPLETED|gres/gpu=1",
    "bad.txt:4: expected 8 fields as in the header, found 7" },
  { "3|alice|nlp|2024-03-04T09:02:00|01:00:00|COMPLETED|gres/gpu=1|1:00:00|x",
    "bad.txt:4: expected 8 fields as in the header, found 9" },
  { "3|alice|nlp|2024-03-04 09:02:00|01:00:00|COMPLETED|gres/gpu=1|02:00:00",
    "bad.txt:4:13: Submit: \"2024-03-04 09:02:00\" is not a date-time YYYY-MM-DDTHH:MM:SS" },
  { "3|alice|nlp|2024-02-30T09:02:00|01:00:00|COMPLETED|gres/gpu=1|02:00:00",
    "bad.txt:4:13: Submit: \"2024-02-30T09:02:00\" is not a date-time" },
  { "3|alice|nlp|Unknown|01:00:00|COMPLETED|gres/gpu=1|02:00:00",
    "bad.txt:4:13: Submit: \"Unknown\" is not a date-time" },
  { "3|alice|nlp|2024-03-04T09:02:00|1:2:3:4|COMPLETED|gres/gpu=1|02:00:00",
    "bad.txt:4:33: Elapsed: \"1:2:3:4\" is not a duration" },
  { "3|alice|nlp|2024-03-04T09:02:00|00:61|COMPLETED|gres/gpu=1|02:00:00",
    "bad.txt:4:33: Elapsed: \"00:61\" is not a duration" },
  { "3|alice|nlp|2024-03-04T09:02:00|1-24:00:00|COMPLETED|gres/gpu=1|02:00:00",
    "bad.txt:4:33: Elapsed: \"1-24:00:00\" is not a duration" },
  { "3|alice|nlp|2024-03-04T09:02:00||COMPLETED|gres/gpu=1|02:00:00",
    "bad.txt:4:33: Elapsed: \"\" is not a duration" },
  { "3|alice|nlp|2024-03-04T09:02:00|01:00:00|COMPLETED|gres/gpu=1|forever",
    "bad.txt:4:63: Timelimit: \"forever\" is not a duration" },
  { "3|alice|nlp|2024-03-04T09:02:00|01:00:00|COMPLETED|gres/gpu=lots|02:00:00",
    "bad.txt:4:52: AllocTRES: gres/gpu=\"lots\": expected a number of GPUs" },
  { "3|alice|nlp|2024-03-04T09:02:00|01:00:00|COMPLETED|cpu=4,gres/gpu|02:00:00",
    "bad.txt:4:52: AllocTRES: entry \"gres/gpu\" is not name=value" },
  { "3|alice|nlp|2024-03-04T09:02:00|01:00:00|COMPLETED|gres/gpu=2,gres/gpu:a100=4|02:00:00",
    "bad.txt:4:52: AllocTRES: typed gres/gpu entries add up to 4, more than gres/gpu=2" },
  { "3|alice|nlp|2024-03-04T08:59:00|01:00:00|COMPLETED|gres/gpu=1|02:00:00",
    "bad.txt:4:13: Submit: submitted 120 s before the row of line 3, which the reorder window "
    "(0 rows) had already released" },
  /* Durations too long for 64-bit nanoseconds are refused, not wrapped
   * around into a wrong run time. */
  { "3|alice|nlp|2024-03-04T09:02:00|99999999-00:00:00|COMPLETED|gres/gpu=1|02:00:00",
    "bad.txt:4:33: Elapsed: 8639999913600 s is more than the 292 years that simulated time "
    "holds" },
  { "3|alice|nlp|2024-03-04T09:02:00|01:00:00|COMPLETED|gres/gpu=1|99999999-00:00:00",
    "bad.txt:4:63: Timelimit: 8639999913600 s is more than the 292 years that simulated time "
    "holds" },
};

/* A malformed third row (line 4) is refused with its line and column. */
START_TEST (test_slurm_malformed)
{
  g_autofree char *text = g_strdup_printf (
    "JobID|User|Account|Submit|Elapsed|State|AllocTRES|Timelimit\n"
    "1|alice|nlp|2024-03-04T09:00:00|01:00:00|COMPLETED|gres/gpu=1|02:00:00\n"
    "2|bob|cv|2024-03-04T09:01:00|00:10:00|FAILED|gres/gpu=2|UNLIMITED\n"
    "%s\n", slurm_bad[_i].row);
  g_autofree char *path = write_file ("bad.txt", text);
  g_autoptr (GError) error = first_error (sim_workload_new_slurm, path, FALSE);

  assert_has (error, slurm_bad[_i].needle);
}
END_TEST

/* One job with @alloc and @req as its TRES lists.  Returns FALSE if it was
 * skipped. */
static gboolean
one_slurm_job (const char *alloc, const char *req, const char *elapsed, SimJobSpec *j)
{
  g_autofree char *text = g_strdup_printf ("Submit|User|Account|State|Elapsed|AllocTRES|ReqTRES\n"
                                           "2024-03-04T09:00:00|u|a|COMPLETED|%s|%s|%s\n",
                                           elapsed, alloc, req);
  g_autofree char *path = write_file ("one.txt", text);
  g_autoptr (GError) error = NULL;
  SimTraceConfig cfg = { 0, TRUE, TRUE, 0 };
  g_autoptr (SimWorkload) w = sim_workload_new_slurm (path, &cfg, &error);
  gboolean got;

  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  got = sim_workload_next (w, j, &error);
  ck_assert_msg (error == NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (sim_workload_trace_skipped (w), got ? 0 : 1);
  return got;
}

static const struct {
  const char *alloc;
  const char *req;
  guint32 gpus;            /* 0: skipped */
  const char *models;
} gres_cases[] = {
  { "gres/gpu=8", "", 8, NULL },
  { "gres/gpu:a100=4,gres/gpu:h100=2", "", 6, "A100-SXM-80GB|H100-SXM" },
  { "billing=32,cpu=32,gres/gpu=4,gres/gpu:h100=4,mem=256G,node=1", "", 4, "H100-SXM" },
  { "cpu=16,mem=64G", "", 0, NULL },
  { "billing=16,cpu=16,mem=64G,node=1", "cpu=16,gres/gpu=2", 0, NULL }, /* Alloc wins */
  { "", "billing=16,cpu=16,gres/gpu=2,mem=64G", 2, NULL },             /* never started */
  { "", "", 0, NULL },
  { "gres/gpu:H100=2", "", 2, "H100-SXM" },
  { "gres/gpu:A100_40G=1", "", 1, "A100-SXM-40GB" },
  { "gres/gpu:v100=1", "", 1, "V100-16GB|V100-32GB" },
  { "gres/gpu:rtx6000=2", "", 2, NULL },
  { "gres/gpu:h100=2,gres/gpu:rtx6000=2", "", 4, NULL },
  { "gres/gpu=3,gres/gpu:t4=2", "", 3, "T4" },
  { "gres/gpumem=40G,gres/gpuutil=10,gres/gpu=1", "", 1, NULL },
  { "gres/gpu=0,cpu=4", "", 0, NULL },
};

START_TEST (test_slurm_gres)
{
  SimJobSpec j = { 0 };
  gboolean got = one_slurm_job (gres_cases[_i].alloc, gres_cases[_i].req, "00:10:00", &j);

  if (gres_cases[_i].gpus == 0)
    {
      ck_assert_msg (!got, "case %d: not skipped", _i);
      return;
    }
  ck_assert_msg (got, "case %d: skipped", _i);
  ck_assert_uint_eq (j.gpus, gres_cases[_i].gpus);
  if (gres_cases[_i].models == NULL)
    ck_assert_ptr_null (j.gpu_models);
  else
    {
      ck_assert_str_eq (j.gpu_models, gres_cases[_i].models);
      ck_assert_ptr_eq (j.gpu_models, g_intern_string (gres_cases[_i].models));
    }
}
END_TEST

static const struct {
  const char *text;
  gint64 seconds;
} elapsed_cases[] = {
  { "1-02:03:04", 93784 },
  { "05:06", 306 },
  { "00:00:45", 45 },
  { "10-00:00:00", 864000 },
  { "123:00:00", 123 * 3600 },
  { "2-05", 2 * 86400 + 5 * 3600 },
  { "1-01:30", 86400 + 3600 + 30 * 60 },
  { "90", 90 * 60 },
};

START_TEST (test_slurm_elapsed)
{
  SimJobSpec j = { 0 };

  ck_assert (one_slurm_job ("gres/gpu=1", "", elapsed_cases[_i].text, &j));
  ck_assert_int_eq (j.duration, elapsed_cases[_i].seconds * SIM_SECOND);
}
END_TEST

/* The counter belongs to these readers only. */
START_TEST (test_skipped_other_source)
{
  g_autoptr (GError) error = NULL;
  SimPhillyConfig cfg = { 0, TRUE, TRUE, 0, NULL };
  g_autoptr (SimWorkload) w = sim_workload_new_philly (SIM_TEST_DATADIR "/philly-excerpt.csv",
                                                       &cfg, &error);

  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (sim_workload_trace_skipped (w), 0);
}
END_TEST

/* sacct prints allocations by job id, not by Submit: a requeued job or an
 * array job's element can come after jobs submitted later.  Both table
 * readers put such rows in order with a window as large as the
 * displacement (2 rows here), ties in file order, and refuse them with a
 * window of 1, naming the line and column. */
START_TEST (test_reorder_tables)
{
  static const char slurm[] =
    "JobID|User|Account|Submit|Elapsed|State|AllocTRES\n"
    "10|a|x|2024-03-04T09:05:00|00:01:00|COMPLETED|gres/gpu=1\n"
    "11|a|x|2024-03-04T09:06:00|00:01:00|COMPLETED|gres/gpu=1\n"
    "9|a|x|2024-03-04T09:04:00|00:01:00|COMPLETED|gres/gpu=1\n"
    "12|a|x|2024-03-04T09:04:00|00:01:00|COMPLETED|gres/gpu=1\n";
  static const char helios[] =
    "job_id,user,vc,gpu_num,state,submit_time,duration\n"
    "a,u,v,1,COMPLETED,2020-05-01 10:05:00,60\n"
    "b,u,v,1,COMPLETED,2020-05-01 10:06:00,60\n"
    "c,u,v,1,COMPLETED,2020-05-01 10:04:00,60\n"
    "d,u,v,1,COMPLETED,2020-05-01 10:04:00,60\n";
  /* Rows (job numbers) in order of release, and the submit times. */
  static const guint64 order[] = { 3, 4, 1, 2 };
  static const gint64 at[] = { 0, 0, 60, 120 };
  static const struct {
    OpenFunc    open;
    const char *text;
    const char *needle;
  } cases[] = {
    { sim_workload_new_slurm, slurm, "reorder.txt:4:7: Submit: submitted 60 s before the row "
      "of line 2, which the reorder window (1 row) had already released" },
    { sim_workload_new_helios, helios, "reorder.txt:4:19: submit_time: submitted 60 s before "
      "the row of line 2" },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *path = write_file ("reorder.txt", cases[c].text);

      for (guint64 window = 2; window <= 3; window++)
        {
          SimTraceConfig cfg = { 0, FALSE, TRUE, window };
          g_autoptr (GError) error = NULL;
          g_autoptr (SimWorkload) w = cases[c].open (path, &cfg, &error);
          SimJobSpec j;

          ck_assert_msg (w != NULL, "%s", error ? error->message : "?");
          for (guint i = 0; i < G_N_ELEMENTS (order); i++)
            {
              ck_assert_msg (sim_workload_next (w, &j, &error), "%s",
                             error ? error->message : "ended");
              ck_assert_uint_eq (j.id, order[i]);
              ck_assert_int_eq (j.submit, at[i] * SIM_SECOND);
            }
          ck_assert (!sim_workload_next (w, &j, &error));
          ck_assert_ptr_null (error);
        }
      {
        SimTraceConfig cfg = { 0, FALSE, TRUE, 1 };
        g_autoptr (GError) error = NULL;
        g_autoptr (SimWorkload) w = cases[c].open (path, &cfg, &error);

        ck_assert_ptr_nonnull (w);
        drain (w, &error);
        ck_assert_ptr_nonnull (error);
        assert_has (error, cases[c].needle);
      }
    }
}
END_TEST

/* ---- The reorder window itself ------------------------------------------ */

/* A source of @n rows with keys from a linear congruential generator, in
 * 0..@span - 1 (so that many keys tie), lines 1..@n. */
typedef struct {
  guint64 n, i, state, span;
} KeySource;

static gboolean
key_source_read (gpointer data, SimTraceRow *row, GError **error)
{
  KeySource *k = data;

  if (k->i == k->n)
    return FALSE;
  k->state = k->state * 6364136223846793005u + 1442695040888963407u;
  row->submit_s = (gint64) ((k->state >> 33) % k->span);
  row->line = ++k->i;
  row->spec.id = row->line;
  row->spec.duration = SIM_SECOND;
  row->spec.gpus = 1;
  return TRUE;
}

/* Reads every row of @k through a window of @capacity (SIM_TRACE_REORDER_SORT
 * with runs of @run_rows); returns the ids in order of release. */
static GArray *
window_ids (KeySource k, guint64 capacity, gsize run_rows, guint64 *peak)
{
  SimTraceWindow w;
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr (GError) error = NULL;
  SimJobSpec job;

  sim__trace_window_init (&w, "keys", capacity, FALSE, "submit", "run", NULL);
  if (run_rows > 0)
    sim__trace_window_set_run_rows (&w, run_rows);
  while (sim__trace_window_next (&w, key_source_read, &k, &job, &error))
    g_array_append_val (ids, job.id);
  ck_assert_msg (error == NULL, "%s", error ? error->message : "");
  *peak = w.peak;
  sim__trace_window_clear (&w);
  return ids;
}

/* 10,000 rows with keys in 0..999 (ten rows a key on average): a window as
 * large as the file, a sort in memory and a sort through the temporary
 * file in runs of 7 rows (1,429 runs) all release the rows sorted by
 * (key, line), and each row once. */
START_TEST (test_window_sort)
{
  KeySource k = { 10000, 0, 42, 1000 };
  guint64 peak_window, peak_memory, peak_file;
  g_autoptr (GArray) a = window_ids (k, 10000, 0, &peak_window);
  g_autoptr (GArray) b = window_ids (k, SIM_TRACE_REORDER_SORT, 0, &peak_memory);
  g_autoptr (GArray) c = window_ids (k, SIM_TRACE_REORDER_SORT, 7, &peak_file);
  g_autofree gint64 *key = g_new (gint64, k.n + 1);
  g_autofree gboolean *seen = g_new0 (gboolean, k.n + 1);
  KeySource again = k;
  SimTraceRow row;

  /* The keys by line, as the source gives them. */
  while (memset (&row, 0, sizeof row), key_source_read (&again, &row, NULL))
    key[row.line] = row.submit_s;
  ck_assert_uint_eq (a->len, k.n);
  ck_assert_uint_eq (b->len, k.n);
  ck_assert_uint_eq (c->len, k.n);
  for (guint i = 0; i < k.n; i++)
    {
      guint64 id = g_array_index (a, guint64, i);

      ck_assert_uint_eq (g_array_index (b, guint64, i), id);
      ck_assert_uint_eq (g_array_index (c, guint64, i), id);
      ck_assert (!seen[id]);
      seen[id] = TRUE;
      if (i > 0)
        {
          guint64 prev = g_array_index (a, guint64, i - 1);
          ck_assert (key[prev] < key[id] || (key[prev] == key[id] && prev < id));
        }
    }
  ck_assert_uint_eq (peak_window, 10000);
  ck_assert_uint_eq (peak_memory, 10000);
  /* Sorting through the file holds one run in memory. */
  ck_assert_uint_eq (peak_file, 7);
}
END_TEST

/* A window smaller than the disorder fails at a late row; with 10,000 rows
 * of random keys in 0..999, a window of 100 rows is far too small. */
START_TEST (test_window_too_small)
{
  KeySource k = { 10000, 0, 42, 1000 };
  SimTraceWindow w;
  g_autoptr (GError) error = NULL;
  SimJobSpec job;
  guint n = 0;

  sim__trace_window_init (&w, "keys", 100, FALSE, "submit", "run", NULL);
  while (sim__trace_window_next (&w, key_source_read, &k, &job, &error))
    n++;
  ck_assert_ptr_nonnull (error);
  ck_assert_msg (strstr (error->message, "reorder window (100 rows) had already released") !=
                 NULL && strstr (error->message, "or set it to sort") != NULL, "%s",
                 error->message);
  ck_assert_uint_lt (n, 10000);
  ck_assert_uint_le (w.peak, 101);
  sim__trace_window_clear (&w);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Variation of a trace by the seed (workload/sim-variation.h)
 *
 * Each case reads the Philly excerpt (300 jobs over 26 hours, in order of
 * submission with rebase_time) whole, then through the variation, and
 * checks what the variation promises against the whole: which jobs, at
 * what times.  It does not check what the runs make of them (test-compare.sh
 * shows a comparison's intervals on them). */

#define PHILLY SIM_TEST_DATADIR "/philly-excerpt.csv"

static GArray *
read_jobs (SimWorkload *w)
{
  GArray *jobs = g_array_new (FALSE, FALSE, sizeof (SimJobSpec));
  g_autoptr (GError) error = NULL;
  SimJobSpec job;

  while (sim_workload_next (w, &job, &error))
    g_array_append_val (jobs, job);
  ck_assert_msg (error == NULL, "%s", error ? error->message : "");
  return jobs;
}

static GArray *
philly_jobs (guint kind, SimTime time, guint64 seed)
{
  g_autoptr (GError) error = NULL;
  SimPhillyConfig cfg = { 0, TRUE, TRUE, 0, NULL };
  SimWorkload *w = sim_workload_new_philly (PHILLY, &cfg, &error);
  GArray *jobs;

  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  w = sim__variation_wrap (w, kind, time, seed);
  jobs = read_jobs (w);
  /* The virtual clusters, named as the trace is read, are the varied
   * workload's classes too: every job's class has its name. */
  for (guint i = 0; i < jobs->len; i++)
    ck_assert_uint_lt (g_array_index (jobs, SimJobSpec, i).job_class,
                       sim_workload_get_n_classes (w));
  sim_workload_free (w);
  return jobs;
}

/* Whether A and B are the same job but for its number and submission. */
static gboolean
same_job (const SimJobSpec *a, const SimJobSpec *b)
{
  SimJobSpec x = *a, y = *b;

  x.id = y.id = 0;
  x.submit = y.submit = 0;
  return memcmp (&x, &y, sizeof x) == 0;
}

static void
assert_in_order (GArray *jobs)
{
  for (guint i = 1; i < jobs->len; i++)
    ck_assert (g_array_index (jobs, SimJobSpec, i - 1).submit <=
               g_array_index (jobs, SimJobSpec, i).submit);
}

/* Windows of 6 h: seed s replays window (s - 1) mod N, exactly the jobs
 * submitted in it, shifted to start at 0; the N windows are disjoint and
 * cover the whole windows of the trace, and seed N + 1 is seed 1 again. */
START_TEST (test_variation_windows)
{
  const SimTime w = 6 * 3600 * SIM_SECOND;
  g_autoptr (GArray) all = philly_jobs (SIM_VARIATION_NONE, 0, 1);
  SimTime first = g_array_index (all, SimJobSpec, 0).submit;
  SimTime span = g_array_index (all, SimJobSpec, all->len - 1).submit - first;
  guint n = (guint) (span / w), covered = 0;

  ck_assert_uint_ge (n, 2);
  for (guint s = 1; s <= n; s++)
    {
      g_autoptr (GArray) got = philly_jobs (SIM_VARIATION_WINDOWS, w, s);
      SimTime start = first + (SimTime) (s - 1) * w;
      guint k = 0;

      for (guint i = 0; i < all->len; i++)
        {
          const SimJobSpec *job = &g_array_index (all, SimJobSpec, i);
          const SimJobSpec *mine;
          if (job->submit < start || job->submit >= start + w)
            continue;
          ck_assert_uint_lt (k, got->len);
          mine = &g_array_index (got, SimJobSpec, k++);
          ck_assert_uint_eq (mine->id, job->id);
          ck_assert_int_eq (mine->submit, job->submit - start);
          ck_assert (same_job (mine, job));
        }
      ck_assert_uint_eq (k, got->len);
      ck_assert_uint_gt (got->len, 0);
      covered += got->len;
    }
  {
    g_autoptr (GArray) again = philly_jobs (SIM_VARIATION_WINDOWS, w, n + 1);
    g_autoptr (GArray) one = philly_jobs (SIM_VARIATION_WINDOWS, w, 1);
    ck_assert_uint_eq (again->len, one->len);
    ck_assert (memcmp (again->data, one->data, one->len * sizeof (SimJobSpec)) == 0);
  }
  /* The whole windows hold every job before first + n w. */
  {
    guint before = 0;
    for (guint i = 0; i < all->len; i++)
      before += g_array_index (all, SimJobSpec, i).submit < first + (SimTime) n * w;
    ck_assert_uint_eq (covered, before);
  }
}
END_TEST

/* A bootstrap of jobs: as many jobs as the trace, each one of its jobs at
 * its own time, numbered 1, 2, ... in order; the same seed gives the same
 * draw, another seed another. */
START_TEST (test_variation_bootstrap_jobs)
{
  g_autoptr (GArray) all = philly_jobs (SIM_VARIATION_NONE, 0, 1);
  g_autoptr (GArray) a = philly_jobs (SIM_VARIATION_BOOTSTRAP_JOBS, 0, 3);
  g_autoptr (GArray) b = philly_jobs (SIM_VARIATION_BOOTSTRAP_JOBS, 0, 3);
  g_autoptr (GArray) c = philly_jobs (SIM_VARIATION_BOOTSTRAP_JOBS, 0, 4);
  guint repeated = 0;

  ck_assert_uint_eq (a->len, all->len);
  assert_in_order (a);
  for (guint i = 0; i < a->len; i++)
    {
      const SimJobSpec *mine = &g_array_index (a, SimJobSpec, i);
      gboolean found = FALSE;
      ck_assert_uint_eq (mine->id, i + 1);
      for (guint j = 0; j < all->len && !found; j++)
        found = same_job (mine, &g_array_index (all, SimJobSpec, j)) &&
                mine->submit == g_array_index (all, SimJobSpec, j).submit;
      ck_assert_msg (found, "job %u is none of the trace's", i + 1);
      repeated += i > 0 && mine->submit == g_array_index (a, SimJobSpec, i - 1).submit &&
                  same_job (mine, &g_array_index (a, SimJobSpec, i - 1));
    }
  /* With replacement: 300 draws from 300 repeat some job (all but surely). */
  ck_assert_uint_gt (repeated, 0);
  ck_assert (memcmp (a->data, b->data, a->len * sizeof (SimJobSpec)) == 0);
  ck_assert (memcmp (a->data, c->data, a->len * sizeof (SimJobSpec)) != 0);
}
END_TEST

/* Whether the jobs of GOT from FROM to FROM + N are, in order, the jobs of
 * the trace ALL submitted in its day D (counting from FIRST), each at its
 * time of day. */
static gboolean
is_trace_day (GArray *got, guint from, guint n, GArray *all, SimTime first, guint d)
{
  const SimTime day = 86400 * SIM_SECOND;
  guint k = 0;

  for (guint j = 0; j < all->len; j++)
    {
      const SimJobSpec *job = &g_array_index (all, SimJobSpec, j);
      const SimJobSpec *mine;
      if ((job->submit - first) / day != d)
        continue;
      if (k >= n)
        return FALSE;
      mine = &g_array_index (got, SimJobSpec, from + k++);
      if (!same_job (mine, job) || (job->submit - first) % day != mine->submit % day)
        return FALSE;
    }
  return k == n;
}

/* A bootstrap of days: whole days of the trace laid end to end, each job
 * at its time of day, as many days as the trace spans.  Every day of the
 * result is exactly one whole day of the trace (all of its jobs, none
 * other, in its order), and the result is not empty: the excerpt spans 26
 * hours, two days, neither of them empty, so every draw of two days holds
 * jobs in both. */
START_TEST (test_variation_bootstrap_days)
{
  const SimTime day = 86400 * SIM_SECOND;
  g_autoptr (GArray) all = philly_jobs (SIM_VARIATION_NONE, 0, 1);
  SimTime first = g_array_index (all, SimJobSpec, 0).submit;
  SimTime span = g_array_index (all, SimJobSpec, all->len - 1).submit - first;
  guint n_days = (guint) (span / day) + 1;

  ck_assert_uint_eq (n_days, 2);
  for (guint64 seed = 1; seed <= 4; seed++)
    {
      g_autoptr (GArray) got = philly_jobs (SIM_VARIATION_BOOTSTRAP_DAYS, 0, seed);
      guint from = 0;

      assert_in_order (got);
      ck_assert_uint_gt (got->len, 0);
      for (guint k = 0; k < n_days; k++)
        {
          guint n = 0;
          gboolean whole = FALSE;
          while (from + n < got->len &&
                 g_array_index (got, SimJobSpec, from + n).submit / day == k)
            n++;
          ck_assert_msg (n > 0, "seed %" G_GUINT64_FORMAT ": day %u is empty", seed, k);
          for (guint d = 0; d < n_days && !whole; d++)
            whole = is_trace_day (got, from, n, all, first, d);
          ck_assert_msg (whole, "seed %" G_GUINT64_FORMAT ": day %u (%u jobs) is no whole day "
                         "of the trace", seed, k, n);
          from += n;
        }
      ck_assert_uint_eq (from, got->len);
      for (guint i = 0; i < got->len; i++)
        {
          const SimJobSpec *mine = &g_array_index (got, SimJobSpec, i);
          gboolean found = FALSE;
          ck_assert_int_lt (mine->submit, (SimTime) n_days * day);
          for (guint j = 0; j < all->len && !found; j++)
            {
              const SimJobSpec *job = &g_array_index (all, SimJobSpec, j);
              found = same_job (mine, job) && (job->submit - first) % day == mine->submit % day;
            }
          ck_assert_msg (found, "seed %" G_GUINT64_FORMAT ": job %u is none of the trace's at "
                         "its time of day", seed, i + 1);
        }
    }
}
END_TEST

/* Jitter of 30 min: the same jobs, each moved by at most 30 min (not
 * before 0), in order of their new times. */
START_TEST (test_variation_jitter)
{
  const SimTime reach = 30 * 60 * SIM_SECOND;
  g_autoptr (GArray) all = philly_jobs (SIM_VARIATION_NONE, 0, 1);
  g_autoptr (GArray) got = philly_jobs (SIM_VARIATION_JITTER, reach, 2);
  g_autofree gboolean *used = g_new0 (gboolean, all->len);
  guint moved = 0;

  ck_assert_uint_eq (got->len, all->len);
  assert_in_order (got);
  for (guint i = 0; i < got->len; i++)
    {
      const SimJobSpec *mine = &g_array_index (got, SimJobSpec, i);
      gboolean found = FALSE;
      for (guint j = 0; j < all->len && !found; j++)
        {
          const SimJobSpec *job = &g_array_index (all, SimJobSpec, j);
          if (used[j] || !same_job (mine, job) || mine->submit < 0 ||
              llabs (mine->submit - job->submit) > reach ||
              (mine->submit == 0 && job->submit > reach))
            continue;
          found = used[j] = TRUE;
          moved += mine->submit != job->submit;
        }
      ck_assert_msg (found, "job %u is no job of the trace within 30 min", i + 1);
    }
  ck_assert_uint_gt (moved, all->len / 2);
}
END_TEST

/* What [workload] variation refuses, with the file, line and key; a window
 * longer than the trace is refused when it is read. */
static const struct {
  const char *value;
  const char *must;
} bad_variations[] = {
  { "sometimes", "expected none, windows(LENGTH)" },
  { "windows(0s)", "above 0" },
  { "windows(week)", "expected a duration" },
  { "bootstrap(weeks)", "bootstrap(days) or bootstrap(jobs)" },
  { "jitter", "expected none" },
};

START_TEST (test_variation_bad)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *text = g_strdup_printf ("[scenario]\nname = v\n[pool a]\nmodel = DGX-A100\n"
                                           "count = 2\n[workload]\nsource = philly\n"
                                           "trace = %s\nvariation = %s\n", PHILLY,
                                           bad_variations[_i].value);
  g_autoptr (SimScenario) sc = sim_scenario_load_from_data (text, -1, "v.ini", NULL, NULL,
                                                            &error);

  ck_assert_ptr_null (sc);
  ck_assert_msg (strstr (error->message, "v.ini:9: [workload] variation: ") != NULL &&
                 strstr (error->message, bad_variations[_i].must) != NULL, "%s",
                 error->message);
}
END_TEST

START_TEST (test_variation_refused)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SimScenario) sc =
    sim_scenario_load_from_data ("[scenario]\nname = v\n[pool a]\nmodel = DGX-A100\n"
                                 "count = 2\n[workload]\nrate = 1/h\nvariation = jitter(1h)\n"
                                 "[class c]\nduration = 1h\n", -1, "s.ini", NULL, NULL, &error);
  SimPhillyConfig cfg = { 0, TRUE, TRUE, 0, NULL };
  SimWorkload *w;
  SimJobSpec job;

  ck_assert_ptr_null (sc);
  ck_assert_msg (strstr (error->message, "s.ini:8: [workload] variation: applies only to "
                                         "trace sources") != NULL, "%s", error->message);
  g_clear_error (&error);
  /* 26 hours of jobs hold no window of 2 days. */
  w = sim_workload_new_philly (PHILLY, &cfg, &error);
  ck_assert_ptr_nonnull (w);
  w = sim__variation_wrap (w, SIM_VARIATION_WINDOWS, 2 * 86400 * SIM_SECOND, 1);
  ck_assert (!sim_workload_next (w, &job, &error));
  ck_assert_msg (error != NULL && strstr (error->message, "less than one window of") != NULL,
                 "%s", error ? error->message : "no error");
  sim_workload_free (w);
}
END_TEST

static Suite *
traces_suite (void)
{
  Suite *s = suite_create ("traces");
  TCase *helios = tcase_create ("helios");
  TCase *slurm = tcase_create ("slurm");
  TCase *variation = tcase_create ("variation");

  tcase_add_test (helios, test_helios_first_jobs);
  tcase_add_test (helios, test_helios_limits);
  tcase_add_test (helios, test_helios_strict);
  tcase_add_test (helios, test_helios_columns);
  tcase_add_test (helios, test_helios_missing_columns);
  tcase_add_loop_test (helios, test_helios_malformed, 0, G_N_ELEMENTS (helios_bad));
  tcase_add_test (helios, test_helios_empty_and_sticky);
  suite_add_tcase (s, helios);

  tcase_add_test (slurm, test_slurm_first_jobs);
  tcase_add_test (slurm, test_slurm_strict);
  tcase_add_test (slurm, test_slurm_columns);
  tcase_add_loop_test (slurm, test_slurm_missing_columns, 0, G_N_ELEMENTS (slurm_headers));
  tcase_add_loop_test (slurm, test_slurm_malformed, 0, G_N_ELEMENTS (slurm_bad));
  tcase_add_loop_test (slurm, test_slurm_gres, 0, G_N_ELEMENTS (gres_cases));
  tcase_add_loop_test (slurm, test_slurm_elapsed, 0, G_N_ELEMENTS (elapsed_cases));
  tcase_add_test (slurm, test_skipped_other_source);
  tcase_add_test (slurm, test_reorder_tables);
  tcase_add_test (slurm, test_window_sort);
  tcase_add_test (slurm, test_window_too_small);
  suite_add_tcase (s, slurm);

  tcase_add_test (variation, test_variation_windows);
  tcase_add_test (variation, test_variation_bootstrap_jobs);
  tcase_add_test (variation, test_variation_bootstrap_days);
  tcase_add_test (variation, test_variation_jitter);
  tcase_add_loop_test (variation, test_variation_bad, 0, G_N_ELEMENTS (bad_variations));
  tcase_add_test (variation, test_variation_refused);
  suite_add_tcase (s, variation);
  return s;
}

static void
remove_tmpdir (void)
{
  g_autoptr (GDir) dir = g_dir_open (tmpdir, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (tmpdir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (tmpdir);
}

int
main (void)
{
  g_autoptr (GError) error = NULL;
  SRunner *runner;
  int failed;

  tmpdir = g_dir_make_tmp ("check-traces-XXXXXX", &error);
  if (tmpdir == NULL)
    {
      g_printerr ("cannot make a temporary directory: %s\n", error->message);
      return 1;
    }
  runner = srunner_create (traces_suite ());
  srunner_run_all (runner, CK_NORMAL);
  failed = srunner_ntests_failed (runner);
  srunner_free (runner);
  remove_tmpdir ();
  g_free (tmpdir);
  return failed == 0 ? 0 : 1;
}

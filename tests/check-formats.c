/* check-formats.c: the PAI 2020, Gavel and native job readers, format
 * detection, trace statistics and conversion to the native CSV.
 *
 * What it checks:
 *  - every field of every job of the fixtures (tests/data/pai-job-table.csv
 *    with pai-task-table.csv, gavel-7field.trace, gavel-small_test.trace,
 *    native-sample.csv), written out below from the files, and the rows
 *    skipped;
 *  - the PAI task-to-job rule both ways (sum and largest task), its GPU
 *    percent rounding and gpu_type mapping; header lines in another order;
 *  - each malformed field refused with its exact "file:line:column: field";
 *  - format detection of every fixture; the statistics of a trace whose
 *    rows are out of order (the window it needs, checked against the
 *    reader: one row less fails);
 *  - a trace converted to the native CSV reads back job for job.
 * What it does not check: that the fixtures resemble PAI's real tables
 * (they are synthetic, written to the published schema), nor speed
 * (bench/bench-traces.c).
 */
#include "config.h"

#include <check.h>
#include <string.h>
#include <glib/gstdio.h>

#include "core/sim-error.h"
#include "core/sim-units.h"
#include "workload/sim-workload.h"
#include "workload/sim-traces.h"
#include "workload/sim-trace-formats.h"
#include "cluster/sim-catalogue.h"
#include "cluster/sim-cluster.h"
#include "report/sim-report.h"
#include "scenario/sim-scenario.h"
#include "kernel/sim-simulation.h"

#define DATA SIM_TEST_DATADIR
#define PAI_JOBS DATA "/pai-job-table.csv"
#define PAI_TASKS DATA "/pai-task-table.csv"

static char *tmpdir;

static char *
write_file (const char *name, const char *text)
{
  char *path = g_build_filename (tmpdir, name, NULL);

  ck_assert (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static GPtrArray *
drain (SimWorkload *w, GError **error)
{
  GPtrArray *jobs = g_ptr_array_new_with_free_func (g_free);
  SimJobSpec j;

  while (sim_workload_next (w, &j, error))
    g_ptr_array_add (jobs, g_memdup2 (&j, sizeof j));
  return jobs;
}

#define JOB(jobs, i) ((const SimJobSpec *) g_ptr_array_index ((jobs), (i)))

#define assert_has(error, needle)                                                        \
  ck_assert_msg ((error) != NULL && strstr ((error)->message, (needle)) != NULL,        \
                 "\"%s\" lacks \"%s\"", (error) ? (error)->message : "(no error)", (needle))

static void
assert_str_eq0 (const char *a, const char *b)
{
  if (a == NULL || b == NULL)
    ck_assert_msg (a == b, "\"%s\" != \"%s\"", a ? a : "(null)", b ? b : "(null)");
  else
    ck_assert_str_eq (a, b);
}

/* ------------------------------------------------------------------------- */
/* PAI 2020.                                                                 */

/* The fixture (synthetic, to the published schema; see tests/data/README.md):
 *   job  user    status      submit  tasks (inst x plan_gpu, gpu_type)        run
 *   j1   user-a  Terminated  50      1 x 50 T4                               100-1100
 *   j3   user-b  Terminated  250     1 x 100 + 3 x 200 V100M32                300-5300
 *   j2   user-a  Terminated  150     ps 2 x CPU; 4 x 100 V100                 190-3810
 *   j4   user-c  Terminated  300     CPU only                                skipped
 *   j5   user-b  Running     350     2 x 100 P100                            not finished
 *   j6   user-c  Failed      400     1 x 25 P100                             420-900
 *   j7   user-a  Terminated  450     1 x 100 MISC                            460-1460
 *   j8   user-b  Terminated  500     tasks never ran (times 0)               no run time
 * Rows j3 and j2 are out of submit order. */
static const struct {
  guint64 id;
  double submit, duration;
  guint32 gpus, milli;
  const char *models;
  guint32 cpu_milli;
  guint64 memory;
  gint32 user, status;
} pai_expected[] = {
  { 1, 50, 1000, 1, 500, "T4", 6000, 29296875000ull, 0, 1 },
  { 3, 150, 3620, 4, 1000, "V100-16GB", 32000, 100000000000ull, 0, 1 },
  { 2, 250, 5000, 7, 1000, "V100-32GB", 32000, 160000000000ull, 1, 1 },
  { 6, 400, 480, 1, 250, "P100", 3000, 8000000000ull, 2, 0 },
  { 7, 450, 1000, 1, 1000, NULL, 6000, 30000000000ull, 0, 1 },
};

START_TEST (test_pai_jobs)
{
  SimTraceConfig cfg = { 0, TRUE, FALSE, 10 };
  g_autoptr (GError) error = NULL;
  g_autoptr (SimWorkload) w = sim_workload_new_pai (PAI_JOBS, PAI_TASKS, &cfg,
                                                    SIM_PAI_TASKS_SUM, &error);
  g_autoptr (GPtrArray) jobs = NULL;

  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  jobs = drain (w, &error);
  ck_assert_msg (error == NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (jobs->len, G_N_ELEMENTS (pai_expected));
  ck_assert_uint_eq (sim_workload_trace_skipped (w), 3);
  ck_assert_uint_eq (sim_workload_get_n_classes (w), 1);
  ck_assert_str_eq (sim_workload_get_class_name (w, 0), "pai");
  for (guint i = 0; i < jobs->len; i++)
    {
      const SimJobSpec *j = JOB (jobs, i);

      ck_assert_uint_eq (j->id, pai_expected[i].id);
      ck_assert_int_eq (j->submit, sim_time_from_seconds (pai_expected[i].submit));
      ck_assert_int_eq (j->duration, sim_time_from_seconds (pai_expected[i].duration));
      ck_assert_uint_eq (j->gpus, pai_expected[i].gpus);
      ck_assert_uint_eq (j->gpu_milli, pai_expected[i].milli);
      assert_str_eq0 (j->gpu_models, pai_expected[i].models);
      ck_assert_uint_eq (j->cpu_milli, pai_expected[i].cpu_milli);
      ck_assert_uint_eq (j->memory_bytes, pai_expected[i].memory);
      ck_assert_int_eq (j->user, pai_expected[i].user);
      ck_assert_uint_eq (j->tenant, (guint32) pai_expected[i].user);
      ck_assert_int_eq (j->status, pai_expected[i].status);
      ck_assert_uint_eq (j->job_class, 0);
      ck_assert_int_eq (j->requested, 0);
    }
}
END_TEST

/* The largest task alone: j3 takes its workers' 3 x 200 % (6 GPUs), not 7;
 * j2 its workers' 4 GPUs, with the workers' CPU and memory only. */
START_TEST (test_pai_largest)
{
  SimTraceConfig cfg = { 0, TRUE, TRUE, 10 };
  g_autoptr (GError) error = NULL;
  g_autoptr (SimWorkload) w = sim_workload_new_pai (PAI_JOBS, PAI_TASKS, &cfg,
                                                    SIM_PAI_TASKS_LARGEST, &error);
  g_autoptr (GPtrArray) jobs = drain (w, &error);

  ck_assert_msg (error == NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (jobs->len, 5);
  ck_assert_int_eq (JOB (jobs, 0)->submit, 0);          /* rebased */
  ck_assert_uint_eq (JOB (jobs, 1)->gpus, 4);
  ck_assert_uint_eq (JOB (jobs, 1)->cpu_milli, 24000);
  ck_assert_uint_eq (JOB (jobs, 1)->memory_bytes, 80000000000ull);
  ck_assert_uint_eq (JOB (jobs, 2)->gpus, 6);
  ck_assert_uint_eq (JOB (jobs, 2)->cpu_milli, 24000);
}
END_TEST

/* Without skip_invalid, the running job j5 (line 5) is an error at its
 * status; with a window of 0, the out-of-order j2 (line 3) is refused. */
START_TEST (test_pai_strict)
{
  SimTraceConfig strict = { 0, FALSE, TRUE, 10 };
  SimTraceConfig no_window = { 0, TRUE, TRUE, 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) order = NULL;
  g_autoptr (SimWorkload) w = sim_workload_new_pai (PAI_JOBS, PAI_TASKS, &strict,
                                                    SIM_PAI_TASKS_SUM, &error);
  g_autoptr (SimWorkload) w2 = sim_workload_new_pai (PAI_JOBS, PAI_TASKS, &no_window,
                                                     SIM_PAI_TASKS_SUM, &order);
  g_autoptr (GPtrArray) a = drain (w, &error);
  g_autoptr (GPtrArray) b = drain (w2, &order);

  assert_has (error, "pai-job-table.csv:5:");
  assert_has (error, ": status: a job that did not finish");
  assert_has (order, "pai-job-table.csv:3:");
  assert_has (order, "start_time");
  assert_has (order, "reorder_window");
}
END_TEST

/* Header lines, columns in another order and extra columns, read as the
 * headerless fixture. */
START_TEST (test_pai_header)
{
  g_autofree char *jobs_path = write_file ("jobs.csv",
    "end_time,status,user,extra,start_time,inst_id,job_name\n"
    "1100,Terminated,user-a,x,50,i1,j1\n"
    "3810,Terminated,user-a,x,150,i2,j2\n");
  g_autofree char *tasks_path = write_file ("tasks.csv",
    "gpu_type,plan_gpu,plan_mem,plan_cpu,end_time,start_time,status,inst_num,task_name,job_name\n"
    "T4,50,29.296875,600,1100,100,Terminated,1,worker,j1\n"
    "V100,100,20,600,3800,200,Terminated,4,worker,j2\n"
    ",,10,400,3810,190,Terminated,2,ps,j2\n");
  SimTraceConfig cfg = { 0, TRUE, FALSE, 10 };
  g_autoptr (GError) error = NULL;
  g_autoptr (SimWorkload) w = sim_workload_new_pai (jobs_path, tasks_path, &cfg,
                                                    SIM_PAI_TASKS_SUM, &error);
  g_autoptr (GPtrArray) jobs = NULL;

  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  jobs = drain (w, &error);
  ck_assert_msg (error == NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (jobs->len, 2);
  for (guint i = 0; i < 2; i++)
    {
      ck_assert_int_eq (JOB (jobs, i)->submit, sim_time_from_seconds (pai_expected[i].submit));
      ck_assert_int_eq (JOB (jobs, i)->duration,
                        sim_time_from_seconds (pai_expected[i].duration));
      ck_assert_uint_eq (JOB (jobs, i)->gpus, pai_expected[i].gpus);
      ck_assert_uint_eq (JOB (jobs, i)->gpu_milli, pai_expected[i].milli);
      ck_assert_uint_eq (JOB (jobs, i)->cpu_milli, pai_expected[i].cpu_milli);
      ck_assert_uint_eq (JOB (jobs, i)->memory_bytes, pai_expected[i].memory);
      assert_str_eq0 (JOB (jobs, i)->gpu_models, pai_expected[i].models);
    }
}
END_TEST

/* GPU percent: below 100 a share of one GPU, from 100 whole GPUs rounded
 * up; several types a '|' list; a type-less GPU task lifts the constraint. */
static const struct {
  const char *tasks;     /* task rows of job j */
  guint32 gpus, milli;
  const char *models;
} pai_gpu_cases[] = {
  { "j,w,1,Terminated,1,2,100,1,50,T4\n", 1, 500, "T4" },
  { "j,w,1,Terminated,1,2,100,1,1,P100\n", 1, 10, "P100" },
  { "j,w,1,Terminated,1,2,100,1,100,V100\n", 1, 1000, "V100-16GB" },
  { "j,w,1,Terminated,1,2,100,1,250,V100M32\n", 3, 1000, "V100-32GB" },
  { "j,w,2,Terminated,1,2,100,1,50,T4\n", 1, 1000, "T4" },
  { "j,w,3,Terminated,1,2,100,1,50,T4\n", 2, 1000, "T4" },
  { "j,a,1,Terminated,1,2,100,1,100,P100\nj,b,1,Terminated,1,2,100,1,100,T4\n", 2, 1000,
    "P100|T4" },
  { "j,a,1,Terminated,1,2,100,1,100,P100\nj,b,1,Terminated,1,2,100,1,100,\n", 2, 1000, NULL },
  { "j,a,1,Terminated,1,2,100,1,100,P100\nj,b,1,Terminated,1,2,100,1,,\n", 1, 1000, "P100" },
  { "j,a,1,Terminated,1,2,100,1,100,MISC\n", 1, 1000, NULL },
};

START_TEST (test_pai_gpus)
{
  g_autofree char *jobs_path = write_file ("j.csv", "j,i,u,Terminated,1,2\n");
  g_autofree char *tasks_path = write_file ("t.csv", pai_gpu_cases[_i].tasks);
  SimTraceConfig cfg = { 0, FALSE, TRUE, 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (SimWorkload) w = sim_workload_new_pai (jobs_path, tasks_path, &cfg,
                                                    SIM_PAI_TASKS_SUM, &error);
  g_autoptr (GPtrArray) jobs = drain (w, &error);

  ck_assert_msg (error == NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (jobs->len, 1);
  ck_assert_uint_eq (JOB (jobs, 0)->gpus, pai_gpu_cases[_i].gpus);
  ck_assert_uint_eq (JOB (jobs, 0)->gpu_milli, pai_gpu_cases[_i].milli);
  assert_str_eq0 (JOB (jobs, 0)->gpu_models, pai_gpu_cases[_i].models);
  ck_assert_int_eq (JOB (jobs, 0)->duration, SIM_SECOND);
}
END_TEST

START_TEST (test_pai_gpu_types)
{
  ck_assert_str_eq (sim_pai_gpu_type_to_catalogue ("P100"), "P100");
  ck_assert_str_eq (sim_pai_gpu_type_to_catalogue ("t4"), "T4");
  ck_assert_str_eq (sim_pai_gpu_type_to_catalogue ("V100"), "V100-16GB");
  ck_assert_str_eq (sim_pai_gpu_type_to_catalogue ("V100M32"), "V100-32GB");
  ck_assert_ptr_null (sim_pai_gpu_type_to_catalogue ("MISC"));
  ck_assert_ptr_null (sim_pai_gpu_type_to_catalogue (""));
  ck_assert_ptr_null (sim_pai_gpu_type_to_catalogue ("K80"));
}
END_TEST

/* A bad field of the task table (at open) or the job table (at read). */
static const struct {
  const char *tasks, *jobs, *needle;
} pai_bad[] = {
  { "j,w,x,Terminated,1,2,100,1,50,T4\n", NULL, "t.csv:1:5: inst_num: \"x\" is not" },
  { "j,w,1.5,Terminated,1,2,100,1,50,T4\n", NULL, "t.csv:1:5: inst_num:" },
  { "j,w,1,Terminated,1,2,-3,1,50,T4\n", NULL, "t.csv:1:22: plan_cpu: \"-3\"" },
  { "j,w,1,Terminated,1,2,100,lots,50,T4\n", NULL, "t.csv:1:26: plan_mem: \"lots\"" },
  { "j,w,1,Terminated,1,2,100,1,nan,T4\n", NULL, "t.csv:1:28: plan_gpu: \"nan\"" },
  { "j,w,1,Terminated,x,2,100,1,50,T4\n", NULL, "t.csv:1:18: start_time:" },
  { "j,w,1,Terminated,1,1e12,100,1,50,T4\n", NULL, "t.csv:1:20: end_time:" },
  { "j,w,1,Terminated,5,2,100,1,50,T4\n", NULL, "t.csv:1:20: end_time: the task ends (2 s) "
                                                "before it starts (5 s)" },
  { ",w,1,Terminated,1,2,100,1,50,T4\n", NULL, "t.csv:1:1: job_name: the field is empty" },
  { "j,w,1,Terminated,1,2,100,1,50\n", NULL, "t.csv:1: expected 10 comma-separated fields" },
  { "j,w,1,Terminated,1,2,100,1,50,T4\n", "j,i,u,Terminated,soon,2\n",
    "j.csv:1:18: start_time: \"soon\" is not a submit time" },
  { "j,w,1,Terminated,1,2,100,1,50,T4\n", "j,i,u,Terminated,1,-2\n",
    "j.csv:1:20: end_time: \"-2\" is not" },
  { "j,w,1,Terminated,1,2,100,1,50,T4\n", "j,i,u,,1,2\n", "j.csv:1:7: status: the field is empty" },
  { "j,w,1,Terminated,1,2,100,1,50,T4\n", "j,i,u,Terminated,1\n",
    "j.csv:1: expected 6 comma-separated fields" },
  { "j,w,1,Terminated,1,2,100,1,50,T4\n", "j,i,u,Terminated,1,2\nk,i,u,Terminated,1,2,3\n",
    "j.csv:2: expected 6 fields as in the header, found 7" },
  { "j,w,1,Terminated,1,2,100,1,50,T4\n", "j,i,u,Terminated,99999999999,2\n",
    "j.csv:1:18: start_time: \"99999999999\"" },
  /* Requests that no job's CPUs (32-bit thousandths) or memory (64-bit
   * bytes) can hold: they used to come out as 0 CPUs and 2^63 bytes. */
  { "j,w,1,Terminated,1,2,1e300,1,50,T4\n", NULL,
    "t.csv:1:22: plan_cpu: 1 instances of 1e+300% of a core is more CPUs" },
  { "j,w,18446744073709551616,Terminated,1,2,100,1,,\n", NULL,
    "t.csv:1:41: plan_cpu: 1.84467e+19 instances of 100% of a core" },
  { "j,w,1,Terminated,1,2,100,1e300,50,T4\n", NULL,
    "t.csv:1:26: plan_mem: 1 instances of 1e+300 GB is more memory" },
};

START_TEST (test_pai_malformed)
{
  g_autofree char *tasks_path = write_file ("t.csv", pai_bad[_i].tasks);
  g_autofree char *jobs_path = write_file ("j.csv", pai_bad[_i].jobs ? pai_bad[_i].jobs
                                                                     : "j,i,u,Terminated,1,2\n");
  SimTraceConfig cfg = { 0, FALSE, TRUE, 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (SimWorkload) w = sim_workload_new_pai (jobs_path, tasks_path, &cfg,
                                                    SIM_PAI_TASKS_SUM, &error);

  if (w != NULL)
    g_ptr_array_unref (drain (w, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_TRACE));
  assert_has (error, pai_bad[_i].needle);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Gavel.                                                                    */

static const SimGavelRate gavel_rates[] = {
  { "ResNet-18 (batch size 32)", 29.95, NULL },
  { "Transformer (batch size 64)", 8.21, NULL },
};

/* tests/data/gavel-7field.trace (job_type, command, num_steps_arg,
 * needs_data_dir, total_steps, arrival_time, scale_factor):
 *   1 ResNet-18 (batch size 32)    3000 steps  at 0      on 1 GPU
 *   2 Transformer (batch size 64)   821 steps  at 12.5   on 2 GPUs
 *   3 ResNet-18 (batch size 32)       0 steps  at 20     skipped
 *   4 Transformer (batch size 64)  1642 steps  at 7.25   on 1 GPU
 *   5 ResNet-18 (batch size 32)     600 steps  at 30     on 0 GPUs: skipped */
START_TEST (test_gavel_7field)
{
  SimTraceConfig cfg = { 0, TRUE, TRUE, 10 };
  g_autoptr (GError) error = NULL;
  g_autoptr (SimWorkload) w = sim_workload_new_gavel (DATA "/gavel-7field.trace", &cfg,
                                                      gavel_rates, 2, &error);
  g_autoptr (GPtrArray) jobs = NULL;

  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  jobs = drain (w, &error);
  ck_assert_msg (error == NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (jobs->len, 3);
  ck_assert_uint_eq (sim_workload_trace_skipped (w), 2);
  ck_assert_uint_eq (sim_workload_get_n_classes (w), 2);
  ck_assert_str_eq (sim_workload_get_class_name (w, 1), "Transformer (batch size 64)");

  ck_assert_uint_eq (JOB (jobs, 0)->id, 1);
  ck_assert_int_eq (JOB (jobs, 0)->submit, 0);
  ck_assert_int_eq (JOB (jobs, 0)->duration, sim_time_from_seconds (3000 / 29.95));
  ck_assert_uint_eq (JOB (jobs, 0)->gpus, 1);
  ck_assert_uint_eq (JOB (jobs, 0)->job_class, 0);

  ck_assert_uint_eq (JOB (jobs, 1)->id, 4);
  ck_assert_int_eq (JOB (jobs, 1)->submit, 7250000000);
  ck_assert_int_eq (JOB (jobs, 1)->duration, sim_time_from_seconds (1642 / 8.21));
  ck_assert_uint_eq (JOB (jobs, 1)->job_class, 1);

  /* Two GPUs: half the time of one (linear data-parallel scaling). */
  ck_assert_uint_eq (JOB (jobs, 2)->id, 2);
  ck_assert_int_eq (JOB (jobs, 2)->submit, 12500000000);
  ck_assert_int_eq (JOB (jobs, 2)->duration, sim_time_from_seconds (821 / (8.21 * 2)));
  ck_assert_uint_eq (JOB (jobs, 2)->gpus, 2);
  for (guint i = 0; i < 3; i++)
    {
      ck_assert_uint_eq (JOB (jobs, i)->gpu_milli, 1000);
      ck_assert_int_eq (JOB (jobs, i)->priority, 0);
      ck_assert_int_eq (JOB (jobs, i)->user, -1);
      ck_assert_int_eq (JOB (jobs, i)->status, -1);
    }
}
END_TEST

/* A measured speed-up instead of linear scaling: the Transformer on 2
 * GPUs at 1.785 times one GPU (Gavel's V100 figures for batch size 128,
 * 10.07 / 5.642 steps per second), and a curve that exceeds linear
 * refused. */
START_TEST (test_gavel_speedup)
{
  SimScaling curve = { 0 };
  SimScaling over = { 0 };
  SimGavelRate rates[2] = { gavel_rates[0], gavel_rates[1] };
  SimTraceConfig cfg = { 0, TRUE, TRUE, 10 };
  g_autoptr (GError) error = NULL;
  g_autoptr (SimWorkload) w = NULL;
  g_autoptr (SimWorkload) bad = NULL;
  g_autoptr (GPtrArray) jobs = NULL;

  ck_assert (sim_scaling_parse_table ("2:1.785", &curve, NULL));
  rates[1].scaling = &curve;
  w = sim_workload_new_gavel (DATA "/gavel-7field.trace", &cfg, rates, 2, &error);
  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  jobs = drain (w, &error);
  ck_assert_msg (error == NULL, "%s", error ? error->message : "");
  ck_assert_int_eq (JOB (jobs, 2)->duration, sim_time_from_seconds (821 / (8.21 * 1.785)));
  ck_assert_int_eq (JOB (jobs, 1)->duration, sim_time_from_seconds (1642 / 8.21));  /* 1 GPU */

  over.kind = SIM_SCALING_TABLE;
  over.n_points = 1;
  over.gpus[0] = 2;
  over.speedup[0] = 3.147;   /* Gavel's ResNet-18 (batch size 32) on 2 V100s */
  rates[1].scaling = &over;
  bad = sim_workload_new_gavel (DATA "/gavel-7field.trace", &cfg, rates, 2, &error);
  ck_assert_ptr_null (bad);
  assert_has (error, "the speed-up of job type Transformer (batch size 64)");
}
END_TEST

/* Gavel's own 10-field sample: 20 jobs, all at time 0, 17 on one GPU and
 * 3 on two; priority_weight 1.  Its first row is Transformer (batch size
 * 128), 346 steps on 2 GPUs. */
START_TEST (test_gavel_10field)
{
  static const char *types[] = {
    "Transformer (batch size 128)", "Recommendation (batch size 8192)",
    "Transformer (batch size 256)", "CycleGAN", "LM (batch size 10)", "LM (batch size 40)",
    "LM (batch size 5)", "ResNet-18 (batch size 16)", "ResNet-18 (batch size 32)",
    "ResNet-50 (batch size 16)", "ResNet-50 (batch size 32)", "Transformer (batch size 16)",
    "Transformer (batch size 64)",
  };
  SimGavelRate rates[G_N_ELEMENTS (types)];
  SimTraceConfig cfg = { 0, TRUE, TRUE, 100 };
  g_autoptr (GError) error = NULL;
  g_autoptr (SimWorkload) w = NULL;
  g_autoptr (GPtrArray) jobs = NULL;
  guint two = 0;

  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    {
      rates[i].job_type = types[i];
      rates[i].steps_per_second = 1.0 + i;
      rates[i].scaling = NULL;
    }
  w = sim_workload_new_gavel (DATA "/gavel-small_test.trace", &cfg, rates,
                              G_N_ELEMENTS (rates), &error);
  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  jobs = drain (w, &error);
  ck_assert_msg (error == NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (jobs->len, 20);
  ck_assert_uint_eq (JOB (jobs, 0)->job_class, 0);
  ck_assert_uint_eq (JOB (jobs, 0)->gpus, 2);
  ck_assert_int_eq (JOB (jobs, 0)->duration, sim_time_from_seconds (346 / (1.0 * 2)));
  for (guint i = 0; i < jobs->len; i++)
    {
      ck_assert_int_eq (JOB (jobs, i)->submit, 0);
      ck_assert_int_eq (JOB (jobs, i)->priority, 1);
      two += JOB (jobs, i)->gpus == 2;
    }
  ck_assert_uint_eq (two, 3);
}
END_TEST

static const struct {
  const char *row, *needle;
} gavel_bad[] = {
  { "ResNet-18 (batch size 32)\tc\t-n\t1\tmany\t0\t1", "g.trace:2:34: total_steps: \"many\"" },
  { "ResNet-18 (batch size 32)\tc\t-n\t1\t-5\t0\t1", "g.trace:2:34: total_steps: \"-5\"" },
  { "ResNet-18 (batch size 32)\tc\t-n\t1\t10\tnoon\t1", "g.trace:2:37: arrival_time: \"noon\"" },
  { "ResNet-18 (batch size 32)\tc\t-n\t1\t10\t1e11\t1", "g.trace:2:37: arrival_time:" },
  { "ResNet-18 (batch size 32)\tc\t-n\t1\t10\t0\t1.5", "g.trace:2:39: scale_factor: \"1.5\"" },
  { "ResNet-18 (batch size 32)\tc\t-n\t1\t10\t0", "g.trace:2: expected 7 fields as in the "
                                                  "header, found 6" },
  { "VGG-16\tc\t-n\t1\t10\t0\t1", "g.trace:2:1: job_type: no throughput for job type "
                                  "\"VGG-16\"" },
  { "\tc\t-n\t1\t10\t0\t1", "g.trace:2:1: job_type: the field is empty" },
  { "ResNet-18 (batch size 32)\tc\t-n\t1\t999999999999999\t0\t1", "g.trace:2:34: total_steps: "
                                                                  "999999999999999 steps take" },
};

START_TEST (test_gavel_malformed)
{
  g_autofree char *text = g_strdup_printf ("ResNet-18 (batch size 32)\tc\t-n\t1\t10\t0\t1\n%s\n",
                                           gavel_bad[_i].row);
  g_autofree char *path = write_file ("g.trace", text);
  SimTraceConfig cfg = { 0, TRUE, TRUE, 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (SimWorkload) w = sim_workload_new_gavel (path, &cfg, gavel_rates, 2, &error);

  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  g_ptr_array_unref (drain (w, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_TRACE));
  assert_has (error, gavel_bad[_i].needle);
}
END_TEST

/* The 10-field layout's own fields, and what the constructor refuses. */
START_TEST (test_gavel_errors)
{
  g_autofree char *ten = write_file ("ten.trace",
    "ResNet-18 (batch size 32)\tc\tdir\t-n\t1\t10\t1\theavy\t-1\t0\n");
  g_autofree char *slo = write_file ("slo.trace",
    "ResNet-18 (batch size 32)\tc\tdir\t-n\t1\t10\t1\t2\tsoon\t0\n");
  g_autofree char *eight = write_file ("eight.trace", "a\tb\tc\td\te\tf\tg\th\n");
  SimGavelRate zero = { "ResNet-18 (batch size 32)", 0, NULL };
  SimTraceConfig cfg = { 0, TRUE, TRUE, 0 };
  g_autoptr (GError) e1 = NULL;
  g_autoptr (GError) e2 = NULL;
  g_autoptr (GError) e3 = NULL;
  g_autoptr (GError) e4 = NULL;
  g_autoptr (SimWorkload) w1 = sim_workload_new_gavel (ten, &cfg, gavel_rates, 2, &e1);
  g_autoptr (SimWorkload) w2 = sim_workload_new_gavel (slo, &cfg, gavel_rates, 2, &e2);
  g_autoptr (SimWorkload) w3 = sim_workload_new_gavel (eight, &cfg, gavel_rates, 2, &e3);
  g_autoptr (SimWorkload) w4 = sim_workload_new_gavel (ten, &cfg, &zero, 1, &e4);

  g_ptr_array_unref (drain (w1, &e1));
  g_ptr_array_unref (drain (w2, &e2));
  assert_has (e1, "ten.trace:1:43: priority_weight: \"heavy\"");
  assert_has (e2, "slo.trace:1:45: SLO: \"soon\"");
  ck_assert_ptr_null (w3);
  assert_has (e3, "eight.trace:1: expected 7 or 10 TAB-separated fields");
  ck_assert_ptr_null (w4);
  ck_assert (g_error_matches (e4, SIM_ERROR, SIM_ERROR_INVALID));
  assert_has (e4, "must be a positive number of steps per second");
}
END_TEST

/* ------------------------------------------------------------------------- */
/* gpusim's job CSV.                                                         */

/* tests/data/native-sample.csv: rows 7, 8, 9, 10 submitted at 0, 10.25,
 * 10.25 and 5 s; released in submit order, ties in file order. */
START_TEST (test_native_sample)
{
  SimTraceConfig cfg = { 0, FALSE, FALSE, 10 };
  g_autoptr (GError) error = NULL;
  g_autoptr (SimWorkload) w = sim_workload_new_native (DATA "/native-sample.csv", &cfg, &error);
  g_autoptr (GPtrArray) jobs = NULL;
  const SimJobSpec *j;

  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  jobs = drain (w, &error);
  ck_assert_msg (error == NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (jobs->len, 4);

  j = JOB (jobs, 0);
  ck_assert_uint_eq (j->id, 7);
  ck_assert_int_eq (j->submit, 0);
  ck_assert_int_eq (j->duration, 3600500000000);
  ck_assert_uint_eq (j->gpus, 8);
  ck_assert_uint_eq (j->gpu_milli, 1000);
  ck_assert_str_eq (j->gpu_models, "H100-SXM");
  ck_assert_uint_eq (j->tenant, 0);
  ck_assert_int_eq (j->priority, 0);
  ck_assert_str_eq (sim_workload_get_class_name (w, j->job_class), "train");
  ck_assert_int_eq (j->requested, 7200 * SIM_SECOND);
  ck_assert_uint_eq (j->cpu_milli, 8000);
  ck_assert_uint_eq (j->memory_bytes, 68719476736ull);
  ck_assert_ptr_null (j->mig_profile);
  ck_assert_int_eq (j->user, 3);
  ck_assert_int_eq (j->status, 1);

  j = JOB (jobs, 1);   /* empty fields: their defaults */
  ck_assert_uint_eq (j->id, 10);
  ck_assert_int_eq (j->submit, 5 * SIM_SECOND);
  ck_assert_int_eq (j->duration, 1000000001);
  ck_assert_uint_eq (j->gpus, 2);
  ck_assert_ptr_null (j->gpu_models);
  ck_assert_uint_eq (j->tenant, 1);
  ck_assert_int_eq (j->requested, 0);
  ck_assert_uint_eq (j->cpu_milli, 0);
  ck_assert_uint_eq (j->memory_bytes, 0);
  ck_assert_int_eq (j->user, -1);
  ck_assert_int_eq (j->status, 5);

  j = JOB (jobs, 2);
  ck_assert_uint_eq (j->id, 8);
  ck_assert_int_eq (j->submit, 10250000000);
  ck_assert_uint_eq (j->gpu_milli, 500);
  ck_assert_int_eq (j->priority, 5);
  ck_assert_str_eq (sim_workload_get_class_name (w, j->job_class), "small,\"debug\"");

  j = JOB (jobs, 3);
  ck_assert_uint_eq (j->id, 9);
  ck_assert_int_eq (j->submit, 10250000000);
  ck_assert_str_eq (j->gpu_models, "A100-SXM-80GB|H100-SXM");
  ck_assert_int_eq (j->priority, -1);
  ck_assert_str_eq (j->mig_profile, "1g.10gb");
  ck_assert_int_eq (j->status, 0);
  ck_assert_uint_eq (sim_workload_get_n_classes (w), 3);
}
END_TEST

/* Only the required columns: every other field takes its default. */
START_TEST (test_native_minimal)
{
  g_autofree char *path = write_file ("min.csv", "GPUS, Duration ,submit\n4,60,0.5\n1,1.5,2\n");
  SimTraceConfig cfg = { 0, FALSE, FALSE, 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (SimWorkload) w = sim_workload_new_native (path, &cfg, &error);
  g_autoptr (GPtrArray) jobs = drain (w, &error);

  ck_assert_msg (error == NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (jobs->len, 2);
  ck_assert_uint_eq (JOB (jobs, 0)->id, 1);
  ck_assert_uint_eq (JOB (jobs, 1)->id, 2);
  ck_assert_int_eq (JOB (jobs, 0)->submit, 500000000);
  ck_assert_uint_eq (JOB (jobs, 0)->gpus, 4);
  ck_assert_uint_eq (JOB (jobs, 0)->gpu_milli, 1000);
  ck_assert_str_eq (sim_workload_get_class_name (w, 0), "default");
  ck_assert_int_eq (JOB (jobs, 1)->duration, 1500000000);
  ck_assert_int_eq (JOB (jobs, 1)->user, -1);
  ck_assert_int_eq (JOB (jobs, 1)->status, -1);
}
END_TEST

static const struct {
  const char *row, *needle;
} native_bad[] = {
  { "x,0,60,1,1000,,0,0,c,0,0,0,,-1,-1", "n.csv:3:1: id: \"x\" is not a job number" },
  { "1,5,60,1,1000,,0,0,c,0,0,0,,-1,-1", "n.csv:3:1: id: job 1 again: expected each row's own" },
  { "2,-1,60,1,1000,,0,0,c,0,0,0,,-1,-1", "n.csv:3:3: submit: \"-1\" is not a time" },
  { "2,9300000000,60,1,1000,,0,0,c,0,0,0,,-1,-1", "n.csv:3:3: submit: \"9300000000\"" },
  { "2,0,1h,1,1000,,0,0,c,0,0,0,,-1,-1", "n.csv:3:5: duration: \"1h\" is not a run time" },
  { "2,0,60,one,1000,,0,0,c,0,0,0,,-1,-1", "n.csv:3:8: gpus: \"one\"" },
  { "2,0,60,1,1001,,0,0,c,0,0,0,,-1,-1", "n.csv:3:10: gpu_milli: \"1001\"" },
  { "2,0,60,1,0,,0,0,c,0,0,0,,-1,-1", "n.csv:3:10: gpu_milli: \"0\"" },
  { "2,0,60,2,500,,0,0,c,0,0,0,,-1,-1", "n.csv:3:10: gpu_milli: a share of 500 thousandths is "
                                        "for one GPU, but the job asks for 2" },
  { "2,0,60,1,1000,,-1,0,c,0,0,0,,-1,-1", "n.csv:3:16: tenant: \"-1\"" },
  { "2,0,60,1,1000,,0,high,c,0,0,0,,-1,-1", "n.csv:3:18: priority: \"high\"" },
  { "2,0,60,1,1000,,0,0,c,forever,0,0,,-1,-1", "n.csv:3:22: requested: \"forever\"" },
  { "2,0,60,1,1000,,0,0,c,0,2.5,0,,-1,-1", "n.csv:3:24: cpu_milli: \"2.5\"" },
  { "2,0,60,1,1000,,0,0,c,0,0,1GB,,-1,-1", "n.csv:3:26: memory: \"1GB\"" },
  { "2,0,60,2,1000,,0,0,c,0,0,0,1g.10gb,-1,-1", "n.csv:3:28: mig: a MIG job runs in one "
                                                "instance" },
  { "2,0,60,1,1000,,0,0,c,0,0,0,,-2,-1", "n.csv:3:29: user: \"-2\"" },
  { "2,0,60,1,1000,,0,0,c,0,0,0,,-1,done", "n.csv:3:32: status: \"done\"" },
  { "2,0,60,0,1000,,0,0,c,0,0,0,,-1,-1", "n.csv:3:8: gpus: a job without GPUs" },
  { "2,0,0,1,1000,,0,0,c,0,0,0,,-1,-1", "n.csv:3:5: duration: a job without run time" },
  { "2,0,60,1,1000,,0,0,c,0,0,0,,-1", "n.csv:3: expected 15 fields as in the header, found 14" },
  { "2,10,9223372030,1,1000,,0,0,c,0,0,0,,-1,-1", "n.csv:3: duration: a run time of" },
  /* Names written out again (jobs.csv, trace convert) in Latin-1. */
  { "2,0,60,1,1000,,0,0,caf\xe9,0,0,0,,-1,-1", "n.csv:3:20: class: byte 4 is not UTF-8 text" },
  { "2,0,60,1,1000,H100\xff,0,0,c,0,0,0,,-1,-1", "n.csv:3:15: gpu_model: byte 5 is not UTF-8" },
};

START_TEST (test_native_malformed)
{
  g_autofree char *text = g_strdup_printf ("id,submit,duration,gpus,gpu_milli,gpu_model,tenant,"
                                           "priority,class,requested,cpu_milli,memory,mig,user,"
                                           "status\n1,0,60,1,1000,,0,0,c,0,0,0,,-1,-1\n%s\n",
                                           native_bad[_i].row);
  g_autofree char *path = write_file ("n.csv", text);
  SimTraceConfig cfg = { 0, FALSE, FALSE, 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (SimWorkload) w = sim_workload_new_native (path, &cfg, &error);

  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  g_ptr_array_unref (drain (w, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_TRACE));
  assert_has (error, native_bad[_i].needle);
}
END_TEST

/* Job numbers are each row's own, however far apart: ids from 0 up, ids
 * too large for the reader's bitmap (kept in a set), and an id read into
 * the set while the bitmap was small and repeated once the bitmap covers
 * it (70,000 is past 64 x 1,025 at the second row, within 64 x 1,124 at
 * the hundredth). */
START_TEST (test_native_duplicate_ids)
{
  static const struct { guint64 first, again; guint rows; } cases[] = {
    { 3, 3, 10 }, { G_GUINT64_CONSTANT (18446744073709551615),
                    G_GUINT64_CONSTANT (18446744073709551615), 10 },
    { 70000, 70000, 120 }, { 70000, 0, 120 },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr(GString) text = g_string_new ("id,submit,duration,gpus\n");
      SimTraceConfig cfg = { 0, FALSE, FALSE, 0 };
      g_autoptr(GError) error = NULL;
      g_autoptr(SimWorkload) w = NULL;
      g_autoptr(GPtrArray) jobs = NULL;
      g_autofree char *path = NULL;
      guint64 next = 100;

      g_string_append_printf (text, "%" G_GUINT64_FORMAT ",0,60,1\n", cases[c].first);
      for (guint i = 1; i < cases[c].rows; i++)
        {
          guint64 id = i == cases[c].rows - 1 ? cases[c].again : next++;
          g_string_append_printf (text, "%" G_GUINT64_FORMAT ",%u,60,1\n", id, i);
        }
      path = write_file ("d.csv", text->str);
      w = sim_workload_new_native (path, &cfg, &error);
      ck_assert_msg (w != NULL, "%s", error ? error->message : "");
      jobs = drain (w, &error);
      if (cases[c].again == cases[c].first)
        {
          g_autofree char *needle = g_strdup_printf ("d.csv:%u:1: id: job %" G_GUINT64_FORMAT
                                                     " again", cases[c].rows + 1,
                                                     cases[c].again);
          ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_TRACE));
          assert_has (error, needle);
        }
      else
        {
          ck_assert_msg (error == NULL, "%s", error->message);
          ck_assert_uint_eq (jobs->len, cases[c].rows);
        }
    }
}
END_TEST

START_TEST (test_native_columns)
{
  g_autofree char *path = write_file ("c.csv", "id,submit,gpus\n1,0,1\n");
  g_autofree char *empty = write_file ("e.csv", "");
  SimTraceConfig cfg = { 0, FALSE, FALSE, 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) e2 = NULL;
  g_autoptr (SimWorkload) w = sim_workload_new_native (path, &cfg, &error);
  g_autoptr (SimWorkload) w2 = sim_workload_new_native (empty, &cfg, &e2);

  ck_assert_ptr_null (w);
  assert_has (error, "c.csv:1: the header has no column duration");
  ck_assert_ptr_null (w2);
  assert_has (e2, "e.csv: the file is empty");
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Detection, statistics, conversion.                                        */

static const struct {
  const char *file;
  SimTraceFormat format;
} detect_cases[] = {
  { "pai-job-table.csv", SIM_TRACE_FORMAT_PAI },
  { "gavel-small_test.trace", SIM_TRACE_FORMAT_GAVEL },
  { "gavel-7field.trace", SIM_TRACE_FORMAT_GAVEL },
  { "native-sample.csv", SIM_TRACE_FORMAT_NATIVE },
  { "philly-excerpt.csv", SIM_TRACE_FORMAT_PHILLY },
  { "helios-sample.csv", SIM_TRACE_FORMAT_HELIOS },
  { "slurm-sample.txt", SIM_TRACE_FORMAT_SLURM },
  { "nasa-ipsc-excerpt.swf", SIM_TRACE_FORMAT_SWF },
  { "openb-pods.csv", SIM_TRACE_FORMAT_OPENB },
};

START_TEST (test_detect)
{
  g_autofree char *path = g_build_filename (DATA, detect_cases[_i].file, NULL);
  g_autoptr (GError) error = NULL;

  ck_assert_int_eq (sim_trace_detect_format (path, &error), detect_cases[_i].format);
  ck_assert_ptr_null (error);
  ck_assert_int_eq (sim_trace_format_from_name (sim_trace_format_get_name (detect_cases[_i].format)),
                    detect_cases[_i].format);
}
END_TEST

START_TEST (test_detect_unknown)
{
  g_autofree char *path = write_file ("what.txt", "\n\nhello world\n");
  g_autoptr (GError) error = NULL;

  ck_assert_int_eq (sim_trace_detect_format (path, &error), SIM_TRACE_FORMAT_UNKNOWN);
  assert_has (error, "what.txt: cannot tell the trace's format from its first line "
                     "\"hello world\"");
  ck_assert_int_eq (sim_trace_format_from_name ("csv"), SIM_TRACE_FORMAT_UNKNOWN);
}
END_TEST

/* The published Philly head (300 rows in no order) needs a window of 287
 * rows: the statistic says so, and the reader agrees (286 fails). */
START_TEST (test_stats_order)
{
  const char *path = DATA "/philly-published-head.csv";
  SimTraceConfig cfg = { 0, TRUE, FALSE, 0 };
  SimTraceStats s;
  g_autoptr (GError) error = NULL;
  guint64 total = 0, hours = 0;

  ck_assert_msg (sim_trace_stats_compute (SIM_TRACE_FORMAT_PHILLY, path, &cfg, NULL, NULL, 0, &s,
                                          &error), "%s", error ? error->message : "");
  ck_assert_uint_eq (s.jobs, 300);
  ck_assert_uint_eq (s.window_needed, 287);
  ck_assert_uint_gt (s.rows_out_of_order, 0);
  for (guint i = 0; i < 8; i++)
    total += s.gpus_hist[i];
  for (guint h = 0; h < 24; h++)
    hours += s.arrivals_by_hour[h];
  ck_assert_uint_eq (total, 300);
  ck_assert_uint_eq (hours, 300);
  for (guint64 window = 286; window <= 287; window++)
    {
      SimPhillyConfig pc = { 0, TRUE, TRUE, window, NULL };
      g_autoptr (GError) e = NULL;
      g_autoptr (SimWorkload) w = sim_workload_new_philly (path, &pc, &e);

      g_ptr_array_unref (drain (w, &e));
      ck_assert_msg ((e == NULL) == (window == 287), "window %" G_GUINT64_FORMAT ": %s", window,
                     e ? e->message : "read");
    }
}
END_TEST

/* The PAI fixture's figures, worked out by hand: 5 jobs from 50 to 450 s;
 * GPU-hours 0.5 x 1000 + 4 x 3620 + 7 x 5000 + 0.25 x 480 + 1 x 1000 s. */
START_TEST (test_stats_values)
{
  SimTraceConfig cfg = { 0, TRUE, FALSE, 0 };
  SimTraceStats s;
  g_autoptr (GError) error = NULL;

  ck_assert_msg (sim_trace_stats_compute (SIM_TRACE_FORMAT_PAI, PAI_JOBS, &cfg, PAI_TASKS, NULL,
                                          0, &s, &error), "%s", error ? error->message : "");
  ck_assert_uint_eq (s.jobs, 5);
  ck_assert_uint_eq (s.skipped, 3);
  ck_assert_int_eq (s.first_submit, 50 * SIM_SECOND);
  ck_assert_int_eq (s.last_submit, 450 * SIM_SECOND);
  ck_assert_double_eq_tol (s.gpu_hours, (500 + 4 * 3620 + 7 * 5000 + 120 + 1000) / 3600.0,
                           1e-9);
  ck_assert_uint_eq (s.gpus_hist[0], 3);
  ck_assert_uint_eq (s.gpus_hist[2], 1);
  ck_assert_uint_eq (s.gpus_hist[3], 1);
  ck_assert_uint_eq (s.arrivals_by_hour[0], 5);
  ck_assert_uint_eq (s.rows_out_of_order, 1);
  ck_assert_uint_eq (s.window_needed, 1);
}
END_TEST

static void
assert_same_jobs (GPtrArray *a, SimWorkload *wa, GPtrArray *b, SimWorkload *wb)
{
  ck_assert_uint_eq (a->len, b->len);
  for (guint i = 0; i < a->len; i++)
    {
      const SimJobSpec *x = JOB (a, i), *y = JOB (b, i);

      ck_assert_uint_eq (x->id, y->id);
      ck_assert_int_eq (x->submit, y->submit);
      ck_assert_int_eq (x->duration, y->duration);
      ck_assert_int_eq (x->requested, y->requested);
      ck_assert_uint_eq (x->gpus, y->gpus);
      ck_assert_uint_eq (x->gpu_milli, y->gpu_milli);
      ck_assert_uint_eq (x->tenant, y->tenant);
      ck_assert_int_eq (x->priority, y->priority);
      ck_assert_uint_eq (x->cpu_milli, y->cpu_milli);
      ck_assert_uint_eq (x->memory_bytes, y->memory_bytes);
      ck_assert_int_eq (x->user, y->user);
      ck_assert_int_eq (x->status, y->status);
      ck_assert_ptr_eq (x->gpu_models, y->gpu_models);   /* interned */
      ck_assert_ptr_eq (x->mig_profile, y->mig_profile);
      ck_assert_str_eq (sim_workload_get_class_name (wa, x->job_class),
                        sim_workload_get_class_name (wb, y->job_class));
    }
}

/* Each fixture written as the native CSV reads back job for job. */
static const struct {
  SimTraceFormat format;
  const char *file;
} convert_cases[] = {
  { SIM_TRACE_FORMAT_PAI, "pai-job-table.csv" },
  { SIM_TRACE_FORMAT_GAVEL, "gavel-7field.trace" },
  { SIM_TRACE_FORMAT_NATIVE, "native-sample.csv" },
  { SIM_TRACE_FORMAT_PHILLY, "philly-published-head.csv" },
  { SIM_TRACE_FORMAT_SLURM, "slurm-sample.txt" },
  { SIM_TRACE_FORMAT_SWF, "nasa-ipsc-excerpt.swf" },
  { SIM_TRACE_FORMAT_HELIOS, "helios-sample.csv" },
  { SIM_TRACE_FORMAT_OPENB, "openb-pods.csv" },
};

START_TEST (test_convert_round_trip)
{
  g_autofree char *path = g_build_filename (DATA, convert_cases[_i].file, NULL);
  g_autofree char *out = g_build_filename (tmpdir, "out.csv", NULL);
  SimTraceConfig cfg = { 0, TRUE, FALSE, SIM_TRACE_REORDER_SORT };
  g_autoptr (GError) error = NULL;
  g_autoptr (SimWorkload) w1 = NULL, w2 = NULL, w3 = NULL;
  g_autoptr (GPtrArray) a = NULL, b = NULL;
  guint64 n = 0;

  w1 = sim_trace_open (convert_cases[_i].format, path, &cfg, DATA "/pai-task-table.csv",
                       gavel_rates, 2, &error);
  ck_assert_msg (w1 != NULL, "%s", error ? error->message : "");
  ck_assert_msg (sim_trace_write_native (w1, out, &n, &error), "%s", error->message);
  w2 = sim_trace_open (convert_cases[_i].format, path, &cfg, DATA "/pai-task-table.csv",
                       gavel_rates, 2, &error);
  a = drain (w2, &error);
  ck_assert_msg (error == NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (n, a->len);
  w3 = sim_workload_new_native (out, &cfg, &error);
  ck_assert_msg (w3 != NULL, "%s", error ? error->message : "");
  b = drain (w3, &error);
  ck_assert_msg (error == NULL, "%s", error ? error->message : "");
  assert_same_jobs (a, w2, b, w3);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Scenario keys.                                                            */

/* Runs @text (with "%s" standing for the data directory, any number of
 * times) and returns @metric. */
static double
run_metric (const char *text, const char *const *overrides, const char *metric)
{
  g_auto (GStrv) parts = g_strsplit (text, "%s", -1);
  g_autofree char *data = g_strjoinv (DATA, parts);
  g_autoptr (GError) error = NULL;
  g_autoptr (SimScenario) sc = sim_scenario_load_from_data (data, -1, "k.ini", DATA, overrides,
                                                            &error);
  g_autoptr (SimSimulation) sim = NULL;
  double v = -1;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  ck_assert (sim_report_get_value (sim_simulation_get_report (sim), metric, &v));
  return v;
}

static const char *gavel_text =
  "[scenario]\nname = g\n[pool v]\nmodel = PCIe-8GPU\ngpu = V100-16GB\ncount = 1\n"
  "[workload]\nsource = gavel\ntrace = %s/gavel-7field.trace\nreference_gpu = V100-16GB\n"
  "[class ResNet-18 (batch size 32)]\nthroughput = V100-16GB:29.95, P100:41.58\n"
  "[class Transformer (batch size 64)]\nthroughput = V100-16GB:8.21, P100:5.092\n";

/* A job type's throughput on the reference GPU sets its jobs' run time:
 * on one idle V100 server the GPU-seconds are steps / rate, and doubling
 * the Transformer's rate halves its share. */
START_TEST (test_key_gavel_throughput)
{
  const char *faster[] = { "class Transformer (batch size 64).throughput=V100-16GB:16.42", NULL };
  const char *sublinear[] = { "class Transformer (batch size 64).speedup=2:1.5", NULL };
  double base = run_metric (gavel_text, NULL, "job_gpu_seconds");
  double fast = run_metric (gavel_text, faster, "job_gpu_seconds");
  double slow = run_metric (gavel_text, sublinear, "job_gpu_seconds");
  double transformer = 1642 / 8.21 + 2 * 821 / (2 * 8.21);

  ck_assert_double_eq_tol (base, 3000 / 29.95 + transformer, 1e-6);
  ck_assert_double_eq_tol (base - fast, transformer / 2, 1e-6);
  /* The 2-GPU job at 1.5 times one GPU rather than 2: 2 x 821 / 8.21 x
   * (1 / 1.5 - 1 / 2) GPU-seconds more. */
  ck_assert_double_eq_tol (slow - base, 2 * 821 / 8.21 * (1 / 1.5 - 0.5), 1e-6);
}
END_TEST

/* On P100s, the same jobs run at the P100:V100 ratio of Gavel's table:
 * ResNet-18 faster (41.58 / 29.95), the Transformer slower. */
START_TEST (test_key_gavel_other_model)
{
  const char *p100[] = { "pool v.gpu=P100", NULL };
  double on_p100 = run_metric (gavel_text, p100, "job_gpu_seconds");

  ck_assert_double_eq_tol (on_p100, 3000 / 41.58 + 1642 / 5.092 + 821 / 5.092, 1e-6);
}
END_TEST

/* Philly VCs as tenants: with the fair-share queue each VC is held to its
 * nodes x gpus_per_node GPUs, so on 1 GPU per node the excerpt waits
 * longer than with quotas lifted, and longer than with 8 GPUs per node
 * (quotas 8 times larger). */
START_TEST (test_key_philly_vcs)
{
  const char *text =
    "[scenario]\nname = v\n[pool philly]\nfrom = philly-vcs:%s/philly-vc-nodes.csv\n"
    "gpus_per_node = 1\ngpu = P100\n[workload]\nsource = philly\n"
    "trace = %s/philly-excerpt.csv\n[policy]\nqueue = fair-share\n";
  const char *lifted[] = { "policy.default_quota=100000", "policy.quota=0:100000", NULL };
  const char *eight[] = { "pool philly.gpus_per_node=8", NULL };
  double quota = run_metric (text, NULL, "wait_mean");
  double free_ = run_metric (text, lifted, "wait_mean");
  double big = run_metric (text, eight, "wait_mean");
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) parts = g_strsplit (text, "%s", -1);
  g_autofree char *data = g_strjoinv (DATA, parts);
  g_autoptr (SimScenario) sc = sim_scenario_load_from_data (data, -1, "v.ini", DATA, NULL,
                                                            &error);

  ck_assert_msg (quota > free_, "waits %g with VC quotas, %g without", quota, free_);
  ck_assert_msg (quota > big, "waits %g with quotas of 1 GPU per node, %g with 8", quota, big);
  ck_assert_str_eq (g_hash_table_lookup (sc->policy_params, "quota"),
                    "0:64, 1:32, 2:16, 3:64, 4:64, 5:16, 6:32, 7:16, 8:8, 9:8, 10:32");
  ck_assert_str_eq (sc->tenant_names[0], "6214e9");
  ck_assert_uint_eq (sc->n_pools, 11);
  ck_assert_str_eq (sc->pools[8].name, "philly-ed69ec");
  ck_assert_uint_eq (sc->pools[8].count, 8);

  /* Another source keeps its own tenants: no quota comes from the VCs. */
  {
    const char *helios[] = { "workload.source=helios", "workload.trace=helios-sample.csv", NULL };
    g_autoptr (SimScenario) other = sim_scenario_load_from_data (data, -1, "v.ini", DATA, helios,
                                                                 &error);

    ck_assert_msg (other != NULL, "%s", error ? error->message : "");
    ck_assert_ptr_null (g_hash_table_lookup (other->policy_params, "quota"));
  }
}
END_TEST

/* The PAI machine list: one pool per shape, with each machine's cores and
 * memory; misc_gpu = none leaves the MISC machines out. */
START_TEST (test_key_pai_machines)
{
  const char *text =
    "[scenario]\nname = p\n[pool pai]\nfrom = pai-machines:%s/pai-machine-spec-excerpt.csv\n"
    "misc_gpu = A10\n[workload]\nsource = pai\ntrace = %s/pai-job-table.csv\n"
    "task_table = %s/pai-task-table.csv\n";
  g_auto (GStrv) parts = g_strsplit (text, "%s", -1);
  g_autofree char *data = g_strjoinv (DATA, parts);
  g_autoptr (GError) error = NULL;
  g_autoptr (SimScenario) sc = sim_scenario_load_from_data (data, -1, "p.ini", DATA, NULL,
                                                            &error);
  g_autoptr (SimSimulation) sim = NULL;
  const SimCluster *cluster;
  static const char *names[] = { "pai-MISC", "pai-P100", "pai-T4", "pai-V100", "pai-V100-2",
                                 "pai-V100M32" };
  const char *none[] = { "pool pai.misc_gpu=none", NULL };

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (sc->n_pools, G_N_ELEMENTS (names));
  for (guint i = 0; i < sc->n_pools; i++)
    {
      ck_assert_str_eq (sc->pools[i].name, names[i]);
      ck_assert_uint_eq (sc->pools[i].count, 2);
    }
  ck_assert_str_eq (sc->pools[0].gpu_model, "A10");
  ck_assert_str_eq (sc->pools[3].gpu_model, "V100-16GB");
  ck_assert_uint_eq (sc->pools[3].memory_bytes, 384000000000ull);
  ck_assert_uint_eq (sc->pools[4].memory_bytes, 512000000000ull);
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  cluster = sim_simulation_get_cluster (sim);
  ck_assert_uint_eq (sim_cluster_get_n_gpus (cluster), 72);
  ck_assert_uint_eq (sim_cluster_get_node (cluster, 2)->cpu_milli, 64000);   /* a P100 node */
  ck_assert_uint_eq (sim_cluster_get_node (cluster, 2)->memory_bytes, 512000000000ull);
  ck_assert_uint_eq (sim_cluster_get_node (cluster, 2)->n_gpus, 2);
  ck_assert_double_eq (run_metric (text, NULL, "jobs_completed"), 5);
  ck_assert_double_eq (run_metric (text, none, "jobs_completed"), 5);
}
END_TEST

/* The whole published list, shipped in the checkout's data/traces/pai2020/
 * (and in the tarball): 1,814 GPU machines (83 CPU machines left out) with
 * 6,742 GPUs, as its README says.  The shared trace directory is the
 * fallback for a tree whose data/ was left out; with neither, the test
 * fails: the list ships, so its absence is a broken tree. */
START_TEST (test_key_pai_machines_full)
{
  static const char *const paths[] = {
    SIM_TOP_SRCDIR "/data/traces/pai2020/pai_machine_spec.csv",
    SIM_TRACEDIR "/pai2020/pai_machine_spec.csv",
  };
  const char *list = NULL;
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (SimScenario) sc = NULL;
  g_autoptr (SimSimulation) sim = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (paths) && list == NULL; i++)
    if (g_file_test (paths[i], G_FILE_TEST_IS_REGULAR))
      list = paths[i];
  ck_assert_msg (list != NULL, "%s: the shipped machine list is missing", paths[0]);
  text = g_strdup_printf ("[scenario]\nname = p\n[pool pai]\nfrom = pai-machines:%s\n"
                          "misc_gpu = A10\n[workload]\nsource = pai\n"
                          "trace = %s/pai-job-table.csv\ntask_table = %s/pai-task-table.csv\n",
                          list, DATA, DATA);
  sc = sim_scenario_load_from_data (text, -1, "p.ini", DATA, NULL, &error);
  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (sim_cluster_get_n_nodes (sim_simulation_get_cluster (sim)), 1814);
  ck_assert_uint_eq (sim_cluster_get_n_gpus (sim_simulation_get_cluster (sim)), 6742);
}
END_TEST

/* A bad row of a machine or VC list: the scenario's key, then the list's
 * file:line:column and field. */
static const struct {
  const char *kind, *list, *needle;
} list_bad[] = {
  { "pai-machines", "m1,P100,64,512,2\nm2,P100,many,512,2\n", "l.csv:2:9: cap_cpu: expected a "
                                                                "number of cores" },
  { "pai-machines", "m1,P100,64,512GB,2\n", "l.csv:1:12: cap_mem: expected memory in GB" },
  { "pai-machines", "m1,P100,64,512,65\n", "l.csv:1:16: cap_gpu: expected a number of GPUs "
                                            "from 0 to 64" },
  { "pai-machines", "m1,,64,512,2\n", "l.csv:1:4: gpu_type: the field is empty" },
  { "pai-machines", "m1,P100,64,512\n", "l.csv:1: expected 5 comma-separated fields" },
  { "pai-machines", "m1,CPU,96,512,0\n", "l.csv: the list has no GPU machines" },
  { "pai-machines", "", "l.csv: the file is empty" },
  /* A machine twice (a list joined to itself) was counted twice; a type
   * that is no PAI type was skipped without a word on a machine without
   * GPUs. */
  { "pai-machines", "m1,P100,64,512,2\nm2,T4,64,512,2\nm1,P100,64,512,2\n",
    "l.csv:3:1: machine: \"m1\" is listed twice (first on line 1)" },
  { "pai-machines", "m1,P100,64,512,2\nm2,GPU,64,512,0\n",
    "l.csv:2:4: gpu_type: \"GPU\" is not a PAI GPU type" },
  { "pai-machines", "m1,P100,64,512,2\n,P100,64,512,2\n", "l.csv:2:1: machine: the field is empty" },
  { "philly-vcs", "vc,node num\nvc1,lots\n", "l.csv:2:5: node num: expected a number of nodes" },
  { "philly-vcs", "vc,node num\n,4\n", "l.csv:2:1: vc: the field is empty" },
  { "philly-vcs", "vc,nodes\nvc1,4\n", "l.csv:1: the header has no column node num" },
  { "philly-vcs", "vc,node num\n", "l.csv: the list has no virtual clusters" },
};

START_TEST (test_list_malformed)
{
  g_autofree char *list = write_file ("l.csv", list_bad[_i].list);
  g_autofree char *text = g_strdup_printf ("[scenario]\nname = l\n[pool x]\nfrom = %s:%s\n"
                                           "gpus_per_node = 8\n[workload]\nsource = philly\n"
                                           "trace = %s/philly-excerpt.csv\n", list_bad[_i].kind,
                                           list, DATA);
  g_autoptr (GError) error = NULL;
  g_autoptr (SimScenario) sc = NULL;

  if (strcmp (list_bad[_i].kind, "pai-machines") == 0)
    {
      /* gpus_per_node comes from the list there. */
      char *at = strstr (text, "gpus_per_node = 8\n");
      memmove (at, at + 18, strlen (at + 18) + 1);
    }
  sc = sim_scenario_load_from_data (text, -1, "l.ini", DATA, NULL, &error);
  ck_assert_ptr_null (sc);
  assert_has (error, "l.ini:4: [pool x] from: ");
  assert_has (error, list_bad[_i].needle);
}
END_TEST

static Suite *
formats_suite (void)
{
  Suite *s = suite_create ("formats");
  TCase *pai = tcase_create ("pai");
  TCase *gavel = tcase_create ("gavel");
  TCase *native = tcase_create ("native");
  TCase *tools = tcase_create ("tools");
  TCase *keys = tcase_create ("keys");

  tcase_add_test (pai, test_pai_jobs);
  tcase_add_test (pai, test_pai_largest);
  tcase_add_test (pai, test_pai_strict);
  tcase_add_test (pai, test_pai_header);
  tcase_add_loop_test (pai, test_pai_gpus, 0, G_N_ELEMENTS (pai_gpu_cases));
  tcase_add_test (pai, test_pai_gpu_types);
  tcase_add_loop_test (pai, test_pai_malformed, 0, G_N_ELEMENTS (pai_bad));
  suite_add_tcase (s, pai);

  tcase_add_test (gavel, test_gavel_7field);
  tcase_add_test (gavel, test_gavel_speedup);
  tcase_add_test (gavel, test_gavel_10field);
  tcase_add_loop_test (gavel, test_gavel_malformed, 0, G_N_ELEMENTS (gavel_bad));
  tcase_add_test (gavel, test_gavel_errors);
  suite_add_tcase (s, gavel);

  tcase_add_test (native, test_native_sample);
  tcase_add_test (native, test_native_minimal);
  tcase_add_loop_test (native, test_native_malformed, 0, G_N_ELEMENTS (native_bad));
  tcase_add_test (native, test_native_duplicate_ids);
  tcase_add_test (native, test_native_columns);
  suite_add_tcase (s, native);

  tcase_add_loop_test (tools, test_detect, 0, G_N_ELEMENTS (detect_cases));
  tcase_add_test (tools, test_detect_unknown);
  tcase_add_test (tools, test_stats_order);
  tcase_add_test (tools, test_stats_values);
  tcase_add_loop_test (tools, test_convert_round_trip, 0, G_N_ELEMENTS (convert_cases));
  suite_add_tcase (s, tools);

  tcase_add_test (keys, test_key_gavel_throughput);
  tcase_add_test (keys, test_key_gavel_other_model);
  tcase_add_test (keys, test_key_philly_vcs);
  tcase_add_test (keys, test_key_pai_machines);
  tcase_add_test (keys, test_key_pai_machines_full);
  tcase_add_loop_test (keys, test_list_malformed, 0, G_N_ELEMENTS (list_bad));
  tcase_set_timeout (keys, 60);
  suite_add_tcase (s, keys);
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

  tmpdir = g_dir_make_tmp ("check-formats-XXXXXX", &error);
  if (tmpdir == NULL)
    {
      g_printerr ("cannot make a temporary directory: %s\n", error->message);
      return 1;
    }
  runner = srunner_create (formats_suite ());
  srunner_run_all (runner, CK_NORMAL);
  failed = srunner_ntests_failed (runner);
  srunner_free (runner);
  remove_tmpdir ();
  g_free (tmpdir);
  return failed == 0 ? 0 : 1;
}

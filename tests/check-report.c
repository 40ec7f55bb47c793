/* check-report.c: metrics and outputs.
 *
 * What it checks: the same scenario and seed give byte-identical JSON and
 * byte-identical files (summary.json, jobs.csv, timeseries.csv), and a
 * different seed gives different ones; the JSON parses and gives every
 * metric a value and a unit; jobs.csv has one row per completed job and
 * its GPU-seconds add up to job_gpu_seconds; the time series' interval
 * averages integrate back to gpu_utilization and queue_length_mean; a run
 * that fails part-way leaves the output directory exactly as it was, and
 * outputs that cannot all be written leave it as it was too; writing time
 * series changes no figure of the summary.
 * What it does not check: the values of the metrics against theory
 * (check-sched does that).
 */
#include "config.h"

#include <check.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <sim.h>
#include "kernel/sim-kernel.h"
#include "power/sim-power-module.h"
#include <string.h>

#include "report/sim-metrics.h"
#include "core/sim-util.h"

static const char *base =
  "[scenario]\nname = report\nseed = 9\nhorizon = 3d\n"
  "[pool a]\nmodel = DGX-H100\ncount = 4\n"
  "[workload]\nrate = 3/h\n"
  "[class s]\nshare = 3\ngpus = 1:0.5, 2:0.2, 4:0.3\nduration = lognormal(median=30min, sigma=1)\n"
  "[class l]\nshare = 1\ngpus = 8:0.7, 16:0.3\nduration = exponential(mean=3h)\n"
  "[output]\ntimeseries_interval = 30min\n";

static char *
run_to_dir (const char *text, const char * const *sets, const char *dir, char **json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (text, -1, "report.ini", NULL, sets,
                                                           &error);
  g_autoptr(SimSimulation) sim = NULL;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  if (dir != NULL)
    ck_assert (sim_simulation_set_output_dir (sim, dir, &error));
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  *json = sim_report_to_json (sim_simulation_get_report (sim), TRUE);
  return g_strdup (dir);
}

static char *
slurp (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  char *text = NULL;
  ck_assert_msg (g_file_get_contents (path, &text, NULL, NULL), "%s missing", path);
  return text;
}

static void
remove_dir (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (dir);
}

START_TEST (test_determinism)
{
  g_autofree char *d1 = g_dir_make_tmp ("report-XXXXXX", NULL);
  g_autofree char *d2 = g_dir_make_tmp ("report-XXXXXX", NULL);
  g_autofree char *d3 = g_dir_make_tmp ("report-XXXXXX", NULL);
  g_autofree char *j1 = NULL, *j2 = NULL, *j3 = NULL;
  g_autofree char *r1 = run_to_dir (base, NULL, d1, &j1);
  g_autofree char *r2 = run_to_dir (base, NULL, d2, &j2);
  const char *seed7[] = { "scenario.seed=7", NULL };
  g_autofree char *r3 = run_to_dir (base, seed7, d3, &j3);
  const char *files[] = { "summary.json", "jobs.csv", "timeseries.csv" };

  ck_assert_str_eq (j1, j2);
  ck_assert_str_ne (j1, j3);
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *a = slurp (d1, files[i]);
      g_autofree char *b = slurp (d2, files[i]);
      g_autofree char *c = slurp (d3, files[i]);
      ck_assert_str_eq (a, b);
      ck_assert_str_ne (a, c);
    }
  remove_dir (d1);
  remove_dir (d2);
  remove_dir (d3);
}
END_TEST

static double
member (JsonObject *metrics, const char *name)
{
  JsonObject *m = json_object_get_object_member (metrics, name);
  ck_assert_msg (m != NULL, "metric %s missing", name);
  return json_object_get_double_member (m, "value");
}

START_TEST (test_outputs_consistent)
{
  g_autofree char *dir = g_dir_make_tmp ("report-XXXXXX", NULL);
  g_autofree char *json = NULL;
  g_autofree char *r = run_to_dir (base, NULL, dir, &json);
  g_autofree char *summary = slurp (dir, "summary.json");
  g_autofree char *jobs = slurp (dir, "jobs.csv");
  g_autofree char *series = slurp (dir, "timeseries.csv");
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *root, *metrics;
  g_auto(GStrv) rows = NULL;
  double gpu_s = 0, util_int = 0, queue_int = 0, activity_int = 0, last_t = 0, horizon = 3 * 86400.0;
  guint n_rows = 0;
  GList *names;

  ck_assert_msg (json_parser_load_from_data (parser, summary, -1, &error), "%s",
                 error ? error->message : "");
  root = json_node_get_object (json_parser_get_root (parser));
  ck_assert_str_eq (json_object_get_string_member (root, "scenario"), "report");
  ck_assert_int_eq (json_object_get_int_member (json_object_get_object_member (root, "cluster"),
                                                "gpus"), 32);
  metrics = json_object_get_object_member (root, "metrics");
  names = json_object_get_members (metrics);
  ck_assert_uint_ge (g_list_length (names), 25);
  for (GList *l = names; l != NULL; l = l->next)
    {
      JsonObject *m = json_object_get_object_member (metrics, l->data);
      ck_assert_msg (json_object_has_member (m, "unit") &&
                     strlen (json_object_get_string_member (m, "unit")) > 0, "%s has no unit",
                     (char *) l->data);
    }
  g_list_free (names);

  /* jobs.csv: header + one row per completed job; GPU-seconds add up. */
  rows = g_strsplit (jobs, "\n", -1);
  ck_assert_str_eq (rows[0], "id,class,submit_s,start_s,end_s,wait_s,jct_s,run_s,"
                             "bounded_slowdown,gpus,gpu_milli,nodes,preemptions");
  for (guint i = 1; rows[i] != NULL && rows[i][0] != '\0'; i++)
    {
      g_auto(GStrv) f = g_strsplit (rows[i], ",", -1);
      ck_assert_uint_eq (g_strv_length (f), 13);
      gpu_s += g_ascii_strtod (f[7], NULL) * g_ascii_strtod (f[9], NULL);
      /* wait = start - submit, exactly, in the 9-decimal text. */
      ck_assert_double_eq_tol (g_ascii_strtod (f[5], NULL),
                               g_ascii_strtod (f[3], NULL) - g_ascii_strtod (f[2], NULL), 1e-6);
      n_rows++;
    }
  ck_assert_double_eq (n_rows, member (metrics, "jobs_completed"));
  ck_assert (n_rows > 100);
  /* Jobs still running at the horizon add their partial GPU-time to
   * job_gpu_seconds, so the completed rows give a lower bound. */
  ck_assert_double_le (gpu_s, member (metrics, "job_gpu_seconds") * (1 + 1e-9));
  ck_assert_double_eq_tol (member (metrics, "job_gpu_seconds"),
                           member (metrics, "allocated_gpu_seconds"),
                           1e-6 * member (metrics, "allocated_gpu_seconds"));

  /* timeseries.csv: interval averages integrate back to the summary. */
  g_strfreev (rows);
  rows = g_strsplit (series, "\n", -1);
  for (guint i = 1; rows[i] != NULL && rows[i][0] != '\0'; i++)
    {
      g_auto(GStrv) f = g_strsplit (rows[i], ",", -1);
      double t = g_ascii_strtod (f[0], NULL);
      ck_assert_uint_eq (g_strv_length (f), 10);
      ck_assert_double_gt (t, last_t);
      util_int += g_ascii_strtod (f[4], NULL) * (t - last_t);
      queue_int += g_ascii_strtod (f[5], NULL) * (t - last_t);
      activity_int += g_ascii_strtod (f[9], NULL) * (t - last_t);
      last_t = t;
    }
  ck_assert_double_eq_tol (last_t, horizon, 1e-9);
  ck_assert_double_eq_tol (util_int / horizon, member (metrics, "gpu_utilization"), 1e-5);
  ck_assert_double_eq_tol (queue_int / horizon, member (metrics, "queue_length_mean"), 1e-4);
  ck_assert_double_eq_tol (activity_int / horizon, member (metrics, "gpu_activity"), 1e-5);
  remove_dir (dir);
}
END_TEST

/* A trace whose 4th job line is malformed: the run fails when it reaches
 * it, and the directory keeps the files it had, unchanged, with no
 * temporary files left behind. */
START_TEST (test_failed_run_leaves_outputs_whole)
{
  g_autofree char *dir = g_dir_make_tmp ("report-XXXXXX", NULL);
  g_autofree char *trace = g_build_filename (dir, "bad.swf", NULL);
  g_autofree char *old = g_build_filename (dir, "summary.json", NULL);
  g_autofree char *text = g_strdup_printf (
    "[scenario]\nname = bad\n[pool a]\nmodel = DGX-H100\ncount = 1\n"
    "[workload]\nsource = swf\ntrace = %s\n", trace);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = NULL;
  g_autoptr(SimSimulation) sim = NULL;
  g_autoptr(GDir) d = NULL;
  g_autofree char *kept = NULL;
  const char *name;
  guint n = 0;

  ck_assert (g_file_set_contents (trace,
    "; header\n"
    "1 0 -1 100 2 -1 -1 2 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n"
    "2 10 -1 100 2 -1 -1 2 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n"
    "3 20 -1 100 2 -1 -1 2 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n"
    "4 30 -1 100 two -1 -1 2 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n", -1, NULL));
  ck_assert (g_file_set_contents (old, "previous\n", -1, NULL));
  sc = sim_scenario_load_from_data (text, -1, "bad.ini", dir, NULL, &error);
  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  ck_assert (sim_simulation_set_output_dir (sim, dir, &error));
  ck_assert (!sim_simulation_run (sim, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_TRACE));
  ck_assert_msg (strstr (error->message, "bad.swf:5") != NULL, "%s", error->message);
  ck_assert_ptr_null (sim_simulation_get_report (sim));
  /* Running again reports the same failure instead of going on. */
  g_clear_error (&error);
  ck_assert (!sim_simulation_run (sim, &error));
  g_clear_object (&sim);

  ck_assert (g_file_get_contents (old, &kept, NULL, NULL));
  ck_assert_str_eq (kept, "previous\n");
  d = g_dir_open (dir, 0, NULL);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      ck_assert_msg (strcmp (name, "bad.swf") == 0 || strcmp (name, "summary.json") == 0,
                     "left behind: %s", name);
      n++;
    }
  ck_assert_uint_eq (n, 2);
  remove_dir (dir);
}
END_TEST

/* Sampling never changes results: the summary of a run that writes time
 * series (every 30 min, then every 7 min) is the same JSON, to the last
 * digit and the event count, as that of a run writing nothing. */
START_TEST (test_sampling_changes_nothing)
{
  g_autofree char *d1 = g_dir_make_tmp ("report-XXXXXX", NULL);
  g_autofree char *d2 = g_dir_make_tmp ("report-XXXXXX", NULL);
  g_autofree char *j0 = NULL, *j1 = NULL, *j2 = NULL;
  const char *fine[] = { "output.timeseries_interval=7min", NULL };
  g_autofree char *r0 = run_to_dir (base, NULL, NULL, &j0);
  g_autofree char *r1 = run_to_dir (base, NULL, d1, &j1);
  g_autofree char *r2 = run_to_dir (base, fine, d2, &j2);
  g_autofree char *series = slurp (d2, "timeseries.csv");
  g_auto(GStrv) rows = g_strsplit (series, "\n", -1);

  ck_assert_str_eq (j0, j1);
  ck_assert_str_eq (j0, j2);
  /* The time series was on, at 7 min: 3 days are 259200 s = 617 x 420 s
   * + 60 s, so a header, 617 rows at 420 k s (k = 1..617), and one at the
   * horizon, 259200 s, for the last 60 s: 619 lines, then the empty
   * string after the last newline. */
  ck_assert_uint_eq (g_strv_length (rows), 619 + 1);
  ck_assert_str_eq (rows[619], "");
  for (guint k = 1; k <= 618; k++)
    {
      double t = g_ascii_strtod (rows[k], NULL);
      ck_assert_msg (t == (k <= 617 ? 420.0 * k : 259200.0), "row %u at %g s", k, t);
    }
  remove_dir (d1);
  remove_dir (d2);
}
END_TEST

/* Outputs are committed together: when the last of them (summary.json)
 * cannot be written because a directory stands in its place, jobs.csv and
 * timeseries.csv from an earlier run stay as they were, the error names
 * summary.json, and no temporary or backup file is left. */
START_TEST (test_outputs_committed_together)
{
  g_autofree char *dir = g_dir_make_tmp ("report-XXXXXX", NULL);
  g_autofree char *jobs = g_build_filename (dir, "jobs.csv", NULL);
  g_autofree char *series = g_build_filename (dir, "timeseries.csv", NULL);
  g_autofree char *summary = g_build_filename (dir, "summary.json", NULL);
  g_autofree char *kept_jobs = NULL, *kept_series = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (base, -1, "report.ini", NULL, NULL,
                                                           &error);
  g_autoptr(SimSimulation) sim = NULL;
  g_autoptr(GDir) d = NULL;
  const char *name;
  guint n = 0;

  ck_assert (g_file_set_contents (jobs, "previous jobs\n", -1, NULL));
  ck_assert (g_file_set_contents (series, "previous series\n", -1, NULL));
  ck_assert (g_mkdir (summary, 0700) == 0);
  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert (sim != NULL);
  ck_assert (sim_simulation_set_output_dir (sim, dir, &error));
  ck_assert (!sim_simulation_run (sim, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_IO));
  ck_assert_msg (strstr (error->message, "summary.json") != NULL, "%s", error->message);
  g_clear_object (&sim);

  ck_assert (g_file_get_contents (jobs, &kept_jobs, NULL, NULL));
  ck_assert_str_eq (kept_jobs, "previous jobs\n");
  ck_assert (g_file_get_contents (series, &kept_series, NULL, NULL));
  ck_assert_str_eq (kept_series, "previous series\n");
  d = g_dir_open (dir, 0, NULL);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      ck_assert_msg (strcmp (name, "jobs.csv") == 0 || strcmp (name, "timeseries.csv") == 0
                     || strcmp (name, "summary.json") == 0, "left behind: %s", name);
      n++;
    }
  ck_assert_uint_eq (n, 3);
  g_rmdir (summary);
  remove_dir (dir);
}
END_TEST

/* Runs that would take hours or gigabytes are refused before they start,
 * with the estimate and the key to change, unless forced: 1,000 jobs/s
 * over the scenario's 3 days is 2.59e8 jobs (> 1e8); a 1 ns time series
 * over 3 days is 2.59e14 rows (> 5e6).  Nothing is written. */
START_TEST (test_size_limits)
{
  const char *fast[] = { "workload.rate=1000/s", NULL };
  const char *fine[] = { "output.timeseries_interval=1ns", NULL };
  g_autofree char *dir = g_dir_make_tmp ("report-XXXXXX", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (base, -1, "report.ini", NULL, fast,
                                                           &error);
  g_autoptr(SimSimulation) sim = NULL;
  g_autoptr(GDir) d = NULL;
  SimRunEstimate e;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert (sim != NULL);
  sim_simulation_estimate (sim, &e);
  ck_assert_double_eq_tol ((double) e.jobs, 1000.0 * 3 * 86400, 1.0);
  ck_assert (!sim_simulation_run (sim, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  ck_assert_msg (strstr (error->message, "--set workload.rate") != NULL &&
                 strstr (error->message, "2.59e+08 jobs") != NULL &&
                 strstr (error->message, "force") != NULL, "%s", error->message);
  g_clear_error (&error);
  /* Forced, the check lets it through (the run itself is not made here). */
  sim_simulation_set_force (sim, TRUE);
  ck_assert (sim_simulation_check_limits (sim, &error));
  g_clear_object (&sim);
  g_clear_pointer (&sc, sim_scenario_unref);

  sc = sim_scenario_load_from_data (base, -1, "report.ini", NULL, fine, &error);
  ck_assert (sc != NULL);
  sim = sim_simulation_new (sc, &error);
  ck_assert (sim != NULL);
  /* Without outputs no time series is written: nothing to refuse. */
  ck_assert (sim_simulation_check_limits (sim, &error));
  ck_assert (sim_simulation_set_output_dir (sim, dir, &error));
  sim_simulation_estimate (sim, &e);
  ck_assert_double_eq_tol ((double) e.samples, 3.0 * 86400e9, 1.0);
  ck_assert (!sim_simulation_run (sim, &error));
  ck_assert_msg (strstr (error->message, "--set output.timeseries_interval") != NULL,
                 "%s", error->message);
  g_clear_object (&sim);
  d = g_dir_open (dir, 0, NULL);
  ck_assert_ptr_null (g_dir_read_name (d));
  remove_dir (dir);
}
END_TEST

/* Accumulators are a seam: one added beside the built-in metrics is told
 * the same state and job events, and its own integral and counts equal
 * the built-in ones (allocated GPU-seconds, jobs submitted and finished;
 * jobs started are at least those finished);
 * its metrics follow the built-in ones in the report, and a name already
 * reported is refused rather than given twice. */
typedef struct {
  SimAccumulator base;
  SimTime last;
  double  allocated;
  guint   started, finished, submitted;
} TestAcc;

static void
test_acc_advance (SimAccumulator *acc, const SimState *held, SimTime now)
{
  TestAcc *t = (TestAcc *) acc;
  if (now > t->last)
    t->allocated += sim_time_to_seconds (now - t->last) * held->allocated_milli / 1000.0;
  t->last = MAX (t->last, now);
}

static void
test_acc_job_event (SimAccumulator *acc, SimJobEvent event, const SimJob *job,
                    const char *class_name, SimTime now)
{
  TestAcc *t = (TestAcc *) acc;
  t->started += event == SIM_JOB_STARTED;
  t->finished += event == SIM_JOB_FINISHED;
  t->submitted += event == SIM_JOB_SUBMITTED;
  if (event == SIM_JOB_FINISHED)
    ck_assert_ptr_nonnull (class_name);
}

static void
test_acc_report (SimAccumulator *acc, SimReport *report, const SimReportInfo *info)
{
  TestAcc *t = (TestAcc *) acc;
  sim__report_add (report, "test_allocated_gpu_seconds", t->allocated, "GPU*s");
  sim__report_add (report, "test_jobs_finished", t->finished, "jobs");
  sim__report_add (report, "test_jobs_started", t->started, "jobs");
  sim__report_add (report, "test_jobs_submitted", t->submitted, "jobs");
  sim__report_add (report, "jobs_completed", -1, "jobs");   /* already there: refused */
}

static void
test_acc_free (SimAccumulator *acc)
{
  g_free (acc);
}

static const SimAccumulatorVTable test_acc_vtable = {
  test_acc_advance, test_acc_job_event, test_acc_report, test_acc_free,
};

START_TEST (test_accumulator_seam)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (base, -1, "report.ini", NULL, NULL,
                                                           &error);
  g_autoptr(SimSimulation) sim = sim_simulation_new (sc, &error);
  g_autoptr(GPtrArray) names = NULL;
  TestAcc *t = g_new0 (TestAcc, 1);
  SimReport *r;
  double alloc, completed, submitted, v;
  guint seen = 0;

  ck_assert (sim != NULL);
  t->base.vtable = &test_acc_vtable;
  sim__kernel_add_accumulator (sim, &t->base);
  ck_assert (sim_simulation_run (sim, &error));
  r = sim_simulation_get_report (sim);
  ck_assert (sim_report_get_value (r, "allocated_gpu_seconds", &alloc));
  ck_assert (sim_report_get_value (r, "jobs_completed", &completed));
  ck_assert (sim_report_get_value (r, "test_allocated_gpu_seconds", &v));
  ck_assert_double_eq_tol (v, alloc, 1e-9 * alloc);
  ck_assert (sim_report_get_value (r, "test_jobs_finished", &v));
  ck_assert_double_eq (v, completed);
  ck_assert (sim_report_get_value (r, "test_jobs_started", &v));
  ck_assert_double_ge (v, completed);
  /* Every submission is told too: as many as the built-in count. */
  ck_assert (sim_report_get_value (r, "jobs_submitted", &submitted));
  ck_assert (sim_report_get_value (r, "test_jobs_submitted", &v));
  ck_assert_double_eq (v, submitted);
  ck_assert_double_ge (submitted, completed);
  names = sim_report_list_metrics (r);
  for (guint i = 0; i < names->len; i++)
    seen += strcmp (names->pdata[i], "jobs_completed") == 0;
  ck_assert_uint_eq (seen, 1);
  ck_assert_double_gt (completed, 0);
}
END_TEST

/* A figure that is not a number is an error, not a result: the run fails
 * saying which metric, and the output directory stays as it was. */
static void
nan_report (SimAccumulator *acc, SimReport *report, const SimReportInfo *info)
{
  (void) acc;
  (void) info;
  sim__report_add (report, "test_broken", NAN, "W");
}

static void
nan_advance (SimAccumulator *acc, const SimState *held, SimTime now)
{
  (void) acc;
  (void) held;
  (void) now;
}

static void
nan_job_event (SimAccumulator *acc, SimJobEvent event, const SimJob *job,
               const char *class_name, SimTime now)
{
  (void) acc;
  (void) event;
  (void) job;
  (void) class_name;
  (void) now;
}

static const SimAccumulatorVTable nan_vtable = {
  nan_advance, nan_job_event, nan_report, (void (*) (SimAccumulator *)) g_free,
};

START_TEST (test_nan_is_an_error)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load_from_data (base, -1, "report.ini", NULL, NULL,
                                                           &error);
  g_autoptr(SimSimulation) sim = sim_simulation_new (sc, &error);
  g_autofree char *dir = g_dir_make_tmp ("report-XXXXXX", NULL);
  g_autoptr(GDir) d = NULL;
  SimAccumulator *acc = g_new0 (SimAccumulator, 1);

  ck_assert (sim != NULL);
  acc->vtable = &nan_vtable;
  sim__kernel_add_accumulator (sim, acc);
  ck_assert (sim_simulation_set_output_dir (sim, dir, &error));
  ck_assert (!sim_simulation_run (sim, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_STATE));
  ck_assert_msg (strstr (error->message, "test_broken") != NULL, "%s", error->message);
  ck_assert (sim_simulation_get_report (sim) == NULL);
  d = g_dir_open (dir, 0, NULL);
  ck_assert (d != NULL);
  ck_assert (g_dir_read_name (d) == NULL);
  g_rmdir (dir);
}
END_TEST

/* Exact seconds from nanoseconds, including negative and large values. */
START_TEST (test_format_seconds)
{
  char b[32];
  ck_assert_str_eq (sim__format_seconds (0, b), "0.000000000");
  ck_assert_str_eq (sim__format_seconds (1, b), "0.000000001");
  ck_assert_str_eq (sim__format_seconds (90 * SIM_SECOND + 5, b), "90.000000005");
  ck_assert_str_eq (sim__format_seconds (-1500 * SIM_MILLISECOND, b), "-1.500000000");
  ck_assert_str_eq (sim__format_seconds (123456789 * SIM_SECOND + 120000000, b),
                    "123456789.120000000");
  ck_assert_str_eq (sim__format_seconds (-999999999, b), "-0.999999999");
  ck_assert_str_eq (sim__format_seconds (G_MAXINT64, b), "9223372036.854775807");
  ck_assert_str_eq (sim__format_seconds (G_MININT64, b), "-9223372036.854775808");
  ck_assert_str_eq (sim__format_seconds (G_MAXINT64, b), "9223372036.854775807");
}
END_TEST


static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* The percentiles' sort against libc's qsort on the same values, bit for
 * bit: random bit patterns (every exponent, both signs, infinities; NaNs
 * left out), many duplicates, values sharing their upper bits (digits the
 * radix sort skips), on both sides of the size at which it takes over;
 * -0 comes before +0. */
START_TEST (test_sort_doubles)
{
  static const gsize sizes[] = { 0, 1, 2, 3, 4095, 4096, 4097, 65537, 200000 };
  GRand *rand = g_rand_new_with_seed (7);

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (guint kind = 0; kind < 4; kind++)
      {
        gsize n = sizes[s];
        g_autofree double *v = g_new (double, MAX (n, 1));
        g_autofree double *w = g_new (double, MAX (n, 1));
        for (gsize i = 0; i < n; i++)
          {
            double x;
            do
              {
                guint64 bits = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
                if (kind == 1)
                  bits &= G_GUINT64_CONSTANT (0x80000000000000ff);  /* tiny, shared digits */
                memcpy (&x, &bits, sizeof x);
              }
            while (isnan (x));
            if (kind == 2)
              x = g_rand_int_range (rand, -50, 50);                 /* duplicates */
            else if (kind == 3)
              x = g_rand_double_range (rand, 0, 86400);             /* times */
            if (x == 0)
              x = 0;   /* +0 only here: -0 is checked below */
            v[i] = w[i] = x;
          }
        if (n > 5)
          v[1] = w[1] = INFINITY, v[3] = w[3] = -INFINITY;
        sim__sort_doubles (v, n);
        qsort (w, n, sizeof (double), cmp_double);
        ck_assert_msg (n == 0 || memcmp (v, w, n * sizeof (double)) == 0,
                       "size %" G_GSIZE_FORMAT ", kind %u: not sorted as qsort sorts", n, kind);
      }
  {
    gsize n = 5000;
    g_autofree double *v = g_new (double, n);
    for (gsize i = 0; i < n; i++)
      v[i] = (i % 3 == 0) ? -0.0 : (i % 3 == 1) ? 0.0 : 1.0 - (double) i;
    sim__sort_doubles (v, n);
    for (gsize i = 1; i < n; i++)
      ck_assert (v[i - 1] <= v[i]);
    for (gsize i = 1; i < n; i++)
      ck_assert (!(v[i - 1] == 0 && v[i] == 0 && !signbit (v[i - 1]) && signbit (v[i])));
  }
  g_rand_free (rand);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Numbers for people: each rule of sim-report.h against the text it must
 * give, written out by hand. */

static const struct {
  double      x;
  const char *want;
} number_cases[] = {
  { 0, "0" }, { 1.4e-13, "0" }, { -3e-9, "0" }, { 12930, "12,930" }, { 125600, "125,600" },
  { 1234567.4, "1,234,567" }, { 0.961584, "0.9616" }, { 12.5, "12.5" }, { 1.5, "1.5" },
  { -2500, "-2,500" }, { 999.96, "1,000" }, { 1e12, "1,000,000,000,000" }, { 100, "100" },
  { 0.000125, "0.000125" }, { NAN, "n/a" },
};

static const struct {
  double      x;
  const char *unit;
  const char *want;
} value_cases[] = {
  { 0, "s", "0 s" }, { 7200, "s", "02:00:00" }, { 90061, "s", "1d 01:01:01" },
  { 12.5, "s", "12.5 s" }, { -14434, "s", "-04:00:34" },
  { 12500, "W", "12.5 kW" }, { 1.2e6, "W", "1.2 MW" }, { 700, "W", "700 W" },
  { 125600, "kWh", "125.6 MWh" }, { 950, "kWh", "950 kWh" },
  { 0.7403, "fraction", "74.0 %" }, { 1, "fraction", "100.0 %" }, { 0, "fraction", "0 %" },
  { 1.4e-15, "fraction", "0 %" }, { 0.000431, "fraction", "0.0431 %" }, { 12.25, "%", "12.2 %" },
  { 12930, "jobs", "12,930 jobs" }, { 1, "jobs", "1 job" }, { 0, "jobs", "0 jobs" },
  { 1, "events", "1 event" }, { 9.058, "jobs", "9.058 jobs" },
  { 12930, "count", "12,930" }, { 1.32, "ratio", "1.32" },
  { 125600, "USD", "$125,600" }, { 1.256e5 + 0.4, "USD", "$125,600" }, { 12.34, "USD", "$12.34" },
  { -1200, "USD", "-$1,200" }, { 1e-13, "USD", "$0" }, { 4.3e9, "USD", "$4,300,000,000" },
  { 2.5, "USD/GPU-h", "$2.50/GPU-h" }, { 4.916, "USD/GPU-h", "$4.916/GPU-h" },
  { 12.29, "USD/GPU-h", "$12.29/GPU-h" }, { 0.0895, "USD/kWh", "$0.0895/kWh" },
  { 22554.2, "GPU-h", "22,554 GPU-h" }, { NAN, "s", "n/a" },
};

START_TEST (test_format_rules)
{
  for (guint i = 0; i < G_N_ELEMENTS (number_cases); i++)
    {
      g_autofree char *got = sim_format_number (number_cases[i].x);
      ck_assert_msg (strcmp (got, number_cases[i].want) == 0, "%g: \"%s\", expected \"%s\"",
                     number_cases[i].x, got, number_cases[i].want);
    }
  for (guint i = 0; i < G_N_ELEMENTS (value_cases); i++)
    {
      g_autofree char *got = sim_format_value (value_cases[i].x, value_cases[i].unit);
      ck_assert_msg (strcmp (got, value_cases[i].want) == 0, "%g %s: \"%s\", expected \"%s\"",
                     value_cases[i].x, value_cases[i].unit, got, value_cases[i].want);
    }
  {
    g_autofree char *one = sim_format_count (1, "trace rows");
    g_autofree char *two = sim_format_count (2, "trace rows");
    g_autofree char *bare = sim_format_count (3, NULL);
    g_autofree char *usd = sim_format_usd (99.999);
    ck_assert_str_eq (one, "1 trace row");
    ck_assert_str_eq (two, "2 trace rows");
    ck_assert_str_eq (bare, "3");
    ck_assert_str_eq (usd, "$100");
  }
  ck_assert_str_eq (sim_report_get_group ("cost_tco"), "cost");
  ck_assert_str_eq (sim_report_get_group ("cost_cooling_share"), "cooling");
  ck_assert_str_eq (sim_report_get_group ("power_cooling_avg"), "cooling");
  ck_assert_str_eq (sim_report_get_group ("power_it_avg"), "power");
  ck_assert_str_eq (sim_report_get_group ("interruptions_gpu"), "failures");
  ck_assert_str_eq (sim_report_get_group ("power_manager_cap_raises"), "power manager");
  ck_assert_str_eq (sim_report_get_group ("wait_p95"), "jobs");
  ck_assert_str_eq (sim_report_get_group ("events"), "run");
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Every result of a run in its summary and its report.
 *
 * For each bundled scenario whose modules add metrics (power, cooling,
 * cost, failures, power manager, burst, serverless, a fabric), two days of
 * it are run; then for every metric of the JSON, the summary of a copy of
 * the report with that metric's value changed (to 3 x + 1,000: away from
 * zero and from the value) must differ from the summary of the copy as it
 * was, and so must the HTML report of the run's summary.json changed the
 * same way.  A metric that changed nothing would be missing.  It does not
 * check that the lines read well (test-cli.sh and the rules above). */

static const char *const walked[] = {
  "quickstart.ini", "cost-own-rent.ini", "power-liquid.ini", "power-capping.ini",
  "own-rent-burst.ini", "burst.ini", "failures-spares-checkpoint.ini",
  "fabric-oversubscription.ini",
};

static SimReport *
copy_report (const SimReport *r, guint changed)
{
  SimReportInfo info = { "walk", 1, "cluster", 1, 8, "policy", "workload", 0, 0, 0,
                         FALSE, 0, 0, 0 };
  SimReport *copy = sim__report_new (&info);
  g_autoptr(GPtrArray) names = sim_report_list_metrics (r);

  for (guint i = 0; i < names->len; i++)
    {
      double v;
      ck_assert (sim_report_get_value (r, names->pdata[i], &v));
      sim__report_add (copy, names->pdata[i], i == changed ? 3 * v + 1000 : v,
                       sim_report_get_unit (r, names->pdata[i]));
    }
  return copy;
}

/* summary.json with metric NAME's value changed as above. */
static char *
changed_summary (const char *text, const char *name)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  JsonObject *metric;
  double v;

  ck_assert (json_parser_load_from_data (parser, text, -1, NULL));
  metric = json_object_get_object_member (
    json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)),
                                   "metrics"), name);
  v = json_object_get_double_member (metric, "value");
  json_object_set_double_member (metric, "value", 3 * v + 1000);
  json_generator_set_root (gen, json_parser_get_root (parser));
  return json_generator_to_data (gen, NULL);
}

START_TEST (test_every_metric_shown)
{
  const char *const sets[] = { "scenario.horizon=2d", NULL };
  g_autofree char *path = g_build_filename (SIM_TOP_SRCDIR, "scenarios", walked[_i], NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load (path, sets, &error);
  g_autoptr(SimSimulation) sim = NULL;
  g_autofree char *dir = g_dir_make_tmp ("check-report-walk-XXXXXX", NULL);
  g_autofree char *summary_path = g_build_filename (dir, "summary.json", NULL);
  g_autofree char *summary = NULL;
  g_autofree char *html = NULL;
  g_autoptr(GPtrArray) names = NULL;
  SimReport *r;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  ck_assert (sim_simulation_set_output_dir (sim, dir, &error));
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  r = sim_simulation_get_report (sim);
  names = sim_report_list_metrics (r);
  ck_assert_uint_gt (names->len, 30);
  summary = slurp (dir, "summary.json");
  html = sim_html_report_render (dir, NULL, &error);
  ck_assert_msg (html != NULL, "%s", error ? error->message : "");
  for (guint i = 0; i < names->len; i++)
    {
      g_autoptr(SimReport) same = copy_report (r, G_MAXUINT);
      g_autoptr(SimReport) changed = copy_report (r, i);
      g_autofree char *a = sim_report_format_text (same);
      g_autofree char *b = sim_report_format_text (changed);
      g_autofree char *json = changed_summary (summary, names->pdata[i]);
      g_autofree char *other = NULL;

      ck_assert_msg (strcmp (a, b) != 0, "%s: %s is not in the summary:\n%s", walked[_i],
                     (char *) names->pdata[i], a);
      ck_assert (g_file_set_contents (summary_path, json, -1, NULL));
      other = sim_html_report_render (dir, NULL, &error);
      ck_assert_msg (other != NULL, "%s", error ? error->message : "");
      ck_assert_msg (strcmp (html, other) != 0, "%s: %s is not in the report", walked[_i],
                     (char *) names->pdata[i]);
    }
  remove_dir (dir);
}
END_TEST

/* The report's cost chart: its bars are the parts of the cost of owning,
 * which add up to cost_tco (amortized capex, maintenance, the IT
 * equipment's energy and cooling's), then what was rented (burst_cost);
 * and the text gives cooling's share of the facility's energy as
 * energy_cooling_kwh / energy_facility_kwh. */
START_TEST (test_cost_chart)
{
  const char *const sets[] = { "scenario.horizon=2d", NULL };
  g_autofree char *path = g_build_filename (SIM_TOP_SRCDIR, "scenarios", "own-rent-burst.ini",
                                            NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load (path, sets, &error);
  g_autoptr(SimSimulation) sim = NULL;
  g_autofree char *dir = g_dir_make_tmp ("check-report-cost-XXXXXX", NULL);
  g_autofree char *html = NULL, *data = NULL, *share = NULL, *sentence = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  const char *start, *end;
  JsonObject *cost;
  JsonArray *usd;
  SimReport *r;
  double tco, burst, cooling_kwh, facility_kwh, sum = 0;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert (sim != NULL && sim_simulation_set_output_dir (sim, dir, &error));
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  r = sim_simulation_get_report (sim);
  html = sim_html_report_render (dir, NULL, &error);
  ck_assert_msg (html != NULL, "%s", error ? error->message : "");
  start = strstr (html, "id=\"report-data\">");
  ck_assert_ptr_nonnull (start);
  start = strchr (start, '>') + 1;
  end = strstr (start, "</script>");
  data = g_strndup (start, (gsize) (end - start));
  ck_assert (json_parser_load_from_data (parser, data, -1, NULL));
  cost = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)),
                                        "cost");
  ck_assert_ptr_nonnull (cost);
  usd = json_object_get_array_member (cost, "usd");
  ck_assert_uint_eq (json_array_get_length (usd), 5);
  ck_assert_uint_eq (json_array_get_length (json_object_get_array_member (cost, "labels")), 5);
  for (guint i = 0; i < 4; i++)
    sum += json_array_get_double_element (usd, i);
  ck_assert (sim_report_get_value (r, "cost_tco", &tco));
  ck_assert (sim_report_get_value (r, "burst_cost", &burst));
  /* The page writes six significant digits of each. */
  ck_assert_msg (fabs (sum - tco) <= 1e-5 * tco, "parts %.6f, cost_tco %.6f", sum, tco);
  ck_assert (fabs (json_array_get_double_element (usd, 4) - burst) <= 1e-5 * burst);
  ck_assert (sim_report_get_value (r, "energy_cooling_kwh", &cooling_kwh));
  ck_assert (sim_report_get_value (r, "energy_facility_kwh", &facility_kwh));
  share = sim_format_value (cooling_kwh / facility_kwh, "fraction");
  sentence = g_strdup_printf ("Cooling draws %s of the facility's energy", share);
  ck_assert_msg (strstr (html, sentence) != NULL, "no \"%s\"", sentence);
  ck_assert (strstr (html, "id=\"chart-cost\"") != NULL);
  remove_dir (dir);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("report");
  TCase *tc = tcase_create ("outputs");
  SRunner *sr;
  int failed;

  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_determinism);
  tcase_add_test (tc, test_outputs_consistent);
  tcase_add_test (tc, test_failed_run_leaves_outputs_whole);
  tcase_add_test (tc, test_format_seconds);
  tcase_add_test (tc, test_sort_doubles);
  tcase_add_test (tc, test_sampling_changes_nothing);
  tcase_add_test (tc, test_outputs_committed_together);
  tcase_add_test (tc, test_size_limits);
  tcase_add_test (tc, test_accumulator_seam);
  tcase_add_test (tc, test_nan_is_an_error);
  tcase_add_test (tc, test_format_rules);
  tcase_add_test (tc, test_cost_chart);
  tcase_add_loop_test (tc, test_every_metric_shown, 0, G_N_ELEMENTS (walked));
  suite_add_tcase (s, tc);
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}

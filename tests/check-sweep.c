/* check-sweep.c: sweep files, their points, the database, and many
 * simulations in one process.
 *
 * What it checks:
 *  - the points of a grid with a zipped pair and a range with a unit, in
 *    the order and with the labels and overrides spelled out here by hand;
 *  - the runs of shards: disjoint, together every run, each a residue;
 *  - the scenario hash: the same for an edit of [sweep] alone, different
 *    for an edit of the scenario or for another seed;
 *  - libsim is safe for simulations at once: eight threads each run the
 *    same scenario (two seeds, four each) at the same time, and every
 *    report's JSON is the same bytes as the report of a run made alone;
 *  - a sweep run with one thread and with three gives the same summary
 *    bytes, and each run's value equals a run made by hand with the
 *    point's overrides;
 *  - the database: a run of half the runs, then of all, takes the first
 *    half from the database (they are not run again: the executor's
 *    progress counts the others only) and the summary is the same bytes;
 *    after an edit of the scenario, no row is taken;
 *    every metric of the report is a column; shards in two databases
 *    merged into a third give the same summary; a part whose values differ
 *    is refused;
 *  - bad sweep files: each error names the file, the line and the key,
 *    also for a value that only a build refuses (its runs fail); 300
 *    mutated [sweep] sections parse or fail with an error naming the file.
 * What it does not check: MPI or the command line (test-sweep.sh does),
 * kill -9 (test-sweep.sh), the statistics (check-plan and check-compare),
 * or speed.
 */
#include "config.h"

#include <check.h>
#include <glib/gstdio.h>
#include <math.h>
#include <sim.h>
#include <stdlib.h>
#include <string.h>

static char *tmpdir;

static const char scenario_text[] =
  "[scenario]\n"
  "name = tiny-sweep\n"
  "seed = 3\n"
  "horizon = 2d\n"
  "[pool p]\n"
  "model = PCIe-8GPU\n"
  "gpus_per_node = 4\n"
  "count = 3\n"
  "[workload]\n"
  "rate = 1.5/h\n"
  "[class small]\n"
  "share = 0.7\n"
  "gpus = 1:0.5, 2:0.3, 3:0.2\n"
  "duration = exponential(mean=2h)\n"
  "[class node]\n"
  "share = 0.3\n"
  "gpus = 4\n"
  "duration = exponential(mean=3h)\n"
  "[policy]\n"
  "queue = fifo\n"
  "placement = first-fit\n";

static void
setup (void)
{
  tmpdir = g_dir_make_tmp ("check-sweep-XXXXXX", NULL);
  ck_assert_ptr_nonnull (tmpdir);
}

static void
teardown (void)
{
  g_autoptr(GDir) dir = g_dir_open (tmpdir, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (tmpdir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (tmpdir);
  g_clear_pointer (&tmpdir, g_free);
}

/* The scenario with SWEEP as its [sweep] section, in NAME. */
static char *
write_sweep (const char *name, const char *sweep)
{
  char *path = g_build_filename (tmpdir, name, NULL);
  g_autofree char *text = g_strconcat (scenario_text, "[sweep]\n", sweep, NULL);

  ck_assert (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static SimSweep *
load (const char *path)
{
  g_autoptr(GError) error = NULL;
  SimSweep *sweep = sim_sweep_new (path, NULL, &error);

  ck_assert_msg (sweep != NULL, "%s", error ? error->message : "");
  return sweep;
}

/* ------------------------------------------------------------------------- */

START_TEST (test_points)
{
  g_autofree char *path =
    write_sweep ("grid.ini",
                 "pool p.count = 2, 3\n"
                 "workload.rate = 1/h..2/h step 0.5/h\n"
                 "class small.share = 0.6, 0.7, 0.8\n"
                 "zip = workload.rate, class small.share\n"
                 "seeds = 2\n"
                 "first_seed = 10\n"
                 "metrics = wait_mean, gpu_utilization\n");
  g_autoptr(SimSweep) sweep = load (path);
  SimPlan *plan = sim_sweep_get_plan (sweep);
  /* Two axes: the count, then the zipped rate and share (last fastest). */
  static const char *const labels[] = {
    "pool p.count=2 workload.rate=1/h class small.share=0.6",
    "pool p.count=2 workload.rate=1.5/h class small.share=0.7",
    "pool p.count=2 workload.rate=2/h class small.share=0.8",
    "pool p.count=3 workload.rate=1/h class small.share=0.6",
    "pool p.count=3 workload.rate=1.5/h class small.share=0.7",
    "pool p.count=3 workload.rate=2/h class small.share=0.8",
  };
  g_auto(GStrv) overrides = NULL;

  ck_assert_uint_eq (sim_sweep_get_n_axes (sweep), 3);
  ck_assert_str_eq (sim_sweep_get_axis_key (sweep, 1), "workload.rate");
  ck_assert_uint_eq (sim_sweep_get_n_points (sweep), 6);
  ck_assert_uint_eq (sim_plan_get_n_runs (plan), 12);
  ck_assert_uint_eq (sim_plan_get_n_metrics (plan), 2);
  for (guint p = 0; p < 6; p++)
    ck_assert_str_eq (sim_plan_get_entry_label (plan, p), labels[p]);
  ck_assert_str_eq (sim_sweep_get_point_value (sweep, 4, 2), "0.7");
  ck_assert_uint_eq (sim_plan_get_run_seed (plan, 9), 11);

  /* Run 9 is point 4 on the second seed. */
  overrides = sim_plan_dup_run_overrides (plan, 9);
  ck_assert_uint_eq (g_strv_length (overrides), 5);
  ck_assert_str_eq (overrides[0], "scenario.seed=11");
  ck_assert_str_eq (overrides[1], "[sweep]");
  ck_assert_str_eq (overrides[2], "pool p.count=3");
  ck_assert_str_eq (overrides[3], "workload.rate=1.5/h");
  ck_assert_str_eq (overrides[4], "class small.share=0.7");
}
END_TEST

START_TEST (test_shards_and_hash)
{
  g_autofree char *path = write_sweep ("h.ini", "pool p.count = 2, 3, 4\nseeds = 3\n");
  g_autofree char *path2 = write_sweep ("h2.ini", "pool p.count = 2, 3, 4, 5\nseeds = 3\n");
  g_autoptr(SimSweep) sweep = load (path);
  g_autoptr(SimSweep) grown = load (path2);
  g_autofree gboolean *seen = g_new0 (gboolean, 9);
  g_autofree char *h0 = NULL, *h0_grown = NULL, *h1 = NULL, *h0_edited = NULL;
  g_autoptr(SimSweep) edited = NULL;
  g_autofree char *text = NULL;
  g_autofree char *path3 = g_build_filename (tmpdir, "h3.ini", NULL);

  for (guint k = 0; k < 4; k++)
    {
      guint n;
      g_autofree guint *runs = sim_sweep_dup_shard_runs (sweep, k, 4, &n);
      for (guint i = 0; i < n; i++)
        {
          ck_assert_uint_eq (runs[i] % 4, k);
          ck_assert (!seen[runs[i]]);
          seen[runs[i]] = TRUE;
        }
    }
  for (guint r = 0; r < 9; r++)
    ck_assert (seen[r]);

  h0 = sim_sweep_dup_scenario_hash (sweep, 0);
  h1 = sim_sweep_dup_scenario_hash (sweep, 1);
  h0_grown = sim_sweep_dup_scenario_hash (grown, 0);
  ck_assert_uint_eq (strlen (h0), 64);
  ck_assert_str_eq (h0, h0_grown);     /* only [sweep] changed */
  ck_assert_str_ne (h0, h1);           /* another seed */
  text = g_strconcat (scenario_text, "[output]\ntimeseries_interval = 2h\n"
                      "[sweep]\npool p.count = 2, 3, 4\nseeds = 3\n", NULL);
  ck_assert (g_file_set_contents (path3, text, -1, NULL));
  edited = load (path3);
  h0_edited = sim_sweep_dup_scenario_hash (edited, 0);
  ck_assert_str_ne (h0, h0_edited);    /* the scenario changed */
}
END_TEST

/* ------------------------------------------------------------------------- */

typedef struct {
  const char *path;
  guint64     seed;
  char       *json;
} Job;

static gpointer
run_one (gpointer data)
{
  Job *job = data;
  g_autofree char *set = g_strdup_printf ("scenario.seed=%" G_GUINT64_FORMAT, job->seed);
  const char *sets[] = { set, NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load (job->path, sets, &error);
  g_autoptr(SimSimulation) sim = NULL;

  if (sc == NULL || (sim = sim_simulation_new (sc, &error)) == NULL ||
      !sim_simulation_run (sim, &error))
    job->json = g_strdup (error->message);
  else
    job->json = sim_report_to_json (sim_simulation_get_report (sim), TRUE);
  return NULL;
}

START_TEST (test_concurrent_simulations)
{
  g_autofree char *path = g_build_filename (tmpdir, "plain.ini", NULL);
  Job alone[2] = { { NULL, 3, NULL }, { NULL, 4, NULL } };
  Job jobs[8];
  GThread *threads[8];

  ck_assert (g_file_set_contents (path, scenario_text, -1, NULL));
  for (guint s = 0; s < 2; s++)
    {
      alone[s].path = path;
      run_one (&alone[s]);
      ck_assert_msg (strstr (alone[s].json, "\"wait_mean\"") != NULL, "%s", alone[s].json);
    }
  ck_assert_str_ne (alone[0].json, alone[1].json);
  for (guint i = 0; i < 8; i++)
    {
      jobs[i] = (Job) { path, 3 + i % 2, NULL };
      threads[i] = g_thread_new ("sim", run_one, &jobs[i]);
    }
  for (guint i = 0; i < 8; i++)
    {
      g_thread_join (threads[i]);
      ck_assert_str_eq (jobs[i].json, alone[i % 2].json);
      g_free (jobs[i].json);
    }
  g_free (alone[0].json);
  g_free (alone[1].json);
}
END_TEST

static guint progress_total;

static void
count_progress (guint done, guint total, gpointer data)
{
  progress_total = total;
}

static SimPlanResults *
run_sweep (SimSweep *sweep, guint threads, const guint *runs, guint n_runs, const char *db)
{
  g_autoptr(SimExecutor) executor = sim_thread_executor_new (threads);
  g_autoptr(GError) error = NULL;
  SimPlanResults *results;

  progress_total = 0;
  sim_executor_set_progress_func (executor, count_progress, NULL, NULL);
  results = sim_sweep_run (sweep, executor, runs, n_runs, db, NULL, &error);
  ck_assert_msg (results != NULL, "%s", error ? error->message : "");
  return results;
}

START_TEST (test_threads_and_by_hand)
{
  g_autofree char *path = write_sweep ("t.ini", "pool p.count = 2, 3\n"
                                       "workload.rate = 1/h, 2/h\nseeds = 2\n"
                                       "metrics = wait_mean, jobs_completed\n");
  g_autoptr(SimSweep) sweep = load (path);
  g_autoptr(SimPlanResults) one = run_sweep (sweep, 1, NULL, 0, NULL);
  g_autoptr(SimPlanResults) three = run_sweep (sweep, 3, NULL, 0, NULL);
  g_autofree char *t1 = sim_sweep_format_table (sweep, one);
  g_autofree char *t3 = sim_sweep_format_table (sweep, three);
  g_autofree char *j1 = sim_sweep_to_json (sweep, one);
  g_autofree char *j3 = sim_sweep_to_json (sweep, three);
  g_autofree char *c1 = sim_sweep_to_csv (sweep, one);
  g_autofree char *c3 = sim_sweep_to_csv (sweep, three);
  /* Run 5: point 2 (count 3, rate 1/h), seed 4, built by hand. */
  const char *sets[] = { "pool p.count=3", "workload.rate=1/h", "scenario.seed=4", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load (path, sets, &error);
  g_autoptr(SimSimulation) sim = sim_simulation_new (sc, &error);
  double wait;

  ck_assert_str_eq (t1, t3);
  ck_assert_str_eq (j1, j3);
  ck_assert_str_eq (c1, c3);
  ck_assert (sim_plan_results_check (one, NULL));
  ck_assert (sim_simulation_run (sim, &error));
  ck_assert (sim_report_get_value (sim_simulation_get_report (sim), "wait_mean", &wait));
  ck_assert_str_eq (sim_plan_get_entry_label (sim_sweep_get_plan (sweep), 2),
                    "pool p.count=3 workload.rate=1/h");
  ck_assert (sim_plan_results_get_value (one, 5, 0) == wait);
  ck_assert (strstr (t1, "pool p.count") != NULL);
  ck_assert (strstr (c1, "point,label,pool p.count,workload.rate,metric,unit,n,mean,sd,low,high\n") == c1);
}
END_TEST

START_TEST (test_database)
{
  g_autofree char *path = write_sweep ("d.ini", "pool p.count = 2, 3\n"
                                       "workload.rate = 1/h, 2/h\nseeds = 2\n");
  g_autofree char *db = g_build_filename (tmpdir, "all.db", NULL);
  g_autofree char *part0 = g_build_filename (tmpdir, "part0.db", NULL);
  g_autofree char *part1 = g_build_filename (tmpdir, "part1.db", NULL);
  g_autofree char *merged = g_build_filename (tmpdir, "merged.db", NULL);
  g_autofree char *bad = g_build_filename (tmpdir, "bad.db", NULL);
  g_autoptr(SimSweep) sweep = load (path);
  guint first[] = { 0, 1, 2, 3 };
  g_autoptr(SimPlanResults) reference = run_sweep (sweep, 2, NULL, 0, NULL);
  g_autoptr(SimPlanResults) half = run_sweep (sweep, 2, first, 4, db);
  g_autoptr(SimPlanResults) all = NULL, from_merge = NULL, fresh = NULL;
  g_autoptr(SimSweepDb) store = NULL, bad_store = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *want = sim_sweep_format_table (sweep, reference);
  g_autofree char *got = NULL, *got_merged = NULL;
  g_autofree guint *s0 = NULL, *s1 = NULL;
  guint n0, n1;

  ck_assert_uint_eq (progress_total, 4);
  ck_assert_uint_eq (sim_plan_results_get_n_done (half), 4);
  all = run_sweep (sweep, 2, NULL, 0, db);
  ck_assert_uint_eq (progress_total, 4);      /* the other four only */
  got = sim_sweep_format_table (sweep, all);
  ck_assert_str_eq (got, want);
  g_clear_object (&all);
  all = run_sweep (sweep, 2, NULL, 0, db);
  ck_assert_uint_eq (progress_total, 0);      /* nothing left to run */


  /* Every metric of the report is kept, not only the summary's. */
  fresh = sim_plan_results_new (sim_sweep_get_plan (sweep));
  store = sim_sweep_db_open (db, sweep, &error);
  ck_assert_msg (store != NULL, "%s", error ? error->message : "");
  ck_assert_int_eq (sim_sweep_db_resume (store, fresh, &error), 8);
  g_clear_object (&store);

  /* Two shards, merged. */
  s0 = sim_sweep_dup_shard_runs (sweep, 0, 2, &n0);
  s1 = sim_sweep_dup_shard_runs (sweep, 1, 2, &n1);
  g_clear_object (&half);
  half = run_sweep (sweep, 1, s0, n0, part0);
  g_clear_object (&half);
  half = run_sweep (sweep, 1, s1, n1, part1);
  store = sim_sweep_db_open (merged, sweep, &error);
  ck_assert_int_eq (sim_sweep_db_merge (store, part0, &error), 4);
  ck_assert_int_eq (sim_sweep_db_merge (store, part1, &error), 4);
  ck_assert_int_eq (sim_sweep_db_merge (store, part1, &error), 0);
  from_merge = sim_plan_results_new (sim_sweep_get_plan (sweep));
  ck_assert_int_eq (sim_sweep_db_resume (store, from_merge, &error), 8);
  got_merged = sim_sweep_format_table (sweep, from_merge);
  ck_assert_str_eq (got_merged, want);

  /* A part that disagrees: run 0 recorded with other values. */
  bad_store = sim_sweep_db_open (bad, sweep, &error);
  {
    const char *names[] = { "wait_mean" };
    double v[] = { 12345.0 };
    ck_assert (sim_sweep_db_add_values (bad_store, 0, 1, names, v, NULL, &error));
  }
  ck_assert_int_eq (sim_sweep_db_merge (store, bad, &error), -1);
  ck_assert_int_eq (error->code, SIM_ERROR_INVALID);
  ck_assert_msg (strstr (error->message, "seed 3") != NULL, "%s", error->message);
  /* The scenario edited (another horizon): no row is reused. */
  {
    g_autofree char *text = NULL;
    g_autoptr(GString) edited = NULL;
    g_autoptr(SimSweep) other = NULL;
    g_autoptr(SimPlanResults) rerun = NULL;
    ck_assert (g_file_get_contents (path, &text, NULL, NULL));
    edited = g_string_new (text);
    g_string_replace (edited, "horizon = 2d", "horizon = 3d", 1);
    ck_assert (g_file_set_contents (path, edited->str, -1, NULL));
    other = load (path);
    rerun = run_sweep (other, 2, NULL, 0, db);
    ck_assert_uint_eq (progress_total, 8);    /* every run again */
  }
}
END_TEST

/* The error for SWEEP must contain each of the NULL-terminated WANTS. */
static void
expect_error (const char *sweep, ...)
{
  g_autofree char *path = write_sweep ("bad.ini", sweep);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimSweep) s = sim_sweep_new (path, NULL, &error);
  va_list ap;
  const char *want;

  ck_assert_msg (s == NULL, "accepted: %s", sweep);
  va_start (ap, sweep);
  while ((want = va_arg (ap, const char *)) != NULL)
    ck_assert_msg (strstr (error->message, want) != NULL, "\"%s\" not in: %s", want,
                   error->message);
  va_end (ap);
}

START_TEST (test_bad_sweeps)
{
  /* The [sweep] section opens on line 22 of these files. */
  expect_error ("pool p.count = 2..\n", "bad.ini:23: [sweep] pool p.count", "range", NULL);
  expect_error ("pool p.count = 4..2\n", "bad.ini:23: [sweep] pool p.count", "ends before", NULL);
  expect_error ("pool p.count = 2, , 3\n", "bad.ini:23: [sweep] pool p.count", "empty", NULL);
  expect_error ("seeds = 0\n", "bad.ini:23: [sweep] seeds", NULL);
  expect_error ("level = 2\n", "bad.ini:23: [sweep] level", NULL);
  expect_error ("sedes = 3\n", "bad.ini:23: [sweep] sedes", "did you mean \"seeds\"", NULL);
  expect_error ("pool p.count = 2, 3\nworkload.rate = 1/h\nzip = pool p.count, workload.rate\n",
                "bad.ini:25: [sweep] zip", "2 values", NULL);
  expect_error ("pool p.count = 2, 3\nzip = pool p.count, workload.rat\n",
                "bad.ini:24: [sweep] zip", "workload.rat", NULL);
  /* A value the scenario refuses: at its line in [sweep]. */
  expect_error ("pool p.count = 2\nworkload.rate = 1/h, 3\n",
                "bad.ini:24: [sweep] workload.rate", "unit", NULL);
  expect_error ("pool p.cont = 2\n", "bad.ini:23: [sweep] pool p.cont", NULL);
  /* A value only a build refuses: its runs fail, at its line. */
  {
    g_autofree char *path = write_sweep ("late.ini", "pool p.model = PCIe-8GPU, NoSuchNode\n");
    g_autoptr(SimSweep) s = load (path);
    g_autoptr(SimPlanResults) results = run_sweep (s, 2, NULL, 0, NULL);
    g_autoptr(GError) error = NULL;
    ck_assert_int_eq (sim_plan_results_get_state (results, 0), SIM_PLAN_RUN_DONE);
    ck_assert (!sim_plan_results_check (results, &error));
    ck_assert_msg (g_str_has_prefix (error->message, "variant pool p.model=NoSuchNode, seed 3: ") &&
                   strstr (error->message, "late.ini:23: [sweep] pool p.model: no node model") != NULL,
                   "%s", error->message);
  }
  {
    g_autofree char *path = g_build_filename (tmpdir, "none.ini", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(SimSweep) s = NULL;
    ck_assert (g_file_set_contents (path, scenario_text, -1, NULL));
    s = sim_sweep_new (path, NULL, &error);
    ck_assert (s == NULL);
    ck_assert_int_eq (error->code, SIM_ERROR_MISSING);
    ck_assert (strstr (error->message, "no [sweep] section") != NULL);
  }
}
END_TEST

/* Mutated [sweep] sections: each parses, or fails with an error that names
 * the file; none crashes, none fails without an error. */
START_TEST (test_mutations)
{
  static const char base[] =
    "pool p.count = 2, 3\n"
    "workload.rate = 1/h..2/h step 0.5/h\n"
    "class small.share = 0.6, 0.7, 0.8\n"
    "zip = workload.rate, class small.share\n"
    "seeds = 2\n"
    "metrics = wait_mean\n";
  static const char alphabet[] = "0123456789.,;=/ \nhstepzi[]#-";
  g_autoptr(GRand) rand = g_rand_new_with_seed (13);
  guint parsed = 0, refused = 0;

  for (guint i = 0; i < 300; i++)
    {
      g_autoptr(GString) text = g_string_new (base);
      g_autofree char *path = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(SimSweep) sweep = NULL;
      guint edits = 1 + (guint) g_rand_int_range (rand, 0, 3);

      for (guint e = 0; e < edits; e++)
        {
          guint at = (guint) g_rand_int_range (rand, 0, (gint32) text->len);
          char c = alphabet[g_rand_int_range (rand, 0, (gint32) sizeof alphabet - 1)];
          switch (g_rand_int_range (rand, 0, 3))
            {
            case 0: text->str[at] = c; break;
            case 1: g_string_insert_c (text, at, c); break;
            default: g_string_erase (text, at, 1); break;
            }
        }
      path = write_sweep ("mutated.ini", text->str);
      sweep = sim_sweep_new (path, NULL, &error);
      if (sweep == NULL)
        {
          ck_assert_msg (error != NULL, "refused without an error: %s", text->str);
          ck_assert_msg (strstr (error->message, "mutated.ini") != NULL,
                         "the error does not name the file: %s", error->message);
          refused++;
        }
      else
        {
          SimPlan *plan = sim_sweep_get_plan (sweep);
          ck_assert (error == NULL);
          ck_assert_uint_ge (sim_sweep_get_n_points (sweep), 1);
          ck_assert_uint_eq (sim_plan_get_n_entries (plan), sim_sweep_get_n_points (sweep));
          parsed++;
        }
    }
  /* Both outcomes occur: the mutations reach past the first check. */
  ck_assert_uint_ge (parsed, 10);
  ck_assert_uint_gt (refused, 20);
}
END_TEST

static Suite *
sweep_suite (void)
{
  Suite *s = suite_create ("sweep");
  TCase *tc = tcase_create ("sweeps");

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_points);
  tcase_add_test (tc, test_shards_and_hash);
  tcase_add_test (tc, test_concurrent_simulations);
  tcase_add_test (tc, test_threads_and_by_hand);
  tcase_add_test (tc, test_database);
  tcase_add_test (tc, test_bad_sweeps);
  tcase_add_test (tc, test_mutations);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (sweep_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}

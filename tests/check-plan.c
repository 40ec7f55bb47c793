/* check-plan.c: plans of runs, executors and the results they feed back.
 *
 * What it checks:
 *  - a plan (built-in policies, a placement alone, a variant, overrides,
 *    chosen metrics and seeds) written as JSON and read back is equal to
 *    the original and writes the same bytes, through a file too; a plan
 *    with other seeds is not equal;
 *  - each run's overrides, spelled out in the test;
 *  - the thread executor's results, with one thread and with three, equal
 *    bit for bit those of running each (scenario, overrides, seed) by hand
 *    with sim_simulation_run(), the overrides written by hand here;
 *  - results computed in two halves by two executors, merged, and written
 *    and read back, are the same doubles as a single run of the plan, and
 *    the comparison renders them to the same bytes;
 *  - statistics taken from results alone: a bootstrap interval and a
 *    paired difference on values worked out by hand below, fed in as a
 *    results file (no simulation at all);
 *  - failures: a failed run is recorded with its error and the runs after
 *    it (one thread) are left pending; sim_plan_results_check() reports the
 *    lowest failed run, or the pending ones; bad plan and results files (a
 *    version, a member, a changed run, an unknown policy, a run index out of
 *    range, values of the wrong length) and bad run lists are errors that
 *    name what was expected; merging conflicting results or results of
 *    different plans is refused.
 * What it does not check: executors other than the thread pool (there are
 * none yet), plugins in plans (test-compare.sh runs one), or speed.
 */
#include "config.h"

#include <check.h>
#include <glib/gstdio.h>
#include <math.h>
#include <sim.h>
#include <stdlib.h>
#include <string.h>

static char *tmpdir;
static char *scenario_path;

/* A small synthetic load on three 4-GPU nodes for two days (the one
 * check-compare uses): enough jobs to queue and for placements to differ. */
static const char tiny_scenario[] =
  "[scenario]\n"
  "name = tiny-plan\n"
  "seed = 7\n"
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
  tmpdir = g_dir_make_tmp ("check-plan-XXXXXX", NULL);
  ck_assert_ptr_nonnull (tmpdir);
  scenario_path = g_build_filename (tmpdir, "tiny.ini", NULL);
  ck_assert (g_file_set_contents (scenario_path, tiny_scenario, -1, NULL));
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
  g_clear_pointer (&scenario_path, g_free);
}

/* Three entries (a placement alone, QUEUE/PLACEMENT, a variant) on seeds
 * 7 and 8, two metrics, one override for every run. */
static SimPlan *
make_plan (void)
{
  const char *sets[] = { "workload.rate=1.2/h", NULL };
  const char *variant[] = { "workload.rate=2/h", "policy.placement=best-fit", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(SimPlan) plan = sim_plan_new (scenario_path, sets, &error);

  ck_assert_msg (plan != NULL, "%s", error ? error->message : "");
  ck_assert_msg (sim_plan_add_policy (plan, "first-fit", &error), "%s", error->message);
  ck_assert_msg (sim_plan_add_policy (plan, "sjf/best-fit", &error), "%s", error->message);
  ck_assert_msg (sim_plan_add_variant (plan, "busy", variant, &error), "%s", error->message);
  sim_plan_add_metric (plan, "wait_mean");
  sim_plan_add_metric (plan, "gpu_utilization");
  sim_plan_set_seeds (plan, 7, 2);
  return g_steal_pointer (&plan);
}

/* ------------------------------------------------------------------------- */

START_TEST (test_plan_round_trip)
{
  g_autoptr(SimPlan) plan = make_plan ();
  g_autoptr(SimPlan) back = NULL, from_file = NULL, other = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = sim_plan_to_json (plan);
  g_autofree char *again = NULL;
  g_autofree char *path = g_build_filename (tmpdir, "plan.json", NULL);

  ck_assert_str_eq (sim_plan_get_scenario_name (plan), "tiny-plan");
  ck_assert_uint_eq (sim_plan_get_n_entries (plan), 3);
  ck_assert_uint_eq (sim_plan_get_n_runs (plan), 6);
  ck_assert_str_eq (sim_plan_get_entry_label (plan, 0), "fifo/first-fit");
  ck_assert_str_eq (sim_plan_get_entry_spec (plan, 0), "first-fit");
  ck_assert_str_eq (sim_plan_get_entry_label (plan, 1), "sjf/best-fit");
  ck_assert_str_eq (sim_plan_get_entry_label (plan, 2), "busy");
  ck_assert_int_eq (sim_plan_get_entry_kind (plan, 2), SIM_PLAN_ENTRY_VARIANT);

  back = sim_plan_new_from_json (text, "plan.json", &error);
  ck_assert_msg (back != NULL, "%s", error ? error->message : "");
  ck_assert (sim_plan_equal (plan, back));
  again = sim_plan_to_json (back);
  ck_assert_str_eq (text, again);

  ck_assert_msg (sim_plan_write (plan, path, &error), "%s", error ? error->message : "");
  from_file = sim_plan_load (path, &error);
  ck_assert_msg (from_file != NULL, "%s", error ? error->message : "");
  ck_assert (sim_plan_equal (plan, from_file));

  /* Equality can fail: the same entries on other seeds. */
  other = make_plan ();
  sim_plan_set_seeds (other, 8, 2);
  ck_assert (!sim_plan_equal (plan, other));
}
END_TEST

START_TEST (test_run_overrides)
{
  g_autoptr(SimPlan) plan = make_plan ();
  g_auto(GStrv) r0 = sim_plan_dup_run_overrides (plan, 0);
  g_auto(GStrv) r3 = sim_plan_dup_run_overrides (plan, 3);
  g_auto(GStrv) r5 = sim_plan_dup_run_overrides (plan, 5);
  const char * const want0[] = { "workload.rate=1.2/h", "scenario.seed=7", "policy.queue=fifo",
                                 "policy.placement=first-fit", NULL };
  const char * const want3[] = { "workload.rate=1.2/h", "scenario.seed=8", "policy.queue=sjf",
                                 "policy.placement=best-fit", NULL };
  const char * const want5[] = { "workload.rate=1.2/h", "scenario.seed=8", "workload.rate=2/h",
                                 "policy.placement=best-fit", NULL };

  ck_assert (g_strv_equal ((const char * const *) r0, want0));
  ck_assert (g_strv_equal ((const char * const *) r3, want3));
  ck_assert (g_strv_equal ((const char * const *) r5, want5));
  ck_assert_uint_eq (sim_plan_get_run_entry (plan, 3), 1);
  ck_assert_uint_eq (sim_plan_get_run_seed (plan, 3), 8);
  ck_assert_uint_eq (sim_plan_get_run_entry (plan, 4), 2);
  ck_assert_uint_eq (sim_plan_get_run_seed (plan, 4), 7);
}
END_TEST

/* One run made by hand, as a user of the library would, with the
 * overrides written out here rather than asked of the plan. */
static void
run_by_hand (const char * const *sets, double *wait, double *util)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load (scenario_path, sets, &error);
  g_autoptr(SimSimulation) sim = NULL;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  ck_assert (sim_report_get_value (sim_simulation_get_report (sim), "wait_mean", wait));
  ck_assert (sim_report_get_value (sim_simulation_get_report (sim), "gpu_utilization", util));
}

static SimPlanResults *
execute (SimPlan *plan, guint n_threads, const guint *runs, guint n_runs)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimExecutor) executor = sim_thread_executor_new (n_threads);
  g_autoptr(SimPlanResults) results = sim_plan_results_new (plan);

  ck_assert_msg (sim_executor_execute (executor, results, runs, n_runs, &error), "%s",
                 error ? error->message : "");
  return g_steal_pointer (&results);
}

START_TEST (test_executor_matches_by_hand)
{
  g_autoptr(SimPlan) plan = make_plan ();
  g_autoptr(SimPlanResults) one = execute (plan, 1, NULL, 0);
  g_autoptr(SimPlanResults) three = execute (plan, 3, NULL, 0);
  g_autoptr(GError) error = NULL;
  const char * const by_hand[6][5] = {
    { "workload.rate=1.2/h", "scenario.seed=7", "policy.queue=fifo", "policy.placement=first-fit", NULL },
    { "workload.rate=1.2/h", "scenario.seed=8", "policy.queue=fifo", "policy.placement=first-fit", NULL },
    { "workload.rate=1.2/h", "scenario.seed=7", "policy.queue=sjf", "policy.placement=best-fit", NULL },
    { "workload.rate=1.2/h", "scenario.seed=8", "policy.queue=sjf", "policy.placement=best-fit", NULL },
    { "workload.rate=1.2/h", "scenario.seed=7", "workload.rate=2/h", "policy.placement=best-fit", NULL },
    { "workload.rate=1.2/h", "scenario.seed=8", "workload.rate=2/h", "policy.placement=best-fit", NULL },
  };
  double waits[6];

  ck_assert_msg (sim_plan_results_check (one, &error), "%s", error ? error->message : "");
  ck_assert_uint_eq (sim_plan_results_get_n_done (one), 6);
  ck_assert_str_eq (sim_plan_results_get_unit (one, 0), "s");
  ck_assert_str_eq (sim_plan_results_get_unit (one, 1), "ratio");
  for (guint r = 0; r < 6; r++)
    {
      double wait, util;
      run_by_hand (by_hand[r], &wait, &util);
      ck_assert_int_eq (sim_plan_results_get_state (one, r), SIM_PLAN_RUN_DONE);
      ck_assert_double_eq (sim_plan_results_get_value (one, r, 0), wait);
      ck_assert_double_eq (sim_plan_results_get_value (one, r, 1), util);
      ck_assert_double_eq (sim_plan_results_get_value (three, r, 0), wait);
      ck_assert_double_eq (sim_plan_results_get_value (three, r, 1), util);
      waits[r] = wait;
    }
  /* The entries differ, so a mix-up of runs would show. */
  ck_assert_double_ne (waits[0], waits[1]);
  ck_assert_double_ne (waits[0], waits[4]);
}
END_TEST

START_TEST (test_results_in_pieces)
{
  g_autoptr(SimPlan) plan = make_plan ();
  const guint even[] = { 0, 2, 4 }, odd[] = { 5, 3, 1 };
  g_autoptr(SimPlanResults) whole = execute (plan, 2, NULL, 0);
  g_autoptr(SimPlanResults) a = execute (plan, 1, even, 3);
  g_autoptr(SimPlanResults) b = execute (plan, 2, odd, 3);
  g_autoptr(SimPlanResults) back = NULL;
  g_autoptr(SimComparison) cmp_whole = NULL, cmp_back = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL, *t1 = NULL, *t2 = NULL, *c1 = NULL, *c2 = NULL;

  /* Half the runs: not enough for statistics. */
  ck_assert_uint_eq (sim_plan_results_get_n_done (a), 3);
  ck_assert_int_eq (sim_plan_results_get_state (a, 1), SIM_PLAN_RUN_PENDING);
  ck_assert (!sim_plan_results_check (a, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_MISSING));
  ck_assert_str_eq (error->message,
                    "3 of 6 runs have no result (the first: run 1, fifo/first-fit, seed 8)");
  g_clear_error (&error);

  ck_assert_msg (sim_plan_results_merge (a, b, &error), "%s", error ? error->message : "");
  ck_assert_msg (sim_plan_results_check (a, &error), "%s", error ? error->message : "");
  text = sim_plan_results_to_json (a);
  back = sim_plan_results_new_from_json (text, "results.json", &error);
  ck_assert_msg (back != NULL, "%s", error ? error->message : "");
  for (guint r = 0; r < 6; r++)
    for (guint m = 0; m < 2; m++)
      {
        double w = sim_plan_results_get_value (whole, r, m);
        ck_assert (memcmp (&w, &(double) { sim_plan_results_get_value (back, r, m) },
                           sizeof w) == 0);
      }

  cmp_whole = sim_comparison_new_for_plan (plan);
  ck_assert (sim_comparison_set_results (cmp_whole, whole, &error));
  cmp_back = sim_comparison_new_for_plan (sim_plan_results_get_plan (back));
  ck_assert_msg (sim_comparison_set_results (cmp_back, back, &error), "%s",
                 error ? error->message : "");
  t1 = sim_comparison_format_table (cmp_whole);
  t2 = sim_comparison_format_table (cmp_back);
  ck_assert_str_eq (t1, t2);
  c1 = sim_comparison_to_csv (cmp_whole);
  c2 = sim_comparison_to_csv (cmp_back);
  ck_assert_str_eq (c1, c2);

  /* Merging again what is already there is harmless; another value is not. */
  ck_assert (sim_plan_results_merge (a, b, &error));
  {
    g_autofree char *changed = NULL;
    g_autoptr(SimPlanResults) c = NULL;
    GString *s = g_string_new (text);
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    g_ascii_dtostr (buf, sizeof buf, sim_plan_results_get_value (whole, 0, 0));
    ck_assert (g_string_replace (s, buf, "12345.5", 1) == 1);
    changed = g_string_free (s, FALSE);
    c = sim_plan_results_new_from_json (changed, "changed.json", &error);
    ck_assert_msg (c != NULL, "%s", error ? error->message : "");
    ck_assert_double_eq (sim_plan_results_get_value (c, 0, 0), 12345.5);
    ck_assert (!sim_plan_results_merge (a, c, &error));
    ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
    ck_assert_ptr_nonnull (strstr (error->message, "run 0 (fifo/first-fit, seed 7)"));
    g_clear_error (&error);
  }
  /* Results of another plan. */
  {
    g_autoptr(SimPlan) other = make_plan ();
    g_autoptr(SimPlanResults) r = NULL;
    sim_plan_set_seeds (other, 8, 2);
    r = sim_plan_results_new (other);
    ck_assert (!sim_plan_results_merge (a, r, &error));
    ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
    g_clear_error (&error);
    g_clear_object (&cmp_whole);
    cmp_whole = sim_comparison_new_for_plan (other);
    ck_assert (!sim_comparison_set_results (cmp_whole, a, &error));
    ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  }
}
END_TEST

/* Statistics from results alone.  One metric, two entries, three seeds,
 * the values written in a results file by hand:
 *
 *   baseline {4, 6, 8}: mean 6; squared deviations 4 + 0 + 4 = 8, so
 *   s = sqrt (8 / 2) = 2.  Waits are non-negative: the interval is the
 *   bootstrap's, whose tails at n = 3 (Phi (-sqrt (3/2) x 4.302653), under
 *   1e-7) reach the smallest and largest resampled means, 4 and 8 (each
 *   drawn thrice in 1 of 27 resamples): [4, 8].  (Student's t would give
 *   t(0.975, 2) = 4.302652730, half-width 4.302652730 x 2 / sqrt (3) =
 *   4.968275, [1.031725, 10.968275].)
 *
 *   other {5, 8, 9}: paired differences {1, 2, 1}, mean 4/3; squared
 *   deviations 1/9 + 4/9 + 1/9 = 2/3, s = sqrt (1/3) = 0.577350; half-width
 *   4.302652730 x 0.577350 / sqrt (3) = 1.434218; interval
 *   [-0.100884, 2.767551], which includes 0: not significant. */
START_TEST (test_statistics_on_results)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimPlan) plan = sim_plan_new (scenario_path, NULL, &error);
  g_autoptr(SimPlanResults) results = NULL;
  g_autoptr(SimComparison) cmp = NULL;
  g_autofree char *plan_text = NULL, *text = NULL;
  SimCompareInterval ci;

  ck_assert (sim_plan_add_policy (plan, "first-fit", &error));
  ck_assert (sim_plan_add_policy (plan, "best-fit", &error));
  sim_plan_add_metric (plan, "wait_mean");
  sim_plan_set_seeds (plan, 1, 3);
  plan_text = sim_plan_to_json (plan);
  text = g_strdup_printf ("{ \"gpusim_results\": 1, \"plan\": %s, \"units\": [\"s\"],\n"
                          "  \"runs\": [ {\"run\": 0, \"values\": [4]}, {\"run\": 1, \"values\": [6]},\n"
                          "    {\"run\": 2, \"values\": [8.0]}, {\"run\": 3, \"values\": [5]},\n"
                          "    {\"run\": 4, \"values\": [8]}, {\"run\": 5, \"values\": [9]} ] }",
                          plan_text);
  results = sim_plan_results_new_from_json (text, "by-hand.json", &error);
  ck_assert_msg (results != NULL, "%s", error ? error->message : "");
  cmp = sim_comparison_new_for_plan (sim_plan_results_get_plan (results));
  ck_assert_msg (sim_comparison_set_results (cmp, results, &error), "%s",
                 error ? error->message : "");

  ck_assert_str_eq (sim_comparison_get_unit (cmp, 0), "s");
  ck_assert (sim_comparison_get_interval (cmp, 0, 0, &ci));
  ck_assert_double_eq_tol (ci.mean, 6, 1e-12);
  ck_assert_double_eq_tol (ci.sd, 2, 1e-12);
  ck_assert (!ci.symmetric);
  ck_assert_double_eq_tol (ci.half_width, 2, 1e-12);
  ck_assert_double_eq_tol (ci.low, 4, 1e-12);
  ck_assert_double_eq_tol (ci.high, 8, 1e-12);
  {
    const double x[] = { 4, 6, 8 };
    SimCompareInterval t;
    ck_assert (sim_compare_t_interval (x, 3, 0.95, &t));
    ck_assert_double_eq_tol (t.half_width, 4.968275, 1e-6);
    ck_assert_double_eq_tol (t.low, 1.031725, 1e-6);
    ck_assert_double_eq_tol (t.high, 10.968275, 1e-6);
  }

  ck_assert (sim_comparison_get_difference (cmp, 1, 0, &ci));
  ck_assert_double_eq_tol (ci.mean, 4.0 / 3, 1e-12);
  ck_assert_double_eq_tol (ci.sd, 0.577350, 1e-6);
  ck_assert_double_eq_tol (ci.half_width, 1.434218, 1e-6);
  ck_assert_double_eq_tol (ci.low, -0.100884, 1e-6);
  ck_assert_double_eq_tol (ci.high, 2.767551, 1e-6);
  ck_assert (ci.symmetric);
  ck_assert (!sim_compare_interval_excludes_zero (&ci));
}
END_TEST

START_TEST (test_failures)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimPlan) plan = sim_plan_new (scenario_path, NULL, &error);
  g_autoptr(SimPlanResults) results = NULL;
  g_autoptr(SimPlanResults) back = NULL;
  g_autoptr(SimExecutor) executor = sim_thread_executor_new (1);
  g_autofree char *text = NULL;
  const guint twice[] = { 1, 1 }, beyond[] = { 4 };

  ck_assert (sim_plan_add_policy (plan, "first-fit", &error));
  ck_assert (sim_plan_add_policy (plan, "best-fit", &error));
  sim_plan_add_metric (plan, "wait_man");
  sim_plan_set_seeds (plan, 1, 2);
  results = sim_plan_results_new (plan);

  ck_assert (!sim_executor_execute (executor, results, twice, 2, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
  ck_assert_str_eq (error->message, "run 1: given twice (the plan has runs 0 to 3)");
  g_clear_error (&error);
  ck_assert (!sim_executor_execute (executor, results, beyond, 1, &error));
  ck_assert_str_eq (error->message, "run 4: no such run (the plan has runs 0 to 3)");
  g_clear_error (&error);

  /* Run 0 fails (no such metric); on one thread, nothing after it starts. */
  ck_assert (sim_executor_execute (executor, results, NULL, 0, &error));
  ck_assert_int_eq (sim_plan_results_get_state (results, 0), SIM_PLAN_RUN_FAILED);
  for (guint r = 1; r < 4; r++)
    ck_assert_int_eq (sim_plan_results_get_state (results, r), SIM_PLAN_RUN_PENDING);
  ck_assert (isnan (sim_plan_results_get_value (results, 0, 0)));
  ck_assert (!sim_plan_results_check (results, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_NOT_FOUND));
  ck_assert_ptr_nonnull (strstr (error->message, "did you mean \"wait_mean\""));
  g_clear_error (&error);

  /* The error survives a results file. */
  text = sim_plan_results_to_json (results);
  back = sim_plan_results_new_from_json (text, NULL, &error);
  ck_assert_msg (back != NULL, "%s", error ? error->message : "");
  ck_assert_int_eq (sim_plan_results_get_state (back, 0), SIM_PLAN_RUN_FAILED);
  ck_assert (g_error_matches (sim_plan_results_get_error (back, 0), SIM_ERROR,
                              SIM_ERROR_NOT_FOUND));
  ck_assert_str_eq (sim_plan_results_get_error (back, 0)->message,
                    sim_plan_results_get_error (results, 0)->message);

  /* A run that fails to build is named by entry and seed. */
  {
    g_autoptr(SimPlan) p = sim_plan_new (scenario_path, NULL, &error);
    g_autoptr(SimPlanResults) r = NULL;
    g_autofree char *moved = g_build_filename (tmpdir, "moved.ini", NULL);
    ck_assert (sim_plan_add_policy (p, "first-fit", &error));
    sim_plan_set_seeds (p, 3, 1);
    r = sim_plan_results_new (p);
    ck_assert (g_rename (scenario_path, moved) == 0);
    ck_assert (!sim_plan_execute_run (p, 0, r));
    ck_assert (g_rename (moved, scenario_path) == 0);
    ck_assert (g_str_has_prefix (sim_plan_results_get_error (r, 0)->message,
                                 "policy fifo/first-fit, seed 3: "));
  }
}
END_TEST

/* Reads TEXT as a plan and expects an error of CODE whose message
 * contains WANT. */
static void
expect_plan_error (const char *text, int code, const char *want)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimPlan) plan = sim_plan_new_from_json (text, "p.json", &error);

  ck_assert_msg (plan == NULL, "accepted: %s", text);
  ck_assert_msg (g_error_matches (error, SIM_ERROR, code), "%s", error->message);
  ck_assert_msg (strstr (error->message, want) != NULL, "\"%s\" not in \"%s\"", want,
                 error->message);
}

static void
expect_results_error (const char *text, int code, const char *want)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimPlanResults) results = sim_plan_results_new_from_json (text, "r.json", &error);

  ck_assert_msg (results == NULL, "accepted: %s", text);
  ck_assert_msg (g_error_matches (error, SIM_ERROR, code), "%s", error->message);
  ck_assert_msg (strstr (error->message, want) != NULL, "\"%s\" not in \"%s\"", want,
                 error->message);
}

/* TEXT with the first FROM replaced by TO. */
static char *
replace (const char *text, const char *from, const char *to)
{
  GString *s = g_string_new (text);

  ck_assert_msg (g_string_replace (s, from, to, 1) == 1, "no \"%s\"", from);
  return g_string_free (s, FALSE);
}

START_TEST (test_bad_files)
{
  g_autoptr(SimPlan) plan = make_plan ();
  g_autofree char *text = sim_plan_to_json (plan);
  g_autofree char *t = NULL;
  g_autofree char *results = NULL;

  expect_plan_error ("{", SIM_ERROR_PARSE, "p.json: not JSON");
  expect_plan_error ("[1]", SIM_ERROR_PARSE, "p.json: top level: expected a plan object");
  t = replace (text, "\"gpusim_plan\" : 1", "\"gpusim_plan\" : 2");
  expect_plan_error (t, SIM_ERROR_INVALID, "p.json: gpusim_plan: format version 2, this "
                     "gpusim reads version 1");
  g_free (t);
  t = replace (text, "\"count\" : 2", "\"count\" : 0");
  expect_plan_error (t, SIM_ERROR_PARSE, "p.json: seeds.count: expected a number of seeds");
  g_free (t);
  t = replace (text, "\"policy\" : \"first-fit\"", "\"policy\" : \"frist-fit\"");
  expect_plan_error (t, SIM_ERROR_NOT_FOUND, "did you mean \"first-fit\"");
  g_free (t);
  t = replace (text, "\"policy\" : \"first-fit\"", "\"policy\" : 3");
  expect_plan_error (t, SIM_ERROR_PARSE, "p.json: entries[0].policy: expected a string");
  g_free (t);
  t = replace (text, "\"policy\" : \"sjf/best-fit\"", "\"polcy\" : \"sjf/best-fit\"");
  expect_plan_error (t, SIM_ERROR_PARSE,
                     "p.json: entries[1]: expected a \"policy\" or a \"variant\" member");
  g_free (t);
  /* A run that is not the plan's (a hand edit, or another scenario). */
  t = replace (text, "\"scenario.seed=8\"", "\"scenario.seed=9\"");
  expect_plan_error (t, SIM_ERROR_INVALID, "p.json: runs[1]: not the run the plan makes");
  g_free (t);
  t = replace (text, "\"label\" : \"fifo/first-fit\",\n      \"policy\"",
               "\"label\" : \"lifo/first-fit\",\n      \"policy\"");
  expect_plan_error (t, SIM_ERROR_INVALID, "entries[0].label: \"lifo/first-fit\"");
  g_free (t);

  results = g_strdup_printf ("{ \"gpusim_results\": 1, \"plan\": %s, \"units\": [\"s\", "
                             "\"ratio\"], \"runs\": [ RUNS ] }", text);
  t = replace (results, "RUNS", "{\"run\": 6, \"values\": [1, 2]}");
  expect_results_error (t, SIM_ERROR_PARSE, "r.json: runs[0].run: expected a run index from "
                        "0 to 5, each once");
  g_free (t);
  t = replace (results, "RUNS", "{\"run\": 2, \"values\": [1, 2]}, {\"run\": 2, \"values\": [1, 2]}");
  expect_results_error (t, SIM_ERROR_PARSE, "r.json: runs[1].run: expected a run index");
  g_free (t);
  t = replace (results, "RUNS", "{\"run\": 1, \"values\": [1]}");
  expect_results_error (t, SIM_ERROR_PARSE, "r.json: runs[0].values: expected an array of 2 "
                        "numbers, one per metric");
  g_free (t);
  t = replace (results, "RUNS", "{\"run\": 1, \"values\": [1, \"x\"]}");
  expect_results_error (t, SIM_ERROR_PARSE, "r.json: runs[0].values: expected numbers");
  g_free (t);
  t = replace (results, "RUNS", "{\"run\": 1}");
  expect_results_error (t, SIM_ERROR_PARSE, "r.json: runs[0]: expected \"values\" or an "
                        "\"error\" object");
  g_free (t);
  {
    g_autofree char *u = replace (results, "\"units\": [\"s\", \"ratio\"]", "\"units\": [\"s\"]");
    t = replace (u, "RUNS", "");
  }
  expect_results_error (t, SIM_ERROR_PARSE, "r.json: units: expected an array of 2 units");
  g_free (t);
  {
    g_autofree char *v = replace (results, "\"gpusim_plan\" : 1", "\"gpusim_plan\" : \"one\"");
    t = replace (v, "RUNS", "");
  }
  expect_results_error (t, SIM_ERROR_PARSE, "r.json: plan.gpusim_plan: expected an integer");
}
END_TEST

static Suite *
plan_suite (void)
{
  Suite *s = suite_create ("plan");
  TCase *tc = tcase_create ("plans");

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_plan_round_trip);
  tcase_add_test (tc, test_run_overrides);
  tcase_add_test (tc, test_executor_matches_by_hand);
  tcase_add_test (tc, test_results_in_pieces);
  tcase_add_test (tc, test_statistics_on_results);
  tcase_add_test (tc, test_failures);
  tcase_add_test (tc, test_bad_files);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (plan_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}

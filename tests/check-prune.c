/* check-prune.c: demand-aware sharing leaves the resources of the nodes a
 * job holds whole out of the network's solver, and nothing moves.
 *
 * What it checks: the same scenario run twice side by side, once with
 * sim__job_comm_set_prune_default (FALSE) (every resource of every route
 * in the solver) and once as shipped, gives every job the same start,
 * end and GPUs, to the nanosecond, and the same network load (the
 * busiest and mean link, and every node's access links, hour by hour, to
 * 1e-12), on
 *  - a two-tier fat-tree at 3:1 with D-mod-K, under jobs of 2 and 4 GPUs
 *    (nodes shared: never pruned), 8, 16 and 32 GPUs, and 64 with
 *    tensor parallelism inside each node;
 *  - the same with a node failing and its jobs restarted elsewhere;
 *  - a three-tier fat-tree with spraying, a rail-optimized fabric, and a
 *    dragonfly (whose routes between groups are not fixed: as under ECMP);
 *  - a fat-tree under ECMP, whose routes between nodes hash the flows: a
 *    job inside one node is pruned, one across nodes is registered whole
 *    again (its time alone is not taken on its own routes, so its caps
 *    need not fit its nodes).
 * Each case also checks that it is not vacuous: collectives were pruned
 * (sim__job_comm_get_pruned_total()) in the shipped run and none in the
 * other, and registered whole again only where routes are not fixed;
 * collectives inside a node held whole were left unregistered
 * (sim__job_comm_get_skipped_total()) in the shipped run only, and
 * registered after all exactly where their job's others were registered
 * whole again; and
 * some jobs were slowed by the network (ended later than their duration
 * alone allows), so the shared resources did hold flows back.
 * test_comparison checks the comparison itself: one end moved by a
 * nanosecond is one difference.
 * What it does not check: speed (bench/bench-scale).
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <string.h>
#include <sim.h>
#include "fabric/sim-job-comm.h"
#include "kernel/sim-kernel.h"
#include "check-records.h"

/* The differences between two runs' jobs, job by job (and the jobs one
 * has and the other has not). */
static guint
differences (GHashTable *a, GHashTable *b)
{
  GHashTableIter it;
  gpointer value;
  guint n = g_hash_table_size (a) != g_hash_table_size (b);

  g_hash_table_iter_init (&it, a);
  while (g_hash_table_iter_next (&it, NULL, &value))
    {
      const Record *x = value, *y = g_hash_table_lookup (b, &x->id);
      if (y == NULL || x->start != y->start || x->end != y->end || x->n_gpus != y->n_gpus
          || memcmp (x->gpus, y->gpus, x->n_gpus * sizeof (guint32)) != 0)
        n++;
    }
  return n;
}

/* Jobs that ended later than their duration from their (last) start. */
static guint
slowed (GHashTable *jobs)
{
  GHashTableIter it;
  gpointer value;
  guint n = 0;

  g_hash_table_iter_init (&it, jobs);
  while (g_hash_table_iter_next (&it, NULL, &value))
    {
      const Record *r = value;
      if (r->end > 0 && r->end - r->start > r->duration + r->duration / 1000)
        n++;
    }
  return n;
}

static SimSimulation *
start (const char *text, gboolean prune, GHashTable *jobs)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = NULL;
  SimSimulation *sim;

  sc = sim_scenario_load_from_data (text, -1, "prune.ini", NULL, NULL, &error);
  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim__job_comm_set_prune_default (prune);
  /* (These fabrics fit in the caches, where the model would register
   * every collective: told to leave them out as at scale.) */
  sim__job_comm_set_skip_default (1);
  sim = sim_simulation_new (sc, &error);
  sim__job_comm_set_prune_default (TRUE);
  sim__job_comm_set_skip_default (-1);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  sim_simulation_set_job_observer (sim, record_job, jobs, NULL);
  return sim;
}

static void
assert_close (double a, double b, const char *what, double hour)
{
  ck_assert_msg (fabs (a - b) <= 1e-12 * MAX (1.0, fabs (b)),
                 "%s at hour %g: %.17g pruned, %.17g whole", what, hour, a, b);
}

/* Runs SIM until UNTIL (to the end with SIM_TIME_NEVER), adding the
 * collectives it pruned, and those it registered whole again, to *PRUNED
 * and *UNDONE (the counters are global: read around this run alone). */
static gboolean
run_counting (SimSimulation *sim, SimTime until, guint64 *pruned, guint64 *undone,
              guint64 *skipped, guint64 *after_all, GError **error)
{
  guint64 undone0, undone1, pruned0 = sim__job_comm_get_pruned_total (&undone0);
  guint64 after0, after1, skipped0 = sim__job_comm_get_skipped_total (&after0);
  gboolean ok = until == SIM_TIME_NEVER ? sim_simulation_run (sim, error)
                                        : sim_simulation_run_until (sim, until, error);

  *pruned += sim__job_comm_get_pruned_total (&undone1) - pruned0;
  *undone += undone1 - undone0;
  *skipped += sim__job_comm_get_skipped_total (&after1) - skipped0;
  *after_all += after1 - after0;
  return ok;
}

/* Runs the scenario of FABRIC (its [fabric] lines) and EXTRA (more
 * lines) both ways, hour by hour, comparing the loads; then the jobs.
 * Checks that collectives were pruned and, with UNDONE, that some were
 * registered whole again (a job across nodes whose routes hash). */
static void
compare (const char *fabric, const char *extra, gboolean undone)
{
  g_autofree char *text = g_strdup_printf (
    "[scenario]\nname = prune\nseed = 3\n"
    "[pool p]\nmodel = DGX-H100\ncount = 18\n"
    "[fabric]\n%s\n"
    "[workload]\nsource = synthetic\nrate = 40/h\njobs = 300\n"
    "[class shared]\nshare = 0.25\ngpus = 2:0.5, 4:0.5\n"
    "duration = lognormal(median=20min, sigma=0.5)\n"
    "iteration = 200ms\ngradient = 2GB\noverlap = 0.3\n"
    "[class node]\nshare = 0.25\ngpus = 8\n"
    "duration = lognormal(median=20min, sigma=0.5)\n"
    "iteration = 300ms\ngradient = 20GB\noverlap = 0.5\n"
    "[class multi]\nshare = 0.35\ngpus = 16:0.5, 32:0.5\n"
    "duration = lognormal(median=15min, sigma=0.5)\n"
    "iteration = 200ms\ngradient = 40GB\noverlap = 0.2\n"
    "[class big]\nshare = 0.15\ngpus = 64\n"
    "duration = lognormal(median=15min, sigma=0.5)\n"
    "iteration = 400ms\ngradient = 160GB\ntensor_parallel = 8\ntp_bytes = 8GB\noverlap = 0.2\n"
    "[policy]\nqueue = fifo\nplacement = first-fit\n%s",
    fabric, extra);
  g_autoptr(GHashTable) a = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL,
                                                   record_free);
  g_autoptr(GHashTable) b = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL,
                                                   record_free);
  guint64 n_pruned[2] = { 0, 0 }, n_undone[2] = { 0, 0 };
  guint64 n_skipped[2] = { 0, 0 }, n_after[2] = { 0, 0 };
  SimSimulation *pr = start (text, TRUE, a);
  SimSimulation *wh = start (text, FALSE, b);
  g_autoptr(GError) error = NULL;
  const guint n_nodes = 18;
  guint busy = 0;
  double hour;

  /* The hours of the run (the last job ends before 24 h), then the end. */
  for (hour = 1; hour <= 24; hour++)
    {
      double max_a, mean_a, max_b, mean_b, node_a[18], node_b[18];
      SimTime until = sim_time_from_seconds (3600 * hour);
      ck_assert_msg (run_counting (pr, until, &n_pruned[0], &n_undone[0], &n_skipped[0],
                                   &n_after[0], &error), "%s",
                     error->message);
      ck_assert_msg (run_counting (wh, until, &n_pruned[1], &n_undone[1], &n_skipped[1],
                                   &n_after[1], &error), "%s",
                     error->message);
      ck_assert (sim__kernel_get_fabric_load (pr, &max_a, &mean_a, node_a, n_nodes));
      ck_assert (sim__kernel_get_fabric_load (wh, &max_b, &mean_b, node_b, n_nodes));
      assert_close (max_a, max_b, "busiest link", hour);
      assert_close (mean_a, mean_b, "mean link", hour);
      for (guint n = 0; n < n_nodes; n++)
        assert_close (node_a[n], node_b[n], "a node's access links", hour);
      busy += max_b > 0.5;
      if (g_getenv ("GPUSIM_TEST_VERBOSE")) g_printerr ("hour %g: max %g mean %g\n", hour, max_b, mean_b);
    }
  ck_assert_msg (run_counting (pr, SIM_TIME_NEVER, &n_pruned[0], &n_undone[0],
                                 &n_skipped[0], &n_after[0], &error), "%s",
                 error->message);
  ck_assert_msg (run_counting (wh, SIM_TIME_NEVER, &n_pruned[1], &n_undone[1],
                                 &n_skipped[1], &n_after[1], &error), "%s",
                 error->message);
  ck_assert_uint_gt (busy, 0);
  ck_assert_uint_eq (g_hash_table_size (a), 300);
  ck_assert_msg (differences (a, b) == 0, "%s: %u jobs differ", fabric, differences (a, b));
  ck_assert_msg (slowed (b) > 0, "%s: no job slowed by the network", fabric);
  ck_assert_msg (n_pruned[0] > 0, "%s: nothing pruned", fabric);
  /* The run without pruning pruned nothing (and so undid nothing): the two
   * runs did differ in what the solver held. */
  ck_assert_msg (n_pruned[1] == 0 && n_undone[1] == 0, "%s: %" G_GUINT64_FORMAT " pruned and %"
                 G_GUINT64_FORMAT " registered whole again with pruning off", fabric, n_pruned[1],
                 n_undone[1]);
  if (undone)
    ck_assert_msg (n_undone[0] > 0, "%s: nothing registered whole again", fabric);
  else
    ck_assert_msg (n_undone[0] == 0, "%s: %" G_GUINT64_FORMAT " registered whole again",
                   fabric, n_undone[0]);
  /* Collectives inside a node held whole (the jobs of 8 GPUs, and the
   * tensor-parallel groups of those of 64) were left unregistered in the
   * shipped run and in none of the other; where a job's collective across
   * nodes was registered whole, those of its inside nodes were registered
   * after all (and then whole with it), and nowhere else. */
  ck_assert_msg (n_skipped[0] > 0 && n_skipped[1] == 0, "%s: %" G_GUINT64_FORMAT " and %"
                 G_GUINT64_FORMAT " left unregistered", fabric, n_skipped[0], n_skipped[1]);
  if (undone)
    ck_assert_msg (n_after[0] > 0 && n_after[0] < n_skipped[0],
                   "%s: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " registered after all",
                   fabric, n_after[0], n_skipped[0]);
  else
    ck_assert_msg (n_after[0] == 0, "%s: %" G_GUINT64_FORMAT " registered after all", fabric,
                   n_after[0]);
  g_object_unref (pr);
  g_object_unref (wh);
}

START_TEST (test_fat_tree)
{
  compare ("topology = fat-tree\nrouting = dmodk\nswitch = Quantum-2-QM9700\nradix = 32\n"
           "oversubscription = 3", "", FALSE);
}
END_TEST

START_TEST (test_failures)
{
  compare ("topology = fat-tree\nrouting = dmodk\nswitch = Quantum-2-QM9700\nradix = 32\n"
           "oversubscription = 3",
           "[failures]\nnode_mtbf = 30h\nnode_repair = 1h\n", FALSE);
}
END_TEST

START_TEST (test_other_fabrics)
{
  compare ("topology = fat-tree-3\nrouting = spray\nswitch = Quantum-2-QM9700\nradix = 16\n"
           "oversubscription = 2", "", FALSE);
  compare ("topology = rail-optimized\nrouting = dmodk\nswitch = Quantum-2-QM9700\nradix = 32\n"
           "oversubscription = 2", "", FALSE);
  compare ("topology = dragonfly\nswitch = Quantum-2-QM9700\nradix = 16\n"
           "routers_per_group = 4", "", TRUE);
}
END_TEST

START_TEST (test_ecmp)
{
  compare ("topology = fat-tree\nrouting = ecmp\nswitch = Quantum-2-QM9700\nradix = 32\n"
           "oversubscription = 3", "", TRUE);
}
END_TEST

/* The comparison sees one end a nanosecond off. */
START_TEST (test_comparison)
{
  g_autoptr(GHashTable) a = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL,
                                                   record_free);
  g_autoptr(GHashTable) b = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL,
                                                   record_free);

  for (guint i = 0; i < 2; i++)
    {
      Record *x = g_new0 (Record, 1), *y;
      x->id = i;
      x->start = 10;
      x->end = 100 + i;
      x->n_gpus = 1;
      x->gpus = g_new0 (guint32, 1);
      y = g_memdup2 (x, sizeof *x);
      y->gpus = g_new0 (guint32, 1);
      g_hash_table_insert (a, &x->id, x);
      g_hash_table_insert (b, &y->id, y);
    }
  ck_assert_uint_eq (differences (a, b), 0);
  ((Record *) g_hash_table_lookup (b, &(guint64) { 1 }))->end++;
  ck_assert_uint_eq (differences (a, b), 1);
}
END_TEST

static Suite *
prune_suite (void)
{
  Suite *s = suite_create ("prune");
  TCase *tc = tcase_create ("same");

  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_comparison);
  tcase_add_test (tc, test_fat_tree);
  tcase_add_test (tc, test_failures);
  tcase_add_test (tc, test_other_fabrics);
  tcase_add_test (tc, test_ecmp);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (prune_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}

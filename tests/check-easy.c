/* check-easy.c: EASY backfilling makes the same decisions however the
 * pass learns the running jobs and works out the head's reservation.
 *
 * What it checks: the same scenario run twice, once with
 * sim__easy_set_eager() (every blocked pass asks the context for the
 * running jobs, sorts them by estimated end, copies the cluster and gives
 * them back on the copy until the head fits, before looking at later jobs:
 * the plain scan) and once as shipped (the running jobs from the profile of
 * the jobs the policy started, kept from pass to pass; the reservation,
 * when a later job needs it, found by moving a mirror of the cluster kept
 * from pass to pass), gives every job the same start, end and GPUs (the
 * whole list, in order), job by job, on
 *  - the Philly excerpt and the NASA iPSC SWF excerpt (requested times
 *    that differ from run times) on small clusters;
 *  - Gavel's small physical-cluster trace on a V100 and a P100 server
 *    (rates other than 1: the profile is not enough, the pass asks);
 *  - random native traces mixing whole-GPU jobs of 1 to 16 GPUs,
 *    fractional GPUs, MIG instances and host CPU and memory shares, with
 *    requested times above and below the run time, under both
 *    easy_estimate values and both first-fit and best-fit;
 *  - random queues of whole-GPU jobs of 21 sizes from 1 to 64 GPUs on 8
 *    DGX A100 under first-fit, best-fit and worst-fit, where the mirror
 *    makes the reservations, with jobs outliving their requests;
 *  - runs where jobs are started outside the policy and a node is drained
 *    for a while (the profile then misses jobs and must not be trusted);
 *  - the full October 2017 Philly list on 64 DGX A100 when the trace is
 *    in the checkout (skipped with a message otherwise).
 * Each case also checks that it is not vacuous: some jobs waited and some
 * were backfilled past a blocked head (a job started before one submitted
 * earlier), the plain run took the plain scan only, and, where it matters,
 * that the way under test was taken (sim__easy_get_paths()).
 * test_comparison checks the comparison itself: one start moved by a
 * nanosecond, one GPU changed or one job missing is one difference.
 * What it does not check: speed (bench/bench-easy), or that the decisions
 * are EASY's (check-policies works them out by hand).
 */
#include "config.h"

#include <check.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sim.h>
#include "sched/sim-queue-orders.h"
#include "check-records.h"

static char *tmpdir;

/* How the lazy run learnt the running jobs (sim__easy_get_paths()). */
typedef struct {
  guint64 asked;
  guint64 profiled;
  guint64 mirrored;
} Paths;

/* With OUTSIDE, some jobs are started at decisions by the caller rather
 * than the policy, and node 0 is drained for a while. */
typedef struct {
  gboolean outside;
} Drive;

/* The caller's part of a decision: at every fifth, the last waiting job is
 * started if it fits; at the 40th node 0 is drained, at the 120th put
 * back. */
static void
act_outside (SimSimulation *sim, guint decision)
{
  SimSchedContext *ctx = sim_simulation_get_decision (sim);
  g_autoptr(GError) error = NULL;
  guint n = 0;
  SimJob * const *queue;

  ck_assert_ptr_nonnull (ctx);
  if (decision == 40 || decision == 120)
    ck_assert_msg (sim_simulation_set_node_available (sim, 0, decision == 120, &error), "%s",
                   error ? error->message : "");
  queue = sim_sched_context_get_queue (ctx, &n);
  if (decision % 5 == 0 && n > 0 && queue[n - 1]->state == SIM_JOB_QUEUED)
    {
      SimJob *job = queue[n - 1];
      g_autofree guint32 *gpus = g_new (guint32, job->spec.gpus);
      SimPlacement p = { 0 };
      p.gpus = gpus;
      p.n_gpus = job->spec.gpus;
      p.milli = job->spec.gpu_milli;
      if (sim_policy_place (sim_simulation_get_policy (sim), sim_sched_context_get_cluster (ctx),
                            job, &p))
        ck_assert_msg (sim_sched_context_start (ctx, job, &p, &error), "%s",
                       error ? error->message : "");
    }
}

/* Runs TEXT to the end; returns its jobs by id, and how it went in PATHS. */
static GHashTable *
run (const char *text, gboolean eager, const Drive *drive, Paths *paths)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = NULL;
  g_autoptr(SimSimulation) sim = NULL;
  g_autofree char *path = g_build_filename (tmpdir, "easy.ini", NULL);
  GHashTable *seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, record_free);

  ck_assert (g_file_set_contents (path, text, -1, NULL));
  sc = sim_scenario_load (path, NULL, &error);
  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  sim__easy_set_eager (sim_simulation_get_policy (sim), eager);
  sim_simulation_set_job_observer (sim, record_job, seen, NULL);
  if (drive != NULL && drive->outside)
    {
      guint decision = 0;
      while (sim_simulation_run_to_decision (sim, &error))
        {
          act_outside (sim, ++decision);
          ck_assert_msg (sim_simulation_decide (sim, TRUE, &error), "%s",
                         error ? error->message : "");
        }
      ck_assert_msg (error == NULL, "%s", error ? error->message : "");
    }
  else
    ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  ck_assert (sim_simulation_is_finished (sim));
  if (paths != NULL)
    ck_assert (sim__easy_get_paths (sim_simulation_get_policy (sim), &paths->asked,
                                    &paths->profiled, &paths->mirrored));
  return seen;
}

static gboolean
same_record (const Record *a, const Record *b)
{
  return a->start == b->start && a->end == b->end && a->n_gpus == b->n_gpus &&
         (a->n_gpus == 0 || memcmp (a->gpus, b->gpus, a->n_gpus * sizeof (guint32)) == 0);
}

/* The jobs that ran in only one of A and B, or differently (start, end, or
 * GPUs, in order); *FIRST describes one of them. */
static guint
count_differences (GHashTable *a, GHashTable *b, char **first)
{
  GHashTableIter it;
  Record *r;
  guint n = 0;

  *first = NULL;
  g_hash_table_iter_init (&it, a);
  while (g_hash_table_iter_next (&it, NULL, (gpointer *) &r))
    {
      const Record *o = g_hash_table_lookup (b, &r->id);
      if (o != NULL && same_record (r, o))
        continue;
      n++;
      if (*first == NULL && o == NULL)
        *first = g_strdup_printf ("job %" G_GUINT64_FORMAT " ran in one run only", r->id);
      else if (*first == NULL)
        *first = g_strdup_printf ("job %" G_GUINT64_FORMAT ": start %" G_GINT64_FORMAT
                                  " end %" G_GINT64_FORMAT " on %u GPUs from %u, against %"
                                  G_GINT64_FORMAT " %" G_GINT64_FORMAT " %u %u", r->id,
                                  r->start, r->end, r->n_gpus, r->gpus ? r->gpus[0] : 0,
                                  o->start, o->end, o->n_gpus, o->gpus ? o->gpus[0] : 0);
    }
  g_hash_table_iter_init (&it, b);
  while (g_hash_table_iter_next (&it, NULL, (gpointer *) &r))
    if (g_hash_table_lookup (a, &r->id) == NULL)
      {
        n++;
        if (*first == NULL)
          *first = g_strdup_printf ("job %" G_GUINT64_FORMAT " ran in one run only", r->id);
      }
  return n;
}

/* Runs TEXT both ways and compares every job; at least MIN_JOBS ran.
 * Returns how the lazy run went. */
static Paths
compare_both (const char *text, guint min_jobs, const Drive *drive)
{
  Paths plain_paths = { 0, 0, 0 };
  g_autoptr(GHashTable) plain = run (text, TRUE, drive, &plain_paths);
  Paths paths = { 0, 0, 0 };
  g_autoptr(GHashTable) lazy = run (text, FALSE, drive, &paths);
  g_autofree char *first = NULL;
  GHashTableIter it;
  Record *a;
  guint waited = 0, overtaken = 0, differ;

  ck_assert_uint_ge (g_hash_table_size (plain), min_jobs);
  /* The plain run took the plain scan in every blocked pass: it asked the
   * context each time, and neither used the profile nor the mirror, so
   * the two runs below did decide in different ways. */
  ck_assert_uint_gt (plain_paths.asked, 0);
  ck_assert_uint_eq (plain_paths.profiled, 0);
  ck_assert_uint_eq (plain_paths.mirrored, 0);
  differ = count_differences (plain, lazy, &first);
  ck_assert_msg (differ == 0, "%u jobs differ; %s", differ, first);
  g_hash_table_iter_init (&it, plain);
  while (g_hash_table_iter_next (&it, NULL, (gpointer *) &a))
    waited += a->start > a->submit;
  /* Not vacuous: jobs queued, and some later job (submitted later, or at
   * the same time and later in the trace) started before an earlier one
   * still waiting (a backfill). */
  g_hash_table_iter_init (&it, plain);
  while (overtaken == 0 && g_hash_table_iter_next (&it, NULL, (gpointer *) &a))
    {
      GHashTableIter jt;
      Record *c;
      g_hash_table_iter_init (&jt, plain);
      while (g_hash_table_iter_next (&jt, NULL, (gpointer *) &c))
        if ((c->submit > a->submit || (c->submit == a->submit && c->id > a->id)) &&
            c->start < a->start && c->submit < a->start)
          {
            overtaken++;
            break;
          }
    }
  ck_assert_uint_ge (waited, min_jobs / 4);
  ck_assert_uint_ge (overtaken, 1);
  return paths;
}

START_TEST (test_traces)
{
  const char *placement = (_i % 2) == 0 ? "first-fit" : "best-fit";
  g_autofree char *text = NULL;

  if (_i < 2)
    text = g_strdup_printf (
      "[scenario]\nname = easy-philly\nseed = 1\n"
      "[pool a]\nmodel = PCIe-8GPU\ngpus_per_node = 4\ncount = 1\n"
      "[workload]\nsource = philly\ntrace = " SIM_TEST_DATADIR "/philly-excerpt.csv\n"
      "[policy]\nqueue = easy\nplacement = %s\n", placement);
  else
    text = g_strdup_printf (
      "[scenario]\nname = easy-nasa\nseed = 1\n"
      "[pool a]\nmodel = PCIe-8GPU\ngpus_per_node = 8\ncount = 2\n"
      "[workload]\nsource = swf\ntrace = " SIM_TEST_DATADIR "/nasa-ipsc-excerpt.swf\n"
      "processors_per_gpu = 4\n"
      "[policy]\nqueue = easy\nplacement = %s\n", placement);
  compare_both (text, 200, NULL);
}
END_TEST

/* Gavel's small trace on a V100 and a P100 server of two GPUs each: job
 * types run at their own speeds, so rates are not 1 and the pass asks for
 * the running jobs (whose progress that rounds), both ways alike. */
START_TEST (test_gavel)
{
  g_autofree char *ini = NULL;
  g_autofree char *text = NULL;
  g_autofree char *trace = g_strdup_printf ("trace = %s/gavel-small_test.trace",
                                            SIM_TEST_DATADIR);
  g_auto(GStrv) parts = NULL;
  Paths paths;

  ck_assert (g_file_get_contents (SIM_TEST_DATADIR "/gavel-small.ini", &ini, NULL, NULL));
  /* The trace by its full path, two GPUs a server, and EASY. */
  parts = g_strsplit (ini, "trace = gavel-small_test.trace", -1);
  ck_assert_uint_eq (g_strv_length (parts), 2);
  g_free (ini);
  ini = g_strjoinv (trace, parts);
  g_strfreev (parts);
  parts = g_strsplit (ini, "\ncount = 1\n", -1);
  ck_assert_uint_eq (g_strv_length (parts), 3);
  text = g_strconcat (parts[0], "\ngpus_per_node = 2\ncount = 1\n", parts[1],
                      "\ngpus_per_node = 2\ncount = 1\n", parts[2],
                      "\n[policy]\nqueue = easy\nplacement = first-fit\n", NULL);
  paths = compare_both (text, 20, NULL);
  ck_assert_uint_gt (paths.asked, 0);
}
END_TEST

/* A random native trace: whole jobs of 1 to 16 GPUs, shares of a GPU, MIG
 * instances and host shares, requested times from half to three times the
 * run time. */
static char *
write_mix (guint seed)
{
  static const char * const migs[] = { "1g.10gb", "2g.20gb", "3g.40gb" };
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  GString *csv = g_string_new ("id,submit,duration,gpus,gpu_milli,gpu_model,tenant,priority,"
                               "class,requested,cpu_milli,memory,mig,user,status\n");
  char *path = g_strdup_printf ("%s/mix-%u.csv", tmpdir, seed);
  double t = 0;

  for (guint i = 0; i < 400; i++)
    {
      double kind = g_rand_double (rand);
      double duration = 60 + g_rand_double_range (rand, 0, 7200);
      double requested = duration * g_rand_double_range (rand, 0.5, 3.0);
      guint gpus = 1, milli = 1000, cpu = 0;
      guint64 memory = 0;
      const char *mig = "";

      t += g_rand_double_range (rand, 0, 240);
      if (kind < 0.55)
        gpus = 1u << g_rand_int_range (rand, 0, 5);
      else if (kind < 0.7)
        milli = 100 * g_rand_int_range (rand, 1, 10);
      else if (kind < 0.8)
        mig = migs[g_rand_int_range (rand, 0, G_N_ELEMENTS (migs))];
      else
        {
          gpus = 1u << g_rand_int_range (rand, 0, 4);
          cpu = 4000 * g_rand_int_range (rand, 1, 16);
          memory = (guint64) g_rand_int_range (rand, 1, 64) << 30;
        }
      g_string_append_printf (csv, "%u,%.3f,%.3f,%u,%u,,0,0,,%.3f,%u,%" G_GUINT64_FORMAT ",%s,0,1\n",
                              i + 1, t, duration, gpus, milli, requested, cpu, memory, mig);
    }
  ck_assert (g_file_set_contents (path, csv->str, -1, NULL));
  g_string_free (csv, TRUE);
  return path;
}

START_TEST (test_mixes)
{
  const char *placement = (_i % 2) == 0 ? "first-fit" : "best-fit";
  const char *estimate = (_i / 2) % 2 == 0 ? "requested" : "exact";
  g_autofree char *trace = write_mix (31 + _i);
  g_autofree char *text = g_strdup_printf (
    "[scenario]\nname = easy-mix\nseed = %d\n"
    "[pool a]\nmodel = DGX-A100\ncount = 2\n"
    "[pool b]\nmodel = PCIe-8GPU\ngpus_per_node = 4\ncount = 2\n"
    "[cluster]\nsharing = time-slice\n"
    "[workload]\nsource = native\ntrace = %s\n"
    "[policy]\nqueue = easy\nplacement = %s\neasy_estimate = %s\n",
    _i + 1, trace, placement, estimate);

  Paths paths = compare_both (text, 350, NULL);

  /* Shares of GPUs: the profile alone does not do. */
  ck_assert_uint_gt (paths.asked, 0);
}
END_TEST

/* A random native trace of whole-GPU jobs of 21 sizes from 1 to 64 GPUs
 * (most small, as in the public traces), requested times from half to
 * three times the run time (so that running jobs outlive their
 * estimates), arrivals dense enough to build a queue. */
static char *
write_sizes (guint seed, guint n_jobs)
{
  static const guint sizes[] = { 1, 1, 1, 1, 1, 1, 2, 2, 2, 3, 4, 4, 5, 6, 7, 8, 8, 10, 12, 16,
                                 20, 24, 32, 40, 48, 56, 64 };
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  GString *csv = g_string_new ("id,submit,duration,gpus,requested\n");
  char *path = g_strdup_printf ("%s/sizes-%u.csv", tmpdir, seed);
  double t = 0;

  for (guint i = 0; i < n_jobs; i++)
    {
      double duration = 60 + g_rand_double_range (rand, 0, 14400);
      guint gpus = sizes[g_rand_int_range (rand, 0, G_N_ELEMENTS (sizes))];
      t += g_rand_double_range (rand, 0, 300);
      g_string_append_printf (csv, "%u,%.3f,%.3f,%u,%.3f\n", i + 1, t, duration, gpus,
                              duration * g_rand_double_range (rand, 0.5, 3.0));
    }
  ck_assert (g_file_set_contents (path, csv->str, -1, NULL));
  g_string_free (csv, TRUE);
  return path;
}

START_TEST (test_sizes)
{
  static const char * const placements[] = { "first-fit", "best-fit", "worst-fit" };
  g_autofree char *trace = write_sizes (101 + _i, 1500);
  g_autofree char *text = g_strdup_printf (
    "[scenario]\nname = easy-sizes\nseed = 1\n"
    "[pool a]\nmodel = DGX-A100\ncount = 8\n"
    "[workload]\nsource = native\ntrace = %s\n"
    "[policy]\nqueue = easy\nplacement = %s\n", trace, placements[_i % 3]);
  Paths paths = compare_both (text, 1500, NULL);

  /* Whole GPUs at rate 1: the profile and the mirror do it all. */
  ck_assert_uint_eq (paths.asked, 0);
  ck_assert_uint_gt (paths.profiled, 100);
  ck_assert_uint_gt (paths.mirrored, 100);
}
END_TEST

/* As test_sizes, but the caller starts jobs itself at some decisions and
 * drains a node for a while: the profile misses those jobs (and the
 * drained GPUs), and the pass must notice and ask. */
START_TEST (test_outside)
{
  g_autofree char *trace = write_sizes (201 + _i, 600);
  g_autofree char *text = g_strdup_printf (
    "[scenario]\nname = easy-outside\nseed = 1\n"
    "[pool a]\nmodel = DGX-A100\ncount = 8\n"
    "[workload]\nsource = native\ntrace = %s\n"
    "[policy]\nqueue = easy\nplacement = %s\n", trace, _i == 0 ? "first-fit" : "best-fit");
  Drive drive = { TRUE };
  Paths paths = compare_both (text, 600, &drive);

  ck_assert_uint_gt (paths.asked, 0);
  ck_assert_uint_gt (paths.profiled, 0);
}
END_TEST

/* The comparison finds a single difference: one start a nanosecond later,
 * one GPU of one job changed, one job missing; and the many differences
 * between FIFO and EASY on the same trace. */
START_TEST (test_comparison)
{
  const char *text =
    "[scenario]\nname = easy-philly\nseed = 1\n"
    "[pool a]\nmodel = PCIe-8GPU\ngpus_per_node = 4\ncount = 1\n"
    "[workload]\nsource = philly\ntrace = " SIM_TEST_DATADIR "/philly-excerpt.csv\n"
    "[policy]\nqueue = easy\nplacement = first-fit\n";
  g_autoptr(GHashTable) a = run (text, FALSE, NULL, NULL);
  g_autoptr(GHashTable) b = run (text, FALSE, NULL, NULL);
  g_autoptr(GHashTable) fifo = NULL;
  g_auto(GStrv) parts = g_strsplit (text, "queue = easy", -1);
  g_autofree char *fifo_text = g_strjoinv ("queue = fifo", parts);
  g_autofree char *first = NULL;
  GHashTableIter it;
  Record *r = NULL, *multi = NULL;
  guint64 id;

  ck_assert_uint_eq (count_differences (a, b, &first), 0);
  g_hash_table_iter_init (&it, b);
  while (g_hash_table_iter_next (&it, NULL, (gpointer *) &r))
    if (r->n_gpus > 1)
      multi = r;
  ck_assert_ptr_nonnull (multi);

  multi->start++;
  ck_assert_uint_eq (count_differences (a, b, &first), 1);
  g_clear_pointer (&first, g_free);
  multi->start--;
  multi->gpus[multi->n_gpus - 1] ^= 1;
  ck_assert_uint_eq (count_differences (a, b, &first), 1);
  g_clear_pointer (&first, g_free);
  multi->gpus[multi->n_gpus - 1] ^= 1;
  id = multi->id;
  ck_assert (g_hash_table_remove (b, &id));
  ck_assert_uint_eq (count_differences (a, b, &first), 1);
  g_clear_pointer (&first, g_free);

  fifo = run (fifo_text, FALSE, NULL, NULL);
  ck_assert_uint_gt (count_differences (a, fifo, &first), 10);
}
END_TEST

START_TEST (test_philly_month)
{
  g_autofree char *trace = g_build_filename (SIM_TOP_SRCDIR, "data", "traces", "philly",
                                             "philly-2017-10.csv", NULL);
  g_autofree char *text = NULL;

  if (!g_file_test (trace, G_FILE_TEST_EXISTS))
    {
      g_printerr ("check-easy: %s absent, the full month is not compared\n", trace);
      return;
    }
  text = g_strdup_printf ("[scenario]\nname = easy-philly-month\nseed = 1\n"
                          "[pool a100]\nmodel = DGX-A100\ncount = 64\n"
                          "[workload]\nsource = philly\ntrace = %s\n"
                          "[policy]\nqueue = easy\nplacement = first-fit\n", trace);
  Paths paths = compare_both (text, 47000, NULL);

  ck_assert_uint_eq (paths.asked, 0);
  ck_assert_uint_gt (paths.mirrored, 10000);
}
END_TEST

static void
setup (void)
{
  tmpdir = g_dir_make_tmp ("check-easy-XXXXXX", NULL);
  ck_assert_ptr_nonnull (tmpdir);
}

static void
teardown (void)
{
  GDir *dir = g_dir_open (tmpdir, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (tmpdir, name, NULL);
      g_unlink (path);
    }
  if (dir != NULL)
    g_dir_close (dir);
  g_rmdir (tmpdir);
  g_clear_pointer (&tmpdir, g_free);
}

int
main (void)
{
  Suite *s = suite_create ("easy");
  TCase *tc = tcase_create ("same decisions");
  SRunner *sr;
  int failed;

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_set_timeout (tc, 120);
  tcase_add_loop_test (tc, test_traces, 0, 4);
  tcase_add_test (tc, test_gavel);
  tcase_add_loop_test (tc, test_mixes, 0, 4);
  tcase_add_loop_test (tc, test_sizes, 0, 6);
  tcase_add_loop_test (tc, test_outside, 0, 2);
  tcase_add_test (tc, test_comparison);
  tcase_add_test (tc, test_philly_month);
  suite_add_tcase (s, tc);
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}

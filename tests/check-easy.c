/* check-easy.c: EASY backfilling makes the same decisions whether the
 * head's reservation is made at once (the plain order of work) or only
 * when a later job first fits now.
 *
 * What it checks: the same scenario run twice, once with
 * sim__easy_set_eager() (every blocked pass makes the reservation before
 * looking at later jobs, as the scan did) and once as shipped, gives every
 * job the same start, end, number of GPUs and first GPU, job by job, on
 *  - the Philly excerpt and the NASA iPSC SWF excerpt (requested times
 *    that differ from run times) on small clusters;
 *  - random native traces mixing whole-GPU jobs of 1 to 16 GPUs,
 *    fractional GPUs, MIG instances and host CPU and memory shares, with
 *    requested times above and below the run time, under both
 *    easy_estimate values and both first-fit and best-fit;
 *  - the full October 2017 Philly list on 64 DGX A100 when the trace is
 *    in the checkout (skipped with a message otherwise).
 * Each case also checks that it is not vacuous: some jobs waited and some
 * were backfilled past a blocked head (a job started before one submitted
 * earlier).
 * What it does not check: speed (bench/bench-easy), or that the decisions
 * are EASY's (check-policies works them out by hand).
 */
#include "config.h"

#include <check.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sim.h>
#include "sched/sim-queue-orders.h"

static char *tmpdir;

typedef struct {
  guint64 id;
  SimTime submit;
  SimTime start;
  SimTime end;
  guint   n_gpus;
  guint32 first_gpu;
} Record;

static void
record_job (SimSimulation *sim, const SimJob *job, gpointer data)
{
  GHashTable *seen = data;
  Record *r;

  if (job->state != SIM_JOB_RUNNING && job->state != SIM_JOB_DONE)
    return;
  r = g_hash_table_lookup (seen, &job->spec.id);
  if (r == NULL)
    {
      r = g_new0 (Record, 1);
      r->id = job->spec.id;
      g_hash_table_insert (seen, &r->id, r);
    }
  r->submit = job->spec.submit;
  if (job->state == SIM_JOB_RUNNING)
    {
      r->start = job->start;
      r->n_gpus = job->n_gpus;
      r->first_gpu = job->n_gpus > 0 ? job->gpus[0] : G_MAXUINT32;
    }
  else
    r->end = job->end;
}

/* Runs TEXT to the end; returns its jobs by id. */
static GHashTable *
run (const char *text, gboolean eager)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = NULL;
  g_autoptr(SimSimulation) sim = NULL;
  g_autofree char *path = g_build_filename (tmpdir, "easy.ini", NULL);
  GHashTable *seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, g_free);

  ck_assert (g_file_set_contents (path, text, -1, NULL));
  sc = sim_scenario_load (path, NULL, &error);
  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  sim__easy_set_eager (sim_simulation_get_policy (sim), eager);
  sim_simulation_set_job_observer (sim, record_job, seen, NULL);
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  ck_assert (sim_simulation_is_finished (sim));
  return seen;
}

/* Runs TEXT both ways and compares every job; at least MIN_JOBS ran. */
static void
compare_both (const char *text, guint min_jobs)
{
  g_autoptr(GHashTable) plain = run (text, TRUE);
  g_autoptr(GHashTable) lazy = run (text, FALSE);
  GHashTableIter it;
  Record *a;
  guint waited = 0, overtaken = 0;

  ck_assert_uint_ge (g_hash_table_size (plain), min_jobs);
  ck_assert_uint_eq (g_hash_table_size (plain), g_hash_table_size (lazy));
  g_hash_table_iter_init (&it, plain);
  while (g_hash_table_iter_next (&it, NULL, (gpointer *) &a))
    {
      const Record *b = g_hash_table_lookup (lazy, &a->id);
      ck_assert_msg (b != NULL, "job %" G_GUINT64_FORMAT " ran only with the eager reservation",
                     a->id);
      ck_assert_msg (a->start == b->start && a->end == b->end && a->n_gpus == b->n_gpus &&
                     a->first_gpu == b->first_gpu,
                     "job %" G_GUINT64_FORMAT ": start %" G_GINT64_FORMAT " end %" G_GINT64_FORMAT
                     " on %u GPUs from %u, against %" G_GINT64_FORMAT " %" G_GINT64_FORMAT
                     " %u %u", a->id, a->start, a->end, a->n_gpus, a->first_gpu, b->start,
                     b->end, b->n_gpus, b->first_gpu);
      waited += a->start > a->submit;
    }
  /* Not vacuous: jobs queued, and some later job started before an earlier
   * one still waiting (a backfill). */
  g_hash_table_iter_init (&it, plain);
  while (overtaken == 0 && g_hash_table_iter_next (&it, NULL, (gpointer *) &a))
    {
      GHashTableIter jt;
      Record *c;
      g_hash_table_iter_init (&jt, plain);
      while (g_hash_table_iter_next (&jt, NULL, (gpointer *) &c))
        if (c->submit > a->submit && c->start < a->start && c->submit < a->start)
          {
            overtaken++;
            break;
          }
    }
  ck_assert_uint_ge (waited, min_jobs / 4);
  ck_assert_uint_ge (overtaken, 1);
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
  compare_both (text, 200);
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

  compare_both (text, 350);
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
  compare_both (text, 47000);
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
  tcase_add_loop_test (tc, test_mixes, 0, 4);
  tcase_add_test (tc, test_philly_month);
  suite_add_tcase (s, tc);
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}

/* check-compare.c: statistics over seeds, and policies compared side by side.
 *
 * What it checks:
 *  - the mean, standard deviation and Student t interval of small samples
 *    against values worked out by hand below (signed samples take it
 *    through sim_compare_interval too), and the t quantiles against
 *    printed tables;
 *  - the bootstrap interval of non-negative samples: never below 0, on a
 *    skewed sample worked out by hand where t goes below 0; the same
 *    bytes for the same samples, again and on other threads; and its
 *    coverage of the true mean over many seeded exponential and uniform
 *    samples, near the nominal 95 %;
 *  - the paired interval of differences on two hand-worked examples, one
 *    that includes 0 and one that does not (although the two policies'
 *    own intervals overlap);
 *  - the corner cases: one sample (no interval), a non-finite sample, no
 *    spread at all;
 *  - a comparison of two policies over three seeds on a tiny scenario:
 *    its seeds, names and units, each value equal to a run made directly,
 *    its intervals equal to the statistics above, and every render (table,
 *    JSON, CSV) the same bytes with one thread and with two;
 *  - errors: an unknown placement or queue order (with a suggestion and
 *    the known names), an unknown metric, no policy at all.
 * What it does not check: whether the normal approximation behind t
 * intervals, or the bootstrap's, holds for any metric, the progress bar, or plugins (see
 * check-plugin and test-compare.sh).
 */
#include "config.h"

#include <check.h>
#include <glib/gstdio.h>
#include <math.h>
#include <sim.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Statistics by hand.                                                        */

/* Student t quantiles t(0.975, df), from printed tables (and R's qt). */
START_TEST (test_t_quantiles)
{
  ck_assert_double_eq_tol (sim_compare_t_quantile (0.95, 1), 12.706204736, 1e-8);
  ck_assert_double_eq_tol (sim_compare_t_quantile (0.95, 3), 3.182446305, 1e-8);
  ck_assert_double_eq_tol (sim_compare_t_quantile (0.95, 4), 2.776445105, 1e-8);
  ck_assert_double_eq_tol (sim_compare_t_quantile (0.95, 30), 2.042272456, 1e-8);
  /* t(0.995, 10) for a 99 % interval. */
  ck_assert_double_eq_tol (sim_compare_t_quantile (0.99, 10), 3.169272673, 1e-8);
}
END_TEST

/* {1, 2, 3, 4, 5}: mean 3; squared deviations 4 + 1 + 0 + 1 + 4 = 10, so
 * s = sqrt (10 / 4) = sqrt (2.5); the 95 % half-width is
 * t(0.975, 4) s / sqrt (5) = 2.776445105 x 1.581138830 / 2.236067977
 * = 1.963243161. */
START_TEST (test_interval_by_hand)
{
  const double x[] = { 1, 2, 3, 4, 5 };
  SimCompareInterval ci;
  double hw = 2.776445105 * sqrt (2.5) / sqrt (5);

  ck_assert (sim_compare_t_interval (x, 5, 0.95, &ci));
  ck_assert (ci.symmetric);
  ck_assert_uint_eq (ci.n, 5);
  ck_assert_double_eq_tol (ci.mean, 3, 1e-15);
  ck_assert_double_eq_tol (ci.sd, sqrt (2.5), 1e-15);
  ck_assert_double_eq_tol (ci.half_width, hw, 1e-8);
  ck_assert_double_eq_tol (ci.half_width, 1.963243161, 1e-8);
  ck_assert_double_eq_tol (ci.low, 3 - hw, 1e-8);
  ck_assert_double_eq_tol (ci.high, 3 + hw, 1e-8);
  ck_assert (sim_compare_interval_excludes_zero (&ci));

  /* Shifted to straddle 0: {-2, ..., 2} has the same spread around 0, and
   * being signed it gets the same t interval from sim_compare_interval. */
  {
    const double y[] = { -2, -1, 0, 1, 2 };
    ck_assert (sim_compare_interval (y, 5, 0.95, &ci));
    ck_assert (ci.symmetric);
    ck_assert_double_eq_tol (ci.mean, 0, 1e-15);
    ck_assert_double_eq_tol (ci.half_width, hw, 1e-8);
    ck_assert_double_eq_tol (ci.low, -hw, 1e-8);
    ck_assert_double_eq_tol (ci.high, hw, 1e-8);
    ck_assert (!sim_compare_interval_excludes_zero (&ci));
  }
}
END_TEST

/* Baseline {10, 12, 9, 11}: mean 10.5, s = sqrt (5 / 3) = 1.290994, 95 %
 * half-width 3.182446 x 1.290994 / 2 = 2.054249: [8.446, 12.554].
 *
 * Other {7, 10, 6, 9}: mean 8, s = sqrt (10 / 3) = 1.825742, half-width
 * 2.905151: [5.095, 10.905].  The two intervals overlap.
 *
 * Paired differences {-3, -2, -3, -2}: mean -2.5, squared deviations
 * 4 x 0.25 = 1, s = sqrt (1 / 3) = 0.577350, half-width
 * 3.182446 x 0.577350 / 2 = 0.918693: [-3.4187, -1.5813], which excludes
 * 0: the same seeds make the difference clear. */
START_TEST (test_paired_excludes_zero)
{
  const double base[] = { 10, 12, 9, 11 };
  const double other[] = { 7, 10, 6, 9 };
  SimCompareInterval a, b, d;

  ck_assert (sim_compare_t_interval (base, 4, 0.95, &a));
  ck_assert (sim_compare_t_interval (other, 4, 0.95, &b));
  ck_assert_double_eq_tol (a.half_width, 3.182446305 * sqrt (5.0 / 3) / 2, 1e-8);
  ck_assert_double_eq_tol (b.half_width, 3.182446305 * sqrt (10.0 / 3) / 2, 1e-8);
  ck_assert (b.high > a.low); /* they overlap */

  ck_assert (sim_compare_paired_interval (base, other, 4, 0.95, &d));
  ck_assert_uint_eq (d.n, 4);
  ck_assert_double_eq_tol (d.mean, -2.5, 1e-15);
  ck_assert_double_eq_tol (d.sd, sqrt (1.0 / 3), 1e-15);
  ck_assert_double_eq_tol (d.half_width, 0.918693116, 1e-8);
  ck_assert_double_eq_tol (d.low, -3.418693116, 1e-8);
  ck_assert_double_eq_tol (d.high, -1.581306884, 1e-8);
  ck_assert (d.symmetric);
  ck_assert (sim_compare_interval_excludes_zero (&d));
}
END_TEST

/* Baseline {10, 12, 9, 11}, other {8, 11, 9, 9}: differences
 * {-2, -1, 0, -2}, mean -1.25; squared deviations 0.5625 + 0.0625 + 1.5625
 * + 0.5625 = 2.75, s = sqrt (2.75 / 3) = 0.957427; half-width
 * 3.182446 x 0.957427 / 2 = 1.523480: [-2.7735, 0.2735] holds 0. */
START_TEST (test_paired_includes_zero)
{
  const double base[] = { 10, 12, 9, 11 };
  const double other[] = { 8, 11, 9, 9 };
  SimCompareInterval d;

  ck_assert (sim_compare_paired_interval (base, other, 4, 0.95, &d));
  ck_assert_double_eq_tol (d.mean, -1.25, 1e-15);
  ck_assert_double_eq_tol (d.sd, sqrt (2.75 / 3), 1e-15);
  ck_assert_double_eq_tol (d.half_width, 3.182446305 * sqrt (2.75 / 3) / 2, 1e-8);
  ck_assert_double_eq_tol (d.half_width, 1.523480181, 1e-8);
  ck_assert (d.low < 0 && d.high > 0);
  ck_assert (!sim_compare_interval_excludes_zero (&d));
}
END_TEST

START_TEST (test_corner_cases)
{
  const double one[] = { 4.5 };
  const double flat[] = { 2, 2, 2 };
  const double zeros[] = { 0, 0, 0 };
  const double bad[] = { 1, NAN, 3 };
  const double inf[] = { 1, INFINITY };
  SimCompareInterval ci;

  /* One sample: a mean, no interval. */
  ck_assert (!sim_compare_interval (one, 1, 0.95, &ci));
  ck_assert_uint_eq (ci.n, 1);
  ck_assert_double_eq (ci.mean, 4.5);
  ck_assert (isnan (ci.sd) && isnan (ci.half_width) && isnan (ci.low) && isnan (ci.high));
  ck_assert (!sim_compare_interval_excludes_zero (&ci));

  ck_assert (!ci.identical);

  /* No spread: samples that did not vary (seeds that change nothing, as
   * on a trace) have no interval and are never significant, even away
   * from 0; the mean is the value exactly (0.1 x 3 / 3 is not). */
  ck_assert (!sim_compare_interval (flat, 3, 0.95, &ci));
  ck_assert (ci.identical);
  ck_assert_uint_eq (ci.n, 3);
  ck_assert_double_eq (ci.mean, 2);
  ck_assert_double_eq (ci.sd, 0);
  ck_assert (isnan (ci.half_width) && isnan (ci.low) && isnan (ci.high));
  ck_assert (!sim_compare_interval_excludes_zero (&ci));
  {
    const double tenths[] = { 0.1, 0.1, 0.1 };
    const double apart[] = { 0.1, 0.1, 0.1 + 1e-12 };
    ck_assert (!sim_compare_interval (tenths, 3, 0.95, &ci));
    ck_assert (ci.identical);
    ck_assert (ci.mean == 0.1);
    /* The least variation gives an interval again. */
    ck_assert (sim_compare_interval (apart, 3, 0.95, &ci));
    ck_assert (!ci.identical);
    ck_assert (ci.low <= ci.mean && ci.mean <= ci.high && ci.low < ci.high);
  }
  /* A policy compared with itself: a difference of exactly 0, no star. */
  ck_assert (!sim_compare_paired_interval (flat, flat, 3, 0.95, &ci));
  ck_assert (ci.identical);
  ck_assert (ci.mean == 0);
  ck_assert (!sim_compare_interval_excludes_zero (&ci));
  /* Paired differences that are all the same (a trace, two policies):
   * not significant either, however far from 0. */
  {
    const double more[] = { 5, 5, 5 };
    ck_assert (!sim_compare_paired_interval (flat, more, 3, 0.95, &ci));
    ck_assert (ci.identical && ci.mean == 3);
    ck_assert (!sim_compare_interval_excludes_zero (&ci));
  }
  ck_assert (!sim_compare_interval (zeros, 3, 0.95, &ci));
  ck_assert (ci.identical && ci.mean == 0);
  ck_assert (!sim_compare_interval_excludes_zero (&ci));

  /* A non-finite sample poisons everything. */
  ck_assert (!sim_compare_interval (bad, 3, 0.95, &ci));
  ck_assert (isnan (ci.mean) && isnan (ci.half_width));
  ck_assert (!sim_compare_interval (inf, 2, 0.95, &ci));
  ck_assert (isnan (ci.mean));
  ck_assert (!sim_compare_interval_excludes_zero (&ci));
}
END_TEST

/* Four seeds of a wait that is 0 but once: {0, 0, 0, 5000}, mean 1250,
 * s = sqrt ((3 x 1250^2 + 3750^2) / 3) = 2500.  The t interval is
 * 1250 +- 3.182446 x 2500 / 2 = 1250 +- 3978.06: down to -2728 s of wait.
 *
 * The bootstrap's resampled mean is 1250 k for k fives-thousands among four
 * draws, k binomial (4, 1/4): P (k = 0) = 0.316, P (k = 4) = 1/256.  Its
 * tails at n = 4 and 95 % are a = Phi (-sqrt (4/3) x 3.182446) = 0.012 %
 * each: the a quantile is 0 and the 1 - a quantile 5000 (39 of the 10,000
 * resampled means, expected, are 5000; 1.2 lie beyond it).  The interval
 * is [0, 5000], three times longer above the mean than below. */
START_TEST (test_bootstrap_skewed)
{
  const double x[] = { 0, 0, 0, 5000 };
  SimCompareInterval t, ci;

  ck_assert (sim_compare_t_interval (x, 4, 0.95, &t));
  ck_assert_double_eq_tol (t.sd, 2500, 1e-9);
  ck_assert_double_eq_tol (t.low, 1250 - 3978.057881, 1e-5);
  ck_assert (t.low < 0);

  ck_assert (sim_compare_interval (x, 4, 0.95, &ci));
  ck_assert (!ci.symmetric);
  ck_assert_uint_eq (ci.n, 4);
  ck_assert_double_eq (ci.mean, 1250);
  ck_assert_double_eq_tol (ci.sd, 2500, 1e-9);
  ck_assert_double_eq (ci.low, 0);
  ck_assert_double_eq (ci.high, 5000);
  ck_assert_double_eq (ci.half_width, 3750); /* the longer side */
  ck_assert (!sim_compare_interval_excludes_zero (&ci));

  /* Any non-negative samples, skewed or not, at any level: never below 0,
   * never outside the samples' range, always around the mean. */
  {
    const double two[] = { 0, 1e6 };
    const double small[] = { 1e-9, 0, 3e-9, 0, 0 };
    const double even[] = { 1, 2, 3, 4, 5 };
    const double levels[] = { 0.5, 0.9, 0.95, 0.99 };
    for (guint l = 0; l < G_N_ELEMENTS (levels); l++)
      {
        ck_assert (sim_compare_interval (two, 2, levels[l], &ci));
        ck_assert (ci.low >= 0 && ci.low <= ci.mean && ci.mean <= ci.high && ci.high <= 1e6);
        ck_assert (sim_compare_interval (small, 5, levels[l], &ci));
        ck_assert (ci.low >= 0 && ci.low <= ci.mean && ci.mean <= ci.high && ci.high <= 3e-9);
        ck_assert (sim_compare_interval (even, 5, levels[l], &ci));
        ck_assert (ci.low >= 1 && ci.low <= ci.mean && ci.mean <= ci.high && ci.high <= 5);
      }
  }
}
END_TEST

static gpointer
interval_in_thread (gpointer data)
{
  const double x[] = { 12.5, 0, 731, 44.25, 0, 9.75, 2048 };
  SimCompareInterval *ci = g_new0 (SimCompareInterval, 1);

  (void) data;
  sim_compare_interval (x, G_N_ELEMENTS (x), 0.95, ci);
  return ci;
}

/* The same samples give the same bytes: again, and on other threads at
 * once. */
START_TEST (test_bootstrap_deterministic)
{
  g_autofree SimCompareInterval *first = interval_in_thread (NULL);
  GThread *threads[4];

  ck_assert (!first->symmetric && first->low >= 0 && first->low < first->high);
  for (guint round = 0; round < 3; round++)
    {
      g_autofree SimCompareInterval *again = interval_in_thread (NULL);
      ck_assert (memcmp (first, again, sizeof *first) == 0);
    }
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("interval", interval_in_thread, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    {
      g_autofree SimCompareInterval *other = g_thread_join (threads[i]);
      ck_assert (memcmp (first, other, sizeof *first) == 0);
    }

  /* Another sample (one more seed) draws other resamples. */
  {
    const double x[] = { 12.5, 0, 731, 44.25, 0, 9.75, 2048, 0 };
    SimCompareInterval ci;
    ck_assert (sim_compare_interval (x, G_N_ELEMENTS (x), 0.95, &ci));
    ck_assert (ci.low != first->low || ci.high != first->high);
  }
}
END_TEST

/* The share of COUNT samples of N draws from DRAW (mean TRUTH) whose 95 %
 * interval holds TRUTH. */
static double
coverage (double (*draw) (GRand *), double truth, guint n, guint count)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (20261130);
  g_autofree double *x = g_new (double, n);
  guint hits = 0;

  for (guint c = 0; c < count; c++)
    {
      SimCompareInterval ci;
      for (guint i = 0; i < n; i++)
        x[i] = draw (rand);
      ck_assert (sim_compare_interval (x, n, 0.95, &ci));
      ck_assert (ci.low >= 0);
      hits += ci.low <= truth && truth <= ci.high;
    }
  return (double) hits / count;
}

/* Exponential with mean 1000 (a wait): skewed. */
static double
draw_exponential (GRand *rand)
{
  return -1000 * log1p (-g_rand_double (rand));
}

/* Uniform on [0, 1000): symmetric. */
static double
draw_uniform (GRand *rand)
{
  return 1000 * g_rand_double (rand);
}

/* The expanded percentile bootstrap covers the true mean about as often
 * as it says for symmetric samples, and somewhat less for skewed ones
 * with few seeds (88 % for 5 exponential samples, against 81 % for the
 * plain percentile interval).  1,000 samples put each share within about
 * +-1 point of its expectation (binomial), and the generator is seeded:
 * the bounds below leave room on both sides. */
START_TEST (test_bootstrap_coverage)
{
  double c;

  c = coverage (draw_exponential, 1000, 5, 1000);
  ck_assert_msg (c >= 0.84 && c <= 0.94, "exponential, 5 samples: %.3f", c);
  c = coverage (draw_exponential, 1000, 20, 1000);
  ck_assert_msg (c >= 0.88 && c <= 0.97, "exponential, 20 samples: %.3f", c);
  c = coverage (draw_uniform, 500, 5, 1000);
  ck_assert_msg (c >= 0.88 && c <= 0.98, "uniform, 5 samples: %.3f", c);
  c = coverage (draw_uniform, 500, 20, 1000);
  ck_assert_msg (c >= 0.91 && c <= 0.98, "uniform, 20 samples: %.3f", c);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Comparisons end to end.                                                    */

static char *tmpdir;
static char *scenario_path;

/* A small synthetic load on three 4-GPU nodes for two days: about 70
 * jobs, enough to queue, to fragment, and for first-fit and best-fit to
 * differ. */
static const char tiny_scenario[] =
  "[scenario]\n"
  "name = tiny-compare\n"
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
  tmpdir = g_dir_make_tmp ("check-compare-XXXXXX", NULL);
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

static SimComparison *
run_comparison (guint n_threads)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimComparison) cmp = sim_comparison_new (scenario_path, NULL, &error);

  ck_assert_msg (cmp != NULL, "%s", error ? error->message : "");
  ck_assert_msg (sim_comparison_add_policy (cmp, "first-fit", &error), "%s", error->message);
  ck_assert_msg (sim_comparison_add_policy (cmp, "fifo/best-fit", &error), "%s",
                 error->message);
  sim_comparison_set_seeds (cmp, sim_comparison_get_seed (cmp, 0), 3);
  sim_comparison_set_threads (cmp, n_threads);
  ck_assert_msg (sim_comparison_run (cmp, &error), "%s", error ? error->message : "");
  return g_steal_pointer (&cmp);
}

/* One run made directly, as a user of the library would. */
static double
direct_run (const char *placement, guint64 seed, const char *metric)
{
  g_autofree char *set_seed = g_strdup_printf ("scenario.seed=%" G_GUINT64_FORMAT, seed);
  g_autofree char *set_place = g_strdup_printf ("policy.placement=%s", placement);
  const char *sets[] = { set_seed, set_place, NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(SimScenario) sc = sim_scenario_load (scenario_path, sets, &error);
  g_autoptr(SimSimulation) sim = NULL;
  double v = NAN;

  ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
  sim = sim_simulation_new (sc, &error);
  ck_assert_msg (sim != NULL, "%s", error ? error->message : "");
  ck_assert_msg (sim_simulation_run (sim, &error), "%s", error ? error->message : "");
  ck_assert (sim_report_get_value (sim_simulation_get_report (sim), metric, &v));
  return v;
}

START_TEST (test_comparison_end_to_end)
{
  g_autoptr(SimComparison) one = run_comparison (1);
  g_autoptr(SimComparison) two = run_comparison (2);
  guint wait_mean = G_MAXUINT, util = G_MAXUINT;

  ck_assert_str_eq (sim_comparison_get_scenario_name (one), "tiny-compare");
  ck_assert_uint_eq (sim_comparison_get_n_policies (one), 2);
  ck_assert_str_eq (sim_comparison_get_policy_name (one, 0), "fifo/first-fit");
  ck_assert_str_eq (sim_comparison_get_policy_name (one, 1), "fifo/best-fit");
  ck_assert_uint_eq (sim_comparison_get_n_seeds (one), 3);
  ck_assert_uint_eq (sim_comparison_get_seed (one, 0), 7);
  ck_assert_uint_eq (sim_comparison_get_seed (one, 2), 9);
  ck_assert_uint_eq (sim_comparison_get_n_metrics (one), 9);
  for (guint m = 0; m < sim_comparison_get_n_metrics (one); m++)
    {
      if (strcmp (sim_comparison_get_metric (one, m), "wait_mean") == 0)
        wait_mean = m;
      if (strcmp (sim_comparison_get_metric (one, m), "gpu_utilization") == 0)
        util = m;
    }
  ck_assert_uint_ne (wait_mean, G_MAXUINT);
  ck_assert_uint_ne (util, G_MAXUINT);
  ck_assert_str_eq (sim_comparison_get_unit (one, wait_mean), "s");
  ck_assert_str_eq (sim_comparison_get_unit (one, util), "ratio");

  /* Each value is that of the same run made directly; seeds differ. */
  for (guint s = 0; s < 3; s++)
    {
      ck_assert_double_eq (sim_comparison_get_value (one, 0, wait_mean, s),
                           direct_run ("first-fit", 7 + s, "wait_mean"));
      ck_assert_double_eq (sim_comparison_get_value (one, 1, wait_mean, s),
                           direct_run ("best-fit", 7 + s, "wait_mean"));
    }
  ck_assert_double_ne (sim_comparison_get_value (one, 0, wait_mean, 0),
                       sim_comparison_get_value (one, 0, wait_mean, 1));
  {
    SimCompareInterval d;
    ck_assert (sim_comparison_get_difference (one, 1, wait_mean, &d));
    ck_assert (d.mean != 0 && d.sd > 0);
  }

  /* The intervals are the statistics of those values. */
  for (guint p = 0; p < 2; p++)
    {
      double x[3], y[3];
      SimCompareInterval got, want;
      for (guint s = 0; s < 3; s++)
        {
          x[s] = sim_comparison_get_value (one, 0, util, s);
          y[s] = sim_comparison_get_value (one, p, util, s);
        }
      ck_assert (sim_comparison_get_interval (one, p, util, &got));
      sim_compare_interval (y, 3, 0.95, &want);
      ck_assert_double_eq (got.mean, want.mean);
      ck_assert_double_eq (got.half_width, want.half_width);
      if (p > 0)
        {
          ck_assert (sim_comparison_get_difference (one, p, util, &got));
          sim_compare_paired_interval (x, y, 3, 0.95, &want);
          ck_assert_double_eq (got.mean, want.mean);
          ck_assert_double_eq (got.half_width, want.half_width);
        }
    }

  /* The same bytes whatever the number of threads. */
  {
    g_autofree char *t1 = sim_comparison_format_table (one);
    g_autofree char *t2 = sim_comparison_format_table (two);
    g_autofree char *j1 = sim_comparison_to_json (one, TRUE);
    g_autofree char *j2 = sim_comparison_to_json (two, TRUE);
    g_autofree char *c1 = sim_comparison_to_csv (one);
    g_autofree char *c2 = sim_comparison_to_csv (two);
    ck_assert_str_eq (t1, t2);
    ck_assert_str_eq (j1, j2);
    ck_assert_str_eq (c1, c2);
    ck_assert_ptr_nonnull (strstr (t1, "fifo/best-fit"));
    ck_assert_ptr_nonnull (strstr (j1, "\"difference\""));
    /* Header, then per metric and policy 3 values and 4 statistics, and 4
     * more for the second policy's difference. */
    {
      guint rows = 0;
      for (const char *c = c1; *c; c++)
        rows += *c == '\n';
      ck_assert_uint_eq (rows, 1 + 9 * (2 * (3 + 4) + 4));
    }
  }
}
END_TEST

START_TEST (test_csv_file)
{
  g_autoptr(SimComparison) cmp = run_comparison (2);
  g_autofree char *path = g_build_filename (tmpdir, "out.csv", NULL);
  g_autofree char *text = NULL, *want = NULL;
  g_autoptr(GError) error = NULL;

  ck_assert_msg (sim_comparison_write_csv (cmp, path, &error), "%s", error->message);
  ck_assert (g_file_get_contents (path, &text, NULL, NULL));
  want = sim_comparison_to_csv (cmp);
  ck_assert_str_eq (text, want);
  ck_assert (g_str_has_prefix (text, "metric,unit,policy,statistic,seed,value\n"));
  ck_assert_ptr_nonnull (strstr (text, "\nwait_mean,s,fifo/first-fit,value,7,"));

  /* A directory that does not exist: an error that names the file. */
  {
    g_autofree char *bad = g_build_filename (tmpdir, "no", "such", "out.csv", NULL);
    ck_assert (!sim_comparison_write_csv (cmp, bad, &error));
    ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_IO));
    ck_assert_ptr_nonnull (strstr (error->message, bad));
  }
}
END_TEST

START_TEST (test_errors)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimComparison) cmp = sim_comparison_new (scenario_path, NULL, &error);

  ck_assert_msg (cmp != NULL, "%s", error ? error->message : "");
  ck_assert (!sim_comparison_add_policy (cmp, "firstfit", &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_NOT_FOUND));
  ck_assert_ptr_nonnull (strstr (error->message, "did you mean \"first-fit\""));
  ck_assert_ptr_nonnull (strstr (error->message, "best-fit"));
  ck_assert_ptr_nonnull (strstr (error->message, "fifo"));
  g_clear_error (&error);
  ck_assert (!sim_comparison_add_policy (cmp, "nosuchorder/best-fit", &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_NOT_FOUND));
  ck_assert_ptr_nonnull (strstr (error->message, "nosuchorder"));
  g_clear_error (&error);

  /* Nothing to run. */
  ck_assert (!sim_comparison_run (cmp, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_MISSING));
  g_clear_error (&error);
  g_clear_object (&cmp);

  /* A metric the report does not have, found after the first run. */
  cmp = sim_comparison_new (scenario_path, NULL, &error);
  ck_assert (sim_comparison_add_policy (cmp, "first-fit", &error));
  sim_comparison_add_metric (cmp, "wait_mean");
  sim_comparison_add_metric (cmp, "wait_man");
  sim_comparison_set_seeds (cmp, 1, 2);
  ck_assert (!sim_comparison_run (cmp, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_NOT_FOUND));
  ck_assert_ptr_nonnull (strstr (error->message, "did you mean \"wait_mean\""));
  g_clear_error (&error);
  g_clear_object (&cmp);

  /* A bad override: the scenario is refused at once. */
  {
    const char *sets[] = { "workload.rate=fast", NULL };
    cmp = sim_comparison_new (scenario_path, sets, &error);
    ck_assert_ptr_null (cmp);
    ck_assert_ptr_nonnull (error);
  }
}
END_TEST

static Suite *
compare_suite (void)
{
  Suite *s = suite_create ("compare");
  TCase *tc = tcase_create ("statistics");

  tcase_add_test (tc, test_t_quantiles);
  tcase_add_test (tc, test_interval_by_hand);
  tcase_add_test (tc, test_paired_excludes_zero);
  tcase_add_test (tc, test_paired_includes_zero);
  tcase_add_test (tc, test_corner_cases);
  tcase_add_test (tc, test_bootstrap_skewed);
  tcase_add_test (tc, test_bootstrap_deterministic);
  suite_add_tcase (s, tc);

  /* 4,000 bootstrap intervals of 10,000 resamples: seconds. */
  tc = tcase_create ("coverage");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_bootstrap_coverage);
  suite_add_tcase (s, tc);

  tc = tcase_create ("runs");
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_comparison_end_to_end);
  tcase_add_test (tc, test_csv_file);
  tcase_add_test (tc, test_errors);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (compare_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}

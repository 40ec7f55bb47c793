/* check-workload.c: the workload sources (synthetic generator, SWF reader).
 *
 * Statistical tests run with fixed seeds, so they are deterministic; their
 * tolerances are still derived from the sampling distribution (about 4.5
 * standard errors, or a chi-square quantile at p = 0.001) so that a
 * correct generator passes for any seed and a wrong one fails clearly.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gio/gio.h>

#include "core/sim-error.h"
#include "core/sim-units.h"
#include "workload/sim-workload.h"
#include "workload/sim-traces.h"
#include "workload/sim-workload-private.h"

#define EXCERPT SIM_TEST_DATADIR "/nasa-ipsc-excerpt.swf"
#define FULL_LOG SIM_TRACEDIR "/swf/NASA-iPSC-1993-3.1-cln.swf"

/* Chi-square quantile at p = 0.999: 23 degrees of freedom (24 hours), and
 * 3 (four GPU sizes), from standard tables. */
#define CHI2_23_999 49.728
#define CHI2_3_999  16.266

static char *tmpdir;

/* Check records the place of every assertion that passes, a write to a
 * file each time; inside loops over many draws these test without that
 * cost and fail the same way. */
#define expect(cond) expect_msg (cond, "%s", #cond)
#define expect_msg(cond, ...)                     \
  G_STMT_START {                                  \
    if (G_UNLIKELY (!(cond)))                     \
      ck_abort_msg (__VA_ARGS__);                 \
  } G_STMT_END

/* ------------------------------------------------------------------------- */
/* Generator fixtures.                                                       */

static guint32 one_gpu[] = { 1 };
static guint32 sizes4[] = { 1, 2, 4, 8 };
static double  sizes4_weights[] = { 4, 3, 2, 1 };

static SimJobClassConfig
make_class (const char *name, double share, SimDurationDist duration)
{
  SimJobClassConfig c = { 0 };

  c.name = (char *) name;
  c.share = share;
  c.gpu_values = sizes4;
  c.gpu_weights = sizes4_weights;
  c.n_gpu_values = G_N_ELEMENTS (sizes4);
  c.duration = duration;
  c.estimate_factor = 0;
  return c;
}

static SimDurationDist
exponential (double mean)
{
  SimDurationDist d = { 0 };

  d.kind = SIM_DIST_EXPONENTIAL;
  d.mean = mean;
  return d;
}

static SimDurationDist
lognormal (double median, double sigma)
{
  SimDurationDist d = { 0 };

  d.kind = SIM_DIST_LOGNORMAL;
  d.median = median;
  d.sigma = sigma;
  return d;
}

static SimGeneratorConfig
make_config (double rate, SimJobClassConfig *classes, guint n_classes)
{
  SimGeneratorConfig cfg = { 0 };

  cfg.rate = rate;
  cfg.max_jobs = 0;
  cfg.stop_time = SIM_TIME_NEVER;
  cfg.classes = classes;
  cfg.n_classes = n_classes;
  return cfg;
}

static SimWorkload *
new_generator (const SimGeneratorConfig *cfg, guint64 seed)
{
  g_autoptr (GError) error = NULL;
  SimWorkload *w = sim_workload_new_generator (cfg, seed, &error);

  ck_assert_msg (w != NULL, "generator rejected: %s", error ? error->message : "?");
  return w;
}

/* Draws @n jobs, all of which must come. */
static SimJobSpec *
draw (SimWorkload *w, guint n)
{
  SimJobSpec *jobs = g_new0 (SimJobSpec, n);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GError) error = NULL;

      expect_msg (sim_workload_next (w, &jobs[i], &error), "job %u missing: %s", i,
                     error ? error->message : "end of workload");
    }
  return jobs;
}

/* ------------------------------------------------------------------------- */
/* Generator: arrivals.                                                      */

/* Checks: with a constant rate, inter-arrival gaps have mean 1/rate and a
 * squared coefficient of variation of 1 (exponential), over 100,000 jobs;
 * submit times never decrease; ids run 1, 2, 3...
 * Does not check: independence of successive gaps, or the tail shape. */
START_TEST (test_gen_poisson_mean)
{
  const guint n = 100000;
  const double rate = 0.5, mean = 1 / rate;
  SimJobClassConfig cls = make_class ("a", 1, exponential (60));
  SimGeneratorConfig cfg = make_config (rate, &cls, 1);
  g_autoptr (SimWorkload) w = new_generator (&cfg, 42);
  g_autofree SimJobSpec *jobs = draw (w, n);
  double sum = 0, sum2 = 0, m, var;
  SimTime prev = 0;

  for (guint i = 0; i < n; i++)
    {
      double gap = sim_time_to_seconds (jobs[i].submit - prev);

      expect (jobs[i].submit >= prev);
      expect (jobs[i].id == i + 1);
      sum += gap;
      sum2 += gap * gap;
      prev = jobs[i].submit;
    }
  m = sum / n;
  var = sum2 / n - m * m;
  /* The sample mean of n exponential gaps has standard error mean/sqrt(n). */
  ck_assert_msg (fabs (m - mean) < 4.5 * mean / sqrt (n), "mean gap %g, expected %g", m, mean);
  /* The sample variance has standard error sqrt(8/n) mean^2 (fourth
   * moment of the exponential: 9 mean^4). */
  ck_assert_msg (fabs (var / (mean * mean) - 1) < 4.5 * sqrt (8.0 / n),
                 "squared CV %g, expected 1", var / (mean * mean));
  ck_assert_uint_eq (w->produced, n);
}
END_TEST

/* Checks: with a daily profile, the number of arrivals in each hour of the
 * day follows the profile's shape (chi-square test, 23 degrees of freedom,
 * p = 0.001), hours whose multiplier is 0 get no arrivals at all, and the
 * profile is normalised so that the daily mean rate is @rate (the total
 * over 20 days is within 4.5 Poisson standard deviations of rate x time).
 * Does not check: the shape within an hour. */
START_TEST (test_gen_profile_shape)
{
  SimJobClassConfig cls = make_class ("a", 1, exponential (60));
  SimGeneratorConfig cfg = make_config (0.05, &cls, 1);
  const SimTime horizon = 20 * SIM_DAY;
  g_autoptr (SimWorkload) w = NULL;
  guint64 counts[24] = { 0 }, total = 0;
  double psum = 0, chi2 = 0, expected_total;
  SimJobSpec job;
  g_autoptr (GError) error = NULL;

  /* Night 1, working day 3, evening 2, and nothing from 02:00 to 05:00;
   * deliberately not normalised (mean 1.875). */
  for (guint h = 0; h < 24; h++)
    {
      cfg.profile[h] = h < 8 ? 1 : h < 18 ? 3 : 2;
      if (h >= 2 && h < 5)
        cfg.profile[h] = 0;
      psum += cfg.profile[h];
    }
  cfg.stop_time = horizon;
  w = new_generator (&cfg, 7);
  while (sim_workload_next (w, &job, &error))
    {
      expect (job.submit <= horizon);
      counts[(job.submit / SIM_HOUR) % 24]++;
      total++;
    }
  ck_assert (error == NULL);

  for (guint h = 0; h < 24; h++)
    {
      double e = (double) total * cfg.profile[h] / psum;

      if (cfg.profile[h] == 0)
        {
          ck_assert_uint_eq (counts[h], 0);
          continue;
        }
      chi2 += (counts[h] - e) * (counts[h] - e) / e;
    }
  /* Three hours are certain zeros, so 20 free cells: the 23-dof quantile
   * is then conservative (larger than the 20-dof one, 45.3). */
  ck_assert_msg (chi2 < CHI2_23_999, "chi-square %g over hours of the day", chi2);

  expected_total = cfg.rate * sim_time_to_seconds (horizon);
  ck_assert_msg (fabs (total - expected_total) < 4.5 * sqrt (expected_total),
                 "%" G_GUINT64_FORMAT " arrivals, expected about %g", total, expected_total);

  /* A single busy hour at a high rate: every arrival falls in it, and the
   * empty hours cost nothing (the test would time out otherwise). */
  for (guint h = 0; h < 24; h++)
    cfg.profile[h] = h == 3 ? 1 : 0;
  cfg.rate = 1000;
  cfg.max_jobs = 200000;
  cfg.stop_time = SIM_TIME_NEVER;
  {
    g_autoptr (SimWorkload) w1 = new_generator (&cfg, 7);

    total = 0;
    while (sim_workload_next (w1, &job, &error))
      {
        expect ((job.submit / SIM_HOUR) % 24 == 3);
        total++;
      }
    ck_assert (error == NULL);
    ck_assert_uint_eq (total, cfg.max_jobs);
  }
}
END_TEST

/* Checks: max_jobs stops the stream after exactly that many jobs, and the
 * end is sticky (later calls return FALSE without an error); stop_time
 * admits no arrival after it and the count is Poisson-consistent.
 * Does not check: what happens to time after the end. */
START_TEST (test_gen_limits)
{
  SimJobClassConfig cls = make_class ("a", 1, exponential (60));
  SimGeneratorConfig cfg = make_config (1.0, &cls, 1);
  SimJobSpec job;
  guint64 n = 0;
  g_autoptr (GError) error = NULL;

  cfg.max_jobs = 17;
  {
    g_autoptr (SimWorkload) w = new_generator (&cfg, 1);

    while (sim_workload_next (w, &job, &error))
      expect (job.id == ++n);
    ck_assert (error == NULL);
    ck_assert_uint_eq (n, 17);
    ck_assert_uint_eq (w->produced, 17);
    ck_assert (!sim_workload_next (w, &job, &error));
    ck_assert (error == NULL);
  }

  cfg.max_jobs = 0;
  cfg.stop_time = 1000 * SIM_SECOND;
  n = 0;
  {
    g_autoptr (SimWorkload) w = new_generator (&cfg, 1);

    while (sim_workload_next (w, &job, &error))
      {
        expect (job.submit <= cfg.stop_time);
        n++;
      }
    ck_assert (error == NULL);
    ck_assert_msg (fabs ((double) n - 1000) < 4.5 * sqrt (1000), "%" G_GUINT64_FORMAT " jobs", n);
    ck_assert (!sim_workload_next (w, &job, &error));
  }

  /* Both: whichever comes first. */
  cfg.max_jobs = 5;
  n = 0;
  {
    g_autoptr (SimWorkload) w = new_generator (&cfg, 1);

    while (sim_workload_next (w, &job, &error))
      n++;
    ck_assert_uint_eq (n, 5);
  }
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Generator: sizes, durations, classes.                                     */

/* Checks: GPU counts take only the configured values, with frequencies
 * within 4.5 binomial standard errors of the normalised weights, and a
 * chi-square (3 dof, p = 0.001) over the four sizes; gpu_milli is 1000.
 * Does not check: independence from the class or the duration. */
START_TEST (test_gen_gpu_frequencies)
{
  const guint n = 100000;
  SimJobClassConfig cls = make_class ("a", 1, exponential (60));
  SimGeneratorConfig cfg = make_config (1, &cls, 1);
  g_autoptr (SimWorkload) w = new_generator (&cfg, 3);
  g_autofree SimJobSpec *jobs = draw (w, n);
  guint64 counts[4] = { 0 };
  double chi2 = 0;

  for (guint i = 0; i < n; i++)
    {
      guint k;

      for (k = 0; k < 4 && sizes4[k] != jobs[i].gpus; k++)
        ;
      expect_msg (k < 4, "unexpected GPU count %u", jobs[i].gpus);
      expect (jobs[i].gpu_milli == 1000);
      counts[k]++;
    }
  for (guint k = 0; k < 4; k++)
    {
      double p = sizes4_weights[k] / 10.0, f = (double) counts[k] / n, e = p * n;

      ck_assert_msg (fabs (f - p) < 4.5 * sqrt (p * (1 - p) / n),
                     "%u GPUs: frequency %g, expected %g", sizes4[k], f, p);
      chi2 += (counts[k] - e) * (counts[k] - e) / e;
    }
  ck_assert_msg (chi2 < CHI2_3_999, "chi-square %g", chi2);
}
END_TEST

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* Checks: lognormal durations have median @median (the fraction of draws
 * below it is within 4.5 binomial standard errors of 1/2, a
 * distribution-free test) and log-standard-deviation sigma; exponential
 * durations have mean @mean within 4.5 standard errors; constant
 * durations are exact; empirical ones take only the listed values, never
 * one of weight 0, with the weighted frequencies.
 * Does not check: the lognormal's tails beyond its second moment. */
START_TEST (test_gen_durations)
{
  const guint n = 50000;
  SimJobClassConfig cls = make_class ("a", 1, lognormal (600, 1.5));
  SimGeneratorConfig cfg = make_config (1, &cls, 1);

  {
    g_autoptr (SimWorkload) w = new_generator (&cfg, 11);
    g_autofree SimJobSpec *jobs = draw (w, n);
    g_autofree double *logs = g_new (double, n);
    guint below = 0;
    double s = 0, s2 = 0, sd;

    for (guint i = 0; i < n; i++)
      {
        double x = sim_time_to_seconds (jobs[i].duration);

        below += x < 600;
        logs[i] = log (x);
        s += logs[i];
        s2 += logs[i] * logs[i];
      }
    ck_assert_msg (fabs ((double) below / n - 0.5) < 4.5 * 0.5 / sqrt (n),
                   "%u of %u below the median", below, n);
    sd = sqrt (s2 / n - (s / n) * (s / n));
    /* The standard error of a normal sample's sd is sigma / sqrt(2n). */
    ck_assert_msg (fabs (sd - 1.5) < 4.5 * 1.5 / sqrt (2.0 * n), "log sd %g", sd);
    qsort (logs, n, sizeof (double), compare_double);
    ck_assert_msg (fabs (exp (logs[n / 2]) / 600 - 1) < 0.05, "sample median %g",
                   exp (logs[n / 2]));
  }

  cls.duration = exponential (300);
  {
    g_autoptr (SimWorkload) w = new_generator (&cfg, 11);
    g_autofree SimJobSpec *jobs = draw (w, n);
    double s = 0;

    for (guint i = 0; i < n; i++)
      s += sim_time_to_seconds (jobs[i].duration);
    ck_assert_msg (fabs (s / n - 300) < 4.5 * 300 / sqrt (n), "mean %g", s / n);
  }

  cls.duration.kind = SIM_DIST_CONSTANT;
  cls.duration.mean = 90.5;
  {
    g_autoptr (SimWorkload) w = new_generator (&cfg, 11);
    g_autofree SimJobSpec *jobs = draw (w, 100);

    for (guint i = 0; i < 100; i++)
      expect (jobs[i].duration == 90500 * SIM_MILLISECOND);
  }

  {
    double values[] = { 10, 20, 30 }, weights[] = { 1, 0, 3 };
    guint64 c10 = 0, c30 = 0;

    cls.duration.kind = SIM_DIST_EMPIRICAL;
    cls.duration.values = values;
    cls.duration.weights = weights;
    cls.duration.n_values = 3;
    {
      g_autoptr (SimWorkload) w = new_generator (&cfg, 11);
      g_autofree SimJobSpec *jobs = draw (w, n);

      for (guint i = 0; i < n; i++)
        {
          SimTime d = jobs[i].duration;

          expect_msg (d == 10 * SIM_SECOND || d == 30 * SIM_SECOND,
                         "empirical draw %" G_GINT64_FORMAT " ns", d);
          c10 += d == 10 * SIM_SECOND;
          c30 += d == 30 * SIM_SECOND;
        }
      ck_assert_msg (fabs ((double) c10 / n - 0.25) < 4.5 * sqrt (0.25 * 0.75 / n),
                     "%" G_GUINT64_FORMAT " draws of 10 s", c10);
      ck_assert_uint_eq (c10 + c30, n);
    }
  }
}
END_TEST

/* Checks: class shares are followed (frequencies within 4.5 binomial
 * standard errors), classes are named in order, each class draws its own
 * sizes, and requested = duration x estimate_factor (0 when the factor is
 * 0); user and status are unknown (-1).
 * Does not check: anything about the order of classes in time. */
START_TEST (test_gen_classes)
{
  const guint n = 60000;
  double shares[] = { 1, 2, 5 };
  SimJobClassConfig cls[3] = {
    make_class ("small", shares[0], exponential (60)),
    make_class ("medium", shares[1], exponential (600)),
    make_class ("big", shares[2], lognormal (3600, 1)),
  };
  SimGeneratorConfig cfg = make_config (1, cls, 3);
  g_autoptr (SimWorkload) w = NULL;
  g_autofree SimJobSpec *jobs = NULL;
  guint64 counts[3] = { 0 };

  cls[0].gpu_values = one_gpu;
  cls[0].gpu_weights = NULL;
  cls[0].n_gpu_values = 1;
  cls[1].estimate_factor = 1.5;
  w = new_generator (&cfg, 5);
  ck_assert_uint_eq (sim_workload_get_n_classes (w), 3);
  ck_assert_str_eq (sim_workload_get_class_name (w, 0), "small");
  ck_assert_str_eq (sim_workload_get_class_name (w, 2), "big");
  ck_assert_str_eq (w->description, "synthetic");
  ck_assert_uint_eq (sim_workload_swf_skipped (w), 0);

  jobs = draw (w, n);
  for (guint i = 0; i < n; i++)
    {
      const SimJobSpec *j = &jobs[i];

      expect (j->job_class < 3);
      counts[j->job_class]++;
      if (j->job_class == 0)
        expect (j->gpus == 1);
      if (j->job_class == 1)
        expect (j->requested == llround (j->duration * 1.5));
      else
        expect (j->requested == 0);
      expect (j->user == -1);
      expect (j->status == -1);
      expect (j->duration >= 1);
    }
  for (guint k = 0; k < 3; k++)
    {
      double p = shares[k] / 8, f = (double) counts[k] / n;

      ck_assert_msg (fabs (f - p) < 4.5 * sqrt (p * (1 - p) / n),
                     "class %u: share %g, expected %g", k, f, p);
    }
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Generator: reproducibility.                                               */

/* Checks: two generators with the same seed produce identical jobs, field
 * for field; a different seed gives a different sequence.
 * Does not check: stability of the sequences across GSL versions. */
START_TEST (test_gen_determinism)
{
  const guint n = 5000;
  SimJobClassConfig cls[2] = {
    make_class ("a", 1, exponential (60)),
    make_class ("b", 1, lognormal (600, 2)),
  };
  SimGeneratorConfig cfg = make_config (0.1, cls, 2);
  g_autoptr (SimWorkload) w1 = NULL, w2 = NULL, w3 = NULL;
  g_autofree SimJobSpec *a = NULL, *b = NULL, *c = NULL;
  guint same = 0;

  cfg.profile[9] = 5;
  cfg.profile[21] = 1;
  w1 = new_generator (&cfg, 2024);
  w2 = new_generator (&cfg, 2024);
  w3 = new_generator (&cfg, 2025);
  a = draw (w1, n);
  b = draw (w2, n);
  c = draw (w3, n);
  for (guint i = 0; i < n; i++)
    {
      expect (a[i].id == b[i].id);
      expect (a[i].submit == b[i].submit);
      expect (a[i].duration == b[i].duration);
      expect (a[i].gpus == b[i].gpus);
      expect (a[i].job_class == b[i].job_class);
      same += a[i].submit == c[i].submit;
    }
  ck_assert_uint_lt (same, n / 100);
}
END_TEST

/* Checks: changing the duration distribution and the estimate factor
 * leaves arrival times, classes and GPU counts exactly as they were, with
 * and without a daily profile; changing the GPU weights leaves arrival
 * times and durations unchanged.
 * Does not check: that the streams are statistically independent. */
START_TEST (test_gen_stream_independence)
{
  const guint n = 3000;

  for (int with_profile = 0; with_profile <= 1; with_profile++)
    {
      SimJobClassConfig c1[2] = {
        make_class ("a", 1, exponential (60)),
        make_class ("b", 3, exponential (600)),
      };
      SimJobClassConfig c2[2] = {
        make_class ("a", 1, lognormal (100, 2)),
        make_class ("b", 3, lognormal (1000, 0.5)),
      };
      SimGeneratorConfig cfg1 = make_config (0.01, c1, 2);
      SimGeneratorConfig cfg2 = make_config (0.01, c2, 2);
      double other_weights[] = { 1, 1, 1, 1 };
      g_autoptr (SimWorkload) w1 = NULL, w2 = NULL, w3 = NULL;
      g_autofree SimJobSpec *a = NULL, *b = NULL, *c = NULL;
      guint differ = 0, gpus_differ = 0;

      c2[1].estimate_factor = 2;
      if (with_profile)
        for (guint h = 0; h < 24; h++)
          cfg1.profile[h] = cfg2.profile[h] = 1 + h % 5;
      w1 = new_generator (&cfg1, 99);
      w2 = new_generator (&cfg2, 99);
      a = draw (w1, n);
      b = draw (w2, n);
      for (guint i = 0; i < n; i++)
        {
          expect (a[i].submit == b[i].submit);
          expect (a[i].job_class == b[i].job_class);
          expect (a[i].gpus == b[i].gpus);
          differ += a[i].duration != b[i].duration;
        }
      ck_assert_uint_gt (differ, n / 2);

      c1[0].gpu_weights = other_weights;
      c1[1].gpu_weights = other_weights;
      w3 = new_generator (&cfg1, 99);
      c = draw (w3, n);
      for (guint i = 0; i < n; i++)
        {
          expect (a[i].submit == c[i].submit);
          expect (a[i].duration == c[i].duration);
          gpus_differ += a[i].gpus != c[i].gpus;
        }
      ck_assert_uint_gt (gpus_differ, 0);
    }
}
END_TEST

/* Checks: the generator copies its configuration deeply: freeing and
 * scribbling over the caller's copy (names and arrays) does not change the
 * jobs (AddressSanitizer catches any use of the freed memory).
 * Does not check: anything statistical. */
START_TEST (test_gen_config_copied)
{
  SimJobClassConfig ref = make_class ("ref", 1, exponential (60));
  SimGeneratorConfig ref_cfg = make_config (1, &ref, 1);
  g_autoptr (SimWorkload) w_ref = NULL, w = NULL;
  g_autofree SimJobSpec *a = NULL, *b = NULL;
  SimGeneratorConfig *cfg = g_new0 (SimGeneratorConfig, 1);
  double values[] = { 5, 50 };

  ref.duration.kind = SIM_DIST_EMPIRICAL;
  ref.duration.values = values;
  ref.duration.n_values = 2;
  *cfg = ref_cfg;
  cfg->classes = g_new0 (SimJobClassConfig, 1);
  cfg->classes[0] = ref;
  cfg->classes[0].name = g_strdup ("heap");
  cfg->classes[0].gpu_values = g_memdup2 (sizes4, sizeof sizes4);
  cfg->classes[0].gpu_weights = g_memdup2 (sizes4_weights, sizeof sizes4_weights);
  cfg->classes[0].duration.values = g_memdup2 (values, sizeof values);

  w_ref = new_generator (&ref_cfg, 8);
  w = new_generator (cfg, 8);
  memset (cfg->classes[0].gpu_values, 0, sizeof sizes4);
  memset (cfg->classes[0].duration.values, 0, sizeof values);
  g_free (cfg->classes[0].name);
  g_free (cfg->classes[0].gpu_values);
  g_free (cfg->classes[0].gpu_weights);
  g_free (cfg->classes[0].duration.values);
  g_free (cfg->classes);
  g_free (cfg);

  ck_assert_str_eq (sim_workload_get_class_name (w, 0), "heap");
  a = draw (w_ref, 1000);
  b = draw (w, 1000);
  for (guint i = 0; i < 1000; i++)
    {
      expect (a[i].submit == b[i].submit);
      expect (a[i].duration == b[i].duration);
      expect (a[i].gpus == b[i].gpus);
    }
}
END_TEST

/* Checks: each inconsistent configuration is rejected with
 * SIM_ERROR_INVALID and a message that names the offending field.
 * Does not check: the full wording of the messages. */
START_TEST (test_gen_invalid)
{
  static const struct {
    const char *case_name;
    const char *expected;
  } cases[] = {
    { "rate zero", "rate" },
    { "rate nan", "rate" },
    { "rate too high", "rate: 1e+07 jobs per second is too high" },
    { "peak too high", "rate: 2.4e+06 jobs per second (at the profile's peak) is too high" },
    { "profile negative", "profile[5]" },
    { "stop negative", "stop_time" },
    { "no classes", "classes" },
    { "no name", "classes[1]: name" },
    { "duplicate name", "class \"big\": name already used by classes[0]" },
    { "share negative", "class \"big\": share" },
    { "shares zero", "shares" },
    { "no gpu values", "class \"big\": gpu_values" },
    { "gpu value zero", "class \"big\": gpu_values[1] is zero" },
    { "gpu weight negative", "class \"big\": gpu_weights[2] is negative" },
    { "gpu weights zero", "class \"big\": gpu_weights" },
    { "mean zero", "class \"big\": duration.mean" },
    { "median negative", "class \"big\": duration.median" },
    { "sigma negative", "class \"big\": duration.sigma" },
    { "empirical empty", "class \"big\": duration.values" },
    { "empirical value", "class \"big\": duration.values[1]" },
    { "empirical weight", "class \"big\": duration.weights[0] is negative" },
    { "kind", "class \"big\": duration.kind" },
    { "estimate", "class \"big\": estimate_factor" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *name = cases[i].case_name;
      double bad_weights[] = { 1, 1, -0.5, 1 };
      double zero_weights[] = { 0, 0, 0, 0 };
      guint32 bad_sizes[] = { 1, 0, 4, 8 };
      double values[] = { 10, -1 }, weights[] = { -1, 2 };
      SimJobClassConfig cls[2] = {
        make_class ("small", 1, exponential (60)),
        make_class ("big", 1, lognormal (600, 1)),
      };
      SimGeneratorConfig cfg = make_config (1, cls, 2);
      g_autoptr (GError) error = NULL;
      SimWorkload *w;

      if (g_str_equal (name, "rate zero"))
        cfg.rate = 0;
      else if (g_str_equal (name, "rate nan"))
        cfg.rate = NAN;
      else if (g_str_equal (name, "rate too high"))
        cfg.rate = 1e7;
      else if (g_str_equal (name, "peak too high"))
        {
          cfg.rate = 1e5;
          cfg.profile[0] = 1;
        }
      else if (g_str_equal (name, "profile negative"))
        cfg.profile[5] = -1;
      else if (g_str_equal (name, "stop negative"))
        cfg.stop_time = -1;
      else if (g_str_equal (name, "no classes"))
        cfg.n_classes = 0;
      else if (g_str_equal (name, "no name"))
        cls[1].name = NULL;
      else if (g_str_equal (name, "duplicate name"))
        cls[0].name = (char *) "big";
      else if (g_str_equal (name, "share negative"))
        cls[1].share = -2;
      else if (g_str_equal (name, "shares zero"))
        cls[0].share = cls[1].share = 0;
      else if (g_str_equal (name, "no gpu values"))
        cls[1].n_gpu_values = 0;
      else if (g_str_equal (name, "gpu value zero"))
        cls[1].gpu_values = bad_sizes;
      else if (g_str_equal (name, "gpu weight negative"))
        cls[1].gpu_weights = bad_weights;
      else if (g_str_equal (name, "gpu weights zero"))
        cls[1].gpu_weights = zero_weights;
      else if (g_str_equal (name, "mean zero"))
        cls[1].duration = exponential (0);
      else if (g_str_equal (name, "median negative"))
        cls[1].duration.median = -3;
      else if (g_str_equal (name, "sigma negative"))
        cls[1].duration.sigma = -1;
      else if (g_str_equal (name, "empirical empty"))
        cls[1].duration.kind = SIM_DIST_EMPIRICAL;
      else if (g_str_equal (name, "empirical value") || g_str_equal (name, "empirical weight"))
        {
          cls[1].duration.kind = SIM_DIST_EMPIRICAL;
          cls[1].duration.values = values;
          cls[1].duration.n_values = 2;
          if (g_str_equal (name, "empirical weight"))
            {
              values[1] = 20;
              cls[1].duration.weights = weights;
            }
        }
      else if (g_str_equal (name, "kind"))
        cls[1].duration.kind = (SimDistributionKind) 42;
      else if (g_str_equal (name, "estimate"))
        cls[1].estimate_factor = -1;
      else
        ck_abort_msg ("unknown case %s", name);

      w = sim_workload_new_generator (&cfg, 1, &error);
      ck_assert_msg (w == NULL, "case \"%s\" accepted", name);
      ck_assert_msg (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID),
                     "case \"%s\": wrong error", name);
      ck_assert_msg (strstr (error->message, cases[i].expected) != NULL,
                     "case \"%s\": message \"%s\" does not contain \"%s\"",
                     name, error->message, cases[i].expected);
    }
}
END_TEST

/* ------------------------------------------------------------------------- */
/* The common part.                                                          */

typedef struct {
  SimWorkload parent;
  guint calls;
} BackwardsSource;

static gboolean
backwards_next (SimWorkload *workload, SimJobSpec *out, GError **error)
{
  BackwardsSource *src = (BackwardsSource *) workload;

  memset (out, 0, sizeof *out);
  out->id = ++src->calls;
  out->submit = src->calls == 2 ? 5 * SIM_SECOND : 10 * SIM_SECOND;
  out->gpus = 1;
  return TRUE;
}

static const SimWorkloadVTable backwards_vtable = { backwards_next, NULL, NULL };

/* Checks: sim_workload_next() refuses a job submitted before the previous
 * one even if its source does not check, and counts only jobs returned.
 * Does not check: sources' own messages. */
START_TEST (test_common_order)
{
  BackwardsSource *src = g_new0 (BackwardsSource, 1);
  g_autoptr (SimWorkload) w = (SimWorkload *) src;
  g_autoptr (GError) error = NULL;
  SimJobSpec job;

  sim__workload_init (w, &backwards_vtable, "test");
  ck_assert_uint_eq (sim_workload_get_n_classes (w), 0);
  ck_assert (sim_workload_next (w, &job, &error));
  ck_assert (!sim_workload_next (w, &job, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_TRACE));
  ck_assert_msg (strstr (error->message, "job 2") != NULL, "%s", error->message);
  ck_assert_uint_eq (w->produced, 1);
  ck_assert_uint_eq (sim_workload_swf_skipped (w), 0);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* SWF.                                                                      */

static SimSwfConfig
swf_config (double ratio, gboolean skip)
{
  SimSwfConfig c = { 0 };

  c.processors_per_gpu = ratio;
  c.skip_invalid = skip;
  return c;
}

static SimWorkload *
open_swf (const char *path, const SimSwfConfig *cfg)
{
  g_autoptr (GError) error = NULL;
  SimWorkload *w = sim_workload_new_swf (path, cfg, &error);

  ck_assert_msg (w != NULL, "cannot open %s: %s", path, error ? error->message : "?");
  return w;
}

static char *
write_tmp (const char *name, const char *contents, gssize len)
{
  char *path = g_build_filename (tmpdir, name, NULL);
  g_autoptr (GError) error = NULL;

  ck_assert_msg (g_file_set_contents (path, contents, len, &error), "%s",
                 error ? error->message : "?");
  return path;
}

/* Reads until the end or an error; returns the number of jobs read. */
static guint64
drain (SimWorkload *w, GError **error)
{
  SimJobSpec job;
  guint64 n = 0;

  while (sim_workload_next (w, &job, error))
    n++;
  return n;
}

/* Checks: the excerpt's first three jobs and its sixth (the first small
 * one) carry exactly the values written in the file (read by eye: job 1
 * submitted at 0 s, 1451 s on 128 processors, user 1; job 2 at 1460 s,
 * 3726 s, 128, user 1; job 3 at 5198 s, 1067 s, 128, user 1; job 57 at
 * 25574 s, 10 s, 1 processor, user 4), with no requested time and status
 * unknown; one class named "swf".
 * Does not check: the fields the reader ignores (wait, memory, queue...). */
START_TEST (test_swf_first_jobs)
{
  SimSwfConfig cfg = swf_config (1, TRUE);
  g_autoptr (SimWorkload) w = open_swf (EXCERPT, &cfg);
  g_autofree SimJobSpec *jobs = draw (w, 6);
  static const struct { guint64 id; gint64 submit, run; guint32 gpus; gint32 user; } want[] = {
    { 1, 0, 1451, 128, 1 },
    { 2, 1460, 3726, 128, 1 },
    { 3, 5198, 1067, 128, 1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      ck_assert_uint_eq (jobs[i].id, want[i].id);
      ck_assert_int_eq (jobs[i].submit, want[i].submit * SIM_SECOND);
      ck_assert_int_eq (jobs[i].duration, want[i].run * SIM_SECOND);
      ck_assert_uint_eq (jobs[i].gpus, want[i].gpus);
      ck_assert_int_eq (jobs[i].user, want[i].user);
      ck_assert_int_eq (jobs[i].status, -1);
      ck_assert_int_eq (jobs[i].requested, 0);
      ck_assert_uint_eq (jobs[i].gpu_milli, 1000);
      ck_assert_uint_eq (jobs[i].job_class, 0);
    }
  ck_assert_uint_eq (jobs[5].id, 57);
  ck_assert_int_eq (jobs[5].submit, 25574 * SIM_SECOND);
  ck_assert_int_eq (jobs[5].duration, 10 * SIM_SECOND);
  ck_assert_uint_eq (jobs[5].gpus, 1);
  ck_assert_int_eq (jobs[5].user, 4);

  ck_assert_uint_eq (sim_workload_get_n_classes (w), 1);
  ck_assert_str_eq (sim_workload_get_class_name (w, 0), "swf");
  ck_assert (g_str_has_prefix (w->description, "swf:"));
  ck_assert (g_str_has_suffix (w->description, "nasa-ipsc-excerpt.swf"));
}
END_TEST

/* Checks: over the whole excerpt, submit times never decrease, and the
 * number of jobs equals the number of job lines (counted here
 * independently: lines neither blank nor starting with ';') minus those
 * skipped, which are the five with a run time of 0.  With ratio 8, a job on
 * 128 processors gets 16 GPUs.
 * Does not check: the values of individual jobs beyond the first. */
START_TEST (test_swf_excerpt_whole)
{
  SimSwfConfig cfg = swf_config (8, TRUE);
  g_autoptr (SimWorkload) w = open_swf (EXCERPT, &cfg);
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  g_autoptr (GError) error = NULL;
  guint64 job_lines = 0, n = 0;
  SimTime prev = 0;
  SimJobSpec job;

  ck_assert (g_file_get_contents (EXCERPT, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *p = lines[i];

      while (g_ascii_isspace (*p))
        p++;
      job_lines += *p != '\0' && *p != ';';
    }
  ck_assert_uint_eq (job_lines, 225);

  while (sim_workload_next (w, &job, &error))
    {
      expect (job.submit >= prev);
      if (job.id == 1)
        expect (job.gpus == 16);
      prev = job.submit;
      n++;
    }
  ck_assert_msg (error == NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (sim_workload_swf_skipped (w), 5);
  ck_assert_uint_eq (n, job_lines - 5);
  ck_assert_uint_eq (w->produced, n);
  ck_assert (!sim_workload_next (w, &job, &error));
  ck_assert (error == NULL);

  /* max_jobs and rebase_time. */
  {
    SimSwfConfig c2 = swf_config (1, TRUE);
    g_autoptr (SimWorkload) w2 = NULL;
    g_autofree SimJobSpec *jobs = NULL;

    c2.max_jobs = 10;
    w2 = open_swf (EXCERPT, &c2);
    jobs = draw (w2, 10);
    ck_assert_int_eq (jobs[9].submit, 27989 * SIM_SECOND);
    ck_assert (!sim_workload_next (w2, &job, &error));
    ck_assert (error == NULL);
  }
}
END_TEST

/* Checks: the processors-to-GPUs mapping, ceil(p / ratio): 32 processors
 * at ratio 8 make 4 GPUs, 33 make 5, 1 makes 1; requested processors
 * (field 8) stand in when allocated (field 5) is -1; requested time (field
 * 9) becomes @requested; comments and blank lines between jobs, CRLF line
 * ends and a last line without a newline are accepted; rebase_time
 * subtracts the first job's submit time; a fractional ratio that divides
 * exactly is not rounded up.
 * Does not check: the real log (see the other tests). */
START_TEST (test_swf_mapping)
{
  const char *text =
    "; Version: 2.2\n"
    "; MaxProcs: 128\n"
    "\n"
    "10 1000 -1 60 32 -1 -1 -1 3600 -1 1 3 1 -1 -1 -1 -1 -1\n"
    "11 1200 -1 60 33 -1 -1 32 -1 -1 0 3 1 -1 -1 -1 -1 -1\r\n"
    "; a comment between jobs\n"
    "   \n"
    "12 1200 -1 60 1 -1 -1 -1 -1 -1 5 -1 1 -1 -1 -1 -1 -1\n"
    "\t13\t1500 -1 60 -1 -1 -1 20 -1 -1 1 7 1 -1 -1 -1 -1 -1";
  g_autofree char *path = write_tmp ("mapping.swf", text, -1);
  SimSwfConfig cfg = swf_config (8, FALSE);
  g_autoptr (GError) error = NULL;
  SimJobSpec job;

  cfg.rebase_time = TRUE;
  {
    g_autoptr (SimWorkload) w = open_swf (path, &cfg);
    g_autofree SimJobSpec *j = draw (w, 4);

    ck_assert_uint_eq (j[0].gpus, 4);
    ck_assert_int_eq (j[0].submit, 0);
    ck_assert_int_eq (j[0].requested, 3600 * SIM_SECOND);
    ck_assert_int_eq (j[0].status, 1);
    ck_assert_int_eq (j[0].user, 3);
    ck_assert_uint_eq (j[1].gpus, 5);
    ck_assert_int_eq (j[1].submit, 200 * SIM_SECOND);
    ck_assert_int_eq (j[1].requested, 0);
    ck_assert_int_eq (j[1].status, 0);
    ck_assert_uint_eq (j[2].gpus, 1);
    ck_assert_int_eq (j[2].user, -1);
    ck_assert_int_eq (j[2].status, 5);
    ck_assert_uint_eq (j[3].id, 13);
    ck_assert_uint_eq (j[3].gpus, 3);
    ck_assert_int_eq (j[3].submit, 500 * SIM_SECOND);
    ck_assert (!sim_workload_next (w, &job, &error));
    ck_assert (error == NULL);
  }

  cfg = swf_config (0.1, FALSE);
  {
    g_autoptr (SimWorkload) w = open_swf (path, &cfg);
    g_autofree SimJobSpec *j = draw (w, 4);

    ck_assert_uint_eq (j[0].gpus, 320);
    ck_assert_uint_eq (j[1].gpus, 330);
    ck_assert_int_eq (j[0].submit, 1000 * SIM_SECOND);
  }
}
END_TEST

/* Checks: each malformed line is rejected with SIM_ERROR_TRACE and a
 * message beginning "FILE:LINE: " with the exact line number, the jobs
 * before it having been returned; the error is returned again by later
 * calls.
 * Does not check: recovery after an error (there is none by design). */
START_TEST (test_swf_malformed)
{
  static const struct {
    const char *name;
    const char *text;
    guint64 jobs_before;
    guint line;
    const char *message;
  } cases[] = {
    { "17-fields.swf",
      "; h\n1 0 -1 10 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
      "2 5 -1 10 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1\n",
      1, 3, "expected 18 integer fields, found 17" },
    { "19-fields.swf",
      "1 0 -1 10 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1 0\n",
      0, 1, "expected 18 integer fields, found 19" },
    { "not-integer.swf",
      "; h\n;\n\n1 0 -1 10 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
      "2 5 -1 10 x -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n",
      1, 5, "field 5 (allocated processors) is not an integer: \"x\"" },
    { "float.swf",
      "1 0 -1 10.5 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n",
      0, 1, "field 4 (run time) is not an integer: \"10.5\"" },
    { "overflow.swf",
      "1 0 -1 99999999999999999999 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n",
      0, 1, "field 4 (run time) is out of range" },
    { "too-long.swf",
      "1 0 -1 9223372036 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n",
      0, 1, "field 4 (run time) is too large: 9223372036 s" },
    { "ends-past.swf",
      "1 9000000000 -1 300000000 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n",
      0, 1, "field 4 (run time): a run time of 3e+08 s from a submit time of 9e+09 s would end "
      "past the end of simulated time" },
    { "late-submit.swf",
      "1 9300000000 -1 10 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n",
      0, 1, "field 2 (submit time): the submit time is 9300000000 s from 1970-01-01 00:00:00, "
      "more than the 292 years" },
    { "backwards.swf",
      "1 100 -1 10 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
      "2 200 -1 10 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
      "3 150 -1 10 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n",
      2, 3, "field 2 (submit time): submitted 50 s before the row of line 2" },
    { "no-procs.swf",
      "1 100 -1 10 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
      "2 200 -1 10 0 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n",
      1, 2, "job 2 has no processors" },
    { "no-run.swf",
      "1 100 -1 -1 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n",
      0, 1, "job 1 has no run time" },
    { "no-submit.swf",
      "1 -1 -1 10 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n",
      0, 1, "field 2 (submit time) is negative" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = write_tmp (cases[i].name, cases[i].text, -1);
      g_autofree char *prefix = g_strdup_printf ("%s:%u: ", path, cases[i].line);
      SimSwfConfig cfg = swf_config (1, FALSE);
      g_autoptr (SimWorkload) w = open_swf (path, &cfg);
      g_autoptr (GError) error = NULL, again = NULL;
      guint64 n = drain (w, &error);
      SimJobSpec job;

      ck_assert_msg (error != NULL, "%s: accepted", cases[i].name);
      ck_assert_msg (g_error_matches (error, SIM_ERROR, SIM_ERROR_TRACE), "%s: %s",
                     cases[i].name, error->message);
      ck_assert_msg (g_str_has_prefix (error->message, prefix),
                     "%s: \"%s\" does not start with \"%s\"", cases[i].name, error->message,
                     prefix);
      ck_assert_msg (strstr (error->message, cases[i].message) != NULL,
                     "%s: \"%s\" does not contain \"%s\"", cases[i].name, error->message,
                     cases[i].message);
      ck_assert_uint_eq (n, cases[i].jobs_before);
      ck_assert (!sim_workload_next (w, &job, &again));
      ck_assert (again != NULL && g_str_equal (again->message, error->message));
    }

  /* The excerpt read strictly stops at its first job with no run time,
   * job 658 on line 248, after 215 jobs. */
  {
    SimSwfConfig cfg = swf_config (1, FALSE);
    g_autoptr (SimWorkload) w = open_swf (EXCERPT, &cfg);
    g_autoptr (GError) error = NULL;
    g_autofree char *prefix = g_strdup_printf ("%s:248: job 658 has no run time", EXCERPT);

    ck_assert_uint_eq (drain (w, &error), 215);
    ck_assert (error != NULL);
    ck_assert_msg (g_str_has_prefix (error->message, prefix), "%s", error->message);
  }
}
END_TEST

/* Checks: binary junk (a NUL byte, an endless line) is an error, not a
 * crash or an unbounded allocation; a missing file is SIM_ERROR_IO naming
 * the path; a non-positive ratio is SIM_ERROR_INVALID; an empty file or
 * one with only comments has no jobs.
 * Does not check: files that are unreadable for permission reasons. */
START_TEST (test_swf_robustness)
{
  static const char nul_line[] = "1 0 -1 10 4 -1 -1 -1\0 -1 -1 1 1 1 -1 -1 -1 -1 -1\n";
  g_autofree char *nul_path = write_tmp ("nul.swf", nul_line, sizeof nul_line - 1);
  g_autofree char *long_text = g_strnfill (100000, '7');
  g_autofree char *long_path = write_tmp ("long.swf", long_text, -1);
  g_autofree char *empty_path = write_tmp ("empty.swf", "", -1);
  g_autofree char *comments_path = write_tmp ("comments.swf", "; a\n;b\n\n", -1);
  g_autofree char *missing = g_build_filename (tmpdir, "missing.swf", NULL);
  SimSwfConfig cfg = swf_config (1, FALSE);

  {
    g_autoptr (SimWorkload) w = open_swf (nul_path, &cfg);
    g_autoptr (GError) error = NULL;

    ck_assert_uint_eq (drain (w, &error), 0);
    ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_TRACE));
    ck_assert_msg (strstr (error->message, ":1: ") != NULL, "%s", error->message);
  }
  {
    g_autoptr (SimWorkload) w = open_swf (long_path, &cfg);
    g_autoptr (GError) error = NULL;

    ck_assert_uint_eq (drain (w, &error), 0);
    ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_TRACE));
    ck_assert_msg (strstr (error->message, "longer than") != NULL, "%s", error->message);
  }
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr (SimWorkload) w = open_swf (i == 0 ? empty_path : comments_path, &cfg);
      g_autoptr (GError) error = NULL;

      ck_assert_uint_eq (drain (w, &error), 0);
      ck_assert (error == NULL);
    }
  {
    g_autoptr (GError) error = NULL;

    ck_assert (sim_workload_new_swf (missing, &cfg, &error) == NULL);
    ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_IO));
    ck_assert_msg (strstr (error->message, missing) != NULL, "%s", error->message);
  }
  {
    g_autoptr (GError) error = NULL;

    cfg.processors_per_gpu = 0;
    ck_assert (sim_workload_new_swf (EXCERPT, &cfg, &error) == NULL);
    ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID));
    ck_assert (strstr (error->message, "processors_per_gpu") != NULL);
  }
}
END_TEST

/* Checks: a gzip-compressed copy of the excerpt (compressed here with
 * GIO's zlib compressor) yields exactly the jobs of the plain file; a
 * truncated one is an error, not a crash.
 * Does not check: multi-member gzip files. */
START_TEST (test_swf_gzip)
{
  g_autofree char *text = NULL;
  gsize len = 0, written = 0, read = 0;
  g_autoptr (GConverter) gz = G_CONVERTER (g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 6));
  g_autofree guint8 *out = NULL;
  g_autofree char *path = NULL, *cut_path = NULL;
  g_autoptr (GError) error = NULL;
  SimSwfConfig cfg = swf_config (1, TRUE);

  ck_assert (g_file_get_contents (EXCERPT, &text, &len, NULL));
  out = g_malloc (len + 1024);
  ck_assert_int_eq (g_converter_convert (gz, text, len, out, len + 1024,
                                         G_CONVERTER_INPUT_AT_END, &read, &written, &error),
                    G_CONVERTER_FINISHED);
  ck_assert_uint_eq (read, len);
  path = write_tmp ("excerpt.swf.gz", (const char *) out, written);
  cut_path = write_tmp ("cut.swf.gz", (const char *) out, written / 2);

  {
    g_autoptr (SimWorkload) plain = open_swf (EXCERPT, &cfg);
    g_autoptr (SimWorkload) zipped = open_swf (path, &cfg);
    SimJobSpec a, b;
    guint64 n = 0;

    while (sim_workload_next (plain, &a, &error))
      {
        expect (sim_workload_next (zipped, &b, &error));
        expect (memcmp (&a, &b, sizeof a) == 0);
        n++;
      }
    ck_assert (error == NULL);
    ck_assert (!sim_workload_next (zipped, &b, &error));
    ck_assert (error == NULL);
    ck_assert_uint_eq (n, 220);
  }
  {
    g_autoptr (SimWorkload) w = open_swf (cut_path, &cfg);

    drain (w, &error);
    ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_TRACE));
  }
}
END_TEST

/* Checks: if the full NASA log is present, it streams to the end: jobs +
 * skipped = 18,239 job lines (the README's count and the header's
 * MaxJobs), skipped = 173 (the jobs with a run time of 0, counted
 * independently with awk '$4 <= 0'), submit times never decrease, and
 * with rebase_time the first job is at 0.
 * Does not check: memory use directly; the reader holds one line by
 * construction, and the test only shows that it finishes. */
START_TEST (test_swf_full_log)
{
  SimSwfConfig cfg = swf_config (8, TRUE);
  g_autoptr (SimWorkload) w = NULL;
  g_autoptr (GError) error = NULL;
  SimJobSpec job;
  guint64 n = 0;
  SimTime prev = 0;

  /* The full log does not ship (tests/data/README.md): without it the
   * test says so on stderr and passes; test_swf_excerpt_whole streams the
   * shipped excerpt through the same reader to its end. */
  if (!g_file_test (FULL_LOG, G_FILE_TEST_IS_REGULAR))
    {
      fprintf (stderr, "check-workload: test_swf_full_log skipped: %s not present\n", FULL_LOG);
      return;
    }
  cfg.rebase_time = TRUE;
  w = open_swf (FULL_LOG, &cfg);
  while (sim_workload_next (w, &job, &error))
    {
      if (n == 0)
        expect (job.submit == 0);
      expect (job.submit >= prev);
      expect (job.gpus >= 1);
      expect (job.gpus <= 16);
      prev = job.submit;
      n++;
    }
  ck_assert_msg (error == NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (sim_workload_swf_skipped (w), 173);
  ck_assert_uint_eq (n + sim_workload_swf_skipped (w), 18239);
}
END_TEST

/* ------------------------------------------------------------------------- */

/* ------------------------------------------------------------------------- */
/* Philly.                                                                   */

/* The first rows of tests/data/philly-excerpt.csv, read by eye:
 *   2017-10-01 00:00:45,30.0,1,30.0,6214e9
 *   2017-10-01 00:01:55,61.0,1,61.0,11cb48
 *   2017-10-01 00:05:41,53.0,1,53.0,6214e9
 * Submit times count from the first (0, 70 s, 296 s); virtual clusters are
 * tenants by first appearance (6214e9 = 0, 11cb48 = 1). */
START_TEST (test_philly_first_jobs)
{
  g_autoptr (GError) error = NULL;
  SimPhillyConfig cfg = { 0, TRUE, TRUE, 0, NULL };
  g_autoptr (SimWorkload) w = sim_workload_new_philly (SIM_TEST_DATADIR "/philly-excerpt.csv",
                                                       &cfg, &error);
  SimJobSpec j;
  guint64 n = 0;
  SimTime last = 0;

  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  ck_assert (sim_workload_next (w, &j, &error));
  ck_assert_int_eq (j.submit, 0);
  ck_assert_int_eq (j.duration, 30 * SIM_SECOND);
  ck_assert_uint_eq (j.gpus, 1);
  ck_assert_uint_eq (j.tenant, 0);
  ck_assert (sim_workload_next (w, &j, &error));
  ck_assert_int_eq (j.submit, 70 * SIM_SECOND);
  ck_assert_int_eq (j.duration, 61 * SIM_SECOND);
  ck_assert_uint_eq (j.tenant, 1);
  ck_assert_str_eq (sim_workload_get_class_name (w, 1), "11cb48");
  ck_assert (sim_workload_next (w, &j, &error));
  ck_assert_int_eq (j.submit, 296 * SIM_SECOND);
  ck_assert_uint_eq (j.tenant, 0);
  n = 3;
  while (sim_workload_next (w, &j, &error))
    {
      ck_assert_int_ge (j.submit, last);
      last = j.submit;
      n++;
    }
  ck_assert_ptr_null (error);
  /* 300 rows after the header, none without GPUs or run time. */
  ck_assert_uint_eq (n + sim_workload_philly_skipped (w), 300);
}
END_TEST

static const struct {
  const char *row;
  const char *needle;
} philly_bad[] = {
  { "2017-10-01 00:10:00,30.0,1,30.0", "expected 5 comma-separated fields" },
  { "2017-13-01 00:10:00,30.0,1,30.0,6214e9", "is not YYYY-MM-DD HH:MM:SS" },
  { "2017-10-01 00:10:00,-3,1,-3,6214e9", "duration" },
  { "2017-10-01 00:10:00,30.0,x,30.0,6214e9", "num_gpus" },
  { "2017-10-01 00:10:00,30.0,2,30.0,6214e9", "is not duration x num_gpus" },
  { "2017-10-01 00:10:00,30.0,1,30.0,", "cluster" },
  { "2017-09-30 00:10:00,30.0,1,30.0,6214e9", "timestamp: submitted 85915 s before the row of line 3" },
  { "2017-10-01 00:10:00,1e10,1,1e10,6214e9", "duration \"1e10\" is 292 years or more" },
  { "2017-10-01 00:10:00,9223372036,1,9223372036,6214e9", "duration \"9223372036\" is 292 years" },
  /* The cluster becomes the job's class in jobs.csv: not in Latin-1. */
  { "2017-10-01 00:10:00,30.0,1,30.0,62\xe9", ":4: the cluster is not UTF-8 text" },
};

/* A malformed third data row (line 4) is refused with its line number. */
START_TEST (test_philly_malformed)
{
  g_autofree char *path = g_build_filename (tmpdir, "bad-philly.csv", NULL);
  g_autofree char *text = g_strdup_printf ("timestamp,duration,num_gpus,gpu_time,cluster\n"
                                           "2017-10-01 00:00:45,30.0,1,30.0,6214e9\n"
                                           "2017-10-01 00:01:55,61.0,1,61.0,11cb48\n"
                                           "%s\n", philly_bad[_i].row);
  g_autoptr (GError) error = NULL;
  SimPhillyConfig cfg = { 0, FALSE, TRUE, 0, NULL };
  g_autoptr (SimWorkload) w = NULL;
  SimJobSpec j;

  ck_assert (g_file_set_contents (path, text, -1, NULL));
  w = sim_workload_new_philly (path, &cfg, &error);
  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  ck_assert (sim_workload_next (w, &j, &error));
  ck_assert (sim_workload_next (w, &j, &error));
  ck_assert (!sim_workload_next (w, &j, &error));
  ck_assert (g_error_matches (error, SIM_ERROR, SIM_ERROR_TRACE));
  ck_assert_msg (strstr (error->message, "bad-philly.csv:4: ") != NULL, "%s", error->message);
  ck_assert_msg (strstr (error->message, philly_bad[_i].needle) != NULL, "%s", error->message);
}
END_TEST

START_TEST (test_philly_header)
{
  g_autofree char *path = g_build_filename (tmpdir, "bad-header.csv", NULL);
  g_autoptr (GError) error = NULL;
  SimPhillyConfig cfg = { 0, TRUE, TRUE, 0, NULL };
  g_autoptr (SimWorkload) w = NULL;

  ck_assert (g_file_set_contents (path, "time,duration\n", -1, NULL));
  w = sim_workload_new_philly (path, &cfg, &error);
  ck_assert_ptr_null (w);
  ck_assert_msg (strstr (error->message, "bad-header.csv:1: expected the header") != NULL, "%s",
                 error->message);
}
END_TEST

/* The whole October 2017 month, streamed, from the checkout's
 * data/traces/philly/, where it ships (the shared trace directory stands
 * in only for a tree whose data/ was left out): the README gives 47,192
 * jobs. */
START_TEST (test_philly_full_month)
{
  static const char *const paths[] = {
    SIM_TOP_SRCDIR "/data/traces/philly/philly-2017-10.csv",
    SIM_TRACEDIR "/philly/philly-2017-10.csv",
  };
  const char *path = NULL;
  g_autoptr (GError) error = NULL;
  SimPhillyConfig cfg = { 0, TRUE, TRUE, 0, NULL };
  g_autoptr (SimWorkload) w = NULL;
  SimJobSpec j;
  guint64 n = 0;

  for (guint i = 0; i < G_N_ELEMENTS (paths) && path == NULL; i++)
    if (g_file_test (paths[i], G_FILE_TEST_EXISTS))
      path = paths[i];
  /* The month ships: its absence is a broken tree. */
  ck_assert_msg (path != NULL, "%s: the shipped trace is missing", paths[0]);
  w = sim_workload_new_philly (path, &cfg, &error);
  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  while (sim_workload_next (w, &j, &error))
    n++;
  ck_assert_msg (error == NULL, "%s", error->message);
  ck_assert_uint_eq (n + sim_workload_philly_skipped (w), 47192);
  /* 11 virtual clusters, as philly-vc-nodes.csv lists. */
  ck_assert_uint_eq (sim_workload_get_n_classes (w), 11);
}
END_TEST

/* Without rebasing, a timestamp after 2262-04-11 23:47:16 does not fit in
 * nanoseconds since 1970: refused at its line, never wrapped around. */
START_TEST (test_philly_end_of_time)
{
  g_autofree char *path = write_tmp ("late-philly.csv",
                                     "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                     "2262-04-11 23:47:00,10.0,1,10.0,vc\n"
                                     "2262-04-11 23:47:17,10.0,1,10.0,vc\n", -1);
  SimPhillyConfig cfg = { 0, FALSE, FALSE, 0, NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (SimWorkload) w = sim_workload_new_philly (path, &cfg, &error);
  SimJobSpec job;

  ck_assert_ptr_nonnull (w);
  /* The first job fits, and ends 10 s later: before the end of time. */
  ck_assert (sim_workload_next (w, &job, &error));
  ck_assert_int_eq (job.submit, (SimTime) 9223372020 * SIM_SECOND);
  ck_assert (!sim_workload_next (w, &job, &error));
  ck_assert_msg (strstr (error->message, "late-philly.csv:3: timestamp: the submit time is "
                         "9223372037 s from 1970-01-01") != NULL, "%s", error->message);
}
END_TEST

/* A duration drawn from a long tail that would end past the end of
 * simulated time stops the generator with an error naming the job and its
 * class; the draws before it are returned as they were. */
START_TEST (test_gen_end_of_time)
{
  SimJobClassConfig c = make_class ("heavy", 1, lognormal (100 * 86400.0, 10));
  SimGeneratorConfig cfg = make_config (1.0, &c, 1);
  g_autoptr (SimWorkload) w = new_generator (&cfg, 7);
  g_autoptr (GError) error = NULL;
  SimJobSpec job;
  guint n = 0;

  while (sim_workload_next (w, &job, &error))
    {
      ck_assert_int_lt (job.duration, SIM_TIME_NEVER - job.submit);
      n++;
      ck_assert_uint_lt (n, 1000);
    }
  ck_assert_ptr_nonnull (error);
  ck_assert_msg (strstr (error->message, "of class heavy: its drawn duration") != NULL &&
                 strstr (error->message, "past the end of simulated time") != NULL,
                 "%s", error->message);
  {
    g_autofree char *prefix = g_strdup_printf ("job %u ", n + 1);
    ck_assert_msg (g_str_has_prefix (error->message, prefix), "%s", error->message);
  }
}
END_TEST

/* ------------------------------------------------------------------------- */
/* The reorder window.                                                       */

/* Reads every job of a Philly list with window @window; NULL and @error
 * set if it fails. */
static GArray *
philly_jobs (const char *path, guint64 window, GError **error)
{
  SimPhillyConfig cfg = { 0, TRUE, TRUE, window, NULL };
  g_autoptr (SimWorkload) w = sim_workload_new_philly (path, &cfg, error);
  g_autoptr (GArray) jobs = g_array_new (FALSE, FALSE, sizeof (SimJobSpec));
  SimJobSpec job;

  ck_assert_ptr_nonnull (w);
  while (sim_workload_next (w, &job, error))
    {
      /* Classes are numbered by first appearance in the file, which
       * differs between copies: compare by name. */
      job.gpu_models = g_intern_string (sim_workload_get_class_name (w, job.job_class));
      g_array_append_val (jobs, job);
    }
  return *error != NULL ? NULL : g_steal_pointer (&jobs);
}

/* The first 300 rows of the published Philly list are in no particular
 * order (tests/data/README.md).  A window of 287 rows puts them in order,
 * exactly as a copy sorted stably by timestamp reads with no window; 286
 * is one row too few (line 297 comes 287 places after the line 292 it
 * precedes), and no window stops at line 3. */
START_TEST (test_reorder_published_philly)
{
  const char *path = SIM_TEST_DATADIR "/philly-published-head.csv";
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  g_autoptr (GPtrArray) rows = g_ptr_array_new ();
  g_autoptr (GString) sorted = g_string_new (NULL);
  g_autofree char *sorted_path = NULL;
  g_autoptr (GArray) a = NULL, b = NULL;
  g_autoptr (GError) error = NULL;

  ck_assert (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  g_string_append_printf (sorted, "%s\n", lines[0]);
  for (guint i = 1; lines[i] != NULL; i++)
    if (*lines[i] != '\0')
      {
        /* Insertion sort by timestamp (the first 19 characters), stable. */
        guint k = rows->len;

        g_ptr_array_add (rows, lines[i]);
        while (k > 0 && strncmp (rows->pdata[k - 1], lines[i], 19) > 0)
          {
            rows->pdata[k] = rows->pdata[k - 1];
            k--;
          }
        rows->pdata[k] = lines[i];
      }
  ck_assert_uint_eq (rows->len, 300);
  for (guint i = 0; i < rows->len; i++)
    g_string_append_printf (sorted, "%s\n", (char *) rows->pdata[i]);
  sorted_path = write_tmp ("philly-sorted.csv", sorted->str, -1);

  a = philly_jobs (path, 287, &error);
  ck_assert_msg (a != NULL, "%s", error ? error->message : "?");
  b = philly_jobs (sorted_path, 0, &error);
  ck_assert_msg (b != NULL, "%s", error ? error->message : "?");
  ck_assert_uint_eq (a->len, b->len);
  ck_assert_uint_gt (a->len, 290);
  for (guint i = 0; i < a->len; i++)
    {
      const SimJobSpec *x = &g_array_index (a, SimJobSpec, i);
      const SimJobSpec *y = &g_array_index (b, SimJobSpec, i);

      ck_assert_int_eq (x->submit, y->submit);
      ck_assert_int_eq (x->duration, y->duration);
      ck_assert_uint_eq (x->gpus, y->gpus);
      ck_assert_str_eq (x->gpu_models, y->gpu_models);
      /* Ties keep the order of the file: job ids (line - 1) increase. */
      if (i > 0 && x->submit == g_array_index (a, SimJobSpec, i - 1).submit)
        ck_assert_uint_gt (x->id, g_array_index (a, SimJobSpec, i - 1).id);
    }
  /* The earliest row (line 4, 2017-09-29 07:58:32) comes first, at 0. */
  ck_assert_uint_eq (g_array_index (a, SimJobSpec, 0).id, 3);
  ck_assert_int_eq (g_array_index (a, SimJobSpec, 0).submit, 0);

  /* Sorting the whole list gives the same jobs. */
  {
    g_autoptr (GArray) c = philly_jobs (path, SIM_TRACE_REORDER_SORT, &error);

    ck_assert_msg (c != NULL, "%s", error ? error->message : "?");
    ck_assert_uint_eq (c->len, a->len);
    for (guint i = 0; i < a->len; i++)
      {
        const SimJobSpec *x = &g_array_index (a, SimJobSpec, i);
        const SimJobSpec *y = &g_array_index (c, SimJobSpec, i);

        ck_assert_uint_eq (x->id, y->id);
        ck_assert_int_eq (x->submit, y->submit);
        ck_assert_int_eq (x->duration, y->duration);
        ck_assert_uint_eq (x->gpus, y->gpus);
        ck_assert_uint_eq (x->tenant, y->tenant);
        ck_assert_ptr_eq (x->gpu_models, y->gpu_models);
      }
  }

  ck_assert_ptr_null (philly_jobs (path, 286, &error));
  ck_assert_msg (strstr (error->message, "philly-published-head.csv:297: timestamp: submitted ")
                 != NULL && strstr (error->message, "before the row of line 292, which the "
                                    "reorder window (286 rows) had already released") != NULL,
                 "%s", error->message);
  g_clear_error (&error);
  ck_assert_ptr_null (philly_jobs (path, 0, &error));
  ck_assert_msg (strstr (error->message, "philly-published-head.csv:3: timestamp: submitted "
                         "2932 s before the row of line 2") != NULL, "%s", error->message);
}
END_TEST

/* Window sizes on a small SWF log: submit times 10, 5, 10, 5, 7 on lines
 * 1 to 5.  Line 4 comes two places after rows submitted later (lines 1 and
 * 3), so a window of two rows or more releases them as 5 (job 2), 5
 * (job 4), 7 (job 5), 10 (job 1), 10 (job 3): in time, ties in file order.
 * One row releases job 2, then job 1 (10), and job 4 (5) comes too late;
 * none stops at line 2. */
START_TEST (test_reorder_window_sizes)
{
  static const char text[] =
    "1 10 -1 60 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
    "2 5 -1 60 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
    "3 10 -1 60 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
    "4 5 -1 60 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
    "5 7 -1 60 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n";
  static const guint64 order[] = { 2, 4, 5, 1, 3 };
  g_autofree char *path = write_tmp ("unsorted.swf", text, -1);
  g_autoptr (GError) error = NULL;
  SimJobSpec job;

  for (guint64 window = 2; window <= 6; window++)
    {
      SimSwfConfig cfg = swf_config (1, FALSE);
      g_autoptr (SimWorkload) w = NULL;

      cfg.reorder_window = window;
      w = open_swf (path, &cfg);
      for (guint i = 0; i < G_N_ELEMENTS (order); i++)
        {
          ck_assert_msg (sim_workload_next (w, &job, &error), "window %" G_GUINT64_FORMAT
                         ": %s", window, error ? error->message : "ended");
          ck_assert_uint_eq (job.id, order[i]);
        }
      ck_assert (!sim_workload_next (w, &job, &error));
      ck_assert_ptr_null (error);
    }
  /* max_jobs takes the earliest submitted jobs, not the first lines: with
   * two jobs, the two submitted at 5 s (jobs 2 and 4, lines 2 and 4), not
   * jobs 1 and 2 of the first two lines, nor job 2 then job 1 as a window
   * of one row would release them. */
  {
    SimSwfConfig cfg = swf_config (1, FALSE);
    g_autoptr (SimWorkload) w = NULL;
    static const guint64 first_two[] = { 2, 4 };

    cfg.reorder_window = 4;
    cfg.max_jobs = 2;
    w = open_swf (path, &cfg);
    for (guint i = 0; i < G_N_ELEMENTS (first_two); i++)
      {
        ck_assert_msg (sim_workload_next (w, &job, &error), "%s",
                       error ? error->message : "ended");
        ck_assert_uint_eq (job.id, first_two[i]);
        ck_assert_int_eq (job.submit, 5 * SIM_SECOND);
      }
    ck_assert (!sim_workload_next (w, &job, &error));
    ck_assert_ptr_null (error);
  }
  for (guint64 window = 0; window <= 1; window++)
    {
      SimSwfConfig cfg = swf_config (1, FALSE);
      g_autoptr (SimWorkload) w = NULL;
      g_autofree char *needle = NULL;

      cfg.reorder_window = window;
      w = open_swf (path, &cfg);
      drain (w, &error);
      ck_assert_ptr_nonnull (error);
      /* Window 0 stops at line 2 (before line 1); 1 at line 4, after job 1
       * (line 1, at 10) has been released. */
      needle = window == 0
        ? g_strdup ("unsorted.swf:2: field 2 (submit time): submitted 5 s before the row of line 1")
        : g_strdup ("unsorted.swf:4: field 2 (submit time): submitted 5 s before the row of "
                    "line 1");
      ck_assert_msg (strstr (error->message, needle) != NULL, "window %" G_GUINT64_FORMAT ": %s",
                     window, error->message);
      g_clear_error (&error);
    }
}
END_TEST

static Suite *
workload_suite (void)
{
  Suite *s = suite_create ("workload");
  TCase *gen = tcase_create ("generator");
  TCase *common = tcase_create ("common");
  TCase *swf = tcase_create ("swf");

  tcase_add_test (gen, test_gen_poisson_mean);
  tcase_add_test (gen, test_gen_profile_shape);
  tcase_add_test (gen, test_gen_limits);
  tcase_add_test (gen, test_gen_gpu_frequencies);
  tcase_add_test (gen, test_gen_durations);
  tcase_add_test (gen, test_gen_classes);
  tcase_add_test (gen, test_gen_determinism);
  tcase_add_test (gen, test_gen_stream_independence);
  tcase_add_test (gen, test_gen_config_copied);
  tcase_add_test (gen, test_gen_invalid);
  tcase_add_test (gen, test_gen_end_of_time);
  suite_add_tcase (s, gen);

  tcase_add_test (common, test_common_order);
  suite_add_tcase (s, common);

  tcase_add_test (swf, test_swf_first_jobs);
  tcase_add_test (swf, test_swf_excerpt_whole);
  tcase_add_test (swf, test_swf_mapping);
  tcase_add_test (swf, test_swf_malformed);
  tcase_add_test (swf, test_swf_robustness);
  tcase_add_test (swf, test_swf_gzip);
  tcase_add_test (swf, test_swf_full_log);
  suite_add_tcase (s, swf);

  {
    TCase *philly = tcase_create ("philly");
    tcase_add_test (philly, test_philly_first_jobs);
    tcase_add_loop_test (philly, test_philly_malformed, 0, G_N_ELEMENTS (philly_bad));
    tcase_add_test (philly, test_philly_header);
    tcase_add_test (philly, test_philly_full_month);
    tcase_add_test (philly, test_philly_end_of_time);
    suite_add_tcase (s, philly);
  }
  {
    TCase *reorder = tcase_create ("reorder");
    tcase_add_test (reorder, test_reorder_published_philly);
    tcase_add_test (reorder, test_reorder_window_sizes);
    suite_add_tcase (s, reorder);
  }
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

  tmpdir = g_dir_make_tmp ("check-workload-XXXXXX", &error);
  if (tmpdir == NULL)
    {
      g_printerr ("cannot make a temporary directory: %s\n", error->message);
      return 1;
    }
  runner = srunner_create (workload_suite ());
  srunner_run_all (runner, CK_NORMAL);
  failed = srunner_ntests_failed (runner);
  srunner_free (runner);
  remove_tmpdir ();
  g_free (tmpdir);
  return failed == 0 ? 0 : 1;
}

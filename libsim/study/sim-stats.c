/* sim-stats.c: means, standard deviations, Student t and bootstrap
 * intervals. */
#include "config.h"

#include "study/sim-stats.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Resamples of the bootstrap: enough for the expanded tails (0.1 % on
 * each side at n = 5: ten resampled means beyond each end), and ten
 * thousand means of a handful of seeds take about a millisecond. */
#define BOOTSTRAP_RESAMPLES 10000

/* Mixed with the samples into the generator's seed ("gpusim"). */
#define BOOTSTRAP_SEED G_GUINT64_CONSTANT (0x67707573696d)

static gpointer
interval_copy (gpointer interval)
{
  return g_memdup2 (interval, sizeof (SimCompareInterval));
}

G_DEFINE_BOXED_TYPE (SimCompareInterval, sim_compare_interval, interval_copy, g_free)

double
sim_compare_t_quantile (double level, guint df)
{
  g_return_val_if_fail (level > 0 && level < 1, NAN);
  g_return_val_if_fail (df >= 1, NAN);
  return gsl_cdf_tdist_Pinv ((1 + level) / 2, (double) df);
}

/* The mean and standard deviation of SAMPLES into INTERVAL, its interval
 * NAN; FALSE if some sample is not finite, N < 2, or every sample is the
 * same (then @identical, the mean that value exactly and @sd 0). */
static gboolean
mean_and_sd (const double *samples, guint n, SimCompareInterval *interval)
{
  double sum = 0, ss = 0, mean;
  gboolean identical = TRUE;

  interval->n = n;
  interval->mean = interval->sd = interval->half_width = NAN;
  interval->low = interval->high = NAN;
  interval->symmetric = TRUE;
  interval->identical = FALSE;
  for (guint i = 0; i < n; i++)
    {
      if (!isfinite (samples[i]))
        return FALSE;
      sum += samples[i];
      identical &= samples[i] == samples[0];
    }
  /* Two passes: the deviations are summed after the mean is known, which
   * loses nothing to cancellation when the spread is small. */
  mean = sum / n;
  interval->mean = mean;
  if (n < 2)
    return FALSE;
  /* Samples that are all the same did not vary: most often the seeds
   * change nothing (a trace replayed whole), and an interval of width 0
   * would claim a certainty the runs do not give.  No interval then, and
   * the mean is the value itself (a sum of n equal terms over n can be an
   * ulp off). */
  if (identical)
    {
      interval->identical = TRUE;
      interval->mean = samples[0];
      interval->sd = 0;
      return FALSE;
    }
  for (guint i = 0; i < n; i++)
    ss += (samples[i] - mean) * (samples[i] - mean);
  interval->sd = sqrt (ss / (n - 1));
  return TRUE;
}

gboolean
sim_compare_t_interval (const double *samples, guint n, double level,
                        SimCompareInterval *interval)
{
  double hw;

  g_return_val_if_fail (samples != NULL && n >= 1, FALSE);
  g_return_val_if_fail (level > 0 && level < 1, FALSE);
  g_return_val_if_fail (interval != NULL, FALSE);

  if (!mean_and_sd (samples, n, interval))
    return FALSE;
  hw = sim_compare_t_quantile (level, n - 1) * interval->sd / sqrt ((double) n);
  interval->half_width = hw;
  interval->low = interval->mean - hw;
  interval->high = interval->mean + hw;
  return TRUE;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* FNV-1a over N, LEVEL and the samples' bits, from BOOTSTRAP_SEED: the
 * generator's seed, folded to the 32 bits MT19937 uses. */
static unsigned long
bootstrap_seed (const double *samples, guint n, double level)
{
  guint64 h = BOOTSTRAP_SEED ^ G_GUINT64_CONSTANT (0xcbf29ce484222325);
  guint64 words[2];

  memcpy (&words[0], &level, sizeof (double));
  words[1] = n;
  for (guint i = 0; i < 2 + n; i++)
    {
      guint64 w;
      if (i < 2)
        w = words[i];
      else
        memcpy (&w, &samples[i - 2], sizeof (double));
      for (guint b = 0; b < 8; b++)
        {
          h ^= (w >> (8 * b)) & 0xff;
          h *= G_GUINT64_CONSTANT (0x100000001b3);
        }
    }
  return (unsigned long) ((h ^ (h >> 32)) & 0xffffffff);
}

/* The expanded percentile bootstrap of the mean into INTERVAL, whose mean
 * and standard deviation are known.  The tails are 2 Phi (-sqrt (n /
 * (n - 1)) t) rather than 1 - LEVEL, t the quantile of the t interval at
 * LEVEL: the plain percentile interval is as narrow as a normal one with
 * the divisor n, which undercovers badly for few seeds (81 % for 5
 * exponential samples at 95 %); expanded, it widens as t does. */
static void
bootstrap_interval (const double *samples, guint n, double level, SimCompareInterval *interval)
{
  g_autofree double *means = g_new (double, BOOTSTRAP_RESAMPLES);
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  double mean = interval->mean;
  double tail = gsl_cdf_ugaussian_P (-sqrt (n / (n - 1.0)) * sim_compare_t_quantile (level, n - 1));

  gsl_rng_set (rng, bootstrap_seed (samples, n, level));
  for (guint b = 0; b < BOOTSTRAP_RESAMPLES; b++)
    {
      double sum = 0;
      for (guint i = 0; i < n; i++)
        sum += samples[gsl_rng_uniform_int (rng, n)];
      means[b] = sum / n;
    }
  gsl_rng_free (rng);
  qsort (means, BOOTSTRAP_RESAMPLES, sizeof (double), compare_doubles);
  /* The mean lies inside in all but degenerate cases (where rounding of
   * the resampled sums puts it an ulp outside); keep it there. */
  interval->low = MIN (gsl_stats_quantile_from_sorted_data (means, 1, BOOTSTRAP_RESAMPLES, tail),
                       mean);
  interval->high = MAX (gsl_stats_quantile_from_sorted_data (means, 1, BOOTSTRAP_RESAMPLES,
                                                              1 - tail), mean);
  interval->half_width = MAX (mean - interval->low, interval->high - mean);
  interval->symmetric = FALSE;
}

gboolean
sim_compare_interval (const double *samples, guint n, double level,
                      SimCompareInterval *interval)
{
  g_return_val_if_fail (samples != NULL && n >= 1, FALSE);
  g_return_val_if_fail (level > 0 && level < 1, FALSE);
  g_return_val_if_fail (interval != NULL, FALSE);

  if (!mean_and_sd (samples, n, interval))
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (samples[i] < 0)
      return sim_compare_t_interval (samples, n, level, interval);
  bootstrap_interval (samples, n, level, interval);
  return TRUE;
}

gboolean
sim_compare_paired_interval (const double *baseline, const double *other, guint n, double level,
                             SimCompareInterval *interval)
{
  g_autofree double *d = NULL;

  g_return_val_if_fail (baseline != NULL && other != NULL && n >= 1, FALSE);
  g_return_val_if_fail (level > 0 && level < 1, FALSE);
  g_return_val_if_fail (interval != NULL, FALSE);
  d = g_new (double, n);
  for (guint i = 0; i < n; i++)
    d[i] = other[i] - baseline[i];
  return sim_compare_t_interval (d, n, level, interval);
}

gboolean
sim_compare_interval_excludes_zero (const SimCompareInterval *interval)
{
  g_return_val_if_fail (interval != NULL, FALSE);
  if (!isfinite (interval->low) || !isfinite (interval->high))
    return FALSE;
  return interval->low > 0 || interval->high < 0;
}

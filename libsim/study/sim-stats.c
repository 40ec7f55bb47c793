/* sim-stats.c: means, standard deviations and Student t intervals. */
#include "config.h"

#include "study/sim-stats.h"

#include <gsl/gsl_cdf.h>
#include <math.h>

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

gboolean
sim_compare_interval (const double *samples, guint n, double level,
                      SimCompareInterval *interval)
{
  double sum = 0, ss = 0, mean, hw;

  g_return_val_if_fail (samples != NULL && n >= 1, FALSE);
  g_return_val_if_fail (level > 0 && level < 1, FALSE);
  g_return_val_if_fail (interval != NULL, FALSE);

  interval->n = n;
  interval->mean = interval->sd = interval->half_width = NAN;
  interval->low = interval->high = NAN;
  for (guint i = 0; i < n; i++)
    {
      if (!isfinite (samples[i]))
        return FALSE;
      sum += samples[i];
    }
  /* Two passes: the deviations are summed after the mean is known, which
   * loses nothing to cancellation when the spread is small. */
  mean = sum / n;
  interval->mean = mean;
  if (n < 2)
    return FALSE;
  for (guint i = 0; i < n; i++)
    ss += (samples[i] - mean) * (samples[i] - mean);
  interval->sd = sqrt (ss / (n - 1));
  hw = sim_compare_t_quantile (level, n - 1) * interval->sd / sqrt ((double) n);
  interval->half_width = hw;
  interval->low = mean - hw;
  interval->high = mean + hw;
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
  return sim_compare_interval (d, n, level, interval);
}

gboolean
sim_compare_interval_excludes_zero (const SimCompareInterval *interval)
{
  g_return_val_if_fail (interval != NULL, FALSE);
  if (!isfinite (interval->low) || !isfinite (interval->high))
    return FALSE;
  return interval->low > 0 || interval->high < 0;
}

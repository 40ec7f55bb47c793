/* sim-stats.h: means and Student t intervals over seeds.
 *
 * One run of a scenario is one sample: its metrics depend on the random
 * draws of the workload.  To say that policy B waits less than policy A,
 * run both on the same seeds and look at intervals, not at one number.
 * These functions take numbers only; they know nothing of how the runs
 * were made (see sim-plan.h and sim-executor.h), so results gathered from
 * any executor, or read back from files, give the same statistics.
 *
 * For samples x_1..x_n (one per seed), the mean is m = sum x_i / n, the
 * sample standard deviation s = sqrt (sum (x_i - m)^2 / (n - 1)), and the
 * confidence interval at level L (0.95 for 95 %) is m +- t * s / sqrt (n),
 * with t the (1 + L) / 2 quantile of Student's t distribution with n - 1
 * degrees of freedom.  It assumes the runs are independent and their mean
 * roughly normal; with few seeds and skewed metrics (tail waits) it is a
 * guide.
 *
 * Two policies run on the same seeds see the same arrivals, so their
 * results are paired: the interval of the differences d_i = y_i - x_i
 * (the same formula on the d_i) is much narrower than the two intervals
 * side by side would suggest.  If it excludes 0, the difference is
 * significant at that level.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib-object.h>

G_BEGIN_DECLS

/**
 * SimCompareInterval:
 * @n: the number of samples
 * @mean: their mean
 * @sd: their sample standard deviation (divisor n - 1); NAN if @n < 2
 * @half_width: half the width of the confidence interval; NAN if @n < 2
 * @low: @mean - @half_width
 * @high: @mean + @half_width
 *
 * A mean with its confidence interval.  Any non-finite sample makes every
 * field but @n NAN.
 */
typedef struct {
  guint  n;
  double mean;
  double sd;
  double half_width;
  double low;
  double high;
} SimCompareInterval;

GType sim_compare_interval_get_type (void) G_GNUC_CONST;
#define SIM_TYPE_COMPARE_INTERVAL (sim_compare_interval_get_type ())

/**
 * sim_compare_interval:
 * @samples: (array length=n): the samples
 * @n: their number, at least 1
 * @level: the confidence level, between 0 and 1 exclusive (0.95 for 95 %)
 * @interval: (out caller-allocates): the result
 *
 * The mean of @samples and its Student t confidence interval.
 *
 * Time complexity: O(n).
 *
 * Returns: %TRUE if the interval is defined (@n >= 2 and every sample
 *   finite).
 */
gboolean sim_compare_interval (const double *samples, guint n, double level,
                               SimCompareInterval *interval);

/**
 * sim_compare_paired_interval:
 * @baseline: (array length=n): the baseline's samples
 * @other: (array length=n): the other's samples, in the same order (the
 *   same seeds)
 * @n: the number of pairs, at least 1
 * @level: the confidence level, between 0 and 1 exclusive
 * @interval: (out caller-allocates): the interval of @other - @baseline
 *
 * The mean difference of paired samples and its paired t interval.
 *
 * Time complexity: O(n).
 *
 * Returns: %TRUE if the interval is defined.
 */
gboolean sim_compare_paired_interval (const double *baseline, const double *other, guint n,
                                      double level, SimCompareInterval *interval);

/**
 * sim_compare_interval_excludes_zero:
 * @interval: an interval
 *
 * Returns: %TRUE if the interval is defined and 0 lies outside it: the
 *   difference it describes is significant at its level.
 */
gboolean sim_compare_interval_excludes_zero (const SimCompareInterval *interval);

/**
 * sim_compare_t_quantile:
 * @level: a confidence level, between 0 and 1 exclusive
 * @df: degrees of freedom, at least 1
 *
 * Returns: the (1 + @level) / 2 quantile of Student's t distribution with
 *   @df degrees of freedom (2.776 for 0.95 and 4).
 */
double sim_compare_t_quantile (double level, guint df);

G_END_DECLS

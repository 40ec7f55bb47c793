/* sim-stats.h: means and confidence intervals over seeds.
 *
 * One run of a scenario is one sample: its metrics depend on the random
 * draws of the workload.  To say that policy B waits less than policy A,
 * run both on the same seeds and look at intervals, not at one number.
 * These functions take numbers only; they know nothing of how the runs
 * were made (see sim-plan.h and sim-executor.h), so results gathered from
 * any executor, or read back from files, give the same statistics.
 *
 * For samples x_1..x_n (one per seed), the mean is m = sum x_i / n and the
 * sample standard deviation s = sqrt (sum (x_i - m)^2 / (n - 1)).  The
 * confidence interval at level L (0.95 for 95 %) depends on the signs:
 *
 *  - If every sample is non-negative (waits, JCTs, slowdowns, energy,
 *    costs, counts: positive and often skewed), it is an expanded
 *    percentile bootstrap of the mean (Hesterberg, "What teachers should
 *    know about the bootstrap", 2015): B = 10,000 resamples of n draws
 *    with replacement, and the a and 1 - a quantiles of their B means
 *    (linear interpolation between order statistics), where
 *    a = Phi (-sqrt (n / (n - 1)) t), t the quantile of the t interval
 *    below and Phi the normal distribution (a = 0.1 % for 5 seeds at 95 %,
 *    rather than the plain percentile's 2.5 %, which is as narrow as a
 *    normal interval and covers the true mean of 5 exponential samples
 *    only 81 % of the time).  Every resampled mean lies between the
 *    smallest and the largest sample, so the interval never goes below
 *    zero, and it is asymmetric where the samples are skewed:
 *    {0, 0, 0, 5000} gives 1250 [0, 5000], where t gives 1250 +- 3978,
 *    down to -2728 s of wait.  With 2 or 3 seeds it is about the samples'
 *    range.  Its coverage is near nominal for symmetric samples (92 % for
 *    5 uniform samples at 95 %) and a little short for skewed ones (88 %
 *    for 5 exponential samples, 92 % for 20).  The draws come from GSL's
 *    MT19937 seeded with a fixed constant hashed with n, L and the
 *    samples' bits, in order: the same samples give the same interval,
 *    byte for byte, in any process and on any thread.  (Not a t interval
 *    on the log scale: that bounds the geometric mean, not the mean, and
 *    a wait of 0 has no logarithm.)
 *
 *  - Otherwise (a sample below zero: the metric is signed), it is Student's
 *    t interval m +- t * s / sqrt (n), with t the (1 + L) / 2 quantile of
 *    Student's t distribution with n - 1 degrees of freedom.  It assumes
 *    the runs are independent and their mean roughly normal.
 *
 * Two policies run on the same seeds see the same arrivals, so their
 * results are paired: the interval of the differences d_i = y_i - x_i is
 * much narrower than the two intervals side by side would suggest.  It is
 * always the t interval (differences are signed, and roughly symmetric
 * when the policies are close); if it excludes 0, the difference is
 * significant at that level.
 *
 * Samples that are all the same (at least two) get no interval: they
 * did not vary, most often because the seeds change nothing (a trace
 * replayed whole, with no window, bootstrap or jitter: docs/statistics.md),
 * and an interval of width zero would claim a certainty the runs do not
 * give.  Their @identical is set, their mean is the value, and a paired
 * difference of identical differences (a policy compared with itself: all
 * 0) is not significant.  Callers warn and print neither interval nor star.
 *
 * A symmetric interval prints as "MEAN +- HALF-WIDTH", an asymmetric one
 * as "MEAN [LOW, HIGH]" (see SimCompareInterval's @symmetric).
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
 * @half_width: the larger of @mean - @low and @high - @mean: half the
 *   width of a symmetric interval, the longer side's reach of an
 *   asymmetric one; NAN if @n < 2
 * @low: the interval's lower end (@mean - @half_width if @symmetric)
 * @high: its upper end (@mean + @half_width if @symmetric)
 * @symmetric: %TRUE for a t interval, centred on @mean; %FALSE for a
 *   bootstrap interval, which @low and @high describe (print it as
 *   "MEAN [LOW, HIGH]", not with @half_width)
 * @identical: every sample (at least two) was the same: @mean is that
 *   value, @sd 0, and there is no interval (@low, @high and @half_width
 *   NAN): see the top of sim-stats.h
 *
 * A mean with its confidence interval.  Any non-finite sample makes every
 * field but @n NAN (and @symmetric %TRUE).
 */
typedef struct {
  guint    n;
  double   mean;
  double   sd;
  double   half_width;
  double   low;
  double   high;
  gboolean symmetric;
  gboolean identical;
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
 * The mean of @samples and its confidence interval: a percentile
 * bootstrap (expanded) if every sample is non-negative (then @low >= 0),
 * Student's t otherwise (see the top of sim-stats.h).  Deterministic: it depends on
 * the samples, in order, and @level only.
 *
 * Time complexity: O(n) for t; O(B n + B log B), B = 10,000, for the
 * bootstrap.
 *
 * Returns: %TRUE if the interval is defined (@n >= 2, every sample
 *   finite, and not all the same: @identical).
 */
gboolean sim_compare_interval (const double *samples, guint n, double level,
                               SimCompareInterval *interval);

/**
 * sim_compare_t_interval:
 * @samples: (array length=n): the samples
 * @n: their number, at least 1
 * @level: the confidence level, between 0 and 1 exclusive
 * @interval: (out caller-allocates): the result
 *
 * The mean of @samples and its Student t confidence interval, whatever
 * their signs (sim_compare_interval() takes it for signed samples).
 *
 * Time complexity: O(n).
 *
 * Returns: %TRUE if the interval is defined.
 */
gboolean sim_compare_t_interval (const double *samples, guint n, double level,
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
 * The mean difference of paired samples and its paired t interval
 * (symmetric, whatever the signs of the differences).
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

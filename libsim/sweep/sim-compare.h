/* sim-compare.h: comparing policies over several seeds.
 *
 * A #SimComparison is the study behind `gpusim compare`: a scenario run
 * once per entry (a policy, or a variant of the scenario) and seed, and per
 * metric each entry's mean with its confidence interval and each entry's
 * paired difference from the first (the baseline).
 *
 * It is built from the three parts of sim-plan.h: it fills a #SimPlan
 * (sim_comparison_add_policy() and the rest are the plan's), runs it as
 * the one-axis case of a sweep (sim_sweep_new_for_plan(), sim_sweep_run():
 * the entries are the points) on a #SimThreadExecutor, optionally kept
 * in and resumed from a sweep database (sim_comparison_set_db()), or takes results computed
 * elsewhere (sim_comparison_set_results()), and renders statistics
 * (sim-stats.h) from the results alone.  Every render is the same bytes for
 * any number of threads and for results read back from files, because
 * results are kept by run index and the statistics read nothing else.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib-object.h>
#include "study/sim-plan.h"
#include "study/sim-stats.h"

G_BEGIN_DECLS

#define SIM_TYPE_COMPARISON (sim_comparison_get_type ())
G_DECLARE_FINAL_TYPE (SimComparison, sim_comparison, SIM, COMPARISON, GObject)

/**
 * SimCompareProgressFunc:
 * @done: runs finished so far
 * @total: runs in all
 * @user_data: as given
 *
 * Called in the thread that called sim_comparison_run(), once per run.
 */
typedef void (*SimCompareProgressFunc) (guint done, guint total, gpointer user_data);

/**
 * sim_comparison_new:
 * @scenario_path: a scenario file
 * @overrides: (nullable) (array zero-terminated=1): "group.key=value"
 *   strings applied to every run, as `--set` does
 * @error: return location for a #GError
 *
 * Loads the scenario (to check it and to learn its seed and queue order).
 * The comparison starts with no policy, the default metrics, five seeds
 * from the scenario's own, one thread per processor and 95 % intervals.
 *
 * Errors: any error of sim_scenario_load().
 *
 * Returns: (transfer full) (nullable): a new comparison.
 */
SimComparison *sim_comparison_new (const char *scenario_path, const char * const *overrides,
                                   GError **error);

/**
 * sim_comparison_add_policy:
 * @self: a comparison that has not run
 * @spec: "QUEUE/PLACEMENT" (e.g. "fifo/best-fit"), a placement alone
 *   (the scenario's queue order), or the path of a plugin: a name that
 *   contains '/' and ends in ".so"
 * @error: return location for a #GError
 *
 * Adds a policy.  The first one added is the baseline the others are
 * compared with.  The policy is created once here, to check it.
 *
 * Errors: SIM_ERROR_NOT_FOUND for an unknown queue order or placement,
 * with a suggestion and the known names; any error of
 * sim_policy_load_plugin().
 *
 * Returns: %TRUE on success.
 */
gboolean sim_comparison_add_policy (SimComparison *self, const char *spec, GError **error);

/**
 * sim_comparison_add_variant:
 * @self: a comparison that has not run
 * @name: the variant's name in the results
 * @overrides: (array zero-terminated=1): "section.key=value" strings
 *   applied on top of the scenario (e.g. "fabric.oversubscription=2")
 * @error: return location for a #GError
 *
 * Adds a variant of the scenario, compared like a policy: the same seeds,
 * paired differences against the first entry.  The variant keeps the
 * scenario's policy unless its overrides change it.  The scenario is built
 * once here to check the overrides.
 *
 * Errors: any error of sim_scenario_load() or sim_simulation_new(),
 * prefixed with the variant's name.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_comparison_add_variant (SimComparison *self, const char *name,
                                     const char * const *overrides, GError **error);

/**
 * sim_comparison_add_metric:
 * @self: a comparison that has not run
 * @metric: a metric of the run report, e.g. "wait_p95"
 *
 * Adds a metric; the first call replaces the default list (wait_mean,
 * wait_p95, jct_mean, bounded_slowdown_mean, gpu_utilization, gpu_activity,
 * queue_length_mean, fragmented_gpus_mean, makespan).  Names are checked
 * against the first report: see sim_comparison_run().
 */
void sim_comparison_add_metric (SimComparison *self, const char *metric);

/**
 * sim_comparison_set_seeds:
 * @self: a comparison that has not run
 * @first: the first seed
 * @n_seeds: how many, at least 1: @first, @first + 1, ...
 */
void sim_comparison_set_seeds (SimComparison *self, guint64 first, guint n_seeds);

/**
 * sim_comparison_set_force:
 * @self: a comparison
 * @force: run simulations past the size limits (sim_simulation_set_force())
 */
void sim_comparison_set_force (SimComparison *self, gboolean force);

/**
 * sim_comparison_set_threads:
 * @self: a comparison
 * @n_threads: runs at once; 0 for one per processor
 */
void sim_comparison_set_threads (SimComparison *self, guint n_threads);

/**
 * sim_comparison_set_db:
 * @self: a comparison that has not run
 * @db_path: (nullable): a sweep database (sim-sweep-db.h), or %NULL
 *
 * Keeps every run's report in @db_path as it finishes, and takes runs
 * found there (same policy or variant, seed and scenario hash) instead of
 * running them again: a comparison is the one-axis sweep of its entries
 * (sim_sweep_new_for_plan()).
 */
void sim_comparison_set_db (SimComparison *self, const char *db_path);

/**
 * sim_comparison_set_level:
 * @self: a comparison
 * @level: the confidence level, between 0 and 1 exclusive (default 0.95)
 */
void sim_comparison_set_level (SimComparison *self, double level);

/**
 * sim_comparison_set_progress_func:
 * @self: a comparison
 * @func: (nullable) (scope notified): called after each run
 * @user_data: passed to @func
 * @destroy: frees @user_data
 */
void sim_comparison_set_progress_func (SimComparison *self, SimCompareProgressFunc func,
                                       gpointer user_data, GDestroyNotify destroy);

/**
 * sim_comparison_run:
 * @self: a comparison with at least one policy, not run yet
 * @error: return location for a #GError
 *
 * Runs the scenario for every policy and seed: overrides, then
 * "scenario.seed=SEED", then the policy's "policy.queue" and
 * "policy.placement" (a plugin's policy is set on the simulation); see
 * sim_plan_dup_run_overrides().  Runs go on a #SimThreadExecutor; once one
 * fails, runs not yet started are skipped.
 *
 * Errors: the error of the first failed run in (policy, seed) order,
 * prefixed with the policy and seed; SIM_ERROR_NOT_FOUND for a metric that
 * the report does not have, with a suggestion and the known names.
 *
 * Time complexity: policies x seeds runs, divided among the threads.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_comparison_run (SimComparison *self, GError **error);

/**
 * sim_comparison_new_for_plan:
 * @plan: a plan, for instance read back with sim_plan_load()
 *
 * A comparison of the entries of @plan, not run yet.  Policies, variants,
 * metrics and seeds may still be added (they go to @plan) until results
 * exist for @plan (sim_plan_results_new() seals it).
 *
 * Returns: (transfer full): a new comparison.
 */
SimComparison *sim_comparison_new_for_plan (SimPlan *plan);

/**
 * sim_comparison_get_plan:
 * @self: a comparison
 *
 * Returns: (transfer none): the plan of runs: write it out with
 *   sim_plan_write() to run it elsewhere.
 */
SimPlan *sim_comparison_get_plan (SimComparison *self);

/**
 * sim_comparison_set_results:
 * @self: a comparison that has not run
 * @results: results of @self's plan, or of an equal one (sim_plan_equal()),
 *   gathered from any executor or read back with sim_plan_results_load()
 * @error: return location for a #GError
 *
 * Takes @results instead of running: the comparison is then as if
 * sim_comparison_run() had made them.
 *
 * Errors: SIM_ERROR_INVALID if the plans differ; those of
 * sim_plan_results_check() (a failed run's, or runs without a result).
 *
 * Returns: %TRUE on success.
 */
gboolean sim_comparison_set_results (SimComparison *self, SimPlanResults *results,
                                     GError **error);

/**
 * sim_comparison_get_results:
 * @self: a comparison
 *
 * Returns: (transfer none) (nullable): the results once the comparison has
 *   run (or was given them), %NULL before or if a run failed.
 */
SimPlanResults *sim_comparison_get_results (SimComparison *self);

/**
 * sim_comparison_get_scenario_name:
 * @self: a comparison
 *
 * Returns: (transfer none): the scenario's name.
 */
const char *sim_comparison_get_scenario_name (SimComparison *self);

/**
 * sim_comparison_get_level:
 * @self: a comparison
 *
 * Returns: the confidence level.
 */
double sim_comparison_get_level (SimComparison *self);

/**
 * sim_comparison_get_n_policies:
 * @self: a comparison
 *
 * Returns: the number of policies.
 */
guint sim_comparison_get_n_policies (SimComparison *self);

/**
 * sim_comparison_get_policy_name:
 * @self: a comparison
 * @policy: a policy index (0 is the baseline)
 *
 * Returns: (transfer none): the policy's name, e.g. "fifo/best-fit".
 */
const char *sim_comparison_get_policy_name (SimComparison *self, guint policy);

/**
 * sim_comparison_get_n_seeds:
 * @self: a comparison
 *
 * Returns: the number of seeds.
 */
guint sim_comparison_get_n_seeds (SimComparison *self);

/**
 * sim_comparison_get_seed:
 * @self: a comparison
 * @index: a seed index
 *
 * Returns: the seed of run @index.
 */
guint64 sim_comparison_get_seed (SimComparison *self, guint index);

/**
 * sim_comparison_get_n_metrics:
 * @self: a comparison
 *
 * Returns: the number of metrics.
 */
guint sim_comparison_get_n_metrics (SimComparison *self);

/**
 * sim_comparison_get_metric:
 * @self: a comparison
 * @metric: a metric index
 *
 * Returns: (transfer none): its name.
 */
const char *sim_comparison_get_metric (SimComparison *self, guint metric);

/**
 * sim_comparison_get_unit:
 * @self: a comparison that has run
 * @metric: a metric index
 *
 * Returns: (transfer none) (nullable): its unit, as the report gives it.
 */
const char *sim_comparison_get_unit (SimComparison *self, guint metric);

/**
 * sim_comparison_get_value:
 * @self: a comparison that has run
 * @policy: a policy index
 * @metric: a metric index
 * @seed: a seed index
 *
 * Returns: the metric's value in that run (NAN before the run).
 */
double sim_comparison_get_value (SimComparison *self, guint policy, guint metric, guint seed);

/**
 * sim_comparison_get_interval:
 * @self: a comparison that has run
 * @policy: a policy index
 * @metric: a metric index
 * @interval: (out caller-allocates): the mean over seeds and its interval
 *
 * Returns: %TRUE if the interval is defined.
 */
gboolean sim_comparison_get_interval (SimComparison *self, guint policy, guint metric,
                                      SimCompareInterval *interval);

/**
 * sim_comparison_get_difference:
 * @self: a comparison that has run
 * @policy: a policy index other than 0
 * @metric: a metric index
 * @interval: (out caller-allocates): the paired difference policy - baseline
 *
 * Returns: %TRUE if the interval is defined.
 */
gboolean sim_comparison_get_difference (SimComparison *self, guint policy, guint metric,
                                        SimCompareInterval *interval);

/**
 * sim_comparison_format_table:
 * @self: a comparison that has run
 *
 * Returns: (transfer full): a table for people: per metric, each policy's
 *   mean and interval ("MEAN [LOW, HIGH]" for a bootstrap interval,
 *   "MEAN ± HALF" for a t interval: see sim-stats.h), and each policy's
 *   difference from the baseline (always "MEAN ± HALF").
 */
char *sim_comparison_format_table (SimComparison *self);

/**
 * sim_comparison_to_json:
 * @self: a comparison that has run
 * @pretty: indent the output
 *
 * Every number with its unit: per metric and policy, the value of each
 * run, the mean, standard deviation and interval (ci_low, ci_high, and
 * half_width: the larger of mean - ci_low and ci_high - mean, which is
 * half the width only for a symmetric, t interval), and (after the first
 * policy) the paired difference.  Non-finite numbers are null.
 *
 * Returns: (transfer full): a JSON object.
 */
char *sim_comparison_to_json (SimComparison *self, gboolean pretty);

/**
 * sim_comparison_to_csv:
 * @self: a comparison that has run
 *
 * The same in long format, one number per row:
 * `metric,unit,policy,statistic,seed,value`, where statistic is "value"
 * (one run; seed given) or mean, sd, ci_low, ci_high, diff_mean, diff_sd,
 * diff_ci_low, diff_ci_high (seed empty).
 *
 * Returns: (transfer full): the CSV text.
 */
char *sim_comparison_to_csv (SimComparison *self);

/**
 * sim_comparison_write_csv:
 * @self: a comparison that has run
 * @path: the file to write, whole or not at all
 * @error: return location for a #GError
 *
 * Errors: SIM_ERROR_IO naming @path.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_comparison_write_csv (SimComparison *self, const char *path, GError **error);

G_END_DECLS

/* sim-plan.h: a study as a plan of runs, and the results fed back.
 *
 * A comparison of policies, or a sweep of a scenario's keys, is a list of
 * independent runs.  A #SimPlan is that list, made explicit: one scenario
 * file, overrides applied to every run, entries (a policy or a variant of
 * the scenario, each with a label), seeds, and the metrics to gather.
 * Run R is entry R / n_seeds on seed R % n_seeds, so runs are numbered in
 * (entry, seed) order, and each run is fully described by the scenario
 * path, its list of "section.key=value" overrides (the plan's, then
 * "scenario.seed=SEED", then the entry's) and, for a plugin policy, the
 * plugin to set on the simulation.
 *
 * Three parts, each unaware of the next:
 *  - the plan (this file) says what to run and can be written out as JSON
 *    and read back: equal plans give the same bytes;
 *  - an executor (sim-executor.h) runs some or all of a plan's runs and
 *    feeds back one #SimPlanResults: per run, the report's metrics or the
 *    error that stopped it.  The thread pool is one executor; one that hands
 *    runs to MPI ranks or to a Slurm array only has to call
 *    sim_plan_execute_run() for each of its runs and merge the results
 *    (sim_plan_results_merge()), or write them out and gather them later;
 *  - statistics (sim-stats.h) and the comparison's renders (sim-compare.h)
 *    take results only, wherever they were computed.
 *
 * Why the plan keeps entries and seeds rather than only a flat list of
 * runs: the statistics pair runs by seed and group them by entry, and the
 * renders name both.  The flat list is written out too (the "runs" member),
 * so a script can read what each run is without knowing the rule, and it is
 * checked when the plan is read back: a plan whose scenario has changed
 * since it was written (another queue order for a placement given alone) is
 * refused rather than silently run differently.
 *
 * Determinism: a run depends only on the plan and its index, never on which
 * executor ran it, in which order or on how many threads; results are kept
 * by run index and numbers are written with 17 significant digits, so
 * results read back from a file are the same doubles, bit for bit.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib-object.h>
#include "report/sim-report.h"
#include "kernel/sim-simulation.h"

G_BEGIN_DECLS

/**
 * SimPlanEntryKind:
 * @SIM_PLAN_ENTRY_POLICY: a policy: built-in "QUEUE/PLACEMENT" or a plugin
 * @SIM_PLAN_ENTRY_VARIANT: a variant: overrides on top of the scenario
 *
 * What an entry of a plan changes from one entry to the next.
 */
typedef enum {
  SIM_PLAN_ENTRY_POLICY,
  SIM_PLAN_ENTRY_VARIANT,
} SimPlanEntryKind;

#define SIM_TYPE_PLAN (sim_plan_get_type ())
G_DECLARE_FINAL_TYPE (SimPlan, sim_plan, SIM, PLAN, GObject)

/**
 * SIM_PLAN_FORMAT_VERSION:
 *
 * The version of the JSON form of plans and results ("gpusim_plan" and
 * "gpusim_results" members).  A reader refuses any other.
 */
#define SIM_PLAN_FORMAT_VERSION 1

/**
 * sim_plan_new:
 * @scenario_path: a scenario file
 * @overrides: (nullable) (array zero-terminated=1): "section.key=value"
 *   strings applied to every run, as `--set` does
 * @error: return location for a #GError
 *
 * Loads the scenario (to check it and to learn its name, seed and queue
 * order).  The plan starts with no entry, the default metrics and five
 * seeds from the scenario's own.
 *
 * Errors: any error of sim_scenario_load().
 *
 * Returns: (transfer full) (nullable): a new plan.
 */
SimPlan *sim_plan_new (const char *scenario_path, const char * const *overrides,
                       GError **error);

/**
 * sim_plan_add_policy:
 * @self: a plan without results
 * @spec: "QUEUE/PLACEMENT" (e.g. "fifo/best-fit"), a placement alone
 *   (the scenario's queue order), or the path of a plugin: a name that
 *   contains '/' and ends in ".so"
 * @error: return location for a #GError
 *
 * Adds an entry that runs the scenario with a policy; its label is the
 * policy's own name ("fifo/best-fit" for "best-fit" on a FIFO scenario).
 * The policy is created once here, to check it.
 *
 * Errors: SIM_ERROR_NOT_FOUND for an unknown queue order or placement,
 * with a suggestion and the known names; any error of
 * sim_policy_load_plugin().
 *
 * Returns: %TRUE on success.
 */
gboolean sim_plan_add_policy (SimPlan *self, const char *spec, GError **error);

/**
 * sim_plan_add_variant:
 * @self: a plan without results
 * @name: the variant's label
 * @overrides: (array zero-terminated=1): "section.key=value" strings
 *   applied after the plan's and the seed
 * @error: return location for a #GError
 *
 * Adds an entry that runs a variant of the scenario, with the scenario's
 * policy unless its overrides change it.  The scenario is built once here
 * to check the overrides.
 *
 * Errors: any error of sim_scenario_load() or sim_simulation_new(),
 * prefixed with the variant's name.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_plan_add_variant (SimPlan *self, const char *name, const char * const *overrides,
                               GError **error);

/**
 * sim_plan_add_metric:
 * @self: a plan without results
 * @metric: a metric of the run report, e.g. "wait_p95"
 *
 * Adds a metric to gather; the first call replaces the default list
 * (wait_mean, wait_p95, jct_mean, bounded_slowdown_mean, gpu_utilization,
 * gpu_activity, queue_length_mean, fragmented_gpus_mean, makespan).
 * Names are checked against each run's report: an unknown one fails the
 * run (see sim_plan_execute_run()).
 */
void sim_plan_add_metric (SimPlan *self, const char *metric);

/**
 * sim_plan_set_seeds:
 * @self: a plan without results
 * @first: the first seed
 * @n_seeds: how many, at least 1: @first, @first + 1, ...
 */
void sim_plan_set_seeds (SimPlan *self, guint64 first, guint n_seeds);

/**
 * sim_plan_set_force:
 * @self: a plan without results
 * @force: run simulations past the size limits (sim_simulation_set_force())
 */
void sim_plan_set_force (SimPlan *self, gboolean force);

/**
 * SimPlanReportFunc:
 * @plan: the plan
 * @run: the run index that is done
 * @report: (transfer none): its report, with every metric
 * @user_data: as given
 *
 * Called by sim_plan_execute_run() in the thread that ran the run, once
 * its outcome is recorded, for a consumer that wants more of the report
 * than the plan's metrics (a sweep's database keeps every metric).  Runs on
 * different threads call it at the same time: it must lock what it shares.
 */
typedef void (*SimPlanReportFunc) (SimPlan *plan, guint run, SimReport *report,
                                   gpointer user_data);

/**
 * sim_plan_set_report_func:
 * @self: a plan
 * @func: (nullable) (scope notified): called after each run done
 * @user_data: passed to @func
 * @destroy: frees @user_data
 *
 * Sets the function called with each done run's report.
 */
void sim_plan_set_report_func (SimPlan *self, SimPlanReportFunc func, gpointer user_data,
                               GDestroyNotify destroy);

/**
 * SIM_PLAN_MAX_RUNS:
 *
 * The most runs (entries times seeds) a plan holds unless it is forced
 * (sim_plan_set_force()): 100,000.  Its results alone take about
 * 32 + 24 bytes per metric for each run, and each run simulates the whole
 * scenario, so a plan past this limit is far more likely a slip of the
 * keyboard (`--seeds 100000000`, 14 GB) than a study.
 */
#define SIM_PLAN_MAX_RUNS 100000

/**
 * sim_plan_check:
 * @self: a plan
 * @error: return location for a #GError
 *
 * Checks that the plan can run: at least one entry and one metric, a
 * number of runs and a last seed that fit, and no more than
 * %SIM_PLAN_MAX_RUNS runs unless the plan is forced.
 *
 * Errors: SIM_ERROR_MISSING ("no policy to compare", "no metric to
 * compare"); SIM_ERROR_INVALID for too many runs, with the memory their
 * results would take.
 *
 * Returns: %TRUE if the plan can run.
 */
gboolean sim_plan_check (SimPlan *self, GError **error);

/**
 * sim_plan_get_scenario_path:
 * @self: a plan
 *
 * Returns: (transfer none): the scenario file, as given.
 */
const char *sim_plan_get_scenario_path (SimPlan *self);

/**
 * sim_plan_get_scenario_name:
 * @self: a plan
 *
 * Returns: (transfer none): the scenario's name (its path if it has none).
 */
const char *sim_plan_get_scenario_name (SimPlan *self);

/**
 * sim_plan_get_overrides:
 * @self: a plan
 *
 * Returns: (transfer none) (array zero-terminated=1) (nullable): the
 *   overrides applied to every run.
 */
const char * const *sim_plan_get_overrides (SimPlan *self);

/**
 * sim_plan_get_force:
 * @self: a plan
 *
 * Returns: whether runs go past the size limits.
 */
gboolean sim_plan_get_force (SimPlan *self);

/**
 * sim_plan_get_n_entries:
 * @self: a plan
 *
 * Returns: the number of entries (policies and variants).
 */
guint sim_plan_get_n_entries (SimPlan *self);

/**
 * sim_plan_get_entry_kind:
 * @self: a plan
 * @entry: an entry index
 *
 * Returns: whether the entry is a policy or a variant.
 */
SimPlanEntryKind sim_plan_get_entry_kind (SimPlan *self, guint entry);

/**
 * sim_plan_get_entry_label:
 * @self: a plan
 * @entry: an entry index
 *
 * Returns: (transfer none): its label in results: the policy's name or
 *   the variant's.
 */
const char *sim_plan_get_entry_label (SimPlan *self, guint entry);

/**
 * sim_plan_get_entry_spec:
 * @self: a plan
 * @entry: an entry index
 *
 * Returns: (transfer none): the policy as given to sim_plan_add_policy(),
 *   or the variant's name.
 */
const char *sim_plan_get_entry_spec (SimPlan *self, guint entry);

/**
 * sim_plan_get_n_seeds:
 * @self: a plan
 *
 * Returns: the number of seeds.
 */
guint sim_plan_get_n_seeds (SimPlan *self);

/**
 * sim_plan_get_seed:
 * @self: a plan
 * @index: a seed index
 *
 * Returns: the seed of that index.
 */
guint64 sim_plan_get_seed (SimPlan *self, guint index);

/**
 * sim_plan_get_n_metrics:
 * @self: a plan
 *
 * Returns: the number of metrics.
 */
guint sim_plan_get_n_metrics (SimPlan *self);

/**
 * sim_plan_get_metric:
 * @self: a plan
 * @metric: a metric index
 *
 * Returns: (transfer none): its name.
 */
const char *sim_plan_get_metric (SimPlan *self, guint metric);

/**
 * sim_plan_get_n_runs:
 * @self: a plan
 *
 * Returns: entries x seeds.
 */
guint sim_plan_get_n_runs (SimPlan *self);

/**
 * sim_plan_get_run_entry:
 * @self: a plan
 * @run: a run index
 *
 * Returns: the run's entry: @run / n_seeds.
 */
guint sim_plan_get_run_entry (SimPlan *self, guint run);

/**
 * sim_plan_get_run_seed:
 * @self: a plan
 * @run: a run index
 *
 * Returns: the run's seed: the seed of index @run % n_seeds.
 */
guint64 sim_plan_get_run_seed (SimPlan *self, guint run);

/**
 * sim_plan_dup_run_overrides:
 * @self: a plan
 * @run: a run index
 *
 * The overrides that make run @run from the scenario file, in order: the
 * plan's, "scenario.seed=SEED", then a variant's overrides or a built-in
 * policy's "policy.queue=..." and "policy.placement=...".  Loading the
 * scenario with them and running it gives the run's report, except for a
 * plugin policy, which sim_plan_build_run() sets on the simulation.
 *
 * Returns: (transfer full) (array zero-terminated=1): the overrides.
 */
char **sim_plan_dup_run_overrides (SimPlan *self, guint run);

/**
 * sim_plan_build_run:
 * @self: a plan
 * @run: a run index
 * @error: return location for a #GError
 *
 * Builds the simulation of run @run, ready to run: the scenario loaded with
 * sim_plan_dup_run_overrides(), the entry's policy (a plugin, or a built-in
 * when the scenario's [policy] section made another kind of policy, which
 * overrides do not reach) and the plan's force flag.
 *
 * Errors: any error of sim_scenario_load(), sim_simulation_new(),
 * sim_policy_load_plugin() or sim_simulation_set_policy().
 *
 * Returns: (transfer full) (nullable): the simulation.
 */
SimSimulation *sim_plan_build_run (SimPlan *self, guint run, GError **error);

/**
 * sim_plan_equal:
 * @a: a plan
 * @b: another
 *
 * Returns: %TRUE if both describe the same runs and metrics: the same
 *   scenario path and overrides, entries (kind, spec, label, overrides),
 *   seeds, metrics and force flag.
 */
gboolean sim_plan_equal (SimPlan *a, SimPlan *b);

/**
 * sim_plan_to_json:
 * @self: a plan
 *
 * The plan as a JSON object (indented): "gpusim_plan" (the format
 * version), "scenario" (the path as given), "scenario_name", "overrides",
 * "seeds" ({"first", "count"}), "metrics", "force", "entries" (each
 * {"label", "policy": SPEC} or {"label", "variant": [OVERRIDES]}) and
 * "runs", one object per run: {"run", "entry", "label", "seed",
 * "overrides"} and, for a plugin, "plugin".  Seeds above 2^63 - 1 are
 * written as the negative integer with the same 64 bits.
 *
 * Returns: (transfer full): the JSON text.
 */
char *sim_plan_to_json (SimPlan *self);

/**
 * sim_plan_new_from_json:
 * @text: a plan as sim_plan_to_json() writes it
 * @origin: (nullable): where @text comes from, for messages (a file name)
 * @error: return location for a #GError
 *
 * Reads a plan back: the scenario is loaded again from its path (relative
 * to the working directory), each entry added again (and so checked), and
 * the "runs" member compared with the runs the plan makes.
 *
 * Errors: SIM_ERROR_PARSE for text that is not a plan (naming @origin, the
 * JSON line or the member and what was expected); SIM_ERROR_INVALID for an
 * unknown format version or runs that differ from the plan's own (a
 * scenario changed since the plan was written); any error of
 * sim_plan_new(), sim_plan_add_policy() or sim_plan_add_variant().
 *
 * Returns: (transfer full) (nullable): the plan.
 */
SimPlan *sim_plan_new_from_json (const char *text, const char *origin, GError **error);

/**
 * sim_plan_write:
 * @self: a plan
 * @path: the file to write, whole or not at all
 * @error: return location for a #GError
 *
 * Writes sim_plan_to_json() and a newline.
 *
 * Errors: SIM_ERROR_IO naming @path.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_plan_write (SimPlan *self, const char *path, GError **error);

/**
 * sim_plan_load:
 * @path: a plan file
 * @error: return location for a #GError
 *
 * Reads the file and calls sim_plan_new_from_json().
 *
 * Errors: SIM_ERROR_IO naming @path; those of sim_plan_new_from_json().
 *
 * Returns: (transfer full) (nullable): the plan.
 */
SimPlan *sim_plan_load (const char *path, GError **error);

/* ------------------------------------------------------------------------- */

/**
 * SimPlanRunState:
 * @SIM_PLAN_RUN_PENDING: no result yet (not run, or skipped)
 * @SIM_PLAN_RUN_DONE: ran; its metrics are known
 * @SIM_PLAN_RUN_FAILED: ran and failed; its error is known
 *
 * Where a run of a plan stands in a #SimPlanResults.
 */
typedef enum {
  SIM_PLAN_RUN_PENDING,
  SIM_PLAN_RUN_DONE,
  SIM_PLAN_RUN_FAILED,
} SimPlanRunState;

#define SIM_TYPE_PLAN_RESULTS (sim_plan_results_get_type ())
G_DECLARE_FINAL_TYPE (SimPlanResults, sim_plan_results, SIM, PLAN_RESULTS, GObject)

/**
 * sim_plan_results_new:
 * @plan: a plan; it takes no more entries, metrics or seeds from now on
 *
 * Returns: (transfer full): results with every run of @plan pending.
 */
SimPlanResults *sim_plan_results_new (SimPlan *plan);

/**
 * sim_plan_results_get_plan:
 * @self: results
 *
 * Returns: (transfer none): their plan.
 */
SimPlan *sim_plan_results_get_plan (SimPlanResults *self);

/**
 * sim_plan_execute_run:
 * @plan: a plan
 * @run: a run index
 * @results: results of @plan, where the outcome goes
 *
 * Runs run @run (sim_plan_build_run(), then sim_simulation_run()) and
 * records its metrics, or its error, in @results: the one step every
 * executor takes per run.  Distinct runs may execute at the same time in
 * different threads on the same @results; each writes only its own slot.
 *
 * A failed build or run is recorded prefixed with "policy LABEL, seed
 * SEED: " ("variant LABEL, ..." for a variant, a sweep's point); a
 * metric the report does not have, as SIM_ERROR_NOT_FOUND with
 * a suggestion and the known names.
 *
 * Time complexity: one simulation.
 *
 * Returns: %TRUE if the run is done, %FALSE if it failed.
 */
gboolean sim_plan_execute_run (SimPlan *plan, guint run, SimPlanResults *results);

/**
 * sim_plan_results_record_report:
 * @self: results
 * @run: a run index
 * @report: the report of that run
 * @error: return location for a #GError
 *
 * Records the plan's metrics, with their units, from @report as the
 * outcome of run @run: for an executor that runs simulations its own way.
 *
 * Errors: SIM_ERROR_NOT_FOUND for a metric @report does not have, with a
 * suggestion and the known names (the run is then left as it was).
 *
 * Returns: %TRUE on success.
 */
gboolean sim_plan_results_record_report (SimPlanResults *self, guint run, SimReport *report,
                                         GError **error);

/**
 * sim_plan_results_record_values:
 * @self: results
 * @run: a run index
 * @values: (array length=n_values): one value per metric of the plan
 * @n_values: their number
 * @units: (nullable) (array length=n_values): their units, an element
 *   %NULL for none
 * @error: return location for a #GError
 *
 * Records run @run as done with these values: for results read back from
 * a database, or received from another process.
 *
 * Errors: SIM_ERROR_INVALID if @n_values is not the plan's number of
 * metrics (the run is then left as it was).
 *
 * Returns: %TRUE on success.
 */
gboolean sim_plan_results_record_values (SimPlanResults *self, guint run, const double *values,
                                         guint n_values, const char * const *units,
                                         GError **error);

/**
 * sim_plan_results_record_error:
 * @self: results
 * @run: a run index
 * @error: why the run failed
 *
 * Records that run @run failed.
 */
void sim_plan_results_record_error (SimPlanResults *self, guint run, const GError *error);

/**
 * sim_plan_results_get_state:
 * @self: results
 * @run: a run index
 *
 * Returns: whether the run is pending, done or failed.
 */
SimPlanRunState sim_plan_results_get_state (SimPlanResults *self, guint run);

/**
 * sim_plan_results_get_value:
 * @self: results
 * @run: a run index
 * @metric: a metric index of the plan
 *
 * Returns: the metric's value in that run; NAN unless the run is done.
 */
double sim_plan_results_get_value (SimPlanResults *self, guint run, guint metric);

/**
 * sim_plan_results_get_error:
 * @self: results
 * @run: a run index
 *
 * Returns: (transfer none) (nullable): the error of a failed run.
 */
const GError *sim_plan_results_get_error (SimPlanResults *self, guint run);

/**
 * sim_plan_results_get_unit:
 * @self: results
 * @metric: a metric index of the plan
 *
 * Returns: (transfer none) (nullable): the metric's unit, as the report of
 *   the lowest-numbered done run gives it; %NULL if no run is done or the
 *   metric has no unit.
 */
const char *sim_plan_results_get_unit (SimPlanResults *self, guint metric);

/**
 * sim_plan_results_get_n_done:
 * @self: results
 *
 * Returns: the number of runs done.
 */
guint sim_plan_results_get_n_done (SimPlanResults *self);

/**
 * sim_plan_results_dup_samples:
 * @self: results
 * @entry: an entry index of the plan
 * @metric: a metric index of the plan
 * @n_samples: (out): the number of seeds
 *
 * The values of @metric for @entry, one per seed in seed order (NAN for a
 * run not done): what the statistics of sim-stats.h take.
 *
 * Returns: (transfer full) (array length=n_samples): the samples.
 */
double *sim_plan_results_dup_samples (SimPlanResults *self, guint entry, guint metric,
                                      guint *n_samples);

/**
 * sim_plan_results_check:
 * @self: results
 * @error: return location for a #GError
 *
 * Checks that every run is done.
 *
 * Errors: the error of the lowest-numbered failed run, if any;
 * SIM_ERROR_MISSING otherwise if some run is pending, naming how many
 * and the first.
 *
 * Returns: %TRUE if every run is done.
 */
gboolean sim_plan_results_check (SimPlanResults *self, GError **error);

/**
 * sim_plan_results_merge:
 * @self: results
 * @other: results of an equal plan (sim_plan_equal())
 * @error: return location for a #GError
 *
 * Copies into @self every run that @other has done or failed, to gather
 * results computed in pieces (one per Slurm array task, say).
 *
 * Errors: SIM_ERROR_INVALID if the plans differ, or if a run has an
 * outcome in both that is not the same (other values, or done in one and
 * failed in the other); @self is then unchanged.
 *
 * Time complexity: O(runs x metrics).
 *
 * Returns: %TRUE on success.
 */
gboolean sim_plan_results_merge (SimPlanResults *self, SimPlanResults *other, GError **error);

/**
 * sim_plan_results_to_json:
 * @self: results
 *
 * The results as a JSON object (indented): "gpusim_results" (the format
 * version), "plan" (as sim_plan_to_json()), "units" (one per metric,
 * null for none) and "runs": one object per run done ({"run", "values"},
 * a non-finite value as null) or failed ({"run", "error": {"domain",
 * "code", "message"}}); pending runs are left out.
 *
 * Returns: (transfer full): the JSON text.
 */
char *sim_plan_results_to_json (SimPlanResults *self);

/**
 * sim_plan_results_new_from_json:
 * @text: results as sim_plan_results_to_json() writes them
 * @origin: (nullable): where @text comes from, for messages
 * @error: return location for a #GError
 *
 * Reads results back, with their plan (sim_plan_new_from_json()).
 *
 * Errors: as sim_plan_new_from_json(); SIM_ERROR_PARSE for a run that is
 * not well-formed (a run index out of range, given twice, or values that
 * are not one number per metric).
 *
 * Returns: (transfer full) (nullable): the results.
 */
SimPlanResults *sim_plan_results_new_from_json (const char *text, const char *origin,
                                                GError **error);

/**
 * sim_plan_results_write:
 * @self: results
 * @path: the file to write, whole or not at all
 * @error: return location for a #GError
 *
 * Errors: SIM_ERROR_IO naming @path.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_plan_results_write (SimPlanResults *self, const char *path, GError **error);

/**
 * sim_plan_results_load:
 * @path: a results file
 * @error: return location for a #GError
 *
 * Errors: SIM_ERROR_IO naming @path; those of
 * sim_plan_results_new_from_json().
 *
 * Returns: (transfer full) (nullable): the results.
 */
SimPlanResults *sim_plan_results_load (const char *path, GError **error);

G_END_DECLS

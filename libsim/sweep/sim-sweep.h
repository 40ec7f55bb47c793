/* sim-sweep.h: what-if sweeps over a scenario's keys.
 *
 * A sweep file is a scenario with a [sweep] section that lists, per key,
 * the values to try:
 *
 *   [sweep]
 *   pool h100.count = 8, 12, 16
 *   workload.rate = 2/h..6/h step 2/h
 *   class small.share = 0.5, 0.6, 0.7
 *   zip = workload.rate, class small.share
 *   policy.placement = first-fit, best-fit
 *   seeds = 5
 *   first_seed = 1
 *   metrics = wait_p95, gpu_utilization
 *   level = 0.95
 *
 * Values are a list separated by commas, or a range START..STOP [step
 * STEP] of numbers, each end with the same unit if any (2/h, 4/h, 6/h
 * here).  `zip` names keys that vary together; `seeds` is per point
 * (default 1) from `first_seed` (default: the scenario's seed); `metrics`
 * are the summary's (default: compare's); `level` that of the intervals.
 * Comments go on lines of their own, as everywhere in a key file.
 *
 * Keys are "SECTION.KEY" as `gpusim run --set` takes them ("pool h100.count"
 * for [pool h100]).  The points are the grid of the axes, in file order,
 * the last axis varying fastest; keys named together in a `zip` line (one
 * group per line, groups separated by ';') form one axis and must list as
 * many values.  A sweep without axes has one point, the scenario itself.
 *
 * The design: a sweep is a #SimPlan (sim-plan.h) with one variant per
 * point, labelled "KEY=VALUE KEY=VALUE", so the executors (threads here;
 * MPI ranks and Slurm array shards in `gpusim sweep`), the results and the
 * statistics are those of `gpusim compare`, which is the one-axis case: a
 * list of variants or policies.  What the sweep adds is the axes, the
 * database that makes it resumable (sim-sweep-db.h) and per-point
 * summaries.
 *
 * Checking: each value of each axis is checked once, by loading the
 * scenario with it alone (errors name the file, the line of the key in
 * [sweep] and the key), and the first point is built.  Other points are
 * not built until they run: building costs about fifty loads, and a
 * thousand points would build a thousand clusters first.  A value that
 * only a build refuses fails its runs, with the same file, line and key.
 *
 * The scenario hash: SHA-256 of the scenario file's text without its
 * [sweep] section, a NUL, and the run's overrides (sim_plan_dup_run_overrides())
 * one per line.  Rows of a database whose hash differs (the scenario was
 * edited) are not reused; adding values to an axis keeps the other rows.
 * Catalogue files are not hashed.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib-object.h>
#include "study/sim-plan.h"
#include "study/sim-executor.h"
#include "sweep/sim-sweep-db.h"

G_BEGIN_DECLS

#define SIM_TYPE_SWEEP (sim_sweep_get_type ())
G_DECLARE_FINAL_TYPE (SimSweep, sim_sweep, SIM, SWEEP, GObject)

/**
 * sim_sweep_new:
 * @path: a sweep file: a scenario with a [sweep] section
 * @overrides: (nullable) (array zero-terminated=1): "section.key=value"
 *   strings applied to every run, as `--set` does
 * @error: return location for a #GError
 *
 * Reads the sweep, checks every value of every axis and makes its plan.
 *
 * Errors: SIM_ERROR_IO if the file cannot be read; SIM_ERROR_MISSING
 * without a [sweep] section; SIM_ERROR_PARSE or SIM_ERROR_INVALID for a
 * bad key, value list, range, zip group, seed count, metric list or level,
 * naming the file, the line and the key; any error of sim_scenario_load()
 * for a value, or of sim_plan_build_run() for the first point, located at
 * its [sweep] line.
 *
 * Time complexity: one scenario load per axis value and one build,
 * O(points) more.
 *
 * Returns: (transfer full) (nullable): the sweep.
 */
SimSweep *sim_sweep_new (const char *path, const char * const *overrides, GError **error);

/**
 * sim_sweep_new_for_plan:
 * @plan: a plan that sim_plan_check() accepts, e.g. a comparison's
 * @error: return location for a #GError
 *
 * The one-axis sweep of a plan's entries: its key is "policy" (every
 * entry a policy) or "entry", its values the entries' labels.  This is
 * how `gpusim compare` runs (sim_comparison_run()): the same executors,
 * database and resumption as a sweep file.
 *
 * Errors: those of sim_plan_check(); SIM_ERROR_IO if the scenario file
 * cannot be read (for the scenario hash).
 *
 * Returns: (transfer full) (nullable): the sweep, holding a reference to
 *   @plan.
 */
SimSweep *sim_sweep_new_for_plan (SimPlan *plan, GError **error);

/**
 * sim_sweep_get_plan:
 * @self: a sweep
 *
 * Returns: (transfer none): its plan: entry P is point P.
 */
SimPlan *sim_sweep_get_plan (SimSweep *self);

/**
 * sim_sweep_get_n_axes:
 * @self: a sweep
 *
 * Returns: the number of swept keys (a zipped group counts each key).
 */
guint sim_sweep_get_n_axes (SimSweep *self);

/**
 * sim_sweep_get_axis_key:
 * @self: a sweep
 * @axis: a key index, in file order
 *
 * Returns: (transfer none): the key, "SECTION.KEY".
 */
const char *sim_sweep_get_axis_key (SimSweep *self, guint axis);

/**
 * sim_sweep_get_n_points:
 * @self: a sweep
 *
 * Returns: the number of points (the plan's entries).
 */
guint sim_sweep_get_n_points (SimSweep *self);

/**
 * sim_sweep_get_point_value:
 * @self: a sweep
 * @point: a point index
 * @axis: a key index
 *
 * Returns: (transfer none): the value of key @axis at @point.
 */
const char *sim_sweep_get_point_value (SimSweep *self, guint point, guint axis);

/**
 * sim_sweep_get_level:
 * @self: a sweep
 *
 * Returns: the confidence level of the summaries (0.95 unless set).
 */
double sim_sweep_get_level (SimSweep *self);

/**
 * sim_sweep_dup_scenario_hash:
 * @self: a sweep
 * @run: a run index of its plan
 *
 * Returns: (transfer full): the run's scenario hash (see above), 64
 *   hexadecimal digits.
 */
char *sim_sweep_dup_scenario_hash (SimSweep *self, guint run);

/**
 * sim_sweep_dup_shard_runs:
 * @self: a sweep
 * @shard: this shard, below @n_shards
 * @n_shards: the number of shards, at least 1
 * @n_runs: (out): the number of runs returned
 *
 * The runs of shard @shard: every run R with R % @n_shards == @shard, so
 * that shards get points of every part of the grid.
 *
 * Returns: (transfer full) (array length=n_runs): run indices, increasing.
 */
guint *sim_sweep_dup_shard_runs (SimSweep *self, guint shard, guint n_shards, guint *n_runs);

/**
 * sim_sweep_run:
 * @self: a sweep
 * @executor: (nullable): the executor, %NULL for a #SimThreadExecutor on
 *   every processor
 * @runs: (array length=n_runs) (nullable): the runs to execute (e.g.
 *   sim_sweep_dup_shard_runs()), %NULL for all
 * @n_runs: the number of @runs
 * @db_path: (nullable): a SQLite database (sim-sweep-db.h): runs found
 *   there are not run again, and each run done is added to it at once
 * @csv_path: (nullable): a CSV file that gets one line per run done, as it
 *   finishes, and is rewritten in run order at the end
 * @error: return location for a #GError
 *
 * Runs the sweep.  Failed runs are outcomes (see
 * sim_plan_results_check()); the output does not depend on the executor.
 *
 * Errors: those of sim_sweep_db_open(), sim_executor_execute() and of
 * writing the database or the CSV file.
 *
 * Returns: (transfer full) (nullable): the results, with runs resumed from
 *   the database and runs executed now.
 */
SimPlanResults *sim_sweep_run (SimSweep *self, SimExecutor *executor, const guint *runs,
                               guint n_runs, const char *db_path, const char *csv_path,
                               GError **error);

/**
 * sim_sweep_write_runs_csv:
 * @self: a sweep
 * @results: results of its plan
 * @path: the file to write, whole or not at all
 * @error: return location for a #GError
 *
 * Writes one line per run done, in run order: point, label, seed, one
 * column per axis key, scenario_hash, then the plan's metrics.
 *
 * Errors: SIM_ERROR_IO naming @path.
 *
 * Returns: %TRUE on success.
 */
gboolean sim_sweep_write_runs_csv (SimSweep *self, SimPlanResults *results, const char *path,
                                   GError **error);

/**
 * sim_sweep_format_table:
 * @self: a sweep
 * @results: results of its plan
 *
 * The summary as a text table: a line per point, its axis values, then
 * per metric the mean over seeds and, with two seeds or more, its
 * confidence interval: "mean [low, high]" for a metric whose samples are
 * all non-negative (a bootstrap interval, asymmetric: see sim-stats.h),
 * "mean ±hw" for a signed one (Student t).  Points with a run not done
 * show "-".
 *
 * Time complexity: O(runs x metrics).
 *
 * Returns: (transfer full): the table.
 */
char *sim_sweep_format_table (SimSweep *self, SimPlanResults *results);

/**
 * sim_sweep_to_json:
 * @self: a sweep
 * @results: results of its plan
 *
 * The summary as JSON: {"scenario", "axes": [KEYS], "grid": [[KEYS]] (the
 * grid's dimensions in file order, each the keys that vary together: one
 * unless zipped), "metrics": [{"name",
 * "unit"}], "seeds": {"first", "count"}, "level", "points": [{"point",
 * "label", "values": {KEY: VALUE}, "runs_done", "metrics": {NAME: {"mean",
 * "sd", "low", "high", "n"}}}]}; undefined numbers are null.
 *
 * Returns: (transfer full): the JSON text, indented.
 */
char *sim_sweep_to_json (SimSweep *self, SimPlanResults *results);

/**
 * sim_sweep_to_csv:
 * @self: a sweep
 * @results: results of its plan
 *
 * The summary in long format: point, label, one column per axis key,
 * metric, unit, n, mean, sd, low, high.
 *
 * Returns: (transfer full): the CSV text.
 */
char *sim_sweep_to_csv (SimSweep *self, SimPlanResults *results);

/**
 * sim_sweep_db_open:
 * @path: the database file, created if absent
 * @sweep: the sweep whose runs it holds
 * @error: return location for a #GError
 *
 * Opens (or creates) a sweep database and adds the columns of @sweep's
 * axis keys if missing.
 *
 * Errors: SIM_ERROR_IO naming @path if SQLite cannot open or write it, or
 * if it is not a sweep database.
 *
 * Returns: (transfer full) (nullable): the database.
 */
SimSweepDb *sim_sweep_db_open (const char *path, SimSweep *sweep, GError **error);

G_END_DECLS

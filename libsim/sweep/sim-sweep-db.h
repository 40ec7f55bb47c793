/* sim-sweep-db.h: a sweep's results in SQLite, written as runs finish.
 *
 * Table `runs` has one row per point and seed: label (the point's
 * "KEY=VALUE ..."), seed, point, one TEXT column per axis key, the
 * scenario hash (sim_sweep_dup_scenario_hash()) and one REAL column per
 * metric of the run's report (every metric, not only the sweep's; a column
 * is added when a report first brings a new metric).  Table `units` gives
 * each metric's unit, table `sweep` the scenario's path and the format.
 * The key is (label, seed), not the point index, so a sweep grown by a
 * value keeps its rows.
 *
 * Each run is one transaction (BEGIN IMMEDIATE ... COMMIT) in WAL mode:
 * once sim_sweep_db_add_report() returns, the row survives the process
 * being killed (kill -9), and no half row is ever seen.  A database is
 * written by one process at a time (rank 0 under MPI; one file per Slurm
 * array task, gathered with sim_sweep_db_merge()); calls from several
 * threads of that process are serialised by a lock.
 *
 * Rejected: a CSV file alone (no atomic row, no way to find a row without
 * reading all); one file per run (thousands of files on a cluster file
 * system); a long table of (run, metric, value) rows (a query per metric
 * for what is one row of a planner's spreadsheet).
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib-object.h>
#include "report/sim-report.h"
#include "study/sim-plan.h"

G_BEGIN_DECLS

#define SIM_TYPE_SWEEP_DB (sim_sweep_db_get_type ())
G_DECLARE_FINAL_TYPE (SimSweepDb, sim_sweep_db, SIM, SWEEP_DB, GObject)

/* sim_sweep_db_open() is declared in sim-sweep.h, beside the sweep it
 * takes: the database itself knows nothing of sweep files. */

/**
 * sim_sweep_db_resume:
 * @self: a database
 * @results: results of the sweep's plan
 * @error: return location for a #GError
 *
 * Records as done, in @results, every run that has a row with the same
 * label, seed and scenario hash and a value for each of the plan's
 * metrics.
 *
 * Errors: SIM_ERROR_IO if the database cannot be read.
 *
 * Time complexity: O(rows).
 *
 * Returns: the number of runs resumed, or -1 on error.
 */
gint sim_sweep_db_resume (SimSweepDb *self, SimPlanResults *results, GError **error);

/**
 * sim_sweep_db_add_values:
 * @self: a database
 * @run: a run index of the sweep's plan
 * @n_metrics: the number of metrics
 * @names: (array length=n_metrics): their names
 * @values: (array length=n_metrics): their values
 * @units: (array length=n_metrics) (nullable): their units (elements may
 *   be %NULL)
 * @error: return location for a #GError
 *
 * Writes the row of run @run, replacing any row of the same label and
 * seed, in one transaction.
 *
 * Errors: SIM_ERROR_IO naming the database.
 *
 * Returns: %TRUE once the row is committed.
 */
gboolean sim_sweep_db_add_values (SimSweepDb *self, guint run, guint n_metrics,
                                  const char * const *names, const double *values,
                                  const char * const *units, GError **error);

/**
 * sim_sweep_db_add_report:
 * @self: a database
 * @run: a run index of the sweep's plan
 * @report: its report
 * @error: return location for a #GError
 *
 * sim_sweep_db_add_values() with every metric of @report.
 *
 * Returns: %TRUE once the row is committed.
 */
gboolean sim_sweep_db_add_report (SimSweepDb *self, guint run, SimReport *report,
                                  GError **error);

/**
 * sim_sweep_db_merge:
 * @self: a database
 * @other_path: another database of the same sweep (a Slurm array task's)
 * @error: return location for a #GError
 *
 * Copies every row of @other_path into @self, in one transaction.  A row
 * present in both must have the same scenario hash and values.
 *
 * Errors: SIM_ERROR_IO if @other_path cannot be read or is not a sweep
 * database; SIM_ERROR_INVALID, naming the label and seed, for rows that
 * disagree (@self is then unchanged).
 *
 * Returns: the number of rows copied, or -1 on error.
 */
gint sim_sweep_db_merge (SimSweepDb *self, const char *other_path, GError **error);

G_END_DECLS

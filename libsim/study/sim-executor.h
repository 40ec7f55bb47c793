/* sim-executor.h: what runs a plan.
 *
 * An executor takes a #SimPlanResults (which knows its #SimPlan), runs
 * some of the plan's runs, and records each one's outcome in the results
 * with sim_plan_execute_run() (or sim_plan_results_record_report() and
 * sim_plan_results_record_error() for an executor that runs simulations
 * its own way).  A run that fails is an outcome, not an executor error:
 * sim_executor_execute() returns %FALSE only when it could not execute at
 * all.  Statistics never see the executor; they read the results.
 *
 * The contract every executor keeps, so that output does not depend on the
 * executor:
 *  - a run's outcome is that of sim_plan_execute_run(), whatever the
 *    thread, process or machine that ran it;
 *  - once a run fails, the executor may leave runs with a higher index
 *    pending (their results could not be used), but runs with a lower
 *    index still run: the lowest failed run, the error reported by
 *    sim_plan_results_check(), is thus the same whatever the timing;
 *  - progress is reported in the calling thread, once per run finished.
 *
 * #SimThreadExecutor runs on a pool of threads in this process.  Sweeps
 * (sweep/sim-sweep.h) use it too; their other ways of running keep the
 * same contract without subclassing: `mpirun gpusim sweep` deals runs to
 * MPI ranks and records each outcome on rank 0 with
 * sim_plan_results_record_values() (tools/gpusim-mpi.c, so that the
 * library does not link MPI), and a Slurm array task runs its shard
 * (sim_sweep_dup_shard_runs()) on this executor into a database of its
 * own, gathered with sim_sweep_db_merge().  `gpusim compare --plan FILE
 * --runs A-B --results-out FILE` is the same piece for a comparison's
 * plan.
 */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib-object.h>
#include "study/sim-plan.h"

G_BEGIN_DECLS

/**
 * SimExecutorProgressFunc:
 * @done: runs finished so far
 * @total: runs to execute in all
 * @user_data: as given
 *
 * Called in the thread that called sim_executor_execute(), once per run.
 */
typedef void (*SimExecutorProgressFunc) (guint done, guint total, gpointer user_data);

#define SIM_TYPE_EXECUTOR (sim_executor_get_type ())
G_DECLARE_DERIVABLE_TYPE (SimExecutor, sim_executor, SIM, EXECUTOR, GObject)

/**
 * SimExecutorClass:
 * @parent_class: the parent class
 * @execute: runs the runs @runs (indices in increasing order) of the plan
 *   of @results and records each outcome in @results; calls
 *   sim_executor_report_progress() once per run finished.  Returns %FALSE
 *   with @error set only if it could not execute.
 *
 * The class of executors.  The padding keeps room for methods to come.
 */
struct _SimExecutorClass {
  GObjectClass parent_class;

  gboolean (*execute) (SimExecutor *self, SimPlanResults *results, const guint *runs,
                       guint n_runs, GError **error);

  /*< private >*/
  gpointer padding[8];
};

/**
 * sim_executor_execute:
 * @self: an executor
 * @results: results of a plan that sim_plan_check() accepts
 * @runs: (array length=n_runs) (nullable): the runs to execute, each a run
 *   index of the plan, or %NULL for every run still pending in @results
 * @n_runs: the number of @runs
 * @error: return location for a #GError
 *
 * Executes runs of the plan of @results and records their outcomes in
 * @results.  Runs that fail are recorded as failed: look at
 * sim_plan_results_check().
 *
 * Errors: SIM_ERROR_INVALID for a run index out of range or given twice;
 * those of sim_plan_check(); any error of the executor itself.
 *
 * Time complexity: one simulation per run, divided among the workers.
 *
 * Returns: %TRUE if the runs were executed (whether or not they failed).
 */
gboolean sim_executor_execute (SimExecutor *self, SimPlanResults *results, const guint *runs,
                               guint n_runs, GError **error);

/**
 * sim_executor_set_progress_func:
 * @self: an executor
 * @func: (nullable) (scope notified): called after each run
 * @user_data: passed to @func
 * @destroy: frees @user_data
 */
void sim_executor_set_progress_func (SimExecutor *self, SimExecutorProgressFunc func,
                                     gpointer user_data, GDestroyNotify destroy);

/**
 * sim_executor_report_progress:
 * @self: an executor
 * @done: runs finished so far
 * @total: runs in all
 *
 * For subclasses: calls the progress function, if any.
 */
void sim_executor_report_progress (SimExecutor *self, guint done, guint total);

#define SIM_TYPE_THREAD_EXECUTOR (sim_thread_executor_get_type ())
G_DECLARE_FINAL_TYPE (SimThreadExecutor, sim_thread_executor, SIM, THREAD_EXECUTOR, SimExecutor)

/**
 * sim_thread_executor_new:
 * @n_threads: runs at once; 0 for one per processor
 *
 * An executor that runs a plan's runs on a pool of threads in this
 * process.  Once a run fails, runs with a higher index that have not
 * started are left pending.  Results do not depend on @n_threads.
 *
 * Returns: (transfer full): a new executor.
 */
SimExecutor *sim_thread_executor_new (guint n_threads);

G_END_DECLS

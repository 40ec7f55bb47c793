/* sim-executor.c: the executor interface, and the thread pool.
 *
 * Runs are independent (each loads the scenario, builds its own
 * simulation and policy, and shares nothing but the read-only plan), so
 * they go on a GThreadPool with no locking beyond the plugin table.  Each
 * run writes its outcome into its own slot of the results, indexed by run.
 *
 * When a run fails, runs with a higher index that have not started are
 * skipped (left pending), but lower ones still run; the error reported is
 * thus always that of the lowest failing index, whatever the timing.
 */
#include "config.h"

#include "study/sim-executor.h"
#include "core/sim-error.h"

typedef struct {
  SimExecutorProgressFunc progress;
  gpointer                progress_data;
  GDestroyNotify          progress_destroy;
} SimExecutorPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (SimExecutor, sim_executor, G_TYPE_OBJECT)

static void
sim_executor_finalize (GObject *object)
{
  SimExecutorPrivate *priv = sim_executor_get_instance_private (SIM_EXECUTOR (object));

  if (priv->progress_destroy != NULL)
    priv->progress_destroy (priv->progress_data);
  G_OBJECT_CLASS (sim_executor_parent_class)->finalize (object);
}

static void
sim_executor_class_init (SimExecutorClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sim_executor_finalize;
}

static void
sim_executor_init (SimExecutor *self)
{
}

gboolean
sim_executor_execute (SimExecutor *self, SimPlanResults *results, const guint *runs,
                      guint n_runs, GError **error)
{
  SimPlan *plan;
  guint total;
  g_autofree guint *all = NULL;
  g_autofree gboolean *seen = NULL;

  g_return_val_if_fail (SIM_IS_EXECUTOR (self), FALSE);
  g_return_val_if_fail (SIM_IS_PLAN_RESULTS (results), FALSE);
  g_return_val_if_fail (runs != NULL || n_runs == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  g_return_val_if_fail (SIM_EXECUTOR_GET_CLASS (self)->execute != NULL, FALSE);

  plan = sim_plan_results_get_plan (results);
  if (!sim_plan_check (plan, error))
    return FALSE;
  total = sim_plan_get_n_runs (plan);
  if (runs == NULL)
    {
      all = g_new (guint, MAX (total, 1));
      for (guint r = 0; r < total; r++)
        if (sim_plan_results_get_state (results, r) == SIM_PLAN_RUN_PENDING)
          all[n_runs++] = r;
      runs = all;
    }
  seen = g_new0 (gboolean, MAX (total, 1));
  for (guint i = 0; i < n_runs; i++)
    {
      if (runs[i] >= total || seen[runs[i]])
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
                       "run %u: %s (the plan has runs 0 to %u)", runs[i],
                       runs[i] >= total ? "no such run" : "given twice", total - 1);
          return FALSE;
        }
      seen[runs[i]] = TRUE;
    }
  return SIM_EXECUTOR_GET_CLASS (self)->execute (self, results, runs, n_runs, error);
}

void
sim_executor_set_progress_func (SimExecutor *self, SimExecutorProgressFunc func,
                                gpointer user_data, GDestroyNotify destroy)
{
  SimExecutorPrivate *priv;

  g_return_if_fail (SIM_IS_EXECUTOR (self));
  priv = sim_executor_get_instance_private (self);
  if (priv->progress_destroy != NULL)
    priv->progress_destroy (priv->progress_data);
  priv->progress = func;
  priv->progress_data = user_data;
  priv->progress_destroy = destroy;
}

void
sim_executor_report_progress (SimExecutor *self, guint done, guint total)
{
  SimExecutorPrivate *priv;

  g_return_if_fail (SIM_IS_EXECUTOR (self));
  priv = sim_executor_get_instance_private (self);
  if (priv->progress != NULL)
    priv->progress (done, total, priv->progress_data);
}

/* ------------------------------------------------------------------------- */
/* The thread pool.                                                           */

struct _SimThreadExecutor {
  SimExecutor parent_instance;
  guint       n_threads;
};

G_DEFINE_FINAL_TYPE (SimThreadExecutor, sim_thread_executor, SIM_TYPE_EXECUTOR)

/* One execution: shared by the workers, read-only but for MIN_FAILED. */
typedef struct {
  SimPlanResults *results;
  SimPlan        *plan;
  const guint    *runs;
  gint            min_failed;  /* the lowest run index that failed so far */
  GAsyncQueue    *done;
} Batch;

static void
worker (gpointer data, gpointer user_data)
{
  Batch *batch = user_data;
  guint run = batch->runs[GPOINTER_TO_UINT (data) - 1];

  /* Skipped only if a run with a lower index failed already. */
  if (g_atomic_int_get (&batch->min_failed) > (gint) run &&
      !sim_plan_execute_run (batch->plan, run, batch->results))
    {
      gint old;
      do
        old = g_atomic_int_get (&batch->min_failed);
      while ((gint) run < old &&
             !g_atomic_int_compare_and_exchange (&batch->min_failed, old, (gint) run));
    }
  g_async_queue_push (batch->done, data);
}

static gboolean
thread_execute (SimExecutor *executor, SimPlanResults *results, const guint *runs, guint n_runs,
                GError **error)
{
  SimThreadExecutor *self = SIM_THREAD_EXECUTOR (executor);
  Batch batch = { results, sim_plan_results_get_plan (results), runs, G_MAXINT, NULL };
  GThreadPool *pool;
  guint n_threads;

  if (n_runs == 0)
    return TRUE;
  batch.done = g_async_queue_new ();
  n_threads = self->n_threads ? self->n_threads : g_get_num_processors ();
  n_threads = MAX (1, MIN (n_threads, n_runs));
  pool = g_thread_pool_new (worker, &batch, (gint) n_threads, FALSE, error);
  if (pool == NULL)
    {
      g_async_queue_unref (batch.done);
      return FALSE;
    }
  for (guint i = 0; i < n_runs; i++)
    g_thread_pool_push (pool, GUINT_TO_POINTER (i + 1), NULL);
  for (guint i = 0; i < n_runs; i++)
    {
      g_async_queue_pop (batch.done);
      sim_executor_report_progress (executor, i + 1, n_runs);
    }
  g_thread_pool_free (pool, FALSE, TRUE);
  g_async_queue_unref (batch.done);
  return TRUE;
}

static void
sim_thread_executor_class_init (SimThreadExecutorClass *klass)
{
  SIM_EXECUTOR_CLASS (klass)->execute = thread_execute;
}

static void
sim_thread_executor_init (SimThreadExecutor *self)
{
}

SimExecutor *
sim_thread_executor_new (guint n_threads)
{
  SimThreadExecutor *self = g_object_new (SIM_TYPE_THREAD_EXECUTOR, NULL);

  self->n_threads = n_threads;
  return SIM_EXECUTOR (self);
}

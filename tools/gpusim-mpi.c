/* gpusim-mpi.c: `mpirun -n N gpusim sweep FILE`.
 *
 * Dynamic dealing, as a master and workers: rank 0 holds the list of runs
 * to do; every other rank asks for one run, runs it, sends back its
 * outcome and asks again, so a slow point delays only its own rank.  Rank
 * 0 also runs runs itself, in a second thread that takes from the same
 * list (with two ranks, both cores work).  Only rank 0's main thread calls
 * MPI (MPI_THREAD_FUNNELED); it polls with MPI_Iprobe and sleeps 1 ms when
 * idle, which costs nothing next to a run.
 *
 * A run's outcome travels as text: "R RUN" then one "NAME\tVALUE\tUNIT"
 * line per metric of its report (values with 17 significant digits, so
 * rank 0 records the same doubles the worker computed), or "E RUN CODE"
 * and the error message.  Results, and so the summary, are the same bytes
 * as a single process's: outcomes are recorded by run index.
 *
 * Rejected: a static split of runs over ranks (the slowest rank's share
 * decides the time); MPI one-sided counters (more MPI than the job needs);
 * rank 0 only dealing (with two ranks, one core idle).
 */
#include "config.h"

#include "gpusim-mpi.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_MPI
#include <mpi.h>
#endif

gboolean
gpusim_mpi_launched (void)
{
  static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE" };

  for (guint i = 0; i < G_N_ELEMENTS (vars); i++)
    {
      const char *v = g_getenv (vars[i]);
      if (v != NULL && atoi (v) > 1)
        return TRUE;
    }
  return FALSE;
}

#ifndef HAVE_MPI

SimPlanResults *
gpusim_mpi_sweep (SimSweep *sweep, const char *db_path, gboolean *is_root, guint *n_ranks,
                  guint *n_local, guint *n_remote, GError **error)
{
  *is_root = TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID,
               "started by mpirun, but this gpusim was built without MPI (./configure "
               "--with-mpi, with Debian's libopenmpi-dev); every rank would run the whole "
               "sweep");
  return NULL;
}

#else

enum { TAG_ASK = 1, TAG_RUN = 2 };

/* Captures a report's metrics as text, in the worker's thread. */
static void
capture_report (SimPlan *plan, guint run, SimReport *report, gpointer data)
{
  GString *out = data;
  g_autoptr(GPtrArray) names = sim_report_list_metrics (report);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_printf (out, "R %u\n", run);
  for (guint m = 0; m < names->len; m++)
    {
      double x = NAN;
      const char *unit = sim_report_get_unit (report, names->pdata[m]);
      sim_report_get_value (report, names->pdata[m], &x);
      g_string_append_printf (out, "%s\t%s\t%s\n", (char *) names->pdata[m],
                              g_ascii_formatd (buf, sizeof buf, "%.17g", x), unit ? unit : "");
    }
}

/* The outcome of RUN, already recorded in RESULTS by the caller's
 * sim_plan_execute_run(), as text. */
static void
outcome_text (SimPlanResults *results, guint run, GString *captured, GString *out)
{
  const GError *e = sim_plan_results_get_error (results, run);

  if (e != NULL)
    g_string_printf (out, "E %u %d\n%s", run, e->code, e->message);
  else
    g_string_assign (out, captured->str);
}

typedef struct {
  SimPlanResults *results;
  SimSweepDb     *db;
  GError         *error;  /* the first database error */
} Root;

/* Records a text outcome on rank 0. */
static void
record_text (Root *root, const char *text)
{
  SimPlan *plan = sim_plan_results_get_plan (root->results);
  guint run;
  g_autoptr(GError) error = NULL;

  if (text[0] == 'E')
    {
      int code = 0;
      const char *nl = strchr (text, '\n');
      sscanf (text, "E %u %d", &run, &code);
      g_set_error_literal (&error, SIM_ERROR, code, nl ? nl + 1 : "");
      sim_plan_results_record_error (root->results, run, error);
      return;
    }
  {
    g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
    g_autoptr(GPtrArray) units = g_ptr_array_new_with_free_func (g_free);
    g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
    guint n_metrics = sim_plan_get_n_metrics (plan);
    g_autofree double *mine = g_new (double, MAX (n_metrics, 1));
    g_autofree const char **my_units = g_new0 (const char *, MAX (n_metrics, 1));

    sscanf (lines[0], "R %u", &run);
    for (guint i = 1; lines[i] != NULL; i++)
      {
        g_auto(GStrv) f = g_strsplit (lines[i], "\t", 3);
        double x;
        if (f[0] == NULL || f[1] == NULL || f[2] == NULL)
          continue;
        x = g_ascii_strtod (f[1], NULL);
        g_ptr_array_add (names, g_strdup (f[0]));
        g_ptr_array_add (units, *f[2] ? g_strdup (f[2]) : NULL);
        g_array_append_val (values, x);
      }
    for (guint m = 0; m < n_metrics; m++)
      {
        gboolean found = FALSE;
        for (guint i = 0; i < names->len && !found; i++)
          if (strcmp (names->pdata[i], sim_plan_get_metric (plan, m)) == 0)
            {
              mine[m] = g_array_index (values, double, i);
              my_units[m] = units->pdata[i];
              found = TRUE;
            }
        if (!found)
          {
            g_set_error (&error, SIM_ERROR, SIM_ERROR_NOT_FOUND,
                         "run %u: the report has no metric \"%s\"", run,
                         sim_plan_get_metric (plan, m));
            sim_plan_results_record_error (root->results, run, error);
            return;
          }
      }
    sim_plan_results_record_values (root->results, run, mine, n_metrics, my_units, NULL);
    if (root->db != NULL &&
        !sim_sweep_db_add_values (root->db, run, names->len, (const char * const *) names->pdata,
                                  (const double *) (void *) values->data,
                                  (const char * const *) units->pdata, &error) &&
        root->error == NULL)
      root->error = g_steal_pointer (&error);
  }
}

/* The list of runs to deal, shared by rank 0's two threads. */
typedef struct {
  GMutex       lock;
  const guint *todo;
  guint        n_todo;
  guint        next;
  GAsyncQueue *local_done;  /* outcome texts from rank 0's worker thread */
  SimPlan     *plan;
  GString     *captured;    /* the report of the run in that thread */
} Deal;

static gint
deal_next (Deal *d)
{
  gint run = -1;

  g_mutex_lock (&d->lock);
  if (d->next < d->n_todo)
    run = (gint) d->todo[d->next++];
  g_mutex_unlock (&d->lock);
  return run;
}

static gpointer
local_worker (gpointer data)
{
  Deal *d = data;
  g_autoptr(SimPlanResults) mine = sim_plan_results_new (d->plan);
  GString *captured = d->captured;
  gint run;

  while ((run = deal_next (d)) >= 0)
    {
      GString *out = g_string_new (NULL);
      g_string_truncate (captured, 0);
      sim_plan_execute_run (d->plan, (guint) run, mine);
      outcome_text (mine, (guint) run, captured, out);
      g_async_queue_push (d->local_done, g_string_free (out, FALSE));
    }
  g_async_queue_push (d->local_done, g_strdup (""));  /* finished */
  return NULL;
}

SimPlanResults *
gpusim_mpi_sweep (SimSweep *sweep, const char *db_path, gboolean *is_root, guint *n_ranks,
                  guint *n_local, guint *n_remote, GError **error)
{
  SimPlan *plan = sim_sweep_get_plan (sweep);
  int provided, rank, size;
  g_autoptr(GString) captured = g_string_new (NULL);

  *is_root = FALSE;
  if (MPI_Init_thread (NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    {
      *is_root = TRUE;
      g_set_error (error, SIM_ERROR, SIM_ERROR_IO, "MPI_Init_thread failed");
      return NULL;
    }
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  *n_ranks = (guint) size;
  *n_local = *n_remote = 0;
  /* Every rank's report goes to CAPTURED, in the thread that ran it:
   * rank 0's worker thread is the only one that runs there. */
  sim_plan_set_report_func (plan, capture_report, captured, NULL);

  if (rank != 0)
    {
      g_autoptr(SimPlanResults) mine = sim_plan_results_new (plan);
      g_autoptr(GString) out = g_string_new (NULL);
      int run;
      MPI_Send ("", 1, MPI_CHAR, 0, TAG_ASK, MPI_COMM_WORLD);
      for (;;)
        {
          MPI_Recv (&run, 1, MPI_INT, 0, TAG_RUN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          if (run < 0)
            break;
          g_string_truncate (captured, 0);
          sim_plan_execute_run (plan, (guint) run, mine);
          outcome_text (mine, (guint) run, captured, out);
          MPI_Send (out->str, (int) out->len + 1, MPI_CHAR, 0, TAG_ASK, MPI_COMM_WORLD);
        }
      sim_plan_set_report_func (plan, NULL, NULL, NULL);
      MPI_Finalize ();
      return NULL;
    }

  *is_root = TRUE;
  {
    g_autoptr(SimPlanResults) results = sim_plan_results_new (plan);
    g_autoptr(SimSweepDb) db = NULL;
    g_autofree guint *todo = NULL;
    Root root = { results, NULL, NULL };
    Deal deal = { { 0 }, NULL, 0, 0, NULL, plan, captured };
    GThread *thread;
    int workers_left = size - 1;
    gboolean local_left = TRUE;
    guint n_todo = 0;

    if (db_path != NULL)
      {
        db = sim_sweep_db_open (db_path, sweep, error);
        if (db == NULL || sim_sweep_db_resume (db, results, error) < 0)
          {
            g_printerr ("gpusim: %s\n", (*error)->message);
            MPI_Abort (MPI_COMM_WORLD, 1);
            return NULL;
          }
      }
    root.db = db;
    todo = g_new (guint, MAX (sim_plan_get_n_runs (plan), 1));
    for (guint r = 0; r < sim_plan_get_n_runs (plan); r++)
      if (sim_plan_results_get_state (results, r) != SIM_PLAN_RUN_DONE)
        todo[n_todo++] = r;
    g_mutex_init (&deal.lock);
    deal.todo = todo;
    deal.n_todo = n_todo;
    deal.local_done = g_async_queue_new_full (g_free);
    thread = g_thread_new ("sweep-rank0", local_worker, &deal);

    while (workers_left > 0 || local_left)
      {
        int flag = 0;
        MPI_Status st;
        char *text;
        gboolean idle = TRUE;

        MPI_Iprobe (MPI_ANY_SOURCE, TAG_ASK, MPI_COMM_WORLD, &flag, &st);
        if (flag)
          {
            int count, run;
            g_autofree char *buf = NULL;
            MPI_Get_count (&st, MPI_CHAR, &count);
            buf = g_malloc (MAX (count, 1));
            MPI_Recv (buf, count, MPI_CHAR, st.MPI_SOURCE, TAG_ASK, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
            if (count > 1)
              {
                record_text (&root, buf);
                (*n_remote)++;
              }
            run = deal_next (&deal);
            MPI_Send (&run, 1, MPI_INT, st.MPI_SOURCE, TAG_RUN, MPI_COMM_WORLD);
            if (run < 0)
              workers_left--;
            idle = FALSE;
          }
        while ((text = g_async_queue_try_pop (deal.local_done)) != NULL)
          {
            if (*text == '\0')
              local_left = FALSE;
            else
              {
                record_text (&root, text);
                (*n_local)++;
              }
            g_free (text);
            idle = FALSE;
          }
        if (idle)
          g_usleep (1000);
      }
    g_thread_join (thread);
    g_async_queue_unref (deal.local_done);
    g_mutex_clear (&deal.lock);
    sim_plan_set_report_func (plan, NULL, NULL, NULL);
    MPI_Finalize ();
    if (root.error != NULL)
      {
        g_propagate_error (error, root.error);
        return NULL;
      }
    return g_steal_pointer (&results);
  }
}

#endif

/* sim-workload.c: the part common to every workload source.
 *
 * A source allocates its own struct with g_new0(), embeds #SimWorkload as
 * its first member and calls sim__workload_init().  sim_workload_free()
 * first calls the source's finalize method, which frees what the source
 * owns, and then frees the common part and the struct itself.
 */
#include "config.h"

#include "workload/sim-workload.h"
#include "core/sim-error.h"
#include "workload/sim-workload-private.h"

void
sim__workload_init (SimWorkload *workload, const SimWorkloadVTable *vtable,
                    const char *description)
{
  g_return_if_fail (workload != NULL);
  g_return_if_fail (vtable != NULL && vtable->next != NULL);

  workload->vtable = vtable;
  workload->description = g_strdup (description != NULL ? description : "");
  workload->class_names = g_ptr_array_new_with_free_func (g_free);
  workload->produced = 0;
  /* Any first submit time is accepted; order is checked from the second on. */
  workload->last_submit = G_MININT64;
}

gboolean
sim_workload_next (SimWorkload *workload, SimJobSpec *out, GError **error)
{
  SimJobSpec job = { 0 };

  g_return_val_if_fail (workload != NULL && workload->vtable != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!workload->vtable->next (workload, &job, error))
    return FALSE;

  /* Sources check their own order and say where it broke (a trace names
   * its line); this is the guarantee the engine relies on whatever the
   * source. */
  if (job.submit < workload->last_submit)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_TRACE,
                   "%s: job %" G_GUINT64_FORMAT " is submitted at %" G_GINT64_FORMAT
                   " ns, before the previous job (%" G_GINT64_FORMAT " ns)",
                   workload->description, job.id, job.submit, workload->last_submit);
      return FALSE;
    }
  workload->last_submit = job.submit;
  workload->produced++;
  *out = job;
  return TRUE;
}

void
sim_workload_free (SimWorkload *workload)
{
  if (workload == NULL)
    return;
  if (workload->vtable != NULL && workload->vtable->finalize != NULL)
    workload->vtable->finalize (workload);
  g_free (workload->description);
  if (workload->class_names != NULL)
    g_ptr_array_unref (workload->class_names);
  g_free (workload);
}

guint
sim_workload_get_n_classes (const SimWorkload *workload)
{
  g_return_val_if_fail (workload != NULL, 0);
  return workload->class_names != NULL ? workload->class_names->len : 0;
}

const char *
sim_workload_get_class_name (const SimWorkload *workload, guint job_class)
{
  g_return_val_if_fail (workload != NULL, NULL);
  g_return_val_if_fail (job_class < sim_workload_get_n_classes (workload), NULL);
  return g_ptr_array_index (workload->class_names, job_class);
}

guint64
sim_workload_get_skipped (const SimWorkload *workload)
{
  g_return_val_if_fail (workload != NULL, 0);
  return workload->vtable->skipped != NULL ? workload->vtable->skipped (workload) : 0;
}

GError *
sim__workload_no_jobs_error (const SimWorkload *workload)
{
  guint64 skipped = sim_workload_get_skipped (workload);

  if (skipped > 0)
    return g_error_new (SIM_ERROR, SIM_ERROR_TRACE,
                        "%s: no job to simulate: every one of its %" G_GUINT64_FORMAT
                        " rows was skipped as invalid (set skip_invalid = false to see the "
                        "first, with its line)", workload->description, skipped);
  return g_error_new (SIM_ERROR, SIM_ERROR_TRACE, "%s: no job to simulate: the trace has no rows",
                      workload->description);
}

gboolean
sim_workload_read_all (SimWorkload *workload, guint64 *jobs, GError **error)
{
  SimJobSpec spec;
  GError *local = NULL;

  g_return_val_if_fail (workload != NULL && jobs != NULL, FALSE);
  *jobs = 0;
  while (sim_workload_next (workload, &spec, &local))
    (*jobs)++;
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (workload->produced == 0)
    {
      g_propagate_error (error, sim__workload_no_jobs_error (workload));
      return FALSE;
    }
  return TRUE;
}

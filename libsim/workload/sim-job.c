/* sim-job.c: a job's lifetime (sim-job.h).
 *
 * The kernel creates a job with one reference and drops it when the job
 * finishes or the simulation ends; a binding that keeps a job it was given
 * takes another.  A job the kernel has dropped is no longer the
 * simulation's: its fields stay as they were last set, and starting it is
 * refused (its state is done, or it is in no queue).  Jobs made by a
 * caller (a test's, on the stack) have no count: they are copied instead.
 */
#include "config.h"

#include "workload/sim-job.h"

#include <string.h>

SimJob *
sim_job_ref (SimJob *job)
{
  SimJob *copy;

  g_return_val_if_fail (job != NULL, NULL);
  if (g_atomic_int_get (&job->ref_count) > 0)
    {
      g_atomic_int_inc (&job->ref_count);
      return job;
    }
  /* The public fields only: the private ones are the simulation's. */
  copy = g_new0 (SimJob, 1);
  memcpy (copy, job, G_STRUCT_OFFSET (SimJob, running_link));
  copy->gpus = job->n_gpus > 0 ? g_memdup2 (job->gpus, sizeof (guint32) * job->n_gpus) : NULL;
  copy->policy_data = NULL;
  copy->ref_count = 1;
  return copy;
}

void
sim_job_unref (SimJob *job)
{
  if (job == NULL || !g_atomic_int_dec_and_test (&job->ref_count))
    return;
  g_free (job->gpus);
  g_free (job);
}

G_DEFINE_BOXED_TYPE (SimJob, sim_job, sim_job_ref, sim_job_unref)

/* check-records.h: what the tests that run a scenario twice and compare
 * the runs job by job record of each job (check-easy.c, check-prune.c).
 *
 * record_job() is a job observer (sim_simulation_set_job_observer()) whose
 * data is a GHashTable made with g_int64_hash, g_int64_equal, no key
 * destructor and record_free(): it keeps each job's submission, last start
 * (with its GPUs, in order), end and duration by id. */
#pragma once

#include <sim.h>

typedef struct {
  guint64  id;
  SimTime  submit;
  SimTime  start;
  SimTime  end;
  SimTime  duration;
  guint    n_gpus;
  guint32 *gpus;
} Record;

static inline void
record_free (gpointer data)
{
  Record *r = data;

  g_free (r->gpus);
  g_free (r);
}

static inline void
record_job (SimSimulation *sim, const SimJob *job, gpointer data)
{
  GHashTable *seen = data;
  Record *r;

  if (job->state != SIM_JOB_RUNNING && job->state != SIM_JOB_DONE)
    return;
  r = g_hash_table_lookup (seen, &job->spec.id);
  if (r == NULL)
    {
      r = g_new0 (Record, 1);
      r->id = job->spec.id;
      g_hash_table_insert (seen, &r->id, r);
    }
  r->submit = job->spec.submit;
  r->duration = job->spec.duration;
  if (job->state == SIM_JOB_RUNNING)
    {
      r->start = job->start;
      r->n_gpus = job->n_gpus;
      g_free (r->gpus);
      r->gpus = g_memdup2 (job->gpus, MAX (job->n_gpus, 1) * sizeof (guint32));
    }
  else
    r->end = job->end;
}

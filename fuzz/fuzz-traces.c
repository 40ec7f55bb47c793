/* fuzz-traces.c: harnesses of the trace readers.
 *
 * Each input is a whole trace file, read through the reader's public
 * constructor (from a scratch file) and pulled to its end with
 * sim_workload_next(), twice: once skipping invalid jobs and rebasing time,
 * once strict and on the log's own calendar.  Beside the absence of
 * crashes, sanitizer reports, GLib criticals and leaks, every job a reader
 * returns is held to the contract of #SimJobSpec that the engine relies
 * on: at least one GPU and a share of 1 to 1000 thousandths of each, a run
 * time of at least 1 ns, an end and a time limit before SIM_TIME_NEVER, a
 * job class that exists.  What the readers refuse, and why, is not checked
 * here (tests/check-traces.c and tests/check-workload.c do that).
 */
#include "config.h"
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <sim.h>

/* More jobs than any input within the fuzzer's size limit can hold (a gzip
 * stream inflates some 1000 times): a reader that keeps returning jobs
 * past it is stuck. */
#define MAX_JOBS 10000000

static void
contract_broken (SimWorkload *workload, const SimJobSpec *job, const char *what)
{
  fprintf (stderr, "fuzz: %s: job %" G_GUINT64_FORMAT " (submit %" G_GINT64_FORMAT
           " ns, duration %" G_GINT64_FORMAT " ns, %u GPUs x %u/1000, class %u): %s\n",
           workload->description, job->id, job->submit, job->duration, job->gpus,
           job->gpu_milli, job->job_class, what);
  abort ();
}

/* Pulls every job of @workload (consumed) and checks each. */
static void
drain (SimWorkload *workload, GError *open_error)
{
  SimJobSpec job;
  GError *error = NULL;
  guint64 n = 0;

  if (workload == NULL)
    {
      if (open_error == NULL)
        {
          fprintf (stderr, "fuzz: a reader returned NULL without an error\n");
          abort ();
        }
      fuzz_note_refusal ();
      g_error_free (open_error);
      return;
    }
  while (sim_workload_next (workload, &job, &error))
    {
      if (job.gpus < 1)
        contract_broken (workload, &job, "no GPUs");
      if (job.gpu_milli < 1 || job.gpu_milli > 1000)
        contract_broken (workload, &job, "GPU share outside 1..1000");
      if (job.duration < 1)
        contract_broken (workload, &job, "run time below 1 ns");
      if (job.requested < 0)
        contract_broken (workload, &job, "negative requested time");
      /* The job must end, and its time limit fall, before SIM_TIME_NEVER
       * (about 2262 on the trace's calendar), or the engine cannot schedule
       * its end: such a job is refused with its line, never saturated. */
      if (job.duration >= SIM_TIME_NEVER - MAX (job.submit, 0))
        contract_broken (workload, &job, "ends at or past the end of simulated time");
      if (job.requested >= SIM_TIME_NEVER - MAX (job.submit, 0))
        contract_broken (workload, &job, "time limit at or past the end of simulated time");
      if (job.job_class >= sim_workload_get_n_classes (workload))
        contract_broken (workload, &job, "job class out of range");
      if (++n > MAX_JOBS)
        contract_broken (workload, &job, "more jobs than the input can hold");
    }
  if (error != NULL)
    {
      /* A failure is sticky: asking again must not go on reading. */
      GError *again = NULL;
      if (sim_workload_next (workload, &job, &again))
        contract_broken (workload, &job, "a job returned after an error");
      g_clear_error (&again);
      fuzz_note_refusal ();
      g_error_free (error);
    }
  else if (n == 0)
    /* A trace without a job is refused where it is used (`gpusim run`,
     * `trace info`: "no job to simulate"). */
    fuzz_note_refusal ();
  sim_workload_free (workload);
}

int
fuzz_swf (const uint8_t *data, size_t size)
{
  const char *path;
  GError *error = NULL;

  fuzz_init ();
  path = fuzz_write_file (data, size);
  {
    SimSwfConfig config = { .processors_per_gpu = 1.0, .skip_invalid = TRUE, .rebase_time = TRUE };
    SimWorkload *w = sim_workload_new_swf (path, &config, &error);
    drain (w, error);
    error = NULL;
  }
  {
    SimSwfConfig config = { .processors_per_gpu = 2.5, .skip_invalid = FALSE, .rebase_time = FALSE };
    SimWorkload *w = sim_workload_new_swf (path, &config, &error);
    drain (w, error);
  }
  return 0;
}

int
fuzz_philly (const uint8_t *data, size_t size)
{
  const char *path;
  GError *error = NULL;

  fuzz_init ();
  path = fuzz_write_file (data, size);
  {
    SimPhillyConfig config = { .skip_invalid = TRUE, .rebase_time = TRUE };
    SimWorkload *w = sim_workload_new_philly (path, &config, &error);
    drain (w, error);
    error = NULL;
  }
  {
    SimPhillyConfig config = { .skip_invalid = FALSE, .rebase_time = FALSE };
    SimWorkload *w = sim_workload_new_philly (path, &config, &error);
    drain (w, error);
  }
  return 0;
}

typedef SimWorkload *(*TraceOpen) (const char *path, const SimTraceConfig *config,
                                   GError **error);

static void
trace_both_ways (TraceOpen open, const uint8_t *data, size_t size)
{
  const char *path;
  GError *error = NULL;

  fuzz_init ();
  path = fuzz_write_file (data, size);
  {
    SimTraceConfig config = { .skip_invalid = TRUE, .rebase_time = TRUE };
    SimWorkload *w = open (path, &config, &error);
    drain (w, error);
    error = NULL;
  }
  {
    SimTraceConfig config = { .skip_invalid = FALSE, .rebase_time = FALSE };
    SimWorkload *w = open (path, &config, &error);
    drain (w, error);
  }
}

int
fuzz_helios (const uint8_t *data, size_t size)
{
  trace_both_ways (sim_workload_new_helios, data, size);
  return 0;
}

int
fuzz_slurm (const uint8_t *data, size_t size)
{
  trace_both_ways (sim_workload_new_slurm, data, size);
  return 0;
}

int
fuzz_openb_nodes (const uint8_t *data, size_t size)
{
  const char *path;
  GError *error = NULL;
  GPtrArray *nodes;

  fuzz_init ();
  path = fuzz_write_file (data, size);
  nodes = sim_openb_read_nodes (path, &error);
  if (nodes == NULL)
    {
      g_assert (error != NULL);
      fuzz_note_refusal ();
      g_error_free (error);
      return 0;
    }
  for (guint i = 0; i < nodes->len; i++)
    {
      const SimOpenbNode *n = g_ptr_array_index (nodes, i);
      /* A node with GPUs names their model (documented); every string is set. */
      if (n->sn == NULL || n->model == NULL || (n->gpus > 0 && *n->model == '\0'))
        {
          fprintf (stderr, "fuzz: openb node %u: missing name or GPU model\n", i);
          abort ();
        }
      (void) sim_openb_gpu_model_to_catalogue (n->model);
    }
  g_ptr_array_unref (nodes);
  return 0;
}

int
fuzz_openb_pods (const uint8_t *data, size_t size)
{
  const char *path;
  GError *error = NULL;
  GPtrArray *pods;

  fuzz_init ();
  path = fuzz_write_file (data, size);
  pods = sim_openb_read_pods (path, &error);
  if (pods == NULL)
    {
      g_assert (error != NULL);
      fuzz_note_refusal ();
      g_clear_error (&error);
    }
  else
    {
      for (guint i = 0; i < pods->len; i++)
        {
          const SimOpenbPod *p = g_ptr_array_index (pods, i);
          if (p->gpu_spec == NULL || p->gpu_milli > 1000
              || (p->gpu_milli < 1000 && p->num_gpu > 1))
            {
              fprintf (stderr, "fuzz: openb pod %u: gpu_spec or gpu_milli out of contract\n", i);
              abort ();
            }
        }
      g_ptr_array_unref (pods);
    }
  {
    SimOpenbConfig config = { .skip_invalid = TRUE, .rebase_time = TRUE };
    SimWorkload *w = sim_workload_new_openb (path, &config, &error);
    drain (w, error);
    error = NULL;
  }
  {
    SimOpenbConfig config = { .skip_invalid = FALSE, .rebase_time = FALSE };
    SimWorkload *w = sim_workload_new_openb (path, &config, &error);
    drain (w, error);
  }
  return 0;
}

int
fuzz_native (const uint8_t *data, size_t size)
{
  trace_both_ways (sim_workload_new_native, data, size);
  return 0;
}

/* A Gavel trace read with the throughputs of a few of Gavel's job types
 * (a job of another type is refused, with its line). */
static SimWorkload *
open_gavel (const char *path, const SimTraceConfig *config, GError **error)
{
  static const SimGavelRate rates[] = {
    { "ResNet-18 (batch size 32)", 46.8, NULL },
    { "Transformer (batch size 128)", 12.5, NULL },
    { "Recommendation (batch size 8192)", 180.0, NULL },
  };

  return sim_workload_new_gavel (path, config, rates, G_N_ELEMENTS (rates), error);
}

int
fuzz_gavel (const uint8_t *data, size_t size)
{
  trace_both_ways (open_gavel, data, size);
  return 0;
}

/* The task table's file of fuzz_pai(), kept from input to input and
 * removed at exit. */
static char *task_path;

static void
remove_task_file (void)
{
  if (task_path != NULL)
    g_unlink (task_path);
  g_clear_pointer (&task_path, g_free);
}

/* A PAI input is the job table, a line "--8<--", then the task table. */
int
fuzz_pai (const uint8_t *data, size_t size)
{
  static const char cut[] = "\n--8<--\n";
  const uint8_t *split = NULL;
  const char *job_path;
  size_t job_size = size;
  GError *error = NULL;

  fuzz_init ();
  for (size_t i = 0; i + sizeof cut - 1 <= size && split == NULL; i++)
    if (memcmp (data + i, cut, sizeof cut - 1) == 0)
      {
        split = data + i + sizeof cut - 1;
        job_size = i + 1;
      }
  if (task_path == NULL)
    {
      int fd = g_file_open_tmp ("gpusim-fuzz-tasks-XXXXXX", &task_path, NULL);
      if (fd < 0)
        abort ();
      close (fd);
      atexit (remove_task_file);
    }
  if (!g_file_set_contents (task_path, split != NULL ? (const char *) split : "",
                            split != NULL ? (gssize) (size - (size_t) (split - data)) : 0,
                            NULL))
    abort ();
  job_path = fuzz_write_file (data, job_size);
  for (guint k = 0; k < 2; k++)
    {
      SimTraceConfig config = { .skip_invalid = k == 0, .rebase_time = k == 0 };
      SimWorkload *w = sim_workload_new_pai (job_path, task_path, &config,
                                             k == 0 ? SIM_PAI_TASKS_SUM : SIM_PAI_TASKS_LARGEST,
                                             &error);
      drain (w, error);
      error = NULL;
    }
  return 0;
}

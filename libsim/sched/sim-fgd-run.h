/* sim-fgd-run.h: what one run of the FGD fragmentation experiment records
 * (sched/sim-fgd-experiment.h), apart from the experiment, so that the
 * paper's simulator (sched/sim-fgd-paper.h), which the experiment calls,
 * fills it without depending on the experiment in return. */
#pragma once

#if !defined(SIM_INSIDE) && !defined(SIM_COMPILATION)
#error "Only <sim.h> can be included directly."
#endif

#include <glib.h>

G_BEGIN_DECLS

/**
 * SimFgdSample:
 * @arrived_share: the sample point: arrived GPU demand over capacity.  The
 *   state recorded is the one just after the task that brought arrived
 *   demand to this share or beyond.
 * @demand_share: the GPU demand arrived by then, over capacity (at least
 *   @arrived_share; more by the size of the task that crossed it).  In the
 *   paper variant the task sequence stops just short of the stop share, and
 *   the points it does not reach take the final state: there it is less.
 * @allocated_share: allocated GPUs over capacity (the allocation rate)
 * @fragmented_share: fragmented GPUs over capacity: the measure of
 *   sim-fgd-experiment.h (gpusim variant) or FGD's over its typical task
 *   types, CPU-only types counting every free GPU as unusable (paper
 *   variant)
 * @unallocated_gpus: GPU capacity not allocated, in GPUs
 * @failed_tasks: tasks that could not be placed so far
 */
typedef struct {
  double  arrived_share;
  double  demand_share;
  double  allocated_share;
  double  fragmented_share;
  double  unallocated_gpus;
  guint64 failed_tasks;
} SimFgdSample;

/**
 * SimFgdRun:
 * @policy: the placement's name
 * @seed: the seed of the task sequence
 * @samples: (array length=n_samples): one per sample point
 * @n_samples: their number (the result's @n_points)
 * @tasks_arrived: tasks drawn
 * @tasks_failed: tasks that could not be placed
 * @sequence_digest: a hash of the drawn sequence (equal for every policy at
 *   one seed)
 */
typedef struct {
  char    *policy;
  guint64  seed;
  SimFgdSample *samples;
  guint    n_samples;
  guint64  tasks_arrived;
  guint64  tasks_failed;
  guint64  sequence_digest;
} SimFgdRun;

G_END_DECLS

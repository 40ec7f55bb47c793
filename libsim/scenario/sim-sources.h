/* sim-sources.h: the registry of workload sources (not installed).
 *
 * Every kind of workload a scenario can name ([workload] source = ...) is
 * one entry: its name, whether its jobs come from the scenario's [class]
 * sections, how to open it from a scenario, how to describe it in a
 * report, and how many jobs a run of it will take when that is known
 * before reading.  The simulation asks the registry and names no source
 * itself; a new source is a new entry here and a reader in workload/.
 */
#pragma once

#include <glib.h>
#include "scenario/sim-scenario.h"
#include "workload/sim-workload.h"

G_BEGIN_DECLS

/* What opening a source may need from the simulation built around it. */
typedef struct {
  /* Per [class], its speed on the reference GPU in the class's own unit
   * (a Gavel job type's steps per second); NULL when not known. */
  const double *class_rates;
  /* The GPU models and MIG profiles of the catalogue (NULL-terminated), that
   * a trace's rows may name; NULL when not known. */
  const char * const *gpu_models;
  const char * const *mig_profiles;
} SimSourceContext;

typedef struct {
  SimWorkloadSource source;
  /* Its jobs are drawn from (or typed by) the scenario's [class] sections. */
  gboolean    has_classes;
  /* A trace read from a file ([workload] trace), as opposed to generated. */
  gboolean    is_trace;
  SimWorkload *(*open) (const SimScenario *scenario, const SimSourceContext *context,
                        GError **error);
  /* The summary's workload line, from the opened workload. */
  char       *(*describe) (const SimScenario *scenario, const SimWorkload *workload);
} SimSourceInfo;

/* The entry of @source (every value of #SimWorkloadSource has one). */
const SimSourceInfo *sim__source_info (SimWorkloadSource source);

/* Jobs a run of @scenario will take when known before reading (a
 * generator's rate over the horizon, or its job limit); 0 if unknown. */
guint64 sim__source_expected_jobs (const SimScenario *scenario);

/* The job count that ends the run, for progress: a generator's limit;
 * 0 when the run ends otherwise. */
guint64 sim__source_job_limit (const SimScenario *scenario);

G_END_DECLS

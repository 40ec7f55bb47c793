/* sim-workload-private.h: what the library's workload sources and runs
 * share (not installed).  See sim-workload.h for the source interface. */
#pragma once

#include "workload/sim-workload.h"

G_BEGIN_DECLS

/* The error for a source that gave no job at all (used by runs and by
 * sim_workload_read_all()). */
GError *sim__workload_no_jobs_error (const SimWorkload *workload);

/* A native trace (@workload, from sim_workload_new_native()) refuses a row
 * whose gpu_model names a GPU model not in @gpu_models, or whose mig a MIG
 * profile not in @mig_profiles (both NULL-terminated, copied), with the
 * file, line and column and the closest name: a typo, where a model the
 * catalogue knows but the cluster lacks makes a job that is rejected. */
void sim__workload_native_set_names (SimWorkload *workload, const char * const *gpu_models,
                                     const char * const *mig_profiles);

/* FALSE, with SIM_ERROR_INVALID, if @config's rate (at its daily
 * profile's peak) is above what the generator represents: the check of
 * sim_workload_new_generator(), for a caller that blames the rate key. */
gboolean sim__generator_check_rate (const SimGeneratorConfig *config, GError **error);

/* Used by sources: sets up the common part. */
void sim__workload_init (SimWorkload *workload, const SimWorkloadVTable *vtable,
                         const char *description);

G_END_DECLS

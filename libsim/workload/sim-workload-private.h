/* sim-workload-private.h: what the library's workload sources and runs
 * share (not installed).  See sim-workload.h for the source interface. */
#pragma once

#include "workload/sim-workload.h"

G_BEGIN_DECLS

/* The error for a source that gave no job at all (used by runs and by
 * sim_workload_read_all()). */
GError *sim__workload_no_jobs_error (const SimWorkload *workload);

/* Used by sources: sets up the common part. */
void sim__workload_init (SimWorkload *workload, const SimWorkloadVTable *vtable,
                         const char *description);

G_END_DECLS

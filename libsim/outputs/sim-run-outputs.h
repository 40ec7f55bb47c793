/* sim-run-outputs.h: the files a run writes (not installed).
 *
 * The outputs module attaches to the kernel (kernel/sim-kernel.h) when a
 * caller asks for an output directory (sim_simulation_set_output_dir()) or
 * a timeline (sim_simulation_set_timeline()): it opens each file as a
 * temporary (sim-util.h, SimAtomicFile), hands jobs.csv and timeseries.csv
 * to the built-in metrics, adds the node-usage and timeline accumulators
 * (report/sim-run-records.h), and when the run ends (its COMMIT hook)
 * writes summary.json and topology.dot and renames every file into place
 * together; when the run fails (ABANDON) the temporaries go.  It keeps its
 * state in an extension of the simulation.
 */
#pragma once

#include "kernel/sim-simulation.h"
#include "report/sim-timeline.h"

G_BEGIN_DECLS

/* Every file a run may write into its output directory (NULL-terminated),
 * for sim__scenario_check_output(). */
const char * const *sim__run_output_names (void);

/* The run's timeline, for events of other modules (failures), or NULL. */
SimTimeline *sim__outputs_get_timeline (SimSimulation *sim);

G_END_DECLS

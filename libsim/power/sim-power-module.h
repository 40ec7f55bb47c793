/* sim-power-module.h: power and cooling in a run (not installed).
 *
 * The power module attaches to the kernel (kernel/sim-kernel.h): it follows
 * every job's GPUs and their activity into the power model (sim-power.h),
 * charges each job its energy (sim-energy.h), notes the IT, cooling and
 * facility power in the state after every change, puts idle nodes to sleep
 * ([power] sleep_after) and wakes them for a job, steps the outdoor
 * temperature (sim-cooling.h), and slows the jobs on capped GPUs (a
 * capacity factor).  It keeps its state in an extension of the simulation.
 * Without a [power] section it still keeps the caps and the GPUs' activity
 * (what the power policies read), but reports and notes nothing.
 */
#pragma once

#include <glib.h>
#include "kernel/sim-simulation.h"
#include "power/sim-power.h"

G_BEGIN_DECLS

gboolean sim__power_module_attach (SimSimulation *sim, guint flags, GError **error);

/* The power model, for what-if readings: a caller that changes it must put
 * it back before returning to the simulation. */
SimPower *sim__power_module_get_model (SimSimulation *sim);

/* Caps GPU @gpu at @cap_w W (0: no cap) from now: the accumulators are
 * first brought up to now, then the jobs on the GPU move to their new
 * speed (progress up to date, completions rescheduled) and the state is
 * noted.  Errors: SIM_ERROR_INVALID for a GPU the cluster does not have, a
 * cap at or below the GPU's idle power (or negative), or a GPU whose model
 * has no idle power and TDP in the catalogue. */
gboolean sim__power_module_set_gpu_cap (SimSimulation *sim, guint gpu, double cap_w,
                                        GError **error);
/* Sets every GPU's cap at once (@caps_w: one per GPU, W, 0 for none), as
 * sim__power_module_set_gpu_cap() would one by one, but with each job on a
 * GPU whose cap changed moved to its new speed once, and the state noted
 * once: O(GPUs + the running jobs' GPUs).  All or nothing. */
gboolean sim__power_module_set_gpu_caps (SimSimulation *sim, const double *caps_w,
                                         GError **error);
/* GPU @gpu's cap, W; 0: none. */
double   sim__power_module_get_gpu_cap (SimSimulation *sim, guint gpu);
/* GPU @gpu's activity now, 0 to 1: the share of its time it computes, as
 * DCGM reports it (sim-sharing.h); what drives its power. */
double   sim__power_module_get_gpu_activity (SimSimulation *sim, guint gpu);
/* What the IT equipment draws at full load, W: the nodes at full load
 * (@node_w: @n_nodes entries, or NULL with 0, set to each node's) and the
 * network's constant draw; all 0 without a [power] section.  O(nodes). */
double   sim__power_module_get_full_power (SimSimulation *sim, double *node_w, guint n_nodes);
/* What the facility would draw, W, had @job just started on @placement:
 * each of its GPUs as busy as the job can keep it at its clock, its nodes
 * awake and their CPUs as loaded as the start would make them; the model
 * is put back as it was.  FALSE without a [power] section. */
gboolean sim__power_module_estimate_start_power (SimSimulation *sim, const SimJob *job,
                                                 const SimPlacement *placement,
                                                 double *facility_w);

G_END_DECLS

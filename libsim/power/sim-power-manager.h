/* sim-power-manager.h: a DCGM-style GPU power-cap manager (not installed).
 *
 * What a data-centre GPU manager does with power policies: it watches each
 * GPU's activity (DCGM's graphics-engine activity, the share of time the
 * GPU computes) and, when a GPU stays underused, lowers its power cap; when
 * the work comes back, it lifts the cap.  A GPU that computes a small share
 * of its time (an inference service at low load, a job waiting on the
 * network) loses little speed under a low cap but draws less while it
 * computes.  The scenario's [power_manager] section sets it:
 *
 *   threshold    activity below which a GPU counts as underused (50 %)
 *   low_cap      the cap it then gets (150 W)
 *   hold         how long it must stay below before the cap falls (5 min)
 *   raise_after  how long it must stay at or above before the cap is lifted
 *                (0: at once, at the first change that brings it back)
 *   baseline     also run the scenario without the manager (true)
 *
 * A GPU with no job has activity 0 and is capped too, after the hold: a
 * job placed on it starts under the low cap, and keeps it for
 * raise_after if its activity is at or above the threshold.
 *
 * Mechanics.  Activity is constant between two changes of state, so the
 * manager looks at every GPU when the state changes (the simulation's
 * power watch) and at the moment a hold or a raise_after ends (one timer,
 * for the earliest of them): a GPU is capped exactly when its activity has
 * been below the threshold for the hold, with no sampling period to
 * choose.  Cost: O(GPUs) per change of state, and per cap changed the cost
 * of moving the jobs on that GPU to their new speed.  Keeping, per GPU,
 * only the time its activity crossed the threshold makes the state O(GPUs).
 *
 * Metrics (summary.json, units in brackets):
 *   power_manager_capped_gpu_hours [GPU*h]  GPU time spent under the low cap
 *   power_manager_cap_lowerings    [caps]   caps lowered
 *   power_manager_cap_raises       [caps]   caps lifted
 * and, with the baseline (sim-power-policy.h), against the same run
 * without the manager: power_manager_energy_saved [kWh] and _share [%]
 * (facility energy), power_manager_jct_change [s] and _share [%] (mean
 * completion time, positive when jobs take longer), power_manager_wait_change
 * [s], power_manager_baseline_energy [kWh].
 */
#pragma once

#include <glib.h>
#include "kernel/sim-simulation.h"
#include "scenario/sim-scenario.h"

G_BEGIN_DECLS

/* Attaches a manager set by @config to @sim (a simulation with a power
 * model that has not started): its watch, its timer and its accumulator,
 * which the simulation owns from then on.  Not @active (the section is
 * there but off): only its accumulator, reporting that it did nothing.
 * Errors: SIM_ERROR_INVALID with the file, line and key when low_cap is at
 * or below the idle power of one of the cluster's GPU models (a cap the
 * GPU cannot hold) or at or above the TDP of all of them (a cap that caps
 * nothing). */
gboolean sim__power_manager_attach (SimSimulation *sim, const SimPowerManagerConfig *config,
                                    gboolean active, GError **error);

G_END_DECLS
